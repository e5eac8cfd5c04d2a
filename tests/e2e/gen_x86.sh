#!/bin/bash
# i386 dumps from the synthetic generator (tests/gen, "arch x86" and "arch
# x86 pae": Debian bookworm's 6.1.0-57-686 and -686-pae as kexec-tools'
# /proc/vmcore shows them): the generator's own shape (ELF class and
# machine, notes, VMCOREINFO keys, the PT_LOADs of lowmem and highmem) and
# an independent walk in python of the two-level and the PAE tables from
# swapper_pg_dir to init_uts_ns, mem_map and its struct pages.  Then the
# program on them, once it reads i386 dumps (dry-run bitmaps against the
# reference at every level, the -l dump's pages against the ELF, -E);
# until then those checks are one skip line.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genarch.sh"

# Non-PAE, 1.5 GiB: lowmem ends at MAXMEM 0x36bfe000 (its last 4 MiB in
# 4 KiB pages), kexec-tools cuts the second range at 0x38000000 and gives
# the rest p_vaddr 0xffffffff (highmem, struct pages in zone HIGHMEM).
cat >"$T/spec" <<'SPEC'
arch x86
cpus 2
ram 0x1000 +0x9e000
ram 0x100000 0x5ffe0000
pages 0x3000+512 anon random
pages 0x3200+256 cache text 3
pages 0x3300+256 cache_private byte 0x5a
pages 0x3400+64 swapcache random 9
pages 0x3800+1024 thp random
pages 0x4000+16 slab random
pages 0x4010+4 hwpoison
pages 0x4014+4 offline
pages 0x4400+1024 hugetlb text
pages 0x5000+256 free order=8
fill 0x6000+256 zero
pages 0x40000+512 anon random 5
pages 0x40400+256 cache text 6
pages 0x41000+1024 thp random 7
dmesg Linux version 6.1.0-57-686 (mkvmcore) 1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3
dmesg x86/fpu: x87 FPU will use FXSAVE
dmesg LAB-MARKER i386 printk ring of 32-bit words
dmesg_clear 1
SPEC
genarch_dmesg_want "$T/spec" "$T/dmesg.want"
WANT_ROWS="NON_PRI_CACHE=$((256 + 64 + 256)) PRI_CACHE=256 USER=$((512 + 1024 + 1024 + 512 + 1024))"
genarch_make x86 'Intel 80386' little || exit 0

# The shape, read without the program.  Arguments: vmcore, pae (0 or 1),
# ELF class, PFN=KIND checks of struct pages, the log --dump-dmesg would
# print.
cat >"$T/layout.py" <<'PY'
import os, struct, sys
sys.path.insert(0, os.path.join(os.environ["MDF_SRC"], "tests", "tools"))
from vmcore_layout import elf_class
from kernel32 import Core, FlatMem, printk_lines, pfn_checks
c = Core(sys.argv[1])
d, loads, vmi, prs, need = c.d, c.loads, c.vmi, c.prs, c.need
pae, cls = sys.argv[2] == "1", int(sys.argv[3])
PAGE_OFFSET = 0xc0000000
# arch/x86/include/asm/pgtable_32_areas.h MAXMEM of the 6.1 -686(-pae)
# vmlinux; kexec-tools' X86_MAXMEM, where it cuts (crashdump-x86.h).
maxmem = 0x36ffe000 if pae else 0x36bfe000
KEXEC_LOW = 0x38000000
minus1 = (1 << cls) - 1
e_machine, = struct.unpack_from("<H", d, 18)
need(elf_class(d) == cls and e_machine == 3 and d[5] == 1,
     "ELF class %d machine %d data %d" % (elf_class(d), e_machine, d[5]))
need(prs == [144, 144], "NT_PRSTATUS sizes %s" % prs)
# pr_pid at 24 of the i386 elf_prstatus: the first note's, cpu 0 -> 1
nn, dn, ty = struct.unpack_from("<III", d, 0x1000)
need((nn, dn, ty) == (5, 144, 1) and struct.unpack_from("<i", d, 0x1000 + 20 + 24)[0] == 1,
     "first note %s" % ((nn, dn, ty),))
