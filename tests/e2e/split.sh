#!/bin/bash
# --split and --reassemble: split sets of 2 and 3 parts (-l, -c, dump levels
# 0, 1, 31) of a synthetic vmcore and of fx-v61-512m.  Checks the header
# fields of every part (split=1, contiguous ranges covering 0..max_mapnr,
# identical bitmaps, data at one offset, page balance), that our
# --reassemble gives the direct dump byte for byte, and against the
# installed makedumpfile 1.7.2 both ways; and the error messages of bad uses.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
KPY="$MDF_SHARED/tools/kdump.py"
UP=/usr/bin/makedumpfile
[ -x "$UP" ] || UP=""

# check_parts NAME PART...: header fields of a split set (python reader).
check_parts() {
	local name=$1; shift
	check "$name-headers" python3 - "$@" <<'PY'
import struct, sys
parts = sys.argv[1:]
info = []
for f in parts:
    d = open(f, 'rb').read()
    assert d[:8] == b'KDUMP   ', f + ': signature'
    ver, = struct.unpack_from('<i', d, 8)
    bs, shb, bmb, maxnr = struct.unpack_from('<iiII', d, 428)
    assert ver == 6, f + ': version'
    (phys, lvl, split, s32, e32, ovi, svi, onote, snote, oer, ser,
     s64, e64, max64) = struct.unpack_from('<QiiQQqQqQqQQQQ', d, bs)
    assert split == 1, f + ': split=%d' % split
    assert (s32, e32) == (s64, e64), f + ': 32-bit range'
    off_bm = (1 + shb) * bs
    half = bmb * bs // 2
    bm1 = d[off_bm:off_bm + half]
    bm2 = d[off_bm + half:off_bm + 2 * half]
    # all but split, start_pfn/end_pfn and start_pfn_64/end_pfn_64
    hdr = d[:bs + 12] + d[bs + 32:bs + 80] + d[bs + 96:off_bm]
    info.append((f, s64, e64, max64, bm1, bm2, hdr, off_bm + 2 * half, lvl, d))
base = info[0]
total = sum(bin(b).count('1') for b in base[5])
off_data = base[7] + total * 24
expect = 0
counts = []
for f, s, e, mx, bm1, bm2, hdr, off_desc, lvl, d in info:
    assert bm1 == base[4] and bm2 == base[5], f + ': bitmaps differ'
    assert hdr == base[6], f + ': header differs'
    assert s == expect, f + ': starts at %#x, expected %#x' % (s, expect)
    expect = e
    n = sum(1 for p in range(s, e) if bm2[p // 8] >> (p % 8) & 1)
    counts.append(n)
    # descriptors: n of them, all pointing at or after the common data start
    for i in range(n):
        off, size, flags = struct.unpack_from('<qII', d, off_desc + 24 * i)
        assert off >= off_data and 0 < size, f + ': desc %d at %#x' % (i, off)
    if n and lvl & 1:
        assert d[off_data:off_data + 4096] == bytes(4096), f + ': zero page'
assert expect == base[3], 'ranges end at %#x, max_mapnr %#x' % (expect, base[3])
# Boundaries sit on the 64-pfn grid (crash reads a part's bitmap in
# words from its start): each part is within 64 pages of its share.
assert all(s % 64 == 0 for f, s, e, *_ in info), 'off the 64-pfn grid'
assert max(counts) - min(counts) <= 128, 'unbalanced: %s' % counts
print('ok', counts)
PY
}

# run_set NAME VMCORE OPTS N: split in N parts, check, reassemble, compare.
run_set() {
	local name=$1 vm=$2 opts=$3 n=$4 parts=() i
	for ((i = 1; i <= n; i++)); do parts+=("$T/$name.p$i"); done
	rm -f "$T/$name".*
	if ! "$MDF" --message-level 0 $opts "$vm" "$T/$name.direct" >/dev/null 2>"$T/err"; then
		notok "$name-direct" "$(tail -n1 "$T/err")"; return
	fi
	if ! "$MDF" --message-level 31 $opts --split "$vm" "${parts[@]}" >"$T/out" 2>"$T/err"; then
		notok "$name-split" "$(tail -n1 "$T/err")"; return
	fi
	# The report names every part and counts the bytes written to all.
	local saved="The dumpfiles are saved to" wb sum=0 f
	for ((i = 0; i < n; i++)); do
		saved+=" $([ $i = $((n - 1)) ] && echo "and ")${parts[$i]}$([ $i = $((n - 1)) ] && echo . || echo ,)"
	done
	wb=$(sed -n 's/^Write bytes *: //p' "$T/out" "$T/err" | head -n1)
	for f in "${parts[@]}"; do sum=$((sum + $(du -B1 --apparent-size "$f" | cut -f1))); done
	if grep -qF "$saved" "$T/out" "$T/err" && [ -n "$wb" ] && [ "$wb" -le "$sum" ] &&
	   [ "$wb" -gt $((sum / 2)) ]; then ok "$name-report-names-all-parts"
	else notok "$name-report-names-all-parts" "want '$saved', Write bytes ${wb:-none} of $sum"; fi
	check_parts "$name" "${parts[@]}"
	if [ -f "$KPY" ]; then
		check "$name-kdump.py-info" bash -c 'for f; do python3 "$0" info "$f" >/dev/null || exit 1; done' "$KPY" "${parts[@]}"
	fi
	"$MDF" --message-level 0 --reassemble "${parts[@]}" "$T/$name.re" >/dev/null 2>"$T/err"
	check "$name-reassemble-equals-direct" cmp "$T/$name.re" "$T/$name.direct"
	# any order of the parts
	rm -f "$T/$name.re"
	"$MDF" --message-level 0 --reassemble $(printf '%s\n' "${parts[@]}" | tac) "$T/$name.re" >/dev/null 2>"$T/err"
	check "$name-reassemble-any-order" cmp "$T/$name.re" "$T/$name.direct"
	if [ -n "$UP" ]; then
		"$UP" --message-level 0 --reassemble "${parts[@]}" "$T/$name.up" >/dev/null 2>&1
		check "$name-1.7.2-reassemble-equals-direct" cmp "$T/$name.up" "$T/$name.direct"
	fi
	rm -f "$T/$name".*
}

# A synthetic machine with anon, cache, free, zero and random pages.
spec="$T/syn.spec"
cat >"$spec" <<SPEC
ram 0x1000 +0x9ec00
ram 0x100000 0x4000000
pages 0x200+512 anon random
pages 0x400+256 cache text 3
fill 0x600+512 random 5
fill 0x800+256 text 7
pages 0x3800+256 free order=8
fill 0x2000+256 zero
fill 0x3000+512 random 11
SPEC
if "$GEN" "$spec" "$T/syn.vm" >"$T/gen.log" 2>&1; then
	run_set syn-l-d31-2 "$T/syn.vm" "-l -d 31" 2
	run_set syn-c-d1-3 "$T/syn.vm" "-c -d 1" 3
	run_set syn-c-d0-2 "$T/syn.vm" "-c -d 0" 2
	run_set syn-l-d31-3-threads "$T/syn.vm" "-l -d 31 --num-threads 2 --cyclic-buffer 1" 3
else
	notok "syn-gen" "$(tail -n1 "$T/gen.log")"
fi

# Bad uses.
bad() { # NAME EXPECTED-TEXT ARGS...
	local name=$1 want=$2; shift 2
	if "$MDF" "$@" >"$T/bad.out" 2>&1; then notok "$name" "exit status 0"
	elif grep -q -- "$want" "$T/bad.out"; then ok "$name"
	else notok "$name" "$(tail -n2 "$T/bad.out" | tr '\n' ' ')"; fi
}
if [ -f "$T/syn.vm" ]; then
	bad bad-split-one-file "at least 2 dump files" --split -l "$T/syn.vm" "$T/x1"
	bad bad-split-F "cannot be combined with -F" --split -F -l "$T/syn.vm" "$T/x1" "$T/x2"
	bad bad-split-E "cannot be combined with -E" --split -E "$T/syn.vm" "$T/x1" "$T/x2"
	bad bad-reassemble-one "at least 2 split files" --reassemble "$T/x1" "$T/x2"
	bad bad-split-twice "given twice" --split -l "$T/syn.vm" "$T/x1" "$T/x1"
	"$MDF" --message-level 0 -l -d 31 --split "$T/syn.vm" "$T/a1" "$T/a2" "$T/a3" >/dev/null 2>&1
	"$MDF" --message-level 0 -l -d 1 --split "$T/syn.vm" "$T/b1" "$T/b2" >/dev/null 2>&1
	"$MDF" --message-level 0 -l -d 31 "$T/syn.vm" "$T/plain" >/dev/null 2>&1
	bad bad-reassemble-missing-part "after .*a1 and before .*a3 (a part is missing)" --reassemble "$T/a1" "$T/a3" "$T/o1"
	bad bad-reassemble-missing-last "after .*a2 (its last part is missing)" --reassemble "$T/a1" "$T/a2" "$T/o2"
	bad bad-reassemble-mixed "b2: not a part of the same dump as" --reassemble "$T/a1" "$T/b2" "$T/o3"
	bad bad-reassemble-plain "not a part of a split dump" --reassemble "$T/a1" "$T/plain" "$T/o4"
	bad bad-reassemble-output-exists "already exists" --reassemble "$T/a1" "$T/a2" "$T/a3" "$T/plain"
	bad bad-refilter-part "use --reassemble" -l -d 31 "$T/a1" "$T/o5"
	check bad-reassemble-no-output-left bash -c '! ls "$0"/o[1-4] 2>/dev/null | grep -q .' "$T"
fi

# The real dump, and the installed makedumpfile's split sets.
vm=$(vmcore fx-v61-512m) || { skip "split-real" "no ../shared/vmcores (or zstd)"; exit 0; }
run_set v61-l-d31-2 "$vm" "-l -d 31" 2
run_set v61-c-d31-3 "$vm" "-c -d 31" 3
run_set v61-l-d1-3 "$vm" "-l -d 1" 3
# -L applies to each part; the "incomplete" message counts that part's
# pages (21142 at -d 31, so 10571 in part 1 of 2), not the whole dump's.
"$MDF" --message-level 4 -l -d 31 -L 4M --split "$vm" "$T/L1" "$T/L2" >"$T/L.log" 2>&1; rc=$?
if [ $rc = 1 ] && grep -q "^makedumpfile: split part 1 of 2 ($T/L1): $T/L1: the dump is incomplete ([0-9]* of 10571 pages written): the size limit of 4194304 bytes (-L) was reached$" "$T/L.log"; then
	ok "v61-split-L-part-count"
else notok "v61-split-L-part-count" "rc $rc: $(head -n 2 "$T/L.log" | tr '\n' ' ')"; fi
rm -f "$T/L1" "$T/L2"
if [ -n "$UP" ]; then
	for n in 2 3; do
		parts=(); for ((i = 1; i <= n; i++)); do parts+=("$T/u$i"); done
		rm -f "$T"/u* "$T/ud" "$T/ure"
		# 128 MiB split blocks so that 1.7.2 gives every part some pages.
		if ! "$UP" --message-level 0 -l -d 31 --splitblock-size 131072 --split "$vm" "${parts[@]}" >"$T/up.log" 2>&1; then
			notok "v61-1.7.2-split-$n" "1.7.2 failed: $(tail -n1 "$T/up.log")"; continue
		fi
		"$MDF" --message-level 0 -l -d 31 "$vm" "$T/ud" >/dev/null 2>&1
		"$MDF" --message-level 0 --reassemble "${parts[@]}" "$T/ure" >/dev/null 2>"$T/err"
		[ -f "$T/ure" ] || cat "$T/err"
		check "v61-1.7.2-split-$n-reassembled-by-us" cmp "$T/ure" "$T/ud"
	done
	rm -f "$T"/u*
else
	skip "v61-1.7.2-split" "makedumpfile 1.7.2 not installed"
fi
