#!/bin/bash
# 32-bit arm dumps from the synthetic generator (tests/gen, "arch arm" and
# "arch arm lpae": Debian bookworm's 6.1.0-57-armmp and -armmp-lpae on
# qemu's virt machine, as kexec-tools' /proc/vmcore shows them): the
# generator's own shape (ELF class and machine, notes, VMCOREINFO keys,
# kexec-tools' PT_LOAD vaddrs) and an independent walk in python of the
# short-descriptor and the LPAE tables from swapper_pg_dir to init_uts_ns,
# mem_map and its struct pages, contig_page_data's free lists and the
# printk ring.  Then the program on them (dry-run bitmaps against the
# reference at every level, the -l dump's pages against the ELF, -E,
# --mem-usage, --dump-dmesg), and against Debian's 1.7.2 armhf byte for
# byte where it can read the machine.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genarch.sh"

# 1.5 GiB from 0x40000000 (PHYS_OFFSET) with a crash kernel's 128 MiB cut
# out (kexec-tools dumps the rest as two ranges) and a no-map hole before
# 0x70000000: lowmem ends at 0x6ff7d000 (arm_lowmem_limit; its last MiB
# in 4 KiB pages), the third range is highmem (struct pages, no mapping).
cat >"$T/spec" <<'SPEC'
arch arm
cpus 2
crashkernel 0x48000000 0x8000000
ram 0x40000000 0x48000000
ram 0x50000000 0x6ff7d000
ram 0x70000000 0xa0000000
pages 0x42000+512 anon random
pages 0x42200+256 cache text 3
pages 0x42300+256 cache_private byte 0x5a
pages 0x42400+64 swapcache random 9
pages 0x43000+16 slab random
pages 0x43014+4 offline
pages 0x43800+2048 free order=11
pages 0x44000+256 free order=8
fill 0x45000+256 zero
pages 0x80000+512 anon random 5
pages 0x80400+256 cache text 6
dmesg Booting Linux on physical CPU 0x0
dmesg Linux version 6.1.0-57-armmp (mkvmcore) 1 SMP Debian 6.1.192-3
dmesg LAB-MARKER arm printk ring of 32-bit words
dmesg_clear 1
SPEC
genarch_dmesg_want "$T/spec" "$T/dmesg.want"
WANT_ROWS="NON_PRI_CACHE=$((256 + 64 + 256)) PRI_CACHE=256 USER=$((512 + 512))"
genarch_make arm 'ARM' little || exit 0

# The shape, read without the program.  Arguments: vmcore, lpae (0 or 1),
# ELF class, PFN=KIND checks of struct pages, the log --dump-dmesg would
# print, the kinds of leaves the walks meet.
cat >"$T/layout.py" <<'PY'
import os, struct, sys
sys.path.insert(0, os.path.join(os.environ["MDF_SRC"], "tests", "tools"))
from vmcore_layout import elf_class
from kernel32 import Core, FlatMem, printk_lines, pfn_checks
c = Core(sys.argv[1])
d, loads, vmi, need = c.d, c.loads, c.vmi, c.need
lpae, cls = sys.argv[2] == "1", int(sys.argv[3])
PAGE_OFFSET = 0xc0000000
TEXT_OFFSET = 0x208000                  # _text - PAGE_OFFSET (nm of both vmlinux)
TEXT_SIZE = 0x1606000 if lpae else 0x1400000
LOWMEM = 0x30000000                     # vmalloc_min 0xf0000000 - PAGE_OFFSET
e_machine, e_flags = struct.unpack_from("<H", d, 18)[0], struct.unpack_from("<I", d, 36 if cls == 32 else 48)[0]
need(elf_class(d) == cls and e_machine == 40 and d[5] == 1 and e_flags == 0,
     "ELF class %d machine %d data %d flags %#x" % (elf_class(d), e_machine, d[5], e_flags))
need(c.prs == [148, 148], "NT_PRSTATUS sizes %s" % c.prs)
nn, dn, ty = struct.unpack_from("<III", d, 0x1000)
need((nn, dn, ty) == (5, 148, 1) and struct.unpack_from("<i", d, 0x1000 + 20 + 24)[0] == 1,
     "first note %s" % ((nn, dn, ty),))
