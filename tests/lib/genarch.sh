# tests/lib/genarch.sh - sourced by the per-architecture generator tests
# (tests/e2e/gen_arm64.sh, gen_riscv64.sh, gen_ppc64.sh, gen_s390x.sh,
# gen_x86.sh, gen_arm.sh, gen_loongarch64.sh)
# after lib.sh: the checks every architecture's synthetic dump gets once
# its own shape is checked, and the names they share: GEN (the generator)
# and genspec_kinds (genspec.sh), KPY (the independent kdump reader;
# little-endian dumps only), KPAGES (its page check for either byte order,
# tests/tools/kdump_pages.py), V (the main dump) and HAVE_PY.
. "$(dirname "${BASH_SOURCE[0]}")/genspec.sh"
KPY="$MDF_SHARED/tools/kdump.py"
KPAGES="$MDF_SRC/tests/tools/kdump_pages.py"
V="$T/vmcore"
HAVE_PY=1
command -v python3 >/dev/null || HAVE_PY=

# genarch_make NAME MACHINE [ENDIAN]: the generator makes $V (and its
# reference bitmaps in $T/ref) from $T/spec, "gen-NAME"; readelf -h says
# Machine MACHINE and, when given, "ENDIAN endian" data.  False when the
# generator failed (the caller stops there).
genarch_make() {
	if ! "$GEN" "$T/spec" "$V" --ref "$T/ref" >"$T/gen.log" 2>&1; then
		notok "gen-$1" "mkvmcore failed: $(tail -n1 "$T/gen.log")"; return 1
	fi
	ok "gen-$1"
	if readelf -h "$V" 2>/dev/null | grep -q "Machine: *$2" &&
		{ [ -z "${3:-}" ] || readelf -h "$V" 2>/dev/null | grep -q "Data: .*$3 endian"; }
	then ok "gen-$1-elf-machine"
	else notok "gen-$1-elf-machine" "$(readelf -h "$V" 2>&1 | grep -iE 'machine|data')"; fi
}

# genarch_variant TAG SPEC: the generator makes $T/v.TAG and its reference
# bitmaps in $T/ref.TAG from SPEC, "gen-TAG"; false when it failed.
genarch_variant() {
	if ! "$GEN" "$2" "$T/v.$1" --ref "$T/ref.$1" >"$T/gen.$1.log" 2>&1; then
		notok "gen-$1" "mkvmcore failed: $(tail -n1 "$T/gen.$1.log")"; return 1
	fi
	ok "gen-$1"
}

# genarch_refs NAME DIR: DIR has bitmap1 and the dL.bitmap2 of levels 0 1
# 2 4 8 16 31, "NAME".
genarch_refs() {
	local missing="" l
	for l in 0 1 2 4 8 16 31; do
		[ -s "$2/d$l.bitmap2" ] || missing="$missing d$l"
	done
	if [ -z "$missing" ] && [ -s "$2/bitmap1" ]; then ok "$1 (bitmap1, d0-d31)"
	else notok "$1" "no reference bitmap for${missing:- bitmap1}"; fi
}

# genarch_layout NAME SCRIPT ARG...: python3 SCRIPT ARG... prints a line
# starting "leaves" when the dump has the shape it checks (else why not),
# "NAME (that line)".
genarch_layout() {
	local name=$1 why
	shift
	if [ -z "$HAVE_PY" ]; then skip "$name" "no python3"; return; fi
	why=$(python3 "$@" 2>&1)
	if [[ "$why" == leaves* ]]; then ok "$name ($why)"; else notok "$name" "$why"; fi
}

# genarch_dmesg_want SPEC OUT: SPEC's dmesg lines as --dump-dmesg prints
# them, record i at (i + 1) * 0.1 s + i us (tests/gen/README.md).
genarch_dmesg_want() {
	awk '$1 == "dmesg" { sub(/^dmesg /, ""); us = (n + 1) * 100000 + n++
		printf "[%5d.%06d] %s\n", int(us / 1000000), us % 1000000, $0 }' "$1" >"$2"
}

