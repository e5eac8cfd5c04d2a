#!/bin/bash
# tests/lab/all.sh - `make lab`: every real-kernel test in full,
# the tier that CI runs one slice of a day (.ci/slice.sh): the capture
# kernel, every big guest (4-128 GiB), every foreign architecture (arm64's
# two kernels, ppc64el radix and hash, riscv64, s390x, each with its cross
# build under qemu-user), the Debian package, every kdump-tools variant,
# the whole page-state matrix (10 cases on 4 kernels) and crash with the
# debug vmlinux.  Each is a timed stage; at the end the README's lab
# section (between "<!-- lab:begin -->" and "<!-- lab:end -->") gets the
# date, the commit, the table of the stages and the big guests' table, and
# its matrix table is rewritten from the results (tests/lab/matrix_table.py).
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
ONLY=" ${LAB_STAGES:-capture bigguest arm64 foreign deb kdumptools matrix crash} "
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
	libelf-dev libdw-dev libzstd-dev libsnappy-dev libdeflate-dev zstd python3 makedumpfile \
	libkdumpfile-dev python3-libkdumpfile python3-drgn crash qemu-system-x86 linux-image-amd64 \
	busybox-static kexec-tools cpio e2fsprogs dpkg-dev debhelper lintian debootstrap fakeroot \
	qemu-system-arm qemu-system-ppc qemu-system-misc qemu-user gcc-aarch64-linux-gnu \
	libc6-dev-arm64-cross gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross gcc-riscv64-linux-gnu \
	libc6-dev-riscv64-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross flex bison bc libssl-dev kmod ||
	exit 1
want capture && stage capture 1800 check MDF_CAPTURE_TEST=1 capture
want bigguest && stage bigguest 3600 check MDF_BIGGUEST_TEST=1 MDF_BIGGUEST_TABLE="$SRC/$BGTABLE" bigguest
want arm64 && stage arm64 3600 check MDF_ARM64_TEST=1 arm64
want foreign && stage foreign 5400 check MDF_FOREIGN_TEST=1 MDF_FOREIGN_ARCHES="ppc64el riscv64 s390x" foreign
want deb && stage deb 1800 check MDF_DEB_TEST=1 deb
want kdumptools && stage kdumptools 3600 check MDF_KDT_TEST=1 MDF_KDT_VARIANTS="default lzo full" kdumptools
want matrix && stage matrix 10800 check MDF_MATRIX_TEST=1 MDF_MATRIX_CACHE="$MATRIX_CACHE" matrix
want crash && stage crash 1800 check MDF_CRASH_TEST=1 "readers e2e/debuginfo_real"

echo
echo "== lab stages (total $((SECONDS - T_START)) s)"
stage_table
echo
echo "$PASS passed, $FAIL failed, $SKIP skipped"

if [ -n "$README_FILE" ] && [ -f "$README_FILE" ]; then
	sec=$(mktemp)
	{
		echo "Last \`make lab\`: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)'), stages: ${ONLY# }, $(((SECONDS - T_START) / 60)) minutes; $PASS passed, $FAIL failed, $SKIP skipped."
		echo
		stage_table
		if [ -s "$BGTABLE" ]; then
			echo
			echo "Big guests (tests/e2e/bigguest.sh) in that run:"
			echo
			cat "$BGTABLE"
		fi
	} >"$sec"
	python3 - "$README_FILE" "$sec" <<-'PY'
	import sys
	path, sec = sys.argv[1], open(sys.argv[2]).read()
	text = open(path).read()
	b, e = "<!-- lab:begin -->\n", "<!-- lab:end -->"
	i, j = text.find(b), text.find(e)
	if i < 0 or j < i:
	    sys.exit("no %s...%s in %s" % (b.strip(), e, path))
	open(path, "w").write(text[:i + len(b)] + sec + text[j:])
	PY
	rm -f "$sec"
	want matrix && [ -d "$MATRIX_CACHE/results" ] &&
		python3 tests/lab/matrix_table.py "$MATRIX_CACHE/results" --readme "$README_FILE"
	echo "updated $README_FILE"
fi
[ "$FAIL" = 0 ]
