#!/usr/bin/env python3
"""tests/lab/readers/table.py TSV VERSIONS README [COMMIT]

Write the readers' table into README between "<!-- readers:begin -->" and
"<!-- readers:end -->": a row per kernel and reader, a column per dump of
tests/e2e/readers_gate.sh (TSV lines "kernel, dump, reader, verdict" from
MDF_READERS_TABLE), each cell the reader's verdict on that dump ("equal",
"equal, N excluded by class", "DIFF ...", "n/a ..."); the control column
must say DIFF.  VERSIONS is the root's readers.txt.  The kernels a run
did not take keep their rows from the last run that did (with its date).
"""
import datetime, glob, os, re
import sys

BEGIN, END = "<!-- readers:begin -->\n", "<!-- readers:end -->"
DUMPS = ["l", "c", "E", "split", "refilter", "erase", "ctl"]
ORDER = ["6.1", "6.12", "5.10", "7.3", "sid", "6.1-4g"]
WHAT = {"6.1": "6.1 fixture, 512 MiB, 1 CPU", "6.12": "6.12 fixture, 512 MiB, 1 CPU",
        "5.10": "5.10 lab crash, 1 GiB, 2 CPUs", "7.3": "7.3 lab crash, 1 GiB, 2 CPUs",
        "sid": "sid's kernel, lab crash, 1 GiB, 2 CPUs", "6.1-4g": "6.1 lab crash, 4 GiB, 2 CPUs"}


def cell(v):
    # the judge's bind mounts (judge.py Root) say nothing to a reader
    v = re.sub(r"/mnt/mdf-judge\.[^/]+/[0-9]+/", "", v)
    v = v.replace("|", "\\|")
    return v if len(v) <= 90 else v[:87] + "..."


def main(argv):
    if len(argv) not in (4, 5):
        sys.exit(__doc__.strip().splitlines()[0])
    tsv, versions, readme = argv[1:4]
    commit = argv[4] if len(argv) == 5 else "?"
    today = datetime.date.today().isoformat()
    got = {}
    for line in open(tsv):
        w = line.rstrip("\n").split("\t")
        if len(w) == 4:
            got.setdefault((w[0], w[2]), {})[w[1]] = w[3]
    text = open(readme).read()
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        sys.exit("%s: no %s...%s" % (readme, BEGIN.strip(), END))
    old = {}
    for line in text[i:j].splitlines():
        m = re.match(r"^\| (\S+) \| [^|]* \| (crash|drgn) \| .* \d{4}-\d\d-\d\d \|$", line)
        if m:
            old[(m.group(1), m.group(2))] = line
    vers = ", ".join(" ".join(l.split()) for l in open(versions) if l.strip())
    # crash HEAD's builds (crash_head.sh), for the rows sid's crash cannot read
    heads = sorted(glob.glob(os.path.join(os.path.dirname(versions), "opt/crash-head/*/crash-head.txt")))
    if heads:
        first = open(heads[0]).readline().split()
        vers += "; crash HEAD %s (9.0.2 + upstream, tests/lab/readers/crash_head.sh) for %s" % (
            first[2][:12] if len(first) > 2 else "?",
            ", ".join(h.split(os.sep)[-2] for h in heads))
    out = ["Readers: %s (Debian sid). Last run of each row in its last column; "
           "`make lab` runs every kernel, CI one a day (tests/e2e/readers_gate.sh, "
           "tests/lab/readers/). `ctl` is the control, our `-l` dump with the page of "
           "`idt_table` taken out: it must be DIFF.\n" % vers,
           "| kernel | guest | reader | %s | run |" % " | ".join(DUMPS),
           "|---|---|---|%s---|" % ("---|" * len(DUMPS))]
    kernels = ORDER + sorted({k for k, _r in list(got) + list(old) if k not in ORDER})
    for k in kernels:
        for r in ("crash", "drgn"):
            if (k, r) in got:
                cells = [cell(got[(k, r)].get(d, "-")) for d in DUMPS]
                out.append("| %s | %s | %s | %s | %s %s |" % (k, WHAT.get(k, k), r, " | ".join(cells),
                                                            commit, today))
            elif (k, r) in old:
                out.append(old[(k, r)])
    sec = "\n".join(out) + "\n"
    open(readme, "w").write(text[:i + len(BEGIN)] + sec + text[j:])


if __name__ == "__main__":
    main(sys.argv)
