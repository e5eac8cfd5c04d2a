#!/bin/bash
# tests/lab/readers/root.sh - print the path of a Debian sid root that has
# the newest readers Debian ships: crash (its source bundles its own gdb),
# python3-drgn and python3-libkdumpfile.  Made once (debootstrap minbase
# from the machine's own Debian mirror, tests/lib/apt.sh) and kept in
# MDF_READERS_CACHE (/var/tmp/mdf-readers/sid-ARCH); later calls only print
# it.  The versions are in ROOT/readers.txt ("crash 9.0.2+~16.3-1" lines).
# sid's Release may look expired to a machine's clock: its validity is not
# checked.  Exit 1 with one line on stderr when the root cannot be made;
# the logs stay in MDF_READERS_CACHE.  Needs root (debootstrap, chroot).
#
# In the root: tests/lab/readers/run.sh runs a reader there with the dumps
# bind-mounted.
set -u
LIB=$(cd "$(dirname "$0")/../../lib" && pwd) || exit 1
# shellcheck source=tests/lib/apt.sh
. "$LIB/apt.sh"
CACHE=${MDF_READERS_CACHE:-/var/tmp/mdf-readers}
ARCH=$(dpkg --print-architecture)
R=$CACHE/sid-$ARCH
LOG=$CACHE/sid-$ARCH.log
PKGS="crash python3-drgn python3-libkdumpfile"
if [ -f "$R/readers.txt" ]; then echo "$R"; exit 0; fi
fail() { echo "readers root: $1 (log: $LOG)" >&2; exit 1; }
mkdir -p "$CACHE" || fail "cannot make $CACHE"
: >"$LOG"
M=$(deb_mirror main 2>>"$LOG") || fail "no Debian mirror in this machine's apt sources"
inroot() {
	chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}
if [ ! -x "$R/usr/bin/apt-get" ]; then
	rm -rf "$R"
	# The archive key of sid may be newer than this machine's keyring; the
	# mirror is the one this machine already trusts for its own packages.
	retry "$LOG" debootstrap --no-check-gpg --variant=minbase sid "$R" "$M" ||
		{ for m in "$R/proc" "$R/sys"; do mountpoint -q "$m" && umount -l "$m"; done
		  fail "debootstrap sid from $M failed: $(tail -n 1 "$LOG")"; }
fi
echo "deb [trusted=yes] $M sid main" >"$R/etc/apt/sources.list"
rm -f "$R"/etc/apt/sources.list.d/*
printf 'Acquire::Check-Valid-Until "false";\nAPT::Install-Recommends "false";\n' \
	>"$R/etc/apt/apt.conf.d/90mdf-readers"
cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null
mountpoint -q "$R/proc" || mount -t proc proc "$R/proc" || fail "cannot mount $R/proc"
ok=1
retry "$LOG" inroot apt-get -q -o Acquire::Retries=0 -o APT::Update::Error-Mode=any update &&
	retry "$LOG" inroot apt-get -y -q -o Dpkg::Use-Pty=0 install $PKGS || ok=0
if [ $ok = 1 ]; then
	inroot dpkg-query -W -f='${Package} ${Version}\n' crash python3-drgn 'libkdumpfile[0-9]*' 'python3-*kdumpfile' python3 \
		2>>"$LOG" | awk 'NF == 2' >"$R/readers.txt.tmp" && mv "$R/readers.txt.tmp" "$R/readers.txt" || ok=0
fi
umount "$R/proc" 2>/dev/null || umount -l "$R/proc"
[ $ok = 1 ] || fail "installing $PKGS in sid failed: $(tail -n 1 "$LOG")"
inroot apt-get clean >/dev/null 2>&1
echo "$R"
