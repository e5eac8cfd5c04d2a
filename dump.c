/*
 * dump.c - the phases of a run.
 */
#include "dump.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compress/compress.h"
#include "filter/explain.h"
#include "write/elf_write.h"
#include "write/kdump_write.h"
#include "write/output.h"
#include "write/split.h"
#include "files.h"
#include "kcore.h"
#include "util.h"
#include "filter/extension.h"
#include "kernel/btf_kinfo.h"
#include "kernel/sadump_kernel.h"
#include "kernel/vmcoreinfo.h"
#include "context.h"

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

/* How the input is cached (--non-mmap etc.): the main cache and every
 * scan thread's use the same, and share one map budget. */
static void input_cache_config(struct mdf_ctx *ctx, struct cache_config *cc)
{
	const struct mdf_opts *o = &ctx->opts;

	memset(cc, 0, sizeof(*cc));
	cc->budget = &ctx->map_budget;
	switch (o->mmap) {
	case MDF_MMAP_NEVER: cc->policy = CACHE_MMAP_NEVER; break;
	case MDF_MMAP_ALWAYS: cc->policy = CACHE_MMAP_ALWAYS; break;
	case MDF_MMAP_TRY: cc->policy = CACHE_MMAP_TRY; break;
	}
}

/*
 * A live /proc/kcore without a VMCOREINFO note (Linux 4.11 to 4.18: the
 * note came in 4.19, commit 23c85094fe18, and RHEL 8's 4.18 has none):
 * the running kernel's /sys/kernel/vmcoreinfo names where its note is in
 * physical memory, which kcore's PT_LOADs map since 4.11.  Only for the
 * live /proc/kcore itself (same inode): for any other file the sysfs
 * file describes another kernel.
 */
#define SYSFS_VMCOREINFO "/sys/kernel/vmcoreinfo"

static enum mdf_status kcore_vmcoreinfo(struct mdf_ctx *ctx)
{
	const char *in = ctx->opts.vmcore;
	char text[128];
	uint64_t paddr, size;
	ssize_t n;
	int fd;

	if (!kcore_is_proc_kcore(ctx->in_fd))
		return mdf_err_set(&ctx->err, MDF_ERR_FORMAT, "%s: %s", in,
				   ELF_INFO_NO_KCORE_VMCOREINFO);
	fd = open(SYSFS_VMCOREINFO, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mdf_err_errno(&ctx->err, MDF_ERR_IO, errno,
				     "%s: no VMCOREINFO note, and cannot open %s",
				     in, SYSFS_VMCOREINFO);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0 || !vmcoreinfo_sysfs_parse(text, (size_t)n, &paddr, &size))
		return mdf_err_set(&ctx->err, MDF_ERR_FORMAT,
				   "%s: no VMCOREINFO note, and %s does not read \"ADDRESS SIZE\"",
				   in, SYSFS_VMCOREINFO);
	if (elf_info_vmcoreinfo_from_memory(&ctx->elf, &ctx->cache, paddr, size,
					    &ctx->err) != MDF_OK)
		return mdf_err_push(&ctx->err, "%s (the note %s names)", in,
				    SYSFS_VMCOREINFO);
	pi_debug(&ctx->pr, "VMCOREINFO from %s: paddr 0x%llx, 0x%llx bytes\n",
		 SYSFS_VMCOREINFO, (unsigned long long)paddr,
		 (unsigned long long)size);
	return MDF_OK;
}

/* MDF_ERR_INTERRUPTED when a signal asked us to stop (stop.h). */
static enum mdf_status check_stop(struct mdf_ctx *ctx, struct mdf_err *err)
{
	return stop_check(&ctx->stop, err);
}

/*
 * Every file this run will write, before anything is written: none may
 * be the input (under any name: -f would truncate the vmcore), none may
 * be named twice, and without -f none may exist (a split set used to
 * write all of its first part before finding the second one there).
 */
static enum mdf_status check_outputs(struct mdf_ctx *ctx)
{
	const struct mdf_opts *o = &ctx->opts;
	const char *paths[SPLIT_MAX_PARTS + 2];
	size_t n = 0;

	if (o->split) {
		for (unsigned i = 0; i < o->nsplit && n < SPLIT_MAX_PARTS; i++)
			paths[n++] = o->split_files[i];
	} else if (o->dumpfile && !o->flatten && !o->dry_run && !o->mem_usage) {
		paths[n++] = o->dumpfile;
	}
	if (o->debug_bitmap)
		paths[n++] = o->debug_bitmap;
	if (o->debug_bitmap1)
		paths[n++] = o->debug_bitmap1;
	for (size_t i = 0; i < n; i++) {
		if (util_same_file(ctx->in_fd, paths[i]))
			return mdf_err_set(&ctx->err, MDF_ERR_ARG,
					   "%s is %s itself: write the dump to another file",
					   paths[i], o->vmcore);
		for (size_t j = 0; j < i; j++)
			if (strcmp(paths[i], paths[j]) == 0)
				return mdf_err_set(&ctx->err, MDF_ERR_ARG,
						   "%s is named twice as an output", paths[i]);
		if (!o->force && access(paths[i], F_OK) == 0)
			return mdf_err_set(&ctx->err, MDF_ERR_IO,
					   "%s already exists (use -f to overwrite it)",
					   paths[i]);
	}
	return MDF_OK;
}

/*
 * Without VMCOREINFO, -d 0 and -d 1 still work, as upstream: they need
 * neither struct pages nor the kernel's page size (the host's is taken)
 * and write a header without vmcoreinfo.  Anything else needs it.
 */
static bool needs_vmcoreinfo(const struct mdf_opts *o)
{
	/* -i FILE or -x VMLINUX gives it when the dump has no note. */
	return !o->vmcoreinfo_file && !o->vmlinux &&
	       (o->dump_dmesg || (opts_dump_level(o) & ~DL_EXCLUDE_ZERO) != 0);
}

/* The largest -i or --config FILE taken: a VMCOREINFO note is a page or
 * two, an erase config a few lines. */
#define SMALL_FILE_MAX (1u << 20)

/* A whole small text file (-i, --config) into *@buf, *@len; @what names
 * the kind of file in the message when it is not one. */
