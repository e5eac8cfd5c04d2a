#!/bin/bash
# loongarch64 dumps from the synthetic generator (tests/gen, "arch
# loongarch64": Debian's loong64 7.2.13+deb14-loong64, 16 KiB pages, 3
# levels, RAM and the image in the cached window DMW1): the generator's own
# shape (ELF machine, VMCOREINFO, an independent python walk of
# swapper_pg_dir, whose directory entries are DMW1 pointers and whose empty
# ones point at invalid_pmd_table / invalid_pte_table), then the program on
# it: dry-run bitmaps equal the reference at every level, the -l dump's
# pages equal the ELF and do not depend on threads, -E, refiltering, and
# --mem-usage rows equal what the spec declares.  A relocated kernel
# ("kaslr": the image moved, va and pa together) is a variant.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genarch.sh"

# qemu's virt machine on loongarch: low RAM from 0 (256 MiB), high RAM from
# 0x90000000 (pfn 0x24000 with 16 KiB pages).  No hwpoison: the kernel has
# no PG_hwpoison.  thp: a 32 MiB huge PMD, order 11.
cat >"$T/spec" <<'SPEC'
arch loongarch64
cpus 2
ram 0 +256M
ram 0x90000000 +768M
pages 0x2000+512 anon random
pages 0x2200+256 cache text 3
pages 0x2300+256 cache_private byte 0x5a
pages 0x2400+64 swapcache random 9
pages 0x2800+2048 thp random
pages 0x3000+512 hugetlb order=9 text
pages 0x3200+16 slab random
pages 0x3214+4 offline
pages 0x3400+256 free order=8
fill 0x3600+256 zero
pages 0x3700+1 anon zero
pages 0x24800+64 kernel random 4
pages 0x25000+512 cache text 5
pages 0x26000+128 anon random 7
SPEC
WANT_ROWS="NON_PRI_CACHE=$((256 + 64 + 512)) PRI_CACHE=256 USER=$((512 + 2048 + 512 + 1 + 128))"

genarch_make loongarch64 LoongArch || exit 0

# The generator's loongarch64 shape, read without the program.  Arguments:
# vmcore, image paddr, pfns with PG_lru.
cat >"$T/layout.py" <<'PY'
import os, struct, sys
sys.path.insert(0, os.path.join(os.environ["MDF_SRC"], "tests", "tools"))
from vmcore_layout import read_vmcore
d, loads, vmi, prs = read_vmcore(sys.argv[1])
image_pa = int(sys.argv[2], 0)
DMW1, PA = 0x9000000000000000, (1 << 48) - 1
PAGE, BITS = 1 << 14, 11
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
def dmw(va, what):
    need(va >> 48 == 0x9000, "%s %#x is not a DMW1 address" % (what, va))
    return va & PA
want = {"PAGESIZE": "16384", "NUMBER(SECTION_SIZE_BITS)": "29", "NUMBER(MAX_PHYSMEM_BITS)": "48",
        "LENGTH(mem_section)": "1024", "SIZE(page)": "80", "LENGTH(zone.free_area)": "12",
        "OSRELEASE": "7.2.13+deb14-loong64", "NUMBER(PG_lru)": "5", "NUMBER(PG_head_mask)": "64",
        "OFFSET(page.compound_info)": "8"}
for k, v in want.items():
    need(vmi.get(k) == v, "%s=%s, want %s" % (k, vmi.get(k), v))
for k in ("NUMBER(PG_hwpoison)", "NUMBER(phys_base)", "SYMBOL(init_top_pgt)", "KERNELOFFSET",
          "NUMBER(VA_BITS)", "NUMBER(PAGE_OFFSET)", "NUMBER(KERNEL_IMAGE_SIZE)",
          "SYMBOL(kallsyms_relative_base)"):
    need(k not in vmi, "foreign line %s" % k)
