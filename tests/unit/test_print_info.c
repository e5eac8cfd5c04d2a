/*
 * tests/unit/test_print_info.c - the exact text the user sees: messages by
 * level, errors, the final report, completion lines and progress in
 * terminal and plain mode.  p->msg and p->err point at memory streams.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

#include "print_info.h"

struct cap {
	char *buf;
	size_t len;
	FILE *f;
};

static struct cap out, errs;
static struct mdf_printer pr;

static void cap_open(struct cap *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
}

static void cap_close(struct cap *c)
{
	if (c->f)
		fclose(c->f);
	free(c->buf);
	c->f = NULL;
	c->buf = NULL;
}

/* The text written so far. */
static const char *cap_text(struct cap *c)
{
	fflush(c->f);
	return c->buf ? c->buf : "";
}

/* A printer at @level writing into the two memory streams. */
static void setup(unsigned level, bool tty)
{
	pi_init(&pr, level, false);
	cap_open(&out);
	cap_open(&errs);
	pr.msg = out.f;
	pr.err = errs.f;
	pr.progress_tty = tty;
}

static void teardown(void)
{
	cap_close(&out);
	cap_close(&errs);
}

/* Compare and always tear down. */
#define CHECK_TEXT(c, want)                                              \
	do {                                                             \
		const char *t_got_ = cap_text(&(c));                     \
		const char *t_want_ = (want);                            \
		if (strcmp(t_got_, t_want_) != 0) {                      \
			char t_m_[1100];                                 \
			snprintf(t_m_, sizeof(t_m_), "%s:\ngot  [%.500s]\nwant [%.500s]", \
				 #c, t_got_, t_want_);                   \
			teardown();                                      \
			t_fail(__FILE__, __LINE__, t_m_);                \
			return;                                          \
		}                                                        \
	} while (0)

#define CHECK(cond)                                    \
	do {                                           \
		if (!(cond)) {                         \
			teardown();                    \
			t_fail(__FILE__, __LINE__, #cond); \
			return;                        \
		}                                      \
	} while (0)

static void init(void)
{
	struct mdf_printer p;

	memset(&p, 0x5a, sizeof(p));
	pi_init(&p, 7, false);
	T_EQ_U64(p.level, 7);
	T_ASSERT(p.msg == stdout);
	T_ASSERT(p.err == stderr);
	T_ASSERT(p.phase == NULL);
	T_EQ_U64((unsigned)p.last_permille, (unsigned)-1);
	T_EQ_U64(p.progress_tty, isatty(STDERR_FILENO) != 0);
	/* -F: the dump owns stdout, messages go to stderr. */
	pi_init(&p, 31, true);
	T_ASSERT(p.msg == stderr);
	T_ASSERT(p.err == stderr);
	T_EQ_U64(p.level, 31);
}

static void messages(void)
{
	setup(7, false);
	pi_msg(&pr, "hello %d\n", 42);
	pi_warn(&pr, "careful: %s\n", "x");
	pi_debug(&pr, "not shown\n");
	CHECK_TEXT(out, "hello 42\ncareful: x\n");
	CHECK_TEXT(errs, "");
	teardown();

	setup(ML_DEBUG, false);
	pi_msg(&pr, "no\n");
	pi_warn(&pr, "no\n");
	pi_debug(&pr, "dbg %s\n", "yes");
	CHECK_TEXT(out, "dbg yes\n");
	teardown();
}

/* Every printer stays quiet at level 0; ML_COMMON off keeps only errors
 * and progress. */
static void level_filtering(void)
{
	struct mdf_report r;
	struct mdf_err e;

	memset(&r, 0, sizeof(r));
	r.pages.present = 10;
	r.pages.remaining = 10;
	mdf_err_set(&e, MDF_ERR_IO, "boom");

	setup(0, false);
	pi_msg(&pr, "m\n");
	pi_warn(&pr, "w\n");
	pi_debug(&pr, "d\n");
	pi_error(&pr, &e);
	pi_report(&pr, &r, false);
	pi_report(&pr, &r, true);
	pi_completed(&pr, "out");
	pi_failed(&pr);
	pi_progress(&pr, "phase", 5, 10, 1.0);
	pi_progress(&pr, "phase", 10, 10, 2.0);
	CHECK_TEXT(out, "");
	CHECK_TEXT(errs, "");
	teardown();

	setup(ML_PROGRESS | ML_ERROR, false);
	pi_msg(&pr, "m\n");
	pi_warn(&pr, "w\n");
	pi_completed(&pr, "out");
	pi_report(&pr, &r, true);
	pi_error(&pr, &e);
	pi_failed(&pr);
	CHECK_TEXT(out, "");
	CHECK_TEXT(errs, "makedumpfile: boom\n\nmakedumpfile Failed.\n");
	teardown();
}

/* The VMCOREINFO at debug level: "  KEY=VALUE" lines that a caller can
 * read back (SUSE's kdump-save takes OSRELEASE= and CRASHTIME= so). */
static void vmcoreinfo_lines(void)
{
	static const char text[] = "OSRELEASE=6.1.0\nPAGESIZE=4096\n\nCRASHTIME=17\0junk";

	setup(ML_COMMON, false);
	pi_vmcoreinfo(&pr, text, sizeof(text) - 1);
	CHECK_TEXT(out, "");
	teardown();
	setup(ML_DEBUG, false);
	pi_vmcoreinfo(&pr, text, sizeof(text) - 1);
	pi_vmcoreinfo(&pr, NULL, 0);
	CHECK_TEXT(out, "VMCOREINFO (48 bytes):\n  OSRELEASE=6.1.0\n  PAGESIZE=4096\n  CRASHTIME=17\n");
	teardown();
	setup(ML_DEBUG, false);
	pi_vmcoreinfo(&pr, "A=1", 3);            /* no newline at the end */
	CHECK_TEXT(out, "VMCOREINFO (3 bytes):\n  A=1\n");
	teardown();
}

static void errors(void)
{
	struct mdf_err e;
	static const char phase[] = "Copying data";

	mdf_err_set(&e, MDF_ERR_FORMAT, "fx.elf: PT_LOAD 3: past end of file");
	setup(7, false);
	pi_error(&pr, &e);
	CHECK_TEXT(errs, "makedumpfile: fx.elf: PT_LOAD 3: past end of file\n");
	CHECK_TEXT(out, "");
	teardown();

	/* No message: the status text. */
	mdf_err_clear(&e);
	e.status = MDF_ERR_NOMEM;
	setup(ML_ERROR, false);
	pi_error(&pr, &e);
	CHECK_TEXT(errs, "makedumpfile: out of memory\n");
	teardown();

	/* On a terminal with a progress line drawn, the error starts a new line. */
	mdf_err_set(&e, MDF_ERR_IO, "x");
	setup(ML_ERROR | ML_PROGRESS, true);
	pi_progress(&pr, phase, 1, 2, 10.0);
	pi_error(&pr, &e);
	{
		const char *t = cap_text(&errs);
		size_t n = strlen(t);

		CHECK(n > 17 && strcmp(t + n - 17, "\nmakedumpfile: x\n") == 0);
		CHECK(t[0] == '\r');
	}
	teardown();
	/* Plain mode: no extra newline. */
	setup(ML_ERROR | ML_PROGRESS, false);
	pi_progress(&pr, phase, 2, 2, 10.0);
	pi_error(&pr, &e);
	CHECK_TEXT(errs, "Copying data                                      : [100.0 %]\n"
			 "makedumpfile: x\n");
	teardown();

	setup(7, false);
	pi_failed(&pr);
	CHECK_TEXT(errs, "\nmakedumpfile Failed.\n");
	teardown();
}

static void completed(void)
{
	setup(7, false);
	pi_completed(&pr, "/tmp/vm/o61.l31");
	CHECK_TEXT(out, "\nThe dumpfile is saved to /tmp/vm/o61.l31.\n"
			"\nmakedumpfile Completed.\n");
	CHECK_TEXT(errs, "");
	teardown();
	/* -F and --dry-run: no file. */
	setup(ML_COMMON, false);
	pi_completed(&pr, NULL);
	CHECK_TEXT(out, "\nmakedumpfile Completed.\n");
	teardown();
	/* --split: every part named. */
	{
		static char a[] = "d.1", b[] = "d.2", c[] = "d.3";
		char *const parts[] = { a, b, c };

		setup(7, false);
		pi_completed_split(&pr, parts, 3);
		CHECK_TEXT(out, "\nThe dumpfiles are saved to d.1, d.2, and d.3.\n"
				"\nmakedumpfile Completed.\n");
		teardown();
		setup(7, false);
		pi_completed_split(&pr, parts, 2);
		CHECK_TEXT(out, "\nThe dumpfiles are saved to d.1, and d.2.\n"
				"\nmakedumpfile Completed.\n");
		teardown();
	}
}

/* The counts upstream printed for fx-v61-512m.elf at -d 31. */
static void fill_v61(struct mdf_report *r)
{
	memset(r, 0, sizeof(*r));
	r->pages.total = 0x1ffda;
	r->pages.present = 0x1730a;
	r->pages.hole = 0x8cd0;
	r->pages.zero = 0x1764;
	r->pages.excluded[PC_CACHE] = 0x324b;
	r->pages.excluded[PC_CACHE_PRIVATE] = 0x30a;
	r->pages.excluded[PC_USER] = 0x252e;
	r->pages.excluded[PC_FREE] = 0x91c1;
	r->pages.remaining = 0x6f62;
	r->write_bytes = 23878971;
	r->wrote = true;
	r->page_size = 4096;
}

static const char report_v61[] =
	"\n"
	"Original pages  : 0x000000000001730a\n"
	"  Excluded pages   : 0x00000000000103a8\n"
	"    Pages filled with zero  : 0x0000000000001764\n"
	"    Non-private cache pages : 0x000000000000324b\n"
	"    Private cache pages     : 0x000000000000030a\n"
	"    User process data pages : 0x000000000000252e\n"
	"    Free pages              : 0x00000000000091c1\n"
	"    Hwpoison pages          : 0x0000000000000000\n"
	"    Offline pages           : 0x0000000000000000\n"
	"  Remaining pages  : 0x0000000000006f62\n"
	"  (The number of pages is reduced to 30%.)\n"
	"Memory Hole     : 0x0000000000008cd0\n"
	"--------------------------------------------------\n"
	"Total pages     : 0x000000000001ffda\n"
	"Write bytes     : 23878971\n"
	"\n";

static void report_exact(void)
{
	struct mdf_report r;
	char want[2048];

	fill_v61(&r);
	snprintf(want, sizeof(want), "%s\n", report_v61);
	setup(ML_REPORT, false);
	pi_report(&pr, &r, false);
	CHECK_TEXT(out, want);
	CHECK_TEXT(errs, "");
	teardown();

	/* --message-level without 16 but the report asked for (force):
	 * printed when common messages are on, not otherwise. */
	setup(ML_COMMON, false);
	pi_report(&pr, &r, true);
	CHECK_TEXT(out, want);
	teardown();
	setup(ML_COMMON, false);
	pi_report(&pr, &r, false);
	CHECK_TEXT(out, "");
	teardown();
	setup(ML_ERROR | ML_PROGRESS, false);
	pi_report(&pr, &r, true);
	CHECK_TEXT(out, "");
	teardown();
}

/* Rules that could not run: one line each after the upstream block, in
 * rule order, "not tested" where nothing narrowed the count; nothing at
 * all when every rule ran. */
static void report_gaps(void)
{
	struct mdf_report r;
	char want[2048];

	fill_v61(&r);
	r.gaps[PR_CACHE] = (struct rule_gap){ .off = true, .nkeys = 1,
					      .keys = { "NUMBER(PG_lru)" } };
	r.pages.kept[PR_CACHE] = 12345;
	r.gaps[PR_FREE] = (struct rule_gap){ .off = true, .untested = true, .nkeys = 2,
					     .keys = { "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)",
						       "NUMBER(PG_buddy)" } };
	r.pages.kept[PR_FREE] = 7;
	r.gaps[PR_HUGETLB] = (struct rule_gap){ .off = true, .nkeys = 3,
						.keys = { "A", "B", "C" } };
	r.pages.kept[PR_OFFLINE] = 99;   /* no gap: not shown */
	snprintf(want, sizeof(want), "%s"
		 "Kept, rule free could not run (VMCOREINFO has no "
		 "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE) or NUMBER(PG_buddy)): 7 pages not tested\n"
		 "Kept, rule cache could not run (VMCOREINFO has no NUMBER(PG_lru)): "
		 "12345 pages\n"
		 "Kept, rule hugetlb could not run (VMCOREINFO has no A, B or C): 0 pages\n"
		 "\n\n", report_v61);
	setup(ML_REPORT, false);
	pi_report(&pr, &r, false);
	CHECK_TEXT(out, want);
	CHECK_TEXT(errs, "");
	teardown();
	/* The report's gate: not without level 16 (unless forced). */
	setup(ML_COMMON, false);
	pi_report(&pr, &r, false);
	CHECK_TEXT(out, "");
	teardown();
}

/*
 * --mem-usage: upstream's table, tab for tab (scripts parse it).  The
 * counts are the report's; KERN_DATA is what -d 31 keeps, Total the pages
 * present.  The rows were checked against a table upstream printed for a
 * live 64 GiB arm64 /proc/kcore (kexec list, July 2023).
 */
static void mem_usage_table(void)
{
	struct mdf_report r;

	memset(&r, 0, sizeof(r));
	r.page_size = 4096;
	r.pages.total = 16600000;
	r.pages.present = 16512804;
	r.pages.zero = 76234;
	r.pages.excluded[PC_CACHE] = 147613;
	r.pages.excluded[PC_CACHE_PRIVATE] = 3847;
	r.pages.excluded[PC_USER] = 15276;
	r.pages.excluded[PC_FREE] = 15809884;
	r.pages.remaining = 459950;
	setup(ML_COMMON, false);
	pi_mem_usage(&pr, &r);
	CHECK_TEXT(out,
		   "\n"
		   "TYPE\t\tPAGES\t\t\tEXCLUDABLE\tDESCRIPTION\n"
		   "----------------------------------------------------------------------\n"
		   "ZERO\t\t76234           \tyes\t\tPages filled with zero\n"
		   "NON_PRI_CACHE\t147613          \tyes\t\tCache pages without private flag\n"
		   "PRI_CACHE\t3847            \tyes\t\tCache pages with private flag\n"
		   "USER\t\t15276           \tyes\t\tUser process pages\n"
		   "FREE\t\t15809884        \tyes\t\tFree pages\n"
		   "KERN_DATA\t459950          \tno\t\tDumpable kernel data \n"
		   "\n"
		   "page size:\t\t4096            \n"
		   "Total pages on system:\t16512804        \n"
		   "Total size on system:\t67636445184      Byte\n"
		   "\n");
	CHECK_TEXT(errs, "");
	teardown();

	/* A number wider than the column pushes the tab out, as printf does. */
	r.pages.excluded[PC_FREE] = 12345678901234567ULL;
	setup(ML_COMMON, false);
	pi_mem_usage(&pr, &r);
	CHECK(strstr(cap_text(&out), "FREE\t\t12345678901234567\tyes\t\tFree pages\n") != NULL);
	teardown();

	/* It is the command's output: only a message level without the
	 * common messages (bit 2) silences it. */
	setup(ML_ERROR | ML_PROGRESS, false);
	pi_mem_usage(&pr, &r);
	CHECK_TEXT(out, "");
	teardown();
}

static void report_extras(void)
{
	struct mdf_report r;
	const char *t;

	/* Unaccepted pages appear only when there are some; no "Write bytes"
	 * without a write; an empty dump has no percentage line. */
	memset(&r, 0, sizeof(r));
	r.pages.total = 0x400;
	r.pages.present = 0x400;
	r.pages.excluded[PC_UNACCEPTED] = 0x200;
	r.pages.excluded[PC_HWPOISON] = 1;
	r.pages.excluded[PC_OFFLINE] = 2;
	r.pages.remaining = 0x1fd;
	setup(ML_REPORT, false);
	pi_report(&pr, &r, false);
	CHECK_TEXT(out,
		   "\n"
		   "Original pages  : 0x0000000000000400\n"
		   "  Excluded pages   : 0x0000000000000203\n"
		   "    Pages filled with zero  : 0x0000000000000000\n"
		   "    Non-private cache pages : 0x0000000000000000\n"
		   "    Private cache pages     : 0x0000000000000000\n"
		   "    User process data pages : 0x0000000000000000\n"
		   "    Free pages              : 0x0000000000000000\n"
		   "    Hwpoison pages          : 0x0000000000000001\n"
		   "    Offline pages           : 0x0000000000000002\n"
		   "    Unaccepted pages        : 0x0000000000000200\n"
		   "  Remaining pages  : 0x00000000000001fd\n"
		   "  (The number of pages is reduced to 49%.)\n"
		   "Memory Hole     : 0x0000000000000000\n"
		   "--------------------------------------------------\n"
		   "Total pages     : 0x0000000000000400\n"
		   "\n"
		   "\n");
	teardown();

	memset(&r, 0, sizeof(r));
	setup(ML_REPORT, false);
	pi_report(&pr, &r, false);
	t = cap_text(&out);
	CHECK(strstr(t, "reduced") == NULL);
	CHECK(strstr(t, "Original pages  : 0x0000000000000000\n") != NULL);
	teardown();

	/* Cache statistics, phase times and the elapsed line. */
	fill_v61(&r);
	r.have_cache = true;
	r.cache.hits = 29287;
	r.cache.misses = 48;
	r.cache.mmaps = 3;
	r.cache.munmaps = 2;
	r.cache.reads = 7;
	r.cache.read_bytes = 28672;
	r.cache.budget_reads = 2;
	r.map_peak = (300ULL << 20) + 1;  /* rounded up */
	r.phases[0].name = "create bitmaps";
	r.phases[0].seconds = 0.25;
	r.phases[1].name = "copy";
	r.phases[1].seconds = 1.5;
	r.nphases = 2;
	r.elapsed = 2.0;
	setup(ML_REPORT, false);
	pi_report(&pr, &r, false);
	t = cap_text(&out);
	CHECK(strncmp(t, report_v61, sizeof(report_v61) - 1) == 0);
	t += sizeof(report_v61) - 1;
	if (strcmp(t, "Cache hit: 29287, miss: 48, hit rate: 99.8%\n"
		      "Input: mmap 3, munmap 2, read 7 (28672 bytes), 2 of them for "
		      "want of map room, mapped at most 301 MiB at once\n"
		      "STEP [create bitmaps              ] : 0.250000 seconds\n"
		      "STEP [copy                        ] : 1.500000 seconds\n"
		      "Elapsed: 2.000 seconds (371 MiB of memory at 186 MiB/s)\n"
		      "\n") != 0) {
		char m[900];

		snprintf(m, sizeof(m), "tail [%.700s]", t);
		teardown();
		t_fail(__FILE__, __LINE__, m);
		return;
	}
	teardown();

	/* mmap failed once: said so; no lookups: 0.0 %. */
	memset(&r, 0, sizeof(r));
	r.have_cache = true;
	r.cache.mmap_failures = 1;
	r.cache.reads = 1;
	r.cache.read_bytes = 4096;
	setup(ML_REPORT, false);
	pi_report(&pr, &r, false);
	t = cap_text(&out);
	CHECK(strstr(t, "Cache hit: 0, miss: 0, hit rate: 0.0%\n") != NULL);
	CHECK(strstr(t, "Input: mmap 0, munmap 0, read 1 (4096 bytes), "
			"mmap failed: fell back to read\n") != NULL);
	teardown();
}

/* Plain mode (not a terminal): whole lines, at most one per 10 %, the
 * 100 % line once. */
static void progress_plain(void)
{
	static const char phase[] = "Copying data";
	static const char other[] = "Excluding unnecessary pages";
	const char *t;
	char want[2048];
	size_t n = 0;

	setup(ML_PROGRESS, false);
	for (uint64_t d = 0; d <= 1000; d++)
		pi_progress(&pr, phase, d, 1000, 1.0 + (double)d / 1000);
	pi_progress(&pr, phase, 1000, 1000, 3.0);      /* again: no new line */
	for (int pct = 10; pct <= 100; pct += 10)
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%-50s: [%5.1f %%]\n",
				      phase, (double)pct);
	t = cap_text(&errs);
	{
		/* A 0 % line at the start is allowed. */
		char zero[80];
		int zl = snprintf(zero, sizeof(zero), "%-50s: [  0.0 %%]\n", phase);

		if (strncmp(t, zero, (size_t)zl) == 0)
			t += zl;
	}
	CHECK(strcmp(t, want) == 0);
	CHECK_TEXT(out, "");
	teardown();

	/* Big jumps: one line per call at most, whatever the step. */
	setup(ML_PROGRESS, false);
	pi_progress(&pr, phase, 55, 100, 1.0);
	pi_progress(&pr, phase, 56, 100, 1.0);
	pi_progress(&pr, phase, 100, 100, 1.0);
	CHECK_TEXT(errs, "Copying data                                      : [ 55.0 %]\n"
			 "Copying data                                      : [100.0 %]\n");
	teardown();

	/* A new phase starts over; total 0 means done. */
	setup(ML_PROGRESS, false);
	pi_progress(&pr, phase, 100, 100, 1.0);
	pi_progress(&pr, other, 50, 100, 2.0);
	pi_progress(&pr, other, 0, 0, 3.0);
	CHECK_TEXT(errs, "Copying data                                      : [100.0 %]\n"
			 "Excluding unnecessary pages                       : [ 50.0 %]\n"
			 "Excluding unnecessary pages                       : [100.0 %]\n");
	teardown();
}

/* Terminal mode: one line redrawn with \r at most every 0.1 s, a spinner,
 * and a newline when the phase is done. */
static void progress_tty(void)
{
	static const char phase[] = "Copying data";
	static const char pad[] = "Copying data                                      ";

	setup(ML_PROGRESS, true);
	pi_progress(&pr, phase, 0, 100, 10.0);
	pi_progress(&pr, phase, 20, 100, 10.05);    /* too soon */
	pi_progress(&pr, phase, 50, 100, 10.2);
	pi_progress(&pr, phase, 60, 100, 10.25);    /* too soon */
	pi_progress(&pr, phase, 100, 100, 10.26);   /* the end is always drawn */
	{
		char want[512];

		snprintf(want, sizeof(want),
			 "\r%s: [  0.0 %%] /\r%s: [ 50.0 %%] |\r%s: [100.0 %%] \\\n",
			 pad, pad, pad);
		CHECK_TEXT(errs, want);
	}
	CHECK_TEXT(out, "");
	teardown();
}

static void usage_version(void)
{
	const char *t;
	FILE *tmp;
	int saved;
	char got[512], want[512];
	size_t n;

	setup(7, false);
	pi_usage(&pr, out.f);
	t = cap_text(&out);
	CHECK(strncmp(t, "Usage:\n  makedumpfile [-c|-l|-p|-z|-E] [-d DL]", 43) == 0);
	CHECK(strstr(t, "\n  -d DL[,DL...]   dump level 0-31") != NULL);
	CHECK(strstr(t, "--message-level ML") != NULL);
	CHECK(strstr(t, "\n  -h              this help\n") != NULL);
	n = strlen(t);
	{
		static const char last[] = "is incomplete (its header says so: a full disk, -L, a signal, lost pages).\n";

		CHECK(n >= sizeof(last) - 1 &&
		      strcmp(t + n - (sizeof(last) - 1), last) == 0);
	}
	CHECK_TEXT(errs, "");
	teardown();

	/* pi_version writes to stdout: catch it in a temporary file. */
	tmp = tmpfile();
	T_ASSERT(tmp);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fileno(tmp), STDOUT_FILENO);
	pi_init(&pr, 7, false);
	pi_version(&pr);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(got, 1, sizeof(got) - 1, tmp);
	got[n] = '\0';
	fclose(tmp);
	snprintf(want, sizeof(want),
		 "makedumpfile: version %s (compatible filter)\n"
		 "lzo\tenabled\nsnappy\t%s\nzstd\t%s\n", MDF_VERSION,
		 HAVE_SNAPPY ? "enabled" : "disabled", HAVE_ZSTD ? "enabled" : "disabled");
	T_EQ_STR(got, want);
}

static void now(void)
{
	double a = pi_now(), b = pi_now();

	T_ASSERT(a > 0);
	T_ASSERT(b >= a);
}

int main(void)
{
	T_RUN(init);
	T_RUN(messages);
	T_RUN(level_filtering);
	T_RUN(errors);
	T_RUN(vmcoreinfo_lines);
	T_RUN(completed);
	T_RUN(report_exact);
	T_RUN(report_extras);
	T_RUN(report_gaps);
	T_RUN(mem_usage_table);
	T_RUN(progress_plain);
	T_RUN(progress_tty);
	T_RUN(usage_version);
	T_RUN(now);
	return t_done();
}
