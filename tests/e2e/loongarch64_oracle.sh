#!/bin/bash
# The loongarch64 oracle (issue 29): makedumpfile 1.7.2 built for loong64
# (upstream reads LoongArch dumps only when built for it; Debian builds no
# makedumpfile for loong64, so tests/lab/loong64_makedumpfile.sh
# cross-builds 1.7.2 statically in the readers' sid root) run here under
# sid's qemu-loongarch64 (qemu-user), on the generator's loongarch64
# machine with "kernel 6.1" (tests/gen/README.md: the 7.2 machine and
# layout with 6.1's struct page semantics and printk ring; tests/e2e/
# gen_loongarch64.sh checks the machine itself).  Why 6.1 and not the 7.2
# of Debian's loong64 kernel: 1.7.2's struct page knowledge ends with
# 6.0/6.1 (compound_dtor and compound_order in page[1], PG_slab, buddy and
# offline in _mapcount); on 7.2's (page types in the top byte of
# page_type, folio order in page[1].flags, compound_info) it misses the
# user pages (the README's loong64 paragraph: 0x1ad of a real dump's
# 6498).  6.1 is past its LATEST_VERSION (6.0.1) too, so it says "The
# kernel version is not supported." and goes on: as on mips64el
# (tests/e2e/mips64_oracle.sh), 6.1's semantics are those it reads.
# Our -l at -d 0, 1, 2, 4, 8, 16 and 31 and our -E at -d 1 and 31 must be
# its bytes; our -c -d 31 its dump but for the compressed bytes
# (tests/tools/kdump_same.py); its -R of our -F stream and its
# --reassemble of our --split set its own -l file, and so its refiltering
# of our -l -d 1 file to -d 31 (and ours); its --dump-dmesg our text.
# Offline pages are a variant: at levels 0 and 1 1.7.2 walks no struct
# page without NUMBER(PG_hwpoison), which this kernel has not (no
# CONFIG_MEMORY_FAILURE), so it keeps them there, as on armhf and mips64el;
# we drop them at every level (an offline page's memory is the
# hypervisor's or unplugged: what it holds is not the kernel's, the rule
# 1.7.2 applies itself whenever it walks the struct pages, from -d 2 on).
# There its -l -d 0 and -d 1 files, less those pages
# (tests/tools/up172_nodata.py's drop_kdump), must be ours, and -d 2
# and 31 its bytes.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genarch.sh"
. "$(dirname "$0")/../lib/oracle.sh"
name=loongarch64-oracle
# It needs root (the sid root's chroot), sid's cross compiler and
# qemu-user there and 1.7.2's source (a Debian mirror that serves its
# tarballs, or MDF_MAKEDUMPFILE_GIT), which CI has not: it runs with
# MDF_LOONG64_TEST=1 (make lab sets it; then what is missing fails with
# MDF_REAL_REQUIRED=1), or without it when the cache already holds the
# build and its qemu-loongarch64; else skips.
DIR=${MDF_LOONG64_CACHE:-/var/tmp/mdf-loong64}
BIN="$DIR/mdf172/makedumpfile" QEMU="$DIR/qemu-loongarch64"
if [ "${MDF_LOONG64_TEST:-0}" != 1 ]; then
	if ! [ -x "$BIN" ] || ! [ -x "$QEMU" ]; then
		optin loongarch64_oracle MDF_LOONG64_TEST "no 1.7.2 loong64 build and qemu-loongarch64 in $DIR (cross-builds it in the readers' sid root: root, sid's gcc-loongarch64-linux-gnu and qemu-user, 1.7.2's source)"
		exit 0
	fi
fi
if ! UP=$("$MDF_SRC/tests/lab/loong64_makedumpfile.sh" 2>"$T/build.err"); then
	needfail "$name" "makedumpfile 1.7.2 for loong64: $(tail -n 1 "$T/build.err")"
	exit 0
fi
up() { "$QEMU" "$UP" "$@"; }
if ! up -v 2>/dev/null | grep -q "version 1.7.2"; then
	needfail "$name" "$UP does not run under $QEMU"; exit 0
fi
cat >"$T/spec" <<'SPEC'
arch loongarch64
kernel 6.1
cpus 2
ram 0 +256M
ram 0x90000000 +768M
pages 0x2000+512 anon random
pages 0x2200+256 cache text 3
pages 0x2300+256 cache_private byte 0x5a
pages 0x2400+64 swapcache random 9
pages 0x2800+2048 thp random
pages 0x3000+512 hugetlb order=9 text
pages 0x3200+16 slab random
pages 0x3400+256 free order=8
fill 0x3600+256 zero
pages 0x3700+1 anon zero
pages 0x24800+64 kernel random 4
pages 0x25000+512 cache text 5
pages 0x26000+128 anon random 7
dmesg Linux version 6.1.0-model-loong64 (mkvmcore) 1 SMP
dmesg LAB-MARKER loongarch64 1.7.2 oracle
SPEC
# (up_same: tests/lib/oracle.sh's, OURS exactly UP's bytes)

