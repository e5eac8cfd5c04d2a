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
# /var/tmp/mdf-arm64), never installed.  MDF_ARM64_VMCORE=NAME.elf (made by
# the lab, with its NAME.d and NAME.json beside it) checks that dump only.
. "$(dirname "$0")/../lib/lib.sh"
LABDIR="$MDF_SHARED/lab"
CACHE=${MDF_ARM64_CACHE:-/var/tmp/mdf-arm64}

if [ "${MDF_ARM64_TEST:-0}" != 1 ] && [ -z "${MDF_ARM64_VMCORE:-}" ]; then
	skip "arm64" "a real arm64 kdump under qemu takes ~2 min; run with MDF_ARM64_TEST=1 make check TESTS=arm64"
	exit 0
fi

# ---- the vmcore ------------------------------------------------------
# apt_opts DIR: AA = apt-get options for a separate arm64 apt state in DIR.
apt_opts() {
	AA=(-o APT::Architecture=arm64 -o APT::Architectures=arm64
	    -o Dir::Etc::sourcelist="$1/sources.list" -o Dir::Etc::sourceparts=-
	    -o Dir::State::Lists="$1/lists" -o Dir::State::status="$1/status"
	    -o Dir::Cache="$1/cache")
}

# apt_state DIR LOG SOURCE-LINE...: create that apt state, fetch its indexes.
apt_state() {
	local dir=$1 log=$2
	shift 2
	mkdir -p "$dir/lists/partial" "$dir/cache" || return 1
	touch "$dir/status"
	printf 'deb [trusted=yes] %s\n' "$@" >"$dir/sources.list"
	apt_opts "$dir"
	apt-get "${AA[@]}" update >"$log" 2>&1
}

# newest PATTERN: the newest package whose name matches (apt-cache regex).
newest() {
	apt-cache "${AA[@]}" search "$1" 2>/dev/null | awk '{print $1}' | sort -V | tail -n 1
}

