#!/usr/bin/env python3
"""page-types' table of a guest, from its /proc/kpageflags snapshot, against
ours of the dump of its crash (makedumpfile --page-types --report-format json).

usage: page_types_ref.py KPAGEFLAGS REPORT.json [--table N] [--not-judged FLAG=WHY]...
       page_types_ref.py --task SERIAL COMM KPAGEFLAGS REPORT.json
  KPAGEFLAGS  the lab's NAME.d/stage1/kpageflags.bin (u64 per pfn, little-endian)
  REPORT      the file holding our JSON report (the line that starts with '{')
  --not-judged  a flag the guest's kernel keeps changing after the snapshot
              (the caller knows why, from the kernel's config): shown, with
              the reason, and not judged

The snapshot's table is what the kernel's tools/mm/page-types prints by
default from the same file: each pfn's flags with bits 32 and up hidden and
the compound bits of pages that are not hugetlb (well_known_flags()).

With --task (page-types -p): REPORT is our --page-types-by task report;
its table of the process COMM (by the pid the lab's page map of it names:
scenario.c's "pagemap COMM pid N" and "pagemap-pfns COMM" lines in the
SERIAL log) against the snapshot's flags of the pfns that page map holds:
its THP and hugetlb pages, each within 8 pages (a THP mapped by page
table entries counts, as the kernel's page-types -p counts it, which
smaps' AnonHugePages does not).

Prints one line per flag that either side has: "flag snapshot ours diff",
and with --table N the N largest rows of both tables side by side.  Exit
status 1, with the reasons on the last line, when the count of pages with a
flag differs by more than the drift the lab allows between the snapshot and
the crash: max(300, 1 %) of the snapshot's count (the tolerance of
tests/lab/matrix_table.py), or the totals differ.  Flags our report says the
dump cannot tell are shown and not judged.  Two allowances, each said when
used:
 - referenced, active and idle_page flip on every access
   (mark_page_accessed(), folio_clear_idle()), and the snapshot is taken
   while the guest still runs: max(300, 5 %);
 - from Linux 6.10 ("proc: rewrite stable_page_flags()") the kernel tests
   `mapping & PAGE_MAPPING_KSM`, which every anonymous page passes, so its
   kpageflags call every anonymous page KSM.  When the snapshot has ksm on
   nearly every anonymous page, its ksm bit is the kernel's misreport: it
   is taken out of both tables (ours says which pages KSM really merged);
 - dirty only falls: the flusher writes dirty page cache back after the
   snapshot (every 5 s, dirty_writeback_centisecs), a whole folio at a
   time, and a 7.3 guest's page cache is large folios of up to 512 pages.
   Fewer dirty pages in the dump than in the snapshot are shown, not
   judged; more are judged.
Two differences in what the kernel's file covers, each said when met:
 - /proc/kpageflags runs to max_pfn rounded up to a memory section
   (get_max_dump_pfn()); our table ends at the dump's last pfn.  Snapshot
   pfns past our end that hold no page (nopage, or no flag at all) are
   left out;
 - since "fs/proc/page: Refactoring to reduce code duplication" (Liu Ye,
   2025; in the 7.3 lab kernel, not in 6.12) kpageflags gives 0 instead of
   KPF_NOPAGE for a pfn with no online page.  When the snapshot has no
   nopage at all, our nopage pages count as pages with no flag.
"""
import json, os, struct, sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keep_task_ref import pagemaps  # noqa: E402

NAMES = {0: "locked", 1: "error", 2: "referenced", 3: "uptodate", 4: "dirty", 5: "lru",
         6: "active", 7: "slab", 8: "writeback", 9: "reclaim", 10: "buddy", 11: "mmap",
         12: "anonymous", 13: "swapcache", 14: "swapbacked", 15: "compound_head",
         16: "compound_tail", 17: "huge", 18: "unevictable", 19: "hwpoison", 20: "nopage",
         21: "ksm", 22: "thp", 23: "offline", 24: "zero_page", 25: "idle_page", 26: "pgtable"}
COMPOUND = (1 << 15) | (1 << 16)
HUGE = 1 << 17


def well_known(f):
    f &= 0xffffffff
    if f & COMPOUND and not f & HUGE:
        f &= ~COMPOUND
    return f


NOPAGE = 1 << 20


def snapshot(path, upto=None):
    """The snapshot's table, and how many pfns past `upto` held no page"""
    data = open(path, "rb").read()
    flags = [well_known(f) for f in struct.unpack_from(f"<{len(data) // 8}Q", data)]
    cut = 0
    if upto is not None and len(flags) > upto and all(f in (0, NOPAGE) for f in flags[upto:]):
        cut = len(flags) - upto
        del flags[upto:]
    return Counter(flags), cut


def ours(path):
    for line in open(path, errors="replace"):
        if line.startswith("{"):
            pt = json.loads(line).get("page_types")
            if pt is None:
                raise SystemExit(f"{path}: the report has no page_types")
            rows = Counter({int(r["flags"], 16): r["pages"] for r in pt["rows"]})
            unknown = {x for x in pt["unknown_flags"].split(",") if x}
            return rows, unknown
    raise SystemExit(f"{path}: no JSON report in it")


