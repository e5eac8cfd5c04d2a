#!/bin/bash
# Outputs that must not lie (issue "Hostile inputs, round 3", class 4).
# Every writer -- kdump, ELF, flattened, --split, --reassemble, -R, -g,
# --dump-dmesg -- leaves a file that is whole, or marked incomplete (kdump
# status bit 0x8, ELF e_flags bit 0), or no file at all (the text ones,
# written under a temporary name and renamed at the end); an input marked
# incomplete gives an output marked incomplete; a run that produced
# nothing usable exits non-zero.  Each failing case checks: the exit
# status (1, or 128 + the signal sent when the signal came before the
# run could watch for it -- never another signal), exactly one
# "makedumpfile: ..." line, naming the file at fault, and what is left.
#
# Stops are made with SIGTERM/SIGHUP/SIGINT/SIGKILL while the run is slowed
# down: by strace delaying every read or write system call (skipped
# without strace), or by a FIFO that holds back the rest of a stream.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
KOBJ="$MDF_BUILD/tests/gen/kobj"
HAVE_STRACE=0
if command -v strace >/dev/null && strace -f -qq -o /dev/null true 2>/dev/null; then
	HAVE_STRACE=1
fi

# mark FILE: none (no file), marked, clear, or other (no dump header).
mark() {
	python3 - "$1" <<'PY'
import os, struct, sys
p = sys.argv[1]
if not os.path.exists(p):
    print("none"); sys.exit()
h = open(p, "rb").read(512)
if h[:8] == b"KDUMP   ":
    big = h[8] == 0 and h[11] != 0
    st, = struct.unpack_from(">I" if big else "<I", h, 424)
    print("marked" if st & 8 else "clear")
elif h[:4] == b"\x7fELF" and len(h) >= 52:
    fl, = struct.unpack_from(">I" if h[5] == 2 else "<I", h, 48 if h[4] == 2 else 36)
    print("marked" if fl & 1 else "clear")
else:
    print("other")
PY
}

# pages FILE: "written N lost M" from a kdump file's descriptors (of a
# split part: those of its range).
pages() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
sub, = struct.unpack_from("<i", d, 432); bb, = struct.unpack_from("<I", d, 436)
desc = (1 + sub + bb) * 4096; half = bb * 4096 // 2; bm2 = (1 + sub) * 4096 + half
split, = struct.unpack_from("<i", d, 4096 + 12)
lo, hi = struct.unpack_from("<QQ", d, 4096 + 80) if split else (0, half * 8)
n = sum(1 for p in range(lo, hi) if d[bm2 + p // 8] >> (p % 8) & 1)
lost = sum(1 for i in range(n) if desc + 24 * i + 24 > len(d) or
           struct.unpack_from("<q", d, desc + 24 * i)[0] == 0)
print("written %d lost %d" % (n - lost, lost))
PY
}

# setflag FILE: set the incomplete mark in a kdump or ELF file's header.
setflag() {
	python3 - "$1" <<'PY'
import struct, sys
f = open(sys.argv[1], "r+b"); h = f.read(64)
at, bit = (424, 8) if h[:8] == b"KDUMP   " else (48, 1)
f.seek(at); v, = struct.unpack("<I", f.read(4)); f.seek(at); f.write(struct.pack("<I", v | bit))
PY
}

# fails NAME RC SIG NAMED LEFT...: a failed run (stderr in $T/err).  RC
# must be 1, or 128+SIG when SIG (a name, or -) was sent; one
# "makedumpfile:" line that names NAMED; every LEFT file absent or
# marked incomplete.  Extra words after NAMED in $WANT must be in it.
fails() {
	local name=$1 rc=$2 sig=$3 named=$4 why="" f m n
	shift 4
	if [ "$rc" -ge 128 ]; then
		[ "$sig" != - ] && [ "$rc" -eq $((128 + $(kill -l "$sig"))) ] ||
			why="exit status $rc: killed by SIG$(kill -l $((rc - 128)) 2>/dev/null)"
	elif [ "$rc" -ne 1 ]; then
		why="exit status $rc, want 1"
	fi
	n=$(grep -c '^makedumpfile: ' "$T/err")
	if [ -z "$why" ] && [ "$rc" -lt 128 ]; then
		if [ "$n" -ne 1 ]; then why="$n error lines: $(grep '^makedumpfile: ' "$T/err" | head -3 | tr '\n' '|')"
		elif ! grep '^makedumpfile: ' "$T/err" | grep -qF -- "$named"; then
			why="the message does not name $named: $(grep '^makedumpfile: ' "$T/err")"
		elif [ -n "${WANT:-}" ] && ! grep '^makedumpfile: ' "$T/err" | grep -qF -- "$WANT"; then
			why="the message lacks '$WANT': $(grep '^makedumpfile: ' "$T/err")"
		fi
	fi
	for f in "$@"; do
		m=$(mark "$f")
		case "$m" in none | marked) ;; *) why="${why:+$why; }$f is left $m" ;; esac
	done
	if [ -z "$why" ]; then ok "$name (rc $rc$( for f in "$@"; do printf ', %s %s' "$(basename "$f")" "$(mark "$f")"; done))"
	else notok "$name" "$why"; fi
	WANT=""
}