rel = "6.1.0-57-armmp-lpae" if lpae else "6.1.0-57-armmp"
want = {"OSRELEASE": rel, "PAGESIZE": "4096", "SIZE(page)": "36", "SIZE(list_head)": "8",
        "OFFSET(page.lru)": "4", "OFFSET(page.mapping)": "12", "OFFSET(page._mapcount)": "24",
        "OFFSET(page._refcount)": "28", "OFFSET(page.private)": "20",
        "OFFSET(page.compound_dtor)": "8", "OFFSET(page.compound_order)": "9",
        "OFFSET(page.compound_head)": "4", "OFFSET(pglist_data.node_mem_map)": "3628",
        "SIZE(pglist_data)": "4928", "SIZE(zone)": "896", "SIZE(free_area)": "52",
        "LENGTH(zone.free_area)": "12", "LENGTH(free_area.free_list)": "6",
        "SIZE(latched_seq)": "24", "OFFSET(latched_seq.val)": "8",
        "SIZE(atomic_long_t)": "4", "SIZE(prb_desc)": "12",
        "NUMBER(PG_lru)": "4", "NUMBER(PG_slab)": "9", "NUMBER(PG_head_mask)": "65536",
        "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)": "-129",
        "SYMBOL(_stext)": "c0400000" if lpae else "c0300000",
        "SYMBOL(swapper_pg_dir)": "c0203000" if lpae else "c0204000",
        "SYMBOL(node_online_map)": "c160b5c8" if lpae else "c140b5b4"}
for k, v in want.items():
    need(vmi.get(k) == v, "%s=%s, want %s" % (k, vmi.get(k), v))
need((vmi.get("CONFIG_ARM_LPAE") == "y") == lpae, "CONFIG_ARM_LPAE=%s" % vmi.get("CONFIG_ARM_LPAE"))
need((vmi.get("NUMBER(HUGETLB_PAGE_DTOR)") == "2") == lpae,
     "HUGETLB_PAGE_DTOR=%s" % vmi.get("NUMBER(HUGETLB_PAGE_DTOR)"))
for k in ("NUMBER(PG_hwpoison)", "SYMBOL(mem_section)", "NUMBER(SECTION_SIZE_BITS)",
          "SYMBOL(vmemmap)", "KERNELOFFSET", "NUMBER(phys_base)", "NUMBER(PHYS_OFFSET)",
          "SYMBOL(init_top_pgt)", "SYMBOL(node_data)", "NUMBER(VMALLOC_START)",
          "CONFIG_X86_PAE", "NUMBER(VA_BITS)"):
    need(k not in vmi, "foreign line %s" % k)
for k in ("SYMBOL(mem_map)", "SYMBOL(contig_page_data)", "SYMBOL(init_uts_ns)",
          "SYMBOL(vmap_area_list)", "SYMBOL(prb)", "SYMBOL(kallsyms_names)"):
    need(k in vmi, "no %s" % k)
# PT_LOADs: none for the image; kexec-tools' phys_to_virt() on every
# range, lowmem or not: paddr + PAGE_OFFSET - the first range's start, in
# 32 bits.
first = min(pa for va, pa, fs, off in loads)
for va, pa, fs, off in loads:
    need(va == (pa + PAGE_OFFSET - first) & 0xffffffff, "PT_LOAD %#x at vaddr %#x" % (pa, va))
# The kernel's PHYS_OFFSET: the RAM start (AUTO_ZRELADDR: 128 MiB aligned).
phys = first & ~((128 << 20) - 1)
u32, u64, rpa, sym = c.u32, c.u64, c.rpa, c.sym
__pa = lambda va: va - PAGE_OFFSET + phys
pgd = __pa(sym("SYMBOL(swapper_pg_dir)"))
image = (phys + TEXT_OFFSET, phys + TEXT_OFFSET + TEXT_SIZE)
leaves = set()
def xn_ok(pa, size, xn):
    exe = pa < image[1] and pa + size > image[0]
    need(xn != exe, "leaf %#x+%#x: XN %d on %s" % (pa, size, xn, "the image" if exe else "data"))
