#!/usr/bin/env python3
"""tests/tools/up172_nodata.py VMCORE OURS OUT

makedumpfile 1.7.2 to 1.7.5 drop one page it has: exclude_nodata_pages()
clears, in the second bitmap, the pfns from paddr_to_pfn(p_paddr + p_filesz)
up to the end of each PT_LOAD, rounding the start *down*, so the last page
of a PT_LOAD whose file data ends inside a page is excluded at every dump
level, even when that page is all in the vmcore (its own part, and all of
it in an overlapping PT_LOAD).  Only such pages count here: ones the
vmcore holds whole, in one PT_LOAD's file data.  Upstream fixed it in f2c5f76 ("Fix
incorrect page exclusion in exclude_nodata_pages()", 1.7.6, by Loongson:
kexec-tools' MIPS and LoongArch vmcores have such a PT_LOAD, the kernel
image's, which ends at _end).  We keep the page.

This writes OUT, our dump OURS (-l/-c/-p kdump-compressed, or -E ELF) as
1.7.2 would have written it: those pfns taken out, nothing else changed.
  kdump: each one's bit in bitmap2 cleared, its page descriptor and its
         data (unless shared, the zero page's) removed, the later
         descriptors' offsets moved up;
  ELF:   a PT_LOAD's file data that ends in such a page ends where the page
         begins (p_memsz as it was), the later p_offsets moved up; inside a
         PT_LOAD's file data the page stays (1.7.2's write_elf_pages_cyclic()
         writes a run of fewer than 256 excluded pages that a dumped page
         follows, with its data).
Prints the pfns and the PT_LOADs they end ("0xa9a (PT_LOAD 0x1750000 +
0x131866f)"), or exits 3 when OURS holds none of them (then there is
nothing 1.7.2 writes otherwise: compare the files as they are).
Little-endian LP64 dumps.
"""
import mmap
import re
import struct
import sys


def elf_loads(m):
    if m[:4] != b"\x7fELF" or m[4] != 2 or m[5] != 1:
        sys.exit("not a little-endian ELF64 file")
    phoff, = struct.unpack_from("<Q", m, 32)
    phent, phnum = struct.unpack_from("<HH", m, 54)
    return phoff, phent, [struct.unpack_from("<IIQQQQQQ", m, phoff + i * phent) for i in range(phnum)]


def nodata_pfns(vmcore):
    """{pfn: (p_paddr, p_filesz)} of the pages 1.7.2 drops, and PAGESIZE."""
    with open(vmcore, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    _, _, phs = elf_loads(m)
    ps = None
    for t, _, off, _, _, fs, _, _ in phs:
        if t == 4:
            g = re.search(rb"\nPAGESIZE=(\d+)\n", m[off:off + fs])
            ps = int(g.group(1)) if g else None
    if not ps:
        sys.exit("%s: no PAGESIZE= in its VMCOREINFO" % vmcore)
    data = [(pa, pa + fs) for t, _, _, _, pa, fs, _, _ in phs if t == 1]
    out = {}
    for t, _, _, _, pa, fs, _, _ in phs:
        a = (pa + fs) // ps * ps
        # only a page the vmcore holds whole, in one PT_LOAD's file data
        if t == 1 and (pa + fs) % ps and any(s <= a and a + ps <= e for s, e in data):
            out.setdefault(a // ps, (pa, fs))
    return out, ps


def drop_kdump(m, out, pfns):
    block, subs, bmblocks = struct.unpack_from("<iii", m, 428)
    if struct.unpack_from("<i", m, block + 12)[0]:
        sys.exit("a split part")
    if struct.unpack_from("<Q", m, block + 72)[0]:
        sys.exit("eraseinfo after the data")
    half = bmblocks * block // 2
    bm2_at = (1 + subs) * block + half
    bm2 = bytearray(m[bm2_at:bm2_at + half])
    desc_at = bm2_at + half
    nd = sum(bin(b).count("1") for b in bm2)
    descs = [list(struct.unpack_from("<qIIQ", m, desc_at + 24 * i)) for i in range(nd)]
    data_at = desc_at + 24 * nd
    idx = {}
    i = 0
    for p in range(half * 8):
        if bm2[p >> 3] >> (p & 7) & 1:
            idx[p] = i
            i += 1
    hit = [p for p in pfns if p in idx]
    if not hit:
        return []
    gone = set()
    cut = []                          # (offset, size) of data taken out
    for p in hit:
        d = descs[idx[p]]
        gone.add(idx[p])
        bm2[p >> 3] &= ~(1 << (p & 7)) & 0xff
        if sum(1 for e in descs if e[0] == d[0]) == 1:
            cut.append((d[0], d[1]))
    cut.sort()
    keep = [d for i, d in enumerate(descs) if i not in gone]
    shift = 24 * len(gone)
    for d in keep:
        d[0] -= shift + sum(s for o, s in cut if o < d[0])
    out.write(m[:bm2_at])
    out.write(bm2)
    out.write(b"".join(struct.pack("<qIIQ", *d) for d in keep))
    at = data_at
    for o, s in cut:
        out.write(m[at:o])
        at = o + s
    out.write(m[at:])
    return hit


def drop_elf(m, out, pfns, ps):
    phoff, phent, phs = elf_loads(m)
    phs = [list(p) for p in phs]
    cuts = []
    hit = []
    for p in sorted(pfns):
        a = p * ps
        for ph in phs:
            t, _, off, _, pa, fs, _, _ = ph
            if t != 1 or not pa <= a < pa + fs:
                continue
            # inside the file data: 1.7.2 writes a run of fewer than
            # 256 excluded pages that a dumped one follows, as it is
            if pa + fs > a + ps:
                continue
            cuts.append((off + a - pa, pa + fs - a))
            ph[5] = a - pa
            hit.append(p)
    if not hit:
        return []
    cuts.sort()
    for ph in phs:
        if ph[2] or ph[5]:
            ph[2] -= sum(s for o, s in cuts if o + s <= ph[2])
    hdr = bytearray(m[:phoff + phent * len(phs)])
    for i, ph in enumerate(phs):
        struct.pack_into("<IIQQQQQQ", hdr, phoff + i * phent, *ph)
    out.write(hdr)
    at = len(hdr)
    for o, s in cuts:
        out.write(m[at:o])
        at = o + s
    out.write(m[at:])
    return hit


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__.strip().splitlines()[0])
    where, ps = nodata_pfns(argv[1])
    with open(argv[2], "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    with open(argv[3], "wb") as out:
        if m[:8] == b"KDUMP   ":
            if struct.unpack_from("<i", m, 428)[0] != ps:
                sys.exit("block size is not the vmcore's PAGESIZE")
            hit = drop_kdump(m, out, where)
        else:
            hit = drop_elf(m, out, where, ps)
    if not hit:
        return 3
    print(", ".join("0x%x (PT_LOAD 0x%x + 0x%x)" % ((p,) + where[p]) for p in sorted(set(hit))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
