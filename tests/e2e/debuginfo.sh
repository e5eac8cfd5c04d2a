#!/bin/bash
# Kernel information from outside the dump (issue 15): -i FILE gives the
# VMCOREINFO of a dump that has none (or fills in the keys its note
# lacks; the note wins for the keys it has), with the same bitmaps as the
# note would give.  A bad line is named with its file and line.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"

spec="kernel 6.1
ram 0x100000 0x4000000
pages 0x2000+64 anon random
pages 0x3000+64 cache random"
printf '%s\n' "$spec" >"$T/full.spec"
printf '%s\nbreak no_vmcoreinfo\n' "$spec" >"$T/none.spec"
"$GEN" "$T/full.spec" "$T/full" >/dev/null 2>&1 && "$GEN" "$T/none.spec" "$T/none" >/dev/null 2>&1 ||
	{ notok "debuginfo-gen" "mkvmcore failed"; exit 0; }
# The note's text, as a VMCOREINFO file (what -g writes, or a saved
# /sys/kernel/vmcoreinfo's note).
python3 - "$T/full" "$T/vi.txt" <<'PY'
import sys
d = open(sys.argv[1], "rb").read(1 << 16)
i = d.find(b"OSRELEASE="); j = d.find(b"\0", i)
open(sys.argv[2], "wb").write(d[i:j])
PY

for l in 1 31; do
	"$MDF" --message-level 0 -l -d $l "$T/full" "$T/ref.$l"
	# The same pages and both bitmaps; the headers differ (no note to copy).
	if "$MDF" --message-level 0 -l -d $l -i "$T/vi.txt" "$T/none" "$T/i.$l" &&
		why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" --ignore-headers "$T/ref.$l" "$T/i.$l" 2>&1); then
		ok "debuginfo-i-no-note-d$l ($why)"
	else notok "debuginfo-i-no-note-d$l" "$why"; fi
done
# Without -i, -d 31 on that dump names what is missing.
"$MDF" -l -d 31 "$T/none" "$T/x" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "no VMCOREINFO note" "$T/err"; then ok "debuginfo-no-note-d31-refused"
else notok "debuginfo-no-note-d31-refused" "rc=$rc $(cat "$T/err")"; fi
# The note wins: a file that says otherwise changes nothing.
sed 's/^SIZE(page)=.*/SIZE(page)=72/' "$T/vi.txt" >"$T/other.txt"
"$MDF" --message-level 0 -l -d 31 -i "$T/other.txt" "$T/full" "$T/w.31"
check "debuginfo-note-wins" cmp "$T/w.31" "$T/ref.31"
# A malformed file: its name and line.
printf 'SIZE(page)=64\nOFFSET(page.flags)=zz\n' >"$T/bad.txt"
"$MDF" -l -d 31 -i "$T/bad.txt" "$T/none" "$T/y" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "^makedumpfile: $T/bad.txt: VMCOREINFO line 2: OFFSET(page.flags): bad number 'zz'$" "$T/err" &&
	[ ! -e "$T/y" ]; then ok "debuginfo-i-bad-line"
else notok "debuginfo-i-bad-line" "rc=$rc $(cat "$T/err")"; fi
"$MDF" -l -d 31 -i "$T/missing.txt" "$T/none" "$T/y" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "cannot open $T/missing.txt" "$T/err"; then ok "debuginfo-i-missing-file"
else notok "debuginfo-i-missing-file" "rc=$rc $(cat "$T/err")"; fi
"$MDF" -l -d 31 -i "$T" "$T/none" "$T/y" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "$T: not a VMCOREINFO file" "$T/err"; then ok "debuginfo-i-directory"
else notok "debuginfo-i-directory" "rc=$rc $(cat "$T/err")"; fi
exit 0
