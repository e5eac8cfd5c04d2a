#!/bin/bash
# A rule that VMCOREINFO leaves without a number keeps the pages it would
# have excluded, and the report says how many, by rule name and with the
# missing entries:
#   Kept, rule cache could not run (VMCOREINFO has no NUMBER(PG_lru)): 512 pages
# Synthetic dumps from tests/gen drop one entry each; the counts are
# checked against the generator's reference bitmaps (--ref, made from the
# declared page kinds, not from the struct pages):
#  - a rule with a test of its own (cache, user, hugetlb, compound-tail,
#    offline) counts exactly the pages we keep and the reference drops,
#    where nothing else is unknown;
#  - an untested rule (free, hwpoison: "pages not tested") counts every
#    page the scan keeps, i.e. every set bit of our bitmap2 (a dry run
#    drops no zero page from it).
# Our bitmap2 must never drop a page the reference keeps.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genspec.sh"

# A dry run's "Kept, rule" lines as "rule=N" or "rule=N?" (not tested).
kept_lines() {
	sed -n 's/^Kept, rule \([a-z-]*\) could not run (VMCOREINFO has no .*): \([0-9]*\) pages\( not tested\)\{0,1\}$/\1=\2\3/p' "$1" |
		sed 's/ not tested/?/' | tr '\n' ' '
}

# popcount of ours (and of ours & ~ref, and of ref & ~ours), as "N N N".
counts() { # OURS REF
	python3 - "$1" "$2" <<'PY'
import sys
a = open(sys.argv[1], "rb").read(); b = open(sys.argv[2], "rb").read()
n = min(len(a), len(b))
ours = sum(bin(x).count("1") for x in a)
extra = sum(bin(a[i] & ~b[i] & 0xff).count("1") for i in range(n)) + \
        sum(bin(x).count("1") for x in a[n:])
lost = sum(bin(b[i] & ~a[i] & 0xff).count("1") for i in range(n))
print(ours, extra, lost)
PY
}

# check NAME SPEC-TEXT "LEVEL:rule=exact|rule=all|rule>=extra ..." [OPTS...]
#   rule=exact  the count equals the pages we keep that ref drops
#   rule=all    the count equals every page we keep ("not tested")
#   rule>=      at least the pages we keep that ref drops, at most all
#   none        no "Kept, rule" line at all
case_() {
	local name=$1 spec=$2 want=$3; shift 3
	local d="$T/$name" bad="" shown=""
	gen_vmcore "missing-$name" "$d" "$spec" || return
	for lw in $want; do
		local l=${lw%%:*} rules=${lw#*:}
		if ! "$MDF" --dry-run -d "$l" "$@" --debug-bitmap "$d/b2.$l" "$d/vmcore" \
			>"$d/out.$l" 2>&1; then
			bad="$bad d$l:exit($(tail -n1 "$d/out.$l"))"; continue
		fi
		local got c ours extra lost
		got=$(kept_lines "$d/out.$l")
		c=$(counts "$d/b2.$l" "$d/ref/d$l.bitmap2")
		read -r ours extra lost <<<"$c"
		[ "$lost" -eq 0 ] || bad="$bad d$l:dropped-$lost-pages-ref-keeps"
		shown="$shown d$l[$got]"
		if [ "$rules" = none ]; then
			[ -z "$got" ] || bad="$bad d$l:unexpected[$got]"
			continue
		fi
		local n=0
		for rw in ${rules//,/ }; do
			local rule=${rw%%[=>]*} kind=${rw#*[=>]} v
			n=$((n + 1))
			v=$(printf '%s\n' $got | sed -n "s/^$rule=\([0-9]*\)?\{0,1\}$/\1/p")
			if [ -z "$v" ]; then bad="$bad d$l:no-$rule-line[$got]"; continue; fi
			case "$rw" in
			*=exact) [ "$v" -eq "$extra" ] || bad="$bad d$l:$rule=$v,want-$extra" ;;
			*=all) [[ " $got" == *" $rule=$v? "* ]] || bad="$bad d$l:$rule-not-marked-untested"
			       [ "$v" -eq "$ours" ] || bad="$bad d$l:$rule=$v,want-$ours" ;;
			*'>='*) { [ "$v" -ge "$extra" ] && [ "$v" -le "$ours" ]; } ||
				bad="$bad d$l:$rule=$v,want-$extra..$ours" ;;
			esac
		done
		[ "$(printf '%s\n' $got | grep -c .)" -eq "$n" ] || bad="$bad d$l:lines[$got]"
	done
	if [ -z "$bad" ]; then ok "missing-$name ($shown )"; else notok "missing-$name" "$bad"; fi
}

v61="kernel 6.1
$(genspec_x86)"
v612="kernel 6.12
$(genspec_x86)"

