#!/bin/bash
# The page-state lab matrix (issue 17): every case of tests/lab/matrix.sh
# (5-level paging, NUMA with 2 and 4 nodes, hwpoisoned pages, balloon and
# virtio-mem offline pages, a 1 GiB hugetlb page, memory hot-plug, RAM above
# 4 GiB around the PCI hole, CMA/movable zones, mlock + swap cache + KSM +
# zram) on Debian's kernels 5.10, 6.1, 6.12 and 7.3, each a real crash
# under qemu/TCG with the guest's /proc/kpageflags saved right before it.
# For each run, ours, Debian's makedumpfile 1.7.2 and upstream HEAD write
# -l -d 2, 4, 8 and 16, and tests/tools/kpf_pfn.py compares the pfns each
# excluded with the snapshot's classes, pfn by pfn.  Checks: the case
# reached what it is for (EXPECT), and ours agrees with the snapshot in
# every class up to the drift between snapshot and crash (at most
# max(300, 1 %) pages a class; hwpoison+offline: max(8, 1 %)); and ours
# --page-types table agrees, flag by flag and within the same drift, with
# the one the kernel's page-types makes of the snapshot
# (tests/tools/page_types_ref.py; the table in results/RUN.page-types.txt);
# and --keep-task comm:labwork keeps every page the guest's page map of
# labwork has, and none of init's that -d 31 drops
# (tests/tools/keep_task_ref.py).
# Results stay in $MATRIX_CACHE/results (one .tsv per run);
# tests/lab/matrix_table.py makes README's table from them.
# Opt-in (MDF_MATRIX_TEST=1); MDF_MATRIX_CASES and MDF_MATRIX_KERNELS pick
# a part; MDF_MATRIX_CACHE (default /var/tmp/mdf-matrix) keeps kernels.
. "$(dirname "$0")/../lib/lib.sh"
. "$MDF_SRC/tests/lab/lab.sh"
. "$MDF_SRC/tests/lab/labcheck.sh"
MATRIX_CACHE=${MDF_MATRIX_CACHE:-/var/tmp/mdf-matrix}
. "$MDF_SRC/tests/lab/matrix.sh"
UP=${MDF_UPSTREAM:-/usr/bin/makedumpfile}
HEAD_BIN=${MDF_HEAD:-$MDF_SHARED/oracles/makedumpfile-head}

optin matrix MDF_MATRIX_TEST "40 real crashes under qemu take long" || exit 0
missing=$(lab_missing)
if [ -n "$missing" ]; then
	needfail "matrix" "missing:$missing (apt-get install qemu-system-x86 linux-image-amd64 busybox-static kexec-tools cpio)"
	exit 0
fi
mkdir -p "$MATRIX_CACHE/results" || { notok "matrix-cache" "cannot create $MATRIX_CACHE"; exit 0; }
if ! gcc -static -O2 -Wall -o "$MATRIX_CACHE/scenario" "$MDF_SRC/tests/lab/scenario.c" 2>"$T/scen.log"; then
	notok "matrix-scenario-build" "$(tail -n 2 "$T/scen.log" | tr '\n' ' ')"
	exit 0
fi

