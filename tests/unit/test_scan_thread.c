/*
 * tests/unit/test_scan_thread.c - the parallel struct page scan equals the serial
 * filter_cycle(): same dumpable bits, same counts, same carry, for 1, 2
 * and 3 threads, whole-machine and odd-sized cycles, carries coming in
 * from the previous cycle, and an exclusion that crosses a part (which
 * must come back as SCAN_REDO).
 *
 * The machine is made by the real generator (build/<flavour>/tests/gen/
 * mkvmcore): 4 GiB of a 6.1 kernel with a hole, every kind of page, a
 * 1 GiB hugetlb page at pfn 0x80000.  A second copy has that page's order
 * patched to 19 in its struct page, so its exclusion runs from 0x80000 to
 * 0x100000, across the 0xc0000 part boundary.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "bitmap.h"
#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "filter/filter.h"
#include "genvm.h"
#include "kernel/memmap.h"
#include "readmem.h"
#include "filter/scan.h"
#include "tap.h"
#include "vmsetup.h"
#include "util.h"
#include "kernel/vmcoreinfo.h"

#define PAGE 4096ULL
#define MAX_PFN 0x100000ULL
#define VMEMMAP 0xffffea0000000000ULL

static const char spec[] =
	"kernel 6.1\n"
	"cpus 2\n"
	"ram 0x100000 0x60000000\n"
	"ram 0x70000000 0x100000000\n"       /* hole: 2 sections with no mem_map */
	"pages 0x10000+4096 anon\n"
	"pages 0x11000+2048 cache\n"
	"pages 0x11800+1024 cache_private\n"
	"pages 0x11c00+512 swapcache\n"
	"pages 0x12000+4096 thp order=9\n"
	"pages 0x13000+64 slab\n"
	"pages 0x13040+8 hwpoison\n"
	"pages 0x13048+8 offline\n"
	"pages 0x3ffff+1 anon\n"             /* last pfn before a boundary */
	"pages 0x40000+1 cache\n"            /* first pfn after it */
	"pages 0x5fe00+512 hugetlb order=9\n"
	"pages 0x80000+0x40000 hugetlb order=18\n"
	"pages 0xc0000+8192 anon\n"
	"pages 0xc2000+1024 cache\n";

static struct genvm gv;
static char vm_plain[PATH_MAX], vm_cross[PATH_MAX];

/* ---- an opened machine: what dump.c sets up for the serial scan ---- */

struct machine {
	struct test_vm v;
	const char *path;
	struct memmap mm;
	struct filter_rules rules;
	uint64_t max_pfn;
	unsigned char *buf;
};

static enum mdf_status machine_open(struct machine *m, const char *path,
				    struct mdf_err *err)
{
	struct filter_warnings warn;
	enum mdf_status st;

	memset(m, 0, sizeof(*m));
	m->path = path;
	st = test_vm_open(&m->v, path, NULL, PAGE, err);
	if (st != MDF_OK)
		return st;
	m->max_pfn = div_round_up(elf_info_max_paddr(&m->v.elf), PAGE);
	st = filter_rules_init(&m->rules, &m->v.k.ki, 31, false, &warn, err);
	if (st == MDF_OK)
		st = memmap_init(&m->mm, &m->v.k.ki, PAGE, m->max_pfn, err);
	if (st != MDF_OK)
		return st;
	m->buf = malloc(FILTER_BATCH * m->rules.page_struct_size);
	if (!m->buf)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	return MDF_OK;
}

static void machine_close(struct machine *m)
{
	free(m->buf);
	test_vm_close(&m->v);
	memset(m, 0, sizeof(*m));
}

static enum mdf_status pool_open(struct machine *m, unsigned nthreads,
				 struct scan_pool **pool, struct mdf_err *err)
{
	struct scan_config sc = {
		.nthreads = nthreads, .fd = m->v.fd, .name = m->path, .cache = NULL,
		.elf = &m->v.elf, .arch = &m->v.k.arch, .page_size = PAGE,
		.page_struct_size = m->rules.page_struct_size,
	};