static enum mdf_status read_small_file(const char *path, const char *what, char **buf,
				       size_t *len, struct mdf_err *err)
{
	struct stat sb;
	size_t got = 0;
	enum mdf_status st;
	int fd;

	/* O_NONBLOCK: a FIFO with no writer must not block the open; it is
	 * refused below, with every other file that is not a regular one. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return mdf_err_errno(err, MDF_ERR_IO, errno, "cannot open %s", path);
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0 ||
	    sb.st_size > SMALL_FILE_MAX) {
		close(fd);
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: not a %s file (a regular file of 1 byte to 1 MiB)",
				   path, what);
	}
	*buf = malloc((size_t)sb.st_size);
	if (!*buf) {
		close(fd);
		return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", path);
	}
	st = util_pread_full(fd, *buf, (size_t)sb.st_size, 0, &got, err);
	close(fd);
	if (st != MDF_OK)
		return mdf_err_push(err, "%s", path);
	*len = got;
	return MDF_OK;
}

/* -i FILE: its text, for kernel_open() to parse under the note's. */
static enum mdf_status read_vmcoreinfo_file(struct mdf_ctx *ctx)
{
	if (!ctx->opts.vmcoreinfo_file)
		return MDF_OK;
	return read_small_file(ctx->opts.vmcoreinfo_file, "VMCOREINFO", &ctx->ds.vi_text,
			       &ctx->ds.vi_len, &ctx->err);
}

/*
 * The eraseinfo the output carries: a refiltered dump's own first, then
 * what --config erases (resolved now that the kernel can be read).
 */
/* --config without -x: the kernel's symbols and types from the dump
 * itself (kallsyms since 6.0, BTF where CONFIG_DEBUG_INFO_BTF). */
/* The dump's kallsyms and BTF, read once: for --config without -x and
 * for the VMCOREINFO keys the note lacks.  A failure frees both. */
static enum mdf_status load_dump_btf(struct mdf_ctx *ctx)
{
	double t0 = pi_now();

	if (ctx->ds.btf_loaded)
		return MDF_OK;
	if (kallsyms_load(&ctx->ds.ksyms, &ctx->k.ki, &ctx->k.rm, &ctx->err) != MDF_OK ||
	    kbtf_load(&ctx->ds.btf, &ctx->ds.ksyms, &ctx->k.rm, &ctx->err) != MDF_OK) {
		kbtf_free(&ctx->ds.btf);
		kallsyms_free(&ctx->ds.ksyms);
		return ctx->err.status;
	}
	ctx->ds.btf_loaded = true;
	pi_debug(&ctx->pr, "%u symbols (kallsyms) and %zu bytes of BTF from the dump in %.3f s\n",
		 ctx->ds.ksyms.n, ctx->ds.btf.len, pi_now() - t0);
	return MDF_OK;
}

static enum mdf_status dump_types(struct mdf_ctx *ctx, struct erase_env *env)
{
	const char *vmcore = ctx->opts.vmcore;

	if (load_dump_btf(ctx) != MDF_OK)
		return mdf_err_push(&ctx->err, "%s: --config without -x VMLINUX takes the kernel's "
				    "symbols and types from the dump", vmcore);
	ctx->ds.dump_types = (struct erase_dump_types){ &ctx->ds.btf, &ctx->ds.ksyms };
	erase_types_from_dump(&ctx->ds.types, &ctx->ds.dump_types);
	env->types = &ctx->ds.types;
	env->dump = &ctx->ds.dump_types;
	return MDF_OK;
}

/* The kernel's symbols and types, for --extension and the task list:
 * -x's DWARF, else the dump's kallsyms and BTF (ctx->err says why not). */
static enum mdf_status kernel_types(struct mdf_ctx *ctx)
{
	if (ctx->ds.vmlinux) {
		erase_types_from_dwarf(&ctx->ds.kernel_types, ctx->ds.vmlinux);
		return MDF_OK;
	}
	if (load_dump_btf(ctx) != MDF_OK)
		return ctx->err.status;
	ctx->ds.dump_types = (struct erase_dump_types){ &ctx->ds.btf, &ctx->ds.ksyms };
	erase_types_from_dump(&ctx->ds.kernel_types, &ctx->ds.dump_types);
	return MDF_OK;
}

static void ext_say(void *arg, const char *ext, const char *text)
{
	struct mdf_ctx *ctx = arg;

	pi_msg(&ctx->pr, "%s: %s\n", ext, text);
}

/*
 * --extension: each one's init(), with the kernel's symbols and types
 * (-x's DWARF, else the dump's kallsyms and BTF); what they erase joins
 * --config's.  Without symbols and types the extensions are skipped, as
 * upstream does, and the dump goes on.
 */
static enum mdf_status ext_setup(struct mdf_ctx *ctx)
{
	struct ext_env env = {
		.kernel_offset = ctx->k.ki.kernel_offset.set ? ctx->k.ki.kernel_offset.v : 0,
		.rm = &ctx->k.rm, .es = &ctx->ds.erase, .page_size = (uint32_t)ctx->k.page_size,
		.page_struct_size = ctx->k.ki.size.page.set ? (uint32_t)ctx->k.ki.size.page.v : 0,
		.big_endian = ctx->k.ki.big_endian, .say = ext_say, .say_arg = ctx,
	};
	enum mdf_status st;

	if (!ctx->k.have_arch) {
		pi_warn(&ctx->pr, "%s: --extension needs address translation (%s): the "
			"extensions are skipped.\n", ctx->opts.vmcore, ctx->k.no_arch);
		ext_close(ctx->ds.ext);
		ctx->ds.ext = NULL;
		return MDF_OK;
	}
	if (kernel_types(ctx) != MDF_OK) {
		pi_warn(&ctx->pr, "%s: --extension needs the kernel's symbols and types, and the "
			"dump cannot give them: %s; -x VMLINUX can.  The extensions are skipped.\n",
			ctx->opts.vmcore, ctx->err.msg);
		mdf_err_clear(&ctx->err);
		ext_close(ctx->ds.ext);
		ctx->ds.ext = NULL;
		return MDF_OK;
	}
	env.types = &ctx->ds.kernel_types;
	st = ext_init(ctx->ds.ext, &env, &ctx->err);
	if (st != MDF_OK)
		return st;
	erase_sort(&ctx->ds.erase);
	ctx->ds.ext_hook = ext_has_page_hook(ctx->ds.ext);
	return MDF_OK;
}

/* The types the task list is read by (kernel_types()), for @what (an
 * option's name). */
static enum mdf_status task_types(struct mdf_ctx *ctx, const char *what)
{
	const char *vmcore = ctx->opts.vmcore;

	if (!ctx->k.have_arch)
		return mdf_err_set(&ctx->err, MDF_ERR_NOTSUPP,
				   "%s: %s walks page tables, which needs address translation: %s",
				   vmcore, what, ctx->k.no_arch);
	if (kernel_types(ctx) != MDF_OK)
		return mdf_err_push(&ctx->err, "%s: %s reads the task list with the kernel's types: "
				    "the dump's BTF, or -x VMLINUX", vmcore, what);
	return MDF_OK;
}

/* --keep-task: the processes chosen, and the pages their page tables map
 * (filter/keeptask.h), before any rule runs.  The task list is read with
 * -x's DWARF or the dump's BTF and kallsyms. */
static enum mdf_status keeptask_setup(struct mdf_ctx *ctx)
{
	const struct mdf_opts *o = &ctx->opts;
	struct keeptask *kt = &ctx->ds.kt;
	struct tasks_layout l;
	enum mdf_status st;
	double t0 = pi_now();

	if (!o->nkeep_tasks)
		return MDF_OK;
	st = task_types(ctx, "--keep-task");
	if (st != MDF_OK)
		return st;
	kt->specs = o->keep_specs;
	kt->nspecs = o->nkeep_tasks;
	st = tasks_layout(&l, &ctx->ds.kernel_types,
			  ctx->k.ki.kernel_offset.set ? ctx->k.ki.kernel_offset.v : 0, &ctx->err);
	for (unsigned i = 0; st == MDF_OK && i < kt->nspecs; i++)
		if (kt->specs[i].kind == MDF_KEEP_CGROUP && !l.has_cgroup)
			st = mdf_err_set(&ctx->err, MDF_ERR_NODATA,
					 "--keep-task %s: %s has no css_set.dfl_cgrp, cgroup.kn or "
					 "kernfs_node name and parent", kt->specs[i].text,
					 ctx->ds.kernel_types.what);
	if (st == MDF_OK)
		st = keeptask_build(kt, &l, &ctx->k.rm, &ctx->k.arch, &ctx->stop,
				    &ctx->err);
	if (st != MDF_OK)
		return mdf_err_push(&ctx->err, "%s", o->vmcore);
	if (kt->cgroup_unreadable)
		pi_warn(&ctx->pr, "%s: --keep-task: the cgroup of %llu tasks could not be read (%s): "
			"they are not chosen by cgroup.\n", o->vmcore,
			(unsigned long long)kt->cgroup_unreadable, kt->cgroup_err.msg);
	for (unsigned i = 0; i < kt->nspecs; i++)
		if (!kt->matched[i])
			pi_warn(&ctx->pr, "%s: --keep-task %s: no such process in the dump.\n",
				o->vmcore, kt->specs[i].text);
	add_phase(&ctx->report, "Walking the kept tasks' page tables", pi_now() - t0);
	ctx->report.keep_task = true;
	ctx->report.kept = kt->procs;
	ctx->report.nkept = kt->nprocs;
	ctx->report.kept_mapped = kt->kept.pages;
	return MDF_OK;
}

static enum mdf_status erase_setup(struct mdf_ctx *ctx)
{
	const struct mdf_opts *o = &ctx->opts;
	struct erase_config cfg;
	struct erase_env env = {
		.di = ctx->ds.vmlinux, .vmlinux = o->vmlinux, .ki = &ctx->k.ki, .rm = &ctx->k.rm,
		.kernel_offset = ctx->k.ki.kernel_offset.set ? ctx->k.ki.kernel_offset.v : 0,
		.vmcore = o->vmcore, .mem_bytes = ctx->k.max_pfn * ctx->k.page_size,
		.stop = &ctx->stop,
	};
	struct erase_set *es = &ctx->ds.erase;
	char *text = NULL, *old = NULL;
	size_t len = 0;
	enum mdf_status st = MDF_OK;

	memset(es, 0, sizeof(*es));
	if (o->config_file) {
		if (!ctx->k.have_arch)
			return mdf_err_set(&ctx->err, MDF_ERR_NOTSUPP,
					   "%s: --config needs address translation: %s",
					   o->vmcore, ctx->k.no_arch);
		st = read_small_file(o->config_file, "filter config", &text, &len, &ctx->err);
		if (st == MDF_OK) {
			st = erase_config_parse(text, len, &cfg, &ctx->err);
			if (st != MDF_OK)
				st = mdf_err_push(&ctx->err, "%s", o->config_file);
		}
		free(text);
		if (st != MDF_OK)
			return st;
		if (!env.di) {
			/* No -x: the dump's own kallsyms and BTF (issue 27) */
			st = dump_types(ctx, &env);
			if (st != MDF_OK) {
				erase_config_free(&cfg);
				return st;
			}
		}
		st = erase_resolve(&cfg, &env, es, &ctx->err);
		erase_config_free(&cfg);
		if (st != MDF_OK)
			return mdf_err_push(&ctx->err, "%s", o->config_file);
		if (es->modules_skipped)
			pi_warn(&ctx->pr, "%s: %u module section(s) skipped: %s.\n", o->config_file,
				es->modules_skipped, es->module_problem);
		if (es->unreadable || es->loop_cut)
			pi_warn(&ctx->pr, "%s: %llu bytes to erase are not in the dump; %llu "
				"loops stopped after a million elements.\n", o->config_file,
				(unsigned long long)es->unreadable,
				(unsigned long long)es->loop_cut);
	}
	if (ctx->ds.ext) {
		st = ext_setup(ctx);
		if (st != MDF_OK)
			return st;
	}
	if (ctx->is_kdump && ctx->kd->size_eraseinfo) {
		size_t n = (size_t)ctx->kd->size_eraseinfo, got = 0;
		char *mine = es->info;
		size_t mine_len = es->info_len;

		old = malloc(n);
		if (!old)
			return mdf_err_set(&ctx->err, MDF_ERR_NOMEM, "out of memory");
		st = util_pread_full(ctx->kd->fd, old, n, (off_t)ctx->kd->off_eraseinfo, &got,
				     &ctx->err);
		if (st == MDF_OK && got != n)
			st = mdf_err_set(&ctx->err, MDF_ERR_FORMAT, "%s: eraseinfo cut short",
					 o->vmcore);
		/* The input's lines first, then this run's. */
		es->info = NULL;
		es->info_len = es->info_cap = 0;
		if (st == MDF_OK)
			st = erase_add_info(es, old, n, &ctx->err);
		if (st == MDF_OK && mine_len)
			st = erase_add_info(es, mine, mine_len, &ctx->err);
		free(mine);
		free(old);
		if (st != MDF_OK)
			return st;
	}
	if (es->n) {
		ctx->ds.erase_page = malloc((size_t)ctx->k.page_size);
		if (!ctx->ds.erase_page)
			return mdf_err_set(&ctx->err, MDF_ERR_NOMEM, "out of memory");
	}
	return MDF_OK;
}

/* The input's writer marked it incomplete: say so before anything else. */
static void warn_incomplete_input(struct mdf_ctx *ctx)
{
	const struct mdf_opts *o = &ctx->opts;

	if (o->dump_dmesg)
		pi_warn(&ctx->pr, "%s: the dump is marked incomplete: the kernel log is written only if all of it is in the dump.\n",
			o->vmcore);
	else if (o->dry_run || o->mem_usage || o->explain)
		pi_warn(&ctx->pr, "%s: the dump is marked incomplete: the pages it lost are not counted.\n",
			o->vmcore);
	else
		pi_warn(&ctx->pr, "%s: the dump is marked incomplete: the pages it lost stay lost, and the dump written from it is marked incomplete too.\n",
			o->vmcore);
}

/* A kdump-compressed input (one file or a split set), opened as @kd:
 * what refiltering it takes. */
static enum mdf_status kdump_opened(struct mdf_ctx *ctx, const struct diskdump_info *kd,
				    bool incomplete)
{
	const struct mdf_opts *o = &ctx->opts;

	ctx->is_kdump = true;
	ctx->kd = kd;
	if (o->format == MDF_FMT_ELF && !o->dry_run)
		return mdf_err_set(&ctx->err, MDF_ERR_NOTSUPP,
				   "%s: -E from a kdump-compressed input is not supported",
				   o->vmcore);
	if (!kd->vmcoreinfo && needs_vmcoreinfo(o))
		return mdf_err_set(&ctx->err, MDF_ERR_FORMAT,
				   "%s: the dump has no VMCOREINFO", o->vmcore);
	if (incomplete)
		warn_incomplete_input(ctx);
	if (kd->stray_dumpable)
		pi_warn(&ctx->pr, "%s: bitmap1 marks %llu stored pages as holes; they are kept as present.\n",
			o->vmcore, (unsigned long long)kd->stray_dumpable);
	ctx->old_level = kd->dump_level > 0 ? (unsigned)kd->dump_level & 31 : 0;
	return MDF_OK;
}

/* A kdump-compressed input is filtered again (refiltering). */
static enum mdf_status open_kdump(struct mdf_ctx *ctx, const struct cache_config *cc)
{
	const struct mdf_opts *o = &ctx->opts;
	enum mdf_status st;

	ctx->in = &diskdump_input_ops;
	ctx->in_obj = &ctx->dd;
	st = cache_init(&ctx->cache, ctx->in_fd, o->vmcore, cc, &ctx->err);
	if (st == MDF_OK)
		st = diskdump_open(&ctx->dd, ctx->in_fd, o->vmcore, &ctx->cache, &ctx->err);
	if (st == MDF_OK)
		st = kdump_opened(ctx, &ctx->dd, ctx->dd.incomplete);
	return st;
}

/* Several input operands: the parts of a split set, read as one dump
 * (each part through a cache of its own, in the run's map budget). */
static enum mdf_status open_split(struct mdf_ctx *ctx, const struct cache_config *cc)
{
	const struct mdf_opts *o = &ctx->opts;
	enum mdf_status st;

	st = splitset_open(&ctx->ss, o->in_files, o->nin, cc, &ctx->err);
	if (st != MDF_OK) {
		if (ctx->ss.not_a_part) {
			char msg[MDF_ERR_MSG_MAX];

			mdf_err_keep(&ctx->err, msg, sizeof(msg));
			mdf_err_set(&ctx->err, st, "%s (%s)", msg,
				    o->flatten ? "with -F give only the VMCORE, the dump goes to standard "
						 "output; several operands are the parts of one split set" :
				    o->explain ? "several operands are the parts of one split set" :
				    "the operands before the last one are the parts of one split set");
		}
		return st;
	}
	ctx->in = &splitset_input_ops;
	ctx->in_obj = &ctx->ss;
	return kdump_opened(ctx, &ctx->ss.order[0]->di, ctx->ss.nincomplete > 0);
}

/* An ELF vmcore (/proc/vmcore, a file), or a /proc/kcore (kcore.h). */
static enum mdf_status open_elf(struct mdf_ctx *ctx, const struct cache_config *cc)
{
	const struct mdf_opts *o = &ctx->opts;
	bool kcore, proc_kcore, want_vi;
	enum mdf_status st;

	ctx->in = &elf_input_ops;
	ctx->in_obj = &ctx->elf;
	st = elf_info_open_flags(&ctx->elf, ctx->in_fd, o->vmcore,
				 ELF_INFO_VMCOREINFO_LATER, &ctx->err);
	if (st != MDF_OK)
		return st;
	kcore = kcore_detect(&ctx->elf, ctx->in_fd);
	proc_kcore = kcore && kcore_is_proc_kcore(ctx->in_fd);
	want_vi = !ctx->elf.vmcoreinfo && (o->mem_usage || needs_vmcoreinfo(o));
	if (want_vi && !o->mem_usage && !proc_kcore)
		return mdf_err_set(&ctx->err, MDF_ERR_FORMAT,
				   o->dump_dmesg ? "%s: %s: --dump-dmesg needs "
						   "-x VMLINUX or -i VMCOREINFO" :
				   "%s: %s: dump level %u needs -x VMLINUX "
				   "or -i VMCOREINFO", o->vmcore,
				   kcore ? ELF_INFO_NO_KCORE_VMCOREINFO : "no VMCOREINFO note",
				   opts_dump_level(o));
	if (kcore) {
		ctx->in = &kcore_input_ops;
		/* --mem-usage is meant for the running system: no word. */
		if (!o->mem_usage)
			pi_warn(&ctx->pr, "%s: the running system's memory changes while it is copied: the dump is not a consistent snapshot.\n",
				o->vmcore);
	} else if (ctx->elf.e_flags & ELF_INFO_EF_INCOMPLETE) {
		warn_incomplete_input(ctx);
	}
	st = cache_init(&ctx->cache, ctx->in_fd, o->vmcore, cc, &ctx->err);
	if (st == MDF_OK && want_vi)
		st = kcore_vmcoreinfo(ctx);
	return st;
}

/*
 * A sadump dump (sadump.h): a single partition, a media backup, or the
 * disks of a disk set (--diskset).  It has no VMCOREINFO: -x VMLINUX
 * finds its kernel (kernel/sadump_kernel.h), as upstream's.  Like
 * upstream, --num-threads is refused; -E, which upstream refuses too, is
 * written from the program headers kexec-tools would have made
 * (sadump_kernel_elf_view(), in learn_kernel()).  A RAM page the dump does not
 * store reads as zeros, and then zero pages are excluded at every level.
 */
static enum mdf_status open_sadump(struct mdf_ctx *ctx, const struct cache_config *cc)
{
	const struct mdf_opts *o = &ctx->opts;
	const char *one[1] = { o->vmcore };
	enum mdf_status st;

	ctx->in = &sadump_input_ops;
	ctx->in_obj = &ctx->sa;
	ctx->is_sadump = true;
	st = cache_init(&ctx->cache, ctx->in_fd, o->vmcore, cc, &ctx->err);
	if (st == MDF_OK)
		st = sadump_open(&ctx->sa, ctx->in_fd, &ctx->cache,
				 o->ndisks ? o->disks : one, o->ndisks ? o->ndisks : 1, cc,
				 &ctx->err);
	if (st != MDF_OK)
		return st;
	/* upstream's words (initial()); -E upstream refuses too, but an ELF
	 * view of the dump is made once the kernel is known (learn_kernel) */
	if (o->num_threads)
		return mdf_err_set(&ctx->err, MDF_ERR_NOTSUPP,
				   "'--num-threads' option is disabled, because %s is sadump %s format",
				   o->vmcore, sadump_kind_name(ctx->sa.kind));
	if (!o->vmlinux)
		return mdf_err_set(&ctx->err, MDF_ERR_FORMAT,
				   "%s: a sadump dump has no VMCOREINFO: -x VMLINUX (the crashed "
				   "kernel's debug vmlinux) is needed", o->vmcore);
	if (ctx->sa.stray_dumpable)
		pi_warn(&ctx->pr, "%s: the dumpable bitmap has %llu pages the RAM bitmap lacks; "
			"they are left out.\n", o->vmcore, (unsigned long long)ctx->sa.stray_dumpable);
	if (ctx->sa.zero_excluded)
		ctx->old_level |= DL_EXCLUDE_ZERO;
	return MDF_OK;
}

/* The input's ELF view (PT_LOADs), or NULL: not an ELF input. */
static const struct elf_info *input_elf(const struct mdf_ctx *ctx)
{
	return ctx->is_kdump || ctx->is_sadump ? NULL : &ctx->elf;
}

/* The input formats, by their first bytes, in upstream's order; the last
 * one takes the rest. */
static const struct {
	bool (*probe)(const unsigned char *head, size_t len);
	enum mdf_status (*open)(struct mdf_ctx *ctx, const struct cache_config *cc);
} input_formats[] = {
	{ diskdump_probe, open_kdump },
	{ sadump_probe, open_sadump },
	{ NULL, open_elf },
};

static enum mdf_status open_input(struct mdf_ctx *ctx)
{
	const struct mdf_opts *o = &ctx->opts;
	struct cache_config cc;
	unsigned char head[MDF_MAX(KDUMP_SIG_LEN, SADUMP_PROBE_LEN)];
	size_t got = 0, i;

	cache_budget_init(&ctx->map_budget, 0);
	input_cache_config(ctx, &cc);
	if (o->nin > 1)
		return open_split(ctx, &cc);
	if (files_open_input(o->vmcore, &ctx->in_fd, &ctx->err) != MDF_OK)
		return ctx->err.status;
	if (o->ndisks)
		return open_sadump(ctx, &cc);
	if (util_pread_full(ctx->in_fd, head, sizeof(head), 0, &got, &ctx->err) != MDF_OK)
		got = 0; /* the format's open says what is wrong */
	mdf_err_clear(&ctx->err);
	for (i = 0; i + 1 < ARRAY_SIZE(input_formats); i++)
		if (input_formats[i].probe(head, got))
			break;
	return input_formats[i].open(ctx, &cc);
}

/*
 * The VMCOREINFO keys dump level @level needs and the note lacks, from the
 * dump's own BTF and kallsyms (kernel/btf_kinfo.h), as -x gives them
 * from DWARF; read only when a rule could not run without them, so a
 * complete note costs nothing.  -x, where given, already filled them.  A
 * dump whose BTF is missing or damaged says so in a warning that names
 * -x, and the rules stay as they are (the report says which could not
 * run).
 */
/* Whether the rules of @level can be built from @ki, and the rules that
 * cannot run (a bit per rule) when they can. */
static bool rules_gaps(const struct kinfo *ki, unsigned level, unsigned *gaps)
{
	struct filter_rules *r = malloc(sizeof(*r));
	struct filter_warnings warn;
	struct mdf_err e;
	bool ok;

	if (!r)
		return false;
	mdf_err_clear(&e);
	ok = filter_rules_init(r, ki, level, ki->big_endian, &warn, &e) == MDF_OK;
	*gaps = ok ? r->gap_mask : ~0u;
	free(r);
	return ok;
}

/* The rules of @level could not be built (@ok0 false) or left the rules
 * @gaps0 unable to run: the keys that BTF and kallsyms give, kept when
 * they let a rule run.  True when ctx->k.ki changed. */
static bool fill_keys_from_btf(struct mdf_ctx *ctx, unsigned level, bool ok0, unsigned gaps0)
{
	struct kinfo *was;
	char names[2048];
	unsigned gaps1;
	bool ok1, kept;
	size_t n;

	if (ctx->ds.vmlinux || !ctx->k.have_arch || !kallsyms_available(&ctx->k.ki))
		return false;
	if (!kbtf_supported()) {
		/* a rule that cannot run is in the report; a dump that cannot
		 * be made is said here */
		(ok0 ? pi_debug : pi_warn)(&ctx->pr, "%s: VMCOREINFO lacks what dump level %u needs; the dump's BTF "
			"could give it, but this makedumpfile was built without libbpf; -x VMLINUX "
			"can.\n", ctx->opts.vmcore, level);
		return false;
	}
	if (load_dump_btf(ctx) != MDF_OK) {
		pi_warn(&ctx->pr, "%s: VMCOREINFO lacks what dump level %u needs, and the dump "
			"cannot give it: %s; -x VMLINUX can.\n", ctx->opts.vmcore, level, ctx->err.msg);
		mdf_err_clear(&ctx->err);
		return false;
	}
	was = malloc(sizeof(*was));
	if (!was)
		return false;
	*was = ctx->k.ki;
	n = btf_kinfo_fill(&ctx->k.ki, &ctx->ds.btf, &ctx->ds.ksyms, names, sizeof(names));
	ok1 = rules_gaps(&ctx->k.ki, level, &gaps1);
	/* Kept only when they let a rule run (a kernel built without
	 * CONFIG_MEMORY_FAILURE has no PG_hwpoison in BTF either). */
	kept = n && ok1 && (!ok0 || (gaps1 & ~gaps0) == 0) && gaps1 != gaps0;
	if (kept) {
		pi_msg(&ctx->pr, "%s: %zu VMCOREINFO key%s from the dump's BTF and kallsyms: %s\n",
		       ctx->opts.vmcore, n, n == 1 ? "" : "s", names);
	} else {
		ctx->k.ki = *was;
		pi_debug(&ctx->pr, "%s: the dump's BTF and kallsyms give no key that dump level %u "
			 "lacks\n", ctx->opts.vmcore, level);
	}
	free(was);
	return kept;
}

/* The filter rules of dump level @level, built once per level. */
static enum mdf_status set_rules(struct mdf_ctx *ctx, unsigned level)
{
	enum mdf_status st;

	if (ctx->ds.rules_valid && ctx->ds.rules.dump_level == level)
		return MDF_OK;
	ctx->ds.built_valid = false; /* new rules: every cycle is built anew */
	ctx->ds.rules_valid = false;
	st = filter_rules_init(&ctx->ds.rules, &ctx->k.ki, level,
			       ctx->k.ki.big_endian, &ctx->ds.fwarn, &ctx->err);
	/* a rule that cannot run, or a key without which none can: built
	 * again when the dump's BTF gives keys, or to say the first error
	 * again after the BTF attempt */
	if ((st != MDF_OK || ctx->ds.rules.gap_mask) &&
	    (fill_keys_from_btf(ctx, level, st == MDF_OK, st == MDF_OK ? ctx->ds.rules.gap_mask : ~0u) ||
	     st != MDF_OK)) {
		mdf_err_clear(&ctx->err);
		st = filter_rules_init(&ctx->ds.rules, &ctx->k.ki, level,
				       ctx->k.ki.big_endian, &ctx->ds.fwarn, &ctx->err);
	}
	if (st != MDF_OK)
		return mdf_err_push(&ctx->err, "%s", ctx->opts.vmcore);
	if (ctx->ds.use_freelist)
		filter_rules_drop_gap(&ctx->ds.rules, PR_FREE);
	if (ctx->ds.kt.kept.n && ctx->ds.rules.scan)
		ctx->ds.rules.keep = (struct filter_keep){ keeptask_has, &ctx->ds.kt };
	if (ctx->ds.ext_hook) {
		/* --extension's page(): every struct page is read, at any level
		 * (as upstream) */
		if (!ctx->ds.rules.page_struct_size)
			return mdf_err_set(&ctx->err, MDF_ERR_NOTSUPP,
					   "%s: --extension %s: its page() needs struct pages, but "
					   "VMCOREINFO has no SIZE(page) or OFFSET(page.flags)",
					   ctx->opts.vmcore, ext_name(ctx->ds.ext, 0));
		ctx->ds.rules.hook = (struct filter_page_hook){ ext_page, ctx->ds.ext };
		ctx->ds.rules.scan = true;
	}
	ctx->ds.rules_valid = true;
	return MDF_OK;
}

/* --vtop VADDR: its translation, before the dump, as upstream (a failed
 * one is said and the dump goes on). */
static void print_vtop(struct mdf_ctx *ctx)
{
	struct mdf_err e;
	uint64_t pa = 0;
	enum mdf_status st;

	mdf_err_clear(&e);
	st = ctx->k.have_arch ?
		readmem_vtop(&ctx->k.rm, ctx->opts.vtop, &pa, NULL, &e) :
		mdf_err_set(&e, MDF_ERR_NOTSUPP, "no address translation: %s", ctx->k.no_arch);
	pi_vtop(&ctx->pr, ctx->opts.vtop, pa, st == MDF_OK ? NULL : e.msg);
}

static enum mdf_status learn_kernel(struct mdf_ctx *ctx)
{
	struct sadump_kernel_loc loc;
	enum mdf_status st;
	unsigned dl = opts_dump_level(&ctx->opts) | ctx->old_level;
	struct kernel_input in = {
		.name = ctx->opts.vmcore, .ops = ctx->in, .obj = ctx->in_obj,
		.elf = input_elf(ctx), .cache = &ctx->cache,
		.extra_name = ctx->opts.vmcoreinfo_file,
		.need_arch = (dl & ~DL_EXCLUDE_ZERO) != 0,
	};

	st = read_vmcoreinfo_file(ctx);
	if (st != MDF_OK)
		return st;
	in.extra_vmcoreinfo = ctx->ds.vi_text;
	in.extra_len = ctx->ds.vi_len;
	if (ctx->opts.vmlinux) {
		st = dwarf_info_open(ctx->opts.vmlinux, &ctx->ds.vmlinux, &ctx->err);
		if (st != MDF_OK)
			return st;
		in.vmlinux = ctx->ds.vmlinux;
		in.vmlinux_name = ctx->opts.vmlinux;
	}
	if (ctx->is_sadump) {
		st = sadump_kernel_locate(&ctx->sa, &ctx->cache, ctx->ds.vmlinux, &loc, &ctx->err);
		if (st != MDF_OK)
			return st;
		pi_debug(&ctx->pr, "sadump: %s: phys_base 0x%llx, KASLR offset 0x%llx (%s)\n",
			 sadump_kind_name(ctx->sa.kind), (unsigned long long)loc.phys_base,
			 (unsigned long long)loc.kernel_offset, loc.how);
		in.located = true;
		in.kernel_offset = loc.kernel_offset;
		in.phys_base = loc.phys_base;
	}
	st = kernel_open(&ctx->k, &in, &ctx->err);
	if (st != MDF_OK)
		return st;
	if (ctx->is_sadump && ctx->k.have_arch) {
		char missing[96];

		st = sadump_kernel_notes(&ctx->sa, &ctx->cache, ctx->ds.vmlinux, ctx->opts.vmlinux,
					 &ctx->k, &loc, missing, sizeof(missing), &ctx->err);
		if (st != MDF_OK)
			return st;
		if (missing[0] && !ctx->opts.dump_dmesg)
			pi_warn(&ctx->pr, "%s: %s lacks %s: the dump gets no notes (no cpu registers, "
				"no VMCOREINFO), as upstream's.\n", ctx->opts.vmcore, ctx->opts.vmlinux,
				missing);
		if (ctx->opts.format == MDF_FMT_ELF) {
			st = sadump_kernel_elf_view(&ctx->sa, ctx->ds.vmlinux, &ctx->k, &loc,
						    &ctx->elf, &ctx->err);
			if (st != MDF_OK)
				return st;
		}
	}
	{
		struct input_facts facts;

		ctx->in->facts(ctx->in_obj, &facts);
		pi_vmcoreinfo(&ctx->pr, facts.vmcoreinfo, facts.vmcoreinfo_len);
	}
	if (ctx->k.ki.ignored_key[0] && !ctx->opts.dump_dmesg)
		pi_warn(&ctx->pr, "%s: %s; filtering does not use it.\n",
			ctx->opts.vmcore, ctx->k.ki.ignored_msg);
	if (!ctx->k.have_arch)
		pi_debug(&ctx->pr, "no address translation: %s\n", ctx->k.no_arch);

	st = set_rules(ctx, dl);
	if (st != MDF_OK)
		return st;
	if (ctx->ds.rules.scan) {
		st = kernel_find_memmap(&ctx->k, &ctx->err);
		if (st != MDF_OK && ctx->ds.rules.needs_memmap)
			return mdf_err_push(&ctx->err, "%s: dump level %u",
					    ctx->opts.vmcore, dl);
		if (st != MDF_OK) {
			/* Only hwpoison/offline pages were to be found: keep them. */
			pi_debug(&ctx->pr, "no struct pages: %s\n", ctx->err.msg);
			mdf_err_clear(&ctx->err);
			for (unsigned i = 0; i < PR_COUNT; i++)
				filter_rules_drop_gap(&ctx->ds.rules, (enum page_rule)i);
		}
	}
	if (ctx->ds.fwarn.no_layout[0])
		pi_warn(&ctx->pr, "%s: %s: hwpoison and offline pages are kept.\n",
			ctx->opts.vmcore, ctx->ds.fwarn.no_layout);
	if (ctx->ds.fwarn.unknown_kernel)
		pi_warn(&ctx->pr, "The kernel version is not supported.\n"
			"Pages that cannot be classified are kept.\n");
	if (ctx->ds.fwarn.no_free_detection) {
		/* No buddy marker in struct page (before 2.6.17, or VMCOREINFO
		 * without it): walk the kernel's free lists instead.  A broken
		 * list only costs the free-page exclusion. */
		struct mdf_err fe;
		double t0 = pi_now();

		mdf_err_clear(&fe);
		st = freelist_collect(&ctx->k.ki, &ctx->k.rm, &ctx->k.mm, 0, ctx->k.max_pfn,
				      &ctx->ds.freelist, &fe);
		if (st == MDF_ERR_NOMEM) {
			ctx->err = fe;
			return st;
		}
		/* Lists that hold no zone found nothing: a kernel has one. */
		if (st == MDF_OK && !ctx->ds.freelist.zones) {
			st = mdf_err_set(&fe, MDF_ERR_FORMAT, "free lists: no zone in %u nodes",
					 ctx->ds.freelist.nodes);
			freelist_result_release(&ctx->ds.freelist);
		}
		if (st == MDF_OK) {
			ctx->ds.use_freelist = true;
			filter_rules_drop_gap(&ctx->ds.rules, PR_FREE);
			pi_debug(&ctx->pr, "free lists: %llu blocks, %llu pages in %u nodes, %u zones\n",
				 (unsigned long long)ctx->ds.freelist.blocks,
				 (unsigned long long)ctx->ds.freelist.free.pages,
				 ctx->ds.freelist.nodes, ctx->ds.freelist.zones);
		} else {
			pi_warn(&ctx->pr, "%s: free pages are kept: %s\n", ctx->opts.vmcore, fe.msg);
		}
		add_phase(&ctx->report, "Excluding free pages", pi_now() - t0);
	}
	pi_debug(&ctx->pr, "kernel %s: page_size %llu, max_mapnr 0x%llx, memory model %s\n",
		 ctx->k.ki.osrelease, (unsigned long long)ctx->k.page_size,
		 (unsigned long long)ctx->k.max_pfn,
		 memmap_model_name(ctx->k.mm.model));
	return MDF_OK;
}

/*
 * The struct page scan threads (scan.h), once per run: with
 * --num-threads 2 or more (one thread would only scan a cycle the way the
 * main thread does), on an ELF input (the kdump-compressed reader's
 * decompression slots are not thread-safe) with struct pages to scan and
 * cycles of at least SCAN_ALIGN_PFNS pfns (smaller ones rarely split).
 */
static enum mdf_status scan_setup(struct mdf_ctx *ctx)
{
	struct cache_config cc;
	struct scan_config sc;
	enum mdf_status st;

	if (ctx->opts.num_threads < 2 || ctx->is_kdump || !ctx->ds.rules.scan ||
	    ctx->k.mm.model == MEMMAP_NONE || ctx->k.max_pfn <= SCAN_ALIGN_PFNS ||
	    ctx->ds.cycle_pfns < SCAN_ALIGN_PFNS)
		return MDF_OK;
	input_cache_config(ctx, &cc);
	/* The threads' windows together fit the budget. */
	cc.window_max = ctx->map_budget.limit / ctx->opts.num_threads;
	memset(&sc, 0, sizeof(sc));
	sc.nthreads = ctx->opts.num_threads;
	sc.fd = ctx->in_fd;
	sc.name = ctx->opts.vmcore;
	sc.cache = &cc;
	sc.elf = &ctx->elf;
	sc.ops = ctx->in;
	sc.arch = ctx->k.have_arch ? &ctx->k.arch : NULL;
	sc.page_size = ctx->k.page_size;
	sc.page_struct_size = ctx->ds.rules.page_struct_size;
	st = scan_pool_create(&ctx->ds.scan, &sc, &ctx->err);
	if (st != MDF_OK)
		return mdf_err_push(&ctx->err, "%s", ctx->opts.vmcore);
	return MDF_OK;
}

/* The input opened, no output any of its names, and the kernel learnt:
 * what a dump and -g from BTF read first (--explain writes nothing, and
 * names what it read when the kernel cannot be learnt). */
static enum mdf_status open_and_learn(struct mdf_ctx *ctx)
{
	enum mdf_status st;

	ctx->ds.dbg_fd1 = ctx->ds.dbg_fd2 = -1;
	st = open_input(ctx);
	if (st == MDF_OK)
		st = check_outputs(ctx);
	if (st == MDF_OK)
		st = learn_kernel(ctx);
	return st;
}

enum mdf_status dump_open(struct mdf_ctx *ctx)
{
	enum mdf_status st;
	uint64_t budget;
	double t0 = pi_now();

	ctx->in_fd = -1;
	ctx->ds.dbg_fd1 = ctx->ds.dbg_fd2 = -1;
	/* A codec this build lacks is refused before anything is opened. */
	if (!ctx->opts.dry_run && ctx->opts.format == MDF_FMT_KDUMP &&
	    !compress_available(ctx->opts.codec)) {
		struct compressor probe;

		return compressor_init(&probe, ctx->opts.codec, &ctx->err);
	}
	/* extensions load before anything is read: a missing one is said
	 * at once */
	if (ctx->opts.nextensions) {
		st = ext_open(&ctx->ds.ext, ctx->opts.extensions, ctx->opts.nextensions,
			      MDF_EXTDIR, &ctx->err);
		if (st != MDF_OK)
			return st;
	}
	st = open_and_learn(ctx);
	if (st != MDF_OK)
		return st;
	if (ctx->opts.vtop)
		print_vtop(ctx);
	st = erase_setup(ctx);
	if (st == MDF_OK)
		st = keeptask_setup(ctx);
	if (st != MDF_OK)
		return st;
	if (ctx->ds.ext_hook || ctx->ds.kt.kept.n) {
		unsigned dl = ctx->ds.rules.dump_level;

		ctx->ds.rules_valid = false;
		st = set_rules(ctx, dl);
		if (st == MDF_OK && ctx->k.mm.model == MEMMAP_NONE)
			st = kernel_find_memmap(&ctx->k, &ctx->err);
		if (st != MDF_OK)
			return mdf_err_push(&ctx->err, "%s: %s", ctx->opts.vmcore,
					    ctx->ds.ext_hook ? "--extension" : "--keep-task");
	}

	if (ctx->opts.cyclic_buffer_kib) {
		budget = ctx->opts.cyclic_buffer_kib << 10;
	} else {
		budget = mem_free_bytes() / 10 * 6;
		if (budget == 0 || budget > DEFAULT_CYCLE_BUDGET_MAX)
			budget = DEFAULT_CYCLE_BUDGET_MAX;
	}
	ctx->ds.cycle_pfns = bitmap_cycle_pfns(budget, 2, ctx->k.max_pfn);
	/* -e looks for runs in upstream's blocks of bitmap: cycles hold whole
	 * blocks (vmemmap.h) */
	if (ctx->opts.exclude_vmemmap && ctx->ds.cycle_pfns > VMEMMAP_BLOCK_PFNS)
		ctx->ds.cycle_pfns -= ctx->ds.cycle_pfns % VMEMMAP_BLOCK_PFNS;
	else if (ctx->opts.exclude_vmemmap)
		ctx->ds.cycle_pfns = VMEMMAP_BLOCK_PFNS;
	st = bitmap_init(&ctx->ds.present, ctx->ds.cycle_pfns, &ctx->err);
	if (st == MDF_OK)
		st = bitmap_init(&ctx->ds.dumpable, ctx->ds.cycle_pfns, &ctx->err);
	if (st != MDF_OK)
		return st;
	/* A page, or a batch of struct pages (SIZE(page) is checked). */
	ctx->ds.scratch = malloc((size_t)MDF_MAX(FILTER_BATCH * ctx->ds.rules.page_struct_size,
					      ctx->k.page_size));
	if (!ctx->ds.scratch)
		return mdf_err_set(&ctx->err, MDF_ERR_NOMEM, "out of memory");
	st = scan_setup(ctx);
	if (st != MDF_OK)
		return st;
	ctx->report.page_size = ctx->k.page_size;
	ctx->report.pages.total = ctx->k.max_pfn;
	add_phase(&ctx->report, "Reading headers", pi_now() - t0);
	return MDF_OK;
}

/* bitmap1 of the current cycle, and bitmap2's start: what the input holds
 * (input.h: its format decides). */
static void fill_cycle_bitmaps(struct mdf_ctx *ctx, uint64_t start, uint64_t end)
{
	bitmap_reset(&ctx->ds.present, start, end);
	ctx->in->cycle_bitmaps(ctx->in_obj, ctx->k.page_size, &ctx->ds.present,
			       &ctx->ds.dumpable);
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
	*fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC |
		   (ctx->opts.force ? O_TRUNC : O_EXCL), 0600);
	if (*fd < 0)
		return mdf_err_errno(&ctx->err, MDF_ERR_IO, errno,
				     "cannot create %s", path);
	return MDF_OK;
}

