/*
 * tests/unit/test_explain.c - --explain's verdicts are the scan's.
 *
 * The machine is made by the real generator (build/<flavour>/tests/gen/
 * mkvmcore): 4 GiB of a 6.1 kernel with a hole, every kind of page, a
 * 1 GiB hugetlb page at pfn 0x80000.  For every dump level, a whole pass
 * of the serial scan in cycles that do not line up with anything
 * (0x61000 pfns) gives the dumpable bitmap, and explain_level() must say
 * "kept" exactly where it is set, for pfns at every edge of every range
 * and a spread of others; excluded pfns must lie in the block of the head
 * it names.  A second copy has the hugetlb page's order patched to 19 in
 * its struct page: its exclusion then runs from 0x80000 to 0x100000, and
 * the pfns past 0xc0000 are decided by a head 2^18 pfns and more before
 * them (the carry of a run).  Free pages found by walking the free lists
 * (no buddy marker) are checked with hand-made free ranges.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "filter/explain.h"
#include "filter/filter.h"
#include "filter/freelist.h"
#include "genvm.h"
#include "kernel/memmap.h"
#include "readmem.h"
#include "tap.h"
#include "vmsetup.h"
#include "util.h"

#define PAGE 4096ULL
#define MAX_PFN 0x100000ULL
#define VMEMMAP 0xffffea0000000000ULL

static const char spec[] =
	"kernel 6.1\n"
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
	"pages 0x13100+256 kernel\n"         /* zero bytes: dropped by -d 1 */
	"pages 0x13200+256 free order=8 random\n"
	"pages 0x3ffff+1 anon random\n"
	"pages 0x40000+1 cache random\n"
	"pages 0x5fe00+512 hugetlb order=9\n"
	"pages 0x80000+0x40000 hugetlb order=18\n"
	"pages 0xc0000+8192 anon random\n"
	"pages 0xc2000+1024 cache\n"
	"fill 0x10000+4096 random 5\n";

static const unsigned levels[] = { 0, 1, 2, 4, 8, 16, 31 };

static struct genvm gv;
static char vm_plain[PATH_MAX], vm_cross[PATH_MAX];

/* ---- an opened machine, as dump.c opens it for --explain ---- */

struct machine {
	struct test_vm v;
	struct explain_input in;
	unsigned char *buf;       /* a batch of struct pages */
	unsigned char *page;
	uint8_t *bits;            /* a whole pass's dumpable bitmap */
	struct mdf_explain e;
};

static enum mdf_status machine_open(struct machine *m, const char *path,
				    struct mdf_err *err)
{
	struct cache_config cc = { .policy = CACHE_MMAP_TRY };
	enum mdf_status st;

	memset(m, 0, sizeof(*m));
	st = test_vm_open(&m->v, path, &cc, PAGE, err);
	if (st == MDF_OK)
		st = kernel_find_memmap(&m->v.k, err);
	if (st != MDF_OK)
		return st;
	m->in.name = path;
	m->in.ki = &m->v.k.ki;
	m->in.rm = &m->v.k.rm;
	m->in.mm = &m->v.k.mm;
	m->in.in = &elf_input_ops;
	m->in.in_obj = &m->v.elf;
	m->in.elf = &m->v.elf;
	m->in.input_level = -1;
	m->in.page_size = PAGE;
	m->in.max_pfn = m->v.k.max_pfn;
	m->buf = malloc(FILTER_BATCH * 256);
	m->page = malloc(PAGE);
	m->bits = calloc(1, (size_t)(m->in.max_pfn / 8 + 8));
	if (!m->buf || !m->page || !m->bits)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	return MDF_OK;
}

static void machine_close(struct machine *m)
{
	free(m->buf);
	free(m->page);
	free(m->bits);
	test_vm_close(&m->v);
	memset(m, 0, sizeof(*m));
}

/*
 * The whole machine's dumpable bitmap at @level, as a run builds it:
 * cycles of @cycle pfns, each starting from the input's bitmaps less the
 * free lists (@fl, when given), scanned serially with the carry between
 * them.  Zero pages are not dropped (the run does that after the scan).
 */
