/*
 * makedumpfile.h - the run context, made of the modules' own structs.
 *
 * One struct mdf_ctx per run, passed explicitly; there is no writable
 * global state anywhere in the program.  Only makedumpfile.c (main) and
 * dump.c (the phases that need everything) include this header; every
 * other module takes the narrowest struct it needs.
 */
#ifndef MDF_MAKEDUMPFILE_H
#define MDF_MAKEDUMPFILE_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"
#include "bitmap.h"
#include "cache.h"
#include "diskdump_read.h"
#include "elf_info.h"
#include "error.h"
#include "filter/filter.h"
#include "filter/freelist.h"
#include "kernel/kernel.h"
#include "kinfo.h"
#include "kernel/memmap.h"
#include "opts.h"
#include "print_info.h"
#include "readmem.h"
#include "filter/scan.h"

/* Exit codes, as upstream makedumpfile. */
enum {
	MDF_EXIT_OK = 0,
	MDF_EXIT_FAILED = 1,
	MDF_EXIT_RELEASE_MISMATCH = 2,
};

struct mdf_ctx {
	struct mdf_opts opts;
	struct mdf_printer pr;
	struct mdf_err err;

	int in_fd;
	struct cache cache;
	struct cache_budget map_budget; /* every input cache's windows */
	struct elf_info elf;       /* ELF input, or */
	struct diskdump_info dd;   /* kdump-compressed input (refiltering) */
	bool is_kdump;
	const struct input_ops *in; /* elf or dd, as input.h sees it */
	void *in_obj;
	unsigned old_level;        /* refiltering: the input's dump level */
	struct kernel k;           /* VMCOREINFO, arch, readmem, memmap */
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
	double t_scan, t_zero, t_copy;

	struct mdf_report report;
	double t_start;

	/* SIGTERM, SIGHUP and SIGINT: blocked in every thread, taken by a
	 * thread of their own (dump.c), which leaves the number here. */
	sigset_t stop_sigs, old_mask;
	pthread_t sig_thread;
	bool sig_running;
	atomic_int stop_signal;
};

#endif
