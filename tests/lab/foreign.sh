# tests/lab/foreign.sh - sourced by tests/e2e/foreign.sh (after
# tests/lib/lib.sh and tests/lab/labcheck.sh): real kdumps of the
# architectures ../shared/lab does not boot itself, ppc64el, riscv64,
# s390x, i386, armhf, mips64el and loong64.
#
# The lab's arm64 path (mkvmcore.sh --arch arm64) is a virt-style machine:
# -M virt, -kernel and -initrd, virtio-blk-pci disks, a workload
# cross-compiled with aarch64-linux-gnu-gcc, kexec-tools and busybox from a
# staged root of foreign packages.  Other architectures fit the same path:
# tests/lab/foreign/ holds stand-ins for qemu-system-aarch64 and
# aarch64-linux-gnu-gcc, first on PATH, that run the architecture's qemu
# (with its machine and CPU arguments, and s390x's virtio-ccw disks) and
# cross compiler instead (i386: qemu-system-i386 -M pc, whose PCI takes the
# same virtio-blk-pci disks), and a cpio stand-in that fixes what kexec-tools
# gets wrong on riscv64.  s390x is big-endian: the lab's Python step reads
# its vmcore through tests/lab/foreign/py/usercustomize.py, and foreign_lab
# turns the guest's kpageflags snapshot into the lab's little-endian files.
#
# foreign_arch ARCH      set the facts of ARCH (variables below)
# foreign_stage CACHE    fetch kernel, busybox, kexec-tools and libc into
#                        CACHE/stage and CACHE/kernel (apt-get download,
#                        dpkg -x; nothing is installed)
# foreign_tools CACHE    loong64: a directory of sid's qemu and cross
#                        compiler to put first on PATH (loong64_tools.sh)
# foreign_kernel CACHE   s390x: build CACHE/kdump-kernel (foreign_kbuild,
#                        ~5 min once); mips64el: its capture kernel;
#                        loong64: the zboot's PE image (foreign_unzboot)
# foreign_kmod CACHE     mips64el: lab_max_pfn.ko for the first kernel's
#                        /proc/kpageflags (STAGE1_MODULE, or KMOD_WHY)
# foreign_upstream CACHE Debian's makedumpfile of ARCH into CACHE/upstream:
#                        sets UP (its command under qemu-user) or UP_WHY
# foreign_lab CACHE NAME VARIANT  boot, crash and capture: $T/lab-$FA/vmcores/NAME.elf
#                        (a lab directory per architecture: the lab keeps
#                        its cross-built workload there as "labwork-arm64")
# foreign_crash_head ELF TAG  i386 and armhf: crash HEAD's X86 or ARM build
#                        on the raw vmcore, our -l file and a control

