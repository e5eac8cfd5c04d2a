/*
 * pfnset.c - a set of pfns kept as sorted runs (pfnset.h).
 */
#include "filter/pfnset.h"

#include <stdlib.h>
#include <string.h>

static int by_start(const void *a, const void *b)
{
	const struct pfn_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void pfn_set_compact(struct pfn_set *s)
{
	size_t out = 0;

	s->pages = 0;
	if (s->n == 0)
		return;
	qsort(s->r, s->n, sizeof(*s->r), by_start);
	for (size_t i = 0; i < s->n; i++) {
		if (out && s->r[i].start <= s->r[out - 1].end) {
			if (s->r[i].end > s->r[out - 1].end)
				s->r[out - 1].end = s->r[i].end;
			continue;
		}
		s->r[out++] = s->r[i];
	}
	s->n = out;
	for (size_t i = 0; i < s->n; i++)
		s->pages += s->r[i].end - s->r[i].start;
}

enum mdf_status pfn_set_add(struct pfn_set *s, uint64_t start, uint64_t end,
			    const char *what, struct mdf_err *err)
{
	if (s->n) {
		struct pfn_range *last = &s->r[s->n - 1];

		if (last->end == start) {
			last->end = end;
			return MDF_OK;
		}
		if (last->start == end) {
			last->start = start;
			return MDF_OK;
		}
	}
	if (s->n == s->cap) {
		size_t cap;
		struct pfn_range *n;

		if (s->n >= 1024) {
			pfn_set_compact(s);
			if (s->n <= s->cap / 2)
				goto append;
		}
		cap = s->cap ? s->cap * 2 : 256;
		if (cap > SIZE_MAX / sizeof(*n))
			return mdf_err_set(err, MDF_ERR_NOMEM, "too many %s (%zu)", what, s->n);
		n = realloc(s->r, cap * sizeof(*n));
		if (!n)
			return mdf_err_set(err, MDF_ERR_NOMEM,
					   "out of memory for %zu %s", cap, what);
		s->r = n;
		s->cap = cap;
	}
append:
	s->r[s->n++] = (struct pfn_range){ start, end };
	return MDF_OK;
}

size_t pfn_set_first_after(const struct pfn_set *s, uint64_t pfn)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].end <= pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool pfn_set_overlaps(const struct pfn_set *s, uint64_t pfn, uint64_t npfn)
{
	size_t i = pfn_set_first_after(s, pfn);

	return i < s->n && s->r[i].start < pfn + npfn;
}

void pfn_set_release(struct pfn_set *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}
