#!/usr/bin/env python3
"""Seeds for tests/fuzz/fuzz_kallsyms.c: kallsyms tables at its fixed
places (count 0, base 8, token index 0x100, offsets 0x400, names 0x1000,
token table 0x8000), in both address encodings, with a big name.
Run: python3 tests/fuzz/kallsyms_seeds.py tests/fuzz/corpus/kallsyms"""
import os
import struct
import sys

BASE = 0xffffffff81000000
TOKENS = [b"T_st", b"ext", b"t", b"foo", b"D", b"bar", b"A", b"per", b"cpu", b"x", b"T"]
NAMES = [[0, 1], [2, 3], [4, 5], [6, 7, 8], [10] + [9] * 200]
ADDRS = [BASE, BASE + 0x10, BASE + 0x200000, 0x1000, BASE + 0x20]


def image(absolute):
    m = bytearray(0x8000 + 256)
    struct.pack_into("<I", m, 0, len(NAMES))
    struct.pack_into("<Q", m, 8, BASE)
    o = 0
    for i, t in enumerate(TOKENS):
        struct.pack_into("<H", m, 0x100 + 2 * i, o)
        m[0x8000 + o:0x8000 + o + len(t)] = t
        o += len(t) + 1
    for i, a in enumerate(ADDRS):
        if absolute:
            v = a if a < BASE else -(a - BASE) - 1
        else:
            v = (a - BASE) & 0xffffffff
        struct.pack_into("<I", m, 0x400 + 4 * i, v & 0xffffffff)
    p = 0x1000
    for n in NAMES:
        if len(n) > 127:
            m[p] = 0x80 | (len(n) & 0x7f)
            m[p + 1] = len(n) >> 7
            p += 2
        else:
            m[p] = len(n)
            p += 1
        m[p:p + len(n)] = bytes(n)
        p += len(n)
    return bytes(m)


out = sys.argv[1] if len(sys.argv) > 1 else "."
open(os.path.join(out, "relative"), "wb").write(image(False))
open(os.path.join(out, "absolute"), "wb").write(image(True))
