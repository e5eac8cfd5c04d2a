/*
 * tests/gen/gen_kernel.c - the fake kernel of the generator.
 *
 * Laid out like a real x86_64 kernel with SPARSEMEM_EXTREME and
 * SPARSEMEM_VMEMMAP:
 *  - init_top_pgt (= swapper_pg_dir) is a page of the kernel text; the
 *    text maps pa = va - __START_KERNEL_map + phys_base;
 *  - the struct page of pfn N is at vmemmap + N * 64, mapped by 2 MiB PMD
 *    leaves (or 4 KiB PTEs with "vmemmap_pte 4k"), one 2 MiB block per
 *    present 128 MiB section;
 *  - SYMBOL(mem_section) is the direct-map address of 4096 root pointers,
 *    each to a page of 128 struct mem_section (32 bytes); section_mem_map
 *    = (mem_map of the section - its first pfn) | flags 0xf, which with
 *    VMEMMAP is the vmemmap base itself (checked against fx-v61-512m);
 *  - the direct map is mapped with 1 GiB leaves, the text with 2 MiB ones.
 * Physical pages for all of this are taken top-down from RAM that no spec
 * line claims, like memblock does; those pfns are "kernel" pages.
 *
 * With "arch arm64" (Debian 6.1, 4 KiB granule, VA_BITS=48, PHYS_OFFSET 0)
 * the same tables use the stage-1 descriptor format and are rooted at
 * swapper_pg_dir; the linear map is at page_offset (0xffff000000000000),
 * the kernel image at KIMAGE_VADDR + kaslr with pa = va - kimage_voffset,
 * and mem_section has 16384 roots (MAX_PHYSMEM_BITS 48).
 *
 * With "arch riscv64" (Debian 6.12 under qemu virt) the tables are Sv57, Sv48
 * or Sv39 (5, 4 or 3 levels of 9 bits) rooted at swapper_pg_dir; RAM starts
 * at phys_ram_base (the spec's lowest RAM, 2 MiB aligned), the linear map
 * is pa = va - page_offset + phys_ram_base (1 GiB leaves when phys_ram_base
 * allows, else 2 MiB), the image sits at phys_ram_base + 2 MiB + phys_base
 * (qemu's 0x80200000, after OpenSBI) with its va at KERNEL_LINK_ADDR +
 * kaslr, vmemmap is VMEMMAP_START minus the struct pages below
 * phys_ram_base, and mem_section has 4194304 roots (MAX_PHYSMEM_BITS 56).
 *
 * With "arch ppc64" (Debian 6.1 ppc64el, Book3S-64) pages are 64 KiB and
 * sections 16 MiB (256 pfns, 16 KiB of struct pages: several sections share
 * a vmemmap block); mem_section has 65536 roots of 2048 sections.  The
 * kernel runs from physical 0 inside the linear map (va = 0xc000000000000000
 * + pa).  The four-level tables, rooted at swapper_pg_dir in the image, hold
 * big-endian entries; their geometry is the MMU's (radix 13/9/9/5 index bits
 * from the top, hash 8/10/10/8).  Radix tables map the linear map (1 GiB
 * leaves), the vmemmap (2 MiB leaves) and vmalloc; hash ones only vmalloc,
 * as the hash MMU bolts the rest into its hash table.  Either way the
 * vmemmap blocks are also on vmemmap_list, as 6.1 keeps it under both.
 * vmalloc_start maps a few pages that hold their own addresses, so that a
 * walk of both geometries reaches the last level and can be checked.
 * "arch ppc64be" is the same machine with a big-endian kernel.
 *
 * With "arch s390x" (Debian 6.1, big-endian, 4 KiB pages, 256 MiB
 * sections) the kernel runs in the identity map (va = pa) from its link
 * address 0x100000 + kaslr; swapper_pg_dir, a 16 KiB table in the image,
 * is a region-third, region-second (the default) or region-first table
 * ("levels 3|4|5") of 2048 entries, then segment tables (2048) and page
 * tables (256 entries, 2 KiB: two share a page).  The tables map every
 * RAM range the way vmem_add_range() does (2 GiB region-third leaves,
 * 1 MiB segment leaves, 4 KiB pages at unaligned edges) and the vmemmap
 * (1 MiB segments, or pages with "vmemmap_pte 4k"), high above the
 * identity map where 6.1's setup_kernel_memory_layout() puts it; an
 * unused entry holds the kernel's empty value (invalid bit and table
 * type), not 0.  mem_section has 2048 roots.  Everything is big-endian.
 *
 * With "arch x86" (Debian bookworm 6.1 -686, i386) the kernel is FLATMEM
 * with 32-bit words: SYMBOL(mem_map) is a variable holding the address of
 * one array of 40-byte struct pages for pfns 0 to max_pfn (rounded up to
 * 1024), taken from lowmem top-down as memblock does; lowmem (up to MAXMEM)
 * is direct-mapped at 0xc0000000 and holds the image (pa 0x1000000 +
 * kaslr, va = pa + PAGE_OFFSET), highmem has struct pages but no mapping.
 * swapper_pg_dir is a two-level table of 4-byte entries with 4 MiB PSE
 * leaves, or with "arch x86 pae" a four-entry PDPT over tables of 8-byte
 * entries with 2 MiB leaves (NX on all but the image's); 4 KiB pages at
 * unaligned edges.  No mem_section.
 *
 * With "arch arm" (Debian bookworm 6.1 -armmp, ARMv7 on qemu's virt
 * machine) the kernel is FLATMEM with 32-bit words too: mem_map holds the
 * struct pages (36 bytes) of pfns from ARCH_PFN_OFFSET (PHYS_OFFSET, the
 * RAM start) on; lowmem, PHYS_OFFSET up to 768 MiB above, is direct-mapped
 * at 0xc0000000 and holds the image (_text at PHYS_OFFSET + 0x208000).
 * swapper_pg_dir, 16 KiB below _text, is a short-descriptor first-level
 * table of 4096 4-byte entries: 1 MiB sections where a 2 MiB pmd's part of
 * RAM is 1 MiB aligned (alloc_init_pmd()), else a page table: one page per
 * pair of entries, Linux's two tables of 256 ptes in its first half and
 * the hardware's two in the second, which the pair's entries point at
 * (arch/arm/include/asm/pgtable-2level.h).  "arch arm lpae" (-armmp-lpae)
 * has long descriptors: swapper_pg_dir's page with 4 entries (bits 31:30),
 * the 4 PMD tables in the 4 pages after it (head.S), 2 MiB blocks or PTE
 * tables of 512 entries.  Leaves but the image's are execute-never.
 *
 * "dmesg" lines give any of them a printk ring (the lockless one of 5.10
 * on): SYMBOL(prb), SYMBOL(printk_rb_static) and SYMBOL(clear_seq) move
 * into the page of init_uts_ns, the arrays are taken from RAM.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "util.h"

#define PTE_TABLE UINT64_C(0x067)                    /* P RW US A */
#define PTE_LEAF_4K UINT64_C(0x8000000000000163)     /* P RW A D G NX */
#define PTE_LEAF_BIG UINT64_C(0x80000000000001e3)    /* ... PS */
#define PTE_ADDR_MASK UINT64_C(0x000ffffffffff000)
/* i386 (arch/x86/include/asm/pgtable_types.h): a kernel table entry is
 * _KERNPG_TABLE (P RW A D); a PAE PDPT entry P only (pud_populate():
 * everything else is reserved there); leaves __PAGE_KERNEL_LARGE (P RW A D
 * PSE G) and __PAGE_KERNEL (P RW A D G), with _PAGE_NX (bit 63) under PAE
 * but on the image, which is executable. */
#define X86_KERNPG_TABLE UINT64_C(0x063)
#define X86_PDPT UINT64_C(0x001)
#define X86_LEAF_4K UINT64_C(0x163)
#define X86_LEAF_BIG UINT64_C(0x1e3)
#define X86_NX (UINT64_C(1) << 63)
/* i386 struct page (6.1, gdb of the -686 and -686-pae vmlinux): flags 0,
 * lru / compound_head 4, mapping 12, index 16, private 20, _mapcount 24,
 * _refcount 28, memcg_data 32; page[1]: compound_dtor 8, compound_order 9,
 * compound_mapcount 12, compound_pincount 16.  page->flags: ZONES_SHIFT 2
 * at the top (FLATMEM, no node or cpupid bits); zones DMA (< 16 MiB),
 * NORMAL (lowmem), HIGHMEM. */
#define FLAT32_ZONE_SHIFT 30
/* The variables of a 32-bit (i386, arm) kernel in the page of init_uts_ns:
 * mem_map (a pointer to the struct page array), vmap_area_list (a
 * list_head) and the vmap_area on it (va_start = VMALLOC_START =
 * high_memory + 8 MiB, list at 20), which is where a reader finds
 * vmalloc_start. */
#define FLAT32_MEM_MAP_OFF 0x400
#define FLAT32_VMAP_LIST_OFF 0x480
#define FLAT32_VMAP_AREA_OFF 0x4c0
#define FLAT32_VMAP_AREA_LIST 20
#define FLAT32_VMALLOC_OFFSET UINT64_C(0x800000)
/* contig_page_data, the only node's struct pglist_data (6.1 -686 and
 * -armmp, gdb; the rest of the layout is the preset's struct gen_flat32):
 * node_zones[4] (DMA, NORMAL, HIGHMEM, MOVABLE); a zone's zone_pgdat 40,
 * zone_start_pfn 64, spanned_pages 72, present_pages 76, free_area[] at
 * 128 (free_list[MIGRATE_TYPES] of list_heads, then nr_free),
 * vm_stat[NR_FREE_PAGES = 0]. */
#define FLAT32_NR_ZONES 4
#define FLAT32_ZONE_PGDAT 40
#define FLAT32_ZONE_START_PFN 64
#define FLAT32_ZONE_SPANNED 72
#define FLAT32_ZONE_PRESENT 76
#define FLAT32_ZONE_FREE_AREA 128
#define FLAT32_MIGRATE_MOVABLE 1
/* ARMv7, short descriptors (arch/arm/include/asm/pgtable-2level-hwdef.h,
 * arch/arm/mm/mmu.c's mem_types of an SMP ARMv7, arch/arm/mm/
 * proc-v7-2level.S): a first-level entry to a page table is
 * _PAGE_KERNEL_TABLE (PMD_TYPE_TABLE | PMD_BIT4, domain 0); a 1 MiB section
 * of MT_MEMORY_RWX/RW is TYPE_SECT | B C TEX(1) (write-allocate) |
 * AP_WRITE | S, with XN (bit 4) on RW; a 16 MiB supersection adds bit 18.
 * With "arch loongarch64" (Debian's loong64 7.2.13+deb14-loong64: 16 KiB
 * pages, CONFIG_16KB_3LEVEL, 512 MiB sections, 80-byte struct pages) RAM
 * and the kernel image are in the cached direct map window DMW1 (va =
 * 0x9000000000000000 + pa), which no table maps; the image is at
 * VMLINUX_LOAD_ADDRESS 0x9000000000200000 (pa 0x200000) + kaslr, which
 * stands for the relocation (reloc_offset: va and pa move together).
 * swapper_pg_dir (3 levels of 11 bits from bits 36, 25, 14) maps the
 * vmemmap in 32 MiB huge PMDs (vmemmap_populate_hugepages(): the block of
 * one PMD serves 16 sections) and a few vmalloc pages; a directory entry
 * is the DMW1 address of the next table, an empty one that of
 * invalid_pmd_table / invalid_pte_table (the two pages after
 * swapper_pg_dir, as in the real image's .bss), never 0.  mem_section has
 * 1024 roots (MAX_PHYSMEM_BITS 48).
 *
 * A Linux pte of PAGE_KERNEL is PRESENT YOUNG DIRTY SHARED | MT_WRITEALLOC
 * (| L_PTE_XN), the hardware's small page cpu_v7_set_pte_ext() makes of it
 * TYPE_SMALL | B C AP0 TEX(1) S (| XN bit 0), 2048 bytes further. */
#define ARM_TABLE UINT64_C(0x11)
#define ARM_SECT UINT64_C(0x1140e)
#define ARM_SECT_XN UINT64_C(0x10)
#define ARM_SUPER (UINT64_C(1) << 18)
#define ARM_SUPER_SIZE (UINT64_C(16) << 20)
#define ARM_SMALL UINT64_C(0x45e)
#define ARM_SMALL_XN UINT64_C(0x1)
#define ARM_LINUX_PTE UINT64_C(0x45f)
#define ARM_LINUX_PTE_XN UINT64_C(0x200)
#define ARM_HWTABLE_OFF 2048          /* PTE_HWTABLE_OFF */
#define ARM_PTE_TABLE 1024            /* 256 4-byte entries */
/* ARMv7 LPAE (pgtable-3level-hwdef.h, head.S, proc-v7-3level.S): a first
 * level entry is the PMD table | TYPE_TABLE | L_PGD_SWAPPER (bit 55, as
 * head.S writes them); a PMD table entry pa | PMD_TYPE_TABLE; a 2 MiB
 * block TYPE_SECT | AttrIndx 7 (write-allocate) | SH inner | AF, a page
 * PRESENT | MT_WRITEALLOC | SHARED | YOUNG | DIRTY (bit 55); XN is bit 54
 * on both. */
#define LPAE_PGD_TABLE (UINT64_C(0x3) | UINT64_C(1) << 55)
#define LPAE_TABLE UINT64_C(0x3)
#define LPAE_BLOCK UINT64_C(0x71d)
#define LPAE_PAGE (UINT64_C(0x71f) | UINT64_C(1) << 55)
#define LPAE_XN (UINT64_C(1) << 54)
#define LPAE_ADDR_MASK UINT64_C(0x000000fffffff000)
/* arm64, 4 KiB granule: table = next | 0x3; page (last level) = pa | 0x3 and
 * block (PMD/PUD) = pa | 0x1, both with AF, inner shareable, DBM, PXN and
 * UXN (the kernel's PAGE_KERNEL / PROT_SECT_NORMAL); address bits 47:12. */
#define ARM64_TABLE UINT64_C(0x3)
#define ARM64_PAGE UINT64_C(0x0068000000000703)
#define ARM64_BLOCK UINT64_C(0x0068000000000701)
#define ARM64_ADDR_MASK UINT64_C(0x0000fffffffff000)
#define ARM64_VMALLOC_END UINT64_C(0xfffffbfff0000000)
/* loongarch64 (asm/pgtable-bits.h): PAGE_KERNEL = PRESENT (7) VALID (0)
 * DIRTY (1) WRITE (8) GLOBAL (6) PLV0 CC (4); a huge PMD adds _PAGE_HUGE
 * (6, GLOBAL's bit) and _PAGE_HGLOBAL (12), as vmemmap_set_pmd(). */
#define LA_LEAF UINT64_C(0x1d3)
#define LA_HUGE UINT64_C(0x1040)
/* riscv64: PPN = pa >> 12 at bits 10-53; a table is V only, a leaf (at any
 * level) V R W A D G, as PAGE_KERNEL without X. */
#define RV_PPN_SHIFT 10
#define RV_TABLE UINT64_C(0x01)
#define RV_LEAF UINT64_C(0xe7)
#define RV_IMAGE_OFFSET UINT64_C(0x200000)   /* image pa - phys_ram_base */
/* mips64 (pgtable-bits.h, Debian's R2 + RIXI + huge pages + pte_special
 * layout): PAGE_KERNEL = _PAGE_PRESENT 0, _PAGE_WRITE 1, _PAGE_ACCESSED
 * 2, _PAGE_MODIFIED 3, _PAGE_GLOBAL 8, _PAGE_VALID 9, _PAGE_DIRTY 10,
 * cacheable noncoherent (3) at _CACHE_SHIFT 11; _PAGE_HUGE 4 on a PMD
 * leaf; the pfn from GEN_MIPS64_PFN_SHIFT. */
#define MIPS64_KERNEL_PTE UINT64_C(0x1f0f)
#define MIPS64_HUGE UINT64_C(0x10)
#define MIPS64_PFN_SHIFT(k) ((k)->page_shift - 12 + 11 + 3)
/* ppc64 (book3s/64/pgtable.h): a table entry is _PAGE_PRESENT | the next
 * table's pa, plus under radix the next level's index bits (NLS, as
 * RADIX_PGD/PUD/PMD_VAL_BITS); a leaf at any level is _PAGE_PRESENT |
 * _PAGE_PTE | RPN (bits 52:16) | PAGE_KERNEL's R W PRIVILEGED DIRTY
 * ACCESSED.  Stored big-endian. */
#define PPC64_PRESENT UINT64_C(0x8000000000000000)
#define PPC64_LEAF UINT64_C(0xc00000000000018e)
#define PPC64_RPN_MASK UINT64_C(0x001fffffffff0000)
/* The vmemmap variables, at the lab kernel's offsets in their 64 KiB page
 * (here the page of init_uts_ns, which the generator owns): vmemmap_list
 * (a pointer), mmu_vmemmap_psize (an int), mmu_psize_defs[MMU_PAGE_COUNT]
 * (struct mmu_psize_def, 96 bytes, shift at 0), in the kernel's order. */
#define PPC64_VMEMMAP_LIST_OFF 0x91c0
#define PPC64_PSIZE_OFF 0x93c0
#define PPC64_PSIZE_DEFS_OFF 0x93c8
#define PPC64_PSIZE_DEF_SIZE 96
#define PPC64_BACKING_SIZE 24    /* struct vmemmap_backing: list, phys, virt_addr */
/* asm/mmu.h: MMU_PAGE_4K 0, _64K 2, _2M 7, _16M 10, _1G 13, _16G 14. */
#define PPC64_PSIZE_64K 2
#define PPC64_PSIZE_2M 7
#define PPC64_PSIZE_16M 10
/* CONFIG_ILLEGAL_POINTER_VALUE of ppc64. */
#define PPC64_POISON_DELTA UINT64_C(0x5deadbeef0000000)
/* s390x DAT (asm/pgtable.h): a region or segment table has 2048 entries,
 * a page table 256.  A region entry is the next table's origin | its own
 * table type (TT: region-first 0xc, second 0x8, third 0x4) | table length
 * 3 (the whole next table); a segment entry is the page table's origin
 * (2 KiB aligned).  Unused entries are invalid (0x20) with their type, a
 * page-table entry 0x400 (_PAGE_INVALID).  Leaves as the kernel's
 * REGION3_KERNEL (2 GiB: FC 0x400, R W young dirty noexec), SEGMENT_KERNEL
 * (1 MiB) and PAGE_KERNEL. */
#define S390X_CRST_BITS 11
#define S390X_PT_BITS 8
#define S390X_INVALID UINT64_C(0x20)
#define S390X_TT_SHIFT 2                 /* table type: bits 0x0c */
#define S390X_TL_FULL UINT64_C(0x3)
#define S390X_PAGE_INVALID UINT64_C(0x400)
#define S390X_REGION3_KERNEL UINT64_C(0x3507)
#define S390X_SEGMENT_KERNEL UINT64_C(0x3503)
#define S390X_PAGE_KERNEL UINT64_C(0x13d)
#define S390X_PT_SIZE 2048               /* a page table: 256 entries */
/* s390x variables in the page of init_uts_ns: high_memory (a pointer),
 * lowcore_ptr[NR_CPUS] (left NULL). */
