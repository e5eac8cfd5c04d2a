/*
 * arch/riscv64.c - RISC-V 64 address translation: the kernel image, the
 * linear map of RAM, and the Sv39, Sv48 and Sv57 walk of the kernel's
 * tables (swapper_pg_dir).
 *
 * Layout facts (Documentation/arch/riscv/vm-layout.rst in the kernel):
 *   kernel image   pa = va - va_kernel_pa_offset, for va >= KERNEL_LINK_ADDR
 *   linear map     pa = va - PAGE_OFFSET + phys_ram_base
 *   vmemmap etc.   page tables only
 * The paging mode is chosen at boot (Sv57, else Sv48, else Sv39), and
 * NUMBER(VA_BITS) says which: 57, 48 or 39.  The layout numbers are in
 * VMCOREINFO since Linux 6.2 (commit 649d6b1019a2, "RISC-V: Add
 * arch_crash_save_vmcoreinfo support"); NUMBER(va_kernel_pa_offset) since
 * Linux 6.5 (commit fbe7d19d2b7f, "riscv: Export va_kernel_pa_offset in
 * vmcoreinfo", also in 6.4.y), after 6.4 made phys_ram_base the start of
 * DRAM instead of the kernel's (commit 3335068f8721).  Without it, the
 * kernel image's PT_LOAD gives the offset.
 *
 * Page-table entries (RISC-V privileged spec, "Sv39"): bit 0 V, bits 1-3
 * R/W/X (any set: a leaf), PPN in bits 10-53, Svpbmt in 61-62 and Svnapot's
 * N in 63 (a 64 KiB run of 4 KiB pages, PPN[3:0] = 0b1000).
 */
#include "arch/arch.h"

#include <elf.h>

#include "util.h"

#define RV_PTE_V (1ULL << 0)
#define RV_PTE_RWX (7ULL << 1)
#define RV_PTE_N (1ULL << 63)
#define RV_PPN_SHIFT 10
#define RV_PPN_MASK ((1ULL << 44) - 1)
#define RV_PAGE_SHIFT 12
#define RV_LEVEL_BITS 9
/* Svnapot's only size: 16 pages. */
#define RV_NAPOT_SHIFT 16

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

static enum mdf_status rv_layout(struct arch_state *st, const struct kinfo *ki,
				 struct mdf_err *err)
{
	int64_t vb = ki->num.VA_BITS.v;

	if (arch_page_size_4k(st, ki, err) != MDF_OK)
		return err->status;
	if (!ki->num.VA_BITS.set)
		return MDF_OK;	/* no walk: its message says why */
	if (vb != 39 && vb != 48 && vb != 57)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "NUMBER(VA_BITS)=%lld, expected 39, 48 or 57 (Sv39, Sv48, Sv57)",
				   (long long)vb);
	st->va_bits = (unsigned)vb;
	st->levels = (st->va_bits - RV_PAGE_SHIFT) / RV_LEVEL_BITS;
	/* MAX_PHYSMEM_BITS is 56 on riscv64 (asm/sparsemem.h). */
	return arch_physmem_bits(st, ki, 56, err);
}

static enum mdf_status riscv64_init(struct arch_state *st, const struct kinfo *ki,
				    const struct arch_seg_hint *segs, size_t nsegs,
				    struct mdf_err *err)
{
	bool have_link = ki->num.KERNEL_LINK_ADDR.set;
	uint64_t link = (uint64_t)ki->num.KERNEL_LINK_ADDR.v;
	bool have_kpa = ki->num.va_kernel_pa_offset.set;
	uint64_t kpa = (uint64_t)ki->num.va_kernel_pa_offset.v;
	bool have_lin = ki->num.PAGE_OFFSET.set && ki->num.phys_ram_base.set;
	uint64_t lin = (uint64_t)ki->num.PAGE_OFFSET.v - (uint64_t)ki->num.phys_ram_base.v;
	struct arch_linear_hints lh = ARCH_LINEAR_HINTS_INIT;
	enum mdf_status s;

	s = rv_layout(st, ki, err);
	if (s != MDF_OK)
		return s;
	/* The kdump header's phys_base is the start of RAM, as makedumpfile
	 * writes it on riscv64. */
	if (ki->num.phys_ram_base.set) {
		st->phys_base = (uint64_t)ki->num.phys_ram_base.v;
		st->have_phys_base = true;
	}
	if (ki->num.PAGE_OFFSET.set) {
		st->page_offset = (uint64_t)ki->num.PAGE_OFFSET.v;
		st->page_offset_exact = true;
	}

	/* The PT_LOAD hints: one at or above KERNEL_LINK_ADDR is the kernel
	 * image (its offset is va_kernel_pa_offset); the others are the
	 * linear map and share one offset. */
	for (size_t i = 0; i < nsegs; i++) {
		const struct arch_seg_hint *h = &segs[i];
		uint64_t delta = h->vaddr - h->paddr;

		if (h->size == 0)
			continue;
		if (have_link && h->vaddr >= link) {
			if (!have_kpa) {
				kpa = delta;
				have_kpa = true;
			}
			if (delta == kpa)
				arch_text_hint(st, h);
			continue;
		}
		arch_linear_hint(&lh, h);
	}
	/* The linear map covers all RAM: PAGE_OFFSET - phys_ram_base says
	 * where, over the RAM the PT_LOADs cover.  Their own vaddrs are not
	 * trusted when the numbers exist: kexec-tools 2.0.32's kexec_load
	 * path writes them off by a constant (0x80080000 at 0xc7f000 on a
	 * 6.12 guest whose linear map puts it at 0xff60000000080000).
	 * Without the numbers, hints that agree with each other. */
	if (lh.have && (have_lin || !lh.conflict)) {
		uint64_t delta = have_lin ? lin : lh.delta;

		st->direct.valid = true;
		st->direct.vaddr = lh.ram_start + delta;
		st->direct.size = lh.ram_end - lh.ram_start;
		st->direct.paddr = lh.ram_start;
		if (!st->page_offset_exact && st->have_phys_base) {
			st->page_offset = st->phys_base + delta;
			st->page_offset_exact = true;
		}
	}

