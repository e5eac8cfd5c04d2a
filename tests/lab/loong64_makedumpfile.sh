#!/bin/bash
# tests/lab/loong64_makedumpfile.sh - print the path of makedumpfile 1.7.2
# built for loong64, building it once.  Debian builds no makedumpfile for
# loong64 (sid's source lists no loong64 in its Architecture field) and
# bookworm has no loongarch64 cross compiler, so 1.7.2 (Debian's source
# package 1:1.7.2-1 through a private deb-src apt state; or, where the
# mirror serves the .dsc without its tarballs, upstream's tag 1.7.2 from
# the git directory MDF_MAKEDUMPFILE_GIT) is cross-built in the readers'
# sid root (tests/lab/readers/root.sh) by sid's gcc-loongarch64-linux-gnu,
# TARGET=loongarch64, statically against sid's loong64 -dev libraries
# (`apt-get download`, `dpkg -x` into a sysroot in the root, never
# installed), with lzo and zstd, into MDF_LOONG64_CACHE/mdf172 (default
# /var/tmp/mdf-loong64).  CFLAGS=-std=gnu11: gcc 16's default C23 reads
# 1.7.2's `int eppic_init()` as taking no arguments ("too many arguments
# to function 'eppic_init'").  It runs here under sid's qemu-loongarch64
# (qemu-user 11; bookworm's qemu-user 7.2 stops at once on gcc 16's code,
# "uncaught target signal 4 (Illegal instruction)"), which the root's
# qemu-user installs as a static-pie binary: MDF_LOONG64_CACHE/qemu-loongarch64
# links to it.  tests/e2e/loongarch64_oracle.sh uses both.  The root's
# apt-get runs through tests/lib/sid_install.sh (under its lock: other lab
# scripts install into the same root).  Needs root (chroot).  Exit 1 with one line
# on stderr when it cannot be had.
#
# tests/lab/loong64_makedumpfile.sh head: upstream's HEAD instead (the
# commit MDF_MAKEDUMPFILE_GIT's HEAD names, required), the same way, into
# MDF_LOONG64_CACHE/head (rebuilt when that commit changes; `git describe`
# of it in head/version): the one upstream that knows a 7.x struct page,
# for the lab's real loong64 dumps.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
DIR=${MDF_LOONG64_CACHE:-/var/tmp/mdf-loong64}
die() { echo "loong64_makedumpfile: $*" >&2; exit 1; }
SUB=mdf172 HEADREV="" WANTV="version 1.7.2"
if [ "${1:-}" = head ]; then
	SUB="head" WANTV="version 1."
	[ -n "${MDF_MAKEDUMPFILE_GIT:-}" ] || die "head needs MDF_MAKEDUMPFILE_GIT (a git directory of upstream makedumpfile)"
	HEADREV=$(git -C "$MDF_MAKEDUMPFILE_GIT" rev-parse HEAD) || die "no HEAD in $MDF_MAKEDUMPFILE_GIT"