static enum mdf_status run_pass(struct machine *m, unsigned level, uint64_t cycle,
				const struct freelist_result *fl, struct mdf_err *err)
{
	struct filter_rules r;
	struct filter_warnings warn;
	struct filter_carry carry = { 0 };
	struct bitmap present, dumpable;
	enum mdf_status st;

	st = filter_rules_init(&r, m->in.ki, level, false, &warn, err);
	if (st != MDF_OK)
		return st;
	st = bitmap_init(&present, cycle, err);
	if (st != MDF_OK)
		return st;
	st = bitmap_init(&dumpable, cycle, err);
	for (uint64_t start = 0; st == MDF_OK && start < m->in.max_pfn; start += cycle) {
		uint64_t end = MDF_MIN(start + cycle, m->in.max_pfn);
		struct filter_counts c;

		memset(&c, 0, sizeof(c));
		bitmap_reset(&present, start, end);
		m->in.in->cycle_bitmaps(m->in.in_obj, PAGE, &present, &dumpable);
		if (fl && warn.no_free_detection)
			(void)freelist_apply(fl, &dumpable);
		st = filter_cycle(&r, m->in.mm, m->in.rm, &present, &dumpable, m->buf, &carry,
				  &c, err);
		if (st == MDF_OK)
			memcpy(m->bits + start / 8, dumpable.bits, bitmap_bytes(&dumpable));
	}
	bitmap_release(&present);
	bitmap_release(&dumpable);
	return st;
}

static bool bit(const uint8_t *bits, uint64_t pfn)
{
	return (bits[pfn / 8] >> (pfn % 8)) & 1;
}

/* What the scan left of @pfn, per explain_level(): kept or not (a zero
 * page is one the scan kept). */
static bool scan_kept(const struct mdf_explain_level *l)
{
	return l->how == MDF_EXPLAIN_KEPT || l->how == MDF_EXPLAIN_ZERO ||
	       l->how == MDF_EXPLAIN_UNREADABLE || l->how == MDF_EXPLAIN_NO_MEMMAP ||
	       l->how == MDF_EXPLAIN_NOT_SCANNED;
}

/* explain_level() agrees with @bits for @pfn; false with the reason. */
static bool agrees(struct machine *m, const uint8_t *bits, unsigned level, uint64_t pfn,
		   char *msg, size_t len)
{
	struct mdf_explain_level l;
	struct mdf_err err;
	const unsigned char *p;

	mdf_err_clear(&err);
	if (explain_level(&m->in, pfn, level, &l, &err) != MDF_OK) {
		snprintf(msg, len, "pfn 0x%llx -d %u: %.200s", (unsigned long long)pfn, level, err.msg);
		return false;
	}
	if (scan_kept(&l) != bit(bits, pfn)) {
		snprintf(msg, len, "pfn 0x%llx -d %u: explain says how %d cls %d head 0x%llx, "
			 "the scan %s it", (unsigned long long)pfn, level, (int)l.how, (int)l.cls,
			 (unsigned long long)l.head, bit(bits, pfn) ? "kept" : "dropped");
		return false;
	}
	if (l.how == MDF_EXPLAIN_EXCLUDED &&
	    (l.head > pfn || pfn - l.head >= l.nr_pages || l.head % l.nr_pages)) {
		snprintf(msg, len, "pfn 0x%llx -d %u: head 0x%llx x%llu does not cover it",
			 (unsigned long long)pfn, level, (unsigned long long)l.head,
			 (unsigned long long)l.nr_pages);
		return false;
	}
	/* A zero verdict only at a level with bit 1, on a page of zeros. */
	if (l.how == MDF_EXPLAIN_ZERO &&
	    (!(level & 1) || readmem_page(m->in.rm, pfn, m->page, &p, &err) != MDF_OK ||
	     !util_is_zero(p, PAGE))) {
		snprintf(msg, len, "pfn 0x%llx -d %u: a zero verdict on a page that is not",
			 (unsigned long long)pfn, level);
		return false;
	}
	if ((level & 1) && l.how == MDF_EXPLAIN_KEPT &&
	    readmem_page(m->in.rm, pfn, m->page, &p, &err) == MDF_OK && util_is_zero(p, PAGE)) {
		snprintf(msg, len, "pfn 0x%llx -d %u: a zero page kept", (unsigned long long)pfn,
			 level);
		return false;
	}
	return true;
}

/* The pfns checked: both edges of every declared range and of the
 * windows, and a spread over the machine. */
