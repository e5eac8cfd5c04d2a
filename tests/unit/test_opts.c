/*
 * tests/unit/test_opts.c - command-line parsing: every option's syntax,
 * the combinations that are refused, and the exact error messages.
 */
#include <string.h>

#include "tap.h"

#include "opts.h"
#include "util.h"

static struct mdf_opts o;
static struct mdf_err err;

/* opts_parse() on a NULL-terminated list (argv[0] added). */
#define ARGV(...) ((const char *[]){ "makedumpfile", __VA_ARGS__, NULL })

static enum mdf_status parse_v(const char *const *args)
{
	static char *argv[64];
	int argc = 0;

	while (args[argc] && argc < 63) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	mdf_err_clear(&err);
	return opts_parse(argc, argv, &o, &err);
}

#define PARSE(...) parse_v(ARGV(__VA_ARGS__))

/* Parse must succeed (the status goes through a variable so that the
 * failure message stays short). */
#define OK(...)                                          \
	do {                                             \
		enum mdf_status st_ = PARSE(__VA_ARGS__); \
		T_OK(st_, &err);                         \
	} while (0)

/* Parse must fail with @st and the exact message @msg. */
#define T_REJECT(st, want_msg, ...)                     \
	do {                                            \
		const char *t_want_ = (want_msg);       \
		T_EQ_U64(PARSE(__VA_ARGS__), st);       \
		T_EQ_STR(err.msg, t_want_);             \
	} while (0)

static void defaults(void)
{
	OK("vmcore", "dump");
	T_EQ_U64(o.action, MDF_ACT_DUMP);
	T_EQ_STR(o.vmcore, "vmcore");
	T_EQ_STR(o.dumpfile, "dump");
	T_EQ_U64(o.ndump_levels, 0);
	T_EQ_U64(opts_dump_level(&o), 0);
	T_EQ_U64(o.format, MDF_FMT_KDUMP);
	T_EQ_U64(o.codec, MDF_CODEC_NONE);
	T_ASSERT(!o.flatten && !o.force && !o.debug && !o.dry_run);
	T_ASSERT(!o.show_stats && !o.check_params);
	T_EQ_U64(o.message_level, 7);
	T_ASSERT(!o.message_level_set);
	T_EQ_U64(o.mmap, MDF_MMAP_TRY);
	T_EQ_U64(o.cyclic_buffer_kib, 0);
	T_EQ_U64(o.num_threads, 0);
	T_EQ_U64(o.block_order, 4);
	T_EQ_U64(o.size_limit, 0);
	T_ASSERT(o.debug_bitmap == NULL && o.debug_bitmap1 == NULL);
	T_EQ_STR(o.argv0, "makedumpfile");
}

static void dump_levels(void)
{
	OK("-d", "31", "in", "out");
	T_EQ_U64(o.ndump_levels, 1);
	T_EQ_U64(o.dump_levels[0], 31);
	T_EQ_U64(opts_dump_level(&o), 31);
	OK("-d31", "in", "out");
	T_EQ_U64(opts_dump_level(&o), 31);
	OK("-d", "0", "in", "out");
	T_EQ_U64(o.ndump_levels, 1);
	T_EQ_U64(opts_dump_level(&o), 0);
	OK("-d", "31,1", "in", "out");
	T_EQ_U64(o.ndump_levels, 2);
	T_EQ_U64(o.dump_levels[0], 31);
	T_EQ_U64(o.dump_levels[1], 1);
	OK("-d", "1,2,4,8,16,31,0,3", "in", "out");
	T_EQ_U64(o.ndump_levels, MDF_MAX_DUMP_LEVELS);
	T_EQ_U64(o.dump_levels[7], 3);
	/* The last -d wins. */
	OK("-d", "1,2", "-d", "17", "in", "out");
	T_EQ_U64(o.ndump_levels, 1);
	T_EQ_U64(o.dump_levels[0], 17);
}

static void dump_levels_bad(void)
{
	T_REJECT(MDF_ERR_ARG, "invalid dump level '32' (must be 0 to 31)",
		 "-d", "32", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid dump level '-1' (must be 0 to 31)",
		 "-d", "-1", "in", "out");
	T_REJECT(MDF_ERR_ARG, "empty dump level", "-d", "", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid dump level list '1,'", "-d", "1,", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid dump level list ',1'", "-d", ",1", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid dump level list '1,,2'", "-d", "1,,2", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid dump level 'x' (must be 0 to 31)",
		 "-d", "x", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid dump level '0x1f' (must be 0 to 31)",
		 "-d", "0x1f", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid dump level ' 1' (must be 0 to 31)",
		 "-d", " 1", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid dump level '1 ' (must be 0 to 31)",
		 "-d", "1 ", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid dump level list '99999999999999999999'",
		 "-d", "99999999999999999999", "in", "out");
	T_REJECT(MDF_ERR_ARG, "too many dump levels in '1,2,3,4,5,6,7,8,9'",
		 "-d", "1,2,3,4,5,6,7,8,9", "in", "out");
	T_REJECT(MDF_ERR_ARG, "option '-d' needs an argument", "-d");
}

