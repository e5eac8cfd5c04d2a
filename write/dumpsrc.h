/*
 * dumpsrc.h - what a dump writer sees of the run: the pfn space in cycles
 * and the bytes of each page.  dump.c implements it (filtering each cycle
 * on demand); kdump_write.c and elf_write.c consume it, so writers never
 * touch the filter, the cache or the input format.
 *
 * Writers walk the cycles in order, possibly twice (a first pass to count,
 * a second to write); every pass over a cycle yields the same bitmaps.
 */
#ifndef MDF_DUMPSRC_H
#define MDF_DUMPSRC_H

#include <stdbool.h>
#include <stdint.h>

#include "bitmap.h"
#include "error.h"

struct dump_source {
	void *arg;
	uint64_t page_size;
	uint64_t max_pfn;       /* pfns 0 .. max_pfn-1 */
	uint64_t cycle_pfns;    /* cycles are [k*cycle_pfns, (k+1)*cycle_pfns) */
	/**
	 * Build the bitmaps of the cycle starting at @start: *@present is
	 * bitmap1 (pfn backed by the input), *@dumpable bitmap2.  With
	 * @drop_zero, zero pages are cleared from *@dumpable too (ELF output
	 * has no shared zero page).  Pointers stay valid until the next call.
	 */
	enum mdf_status (*cycle)(void *arg, uint64_t start, bool drop_zero,
				 const struct bitmap **present,
				 const struct bitmap **dumpable,
				 struct mdf_err *err);
	/**
	 * The bytes of page @pfn (page_size of them), valid until the next
	 * call of page() or cycle().
	 */
	enum mdf_status (*page)(void *arg, uint64_t pfn,
				const unsigned char **data,
				struct mdf_err *err);
	/**
	 * Optional, for writers that hold many pages at once (worker
	 * threads compress them while this thread reads on): like page(),
	 * and when *@ref comes back non-NULL the bytes stay valid, with no
	 * copy, until page_release(@ref) (which must come before the next
	 * cycle() call).  *@ref NULL: valid until the next call, as page().
	 * Only the calling thread calls page_ref() and page_release(); other
	 * threads may read the bytes in between.
	 */
	enum mdf_status (*page_ref)(void *arg, uint64_t pfn,
				    const unsigned char **data, void **ref,
				    struct mdf_err *err);
	void (*page_release)(void *arg, uint64_t pfn, void *ref);
	/**
	 * Optional: the writer will call page() about @pages times (ELF
	 * output also reads the short excluded runs it keeps), for progress.
	 */
	void (*expect_pages)(void *arg, uint64_t pages);
};

#endif
