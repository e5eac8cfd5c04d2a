#!/bin/bash
# Incomplete dumps: -L SIZE and a full disk (a small tmpfs) leave a readable
# dump whose header says it is incomplete, a clear message, and a non-zero
# exit; a -d list retries at the next level; the output is created 0600
# and never overwritten without -f.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
KPY="$MDF_SRC/../shared/tools/kdump.py"
[ -f "$KPY" ] || KPY="$MDF_SHARED/tools/kdump.py"

cat >"$T/spec" <<'SPEC'
kernel 6.12
ram 0x100000 0x8000000
pages 0x4000+8192 anon random 1
pages 0x2000+2048 cache text 2
SPEC
"$GEN" "$T/spec" "$T/vmcore" || { notok "incomplete" "mkvmcore failed"; exit 0; }

status_of() { python3 - "$1" <<'PY'
import struct, sys
h = open(sys.argv[1], "rb").read(464)
print(hex(struct.unpack_from("<I", h, 424)[0]))
PY
}

# -L: a 4 MiB limit on a dump that needs about 40 MiB.  -L counts bytes
# written, as a disk with that much free space would: descriptors never
# written are a hole, so the file may look longer than the limit but its
# blocks stay within it (one partial block per written region above).
# With --num-threads the writes are made by a thread of their own (whole
# blocks with O_DIRECT): the limit is found the same way.
for thr in "" "--num-threads 2"; do
	tag=${thr:+-threads}
	rm -f "$T/lim"
	"$MDF" -l -d 0 -L 4M $thr "$T/vmcore" "$T/lim" >"$T/out" 2>"$T/err"; rc=$?
	st=$(status_of "$T/lim")
	used=$(stat -c '%b * %B' "$T/lim"); used=$((used))
	if [ $rc -eq 1 ] && [ "$st" = 0xa ] && [ "$used" -le $(((4 << 20) + (16 << 10))) ] &&
		grep -q "size limit" "$T/err" && grep -q "incomplete" "$T/err"; then
		ok "limit-marks-incomplete$tag (status $st, $used bytes on disk)"
	else notok "limit-marks-incomplete$tag" "rc=$rc status=$st used=$used: $(cat "$T/err")"; fi
	said=$(sed -n 's/.*incomplete (\([0-9]*\) of .*/\1/p' "$T/err")
	# What was written reads back right: every page with data equals the ELF.
	if [ -f "$KPY" ]; then
		r=$(python3 - "$T/lim" "$T/vmcore" <<-'PY'
	import struct, sys, ctypes, ctypes.util
	lzo = ctypes.CDLL(ctypes.util.find_library("lzo2") or "liblzo2.so.2")
	d = open(sys.argv[1], "rb").read(); e = open(sys.argv[2], "rb")
	blk = 4096; sub = struct.unpack_from("<i", d, 432)[0]; bb = struct.unpack_from("<I", d, 436)[0]
	maxpfn = struct.unpack_from("<Q", d, blk + 96)[0]
	bm2 = (1 + sub) * blk + bb * blk // 2; desc = (1 + sub + bb) * blk
	eh = e.read(64); phoff, = struct.unpack_from("<Q", eh, 32); phn, = struct.unpack_from("<H", eh, 56)
	loads = []
	for i in range(phn):
	    e.seek(phoff + i * 56); t, f, off, va, pa, fs, ms, al = struct.unpack("<IIQQQQQQ", e.read(56))
	    if t == 1: loads.append((pa, off, fs))
	good = lost = 0; i = 0
	for pfn in range(maxpfn):
	    if not d[bm2 + pfn // 8] >> (pfn % 8) & 1: continue
	    if desc + 24 * i + 24 > len(d): lost += 1; i += 1; continue
	    off, size, flags, _ = struct.unpack_from("<qIIQ", d, desc + 24 * i); i += 1
	    if off == 0: lost += 1; continue
	    raw = d[off:off + size]
	    if flags & 2:
	        out = ctypes.create_string_buffer(blk); n = ctypes.c_size_t(blk)
	        assert lzo.lzo1x_decompress_safe(raw, ctypes.c_size_t(size), out, ctypes.byref(n), None) == 0
	        raw = out.raw
	    for pa, o, fs in loads:
	        if pa <= pfn * blk < pa + fs:
	            e.seek(o + pfn * blk - pa); assert e.read(blk) == raw, hex(pfn); break
	    good += 1
	print("good %d lost %d" % (good, lost))
	PY
	)
		if [[ "$r" == good* ]] && [[ "$r" != "good 0 "* ]]; then ok "limit-dump-readable$tag ($r)"
		else notok "limit-dump-readable$tag" "$r"; fi
		# The message counts exactly the pages a reader gets back.
		if [[ "$r" == "good $said "* ]]; then ok "limit-count-matches-file$tag ($said pages)"
		else notok "limit-count-matches-file$tag" "message says $said, file has: $r"; fi
	fi
done

# ELF output: e_flags bit 0.
"$MDF" -E -d 0 -L 4M "$T/vmcore" "$T/lim.elf" >/dev/null 2>"$T/err"; rc=$?
fl=$(python3 -c "import struct,sys; print(struct.unpack_from('<I', open(sys.argv[1],'rb').read(64), 48)[0] & 1)" "$T/lim.elf")
if [ $rc -eq 1 ] && [ "$fl" = 1 ]; then ok "limit-elf-incomplete-flag"
else notok "limit-elf-incomplete-flag" "rc=$rc e_flags bit0=$fl: $(cat "$T/err")"; fi

# A full disk: a 6 MiB tmpfs (needs root and mount; skipped otherwise).
mkdir -p "$T/small"
if mount -t tmpfs -o size=6m tmpfs "$T/small" 2>/dev/null; then
	# tmpfs takes O_DIRECT since Linux 6.6: the writing thread's full
	# disk then comes from a direct write.
	for thr in "" "--num-threads 2"; do
		tag=${thr:+-threads}
		"$MDF" -l -d 0 $thr "$T/vmcore" "$T/small/dump" >/dev/null 2>"$T/err"; rc=$?
		st=$(status_of "$T/small/dump")
		if [ $rc -eq 1 ] && [ "$st" = 0xa ] && grep -q "No space left" "$T/err"; then ok "enospc-marks-incomplete$tag"
		else notok "enospc-marks-incomplete$tag" "rc=$rc status=$st: $(cat "$T/err")"; fi
		rm -f "$T/small/dump"
	done
	# -d 0,31: level 0 does not fit, level 31 does.
	"$MDF" -l -d 0,31 "$T/vmcore" "$T/small/dump" >"$T/out" 2>"$T/err"; rc=$?
	st=$(status_of "$T/small/dump")
	lvl=$(python3 -c "import struct,sys; print(struct.unpack_from('<i', open(sys.argv[1],'rb').read(4200), 4104)[0])" "$T/small/dump")
	if [ $rc -eq 0 ] && [ "$st" = 0x2 ] && [ "$lvl" = 31 ] && grep -q "Retrying with dump level 31" "$T/out"; then
		ok "enospc-retries-next-level"
	else notok "enospc-retries-next-level" "rc=$rc status=$st level=$lvl: $(cat "$T/out" "$T/err" | tail -n3)"; fi
	umount "$T/small"
else
	skip "enospc" "cannot mount a tmpfs here"
fi

# 0600 and O_EXCL.
rm -f "$T/new"
"$MDF" --message-level 0 -l -d 31 "$T/vmcore" "$T/new"
mode=$(stat -c %a "$T/new")
if [ "$mode" = 600 ]; then ok "dumpfile-mode-0600"; else notok "dumpfile-mode-0600" "mode $mode"; fi
"$MDF" -l -d 31 "$T/vmcore" "$T/new" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "already exists" "$T/err"; then ok "no-overwrite-without-f"
else notok "no-overwrite-without-f" "rc=$rc $(cat "$T/err")"; fi
if "$MDF" --message-level 0 -f -l -d 31 "$T/vmcore" "$T/new"; then ok "overwrite-with-f"
else notok "overwrite-with-f" "rc=$?"; fi

# ---- A dump is marked incomplete until its last write -----------------
# The header carries the incomplete flag from its first write and loses
# it only once everything else is on disk, so whatever stops a run leaves
# a file a reader can tell apart.  A bigger machine (512 MiB) to stop in.
cat >"$T/spec2" <<'SPEC'
kernel 6.1
ram 0x100000 0x20000000
pages 0x4000+65536 anon random 1
SPEC
"$GEN" "$T/spec2" "$T/big" || { notok "incomplete-big" "mkvmcore failed"; exit 0; }
count_pages() { # DUMP -> "written N lost M" from its descriptors
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
sub, = struct.unpack_from("<i", d, 432); bb, = struct.unpack_from("<I", d, 436)
desc = (1 + sub + bb) * 4096; half = bb * 4096 // 2; bm2 = (1 + sub) * 4096 + half
n = sum(bin(b).count("1") for b in d[bm2:bm2 + half])
lost = sum(1 for i in range(n) if desc + 24 * i + 24 > len(d) or
           struct.unpack_from("<q", d, desc + 24 * i)[0] == 0)
print("written %d lost %d" % (n - lost, lost))
PY
}
# SIGTERM and SIGHUP (kdump's timeout, systemd) stop the run after the
# current page: what was written stays readable, the header says
# incomplete, a message names the file, and the process ends by the
# signal it was sent (rc 128+N), as a caller that sent it expects.
# SIGKILL cannot be caught, but the header says incomplete all the same.
for sig in TERM HUP KILL; do
	rm -f "$T/sig"
	"$MDF" -c -d 0 "$T/big" "$T/sig" >/dev/null 2>"$T/err" &
	pid=$!
	# Once the dump file exists the run is writing, its signals taken
	# by its own thread (a fixed sleep lost that race on a busy machine:
	# SIGHUP came before and killed it, rc 129).
	for _ in $(seq 100); do [ -s "$T/sig" ] && break; sleep 0.05; done
	sleep 0.2
	kill -$sig $pid
	wait $pid; rc=$?
	st=$(status_of "$T/sig" 2>/dev/null)
	if [ "$sig" = KILL ]; then
		if [ $rc -eq 137 ] && [ $(( ${st:-0} & 8 )) -ne 0 ]; then ok "sigkill-leaves-incomplete-header (status $st)"
		else notok "sigkill-leaves-incomplete-header" "rc=$rc status=$st"; fi
		continue
	fi
	pages=$(count_pages "$T/sig" 2>&1)
	want=$((128 + $(kill -l "$sig")))
	if [ $rc -eq $want ] && [ $(( ${st:-0} & 8 )) -ne 0 ] && grep -q "^makedumpfile: $T/sig: the dump is incomplete (.*): stopped by SIG$sig" "$T/err" &&
		[ "$(grep -c '^makedumpfile' "$T/err")" = 1 ] &&
		[[ "$pages" == "written "* ]] && [[ "$pages" != "written 0 "* ]]; then
		ok "sig$sig-marks-incomplete (status $st, $pages)"
	else notok "sig$sig-marks-incomplete" "rc=$rc (want $want) status=$st $pages: $(tail -n 2 "$T/err" | tr '\n' ' ')"; fi
done
# A write error that is not a full disk (EFBIG from a file size limit):
# the file is kept with its pages, marked incomplete.
rm -f "$T/efbig"
(trap '' XFSZ; ulimit -f 4096; exec "$MDF" -l -d 0 "$T/big" "$T/efbig") >/dev/null 2>"$T/err"; rc=$?
st=$(status_of "$T/efbig" 2>/dev/null)
if [ $rc -eq 1 ] && [ $(( ${st:-0} & 8 )) -ne 0 ] && grep -q "$T/efbig" "$T/err"; then ok "write-error-marks-incomplete (status $st)"
else notok "write-error-marks-incomplete" "rc=$rc status=$st: $(tail -n 1 "$T/err")"; fi
# Nothing written: no file left behind (the next try needs no -f).
rm -f "$T/tiny"
"$MDF" -l -d 0 -L 1K "$T/big" "$T/tiny" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && [ ! -e "$T/tiny" ]; then ok "no-pages-no-file"
else notok "no-pages-no-file" "rc=$rc, $(ls -l "$T/tiny" 2>&1)"; fi
# A dump finished normally has the flag clear.
"$MDF" --message-level 0 -l -d 31 "$T/big" "$T/whole" && st=$(status_of "$T/whole")
if [ "$st" = 0x2 ]; then ok "complete-dump-flag-clear"; else notok "complete-dump-flag-clear" "status $st"; fi
st=$("$MDF" --message-level 0 -E -d 31 "$T/big" "$T/whole.elf" &&
	python3 -c "import struct,sys; print(struct.unpack_from('<I', open(sys.argv[1],'rb').read(64), 48)[0] & 1)" "$T/whole.elf")
if [ "$st" = 0 ]; then ok "complete-elf-flag-clear"; else notok "complete-elf-flag-clear" "e_flags bit 0: $st"; fi
# Refiltering an incomplete dump carries its lost pages as lost and keeps
# the flag (it used to stop at the first lost page).
"$MDF" -l -d 0 -L 20M "$T/big" "$T/part" >/dev/null 2>&1
"$MDF" -l -d 1 "$T/part" "$T/refilt" >/dev/null 2>"$T/err"; rc=$?
a=$(count_pages "$T/part"); b=$(count_pages "$T/refilt" 2>&1); st=$(status_of "$T/refilt" 2>/dev/null)
if [ $rc -eq 1 ] && [ $(( ${st:-0} & 8 )) -ne 0 ] && [ "$a" = "$b" ] && grep -q "pages were lost in the input already" "$T/err"; then
	ok "refilter-incomplete-keeps-lost ($b)"
else notok "refilter-incomplete-keeps-lost" "rc=$rc status=$st input: $a, output: $b: $(tail -n 1 "$T/err")"; fi
# -F with -L: the stream still ends properly, and -R rebuilds the same
# incomplete dump as -L on a file: kept, marked, a warning that the
# stream's dump is incomplete and exit status 1 (it was 0).
"$MDF" -F -l -d 0 -L 20M "$T/big" 2>/dev/null | "$MDF" -R "$T/flat.re" >"$T/out" 2>"$T/err"; rc=$?
a=$(count_pages "$T/part"); b=$(count_pages "$T/flat.re" 2>&1); st=$(status_of "$T/flat.re" 2>/dev/null)
if [ $rc -eq 1 ] && [ $(( ${st:-0} & 8 )) -ne 0 ] && [[ "$b" == "written "* ]] && [[ "$b" != "written 0 "* ]] &&
	grep -q "^standard input: the dump in the flattened stream is marked incomplete" "$T/out" &&
	grep -q "^makedumpfile: $T/flat.re: the dump is incomplete: the dump in standard input is marked incomplete" "$T/err"; then
	ok "flat-limit-R-incomplete (status $st, $b; file: $a)"
else notok "flat-limit-R-incomplete" "rc=$rc status=$st $b"; fi
