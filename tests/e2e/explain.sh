#!/bin/bash
# --explain PFN|0xPADDR VMCORE: for pfns of every kind on synthetic dumps
# (6.1 and 6.12 struct pages), the verdict of every level must be what the
# filter does: "kept" exactly where a real `--dry-run -d N --debug-bitmap`
# run and the generator's reference bitmaps (computed from the declared
# kinds) keep the page, and a zero page at -d 1 is the one -E leaves out.
# Then the exact wording for each kind, a physical address, a 1 GiB
# hugetlb page, a kdump-compressed input, the free-list walk on the real
# dumps (when ../shared has them), and bad arguments.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genspec.sh"
command -v python3 >/dev/null || { echo "skip explain: no python3"; exit 0; }
LEVELS="0 1 2 4 8 16 31"

# Every kind, both ends of each range, a free block's inside, the hole of
# the crashkernel, RAM past p_filesz, the last pfn.
PFNS="0x2 0x3 0x2000 0x21ff 0x2200 0x22ff 0x2300 0x23ff 0x2400 0x243f 0x2600 0x2601
0x27ff 0x2800 0x2a00 0x2a05 0x2bff 0x2c00 0x2c0f 0x2c10 0x2c13 0x2c14 0x2c17 0x2c18
0x3000 0x3005 0x30ff 0x3100 0x4000 0x40ff 0x5000 0x6000 0x600f 0x6010 0x8000 0x9000
0x13fff 0x14000 0x1ffd9 0x1ffda 0x33fff"

# explain_out PFN-FILE: "PFN LEVEL kept|excluded|zero|absent" lines from
# the --explain outputs $d/x.PFN, one per pfn and level.
verdicts() { # DIR
	python3 - "$1" $PFNS <<'PY'
import re, sys
d = sys.argv[1]
for p in sys.argv[2:]:
    for line in open("%s/x.%s" % (d, p)):
        m = re.match(r"  -d (\d+)(?: \(\d+\))?\s+(.*)$", line)
        if not m:
            continue
        v = m.group(2)
        k = ("zero" if v.startswith("excluded: zero") else
             "kept" if v.startswith("kept") else
             "excluded" if v.startswith("excluded") else
             "absent" if v.startswith("not in the dump") else "?" + v)
        print(int(p, 16), m.group(1), k)
PY
}

# compare DIR BITMAP-PATTERN: every verdict against the bitmaps (L in the
# pattern is the level): kept and zero pages are set, the rest clear.
compare() {
	python3 - "$1" "$2" <<'PY'
import sys
d, pat = sys.argv[1], sys.argv[2]
bad = []
maps = {}
for line in open(d + "/verdicts"):
    pfn, lvl, k = line.split()
    pfn = int(pfn)
    if lvl not in maps:
        maps[lvl] = open(pat.replace("L", lvl), "rb").read()
    b = maps[lvl]
    on = pfn // 8 < len(b) and (b[pfn // 8] >> (pfn % 8)) & 1
    if k.startswith("?") or bool(on) != (k in ("kept", "zero")):
        bad.append("pfn %#x -d %s: %s, bitmap %d" % (pfn, lvl, k, on))
print("; ".join(bad[:6]))
PY
}

# in_elf ELF PFN...: the pfns -E output holds ("1" or "0" each).
in_elf() {
	python3 - "$@" <<'PY'
import struct, sys
f = open(sys.argv[1], "rb").read()
phoff, = struct.unpack_from("<Q", f, 32)
phent, phnum = struct.unpack_from("<HH", f, 54)
loads = []
for i in range(phnum):
    t, fl, off, va, pa, fs, ms, al = struct.unpack_from("<IIQQQQQQ", f, phoff + i * phent)
    if t == 1:
        loads.append((pa, pa + fs))
for p in sys.argv[2:]:
    a = int(p, 16) * 4096
    print(p, int(any(s <= a < e for s, e in loads)))
PY
}

for k in 6.1 6.12; do
	d="$T/k$k"
	gen_vmcore "explain-$k-gen" "$d" "kernel $k