static void codecs(void)
{
	static const struct { const char *opt; enum mdf_codec c; } t[] = {
		{ "-c", MDF_CODEC_ZLIB }, { "-l", MDF_CODEC_LZO },
		{ "-p", MDF_CODEC_SNAPPY }, { "-z", MDF_CODEC_ZSTD },
	};

	for (unsigned i = 0; i < ARRAY_SIZE(t); i++) {
		OK(t[i].opt, "in", "out");
		T_EQ_U64(o.codec, t[i].c);
		/* The same option twice is fine. */
		OK(t[i].opt, t[i].opt, "in", "out");
		T_EQ_U64(o.codec, t[i].c);
		for (unsigned j = 0; j < ARRAY_SIZE(t); j++) {
			if (i == j)
				continue;
			T_REJECT(MDF_ERR_ARG, "options -c, -l, -p and -z are mutually exclusive",
				 t[i].opt, t[j].opt, "in", "out");
		}
	}
	T_REJECT(MDF_ERR_ARG, "options -c, -l, -p and -z are mutually exclusive",
		 "-cz", "in", "out");
}

static void elf_format(void)
{
	OK("-E", "-d", "31", "in", "out");
	T_EQ_U64(o.format, MDF_FMT_ELF);
	T_EQ_U64(o.codec, MDF_CODEC_NONE);
	T_REJECT(MDF_ERR_ARG, "-E cannot be combined with -c, -l, -p or -z",
		 "-E", "-c", "in", "out");
	T_REJECT(MDF_ERR_ARG, "-E cannot be combined with -c, -l, -p or -z",
		 "-z", "-E", "in", "out");
	T_REJECT(MDF_ERR_ARG, "-E cannot be combined with -c, -l, -p or -z",
		 "-El", "in");
}

static void flatten(void)
{
	OK("-F", "-c", "-d", "31", "in");
	T_ASSERT(o.flatten);
	T_EQ_STR(o.vmcore, "in");
	T_ASSERT(o.dumpfile == NULL);
	T_EQ_U64(o.codec, MDF_CODEC_ZLIB);
	OK("-E", "-F", "in");
	T_ASSERT(o.flatten && o.format == MDF_FMT_ELF);
	/* -F PART1 PART2: a split set, read as one dump */
	OK("-F", "-l", "p1", "p2");
	T_EQ_STR(o.vmcore, "p1");
	T_EQ_U64(o.nin, 2);
	T_EQ_STR(o.in_files[1], "p2");
	T_ASSERT(o.dumpfile == NULL);
	T_REJECT(MDF_ERR_ARG, "the file 'p1' is given twice", "-F", "p1", "p1");
	T_REJECT(MDF_ERR_ARG, "with -F give only the VMCORE (or the parts of a split set); the dump goes to standard output",
		 "-F");
}

static void rearrange(void)
{
	OK("-R", "out");
	T_EQ_U64(o.action, MDF_ACT_REARRANGE);
	T_EQ_STR(o.dumpfile, "out");
	T_ASSERT(o.vmcore == NULL);
	T_REJECT(MDF_ERR_ARG, "-R needs exactly one argument: the dump file to write", "-R");
	T_REJECT(MDF_ERR_ARG, "-R needs exactly one argument: the dump file to write",
		 "-R", "a", "b");
	T_REJECT(MDF_ERR_ARG, "-R cannot be combined with -L: it writes the pages the input holds, as they are",
		 "-R", "-L", "1M", "out");
	T_REJECT(MDF_ERR_ARG, "-R cannot be combined with -d: it writes the pages the input holds, as they are",
		 "-R", "-d", "31", "out");
	T_REJECT(MDF_ERR_ARG, "-R cannot be combined with -c, -l, -p or -z: it writes the pages the input holds, as they are",
		 "-R", "-z", "out");
	T_REJECT(MDF_ERR_ARG, "-R cannot be combined with -E: it writes the pages the input holds, as they are",
		 "-R", "-E", "out");
	T_REJECT(MDF_ERR_ARG, "-R cannot be combined with -F: it reads a flattened dump and writes a file",
		 "-R", "-F", "out");
	T_REJECT(MDF_ERR_ARG, "--reassemble cannot be combined with -L: it writes the pages the input holds, as they are",
		 "--reassemble", "-L", "1M", "a", "b", "out");
	OK("--split", "--splitblock-size", "131072", "in", "a", "b");
	T_EQ_U64(o.splitblock_kib, 131072);
	T_REJECT(MDF_ERR_ARG, "--splitblock-size needs --split",
		 "--splitblock-size", "1024", "in", "out");
	T_REJECT(MDF_ERR_ARG, "--splitblock-size must be at least 1 (KB)",
		 "--split", "--splitblock-size", "0", "in", "a", "b");
}