#define S390X_HIGH_MEMORY_OFF 0x400
#define S390X_LOWCORE_PTR_OFF 0x800
#define S390X_AMODE31_SIZE 0x3000        /* EAMODE31 - SAMODE31 */
/* The printk ring's variables in the page of init_uts_ns: prb (a pointer
 * to printk_rb_static), printk_rb_static (struct printk_ringbuffer, 88
 * bytes), clear_seq (struct latched_seq, 24 bytes); the layout of every
 * preset's VMCOREINFO (5.10 to 7.1). */
#define LOG_PRB_OFF 0x600
#define LOG_RB_OFF 0x640
#define LOG_CLEAR_OFF 0x6c0
#define LOG_INFO_SIZE 88
#define LOG_DATA_BITS_MIN 17             /* CONFIG_LOG_BUF_SHIFT: 128 KiB */
#define LOG_AVG_BITS 5                   /* PRB_AVGBITS: a descriptor per 32 bytes */
#define LOG_SV_SHIFT 62                  /* state_var: state in the top 2 bits */
#define LOG_FINALIZED UINT64_C(2)
#define LOG_REUSABLE UINT64_C(3)
#define LOG_FAILED_LPOS UINT64_C(1)
#define LOG_NEWLINE 2                    /* printk_info.flags */
#define LOG_LEVEL_INFO 6
#define SECTION_FLAGS UINT64_C(0xf)   /* PRESENT | HAS_MEM_MAP | ONLINE | EARLY */
/* Poison pointers: POISON_POINTER_DELTA (CONFIG_ILLEGAL_POINTER_VALUE) + these. */
#define POISON_DELTA UINT64_C(0xdead000000000000)
#define LIST_POISON1 UINT64_C(0x100)
#define LIST_POISON2 UINT64_C(0x122)
#define TAIL_MAPPING UINT64_C(0x400)    /* 6.1 tails >= 2 */
#define COMPOUND_DTOR_THP 3                          /* TRANSHUGE_PAGE_DTOR, 6.1 */

/* Fake kernel objects the struct pages point at (direct-map offsets). */
#define FAKE_ADDRESS_SPACE UINT64_C(0x01412458)
#define FAKE_BUFFER_HEADS UINT64_C(0x01cb0000)
#define FAKE_ANON_VMA UINT64_C(0x01ffcba0)
#define FAKE_HUGETLBFS_MAPPING UINT64_C(0x01da6338)
#define FAKE_KMEM_CACHE UINT64_C(0x01042100)

struct gen_table {
	uint64_t pa;
	unsigned level;       /* 0 = the top */
	unsigned n;           /* entries: 1 << bits of its level */
	uint64_t *e;
	int32_t *child;       /* index of the next-level table, or -1 */
};

static const char *const vmi_none[] = {
	"OSRELEASE=0.0.0-mkvmcore",
	"PAGESIZE=@pagesize",
	"CRASHTIME=@crashtime",
	NULL,
};

static uint64_t text_start_va(const struct gen_spec *s)
{
	if (s->arch == GEN_ARCH_X86)   /* in the direct map */
		return GEN_X86_PAGE_OFFSET + GEN_X86_PHYSICAL_START + s->kaslr;
	if (s->arch == GEN_ARCH_ARM)   /* _text, in the direct map */
		return GEN_ARM_PAGE_OFFSET + GEN_ARM_TEXT_OFFSET;
	if (s->arch == GEN_ARCH_PPC64)
		return GEN_PPC64_PAGE_OFFSET;
	if (s->arch == GEN_ARCH_S390X)
		return GEN_S390X_IMAGE + s->kaslr;   /* identity mapped */
	if (s->arch == GEN_ARCH_ARM64)
		return GEN_ARM64_KIMAGE_VADDR + s->kaslr;
	if (s->arch == GEN_ARCH_RISCV64)
		return GEN_RISCV64_KERNEL_LINK_ADDR + s->kaslr;
	if (s->arch == GEN_ARCH_LOONGARCH64)   /* in DMW1, relocated by kaslr */
		return GEN_LA_DMW1 + GEN_LA_TEXT_PA + s->kaslr;
	if (s->arch == GEN_ARCH_MIPS64)   /* CKSEG0: va = pa + CKSEG0 */
		return GEN_MIPS64_CKSEG0 + (s->mips64_4k ? GEN_MIPS64_TEXT_PA_4K : GEN_MIPS64_TEXT_PA);
	return GEN_START_KERNEL_MAP + 0x1000000 + s->kaslr;
}

/* arm64 and riscv64 randomise the image's va and pa apart: kaslr moves
 * only the va; s390x's (6.1) moves the image physically. */
static uint64_t text_start_pa(const struct gen_spec *s)
{
	if (s->arch == GEN_ARCH_X86)
		return GEN_X86_PHYSICAL_START + s->kaslr;
	if (s->arch == GEN_ARCH_ARM)
		return s->phys_ram_base + GEN_ARM_TEXT_OFFSET;
	if (s->arch == GEN_ARCH_PPC64)
		return 0;
	if (s->arch == GEN_ARCH_S390X)
		return GEN_S390X_IMAGE + s->kaslr;
	if (s->arch == GEN_ARCH_ARM64)
		return 0x1000000 + (uint64_t)s->phys_base;
	if (s->arch == GEN_ARCH_RISCV64)
		return s->phys_ram_base + RV_IMAGE_OFFSET + (uint64_t)s->phys_base;
	if (s->arch == GEN_ARCH_LOONGARCH64)
		return GEN_LA_TEXT_PA + s->kaslr;
	if (s->arch == GEN_ARCH_MIPS64)
		return s->mips64_4k ? GEN_MIPS64_TEXT_PA_4K : GEN_MIPS64_TEXT_PA;
	return text_start_va(s) - GEN_START_KERNEL_MAP + (uint64_t)s->phys_base;
}

/* The linear-map address of @pa (the direct map: phys_ram_base is 0 but on
 * riscv64 and arm). */
static uint64_t linear_va(const struct gen_spec *s, uint64_t pa)
{
	return s->page_offset + pa - s->phys_ram_base;
}

uint64_t gen_kernel_modules_vaddr(const struct gen_spec *s, const struct gen_kernel *k)
{
	switch (s->arch) {
	case GEN_ARCH_ARM64:
		return UINT64_C(0xffff800000000000);
	case GEN_ARCH_RISCV64:
		/* PFN_ALIGN(_end) - SZ_2G: within 2 GiB of the image, for
		 * its PC-relative calls. */
		return k->text_va + s->text_size - (UINT64_C(1) << 31);
	case GEN_ARCH_PPC64:
		return s->vmalloc_start;   /* Book3S-64 loads modules into vmalloc */
	case GEN_ARCH_S390X:
		return s->vmalloc_start;   /* unused: s390x refuses "kcore" */
	case GEN_ARCH_X86:
		return s->vmalloc_start;   /* unused: x86 refuses "kcore" */
	case GEN_ARCH_ARM:   /* PAGE_OFFSET - 16 MiB (unused: arm refuses "kcore") */
		return GEN_ARM_PAGE_OFFSET - (UINT64_C(16) << 20);
	case GEN_ARCH_LOONGARCH64:   /* vm_map_base + PCI_IOSIZE + 2 pages */
		return GEN_LA_VM_MAP_BASE + (UINT64_C(32) << 20) + 2 * k->page_size;
	case GEN_ARCH_MIPS64:   /* no module_pg_dir: vmalloc (unused: no "kcore") */
		return s->vmalloc_start;
	case GEN_ARCH_X86_64:
		break;
	}
	return UINT64_C(0xffffffffa0000000);
}

uint64_t gen_spec_npfn(const struct gen_spec *s)
{
	uint64_t end = text_start_pa(s) + s->text_size;

	for (size_t i = 0; i < s->nram; i++)
		end = MDF_MAX(end, s->ram[i].start + s->ram[i].memsz);
	end = MDF_MAX(end, s->crash_start + s->crash_size);
	return align_up(div_round_up(end, UINT64_C(1) << s->page_shift),
			UINT64_C(1) << (s->section_shift - s->page_shift));
}

static bool kind_is_block(enum gen_kind kind)
{
	return kind == GEN_K_FREE || kind == GEN_K_THP || kind == GEN_K_HUGETLB;
}

/* ---- physical allocator ---- */

static bool pfn_available(const struct gen_kernel *k, uint64_t pfn)
{
	return pfn < k->npfn && gen_bit_test(k->backed, pfn) &&
	       !gen_bit_test(k->claimed, pfn) && !gen_bit_test(k->meta, pfn) &&
	       k->kind[pfn] == GEN_K_UNSET;
}

/* Take @n contiguous pfns aligned to @align, top-down. */
static enum mdf_status alloc_pages(struct gen_kernel *k, uint64_t n, uint64_t align,
				   const char *what, uint64_t *pa, struct mdf_err *err)
{
	uint64_t top = k->alloc_cursor;
	while (top >= n + 1) {
		uint64_t c = align_down(top - n, align);
		if (c == 0)
			break;
		uint64_t bad = UINT64_MAX;
		for (uint64_t i = c + n; i-- > c;) {
			if (!pfn_available(k, i)) {
				bad = i;
				break;
			}
		}
		if (bad == UINT64_MAX) {
			for (uint64_t i = c; i < c + n; i++) {
				gen_bit_set(k->meta, i);
				k->kind[i] = GEN_K_KERNEL;
			}
			k->alloc_cursor = c;
			*pa = c << k->page_shift;
			return MDF_OK;
		}
		top = bad;
	}
	return mdf_err_set(err, MDF_ERR_NOSPC,
			   "no free RAM for %s (%" PRIu64 " pages): spec ranges claim it all",
			   what, n);
}

/* ---- page tables ---- */

/* A table of @level (0 = the top) at @pa. */
static enum mdf_status table_new(struct gen_kernel *k, uint64_t pa, unsigned level,
				 int32_t *idx, struct mdf_err *err)
{
	if (k->ntables == k->cap_tables) {
		size_t cap = k->cap_tables ? k->cap_tables * 2 : 16;
		struct gen_table *t = realloc(k->tables, cap * sizeof(*t));
		if (!t)
			return mdf_err_set(err, MDF_ERR_NOMEM, "page tables: out of memory");
		k->tables = t;
		k->cap_tables = cap;
	}
	struct gen_table *t = &k->tables[k->ntables];
	t->pa = pa;
	t->level = level;
	t->n = 1u << k->bits[level];
	t->e = calloc(t->n, sizeof(*t->e));
	t->child = malloc(t->n * sizeof(*t->child));
	if (!t->e || !t->child) {
		free(t->e);
		free(t->child);
		return mdf_err_set(err, MDF_ERR_NOMEM, "page tables: out of memory");
	}
	for (unsigned i = 0; i < t->n; i++)
		t->child[i] = -1;
	*idx = (int32_t)k->ntables++;
	return MDF_OK;
}

/* The index of @va in the table at @level (0 = the top): the bits above
 * the top level's are dropped, as every walker here does. */
static unsigned pt_index(const struct gen_kernel *k, unsigned level, uint64_t va)
{
	return (unsigned)(va >> k->shift[level]) & ((1u << k->bits[level]) - 1);
}

/* s390x: the type of the table at @level, counted from the page table up:
 * 0 page table, 1 segment, 2 region-third, 3 region-second, 4 region-first. */
static unsigned s390x_type(const struct gen_kernel *k, unsigned level)
{
	return k->levels - 1 - level;
}

/* s390x: the table-type bits (TT, 0x0c) of an entry of a table of @type. */
static uint64_t s390x_tt(unsigned type)
{
	return type >= 2 ? (uint64_t)(type - 1) << S390X_TT_SHIFT : 0;
}

/* What an unused entry of a table of @level holds: 0 but on s390x, whose
 * crst_table_init() fills region and segment tables with their invalid
 * value and whose page tables hold _PAGE_INVALID. */
static uint64_t pt_empty(const struct gen_kernel *k, unsigned level)
{
	unsigned type;

	if (k->arch == GEN_ARCH_LOONGARCH64)   /* pgd_init(), pmd_init() */
		return level == 0 ? GEN_LA_DMW1 | k->la_inv_pmd_pa
		       : level == 1 ? GEN_LA_DMW1 | k->la_inv_pte_pa : 0;
	if (k->arch != GEN_ARCH_S390X)
		return 0;
	type = s390x_type(k, level);
	return type ? S390X_INVALID | s390x_tt(type) : S390X_PAGE_INVALID;
}

/* The entry of @level mapping @pa: a leaf or the next level's table. */
static uint64_t pt_entry(const struct gen_kernel *k, unsigned level, uint64_t pa, bool leaf)
{
	bool last = level == k->levels - 1;

	switch (k->arch) {
	case GEN_ARCH_S390X: {
		unsigned type = s390x_type(k, level);

		if (leaf && type == 0)
			return (pa & ~UINT64_C(0xfff)) | S390X_PAGE_KERNEL;
		if (leaf && type == 1)
			return (pa & ~UINT64_C(0xfffff)) | S390X_SEGMENT_KERNEL;
		if (leaf)   /* region-third: pt_map() asks no larger leaf */
			return (pa & ~UINT64_C(0x7fffffff)) | S390X_REGION3_KERNEL;
		/* A segment entry is the page table's origin; a region entry
		 * its own type and the next table's length. */
		return type == 1 ? pa : pa | s390x_tt(type) | S390X_TL_FULL;
	}
	case GEN_ARCH_PPC64:
		if (leaf)
			return (pa & PPC64_RPN_MASK) | PPC64_LEAF;
		/* Radix's NLS: the index bits of the table pointed to. */
		return pa | PPC64_PRESENT | (k->ppc64_hash ? 0 : k->bits[level + 1]);
	case GEN_ARCH_ARM64:
		if (!leaf)
			return pa | ARM64_TABLE;
		return (pa & ARM64_ADDR_MASK) | (last ? ARM64_PAGE : ARM64_BLOCK);
	case GEN_ARCH_RISCV64:
		return (pa >> GEN_PAGE_SHIFT) << RV_PPN_SHIFT | (leaf ? RV_LEAF : RV_TABLE);
	case GEN_ARCH_LOONGARCH64:
		if (!leaf)   /* the table's kernel (DMW1) address */
			return GEN_LA_DMW1 | pa;
		return pa | LA_LEAF | (last ? 0 : LA_HUGE);
	case GEN_ARCH_X86:
		if (!leaf)   /* a PAE PDPT entry, or a kernel page table */
			return pa | (k->levels == 3 && level == 0 ? X86_PDPT : X86_KERNPG_TABLE);
		return pa | (last ? X86_LEAF_4K : X86_LEAF_BIG) |
		       (k->leaf_nx && k->levels == 3 ? X86_NX : 0);
	case GEN_ARCH_ARM:
		if (k->arm_lpae && !leaf)
			return pa | (level == 0 ? LPAE_PGD_TABLE : LPAE_TABLE);
		if (k->arm_lpae)
			return (pa & LPAE_ADDR_MASK) | (last ? LPAE_PAGE : LPAE_BLOCK) |
			       (k->leaf_nx ? LPAE_XN : 0);
		if (!leaf)   /* pa: the hardware table */
			return pa | ARM_TABLE;
		if (last)
			return (pa & ~UINT64_C(0xfff)) | ARM_SMALL | (k->leaf_nx ? ARM_SMALL_XN : 0);
		return (pa & ~UINT64_C(0xfffff)) | ARM_SECT | (k->leaf_nx ? ARM_SECT_XN : 0);
	case GEN_ARCH_MIPS64:
		/* a PGD or PMD entry: the next table's XKPHYS address; a pte
		 * (or a huge PMD): the pfn and PAGE_KERNEL's bits */
		if (!leaf)
			return GEN_MIPS64_CAC_BASE | pa;
		return (pa >> k->page_shift) << MIPS64_PFN_SHIFT(k) | MIPS64_KERNEL_PTE |
		       (last ? 0 : MIPS64_HUGE);
	case GEN_ARCH_X86_64:
		break;
	}
	if (!leaf)
		return pa | PTE_TABLE;
	return (pa & PTE_ADDR_MASK) | (last ? PTE_LEAF_4K : PTE_LEAF_BIG);
}

/* The pages of a new table of @level: one page everywhere but on s390x,
 * whose region and segment tables take four (16 KiB, aligned) and whose
 * 2 KiB page tables share a page two by two (page_table_alloc()). */
static enum mdf_status table_alloc(struct gen_kernel *k, unsigned level, uint64_t *pa,
				   struct mdf_err *err)
{
	uint64_t bytes = (uint64_t)k->pte_size << k->bits[level], n;
	enum mdf_status st;

	if (k->arch == GEN_ARCH_S390X && bytes < k->page_size) {
		if (k->pt_half_pa) {
			*pa = k->pt_half_pa;
			k->pt_half_pa = 0;
			return MDF_OK;
		}
		st = alloc_pages(k, 1, 1, "a page table", pa, err);
		if (!st)
			k->pt_half_pa = *pa + bytes;
		return st;
	}
	n = div_round_up(bytes, k->page_size);
	return alloc_pages(k, n, n, "a page table", pa, err);
}

/* A new table under entry @i of table @t (at its level + 1). */
static enum mdf_status table_child(struct gen_kernel *k, int32_t t, unsigned i,
				   struct mdf_err *err)
{
	unsigned level = k->tables[t].level;
	uint64_t tpa;
	int32_t c;
	enum mdf_status st = table_alloc(k, level + 1, &tpa, err);

	if (!st)
		st = table_new(k, tpa, level + 1, &c, err);
	if (st)
		return st;
	k->tables[t].child[i] = c;
	k->tables[t].e[i] = pt_entry(k, level, tpa, false);
	return MDF_OK;
}

/*
 * arm short descriptors: the page tables of first-level entry @i and its
 * pair (a Linux pgd entry covers 2 MiB, two hardware entries), as
 * pte_alloc() and __pmd_populate() make them: one page, Linux's two tables
 * in its first half, the hardware's two at +2048 and +3072, which both
 * entries point at.  The Linux half is written from the hardware one
 * (kernel_write()).
 */
static enum mdf_status arm_pte_pair(struct gen_kernel *k, int32_t t, unsigned i,
				    struct mdf_err *err)
{
	unsigned first = i & ~1u;
	uint64_t pa;
	enum mdf_status st;

	if (k->tables[t].e[first] || k->tables[t].e[first + 1])
		return mdf_err_set(err, MDF_ERR_INTERNAL,
				   "page tables: a section beside a page table at entry %u", i);
	st = alloc_pages(k, 1, 1, "a page table", &pa, err);
	for (unsigned j = 0; j < 2 && !st; j++) {
		uint64_t hw = pa + ARM_HWTABLE_OFF + j * ARM_PTE_TABLE;
		int32_t c;

		st = table_new(k, hw, 1, &c, err);
		if (!st) {
			k->tables[t].child[first + j] = c;
			k->tables[t].e[first + j] = pt_entry(k, 0, hw, false);
		}
	}
	return st;
}

/* Map one leaf of @size (a page, or what a level above maps: 2M, 1G) at
 * @va -> @pa. */
