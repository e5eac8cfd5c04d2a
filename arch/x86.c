/*
 * arch/x86.c - 32-bit x86 (i386) address translation: the lowmem direct
 * map, and the page-table walk without PAE (2 levels of 4-byte entries) or
 * with it (3 levels of 8-byte entries).
 *
 * Layout facts (the kernel's arch/x86/include/asm/page_32_types.h,
 * pgtable-2level_types.h, pgtable-3level_types.h, arch/x86/Kconfig):
 *   direct map  [PAGE_OFFSET, PAGE_OFFSET + lowmem): pa = va - PAGE_OFFSET.
 *               PAGE_OFFSET is CONFIG_PAGE_OFFSET: 0xC0000000 (VMSPLIT_3G,
 *               every distribution), 0xB0000000 (3G_OPT), 0x80000000 (2G),
 *               0x78000000 (2G_OPT), 0x40000000 (1G).  The kernel image is
 *               inside it (no separate text map, no KERNELOFFSET on 32-bit).
 *               lowmem ends at high_memory, at most MAXMEM: 896 MiB below a
 *               3G split's vmalloc reserve of 128 MiB (less with vmalloc=).
 *   highmem     RAM above lowmem: no fixed virtual address; reached only by
 *               pfn (struct page) or through kmap/pkmap/fixmap mappings.
 *   vmalloc, pkmap, fixmap: above lowmem, through the page tables.
 *   non-PAE     PGD of 1024 4-byte entries (va bits 31..22) -> PTE tables
 *               of 1024 (21..12); a PGD entry with PSE (bit 7) maps 4 MiB.
 *   PAE         PGD (the PDPT) of 4 8-byte entries (bits 31..30) -> PMD of
 *               512 (29..21) -> PTE of 512 (20..12); a PMD entry with PSE
 *               maps 2 MiB; bit 63 is NX, bits 12..51 the address.
 *
 * The root is SYMBOL(swapper_pg_dir), a lowmem address (generic
 * VMCOREINFO).  Which paging the kernel uses: CONFIG_X86_PAE=y in
 * VMCOREINFO, written by arch_crash_save_vmcoreinfo() since the note's
 * first version (Linux 2.6.24, commit fd59d231f81c "kdump: add
 * vmcoreinfo", in arch/x86/kernel/machine_kexec_32.c; moved to
 * crash_core_32.c by commit ea53ad9cf73b in 5.6 and to vmcore_info_32.c
 * in 6.9, unchanged).
 *
 * PAGE_OFFSET from the dump: kexec-tools writes each lowmem PT_LOAD with
 * p_vaddr = p_paddr + 0xC0000000 whatever the split (its X86_PAGE_OFFSET,
 * kexec/arch/i386/crashdump-x86.c), splits RAM at 896 MiB (X86_MAXMEM) and
 * gives the segments above it p_vaddr -1; kexec_file_load does not exist
 * on 32-bit.  So the PT_LOADs suggest PAGE_OFFSET but do not prove it:
 * init takes their va - pa (else 0xC0000000) as a guess, and init_mem
 * proves one candidate of the Kconfig list by the page tables themselves:
 * with the right PAGE_OFFSET, swapper_pg_dir - PAGE_OFFSET is a page
 * table that maps swapper_pg_dir to that same physical address.  init_mem
 * then measures lowmem: the direct window is the run of blocks (4 or
 * 2 MiB) from PAGE_OFFSET up whose first page the tables map linearly.
 */
#include "arch/arch.h"

#include <elf.h>
#include <string.h>

#include "util.h"

#define X86_PAGE_SHIFT 12
#define X86_PAGE_OFFSET_DEFAULT 0xC0000000ULL
#define X86_VA_END (1ULL << 32)
/* MAXMEM below the vmalloc reserve (__VMALLOC_RESERVE, 128 MiB by
 * default): the largest lowmem of a split, 896 MiB for 3G. */
#define X86_VMALLOC_RESERVE (128ULL << 20)

#define X86_PTE_PRESENT (1ULL << 0)
#define X86_PTE_PSE (1ULL << 7)
#define X86_PTE_PROTNONE (1ULL << 8) /* a user entry's _PAGE_GLOBAL */
#define X86_NOPAE_ADDR_MASK 0xfffff000ULL
#define X86_NOPAE_LARGE_MASK 0xffc00000ULL
#define X86_PAE_ADDR_MASK 0x000ffffffffff000ULL

