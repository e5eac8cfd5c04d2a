/*
 * arch/arm64.c - arm64 (AArch64) address translation: the kernel image
 * (kimage_voffset), the linear map of RAM, and the stage-1 walk of the
 * kernel's TTBR1 tables with a 4, 16 or 64 KiB granule.
 *
 * Layout facts (Documentation/arch/arm64/memory.rst in the kernel):
 *   kernel image   pa = va - kimage_voffset (NUMBER(kimage_voffset))
 *   linear map     pa = va - PAGE_OFFSET + PHYS_OFFSET; PAGE_OFFSET is
 *                  -(1 << VA_BITS) since Linux 5.4 (commit 14c127c957c1,
 *                  "arm64: mm: Flip kernel VA space", dated 2019-08-07),
 *                  -(1 << (VA_BITS - 1)) before; half the VA space long
 *   vmemmap etc.   page tables only
 * 52-bit VAs: with 64 KiB pages (FEAT_LVA/LPA) or, with 4 and 16 KiB
 * pages, FEAT_LPA2 (Linux 6.9 on).
 * NUMBER(VA_BITS), NUMBER(kimage_voffset) and NUMBER(PHYS_OFFSET) are in
 * VMCOREINFO since Linux 4.12 (commit 20a166243328, "arm64: kdump: add
 * VMCOREINFO's for user-space tools"); NUMBER(TCR_EL1_T1SZ), the VA size
 * the hardware really uses, since Linux 5.9 (commit bbdbc11804ff,
 * "arm64/crash_core: Export TCR_EL1.T1SZ in vmcoreinfo").  The patch series first
 * spelled it NUMBER(tcr_el1_t1sz), which some vendor trees still print.
 */
#include "arch/arch.h"

#include <elf.h>

#include "util.h"

/* Descriptor bits (ARM ARM D8.3): bit 0 valid; bit 1 is "table" above the
 * last level and "page" at it; a valid entry with bit 1 clear above the
 * last level is a block. */
#define ARM64_DESC_VALID (1ULL << 0)
#define ARM64_PTE_NG (1ULL << 11)
#define ARM64_PTE_PROT_NONE_OLD (1ULL << 58)
#define ARM64_PMD_PRESENT_INVALID_OLD (1ULL << 59)
#define ARM64_DESC_TABLE (1ULL << 1)
/* Output address bits of a 48-bit physical address, [47:page_shift]. */
#define ARM64_OA_MASK_48 0x0000ffffffffffffULL
/* 64 KiB granule with 52-bit physical addresses (FEAT_LPA): PA[51:48] are
 * descriptor bits [15:12]. */
#define ARM64_LPA_HI_SHIFT 12
#define ARM64_LPA_HI_MASK 0xfULL
/* 4 or 16 KiB granule with FEAT_LPA2: PA[49:page_shift] in place, PA[51:50]
 * in descriptor bits [9:8] (the shareability field without LPA2). */
#define ARM64_OA_MASK_50 0x0003ffffffffffffULL
#define ARM64_LPA2_HI_SHIFT 8
#define ARM64_LPA2_HI_MASK 0x3ULL

/* Levels of a walk that resolves @va_bits with pages of 2^@page_shift:
 * each level resolves page_shift - 3 bits. */
static unsigned arm64_levels(unsigned va_bits, unsigned page_shift)
{
	unsigned per = page_shift - 3;

	return (va_bits - page_shift + per - 1) / per;
}

static enum mdf_status arm64_page_size(struct arch_state *st,
				       const struct kinfo *ki,
				       struct mdf_err *err)
{
	uint64_t ps = ki->page_size.set ? ki->page_size.v : 4096;

	if (ps != 4096 && ps != 16384 && ps != 65536)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "PAGESIZE=%llu in VMCOREINFO, expected 4096, 16384 or 65536",
				   (unsigned long long)ps);
	st->page_size = ps;
	st->page_shift = (unsigned)__builtin_ctzll(ps);
	return MDF_OK;
}