static enum mdf_status pt_map(struct gen_kernel *k, uint64_t va, uint64_t pa,
			      uint64_t size, struct mdf_err *err)
{
	unsigned leaf_level = 0;
	int32_t t = 0;

	while (leaf_level < k->levels && UINT64_C(1) << k->shift[leaf_level] != size)
		leaf_level++;
	if (leaf_level == k->levels)
		return mdf_err_set(err, MDF_ERR_INTERNAL,
				   "page tables: no level maps 0x%" PRIx64 " bytes", size);
	for (unsigned level = 0;; level++) {
		unsigned i = pt_index(k, level, va);
		if (level == leaf_level) {
			k->tables[t].e[i] = pt_entry(k, level, pa, true);
			return MDF_OK;
		}
		if (k->tables[t].child[i] < 0) {
			if (k->tables[t].e[i])
				return mdf_err_set(err, MDF_ERR_INTERNAL,
						   "page tables: 0x%" PRIx64 " already mapped by a leaf",
						   va);
			enum mdf_status st = k->arch == GEN_ARCH_ARM && !k->arm_lpae
						     ? arm_pte_pair(k, t, i, err)
						     : table_child(k, t, i, err);
			if (st)
				return st;
		}
		t = k->tables[t].child[i];
	}
}

static enum mdf_status map_range(struct gen_kernel *k, uint64_t va, uint64_t pa,
				 uint64_t len, uint64_t leaf, struct mdf_err *err)
{
	for (uint64_t off = 0; off < len; off += leaf) {
		enum mdf_status st = pt_map(k, va + off, pa + off, leaf, err);
		if (st)
			return st;
	}
	return MDF_OK;
}

/* ---- planning ---- */

static void kernel_zero(struct gen_kernel *k)
{
	memset(k, 0, sizeof(*k));
}

void gen_kernel_free(struct gen_kernel *k)
{
	free(k->kind);
	free(k->info);
	free(k->ram);
	free(k->sysram);
	free(k->backed);
	free(k->claimed);
	free(k->meta);
	for (size_t i = 0; i < k->ntables; i++) {
		free(k->tables[i].e);
		free(k->tables[i].child);
	}
	free(k->tables);
	free(k->units);
	free(k->section_map_pa);
	free(k->root_pa);
	kernel_zero(k);
}

static void set_span(uint8_t *map, uint64_t first, uint64_t end)
{
	for (uint64_t i = first; i < end; i++)
		gen_bit_set(map, i);
}

/* The highest run of @n text pages in [@tfirst, @tend), its first pfn
 * aligned to @align, that no spec line claims and the generator does not
 * own yet; UINT64_MAX if none. */
static uint64_t text_run(const struct gen_kernel *k, uint64_t tfirst, uint64_t tend,
			 uint64_t n, uint64_t align)
{
	if (tend - tfirst < n)
		return UINT64_MAX;
	for (uint64_t c = align_down(tend - n, align); c >= tfirst; c -= align) {
		bool free = true;
		for (uint64_t p = c; p < c + n && free; p++)
			free = !gen_bit_test(k->claimed, p) && !gen_bit_test(k->meta, p);
		if (free)
			return c;
		if (c < align)
			break;
	}
	return UINT64_MAX;
}

static enum mdf_status plan_kinds(const struct gen_spec *s, struct gen_kernel *k,
				  struct mdf_err *err)
{
	for (size_t i = 0; i < s->nfills; i++) {
		const struct gen_fill *f = &s->fills[i];
		if (f->last >= k->npfn)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "fill 0x%" PRIx64 "-0x%" PRIx64 ": beyond the last pfn 0x%" PRIx64,
					   f->first, f->last, k->max_pfn - 1);
		for (uint64_t p = f->first; p <= f->last; p++) {
			if (gen_bit_test(k->claimed, p))
				return mdf_err_set(err, MDF_ERR_ARG,
						   "fill 0x%" PRIx64 "-0x%" PRIx64
						   ": pfn 0x%" PRIx64 " is filled twice",
						   f->first, f->last, p);
			gen_bit_set(k->claimed, p);
		}
	}
	for (size_t i = 0; i < s->npages; i++) {
		const struct gen_pages *pg = &s->pages[i];
		for (uint64_t p = pg->first; p <= pg->last; p++) {
			if (p >= k->npfn || !gen_bit_test(k->ram, p))
				return mdf_err_set(err, MDF_ERR_ARG,
						   "spec:%u: pages: pfn 0x%" PRIx64 " is not RAM",
						   pg->line, p);
			if (k->kind[p] != GEN_K_UNSET)
				return mdf_err_set(err, MDF_ERR_ARG,
						   "spec:%u: pages: pfn 0x%" PRIx64
						   " already declared as %s",
						   pg->line, p, gen_spec_kind_name(k->kind[p]));
			k->kind[p] = (uint8_t)pg->kind;
			gen_bit_set(k->claimed, p);
			if (kind_is_block(pg->kind)) {
				bool head = ((p - pg->first) & ((UINT64_C(1) << pg->order) - 1)) == 0;
				k->info[p] = (uint8_t)(pg->order | (head ? GEN_INFO_HEAD : 0));
			}
		}
	}
	/* The kernel text: reserved kernel pages. */
	uint64_t tfirst = k->text_pa >> k->page_shift;
	uint64_t tend = tfirst + (s->text_size >> k->page_shift);
	for (uint64_t p = tfirst; p < tend; p++) {
		if (!gen_bit_test(k->backed, p))
			return mdf_err_set(err, MDF_ERR_ARG,
					   "kernel text 0x%" PRIx64 "-0x%" PRIx64
					   " (kaslr, phys_base, text): pfn 0x%" PRIx64
					   " is not in a ram range",
					   k->text_pa, k->text_pa + s->text_size, p);
		if (k->kind[p] != GEN_K_UNSET && k->kind[p] != GEN_K_KERNEL)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "pfn 0x%" PRIx64 " of the kernel text declared as %s",
					   p, gen_spec_kind_name(k->kind[p]));
		k->kind[p] = GEN_K_KERNEL;
	}
	/* init_top_pgt and init_uts_ns: the highest unclaimed text pages
	 * (s390x: the highest k->pgd_pages of them in a row, aligned, for its
	 * 16 KiB swapper_pg_dir; the uts page any other). */
	uint64_t n = k->pgd_pages, uts = UINT64_MAX;
	uint64_t pgd = text_run(k, tfirst, tend, n, n);
	if (s->arch == GEN_ARCH_ARM) {   /* right below _text (head.S) */
		pgd = tfirst - n;
		for (uint64_t p = pgd; p < tfirst; p++) {
			if (!gen_bit_test(k->backed, p) || gen_bit_test(k->claimed, p))
				return mdf_err_set(err, MDF_ERR_ARG,
						   "swapper_pg_dir 0x%" PRIx64 " (below _text): pfn 0x%"
						   PRIx64 " is not RAM of the kernel's",
						   pgd << k->page_shift, p);
			k->kind[p] = GEN_K_KERNEL;
		}
	}
	for (uint64_t p = tend; pgd != UINT64_MAX && p-- > tfirst && uts == UINT64_MAX;)
		if (!gen_bit_test(k->claimed, p) && (p < pgd || p >= pgd + n))
			uts = p;
	if (uts == UINT64_MAX)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "kernel text: spec lines claim every page; init_top_pgt "
				   "and init_uts_ns need %" PRIu64 " unclaimed pages", n + 1);
	k->pgd_pa = pgd << k->page_shift;
	k->uts_pa = uts << k->page_shift;
	if (s->arch == GEN_ARCH_LOONGARCH64) {
		k->la_inv_pte_pa = k->pgd_pa + k->page_size;
		k->la_inv_pmd_pa = k->pgd_pa + 2 * k->page_size;
	}
	for (uint64_t p = pgd; p < pgd + n; p++)
		gen_bit_set(k->meta, p);
	gen_bit_set(k->meta, uts);
	return MDF_OK;
}

/*
 * The struct pages of section @sec (first pfn @first), in units of
 * k->vmemmap_unit: a section's own 2 MiB (x86_64, arm64, riscv64), or on
 * ppc64 the vmemmap block several sections share (2 MiB under radix, 16
 * MiB under hash, a page with "vmemmap_pte 64k").  A unit is allocated
 * aligned to its leaf, like the kernel's vmemmap_populate(), and mapped
 * in the tables except under the hash MMU (whose hash table has it).
 */
static enum mdf_status plan_vmemmap(const struct gen_spec *s, struct gen_kernel *k,
				    uint64_t sec, uint64_t first, struct mdf_err *err)
{
	uint64_t unit = k->vmemmap_unit, off = first * k->struct_page;
	uint64_t va = s->vmemmap + off - off % unit;
	uint64_t n = unit >> k->page_shift;
	/* The base page when asked, or when the va is not aligned for the
	 * big leaf (riscv64's vmemmap with a phys_ram_base not 128 MiB
	 * aligned). */
	bool small = s->pte4k || (va & (k->vmemmap_leaf - 1));
	struct gen_vmemmap_block *b;
	enum mdf_status st;

	if (!k->nunits || k->units[k->nunits - 1].va != va) {
		if (k->nunits == k->cap_units) {
			size_t cap = k->cap_units ? k->cap_units * 2 : 16;
			b = realloc(k->units, cap * sizeof(*b));
			if (!b)
				return mdf_err_set(err, MDF_ERR_NOMEM, "vmemmap: out of memory");
			k->units = b;
			k->cap_units = cap;
		}
		b = &k->units[k->nunits++];
		b->va = va;
		st = alloc_pages(k, n, small ? 1 : n, "struct pages", &b->pa, err);
		if (st)
			return st;
		if (!k->ppc64_hash)
			st = map_range(k, va, b->pa, unit, small ? k->page_size : k->vmemmap_leaf,
				       err);
		if (st)
			return st;
	}
	/* loongarch64's 2.5 MiB of struct pages a section do not divide a
	 * 32 MiB PMD: section 12 (from 6 GiB) would straddle two, which
	 * the section-wide write here cannot follow */
	if (off % unit + k->pfn_per_section * k->struct_page > unit)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "the struct pages of section %" PRIu64 " straddle two vmemmap "
				   "blocks: not made (RAM below 6 GiB on loongarch64)", sec);
	k->section_map_pa[sec] = k->units[k->nunits - 1].pa + off % unit;
	return MDF_OK;
}

/* ppc64: the pages vmalloc_start maps, one by one (not contiguous). */
static enum mdf_status plan_vmalloc(const struct gen_spec *s, struct gen_kernel *k,
				    struct mdf_err *err)
{
	for (k->nvmalloc = 0; k->nvmalloc < GEN_PPC64_VMALLOC_PAGES; k->nvmalloc++) {
		uint64_t *pa = &k->vmalloc_pa[k->nvmalloc];
		enum mdf_status st = alloc_pages(k, 1, 1, "a vmalloc page", pa, err);

		if (!st)
			st = pt_map(k, s->vmalloc_start + k->nvmalloc * k->page_size, *pa,
				    k->page_size, err);
		if (st)
			return st;
	}
	return MDF_OK;
}

struct span64 {
	uint64_t start, end;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span64 *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * s390x: the identity map of every RAM range (and the crashkernel's, RAM
 * of the crashed kernel), page aligned and merged, as vmem_add_range()
 * maps it: at each address the largest leaf that is aligned and fits,
 * a 2 GiB region-third entry, a 1 MiB segment or a 4 KiB page.
 */
static enum mdf_status plan_identity(const struct gen_spec *s, struct gen_kernel *k,
				     struct mdf_err *err)
{
	static const uint64_t leaves[] = { UINT64_C(1) << 31, UINT64_C(1) << 20, GEN_PAGE_SIZE };
	struct span64 *sp = calloc(s->nram + 1, sizeof(*sp));
	size_t n = 0, m = 0;
	enum mdf_status st = MDF_OK;

	if (!sp)
		return mdf_err_set(err, MDF_ERR_NOMEM, "identity map: out of memory");
	for (size_t i = 0; i < s->nram; i++)
		sp[n++] = (struct span64){ align_down(s->ram[i].start, GEN_PAGE_SIZE),
					   align_up(s->ram[i].start + s->ram[i].memsz, GEN_PAGE_SIZE) };
	if (s->crash_size)
		sp[n++] = (struct span64){ s->crash_start, s->crash_start + s->crash_size };
	qsort(sp, n, sizeof(*sp), span_cmp);
	for (size_t i = 0; i < n; i++) {
		if (m && sp[i].start <= sp[m - 1].end)
			sp[m - 1].end = MDF_MAX(sp[m - 1].end, sp[i].end);
		else
			sp[m++] = sp[i];
	}
	for (size_t i = 0; i < m && !st; i++) {
		for (uint64_t va = sp[i].start; va < sp[i].end && !st;) {
			size_t l = 0;

			while (l < 2 && ((va & (leaves[l] - 1)) || sp[i].end - va < leaves[l]))
				l++;
			st = pt_map(k, va, va, leaves[l], err);
			va += leaves[l];
		}
	}
	free(sp);
	return st ? mdf_err_push(err, "identity map") : MDF_OK;
}

/* arm short descriptors ("supersections yes"): a 16 MiB supersection at
 * @va, its entry repeated in the 16 first-level entries it covers (ARM
 * ARM B3.5.1), bits 31:24 of @pa (below 4 GiB: no extended base). */
static enum mdf_status arm_supersection(struct gen_kernel *k, uint64_t va, uint64_t pa,
					struct mdf_err *err)
{
	struct gen_table *t = &k->tables[0];
	unsigned first = (unsigned)(va >> 20);

	for (unsigned j = first; j < first + 16; j++) {
		if (t->e[j] || t->child[j] >= 0)
			return mdf_err_set(err, MDF_ERR_INTERNAL,
					   "page tables: 0x%" PRIx64 " already mapped", va);
		t->e[j] = (pa & ~(ARM_SUPER_SIZE - 1)) | ARM_SECT | ARM_SUPER |
			  (k->leaf_nx ? ARM_SECT_XN : 0);
	}
	return MDF_OK;
}

/*
 * The 32-bit kernels (FLATMEM): the struct page array for pfns
 * [memmap_pfn0, npfn) from lowmem (alloc_node_mem_map() via memblock,
 * below max_low_pfn), and the direct map of the RAM below the end of
 * lowmem (the crashkernel's too), page-aligned and merged, in steps of a
 * pmd (@pmd: 4 MiB, PAE and LPAE 2 MiB, arm 2 MiB of two sections): a
 * step whose ends are aligned to the big leaf (@big: 4 or 2 MiB, arm a
 * 1 MiB section) takes big leaves, another 4 KiB pages, as i386's
 * kernel_physical_mapping_init() and arm's alloc_init_pmd() do.  Under
 * PAE and on arm every leaf but those mapping the image is NX (XN).
 */
static enum mdf_status plan_flat32(const struct gen_spec *s, struct gen_kernel *k,
				   struct mdf_err *err)
{
	const bool arm2 = s->arch == GEN_ARCH_ARM && !s->arm_lpae;
	const uint64_t big = UINT64_C(1) << k->shift[k->levels - 2];
	const uint64_t pmd = arm2 ? UINT64_C(2) << 20 : big;
	const uint64_t ts = k->text_pa, te = k->text_pa + s->text_size;
	const bool nx = s->arch == GEN_ARCH_ARM || s->x86_pae;
	struct span64 *sp = calloc(s->nram + 1, sizeof(*sp));
	size_t n = 0, m = 0;
	enum mdf_status st;

	if (!sp)
		return mdf_err_set(err, MDF_ERR_NOMEM, "direct map: out of memory");
	st = alloc_pages(k, div_round_up((k->npfn - k->memmap_pfn0) * k->struct_page,
					 k->page_size),
			 1, "mem_map (struct pages in lowmem)", &k->memmap_pa, err);
	if (st) {
		free(sp);
		return st;
	}
	for (size_t i = 0; i < s->nram; i++)
		sp[n++] = (struct span64){ align_down(s->ram[i].start, GEN_PAGE_SIZE),
					   align_up(s->ram[i].start + s->ram[i].memsz, GEN_PAGE_SIZE) };
	if (s->crash_size)
		sp[n++] = (struct span64){ s->crash_start, s->crash_start + s->crash_size };
	qsort(sp, n, sizeof(*sp), span_cmp);
	for (size_t i = 0; i < n; i++) {
		sp[i].end = MDF_MIN(sp[i].end, k->lowmem_end);
		if (sp[i].start >= sp[i].end)
			continue;
		if (m && sp[i].start <= sp[m - 1].end)
			sp[m - 1].end = MDF_MAX(sp[m - 1].end, sp[i].end);
		else
			sp[m++] = sp[i];
	}
	for (size_t i = 0; i < m && !st; i++) {
		for (uint64_t pa = sp[i].start; pa < sp[i].end && !st;) {
			uint64_t end = MDF_MIN(sp[i].end, align_down(pa, pmd) + pmd);

			if (arm2 && s->arm_super && !(pa & (ARM_SUPER_SIZE - 1)) &&
			    sp[i].end - pa >= ARM_SUPER_SIZE) {
				k->leaf_nx = pa + ARM_SUPER_SIZE <= ts || pa >= te;
				st = arm_supersection(k, linear_va(s, pa), pa, err);
				pa += ARM_SUPER_SIZE;
				continue;
			}
			uint64_t leaf = (pa | end) & (big - 1) ? GEN_PAGE_SIZE : big;

			for (; pa < end && !st; pa += leaf) {
				k->leaf_nx = nx && (pa + leaf <= ts || pa >= te);
				st = pt_map(k, linear_va(s, pa), pa, leaf, err);
			}
		}
	}
	k->leaf_nx = false;
	free(sp);
	return st ? mdf_err_push(err, "direct map") : MDF_OK;
}

/* arm LPAE: the 4 PMD tables in the 4 pages after swapper_pg_dir's, as
 * head.S's __create_page_tables() links them. */
static enum mdf_status plan_lpae_pmds(struct gen_kernel *k, struct mdf_err *err)
{
	enum mdf_status st = MDF_OK;

	for (unsigned i = 0; i < 4 && !st; i++) {
		uint64_t pa = k->pgd_pa + (uint64_t)(i + 1) * k->page_size;
		int32_t c;

		st = table_new(k, pa, 1, &c, err);
		if (!st) {
			k->tables[0].child[i] = c;
			k->tables[0].e[i] = pt_entry(k, 0, pa, false);
		}
	}
	return st;
}

/*
 * mips64: SPARSEMEM without a vmemmap.  sparse_init_nid() (mm/sparse.c,
 * 6.1) takes the struct pages of a node's present sections from one
 * memblock buffer, section after section, and each section's mem_map is
 * its direct-map (XKPHYS) address; here one buffer from the first present
 * section to the last (a section in a hole keeps its unused share), so
 * that every struct page is at k->vmemmap + 64 pfn.  Nothing in the
 * tables but the pages at vmalloc_start (the unmapped segments map RAM
 * and the image).
 */
static enum mdf_status plan_mips64(const struct gen_spec *s, struct gen_kernel *k,
				   struct mdf_err *err)
{
	uint64_t lo = UINT64_MAX, hi = 0, pa;
	enum mdf_status st;

