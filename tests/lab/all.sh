#!/bin/bash
# tests/lab/all.sh - `make lab`: every real-kernel test in full,
# the tier that CI runs one slice of a day (.ci/slice.sh): the capture
# kernel, every big guest (4-512 GiB), every foreign architecture (arm64's
# two kernels, ppc64el radix and hash, riscv64, s390x, i386, each with its cross
# build under qemu-user), the 32-bit hosts (i386 and armhf: tests/cross.sh
# with the e2e scripts and a dump over 4 GiB), the Debian package, every kdump-tools variant,
# the whole page-state matrix (10 cases on 4 kernels), crash with the
# debug vmlinux, the mips64el and loong64 byte oracles (1.7.2 cross-built,
# under qemu-mips64el and the sid root's qemu-loongarch64;
# MDF_MAKEDUMPFILE_GIT from the environment where the mirror lacks 1.7.2's
# tarballs), and the readers' gate on every kernel (sid's crash and
# drgn, tests/e2e/readers_gate.sh; its table goes into the README between
# "<!-- readers:begin -->" and "<!-- readers:end -->").  Each is a timed
# stage; as it ends, the README's lab section (between "<!-- lab:begin -->"
# and "<!-- lab:end -->") gets its row (tests/lab/lab_readme.py: the date,
# the commit, the wall time and the counts; the other stages' rows stay,
# so the lab can run in parts), the big guests' table, and its matrix
# table is rewritten from the results (tests/lab/matrix_table.py).
# About 2.5 hours on a 2-core machine with its caches warm.
#
#   LAB_STAGES="capture matrix"  runs only those stages (names below)
#   LAB_README=FILE              the README to update (default README; "" = none)
# Installs what it needs with apt-get, as .ci/run does (run as root).
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$SRC" || exit 1
export DEBIAN_FRONTEND=noninteractive MDF_REAL_REQUIRED=1
. tests/lib/apt.sh
. tests/lib/stages.sh
STAGE_LOGS=build/lab
mkdir -p "$STAGE_LOGS"
README_FILE=${LAB_README-README}
ONLY=" ${LAB_STAGES:-capture bigguest arm64 foreign host32 mips64 loong64 deb kdumptools matrix crash readers} "
MATRIX_CACHE=${MDF_MATRIX_CACHE:-/var/tmp/mdf-matrix}
BGTABLE=$STAGE_LOGS/bigguest-table.md
T_START=$SECONDS
jobs=$(nproc)
want() { [[ "$ONLY" == *" $1 "* ]]; }
check() { # check ENV... TEST: make check of one test with those settings
	local n=$#
	env "${@:1:n-1}" make -j"$jobs" DEVELOPER=1 check TESTS="e2e/${!n}"
}

