/*
 * arch/x86_64.c - x86_64 address translation: kernel image map, direct map
 * (with KASLR offsets recovered from the PT_LOADs), and the 4- or 5-level
 * page-table walk.
 *
 * Layout facts (Documentation/arch/x86/x86_64/mm.rst in the kernel):
 *   kernel image   __START_KERNEL_map 0xffffffff80000000, KERNEL_IMAGE_SIZE
 *                  long; pa = va - __START_KERNEL_map + phys_base
 *   direct map     page_offset_base .. + 2^MAX_PHYSMEM_BITS; pa = va - base
 *   vmemmap        vmemmap_base (struct page array), mapped by page tables
 */
#include "arch/arch.h"

#include <elf.h>

#include "util.h"

#define X86_64_START_KERNEL_MAP 0xffffffff80000000ULL

/* Direct-map base without KASLR.  Linux 4.20 (commit d52888aa2753, "x86/mm:
 * Move LDT remap out of KASLR region on 5-level paging") moved it from
 * 0xffff880000000000 / 0xff10000000000000 to the values used now. */
#define X86_64_PAGE_OFFSET_L4 0xffff888000000000ULL
#define X86_64_PAGE_OFFSET_L5 0xff11000000000000ULL
#define X86_64_PAGE_OFFSET_L4_PRE_4_20 0xffff880000000000ULL
#define X86_64_PAGE_OFFSET_L5_PRE_4_20 0xff10000000000000ULL

/* vmemmap_base without KASLR.  KASLR randomizes it since commit
 * 25dfe4785332 ("x86/mm/64: Enable KASLR for vmemmap memory region"),
 * dated 2016-07-27, so Linux 4.9 (release inferred from the date). */
#define X86_64_VMEMMAP_L4 0xffffea0000000000ULL
#define X86_64_VMEMMAP_L5 0xffd4000000000000ULL

/* NUMBER(KERNEL_IMAGE_SIZE) is in VMCOREINFO at least since Linux 4.4
 * (crash_save_vmcoreinfo_init(), under CONFIG_X86); the commit that added
 * it is not pinned down.  Without it: 512 MiB without CONFIG_RANDOMIZE_BASE,
 * 1 GiB with it; the smaller value is the safe guess (a text address
 * beyond it is walked instead, while too big a window would take module
 * addresses for text). */
#define X86_64_IMAGE_SIZE_GUESS (512ULL << 20)
#define X86_64_IMAGE_SIZE_MAX (1ULL << 30)

/* MAX_PHYSMEM_BITS since 2.6.31 when VMCOREINFO does not say (it does
 * since Linux 5.9, commit 1d50e5d0c505, "crash_core, vmcoreinfo: Append
 * 'MAX_PHYSMEM_BITS' to vmcoreinfo"). */
#define X86_64_PHYSMEM_BITS_L4 46
#define X86_64_PHYSMEM_BITS_L5 52

/* KASLR aligns page_offset_base to PUD_SIZE (arch/x86/mm/kaslr.c). */
#define X86_64_GIB (1ULL << 30)

#define X86_64_PAGE_SHIFT 12
#define X86_64_PTE_PRESENT (1ULL << 0)
#define X86_64_PTE_PSE (1ULL << 7)
#define X86_64_PTE_PHYS_MASK 0x000ffffffffff000ULL
#define X86_64_PTRS_SHIFT 9

/* Is KASLR known to be off?  KERNELOFFSET= came with kernel-text KASLR
 * in Linux 3.14 (commit b6085a865762); randomization of the direct map and
 * vmalloc bases (CONFIG_RANDOMIZE_MEMORY, commits 021182e52fe0 and
 * a95ae27c2ee1) came in 4.8, of the vmemmap base in 4.9.  Without either
 * fact: unknown. */
static bool x86_64_kaslr_off(const struct kinfo *ki, unsigned kver)
{
	if (ki->kernel_offset.set)
		return ki->kernel_offset.v == 0;
	return kver && kver < util_kver(4, 8, 0);
}

static enum mdf_status x86_64_init(struct arch_state *st, const struct kinfo *ki,
				   const struct arch_seg_hint *segs, size_t nsegs,
				   struct mdf_err *err)
{
	unsigned kver = util_parse_kver(ki->osrelease); /* 0: unknown */
	bool kaslr_off = x86_64_kaslr_off(ki, kver);
	uint64_t image_size = X86_64_IMAGE_SIZE_GUESS;
	uint64_t high_half;
	bool have_direct = false, direct_conflict = false;
	uint64_t direct_delta = 0, ram_end = 0, hint_phys_base = 0;
	bool have_hint_phys_base = false;

