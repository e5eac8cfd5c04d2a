#!/bin/sh
# tests/lab/measure_hook.sh - run INSIDE the kdump capture kernel by the lab
# (../shared/lab/mkvmcore.sh --run-in-capture), as: HOOK /proc/vmcore OUTDIR.
# tests/e2e/bigguest.sh and tests/bench.sh put their settings in front of a
# copy of this file:
#   OURS=PATH        our static makedumpfile on the capture initramfs
#   UPSTREAM=PATH    the makedumpfile to compare with (Debian's 1.7.2)
#   ARGS="..."       the options of every run, before -d ("-l --message-level 23")
#   PAIRS=N          alternate ours and upstream N times      [1]
#   THREADS=N        then once more each with --num-threads N (0: no) [0]
#   VMEMMAP=1        then ours with -e and HEAD (the path in HEAD=) with
#                    -e --work-dir /tmp, HEAD's dump compared with ours -e [0]
#   HEADRUNS=1       HEAD (HEAD=) as upstream is run: once, and with
#                    --num-threads N when THREADS=N                    [0]
#   NONMMAP=1        then ours and upstream with --non-mmap, and dd's read
#                    of 1 GiB of VMCORE, twice (the kernel's read() alone) [0]
#   SAMPLE=0         only time the runs (no sampler beside them)      [1]
#   WARM=0           no untimed run first                               [1]
# The untimed run (ours, the stream to /dev/null) reads the pages every run
# reads once: under qemu the first touch of guest memory costs a host
# fault per page (RAM backed by a sparse file), which the first timed run
# would pay alone.
# Each run filters the live /proc/vmcore with "-d 31" into OUTDIR while a
# sampler reads, every 20 ms and with no fork (shell builtins only):
# PageTables and MemAvailable of /proc/meminfo (the whole capture kernel)
# and VmHWM of the process.  One line per run in OUTDIR/results.txt:
#   run=TAG rc=N wall=SECONDS pt_base=KB pt_peak=KB avail_base=KB
#   avail_min=KB hwm=KB samples=N [cmp=same|differ|-]
# TAG is ours1, up1, ours2, ... (pairs), head1 (HEADRUNS), ours-tN, up-tN,
# head-tN (threads), ours-e,
# head-e (VMEMMAP) and ours-nonmmap, up-nonmmap, dd-read1, dd-read2 (NONMMAP).  Every output is compared
# (busybox cmp) with the first run of ours, then deleted; that one is kept
# as OUTDIR/ours.dump (the -e runs: with ours-e's, OUTDIR/e.dump).  Exit status 0 when every
# run of ours succeeded (upstream's failures are only recorded).
[ $# -eq 0 ] && [ -n "${MDF_BUILD:-}" ] && exit 0   # not a test by itself
VMCORE=${1:-/proc/vmcore}
OUT=${2:-}
if [ -z "$OUT" ] || [ ! -d "$OUT" ] || [ -z "${OURS:-}" ]; then
	echo "measure_hook: usage: OURS=... $0 /proc/vmcore OUTDIR (in the capture kernel)" >&2
	exit 2
fi
PAIRS=${PAIRS:-1}
THREADS=${THREADS:-0}
SAMPLE=${SAMPLE:-1}
WARM=${WARM:-1}
ARGS=${ARGS:--l --message-level 23}
RES=$OUT/results.txt
: > "$RES"
failed=0
note() { echo "$*" >> "$RES"; echo "measure_hook: $*"; }
now() { read up idle < /proc/uptime; echo "$up"; }

note "vmcore_bytes=$(stat -c %s "$VMCORE") cpus=$(grep -c ^processor /proc/cpuinfo)"
note "ours=$("$OURS" -v 2>&1 | head -n 1)"
[ -n "${UPSTREAM:-}" ] && note "upstream=$("$UPSTREAM" -v 2>&1 | head -n 1)"

# tick: wait 20 ms.  A timed read on a FIFO nobody writes is a shell
# builtin; sleep would fork and exec, and on a 1-CPU capture kernel under
# qemu that took a third of the CPU from the run being measured.
tick() { sleep 0.02; }
if mkfifo /tmp/.measure-tick 2>/dev/null && exec 3<>/tmp/.measure-tick; then
	tick() { read -t 0.02 -u 3 _; }
fi

# meminfo: PT and AV get PageTables and MemAvailable (kB).
meminfo() {
	while read k v u; do
		case $k in
		PageTables:) PT=$v ;;
		MemAvailable:) AV=$v ;;
		esac
	done < /proc/meminfo
}

