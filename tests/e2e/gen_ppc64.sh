#!/bin/bash
# ppc64 dumps from the synthetic generator (tests/gen, "arch ppc64": Debian
# 6.1 ppc64el, Book3S-64, 64 KiB pages, RAM from 0): the generator's own
# shape (ELF machine, VMCOREINFO, an independent walk in python of the
# big-endian radix and hash tables and of vmemmap_list), then the program
# on it: dry-run bitmaps equal the reference at every level under radix
# (with and without NUMBER(RADIX_MMU), with vmemmap_list emptied so only
# the tables give the vmemmap) and hash (the MMU told apart by
# swapper_pg_dir's entry 0), the -l dump's pages equal the ELF and do not
# depend on threads, -E, refiltering, and --mem-usage rows equal what the
# spec declares.  "arch ppc64be", the same machine with a big-endian
# kernel (ELF, notes and every kernel word big-endian), gets the layout
# walk, the bitmaps and the -l dump's pages too.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genarch.sh"

# 320 MiB in two ranges with a gap, pfns of 64 KiB: the image (40 MiB, as
# the lab kernel's) at physical 0, pfns 0-0x27f.  thp and hugetlb without
# order= are 2 MiB (order 5) under radix.
cat >"$T/spec" <<'SPEC'
arch ppc64
kernel 6.1
cpus 2
ram 0 +192M
ram 0x10000000 +128M
pages 0x300+64 anon random
pages 0x340+32 cache text 3
pages 0x360+32 cache_private byte 0x5a
pages 0x380+16 swapcache random 9
pages 0x400+64 thp random
pages 0x440+32 hugetlb text
pages 0x460+8 slab random
pages 0x468+4 hwpoison
pages 0x46c+4 offline
pages 0x500+256 free order=8
fill 0x600+16 zero
pages 0x610+1 anon zero
pages 0x1100+16 kernel random 4
pages 0x1200+64 cache text 5
pages 0x1300+32 thp order=5 random 6
pages 0x1400+16 anon random 7
SPEC
# What the spec declares, as --mem-usage counts it.
WANT_ROWS="NON_PRI_CACHE=$((32 + 16 + 64)) PRI_CACHE=32 USER=$((64 + 64 + 32 + 1 + 32 + 16))"

genarch_make ppc64 PowerPC64 little || exit 0

# The generator's ppc64 shape, read without the program: VMCOREINFO
# lines, PT_LOADs, the tables from swapper_pg_dir (big-endian entries, the
# radix or hash geometry), vmemmap_list, mem_section and struct pages.
# Arguments: vmcore, radix|hash, yes|no (NUMBER(RADIX_MMU)), number of
# RAM ranges, the vmemmap block shift, pfns whose PG_lru is set.  The
# kernel's byte order is the file's (little-endian, or ppc64be's big).
cat >"$T/layout.py" <<'PY'
import os, mmap, struct, sys
sys.path.insert(0, os.path.join(os.environ["MDF_SRC"], "tests", "tools"))
from vmcore_layout import read_vmcore, byte_order
d, loads, vmi, prs = read_vmcore(sys.argv[1])
E = byte_order(d)
BE = E == ">"
radix, number, nram, block_shift = sys.argv[2] == "radix", sys.argv[3] == "yes", int(sys.argv[4]), int(sys.argv[5])
PO, PAGE = 0xc000000000000000, 1 << 16
bad = []
def need(cond, msg):
    if not cond: bad.append(msg)
def rpa(pa, n):
    for va, p, fs, off in loads:
        if p <= pa and pa + n <= p + fs:
            return d[off + pa - p:off + pa - p + n]
    raise SystemExit("paddr %#x not in a PT_LOAD" % pa)
