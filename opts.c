/*
 * opts.c - argv -> struct mdf_opts, and option-combination checks.
 */
#include "opts.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

enum {
	OPT_START = 256,
	OPT_MESSAGE_LEVEL,
	OPT_DRY_RUN,
	OPT_SHOW_STATS,
	OPT_CHECK_PARAMS,
	OPT_NON_MMAP,
	OPT_MMAP,
	OPT_CYCLIC_BUFFER,
	OPT_NUM_THREADS,
	OPT_DEBUG_BITMAP,
	OPT_DEBUG_BITMAP1,
	OPT_DUMP_DMESG,
	OPT_PARTIAL_DMESG,
	OPT_SPLIT,
	OPT_REASSEMBLE,
	OPT_MEM_USAGE,
	OPT_VTOP,
	OPT_CONFIG,
	OPT_SPLITBLOCK_SIZE,
	OPT_EXPLAIN,
	OPT_WORK_DIR,
	OPT_EXTENSION,
	OPT_REPORT_FORMAT,
	OPT_PAGE_TYPES,
	OPT_KEEP_TASK,
	OPT_PAGE_TYPES_BY,
	OPT_DISKSET,
	OPT_NOT_SUPPORTED,
};

static const char short_opts[] = ":b:cDd:eEFfg:hi:lL:pRvXx:z";

static enum mdf_status parse_dump_levels(const char *arg, struct mdf_opts *o,
					 struct mdf_err *err)
{
	const char *p = arg;

	o->ndump_levels = 0;
	while (*p) {
		char buf[16];
		size_t n = strcspn(p, ",");
		uint64_t v;

		if (n == 0 || n >= sizeof(buf))
			return mdf_err_set(err, MDF_ERR_ARG,
					   "invalid dump level list '%s'", arg);
		memcpy(buf, p, n);
		buf[n] = '\0';
		if (!util_parse_u64_base(buf, 10, &v) || v > 31)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "invalid dump level '%s' (must be 0 to 31)",
					   buf);
		if (o->ndump_levels == MDF_MAX_DUMP_LEVELS)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "too many dump levels in '%s'", arg);
		o->dump_levels[o->ndump_levels++] = (unsigned)v;
		p += n;
		if (*p == ',') {
			p++;
			if (!*p)
				return mdf_err_set(err, MDF_ERR_ARG,
						   "invalid dump level list '%s'", arg);
		}
	}
	if (o->ndump_levels == 0)
		return mdf_err_set(err, MDF_ERR_ARG, "empty dump level");
	return MDF_OK;
}

static enum mdf_status parse_uint(const char *opt, const char *arg,
				  uint64_t max, uint64_t *ret,
				  struct mdf_err *err)
{
	if (!util_parse_u64_base(arg, 10, ret) || *ret > max)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "invalid value '%s' for option %s", arg, opt);
	return MDF_OK;
}

static enum mdf_status parse_size(const char *opt, const char *arg,
				  uint64_t *ret, struct mdf_err *err)
{
	/* -L accepts a number with an optional K/M/G suffix. */
	char buf[32];
	size_t n = strlen(arg);
	uint64_t mult = 1, v;

	if (n == 0 || n >= sizeof(buf))
		return mdf_err_set(err, MDF_ERR_ARG,
				   "invalid value '%s' for option %s", arg, opt);
	memcpy(buf, arg, n + 1);
	switch (buf[n - 1]) {
	case 'K': case 'k': mult = 1ULL << 10; buf[--n] = '\0'; break;
	case 'M': case 'm': mult = 1ULL << 20; buf[--n] = '\0'; break;
	case 'G': case 'g': mult = 1ULL << 30; buf[--n] = '\0'; break;
	default: break;
	}
	if (!util_parse_u64_base(buf, 10, &v) || v == 0 || v > UINT64_MAX / mult)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "invalid value '%s' for option %s", arg, opt);
	*ret = v * mult;
	return MDF_OK;
}

static enum mdf_status set_codec(struct mdf_opts *o, enum mdf_codec c,
				 struct mdf_err *err)
{
	if (o->codec != MDF_CODEC_NONE && o->codec != c)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "options -c, -l, -p and -z are mutually exclusive");
	o->codec = c;
	return MDF_OK;
}