$(genspec_x86 memsz=0x20000000)
pages 0x6000+16 kernel
pages 0x6010+16 kernel byte 0x11" || continue
	bad=""
	for p in $PFNS; do
		"$MDF" --explain "pfn:$p" "$d/vmcore" >"$d/x.$p" 2>"$d/e.$p" || bad="$bad $p:rc$?"
		[ -s "$d/e.$p" ] && bad="$bad $p:stderr"
	done
	if [ -z "$bad" ]; then ok "explain-$k-runs"; else notok "explain-$k-runs" "$bad $(head -c 300 "$d/e.${bad%%:*}" 2>/dev/null)"; fi
	verdicts "$d" >"$d/verdicts"
	n=$(wc -l <"$d/verdicts")
	if [ "$n" -eq $(( $(echo $PFNS | wc -w) * 7 )) ]; then ok "explain-$k-all-levels"
	else notok "explain-$k-all-levels" "$n verdicts"; fi
	# The real filter's bitmap2 at each level, and the generator's.
	bad=""
	for l in $LEVELS; do
		"$MDF" -f --dry-run --message-level 0 -d $l --debug-bitmap "$d/b2.$l" "$d/vmcore" \
			>"$d/run.$l.log" 2>&1 || bad="$bad d$l:$(tail -n1 "$d/run.$l.log")"
	done
	[ -z "$bad" ] || notok "explain-$k-real-runs" "$bad"
	why=$(compare "$d" "$d/b2.L")
	if [ -z "$why" ]; then ok "explain-$k-equals-filter"; else notok "explain-$k-equals-filter" "$why"; fi
	why=$(compare "$d" "$d/ref/dL.bitmap2")
	if [ -z "$why" ]; then ok "explain-$k-equals-reference"; else notok "explain-$k-equals-reference" "$why"; fi
	# Zero pages: -E leaves out exactly the pages excluded at -d 1 and 31.
	bad=""
	for l in 1 31; do
		"$MDF" -f -E -d $l --message-level 0 "$d/vmcore" "$d/e$l.elf" >/dev/null 2>&1 ||
			{ bad="$bad -E-d$l-failed"; continue; }
		while read -r p held; do
			v=$(awk -v p=$((p)) -v l=$l '$1 == p && $2 == l {print $3}' "$d/verdicts")
			if [ "$v" = kept ] && [ "$held" != 1 ]; then bad="$bad $p:d$l:kept-not-in-elf"; fi
			if [ "$v" != kept ] && [ "$held" != 0 ]; then bad="$bad $p:d$l:$v-in-elf"; fi
		done < <(in_elf "$d/e$l.elf" $PFNS)
		rm -f "$d/e$l.elf"
	done
	if [ -z "$bad" ]; then ok "explain-$k-zero-pages-as-E"; else notok "explain-$k-zero-pages-as-E" "$bad"; fi
done

# Exact wording on 6.1 (what a user reads).
d="$T/k6.1"
expect() { # NAME PFN PATTERN (grep -E on the output)
	if [ -f "$d/x.$2" ] && grep -qE -- "$3" "$d/x.$2"; then ok "explain-says-$1"
	else notok "explain-says-$1" "no /$3/ in: $(tr '\n' '|' <"$d/x.$2" 2>/dev/null | head -c 900)"; fi
}
expect free-head 0x3000 '^  -d 16 +excluded: free \(buddy block head pfn 0x3000 order 8\)$'
expect free-inside 0x3005 '^  -d 31 +excluded: free \(buddy block head pfn 0x3000 order 8\)$'
expect free-kept-at-8 0x3005 '^  -d 8 +kept$'
expect buddy-page-type 0x3000 '_mapcount  0xffffff7f  \(page_type: buddy'
expect anon 0x2000 '^  -d 8 +excluded: user$'
expect anon-mapping 0x2000 'mapping    0x[0-9a-f]*[13579bdf]  \(bit 0 set: anon'
expect thp-head 0x2600 '^  -d 8 +excluded: user \(compound head pfn 0x2600 order 9\)$'
expect thp-head-fields 0x2600 'compound   head: order 9, hugetlb no'
expect thp-tail 0x27ff '^  -d 31 +excluded: user \(tail of compound head pfn 0x2600 order 9\)$'
expect thp-tail-kept 0x27ff '^  -d 4 +kept \(a compound tail: no exclusion of its head reached it\)$'
expect thp-tail-pointer 0x27ff 'tail: compound_head 0x[0-9a-f]+ = pfn 0x2600: order 9, hugetlb no'
expect hugetlb 0x2a05 '^  -d 8 +excluded: user \(tail of compound head pfn 0x2a00 order 9\)$'
expect hugetlb-head 0x2a00 'compound   head: order 9, hugetlb yes'
expect cache 0x2200 '^  -d 2 +excluded: cache$'
expect cache-private-at-2 0x2300 '^  -d 2 +kept$'
expect cache-private-at-4 0x2300 '^  -d 4 +excluded: cache_private$'
expect swapcache 0x2400 '^  -d 2 +excluded: cache$'
expect slab-kept 0x2c00 '^  -d 31 +kept$'
expect hwpoison 0x2c10 '^  -d 0 +excluded: hwpoison$'
expect hwpoison-flag 0x2c10 'flags      0x[0-9a-f]+  .*PG_hwpoison'
expect offline 0x2c14 '^  -d 1 +excluded: offline$'
expect offline-type 0x2c14 '\(page_type: offline\)'
expect zero-page 0x6000 '^  -d 1 +excluded: zero \(all its bytes are zero\)$'
expect zero-page-kept-at-2 0x6000 '^  -d 2 +kept$'
expect zero-content 0x6000 '^  content: all bytes zero$'
expect nonzero-kernel 0x6010 '^  -d 31 +kept$'
expect hole 0x9000 '^  in the dump: no: in no PT_LOAD \(a hole\)$'
expect hole-verdict 0x9000 '^  -d 31 +not in the dump: no memory there \(a hole\)$'
expect past-filesz 0x33fff 'past its p_filesz'
expect past-filesz-verdict 0x33fff '^  -d 0 +not in the dump: its PT_LOAD has no data for it \(past p_filesz\)$'
expect in-pt-load 0x2000 '^  in the dump: yes: PT_LOAD \(program header [0-9]+\) \[0x100000-0x8000000\), file offset 0x'

