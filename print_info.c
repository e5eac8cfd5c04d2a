/*
 * print_info.c - the only file that prints.
 */
#include "print_info.h"

#include <inttypes.h>
#include "compress/compress.h"
#include "kpageflags.h"
#include "util.h"

#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
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

void pi_vmcoreinfo(const struct mdf_printer *p, const char *text, size_t len)
{
	size_t i = 0;

	if (!(p->level & ML_DEBUG) || !text)
		return;
	fprintf(p->msg, "VMCOREINFO (%zu bytes):\n", len);
	while (i < len && text[i]) {
		size_t n = 0;

		while (i + n < len && text[i + n] && text[i + n] != '\n')
			n++;
		if (n)
			fprintf(p->msg, "  %.*s\n", (int)n, text + i);
		if (i + n < len && !text[i + n])
			break;              /* the text ends at a NUL */
		i += n + 1;
	}
	fflush(p->msg);
}

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
"  makedumpfile [-c|-l|-p|-z] [-d DL] [options] PART1 PART2 [...] DUMPFILE\n"
"  makedumpfile -R DUMPFILE < STREAM\n"
"  makedumpfile --dry-run [-d DL] [options] VMCORE\n"
"  makedumpfile --mem-usage [options] VMCORE\n"
"  makedumpfile --explain PFN|0xPADDR [-d DL] VMCORE\n"
"  makedumpfile --dump-dmesg [--partial-dmesg] VMCORE DMESGFILE\n"
"  makedumpfile -F --dump-dmesg [--partial-dmesg] VMCORE > DMESGFILE\n"
"  makedumpfile --split [-c|-l|-p|-z] [-d DL] VMCORE DUMPFILE1 DUMPFILE2 [...]\n"
"  makedumpfile --reassemble DUMPFILE1 DUMPFILE2 [...] DUMPFILE\n"
"  makedumpfile -g VMCOREINFO -x VMLINUX\n"
"  makedumpfile [-c|-l|-p|-z] [-d DL] -x VMLINUX --diskset=DISK1 --diskset=DISK2 [...] DUMPFILE\n"
"\n"
"Filter a Linux crash dump (an ELF vmcore such as /proc/vmcore, or a\n"
"kdump-compressed dump, or the parts of a split set in any order) and write\n"
"the pages worth keeping.\n"
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
"  --explain PFN|0xPADDR  why that page is kept or excluded at dump levels\n"
"                  0, 1, 2, 4, 8, 16, 31 and those of -d; a decimal number is\n"
"                  a pfn, a 0x number a physical address; pfn:0x12, paddr:4096\n"
"                  say which explicitly\n"
"  --show-stats    print the final report (message level 16)\n"
"  --check-params  only check the command line\n"
"  --dump-dmesg    write the kernel log of VMCORE to DMESGFILE\n"
"  --partial-dmesg with --dump-dmesg: only what dmesg -c has not cleared\n"
"  --message-level ML  1 progress, 2 common, 4 error, 8 debug, 16 report\n"
"                  (default 7)\n"
"  --report-format text|json  the final report as text (default) or one JSON\n"
"                  object\n"
"  --keep-task SPEC  keep the memory of a process at any dump level: SPEC is\n"
"                  its pid or comm:NAME (repeatable; its user page tables are\n"
"                  walked with the dump's BTF or -x)\n"
"  --page-types    after the run, page-types' table of every struct page\n"
"                  (pages per combination of /proc/kpageflags flags);\n"
"                  --page-types VMCORE alone writes nothing\n"
"  --page-types-by flags|task|cgroup  --page-types, and a table per process\n"
"                  (those of --keep-task, else all) or per cgroup of the pages\n"
"                  they map\n"
"  --debug-bitmap FILE   write the dumpable bitmap (bitmap2) to FILE\n"
"  --debug-bitmap1 FILE  write the memory-present bitmap (bitmap1) to FILE\n"
"  -D              debug messages (message level 31)\n"
"  -v              version and compression support\n"
"  -i FILE         VMCOREINFO from FILE where the dump's note lacks it\n"
"  -x VMLINUX      the kernel's layout from its debug vmlinux (the note wins);\n"
"                  another release or build exits with status 2\n"
"  -g FILE -x VMLINUX  write that kernel's VMCOREINFO text to FILE\n"
"  -g FILE VMCORE  the same from the dump's BTF and kallsyms\n"
"  --config FILE   erase the data FILE names (makedumpfile.conf(5)); the types\n"
"                  from -x, else from the dump's BTF\n"
"  --extension FILE.so  run an extension (<makedumpfile/extension.h>)\n"
"  -e              also leave out the struct pages of excluded memory (x86_64)\n"
"  --work-dir DIR  accepted for -e's sake, not needed\n"
"  --vtop VADDR    print VADDR's physical address before the dump\n"
"  --splitblock-size KB  with --split: boundaries on a grid of KB (rounded up\n"
"                  to 64 pages; default 64 pages)\n"
"  --diskset=DISK  a disk of a sadump disk set, disk 1 first (the input)\n"
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