foreign_arch() {
	FA=$1 IOMEM=0 LK_ARCH="" LK_WHY="" DRGN_FILES="l E" DRGN_WHY="" CK=192M
	VIRTIO=pci KDIR=kernel BIG_ENDIAN=0 ELF32=0 MULTIARCH= KPAT2="" KDIR2=""
	SDEBS=() KEXEC_ARGS="" CAPK="" DRGN_ARCH="" CAPTURE_MORE=""
	# foreign_kbuild's kernel: make's ARCH, its target and image, its name
	KB_ARCH=s390 KB_TARGET=bzImage KB_IMAGE=arch/s390/boot/bzImage KB_LOCAL=-s390x-kdump
	KB_MODULES=1 KB_CONFIG=()
	# foreign_kbuild's marker: names the build, a new one builds anew
	KBUILD_MARK=built.v2-trimmed
	case "$1" in
	riscv64)
		DEB_ARCH=riscv64 TRIPLET=riscv64-linux-gnu QEMU_USER=qemu-riscv64
		QEMU_SYS=qemu-system-riscv64 CONSOLE=ttyS0 DRGN_ARCH=RISCV64
		# Debian ships riscv64 since trixie; kexec-tools only in sid.
		SUITES=(trixie sid)
		KPAT='^linux-image-6\.12\.[0-9]*\+deb13-riscv64$'
		# kexec-tools 2.0.32 leaves memblock's memory out (tests/lab/foreign/cpio).
		IOMEM=1
		LK_WHY="libkdumpfile $(dpkg-query -W -f '${Version}' libkdumpfile-dev 2>/dev/null) has no riscv64"
		DRGN_FILES="E" DRGN_WHY="drgn reads kdump files through libkdumpfile"
		;;
	ppc64el)
		DEB_ARCH=ppc64el TRIPLET=powerpc64le-linux-gnu QEMU_USER=qemu-ppc64le
		QEMU_SYS=qemu-system-ppc64 CONSOLE=hvc0 LK_ARCH=ppc64 DRGN_ARCH=PPC64
		SUITES=(bookworm bookworm-security)
		KPAT='^linux-image-6\.1\.0-[0-9]*-powerpc64le$'
		# 64 KiB pages: the capture kernel and its initramfs need more room.
		CK=384M
		;;
	s390x)
		DEB_ARCH=s390x TRIPLET=s390x-linux-gnu QEMU_USER=qemu-s390x
		QEMU_SYS=qemu-system-s390x CONSOLE=ttysclp0 LK_ARCH=s390x DRGN_ARCH=S390X
		SUITES=(bookworm bookworm-security)
		KPAT='^linux-image-6\.1\.0-[0-9]*-s390x$'
		# Debian's s390x kernels cannot do kdump: the lab boots the same
		# 6.1 built with CRASH_DUMP (foreign_kbuild).
		KDIR=kdump-kernel BIG_ENDIAN=1
		# s390-ccw-virtio: the disks are virtio-blk-ccw
		# (tests/lab/foreign/qemu-system-aarch64).
		VIRTIO=ccw
		# qemu's TCG has no EDAT-1 (1 MiB segments): the guest has no
		# THP and no hugetlbfs ("hugetlbfs: disabling because there are
		# no supported hugepage sizes"), labwork's hugetlb part fails.
		;;
	i386)
		DEB_ARCH=i386 TRIPLET=i686-linux-gnu MULTIARCH=i386-linux-gnu QEMU_USER=qemu-i386
		QEMU_SYS=qemu-system-i386 CONSOLE=ttyS0 DRGN_ARCH=I386
		SUITES=(bookworm bookworm-security)
		# (measured on the lab's dump and 1.7.2's -l -d 31 of it)
		LK_WHY="libkdumpfile $(dpkg-query -W -f '${Version}' libkdumpfile-dev 2>/dev/null) cannot translate i386 PAE kernel addresses in a kdump file, not even in 1.7.2's (\"Cannot read 64-bit PTE at\" swapper_pg_dir: \"Infinite recursion loop\"; physical reads work)"
		DRGN_FILES="E" DRGN_WHY="drgn reads kdump files through libkdumpfile"
		# PAE (3-level page tables, 64-bit PTEs; HIGHMEM64G, FLATMEM):
		# bookworm's 686-pae has KEXEC, CRASH_DUMP and PROC_VMCORE (no
		# KEXEC_FILE: that is x86_64's), so Debian's own kernel.
		KPAT='^linux-image-6\.1\.0-[0-9]*-686-pae$'
		# kexec-tools writes the elfcorehdr (kexec_load): ELF32 below
		# 4 GiB of RAM (get_core_type), which the lab's NAME.json step
		# reads through tests/lab/foreign/py/usercustomize.py.
		ELF32=1
		# 32-bit KASLR moves the kernel physically and virtually alike
		# (PAGE_OFFSET + physical) and VMCOREINFO has no KERNELOFFSET:
		# only its SYMBOL()s say where the kernel went.  Until our
		# reader reads EM_386 dumps, tests/e2e/foreign.sh runs the
		# oracles alone (check_oracle).
		;;
	armhf)
		DEB_ARCH=armhf TRIPLET=arm-linux-gnueabihf QEMU_USER=qemu-arm
		QEMU_SYS=qemu-system-arm CONSOLE=ttyAMA0 DRGN_ARCH=ARM
		SUITES=(bookworm bookworm-security)
		# (measured on the lab's dumps: both read the raw vmcore's
		# init_uts_ns, through its PT_LOADs' virtual addresses)
		LK_WHY="libkdumpfile $(dpkg-query -W -f '${Version}' libkdumpfile-dev 2>/dev/null) cannot translate 32-bit arm kernel addresses (\"Unsupported architecture\" on our -l and -E files)"
		DRGN_FILES="E" DRGN_WHY="drgn reads kdump files through libkdumpfile, which finds no VMCOREINFO in an arm kdump file (1.7.2 armhf's either)"
		# bookworm's armmp-lpae (LPAE: 3-level tables, 64-bit ptes;
		# HIGHMEM, FLATMEM, THP and hugetlbfs) has KEXEC, CRASH_DUMP and
		# PROC_VMCORE, so Debian's own kernel; the "armmp" variant boots
		# plain armmp (short descriptors, no THP or hugetlbfs) from
		# CACHE/kernel-armmp (KPAT2).  arm's reserve_crashkernel() puts
		# crashkernel= without an offset in lowmem itself.
		KPAT='^linux-image-6\.1\.0-[0-9]*-armmp-lpae$'
		KPAT2='^linux-image-6\.1\.0-[0-9]*-armmp$' KDIR2=kernel-armmp
		# kexec-tools writes the elfcorehdr (kexec_load): ELF32 below
		# 4 GiB of RAM, read through tests/lab/foreign/py/usercustomize.py.
		ELF32=1
		# Debian's armmp kernels have ARCH_MESON, so TEXT_OFFSET is
		# 0x208000 (_text at 0xc0208000), not the 0x8000 kexec-tools
		# 2.0.25 assumes: the zImage decompressor relocated itself past
		# the kernel over the initrd and the device tree kexec-tools put
		# right after it, and the capture kernel found no device tree
		# (it spun in dump_machine_table(), silent before any console).
		# So kexec is told a larger image (36 MiB, of the 192 MiB):
		# initrd and device tree go above it (tests/lab/foreign/cpio).
		KEXEC_ARGS="--image-size=0x2400000"
		# armhf's kexec-tools links Xen's libxenctrl (as arm64's does):
		# its libraries and theirs, the lab's list for arm64
		SDEBS=(zlib1g libxenmisc4.17 libext2fs2 libfdt1 libuuid1 libxencall1 libxendevicemodel1
			libxenevtchn1 libxenforeignmemory1 libxengnttab1 libxenhypfs1 libxenstore4
			libxentoollog1 libyajl2 libxentoolcore1 libcom-err2)
		;;
	mips64el)
		DEB_ARCH=mips64el TRIPLET=mips64el-linux-gnuabi64 QEMU_USER=qemu-mips64el
		QEMU_SYS=qemu-system-mips64el CONSOLE=ttyS0
		SUITES=(bookworm bookworm-security)
		# loongson-3 (16 KiB pages, SPARSEMEM) on qemu's loongson3-virt.
		# Debian's mips64el kernels have KEXEC (so crashkernel= is
		# reserved: mips_parse_crashkernel() is CONFIG_KEXEC's) but not
		# CRASH_DUMP: no /proc/vmcore in a capture kernel.  And a mips
		# capture kernel runs where it is linked (PHYSICAL_START, which
		# is CRASH_DUMP's; kexec-tools loads vmlinux's segments at their
		# physical addresses and relocates nothing).  So the first
		# kernel is Debian's own, and the capture kernel (CAPK) is its
		# 6.1 source and config plus CRASH_DUMP, linked at 128 MiB, not
		# RELOCATABLE (its relocate_kernel() would move it to 16 MiB),
		# without modules (virtio and ext4 built in): foreign_kbuild.
		# crashkernel= at that address (foreign_append): below it qemu's
		# loongson3-virt puts the initrd (rd_start=0xffffffff84000000,
		# 64 MiB), and its RAM at 0 ends at 240 MiB ("00000000-0effffff :
		# System RAM"; 128M@128M: "Invalid memory region reserved for
		# crash kernel").
		KPAT='^linux-image-6\.1\.0-[0-9]*-loongson-3$'
		CAPK=kdump-kernel CK=96M
		# kexec-tools passes the capture kernel its initrd (rd_start=,
		# rd_size=), which unpacks into what the 96 MiB leave: without
		# it the kernel's 64 MiB swiotlb took 0x8a2c000-0xca2c000 and the
		# initramfs did not fit ("VFS: Unable to mount root fs on
		# unknown-block(1,0)").  4 MiB of swiotlb instead.
		CAPTURE_MORE=" swiotlb=2048"
		LK_WHY="libkdumpfile's address translation (src/addrxlat: no mips.c) has no MIPS"
		DRGN_WHY="drgn has no MIPS architecture"
		KB_ARCH=mips KB_TARGET=vmlinux KB_IMAGE=vmlinux KB_LOCAL=-loongson-3-kdump KB_MODULES=0
		KB_CONFIG=(--enable PROC_VMCORE --set-val PHYSICAL_START 0xffffffff88000000 --enable PCI
			--disable RELOCATABLE --disable RANDOMIZE_BASE --disable MODULES
			--enable VIRTIO --enable VIRTIO_PCI --enable VIRTIO_BLK --enable EXT4_FS
			--enable JBD2 --enable FS_MBCACHE --enable CRC16 --enable CRYPTO_CRC32C
			--enable LIBCRC32C)
		# v3: NODE_DATA(0) in the capture kernel's own .bss (foreign_kbuild)
		KBUILD_MARK=built.v3-nodedata
		;;
	loong64)
		# Debian's own sid kernel (7.2.13+deb14-loong64 when written:
		# 16 KiB pages, 3 levels; KEXEC, CRASH_DUMP, PROC_VMCORE,
		# RELOCATABLE, no KEXEC_FILE) on qemu's virt, la464.  sid's
		# qemu and cross compiler, which bookworm has not, come from
		# the readers' sid root (tests/lab/loong64_tools.sh:
		# foreign_tools puts them first on PATH).  The kernel comes
		# split (linux-binary, linux-modules, linux-base: KPAT names
		# the first, foreign_stage fetches the others).
		DEB_ARCH=loong64 TRIPLET=loongarch64-linux-gnu QEMU_USER=qemu-loongarch64
		QEMU_SYS=qemu-system-loongarch64 CONSOLE=ttyS0
		SUITES=(sid)
		KPAT='^linux-binary-[0-9.]*\+deb[0-9]*-loong64$'
		LK_WHY="libkdumpfile $(dpkg-query -W -f '${Version}' libkdumpfile-dev 2>/dev/null) has no LoongArch"
		DRGN_WHY="drgn has no LoongArch architecture"
		# qemu's virt booted directly (-kernel, no firmware) gives the
		# kernel a device tree and no ACPI ("ACPI: Interpreter
		# disabled."), so 7.2's i8042 (acpipnpio.h: on LoongArch it
		# gives up only when ACPI is on) probes the ports directly and
		# faults at PCI_IOBASE + 0x64 ("BADV: ffff800000008064",
		# i8042_flush+0x58): the first and the capture kernel skip it.
		# The capture kernel: earlycon (ACPI's serial port comes late),
		# and room: in crashkernel=192M it had "Memory: 64256K/196608K
		# available" (its image 27 MiB, swiotlb's default 64 MiB) and
		# oopsed reclaiming during boot ("Unable to handle kernel paging
		# request at virtual address 0000000000003c40", in
		# try_to_shrink_lruvec from pcpu_balance_workfn): 4 MiB of
		# swiotlb (2048 slabs of 2 KiB) and no CMA (cma=0: the
		# kernel's default reserves 128 MiB, "131072K cma-reserved"),
		# in 256 MiB.
		CAPTURE_MORE=" initcall_blacklist=i8042_init earlycon=uart8250,mmio,0x1fe001e0 swiotlb=2048 cma=0"
		CK=256M
		# kexec-tools 2.0.32 takes the vmlinuz (EFI zboot: "MZ", "zimg",
		# a zstd payload) for a PE image and loads a 16 KiB header
		# alone ("segment[0].mem = 0xa4000000", memsz 0x4000; "kexec_load
		# failed: Cannot assign requested address"): the capture kernel
		# is the same kernel's payload, the PE image (vmlinux.efi, with
		# the LoongArch header kexec-pei-loongarch.c reads), which
		# foreign_kernel unpacks into CACHE/CAPK (foreign_unzboot).
		CAPK=capk
		;;
	*) return 1 ;;
	esac
	# Debian's library directory: the triplet, except i386's
	MULTIARCH=${MULTIARCH:-$TRIPLET}
}

