#!/bin/bash
# Dump levels on synthetic vmcores from tests/gen: for every kernel preset
# and the awkward ELF shapes, the dumpable and present bitmaps must equal the
# generator's reference (computed from the declared page kinds, not from the
# struct pages: an independent oracle), whatever the cycle size.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"

body() {
	cat <<SPEC
page_offset 0xffff8ceb00000000
vmemmap 0xfffffab7c0000000
kaslr 0x26e00000
phys_base -322961408
text 0x3430000
crashkernel 0x8000000 0xc000000
ram 0x1000 +0x9ec00
ram 0x100000 0x8000000
ram 0x14000000 0x1ffda000 $1
pages 0x2000+512 anon random
pages 0x2200+256 cache text 3
pages 0x2300+256 cache_private byte 0x5a
pages 0x2400+64 swapcache random 9
pages 0x2600+1024 thp order=9 random
pages 0x2a00+512 hugetlb text
pages 0x2c00+16 slab random
pages 0x2c10+4 hwpoison
pages 0x2c14+4 offline
pages 0x3000+256 free order=8
fill 0x4000+256 zero
pages 0x5000+1 anon zero
SPEC
}

run_case() { # NAME SPEC-TEXT EXTRA-OPTS...
	local name=$1 spec=$2; shift 2
	local d="$T/$name"
	mkdir -p "$d"
	printf '%s\n' "$spec" >"$d/spec"
	if ! "$GEN" "$d/spec" "$d/vmcore" --ref "$d/ref" >"$d/gen.log" 2>&1; then
		notok "gen-$name" "mkvmcore failed: $(tail -n1 "$d/gen.log")"; return
	fi
	local bad=""
	for l in 0 1 2 4 8 16 31; do
		if ! "$MDF" -f --dry-run --message-level 0 -d $l "$@" --debug-bitmap "$d/b2.$l" \
			--debug-bitmap1 "$d/b1" "$d/vmcore" >"$d/mdf.$l.log" 2>&1; then
			bad="$bad d$l:exit($(tail -n1 "$d/mdf.$l.log"))"; continue
		fi
		cmp -s "$d/b2.$l" "$d/ref/d$l.bitmap2" || bad="$bad d$l:bitmap2"
		cmp -s "$d/b1" "$d/ref/bitmap1" || bad="$bad d$l:bitmap1"
	done
	if [ -z "$bad" ]; then ok "gen-$name"; else notok "gen-$name" "$bad"; fi
}

for k in 5.10 6.1 6.12 7.1; do
	run_case "kernel-$k" "kernel $k
$(body)"
done
run_case "memsz-gt-filesz" "kernel 6.12
$(body memsz=0x20000000)"
run_case "vmemmap-4k-ptes" "kernel 6.1
vmemmap_pte 4k
$(body)"
run_case "tiny-cycles" "kernel 6.12
$(body)" --cyclic-buffer 1
run_case "non-mmap" "kernel 6.1
$(body)" --non-mmap
# A 1 GiB hugetlb page spans 64 cycles of 4096 pfns: the exclusion its head
# decides must carry across every cycle boundary.
run_case "straddle-cycles" "kernel 6.1
ram 0x100000 0x80000000
pages 0x40000+262144 hugetlb order=18 text
pages 0x2000+512 thp order=9 random" --cyclic-buffer 1