rm -f "$BGTABLE"
stage deps 1800 stage_install lab build-essential pkg-config zlib1g-dev liblzo2-dev \
	libelf-dev libdw-dev libzstd-dev libsnappy-dev libdeflate-dev libbpf-dev zstd python3 makedumpfile \
	libkdumpfile-dev python3-libkdumpfile python3-drgn crash qemu-system-x86 linux-image-amd64 \
	busybox-static kexec-tools cpio e2fsprogs dpkg-dev debhelper lintian debootstrap fakeroot \
	qemu-system-arm qemu-system-ppc qemu-system-misc qemu-user gcc-aarch64-linux-gnu \
	libc6-dev-arm64-cross gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross gcc-riscv64-linux-gnu \
	libc6-dev-riscv64-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross flex bison bc libssl-dev kmod \
	gcc-i686-linux-gnu libc6-dev-i386-cross gcc-arm-linux-gnueabihf libc6-dev-armhf-cross \
	gcc-mips64el-linux-gnuabi64 ||
	exit 1
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || COMMIT="$COMMIT (with uncommitted changes)"
# lab NAME TIMEOUT CMD...: a stage, and its row in the README at once.
lab() {
	local name=$1 n
	want "$name" || return 0
	stage "$@"
	[ -n "$README_FILE" ] && [ -f "$README_FILE" ] || return 0
	n=$((${#STAGE_NAMES[@]} - 1))
	python3 tests/lab/lab_readme.py "$README_FILE" "$name" "$(date -u +%Y-%m-%d)" "$COMMIT" \
		"${STAGE_SECS[n]}" "${STAGE_RESULTS[n]}" \
		$([ "$name" = bigguest ] && [ -s "$BGTABLE" ] && echo "$BGTABLE") &&
		echo "$README_FILE: the row of stage $name"
	if [[ " arm64 foreign readers " == *" $name "* ]] && [ -s "$READERS_TSV" ]; then
		python3 tests/lab/readers/table.py "$READERS_TSV" "${MDF_READERS_CACHE:-/var/tmp/mdf-readers}/sid-$(dpkg --print-architecture)/readers.txt" \
			"$README_FILE" "$COMMIT" && echo "$README_FILE: the readers' table"
	fi
	if [ "$name" = matrix ] && [ -d "$MATRIX_CACHE/results" ]; then
		python3 tests/lab/matrix_table.py "$MATRIX_CACHE/results" --readme "$README_FILE"
	fi
}
lab capture 1800 check MDF_CAPTURE_TEST=1 capture
lab bigguest 9000 check MDF_BIGGUEST_TEST=1 MDF_BIGGUEST_SIZES="4G 16G 64G 128G 512G" MDF_BIGGUEST_EXTRA=1 \
	MDF_BIGGUEST_TABLE="$SRC/$BGTABLE" bigguest
READERS_TSV=$SRC/$STAGE_LOGS/readers.tsv
rm -f "$READERS_TSV"
# the foreign architectures' dumps go through the readers' gate too
lab arm64 5400 check MDF_ARM64_TEST=1 MDF_READERS_TEST=1 MDF_READERS_CRASH_HEAD=1 MDF_READERS_TABLE="$READERS_TSV" arm64
lab foreign 7200 check MDF_FOREIGN_TEST=1 MDF_FOREIGN_ARCHES="ppc64el riscv64 s390x i386 armhf" MDF_FOREIGN_KDEBUG=1 \
	MDF_CRASH_HEAD_X86=1 MDF_CRASH_HEAD_ARM=1 \
	MDF_READERS_TEST=1 MDF_READERS_CRASH_HEAD=1 MDF_READERS_TABLE="$READERS_TSV" foreign
# host32: tests/cross.sh on the 32-bit hosts, i386 and armhf, with the
# e2e scripts under qemu-user too, and the dump over 4 GiB; the counts of
# both summed.
host32() {
	local a line p f s P=0 F=0 S=0
	# the host build they compare with
	make -s -j"$jobs" DEVELOPER=1 all test-bins || return 1
	for a in i386 armhf; do
		MDF_CROSS_TESTS="unit/ fuzz/ e2e/" timeout -k 30 5400 bash tests/cross.sh "$a" build/default |
			tee "$STAGE_LOGS/host32-$a.log"
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$STAGE_LOGS/host32-$a.log" | tail -n 1)
		read -r p _ f _ s _ <<<"${line//,/}"
		P=$((P + ${p:-0})) F=$((F + ${f:-1})) S=$((S + ${s:-0}))
	done
	echo "$P passed, $F failed, $S skipped"
	[ "$F" = 0 ]
}
lab host32 10800 host32
lab mips64 1800 check MDF_MIPS64_TEST=1 mips64_oracle
lab loong64 1800 check MDF_LOONG64_TEST=1 loongarch64_oracle
lab deb 1800 check MDF_DEB_TEST=1 deb
lab kdumptools 3600 check MDF_KDT_TEST=1 MDF_KDT_VARIANTS="default lzo full" kdumptools
lab crash 1800 check MDF_CRASH_TEST=1 "readers e2e/debuginfo_real"
lab readers 7200 check MDF_READERS_TEST=1 MDF_READERS_CRASH_HEAD=1 MDF_READERS_TABLE="$READERS_TSV" MDF_MATRIX_CACHE="$MATRIX_CACHE" readers_gate
lab matrix 10800 check MDF_MATRIX_TEST=1 MDF_MATRIX_CACHE="$MATRIX_CACHE" matrix

echo
echo "== lab stages (total $((SECONDS - T_START)) s)"
stage_table
echo
echo "$PASS passed, $FAIL failed, $SKIP skipped"
[ "$FAIL" = 0 ]