need(prs == [480, 480], "NT_PRSTATUS sizes %s" % prs)
# kexec-tools: the image first (_text, "Kernel code"), every range at DMW1
tva, tpa = loads[0][0], loads[0][1]
need(tpa == image_pa and tva == DMW1 + image_pa, "image PT_LOAD %#x -> %#x" % (tva, tpa))
need(all(va - pa == DMW1 for va, pa, fs, off in loads), "PT_LOADs not at DMW1 + paddr")
need(sym("SYMBOL(_stext)") == tva + 0x20000, "_stext %s" % vmi["SYMBOL(_stext)"])
need(rpa(tpa + 0x8000, 4096) == d[loads[0][3] + 0x8000:loads[0][3] + 0x9000], "image alias")
pgd = dmw(sym("SYMBOL(swapper_pg_dir)"), "swapper_pg_dir")
# the empty tables: most of swapper_pg_dir points at one table (invalid_pmd_table),
# all of whose entries point at a table of zeros (invalid_pte_table)
ents = [u64(pgd + 8 * i) for i in range(2048)]
inv_pmd = max(set(ents), key=ents.count)
need(ents.count(inv_pmd) > 1024, "swapper_pg_dir: no empty-table majority")
need(all(e >> 48 == 0x9000 and e % PAGE == 0 for e in ents), "swapper_pg_dir: an entry is no DMW1 table pointer")
pmd_ents = set(u64((inv_pmd & PA) + 8 * i) for i in range(2048))
need(len(pmd_ents) == 1, "invalid_pmd_table is not uniform")
inv_pte = pmd_ents.pop()
need(all(u64((inv_pte & PA) + 8 * i) == 0 for i in range(2048)), "invalid_pte_table is not zero")
leaf_sizes = set()
def walk(va):
    t = pgd
    for level in range(3):
        shift = 14 + BITS * (2 - level)
        e = u64(t + 8 * ((va >> shift) & 2047))
        if level == 1 and e & 0x40:       # _PAGE_HUGE: a 32 MiB leaf
            need(e & 0x80 and e & 0x1000, "huge PMD %#x: want PRESENT and HGLOBAL" % e)
            need(e & (PA & ~((1 << shift) - 1)) & ((1 << shift) - 1) == 0, "misaligned huge PMD")
            leaf_sizes.add(shift)
            return (e & PA & ~((1 << shift) - 1)) | (va & ((1 << shift) - 1))
        if level == 2:
            if not e & 0x80:
                raise SystemExit("va %#x: PTE %#x not present" % (va, e))
            need(e & 0x1ff == 0x1d3, "PTE %#x: want PAGE_KERNEL 0x1d3" % e)
            leaf_sizes.add(shift)
            return (e & PA & ~(PAGE - 1)) | (va & (PAGE - 1))
        if e in (inv_pmd, inv_pte):
            raise SystemExit("va %#x: level %d points at the empty table" % (va, level))
        t = dmw(e, "directory entry")
        need(t % PAGE == 0, "table %#x not page aligned" % t)