# no_temp NAME DIR: no temporary file (".X.incomplete.PID.N") left in DIR.
no_temp() {
	local left
	left=$(find "$2" -maxdepth 1 -name '.*.incomplete.*' -printf '%f ')
	if [ -n "$left" ]; then notok "$1" "left: $left"; else ok "$1"; fi
}

# slow SIG OUT CMD...: CMD under strace, each read/write system call
# ($CALLS, default pread64 pwrite64 read write) delayed by $DELAY
# microseconds (3000), SIG sent $WAIT seconds (0.5)
# after OUT exists and has $MINSIZE bytes; OUT "tmp:DIR": once a
# temporary file (.X.incomplete.PID.N) is in DIR; "-": after the start.  Sets rc; messages in $T/err.
slow() {
	local sig=$1 out=$2 sp pid="" d=${DELAY:-3000} calls=${CALLS:-pread64 pwrite64 read write} c
	local inject=()
	shift 2
	for c in $calls; do inject+=(-e "inject=$c:delay_enter=$d"); done
	strace -f -qq -o /dev/null -e "trace=${calls// /,}" "${inject[@]}" \
		"$@" >"$T/out" 2>"$T/err" &
	sp=$!
	for _ in $(seq 400); do
		pid=$(pgrep -P "$sp" | head -n1)
		if [ -n "$pid" ]; then
			case "$out" in
			-) watching "$pid" >/dev/null && break ;;
			tmp:*) [ -n "$(find "${out#tmp:}" -maxdepth 1 -name '.*.incomplete.*')" ] && break ;;
			*) [ "$(stat -c %s "$out" 2>/dev/null || echo -1)" -ge "${MINSIZE:-0}" ] && break ;;
			esac
		fi
		sleep 0.05
	done
	sleep "${WAIT:-0.5}"
	[ -n "$pid" ] && kill -"$sig" "$pid" 2>/dev/null
	wait "$sp"
	rc=$?
}

# A 128 MiB machine with 40 MiB of random pages and a kernel log.
cat >"$T/spec" <<'SPEC'
kernel 6.12
ram 0x100000 0x8000000
pages 0x4000+8192 anon random 1
pages 0x2000+2048 cache text 2
dmesg hello world from the crashed kernel
dmesg second line
SPEC
"$GEN" "$T/spec" "$T/vm" >/dev/null 2>&1 || { notok "hostile-outputs-vmcore" "mkvmcore failed"; exit 0; }
"$MDF" --message-level 0 -l -d 0 "$T/vm" "$T/whole.kd" || { notok "hostile-outputs-dump" "no dump"; exit 0; }
"$MDF" --message-level 0 -l -d 0 --split "$T/vm" "$T/p1" "$T/p2" || { notok "hostile-outputs-split" "no split"; exit 0; }

# ---- a. --reassemble interrupted ---------------------------------------
if [ $HAVE_STRACE = 1 ]; then
	for sig in TERM HUP; do
		rm -f "$T/ra"
		DELAY=300 slow $sig "$T/ra" "$MDF" --reassemble "$T/p1" "$T/p2" "$T/ra"
		WANT="the dump is incomplete (" fails "reassemble-sig$sig-marked" $rc $sig "$T/ra" "$T/ra"
		if [ -e "$T/ra" ]; then
			said=$(sed -n 's/.*incomplete (\([0-9]*\) of .*/\1/p' "$T/err")
			got=$(pages "$T/ra")
			if [[ "$got" == "written $said "* ]] && [ "$said" != 0 ]; then ok "reassemble-sig$sig-count-matches ($got)"
			else notok "reassemble-sig$sig-count-matches" "message says $said, the file has $got"; fi
		fi
	done
	rm -f "$T/ra"
	DELAY=300 slow KILL "$T/ra" "$MDF" --reassemble "$T/p1" "$T/p2" "$T/ra"
	if [ $rc -eq 137 ] && [ "$(mark "$T/ra")" = marked ]; then ok "reassemble-sigkill-leaves-mark"
	else notok "reassemble-sigkill-leaves-mark" "rc=$rc, $(mark "$T/ra")"; fi
