/*
 * scan.c - the struct page scan of a cycle, in parallel by pfn range.
 */
#include "filter/scan.h"

#include <stdlib.h>
#include <string.h>

#include "readmem.h"
#include "util.h"
#include "workers.h"

/* A worker's private reading state: nothing here is shared. */
struct scan_worker {
	struct cache cache;
	struct readmem rm;
	unsigned char *buf;      /* FILTER_BATCH struct pages */
};

/* One part of a cycle: windows into the cycle's bitmaps, and results. */
struct scan_job {
	const struct filter_rules *rules;
	struct memmap mm;        /* the part's own copy (section cache) */
	struct bitmap present;   /* views: bits point into the cycle's */
	struct bitmap dumpable;
	struct filter_carry carry;
	struct filter_counts counts;
};

struct scan_pool {
	struct scan_config cfg;
	struct cache_config cache_cfg; /* cfg.cache points here, or is NULL */
	struct workers *workers;
	struct scan_job *jobs;   /* cfg.nthreads of them */
	struct cache_stats stats; /* of the workers' caches, once released */
	uint64_t *bounds;        /* cfg.nthreads + 1 */
};

static enum mdf_status worker_init(void *arg, unsigned idx, void **state,
				   struct mdf_err *err)
{
	struct scan_pool *pool = arg;
	const struct scan_config *cfg = &pool->cfg;
	struct scan_worker *w = calloc(1, sizeof(*w));
	enum mdf_status st;

	*state = NULL;
	if (!w)
		return mdf_err_set(err, MDF_ERR_NOMEM, "scan: out of memory");
	w->buf = malloc((size_t)(FILTER_BATCH * cfg->page_struct_size));
	if (!w->buf) {
		free(w);
		return mdf_err_set(err, MDF_ERR_NOMEM,
				   "scan: out of memory for a struct page batch");
	}
	st = cache_init(&w->cache, cfg->fd, cfg->name, cfg->cache, err);
	if (st != MDF_OK) {
		free(w->buf);
		free(w);
		return st;
	}
	/* The ops only read the elf_info. */
	readmem_init_input(&w->rm, cfg->ops ? cfg->ops : &elf_input_ops,
			   (void *)(uintptr_t)cfg->elf, &w->cache, cfg->arch,
			   cfg->page_size);
	(void)idx;
	*state = w;
	return MDF_OK;
}

static void worker_fini(void *arg, unsigned idx, void *state)
{
	struct scan_worker *w = state;
	struct scan_pool *pool = arg;

	(void)idx;
	if (!w)
		return;
	readmem_retire_flush(&w->rm);
	cache_release(&w->cache);
	cache_stats_add(&pool->stats, &w->cache.stats);
	free(w->buf);
	free(w);
}

static enum mdf_status worker_process(void *job_arg, void *state,
				      struct mdf_err *err)
{
	struct scan_job *job = job_arg;
	struct scan_worker *w = state;
	enum mdf_status st;

	st = filter_cycle(job->rules, &job->mm, &w->rm, &job->present,
			  &job->dumpable, w->buf, &job->carry, &job->counts, err);
	/* The part is done: let its input bytes go from this mapping, and
	 * its windows go back to the budget the writer maps from. */
	readmem_retire_flush(&w->rm);
	cache_trim(&w->cache);
	return st;
}

static void pool_free(struct scan_pool *pool)
{
	workers_destroy(pool->workers);
	free(pool->jobs);
	free(pool->bounds);
	free(pool);
}

/* The scan threads' ops (read-only: .data.rel.ro). */
static const struct workers_ops scan_workers_ops = {
	.init = worker_init,
	.fini = worker_fini,
	.process = worker_process,
};

enum mdf_status scan_pool_create(struct scan_pool **poolp,
				 const struct scan_config *cfg,
				 struct mdf_err *err)
{
	struct scan_pool *pool;
	unsigned n = cfg->nthreads;
	enum mdf_status st;

	*poolp = NULL;
	if (n == 0 || n > WORKERS_MAX_THREADS)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "scan: %u threads asked for, 1 to %u allowed",
				   n, WORKERS_MAX_THREADS);
	if (cfg->page_struct_size == 0 || cfg->page_struct_size > 4096)
		return mdf_err_set(err, MDF_ERR_ARG, "scan: bad struct page size %llu",
				   (unsigned long long)cfg->page_struct_size);
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return mdf_err_set(err, MDF_ERR_NOMEM, "scan: out of memory");
	pool->cfg = *cfg;
	if (cfg->cache) {
		pool->cache_cfg = *cfg->cache;
		pool->cfg.cache = &pool->cache_cfg;
	}
	pool->jobs = calloc(n, sizeof(*pool->jobs));
	pool->bounds = calloc((size_t)n + 1, sizeof(*pool->bounds));
	if (!pool->jobs || !pool->bounds) {
		pool_free(pool);
		return mdf_err_set(err, MDF_ERR_NOMEM, "scan: out of memory");
	}
	st = workers_create(&pool->workers, n, n, &scan_workers_ops, pool, err);
	if (st != MDF_OK) {
		pool_free(pool);
		return mdf_err_push(err, "cannot start %u scan threads", n);
	}
	*poolp = pool;
	return MDF_OK;
}

