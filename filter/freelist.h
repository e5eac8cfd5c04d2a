/*
 * freelist.h - free pages found by walking the kernel's buddy free lists.
 *
 * The usual way to find free pages (dump level bit 16) is the buddy marker
 * in each struct page (filter.c).  When VMCOREINFO gives no marker
 * (neither NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE) nor NUMBER(PG_buddy): kernels
 * before 2.6.17, or a VMCOREINFO that lost them), the free blocks can still
 * be found from the allocator's own bookkeeping:
 *
 *   for each node     SYMBOL(node_data)[LENGTH(node_data)] (NULL entries
 *                     skipped), or SYMBOL(contig_page_data) without NUMA
 *    for each zone    pglist_data.node_zones + i * SIZE(zone),
 *                     i < pglist_data.nr_zones (an int)
 *     for each order  zone.free_area + order * SIZE(free_area),
 *                     order < LENGTH(zone.free_area)
 *      for each type  free_area.free_list + type * SIZE(list_head),
 *                     type < LENGTH(free_area.free_list) (one list when
 *                     absent: kernels before 2.6.24 had no migrate types)
 *       the circular list_head chains the page.lru of the first struct
 *       page of each free block of 2^order pages.
 *
 * Ancient kernels (before 2.6.17) that list nodes in SYMBOL(pgdat_list)
 * are not handled: MDF_ERR_NOTSUPP.
 *
 * The lists live in a crashed kernel and may be caught in the middle of an
 * update, or be corrupt.  Every element is checked: its prev pointer must
 * point back at the element before it, its struct page must be a struct
 * page of a pfn below max_pfn, aligned to its order; a list that comes
 * back on itself, or holds more pages than its zone spans, is reported as
 * a loop.  Any such problem fails the whole walk: a free-page exclusion
 * from half a list would be a guess.  The caller then keeps the free pages
 * (and warns) rather than failing the dump; freelist_collect() only
 * reports, it decides nothing.
 *
 * Pages on the per-cpu page lists (pcp) are not on the buddy free lists
 * and are not found here; the buddy marker does not flag them either.
 */
#ifndef MDF_FREELIST_H
#define MDF_FREELIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitmap.h"
#include "error.h"
#include "kinfo.h"
#include "kernel/memmap.h"
#include "filter/pfnset.h"
#include "readmem.h"

/** What freelist_collect() found. */
struct freelist_result {
	struct pfn_set free;   /* the free pfns, compacted */
	uint64_t blocks;       /* list elements (free blocks) visited */
	unsigned nodes;        /* pglist_data walked */
	unsigned zones;        /* zones walked (zones spanning no pages skipped) */
	/* The zones' own free-page counters summed: zone.vm_stat[NR_FREE_PAGES]
	 * (2.6.21 and later) or zone.free_pages (older).  They are updated
	 * without the zone lock and include no per-cpu pages, so they may
	 * differ a little from @pages: a debug line, and the check that a
	 * run did not exclude far more pages as free (dump.c). */
	uint64_t counter_pages;
	bool have_counter;
};

/**
 * Walk every free list of the crashed kernel and collect the free pfns.
 *
 * @ki supplies the layout (see the top of this file for the entries used;
 * OFFSET(list_head.prev) enables the back-pointer check and is expected,
 * OFFSET(zone.spanned_pages) bounds each zone's lists and lets empty zones
 * be skipped).  Struct page addresses are turned into pfns by:
 *   - @vmemmap_base when not 0: pfn = (vaddr - vmemmap_base) / SIZE(page);
 *   - else @mm: a SPARSEMEM model reads the mem_section tables once and
 *     inverts each present section's mem_map (a VMEMMAP kernel's sections
 *     all share one base, so this is a handful of ranges), MEMMAP_VMEMMAP
 *     uses mm->base.  Other models: MDF_ERR_NOTSUPP.
 * @mm may be used for reads (it caches the last section looked up), and is
 * not otherwise changed.  @max_pfn bounds the pfns accepted.
 *
 * On success *@ret holds the sorted, merged free ranges (release with
 * freelist_result_release()).  On failure *@ret is empty (nothing to
 * release) and @err says why, with the node, zone, order and migrate type
 * in front ("free lists: node 0 zone 2 order 3 migrate type 1 (list head
 * 0x...): ..."):
 *   MDF_ERR_NOTSUPP  VMCOREINFO lacks an entry the walk needs;
 *   MDF_ERR_FORMAT   a corrupt list ("the free list is broken: ...",
 *                    "the free list loops: ...", an element that is no
 *                    struct page, nr_zones out of range);
 *   MDF_ERR_NODATA   an address not in the dump or not mapped;
 *   MDF_ERR_IO       a read error on the input;
 *   MDF_ERR_NOMEM    out of memory.
 * All of these mean "free pages could not be identified": the caller
 * should keep them and warn, except perhaps MDF_ERR_NOMEM / MDF_ERR_IO.
 */
enum mdf_status freelist_collect(const struct kinfo *ki, struct readmem *rm,
				 struct memmap *mm, uint64_t vmemmap_base,
				 uint64_t max_pfn, struct freelist_result *ret,
				 struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The kernel's own count of its free pages, read from the dump: the sum
 * over every node's zones of zone.vm_stat[NR_FREE_PAGES] (2.6.21 on) or
 * zone.free_pages (before), as @ret->counter_pages (with @ret->nodes and
 * @ret->zones, the zones that span pages); no list is walked.  The counter
 * is updated without the zone lock, per-cpu deltas (up to the vmstat
 * threshold, 125 pages per cpu and zone) are not folded in, and pages on
 * the per-cpu lists are counted neither there nor as buddy pages: it
 * differs from what the buddy marker finds by that much.
 * Errors as freelist_collect()'s (MDF_ERR_NOTSUPP: VMCOREINFO lacks
 * SIZE(zone), the node or zone offsets or the counter's), and MDF_ERR_NODATA
 * when no zone spans a page; @ret then is zero.
 */
enum mdf_status freelist_count_free(const struct kinfo *ki, struct readmem *rm,
				    uint64_t max_pfn, struct freelist_result *ret,
				    struct mdf_err *err) MDF_MUST_CHECK;

/** Free the ranges and zero @r.  Safe on a zeroed result and twice. */
void freelist_result_release(struct freelist_result *r);

/**
 * Clear the free pfns that fall in the window of @dumpable; returns how
 * many bits were set before (pages this exclusion really removed, so pfns
 * that were already excluded or not present are not counted).
 */
uint64_t freelist_apply(const struct freelist_result *r,
			struct bitmap *dumpable);

/** True if @pfn is in one of the free ranges (binary search). */
bool freelist_contains(const struct freelist_result *r, uint64_t pfn);

#endif
