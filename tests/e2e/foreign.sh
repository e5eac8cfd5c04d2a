#!/bin/bash
# Real kdumps of ppc64el, riscv64, s390x, i386 and armhf (tests/lab/foreign.sh boots
# Debian's kernels under qemu/TCG through ../shared/lab, crashes them and
# captures /proc/vmcore with kexec-tools of that architecture):
#   ppc64el  bookworm's 6.1 (64 KiB pages) on pseries, POWER9 (radix MMU)
#            and POWER8 (hash MMU)
#   riscv64  trixie's 6.12 (Sv57) on virt
#   s390x    bookworm's 6.1 source and config plus CRASH_DUMP (Debian's
#            s390x kernels have no kdump; built once into the cache, see
#            foreign_kbuild) on s390-ccw-virtio: big-endian
#   i386     bookworm's 6.1 686-pae (PAE, highmem) on pc, with KASLR and
#            with nokaslr (for crash); an ELF32 vmcore.  Until our reader
#            reads EM_386 dumps: "skip foreign-i386-ours" and the oracles
#            alone (labcheck.sh's check_oracle: 1.7.2 i386's classes
#            against kpageflags, its -l pages, dmesg; drgn; crash)
#   armhf    bookworm's 6.1 armmp-lpae (LPAE, highmem) and armmp (short
#            descriptors) on virt, cortex-a15; ELF32 vmcores.  1.7.2
#            armhf reads no LPAE dump: there classes and pages only
#   mips64el (only when named in MDF_FOREIGN_ARCHES, not yet by default)
#            bookworm's 6.1 loongson-3 (16 KiB pages, SPARSEMEM) on
#            loongson3-virt; its capture kernel is the same source and
#            config plus CRASH_DUMP, linked at 128 MiB (foreign_kbuild);
#            the oracle is 1.7.2 cross-built (tests/lab/mips64el_makedumpfile.sh),
#            equal to ours but for the page its exclude_nodata_pages()
#            drops (labcheck.sh); kpageflags with lab_max_pfn.ko
#            (foreign_kmod: Debian's loongson-3 leaves max_pfn 0)
#   loong64  (only when named in MDF_FOREIGN_ARCHES) sid's own 7.x (16 KiB
#            pages, 3 levels) on virt, la464, through sid's UEFI firmware;
#            sid's qemu and cross compiler from the readers' sid root
#            (tests/lab/loong64_tools.sh; tests/cross.sh builds our
#            program with that gcc for the capture kernel); its byte
#            oracle is tests/e2e/loongarch64_oracle.sh (Debian builds no
#            makedumpfile for loong64: 1.7.2 and HEAD cross-built)
# On each dump, our x86_64 binary: page classes against the guest's
# kpageflags; -l and -c pages equal the vmcore's (kdump.py); the readers
# (libkdumpfile, drgn) where they know the architecture, and crash HEAD
# of i386 and armhf (its X86 and ARM builds, foreign_crash_head: where
# built, or with MDF_CRASH_HEAD_X86=1 / MDF_CRASH_HEAD_ARM=1); threads,
# refiltering, -F | -R, --dump-dmesg and --mem-usage; and byte for byte
# against Debian's makedumpfile of that architecture under qemu-user
# (1.7.2 for ppc64el, s390x, i386 and armhf's armmp; sid's for riscv64, only where its own classes agree
# with kpageflags).  Our program cross-built for the architecture also runs
# in its capture kernel on the live /proc/vmcore (the lab's hook, through
# tests/lab/foreign/cpio) and writes the same -l file and dmesg as ours on
# the copied vmcore.  Then tests/cross.sh: our
# program and unit tests built with the cross compiler run under qemu-user,
# and write the same files as the x86_64 build, on these dumps.
# Takes a few minutes, so it only runs with MDF_FOREIGN_TEST=1
# (MDF_FOREIGN_ARCHES="ppc64el riscv64 s390x i386 armhf" by default).  Packages go to
# MDF_FOREIGN_CACHE (default /var/tmp/mdf-foreign), never installed.
. "$(dirname "$0")/../lib/lib.sh"
LABDIR="$MDF_SHARED/lab"
CACHE=${MDF_FOREIGN_CACHE:-/var/tmp/mdf-foreign}

optin foreign MDF_FOREIGN_TEST "real ppc64el, riscv64, s390x, i386 and armhf kdumps under qemu take minutes" || exit 0
if [ ! -f "$LABDIR/mkvmcore.sh" ]; then
	needfail "foreign" "no $LABDIR/mkvmcore.sh (the lab lives in ../shared beside the clone)"
	exit 0
fi
DEB_ARCH=none
. "$MDF_SRC/tests/lab/labcheck.sh"
. "$MDF_SRC/tests/lab/foreign.sh"

