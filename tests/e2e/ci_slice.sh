#!/bin/bash
# The two tiers of the real-kernel tests: CI runs one slice a day
# (.ci/slice.sh), `make lab` all of it (tests/lab/all.sh).  Checks, without
# running any of them:
#  - in every 7 days in a row, CI's slices cover every foreign architecture
#    (arm64 and tests/e2e/foreign.sh's list), every big-guest size, every
#    kdump-tools variant, every matrix case and every matrix kernel, as the
#    tests themselves list them by default;
#  - .ci/run runs a stage of each kind of the slice, and make lab a stage of
#    every real test (each opt-in variable of tests/e2e is set by one of them);
#  - the stage machinery (tests/lib/stages.sh) counts run.sh's totals, a
#    failing command, a time-out, stages run side by side, and prints its
#    table.
. "$(dirname "$0")/../lib/lib.sh"
. "$MDF_SRC/.ci/slice.sh"

# default VAR FILE: the default a test gives ${VAR:-...} (or VAR="...").
default() {
	sed -n "s/.*\${$1:-\([^}]*\)}.*/\1/p; s/^$1=\"\(.*\)\"$/\1/p" "$2" | head -n 1
}
arches="arm64 $(default MDF_FOREIGN_ARCHES "$MDF_SRC/tests/e2e/foreign.sh")"
# the 32-bit hosts tests/cross.sh knows
host32=$(default HOST32 "$MDF_SRC/tests/cross.sh")
sizes=$(default MDF_BIGGUEST_SIZES "$MDF_SRC/tests/e2e/bigguest.sh")
variants=$(default MDF_KDT_VARIANTS "$MDF_SRC/tests/e2e/kdumptools.sh")
cases=$(default MATRIX_CASES "$MDF_SRC/tests/lab/matrix.sh")
kernels=$(default MATRIX_KERNELS "$MDF_SRC/tests/lab/matrix.sh")
readers=$(default MDF_READERS_KERNELS "$MDF_SRC/tests/e2e/readers_gate.sh")
for v in arches host32 sizes variants cases kernels readers; do
	[ -n "${!v// /}" ] || { notok "ci-slice-lists" "no default $v found in the tests"; exit 0; }
done

# Every window of 7 days over one whole period of the rotation (lcm of the
# lists' lengths 4, 4, 3, 5, 4 and 6: 60 days).
bad=""
for start in $(seq 20440 20500); do
	got=" "
	for d in $(seq "$start" $((start + 6))); do
		ci_slice "$d"
		got="$got f:${SLICE_FOREIGN//+/ f:} h:${SLICE_HOST32// / h:} b:$SLICE_BIGGUEST k:$SLICE_KDT m:${SLICE_MATRIX_CASES// / m:} v:$SLICE_MATRIX_KERNEL r:$SLICE_READERS "
	done
	for w in $arches; do [[ $got == *" f:$w "* ]] || bad="$bad day $start: no $w;"; done
	for w in $host32; do [[ $got == *" h:$w "* ]] || bad="$bad day $start: no 32-bit host $w;"; done
	for w in $sizes; do [[ $got == *" b:$w "* ]] || bad="$bad day $start: no big guest $w;"; done
	for w in $variants; do [[ $got == *" k:$w "* ]] || bad="$bad day $start: no kdump-tools $w;"; done
	for w in $cases; do [[ $got == *" m:$w "* ]] || bad="$bad day $start: no matrix case $w;"; done
	for w in $kernels; do [[ $got == *" v:$w "* ]] || bad="$bad day $start: no matrix kernel $w;"; done
	for w in $readers; do [[ $got == *" r:$w "* ]] || bad="$bad day $start: no readers' kernel $w;"; done
	[ -z "$bad" ] || break