# foreign_tools CACHE: print a directory to put first on PATH, with the
# host tools of ARCH that bookworm has not (loong64: sid's qemu and cross
# compiler, tests/lab/loong64_tools.sh), or nothing; 1 when they cannot
# be had (the reason on stderr).
foreign_tools() {
	case "$FA" in
	loong64) "$MDF_SRC/tests/lab/loong64_tools.sh" "$1" ;;
	esac
}

# The qemu machine of a variant: ppc64el "radix" (POWER9) or "hash" (POWER8).
foreign_machine() {
	case "$FA/$1" in
	riscv64/*) echo "-M virt -cpu rv64" ;;
	ppc64el/hash) echo "-M pseries -cpu power8" ;;
	ppc64el/*) echo "-M pseries -cpu power9" ;;
	s390x/*) echo "-M s390-ccw-virtio -cpu max" ;;
	mips64el/*) echo "-M loongson3-virt" ;;
	# through sid's UEFI firmware (qemu-efi-loongarch64, found by the
	# -L of tests/lab/loong64_tools.sh): Debian's loong64 kernel finds
	# PCI through ACPI only (PCI_LOONGSON, no PCI_HOST_GENERIC), and a
	# direct boot gives it a device tree: no PCI, no virtio disks
	# ("LAB-ERROR: data disk (serial labdata) not found")
	loong64/*) echo "-M virt -cpu la464 -bios QEMU_EFI.fd" ;;
	# qemu32 (the default CPU): a 686 with PAE
	i386/*) echo "-M pc" ;;
	# cortex-a15 has LPAE; highmem=off keeps the machine's PCIe windows
	# below 4 GiB, where plain armmp reaches them
	armhf/*) echo "-M virt,highmem=off -cpu cortex-a15" ;;
	esac
}

# The kernel directory of a variant (CACHE/KDIR): armhf's "armmp" boots
# the second kernel foreign_stage staged (KPAT2 into CACHE/KDIR2).
foreign_kdir() {
	case "$FA/$1" in
	armhf/armmp) echo "$KDIR2" ;;
	*) echo "$KDIR" ;;
	esac
}

# foreign_capk CACHE: the capture kernel, where it is not the first
# kernel (mips64el: CACHE/CAPK/boot/vmlinuz-*), else nothing.
foreign_capk() {
	[ -n "$CAPK" ] || return 0
	ls -1 "$1/$CAPK"/boot/vmlinuz-* 2>/dev/null | head -n 1
}

# More of the first kernel's command line for a variant: i386 "nokaslr",
# the kernel where its vmlinux links it, for crash (foreign_crash).
foreign_append() {
	case "$FA/$1" in
	i386/nokaslr) echo " nokaslr" ;;
	# the capture kernel's place (foreign_arch): the lab's crashkernel=
	# has no offset, and the kernel takes the last one
	mips64el/*) echo " crashkernel=$CK@128M" ;;
	# loong64: before it parses mem=, the capture kernel allocates from the
	# top of RAM (0xafffffff in the lab's 1 GiB guest), where
	# crashkernel= without an offset ends, and kexec-tools 2.0.32
	# puts the initrd and the elfcorehdr at the top of that region:
	# "INITRD: 0xafde8000+0x00214000 overlaps in-use memory region -
	# disabling initrd", "elfcorehdr is overlapped", then "VFS:
	# Unable to mount root fs" (and kexec's --mem-max does not move
	# them: a crash load's bounds are the region's).  So the region
	# sits below RAM's top: crashkernel=256M@0x90000000
	# (foreign_append).  Those early allocations also overwrite the
	# first kernel's memory there, which held its own early
	# allocations: in the first dump, SYMBOL(mem_section)
	# 0x90000000afff9400 and node_data[0] 0x90000000afffb640 read as
	# 0x40 repeated ("40484 pages kept: their struct pages could not
	# be read").  So the first kernel leaves RAM's top 16 MiB alone
	# (mem=1008M: LoongArch's mem= without @ is
	# memblock_enforce_memory_limit()).  And neither CMA nor 64 MiB
	# of swiotlb there either: with crashkernel=384M the first
	# kernel had "Memory: 359136K/1032192K available" (489984K with
	# cma=0) and its workload did not fit, "kexec invoked
	# oom-killer", "Out of memory: Killed process 129 (labwork)",
	# the process whose pages --keep-task is checked on.
	loong64/*) echo " initcall_blacklist=i8042_init crashkernel=$CK@0x90000000 mem=1008M cma=0 swiotlb=2048" ;;
	esac
}

# foreign_workload VARIANT: the lab workload's sizes where the default's
# do not fit (mkvmcore.sh sizes them from --mem less the crashkernel).
# loong64: its first kernel has mem=1008M (foreign_append), and with the
# default sizes stage 1 had MemAvailable 43 MB and kswapd had reclaimed
# 6414 pages (pgsteal_kswapd) while the workload was made; the page cache
# then kept moving between the kpageflags snapshot and the crash (113
# cache pages, another run 470 private ones, past the classes check's
# slack), so its anonymous share is smaller.
foreign_workload() {
	case "$FA/$1" in
	loong64/*) echo "--anon-pct 18" ;;
	esac
}

# foreign_crash CACHE: FCRASH = the command of a crash that reads ARCH's
# dumps, or empty with FCRASH_WHY.  i386: sid's crash of i386 (9.0.2), its
# libraries and their interpreter dpkg -x'd into CACHE/crash (bookworm's
# 8.0.2 fails the same ways), run directly where this host runs i386
# programs, else under qemu-user.  It reads only the kernel's log and
# memory (--minimal: without it, "cannot resolve \"sys_open\"", a
# symbol 6.1's i386 has as __ia32_sys_open), and only without KASLR: 32-bit
# KASLR moves the kernel physically too, and crash's --reloc moves only
# the virtual addresses ("cannot read linux_banner string").
# shellcheck disable=SC2034 # FCRASH(_WHY): read by labcheck.sh's check_oracle
foreign_crash() {
	local c=$1 p pkgs=() ld="" log=$T/apt-crash-$FA.log
	FCRASH=() FCRASH_WHY=""
	[ "$FA" = i386 ] || { FCRASH_WHY="no crash of $FA here"; return 0; }
	if [ ! -f "$c/crash-staged" ]; then
		apt_state "$c/apt-sid" "$log" sid || { FCRASH_WHY="apt-get update of sid failed: $(tail -n 1 "$log")"; return 1; }
		for p in crash libc6 libncursesw6 libtinfo6 zlib1g liblzo2-2 libsnappy1v5 libzstd1 \
			libstdc++6 libgcc-s1 libgmp10 libmpfr6; do
			apt_has "$p" && pkgs+=("$p")
		done
		rm -rf "$c/crashdebs" "$c/crash"
		mkdir -p "$c/crashdebs"
		apt_download "$log" "$c/crashdebs" "${pkgs[@]}" ||
			{ FCRASH_WHY="cannot fetch sid's crash:$DEB_ARCH: $(tail -n 1 "$log")"; return 1; }
		for p in "$c"/crashdebs/*.deb; do dpkg -x "$p" "$c/crash" || return 1; done
		rm -rf "$c/crashdebs"
		touch "$c/crash-staged"
	fi
	for p in "$c"/crash/usr/lib/ld-linux.so.2 "$c"/crash/lib/ld-linux.so.2; do
		[ -e "$p" ] && ld=$p && break
	done
	if [ -n "$ld" ] && "$ld" --library-path "$c/crash/usr/lib/$MULTIARCH" "$c/crash/usr/bin/crash" -v >/dev/null 2>&1; then
		FCRASH=("$ld" --library-path "$c/crash/usr/lib/$MULTIARCH" "$c/crash/usr/bin/crash")
	else
		[ -e "$c/crash/lib" ] || ln -s usr/lib "$c/crash/lib"
		FCRASH=("$QEMU_USER" -L "$c/crash" "$c/crash/usr/bin/crash")
	fi
}

# foreign_crash_head ELF TAG: crash HEAD of ARCH (i386: its X86 build,
# armhf: ARM; crash's 32-bit builds, tests/lab/readers/crash_head.sh) on
# the raw vmcore, our -l -d 31 file of it and a control, judged as the
# readers' gate judges a dump (tests/lab/readers/judge.py, crash alone):
# each of its commands with the raw vmcore's exit status and output, or a
# difference whose pages the level excludes; the control, our -l file
# without the page of init_uts_ns, must differ, naming that page as one
# the level keeps.  Runs where crash HEAD of that target is built (in the
# readers' root, MDF_READERS_CACHE) or asked for: MDF_CRASH_HEAD_X86=1 or
# MDF_CRASH_HEAD_ARM=1 builds it first (13-24 min once); a build or a
# debug vmlinux that cannot be had is a needfail ("not ok" with
# MDF_REAL_REQUIRED=1).  The debug vmlinux: tests/lab/debug_vmlinux.sh.
# X86 runs --minimal (log and rd: judge.py --crash-minimal): without it
# crash HEAD stops at start-up on 6.1's i386, "cannot resolve
# \"sys_open\"" (x86.c's frame-pointer probe; 6.1 has __ia32_sys_open).
# A kernel that KASLR moved (i386's default variant) is not read: 32-bit
# KASLR moves it physically and virtually alike, and crash HEAD places
# it in neither (no KERNELOFFSET in VMCOREINFO; its --reloc moves the
# symbols but reads their bytes at the linked physical address).
foreign_crash_head() {
	local elf=$1 tag=$2 ct ask root bin krel pkgver vml d u pa pfn v min="" st lt
	case $FA in
	i386) ct=X86 min=--crash-minimal ;;
	armhf) ct=ARM ;;
	*) return 0 ;;
	esac
	ask=MDF_CRASH_HEAD_$ct
	root=${MDF_READERS_CACHE:-/var/tmp/mdf-readers}/sid-$(dpkg --print-architecture)
	if [ "${!ask:-0}" != 1 ] && [ ! -x "$root/opt/crash-head/$ct/crash" ]; then
		skip "$tag-crash-head" "no crash HEAD of $ct built ($ask=1 builds it: tests/lab/readers/crash_head.sh $ct, 13-24 min once)"
		return 0
	fi
	[ "$(id -u)" = 0 ] || { needfail "$tag-crash-head" "needs root (the readers' root: chroot, mount)"; return 0; }
	root=$(bash "$MDF_SRC/tests/lab/readers/root.sh" 2>"$T/ch.err") &&
		bin=$(bash "$MDF_SRC/tests/lab/readers/crash_head.sh" $ct 2>"$T/ch.err") ||
		{ needfail "$tag-crash-head" "$(cat "$T/ch.err")"; return 0; }
	krel=$(strings -n 8 "$elf" | grep -m 1 '^OSRELEASE=' | sed 's/^OSRELEASE=//')
	pkgver=$(strings -n 24 "$elf" | grep -m 1 -F "Linux version $krel (" | sed -n 's/.* Debian \([^ ]*\) (.*/\1/p')
	vml=$(bash "$MDF_SRC/tests/lab/debug_vmlinux.sh" "$krel" "$pkgver" 2>"$T/dbg.err") ||
		{ needfail "$tag-crash-head" "$(cat "$T/dbg.err")"; return 0; }
	v="$(head -n 1 "$root${bin%/crash}/crash-head.txt" 2>/dev/null |
		sed 's/\(HEAD [0-9a-f]\{12\}\)[0-9a-f]*/\1/'), $ct${min:+ --minimal}"
	st=$(strings -n 8 "$elf" | sed -n 's/^SYMBOL(_stext)=//p' | head -n 1)
	lt=$(nm "$vml" 2>/dev/null | awk '$3 == "_stext" {print $1; exit}')
	if [ -n "$st" ] && [ -n "$lt" ] && [ $((0x$st)) != $((0x$lt)) ]; then
		ok "$tag-crash-head (n/a: KASLR moved the kernel by $(printf '0x%x' $((0x$st - 0x$lt))), physically too, and $v places it nowhere: the log unread, the symbols' bytes those of their linked address)"
		return 0
	fi
	d=$T/crash-head
	rm -rf "$d" && mkdir -p "$d"
	if ! "$MDF" --message-level 0 -l -d 31 "$elf" "$d/l" ||
		! "$MDF" --message-level 0 -E -d 31 "$elf" "$d/E"; then
		notok "$tag-crash-head" "makedumpfile -l or -E -d 31 failed"
		rm -rf "$d"
		return 0
	fi
	# the control: the page of init_uts_ns (crash reads it at start-up)
	u=$(strings -n 8 "$elf" | sed -n 's/^SYMBOL(init_uts_ns)=//p' | head -n 1)
	pa=$("$MDF" --vtop "0x${u:-0}" -d 1 --dry-run "$elf" 2>/dev/null |
		awk '$1 ~ /^[0-9a-f]+$/ && NF == 2 {print "0x" $2; exit}')
	pfn=""
	[[ "$pa" == 0x* ]] && pfn=$(printf '0x%x' $((pa / 4096))) &&
		python3 "$MDF_SRC/tests/tools/kdump_drop.py" "$d/l" "$d/ctl" "$pfn" >/dev/null ||
		{ notok "$tag-crash-head-control" "no control dump: init_uts_ns ${u:-not in VMCOREINFO} at ${pa:-no address}"; pfn=""; }
	python3 "$MDF_SRC/tests/lab/readers/judge.py" --root "$root" --crash "$bin" --vmlinux "$vml" \
		--raw "$elf" --mdf "$MDF" --work "$d/w" --no-drgn $min ${pfn:+--expect-diff ctl} \
		l="$d/l" E="$d/E" ${pfn:+ctl="$d/ctl"} >"$d/out" 2>&1
	if grep -qP '^crash\tl\t\*\treader fails on raw' "$d/out"; then
		# it read these kernels' raw vmcores when this check was written
		notok "$tag-crash-head" "$v $(grep -m 1 -oP '^crash\tl\t\*\t\Kreader fails on raw.*' "$d/out" | cut -c1-200)"
	elif grep -qP '^crash\tl\t' "$d/out" && ! grep -P '^crash\tl\t' "$d/out" | grep -qP '\tDIFF|BAD'; then
		ok "$tag-crash-head ($v: our -l -d 31 as the raw vmcore: $(grep -P '^crash\tl\t[^*]' "$d/out" |
			awk -F'\t' 'NF == 4 {n++; if ($4 ~ /^equal/) e++; else x = x "; " $3 ": " $4} END {printf "%d of %d commands equal%s", e, n, x}' | cut -c1-300))"
	else
		notok "$tag-crash-head" "$v: $(grep -P '^crash\tl\t' "$d/out" | grep -P '\tDIFF|BAD' | head -n 3 | tr '\n' ' ')$(tail -n 2 "$d/out" | tr '\n' ' ')"
	fi
	# our -E -d 31 file (its first PT_LOAD's p_offset is where crash sizes
	# the headers: write/elf_write.c)
	if grep -qP '^crash\tE\t[^*]' "$d/out" && ! grep -P '^crash\tE\t' "$d/out" | grep -qP '\tDIFF|BAD|reader fails'; then
		ok "$tag-crash-head-E ($v: our -E -d 31 as the raw vmcore: $(grep -P '^crash\tE\t[^*]' "$d/out" |
			awk -F'\t' 'NF == 4 {n++; if ($4 ~ /^equal/) e++} END {printf "%d of %d commands equal", e, n}'))"
	else
		notok "$tag-crash-head-E" "$v: $(grep -P '^crash\tE\t' "$d/out" | grep -vP '\tequal' | head -n 3 | tr '\n' ' ' | cut -c1-300)"
	fi
	if [ -n "$pfn" ] && ! grep -qP '^crash\tl\t\*\treader fails on raw' "$d/out"; then
		if grep -qP "^crash\tctl\t.*DIFF.*pfn $pfn kept" "$d/out" && ! grep -q 'BAD CONTROL' "$d/out"; then
			ok "$tag-crash-head-control-fails (init_uts_ns's pfn $pfn out: $(grep -m 1 -P '^crash\tctl\t.*DIFF' "$d/out" | cut -f 3- | cut -c1-200))"
		else notok "$tag-crash-head-control-fails" "crash found no kept page $pfn: $(grep -P '^crash\tctl\t' "$d/out" | grep -v equal | head -n 3 | tr '\n' ' ')"; fi
	fi
	rm -rf "$d"
}

