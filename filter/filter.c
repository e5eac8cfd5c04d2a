/*
 * filter.c - classify struct pages for a dump level.
 *
 * The order of the tests follows makedumpfile's, first match wins:
 *   compound tail (its head decides) -> free (buddy) -> unaccepted ->
 *   non-private cache -> any cache -> user data -> hwpoison -> offline.
 * Hwpoison and offline pages are dropped at every dump level.
 *
 * A missing VMCOREINFO number disables the rule that needs it, so the page
 * is kept: a wrongly excluded page is worse than a bigger dump.
 * find_gaps() records which rules a level loses so, and for want of which
 * entries; the scan then counts, for each, the kept pages it might have
 * excluded (filter_kept_gaps()), for the report.
 *
 * Each rule names its case of the page-state matrix in a "Lab case" line
 * (tests/lab/matrix.sh, README "Page-state lab matrix"): the case that reaches it on
 * real Debian kernels 5.10, 6.1, 6.12 and 7.3; every case also carries the
 * lab's default workload (anon, THP, 2 MiB hugetlb, page cache, buffer
 * heads, shmem, free memory).  tests/e2e/rules.sh checks the names.
 */
#include "filter/filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static uint64_t bit(const struct kinfo_s64 *n)
{
	return n->set && n->v >= 0 && n->v < 64 ? 1ULL << n->v : 0;
}

/*
 * The struct page layout VMCOREINFO gives must be one a kernel can have:
 * SIZE(page) a multiple of the word (8; 4 on i386) from four words to
 * FILTER_PAGE_STRUCT_MAX (56, 64, 72 and 80 are real 64-bit sizes, 40 an
 * i386 one), and every field the rules read
 * aligned and inside it.  Anything else would read the next struct page's
 * bytes (or past the batch) and decide pages by garbage, so the line that
 * is wrong is named instead.
 */
static enum mdf_status check_layout(const struct kinfo *ki, struct mdf_err *err)
{
	/* unsigned long and pointers: 4 bytes on i386, where struct page
	 * is 40 bytes (Debian's 6.1 686 and 686-pae kernels) */
	const uint64_t w = kinfo_word_size(ki);
	const struct {
		const struct kinfo_u64 *f;
		const char *key;
		uint64_t width;
	} fields[] = {
		{ &ki->off.page_flags, "page.flags", w },
		{ &ki->off.page_mapping, "page.mapping", w },
		{ &ki->off.page_private, "page.private", w },
		{ &ki->off.page_compound_head, "page.compound_head", w },
		{ &ki->off.page_compound_info, "page.compound_info", w },
		{ &ki->off.page__mapcount, "page._mapcount", 4 },
		{ &ki->off.page__refcount, "page._refcount", 4 },
		{ &ki->off.page_lru, "page.lru", w },
		/* Bytes of page[1] (4.16 on; a short before): read inside
		 * the tail's struct page, never past it. */
		{ &ki->off.page_compound_dtor, "page.compound_dtor", 1 },
		{ &ki->off.page_compound_order, "page.compound_order", 1 },
	};
	/* 6.3 to 6.5: the folio's fields in its first tail page (struct
	 * folio spans the head's and the next struct pages). */
	const struct {
		const struct kinfo_u64 *f;
		const char *key;
	} folio[] = {
		{ &ki->off.folio__folio_dtor, "folio._folio_dtor" },
		{ &ki->off.folio__folio_order, "folio._folio_order" },
	};
	uint64_t size = ki->size.page.v;

	if (size < 4 * w || size > FILTER_PAGE_STRUCT_MAX || size % w)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "VMCOREINFO: SIZE(page)=%llu is no struct page size "
				   "(a multiple of %u from %u to %u)",
				   (unsigned long long)size, (unsigned)w, (unsigned)(4 * w),
				   FILTER_PAGE_STRUCT_MAX);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		uint64_t off = fields[i].f->v;

		if (!fields[i].f->set)
			continue;
		if (off % fields[i].width)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "VMCOREINFO: OFFSET(%s)=%llu is not %llu-byte aligned",
					   fields[i].key, (unsigned long long)off,
					   (unsigned long long)fields[i].width);
		if (off > size - fields[i].width)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "VMCOREINFO: OFFSET(%s)=%llu lies outside SIZE(page)=%llu",
					   fields[i].key, (unsigned long long)off,
					   (unsigned long long)size);
	}
	for (size_t i = 0; i < sizeof(folio) / sizeof(folio[0]); i++) {
		uint64_t off = folio[i].f->v;

		if (folio[i].f->set && (off < size || off >= 4 * size))
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "VMCOREINFO: OFFSET(%s)=%llu lies outside the folio's "
					   "tail pages (%llu to %llu with SIZE(page)=%llu)",
					   folio[i].key, (unsigned long long)off,
					   (unsigned long long)size,
					   (unsigned long long)(4 * size - 1),
					   (unsigned long long)size);
	}
	return MDF_OK;
}

static void gap_key(struct filter_rules *r, enum page_rule rule, const char *key)
{
	struct rule_gap *g = &r->gap[rule];

	g->off = true;
	if (g->nkeys < RULE_GAP_KEYS)
		g->keys[g->nkeys++] = key;
	r->gap_mask |= 1u << rule;
}

static void gap_untested(struct filter_rules *r, enum page_rule rule)
{
	if (!r->gap[rule].off)
		return;
	r->gap[rule].untested = true;
	r->untested_mask |= 1u << rule;
}