def walk(va):
    """ARM ARM B3.5 (short descriptors) and B3.6 (long descriptors)."""
    if not lpae:
        e = u32(pgd + 4 * (va >> 20))
        if e & 3 == 2 and e >> 18 & 1:      # 16 MiB supersection
            need(e & 0x7ffef & ~0x1e0 == 0x5140e, "supersection %#x" % e); leaves.add("16M")
            pa = (e & 0xff000000) | (e >> 20 & 0xf) << 32 | (e >> 5 & 0xf) << 36
            xn_ok(pa, 16 << 20, e >> 4 & 1)
            return pa | va & 0xffffff
        if e & 3 == 2:
            need(e & 0x3ffef == 0x1140e, "section %#x" % e); leaves.add("1M")
            xn_ok(e & 0xfff00000, 1 << 20, e >> 4 & 1)
            return (e & 0xfff00000) | (va & 0xfffff)
        if e & 3 != 1: return None
        need(e & 0x3ff == 0x11, "first-level table entry %#x" % e)
        t = e & 0xfffffc00
        # Linux's pair: one page, the hardware tables at +2048 (even MiB)
        # and +3072 (odd), Linux's ptes 2048 below them.
        need(t & 0xfff == 0x800 + 0x400 * (va >> 20 & 1), "hardware table %#x of va %#x" % (t, va))
        p = u32(t + 4 * (va >> 12 & 255))
        if not p & 2: return None
        need(p & 0xffe == 0x45e, "small page %#x" % p); leaves.add("4K")
        lin = u32(t - 2048 + 4 * (va >> 12 & 255))
        need(lin == (p & 0xfffff000) | (0x65f if p & 1 else 0x45f), "Linux pte %#x of %#x" % (lin, p))
        xn_ok(p & 0xfffff000, 4096, p & 1)
        return (p & 0xfffff000) | (va & 0xfff)
    e = u64(pgd + 8 * (va >> 30))
    if e & 3 != 3: return None
    need(e >> 55 & 1 and e & 0xfff == 3, "pgd entry %#x" % e)
    t = e & 0xfffffff000
    need(t == pgd + 0x1000 * (1 + (va >> 30)), "PMD table %#x not after swapper_pg_dir" % t)
    e = u64(t + 8 * (va >> 21 & 511))
    if e & 3 == 1:
        need(e & 0xfff == 0x71d and (e & ~(1 << 54)) >> 40 == 0, "block %#x" % e); leaves.add("2M")
        xn_ok(e & 0xffffe00000, 2 << 20, e >> 54 & 1)
        return (e & 0xffffe00000) | (va & 0x1fffff)
    if e & 3 != 3: return None
    need(e & 0xfff == 3 and e >> 40 == 0, "pmd table entry %#x" % e)
    p = u64((e & 0xfffffff000) + 8 * (va >> 12 & 511))
    if p & 3 != 3: return None
    need(p & 0xfff == 0x71f and p >> 55 & 1, "page %#x" % p); leaves.add("4K")
    xn_ok(p & 0xfffffff000, 4096, p >> 54 & 1)
    return (p & 0xfffffff000) | (va & 0xfff)
c.walk = walk
for k in ("SYMBOL(swapper_pg_dir)", "SYMBOL(init_uts_ns)", "SYMBOL(mem_map)",
          "SYMBOL(_stext)", "SYMBOL(vmap_area_list)", "SYMBOL(contig_page_data)",
          "SYMBOL(prb)", "SYMBOL(kallsyms_names)", "SYMBOL(node_online_map)"):
    need(walk(sym(k)) == __pa(sym(k)), "%s %#x does not translate" % (k, sym(k)))
# lowmem RAM is mapped, nothing at or above arm_lowmem_limit is
ram = sorted((pa, pa + fs) for va, pa, fs, off in loads)
low = max(min(hi, phys + LOWMEM) for lo, hi in ram if lo < phys + LOWMEM)
for lo, hi in ram:
    for pa in list(range(lo, min(hi, low), 0x100000)) + [min(hi, low) - 1]:
        if lo <= pa < low:
            need(walk(PAGE_OFFSET + pa - phys) == pa, "direct map of %#x" % pa)
need(walk(PAGE_OFFSET + low - phys) is None, "lowmem end %#x is mapped" % low)
uts = rpa(__pa(sym("SYMBOL(init_uts_ns)")), 390)
need(uts[:6] == b"Linux\0" and uts[130:130 + len(rel) + 1] == rel.encode() + b"\0"
     and uts[260:267] == b"armv7l\0", "utsname %r %r %r" % (uts[:6], uts[130:150], uts[260:267]))
