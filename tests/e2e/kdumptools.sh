#!/bin/bash
# Debian's kdump-tools, unmodified, calls our package in a real crash.
#
# A bookworm root (debootstrap'ed once, tests/lab/debroot.sh) gets systemd,
# Debian's 6.1.0-57 kernel (the one whose debug vmlinux the fixtures use),
# our .deb (`make deb`) and then `apt-get install kdump-tools`, which keeps
# ours.  kdump-tools is configured the way its documentation says
# (USE_KDUMP=1 in /etc/default/kdump-tools, crashkernel= on the command
# line); initramfs-tools uses MODULES=list (virtio and ext4) so that the
# chroot builds the initrds without the host's modules.  The root becomes an
# ext4 disk image, and qemu (TCG unless MDF_KDT_ACCEL says otherwise) boots
# it with systemd.  tests/lab/kdt/crash.sh waits for `kdump-config status`
# to say "ready to kdump", logs a marker and crashes the guest with sysrq-c.
# In the capture kernel, kdump-tools-dump.service runs kdump-config
# savecore: `makedumpfile $MAKEDUMP_ARGS /proc/vmcore | compress >
# dump-incomplete` (MAKEDUMP_ARGS "-F -c -d 31" by default, -F always
# added), `makedumpfile --dump-dmesg`, then the rename to dump.STAMP and
# `reboot -f`, which ends qemu (-no-reboot).  A drop-in
# (tests/lab/kdt/elf-copy.conf) first copies /proc/vmcore to a second disk.
#
# Variants, one boot and crash each:
#   default   MAKEDUMP_ARGS unset: dump.STAMP is a flattened -c -d 31 dump
#   lzo       MAKEDUMP_ARGS="-l -d 31"
#   full      /var/crash is a small file system filled before the crash:
#             kdump-tools must see our non-zero status and keep nothing
#             that looks complete
# Checks on the host, from the image (debugfs, no mount): dump.STAMP and
# dmesg.STAMP exist, dmesg.STAMP and the dump's log hold the marker, the
# dump equals the one our binary makes from the ELF copy with the same
# options, `makedumpfile -R` rearranges it, crash (with the debug vmlinux,
# tests/lab/debug_vmlinux.sh) and drgn open it.
# Opt-in: MDF_KDT_TEST=1 make check TESTS=kdumptools.  Needs root, network
# on the first run (to this machine's Debian mirror, tests/lib/apt.sh;
# packages kept in MDF_DEB_CACHE, /var/tmp/mdf-deb),
# qemu-system-x86_64, debootstrap, dpkg-dev, debhelper, e2fsprogs.
# MDF_KDT_VARIANTS picks variants ("default lzo full").
. "$(dirname "$0")/../lib/lib.sh"

optin kdumptools MDF_KDT_TEST "boots bookworm with systemd under qemu three times (minutes)" || exit 0
if [ "$(id -u)" -ne 0 ]; then
	needfail "kdumptools" "needs root (debootstrap, chroot)"; exit 0
fi
missing=""
for t in qemu-system-x86_64 debootstrap dpkg-buildpackage dh zstd mkfs.ext4 debugfs crash readelf; do
	command -v "$t" >/dev/null || missing="$missing $t"
done
/usr/bin/python3 -c 'import drgn' 2>/dev/null || missing="$missing python3-drgn"
if [ -n "$missing" ]; then
	needfail "kdumptools" "missing:$missing"; exit 0
fi

PKG=makedumpfile-ng
DEBROOT_TEST=kdt
. "$MDF_SRC/tests/lab/debroot.sh"
KVER=6.1.0-57-amd64
KDT_DIR="$MDF_SRC/tests/lab/kdt"
BASETAR="$DEBROOT_CACHE/$SUITE-kdt-base-$KVER-$ARCH.tar.zst"
VARIANTS=${MDF_KDT_VARIANTS:-default lzo full}
ACCEL=${MDF_KDT_ACCEL:-tcg}
MEM=1024
CRASHKERNEL=320M
T0=$(now)

# ---- our package
t=$(now)
VERSION=$(sed -n 's/^VERSION *:= *//p' "$MDF_SRC/Makefile")
DEB="$MDF_SRC/build/deb/${PKG}_${VERSION}_$ARCH.deb"
# A package that tests/e2e/deb.sh built from these very sources is used as
# it is; else `make deb`.
newer_than() { # DEB: is some file git tracks newer than DEB (or no git)?
	local f
	git -C "$MDF_SRC" rev-parse 2>/dev/null || return 0
	while IFS= read -r -d '' f; do
		[ "$MDF_SRC/$f" -nt "$1" ] && return 0
	done < <(git -C "$MDF_SRC" ls-files -z)
	return 1
}
if [ -f "$DEB" ] && ! newer_than "$DEB"; then
	echo "# using $DEB (newer than every tracked file)"
