/*
 * print_info.c - the only file that prints.
 */
#include "print_info.h"

#include <inttypes.h>
#include "compress/compress.h"
#include "util.h"

#include <stdarg.h>
#include <time.h>
#include <unistd.h>

void pi_init(struct mdf_printer *p, unsigned level, bool msgs_to_stderr)
{
	p->level = level;
	p->msg = msgs_to_stderr ? stderr : stdout;
	p->err = stderr;
	p->progress_tty = isatty(STDERR_FILENO);
	p->phase = NULL;
	p->phase_start = p->last_draw = 0;
	p->last_permille = -1;
	p->spin = 0;
}

double pi_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Print when any of @bits is in the message level. */
static void vmsg(const struct mdf_printer *p, unsigned bits, const char *fmt,
		 va_list ap)
{
	if (!(p->level & bits))
		return;
	vfprintf(p->msg, fmt, ap);
	fflush(p->msg);
}

#define PI_LEVEL_FN(name, bits)                                          \
	void name(const struct mdf_printer *p, const char *fmt, ...)     \
	{                                                                \
		va_list ap;                                              \
		va_start(ap, fmt);                                       \
		vmsg(p, bits, fmt, ap);                                  \
		va_end(ap);                                              \
	}

PI_LEVEL_FN(pi_msg, ML_COMMON)
PI_LEVEL_FN(pi_debug, ML_DEBUG)
PI_LEVEL_FN(pi_warn, ML_COMMON)

void pi_error(const struct mdf_printer *p, const struct mdf_err *err)
{
	if (!(p->level & ML_ERROR))
		return;
	if (p->progress_tty && p->phase)
		fputc('\n', p->err);
	fprintf(p->err, "makedumpfile: %s\n",
		err->msg[0] ? err->msg : mdf_status_text(err->status));
	fflush(p->err);
}

void pi_usage(const struct mdf_printer *p, FILE *to)
{
	(void)p;
	fputs(
"Usage:\n"
"  makedumpfile [-c|-l|-p|-z|-E] [-d DL] [options] VMCORE DUMPFILE\n"
"  makedumpfile -F [-c|-l|-p|-z|-E] [-d DL] [options] VMCORE > STREAM\n"
"  makedumpfile -R DUMPFILE < STREAM\n"
"  makedumpfile --dry-run [-d DL] [options] VMCORE\n"
"  makedumpfile --mem-usage [options] VMCORE\n"
"  makedumpfile --dump-dmesg [--partial-dmesg] VMCORE DMESGFILE\n"
"  makedumpfile --split [-c|-l|-p|-z] [-d DL] VMCORE DUMPFILE1 DUMPFILE2 [...]\n"
"  makedumpfile --reassemble DUMPFILE1 DUMPFILE2 [...] DUMPFILE\n"
"  makedumpfile -g VMCOREINFO -x VMLINUX\n"
"\n"
"Filter a Linux crash dump (an ELF vmcore such as /proc/vmcore, or a\n"
"kdump-compressed dump) and write the pages worth keeping.\n"
"\n"
"Options:\n"
"  -d DL[,DL...]   dump level 0-31, a sum of: 1 zero pages, 2 non-private\n"
"                  cache, 4 all page cache, 8 user data, 16 free pages.\n"
"                  A list retries with the next level when the disk fills.\n"
"  -c | -l | -p | -z  compress each page with zlib, lzo, snappy or zstd\n"
"  -E              write an ELF dump instead of kdump-compressed\n"
"  -F              write the flattened format to standard output\n"
"  -R DUMPFILE     rebuild a dump file from a flattened stream on stdin\n"
"  -f              overwrite an existing DUMPFILE\n"
"  -b ORDER        write buffer of PAGE_SIZE << ORDER bytes (default 4)\n"
"  -L SIZE         limit the output to SIZE bytes (K, M, G suffixes)\n"
"  --num-threads N compress with N worker threads\n"
"  --cyclic-buffer KB  bitmap memory per cycle, in KiB\n"
"  --non-mmap      never mmap the input (same as --mmap=never)\n"
"  --mmap=never|try|always  how the input is mapped (default try)\n"
"  --dry-run       do everything but write the dump\n"
"  --mem-usage     count the pages of each type that -d 31 would drop, in\n"
"                  a table; VMCORE is usually /proc/kcore (Linux 4.11 on)\n"
"  --show-stats    print the final report (message level 16)\n"
"  --check-params  only check the command line\n"
"  --dump-dmesg    write the kernel log of VMCORE to DMESGFILE\n"
"  --partial-dmesg with --dump-dmesg: only what dmesg -c has not cleared\n"
"  --message-level ML  1 progress, 2 common, 4 error, 8 debug, 16 report\n"
"                  (default 7)\n"
"  --debug-bitmap FILE   write the dumpable bitmap (bitmap2) to FILE\n"
"  --debug-bitmap1 FILE  write the memory-present bitmap (bitmap1) to FILE\n"
"  -D              debug messages (message level 31)\n"
"  -v              version and compression support\n"
"  -i FILE         VMCOREINFO from FILE where the dump's note lacks it\n"
"  -x VMLINUX      the kernel's layout from its debug vmlinux (the note wins);\n"
"                  another release or build exits with status 2\n"
"  -g FILE -x VMLINUX  write that kernel's VMCOREINFO text to FILE\n"
"  --config FILE   with -x: erase the data FILE names (makedumpfile.conf(5))\n"
"  --vtop VADDR    print VADDR's physical address before the dump\n"
"  --splitblock-size KB  with --split: boundaries on a grid of KB (rounded up\n"
"                  to 64 pages; default 64 pages)\n"
"  -h              this help\n"
"\n"
"Exit status: 0 when the dump is complete; 1 on an error, and when the dump\n"
"is incomplete (its header says so: a full disk, -L, a signal, lost pages).\n", to);
}