	if (ki->page_size.set && ki->page_size.v != 1ULL << X86_64_PAGE_SHIFT)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "PAGESIZE=%llu in VMCOREINFO, expected 4096",
				   (unsigned long long)ki->page_size.v);
	st->page_size = 1ULL << X86_64_PAGE_SHIFT;
	st->page_shift = X86_64_PAGE_SHIFT;

	/* NUMBER(pgtable_l5_enabled) since 4.17, when 5-level paging became a
	 * boot-time choice: it was exported while pgtable_l5_enabled was still
	 * a variable, before commit ed7588d5dc6f (2018-05-18) made it a
	 * function (the adding commit is not pinned down).  Older kernels use
	 * 4 levels. */
	st->levels = 4;
	if (ki->num.pgtable_l5_enabled.set) {
		if (ki->num.pgtable_l5_enabled.v == 1)
			st->levels = 5;
		else if (ki->num.pgtable_l5_enabled.v != 0)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "NUMBER(pgtable_l5_enabled)=%lld, expected 0 or 1",
					   (long long)ki->num.pgtable_l5_enabled.v);
	}
	st->va_bits = st->levels == 5 ? 57 : 48;
	high_half = ~0ULL << (st->va_bits - 1);

	if (arch_physmem_bits(st, ki, st->levels == 5 ? X86_64_PHYSMEM_BITS_L5
						       : X86_64_PHYSMEM_BITS_L4,
			      err) != MDF_OK)
		return err->status;

	/* NUMBER(sme_mask), from kernel commit "x86/kdump: Export the SME mask
	 * to vmcoreinfo" (release not verified, about 5.1): the AMD
	 * memory-encryption bit, set in page-table entries of encrypted pages. */
	if (ki->num.sme_mask.set) {
		uint64_t m = (uint64_t)ki->num.sme_mask.v;

		if (m & ~X86_64_PTE_PHYS_MASK)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "NUMBER(sme_mask)=0x%llx outside the physical-address bits",
					   (unsigned long long)m);
		st->pte_strip_mask = m;
	}

	if (ki->num.KERNEL_IMAGE_SIZE.set) {
		int64_t sz = ki->num.KERNEL_IMAGE_SIZE.v;

		if (sz <= 0 || (uint64_t)sz > X86_64_IMAGE_SIZE_MAX)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "NUMBER(KERNEL_IMAGE_SIZE)=%lld out of range 1..1 GiB",
					   (long long)sz);
		image_size = (uint64_t)sz;
	}

	/* The PT_LOAD hints: the kernel-image segment gives phys_base (for
	 * kernels before 4.10), the direct-map segments give page_offset_base
	 * (randomized by KASLR since 4.8) and the end of RAM. */
	for (size_t i = 0; i < nsegs; i++) {
		const struct arch_seg_hint *h = &segs[i];
		uint64_t delta = h->vaddr - h->paddr;

		if (h->size == 0)
			continue;
		if (h->vaddr - X86_64_START_KERNEL_MAP < X86_64_IMAGE_SIZE_MAX) {
			if (!have_hint_phys_base) {
				hint_phys_base = h->paddr - (h->vaddr - X86_64_START_KERNEL_MAP);
				have_hint_phys_base = true;
			}
			continue;
		}
		if (h->vaddr < high_half || h->vaddr >= X86_64_START_KERNEL_MAP ||
		    delta < high_half || delta >= X86_64_START_KERNEL_MAP ||
		    (delta & (X86_64_GIB - 1)) != 0)
			continue;
		if (!have_direct) {
			direct_delta = delta;
			have_direct = true;
		} else if (delta != direct_delta) {
			direct_conflict = true;
		}
		ram_end = MDF_MAX(ram_end, h->paddr + h->size);
	}

	/* phys_base: NUMBER(phys_base) since 4.10 (commit 401721ecd1dc; before
	 * it VMCOREINFO had SYMBOL(phys_base), the variable's address), else
	 * from the kernel-image PT_LOAD. */
	if (ki->num.phys_base.set) {
		st->phys_base = (uint64_t)ki->num.phys_base.v;
		st->have_phys_base = true;
	} else if (have_hint_phys_base) {
		st->phys_base = hint_phys_base;
		st->have_phys_base = true;
	}
	if (st->have_phys_base) {
		st->text.valid = true;
		st->text.vaddr = X86_64_START_KERNEL_MAP;
		st->text.size = image_size;
		st->text.paddr = st->phys_base;
	}

	/* The page-table root: init_top_pgt since 4.13 (commit 65ade2f872b4
	 * renamed init_level4_pgt), swapper_pg_dir is the generic alias.  It
	 * lives in the kernel image, so phys_base translates it. */
	if (st->have_phys_base) {
		const struct kinfo_u64 *roots[] = {
			&ki->sym.init_top_pgt, &ki->sym.init_level4_pgt,
			&ki->sym.swapper_pg_dir,
		};

		for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
			uint64_t va = roots[i]->v;

			if (!roots[i]->set || va - X86_64_START_KERNEL_MAP >= X86_64_IMAGE_SIZE_MAX)
				continue;
			st->pgd_paddr = va - X86_64_START_KERNEL_MAP + st->phys_base;
			st->have_pgd = true;
			break;
		}
	}

	/* Direct map. */
	if (have_direct && !direct_conflict) {
		st->page_offset = direct_delta;
		st->page_offset_exact = true;
	} else if (st->levels == 5) {
		st->page_offset = kver && kver < util_kver(4, 20, 0)
				  ? X86_64_PAGE_OFFSET_L5_PRE_4_20 : X86_64_PAGE_OFFSET_L5;
		st->page_offset_exact = kaslr_off && kver && !direct_conflict;
	} else {
		st->page_offset = kver && kver < util_kver(4, 20, 0)
				  ? X86_64_PAGE_OFFSET_L4_PRE_4_20 : X86_64_PAGE_OFFSET_L4;
		st->page_offset_exact = kaslr_off && kver && !direct_conflict;
	}
	if (st->page_offset_exact) {
		/* With KASLR the vmalloc area may start inside page_offset +
		 * 2^MAX_PHYSMEM_BITS, so the window also stops at VMALLOC_START
		 * (NUMBER in newer kernels) and at the end of RAM. */
		uint64_t size = 1ULL << st->max_physmem_bits;

		if (ki->num.VMALLOC_START.set) {
			uint64_t vs = (uint64_t)ki->num.VMALLOC_START.v;

			if (vs > st->page_offset)
				size = MDF_MIN(size, vs - st->page_offset);
		}
		if (have_direct)
			size = MDF_MIN(size, ram_end);
		st->direct.valid = true;
		st->direct.vaddr = st->page_offset;
		st->direct.size = size;
		st->direct.paddr = 0;
	}

	/* vmemmap: SYMBOL(vmemmap) in newer kernels' VMCOREINFO ("crash_core:
	 * export vmemmap when CONFIG_SPARSEMEM_VMEMMAP is enabled", v2 posted
	 * 2024-02 for the 6.9 cycle; present in 6.12, absent in 6.1 dumps);
	 * else the default, exact only without KASLR. */
	if (ki->sym.vmemmap.set) {
		st->vmemmap_base = ki->sym.vmemmap.v;
		st->vmemmap_exact = true;
	} else {
		st->vmemmap_base = st->levels == 5 ? X86_64_VMEMMAP_L5 : X86_64_VMEMMAP_L4;
		st->vmemmap_exact = kaslr_off;
	}
	return MDF_OK;
}