static enum mdf_status close_debug_file(struct mdf_ctx *ctx, const char *path,
					int fd)
{
	/* The size a kdump-compressed file gives one bitmap. */
	uint64_t size = align_up(div_round_up(ctx->k.max_pfn, 8), ctx->k.page_size);

	if (fd < 0)
		return MDF_OK;
	if (ftruncate(fd, (off_t)size) != 0 || close(fd) != 0)
		return mdf_err_errno(&ctx->err, MDF_ERR_IO, errno, "%s", path);
	return MDF_OK;
}

/* Count zero pages among the dumpable ones of this cycle; with @drop,
 * also clear them (ELF output has no shared zero page). */
static enum mdf_status zero_pages(struct mdf_ctx *ctx, bool drop,
				  uint64_t *zero)
{
	struct bitmap *d = &ctx->ds.dumpable;
	uint64_t pfn;

	for (pfn = bitmap_next_set(d, d->start_pfn); pfn < d->end_pfn;
	     pfn = bitmap_next_set(d, pfn + 1)) {
		const unsigned char *p;
		enum mdf_status st;

		st = readmem_page(&ctx->k.rm, pfn, ctx->ds.scratch, &p, &ctx->err);
		if (st != MDF_OK)
			return mdf_err_about(&ctx->err, ctx->opts.vmcore);
		if (util_is_zero(p, (size_t)ctx->k.page_size)) {
			(*zero)++;
			if (drop)
				bitmap_clear(d, pfn);
		}
	}
	return MDF_OK;
}

