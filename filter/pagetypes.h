/*
 * pagetypes.h - page-types' table of a dump (--page-types): how many pages
 * carry each combination of the kernel's /proc/kpageflags flags, computed
 * from the struct page array in the dump the way the kernel's
 * stable_page_flags() computes them on a live system (fs/proc/page.c),
 * shown as the kernel's tools/mm/page-types shows them by default: the
 * flags for kernel hackers hidden, compound flags only for hugetlb.
 *
 * The walk reads struct pages only (never page contents): every pfn from
 * 0 to max_pfn rounded up to a memory section, as /proc/kpageflags covers
 * them; a section without a mem_map is "nopage", as the kernel says of a
 * pfn without an online struct page.
 */
#ifndef MDF_PAGETYPES_H
#define MDF_PAGETYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "filter/filter.h"
#include "kernel/memmap.h"
#include "readmem.h"

/* The bits of /proc/kpageflags (include/uapi/linux/kernel-page-flags.h),
 * and page-types' own above 32. */
enum kpf_bit {
	KPF_B_LOCKED = 0, KPF_B_ERROR = 1, KPF_B_REFERENCED = 2, KPF_B_UPTODATE = 3,
	KPF_B_DIRTY = 4, KPF_B_LRU = 5, KPF_B_ACTIVE = 6, KPF_B_SLAB = 7,
	KPF_B_WRITEBACK = 8, KPF_B_RECLAIM = 9, KPF_B_BUDDY = 10, KPF_B_MMAP = 11,
	KPF_B_ANON = 12, KPF_B_SWAPCACHE = 13, KPF_B_SWAPBACKED = 14,
	KPF_B_COMPOUND_HEAD = 15, KPF_B_COMPOUND_TAIL = 16, KPF_B_HUGE = 17,
	KPF_B_UNEVICTABLE = 18, KPF_B_HWPOISON = 19, KPF_B_NOPAGE = 20, KPF_B_KSM = 21,
	KPF_B_THP = 22, KPF_B_OFFLINE = 23, KPF_B_ZERO_PAGE = 24, KPF_B_IDLE = 25,
	KPF_B_PGTABLE = 26,
};
#define KPF_BIT(b) (1ULL << (b))

/*
 * What the walk needs of the kernel beyond the filter's rules: the enum
 * pageflags bits VMCOREINFO does not name (from the dump's BTF, or -1),
 * the page table page type, and where a large folio counts its mappings.
 */
struct pagetypes_kernel {
	int pg_locked, pg_error, pg_referenced, pg_uptodate, pg_dirty, pg_active,
	    pg_writeback, pg_reclaim, pg_unevictable, pg_idle, pg_large_rmappable;
	/* PageTable(): the page type's top byte (since 6.12: PGTY_table), or
	 * a mask under a base (before: PG_table) */
	enum { PT_TABLE_NONE, PT_TABLE_TOP_BYTE, PT_TABLE_MASK } table;
	uint32_t table_value, table_base;
	/* where a large folio's mapcount lives, from its head (0: unknown):
	 * folio._large_mapcount (6.11 on: mapped when >= 0), or
	 * folio._entire_mapcount and folio._nr_pages_mapped (6.2 to 6.10),
	 * or page[1]'s compound_mapcount (before) */
	uint64_t off_large_mapcount, off_entire_mapcount, off_nr_pages_mapped;
	/* Linux 6.10 on ("proc: rewrite stable_page_flags()", Matthew
	 * Wilcox): a page of a large folio shows the folio's flags; before,
	 * its own (the head's for anon, KSM, THP, slab and swap cache). */
	bool folio_flags;
};

/** Fill @pk with what @r and the kernel version alone give (no BTF). */
void pagetypes_kernel_init(struct pagetypes_kernel *pk, const struct filter_rules *r);

struct pagetypes_entry {
	uint64_t flags, pages;
};

struct pagetypes {
	struct pagetypes_entry *e;
	size_t n, cap;
	uint64_t total;
	uint64_t page_size;
	uint64_t unreadable;   /* pfns whose struct pages the dump lacks
				  (counted as nopage) */
	uint64_t unknown;      /* KPF bits that cannot be told (no BTF) */
	double seconds;
};

/* --page-types-by: a table per process or cgroup, by its name. */
#define PAGETYPES_GROUP_NAME 320
struct pagetypes_group {
	char name[PAGETYPES_GROUP_NAME]; /* "process 1 (init)", a cgroup's path */
	unsigned members;                /* processes in it */
	struct pagetypes pt;
};

struct pagetypes_groups {
	const char *by;                  /* "task", "cgroup" */
	struct pagetypes_group *g;
	size_t n, cap;
};

/** The group called @name in @gs, made when there is none. */
enum mdf_status pagetypes_group(struct pagetypes_groups *gs, const char *name,
				struct pagetypes_group **ret, struct mdf_err *err) MDF_MUST_CHECK;

void pagetypes_groups_free(struct pagetypes_groups *gs);

/**
 * Walk the struct pages of pfns [0, @end_pfn) through @mm and @rm into
 * @pt (zeroed first by the caller).  @buf holds FILTER_BATCH struct pages.
 * A struct page the dump lacks is counted as nopage and in
 * pt->unreadable; only an I/O error fails.
 */
enum mdf_status pagetypes_walk(struct pagetypes *pt, const struct filter_rules *r,
			       const struct pagetypes_kernel *pk, struct memmap *mm,
			       struct readmem *rm, uint64_t end_pfn, unsigned char *buf,
			       struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The flags of pfn @pfn alone (page-types -p's view of a page a process
 * maps): its struct page, and for a tail its folio's head found through
 * its compound_head.  No buddy flag (a mapped page is never free).
 * MDF_ERR_NODATA when its struct page is not in the dump.
 */
enum mdf_status pagetypes_pfn(const struct filter_rules *r, const struct pagetypes_kernel *pk,
			      struct memmap *mm, struct readmem *rm, uint64_t pfn,
			      uint64_t *flags, struct mdf_err *err) MDF_MUST_CHECK;

/** Count @pages pages of @flags (well-known flags already applied). */
enum mdf_status pagetypes_add(struct pagetypes *pt, uint64_t flags, uint64_t pages,
			      struct mdf_err *err) MDF_MUST_CHECK;

/** The table sorted by flags. */
void pagetypes_sort(struct pagetypes *pt);

void pagetypes_free(struct pagetypes *pt);

/** page-types' default view of raw kpageflags: the bits above 31 hidden,
 *  and the compound bits of pages that are not hugetlb. */
uint64_t pagetypes_well_known(uint64_t kpf);

/** page-types' symbolic flags (one letter or '_' per named bit) into
 *  @buf (at least 65 bytes), and the long names joined by commas into
 *  @lbuf (@lcap bytes). */
void pagetypes_names(uint64_t flags, char *buf, char *lbuf, size_t lcap);

/**
 * The flags of the struct page at @page (pfn @pfn) given what the walk
 * knows of its folio: @head is the folio's head struct page and @head1
 * the one after it (NULL when not in the batch), @tail true for a tail
 * page, @huge/@large what the head said.  For the unit tests.
 */
uint64_t pagetypes_page_flags(const struct filter_rules *r, const struct pagetypes_kernel *pk,
			      const unsigned char *page, const unsigned char *head,
			      const unsigned char *head1, bool tail, bool large, bool huge);

#endif
