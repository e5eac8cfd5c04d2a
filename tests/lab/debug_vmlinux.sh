#!/bin/bash
# tests/lab/debug_vmlinux.sh - print the path of the 6.1 fixture's debug
# vmlinux, fetching it once: `apt-get download` of Debian's
# linux-image-6.1.0-57-amd64-dbg (859 MB, never installed), from which only
# ./usr/lib/debug/boot/vmlinux-6.1.0-57-amd64 (633 MB) is extracted, into
# MDF_DBG_CACHE (/var/tmp/mdf-dbg), with the debuginfo of the modules the
# fixture has loaded (drivers/virtio, 4.6 MB) in lib/modules/VER/ beside it,
# where --config looks for module debuginfo.  The .deb is deleted afterwards.
# Exit 1 with a message on stderr when it cannot be had.
set -u
LIB=$(cd "$(dirname "$0")/../lib" && pwd) || exit 1
VER=6.1.0-57-amd64
PKGVER=6.1.192-3
DIR=${MDF_DBG_CACHE:-/var/tmp/mdf-dbg}
OUT="$DIR/vmlinux-$VER"
MODS=lib/modules/$VER/kernel/drivers/virtio
if [ -s "$OUT" ] && [ -d "$DIR/$MODS" ]; then echo "$OUT"; exit 0; fi
mkdir -p "$DIR" || exit 1
cd "$DIR" || exit 1
deb=$(ls linux-image-$VER-dbg_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
	# this machine's apt (its sources and mirror), through retry: a mirror
	# mid-sync or a lost connection gets three more tries
	# shellcheck source=tests/lib/apt.sh
	. "$LIB/apt.sh"
	AA=()
	pkg=linux-image-$VER-dbg
	: >"$DIR/download.log"
	# A machine whose packages are all there may never have fetched
	# the indexes (or has old ones): fetch them once.
	apt_has "$pkg" || retry "$DIR/download.log" apt-get update -q ||
		echo "debug_vmlinux: apt-get update failed: $(tail -n 1 "$DIR/download.log")" >&2
	apt_has "$pkg=$PKGVER" && pkg=$pkg=$PKGVER
	apt_download "$DIR/download.log" "$DIR" "$pkg" || {
		echo "debug_vmlinux: apt-get download $pkg failed: $(tail -n 1 "$DIR/download.log")" >&2
		exit 1
	}
	deb=$(ls linux-image-$VER-dbg_*.deb 2>/dev/null | head -n 1)
fi
rm -rf "$DIR/x"
mkdir -p "$DIR/x"
if ! dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$DIR/x" "./usr/lib/debug/boot/vmlinux-$VER" \
	"./usr/lib/debug/$MODS/"; then
	echo "debug_vmlinux: cannot extract vmlinux-$VER from $deb" >&2
	exit 1
fi
mkdir -p "$DIR/$(dirname "$MODS")" && rm -rf "$DIR/$MODS" &&
	mv "$DIR/x/usr/lib/debug/$MODS" "$DIR/$MODS" || exit 1
[ -s "$OUT" ] || { mv "$DIR/x/usr/lib/debug/boot/vmlinux-$VER" "$OUT.part" && mv "$OUT.part" "$OUT"; }
rm -rf "$DIR/x" "$deb"
echo "$OUT"