/* The hugetlb marker the kernel version calls for, all of them when the
 * version is unknown: from 6.9 the page_type, 6.6 to 6.8 PG_hugetlb, 6.3
 * to 6.5 folio._folio_dtor, page[1].compound_dtor before (the commits
 * are named in filter_rules_init()). */
static void hugetlb_keys(struct filter_rules *r, const struct kinfo *ki)
{
	unsigned v = r->kver;

	if (r->dtor_src == DTOR_PAGE1_FIELD || r->dtor_src == DTOR_FOLIO_FIELD) {
		if (!r->has_hugetlb_dtor)
			gap_key(r, PR_HUGETLB, "NUMBER(HUGETLB_PAGE_DTOR)");
		return;
	}
	if (r->dtor_src != DTOR_NONE)
		return;
	if (!v || v >= util_kver(6, 9, 0)) {
		if (!ki->num.PAGE_HUGETLB_MAPCOUNT_VALUE.set)
			gap_key(r, PR_HUGETLB, "NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)");
		else
			gap_key(r, PR_HUGETLB, "OFFSET(page._mapcount)");
	}
	if (!v || (v >= util_kver(6, 6, 0) && v < util_kver(6, 9, 0)))
		gap_key(r, PR_HUGETLB, "NUMBER(PG_hugetlb)");
	if (!v || (v >= util_kver(6, 3, 0) && v < util_kver(6, 6, 0)))
		gap_key(r, PR_HUGETLB, "OFFSET(folio._folio_dtor)");
	if (!v || v < util_kver(6, 3, 0))
		gap_key(r, PR_HUGETLB, "OFFSET(page.compound_dtor)");
}

/*
 * The rules the dump level asks for that cannot run, each with the
 * VMCOREINFO entries it lacks (where either of two would do, both are
 * named), so that the report can say how many pages were kept for want
 * of them.  Entries only exported when a feature is built in, such as
 * NUMBER(PG_hwpoison) (CONFIG_MEMORY_FAILURE) or the hugetlb markers,
 * count as missing all the same: nothing in the dump tells a kernel
 * without the feature from a VMCOREINFO that lost the line.  Two are
 * left out: NUMBER(PAGE_UNACCEPTED_MAPCOUNT_VALUE), exported only with
 * CONFIG_UNACCEPTED_MEMORY since Linux 6.16 (247021624a99), and
 * NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE) before 5.1, which had no offline
 * pages (e04b742f74c2).
 */
static void find_gaps(struct filter_rules *r, const struct kinfo *ki)
{
	unsigned dl = r->dump_level;

	if (!r->scan)
		return;   /* no struct page is read: no rule runs */
	if ((dl & DL_EXCLUDE_FREE) && !r->can_find_free) {
		if (!r->has_private)
			gap_key(r, PR_FREE, "OFFSET(page.private)");
		if (!r->has_buddy_mc && !r->m_buddy) {
			gap_key(r, PR_FREE, ki->num.PAGE_BUDDY_MAPCOUNT_VALUE.set ?
				"OFFSET(page._mapcount)" : "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)");
			gap_key(r, PR_FREE, "NUMBER(PG_buddy)");
		}
		gap_untested(r, PR_FREE);
	}
	if (dl & (DL_EXCLUDE_CACHE | DL_EXCLUDE_CACHE_PRI)) {
		if (!r->has_mapping)
			gap_key(r, PR_CACHE, "OFFSET(page.mapping)");
		if (!r->m_lru)
			gap_key(r, PR_CACHE, "NUMBER(PG_lru)");
		if (!r->m_swapcache)
			gap_key(r, PR_CACHE, "NUMBER(PG_swapcache)");
		/* -d 2 alone keeps private cache: it must be told apart. */
		if (!(dl & DL_EXCLUDE_CACHE_PRI) && !r->m_private)
			gap_key(r, PR_CACHE, "NUMBER(PG_private)");
	}
	if (dl & DL_EXCLUDE_USER_DATA) {
		if (!r->has_mapping)
			gap_key(r, PR_USER, "OFFSET(page.mapping)");
		if (!r->m_head) {
			gap_key(r, PR_HUGETLB, "NUMBER(PG_head_mask)");
			gap_key(r, PR_HUGETLB, "NUMBER(PG_head)");
		}
		hugetlb_keys(r, ki);
		/* No head flag and no tail marker: no way to see a head. */
		if (!r->m_head && !r->has_head)
			gap_untested(r, PR_HUGETLB);
	}
	if (dl & (DL_EXCLUDE_CACHE | DL_EXCLUDE_CACHE_PRI | DL_EXCLUDE_USER_DATA)) {
		if (!r->m_head) {
			gap_key(r, PR_COMPOUND_TAIL, "NUMBER(PG_head_mask)");
			gap_key(r, PR_COMPOUND_TAIL, "NUMBER(PG_head)");
		}
		if (r->order_src == ORDER_NONE) {
			gap_key(r, PR_COMPOUND_TAIL, "OFFSET(page.compound_order)");
			gap_key(r, PR_COMPOUND_TAIL, "OFFSET(folio._folio_order)");
			if (!ki->osrelease[0])
				gap_key(r, PR_COMPOUND_TAIL, "OSRELEASE");
		}
		/* Without the tail marker a tail is judged as a page of
		 * its own: which pages were tails is not known. */
		if (!r->has_head)
			gap_untested(r, PR_COMPOUND_TAIL);
	}
	if (!r->m_hwpoison) {
		gap_key(r, PR_HWPOISON, "NUMBER(PG_hwpoison)");
		gap_untested(r, PR_HWPOISON);
	}
	if (!r->has_offline_mc && (!r->kver || r->kver >= util_kver(5, 1, 0))) {
		if (!ki->num.PAGE_OFFLINE_MAPCOUNT_VALUE.set)
			gap_key(r, PR_OFFLINE, "NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)");
		if (!r->has_mapcount) {
			gap_key(r, PR_OFFLINE, "OFFSET(page._mapcount)");
			gap_untested(r, PR_OFFLINE);
		}
	}
}