static void dump_dmesg(void)
{
	OK("--dump-dmesg", "vmcore", "log");
	T_EQ_U64(o.action, MDF_ACT_DMESG);
	T_EQ_STR(o.vmcore, "vmcore");
	T_EQ_STR(o.dumpfile, "log");
	T_ASSERT(o.dump_dmesg && !o.partial_dmesg);
	OK("vmcore", "--partial-dmesg", "log", "--dump-dmesg", "-f");
	T_EQ_U64(o.action, MDF_ACT_DMESG);
	T_ASSERT(o.partial_dmesg && o.force);
	/* Options that do not apply are refused, not ignored. */
	T_REJECT(MDF_ERR_ARG, "--dump-dmesg cannot be combined with -d: it writes the kernel log as text",
		 "-d", "31", "--dump-dmesg", "vmcore", "log");
	T_REJECT(MDF_ERR_ARG, "--dump-dmesg cannot be combined with -c, -l, -p or -z: it writes the kernel log as text",
		 "-l", "--dump-dmesg", "vmcore", "log");
	T_REJECT(MDF_ERR_ARG, "--dump-dmesg cannot be combined with -E: it writes the kernel log as text",
		 "-E", "--dump-dmesg", "vmcore", "log");
	OK("-L", "1M", "--dump-dmesg", "vmcore", "log");   /* -L limits the log */
	OK("--dump-dmesg", "-h");
	T_EQ_U64(o.action, MDF_ACT_HELP);
	T_REJECT(MDF_ERR_ARG, "--partial-dmesg needs --dump-dmesg",
		 "--partial-dmesg", "in", "out");
	T_REJECT(MDF_ERR_ARG, "missing operand: --dump-dmesg needs VMCORE and DMESGFILE",
		 "--dump-dmesg", "in");
	/* the parts of a split set, then DMESGFILE */
	OK("--dump-dmesg", "p2", "p1", "log");
	T_EQ_STR(o.vmcore, "p2");
	T_EQ_U64(o.nin, 2);
	T_EQ_STR(o.in_files[1], "p1");
	T_EQ_STR(o.dumpfile, "log");
	T_REJECT(MDF_ERR_ARG, "the file 'p1' is given twice",
		 "--dump-dmesg", "p1", "p2", "p1");
	T_REJECT(MDF_ERR_ARG, "VMCORE and DMESGFILE are the same file 'x'",
		 "--dump-dmesg", "x", "x");
	/* -F: the text to standard output (SUSE's kdump-save pipes it). */
	OK("-F", "--message-level", "8", "--dump-dmesg", "in");
	T_EQ_U64(o.action, MDF_ACT_DMESG);
	T_EQ_STR(o.vmcore, "in");
	T_ASSERT(o.flatten && !o.dumpfile);
	OK("--dump-dmesg", "-F", "p1", "p2");
	T_EQ_U64(o.nin, 2);
	T_ASSERT(!o.dumpfile);
	T_REJECT(MDF_ERR_ARG, "missing operand: -F --dump-dmesg needs VMCORE (the log goes to standard output)",
		 "--dump-dmesg", "-F");
	T_REJECT(MDF_ERR_ARG, "--dump-dmesg cannot be combined with -R or --dry-run",
		 "--dump-dmesg", "--dry-run", "in", "out");
}

static void message_level(void)
{
	for (unsigned ml = 0; ml <= 31; ml++) {
		char a[8];

		snprintf(a, sizeof(a), "%u", ml);
		OK("--message-level", a, "in", "out");
		T_EQ_U64(o.message_level, ml);
		T_ASSERT(o.message_level_set);
	}
	OK("--message-level=5", "in", "out");
	T_EQ_U64(o.message_level, 5);
	T_REJECT(MDF_ERR_ARG, "invalid value '32' for option --message-level",
		 "--message-level", "32", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid value '-1' for option --message-level",
		 "--message-level", "-1", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid value '' for option --message-level",
		 "--message-level=", "in", "out");
	T_REJECT(MDF_ERR_ARG, "option '--message-level' needs an argument",
		 "--message-level");
	/* --show-stats turns on the report unless the level was given. */
	OK("--show-stats", "in", "out");
	T_ASSERT(o.show_stats);
	T_EQ_U64(o.message_level, 7 | 16);
	OK("--show-stats", "--message-level", "3", "in", "out");
	T_EQ_U64(o.message_level, 3);
}

static void num_threads(void)
{
	OK("--num-threads=2", "in", "out");
	T_EQ_U64(o.num_threads, 2);
	OK("--num-threads", "2", "in", "out");
	T_EQ_U64(o.num_threads, 2);
	OK("--num-threads", "0", "in", "out");
	T_EQ_U64(o.num_threads, 0);
	OK("--num-threads", "256", "in", "out");
	T_EQ_U64(o.num_threads, 256);
	T_REJECT(MDF_ERR_ARG, "invalid value '257' for option --num-threads",
		 "--num-threads", "257", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid value 'two' for option --num-threads",
		 "--num-threads=two", "in", "out");
	T_REJECT(MDF_ERR_ARG, "option '--num-threads' needs an argument", "--num-threads");
}

