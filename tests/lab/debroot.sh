# shellcheck shell=bash
# tests/lab/debroot.sh - sourced by the tests that install our Debian
# package into a real Debian root (tests/e2e/deb.sh, tests/e2e/kdumptools.sh).
# Needs lib.sh (T, notok) sourced first, and root.
#
# Settings (set before sourcing, or keep the defaults):
#   DEBROOT_CACHE   where the roots and the downloaded .debs are kept
#                   (/var/tmp/mdf-deb): only the first run debootstraps
#   DEBROOT_MIRROR  the Debian mirror (default: deb_mirror main of
#                   tests/lib/apt.sh, the one this machine's apt sources
#                   name, or MDF_DEBIAN_MIRROR)
#   DEBROOT_SECURITY_MIRROR  its security mirror (deb_mirror security)
#   DEBROOT_TEST    the test name prefix of the "not ok" lines (deb)
# Every mount made here is listed in MOUNTS and undone by the EXIT trap,
# which also removes T (lib.sh's trap is replaced).
DEBROOT_CACHE=${DEBROOT_CACHE:-${MDF_DEB_CACHE:-/var/tmp/mdf-deb}}
DEBROOT_TEST=${DEBROOT_TEST:-deb}
. "$MDF_SRC/tests/lib/apt.sh"
if [ -z "${DEBROOT_MIRROR:-}" ]; then
	DEBROOT_MIRROR=$(deb_mirror main 2>"$T/mirror.err") ||
		{ needfail "$DEBROOT_TEST-mirror" "$(cat "$T/mirror.err")"; exit 0; }
fi
if [ -z "${DEBROOT_SECURITY_MIRROR:-}" ]; then
	DEBROOT_SECURITY_MIRROR=$(deb_mirror security 2>"$T/mirror.err") ||
		{ needfail "$DEBROOT_TEST-mirror" "$(cat "$T/mirror.err")"; exit 0; }
fi
SUITE=bookworm
ARCH=$(dpkg --print-architecture)
ROOTTAR="$DEBROOT_CACHE/$SUITE-minbase-$ARCH.tar.zst"
mkdir -p "$DEBROOT_CACHE/archives"

MOUNTS=()
debroot_cleanup() {
	local m busy=0
	for m in "${MOUNTS[@]}"; do
		mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
	done
	for m in "${MOUNTS[@]}"; do mountpoint -q "$m" && busy=1; done
	if [ $busy -eq 0 ]; then rm -rf "$T"; else echo "# left $T: still mounted"; fi
}
trap debroot_cleanup EXIT

now() { date +%s.%N; }
# phase NAME START: print how long NAME took.
phase() { awk -v n="$1" -v a="$2" -v b="$(now)" 'BEGIN { printf "# %s: %.1f s\n", n, b - a }'; }
# last LOG: its last lines on one line, for a "not ok" message.
last() { tail -n 4 "$1" | tr '\n' ' '; }

# unpack_root TARBALL DIR: DIR becomes a copy of the root in TARBALL, with
# the host's resolver, no service starts, the cached .debs and /proc.
unpack_root() {
	local tar=$1 r=$2
	mkdir -p "$r"
	zstd -q -d -c "$tar" | tar -C "$r" --numeric-owner -xpf - || return 1
	cp /etc/resolv.conf "$r/etc/resolv.conf"
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
	chmod 755 "$r/usr/sbin/policy-rc.d"
	cp "$DEBROOT_CACHE"/archives/*.deb "$r/var/cache/apt/archives/" 2>/dev/null
	mount -t proc proc "$r/proc" && MOUNTS+=("$r/proc")
}
# pack_root DIR TARBALL: the root DIR (unmounted first) into TARBALL.
pack_root() {
	local r=$1 tar=$2
	mountpoint -q "$r/proc" && umount "$r/proc"
	rm -f "$r/usr/sbin/policy-rc.d"
	tar -C "$r" --numeric-owner -cf - . | zstd -q -T2 -o "$tar.tmp.$$" &&
		mv "$tar.tmp.$$" "$tar" || { rm -f "$tar.tmp.$$"; return 1; }
}

# new_root DIR: a fresh copy of the cached minbase root (debootstrap'ed on
# the first run), with network, /proc and no service starts.
new_root() {
	local r=$1 t0
	if [ ! -f "$ROOTTAR" ]; then
		t0=$(now)
		MOUNTS+=("$T/boot/proc" "$T/boot/sys")   # if debootstrap fails half-way
		if ! debootstrap --variant=minbase "$SUITE" "$T/boot" "$DEBROOT_MIRROR" >"$T/debootstrap.log" 2>&1; then
			notok "$DEBROOT_TEST-debootstrap" "$(last "$T/debootstrap.log")"; return 1
		fi
		pack_root "$T/boot" "$ROOTTAR" || { notok "$DEBROOT_TEST-root-cache" "tar"; return 1; }
		rm -rf "${T:?}/boot"
		phase "debootstrap $SUITE minbase (cold, cached as $ROOTTAR)" "$t0"
	fi
	t0=$(now)
	unpack_root "$ROOTTAR" "$r" || { notok "$DEBROOT_TEST-root-unpack" "$ROOTTAR"; return 1; }
	phase "unpack root $(basename "$r")" "$t0"
}
in_root() {
	local r=$1; shift
	chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}
# apt_root DIR ARGS...: apt-get -y -q in the root (downloads kept for the next run).
apt_root() {
	local r=$1; shift
	in_root "$r" apt-get -y -q -o Dpkg::Use-Pty=0 "$@"
	local rc=$?
	cp -n "$r"/var/cache/apt/archives/*.deb "$DEBROOT_CACHE/archives/" 2>/dev/null
	return $rc
}
# apt_root_update DIR LOG: apt-get update in the root, through retry (a
# mirror mid-sync, a lost connection), its output appended to LOG.
apt_root_update() {
	retry "$2" apt_root "$1" -o APT::Update::Error-Mode=any update
}
# state DIR PACKAGE: dpkg's two-letter status of PACKAGE in the root ("ii").
state() { in_root "$1" dpkg-query -W -f='${db:Status-Abbrev}' "$2" 2>/dev/null | tr -d ' '; }
# install_ours DIR DEB: dpkg -i of our package, then its libraries.
install_ours() {
	local r=$1 deb=$2
	cp "$deb" "$r/tmp/"
	in_root "$r" dpkg -i "/tmp/$(basename "$deb")" &&
		return 0
	apt_root "$r" -f install
}
drop_root() {
	local r=$1
	mountpoint -q "$r/proc" && { umount "$r/proc" 2>/dev/null || umount -l "$r/proc"; }
	mountpoint -q "$r/proc" || rm -rf "$r"
}
