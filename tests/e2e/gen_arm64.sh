#!/bin/bash
# arm64 dumps from the synthetic generator (tests/gen, "arch arm64": Debian
# 6.1 layout, 4 KiB granule, VA_BITS=48, KASLR): the generator's own shape
# (ELF machine, VMCOREINFO, an independent stage-1 walk in python), then the
# program on it: dry-run bitmaps equal the reference at every level, the -l
# dump's pages equal the ELF and do not depend on threads, -E, refiltering,
# and --mem-usage rows equal what the spec declares.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genarch.sh"

# 256 MiB in two ranges with a gap; the image (pa 0x6000000) in the first,
# its va the lab dump's (KERNELOFFSET 0x46fdd7000000).
{ cat <<'SPEC'
arch arm64
kernel 6.1
cpus 2
kaslr 0x46fdd7000000
phys_base 0x5000000
ram 0x100000 +128M
ram 0xa000000 +128M
SPEC
genspec_kinds
cat <<'SPEC'
pages 0xb000+64 kernel random 4
pages 0xc000+512 cache text 5
pages 0xd000+512 thp order=9 random 6
pages 0xe000+128 anon random 7
SPEC
} >"$T/spec"
# What the spec declares (genspec_kinds and the lines after it), as
# --mem-usage counts it.
WANT_ROWS="NON_PRI_CACHE=$((256 + 64 + 512)) PRI_CACHE=256 USER=$((512 + 1024 + 512 + 1 + 512 + 128))"

genarch_make arm64 AArch64 || exit 0

# The generator's arm64 shape, read without the program: VMCOREINFO lines,
# PT_LOAD offsets, and a stage-1 walk from swapper_pg_dir to struct pages.
cat >"$T/layout.py" <<'PY'
import os, mmap, struct, sys
sys.path.insert(0, os.path.join(os.environ["MDF_SRC"], "tests", "tools"))
from vmcore_layout import read_vmcore
d, loads, vmi, prs = read_vmcore(sys.argv[1])
bad = []
def need(cond, msg):
    if not cond: bad.append(msg)
def rpa(pa, n):
    for va, p, fs, off in loads[1:]:
        if p <= pa and pa + n <= p + fs:
            return d[off + pa - p:off + pa - p + n]
    raise SystemExit("paddr %#x not in a RAM PT_LOAD" % pa)
u64 = lambda pa: struct.unpack("<Q", rpa(pa, 8))[0]
want = {"NUMBER(VA_BITS)": "48", "NUMBER(PHYS_OFFSET)": "0x0", "NUMBER(TCR_EL1_T1SZ)": "0x10",
        "KERNELOFFSET": "46fdd7000000", "NUMBER(KERNELPACMASK)": "0xffff000000000000",
        "NUMBER(MAX_PHYSMEM_BITS)": "48", "LENGTH(mem_section)": "16384",
        "OSRELEASE": "6.1.0-57-arm64", "NUMBER(VMEMMAP_START)": "0xfffffc0000000000"}
for k, v in want.items():
    need(vmi.get(k) == v, "%s=%s, want %s" % (k, vmi.get(k), v))
for k in ("NUMBER(phys_base)", "SYMBOL(init_top_pgt)", "NUMBER(pgtable_l5_enabled)",
          "NUMBER(KERNEL_IMAGE_SIZE)", "NUMBER(sme_mask)"):
    need(k not in vmi, "x86 line %s" % k)
need(prs == [392, 392], "NT_PRSTATUS sizes %s" % prs)
kvo = int(vmi["NUMBER(kimage_voffset)"], 16)
tva, tpa = loads[0][0], loads[0][1]
need(tva == 0xffff800008000000 + 0x46fdd7000000 and tpa == int(sys.argv[2], 0) and tva - tpa == kvo,
     "image PT_LOAD %#x -> %#x, kimage_voffset %#x" % (tva, tpa, kvo))