void filter_rules_drop_gap(struct filter_rules *r, enum page_rule rule)
{
	memset(&r->gap[rule], 0, sizeof(r->gap[rule]));
	r->gap_mask &= ~(1u << rule);
	r->untested_mask &= ~(1u << rule);
}

enum mdf_status filter_rules_init(struct filter_rules *r, const struct kinfo *ki,
				  unsigned dump_level, bool big_endian,
				  struct filter_warnings *warn,
				  struct mdf_err *err)
{
	enum mdf_status st;

	memset(r, 0, sizeof(*r));
	memset(warn, 0, sizeof(*warn));
	r->dump_level = dump_level;
	r->big_endian = big_endian;
	r->word_size = kinfo_word_size(ki);
	r->kver = util_parse_kver(ki->osrelease);
	r->needs_memmap = (dump_level & ~DL_EXCLUDE_ZERO) != 0;
	/* Hwpoison and offline pages go at every level, when we can see them;
	 * without struct pages that is simply not possible. */

	if (!ki->size.page.set || !ki->off.page_flags.set) {
		if (r->needs_memmap)
			return mdf_err_set(err, MDF_ERR_NOTSUPP,
					   "dump level %u needs struct page information, "
					   "but VMCOREINFO has no %s",
					   dump_level,
					   ki->size.page.set ? "OFFSET(page.flags)" :
					   ki->off.page_flags.set ? "SIZE(page)" :
					   "SIZE(page) and no OFFSET(page.flags)");
		return MDF_OK;
	}
	st = check_layout(ki, err);
	if (st != MDF_OK && r->needs_memmap)
		return st;
	if (st != MDF_OK) {
		snprintf(warn->no_layout, sizeof(warn->no_layout), "%.159s", err->msg);
		mdf_err_clear(err);
		return MDF_OK;
	}
	r->page_struct_size = ki->size.page.v;
	r->off_flags = ki->off.page_flags.v;
	r->has_mapping = ki->off.page_mapping.set;
	r->off_mapping = ki->off.page_mapping.v;
	r->has_private = ki->off.page_private.set;
	r->off_private = ki->off.page_private.v;
	r->has_mapcount = ki->off.page__mapcount.set;
	r->off_mapcount = ki->off.page__mapcount.v;
	/* 7.1 renamed page.compound_head to page.compound_info in VMCOREINFO
	 * (upstream makedumpfile f50c015; Debian's 7.0.13 image still has the
	 * string "compound_head", its 7.1.13 image "compound_info", and a
	 * real 7.3.4 dump says OFFSET(page.compound_info)=8); bit 0 still
	 * marks a tail page. */
	if (ki->off.page_compound_info.set) {
		r->has_head = true;
		r->off_head = ki->off.page_compound_info.v;
	} else if (ki->off.page_compound_head.set) {
		r->has_head = true;
		r->off_head = ki->off.page_compound_head.v;
	}

	r->m_lru = bit(&ki->num.PG_lru);
	r->m_private = bit(&ki->num.PG_private);
	r->m_swapcache = bit(&ki->num.PG_swapcache);
	r->m_swapbacked = bit(&ki->num.PG_swapbacked);
	r->has_swapbacked = ki->num.PG_swapbacked.set;
	r->m_slab = bit(&ki->num.PG_slab);
	r->m_buddy = bit(&ki->num.PG_buddy);
	r->m_hwpoison = bit(&ki->num.PG_hwpoison);
	r->m_hugetlb = bit(&ki->num.PG_hugetlb);
	if (ki->num.PG_head_mask.set)
		r->m_head = (uint64_t)ki->num.PG_head_mask.v;
	else
		r->m_head = bit(&ki->num.PG_head);

#define MAPCOUNT(field, has, val)                                        \
	do {                                                             \
		r->has = ki->num.field.set && r->has_mapcount;           \
		r->val = (uint32_t)ki->num.field.v;                      \
	} while (0)
	MAPCOUNT(PAGE_BUDDY_MAPCOUNT_VALUE, has_buddy_mc, buddy_mc);
	MAPCOUNT(PAGE_OFFLINE_MAPCOUNT_VALUE, has_offline_mc, offline_mc);
	MAPCOUNT(PAGE_SLAB_MAPCOUNT_VALUE, has_slab_mc, slab_mc);
	MAPCOUNT(PAGE_HUGETLB_MAPCOUNT_VALUE, has_hugetlb_mc, hugetlb_mc);
	MAPCOUNT(PAGE_UNACCEPTED_MAPCOUNT_VALUE, has_unaccepted_mc, unaccepted_mc);
#undef MAPCOUNT

