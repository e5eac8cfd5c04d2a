#!/usr/bin/python3
"""Open a split set with libkdumpfile (kdump_open_fdset, through ctypes: the
Python binding opens one file only) and compare every page that the whole
dump REF stores with the same physical page of the ELF vmcore.

usage: libkdumpfile_set.py ELF REF PART...   -> prints "pages N" or an error; exit 1 on mismatch
"""
import ctypes, ctypes.util, os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from libkdumpfile_check import elf_loads, elf_page  # noqa: E402

KDUMP_MACHPHYSADDR = 1


def stored_pfns(path):
    """The pfns a kdump-compressed file stores (its bitmap2)."""
    with open(path, "rb") as f:
        h = f.read(4096)
        bs, sub, blocks = struct.unpack_from("<iiI", h, 428)
        half = blocks // 2 * bs
        f.seek((1 + sub) * bs + half)
        bm2 = f.read(half)
    for i, byte in enumerate(bm2):
        while byte:
            low = byte & -byte
            yield i * 8 + low.bit_length() - 1
            byte ^= low


def main():
    elf, ref, parts = sys.argv[1], sys.argv[2], sys.argv[3:]
    lib = ctypes.CDLL(ctypes.util.find_library("kdumpfile") or "libkdumpfile.so.10")
    lib.kdump_new.restype = ctypes.c_void_p
    lib.kdump_open_fdset.argtypes = [ctypes.c_void_p, ctypes.c_uint,
                                     ctypes.POINTER(ctypes.c_int)]
    lib.kdump_read.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64,
                               ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    lib.kdump_get_err.restype = ctypes.c_char_p
    lib.kdump_get_err.argtypes = [ctypes.c_void_p]
    ctx = lib.kdump_new()
    fds = (ctypes.c_int * len(parts))(*[os.open(p, os.O_RDONLY) for p in parts])
    if lib.kdump_open_fdset(ctx, len(parts), fds) != 0:
        print("kdump_open_fdset: %s" % lib.kdump_get_err(ctx).decode())
        return 1
    ps = 4096
    f, loads = elf_loads(elf)
    buf = ctypes.create_string_buffer(ps)
    n = 0
    for pfn in stored_pfns(ref):
        size = ctypes.c_size_t(ps)
        if lib.kdump_read(ctx, KDUMP_MACHPHYSADDR, pfn * ps, buf, ctypes.byref(size)) != 0:
            print("pfn 0x%x: %s" % (pfn, lib.kdump_get_err(ctx).decode()))
            return 1
        want = elf_page(f, loads, pfn * ps, ps)
        if want is not None and buf.raw != want:
            print("pfn 0x%x differs" % pfn)
            return 1
        n += 1
    print("pages %d" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
