#!/bin/bash
# Big machines in a real capture kernel.  For each guest size (16, 64 and
# 128 GiB by default, plus a 4 GiB one whose vmcore is copied out; make lab
# adds 512 GiB), the lab
# (../shared/lab/mkvmcore.sh) boots Debian's kernel under qemu with RAM
# backed by a sparse file (--mem-file: the host pays only for the pages the
# guest touches), 1 % workloads, crashkernel=256M and 2 vCPUs, crashes it,
# and in the capture kernel (nr_cpus=2) tests/lab/measure_hook.sh runs our
# static binary and Debian's makedumpfile 1.7.2 on the live /proc/vmcore
# with "-l --message-level 23 -d 31", then each with --num-threads 2 (and
# with MDF_BIGGUEST_EXTRA=1, as make lab sets it: each with --non-mmap,
# upstream HEAD (../shared/oracles) as 1.7.2 is run, ours with -e and HEAD
# with -e --work-dir),
# sampling PageTables, MemAvailable and the process's VmHWM every 20 ms.
# Checks:
#  - every run of ours exits 0, at every size (the 128 GiB one included);
#  - its peak PageTables (the whole capture kernel's) is at most 2 MiB and
#    does not grow with guest RAM (largest guest vs smallest: +256 KiB at
#    most);
#  - its dumps are one: the 2-thread run's, the --non-mmap run's and 1.7.2's
#    equal it (cmp in the capture kernel), HEAD's -e equals our -e, and on
#    the 4 GiB guest it equals the dump our binary makes on the host from
#    the copied vmcore (the file path);
#  - --non-mmap's time against the mmap run's is measured and said
#    (issue 31's target: 1.2 times).
# Prints the table of every run (README, "Big machines"); MDF_BIGGUEST_TABLE=
# FILE also writes it there.  MDF_BIGGUEST_SIZES="4G 16G" picks the sizes.
# Opt-in (MDF_BIGGUEST_TEST=1; CI sets it): about 14 minutes on this 2-core
# machine (4 GiB 2.5 min, 16 GiB 1.3, 64 GiB 3.3, 128 GiB 6.3, and the
# static build); the lab needs about 5 GB of disk for the largest guest.
. "$(dirname "$0")/../lib/lib.sh"
. "$MDF_SRC/tests/lab/lab.sh"
UP=${MDF_UPSTREAM:-/usr/bin/makedumpfile}
SIZES=${MDF_BIGGUEST_SIZES:-4G 16G 64G 128G}
HEAD=${MDF_HEAD:-$MDF_SHARED/oracles/makedumpfile-head}
PT_MAX_KB=2048
PT_GROWTH_KB=256

optin bigguest MDF_BIGGUEST_TEST "16-128 GiB guests under qemu take long" || exit 0
missing=$(lab_missing)
[ -x "$UP" ] || missing="$missing $UP"
if [ -n "$missing" ]; then
	needfail "bigguest" "missing:$missing (apt-get install qemu-system-x86 linux-image-amd64 busybox-static kexec-tools cpio makedumpfile)"
	exit 0
fi
CAPBIN=$(capture_bin "$T/static.log") || { notok "bigguest-static-build" "$CAPBIN"; exit 0; }

kib() { awk -v k="$1" 'BEGIN { if (k >= 10240) printf "%.0f MiB", k / 1024; else printf "%d kB", k }'; }

