#!/bin/bash
# Peak memory stays flat as the dump grows: synthetic 2 GiB and 16 GiB
# machines (real struct page arrays, sparse files), filtered and written
# with a small --cyclic-buffer.  Peak RSS is measured with getrusage.  A
# full pass over each maps one 256 MiB window at a time (4 mmap calls per
# GiB: 4,096 for 1 TiB) and never more than 512 MiB at once.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"
case "${MDF_FLAVOUR:-default}" in san-*) skip "memory-bound" "sanitizer build: RSS is the sanitizer's"; exit 0;; esac

maxrss() { # COMMAND... -> peak RSS of the command in KiB
	python3 - "$@" <<'PY'
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if r.returncode: print("fail"); sys.exit(0)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
# A 32-bit host (tests/cross.sh i386, armhf) maps 64 MiB windows, 128 MiB
# at most (cache.c): 16 a GiB.
win=4 most=512
[ "${MDF_HOST_BITS:-64}" = 32 ] && win=16 most=128
declare -A rss
for g in 2 16; do
	printf 'kernel 6.12\nram 0x100000 %sG\npages 0x2000+4096 anon random\npages 0x3000+2048 cache text\n' $g >"$T/s$g"
	"$GEN" "$T/s$g" "$T/v$g" || { notok "memory-bound" "mkvmcore failed"; exit 0; }
	rss[dry$g]=$(maxrss "$MDF" --dry-run --message-level 0 -d 31 --cyclic-buffer 64 "$T/v$g")
	rss[write$g]=$(maxrss "$MDF" --message-level 0 -l -d 31 --cyclic-buffer 64 "$T/v$g" "$T/out$g")
	# A full pass (-d 1 reads every page): one mmap per 256 MiB window,
	# 512 MiB mapped at most, whatever the size of the machine (32-bit:
	# 64 and 128 MiB).
	"$MDF" --dry-run --message-level 16 -d 1 "$T/v$g" >"$T/pass$g" 2>&1
	line=$(grep '^Input:' "$T/pass$g")
	n=$(sed -n 's/^Input: mmap \([0-9]*\),.*/\1/p' <<<"$line")
	m=$(sed -n 's/.*mapped at most \([0-9]*\) MiB.*/\1/p' <<<"$line")
	if [ -n "$n" ] && [ -n "$m" ] && [ "$n" -le $((g * win + 8)) ] && [ "$m" -le "$most" ]; then
		ok "memory-bound-windows-${g}G ($line)"
	else notok "memory-bound-windows-${g}G" "${line:-no Input: line: $(tail -n 2 "$T/pass$g" | tr '\n' ' ')}"; fi
	rm -f "$T/v$g" "$T/out$g"
done
for job in dry write; do
	a=${rss[${job}2]} b=${rss[${job}16]}
	if [ -n "${MDF_CROSS:-}" ]; then
		# tests/cross.sh: the RSS is qemu-user's (its own tables grow with
		# what the guest maps), not only ours
		skip "memory-bound-$job" "a $MDF_CROSS build under qemu-user (peak RSS ${a} KiB at 2 GiB, ${b} KiB at 16 GiB)"
	elif [ "$a" = fail ] || [ "$b" = fail ]; then notok "memory-bound-$job" "makedumpfile failed"
	elif [ $((b - a)) -le 4096 ] && [ "$b" -le 65536 ]; then ok "memory-bound-$job (peak RSS ${a} KiB at 2 GiB, ${b} KiB at 16 GiB)"
	else notok "memory-bound-$job" "peak RSS ${a} KiB at 2 GiB, ${b} KiB at 16 GiB"; fi
done
