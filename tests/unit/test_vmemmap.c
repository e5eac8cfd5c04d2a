/*
 * Unit tests for filter/vmemmap.c (-e): which runs of excluded memory
 * count, and which vmemmap pages they free, by upstream's rules
 * (find_unused_vmemmap_pages(), find_vmemmap_pages()).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#include "bitmap.h"
#include "filter/vmemmap.h"

#define PS 4096
#define SPS 64 /* SIZE(page): 64 struct pages a page */

/* One group: the struct pages of pfns [0, 2^20) at pfn 0x100000 on. */
static struct arch_vmemmap_group *one_group(uint64_t rep_end)
{
	struct arch_vmemmap_group *g = malloc(sizeof(*g));

	g->vmap_pfn_start = 0x100000;
	g->vmap_pfn_end = 0x100000 + rep_end * SPS / PS;
	g->rep_start = 0;
	g->rep_end = rep_end;
	return g;
}

static struct bitmap p, d;
static struct mdf_err err;

static void setup(void)
{
	T_OK(bitmap_init(&p, 65536, &err), &err);
	T_OK(bitmap_init(&d, 65536, &err), &err);
}

static void teardown(void)
{
	bitmap_release(&p);
	bitmap_release(&d);
}

/* present everywhere in [start, end); dumpable everywhere but [lo, hi). */
static void window(uint64_t start, uint64_t end, uint64_t lo, uint64_t hi)
{
	bitmap_reset(&p, start, end);
	bitmap_reset(&d, start, end);
	bitmap_set_range(&p, start, end);
	bitmap_set_range(&d, start, end);
	bitmap_clear_range(&d, lo, hi);
}

static void test_run_frees_whole_pages(void)
{
	struct vmemmap_drop v;

	setup();
	vmemmap_drop_init(&v, one_group(1 << 20), 1, SPS, PS);
	/* pfns 0x1000..0x1fff excluded: 4096 struct pages = 64 vmemmap pages,
	 * starting at offset 0x1000 * 64 / 4096 = 64 */
	window(0, 65536, 0x1000, 0x2000);
	T_OK(vmemmap_drop_find(&v, &p, &d, &err), &err);
	vmemmap_drop_finish(&v);
	T_EQ_U64(v.nr, 1);
	T_EQ_U64(v.r[0].pfn, 0x100000 + 64);
	T_EQ_U64(v.r[0].n, 64);
	T_EQ_U64(v.pages, 64);
	/* applied to a window that holds them: every one was set */
	window(0x100000, 0x100000 + 65536, 0, 0);
	T_EQ_U64(vmemmap_drop_apply(&v, &d), 64);
	T_ASSERT(!bitmap_test(&d, 0x100000 + 64) && !bitmap_test(&d, 0x100000 + 127));
	T_ASSERT(bitmap_test(&d, 0x100000 + 63) && bitmap_test(&d, 0x100000 + 128));
	vmemmap_drop_release(&v);
	teardown();
}

static void test_partial_pages_and_short_runs(void)
{
	struct vmemmap_drop v;

	setup();
	vmemmap_drop_init(&v, one_group(1 << 20), 1, SPS, PS);
	/* one word (64 pfns) is no run; two words from pfn 0x40: their
	 * struct pages are bytes 0x1000-0x2fff of the array, pages 1 and 2 */
	window(0, 65536, 0x8040, 0x8080);
	T_OK(vmemmap_drop_find(&v, &p, &d, &err), &err);
	T_EQ_U64(v.nr, 0);
	window(0, 65536, 0x40, 0xc0);
	T_OK(vmemmap_drop_find(&v, &p, &d, &err), &err);
	vmemmap_drop_finish(&v);
	T_EQ_U64(v.nr, 1);
	T_EQ_U64(v.r[0].pfn, 0x100001);
	T_EQ_U64(v.r[0].n, 2);
	vmemmap_drop_release(&v);
	teardown();
}

static void test_blocks_holes_and_groups(void)
{
	struct vmemmap_drop v;

	setup();
	/* a run across the block boundary at 32768 is two runs: each half
	 * frees its own pages */
	vmemmap_drop_init(&v, one_group(1 << 20), 1, SPS, PS);
	window(0, 65536, 32768 - 4096, 32768 + 4096);
	T_OK(vmemmap_drop_find(&v, &p, &d, &err), &err);
	vmemmap_drop_finish(&v);
	T_EQ_U64(v.nr, 1); /* merged back: adjacent pages */
	T_EQ_U64(v.r[0].n, 128);
	vmemmap_drop_release(&v);
	/* a hole (not present) in the middle of excluded memory splits it */
	vmemmap_drop_init(&v, one_group(1 << 20), 1, SPS, PS);
	window(0, 65536, 0x1000, 0x3000);
	bitmap_clear_range(&p, 0x1800, 0x1840);
	T_OK(vmemmap_drop_find(&v, &p, &d, &err), &err);
	vmemmap_drop_finish(&v);
	T_EQ_U64(v.pages, 32 + 95);
	vmemmap_drop_release(&v);
	/* a run no group holds whole frees nothing; the group's end counts
	 * as inside (upstream's rep_pfn_end) */
	vmemmap_drop_init(&v, one_group(0x2000), 1, SPS, PS);
	window(0, 65536, 0x1000, 0x3000);
	T_OK(vmemmap_drop_find(&v, &p, &d, &err), &err);
	T_EQ_U64(v.nr, 0);
	vmemmap_drop_release(&v);
	vmemmap_drop_init(&v, one_group(0x1fff), 1, SPS, PS);
	window(0, 65536, 0x1000, 0x2000);
	T_OK(vmemmap_drop_find(&v, &p, &d, &err), &err);
	T_EQ_U64(v.pages, 64);
	vmemmap_drop_release(&v);
	/* a cycle that does not start on a block is refused */
	vmemmap_drop_init(&v, one_group(1 << 20), 1, SPS, PS);
	window(4096, 8192, 0, 0);
	T_ASSERT(vmemmap_drop_find(&v, &p, &d, &err) == MDF_ERR_INTERNAL);
	vmemmap_drop_release(&v);
	teardown();
}

int main(void)
{
	T_RUN(test_run_frees_whole_pages);
	T_RUN(test_partial_pages_and_short_runs);
	T_RUN(test_blocks_holes_and_groups);
	return t_done();
}
