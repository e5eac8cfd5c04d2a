/*
 * explain.h - why one page is kept or excluded (--explain PFN|0xPADDR):
 * its struct page fields as the rules read them, where the input has it,
 * and the verdict of each dump level.
 *
 * The verdict is the real scan's, not a second opinion: filter_cycle()
 * runs, with an observer (filter.h), over the pfns whose decisions can
 * reach the page, with the bitmaps the run starts from (the input's, less
 * the walked free lists), and says which event decided it.  Which pfns can
 * reach it: an exclusion covers [p, p + 2^k) from a p aligned to 2^k (a
 * buddy block, an unaccepted block, a compound page: filter_classify()
 * believes no misaligned order), so only the pfns align_down(pfn, 2^k)
 * can cover pfn, and one of them is reached by the scan unless a smaller
 * one covered it, and with it pfn as well.  So:
 *  - the window [align_down(pfn, 2^18), pfn] (a 1 GiB hugetlb page's head
 *    on 4 KiB pages is in it), scanned as one cycle, and before it
 *  - each align_down(pfn, 2^k) for k > 18 below the window (orders that
 *    large are garbage, but a run would carry them across cycles), each
 *    scanned alone, lowest first: the first whose exclusion covers pfn
 *    decides it, as the carry of a run would.
 * Then, for a level with bit 1, a page the rules keep is dropped when all
 * its bytes are zero, as the run's zero check does.
 */
#ifndef MDF_EXPLAIN_H
#define MDF_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "elf_info.h"
#include "error.h"
#include "filter/filter.h"
#include "filter/freelist.h"
#include "input.h"
#include "kernel/memmap.h"
#include "kinfo.h"
#include "print_info.h"
#include "readmem.h"

/* The opened input and kernel, as the run has them. */
struct explain_input {
	const char *name;                /* VMCORE, for messages */
	const struct kinfo *ki;
	struct readmem *rm;
	struct memmap *mm;               /* MEMMAP_NONE: no struct pages */
	const struct input_ops *in;      /* the input format, and */
	void *in_obj;                    /* its object */
	const struct elf_info *elf;      /* an ELF input's PT_LOADs, or NULL */
	int input_level;                 /* a kdump-compressed input's dump
					    level, else -1 */
	unsigned old_level;              /* ORed into every level, as a run
					    refiltering that input does */
	uint64_t page_size, max_pfn;
	/* The free lists walked because VMCOREINFO has no buddy marker
	 * (dump.c's learn_kernel), or NULL: a level with bit 16 then drops
	 * the pfns in them before the scan, as the run does. */
	const struct freelist_result *free_lists;
	/* --keep-task's set (filter_rules.keep), or NULL */
	const struct filter_keep *keep;
};

/* The levels shown besides the ones asked for with -d. */
#define EXPLAIN_DEFAULT_LEVELS { 0, 1, 2, 4, 8, 16, 31 }

/**
 * Explain the page @value (a pfn, or with @is_paddr a physical address)
 * at the default levels and then @extra (@nextra of them, duplicates
 * left out), into *@ret.  A page beyond the input's memory is
 * MDF_ERR_ARG: "--explain: pfn 0x... is not in VMCORE's memory (max pfn
 * 0x...)".  Read errors on the struct page or the page's bytes are
 * described in *@ret, not failures; a failure of the scan itself (an I/O
 * error) is.
 */
enum mdf_status explain_page(const struct explain_input *in, uint64_t value,
			     bool is_paddr, const unsigned *extra, unsigned nextra,
			     struct mdf_explain *ret, struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The verdict of dump level @level (ORed with in->old_level) for @pfn
 * (below in->max_pfn) alone, into *@ret: what explain_page() gives for
 * each level.
 */
enum mdf_status explain_level(const struct explain_input *in, uint64_t pfn,
			      unsigned level, struct mdf_explain_level *ret,
			      struct mdf_err *err) MDF_MUST_CHECK;

#endif
