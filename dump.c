/*
 * dump.c - the phases of a run.
 */
#include "dump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "vmcoreinfo.h"

/* Bitmap memory when --cyclic-buffer is not given: 60 % of free memory
 * (makedumpfile's rule), never more than this cap. */
#define DEFAULT_CYCLE_BUDGET_MAX (16ULL << 20)

static void add_phase(struct mdf_report *r, const char *name, double secs)
{
	for (unsigned i = 0; i < r->nphases; i++) {
		if (strcmp(r->phases[i].name, name) == 0) {
			r->phases[i].seconds += secs;
			return;
		}
	}
	if (r->nphases < MDF_MAX_PHASES) {
		r->phases[r->nphases].name = name;
		r->phases[r->nphases].seconds = secs;
		r->nphases++;
	}
}

static uint64_t mem_free_bytes(void)
{
	char buf[4096];
	int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	const char *p;
	uint64_t kib = 0;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "MemFree:");
	if (p)
		kib = strtoull(p + 8, NULL, 10);
	return kib << 10;
}

static enum mdf_status open_input(struct mdf_ctx *ctx)
{
	const struct mdf_opts *o = &ctx->opts;
	struct cache_config cc = { 0 };
	enum mdf_status st;

	ctx->in_fd = open(o->vmcore, O_RDONLY | O_CLOEXEC);
	if (ctx->in_fd < 0)
		return mdf_err_errno(&ctx->err, MDF_ERR_IO, errno,
				     "cannot open %s", o->vmcore);
	st = elf_info_open(&ctx->elf, ctx->in_fd, o->vmcore, &ctx->err);
	if (st != MDF_OK)
		return st;
	switch (o->mmap) {
	case MDF_MMAP_NEVER: cc.policy = CACHE_MMAP_NEVER; break;
	case MDF_MMAP_ALWAYS: cc.policy = CACHE_MMAP_ALWAYS; break;
	case MDF_MMAP_TRY: cc.policy = CACHE_MMAP_TRY; break;
	}
	return cache_init(&ctx->cache, ctx->in_fd, o->vmcore, &cc, &ctx->err);
}

static enum mdf_status learn_kernel(struct mdf_ctx *ctx)
{
	struct arch_seg_hint hints[64];
	size_t nh = 0;
	enum mdf_status st;
	unsigned dl = opts_dump_level(&ctx->opts);

	kinfo_init(&ctx->ki);
	st = vmcoreinfo_parse(ctx->elf.vmcoreinfo, ctx->elf.vmcoreinfo_len,
			      &ctx->ki, &ctx->err);
	if (st != MDF_OK)
		return mdf_err_push(&ctx->err, "%s", ctx->opts.vmcore);
	ctx->page_size = ctx->ki.page_size.set ? ctx->ki.page_size.v : 4096;
	if (ctx->page_size < 512 || ctx->page_size > (1 << 20) ||
	    (ctx->page_size & (ctx->page_size - 1)))
		return mdf_err_set(&ctx->err, MDF_ERR_FORMAT,
				   "%s: VMCOREINFO: bad PAGESIZE=%llu",
				   ctx->opts.vmcore,
				   (unsigned long long)ctx->page_size);
	ctx->max_pfn = elf_info_max_paddr(&ctx->elf) / ctx->page_size;

	for (size_t i = 0; i < ctx->elf.nloads && nh < ARRAY_SIZE(hints); i++) {
		hints[nh].vaddr = ctx->elf.loads[i].vaddr;
		hints[nh].paddr = ctx->elf.loads[i].paddr;
		hints[nh].size = ctx->elf.loads[i].memsz;
		nh++;
	}
	st = arch_init(&ctx->arch, ctx->elf.e_machine, &ctx->ki, hints, nh,
		       &ctx->err);
	if (st == MDF_OK) {
		ctx->have_arch = true;
	} else if (dl & ~DL_EXCLUDE_ZERO) {
		return mdf_err_push(&ctx->err, "%s", ctx->opts.vmcore);
	} else {
		/* Levels 0 and 1 need no translation: carry on without. */
		pi_debug(&ctx->pr, "no address translation: %s\n", ctx->err.msg);
		mdf_err_clear(&ctx->err);
	}
	readmem_init(&ctx->rm, &ctx->elf, &ctx->cache,
		     ctx->have_arch ? &ctx->arch : NULL, ctx->page_size);

