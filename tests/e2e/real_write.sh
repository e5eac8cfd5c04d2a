#!/bin/bash
# Writing dumps of the real vmcores.
#  fx-v61-512m: -l and -E output is byte-identical to the installed
#    makedumpfile (Debian 1.7.2, the reference on 6.1) at levels 0-31; -c
#    output (zlib streams from libdeflate: other compressed bytes) is the
#    same dump: headers, notes, bitmaps, valid descriptors and every
#    decompressed page (tests/tools/kdump_same.py).
#  fx-v612-512m (where 1.7.2 filters user pages wrongly): headers and both
#    bitmaps equal the reference, and every stored page equals the ELF's,
#    checked with the independent reader (kdump.py) and libkdumpfile, for
#    every codec.
. "$(dirname "$0")/../lib/lib.sh"
KPY="$MDF_SHARED/tools/kdump.py"
UP=/usr/bin/makedumpfile

vm=$(vmcore fx-v61-512m) || { skip "real-write" "no ../shared/vmcores (or zstd)"; exit 0; }
if [ -x "$UP" ]; then
	for fmt in l c E; do
		for l in 0 1 2 4 8 16 31; do
			[ $fmt = E ] && [ $l != 0 ] && [ $l != 1 ] && [ $l != 31 ] && continue
			rm -f "$T/ours" "$T/theirs"
			"$MDF" --message-level 0 -$fmt -d $l "$vm" "$T/ours" >/dev/null 2>"$T/err" ||
				{ notok "v61-$fmt-d$l-identical" "exit $?: $(tail -n1 "$T/err")"; continue; }
			"$UP" --message-level 0 -$fmt -d $l "$vm" "$T/theirs" >/dev/null 2>&1
			if [ $fmt = c ]; then
				if why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" "$T/ours" "$T/theirs" 2>&1); then
					ok "v61-c-d$l-same-dump-as-1.7.2 ($why)"
				else notok "v61-c-d$l-same-dump-as-1.7.2" "$why"; fi
			elif cmp -s "$T/ours" "$T/theirs"; then ok "v61-$fmt-d$l-identical-to-1.7.2"
			else notok "v61-$fmt-d$l-identical-to-1.7.2" "$(cmp "$T/ours" "$T/theirs" 2>&1 | head -n1)"; fi
		done
	done
	rm -f "$T/ours" "$T/theirs"
else
	skip "v61-identical-to-1.7.2" "makedumpfile 1.7.2 not installed (apt-get install makedumpfile)"
fi

vm=$(vmcore fx-v612-512m) || exit 0
ref="$MDF_SHARED/vmcores/fx-v612-512m.ref"
codecs="l c"
"$MDF" -v | grep -q 'zstd.*enabled' && codecs="$codecs z"
"$MDF" -v | grep -q 'snappy.*enabled' && codecs="$codecs p"
for c in $codecs; do
	out="$T/v612.$c"
	if ! "$MDF" --message-level 0 -$c -d 31 "$vm" "$out" 2>"$T/err"; then
		notok "v612-$c-d31" "exit status: $(tail -n1 "$T/err")"; continue
	fi
	info=$(python3 "$KPY" info "$out")
	b1=$(sha256sum <"$ref/bitmap1" | cut -d' ' -f1)
	b2=$(sha256sum <"$ref/d31.bitmap2" | cut -d' ' -f1)
	why=""
	grep -q "bitmap1_sha256 *$b1" <<<"$info" || why="$why bitmap1"
	grep -q "bitmap2_sha256 *$b2" <<<"$info" || why="$why bitmap2"
	grep -q "release *6.12.117+deb13-amd64" <<<"$info" || why="$why release"
	grep -q "dump_level *31" <<<"$info" || why="$why dump_level"
	grep -q "phys_base *0xffffffffe9800000" <<<"$info" || why="$why phys_base"
	pages=$(python3 "$KPY" pages "$out" "$vm" 2>&1 | tail -n1)
	[[ "$pages" == *" 0 differ"* ]] || why="$why kdump.py-pages($pages)"
	if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import kdumpfile' 2>/dev/null; then
		lk=$(/usr/bin/python3 "$MDF_SRC/tests/tools/libkdumpfile_check.py" "$out" "$vm" 2>&1 | tail -n1)
		[[ "$lk" == pages* ]] || why="$why libkdumpfile($lk)"
	else
		lk="libkdumpfile not installed"
	fi
	if [ -z "$why" ]; then ok "v612-$c-d31 (kdump.py, $lk)"; else notok "v612-$c-d31" "$why"; fi
	rm -f "$out"
done

# The installed makedumpfile refilters our output: -d 1 -> -d 31.  (On 6.12
# its own filter is wrong about user pages, so only readability and page
# contents are checked, not its choice of pages.)
if [ -x "$UP" ]; then
	"$MDF" --message-level 0 -l -d 1 "$vm" "$T/d1" &&
	"$UP" -l -d 31 "$T/d1" "$T/r31" >"$T/up.log" 2>&1; rc=$?
	pages=$(python3 "$KPY" pages "$T/r31" "$vm" 2>&1 | tail -n1)
	lvl=$(python3 "$KPY" info "$T/r31" | awk '/^dump_level/ {print $2}')
	if [ $rc -eq 0 ] && [ "$lvl" = 31 ] && [[ "$pages" == *" 0 differ"* ]]; then ok "upstream-refilters-our-dump ($pages)"
	else notok "upstream-refilters-our-dump" "rc=$rc level=$lvl $pages $(tail -n2 "$T/up.log")"; fi
	rm -f "$T/d1" "$T/r31"
fi
