#!/usr/bin/env python3
"""elf_same.py UPSTREAM OURS - a file of makedumpfile 1.7.2 (or HEAD) and
ours, byte for byte; an -E file but for one field.

Where the first PT_LOAD begins with excluded pages and holds data further
on, upstream writes it as a piece without data at p_offset 0; crash takes
the size of the headers and the kind of the file from the first PT_LOAD's
p_offset (netdump.c, is_netdump()), and cannot open such a file.  Ours
gives that piece the offset where the data follows (write/elf_write.c).
So that field is compared as: upstream's 0, ours the next PT_LOAD's
p_offset, both with p_filesz 0.  Every other byte must be equal.

Exit 0 and one line saying what was compared; exit 1 and the first
difference (as cmp says it) otherwise.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmcore_layout import phdrs  # noqa: E402

PT_LOAD = 1


def loads(data):
    """(offset of the p_offset field, its size, p_offset, p_filesz) of each
    PT_LOAD"""
    if data[:4] != b"\x7fELF":
        raise ValueError("not ELF")
    return [(fat, fsize, off, fs) for _, fat, fsize, t, off, _, _, fs in phdrs(data)
            if t == PT_LOAD]


def main():
    up = bytearray(open(sys.argv[1], "rb").read())
    ours = open(sys.argv[2], "rb").read()
    note = "same bytes"
    try:
        u, o = loads(up), loads(ours)
    except (ValueError, struct.error):
        u = o = []  # not ELF (a kdump file): all of it byte for byte
    if len(u) >= 2 and len(o) >= 2 and u[0][2] == 0 and u[0][3] == 0 and \
            o[0][3] == 0 and o[0][2] == o[1][2] and o[0][0] == u[0][0]:
        at, size, _, _ = u[0]
        up[at:at + size] = ours[at:at + size]
        note = "same bytes but the first PT_LOAD's p_offset (0 upstream, %#x ours: " \
            "a piece without data)" % o[0][2]
    if bytes(up) == ours:
        print(note)
        return 0
    n = min(len(up), len(ours))
    for i in range(n):
        if up[i] != ours[i]:
            print("%s %s differ: byte %d" % (sys.argv[1], sys.argv[2], i + 1))
            return 1
    print("EOF on %s after byte %d" % (sys.argv[1] if len(up) < len(ours) else sys.argv[2], n))
    return 1


if __name__ == "__main__":
    sys.exit(main())
