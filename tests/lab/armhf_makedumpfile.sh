#!/bin/bash
# tests/lab/armhf_makedumpfile.sh - print the path of Debian bookworm's
# makedumpfile 1.7.2 for armhf, fetching it once with the libraries it
# needs: `apt-get download` through a private armhf apt state
# (tests/lib/apt.sh), `dpkg -x` into MDF_ARMHF_CACHE/root (default
# /var/tmp/mdf-armhf), never installed.  It runs on this machine under
# qemu-arm (user-mode emulation: `qemu-arm -L ROOT ROOT/usr/bin/makedumpfile`),
# which tests/e2e/gen_arm.sh uses as an oracle of the arm generator.
# Exit 1 with one line on stderr when it cannot be had.
set -u
LIB=$(cd "$(dirname "$0")/../lib" && pwd) || exit 1
DIR=${MDF_ARMHF_CACHE:-/var/tmp/mdf-armhf}
OUT="$DIR/root/usr/bin/makedumpfile"
if [ -x "$OUT" ]; then echo "$OUT"; exit 0; fi
die() { echo "armhf_makedumpfile: $*" >&2; exit 1; }
# shellcheck source=tests/lib/apt.sh
. "$LIB/apt.sh"
DEB_ARCH=armhf
state="$DIR/apt-bookworm-armhf"
LOG="$DIR/makedumpfile.log"
mkdir -p "$DIR/mdfdebs" "$DIR/root" || exit 1
: >"$LOG"
if [ -f "$state/updated" ] && [ -z "$(find "$state/updated" -mmin +1440)" ]; then
	apt_opts "$state"
else
	apt_state "$state" "$LOG" bookworm bookworm-security ||
		die "apt-get update failed: $(tail -n 1 "$LOG")"
	touch "$state/updated"
fi
apt_download "$LOG" "$DIR/mdfdebs" makedumpfile libc6 libgcc-s1 libbz2-1.0 libdw1 libelf1 \
	liblzo2-2 libsnappy1v5 libzstd1 zlib1g liblzma5 libstdc++6 ||
	die "apt-get download failed: $(tail -n 1 "$LOG")"
for d in "$DIR"/mdfdebs/*.deb; do dpkg -x "$d" "$DIR/root" || die "dpkg -x $d failed"; done
[ -x "$OUT" ] || die "no usr/bin/makedumpfile in the package"
echo "$OUT"
