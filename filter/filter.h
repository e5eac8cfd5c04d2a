/*
 * filter.h - which pages a dump level drops, decided from the kernel's own
 * struct page fields.
 *
 * filter_rules_init() turns VMCOREINFO (struct kinfo) into a rule set once;
 * filter_classify() is pure: given the raw bytes of a struct page (and of
 * the struct pages after it, for compound pages) it says what the page is
 * and how many pages the verdict covers.  Every kernel-version rule lives
 * here, each next to a comment naming the kernel version or commit.
 */
#ifndef MDF_FILTER_H
#define MDF_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kinfo.h"
#include "pageclass.h"

/* Dump level bits (-d). */
enum {
	DL_EXCLUDE_ZERO = 1,
	DL_EXCLUDE_CACHE = 2,
	DL_EXCLUDE_CACHE_PRI = 4,
	DL_EXCLUDE_USER_DATA = 8,
	DL_EXCLUDE_FREE = 16,
};


struct filter_rules {
	unsigned dump_level;
	uint64_t page_struct_size;   /* SIZE(page) */
	unsigned kver;               /* KERNEL_VERSION(a,b,c) from OSRELEASE, 0 unknown */
	bool big_endian;             /* target byte order of struct page words */

	/* struct page field offsets; has_* false when VMCOREINFO lacks them */
	uint64_t off_flags, off_mapping, off_private, off_mapcount, off_head;
	bool has_mapping, has_private, has_mapcount, has_head;
	/* where the compound order and destructor live (see filter.c) */
	enum { ORDER_NONE, ORDER_PAGE1_FIELD, ORDER_FOLIO_FIELD, ORDER_PAGE1_FLAGS } order_src;
	uint64_t off_order;          /* ORDER_PAGE1_FIELD: in page[1]; FOLIO: from head */
	enum { DTOR_NONE, DTOR_PAGE1_FIELD, DTOR_FOLIO_FIELD, DTOR_PAGE1_PG_HUGETLB,
	       DTOR_MAPCOUNT } dtor_src;
	uint64_t off_dtor;
	int64_t hugetlb_dtor;        /* HUGETLB_PAGE_DTOR */
	uint64_t free_huge_page;     /* older kernels: dtor is this address */
	bool has_hugetlb_dtor, has_free_huge_page;

	/* flag masks (0 when unknown) */
	uint64_t m_lru, m_private, m_swapcache, m_swapbacked, m_slab, m_buddy,
		 m_hwpoison, m_head, m_hugetlb;
	bool has_swapbacked;

	/* _mapcount (page_type) values */
	bool has_buddy_mc, has_offline_mc, has_slab_mc, has_hugetlb_mc, has_unaccepted_mc;
	uint32_t buddy_mc, offline_mc, slab_mc, hugetlb_mc, unaccepted_mc;

	unsigned max_order;          /* LENGTH(zone.free_area) - 1 */
	bool can_find_free;          /* buddy identification available */
	bool needs_memmap;           /* dump level needs struct pages */
	bool scan;                   /* read struct pages: the level needs them, or
					hwpoison/offline pages can be seen (dropped
					at every level, as makedumpfile does) */
};

/* Why a rule set is weaker than asked: reported as warnings. */
struct filter_warnings {
	bool no_free_detection;     /* -d 16 but no way to identify buddy pages */
	bool unknown_kernel;        /* newer than the newest rule we know */
	bool no_compound_order;     /* compound pages judged one page at a time */
	/* The struct page layout is unusable and the level needs none of it
	 * (hwpoison and offline pages are then kept): why, or "". */
	char no_layout[160];
};

/** Build the rules for @dump_level from @ki.  Fails only when the level
 *  needs struct pages and VMCOREINFO lacks the minimum to read them. */
enum mdf_status filter_rules_init(struct filter_rules *r, const struct kinfo *ki,
				  unsigned dump_level, bool big_endian, struct filter_warnings *warn,
				  struct mdf_err *err) MDF_MUST_CHECK;

struct page_verdict {
	enum page_class cls;   /* KEEP, TAIL or an exclusion class */
	uint64_t nr_pages;     /* pages covered (1 << order for compound/buddy) */
};

/**
 * Classify the struct page at @page for pfn @pfn.  @next points at the
 * struct pages that follow it (@nnext of them, possibly 0): compound
 * pages keep their order and destructor in the first tail pages.
 * @pfn is used only for the alignment check of a compound order.
 */
void filter_classify(const struct filter_rules *r, const unsigned char *page,
		     const unsigned char *next, size_t nnext, uint64_t pfn,
		     struct page_verdict *ret);

/** Newest kernel whose struct page rules this file knows. */
#define FILTER_NEWEST_KNOWN_KVER_MAJOR 7

/* ---- the scan: struct pages of one cycle -> dumpable bitmap ---------- */

#include "bitmap.h"
#include "kernel/memmap.h"
#include "readmem.h"

/* Pages excluded per class (unique pfns). */
struct filter_counts {
	uint64_t cls[PC_COUNT];
	uint64_t unreadable;   /* struct pages we could not read: kept */
	uint64_t no_memmap;    /* present pages no mem_section maps: kept */
};

/* An exclusion that runs past the end of a cycle continues in the next. */
struct filter_carry {
	uint64_t end_pfn;
	enum page_class cls;
};

/**
 * Classify every present pfn of the window of @dumpable (which starts as a
 * copy of @present) and clear the excluded ones, counting them in @counts.
 * Struct pages are read in batches of 512 through @rm; a batch that cannot
 * be read is kept and counted in counts->unreadable.  @buf must hold
 * 512 struct pages.  @carry is kept between cycles (zero it before the
 * first).
 */
enum mdf_status filter_cycle(const struct filter_rules *r, struct memmap *mm,
			     struct readmem *rm, const struct bitmap *present,
			     struct bitmap *dumpable, unsigned char *buf,
			     struct filter_carry *carry,
			     struct filter_counts *counts,
			     struct mdf_err *err) MDF_MUST_CHECK;

#define FILTER_BATCH 512
/* The largest SIZE(page) accepted (filter_rules_init). */
#define FILTER_PAGE_STRUCT_MAX 256

#endif
