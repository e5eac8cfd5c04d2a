#!/bin/bash
# --page-types (issue 30, item 2): page-types' table of a dump's struct
# pages (filter/pagetypes.c).  On the real 6.1 and 6.12 fixtures:
#  - `--page-types VMCORE` writes nothing and prints the table: its rows
#    add up to its total, every pfn to max_pfn rounded up to a section;
#    buddy pages are the report's free pages; THP pages are the guest's
#    AnonHugePages and hugetlb pages its HugePages_Total x 512 (the
#    fixture's .json, taken just before the crash);
#  - the JSON report carries the same table (--report-format json);
#  - beside a dump (-l -d 31 --page-types) the dump is byte for byte the
#    one written without it, and the table is the same;
#  - our own -l -d 31 dump, read back, gives the same table (struct pages
#    are kernel data: every one of them is kept);
#  - the cost is a phase of its own in the report;
#  - --page-types-by task: a table per process; the lab's labwork maps
#    the guest's THP and hugetlb pages, and as many pages as --keep-task
#    counts for it; by cgroup (the guest runs all in the root): one group
#    "/" of every process; the JSON report carries the groups.
# On a synthetic dump without BTF: the flags it cannot tell are named,
# and the table still adds up.  Refused with -R, --dump-dmesg, --explain.
# The lab's judge (tests/tools/page_types_ref.py) on made-up snapshots:
# a hole is nopage before the 2025 fs/proc/page refactoring and 0 after
# it, and the snapshot's tail past max_pfn is left out, both said; dirty
# pages may only fall (written back after the snapshot); a real
# difference still fails.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"

table() { # OUT: the table lines of a text run's output
	sed -n '/^             flags\t/,/^             total\t/p' "$1"
}