rel = "6.1.0-57-686-pae" if pae else "6.1.0-57-686"
want = {"OSRELEASE": rel, "PAGESIZE": "4096", "SIZE(page)": "40", "SIZE(list_head)": "8",
        "OFFSET(page.lru)": "4", "OFFSET(page.mapping)": "12", "OFFSET(page._mapcount)": "24",
        "OFFSET(page._refcount)": "28", "OFFSET(page.private)": "20",
        "OFFSET(page.compound_dtor)": "8", "OFFSET(page.compound_order)": "9",
        "OFFSET(page.compound_head)": "4", "OFFSET(pglist_data.node_mem_map)": "3116",
        "SIZE(atomic_long_t)": "4", "SIZE(prb_desc)": "12", "LENGTH(zone.free_area)": "11",
        "NUMBER(PG_lru)": "4", "NUMBER(PG_slab)": "9", "NUMBER(PG_hwpoison)": "23",
        "NUMBER(PG_head_mask)": "65536", "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)": "-129",
        "SYMBOL(_stext)": "c1000000"}
for k, v in want.items():
    need(vmi.get(k) == v, "%s=%s, want %s" % (k, vmi.get(k), v))
need((vmi.get("CONFIG_X86_PAE") == "y") == pae, "CONFIG_X86_PAE=%s" % vmi.get("CONFIG_X86_PAE"))
for k in ("SYMBOL(mem_section)", "NUMBER(SECTION_SIZE_BITS)", "SYMBOL(vmemmap)", "KERNELOFFSET",
          "NUMBER(phys_base)", "SYMBOL(init_top_pgt)", "SYMBOL(node_data)",
          "NUMBER(VMALLOC_START)", "NUMBER(pgtable_l5_enabled)"):
    need(k not in vmi, "foreign line %s" % k)
for k in ("SYMBOL(mem_map)", "SYMBOL(contig_page_data)", "SYMBOL(swapper_pg_dir)",
          "SYMBOL(init_uts_ns)", "SYMBOL(vmap_area_list)", "SYMBOL(node_online_map)"):
    need(k in vmi, "no %s" % k)
# PT_LOADs: none for the image; lowmem ones at PAGE_OFFSET + paddr, ending
# at or below kexec-tools' cut, the others at -1.
for va, pa, fs, off in loads:
    if pa + fs <= KEXEC_LOW:
        need(va == PAGE_OFFSET + pa, "PT_LOAD %#x at vaddr %#x" % (pa, va))
    else:
        need(va == minus1 and pa >= KEXEC_LOW, "highmem PT_LOAD %#x at vaddr %#x" % (pa, va))
u32, u64, rpa, sym = c.u32, c.u64, c.rpa, c.sym
pgd = sym("SYMBOL(swapper_pg_dir)") - PAGE_OFFSET   # __pa() of the image
leaves = set()
def walk(va):
    """The Intel SDM's 32-bit paging (4 MiB pages with PSE) or PAE paging."""
    if not pae:
        e = u32(pgd + 4 * (va >> 22))
        if not e & 1: return None
        if e & 0x80:
            need(e & 0xfff == 0x1e3, "PSE pde %#x" % e); leaves.add("4M")
            return (e & 0xffc00000) | (va & 0x3fffff)
        need(e & 0xfff == 0x63, "pde %#x" % e)
        e = u32((e & 0xfffff000) + 4 * (va >> 12 & 1023))
        if not e & 1: return None
        need(e & 0xfff == 0x163, "pte %#x" % e); leaves.add("4K")
        return (e & 0xfffff000) | (va & 0xfff)
    e = u64(pgd + 8 * (va >> 30))
    if not e & 1: return None
    need(e & 0xfff == 0x1 and e >> 52 == 0, "pdpte %#x: P only" % e)
    e = u64((e & 0xffffffffff000) + 8 * (va >> 21 & 511))
    if not e & 1: return None
    nx = e >> 63
    if e & 0x80:
        need(e & 0x7ff0000000000fff == 0x1e3, "2M pde %#x" % e); leaves.add("2M")
        pa = (e & 0xfffffffe00000) | (va & 0x1fffff)
    else:
        need(e & 0xfff == 0x63 and not nx, "pde %#x" % e)
        e = u64((e & 0xffffffffff000) + 8 * (va >> 12 & 511))
        if not e & 1: return None
        nx = e >> 63
        need(e & 0x7ff0000000000fff == 0x163, "pte %#x" % e); leaves.add("4K")
        pa = (e & 0xffffffffff000) | (va & 0xfff)
    image = 0x1000000 <= pa < 0x1000000 + 0x1143000
    need(nx != image, "va %#x: NX %d on %s" % (va, nx, "the image" if image else "data"))
    return pa