	/* Free pages: page_type/_mapcount marker since 2.6.38 (kernel commit
	 * 5f24ce5fd34c "thp: remove PG_buddy"), PG_buddy flag for 2.6.17 to
	 * 2.6.37.  The buddy order lives in page.private. */
	r->can_find_free = r->has_private && (r->has_buddy_mc || r->m_buddy);
	r->max_order = ki->len.zone_free_area.set && ki->len.zone_free_area.v > 0 &&
			ki->len.zone_free_area.v <= 64 ?
		(unsigned)ki->len.zone_free_area.v - 1 : 10;
	if ((dump_level & DL_EXCLUDE_FREE) && !r->can_find_free)
		warn->no_free_detection = true;
	r->scan = r->needs_memmap || r->m_hwpoison || r->has_offline_mc;

	/* Compound order:
	 *  - up to 6.2: page[1].compound_order (a byte since 4.16 by the date
	 *    of kernel "mm: Store compound_dtor / compound_order as bytes"),
	 *  - 6.3 to 6.5: folio._folio_order (kernel commit 1c5509be58f6;
	 *    446c4f6 in makedumpfile),
	 *  - 6.6 and later: the low byte of page[1].flags (folio->_flags_1,
	 *    kernel commit ebc1baf5c9b4 "mm: free up a word in the first tail
	 *    page"), with no VMCOREINFO entry at all.
	 * Lab case: hugetlb1g (order 18), every case's THP (order 9). */
	if (ki->off.page_compound_order.set) {
		r->order_src = ORDER_PAGE1_FIELD;
		r->off_order = ki->off.page_compound_order.v;
	} else if (ki->off.folio__folio_order.set) {
		r->order_src = ORDER_FOLIO_FIELD;
		r->off_order = ki->off.folio__folio_order.v;
	} else if (r->kver >= util_kver(6, 6, 0)) {
		r->order_src = ORDER_PAGE1_FLAGS;
	} else {
		r->order_src = ORDER_NONE;
		warn->no_compound_order = true;
	}

	/* Hugetlb:
	 *  - up to 6.2: page[1].compound_dtor == HUGETLB_PAGE_DTOR (older:
	 *    the address of free_huge_page),
	 *  - 6.3 to 6.5: folio._folio_dtor,
	 *  - 6.6 to 6.8: PG_hugetlb in page[1].flags (9661c1d),
	 *  - 6.9 and later: the head's page_type is PAGE_HUGETLB_MAPCOUNT_VALUE
	 *    (kernel d99e3140a4d3 "mm: turn folio_test_hugetlb into a
	 *    PageType", makedumpfile 985e575).
	 * Lab case: hugetlb1g, every case's 2 MiB pool. */
	r->has_hugetlb_dtor = ki->num.HUGETLB_PAGE_DTOR.set;
	r->hugetlb_dtor = ki->num.HUGETLB_PAGE_DTOR.v;
	r->has_free_huge_page = ki->sym.free_huge_page.set;
	r->free_huge_page = ki->sym.free_huge_page.v;
	if (r->has_hugetlb_mc) {
		r->dtor_src = DTOR_MAPCOUNT;
	} else if (r->m_hugetlb) {
		r->dtor_src = DTOR_PAGE1_PG_HUGETLB;
	} else if (ki->off.page_compound_dtor.set) {
		r->dtor_src = DTOR_PAGE1_FIELD;
		r->off_dtor = ki->off.page_compound_dtor.v;
	} else if (ki->off.folio__folio_dtor.set) {
		r->dtor_src = DTOR_FOLIO_FIELD;
		r->off_dtor = ki->off.folio__folio_dtor.v;
	} else {
		r->dtor_src = DTOR_NONE;
	}

	if (r->kver && (r->kver >> 16) > FILTER_NEWEST_KNOWN_KVER_MAJOR)
		warn->unknown_kernel = true;
	find_gaps(r, ki);
	return MDF_OK;
}

/* A word of struct page (flags, mapping, private, compound_head): an
 * unsigned long or a pointer, 4 bytes on i386. */
static uint64_t rdword(const struct filter_rules *r, const unsigned char *p)
{
	return load_tword(p, r->word_size, r->big_endian);
}

static uint32_t rd32(const struct filter_rules *r, const unsigned char *p)
{
	return load_t32(p, r->big_endian);
}

/* Slab pages: PG_slab until 6.9; since 6.10 a page_type (kernel commit
 * 46df8e73a4a3 "mm: free up PG_slab", makedumpfile bad2a7c).
 * Lab case: reclaim (zsmalloc and slab under swap), every case's slab. */
static bool is_slab(const struct filter_rules *r, uint64_t flags, uint32_t mc)
{
	if (r->has_slab_mc)
		return mc == r->slab_mc;
	return (flags & r->m_slab) != 0;
}

/* Since 6.2 slab.slabs aliases page.mapping, so a slab page can look anon
 * (makedumpfile 5f17bdd): anon means mapping bit 0 and not slab.
 * Lab case: reclaim (KSM pages: mapping bits 0 and 1). */
static bool is_anon(const struct filter_rules *r, uint64_t mapping,
		    uint64_t flags, uint32_t mc)
{
	return r->has_mapping && (mapping & 1) && !is_slab(r, flags, mc);
}

/* Page cache: on the LRU, or in the swap cache.  PG_swapcache shares its
 * bit with PG_owner_priv_1 and means swap cache only with PG_swapbacked
 * (kernel 4.10, 6326fec1122c); before PG_swapbacked existed it stands
 * alone.  Lab case: reclaim (swap cache on zram, mlocked pages on the
 * unevictable LRU). */