elif ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$MDF_SRC" deb >"$T/build.log" 2>&1; then
	notok "kdt-deb" "$(last "$T/build.log")"; exit 0
else
	phase "make deb" "$t"
fi
VMLINUX=$(bash "$MDF_SRC/tests/lab/debug_vmlinux.sh" 2>"$T/dbg.err") || VMLINUX=""

# ---- the base root: systemd, the kernel and everything kdump-tools and
# our package need, without either of them (cached).
if [ ! -f "$BASETAR" ]; then
	t=$(now)
	R="$T/base"
	new_root "$R" || exit 0
	{
		echo "deb $DEBROOT_MIRROR $SUITE main"
		echo "deb $DEBROOT_SECURITY_MIRROR $SUITE-security main"
	} >"$R/etc/apt/sources.list"
	printf '%s\n' "kexec-tools kexec-tools/load_kexec boolean false" \
		"kdump-tools kdump-tools/use_kdump boolean true" | in_root "$R" debconf-set-selections
	mkdir -p "$R/etc/initramfs-tools"
	apt_root_update "$R" "$T/base-update.log"
	# MODULES=list before the kernel comes, so its initrd is built so.
	retry "$T/base-irt.log" apt_root "$R" install initramfs-tools
	sed -i 's/^MODULES=.*/MODULES=list/' "$R/etc/initramfs-tools/initramfs.conf"
	printf '%s\n' virtio_pci virtio_blk ext4 >>"$R/etc/initramfs-tools/modules"
	if ! retry "$T/base-install.log" apt_root "$R" install systemd-sysv udev kmod "linux-image-$KVER" \
		kexec-tools busybox file bsdextrautils ucf linux-base procps \
		libdw1 libelf1 liblzo2-2 libsnappy1v5 libdeflate0 libzstd1 zlib1g; then
		notok "kdt-base-root" "$(last "$T/base-install.log")"; exit 0
	fi
	# kdump-tools and what it pulls in, downloaded only.
	retry "$T/base-dl.log" apt_root "$R" install --download-only kdump-tools
	in_root "$R" apt-get clean
	pack_root "$R" "$BASETAR" || { notok "kdt-base-cache" "tar"; exit 0; }
	drop_root "$R"
	phase "base root (cold: packages, kernel, initrd; cached as $BASETAR)" "$t"
fi

# ---- the guest root: ours, then kdump-tools, configured
t=$(now)
R="$T/root"
unpack_root "$BASETAR" "$R" || { notok "kdt-root-unpack" "$BASETAR"; exit 0; }
install_ours "$R" "$DEB" >"$T/ours.log" 2>&1
apt_root "$R" --no-download install kdump-tools >"$T/kdt-install.log" 2>&1
check "kdt-ours-installed" test "$(state "$R" $PKG)" = ii
check "kdt-kdump-tools-installed" test "$(state "$R" kdump-tools)" = ii
check "kdt-no-debian-makedumpfile" bash -c "! chroot '$R' dpkg-query -W -f='\${db:Status-Abbrev}' makedumpfile 2>/dev/null | grep -q '^i'"
# The kernel hook builds kdump-tools' own initrd and its links.
in_root "$R" /etc/kernel/postinst.d/kdump-tools "$KVER" >"$T/kdt-initrd.log" 2>&1
# kdump-config's links to it, as on an installed system (without them its
# first load in the guest builds the initrd again, minutes under TCG).
in_root "$R" kdump-config symlinks "$KVER" >>"$T/kdt-initrd.log" 2>&1
check "kdt-kdump-initrd" test -s "$R/var/lib/kdump/initrd.img-$KVER"
check "kdt-kdump-links" test -L "$R/var/lib/kdump/vmlinuz" -a -L "$R/var/lib/kdump/initrd.img"
sed -i 's/^USE_KDUMP=.*/USE_KDUMP=1/' "$R/etc/default/kdump-tools"
grep -q '^USE_KDUMP=1' "$R/etc/default/kdump-tools" || echo "USE_KDUMP=1" >>"$R/etc/default/kdump-tools"
echo "/dev/vda / ext4 defaults 0 1" >"$R/etc/fstab"
echo kdt >"$R/etc/hostname"
install -m 755 "$KDT_DIR/crash.sh" "$R/usr/local/sbin/mdf-kdt-crash"
install -m 644 "$KDT_DIR/mdf-kdt-crash.service" "$R/etc/systemd/system/"
mkdir -p "$R/etc/systemd/system/multi-user.target.wants" "$R/etc/systemd/system/kdump-tools-dump.service.d" \
	"$R/etc/mdf-kdt"