stage() { # bookworm's newest 6.1 arm64 kernel and the user space, into $CACHE
	local k
	apt_state "$CACHE/apt" "$T/apt.log" "http://deb.debian.org/debian bookworm main" \
		"http://deb.debian.org/debian-security bookworm-security main" || return 1
	mkdir -p "$CACHE/debs" "$CACHE/kdeb" || return 1
	k=$(newest '^linux-image-6\.1\.0-[0-9]*-arm64$')
	[ -n "$k" ] || return 1
	(cd "$CACHE/kdeb" && apt-get "${AA[@]}" download "$k") >>"$T/apt.log" 2>&1 || return 1
	# busybox, kexec-tools and the libraries kexec links (Debian builds it with Xen).
	(cd "$CACHE/debs" && apt-get "${AA[@]}" download busybox-static kexec-tools libc6 zlib1g \
		libxenmisc4.17 libext2fs2 libfdt1 libuuid1 libxencall1 libxendevicemodel1 \
		libxenevtchn1 libxenforeignmemory1 libxengnttab1 libxenhypfs1 libxenstore4 \
		libxentoollog1 libyajl2 libxentoolcore1 libcom-err2) >>"$T/apt.log" 2>&1 || return 1
	rm -rf "$CACHE/stage" "$CACHE/kernel"
	for d in "$CACHE"/debs/*.deb; do dpkg -x "$d" "$CACHE/stage" || return 1; done
	dpkg -x "$CACHE"/kdeb/*.deb "$CACHE/kernel" || return 1
	touch "$CACHE/staged"
}

stage_upstream() { # Debian's arm64 makedumpfile and its libraries, for qemu-user
	apt_opts "$CACHE/apt"
	mkdir -p "$CACHE/updebs" || return 1
	(cd "$CACHE/updebs" && apt-get "${AA[@]}" download makedumpfile libc6 libdw1 libelf1 \
		liblzo2-2 zlib1g liblzma5 libbz2-1.0 libzstd1) >"$T/apt-up.log" 2>&1 || return 1
	rm -rf "$CACHE/upstream"
	for d in "$CACHE"/updebs/*.deb; do dpkg -x "$d" "$CACHE/upstream" || return 1; done
	touch "$CACHE/upstream-staged"
}

stage_16k() { # trixie's arm64-16k kernel (16 KiB pages, LPA2), into $CACHE/kernel16k
	local k
	apt_state "$CACHE/apt16" "$T/apt16.log" "http://deb.debian.org/debian trixie main" || return 1
	mkdir -p "$CACHE/kdeb16" || return 1
	k=$(newest '^linux-image-6\.12\.[0-9]*\+deb13-arm64-16k-unsigned$')
	[ -n "$k" ] || return 1
	(cd "$CACHE/kdeb16" && apt-get "${AA[@]}" download "$k") >>"$T/apt16.log" 2>&1 || return 1
	rm -rf "$CACHE/kernel16k"
	dpkg -x "$CACHE"/kdeb16/*.deb "$CACHE/kernel16k" || return 1
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

# check_dump ELF TAG UPSTREAM(yes|no): every check on one dump; NAME.json
# and NAME.d (the lab's) sit beside ELF.
check_dump() {
	local ELF=$1 TAG=$2 UPSTREAM=$3 OUTDIR NAME machine why out uts marker n
	OUTDIR=$(dirname "$ELF")
	NAME=$(basename "$ELF" .elf)
	rm -f "$T"/d.l "$T"/d.c "$T"/d.E "$T"/t2.l "$T"/re.l "$T"/fr.l "$T"/dmesg.txt
	machine=$(readelf -h "$ELF" 2>/dev/null | sed -n 's/^ *Machine: *//p')
	ok "$TAG-lab-run ($(stat -c %s "$ELF") byte vmcore, $machine, kernel $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("kernel_version", "?"))' "$OUTDIR/$NAME.json" 2>/dev/null))"
	# ---- page classes against the kpageflags oracle ----------------------
	if ! "$MDF" --dry-run -d 31 --message-level 16 "$ELF" >"$T/dry.log" 2>&1; then
		notok "$TAG-classes" "--dry-run: $(tail -n 1 "$T/dry.log")"
	elif ! LAB_DATA=$(dirname "$OUTDIR") python3 "$LABDIR/kpf-oracle.py" "$NAME" --json >"$T/kpf.json" 2>"$T/kpf.err"; then
		skip "$TAG-classes" "kpf-oracle.py: $(tail -n 1 "$T/kpf.err")"
	else
		why=$(python3 "$MDF_SRC/tests/tools/kpf_classes.py" "$T/kpf.json" "$T/dry.log" \
			"$OUTDIR/$NAME.d/stage1/kpf-zoneinfo.txt")
		case "$why" in
		BAD*) notok "$TAG-classes-vs-kpageflags" "${why#BAD }" ;;
		*) ok "$TAG-classes-vs-kpageflags ($why)" ;;
		esac
	fi

	# ---- output, read back by independent readers ------------------------
	"$MDF" -l -d 31 "$ELF" "$T/d.l" >"$T/l.log" 2>&1 || notok "$TAG-l" "$(tail -n 1 "$T/l.log")"
	"$MDF" -c -d 31 "$ELF" "$T/d.c" >"$T/c.log" 2>&1 || notok "$TAG-c" "$(tail -n 1 "$T/c.log")"
	"$MDF" -E -d 31 "$ELF" "$T/d.E" >"$T/E.log" 2>&1 || notok "$TAG-E" "$(tail -n 1 "$T/E.log")"
	for f in l c; do
		if out=$(python3 "$MDF_SHARED/tools/kdump.py" pages "$T/d.$f" "$ELF" 2>&1) &&
			[[ "$out" == *" 0 differ"* ]]; then ok "$TAG-$f-pages-equal-vmcore ($(tail -n 1 <<<"$out"))"
		else notok "$TAG-$f-pages-equal-vmcore" "$(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
	done
	uts=$(sed -n 's/^SYMBOL(init_uts_ns)=//p' <<<"$(strings -n 8 "$ELF" | head -c 2000000 | grep -m 1 '^SYMBOL(init_uts_ns)=')")
	if /usr/bin/python3 -c 'import kdumpfile' 2>/dev/null; then
		out=$(/usr/bin/python3 - "$T/d.l" "$T/d.E" "$uts" <<-'PY' 2>&1
	import sys, kdumpfile
	res = []
	for path in sys.argv[1:3]:
	    k = kdumpfile.kdumpfile(path)
	    k.attr['addrxlat.ostype'] = 'linux'
	    name = bytes(k.read(kdumpfile.KDUMP_KVADDR, int(sys.argv[3], 16), 65)).split(b'\0')[0]
	    res.append("%s %s %s" % (path.rsplit('.', 1)[1], k.attr['arch.name'], name.decode()))
	print(", ".join(res))
	PY
	)
		if [[ "$out" == "l aarch64 Linux, E aarch64 Linux" ]]; then ok "$TAG-libkdumpfile-reads ($out)"
		else notok "$TAG-libkdumpfile-reads" "$out"; fi
	else
		skip "$TAG-libkdumpfile-reads" "python3-libkdumpfile not installed"
	fi
	if /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
		out=$(/usr/bin/python3 - "$T/d.l" "$T/d.E" "$uts" <<-'PY' 2>&1
	import sys, drgn
	res = []
	for path in sys.argv[1:3]:
	    prog = drgn.Program()
	    prog.set_core_dump(path)
	    name = prog.read(int(sys.argv[3], 16), 65).split(b'\0')[0]
	    res.append("%s %s %s" % (path.rsplit('.', 1)[1], prog.platform.arch.name, name.decode()))
	print(", ".join(res))
	PY
	)
		if [[ "$out" == "l AARCH64 Linux, E AARCH64 Linux" ]]; then ok "$TAG-drgn-reads ($out)"
		else notok "$TAG-drgn-reads" "$out"; fi
	else
		skip "$TAG-drgn-reads" "python3-drgn not installed"
	fi

	# ---- the other paths agree with the direct run -----------------------
	same() { # NAME FILE: FILE equals $T/d.l
		if cmp -s "$2" "$T/d.l"; then ok "$1"; else notok "$1" "$(cmp "$2" "$T/d.l" 2>&1 | head -n 1)"; fi
	}
	"$MDF" -l -d 31 --num-threads 2 "$ELF" "$T/t2.l" >/dev/null 2>&1
	same "$TAG-threads-same-bytes" "$T/t2.l"
	"$MDF" -l -d 31 "$T/d.c" "$T/re.l" >"$T/re.log" 2>&1
	same "$TAG-refilter-same-bytes" "$T/re.l"
	"$MDF" -F -l -d 31 "$ELF" 2>/dev/null | "$MDF" -R "$T/fr.l" >/dev/null 2>&1
	same "$TAG-flat-R-same-bytes" "$T/fr.l"
	marker=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["marker"])' "$OUTDIR/$NAME.json" 2>/dev/null)
	if "$MDF" --dump-dmesg "$T/d.l" "$T/dmesg.txt" >"$T/dm.log" 2>&1 &&
		{ [ -z "$marker" ] || grep -qF "$marker stage=crash" "$T/dmesg.txt"; }; then
		ok "$TAG-dump-dmesg-marker"
	else notok "$TAG-dump-dmesg-marker" "$(tail -n 1 "$T/dm.log") marker '$marker'"; fi
	if "$MDF" --mem-usage "$ELF" >"$T/mu.out" 2>/dev/null &&
		n=$(awk -F'\t+' '/^USER\t/ { print $2 + 0 }' "$T/mu.out") &&
		grep -q "User process data pages : $(printf '0x%016x' "${n:-0}")" "$T/dry.log"; then
		ok "$TAG-mem-usage ($n user pages)"
	else notok "$TAG-mem-usage" "$(head -n 8 "$T/mu.out" | tr '\n' ' ')"; fi
	[ "$UPSTREAM" = yes ] || return 0
	# ---- byte for byte against upstream's own arm64 build ------------------
	if ! command -v qemu-aarch64 >/dev/null 2>&1; then
		skip "$TAG-upstream-bytes" "no qemu-aarch64 (apt-get install qemu-user)"
	elif [ ! -f "$CACHE/upstream-staged" ] && ! stage_upstream; then
		skip "$TAG-upstream-bytes" "cannot fetch makedumpfile:arm64: $(tail -n 1 "$T/apt-up.log" 2>/dev/null)"
	else
		UP=(qemu-aarch64 -L "$CACHE/upstream" "$CACHE/upstream/usr/bin/makedumpfile")
		ver=$("${UP[@]}" -v 2>&1 | head -n 1)
		for opt in "-l -d 31" "-c -d 31" "-E -d 31" "-l -d 2" "-l -d 4" "-l -d 8" "-l -d 16"; do
			tag="$TAG-upstream-bytes ${opt// /}"
			rm -f "$T/up.out" "$T/our.out"
			# shellcheck disable=SC2086
			if ! "${UP[@]}" $opt "$ELF" "$T/up.out" >"$T/up.log" 2>&1; then
				notok "$tag" "$ver: $(tail -n 2 "$T/up.log" | tr '\n' ' ')"
				continue
			fi
			# shellcheck disable=SC2086
			"$MDF" $opt "$ELF" "$T/our.out" >/dev/null 2>&1
			if [ "$opt" = "-c -d 31" ]; then
				# libdeflate writes other zlib bytes than zlib's deflate: the
				# same dump, compared field by field and page by page.
				if why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" "$T/our.out" "$T/up.out" 2>&1)
				then ok "$tag ($why, $ver)"; else notok "$tag" "$why"; fi
			elif cmp -s "$T/up.out" "$T/our.out"; then ok "$tag ($(stat -c %s "$T/our.out") bytes, $ver)"
			else notok "$tag" "$(cmp "$T/up.out" "$T/our.out" 2>&1 | head -n 1)"; fi
		done
		rm -f "$T/up.out" "$T/our.out"
	fi
}

