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
#include "kpageflags.h"
#include "readmem.h"

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
	/* a pfn of an offline section is nopage (pfn_to_online_page()) */
	bool section_online;
	/* is_zero_pfn(): the pfn of empty_zero_page, where kallsyms names it */
	bool has_zero_pfn;
	uint64_t zero_pfn;
};

/** Fill @pk with what @r and the kernel version alone give (no BTF). */
void pagetypes_kernel_init(struct pagetypes_kernel *pk, const struct filter_rules *r);

/**
 * Walk the struct pages of pfns [0, @end_pfn) through @mm and @rm into
 * @pt (zeroed first by the caller).  @buf holds FILTER_BATCH struct pages.
 * A struct page the dump lacks is counted as nopage and in
 * pt->unreadable; only an I/O error fails.
 */
enum mdf_status pagetypes_walk(struct kpf_table *pt, const struct filter_rules *r,
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