enum mdf_status opts_keep_spec_parse(const char *text, struct mdf_keep_spec *s,
				     struct mdf_err *err)
{
	memset(s, 0, sizeof(*s));
	s->text = text;
	if (strncmp(text, "comm:", 5) == 0) {
		size_t n = strlen(text + 5);

		if (n == 0 || n > 15)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "--keep-task %s: a task's name (comm) is 1 to 15 characters",
					   text);
		s->kind = MDF_KEEP_COMM;
		memcpy(s->comm, text + 5, n + 1);
		return MDF_OK;
	}
	if (strncmp(text, "cgroup:", 7) == 0) {
		size_t n = strlen(text + 7);

		if (text[7] != '/' || n >= sizeof(s->cgroup) || strstr(text + 7, "//"))
			return mdf_err_set(err, MDF_ERR_ARG,
					   "--keep-task %s: a cgroup is an absolute path of at most %zu "
					   "bytes (cgroup:/system.slice/foo.service)",
					   text, sizeof(s->cgroup) - 1);
		s->kind = MDF_KEEP_CGROUP;
		memcpy(s->cgroup, text + 7, n + 1);
		if (n > 1 && s->cgroup[n - 1] == '/')
			s->cgroup[n - 1] = '\0';
		return MDF_OK;
	}
	if (text[0] >= '1' && text[0] <= '9' && strspn(text, "0123456789") == strlen(text) &&
	    strlen(text) <= 10) {
		unsigned long long v = strtoull(text, NULL, 10);

		if (v <= INT32_MAX) {
			s->kind = MDF_KEEP_PID;
			s->pid = (int32_t)v;
			return MDF_OK;
		}
	}
	return mdf_err_set(err, MDF_ERR_ARG,
			   "--keep-task %s: give a process id (1234), comm:NAME or cgroup:PATH", text);
}

/* Two operands naming one file (by name). */
static enum mdf_status check_distinct(char *const *args, int nargs,
				      struct mdf_err *err)
{
	for (int i = 0; i < nargs; i++)
		for (int j = i + 1; j < nargs; j++)
			if (strcmp(args[i], args[j]) == 0)
				return mdf_err_set(err, MDF_ERR_ARG,
						   "the file '%s' is given twice",
						   args[i]);
	return MDF_OK;
}

/*
 * The input operands @args[0..@nin): one VMCORE, or the parts of a split
 * set read as one dump (as crash takes them: PART1 PART2 ..., any order).
 * @nout more operands follow (the output); every name differs.
 */
static enum mdf_status set_inputs(struct mdf_opts *o, char **args, int nin,
				  int nout, struct mdf_err *err)
{
	if (nin > OPTS_MAX_PARTS)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "too many operands: a split set has at most %d parts",
				   OPTS_MAX_PARTS);
	if (check_distinct(args, nin + nout, err) != MDF_OK)
		return err->status;
	o->vmcore = args[0];
	if (o->ndisks) {
		/* the disks of a sadump disk set: one VMCORE */
		if ((unsigned)nin != o->ndisks)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "with --diskset the disks are the input: give no VMCORE operand");
		return MDF_OK;
	}
	if (nin > 1) {
		o->in_files = args;
		o->nin = (unsigned)nin;
	}
	return MDF_OK;
}

/* --split VMCORE PART1 PART2.. and --reassemble PART1 PART2.. DUMPFILE. */
static enum mdf_status check_split(struct mdf_opts *o, int nargs,
				   char **args, struct mdf_err *err)
{
	const char *opt = o->split ? "--split" : "--reassemble";

	if (o->split && o->action != MDF_ACT_DUMP)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "--split cannot be combined with -R or --reassemble");
	if (o->flatten)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "%s cannot be combined with -F", opt);
	if (o->format == MDF_FMT_ELF)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "%s cannot be combined with -E (split sets are kdump-compressed)",
				   opt);
	if (o->dry_run || o->dump_dmesg)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "%s cannot be combined with --dry-run or --dump-dmesg", opt);
	if (nargs < 3)
		return mdf_err_set(err, MDF_ERR_ARG, o->split ?
				   "--split needs VMCORE and at least 2 dump files" :
				   "--reassemble needs at least 2 split files and the dump file to write");
	if (nargs - 1 > OPTS_MAX_PARTS)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "%s: too many files (at most %d parts)", opt, OPTS_MAX_PARTS);
	if (check_distinct(args, nargs, err) != MDF_OK)
		return err->status;
	o->nsplit = (unsigned)(nargs - 1);
	if (o->split && o->ndisks) {
		/* the disks of a sadump disk set, then the parts */
		if ((unsigned)nargs < o->ndisks + 2)
			return mdf_err_set(err, MDF_ERR_ARG, "--split needs at least 2 dump files");
		o->vmcore = args[0];
		o->nsplit = (unsigned)nargs - o->ndisks;
		o->split_files = args + o->ndisks;
		o->dumpfile = o->split_files[0];
	} else if (o->split) {
		o->vmcore = args[0];
		o->split_files = args + 1;
		o->dumpfile = args[1];
	} else {
		o->split_files = args;
		o->dumpfile = args[nargs - 1];
	}
	return MDF_OK;
}

