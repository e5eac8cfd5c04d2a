#!/bin/bash
# --num-threads: the kdump-compressed output is byte-identical whatever the
# thread count (0 = serial, 1..4 workers), for every codec, with and
# without dump level bit 1 (shared zero page), on files, flattened streams
# (-F: same records in the same order) and -L incomplete dumps; on a
# synthetic vmcore, and on the real fx-v61-512m when it is present.
# "thread" in the name puts it in `make tsan-check`.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"

# Every kind of page content: random (stored raw), text (compresses),
# zero pages, bytes, spread over several cycles (--cyclic-buffer 4 gives
# 16384-pfn cycles) so batches cross cycle boundaries.
cat >"$T/spec" <<'SPEC'
kernel 6.1
ram 0x100000 0x6000000
pages 0x2000+512 anon random 1
pages 0x2200+3000 cache text 3
pages 0x2e00+512 cache_private byte 0x5a
fill 0x4000+700 random 9
fill 0x4400+4000 text 5
pages 0x5400+1024 free order=10
pages 0x5800+64 slab random 4
SPEC
"$GEN" "$T/spec" "$T/vmcore" || { notok "threads" "mkvmcore failed"; exit 0; }

codecs="l c"
"$MDF" -v 2>/dev/null | grep -q 'zstd.*enabled' && codecs="$codecs z"
"$MDF" -v 2>/dev/null | grep -q 'snappy.*enabled' && codecs="$codecs p"
case "${MDF_FLAVOUR:-default}" in san-*) threads="0 1 2 4";; *) threads="0 1 2 3 4";; esac

# same NAME VMCORE ARGS...: run with each thread count, compare to 0 threads.
same() {
	local name=$1 vm=$2; shift 2
	local n bad="" st0 st
	for n in $threads; do
		rm -f "$T/out.$n"
		"$MDF" --message-level 0 "$@" --num-threads $n "$vm" "$T/out.$n" \
			>/dev/null 2>"$T/err.$n"
		st=$?
		[ "$n" = 0 ] && st0=$st
		if [ "$st" != "$st0" ]; then bad="$bad n=$n exit $st (0 threads: $st0: $(tail -n1 "$T/err.$n"))"
		elif [ "$n" != 0 ] && ! cmp -s "$T/out.0" "$T/out.$n"; then
			bad="$bad n=$n: $(cmp "$T/out.0" "$T/out.$n" 2>&1 | head -n1)"
		fi
	done
	if [ -z "$bad" ] && [ "$st0" != 0 ] && [ "${EXPECT_FAIL:-0}" = 0 ]; then
		bad="exit $st0: $(tail -n1 "$T/err.0")"
	elif [ -z "$bad" ] && [ "$st0" = 0 ] && [ "${EXPECT_FAIL:-0}" = 1 ]; then
		bad="succeeded, a failure was expected"
	fi
	if [ -z "$bad" ]; then ok "$name (threads $threads, $(stat -c %s "$T/out.0") bytes)"
	else notok "$name" "$bad"; fi
	rm -f "$T"/out.*
}


# Levels with and without bit 1 for each codec (zlib is the slow one).
levels_l="0 1 31" levels_c="1 31" levels_z="0 31" levels_p="0 1"
for c in $codecs; do
	eval "levels=\$levels_$c"
	for l in $levels; do
		same "thread-identical-$c-d$l" "$T/vmcore" -$c -d $l --cyclic-buffer 4
	done
done
same "thread-identical-none-d1" "$T/vmcore" -d 1
# Read buffers instead of mmap windows: pages are copied into the batches.
same "thread-identical-non-mmap-l-d0" "$T/vmcore" -l -d 0 --non-mmap --cyclic-buffer 4
# Flattened: the records (offsets and sizes) must come in the same order.
for n in $threads; do
	"$MDF" -F --message-level 0 -c -d 1 --cyclic-buffer 4 --num-threads $n \
		"$T/vmcore" >"$T/flat.$n" 2>"$T/err.$n" || echo "exit $?" >>"$T/flat.$n"