# A physical address (0x...), and a hex pfn.
out=$("$MDF" --explain 0x3005123 "$d/vmcore" 2>&1); rc=$?
if [ $rc -eq 0 ] && [[ "$out" == "pfn 0x3005 of $d/vmcore (ELF), physical 0x3005000-0x3005fff (asked: 0x3005123)"* ]] &&
	grep -q "buddy block head pfn 0x3000 order 8" <<<"$out"; then ok "explain-paddr"
else notok "explain-paddr" "rc $rc: $(head -n2 <<<"$out")"; fi
if cmp -s <("$MDF" --explain paddr:0x3005000 "$d/vmcore" 2>&1 | tail -n +2) \
	<("$MDF" --explain 12293 "$d/vmcore" 2>&1 | tail -n +2) &&
	cmp -s <("$MDF" --explain pfn:0x3005 "$d/vmcore" 2>&1) <("$MDF" --explain 12293 "$d/vmcore" 2>&1)
then ok "explain-pfn-forms"; else notok "explain-pfn-forms" "pfn:0x3005, 12293 and paddr:0x3005000 differ"; fi
# -d adds levels.
out=$("$MDF" --explain pfn:0x2200 -d 6,24 "$d/vmcore" 2>&1)
if grep -qE '^  -d 6 +excluded: cache$' <<<"$out" && grep -qE '^  -d 24 +kept$' <<<"$out"
then ok "explain-extra-levels"; else notok "explain-extra-levels" "$(tail -n3 <<<"$out")"; fi

# Outside the dump's memory: one line naming the file, exit status 1.
"$MDF" --explain pfn:0x34000 "$d/vmcore" >"$T/out" 2>"$T/err"; rc=$?
want="makedumpfile: --explain: pfn 0x34000 is not in $d/vmcore's memory (max pfn 0x33fff)"
if [ $rc -eq 1 ] && [ "$(grep '^makedumpfile:' "$T/err")" = "$want" ] && [ ! -s "$T/out" ]
then ok "explain-beyond-memory"; else notok "explain-beyond-memory" "rc $rc: $(cat "$T/err")"; fi
"$MDF" --explain 0x34000000 "$d/vmcore" >"$T/out" 2>"$T/err"; rc=$?
want="makedumpfile: --explain: physical address 0x34000000, pfn 0x34000 is not in $d/vmcore's memory (max pfn 0x33fff)"
if [ $rc -eq 1 ] && [ "$(grep '^makedumpfile:' "$T/err")" = "$want" ]
then ok "explain-paddr-beyond-memory"; else notok "explain-paddr-beyond-memory" "rc $rc: $(cat "$T/err")"; fi