case_ full-6.1 "$v61" "0:none 2:none 8:none 16:none 31:none"
case_ full-6.12 "$v612" "0:none 31:none"
case_ no-pg-lru "$v61
vmcoreinfo del NUMBER(PG_lru)" "2:cache=exact 4:cache=exact 31:cache=exact 8:none"
case_ no-mapping "$v61
vmcoreinfo del OFFSET(page.mapping)" "31:cache=exact,user=exact 2:cache>= 8:user>="
case_ no-buddy "$v61
vmcoreinfo del NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)
vmcoreinfo del NUMBER(PG_buddy)" "16:free=all 31:free=all 8:none"
case_ no-buddy-6.12 "$v612
vmcoreinfo del NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)" "16:free=all"
case_ no-hwpoison "$v61
vmcoreinfo del NUMBER(PG_hwpoison)" "0:hwpoison=all 1:hwpoison=all 2:hwpoison=all 31:hwpoison=all"
case_ no-offline "$v61
vmcoreinfo del NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)" "0:offline=exact 8:offline=exact 31:offline=exact"
case_ no-offline-6.12 "$v612
vmcoreinfo del NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)" "0:offline=exact 31:offline=exact"
case_ no-compound-order "$v61
vmcoreinfo del OFFSET(page.compound_order)" "2:compound-tail=exact 8:compound-tail=exact 31:compound-tail=exact 16:none"
case_ no-hugetlb-dtor "$v61
vmcoreinfo del NUMBER(HUGETLB_PAGE_DTOR)" "8:hugetlb=exact 31:hugetlb=exact 2:none"
case_ no-hugetlb-marker-6.12 "$v612
vmcoreinfo del NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)" "8:hugetlb=exact 31:hugetlb=exact"
# -d 2 keeps private cache: without PG_private it cannot be told apart.
case_ no-pg-private "$v61
vmcoreinfo del NUMBER(PG_private)" "2:cache>= 4:none"

# The line names exactly what is missing.
d="$T/no-buddy"
if grep -qx 'Kept, rule free could not run (VMCOREINFO has no NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE) or NUMBER(PG_buddy)): [0-9]* pages not tested' "$d/out.31" &&
	grep -q "^$d/vmcore: free pages are kept: " "$d/out.31"; then ok "missing-line-format"
else notok "missing-line-format" "$(grep -i kept "$d/out.31" | tr '\n' ' ')"; fi
d="$T/no-hugetlb-marker-6.12"
if grep -qx 'Kept, rule hugetlb could not run (VMCOREINFO has no NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)): 512 pages' "$d/out.31"
then ok "missing-line-names-the-version's-entry"
else notok "missing-line-names-the-version's-entry" "$(grep Kept "$d/out.31" | tr '\n' ' ')"; fi
# The report lines only come with the report: not at -d 31 without it.
"$MDF" -f -l -d 31 "$T/no-pg-lru/vmcore" "$T/no-pg-lru/dump" >"$T/plain.out" 2>&1
if [ $? -eq 0 ] && ! grep -q '^Kept, rule' "$T/plain.out"; then ok "missing-lines-only-in-report"
else notok "missing-lines-only-in-report" "$(grep Kept "$T/plain.out")"; fi
"$MDF" -f -l -d 31 --message-level 23 "$T/no-pg-lru/vmcore" "$T/no-pg-lru/dump" >"$T/report.out" 2>&1
if grep -qx 'Kept, rule cache could not run (VMCOREINFO has no NUMBER(PG_lru)): 512 pages' "$T/report.out"
then ok "missing-lines-in-written-dump-report"
else notok "missing-lines-in-written-dump-report" "$(grep Kept "$T/report.out")"; fi

# Compound pages across cycles and scan threads: a 1 GiB hugetlb page
# whose tails run over 64 cycles of 4096 pfns, and THPs in every 1 GiB
# part the scan threads take.
big="kernel 6.1
ram 0x100000 0xc0000000
pages 0x2000+512 thp order=9 random
pages 0x40000+262144 hugetlb order=18 text
pages 0x80000+1024 thp order=9 random
pages 0xa0000+64 anon random
vmcoreinfo del OFFSET(page.compound_order)
vmcoreinfo del NUMBER(PG_hwpoison)"
case_ big-cycles "$big" "8:compound-tail=exact,hwpoison=all" --cyclic-buffer 1
d="$T/big-cycles"
"$MDF" --dry-run -d 8 --message-level 31 --num-threads 3 "$d/vmcore" >"$d/threads.out" 2>&1
a=$(kept_lines "$d/out.8"); b=$(kept_lines "$d/threads.out")
if [ -n "$a" ] && [ "$a" = "$b" ] && grep -q 'scan: pfn .* in [23] parts' "$d/threads.out"
then ok "missing-threads-same-counts ($b)"
else notok "missing-threads-same-counts" "serial [$a] threads [$b] $(grep 'scan:' "$d/threads.out" | head -n1)"; fi
exit 0
