#!/usr/bin/env python3
"""tests/lab/lab_readme.py README STAGE DATE COMMIT SECONDS RESULT [BIGGUEST_TABLE]

Record one finished `make lab` stage in README's lab section (between
"<!-- lab:begin -->" and "<!-- lab:end -->"): its row of the stage table
(one row per stage, the stage's last run, with its date and commit) is
added or replaced, the other rows stay.  A lab run of 2.5 hours can thus
run in parts (LAB_STAGES) and still leave every stage's last result, and
a run stopped half-way keeps the stages it finished.  BIGGUEST_TABLE, a
Markdown table from tests/e2e/bigguest.sh, replaces the big guests' table.
"""
import re
import sys

BEGIN, END = "<!-- lab:begin -->\n", "<!-- lab:end -->"
HEAD = ("| stage | last run | commit | wall | result |\n"
        "|---|---|---|---|---|\n")
INTRO = ("Each row is the last `make lab` run of that stage (`LAB_STAGES` runs a part; "
         "tests/lab/all.sh writes its row when the stage ends).\n\n")
BG = "Big guests (tests/e2e/bigguest.sh), last run "


def main(argv):
    if len(argv) not in (7, 8):
        sys.exit(__doc__.strip().splitlines()[0])
    path, stage, date, commit, secs, result = argv[1:7]
    text = open(path).read()
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        sys.exit("%s: no %s...%s" % (path, BEGIN.strip(), END))
    sec = text[i + len(BEGIN):j]
    rows = {}
    order = []
    for line in sec.splitlines():
        m = re.match(r"^\| (\S+) \| \d{4}-\d\d-\d\d \|", line)
        if m:
            rows[m.group(1)] = line
            order.append(m.group(1))
    bg = ""
    k = sec.find(BG)
    if k >= 0:
        bg = sec[k:].rstrip("\n") + "\n"
    if stage not in rows:
        order.append(stage)
    rows[stage] = "| %s | %s | %s | %d min %02d s | %s |" % (
        stage, date, commit, int(secs) // 60, int(secs) % 60, result)
    if len(argv) == 8:
        table = open(argv[7]).read().strip()
        if table:
            bg = "%s%s (commit %s):\n\n%s\n" % (BG, date, commit, table)
    new = INTRO + HEAD + "".join(rows[s] + "\n" for s in order)
    if bg:
        new += "\n" + bg
    open(path, "w").write(text[:i + len(BEGIN)] + new + text[j:])


if __name__ == "__main__":
    main(sys.argv)
