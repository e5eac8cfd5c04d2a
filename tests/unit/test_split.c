/*
 * test_split.c - split_ranges() over a fake dump source, and the
 * --split / --reassemble command lines.
 */
#include <string.h>

#include "bitmap.h"
#include "opts.h"
#include "write/split.h"
#include "tap.h"

/* A fake machine: pfn p is dumpable when dumpable_pfn(p). */
struct fake {
	struct bitmap present, dumpable;
	uint64_t max_pfn, cycle;
	int kind;
};

static bool dumpable_pfn(const struct fake *f, uint64_t pfn)
{
	switch (f->kind) {
	case 0: return true;
	case 1: return pfn % 3 == 0;
	case 2: return pfn >= 1000 && pfn < 1010;   /* a lump */
	default: return false;                      /* nothing */
	}
}

static enum mdf_status fake_cycle(void *arg, uint64_t start, bool drop_zero,
				  const struct bitmap **present,
				  const struct bitmap **dumpable,
				  struct mdf_err *err)
{
	struct fake *f = arg;
	uint64_t end = start + f->cycle < f->max_pfn ? start + f->cycle : f->max_pfn;

	(void)drop_zero;
	(void)err;
	bitmap_reset(&f->present, start, end);
	bitmap_reset(&f->dumpable, start, end);
	for (uint64_t p = start; p < end; p++) {
		bitmap_set(&f->present, p);
		if (dumpable_pfn(f, p))
			bitmap_set(&f->dumpable, p);
	}
	*present = &f->present;
	*dumpable = &f->dumpable;
	return MDF_OK;
}

static uint64_t count(const struct fake *f, uint64_t a, uint64_t b)
{
	uint64_t n = 0;

	for (uint64_t p = a; p < b; p++)
		n += dumpable_pfn(f, p);
	return n;
}

static void check_kind(int kind, unsigned n, uint64_t cycle)
{
	struct fake f = { .max_pfn = 5000, .cycle = cycle, .kind = kind };
	struct dump_source src = { .arg = &f, .page_size = 4096,
				   .max_pfn = f.max_pfn, .cycle_pfns = cycle,
				   .cycle = fake_cycle };
	uint64_t bounds[SPLIT_MAX_PARTS + 1], total = 0, lo = UINT64_MAX, hi = 0;
	struct mdf_err err;

	T_OK(bitmap_init(&f.present, cycle, &err), &err);
	T_OK(bitmap_init(&f.dumpable, cycle, &err), &err);
	T_OK(split_ranges(&src, n, 1, bounds, &total, &err), &err);
	T_EQ_U64(total, count(&f, 0, f.max_pfn));
	T_EQ_U64(bounds[0], 0);
	T_EQ_U64(bounds[n], f.max_pfn);
	for (unsigned k = 0; k < n; k++) {
		uint64_t c = count(&f, bounds[k], bounds[k + 1]);

		T_ASSERT(bounds[k] <= bounds[k + 1]);
		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	T_ASSERT(hi - lo <= 1);
	bitmap_release(&f.present);
	bitmap_release(&f.dumpable);
}

static void test_ranges(void)
{
	for (int kind = 0; kind < 4; kind++) {
		check_kind(kind, 2, 4096);
		check_kind(kind, 3, 512);
		check_kind(kind, 7, 64);
		check_kind(kind, 16, 5000);
	}
}

/* On a 64-pfn grid: every inner boundary a multiple of 64, each part
 * within 64 pages of its share. */
static void check_grid(int kind, unsigned n, uint64_t block)
{
	struct fake f = { .max_pfn = 5000, .cycle = 512, .kind = kind };
	struct dump_source src = { .arg = &f, .page_size = 4096,
				   .max_pfn = f.max_pfn, .cycle_pfns = 512,
				   .cycle = fake_cycle };
	uint64_t bounds[SPLIT_MAX_PARTS + 1], exact[SPLIT_MAX_PARTS + 1], total = 0;
	struct mdf_err err;

	T_OK(bitmap_init(&f.present, 512, &err), &err);
	T_OK(bitmap_init(&f.dumpable, 512, &err), &err);
	T_OK(split_ranges(&src, n, 1, exact, &total, &err), &err);
	T_OK(split_ranges(&src, n, block, bounds, &total, &err), &err);
	T_EQ_U64(bounds[0], 0);
	T_EQ_U64(bounds[n], f.max_pfn);
	for (unsigned k = 1; k < n; k++) {
		T_ASSERT(bounds[k] % block == 0 || bounds[k] == f.max_pfn);
		T_ASSERT(bounds[k] >= exact[k] && bounds[k] < exact[k] + block);
		T_ASSERT(bounds[k] >= bounds[k - 1]);
	}
	bitmap_release(&f.present);
	bitmap_release(&f.dumpable);
}

static void test_ranges_grid(void)
{
	for (int kind = 0; kind < 4; kind++) {
		check_grid(kind, 2, 64);
		check_grid(kind, 3, 64);
		check_grid(kind, 16, 128);
		check_grid(kind, 7, 4096);
	}
}

static void test_ranges_bad_n(void)
{
	struct dump_source src = { .max_pfn = 10, .cycle_pfns = 64 };
	uint64_t bounds[4], total;
	struct mdf_err err;

	T_ASSERT(split_ranges(&src, 1, 64, bounds, &total, &err) == MDF_ERR_ARG);
}

static void test_opts(void)
{
	char a0[] = "makedumpfile", s[] = "--split", r[] = "--reassemble",
	     l[] = "-l", F[] = "-F", v[] = "vmcore", x[] = "x", y[] = "y", z[] = "z";
	struct mdf_opts o;
	struct mdf_err err;

	char *ok1[] = { a0, l, s, v, x, y, z, NULL };
	T_OK(opts_parse(7, ok1, &o, &err), &err);
	T_ASSERT(o.action == MDF_ACT_DUMP && o.split);
	T_EQ_U64(o.nsplit, 3);
	T_ASSERT(strcmp(o.vmcore, "vmcore") == 0 && strcmp(o.dumpfile, "x") == 0);
	T_ASSERT(strcmp(o.split_files[2], "z") == 0);

	char *ok2[] = { a0, r, x, y, z, NULL };
	T_OK(opts_parse(5, ok2, &o, &err), &err);
	T_ASSERT(o.action == MDF_ACT_REASSEMBLE);
	T_EQ_U64(o.nsplit, 2);
	T_ASSERT(strcmp(o.dumpfile, "z") == 0);

	char *bad1[] = { a0, s, v, x, NULL };
	T_ASSERT(opts_parse(4, bad1, &o, &err) == MDF_ERR_ARG);
	T_ASSERT(strstr(err.msg, "at least 2") != NULL);
	char *bad2[] = { a0, F, s, v, x, y, NULL };
	T_ASSERT(opts_parse(6, bad2, &o, &err) == MDF_ERR_ARG);
	T_ASSERT(strstr(err.msg, "-F") != NULL);
	char *bad3[] = { a0, r, x, y, NULL };
	T_ASSERT(opts_parse(4, bad3, &o, &err) == MDF_ERR_ARG);
	char *bad4[] = { a0, s, v, x, x, NULL };
	T_ASSERT(opts_parse(5, bad4, &o, &err) == MDF_ERR_ARG);
	T_ASSERT(strstr(err.msg, "twice") != NULL);
}

int main(void)
{
	T_RUN(test_ranges);
	T_RUN(test_ranges_grid);
	T_RUN(test_ranges_bad_n);
	T_RUN(test_opts);
	return t_done();
}
