# shellcheck shell=bash
# .ci/slice.sh - sourced by .ci/run and tests/e2e/ci_slice.sh: which part of
# the real-kernel tests one CI run takes.  Every run takes one capture
# kernel (tests/e2e/capture.sh), one big guest, one foreign architecture,
# one kdump-tools variant, two page-state matrix cases on one kernel and
# the readers' gate on one kernel,
# chosen by the day (days since 1970, so that no year's end breaks the
# cycle), so that in any 7 days in a row every
# architecture, every big-guest size, every kdump-tools variant and every
# matrix case and every readers' kernel runs (the lists' lengths, 4, 4, 3,
# 10/2 and 6, are all at most 7).  `make lab` (tests/lab/all.sh) runs all of them at once.
#
# The 32-bit hosts (tests/cross.sh i386 and armhf: our program and its
# tests under qemu-user, and a dump over 4 GiB) fall on the days of their
# real kdumps: armhf with arm64, i386 with ppc64el.  tests/e2e/foreign.sh
# runs tests/cross.sh for them on their own dumps, so .ci/run has no
# second host32 stage on those days.  riscv64's and s390x's, the longest
# CI days, take none.
#
# ci_slice DAY  sets SLICE_FOREIGN (arm64+armhf, ppc64el+i386, riscv64 or
#               s390x: "+" joins architectures that run on one day),
#               SLICE_HOST32 (i386, armhf or none, by SLICE_FOREIGN),
#               SLICE_BIGGUEST (a size of tests/e2e/bigguest.sh),
#               SLICE_KDT (a variant of tests/e2e/kdumptools.sh),
#               SLICE_MATRIX_CASES (two cases of tests/lab/matrix.sh),
#               SLICE_MATRIX_KERNEL (one of its kernels) and SLICE_READERS
#               (a kernel of the readers' gate).
# DAY is a day number (.ci/run: days since 1970, or MDF_CI_DAY).
CI_FOREIGN="arm64+armhf ppc64el+i386 riscv64 s390x"
# a 32-bit host for each of CI_FOREIGN's days (none: that day has none)
CI_HOST32="armhf i386 none none"
# Heaviest with lightest: s390x builds its kdump kernel on a cold machine
# and ppc64el boots two MMUs, so they meet the shorter guests.  i386 (two
# 1 GiB guests and its cross-built tests, about 8 min) rides with ppc64el,
# the quickest foreign day (307 s against riscv64's 493 s and s390x's
# 767 s cold); armhf's (armmp-lpae and armmp, about 7 min) with arm64.
# Each architecture is a stage of its own in .ci/run's pool of two
# workers, so the two of a day run side by side.
CI_BIGGUEST="64G 4G 128G 16G"
CI_KDT="default lzo full"
CI_MATRIX_CASES="la57 numa2 numa4 hwpoison offline hugetlb1g hotplug above4g cma-movable reclaim"
CI_MATRIX_KERNELS="6.12 7.3 5.10 6.1"
# The readers' gate (tests/e2e/readers_gate.sh): the fixtures (no guest)
# fall on s390x's days (day % 4 == 3 is day % 6 == 1, 3 or 5), the 4 GiB
# guest on arm64's and riscv64's.
CI_READERS="5.10 6.1 7.3 6.12 6.1-4g sid"

# nth N WORDS...: the N-th word (from 0) of WORDS, N taken modulo their count.
ci_nth() {
	local n=$1
	shift
	local w=("$@")
	echo "${w[$((n % ${#w[@]}))]}"
}

ci_slice() {
	local d=$1
	# shellcheck disable=SC2086
	{
		SLICE_FOREIGN=$(ci_nth "$d" $CI_FOREIGN)
		SLICE_HOST32=$(ci_nth "$d" $CI_HOST32)
		SLICE_BIGGUEST=$(ci_nth "$d" $CI_BIGGUEST)
		SLICE_KDT=$(ci_nth "$d" $CI_KDT)
		SLICE_MATRIX_CASES="$(ci_nth $((2 * d)) $CI_MATRIX_CASES) $(ci_nth $((2 * d + 1)) $CI_MATRIX_CASES)"
		SLICE_MATRIX_KERNEL=$(ci_nth "$d" $CI_MATRIX_KERNELS)
		SLICE_READERS=$(ci_nth "$d" $CI_READERS)
	}
}
