#!/usr/bin/env python3
"""elf_segments_same.py A B - two ELF dumps of one machine hold the same
memory: the same PT_LOADs in the same order (p_vaddr, p_paddr, p_filesz;
p_offset aside, since the notes before the data may differ in size) and
the same bytes in each.  The notes are not compared.

Used where two inputs of one machine give -E files whose notes differ: a
sadump file and the ELF vmcore it was written from (the sadump's notes
are the ones 1.7.2 makes from the vmlinux).

Exit 0 and "same: N PT_LOADs, M bytes"; exit 1 and the first difference.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmcore_layout import read_vmcore  # noqa: E402


def main():
    da, la, _, _ = read_vmcore(sys.argv[1])
    db, lb, _, _ = read_vmcore(sys.argv[2])
    if len(la) != len(lb):
        print("%d PT_LOADs against %d" % (len(la), len(lb)))
        return 1
    total = 0
    for i, ((va, pa, fa, oa), (vb, pb, fb, ob)) in enumerate(zip(la, lb)):
        if (va, pa, fa) != (vb, pb, fb):
            print("PT_LOAD %d: vaddr %#x paddr %#x filesz %#x against %#x %#x %#x"
                  % (i, va, pa, fa, vb, pb, fb))
            return 1
        if da[oa:oa + fa] != db[ob:ob + fb]:
            print("PT_LOAD %d (paddr %#x): its bytes differ" % (i, pa))
            return 1
        total += fa
    print("same: %d PT_LOADs, %d bytes" % (len(la), total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
