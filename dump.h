/*
 * dump.h - the phases of a run, wired together: open the input and learn
 * the kernel, build the bitmaps cycle by cycle, count or copy pages.
 *
 * struct dump_state is what only these phases use (the rules, the cycle's
 * bitmaps and their memo, counters and timings); makedumpfile.h's context
 * holds one, beside what every phase shares.
 */
#ifndef MDF_DUMP_H
#define MDF_DUMP_H

#include <stdbool.h>
#include <stdint.h>

#include "bitmap.h"
#include "error.h"
#include "filter/erase.h"
#include "filter/filter.h"
#include "filter/freelist.h"
#include "filter/keeptask.h"
#include "filter/pagetypes.h"
#include "filter/scan.h"
#include "filter/vmemmap.h"
#include "kernel/btf.h"
#include "kernel/kallsyms.h"

struct dwarf_info;
struct ext_set;
struct kinfo;

struct mdf_ctx;

struct dump_state {
	char *vi_text;             /* -i FILE's VMCOREINFO text, or NULL */
	size_t vi_len;
	struct dwarf_info *vmlinux;  /* -x VMLINUX, opened */
	struct erase_set erase;    /* --config's ranges, and the eraseinfo */
	struct kallsyms ksyms;     /* --config without -x: the dump's symbols */
	struct kbtf btf;           /* and types */
	bool btf_loaded;           /* ksyms and btf hold the dump's */
	struct ext_set *ext;       /* --extension's, or NULL */
	struct erase_types kernel_types; /* -x's or the dump's (--extension,
					    the task list) */
	bool ext_hook;             /* one of them has a page() */
	struct erase_dump_types dump_types;
	struct erase_types types;
	unsigned char *erase_page; /* a page with erased bytes, patched */
	struct filter_rules rules;
	bool rules_valid;          /* rules hold rules.dump_level's */
	struct filter_warnings fwarn;

	uint64_t cycle_pfns;
	struct bitmap present;     /* bitmap1, current cycle */
	struct bitmap dumpable;    /* bitmap2, current cycle */
	unsigned char *scratch;    /* one page */

	struct freelist_result freelist; /* free-list walk, when no buddy marker */
	bool use_freelist;
	struct filter_carry carry;  /* exclusion running into the next cycle */
	struct scan_pool *scan;     /* struct page scan threads, or NULL: serial */
	uint64_t counted_upto;      /* cycles below this are in the report */
	/* present/dumpable hold the cycle at built_start, built with
	 * built_drop_zero (built_zero zero pages dropped); false after a
	 * rules change.  A writer asking for the same cycle again (a
	 * one-cycle dump: pass 1 then pass 2) gets it without a new scan. */
	bool built_valid, built_drop_zero;
	uint64_t built_start, built_zero;
	uint64_t unreadable;        /* pages kept: struct page unreadable */
	uint64_t no_memmap;         /* pages kept: no mem_section covers them */
	uint64_t copied;            /* pages handed to the writer */
	uint64_t copy_total;        /* pages it will take, if it said so */
	int dbg_fd1, dbg_fd2;       /* --debug-bitmap1 / --debug-bitmap, or -1 */
	/* -e: the vmemmap pages to drop, once a first pass found them
	 * (vm_ready); cycles below vm_applied_upto are in the report */
	struct vmemmap_drop vm;
	bool vm_ready;
	uint64_t vm_applied_upto;
	double t_scan, t_zero, t_copy;
	struct kpf_table pt;        /* --page-types' table */
	struct keeptask kt;         /* --keep-task's processes and pages */
	struct keeptask kt_all;     /* --page-types-by's, without --keep-task */
	struct kpf_groups ptg; /* --page-types-by's tables */
};

/** --page-types: page-types' table of every struct page in the dump,
 *  into ctx->report (after the dump's own scan). */
enum mdf_status dump_page_types(struct mdf_ctx *ctx) MDF_MUST_CHECK;

/** Open the input, parse VMCOREINFO, set up arch, memmap and rules. */
enum mdf_status dump_open(struct mdf_ctx *ctx) MDF_MUST_CHECK;

/** Build both bitmaps for every cycle, count pages per class and (with
 *  dump level bit 1) zero pages, without writing a dump (--dry-run). */
enum mdf_status dump_dry_run(struct mdf_ctx *ctx) MDF_MUST_CHECK;

/** Write the dump (kdump-compressed or ELF, to a file or flattened to
 *  stdout), retrying at the next level of a -d list when the disk fills. */
enum mdf_status dump_write(struct mdf_ctx *ctx) MDF_MUST_CHECK;

/** --explain: open the input as for -d 31 and print why the page
 *  opts.explain_value names is kept or excluded (filter/explain.h). */
enum mdf_status dump_explain(struct mdf_ctx *ctx) MDF_MUST_CHECK;

/**
 * -g FILE VMCORE: the VMCOREINFO keys of VMCORE's kernel, from its BTF and
 * kallsyms (*@from_btf of them) with its note's over them.  Opens the
 * input (dump_close() closes it).
 */
enum mdf_status dump_kinfo_btf(struct mdf_ctx *ctx, struct kinfo *ki,
			       size_t *from_btf) MDF_MUST_CHECK;

/** Free everything dump_open() set up; safe after a partial open. */
void dump_close(struct mdf_ctx *ctx);

#endif
