#!/bin/bash
# Stop signals and inputs (hostile inputs, round 3, classes 2 and 3):
#  - an input that is not a regular file or a device (a FIFO with no
#    writer, as VMCORE, -i, -x, --config, a split part, the dump of
#    --dump-dmesg) is refused at once with one line naming it, never a
#    hang;
#  - SIGTERM, SIGINT and SIGHUP end a run blocked where it cannot look for
#    them (-R reading a pipe nobody writes, an output FIFO nobody reads,
#    -F into a full pipe) within a second, with one line and the status of
#    the signal sent, and leave no file that looks complete;
#  - no output of any action is an input (VMCORE, -x, -i, --config, a
#    split part, -R's standard input), by any name (a symbolic or hard
#    link, another path), with -f or without; -g obeys -f.  Every input's
#    bytes are the same afterwards.
. "$(dirname "$0")/../lib/lib.sh"
. "$MDF_SRC/tests/lib/genspec.sh"
KOBJ="$MDF_BUILD/tests/gen/kobj"

printf 'kernel 6.1\nram 0x100000 0x4000000\npages 0x2000+64 anon random\n' >"$T/d.spec"
"$GEN" "$T/d.spec" "$T/vmcore" >/dev/null 2>&1 || { notok "stop-gen" "mkvmcore failed"; exit 0; }
python3 - "$T/vmcore" "$T/vi.txt" <<'PY'
import sys
d = open(sys.argv[1], "rb").read(1 << 16)
i = d.find(b"OSRELEASE="); j = d.find(b"\0", i)
open(sys.argv[2], "wb").write(d[i:j])
PY
printf 'erase jiffies\n' >"$T/conf"
sums() { sha256sum "$T/vmcore" "$T/vi.txt" "$T/conf" "$KOBJ" "$@" | awk '{print $1}' | tr '\n' ' '; }
before=$(sums)

# ---- FIFOs as inputs: refused at once ---------------------------------
mkfifo "$T/fifo"
# case NAME EXPECT-IN-MESSAGE ARGS...: rc 1 within 5 s, one line naming the FIFO
refused() {
	local name=$1 want=$2 rc t0
	shift 2
	rm -f "$T/o"
	t0=$(date +%s.%N)
	timeout -s KILL 5 "$MDF" "$@" >/dev/null 2>"$T/err"; rc=$?
	local dt
	dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	if [ $rc -eq 1 ] && grep -q "^makedumpfile: .*$want" "$T/err" && [ ! -e "$T/o" ]; then
		ok "$name (${dt} s: $(head -n 1 "$T/err"))"
	else notok "$name" "rc=$rc after $dt s: $(head -n 2 "$T/err" | tr '\n' ' ')"; fi
}
refused fifo-vmcore "$T/fifo: not a regular file or a device (a FIFO)" -l -d 31 "$T/fifo" "$T/o"
refused fifo-vmcore-dmesg "$T/fifo: not a regular file or a device (a FIFO)" --dump-dmesg "$T/fifo" "$T/o"
refused fifo-vmcore-dry-run "$T/fifo: not a regular file or a device (a FIFO)" --dry-run -d 31 "$T/fifo"
refused fifo-i "$T/fifo: not a VMCOREINFO file" -l -d 31 -i "$T/fifo" "$T/vmcore" "$T/o"
refused fifo-config "$T/fifo: not a" -l -d 31 -x "$KOBJ" --config "$T/fifo" "$T/vmcore" "$T/o"
refused fifo-x "$T/fifo: not a regular file or a device (a FIFO)" -g "$T/o" -x "$T/fifo"
refused fifo-x-dump "$T/fifo: not a regular file or a device (a FIFO)" -l -d 31 -x "$T/fifo" "$T/vmcore" "$T/o"
"$MDF" --message-level 0 -l -d 31 --split "$T/vmcore" "$T/p1" "$T/p2"
refused fifo-split-part "$T/fifo: not a regular file or a device (a FIFO)" --reassemble "$T/p1" "$T/fifo" "$T/o"
refused directory-vmcore "$T: not a regular file or a device (a directory)" -l -d 31 "$T" "$T/o"