void pi_vmemmap(struct mdf_printer *p, uint64_t pages)
{
	if (!(p->level & ML_PROGRESS))
		return;
	fprintf(p->err, "%sExcluded %llu unused vmemmap pages\n",
		p->progress_tty && p->phase ? "\n" : "", (unsigned long long)pages);
	p->phase = NULL;
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
static const char *const rule_name[PR_COUNT] = {
#define PAGE_RULE_NAME(name, label) label,
	PAGE_RULES(PAGE_RULE_NAME)
#undef PAGE_RULE_NAME
};

/* "Kept, rule cache could not run (VMCOREINFO has no NUMBER(PG_lru) or
 * OFFSET(page.mapping)): 12 pages", one line per rule with a gap; "pages
 * not tested" when nothing narrowed the count down.  Then a blank line. */
static void gap_lines(FILE *f, const struct mdf_report *r)
{
	bool any = false;

	for (unsigned i = 0; i < PR_COUNT; i++) {
		const struct rule_gap *g = &r->gaps[i];

		if (!g->off)
			continue;
		any = true;
		fprintf(f, "Kept, rule %s could not run (VMCOREINFO has no ", rule_name[i]);
		for (unsigned k = 0; k < g->nkeys; k++)
			fprintf(f, "%s%s", k == 0 ? "" : k + 1 < g->nkeys ? ", " : " or ",
				g->keys[k]);
		fprintf(f, "): %llu pages%s\n", (unsigned long long)r->pages.kept[i],
			g->untested ? " not tested" : "");
	}
	if (any)
		fputc('\n', f);
}

/* --keep-task: the pages its processes kept that a class would have
 * dropped, then each process chosen. */
static void keep_task_lines(FILE *f, const struct mdf_report *r)
{
	if (!r->keep_task)
		return;
	fprintf(f, "Kept for --keep-task: %llu pages (of %llu the processes map)\n",
		(unsigned long long)r->pages.keep_task, (unsigned long long)r->kept_mapped);
	for (size_t i = 0; i < r->nkept; i++)
		fprintf(f, "  process %d (%s): %llu pages mapped, %llu page-table pages\n",
			r->kept[i].pid, r->kept[i].comm, (unsigned long long)r->kept[i].pages,
			(unsigned long long)r->kept[i].tables);
	fputc('\n', f);
}

/* A string as JSON: the names here are ours (VMCOREINFO keys, phases). */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static const char *const class_word[PC_COUNT];

/* A class's word in lower case ("cache_private") into @buf. */
static const char *class_key(unsigned c, char *buf, size_t cap)
{
	size_t i = 0;

	for (const char *s = class_word[c]; *s && i + 1 < cap; s++)
		buf[i++] = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
	buf[i] = '\0';
	return buf;
}

/* The names of the flags set in @flags, page-types' long ones, into @buf:
 * "locked,referenced". */
static const char *flag_list(uint64_t flags, char *buf, size_t cap)
{
	char sym[72];

	kpf_names(flags, sym, buf, cap);
	return buf;
}

/* The rows of a page-types table as a JSON array. */
static void page_types_rows_json(FILE *f, const struct kpf_table *pt)
{
	char sym[72], names[1024];

	fputc('[', f);
	for (size_t i = 0; i < pt->n; i++) {
		kpf_names(pt->e[i].flags, sym, names, sizeof(names));
		fprintf(f, "%s{\"flags\": \"0x%016llx\", \"pages\": %llu, \"bytes\": %llu, "
			"\"symbolic\": ", i ? ", " : "", (unsigned long long)pt->e[i].flags,
			(unsigned long long)pt->e[i].pages,
			(unsigned long long)(pt->e[i].pages * pt->page_size));
		json_str(f, sym);
		fputs(", \"names\": ", f);
		json_str(f, names);
		fputc('}', f);
	}
	fputc(']', f);
}

/* --page-types' table in the JSON report: each row's flags as hex and
 * names, pages and bytes; the flags the dump cannot tell; and
 * --page-types-by's groups. */
static void page_types_json(FILE *f, const struct kpf_table *pt, const struct kpf_groups *gs)
{
	char names[1024];

	fprintf(f, ", \"page_types\": {\"total\": %llu, \"unreadable\": %llu, \"seconds\": %.6f, "
		"\"unknown_flags\": ",
		(unsigned long long)pt->total, (unsigned long long)pt->unreadable, pt->seconds);
	json_str(f, flag_list(pt->unknown, names, sizeof(names)));
	fputs(", \"rows\": ", f);
	page_types_rows_json(f, pt);
	if (gs) {
		fputs(", \"by\": ", f);
		json_str(f, gs->by);
		fputs(", \"groups\": [", f);
		for (size_t i = 0; i < gs->n; i++) {
			fputs(i ? ", {\"name\": " : "{\"name\": ", f);
			json_str(f, gs->g[i].name);
			fprintf(f, ", \"processes\": %u, \"total\": %llu, \"unreadable\": %llu, "
				"\"rows\": ", gs->g[i].members, (unsigned long long)gs->g[i].pt.total,
				(unsigned long long)gs->g[i].pt.unreadable);
			page_types_rows_json(f, &gs->g[i].pt);
			fputc('}', f);
		}
		fputc(']', f);
	}
	fputc('}', f);
}

/* --report-format json: the report's numbers as one object, for scripts
 * that would parse the text (the counts are pages, the times seconds). */
static void report_json(FILE *f, const struct mdf_report *r)
{
	const struct mdf_page_counts *c = &r->pages;
	char key[32];
	bool first = true;

	fprintf(f, "{\"page_size\": %llu, \"pages\": {\"original\": %llu, \"excluded\": %llu, "
		"\"zero\": %llu",
		(unsigned long long)r->page_size, (unsigned long long)c->present,
		(unsigned long long)(c->present - c->remaining), (unsigned long long)c->zero);
	for (unsigned i = PC_TAIL + 1; i < PC_COUNT; i++)
		fprintf(f, ", \"%s\": %llu", class_key(i, key, sizeof(key)),
			(unsigned long long)c->excluded[i]);
	fprintf(f, ", \"vmemmap\": %llu, \"remaining\": %llu, \"hole\": %llu, \"total\": %llu}",
		(unsigned long long)c->vmemmap, (unsigned long long)c->remaining,
		(unsigned long long)c->hole, (unsigned long long)c->total);
	fputs(", \"rules_not_run\": [", f);
	for (unsigned i = 0; i < PR_COUNT; i++) {
		const struct rule_gap *g = &r->gaps[i];

		if (!g->off)
			continue;
		fprintf(f, "%s{\"rule\": ", first ? "" : ", ");
		json_str(f, rule_name[i]);
		fputs(", \"keys\": [", f);
		for (unsigned k = 0; k < g->nkeys; k++) {
			if (k)
				fputs(", ", f);
			json_str(f, g->keys[k]);
		}
		fprintf(f, "], \"pages_kept\": %llu, \"untested\": %s}",
			(unsigned long long)c->kept[i], g->untested ? "true" : "false");
		first = false;
	}
	fputc(']', f);
	if (r->wrote)
		fprintf(f, ", \"write_bytes\": %llu", (unsigned long long)r->write_bytes);
	if (r->have_cache) {
		const struct cache_stats *s = &r->cache;

		fprintf(f, ", \"cache\": {\"hits\": %llu, \"misses\": %llu, \"mmaps\": %llu, "
			"\"munmaps\": %llu, \"reads\": %llu, \"read_bytes\": %llu, "
			"\"reads_for_map_room\": %llu, \"mapped_peak_bytes\": %llu, "
			"\"mmap_failed\": %s}",
			(unsigned long long)s->hits, (unsigned long long)s->misses,
			(unsigned long long)s->mmaps, (unsigned long long)s->munmaps,
			(unsigned long long)s->reads, (unsigned long long)s->read_bytes,
			(unsigned long long)s->budget_reads, (unsigned long long)r->map_peak,
			s->mmap_failures ? "true" : "false");
	}
	if (r->page_types)
		page_types_json(f, r->page_types, r->page_types_by);
	if (r->keep_task) {
		fprintf(f, ", \"keep_task\": {\"pages_kept\": %llu, \"pages_mapped\": %llu, "
			"\"processes\": [", (unsigned long long)r->pages.keep_task,
			(unsigned long long)r->kept_mapped);
		for (size_t i = 0; i < r->nkept; i++) {
			fprintf(f, "%s{\"pid\": %d, \"comm\": ", i ? ", " : "", r->kept[i].pid);
			json_str(f, r->kept[i].comm);
			fprintf(f, ", \"pages\": %llu, \"tables\": %llu}",
				(unsigned long long)r->kept[i].pages,
				(unsigned long long)r->kept[i].tables);
		}
		fputs("]}", f);
	}
	fputs(", \"phases\": [", f);
	for (unsigned i = 0; i < r->nphases; i++) {
		fputs(i ? ", {\"name\": " : "{\"name\": ", f);
		json_str(f, r->phases[i].name);
		fprintf(f, ", \"seconds\": %.6f}", r->phases[i].seconds);
	}
	fprintf(f, "], \"elapsed_seconds\": %.6f}\n", r->elapsed > 0 ? r->elapsed : 0.0);
	fflush(f);
}

void pi_report(const struct mdf_printer *p, const struct mdf_report *r,
	       bool force)
{
	const struct mdf_page_counts *c = &r->pages;
	FILE *f = p->msg;
	uint64_t excluded = c->present - c->remaining;

	if (!(p->level & ML_REPORT) && !(force && (p->level & ML_COMMON)))
		return;
	if (p->json) {
		report_json(f, r);
		return;
	}
	fputc('\n', f);
	count_line(f, "Original pages  ", c->present);
	count_line(f, "  Excluded pages   ", excluded);
	count_line(f, "    Pages filled with zero  ", c->zero);
	for (unsigned i = 0; i < PC_COUNT; i++) {
		if (class_shown[i] == 1 || (class_shown[i] == 2 && c->excluded[i]))
			fprintf(f, "    %-24s: 0x%016llx\n", class_label[i],
				(unsigned long long)c->excluded[i]);
	}
	if (c->vmemmap) /* -e */
		fprintf(f, "    %-24s: 0x%016llx\n", "Unused vmemmap pages",
			(unsigned long long)c->vmemmap);
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
	gap_lines(f, r);
	keep_task_lines(f, r);
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

/* page-types' summary: its header, one row per flag combination (hex,
 * pages, MiB, the letters and the names), and the total. */
static void page_types_table(FILE *f, const struct kpf_table *pt)
{
	char sym[72], names[1024];

	fputs("             flags\tpage-count       MB  symbolic-flags\t\t\tlong-symbolic-flags\n",
	      f);
	for (size_t i = 0; i < pt->n; i++) {
		kpf_names(pt->e[i].flags, sym, names, sizeof(names));
		fprintf(f, "0x%016llx\t%10llu %8llu  %s\t%s\n", (unsigned long long)pt->e[i].flags,
			(unsigned long long)pt->e[i].pages,
			(unsigned long long)((pt->e[i].pages * pt->page_size) >> 20), sym, names);
	}
	fprintf(f, "             total\t%10llu %8llu\n", (unsigned long long)pt->total,
		(unsigned long long)((pt->total * pt->page_size) >> 20));
}

void pi_page_types(const struct mdf_printer *p, const struct kpf_table *pt)
{
	char names[1024];
	FILE *f = p->msg;

	if (p->json || !(p->level & (ML_COMMON | ML_REPORT)))
		return; /* JSON: the table is in the report */
	fputc('\n', f);
	if (pt->unknown)
		fprintf(f, "The dump cannot tell these flags (no BTF or kallsyms of its kernel): %s; "
			"they are shown clear.\n", flag_list(pt->unknown, names, sizeof(names)));
	if (pt->unreadable)
		fprintf(f, "%llu pfns whose struct pages the dump lacks are counted as nopage.\n",
			(unsigned long long)pt->unreadable);
	page_types_table(f, pt);
	fflush(f);
}

void pi_page_types_by(const struct mdf_printer *p, const struct kpf_groups *gs)
{
	FILE *f = p->msg;

	if (p->json || !(p->level & (ML_COMMON | ML_REPORT)))
		return;
	for (size_t i = 0; i < gs->n; i++) {
		const struct kpf_group *g = &gs->g[i];

		if (gs->by[0] == 'c')
			fprintf(f, "\ncgroup %s (%u process%s):\n", g->name, g->members,
				g->members == 1 ? "" : "es");
		else
			fprintf(f, "\n%s:\n", g->name);
		page_types_table(f, &g->pt);
	}
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

void pi_stopped(const struct mdf_printer *p, int sig, const char *output)
{
	char line[PATH_MAX + 160];
	int n;

	if (!(p->level & ML_ERROR))
		return;
	if (output)
		n = snprintf(line, sizeof(line),
			     "%smakedumpfile: %s: stopped by SIG%s before it was whole: "
			     "it is marked incomplete, or not there\n",
			     p->progress_tty && p->phase ? "\n" : "", output, sigabbrev_np(sig));
	else
		n = snprintf(line, sizeof(line), "%smakedumpfile: stopped by SIG%s\n",
			     p->progress_tty && p->phase ? "\n" : "", sigabbrev_np(sig));
	if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
		return; /* nothing more to say, nowhere to say it */
}

void pi_failed(const struct mdf_printer *p)
{
	if (p->level & ML_ERROR) {
		fprintf(p->err, "\nmakedumpfile Failed.\n");
		fflush(p->err);
	}
}

/* ---- --explain ------------------------------------------------------ */

static const char *const class_word[PC_COUNT] = {
#define PAGE_CLASS_WORD(name, label, shown) #name,
	PAGE_CLASSES(PAGE_CLASS_WORD)
#undef PAGE_CLASS_WORD
};

/* A class as one lower-case word: "free", "cache_private". */
static void put_class(FILE *f, enum page_class c)
{
	for (const char *s = (unsigned)c < PC_COUNT ? class_word[c] : "?"; *s; s++)
		fputc(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s, f);
}

static unsigned log2_u64(uint64_t v)
{
	unsigned n = 0;

	while (v > 1) {
		v >>= 1;
		n++;
	}
	return n;
}

static void explain_verdict(FILE *f, const struct mdf_explain *e,
			    const struct mdf_explain_level *l)
{
	unsigned order = log2_u64(l->nr_pages);

	switch (l->how) {
	case MDF_EXPLAIN_HOLE:
		fputs("not in the dump: no memory there (a hole)", f);
		break;
	case MDF_EXPLAIN_NO_DATA:
		if (e->input_level >= 0)
			fprintf(f, "not in the dump: excluded already in %s (dump level %d)",
				e->vmcore, e->input_level);
		else
			fputs("not in the dump: its PT_LOAD has no data for it (past p_filesz)", f);
		break;
	case MDF_EXPLAIN_FREE_LIST:
		fputs("excluded: free (on the buddy free lists, which were walked: "
		      "VMCOREINFO has no buddy marker)", f);
		break;
	case MDF_EXPLAIN_EXCLUDED:
		fputs("excluded: ", f);
		put_class(f, l->cls);
		if (l->cls == PC_FREE)
			fprintf(f, " (buddy block head pfn 0x%" PRIx64 " order %u)", l->head, order);
		else if (l->cls == PC_UNACCEPTED)
			fprintf(f, " (unaccepted block head pfn 0x%" PRIx64 " order %u)", l->head,
				order);
		else if (l->nr_pages > 1 && l->head == e->pfn)
			fprintf(f, " (compound head pfn 0x%" PRIx64 " order %u)", l->head, order);
		else if (l->nr_pages > 1)
			fprintf(f, " (tail of compound head pfn 0x%" PRIx64 " order %u)", l->head,
				order);
		else if (l->head != e->pfn)
			fprintf(f, " (by pfn 0x%" PRIx64 ")", l->head);
		break;
	case MDF_EXPLAIN_ZERO:
		fputs("excluded: zero (all its bytes are zero)", f);
		break;
	case MDF_EXPLAIN_KEPT:
		fputs(l->cls == PC_TAIL ? "kept (a compound tail: no exclusion of its head reached it)"
					: "kept", f);
		break;
	case MDF_EXPLAIN_UNREADABLE:
		fputs("kept: its struct pages cannot be read", f);
		break;
	case MDF_EXPLAIN_NO_MEMMAP:
		fputs("kept: no mem_section maps a struct page for it", f);
		break;
	case MDF_EXPLAIN_NOT_SCANNED:
		fputs("kept: this level reads no struct pages", f);
		break;
	}
	if (l->free_unknown && l->how != MDF_EXPLAIN_HOLE && l->how != MDF_EXPLAIN_NO_DATA)
		fputs("; free pages are kept: no buddy marker in VMCOREINFO, and the "
		      "free lists could not be walked", f);
}

static void explain_where(FILE *f, const struct mdf_explain *e)
{
	fputs("  in the dump: ", f);
	if (e->input_level >= 0) {
		if (!e->present)
			fprintf(f, "no: a hole in %s's bitmap1\n", e->vmcore);
		else if (!e->has_data)
			fprintf(f, "no: present in bitmap1, excluded in bitmap2 (written at dump level %d)\n",
				e->input_level);
		else
			fputs("yes: present in bitmap1 and stored (bitmap2)\n", f);
		return;
	}
	if (!e->present) {
		fputs("no: in no PT_LOAD (a hole)\n", f);
		return;
	}
	fputs(e->has_data ? "yes" : "no data", f);
	if (e->have_load) {
		fprintf(f, ": PT_LOAD (program header %u) [0x%" PRIx64 "-0x%" PRIx64 ")",
			e->load_index, e->load_start, e->load_end);
		if (e->in_file)
			fprintf(f, ", file offset 0x%" PRIx64, e->file_off);
		else
			fprintf(f, ", past its p_filesz (data up to 0x%" PRIx64 ")",
				e->load_filesz_end);
	}
	fputc('\n', f);
}

static void explain_page_fields(FILE *f, const struct mdf_explain *e)
{
	if (!e->have_page) {
		fprintf(f, "  struct page: not read: %s\n", e->no_page);
		return;
	}
	fprintf(f, "  struct page at 0x%016" PRIx64 " (%" PRIu64 " bytes):\n", e->page_vaddr,
		e->page_struct_size);
	fprintf(f, "    flags      0x%016" PRIx64, e->flags);
	for (unsigned i = 0; i < e->nflag_names; i++)
		fprintf(f, "%s%s", i ? " " : "  ", e->flag_names[i]);
	fputc('\n', f);
	if (e->has_mapping)
		fprintf(f, "    mapping    0x%016" PRIx64 "%s\n", e->mapping,
			e->mapping & 1 ? "  (bit 0 set: anon, unless slab)" : "");
	if (e->has_private)
		fprintf(f, "    private    0x%016" PRIx64 "\n", e->private_);
	if (e->has_mapcount) {
		fprintf(f, "    _mapcount  0x%08" PRIx32, e->mapcount);
		if (e->page_type)
			fprintf(f, "  (page_type: %s)", e->page_type);
		fputc('\n', f);
	}
	fputs("    compound   ", f);
	if (e->head_flag)
		fprintf(f, "head: order %u, hugetlb %s", e->order, e->hugetlb ? "yes" : "no");
	else if (!e->tail)
		fputs("no head flag, not a tail", f);
	if (e->tail) {
		fprintf(f, "%stail: compound_head 0x%016" PRIx64, e->head_flag ? "; " : "",
			e->head_word);
		if (!e->head_known)
			fputs(", no struct page of this memory map", f);
		else if (!e->head_read)
			fprintf(f, " = pfn 0x%" PRIx64 " (not read)", e->head_pfn);
		else if (!e->head_is_head)
			fprintf(f, " = pfn 0x%" PRIx64 ", which has no head flag", e->head_pfn);
		else
			fprintf(f, " = pfn 0x%" PRIx64 ": order %u, hugetlb %s", e->head_pfn,
				e->head_order, e->head_hugetlb ? "yes" : "no");
	} else if (e->has_head_word && e->head_word) {
		fprintf(f, " (compound_head 0x%016" PRIx64 ")", e->head_word);
	}
	fputc('\n', f);
}

void pi_explain(const struct mdf_printer *p, const struct mdf_explain *e)
{
	FILE *f = p->msg;

	if (!(p->level & ML_COMMON))
		return;
	fprintf(f, "pfn 0x%" PRIx64 " of %s (%s), physical 0x%" PRIx64 "-0x%" PRIx64,
		e->pfn, e->vmcore, e->kind, e->paddr, e->paddr + e->page_size - 1);
	if (e->by_paddr)
		fprintf(f, " (asked: 0x%" PRIx64 ")", e->asked_paddr);
	fputc('\n', f);
	explain_where(f, e);
	explain_page_fields(f, e);
	if (e->have_content)
		fprintf(f, "  content: %s\n", e->zero ? "all bytes zero" : "not all zero");
	else if (e->present && e->has_data)
		fprintf(f, "  content: not read: %s\n", e->no_content);
	if (e->input_level > 0)
		fprintf(f, "  (a run on this input adds its dump level %d: in parentheses)\n",
			e->input_level);
	if (e->keep_owner[0])
		fprintf(f, "  --keep-task: mapped by %s: kept at every level\n", e->keep_owner);
	fputs("  dump level  verdict\n", f);
	for (unsigned i = 0; i < e->nlevels; i++) {
		const struct mdf_explain_level *l = &e->levels[i];
		char lv[32];

		if (l->effective != l->level)
			snprintf(lv, sizeof(lv), "%u (%u)", l->level, l->effective);
		else
			snprintf(lv, sizeof(lv), "%u", l->level);
		fprintf(f, "  -d %-8s  ", lv);
		explain_verdict(f, e, l);
		fputc('\n', f);
	}
	fflush(f);
}