ln -sf /etc/systemd/system/mdf-kdt-crash.service "$R/etc/systemd/system/multi-user.target.wants/"
install -m 644 "$KDT_DIR/elf-copy.conf" "$R/etc/systemd/system/kdump-tools-dump.service.d/"
# Nothing waits for a network or a login in this guest.
rm -f "$R/usr/sbin/policy-rc.d" "$R/etc/resolv.conf"
cp "$R/etc/default/kdump-tools" "$T/kdump-tools.default"
umount "$R/proc" && MOUNTS=()
phase "guest root (ours, kdump-tools, initrds)" "$t"

# The log lines that matter, prefixed, for the report.
show() { grep -a -E "$2" "$1" | tr -d '\r' | sed "s/^/# $3: /" | head -n "${4:-20}"; }

# run_variant NAME: one boot, crash and capture; the image's /var/crash is
# extracted to $T/NAME/crash and the console is $T/NAME/console.log.
run_variant() {
	local v=$1 d="$T/$1" t rc extra=()
	mkdir -p "$d"
	t=$(now)
	cp "$T/kdump-tools.default" "$R/etc/default/kdump-tools"
	rm -f "$R/etc/mdf-kdt/fill"
	echo "/dev/vda / ext4 defaults 0 1" >"$R/etc/fstab"
	case $v in
	lzo) echo 'MAKEDUMP_ARGS="-l -d 31"' >>"$R/etc/default/kdump-tools" ;;
	full)
		touch "$R/etc/mdf-kdt/fill"
		echo "/dev/vdc /var/crash ext4 defaults 0 2" >>"$R/etc/fstab"
		mkfs.ext4 -q -F -m 0 -O ^has_journal "$d/small.img" 4M
		extra=(-drive "file=$d/small.img,if=virtio,format=raw")
		;;
	esac
	echo "MDF-KDT-MARKER-$v-$$-$RANDOM" >"$R/etc/mdf-kdt/marker"
	rm -f "$d/disk.img" "$d/elf.img"
	if ! mkfs.ext4 -q -F -L kdtroot -d "$R" "$d/disk.img" 3G >"$d/mkfs.log" 2>&1; then
		notok "kdt-$v-image" "$(last "$d/mkfs.log")"; return 1
	fi
	truncate -s $((MEM + 64))M "$d/elf.img"
	phase "$v: disk image" "$t"
	t=$(now)
	timeout 2400 qemu-system-x86_64 -accel "$ACCEL" -m $MEM -smp 2 -display none \
		-no-reboot -monitor none -serial "file:$d/console.log" \
		-kernel "$R/boot/vmlinuz-$KVER" -initrd "$R/boot/initrd.img-$KVER" \
		-append "root=/dev/vda rw console=ttyS0,115200 crashkernel=$CRASHKERNEL panic=10" \
		-drive "file=$d/disk.img,if=virtio,format=raw" \
		-drive "file=$d/elf.img,if=virtio,format=raw" "${extra[@]}" \
		>"$d/qemu.log" 2>&1
	rc=$?
	phase "$v: boot, crash, capture and reboot under qemu ($ACCEL)" "$t"
	[ $rc -eq 0 ] || { notok "kdt-$v-qemu" "qemu exit $rc: $(last "$d/qemu.log") console: $(tail -n 3 "$d/console.log" | tr -d '\r' | tr '\n' ' ')"; return 1; }
	local img="$d/disk.img"
	[ "$v" = full ] && img="$d/small.img"
	local src=/var/crash
	[ "$v" = full ] && src=/
	mkdir -p "$d/crash"
	debugfs -R "rdump $src $d/crash" "$img" >"$d/debugfs.log" 2>&1
	return 0
}

# stamp_dir NAME: the one YYYYMMDDHHMM directory kdump-tools made.
stamp_dir() { find "$T/$1/crash" -mindepth 1 -maxdepth 2 -type d -name '2[0-9][0-9][0-9]*' | head -n 1; }

# elf_of NAME: the ELF copy, cut to the end of its last segment.
elf_of() {
	local f="$T/$1/elf.img" end
	local off filesz e end=0
	while read -r _ off _ _ filesz _; do
		e=$((off + filesz))
		[ "$e" -gt "$end" ] && end=$e
	done < <(readelf -lW "$f" 2>/dev/null | awk '$1 == "LOAD" || $1 == "NOTE" { print $1, $2, $3, $4, $5 }')
	[ "$end" -gt 0 ] || return 1
	truncate -s "$end" "$f" && echo "$f"
}