def page(pfn):
    sec = pfn >> 15
    root = dmw(u64(dmw(sym("SYMBOL(mem_section)"), "mem_section") + 8 * (sec // 512)), "root")
    smm = u64(root + 32 * (sec % 512))
    need(smm & ~0x1f == sym("SYMBOL(vmemmap)"), "section_mem_map %#x" % smm)
    return rpa(walk((smm & ~0x1f) + 80 * pfn), 80)
for pfn in [int(x, 0) for x in sys.argv[3].split(",")]:
    pg = page(pfn)
    need(struct.unpack_from("<Q", pg)[0] >> num("NUMBER(PG_lru)") & 1, "pfn %#x: no PG_lru" % pfn)
    need(struct.unpack_from("<Q", pg, 64)[0] == DMW1 + (pfn << 14), "pfn %#x: page->virtual" % pfn)
vs = num("NUMBER(VMALLOC_START)")
need(vs == 0xffff000012008000, "VMALLOC_START %#x" % vs)
for i in range(4):   # the vmalloc pages hold their own addresses
    need(u64(walk(vs + i * PAGE + 8)) == vs + i * PAGE + 8, "vmalloc page %d" % i)
uts = rpa(dmw(sym("SYMBOL(init_uts_ns)"), "init_uts_ns"), 390)
need(uts[4 * 65:4 * 65 + 12] == b"loongarch64\0", "utsname.machine %r" % uts[260:272])
print("; ".join(bad) if bad else "leaves " + " ".join({14: "16K", 25: "32M"}[s] for s in sorted(leaf_sizes)))
PY
genarch_layout gen-loongarch64-layout "$T/layout.py" "$V" 0x200000 0x2000,0x2200,0x26000

# Bad specs: a kernel with no loongarch64 preset, a directory the arch
# refuses, kcore, hwpoison pages, dmesg (7.2's printk_info is not the
# ring the generator writes).
genarch_spec_errors loongarch64 'arch loongarch64\nkernel 6.12\nram 0 +256M|arch loongarch64' \
	'arch loongarch64\npage_offset 0xffff800000000000\nram 0 +256M|DMW1' \
	'arch loongarch64\nkcore\nram 0 +256M|kcore' \
	'arch loongarch64\nram 0 +256M\npages 0x2000+4 hwpoison|PG_hwpoison' \
	'arch loongarch64\nram 0 +256M\ndmesg hello|printk_info'

# Dry-run bitmaps against the reference, level by level.
for l in 0 1 2 4 8 16 31; do
	genarch_bitmaps "loongarch64-dry-run-d$l" "$V" "$T/ref" $l
done

# A relocated kernel: the image 32 MiB up, va and pa together.
sed -e 's/^cpus 2/cpus 2\nkaslr 0x2000000/' "$T/spec" >"$T/spec.reloc"
if genarch_variant loongarch64-reloc "$T/spec.reloc"; then
	genarch_layout gen-loongarch64-reloc-layout "$T/layout.py" "$T/v.loongarch64-reloc" 0x2200000 0x2000,0x26000
	genarch_bitmaps loongarch64-reloc-dry-run "$T/v.loongarch64-reloc" "$T/ref.loongarch64-reloc" 0 31
	rm -f "$T/v.loongarch64-reloc"
fi

# "kernel 6.1", the model for makedumpfile 1.7.2 (tests/e2e/loongarch64_oracle.sh):
# 6.1's struct page semantics and printk ring on the same machine.
sed -e 's/^cpus 2/kernel 6.1\ncpus 2/' "$T/spec" >"$T/spec.k61"
printf 'dmesg LAB-MARKER loongarch64 6.1 model\n' >>"$T/spec.k61"
if genarch_variant loongarch64-6.1 "$T/spec.k61"; then
	genarch_bitmaps loongarch64-6.1-dry-run "$T/v.loongarch64-6.1" "$T/ref.loongarch64-6.1" 0 1 2 4 8 16 31
	if "$MDF" --dump-dmesg "$T/v.loongarch64-6.1" "$T/k61.dmesg" >"$T/k61.log" 2>&1 &&
		grep -q "LAB-MARKER loongarch64 6.1 model" "$T/k61.dmesg"
	then ok loongarch64-6.1-dmesg
	else notok loongarch64-6.1-dmesg "$(tail -n 1 "$T/k61.log")"; fi
	rm -f "$T/v.loongarch64-6.1"
fi

# -l -d 31, -E -d 31 and --mem-usage (tests/lib/genarch.sh).
genarch_l_d31 loongarch64 "$V" loongarch64

# -x with the real vmlinux (Debian's -dbg, tests/lab/debug_vmlinux.sh
# fetches it, a 1.1 GB package of sid that CI's check stage does not
# fetch: MDF_FETCH_DBG=1 makes it do so here): DWARF's layout gives
# the same -l -d 31 file as the preset's VMCOREINFO, so the preset is the
# vmlinux's.  (Without the note the release check reads init_uts_ns at the
# vmlinux's address, where the generator's kernel has none: not made.)
XV=${MDF_DBG_CACHE:-/var/tmp/mdf-dbg}/vmlinux-7.2.13+deb14-loong64
if [ ! -s "$XV" ] && [ "${MDF_FETCH_DBG:-0}" = 1 ]; then
	XV=$(bash "$MDF_SRC/tests/lab/debug_vmlinux.sh" 7.2.13+deb14-loong64) || XV=""
fi
if [ -z "$XV" ] || [ ! -s "$XV" ]; then
	skip loongarch64-x-vmlinux "no debug vmlinux (MDF_FETCH_DBG=1 fetches it: tests/lab/debug_vmlinux.sh 7.2.13+deb14-loong64)"
elif "$MDF" -x "$XV" -l -d 31 --message-level 0 "$V" "$T/x31" >"$T/x.log" 2>&1 && cmp -s "$T/d31" "$T/x31"; then
	ok loongarch64-x-vmlinux
else
	notok loongarch64-x-vmlinux "$(tail -n1 "$T/x.log") $(cmp "$T/d31" "$T/x31" 2>&1 | head -n1)"
fi
rm -f "$T/x31"

genarch_E_d31 loongarch64 "$V" LoongArch

genarch_mem_usage loongarch64 "$V" "$WANT_ROWS"
exit 0