	st = filter_rules_init(&ctx->rules, &ctx->ki, dl,
			       ctx->elf.ei_data == 2 /* ELFDATA2MSB */,
			       &ctx->fwarn, &ctx->err);
	if (st != MDF_OK)
		return mdf_err_push(&ctx->err, "%s", ctx->opts.vmcore);
	if (ctx->rules.needs_memmap) {
		st = memmap_init(&ctx->mm, &ctx->ki, ctx->page_size,
				 ctx->max_pfn, &ctx->err);
		if (st != MDF_OK)
			return mdf_err_push(&ctx->err, "%s: dump level %u",
					    ctx->opts.vmcore, dl);
	}
	if (ctx->fwarn.unknown_kernel)
		pi_warn(&ctx->pr, "The kernel version is not supported.\n"
			"Pages that cannot be classified are kept.\n");
	if (ctx->fwarn.no_free_detection)
		pi_warn(&ctx->pr, "Free pages cannot be identified on this "
			"kernel; they are kept.\n");
	pi_debug(&ctx->pr, "OSRELEASE=%s page_size=%llu max_mapnr=0x%llx memory model=%s\n",
		 ctx->ki.osrelease, (unsigned long long)ctx->page_size,
		 (unsigned long long)ctx->max_pfn,
		 memmap_model_name(ctx->mm.model));
	return MDF_OK;
}

enum mdf_status dump_open(struct mdf_ctx *ctx)
{
	enum mdf_status st;
	uint64_t budget;
	double t0 = pi_now();

	ctx->in_fd = -1;
	st = open_input(ctx);
	if (st == MDF_OK)
		st = learn_kernel(ctx);
	if (st != MDF_OK)
		return st;

	if (ctx->opts.cyclic_buffer_kib) {
		budget = ctx->opts.cyclic_buffer_kib << 10;
	} else {
		budget = mem_free_bytes() / 10 * 6;
		if (budget == 0 || budget > DEFAULT_CYCLE_BUDGET_MAX)
			budget = DEFAULT_CYCLE_BUDGET_MAX;
	}
	ctx->cycle_pfns = bitmap_cycle_pfns(budget, 2, ctx->max_pfn);
	st = bitmap_init(&ctx->present, ctx->cycle_pfns, &ctx->err);
	if (st == MDF_OK)
		st = bitmap_init(&ctx->dumpable, ctx->cycle_pfns, &ctx->err);
	if (st != MDF_OK)
		return st;
	ctx->scratch = malloc((size_t)(FILTER_BATCH * 64 > ctx->page_size ?
			      FILTER_BATCH * 64 : ctx->page_size));
	if (!ctx->scratch)
		return mdf_err_set(&ctx->err, MDF_ERR_NOMEM, "out of memory");
	ctx->report.page_size = ctx->page_size;
	ctx->report.pages.total = ctx->max_pfn;
	add_phase(&ctx->report, "Reading headers", pi_now() - t0);
	return MDF_OK;
}

/* bitmap1 of the current cycle from the PT_LOAD ranges.  A pfn counts as
 * present from the page holding a range's first byte up to, not
 * including, the page holding its end (makedumpfile's rounding). */
static void fill_present(struct mdf_ctx *ctx, uint64_t start, uint64_t end)
{
	bitmap_reset(&ctx->present, start, end);
	for (size_t i = 0; i < ctx->elf.nranges; i++) {
		uint64_t s = ctx->elf.ranges[i].pstart / ctx->page_size;
		uint64_t e = ctx->elf.ranges[i].pend / ctx->page_size;

		bitmap_set_range(&ctx->present, s, e);
	}
}

static enum mdf_status write_debug_bitmap(struct mdf_ctx *ctx, int fd,
					  const char *path,
					  const struct bitmap *b)
{
	enum mdf_status st = util_pwrite_full(fd, b->bits, bitmap_bytes(b),
					      b->start_pfn / 8, &ctx->err);

	if (st != MDF_OK)
		return mdf_err_push(&ctx->err, "%s", path);
	return MDF_OK;
}

static enum mdf_status open_debug_file(struct mdf_ctx *ctx, const char *path,
				       int *fd)
{
	*fd = -1;
	if (!path)
		return MDF_OK;
	*fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (*fd < 0)
		return mdf_err_errno(&ctx->err, MDF_ERR_IO, errno,
				     "cannot create %s", path);
	return MDF_OK;
}

static enum mdf_status close_debug_file(struct mdf_ctx *ctx, const char *path,
					int fd)
{
	/* The size a kdump-compressed file gives one bitmap. */
	uint64_t size = align_up(div_round_up(ctx->max_pfn, 8), ctx->page_size);

	if (fd < 0)
		return MDF_OK;
	if (ftruncate(fd, (off_t)size) != 0 || close(fd) != 0)
		return mdf_err_errno(&ctx->err, MDF_ERR_IO, errno, "%s", path);
	return MDF_OK;
}

/* Count zero pages among the dumpable ones of this cycle. */
static enum mdf_status count_zero_pages(struct mdf_ctx *ctx, uint64_t *zero)
{
	struct bitmap *d = &ctx->dumpable;
	uint64_t pfn;

