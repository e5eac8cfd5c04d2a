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
. "$(dirname "$0")/../lib/oracle.sh"
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
