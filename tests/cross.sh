#!/bin/bash
# tests/cross.sh ARCH [BUILD_DIR] - build the program and its tests for a
# Debian architecture with the cross compiler, run them under qemu-user,
# and check that the foreign build writes the same bytes as the host's.
#
#   ARCH        riscv64, ppc64el, s390x, arm64, mips64el or loong64 (s390x
#               is big-endian: our own code is then tested on a big-endian
#               host), or i386 or armhf (32-bit hosts: a 32-bit size_t and
#               address space, a 64-bit off_t; there a dump over 4 GiB is
#               filtered too, big_dump below, under trixie's qemu-user).
#               loong64: sid's cross compiler and qemu-user from the
#               readers' sid root (sid_tools below; needs root)
# -l and -E files must be byte-identical; -c, -p and -z ones the same dump
# (tests/tools/kdump_same.py), since their bytes depend on the codec
# library's version.
#   BUILD_DIR   the host build to compare with (default build/default)
# MDF_CROSS_TESTS="unit/ fuzz/" (the default) picks what tests/run.sh
# runs under qemu; "e2e/" adds the end-to-end scripts (make lab: minutes).
# MDF_CROSS_BUILD_ONLY=1 stops after the build (build/cross-ARCH: the lab
# runs that program in the capture kernel, tests/lab/foreign/cpio).
#
# The libraries come from Debian's packages of ARCH (apt-get download
# into a private apt state, tests/lib/apt.sh, from the Debian mirror of
# this machine's apt sources; dpkg -x into a sysroot; nothing is installed)
# under ${MDF_CROSS_CACHE:-/var/tmp/mdf-cross}/ARCH.  The compiled tests run
# through MDF_RUNNER (tests/run.sh), and the programs that tests start by
# path (the generator, makedumpfile) are wrapped so that they run under
# qemu too.  Prints the usual "N passed, N failed, N skipped" line.  When
# the cross tools or the sysroot cannot be had it skips, or with
# MDF_REAL_REQUIRED=1 fails ("not ok cross-ARCH: why", 0 passed, 1 failed).
set -u
ARCH=${1:?usage: tests/cross.sh riscv64|ppc64el|s390x|arm64|mips64el|loong64|i386|armhf [BUILD_DIR]}
SRC=$(cd "$(dirname "$0")/.." && pwd)
HOST_B=$(cd "${2:-$SRC/build/default}" && pwd) || exit 1
case "$ARCH" in
riscv64) TRIPLET=riscv64-linux-gnu; QEMU=qemu-riscv64; SUITE=trixie ;;
ppc64el) TRIPLET=powerpc64le-linux-gnu; QEMU=qemu-ppc64le; SUITE=bookworm ;;
s390x) TRIPLET=s390x-linux-gnu; QEMU=qemu-s390x; SUITE=bookworm ;;
arm64) TRIPLET=aarch64-linux-gnu; QEMU=qemu-aarch64; SUITE=bookworm ;;
i386) TRIPLET=i686-linux-gnu; QEMU=qemu-i386; SUITE=bookworm; MULTIARCH=i386-linux-gnu ;;
armhf) TRIPLET=arm-linux-gnueabihf; QEMU=qemu-arm; SUITE=bookworm ;;
mips64el) TRIPLET=mips64el-linux-gnuabi64; QEMU=qemu-mips64el; SUITE=bookworm ;;
# a Debian architecture of sid's alone (no bookworm or trixie archive)
loong64) TRIPLET=loongarch64-linux-gnu; QEMU=qemu-loongarch64; SUITE=sid ;;
*) echo "tests/cross.sh: unknown architecture $ARCH" >&2; exit 2 ;;
esac
# the sysroot's library directory (i386's is not named after its gcc)
MULTIARCH=${MULTIARCH:-$TRIPLET}
# the 32-bit hosts (.ci/slice.sh and tests/e2e/ci_slice.sh read this line)
HOST32="i386 armhf"
# lib.sh: T (removed on exit) and needfail; apt.sh: the private apt state.
. "$SRC/tests/lib/lib.sh"
. "$SRC/tests/lib/apt.sh"
# setup_failed WHY: the tools or the sysroot could not be had: a skip, or
# with MDF_REAL_REQUIRED=1 (CI asked for this test) a failure.
setup_failed() {
	needfail "cross-$ARCH" "$1"
	if [ "${MDF_REAL_REQUIRED:-0}" = 1 ]; then
		echo "0 passed, 1 failed, 0 skipped"; exit 1
	fi
	echo "0 passed, 0 failed, 1 skipped"; exit 0
}
CACHE=${MDF_CROSS_CACHE:-/var/tmp/mdf-cross}/$ARCH
SYSROOT=$CACHE/sysroot
B=$SRC/build/cross-$ARCH
GCC=$TRIPLET-gcc