# foreign_libs ROOT: the lab copies a foreign binary's libraries from ROOT's
# /lib and /usr/lib only (and its multiarch directories of arm64): put
# copies there, and the ELF interpreter where the binary asks for it.
foreign_libs() {
	local root=$1 f d
	for d in "$root/lib/$MULTIARCH" "$root/usr/lib/$MULTIARCH"; do
		for f in "$d"/*.so*; do
			# not the interpreter: the lab copies it on its own, and its
			# NEEDED walk trips on a library that needs nothing
			[ -f "$f" ] && [[ "${f##*/}" != ld* ]] || continue
			[ -e "$root/usr/lib/${f##*/}" ] || cp -L "$f" "$root/usr/lib/" || return 1
		done
	done
	foreign_interp "$root" || return 1
	[ -e "$root/bin/busybox" ] || { mkdir -p "$root/bin" && cp "$root/usr/bin/busybox" "$root/bin/"; }
}

# foreign_interp ROOT: the ELF interpreter's absolute link points into the
# host (/lib64/ld64.so.2 -> /lib/powerpc64le-linux-gnu/...): make it a copy.
foreign_interp() {
	local root=$1 f
	for f in "$root"/lib64/ld*.so* "$root"/lib/ld-linux*.so*; do
		if [ -L "$f" ] && [[ "$(readlink "$f")" == /* ]]; then
			cp -L "$root$(readlink "$f")" "$f.tmp" && mv -f "$f.tmp" "$f" || return 1
		fi
	done
}

foreign_stage() {
	local c=$1 k
	local log=$T/apt-$FA.log
	apt_state "$c/apt" "$log" "${SUITES[@]}" || return 1
	mkdir -p "$c/debs" "$c/kdeb" || return 1
	k=$(newest "$KPAT")
	[ -n "$k" ] || { echo "no kernel matches $KPAT" >>"$log"; return 1; }
	rm -f "$c"/kdeb/*.deb
	apt_download "$log" "$c/kdeb" "$k" || return 1
	# Debian's kernels from 7.x come split: linux-binary-KVER (vmlinuz,
	# config, System.map) needs linux-modules-KVER and linux-base-KVER
	case "$k" in
	linux-binary-*)
		apt_download "$log" "$c/kdeb" "linux-modules-${k#linux-binary-}" \
			"linux-base-${k#linux-binary-}" || return 1 ;;
	esac
	apt_download "$log" "$c/debs" busybox-static kexec-tools libc6 "${SDEBS[@]}" || return 1
	rm -rf "$c/stage" "$c/kernel"
	for k in "$c"/debs/*.deb; do dpkg -x "$k" "$c/stage" 2>>"$log" || return 1; done
	for k in "$c"/kdeb/*.deb; do dpkg -x "$k" "$c/kernel" 2>>"$log" || return 1; done
	# a second kernel of the architecture (armhf's plain armmp)
	if [ -n "$KPAT2" ]; then
		k=$(newest "$KPAT2")
		[ -n "$k" ] || { echo "no kernel matches $KPAT2" >>"$log"; return 1; }
		rm -rf "$c/kdeb2" "$c/$KDIR2" && mkdir -p "$c/kdeb2" || return 1
		apt_download "$log" "$c/kdeb2" "$k" || return 1
		dpkg -x "$c"/kdeb2/*.deb "$c/$KDIR2" 2>>"$log" || return 1
	fi
	foreign_libs "$c/stage" || return 1
	# The lab boots DIR/boot/vmlinuz-*: ppc64el and riscv64 name it vmlinux.
	for k in "$c"/kernel/boot/vmlinux-*; do
		[ -e "$k" ] || continue
		ln -sf "${k##*/}" "$c/kernel/boot/vmlinuz-${k##*/vmlinux-}"
	done
	touch "$c/staged"
}

# foreign_unzboot CACHE: the PE image inside the staged EFI zboot vmlinuz
# (drivers/firmware/efi/libstub/zboot-header.S: "zimg" at 4, the payload's
# offset and size at 8 and 12, its compression's name at 24) as
# CACHE/capk/boot/vmlinuz-KVER, the capture kernel (loong64).
foreign_unzboot() {
	local c=$1 z kver off size comp
	z=$(ls -1 "$c"/kernel/usr/lib/modules/*/vmlinuz 2>/dev/null | sort -V | tail -n 1)
	[ -n "$z" ] || { echo "no usr/lib/modules/*/vmlinuz in $c/kernel"; return 1; }
	kver=$(basename "$(dirname "$z")")
	[ "$(dd if="$z" bs=1 skip=4 count=4 2>/dev/null)" = zimg ] || { echo "$z is no EFI zboot image"; return 1; }
	off=$(od -An -t u4 -j 8 -N 4 "$z" | tr -d ' ') size=$(od -An -t u4 -j 12 -N 4 "$z" | tr -d ' ')
	comp=$(dd if="$z" bs=1 skip=24 count=8 2>/dev/null | tr -d '\0')
	rm -rf "$c/capk" && mkdir -p "$c/capk/boot" || return 1
	case "$comp" in
	zstd) tail -c +$((off + 1)) "$z" | head -c "$size" | zstd -q -d -c ;;
	gzip) tail -c +$((off + 1)) "$z" | head -c "$size" | gzip -d -c ;;
	*) echo "$z: zboot payload compressed with '$comp'"; return 1 ;;
	esac >"$c/capk/boot/vmlinuz-$kver" || return 1
	[ "$(head -c 2 "$c/capk/boot/vmlinuz-$kver")" = MZ ] || { echo "$z: its payload is no PE image"; return 1; }
}