static bool is_cache(const struct filter_rules *r, uint64_t flags)
{
	/* Without page.mapping an anon page on the LRU cannot be told from
	 * page cache: no cache rule then, the page is kept. */
	if (!r->has_mapping)
		return false;
	if (flags & r->m_lru)
		return true;
	if (r->m_swapcache && (flags & r->m_swapcache) &&
	    (!r->has_swapbacked || (flags & r->m_swapbacked)))
		return true;
	return false;
}

/* Free buddy block head.  The 6.12 page_type layout keeps the type in the
 * top byte and the marker compare must be on the whole word (makedumpfile
 * 72c3414); a slab page never counts.  Lab case: numa2, numa4 (free lists
 * per node), cma-movable (a Movable zone). */
static bool is_buddy(const struct filter_rules *r, uint64_t flags, uint32_t mc)
{
	if (is_slab(r, flags, mc))
		return false;
	if (r->has_buddy_mc)
		return mc == r->buddy_mc;
	return (flags & r->m_buddy) != 0;
}

bool filter_page_is_slab(const struct filter_rules *r, const unsigned char *page)
{
	return is_slab(r, rdword(r, page + r->off_flags),
		       r->has_mapcount ? rd32(r, page + r->off_mapcount) : 0xffffffffu);
}

bool filter_page_is_buddy(const struct filter_rules *r, const unsigned char *page)
{
	return r->can_find_free &&
	       is_buddy(r, rdword(r, page + r->off_flags),
			r->has_mapcount ? rd32(r, page + r->off_mapcount) : 0xffffffffu);
}

static void compound_info(const struct filter_rules *r, const unsigned char *page,
			  const unsigned char *next, size_t nnext, uint64_t pfn,
			  uint32_t mc, unsigned *order_ret, bool *hugetlb_ret)
{
	size_t psz = (size_t)r->page_struct_size;
	unsigned order = 0;
	bool hugetlb = false;
	uint64_t folio_avail = psz * (1 + nnext);

	/* page[1] is the first tail page: it must be in the batch. */
	if (nnext >= 1) {
		const unsigned char *p1 = next;

		switch (r->order_src) {
		case ORDER_PAGE1_FIELD:
			if (r->off_order < psz)
				order = p1[r->off_order];
			break;
		case ORDER_FOLIO_FIELD:
			if (r->off_order < folio_avail && r->off_order >= psz)
				order = next[r->off_order - psz];
			break;
		case ORDER_PAGE1_FLAGS:
			order = (unsigned)(rdword(r, p1 + r->off_flags) & 0xff);
			break;
		case ORDER_NONE:
			break;
		}
		switch (r->dtor_src) {
		case DTOR_PAGE1_FIELD:
			if (r->off_dtor < psz) {
				unsigned d = p1[r->off_dtor];
				hugetlb = r->has_hugetlb_dtor && d == r->hugetlb_dtor;
			}
			break;
		case DTOR_FOLIO_FIELD:
			if (r->off_dtor < folio_avail && r->off_dtor >= psz) {
				unsigned d = next[r->off_dtor - psz];
				hugetlb = r->has_hugetlb_dtor && d == r->hugetlb_dtor;
			}
			break;
		case DTOR_PAGE1_PG_HUGETLB:
			hugetlb = (rdword(r, p1 + r->off_flags) & r->m_hugetlb) != 0;
			break;
		case DTOR_MAPCOUNT:
		case DTOR_NONE:
			break;
		}
	}
	if (r->dtor_src == DTOR_MAPCOUNT)
		hugetlb = mc == r->hugetlb_mc;
	(void)page;
	/* An order that does not fit the pfn's alignment is not believed. */
	if (order >= 64 || (pfn & ((1ULL << order) - 1)) != 0)
		order = 0;
	*order_ret = order;
	*hugetlb_ret = hugetlb;
}

bool filter_compound(const struct filter_rules *r, const unsigned char *page,
		     const unsigned char *next, size_t nnext, uint64_t pfn,
		     unsigned *order, bool *hugetlb)
{
	uint64_t flags = rdword(r, page + r->off_flags);
	uint32_t mc = r->has_mapcount ? rd32(r, page + r->off_mapcount) : 0xffffffffu;

	*order = 0;
	*hugetlb = false;
	if (!r->m_head || !(flags & r->m_head))
		return false;
	compound_info(r, page, next, nnext, pfn, mc, order, hugetlb);
	return true;
}

uint64_t filter_head_vaddr(const struct filter_rules *r, uint64_t tail_va, uint64_t word)
{
	uint64_t v = word - 1, span = ~v + 1;

	/* a mask is ones down to the span of the largest folio's struct
	 * pages; no struct page lies at such an address */
	if (v && (span & (span - 1)) == 0 && span >= 2 * r->page_struct_size)
		return tail_va & v;
	return v;
}

void filter_classify(const struct filter_rules *r, const unsigned char *page,
		     const unsigned char *next, size_t nnext, uint64_t pfn,
		     struct page_verdict *ret)
{
	unsigned dl = r->dump_level;
	uint64_t flags = rdword(r, page + r->off_flags);
	uint64_t mapping = r->has_mapping ? rdword(r, page + r->off_mapping) : 0;
	uint64_t priv = r->has_private ? rdword(r, page + r->off_private) : 0;
	uint32_t mc = r->has_mapcount ? rd32(r, page + r->off_mapcount) : 0xffffffffu;
	unsigned order = 0;
	bool hugetlb = false;

	ret->cls = PC_KEEP;
	ret->nr_pages = 1;