static size_t sample(uint64_t *out, size_t cap)
{
	static const uint64_t edges[] = {
		0, 1, 0xff, 0x100, 0x101, 0x10000, 0x10fff, 0x11000, 0x117ff, 0x11800,
		0x11bff, 0x11c00, 0x11dff, 0x12000, 0x12001, 0x121ff, 0x12200, 0x12fff,
		0x13000, 0x1303f, 0x13040, 0x13047, 0x13048, 0x1304f, 0x13050, 0x13100,
		0x131ff, 0x13200, 0x13280, 0x132ff, 0x13300, 0x3fffe, 0x3ffff, 0x40000,
		0x40001, 0x5fdff, 0x5fe00, 0x5fe01, 0x5ffff, 0x60000, 0x6ffff, 0x70000,
		0x7ffff, 0x80000, 0x80001, 0x9ffff, 0xbffff, 0xc0000, 0xc0001, 0xc1fff,
		0xc2000, 0xc23ff, 0xc2400, 0xfffff,
	};
	size_t n = 0;
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < ARRAY_SIZE(edges) && n < cap; i++)
		out[n++] = edges[i];
	while (n < cap) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		out[n++] = x % MAX_PFN;
	}
	return n;
}

/* Open @vm, run @body on it, close it (the T_ macros return early). */
static void with_machine(const char *vm, void (*body)(struct machine *m))
{
	static struct machine m;
	struct mdf_err err;

	if (!gv.ok) {
		t_skip(gv.why);
		return;
	}
	if (machine_open(&m, vm, &err) != MDF_OK)
		t_fail(__FILE__, __LINE__, err.msg);
	else
		body(&m);
	machine_close(&m);
}

/* Every level's whole pass (with the free lists @fl applied when the
 * level walks them) against explain_level() on @pfns. */
static void check_levels(struct machine *m, const struct freelist_result *fl,
			 const uint64_t *pfns, size_t n)
{
	struct mdf_err err;
	char msg[300];

	for (size_t li = 0; li < ARRAY_SIZE(levels); li++) {
		T_OK(run_pass(m, levels[li], 0x61000, fl, &err), &err);
		for (size_t i = 0; i < n; i++) {
			if (!agrees(m, m->bits, levels[li], pfns[i], msg, sizeof(msg))) {
				t_fail(__FILE__, __LINE__, msg);
				return;
			}
		}
	}
}

static void machine_checks(struct machine *m)
{
	uint64_t pfns[96];
	size_t n = sample(pfns, ARRAY_SIZE(pfns));

	T_EQ_U64(m->in.max_pfn, MAX_PFN);
	check_levels(m, NULL, pfns, n);
}

static void t_plain(void)
{
	with_machine(vm_plain, machine_checks);
}

static void t_crossing(void)
{
	with_machine(vm_cross, machine_checks);
}

/* The pfns past 0xc0000 of the order-19 page: decided by its head at
 * 0x80000, more than 2^18 pfns before them. */
static void far_head(struct machine *m)
{
	static const uint64_t pfns[] = { 0xc0000, 0xc2100, 0xfffff, 0x80000, 0xbffff };
	struct mdf_err err;
	struct mdf_explain_level l;

	for (size_t i = 0; i < ARRAY_SIZE(pfns); i++) {
		T_OK(explain_level(&m->in, pfns[i], 8, &l, &err), &err);
		T_EQ_U64(l.how, MDF_EXPLAIN_EXCLUDED);
		T_EQ_U64(l.cls, PC_USER);
		T_EQ_U64(l.head, 0x80000);
		T_EQ_U64(l.nr_pages, 0x80000);
	}
}

/* On the plain machine the same pfns are its own anon and cache. */
static void near_head(struct machine *m)
{
	struct mdf_err err;
	struct mdf_explain_level l;

	T_OK(explain_level(&m->in, 0xc0000, 8, &l, &err), &err);
	T_EQ_U64(l.how, MDF_EXPLAIN_EXCLUDED);
	T_EQ_U64(l.head, 0xc0000);
	T_EQ_U64(l.nr_pages, 1);
	T_OK(explain_level(&m->in, 0xc2100, 8, &l, &err), &err);
	T_EQ_U64(l.how, MDF_EXPLAIN_KEPT);
	T_OK(explain_level(&m->in, 0xbffff, 8, &l, &err), &err);
	T_EQ_U64(l.head, 0x80000);
	T_EQ_U64(l.nr_pages, 0x40000);
}