def per_flag(table):
    c = Counter()
    for f, n in table.items():
        for b in NAMES:
            if f >> b & 1:
                c[b] += n
    return c


ACCESS = ("referenced", "active", "idle_page")


def without(table, bit):
    t = Counter()
    for f, n in table.items():
        t[f & ~(1 << bit)] += n
    return t


def task(serial, comm, kpf, report):
    maps, pages = pagemaps(serial)
    pfns, pid = maps.get(comm, set()), pages.get(comm, (None, 0))[0]
    if pid is None or not pfns:
        raise SystemExit(f"{serial}: no page map of {comm}")
    data = open(kpf, "rb").read()
    n = len(data) // 8
    want = Counter()
    for p in pfns:
        if p < n:
            f = struct.unpack_from("<Q", data, 8 * p)[0]
            want["thp"] += f >> 22 & 1
            want["huge"] += f >> 17 & 1
    rep = next(json.loads(l) for l in open(report, errors="replace") if l.startswith("{"))
    g = [g for g in rep["page_types"].get("groups", []) if g["name"].startswith(f"process {pid} ")]
    if not g:
        raise SystemExit(f"{report}: no table of process {pid}")
    got = Counter()
    for r in g[0]["rows"]:
        f = int(r["flags"], 16)
        got["thp"] += r["pages"] * (f >> 22 & 1)
        got["huge"] += r["pages"] * (f >> 17 & 1)
    print(f"{comm} pid {pid}: thp {got['thp']} pages, hugetlb {got['huge']}; "
          f"the snapshot's flags of its page map's {len(pfns)} pfns: {want['thp']} and {want['huge']}")
    return int(any(abs(got[k] - want[k]) > 8 for k in ("thp", "huge")))


def main():
    args = sys.argv[1:]
    if args[:1] == ["--task"] and len(args) == 5:
        return task(*args[1:])
    top = 0
    if "--table" in args:
        i = args.index("--table")
        top = int(args[i + 1])
        del args[i:i + 2]
    skipped = {}
    while "--not-judged" in args:
        i = args.index("--not-judged")
        name, _, why = args[i + 1].partition("=")
        if name not in NAMES.values():
            raise SystemExit(f"--not-judged: no flag {name}")
        skipped[name] = why
        del args[i:i + 2]
    if len(args) != 2:
        raise SystemExit(__doc__)
    mine, unknown = ours(args[1])
    snap, cut = snapshot(args[0], sum(mine.values()))
    bad, notes = [], []
    if cut:
        notes.append("the snapshot's last %d pfns (to max_pfn rounded up to a section) "
                     "hold no page; left out" % cut)
    if not any(f & NOPAGE for f in snap) and any(f & NOPAGE for f in mine):
        n = sum(v for f, v in mine.items() if f & NOPAGE)
        notes.append("the kernel reads a pfn with no page as 0, not nopage (fs/proc/page "
                     "refactoring, 2025): our %d nopage pages count as no flag" % n)
        mine = without(mine, 20)
    a, b = per_flag(snap), per_flag(mine)
    if a[12] and a[21] >= a[12] * 9 // 10 and b[21] < b[12] // 2:
        notes.append("the kernel flags every anonymous page ksm (6.10's mapping & "
                     "PAGE_MAPPING_KSM): %d of %d in the snapshot; ksm not judged, ours %d"
                     % (a[21], a[12], b[21]))
        snap, mine = without(snap, 21), without(mine, 21)
        a, b = per_flag(snap), per_flag(mine)
    ts, to = sum(snap.values()), sum(mine.values())
    print(f"total\t{ts}\t{to}\t{to - ts:+d}")
    if ts != to:
        bad.append(f"total {to} pages, the snapshot {ts}")
    for bit, name in NAMES.items():
        if not a[bit] and not b[bit]:
            continue
        d = b[bit] - a[bit]
        judged = name not in unknown and name not in skipped
        note = "" if judged else "\t(not judged)"
        if name in skipped:
            notes.append(f"{name} not judged: {skipped[name]}")
        print(f"{name}\t{a[bit]}\t{b[bit]}\t{d:+d}{note}")
        drift = max(300, a[bit] // (20 if name in ACCESS else 100))
        if judged and name == "dirty" and d < -drift:
            notes.append(f"dirty: {-d} pages fewer than the snapshot's, written back after it")
        elif judged and abs(d) > drift:
            bad.append(f"{name}: snapshot {a[bit]}, ours {b[bit]}")
    if top:
        print("\nflags\tsnapshot\tours\tnames")
        for f, n in sorted(snap.items(), key=lambda x: -x[1])[:top]:
            print(f"0x{f:016x}\t{n}\t{mine.get(f, 0)}\t"
                  + ",".join(NAMES[x] for x in NAMES if f >> x & 1))
    for n in notes:
        print("note: " + n)
    if bad:
        print("; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
