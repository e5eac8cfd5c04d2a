#!/usr/bin/python3
"""Read every stored page of a kdump-compressed DUMP with libkdumpfile and
compare it with the same physical page of the ELF vmcore it was made from.

usage: libkdumpfile_check.py DUMP ELF   -> prints "pages N" or an error; exit 1 on mismatch
Run with the system python (/usr/bin/python3), where python3-libkdumpfile lives.
"""
import struct, sys
import kdumpfile

def elf_loads(path):
    f = open(path, "rb")
    eh = f.read(64)
    phoff, = struct.unpack_from("<Q", eh, 32)
    phentsize, phnum = struct.unpack_from("<HH", eh, 54)
    loads = []
    for i in range(phnum):
        f.seek(phoff + i * phentsize)
        t, fl, off, va, pa, fsz, msz, al = struct.unpack("<IIQQQQQQ", f.read(56))
        if t == 1 and msz:
            loads.append((pa, off, fsz, msz))
    return f, loads

def elf_page(f, loads, paddr, size):
    for pa, off, fsz, msz in loads:
        if pa <= paddr and paddr + size <= pa + fsz:
            f.seek(off + paddr - pa)
            return f.read(size)
    return None

def main():
    dump, elf = sys.argv[1], sys.argv[2]
    k = kdumpfile.kdumpfile(dump)
    ps = 4096
    f, loads = elf_loads(elf)
    bmp = k.attr['file.pagemap']
    maxpfn = k.attr['max_pfn']
    n = 0
    pfn = bmp.find_set(0)
    while pfn < maxpfn:
        end = min(bmp.find_clear(pfn), maxpfn)
        for p in range(pfn, end):
            got = k.read(kdumpfile.KDUMP_MACHPHYSADDR, p * ps, ps)
            want = elf_page(f, loads, p * ps, ps)
            if want is not None and bytes(got) != want:
                print("pfn 0x%x differs" % p)
                return 1
            n += 1
        if end >= maxpfn:
            break
        pfn = bmp.find_set(end)
    print("pages %d" % n)
    return 0

if __name__ == "__main__":
    sys.exit(main())