void scan_pool_stop(struct scan_pool *pool, struct cache_stats *sum)
{
	if (!pool)
		return;
	workers_destroy(pool->workers); /* joins; worker_fini adds stats */
	pool->workers = NULL;
	cache_stats_add(sum, &pool->stats);
	memset(&pool->stats, 0, sizeof(pool->stats));
}

void scan_pool_destroy(struct scan_pool *pool)
{
	if (pool)
		pool_free(pool);
}

unsigned scan_pool_threads(const struct scan_pool *pool)
{
	return pool ? pool->cfg.nthreads : 0;
}

unsigned scan_plan(uint64_t start, uint64_t end, unsigned nparts,
		   uint64_t *bounds)
{
	uint64_t len = end > start ? end - start : 0;
	uint64_t chunks = len ? (align_up(end, SCAN_ALIGN_PFNS) -
				 align_down(start, SCAN_ALIGN_PFNS)) >> SCAN_ALIGN_SHIFT : 0;
	unsigned n = 1;

	bounds[0] = start;
	if (nparts > chunks)
		nparts = (unsigned)chunks;
	/* Inner boundaries: the aligned pfn nearest to an even share, each
	 * past the one before; fewer parts if they run out of room. */
	for (unsigned i = 1; i < nparts; i++) {
		uint64_t b = start + len / nparts * i + len % nparts * i / nparts;

		b = align_down(b + SCAN_ALIGN_PFNS / 2, SCAN_ALIGN_PFNS);
		if (b <= bounds[n - 1])
			b = align_down(bounds[n - 1], SCAN_ALIGN_PFNS) + SCAN_ALIGN_PFNS;
		if (b >= end)
			break;
		bounds[n++] = b;
	}
	bounds[n] = end;
	return n;
}

/* A window of @b covering [s, e): s - b->start_pfn is a multiple of 8. */
static void view(struct bitmap *v, const struct bitmap *b, uint64_t s, uint64_t e)
{
	v->start_pfn = s;
	v->end_pfn = e;
	v->cap_pfns = e - s;
	v->bits = b->bits + (s - b->start_pfn) / 8;
}

enum mdf_status scan_cycle(struct scan_pool *pool, const struct filter_rules *r,
			   const struct memmap *mm, const struct bitmap *present,
			   struct bitmap *dumpable, struct filter_carry *carry,
			   struct filter_counts *counts, enum scan_result *result,
			   unsigned *nparts_ret, struct mdf_err *err)
{
	uint64_t start = present->start_pfn, end = present->end_pfn;
	uint64_t *b = pool->bounds;
	struct mdf_err first_err;
	enum mdf_status first_st = MDF_OK, st;
	unsigned n, submitted = 0;
	bool crossed = false;

	*result = SCAN_NOT_SPLIT;
	if (nparts_ret)
		*nparts_ret = 1;
	/* Byte-aligned windows need a byte-aligned cycle. */
	if (start % 8 || dumpable->start_pfn != start || dumpable->end_pfn != end ||
	    !r->scan || mm->model == MEMMAP_NONE)
		return MDF_OK;
	n = scan_plan(start, end, pool->cfg.nthreads, b);
	if (n < 2)
		return MDF_OK;

	for (unsigned i = 0; i < n; i++) {
		struct scan_job *job = &pool->jobs[i];

		job->rules = r;
		job->mm = *mm;
		view(&job->present, present, b[i], b[i + 1]);
		view(&job->dumpable, dumpable, b[i], b[i + 1]);
		/* The previous cycle's carry starts where the cycle starts. */
		if (i == 0)
			job->carry = *carry;
		else
			memset(&job->carry, 0, sizeof(job->carry));
		memset(&job->counts, 0, sizeof(job->counts));
		st = workers_submit(pool->workers, job, err);
		if (st != MDF_OK)
			break;
		submitted++;
	}
	if (submitted < n) {
		/* Cannot happen while the pool lives; take back what went out. */
		first_st = err->status;
		first_err = *err;
	}

	/* In pfn order: the serial scan stops at the first error; a part
	 * whose exclusion ran into the next one makes the rest meaningless. */
	for (unsigned i = 0; i < submitted; i++) {
		struct mdf_err jerr;
		void *jp;
		struct scan_job *job;

		mdf_err_clear(&jerr);
		st = workers_take(pool->workers, &jp, &jerr);
		job = jp;
		if (first_st != MDF_OK || crossed)
			continue;
		if (st != MDF_OK) {
			first_st = st;
			first_err = jerr;
			continue;
		}
		if (i + 1 < n && job->carry.end_pfn > b[i + 1])
			crossed = true;
	}
	if (first_st != MDF_OK) {
		*err = first_err;
		return first_st;
	}
	if (nparts_ret)
		*nparts_ret = n;
	if (crossed) {
		*result = SCAN_REDO;
		return MDF_OK;
	}
	for (unsigned i = 0; i < n; i++)
		filter_counts_add(counts, &pool->jobs[i].counts);
	/* What the serial scan leaves: an exclusion past the cycle's end,
	 * else the first part's carry (spent, or stale and harmless); the
	 * compound page being walked at the end is the last part's. */
	*carry = pool->jobs[n - 1].carry.end_pfn ? pool->jobs[n - 1].carry
						  : pool->jobs[0].carry;
	carry->tail_gaps = pool->jobs[n - 1].carry.tail_gaps;
	carry->tail_next = pool->jobs[n - 1].carry.tail_next;
	*result = SCAN_DONE;
	return MDF_OK;
}