/* Bitmaps of [start, end) as they are before the struct page scan. */
static void prepare_cycle(struct mdf_ctx *ctx, uint64_t start, uint64_t end,
			  struct filter_counts *counts)
{
	fill_cycle_bitmaps(ctx, start, end);
	/* The free lists were walked for the first level of a -d list; a
	 * retry at a level without 16 keeps free pages. */
	if (ctx->ds.use_freelist && (ctx->ds.rules.dump_level & DL_EXCLUDE_FREE))
		counts->cls[PC_FREE] += freelist_apply(&ctx->ds.freelist, &ctx->ds.dumpable);
}

/*
 * The struct page scan of the prepared cycle: by the scan threads when
 * the cycle splits (scan.h), else (or when an exclusion crossed a part,
 * which only garbage struct pages make) serially here; either way the
 * same bits, counts and carry.  @count: first build of this cycle.
 */
static enum mdf_status scan_cycle_pages(struct mdf_ctx *ctx, uint64_t start,
					uint64_t end, bool count,
					struct filter_counts *counts)
{
	enum scan_result res = SCAN_NOT_SPLIT;
	unsigned parts = 1;
	enum mdf_status st;

	if (ctx->ds.scan && ctx->ds.rules.scan && ctx->k.mm.model != MEMMAP_NONE) {
		/* The threads map windows of their own from the shared
		 * budget: give back what this thread holds. */
		cache_trim(&ctx->cache);
		st = scan_cycle(ctx->ds.scan, &ctx->ds.rules, &ctx->k.mm, &ctx->ds.present,
				&ctx->ds.dumpable, &ctx->ds.carry, counts, &res, &parts,
				&ctx->err);
		if (st != MDF_OK)
			return st;
		if (count && res != SCAN_NOT_SPLIT)
			pi_debug(&ctx->pr, "scan: pfn 0x%llx-0x%llx in %u parts%s\n",
				 (unsigned long long)start, (unsigned long long)end, parts,
				 res == SCAN_REDO ? ": an exclusion crossed a part, "
				 "scanned again serially" : "");
		if (res == SCAN_DONE)
			return MDF_OK;
		if (res == SCAN_REDO) {
			memset(counts, 0, sizeof(*counts));
			prepare_cycle(ctx, start, end, counts);
		}
	}
	return filter_cycle(&ctx->ds.rules, &ctx->k.mm, &ctx->k.rm, &ctx->ds.present,
			    &ctx->ds.dumpable, ctx->ds.scratch, &ctx->ds.carry, counts,
			    &ctx->err);
}