elif [ $# -gt 0 ]; then
	die "usage: loong64_makedumpfile.sh [head]"
fi
OUT="$DIR/$SUB/makedumpfile"
if [ -x "$OUT" ] && [ -x "$DIR/qemu-loongarch64" ] &&
	{ [ -z "$HEADREV" ] || [ "$(cat "$DIR/head/commit" 2>/dev/null)" = "$HEADREV" ]; }; then
	echo "$OUT"; exit 0
fi
# shellcheck source=tests/lib/apt.sh
. "$SRC/tests/lib/apt.sh"
command -v dpkg-source >/dev/null || die "no dpkg-source (dpkg-dev)"
command -v flock >/dev/null || die "no flock (util-linux)"
R=$("$SRC/tests/lab/readers/root.sh") || die "no sid root (tests/lab/readers/root.sh)"
LOG="$DIR/makedumpfile-$SUB.log"
mkdir -p "$DIR/$SUB/src" "$DIR/$SUB/devdebs" || exit 1
: >"$LOG"
inroot() {
	chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}
# sid's cross compiler and qemu-user, in the root
PKGS="gcc-loongarch64-linux-gnu libc6-dev-loong64-cross qemu-user"
if [ ! -x "$R/usr/bin/loongarch64-linux-gnu-gcc" ] || [ ! -x "$R/usr/bin/qemu-loongarch64" ]; then
	# shellcheck disable=SC2086 # the packages are words
	"$SRC/tests/lib/sid_install.sh" "$R" "$LOG" $PKGS ||
		die "apt-get install $PKGS in $R: $(tail -n 1 "$LOG")"
fi
# the -dev libraries of loong64 (sid), through a private apt state
DEB_ARCH=loong64
state="$DIR/apt-sid-loong64"
if [ -f "$state/updated" ] && [ -z "$(find "$state/updated" -mmin +1440)" ]; then
	apt_opts "$state"
else
	apt_state "$state" "$LOG" sid || die "apt-get update failed: $(tail -n 1 "$LOG")"
	touch "$state/updated"
fi
rm -f "$DIR/$SUB"/devdebs/*.deb
apt_download "$LOG" "$DIR/$SUB/devdebs" libelf-dev libelf1t64 libdw-dev libdw1t64 zlib1g-dev \
	zlib1g liblzo2-dev liblzo2-2 libbz2-dev libbz2-1.0 liblzma-dev liblzma5 libzstd-dev \
	libzstd1 || die "apt-get download failed: $(tail -n 1 "$LOG")"
W="$R/tmp/mdf-loong64-$SUB"
rm -rf "$W" && mkdir -p "$W/sys" || exit 1
for d in "$DIR/$SUB"/devdebs/*.deb; do
	dpkg -x "$d" "$W/sys" || die "dpkg -x $d failed"
done
rm -rf "$DIR/$SUB/src/tree"
if [ -n "$HEADREV" ]; then
	mkdir -p "$DIR/head/src/tree" || exit 1
	git -C "$MDF_MAKEDUMPFILE_GIT" archive "$HEADREV" | tar -x -C "$DIR/head/src/tree" ||
		die "git archive HEAD of $MDF_MAKEDUMPFILE_GIT failed"
	git -C "$MDF_MAKEDUMPFILE_GIT" describe --tags "$HEADREV" >"$DIR/head/version" 2>/dev/null ||
		echo "$HEADREV" >"$DIR/head/version"
else
	apt_makedumpfile172 "$DIR" "$LOG" || die "$APT_WHY"
fi
cp -a "$DIR/$SUB/src/tree" "$W/src" || exit 1
s=/tmp/${W##*/}/sys
# CFLAGS and LDFLAGS from the environment: upstream's Makefile adds its own
inroot CFLAGS="-std=gnu11 -I$s/usr/include -I$s/usr/include/loongarch64-linux-gnu" \
	LDFLAGS="-L$s/usr/lib/loongarch64-linux-gnu" \
	nice make -C "/tmp/${W##*/}/src" -j2 TARGET=loongarch64 CC=loongarch64-linux-gnu-gcc \
	LINKTYPE=static USELZO=on USEZSTD=on >>"$LOG" 2>&1 ||
	die "build failed: $(grep -m1 -E 'error|undefined' "$LOG")"
cp "$W/src/makedumpfile" "$OUT" || exit 1
rm -rf "$W"
ln -sfn "$R/usr/bin/qemu-loongarch64" "$DIR/qemu-loongarch64" || exit 1
"$DIR/qemu-loongarch64" "$OUT" -v 2>/dev/null | grep -q "^makedumpfile: $WANTV" ||
	die "$OUT does not run under $DIR/qemu-loongarch64"
[ -z "$HEADREV" ] || echo "$HEADREV" >"$DIR/head/commit"
echo "$OUT"