void pi_version(const struct mdf_printer *p)
{
	(void)p;
	printf("makedumpfile: version %s (compatible filter)\n", MDF_VERSION);
	printf("lzo\tenabled\n");
	printf("snappy\t%s\n", compress_available(MDF_CODEC_SNAPPY) ? "enabled" : "disabled");
	printf("zstd\t%s\n", compress_available(MDF_CODEC_ZSTD) ? "enabled" : "disabled");
}

void pi_progress(struct mdf_printer *p, const char *phase, uint64_t done,
		 uint64_t total, double now)
{
	static const char spinner[] = "/|\\-";
	int permille;

	if (!(p->level & ML_PROGRESS))
		return;
	if (p->phase != phase) {
		p->phase = phase;
		p->phase_start = now;
		p->last_draw = 0;
		p->last_permille = -1;
	}
	/* An estimate of the total may fall short: never past 100 %, and
	 * the line is ended once. */
	if (done > total)
		done = total;
	if (done >= total && p->last_permille == 1000)
		return;
	permille = total ? (int)(done * 1000 / total) : 1000;
	if (p->progress_tty) {
		/* A live line, redrawn at most 10 times a second. */
		if (done < total && now - p->last_draw < 0.1)
			return;
		p->last_draw = now;
		fprintf(p->err, "\r%-50s: [%5.1f %%] %c", phase,
			permille / 10.0, spinner[p->spin++ & 3]);
		if (done >= total)
			fputc('\n', p->err);
	} else {
		/* Plain lines for kdump consoles and logs: every 10 %. */
		if (permille / 100 == p->last_permille / 100 && done < total)
			return;
		fprintf(p->err, "%-50s: [%5.1f %%]\n", phase, permille / 10.0);
	}
	p->last_permille = permille;
	fflush(p->err);
}

static void count_line(FILE *f, const char *label, uint64_t v)
{
	fprintf(f, "%s: 0x%016llx\n", label, (unsigned long long)v);
}

static const char *const class_label[PC_COUNT] = {
#define PAGE_CLASS_LABEL(name, label, shown) label,
	PAGE_CLASSES(PAGE_CLASS_LABEL)
#undef PAGE_CLASS_LABEL
};
static const unsigned char class_shown[PC_COUNT] = {
#define PAGE_CLASS_SHOWN(name, label, shown) shown,
	PAGE_CLASSES(PAGE_CLASS_SHOWN)
#undef PAGE_CLASS_SHOWN
};

void pi_report(const struct mdf_printer *p, const struct mdf_report *r,
	       bool force)
{
	const struct mdf_page_counts *c = &r->pages;
	FILE *f = p->msg;
	uint64_t excluded = c->present - c->remaining;

	if (!(p->level & ML_REPORT) && !(force && (p->level & ML_COMMON)))
		return;
	fputc('\n', f);
	count_line(f, "Original pages  ", c->present);
	count_line(f, "  Excluded pages   ", excluded);
	count_line(f, "    Pages filled with zero  ", c->zero);
	for (unsigned i = 0; i < PC_COUNT; i++) {
		if (class_shown[i] == 1 || (class_shown[i] == 2 && c->excluded[i]))
			fprintf(f, "    %-24s: 0x%016llx\n", class_label[i],
				(unsigned long long)c->excluded[i]);
	}
	count_line(f, "  Remaining pages  ", c->remaining);
	if (c->present)
		fprintf(f, "  (The number of pages is reduced to %llu%%.)\n",
			(unsigned long long)(c->remaining * 100 / c->present));
	count_line(f, "Memory Hole     ", c->hole);
	fputs("--------------------------------------------------\n", f);
	count_line(f, "Total pages     ", c->total);
	if (r->wrote)
		fprintf(f, "Write bytes     : %llu\n",
			(unsigned long long)r->write_bytes);
	fputc('\n', f);
	if (r->have_cache) {
		const struct cache_stats *s = &r->cache;
		uint64_t lookups = s->hits + s->misses;

		fprintf(f, "Cache hit: %llu, miss: %llu, hit rate: %.1f%%\n",
			(unsigned long long)s->hits,
			(unsigned long long)s->misses,
			lookups ? 100.0 * (double)s->hits / (double)lookups : 0.0);
		fprintf(f, "Input: mmap %llu, munmap %llu, read %llu (%llu bytes)",
			(unsigned long long)s->mmaps,
			(unsigned long long)s->munmaps,
			(unsigned long long)s->reads,
			(unsigned long long)s->read_bytes);
		if (s->budget_reads)
			fprintf(f, ", %llu of them for want of map room",
				(unsigned long long)s->budget_reads);
		if (s->mmaps)
			fprintf(f, ", mapped at most %llu MiB at once",
				(unsigned long long)((r->map_peak + (1 << 20) - 1) >> 20));
		fputs(s->mmap_failures ? ", mmap failed: fell back to read\n" : "\n", f);
	}
	for (unsigned i = 0; i < r->nphases; i++)
		fprintf(f, "STEP [%-28s] : %f seconds\n", r->phases[i].name,
			r->phases[i].seconds);
	if (r->elapsed > 0) {
		double mib = (double)(c->present * r->page_size) /
			     (1024.0 * 1024.0);
		fprintf(f, "Elapsed: %.3f seconds (%.0f MiB of memory at %.0f MiB/s)\n",
			r->elapsed, mib, mib / r->elapsed);
	}
	fputc('\n', f);
	fflush(f);
}

