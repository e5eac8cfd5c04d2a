/*
 * test_pfnset.c - filter/pfnset.c: runs added in any order, compacted,
 * asked by pfn and by window.
 */
#include "tap.h"
#include "filter/pfnset.h"

static void empty(void)
{
	struct pfn_set s = { 0 };

	pfn_set_compact(&s);
	T_EQ_U64(s.n, 0);
	T_EQ_U64(s.pages, 0);
	T_ASSERT(!pfn_set_overlaps(&s, 0, UINT64_MAX / 2));
	T_EQ_U64(pfn_set_first_after(&s, 5), 0);
	pfn_set_release(&s);
	pfn_set_release(&s);
}

static void extend_both_ways(void)
{
	struct pfn_set s = { 0 };
	struct mdf_err err;

	/* a list in address order, up and then down: one run each */
	T_OK(pfn_set_add(&s, 10, 12, "t", &err), &err);
	T_OK(pfn_set_add(&s, 12, 16, "t", &err), &err);
	T_OK(pfn_set_add(&s, 8, 10, "t", &err), &err);
	T_EQ_U64(s.n, 1);
	T_EQ_U64(s.r[0].start, 8);
	T_EQ_U64(s.r[0].end, 16);
	pfn_set_release(&s);
	T_ASSERT(s.r == NULL && s.n == 0 && s.cap == 0);
}

static void compact_merges(void)
{
	struct pfn_set s = { 0 };
	struct mdf_err err;

	T_OK(pfn_set_add(&s, 100, 200, "t", &err), &err);
	T_OK(pfn_set_add(&s, 0, 10, "t", &err), &err);
	T_OK(pfn_set_add(&s, 150, 300, "t", &err), &err);   /* overlaps */
	T_OK(pfn_set_add(&s, 10, 20, "t", &err), &err);     /* touches, after a gap */
	T_OK(pfn_set_add(&s, 500, 501, "t", &err), &err);
	pfn_set_compact(&s);
	T_EQ_U64(s.n, 3);
	T_EQ_U64(s.pages, 20 + 200 + 1);
	T_EQ_U64(s.r[0].start, 0);
	T_EQ_U64(s.r[0].end, 20);
	T_EQ_U64(s.r[1].start, 100);
	T_EQ_U64(s.r[1].end, 300);
	T_EQ_U64(pfn_set_first_after(&s, 19), 0);
	T_EQ_U64(pfn_set_first_after(&s, 20), 1);
	T_EQ_U64(pfn_set_first_after(&s, 501), 3);
	T_ASSERT(pfn_set_overlaps(&s, 19, 1));
	T_ASSERT(!pfn_set_overlaps(&s, 20, 80));
	T_ASSERT(pfn_set_overlaps(&s, 20, 81));
	T_ASSERT(!pfn_set_overlaps(&s, 300, 200));
	T_ASSERT(pfn_set_overlaps(&s, 300, 201));
	T_ASSERT(!pfn_set_overlaps(&s, 501, 1000));
	pfn_set_release(&s);
}

/* Many separate runs: the array is compacted before it grows, so a set
 * that repeats its runs stays at the number of distinct runs. */
static void bounded_by_runs(void)
{
	struct pfn_set s = { 0 };
	struct mdf_err err;

	for (unsigned round = 0; round < 8; round++)
		for (uint64_t i = 0; i < 1000; i++)
			T_OK(pfn_set_add(&s, 4 * i, 4 * i + 1, "t", &err), &err);
	T_ASSERT(s.cap <= 4096);
	pfn_set_compact(&s);
	T_EQ_U64(s.n, 1000);
	T_EQ_U64(s.pages, 1000);
	pfn_set_release(&s);
}

int main(void)
{
	T_RUN(empty);
	T_RUN(extend_both_ways);
	T_RUN(compact_merges);
	T_RUN(bounded_by_runs);
	return t_done();
}
