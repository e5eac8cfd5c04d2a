/*
 * arch/loongarch64.c - 64-bit LoongArch address translation: the direct
 * map windows (DMW), which hold RAM and the kernel image alike, and the
 * walk of the kernel's page tables (swapper_pg_dir) for everything else:
 * vmalloc, modules, vmemmap, fixmap.
 *
 * Layout facts (the kernel's arch/loongarch/include/asm/addrspace.h,
 * loongarch.h, page.h, pgtable.h, pgtable-bits.h, sparsemem.h, all as
 * LoongArch came in Linux 5.19, and arch/loongarch/kernel/head.S, which
 * sets the windows before anything else runs):
 *   DMW1 (cached)   0x9000000000000000 + pa, pa below 2^48 (DMW_PABITS):
 *                   CACHE_BASE, and PAGE_OFFSET = CACHE_BASE + PHYS_OFFSET
 *                   (0).  The kernel image runs here too: it is linked at
 *                   VMLINUX_LOAD_ADDRESS 0x9000000000200000 (arch/loongarch/
 *                   Makefile), and a relocated kernel (CONFIG_RELOCATABLE,
 *                   Linux 6.3: arch/loongarch/kernel/relocate.c, "Kernel
 *                   relocated by") runs where it was put, still pa = va -
 *                   0x9000000000000000, every symbol moved by reloc_offset
 *                   = its _text - VMLINUX_LOAD_ADDRESS; so does KASLR
 *                   (CONFIG_RANDOMIZE_BASE, same file and version; Debian's
 *                   loong64 7.2 has RELOCATABLE=y, RANDOMIZE_BASE unset).
 *                   VMCOREINFO has no KERNELOFFSET on loongarch (no
 *                   arch_crash_save_vmcoreinfo()): its SYMBOLs are the
 *                   running kernel's.
 *   DMW0 (uncached) 0x8000000000000000 + pa (UNCACHE_BASE, IO_BASE)
 *   DMW2 (write-combining) 0xa000000000000000 + pa, in kernels whose
 *                   loongarch.h defines CSR_DMW2_VSEG 0xa000 (earlier ones
 *                   leave DMW2 unused, CSR_DMW2_INIT 0); translated the
 *                   same way: nothing else lives at those addresses.
 *   page tables     XKVRANGE: vm_map_base = -2^cpu_vabits; modules at
 *                   vm_map_base + 32 MiB + 2 pages, vmalloc after them,
 *                   the vmemmap at the end of the tables' reach.
 *
 * The tables (pgtable.h): PAGE_SHIFT 14 (16 KiB) and 3 levels in Debian's
 * loong64 kernels (CONFIG_16KB_3LEVEL, the Kconfig default of a 64-bit
 * kernel); every table is one page of 8-byte entries, PAGE_SHIFT - 3 index
 * bits a level (11 with 16 KiB pages: PGD bits 46..36, PMD 35..25, PTE
 * 24..14).  A directory entry (PGD, PMD) holds the kernel VIRTUAL address
 * of the next table, a DMW1 address (pmd_page_vaddr() is pmd_val()), and an
 * empty one points at the shared invalid_pmd_table / invalid_pte_table,
 * whose entries lead nowhere (pud_none(), pmd_none()), never 0.  A PMD
 * entry with _PAGE_HUGE (bit 6) is a leaf mapping a PMD_SIZE block (32 MiB
 * with 16 KiB pages).  A leaf (PTE, huge PMD) is present with
 * _PAGE_PRESENT (bit 7) or _PAGE_PROTNONE (bit 10) (pte_present()) and
 * holds the page's address in bits 47..PAGE_SHIFT (_PFN_MASK; PFN_PTE_SHIFT
 * is PAGE_SHIFT - 12 + _PAGE_PFN_SHIFT 12, so the pfn is shifted back by
 * exactly PAGE_SHIFT).
 *
 * The kernel's PT_LOADs (kexec-tools' kexec/arch/loongarch/
 * crashdump-loongarch.c: elf_info's page_offset PAGE_OFFSET; the image
 * segment at _text of /proc/kallsyms and "Kernel code"'s physical start)
 * put every range at DMW1: init takes them as hints and proves the window
 * when they agree; init_mem proves it from the dump: swapper_pg_dir, read
 * through the window, must be a table of DMW1 pointers to pages.
 */
