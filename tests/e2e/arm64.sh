#!/bin/bash
# A real arm64 kdump: the lab (../shared/lab/mkvmcore.sh --arch arm64) boots
# Debian's arm64 6.1 kernel under qemu (TCG), fills its memory, snapshots
# /proc/kpageflags and crashes it; the capture kernel copies /proc/vmcore
# out.  Our x86_64 binary then filters that arm64 dump:
#  - page classes at -d 31 agree with the kpageflags oracle (kpf-oracle.py)
#    up to the pages that changed between the snapshot and the crash;
#  - every page of the -l and -c output equals the vmcore's (kdump.py), and
#    libkdumpfile and drgn read our -l and -E files, kernel addresses included;
#  - --num-threads 2, refiltering, -F | -R and --dump-dmesg (the lab's
#    marker) agree with the direct runs; --mem-usage equals the report;
#  - Debian's makedumpfile 1.7.2 for arm64, run under qemu-user
#    (qemu-aarch64 -L with its libraries), writes byte for byte the same
#    -l, -c and -E files at dump levels 2, 4, 8, 16 and 31.
# Takes about 2 minutes (downloads on the first run), so it only runs with
# MDF_ARM64_TEST=1.  Needs qemu-system-arm, gcc-aarch64-linux-gnu and the
# lab's tools; the arm64 kernel, busybox and kexec-tools are fetched with
# apt-get download into MDF_ARM64_CACHE (default /var/tmp/mdf-arm64), never
# installed.  MDF_ARM64_VMCORE=NAME.elf (made by the lab, with its NAME.d
# and NAME.json beside it) skips the qemu run.
. "$(dirname "$0")/../lib.sh"
LABDIR="$MDF_SHARED/lab"
NAME=mdf-arm64
CACHE=${MDF_ARM64_CACHE:-/var/tmp/mdf-arm64}

if [ "${MDF_ARM64_TEST:-0}" != 1 ] && [ -z "${MDF_ARM64_VMCORE:-}" ]; then
	skip "arm64" "a real arm64 kdump under qemu takes ~2 min; run with MDF_ARM64_TEST=1 make check TESTS=arm64"
	exit 0
fi

