#!/bin/bash
# tests/lab/readers/crash_head.sh [TARGET] - print the path, as seen inside
# the readers' sid root (root.sh), of a crash binary of upstream HEAD built
# there for TARGET: X86_64 (the default), ARM64, PPC64 or RISCV64 (crash's
# cross builds on an x86_64 host read those architectures' dumps), or X86
# or ARM (i386 and 32-bit arm dumps: crash's 32-bit builds, -m32, see
# below).  Built
# once into ROOT/opt/crash-head/TARGET/crash (with crash-head.txt: "crash
# HEAD COMMIT (9.0.2 + upstream)"); later calls only print the path.  To
# build again, remove that directory.  Exit 1 with one line on stderr when
# it cannot build; the log is ROOT/opt/crash-head/TARGET.log (and a failed
# build's tree stays in TARGET/build).
#
# Why: sid's crash 9.0.2 cannot open Linux 7.2/7.3 ("invalid structure
# member offset: module_num_gpl_syms", fixed after 9.0.2 by upstream's
# 3a415c0), and only a cross build reads another architecture's dump.
# Not built: S390X, SPARC64, MIPS64, IA64, ALPHA and big-endian PPC64:
# crash's configure.c takes only X86, ARM, MIPS (32-bit builds), ARM64,
# PPC64 (gdb --target=powerpc64le-unknown-linux-gnu: little-endian only),
# RISCV64 and LOONGARCH64 as targets of an x86_64 host; any other says
# "target=S390X is not supported on the X86_64 host architecture".
# X86 and ARM are built with -m32 (crash and its gdb, --target=
# i686-pc-linux-gnu or arm-elf-linux): a 32-bit crash, whose libraries are
# i386's.  For those two only, the root gets the i386 architecture (dpkg
# --add-architecture), gcc-multilib and g++-multilib and the :i386 -dev
# packages crash and its gdb link (M32_DEVS below); the binary then runs
# in the root like the others (this x86_64 host runs i386 programs).
#
# Sources: Debian's crash source package of sid (apt-get source in the
# root, from a deb-src twin of the root's own sources.list; it bundles the
# gdb tarball, so the build is offline), its build dependencies installed
# in the root (apt-get build-dep), then upstream's changes, then Debian's
# patches: a patch upstream already has (it reverses cleanly) is dropped.
# At upstream abcb45e none is: 0001 (eppic not git-cloned), 0002 (the gdb
# tarball not downloaded) and 0003 (gdb 16.2 -> 16.3) all apply, so this
# is crash HEAD with Debian's gdb 16.3 (upstream HEAD still has 16.2).
#
# MDF_CRASH_UPSTREAM (default MDF_READERS_CACHE/crash-upstream, that is
# /var/tmp/mdf-readers/crash-upstream): upstream at HEAD, either
#   - a directory of crash-utility/crash's sources at HEAD, its commit id
#     in DIR/COMMIT (or DIR a git work tree).  From a clone or mirror G of
#     the crash-utility/crash repository:
#       mkdir -p DIR && git --git-dir=G archive HEAD | tar -x -C DIR &&
#       git --git-dir=G rev-parse HEAD >DIR/COMMIT
#     The changes are the diff of Debian's unpatched source (= the 9.0.2
#     tag) to DIR, gdb/ and debian/ aside; or
#   - a patch file, the diff of the tag 9.0.2 to HEAD, its first line
#     "commit ID":  { git --git-dir=G log -1 --format='commit %H' HEAD;
#       git --git-dir=G diff 9.0.2 HEAD; } >FILE
#     (only for Debian's crash 9.0.2).
# Needs root (chroot, mount).
set -u
HERE=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source=tests/lib/apt.sh
. "$HERE/../../lib/apt.sh"
T=${1:-X86_64}
case $T in
X86_64 | ARM64 | PPC64 | RISCV64 | X86 | ARM) ;;
*) echo "crash head: target $T not built here (X86_64, ARM64, PPC64, RISCV64, X86 or ARM; see $0)" >&2; exit 1 ;;
esac
R=$(bash "$HERE/root.sh") || exit 1
IN=/opt/crash-head
C=$R$IN
BIN=$IN/$T/crash
done_() { [ -x "$R$BIN" ] && [ -s "$C/$T/crash-head.txt" ]; }
if done_; then echo "$BIN"; exit 0; fi
UP=${MDF_CRASH_UPSTREAM:-${MDF_READERS_CACHE:-/var/tmp/mdf-readers}/crash-upstream}
LOG=$C/$T.log
fail() { echo "crash head ($T): $1 (log: $LOG)" >&2; exit 1; }
mkdir -p "$C" || fail "cannot make $C"
# one build at a time (the source tree is shared)
exec 9>"$C/lock"
flock 9 || fail "cannot lock $C/lock"
if done_; then echo "$BIN"; exit 0; fi
: >"$LOG"
inroot() {
	nice -n 19 chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
		HOME=/tmp DEBIAN_FRONTEND=noninteractive "$@"
}
PROC=0
cleanup() { [ $PROC = 1 ] && { umount "$R/proc" 2>/dev/null || umount -l "$R/proc"; }; }
trap cleanup EXIT
if ! mountpoint -q "$R/proc"; then
	mount -t proc proc "$R/proc" || fail "cannot mount $R/proc"
	PROC=1
