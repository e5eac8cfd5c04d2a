#!/bin/bash
# tests/lab/mips64el_makedumpfile.sh - print the path of Debian bookworm's
# makedumpfile 1.7.2 built for mips64el, building it once.  Debian ships no
# makedumpfile binary for mips64el (bookworm's mips64el index has no
# candidate), so its source package (1:1.7.2-1, with Debian's patches:
# `apt-get source` through a private deb-src apt state; or, where the
# mirror serves the .dsc without its tarballs, upstream's tag 1.7.2 from
# the git directory MDF_MAKEDUMPFILE_GIT) is cross-built here
# with gcc-mips64el-linux-gnuabi64 (apt-get install it; not fetched by this
# script), TARGET=mips64, statically against bookworm's mips64el -dev
# libraries (`apt-get download`, `dpkg -x` into a sysroot, never
# installed), with lzo and zstd, into MDF_MIPS64_CACHE/mdf172 (default
# /var/tmp/mdf-mips64).  It runs here under qemu-mips64el (qemu-user), as
# tests/e2e/mips64_oracle.sh uses it.  Exit 1 with one line on stderr when
# it cannot be had.
set -u
LIB=$(cd "$(dirname "$0")/../lib" && pwd) || exit 1
DIR=${MDF_MIPS64_CACHE:-/var/tmp/mdf-mips64}
OUT="$DIR/mdf172/makedumpfile"
if [ -x "$OUT" ]; then echo "$OUT"; exit 0; fi
die() { echo "mips64el_makedumpfile: $*" >&2; exit 1; }
# shellcheck source=tests/lib/apt.sh
. "$LIB/apt.sh"
CC=mips64el-linux-gnuabi64-gcc
command -v "$CC" >/dev/null || die "no $CC (apt-get install gcc-mips64el-linux-gnuabi64)"
command -v dpkg-source >/dev/null || die "no dpkg-source (dpkg-dev)"
LOG="$DIR/makedumpfile.log"
mkdir -p "$DIR/mdf172/src" "$DIR/mdf172/devdebs" "$DIR/mdf172/sysroot" || exit 1
: >"$LOG"
DEB_ARCH=mips64el
# the -dev libraries of mips64el
state="$DIR/apt-bookworm-mips64el"
if [ -f "$state/updated" ] && [ -z "$(find "$state/updated" -mmin +1440)" ]; then
	apt_opts "$state"
else
	apt_state "$state" "$LOG" bookworm bookworm-security ||
		die "apt-get update failed: $(tail -n 1 "$LOG")"
	touch "$state/updated"
fi
apt_download "$LOG" "$DIR/mdf172/devdebs" libelf-dev libelf1 libdw-dev libdw1 zlib1g-dev \
	zlib1g liblzo2-dev liblzo2-2 libbz2-dev libbz2-1.0 liblzma-dev liblzma5 libzstd-dev \
	libzstd1 || die "apt-get download failed: $(tail -n 1 "$LOG")"
for d in "$DIR"/mdf172/devdebs/*.deb; do
	dpkg -x "$d" "$DIR/mdf172/sysroot" || die "dpkg -x $d failed"
done
apt_makedumpfile172 "$DIR" "$LOG" || die "$APT_WHY"
sys="$DIR/mdf172/sysroot"
# CFLAGS and LDFLAGS from the environment: upstream's Makefile adds its own
(cd "$DIR/mdf172/src/tree" &&
	CFLAGS="-I$sys/usr/include -I$sys/usr/include/mips64el-linux-gnuabi64" \
	LDFLAGS="-L$sys/usr/lib/mips64el-linux-gnuabi64" \
	make -j2 TARGET=mips64 CC="$CC" LINKTYPE=static USELZO=on USEZSTD=on) >>"$LOG" 2>&1 ||
	die "build failed: $(grep -m1 -E 'error|undefined' "$LOG")"
cp "$DIR/mdf172/src/tree/makedumpfile" "$OUT" || exit 1
echo "$OUT"