else
	skip "reassemble-signals" "no usable strace"
fi
# A part cut short (not marked): refused by name, nothing that looks whole.
size=$(stat -c %s "$T/p2")
head -c $((size - 5000)) "$T/p2" >"$T/p2cut"
rm -f "$T/rc"
"$MDF" --reassemble "$T/p1" "$T/p2cut" "$T/rc" >"$T/out" 2>"$T/err"
WANT="past end of file" fails "reassemble-part-cut-in-data" $? - "$T/p2cut" "$T/rc"
head -c 20000 "$T/p2" >"$T/p2cut2"
rm -f "$T/rc"
"$MDF" --reassemble "$T/p1" "$T/p2cut2" "$T/rc" >"$T/out" 2>"$T/err"
fails "reassemble-part-cut-in-descriptors" $? - "$T/p2cut2" "$T/rc"
if [ "$(mark "$T/rc")" = none ]; then ok "reassemble-part-cut-in-descriptors-no-file"
else notok "reassemble-part-cut-in-descriptors-no-file" "$T/rc left"; fi
# The whole set still merges to the direct dump, its mark cleared.
rm -f "$T/rw"
if "$MDF" --message-level 0 --reassemble "$T/p2" "$T/p1" "$T/rw" && cmp -s "$T/rw" "$T/whole.kd" &&
	[ "$(mark "$T/rw")" = clear ]; then ok "reassemble-whole-set-clear"
else notok "reassemble-whole-set-clear" "$(mark "$T/rw")"; fi

# ---- b. an input marked incomplete gives an output marked incomplete ----
cp "$T/whole.kd" "$T/inc.kd"
setflag "$T/inc.kd"
for fmt in -l -c; do
	rm -f "$T/rf"
	"$MDF" $fmt -d 31 "$T/inc.kd" "$T/rf" >"$T/out" 2>"$T/err"
	rc=$?
	WANT="its input is marked incomplete" fails "refilter-incomplete-input$fmt-keeps-mark" $rc - "$T/rf" "$T/rf"
	if [ "$(mark "$T/rf")" = marked ] && grep -q "^$T/inc.kd: the dump is marked incomplete" "$T/out"; then
		ok "refilter-incomplete-input$fmt-warns-and-keeps-file"
	else notok "refilter-incomplete-input$fmt-warns-and-keeps-file" "$(mark "$T/rf"): $(head -n2 "$T/out")"; fi
done
rm -f "$T/s1" "$T/s2"
"$MDF" -l -d 31 --split "$T/inc.kd" "$T/s1" "$T/s2" >"$T/out" 2>"$T/err"
rc=$?
WANT="2 of 2 split parts are incomplete" fails "refilter-incomplete-input-split-every-part" $rc - "$T/s1" "$T/s1" "$T/s2"
if [ "$(mark "$T/s1")$(mark "$T/s2")" = markedmarked ]; then ok "refilter-incomplete-input-split-both-written"
else notok "refilter-incomplete-input-split-both-written" "$(mark "$T/s1") $(mark "$T/s2")"; fi
"$MDF" -F -l -d 31 "$T/inc.kd" >"$T/inc.flat" 2>"$T/err"
rc=$?
WANT="its input is marked incomplete" fails "refilter-incomplete-input-F" $rc - "standard output"
rm -f "$T/rr"
"$MDF" -R "$T/rr" <"$T/inc.flat" >"$T/out" 2>"$T/err"
rc=$?
WANT="the dump in standard input is marked incomplete" fails "R-of-incomplete-stream-keeps-mark" $rc - "$T/rr" "$T/rr"
if [ "$(mark "$T/rr")" = marked ] && grep -q "^standard input: the dump in the flattened stream is marked incomplete" "$T/out"; then
	ok "R-of-incomplete-stream-warns"