static enum mdf_status x86_64_walk(const struct arch_state *st, uint64_t vaddr,
				   arch_read_pte_fn rd, void *arg,
				   struct arch_walk *walk, struct mdf_err *err)
{
	unsigned unused_bits = 64 - st->va_bits;
	uint64_t table = st->pgd_paddr;

	if (!st->have_pgd)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx: no page-table root (VMCOREINFO needs SYMBOL(init_top_pgt) and NUMBER(phys_base))",
				   (unsigned long long)vaddr);
	if ((uint64_t)((int64_t)(vaddr << unused_bits) >> unused_bits) != vaddr)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx is not canonical for %u-level paging",
				   (unsigned long long)vaddr, st->levels);

	for (unsigned l = st->levels - 1;; l--) {
		unsigned shift = X86_64_PAGE_SHIFT + l * X86_64_PTRS_SHIFT;
		uint64_t idx = (vaddr >> shift) & ((1U << X86_64_PTRS_SHIFT) - 1);
		uint64_t ep = table + idx * 8;
		const char *name = arch_level_name(st->levels, l);
		uint64_t e;
		enum mdf_status s;

		s = arch_walk_read(walk, name, ep, vaddr, rd, arg, &e, err);
		if (s != MDF_OK)
			return s;

		e &= ~st->pte_strip_mask;
		if (!(e & X86_64_PTE_PRESENT))
			return mdf_err_set(err, MDF_ERR_NODATA,
					   "virtual address 0x%llx not mapped (%s entry 0x%llx at paddr 0x%llx not present)",
					   (unsigned long long)vaddr, name,
					   (unsigned long long)walk->step[walk->nsteps - 1].entry,
					   (unsigned long long)ep);
		/* A leaf: the PTE, or PSE set in a PMD (2 MiB) or PUD (1 GiB).
		 * Bit 7 of a PTE is PAT, and reserved in P4D and PGD. */
		if (l == 0 || ((l == 1 || l == 2) && (e & X86_64_PTE_PSE))) {
			uint64_t size = 1ULL << shift;

			walk->map_size = size;
			walk->paddr = (e & X86_64_PTE_PHYS_MASK & ~(size - 1)) |
				      (vaddr & (size - 1));
			return MDF_OK;
		}
		table = e & X86_64_PTE_PHYS_MASK;
	}
}

const struct arch_ops arch_x86_64_ops = {
	.name = "x86_64",
	.e_machine = EM_X86_64,
	.init = x86_64_init,
	.walk = x86_64_walk,
};