# The kernel of its configuration (foreign_kbuild's, which names itself in
# the marker, KBUILD_MARK of foreign_arch: a change of the configuration
# builds anew), when the lab cannot boot Debian's own.
# MDF_FOREIGN_KDEBUG=1 (make lab, for the readers' gate): the kernel is
# built with DWARF and its vmlinux kept (boot/vmlinux-KVER), as a -dbg
# package would give it; a cached build without it is built again.
foreign_kernel() {
	local c=$1
	if [ "$CAPK" = capk ]; then
		[ -n "$(foreign_capk "$c")" ] || foreign_unzboot "$c" >>"$T/apt-$FA.log" 2>&1
		return
	fi
	[ "$KDIR" != kdump-kernel ] && [ -z "$CAPK" ] && return 0
	if [ -f "$c/kdump-kernel/$KBUILD_MARK" ]; then
		# (a capture kernel alone: the dumped kernel is Debian's)
		[ "${MDF_FOREIGN_KDEBUG:-0}" = 1 ] && [ -z "$CAPK" ] || return 0
		grep -q ' with debug info' "$c/kdump-kernel/$KBUILD_MARK" && return 0
	fi
	apt_opts "$c/apt"
	foreign_kbuild "$c" >>"$T/apt-$FA.log" 2>&1
}