# ---- loong64: sid's cross compiler and qemu-user ----------------------
# Neither bookworm nor trixie has a loongarch64 cross compiler, and
# bookworm's qemu-user 7.2 dies with SIGILL on gcc 16's code: sid's
# gcc-loongarch64-linux-gnu (16) and qemu-user (11, static binaries) from
# the readers' sid root (tests/lab/readers/root.sh), installed there once
# under the lock every apt run in that root takes.  The compiler runs
# chrooted there through tests/lib/chroot_run.sh, with this tree, the
# sysroot and /tmp at the same paths as outside.
sid_tools() {
	local r log=$CACHE.tools.log
	: >"$log"
	r=$("$SRC/tests/lab/readers/root.sh" 2>>"$log") || { SID_WHY="no sid root: $(tail -n 1 "$log")"; return 1; }
	if [ ! -x "$r/usr/bin/$TRIPLET-gcc" ] || [ ! -f "$r/usr/$TRIPLET/lib/crt1.o" ] ||
		[ ! -x "$r/usr/bin/$QEMU" ]; then
		"$SRC/tests/lib/sid_install.sh" "$r" "$log" "gcc-$TRIPLET" "libc6-dev-$ARCH-cross" qemu-user ||
			{ SID_WHY="cannot install sid's gcc-$TRIPLET and qemu-user in $r: $(tail -n 1 "$log")"; return 1; }
	fi
	mkdir -p "$CACHE/bin" || return 1
	printf '#!/bin/sh\n# (tests/cross.sh) sid'"'"'s %s in %s\nexec %q %q %q %q "$@"\n' \
		"$TRIPLET-gcc" "$r" "$SRC/tests/lib/chroot_run.sh" "$r" "$SRC:$SYSROOT:/tmp" "$TRIPLET-gcc" \
		>"$CACHE/bin/$TRIPLET-gcc" && chmod 755 "$CACHE/bin/$TRIPLET-gcc" || return 1
	GCC=$CACHE/bin/$TRIPLET-gcc
	QEMU=$r/usr/bin/$QEMU
}
if [ "$ARCH" = loong64 ]; then
	SID_WHY="cannot write $CACHE/bin"
	mkdir -p "$CACHE" && sid_tools || setup_failed "$SID_WHY"
fi
BITS=64 tools=("$GCC" apt-get dpkg)
# a 32-bit host's qemu is trixie's (below)
if [[ " $HOST32 " == *" $ARCH "* ]]; then BITS=32; else tools+=("$QEMU"); fi
for t in "${tools[@]}"; do
	command -v "$t" >/dev/null || setup_failed "no $t (apt-get install gcc-$TRIPLET qemu-user)"
done

