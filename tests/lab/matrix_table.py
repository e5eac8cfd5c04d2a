#!/usr/bin/env python3
"""README's page-state matrix, from tests/e2e/matrix.sh's results.

usage: matrix_table.py RESULTS_DIR [--readme README]
       matrix_table.py --check RESULT.tsv
  RESULTS_DIR  one CASE-KERNEL.tsv per lab run (tests/tools/kpf_pfn.py's
               lines after "# case ..." and "# MDF-SCEN ..." comments)
  --readme F   replace the lines between "<!-- matrix:begin -->" and
               "<!-- matrix:end -->" in F instead of printing; a run that
               RESULTS_DIR has no file for keeps its row from F (so a rerun
               of a few cases updates their rows only)

--check prints why one run's ours is out of tolerance (tests/e2e/matrix.sh's
pfns-vs-kpageflags check), nothing when it agrees.

One row per case and kernel, one cell per class: the snapshot's count
(kpageflags), then per tool (ours, 1.7.2, HEAD) the pfns it excluded as that
class: "=" when they are exactly the snapshot's, else "+a/-b" (a excluded
that the snapshot does not have in the class, b of the snapshot's kept).  A difference above
max(300, 1 %) of the class (8 for hwpoison+offline) is bold: more than the
drift between the snapshot and the crash.
"""
import os, re, sys

CASES = ["la57", "numa2", "numa4", "hwpoison", "offline", "hugetlb1g", "hotplug",
         "above4g", "cma-movable", "reclaim"]
KERNELS = ["5.10", "6.1", "6.12", "7.3"]
TOOLS = ["ours", "1.7.2", "HEAD"]
CLASSES = ["cache", "private", "user", "free", "hwpoison+offline"]


def cell(row):
    if row is None:
        return "n/a"
    both, only_o, only_t = row
    if both == "failed":
        return "fails"
    o, t = int(only_o), int(only_t)
    return "=" if o == 0 and t == 0 else f"+{t}/-{o}"


def bad(cls, total, row):
    if row is None or row[0] == "failed":
        return row is not None
    tol = 8 if cls == "hwpoison+offline" else 300
    return int(row[1]) + int(row[2]) > max(tol, total / 100)


def load(path):
    meta, oracle, tools, flags = {}, {}, {}, ""
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"# case (\S+) kernel (\S+) (\S+) lab_seconds (\d+)", line)
        if m:
            meta = {"kver": m.group(3), "secs": m.group(4)}
            continue
        if line.startswith("#"):
            continue
        f = line.split("\t")
        if f[0] == "flags":
            flags = f[1]
        elif len(f) == 6 and f[2] == "-":
            oracle[f[0]] = f[1]
        elif len(f) == 6:
            tools[(f[0], f[2])] = (f[3], f[4], f[5])
    return meta, oracle, tools, flags


def check(path):
    """Why ours disagrees with the snapshot in one run ("" when it agrees)."""
    _, oracle, tools, _ = load(path)
    out = ""
    d31 = tools.get(("d31", "ours"))
    if d31 and d31[0] != "failed" and int(d31[1]):
        out += f"-d 31 kept {d31[1]} pfns that -d 2/4/8/16 excluded; "
    for cls in CLASSES:
        r = tools.get((cls, "ours"))
        total = oracle.get(cls, "0").split()[0]
        n = int(total) if total.isdigit() else 0
        if r is None or not bad(cls, n, r):
            continue
        if r[0] == "failed":
            out += f"{cls}: ours failed; "
        else:
            out += f"{cls}: {r[1]} only in snapshot, {r[2]} only ours (of {n}); "
    return out


def old_rows(text):
    """The rows of a table made before, by (case, kernel series)."""
    rows = {}
    for line in text.splitlines():
        f = [x.strip() for x in line.split("|")]
        if len(f) > 3 and f[1] in CASES:
            for k in KERNELS:
                if f[2] == k or f[2].startswith(k + "."):
                    rows[(f[1], k)] = line
    return rows


def table(results, keep=None):
    keep = keep or {}
    classes = CLASSES
    out = ["| case | kernel | " + " | ".join(classes) + " |",
           "|---|---|" + "---|" * len(classes)]
    seen = 0
    for case in CASES:
        for k in KERNELS:
            p = os.path.join(results, f"{case}-{k}.tsv")
            if not os.path.exists(p):
                if (case, k) in keep:
                    seen += 1
                    out.append(keep[(case, k)])
                continue
            seen += 1
            meta, oracle, tools, flags = load(p)
            cells = []
            for cls in classes:
                total = oracle.get(cls, "?")
                n = int(total.split()[0]) if total[0].isdigit() else 0
                parts = []
                for t in TOOLS:
                    r = tools.get((cls, t))
                    c = cell(r)
                    parts.append(f"**{c}**" if bad(cls, n, r) else c)
                cells.append(f"{total.split()[0]}: " + " · ".join(parts))
            out.append(f"| {case} | {meta.get('kver', k)} | " + " | ".join(cells) + " |")
    out.append("")
    out.append(f"{seen} runs. Each cell: the snapshot's pfns of the class, then ours · 1.7.2 · HEAD: "
               "= when the tool excluded exactly those pfns, else +a/-b (a pfns excluded that the "
               "snapshot does not put in the class, b of its pfns kept); **bold** above "
               "max(300, 1 %) (hwpoison+offline: 8), more than the drift between snapshot and crash.")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    if sys.argv[1] == "--check" and len(sys.argv) == 3:
        sys.stdout.write(check(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[2] == "--readme":
        text = open(sys.argv[3]).read()
        b, e = "<!-- matrix:begin -->\n", "<!-- matrix:end -->"
        i, j = text.find(b), text.find(e)
        if i < 0 or j < i:
            raise SystemExit(f"{sys.argv[3]}: no {b.strip()} ... {e} lines")
        t = table(sys.argv[1], old_rows(text[i:j]))
        open(sys.argv[3], "w").write(text[:i + len(b)] + t + text[j:])
    else:
        sys.stdout.write(table(sys.argv[1]))


if __name__ == "__main__":
    main()