# genarch_spec_errors NAME 'SPEC|MESSAGE'...: each SPEC (lines joined by
# \n) is refused, exit 1 and "mkvmcore: -: spec:...MESSAGE...",
# "gen-NAME-spec-error-N".
genarch_spec_errors() {
	local name=$1 n=0 s out rc
	shift
	for s in "$@"; do
		n=$((n + 1))
		out=$(printf "${s%|*}\n" | "$GEN" - "$T/err.elf" 2>&1); rc=$?
		if [ $rc = 1 ] && [[ "$out" == "mkvmcore: -: spec:"*"${s##*|}"* ]]; then ok "gen-$name-spec-error-$n"
		else notok "gen-$name-spec-error-$n" "'${s%|*}': rc $rc: $out"; fi
	done
	rm -f "$T/err.elf"
}

# genarch_big VMCORE: true if the ELF file is big-endian (EI_DATA 2).
genarch_big() {
	[ "$(od -An -tu1 -j5 -N1 "$1" 2>/dev/null | tr -d ' ')" = 2 ]
}

# genarch_pages KDUMP VMCORE: the independent page check of a kdump file
# against its ELF ("... N differ"): kdump.py for a little-endian ELF64
# dump, kdump_pages.py for a big-endian or ELF32 one (kdump.py reads only
# the former).
genarch_pages() {
	# ELF32, or an i386 or arm kernel's (EM_386 or EM_ARM, ELF64 past
	# 4 GiB: its kdump file has 32-bit headers, and arm's pfns count from
	# PHYS_OFFSET, which ../shared/tools/kdump.py does not read)
	local mach
	mach=$(od -An -tu2 -j18 -N2 "$2" 2>/dev/null | tr -d ' ')
	if genarch_big "$2" || [ "$(od -An -tu1 -j4 -N1 "$2" 2>/dev/null | tr -d ' ')" = 1 ] ||
		[ "$mach" = 3 ] || [ "$mach" = 40 ]; then
		python3 "$KPAGES" pages "$1" "$2"
	else python3 "$KPY" pages "$1" "$2"; fi
}