/*
 * --mem-usage VMCORE: it counts every page type and writes nothing, so
 * options that choose what or how to write do not go with it.
 */
static enum mdf_status check_mem_usage(struct mdf_opts *o, int nargs,
				       char **args, struct mdf_err *err)
{
	if (o->action != MDF_ACT_DUMP || o->split || o->dump_dmesg ||
	    o->dry_run || o->flatten || o->format != MDF_FMT_KDUMP ||
	    o->codec != MDF_CODEC_NONE || o->ndump_levels || o->size_limit ||
	    o->debug_bitmap || o->debug_bitmap1)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "--mem-usage writes no dump: it takes no -d, -c, -l, -p, -z, -E, -F, -L, -R, --split, --reassemble, --dump-dmesg, --dry-run or --debug-bitmap");
	if (nargs != 1)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "--mem-usage needs exactly one operand: VMCORE (e.g. /proc/kcore)");
	o->action = MDF_ACT_MEM_USAGE;
	o->vmcore = args[0];
	o->dump_levels[0] = 31;
	o->ndump_levels = 1;
	return MDF_OK;
}

/*
 * Options that choose what a filtered dump holds or how it is written do
 * not apply to -R, --reassemble and --dump-dmesg, which copy what is
 * there (or write text): they are refused, never ignored.
 */
static enum mdf_status check_not_filtering(const struct mdf_opts *o,
					   const char *what, const char *why,
					   bool allow_limit, struct mdf_err *err)
{
	const char *bad = NULL;

	if (o->codec != MDF_CODEC_NONE)
		bad = "-c, -l, -p or -z";
	else if (o->ndump_levels)
		bad = "-d";
	else if (o->format == MDF_FMT_ELF)
		bad = "-E";
	else if (o->size_limit && !allow_limit)
		bad = "-L";
	else if (o->debug_bitmap || o->debug_bitmap1)
		bad = "--debug-bitmap";
	if (bad)
		return mdf_err_set(err, MDF_ERR_ARG, "%s cannot be combined with %s: %s",
				   what, bad, why);
	return MDF_OK;
}

#define COPIES_PAGES "it writes the pages the input holds, as they are"

/* A number of --explain's argument: decimal digits, or hex digits after
 * "0x" (never octal: "010" is ten). */
static bool parse_explain_number(const char *s, uint64_t *ret)
{
	const char *digits = "0123456789";
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		digits = "0123456789abcdefABCDEF";
		base = 16;
	}
	return *s && s[strspn(s, digits)] == '\0' && util_parse_u64_base(s, base, ret);
}

/*
 * --explain ARG: a plain decimal number is a pfn, a 0x number a physical
 * address (the issue's "PFN|0xPADDR"); "pfn:" and "paddr:" say which
 * explicitly, with either base ("pfn:0x1234" is a hex pfn).
 */
static enum mdf_status parse_explain(const char *arg, struct mdf_opts *o,
				     struct mdf_err *err)
{
	const char *num = arg;
	bool paddr = arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X');