	for (pfn = bitmap_next_set(d, d->start_pfn); pfn < d->end_pfn;
	     pfn = bitmap_next_set(d, pfn + 1)) {
		const unsigned char *p;
		enum mdf_status st;

		st = readmem_page(&ctx->rm, pfn, ctx->scratch, &p, &ctx->err);
		if (st != MDF_OK)
			return mdf_err_push(&ctx->err, "%s", ctx->opts.vmcore);
		if (util_is_zero(p, (size_t)ctx->page_size))
			(*zero)++;
	}
	return MDF_OK;
}

enum mdf_status dump_dry_run(struct mdf_ctx *ctx)
{
	struct filter_counts counts = { 0 };
	struct filter_carry carry = { 0 };
	struct mdf_page_counts *pc = &ctx->report.pages;
	unsigned dl = opts_dump_level(&ctx->opts);
	int fd1 = -1, fd2 = -1;
	double t_scan = 0, t_zero = 0;
	enum mdf_status st;

	st = open_debug_file(ctx, ctx->opts.debug_bitmap1, &fd1);
	if (st == MDF_OK)
		st = open_debug_file(ctx, ctx->opts.debug_bitmap, &fd2);
	for (uint64_t start = 0; st == MDF_OK && start < ctx->max_pfn;
	     start += ctx->cycle_pfns) {
		uint64_t end = start + ctx->cycle_pfns;
		double t0 = pi_now(), t1;

		if (end > ctx->max_pfn)
			end = ctx->max_pfn;
		fill_present(ctx, start, end);
		pc->present += bitmap_count(&ctx->present, start, end);
		bitmap_copy(&ctx->dumpable, &ctx->present);
		st = filter_cycle(&ctx->rules, &ctx->mm, &ctx->rm, &ctx->present,
				  &ctx->dumpable, ctx->scratch, &carry, &counts,
				  &ctx->err);
		if (st != MDF_OK) {
			mdf_err_push(&ctx->err, "%s", ctx->opts.vmcore);
			break;
		}
		pc->dumpable += bitmap_count(&ctx->dumpable, start, end);
		t1 = pi_now();
		t_scan += t1 - t0;
		pi_progress(&ctx->pr, "Excluding unnecessary pages", end,
			    ctx->max_pfn, t1);
		if (dl & DL_EXCLUDE_ZERO) {
			st = count_zero_pages(ctx, &pc->zero);
			t_zero += pi_now() - t1;
			if (st != MDF_OK)
				break;
		}
		if (fd1 >= 0)
			st = write_debug_bitmap(ctx, fd1, ctx->opts.debug_bitmap1,
						&ctx->present);
		if (st == MDF_OK && fd2 >= 0)
			st = write_debug_bitmap(ctx, fd2, ctx->opts.debug_bitmap,
						&ctx->dumpable);
	}
	if (st == MDF_OK)
		st = close_debug_file(ctx, ctx->opts.debug_bitmap1, fd1);
	else if (fd1 >= 0)
		close(fd1);
	if (st == MDF_OK)
		st = close_debug_file(ctx, ctx->opts.debug_bitmap, fd2);
	else if (fd2 >= 0)
		close(fd2);
	if (st != MDF_OK)
		return st;

	pc->hole = pc->total - pc->present;
	pc->cache = counts.cls[PC_CACHE];
	pc->cache_private = counts.cls[PC_CACHE_PRIVATE];
	pc->user = counts.cls[PC_USER];
	pc->free = counts.cls[PC_FREE];
	pc->hwpoison = counts.cls[PC_HWPOISON];
	pc->offline = counts.cls[PC_OFFLINE];
	pc->unaccepted = counts.cls[PC_UNACCEPTED];
	pc->remaining = pc->dumpable - pc->zero;
	add_phase(&ctx->report, "Excluding unnecessary pages", t_scan);
	if (dl & DL_EXCLUDE_ZERO)
		add_phase(&ctx->report, "Checking for zero pages", t_zero);
	if (counts.unreadable)
		pi_warn(&ctx->pr, "%llu pages kept: their struct pages could not be read.\n",
			(unsigned long long)counts.unreadable);
	ctx->report.cache = ctx->cache.stats;
	ctx->report.have_cache = true;
	return MDF_OK;
}

void dump_close(struct mdf_ctx *ctx)
{
	free(ctx->scratch);
	ctx->scratch = NULL;
	bitmap_release(&ctx->present);
	bitmap_release(&ctx->dumpable);
	cache_release(&ctx->cache);
	elf_info_close(&ctx->elf);
	if (ctx->in_fd >= 0)
		close(ctx->in_fd);
	ctx->in_fd = -1;
}