#include "arch/arch.h"

#include <elf.h>

#include "util.h"

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif

#define LA_PABITS 48
#define LA_PA_MASK ((1ULL << LA_PABITS) - 1)
#define LA_DMW0 0x8000000000000000ULL
#define LA_DMW1 0x9000000000000000ULL
#define LA_DMW2 0xa000000000000000ULL
#define LA_XKVRANGE 0xc000000000000000ULL
#define LA_LEVELS 3
#define LA_PAGE_HUGE (1ULL << 6)
#define LA_PAGE_PRESENT (1ULL << 7)
#define LA_PAGE_PROTNONE (1ULL << 10)

/* The window a DMW address is in, or 0: bits 63..48 are the window's
 * VSEG, the rest the physical address. */
static uint64_t la_dmw_of(uint64_t va)
{
	uint64_t seg = va & ~LA_PA_MASK;

	return seg == LA_DMW0 || seg == LA_DMW1 || seg == LA_DMW2 ? seg : 0;
}

static uint64_t la_pfn_mask(const struct arch_state *st)
{
	return LA_PA_MASK & ~(st->page_size - 1);
}

/* Is @segs[0] the kernel image's segment: another one holds its bytes
 * (kexec-tools' kern_paddr_start and kern_size, inside System RAM)? */
static bool la_image_seg(const struct arch_seg_hint *segs, size_t nsegs)
{
	for (size_t j = 1; j < nsegs; j++)
		if (segs[0].size && segs[0].paddr >= segs[j].paddr &&
		    segs[0].paddr + segs[0].size <= segs[j].paddr + segs[j].size)
			return true;
	return false;
}

static enum mdf_status loongarch64_init(struct arch_state *st, const struct kinfo *ki,
					const struct arch_seg_hint *segs, size_t nsegs,
					struct mdf_err *err)
{
	uint64_t ps = ki->page_size.set ? ki->page_size.v : 16384;
	struct arch_linear_hints lh = ARCH_LINEAR_HINTS_INIT;
	uint64_t swapper = ki->sym.swapper_pg_dir.v;

	/* CONFIG_PAGE_SIZE_4KB, _16KB (Debian's) or _64KB */
	if (ps != 4096 && ps != 16384 && ps != 65536)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "PAGESIZE=%llu in VMCOREINFO, expected 4096, 16384 or 65536",
				   (unsigned long long)ps);
	st->page_size = ps;
	st->page_shift = (unsigned)__builtin_ctzll(ps);
	/* 3 levels, whatever the page size: VMCOREINFO does not say, and
	 * the 2- and 4-level choices (16KB_2LEVEL, 64KB_2LEVEL, 4KB_4LEVEL)
	 * are not Debian's, whose is 16KB_3LEVEL; their walks would be wrong */
	st->levels = LA_LEVELS;
	st->va_bits = st->page_shift + LA_LEVELS * (st->page_shift - 3);
	/* MAX_PHYSMEM_BITS 48 (asm/sparsemem.h) */
	if (arch_physmem_bits(st, ki, LA_PABITS, err) != MDF_OK)
		return err->status;

	/* The cached window is the direct map whatever the hints say: the
	 * kernel runs in it from head.S on.  The PT_LOADs prove it when
	 * they all sit there. */
	st->direct.valid = true;
	st->direct.vaddr = LA_DMW1;
	st->direct.size = 1ULL << LA_PABITS;
	st->direct.paddr = 0;
	st->page_offset = LA_DMW1;
	for (size_t i = 0; i < nsegs; i++) {
		if (segs[i].size == 0)
			continue;
		arch_linear_hint(&lh, &segs[i]);
	}
	/* kexec-tools writes the image's segment first, aliasing RAM */
	if (la_image_seg(segs, nsegs) && segs[0].vaddr - segs[0].paddr == LA_DMW1)
		arch_text_hint(st, &segs[0]);
	if (lh.have && !lh.conflict && lh.delta == LA_DMW1)
		st->page_offset_exact = true;

	if (ki->sym.swapper_pg_dir.set) {
		if (la_dmw_of(swapper) != LA_DMW1 || (swapper & (ps - 1)))
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "SYMBOL(swapper_pg_dir)=0x%llx is not a page of the cached direct map window 0x%llx",
					   (unsigned long long)swapper,
					   (unsigned long long)LA_DMW1);
		st->pgd_paddr = swapper & LA_PA_MASK;
		st->have_pgd = true;
	}
	return MDF_OK;
}

