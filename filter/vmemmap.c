/*
 * vmemmap.c - -e: the vmemmap pages of excluded memory (vmemmap.h).
 */
#include <stdlib.h>
#include <string.h>

#include "filter/vmemmap.h"

void vmemmap_drop_init(struct vmemmap_drop *v, struct arch_vmemmap_group *groups,
		       size_t ngroups, uint64_t page_struct_size, uint64_t page_size)
{
	memset(v, 0, sizeof(*v));
	v->g = groups;
	v->ng = ngroups;
	v->page_struct_size = page_struct_size;
	v->page_size = page_size;
}

void vmemmap_drop_release(struct vmemmap_drop *v)
{
	free(v->g);
	free(v->r);
	memset(v, 0, sizeof(*v));
}

static enum mdf_status add_range(struct vmemmap_drop *v, uint64_t pfn, uint64_t n,
				 struct mdf_err *err)
{
	v->pages += n;
	if (v->nr && v->r[v->nr - 1].pfn + v->r[v->nr - 1].n == pfn) {
		v->r[v->nr - 1].n += n;
		return MDF_OK;
	}
	if (v->nr == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		struct vmemmap_range *r = realloc(v->r, cap * sizeof(*r));

		if (!r)
			return mdf_err_set(err, MDF_ERR_NOMEM, "-e: out of memory for %zu ranges", cap);
		v->r = r;
		v->cap = cap;
	}
	v->r[v->nr++] = (struct vmemmap_range){ pfn, n };
	return MDF_OK;
}

/* The struct pages of [first, last] (both inside, upstream's convention):
 * the vmemmap pages wholly theirs, in the first group that holds the
 * range (upstream's find_vmemmap_pages()). */
static enum mdf_status drop_run(struct vmemmap_drop *v, uint64_t first, uint64_t last,
				struct mdf_err *err)
{
	for (size_t i = 0; i < v->ng; i++) {
		const struct arch_vmemmap_group *g = &v->g[i];
		uint64_t lo, hi;

		if (first < g->rep_start || last > g->rep_end)
			continue;
		lo = (first - g->rep_start) * v->page_struct_size;
		lo = (lo + v->page_size - 1) / v->page_size;      /* round up */
		hi = (last + 1 - g->rep_start) * v->page_struct_size / v->page_size;
		if (hi <= lo)
			return MDF_OK;
		return add_range(v, g->vmap_pfn_start + lo, hi - lo, err);
	}
	return MDF_OK;
}

/* 64 bits of @b from @pfn (a multiple of 64), or 0 when they are not all
 * inside the window. */
static uint64_t word_at(const struct bitmap *b, uint64_t pfn)
{
	uint64_t off = pfn - b->start_pfn, w = 0;

	if (pfn < b->start_pfn || pfn + 64 > b->end_pfn)
		return 0;
	for (unsigned i = 0; i < 8; i++)
		w |= (uint64_t)b->bits[off / 8 + i] << (8 * i);
	return w;
}

enum mdf_status vmemmap_drop_find(struct vmemmap_drop *v, const struct bitmap *present,
				  const struct bitmap *dumpable, struct mdf_err *err)
{
	uint64_t start = present->start_pfn, end = present->end_pfn;

	if (start % VMEMMAP_BLOCK_PFNS)
		return mdf_err_set(err, MDF_ERR_INTERNAL,
				   "-e: a cycle starts at pfn 0x%llx, not on a block of %u",
				   (unsigned long long)start, VMEMMAP_BLOCK_PFNS);
	for (uint64_t blk = start; blk < end; blk += VMEMMAP_BLOCK_PFNS) {
		uint64_t run = UINT64_MAX; /* first pfn of the current run */

		for (uint64_t pfn = blk; pfn <= blk + VMEMMAP_BLOCK_PFNS; pfn += 64) {
			bool free_word = pfn < blk + VMEMMAP_BLOCK_PFNS &&
					 word_at(present, pfn) == UINT64_MAX &&
					 word_at(dumpable, pfn) == 0;

			if (free_word) {
				if (run == UINT64_MAX)
					run = pfn;
				continue;
			}
			/* a used word, a hole, or the block's end: a run of
			 * two words or more is one; one word's 64 struct
			 * pages are less than a page of them */
			if (run != UINT64_MAX && pfn - run > 64) {
				enum mdf_status st = drop_run(v, run, pfn - 1, err);

				if (st != MDF_OK)
					return st;
			}
			run = UINT64_MAX;
		}
	}
	return MDF_OK;
}

static int range_cmp(const void *a, const void *b)
{
	const struct vmemmap_range *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

void vmemmap_drop_finish(struct vmemmap_drop *v)
{
	size_t o = 0;

	if (!v->nr)
		return;
	qsort(v->r, v->nr, sizeof(*v->r), range_cmp);
	for (size_t i = 1; i < v->nr; i++) {
		struct vmemmap_range *last = &v->r[o];

		if (v->r[i].pfn <= last->pfn + last->n) {
			uint64_t end = v->r[i].pfn + v->r[i].n;

			if (end > last->pfn + last->n)
				last->n = end - last->pfn;
		} else {
			v->r[++o] = v->r[i];
		}
	}
	v->nr = o + 1;
}

uint64_t vmemmap_drop_apply(const struct vmemmap_drop *v, struct bitmap *dumpable)
{
	uint64_t cleared = 0;
	size_t lo = 0, hi = v->nr;

	/* the first range that ends past the window's start */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v->r[mid].pfn + v->r[mid].n <= dumpable->start_pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < v->nr && v->r[i].pfn < dumpable->end_pfn; i++)
		cleared += bitmap_clear_range(dumpable, v->r[i].pfn, v->r[i].pfn + v->r[i].n);
	return cleared;
}