/* VA_BITS (the configured size, which swapper_pg_dir is laid out for) and
 * the size the walk resolves (64 - TCR_EL1.T1SZ when known). */
static enum mdf_status arm64_va_bits(struct arch_state *st,
				     const struct kinfo *ki,
				     struct mdf_err *err)
{
	int64_t cfg = ki->num.VA_BITS.v;

	if (!ki->num.VA_BITS.set)
		return MDF_OK;	/* no walk: the message says why */
	if (cfg < 36 || cfg > 52)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "NUMBER(VA_BITS)=%lld out of range 36..52",
				   (long long)cfg);
	st->pgd_va_bits = (unsigned)cfg;
	st->va_bits = (unsigned)cfg;
	if (ki->num.TCR_EL1_T1SZ.set || ki->num.tcr_el1_t1sz.set) {
		int64_t t1sz = ki->num.TCR_EL1_T1SZ.set ? ki->num.TCR_EL1_T1SZ.v
							: ki->num.tcr_el1_t1sz.v;

		if (t1sz < 64 - cfg || t1sz > 64 - 36)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "NUMBER(TCR_EL1_T1SZ)=%lld does not fit VA_BITS=%lld",
					   (long long)t1sz, (long long)cfg);
		st->va_bits = (unsigned)(64 - t1sz);
	}
	st->levels = arm64_levels(st->va_bits, st->page_shift);
	/* 52-bit VAs with 4 or 16 KiB pages need FEAT_LPA2 (TCR_EL1.DS set,
	 * Linux 6.9 on; Debian's 16k kernels run so under qemu -cpu max):
	 * descriptors then carry PA bits 51:50 in bits 9:8. */
	st->arm64_lpa2 = st->va_bits == 52 && st->page_shift != 16;
	/* Such a kernel on hardware without LPA2 runs with 48 bits; with 4
	 * KiB pages that drops a level, and how swapper_pg_dir is entered
	 * then is not modelled here: refuse rather than misread it. */
	if (st->pgd_va_bits > st->va_bits &&
	    arm64_levels(st->pgd_va_bits, st->page_shift) != st->levels)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "a kernel built for %u-bit VAs running with %u bits and %llu-byte pages is not supported",
				   st->pgd_va_bits, st->va_bits,
				   (unsigned long long)st->page_size);
	return MDF_OK;
}

static enum mdf_status arm64_init(struct arch_state *st, const struct kinfo *ki,
				  const struct arch_seg_hint *segs, size_t nsegs,
				  struct mdf_err *err)
{
	bool have_kimage = ki->num.kimage_voffset.set;
	uint64_t kimage_voffset = (uint64_t)ki->num.kimage_voffset.v;
	struct arch_linear_hints lh = ARCH_LINEAR_HINTS_INIT;
	unsigned kver = util_parse_kver(ki->osrelease); /* 0: unknown */
	enum mdf_status s;

	s = arm64_page_size(st, ki, err);
	if (s == MDF_OK)
		s = arm64_va_bits(st, ki, err);
	if (s != MDF_OK)
		return s;
	if (arch_physmem_bits(st, ki, 48, err) != MDF_OK)
		return err->status;
	/* The dump header's phys_base is the start of the linear map's RAM
	 * on arm64 (memstart_addr), as makedumpfile writes it. */
	if (ki->num.PHYS_OFFSET.set) {
		st->phys_base = (uint64_t)ki->num.PHYS_OFFSET.v;
		st->have_phys_base = true;
	}