for arch in ${MDF_FOREIGN_ARCHES:-ppc64el riscv64 s390x i386 armhf}; do
	foreign_arch "$arch" || { notok "foreign-$arch" "unknown architecture"; continue; }
	# (loong64: sid's qemu and cross compiler, from the readers' sid root)
	if ! tools=$(foreign_tools "$CACHE/$arch" 2>"$T/tools-$arch.log"); then
		needfail "$arch" "$(tail -n 1 "$T/tools-$arch.log")"
		continue
	fi
	[ -n "$tools" ] && PATH="$tools:$PATH"
	missing=""
	for t in "$QEMU_SYS" "$TRIPLET-gcc" "$QEMU_USER" cpio gzip mkfs.ext4 debugfs readelf busybox; do
		command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
	done
	if [ -n "$missing" ]; then
		needfail "$arch" "missing:$missing (apt-get install qemu-system-ppc qemu-system-misc qemu-system-x86 qemu-system-arm qemu-system-mips qemu-user gcc-$TRIPLET libc6-dev-$DEB_ARCH-cross)"
		continue
	fi
	c=$CACHE/$arch
	mkdir -p "$c"
	t0=$SECONDS
	if { [ ! -f "$c/staged" ] && ! foreign_stage "$c"; } || ! foreign_kernel "$c"; then
		needfail "$arch" "cannot stage the $arch packages or kernel: $(tail -n 1 "$T/apt-$arch.log" 2>/dev/null)"
		continue
	fi
	foreign_upstream "$c"
	# mips64el: max_pfn for the first kernel's /proc/kpageflags
	foreign_kmod "$c"
	[ -n "${KMOD_WHY:-}" ] && echo "# $arch: no kpageflags: $KMOD_WHY"
	# crash of the architecture, where one runs here (i386), for the
	# readers (MDF_READERS_TEST=1, make lab)
	# shellcheck disable=SC2034 # read by labcheck.sh's check_oracle
	FCRASH=() FCRASH_WHY="not asked for (MDF_READERS_TEST=1)"
	[ "${MDF_READERS_TEST:-0}" = 1 ] && { foreign_crash "$c" || true; }
	echo "# $arch staged in $((SECONDS - t0)) s"
	# Our program cross-built, to run in the capture kernel too.
	CAPTURE_BIN="" CAPTURE_SYSROOT="" XWHY="" XSAID=0
	t0=$SECONDS
	# (cross.sh exits 0 when it skips: its "ok" line says it built)
	# (loong64: tests/cross.sh builds with the sid root's gcc 16 too)
	if MDF_CROSS_BUILD_ONLY=1 bash "$MDF_SRC/tests/cross.sh" "$DEB_ARCH" "$MDF_BUILD" \
		>"$T/cross-build-$arch.log" 2>&1 && grep -q "^ok cross-$DEB_ARCH-build" "$T/cross-build-$arch.log"; then
		xb=$MDF_SRC/build/cross-$DEB_ARCH/makedumpfile
		file -b "$xb" | grep -q '^ELF' || xb=$xb.$DEB_ARCH
		CAPTURE_BIN=$xb CAPTURE_SYSROOT=${MDF_CROSS_CACHE:-/var/tmp/mdf-cross}/$DEB_ARCH/sysroot
		echo "# $arch cross build in $((SECONDS - t0)) s"
	else
		# said once the dump shows whether our program reads it at all
		XWHY="cross build: $(grep -v '^[0-9]* passed' "$T/cross-build-$arch.log" | tail -n 2 |
			sed 's/ (MDF_REAL_REQUIRED=1: .*//' | tr '\n' ' ')"
	fi
	vms=""
	case "$arch" in
	ppc64el) variants="radix hash" ;;
	# nokaslr: the kernel where its vmlinux says, which crash can read
	i386) variants="default nokaslr" ;;
	# Debian's armmp-lpae and plain armmp (short descriptors)
	armhf) variants="lpae armmp" ;;
	*) variants="default" ;;
	esac
	for v in $variants; do
		name=mdf-$arch-$v
		foreign_lab "$c" "$name" "$v" || continue
		elf=$T/lab-$arch/vmcores/$name.elf
		# MDF_FOREIGN_KEEP=DIR keeps a copy of each lab vmcore and its
		# first kernel's files (NAME.d/stage1: the kpageflags snapshot),
		# to look into a failure after the run
		[ -n "${MDF_FOREIGN_KEEP:-}" ] && mkdir -p "$MDF_FOREIGN_KEEP" &&
			cp "$elf" "$MDF_FOREIGN_KEEP/" &&
			cp -r "${elf%.elf}.d" "$MDF_FOREIGN_KEEP/" 2>/dev/null
		[ -n "${MDF_FOREIGN_KEEP:-}" ] && echo "# kept $MDF_FOREIGN_KEEP/$name.elf"
		# i386: until the reader reads its dumps, the oracles alone (the
		# page classes and bytes of Debian's makedumpfile, drgn); then
		# the checks below, as on the other architectures
		if ! ours_reads "$elf"; then
			skip "foreign-$arch-ours" "the reader does not read $arch dumps yet"
			[ -n "$XWHY" ] && [ $XSAID = 0 ] && echo "# $arch: $XWHY" && XSAID=1
			check_oracle "$elf" "$arch-$v"
			rm -f "$T"/d.* "$T"/*.l
			continue
		fi
		[ -n "$XWHY" ] && [ $XSAID = 0 ] && needfail "$arch-capture" "$XWHY" && XSAID=1
		# 1.7.2 armhf reads no LPAE dump (its arm.c walks short
		# descriptors only): on armmp-lpae the classes against
		# kpageflags and the pages alone, no byte oracle
		UP_SAVED=()
		if [ "$arch/$v" = armhf/lpae ] && [ ${#UP[@]} != 0 ]; then
			UP_SAVED=("${UP[@]}")
			UP_WHY="1.7.2 armhf cannot read an LPAE dump: $("${UP[@]}" -l -d 31 "$elf" "$T/up.lpae" 2>&1 |
				grep -m 1 -iE 'fail|cannot|can.t|invalid|error' | tr -s ' ')"
			UP=() UP_SETUP_FAILED=0
			rm -f "$T/up.lpae"
		fi
		if [ "$BIG_ENDIAN" = 1 ]; then
			# The Python readers of ELF and kdump files assume
			# little-endian ones: tests/lab/foreign/py/usercustomize.py.
			MDF_FOREIGN_BIG_ENDIAN=1 PYTHONPATH="$MDF_SRC/tests/lab/foreign/py" \
				check_dump "$elf" "$arch-$v"
		else
			check_dump "$elf" "$arch-$v"
		fi
		# (plain armmp's 1.7.2 is the byte oracle again)
		[ ${#UP_SAVED[@]} = 0 ] || UP=("${UP_SAVED[@]}")
		check_keep_task "$elf" "$arch-$v"
		# i386 and armhf: crash HEAD's 32-bit builds on the raw vmcore
		# and our -l file, where built (or MDF_CRASH_HEAD_X86/ARM=1)
		foreign_crash_head "$elf" "$arch-$v"
		vms="$vms $elf"
		# The cross-built program ran in the capture kernel on the live
		# /proc/vmcore: the same file as ours from the copy.
		if [ -n "$CAPTURE_BIN" ]; then
			h=${elf%.elf}.d/hook
			rm -f "$T/x.l" "$T/x.dmesg"
			"$MDF" -l -d 31 "$elf" "$T/x.l" >/dev/null 2>&1
			"$MDF" --dump-dmesg "$elf" "$T/x.dmesg" >/dev/null 2>&1
			if [ -s "$h/ours.l" ] && cmp -s "$h/ours.l" "$T/x.l" && cmp -s "$h/dmesg.txt" "$T/x.dmesg"; then
				ok "$arch-$v-in-capture-kernel ($(stat -c %s "$h/ours.l") bytes; $(tr '\n' ' ' <"$h/stdout.txt" 2>/dev/null))"
			else
				notok "$arch-$v-in-capture-kernel" "$(cat "$h/result.txt" "$h/stdout.txt" "$h/ours.log" 2>/dev/null | tr '\n' ' ') $(cmp "$h/ours.l" "$T/x.l" 2>&1)"
			fi
		fi
		rm -f "$T"/d.* "$T"/*.l
	done
	# (no lab run got as far as saying it)
	[ -n "$XWHY" ] && [ $XSAID = 0 ] && needfail "$arch-capture" "$XWHY"
	# Our own code built for the architecture, on its own dumps.
	if [ -n "$vms" ]; then
		t0=$SECONDS
		MDF_CROSS_VMCORES="$vms" bash "$MDF_SRC/tests/cross.sh" "$DEB_ARCH" "$MDF_BUILD" \
			>"$T/cross-$arch.log" 2>&1
		sed -n 's/^ *\(ok\|not ok\|skip\) /\1 /p' "$T/cross-$arch.log" |
			sed "s/^\(ok\|not ok\|skip\) /\1 $arch-cross /"
		echo "# $arch cross build and tests in $((SECONDS - t0)) s: $(tail -n 1 "$T/cross-$arch.log")"
	fi
	rm -rf "$T/lab-$arch"
done
exit 0