# ---- the sysroot -----------------------------------------------------
stage() {
	local log=$CACHE.stage.log p pkgs=()
	rm -rf "$CACHE/apt" "$CACHE/debs"
	mkdir -p "$CACHE/debs" || return 1
	# riscv64 is a Debian architecture since trixie; the others from
	# bookworm, whose archive is complete for them.
	DEB_ARCH=$ARCH
	apt_state "$CACHE/apt" "$log" "$SUITE" || return 1
	# The t64 names are trixie's, the others bookworm's: what the index has.
	for p in libc6 libc6-dev linux-libc-dev libcrypt1 libcrypt-dev zlib1g zlib1g-dev \
		liblzo2-2 liblzo2-dev libelf1 libelf1t64 libelf-dev libdw1 libdw1t64 libdw-dev \
		libzstd1 libzstd-dev liblzma5 liblzma-dev libbz2-1.0 libsnappy1v5 libsnappy-dev libstdc++6 \
		libgcc-s1 libdeflate0 libdeflate-dev libbpf1 libbpf-dev; do
		apt_has "$p" && pkgs+=("$p")
	done
	apt_download "$log" "$CACHE/debs" "${pkgs[@]}" || return 1
	rm -rf "$SYSROOT"
	for d in "$CACHE"/debs/*.deb; do dpkg -x "$d" "$SYSROOT" || return 1; done
	for h in zlib.h lzo/lzo1x.h libelf.h elfutils/libdw.h; do
		[ -f "$SYSROOT/usr/include/$h" ] || { echo "no $h for $ARCH"; return 1; }
	done
	# usr-merged packages: the linker scripts name /lib/...
	[ -e "$SYSROOT/lib" ] || ln -s usr/lib "$SYSROOT/lib"
	# (sid's loong64 interpreter is /lib64/ld-linux-loongarch-lp64d.so.1)
	[ -e "$SYSROOT/lib64" ] || [ ! -d "$SYSROOT/usr/lib64" ] || ln -s usr/lib64 "$SYSROOT/lib64"
	# Absolute links (bookworm's /lib64/ld64.so.2) point into the host.
	find "$SYSROOT" -type l | while read -r l; do
		t=$(readlink "$l")
		[[ "$t" == /* ]] || continue
		ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$SYSROOT$t")" "$l"
	done
	# what was built against the old sysroot (make does not see it)
	rm -rf "$B"
	touch "$CACHE/staged.v3"
}
mkdir -p "$CACHE" || exit 1
if [ ! -f "$CACHE/staged.v3" ] && { : >"$CACHE.stage.log"; ! stage >>"$CACHE.stage.log" 2>&1; }; then
	setup_failed "cannot stage $SUITE's $ARCH libraries: $(tail -n 1 "$CACHE.stage.log")"
fi

# ---- qemu for a 32-bit guest -------------------------------------------
# bookworm's qemu-user (7.2) cuts a 32-bit guest's mmap() offset to 32
# bits: a window past 4 GiB of the file maps other bytes, with no error
# (and its /proc/self/mem is the emulator's memory).  Since qemu 8.1 the
# offset is an off_t: trixie's qemu-user (10.0, static binaries) is
# fetched like the libraries, never installed, and only its
# qemu-i386 and qemu-arm kept.  MDF_CROSS_QEMU=PATH names another.
stage_qemu() {
	local log=$QCACHE.stage.log q
	rm -rf "$QCACHE/apt" "$QCACHE/debs" "$QCACHE/root" "$QCACHE/bin"
	mkdir -p "$QCACHE/debs" "$QCACHE/bin" || return 1
	DEB_ARCH=$(dpkg --print-architecture)
	apt_state "$QCACHE/apt" "$log" trixie || return 1
	apt_download "$log" "$QCACHE/debs" qemu-user || return 1
	dpkg -x "$QCACHE"/debs/qemu-user_*.deb "$QCACHE/root" || return 1
	for q in qemu-i386 qemu-arm; do
		mv "$QCACHE/root/usr/bin/$q" "$QCACHE/bin/" || return 1
	done
	rm -rf "$QCACHE/apt" "$QCACHE/debs" "$QCACHE/root"
	"$QCACHE/bin/qemu-i386" --version | head -n 1 || return 1
	touch "$QCACHE/staged"
}
if [ -n "${MDF_CROSS_QEMU:-}" ]; then
	QEMU=$MDF_CROSS_QEMU
elif [ $BITS = 32 ]; then
	QCACHE=${MDF_CROSS_CACHE:-/var/tmp/mdf-cross}/qemu-trixie
	mkdir -p "$QCACHE" || exit 1
	if [ ! -f "$QCACHE/staged" ] && { : >"$QCACHE.stage.log"; ! stage_qemu >>"$QCACHE.stage.log" 2>&1; }; then
		setup_failed "cannot stage trixie's qemu-user: $(tail -n 1 "$QCACHE.stage.log")"
	fi
	QEMU=$QCACHE/bin/$QEMU
fi

# ---- build -------------------------------------------------------------
# The kernel objects beside mkvmcore are this architecture's (the unit
# tests compare their DWARF with this compiler's sizeof()); the e2e
# scripts give them to -x as the x86_64 vmlinux of x86_64 dumps: the
# host build's, for the e2e scripts only.
host_kobjs() { # on | off
	local h k
	for h in "$HOST_B"/tests/gen/kobj "$HOST_B"/tests/gen/kobj-* "$HOST_B"/tests/gen/cycle-*; do
		k=$B/tests/gen/${h##*/}
		[[ "$h" != *.* ]] && [ -f "$h" ] || continue
		[ -f "$k" ] || [ -f "$k.$ARCH" ] || continue
		case $1 in
		on) [ -f "$k.$ARCH" ] || mv "$k" "$k.$ARCH"; cp "$HOST_B/tests/gen/${k##*/}" "$k" ;;
		off) [ -f "$k.$ARCH" ] && mv "$k.$ARCH" "$k" ;;
		esac
	done
}
# (a run cut short left the host's in place)
host_kobjs off
export PKG_CONFIG_SYSROOT_DIR=$SYSROOT
export PKG_CONFIG_LIBDIR=$SYSROOT/usr/lib/$MULTIARCH/pkgconfig:$SYSROOT/usr/share/pkgconfig
build_error() { grep -m1 -E 'error:|undefined reference|cannot find|Error [0-9]' "$1"; }
if ! make -C "$SRC" -j2 DEVELOPER=1 CC="$GCC --sysroot=$SYSROOT" B="$B" test-bins \
	>"$B.log" 2>&1; then
	echo "not ok cross-$ARCH-build: $(build_error "$B.log")"
	echo "0 passed, 1 failed, 0 skipped"; exit 1