else notok "R-of-incomplete-stream-warns" "$(mark "$T/rr"): $(cat "$T/out")"; fi
# ELF: an -E dump marked incomplete (e_flags bit 0), refiltered to kdump
# and to ELF.
"$MDF" --message-level 0 -E -d 31 "$T/vm" "$T/whole.elf"
cp "$T/whole.elf" "$T/inc.elf"
setflag "$T/inc.elf"
for fmt in -l -E; do
	rm -f "$T/ef"
	"$MDF" $fmt -d 31 "$T/inc.elf" "$T/ef" >"$T/out" 2>"$T/err"
	rc=$?
	WANT="its input is marked incomplete" fails "refilter-incomplete-elf$fmt" $rc - "$T/ef" "$T/ef"
	[ "$(mark "$T/ef")" = marked ] && ok "refilter-incomplete-elf$fmt-marked" ||
		notok "refilter-incomplete-elf$fmt-marked" "$(mark "$T/ef")"
done
# --reassemble of a set with a part marked incomplete: merged, marked,
# a warning naming the part, exit 1.
cp "$T/p2" "$T/p2inc"
setflag "$T/p2inc"
rm -f "$T/ri"
"$MDF" --reassemble "$T/p1" "$T/p2inc" "$T/ri" >"$T/out" 2>"$T/err"
rc=$?
WANT="p2inc is marked incomplete" fails "reassemble-incomplete-part-marks" $rc - "$T/ri" "$T/ri"
if [ "$(mark "$T/ri")" = marked ] && grep -q "^$T/p2inc: this part is marked incomplete" "$T/out"; then
	ok "reassemble-incomplete-part-warns"
else notok "reassemble-incomplete-part-warns" "$(mark "$T/ri"): $(cat "$T/out")"; fi
# A real incomplete part: --split stopped by SIGTERM; its lost pages stay
# lost in the merged dump.
if [ $HAVE_STRACE = 1 ]; then
	rm -f "$T/q1" "$T/q2"
	"$MDF" --message-level 0 -l -d 0 --split "$T/vm" "$T/q1" "$T/q2"
	rm -f "$T/q2"
	slow TERM "$T/q2" "$MDF" -l -d 0 --split "$T/vm" "$T/q1x" "$T/q2"
	WANT="stopped by SIGTERM" fails "split-sigterm-marks-part" $rc TERM "$T/q2" "$T/q2"
	rm -f "$T/rq"
	"$MDF" --reassemble "$T/q1" "$T/q2" "$T/rq" >"$T/out" 2>"$T/err"
	rc=$?
	WANT="pages were lost in the input already" fails "reassemble-cut-part-keeps-lost" $rc - "$T/rq" "$T/rq"
	a=$(pages "$T/q2" | sed 's/written [0-9]* //'); b=$(pages "$T/rq" | sed 's/written [0-9]* //')
	[ "$a" = "$b" ] && ok "reassemble-cut-part-lost-pages-carried ($b)" ||
		notok "reassemble-cut-part-lost-pages-carried" "part: $a, merged: $b"
else
	skip "split-sigterm" "no usable strace"
fi

