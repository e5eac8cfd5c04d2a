/*
 * opts.h - the command line, parsed into a const struct mdf_opts.
 *
 * Syntax and meaning follow makedumpfile's.  An option we do not implement
 * is rejected by name; it is never silently ignored.
 */
#ifndef MDF_OPTS_H
#define MDF_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "compress/compress.h"
#include "error.h"

#define MDF_MAX_DUMP_LEVELS 8
/* --split and --reassemble: at most this many parts. */
#define OPTS_MAX_PARTS 256

enum mdf_action {
	MDF_ACT_DUMP,      /* VMCORE -> DUMPFILE (or stdout with -F) */
	MDF_ACT_HELP,      /* -h */
	MDF_ACT_VERSION,   /* -v */
	MDF_ACT_REARRANGE, /* -R DUMPFILE, flattened stream on stdin */
	MDF_ACT_DMESG,     /* --dump-dmesg VMCORE DMESGFILE (dumpfile = DMESGFILE) */
	MDF_ACT_REASSEMBLE, /* --reassemble PART1 PART2.. DUMPFILE
			       (split_files = the parts, dumpfile = DUMPFILE) */
	MDF_ACT_MEM_USAGE, /* --mem-usage VMCORE (usually /proc/kcore): page
			      counts by type at dump level 31, nothing written */
	MDF_ACT_GENERATE,  /* -g FILE -x VMLINUX: VMCOREINFO text from DWARF */
	MDF_ACT_EXPLAIN,   /* --explain PFN|0xPADDR VMCORE: why one page is
			      kept or excluded at each dump level */
};

enum mdf_format {
	MDF_FMT_KDUMP, /* kdump-compressed (default) */
	MDF_FMT_ELF,   /* -E */
};

enum mdf_mmap_opt { MDF_MMAP_TRY, MDF_MMAP_NEVER, MDF_MMAP_ALWAYS };

/* --keep-task SPEC: a process id, comm:NAME or cgroup:PATH (an absolute
 * path, no '/' at its end but "/"). */
struct mdf_keep_spec {
	enum { MDF_KEEP_PID, MDF_KEEP_COMM, MDF_KEEP_CGROUP } kind;
	int32_t pid;
	char comm[16];
	char cgroup[256];
	const char *text;          /* as given */
};
#define MDF_MAX_KEEP_TASKS 16

/** Parse @text into @s (kept by pointer); an error says what a SPEC is. */
enum mdf_status opts_keep_spec_parse(const char *text, struct mdf_keep_spec *s,
				     struct mdf_err *err) MDF_MUST_CHECK;

