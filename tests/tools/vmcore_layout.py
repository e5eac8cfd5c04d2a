"""The layout of an ELF vmcore, read without the program (tests/e2e/gen_*.sh).

read_vmcore(path) -> (data, loads, vmcoreinfo, prstatus_sizes):
  data        the file, mmapped
  loads       (vaddr, paddr, filesz, offset) of each PT_LOAD, in order
  vmcoreinfo  the VMCOREINFO note as a dict of KEY -> value text
  prstatus    the descriptor size of every "CORE" NT_PRSTATUS note (a CPU's)
byte_order(data) -> "<" or ">": the file's EI_DATA, for struct formats.
ELF64 of either byte order: the headers and notes are read in the file's
own (little-endian for most, big-endian for s390x and ppc64 BE); the
kernel's data in memory has the same order.
"""
import mmap, struct

NT_PRSTATUS = 1


def byte_order(d):
    if d[4] != 2 or d[5] not in (1, 2):
        raise ValueError("not an ELF64 file of a known byte order")
    return "<" if d[5] == 1 else ">"


def read_vmcore(path):
    f = open(path, "rb")
    d = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    e = byte_order(d)
    phoff, = struct.unpack_from(e + "Q", d, 32)
    phnum, = struct.unpack_from(e + "H", d, 56)
    loads, vmi, prs = [], {}, []
    for i in range(phnum):
        t, fl, off, va, pa, fs, ms, al = struct.unpack_from(e + "IIQQQQQQ", d, phoff + 56 * i)
        if t == 1:
            loads.append((va, pa, fs, off))
        elif t == 4:
            p = off
            while p < off + fs:
                nn, dn, ty = struct.unpack_from(e + "III", d, p)
                name = d[p + 12:p + 11 + nn]
                p += 12 + (nn + 3) // 4 * 4
                if name == b"VMCOREINFO":
                    vmi = dict(l.split("=", 1) for l in d[p:p + dn].decode().splitlines())
                elif name == b"CORE" and ty == NT_PRSTATUS:
                    prs.append(dn)
                p += (dn + 3) // 4 * 4
    return d, loads, vmi, prs
