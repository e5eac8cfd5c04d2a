/*
 * scan.h - the struct page scan of one cycle, split by pfn range across
 * worker threads.
 *
 * Reading the struct page array is what a TB-scale machine costs: 16 GiB
 * of struct pages per TiB of RAM.  A scan pool, made once per run, holds
 * N threads, each with its own cache over the input fd, its own readmem
 * and its own batch buffer (none of those is thread-safe).  scan_cycle()
 * cuts a cycle into at most N contiguous parts whose boundaries are
 * multiples of SCAN_ALIGN_PFNS and runs filter_cycle() on each part's
 * window of the cycle's bitmaps, in parallel.
 *
 * Why the result equals the serial filter_cycle() of the whole cycle:
 * buddy blocks and compound pages are naturally aligned to their order,
 * so an exclusion of order <= 18 starting inside a part never runs past
 * its end; each part therefore sees exactly the bits the serial scan
 * would.  Anything else (an exclusion running past the end of a part that
 * is not the last, be it the carry from the previous cycle or a garbage
 * order) is detected and reported as SCAN_REDO: the caller then rebuilds
 * the cycle's dumpable bitmap and scans it serially, so the output stays
 * byte-identical whatever the thread count.
 *
 * Every part but the first starts at a multiple of SCAN_ALIGN_PFNS and the
 * cycle at a multiple of 8, so every part's window begins on a byte of its
 * own: no two threads write the same byte of the dumpable bitmap.
 */
#ifndef MDF_SCAN_H
#define MDF_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"
#include "bitmap.h"
#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "filter/filter.h"
#include "kernel/memmap.h"

/* 1 GiB of 4 KiB pages: larger than any buddy or compound order in use. */
#define SCAN_ALIGN_SHIFT 18
#define SCAN_ALIGN_PFNS (UINT64_C(1) << SCAN_ALIGN_SHIFT)

struct scan_pool;

/* What each worker needs to read struct pages of an ELF input on its own. */
struct scan_config {
	unsigned nthreads;              /* 1 .. WORKERS_MAX_THREADS */
	int fd;                         /* the input, shared (pread/mmap only) */
	const char *name;               /* input file name for messages */
	const struct cache_config *cache; /* as the main cache's (NULL: defaults) */
	const struct elf_info *elf;     /* read-only while the pool lives */
	const struct input_ops *ops;    /* how it is read: the ELF's or
					   /proc/kcore's (NULL: the ELF's) */
	const struct arch_state *arch;  /* read-only; NULL: no translation */
	uint64_t page_size;
	uint64_t page_struct_size;      /* SIZE(page), 1 .. 4096 */
};

/**
 * Start @cfg->nthreads scan threads, each with its own cache over
 * @cfg->fd, readmem and FILTER_BATCH struct-page buffer.  *@cfg->cache is
 * copied; everything else @cfg points at must outlive the pool.  Errors: MDF_ERR_ARG (no threads,
 * bad struct page size), MDF_ERR_NOMEM, cache_init()'s, thread creation.
 */
enum mdf_status scan_pool_create(struct scan_pool **pool,
				 const struct scan_config *cfg,
				 struct mdf_err *err) MDF_MUST_CHECK;

/** Stop and join the threads, release their caches.  Safe on NULL. */
void scan_pool_destroy(struct scan_pool *pool);

/** Stop and join the threads now and add what their caches did (the
 *  munmap calls of their release included) to *@sum; the pool is only
 *  good for scan_pool_destroy() after this.  Safe on NULL. */
void scan_pool_stop(struct scan_pool *pool, struct cache_stats *sum);

/** Threads of the pool. */
unsigned scan_pool_threads(const struct scan_pool *pool);

/**
 * Plan the parts of the cycle [@start, @end) for @nparts workers: fills
 * @bounds[0 .. n] (bounds[0] = @start, bounds[n] = @end, every inner one a
 * multiple of SCAN_ALIGN_PFNS) and returns n.  n is at most @nparts and at
 * most the number of SCAN_ALIGN_PFNS-aligned chunks the cycle touches; 1
 * means "do not split".  @bounds holds @nparts + 1 entries.
 */
unsigned scan_plan(uint64_t start, uint64_t end, unsigned nparts,
		   uint64_t *bounds);

enum scan_result {
	SCAN_NOT_SPLIT, /* too small to split: nothing done, scan serially */
	SCAN_DONE,      /* dumpable, *carry and *counts updated */
	SCAN_REDO,      /* an exclusion crossed a part: dumpable is spoiled,
			   *carry and *counts untouched; rebuild and scan
			   serially */
};

/**
 * The parallel equivalent of filter_cycle(@r, @mm, ..., @present,
 * @dumpable, buf, @carry, @counts, @err) (see filter.h): same bits, same
 * counts added, same carry left for the next cycle, or SCAN_REDO in
 * *@result.  @r->scan must be set and @mm->model not MEMMAP_NONE.  @mm is
 * copied for each part (its section cache is per thread).  On a failure
 * the first error in pfn order is returned, as the serial scan would;
 * @dumpable is then undefined.  *@nparts_ret (may be NULL) gets the number
 * of parts scanned.
 */
enum mdf_status scan_cycle(struct scan_pool *pool, const struct filter_rules *r,
			   const struct memmap *mm, const struct bitmap *present,
			   struct bitmap *dumpable, struct filter_carry *carry,
			   struct filter_counts *counts, enum scan_result *result,
			   unsigned *nparts_ret, struct mdf_err *err) MDF_MUST_CHECK;

#endif
