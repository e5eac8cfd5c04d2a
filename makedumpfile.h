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
#include "dump.h"
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
	struct dump_state ds;      /* the run's own state (dump.h) */

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