	return scan_pool_create(pool, &sc, err);
}

/* bitmap1 and bitmap2's start from the PT_LOADs, as dump.c does. */
static void fill_cycle(const struct machine *m, struct bitmap *present,
		       struct bitmap *dumpable, uint64_t start, uint64_t end)
{
	bitmap_reset(present, start, end);
	for (size_t i = 0; i < m->v.elf.nloads; i++) {
		const struct elf_load *l = &m->v.elf.loads[i];

		if (l->memsz)
			bitmap_set_range(present, l->paddr / PAGE,
					 div_round_up(l->paddr + l->memsz, PAGE));
	}
	bitmap_copy(dumpable, present);
	for (size_t i = 0; i < m->v.elf.nloads; i++) {
		const struct elf_load *l = &m->v.elf.loads[i];
		uint64_t nodata = (l->paddr + l->filesz) / PAGE;
		uint64_t e = div_round_up(l->paddr + l->memsz, PAGE);

		if (l->memsz && nodata < e)
			bitmap_clear_range(dumpable, nodata, e);
	}
}

/* ---- a whole pass over the machine, cycle by cycle ---- */

struct pass {
	uint8_t *bits;                 /* whole-machine bitmap2 */
	struct filter_counts counts;
	struct filter_carry carry;     /* after the last cycle */
	unsigned split, redo;          /* cycles SCAN_DONE / SCAN_REDO */
	unsigned max_parts;
};

static void pass_free(struct pass *p)
{
	free(p->bits);
	memset(p, 0, sizeof(*p));
}

/*
 * Scan [first, max_pfn) in cycles of @cycle pfns starting with @carry_in,
 * through @pool (NULL: serially), the way build_cycle() does.
 */
static enum mdf_status run_pass(struct machine *m, struct scan_pool *pool,
				uint64_t first, uint64_t cycle,
				const struct filter_carry *carry_in, struct pass *p,
				struct mdf_err *err)
{
	struct bitmap present, dumpable;
	enum mdf_status st;

	memset(p, 0, sizeof(*p));
	p->bits = calloc(1, (size_t)(m->max_pfn / 8 + 8));
	if (!p->bits)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	if (carry_in)
		p->carry = *carry_in;
	st = bitmap_init(&present, cycle, err);
	if (st != MDF_OK)
		return st;
	st = bitmap_init(&dumpable, cycle, err);
	if (st != MDF_OK) {
		bitmap_release(&present);
		return st;
	}
	for (uint64_t start = first; start < m->max_pfn; start += cycle) {
		uint64_t end = MDF_MIN(start + cycle, m->max_pfn);
		enum scan_result res = SCAN_NOT_SPLIT;
		struct filter_counts c = { 0 };
		unsigned parts = 1;

		fill_cycle(m, &present, &dumpable, start, end);
		if (pool) {
			st = scan_cycle(pool, &m->rules, &m->mm, &present, &dumpable,
					&p->carry, &c, &res, &parts, err);
			if (st != MDF_OK)
				break;
			p->max_parts = MDF_MAX(p->max_parts, parts);
			if (res == SCAN_REDO) {
				p->redo++;
				fill_cycle(m, &present, &dumpable, start, end);
			}
		}
		if (res == SCAN_DONE) {
			p->split++;
		} else {
			st = filter_cycle(&m->rules, &m->mm, &m->v.k.rm, &present, &dumpable,
					  m->buf, &p->carry, &c, err);
			if (st != MDF_OK)
				break;
		}
		filter_counts_add(&p->counts, &c);
		memcpy(p->bits + start / 8, dumpable.bits, bitmap_bytes(&dumpable));
	}
	bitmap_release(&present);
	bitmap_release(&dumpable);
	return st;
}