# Bad arguments: one error line, exit status 1.
bad_arg() { # NAME WANT ARGS...
	local name=$1 want=$2 rc
	shift 2
	"$MDF" "$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 1 ] && [ "$(grep -c '^makedumpfile:' "$T/err")" = 1 ] &&
		grep -qF "makedumpfile: $want" "$T/err"; then ok "explain-bad-$name"
	else notok "explain-bad-$name" "rc $rc: $(grep '^makedumpfile' "$T/err")"; fi
}
bad_arg not-a-number "invalid value 'foo' for option --explain: give a pfn" --explain foo "$d/vmcore"
bad_arg hex-garbage "invalid value '0x12q' for option --explain" --explain 0x12q "$d/vmcore"
bad_arg empty-pfn "invalid value 'pfn:' for option --explain" --explain pfn: "$d/vmcore"
bad_arg no-vmcore "missing operand: --explain needs VMCORE" --explain 12
bad_arg no-value "option '--explain' needs an argument" --explain
bad_arg two-files "$d/vmcore: not a kdump-compressed dump" --explain 12 "$d/vmcore" "$T/x"
bad_arg with-output "--explain writes no dump" --explain 12 -l "$d/vmcore"
bad_arg missing-file "cannot open $T/nothere: No such file or directory" --explain 12 "$T/nothere"
printf 'not a dump\n' >"$T/junk"
bad_arg not-a-dump "$T/junk" --explain 12 "$T/junk"
printf 'kernel none\nram 0x100000 0x4000000\n' >"$T/none.spec"
if "$GEN" "$T/none.spec" "$T/none.elf" >/dev/null 2>&1; then
	bad_arg no-struct-pages "--explain reads what -d 31 reads: $T/none.elf: dump level 31 needs struct page information" \
		--explain 12 "$T/none.elf"
fi

# A kdump-compressed input: what it already dropped, and the refilter.
if "$MDF" -l -d 16 --message-level 0 "$d/vmcore" "$T/d16.kdump" 2>"$T/k.log"; then
	out=$("$MDF" --explain pfn:0x3005 "$T/d16.kdump" 2>&1)
	if grep -qF "in the dump: no: present in bitmap1, excluded in bitmap2 (written at dump level 16)" <<<"$out" &&
		grep -qE "^  -d 8 \(24\) +not in the dump: excluded already in $T/d16.kdump \(dump level 16\)$" <<<"$out"
	then ok "explain-kdump-excluded"; else notok "explain-kdump-excluded" "$(tr '\n' '|' <<<"$out" | head -c 600)"; fi
	out=$("$MDF" --explain pfn:0x2001 "$T/d16.kdump" 2>&1)
	if grep -qF "in the dump: yes: present in bitmap1 and stored (bitmap2)" <<<"$out" &&
		grep -qE '^  -d 8 \(24\) +excluded: user$' <<<"$out" && grep -qE '^  -d 2 \(18\) +kept$' <<<"$out"
	then ok "explain-kdump-refilter"; else notok "explain-kdump-refilter" "$(tr '\n' '|' <<<"$out" | head -c 600)"; fi
	# Against a refiltering run's bitmap.
	bad=""
	for l in 2 8; do
		"$MDF" -f --dry-run --message-level 0 -d $l --debug-bitmap "$T/r.$l" "$T/d16.kdump" >/dev/null 2>&1 ||
			{ bad="$bad d$l:run"; continue; }
		for p in 0x2001 0x2201 0x2601 0x3005 0x6000; do
			v=$("$MDF" --explain pfn:$p "$T/d16.kdump" 2>/dev/null | grep -E "^  -d $l \(" | sed -E 's/^  -d [0-9]+ \([0-9]+\) +//')
			on=$(python3 -c "import sys; b=open('$T/r.$l','rb').read(); p=$p; print((b[p//8]>>(p%8))&1)")
			case "$v" in kept*) [ "$on" = 1 ] || bad="$bad $p:d$l:$v/bit$on" ;;
			*) [ "$on" = 0 ] || bad="$bad $p:d$l:$v/bit$on" ;; esac
		done
	done
	if [ -z "$bad" ]; then ok "explain-kdump-equals-refilter"; else notok "explain-kdump-equals-refilter" "$bad"; fi
else
	notok "explain-kdump-write" "$(tail -n1 "$T/k.log")"
fi

# A 1 GiB hugetlb page (order 18): its last tail is 2^18 - 1 pfns after the
# head, at the far end of the window --explain scans.
d="$T/giant"
if gen_vmcore explain-1g-hugetlb "$d" "kernel 6.1
ram 0x100000 0x80000000
pages 0x40000+262144 hugetlb order=18"; then
	out=$("$MDF" --explain pfn:0x7ffff "$d/vmcore" 2>&1)
	on=$(python3 -c "b=open('$d/ref/d8.bitmap2','rb').read(); p=0x7ffff; print((b[p//8]>>(p%8))&1)")
	if grep -qE '^  -d 8 +excluded: user \(tail of compound head pfn 0x40000 order 18\)$' <<<"$out" && [ "$on" = 0 ] &&
		grep -qF "= pfn 0x40000: order 18, hugetlb yes" <<<"$out"
	then ok "explain-1g-hugetlb"; else notok "explain-1g-hugetlb" "bit $on: $(tr '\n' '|' <<<"$out" | head -c 700)"; fi
