# tests/lab/foreign.sh - sourced by tests/e2e/foreign.sh (after
# tests/lib/lib.sh and tests/lab/labcheck.sh): real kdumps of the
# architectures ../shared/lab does not boot itself, ppc64el and riscv64.
#
# The lab's arm64 path (mkvmcore.sh --arch arm64) is a virt-style machine:
# -M virt, -kernel and -initrd, virtio-blk-pci disks, a workload
# cross-compiled with aarch64-linux-gnu-gcc, kexec-tools and busybox from a
# staged root of foreign packages.  Other architectures fit the same path:
# tests/lab/foreign/ holds stand-ins for qemu-system-aarch64 and
# aarch64-linux-gnu-gcc, first on PATH, that run the architecture's qemu
# (with its machine and CPU arguments) and cross compiler instead, and a
# cpio stand-in that fixes what kexec-tools gets wrong on riscv64.
#
# foreign_arch ARCH      set the facts of ARCH (variables below)
# foreign_stage CACHE    fetch kernel, busybox, kexec-tools and libc into
#                        CACHE/stage and CACHE/kernel (apt-get download,
#                        dpkg -x; nothing is installed)
# foreign_upstream CACHE Debian's makedumpfile of ARCH into CACHE/upstream:
#                        sets UP (its command under qemu-user) or UP_WHY
# foreign_lab CACHE NAME VARIANT  boot, crash and capture: $T/lab-$FA/vmcores/NAME.elf
#                        (a lab directory per architecture: the lab keeps
#                        its cross-built workload there as "labwork-arm64")

foreign_arch() {
	FA=$1 IOMEM=0 LK_ARCH="" LK_WHY="" DRGN_FILES="l E" DRGN_WHY="" CK=192M
	case "$1" in
	riscv64)
		DEB_ARCH=riscv64 TRIPLET=riscv64-linux-gnu QEMU_USER=qemu-riscv64
		QEMU_SYS=qemu-system-riscv64 CONSOLE=ttyS0 DRGN_ARCH=RISCV64
		# Debian ships riscv64 since trixie; kexec-tools only in sid.
		SOURCES=("http://deb.debian.org/debian trixie main"
			 "http://deb.debian.org/debian sid main")
		KPAT='^linux-image-6\.12\.[0-9]*\+deb13-riscv64$'
		# kexec-tools 2.0.32 leaves memblock's memory out (tests/lab/foreign/cpio).
		IOMEM=1
		LK_WHY="libkdumpfile $(dpkg-query -W -f '${Version}' libkdumpfile-dev 2>/dev/null) has no riscv64"
		DRGN_FILES="E" DRGN_WHY="drgn reads kdump files through libkdumpfile"
		;;
	ppc64el)
		DEB_ARCH=ppc64el TRIPLET=powerpc64le-linux-gnu QEMU_USER=qemu-ppc64le
		QEMU_SYS=qemu-system-ppc64 CONSOLE=hvc0 LK_ARCH=ppc64 DRGN_ARCH=PPC64
		SOURCES=("http://deb.debian.org/debian bookworm main"
			 "http://deb.debian.org/debian-security bookworm-security main")
		KPAT='^linux-image-6\.1\.0-[0-9]*-powerpc64le$'
		# 64 KiB pages: the capture kernel and its initramfs need more room.
		CK=384M
		;;
	*) return 1 ;;
	esac
}