# vmap_area_list -> its vmap_area: va_start = VMALLOC_START, high_memory
# + 8 MiB rounded down to 8 MiB
area = walk(c.r32(sym("SYMBOL(vmap_area_list)")) - 20)
vstart = (PAGE_OFFSET + low - phys + (8 << 20)) & ~((8 << 20) - 1)
need(area is not None and u32(area) == vstart, "vmalloc_start %#x, want %#x" % (u32(area) if area else 0, vstart))
# mem_map: 36-byte struct pages from ARCH_PFN_OFFSET (PHYS_OFFSET's pfn);
# ZONE_DMA is all of lowmem (arm_dma_limit 0xffffffff), ZONE_NORMAL empty.
zone_of = lambda pfn: 0 if pfn << 12 < low else 2
mm = FlatMem(c, 36, phys >> 12, zone_of)
mm.kinds(pfn_checks(sys.argv[4]), 9)
# contig_page_data (nr_zones at 3624; zones of 896 bytes, free_area[12] of
# 52, MIGRATE_TYPES 6: CONFIG_CMA), MAX_ORDER_NR_PAGES 2048.
listed = mm.free_lists((3624, 896, 52, 12, 6), ram[-1][1], 2048, 3 if ram[-1][1] > low else 1)
need(max(listed.values(), default=0) == 11, "no order-11 buddy block (MAX_ORDER 12)")
# The printk ring in 32-bit longs (as i386's), clear_seq's val at 8 (the
# EABI aligns u64 to 8).
n = printk_lines(c, open(sys.argv[5]).read().splitlines(), 8)
need(" ".join(sorted(leaves)) == sys.argv[6], "leaves %s, want %s" % (sorted(leaves), sys.argv[6]))
c.report(leaves, len(listed), n)
PY
layout() { # NAME VMCORE LPAE CLASS PFN=KIND,... [LEAVES]
	genarch_layout "$1" "$T/layout.py" "$2" "$3" "$4" "$5" "$T/dmesg.want" \
		"${6:-$([ "$3" = 1 ] && echo "2M 4K" || echo "1M 4K")}"
}
CHECKS=0x42000=anon,0x42200=cache,0x43000=slab,0x43014=offline,0x43800=free,0x44000=free,0x40208=kernel,0x80000=anon,0x80400=cache,0x90000=free
layout gen-arm-layout "$V" 0 32 "$CHECKS"
genarch_refs gen-arm-ref "$T/ref"

# The walk is no rubber stamp: a hardware pte without its XN (Linux's copy
# keeps L_PTE_XN) and a section with XN on the image are both caught.
printf 'poke table 0xeff7c000 1 5e\npoke table 0xc0200000 0 1e\n' | cat "$T/spec" - >"$T/spec.bad"
if "$GEN" "$T/spec.bad" "$T/v.bad" >"$T/gen.bad.log" 2>&1 && [ -n "$HAVE_PY" ]; then
	why=$(python3 "$T/layout.py" "$T/v.bad" 0 32 "$CHECKS" "$T/dmesg.want" "1M 4K" 2>&1)
	if [[ "$why" == *"Linux pte 0x6ff7c65f of 0x6ff7c45e"* && "$why" == *"leaf 0x40200000+0x100000: XN 1 on the image"* ]]
	then ok "gen-arm-walk-catches"
	else notok "gen-arm-walk-catches" "$why"; fi
else
	skip gen-arm-walk-catches "$(tail -n1 "$T/gen.bad.log") ${HAVE_PY:-no python3}"
fi
rm -f "$T/v.bad"

# Linux maps no RAM with supersections, but a reader of short descriptors
# meets them: "supersections yes" puts lowmem in 16 MiB ones where it can.
sed -e 's/^arch arm$/arch arm\nsupersections yes/' "$T/spec" >"$T/spec.super"
genarch_variant arm-super "$T/spec.super" &&
	layout gen-arm-super-layout "$T/v.arm-super" 0 32 "$CHECKS" "16M 1M 4K"

