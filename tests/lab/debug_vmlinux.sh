#!/bin/bash
# tests/lab/debug_vmlinux.sh [KREL [PKGVER]] - print the path of the debug
# vmlinux of Debian's kernel KREL (default 6.1.0-57-amd64, the 6.1
# fixture's, at 6.1.192-3), fetching it once: `apt-get download` of
# linux-image-KREL-dbg (about 1 GB, never installed), from which only
# ./usr/lib/debug/boot/vmlinux-KREL (600-900 MB; in 7.x a link to
# lib/modules/KREL/vmlinux, which is taken) is extracted into
# MDF_DBG_CACHE (/var/tmp/mdf-dbg), with the debuginfo of the virtio
# modules (drivers/virtio, a few MB) in lib/modules/KREL/ beside it, where
# --config looks for module debuginfo.  The .deb is deleted afterwards.
#
# The suite comes from KREL: 5.10.0-N bullseye, 6.1.0-N bookworm,
# 6.12.N+deb13 trixie, 7.N+deb13 trixie-backports, +deb14 sid (each with
# its -security suite where there is one), the Debian architecture from
# its flavour (-amd64, -arm64, -arm64-16k, -powerpc64le, -s390x, -riscv64,
# -686, -686-pae, -armmp, -armmp-lpae, -loong64, the mips64el ones), through a
# private apt state of the machine's own mirror (tests/lib/apt.sh).
# Without PKGVER the newest build of KREL is taken: a lab kernel staged
# from the same suite the same day matches it.
# Exit 1 with one line on stderr when it cannot be had.
set -u
LIB=$(cd "$(dirname "$0")/../lib" && pwd) || exit 1
KREL=${1:-6.1.0-57-amd64}
PKGVER=${2:-}
[ $# -eq 0 ] && PKGVER=6.1.192-3
DIR=${MDF_DBG_CACHE:-/var/tmp/mdf-dbg}
OUT="$DIR/vmlinux-$KREL"
MODS=lib/modules/$KREL/kernel/drivers/virtio
if [ -s "$OUT" ] && [ -e "$DIR/$MODS.done" ]; then echo "$OUT"; exit 0; fi
die() { echo "debug_vmlinux: $KREL: $*" >&2; exit 1; }
case $KREL in
5.10.0-*) SUITES="bullseye bullseye-security" ;;
6.1.0-*) SUITES="bookworm bookworm-security" ;;
6.12.*+deb13-*) SUITES="trixie trixie-security" ;;
*+deb13-*) SUITES="trixie-backports" ;;
*+deb14-*) SUITES="sid" ;;
*) die "no Debian suite known for this kernel release" ;;
esac
case $KREL in
*-amd64) DEB_ARCH=amd64 ;;
*-arm64 | *-arm64-16k) DEB_ARCH=arm64 ;; # trixie's 16 KiB-page flavour is arm64's
*-powerpc64le) DEB_ARCH=ppc64el ;;
*-s390x) DEB_ARCH=s390x ;;
*-riscv64) DEB_ARCH=riscv64 ;;
*-686 | *-686-pae) DEB_ARCH=i386 ;; # bookworm's 32-bit flavours (tests/gen "arch x86")
*-armmp | *-armmp-lpae) DEB_ARCH=armhf ;; # ARMv7 multiplatform (tests/gen "arch arm")
*-loong64) DEB_ARCH=loong64 ;; # sid's, in the main archive (tests/gen "arch loongarch64")
*-loongson-3 | *-5kc-malta | *-mips64r2el | *-octeon) DEB_ARCH=mips64el ;; # bookworm's (tests/gen "arch mips64")
*) die "no Debian architecture known for its flavour" ;;
esac
mkdir -p "$DIR" || exit 1
cd "$DIR" || exit 1
pkg=linux-image-$KREL-dbg
deb=$(ls "${pkg}"_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
	# shellcheck source=tests/lib/apt.sh
	. "$LIB/apt.sh"
	state="$DIR/apt-${SUITES%% *}-$DEB_ARCH"
	LOG="$DIR/download-$KREL.log"
	: >"$LOG"
	# shellcheck disable=SC2086 # the suites are words
	if [ -f "$state/updated" ] && [ -z "$(find "$state/updated" -mmin +1440)" ]; then
		apt_opts "$state"
	else
		apt_state "$state" "$LOG" $SUITES && touch "$state/updated" ||
			die "apt-get update of $SUITES failed: $(tail -n 1 "$LOG")"
	fi
	if [ -n "$PKGVER" ] && apt_has "$pkg=$PKGVER"; then pkg=$pkg=$PKGVER
	elif ! apt_has "$pkg"; then die "$pkg is not in $SUITES"
	fi
	apt_download "$LOG" "$DIR" "$pkg" || die "apt-get download $pkg failed: $(tail -n 1 "$LOG")"
	deb=$(ls "linux-image-$KREL-dbg"_*.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || die "apt-get download left no .deb"
fi
rm -rf "$DIR/x.$KREL"
mkdir -p "$DIR/x.$KREL"
# 7.x packages keep it at lib/modules/KREL/vmlinux, boot/ only links to it
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$DIR/x.$KREL" --wildcards \
	"./usr/lib/debug/boot/vmlinux-$KREL" "./usr/lib/debug/lib/modules/$KREL/vmlinux" \
	"./usr/lib/debug/$MODS/*" 2>"$DIR/x.$KREL.err"
src="$DIR/x.$KREL/usr/lib/debug/boot/vmlinux-$KREL"
[ -L "$src" ] && src="$DIR/x.$KREL/usr/lib/debug/lib/modules/$KREL/vmlinux"
[ -s "$src" ] && [ ! -L "$src" ] ||
	die "no vmlinux-$KREL in $deb: $(grep -v 'Not found in archive\|Exiting with failure' "$DIR/x.$KREL.err" | tail -n 1)"
if [ -d "$DIR/x.$KREL/usr/lib/debug/$MODS" ]; then
	mkdir -p "$DIR/$(dirname "$MODS")" && rm -rf "${DIR:?}/$MODS" &&
		mv "$DIR/x.$KREL/usr/lib/debug/$MODS" "$DIR/$MODS" || exit 1
fi
mv "$src" "$OUT.part" && mv "$OUT.part" "$OUT" || exit 1
touch "$DIR/$MODS.done" 2>/dev/null || { mkdir -p "$DIR/$(dirname "$MODS")" && touch "$DIR/$MODS.done"; }
rm -rf "$DIR/x.$KREL" "$DIR/x.$KREL.err" "$deb"
echo "$OUT"