# kconfig CASE-VER: the run's kernel config (its package's boot/config-*,
# or lib/modules/VER/config in a merged-/usr package), or nothing
kconfig() {
	ls "$MATRIX_CACHE/kernels/${1##*-}"/root/boot/config-* \
		"$MATRIX_CACHE/kernels/${1##*-}"/root/usr/lib/modules/*/config "/boot/config-$kver" 2>/dev/null | head -n 1
}

# expect_ok CASE-VER: did the run make what its case is for?
expect_ok() {
	local run=$1 out=$MATRIX_CACHE/out/$1 e why="" n flags
	flags=$(sed -n 's/^flags\t//p' "$MATRIX_CACHE/results/$run.tsv")
	for e in $EXPECT; do
		case $e in
		la57) local cfg
			cfg=$(kconfig "$run")
			if strings -n 20 "$out.elf" | head -c 3000000 | grep -q '^NUMBER(pgtable_l5_enabled)=1'; then :
			elif [ -n "$cfg" ] && grep -q '^# CONFIG_X86_5LEVEL is not set' "$cfg"; then
				# Debian's bullseye 5.10 kernel: 4-level paging even on a la57 CPU.
				echo "skip: $(basename "$cfg") has no CONFIG_X86_5LEVEL: the guest pages with 4 levels on its la57 CPU"
				return
			else why="$why no NUMBER(pgtable_l5_enabled)=1;"
			fi ;;
		nodes=*) n=$(grep -oE '^Node [0-9]+' "$out.d/stage1/kpf-zoneinfo.txt" | sort -u | wc -l)
			[ "$n" = "${e#nodes=}" ] || why="$why $n nodes in zoneinfo;" ;;
		hugetlb1g) grep -q 'MDF-SCEN hugetlb1g head pfn' "$out.serial.log" || why="$why no 1 GiB page;" ;;
		hotplug) grep -qE 'MDF-SCEN hotplug: blocks now .*offline: [1-9]' "$out.serial.log" ||
			why="$why no hot-plugged block offline;" ;;
		above4g) python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["vmcore"]["pt_load"]; sys.exit(not any(int(x["paddr"],16) >= 1<<32 for x in l))' "$out.json" ||
			why="$why no RAM above 4 GiB;" ;;
		movable) grep -qE '^Node [0-9]+, zone +Movable' "$out.d/stage1/kpf-zoneinfo.txt" || why="$why no Movable zone;" ;;
		zsmalloc) grep -q 'MDF-SCEN zram: swap on' "$out.serial.log" || why="$why no zram swap;" ;;
		*) [[ " $flags " == *" $e=0 "* || " $flags " != *" $e="* ]] && why="$why no $e pages;" ;;
		esac
	done
	echo "$why"
}

# compare CASE-VER: every tool's -d 2/4/8/16 against the snapshot
compare() {
	local run=$1 elf=$MATRIX_CACHE/out/$1.elf tool bin d files args=()
	for tool in ours 1.7.2 HEAD; do
		case $tool in ours) bin=$MDF ;; 1.7.2) bin=$UP ;; HEAD) bin=$HEAD_BIN ;; esac
		files=""
		for d in 2 4 8 16 31; do
			rm -f "$T/$tool.d$d"
			if [ -x "$bin" ] && "$bin" -l -d $d --message-level 1 "$elf" "$T/$tool.d$d" >"$T/$tool.log" 2>&1; then
				files="$files${files:+,}$T/$tool.d$d"
			else
				files=-; break
			fi
		done
		args+=("$tool=$files")
	done
	python3 "$MDF_SRC/tests/tools/kpf_pfn.py" "$MATRIX_CACHE/out/$run.d/stage1/kpageflags.bin" "${args[@]}"
	rm -f "$T"/*.d2 "$T"/*.d4 "$T"/*.d8 "$T"/*.d16 "$T"/*.d31
}

for v in ${MDF_MATRIX_KERNELS:-$MATRIX_KERNELS}; do
	if ! matrix_kernel "$v" >"$T/kernel.log" 2>&1; then
		notok "matrix-kernel-$v" "$(tail -n 2 "$T/kernel.log" | tr '\n' ' ')"
		continue
	fi
	for c in ${MDF_MATRIX_CASES:-$MATRIX_CASES}; do
		run=$c-$v
		if [ "${MDF_MATRIX_SKIP_DONE:-0}" = 1 ] && [ -f "$MATRIX_CACHE/results/$run.tsv" ]; then
			skip "matrix-$run" "results from an earlier run ($MATRIX_CACHE/results/$run.tsv)"
			continue
		fi
		t0=$SECONDS
		matrix_run "$c" "$v"
		rc=$?
		if [ $rc -ne 0 ] || [ ! -f "$MATRIX_CACHE/out/$run.elf" ]; then
			notok "matrix-$run-lab" "mkvmcore.sh rc $rc: $(grep -E 'ERROR|error|die' "$MATRIX_CACHE/out/$run.log" | tail -n 2 | tr '\n' ' ')"
			grep -E 'MDF-SCEN|LAB-ERROR|panic' "$MATRIX_CACHE/out/$run.serial.log" 2>/dev/null | tail -n 12 | sed 's/^/# /'
			continue
		fi
		lab_s=$((SECONDS - t0))
		kver=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("kernel_version", "?"))' "$MATRIX_CACHE/out/$run.json" 2>/dev/null)
		{
			echo "# case $c kernel $v $kver lab_seconds $lab_s"
			tr -d '\r' <"$MATRIX_CACHE/out/$run.serial.log" | grep -a -o 'MDF-SCEN .*' | sed 's/^/# /'
			compare "$run"
		} >"$MATRIX_CACHE/results/$run.tsv"
		why=$(expect_ok "$run")
		if [[ $why == skip:* ]]; then skip "matrix-$run-reached" "${why#skip: }"
		elif [ -z "$why" ]; then ok "matrix-$run-reached ($EXPECT; $kver, lab ${lab_s} s)"
		else notok "matrix-$run-reached" "$why"; fi
		# the tolerance and the message: tests/lab/matrix_table.py
		bad=$(python3 "$MDF_SRC/tests/lab/matrix_table.py" --check "$MATRIX_CACHE/results/$run.tsv")
		if [ -z "$bad" ]; then ok "matrix-$run-pfns-vs-kpageflags"
		else notok "matrix-$run-pfns-vs-kpageflags" "$bad"; fi
		# --page-types: page-types' table of the dump against the one the
		# kernel's tools/mm/page-types makes of the snapshot, flag by flag
		# DAMON_STAT (Linux 6.17, on from boot in Debian's 7.3) samples
		# physical memory and sets PG_idle on what it samples, all along
		"$MDF" --page-types --report-format json "$MATRIX_CACHE/out/$run.elf" \
			>"$T/pt.json" 2>"$T/pt.err"
		unjudged=()
		if grep -qs '^CONFIG_DAMON_STAT_ENABLED_DEFAULT=y' "$(kconfig "$run")"; then
			unjudged=(--not-judged "idle_page=DAMON_STAT (CONFIG_DAMON_STAT_ENABLED_DEFAULT=y) marks sampled folios idle between the snapshot and the crash")
		fi
		if out=$(python3 "$MDF_SRC/tests/tools/page_types_ref.py" --table 12 "${unjudged[@]}" \
			"$MATRIX_CACHE/out/$run.d/stage1/kpageflags.bin" "$T/pt.json" 2>&1); then
			ok "matrix-$run-page-types ($(echo "$out" | grep -c $'\t') flags within drift)"
		else
			notok "matrix-$run-page-types" "$(echo "$out" | tail -n 1) $(grep -m 1 '^makedumpfile: ' "$T/pt.err")"
		fi
		echo "$out" >"$MATRIX_CACHE/results/$run.page-types.txt"
		# --keep-task of the workload (by the pid its page map names: the
		# lab's kpageflags snapshot runs as a second "labwork") against
		# the guest's page map of it (scenario.c's pagemap step) and of init
		rm -f "$T"/kt30 "$T"/kt31 "$T"/pl31
		out="a dump failed"
		lpid=$(tr -d '\r' <"$MATRIX_CACHE/out/$run.serial.log" |
			sed -n 's/.*MDF-SCEN pagemap labwork pid \([0-9]*\) .*/\1/p' | head -n 1)
		[ -n "$lpid" ] || out="no page map of labwork in the serial log"
		# The task list needs the kernel's types: the dump's BTF, found
		# through the kallsyms VMCOREINFO names from 6.0 on.  Before, a
		# user gives -x VMLINUX: the -dbg package's (debug_vmlinux.sh).
		task_x=() task_run=1
		case $kver in
		[1-5].*)
			if vml=$(bash "$MDF_SRC/tests/lab/debug_vmlinux.sh" "$kver" 2>"$T/dbg.err"); then
				task_x=(-x "$vml")
			else
				needfail "matrix-$run-task-vmlinux" "$(cat "$T/dbg.err")"
				task_run=0
			fi
			;;
		esac
		if [ $task_run = 0 ]; then
			: # said above: the two task checks cannot run
		elif [ -n "$lpid" ] &&
			"$MDF" "${task_x[@]}" --message-level 0 -l -d 30 --keep-task "$lpid" "$MATRIX_CACHE/out/$run.elf" "$T/kt30" &&
			"$MDF" "${task_x[@]}" --message-level 0 -l -d 31 --keep-task "$lpid" "$MATRIX_CACHE/out/$run.elf" "$T/kt31" &&
			"$MDF" --message-level 0 -l -d 31 "$MATRIX_CACHE/out/$run.elf" "$T/pl31" &&
			out=$(python3 "$MDF_SRC/tests/tools/keep_task_ref.py" "$MATRIX_CACHE/out/$run.serial.log" \
				"$T/kt30" "$T/kt31" "$T/pl31" 2>&1); then
			ok "matrix-$run-keep-task-vs-pagemap ($out)"
		else notok "matrix-$run-keep-task-vs-pagemap" "$out"; fi
		rm -f "$T"/kt30 "$T"/kt31 "$T"/pl31
		out=""
		# --page-types-by task: the workload's THP and hugetlb pages are
		# those the snapshot flags among the pfns of its page map (every
		# tail page read through its head: 7.1's compound_info masks too)
		if [ $task_run = 0 ]; then
			:
		elif [ -n "$lpid" ] && "$MDF" "${task_x[@]}" --page-types --page-types-by task --report-format json \
			"$MATRIX_CACHE/out/$run.elf" >"$T/bt.json" 2>"$T/bt.err" &&
			out=$(python3 "$MDF_SRC/tests/tools/page_types_ref.py" --task "$MATRIX_CACHE/out/$run.serial.log" \
				labwork "$MATRIX_CACHE/out/$run.d/stage1/kpageflags.bin" "$T/bt.json" 2>&1); then
			ok "matrix-$run-page-types-by-task ($out)"
		else notok "matrix-$run-page-types-by-task" "${out:-$(head -n 2 "$T/bt.err" | tr '\n' ' ')}"; fi
		# --explain on pfns of every class: its -d 31 verdict is the run's
		bad="" n=0
		while IFS=$'\t' read -r _ cls pfn exc; do
			n=$((n + 1))
			verdict=$("$MDF" --explain "pfn:$pfn" "$MATRIX_CACHE/out/$run.elf" 2>&1 | sed -n 's/^ *-d 31 *//p')
			case "$exc:$verdict" in
			# a zero page stays in a kdump file's bitmap (its descriptor
			# is the shared zero page), so -d 31 "kept" it
			1:excluded*|0:kept*|0:"excluded: zero"*) ;;
			*) bad="$bad $cls pfn $pfn: -d 31 excluded=$exc, --explain '$verdict';" ;;
			esac
		done < <(grep $'^sample\t' "$MATRIX_CACHE/results/$run.tsv")
		if [ -z "$bad" ]; then ok "matrix-$run-explain ($n pfns)"
		else notok "matrix-$run-explain" "$bad"; fi
		grep -v -e '^#' -e $'^sample\t' "$MATRIX_CACHE/results/$run.tsv" | sed 's/^/# /'
		echo "# $run: $((SECONDS - t0)) s"
		[ "${MDF_MATRIX_KEEP:-0}" = 1 ] || rm -f "$MATRIX_CACHE/out/$run.elf"
	done
done
python3 "$MDF_SRC/tests/lab/matrix_table.py" "$MATRIX_CACHE/results" >"$T/matrix.md" 2>&1 &&
	sed 's/^/# /' "$T/matrix.md"