# LPAE: the same machine with 2 MiB THPs and hugetlb pages (armmp-lpae has
# both), ELF32; then with RAM above 4 GiB (qemu virt's highmem): ELF64,
# whose p_vaddr are still kexec-tools' 32-bit ones.
sed -e 's/^arch arm$/arch arm lpae/' -e 's/armmp (mkvmcore)/armmp-lpae (mkvmcore)/' "$T/spec" >"$T/spec.lpae"
printf 'pages 0x46000+1024 thp random\npages 0x46400+512 hugetlb text\npages 0x81000+512 thp random 7\n' >>"$T/spec.lpae"
genarch_dmesg_want "$T/spec.lpae" "$T/dmesg.want"
variant() { # NAME SPEC CLASS CHECKS
	genarch_variant "arm-$1" "$2" && layout "gen-arm-$1-layout" "$T/v.arm-$1" 1 "$3" "$4"
}
LCHECKS="$CHECKS,0x46000=thp,0x46400=hugetlb,0x81000=thp"
variant lpae "$T/spec.lpae" 32 "$LCHECKS"
{ cat "$T/spec.lpae"; printf 'ram 0x100000000 +512M\npages 0x100000+512 anon random 8\npages 0x100400+512 thp random\n'; } >"$T/spec.lpae64"
variant lpae64 "$T/spec.lpae64" 64 "$LCHECKS,0x100000=anon,0x100400=thp,0x100800=free"
# RAM from 0x40100000: PHYS_OFFSET stays 0x40000000 (where swapper_pg_dir
# and the image are), kexec-tools' phys_offset is the first range's start,
# so every p_vaddr is 1 MiB below the direct map's.
sed -e 's/^ram 0x40000000 0x48000000$/ram 0x40100000 0x48000000/' "$T/spec" >"$T/spec.off"
if "$GEN" "$T/spec.off" "$T/v.off" >"$T/gen.off.log" 2>&1 &&
	readelf -lW "$T/v.off" 2>/dev/null | awk '$1 == "LOAD" && $3 == "0xc0000000" && $4 == "0x40100000" { f = 1 } END { exit !f }' &&
	readelf -lW "$T/v.off" | awk '$1 == "LOAD" && $4 == "0x70000000" && $3 == "0xeff00000" { f = 1 } END { exit !f }'
then ok "gen-arm-phys-offset-vaddr"
else notok "gen-arm-phys-offset-vaddr" "$(tail -n1 "$T/gen.off.log"; readelf -lW "$T/v.off" 2>&1 | grep LOAD | head -n3 | tr '\n' ' ')"; fi

# Bad specs.
genarch_spec_errors arm 'arch arm\npage_offset 0x80000000\nram 0x40000000 +1G|PAGE_OFFSET 0xc0000000' \
	'arch arm\nkaslr 0x200000\nram 0x40000000 +1G|no KASLR' \
	'arch arm\nphys_base 0x1000\nram 0x40000000 +1G|phys_base' \
	'arch arm\nkcore\nram 0x40000000 +1G|kcore' \
	'arch arm\nelfclass 64\nram 0x40000000 +1G|elfclass' \
	'arch arm\nvmemmap_pte 4k\nram 0x40000000 +1G|FLATMEM' \
	'arch arm\nram 0x40000000 +1G\nram 0x100000000 +1G|MAX_PHYSMEM_BITS (32)' \
	'arch arm lpae\nram 0x40000000 +1G\nram 0x10000000000 +1G|MAX_PHYSMEM_BITS (40)' \
	'arch arm\nram 0x40000000 +1G\npages 0x42000+512 thp|6.1.0-57-armmp has no TRANSPARENT_HUGEPAGE' \
	'arch arm\nram 0x40000000 +1G\npages 0x42000+4 hwpoison|no PG_hwpoison' \
	'arch arm\nram 0x40000000 +1G\npages 0x41000+4096 free order=12|free order' \
	'ram 0x40000000 +1G\npages 0x41000+2048 free order=11|free order must be 0..10' \
	'arch arm\nkernel 6.12\nram 0x40000000 +1G|no kernel' \
	'arch arm lpae\nsupersections yes\nram 0x40000000 +1G|supersections is for arch arm (short descriptors)'