/*
 * Build bitmap1 and bitmap2 of the cycle that starts at @start.  Page
 * counts go into the report the first time a cycle is built; writers that
 * make two passes rebuild the same cycles without counting them again.
 */
static enum mdf_status build_cycle(struct mdf_ctx *ctx, uint64_t start,
				   bool drop_zero, uint64_t *zero)
{
	struct mdf_page_counts *pc = &ctx->report.pages;
	struct filter_counts counts = { 0 };
	uint64_t end = start + ctx->ds.cycle_pfns;
	bool count = start >= ctx->ds.counted_upto;
	double t0 = pi_now(), t1;
	uint64_t z = 0;
	enum mdf_status st;

	if (end > ctx->k.max_pfn)
		end = ctx->k.max_pfn;
	if (!count && ctx->ds.built_valid && ctx->ds.built_start == start &&
	    ctx->ds.built_drop_zero == drop_zero) {
		/* The bitmaps are this cycle's already (and the carry is the
		 * one the next cycle needs). */
		if (zero)
			*zero = ctx->ds.built_zero;
		return MDF_OK;
	}
	ctx->ds.built_valid = false;
	if (start == 0)
		memset(&ctx->ds.carry, 0, sizeof(ctx->ds.carry));
	prepare_cycle(ctx, start, end, &counts);
	st = scan_cycle_pages(ctx, start, end, count, &counts);
	if (st != MDF_OK)
		return mdf_err_push(&ctx->err, "%s", ctx->opts.vmcore);
	if (ctx->ds.vm_ready) {
		uint64_t dropped = vmemmap_drop_apply(&ctx->ds.vm, &ctx->ds.dumpable);

		/* the first pass counted these cycles without the drops */
		if (start >= ctx->ds.vm_applied_upto) {
			ctx->report.pages.vmemmap += dropped;
			if (!count)
				ctx->report.pages.dumpable -= dropped;
			ctx->ds.vm_applied_upto = end;
		}
	}
	t1 = pi_now();
	if (drop_zero) {
		st = zero_pages(ctx, true, &z);
		if (st != MDF_OK)
			return st;
	}
	if (zero)
		*zero = z;
	ctx->ds.built_valid = true;
	ctx->ds.built_start = start;
	ctx->ds.built_drop_zero = drop_zero;
	ctx->ds.built_zero = z;
	if (!count)
		return MDF_OK;
	ctx->ds.counted_upto = end;
	if (ctx->ds.dbg_fd1 >= 0) {
		st = write_debug_bitmap(ctx, ctx->ds.dbg_fd1, ctx->opts.debug_bitmap1,
					&ctx->ds.present);
		if (st != MDF_OK)
			return st;
	}
	if (ctx->ds.dbg_fd2 >= 0) {
		st = write_debug_bitmap(ctx, ctx->ds.dbg_fd2, ctx->opts.debug_bitmap,
					&ctx->ds.dumpable);
		if (st != MDF_OK)
			return st;
	}
	pc->present += bitmap_count(&ctx->ds.present, start, end);
	for (unsigned c = PC_TAIL + 1; c < PC_COUNT; c++)
		pc->excluded[c] += counts.cls[c];
	for (unsigned i = 0; i < PR_COUNT; i++)
		pc->kept[i] += counts.kept[i];
	pc->keep_task += counts.keep_task;
	pc->dumpable += bitmap_count(&ctx->ds.dumpable, start, end);
	if (drop_zero)
		pc->zero += z;
	ctx->ds.unreadable += counts.unreadable;
	ctx->ds.no_memmap += counts.no_memmap;
	ctx->ds.t_scan += t1 - t0;
	ctx->ds.t_zero += pi_now() - t1;
	pi_progress(&ctx->pr, "Excluding unnecessary pages", end, ctx->k.max_pfn,
		    pi_now());
	return MDF_OK;
}

/*
 * Free pages far beyond the kernel's own count of them (the zones'
 * NR_FREE_PAGES): a buddy marker that matches pages it should not.  The
 * counters lag by the per-cpu deltas (at most 125 pages per cpu and zone)
 * and leave out the per-cpu lists, which the marker does not flag either:
 * twice the count and that drift is never reached by a real dump.  Said
 * only when the counters can be read and the whole dump was scanned.
 */
static void check_free_count(struct mdf_ctx *ctx)
{
	uint64_t excluded = ctx->report.pages.excluded[PC_FREE], slack;
	struct freelist_result fc;
	struct input_facts f;
	struct mdf_err e;

	if (!ctx->ds.rules_valid || !(ctx->ds.rules.dump_level & DL_EXCLUDE_FREE) ||
	    ctx->ds.counted_upto < ctx->k.max_pfn || !ctx->k.have_arch)
		return;
	mdf_err_clear(&e);
	if (freelist_count_free(&ctx->k.ki, &ctx->k.rm, ctx->k.max_pfn, &fc, &e) != MDF_OK) {
		pi_debug(&ctx->pr, "%s\n", e.msg);
		return;
	}
	ctx->in->facts(ctx->in_obj, &f);
	slack = 1024 + (uint64_t)fc.zones * (f.nr_cpus > 0 ? (uint64_t)f.nr_cpus : 1) * 128;
	pi_debug(&ctx->pr, "free page counters: %llu pages in %u zones; the scan's free pages: %llu\n",
		 (unsigned long long)fc.counter_pages, fc.zones, (unsigned long long)excluded);
	if (excluded > 2 * fc.counter_pages + slack)
		pi_warn(&ctx->pr, "%s: %llu pages excluded as free, but the kernel's counters "
			"(zone vm_stat NR_FREE_PAGES) say %llu were free: is "
			"PAGE_BUDDY_MAPCOUNT_VALUE right?\n", ctx->opts.vmcore,
			(unsigned long long)excluded, (unsigned long long)fc.counter_pages);
}

