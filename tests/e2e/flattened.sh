#!/bin/bash
# The flattened path end to end: -F streams rebuilt with -R equal the
# direct dumps, in both directions against the installed Debian
# makedumpfile (/usr/bin/makedumpfile, 1.7.2; skipped when absent); a cut
# stream fails and leaves no file; -F keeps stdout for the stream only;
# -R does not overwrite without -f; a reader that goes away is an error.  Runs on a small synthetic vmcore, and
# on the real fx-v61-512m when ../shared has it.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
UP=/usr/bin/makedumpfile
[ -x "$UP" ] || UP=""
SIG=$(printf 'makedumpfile' | od -An -tx1 | tr -d ' \n')

# rebuilt NAME WANT GOT: compare two dumps.
same() {
	local name=$1 want=$2 got=$3
	if [ ! -f "$got" ]; then notok "$name" "no file $got"
	elif cmp -s "$want" "$got"; then ok "$name"
	else notok "$name" "$(cmp "$want" "$got" 2>&1 | head -n1)"; fi
}

# Run makedumpfile -R OUT with stdin from FILE; log in OUT.log.
rearrange() { # STREAM OUT [OPTS...]
	local in=$1 out=$2; shift 2
	"$MDF" "$@" -R "$out" <"$in" >"$out.log" 2>&1
}