/* MAX_PHYSMEM_BITS and SECTION_SIZE_BITS of x86_32
 * (arch/x86/include/asm/sparsemem.h): 36 and 29 with PAE, 32 and 26
 * without. */
#define X86_PAE_PHYSMEM_BITS 36
#define X86_NOPAE_PHYSMEM_BITS 32
#define X86_PAE_SECTION_SIZE_BITS 29
#define X86_NOPAE_SECTION_SIZE_BITS 26

/* CONFIG_PAGE_OFFSET of each VMSPLIT choice, the most common first. */
static const uint32_t x86_page_offsets[] = {
	0xC0000000u, 0x80000000u, 0x40000000u, 0xB0000000u, 0x78000000u,
};

static bool x86_pae(const struct arch_state *st)
{
	return st->levels == 3;
}

/* Bytes of an entry, and bits of va a level indexes above its shift. */
static unsigned x86_entry_size(const struct arch_state *st)
{
	return x86_pae(st) ? 8 : 4;
}

static unsigned x86_level_bits(const struct arch_state *st, unsigned l)
{
	if (!x86_pae(st))
		return 10;
	return l == 2 ? 2 : 9;
}

/* Size of the direct map's blocks: what one leaf-capable entry above the
 * PTE maps (a PGD entry without PAE, a PMD entry with it). */
static uint64_t x86_block(const struct arch_state *st)
{
	return x86_pae(st) ? 2ULL << 20 : 4ULL << 20;
}

static bool x86_known_offset(uint64_t po)
{
	for (size_t i = 0; i < ARRAY_SIZE(x86_page_offsets); i++)
		if (po == x86_page_offsets[i])
			return true;
	return false;
}

/* The largest lowmem of PAGE_OFFSET @po. */
static uint64_t x86_maxmem(uint64_t po)
{
	return X86_VA_END - po - X86_VMALLOC_RESERVE;
}

/* The guess of PAGE_OFFSET and of the end of lowmem: the lowmem
 * PT_LOADs' va - pa when they agree on a value of the Kconfig list, else
 * the default; highmem PT_LOADs (p_vaddr -1, or anything that is no
 * 32-bit address above its paddr) say nothing. */
static void x86_guess(struct arch_state *st, const struct arch_seg_hint *segs,
		      size_t nsegs, uint64_t *lowmem)
{
	struct arch_linear_hints lh = ARCH_LINEAR_HINTS_INIT;

	for (size_t i = 0; i < nsegs; i++) {
		const struct arch_seg_hint *h = &segs[i];

		if (h->size == 0 || h->vaddr >= X86_VA_END || h->vaddr == 0xffffffffULL ||
		    h->vaddr < h->paddr || h->vaddr - h->paddr >= X86_VA_END)
			continue;
		arch_linear_hint(&lh, h);
	}
	st->page_offset = X86_PAGE_OFFSET_DEFAULT;
	if (lh.have && !lh.conflict && x86_known_offset(lh.delta))
		st->page_offset = lh.delta;
	*lowmem = x86_maxmem(st->page_offset);
	if (lh.have && !lh.conflict && lh.delta == st->page_offset && lh.ram_end < *lowmem)
		*lowmem = lh.ram_end;
}

/* The root and the direct window for PAGE_OFFSET @po, lowmem @lowmem. */
static void x86_set_offset(struct arch_state *st, uint64_t swapper_va, uint64_t po,
			   uint64_t lowmem)
{
	st->page_offset = po;
	st->have_pgd = st->x86.have_swapper && swapper_va >= po &&
		       swapper_va - po < x86_maxmem(po);
	st->pgd_paddr = st->have_pgd ? swapper_va - po : 0;
	st->direct.valid = lowmem > 0;
	st->direct.vaddr = po;
	st->direct.size = lowmem;
	st->direct.paddr = 0;
}

static enum mdf_status x86_init(struct arch_state *st, const struct kinfo *ki,
				const struct arch_seg_hint *segs, size_t nsegs,
				struct mdf_err *err)
{
	bool pae = ki->config.X86_PAE;
	uint64_t lowmem;