# ---- the vmcore ------------------------------------------------------
stage() { # fetch and unpack the arm64 kernel and user space into $CACHE
	local AA k
	mkdir -p "$CACHE/apt/lists/partial" "$CACHE/apt/cache" "$CACHE/debs" "$CACHE/kdeb" || return 1
	touch "$CACHE/apt/status"
	cat >"$CACHE/apt/sources.list" <<'EOF'
deb [trusted=yes] http://deb.debian.org/debian bookworm main
deb [trusted=yes] http://deb.debian.org/debian-security bookworm-security main
EOF
	AA=(-o APT::Architecture=arm64 -o APT::Architectures=arm64
	    -o Dir::Etc::sourcelist="$CACHE/apt/sources.list" -o Dir::Etc::sourceparts=-
	    -o Dir::State::Lists="$CACHE/apt/lists" -o Dir::State::status="$CACHE/apt/status"
	    -o Dir::Cache="$CACHE/apt/cache")
	apt-get "${AA[@]}" update >"$T/apt.log" 2>&1 || return 1
	k=$(apt-cache "${AA[@]}" search '^linux-image-6\.1\.0-[0-9]*-arm64$' 2>/dev/null |
		awk '{print $1}' | sort -V | tail -n 1)
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
	local AA=(-o APT::Architecture=arm64 -o APT::Architectures=arm64
		  -o Dir::Etc::sourcelist="$CACHE/apt/sources.list" -o Dir::Etc::sourceparts=-
		  -o Dir::State::Lists="$CACHE/apt/lists" -o Dir::State::status="$CACHE/apt/status"
		  -o Dir::Cache="$CACHE/apt/cache")
	mkdir -p "$CACHE/updebs" || return 1
	(cd "$CACHE/updebs" && apt-get "${AA[@]}" download makedumpfile libc6 libdw1 libelf1 \
		liblzo2-2 zlib1g liblzma5 libbz2-1.0 libzstd1) >"$T/apt-up.log" 2>&1 || return 1
	rm -rf "$CACHE/upstream"
	for d in "$CACHE"/updebs/*.deb; do dpkg -x "$d" "$CACHE/upstream" || return 1; done
	touch "$CACHE/upstream-staged"
}

if [ -n "${MDF_ARM64_VMCORE:-}" ]; then
	ELF=$MDF_ARM64_VMCORE
	NAME=$(basename "$ELF" .elf)
	OUTDIR=$(dirname "$ELF")
	[ -f "$ELF" ] || { notok "arm64-vmcore" "no $ELF"; exit 0; }
else
	missing=""
	for t in qemu-system-aarch64 aarch64-linux-gnu-gcc cpio gzip mkfs.ext4 debugfs xz readelf file \
		python3 gcc busybox apt-get dpkg; do
		command -v $t >/dev/null 2>&1 || missing="$missing $t"
	done
	if [ -n "$missing" ]; then
		skip "arm64" "missing:$missing (apt-get install qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross busybox-static cpio)"
		exit 0
	fi
	if [ ! -f "$CACHE/staged" ] && ! stage; then
		skip "arm64" "cannot fetch the arm64 packages: $(tail -n 2 "$T/apt.log" 2>/dev/null | tr '\n' ' ')"
		exit 0
	fi
	t0=$SECONDS
	LAB_DATA="$T/lab" bash "$LABDIR/mkvmcore.sh" --arch arm64 --arm64-root "$CACHE/stage" \
		--kernel "$CACHE/kernel" --name $NAME --mem 1G --timeout 900 >"$T/lab.log" 2>&1
	rc=$?
	echo "# lab run: rc $rc in $((SECONDS - t0)) s"
	OUTDIR="$T/lab/vmcores"
	ELF="$OUTDIR/$NAME.elf"
	if [ $rc -ne 0 ] || [ ! -f "$ELF" ]; then
		notok "arm64-lab-run" "mkvmcore.sh rc $rc: $(tail -n 5 "$T/lab.log" | tr '\n' ' ')"
		exit 0
	fi
	rm -rf "$T/lab/runs"
fi
machine=$(readelf -h "$ELF" 2>/dev/null | sed -n 's/^ *Machine: *//p')
ok "arm64-lab-run ($(stat -c %s "$ELF") byte vmcore, $machine, kernel $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("kernel_version", "?"))' "$OUTDIR/$NAME.json" 2>/dev/null))"

# ---- page classes against the kpageflags oracle ----------------------
if ! "$MDF" --dry-run -d 31 --message-level 16 "$ELF" >"$T/dry.log" 2>&1; then
	notok "arm64-classes" "--dry-run: $(tail -n 1 "$T/dry.log")"
elif ! LAB_DATA=$(dirname "$OUTDIR") python3 "$LABDIR/kpf-oracle.py" "$NAME" --json >"$T/kpf.json" 2>"$T/kpf.err"; then
	skip "arm64-classes" "kpf-oracle.py: $(tail -n 1 "$T/kpf.err")"
else
	why=$(python3 - "$T/kpf.json" "$T/dry.log" <<'PY'
import json, re, sys
want = json.load(open(sys.argv[1]))["makedumpfile_classes_in_vmcore"]
log = open(sys.argv[2]).read()
labels = {"cache": "Non-private cache pages", "cache_private": "Private cache pages",
          "user": "User process data pages", "free": "Free pages"}
bad, seen = [], []
for k, lab in labels.items():
    m = re.search(re.escape(lab) + r"\s*: 0x([0-9a-f]+)", log)
    got = int(m.group(1), 16) if m else -1
    seen.append("%s %d/%d" % (k, got, want[k]))
    # The snapshot is taken while the workload runs: some pages move
    # between it and the crash (tens of pages in the lab's runs).
    if abs(got - want[k]) > max(64, want[k] // 100):
        bad.append("%s %d, oracle %d" % (k, got, want[k]))
print(("BAD " + "; ".join(bad)) if bad else ", ".join(seen))
PY
)
	case "$why" in
	BAD*) notok "arm64-classes-vs-kpageflags" "${why#BAD }" ;;
	*) ok "arm64-classes-vs-kpageflags ($why)" ;;
	esac
fi

# ---- output, read back by independent readers ------------------------
"$MDF" -l -d 31 "$ELF" "$T/d.l" >"$T/l.log" 2>&1 || notok "arm64-l" "$(tail -n 1 "$T/l.log")"
"$MDF" -c -d 31 "$ELF" "$T/d.c" >"$T/c.log" 2>&1 || notok "arm64-c" "$(tail -n 1 "$T/c.log")"
"$MDF" -E -d 31 "$ELF" "$T/d.E" >"$T/E.log" 2>&1 || notok "arm64-E" "$(tail -n 1 "$T/E.log")"
for f in l c; do
	if out=$(python3 "$MDF_SHARED/tools/kdump.py" pages "$T/d.$f" "$ELF" 2>&1) &&
		[[ "$out" == *" 0 differ"* ]]; then ok "arm64-$f-pages-equal-vmcore ($(tail -n 1 <<<"$out"))"
	else notok "arm64-$f-pages-equal-vmcore" "$(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