# genarch_l_d31 TAG VMCORE UTS: -l -d 31 keeps every page as in the ELF,
# the kdump header's utsname.machine is UTS, two threads give the same file
# and refiltering at the same level changes nothing.  Leaves $T/d31.
genarch_l_d31() {
	local tag=$1 v=$2 uts=$3 out m
	rm -f "$T/d31" "$T/d31t" "$T/r31"   # a second machine in the same test
	if ! "$MDF" -l -d 31 --message-level 0 "$v" "$T/d31" >"$T/l.log" 2>&1; then
		notok "$tag-l-d31" "exit: $(tail -n1 "$T/l.log")"
		return
	fi
	if [ ! -f "$KPY" ] || [ -z "$HAVE_PY" ]; then
		skip "$tag-l-d31-pages" "no $KPY (or python3)"
	elif out=$(genarch_pages "$T/d31" "$v" 2>&1) && [[ "$out" == *" 0 differ"* ]]; then
		ok "$tag-l-d31-pages ($(echo "$out" | tail -n1))"
	else notok "$tag-l-d31-pages" "$(echo "$out" | tail -n2 | tr '\n' ' ')"; fi
	m=$(dd if="$T/d31" bs=1 skip=$((12 + 4 * 65)) count=$((${#uts} + 1)) 2>/dev/null | tr -d '\0')
	if [ "$m" = "$uts" ]; then ok "$tag-l-d31-utsname"; else notok "$tag-l-d31-utsname" "machine '$m'"; fi
	if "$MDF" -l -d 31 --num-threads 2 --message-level 0 "$v" "$T/d31t" >"$T/t.log" 2>&1 &&
		cmp -s "$T/d31" "$T/d31t"; then ok "$tag-l-d31-num-threads-2"
	else notok "$tag-l-d31-num-threads-2" "$(tail -n1 "$T/t.log") $(cmp "$T/d31" "$T/d31t" 2>&1 | head -n1)"; fi
	if "$MDF" -l -d 31 --message-level 0 "$T/d31" "$T/r31" >"$T/r.log" 2>&1 &&
		cmp -s "$T/d31" "$T/r31"; then ok "$tag-refilter-l-d31"
	else notok "$tag-refilter-l-d31" "$(tail -n1 "$T/r.log") $(cmp "$T/d31" "$T/r31" 2>&1 | head -n1)"; fi
	rm -f "$T/d31t" "$T/r31"
}

# genarch_E_d31 TAG VMCORE MACHINE: -E -d 31 writes an ELF of readelf's
# MACHINE ("AArch64", "RISC-V", "PowerPC64", "IBM S/390") in the input's
# byte order, whose data equals the input's at the same physical addresses.
genarch_E_d31() {
	local tag=$1 v=$2 mach=$3 why
	if ! "$MDF" -E -d 31 --message-level 0 "$v" "$T/e31" >"$T/e.log" 2>&1; then
		notok "$tag-E-d31" "exit: $(tail -n1 "$T/e.log")"
		return
	fi
	if ! readelf -h "$T/e31" 2>/dev/null | grep -q "Machine: *$mach"; then
		notok "$tag-E-d31" "output is not $mach"
	elif [ -z "$HAVE_PY" ]; then
		skip "$tag-E-d31" "no python3 to check the contents"
	else
		why=$(python3 - "$T/e31" "$v" <<'PY' 2>&1
import mmap, struct, sys
def loads(path):
    f = open(path, "rb"); d = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    e = "<" if d[5] == 1 else ">"
    if d[4] == 1:    # ELF32 (i386)
        phoff, = struct.unpack_from(e + "I", d, 28); n, = struct.unpack_from(e + "H", d, 44)
    else:
        phoff, = struct.unpack_from(e + "Q", d, 32); n, = struct.unpack_from(e + "H", d, 56)
    out = []
    for i in range(n):
        if d[4] == 1:
            t, off, va, pa, fs, ms, fl, al = struct.unpack_from(e + "IIIIIIII", d, phoff + 32 * i)
        else:
            t, fl, off, va, pa, fs, ms, al = struct.unpack_from(e + "IIQQQQQQ", d, phoff + 56 * i)
        if t == 1: out.append((va, pa, fs, off))
    return d, out
od, ol = loads(sys.argv[1]); idata, il = loads(sys.argv[2])
if od[5] != idata[5]:
    print("output EI_DATA %d, input %d" % (od[5], idata[5])); sys.exit()
bad, n = 0, 0
for va, pa, fs, off in ol:
    src = [s for s in il if s[0] - s[1] == va - pa and s[1] <= pa and pa + fs <= s[1] + s[2]]
    if not src: bad += 1; continue
    s = src[0]; n += fs
    if od[off:off + fs] != idata[s[3] + pa - s[1]:s[3] + pa - s[1] + fs]: bad += 1
print("%d of %d PT_LOADs differ" % (bad, len(ol)) if bad or not n else "")
PY
)
		if [ -z "$why" ]; then ok "$tag-E-d31"; else notok "$tag-E-d31" "$why"; fi
	fi
	rm -f "$T/e31"
}

# genarch_mem_usage TAG VMCORE WANT: --mem-usage's cache and user rows are
# WANT ("NON_PRI_CACHE=N PRI_CACHE=N USER=N", the pages the spec declares).
genarch_mem_usage() {
	local tag=$1 v=$2 want=$3 got
	if "$MDF" --mem-usage "$v" >"$T/mu.out" 2>"$T/mu.err"; then
		got=$(awk -F'\t+' '/^(NON_PRI_CACHE|PRI_CACHE|USER)\t/ { sub(/ +$/, "", $2); printf "%s%s=%s", sep, $1, $2; sep=" " }' "$T/mu.out")
		if [ "$got" = "$want" ]; then ok "$tag-mem-usage ($got)"
		else notok "$tag-mem-usage" "got '$got', want '$want'"; fi
	else
		notok "$tag-mem-usage" "exit: $(tail -n1 "$T/mu.err")"
	fi
}

# genarch_bitmaps NAME VMCORE REFDIR LEVEL...: at each dump level the
# dry-run's dumpable and present bitmaps equal the generator's reference
# (REFDIR/dL.bitmap2, REFDIR/bitmap1); one ok or not-ok line named NAME.
genarch_bitmaps() {
	local name=$1 v=$2 ref=$3 bad="" l
	shift 3
	for l in "$@"; do
		"$MDF" -f --dry-run --message-level 0 -d "$l" --debug-bitmap "$T/gb2.$l" \
			--debug-bitmap1 "$T/gb1" "$v" >"$T/gdry.log" 2>&1 ||
			{ bad="$bad d$l:exit($(tail -n1 "$T/gdry.log"))"; continue; }
		cmp -s "$T/gb2.$l" "$ref/d$l.bitmap2" || bad="$bad d$l:bitmap2 differs from the reference"
		cmp -s "$T/gb1" "$ref/bitmap1" || bad="$bad d$l:bitmap1 differs from the reference"
		rm -f "$T/gb2.$l"
	done
	if [ -z "$bad" ]; then ok "$name"; else notok "$name" "${bad# }"; fi
}