fi

# The real dumps: pfns of every class at every level against the
# reference, and with the buddy marker hidden, the free-list walk.
for name in fx-v61-512m fx-v612-512m; do
	vm=$(vmcore "$name") || { skip "explain-real-$name" "no ../shared/vmcores/$name.elf.zst"; continue; }
	ref="$MDF_SHARED/vmcores/$name.ref"
	# Up to 6 pfns of each (level, kept/dropped) pair where the levels
	# differ, and a spread.
	pfns=$(python3 - "$ref" <<'PY'
import sys
ref = sys.argv[1]
maps = {l: open("%s/d%d.bitmap2" % (ref, l), "rb").read() for l in (0, 2, 4, 8, 16, 31)}
b1 = open(ref + "/bitmap1", "rb").read()
n = len(b1) * 8
bit = lambda b, p: (b[p >> 3] >> (p & 7)) & 1
out = set()
for l in (2, 4, 8, 16):
    got = 0
    for p in range(0, n, 7):
        if bit(b1, p) and bit(maps[0], p) and not bit(maps[l], p):
            out.add(p); got += 1
            if got == 6:
                break
got = 0
for p in range(0, n, 7):
    if bit(b1, p) and not bit(maps[0], p):
        out.add(p); got += 1
        if got == 2:
            break
top = max(p for p in range(n) if bit(b1, p)) + 1
out.update(range(0, top, top // 24))
out.add(top - 1)
print(" ".join("%#x" % p for p in sorted(out)))
PY
)
	bad=""
	for p in $pfns; do
		"$MDF" --explain pfn:$p "$vm" >"$T/rx.$p" 2>&1 || bad="$bad $p:rc"
	done
	why=$(python3 - "$ref" "$T" $pfns <<'PY'
import re, sys
ref, t = sys.argv[1], sys.argv[2]
bad = []
for p in sys.argv[3:]:
    for line in open("%s/rx.%s" % (t, p)):
        m = re.match(r"  -d (\d+)\s+(.*)$", line)
        if not m:
            continue
        b = open("%s/d%s.bitmap2" % (ref, m.group(1)), "rb").read()
        pfn = int(p, 16)
        on = (b[pfn >> 3] >> (pfn & 7)) & 1
        kept = m.group(2).startswith("kept") or m.group(2).startswith("excluded: zero")
        if kept != bool(on):
            bad.append("%s -d %s: %s, ref %d" % (p, m.group(1), m.group(2), on))
print("; ".join(bad[:5]))
PY
)
	if [ -z "$bad$why" ]; then ok "explain-real-$name ($(echo $pfns | wc -w) pfns)"
	else notok "explain-real-$name" "$bad $why"; fi
	# Free pages from the walked free lists (no buddy marker).
	cp "$vm" "$T/fl.elf" && python3 - "$T/fl.elf" <<'PY'
import sys
f = open(sys.argv[1], "r+b"); head = f.read(0x10000)
key = b"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)="
i = head.find(key); assert i > 0
f.seek(i); f.write(b"NUMBER(XXXX_BUDDY_MAPCOUNT_VALUE)=")
PY
	p=$(python3 - "$ref" <<'PY'
import sys
ref = sys.argv[1]
a = open(ref + "/d8.bitmap2", "rb").read(); b = open(ref + "/d16.bitmap2", "rb").read()
for p in range(1000, len(a) * 8):
    if (a[p >> 3] >> (p & 7)) & 1 and not (b[p >> 3] >> (p & 7)) & 1:
        print("%#x" % p); break
PY
)
	out=$("$MDF" --explain pfn:$p "$T/fl.elf" 2>&1)
	if grep -qE '^  -d 16 +excluded: free \(on the buddy free lists, which were walked' <<<"$out" &&
		grep -qE '^  -d 8 +kept' <<<"$out"
	then ok "explain-free-list-walk-$name"; else notok "explain-free-list-walk-$name" "pfn $p: $(tr '\n' '|' <<<"$out" | head -c 700)"; fi
	rm -f "$T/fl.elf"
done
exit 0
