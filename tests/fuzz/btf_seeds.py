#!/usr/bin/env python3
"""Seeds for tests/fuzz/fuzz_btf.c: small BTF blobs (an int, struct page of
"flags" and an anonymous union holding "mapping", struct zone), little and
big endian; struct zone with an array member and enum pageflags.  Run: python3 tests/fuzz/btf_seeds.py tests/fuzz/corpus/btf"""
import os
import struct
import sys


def blob(e):
    strs = b"\0int\0page\0flags\0mapping\0zone\0free_area\0"
    off = {n: strs.index(b"\0" + n.encode() + b"\0") + 1 for n in ("int", "page", "flags", "mapping", "zone", "free_area")}
    t = b""
    # 1: int, 4 bytes, 32 bits, signed
    t += struct.pack(e + "III", off["int"], 1 << 24, 4) + struct.pack(e + "I", (1 << 24) | 32)
    # 2: anonymous union { int mapping; }, 8 bytes
    t += struct.pack(e + "III", 0, (5 << 24) | 1, 8) + struct.pack(e + "III", off["mapping"], 1, 0)
    # 3: struct page { int flags; union { ... }; } at bit 64, 16 bytes
    t += struct.pack(e + "III", off["page"], (4 << 24) | 2, 16)
    t += struct.pack(e + "III", off["flags"], 1, 0) + struct.pack(e + "III", 0, 2, 64)
    # 4: struct zone { int free_area; } at byte 8, 12 bytes
    t += struct.pack(e + "III", off["zone"], (4 << 24) | 1, 12) + struct.pack(e + "III", off["free_area"], 1, 64)
    hdr = struct.pack(e + "HBBIIIII", 0xeB9F, 1, 0, 24, 0, len(t), len(t), len(strs))
    return hdr + t + strs


def blob_keys(e):
    """struct zone { int free_area[11]; } and enum pageflags { PG_lru = 4,
    PG_head = 6 }: an array length and enum values (btf_kinfo.c)."""
    names = ("int", "zone", "free_area", "pageflags", "PG_lru", "PG_head")
    strs = b"\0" + b"\0".join(n.encode() for n in names) + b"\0"
    off = {n: strs.index(b"\0" + n.encode() + b"\0") + 1 for n in names}
    t = struct.pack(e + "III", off["int"], 1 << 24, 4) + struct.pack(e + "I", (1 << 24) | 32)
    t += struct.pack(e + "III", 0, 3 << 24, 0) + struct.pack(e + "III", 1, 1, 11)
    t += struct.pack(e + "III", off["zone"], (4 << 24) | 1, 44) + struct.pack(e + "III", off["free_area"], 2, 0)
    t += struct.pack(e + "III", off["pageflags"], (6 << 24) | 2, 4)
    t += struct.pack(e + "Ii", off["PG_lru"], 4) + struct.pack(e + "Ii", off["PG_head"], 6)
    hdr = struct.pack(e + "HBBIIIII", 0xeB9F, 1, 0, 24, 0, len(t), len(t), len(strs))
    return hdr + t + strs


out = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out, exist_ok=True)
open(os.path.join(out, "le"), "wb").write(blob("<"))
open(os.path.join(out, "be"), "wb").write(blob(">"))
open(os.path.join(out, "keys-le"), "wb").write(blob_keys("<"))
open(os.path.join(out, "keys-be"), "wb").write(blob_keys(">"))