	if (o->explain)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "--explain is given twice (one page per run)");
	if (strncmp(arg, "pfn:", 4) == 0) {
		num = arg + 4;
		paddr = false;
	} else if (strncmp(arg, "paddr:", 6) == 0) {
		num = arg + 6;
		paddr = true;
	}
	if (!parse_explain_number(num, &o->explain_value))
		return mdf_err_set(err, MDF_ERR_ARG,
				   "invalid value '%s' for option --explain: give a pfn "
				   "(1234, pfn:0x4d2) or a physical address (0x4d2000, "
				   "paddr:5054464)", arg);
	o->explain = true;
	o->explain_paddr = paddr;
	return MDF_OK;
}

/*
 * --explain ARG VMCORE: it reads one page's struct page and says what
 * each dump level does with it; nothing is written, so options that
 * choose an output, or how a whole run is paced, do not go with it.
 * -d adds levels to the ones shown; the input is opened as for -d 31.
 */
static enum mdf_status check_explain(struct mdf_opts *o, int nargs, char **args,
				     struct mdf_err *err)
{
	if (o->action != MDF_ACT_DUMP || o->split || o->dump_dmesg || o->mem_usage ||
	    o->dry_run || o->flatten || o->force || o->format != MDF_FMT_KDUMP ||
	    o->codec != MDF_CODEC_NONE || o->size_limit || o->debug_bitmap ||
	    o->debug_bitmap1 || o->config_file || o->generate_file || o->vtop ||
	    o->num_threads || o->cyclic_buffer_kib || o->splitblock_kib || o->nextensions ||
	    o->exclude_vmemmap || o->page_types)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "--explain writes no dump: it takes no -c, -l, -p, -z, -E, -F, "
				   "-f, -g, -L, -R, --split, --reassemble, --dump-dmesg, --mem-usage, "
				   "--dry-run, --debug-bitmap, --config, --extension, -e, --vtop, --num-threads, "
				   "--page-types or --cyclic-buffer");
	if (nargs < 1)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "missing operand: --explain needs VMCORE (or the parts of a split set)");
	if (set_inputs(o, args, nargs, 0, err) != MDF_OK)
		return err->status;
	o->action = MDF_ACT_EXPLAIN;
	memcpy(o->explain_levels, o->dump_levels, sizeof(o->explain_levels));
	o->nexplain_levels = o->ndump_levels;
	o->dump_levels[0] = 31;
	o->ndump_levels = 1;
	return MDF_OK;
}

/* -g FILE -x VMLINUX: nothing else (as upstream); or -g FILE VMCORE,
 * from the dump's BTF and kallsyms. */
static enum mdf_status check_generate(struct mdf_opts *o, int nargs, char **args,
				      struct mdf_err *err)
{
	if (!o->vmlinux && nargs != 1)
		return mdf_err_set(err, MDF_ERR_ARG, nargs ?
				   "-g takes one VMCORE: makedumpfile -g FILE VMCORE" :
				   "-g needs -x VMLINUX, or a VMCORE whose kernel has BTF: "
				   "makedumpfile -g FILE -x VMLINUX, or -g FILE VMCORE");
	if (o->vmlinux && nargs != 0)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "-g takes -x VMLINUX or a VMCORE, not both: makedumpfile -g FILE -x VMLINUX");
	if (!o->vmlinux)
		o->vmcore = args[0];
	if (o->codec != MDF_CODEC_NONE || o->ndump_levels || o->format == MDF_FMT_ELF ||
	    o->flatten || o->dry_run || o->vmcoreinfo_file || o->split ||
	    o->action != MDF_ACT_DUMP || o->dump_dmesg || o->mem_usage || o->page_types ||
	    o->nkeep_tasks)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "-g cannot be combined with -c, -l, -p, -z, -d, -E, -F, -i, -R, "
				   "--dry-run, --split, --dump-dmesg, --mem-usage, --page-types or "
				   "--keep-task");
	o->action = MDF_ACT_GENERATE;
	o->dumpfile = o->generate_file;
	return MDF_OK;
}