	if (arch_page_size_4k(st, ki, err) != MDF_OK)
		return err->status;
	st->levels = pae ? 3 : 2;
	st->va_bits = 32;
	if (arch_physmem_bits(st, ki, pae ? X86_PAE_PHYSMEM_BITS : X86_NOPAE_PHYSMEM_BITS,
			      err) != MDF_OK)
		return err->status;
	if (!pae && st->max_physmem_bits > 32)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "NUMBER(MAX_PHYSMEM_BITS)=%u without CONFIG_X86_PAE (32-bit page tables reach 4 GiB)",
				   st->max_physmem_bits);

	x86_guess(st, segs, nsegs, &lowmem);
	if (ki->sym.swapper_pg_dir.set && ki->sym.swapper_pg_dir.v >= X86_VA_END)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "SYMBOL(swapper_pg_dir)=0x%llx is not a 32-bit address",
				   (unsigned long long)ki->sym.swapper_pg_dir.v);
	st->x86.have_swapper = ki->sym.swapper_pg_dir.set;
	st->x86.swapper_va = ki->sym.swapper_pg_dir.v;
	x86_set_offset(st, st->x86.swapper_va, st->page_offset, lowmem);
	st->page_offset_exact = false;
	return MDF_OK;
}

static enum mdf_status x86_walk(const struct arch_state *st, uint64_t vaddr,
				arch_read_pte_fn rd, void *arg,
				struct arch_walk *walk, struct mdf_err *err)
{
	const unsigned esize = x86_entry_size(st);
	const uint64_t amask = x86_pae(st) ? X86_PAE_ADDR_MASK : X86_NOPAE_ADDR_MASK;
	uint64_t table = st->pgd_paddr;
	unsigned shift = X86_PAGE_SHIFT;

	if (!st->have_pgd)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx: no page-table root (VMCOREINFO needs SYMBOL(swapper_pg_dir) in lowmem)",
				   (unsigned long long)vaddr);
	if (vaddr >= X86_VA_END)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx is not a 32-bit address",
				   (unsigned long long)vaddr);
	for (unsigned l = 0; l + 1 < st->levels; l++)
		shift += x86_level_bits(st, l);

	for (unsigned l = st->levels - 1;; l--) {
		uint64_t idx = (vaddr >> shift) & ((1ULL << x86_level_bits(st, l)) - 1);
		uint64_t ep = table + idx * esize, e;
		const char *name = arch_level_name(st->levels, l);
		enum mdf_status s;

		s = arch_walk_read_n(walk, name, ep, esize, vaddr, rd, arg, &e, err);
		if (s != MDF_OK)
			return s;
		if (!(e & X86_PTE_PRESENT))
			return mdf_err_set(err, MDF_ERR_NODATA,
					   "virtual address 0x%llx not mapped (%s entry 0x%llx at paddr 0x%llx not present)",
					   (unsigned long long)vaddr, name,
					   (unsigned long long)e, (unsigned long long)ep);
		/* A leaf: the PTE, or PSE in the level above it (the PGD
		 * without PAE: 4 MiB; the PMD with it: 2 MiB).  Bit 7 of a
		 * PTE is PAT; a PDPT entry has no PSE. */
		if (l == 0 || (l == 1 && (e & X86_PTE_PSE))) {
			uint64_t size = 1ULL << shift;
			/* Without PAE a 4 MiB entry keeps pa bits 31..22 (PSE-36
			 * puts higher ones in bits 13..20, but a non-PAE kernel
			 * has no memory above 4 GiB) */
			uint64_t m = l == 1 && !x86_pae(st) ? X86_NOPAE_LARGE_MASK : amask;

			walk->map_size = size;
			walk->paddr = (e & m & ~(size - 1)) | (vaddr & (size - 1));
			return MDF_OK;
		}
		table = e & amask;
		shift -= x86_level_bits(st, l - 1);
	}
}

/* Does the root of PAGE_OFFSET @po map the swapper_pg_dir at @va to
 * itself? */
static bool x86_root_maps_itself(const struct arch_state *st, uint64_t va, uint64_t po,
				 arch_read_pte_fn rd, void *arg)
{
	struct arch_state t = *st;

	if (va < po)
		return false;
	t.page_offset = po;
	t.pgd_paddr = va - po;
	t.have_pgd = true;
	return arch_walk_maps_to(&t, va, va - po, rd, arg);
}

/* Prove PAGE_OFFSET and measure lowmem through the page tables (see the
 * head of the file).  What cannot be read leaves init's guess. */