need(all(va - pa == 0xffff000000000000 for va, pa, fs, off in loads[1:]), "linear map offsets")
need(rpa(tpa + 0x3000, 4096) == d[loads[0][3] + 0x3000:loads[0][3] + 0x4000], "image alias")
pgd = int(vmi["SYMBOL(swapper_pg_dir)"], 16) - kvo
def walk(va):
    t = pgd
    for level, shift in enumerate((39, 30, 21, 12)):
        e = u64(t + 8 * ((va >> shift) & 511))
        oa = e & 0x0000fffffffff000
        if not e & 1:
            raise SystemExit("va %#x: invalid entry %#x at level %d" % (va, e, level))
        if level == 3 or e & 3 == 1:    # page, or block (PUD/PMD)
            need(e & 3 == (3 if level == 3 else 1) and level > 0, "leaf %#x at level %d" % (e, level))
            need(e & 0x700 == 0x700, "leaf %#x without AF/SH" % e)
            return (oa & ~((1 << shift) - 1)) | (va & ((1 << shift) - 1))
        need(e == oa | 3, "table descriptor %#x at level %d" % (e, level))
        t = oa
def page(pfn):
    sec = pfn >> 15
    po = 0xffff000000000000
    root = u64(int(vmi["SYMBOL(mem_section)"], 16) - po + 8 * (sec // 128))
    smm = u64(root - po + 32 * (sec % 128))
    need(smm & ~0x1f == 0xfffffc0000000000, "section_mem_map %#x" % smm)
    return struct.unpack_from("<Q", rpa(walk((smm & ~0x1f) + 64 * pfn), 64))[0]
for pfn in (0x2000, 0x2200, 0xe000):   # anon, cache, anon above the gap
    need(page(pfn) >> int(vmi["NUMBER(PG_lru)"]) & 1, "pfn %#x: no PG_lru" % pfn)
need(page(0x2c10) >> int(vmi["NUMBER(PG_hwpoison)"]) & 1, "pfn 0x2c10: no PG_hwpoison (22)")
need(walk(int(vmi["SYMBOL(swapper_pg_dir)"], 16)) == pgd, "the image mapping")
uts = rpa(int(vmi["SYMBOL(init_uts_ns)"], 16) - kvo, 390)
need(uts[4 * 65:4 * 65 + 8] == b"aarch64\0", "utsname.machine %r" % uts[260:268])
print("; ".join(bad))
PY
layout() { # NAME VMCORE IMAGE-PADDR
	if [ -z "$HAVE_PY" ]; then skip "$1" "no python3"; return; fi
	local why
	why=$(python3 "$T/layout.py" "$2" "$3" 2>&1)
	if [ -z "$why" ]; then ok "$1"; else notok "$1" "$why"; fi
}
layout gen-arm64-layout "$V" 0x6000000

# Bad specs: an arm64 kernel the generator has no preset for, an unknown arch.
n=0
for s in 'arch arm64\nkernel 6.12\nram 0 1G' 'kernel 5.10\narch arm64\nram 0 1G' 'arch armv7\nram 0 1G'; do
	n=$((n + 1))
	out=$(printf "$s\n" | "$GEN" - "$T/err.elf" 2>&1); rc=$?
	if [ $rc = 1 ] && [[ "$out" == "mkvmcore: -: spec:"*arch* ]]; then ok "gen-arm64-spec-error-$n"
	else notok "gen-arm64-spec-error-$n" "'$s': rc $rc: $out"; fi
done
rm -f "$T/err.elf"

# Dry-run bitmaps against the reference, level by level.
for l in 0 1 2 4 8 16 31; do
	genarch_bitmaps "arm64-dry-run-d$l" "$V" "$T/ref" $l
done

# The same machine with vmemmap in 4 KiB pages and an image not 2 MiB
# aligned (4 KiB pages there too): the walk reaches the last level.
sed -e 's/^phys_base .*/phys_base 0x5010000\nvmemmap_pte 4k/' "$T/spec" >"$T/spec4k"
if ! "$GEN" "$T/spec4k" "$T/v4k" --ref "$T/ref4k" >"$T/gen4k.log" 2>&1; then
	notok "gen-arm64-4k" "mkvmcore failed: $(tail -n1 "$T/gen4k.log")"
else
	layout gen-arm64-4k-layout "$T/v4k" 0x6010000
	genarch_bitmaps arm64-4k-dry-run "$T/v4k" "$T/ref4k" 0 31
fi
rm -f "$T/v4k"

# -l -d 31, -E -d 31 and --mem-usage (tests/lib/genarch.sh).
genarch_l_d31 arm64 "$V" aarch64

genarch_E_d31 arm64 "$V" AArch64

genarch_mem_usage arm64 "$V" "$WANT_ROWS"
exit 0