static void finish_counts(struct mdf_ctx *ctx)
{
	struct mdf_page_counts *pc = &ctx->report.pages;

	pc->hole = pc->total - pc->present;
	pc->remaining = pc->present - pc->zero - pc->vmemmap;
	for (unsigned c = PC_TAIL + 1; c < PC_COUNT; c++)
		pc->remaining -= pc->excluded[c];
	add_phase(&ctx->report, "Excluding unnecessary pages", ctx->ds.t_scan);
	if (ctx->ds.t_zero > 0)
		add_phase(&ctx->report, "Checking for zero pages", ctx->ds.t_zero);
	/* After the scan, as upstream lists them (cycles interleave). */
	if (ctx->ds.t_copy > 0)
		add_phase(&ctx->report, "Copying data", ctx->ds.t_copy);
	if (ctx->ds.unreadable)
		pi_warn(&ctx->pr, "%s: %llu pages kept: their struct pages could not be read.\n",
			ctx->opts.vmcore, (unsigned long long)ctx->ds.unreadable);
	if (ctx->ds.no_memmap)
		pi_warn(&ctx->pr, "%s: %llu pages kept: no mem_section maps a struct page for them.\n",
			ctx->opts.vmcore, (unsigned long long)ctx->ds.no_memmap);
	check_free_count(ctx);
	if (ctx->ds.rules_valid)
		memcpy(ctx->report.gaps, ctx->ds.rules.gap, sizeof(ctx->report.gaps));
	ctx->report.cache = ctx->cache.stats;
	ctx->report.have_cache = true;
}

/* Open the --debug-bitmap files; build_cycle() fills them. */
static enum mdf_status debug_open(struct mdf_ctx *ctx)
{
	enum mdf_status st = open_debug_file(ctx, ctx->opts.debug_bitmap1,
					     &ctx->ds.dbg_fd1);

	if (st == MDF_OK)
		st = open_debug_file(ctx, ctx->opts.debug_bitmap, &ctx->ds.dbg_fd2);
	return st;
}

static enum mdf_status debug_close(struct mdf_ctx *ctx, enum mdf_status st)
{
	int fd1 = ctx->ds.dbg_fd1, fd2 = ctx->ds.dbg_fd2;

	ctx->ds.dbg_fd1 = ctx->ds.dbg_fd2 = -1;
	if (st == MDF_OK)
		st = close_debug_file(ctx, ctx->opts.debug_bitmap1, fd1);
	else if (fd1 >= 0)
		close(fd1);
	if (st == MDF_OK)
		st = close_debug_file(ctx, ctx->opts.debug_bitmap, fd2);
	else if (fd2 >= 0)
		close(fd2);
	return st;
}

enum mdf_status dump_dry_run(struct mdf_ctx *ctx)
{
	unsigned dl = opts_dump_level(&ctx->opts);
	enum mdf_status st;

	st = debug_open(ctx);
	for (uint64_t start = 0; st == MDF_OK && start < ctx->k.max_pfn;
	     start += ctx->ds.cycle_pfns) {
		st = check_stop(ctx, &ctx->err);
		if (st == MDF_OK)
			st = build_cycle(ctx, start, false, NULL);
		if (st != MDF_OK)
			break;
		if (dl & DL_EXCLUDE_ZERO) {
			double t0 = pi_now();

			st = zero_pages(ctx, false, &ctx->report.pages.zero);
			ctx->ds.t_zero += pi_now() - t0;
		}
	}
	st = debug_close(ctx, st);
	if (st != MDF_OK)
		return st;
	finish_counts(ctx);
	return MDF_OK;
}

/* ---- the dump source the writers read ---------------------------- */

static enum mdf_status src_cycle(void *arg, uint64_t start, bool drop_zero,
				 const struct bitmap **present,
				 const struct bitmap **dumpable,
				 struct mdf_err *err)
{
	struct mdf_ctx *ctx = arg;
	enum mdf_status st = check_stop(ctx, err);

	if (st == MDF_OK)
		st = build_cycle(ctx, start, drop_zero, NULL);
	(void)err; /* errors are in ctx->err, which is the same object */
	*present = &ctx->ds.present;
	*dumpable = &ctx->ds.dumpable;
	return st;
}

static enum mdf_status src_page_ref(void *arg, uint64_t pfn,
				    const unsigned char **data, void **ref,
				    struct mdf_err *err)
{
	struct mdf_ctx *ctx = arg;
	struct cache_entry *pin = NULL;
	enum mdf_status st;

	if (ref)
		*ref = NULL;
	st = check_stop(ctx, err);
	if (st != MDF_OK)
		return st;
	if (ref)
		st = readmem_page_ref(&ctx->k.rm, pfn, ctx->ds.scratch, data, &pin, err);
	else
		st = readmem_page(&ctx->k.rm, pfn, ctx->ds.scratch, data, err);
	if (ref)
		*ref = pin;
	if (st != MDF_OK)
		return mdf_err_about(err, ctx->opts.vmcore); /* unless named */
	/* --config: a page with erased bytes goes out as a patched copy. */
	if (ctx->ds.erase.n &&
	    erase_apply(&ctx->ds.erase, pfn * ctx->k.page_size, (size_t)ctx->k.page_size, *data,
			ctx->ds.erase_page)) {
		if (pin)
			readmem_page_unref(&ctx->k.rm, pfn, pin);
		if (ref)
			*ref = NULL;
		*data = ctx->ds.erase_page;
	}
	if ((++ctx->ds.copied & 4095) == 0)
		pi_progress(&ctx->pr, "Copying data", ctx->ds.copied,
			    ctx->ds.copy_total ? ctx->ds.copy_total : ctx->report.pages.dumpable,
			    pi_now());
	return MDF_OK;
}

static void src_expect_pages(void *arg, uint64_t pages)
{
	struct mdf_ctx *ctx = arg;

	ctx->ds.copy_total = pages;
}

static enum mdf_status src_page(void *arg, uint64_t pfn,
				const unsigned char **data, struct mdf_err *err)
{
	return src_page_ref(arg, pfn, data, NULL, err);
}

static void src_page_release(void *arg, uint64_t pfn, void *ref)
{
	struct mdf_ctx *ctx = arg;

	readmem_page_unref(&ctx->k.rm, pfn, ref);
}

/* The crashed kernel's utsname, for the kdump header. */
static void read_utsname(struct mdf_ctx *ctx, struct new_utsname *uts)
{
	struct mdf_err ignore;

	memset(uts, 0, sizeof(*uts));
	if (ctx->k.ki.sym.init_uts_ns.set && ctx->k.have_arch) {
		uint64_t va = ctx->k.ki.sym.init_uts_ns.v +
			      (ctx->k.ki.off.uts_namespace_name.set ?
			       ctx->k.ki.off.uts_namespace_name.v : 4);

		if (readmem_vaddr(&ctx->k.rm, va, uts, sizeof(*uts), &ignore) == MDF_OK)
			return;
		memset(uts, 0, sizeof(*uts));
	}
	/* Fall back to what VMCOREINFO says; without it, nothing (as
	 * upstream's header of such a dump). */
	if (!ctx->k.ki.osrelease[0])
		return;
	memcpy(uts->sysname, "Linux", 5);
	memcpy(uts->release, ctx->k.ki.osrelease,
	       strnlen(ctx->k.ki.osrelease, sizeof(uts->release) - 1));
	/* A 32-bit kernel's dump has ILP32 headers (diskdump.c), which
	 * readers tell by the machine: name it. */
	if (ctx->k.have_arch && ctx->k.arch.word_size == 4 && ctx->k.arch.ops)
		memcpy(uts->machine, ctx->k.arch.ops->uts_machine,
		       strnlen(ctx->k.arch.ops->uts_machine, NEW_UTS_LEN));
}

/* ERASEINFO: the note -E output carries eraseinfo in, after the input's
 * notes (name "ERASEINFO", type 0, the text as its descriptor). */
#define ERASEINFO_NOTE_NAME "ERASEINFO"

static enum mdf_status elf_notes_with_eraseinfo(struct mdf_ctx *ctx, unsigned char **ret,
						size_t *len_ret)
{
	const struct erase_set *es = &ctx->ds.erase;
	size_t name_len = sizeof(ERASEINFO_NOTE_NAME);
	size_t base = ctx->elf.notes_len, len;
	unsigned char *p;
	uint32_t nh[3];

	*ret = NULL;
	if (!es->info_len)
		return MDF_OK;
	len = base + sizeof(nh) + (size_t)align_up(name_len, 4) + (size_t)align_up(es->info_len, 4);
	p = calloc(1, len);
	if (!p)
		return mdf_err_set(&ctx->err, MDF_ERR_NOMEM, "out of memory");
	if (base)
		memcpy(p, ctx->elf.notes, base);
	nh[0] = (uint32_t)name_len;
	nh[1] = (uint32_t)es->info_len;
	nh[2] = 0;
	for (int i = 0; i < 3; i++) { /* in the dump's byte order */
		if (ctx->k.ki.big_endian)
			store_be32(p + base + 4 * i, nh[i]);
		else
			store_le32(p + base + 4 * i, nh[i]);
	}
	memcpy(p + base + sizeof(nh), ERASEINFO_NOTE_NAME, name_len);
	memcpy(p + base + sizeof(nh) + align_up(name_len, 4), es->info, es->info_len);
	*ret = p;
	*len_ret = len;
	return MDF_OK;
}

/*
 * -e: a first pass over every cycle finds the runs of excluded memory
 * and the vmemmap pages that hold only their struct pages (vmemmap.h);
 * the writer's builds then drop them.  The bitmaps it looks at are the
 * ones upstream looks at: a kdump-compressed dump's zero pages are found
 * while copying, after it; an ELF dump's before it.
 */
static enum mdf_status vmemmap_pass(struct mdf_ctx *ctx, bool drop_zero)
{
	struct arch_vmemmap_group *g = NULL;
	uint64_t vstart = ctx->k.arch.vmemmap_base;
	bool present = false;
	size_t ng = 0;
	enum mdf_status st;
	double t0 = pi_now();

	vmemmap_drop_release(&ctx->ds.vm);
	ctx->ds.vm_ready = false;
	if (!ctx->k.have_arch || ctx->k.mm.model == MEMMAP_NONE)
		return mdf_err_set(&ctx->err, MDF_ERR_NODATA,
				   "%s: -e needs the struct page array (VMCOREINFO's mem_section)",
				   ctx->opts.vmcore);
	/* where the struct page of pfn 0 is, as upstream takes it: section
	 * 0's mem_map, else the default base */
	if (memmap_page_vaddr(&ctx->k.mm, &ctx->k.rm, 0, &vstart, &present, &ctx->err) != MDF_OK ||
	    !present) {
		mdf_err_clear(&ctx->err);
		vstart = ctx->k.arch.vmemmap_base;
	}
	st = arch_vmemmap_groups(&ctx->k.arch, vstart, ctx->k.max_pfn, ctx->k.mm.page_struct_size,
				 readmem_read_pte, &ctx->k.rm, &g, &ng, &ctx->err);
	if (st != MDF_OK)
		return mdf_err_push(&ctx->err, "%s", ctx->opts.vmcore);
	pi_debug(&ctx->pr, "-e: the vmemmap at 0x%llx in %zu runs of 2 MiB pages\n",
		 (unsigned long long)vstart, ng);
	vmemmap_drop_init(&ctx->ds.vm, g, ng, ctx->k.mm.page_struct_size, ctx->k.page_size);
	for (uint64_t start = 0; start < ctx->k.max_pfn; start += ctx->ds.cycle_pfns) {
		st = check_stop(ctx, &ctx->err);
		if (st == MDF_OK)
			st = build_cycle(ctx, start, drop_zero, NULL);
		if (st == MDF_OK)
			st = vmemmap_drop_find(&ctx->ds.vm, &ctx->ds.present, &ctx->ds.dumpable,
					       &ctx->err);
		if (st != MDF_OK)
			return st;
	}
	vmemmap_drop_finish(&ctx->ds.vm);
	ctx->ds.vm_ready = true;
	ctx->ds.vm_applied_upto = 0;
	ctx->ds.built_valid = false;
	pi_vmemmap(&ctx->pr, ctx->ds.vm.pages);
	add_phase(&ctx->report, "Excluding unused vmemmap pages", pi_now() - t0);
	return MDF_OK;
}

