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

struct kpf_table;
struct kpf_groups;

enum {
	ML_PROGRESS = 1, /* progress indicator */
	ML_COMMON = 2,   /* ordinary messages */
	ML_ERROR = 4,    /* error messages */
	ML_DEBUG = 8,    /* debug messages */
	ML_REPORT = 16,  /* the final report */
};

struct mdf_printer {
	unsigned level;
	bool json;          /* --report-format json: the report as JSON */
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
	uint64_t vmemmap;     /* -e: struct-page pages of excluded memory dropped */
	uint64_t kept[PR_COUNT]; /* pages kept that a rule unable to run
				    (mdf_report.gaps) might have excluded */
	uint64_t keep_task;   /* pages a class would drop, kept for --keep-task */
};

#define MDF_MAX_PHASES 12

/* A process --keep-task chose (filter/keeptask.h), for the report. */
struct mdf_kept_proc {
	uint64_t task;             /* the task_struct it was chosen by */
	int32_t pid;
	char comm[17];
	uint64_t mm;
	uint64_t pages;            /* user pages its tables map */
	uint64_t tables;           /* its page-table pages */
};

struct mdf_report {
	struct mdf_page_counts pages;
	/* The rules the dump level asked for that could not run, and why:
	 * one line each after the page counts. */
	struct rule_gap gaps[PR_COUNT];
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
	const struct kpf_table *page_types; /* --page-types' table, or NULL */
	bool keep_task;                     /* --keep-task: the processes, and */
	const struct mdf_kept_proc *kept;
	size_t nkept;
	uint64_t kept_mapped;               /* the pages they map, all told */
	const struct kpf_groups *page_types_by; /* --page-types-by's, or NULL */
};

/** --page-types' table, as page-types prints it (in the JSON report
 *  when --report-format json). */
void pi_page_types(const struct mdf_printer *p, const struct kpf_table *pt);
/** --page-types-by's tables, each after its name. */
void pi_page_types_by(const struct mdf_printer *p, const struct kpf_groups *gs);

/** @msgs_to_stderr: -F (the dump itself goes to stdout). */
void pi_init(struct mdf_printer *p, unsigned level, bool msgs_to_stderr);

void pi_msg(const struct mdf_printer *p, const char *fmt, ...) MDF_PRINTF(2, 3);
void pi_debug(const struct mdf_printer *p, const char *fmt, ...) MDF_PRINTF(2, 3);
/* Debug level: the dump's VMCOREINFO, one "  KEY=VALUE" line each (SUSE's
 * kdump-save reads OSRELEASE= and CRASHTIME= from these on stderr). */
void pi_vmcoreinfo(const struct mdf_printer *p, const char *text, size_t len);
void pi_warn(const struct mdf_printer *p, const char *fmt, ...) MDF_PRINTF(2, 3);

/** Print the error chain as one line: "makedumpfile: <message>". */
void pi_error(const struct mdf_printer *p, const struct mdf_err *err);

void pi_usage(const struct mdf_printer *p, FILE *to);
void pi_version(const struct mdf_printer *p);

/** Progress of one phase; call with done == total at the end. */
/** -e: "Excluded N unused vmemmap pages" (progress level), as upstream. */
void pi_vmemmap(struct mdf_printer *p, uint64_t pages);
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
/* A stop signal the run could not answer in time (stop.c's thread, while
 * the run is blocked): one line, written with write(2) alone. */
void pi_stopped(const struct mdf_printer *p, int sig, const char *output);

/** Monotonic seconds. */
double pi_now(void);

/* ---- --explain: one page as the filter sees it ----------------------
 * filter/explain.c finds it out, pi_explain() says it. */

#define MDF_EXPLAIN_MAX_LEVELS 16
#define MDF_EXPLAIN_MAX_FLAGS 24

/* What one dump level does with the page. */
enum mdf_explain_how {
	MDF_EXPLAIN_HOLE,        /* not in the dump's memory (bitmap1 clear) */
	MDF_EXPLAIN_NO_DATA,     /* present, but the input holds no data for it */
	MDF_EXPLAIN_FREE_LIST,   /* excluded: on the kernel's free lists (walked) */
	MDF_EXPLAIN_EXCLUDED,    /* excluded as cls by the struct page of head */
	MDF_EXPLAIN_ZERO,        /* kept by the rules, dropped: all bytes zero */
	MDF_EXPLAIN_KEPT,        /* its struct page says cls (KEEP or TAIL) */
	MDF_EXPLAIN_UNREADABLE,  /* kept: its struct pages cannot be read */
	MDF_EXPLAIN_NO_MEMMAP,   /* kept: no mem_section maps its struct page */
	MDF_EXPLAIN_NOT_SCANNED, /* kept: the level reads no struct pages */
};

struct mdf_explain_level {
	unsigned level;          /* as shown (-d) */
	unsigned effective;      /* what a run uses: with the input's own level */
	enum mdf_explain_how how;
	enum page_class cls;     /* EXCLUDED: the class; KEPT: KEEP or TAIL */
	uint64_t head;           /* EXCLUDED: the pfn whose struct page decided */
	uint64_t nr_pages;       /* ... and the pages that verdict covers */
	bool free_unknown;       /* the level drops free pages, no rule finds them */
};

struct mdf_explain {
	const char *vmcore;
	const char *kind;        /* the input format: "ELF", "kdump-compressed" */
	uint64_t pfn, paddr;     /* paddr: the page's first byte */
	bool by_paddr;           /* asked for by this physical address: */
	uint64_t asked_paddr;
	uint64_t page_size;

	/* Where the input has it. */
	bool present;            /* bitmap1 */
	bool has_data;           /* the input holds its bytes (bitmap2's start) */
	bool have_load;          /* ELF: the PT_LOAD that owns its first byte */
	unsigned load_index;
	uint64_t load_start, load_end, load_filesz_end, file_off;
	bool in_file;            /* false: past p_filesz */
	int input_level;         /* kdump-compressed input: its dump level; -1 */

	/* Its struct page, read as the rules read it. */
	bool have_page;
	char no_page[192];       /* why not */
	uint64_t page_vaddr, page_struct_size;
	uint64_t flags;
	const char *flag_names[MDF_EXPLAIN_MAX_FLAGS]; /* VMCOREINFO's PG_ bits set */
	unsigned nflag_names;
	bool has_mapping, has_private, has_mapcount, has_head_word;
	uint64_t mapping, private_, head_word;
	uint32_t mapcount;
	const char *page_type;   /* the marker _mapcount equals, or NULL */
	bool head_flag;          /* a compound head (PG_head), with: */
	unsigned order;
	bool hugetlb;
	bool tail;               /* head_word bit 0: a tail, of: */
	bool head_known;         /* the head's pfn found from head_word */
	uint64_t head_pfn;
	bool head_read;          /* the head's struct page read, saying: */
	bool head_is_head;
	unsigned head_order;
	bool head_hugetlb;

	/* Its bytes. */
	bool have_content, zero;
	char no_content[192];
	/* --keep-task: the process whose page tables map it ("" none); the
	 * levels' verdicts then keep it, as the run does */
	char keep_owner[64];

	struct mdf_explain_level levels[MDF_EXPLAIN_MAX_LEVELS];
	unsigned nlevels;
};

/** --explain: print @e (message level 2). */
void pi_explain(const struct mdf_printer *p, const struct mdf_explain *e);

#endif