	if (r->has_head && (rdword(r, page + r->off_head) & 1)) {
		ret->cls = PC_TAIL;
		return;
	}
	if (r->m_head && (flags & r->m_head))
		compound_info(r, page, next, nnext, pfn, mc, &order, &hugetlb);

	if ((dl & DL_EXCLUDE_FREE) && r->can_find_free && is_buddy(r, flags, mc)) {
		/* page.private holds the order of the free block.
		 * Lab case: every case's free memory; numa2, numa4. */
		if (priv <= r->max_order && (pfn & ((1ULL << priv) - 1)) == 0) {
			ret->cls = PC_FREE;
			ret->nr_pages = 1ULL << priv;
			return;
		}
	}
	/* Unaccepted memory of confidential VMs: since Linux 6.16 (kernel
	 * 247021624a99, "crash: export PAGE_UNACCEPTED_MAPCOUNT_VALUE to
	 * vmcoreinfo"; makedumpfile c1a9301): tracked in MAX_PAGE_ORDER
	 * blocks, as free as free pages are.  Lab case: none; unaccepted
	 * memory needs a TDX or SEV-SNP guest, which TCG cannot run. */
	if ((dl & DL_EXCLUDE_FREE) && r->has_unaccepted_mc && mc == r->unaccepted_mc &&
	    (pfn & ((1ULL << r->max_order) - 1)) == 0) {
		ret->cls = PC_UNACCEPTED;
		ret->nr_pages = 1ULL << r->max_order;
		return;
	}
	/* -d 2 keeps private cache: without PG_private it cannot be told
	 * apart, so the rule does not run (find_gaps()).  Lab case: every
	 * case's page cache and block-device buffers; reclaim. */
	if ((dl & DL_EXCLUDE_CACHE) && r->m_private && is_cache(r, flags) &&
	    !(flags & r->m_private) && !is_anon(r, mapping, flags, mc)) {
		ret->cls = PC_CACHE;
	} else if ((dl & DL_EXCLUDE_CACHE_PRI) && is_cache(r, flags) &&
		   !is_anon(r, mapping, flags, mc)) {
		ret->cls = (flags & r->m_private) ? PC_CACHE_PRIVATE : PC_CACHE;
	} else if ((dl & DL_EXCLUDE_USER_DATA) &&
		   (is_anon(r, mapping, flags, mc) || hugetlb)) {
		/* Lab case: reclaim (mlock, KSM), hugetlb1g, hotplug (anon in
		 * hot-added memory); every case's anon, THP and hugetlb. */
		ret->cls = PC_USER;
	} else if (r->m_hwpoison && (flags & r->m_hwpoison)) {
		/* Lab case: hwpoison (MADV_HWPOISON, MADV_SOFT_OFFLINE). */
		ret->cls = PC_HWPOISON;
	} else if (r->has_offline_mc && mc == r->offline_mc) {
		/* Logically offline (balloon, virtio-mem): PG_offline replaced
		 * PG_balloon in 5.1; VMCOREINFO export e04b742f74c2 ("kexec:
		 * export PG_offline to VMCOREINFO").  Lab case: offline
		 * (virtio-balloon inflated, virtio-mem unplugged). */
		ret->cls = PC_OFFLINE;
	} else {
		return;
	}
	ret->nr_pages = 1ULL << order;
}

/* ---- pages kept because a rule could not run ------------------------- */

/* Could the cache rule have excluded this kept page?  What is known must
 * fit; what is not is taken to.  Page cache points at its address_space
 * (bit 0 marks anon, bit 1 movable-ops pages), and hugetlb pages are
 * user data, not cache. */
static bool cache_maybe(const struct filter_rules *r, uint64_t flags,
			uint64_t mapping, uint32_t mc, bool hugetlb)
{
	bool lru, swap;

	if (hugetlb || is_slab(r, flags, mc) || is_anon(r, mapping, flags, mc))
		return false;
	if (!(r->dump_level & DL_EXCLUDE_CACHE_PRI) && (flags & r->m_private))
		return false;
	if (r->m_lru)
		lru = (flags & r->m_lru) != 0;
	else
		lru = !r->has_mapping || (mapping != 0 && (mapping & 3) == 0);
	if (r->m_swapcache)
		swap = (flags & r->m_swapcache) &&
		       (!r->has_swapbacked || (flags & r->m_swapbacked));
	else
		swap = !r->has_swapbacked || (flags & r->m_swapbacked);
	return lru || swap;
}

/* The user rule without page.mapping: an anonymous page is on an LRU or
 * swap backed (or both). */
static bool user_maybe(const struct filter_rules *r, uint64_t flags,
		       uint32_t mc, bool hugetlb)
{
	uint64_t m = r->m_lru | r->m_swapbacked;

	if (hugetlb || is_slab(r, flags, mc))
		return false;
	return !m || (flags & m);
}

/* A page type in _mapcount has the top nibble 0xf (the 6.1 VMCOREINFO
 * gives PAGE_OFFLINE_MAPCOUNT_VALUE -257, 6.12's 0xf1000000); -1 is an
 * unmapped page.  Types we know are not offline. */
static bool offline_maybe(const struct filter_rules *r, uint32_t mc)
{
	if ((mc >> 28) != 0xf || mc == 0xffffffffu)
		return false;
	return !(r->has_buddy_mc && mc == r->buddy_mc) &&
	       !(r->has_slab_mc && mc == r->slab_mc) &&
	       !(r->has_hugetlb_mc && mc == r->hugetlb_mc) &&
	       !(r->has_unaccepted_mc && mc == r->unaccepted_mc);
}

