#!/usr/bin/env python3
"""tests/tools/kdump_drop.py IN OUT PFN...

Copy the kdump-compressed dump IN to OUT with the pages PFN... (decimal or
0x hex) taken out, as if the filter had excluded them: each one's bit in
the second bitmap is cleared and its page descriptor removed (the later
descriptors move up one place, a zero one fills the end; the page data
stays where it was, unreferenced).  A reader that needs such a page then
reports it excluded.  This is the readers' gate's control: a dump that
lost one kernel page must fail the gate (tests/lab/readers/judge.py).
Single files only (not a split part), little-endian headers: LP64, the
ILP32 ones of an i386 kernel's dump (utsname.machine i386..i686), or the
EABI32 ones of a 32-bit arm kernel's (armv*), whose bitmaps count from the
pfn of PHYS_OFFSET (the sub header's phys_base): PFN is the page's own.
"""
import shutil
import struct
import sys


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__.strip().splitlines()[0])
    src, dst = argv[1], argv[2]
    pfns = sorted({int(p, 0) for p in argv[3:]})
    shutil.copyfile(src, dst)
    with open(dst, "r+b") as f:
        head = f.read(464)
        if head[:8] != b"KDUMP   ":
            sys.exit("%s: not a kdump-compressed dump" % src)
        mach = head[12 + 4 * 65:12 + 5 * 65].split(b"\0")[0]
        arm = mach.startswith(b"armv")
        i32 = arm or len(mach) == 4 and mach[:1] == b"i" and mach[1:2] in b"3456" and mach[2:] == b"86"
        block, sub_blocks, bm_blocks, mapnr32 = struct.unpack_from("<iiII", head,
                                                                   416 if i32 else 428)
        f.seek(block)
        sub = f.read(block)
        split = struct.unpack_from("<i", sub, 8 if i32 else 12)[0]
        mm_at = 88 if arm else 72 if i32 else 96
        max_mapnr = struct.unpack_from("<Q", sub, mm_at)[0] if len(sub) >= mm_at + 8 else mapnr32
        if split:
            sys.exit("%s: a split part: take pages out of a whole dump" % src)
        if arm:
            base = struct.unpack_from("<I", sub, 0)[0] // block
            if any(p < base for p in pfns):
                sys.exit("%s: a pfn below PHYS_OFFSET's 0x%x" % (src, base))
            pfns = [p - base for p in pfns]
        half = bm_blocks * block // 2
        bm2_off = (1 + sub_blocks) * block + half
        f.seek(bm2_off)
        bm2 = bytearray(f.read(half))
        desc_off = (1 + sub_blocks + bm_blocks) * block
        ndesc = sum(bin(b).count("1") for b in bm2)
        f.seek(desc_off)
        descs = bytearray(f.read(24 * ndesc))
        for pfn in reversed(pfns):
            if pfn >= max_mapnr or not bm2[pfn >> 3] >> (pfn & 7) & 1:
                sys.exit("%s: pfn 0x%x is not in the dump" % (src, pfn))
            idx = sum(bin(b).count("1") for b in bm2[:pfn >> 3]) + \
                bin(bm2[pfn >> 3] & ((1 << (pfn & 7)) - 1)).count("1")
            del descs[24 * idx:24 * idx + 24]
            descs += bytes(24)
            bm2[pfn >> 3] &= ~(1 << (pfn & 7)) & 0xff
        f.seek(bm2_off)
        f.write(bm2)
        f.seek(desc_off)
        f.write(descs)


if __name__ == "__main__":
    main(sys.argv)
