/*
 * bitmap.h - pfn sets for one cycle: a window [start_pfn, end_pfn) of the
 * pfn space with one bit per pfn, LSB first within each byte, as the
 * kdump-compressed format stores them.
 *
 * Two of these drive a run: "present" (bitmap1: pfn backed by a PT_LOAD)
 * and "dumpable" (bitmap2).  Work proceeds in cycles so that memory stays
 * bounded whatever the size of the machine: the window moves, the buffer
 * does not grow.  start_pfn of every cycle is a multiple of 8, so the
 * bytes of a window are exactly the bytes of the whole-machine bitmap at
 * offset start_pfn / 8.
 */
#ifndef MDF_BITMAP_H
#define MDF_BITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct bitmap {
	uint64_t start_pfn, end_pfn; /* current window */
	uint64_t cap_pfns;           /* capacity (multiple of 64) */
	uint8_t *bits;               /* cap_pfns / 8 bytes */
};

/** Allocate room for @cap_pfns pfns (rounded up to 64). */
enum mdf_status bitmap_init(struct bitmap *b, uint64_t cap_pfns,
			    struct mdf_err *err) MDF_MUST_CHECK;
void bitmap_release(struct bitmap *b);

/** Move the window to [start, end) (start % 8 == 0, end - start <= cap)
 *  and clear it. */
void bitmap_reset(struct bitmap *b, uint64_t start, uint64_t end);

/** Copy window and bits of @src into @dst (same capacity or larger). */
void bitmap_copy(struct bitmap *dst, const struct bitmap *src);

static inline bool bitmap_in(const struct bitmap *b, uint64_t pfn)
{
	return pfn >= b->start_pfn && pfn < b->end_pfn;
}

static inline bool bitmap_test(const struct bitmap *b, uint64_t pfn)
{
	uint64_t i = pfn - b->start_pfn;

	return bitmap_in(b, pfn) && (b->bits[i >> 3] >> (i & 7)) & 1;
}

static inline void bitmap_set(struct bitmap *b, uint64_t pfn)
{
	uint64_t i = pfn - b->start_pfn;

	b->bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static inline void bitmap_clear(struct bitmap *b, uint64_t pfn)
{
	uint64_t i = pfn - b->start_pfn;

	b->bits[i >> 3] &= (uint8_t)~(1u << (i & 7));
}

/** Set [start, end), clipped to the window. */
void bitmap_set_range(struct bitmap *b, uint64_t start, uint64_t end);

/** Clear [start, end) clipped to the window; returns how many bits were
 *  set before (the pages this exclusion really removed). */
uint64_t bitmap_clear_range(struct bitmap *b, uint64_t start, uint64_t end);

/** Number of set bits in [start, end) clipped to the window. */
uint64_t bitmap_count(const struct bitmap *b, uint64_t start, uint64_t end);

/** First set pfn >= @from in the window, or end_pfn if none. */
uint64_t bitmap_next_set(const struct bitmap *b, uint64_t from);

/** Bytes of the window as stored in a dump: (end - start + 7) / 8. */
static inline size_t bitmap_bytes(const struct bitmap *b)
{
	return (size_t)((b->end_pfn - b->start_pfn + 7) / 8);
}

/**
 * Plan cycles: how many pfns one cycle covers, given a memory budget in
 * bytes for @nbitmaps bitmaps and the total pfn count.  The result is a
 * multiple of 4096 pfns (so a cycle covers whole 512-entry struct page
 * batches and whole bytes), at least 4096, at most @total_pfns rounded up.
 */
uint64_t bitmap_cycle_pfns(uint64_t budget_bytes, unsigned nbitmaps,
			   uint64_t total_pfns);

#endif