struct mdf_opts {
	enum mdf_action action;
	const char *vmcore;          /* input path */
	const char *dumpfile;        /* output path, NULL with -F */
	unsigned dump_levels[MDF_MAX_DUMP_LEVELS]; /* -d list: retry on ENOSPC */
	unsigned ndump_levels;       /* 0: -d not given (level 0) */
	enum mdf_format format;
	enum mdf_codec codec;
	bool flatten;                /* -F */
	bool force;                  /* -f: overwrite */
	bool debug;                  /* -D */
	bool dry_run;                /* --dry-run */
	bool show_stats;             /* --show-stats */
	bool check_params;           /* --check-params */
	bool dump_dmesg;             /* --dump-dmesg (action MDF_ACT_DMESG) */
	bool partial_dmesg;          /* --partial-dmesg: only uncleared records */
	unsigned message_level;      /* --message-level, default 7 */
	bool message_level_set;
	enum mdf_mmap_opt mmap;      /* --non-mmap = NEVER */
	uint64_t cyclic_buffer_kib;  /* --cyclic-buffer, 0 = automatic */
	unsigned num_threads;        /* --num-threads, 0 = serial */
	unsigned block_order;        /* -b, default 4 */
	uint64_t size_limit;         /* -L, 0 = none */
	const char *debug_bitmap;    /* --debug-bitmap FILE: write bitmap2 */
	const char *debug_bitmap1;   /* --debug-bitmap1 FILE: write bitmap1 */
	/* --split VMCORE PART1 PART2..: action MDF_ACT_DUMP with nsplit >= 2
	 * and dumpfile = split_files[0]; --reassemble: the parts.  Points
	 * into argv. */
	bool split;                  /* --split */
	bool exclude_vmemmap;        /* -e: drop the struct pages of excluded memory */
	const char *work_dir;        /* --work-dir: accepted, not needed (-e) */
	bool mem_usage;              /* --mem-usage (action MDF_ACT_MEM_USAGE) */
	char *const *split_files;
	unsigned nsplit;
	/* A split set as the input (refilter, --dump-dmesg, --explain,
	 * --dry-run): more operands than VMCORE [DUMPFILE] take, all but
	 * the output being the parts, in any order (splitset.h); nin >= 2
	 * and vmcore = in_files[0].  nin 0: one VMCORE.  Points into argv. */
	char *const *in_files;
	unsigned nin;
	/* --diskset=DISK, each given (upstream's syntax for a sadump disk
	 * set, disk 1 first): the disks are one VMCORE, vmcore = disks[0].
	 * Parsing puts them before the operands in disk_args, into which
	 * in_files and split_files may then point: a parsed mdf_opts is
	 * used where it was parsed, not copied. */
#define MDF_MAX_DISKS 16
	const char *disks[MDF_MAX_DISKS];
	unsigned ndisks;
	char *disk_args[MDF_MAX_DISKS + 2 * MDF_MAX_DISKS + 8];
	uint64_t splitblock_kib;     /* --splitblock-size KB; 0: 64 pfns */
	const char *vmcoreinfo_file; /* -i FILE: VMCOREINFO text (the note's
					keys win over it) */
	const char *vmlinux;         /* -x VMLINUX: debug vmlinux (likewise) */
	const char *generate_file;   /* -g FILE (action MDF_ACT_GENERATE) */
	bool report_json;            /* --report-format json: the final report
					as one JSON object */
	bool page_types;             /* --page-types: page-types' table of the
					dump's struct pages (filter/pagetypes.h) */
	enum { MDF_PT_BY_FLAGS, MDF_PT_BY_TASK, MDF_PT_BY_CGROUP }
		page_types_by;       /* --page-types-by: one table more per
					process, or per cgroup */
	/* --keep-task SPEC, each given (filter/keeptask.h chooses by them) */
	struct mdf_keep_spec keep_specs[MDF_MAX_KEEP_TASKS];
	unsigned nkeep_tasks;
	const char *config_file;     /* --config FILE: erase commands */
	/* --extension FILE.so, each given (filter/extension.h); argv's */
#define MDF_MAX_EXTENSIONS 16
	char *extensions[MDF_MAX_EXTENSIONS];
	unsigned nextensions;
	uint64_t vtop;               /* --vtop VADDR: print its translation
					before the dump; 0: none */
	/* --explain ARG (action MDF_ACT_EXPLAIN): ARG is a pfn ("1234",
	 * "pfn:1234", "pfn:0x4d2") or a physical address ("0x4d2000",
	 * "paddr:0x4d2000", "paddr:5054464").  Its -d levels are
	 * explain_levels, shown besides the usual ones; dump_levels is set
	 * to 31, so that the input is opened as for a -d 31 run. */
	bool explain;
	bool explain_paddr;          /* explain_value is a physical address */
	uint64_t explain_value;
	unsigned explain_levels[MDF_MAX_DUMP_LEVELS];
	unsigned nexplain_levels;
	const char *argv0;
};

/** Parse @argv.  Errors name the option: "unrecognized option '--foo'". */
enum mdf_status opts_parse(int argc, char **argv, struct mdf_opts *ret,
			   struct mdf_err *err) MDF_MUST_CHECK;

/** The first (or only) dump level. */
static inline unsigned opts_dump_level(const struct mdf_opts *o)
{
	return o->ndump_levels ? o->dump_levels[0] : 0;
}

#endif
