#!/bin/sh
# tests/lab/capture_hook.sh - run INSIDE the kdump capture kernel by the lab
# (../shared/lab/mkvmcore.sh --run-in-capture THIS --capture-bin STATIC_BIN),
# as: capture_hook.sh /proc/vmcore OUTDIR.  Not a test by itself (it has
# no "ok" lines: tests/run.sh, which runs every tests/e2e/*.sh, starts it
# without arguments and it then exits 0 at once).
#
# It filters the live /proc/vmcore with our static makedumpfile the way the
# distributions' kdump scripts do, and leaves in OUTDIR (the host's
# NAME.d/hook/) for tests/e2e/capture.sh to check:
#   vmcore         Fedora's kdump form:
#                  makedumpfile -l --message-level 7 -d 31 /proc/vmcore
#                  OUTDIR/vmcore-incomplete, renamed to vmcore on success
#   flat           Debian's remote form: makedumpfile -F -c -d 31 > flat
#   report.txt     the same -l -d 31 dump again at message level 31: its
#                  final report has "Input: mmap N, munmap N, read N",
#                  the evidence that /proc/vmcore was mmap()ed
#   report-read.txt  the same with --non-mmap (read(2) only)
#   memusage.txt   makedumpfile --mem-usage /proc/kcore: the capture
#                  kernel's own live memory, with iomem.txt and
#                  meminfo-before.txt / meminfo-after.txt (what the kernel
#                  says of itself around that run) to compare it with
#   kcore.l        makedumpfile -l -d 31 /proc/kcore: the capture kernel's
#                  own live memory as a dump (kcore.log: its messages at
#                  level 31, with the final report), after a marker line
#                  written to /dev/kmsg; kcore-dmesg.txt: dmesg right after
#   results.txt    one "key=value" line per step (rc, seconds, cmp results)
# The output of the two extra runs is compared with vmcore here (busybox cmp)
# and deleted.  Exit status: 0 when every step succeeded.
[ $# -eq 0 ] && [ -n "${MDF_BUILD:-}" ] && exit 0   # started by tests/run.sh
VMCORE=${1:-/proc/vmcore}
OUT=${2:-}
if [ -z "$OUT" ] || [ ! -d "$OUT" ] || [ ! -e "$VMCORE" ]; then
	echo "capture_hook: usage: $0 /proc/vmcore OUTDIR (run in the capture kernel by mkvmcore.sh)" >&2
	exit 2
fi
RES=$OUT/results.txt
: > "$RES"
failed=0
note() { echo "$*" >> "$RES"; echo "capture_hook: $*"; }
now() { cut -d' ' -f1 /proc/uptime; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", b-a}'; }

# mkvmcore.sh copies a --capture-bin to the same absolute path as on the
# host, which depends on where the tree is checked out: look for it on the
# initramfs (rootfs only; /proc, /sys, /dev and /out are other mounts).
M=${MDF_CAPTURE_BIN:-}
if [ -z "$M" ]; then
	for c in $(find / -xdev -type f -name makedumpfile 2>/dev/null); do
		[ -x "$c" ] || continue
		case "$c" in */static/makedumpfile) M=$c; break ;; esac
		[ -n "$M" ] || M=$c
	done
fi
if [ -z "$M" ]; then
	note "binary=none"
	echo "capture_hook: no makedumpfile on the capture initramfs (pass --capture-bin)" >&2
	exit 1
fi
note "binary=$M"
"$M" -v > "$OUT/version.txt" 2>&1
note "vmcore_bytes=$(stat -c %s "$VMCORE")"

# step NAME COMMAND...: run it, record rc and time.
step() {
	name=$1; shift
	t0=$(now)
	"$@"
	rc=$?
	note "$name.rc=$rc $name.seconds=$(secs "$t0" "$(now)")"
	[ $rc -eq 0 ] || failed=1
	return $rc
}

# 1. Fedora (kdumpctl / kdump-lib): write to vmcore-incomplete, then rename.
fedora() {
	"$M" -l --message-level 7 -d 31 "$VMCORE" "$OUT/vmcore-incomplete" \
		> "$OUT/fedora.log" 2>&1 &&
		sync && mv "$OUT/vmcore-incomplete" "$OUT/vmcore"
}
step fedora fedora

# 2. Debian (kdump-config, remote targets): flattened stream on stdout.
debian() {
	"$M" -F -c -d 31 "$VMCORE" > "$OUT/flat" 2> "$OUT/debian.log"
}
step debian debian

# 3. mmap evidence: the same dump at message level 31 (final report).
# 4. The read(2) path (--non-mmap) on the same live file.
# Both outputs must equal the Fedora dump byte for byte.
again() { # TAG OPTIONS...
	tag=$1; shift
	"$M" -l --message-level 31 "$@" -d 31 "$VMCORE" "$OUT/vmcore-$tag" \
		> "$OUT/$tag.txt" 2>&1
}
for tag in report report-read; do
	opt=""
	[ $tag = report-read ] && opt=--non-mmap
	if step "$tag" again "$tag" $opt; then
		if [ ! -f "$OUT/vmcore" ]; then note "$tag.cmp=no-fedora-dump"
		elif cmp "$OUT/vmcore" "$OUT/vmcore-$tag" > "$OUT/$tag.cmp" 2>&1; then
			note "$tag.cmp=same"; rm -f "$OUT/$tag.cmp"
		else
			note "$tag.cmp=differ $(head -n 1 "$OUT/$tag.cmp")"; failed=1
		fi
	fi
	rm -f "$OUT/vmcore-$tag"
done
# 5. --mem-usage on a live /proc/kcore (this kernel's; the sizing step of
# kdump users, run by hand in the first kernel).
if [ -r /proc/kcore ]; then
	memusage() {
		"$M" --mem-usage /proc/kcore > "$OUT/memusage.txt" 2> "$OUT/memusage.log"
	}
	cat /proc/iomem > "$OUT/iomem.txt"
	cat /proc/meminfo > "$OUT/meminfo-before.txt"
	step memusage memusage
	cat /proc/meminfo > "$OUT/meminfo-after.txt"
else
	note "memusage=no-kcore"
fi
# 6. A dump of the live /proc/kcore (issue 28: kcore as a full input).  Its
# status is kcoredump.status, not a step's rc: capture.sh judges it (a live
# system may lose a page, which is exit status 1 by design).
if [ -r /proc/kcore ]; then
	echo "MDF-KCORE-MARKER before the /proc/kcore dump" > /dev/kmsg 2>/dev/null
	t0=$(now)
	"$M" -l --message-level 31 -d 31 /proc/kcore "$OUT/kcore.l" > "$OUT/kcore.log" 2>&1
	rc=$?
	dmesg > "$OUT/kcore-dmesg.txt" 2>/dev/null
	note "kcoredump.status=$rc kcoredump.seconds=$(secs "$t0" "$(now)")"
	note "kcore_input=$(grep '^Input:' "$OUT/kcore.log" | head -n 1)"
fi
note "input_mmap=$(grep '^Input:' "$OUT/report.txt" | head -n 1)"
note "input_read=$(grep '^Input:' "$OUT/report-read.txt" | head -n 1)"
sync
ls -l "$OUT"
exit $failed
