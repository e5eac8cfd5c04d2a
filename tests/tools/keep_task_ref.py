#!/usr/bin/env python3
"""--keep-task against the guest's own page map (tests/lab/matrix.sh).

usage: keep_task_ref.py SERIAL KEPT_D30 KEPT_D31 PLAIN_D31
  SERIAL     the lab run's serial log, with the lines of scenario.c's
             "pagemap labwork" and "pagemap init" steps: each process's
             present pfns from /proc/PID/pagemap, taken just before the crash
  KEPT_D30   our -l -d 30 --keep-task PID dump, PID labwork's as its page
             map names it (zero pages kept)
  KEPT_D31   our -l -d 31 --keep-task PID dump
  PLAIN_D31  our -l -d 31 dump

Checks, printed on one line, exit status 1 when one fails:
 - every pfn labwork's page map has, and the dump holds (bitmap 1), is in
   KEPT_D30 (bitmap 2): none of its pages is dropped for its class;
 - no pfn of init's page map that labwork does not map, and that PLAIN_D31
   drops, is in KEPT_D31: another process's pages are not kept.
At most DRIFT (8) pfns may differ: pages that moved between the page map
and the crash.  Also said: how many of labwork's pfns -d 31 drops as zero
pages with --keep-task (bit 1 still applies), and how many plain -d 31
drops.
"""
import os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kpf_pfn import excluded  # noqa: E402

DRIFT = 8


def pagemaps(path):
    pfns, pages = {}, {}
    for line in open(path, errors="replace"):
        m = re.search(r"MDF-SCEN pagemap-pfns (\S+) (.*)", line)
        if m:
            s = pfns.setdefault(m.group(1), set())
            for run in m.group(2).split():
                a, _, n = run.partition("+")
                s.update(range(int(a, 16), int(a, 16) + int(n)))
        m = re.search(r"MDF-SCEN pagemap (\S+) pid (\d+) pages (\d+)", line)
        if m:
            pages[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return pfns, pages


def bit(x, i):
    return x >> i & 1


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    pfns, pages = pagemaps(sys.argv[1])
    lab, init = pfns.get("labwork", set()), pfns.get("init", set())
    if not lab or "labwork" not in pages:
        print("no page map of labwork in %s" % sys.argv[1])
        return 1
    p30, x30 = excluded(sys.argv[2])
    p31k, x31k = excluded(sys.argv[3])
    p31, x31 = excluded(sys.argv[4])
    held = [p for p in lab if bit(p30, p)]
    dropped = [p for p in held if bit(x30, p)]
    zero31 = sum(1 for p in held if bit(x31k, p))
    plain = sum(1 for p in held if bit(x31, p))
    other = [p for p in init - lab if bit(p31, p) and bit(x31, p)]
    kept_other = [p for p in other if not bit(x31k, p)]
    print("labwork pid %d: %d pfns in its page map, %d in the dump, %d of them dropped with "
          "--keep-task at -d 30 (%d at -d 31: zero pages; plain -d 31 drops %d); init: %d pfns "
          "that -d 31 drops and labwork does not map, %d of them kept"
          % (pages["labwork"][0], len(lab), len(held), len(dropped), zero31, plain, len(other),
             len(kept_other)))
    bad = len(dropped) > DRIFT or len(kept_other) > DRIFT or len(held) < len(lab) // 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