# The qemu machine of a variant: ppc64el "radix" (POWER9) or "hash" (POWER8).
foreign_machine() {
	case "$FA/$1" in
	riscv64/*) echo "-M virt -cpu rv64" ;;
	ppc64el/hash) echo "-M pseries -cpu power8" ;;
	ppc64el/*) echo "-M pseries -cpu power9" ;;
	esac
}

# foreign_libs ROOT: the lab copies a foreign binary's libraries from ROOT's
# /lib and /usr/lib only (and its multiarch directories of arm64): put
# copies there, and the ELF interpreter where the binary asks for it.
foreign_libs() {
	local root=$1 f d
	for d in "$root/lib/$TRIPLET" "$root/usr/lib/$TRIPLET"; do
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
	apt_state "$c/apt" "$T/apt-$FA.log" "${SOURCES[@]}" || return 1
	mkdir -p "$c/debs" "$c/kdeb" || return 1
	k=$(newest "$KPAT")
	[ -n "$k" ] || { echo "no kernel matches $KPAT" >>"$T/apt-$FA.log"; return 1; }
	(cd "$c/kdeb" && rm -f ./*.deb && apt-get "${AA[@]}" download "$k") >>"$T/apt-$FA.log" 2>&1 || return 1
	(cd "$c/debs" && apt-get "${AA[@]}" download busybox-static kexec-tools libc6) \
		>>"$T/apt-$FA.log" 2>&1 || return 1
	rm -rf "$c/stage" "$c/kernel"
	for k in "$c"/debs/*.deb; do dpkg -x "$k" "$c/stage" || return 1; done
	dpkg -x "$c"/kdeb/*.deb "$c/kernel" || return 1
	foreign_libs "$c/stage" || return 1
	# The lab boots DIR/boot/vmlinuz-*: ppc64el and riscv64 name it vmlinux.
	for k in "$c"/kernel/boot/vmlinux-*; do
		ln -sf "${k##*/}" "$c/kernel/boot/vmlinuz-${k##*/vmlinux-}"
	done
	touch "$c/staged"
}

foreign_upstream() {
	local c=$1
	UP=()
	if ! command -v "$QEMU_USER" >/dev/null 2>&1; then
		UP_WHY="no $QEMU_USER (apt-get install qemu-user)"; return 0
	fi
	if [ ! -f "$c/upstream-staged" ]; then
		apt_opts "$c/apt"
		mkdir -p "$c/updebs"
		local p
		for p in makedumpfile libc6 libdw1 libdw1t64 libelf1 libelf1t64 liblzo2-2 zlib1g \
			liblzma5 libbz2-1.0 libzstd1 libsnappy1v5 libstdc++6 libgcc-s1; do
			(cd "$c/updebs" && apt-get "${AA[@]}" download "$p") >>"$T/apt-up-$FA.log" 2>&1
		done
		if ! ls "$c"/updebs/makedumpfile_*.deb >/dev/null 2>&1; then
			UP_WHY="cannot fetch makedumpfile:$DEB_ARCH: $(tail -n 1 "$T/apt-up-$FA.log")"
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
	UP=("$QEMU_USER" -L "$c/upstream" "$bin")
}

# foreign_lab CACHE NAME VARIANT: 0 when $T/lab-$FA/vmcores/NAME.elf was made.
# With CAPTURE_BIN (our cross-built program) and CAPTURE_SYSROOT (its
# libraries), the capture kernel also runs it on /proc/vmcore: NAME.d/hook/.
foreign_lab() {
	local c=$1 name=$2 t0=$SECONDS rc
	PATH="$MDF_SRC/tests/lab/foreign:$PATH" MDF_FOREIGN_QEMU=$QEMU_SYS \
		MDF_FOREIGN_QEMU_ARGS="$(foreign_machine "$3")" MDF_FOREIGN_CC="$TRIPLET-gcc" \
		MDF_FOREIGN_IOMEM=$IOMEM LAB_DATA="$T/lab-$FA" \
		MDF_FOREIGN_CAPTURE_BIN="${CAPTURE_BIN:-}" MDF_FOREIGN_SYSROOT="${CAPTURE_SYSROOT:-}" \
		bash "$LABDIR/mkvmcore.sh" --arch arm64 --arm64-root "$c/stage" \
		--kernel "$c/kernel" --name "$name" --mem 1G --crashkernel "$CK" \
		--append "console=$CONSOLE" --capture-append "console=$CONSOLE" \
		--timeout 1200 >"$T/lab-$name.log" 2>&1
	rc=$?
	echo "# lab run $name: rc $rc in $((SECONDS - t0)) s"
	rm -rf "$T/lab-$FA/runs"
	if [ $rc -ne 0 ] || [ ! -f "$T/lab-$FA/vmcores/$name.elf" ]; then
		notok "$name-lab-run" "mkvmcore.sh rc $rc: $(tail -n 5 "$T/lab-$name.log" | tr '\n' ' ')"
		return 1
	fi
}
