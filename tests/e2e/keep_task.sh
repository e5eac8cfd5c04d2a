#!/bin/bash
# --keep-task SPEC (issue 30, item 1): the memory of chosen processes kept
# at any dump level, walked through their user page tables
# (filter/keeptask.c).  On the real 6.1 and 6.12 fixtures, whose lab
# workload process (labwork) holds LAB-ANON-MARKER lines in anonymous, THP
# and hugetlb memory:
#  - -E -d 31 keeps none of the markers; with --keep-task comm:labwork
#    every one the raw vmcore holds, and the report names the process
#    and counts the pages kept;
#  - the same by its pid (from that report), and by pid with 2 threads:
#    byte for byte the same dump;
#  - --keep-task 1 (init, another process): none of the markers;
#  - cgroup:/ chooses every process of the guest (all in the root
#    cgroup), cgroup:/system.slice none;
#  - a SPEC no process matches: one warning line, the dump is made;
#  - the JSON report carries the processes and the count;
#  - --explain of a marker's page names the process it is kept for, and
#    -d 31 keeps it (without --keep-task, -d 31 excludes it);
#  - a dump without BTF (synthetic): one error line naming -x, exit 1,
#    no output; a bad SPEC is refused.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"

markers() { grep -a -o 'LAB-ANON-MARKER' "$1" | wc -l; }

