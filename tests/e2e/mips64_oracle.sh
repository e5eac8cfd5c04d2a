#!/bin/bash
# The mips64el oracle (issue 29): makedumpfile 1.7.2 built for mips64el
# (upstream reads mips64 dumps only when built for mips64; Debian ships no
# mips64el binary, so tests/lab/mips64el_makedumpfile.sh cross-builds
# Debian's 1.7.2 source, or upstream's tag 1.7.2, statically) run here
# under qemu-mips64el (qemu-user), on the generator's mips64el machine
# ("arch mips64", Debian's 6.1.0-50-loongson-3: 16 KiB pages, SPARSEMEM
# without a vmemmap; "arch mips64 4k", 6.1.0-50-5kc-malta: 4 KiB pages,
# FLATMEM; tests/e2e/gen_mips64.sh) without offline pages (at
# levels 0 and 1 1.7.2 walks no struct page without NUMBER(PG_hwpoison),
# which mips has not: it keeps them, as on armhf).  Our -l at -d 0, 1, 2,
# 4, 8, 16 and 31 and our -E at -d 1 and 31 must be its bytes; our -c -d 31
# its dump but for the compressed bytes (tests/tools/kdump_same.py); its -R
# of our -F stream and its --reassemble of our --split set its own -l
# file, and so its refiltering of our -l -d 1 file to -d 31 (and ours); its
# --dump-dmesg our text.  The loongson-3 machine's image PT_LOAD ends
# inside a page, 0x66f bytes into it, as kexec-tools' did on the lab's
# real kdump of Debian's loongson-3 (0x1750000 + 0x131866f): 1.7.2
# drops that page at every level, though the vmcore holds it whole
# (exclude_nodata_pages() rounds down; upstream's f2c5f76, 1.7.6), and we
# keep it.  There each of its files must differ from ours by exactly that
# page: ours without it (tests/tools/up172_nodata.py) is its bytes.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genarch.sh"
name=mips64-oracle
# It needs qemu-user, gcc-mips64el-linux-gnuabi64 and 1.7.2's source (a
# Debian mirror that serves its tarballs, or MDF_MAKEDUMPFILE_GIT), which
# CI has not: it runs with MDF_MIPS64_TEST=1 (make lab sets it; then what
# is missing fails with MDF_REAL_REQUIRED=1), or without it when the cache
# already holds the mips64el build and qemu-mips64el is there; else skips.
BIN="${MDF_MIPS64_CACHE:-/var/tmp/mdf-mips64}/mdf172/makedumpfile"
if [ "${MDF_MIPS64_TEST:-0}" != 1 ]; then
	if ! [ -x "$BIN" ]; then
		optin mips64_oracle MDF_MIPS64_TEST "no 1.7.2 mips64el build in $BIN (cross-builds it: gcc-mips64el-linux-gnuabi64 and its source)"
		exit 0
	elif ! command -v qemu-mips64el >/dev/null; then
		optin mips64_oracle MDF_MIPS64_TEST "no qemu-mips64el (qemu-user) to run $BIN"
		exit 0
	fi
fi
if ! command -v qemu-mips64el >/dev/null; then needfail "$name" "no qemu-mips64el (qemu-user)"; exit 0; fi
if ! UP=$("$MDF_SRC/tests/lab/mips64el_makedumpfile.sh" 2>"$T/build.err"); then
	needfail "$name" "makedumpfile 1.7.2 for mips64el: $(tail -n 1 "$T/build.err")"
	exit 0
fi
up() { qemu-mips64el "$UP" "$@"; }
if ! up -v 2>/dev/null | grep -q "version 1.7.2"; then
	needfail "$name" "$UP does not run under qemu-mips64el"; exit 0
fi
cat >"$T/spec" <<'SPEC'
arch mips64
cpus 2
crashkernel 0x8000000 0x4000000
ram 0x0 0x100000
ram 0x100000 0x8000000
ram 0xc000000 0x10000000
ram 0x80000000 0x84000000
pages 0x800+512 anon random
pages 0xa00+256 cache text 3
pages 0xb00+256 cache_private byte 0x5a
pages 0xc00+64 swapcache random 9
pages 0xd00+16 slab random
pages 0xe00+512 thp order=9 random
pages 0x1000+2048 free order=11
fill 0x1900+64 zero
pages 0x20400+512 anon random 5
text_tail 0x66f
dmesg Linux version 6.1.0-50-loongson-3 (mkvmcore) 1 SMP Debian 6.1.176-1
dmesg LAB-MARKER mips64 1.7.2 oracle
SPEC
# up_same VMCORE UP OURS: OURS is UP's bytes; with NODATA=1 only once the
# page 1.7.2 drops wrongly is out of OURS (and not before: then $known
# says which).  kdump_same.py (-c) compares $T/cmp.ours, OURS as modelled.
up_same() {
	known="" && cp "$3" "$T/cmp.ours" || return 1
	if [ "$NODATA" = 1 ]; then
		cmp -s "$2" "$3" && return 1
		known=$(python3 "$MDF_SRC/tests/tools/up172_nodata.py" "$1" "$3" "$T/cmp.ours") || return 1
		known=" (1.7.2 drops pfn $known)"
	fi
	# -E: but the first PT_LOAD's empty p_offset (tests/tools/elf_same.py)
	[ "${4:-}" = same ] || python3 "$MDF_SRC/tests/tools/elf_same.py" "$2" "$T/cmp.ours" >/dev/null
}