	/* The PT_LOAD hints: the one at kimage_voffset is the kernel image;
	 * the others share one offset, the linear map's. */
	for (size_t i = 0; i < nsegs; i++) {
		const struct arch_seg_hint *h = &segs[i];

		if (h->size == 0)
			continue;
		if (have_kimage && h->vaddr - h->paddr == kimage_voffset)
			arch_text_hint(st, h);
		else
			arch_linear_hint(&lh, h);
	}
	if (lh.have && !lh.conflict) {
		st->page_offset = lh.delta + (st->have_phys_base ? st->phys_base : 0);
		st->page_offset_exact = st->have_phys_base;
		st->direct.valid = true;
		st->direct.vaddr = lh.ram_start + lh.delta;
		st->direct.size = lh.ram_end - lh.ram_start;
		st->direct.paddr = lh.ram_start;
	} else if (!lh.have && st->pgd_va_bits && st->pgd_va_bits <= 48 &&
		   st->va_bits == st->pgd_va_bits && st->have_phys_base && kver) {
		/* No PT_LOADs (a kdump-compressed input): the layout rule, for
		 * the layouts it is known for (52-bit kernels size the linear
		 * map at boot: those walk every address instead). */
		unsigned vb = st->pgd_va_bits;

		st->page_offset = kver >= util_kver(5, 4, 0) ? ~0ULL << vb
							  : ~0ULL << (vb - 1);
		st->page_offset_exact = true;
		st->direct.valid = true;
		st->direct.vaddr = st->page_offset;
		st->direct.size = 1ULL << (vb - 1);
		st->direct.paddr = st->phys_base;
	}

	/* pte_present() of an invalid user entry.  Until 6.9, PTE_PROT_NONE
	 * (bit 58) and, for a THP pmd being split or migrated,
	 * PMD_PRESENT_INVALID (bit 59, Linux 5.9 on).  From 6.10, which took
	 * bit 58 for PTE_UFFD_WP ("arm64/mm: Remove PTE_PROT_NONE bit" and
	 * "arm64/mm: Move PTE_PRESENT_INVALID to overlay PTE_NG"), both are
	 * PTE_PRESENT_INVALID, bit 11 (nG); a swap entry keeps each of these
	 * bits clear in its kernel's layout, so the version decides. */
	if (kver >= util_kver(6, 10, 0)) {
		st->arm64_present_invalid = ARM64_PTE_NG;
		st->arm64_block_present_invalid = ARM64_PTE_NG;
	} else {
		st->arm64_present_invalid = ARM64_PTE_PROT_NONE_OLD;
		st->arm64_block_present_invalid = ARM64_PTE_PROT_NONE_OLD |
						  ARM64_PMD_PRESENT_INVALID_OLD;
	}

	/* The page-table root lives in the kernel image. */
	if (have_kimage && ki->sym.swapper_pg_dir.set && st->levels) {
		st->pgd_paddr = ki->sym.swapper_pg_dir.v - kimage_voffset;
		st->have_pgd = true;
	}
	if (ki->sym.vmemmap.set) {
		st->vmemmap_base = ki->sym.vmemmap.v;
		st->vmemmap_exact = true;
	}
	return MDF_OK;
}

/* The output address of a table, block or page descriptor. */
static uint64_t arm64_desc_oa(const struct arch_state *st, uint64_t e)
{
	uint64_t oa;

	if (st->arm64_lpa2)
		return (e & ARM64_OA_MASK_50 & ~(st->page_size - 1)) |
		       ((e >> ARM64_LPA2_HI_SHIFT) & ARM64_LPA2_HI_MASK) << 50;
	oa = e & ARM64_OA_MASK_48 & ~(st->page_size - 1);
	if (st->page_shift == 16 && st->max_physmem_bits > 48)
		oa |= ((e >> ARM64_LPA_HI_SHIFT) & ARM64_LPA_HI_MASK) << 48;
	return oa;
}

static enum mdf_status arm64_walk(const struct arch_state *st, uint64_t vaddr,
				  arch_read_pte_fn rd, void *arg,
				  struct arch_walk *walk, struct mdf_err *err)
{
	unsigned per = st->page_shift - 3;
	uint64_t table = st->pgd_paddr;

