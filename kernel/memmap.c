/*
 * memmap.c - locate struct pages.
 */
#include "kernel/memmap.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

/* section_mem_map flag bits live below bit 6 in every kernel so far
 * (SECTION_MARKED_PRESENT .. SECTION_TAINT_ZONE_DEVICE, 5.12, and the later
 * SECTION_IS_VMEMMAP_PREINIT, bit 5 at most); the mem_map pointer they
 * share the word with is at least 64-byte aligned. */
#define SECTION_HAS_MEM_MAP 0x2ULL
#define SECTION_IS_ONLINE 0x4ULL
#define SECTION_MAP_MASK (~0x3fULL)

const char *memmap_model_name(enum memmap_model m)
{
	switch (m) {
	case MEMMAP_SPARSE: return "SPARSEMEM";
	case MEMMAP_SPARSE_EXTREME: return "SPARSEMEM_EX";
	case MEMMAP_VMEMMAP: return "VMEMMAP";
	case MEMMAP_FLAT: return "FLATMEM";
	case MEMMAP_NONE: break;
	}
	return "none";
}

/* SYMBOL(mem_section) without what reading the sections takes: name the
 * keys that are missing (it said the symbol was). */
static enum mdf_status sparse_missing(const struct kinfo *ki, struct mdf_err *err)
{
	const struct {
		bool set;
		const char *key;
	} need[] = {
		{ ki->size.mem_section.set, "SIZE(mem_section)" },
		{ ki->off.mem_section_section_mem_map.set, "OFFSET(mem_section.section_mem_map)" },
		{ ki->num.SECTION_SIZE_BITS.set, "NUMBER(SECTION_SIZE_BITS)" },
	};
	char list[160] = "";
	size_t n = 0;

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (need[i].set)
			continue;
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
				      n ? ", " : "", need[i].key);
		if (n >= sizeof(list))
			n = sizeof(list) - 1;
	}
	return mdf_err_set(err, MDF_ERR_NOTSUPP,
			   "cannot find struct pages: VMCOREINFO has SYMBOL(mem_section) "
			   "but no %s", list);
}

enum mdf_status memmap_init(struct memmap *mm, const struct kinfo *ki,
			    uint64_t page_size, uint64_t max_pfn,
			    struct mdf_err *err)
{
	unsigned page_shift = (unsigned)__builtin_ctzll(page_size);

	memset(mm, 0, sizeof(*mm));
	mm->max_pfn = max_pfn;
	if (!ki->size.page.set || ki->size.page.v == 0 || ki->size.page.v > 4096)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "VMCOREINFO has no usable SIZE(page)");
	mm->page_struct_size = ki->size.page.v;
	mm->word_size = kinfo_word_size(ki);

	if (ki->sym.mem_section.set && ki->num.SECTION_SIZE_BITS.set &&
	    ki->size.mem_section.set && ki->off.mem_section_section_mem_map.set) {
		int64_t ssb = ki->num.SECTION_SIZE_BITS.v;

		if (ssb <= (int64_t)page_shift || ssb > 63)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "VMCOREINFO: bad NUMBER(SECTION_SIZE_BITS)=%lld",
					   (long long)ssb);
		mm->pfn_section_shift = (unsigned)ssb - page_shift;
		mm->mem_section = ki->sym.mem_section.v;
		mm->ms_size = ki->size.mem_section.v;
		mm->off_map = ki->off.mem_section_section_mem_map.v;
		/* section_mem_map is an unsigned long: 4 bytes on i386 */
		if (mm->ms_size < mm->word_size || mm->ms_size > page_size ||
		    mm->ms_size % mm->word_size)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "VMCOREINFO: bad SIZE(mem_section)=%llu",
					   (unsigned long long)mm->ms_size);
		if (mm->off_map % mm->word_size || mm->off_map > mm->ms_size - mm->word_size)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "VMCOREINFO: OFFSET(mem_section.section_mem_map)=%llu "
					   "does not fit SIZE(mem_section)=%llu",
					   (unsigned long long)mm->off_map,
					   (unsigned long long)mm->ms_size);
		/* SPARSEMEM_EXTREME (kernel commit 3e347261a80b, 2005; 2.6.14
		 * by its date): mem_section is an array of
		 * LENGTH(mem_section) pointers to pages of sections.  Its
		 * length is then NR_SECTION_ROOTS; otherwise the array holds
		 * the sections themselves. */
		mm->per_root = page_size / mm->ms_size;
		if (ki->len.mem_section.set && ki->num.MAX_PHYSMEM_BITS.set &&
		    ki->num.MAX_PHYSMEM_BITS.v > ssb && ki->num.MAX_PHYSMEM_BITS.v < 64) {
			uint64_t nr_sections = 1ULL << (ki->num.MAX_PHYSMEM_BITS.v - ssb);
			uint64_t roots = div_round_up(nr_sections, mm->per_root);

			mm->nr_roots = ki->len.mem_section.v;
			mm->model = mm->nr_roots == roots ? MEMMAP_SPARSE_EXTREME
							  : MEMMAP_SPARSE;
		} else if (ki->len.mem_section.set) {
			mm->nr_roots = ki->len.mem_section.v;
			mm->model = MEMMAP_SPARSE_EXTREME;
		} else {
			return mdf_err_set(err, MDF_ERR_NOTSUPP,
					   "VMCOREINFO has SYMBOL(mem_section) but no LENGTH(mem_section)");
		}
		if (mm->model == MEMMAP_SPARSE) {
			mm->per_root = 1;
		}
		return MDF_OK;
	}
	if (ki->sym.vmemmap.set) {
		mm->model = MEMMAP_VMEMMAP;
		mm->base = ki->sym.vmemmap.v;
		mm->pfn_section_shift = 15;
		return MDF_OK;
	}
	/* FLATMEM (Debian's i386 kernels, 686 and 686-pae: CONFIG_FLATMEM=y):
	 * SYMBOL(mem_map) is the variable, a pointer to the one array of
	 * struct pages, read at the first lookup.  The array starts at
	 * ARCH_PFN_OFFSET, 0 on x86 (kernel.c sets it from the arch: arm's
	 * is PHYS_OFFSET's pfn). */
	if (ki->sym.mem_map.set) {
		mm->model = MEMMAP_FLAT;
		mm->mem_map_var = ki->sym.mem_map.v;
		mm->pfn_section_shift = 15;
		return MDF_OK;
	}
	if (ki->sym.mem_section.set)
		return sparse_missing(ki, err);
	return mdf_err_set(err, MDF_ERR_NOTSUPP,
			   "cannot find struct pages: VMCOREINFO has neither "
			   "SYMBOL(mem_section) nor SYMBOL(vmemmap) nor SYMBOL(mem_map)");
}

