/*
 * context.h - the run context: what every phase of a run shares (options,
 * printer, error, the input, the kernel, the report, the signals) and the
 * phases' own state (dump.h).
 *
 * One struct mdf_ctx per run, passed explicitly; there is no writable
 * global state anywhere in the program.  main(), the phases (dump.c) and
 * the log (dmesg.c) include this header; every other module takes the
 * narrowest struct it needs.
 */
#ifndef MDF_CONTEXT_H
#define MDF_CONTEXT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cache.h"
#include "diskdump_read.h"
#include "dump.h"
#include "elf_info.h"
#include "error.h"
#include "files.h"
#include "input.h"
#include "kernel/kernel.h"
#include "opts.h"
#include "print_info.h"
#include "sadump.h"
#include "splitset.h"
#include "stop.h"

struct mdf_ctx {
	struct mdf_opts opts;
	struct mdf_printer pr;
	struct mdf_err err;

	int in_fd;
	struct cache cache;
	struct cache_budget map_budget; /* every input cache's windows */
	struct elf_info elf;       /* ELF input, or */
	struct diskdump_info dd;   /* kdump-compressed input (refiltering), or */
	struct splitset ss;        /* a split set read as one (refiltering), or */
	struct sadump_info sa;     /* a sadump dump (a disk set: --diskset) */
	bool is_sadump;
	const struct diskdump_info *kd; /* dd or the set's first part: the
				    kdump header a refilter reads, or NULL */
	bool is_kdump;             /* kd is set */
	const struct input_ops *in; /* elf or dd, as input.h sees it */
	void *in_obj;
	unsigned old_level;        /* refiltering: the input's dump level */
	struct kernel k;           /* VMCOREINFO, arch, readmem, memmap */
	struct dump_state ds;      /* the run's own state (dump.h) */

	struct mdf_report report;
	double t_start;

	/* SIGTERM, SIGHUP and SIGINT: blocked in every thread, taken by a
	 * thread of their own (stop.h), started first thing in main(). */
	struct mdf_stop stop;
	struct mdf_files files;    /* the inputs, no output may be one */
};

#endif