run_vmcore() { # TAG VMCORE
	local tag=$1 vm=$2 f fmt direct

	# 1. our -F | our -R == our direct, for -l, -c and -E.  5. -F writes
	#    only the stream to stdout, messages to stderr.
	for fmt in -l -c -E; do
		f=${fmt#-}
		direct="$T/$tag.$f.direct"
		if ! "$MDF" $fmt -d 31 "$vm" "$direct" >"$T/log" 2>&1; then
			notok "$tag-direct$fmt" "$(tail -n1 "$T/log")"; continue
		fi
		"$MDF" -F $fmt -d 31 "$vm" >"$T/$tag.$f.flat" 2>"$T/$tag.$f.err"
		rc=$?
		if [ $rc -ne 0 ]; then notok "$tag-flatten$fmt" "exit $rc: $(tail -n1 "$T/$tag.$f.err")"; continue; fi
		if [ "$(head -c 12 "$T/$tag.$f.flat" | od -An -tx1 | tr -d ' \n')" = "$SIG" ] &&
			grep -q "makedumpfile Completed." "$T/$tag.$f.err" &&
			! grep -aq "makedumpfile Completed." "$T/$tag.$f.flat"; then
			ok "$tag-flatten$fmt-stdout-is-only-the-stream"
		else notok "$tag-flatten$fmt-stdout-is-only-the-stream" "$(head -c 40 "$T/$tag.$f.flat" | od -c | head -n2 | tr '\n' ' ')"; fi
		if rearrange "$T/$tag.$f.flat" "$T/$tag.$f.re" &&
			grep -q "The dumpfile is saved to $T/$tag.$f.re." "$T/$tag.$f.re.log" &&
			grep -q "makedumpfile Completed." "$T/$tag.$f.re.log"; then
			same "$tag-F$fmt-R-equals-direct" "$direct" "$T/$tag.$f.re"
		else notok "$tag-F$fmt-R-equals-direct" "$(tail -n2 "$T/$tag.$f.re.log" | tr '\n' ' ')"; fi
		if [ "$(stat -c %a "$T/$tag.$f.re" 2>/dev/null)" = 600 ]; then ok "$tag-R$fmt-mode-0600"
		else notok "$tag-R$fmt-mode-0600" "mode $(stat -c %a "$T/$tag.$f.re" 2>&1)"; fi
		rm -f "$T/$tag.$f.re"

		# 2. our -F | Debian's -R == our direct.
		if [ -z "$UP" ]; then skip "$tag-F$fmt-debian-R" "no $UP"
		elif "$UP" -R "$T/$tag.$f.up-re" <"$T/$tag.$f.flat" >"$T/log" 2>&1; then
			same "$tag-F$fmt-debian-R" "$direct" "$T/$tag.$f.up-re"
		else notok "$tag-F$fmt-debian-R" "$(tail -n2 "$T/log" | tr '\n' ' ')"; fi
		rm -f "$T/$tag.$f.up-re"

		# 3. Debian's -F | our -R == Debian's direct (-l, -c).
		if [ "$fmt" != -E ] && [ -n "$UP" ]; then
			if "$UP" -F $fmt -d 31 "$vm" >"$T/$tag.$f.upflat" 2>"$T/log" &&
				"$UP" $fmt -d 31 "$vm" "$T/$tag.$f.updirect" >"$T/log" 2>&1; then
				if rearrange "$T/$tag.$f.upflat" "$T/$tag.$f.re2"; then
					same "$tag-debian-F$fmt-R" "$T/$tag.$f.updirect" "$T/$tag.$f.re2"
				else notok "$tag-debian-F$fmt-R" "$(tail -n2 "$T/$tag.$f.re2.log" | tr '\n' ' ')"; fi
				# On the real dump Debian's and our dumps are the same bytes.
				if [ "$tag" = fx-v61-512m ] && [ "$fmt" = -l ]; then
					same "$tag-debian-direct$fmt-equals-ours" "$direct" "$T/$tag.$f.updirect"
				fi
			else skip "$tag-debian-F$fmt-R" "Debian's makedumpfile failed on $vm: $(tail -n1 "$T/log")"; fi
			rm -f "$T/$tag.$f.upflat" "$T/$tag.$f.updirect" "$T/$tag.$f.re2"
		elif [ "$fmt" != -E ]; then skip "$tag-debian-F$fmt-R" "no /usr/bin/makedumpfile"; fi
		[ "$fmt" = -c ] || rm -f "$T/$tag.$f.flat" "$direct"
	done

	# 6. Debian's kdump-config form: -F -c ... | cat > dump, later -R.
	if "$MDF" -F -c -d 31 "$vm" 2>"$T/log" | cat >"$T/$tag.dump-incomplete" &&
		mv "$T/$tag.dump-incomplete" "$T/$tag.dump" &&
		rearrange "$T/$tag.dump" "$T/$tag.dump.re"; then
		same "$tag-kdump-tools-pipe" "$T/$tag.c.direct" "$T/$tag.dump.re"
	else notok "$tag-kdump-tools-pipe" "$(tail -n2 "$T/log" "$T/$tag.dump.re.log" 2>&1 | tr '\n' ' ')"; fi
	rm -f "$T/$tag.dump" "$T/$tag.dump.re"

	# 4. Cut streams: exit 1 and the message.  Cut before the dump's own
	# header arrived: no file left.  After it: the file holds what came,
	# its header marked incomplete (kdump status bit 0x8), as a dump the
	# disk or -L cut short -- when what came holds page data: halfway
	# through, -F has sent page data but none of the descriptors it
	# buffers, so no page can be read, and the file is removed.
	local flat="$T/$tag.c.flat" size n st
	size=$(stat -c %s "$flat")
	rm -f "$T/cut.out"
	head -c $((size / 2)) "$flat" >"$T/cut"
	rearrange "$T/cut" "$T/cut.out"
	rc=$?
	if [ $rc -eq 1 ] && [ ! -e "$T/cut.out" ] &&
		grep -q "^makedumpfile: standard input: flattened stream cut short .*: no end marker.*: what came holds no page data (its first page descriptor (at byte 0x[0-9a-f]*) points at no page data); removed the incomplete $T/cut.out" "$T/cut.out.log"; then
		ok "$tag-cut-half-no-page-removed"
	else notok "$tag-cut-half-no-page-removed" "rc=$rc $(ls "$T/cut.out" 2>&1) $(grep makedumpfile: "$T/cut.out.log")"; fi
	for n in 100 4096 $((4096 + 10)) $((size - 16)) $((size - 1)); do
		head -c $n "$flat" >"$T/cut"
		rm -f "$T/cut.out"
		rearrange "$T/cut" "$T/cut.out"
		rc=$?
		want="cut short"
		st=$(python3 -c 'import struct,sys; print(hex(struct.unpack_from("<I", open(sys.argv[1],"rb").read(464), 424)[0]))' "$T/cut.out" 2>/dev/null)
		if [ $rc -ne 1 ]; then notok "$tag-cut-$n" "exit status $rc, want 1"
		elif ! grep -q "^makedumpfile: standard input: flattened stream $want" "$T/cut.out.log"; then
			notok "$tag-cut-$n" "message: $(grep makedumpfile: "$T/cut.out.log")"
		elif [ $n -le $((4096 + 16)) ] && [ -e "$T/cut.out" ]; then notok "$tag-cut-$n" "$T/cut.out left behind"
		elif [ $n -le $((4096 + 16)) ] && [ $n -gt 4096 ] &&
			! grep -q "at byte $n: no end marker.*; removed the incomplete $T/cut.out" "$T/cut.out.log"; then
			notok "$tag-cut-$n" "message: $(grep makedumpfile: "$T/cut.out.log")"
		elif [ $n -gt $((4096 + 16)) ] && ! grep -q "at byte $n: no end marker.*: $T/cut.out holds what came before, marked incomplete" "$T/cut.out.log"; then
			notok "$tag-cut-$n" "message: $(grep makedumpfile: "$T/cut.out.log")"
		elif [ $n -gt $((4096 + 16)) ] && [ $(( ${st:-0} & 8 )) -eq 0 ]; then
			notok "$tag-cut-$n" "kept, but its header status is ${st:-unreadable}"
		elif ! grep -q "makedumpfile Failed." "$T/cut.out.log"; then
			notok "$tag-cut-$n" "no 'makedumpfile Failed.'"
		else ok "$tag-cut-$n${st:+ (kept, status $st)}"; fi
	done

	# 7. An existing file is not overwritten without -f; with -f it is.
	echo "precious" >"$T/exists"
	rearrange "$flat" "$T/exists"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "$T/exists already exists (use -f to overwrite it)" "$T/exists.log" &&
		[ "$(cat "$T/exists")" = precious ]; then ok "$tag-R-existing-needs-f"
	else notok "$tag-R-existing-needs-f" "rc=$rc $(grep makedumpfile: "$T/exists.log")"; fi
	if rearrange "$flat" "$T/exists" -f; then same "$tag-R-f-overwrites" "$T/$tag.c.direct" "$T/exists"
	else notok "$tag-R-f-overwrites" "$(tail -n1 "$T/exists.log")"; fi
	rm -f "$T/exists" "$flat" "$T/$tag.c.direct" "$T/cut"
}

# A small synthetic machine, so the test runs without ../shared.
cat >"$T/spec" <<'SPEC'
kernel 6.1
ram 0x1000 +0x9f000
ram 0x100000 0x6000000
pages 0x2000+512 anon random
pages 0x2200+256 cache text 3
pages 0x2400+64 swapcache random 9
pages 0x2600+512 thp order=9 random
pages 0x3000+256 free order=8
fill 0x4000+256 zero
fill 0x5000+1024 random 5
SPEC
if "$GEN" "$T/spec" "$T/gen.elf" >"$T/gen.log" 2>&1; then
	run_vmcore gen "$T/gen.elf"
else
	notok "gen-vmcore" "mkvmcore: $(tail -n1 "$T/gen.log")"
fi

# Input that is not a flattened stream: named, nothing created.
"$MDF" -R "$T/notflat.out" <"$T/gen.elf" >"$T/nf.log" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "^makedumpfile: standard input is not a flattened stream but an ELF file" "$T/nf.log" &&
	[ ! -e "$T/notflat.out" ]; then ok "R-rejects-elf-input"
else notok "R-rejects-elf-input" "rc=$rc $(grep makedumpfile: "$T/nf.log")"; fi
"$MDF" -R "$T/empty.out" </dev/null >"$T/nf.log" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "^makedumpfile: standard input is empty" "$T/nf.log" &&
	[ ! -e "$T/empty.out" ]; then ok "R-rejects-empty-input"
else notok "R-rejects-empty-input" "rc=$rc $(grep makedumpfile: "$T/nf.log")"; fi
# A reader that goes away (ssh, kdump-tools' compressor): a write error
# named on one line and exit status 1, not a death by SIGPIPE.
"$MDF" -F -c -d 0 "$T/gen.elf" 2>"$T/pipe.log" | head -c 4096 >/dev/null
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 1 ] && grep -q "^makedumpfile: standard output: write: Broken pipe" "$T/pipe.log"; then
	ok "F-reader-gone-is-an-error"
else notok "F-reader-gone-is-an-error" "rc=$rc $(grep makedumpfile: "$T/pipe.log")"; fi
rm -f "$T/gen.elf"

if vm=$(vmcore fx-v61-512m); then
	run_vmcore fx-v61-512m "$vm"
else
	skip "fx-v61-512m-flattened" "no ../shared/vmcores/fx-v61-512m.elf.zst (or zstd)"
fi
exit 0