static enum mdf_status section_map(struct memmap *mm, struct readmem *rm,
				   uint64_t nr, uint64_t *map_ret,
				   bool *present_ret, bool *online_ret, struct mdf_err *err)
{
	uint64_t root_idx = nr / mm->per_root, ms, map;
	enum mdf_status st;

	*present_ret = false;
	*online_ret = false;
	if (root_idx >= mm->nr_roots)
		return MDF_OK;
	if (mm->model == MEMMAP_SPARSE_EXTREME) {
		uint64_t root;

		st = readmem_ulong(rm, mm->mem_section + root_idx * mm->word_size, &root, err);
		if (st != MDF_OK)
			return mdf_err_push(err, "mem_section root %llu",
					    (unsigned long long)root_idx);
		if (!root)
			return MDF_OK;
		ms = root + (nr % mm->per_root) * mm->ms_size;
	} else {
		ms = mm->mem_section + nr * mm->ms_size;
	}
	st = readmem_ulong(rm, ms + mm->off_map, &map, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "mem_section %llu",
				    (unsigned long long)nr);
	*online_ret = map & SECTION_IS_ONLINE;
	if (!(map & SECTION_HAS_MEM_MAP) || !(map & SECTION_MAP_MASK))
		return MDF_OK;
	/* The kernel stores mem_map minus the section's first pfn, in struct
	 * page units: struct page of pfn N is at (map & mask) + N * size. */
	*map_ret = map & SECTION_MAP_MASK;
	*present_ret = true;
	return MDF_OK;
}

/* Section @nr into the one-section cache, unless it is there. */
static enum mdf_status section_cached(struct memmap *mm, struct readmem *rm, uint64_t nr,
				      struct mdf_err *err)
{
	/* Into locals first: a failed read must not clobber the section
	 * still cached (its pages would read as unmapped). */
	uint64_t map = 0;
	bool present, online;
	enum mdf_status st;

	if (mm->cached_valid && mm->cached_section == nr)
		return MDF_OK;
	st = section_map(mm, rm, nr, &map, &present, &online, err);
	if (st != MDF_OK)
		return st;
	mm->cached_section = nr;
	mm->cached_map = map;
	mm->cached_present = present;
	mm->cached_online = online;
	mm->cached_valid = true;
	return MDF_OK;
}

enum mdf_status memmap_page_vaddr(struct memmap *mm, struct readmem *rm,
				  uint64_t pfn, uint64_t *vaddr_ret,
				  bool *present_ret, struct mdf_err *err)
{
	uint64_t nr;
	enum mdf_status st;

	switch (mm->model) {
	case MEMMAP_VMEMMAP:
		*vaddr_ret = mm->base + pfn * mm->page_struct_size;
		*present_ret = true;
		return MDF_OK;
	case MEMMAP_FLAT:
		*present_ret = false;
		if (!mm->base) {
			uint64_t base;

			st = readmem_ulong(rm, mm->mem_map_var, &base, err);
			if (st != MDF_OK)
				return mdf_err_push(err, "mem_map (FLATMEM) at 0x%llx",
						    (unsigned long long)mm->mem_map_var);
			if (!base)
				return mdf_err_set(err, MDF_ERR_FORMAT,
						   "mem_map (FLATMEM) at 0x%llx is NULL",
						   (unsigned long long)mm->mem_map_var);
			mm->base = base;
		}
		if (pfn >= mm->max_pfn || pfn < mm->pfn_offset)
			return MDF_OK;
		*vaddr_ret = mm->base + (pfn - mm->pfn_offset) * mm->page_struct_size;
		*present_ret = true;
		return MDF_OK;
	case MEMMAP_NONE:
		*present_ret = false;
		return MDF_OK;
	case MEMMAP_SPARSE:
	case MEMMAP_SPARSE_EXTREME:
		break;
	}
	nr = pfn >> mm->pfn_section_shift;
	st = section_cached(mm, rm, nr, err);
	if (st != MDF_OK)
		return st;
	*present_ret = mm->cached_present;
	*vaddr_ret = mm->cached_map + pfn * mm->page_struct_size;
	return MDF_OK;
}

enum mdf_status memmap_section_online(struct memmap *mm, struct readmem *rm, uint64_t pfn,
				      bool *online_ret, struct mdf_err *err)
{
	enum mdf_status st;

	*online_ret = true;
	if (!mm->mem_section || (mm->model != MEMMAP_SPARSE && mm->model != MEMMAP_SPARSE_EXTREME))
		return MDF_OK;
	st = section_cached(mm, rm, pfn >> mm->pfn_section_shift, err);
	if (st != MDF_OK)
		return st;
	*online_ret = mm->cached_online;
	return MDF_OK;
}