	for (uint64_t sec = 0; sec < k->nsections; sec++) {
		uint64_t first = sec * k->pfn_per_section;
		bool present = false;

		for (uint64_t p = first; p < first + k->pfn_per_section && !present; p++)
			present = gen_bit_test(k->sysram, p);
		if (!present)
			continue;
		lo = MDF_MIN(lo, sec);
		hi = sec + 1;
		if (!k->root_pa[sec / k->sections_per_root]) {
			st = alloc_pages(k, 1, 1, "a mem_section root page",
					 &k->root_pa[sec / k->sections_per_root], err);
			if (st)
				return st;
		}
	}
	if (lo == UINT64_MAX)
		return MDF_OK;
	st = alloc_pages(k, div_round_up((hi - lo) * k->pfn_per_section * GEN_STRUCT_PAGE,
					 k->page_size),
			 1, "struct pages", &pa, err);
	if (st)
		return st;
	for (uint64_t sec = lo; sec < hi; sec++) {
		uint64_t first = sec * k->pfn_per_section;
		bool present = false;

		for (uint64_t p = first; p < first + k->pfn_per_section && !present; p++)
			present = gen_bit_test(k->sysram, p);
		if (present)
			k->section_map_pa[sec] = pa + (sec - lo) * k->pfn_per_section *
							      GEN_STRUCT_PAGE;
	}
	k->vmemmap = GEN_MIPS64_CAC_BASE + pa - lo * k->pfn_per_section * GEN_STRUCT_PAGE;
	return plan_vmalloc(s, k, err);
}

static enum mdf_status plan_memmap(const struct gen_spec *s, struct gen_kernel *k,
				   struct mdf_err *err)
{
	bool ppc64 = s->arch == GEN_ARCH_PPC64;
	enum mdf_status st;
	int32_t pgd;
	st = table_new(k, k->pgd_pa, 0, &pgd, err);
	if (st)
		return st;
	if (s->arch == GEN_ARCH_ARM && s->arm_lpae)
		st = plan_lpae_pmds(k, err);
	if (gen_arch_32(s->arch))
		return st ? st : plan_flat32(s, k, err);

	k->nsections = k->npfn / k->pfn_per_section;
	k->section_map_pa = calloc(k->nsections, sizeof(uint64_t));
	k->root_pa = calloc(k->nroots, sizeof(uint64_t));
	if (!k->section_map_pa || !k->root_pa)
		return mdf_err_set(err, MDF_ERR_NOMEM, "mem_section: out of memory");

	/* loongarch64's 1024 roots take half a page */
	st = alloc_pages(k, div_round_up(k->nroots * 8, k->page_size), 1, "mem_section roots",
			 &k->roots_pa, err);
	if (st)
		return st;
	k->vmemmap = s->vmemmap;
	if (s->arch == GEN_ARCH_MIPS64)
		return plan_mips64(s, k, err);
	/* A section's struct pages: 32768 of them = 2 MiB, one unit; ppc64's
	 * 256 (16 KiB) share one. */
	k->vmemmap_unit = k->pfn_per_section * k->struct_page;
	if (ppc64) {
		k->vmemmap_unit = s->pte4k ? k->page_size
					   : UINT64_C(1) << (k->ppc64_hash ? 24 : 21);
		k->vmemmap_leaf = k->vmemmap_unit;
	}
	if (s->arch == GEN_ARCH_LOONGARCH64) {
		/* a PMD's 32 MiB of struct pages, 16 sections' */
		k->vmemmap_unit = s->pte4k ? k->page_size : k->vmemmap_leaf;
		k->vmemmap_leaf = k->vmemmap_unit;
	}
	for (uint64_t sec = 0; sec < k->nsections; sec++) {
		bool present = false;
		uint64_t first = sec * k->pfn_per_section;
		for (uint64_t p = first; p < first + k->pfn_per_section && !present; p++)
			present = gen_bit_test(k->sysram, p);
		if (!present)
			continue;
		uint64_t root = sec / k->sections_per_root;
		if (!k->root_pa[root]) {
			st = alloc_pages(k, 1, 1, "a mem_section root page", &k->root_pa[root], err);
			if (st)
				return st;
		}
		st = plan_vmemmap(s, k, sec, first, err);
		if (st)
			return mdf_err_push(err, "vmemmap of section %" PRIu64, sec);
	}
	if (ppc64) {
		/* vmemmap_list: a struct vmemmap_backing per unit. */
		uint64_t n = div_round_up(k->nunits * PPC64_BACKING_SIZE, k->page_size);

		st = alloc_pages(k, n ? n : 1, 1, "vmemmap_list", &k->nodes_pa, err);
		if (st)
			return st;
	}

	if (s->arch == GEN_ARCH_S390X)
		return plan_identity(s, k, err);   /* the image is in it */
	if (s->arch == GEN_ARCH_LOONGARCH64) {
		/* RAM and the image are in DMW1, no table's: the empty
		 * tables, then a few vmalloc pages */
		int32_t t;

		st = table_new(k, k->la_inv_pte_pa, 2, &t, err);
		if (!st)
			st = table_new(k, k->la_inv_pmd_pa, 1, &t, err);
		return st ? st : plan_vmalloc(s, k, err);
	}

	/* Direct map with 1 GiB leaves over [0, highest RAM end); riscv64's
	 * linear map from phys_ram_base, in 2 MiB leaves when that is not
	 * 1 GiB aligned (a misaligned superpage does not translate).  The
	 * hash MMU's linear map is not in the tables. */
	uint64_t gib = UINT64_C(1) << 30, top = 0;
	uint64_t lm_leaf = s->phys_ram_base & (gib - 1) ? UINT64_C(1) << 21 : gib;
	for (size_t i = 0; i < s->nram; i++)
		top = MDF_MAX(top, s->ram[i].start + s->ram[i].memsz);
	if (!k->ppc64_hash)
		st = map_range(k, s->page_offset, s->phys_ram_base,
			       align_up(top - s->phys_ram_base, lm_leaf), lm_leaf, err);
	if (st)
		return mdf_err_push(err, "direct map");
	if (ppc64)
		return plan_vmalloc(s, k, err);   /* the image is in the linear map */

	/* Kernel text: 2 MiB leaves when aligned, else 4 KiB. */
	uint64_t leaf = ((k->text_pa | k->text_va | s->text_size) & 0x1fffff) ? GEN_PAGE_SIZE
									       : UINT64_C(1) << 21;
	st = map_range(k, k->text_va, k->text_pa, s->text_size, leaf, err);
	if (st)
		return mdf_err_push(err, "kernel text mapping");
	return MDF_OK;
}

/* ---- the printk ring ("dmesg" lines) ---- */

static bool log_enabled(const struct gen_spec *s)
{
	return s->nlogs || s->log_clear_line;
}

/* The kernel's long: the ring's ids, lpos and pointers (4 bytes on i386,
 * whose prb_desc is 12 bytes, printk_ringbuffer 44, latched_seq 20). */
static unsigned log_word(const struct gen_spec *s)
{
	return gen_arch_32(s->arch) ? 4 : 8;
}

/* A record's data block: its id (an unsigned long), then the text,
 * rounded up to a long (to_blk_size()). */
static uint64_t log_block_size(const struct gen_spec *s, const struct gen_log *l)
{
	const uint64_t w = log_word(s);

	return align_up(w + strlen(l->text), w);
}

/*
 * The ring's arrays, from RAM like a log_buf_len= buffer: a data ring of
 * 128 KiB (CONFIG_LOG_BUF_SHIFT 17) or the next power of two that holds
 * every record without wrapping, and a descriptor (and printk_info) per
 * 32 bytes of it (PRB_AVGBITS), more than there are records.
 */
static enum mdf_status plan_log(const struct gen_spec *s, struct gen_kernel *k,
				struct mdf_err *err)
{
	uint64_t total = 0, *pa[3] = { &k->log_descs_pa, &k->log_infos_pa, &k->log_data_pa };
	unsigned dbits = LOG_DATA_BITS_MIN, cbits;
	enum mdf_status st = MDF_OK;

	for (size_t i = 0; i < s->nlogs; i++)
		total += log_block_size(s, &s->logs[i]);
	while ((UINT64_C(1) << dbits) <= total)
		dbits++;
	cbits = dbits - LOG_AVG_BITS;
	while ((UINT64_C(1) << cbits) <= s->nlogs)
		cbits++;
	k->log_data_bits = dbits;
	k->log_count_bits = cbits;
	const uint64_t bytes[3] = { (uint64_t)(3 * log_word(s)) << cbits, LOG_INFO_SIZE << cbits,
				    UINT64_C(1) << dbits };
	for (size_t i = 0; i < 3 && !st; i++)
		st = alloc_pages(k, div_round_up(bytes[i], k->page_size), 1, "the printk ring",
				 pa[i], err);
	return st;
}

/* Undeclared RAM: free buddy blocks (largest aligned order <= 10, ppc64
 * 8) or kernel. */
static void plan_default(const struct gen_spec *s, struct gen_kernel *k)
{
	uint64_t p = 0;
	while (p < k->npfn) {
		if (!gen_bit_test(k->ram, p) || k->kind[p] != GEN_K_UNSET) {
			p++;
			continue;
		}
		if (!s->default_free) {
			k->kind[p++] = GEN_K_KERNEL;
			continue;
		}
		unsigned order = k->max_order;
		for (;; order--) {
			uint64_t n = UINT64_C(1) << order;
			bool ok = (p & (n - 1)) == 0 && p + n <= k->npfn;
			for (uint64_t q = p; ok && q < p + n; q++)
				ok = gen_bit_test(k->ram, q) && k->kind[q] == GEN_K_UNSET;
			if (ok || order == 0)
				break;
		}
		uint64_t n = UINT64_C(1) << order;
		for (uint64_t q = p; q < p + n; q++) {
			k->kind[q] = GEN_K_FREE;
			k->info[q] = (uint8_t)(order | (q == p ? GEN_INFO_HEAD : 0));
		}
		p += n;
	}
}

/* arm: arm_lowmem_limit as adjust_lowmem_bounds() (arch/arm/mm/mmu.c)
 * sets it: the highest end of a RAM range that starts below vmalloc_min's
 * physical address, but not past it. */
static uint64_t arm_lowmem_limit(const struct gen_spec *s)
{
	const uint64_t vmalloc_limit = s->phys_ram_base + GEN_ARM_LOWMEM;
	uint64_t limit = 0;

	for (size_t i = 0; i <= s->nram; i++) {
		uint64_t start = i < s->nram ? s->ram[i].start : s->crash_start;
		uint64_t end = i < s->nram ? start + s->ram[i].memsz : start + s->crash_size;

		if (start < vmalloc_limit && end > start)
			limit = MDF_MAX(limit, MDF_MIN(end, vmalloc_limit));
	}
	return limit;
}

/* Pages, sections and the tables' levels: 9 index bits a level from the
 * page up, but on ppc64 (book3s/64/radix-64k.h, hash-64k.h). */
static void plan_geometry(const struct gen_spec *s, struct gen_kernel *k)
{
	static const unsigned radix64k[4] = { 13, 9, 9, 5 }, hash64k[4] = { 8, 10, 10, 8 };
	unsigned shift = s->page_shift;

	k->arch = s->arch;
	k->big_endian = s->big_endian;
	k->pt_big_endian = s->big_endian || s->arch == GEN_ARCH_PPC64;
	k->pgd_pages = 1;
	k->vmemmap_leaf = UINT64_C(1) << 21;
	k->ppc64_hash = s->arch == GEN_ARCH_PPC64 && s->ppc64_hash;
	k->page_shift = s->page_shift;
	k->page_size = UINT64_C(1) << s->page_shift;
	k->pfn_per_section = UINT64_C(1) << (s->section_shift - s->page_shift);
	k->ms_size = s->arch == GEN_ARCH_MIPS64 ? GEN_MEM_SECTION_SIZE_MIPS64 : 32;
	k->sections_per_root = k->page_size / k->ms_size;   /* SIZE(mem_section) */
	k->max_order = s->arch == GEN_ARCH_PPC64 ? GEN_MAX_BUDDY_ORDER_PPC64
						 : GEN_MAX_BUDDY_ORDER;
	k->levels = s->arch == GEN_ARCH_RISCV64 ? (s->va_bits - GEN_PAGE_SHIFT) / 9 : 4;
	k->pte_size = 8;
	k->struct_page = GEN_STRUCT_PAGE;
	if (s->arch == GEN_ARCH_X86) {
		/* 686: pgd (10 bits from 22) and pte (10 from 12), 4 bytes;
		 * PAE: PDPT (2 from 30), pmd and pte (9), 8 bytes, and
		 * swapper_pg_dir is pgd_t[1024] (two pages) either way. */
		k->levels = s->x86_pae ? 3 : 2;
		k->pte_size = s->x86_pae ? 8 : 4;
		k->pgd_pages = s->x86_pae ? 2 : 1;
		k->struct_page = GEN_X86_STRUCT_PAGE;
		k->lowmem_end = s->x86_pae ? GEN_X86_MAXMEM_PAE : GEN_X86_MAXMEM;
		k->dma_end = UINT64_C(16) << 20;
	}
	if (s->arch == GEN_ARCH_ARM) {
		/* short descriptors: 4096 4-byte entries from bit 20 (16 KiB),
		 * tables of 256 from bit 12; LPAE: 4 8-byte entries from bit
		 * 30 (with the 4 PMD tables after it, 20 KiB), PMD and PTE
		 * tables of 512 from bits 21 and 12.  FLATMEM from
		 * ARCH_PFN_OFFSET; ZONE_DMA is all of lowmem. */
		k->arm_lpae = s->arm_lpae;
		k->levels = s->arm_lpae ? 3 : 2;
		k->pte_size = s->arm_lpae ? 8 : 4;
		k->pgd_pages = (unsigned)((s->arm_lpae ? GEN_ARM_PGD_SIZE_LPAE : GEN_ARM_PGD_SIZE) >>
					  GEN_PAGE_SHIFT);
		k->struct_page = GEN_ARM_STRUCT_PAGE;
		k->memmap_pfn0 = s->phys_ram_base >> GEN_PAGE_SHIFT;
		k->lowmem_end = arm_lowmem_limit(s);
		k->dma_end = k->lowmem_end;
		k->max_order = GEN_MAX_BUDDY_ORDER_ARM;
	}
	if (s->arch == GEN_ARCH_LOONGARCH64) {
		/* swapper_pg_dir, invalid_pte_table, invalid_pmd_table */
		k->levels = 3;
		k->pgd_pages = 3;
		k->struct_page = GEN_LA_STRUCT_PAGE;
		k->max_order = GEN_MAX_BUDDY_ORDER_LA;
		k->vmemmap_leaf = UINT64_C(1) << 25;
	}
	if (s->arch == GEN_ARCH_MIPS64) {
		/* 16 KiB pages: PGD, PMD and PTE tables of 2048 entries
		 * (pgtable-64.h, PGD_ORDER 0), one page each; 4 KiB: the
		 * PGD two pages of 1024 entries (PGD_ORDER 1), PMD and PTE
		 * of 512 */
		k->levels = 3;
		k->max_order = s->mips64_4k ? GEN_MAX_BUDDY_ORDER : GEN_MAX_BUDDY_ORDER_MIPS64;
		k->pgd_pages = s->mips64_4k ? 2 : 1;
	}
	if (s->arch == GEN_ARCH_S390X) {
		/* swapper_pg_dir: a 2048-entry table, 4 pages. */
		k->levels = s->levels;
		k->pgd_pages = (UINT64_C(8) << S390X_CRST_BITS) >> GEN_PAGE_SHIFT;
		k->vmemmap_leaf = UINT64_C(1) << 20;
	}
	for (unsigned l = k->levels; l-- > 0;) {
		if (s->arch == GEN_ARCH_S390X)
			k->bits[l] = l == k->levels - 1 ? S390X_PT_BITS : S390X_CRST_BITS;
		else if (s->arch == GEN_ARCH_X86)
			k->bits[l] = !s->x86_pae ? 10 : l == 0 ? 2 : 9;
		else if (s->arch == GEN_ARCH_ARM)
			k->bits[l] = s->arm_lpae ? (l == 0 ? 2 : 9) : l == 0 ? 12 : 8;
		else if (s->arch == GEN_ARCH_LOONGARCH64)
			k->bits[l] = s->page_shift - 3;
		else if (s->arch == GEN_ARCH_MIPS64)
			k->bits[l] = k->page_shift - 3 + (l == 0 && s->mips64_4k);   /* 0: the top */
		else
			k->bits[l] = s->arch != GEN_ARCH_PPC64 ? 9
				   : k->ppc64_hash ? hash64k[l] : radix64k[l];
		k->shift[l] = shift;
		shift += k->bits[l];
	}
}

/* A SYMBOL the preset puts at the real kernel's offset @off from the
 * image start: in the image, whatever its size, 8-byte aligned. */
static uint64_t text_offset_va(const struct gen_spec *s, const struct gen_kernel *k, uint64_t off)
{
	/* 32-bit longs are 4 bytes (node_online_map is node_states + 4). */
	uint64_t align = gen_arch_32(s->arch) ? 3 : 7;

	return k->text_va + ((off % s->text_size) & ~align);
}

/* ---- sadump: what a reader without VMCOREINFO finds the kernel by ---- */

/*
 * A sadump file has no VMCOREINFO: its reader takes the symbols from a
 * debug vmlinux and finds the kernel in memory by them (upstream's
 * sadump_info.c): linux_banner for phys_base, the IDT that IDTR points at
 * for the KASLR offset (vector 0 is asm_exc_divide_error), the online cpu
 * mask, __per_cpu_offset, each cpu's x86_bios_cpu_apicid and crash_notes,
 * and, as with any -x, the mem_section pointer (VMCOREINFO gives the array
 * it points to) and page_offset_base.  They take GEN_SADUMP_VAR_PAGES
 * pages of the image below init_uts_ns:
 *
 *   +0x0000  linux_banner ("Linux version ...")
 *   +0x0100  mem_section, page_offset_base, saved_command_line,
 *            crash_notes, x86_bios_cpu_apicid_early_ptr (NULL after boot),
 *            kexec_crash_image (NULL: no kdump kernel loaded), 8 bytes each
 *   +0x0200  the command line saved_command_line points to
 *   +0x0400  __cpu_online_mask (NR_CPUS bits)
 *   +0x0800  x86_bios_cpu_apicid_early_map (__initdata, unused)
 *   +0x1000  idt_table: 256 interrupt gates, vector V to the handler at
 *            asm_exc_divide_error + 16 V
 *   +0x2000  asm_exc_divide_error and the other handlers (code, zero)
 *   +0x3000  __per_cpu_load (the per-cpu section's load image)
 *   +0x4000  __per_cpu_offset[NR_CPUS]: a cpu's area minus the per-cpu
 *            section's link address 0, __per_cpu_load past the last cpu
 *
 * Each cpu's per-cpu area (GEN_PCPU_SIZE bytes from RAM, direct-mapped)
 * holds x86_bios_cpu_apicid (u16, = the cpu) at PCPU_APICID, its GDT at
 * PCPU_GDT, the zeroed crash note crash_notes points to at PCPU_NOTES (no
 * kdump ran: the reader falls back to the SMRAM registers) and the stack
 * RSP points into.
 */
#define SV_BANNER 0x000
#define SV_MEM_SECTION 0x100
#define SV_PAGE_OFFSET_BASE 0x108
#define SV_SAVED_CMDLINE 0x110
#define SV_CRASH_NOTES 0x118
#define SV_APICID_EARLY_PTR 0x120
#define SV_KEXEC_CRASH_IMAGE 0x128
#define SV_CMDLINE 0x200
#define SV_ONLINE_MASK 0x400
#define SV_APICID_EARLY_MAP 0x800
#define SV_IDT 0x1000
#define SV_HANDLERS 0x2000
#define SV_PER_CPU_LOAD 0x3000
#define SV_PER_CPU_OFFSET 0x4000
#define PCPU_APICID 0x100
#define PCPU_GDT 0x400
#define PCPU_NOTES 0x1000
#define PCPU_STACK 0x1f00
#define IDT_GATE_SIZE 16
#define IDT_VECTORS 256
#define KERNEL_CS 0x10
#define KERNEL_DS 0x18
#define GDT_TSS 0x40
#define GATE_INTERRUPT 0x8e00   /* present, DPL 0, type 0xe */
/* Node 0's pglist_data, for a reader that walks the free lists (upstream
 * with -x does on 6.1: PAGE_BUDDY_MAPCOUNT_VALUE is a macro there): the
 * 6.1 preset's layout (kobj.h).  node_data[0] points to it (from RAM,
 * like memblock gives it), node_online_map has node 0. */
#define PGDAT_SIZE 174208
#define PGDAT_NR_ZONES 171552
#define PGDAT_START_PFN 171560
#define PGDAT_PRESENT 171568
#define PGDAT_SPANNED 171576
#define ZONE_SIZE 1536
#define ZONE_SPANNED 144
#define ZONE_FREE_AREA 256
#define FREE_AREA_SIZE 88           /* free_list[MIGRATE_TYPES], nr_free */
#define FREE_AREA_NR_FREE 80
#define MIGRATE_TYPES 5
#define MIGRATE_MOVABLE 1
#define ZONE_VM_STAT 1344           /* vm_stat[NR_FREE_PAGES = 0] */
#define NR_ZONES_X86 5              /* DMA DMA32 NORMAL MOVABLE DEVICE */
#define LRU_OFF 8                   /* OFFSET(page.lru) */
#define PRESET_NODE_DATA UINT64_C(0x1c393a0)       /* the 6.1 preset's @T+ offsets */
#define PRESET_NODE_ONLINE_MAP UINT64_C(0x1c3df40)

static enum mdf_status plan_sadump(const struct gen_spec *s, struct gen_kernel *k,
				   struct mdf_err *err)
{
	uint64_t tfirst = k->text_pa >> k->page_shift;
	uint64_t run = text_run(k, tfirst, tfirst + (s->text_size >> k->page_shift),
				GEN_SADUMP_VAR_PAGES, 1);
	if (run == UINT64_MAX)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "kernel text: no %d unclaimed pages in a row for the "
				   "variables a sadump reader needs", GEN_SADUMP_VAR_PAGES);
	for (uint64_t p = run; p < run + GEN_SADUMP_VAR_PAGES; p++)
		gen_bit_set(k->meta, p);
	k->sadump_vars_pa = run << k->page_shift;
	enum mdf_status st = alloc_pages(k, div_round_up(PGDAT_SIZE, k->page_size), 1,
					 "node 0's pglist_data", &k->pgdat_pa, err);
	return st ? st : alloc_pages(k, s->cpus * (GEN_PCPU_SIZE >> k->page_shift), 1,
				     "per-cpu areas", &k->percpu_pa, err);
}

