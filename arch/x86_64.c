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
#include <stdlib.h>

#include "arch/arch.h"

#include <elf.h>
#include <string.h>

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
 * Linux 4.9 (4.8's arch/x86/mm/kaslr.c has no vmemmap_base, 4.9's has). */
#define X86_64_VMEMMAP_L4 0xffffea0000000000ULL
#define X86_64_VMEMMAP_L5 0xffd4000000000000ULL

/* NUMBER(KERNEL_IMAGE_SIZE) is in VMCOREINFO since Linux 4.3 (commit
 * 1303a27c9c32, "kexec: export KERNEL_IMAGE_SIZE to vmcoreinfo", in the
 * generic code under CONFIG_X86; 4.10 moved it into machine_kexec_64.c).
 * Without it: 512 MiB without CONFIG_RANDOMIZE_BASE,
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
#define X86_64_PTE_PROTNONE (1ULL << 8) /* a user entry's _PAGE_GLOBAL */
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

/* Page size, paging levels, the physical address space, the SME bit and
 * the kernel image size: what VMCOREINFO says of the paging setup. */
static enum mdf_status x86_64_paging(struct arch_state *st, const struct kinfo *ki,
				     uint64_t *image_size, struct mdf_err *err)
{
	if (arch_page_size_4k(st, ki, err) != MDF_OK)
		return err->status;

	/* NUMBER(pgtable_l5_enabled) since 4.17 (commit c100a583601d,
	 * "kdump, vmcoreinfo: Export pgtable_l5_enabled value"), when 5-level
	 * paging became a boot-time choice; 4.18 (ed7588d5dc6f) prints it from
	 * the function that replaced the variable.  Older kernels use 4 levels. */
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

	if (arch_physmem_bits(st, ki, st->levels == 5 ? X86_64_PHYSMEM_BITS_L5
						       : X86_64_PHYSMEM_BITS_L4,
			      err) != MDF_OK)
		return err->status;

	/* NUMBER(sme_mask) since Linux 5.1 (kernel "x86/kdump: Export the SME
	 * mask to vmcoreinfo", posted 2019-01-10 with f263245a0ce2; absent in
	 * 5.0, present in 5.2 and makedumpfile d222b01): the AMD
	 * memory-encryption bit, set in page-table entries of encrypted pages. */
	if (ki->num.sme_mask.set) {
		uint64_t m = (uint64_t)ki->num.sme_mask.v;

		if (m & ~X86_64_PTE_PHYS_MASK)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "NUMBER(sme_mask)=0x%llx outside the physical-address bits",
					   (unsigned long long)m);
		st->pte_strip_mask = m;
	}

	*image_size = X86_64_IMAGE_SIZE_GUESS;
	if (ki->num.KERNEL_IMAGE_SIZE.set) {
		int64_t sz = ki->num.KERNEL_IMAGE_SIZE.v;

		if (sz <= 0 || (uint64_t)sz > X86_64_IMAGE_SIZE_MAX)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "NUMBER(KERNEL_IMAGE_SIZE)=%lld out of range 1..1 GiB",
					   (long long)sz);
		*image_size = (uint64_t)sz;
	}
	return MDF_OK;
}

/* What the PT_LOAD hints tell. */
struct x86_64_hints {
	bool have_direct, direct_conflict, have_phys_base;
	uint64_t direct_delta, ram_end, phys_base;
};

/* The kernel-image segment gives phys_base (for kernels before 4.10), the
 * direct-map segments give page_offset_base (randomized by KASLR since
 * 4.8) and the end of RAM. */
static void x86_64_read_hints(const struct arch_state *st,
			      const struct arch_seg_hint *segs, size_t nsegs,
			      struct x86_64_hints *h)
{
	uint64_t high_half = ~0ULL << (st->va_bits - 1);

	memset(h, 0, sizeof(*h));
	for (size_t i = 0; i < nsegs; i++) {
		const struct arch_seg_hint *s = &segs[i];
		uint64_t delta = s->vaddr - s->paddr;

		if (s->size == 0)
			continue;
		if (s->vaddr - X86_64_START_KERNEL_MAP < X86_64_IMAGE_SIZE_MAX) {
			if (!h->have_phys_base) {
				h->phys_base = s->paddr - (s->vaddr - X86_64_START_KERNEL_MAP);
				h->have_phys_base = true;
			}
			continue;
		}
		if (s->vaddr < high_half || s->vaddr >= X86_64_START_KERNEL_MAP ||
		    delta < high_half || delta >= X86_64_START_KERNEL_MAP ||
		    (delta & (X86_64_GIB - 1)) != 0)
			continue;
		if (!h->have_direct) {
			h->direct_delta = delta;
			h->have_direct = true;
		} else if (delta != h->direct_delta) {
			h->direct_conflict = true;
		}
		h->ram_end = MDF_MAX(h->ram_end, s->paddr + s->size);
	}
}