# foreign_kbuild CACHE: a kernel that can do kdump, CACHE/kdump-kernel laid
# out like an extracted linux-image .deb (boot/vmlinuz-KVER, lib/modules/KVER).
# Debian's s390x kernels cannot: bookworm's 6.1 is built without
# CONFIG_CRASH_DUMP, so setup.c reserves no crashkernel= ("kexec -p:
# Memory for crashkernel is not reserved") and a capture kernel would have
# no /proc/vmcore; trixie's 6.12 and sid's 7.x have no KEXEC at all.  So
# the staged linux-image's own source (linux-source-6.1 of its version)
# with its own config plus CRASH_DUMP: the built-in part as Debian's, as
# modules only what the lab loads (virtio_blk, ext4 and what it needs),
# no debug info (unless MDF_FOREIGN_KDEBUG=1), and without what the lab's guest never uses and costs
# most of the build (the network stack, PCI, the security modules, audit,
# BPF, ftrace and kprobes, md; none of them changes struct page or the
# page tables): about 5 minutes instead of 11.5 on 2 cores.  The build log
# stays in CACHE/kbuild.log.
foreign_kbuild() {
	local c=$1 ver src kver t0=$SECONDS m
	# Not a sub-make of make check's: under its MAKEFLAGS the kernel's
	# make prints "Entering directory" into kernelrelease's output even
	# with -s (KVER got three lines, and boot/ stayed empty)
	local mk=(env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$c/ksrc/linux-source-6.1" ARCH="$KB_ARCH" CROSS_COMPILE="$TRIPLET-")
	for m in flex bison bc openssl depmod "$TRIPLET-gcc"; do
		command -v "$m" >/dev/null || { echo "kernel build: no $m (apt-get install flex bison bc libssl-dev kmod gcc-$TRIPLET)"; return 1; }
	done
	[ -f /usr/include/openssl/ssl.h ] || { echo "kernel build: no libssl-dev"; return 1; }
	ver=$(dpkg-deb -f "$c"/kdeb/*.deb Version) || return 1
	rm -rf "$c/ksrc" "$c/kdump-kernel"
	mkdir -p "$c/ksrc" || return 1
	apt_download "$c/ksrc/download.log" "$c/ksrc" "linux-source-6.1=$ver" ||
		{ tail -n 1 "$c/ksrc/download.log"; return 1; }
	dpkg-deb --fsys-tarfile "$c"/ksrc/linux-source-6.1_*.deb |
		tar -xO ./usr/src/linux-source-6.1.tar.xz | tar -xJ -C "$c/ksrc" || return 1
	rm -f "$c"/ksrc/*.deb
	src=$c/ksrc/linux-source-6.1
	# mips: copy_oldmem_page() maps an old page with kmap_local_pfn(),
	# which is page_address() of its struct page without HIGHMEM; the
	# capture kernel (mem= its own 96 MiB) has no struct page for the old
	# RAM at 0x90000000 (another 256 MiB section), and /proc/vmcore's
	# reader oopsed there ("Unable to handle kernel paging request at
	# virtual address 0000000000900000", epc copy_oldmem_page+0x80): a
	# 64-bit kernel reaches all of RAM through XKPHYS, __va().
	if [ "$KB_ARCH" = mips ]; then
		sed -i 's/^\tvaddr = kmap_local_pfn(pfn);$/\tvaddr = __va(PFN_PHYS(pfn));/; /^\tkunmap_local(vaddr);$/d' \
			"$src/arch/mips/kernel/crash_dump.c" &&
			grep -q '__va(PFN_PHYS(pfn))' "$src/arch/mips/kernel/crash_dump.c" ||
			{ echo "kernel build: arch/mips/kernel/crash_dump.c is not 6.1's"; return 1; }
		# loongson64 (6.1, NUMA): prom_init() -> prom_meminit() ->
		# node_mem_init() allocates NODE_DATA from memblock before
		# arch_mem_init()'s parse_early_param() applies mem=, so top-down
		# at the top of the firmware's RAM, where the crashed kernel put
		# its own: the capture kernel's pglist_data overwrote the dumped
		# kernel's (page 0xbfffc000 of a 1 GiB loongson3-virt: node 0
		# said node_start_pfn 0x2000, spanned 0x1800, the capture
		# kernel's 96 MiB, and held pointers into it) and changed while
		# the capture kernel ran (our program on the live /proc/vmcore
		# read other bytes there than the copy made before).  Node 0's
		# pglist_data goes into the capture kernel's own .bss.
		sed -i 's/^static void __init node_mem_init(unsigned int node)$/static pg_data_t lab_node0_data __aligned(SMP_CACHE_BYTES);\n\n&/; s/^\tnd_pa = memblock_phys_alloc_try_nid(nd_size, SMP_CACHE_BYTES, node);$/\tnd_pa = node ? memblock_phys_alloc_try_nid(nd_size, SMP_CACHE_BYTES, node) :\n\t\t__pa_symbol(\&lab_node0_data);/' \
			"$src/arch/mips/loongson64/numa.c" &&
			grep -q '__pa_symbol(&lab_node0_data)' "$src/arch/mips/loongson64/numa.c" ||
			{ echo "kernel build: arch/mips/loongson64/numa.c is not 6.1's"; return 1; }
	fi
	sed 's/^\(CONFIG_[A-Za-z0-9_]*\)=m$/# \1 is not set/' "$c"/kernel/boot/config-* >"$src/.config"
	(cd "$src" && scripts/config --enable CRASH_DUMP \
		--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --disable DEBUG_INFO_DWARF5 \
		--disable DEBUG_INFO_BTF --enable DEBUG_INFO_NONE \
		$(if [ "${MDF_FOREIGN_KDEBUG:-0}" = 1 ]; then echo --disable DEBUG_INFO_NONE \
			--enable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_REDUCED --disable DEBUG_INFO_SPLIT; fi) \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--set-str LOCALVERSION "$KB_LOCAL" \
		--module VIRTIO_BLK --module EXT4_FS --module JBD2 --module FS_MBCACHE \
		--module CRC16 --module CRYPTO_CRC32C --module LIBCRC32C \
		--disable NET --disable PCI --disable SECURITY --disable AUDIT --disable IMA \
		--disable INTEGRITY --disable BPF_SYSCALL --disable FTRACE --disable KPROBES \
		--disable MD "${KB_CONFIG[@]}") || return 1
	"${mk[@]}" olddefconfig >"$c/kbuild.log" 2>&1 &&
	grep -q '^CONFIG_CRASH_DUMP=y' "$src/.config" &&
	"${mk[@]}" -j"$(nproc)" "$KB_TARGET" $([ "$KB_MODULES" = 1 ] && echo modules) >>"$c/kbuild.log" 2>&1 &&
	kver=$("${mk[@]}" -s kernelrelease) &&
	{ [ "$KB_MODULES" = 0 ] ||
	"${mk[@]}" INSTALL_MOD_PATH="$c/kdump-kernel" INSTALL_MOD_STRIP=1 modules_install \
		>>"$c/kbuild.log" 2>&1; } &&
	mkdir -p "$c/kdump-kernel/boot" &&
	cp "$src/$KB_IMAGE" "$c/kdump-kernel/boot/vmlinuz-$kver" &&
	cp "$src/System.map" "$c/kdump-kernel/boot/System.map-$kver" &&
	cp "$src/.config" "$c/kdump-kernel/boot/config-$kver" &&
	if grep -q '^CONFIG_DEBUG_INFO_DWARF4=y' "$src/.config"; then
		cp "$src/vmlinux" "$c/kdump-kernel/boot/vmlinux-$kver"; fi || {
		echo "kernel build failed: $(grep -m 1 -E 'error|Error' "$c/kbuild.log")"; return 1; }
	rm -rf "$c/ksrc"
	echo "built $kver in $((SECONDS - t0)) s$([ -f "$c/kdump-kernel/boot/vmlinux-$kver" ] &&
		echo " with debug info")" | tee "$c/kdump-kernel/$KBUILD_MARK"
}

# foreign_kmod CACHE: mips64el: STAGE1_MODULE, lab_max_pfn.ko for the first
# kernel (Debian's loongson-3), built once into CACHE/kmod; or empty with
# KMOD_WHY.  Debian's 6.1 loongson-3 never sets max_pfn: loongson64's NUMA
# prom_meminit() sets max_low_pfn only, and setup.c's bootmem_init() for
# CPU_LOONGSON64 && NUMA does initrd alone (its vmcore: max_pfn 0,
# max_low_pfn 0x30000).  So fs/proc/page.c's get_max_dump_pfn() is 0 and
# /proc/kpageflags reads 0 bytes ("kpfsnap: /proc/kpageflags unreadable").
# The module sets max_pfn to max_low_pfn, as bootmem_init() does on the
# other MIPS machines; nothing else reads max_pfn there after boot but
# /proc/kpage*.  Neither is exported: their places beside high_memory
# (which is) come from the -dbg vmlinux (MDF_FOREIGN_DBG_VMLINUX, default
# MDF_MIPS64_CACHE's vmlinux-KREL), or are 6.1.0-50-loongson-3's (its
# -dbg vmlinux: high_memory + 0x338 and + 0x348); the module checks the
# release and that max_pfn is 0.  Built against Debian's
# linux-headers of the kernel (mips64el) with bookworm's linux-kbuild-6.1
# of this machine (amd64, the same version: its modpost and fixdep).
# shellcheck disable=SC2034 # STAGE1_MODULE, KMOD_WHY: for tests/e2e/foreign.sh
foreign_kmod() {
	local c=$1 krel="" kver d=$1/kmod vl hm mp ml f
	STAGE1_MODULE="" KMOD_WHY=""
	[ "$FA" = mips64el ] || return 0
	for f in "$c"/kernel/boot/config-*; do [ -f "$f" ] && krel=${f##*/config-}; done
	[ -n "$krel" ] || { KMOD_WHY="no kernel in $c/kernel"; return 0; }
	if [ -f "$d/$krel/lab_max_pfn.ko" ]; then STAGE1_MODULE=$d/$krel/lab_max_pfn.ko; return 0; fi
	vl=${MDF_FOREIGN_DBG_VMLINUX:-${MDF_MIPS64_CACHE:-/var/tmp/mdf-mips64}/vmlinux-$krel}
	sym() { readelf -sW "$vl" | awk -v s="$1" '$8 == s && $4 == "OBJECT" { print $2; exit }'; }
	if [ -f "$vl" ] && hm=$(sym high_memory) && mp=$(sym max_pfn) && ml=$(sym max_low_pfn) &&
		[ -n "$hm" ] && [ -n "$mp" ] && [ -n "$ml" ]; then
		mp=$((0x$mp - 0x$hm)) ml=$((0x$ml - 0x$hm))
	elif [ "$krel" = 6.1.0-50-loongson-3 ]; then
		mp=$((0x338)) ml=$((0x348))
	else
		KMOD_WHY="no -dbg vmlinux of $krel ($vl) for max_pfn's place"; return 0
	fi
	kver=$(dpkg-deb -f "$c"/kdeb/*.deb Version) || { KMOD_WHY="no kernel .deb"; return 0; }
	rm -rf "${d:?}/$krel" && mkdir -p "$d/$krel/debs" "$d/$krel/root" "$d/$krel/mod" || return 0
	apt_opts "$c/apt"
	if ! apt_download "$d/$krel/apt.log" "$d/$krel/debs" "linux-headers-$krel=$kver" \
		"linux-headers-$([[ "$krel" =~ ^[0-9.]+-[0-9]+ ]] && echo "${BASH_REMATCH[0]}")-common=$kver" ||
		! (cd "$d/$krel/debs" && apt-get download "linux-kbuild-6.1=$kver" >>"$d/$krel/apt.log" 2>&1); then
		KMOD_WHY="cannot fetch linux-headers-$krel or linux-kbuild-6.1 (amd64) $kver: $(tail -n 1 "$d/$krel/apt.log")"
		return 0
	fi
	local p h=$d/$krel/root/usr/src/linux-headers-$krel
	for p in "$d/$krel"/debs/*.deb; do dpkg -x "$p" "$d/$krel/root" || return 0; done
	sed -i "s#^include /usr/src/#include $d/$krel/root/usr/src/#" "$h/Makefile"
	cat >"$d/$krel/mod/lab_max_pfn.c" <<-'MOD'
	// SPDX-License-Identifier: GPL-2.0
	/* tests/lab/foreign.sh's foreign_kmod: max_pfn = max_low_pfn on a
	 * loongson64 NUMA kernel that left it 0, for /proc/kpageflags. */
	#include <linux/module.h>
	#include <linux/mm.h>
	#include <linux/string.h>
	#include <linux/utsname.h>

	static int __init lab_max_pfn_init(void)
	{
		unsigned long *mp = (unsigned long *)((char *)&high_memory + LAB_MAX_PFN_OFF);
		unsigned long *mlp = (unsigned long *)((char *)&high_memory + LAB_MAX_LOW_PFN_OFF);

		if (strcmp(init_uts_ns.name.release, LAB_KREL)) {
			pr_err("lab_max_pfn: built for %s, not %s\n", LAB_KREL, init_uts_ns.name.release);
			return -EINVAL;
		}
		if (*mp || !*mlp) {
			pr_info("lab_max_pfn: max_pfn 0x%lx, max_low_pfn 0x%lx: left alone\n", *mp, *mlp);
			return 0;
		}
		*mp = *mlp;
		pr_info("lab_max_pfn: max_pfn 0 -> 0x%lx (max_low_pfn)\n", *mp);
		return 0;
	}
	module_init(lab_max_pfn_init);
	MODULE_LICENSE("GPL");
	MOD
	printf 'obj-m := lab_max_pfn.o\nccflags-y := -DLAB_MAX_PFN_OFF=%d -DLAB_MAX_LOW_PFN_OFF=%d -DLAB_KREL=\\"%s\\"\n' \
		"$mp" "$ml" "$krel" >"$d/$krel/mod/Kbuild"
	if env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$h" M="$d/$krel/mod" DEB_BUILD_ARCH=amd64 \
		DEB_HOST_ARCH="$DEB_ARCH" DEB_HOST_GNU_TYPE="$TRIPLET" modules >"$d/$krel/build.log" 2>&1 &&
		cp "$d/$krel/mod/lab_max_pfn.ko" "$d/$krel/lab_max_pfn.ko"; then
		STAGE1_MODULE=$d/$krel/lab_max_pfn.ko
	else
		KMOD_WHY="lab_max_pfn.ko: $(grep -m 1 -E 'error|Error' "$d/$krel/build.log")"
	fi
}

foreign_upstream() {
	local c=$1
	UP=() UP_SETUP_FAILED=0
	if ! command -v "$QEMU_USER" >/dev/null 2>&1; then
		UP_WHY="no $QEMU_USER (apt-get install qemu-user)" UP_SETUP_FAILED=1; return 0
	fi
	# Debian builds no makedumpfile for mips64el: 1.7.2 cross-built,
	# static (tests/lab/mips64el_makedumpfile.sh, its own cache)
	if [ "$FA" = mips64el ]; then
		local bin
		if bin=$("$MDF_SRC/tests/lab/mips64el_makedumpfile.sh" 2>"$T/up-build-$FA.log"); then
			UP=("$QEMU_USER" "$bin")
		else
			UP_WHY="makedumpfile 1.7.2 for mips64el: $(tail -n 1 "$T/up-build-$FA.log")" UP_SETUP_FAILED=1
		fi
		return 0
	fi
	# Debian builds none for loong64 either (sid's makedumpfile source
	# lists no loong64 in its Architecture field); the cross-built ones
	# are tests/e2e/loongarch64_oracle.sh's
	if [ "$FA" = loong64 ]; then
		UP_WHY="Debian builds no makedumpfile for loong64 (tests/e2e/loongarch64_oracle.sh cross-builds 1.7.2 and HEAD: HEAD on a kept lab dump)"
		return 0
	fi
	if [ ! -f "$c/upstream-staged" ]; then
		apt_opts "$c/apt"
		mkdir -p "$c/updebs"
		local p
		# the t64 names are trixie's and sid's, the others bookworm's
		local p pkgs=()
		for p in makedumpfile libc6 libdw1 libdw1t64 libelf1 libelf1t64 liblzo2-2 zlib1g \
			liblzma5 libbz2-1.0 libzstd1 libsnappy1v5 libstdc++6 libgcc-s1; do
			apt_has "$p" && pkgs+=("$p")
		done
		if ! apt_download "$T/apt-up-$FA.log" "$c/updebs" "${pkgs[@]}" ||
			! ls "$c"/updebs/makedumpfile_*.deb >/dev/null 2>&1; then
			UP_WHY="cannot fetch makedumpfile:$DEB_ARCH: $(tail -n 1 "$T/apt-up-$FA.log")"
			UP_SETUP_FAILED=1
			return 0
		fi
		rm -rf "$c/upstream"
		for p in "$c"/updebs/*.deb; do dpkg -x "$p" "$c/upstream"; done
		[ -e "$c/upstream/lib" ] || ln -s usr/lib "$c/upstream/lib"
		foreign_interp "$c/upstream"
		touch "$c/upstream-staged"
	fi
	local bin=$c/upstream/usr/sbin/makedumpfile
	[ -x "$bin" ] || bin=$c/upstream/usr/bin/makedumpfile
	# shellcheck disable=SC2034 # read by labcheck.sh's check_dump
	UP=("$QEMU_USER" -L "$c/upstream" "$bin") UP_SETUP_FAILED=0
}

# foreign_lab CACHE NAME VARIANT: 0 when $T/lab-$FA/vmcores/NAME.elf was made.
# With CAPTURE_BIN (our cross-built program) and CAPTURE_SYSROOT (its
# libraries), the capture kernel also runs it on /proc/vmcore: NAME.d/hook/.
foreign_lab() {
	local c=$1 name=$2 t0=$SECONDS rc
	PATH="$MDF_SRC/tests/lab/foreign:$PATH" MDF_FOREIGN_QEMU=$QEMU_SYS \
		MDF_FOREIGN_QEMU_ARGS="$(foreign_machine "$3")" MDF_FOREIGN_CC="$TRIPLET-gcc" \
		MDF_FOREIGN_IOMEM=$IOMEM MDF_FOREIGN_VIRTIO=$VIRTIO LAB_DATA="$T/lab-$FA" \
		MDF_FOREIGN_KEXEC_ARGS="$KEXEC_ARGS" MDF_FOREIGN_CAPTURE_KERNEL="$(foreign_capk "$c")" MDF_FOREIGN_CAPTURE_BIN="${CAPTURE_BIN:-}" MDF_FOREIGN_STAGE1_MODULE="${STAGE1_MODULE:-}" MDF_FOREIGN_SYSROOT="${CAPTURE_SYSROOT:-}" \
		MDF_FOREIGN_BIG_ENDIAN=$BIG_ENDIAN MDF_FOREIGN_ELF32=$ELF32 PYTHONPATH="$MDF_SRC/tests/lab/foreign/py" \
		bash "$LABDIR/mkvmcore.sh" --arch arm64 --arm64-root "$c/stage" \
		--kernel "$c/$(foreign_kdir "$3")" --name "$name" --mem 1G --crashkernel "$CK" \
		$(foreign_workload "$3") \
		--append "console=$CONSOLE$(foreign_append "$3")" --capture-append "console=$CONSOLE$CAPTURE_MORE" \
		--timeout 1200 >"$T/lab-$name.log" 2>&1
	rc=$?
	echo "# lab run $name: rc $rc in $((SECONDS - t0)) s"
	# the serial console of both kernels outlives the run directory
	cp "$T/lab-$FA/runs/$name/serial.log" "$T/lab-$name.serial.log" 2>/dev/null
	# (and into MDF_FOREIGN_KEEP, to look into a failure after the run)
	[ -n "${MDF_FOREIGN_KEEP:-}" ] && mkdir -p "$MDF_FOREIGN_KEEP" &&
		cp "$T/lab-$name.serial.log" "$T/lab-$name.log" "$MDF_FOREIGN_KEEP/" 2>/dev/null
	rm -rf "$T/lab-$FA/runs"
	if [ $rc -ne 0 ] || [ ! -f "$T/lab-$FA/vmcores/$name.elf" ]; then
		notok "$name-lab-run" "mkvmcore.sh rc $rc: $(tail -n 5 "$T/lab-$name.log" | tr '\n' ' ')"
		return 1
	fi
	# The guest's labwork saved /proc/kpageflags and kpagecount as they
	# are, in its byte order; the lab's files (and kpf-oracle.py) are
	# little-endian.  (kpf-le.txt: swapped once, a rerun finds the dump.)
	local s1=$T/lab-$FA/vmcores/$name.d/stage1
	if [ "$BIG_ENDIAN" = 1 ] && [ -f "$s1/kpageflags.bin" ] && [ ! -f "$s1/kpf-le.txt" ]; then
		python3 - "$s1"/kpageflags.bin "$s1"/kpagecount.bin <<-'PY' >"$s1/kpf-le.txt" || return 1
	import array, os, sys
	for path in sys.argv[1:]:
	    if not os.path.exists(path):
	        continue
	    a = array.array('Q')
	    with open(path, 'rb') as f:
	        a.frombytes(f.read())
	    a.byteswap()
	    with open(path, 'wb') as f:
	        f.write(a.tobytes())
	    print('%s: %d big-endian u64 swapped to little-endian' % (os.path.basename(path), len(a)))
	PY
	fi
}