fi

# ---- the source: Debian's, upstream's changes, Debian's patches (once)
prepare() {
	local S=$C/src dl=$C/dl ver commit p list dropped=""
	[ -f "$S/.mdf-ready" ] && return 0
	if [ -f "$UP" ]; then
		commit=$(sed -n '1s/^commit \([0-9a-f]\{7,40\}\)$/\1/p' "$UP")
	elif [ -f "$UP/configure.c" ]; then
		commit=$(cat "$UP/COMMIT" 2>/dev/null || git -C "$UP" rev-parse HEAD 2>>"$LOG")
	else
		fail "no upstream crash in MDF_CRASH_UPSTREAM=$UP (sources at HEAD or a patch: see $0)"
	fi
	[ -n "$commit" ] || fail "no upstream commit id for $UP (DIR/COMMIT, or a patch's first line \"commit ID\")"
	list=$R/etc/apt/sources.list.d/mdf-crash-head.list
	sed -n 's/^deb /deb-src /p' "$R/etc/apt/sources.list" >"$list"
	[ -s "$list" ] || fail "no deb line in $R/etc/apt/sources.list"
	rm -rf "$S" "$dl" && mkdir -p "$dl" || fail "cannot make $dl"
	retry "$LOG" inroot apt-get -q -o Acquire::Retries=0 -o APT::Update::Error-Mode=any update &&
		retry "$LOG" inroot apt-get -y -q -o Dpkg::Use-Pty=0 install dpkg-dev patch &&
		retry "$LOG" inroot apt-get -y -q -o Dpkg::Use-Pty=0 build-dep crash ||
		fail "installing crash's build dependencies in the root failed: $(tail -n 1 "$LOG")"
	retry "$LOG" inroot sh -c "cd $IN/dl && apt-get -q --download-only source crash" ||
		fail "apt-get source crash failed: $(tail -n 1 "$LOG")"
	inroot sh -c "cd $IN/dl && dpkg-source --skip-patches --no-copy -x crash_*.dsc $IN/src" >>"$LOG" 2>&1 ||
		fail "cannot unpack Debian's crash source"
	ver=$(sed -n 's/^Version: //p' "$dl"/crash_*.dsc)
	if [ -f "$UP" ]; then
		[ "${ver%%+*}" = 9.0.2 ] || fail "the upstream patch is from 9.0.2, Debian's crash is $ver"
		cp "$UP" "$C/upstream.patch"
	else
		(cd "$C" && ln -sfn "$UP" up && diff -ruN -x gdb -x debian -x .pc -x .git -x COMMIT src up \
			>upstream.patch; rc=$?; rm -f up; [ $rc -le 1 ]) 2>>"$LOG" ||
			fail "cannot diff $UP to Debian's source"
	fi
	cd "$S" || fail "no $S"
	patch -p1 -s --no-backup-if-mismatch <"$C/upstream.patch" >>"$LOG" 2>&1 ||
		fail "upstream's changes do not apply to Debian's crash $ver"
	for p in $(grep -v '^#' debian/patches/series); do
		if patch -p1 -s -f --dry-run <"debian/patches/$p" >/dev/null 2>&1; then
			patch -p1 -s -f --no-backup-if-mismatch <"debian/patches/$p" >>"$LOG" 2>&1 ||
				fail "Debian's patch $p failed"
		elif patch -p1 -s -f -R --dry-run <"debian/patches/$p" >/dev/null 2>&1; then
			dropped="$dropped $p"
		else
			fail "Debian's patch $p does not apply on upstream $commit"
		fi
	done
	cd / || exit 1
	printf 'commit=%s\ndebian=%s\ndropped=%s\n' "$commit" "$ver" "${dropped# }" >"$S/.mdf-ready"
	echo "source: Debian crash $ver + upstream $commit; Debian patches dropped: ${dropped:-none}" >>"$LOG"
}
prepare