/* phys_base, the kernel-text window and the page-table root. */
static void x86_64_kernel_text(struct arch_state *st, const struct kinfo *ki,
			       const struct x86_64_hints *h, uint64_t image_size)
{
	/* phys_base: NUMBER(phys_base) since 4.10 (commit 401721ecd1dc; before
	 * it VMCOREINFO had SYMBOL(phys_base), the variable's address), else
	 * from the kernel-image PT_LOAD. */
	if (ki->num.phys_base.set) {
		st->phys_base = (uint64_t)ki->num.phys_base.v;
		st->have_phys_base = true;
	} else if (h->have_phys_base) {
		st->phys_base = h->phys_base;
		st->have_phys_base = true;
	}
	if (!st->have_phys_base)
		return;
	st->text.valid = true;
	st->text.vaddr = X86_64_START_KERNEL_MAP;
	st->text.size = image_size;
	st->text.paddr = st->phys_base;

	/* The page-table root: init_top_pgt since 4.13 (commit 65ade2f872b4
	 * renamed init_level4_pgt), swapper_pg_dir is the generic alias.  It
	 * lives in the kernel image, so phys_base translates it. */
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

/* The direct map: its base from the hints, else the default, exact only
 * when KASLR is known to be off and the version known. */
static void x86_64_direct_map(struct arch_state *st, const struct kinfo *ki,
			      const struct x86_64_hints *h, unsigned kver,
			      bool kaslr_off)
{
	if (h->have_direct && !h->direct_conflict) {
		st->page_offset = h->direct_delta;
		st->page_offset_exact = true;
	} else if (st->levels == 5) {
		st->page_offset = kver && kver < util_kver(4, 20, 0)
				  ? X86_64_PAGE_OFFSET_L5_PRE_4_20 : X86_64_PAGE_OFFSET_L5;
		st->page_offset_exact = kaslr_off && kver && !h->direct_conflict;
	} else {
		st->page_offset = kver && kver < util_kver(4, 20, 0)
				  ? X86_64_PAGE_OFFSET_L4_PRE_4_20 : X86_64_PAGE_OFFSET_L4;
		st->page_offset_exact = kaslr_off && kver && !h->direct_conflict;
	}
	if (!st->page_offset_exact)
		return;
	/* With KASLR the vmalloc area may start inside page_offset +
	 * 2^MAX_PHYSMEM_BITS, so the window also stops at VMALLOC_START
	 * (NUMBER in newer kernels) and at the end of RAM. */
	uint64_t size = 1ULL << st->max_physmem_bits;

	if (ki->num.VMALLOC_START.set) {
		uint64_t vs = (uint64_t)ki->num.VMALLOC_START.v;

		if (vs > st->page_offset)
			size = MDF_MIN(size, vs - st->page_offset);
	}
	if (h->have_direct)
		size = MDF_MIN(size, h->ram_end);
	st->direct.valid = true;
	st->direct.vaddr = st->page_offset;
	st->direct.size = size;
	st->direct.paddr = 0;
}

static enum mdf_status x86_64_init(struct arch_state *st, const struct kinfo *ki,
				   const struct arch_seg_hint *segs, size_t nsegs,
				   struct mdf_err *err)
{
	unsigned kver = util_parse_kver(ki->osrelease); /* 0: unknown */
	bool kaslr_off = x86_64_kaslr_off(ki, kver);
	struct x86_64_hints h;
	uint64_t image_size;

	if (x86_64_paging(st, ki, &image_size, err) != MDF_OK)
		return err->status;
	x86_64_read_hints(st, segs, nsegs, &h);
	x86_64_kernel_text(st, ki, &h, image_size);
	x86_64_direct_map(st, ki, &h, kver, kaslr_off);

	/* vmemmap: SYMBOL(vmemmap) since Linux 6.9 (commit d3246b6ee42a,
	 * "crash_core: export vmemmap when CONFIG_SPARSEMEM_VMEMMAP is
	 * enabled"; present in 6.12, absent in 6.1 dumps); else the default,
	 * exact only without KASLR. */
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

/* --keep-task's walk of a user address space: the lower half, below the
 * lowest kernel address; 4 KiB pages and PSE leaves of 2 MiB and 1 GiB. */
static void x86_64_user_layout(const struct arch_state *st, struct arch_user_layout *ul)
{
	ul->levels = st->levels;
	ul->page_shift = X86_64_PAGE_SHIFT;
	ul->level_bits = X86_64_PTRS_SHIFT;
	ul->end = 1ULL << (st->va_bits - 1);
	ul->root_mask = X86_64_PTE_PHYS_MASK;
}

static enum arch_entry x86_64_user_entry(const struct arch_state *st, unsigned l, uint64_t e,
					 uint64_t va, uint64_t *pa)
{
	(void)va;
	e &= ~st->pte_strip_mask;
	/* The kernel's pte_present() and pmd_present(): NUMA balancing
	 * (Linux 3.8 on; PROT_NONE entries since 4.0, "mm: convert
	 * p[te|md]_numa users to p[te|md]_protnone_numa") clears a mapped
	 * page's _PAGE_PRESENT for a hinting fault and sets _PAGE_PROTNONE
	 * (bit 8, _PAGE_GLOBAL, which no user entry sets otherwise and a
	 * swap entry keeps clear); a PMD being split keeps only _PAGE_PSE.
	 * Such an entry holds its pfn inverted (arch_x86_protnone_addr()).
	 * Lab case: numa4-5.10, whose workload had 2748 pages PROT_NONE at
	 * the crash (crash 8.0.2's vm -p gives their inverted addresses). */
	if (!(e & X86_64_PTE_PRESENT)) {
		if (!(l == 0 && (e & X86_64_PTE_PROTNONE)) &&
		    !(l == 1 && (e & (X86_64_PTE_PROTNONE | X86_64_PTE_PSE))))
			return ARCH_ENTRY_NONE;
		*pa = arch_x86_protnone_addr(e, X86_64_PTE_PHYS_MASK, st->max_physmem_bits);
	} else {
		*pa = e & X86_64_PTE_PHYS_MASK;
	}
	/* bit 7 of a PTE is PAT, and reserved in P4D and PGD */
	return l == 0 || ((l == 1 || l == 2) && (e & X86_64_PTE_PSE)) ? ARCH_ENTRY_LEAF
								       : ARCH_ENTRY_TABLE;
}

/* SECTION_SIZE_BITS is 27 on x86_64 (arch/x86/include/asm/sparsemem.h);
 * VMCOREINFO says so itself since 5.13 (kernel commit 4f5aecdff25f
 * "crash_core, vmcoreinfo: append 'SECTION_SIZE_BITS' to vmcoreinfo"). */
#define X86_64_SECTION_SIZE_BITS 27

static void x86_64_debuginfo_defaults(struct kinfo *ki, uint64_t text,
				      const struct arch_seg_hint *segs, size_t nsegs)
{
	if (!ki->num.SECTION_SIZE_BITS.set) {
		ki->num.SECTION_SIZE_BITS.v = X86_64_SECTION_SIZE_BITS;
		ki->num.SECTION_SIZE_BITS.set = true;
	}
	/* kexec-tools (and the kernel's own elfcorehdr) describe the image
	 * by one PT_LOAD whose p_vaddr is the running _text: KASLR's shift
	 * is its distance from the link-time _text. */
	for (size_t i = 0; !ki->kernel_offset.set && i < nsegs; i++) {
		uint64_t va = segs[i].vaddr;

		if (va - X86_64_START_KERNEL_MAP < X86_64_IMAGE_SIZE_MAX && va >= text &&
		    text - X86_64_START_KERNEL_MAP < X86_64_IMAGE_SIZE_MAX) {
			ki->kernel_offset.v = va - text;
			ki->kernel_offset.set = true;
		}
	}
}

/*
 * -e: the vmemmap's runs of physically contiguous 2 MiB pages, found the
 * way upstream's find_vmemmap_x86_64() finds them, so that the same pages
 * go: from the top-level entry of @vmemmap_start, every PUD entry of its
 * table in turn (from the first, whatever the start's own index), every
 * PMD of each present one, a PMD a 2 MiB step of the struct page array,
 * until the struct pages of @max_pfn.  A PMD entry that is not zero
 * continues the run when its page follows the run's last one; a zero entry
 * (a hole of the vmemmap) or a jump ends the run.  An entry without PSE (a
 * vmemmap of 4 KiB pages) is an error, as upstream's "vmemmap pmd not
 * huge".  4-level paging only: upstream indexes the top table by the
 * 4-level PGD index.
 */
struct x86_64_vgroups {
	struct arch_vmemmap_group *g;
	size_t n, cap;
};

static enum mdf_status x86_64_vgroup_add(struct x86_64_vgroups *v, uint64_t start_pa,
					 uint64_t last_pa, uint64_t off_start,
					 uint64_t off_end, uint64_t psize, struct mdf_err *err)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 16;
		struct arch_vmemmap_group *g = realloc(v->g, cap * sizeof(*g));

		if (!g)
			return mdf_err_set(err, MDF_ERR_NOMEM, "-e: out of memory");
		v->g = g;
		v->cap = cap;
	}
	v->g[v->n++] = (struct arch_vmemmap_group){
		.vmap_pfn_start = start_pa >> X86_64_PAGE_SHIFT,
		.vmap_pfn_end = last_pa >> X86_64_PAGE_SHIFT,
		.rep_start = off_start / psize,
		.rep_end = off_end / psize,
	};
	return MDF_OK;
}

