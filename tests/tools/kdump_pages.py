#!/usr/bin/env python3
"""Does a kdump-compressed dump hold the pages of its ELF vmcore?  Either byte order.

usage: kdump_pages.py pages KDUMP VMCORE
       -> "checked N pages against the ELF: M differ (big-endian)"; exit 1 if any

Every page bitmap2 marks dumpable must decompress to the bytes the ELF holds
at the same physical address (zero past p_filesz).  The kdump headers and
page descriptors are in the dumped machine's byte order (makedumpfile writes
them as they are in its memory: an s390x or ppc64 BE dump's are
big-endian), told from header_version; the bitmaps are byte arrays, bit i of
byte i / 8 for pfn i.  Read from the format's published layout, independent
of the project's C code: disk_dump_header (464 bytes; 452 in the ILP32
layout of an i386 kernel's dump, told by utsname.machine i386..i686, and
of a 32-bit arm kernel's, armv*, whose sub header aligns 8-byte members to 8
and whose pfns count from its phys_base, PHYS_OFFSET), kdump_sub_header at
one block, the two bitmaps, then a 24-byte page_desc per
dumpable page; the ELF is ELF64 or ELF32;
zlib with Python's zlib, lzo, snappy and zstd through ctypes.
"""
import mmap, os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kdump_same import decode, ilp32, eabi32  # noqa: E402  (one page decoder for both tools)


def kdump(path):
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    if m[:8] != b"KDUMP   ":
        raise SystemExit("%s: not a kdump-compressed file" % path)
    e = "<" if 0 < struct.unpack_from("<i", m, 8)[0] < 256 else ">"
    version, = struct.unpack_from(e + "i", m, 8)
    arm = eabi32(m)
    i32 = ilp32(m) or arm
    bs, subs, bmblocks, mapnr32 = struct.unpack_from(e + "iiII", m, 416 if i32 else 428)
    maxmapnr = mapnr32
    if version >= 6:
        maxmapnr, = struct.unpack_from(e + "Q", m, bs + (88 if arm else 72 if i32 else 96))
    # 32-bit arm: bit 0 is the page of phys_base (PHYS_OFFSET)
    base = struct.unpack_from(e + "I", m, bs)[0] // bs if arm else 0
    half = bmblocks * bs // 2
    b2 = m[(1 + subs) * bs + half:(1 + subs) * bs + 2 * half]
    descs = (1 + subs + bmblocks) * bs
    pfns = [p + base for p in range(maxmapnr) if b2[p >> 3] >> (p & 7) & 1]
    return m, e, bs, pfns, descs


def elf_loads(path):
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    e = "<" if m[5] == 1 else ">"
    loads = []
    if m[4] == 1:  # ELF32 (an i386 vmcore)
        phoff, = struct.unpack_from(e + "I", m, 28)
        phent, phnum = struct.unpack_from(e + "HH", m, 42)
        for i in range(phnum):
            t, off, va, pa, fs, ms, fl, al = struct.unpack_from(e + "8I", m, phoff + i * phent)
            if t == 1 and pa != (1 << 32) - 1:
                loads.append((pa, off, fs, ms))
        return m, loads
    phoff, = struct.unpack_from(e + "Q", m, 32)
    phent, phnum = struct.unpack_from(e + "HH", m, 54)
    for i in range(phnum):
        t, fl, off, va, pa, fs, ms, al = struct.unpack_from(e + "IIQQQQQQ", m, phoff + i * phent)
        if t == 1 and pa != (1 << 64) - 1:
            loads.append((pa, off, fs, ms))
    return m, loads


def pages(kpath, epath):
    m, e, bs, pfns, descs = kdump(kpath)
    em, loads = elf_loads(epath)
    zero, diff = bytes(bs), 0
    for i, pfn in enumerate(pfns):
        off, size, flags, _ = struct.unpack_from(e + "qIIQ", m, descs + 24 * i)
        got = decode(flags, m[off:off + size], bs)
        pa, want = pfn * bs, None
        for start, foff, fs, ms in loads:
            if start <= pa and pa + bs <= start + ms:
                o = pa - start
                want = em[foff + o:foff + o + bs] if o + bs <= fs else zero
                break
        if want is not None and got != want:
            diff += 1
            if diff <= 5:
                print("pfn %#x differs from the ELF" % pfn)
    print("checked %d pages against the ELF: %d differ (%s)" %
          (len(pfns), diff, "big-endian" if e == ">" else "little-endian"))
    return 1 if diff else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["pages"] and len(sys.argv) == 4:
        sys.exit(pages(sys.argv[2], sys.argv[3]))
    print(__doc__)
    sys.exit(2)
