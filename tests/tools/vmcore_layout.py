"""The layout of an ELF vmcore, read without the program (tests/e2e/gen_*.sh).

read_vmcore(path) -> (data, loads, vmcoreinfo, prstatus_sizes):
  data        the file, mmapped
  loads       (vaddr, paddr, filesz, offset) of each PT_LOAD, in order
  vmcoreinfo  the VMCOREINFO note as a dict of KEY -> value text
  prstatus    the descriptor size of every other note (the CPUs' NT_PRSTATUS)
ELF64 little-endian only, as the generator writes for every architecture.
"""
import mmap, struct


def read_vmcore(path):
    f = open(path, "rb")
    d = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    phoff, = struct.unpack_from("<Q", d, 32)
    phnum, = struct.unpack_from("<H", d, 56)
    loads, vmi, prs = [], {}, []
    for i in range(phnum):
        t, fl, off, va, pa, fs, ms, al = struct.unpack_from("<IIQQQQQQ", d, phoff + 56 * i)
        if t == 1:
            loads.append((va, pa, fs, off))
        elif t == 4:
            p = off
            while p < off + fs:
                nn, dn, ty = struct.unpack_from("<III", d, p)
                name = d[p + 12:p + 11 + nn]
                p += 12 + (nn + 3) // 4 * 4
                if name == b"VMCOREINFO":
                    vmi = dict(l.split("=", 1) for l in d[p:p + dn].decode().splitlines())
                else:
                    prs.append(dn)
                p += (dn + 3) // 4 * 4
    return d, loads, vmi, prs