/* 32-bit: contig_page_data, a variable of the image: two pages of it the
 * spec leaves alone. */
static enum mdf_status plan_flat32_pgdat(const struct gen_spec *s, struct gen_kernel *k,
					 struct mdf_err *err)
{
	uint64_t tfirst = k->text_pa >> k->page_shift;
	uint64_t n = div_round_up(s->preset->flat32->pglist_data, k->page_size);
	uint64_t run = text_run(k, tfirst, tfirst + (s->text_size >> k->page_shift), n, 1);

	if (run == UINT64_MAX)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "kernel text: no %" PRIu64 " unclaimed pages in a row for "
				   "contig_page_data", n);
	for (uint64_t p = run; p < run + n; p++)
		gen_bit_set(k->meta, p);
	k->pgdat_pa = run << k->page_shift;
	return MDF_OK;
}

enum mdf_status gen_kernel_plan(const struct gen_spec *s, struct gen_kernel *k,
				struct mdf_err *err)
{
	kernel_zero(k);
	plan_geometry(s, k);
	k->nroots = s->arch == GEN_ARCH_ARM64 ? GEN_SECTION_ROOTS_ARM64 : GEN_SECTION_ROOTS;
	k->text_va = text_start_va(s);
	k->text_pa = text_start_pa(s);
	if (gen_arch_32(s->arch)) {
		k->nroots = 0;   /* FLATMEM; finish_x86/arm() put the image in lowmem */
	} else if (s->arch == GEN_ARCH_PPC64) {
		/* The image at physical 0: plan_kinds() checks it is RAM. */
		k->nroots = GEN_SECTION_ROOTS_PPC64;
	} else if (s->arch == GEN_ARCH_S390X) {
		/* The image in the identity map: plan_kinds() checks it is RAM. */
		k->nroots = GEN_SECTION_ROOTS_S390X;
	} else if (s->arch == GEN_ARCH_LOONGARCH64) {
		/* The image in DMW1: plan_kinds() checks it is RAM. */
		k->nroots = GEN_SECTION_ROOTS_LA;
	} else if (s->arch == GEN_ARCH_MIPS64) {
		k->nroots = GEN_SECTION_ROOTS_MIPS64;   /* the image in CKSEG0 */
	} else if (s->arch == GEN_ARCH_RISCV64) {
		k->nroots = GEN_SECTION_ROOTS_RISCV64;
		if (k->text_pa & (GEN_PAGE_SIZE - 1) || k->text_pa >= (UINT64_C(1) << 56))
			return mdf_err_set(err, MDF_ERR_ARG,
					   "kernel image paddr 0x%" PRIx64
					   " (phys_ram_base + 0x200000 + phys_base) is not a valid page address",
					   k->text_pa);
		/* The image ends below 2^64, MODULES_VADDR stays above 0. */
		if (s->kaslr + s->text_size > (UINT64_C(1) << 31))
			return mdf_err_set(err, MDF_ERR_ARG,
					   "kernel image 0x%" PRIx64 " (kaslr 0x%" PRIx64
					   ") runs past the end of the address space",
					   k->text_va, s->kaslr);
	} else if (s->arch == GEN_ARCH_ARM64) {
		if (k->text_pa & (GEN_PAGE_SIZE - 1) || k->text_pa >= (UINT64_C(1) << 48))
			return mdf_err_set(err, MDF_ERR_ARG,
					   "kernel image paddr 0x%" PRIx64
					   " (0x1000000 + phys_base) is not a valid page address",
					   k->text_pa);
		if (s->kaslr >= ARM64_VMALLOC_END - GEN_ARM64_KIMAGE_VADDR ||
		    s->text_size > ARM64_VMALLOC_END - k->text_va)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "kernel image 0x%" PRIx64 " (kaslr 0x%" PRIx64
					   ") runs past VMALLOC_END",
					   k->text_va, s->kaslr);
	} else if (k->text_pa & (GEN_PAGE_SIZE - 1) || k->text_pa >= (UINT64_C(1) << 46)) {
		return mdf_err_set(err, MDF_ERR_ARG,
				   "kernel text paddr 0x%" PRIx64
				   " (0x1000000 + kaslr + phys_base) is not a valid page address",
				   k->text_pa);
	}
	uint64_t end = k->text_pa + s->text_size;
	for (size_t i = 0; i < s->nram; i++)
		end = MDF_MAX(end, s->ram[i].start + s->ram[i].memsz);
	k->max_pfn = div_round_up(end, k->page_size);
	k->npfn = gen_spec_npfn(s);
	size_t nbytes = (size_t)(k->npfn / 8 + 1);
	k->kind = calloc(k->npfn, 1);
	k->info = calloc(k->npfn, 1);
	k->ram = calloc(nbytes, 1);
	k->sysram = calloc(nbytes, 1);
	k->backed = calloc(nbytes, 1);
	k->claimed = calloc(nbytes, 1);
	k->meta = calloc(nbytes, 1);
	if (!k->kind || !k->info || !k->ram || !k->sysram || !k->backed || !k->claimed || !k->meta) {
		gen_kernel_free(k);
		return mdf_err_set(err, MDF_ERR_NOMEM, "pfn tables: out of memory");
	}
	for (size_t i = 0; i < s->nram; i++) {
		const struct gen_ram *r = &s->ram[i];
		/* RAM pfns as makedumpfile's 1st bitmap sees them. */
		set_span(k->ram, r->start >> k->page_shift,
			 (r->start + r->memsz) >> k->page_shift);
		set_span(k->backed, div_round_up(r->start, k->page_size),
			 (r->start + r->filesz) >> k->page_shift);
	}
	memcpy(k->sysram, k->ram, nbytes);
	/* crashkernel= memory: RAM with struct pages (reserved), not dumped. */
	set_span(k->sysram, s->crash_start >> k->page_shift,
		 (s->crash_start + s->crash_size) >> k->page_shift);
	k->alloc_cursor = k->npfn;
	/* 32-bit: memblock allocates below max_low_pfn (the direct map); on
	 * arm below memblock_limit, lowmem's end rounded down to a pmd. */
	if (gen_arch_32(s->arch))
		k->alloc_cursor = MDF_MIN(k->npfn, (s->arch == GEN_ARCH_ARM
						    ? align_down(k->lowmem_end, UINT64_C(2) << 20)
						    : k->lowmem_end) >> k->page_shift);
	enum mdf_status st = plan_kinds(s, k, err);
	if (!st && !s->no_struct_pages)
		st = plan_memmap(s, k, err);
	if (!st && gen_arch_32(s->arch) && !s->no_struct_pages)
		st = plan_flat32_pgdat(s, k, err);
	if (!st && log_enabled(s))
		st = plan_log(s, k, err);
	if (!st && gen_spec_sadump(s))
		st = plan_sadump(s, k, err);
	if (st) {
		gen_kernel_free(k);
		return st;
	}
	plan_default(s, k);
	return MDF_OK;
}

/* ---- struct page contents ---- */

static void put64(bool big, uint8_t *p, unsigned off, uint64_t v)
{
	gen_store64(big, p + off, v);
}

static void put32(bool big, uint8_t *p, unsigned off, uint32_t v)
{
	gen_store32(big, p + off, v);
}

static uint64_t bit(int nr)
{
	return nr >= 0 ? UINT64_C(1) << nr : 0;
}

/* Find the head pfn of the block containing @pfn. */
static uint64_t block_head(const struct gen_kernel *k, uint64_t pfn)
{
	unsigned order = k->info[pfn] & GEN_INFO_ORDER;
	return pfn & ~((UINT64_C(1) << order) - 1);
}

static void build_page(const struct gen_spec *s, const struct gen_kernel *k, uint64_t pfn,
		       uint8_t *pg)
{
	const struct gen_preset *ps = s->preset;
	const bool be = k->big_endian;
	uint64_t va = k->vmemmap + pfn * k->struct_page;
	/* Upper flag bits as on fx-v61: last_cpupid all ones, zone (DMA <
	 * 16 MiB, DMA32 < 4 GiB, Normal; ppc64 has Normal only; s390x DMA
	 * below 2 GiB, then Normal). */
	uint64_t pa = pfn << k->page_shift;
	uint64_t zone = s->arch == GEN_ARCH_PPC64 ? 0 : pa < (UINT64_C(1) << 24) ? 0
						: pa < (UINT64_C(1) << 32) ? 1 : 2;
	if (s->arch == GEN_ARCH_LOONGARCH64)   /* ZONE_DMA32, ZONE_NORMAL */
		zone = pa < (UINT64_C(1) << 32) ? 0 : 1;
	if (s->arch == GEN_ARCH_S390X)
		zone = pa < (UINT64_C(1) << 31) ? 0 : 1;
	uint64_t flags = UINT64_C(0x1fffff) << 30 | zone << 51;
	uint64_t po = s->page_offset;
	/* POISON_POINTER_DELTA: s390x and loongarch64 set no
	 * CONFIG_ILLEGAL_POINTER_VALUE. */
	uint64_t poison = s->arch == GEN_ARCH_PPC64 ? PPC64_POISON_DELTA
			: s->arch == GEN_ARCH_S390X || s->arch == GEN_ARCH_LOONGARCH64 ||
				  s->arch == GEN_ARCH_MIPS64 ? 0
							       : POISON_DELTA;
	int32_t mapcount = -1;
	uint32_t refcount = 1;
	enum gen_kind kind = (enum gen_kind)k->kind[pfn];
	bool head = (k->info[pfn] & GEN_INFO_HEAD) != 0;
	unsigned order = k->info[pfn] & GEN_INFO_ORDER;

	memset(pg, 0, k->struct_page);
	if (s->arch == GEN_ARCH_LOONGARCH64)   /* WANT_PAGE_VIRTUAL */
		put64(be, pg, 64, GEN_LA_DMW1 + pa);
	if ((kind == GEN_K_THP || kind == GEN_K_HUGETLB) && !head) {
		uint64_t h = block_head(k, pfn);
		put64(be, pg, 8, (k->vmemmap + h * k->struct_page) | 1);   /* compound_head */
		refcount = 0;
		if (pfn == h + 1) {
			if (ps->order_in_flags1) {
				flags |= order;        /* 6.9+: folio _flags_1 low byte */
			} else {
				/* 6.1: compound_dtor, compound_order, mapcount, nr */
				int dtor = kind == GEN_K_HUGETLB ? ps->hugetlb_dtor : COMPOUND_DTOR_THP;
				pg[16] = (uint8_t)dtor;
				pg[17] = (uint8_t)order;
				put32(be, pg, 20, UINT32_MAX);
				put32(be, pg, 28, UINT32_C(1) << order);
			}
		} else if (!ps->order_in_flags1) {
			put64(be, pg, 24, poison + TAIL_MAPPING);
		}
		put64(be, pg, 0, flags);
		put32(be, pg, 48, (uint32_t)mapcount);
		put32(be, pg, 52, refcount);
		return;
	}
	switch (kind) {
	case GEN_K_UNSET:
	case GEN_K_KERNEL:
		flags |= bit(ps->pg_reserved);
		put64(be, pg, 8, va + 8);
		put64(be, pg, 16, va + 8);
		break;
	case GEN_K_FREE:
		refcount = 0;
		if (head) {
			put64(be, pg, 8, va + 8);
			put64(be, pg, 16, va + 8);
			put64(be, pg, 40, order);
			mapcount = ps->buddy_mapcount;
		} else {
			put64(be, pg, 16, poison + LIST_POISON2);
		}
		break;
	case GEN_K_CACHE:
	case GEN_K_CACHE_PRIVATE:
		flags |= bit(ps->pg_lru) | bit(ps->pg_uptodate) | bit(ps->pg_referenced);
		put64(be, pg, 8, va + 8);
		put64(be, pg, 16, va + 8);
		put64(be, pg, 24, po + FAKE_ADDRESS_SPACE);
		put64(be, pg, 32, pfn & 0xffff);
		if (kind == GEN_K_CACHE_PRIVATE) {
			flags |= bit(ps->pg_private);
			put64(be, pg, 40, po + FAKE_BUFFER_HEADS + (pfn & 0xff) * 0x68);
			refcount = 2;
		}
		break;
	case GEN_K_SWAPCACHE:
		flags |= bit(ps->pg_swapcache) | bit(ps->pg_swapbacked) | bit(ps->pg_uptodate);
		put64(be, pg, 40, (pfn & 0xffff) << 8);      /* swp_entry_t */
		break;
	case GEN_K_ANON:
	case GEN_K_THP:
		flags |= bit(ps->pg_lru) | bit(ps->pg_swapbacked) | bit(ps->pg_uptodate);
		if (kind == GEN_K_THP)
			flags |= bit(ps->pg_head);
		put64(be, pg, 8, va + 8);
		put64(be, pg, 16, va + 8);
		put64(be, pg, 24, (po + FAKE_ANON_VMA) | 1);  /* PAGE_MAPPING_ANON */
		put64(be, pg, 32, pfn);
		mapcount = 0;
		break;
	case GEN_K_HUGETLB:
		flags |= bit(ps->pg_head) | bit(ps->pg_uptodate);
		put64(be, pg, 24, po + FAKE_HUGETLBFS_MAPPING);
		if (ps->hugetlb_mapcount)
			mapcount = ps->hugetlb_mapcount;
		break;
	case GEN_K_SLAB:
		if (ps->slab_mapcount)
			mapcount = ps->slab_mapcount;
		else
			flags |= bit(ps->pg_slab);
		/* 6.2+: what sits at page.mapping may have bit 0 set; not anon. */
		put64(be, pg, 24, (po + FAKE_KMEM_CACHE) | (ps->slab_odd_mapping ? 1 : 0));
		put64(be, pg, 8, poison + LIST_POISON1);
		put64(be, pg, 16, poison + LIST_POISON2);
		break;
	case GEN_K_HWPOISON:
		flags |= bit(ps->pg_hwpoison);
		break;
	case GEN_K_OFFLINE:
		mapcount = ps->offline_mapcount;
		break;
	case GEN_K_COUNT:
		break;
	}
	put64(be, pg, 0, flags);
	put32(be, pg, 48, (uint32_t)mapcount);
	put32(be, pg, 52, refcount);
}

/* The 32-bit kernels: the zone of @pfn (DMA, NORMAL, HIGHMEM). */
static unsigned flat32_zone(const struct gen_kernel *k, uint64_t pfn)
{
	uint64_t pa = pfn << k->page_shift;

	return pa < k->dma_end ? 0 : pa < k->lowmem_end ? 1 : 2;
}

/* The 32-bit kernels: the address of the struct page of @pfn (mem_map is
 * that of memmap_pfn0). */
static uint32_t flat32_page_va(const struct gen_spec *s, const struct gen_kernel *k,
			       uint64_t pfn)
{
	return (uint32_t)(linear_va(s, k->memmap_pa) + (pfn - k->memmap_pfn0) * k->struct_page);
}

/*
 * The 32-bit struct page (i386 40 bytes, arm 36; 32-bit words, FLAT32_*
 * above): the kinds of build_page() with the 6.1 semantics, the zone at
 * the top of flags and no poison delta (CONFIG_ILLEGAL_POINTER_VALUE is 0
 * on both: LIST_POISON2 is 0x122, TAIL_MAPPING 0x400).  6.1 has no
 * compound_nr on 32-bit.
 */
