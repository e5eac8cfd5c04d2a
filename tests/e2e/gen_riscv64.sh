#!/bin/bash
# riscv64 dumps from the synthetic generator (tests/gen, "arch riscv64":
# Debian 6.12 under qemu virt, RAM from 0x80000000, Sv57 and with va_bits
# Sv48 and Sv39): the generator's own shape (ELF machine, VMCOREINFO, an
# independent Sv39/48/57 walk in python), then the program on it: dry-run
# bitmaps equal the reference at every level, the -l dump's pages equal the
# ELF and do not depend on threads, -E, refiltering, and --mem-usage rows
# equal what the spec declares.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genarch.sh"

# 256 MiB in two ranges with a gap, from qemu virt's 0x80000000: the image
# at 0x80200000 (after OpenSBI) as on the lab dump, va_kernel_pa_offset
# 0xfffffffeffe00000.  No hwpoison: that kernel has no PG_hwpoison.
cat >"$T/spec" <<'SPEC'
arch riscv64
kernel 6.12
cpus 2
ram 0x80000000 +128M
ram 0x8a000000 +128M
pages 0x82000+512 anon random
pages 0x82200+256 cache text 3
pages 0x82300+256 cache_private byte 0x5a
pages 0x82400+64 swapcache random 9
pages 0x82600+1024 thp order=9 random
pages 0x82a00+512 hugetlb text
pages 0x82c00+16 slab random
pages 0x82c14+4 offline
pages 0x83000+256 free order=8
fill 0x84000+256 zero
pages 0x85000+1 anon zero
pages 0x8b000+64 kernel random 4
pages 0x8c000+512 cache text 5
pages 0x8d000+512 thp order=9 random 6
pages 0x8e000+128 anon random 7
SPEC
# What the spec declares, as --mem-usage counts it.
WANT_ROWS="NON_PRI_CACHE=$((256 + 64 + 512)) PRI_CACHE=256 USER=$((512 + 1024 + 512 + 1 + 512 + 128))"

genarch_make riscv64 RISC-V || exit 0

# The generator's riscv64 shape, read without the program: VMCOREINFO
# lines, PT_LOADs, and a walk of the Sv39/48/57 tables from swapper_pg_dir
# to struct pages.  Arguments: vmcore, image paddr, VA_BITS, phys_ram_base.
cat >"$T/layout.py" <<'PY'
import os, mmap, struct, sys
sys.path.insert(0, os.path.join(os.environ["MDF_SRC"], "tests", "tools"))
from vmcore_layout import read_vmcore
d, loads, vmi, prs = read_vmcore(sys.argv[1])
image_pa, va_bits, ram_base = int(sys.argv[2], 0), int(sys.argv[3]), int(sys.argv[4], 0)
bad = []
def need(cond, msg):
    if not cond: bad.append(msg)
def rpa(pa, n):
    for va, p, fs, off in loads[1:]:
        if p <= pa and pa + n <= p + fs:
            return d[off + pa - p:off + pa - p + n]
    raise SystemExit("paddr %#x not in a RAM PT_LOAD" % pa)
u64 = lambda pa: struct.unpack("<Q", rpa(pa, 8))[0]
num = lambda k: int(vmi[k], 0)
sym = lambda k: int(vmi[k], 16)
# Documentation/arch/riscv/vm-layout.rst: PAGE_OFFSET, VMEMMAP_START, VMALLOC_START.
mode = {57: (0xff60000000000000, 0xff1c000000000000, 0xff20000000000000),
        48: (0xffffaf8000000000, 0xffff8d8000000000, 0xffff8f8000000000),
        39: (0xffffffd600000000, 0xffffffc500000000, 0xffffffc600000000)}[va_bits]
want = {"NUMBER(VA_BITS)": str(va_bits), "NUMBER(phys_ram_base)": str(ram_base),
        "NUMBER(PAGE_OFFSET)": hex(mode[0]), "NUMBER(VMEMMAP_START)": hex(mode[1]),
        "NUMBER(VMALLOC_START)": hex(mode[2]), "NUMBER(VMALLOC_END)": hex(mode[0]),
        "NUMBER(VMEMMAP_END)": hex(mode[2]), "NUMBER(KERNEL_LINK_ADDR)": "0xffffffff80000000",
        "NUMBER(MAX_PHYSMEM_BITS)": "56", "NUMBER(SECTION_SIZE_BITS)": "27",
        "LENGTH(mem_section)": "4194304", "OSRELEASE": "6.12.117+deb13-riscv64",
        "PAGESIZE": "4096", "NUMBER(PG_lru)": "5", "NUMBER(PG_head_mask)": "64"}