c.walk = walk
for k in ("SYMBOL(swapper_pg_dir)", "SYMBOL(init_uts_ns)", "SYMBOL(mem_map)",
          "SYMBOL(_stext)", "SYMBOL(vmap_area_list)", "SYMBOL(contig_page_data)",
          "SYMBOL(prb)", "SYMBOL(kallsyms_names)"):
    need(walk(sym(k)) == sym(k) - PAGE_OFFSET, "%s %#x does not translate" % (k, sym(k)))
ram = sorted((pa, pa + fs) for va, pa, fs, off in loads)
top = ram[-1][1]
for lo, hi in ram:    # lowmem RAM is mapped, nothing at or above MAXMEM is
    for pa in list(range(lo & ~0xfff, min(hi, maxmem), 0x100000)) + [min(hi, maxmem) - 1]:
        if pa < maxmem and pa >= lo:
            need(walk(PAGE_OFFSET + pa) == pa, "direct map of %#x" % pa)
need(walk(PAGE_OFFSET + maxmem) is None, "MAXMEM %#x is mapped" % maxmem)
uts = rpa(sym("SYMBOL(init_uts_ns)") - PAGE_OFFSET, 390)
need(uts[:6] == b"Linux\0" and uts[130:130 + len(rel) + 1] == rel.encode() + b"\0"
     and uts[260:265] == b"i686\0", "utsname %r %r %r" % (uts[:6], uts[130:150], uts[260:265]))
# vmap_area_list -> its vmap_area: va_start = high_memory + 8 MiB
lst = sym("SYMBOL(vmap_area_list)")
area = walk(u32(walk(lst)) - 20)
high = PAGE_OFFSET + min(maxmem, (top + 0xfff) & ~0xfff)
need(area is not None and u32(area) == high + 0x800000, "vmalloc_start %#x" % (u32(area) if area else 0))
# mem_map: 40-byte struct pages from pfn 0 (ARCH_PFN_OFFSET 0); zones DMA
# (16 MiB), NORMAL (lowmem), HIGHMEM.
zone_of = lambda pfn: 0 if pfn < 0x1000 else 1 if pfn << 12 < maxmem else 2
mm = FlatMem(c, 40, 0, zone_of)
mm.kinds(pfn_checks(sys.argv[4]), 9 if pae else 10)
# contig_page_data (nr_zones at 3112; zones of 768 bytes, free_area[11] of
# 44, MIGRATE_TYPES 5), MAX_ORDER_NR_PAGES 1024.
listed = mm.free_lists((3112, 768, 44, 11, 5), top, 1024, 3 if top > maxmem else 2)
# The printk ring in 32-bit longs, clear_seq's val at 4 (u64 is 4-byte
# aligned on i386).
n = printk_lines(c, open(sys.argv[5]).read().splitlines(), 4)
c.report(leaves, len(listed), n)
PY
layout() { # NAME VMCORE PAE CLASS PFN=KIND,...
	genarch_layout "$1" "$T/layout.py" "$2" "$3" "$4" "$5" "$T/dmesg.want"
}
CHECKS=0x3000=anon,0x3200=cache,0x3800=thp,0x4000=slab,0x4010=hwpoison,0x4400=hugetlb,0x5000=free,0x1000=kernel,0x40000=anon,0x40400=cache,0x41000=thp,0x50000=free
layout gen-x86-layout "$V" 0 32 "$CHECKS"
genarch_refs gen-x86-ref "$T/ref"