u64 = lambda pa: struct.unpack(E + "Q", rpa(pa, 8))[0]   # the kernel's order
u32 = lambda pa: struct.unpack(E + "I", rpa(pa, 4))[0]
be64 = lambda pa: struct.unpack(">Q", rpa(pa, 8))[0]     # page-table entries
sym = lambda k: int(vmi[k], 16)
e_machine, = struct.unpack_from(E + "H", d, 18); e_flags, = struct.unpack_from(E + "I", d, 48)
need(e_machine == 21 and e_flags == (0 if BE else 2),
     "ELF data %d, e_machine %d, e_flags %d: want EM_PPC64, ELFv2 (2) for LE, 0 for BE" %
     (d[5], e_machine, e_flags))
want = {"OSRELEASE": "6.1.0-57-powerpc64" + ("" if BE else "le"), "PAGESIZE": "65536",
        "NUMBER(SECTION_SIZE_BITS)": "24", "NUMBER(MAX_PHYSMEM_BITS)": "51",
        "LENGTH(mem_section)": "65536", "SIZE(mem_section)": "32", "SIZE(page)": "64",
        "LENGTH(zone.free_area)": "9", "NUMBER(PG_lru)": "4", "NUMBER(PG_hwpoison)": "22",
        "NUMBER(PG_head_mask)": "65536", "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)": "-129",
        "SYMBOL(_stext)": "c000000000000000", "KERNELOFFSET": "0",
        "SIZE(vmemmap_backing)": "24", "OFFSET(vmemmap_backing.list)": "0",
        "OFFSET(vmemmap_backing.phys)": "8", "OFFSET(vmemmap_backing.virt_addr)": "16",
        "SIZE(mmu_psize_def)": "96", "OFFSET(mmu_psize_def.shift)": "0"}
if number:
    want["NUMBER(RADIX_MMU)"] = "1" if radix else "0"
for k, v in want.items():
    need(vmi.get(k) == v, "%s=%s, want %s" % (k, vmi.get(k), v))
for k in ("NUMBER(phys_base)", "SYMBOL(init_top_pgt)", "NUMBER(pgtable_l5_enabled)",
          "NUMBER(KERNEL_IMAGE_SIZE)", "NUMBER(sme_mask)", "NUMBER(VA_BITS)",
          "NUMBER(kimage_voffset)", "NUMBER(PHYS_OFFSET)", "NUMBER(phys_ram_base)",
          "SYMBOL(vmemmap)", "NUMBER(VMALLOC_START)", "NUMBER(VMEMMAP_START)") + \
        (() if number else ("NUMBER(RADIX_MMU)",)):
    need(k not in vmi, "foreign line %s" % k)
need(prs and all(n == 504 for n in prs), "NT_PRSTATUS sizes %s" % prs)
need(len(loads) == nram and min(pa for va, pa, fs, off in loads) == 0,
     "%d PT_LOADs from %#x: want %d RAM ranges from 0, no image" % (len(loads), loads[0][1], nram))
need(all(va == PO + pa for va, pa, fs, off in loads), "linear map offsets")
# Index bits per level from the top and where they start (radix-64k.h,
# hash-64k.h); the top level drops the va bits above its own.
bits = [13, 9, 9, 5] if radix else [8, 10, 10, 8]
shifts = [16 + sum(bits[l + 1:]) for l in range(4)]
pgd = sym("SYMBOL(swapper_pg_dir)") - PO
need(pgd % PAGE == 0, "swapper_pg_dir pa %#x" % pgd)
leaf_sizes = set()
def walk(va):
    t = pgd
    for level in range(4):
        e = be64(t + 8 * (va >> shifts[level] & (1 << bits[level]) - 1))
        if not e & 1 << 63:
            raise SystemExit("va %#x: entry %#x at level %d not present" % (va, e, level))
        if e & 1 << 62:    # _PAGE_PTE: a leaf
            size = 1 << shifts[level]
            pa = e & (1 << 53) - 1 & ~(size - 1)
            need(e & 0x3fff == 0x18e, "leaf %#x: want R W PRIVILEGED DIRTY ACCESSED" % e)
            need(e & (1 << 53) - 1 & (size - 1) & ~0xffff == 0, "misaligned leaf %#x at level %d" % (e, level))
            leaf_sizes.add(shifts[level])
            return pa | va & size - 1
        need(level < 3, "a table entry %#x at the last level" % e)
        nls = bits[level + 1] if radix else 0   # radix: the next level's index bits
        need(e & 0xff == nls, "table entry %#x at level %d: NLS %d, want %d" % (e, level, e & 0xff, nls))
        t = e & ~0xc0000000000000ff
    raise SystemExit("va %#x: no leaf" % va)