for k, v in want.items():
    need(vmi.get(k) == v, "%s=%s, want %s" % (k, vmi.get(k), v))
for k in ("NUMBER(PG_hwpoison)", "NUMBER(phys_base)", "SYMBOL(init_top_pgt)",
          "NUMBER(pgtable_l5_enabled)", "NUMBER(KERNEL_IMAGE_SIZE)", "NUMBER(sme_mask)",
          "KERNELOFFSET", "NUMBER(kimage_voffset)", "NUMBER(PHYS_OFFSET)",
          "NUMBER(TCR_EL1_T1SZ)", "NUMBER(KERNELPACMASK)"):
    need(k not in vmi, "foreign line %s" % k)
need(prs == [376, 376], "NT_PRSTATUS sizes %s" % prs)
need(sym("SYMBOL(vmemmap)") == mode[1] - (ram_base >> 12) * 64,
     "SYMBOL(vmemmap) %s for phys_ram_base %#x" % (vmi["SYMBOL(vmemmap)"], ram_base))
kpo = num("NUMBER(va_kernel_pa_offset)")
tva, tpa, tsize = loads[0][0], loads[0][1], loads[0][2]
need(tva == 0xffffffff80000000 and tpa == image_pa and tva - tpa == kpo,
     "image PT_LOAD %#x -> %#x, va_kernel_pa_offset %#x" % (tva, tpa, kpo))
need(sym("SYMBOL(_stext)") == tva + 0x2000, "_stext %s" % vmi["SYMBOL(_stext)"])
need(num("NUMBER(MODULES_END)") == tva and num("NUMBER(MODULES_VADDR)") == tva + tsize - (1 << 31),
     "MODULES_VADDR/END %s %s" % (vmi["NUMBER(MODULES_VADDR)"], vmi["NUMBER(MODULES_END)"]))
lin = mode[0] - ram_base
need(all(va - pa == lin for va, pa, fs, off in loads[1:]), "linear map offsets")
need(min(pa for va, pa, fs, off in loads[1:]) >= ram_base, "RAM below phys_ram_base")
need(rpa(tpa + 0x3000, 4096) == d[loads[0][3] + 0x3000:loads[0][3] + 0x4000], "image alias")
pgd = sym("SYMBOL(swapper_pg_dir)") - kpo
levels = (va_bits - 12) // 9
leaf_sizes = set()
def walk(va):
    need(va >> (va_bits - 1) == (1 << (65 - va_bits)) - 1, "va %#x not sign-extended" % va)
    t = pgd
    for level in range(levels):
        shift = 12 + 9 * (levels - 1 - level)
        e = u64(t + 8 * ((va >> shift) & 511))
        pa = (e >> 10 & ((1 << 44) - 1)) << 12
        if not e & 1:
            raise SystemExit("va %#x: invalid entry %#x at level %d" % (va, e, level))
        need(e >> 54 == 0, "entry %#x: reserved/PBMT/N bits" % e)
        if e & 0xe:    # R, W or X: a leaf
            need(e & 0x3ff == 0xe7, "leaf %#x at level %d: want V R W A D G" % (e, level))
            need(pa & ((1 << shift) - 1) == 0, "misaligned superpage %#x at level %d" % (e, level))
            leaf_sizes.add(shift)
            return pa | (va & ((1 << shift) - 1))
        need(e & 0x3ff == 0x1, "table entry %#x at level %d: want V only" % (e, level))
        t = pa
    raise SystemExit("va %#x: no leaf at the last level" % va)