unsigned filter_kept_gaps(const struct filter_rules *r, const unsigned char *page,
			  const unsigned char *next, size_t nnext, uint64_t pfn,
			  enum page_class cls, unsigned tail_gaps)
{
	unsigned precise = r->gap_mask & ~r->untested_mask, m = r->untested_mask;
	uint64_t flags, mapping;
	uint32_t mc;
	unsigned order = 0;
	bool head, hugetlb = false;

	if (cls == PC_TAIL)
		return m | (tail_gaps & r->gap_mask);
	if (!precise)
		return m;
	flags = rdword(r, page + r->off_flags);
	mapping = r->has_mapping ? rdword(r, page + r->off_mapping) : 0;
	mc = r->has_mapcount ? rd32(r, page + r->off_mapcount) : 0xffffffffu;
	if (r->m_head)
		head = (flags & r->m_head) != 0;
	else    /* a head is followed by a tail */
		head = r->has_head && nnext >= 1 && (rdword(r, next + r->off_head) & 1);
	if (head && r->m_head)
		compound_info(r, page, next, nnext, pfn, mc, &order, &hugetlb);
	if ((precise & (1u << PR_CACHE)) && cache_maybe(r, flags, mapping, mc, hugetlb))
		m |= 1u << PR_CACHE;
	if ((precise & (1u << PR_USER)) && user_maybe(r, flags, mc, hugetlb))
		m |= 1u << PR_USER;
	/* A hugetlb page is a compound head off every LRU. */
	if ((precise & (1u << PR_HUGETLB)) && head && !is_slab(r, flags, mc) &&
	    !(flags & r->m_lru))
		m |= 1u << PR_HUGETLB;
	if ((precise & (1u << PR_OFFLINE)) && offline_maybe(r, mc))
		m |= 1u << PR_OFFLINE;
	return m;
}

void filter_counts_add(struct filter_counts *a, const struct filter_counts *b)
{
	for (unsigned i = 0; i < PC_COUNT; i++)
		a->cls[i] += b->cls[i];
	for (unsigned i = 0; i < PR_COUNT; i++)
		a->kept[i] += b->kept[i];
	a->unreadable += b->unreadable;
	a->no_memmap += b->no_memmap;
	a->keep_task += b->keep_task;
}

/* A page the scan keeps: count it for the rules with a gap that might
 * have excluded it.  A tail page counts for what its head's page did,
 * when it follows the head (or the tail before it) directly. */
static void count_kept(const struct filter_rules *r, const unsigned char *page,
		       const unsigned char *next, size_t nnext, uint64_t pfn,
		       enum page_class cls, struct filter_carry *carry,
		       struct filter_counts *counts)
{
	unsigned tail = cls == PC_TAIL && pfn == carry->tail_next ? carry->tail_gaps : 0;
	unsigned m = filter_kept_gaps(r, page, next, nnext, pfn, cls, tail);

	if (cls != PC_TAIL)
		carry->tail_gaps = m & ~r->untested_mask;
	carry->tail_next = pfn + 1;
	for (unsigned i = 0; m; i++, m >>= 1)
		counts->kept[i] += m & 1;
}

/* An excluded page: its tails, if they come (its order was not known),
 * are kept although the exclusion was meant for them too. */
static void count_excluded_head(const struct filter_rules *r, uint64_t pfn,
				struct filter_carry *carry)
{
	carry->tail_gaps = r->gap_mask & ~r->untested_mask & (1u << PR_COMPOUND_TAIL);
	carry->tail_next = pfn + 1;
}

/* Clear [start, end) as class @cls; the part past the window is carried. */
static void exclude(struct bitmap *dumpable, uint64_t start, uint64_t end,
		    enum page_class cls, struct filter_carry *carry,
		    struct filter_counts *counts)
{
	counts->cls[cls] += bitmap_clear_range(dumpable, start, end);
	if (end > dumpable->end_pfn && end > carry->end_pfn) {
		carry->end_pfn = end;
		carry->cls = cls;
	}
}

/* Tell @obs, if there is one, what was decided for [pfn, end). */
static void tell(const struct filter_observer *obs, enum filter_event_kind kind,
		 uint64_t pfn, uint64_t end, const struct page_verdict *v)
{
	struct filter_event ev = { .kind = kind, .pfn = pfn, .end = end };

	if (!obs)
		return;
	if (v)
		ev.v = *v;
	obs->seen(obs->arg, &ev);
}

enum mdf_status filter_cycle(const struct filter_rules *r, struct memmap *mm,
			     struct readmem *rm, const struct bitmap *present,
			     struct bitmap *dumpable, unsigned char *buf,
			     struct filter_carry *carry,
			     struct filter_counts *counts,
			     struct mdf_err *err)
{
	return filter_cycle_observed(r, mm, rm, present, dumpable, buf, carry, counts,
				     NULL, err);
}

enum mdf_status filter_cycle_observed(const struct filter_rules *r, struct memmap *mm,
				      struct readmem *rm, const struct bitmap *present,
				      struct bitmap *dumpable, unsigned char *buf,
				      struct filter_carry *carry,
				      struct filter_counts *counts,
				      const struct filter_observer *obs,
				      struct mdf_err *err)
{
	uint64_t start = present->start_pfn, end = present->end_pfn;
	size_t psz = (size_t)r->page_struct_size;
	const unsigned gaps = r->gap_mask;  /* usually 0: no counting */
	/* Struct pages per read: FILTER_BATCH while the scan goes on from
	 * one batch into the next, FILTER_BATCH_MIN (a page of them) after
	 * an exclusion jumped past a batch.  A free block is judged by its
	 * head alone: mmap touches only that page, and a pread of the input
	 * (--non-mmap, where /proc/vmcore copies page by page) then reads
	 * little more than that page too.  Heads of order >= 1 sit at even
	 * indices of any aligned batch, so their first tail is always in it. */
	uint64_t bsz = FILTER_BATCH;
	uint64_t pfn;

