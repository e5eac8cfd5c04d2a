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


/* A page hook (--extension, filter/extension.h): for each page whose
 * struct page the scan reads, before the rules; FILTER_HOOK_KEEP keeps it
 * whatever they say, FILTER_HOOK_DROP drops it when they keep it.  It may
 * be called from the scan threads at once. */
enum { FILTER_HOOK_UNDECIDED = 0, FILTER_HOOK_KEEP = 1, FILTER_HOOK_DROP = 2 };
struct filter_page_hook {
	int (*fn)(void *arg, uint64_t pfn, const unsigned char *page);
	void *arg;
};

/* --keep-task (filter/keeptask.h): whether any of the pfns [pfn, pfn +
 * npfn), which the rules would exclude, belongs to a task kept whole.
 * Called from the scan threads at once. */
struct filter_keep {
	bool (*fn)(void *arg, uint64_t pfn, uint64_t npfn);
	void *arg;
};

struct filter_rules {
	unsigned dump_level;
	uint64_t page_struct_size;   /* SIZE(page) */
	unsigned kver;               /* KERNEL_VERSION(a,b,c) from OSRELEASE, 0 unknown */
	bool big_endian;             /* target byte order of struct page words */
	unsigned word_size;          /* bytes of those words: 8, 4 on i386 */

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
	struct filter_page_hook hook; /* none unless set after init */
	struct filter_keep keep;     /* likewise */
	bool scan;                   /* read struct pages: the level needs them, or
					hwpoison/offline pages can be seen (dropped
					at every level, as makedumpfile does) */

	/* Rules the level asks for that VMCOREINFO leaves unable to run
	 * (pageclass.h): the scan counts the pages they might have
	 * excluded.  gap_mask has bit 1 << rule for each gap[rule].off,
	 * untested_mask for each gap[rule].untested; both 0 in the common
	 * case, and then the scan does no extra work. */
	struct rule_gap gap[PR_COUNT];
	unsigned gap_mask, untested_mask;
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

/** The rule @rule runs after all, another way (the free lists were
 *  walked for PR_FREE; no struct pages to scan for any): no gap. */
void filter_rules_drop_gap(struct filter_rules *r, enum page_rule rule);

/**
 * For a page the scan keeps (@cls KEEP or TAIL, as filter_classify() said
 * for the same arguments): the rules with a gap that might have excluded
 * it, as bits 1 << enum page_rule.  A tail page (TAIL) counts for
 * @tail_gaps: what its head's page counted for, besides COMPOUND_TAIL
 * when the head was excluded without its tails.  0 when r->gap_mask is.
 */
unsigned filter_kept_gaps(const struct filter_rules *r, const unsigned char *page,
			  const unsigned char *next, size_t nnext, uint64_t pfn,
			  enum page_class cls, unsigned tail_gaps);

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
	uint64_t kept[PR_COUNT]; /* pages kept that a rule with a gap
				    (filter_rules.gap) might have excluded */
	uint64_t keep_task;    /* pages the rules excluded that --keep-task
				  kept (filter_rules.keep) */
};

/** Add the counts of @b to @a. */
void filter_counts_add(struct filter_counts *a, const struct filter_counts *b);

/* An exclusion that runs past the end of a cycle continues in the next. */
struct filter_carry {
	uint64_t end_pfn;
	enum page_class cls;
	/* The tail pages after the last head seen count for these rules
	 * (filter_kept_gaps()), in this cycle and the next. */
	unsigned tail_gaps;
	uint64_t tail_next;    /* ... when they follow on at this pfn */
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

/*
 * What the scan decides, in pfn order, for a caller that wants to know why
 * (--explain, filter/explain.h).  Every pfn the scan decides is in exactly
 * one event; pfns it skips (not present, not dumpable, or inside an
 * exclusion already made) are in none.
 */
enum filter_event_kind {
	FILTER_EV_PAGE,       /* the struct page of pfn was classified: v */
	FILTER_EV_CARRIED,    /* [pfn, end) excluded as v.cls: an exclusion
				 begun in an earlier cycle */
	FILTER_EV_UNREADABLE, /* [pfn, end) kept: struct pages unreadable */
	FILTER_EV_NO_MEMMAP,  /* [pfn, end) kept: no mem_section maps them */
};

struct filter_event {
	enum filter_event_kind kind;
	uint64_t pfn, end;    /* the pfns it decides (PAGE: pfn + v.nr_pages
				 when excluded, pfn + 1 when kept) */
	struct page_verdict v;
};

struct filter_observer {
	void (*seen)(void *arg, const struct filter_event *ev);
	void *arg;
};

/** filter_cycle() telling @obs (may be NULL) each decision as it is made. */
enum mdf_status filter_cycle_observed(const struct filter_rules *r, struct memmap *mm,
				      struct readmem *rm, const struct bitmap *present,
				      struct bitmap *dumpable, unsigned char *buf,
				      struct filter_carry *carry,
				      struct filter_counts *counts,
				      const struct filter_observer *obs,
				      struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The compound head as filter_classify() reads it: true when @page has the
 * head flag, with *@order (0 when the order is not believed: misaligned
 * for @pfn, or not in the @nnext struct pages at @next) and *@hugetlb.
 */
/* The struct page address of the head of the tail page at @tail_va whose
 * compound_info word (bit 0 set) is @word.  Since Linux 7.1 ("mm: rework
 * compound_head() for power-of-2 sizeof(struct page)") a kernel with the
 * HugeTLB vmemmap optimisation and a 64-byte struct page keeps a mask
 * there (head = tail address & mask, as Debian's 7.3 does); otherwise
 * the word is the head's address. */
uint64_t filter_head_vaddr(const struct filter_rules *r, uint64_t tail_va, uint64_t word);

bool filter_compound(const struct filter_rules *r, const unsigned char *page,
		     const unsigned char *next, size_t nnext, uint64_t pfn,
		     unsigned *order, bool *hugetlb);

/** What filter_classify() would say of the struct page at @page alone:
 *  a slab page (PG_slab, or the page type since 6.10), the head of a free
 *  buddy block.  For page-types (filter/pagetypes.h). */
bool filter_page_is_slab(const struct filter_rules *r, const unsigned char *page);
bool filter_page_is_buddy(const struct filter_rules *r, const unsigned char *page);

#define FILTER_BATCH 512
/* The fewest struct pages a read of the scan takes: a 4 KiB page of them. */
#define FILTER_BATCH_MIN 64
/* The largest SIZE(page) accepted (filter_rules_init). */
#define FILTER_PAGE_STRUCT_MAX 256

#endif