	/* The page-table root lives in the kernel image. */
	if (have_kpa && have_link && ki->sym.swapper_pg_dir.set && st->levels &&
	    ki->sym.swapper_pg_dir.v >= link) {
		st->pgd_paddr = ki->sym.swapper_pg_dir.v - kpa;
		st->have_pgd = true;
	}
	/* vmemmap = (struct page *)VMEMMAP_START - (phys_ram_base >> PAGE_SHIFT) */
	if (ki->num.VMEMMAP_START.set && ki->num.phys_ram_base.set && ki->size.page.set) {
		st->vmemmap_base = (uint64_t)ki->num.VMEMMAP_START.v -
				   ((uint64_t)ki->num.phys_ram_base.v >> RV_PAGE_SHIFT) *
				   ki->size.page.v;
		st->vmemmap_exact = true;
	}
	return MDF_OK;
}

static enum mdf_status riscv64_walk(const struct arch_state *st, uint64_t vaddr,
				    arch_read_pte_fn rd, void *arg,
				    struct arch_walk *walk, struct mdf_err *err)
{
	uint64_t table = st->pgd_paddr;
	unsigned top = st->va_bits - 1;

	if (!st->have_pgd)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx: no page-table root (VMCOREINFO needs NUMBER(VA_BITS), NUMBER(KERNEL_LINK_ADDR), SYMBOL(swapper_pg_dir) and NUMBER(va_kernel_pa_offset) or the kernel image's PT_LOAD)",
				   (unsigned long long)vaddr);
	/* A valid address sign-extends bit va_bits - 1; the kernel's half
	 * has it set. */
	if ((vaddr >> top) != (~0ULL >> top))
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx is not a kernel address for Sv%u",
				   (unsigned long long)vaddr, st->va_bits);

	for (unsigned l = st->levels - 1;; l--) {
		unsigned shift = RV_PAGE_SHIFT + l * RV_LEVEL_BITS;
		uint64_t idx = (vaddr >> shift) & ((1ULL << RV_LEVEL_BITS) - 1);
		uint64_t ep = table + idx * 8, e, pa;
		const char *name = arch_level_name(st->levels, l);
		enum mdf_status s;

		s = arch_walk_read(walk, name, ep, vaddr, rd, arg, &e, err);
		if (s != MDF_OK)
			return s;
		pa = ((e >> RV_PPN_SHIFT) & RV_PPN_MASK) << RV_PAGE_SHIFT;
		if (!(e & RV_PTE_V) || (l == 0 && !(e & RV_PTE_RWX)))
			return mdf_err_set(err, MDF_ERR_NODATA,
					   "virtual address 0x%llx not mapped (%s entry 0x%llx at paddr 0x%llx not valid)",
					   (unsigned long long)vaddr, name,
					   (unsigned long long)e,
					   (unsigned long long)ep);
		if (e & RV_PTE_RWX) {
			uint64_t size = 1ULL << shift;

			/* Svnapot: a leaf PTE for 16 pages. */
			if (l == 0 && (e & RV_PTE_N))
				size = 1ULL << RV_NAPOT_SHIFT;
			walk->map_size = size;
			walk->paddr = (pa & ~(size - 1)) | (vaddr & (size - 1));
			return MDF_OK;
		}
		table = pa;
	}
}

/* --keep-task's walk of a user address space: [0, 2^(va_bits - 1)), the
 * half whose top bit is clear.  A leaf has R, W or X; a Svnapot leaf maps
 * its 16 pages, each of its 16 PTEs says so, and each one's page is its
 * own. */
static void riscv64_user_layout(const struct arch_state *st, struct arch_user_layout *ul)
{
	ul->levels = st->levels;
	ul->page_shift = RV_PAGE_SHIFT;
	ul->level_bits = RV_LEVEL_BITS;
	ul->end = 1ULL << (st->va_bits - 1);
	ul->root_mask = ~((1ULL << RV_PAGE_SHIFT) - 1);
}

static enum arch_entry riscv64_user_entry(const struct arch_state *st, unsigned l, uint64_t e,
					  uint64_t va, uint64_t *pa)
{
	(void)st;
	if (!(e & RV_PTE_V) || (l == 0 && !(e & RV_PTE_RWX)))
		return ARCH_ENTRY_NONE;
	*pa = ((e >> RV_PPN_SHIFT) & RV_PPN_MASK) << RV_PAGE_SHIFT;
	if (!(e & RV_PTE_RWX))
		return ARCH_ENTRY_TABLE;
	if (l == 0 && (e & RV_PTE_N)) { /* Svnapot: this PTE's page */
		uint64_t m = (1ULL << RV_NAPOT_SHIFT) - 1;

		*pa = (*pa & ~m) | (va & m);
	}
	return ARCH_ENTRY_LEAF;
}

const struct arch_ops arch_riscv64_ops = {
	.name = "riscv64",
	.e_machine = EM_RISCV,
	.uts_machine = "riscv64",
	.init = riscv64_init,
	.walk = riscv64_walk,
	.user_layout = riscv64_user_layout,
	.user_entry = riscv64_user_entry,
};