	/* An exclusion begun in the previous cycle. */
	if (carry->end_pfn > start) {
		uint64_t e = carry->end_pfn;
		struct page_verdict cv = { .cls = carry->cls, .nr_pages = e - start };

		carry->end_pfn = 0;
		tell(obs, FILTER_EV_CARRIED, start, e, &cv);
		exclude(dumpable, start, e, carry->cls, carry, counts);
		start = e < end ? e : end;
	}
	if (!r->scan || mm->model == MEMMAP_NONE)
		return MDF_OK;

	pfn = bitmap_next_set(present, start);
	while (pfn < end) {
		uint64_t batch = align_down(pfn, bsz);
		uint64_t bend = batch + bsz, vaddr;
		const unsigned char *sp;
		bool have_map;
		enum mdf_status st;
		size_t n;

		if (bend > mm->max_pfn)
			bend = mm->max_pfn;
		if (bend <= pfn)
			break;
		n = (size_t)(bend - batch);
		st = memmap_page_vaddr(mm, rm, batch, &vaddr, &have_map, err);
		if (st == MDF_ERR_NODATA) {
			/* mem_section itself is not in the dump (a page lost
			 * in an incomplete input): keep the pages. */
			counts->unreadable += bitmap_count(present, batch, bend);
			tell(obs, FILTER_EV_UNREADABLE, pfn, bend, NULL);
			pfn = bitmap_next_set(present, bend);
			continue;
		}
		if (st != MDF_OK)
			return st;
		if (!have_map) {
			/* No mem_map for this section: nothing to judge by.
			 * The kernel has one for all of its RAM, so these
			 * pages tell of a wrong mem_section layout. */
			uint64_t send = align_down(pfn, memmap_section_pfns(mm)) +
					memmap_section_pfns(mm);

			counts->no_memmap += bitmap_count(present, pfn, MDF_MIN(send, end));
			tell(obs, FILTER_EV_NO_MEMMAP, pfn, MDF_MIN(send, end), NULL);
			pfn = bitmap_next_set(present, send);
			continue;
		}
		st = readmem_vaddr_view(rm, vaddr, n * psz, buf, &sp, err);
		if (st != MDF_OK) {
			if (err->status != MDF_ERR_NODATA)
				return mdf_err_push(err, "struct pages of pfn 0x%llx",
						    (unsigned long long)batch);
			counts->unreadable += bitmap_count(present, batch, bend);
			tell(obs, FILTER_EV_UNREADABLE, pfn, bend, NULL);
			pfn = bitmap_next_set(present, bend);
			continue;
		}
		while (pfn < bend && pfn < end) {
			size_t i = (size_t)(pfn - batch);
			struct page_verdict v;
			int hook;

			if (!bitmap_test(dumpable, pfn)) {
				pfn = bitmap_next_set(present, pfn + 1);
				continue;
			}
			hook = r->hook.fn ? r->hook.fn(r->hook.arg, pfn, sp + i * psz) :
					    FILTER_HOOK_UNDECIDED;
			if (hook == FILTER_HOOK_KEEP) {
				v = (struct page_verdict){ .cls = PC_KEEP, .nr_pages = 1 };
				tell(obs, FILTER_EV_PAGE, pfn, pfn + 1, &v);
				pfn = bitmap_next_set(present, pfn + 1);
				continue;
			}
			filter_classify(r, sp + i * psz, sp + (i + 1) * psz,
					n - i - 1, pfn, &v);
			if (hook == FILTER_HOOK_DROP && (v.cls == PC_KEEP || v.cls == PC_TAIL))
				v = (struct page_verdict){ .cls = PC_EXTENSION, .nr_pages = 1 };
			/* --keep-task wins over every class: its pages, and
			 * a compound page any of them is in (its tails are
			 * then kept as tails) */
			if (v.cls != PC_KEEP && v.cls != PC_TAIL && r->keep.fn &&
			    r->keep.fn(r->keep.arg, pfn, v.nr_pages)) {
				counts->keep_task += v.nr_pages;
				v = (struct page_verdict){ .cls = PC_KEEP, .nr_pages = 1 };
			}
			tell(obs, FILTER_EV_PAGE, pfn, pfn + (v.cls == PC_KEEP ||
					v.cls == PC_TAIL ? 1 : v.nr_pages), &v);
			if (v.cls == PC_KEEP || v.cls == PC_TAIL) {
				if (gaps)
					count_kept(r, sp + i * psz, sp + (i + 1) * psz,
						   n - i - 1, pfn, v.cls, carry, counts);
				pfn = bitmap_next_set(present, pfn + 1);
				continue;
			}
			if (gaps)
				count_excluded_head(r, pfn, carry);
			exclude(dumpable, pfn, pfn + v.nr_pages, v.cls, carry, counts);
			pfn = bitmap_next_set(present, pfn + v.nr_pages);
		}
		bsz = pfn == bend ? MDF_MIN(2 * bsz, (uint64_t)FILTER_BATCH) : FILTER_BATCH_MIN;
	}
	return MDF_OK;
}