static void build_page32(const struct gen_spec *s, const struct gen_kernel *k, uint64_t pfn,
			 uint8_t *pg)
{
	const struct gen_preset *ps = s->preset;
	const uint32_t va = flat32_page_va(s, k, pfn);
	const uint64_t po = s->page_offset;
	uint32_t flags = flat32_zone(k, pfn) << FLAT32_ZONE_SHIFT, refcount = 1;
	int32_t mapcount = -1;
	enum gen_kind kind = (enum gen_kind)k->kind[pfn];
	bool head = (k->info[pfn] & GEN_INFO_HEAD) != 0;
	unsigned order = k->info[pfn] & GEN_INFO_ORDER;

	memset(pg, 0, k->struct_page);
	if ((kind == GEN_K_THP || kind == GEN_K_HUGETLB) && !head) {
		uint64_t h = block_head(k, pfn);

		put32(false, pg, 4, flat32_page_va(s, k, h) | 1);
		refcount = 0;
		if (pfn == h + 1) {
			pg[8] = (uint8_t)(kind == GEN_K_HUGETLB ? ps->hugetlb_dtor : COMPOUND_DTOR_THP);
			pg[9] = (uint8_t)order;
			put32(false, pg, 12, UINT32_MAX);   /* compound_mapcount -1 */
		} else {
			put32(false, pg, 12, (uint32_t)TAIL_MAPPING);
		}
		put32(false, pg, 0, flags);
		put32(false, pg, 24, (uint32_t)mapcount);
		put32(false, pg, 28, refcount);
		return;
	}
	switch (kind) {
	case GEN_K_UNSET:
	case GEN_K_KERNEL:
		flags |= (uint32_t)bit(ps->pg_reserved);
		put32(false, pg, 4, va + 4);
		put32(false, pg, 8, va + 4);
		break;
	case GEN_K_FREE:
		refcount = 0;
		if (head) {
			put32(false, pg, 4, va + 4);
			put32(false, pg, 8, va + 4);
			put32(false, pg, 20, order);
			mapcount = ps->buddy_mapcount;
		} else {
			put32(false, pg, 8, (uint32_t)LIST_POISON2);
		}
		break;
	case GEN_K_CACHE:
	case GEN_K_CACHE_PRIVATE:
		flags |= (uint32_t)(bit(ps->pg_lru) | bit(ps->pg_uptodate) | bit(ps->pg_referenced));
		put32(false, pg, 4, va + 4);
		put32(false, pg, 8, va + 4);
		put32(false, pg, 12, (uint32_t)(po + FAKE_ADDRESS_SPACE));
		put32(false, pg, 16, (uint32_t)(pfn & 0xffff));
		if (kind == GEN_K_CACHE_PRIVATE) {
			flags |= (uint32_t)bit(ps->pg_private);
			put32(false, pg, 20, (uint32_t)(po + FAKE_BUFFER_HEADS + (pfn & 0xff) * 0x40));
			refcount = 2;
		}
		break;
	case GEN_K_SWAPCACHE:
		flags |= (uint32_t)(bit(ps->pg_swapcache) | bit(ps->pg_swapbacked) |
				    bit(ps->pg_uptodate));
		put32(false, pg, 20, (uint32_t)((pfn & 0xffff) << 8));   /* swp_entry_t */
		break;
	case GEN_K_ANON:
	case GEN_K_THP:
		flags |= (uint32_t)(bit(ps->pg_lru) | bit(ps->pg_swapbacked) | bit(ps->pg_uptodate));
		if (kind == GEN_K_THP)
			flags |= (uint32_t)bit(ps->pg_head);
		put32(false, pg, 4, va + 4);
		put32(false, pg, 8, va + 4);
		put32(false, pg, 12, (uint32_t)(po + FAKE_ANON_VMA) | 1);   /* PAGE_MAPPING_ANON */
		put32(false, pg, 16, (uint32_t)pfn);
		mapcount = 0;
		break;
	case GEN_K_HUGETLB:
		flags |= (uint32_t)(bit(ps->pg_head) | bit(ps->pg_uptodate));
		put32(false, pg, 12, (uint32_t)(po + FAKE_HUGETLBFS_MAPPING));
		break;
	case GEN_K_SLAB:
		flags |= (uint32_t)bit(ps->pg_slab);
		put32(false, pg, 12, (uint32_t)(po + FAKE_KMEM_CACHE));
		put32(false, pg, 4, (uint32_t)LIST_POISON1);
		put32(false, pg, 8, (uint32_t)LIST_POISON2);
		break;
	case GEN_K_HWPOISON:
		flags |= (uint32_t)bit(ps->pg_hwpoison);
		break;
	case GEN_K_OFFLINE:
		mapcount = ps->offline_mapcount;
		break;
	case GEN_K_COUNT:
		break;
	}
	put32(false, pg, 0, flags);
	put32(false, pg, 24, (uint32_t)mapcount);
	put32(false, pg, 28, refcount);
}

/* utsname.machine, as uname -m prints it. */
static const char *uts_machine(const struct gen_spec *s)
{
	switch (s->arch) {
	case GEN_ARCH_ARM64:
		return "aarch64";
	case GEN_ARCH_RISCV64:
		return "riscv64";
	case GEN_ARCH_PPC64:
		return s->big_endian ? "ppc64" : "ppc64le";
	case GEN_ARCH_S390X:
		return "s390x";
	case GEN_ARCH_X86:
		/* UTS_MACHINE i386, made "i686" by check_bugs() (bugs.c, 6.1)
		 * on a family 6 or later cpu */
		return "i686";
	case GEN_ARCH_ARM:
		/* setup_processor(): the cpu's arch name and the endianness */
		return "armv7l";
	case GEN_ARCH_LOONGARCH64:
		return "loongarch64";
	case GEN_ARCH_MIPS64:
		return "mips64";   /* UTS_MACHINE, either byte order */
	case GEN_ARCH_X86_64:
		break;
	}
	return "x86_64";
}

static void put_str(uint8_t *dst, const char *s, size_t max)
{
	size_t n = strlen(s);
	memcpy(dst, s, n < max ? n : max - 1);
}

/*
 * ppc64: the vmemmap variables in the page of init_uts_ns (@page): the
 * head of vmemmap_list, mmu_vmemmap_psize and the shifts of the MMU's page
 * sizes in mmu_psize_defs (radix: 4K 64K 2M 1G, hash on POWER8: 4K 64K 16M
 * 16G).  vmemmap_list is pushed at its head as blocks are populated: the
 * last block first, each entry pointing at the one before.
 */
static void ppc64_vmemmap_vars(const struct gen_spec *s, const struct gen_kernel *k,
			       uint8_t *page)
{
	static const unsigned radix[][2] = { { 0, 12 }, { 2, 16 }, { 7, 21 }, { 13, 30 } };
	static const unsigned hash[][2] = { { 0, 12 }, { 2, 16 }, { 10, 24 }, { 14, 34 } };
	const unsigned(*defs)[2] = k->ppc64_hash ? hash : radix;
	unsigned psize = s->pte4k ? PPC64_PSIZE_64K
				  : k->ppc64_hash ? PPC64_PSIZE_16M : PPC64_PSIZE_2M;

	if (k->nunits)
		put64(k->big_endian, page, PPC64_VMEMMAP_LIST_OFF,
		      linear_va(s, k->nodes_pa + (k->nunits - 1) * PPC64_BACKING_SIZE));
	put32(k->big_endian, page, PPC64_PSIZE_OFF, psize);
	for (size_t i = 0; i < sizeof(radix) / sizeof(radix[0]); i++)
		put32(k->big_endian, page,
		      PPC64_PSIZE_DEFS_OFF + defs[i][0] * PPC64_PSIZE_DEF_SIZE, defs[i][1]);
}

/* ppc64: the vmemmap_backing entries; ppc64 and loongarch64: the vmalloc
 * pages' contents (each word its own address). */
static enum mdf_status ppc64_write(const struct gen_spec *s, const struct gen_kernel *k,
				   gen_phys_write_fn wr, void *ctx, uint8_t *page,
				   struct mdf_err *err)
{
	size_t per_page = k->page_size / PPC64_BACKING_SIZE;
	enum mdf_status st = MDF_OK;

	/* vmemmap_list is ppc64's; loongarch64 has the vmalloc pages only */
	for (size_t i0 = 0; s->arch == GEN_ARCH_PPC64 && i0 < k->nunits && !st; i0 += per_page) {
		size_t n = MDF_MIN(per_page, k->nunits - i0);

		memset(page, 0, k->page_size);
		for (size_t i = i0; i < i0 + n; i++) {
			uint8_t *e = page + (i - i0) * PPC64_BACKING_SIZE;
			uint64_t prev = k->nodes_pa + (i - 1) * PPC64_BACKING_SIZE;

			put64(k->big_endian, e, 0, i ? linear_va(s, prev) : 0);   /* list */
			put64(k->big_endian, e, 8, k->units[i].pa);               /* phys */
			put64(k->big_endian, e, 16, k->units[i].va);              /* virt_addr */
		}
		st = wr(ctx, k->nodes_pa + i0 * PPC64_BACKING_SIZE, page,
			n * PPC64_BACKING_SIZE, err);
	}
	for (size_t i = 0; i < k->nvmalloc && !st; i++) {
		uint64_t va = s->vmalloc_start + i * k->page_size;

		for (uint64_t off = 0; off < k->page_size; off += 8)
			put64(k->big_endian, page, (unsigned)off, va + off);
		st = wr(ctx, k->vmalloc_pa[i], page, k->page_size, err);
	}
	return st;
}

/* The kernel address of the page of init_uts_ns (in the image). */
static uint64_t uts_va(const struct gen_kernel *k)
{
	return k->text_va + (k->uts_pa - k->text_pa);
}

/*
 * The printk ring as the kernel leaves it after s->nlogs printk()s that
 * never wrapped it (kernel/printk/printk_ringbuffer.c, 5.10 on): prb points
 * at printk_rb_static; the descriptor ids start where DESC0_ID(count_bits)
 * (the reusable descriptor in the last slot, the tail) leaves off, so
 * record i has id 2^62 - count + i in slot i; data blocks (id, text) follow
 * each other from BLK0_LPOS = -size.  Every record is finalized, level 6
 * with LOG_NEWLINE (flags:5 level:3 share a byte: LSB first on a
 * little-endian kernel, MSB first on a big-endian one), at (i + 1) * 0.1 s
 * + i us.  The variables go into @page (the page of init_uts_ns).
 */
/* A long of the kernel (@w bytes) at @off. */
static void put_long(bool big, uint8_t *p, unsigned off, uint64_t v, unsigned w)
{
	if (w == 4)
		gen_store32(big, p + off, (uint32_t)v);
	else
		gen_store64(big, p + off, v);
}

static enum mdf_status log_write(const struct gen_spec *s, const struct gen_kernel *k,
				 gen_phys_write_fn wr, void *ctx, uint8_t *page,
				 struct mdf_err *err)
{
	const bool be = k->big_endian;
	/* longs: state_var keeps the state in its top 2 bits, the id below;
	 * lpos and ids wrap at the long's width. */
	const unsigned w = log_word(s), dsz = 3 * w, sv_shift = 8 * w - 2;
	const uint64_t wmask = w == 8 ? UINT64_MAX : UINT32_MAX;
	const uint64_t id_mask = (UINT64_C(1) << sv_shift) - 1;
	const uint64_t count = UINT64_C(1) << k->log_count_bits;
	const uint64_t size = UINT64_C(1) << k->log_data_bits;
	const uint64_t desc0 = (UINT64_C(0) - count - 1) & id_mask;
	const uint8_t fl = be ? LOG_NEWLINE << 3 | LOG_LEVEL_INFO : LOG_LEVEL_INFO << 5 | LOG_NEWLINE;
	uint8_t *descs = calloc(count, dsz), *infos = calloc(count, LOG_INFO_SIZE);
	uint8_t *data = calloc(1, size), *rb = page + LOG_RB_OFF;
	uint64_t lpos = (UINT64_C(0) - size) & wmask, head = desc0;
	enum mdf_status st;

	if (!descs || !infos || !data) {
		st = mdf_err_set(err, MDF_ERR_NOMEM, "printk ring: out of memory");
		goto out;
	}
	/* DESC0: reusable, no data; the first info's seq as initialised. */
	put_long(be, descs, (unsigned)((count - 1) * dsz), LOG_REUSABLE << sv_shift | desc0, w);
	put_long(be, descs, (unsigned)((count - 1) * dsz + w), LOG_FAILED_LPOS, w);
	put_long(be, descs, (unsigned)((count - 1) * dsz + 2 * w), LOG_FAILED_LPOS, w);
	put64(be, infos, 0, UINT64_C(0) - count);
	for (size_t i = 0; i < s->nlogs; i++) {
		const char *text = s->logs[i].text;
		uint64_t id = (desc0 + 1 + i) & id_mask, slot = id & (count - 1);
		uint64_t next = (lpos + log_block_size(s, &s->logs[i])) & wmask;
		uint8_t *d = descs + slot * dsz, *in = infos + slot * LOG_INFO_SIZE;
		uint8_t *blk = data + (lpos & (size - 1));

		put_long(be, blk, 0, id, w);
		memcpy(blk + w, text, strlen(text));
		put_long(be, d, 0, LOG_FINALIZED << sv_shift | id, w);    /* state_var */
		put_long(be, d, w, lpos, w);                                /* text_blk_lpos */
		put_long(be, d, 2 * w, next, w);
		put64(be, in, 0, i);                                    /* seq */
		put64(be, in, 8, UINT64_C(100000000) * (i + 1) + UINT64_C(1000) * i);
		gen_store16(be, in + 16, (uint16_t)strlen(text));       /* text_len */
		in[19] = fl;                                            /* flags, level */
		put32(be, in, 20, 1);                                   /* caller_id */
		lpos = next;
		head = id;
	}
	/* prb, printk_rb_static: desc_ring (count_bits, descs, infos, head_id,
	 * tail_id, last_finalized_id), text_data_ring (size_bits, data,
	 * head_lpos, tail_lpos), fail, a long each but the unsigned ints;
	 * clear_seq: latch (an unsigned int), val[2] (u64s, 4-byte aligned
	 * on i386). */
	put_long(be, page, LOG_PRB_OFF, uts_va(k) + LOG_RB_OFF, w);
	put32(be, rb, 0, k->log_count_bits);
	put_long(be, rb, w, linear_va(s, k->log_descs_pa), w);
	put_long(be, rb, 2 * w, linear_va(s, k->log_infos_pa), w);
	put_long(be, rb, 3 * w, head, w);
	put_long(be, rb, 4 * w, desc0, w);
	put_long(be, rb, 5 * w, head, w);
	put32(be, rb, 6 * w, k->log_data_bits);
	put_long(be, rb, 7 * w, linear_va(s, k->log_data_pa), w);
	put_long(be, rb, 8 * w, lpos, w);
	put_long(be, rb, 9 * w, (UINT64_C(0) - size) & wmask, w);
	/* latched_seq.val: after the latch, where u64 aligns (i386 4). */
	const unsigned val = s->preset->flat32 ? s->preset->flat32->latched_seq_val : 8;

	put32(be, page, LOG_CLEAR_OFF, 2);
	put64(be, page, LOG_CLEAR_OFF + val, s->log_clear);
	put64(be, page, LOG_CLEAR_OFF + val + 8, s->log_clear);
	st = wr(ctx, k->log_descs_pa, descs, count * dsz, err);
	if (!st)
		st = wr(ctx, k->log_infos_pa, infos, count * LOG_INFO_SIZE, err);
	if (!st)
		st = wr(ctx, k->log_data_pa, data, size, err);
out:
	free(descs);
	free(infos);
	free(data);
	return st;
}

/* The image address of the sadump variable at @off (SV_*). */
static uint64_t sadump_var_va(const struct gen_kernel *k, uint64_t off)
{
	return k->text_va + (k->sadump_vars_pa - k->text_pa) + off;
}

static uint64_t percpu_va(const struct gen_spec *s, const struct gen_kernel *k, unsigned cpu)
{
	return linear_va(s, k->percpu_pa + (uint64_t)cpu * GEN_PCPU_SIZE);
}

/* x86_64's zone of @pfn: DMA below 16 MiB, DMA32 below 4 GiB, NORMAL. */
static unsigned x86_zone(uint64_t pfn)
{
	return pfn < (UINT64_C(16) << 20 >> GEN_PAGE_SHIFT) ? 0
	       : pfn < (UINT64_C(4) << 30 >> GEN_PAGE_SHIFT) ? 1 : 2;
}

/*
 * Node 0's zones with their free lists: every buddy block's head is on
 * free_area[order].free_list[MIGRATE_MOVABLE] of its zone, in pfn order,
 * through page.lru; the other lists are empty (point to themselves).
 * @pg holds the zones (NR_ZONES_X86 * ZONE_SIZE bytes).
 */
static enum mdf_status free_lists_write(const struct gen_spec *s, const struct gen_kernel *k,
					gen_phys_write_fn wr, void *ctx, uint8_t *pg,
					struct mdf_err *err)
{
	const uint64_t zones_va = linear_va(s, k->pgdat_pa);
	uint64_t last[NR_ZONES_X86][GEN_MAX_BUDDY_ORDER + 1] = { { 0 } };
	uint64_t lo[NR_ZONES_X86], hi[NR_ZONES_X86] = { 0 }, present = 0;
	unsigned nr_zones = 0;
	enum mdf_status st = MDF_OK;

	for (unsigned z = 0; z < NR_ZONES_X86; z++)
		lo[z] = UINT64_MAX;
	memset(pg, 0, NR_ZONES_X86 * ZONE_SIZE);
	for (unsigned z = 0; z < NR_ZONES_X86; z++)
		for (unsigned o = 0; o <= GEN_MAX_BUDDY_ORDER; o++)
			for (unsigned m = 0; m < MIGRATE_TYPES; m++) {
				uint64_t off = z * ZONE_SIZE + ZONE_FREE_AREA + o * FREE_AREA_SIZE + m * 16;
				put64(false, pg, (unsigned)off, zones_va + off);
				put64(false, pg, (unsigned)off + 8, zones_va + off);
			}
	/* Link each head after the last one of its list: prev = that one
	 * (or the list head), next = the list head until the next comes. */
	for (uint64_t p = 0; p < k->max_pfn && !st; p++) {
		if (gen_bit_test(k->ram, p)) {
			unsigned z = x86_zone(p);
			lo[z] = MDF_MIN(lo[z], p);
			hi[z] = p + 1;
			nr_zones = MDF_MAX(nr_zones, z + 1);
			present++;
		}
		if (k->kind[p] != GEN_K_FREE || !(k->info[p] & GEN_INFO_HEAD))
			continue;
		unsigned z = x86_zone(p), o = k->info[p] & GEN_INFO_ORDER;
		unsigned area = z * ZONE_SIZE + ZONE_FREE_AREA + o * FREE_AREA_SIZE;
		uint64_t head = zones_va + area + MIGRATE_MOVABLE * 16;
		uint64_t lru = k->vmemmap + p * k->struct_page + LRU_OFF, prev = head;
		if (last[z][o]) {
			uint64_t prev_pfn = last[z][o] - 1;
			uint8_t next[8];
			prev = k->vmemmap + prev_pfn * k->struct_page + LRU_OFF;
			gen_store64(false, next, lru);
			st = wr(ctx, k->section_map_pa[prev_pfn / k->pfn_per_section] +
					     prev_pfn % k->pfn_per_section * k->struct_page + LRU_OFF,
				next, 8, err);
		} else {
			put64(false, pg, area + MIGRATE_MOVABLE * 16, lru);
		}
		put64(false, pg, area + MIGRATE_MOVABLE * 16 + 8, lru);
		uint8_t links[16];
		gen_store64(false, links, head);
		gen_store64(false, links + 8, prev);
		if (!st)
			st = wr(ctx, k->section_map_pa[p / k->pfn_per_section] +
					     p % k->pfn_per_section * k->struct_page + LRU_OFF,
				links, 16, err);
		last[z][o] = p + 1;
		uint8_t *nr = pg + area + FREE_AREA_NR_FREE;
		put64(false, nr, 0, load_le64(nr) + 1);
		uint8_t *vs = pg + z * ZONE_SIZE + ZONE_VM_STAT;
		put64(false, vs, 0, load_le64(vs) + (UINT64_C(1) << o));
	}
	for (unsigned z = 0; z < NR_ZONES_X86; z++)
		if (hi[z])
			put64(false, pg, z * ZONE_SIZE + ZONE_SPANNED, hi[z] - lo[z]);
	if (!st)
		st = wr(ctx, k->pgdat_pa, pg, NR_ZONES_X86 * ZONE_SIZE, err);
	/* nr_zones (int), node_start_pfn, node_present_pages, node_spanned_pages */
	uint8_t tail[32] = { 0 };
	uint64_t first = 0;
	while (first < k->max_pfn && !gen_bit_test(k->ram, first))
		first++;
	put32(false, tail, 0, nr_zones);
	put64(false, tail, PGDAT_START_PFN - PGDAT_NR_ZONES, first);
	put64(false, tail, PGDAT_PRESENT - PGDAT_NR_ZONES, present);
	put64(false, tail, PGDAT_SPANNED - PGDAT_NR_ZONES, k->max_pfn - first);
	if (!st)
		st = wr(ctx, k->pgdat_pa + PGDAT_NR_ZONES, tail, sizeof(tail), err);
	uint8_t word[8];
	gen_store64(false, word, zones_va);
	if (!st)
		st = wr(ctx, text_offset_va(s, k, PRESET_NODE_DATA) - k->text_va + k->text_pa, word,
			8, err);
	gen_store64(false, word, 1);   /* node 0 online */
	if (!st)
		st = wr(ctx, text_offset_va(s, k, PRESET_NODE_ONLINE_MAP) - k->text_va + k->text_pa,
			word, 8, err);
	return st;
}