static void t_far_head(void)
{
	with_machine(vm_cross, far_head);
	with_machine(vm_plain, near_head);
}

static bool has_flag(const struct mdf_explain *e, const char *name)
{
	for (unsigned i = 0; i < e->nflag_names; i++)
		if (strcmp(e->flag_names[i], name) == 0)
			return true;
	return false;
}

/* The page itself: fields, names and the compound head as read. */
static void page_fields(struct machine *m)
{
	static const unsigned extra[] = { 3, 31, 8, 24 };
	struct mdf_explain *e = &m->e;
	struct mdf_err err;

	/* A THP tail: its head found from compound_head. */
	T_OK(explain_page(&m->in, 0x12005, false, extra, ARRAY_SIZE(extra), e, &err), &err);
	T_EQ_U64(e->pfn, 0x12005);
	T_EQ_U64(e->paddr, 0x12005000);
	T_ASSERT(e->present && e->has_data && e->have_load && e->in_file);
	T_ASSERT(e->have_page);
	T_EQ_U64(e->page_vaddr, VMEMMAP + 0x12005 * 64);
	T_ASSERT(e->tail && e->head_known && e->head_read && e->head_is_head);
	T_EQ_U64(e->head_pfn, 0x12000);
	T_EQ_U64(e->head_order, 9);
	T_ASSERT(!e->head_hugetlb && !e->head_flag);
	/* The default levels, then 3 and 24 (31 and 8 were there). */
	T_EQ_U64(e->nlevels, 9);
	T_EQ_U64(e->levels[7].level, 3);
	T_EQ_U64(e->levels[8].level, 24);
	T_EQ_U64(e->levels[4].how, MDF_EXPLAIN_EXCLUDED);
	T_EQ_U64(e->levels[4].head, 0x12000);
	T_EQ_U64(e->levels[3].how, MDF_EXPLAIN_KEPT);
	T_EQ_U64(e->levels[3].cls, PC_TAIL);

	/* The hugetlb head, by physical address. */
	T_OK(explain_page(&m->in, 0x5fe00123, true, NULL, 0, e, &err), &err);
	T_EQ_U64(e->pfn, 0x5fe00);
	T_ASSERT(e->by_paddr && e->asked_paddr == 0x5fe00123);
	T_ASSERT(e->head_flag && e->hugetlb && !e->tail);
	T_EQ_U64(e->order, 9);
	T_ASSERT(has_flag(e, "PG_head"));

	/* A free block's head: its page type, private = the order. */
	T_OK(explain_page(&m->in, 0x13200, false, NULL, 0, e, &err), &err);
	T_ASSERT(e->page_type && strncmp(e->page_type, "buddy", 5) == 0);
	T_EQ_U64(e->private_, 8);
	T_EQ_U64(e->levels[5].how, MDF_EXPLAIN_EXCLUDED);
	T_EQ_U64(e->levels[5].cls, PC_FREE);
	T_EQ_U64(e->levels[5].nr_pages, 256);

	/* Hwpoison: its flag named, dropped at every level. */
	T_OK(explain_page(&m->in, 0x13041, false, NULL, 0, e, &err), &err);
	T_ASSERT(has_flag(e, "PG_hwpoison"));
	for (unsigned i = 0; i < e->nlevels; i++) {
		T_EQ_U64(e->levels[i].how, MDF_EXPLAIN_EXCLUDED);
		T_EQ_U64(e->levels[i].cls, PC_HWPOISON);
	}

	/* A kernel page of zeros: kept, but dropped by the zero check. */
	T_OK(explain_page(&m->in, 0x13150, false, NULL, 0, e, &err), &err);
	T_ASSERT(e->have_content && e->zero);
	T_EQ_U64(e->levels[0].how, MDF_EXPLAIN_KEPT);
	T_EQ_U64(e->levels[1].how, MDF_EXPLAIN_ZERO);
	T_EQ_U64(e->levels[2].how, MDF_EXPLAIN_KEPT);
	T_EQ_U64(e->levels[6].how, MDF_EXPLAIN_ZERO);

	/* The hole between the RAM ranges. */
	T_OK(explain_page(&m->in, 0x65000, false, NULL, 0, e, &err), &err);
	T_ASSERT(!e->present && !e->have_load && !e->have_content);
	for (unsigned i = 0; i < e->nlevels; i++)
		T_EQ_U64(e->levels[i].how, MDF_EXPLAIN_HOLE);
}

