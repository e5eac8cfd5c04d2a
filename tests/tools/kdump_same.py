#!/usr/bin/env python3
"""Are two kdump-compressed files the same dump, whatever their compressed bytes?

usage: kdump_same.py [--ignore-headers] [--ignore-bitmap1] A B
       -> prints "same: N pages" or what differs; exit 1 if different

--ignore-headers leaves out the headers, notes and eraseinfo (two dumps of
the same memory with other VMCOREINFO sources), --ignore-bitmap1 the
present bitmap (an input whose bitmap1 was repaired): what remains is which
pages are stored and their bytes.

Two writers of the same dump may compress a page to other bytes (libdeflate and
zlib both write zlib streams for -c), so the data area and the page
descriptors' offsets differ.  Everything else must not:
  - disk_dump_header: every field (signature, version, utsname, timestamp,
    status, block size, sizes, max_mapnr, nr_cpus ...);
  - kdump_sub_header: every field but offset_eraseinfo (it follows the data);
  - the notes (with VMCOREINFO) and the eraseinfo text, byte for byte;
  - both bitmaps, byte for byte;
  - one descriptor per dumpable page in both, each one valid: flags 0 (raw, size
    = block size) or one codec bit (size at most the block size; zlib, lzo,
    snappy, zstd), page_flags equal;
  - every page decompresses to the same bytes.
Independent of the project's C code: the format is read from its published
layout (LP64, or ILP32 for an i386 kernel's dump, whose utsname.machine is
i386..i686, or EABI32 for a 32-bit arm kernel's, armv*: ILP32 with 8-byte
members aligned to 8; in the byte order its header version shows), zlib with Python's zlib,
lzo/snappy/zstd with their libraries through ctypes.
"""
import ctypes, ctypes.util, mmap, struct, sys, zlib

# In the dumped machine's byte order: '<' for x86_64 and the others, '>'
# for s390x (the header version, 1 to 6, says which).
HDR_FMT = "8si" + "65s" * 6 + "6xqqIiiIIIIIIi"  # up to nr_cpus
SUB_FMT = "QiiQQqQqQqQQQQ"
# makedumpfile built for i386 (the one that reads i386 dumps): 4-byte longs
# and timeval, 8-byte off_t and long long 4-byte aligned; the same fields.
HDR_FMT32 = "8si" + "65s" * 6 + "2xiiIiiIIIIIIi"
SUB_FMT32 = "IiiIIqIqIqIQQQ"
# makedumpfile built for armhf: the ARM EABI aligns the sub header's off_t
# and long long to 8 (crash's diskdump.c: kdump_sub_header_ARM_target).
SUB_FMT_EABI32 = "IiiII4xqI4xqI4xqI4xQQQ"


def ilp32(m):
    """Is the header at @m an i386 dump's (utsname.machine i386..i686)?"""
    mach = bytes(m[12 + 4 * 65:12 + 5 * 65]).split(b"\0")[0]
    return len(mach) == 4 and mach[:1] == b"i" and mach[1:2] in b"3456" and mach[2:] == b"86"


def eabi32(m):
    """Is the header at @m a 32-bit arm dump's (utsname.machine armv*)?"""
    return bytes(m[12 + 4 * 65:12 + 4 * 65 + 4]) == b"armv"


def sub_fmt(m):
    """The sub header's struct format of the dump at @m."""
    return SUB_FMT_EABI32 if eabi32(m) else SUB_FMT32 if ilp32(m) else SUB_FMT


def lib(name, soname):
    try:
        return ctypes.CDLL(ctypes.util.find_library(name) or soname)
    except OSError:
        return None


LZO, ZSTD, SNAPPY = lib("lzo2", "liblzo2.so.2"), lib("zstd", "libzstd.so.1"), lib("snappy", "libsnappy.so.1")


