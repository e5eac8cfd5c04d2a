#!/usr/bin/env python3
"""Do our page classes agree with the guest's /proc/kpageflags snapshot?

usage: kpf_classes.py KPF_JSON DRY_LOG [ZONEINFO]
  KPF_JSON  the lab's kpf-oracle.py NAME --json output
  DRY_LOG   our --dry-run -d 31 --message-level 16 report
  ZONEINFO  the snapshot's stage1/kpf-zoneinfo.txt (optional)
-> prints "cache G/W, ..." or "BAD what differs" (exit 0 either way)

The snapshot is taken 0.1-0.5 s before the crash while the guest idles, so
some pages move in between: tens of pages a class (busybox children exit,
umount drops the page cache of the stage-1 files).  Free pages move more:
pages on the per-cpu lists are not PageBuddy, so neither the snapshot nor
the dump counts them as free, and a drain or refill of those lists between
the two moves up to a list's contents (drain) or its room up to `high`
(refill).  With 16 KiB pages the lists hold thousands of pages (count 3058,
high 4846 in one lab run), so the free class gets that much more slack, from
the snapshot's own zoneinfo.
"""
import json, re, sys

LABELS = {"cache": "Non-private cache pages", "cache_private": "Private cache pages",
          "user": "User process data pages", "free": "Free pages"}


def pcp_lists(path):
    """(pages on the per-cpu lists, their room up to `high`) at the snapshot."""
    count = high = 0
    try:
        text = open(path).read()
    except OSError:
        return 0, 0
    for m in re.finditer(r"^\s*count:\s+(\d+)\s*\n\s*high:\s+(\d+)", text, re.M):
        c, h = int(m.group(1)), int(m.group(2))
        count += c
        high += max(h - c, 0)
    return count, high


def main():
    want = json.load(open(sys.argv[1]))["makedumpfile_classes_all_pfns"]
    log = open(sys.argv[2]).read()
    drained, room = pcp_lists(sys.argv[3]) if len(sys.argv) > 3 else (0, 0)
    bad, seen = [], []
    for k, label in LABELS.items():
        m = re.search(re.escape(label) + r"\s*: 0x([0-9a-f]+)", log)
        got = int(m.group(1), 16) if m else -1
        seen.append("%s %d/%d" % (k, got, want[k]))
        slack = max(64, want[k] // 100)
        lo, hi = want[k] - slack, want[k] + slack
        if k == "free":
            lo, hi = lo - room, hi + drained
        if not lo <= got <= hi:
            bad.append("%s %d, oracle %d (allowed %d..%d)" % (k, got, want[k], lo, hi))
    print(("BAD " + "; ".join(bad)) if bad else ", ".join(seen))


if __name__ == "__main__":
    main()