static enum mdf_status check_combinations(struct mdf_opts *o, int nargs,
					  char **args, struct mdf_err *err)
{
	if (o->action == MDF_ACT_HELP || o->action == MDF_ACT_VERSION)
		return MDF_OK;
	if (o->ndisks) {
		/* --diskset=DISK..: the disks take VMCORE's place among the
		 * operands (upstream: makedumpfile --diskset=D1 --diskset=D2
		 * DUMPFILE) */
		if (o->generate_file || o->mem_usage || o->action != MDF_ACT_DUMP)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "--diskset gives a sadump disk set to read: not with -g, "
					   "--mem-usage, -R or --reassemble");
		if (nargs < 0 || (size_t)nargs + o->ndisks > ARRAY_SIZE(o->disk_args))
			return mdf_err_set(err, MDF_ERR_ARG, "too many operands");
		for (unsigned i = 0; i < o->ndisks; i++)
			o->disk_args[i] = (char *)o->disks[i];
		for (int i = 0; i < nargs; i++)
			o->disk_args[o->ndisks + (unsigned)i] = args[i];
		args = o->disk_args;
		nargs += (int)o->ndisks;
	}
	if (o->explain)
		return check_explain(o, nargs, args, err);
	if (o->splitblock_kib && !o->split)
		return mdf_err_set(err, MDF_ERR_ARG, "--splitblock-size needs --split");
	if (o->nextensions && (o->generate_file || o->dump_dmesg || o->mem_usage ||
				o->action != MDF_ACT_DUMP))
		return mdf_err_set(err, MDF_ERR_ARG,
				   "--extension filters a dump: not with -g, --dump-dmesg, "
				   "--mem-usage, -R or --reassemble");
	if (o->generate_file)
		return check_generate(o, nargs, args, err);
	if (o->config_file && (o->dump_dmesg || o->mem_usage || o->action != MDF_ACT_DUMP))
		return mdf_err_set(err, MDF_ERR_ARG,
				   "--config erases data of a dump: not with --dump-dmesg, "
				   "--mem-usage, -R or --reassemble");
	if (o->vmcoreinfo_file && o->vmlinux)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "-i and -x cannot be combined: each gives the VMCOREINFO");
	if (o->nkeep_tasks && (o->dump_dmesg || o->mem_usage || o->action != MDF_ACT_DUMP))
		return mdf_err_set(err, MDF_ERR_ARG,
				   "--keep-task chooses what a dump keeps: not with --dump-dmesg, "
				   "--mem-usage, -R or --reassemble");
	if (o->page_types && (o->action != MDF_ACT_DUMP || o->dump_dmesg))
		return mdf_err_set(err, MDF_ERR_ARG,
				   "--page-types counts the struct pages of a dump it reads: not with "
				   "-g, -R, --reassemble, --dump-dmesg or --explain");
	if (o->mem_usage)
		return check_mem_usage(o, nargs, args, err);
	/* --page-types VMCORE: the table alone, from a run that writes
	 * nothing (as --dry-run at -d 31) */
	if (o->page_types && nargs == 1 && !o->flatten && !o->split) {
		o->dry_run = true;
		if (!o->ndump_levels) {
			o->dump_levels[0] = 31;
			o->ndump_levels = 1;
		}
	}
	if (o->action == MDF_ACT_REASSEMBLE && !o->split &&
	    check_not_filtering(o, "--reassemble", COPIES_PAGES, false, err) != MDF_OK)
		return err->status;
	if (o->action == MDF_ACT_REASSEMBLE || o->split)
		return check_split(o, nargs, args, err);
	if (o->partial_dmesg && !o->dump_dmesg)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "--partial-dmesg needs --dump-dmesg");
	if (o->dump_dmesg) {
		if (o->action == MDF_ACT_REARRANGE || o->dry_run)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "--dump-dmesg cannot be combined with -R or --dry-run");
		if (check_not_filtering(o, "--dump-dmesg",
					"it writes the kernel log as text", true, err) != MDF_OK)
			return err->status;
		o->action = MDF_ACT_DMESG;
		/* -F: the text goes to standard output, as it is (not a
		 * flattened stream); SUSE's kdump-save pipes it so. */
		if (o->flatten) {
			if (nargs < 1)
				return mdf_err_set(err, MDF_ERR_ARG,
						   "missing operand: -F --dump-dmesg needs VMCORE (the log goes to standard output)");
			o->dumpfile = NULL;
			return set_inputs(o, args, nargs, 0, err);
		}
		if (nargs < 2)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "missing operand: --dump-dmesg needs VMCORE and DMESGFILE");
		o->dumpfile = args[nargs - 1];
		if (nargs == 2 && strcmp(args[0], o->dumpfile) == 0)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "VMCORE and DMESGFILE are the same file '%s'",
					   args[0]);
		return set_inputs(o, args, nargs - 1, 1, err);
	}
	if (o->action == MDF_ACT_REARRANGE) {
		if (check_not_filtering(o, "-R", COPIES_PAGES, false, err) != MDF_OK)
			return err->status;
		if (o->dry_run || o->flatten)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "-R cannot be combined with %s: it reads a flattened dump and writes a file",
					   o->dry_run ? "--dry-run" : "-F");
		if (nargs != 1)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "-R needs exactly one argument: the dump file to write");
		o->dumpfile = args[0];
		return MDF_OK;
	}
	if (o->format == MDF_FMT_ELF && o->codec != MDF_CODEC_NONE)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "-E cannot be combined with -c, -l, -p or -z");
	/* Operands beyond VMCORE [DUMPFILE]: the parts of a split set, read
	 * as one dump (the output, if any, last). */
	if (o->flatten) {
		if (nargs < 1)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "with -F give only the VMCORE (or the parts of a split set); the dump goes to standard output");
		return set_inputs(o, args, nargs, 0, err);
	}
	if (o->dry_run) {
		if (nargs < 1)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "--dry-run needs VMCORE [DUMPFILE], or PART1 PART2.. DUMPFILE");
		/* Two operands stay VMCORE DUMPFILE; a set names its output. */
		o->dumpfile = nargs >= 2 ? args[nargs - 1] : NULL;
		return set_inputs(o, args, nargs >= 2 ? nargs - 1 : 1, nargs >= 2, err);
	}
	if (nargs < 2)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "missing operand: need VMCORE and DUMPFILE");
	o->dumpfile = args[nargs - 1];
	if (nargs == 2 && strcmp(args[0], o->dumpfile) == 0)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "VMCORE and DUMPFILE are the same file '%s'",
				   args[0]);
	return set_inputs(o, args, nargs - 1, 1, err);
}

