#!/bin/bash
# Dump levels on synthetic vmcores from tests/gen: for every kernel preset
# and the awkward ELF shapes, the dumpable and present bitmaps must equal the
# generator's reference (computed from the declared page kinds, not from the
# struct pages: an independent oracle), whatever the cycle size.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genspec.sh"

run_case() { # NAME SPEC-TEXT EXTRA-OPTS...
	local name=$1 spec=$2; shift 2
	local d="$T/$name"
	gen_vmcore "gen-$name" "$d" "$spec" || return
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
$(genspec_x86)"
done
run_case "memsz-gt-filesz" "kernel 6.12
$(genspec_x86 memsz=0x20000000)"
run_case "vmemmap-4k-ptes" "kernel 6.1
vmemmap_pte 4k
$(genspec_x86)"
run_case "tiny-cycles" "kernel 6.12
$(genspec_x86)" --cyclic-buffer 1
run_case "non-mmap" "kernel 6.1
$(genspec_x86)" --non-mmap
# A 1 GiB hugetlb page spans 64 cycles of 4096 pfns: the exclusion its head
# decides must carry across every cycle boundary.
run_case "straddle-cycles" "kernel 6.1
ram 0x100000 0x80000000
pages 0x40000+262144 hugetlb order=18 text
pages 0x2000+512 thp order=9 random" --cyclic-buffer 1