for name in fx-v61-512m fx-v612-512m; do
	vm=$(vmcore "$name") || { skip "page-types-$name" "no fixture"; continue; }
	json="$MDF_SHARED/vmcores/$name.json"
	if "$MDF" --page-types "$vm" >"$T/pt.txt" 2>&1; then
		check "page-types-$name-adds-up" python3 - "$T/pt.txt" "$json" <<-'PY'
		import json, re, sys
		text = open(sys.argv[1]).read()
		meta = json.load(open(sys.argv[2]))["guest_meminfo_before_crash"]
		rows = re.findall(r"^0x([0-9a-f]{16})\t *(\d+) +(\d+)  \S+\t(.*)$", text, re.M)
		total = re.search(r"^             total\t *(\d+)", text, re.M)
		assert rows and total, "no table"
		n = sum(int(r[1]) for r in rows)
		assert n == int(total.group(1)), (n, total.group(1))
		assert n % 32768 == 0, "not whole sections: %d" % n
		free = int(re.search(r"^    Free pages\s*: 0x([0-9a-f]+)$", text, re.M).group(1), 16)
		def count(bit):
		    return sum(int(r[1]) for r in rows if int(r[0], 16) >> bit & 1)
		assert count(10) == free, ("buddy", count(10), free)
		thp = int(meta["AnonHugePages"].split()[0]) // 4
		assert count(22) == thp, ("thp", count(22), thp)
		huge = int(meta["HugePages_Total"]) * 512
		assert count(17) == huge, ("huge", count(17), huge)
		assert "Counting page types" in text
		print("%d pfns, %d rows" % (n, len(rows)))
		PY
	else
		notok "page-types-$name-adds-up" "$(tail -n 2 "$T/pt.txt" | tr '\n' ' ')"
	fi
	"$MDF" --page-types --report-format json "$vm" >"$T/pt.json" 2>/dev/null
	check "page-types-$name-json" python3 - "$T/pt.txt" "$T/pt.json" <<-'PY'
	import json, re, sys
	text = open(sys.argv[1]).read()
	rows = {int(f, 16): int(n) for f, n in
	        re.findall(r"^0x([0-9a-f]{16})\t *(\d+) ", text, re.M)}
	objs = [l for l in open(sys.argv[2]) if l.startswith("{")]
	assert len(objs) == 1, len(objs)
	pt = json.loads(objs[0])["page_types"]
	mine = {int(r["flags"], 16): r["pages"] for r in pt["rows"]}
	assert mine == rows, "the JSON table differs from the text one"
	assert pt["total"] == sum(rows.values()) and pt["unknown_flags"] == ""
	PY
	rm -f "$T/a.l" "$T/b.l"
	if "$MDF" -l -d 31 "$vm" "$T/a.l" >/dev/null 2>&1 &&
		"$MDF" -l -d 31 --page-types "$vm" "$T/b.l" >"$T/b.txt" 2>&1 && cmp -s "$T/a.l" "$T/b.l" &&
		table "$T/pt.txt" >"$T/t0" && table "$T/b.txt" >"$T/t1" && [ -s "$T/t0" ] &&
		cmp -s "$T/t0" "$T/t1"; then
		ok "page-types-$name-beside-a-dump"
	else notok "page-types-$name-beside-a-dump" "$(tail -n 2 "$T/b.txt" | tr '\n' ' ')"; fi
	if "$MDF" --page-types "$T/a.l" >"$T/k.txt" 2>&1 && table "$T/k.txt" >"$T/t2" &&
		cmp -s "$T/t0" "$T/t2"; then
		ok "page-types-$name-from-our-kdump"
	else notok "page-types-$name-from-our-kdump" "$(diff "$T/t0" "$T/t2" | head -n 4 | tr '\n' ' ')"; fi
	rm -f "$T/a.l" "$T/b.l"
	"$MDF" --page-types-by task "$vm" >"$T/bt.txt" 2>&1
	"$MDF" -l -d 31 --show-stats --keep-task comm:labwork "$vm" "$T/kt.l" >"$T/kt.txt" 2>&1
	rm -f "$T/kt.l"
	"$MDF" --page-types-by cgroup --report-format json "$vm" >"$T/bc.json" 2>/dev/null
	check "page-types-$name-by-task" python3 - "$T/bt.txt" "$json" "$T/kt.txt" "$T/bc.json" <<-'PY'
	import json, re, sys
	text = open(sys.argv[1]).read()
	meta = json.load(open(sys.argv[2]))["guest_meminfo_before_crash"]
	mapped = int(re.search(r"^  process \d+ \(labwork\): (\d+) pages mapped", open(sys.argv[3]).read(), re.M).group(1))
	blocks = re.split(r"^\n?(process \d+ \(\S+\)):$", text, flags=re.M)
	groups = {blocks[i]: blocks[i + 1] for i in range(1, len(blocks) - 1, 2)}
	lab = [v for k, v in groups.items() if k.endswith("(labwork)")]
	assert len(lab) == 1, list(groups)
	rows = re.findall(r"^0x([0-9a-f]{16})\t *(\d+) ", lab[0], re.M)
	def count(bit):
	    return sum(int(n) for f, n in rows if int(f, 16) >> bit & 1)
	total = sum(int(n) for f, n in rows)
	assert total == mapped, ("labwork total", total, "mapped", mapped)
	assert count(22) == int(meta["AnonHugePages"].split()[0]) // 4, ("thp", count(22))
	assert count(17) == int(meta["HugePages_Total"]) * 512, ("huge", count(17))
	cg = json.loads([l for l in open(sys.argv[4]) if l.startswith("{")][0])["page_types"]
	assert cg["by"] == "cgroup" and [g["name"] for g in cg["groups"]] == ["/"], cg.get("groups")
	assert cg["groups"][0]["processes"] == len(groups), (cg["groups"][0]["processes"], len(groups))
	print("%d processes; labwork %d pages" % (len(groups), total))
	PY
done

# A synthetic dump: no BTF in it, so the copied flags are not known.
printf 'kernel 6.1\nram 0x100000 0x8000000\npages 0x2000+256 anon random\npages 0x3000+64 cache random\n' >"$T/spec"
"$GEN" "$T/spec" "$T/vm" >/dev/null 2>&1 || { notok "page-types-gen" "mkvmcore failed"; exit 0; }
if "$MDF" --page-types "$T/vm" >"$T/g.txt" 2>&1 &&
	grep -q "^The dump cannot tell these flags (no BTF or kallsyms of its kernel): locked,referenced,uptodate,dirty,active,writeback,reclaim,unevictable,zero_page; they are shown clear\.$" "$T/g.txt" &&
	table "$T/g.txt" | grep -q ",anonymous," && table "$T/g.txt" | grep -q "	lru$"; then
	ok "page-types-no-btf"