# ---- c. -R of streams that hold no usable dump ---------------------------
python3 - "$T" <<'PY'
import struct, sys
t = sys.argv[1]
hdr = b"makedumpfile".ljust(16, b"\0") + struct.pack(">qq", 1, 1) + bytes(4096 - 32)
end = struct.pack(">qq", -1, -1)
def rec(off, data): return struct.pack(">qq", off, len(data)) + data
kd = open(t + "/whole.kd", "rb").read()
open(t + "/c-empty.flat", "wb").write(hdr + end)
open(t + "/c-hdronly.flat", "wb").write(hdr)
open(t + "/c-dumphdr.flat", "wb").write(hdr + rec(0, kd[:8192]) + end)
open(t + "/c-notdump.flat", "wb").write(hdr + rec(0, b"x" * 9000) + end)
# the whole file in 64 KiB records, its header without the mark (as
# upstream's -F writes it), and the same with one record left out
recs = [rec(o, kd[o:o + 65536]) for o in range(0, len(kd), 65536)]
open(t + "/c-whole.flat", "wb").write(hdr + b"".join(recs) + end)
open(t + "/c-hole.flat", "wb").write(hdr + b"".join(recs[:len(recs) // 2] + recs[len(recs) // 2 + 1:]) + end)
open(t + "/c-noend.flat", "wb").write(hdr + b"".join(recs))
PY
R_() { # NAME STREAM WANT: -R fails, leaves no file
	rm -f "$T/ro"
	"$MDF" -R "$T/ro" <"$2" >"$T/out" 2>"$T/err"
	local rc=$?
	WANT="$3" fails "$1" $rc - "standard input"
	[ ! -e "$T/ro" ] && ok "$1-no-file" || notok "$1-no-file" "$T/ro left ($(mark "$T/ro"))"
}
R_ R-empty-stream "$T/c-empty.flat" "standard input: flattened stream ends after the header: no page data"
R_ R-header-only-stream "$T/c-hdronly.flat" "no end marker"
R_ R-dump-header-only "$T/c-dumphdr.flat" "holds no page data"
R_ R-not-a-dump "$T/c-notdump.flat" "holds no dump"
R_ R-devnull /dev/null "standard input is empty"
rm -f "$T/ro"
if "$MDF" --message-level 0 -R "$T/ro" <"$T/c-whole.flat" && cmp -s "$T/ro" "$T/whole.kd"; then ok "R-whole-unmarked-stream"
else notok "R-whole-unmarked-stream" "$(mark "$T/ro")"; fi
for c in hole noend; do
	rm -f "$T/ro"
	"$MDF" -R "$T/ro" <"$T/c-$c.flat" >"$T/out" 2>"$T/err"
	rc=$?
	WANT="holds what came before, marked incomplete" fails "R-$c-kept-marked" $rc - "standard input" "$T/ro"
done
# SIGTERM while -R waits for the rest of a stream: a message, what came
# kept and marked; SIGHUP before a page came: no file.  SIGKILL: the
# header says incomplete although the stream's does not (the mark is
# forced until the end).
mkfifo "$T/fifo"
for c in TERM:8000000 HUP:6000 KILL:8000000; do
	sig=${c%%:*} n=${c#*:}
	rm -f "$T/ro"
	(head -c "$n" "$T/c-whole.flat"; exec sleep 30) >"$T/fifo" &
	feeder=$!
	"$MDF" -R "$T/ro" <"$T/fifo" >"$T/out" 2>"$T/err" &
	rp=$!
	for _ in $(seq 100); do [ -e "$T/ro" ] && break; sleep 0.05; done
	sleep 0.5
	kill "-$sig" "$rp"
	wait "$rp"
	rc=$?
	kill $feeder 2>/dev/null
	wait $feeder 2>/dev/null
	if [ "$sig" = KILL ]; then
		if [ $rc -eq 137 ] && [ "$(mark "$T/ro")" = marked ]; then ok "R-sigkill-mark-forced"
		else notok "R-sigkill-mark-forced" "rc=$rc $(mark "$T/ro")"; fi
		continue
	fi
	WANT="stopped by SIG$sig" fails "R-sig$sig" "$rc" "$sig" "standard input" "$T/ro"
	if [ "$n" -gt 100000 ]; then
		[ "$(mark "$T/ro")" = marked ] && ok "R-sig$sig-kept-marked" || notok "R-sig$sig-kept-marked" "$(mark "$T/ro")"
	else
		[ ! -e "$T/ro" ] && ok "R-sig$sig-no-page-no-file" || notok "R-sig$sig-no-page-no-file" "$(mark "$T/ro")"
	fi
done

# ---- d. --dump-dmesg of a dump whose log cannot be read -----------------
"$MDF" --message-level 0 -l -d 31 "$T/vm" "$T/d31.kd"
python3 - "$T/d31.kd" "$T/vm" "hello world" <<'PY'
# zero the descriptor of the page that holds the log's text, mark the dump
# incomplete: the text is lost, the log's descriptors are not
import struct, sys
kd, elf, needle = sys.argv[1], sys.argv[2], sys.argv[3].encode()
e = open(elf, "rb").read()
phoff, = struct.unpack_from("<Q", e, 32); phn, = struct.unpack_from("<H", e, 56)
at = e.find(needle); pfn = None
for i in range(phn):
    t, f, off, va, pa, fs, ms, al = struct.unpack_from("<IIQQQQQQ", e, phoff + 56 * i)
    if t == 1 and off <= at < off + fs: pfn = (pa + at - off) // 4096
d = bytearray(open(kd, "rb").read())
sub, = struct.unpack_from("<i", d, 432); bb, = struct.unpack_from("<I", d, 436)
half = bb * 4096 // 2; bm2 = (1 + sub) * 4096 + half; desc = (1 + sub + bb) * 4096
rank = sum(bin(b).count("1") for b in d[bm2:bm2 + pfn // 8]) + \
       bin(d[bm2 + pfn // 8] & ((1 << (pfn % 8)) - 1)).count("1")
d[desc + 24 * rank:desc + 24 * rank + 24] = bytes(24)
st, = struct.unpack_from("<I", d, 424); struct.pack_into("<I", d, 424, st | 8)
open(kd, "wb").write(d)
PY
mkdir -p "$T/dm"
"$MDF" --dump-dmesg "$T/d31.kd" "$T/dm/log" >"$T/out" 2>"$T/err"
rc=$?
WANT="the kernel log cannot be read whole" fails "dmesg-text-lost-fails" $rc - "$T/d31.kd" "$T/dm/log"
[ ! -e "$T/dm/log" ] && ok "dmesg-text-lost-no-file" || notok "dmesg-text-lost-no-file" "$(wc -c <"$T/dm/log") bytes left"
grep -q "^$T/d31.kd: the dump is marked incomplete" "$T/out" && ok "dmesg-incomplete-input-warns" ||
	notok "dmesg-incomplete-input-warns" "$(cat "$T/out")"
no_temp "dmesg-text-lost-no-temp" "$T/dm"
# The same with -F (the text on standard output, as SUSE's kdump-save
# runs it): nothing written, since it cannot be taken back.
"$MDF" -F --dump-dmesg "$T/d31.kd" >"$T/dm/stdout" 2>"$T/err"
rc=$?
WANT="the kernel log cannot be read whole" fails "dmesg-F-text-lost-fails" $rc - "$T/d31.kd"
[ ! -s "$T/dm/stdout" ] && ok "dmesg-F-text-lost-writes-nothing" ||
	notok "dmesg-F-text-lost-writes-nothing" "$(wc -c <"$T/dm/stdout") bytes on standard output"
rm -f "$T/dm/stdout"
# -L: the text does not fit; nothing left, not even the temporary file.
"$MDF" -L 10 --dump-dmesg "$T/vm" "$T/dm/log" >"$T/out" 2>"$T/err"
WANT="no space left for the dmesg log" fails "dmesg-limit-no-file" $? - "$T/dm/log" "$T/dm/log"
no_temp "dmesg-limit-no-temp" "$T/dm"
# Whole: saved; again without -f refused (the first kept); with -f replaced.
if "$MDF" --message-level 0 --dump-dmesg "$T/vm" "$T/dm/log" && grep -q "hello world" "$T/dm/log"; then ok "dmesg-whole"
else notok "dmesg-whole" "$(cat "$T/dm/log" 2>&1)"; fi
echo "precious" >"$T/dm/log"
"$MDF" --dump-dmesg "$T/vm" "$T/dm/log" >"$T/out" 2>"$T/err"
WANT="already exists" fails "dmesg-existing-needs-f" $? - "$T/dm/log"
[ "$(cat "$T/dm/log")" = precious ] && ok "dmesg-existing-untouched" || notok "dmesg-existing-untouched" "changed"
"$MDF" --message-level 0 -f --dump-dmesg "$T/vm" "$T/dm/log" && grep -q "second line" "$T/dm/log" &&
	ok "dmesg-f-replaces" || notok "dmesg-f-replaces" "$(cat "$T/dm/log")"
no_temp "dmesg-no-temp-left" "$T/dm"
if [ $HAVE_STRACE = 1 ]; then
	rm -f "$T/dm/log"
	# Signalled once its temporary file is there: each read after it
	# takes 0.2 s.
	CALLS=pread64 DELAY=200000 WAIT=0.05 slow TERM "tmp:$T/dm" "$MDF" --mmap=never --dump-dmesg "$T/vm" "$T/dm/log"
	fails "dmesg-sigterm-no-file" $rc TERM "stopped by SIGTERM" "$T/dm/log"
	[ ! -e "$T/dm/log" ] && ok "dmesg-sigterm-nothing-left" || notok "dmesg-sigterm-nothing-left" "$T/dm/log left"
	no_temp "dmesg-sigterm-no-temp" "$T/dm"
fi

# ---- e. --reassemble refuses page descriptors a reader would refuse -----
# edit PART INDEX FIELD VALUE: set descriptor INDEX's offset/size/flags.
edit() {
	python3 - "$@" <<'PY'
import struct, sys
p, i, field, val = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4], 0)
d = bytearray(open(p, "rb").read())
sub, = struct.unpack_from("<i", d, 432); bb, = struct.unpack_from("<I", d, 436)
at = (1 + sub + bb) * 4096 + 24 * i + {"offset": 0, "size": 8, "flags": 12}[field]
struct.pack_into("<q" if field == "offset" else "<I", d, at, val)
open(p, "wb").write(d)
PY
}
for c in "flags 0x40 unknown flags 0x40" "flags 0x3 unknown flags 0x3" \
	 "size 0x800 raw data of 0x800 bytes" "offset 0x1000 before the data area" \
	 "size 0 data size 0"; do
	# shellcheck disable=SC2086 # the case: FIELD VALUE WANTED-TEXT
	set -- $c
	field=$1 val=$2 want="${c#"$1 $2 "}"
	cp "$T/p2" "$T/pe"
	edit "$T/pe" 100 "$field" "$val"
	rm -f "$T/re"
	"$MDF" --reassemble "$T/p1" "$T/pe" "$T/re" >"$T/out" 2>"$T/err"
	rc=$?
	WANT="$want" fails "reassemble-bad-desc-$field-$val" $rc - "$T/pe: pfn 0x" "$T/re"
done
# A descriptor that claims the shared zero page's offset with other bytes.
"$MDF" --message-level 0 -l -d 1 --split "$T/vm" "$T/z1" "$T/z2"
zoff=$(python3 -c "
import struct,sys; d=open(sys.argv[1],'rb').read(); sub,=struct.unpack_from('<i',d,432); bb,=struct.unpack_from('<I',d,436)
half=bb*4096//2; bm2=(1+sub)*4096+half; n=sum(bin(b).count('1') for b in d[bm2:bm2+half]); print((1+sub+bb)*4096+24*n)" "$T/z2")
cp "$T/z2" "$T/z2e"
edit "$T/z2e" 5 offset "$zoff"
edit "$T/z2e" 5 flags 2
rm -f "$T/re"
"$MDF" --reassemble "$T/z1" "$T/z2e" "$T/re" >"$T/out" 2>"$T/err"
WANT="the shared zero page's offset" fails "reassemble-fake-zero-page" $? - "$T/z2e: pfn 0x" "$T/re"
# A shared zero page that is not zeros: the merged dump would read other
# bytes than the part did.
cp "$T/z2" "$T/z2e"
printf 'XYZ' | dd of="$T/z2e" bs=1 seek=$((zoff + 100)) conv=notrunc status=none
rm -f "$T/re"
"$MDF" --reassemble "$T/z1" "$T/z2e" "$T/re" >"$T/out" 2>"$T/err"
WANT="is not zeros" fails "reassemble-zero-page-not-zeros" $? - "$T/z2e: pfn 0x" "$T/re"

# ---- f. -g: written whole under its name, or not at all -----------------
mkdir -p "$T/g"
if "$MDF" --message-level 0 -g "$T/g/vi" -x "$KOBJ" && grep -q "^OSRELEASE=" "$T/g/vi"; then ok "g-whole"
else notok "g-whole" "$(head -n1 "$T/g/vi" 2>&1)"; fi
"$MDF" -g "$T/g/vi" -x "$KOBJ" >"$T/out" 2>"$T/err"
WANT="already exists (use -f to overwrite it)" fails "g-existing-needs-f" $? - "$T/g/vi"
"$MDF" --message-level 0 -f -g "$T/g/vi" -x "$KOBJ" && ok "g-f-replaces" || notok "g-f-replaces" "rc=$?"
"$MDF" -f -g /dev/full -x "$KOBJ" >"$T/out" 2>"$T/err"
fails "g-dev-full" $? - "/dev/full"
no_temp "g-no-temp-left" "$T/g"
if [ "$(id -u)" != 0 ]; then
	mkdir -p "$T/g/ro" && chmod 555 "$T/g/ro"
	"$MDF" -g "$T/g/ro/vi" -x "$KOBJ" >"$T/out" 2>"$T/err"
	fails "g-unwritable-dir" $? - "$T/g/ro/vi" "$T/g/ro/vi"
fi
if [ $HAVE_STRACE = 1 ]; then
	rm -f "$T/g/vi"
	# Signalled while it reads the vmlinux (each pread 1 s): the stop
	# thread ends it after its grace, removing the temporary file.
	CALLS=pread64 DELAY=1000000 WAIT=0.3 slow TERM - "$MDF" -g "$T/g/vi" -x "$KOBJ"
	WANT="$T/g/vi" fails "g-sigterm-no-file" $rc TERM "stopped by SIGTERM" "$T/g/vi"
	[ ! -e "$T/g/vi" ] && ok "g-sigterm-nothing-left" || notok "g-sigterm-nothing-left" "$T/g/vi left"
	no_temp "g-sigterm-no-temp" "$T/g"
fi

# ---- g. ELF, flattened and split writers stopped ------------------------
if [ $HAVE_STRACE = 1 ]; then
	rm -f "$T/ge"
	slow TERM "$T/ge" "$MDF" -E -d 0 "$T/vm" "$T/ge"
	WANT="the ELF dump is incomplete" fails "E-sigterm-marked" $rc TERM "$T/ge" "$T/ge"
	rm -f "$T/gf.flat"
	DELAY=30000 MINSIZE=100000 WAIT=0.1 slow TERM "$T/gf.flat" sh -c 'exec "$0" -F -c -d 0 "$1" >"$2"' "$MDF" "$T/vm" "$T/gf.flat"
	WANT="stopped by SIGTERM" fails "F-sigterm" $rc TERM "standard output"
	rm -f "$T/gfr"
	"$MDF" -R "$T/gfr" <"$T/gf.flat" >"$T/out" 2>"$T/err"
	WANT="is marked incomplete" fails "F-sigterm-R-marked" $? - "$T/gfr" "$T/gfr"
	# The part being written when the signal came is marked, the ones
	# before it are whole, none after it is created.
	rm -f "$T/gs1" "$T/gs2"
	slow HUP "$T/gs1" "$MDF" -c -d 0 --split "$T/vm" "$T/gs1" "$T/gs2"
	WANT="stopped by SIGHUP" fails "split-sighup" $rc HUP "split part" "$T/gs2"
	k=$(sed -n 's/.*split part \([0-9]\) of 2.*/\1/p' "$T/err")
	case "$k:$(mark "$T/gs1"):$(mark "$T/gs2")" in
	1:marked:none | 2:clear:marked) ok "split-sighup-parts (part $k stopped)" ;;
	*) notok "split-sighup-parts" "part ${k:-?} stopped, gs1 $(mark "$T/gs1"), gs2 $(mark "$T/gs2")" ;;
	esac
else
	skip "writer-signals" "no usable strace"
fi
# ---- a full disk (a 4 MiB tmpfs; needs root and mount) ---------------
mkdir -p "$T/full"
if mount -t tmpfs -o size=4m tmpfs "$T/full" 2>/dev/null; then
	"$MDF" --reassemble "$T/p1" "$T/p2" "$T/full/ra" >"$T/out" 2>"$T/err"
	WANT="No space left on device" fails "enospc-reassemble" $? - "$T/full/ra" "$T/full/ra"
	rm -f "$T/full/ra"
	"$MDF" -R "$T/full/ro" <"$T/c-whole.flat" >"$T/out" 2>"$T/err"
	WANT="No space left on device" fails "enospc-R" $? - "$T/full/ro" "$T/full/ro"
	rm -f "$T/full/ro"
	# Full to the last block: the text files have no room at all.
	dd if=/dev/zero of="$T/full/fill" bs=64k status=none 2>/dev/null
	"$MDF" --dump-dmesg "$T/vm" "$T/full/log" >"$T/out" 2>"$T/err"
	WANT="No space left" fails "enospc-dmesg" $? - "$T/full/log" "$T/full/log"
	"$MDF" -g "$T/full/vi" -x "$KOBJ" >"$T/out" 2>"$T/err"
	WANT="No space left" fails "enospc-g" $? - "$T/full/vi" "$T/full/vi"
	no_temp "enospc-no-temp" "$T/full"
	umount "$T/full"
else
	skip "enospc" "cannot mount a tmpfs here"
fi

"$MDF" -F -E -d 0 -L 8M "$T/vm" >"$T/ef.flat" 2>"$T/err"
WANT="size limit" fails "F-E-limit" $? - "standard output"
rm -f "$T/efr"
"$MDF" -R "$T/efr" <"$T/ef.flat" >"$T/out" 2>"$T/err"
WANT="marked incomplete" fails "F-E-limit-R-marked" $? - "$T/efr" "$T/efr"
[ "$(mark "$T/efr")" = marked ] && ok "F-E-limit-R-elf-flag" || notok "F-E-limit-R-elf-flag" "$(mark "$T/efr")"
exit 0