/* Everything a pass produced is the same. */
static bool same_pass(const struct machine *m, const struct pass *a,
		      const struct pass *b, char *why_buf, size_t n)
{
	if (memcmp(a->bits, b->bits, (size_t)(m->max_pfn / 8)) != 0) {
		for (uint64_t i = 0; i < m->max_pfn / 8; i++)
			if (a->bits[i] != b->bits[i]) {
				snprintf(why_buf, n, "bitmaps differ at pfn 0x%llx",
					 (unsigned long long)i * 8);
				break;
			}
		return false;
	}
	for (unsigned i = 0; i < PC_COUNT; i++)
		if (a->counts.cls[i] != b->counts.cls[i]) {
			snprintf(why_buf, n, "class %u: %llu != %llu pages", i,
				 (unsigned long long)a->counts.cls[i],
				 (unsigned long long)b->counts.cls[i]);
			return false;
		}
	for (unsigned i = 0; i < PR_COUNT; i++)
		if (a->counts.kept[i] != b->counts.kept[i]) {
			snprintf(why_buf, n, "kept for rule %u: %llu != %llu pages", i,
				 (unsigned long long)a->counts.kept[i],
				 (unsigned long long)b->counts.kept[i]);
			return false;
		}
	if (a->counts.unreadable != b->counts.unreadable ||
	    a->carry.end_pfn != b->carry.end_pfn || a->carry.cls != b->carry.cls) {
		snprintf(why_buf, n, "unreadable %llu/%llu, carry 0x%llx/0x%llx",
			 (unsigned long long)a->counts.unreadable,
			 (unsigned long long)b->counts.unreadable,
			 (unsigned long long)a->carry.end_pfn,
			 (unsigned long long)b->carry.end_pfn);
		return false;
	}
	return true;
}

#define T_SAME(m, a, b)                                            \
	do {                                                       \
		char t_why_[160] = "";                             \
		if (!same_pass((m), (a), (b), t_why_, sizeof(t_why_))) { \
			t_fail(__FILE__, __LINE__, t_why_);        \
			goto out;                                  \
		}                                                  \
	} while (0)

/* ---- cases ---- */

static void t_plan(void)
{
	uint64_t b[9];
	const uint64_t A = SCAN_ALIGN_PFNS;

	/* Less than two chunks: no split. */
	T_EQ_U64(scan_plan(0, A, 4, b), 1);
	T_EQ_U64(b[0], 0);
	T_EQ_U64(b[1], A);
	T_EQ_U64(scan_plan(4096, A - 4096, 4, b), 1);
	T_EQ_U64(scan_plan(8, 8, 4, b), 1);
	T_EQ_U64(scan_plan(0, 4 * A, 1, b), 1);
	/* Even shares on aligned boundaries. */
	T_EQ_U64(scan_plan(0, 4 * A, 2, b), 2);
	T_EQ_U64(b[1], 2 * A);
	T_EQ_U64(b[2], 4 * A);
	T_EQ_U64(scan_plan(0, 4 * A, 3, b), 3);
	T_EQ_U64(b[1], A);
	T_EQ_U64(b[2], 3 * A);
	T_EQ_U64(scan_plan(0, 4 * A, 8, b), 4);
	for (unsigned i = 1; i < 4; i++)
		T_EQ_U64(b[i], i * A);
	/* A cycle straddling one boundary splits there. */
	T_EQ_U64(scan_plan(A - 4096, A + 4096, 2, b), 2);
	T_EQ_U64(b[1], A);
	/* Odd start and end: inner bounds aligned, increasing, inside. */
	for (uint64_t s = 0; s < 3 * A; s += 0x9000) {
		for (unsigned np = 1; np <= 8; np++) {
			uint64_t e = s + 0x61000 * 3 + 0x1000;
			unsigned n = scan_plan(s, e, np, b);

			T_ASSERT(n >= 1 && n <= np);
			T_EQ_U64(b[0], s);
			T_EQ_U64(b[n], e);
			for (unsigned i = 1; i < n; i++) {
				T_EQ_U64(b[i] % A, 0);
				T_ASSERT(b[i] > b[i - 1] && b[i] < e);
			}
			/* Enough chunks for every thread: all are used. */
			if ((align_up(e, A) - align_down(s, A)) / A >= 2 * np)
				T_EQ_U64(n, np);
		}
	}
}

