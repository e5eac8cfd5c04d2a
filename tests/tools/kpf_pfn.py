#!/usr/bin/env python3
"""Pfn-by-pfn: which pages did each dump tool exclude, against the guest's
own /proc/kpageflags snapshot (tests/lab/matrix.sh).

usage: kpf_pfn.py KPAGEFLAGS TOOL=D2,D4,D8,D16[,D31] [TOOL=...]
  KPAGEFLAGS  the lab's NAME.d/stage1/kpageflags.bin (u64 per pfn, little-endian)
  D2...D16    that tool's kdump-compressed outputs of -d 2, -d 4, -d 8, -d 16
              ("-" for all four: the tool failed; its row says so), and
              optionally -d 31's: a line "d31 - TOOL in missing zero" says
              how many pfns of the four levels' union -d 31 excluded too,
              how many it kept (must be 0) and how many more it excluded
              (the zero-filled pages, which no page flag tells); with
              -d 31's file, "sample CLASS PFN EXCLUDED" lines for TOOL "ours"
              name pfns to ask --explain about, and whether -d 31 excluded them
-> a line "flags NAME=count ..." (pfns with HWPOISON, OFFLINE, KSM, MLOCKED,
   SWAPCACHE, HUGE set), then one tab-separated line per class and tool:
   class  oracle  tool  both  only_oracle  only_tool
   (tool "-" lines: the oracle's count of that class, with its parts)

The classes, from the flags, first match wins (the order makedumpfile's
rules test them in): free = BUDDY; cache = LRU, or SWAPCACHE with
SWAPBACKED, and not anonymous (ANON without SLAB); private = the same with
PRIVATE; user = anonymous or HUGE (hugetlb); then hwpoison+offline =
HWPOISON or OFFLINE, which a dump tool drops at every level.
What a tool excluded as each class, from its outputs' bitmaps (1st bitmap
and not 2nd): always = excluded at all four levels; cache = D2 - always;
private = D4 - D2 - always; user = D8 - always; free = D16 - always.
Only pfns in the dump (the 1st bitmap of the first good output) count.
"""
import struct, sys

KPF = {"LRU": 5, "SLAB": 7, "BUDDY": 10, "ANON": 12, "SWAPCACHE": 13, "SWAPBACKED": 14,
       "HUGE": 17, "HWPOISON": 19, "NOPAGE": 20, "KSM": 21, "OFFLINE": 23, "PRIVATE": 35,
       "MLOCKED": 33}
# counted on a "flags" line: what a case must have made to count
SHOWN = ("HWPOISON", "OFFLINE", "KSM", "MLOCKED", "SWAPCACHE", "HUGE")
B = {k: 1 << v for k, v in KPF.items()}
CLASSES = ("cache", "private", "user", "free", "hwpoison+offline")


def excluded(path):
    """(in-dump bits, excluded bits) of a kdump-compressed file, as ints
    (bit i = pfn i)."""
    with open(path, "rb") as f:
        h = f.read(4096)
        if h[:8] not in (b"KDUMP   ", b"DISKDUMP"):
            raise SystemExit(f"{path}: not a kdump-compressed file")
        block_size, sub_blocks, bitmap_blocks = struct.unpack_from("<iii", h, 428)
        f.seek((1 + sub_blocks) * block_size)
        bm = f.read(bitmap_blocks * block_size)
    half = len(bm) // 2
    present = int.from_bytes(bm[:half], "little")
    dumped = int.from_bytes(bm[half:], "little")
    return present, present & ~dumped


def oracle(path):
    data = open(path, "rb").read()
    n = len(data) // 8
    flags = struct.unpack_from(f"<{n}Q", data)
    bits = {c: bytearray((n + 7) // 8) for c in CLASSES}
    parts = {"hwpoison": 0, "offline": 0}
    shown = dict.fromkeys(SHOWN, 0)
    for p, f in enumerate(flags):
        if not f or f & B["NOPAGE"]:
            continue
        for k in SHOWN:
            if f & B[k]:
                shown[k] += 1
        c = None
        anon = f & B["ANON"] and not f & B["SLAB"]
        if f & (B["HWPOISON"] | B["OFFLINE"]):
            c = "hwpoison+offline"
            parts["hwpoison" if f & B["HWPOISON"] else "offline"] += 1
        elif f & B["BUDDY"]:
            c = "free"
        elif (f & B["LRU"] or (f & B["SWAPCACHE"] and f & B["SWAPBACKED"])) and not anon:
            c = "private" if f & B["PRIVATE"] else "cache"
        elif anon or f & B["HUGE"]:
            c = "user"
        if c:
            bits[c][p >> 3] |= 1 << (p & 7)
    return {c: int.from_bytes(b, "little") for c, b in bits.items()}, parts, shown


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    cls, parts, shown = oracle(sys.argv[1])
    print("flags\t" + " ".join(f"{k}={v}" for k, v in shown.items()))
    tools = []
    present = None
    for arg in sys.argv[2:]:
        name, _, files = arg.partition("=")
        files = files.split(",")
        if files == ["-"]:
            tools.append((name, None))
            continue
        if len(files) not in (4, 5):
            raise SystemExit(f"{arg}: want TOOL=D2,D4,D8,D16[,D31]")
        got = [excluded(f) for f in files]
        if present is None:
            present = got[0][0]
        tools.append((name, [x for _, x in got]))
    if present is None:
        present = -1
    ora = {c: v & present for c, v in cls.items()}
    for c in CLASSES:
        extra = ""
        if c == "hwpoison+offline":
            extra = f" (hwpoison {parts['hwpoison']}, offline {parts['offline']})"
        print(f"{c}\t{ora[c].bit_count()}{extra}\t-\t-\t-\t-")
    for name, ex in tools:
        if ex is None:
            for c in CLASSES:
                print(f"{c}\t{ora[c].bit_count()}\t{name}\tfailed\t-\t-")
            continue
        d2, d4, d8, d16 = ex[:4]
        always = d2 & d4 & d8 & d16
        got = {"cache": d2 & ~always, "private": d4 & ~d2 & ~always,
               "user": d8 & ~always, "free": d16 & ~always,
               "hwpoison+offline": always}
        for c in CLASSES:
            o, t = ora[c], got[c]
            print(f"{c}\t{o.bit_count()}\t{name}\t{(o & t).bit_count()}\t"
                  f"{(o & ~t).bit_count()}\t{(t & ~o).bit_count()}")
        if len(ex) == 5 and name == "ours":
            # a few pfns of each class for --explain: the first one, and
            # one the tool and the snapshot disagree about, if any
            for c in CLASSES:
                o, t = ora[c], got[c]
                picks = [o & -o, (o ^ t) & -(o ^ t)]
                for b in picks:
                    if b:
                        p = b.bit_length() - 1
                        print(f"sample\t{c}\t{p:#x}\t{ex[4] >> p & 1}")
        if len(ex) == 5:
            union = d2 | d4 | d8 | d16
            print(f"d31\t-\t{name}\t{(union & ex[4]).bit_count()}\t"
                  f"{(union & ~ex[4]).bit_count()}\t{(ex[4] & ~union).bit_count()}")


if __name__ == "__main__":
    main()