done
bad=""
for n in $threads; do cmp -s "$T/flat.0" "$T/flat.$n" || bad="$bad n=$n"; done
if [ -z "$bad" ]; then ok "thread-identical-flattened ($(stat -c %s "$T/flat.0") bytes)"
else notok "thread-identical-flattened" "streams differ:$bad"; fi
rm -f "$T"/flat.*
# -L: the disk "fills" in the middle of the data; the incomplete dump is
# the same, and so is the failure (exit status).
EXPECT_FAIL=1 same "thread-identical-incomplete" "$T/vmcore" -l -d 0 -L 6M --cyclic-buffer 4

# The struct page scan split by pfn range (scan.c): a 3 GiB machine, one
# cycle of 3 x 2^18 pfns, so 2 and 3 threads really split it (the debug
# message says so); a 1 GiB hugetlb page right on a part boundary and
# pages on both sides of it.  Bitmap2 of --dry-run (--debug-bitmap) and
# the dump itself are the same whatever the thread count.
cat >"$T/big.spec" <<'SPEC'
kernel 6.12
cpus 2
ram 0x100000 3G
pages 0x10000+8192 anon random 1
pages 0x12000+4096 cache text 2
pages 0x13000+1024 cache_private byte 0x5a
pages 0x14000+2048 thp order=9 random 3
pages 0x3fe00+512 cache
pages 0x40000+0x40000 hugetlb order=18
pages 0x80000+512 anon random 4
pages 0x80200+64 slab
pages 0x80240+8 hwpoison
SPEC
if "$GEN" "$T/big.spec" "$T/big.elf" 2>"$T/gen.err"; then
	bad="" parts=""
	for n in $threads; do
		"$MDF" --dry-run -d 31 --message-level 31 --num-threads $n \
			--debug-bitmap "$T/bm.$n" "$T/big.elf" >"$T/dry.$n" 2>&1 ||
			bad="$bad dry-run n=$n failed: $(tail -n1 "$T/dry.$n")"
		p=$(sed -n 's/^scan: pfn .* in \([0-9]*\) parts.*/\1/p' "$T/dry.$n" | head -n1)
		parts="$parts ${p:-1}"
		if [ "$n" -ge 2 ] && [ -z "$p" ]; then bad="$bad n=$n: the scan was not split"; fi
		if [ "$n" != 0 ] && ! cmp -s "$T/bm.0" "$T/bm.$n"; then
			bad="$bad n=$n: bitmaps differ: $(cmp "$T/bm.0" "$T/bm.$n" 2>&1 | head -n1)"
		fi
		grep -v -e '^scan: ' -e '^STEP ' -e '^Elapsed' -e '^Cache hit' -e '^Input:' \
			"$T/dry.$n" >"$T/rep.$n"
		if [ "$n" != 0 ] && ! cmp -s "$T/rep.0" "$T/rep.$n"; then
			bad="$bad n=$n: the report differs"
		fi
	done
	if [ -z "$bad" ]; then ok "thread-scan-split-bitmaps (parts:$parts)"
	else notok "thread-scan-split-bitmaps" "$bad"; fi
	rm -f "$T"/bm.* "$T"/dry.* "$T"/rep.*
	# -d 17 copies 70 MB: too slow under the sanitizers.
	case "${MDF_FLAVOUR:-default}" in san-*) levels="31";; *) levels="31 17";; esac
	for l in $levels; do
		same "thread-scan-split-dump-l-d$l" "$T/big.elf" -l -d $l
	done
	rm -f "$T/big.elf"
else
	notok "thread-scan-split" "mkvmcore failed: $(tail -n1 "$T/gen.err")"
fi

vm=$(vmcore fx-v61-512m) || { skip "thread-real" "no ../shared/vmcores (or zstd)"; exit 0; }
case "${MDF_FLAVOUR:-default}" in
san-*) threads="0 2"; real="z:31";;
*) threads="0 1 2"; real="l:0 z:1 c:31";;
esac
for cl in $real; do
	c=${cl%:*} l=${cl#*:}
	echo "$codecs" | grep -q "$c" || continue
	same "thread-real-v61-$c-d$l" "$vm" -$c -d $l
done