# oracle TAG VMCORE: every check of 1.7.2 against us on VMCORE.
oracle() {
	local tag=$1 v=$2 o n why known
	for o in "-l -d 0" "-l -d 1" "-l -d 2" "-l -d 4" "-l -d 8" "-l -d 16" "-l -d 31" \
		"-E -d 1" "-E -d 31"; do
		n="$tag-$(sed 's/^-//; s/ -/-/g; s/ //g' <<<"$o")"
		rm -f "$T/up" "$T/ours"
		# shellcheck disable=SC2086
		if ! up $o "$v" "$T/up" >"$T/up.log" 2>&1; then
			notok "$n" "1.7.2: $(tail -n 3 "$T/up.log" | tr '\n' ' ')"
		elif ! "$MDF" $o "$v" "$T/ours" >"$T/ours.log" 2>&1; then
			notok "$n" "ours: $(tail -n 3 "$T/ours.log" | tr '\n' ' ')"
		elif up_same "$v" "$T/up" "$T/ours"; then
			ok "$n$known"
		else
			notok "$n" "$(python3 "$MDF_SRC/tests/tools/elf_same.py" "$T/up" "$T/cmp.ours")$known"
		fi
	done
	rm -f "$T/up" "$T/ours"
	if up -c -d 31 "$v" "$T/up" >"$T/up.log" 2>&1 &&
		"$MDF" -c -d 31 "$v" "$T/ours" >"$T/ours.log" 2>&1 &&
		up_same "$v" "$T/up" "$T/ours" same &&
		why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" "$T/up" "$T/cmp.ours" 2>&1)
	then ok "$tag-c-d31 ($why)$known"; else notok "$tag-c-d31" "${why:-$(tail -n 2 "$T/up.log" "$T/ours.log" | tr '\n' ' ')}"; fi
	rm -f "$T/up" "$T/ours" "$T/p1" "$T/p2"
	up -l -d 31 "$v" "$T/up" >"$T/up.log" 2>&1
	"$MDF" -F -l -d 31 "$v" 2>/dev/null | up -R "$T/ours" >"$T/r.log" 2>&1
	if up_same "$v" "$T/up" "$T/ours"; then ok "$tag-F-then-R$known"
	else notok "$tag-F-then-R" "$(tail -n 2 "$T/r.log" | tr '\n' ' ')$known"; fi
	rm -f "$T/ours"
	"$MDF" --split -l -d 31 "$v" "$T/p1" "$T/p2" >/dev/null 2>&1
	up --reassemble "$T/p1" "$T/p2" "$T/ours" >"$T/r.log" 2>&1
	if up_same "$v" "$T/up" "$T/ours"; then ok "$tag-split-then-reassemble$known"
	else notok "$tag-split-then-reassemble" "$(tail -n 2 "$T/r.log" | tr '\n' ' ')$known"; fi
	# 1.7.2 refilters our -l -d 1 file to -d 31: its own -d 31 file (a
	# kdump input has no PT_LOAD: 1.7.2 keeps the page there), and ours
	rm -f "$T/ours" "$T/l1" "$T/r31"
	"$MDF" -l -d 1 "$v" "$T/l1" >/dev/null 2>&1
	up -l -d 31 "$T/l1" "$T/r31" >"$T/r.log" 2>&1
	"$MDF" -l -d 31 "$T/l1" "$T/ours" >/dev/null 2>&1
	if up_same "$v" "$T/up" "$T/r31" && cmp -s "$T/r31" "$T/ours"; then ok "$tag-refilter-l-d1-to-d31$known"
	else notok "$tag-refilter-l-d1-to-d31" "$(tail -n 2 "$T/r.log" | tr '\n' ' ')$known"; fi
	rm -f "$T/up" "$T/ours" "$T/l1" "$T/r31"
	up --dump-dmesg "$v" "$T/up" >/dev/null 2>&1
	"$MDF" --dump-dmesg "$v" "$T/ours" >/dev/null 2>&1
	if [ -s "$T/up" ] && cmp -s "$T/up" "$T/ours"; then ok "$tag-dmesg"
	else notok "$tag-dmesg" "$(diff "$T/up" "$T/ours" 2>&1 | head -n 3 | tr '\n' ' ')"; fi
}

genarch_make "$name" 'MIPS R3000' little || exit 0
NODATA=1 oracle "$name" "$V"
# "arch mips64 4k": 5kc-malta, 4 KiB pages, FLATMEM, the 2-page PGD
cat >"$T/spec4k" <<'SPEC'
arch mips64 4k
cpus 2
crashkernel 0x8000000 0x4000000
ram 0x0 0x100000
ram 0x100000 0x8000000
ram 0xc000000 0x10000000
pages 0x2000+512 anon random
pages 0x2200+256 cache text 3
pages 0x2300+256 cache_private byte 0x5a
pages 0x2400+64 swapcache random 9
pages 0x2600+16 slab random
pages 0x2800+1024 thp order=9 random
pages 0x3000+1024 free order=10
fill 0x3800+64 zero
pages 0xc400+512 anon random 5
dmesg Linux version 6.1.0-50-5kc-malta (mkvmcore) 1 SMP Debian 6.1.176-1
dmesg LAB-MARKER mips64 4k 1.7.2 oracle
SPEC
genarch_variant "$name-4k" "$T/spec4k" && NODATA=0 oracle "$name-4k" "$T/v.$name-4k"
exit 0