static enum mdf_status sadump_write(const struct gen_spec *s, const struct gen_kernel *k,
				    gen_phys_write_fn wr, void *ctx, struct mdf_err *err)
{
	const size_t size = GEN_SADUMP_VAR_PAGES << GEN_PAGE_SHIFT;
	uint8_t *v = calloc(1, size > GEN_PCPU_SIZE ? size : GEN_PCPU_SIZE);
	if (!v)
		return mdf_err_set(err, MDF_ERR_NOMEM, "sadump variables: out of memory");
	snprintf((char *)v + SV_BANNER, SV_MEM_SECTION - SV_BANNER,
		 "Linux version %s (mkvmcore@mkvmcore) (gcc) #1 SMP PREEMPT_DYNAMIC mkvmcore\n",
		 s->preset->osrelease);
	put64(false, v, SV_MEM_SECTION, linear_va(s, k->roots_pa));
	put64(false, v, SV_PAGE_OFFSET_BASE, s->page_offset);
	put64(false, v, SV_SAVED_CMDLINE, sadump_var_va(k, SV_CMDLINE));
	put64(false, v, SV_CRASH_NOTES, PCPU_NOTES);
	snprintf((char *)v + SV_CMDLINE, SV_ONLINE_MASK - SV_CMDLINE,
		 "BOOT_IMAGE=/boot/vmlinuz-%s root=/dev/sda1 ro quiet", s->preset->osrelease);
	for (unsigned c = 0; c < s->cpus; c++)
		v[SV_ONLINE_MASK + c / 8] |= (uint8_t)(1u << (c % 8));
	for (unsigned i = 0; i < IDT_VECTORS; i++) {
		uint64_t h = sadump_var_va(k, SV_HANDLERS) + (uint64_t)i * 16;
		uint8_t *g = v + SV_IDT + i * IDT_GATE_SIZE;
		gen_store16(false, g, (uint16_t)h);
		gen_store16(false, g + 2, KERNEL_CS);
		gen_store16(false, g + 4, GATE_INTERRUPT);
		gen_store16(false, g + 6, (uint16_t)(h >> 16));
		put32(false, g, 8, (uint32_t)(h >> 32));
	}
	for (unsigned c = 0; c < GEN_NR_CPUS; c++)
		put64(false, v, SV_PER_CPU_OFFSET + 8 * c,
		      c < s->cpus ? percpu_va(s, k, c) : sadump_var_va(k, SV_PER_CPU_LOAD));
	enum mdf_status st = wr(ctx, k->sadump_vars_pa, v, size, err);
	for (unsigned c = 0; c < s->cpus && !st; c++) {
		memset(v, 0, GEN_PCPU_SIZE);
		gen_store16(false, v + PCPU_APICID, (uint16_t)c);
		/* null, unused, __KERNEL_CS (64-bit code), __KERNEL_DS */
		put64(false, v, PCPU_GDT + KERNEL_CS, UINT64_C(0x00af9b000000ffff));
		put64(false, v, PCPU_GDT + KERNEL_DS, UINT64_C(0x00cf93000000ffff));
		st = wr(ctx, k->percpu_pa + (uint64_t)c * GEN_PCPU_SIZE, v, GEN_PCPU_SIZE, err);
	}
	if (!st)
		st = free_lists_write(s, k, wr, ctx, v, err);
	free(v);
	return st ? mdf_err_push(err, "sadump variables") : MDF_OK;
}

void gen_kernel_cpu_state(const struct gen_spec *s, const struct gen_kernel *k,
			  unsigned cpu, struct gen_cpu_state *cs)
{
	memset(cs, 0, sizeof(*cs));
	cs->cr0 = UINT64_C(0x80050033);   /* PG WP NE ET MP PE */
	cs->cr3 = k->pgd_pa;              /* no PCID, no PTI */
	cs->cr4 = UINT64_C(0x3506f0);     /* 4-level paging: no LA57 */
	cs->efer = UINT64_C(0xd01);       /* SCE LME LMA NXE */
	cs->rip = sadump_var_va(k, SV_HANDLERS) + 0x800;
	cs->rsp = percpu_va(s, k, cpu) + PCPU_STACK;
	cs->rflags = 0x246;
	cs->idt = sadump_var_va(k, SV_IDT);
	cs->idt_limit = IDT_VECTORS * IDT_GATE_SIZE - 1;
	cs->gdt = percpu_va(s, k, cpu) + PCPU_GDT;
	cs->gdt_limit = 0x7f;
	for (unsigned i = 0; i < 16; i++)
		cs->gpr[i] = (uint64_t)(cpu + 1) << 32 | (uint64_t)i << 8;
	cs->gpr[4] = cs->rsp;
	cs->gpr[5] = cs->rsp + 0x40;
	cs->cs = KERNEL_CS;
	cs->ss = KERNEL_DS;
	cs->tr = GDT_TSS;
}

/* 32-bit: the struct page array, 1024 at a time. */
static enum mdf_status flat32_write_memmap(const struct gen_spec *s, const struct gen_kernel *k,
					   gen_phys_write_fn wr, void *ctx, struct mdf_err *err)
{
	const uint64_t batch = UINT64_C(1) << GEN_MAX_BUDDY_ORDER;
	uint8_t *pages = malloc(batch * k->struct_page);
	enum mdf_status st = MDF_OK;

	if (!pages)
		return mdf_err_set(err, MDF_ERR_NOMEM, "struct pages: out of memory");
	for (uint64_t p0 = k->memmap_pfn0; p0 < k->npfn && !st; p0 += batch) {
		uint64_t n = MDF_MIN(batch, k->npfn - p0);

		for (uint64_t i = 0; i < n; i++)
			build_page32(s, k, p0 + i, pages + i * k->struct_page);
		st = wr(ctx, k->memmap_pa + (p0 - k->memmap_pfn0) * k->struct_page, pages,
			(size_t)(n * k->struct_page), err);
	}
	free(pages);
	return st;
}

/*
 * 32-bit: contig_page_data with its zones' free lists, for a reader that
 * walks them: every buddy head on free_area[order].free_list[MIGRATE_MOVABLE]
 * of its zone, in pfn order, through page.lru (offset 4); the other lists
 * empty (pointing at themselves); nr_free, vm_stat[NR_FREE_PAGES], the
 * zones' spans and the node's, node_mem_map = the struct page of the
 * first RAM pfn.  32-bit words, the layout of the preset's kernel.
 */
static enum mdf_status flat32_pgdat_write(const struct gen_spec *s, const struct gen_kernel *k,
					  gen_phys_write_fn wr, void *ctx, struct mdf_err *err)
{
	const struct gen_flat32 *l = s->preset->flat32;
	const uint32_t pgdat = (uint32_t)(k->text_va + (k->pgdat_pa - k->text_pa));
	const uint32_t mem_map = flat32_page_va(s, k, k->memmap_pfn0);
	uint32_t last[FLAT32_NR_ZONES][GEN_MAX_BUDDY_ORDER_ARM + 1] = { { 0 } };
	uint64_t lo[FLAT32_NR_ZONES], hi[FLAT32_NR_ZONES] = { 0 };
	uint64_t present[FLAT32_NR_ZONES] = { 0 }, first = UINT64_MAX, end = 0, total = 0;
	unsigned nr_zones = 0;
	uint8_t *pg = calloc(1, l->pglist_data);
	enum mdf_status st = MDF_OK;

	if (!pg)
		return mdf_err_set(err, MDF_ERR_NOMEM, "contig_page_data: out of memory");
	for (unsigned z = 0; z < FLAT32_NR_ZONES; z++) {
		lo[z] = UINT64_MAX;
		put32(false, pg, z * l->zone + FLAT32_ZONE_PGDAT, pgdat);
		for (unsigned o = 0; o < l->free_orders; o++)
			for (unsigned m = 0; m < l->migrate_types; m++) {
				unsigned off = z * l->zone + FLAT32_ZONE_FREE_AREA +
					       o * l->free_area + m * 8;
				put32(false, pg, off, pgdat + off);
				put32(false, pg, off + 4, pgdat + off);
			}
	}
	for (uint64_t p = 0; p < k->max_pfn && !st; p++) {
		unsigned z = flat32_zone(k, p);

		if (gen_bit_test(k->ram, p)) {
			lo[z] = MDF_MIN(lo[z], p);
			hi[z] = p + 1;
			present[z]++;
			nr_zones = MDF_MAX(nr_zones, z + 1);
			first = MDF_MIN(first, p);
			end = p + 1;
			total++;
		}
		if (k->kind[p] != GEN_K_FREE || !(k->info[p] & GEN_INFO_HEAD))
			continue;
		/* Link the head after the last of its list: prev = that one
		 * (or the list head), next = the list head until another
		 * comes. */
		unsigned o = k->info[p] & GEN_INFO_ORDER;
		unsigned area = z * l->zone + FLAT32_ZONE_FREE_AREA + o * l->free_area;
		unsigned nr_free = area + l->migrate_types * 8, vm_stat = z * l->zone + l->vm_stat;
		uint32_t head = pgdat + area + FLAT32_MIGRATE_MOVABLE * 8;
		uint32_t lru = flat32_page_va(s, k, p) + 4, prev = head;
		uint8_t links[8];

		if (last[z][o]) {
			prev = last[z][o];
			gen_store32(false, links, lru);
			st = wr(ctx, k->memmap_pa + (prev - mem_map), links, 4, err);
		} else {
			put32(false, pg, area + FLAT32_MIGRATE_MOVABLE * 8, lru);
		}
		put32(false, pg, area + FLAT32_MIGRATE_MOVABLE * 8 + 4, lru);
		gen_store32(false, links, head);
		gen_store32(false, links + 4, prev);
		if (!st)
			st = wr(ctx, k->memmap_pa + (lru - mem_map), links, 8, err);
		last[z][o] = lru;
		put32(false, pg, nr_free, load_le32(pg + nr_free) + 1);
		put32(false, pg, vm_stat, load_le32(pg + vm_stat) + (1u << o));
	}
	for (unsigned z = 0; z < FLAT32_NR_ZONES; z++) {
		if (!hi[z])
			continue;
		put32(false, pg, z * l->zone + FLAT32_ZONE_START_PFN, (uint32_t)lo[z]);
		put32(false, pg, z * l->zone + FLAT32_ZONE_SPANNED, (uint32_t)(hi[z] - lo[z]));
		put32(false, pg, z * l->zone + FLAT32_ZONE_PRESENT, (uint32_t)present[z]);
	}
	/* nr_zones (int), node_mem_map, then node_start_pfn, present, spanned */
	put32(false, pg, l->nr_zones, nr_zones);
	put32(false, pg, l->node_mem_map, flat32_page_va(s, k, first));
	put32(false, pg, l->node_start_pfn, (uint32_t)first);
	put32(false, pg, l->node_start_pfn + 4, (uint32_t)total);
	put32(false, pg, l->node_start_pfn + 8, (uint32_t)(end - first));
	if (!st)
		st = wr(ctx, k->pgdat_pa, pg, l->pglist_data, err);
	free(pg);
	return st ? mdf_err_push(err, "contig_page_data") : MDF_OK;
}

/* 32-bit: high_memory, the end of the direct map (max_low_pfn). */
static uint64_t flat32_high_memory(const struct gen_spec *s, const struct gen_kernel *k)
{
	return linear_va(s, MDF_MIN(k->max_pfn << k->page_shift, k->lowmem_end));
}

/* 32-bit: mem_map, vmap_area_list and its one vmap_area (from VMALLOC_START
 * for 8 KiB, a made-up first allocation) in the page of init_uts_ns.
 * VMALLOC_START is high_memory + VMALLOC_OFFSET (8 MiB), on arm aligned
 * down to 8 MiB (arch/arm/include/asm/pgtable.h). */
static void flat32_vars(const struct gen_spec *s, const struct gen_kernel *k, uint8_t *page)
{
	const uint32_t list = (uint32_t)(uts_va(k) + FLAT32_VMAP_LIST_OFF);
	const uint32_t area = (uint32_t)(uts_va(k) + FLAT32_VMAP_AREA_OFF);
	uint64_t vstart = flat32_high_memory(s, k) + FLAT32_VMALLOC_OFFSET;

	if (s->arch == GEN_ARCH_ARM)
		vstart = align_down(vstart, FLAT32_VMALLOC_OFFSET);
	put32(false, page, FLAT32_MEM_MAP_OFF, flat32_page_va(s, k, k->memmap_pfn0));
	put32(false, page, FLAT32_VMAP_LIST_OFF, area + FLAT32_VMAP_AREA_LIST);
	put32(false, page, FLAT32_VMAP_LIST_OFF + 4, area + FLAT32_VMAP_AREA_LIST);
	put32(false, page, FLAT32_VMAP_AREA_OFF, (uint32_t)vstart);
	put32(false, page, FLAT32_VMAP_AREA_OFF + 4, (uint32_t)vstart + 0x2000);
	put32(false, page, FLAT32_VMAP_AREA_OFF + FLAT32_VMAP_AREA_LIST, list);
	put32(false, page, FLAT32_VMAP_AREA_OFF + FLAT32_VMAP_AREA_LIST + 4, list);
}

/*
 * arm short descriptors: Linux's copy of the hardware page table @t, 2048
 * bytes below it, the Linux pte of each small page (what
 * cpu_v7_set_pte_ext() was given: PAGE_KERNEL, L_PTE_XN where the
 * hardware entry has XN).
 */
static enum mdf_status arm_linux_ptes(const struct gen_table *t, gen_phys_write_fn wr,
				      void *ctx, uint8_t *page, struct mdf_err *err)
{
	for (unsigned j = 0; j < t->n; j++) {
		uint64_t e = t->e[j];

		gen_store32(false, page + 4 * j,
			    e ? (uint32_t)((e & ~UINT64_C(0xfff)) | ARM_LINUX_PTE |
					   (e & ARM_SMALL_XN ? ARM_LINUX_PTE_XN : 0))
			      : 0);
	}
	return wr(ctx, t->pa - ARM_HWTABLE_OFF, page, t->n * 4, err);
}

static enum mdf_status kernel_write(const struct gen_spec *s, const struct gen_kernel *k,
				    gen_phys_write_fn wr, void *ctx, uint8_t *page,
				    struct mdf_err *err)
{
	const uint64_t psz = k->page_size;
	enum mdf_status st = MDF_OK;

	/* init_uts_ns: struct new_utsname at OFFSET(uts_namespace.name)=0. */
	memset(page, 0, psz);
	put_str(page + 0 * 65, "Linux", 65);
	put_str(page + 1 * 65, "mkvmcore", 65);
	put_str(page + 2 * 65, s->preset ? s->preset->osrelease : "0.0.0-mkvmcore", 65);
	put_str(page + 3 * 65, "#1 SMP PREEMPT_DYNAMIC mkvmcore", 65);
	put_str(page + 4 * 65, uts_machine(s), 65);
	put_str(page + 5 * 65, "(none)", 65);
	if (s->arch == GEN_ARCH_PPC64)
		ppc64_vmemmap_vars(s, k, page);
	if (s->arch == GEN_ARCH_S390X)   /* high_memory: the end of RAM */
		put64(k->big_endian, page, S390X_HIGH_MEMORY_OFF, k->max_pfn << k->page_shift);
	if (gen_arch_32(s->arch) && !s->no_struct_pages)
		flat32_vars(s, k, page);
	/* mips64 4k (FLATMEM): the variable mem_map, where flat32's is */
	if (s->arch == GEN_ARCH_MIPS64 && s->mips64_4k && !s->no_struct_pages)
		put64(k->big_endian, page, FLAT32_MEM_MAP_OFF, k->vmemmap);
	if (log_enabled(s))
		st = log_write(s, k, wr, ctx, page, err);
	if (!st)
		st = wr(ctx, k->uts_pa, page, psz, err);
	if (st || s->no_struct_pages)
		return st;

	/* In the order of the page tables: ppc64's entries are big-endian
	 * whatever the kernel's order.  An unused entry of an s390x table
	 * holds its invalid value. */
	for (size_t i = 0; i < k->ntables; i++) {
		const struct gen_table *t = &k->tables[i];
		uint64_t empty = pt_empty(k, t->level);

		for (unsigned j = 0; j < t->n; j++) {
			if (k->pte_size == 4)   /* i386 without PAE, arm without LPAE */
				gen_store32(false, page + 4 * j, (uint32_t)t->e[j]);
			else
				gen_store64(k->pt_big_endian, page + 8 * j,
					    t->e[j] ? t->e[j] : empty);
		}
		st = wr(ctx, t->pa, page, t->n * k->pte_size, err);
		if (!st && k->arch == GEN_ARCH_ARM && !k->arm_lpae && t->level == 1)
			st = arm_linux_ptes(t, wr, ctx, page, err);
		if (st)
			return st;
	}