fi
if [ -n "${MDF_CROSS_BUILD_ONLY:-}" ]; then
	echo "ok cross-$ARCH-build"; echo "1 passed, 0 failed, 0 skipped"; exit 0
fi
RUN=("$QEMU" -L "$SYSROOT")
# Programs the tests start by path run under qemu as well (not the kernel
# objects beside mkvmcore: their DWARF is read, never run).
for p in "$B/makedumpfile" "$B/tests/gen/mkvmcore" "$B"/tests/tools/*; do
	[[ "$p" != *".$ARCH" ]] || continue
	# (a wrapper of an earlier run is written again: QEMU may differ)
	if file -b "$p" | grep -q '^ELF'; then mv "$p" "$p.$ARCH"
	elif [ ! -f "$p.$ARCH" ]; then continue; fi
	printf '#!/bin/sh\nexec %s -L %s %s "$@"\n' "$QEMU" "$SYSROOT" "$p.$ARCH" >"$p"
	chmod +x "$p"
done

# ---- the unit tests and the fuzz corpora, then the same bytes ---------
# What the e2e scripts need to know of a cross build: its architecture
# and word size, its compiler (extension.sh builds objects to load) and
# its libraries.
export MDF_CROSS=$ARCH MDF_HOST_BITS=$BITS MDF_CROSS_CC="$GCC --sysroot=$SYSROOT" \
	MDF_CROSS_SYSROOT=$SYSROOT
pass=0 fail=0 skip=0
for only in ${MDF_CROSS_TESTS:-unit/ fuzz/}; do
	case $only in e2e*) host_kobjs on ;; *) host_kobjs off ;; esac
	out=$(MDF_RUNNER="${RUN[*]}" TESTS=$only bash "$SRC/tests/run.sh" "$B" 2>&1)
	printf '%s\n' "$out" | grep -v '^[0-9]* passed'
	read -r p f s < <(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' | tail -n 1)
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-1})); skip=$((skip + ${s:-0}))
done
host_kobjs off

same() { # NAME ARGS...: our host build and the foreign one write the same file
	local name=$1; shift
	rm -f "$T/host" "$T/foreign"
	"$HOST_B/makedumpfile" "$@" "$T/host" >/dev/null 2>&1
	"$B/makedumpfile" "$@" "$T/foreign" >"$T/err" 2>&1
	if [ -s "$T/host" ] && cmp -s "$T/host" "$T/foreign"; then
		echo "  ok cross-$ARCH-same-bytes $name"; pass=$((pass + 1))
	elif [ -s "$T/host" ] && [[ "$name" != *-[lE]-* ]] &&
		why=$(python3 "$SRC/tests/tools/kdump_same.py" "$T/host" "$T/foreign" 2>&1); then
		# zlib, snappy and zstd streams depend on the library's version
		# (trixie's against the host's): the same dump, other bytes.
		echo "  ok cross-$ARCH-same-dump $name ($why)"; pass=$((pass + 1))
	else
		echo "  not ok cross-$ARCH-same-bytes $name: $(cmp "$T/host" "$T/foreign" 2>&1 | head -n 1) $(tail -n 1 "$T/err")"
		fail=$((fail + 1))
	fi
}
same_dmesg() { # NAME VMCORE: the same --dump-dmesg text
	rm -f "$T/host" "$T/foreign"
	"$HOST_B/makedumpfile" --dump-dmesg "$2" "$T/host" >/dev/null 2>&1
	"$B/makedumpfile" --dump-dmesg "$2" "$T/foreign" >/dev/null 2>&1
	if [ -s "$T/host" ] && cmp -s "$T/host" "$T/foreign"; then
		echo "  ok cross-$ARCH-same-dmesg $1"; pass=$((pass + 1))
	else echo "  not ok cross-$ARCH-same-dmesg $1"; fail=$((fail + 1)); fi
}
vms=()
for v in ${MDF_CROSS_VMCORES:-}; do [ -f "$v" ] && vms+=("$v"); done
if [ ${#vms[@]} = 0 ] && [ -n "${MDF_VMCORE_CACHE:-}" ]; then
	for v in "$MDF_VMCORE_CACHE"/fx-v61-512m.elf "$MDF_VMCORE_CACHE"/fx-v612-512m.elf; do
		[ -f "$v" ] && vms+=("$v")
	done
fi
if [ ${#vms[@]} = 0 ]; then
	printf '%s\n' "kernel 6.12" "ram 0x100000 +128M" "pages 0x2000+512 anon random" \
		"pages 0x2400+256 cache text 3" "pages 0x3000+256 free order=8" \
		"dmesg LAB-MARKER little-endian ring" |
		"$HOST_B/tests/gen/mkvmcore" - "$T/gen.elf" >/dev/null 2>&1 && vms+=("$T/gen.elf")
fi
# A big-endian dump too (s390x, with a printk ring): on an s390x host its
# own order, elsewhere the other one.
printf '%s\n' "arch s390x" "kernel 6.1" "ram 0 +512M" "pages 0x4000+512 anon random" \
	"pages 0x4200+256 cache text 3" "pages 0x5000+256 free order=8" \
	"dmesg LAB-MARKER big-endian ring" |
	"$HOST_B/tests/gen/mkvmcore" - "$T/gen-s390x.elf" >/dev/null 2>&1 && vms+=("$T/gen-s390x.elf")
for v in "${vms[@]}"; do
	n=$(basename "$v" .elf)
	same "$n-l-d31" -l -d 31 "$v"
	same "$n-c-d1" -c -d 1 "$v"
	same "$n-z-d31-threads" -z -d 31 --num-threads 2 "$v"
	same "$n-E-d31" -E -d 31 "$v"
	rm -f "$T/re.l"
	"$HOST_B/makedumpfile" -l -d 1 "$v" "$T/re.l" >/dev/null 2>&1 && same "$n-refilter-p-d31" -p -d 31 "$T/re.l"
	same_dmesg "$n" "$v"
done

# ---- a dump over 4 GiB on a 32-bit host --------------------------------
# i386 and armhf: a 32-bit size_t and address space, a 64-bit off_t.  A
# machine of 4.5 GiB (a sparse ELF of 4.5 GiB, 76 MB on disk) whose
# non-zero pages, struct pages, page tables and printk ring lie above
# 4 GiB in the file: -l, -E and --dump-dmesg as above; then -d 0 with raw
# pages, a kdump-compressed file of 4.5 GiB that the 32-bit build writes
# (offsets past 4 GiB) and the host build too, compared by checksum (one
# such file on disk at a time), and refiltered by both (-l -d 31, and
# --dump-dmesg: the ring's pages lie past 4 GiB in that file).
# Needs 6 GiB free in MDF_CROSS_BIG_DIR (default: the temporary dir).
# MDF_CROSS_BIG=0 leaves it out, =1 runs it on the 64-bit arches as well.
big_dump() {
	local d=$1 free sum_h sum_f size t0=$SECONDS
	free=$(df -Pk "$d" | awk 'NR == 2 { print $4 }')
	if [ "${free:-0}" -lt $((6 * 1024 * 1024)) ]; then
		echo "  skip cross-$ARCH-over-4g: $d has $((${free:-0} / 1024)) MiB free, the test writes 4.6 GiB"
		skip=$((skip + 1)); return
	fi
	if ! printf '%s\n' "kernel 6.1" "ram 0x100000 +4600M" "pages 0x400+64 anon random 7" \
		"pages 0x110000+512 anon random" "pages 0x118000+256 cache text 3" \
		"pages 0x11c000+256 free order=8" "dmesg OVER-4G-MARKER ring above 4 GiB" |
		"$HOST_B/tests/gen/mkvmcore" - "$d/big.elf" >"$T/err" 2>&1; then
		echo "  not ok cross-$ARCH-over-4g: mkvmcore: $(tail -n 1 "$T/err")"; fail=$((fail + 1)); return
	fi
	same over4g-l-d31 -l -d 31 "$d/big.elf"
	same over4g-E-d31 -E -d 31 "$d/big.elf"
	same_dmesg over4g "$d/big.elf"
	rm -f "$d/big.kdump"
	"$HOST_B/makedumpfile" -d 0 "$d/big.elf" "$d/big.kdump" >/dev/null 2>&1
	sum_h=$(sha256sum <"$d/big.kdump" 2>/dev/null | cut -c1-64)
	rm -f "$d/big.kdump"
	"$B/makedumpfile" -d 0 "$d/big.elf" "$d/big.kdump" >"$T/err" 2>&1
	sum_f=$(sha256sum <"$d/big.kdump" 2>/dev/null | cut -c1-64)
	size=$(stat -c %s "$d/big.kdump" 2>/dev/null || echo 0)
	if [ -n "$sum_h" ] && [ "$sum_h" = "$sum_f" ] && [ "$size" -gt $((4 << 30)) ]; then
		echo "  ok cross-$ARCH-same-bytes over4g-d0 ($size bytes)"; pass=$((pass + 1))
		same over4g-refilter-l-d31 -l -d 31 "$d/big.kdump"
		same_dmesg over4g-refilter "$d/big.kdump"
	else
		echo "  not ok cross-$ARCH-same-bytes over4g-d0: $size bytes, sha256 ${sum_f:-none} against the host's ${sum_h:-none}: $(tail -n 1 "$T/err")"
		fail=$((fail + 1))
	fi
	rm -f "$d/big.kdump" "$d/big.elf" "$T/host" "$T/foreign"
	echo "# cross-$ARCH over 4 GiB in $((SECONDS - t0)) s"
}
if [ "${MDF_CROSS_BIG:-}" = 1 ] || { [ "${MDF_CROSS_BIG:-}" != 0 ] && [[ " $HOST32 " == *" $ARCH "* ]]; }; then
	BIGD=${MDF_CROSS_BIG_DIR:-$T}
	mkdir -p "$BIGD" && big_dump "$BIGD"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
