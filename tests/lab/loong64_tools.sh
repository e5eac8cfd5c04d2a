#!/bin/bash
# tests/lab/loong64_tools.sh DIR - make DIR/bin hold the two host tools a
# loong64 lab kdump needs that bookworm has not, and print DIR/bin:
#   qemu-system-loongarch64    sid's qemu (qemu-system-misc 11.x), run from
#                              the readers' sid root (tests/lab/readers/root.sh)
#                              through that root's ld.so and libraries, with
#                              its data and sid's UEFI firmware there (-L:
#                              "-bios QEMU_EFI.fd" finds it)
#   loongarch64-linux-gnu-gcc  sid's cross compiler, run in that root
#                              (chroot): its input files are copied in, its
#                              -o output copied out (the lab compiles one
#                              static workload, labwork.c)
# Why: bookworm's qemu-system-loongarch64 7.2 cannot load sid's UEFI
# firmware ("qemu-system-loongarch64: Could not load ROM image
# 'QEMU_EFI.fd'": 16 MiB, a flash layout later qemus map) and Debian's
# loong64 vmlinuz is an EFI zboot application; bookworm has no loongarch64
# cross compiler.  The packages (qemu-system-misc qemu-efi-loongarch64
# gcc-loongarch64-linux-gnu libc6-dev-loong64-cross) are installed into the
# sid root once.  Needs root (chroot).  Exit 1 with one line on stderr
# when they cannot be had.
set -u
DIR=$1
SRC=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
die() { echo "loong64_tools: $*" >&2; exit 1; }
R=$("$SRC/tests/lab/readers/root.sh") || die "no sid root (tests/lab/readers/root.sh)"
PKGS="qemu-system-misc qemu-efi-loongarch64 gcc-loongarch64-linux-gnu libc6-dev-loong64-cross"
mkdir -p "$DIR/bin" || die "cannot make $DIR/bin"
if [ ! -x "$R/usr/bin/qemu-system-loongarch64" ] || [ ! -x "$R/usr/bin/loongarch64-linux-gnu-gcc" ] ||
	[ ! -f "$R/usr/share/qemu-efi-loongarch64/QEMU_EFI.fd" ]; then
	LOG=$DIR/install.log
	: >"$LOG"
	# shellcheck disable=SC2086 # the packages are words
	"$SRC/tests/lib/sid_install.sh" "$R" "$LOG" $PKGS ||
		die "apt-get install $PKGS in $R: $(tail -n 1 "$LOG")"
fi
LD=$R/lib64/ld-linux-x86-64.so.2
[ -e "$LD" ] || LD=$R/usr/lib64/ld-linux-x86-64.so.2
cat >"$DIR/bin/qemu-system-loongarch64" <<EOF
#!/bin/sh
# (tests/lab/loong64_tools.sh) sid's qemu from $R
exec "$LD" --library-path "$R/usr/lib/x86_64-linux-gnu" \\
	"$R/usr/bin/qemu-system-loongarch64" -L "$R/usr/share/qemu" \
	-L "$R/usr/share/qemu-efi-loongarch64" "\$@"
EOF
cat >"$DIR/bin/loongarch64-linux-gnu-gcc" <<EOF
#!/bin/bash
# (tests/lab/loong64_tools.sh) sid's cross compiler in $R: existing files
# among the arguments are copied into the root, -o's file copied back.
R='$R'
w=\$(mktemp -d "\$R/tmp/gcc.XXXXXX") || exit 1
trap 'rm -rf "\$w"' EXIT
args=() out="" next=0 i=0
for a in "\$@"; do
	if [ \$next = 1 ]; then out=\$a; args+=("/tmp/\${w##*/}/out"); next=0; continue; fi
	if [ "\$a" = -o ]; then next=1; args+=("\$a"); continue; fi
	if [ -f "\$a" ]; then
		i=\$((i + 1)); mkdir -p "\$w/in\$i"; cp "\$a" "\$w/in\$i/"
		args+=("/tmp/\${w##*/}/in\$i/\${a##*/}")
	else
		args+=("\$a")
	fi
done
chroot "\$R" /usr/bin/env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 loongarch64-linux-gnu-gcc "\${args[@]}" || exit
[ -z "\$out" ] || cp "\$w/out" "\$out"
EOF
chmod 755 "$DIR/bin/qemu-system-loongarch64" "$DIR/bin/loongarch64-linux-gnu-gcc"
"$DIR/bin/qemu-system-loongarch64" --version >/dev/null 2>&1 || die "$DIR/bin/qemu-system-loongarch64 does not run"
echo "$DIR/bin"
