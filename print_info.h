/*
 * print_info.h - every byte the user sees: usage, messages by level,
 * progress, and the final report.  Nothing else in the program prints.
 *
 * Message levels are makedumpfile's --message-level bits.
 */
#ifndef MDF_PRINT_INFO_H
#define MDF_PRINT_INFO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cache.h"
#include "error.h"
#include "pageclass.h"

enum {
	ML_PROGRESS = 1, /* progress indicator */
	ML_COMMON = 2,   /* ordinary messages */
	ML_ERROR = 4,    /* error messages */
	ML_DEBUG = 8,    /* debug messages */
	ML_REPORT = 16,  /* the final report */
};

struct mdf_printer {
	unsigned level;
	FILE *msg;          /* common, debug and report messages */
	FILE *err;          /* errors and progress */
	bool progress_tty;  /* err is a terminal: redraw one line */
	/* progress state */
	const char *phase;
	double phase_start, last_draw;
	int last_permille;
	unsigned spin;
};

/* Counts of pages, by unique pfn. */
struct mdf_page_counts {
	uint64_t total;       /* max_mapnr: pfns 0 .. max_pfn-1 */
	uint64_t present;     /* "Original pages": pfns backed by a PT_LOAD */
	uint64_t hole;        /* total - present */
	uint64_t zero;        /* zero pages dropped (not a page class) */
	uint64_t excluded[PC_COUNT]; /* pages dropped, by class (pageclass.h) */
	uint64_t remaining;   /* present minus every excluded class */
	uint64_t dumpable;    /* set in the dumpable bitmap (zero pages included) */
};

#define MDF_MAX_PHASES 12

struct mdf_report {
	struct mdf_page_counts pages;
	struct cache_stats cache;
	bool have_cache;
	uint64_t map_peak;      /* input bytes mapped at once, at most */
	uint64_t write_bytes;
	bool wrote;
	struct {
		const char *name;
		double seconds;
	} phases[MDF_MAX_PHASES];
	unsigned nphases;
	double elapsed;
	uint64_t page_size;
};

/** @msgs_to_stderr: -F (the dump itself goes to stdout). */
void pi_init(struct mdf_printer *p, unsigned level, bool msgs_to_stderr);

void pi_msg(const struct mdf_printer *p, const char *fmt, ...) MDF_PRINTF(2, 3);
void pi_debug(const struct mdf_printer *p, const char *fmt, ...) MDF_PRINTF(2, 3);
void pi_warn(const struct mdf_printer *p, const char *fmt, ...) MDF_PRINTF(2, 3);

/** Print the error chain as one line: "makedumpfile: <message>". */
void pi_error(const struct mdf_printer *p, const struct mdf_err *err);

void pi_usage(const struct mdf_printer *p, FILE *to);
void pi_version(const struct mdf_printer *p);

/** Progress of one phase; call with done == total at the end. */
void pi_progress(struct mdf_printer *p, const char *phase, uint64_t done,
		 uint64_t total, double now);

void pi_report(const struct mdf_printer *p, const struct mdf_report *r,
	       bool force);

/**
 * --mem-usage: the page counts of @r as makedumpfile's table (tabs and
 * column widths as upstream prints them, for scripts that parse it).
 * KERN_DATA is what dump level 31 keeps; hwpoison, offline and unaccepted
 * pages are in no row, as upstream leaves them out.
 */
void pi_mem_usage(const struct mdf_printer *p, const struct mdf_report *r);

void pi_completed(const struct mdf_printer *p, const char *dumpfile);

/** Like pi_completed(), for a --split set of @n files. */
void pi_completed_split(const struct mdf_printer *p, char *const *files,
			unsigned n);
/** --dump-dmesg: "The dmesg log is saved to PATH." */
void pi_dmesg_saved(const struct mdf_printer *p, const char *path);
/** --vtop: "VIRTUAL PHYSICAL" and the pair, or why there is none. */
void pi_vtop(const struct mdf_printer *p, uint64_t vaddr, uint64_t paddr, const char *why);
void pi_vmcoreinfo_saved(const struct mdf_printer *p, const char *path);
void pi_failed(const struct mdf_printer *p);

/** Monotonic seconds. */
double pi_now(void);

#endif