# ---- stop signals where the run is blocked -------------------------------
# stopped NAME SIG FILE IN OUT ARGS...: our program with ARGS runs in the
# background with standard input IN (a file or a command's output, "<(...)")
# and standard output OUT, blocked; SIG after 0.5 s must end it within a
# second with 128+SIG, one line, and FILE absent or marked incomplete.
# Job control (set -m): a background job of a script has SIGINT ignored
# otherwise, and we keep a signal that was ignored when we started (nohup).
set -m
stopped() {
	local name=$1 sig=$2 file=$3 in=$4 out=$5 pid rc t0 dt want st why
	shift 5
	rm -f "$file"
	eval "\"\$MDF\" \"\$@\" < $in > $out 2>\"\$T/err\" &"
	pid=$!
	why=$(watching $pid) || notok "$name-watching" "$why"
	sleep 0.3
	t0=$(date +%s.%N)
	kill -s "$sig" $pid 2>/dev/null
	# wait at most 3 s, then kill, so a hang is a failure and not a stuck test
	for _ in $(seq 30); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	kill -0 $pid 2>/dev/null && kill -KILL $pid
	wait $pid; rc=$?
	dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	want=$((128 + $(kill -l "$sig")))
	st=absent
	if [ -e "$file" ]; then
		st=$(python3 - "$file" <<-'PY'
		import struct, sys
		d = open(sys.argv[1], "rb").read(4096)
		if d[:8] == b"KDUMP   ":
		    # status: after signature 8, version 4, utsname 6 x 65, the 16-byte timeval at 408
		    print("incomplete" if struct.unpack_from("<I", d, 424)[0] & 8 else "complete kdump")
		elif d[:4] == b"\x7fELF":
		    print("incomplete" if struct.unpack_from("<I", d, 48)[0] & 1 else "complete ELF")
		elif len(d) == 0:
		    print("empty")
		else:
		    print("other")
		PY
		)
	fi
	if [ $rc -eq $want ] && awk -v d="$dt" 'BEGIN { exit !(d < 1.0) }' &&
		[ "$(grep -c '^makedumpfile' "$T/err")" = 1 ] &&
		{ [ "$st" = absent ] || [ "$st" = incomplete ] || [ "$st" = empty ]; }; then
		ok "$name (rc $rc in $dt s, output $st: $(grep '^makedumpfile' "$T/err"))"
	else
		notok "$name" "rc=$rc (want $want) after $dt s, output $st: $(tr '\n' ' ' <"$T/err" | cut -c1-300)"
	fi
}
# -R reading a pipe that nobody writes (kdump's ssh target hung up)
for sig in TERM INT HUP; do
	stopped "stop-$sig-R-blocked-read" $sig "$T/r.out" "<(sleep 30)" /dev/null -R "$T/r.out"
done
# an output FIFO that nobody reads: the open blocks
rm -f "$T/ofifo"
mkfifo "$T/ofifo"
for sig in TERM INT; do
	stopped "stop-$sig-output-fifo" $sig "$T/nothing" /dev/null /dev/null -f -E -d 31 "$T/vmcore" "$T/ofifo"
done
# -F into a pipe that nobody drains: the write blocks
stopped stop-TERM-F-full-pipe TERM "$T/nothing" /dev/null ">(sleep 30)" -F -E -d 0 "$T/vmcore"
"$MDF" --message-level 0 -F -l -d 0 "$T/vmcore" >"$T/flat"
# a dump into a slow reader's pipe, stopped by SIGHUP
stopped stop-HUP-F-slow-reader HUP "$T/nothing" /dev/null ">(sleep 30)" -F -l -d 0 "$T/vmcore"
set +m