static void t_pool_args(void)
{
	struct scan_pool *pool = NULL;
	struct scan_config sc = { .nthreads = 0, .fd = -1, .page_size = PAGE,
				  .page_struct_size = 64 };
	struct mdf_err err;

	T_ASSERT(scan_pool_create(&pool, &sc, &err) == MDF_ERR_ARG);
	T_ASSERT(pool == NULL);
	sc.nthreads = 2;
	sc.page_struct_size = 0;
	T_ASSERT(scan_pool_create(&pool, &sc, &err) == MDF_ERR_ARG);
	scan_pool_destroy(NULL);
	T_EQ_U64(scan_pool_threads(NULL), 0);
}

/* Every cycle size and thread count against the serial scan. */
static void same_as_serial(const char *vm, const uint64_t *cycles, size_t ncycles,
			   bool expect_redo)
{
	struct machine m;
	struct mdf_err err;
	struct pass ser = { 0 }, par = { 0 };
	struct scan_pool *pool = NULL;

	if (!gv.ok) {
		t_skip(gv.why);
		return;
	}
	T_OK(machine_open(&m, vm, &err), &err);
	T_EQ_U64(m.max_pfn, MAX_PFN);
	for (size_t c = 0; c < ncycles; c++) {
		unsigned redos = 0;

		if (run_pass(&m, NULL, 0, cycles[c], NULL, &ser, &err) != MDF_OK) {
			t_fail(__FILE__, __LINE__, err.msg);
			goto out;
		}
		/* Sanity: the scan did exclude every class we declared. */
		T_ASSERT(ser.counts.cls[PC_FREE] > 0 && ser.counts.cls[PC_USER] > 0 &&
			 ser.counts.cls[PC_CACHE] > 0 && ser.counts.cls[PC_CACHE_PRIVATE] > 0 &&
			 ser.counts.cls[PC_HWPOISON] == 8 && ser.counts.cls[PC_OFFLINE] == 8);
		for (unsigned nt = 1; nt <= 3; nt++) {
			if (pool_open(&m, nt, &pool, &err) != MDF_OK) {
				t_fail(__FILE__, __LINE__, err.msg);
				goto out;
			}
			if (run_pass(&m, pool, 0, cycles[c], NULL, &par, &err) != MDF_OK) {
				t_fail(__FILE__, __LINE__, err.msg);
				goto out;
			}
			T_SAME(&m, &ser, &par);
			/* One thread never splits; more do, in up to nt parts. */
			if (nt == 1)
				T_EQ_U64(par.split + par.redo, 0);
			else
				T_ASSERT(par.split + par.redo > 0 && par.max_parts >= 2 &&
					 par.max_parts <= nt);
			redos += par.redo;
			pass_free(&par);
			scan_pool_destroy(pool);
			pool = NULL;
		}
		if (!expect_redo)
			T_EQ_U64(redos, 0);
		pass_free(&ser);
	}
out:
	scan_pool_destroy(pool);
	pass_free(&ser);
	pass_free(&par);
	machine_close(&m);
}

/* Whole machine in one cycle, and cycles that are not a multiple of the
 * alignment (0x61000: parts of 1, 2 or 3 chunks, some of a few pfns). */
static const uint64_t cycle_sizes[] = { MAX_PFN, 0x61000, 0x41000 };

static void t_same_plain(void)
{
	same_as_serial(vm_plain, cycle_sizes, ARRAY_SIZE(cycle_sizes), false);
}

/* The order-19 page: 3 threads on the whole machine must redo (part
 * [0x40000, 0xc0000) excludes past its end); 2 threads on 0x61000 cycles
 * hand the exclusion on as the carry of the cycle. */
static void t_same_crossing(void)
{
	same_as_serial(vm_cross, cycle_sizes, ARRAY_SIZE(cycle_sizes), true);
}

