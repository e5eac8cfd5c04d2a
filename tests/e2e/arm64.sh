#!/bin/bash
# Real arm64 kdumps: the lab (../shared/lab/mkvmcore.sh --arch arm64) boots a
# Debian arm64 kernel under qemu (TCG), fills its memory, snapshots
# /proc/kpageflags and crashes it; the capture kernel copies /proc/vmcore
# out.  Two kernels: bookworm's 6.1 (4 KiB pages, 48-bit VAs) and trixie's
# 6.12 arm64-16k (16 KiB pages, 52-bit VAs with FEAT_LPA2, which qemu's
# -cpu max has).  Our x86_64 binary filters each dump, and:
#  - page classes at -d 31 agree with the kpageflags oracle (kpf-oracle.py)
#    up to the pages that changed between the snapshot and the crash;
#  - every page of the -l and -c output equals the vmcore's (kdump.py), and
#    libkdumpfile and drgn read our -l and -E files, kernel addresses included;
#  - --num-threads 2, refiltering, -F | -R and --dump-dmesg (the lab's
#    marker) agree with the direct runs; --mem-usage equals the report;
#  - 6.1 only: Debian's makedumpfile 1.7.2 for arm64, run under qemu-user
#    (qemu-aarch64 -L with its libraries), writes byte for byte the same
#    -l and -E files at dump levels 2, 4, 8, 16 and 31, and the same -c dump
#    (kdump_same.py: libdeflate's zlib bytes differ) (1.7.2 cannot
#    read the LPA2 dump at all: "Can't determine platform config values").
# Takes about 3 minutes (downloads on the first run), so it only runs with
# MDF_ARM64_TEST=1.  Needs qemu-system-arm, qemu-user, gcc-aarch64-linux-gnu
# and the lab's tools; the arm64 kernels, busybox, kexec-tools and 1.7.2 are
# fetched with apt-get download into MDF_ARM64_CACHE (default
# /var/tmp/mdf-arm64), never installed, from the Debian mirror of this
# machine's apt sources (tests/lib/apt.sh; MDF_DEBIAN_MIRROR overrides it).
# MDF_ARM64_VMCORE=NAME.elf (made by the lab, with its NAME.d and NAME.json
# beside it) checks that dump only.
. "$(dirname "$0")/../lib/lib.sh"
LABDIR="$MDF_SHARED/lab"
DEB_ARCH=arm64 LK_ARCH=aarch64 DRGN_ARCH=AARCH64
. "$MDF_SRC/tests/lab/labcheck.sh"
CACHE=${MDF_ARM64_CACHE:-/var/tmp/mdf-arm64}

if [ "${MDF_ARM64_TEST:-0}" != 1 ] && [ -z "${MDF_ARM64_VMCORE:-}" ]; then
	skip "arm64" "a real arm64 kdump under qemu takes ~2 min; run with MDF_ARM64_TEST=1 make check TESTS=arm64"
	exit 0
fi