/* The next table of directory entry @e, or false when @e is no pointer
 * into a table of the cached window. */
static bool la_table_of(const struct arch_state *st, uint64_t e, uint64_t *pa)
{
	if (la_dmw_of(e) != LA_DMW1 || (e & (st->page_size - 1)))
		return false;
	*pa = e & LA_PA_MASK;
	return true;
}

static enum mdf_status loongarch64_walk(const struct arch_state *st, uint64_t vaddr,
					arch_read_pte_fn rd, void *arg,
					struct arch_walk *walk, struct mdf_err *err)
{
	unsigned bits = st->page_shift - 3;
	uint64_t table = st->pgd_paddr;

	/* a window address: no table */
	if (la_dmw_of(vaddr)) {
		walk->map_size = 1ULL << LA_PABITS;
		walk->paddr = vaddr & LA_PA_MASK;
		return MDF_OK;
	}
	/* swapper_pg_dir (CSR.PGDH) serves the high half only; the tables'
	 * kernel addresses are in XKVRANGE */
	if (vaddr < LA_XKVRANGE)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx is neither in a direct map window nor a kernel address (XKVRANGE 0x%llx up)",
				   (unsigned long long)vaddr, (unsigned long long)LA_XKVRANGE);
	if (!st->have_pgd)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx: no page-table root (VMCOREINFO needs SYMBOL(swapper_pg_dir))",
				   (unsigned long long)vaddr);
	for (unsigned l = st->levels - 1;; l--) {
		unsigned shift = st->page_shift + l * bits;
		uint64_t ep = table + 8 * ((vaddr >> shift) & ((1ULL << bits) - 1)), e;
		const char *name = arch_level_name(st->levels, l);
		enum mdf_status s;

		s = arch_walk_read(walk, name, ep, vaddr, rd, arg, &e, err);
		if (s != MDF_OK)
			return s;
		if (l == 0 || (l == 1 && (e & LA_PAGE_HUGE))) {
			uint64_t size = 1ULL << shift;

			if (!(e & (LA_PAGE_PRESENT | LA_PAGE_PROTNONE)))
				return mdf_err_set(err, MDF_ERR_NODATA,
						   "virtual address 0x%llx not mapped (%s entry 0x%llx at paddr 0x%llx not present)",
						   (unsigned long long)vaddr, name,
						   (unsigned long long)e, (unsigned long long)ep);
			walk->map_size = size;
			walk->paddr = (e & la_pfn_mask(st) & ~(size - 1)) | (vaddr & (size - 1));
			return MDF_OK;
		}
		if (!la_table_of(st, e, &table) || arch_is_empty_table(st, l, table))
			return mdf_err_set(err, MDF_ERR_NODATA,
					   "virtual address 0x%llx not mapped (%s entry 0x%llx at paddr 0x%llx %s)",
					   (unsigned long long)vaddr, name, (unsigned long long)e,
					   (unsigned long long)ep,
					   la_table_of(st, e, &table) ? "points at the empty table"
								     : "is no table pointer");
	}
}

/* arch_table_mode()'s test: a pointer into a table of the cached window. */
static bool la_is_table(const struct arch_state *st, uint64_t e)
{
	uint64_t pa;

	return la_table_of(st, e, &pa);
}