static void t_crossing_outcomes(void)
{
	struct machine m;
	struct mdf_err err;
	struct pass ser = { 0 }, par = { 0 };
	struct scan_pool *pool = NULL;

	if (!gv.ok) {
		t_skip(gv.why);
		return;
	}
	T_OK(machine_open(&m, vm_cross, &err), &err);
	/* Whole machine, 3 threads: redone. */
	T_OK(pool_open(&m, 3, &pool, &err), &err);
	T_OK(run_pass(&m, pool, 0, MAX_PFN, NULL, &par, &err), &err);
	T_EQ_U64(par.redo, 1);
	T_EQ_U64(par.split, 0);
	pass_free(&par);
	scan_pool_destroy(pool);
	pool = NULL;
	/* 0x61000 cycles, 2 threads: cycle 2 splits at 0x80000 and carries
	 * the exclusion to 0x100000 out of its end. */
	T_OK(run_pass(&m, NULL, 0, 0x61000, NULL, &ser, &err), &err);
	T_OK(pool_open(&m, 2, &pool, &err), &err);
	T_OK(run_pass(&m, pool, 0, 0x61000, NULL, &par, &err), &err);
	T_EQ_U64(par.redo, 0);
	T_EQ_U64(par.split, 2);
	T_SAME(&m, &ser, &par);
	/* The user pages: the 1 GiB page at 0x80000 became 2 GiB. */
	T_ASSERT(ser.counts.cls[PC_USER] > 0x80000 - 0x10000);
out:
	scan_pool_destroy(pool);
	pass_free(&ser);
	pass_free(&par);
	machine_close(&m);
}

/* A carry from the previous cycle: applied by the first part when it ends
 * inside it, a redo when it runs past it; either way as serial. */
static void t_carry_in(void)
{
	static const struct { uint64_t end; enum page_class cls; unsigned redo; } cases[] = {
		{ 0x40000, PC_FREE, 0 },      /* stale: ends where the cycle starts */
		{ 0x40100, PC_CACHE, 0 },
		{ 0x50000, PC_FREE, 0 },
		{ 0xc0000, PC_USER, 0 },      /* exactly to the part's end */
		{ 0xc0001, PC_USER, 1 },      /* one pfn into the next part */
		{ 0xd0000, PC_FREE, 1 },
		{ 0x140000, PC_FREE, 1 },     /* past the machine */
	};
	struct machine m;
	struct mdf_err err;
	struct pass ser = { 0 }, par = { 0 };
	struct scan_pool *pool = NULL;

	if (!gv.ok) {
		t_skip(gv.why);
		return;
	}
	T_OK(machine_open(&m, vm_plain, &err), &err);
	T_OK(pool_open(&m, 2, &pool, &err), &err);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct filter_carry in = { .end_pfn = cases[i].end, .cls = cases[i].cls };

		/* One cycle [0x40000, 0x100000): parts split at 0xc0000. */
		T_OK(run_pass(&m, NULL, 0x40000, 0xc0000, &in, &ser, &err), &err);
		T_OK(run_pass(&m, pool, 0x40000, 0xc0000, &in, &par, &err), &err);
		T_EQ_U64(par.max_parts, 2);
		T_EQ_U64(par.redo, cases[i].redo);
		T_EQ_U64(par.split, 1 - cases[i].redo);
		T_SAME(&m, &ser, &par);
		pass_free(&ser);
		pass_free(&par);
	}
out:
	scan_pool_destroy(pool);
	pass_free(&ser);
	pass_free(&par);
	machine_close(&m);
}

/* The same pool serves many cycles and any rule set (threads once per run). */
static void t_pool_reuse(void)
{
	struct machine m;
	struct mdf_err err;
	struct pass ser = { 0 }, par = { 0 };
	struct scan_pool *pool = NULL;
	static const unsigned levels[] = { 31, 16, 8, 2, 1 };

	if (!gv.ok) {
		t_skip(gv.why);
		return;
	}
	T_OK(machine_open(&m, vm_plain, &err), &err);
	T_OK(pool_open(&m, 3, &pool, &err), &err);
	T_EQ_U64(scan_pool_threads(pool), 3);
	for (size_t i = 0; i < ARRAY_SIZE(levels); i++) {
		struct filter_warnings warn;

		T_OK(filter_rules_init(&m.rules, &m.v.k.ki, levels[i], false, &warn, &err), &err);
		T_OK(run_pass(&m, NULL, 0, 0x80000, NULL, &ser, &err), &err);
		T_OK(run_pass(&m, pool, 0, 0x80000, NULL, &par, &err), &err);
		T_EQ_U64(par.split, 2);
		T_SAME(&m, &ser, &par);
		pass_free(&ser);
		pass_free(&par);
	}
	/* What the threads' caches did goes into the run's report. */
	{
		struct cache_stats sum = { .hits = 1 };

		scan_pool_stop(pool, &sum);
		/* (read buffers here: the pool caches default to pread) */
		T_ASSERT(sum.hits > 1 && sum.reads > 0 && sum.munmaps == sum.mmaps);
		scan_pool_stop(NULL, &sum);
	}
out:
	scan_pool_destroy(pool);
	pass_free(&ser);
	pass_free(&par);
	machine_close(&m);
}