if [ -n "${MDF_ARM64_VMCORE:-}" ]; then
	[ -f "$MDF_ARM64_VMCORE" ] || { notok "arm64-vmcore" "no $MDF_ARM64_VMCORE"; exit 0; }
	# 1.7.2 reads 48-bit kernels only (not the LPA2 ones).
	up=no
	strings -n 8 "$MDF_ARM64_VMCORE" | head -c 4000000 | grep -qx 'NUMBER(VA_BITS)=48' && up=yes
	check_dump "$MDF_ARM64_VMCORE" arm64 $up
	exit 0
fi
missing=""
for t in qemu-system-aarch64 aarch64-linux-gnu-gcc cpio gzip mkfs.ext4 debugfs xz readelf file \
	python3 gcc busybox apt-get dpkg; do
	command -v $t >/dev/null 2>&1 || missing="$missing $t"
done
if [ -n "$missing" ]; then
	skip "arm64" "missing:$missing (apt-get install qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross busybox-static cpio)"
	exit 0
fi
if [ ! -f "$LABDIR/mkvmcore.sh" ]; then
	skip "arm64" "no $LABDIR/mkvmcore.sh (the lab lives in ../shared beside the clone)"
	exit 0
fi
if [ ! -f "$CACHE/staged" ] && ! stage; then
	skip "arm64" "cannot fetch the arm64 packages: $(tail -n 2 "$T/apt.log" 2>/dev/null | tr '\n' ' ')"
	exit 0
fi
if lab_run "$CACHE/kernel" mdf-arm64; then
	check_dump "$T/lab/vmcores/mdf-arm64.elf" arm64 yes
	rm -f "$T"/lab/vmcores/mdf-arm64.elf "$T"/d.* "$T"/*.l
fi
if [ ! -f "$CACHE/staged16k" ] && ! stage_16k; then
	skip "arm64-16k" "cannot fetch trixie's arm64-16k kernel: $(tail -n 2 "$T/apt16.log" 2>/dev/null | tr '\n' ' ')"
elif lab_run "$CACHE/kernel16k" mdf-arm64-16k; then
	check_dump "$T/lab/vmcores/mdf-arm64-16k.elf" arm64-16k no
fi
exit 0