TABLE="$T/table.md"
{
	echo "| guest RAM | run | exit | wall | peak PageTables (before) | peak RSS | MemAvailable low (before) | mapped at most | dump |"
	echo "|---|---|---|---|---|---|---|---|---|"
} >"$TABLE"
declare -A growth
first="" last=""
for size in $SIZES; do
	name=mdf-bg-$size
	copy=0
	[ "$size" = 4G ] && copy=1
	t0=$SECONDS
	hb="" extra=0
	[ "${MDF_BIGGUEST_EXTRA:-0}" = 1 ] && extra=1
	[ $extra = 1 ] && [ -x "$HEAD" ] && hb=$HEAD
	LAB_CAPTURE_BINS=$hb lab_measure "$name" "$size" "$T/out" 2 $copy "$CAPBIN" "$UP" \
		"ARGS='-l --message-level 23'" PAIRS=1 THREADS=2 NONMMAP=$extra VMEMMAP=$extra "HEAD=$hb" HEADRUNS=$extra
	rc=$?
	H="$T/out/$name.d/hook"
	echo "# $size: lab rc $rc in $((SECONDS - t0)) s"
	if [ $rc -ne 0 ] || [ ! -f "$H/results.txt" ]; then
		notok "bigguest-$size-lab" "mkvmcore.sh rc $rc: $(tail -n 5 "$T/out/$name.log" | tr '\n' ' ')"
		grep -E 'LAB-HOOK|panic|Out of memory' "$T/out/$name.d/serial.log" 2>/dev/null | tail -n 20 | sed 's/^/# /'
		continue
	fi
	cpus=$(lab_field cpus "$(head -n 1 "$H/results.txt")")
	if [ "$cpus" = 2 ]; then ok "bigguest-$size-capture-cpus (2)"
	else notok "bigguest-$size-capture-cpus" "the capture kernel has $cpus CPUs, not 2"; fi
	sed 's/^/# hook: /' "$H/results.txt"
	runs="ours1 up1 ours-t2 up-t2"
	[ -n "$hb" ] && runs="ours1 up1 head1 ours-t2 up-t2 head-t2"
	[ $extra = 1 ] && runs="$runs ours-nonmmap up-nonmmap ours-e${hb:+ head-e}"
	for run in $runs; do
		line=$(grep "^run=$run " "$H/results.txt")
		[ -n "$line" ] || { notok "bigguest-$size-$run" "no result"; continue; }
		rc=$(lab_field rc "$line"); wall=$(lab_field wall "$line")
		ptb=$(lab_field pt_base "$line"); ptp=$(lab_field pt_peak "$line")
		avb=$(lab_field avail_base "$line"); avm=$(lab_field avail_min "$line")
		hwm=$(lab_field hwm "$line"); cmpr=$(lab_field cmp "$line")
		mapped=$(sed -n 's/.*mapped at most \([0-9]* MiB\) at once.*/\1/p' "$H/$run.log" 2>/dev/null | head -n 1)
		[ -n "$mapped" ] || mapped="-"
		who="ours"; [ "${run#up}" != "$run" ] && who="1.7.2"
		[ "${run#head}" != "$run" ] && who="HEAD"
		thr=""; [ "${run%-t2}" != "$run" ] && thr=" --num-threads 2"
		case $run in *-e) thr=" -e" ;; *-nonmmap) thr=" --non-mmap" ;; esac
		dump=$cmpr; [ "$run" = ours1 ] && dump=kept; [ "$run" = ours-e ] && dump="kept (-e)"
		echo "| $size | $who$thr | $rc | $wall s | $(kib "$ptp") ($(kib "$ptb")) | $(kib "$hwm") | $(kib "$avm") ($(kib "$avb")) | $mapped | $dump |" >>"$TABLE"
		[ "$who" = ours ] || { [ "$rc" = 0 ] || echo "# $size: $who$thr failed (rc $rc): $(tr '\r' '\n' <"$H/$run.log" | tail -n 2 | tr '\n' ' ')"; }
		if [ "$who" = ours ]; then
			if [ "$rc" = 0 ]; then ok "bigguest-$size-$run-completes ($wall s)"
			else notok "bigguest-$size-$run-completes" "rc $rc: $(tr '\r' '\n' <"$H/$run.log" | tail -n 2 | tr '\n' ' ')"; fi
			if [ "$ptp" -le $PT_MAX_KB ]; then ok "bigguest-$size-$run-pagetables (peak $ptp kB, $ptb kB before)"
			else notok "bigguest-$size-$run-pagetables" "peak $ptp kB > $PT_MAX_KB kB ($ptb kB before)"; fi
		fi
		if [ "$run" != ours1 ] && [ "$run" != ours-e ] && [ "$rc" = 0 ]; then
			if [ "$cmpr" = same ]; then ok "bigguest-$size-$run-same-dump${thr:+ ($thr)}"
			else notok "bigguest-$size-$run-same-dump" "cmp with ours$([ "$run" = head-e ] && echo " -e"): $cmpr"; fi
		fi
	done
	line=$(grep "^run=ours1 " "$H/results.txt")
	growth[$size]=$(( $(lab_field pt_peak "$line") - $(lab_field pt_base "$line") ))
	# --non-mmap at the speed of the mmap run (issue 31: within 1.2 times)
	nm=$(grep "^run=ours-nonmmap " "$H/results.txt")
	if [ -n "$nm" ] && [ "$(lab_field rc "$nm")" = 0 ]; then
		r=$(awk -v a="$(lab_field wall "$nm")" -v b="$(lab_field wall "$line")" 'BEGIN { printf "%.2f", a / b }')
		# a measurement: issue 31's target of 1.2 is said, not gated
		# (/proc/vmcore's read() copies page by page, and under TCG
		# each page's mapping costs more than natively)
		up1=$(grep "^run=up-nonmmap " "$H/results.txt")
		# why: the kernel's read() per page (dd's second pass over 1 GiB)
		# times the bytes the --non-mmap run read
		dd2=$(grep "^run=dd-read2 " "$H/results.txt")
		nmb=$(sed -n 's/^nonmmap_input=//p' "$H/results.txt")
		why=$(awk -v w="$(lab_field wall "$dd2")" -v b="${nmb:-0}" -v nm="$(lab_field wall "$nm")" \
			-v mm="$(lab_field wall "$line")" 'BEGIN {
			if (w <= 0 || b <= 0) { print "no dd figure"; exit }
			us = w * 1e6 / 262144; k = b / 1073741824 * w
			printf "the kernel read() %.0f MB/s, %.1f us a page; the %.0f MB it read cost %.1f s of the %.1f s gap", 1073.741824 / w, us, b / 1e6, k, nm - mm }')
		ok "bigguest-$size-nonmmap-speed ($r x the mmap run; 1.2 $(awk -v r="$r" 'BEGIN { print (r <= 1.2) ? "met" : "not met" }'); 1.7.2 --non-mmap $(lab_field wall "$up1") s; $why)"
	fi
	[ -n "$first" ] || first=$size
	last=$size
	# The file path: the copied vmcore, filtered here, gives the same dump.
	if [ $copy = 1 ]; then
		if [ ! -f "$T/out/$name.elf" ]; then notok "bigguest-$size-file-path" "no copied vmcore"
		elif ! "$MDF" -l --message-level 23 -d 31 "$T/out/$name.elf" "$T/host.l" >"$T/host.log" 2>&1; then
			notok "bigguest-$size-file-path" "$(tail -n 1 "$T/host.log")"
		elif cmp -s "$T/host.l" "$H/ours.dump"; then ok "bigguest-$size-file-path-same-dump"
		else notok "bigguest-$size-file-path-same-dump" "$(cmp "$T/host.l" "$H/ours.dump" 2>&1 | head -n 1)"; fi
		rm -f "$T/host.l" "$T/out/$name.elf"
	fi
	rm -rf "$T/out/$name.d/hook/ours.dump"
done
if [ -n "$first" ] && [ "$first" != "$last" ]; then
	d=$(( ${growth[$last]} - ${growth[$first]} ))
	if [ $d -le $PT_GROWTH_KB ]; then ok "bigguest-pagetables-flat ($first: +${growth[$first]} kB, $last: +${growth[$last]} kB while ours runs)"
	else notok "bigguest-pagetables-flat" "$first: +${growth[$first]} kB, $last: +${growth[$last]} kB while ours runs"; fi
fi
sed 's/^/# /' "$TABLE"
[ -n "${MDF_BIGGUEST_TABLE:-}" ] && cp "$TABLE" "$MDF_BIGGUEST_TABLE"
exit 0
