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
of the project's C code: disk_dump_header (464 bytes), kdump_sub_header at
one block, the two bitmaps, then a 24-byte page_desc per dumpable page;
zlib with Python's zlib, lzo, snappy and zstd through ctypes.
"""
import ctypes, ctypes.util, mmap, struct, sys, zlib


def lib(name, soname):
    try:
        return ctypes.CDLL(ctypes.util.find_library(name) or soname)
    except OSError:
        return None


LZO, ZSTD, SNAPPY = lib("lzo2", "liblzo2.so.2"), lib("zstd", "libzstd.so.1"), lib("snappy", "libsnappy.so.1")


def decompress(flags, raw, n):
    if flags & 0x1:
        return zlib.decompress(raw)
    out = ctypes.create_string_buffer(n)
    olen = ctypes.c_size_t(n)
    if flags & 0x2:
        if LZO is None or LZO.lzo1x_decompress_safe(raw, ctypes.c_size_t(len(raw)), out,
                                                    ctypes.byref(olen), None) != 0:
            raise ValueError("lzo page")
        return out.raw[:olen.value]
    if flags & 0x20:
        ZSTD.ZSTD_decompress.restype = ctypes.c_size_t
        r = ZSTD.ZSTD_decompress(out, ctypes.c_size_t(n), raw, ctypes.c_size_t(len(raw)))
        if ZSTD.ZSTD_isError(ctypes.c_size_t(r)):
            raise ValueError("zstd page")
        return out.raw[:r]
    if flags & 0x4:
        if SNAPPY is None or SNAPPY.snappy_uncompress(raw, ctypes.c_size_t(len(raw)), out,
                                                      ctypes.byref(olen)) != 0:
            raise ValueError("snappy page")
        return out.raw[:olen.value]
    if len(raw) != n:
        raise ValueError("raw page of %d bytes" % len(raw))
    return raw


def kdump(path):
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    if m[:8] != b"KDUMP   ":
        raise SystemExit("%s: not a kdump-compressed file" % path)
    e = "<" if 0 < struct.unpack_from("<i", m, 8)[0] < 256 else ">"
    version, = struct.unpack_from(e + "i", m, 8)
    bs, subs, bmblocks, mapnr32 = struct.unpack_from(e + "iiII", m, 428)
    maxmapnr = mapnr32
    if version >= 6:
        maxmapnr, = struct.unpack_from(e + "Q", m, bs + 96)
    half = bmblocks * bs // 2
    b2 = m[(1 + subs) * bs + half:(1 + subs) * bs + 2 * half]
    descs = (1 + subs + bmblocks) * bs
    pfns = [p for p in range(maxmapnr) if b2[p >> 3] >> (p & 7) & 1]
    return m, e, bs, pfns, descs


def elf_loads(path):
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    e = "<" if m[5] == 1 else ">"
    phoff, = struct.unpack_from(e + "Q", m, 32)
    phent, phnum = struct.unpack_from(e + "HH", m, 54)
    loads = []
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
        got = decompress(flags, m[off:off + size], bs)
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