# Radix maps the linear map (entry 0 set), hash leaves it to the hash table.
need((be64(pgd) != 0) == radix, "swapper_pg_dir[0] = %#x under %s" % (be64(pgd), sys.argv[2]))
if radix:
    for off in (0, 0x1234560, 0x10abcde8):
        need(walk(PO + off) == off, "linear map at +%#x" % off)
for i in range(4):   # vmalloc pages: their words hold their own va
    for off in (0, 0x7ff8, 0xfff8):
        va = 0xc008000000000000 + i * PAGE + off
        need(u64(walk(va)) == va, "vmalloc %#x" % va)
# vmemmap_list: blocks of 1 << mmu_psize_defs[mmu_vmemmap_psize].shift.
psize = u32(sym("SYMBOL(mmu_vmemmap_psize)") - PO)
shift = u32(sym("SYMBOL(mmu_psize_defs)") - PO + 96 * psize)
need(shift == block_shift, "vmemmap block shift %d (psize %d), want %d" % (shift, psize, block_shift))
blocks, node = [], u64(sym("SYMBOL(vmemmap_list)") - PO)
while node and len(blocks) < 100000:
    blocks.append((u64(node - PO + 16), u64(node - PO + 8)))
    node = u64(node - PO)
vbase = 0xc00a000000000000 if radix else 0xc00c000000000000
need(blocks and all(v % (1 << shift) == 0 and p % (1 << shift) == 0 and v >= vbase for v, p in blocks),
     "vmemmap_list blocks %s" % [(hex(v), hex(p)) for v, p in blocks[:4]])
def via_list(va):
    for v, p in blocks:
        if v <= va < v + (1 << shift):
            return p + va - v
    raise SystemExit("va %#x in no vmemmap_list block" % va)