	/* The root pointers, one page at a time and only the pages with
	 * one: riscv64's 32 MiB of them stay sparse in the file. */
	for (size_t r0 = 0; r0 < k->nroots; r0 += psz / 8) {
		size_t nr = (size_t)MDF_MIN(psz / 8, k->nroots - r0);
		bool any = false;
		memset(page, 0, psz);
		for (size_t r = r0; r < r0 + nr; r++) {
			if (!k->root_pa[r])
				continue;
			put64(k->big_endian, page, (unsigned)(8 * (r - r0)),
			      linear_va(s, k->root_pa[r]));
			any = true;
		}
		st = any ? wr(ctx, k->roots_pa + 8 * r0, page, nr * 8, err) : MDF_OK;
		if (st)
			return st;
	}
	for (size_t r = 0; r < k->nroots; r++) {
		if (!k->root_pa[r])
			continue;
		memset(page, 0, psz);
		for (uint64_t i = 0; i < k->sections_per_root; i++) {
			uint64_t sec = r * k->sections_per_root + i;
			if (sec >= k->nsections || !k->section_map_pa[sec])
				continue;
			/* mem_map - first pfn, in struct page units: the vmemmap base. */
			uint64_t first = sec * k->pfn_per_section;
			uint64_t enc = k->vmemmap + first * k->struct_page - first * k->struct_page;
			put64(k->big_endian, page, (unsigned)(k->ms_size * i), enc | SECTION_FLAGS);
		}
		st = wr(ctx, k->root_pa[r], page, psz, err);
		if (st)
			return st;
	}

	if (gen_arch_32(s->arch)) {
		st = flat32_write_memmap(s, k, wr, ctx, err);
		return st ? st : flat32_pgdat_write(s, k, wr, ctx, err);
	}

	size_t chunk = k->pfn_per_section * k->struct_page;
	uint8_t *pages = malloc(chunk);
	if (!pages)
		return mdf_err_set(err, MDF_ERR_NOMEM, "struct pages: out of memory");
	for (uint64_t sec = 0; sec < k->nsections && !st; sec++) {
		if (!k->section_map_pa[sec])
			continue;
		uint64_t first = sec * k->pfn_per_section;
		for (uint64_t i = 0; i < k->pfn_per_section; i++)
			build_page(s, k, first + i, pages + i * k->struct_page);
		st = wr(ctx, k->section_map_pa[sec], pages, chunk, err);
	}
	free(pages);
	if (!st && (s->arch == GEN_ARCH_PPC64 || s->arch == GEN_ARCH_LOONGARCH64 ||
		    s->arch == GEN_ARCH_MIPS64))
		st = ppc64_write(s, k, wr, ctx, page, err);
	if (!st && gen_spec_sadump(s))
		st = sadump_write(s, k, wr, ctx, err);
	return st;
}

enum mdf_status gen_kernel_write(const struct gen_spec *s, const struct gen_kernel *k,
				 gen_phys_write_fn wr, void *ctx, struct mdf_err *err)
{
	/* A page, or a whole table when larger (s390x: 16 KiB). */
	size_t size = (size_t)k->page_size;
	enum mdf_status st;

	for (size_t i = 0; i < k->ntables; i++)
		size = MDF_MAX(size, (size_t)k->tables[i].n * 8);
	uint8_t *page = malloc(size);
	if (!page)
		return mdf_err_set(err, MDF_ERR_NOMEM, "kernel: out of memory");
	st = kernel_write(s, k, wr, ctx, page, err);
	free(page);
	return st;
}

/* ---- VMCOREINFO ---- */

struct kv {
	char *key, *value;
};

static char *xasprintf(const char *fmt, ...) MDF_PRINTF(1, 2);
static char *xasprintf(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return NULL;
	return strdup(buf);
}

/* The 32-bit kernels' values (gen_preset.c, vmi_6_1_flat32): @build_id,
 * @sym:NAME (the image start + its offset), @L:NAME (struct gen_flat32);
 * NULL for anything else. */
static char *flat32_value(const struct gen_spec *s, const struct gen_kernel *k, const char *v)
{
	const struct gen_preset *ps = s->preset;
	const struct gen_flat32 *l = ps ? ps->flat32 : NULL;

	if (!l)
		return NULL;
	if (strcmp(v, "@build_id") == 0)
		return strdup(ps->build_id);
	if (strncmp(v, "@sym:", 5) == 0) {
		for (const struct gen_sym *y = ps->syms; y->name; y++)
			if (strcmp(v + 5, y->name) == 0)
				return xasprintf("%" PRIx64, text_offset_va(s, k, y->off));
		return NULL;
	}
	if (strncmp(v, "@L:", 3) != 0)
		return NULL;
	const struct {
		const char *name;
		unsigned value;
	} f[] = {
		{ "page", l->page }, { "pglist_data", l->pglist_data }, { "zone", l->zone },
		{ "free_area", l->free_area }, { "nr_zones", l->nr_zones },
		{ "node_mem_map", l->node_mem_map }, { "node_start_pfn", l->node_start_pfn },
		{ "node_spanned_pages", l->node_start_pfn + 8 }, { "node_id", l->node_id },
		{ "vm_stat", l->vm_stat }, { "free_orders", l->free_orders },
		{ "migrate_types", l->migrate_types }, { "latched_seq", l->latched_seq },
		{ "latched_seq_val", l->latched_seq_val },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (strcmp(v + 3, f[i].name) == 0)
			return xasprintf("%u", f[i].value);
	return NULL;
}

/* A template value "@?NAME": the value, or NULL when the kernel has none
 * (its line is left out). */
static char *optional_value(const struct gen_spec *s, const char *name)
{
	const struct gen_preset *ps = s->preset;

	if (strcmp(name, "pg_hwpoison") == 0)
		return ps->pg_hwpoison < 0 ? NULL : xasprintf("%d", ps->pg_hwpoison);
	if (strcmp(name, "hugetlb_dtor") == 0)
		return ps->hugetlb_dtor < 0 ? NULL : xasprintf("%d", ps->hugetlb_dtor);
	if (strcmp(name, "x86_pae") == 0)
		return s->arch == GEN_ARCH_X86 && s->x86_pae ? strdup("y") : NULL;
	if (strcmp(name, "arm_lpae") == 0)
		return s->arch == GEN_ARCH_ARM && s->arm_lpae ? strdup("y") : NULL;
	return NULL;
}

static char *template_value(const struct gen_spec *s, const struct gen_kernel *k,
			    const char *v)
{
	uint64_t x;
	if (v[0] != '@')
		return strdup(v);
	if (strcmp(v, "@osrelease") == 0)
		return strdup(s->preset ? s->preset->osrelease : "0.0.0-mkvmcore");
	if (strcmp(v, "@stext") == 0)
		return xasprintf("%" PRIx64, k->text_va);
	if (strcmp(v, "@pgd") == 0)
		return xasprintf("%" PRIx64, k->text_va + (k->pgd_pa - k->text_pa));
	if (strcmp(v, "@uts") == 0)
		return xasprintf("%" PRIx64, k->text_va + (k->uts_pa - k->text_pa));
	if (strcmp(v, "@mem_map") == 0)
		return xasprintf("%" PRIx64, uts_va(k) + FLAT32_MEM_MAP_OFF);
	if (strcmp(v, "@contig_page_data") == 0)
		return xasprintf("%" PRIx64, k->text_va + (k->pgdat_pa - k->text_pa));
	if (strcmp(v, "@vmap_area_list") == 0)
		return xasprintf("%" PRIx64, uts_va(k) + FLAT32_VMAP_LIST_OFF);
	if (strcmp(v, "@memsec") == 0)
		return xasprintf("%" PRIx64, linear_va(s, k->roots_pa));
	if (strcmp(v, "@vmemmap") == 0)
		return xasprintf("%" PRIx64, s->vmemmap);
	if (strcmp(v, "@vmemmap_num") == 0)
		return xasprintf("0x%" PRIx64, s->vmemmap);
	if (strcmp(v, "@kimage_voffset") == 0)
		return xasprintf("0x%" PRIx64, k->text_va - k->text_pa);
	if (strcmp(v, "@vmalloc") == 0)
		return xasprintf("0x%" PRIx64, s->vmalloc_start);
	if (strcmp(v, "@phys_base") == 0)
		return xasprintf("%" PRId64, s->phys_base);
	if (strcmp(v, "@kaslr") == 0)
		return xasprintf("%" PRIx64, s->kaslr);
	if (strcmp(v, "@crashtime") == 0)
		return xasprintf("%" PRIu64, s->crashtime);
	if (strcmp(v, "@phys_ram_base") == 0)
		return xasprintf("%" PRIu64, s->phys_ram_base);
	if (strcmp(v, "@page_offset_num") == 0)
		return xasprintf("0x%" PRIx64, s->page_offset);
	if (strcmp(v, "@vmemmap_start") == 0)
		return xasprintf("0x%" PRIx64, s->vmemmap_start);
	if (strcmp(v, "@va_bits") == 0)
		return xasprintf("%u", s->va_bits);
	if (strcmp(v, "@modules_vaddr") == 0)
		return xasprintf("0x%" PRIx64, gen_kernel_modules_vaddr(s, k));
	if (strcmp(v, "@modules_end") == 0)
		return xasprintf("0x%" PRIx64, k->text_va);
	if (strcmp(v, "@pagesize") == 0)
		return xasprintf("%" PRIu64, k->page_size);
	if (strcmp(v, "@vmemmap_list") == 0)
		return xasprintf("%" PRIx64, linear_va(s, k->uts_pa) + PPC64_VMEMMAP_LIST_OFF);
	if (strcmp(v, "@mmu_vmemmap_psize") == 0)
		return xasprintf("%" PRIx64, linear_va(s, k->uts_pa) + PPC64_PSIZE_OFF);
	if (strcmp(v, "@mmu_psize_defs") == 0)
		return xasprintf("%" PRIx64, linear_va(s, k->uts_pa) + PPC64_PSIZE_DEFS_OFF);
	if (strcmp(v, "@radix_mmu") == 0)
		return xasprintf("%d", k->ppc64_hash ? 0 : 1);
	if (strcmp(v, "@lowcore_ptr") == 0)
		return xasprintf("%" PRIx64, uts_va(k) + S390X_LOWCORE_PTR_OFF);
	if (strcmp(v, "@high_memory") == 0)
		return xasprintf("%" PRIx64, uts_va(k) + S390X_HIGH_MEMORY_OFF);
	/* The .amode31 section, right after the image. */
	if (strcmp(v, "@samode31") == 0)
		return xasprintf("%" PRIx64, k->text_pa + s->text_size);
	if (strcmp(v, "@eamode31") == 0)
		return xasprintf("%" PRIx64, k->text_pa + s->text_size + S390X_AMODE31_SIZE);
	if (strncmp(v, "@T+", 3) == 0 && util_parse_u64_base(v + 3, 16, &x))
		return xasprintf("%" PRIx64, text_offset_va(s, k, x));
	return flat32_value(s, k, v);
}

/* With "dmesg" lines, the printk ring's variables are in the page of
 * init_uts_ns; NULL for every other key (or no ring). */
static char *log_symbol(const struct gen_spec *s, const struct gen_kernel *k, const char *key)
{
	static const struct {
		const char *key;
		unsigned off;
	} syms[] = {
		{ "SYMBOL(prb)", LOG_PRB_OFF },
		{ "SYMBOL(printk_rb_static)", LOG_RB_OFF },
		{ "SYMBOL(clear_seq)", LOG_CLEAR_OFF },
	};

	if (!key || !log_enabled(s))
		return NULL;
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (strcmp(key, syms[i].key) == 0)
			return xasprintf("%" PRIx64, uts_va(k) + syms[i].off);
	return NULL;
}

static void kv_free(struct kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

enum mdf_status gen_kernel_poke_pa(const struct gen_spec *s, const struct gen_kernel *k,
				   const struct gen_poke *p, uint64_t *pa, struct mdf_err *err)
{
	switch (p->at) {
	case GEN_POKE_PHYS:
		*pa = p->addr;
		return MDF_OK;
	case GEN_POKE_PAGE: {
		uint64_t sec = p->addr / k->pfn_per_section;

		if (gen_arch_32(s->arch)) {   /* FLATMEM */
			if (s->no_struct_pages || p->addr >= k->npfn || p->addr < k->memmap_pfn0 ||
			    p->off + p->len > k->struct_page)
				break;
			*pa = k->memmap_pa + (p->addr - k->memmap_pfn0) * k->struct_page + p->off;
			return MDF_OK;
		}

		if (s->no_struct_pages || sec >= k->nsections || !k->section_map_pa[sec])
			break;
		*pa = k->section_map_pa[sec] + (p->addr % k->pfn_per_section) * k->struct_page +
		      p->off;
		return MDF_OK;
	}
	case GEN_POKE_TABLE: {
		int32_t t = 0;

		for (unsigned level = 0; t >= 0 && (size_t)t < k->ntables; level++) {
			unsigned i = pt_index(k, level, p->addr);

			if (level == p->off) {
				*pa = k->tables[t].pa + k->pte_size * i;
				return MDF_OK;
			}
			t = k->tables[t].child[i];
		}
		break;
	}
	}
	return mdf_err_set(err, MDF_ERR_ARG, "spec:%u: poke: nothing there to poke", p->line);
}

enum mdf_status gen_kernel_vmcoreinfo(const struct gen_spec *s, const struct gen_kernel *k,
				      char **text, struct mdf_err *err)
{
	const char *const *tpl = s->preset ? s->preset->vmcoreinfo : vmi_none;
	size_t ntpl = 0;
	while (tpl[ntpl])
		ntpl++;
	struct kv *kv = calloc(ntpl + s->nedits + 1, sizeof(*kv));
	size_t n = 0;
	if (!kv)
		return mdf_err_set(err, MDF_ERR_NOMEM, "vmcoreinfo: out of memory");
	for (size_t i = 0; i < ntpl; i++) {
		const char *eq = strchr(tpl[i], '=');
		char *opt = NULL;

		/* Linux 6.7 on only: written when the spec says so. */
		if (strcmp(eq + 1, "@radix_mmu") == 0 && !s->radix_number)
			continue;
		/* What this kernel has not (the line is left out). */
		if (strncmp(eq + 1, "@?", 2) == 0 && !(opt = optional_value(s, eq + 3)))
			continue;
		kv[n].key = strndup(tpl[i], (size_t)(eq - tpl[i]));
		kv[n].value = opt ? opt : log_symbol(s, k, kv[n].key);
		if (!kv[n].value)
			kv[n].value = template_value(s, k, eq + 1);
		n++;
		if (!kv[n - 1].key || !kv[n - 1].value) {
			kv_free(kv, n);
			return mdf_err_set(err, MDF_ERR_INTERNAL, "vmcoreinfo: bad template line %s",
					   tpl[i]);
		}
	}
	for (size_t e = 0; e < s->nedits; e++) {
		const struct gen_vmi_edit *ed = &s->edits[e];
		bool found = false;
		for (size_t i = 0; i < n; i++) {
			if (!kv[i].key || strcmp(kv[i].key, ed->key) != 0)
				continue;
			found = true;
			if (ed->op == GEN_VMI_DEL) {
				free(kv[i].key);
				free(kv[i].value);
				kv[i].key = kv[i].value = NULL;
			} else {
				char *v = strdup(ed->value);
				if (!v) {
					kv_free(kv, n);
					return mdf_err_set(err, MDF_ERR_NOMEM, "vmcoreinfo: out of memory");
				}
				free(kv[i].value);
				kv[i].value = v;
				break;
			}
		}
		if (!found && ed->op == GEN_VMI_SET) {
			kv[n].key = strdup(ed->key);
			kv[n].value = strdup(ed->value);
			n++;
			if (!kv[n - 1].key || !kv[n - 1].value) {
				kv_free(kv, n);
				return mdf_err_set(err, MDF_ERR_NOMEM, "vmcoreinfo: out of memory");
			}
		}
	}
	size_t len = 1;
	for (size_t i = 0; i < n; i++)
		if (kv[i].key)
			len += strlen(kv[i].key) + strlen(kv[i].value) + 2;
	char *out = malloc(len), *p = out;
	if (!out) {
		kv_free(kv, n);
		return mdf_err_set(err, MDF_ERR_NOMEM, "vmcoreinfo: out of memory");
	}
	for (size_t i = 0; i < n; i++)
		if (kv[i].key)
			p += sprintf(p, "%s=%s\n", kv[i].key, kv[i].value);
	*p = '\0';
	kv_free(kv, n);
	*text = out;
	return MDF_OK;
}

/* One "NAME 0xADDR" line of the symbol table at @*p. */
static void sym_line(char **p, const char *name, uint64_t addr)
{
	*p += sprintf(*p, "%s 0x%" PRIx64 "\n", name, addr);
}

enum mdf_status gen_kernel_symbols(const struct gen_spec *s, const struct gen_kernel *k,
				   char **text, struct mdf_err *err)
{
	char *vmi;
	enum mdf_status st = gen_kernel_vmcoreinfo(s, k, &vmi, err);
	if (st)
		return st;
	size_t cap = strlen(vmi) + 4096;
	char *out = malloc(cap), *p = out;
	if (!out) {
		free(vmi);
		return mdf_err_set(err, MDF_ERR_NOMEM, "symbols: out of memory");
	}
	/* The image's addresses as linked: KASLR moves them all. */
	const uint64_t ts = k->text_va, te = k->text_va + s->text_size, kaslr = s->kaslr;
	char *save = NULL;
	for (char *line = strtok_r(vmi, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128];
		uint64_t addr;
		if (sscanf(line, "SYMBOL(%127[^)])=%" SCNx64, name, &addr) != 2)
			continue;
		/* VMCOREINFO names the array; the vmlinux has the pointer,
		 * which only a sadump spec's kernel holds. */
		if (strcmp(name, "mem_section") == 0) {
			if (!gen_spec_sadump(s))
				continue;
			addr = sadump_var_va(k, SV_MEM_SECTION);
		}
		sym_line(&p, name, addr >= ts && addr < te ? addr - kaslr : addr);
	}
	free(vmi);
	if (gen_spec_sadump(s)) {
		static const struct {
			const char *name;
			uint64_t off;
		} vars[] = {
			{ "linux_banner", SV_BANNER },
			{ "page_offset_base", SV_PAGE_OFFSET_BASE },
			{ "saved_command_line", SV_SAVED_CMDLINE },
			{ "crash_notes", SV_CRASH_NOTES },
			{ "x86_bios_cpu_apicid_early_ptr", SV_APICID_EARLY_PTR },
			{ "x86_bios_cpu_apicid_early_map", SV_APICID_EARLY_MAP },
			{ "kexec_crash_image", SV_KEXEC_CRASH_IMAGE },
			{ "__cpu_online_mask", SV_ONLINE_MASK },
			{ "idt_table", SV_IDT },
			{ "asm_exc_divide_error", SV_HANDLERS },
			{ "__per_cpu_load", SV_PER_CPU_LOAD },
			{ "__per_cpu_offset", SV_PER_CPU_OFFSET },
		};
		for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
			sym_line(&p, vars[i].name, sadump_var_va(k, vars[i].off) - kaslr);
		/* Per-cpu: an offset in the per-cpu section (linked at 0). */
		sym_line(&p, "x86_bios_cpu_apicid", PCPU_APICID);
		/* The image, which an ELF view of the dump maps as kexec-tools
		 * does (/proc/kcore's text segment: [_text, _end)). */
		if (s->text_size) {
			sym_line(&p, "_text", ts - kaslr);
			sym_line(&p, "_end", te - kaslr);
		}
	}
	*text = out;
	return MDF_OK;
}