def page(pfn):
    sec = pfn >> 15
    root = u64(sym("SYMBOL(mem_section)") - lin + 8 * (sec // 128))
    smm = u64(root - lin + 32 * (sec % 128))
    need(smm & ~0x1f == sym("SYMBOL(vmemmap)"), "section_mem_map %#x" % smm)
    return struct.unpack_from("<Q", rpa(walk((smm & ~0x1f) + 64 * pfn), 64))[0]
pfns = [int(x, 0) for x in sys.argv[5].split(",")]
for pfn in pfns:   # anon or cache pages: PG_lru set
    need(page(pfn) >> num("NUMBER(PG_lru)") & 1, "pfn %#x: no PG_lru" % pfn)
need(walk(sym("SYMBOL(swapper_pg_dir)")) == pgd, "the image mapping")
for off in (0, 0x1234000, 0xa001000):
    need(walk(mode[0] + off) == ram_base + off, "linear map at +%#x" % off)
uts = rpa(sym("SYMBOL(init_uts_ns)") - kpo, 390)
need(uts[4 * 65:4 * 65 + 8] == b"riscv64\0", "utsname.machine %r" % uts[260:268])
print("; ".join(bad) if bad else "leaves " + " ".join({12: "4K", 21: "2M", 30: "1G"}[s] for s in sorted(leaf_sizes)))
PY
layout() { # NAME VMCORE IMAGE-PADDR VA_BITS PHYS_RAM_BASE PFNS
	if [ -z "$HAVE_PY" ]; then skip "$1" "no python3"; return; fi
	local why
	why=$(python3 "$T/layout.py" "$2" "$3" "$4" "$5" "$6" 2>&1)
	if [[ "$why" == leaves* ]]; then ok "$1 ($why)"; else notok "$1" "$why"; fi
}
layout gen-riscv64-layout "$V" 0x80200000 57 0x80000000 0x82000,0x82200,0x8e000

# Bad specs: a kernel the generator has no riscv64 preset for, va_bits on
# another arch or of no paging mode, hwpoison pages the kernel cannot flag.
genarch_spec_errors riscv64 'arch riscv64\nkernel 6.1\nram 0x80000000 +64M|arch riscv64' \
	'va_bits 48\nram 0 1G|riscv64 only' \
	'arch riscv64\nva_bits 40\nram 0x80000000 +64M|va_bits' \
	'arch riscv64\nram 0x80000000 +64M\npages 0x82000+4 hwpoison|PG_hwpoison'

# Dry-run bitmaps against the reference, level by level.
for l in 0 1 2 4 8 16 31; do
	genarch_bitmaps "riscv64-dry-run-d$l" "$V" "$T/ref" $l
done

# The other paging modes.  Sv48: vmemmap in 4 KiB pages and an image not
# 2 MiB aligned (4 KiB pages there too), so the walk reaches the last
# level.  Sv39: RAM from 0x88200000, so phys_ram_base is only 2 MiB aligned:
# the linear map in 2 MiB leaves, vmemmap not 2 MiB aligned (4 KiB pages).
variant() { # NAME SPEC IMAGE-PADDR VA_BITS PHYS_RAM_BASE PFNS
	local name=$1
	if ! "$GEN" "$2" "$T/v.$name" --ref "$T/ref.$name" >"$T/gen.$name.log" 2>&1; then
		notok "gen-riscv64-$name" "mkvmcore failed: $(tail -n1 "$T/gen.$name.log")"; return
	fi
	layout "gen-riscv64-$name-layout" "$T/v.$name" "$3" "$4" "$5" "$6"
	genarch_bitmaps "riscv64-$name-dry-run" "$T/v.$name" "$T/ref.$name" 0 8 31
	rm -f "$T/v.$name"
}
sed -e 's/^kernel .*/va_bits 48\nvmemmap_pte 4k\nphys_base 0x10000/' "$T/spec" >"$T/spec48"
variant sv48 "$T/spec48" 0x80210000 48 0x80000000 0x82000,0x82200,0x8e000
cat >"$T/spec39" <<'SPEC'
arch riscv64
va_bits 39
cpus 2
ram 0x88200000 +100M
ram 0x90000000 +64M
pages 0x8c000+512 anon random
pages 0x8e000+512 thp order=9 random
pages 0x90000+256 cache text 2
pages 0x92000+64 cache_private random 3
SPEC
variant sv39 "$T/spec39" 0x88400000 39 0x88200000 0x8c000,0x8e000,0x90000,0x92000

# -l -d 31, -E -d 31 and --mem-usage (tests/lib/genarch.sh).
genarch_l_d31 riscv64 "$V" riscv64

genarch_E_d31 riscv64 "$V" RISC-V

genarch_mem_usage riscv64 "$V" "$WANT_ROWS"
exit 0