void pi_mem_usage(const struct mdf_printer *p, const struct mdf_report *r)
{
	static const struct {
		const char *type;  /* with its tabs: the column is 16 wide */
		const char *excludable, *what;
	} rows[] = {
		{ "ZERO\t\t", "yes", "Pages filled with zero" },
		{ "NON_PRI_CACHE\t", "yes", "Cache pages without private flag" },
		{ "PRI_CACHE\t", "yes", "Cache pages with private flag" },
		{ "USER\t\t", "yes", "User process pages" },
		{ "FREE\t\t", "yes", "Free pages" },
		{ "KERN_DATA\t", "no", "Dumpable kernel data " },
	};
	const struct mdf_page_counts *c = &r->pages;
	const uint64_t n[] = { c->zero, c->excluded[PC_CACHE], c->excluded[PC_CACHE_PRIVATE],
			       c->excluded[PC_USER], c->excluded[PC_FREE], c->remaining };
	FILE *f = p->msg;

	if (!(p->level & ML_COMMON))
		return;
	fputs("\nTYPE\t\tPAGES\t\t\tEXCLUDABLE\tDESCRIPTION\n", f);
	fputs("----------------------------------------------------------------------\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		fprintf(f, "%s%-16llu\t%s\t\t%s\n", rows[i].type,
			(unsigned long long)n[i], rows[i].excludable, rows[i].what);
	fprintf(f, "\npage size:\t\t%-16llu\n", (unsigned long long)r->page_size);
	fprintf(f, "Total pages on system:\t%-16llu\n", (unsigned long long)c->present);
	fprintf(f, "Total size on system:\t%-16llu Byte\n\n",
		(unsigned long long)(c->present * r->page_size));
	fflush(f);
}

void pi_completed(const struct mdf_printer *p, const char *dumpfile)
{
	if (dumpfile)
		pi_msg(p, "\nThe dumpfile is saved to %s.\n", dumpfile);
	pi_msg(p, "\nmakedumpfile Completed.\n");
}

void pi_completed_split(const struct mdf_printer *p, char *const *files,
			unsigned n)
{
	pi_msg(p, "\nThe dumpfiles are saved to ");
	for (unsigned i = 0; i < n; i++)
		pi_msg(p, "%s%s%s", i + 1 < n ? "" : "and ", files[i],
		       i + 1 < n ? ", " : ".\n");
	pi_msg(p, "\nmakedumpfile Completed.\n");
}

void pi_dmesg_saved(const struct mdf_printer *p, const char *path)
{
	pi_msg(p, "\nThe dmesg log is saved to %s.\n", path);
}

void pi_vtop(const struct mdf_printer *p, uint64_t vaddr, uint64_t paddr, const char *why)
{
	pi_msg(p, "\nTranslating virtual address %" PRIx64 " to physical address.\n", vaddr);
	pi_msg(p, "VIRTUAL           PHYSICAL\n");
	if (why)
		pi_msg(p, "%16" PRIx64 "  not translated: %s\n\n", vaddr, why);
	else
		pi_msg(p, "%16" PRIx64 "  %" PRIx64 "\n\n", vaddr, paddr);
}

void pi_vmcoreinfo_saved(const struct mdf_printer *p, const char *path)
{
	pi_msg(p, "\nThe vmcoreinfo is saved to %s.\n", path);
}

void pi_failed(const struct mdf_printer *p)
{
	if (p->level & ML_ERROR) {
		fprintf(p->err, "\nmakedumpfile Failed.\n");
		fflush(p->err);
	}
}