# PAE: the same machine below 4 GiB (ELF32, 2 MiB leaves, 4 KiB at
# MAXMEM 0x36ffe000), then with RAM above 4 GiB: kexec-tools writes ELF64.
sed -e 's/^arch x86$/arch x86 pae/' -e 's/^pages 0x41000+1024 thp random 7$/pages 0x41000+512 thp random 7/' \
	"$T/spec" >"$T/spec.pae"
variant() { # NAME SPEC CLASS CHECKS
	genarch_variant "x86-$1" "$2" && layout "gen-x86-$1-layout" "$T/v.x86-$1" 1 "$3" "$4"
}
variant pae "$T/spec.pae" 32 "$CHECKS"
{ cat "$T/spec.pae"; printf 'ram 0x100000000 +512M\npages 0x100000+512 anon random 8\npages 0x100400+512 thp random\n'; } >"$T/spec.pae64"
variant pae64 "$T/spec.pae64" 64 "$CHECKS,0x100000=anon,0x100400=thp,0x100800=free,0x80000=kernel"

# Bad specs.
genarch_spec_errors x86 'arch x86\npage_offset 0x80000000\nram 0 1G|PAGE_OFFSET 0xc0000000' \
	'arch x86\nphys_base 0x1000\nram 0 1G|phys_base' \
	'arch x86\nkcore\nram 0 1G|kcore' \
	'arch x86\nkaslr 0x200000\nram 0 1G|PHYSICAL_ALIGN' \
	'arch x86\nram 0 1G\nram 0x100000000 +1G|MAX_PHYSMEM_BITS (32)' \
	'arch x86 pae\nelfclass 32\nram 0 1G\nram 0x100000000 +1G|elfclass 32' \
	'elfclass 64\nram 0 1G|x86 only' \
	'arch x86\nkernel 6.12\nram 0 1G|no kernel' \
	'arch x86\nvmemmap_pte 4k\nram 0 1G|FLATMEM'

# The program: only once it reads i386 dumps (today it says "architecture
# EM_386 (3) is not supported").
"$MDF" -f --dry-run -d 31 "$V" >"$T/probe.log" 2>&1
if ! grep -q "EM_386.*not supported" "$T/probe.log"; then
	for l in 0 1 2 4 8 16 31; do
		genarch_bitmaps "x86-dry-run-d$l" "$V" "$T/ref" $l
	done
	genarch_bitmaps "x86-pae-dry-run" "$T/v.x86-pae" "$T/ref.x86-pae" 0 1 2 4 8 16 31
	genarch_bitmaps "x86-pae64-dry-run" "$T/v.x86-pae64" "$T/ref.x86-pae64" 0 1 2 4 8 16 31
	genarch_l_d31 x86 "$V" i686
	genarch_l_d31 x86-pae64 "$T/v.x86-pae64" i686
	genarch_E_d31 x86 "$V" 'Intel 80386'
	genarch_mem_usage x86 "$V" "$WANT_ROWS"
	for v in "$V" "$T/v.x86-pae64"; do
		rm -f "$T/dm.out"
		if "$MDF" --dump-dmesg "$v" "$T/dm.out" >"$T/dm.log" 2>&1 && cmp -s "$T/dm.out" "$T/dmesg.want"
		then ok "x86-dump-dmesg ${v##*/}"
		else notok "x86-dump-dmesg ${v##*/}" "$(diff "$T/dmesg.want" "$T/dm.out" 2>&1 | head -n3 | tr '\n' ' ')"; fi
	done
else
	skip gen-x86-program "the reader does not read i386 dumps yet"
fi
rm -f "$T/v.x86-pae" "$T/v.x86-pae64"
exit 0