/* One try at @level into @out; *@pages: the pages it wrote. */
static enum mdf_status write_once(struct mdf_ctx *ctx, unsigned level,
				  struct out_sink *out, uint64_t *pages)
{
	const struct mdf_opts *o = &ctx->opts;
	struct dump_source src = {
		.arg = ctx, .page_size = ctx->k.page_size, .max_pfn = ctx->k.max_pfn,
		.cycle_pfns = ctx->ds.cycle_pfns, .cycle = src_cycle, .page = src_page,
		.page_ref = src_page_ref, .page_release = src_page_release,
		.expect_pages = src_expect_pages,
	};
	size_t bufsize = (size_t)ctx->k.page_size << o->block_order;
	size_t min_buf = o->flatten ? OUT_PIPE_BUF : OUT_FILE_BUF;
	struct kdump_write_params kp;
	struct input_facts facts;
	struct kdump_write_stats ks = { 0 };
	struct compressor comp = { 0 };
	enum mdf_status st;
	double t0;

	if (bufsize < min_buf)
		bufsize = min_buf;
	/* Refiltering keeps what the input already dropped. */
	level |= ctx->old_level;
	st = set_rules(ctx, level);
	if (st != MDF_OK)
		return st;
	ctx->ds.built_valid = false; /* every cycle is built anew */
	if (o->exclude_vmemmap) {
		st = vmemmap_pass(ctx, o->format == MDF_FMT_ELF && (level & DL_EXCLUDE_ZERO));
		if (st != MDF_OK)
			return st;
	}
	if (o->flatten)
		st = out_open_flat(out, 1, o->size_limit, bufsize, &ctx->err);
	else
		st = out_open_file(out, o->dumpfile, o->force, o->size_limit,
				   bufsize, &ctx->err);
	if (st != MDF_OK)
		return st;
	/* An input marked incomplete gives an output marked incomplete. */
	ctx->in->facts(ctx->in_obj, &facts);
	if (o->format == MDF_FMT_ELF) {
		struct elf_write_params ep = {
			.in = &ctx->elf, .page_size = ctx->k.page_size,
			.notes = ctx->elf.notes, .notes_len = ctx->elf.notes_len,
			.exclude_zero = (level & DL_EXCLUDE_ZERO) != 0,
			.input_incomplete = facts.incomplete,
		};
		struct elf_write_stats es = { 0 };
		unsigned char *notes = NULL;

		st = elf_notes_with_eraseinfo(ctx, &notes, &ep.notes_len);
		if (st != MDF_OK)
			return st;
		if (notes)
			ep.notes = notes;
		t0 = pi_now();
		st = elf_write_dump(&ep, &src, out, &es, &ctx->err);
		free(notes);
		*pages = es.pages;
		ctx->report.write_bytes = out->written;
		ctx->report.wrote = true;
		ctx->ds.t_copy = pi_now() - t0 - ctx->ds.t_scan;
		return st;
	}
	st = compressor_init(&comp, o->codec, &ctx->err);
	if (st != MDF_OK)
		return st;
	memset(&kp, 0, sizeof(kp));
	kp.page_size = ctx->k.page_size;
	kp.big_endian = ctx->k.ki.big_endian;
	kp.abi = ctx->k.have_arch ? kdump_abi_of_machine(ctx->k.arch.e_machine)
	       : kinfo_word_size(&ctx->k.ki) == 4 ? KDUMP_ABI_ILP32 : KDUMP_ABI_LP64;
	kp.dump_level = level;
	read_utsname(ctx, &kp.uts);
	kp.crashtime = (int64_t)ctx->k.ki.crashtime.v;
	/* NUMBER(phys_base) on x86_64, PHYS_OFFSET on arm64 (arch.h). */
	kp.phys_base = ctx->k.have_arch && ctx->k.arch.have_phys_base ?
		       ctx->k.arch.phys_base : (uint64_t)ctx->k.ki.num.phys_base.v;
	if (facts.have_uts)
		kp.uts = facts.uts;
	if (facts.have_timestamp && !ctx->k.ki.crashtime.set)
		kp.crashtime = facts.timestamp;
	/* No crash, no CRASHTIME: a running system's dump is of now. */
	if (facts.live && !ctx->k.ki.crashtime.set)
		kp.crashtime = (int64_t)time(NULL);
	if (facts.have_phys_base)
		kp.phys_base = facts.phys_base;
	kp.pfn_base = kdump_pfn_base(kp.abi, kp.phys_base,
				     (unsigned)__builtin_ctzll(ctx->k.page_size));
	kp.nr_cpus = facts.nr_cpus;
	kp.notes = facts.notes;
	kp.notes_len = facts.notes_len;
	kp.have_vmcoreinfo = facts.have_vmcoreinfo;
	kp.vmcoreinfo_off = facts.vmcoreinfo_off;
	kp.vmcoreinfo_size = facts.vmcoreinfo_size;
	kp.excluded_vmemmap = facts.excluded_vmemmap || o->exclude_vmemmap;
	kp.input_incomplete = facts.incomplete;
	kp.eraseinfo = ctx->ds.erase.info;
	kp.eraseinfo_len = ctx->ds.erase.info_len;
	kp.nthreads = o->num_threads;
	/* --splitblock-size in KB as upstream, rounded up to 64 pfns (crash
	 * needs parts to start on a bitmap word); by default 64 pfns, which
	 * balances the parts to within 64 pages. */
	kp.split_block_pfns = 64;
	if (o->splitblock_kib) {
		uint64_t b = div_round_up(o->splitblock_kib * 1024, ctx->k.page_size);

		kp.split_block_pfns = div_round_up(b, 64) * 64;
	}
	t0 = pi_now();
	if (o->split)	/* --split: the parts one after another (split.h) */
		st = split_write_set(&kp, &src, &comp, out, o->split_files,
				     o->nsplit, o->force, o->size_limit, &ks,
				     &ctx->err);
	else
		st = kdump_write_dump(&kp, &src, &comp, out, &ks, &ctx->err);
	compressor_release(&comp);
	*pages = ks.pages;
	ctx->report.pages.zero = ks.zero_pages;
	ctx->report.write_bytes = out->written + ks.other_written;
	ctx->report.wrote = true;
	ctx->ds.t_copy = pi_now() - t0 - ctx->ds.t_scan;
	return st;
}

enum mdf_status dump_write(struct mdf_ctx *ctx)
{
	const struct mdf_opts *o = &ctx->opts;
	unsigned n = o->ndump_levels ? o->ndump_levels : 1;
	enum mdf_status st = debug_open(ctx);

	for (unsigned i = 0; st == MDF_OK && i < n; i++) {
		struct out_sink out;
		struct mdf_err cerr;
		unsigned level = o->ndump_levels ? o->dump_levels[i] : 0;
		uint64_t pages = 0;

		memset(&ctx->report.pages, 0, sizeof(ctx->report.pages));
		ctx->report.pages.total = ctx->k.max_pfn;
		ctx->ds.counted_upto = 0;
		ctx->ds.copied = ctx->ds.copy_total = 0;
		ctx->ds.t_scan = ctx->ds.t_zero = ctx->ds.t_copy = 0;
		memset(&out, 0, sizeof(out));
		out.fd = -1;
		st = write_once(ctx, level, &out, &pages);
		if (out_close(&out, &cerr) != MDF_OK && st == MDF_OK) {
			ctx->err = cerr;
			st = cerr.status;
		}
		/* A file that holds no page is no dump: it goes, so that the
		 * next try needs no -f.  One with pages stays, its header
		 * saying it is incomplete. */
		if (st != MDF_OK && !pages && !o->split && out.regular)
			out_discard(&out);
		if (st == MDF_OK) {
			pi_progress(&ctx->pr, "Copying data", 1, 1, pi_now());
			finish_counts(ctx);
			return debug_close(ctx, MDF_OK);
		}
		/* makedumpfile's -d list: a full disk retries at the next level. */
		if (st == MDF_ERR_NOSPC && i + 1 < n && !o->flatten && out.full) {
			pi_msg(&ctx->pr, "\n%s\nRetrying with dump level %u.\n",
			       ctx->err.msg, o->dump_levels[i + 1]);
			out_discard(&out);
			mdf_err_clear(&ctx->err);
			st = MDF_OK;
			continue;
		}
		break;
	}
	finish_counts(ctx);
	return debug_close(ctx, st);
}

enum mdf_status dump_kinfo_btf(struct mdf_ctx *ctx, struct kinfo *ki, size_t *from_btf)
{
	const char *vmcore = ctx->opts.vmcore;
	enum mdf_status st;

	st = open_and_learn(ctx);
	if (st != MDF_OK)
		return st;
	if (!ctx->k.have_arch)
		return mdf_err_set(&ctx->err, MDF_ERR_NOTSUPP,
				   "%s: -g without -x reads the kernel's kallsyms and BTF, which needs "
				   "address translation: %s", vmcore, ctx->k.no_arch);
	if (load_dump_btf(ctx) != MDF_OK)
		return mdf_err_push(&ctx->err, "%s: -g without -x VMLINUX takes the kernel's symbols "
				    "and types from the dump", vmcore);
	kinfo_init(ki);
	*from_btf = btf_kinfo_fill(ki, &ctx->ds.btf, &ctx->ds.ksyms, NULL, 0);
	/* the note's values over BTF's (the same where both have a key), and
	 * what BTF cannot say: the release, the build, the page size, the
	 * macros */
	vmcoreinfo_merge(ki, &ctx->k.ki);
	return MDF_OK;
}

enum mdf_status dump_explain(struct mdf_ctx *ctx)
{
	const struct mdf_opts *o = &ctx->opts;
	struct explain_input in;
	struct mdf_explain *ex;
	struct filter_keep keep;
	size_t owner;
	enum mdf_status st;

	ctx->ds.dbg_fd1 = ctx->ds.dbg_fd2 = -1;
	st = open_input(ctx);
	if (st != MDF_OK)
		return st;
	st = learn_kernel(ctx);
	if (st != MDF_OK)
		return mdf_err_push(&ctx->err, "--explain reads what -d 31 reads");
	st = keeptask_setup(ctx);
	if (st != MDF_OK)
		return st;
	ex = calloc(1, sizeof(*ex));
	if (!ex)
		return mdf_err_set(&ctx->err, MDF_ERR_NOMEM, "out of memory");
	memset(&in, 0, sizeof(in));
	in.name = o->vmcore;
	in.ki = &ctx->k.ki;
	in.rm = &ctx->k.rm;
	in.mm = &ctx->k.mm;
	in.in = ctx->in;
	in.in_obj = ctx->in_obj;
	in.elf = input_elf(ctx);
	in.input_level = ctx->is_kdump ? ctx->kd->dump_level : -1;
	in.old_level = ctx->old_level;
	in.page_size = ctx->k.page_size;
	in.max_pfn = ctx->k.max_pfn;
	in.free_lists = ctx->ds.use_freelist ? &ctx->ds.freelist : NULL;
	keep = (struct filter_keep){ keeptask_has, &ctx->ds.kt };
	in.keep = ctx->ds.kt.kept.n ? &keep : NULL;
	st = explain_page(&in, o->explain_value, o->explain_paddr, o->explain_levels,
			  o->nexplain_levels, ex, &ctx->err);
	if (st == MDF_OK && ctx->ds.kt.kept.n && keeptask_has(&ctx->ds.kt, ex->pfn, 1) &&
	    keeptask_owner(&ctx->ds.kt, &ctx->k.rm, &ctx->k.arch, ex->pfn,
			   &owner))
		snprintf(ex->keep_owner, sizeof(ex->keep_owner), "process %d (%s)",
			 ctx->ds.kt.procs[owner].pid, ctx->ds.kt.procs[owner].comm);
	if (st == MDF_OK)
		pi_explain(&ctx->pr, ex);
	free(ex);
	return st;
}