# measure TAG BINARY OPTIONS...: run BINARY OPTIONS -d 31 VMCORE OUT/TAG;
# its dump is compared with OUT/$REF.dump (REF: ours, or e for -e runs).
measure() {
	tag=$1; bin=$2; shift 2
	ref=${REF:-ours}
	sync
	echo 3 > /proc/sys/vm/drop_caches
	meminfo
	pt_base=$PT; av_base=$AV; pt_peak=$PT; av_min=$AV; hwm=0; n=0
	t0=$(now)
	"$bin" $ARGS "$@" -d 31 "$VMCORE" "$OUT/$tag.dump" > "$OUT/$tag.log" 2>&1 &
	pid=$!
	while [ "$SAMPLE" = 1 ]; do
		meminfo
		[ "$PT" -gt "$pt_peak" ] && pt_peak=$PT
		[ "$AV" -lt "$av_min" ] && av_min=$AV
		state=Z
		while read k v u; do
			case $k in
			State:) state=$v ;;
			VmHWM:) hwm=$v ;;
			esac
		done < /proc/$pid/status 2>/dev/null
		n=$((n + 1))
		[ "$state" = Z ] && break
		tick
	done
	wait $pid
	rc=$?
	t1=$(now)
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	# Until the dump is on disk: the sync a kdump script runs after it
	# (ours has synced its file already; 1.7.2 leaves it in the page cache).
	sync
	t2=$(now)
	durable=$(awk -v a="$t0" -v b="$t2" 'BEGIN { printf "%.2f", b - a }')
	c=-
	if [ $rc -eq 0 ] && [ -f "$OUT/$ref.dump" ]; then
		if cmp "$OUT/$ref.dump" "$OUT/$tag.dump" > /dev/null 2>&1; then c=same; else c=differ; fi
	elif [ $rc -eq 0 ] && [ "${tag#ours}" != "$tag" ]; then
		mv "$OUT/$tag.dump" "$OUT/$ref.dump"
	fi
	rm -f "$OUT/$tag.dump"
	note "run=$tag rc=$rc wall=$wall durable=$durable pt_base=$pt_base pt_peak=$pt_peak avail_base=$av_base avail_min=$av_min hwm=$hwm samples=$n cmp=$c"
	case $tag in ours*) [ $rc -eq 0 ] && [ $c != differ ] || failed=1 ;; esac
}

if [ "$WARM" = 1 ]; then
	"$OURS" -F $ARGS -d 31 "$VMCORE" > /dev/null 2> "$OUT/warm.log"
	note "warm.rc=$?"
fi
i=1
while [ $i -le "$PAIRS" ]; do
	measure ours$i "$OURS"
	[ -n "${UPSTREAM:-}" ] && measure up$i "$UPSTREAM"
	i=$((i + 1))
done
[ -n "${HEAD:-}" ] && [ "${HEADRUNS:-0}" = 1 ] && measure head1 "$HEAD"
if [ "$THREADS" -gt 0 ]; then
	measure ours-t$THREADS "$OURS" --num-threads "$THREADS"
	[ -n "${UPSTREAM:-}" ] && measure up-t$THREADS "$UPSTREAM" --num-threads "$THREADS"
	[ -n "${HEAD:-}" ] && [ "${HEADRUNS:-0}" = 1 ] && measure head-t$THREADS "$HEAD" --num-threads "$THREADS"
fi
if [ "${NONMMAP:-0}" = 1 ]; then
	measure ours-nonmmap "$OURS" --non-mmap
	# what it read: "Input: mmap 0, munmap 0, read N (B bytes)"
	note "nonmmap_input=$(sed -n 's/^Input: .*read [0-9]* (\([0-9]*\) bytes).*/\1/p' "$OUT/ours-nonmmap.log")"
	[ -n "${UPSTREAM:-}" ] && measure up-nonmmap "$UPSTREAM" --non-mmap
	# The kernel's read() of /proc/vmcore alone: 1 GiB past the headers,
	# twice (the first pass pays the host's first touch, the second is
	# the capture kernel's own cost: it copies page by page, each page
	# mapped and unmapped, fs/proc/vmcore.c read_from_oldmem()).
	for k in 1 2; do
		sync
		echo 3 > /proc/sys/vm/drop_caches
		t0=$(now)
		dd if="$VMCORE" of=/dev/null bs=262144 skip=64 count=4096 2>/dev/null
		t1=$(now)
		note "run=dd-read$k bytes=1073741824 wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
	done
fi
if [ "${VMEMMAP:-0}" = 1 ]; then
	REF=e measure ours-e "$OURS" -e
	[ -n "${HEAD:-}" ] && REF=e measure head-e "$HEAD" -e --work-dir /tmp
	ls -l "$OUT/e.dump" "$OUT/ours.dump" >> "$RES" 2>&1
	rm -f "$OUT/e.dump"
fi
sync
exit $failed