enum mdf_status opts_parse(int argc, char **argv, struct mdf_opts *o,
			   struct mdf_err *err)
{
	static const struct option long_opts[] = {
		{ "message-level", required_argument, NULL, OPT_MESSAGE_LEVEL },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "show-stats", no_argument, NULL, OPT_SHOW_STATS },
		{ "check-params", no_argument, NULL, OPT_CHECK_PARAMS },
		{ "non-mmap", no_argument, NULL, OPT_NON_MMAP },
		{ "mmap", required_argument, NULL, OPT_MMAP },
		{ "cyclic-buffer", required_argument, NULL, OPT_CYCLIC_BUFFER },
		{ "num-threads", required_argument, NULL, OPT_NUM_THREADS },
		{ "debug-bitmap", required_argument, NULL, OPT_DEBUG_BITMAP },
		{ "debug-bitmap1", required_argument, NULL, OPT_DEBUG_BITMAP1 },
		{ "dump-dmesg", no_argument, NULL, OPT_DUMP_DMESG },
		{ "partial-dmesg", no_argument, NULL, OPT_PARTIAL_DMESG },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'v' },
		{ "split", no_argument, NULL, OPT_SPLIT },
		{ "reassemble", no_argument, NULL, OPT_REASSEMBLE },
		{ "mem-usage", no_argument, NULL, OPT_MEM_USAGE },
		{ "splitblock-size", required_argument, NULL, OPT_SPLITBLOCK_SIZE },
		{ "explain", required_argument, NULL, OPT_EXPLAIN },
		/* recognised but not provided */
		{ "vtop", required_argument, NULL, OPT_VTOP },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "eppic", required_argument, NULL, OPT_NOT_SUPPORTED },
		{ "diskset", required_argument, NULL, OPT_DISKSET },
		{ "xen-syms", required_argument, NULL, OPT_NOT_SUPPORTED },
		{ "xen-vmcoreinfo", required_argument, NULL, OPT_NOT_SUPPORTED },
		{ "xen_phys_start", required_argument, NULL, OPT_NOT_SUPPORTED },
		{ "work-dir", required_argument, NULL, OPT_WORK_DIR },
		{ "extension", required_argument, NULL, OPT_EXTENSION },
		{ "report-format", required_argument, NULL, OPT_REPORT_FORMAT },
		{ "page-types", no_argument, NULL, OPT_PAGE_TYPES },
		{ "keep-task", required_argument, NULL, OPT_KEEP_TASK },
		{ "page-types-by", required_argument, NULL, OPT_PAGE_TYPES_BY },
		{ NULL, 0, NULL, 0 },
	};
	enum mdf_status st;
	uint64_t v;
	int c, idx;

	memset(o, 0, sizeof(*o));
	o->message_level = 7;
	o->block_order = 4;
	o->argv0 = argc > 0 ? argv[0] : "makedumpfile";
	opterr = 0;
	/* 0, not 1: glibc then also forgets where it was inside a cluster
	 * of short options ("-czf" left at 'f' by an error) and its
	 * permutation state, so a second call starts clean. */
	optind = 0;
	for (;;) {
		idx = -1;
		c = getopt_long(argc, argv, short_opts, long_opts, &idx);
		if (c == -1)
			break;
		st = MDF_OK;
		switch (c) {
		case 'b':
			st = parse_uint("-b", optarg, 20, &v, err);
			o->block_order = (unsigned)v;
			break;
		case 'c': st = set_codec(o, MDF_CODEC_ZLIB, err); break;
		case 'l': st = set_codec(o, MDF_CODEC_LZO, err); break;
		case 'p': st = set_codec(o, MDF_CODEC_SNAPPY, err); break;
		case 'z': st = set_codec(o, MDF_CODEC_ZSTD, err); break;
		case 'D': o->debug = true; break;
		case 'd': st = parse_dump_levels(optarg, o, err); break;
		case 'E': o->format = MDF_FMT_ELF; break;
		case 'F': o->flatten = true; break;
		case 'f': o->force = true; break;
		case 'h': o->action = MDF_ACT_HELP; break;
		case 'v': o->action = MDF_ACT_VERSION; break;
		case 'R': o->action = MDF_ACT_REARRANGE; break;
		case 'L': st = parse_size("-L", optarg, &o->size_limit, err); break;
		case 'i': o->vmcoreinfo_file = optarg; break;
		case 'x': o->vmlinux = optarg; break;
		case 'g': o->generate_file = optarg; break;
		case 'e': o->exclude_vmemmap = true; break;
		case OPT_WORK_DIR: o->work_dir = optarg; break;
		case OPT_REPORT_FORMAT:
			if (strcmp(optarg, "json") == 0 || strcmp(optarg, "text") == 0)
				o->report_json = optarg[0] == 'j';
			else
				st = mdf_err_set(err, MDF_ERR_ARG, "invalid value '%s' for option "
						 "--report-format: text or json", optarg);
			break;
		case OPT_KEEP_TASK:
			if (o->nkeep_tasks == MDF_MAX_KEEP_TASKS)
				return mdf_err_set(err, MDF_ERR_ARG, "at most %u --keep-task options",
						   MDF_MAX_KEEP_TASKS);
			if (opts_keep_spec_parse(optarg, &o->keep_specs[o->nkeep_tasks], err) != MDF_OK)
				return err->status;
			o->nkeep_tasks++;
			break;
		case OPT_EXTENSION:
			if (o->nextensions == MDF_MAX_EXTENSIONS)
				return mdf_err_set(err, MDF_ERR_ARG,
						   "at most %u --extension options",
						   MDF_MAX_EXTENSIONS);
			o->extensions[o->nextensions++] = optarg;
			break;
		case 'X':
			return mdf_err_set(err, MDF_ERR_NOTSUPP,
					   "option -%c is not supported by this makedumpfile",
					   c);
		case OPT_MESSAGE_LEVEL:
			st = parse_uint("--message-level", optarg, 31, &v, err);
			o->message_level = (unsigned)v;
			o->message_level_set = true;
			break;
		case OPT_DRY_RUN: o->dry_run = true; break;
		case OPT_SHOW_STATS: o->show_stats = true; break;
		case OPT_CHECK_PARAMS: o->check_params = true; break;
		case OPT_NON_MMAP: o->mmap = MDF_MMAP_NEVER; break;
		case OPT_MMAP:
			if (strcmp(optarg, "never") == 0)
				o->mmap = MDF_MMAP_NEVER;
			else if (strcmp(optarg, "try") == 0)
				o->mmap = MDF_MMAP_TRY;
			else if (strcmp(optarg, "always") == 0)
				o->mmap = MDF_MMAP_ALWAYS;
			else
				st = mdf_err_set(err, MDF_ERR_ARG,
						 "invalid value '%s' for option --mmap (never, try or always)",
						 optarg);
			break;
		case OPT_CYCLIC_BUFFER:
			st = parse_uint("--cyclic-buffer", optarg, UINT64_MAX >> 10,
					&o->cyclic_buffer_kib, err);
			if (st == MDF_OK && o->cyclic_buffer_kib == 0)
				st = mdf_err_set(err, MDF_ERR_ARG,
						 "invalid value '0' for option --cyclic-buffer");
			break;
		case OPT_NUM_THREADS:
			st = parse_uint("--num-threads", optarg, 256, &v, err);
			o->num_threads = (unsigned)v;
			break;
		case OPT_DEBUG_BITMAP: o->debug_bitmap = optarg; break;
		case OPT_DEBUG_BITMAP1: o->debug_bitmap1 = optarg; break;
		case OPT_DUMP_DMESG: o->dump_dmesg = true; break;
		case OPT_PARTIAL_DMESG: o->partial_dmesg = true; break;
		case OPT_SPLIT: o->split = true; break;
		case OPT_SPLITBLOCK_SIZE:
			/* KB, as upstream; at most 1 TiB. */
			st = parse_uint("--splitblock-size", optarg, UINT64_C(1) << 30, &v, err);
			if (st == MDF_OK && v == 0)
				st = mdf_err_set(err, MDF_ERR_ARG,
						 "--splitblock-size must be at least 1 (KB)");
			o->splitblock_kib = v;
			break;
		case OPT_REASSEMBLE: o->action = MDF_ACT_REASSEMBLE; break;
		case OPT_MEM_USAGE: o->mem_usage = true; break;
		case OPT_PAGE_TYPES: o->page_types = true; break;
		case OPT_PAGE_TYPES_BY:
			o->page_types = true;
			if (strcmp(optarg, "flags") == 0)
				o->page_types_by = MDF_PT_BY_FLAGS;
			else if (strcmp(optarg, "task") == 0)
				o->page_types_by = MDF_PT_BY_TASK;
			else if (strcmp(optarg, "cgroup") == 0)
				o->page_types_by = MDF_PT_BY_CGROUP;
			else
				return mdf_err_set(err, MDF_ERR_ARG, "invalid value '%s' for option "
						   "--page-types-by: flags, task or cgroup", optarg);
			break;
		case OPT_CONFIG: o->config_file = optarg; break;
		case OPT_DISKSET:
			if (o->ndisks == MDF_MAX_DISKS)
				return mdf_err_set(err, MDF_ERR_ARG, "at most %u --diskset options "
						   "(a disk set has at most %u disks)", MDF_MAX_DISKS,
						   MDF_MAX_DISKS);
			o->disks[o->ndisks++] = optarg;
			break;
		case OPT_EXPLAIN: st = parse_explain(optarg, o, err); break;
		case OPT_VTOP:
			/* strtoul(, 0) as upstream: 0x hex, 0 octal, decimal. */
			if (!util_parse_u64_base(optarg, 0, &o->vtop) || o->vtop == 0)
				st = mdf_err_set(err, MDF_ERR_ARG,
						 "invalid value '%s' for option --vtop", optarg);
			break;
		case OPT_NOT_SUPPORTED:
			return mdf_err_set(err, MDF_ERR_NOTSUPP,
					   "option --%s is not supported by this makedumpfile",
					   long_opts[idx].name);
		case ':':
			return mdf_err_set(err, MDF_ERR_ARG,
					   "option '%s' needs an argument",
					   argv[optind - 1]);
		case '?':
		default:
			if (optopt && optopt < 256)
				return mdf_err_set(err, MDF_ERR_ARG,
						   "invalid option -- '%c'", optopt);
			return mdf_err_set(err, MDF_ERR_ARG,
					   "unrecognized option '%s'",
					   argv[optind - 1]);
		}
		if (st != MDF_OK)
			return st;
	}
	if (o->show_stats && !o->message_level_set)
		o->message_level |= 16;
	return check_combinations(o, argc - optind, argv + optind, err);
}
