/*
 * memmap.h - where the struct page of pfn N lives.
 *
 * Memory models: SPARSEMEM and SPARSEMEM_EXTREME (mem_section tables, with
 * the mem_map pointer encoded in section_mem_map), which also covers
 * SPARSEMEM_VMEMMAP kernels since they fill mem_section the same way, and
 * plain VMEMMAP (SYMBOL(vmemmap)) as a fallback when mem_section is
 * missing.  FLATMEM (SYMBOL(mem_map)) is recognised too.
 *
 * memmap decides no policy: it finds and reads struct pages.
 */
#ifndef MDF_MEMMAP_H
#define MDF_MEMMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kinfo.h"
#include "readmem.h"

enum memmap_model { MEMMAP_NONE, MEMMAP_SPARSE, MEMMAP_SPARSE_EXTREME,
		    MEMMAP_VMEMMAP, MEMMAP_FLAT };

struct memmap {
	enum memmap_model model;
	uint64_t page_struct_size;   /* SIZE(page) */
	uint64_t max_pfn;
	unsigned pfn_section_shift;  /* SECTION_SIZE_BITS - PAGE_SHIFT */
	uint64_t mem_section;        /* SYMBOL(mem_section) */
	uint64_t nr_roots;           /* LENGTH(mem_section) */
	uint64_t per_root;           /* sections per root (EXTREME) */
	uint64_t ms_size;            /* SIZE(mem_section) */
	uint64_t off_map;            /* OFFSET(mem_section.section_mem_map) */
	uint64_t base;               /* VMEMMAP: struct page of pfn 0; FLAT:
				      * of pfn_offset
				      * (FLAT: read from mem_map_var at the
				      * first lookup; 0 until then) */
	uint64_t mem_map_var;        /* FLAT: SYMBOL(mem_map), the pointer */
	uint64_t pfn_offset;         /* FLAT: the pfn of the array's first
				      * struct page (ARCH_PFN_OFFSET: 0, or
				      * PHYS_OFFSET's pfn on arm) */
	unsigned word_size;          /* the kernel's unsigned long: 4 or 8 */
	/* last section looked up */
	uint64_t cached_section;
	uint64_t cached_map;
	bool cached_valid, cached_present, cached_online;
};

const char *memmap_model_name(enum memmap_model m);

/** Pick the model from VMCOREINFO.  MDF_ERR_NOTSUPP when nothing fits. */
enum mdf_status memmap_init(struct memmap *mm, const struct kinfo *ki,
			    uint64_t page_size, uint64_t max_pfn,
			    struct mdf_err *err) MDF_MUST_CHECK;

/** Pfns per section (the unit in which mem_map may be absent). */
static inline uint64_t memmap_section_pfns(const struct memmap *mm)
{
	return 1ULL << mm->pfn_section_shift;
}

/**
 * Virtual address of the struct page of @pfn in *@vaddr_ret, or
 * *@present_ret = false when its section has no mem_map.
 */
enum mdf_status memmap_page_vaddr(struct memmap *mm, struct readmem *rm,
				  uint64_t pfn, uint64_t *vaddr_ret,
				  bool *present_ret,
				  struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Whether the section of @pfn is online (SECTION_IS_ONLINE, bit 2 of
 * section_mem_map, since Linux 4.13's "mm: consider zone which is not
 * fully populated to have holes": pfn_to_online_page(), where
 * /proc/kpageflags says nopage of a pfn of an offline section), in
 * *@online_ret; true where the model has no sections (FLATMEM).  The
 * caller knows whether the kernel is new enough for the bit.
 */
enum mdf_status memmap_section_online(struct memmap *mm, struct readmem *rm, uint64_t pfn,
				      bool *online_ret, struct mdf_err *err) MDF_MUST_CHECK;

#endif