/* What page-types needs of the kernel beyond VMCOREINFO, from the dump's
 * BTF: the enum pageflags bits it copies, the page table page type, and
 * where a large folio counts its mappings.  Without BTF those flags are
 * said to be unknown. */
static void pagetypes_from_btf(struct mdf_ctx *ctx, struct pagetypes_kernel *pk, uint64_t psz)
{
	const struct {
		const char *name;
		int *bit;
	} pg[] = {
		{ "PG_locked", &pk->pg_locked }, { "PG_error", &pk->pg_error },
		{ "PG_referenced", &pk->pg_referenced }, { "PG_uptodate", &pk->pg_uptodate },
		{ "PG_dirty", &pk->pg_dirty }, { "PG_active", &pk->pg_active },
		{ "PG_writeback", &pk->pg_writeback }, { "PG_reclaim", &pk->pg_reclaim },
		{ "PG_unevictable", &pk->pg_unevictable }, { "PG_idle", &pk->pg_idle },
		{ "PG_large_rmappable", &pk->pg_large_rmappable },
	};
	const struct kbtf *b = &ctx->ds.btf;
	int64_t v, base;
	uint64_t off;

	if (load_dump_btf(ctx) != MDF_OK) {
		pi_debug(&ctx->pr, "%s: --page-types without the dump's BTF: %s\n",
			 ctx->opts.vmcore, ctx->err.msg);
		mdf_err_clear(&ctx->err);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(pg); i++)
		if (kbtf_enum_value(b, "pageflags", pg[i].name, &v) && v >= 0 && v < 64)
			*pg[i].bit = (int)v;
	/* 6.12 on: the type in the top byte (PGTY_table); 6.10 and 6.11: a
	 * mask under PAGE_TYPE_BASE (kernel commit 46df8e73a4a3) */
	if (kbtf_enum_value(b, "pagetype", "PGTY_table", &v) && v > 0 && v < 256) {
		pk->table = PT_TABLE_TOP_BYTE;
		pk->table_value = (uint32_t)v;
	} else if (kbtf_enum_value(b, "pagetype", "PG_table", &v) &&
		   kbtf_enum_value(b, "pagetype", "PAGE_TYPE_BASE", &base) && v > 0 && base > 0) {
		pk->table = PT_TABLE_MASK;
		pk->table_value = (uint32_t)v;
		pk->table_base = (uint32_t)base;
	}
	/* the shared zero page: ZERO_PAGE(0) is empty_zero_page's */
	if (kallsyms_lookup(&ctx->ds.ksyms, "empty_zero_page", &off, NULL) &&
	    readmem_vtop(&ctx->k.rm, off, &off, NULL, &ctx->err) == MDF_OK) {
		pk->has_zero_pfn = true;
		pk->zero_pfn = off / ctx->k.page_size;
	}
	mdf_err_clear(&ctx->err);
	if (kbtf_member_offset(b, "folio", "_large_mapcount", &off)) {
		pk->off_large_mapcount = off;
	} else if (kbtf_member_offset(b, "folio", "_entire_mapcount", &off)) {
		pk->off_entire_mapcount = off;
		if (kbtf_member_offset(b, "folio", "_nr_pages_mapped", &off))
			pk->off_nr_pages_mapped = off;
	} else if (kbtf_member_offset(b, "page", "compound_mapcount", &off)) {
		pk->off_entire_mapcount = psz + off; /* in page[1], before 6.2 */
	}
}

/* One group's page-types table from the pages a process maps. */
struct by_arg {
	struct mdf_ctx *ctx;
	const struct filter_rules *r;
	const struct pagetypes_kernel *pk;
	struct kpf_table *pt;
	enum mdf_status st;
};

static int by_leaf(void *arg, uint64_t vaddr, uint64_t paddr, uint64_t size)
{
	struct by_arg *b = arg;
	unsigned sh = b->ctx->k.arch.page_shift;
	uint64_t flags;

	(void)vaddr;
	for (uint64_t pfn = paddr >> sh; size && pfn < (paddr + size) >> sh; pfn++) {
		b->st = pagetypes_pfn(b->r, b->pk, &b->ctx->k.mm, &b->ctx->k.rm, pfn, &flags,
				      &b->ctx->err);
		if (b->st == MDF_ERR_NODATA) {
			mdf_err_clear(&b->ctx->err);
			b->pt->unreadable++;
			flags = KPF_BIT(KPF_B_NOPAGE);
			b->st = MDF_OK;
		}
		if (b->st == MDF_OK)
			b->st = kpf_table_add(b->pt, kpf_well_known(flags), 1, &b->ctx->err);
		if (b->st != MDF_OK)
			return 1;
	}
	return 0;
}

/* --page-types-by task|cgroup: a table per process (the ones --keep-task
 * chose, else every one with an address space) or per cgroup, of the
 * pages their page tables map. */
static enum mdf_status page_types_by(struct mdf_ctx *ctx, const struct filter_rules *r,
				     const struct pagetypes_kernel *pk)
{
	struct keeptask *kt = &ctx->ds.kt;
	bool by_cgroup = ctx->opts.page_types_by == MDF_PT_BY_CGROUP;
	enum mdf_status st = MDF_OK;

	if (!kt->nprocs) {
		struct tasks_layout l;

		kt = &ctx->ds.kt_all;
		st = task_types(ctx, "--page-types-by");
		if (st == MDF_OK)
			st = tasks_layout(&l, &ctx->ds.kernel_types,
					  ctx->k.ki.kernel_offset.set ? ctx->k.ki.kernel_offset.v : 0,
					  &ctx->err);
		if (st == MDF_OK && by_cgroup && !l.has_cgroup)
			st = mdf_err_set(&ctx->err, MDF_ERR_NODATA, "--page-types-by cgroup: %s has no "
					 "css_set.dfl_cgrp, cgroup.kn or kernfs_node name and parent",
					 ctx->ds.kernel_types.what);
		kt->all = kt->list_only = true;
		if (st == MDF_OK)
			st = keeptask_build(kt, &l, &ctx->k.rm, &ctx->k.arch, &ctx->stop,
					    &ctx->err);
		if (st != MDF_OK)
			return mdf_err_push(&ctx->err, "%s", ctx->opts.vmcore);
	}
	for (size_t i = 0; st == MDF_OK && i < kt->nprocs; i++) {
		const struct mdf_kept_proc *p = &kt->procs[i];
		char name[KPF_GROUP_NAME];
		struct kpf_group *g = NULL;
		struct by_arg b = { ctx, r, pk, NULL, MDF_OK };

		if (!by_cgroup) {
			snprintf(name, sizeof(name), "process %d (%s)", p->pid, p->comm);
		} else if (tasks_cgroup_path(&kt->layout, &ctx->k.rm, p->task,
					     name, sizeof(name), &ctx->err) != MDF_OK) {
			snprintf(name, sizeof(name), "(cgroup not read: %.200s)", ctx->err.msg);
			mdf_err_clear(&ctx->err);
		}
		st = kpf_group_get(&ctx->ds.ptg, name, &g, &ctx->err);
		if (st != MDF_OK)
			break;
		g->members++;
		b.pt = &g->pt;
		b.pt->page_size = ctx->k.page_size;
		st = keeptask_walk_proc(kt, i, &ctx->k.rm, &ctx->k.arch,
					by_leaf, &b, &ctx->err);
		if (st == MDF_OK)
			st = b.st;
	}
	if (st != MDF_OK)
		return mdf_err_push(&ctx->err, "%s: --page-types-by", ctx->opts.vmcore);
	for (size_t i = 0; i < ctx->ds.ptg.n; i++)
		kpf_table_sort(&ctx->ds.ptg.g[i].pt);
	ctx->ds.ptg.by = by_cgroup ? "cgroup" : "task";
	ctx->report.page_types_by = &ctx->ds.ptg;
	return MDF_OK;
}

enum mdf_status dump_page_types(struct mdf_ctx *ctx)
{
	struct filter_rules *r;
	struct filter_warnings warn;
	struct pagetypes_kernel pk;
	uint64_t end, secs;
	enum mdf_status st;
	double t0 = pi_now();

	if (ctx->k.mm.model == MEMMAP_NONE &&
	    kernel_find_memmap(&ctx->k, &ctx->err) != MDF_OK)
		return mdf_err_push(&ctx->err, "%s: --page-types reads the struct page array",
				    ctx->opts.vmcore);
	r = malloc(sizeof(*r));
	if (!r)
		return mdf_err_set(&ctx->err, MDF_ERR_NOMEM, "out of memory");
	st = filter_rules_init(r, &ctx->k.ki, 31, ctx->k.ki.big_endian, &warn, &ctx->err);
	if (st != MDF_OK) {
		free(r);
		return mdf_err_push(&ctx->err, "%s: --page-types", ctx->opts.vmcore);
	}
	pagetypes_kernel_init(&pk, r);
	pagetypes_from_btf(ctx, &pk, r->page_struct_size);
	secs = memmap_section_pfns(&ctx->k.mm);
	end = ctx->k.max_pfn;
	if (end % secs)
		end += secs - end % secs; /* as /proc/kpageflags: whole sections */
	kpf_table_free(&ctx->ds.pt);
	memset(&ctx->ds.pt, 0, sizeof(ctx->ds.pt));
	st = pagetypes_walk(&ctx->ds.pt, r, &pk, &ctx->k.mm, &ctx->k.rm, end, ctx->ds.scratch,
			    &ctx->err);
	if (st == MDF_OK && ctx->opts.page_types_by != MDF_PT_BY_FLAGS)
		st = page_types_by(ctx, r, &pk);
	free(r);
	if (st != MDF_OK)
		return mdf_err_push(&ctx->err, "%s", ctx->opts.vmcore);
	ctx->ds.pt.page_size = ctx->k.page_size;
	ctx->ds.pt.seconds = pi_now() - t0;
	add_phase(&ctx->report, "Counting page types", ctx->ds.pt.seconds);
	ctx->report.page_types = &ctx->ds.pt;
	return MDF_OK;
}

void dump_close(struct mdf_ctx *ctx)
{
	/* The scan threads read the input: they go first. */
	scan_pool_destroy(ctx->ds.scan);
	ctx->ds.scan = NULL;
	freelist_result_release(&ctx->ds.freelist);
	vmemmap_drop_release(&ctx->ds.vm);
	ext_close(ctx->ds.ext);
	ctx->ds.ext = NULL;
	kbtf_free(&ctx->ds.btf);
	kallsyms_free(&ctx->ds.ksyms);
	kpf_table_free(&ctx->ds.pt);
	kpf_groups_free(&ctx->ds.ptg);
	keeptask_free(&ctx->ds.kt);
	keeptask_free(&ctx->ds.kt_all);
	kernel_close(&ctx->k);
	free(ctx->ds.scratch);
	ctx->ds.scratch = NULL;
	free(ctx->ds.vi_text);
	ctx->ds.vi_text = NULL;
	dwarf_info_close(ctx->ds.vmlinux);
	ctx->ds.vmlinux = NULL;
	erase_set_free(&ctx->ds.erase);
	free(ctx->ds.erase_page);
	ctx->ds.erase_page = NULL;
	bitmap_release(&ctx->ds.present);
	bitmap_release(&ctx->ds.dumpable);
	diskdump_close(&ctx->dd);
	splitset_close(&ctx->ss);
	sadump_close(&ctx->sa);
	ctx->kd = NULL;
	cache_release(&ctx->cache);
	elf_info_close(&ctx->elf);
	if (ctx->in_fd >= 0)
		close(ctx->in_fd);
	ctx->in_fd = -1;
}