# ---- X86 and ARM: a 32-bit build (-m32), so i386's libraries (once)
# What crash links (ncurses, zlib, lzo, snappy, zstd) and its gdb 16 (gmp,
# mpfr; expat for target descriptions), of i386, beside the amd64 ones
# build-dep installed.
M32_DEVS="libncurses-dev zlib1g-dev liblzo2-dev libsnappy-dev libzstd-dev libgmp-dev libmpfr-dev libexpat1-dev"
m32() {
	local p pkgs="gcc-multilib g++-multilib" missing=""
	for p in $M32_DEVS; do pkgs="$pkgs $p:i386"; done
	for p in $pkgs; do
		inroot dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "32-bit build: installing$missing" >>"$LOG"
	inroot dpkg --add-architecture i386 >>"$LOG" 2>&1 || fail "dpkg --add-architecture i386 failed in the root"
	# shellcheck disable=SC2086 # the packages are words
	retry "$LOG" inroot apt-get -q -o Acquire::Retries=0 -o APT::Update::Error-Mode=any update &&
		retry "$LOG" inroot apt-get -y -q -o Dpkg::Use-Pty=0 install $pkgs ||
		fail "installing the 32-bit build's packages (i386) in the root failed: $(tail -n 1 "$LOG")"
}
case $T in X86 | ARM) m32 ;; esac

# ---- the build of TARGET (gdb for TARGET: a while)
B=$C/$T/build
rm -rf "${C:?}/$T" && mkdir -p "$C/$T" && cp -a "$C/src" "$B" || fail "cannot copy the source to $B"
t0=$(date +%s)
inroot sh -c "cd $IN/$T/build && make -j2 target=$T lzo snappy zstd" >>"$LOG" 2>&1 ||
	fail "make target=$T failed: $(tail -n 1 "$LOG")"
secs=$(($(date +%s) - t0))
mv "$B/crash" "$C/$T/crash" || fail "no crash binary in $B"
inroot "$BIN" --version >>"$LOG" 2>&1 || fail "$BIN --version fails in the root"
val() { sed -n "s/^$1=//p" "$C/src/.mdf-ready"; }
commit=$(val commit) debian=$(val debian) dropped=$(val dropped)
gdb=${debian#*+~}
{
	echo "crash HEAD $commit (${debian%%+*} + upstream)"
	echo "target $T; Debian crash $debian (gdb ${gdb%-*}); Debian patches dropped: ${dropped:-none}; built in $secs s"
} >"$C/$T/crash-head.txt"
rm -rf "$B"
echo "$BIN"