done
if [ -z "$bad" ]; then ok "ci-slice-week-covers-all (foreign: $arches; 32-bit hosts: $host32; big guests: $sizes; kdump-tools: $variants; matrix: $cases on $kernels; readers: $readers)"
else notok "ci-slice-week-covers-all" "$(cut -c1-300 <<<"$bad")"; fi
# The slice lists name nothing the tests do not know.
extra=""
for w in ${CI_FOREIGN//+/ }; do [[ " $arches " == *" $w "* ]] || extra="$extra foreign $w"; done
for w in $CI_BIGGUEST; do [[ " $sizes " == *" $w "* ]] || extra="$extra size $w"; done
for w in $CI_HOST32; do [[ " $host32 none " == *" $w "* ]] || extra="$extra 32-bit host $w"; done
for w in $CI_KDT; do [[ " $variants " == *" $w "* ]] || extra="$extra variant $w"; done
for w in $CI_MATRIX_CASES; do [[ " $cases " == *" $w "* ]] || extra="$extra case $w"; done
for w in $CI_MATRIX_KERNELS; do [[ " $kernels " == *" $w "* ]] || extra="$extra kernel $w"; done
for w in $CI_READERS; do [[ " $readers " == *" $w "* ]] || extra="$extra readers $w"; done
if [ -z "$extra" ]; then ok "ci-slice-lists-known"; else notok "ci-slice-lists-known" "$extra"; fi

# Every opt-in variable of the e2e tests is set by .ci/run or make lab.
missing=""
for v in $(grep -ho 'MDF_[A-Z0-9]*_TEST\b' "$MDF_SRC"/tests/e2e/*.sh | sort -u); do
	grep -q "$v=1" "$MDF_SRC/tests/lab/all.sh" || missing="$missing $v(lab)"
done
for v in MDF_CAPTURE_TEST MDF_BIGGUEST_TEST MDF_ARM64_TEST MDF_FOREIGN_TEST MDF_DEB_TEST \
	MDF_KDT_TEST MDF_MATRIX_TEST MDF_CRASH_TEST MDF_READERS_TEST MDF_REAL_REQUIRED; do
	grep -q "$v=1" "$MDF_SRC/.ci/run" || missing="$missing $v(ci)"
done
if [ -z "$missing" ]; then ok "ci-and-lab-run-every-real-test"
else notok "ci-and-lab-run-every-real-test" "not set:$missing"; fi

# The stage machinery.
(
	STAGE_LOGS=$T/logs
	mkdir -p "$STAGE_LOGS"
	. "$MDF_SRC/tests/lib/stages.sh"
	counted() { echo "ok a"; echo "3 passed, 1 failed, 2 skipped"; return 1; }
	stage counted 10 counted
	stage plain 10 true
	stage broken 10 false
	stage hung 1 sleep 5
	echo "SUMS $PASS $FAIL $SKIP"
	# side by side: both run at once, each counted and timed on its own
	t0=$SECONDS
	stage_bg bg-counted 10 sh -c 'sleep 2; echo "2 passed, 0 failed, 1 skipped"'
	stage_bg bg-broken 10 sh -c 'sleep 2; exit 3'
	stage_wait; echo "WAIT $? $((SECONDS - t0))"
	echo "SUMS2 $PASS $FAIL $SKIP"
	# a pool of two workers: the next queued stage goes to the first free
	# worker; q-after waits for q-first, whose file it reads
	t0=$SECONDS
	stage_q q-long 10 "" sh -c 'sleep 3; echo "1 passed, 0 failed, 0 skipped"'
	stage_q q-first 10 "" sh -c 'sleep 1; echo "a b" >"$0"' "$T/first file"
	stage_q q-after 10 q-first sh -c 'read -r x y <"$0" && [ "$y" = b ]' "$T/first file"
	stage_q q-hung 1 "" sleep 5
	stage_pool 2
	stage_wait; echo "POOL $? $((SECONDS - t0))"
	stage_table
) >"$T/stages.out" 2>&1
sums=$(sed -n 's/^SUMS //p' "$T/stages.out")
read -r _ wrc wsecs <<<"$(grep '^WAIT ' "$T/stages.out")"
if [ "$sums" = "4 3 2" ] && grep -q '^== stage hung: [0-9]* s$' "$T/stages.out" &&
	[ "$(sed -n 's/^SUMS2 //p' "$T/stages.out")" = "6 4 3" ] && [ "$wrc" = 1 ] && [ "$wsecs" -lt 4 ] &&
	grep -q '^| bg-broken | [23] s | 0 passed, 1 failed, 0 skipped, exit 3 |$' "$T/stages.out" &&
	grep -q 'not ok stage-hung: timed out after 1 s' "$T/stages.out" &&
	grep -q '^| counted | [0-9]* s | 3 passed, 1 failed, 2 skipped, exit 1 |$' "$T/stages.out" &&
	grep -q '^| plain | [0-9]* s | 1 passed, 0 failed, 0 skipped |$' "$T/stages.out"; then
	ok "ci-stages-count-and-time"
else
	notok "ci-stages-count-and-time" "sums '$sums': $(tail -n 8 "$T/stages.out" | tr '\n' ' ')"
fi
read -r _ prc psecs <<<"$(grep '^POOL ' "$T/stages.out")"
if [ "$prc" = 1 ] && [ "$psecs" -ge 3 ] && [ "$psecs" -lt 5 ] &&
	grep -q '^| q-long | 3 s | 1 passed, 0 failed, 0 skipped |$' "$T/stages.out" &&
	grep -q '^| q-after | [01] s | 1 passed, 0 failed, 0 skipped |$' "$T/stages.out" &&
	grep -q 'not ok stage-q-hung: timed out after 1 s' "$T/stages.out" &&
	[ "$(grep -o '^| q-[a-z]*' "$T/stages.out" | tr '\n' ' ')" = "| q-long | q-first | q-after | q-hung " ]; then
	ok "ci-stages-pool (two workers, a stage after another, a time-out; $psecs s for 6 s of stages)"
else
	notok "ci-stages-pool" "rc '$prc' $psecs s: $(grep -E 'POOL|q-' "$T/stages.out" | tr '\n' ' ')"
fi
# make lab's README rows (tests/lab/lab_readme.py): one row a stage, its
# last run; a later run of one stage replaces that row and keeps the others.
printf 'x\n<!-- lab:begin -->\nold\n<!-- lab:end -->\ny\n' >"$T/R"
printf '| size | s |\n|---|---|\n| 4G | 9 |\n' >"$T/bg.md"
LR="$MDF_SRC/tests/lab/lab_readme.py"
python3 "$LR" "$T/R" capture 2026-01-01 aaa 61 "1 passed, 0 failed, 0 skipped" &&
	python3 "$LR" "$T/R" bigguest 2026-01-01 aaa 3601 "8 passed, 0 failed, 0 skipped" "$T/bg.md" &&
	python3 "$LR" "$T/R" capture 2026-01-02 bbb 62 "0 passed, 1 failed, 0 skipped, exit 1" ||
	notok "ci-lab-readme-rows" "lab_readme.py failed"
if [ "$(grep -c '^| capture | ' "$T/R")" = 1 ] &&
	grep -q '^| capture | 2026-01-02 | bbb | 1 min 02 s | 0 passed, 1 failed' "$T/R" &&
	grep -q '^| bigguest | 2026-01-01 | aaa | 60 min 01 s | 8 passed' "$T/R" &&
	grep -q '^| 4G | 9 |$' "$T/R" && ! grep -q '^old$' "$T/R" &&
	[ "$(head -n 1 "$T/R")" = x ] && [ "$(tail -n 1 "$T/R")" = y ]; then
	ok "ci-lab-readme-rows"
else notok "ci-lab-readme-rows" "$(tr '\n' ' ' <"$T/R")"; fi
exit 0
