"""The layout of an ELF vmcore, read without the program (tests/e2e/gen_*.sh).

read_vmcore(path) -> (data, loads, vmcoreinfo, prstatus_sizes):
  data        the file, mmapped
  loads       (vaddr, paddr, filesz, offset) of each PT_LOAD, in order
  vmcoreinfo  the VMCOREINFO note as a dict of KEY -> value text
  prstatus    the descriptor size of every "CORE" NT_PRSTATUS note (a CPU's)
byte_order(data) -> "<" or ">": the file's EI_DATA, for struct formats.
ELF64 of either byte order: the headers and notes are read in the file's
own (little-endian for most, big-endian for s390x and ppc64 BE); the
kernel's data in memory has the same order.  ELF32 too (i386's cores):
p_vaddr -1 is then 0xffffffff.
elf_class(data) -> 32 or 64.
"""
import mmap, struct

NT_PRSTATUS = 1


def byte_order(d):
    if d[4] not in (1, 2) or d[5] not in (1, 2):
        raise ValueError("not an ELF32 or ELF64 file of a known byte order")
    return "<" if d[5] == 1 else ">"


def elf_class(d):
    byte_order(d)
    return 32 if d[4] == 1 else 64


def phdrs(d):
    """Each program header of ELF file d: (where it is in the file, where
    its p_offset field is, that field's size, p_type, p_offset, p_vaddr,
    p_paddr, p_filesz)."""
    e = byte_order(d)
    if elf_class(d) == 32:
        phoff, = struct.unpack_from(e + "I", d, 28)
        phnum, = struct.unpack_from(e + "H", d, 44)
    else:
        phoff, = struct.unpack_from(e + "Q", d, 32)
        phnum, = struct.unpack_from(e + "H", d, 56)
    out = []
    for i in range(phnum):
        if elf_class(d) == 32:
            at = phoff + 32 * i
            t, off, va, pa, fs, ms, fl, al = struct.unpack_from(e + "IIIIIIII", d, at)
            out.append((at, at + 4, 4, t, off, va, pa, fs))
        else:
            at = phoff + 56 * i
            t, fl, off, va, pa, fs, ms, al = struct.unpack_from(e + "IIQQQQQQ", d, at)
            out.append((at, at + 8, 8, t, off, va, pa, fs))
    return out


def read_vmcore(path):
    f = open(path, "rb")
    d = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    e = byte_order(d)
    loads, vmi, prs = [], {}, []
    for _, _, _, t, off, va, pa, fs in phdrs(d):
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