/* Rules that cannot run (VMCOREINFO without PG_lru, the compound order
 * and PG_hwpoison): the pages kept for them are counted alike by the
 * threads, the 1 GiB hugetlb page's tails included. */
static void t_same_gaps(void)
{
	struct machine m;
	struct mdf_err err;
	struct pass ser = { 0 }, par = { 0 };
	struct scan_pool *pool = NULL;
	struct filter_warnings warn;
	static const uint64_t cycles[] = { MAX_PFN, 0x61000, 0x1000 };

	if (!gv.ok) {
		t_skip(gv.why);
		return;
	}
	T_OK(machine_open(&m, vm_plain, &err), &err);
	m.v.k.ki.num.PG_lru.set = false;
	m.v.k.ki.off.page_compound_order.set = false;
	m.v.k.ki.num.PG_hwpoison.set = false;
	T_OK(filter_rules_init(&m.rules, &m.v.k.ki, 31, false, &warn, &err), &err);
	T_EQ_U64(m.rules.gap_mask, 1u << PR_CACHE | 1u << PR_COMPOUND_TAIL | 1u << PR_HWPOISON);
	T_OK(pool_open(&m, 3, &pool, &err), &err);
	for (size_t c = 0; c < ARRAY_SIZE(cycles); c++) {
		T_OK(run_pass(&m, NULL, 0, cycles[c], NULL, &ser, &err), &err);
		/* The tails of every THP (4096 pages) and hugetlb page
		 * (0x40000 + 512): all but the heads; the cache pages
		 * (2048 + 1024 + 1024 + 1: -d 31 drops private cache too). */
		T_EQ_U64(ser.counts.kept[PR_COMPOUND_TAIL],
			 4096 - 8 + 0x40000 - 1 + 512 - 1);
		T_EQ_U64(ser.counts.kept[PR_CACHE], 2048 + 1024 + 1024 + 1);
		T_ASSERT(ser.counts.kept[PR_HWPOISON] > 0x40000);
		T_OK(run_pass(&m, pool, 0, cycles[c], NULL, &par, &err), &err);
		if (cycles[c] == MAX_PFN)
			T_ASSERT(par.split == 1 && par.max_parts == 3);
		T_SAME(&m, &ser, &par);
		pass_free(&ser);
		pass_free(&par);
	}
out:
	scan_pool_destroy(pool);
	pass_free(&ser);
	pass_free(&par);
	machine_close(&m);
}

int main(int argc, char **argv)
{
	(void)argc;
	genvm_init(&gv, argv[0], "mdf-scan");
	genvm_make(&gv, spec, "plain.elf", vm_plain, sizeof(vm_plain));
	genvm_make(&gv, spec, "cross.elf", vm_cross, sizeof(vm_cross));
	genvm_set_order(&gv, vm_cross, VMEMMAP, 0x80000, 19);

	T_RUN(t_plan);
	T_RUN(t_pool_args);
	T_RUN(t_same_plain);
	T_RUN(t_same_crossing);
	T_RUN(t_crossing_outcomes);
	T_RUN(t_carry_in);
	T_RUN(t_pool_reuse);
	T_RUN(t_same_gaps);

	genvm_fini(&gv);
	return t_done();
}