for name in fx-v61-512m fx-v612-512m; do
	vm=$(vmcore "$name") || { skip "keep-task-$name" "no fixture"; continue; }
	raw=$(markers "$vm")
	rm -f "$T"/*.E
	"$MDF" -E -d 31 "$vm" "$T/none.E" >/dev/null 2>&1
	"$MDF" -E -d 31 --show-stats --keep-task comm:labwork "$vm" "$T/kept.E" >"$T/kept.txt" 2>&1
	rc=$?
	pid=$(sed -n 's/^  process \([0-9]*\) (labwork): .*/\1/p' "$T/kept.txt")
	n=$(sed -n 's/^Kept for --keep-task: \([0-9]*\) pages .*/\1/p' "$T/kept.txt")
	if [ $rc = 0 ] && [ "$raw" -gt 0 ] && [ "$(markers "$T/none.E")" = 0 ] &&
		[ "$(markers "$T/kept.E")" = "$raw" ] && [ -n "$pid" ] && [ "${n:-0}" -gt 1000 ]; then
		ok "keep-task-$name-comm (process $pid, $n pages kept, $raw of $raw markers)"
	else
		notok "keep-task-$name-comm" "rc=$rc raw=$raw none=$(markers "$T/none.E") kept=$(markers "$T/kept.E") pid=$pid n=$n: $(tail -n 3 "$T/kept.txt" | tr '\n' ' ')"
	fi
	if [ -n "$pid" ] && "$MDF" -E -d 31 --keep-task "$pid" "$vm" "$T/pid.E" >/dev/null 2>&1 &&
		"$MDF" -E -d 31 --num-threads 2 --keep-task "$pid" "$vm" "$T/pid2.E" >/dev/null 2>&1 &&
		cmp -s "$T/kept.E" "$T/pid.E" && cmp -s "$T/kept.E" "$T/pid2.E"; then
		ok "keep-task-$name-pid-same"
	else notok "keep-task-$name-pid-same" "pid '$pid': the dumps differ"; fi
	rm -f "$T/pid.E" "$T/pid2.E"
	# the lab guest runs everything in the root cgroup: cgroup:/ is every
	# process (init and labwork), a cgroup below it none
	"$MDF" -E -d 31 --show-stats --keep-task cgroup:/ "$vm" "$T/cg.E" >"$T/cg.txt" 2>&1
	"$MDF" -l -d 31 --keep-task cgroup:/system.slice "$vm" "$T/cg2.l" >"$T/cg2.txt" 2>&1
	if [ "$(markers "$T/cg.E")" = "$raw" ] && grep -q "^  process $pid (labwork): " "$T/cg.txt" &&
		grep -q "^  process 1 (" "$T/cg.txt" &&
		grep -qx "$vm: --keep-task cgroup:/system.slice: no such process in the dump." "$T/cg2.txt"; then
		ok "keep-task-$name-cgroup"
	else notok "keep-task-$name-cgroup" "$(grep -e process -e keep-task "$T/cg.txt" "$T/cg2.txt" | tr '\n' ' ')"; fi
	rm -f "$T/cg.E" "$T/cg2.l"
	if "$MDF" -E -d 31 --keep-task 1 "$vm" "$T/init.E" >/dev/null 2>&1 &&
		[ "$(markers "$T/init.E")" = 0 ]; then
		ok "keep-task-$name-another-process"
	else notok "keep-task-$name-another-process" "$(markers "$T/init.E") markers with --keep-task 1"; fi
	rm -f "$T"/*.E
	"$MDF" -l -d 31 --keep-task comm:nosuch "$vm" "$T/no.l" >"$T/no.txt" 2>&1
	rc=$?
	if [ $rc = 0 ] && [ -s "$T/no.l" ] &&
		grep -qx "$vm: --keep-task comm:nosuch: no such process in the dump." "$T/no.txt"; then
		ok "keep-task-$name-no-match"
	else notok "keep-task-$name-no-match" "rc=$rc $(head -n 2 "$T/no.txt" | tr '\n' ' ')"; fi
	rm -f "$T/no.l"
	"$MDF" -l -d 31 --report-format json --show-stats --keep-task comm:labwork "$vm" "$T/j.l" \
		>"$T/j.json" 2>/dev/null
	check "keep-task-$name-json" python3 - "$T/j.json" "$pid" "$n" <<-'PY'
	import json, sys
	objs = [l for l in open(sys.argv[1]) if l.startswith("{")]
	kt = json.loads(objs[-1])["keep_task"]
	assert kt["pages_kept"] == int(sys.argv[3]), kt
	assert [p["comm"] for p in kt["processes"]] == ["labwork"], kt
	assert kt["processes"][0]["pid"] == int(sys.argv[2]) and kt["processes"][0]["tables"] > 0
	PY
	rm -f "$T/j.l"
	pa=$(python3 - "$vm" <<-'PY'
	import mmap, struct, sys
	f = open(sys.argv[1], "rb")
	m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
	phoff, = struct.unpack_from("<Q", m, 32)
	phentsize, phnum = struct.unpack_from("<HH", m, 54)
	i = m.find(b"LAB-ANON-MARKER")
	for k in range(phnum):
	    t, _, off, va, pa, fsz, _, _ = struct.unpack_from("<IIQQQQQQ", m, phoff + k * phentsize)
	    if t == 1 and off <= i < off + fsz and 0xffff800000000000 <= va < 0xffffffff80000000:
	        print(hex(pa + i - off))
	        break
	PY
	)
	"$MDF" --explain "$pa" --keep-task comm:labwork "$vm" >"$T/x.txt" 2>&1
	"$MDF" --explain "$pa" "$vm" >"$T/x0.txt" 2>&1
	if grep -qx "  --keep-task: mapped by process $pid (labwork): kept at every level" "$T/x.txt" &&
		grep -q "^  -d 31 *kept" "$T/x.txt" && grep -q "^  -d 31 *excluded" "$T/x0.txt"; then
		ok "keep-task-$name-explain ($pa)"
	else notok "keep-task-$name-explain" "$pa: $(grep -e '--keep-task' -e '-d 31' "$T/x.txt" "$T/x0.txt" | tr '\n' ' ')"; fi
done

printf 'kernel 6.1\nram 0x100000 0x8000000\npages 0x2000+256 anon random\n' >"$T/spec"
"$GEN" "$T/spec" "$T/vm" >/dev/null 2>&1 || { notok "keep-task-gen" "mkvmcore failed"; exit 0; }
"$MDF" -l -d 31 --keep-task 1 "$T/vm" "$T/g.l" >"$T/g.txt" 2>&1
rc=$?
if [ $rc = 1 ] && [ ! -e "$T/g.l" ] && [ "$(grep -c '^makedumpfile: ' "$T/g.txt")" = 1 ] &&
	grep -q "^makedumpfile: $T/vm: --keep-task reads the task list with the kernel's types: the dump's BTF, or -x VMLINUX: " "$T/g.txt"; then
	ok "keep-task-no-btf"
else notok "keep-task-no-btf" "rc=$rc $(grep '^makedumpfile: ' "$T/g.txt")"; fi
for bad in "comm:" "comm:abcdefghijklmnop" "0" "12x" "-3" "cgroup" "cgroup:rel"; do
	if "$MDF" -l -d 31 --keep-task "$bad" "$T/vm" "$T/g.l" >"$T/b.txt" 2>&1; then
		notok "keep-task-refused '$bad'" "exit 0"
	elif grep -q "^makedumpfile: --keep-task $bad: " "$T/b.txt" && [ ! -e "$T/g.l" ]; then
		ok "keep-task-refused '$bad'"
	else notok "keep-task-refused '$bad'" "$(head -n 1 "$T/b.txt")"; fi
done
exit 0