else notok "page-types-no-btf" "$(tail -n 6 "$T/g.txt" | tr '\n' ' ')"; fi
# the judge: 8000 pfns of anonymous pages, a hole of 4000, 4000 more
# anonymous, and a section's tail of 8000 pfns that hold no page
ref_case() { # NAME SNAPSHOT-HOLE-FLAG OUR-ROW-PAGES WANT-RC WANT-NOTE [FLAG]
	python3 - "$T/ref.bin" "$T/ref.json" "$2" "$3" "${6:-0x1000}" <<-'PY'
	import json, struct, sys
	hole, anon, f = int(sys.argv[3], 0), int(sys.argv[4]), int(sys.argv[5], 0)
	flags = [f] * 8000 + [hole] * 4000 + [f] * 4000 + [hole] * 8000
	open(sys.argv[1], "wb").write(struct.pack(f"<{len(flags)}Q", *flags))
	rows = [{"flags": hex(f), "pages": anon}, {"flags": "0x100000", "pages": 4000},
		{"flags": "0x0", "pages": 12000 - anon}]
	json.dump({"page_types": {"rows": rows, "unknown_flags": ""}}, open(sys.argv[2], "w"))
	PY
	python3 "$MDF_SRC/tests/tools/page_types_ref.py" "$T/ref.bin" "$T/ref.json" >"$T/ref.out" 2>&1
	local rc=$?
	if [ $rc -eq "$4" ] && grep -q "$5" "$T/ref.out"; then ok "page-types-judge-$1"
	else notok "page-types-judge-$1" "rc $rc: $(tr '\n' ' ' <"$T/ref.out")"; fi
}
ref_case nopage-holes 0x100000 12000 0 "last 8000 pfns"
ref_case zero-holes 0 12000 0 "count as no flag"
ref_case differs 0 2000 1 "anonymous: snapshot 12000, ours 2000"
# page-types -p: the process's THP and hugetlb pages against the
# snapshot's flags of its page map's pfns (a PTE-mapped THP counts)
python3 - "$T/ref.bin" "$T/ref.json" "$T/ref.serial" <<-'PY'
import json, struct, sys
flags = [0] * 4096
for p in range(1024, 1536):
    flags[p] = 1 << 22            # a THP, mapped by PTEs
for p in range(2048, 2560):
    flags[p] = 1 << 17            # a hugetlb page
open(sys.argv[1], "wb").write(struct.pack("<4096Q", *flags))
open(sys.argv[3], "w").write("MDF-SCEN pagemap-pfns labwork 0x10+4 0x400+512 0x800+512\n"
                             "MDF-SCEN pagemap labwork pid 42 pages 1028\n")
rows = [{"flags": "0x400000", "pages": 512}, {"flags": "0x20000", "pages": 512},
        {"flags": "0x0", "pages": 4}]
json.dump({"page_types": {"rows": rows, "unknown_flags": "",
                          "groups": [{"name": "process 42 (labwork)", "rows": rows}]}},
          open(sys.argv[2], "w"))
PY
if out=$(python3 "$MDF_SRC/tests/tools/page_types_ref.py" --task "$T/ref.serial" labwork "$T/ref.bin" "$T/ref.json") &&
	[[ $out == *"thp 512 pages, hugetlb 512"*"512 and 512" ]]; then ok "page-types-judge-task"
else notok "page-types-judge-task" "$out"; fi
# dirty page cache written back after the snapshot: fewer dirty is drift
ref_case dirty-falls 0 2000 0 "10000 pages fewer than the snapshot's, written back" 0x10

for args in "-R $T/x" "--dump-dmesg $T/vm $T/x" "--explain 5 $T/vm"; do
	# shellcheck disable=SC2086
	if "$MDF" --page-types $args >"$T/r.txt" 2>&1; then notok "page-types-refused ${args%% *}" "exit 0"
	elif grep -q "^makedumpfile: --page-types\|^makedumpfile: --explain writes no dump" "$T/r.txt"; then
		ok "page-types-refused ${args%% *}"
	else notok "page-types-refused ${args%% *}" "$(head -n 1 "$T/r.txt")"; fi
done
exit 0