genarch_make "$name" LoongArch little || exit 0
MARK="LAB-MARKER loongarch64" oracle "$name" "$V"
rm -f "$V"

# Offline pages: 1.7.2 keeps them at -d 0 and 1 (above); without them its
# files there are ours, and from -d 2 on it drops them too.
OFF="0x3214 0x3215 0x3216 0x3217"
sed -e 's/^pages 0x3200+16 slab random/&\npages 0x3214+4 offline/' "$T/spec" >"$T/spec.off"
cat >"$T/drop.py" <<'PY'
import mmap, os, sys
sys.path.insert(0, os.path.join(os.environ["MDF_SRC"], "tests", "tools"))
from up172_nodata import drop_kdump
with open(sys.argv[1], "rb") as f:
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
want = [int(p, 0) for p in sys.argv[3:]]
with open(sys.argv[2], "wb") as out:
    hit = drop_kdump(m, out, want)
sys.exit(0 if sorted(hit) == sorted(want) else 1)
PY
if genarch_variant "$name-offline" "$T/spec.off"; then
	v="$T/v.$name-offline"
	for l in 0 1 2 31; do
		n="$name-offline-l-d$l" known=""
		rm -f "$T/up" "$T/ours" "$T/up.less"
		if ! up -l -d $l "$v" "$T/up" >"$T/up.log" 2>&1; then
			notok "$n" "1.7.2: $(tail -n 3 "$T/up.log" | tr '\n' ' ')"; continue
		elif ! "$MDF" -l -d $l "$v" "$T/ours" >"$T/ours.log" 2>&1; then
			notok "$n" "ours: $(tail -n 3 "$T/ours.log" | tr '\n' ' ')"; continue
		fi
		if [ $l -le 1 ]; then
			# shellcheck disable=SC2086
			if cmp -s "$T/up" "$T/ours" || ! python3 "$T/drop.py" "$T/up" "$T/up.less" $OFF; then
				notok "$n" "1.7.2 does not keep exactly the offline pfns $OFF"; continue
			fi
			mv "$T/up.less" "$T/up" && known=" (1.7.2 keeps the offline pfns $OFF)"
		fi
		if cmp -s "$T/up" "$T/ours"; then ok "$n$known"
		else notok "$n" "$(cmp "$T/up" "$T/ours" 2>&1 | head -n 1)$known"; fi
	done
	rm -f "$T/up" "$T/ours" "$v"
fi

# The lab's real loong64 kdump (tests/e2e/foreign.sh keeps it with
# MDF_FOREIGN_KEEP: Debian's 7.2.13+deb14-loong64) against upstream's HEAD
# built the same way (tests/lab/loong64_makedumpfile.sh head, from
# MDF_MAKEDUMPFILE_GIT; without it the HEAD built last, if any), the one upstream that knows 7.x's struct page: the
# same checks, but dmesg without HEAD's caller ids.  HEAD has upstream's
# fix of 1.7.2's last-page drop (f2c5f76), so the image PT_LOAD that ends
# 0x3a00 bytes into a page is no exception.
RV=${MDF_LOONG64_VMCORE:-/var/tmp/loong64-keep/mdf-loong64-default.elf}
if [ ! -s "$RV" ]; then
	skip "$name-head" "no real loong64 vmcore $RV (MDF_FOREIGN_TEST=1 MDF_FOREIGN_ARCHES=loong64 MDF_FOREIGN_KEEP=DIR keeps one; MDF_LOONG64_VMCORE names it)"
elif [ -z "${MDF_MAKEDUMPFILE_GIT:-}" ] && ! [ -x "$DIR/head/makedumpfile" ]; then
	skip "$name-head" "no MDF_MAKEDUMPFILE_GIT (a git directory of upstream makedumpfile) to build HEAD from"
elif [ -z "${MDF_MAKEDUMPFILE_GIT:-}" ] && UP=$DIR/head/makedumpfile; then
	# without the git directory: the HEAD built last
	ok "$name-head-build ($(cat "$DIR/head/version"), cached)"
	CALLER=1 MARK="Linux version" oracle "$name-head-real" "$RV"
elif ! UP=$("$MDF_SRC/tests/lab/loong64_makedumpfile.sh" head 2>"$T/build.err"); then
	needfail "$name-head" "upstream HEAD for loong64: $(tail -n 1 "$T/build.err")"
else
	ok "$name-head-build ($(cat "$(dirname "$UP")/version"))"
	CALLER=1 MARK="Linux version" oracle "$name-head-real" "$RV"
fi
exit 0