def page(pfn):
    sec = pfn >> 8
    root = u64(sym("SYMBOL(mem_section)") - PO + 8 * (sec // 2048))
    smm = u64(root - PO + 32 * (sec % 2048))
    need(smm & ~0x3f == vbase and smm & 0xf == 0xf, "section_mem_map %#x" % smm)
    va = (smm & ~0x3f) + 64 * pfn
    pa = via_list(va)
    if radix:   # both ways agree
        need(walk(va) == pa, "struct page of pfn %#x: tables and vmemmap_list differ" % pfn)
    return struct.unpack_from(E + "Q", rpa(pa, 64))[0]
for pfn in [int(x, 0) for x in sys.argv[6].split(",")]:
    need(page(pfn) >> int(vmi["NUMBER(PG_lru)"]) & 1, "pfn %#x: no PG_lru" % pfn)
uts = rpa(sym("SYMBOL(init_uts_ns)") - PO, 390)
need(uts[4 * 65:4 * 65 + 8] == (b"ppc64\0\0\0" if BE else b"ppc64le\0"), "utsname.machine %r" % uts[260:268])
names = {16: "64K", 21: "2M", 24: "16M", 30: "1G"}
print("; ".join(bad) if bad else "leaves %s, %d vmemmap_list block(s) of %s" %
      (" ".join(names[s] for s in sorted(leaf_sizes)), len(blocks), names[shift]))
PY
layout() { # NAME VMCORE radix|hash RADIX_MMU-yes|no NRAM BLOCK-SHIFT PFNS
	if [ -z "$HAVE_PY" ]; then skip "$1" "no python3"; return; fi
	local why
	why=$(python3 "$T/layout.py" "$2" "$3" "$4" "$5" "$6" "$7" 2>&1)
	if [[ "$why" == leaves* ]]; then ok "$1 ($why)"; else notok "$1" "$why"; fi
}
PFNS=0x300,0x340,0x360,0x1200,0x1400
layout gen-ppc64-layout "$V" radix no 2 21 $PFNS

# Bad specs: a kernel without a ppc64 preset, the ppc64 words elsewhere,
# what ppc64 fixes, a 4 KiB vmemmap_pte, a buddy order past LENGTH 9.
genarch_spec_errors ppc64 'arch ppc64\nkernel 6.12\nram 0 +64M|arch ppc64 has no kernel' \
	'mmu hash\nram 0 1G|ppc64 only' 'radix_number yes\nram 0 1G|ppc64 only' \
	'arch ppc64\npage_offset 0xc000000000000000\nram 0 +64M|linear map' \
	'arch ppc64\nkaslr 0x200000\nram 0 +64M|KASLR' 'arch ppc64\nkcore\nram 0 +64M|kcore' \
	'arch ppc64\nvmemmap_pte 4k\nram 0 +64M|64k or 2m' \
	'arch ppc64\nram 0 +64M\npages 0x200+512 free order=9|0..8' \
	'arch ppc64\nram 0 +64M\npages 0x300+16 thp|whole blocks' \
	'arch ppc64\nmmu segments\nram 0 +64M|radix or hash'

# Dry-run bitmaps against the reference, level by level.
for l in 0 1 2 4 8 16 31; do
	genarch_bitmaps "ppc64-dry-run-d$l" "$V" "$T/ref" $l
done

# The variants: their layout, then their bitmaps at a few levels.
variant() { # NAME SPEC radix|hash RADIX_MMU NRAM BLOCK-SHIFT PFNS
	local name=$1
	if ! "$GEN" "$2" "$T/v.$name" --ref "$T/ref.$name" >"$T/gen.$name.log" 2>&1; then
		notok "gen-ppc64-$name" "mkvmcore failed: $(tail -n1 "$T/gen.$name.log")"; return
	fi
	layout "gen-ppc64-$name-layout" "$T/v.$name" "$3" "$4" "$5" "$6" "$7"
	genarch_bitmaps "ppc64-$name-dry-run" "$T/v.$name" "$T/ref.$name" 0 8 31
}
# Radix with NUMBER(RADIX_MMU)=1 (Linux 6.7 on).
{ cat "$T/spec"; echo "radix_number yes"; } >"$T/spec.number"
variant radix-number "$T/spec.number" radix yes 2 21 $PFNS
# Radix without it and with vmemmap_list emptied (its head poked to NULL):
# the struct pages come from the tables alone, so the program must have
# told radix from entry 0 of swapper_pg_dir; in 2 MiB leaves, then in
# 64 KiB pages (the last level).  The variable's address is the same in
# all these dumps (a page of the image).
vl=$(grep -a -o 'SYMBOL(vmemmap_list)=[0-9a-f]*' "$V" | head -n1)
vl_pa=$(printf '0x%x' $((0x${vl#*=} - 0xc000000000000000)))   # wraps as the kernel's
{ cat "$T/spec"; echo "poke phys $vl_pa 0000000000000000"; } >"$T/spec.nolist"
{ cat "$T/spec.nolist"; echo "vmemmap_pte 64k"; } >"$T/spec.nolist64k"
for v in nolist nolist64k; do
	if ! "$GEN" "$T/spec.$v" "$T/v.$v" --ref "$T/ref.$v" >"$T/gen.$v.log" 2>&1; then
		notok "gen-ppc64-$v" "mkvmcore failed: $(tail -n1 "$T/gen.$v.log")"; continue
	fi
	bad=""
	for l in 0 31; do
		"$MDF" -f --dry-run --message-level 0 -d $l --debug-bitmap "$T/b.$v.$l" \
			--debug-bitmap1 "$T/b1.$v" "$T/v.$v" >"$T/dry.$v.log" 2>&1 ||
			{ bad="$bad d$l:exit($(tail -n1 "$T/dry.$v.log"))"; continue; }
		cmp -s "$T/b.$v.$l" "$T/ref.$v/d$l.bitmap2" || bad="$bad d$l:bitmap2"
	done
	if [ -n "$bad" ]; then notok "ppc64-$v-dry-run" "$bad"
	elif [ "$(od -An -tx8 -j $((vl_pa + $(readelf -lW "$T/v.$v" | awk '$1 == "LOAD" { print $2; exit }'))) \
		-N8 "$T/v.$v" | tr -d ' ')" != 0000000000000000 ]; then
		notok "ppc64-$v-dry-run" "vmemmap_list not emptied at paddr $vl_pa"
	else ok "ppc64-$v-dry-run (radix tables only)"; fi
	rm -f "$T/v.$v"
done
# Hash: thp and hugetlb without order= are 16 MiB (order 8); the
# vmemmap in 16 MiB blocks on vmemmap_list only; without NUMBER(RADIX_MMU)
# (swapper_pg_dir's entry 0 is empty), with it (0), in 64 KiB blocks.
sed -e 's/^pages 0x400+64 thp random$/pages 0x700+256 thp/' \
	-e 's/^pages 0x440+32 hugetlb text$/pages 0x800+256 hugetlb/' \
	-e 's/^kernel 6.1$/mmu hash/' "$T/spec" >"$T/spec.hash"
variant hash "$T/spec.hash" hash no 2 24 $PFNS
{ cat "$T/spec.hash"; echo "radix_number yes"; } >"$T/spec.hash-number"
variant hash-number "$T/spec.hash-number" hash yes 2 24 $PFNS
{ cat "$T/spec.hash"; echo "vmemmap_pte 64k"; } >"$T/spec.hash64k"
variant hash64k "$T/spec.hash64k" hash no 2 16 $PFNS

# Big-endian: the same machine as "arch ppc64be".
sed -e 's/^arch ppc64$/arch ppc64be/' "$T/spec" >"$T/spec.be"
variant be "$T/spec.be" radix no 2 21 $PFNS
if [ -n "$HAVE_PY" ] && [ -f "$T/v.be" ]; then
	if "$MDF" -l -d 31 --message-level 0 "$T/v.be" "$T/b31" >"$T/lb.log" 2>&1 &&
		out=$(genarch_pages "$T/b31" "$T/v.be" 2>&1) && [[ "$out" == *" 0 differ"* ]]; then
		ok "ppc64be-l-d31-pages ($(echo "$out" | tail -n1))"
	else notok "ppc64be-l-d31-pages" "$(tail -n1 "$T/lb.log") $(echo "$out" | tail -n2 | tr '\n' ' ')"; fi
fi

# -l -d 31, -E -d 31 and --mem-usage (tests/lib/genarch.sh).
genarch_l_d31 ppc64 "$V" ppc64le
# The hash dump's pages too.
if [ -f "$KPY" ] && [ -n "$HAVE_PY" ] && [ -f "$T/v.hash" ]; then
	if "$MDF" -l -d 31 --message-level 0 "$T/v.hash" "$T/h31" >"$T/lh.log" 2>&1 &&
		out=$(python3 "$KPY" pages "$T/h31" "$T/v.hash" 2>&1) && [[ "$out" == *" 0 differ"* ]]; then
		ok "ppc64-hash-l-d31-pages ($(echo "$out" | tail -n1))"
	else notok "ppc64-hash-l-d31-pages" "$(tail -n1 "$T/lh.log") $(echo "$out" | tail -n2 | tr '\n' ' ')"; fi
fi
rm -f "$T"/v.* "$T/h31" "$T/b31"

genarch_E_d31 ppc64 "$V" PowerPC64

genarch_mem_usage ppc64 "$V" "$WANT_ROWS"
exit 0