static void cyclic_buffer(void)
{
	OK("--cyclic-buffer", "1024", "in", "out");
	T_EQ_U64(o.cyclic_buffer_kib, 1024);
	OK("--cyclic-buffer=1", "in", "out");
	T_EQ_U64(o.cyclic_buffer_kib, 1);
	T_REJECT(MDF_ERR_ARG, "invalid value '0' for option --cyclic-buffer",
		 "--cyclic-buffer", "0", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid value '4M' for option --cyclic-buffer",
		 "--cyclic-buffer", "4M", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid value '18014398509481984' for option --cyclic-buffer",
		 "--cyclic-buffer", "18014398509481984", "in", "out");   /* 2^54 KiB */
}

static void size_limit(void)
{
	OK("-L", "10M", "in", "out");
	T_EQ_U64(o.size_limit, 10ULL << 20);
	OK("-L10m", "in", "out");
	T_EQ_U64(o.size_limit, 10ULL << 20);
	OK("-L", "4096", "in", "out");
	T_EQ_U64(o.size_limit, 4096);
	OK("-L", "3K", "in", "out");
	T_EQ_U64(o.size_limit, 3072);
	OK("-L", "2g", "in", "out");
	T_EQ_U64(o.size_limit, 2ULL << 30);
	T_REJECT(MDF_ERR_ARG, "invalid value '0' for option -L", "-L", "0", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid value 'M' for option -L", "-L", "M", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid value '' for option -L", "-L", "", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid value '10T' for option -L", "-L", "10T", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid value '1.5G' for option -L", "-L", "1.5G", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid value '17179869184G' for option -L",
		 "-L", "17179869184G", "in", "out");   /* 2^64 bytes */
	T_REJECT(MDF_ERR_ARG, "option '-L' needs an argument", "-L");
}

