/*
 * vmemmap.h - -e: drop the pages of the struct page array that describe
 * only pages the dump leaves out.
 *
 * On a big machine the struct pages are 1.6 % of RAM (64 bytes per 4 KiB
 * page), and -d 31 keeps all of them.  -e finds, before anything is
 * written, the runs of memory that is there but excluded (bitmap1 all
 * ones, bitmap2 all zeros, in whole 64-pfn words, at least two words, in
 * blocks of 32768 pfns) and drops the vmemmap pages that hold only their
 * struct pages, as upstream's -e does (find_unused_vmemmap_pages()): the
 * same runs, the same pages.  The struct pages of every page kept stay,
 * so crash's `kmem -p` still works on them.
 *
 * The runs are found on the bitmaps of a whole first pass (cycle by
 * cycle: no bitmap file, upstream's --work-dir), the drops kept as merged
 * pfn ranges, and every later build of a cycle clears them.
 */
#ifndef MDF_VMEMMAP_H
#define MDF_VMEMMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "bitmap.h"
#include "error.h"

/** The blocks in which upstream looks for runs: 4096 bytes of bitmap. */
#define VMEMMAP_BLOCK_PFNS 32768

struct vmemmap_drop {
	struct arch_vmemmap_group *g;  /* the vmemmap's runs (arch op) */
	size_t ng;
	uint64_t page_struct_size, page_size;
	struct vmemmap_range { uint64_t pfn, n; } *r; /* pfns to drop, sorted */
	size_t nr, cap;
	uint64_t pages;                /* their sum, as upstream counts them */
};

/** Take @groups (owned from now on) of an architecture's vmemmap. */
void vmemmap_drop_init(struct vmemmap_drop *v, struct arch_vmemmap_group *groups,
		       size_t ngroups, uint64_t page_struct_size, uint64_t page_size);
void vmemmap_drop_release(struct vmemmap_drop *v);

/**
 * Look for runs in the bitmaps of one cycle [@present->start_pfn,
 * end_pfn), which starts on a multiple of VMEMMAP_BLOCK_PFNS, and add
 * the vmemmap pages they free.  Call once per cycle, in pfn order.
 */
enum mdf_status vmemmap_drop_find(struct vmemmap_drop *v, const struct bitmap *present,
				  const struct bitmap *dumpable,
				  struct mdf_err *err) MDF_MUST_CHECK;

/** After the last cycle: sort and merge the ranges (groups need not be in
 * physical order). */
void vmemmap_drop_finish(struct vmemmap_drop *v);

/** Clear the dropped pfns in @dumpable's window; returns how many were set. */
uint64_t vmemmap_drop_apply(const struct vmemmap_drop *v, struct bitmap *dumpable);

#endif