# ---- no output is an input ------------------------------------------------
cp "$KOBJ" "$T/vmlinux"
ln -s "$T/vmlinux" "$T/vmlinux.sym"
ln "$T/vmlinux" "$T/vmlinux.hard"
ln -s "$T/vi.txt" "$T/vi.sym"
ln -s "$T/conf" "$T/conf.sym"
ln -s "$T/vmcore" "$T/vmcore.sym"
ln "$T/p1" "$T/p1.hard"
vbefore=$(sha256sum "$T/vmlinux" "$T/p1" "$T/p2" | awk '{print $1}' | tr '\n' ' ')
# protected NAME ARGS...: rc 1 and "... itself" in one line
protected() {
	local name=$1 rc
	shift
	"$MDF" "$@" >/dev/null 2>"$T/err"; rc=$?
	if [ $rc -eq 1 ] && grep -q "itself" "$T/err"; then ok "$name ($(grep '^makedumpfile' "$T/err" | head -n 1))"
	else notok "$name" "rc=$rc: $(head -n 2 "$T/err" | tr '\n' ' ')"; fi
}
for f in "" -f; do
	for out in vmlinux vmlinux.sym vmlinux.hard; do
		# shellcheck disable=SC2086
		protected "g-out-is-x-$out${f:+-f}" $f -g "$T/$out" -x "$T/vmlinux"
	done
	# shellcheck disable=SC2086
	{
	protected "dump-is-i${f:+-f}" $f -l -d 31 -i "$T/vi.txt" "$T/vmcore" "$T/vi.sym"
	protected "dump-is-config${f:+-f}" $f -l -d 31 -x "$T/vmlinux" --config "$T/conf" "$T/vmcore" "$T/conf.sym"
	protected "dump-is-x${f:+-f}" $f -l -d 31 -x "$T/vmlinux" "$T/vmcore" "$T/vmlinux.hard"
	protected "debug-bitmap-is-i${f:+-f}" $f -l -d 31 -i "$T/vi.txt" --debug-bitmap "$T/vi.txt" "$T/vmcore" "$T/o2"
	protected "split-part-is-config${f:+-f}" $f -l -d 31 -x "$T/vmlinux" --config "$T/conf" --split "$T/vmcore" "$T/o3" "$T/conf.sym"
	protected "dmesg-is-x${f:+-f}" $f --dump-dmesg -x "$T/vmlinux" "$T/vmcore" "$T/vmlinux.sym"
	protected "dmesg-is-vmcore${f:+-f}" $f --dump-dmesg "$T/vmcore" "$T/vmcore.sym"
	protected "reassemble-out-is-part${f:+-f}" $f --reassemble "$T/p1" "$T/p2" "$T/p1.hard"
	}
	# -R OUT < OUT
	# shellcheck disable=SC2086
	"$MDF" $f -R "$T/flat" <"$T/flat" >/dev/null 2>"$T/err"; rc=$?
	if [ $rc -eq 1 ] && grep -q itself "$T/err"; then ok "R-out-is-stdin${f:+-f}"
	else notok "R-out-is-stdin${f:+-f}" "rc=$rc: $(head -n 2 "$T/err" | tr '\n' ' ')"; fi
done
after=$(sums)
vafter=$(sha256sum "$T/vmlinux" "$T/p1" "$T/p2" | awk '{print $1}' | tr '\n' ' ')
if [ "$before" = "$after" ] && [ "$vbefore" = "$vafter" ]; then ok "inputs-unchanged"
else notok "inputs-unchanged" "an input changed"; fi
if [ -L "$T/vmlinux.sym" ] && [ -L "$T/vi.sym" ] && [ -L "$T/conf.sym" ]; then ok "links-left-alone"
else notok "links-left-alone" "a link was replaced"; fi

# ---- -g obeys -f -------------------------------------------------------------
echo "keep me" >"$T/g.txt"
"$MDF" -g "$T/g.txt" -x "$KOBJ" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "already exists (use -f to overwrite it)" "$T/err" && [ "$(cat "$T/g.txt")" = "keep me" ]; then
	ok "g-existing-needs-f"
else notok "g-existing-needs-f" "rc=$rc: $(cat "$T/err")"; fi
"$MDF" -f -g "$T/g.txt" -x "$KOBJ" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && grep -q '^OSRELEASE=' "$T/g.txt"; then ok "g-existing-with-f"
else notok "g-existing-with-f" "rc=$rc: $(cat "$T/err")"; fi
exit 0