/* Prove the cached window from the dump: swapper_pg_dir, read at its
 * window address, is a table of page pointers into the window (every
 * entry of a kernel PGD is one: a PMD table, or invalid_pmd_table).  Then
 * learn the empty tables: the entry most of swapper_pg_dir's share is
 * invalid_pmd_table, all of whose entries are invalid_pte_table. */
static enum mdf_status loongarch64_init_mem(struct arch_state *st, arch_read_pte_fn rd, void *arg,
					    struct mdf_err *err)
{
	unsigned n = (unsigned)(st->page_size / 8), count, pmd_count;
	uint64_t mode, pmd_pa, pte_mode;
	bool all, pmd_all;

	(void)err;
	if (!st->have_pgd ||
	    !arch_table_mode(st, rd, arg, st->pgd_paddr, n, la_is_table, &mode, &count, &all) ||
	    !all)
		return MDF_OK;
	st->page_offset_exact = true;
	if (count <= n / 2 || !la_table_of(st, mode, &pmd_pa))
		return MDF_OK;
	if (!arch_table_mode(st, rd, arg, pmd_pa, n, la_is_table, &pte_mode, &pmd_count, &pmd_all) ||
	    pmd_count != n || !pmd_all)
		return MDF_OK;
	st->empty.have = true;
	st->empty.pmd_pa = pmd_pa;
	st->empty.pte_pa = pte_mode & LA_PA_MASK;
	return MDF_OK;
}

/* -x: the image's PT_LOAD is at the running _text; its distance from the
 * link-time one is the relocation (reloc_offset). */
static void loongarch64_debuginfo_defaults(struct kinfo *ki, uint64_t text,
					   const struct arch_seg_hint *segs, size_t nsegs)
{
	if (!ki->num.SECTION_SIZE_BITS.set) {
		ki->num.SECTION_SIZE_BITS.v = 29; /* asm/sparsemem.h */
		ki->num.SECTION_SIZE_BITS.set = true;
	}
	if (!ki->kernel_offset.set && la_image_seg(segs, nsegs) && la_dmw_of(text) == LA_DMW1 &&
	    segs[0].vaddr - segs[0].paddr == LA_DMW1) {
		ki->kernel_offset.v = segs[0].vaddr - text;
		ki->kernel_offset.set = true;
	}
}

/* --keep-task: a user address space is the low half of the tables' reach,
 * [0, 2^va_bits) (TASK_SIZE64), rooted at mm->pgd (a window address the
 * caller translates); entries as in the kernel's tables. */
static void loongarch64_user_layout(const struct arch_state *st, struct arch_user_layout *ul)
{
	ul->levels = st->levels;
	ul->page_shift = st->page_shift;
	ul->level_bits = st->page_shift - 3;
	ul->end = 1ULL << st->va_bits;
	ul->root_mask = la_pfn_mask(st);
}

static enum arch_entry loongarch64_user_entry(const struct arch_state *st, unsigned l, uint64_t e,
					      uint64_t va, uint64_t *pa)
{
	(void)va;
	if (l == 0 || (l == 1 && (e & LA_PAGE_HUGE))) {
		if (!(e & (LA_PAGE_PRESENT | LA_PAGE_PROTNONE)))
			return ARCH_ENTRY_NONE;
		*pa = e & la_pfn_mask(st);
		return ARCH_ENTRY_LEAF;
	}
	if (!la_table_of(st, e, pa) || arch_is_empty_table(st, l, *pa))
		return ARCH_ENTRY_NONE;
	return ARCH_ENTRY_TABLE;
}

const struct arch_ops arch_loongarch64_ops = {
	.name = "loongarch64",
	.e_machine = EM_LOONGARCH,
	.uts_machine = "loongarch64",
	.init = loongarch64_init,
	.walk = loongarch64_walk,
	.init_mem = loongarch64_init_mem,
	.debuginfo_defaults = loongarch64_debuginfo_defaults,
	.user_layout = loongarch64_user_layout,
	.user_entry = loongarch64_user_entry,
};