def decode(flags, raw, B):
    if flags == 0:
        if len(raw) != B:
            raise ValueError("raw page of %d bytes" % len(raw))
        return raw
    if len(raw) > B:
        raise ValueError("compressed page of %d bytes, more than a block" % len(raw))
    out = ctypes.create_string_buffer(B)
    n = ctypes.c_size_t(B)
    if flags == 0x1:
        d = zlib.decompressobj()
        page = d.decompress(raw, B + 1)
        if not d.eof:
            raise ValueError("zlib stream does not end")
        return page
    if flags == 0x2 and LZO:
        if LZO.lzo1x_decompress_safe(raw, ctypes.c_size_t(len(raw)), out, ctypes.byref(n), None):
            raise ValueError("lzo error")
        return out.raw[:n.value]
    if flags == 0x4 and SNAPPY:
        if SNAPPY.snappy_uncompress(raw, ctypes.c_size_t(len(raw)), out, ctypes.byref(n)):
            raise ValueError("snappy error")
        return out.raw[:n.value]
    if flags == 0x20 and ZSTD:
        ZSTD.ZSTD_decompress.restype = ctypes.c_size_t
        r = ZSTD.ZSTD_decompress(out, ctypes.c_size_t(B), raw, ctypes.c_size_t(len(raw)))
        if ZSTD.ZSTD_isError(ctypes.c_size_t(r)):
            raise ValueError("zstd error")
        return out.raw[:r]
    raise ValueError("page flags %#x" % flags)


class Dump:
    def __init__(self, path):
        f = open(path, "rb")
        self.m = m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        if m[:8] != b"KDUMP   ":
            raise ValueError("%s: not a kdump-compressed file" % path)
        self.o = "<" if 1 <= int.from_bytes(m[8:12], "little") <= 6 else ">"
        self.ilp32 = ilp32(m) or eabi32(m)
        self.hdr = struct.unpack_from(self.o + (HDR_FMT32 if self.ilp32 else HDR_FMT), m, 0)
        self.B = B = self.hdr[11]
        self.sub_hdr_size, self.bitmap_blocks = self.hdr[12], self.hdr[13]
        self.sub = list(struct.unpack_from(self.o + sub_fmt(m), m, B))
        off_note, size_note = self.sub[7], self.sub[8]
        off_erase, size_erase = self.sub[9], self.sub[10]
        self.notes = m[off_note:off_note + size_note]
        self.erase = m[off_erase:off_erase + size_erase] if size_erase else b""
        self.sub[9] = None                      # offset_eraseinfo: after the data
        bm = (1 + self.sub_hdr_size) * B
        half = self.bitmap_blocks * B // 2
        self.bm1, self.bm2 = m[bm:bm + half], m[bm + half:bm + 2 * half]
        self.desc = bm + 2 * half
        self.ndump = sum(bin(b).count("1") for b in self.bm2)

    def page(self, i):
        off, size, flags, pflags = struct.unpack_from(self.o + "qIIQ", self.m, self.desc + 24 * i)
        return flags, pflags, decode(flags, self.m[off:off + size], self.B)


def main():
    opts = {o for o in sys.argv[1:] if o.startswith("--")}
    files = [f for f in sys.argv[1:] if not f.startswith("--")]
    if len(files) != 2 or opts - {"--ignore-headers", "--ignore-bitmap1"}:
        print(__doc__)
        return 2
    a, b = Dump(files[0]), Dump(files[1])
    why = []
    if "--ignore-headers" not in opts:
        if a.hdr != b.hdr:
            why.append("disk_dump_header differs")
        if a.sub != b.sub:
            why.append("kdump_sub_header differs: %s vs %s" % (a.sub, b.sub))
        if a.notes != b.notes:
            why.append("notes differ")
        if a.erase != b.erase:
            why.append("eraseinfo differs")
    if a.bm1 != b.bm1 and "--ignore-bitmap1" not in opts:
        why.append("bitmap1 differs")
    if a.bm2 != b.bm2:
        why.append("bitmap2 differs")
    if not why:
        for i in range(a.ndump):
            try:
                fa, pa, da = a.page(i)
                fb, pb, db = b.page(i)
            except ValueError as e:
                why.append("page %d: %s" % (i, e))
                break
            if pa != pb or da != db:
                why.append("page %d (flags %#x / %#x) differs" % (i, fa, fb))
                break
    if why:
        print("; ".join(why))
        return 1
    print("same: %d pages" % a.ndump)
    return 0


if __name__ == "__main__":
    sys.exit(main())