static void block_order(void)
{
	OK("-b", "4", "in", "out");
	T_EQ_U64(o.block_order, 4);
	OK("-b0", "in", "out");
	T_EQ_U64(o.block_order, 0);
	OK("-b", "20", "in", "out");
	T_EQ_U64(o.block_order, 20);
	T_REJECT(MDF_ERR_ARG, "invalid value '21' for option -b", "-b", "21", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid value 'x' for option -b", "-b", "x", "in", "out");
}

static void mmap_opts(void)
{
	OK("--non-mmap", "in", "out");
	T_EQ_U64(o.mmap, MDF_MMAP_NEVER);
	OK("--mmap=never", "in", "out");
	T_EQ_U64(o.mmap, MDF_MMAP_NEVER);
	OK("--mmap", "always", "in", "out");
	T_EQ_U64(o.mmap, MDF_MMAP_ALWAYS);
	OK("--non-mmap", "--mmap=try", "in", "out");
	T_EQ_U64(o.mmap, MDF_MMAP_TRY);
	T_REJECT(MDF_ERR_ARG, "invalid value 'bad' for option --mmap (never, try or always)",
		 "--mmap=bad", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid value 'Never' for option --mmap (never, try or always)",
		 "--mmap", "Never", "in", "out");
	T_REJECT(MDF_ERR_ARG, "option '--mmap' needs an argument", "--mmap");
}

static void flags_and_files(void)
{
	OK("-f", "-D", "--dry-run", "--check-params", "--debug-bitmap", "b2",
		   "--debug-bitmap1=b1", "in", "out");
	T_ASSERT(o.force && o.debug && o.dry_run && o.check_params);
	T_EQ_STR(o.debug_bitmap, "b2");
	T_EQ_STR(o.debug_bitmap1, "b1");
	/* --dry-run needs no DUMPFILE. */
	OK("--dry-run", "in");
	T_EQ_STR(o.vmcore, "in");
	T_ASSERT(o.dumpfile == NULL);
	T_EQ_U64(o.nin, 0);
	T_REJECT(MDF_ERR_ARG, "--dry-run needs VMCORE [DUMPFILE], or PART1 PART2.. DUMPFILE",
		 "--dry-run");
	OK("--dry-run", "a", "b", "c");  /* a split set a b, DUMPFILE c */
	T_EQ_U64(o.nin, 2);
	T_EQ_STR(o.dumpfile, "c");
	/* Options after the operands (GNU permutation). */
	OK("in", "out", "-d", "16", "-f");
	T_EQ_STR(o.vmcore, "in");
	T_EQ_STR(o.dumpfile, "out");
	T_EQ_U64(opts_dump_level(&o), 16);
	T_ASSERT(o.force);
	/* "--" ends the options: "-f" is then a file name. */
	OK("--", "-f", "out");
	T_EQ_STR(o.vmcore, "-f");
	T_ASSERT(!o.force);
}

static void help_version(void)
{
	OK("-h");
	T_EQ_U64(o.action, MDF_ACT_HELP);
	OK("--help");
	T_EQ_U64(o.action, MDF_ACT_HELP);
	OK("-v");
	T_EQ_U64(o.action, MDF_ACT_VERSION);
	OK("--version", "x", "y", "z");   /* operands not checked */
	T_EQ_U64(o.action, MDF_ACT_VERSION);
	OK("-c", "-E", "-h");             /* nor combinations */
}

static void unsupported(void)
{
	static const char *const long_args[] = {
		"eppic", "xen-syms", "xen-vmcoreinfo",
		"xen_phys_start",
	};

	for (unsigned i = 0; i < ARRAY_SIZE(long_args); i++) {
		char a[64], m[128];

		snprintf(a, sizeof(a), "--%s=x", long_args[i]);
		snprintf(m, sizeof(m), "option --%s is not supported by this makedumpfile",
			 long_args[i]);
		T_REJECT(MDF_ERR_NOTSUPP, m, a, "in", "out");
	}
	/* --diskset=DISK (sadump): the disks are the input, disk 1 first */
	OK("--diskset=d1", "--diskset=d2", "-d", "31", "-x", "vmlinux", "out");
	T_EQ_U64(o.ndisks, 2);
	T_EQ_STR(o.vmcore, "d1");
	T_EQ_STR(o.dumpfile, "out");
	T_EQ_U64(o.nin, 0);
	OK("--diskset=d1", "--diskset=d2", "-F", "-x", "vmlinux");
	T_EQ_STR(o.vmcore, "d1");
	OK("--diskset=d1", "--diskset=d2", "--split", "-x", "vmlinux", "o1", "o2");
	T_EQ_STR(o.vmcore, "d1");
	T_EQ_U64(o.nsplit, 2);
	T_EQ_STR(o.split_files[1], "o2");
	T_REJECT(MDF_ERR_ARG, "with --diskset the disks are the input: give no VMCORE operand",
		 "--diskset=d1", "--diskset=d2", "in", "out");
	T_REJECT(MDF_ERR_ARG, "the file 'd1' is given twice", "--diskset=d1", "--diskset=d2", "d1");
	/* --report-format text|json */
	OK("--report-format", "json", "-d", "31", "in", "out");
	OK("--report-format", "text", "-d", "31", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid value 'xml' for option --report-format: text or json",
		 "--report-format", "xml", "in", "out");
	/* --extension FILE.so: repeatable, at most 16, a dump's option */
	OK("--extension", "a.so", "--extension", "b.so", "-d", "31", "in", "out");
	T_REJECT(MDF_ERR_ARG, "--extension filters a dump: not with -g, --dump-dmesg, "
		 "--mem-usage, -R or --reassemble", "--extension", "a.so", "--dump-dmesg", "in", "out");
	/* --split and --reassemble are provided: see test_split.c. */
	T_REJECT(MDF_ERR_ARG, "--split cannot be combined with -F",
		 "-d", "31", "-F", "--split", "in", "o1", "o2");
	OK("-i", "vmcoreinfo.txt", "in", "out");  /* VMCOREINFO from a file */
	T_EQ_STR(o.vmcoreinfo_file, "vmcoreinfo.txt");
	OK("-e", "--work-dir", "/tmp", "in", "out"); /* -e, and upstream's --work-dir for it */
	T_ASSERT(o.exclude_vmemmap);
	T_EQ_STR(o.work_dir, "/tmp");
	T_REJECT(MDF_ERR_NOTSUPP, "option -X is not supported by this makedumpfile",
		 "-X", "in", "out");
}

/* -x VMLINUX with a dump; -g FILE -x VMLINUX alone (as upstream). */
static void debuginfo(void)
{
	static const char *const g_alone =
		"-g cannot be combined with -c, -l, -p, -z, -d, -E, -F, -i, -R, "
		"--dry-run, --split, --dump-dmesg, --mem-usage, --page-types or --keep-task";

	OK("-x", "vmlinux", "-d", "31", "in", "out");
	T_EQ_STR(o.vmlinux, "vmlinux");
	T_EQ_U64(o.action, MDF_ACT_DUMP);
	OK("-g", "vmcoreinfo.txt", "-x", "vmlinux");
	T_EQ_U64(o.action, MDF_ACT_GENERATE);
	T_EQ_STR(o.generate_file, "vmcoreinfo.txt");
	T_EQ_STR(o.vmlinux, "vmlinux");
	T_REJECT(MDF_ERR_ARG, "-g needs -x VMLINUX, or a VMCORE whose kernel has BTF: "
		 "makedumpfile -g FILE -x VMLINUX, or -g FILE VMCORE", "-g", "vmcoreinfo.txt");
	T_REJECT(MDF_ERR_ARG, "-g takes -x VMLINUX or a VMCORE, not both: makedumpfile -g FILE -x VMLINUX",
		 "-g", "vi.txt", "-x", "vmlinux", "in");
	T_REJECT(MDF_ERR_ARG, "-g takes one VMCORE: makedumpfile -g FILE VMCORE",
		 "-g", "vi.txt", "in", "out");
	OK("-g", "vi.txt", "vmcore");   /* from the dump's BTF and kallsyms */
	T_REJECT(MDF_ERR_ARG, g_alone, "-g", "vi.txt", "-x", "vmlinux", "-d", "31");
	T_REJECT(MDF_ERR_ARG, g_alone, "-g", "vi.txt", "-x", "vmlinux", "-c");
	T_REJECT(MDF_ERR_ARG, g_alone, "-g", "vi.txt", "-x", "vmlinux", "-i", "f");
	T_REJECT(MDF_ERR_ARG, "-i and -x cannot be combined: each gives the VMCOREINFO",
		 "-i", "f", "-x", "vmlinux", "in", "out");
	OK("--config", "f.conf", "-x", "vmlinux", "-d", "31", "in", "out");
	T_EQ_STR(o.config_file, "f.conf");
	OK("--config", "f.conf", "in", "out"); /* the dump's own BTF and kallsyms */
	OK("--vtop", "0xffffffff81000000", "-d", "31", "in", "out");
	T_EQ_U64(o.vtop, 0xffffffff81000000ULL);
	OK("--vtop=4096", "in", "out");
	T_EQ_U64(o.vtop, 4096);
	T_REJECT(MDF_ERR_ARG, "invalid value '0' for option --vtop", "--vtop", "0", "in", "out");
}

/* --mem-usage VMCORE: level 31, one operand, nothing that writes. */
static void mem_usage(void)
{
	static const char *const no_writes =
		"--mem-usage writes no dump: it takes no -d, -c, -l, -p, -z, -E, -F, -L, "
		"-R, --split, --reassemble, --dump-dmesg, --dry-run or --debug-bitmap";
	static const char *const one_operand =
		"--mem-usage needs exactly one operand: VMCORE (e.g. /proc/kcore)";

	OK("--mem-usage", "/proc/kcore");
	T_EQ_U64(o.action, MDF_ACT_MEM_USAGE);
	T_EQ_STR(o.vmcore, "/proc/kcore");
	T_ASSERT(o.dumpfile == NULL);
	T_EQ_U64(opts_dump_level(&o), 31);
	T_ASSERT(!o.dry_run);
	/* What only changes how the input is read or what is printed. */
	OK("--mem-usage", "--num-threads", "2", "--non-mmap", "--message-level", "31",
	   "-f", "-D", "--cyclic-buffer", "1024", "/proc/kcore");
	T_EQ_U64(o.action, MDF_ACT_MEM_USAGE);
	T_EQ_U64(o.num_threads, 2);
	T_EQ_U64(o.mmap, MDF_MMAP_NEVER);
	OK("/proc/kcore", "--mem-usage");
	T_EQ_U64(o.action, MDF_ACT_MEM_USAGE);

	T_REJECT(MDF_ERR_ARG, one_operand, "--mem-usage");
	T_REJECT(MDF_ERR_ARG, one_operand, "--mem-usage", "/proc/kcore", "out");
	T_REJECT(MDF_ERR_ARG, no_writes, "--mem-usage", "-d", "31", "/proc/kcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--mem-usage", "-l", "/proc/kcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--mem-usage", "-E", "/proc/kcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--mem-usage", "-F", "/proc/kcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--mem-usage", "-L", "1M", "/proc/kcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--mem-usage", "--dry-run", "/proc/kcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--mem-usage", "--dump-dmesg", "/proc/kcore", "x");
	T_REJECT(MDF_ERR_ARG, no_writes, "--mem-usage", "--split", "/proc/kcore", "a", "b");
	T_REJECT(MDF_ERR_ARG, no_writes, "--mem-usage", "--reassemble", "a", "b", "c");
	T_REJECT(MDF_ERR_ARG, no_writes, "-R", "--mem-usage", "out");
	T_REJECT(MDF_ERR_ARG, no_writes, "--mem-usage", "--debug-bitmap", "b", "/proc/kcore");
	/* -h and -v win, as with every other option. */
	OK("--mem-usage", "-h");
	T_EQ_U64(o.action, MDF_ACT_HELP);
}

/* --page-types: with a dump, --dry-run or --mem-usage; alone with one
 * VMCORE it is a run at -d 31 that writes nothing. */
static void page_types(void)
{
	static const char *const not_with =
		"--page-types counts the struct pages of a dump it reads: not with -g, -R, "
		"--reassemble, --dump-dmesg or --explain";

	OK("--page-types", "vmcore");
	T_ASSERT(o.page_types && o.dry_run);
	T_EQ_U64(o.action, MDF_ACT_DUMP);
	T_EQ_STR(o.vmcore, "vmcore");
	T_ASSERT(o.dumpfile == NULL);
	T_EQ_U64(opts_dump_level(&o), 31);
	OK("--page-types", "-d", "1", "vmcore");
	T_EQ_U64(opts_dump_level(&o), 1);
	OK("--page-types", "-l", "-d", "31", "vmcore", "out");
	T_ASSERT(o.page_types && !o.dry_run);
	T_EQ_STR(o.dumpfile, "out");
	OK("--page-types", "--mem-usage", "/proc/kcore");
	T_EQ_U64(o.action, MDF_ACT_MEM_USAGE);
	T_ASSERT(o.page_types);
	OK("--page-types", "-F", "-d", "31", "vmcore");
	T_ASSERT(o.flatten && !o.dry_run);
	OK("--page-types-by", "task", "vmcore");
	T_ASSERT(o.page_types && o.dry_run && o.page_types_by == MDF_PT_BY_TASK);
	OK("--page-types-by", "cgroup", "--page-types", "vmcore");
	T_ASSERT(o.page_types_by == MDF_PT_BY_CGROUP);
	T_REJECT(MDF_ERR_ARG, "invalid value 'pid' for option --page-types-by: flags, task or cgroup",
		 "--page-types-by", "pid", "vmcore");
	T_REJECT(MDF_ERR_ARG, not_with, "--page-types", "--dump-dmesg", "vmcore", "log");
	T_REJECT(MDF_ERR_ARG, not_with, "--page-types", "-R", "out");
	T_REJECT(MDF_ERR_ARG, not_with, "--page-types", "--reassemble", "a", "b", "c");
}

/* --explain ARG VMCORE: a pfn or a physical address, one operand,
 * nothing that writes; -d adds levels and the input opens as for 31. */
static void explain(void)
{
	static const char *const no_writes =
		"--explain writes no dump: it takes no -c, -l, -p, -z, -E, -F, -f, -g, -L, -R, "
		"--split, --reassemble, --dump-dmesg, --mem-usage, --dry-run, --debug-bitmap, "
		"--config, --extension, -e, --vtop, --num-threads, --page-types or --cyclic-buffer";
	static const char *const bad =
		"invalid value '%s' for option --explain: give a pfn (1234, pfn:0x4d2) or a "
		"physical address (0x4d2000, paddr:5054464)";
	static const char *const bad_args[] = {
		"", "x", "12x", "0x", "0xg", "0x0x12", "-5", "+5", " 5", "pfn:", "pfn:x",
		"paddr:", "pfn:-1", "PFN:12", "pfn:0x", "18446744073709551616",
		"0x10000000000000000", "1.5",
	};
	char want[300];

	OK("--explain", "1234", "vmcore");
	T_EQ_U64(o.action, MDF_ACT_EXPLAIN);
	T_EQ_STR(o.vmcore, "vmcore");
	T_ASSERT(o.dumpfile == NULL);
	T_ASSERT(o.explain && !o.explain_paddr);
	T_EQ_U64(o.explain_value, 1234);
	T_EQ_U64(o.nexplain_levels, 0);
	T_EQ_U64(opts_dump_level(&o), 31);
	/* Decimal is never octal. */
	OK("--explain", "010", "vmcore");
	T_EQ_U64(o.explain_value, 10);
	T_ASSERT(!o.explain_paddr);
	OK("--explain", "0x4d2000", "vmcore");
	T_ASSERT(o.explain_paddr);
	T_EQ_U64(o.explain_value, 0x4d2000);
	OK("--explain=0X4D2000", "vmcore");
	T_ASSERT(o.explain_paddr);
	T_EQ_U64(o.explain_value, 0x4d2000);
	OK("--explain", "pfn:0x4d2", "vmcore");
	T_ASSERT(!o.explain_paddr);
	T_EQ_U64(o.explain_value, 0x4d2);
	OK("--explain", "pfn:1234", "vmcore");
	T_EQ_U64(o.explain_value, 1234);
	OK("--explain", "paddr:5054464", "vmcore");
	T_ASSERT(o.explain_paddr);
	T_EQ_U64(o.explain_value, 5054464);
	OK("--explain", "paddr:0x4d2000", "vmcore");
	T_EQ_U64(o.explain_value, 0x4d2000);
	OK("--explain", "18446744073709551615", "vmcore");
	T_EQ_U64(o.explain_value, UINT64_MAX);
	/* -d: levels shown besides the usual ones; the run opens as -d 31. */
	OK("vmcore", "-d", "3,24", "--explain", "7");
	T_EQ_U64(o.action, MDF_ACT_EXPLAIN);
	T_EQ_U64(o.nexplain_levels, 2);
	T_EQ_U64(o.explain_levels[0], 3);
	T_EQ_U64(o.explain_levels[1], 24);
	T_EQ_U64(opts_dump_level(&o), 31);
	T_EQ_U64(o.ndump_levels, 1);
	/* What only changes how the input is read or what is printed. */
	OK("--explain", "7", "--non-mmap", "--message-level", "31", "-D", "-i", "vi",
	   "vmcore");
	T_EQ_U64(o.mmap, MDF_MMAP_NEVER);
	T_EQ_STR(o.vmcoreinfo_file, "vi");
	OK("--explain", "7", "--check-params", "vmcore");
	T_ASSERT(o.check_params);

	for (size_t i = 0; i < ARRAY_SIZE(bad_args); i++) {
		snprintf(want, sizeof(want), bad, bad_args[i]);
		T_REJECT(MDF_ERR_ARG, want, "--explain", bad_args[i], "vmcore");
	}
	T_REJECT(MDF_ERR_ARG, "option '--explain' needs an argument", "--explain");
	T_REJECT(MDF_ERR_ARG, "missing operand: --explain needs VMCORE (or the parts of a split set)",
		 "--explain", "12");
	OK("--explain", "12", "p3", "p1", "p2");  /* a split set */
	T_EQ_U64(o.action, MDF_ACT_EXPLAIN);
	T_EQ_U64(o.nin, 3);
	T_EQ_STR(o.vmcore, "p3");
	T_EQ_STR(o.in_files[2], "p2");
	T_REJECT(MDF_ERR_ARG, "the file 'p1' is given twice", "--explain", "12", "p1", "p1");
	T_REJECT(MDF_ERR_ARG, "--explain is given twice (one page per run)",
		 "--explain", "12", "--explain", "13", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "-l", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "-e", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "-E", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "-F", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "-f", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "-L", "1M", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "--dry-run", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "--mem-usage", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "--dump-dmesg", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "--split", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "--reassemble", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "-R", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "--num-threads", "2", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "--cyclic-buffer", "8", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "--debug-bitmap", "b", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "--vtop", "4096", "vmcore");
	T_REJECT(MDF_ERR_ARG, no_writes, "--explain", "12", "-g", "vi", "-x", "vml");
	/* -h and -v win, as with every other option. */
	OK("--explain", "12", "-h");
	T_EQ_U64(o.action, MDF_ACT_HELP);
}

static void unknown(void)
{
	T_REJECT(MDF_ERR_ARG, "unrecognized option '--foo'", "--foo", "in", "out");
	T_REJECT(MDF_ERR_ARG, "unrecognized option '--foo=1'", "--foo=1", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid option -- 'q'", "-q", "in", "out");
	T_REJECT(MDF_ERR_ARG, "invalid option -- 'q'", "-fq", "in", "out");
	/* --debug-bitmap and --debug-bitmap1 share a prefix. */
	T_REJECT(MDF_ERR_ARG, "unrecognized option '--debug'", "--debug", "x", "in", "out");
}

static void operands(void)
{
	{
		static const char *const none[] = { "makedumpfile", NULL };

		T_EQ_U64(parse_v(none), MDF_ERR_ARG);
		T_EQ_STR(err.msg, "missing operand: need VMCORE and DUMPFILE");
	}
	T_REJECT(MDF_ERR_ARG, "missing operand: need VMCORE and DUMPFILE", "in");
	T_REJECT(MDF_ERR_ARG, "missing operand: need VMCORE and DUMPFILE", "-d", "31", "in");
	/* more: a split set, read as one dump, then DUMPFILE */
	OK("-l", "-d", "31", "p2", "p1", "p3", "out");
	T_EQ_U64(o.nin, 3);
	T_EQ_STR(o.vmcore, "p2");
	T_EQ_STR(o.in_files[0], "p2");
	T_EQ_STR(o.in_files[2], "p3");
	T_EQ_STR(o.dumpfile, "out");
	OK("in", "out");
	T_EQ_U64(o.nin, 0);
	T_ASSERT(o.in_files == NULL);
	T_REJECT(MDF_ERR_ARG, "the file 'p1' is given twice", "p1", "p2", "p1");
	T_REJECT(MDF_ERR_ARG, "the file 'p2' is given twice", "p1", "p2", "p2");
	T_REJECT(MDF_ERR_ARG, "VMCORE and DUMPFILE are the same file 'x'", "x", "x");
	T_REJECT(MDF_ERR_ARG, "VMCORE and DUMPFILE are the same file '/proc/vmcore'",
		 "-d", "31", "/proc/vmcore", "/proc/vmcore");
}

/* Every call starts from scratch: neither the options of the previous
 * command line nor getopt's position inside it leak into the next. */
static void repeated_calls(void)
{
	OK("-f", "-d", "31", "-c", "in", "out");
	OK("in", "out");
	T_ASSERT(!o.force);
	T_EQ_U64(o.ndump_levels, 0);
	T_EQ_U64(o.codec, MDF_CODEC_NONE);
	/* An error in the middle of "-czf" leaves getopt inside that word. */
	T_REJECT(MDF_ERR_ARG, "options -c, -l, -p and -z are mutually exclusive",
		 "-czf", "in", "out");
	OK("in", "out");
	T_ASSERT(!o.force);
	T_REJECT(MDF_ERR_NOTSUPP, "option -X is not supported by this makedumpfile",
		 "-XcD", "in", "out");
	OK("in2", "out2");
	T_ASSERT(!o.debug);
	T_EQ_U64(o.codec, MDF_CODEC_NONE);
	T_EQ_STR(o.vmcore, "in2");
	/* Permutation state of an earlier call does not move operands. */
	T_REJECT(MDF_ERR_ARG, "invalid option -- 'q'", "in", "out", "-q");
	OK("a", "-d", "1", "b");
	T_EQ_STR(o.vmcore, "a");
	T_EQ_STR(o.dumpfile, "b");
}

int main(void)
{
	T_RUN(defaults);
	T_RUN(dump_levels);
	T_RUN(dump_levels_bad);
	T_RUN(codecs);
	T_RUN(elf_format);
	T_RUN(flatten);
	T_RUN(rearrange);
	T_RUN(dump_dmesg);
	T_RUN(message_level);
	T_RUN(num_threads);
	T_RUN(cyclic_buffer);
	T_RUN(size_limit);
	T_RUN(block_order);
	T_RUN(mmap_opts);
	T_RUN(flags_and_files);
	T_RUN(help_version);
	T_RUN(unsupported);
	T_RUN(debuginfo);
	T_RUN(mem_usage);
	T_RUN(page_types);
	T_RUN(explain);
	T_RUN(unknown);
	T_RUN(operands);
	T_RUN(repeated_calls);
	return t_done();
}
