#!/bin/bash
# The readers' gate's own tools, without root or readers (the gate itself
# is tests/e2e/readers_gate.sh, opt-in):
#  - tests/tools/kdump_drop.py takes one page out of a kdump dump: that pfn
#    is no longer dumpable, every other page reads as before (kdump.py and
#    our refiltering), and a pfn that is not in the dump is refused;
#  - tests/lab/readers/table.py writes the README's readers table: a row
#    per kernel and reader, a column per dump, rows of kernels the run did
#    not take kept from the last run.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
DROP="$MDF_SRC/tests/tools/kdump_drop.py"
KPY="$MDF_SHARED/tools/kdump.py"
printf 'kernel 6.1\nram 0x100000 0x4000000\npages 0x2000+64 anon random\npages 0x3000+16 slab random\n' >"$T/spec"
"$GEN" "$T/spec" "$T/vm" >/dev/null 2>&1 || { notok "readers-tools-gen" "mkvmcore failed"; exit 0; }
"$MDF" --message-level 0 -l -d 31 "$T/vm" "$T/l" || { notok "readers-tools-dump" "exit $?"; exit 0; }
count() { python3 "$KPY" info "$1" 2>/dev/null | sed -n 's/.*dumpable[^0-9]*\([0-9][0-9]*\).*/\1/p' | head -n 1; }
if python3 "$DROP" "$T/l" "$T/ctl" 0x3005 2>"$T/err"; then
	before=$(count "$T/l") after=$(count "$T/ctl")
	out=$(python3 "$KPY" pages "$T/ctl" "$T/vm" 2>&1 | tail -n 1)
	ex=$("$MDF" --explain pfn:0x3005 "$T/ctl" 2>&1 | grep -m 1 'in the dump')
	if [ -n "$before" ] && [ "$after" = $((before - 1)) ] && [[ "$out" == *" 0 differ"* ]] &&
		[[ "$ex" == *"excluded in bitmap2"* ]]; then
		ok "readers-tools-drop (dumpable $before -> $after; $out; $ex)"
	else notok "readers-tools-drop" "dumpable $before -> $after; $out; $ex"; fi
	"$MDF" --message-level 0 -l -d 31 "$T/ctl" "$T/re" && "$MDF" --message-level 0 -l -d 31 "$T/l" "$T/re0" &&
		out=$(python3 "$KPY" pages "$T/re" "$T/vm" 2>&1 | tail -n 1) && [[ "$out" == *" 0 differ"* ]] &&
		[ "$(count "$T/re")" = $(($(count "$T/re0") - 1)) ] &&
		ok "readers-tools-drop-refilters ($out)" || notok "readers-tools-drop-refilters" "$out"
else
	notok "readers-tools-drop" "$(cat "$T/err")"
fi
if python3 "$DROP" "$T/l" "$T/bad" 0x2005 2>"$T/err"; then notok "readers-tools-drop-refuses" "dropped an excluded pfn"
else check "readers-tools-drop-refuses" grep -q "pfn 0x2005 is not in the dump" "$T/err"; fi

# table.py: two runs, the second of one kernel only.
printf 'x\n<!-- readers:begin -->\nold\n<!-- readers:end -->\ny\n' >"$T/R"
printf 'crash 9.0.2\npython3-drgn 0.3.0\n' >"$T/versions"
printf '6.1\tl\tcrash\tequal\n6.1\tl\tdrgn\tequal\n6.1\tctl\tcrash\tDIFF (1 of 1)\n6.12\tl\tcrash\tequal, 2 excluded by class\n' >"$T/t1"
printf '6.12\tl\tcrash\tequal\n' >"$T/t2"
TAB="$MDF_SRC/tests/lab/readers/table.py"
if python3 "$TAB" "$T/t1" "$T/versions" "$T/R" aaa && python3 "$TAB" "$T/t2" "$T/versions" "$T/R" bbb &&
	grep -q '^| 6.1 | .* | crash | equal | - | .* | DIFF (1 of 1) | aaa ' "$T/R" &&
	grep -q '^| 6.1 | .* | drgn | equal | ' "$T/R" &&
	grep -q '^| 6.12 | .* | crash | equal | - | .* | bbb ' "$T/R" &&
	[ "$(grep -c '^| 6.12 |' "$T/R")" = 1 ] && grep -q 'crash 9.0.2, python3-drgn 0.3.0' "$T/R" &&
	! grep -q '^old$' "$T/R" && [ "$(head -n 1 "$T/R")" = x ] && [ "$(tail -n 1 "$T/R")" = y ]; then
	ok "readers-tools-table"
else notok "readers-tools-table" "$(tr '\n' ' ' <"$T/R" | cut -c1-400)"; fi
exit 0