static enum mdf_status x86_init_mem(struct arch_state *st, arch_read_pte_fn rd, void *arg,
				    struct mdf_err *err)
{
	uint64_t va = st->x86.swapper_va, po = 0, off;
	const uint64_t block = x86_block(st);
	bool found = false;

	(void)err;
	if (!st->x86.have_swapper)
		return MDF_OK;
	if (x86_root_maps_itself(st, va, st->page_offset, rd, arg)) {
		po = st->page_offset;
		found = true;
	}
	for (size_t i = 0; !found && i < ARRAY_SIZE(x86_page_offsets); i++) {
		if (x86_page_offsets[i] != st->page_offset &&
		    x86_root_maps_itself(st, va, x86_page_offsets[i], rd, arg)) {
			po = x86_page_offsets[i];
			found = true;
		}
	}
	if (!found)
		return MDF_OK;
	x86_set_offset(st, va, po, 0); /* the window measured below, walking */
	for (off = 0; off < x86_maxmem(po); off += block)
		if (!arch_walk_maps_to(st, po + off, off, rd, arg))
			break;
	st->page_offset_exact = true;
	x86_set_offset(st, va, po, off);
	return MDF_OK;
}

/* --keep-task's walk of a user address space: below PAGE_OFFSET. */
static void x86_user_layout(const struct arch_state *st, struct arch_user_layout *ul)
{
	ul->levels = st->levels;
	ul->page_shift = X86_PAGE_SHIFT;
	/* the PDPT's 4 entries are the first of a 512-entry level */
	ul->level_bits = x86_pae(st) ? 9 : 10;
	ul->end = st->page_offset;
	/* mm->pgd: a page without PAE, 32-byte aligned with it */
	ul->root_mask = x86_pae(st) ? X86_PAE_ADDR_MASK | 0xfe0 : X86_NOPAE_ADDR_MASK;
	ul->entry_size = x86_entry_size(st);
}

static enum arch_entry x86_user_entry(const struct arch_state *st, unsigned l, uint64_t e,
				      uint64_t va, uint64_t *pa)
{
	(void)va;
	/* mprotect(PROT_NONE)'s entries map their pages (pte_present():
	 * _PAGE_PROTNONE, bit 8, with _PAGE_PRESENT clear); with PAE their
	 * pfns are inverted (arch_x86_protnone_addr(); not on 2-level
	 * tables: "No inverted PFNs on 2 level page tables").  As x86_64's. */
	if (!(e & X86_PTE_PRESENT)) {
		if (!(e & X86_PTE_PROTNONE) || (l != 0 && !(l == 1 && (e & X86_PTE_PSE))))
			return ARCH_ENTRY_NONE;
		if (x86_pae(st))
			e = arch_x86_protnone_addr(e, X86_PAE_ADDR_MASK, st->max_physmem_bits) |
			    (e & ~X86_PAE_ADDR_MASK);
	}
	if (l == 1 && (e & X86_PTE_PSE)) {
		*pa = e & (x86_pae(st) ? X86_PAE_ADDR_MASK : X86_NOPAE_LARGE_MASK);
		return ARCH_ENTRY_LEAF;
	}
	*pa = e & (x86_pae(st) ? X86_PAE_ADDR_MASK : X86_NOPAE_ADDR_MASK);
	return l == 0 ? ARCH_ENTRY_LEAF : ARCH_ENTRY_TABLE;
}

static void x86_debuginfo_defaults(struct kinfo *ki, uint64_t text,
				   const struct arch_seg_hint *segs, size_t nsegs)
{
	(void)text;
	(void)segs;
	(void)nsegs;
	if (!ki->num.SECTION_SIZE_BITS.set) {
		ki->num.SECTION_SIZE_BITS.v = ki->config.X86_PAE ? X86_PAE_SECTION_SIZE_BITS
								 : X86_NOPAE_SECTION_SIZE_BITS;
		ki->num.SECTION_SIZE_BITS.set = true;
	}
}

const struct arch_ops arch_x86_ops = {
	.name = "x86",
	/* what uname -m says on Debian's 686 kernels (the kernel writes
	 * i386's "i386" as i686 on a family-6 CPU) */
	.uts_machine = "i686",
	.e_machine = EM_386,
	.word_size = 4,
	.init = x86_init,
	.walk = x86_walk,
	.init_mem = x86_init_mem,
	.user_layout = x86_user_layout,
	.user_entry = x86_user_entry,
	.debuginfo_defaults = x86_debuginfo_defaults,
};