# swapper_pg_dir, 16 KiB below _text, must be RAM too (RAM from
# 0x40205000: PHYS_OFFSET 0x40000000, the table at 0x40204000).
out=$(printf 'arch arm\nram 0x40205000 +1G\n' | "$GEN" - "$T/err.elf" 2>&1)
if [ $? = 1 ] && [[ "$out" == "mkvmcore: swapper_pg_dir 0x40204000 (below _text)"* ]]; then ok "gen-arm-pgd-not-ram"
else notok "gen-arm-pgd-not-ram" "$out"; fi
rm -f "$T/err.elf"

# Debian's makedumpfile 1.7.2 for armhf (tests/lab/armhf_makedumpfile.sh
# fetches it) under qemu-arm, when both are here: its bitmaps of the main
# machine (shrunk to 150 MiB: emulated, it copies some 150 MiB/s) equal the
# reference, numbered as it numbers arm's pfns, from
# ARCH_PFN_OFFSET = its phys_base (the lowest PT_LOAD paddr).  At levels 0
# and 1 it keeps the offline pages: without NUMBER(PG_hwpoison) (arm has no
# MEMORY_FAILURE) create_2nd_bitmap() walks no struct page there.  It
# cannot read the LPAE machines (page_offset = _stext & 0xffc00000 is
# 0xc0400000 there, and it walks no long descriptors).
ARMHF_MDF=${MDF_ARMHF_CACHE:-/var/tmp/mdf-armhf}/root/usr/bin/makedumpfile
if [ -x "$ARMHF_MDF" ] && command -v qemu-arm >/dev/null && [ -n "$HAVE_PY" ]; then
	bad=""
	sed -e 's/^ram 0x50000000 0x6ff7d000$/ram 0x50000000 0x50f7d000/' \
		-e 's/^ram 0x70000000 0xa0000000$/ram 0x80000000 0x80600000/' "$T/spec" >"$T/spec.small"
	genarch_variant arm-small "$T/spec.small" || bad=" no machine"
	for l in 0 1 2 4 8 16 31; do
		[ -z "$bad" ] || break
		rm -f "$T/k172"
		qemu-arm -L "${ARMHF_MDF%/usr/bin/makedumpfile}" "$ARMHF_MDF" --cyclic-buffer 1 -l -d $l \
			"$T/v.arm-small" "$T/k172" >"$T/k172.log" 2>&1 ||
			{ bad="$bad d$l:exit($(tail -n1 "$T/k172.log"))"; continue; }
		why=$(python3 - "$T/k172" "$T/ref.arm-small" $l 0x43014+4 <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
# disk_dump_header of a 32-bit build: block_size after the 8-byte timeval at 404
bs, shs, bmb = struct.unpack_from("<iiI", d, 416)
half, off, base = bmb * bs // 2, (1 + shs) * bs, 0x40000
r1, r2 = (open(sys.argv[2] + n, "rb").read()[base // 8:]
          for n in ("/bitmap1", "/d%s.bitmap2" % sys.argv[3]))
k1, k2 = d[off:off + half], d[off + half:off + 2 * half]
n = max(len(r1), half)
r1, r2, k1, k2 = (b.ljust(n, b"\0") for b in (r1, r2, k1, k2))
bit = lambda b, i: b[i >> 3] >> (i & 7) & 1
o0, on = (int(x, 0) for x in sys.argv[4].split("+"))
keep = set(range(o0, o0 + on)) if int(sys.argv[3]) < 2 else set()
d2 = set() if r2 == k2 else {(i * 8 + j) + base for i in range(n) if r2[i] != k2[i]
                             for j in range(8) if bit(r2, i * 8 + j) != bit(k2, i * 8 + j)}
print("bitmap1 differs" if r1 != k1 else
      "bitmap2 differs at %s" % sorted("%#x" % p for p in d2 ^ keep)[:4] if d2 != keep else "")
PY
)
		[ -z "$why" ] || bad="$bad d$l:$why"
	done
	if [ -z "$bad" ]; then ok "gen-arm-makedumpfile-1.7.2-bitmaps (d0-d31)"
	else notok "gen-arm-makedumpfile-1.7.2-bitmaps" "${bad# }"; fi
	# its --dump-dmesg reads the 32-bit ring, --partial-dmesg from clear_seq
	genarch_dmesg_want "$T/spec" "$T/dmesg.want"
	tail -n +2 "$T/dmesg.want" >"$T/dmesg.partial"
	bad=""
	for opt in want partial; do
		args=(--dump-dmesg)
		[ $opt = want ] || args+=(--partial-dmesg)
		rm -f "$T/k172"
		qemu-arm -L "${ARMHF_MDF%/usr/bin/makedumpfile}" "$ARMHF_MDF" "${args[@]}" \
			"$T/v.arm-small" "$T/k172" >"$T/k172.log" 2>&1 &&
			cmp -s "$T/k172" "$T/dmesg.$opt" || bad="$bad $opt: $(head -c 120 "$T/k172" 2>&1)"
	done
	if [ -z "$bad" ]; then ok "gen-arm-makedumpfile-1.7.2-dmesg"
	else notok "gen-arm-makedumpfile-1.7.2-dmesg" "${bad# }"; fi
	# and its bytes: -l at the levels where it walks the struct pages
	# (at 0 and 1 it keeps the offline pages, above), -E at 1 and 31
	bad=""
	for f in "l 16" "l 31" "E 1" "E 31"; do
		read -r fmt lvl <<<"$f"
		rm -f "$T/k172" "$T/kours"
		qemu-arm -L "${ARMHF_MDF%/usr/bin/makedumpfile}" "$ARMHF_MDF" -"$fmt" -d "$lvl" \
			"$T/v.arm-small" "$T/k172" >"$T/k172.log" 2>&1 &&
			"$MDF" -"$fmt" -d "$lvl" --message-level 0 "$T/v.arm-small" "$T/kours" >"$T/kours.log" 2>&1 &&
			python3 "$MDF_SRC/tests/tools/elf_same.py" "$T/k172" "$T/kours" >"$T/same.log" 2>&1 ||
			bad="$bad -$fmt -d $lvl: $(head -n1 "$T/same.log")$(tail -n1 "$T/kours.log")"
	done
	if [ -z "$bad" ]; then ok "arm-makedumpfile-1.7.2-bytes (-l -d 16, 31; -E -d 1, 31)"
	else notok "arm-makedumpfile-1.7.2-bytes" "${bad# }"; fi
	# its -R of our flattened stream and --reassemble of our --split set
	# (pfns from PHYS_OFFSET in the parts' ranges too) are our -l file
	rm -f "$T/kours" "$T/k172" "$T/p1" "$T/p2" "$T/r172"
	if "$MDF" -l -d 31 --message-level 0 "$T/v.arm-small" "$T/kours" >/dev/null 2>&1 &&
		"$MDF" -l -d 31 -F --message-level 0 "$T/v.arm-small" 2>/dev/null |
		qemu-arm -L "${ARMHF_MDF%/usr/bin/makedumpfile}" "$ARMHF_MDF" -R "$T/k172" >"$T/k172.log" 2>&1 &&
		cmp -s "$T/k172" "$T/kours" &&
		"$MDF" -l -d 31 --split --message-level 0 "$T/v.arm-small" "$T/p1" "$T/p2" >/dev/null 2>&1 &&
		qemu-arm -L "${ARMHF_MDF%/usr/bin/makedumpfile}" "$ARMHF_MDF" --reassemble "$T/p1" "$T/p2" \
			"$T/r172" >"$T/k172.log" 2>&1 && cmp -s "$T/r172" "$T/kours"
	then ok "arm-makedumpfile-1.7.2-rearranges-ours (-R, --reassemble)"
	else notok "arm-makedumpfile-1.7.2-rearranges-ours" "$(tail -n1 "$T/k172.log")"; fi
	# refiltering both ways: ours of its -d 1 file and its of ours at -d 31
	# are our -l -d 31 file
	rm -f "$T/k172" "$T/r172" "$T/rours"
	if qemu-arm -L "${ARMHF_MDF%/usr/bin/makedumpfile}" "$ARMHF_MDF" -l -d 1 \
		"$T/v.arm-small" "$T/k172" >"$T/k172.log" 2>&1 &&
		"$MDF" -l -d 31 --message-level 0 "$T/k172" "$T/rours" >"$T/kours.log" 2>&1 &&
		cmp -s "$T/rours" "$T/kours" &&
		qemu-arm -L "${ARMHF_MDF%/usr/bin/makedumpfile}" "$ARMHF_MDF" -l -d 31 "$T/kours" \
			"$T/r172" >"$T/k172.log" 2>&1 && cmp -s "$T/r172" "$T/kours"
	then ok "arm-makedumpfile-1.7.2-refilter-both-ways"
	else notok "arm-makedumpfile-1.7.2-refilter-both-ways" "$(tail -n1 "$T/kours.log") $(tail -n1 "$T/k172.log")"; fi
	rm -f "$T/p1" "$T/p2" "$T/r172" "$T/rours"
	rm -f "$T/k172" "$T/kours" "$T/v.arm-small"
else
	skip gen-arm-makedumpfile-1.7.2 "no armhf makedumpfile (tests/lab/armhf_makedumpfile.sh) or qemu-arm"
fi

# The program (arch/arm.c): its bitmaps equal the reference at every level
# on both formats, below and above 4 GiB; -l -d 31 keeps the ELF's pages
# (its kdump file numbered from PHYS_OFFSET, in armhf's EABI32 headers),
# -E, --mem-usage and --dump-dmesg.
for l in 0 1 2 4 8 16 31; do
	genarch_bitmaps "arm-dry-run-d$l" "$V" "$T/ref" $l
done
genarch_bitmaps "arm-super-dry-run" "$T/v.arm-super" "$T/ref.arm-super" 0 31
genarch_bitmaps "arm-lpae-dry-run" "$T/v.arm-lpae" "$T/ref.arm-lpae" 0 1 2 4 8 16 31
genarch_bitmaps "arm-lpae64-dry-run" "$T/v.arm-lpae64" "$T/ref.arm-lpae64" 0 1 2 4 8 16 31
genarch_l_d31 arm "$V" armv7l
genarch_l_d31 arm-lpae64 "$T/v.arm-lpae64" armv7l
genarch_E_d31 arm "$V" 'ARM'
genarch_mem_usage arm "$V" "$WANT_ROWS"
# a split set of the LPAE machine above 4 GiB ($T/d31 is its -l file; the
# parts' ranges counted from PHYS_OFFSET) reads as the dump, and
# reassembles to it
rm -f "$T/p1" "$T/p2" "$T/p3" "$T/ra" "$T/rs"
if "$MDF" -l -d 31 --split --message-level 0 "$T/v.arm-lpae64" "$T/p1" "$T/p2" "$T/p3" >"$T/s.log" 2>&1 &&
	"$MDF" --reassemble "$T/p1" "$T/p2" "$T/p3" "$T/ra" >>"$T/s.log" 2>&1 && cmp -s "$T/ra" "$T/d31" &&
	"$MDF" -l -d 31 --message-level 0 "$T/p3" "$T/p1" "$T/p2" "$T/rs" >>"$T/s.log" 2>&1 &&
	cmp -s "$T/rs" "$T/d31"
then ok "arm-split-set"
else notok "arm-split-set" "$(tail -n1 "$T/s.log")"; fi
rm -f "$T/p1" "$T/p2" "$T/p3" "$T/ra" "$T/rs"
genarch_dmesg_want "$T/spec" "$T/dmesg.want"
rm -f "$T/dm.out"
if "$MDF" --dump-dmesg "$V" "$T/dm.out" >"$T/dm.log" 2>&1 && cmp -s "$T/dm.out" "$T/dmesg.want"
then ok "arm-dump-dmesg"
else notok "arm-dump-dmesg" "$(diff "$T/dmesg.want" "$T/dm.out" 2>&1 | head -n3 | tr '\n' ' ')"; fi
# RAM from 0x40100000: PHYS_OFFSET (0x40000000) is proven from the tables,
# not taken from kexec-tools' p_vaddr, which are 1 MiB off.
if [ -s "$T/v.off" ]; then
	genarch_variant arm-off "$T/spec.off" &&
		genarch_bitmaps "arm-phys-offset-dry-run" "$T/v.arm-off" "$T/ref.arm-off" 0 31
fi
rm -f "$T/v.arm-lpae" "$T/v.arm-lpae64" "$T/v.arm-super" "$T/v.off" "$T/v.arm-off"
exit 0
