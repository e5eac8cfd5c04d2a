/*
 * pfnset.h - a set of pfns kept as sorted runs [start, end).
 *
 * The free pages the buddy lists give (freelist.c) and the pages
 * --keep-task keeps (keeptask.c) are both built by appending runs, mostly
 * in address order, and then asked, one pfn or window at a time during
 * the scan, whether they hold it.
 */
#ifndef MDF_FILTER_PFNSET_H
#define MDF_FILTER_PFNSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/** A run of pfns [start, end). */
struct pfn_range {
	uint64_t start, end;
};

struct pfn_set {
	struct pfn_range *r; /* after pfn_set_compact(): sorted by start,
				disjoint and not adjacent */
	size_t n, cap;
	uint64_t pages;      /* pfns in all runs, after pfn_set_compact() */
};

/**
 * Add [@start, @end).  A run that continues the last one, upwards or
 * downwards, extends it; when the array is full and long, it is
 * compacted before it grows, so memory follows the number of runs, not
 * of additions.  @what names the set in the out-of-memory error.
 */
enum mdf_status pfn_set_add(struct pfn_set *s, uint64_t start, uint64_t end,
			    const char *what, struct mdf_err *err) MDF_MUST_CHECK;

/** Sort, merge overlapping and touching runs, count the pages. */
void pfn_set_compact(struct pfn_set *s);

/** The index of the first run that ends after @pfn (s->n when none);
 *  the set must be compacted. */
size_t pfn_set_first_after(const struct pfn_set *s, uint64_t pfn);

/** Whether any pfn of [@pfn, @pfn + @npfn) is in the (compacted) set. */
bool pfn_set_overlaps(const struct pfn_set *s, uint64_t pfn, uint64_t npfn);

/** Free the runs and zero @s.  Safe on a zeroed set and twice. */
void pfn_set_release(struct pfn_set *s);

#endif