# ---- the vmcore ------------------------------------------------------
stage() { # bookworm's newest 6.1 arm64 kernel and the user space, into $CACHE
	local k log=$T/apt.log
	apt_state "$CACHE/apt" "$log" bookworm bookworm-security || return 1
	mkdir -p "$CACHE/debs" "$CACHE/kdeb" || return 1
	k=$(newest '^linux-image-6\.1\.0-[0-9]*-arm64$')
	[ -n "$k" ] || { echo "no linux-image-6.1.0-N-arm64 in bookworm's index" >>"$log"; return 1; }
	apt_download "$log" "$CACHE/kdeb" "$k" || return 1
	# busybox, kexec-tools and the libraries kexec links (Debian builds it with Xen).
	apt_download "$log" "$CACHE/debs" busybox-static kexec-tools libc6 zlib1g \
		libxenmisc4.17 libext2fs2 libfdt1 libuuid1 libxencall1 libxendevicemodel1 \
		libxenevtchn1 libxenforeignmemory1 libxengnttab1 libxenhypfs1 libxenstore4 \
		libxentoollog1 libyajl2 libxentoolcore1 libcom-err2 || return 1
	rm -rf "$CACHE/stage" "$CACHE/kernel"
	for d in "$CACHE"/debs/*.deb; do dpkg -x "$d" "$CACHE/stage" 2>>"$log" || return 1; done
	dpkg -x "$CACHE"/kdeb/*.deb "$CACHE/kernel" 2>>"$log" || return 1
	touch "$CACHE/staged"
}

stage_upstream() { # Debian's arm64 makedumpfile and its libraries, for qemu-user
	apt_opts "$CACHE/apt"
	mkdir -p "$CACHE/updebs" || return 1
	apt_download "$T/apt-up.log" "$CACHE/updebs" makedumpfile libc6 libdw1 libelf1 \
		liblzo2-2 zlib1g liblzma5 libbz2-1.0 libzstd1 || return 1
	rm -rf "$CACHE/upstream"
	for d in "$CACHE"/updebs/*.deb; do dpkg -x "$d" "$CACHE/upstream" 2>>"$T/apt-up.log" || return 1; done
	touch "$CACHE/upstream-staged"
}

stage_16k() { # trixie's arm64-16k kernel (16 KiB pages, LPA2), into $CACHE/kernel16k
	local k log=$T/apt16.log
	apt_state "$CACHE/apt16" "$log" trixie || return 1
	mkdir -p "$CACHE/kdeb16" || return 1
	k=$(newest '^linux-image-6\.12\.[0-9]*\+deb13-arm64-16k-unsigned$')
	[ -n "$k" ] || { echo "no linux-image-6.12.N+deb13-arm64-16k-unsigned in trixie's index" >>"$log"; return 1; }
	apt_download "$log" "$CACHE/kdeb16" "$k" || return 1
	rm -rf "$CACHE/kernel16k"
	dpkg -x "$CACHE"/kdeb16/*.deb "$CACHE/kernel16k" 2>>"$log" || return 1
	touch "$CACHE/staged16k"
}

# lab_run KERNELDIR NAME: make NAME.elf in $T/lab/vmcores (0 on success).
lab_run() {
	local t0=$SECONDS rc
	LAB_DATA="$T/lab" bash "$LABDIR/mkvmcore.sh" --arch arm64 --arm64-root "$CACHE/stage" \
		--kernel "$1" --name "$2" --mem 1G --timeout 900 >"$T/lab-$2.log" 2>&1
	rc=$?
	echo "# lab run $2: rc $rc in $((SECONDS - t0)) s"
	rm -rf "$T/lab/runs"
	if [ $rc -ne 0 ] || [ ! -f "$T/lab/vmcores/$2.elf" ]; then
		notok "$2-lab-run" "mkvmcore.sh rc $rc: $(tail -n 5 "$T/lab-$2.log" | tr '\n' ' ')"
		return 1
	fi
}

# up_arm64: UP = Debian's arm64 makedumpfile 1.7.2 under qemu-user.
up_arm64() {
	UP=() UP_SETUP_FAILED=1
	if ! command -v qemu-aarch64 >/dev/null 2>&1; then
		UP_WHY="no qemu-aarch64 (apt-get install qemu-user)"
	elif [ ! -f "$CACHE/upstream-staged" ] && ! stage_upstream; then
		UP_WHY="cannot fetch makedumpfile:arm64: $(tail -n 1 "$T/apt-up.log" 2>/dev/null)"
	else
		UP=(qemu-aarch64 -L "$CACHE/upstream" "$CACHE/upstream/usr/bin/makedumpfile")
		UP_SETUP_FAILED=0
	fi
}

if [ -n "${MDF_ARM64_VMCORE:-}" ]; then
	[ -f "$MDF_ARM64_VMCORE" ] || { notok "arm64-vmcore" "no $MDF_ARM64_VMCORE"; exit 0; }
	# 1.7.2 reads 48-bit kernels only (not the LPA2 ones).
	UP=() UP_WHY="1.7.2 cannot read this kernel's layout" UP_SETUP_FAILED=0
	strings -n 8 "$MDF_ARM64_VMCORE" | head -c 4000000 | grep -qx 'NUMBER(VA_BITS)=48' && up_arm64
	check_dump "$MDF_ARM64_VMCORE" arm64
	exit 0
fi
missing=""
for t in qemu-system-aarch64 aarch64-linux-gnu-gcc cpio gzip mkfs.ext4 debugfs xz readelf file \
	python3 gcc busybox apt-get dpkg; do
	command -v $t >/dev/null 2>&1 || missing="$missing $t"
done
if [ -n "$missing" ]; then
	needfail "arm64" "missing:$missing (apt-get install qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross busybox-static cpio)"
	exit 0
fi
if [ ! -f "$LABDIR/mkvmcore.sh" ]; then
	needfail "arm64" "no $LABDIR/mkvmcore.sh (the lab lives in ../shared beside the clone)"
	exit 0
fi
if [ ! -f "$CACHE/staged" ] && ! stage; then
	needfail "arm64" "cannot fetch the arm64 packages: $(tail -n 1 "$T/apt.log" 2>/dev/null)"
	exit 0
fi
if lab_run "$CACHE/kernel" mdf-arm64; then
	up_arm64
	check_dump "$T/lab/vmcores/mdf-arm64.elf" arm64
	check_keep_task "$T/lab/vmcores/mdf-arm64.elf" arm64
	rm -f "$T"/lab/vmcores/mdf-arm64.elf "$T"/d.* "$T"/*.l
fi
if [ ! -f "$CACHE/staged16k" ] && ! stage_16k; then
	needfail "arm64-16k" "cannot fetch trixie's arm64-16k kernel: $(tail -n 1 "$T/apt16.log" 2>/dev/null)"
elif lab_run "$CACHE/kernel16k" mdf-arm64-16k; then
	UP=() UP_SETUP_FAILED=0
	UP_WHY="1.7.2 cannot read the LPA2 dump (\"Can't determine platform config values\")"
	check_dump "$T/lab/vmcores/mdf-arm64-16k.elf" arm64-16k
	check_keep_task "$T/lab/vmcores/mdf-arm64-16k.elf" arm64-16k
fi
exit 0