#define X86_64_UPSTREAM_PMASK 0x7ffffffffffff000ULL
#define X86_64_HUGE (1ULL << 21)

static enum mdf_status x86_64_vmemmap_groups(const struct arch_state *st,
					     uint64_t vmemmap_start, uint64_t max_pfn,
					     uint64_t psize, arch_read_pte_fn rd, void *arg,
					     struct arch_vmemmap_group **ret, size_t *nret,
					     struct mdf_err *err)
{
	const uint64_t mask = X86_64_UPSTREAM_PMASK & ~st->pte_strip_mask;
	struct x86_64_vgroups v = { 0 };
	uint64_t pgd_e, off = 0, off_start = 0, off_end = 0;
	uint64_t pa = 0, start_pa = 0, last_pa = 0;
	bool first = true, last_valid = false, last_invalid = false, done = false;
	enum mdf_status s;

	if (!st->have_pgd)
		return mdf_err_set(err, MDF_ERR_NODATA, "-e: no page-table root to find the vmemmap");
	if (st->levels != 4)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "-e: the vmemmap walk knows 4-level paging; this kernel uses %u levels",
				   st->levels);
	if (!psize)
		return mdf_err_set(err, MDF_ERR_NODATA, "-e: no SIZE(page)");
	s = rd(arg, st->pgd_paddr + ((vmemmap_start >> 39) & 511) * 8, 8, &pgd_e, err);
	if (s != MDF_OK)
		return mdf_err_push(err, "-e: the vmemmap's PGD entry");
	pgd_e &= mask;
	for (unsigned pud = 0; pgd_e && pud < 512 && !done; pud++) {
		uint64_t pud_e;

		s = rd(arg, pgd_e + pud * 8, 8, &pud_e, err);
		if (s != MDF_OK)
			goto fail;
		pud_e &= mask;
		if (!pud_e)
			continue;
		for (unsigned pmd = 0; pmd < 512; pmd++) {
			uint64_t e;
			bool brk = false, in_valids = false;

			if (off / psize >= max_pfn) {
				done = true;
				break;
			}
			s = rd(arg, pud_e + pmd * 8, 8, &e, err);
			if (s != MDF_OK)
				goto fail;
			off_end += X86_64_HUGE;
			if (e) {
				pa = e & mask;
				if (first || last_invalid) {
					/* a run starts (the end of a hole is no
					 * break of its own) */
					if (last_invalid)
						brk = true;
					start_pa = pa;
					last_pa = pa - X86_64_HUGE;
					first = false;
				}
				last_valid = true;
				last_invalid = false;
				if (pa != last_pa + X86_64_HUGE)
					brk = in_valids = true;
				if (!(e & X86_64_PTE_PSE)) {
					s = mdf_err_set(err, MDF_ERR_NOTSUPP,
							"-e: the vmemmap at 0x%llx is mapped by 4 KiB pages (PMD entry 0x%llx without PSE); -e handles 2 MiB mappings",
							(unsigned long long)(vmemmap_start + off),
							(unsigned long long)e);
					goto fail;
				}
			} else {
				if (last_valid)
					brk = in_valids = true;
				last_valid = false;
				last_invalid = true;
			}
			if (brk) {
				if (in_valids) {
					s = x86_64_vgroup_add(&v, start_pa, last_pa, off_start,
							      off_end - X86_64_HUGE, psize, err);
					if (s != MDF_OK)
						goto fail;
				}
				off_start = off_end - X86_64_HUGE;
				start_pa = pa;
			}
			last_pa = pa;
			off += X86_64_HUGE;
		}
	}
	/* the last run, whatever ended the walk (upstream adds it even
	 * when the walk ended in a hole) */
	s = x86_64_vgroup_add(&v, start_pa, last_pa, off_start,
			      off_end >= X86_64_HUGE ? off_end - X86_64_HUGE : 0, psize, err);
	if (s != MDF_OK)
		goto fail;
	*ret = v.g;
	*nret = v.n;
	return MDF_OK;
fail:
	free(v.g);
	return s;
}

const struct arch_ops arch_x86_64_ops = {
	.name = "x86_64",
	.uts_machine = "x86_64",
	.e_machine = EM_X86_64,
	.init = x86_64_init,
	.walk = x86_64_walk,
	.user_layout = x86_64_user_layout,
	.user_entry = x86_64_user_entry,
	.debuginfo_defaults = x86_64_debuginfo_defaults,
	.vmemmap_groups = x86_64_vmemmap_groups,
};