static void t_page_fields(void)
{
	with_machine(vm_plain, page_fields);
}

static void out_of_range(struct machine *m)
{
	struct mdf_err err;
	char want[PATH_MAX + 128];

	T_EQ_U64(explain_page(&m->in, MAX_PFN, false, NULL, 0, &m->e, &err), MDF_ERR_ARG);
	snprintf(want, sizeof(want),
		 "--explain: pfn 0x100000 is not in %s's memory (max pfn 0xfffff)", vm_plain);
	T_EQ_STR(err.msg, want);
	T_EQ_U64(explain_page(&m->in, MAX_PFN * PAGE + 5, true, NULL, 0, &m->e, &err),
		 MDF_ERR_ARG);
	snprintf(want, sizeof(want), "--explain: physical address 0x100000005, pfn 0x100000 "
		 "is not in %s's memory (max pfn 0xfffff)", vm_plain);
	T_EQ_STR(err.msg, want);
	T_OK(explain_page(&m->in, MAX_PFN - 1, false, NULL, 0, &m->e, &err), &err);
}

static void t_out_of_range(void)
{
	with_machine(vm_plain, out_of_range);
}

/* No buddy marker: the free lists a run walks drop their pfns at the
 * levels with bit 16, before the scan, and the scan skips them. */
static void free_lists(struct machine *m)
{
	/* Inside anon pages, across a THP's head and some of its tails, and
	 * a pfn of a free block whose head the walk did not find. */
	static struct pfn_range ranges[] = {
		{ 0x10010, 0x10020 }, { 0x12200, 0x12204 }, { 0x13280, 0x13281 },
	};
	static const uint64_t pfns[] = {
		0x1000f, 0x10010, 0x1001f, 0x10020, 0x121ff, 0x12200, 0x12203, 0x12204,
		0x123ff, 0x13200, 0x13280, 0x13281,
	};
	struct freelist_result fl = { .free = { .r = ranges, .n = ARRAY_SIZE(ranges) } };
	struct mdf_err err;
	struct mdf_explain_level l;

	/* As if VMCOREINFO had no buddy marker. */
	m->v.k.ki.num.PAGE_BUDDY_MAPCOUNT_VALUE.set = false;
	T_OK(explain_level(&m->in, 0x10015, 16, &l, &err), &err);
	T_EQ_U64(l.how, MDF_EXPLAIN_KEPT);
	T_ASSERT(l.free_unknown);
	m->in.free_lists = &fl;
	T_OK(explain_level(&m->in, 0x10015, 16, &l, &err), &err);
	T_EQ_U64(l.how, MDF_EXPLAIN_FREE_LIST);
	T_ASSERT(!l.free_unknown);
	T_OK(explain_level(&m->in, 0x10015, 8, &l, &err), &err);
	T_EQ_U64(l.how, MDF_EXPLAIN_EXCLUDED);
	/* The free block at 0x13200 is not found without the marker. */
	T_OK(explain_level(&m->in, 0x13201, 16, &l, &err), &err);
	T_EQ_U64(l.how, MDF_EXPLAIN_KEPT);
	check_levels(m, &fl, pfns, ARRAY_SIZE(pfns));
}

static void t_free_lists(void)
{
	with_machine(vm_plain, free_lists);
}

int main(int argc, char **argv)
{
	(void)argc;
	genvm_init(&gv, argv[0], "mdf-explain");
	genvm_make(&gv, spec, "plain.elf", vm_plain, sizeof(vm_plain));
	genvm_make(&gv, spec, "cross.elf", vm_cross, sizeof(vm_cross));
	genvm_set_order(&gv, vm_cross, VMEMMAP, 0x80000, 19);

	T_RUN(t_plain);
	T_RUN(t_crossing);
	T_RUN(t_far_head);
	T_RUN(t_page_fields);
	T_RUN(t_out_of_range);
	T_RUN(t_free_lists);

	genvm_fini(&gv);
	return t_done();
}