	if (!st->have_pgd)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx: no page-table root (VMCOREINFO needs NUMBER(VA_BITS), NUMBER(kimage_voffset) and SYMBOL(swapper_pg_dir))",
				   (unsigned long long)vaddr);
	/* TTBR1 translates the addresses whose bits 63..va_bits are all 1. */
	if ((vaddr >> st->va_bits) != (~0ULL >> st->va_bits))
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx is not a kernel address for %u-bit VAs",
				   (unsigned long long)vaddr, st->va_bits);

	for (unsigned l = st->levels - 1;; l--) {
		unsigned shift = st->page_shift + l * per;
		uint64_t idx, ep, e;
		const char *name = arch_level_name(st->levels, l);
		enum mdf_status s;

		if (l + 1 == st->levels) {
			/* The top level resolves what is left of va_bits.  A
			 * kernel built for 52 bits that runs with 48 lays out
			 * swapper_pg_dir for 52 and points TTBR1 into it
			 * (TTBR1_BADDR_4852_OFFSET): index it the 52-bit way. */
			unsigned top = st->pgd_va_bits > st->va_bits ? st->pgd_va_bits
								     : st->va_bits;

			idx = (vaddr >> shift) & ((1ULL << (top - shift)) - 1);
		} else {
			idx = (vaddr >> shift) & ((1ULL << per) - 1);
		}
		ep = table + idx * 8;
		s = arch_walk_read(walk, name, ep, vaddr, rd, arg, &e, err);
		if (s != MDF_OK)
			return s;

		if (!(e & ARM64_DESC_VALID) || (l == 0 && !(e & ARM64_DESC_TABLE)))
			return mdf_err_set(err, MDF_ERR_NODATA,
					   "virtual address 0x%llx not mapped (%s entry 0x%llx at paddr 0x%llx not valid)",
					   (unsigned long long)vaddr, name,
					   (unsigned long long)e,
					   (unsigned long long)ep);
		/* A leaf: the last level's page, or a block above it. */
		if (l == 0 || !(e & ARM64_DESC_TABLE)) {
			uint64_t size = 1ULL << shift;

			walk->map_size = size;
			walk->paddr = (arm64_desc_oa(st, e) & ~(size - 1)) |
				      (vaddr & (size - 1));
			return MDF_OK;
		}
		table = arm64_desc_oa(st, e);
	}
}

/* --keep-task's walk of a user address space: what TTBR0 translates,
 * [0, 2^va_bits); pages at the last level, blocks above it.  A top table
 * smaller than a page (16 KiB pages with 52-bit VAs: 32 entries) comes
 * from a cache aligned to its size, not a page: the root is taken as it
 * lies. */
static void arm64_user_layout(const struct arch_state *st, struct arch_user_layout *ul)
{
	ul->levels = st->levels;
	ul->page_shift = st->page_shift;
	ul->level_bits = st->page_shift - 3;
	ul->end = 1ULL << st->va_bits;
	ul->root_mask = ~7ULL;
}

static enum arch_entry arm64_user_entry(const struct arch_state *st, unsigned l, uint64_t e,
					uint64_t va, uint64_t *pa)
{
	(void)va;
	if (!(e & ARM64_DESC_VALID)) {
		/* PROT_NONE and NUMA hinting (Linux 3.8 on) keep the page
		 * mapped with the valid bit clear: a page or a block, never a
		 * table (arm64_init() says which bits mark it) */
		if (!(e & (l == 0 ? st->arm64_present_invalid : st->arm64_block_present_invalid)) ||
		    (l > 0 && (e & ARM64_DESC_TABLE)))
			return ARCH_ENTRY_NONE;
		*pa = arm64_desc_oa(st, e);
		return ARCH_ENTRY_LEAF;
	}
	if (l == 0 && !(e & ARM64_DESC_TABLE))
		return ARCH_ENTRY_NONE;
	*pa = arm64_desc_oa(st, e);
	return l == 0 || !(e & ARM64_DESC_TABLE) ? ARCH_ENTRY_LEAF : ARCH_ENTRY_TABLE;
}

const struct arch_ops arch_arm64_ops = {
	.name = "arm64",
	.uts_machine = "aarch64",
	.e_machine = EM_AARCH64,
	.init = arm64_init,
	.walk = arm64_walk,
	.user_layout = arm64_user_layout,
	.user_entry = arm64_user_entry,
};
