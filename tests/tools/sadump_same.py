#!/usr/bin/env python3
"""sadump_same.py A B: are two kdump-compressed files (makedumpfile 1.7.2's
and ours, from one sadump dump) the same, byte for byte, but for the bytes
1.7.2 writes nondeterministically?

1.7.2 builds the notes of a sadump dump with write_elf_note_header(): the
name "CORE" (5 bytes with its NUL) is padded to 8 by fwrite()ing 3 bytes
from a one-byte variable (alignfile()'s nullbyte), so the pad's first
byte is 0 and the next two are whatever follows it on the stack: the
second of them (name + 7) differs from run to run (the first has been 0
in every run seen, and is compared).  Every "CORE" note's byte name + 7
is skipped; everything else must be equal.  Prints the number of bytes
skipped; exits 1 with the first difference otherwise."""
import struct
import sys


def core_pad_bytes(d):
    """File offsets of the nondeterministic byte of each "CORE" note."""
    # disk_dump_header: signature 8, header_version 4, utsname 390,
    # pad 2, timestamp 16, status 4, block_size 4 (at 424 + 4)
    block = struct.unpack_from('<i', d, 428)[0]
    # kdump_sub_header: offset_note and size_note at 48
    off_note, size_note = struct.unpack_from('<QQ', d, block + 48)
    skip, o, end = [], off_note, off_note + size_note
    while o + 12 <= end:
        nsz, dsz, _ = struct.unpack_from('<III', d, o)
        if nsz == 5 and d[o + 12:o + 16] == b'CORE':
            skip.append(o + 12 + 7)
        o += 12 + ((nsz + 3) & ~3) + ((dsz + 3) & ~3)
    return skip


def main():
    a = bytearray(open(sys.argv[1], 'rb').read())
    b = bytearray(open(sys.argv[2], 'rb').read())
    if len(a) != len(b):
        sys.exit('sizes differ: %d and %d bytes' % (len(a), len(b)))
    skip = set(core_pad_bytes(a))
    if skip != set(core_pad_bytes(b)):
        sys.exit('the notes lie elsewhere')
    for i in skip:
        a[i] = b[i] = 0
    if a != b:
        i = next(i for i in range(len(a)) if a[i] != b[i])
        sys.exit('byte 0x%x differs: 0x%02x and 0x%02x' % (i, a[i], b[i]))
    print('same but %d note padding bytes' % len(skip))


main()