# check_dump NAME OPTS: the checks of a variant whose dump kdump-tools kept.
check_dump() {
	local v=$1 opts=$2 d="$T/$1" s dump dmesg marker elf
	marker=$(cat "$R/etc/mdf-kdt/marker")
	show "$d/console.log" 'MDF-KDT status|running makedumpfile|saved (vmcore|dmesg)|makedumpfile.*fail' console
	check "kdt-$v-ready" grep -aq 'MDF-KDT status: current state *: ready to kdump' "$d/console.log"
	check "kdt-$v-ran-ours" grep -aq "running makedumpfile $opts /proc/vmcore" "$d/console.log"
	s=$(stamp_dir "$v")
	[ -n "$s" ] || { notok "kdt-$v-stamp-dir" "no /var/crash/STAMP in the image: $(last "$d/debugfs.log")"; return; }
	ls -l "$s" | sed "s/^/# $v \/var\/crash\/$(basename "$s"): /"
	dump="$s/dump.$(basename "$s")"; dmesg="$s/dmesg.$(basename "$s")"
	check "kdt-$v-dump-file" test -s "$dump"
	check "kdt-$v-no-incomplete" bash -c "! ls '$s' | grep -q incomplete"
	check "kdt-$v-dmesg-marker" grep -aq "$marker" "$dmesg"
	"$MDF" -R "$d/dump.kdump" <"$dump" >"$d/R.log" 2>&1
	check "kdt-$v-rearranges" test -s "$d/dump.kdump"
	if elf=$(elf_of "$v"); then
		# shellcheck disable=SC2086
		"$MDF" $opts "$elf" >"$d/ours.flat" 2>"$d/ours.log"
		if cmp -s "$d/ours.flat" "$dump"; then ok "kdt-$v-equals-ours"
		else
			"$MDF" -R "$d/ours.kdump" <"$d/ours.flat" >/dev/null 2>&1
			notok "kdt-$v-equals-ours" "$(cmp "$d/ours.flat" "$dump" 2>&1 | head -n 1); kdump.py: $(python3 "$MDF_SHARED/tools/kdump.py" cmp "$d/ours.kdump" "$d/dump.kdump" 2>&1 | tail -n 1)"
		fi
		echo "# $v: ELF copy $(du -h --apparent-size "$elf" | cut -f1), dump $(du -h "$dump" | cut -f1)"
	else
		notok "kdt-$v-equals-ours" "no ELF copy of /proc/vmcore on the second disk"
	fi
	if [ -n "$VMLINUX" ]; then
		printf 'log\nquit\n' >"$d/crash.cmd"
		crash -s "$VMLINUX" "$d/dump.kdump" -i "$d/crash.cmd" >"$d/crash.log" 2>&1 </dev/null
		if grep -aq "$marker" "$d/crash.log"; then ok "kdt-$v-crash-opens"
		else notok "kdt-$v-crash-opens" "$(last "$d/crash.log")"; fi
	else
		needfail "kdt-$v-crash-opens" "no debug vmlinux: $(cat "$T/dbg.err")"
	fi
	/usr/bin/python3 - "$d/dump.kdump" "$marker" ${VMLINUX:+"$VMLINUX"} >"$d/drgn.log" 2>&1 <<'PY'
import sys, drgn
from drgn.helpers.linux.printk import get_printk_records
prog = drgn.Program()
prog.set_core_dump(sys.argv[1])
if len(sys.argv) > 3:
    prog.load_debug_info([sys.argv[3]])
else:
    prog.load_debug_info(default=True)
text = b"".join(r.text for r in get_printk_records(prog))
print("release", prog["UTS_RELEASE"].string_().decode())
sys.exit(0 if sys.argv[2].encode() in text else 1)
PY
	if [ $? -eq 0 ]; then ok "kdt-$v-drgn-opens"; else notok "kdt-$v-drgn-opens" "$(last "$d/drgn.log")"; fi
}

for v in $VARIANTS; do
	run_variant "$v" || continue
	case $v in
	default) check_dump default "-F -c -d 31" ;;
	lzo) check_dump lzo "-l -d 31 -F" ;;
	full)
		d="$T/full"
		show "$d/console.log" 'MDF-KDT|running makedumpfile|makedumpfile|failed|saved' console 40
		check "kdt-full-ready" grep -aq 'MDF-KDT status: current state *: ready to kdump' "$d/console.log"
		# kdump-config tests our status directly for --dump-dmesg; the
		# dump's status is its pipeline's (the compressor's).
		check "kdt-full-dmesg-status-seen" grep -aq 'makedumpfile --dump-dmesg failed' "$d/console.log"
		check "kdt-full-dump-failed" grep -aq 'failed to save vmcore' "$d/console.log"
		check "kdt-full-our-error-line" grep -aqE 'makedumpfile: .*(No space left|Broken pipe)' "$d/console.log"
		find "$d/crash" -type f | sed "s|^$d/crash|# full: kept |"
		check "kdt-full-nothing-complete" bash -c "! find '$d/crash' -type f \\( -name 'dump.*' -o -name 'vmcore.*' -o -name 'dmesg.*' \\) | grep -q ."
		;;
	esac
done
phase "kdumptools test in all" "$T0"
exit 0
