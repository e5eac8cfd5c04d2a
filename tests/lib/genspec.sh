# tests/lib/genspec.sh - sourced after lib.sh by e2e scripts that run the
# program on synthetic dumps from tests/gen (and by genarch.sh): GEN (the
# generator), the spec lines they share and the making of a dump with its
# reference bitmaps.
GEN="$MDF_BUILD/tests/gen/mkvmcore"

# genspec_small: a 128 MiB 6.12 machine with user, cache and text pages:
# what the callers' tests (callers.sh, callerscripts.sh) dump.
genspec_small() {
	cat <<'SPEC'
kernel 6.12
ram 0x1000 +0x9ec00
ram 0x100000 0x8000000
pages 0x4000+2048 anon random 1
pages 0x2000+1024 cache text 2
fill 0x5000+1024 text 3
SPEC
}

# genspec_kinds: a page of every kind the filter tells apart, and content
# of every sort (random, text, one byte, zero), in pfns 0x2000-0x5000.
# The scripts that use it name these pfns and count these pages: a change
# here changes what each of them expects.
genspec_kinds() {
	cat <<'SPEC'
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

# genspec_x86 [RAM-OPTS]: an x86_64 machine laid out as a Debian kernel's
# (KASLR, a crashkernel hole, three RAM ranges, RAM-OPTS such as
# memsz=0x20000000 on the last) with genspec_kinds; no "kernel" line, the
# caller puts its own first.
genspec_x86() {
	cat <<SPEC
page_offset 0xffff8ceb00000000
vmemmap 0xfffffab7c0000000
kaslr 0x26e00000
phys_base -322961408
text 0x3430000
crashkernel 0x8000000 0xc000000
ram 0x1000 +0x9ec00
ram 0x100000 0x8000000
ram 0x14000000 0x1ffda000${1:+ $1}
SPEC
	genspec_kinds
}

# gen_vmcore NAME DIR SPEC-TEXT: the generator makes DIR/vmcore and its
# reference bitmaps (DIR/ref/bitmap1, DIR/ref/dL.bitmap2) from SPEC-TEXT,
# kept as DIR/spec.  False, with "not ok NAME", when it fails.
gen_vmcore() {
	local name=$1 d=$2
	mkdir -p "$d"
	printf '%s\n' "$3" >"$d/spec"
	"$GEN" "$d/spec" "$d/vmcore" --ref "$d/ref" >"$d/gen.log" 2>&1 && return 0
	notok "$name" "mkvmcore failed: $(tail -n1 "$d/gen.log")"
	return 1
}