done
uts=$(sed -n 's/^SYMBOL(init_uts_ns)=//p' <<<"$(strings -n 8 "$ELF" | head -c 2000000 | grep -m 1 '^SYMBOL(init_uts_ns)=')")
if /usr/bin/python3 -c 'import kdumpfile' 2>/dev/null; then
	out=$(/usr/bin/python3 - "$T/d.l" "$T/d.E" "$uts" <<'PY' 2>&1
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
	if [[ "$out" == "l aarch64 Linux, E aarch64 Linux" ]]; then ok "arm64-libkdumpfile-reads ($out)"
	else notok "arm64-libkdumpfile-reads" "$out"; fi
else
	skip "arm64-libkdumpfile-reads" "python3-libkdumpfile not installed"
fi
if /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
	out=$(/usr/bin/python3 - "$T/d.l" "$T/d.E" "$uts" <<'PY' 2>&1
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
	if [[ "$out" == "l AARCH64 Linux, E AARCH64 Linux" ]]; then ok "arm64-drgn-reads ($out)"
	else notok "arm64-drgn-reads" "$out"; fi
else
	skip "arm64-drgn-reads" "python3-drgn not installed"
fi

# ---- the other paths agree with the direct run -----------------------
same() { # NAME FILE: FILE equals $T/d.l
	if cmp -s "$2" "$T/d.l"; then ok "$1"; else notok "$1" "$(cmp "$2" "$T/d.l" 2>&1 | head -n 1)"; fi
}
"$MDF" -l -d 31 --num-threads 2 "$ELF" "$T/t2.l" >/dev/null 2>&1
same "arm64-threads-same-bytes" "$T/t2.l"
"$MDF" -l -d 31 "$T/d.c" "$T/re.l" >"$T/re.log" 2>&1
same "arm64-refilter-same-bytes" "$T/re.l"
"$MDF" -F -l -d 31 "$ELF" 2>/dev/null | "$MDF" -R "$T/fr.l" >/dev/null 2>&1
same "arm64-flat-R-same-bytes" "$T/fr.l"
marker=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["marker"])' "$OUTDIR/$NAME.json" 2>/dev/null)
if "$MDF" --dump-dmesg "$T/d.l" "$T/dmesg.txt" >"$T/dm.log" 2>&1 &&
	{ [ -z "$marker" ] || grep -qF "$marker stage=crash" "$T/dmesg.txt"; }; then
	ok "arm64-dump-dmesg-marker"
else notok "arm64-dump-dmesg-marker" "$(tail -n 1 "$T/dm.log") marker '$marker'"; fi
if "$MDF" --mem-usage "$ELF" >"$T/mu.out" 2>/dev/null &&
	n=$(awk -F'\t+' '/^USER\t/ { print $2 + 0 }' "$T/mu.out") &&
	grep -q "User process data pages : $(printf '0x%016x' "${n:-0}")" "$T/dry.log"; then
	ok "arm64-mem-usage ($n user pages)"
else notok "arm64-mem-usage" "$(head -n 8 "$T/mu.out" | tr '\n' ' ')"; fi
# ---- byte for byte against upstream's own arm64 build ------------------
if ! command -v qemu-aarch64 >/dev/null 2>&1; then
	skip "arm64-upstream-bytes" "no qemu-aarch64 (apt-get install qemu-user)"
elif [ ! -f "$CACHE/upstream-staged" ] && ! stage_upstream; then
	skip "arm64-upstream-bytes" "cannot fetch makedumpfile:arm64: $(tail -n 1 "$T/apt-up.log" 2>/dev/null)"
else
	UP=(qemu-aarch64 -L "$CACHE/upstream" "$CACHE/upstream/usr/bin/makedumpfile")
	ver=$("${UP[@]}" -v 2>&1 | head -n 1)
	for opt in "-l -d 31" "-c -d 31" "-E -d 31" "-l -d 2" "-l -d 4" "-l -d 8" "-l -d 16"; do
		tag="arm64-upstream-bytes ${opt// /}"
		rm -f "$T/up.out" "$T/our.out"
		# shellcheck disable=SC2086
		if ! "${UP[@]}" $opt "$ELF" "$T/up.out" >"$T/up.log" 2>&1; then
			notok "$tag" "$ver: $(tail -n 2 "$T/up.log" | tr '\n' ' ')"
			continue
		fi
		# shellcheck disable=SC2086
		"$MDF" $opt "$ELF" "$T/our.out" >/dev/null 2>&1
		if cmp -s "$T/up.out" "$T/our.out"; then ok "$tag ($(stat -c %s "$T/our.out") bytes, $ver)"
		else notok "$tag" "$(cmp "$T/up.out" "$T/our.out" 2>&1 | head -n 1)"; fi
	done
	rm -f "$T/up.out" "$T/our.out"
fi
exit 0
