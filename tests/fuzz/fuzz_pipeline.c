/*
 * tests/fuzz/fuzz_pipeline.c - the whole pipeline on mutated synthetic
 * dumps: VMCOREINFO through the struct page scan and classification to
 * the kdump writer.
 *
 * Input: a tests/gen spec (text).  The fuzzer mutates it: VMCOREINFO
 * values ("vmcoreinfo set/del"), the kinds and contents of pages, and raw
 * bytes of struct pages, page-table entries and any physical address
 * ("poke page|table|phys").  A spec the generator refuses, one whose
 * RAM is over FUZZ_RAM_MAX or one reaching past FUZZ_NPFN_MAX pfns (64 GiB
 * of address space) is skipped.  The dump it makes is filtered
 * with -l -d 31 into a file, with -e -E -d 31 (the vmemmap walk and its
 * runs) and with --dry-run at -d 31 and 4 threads with --page-types (its
 * walk of every struct page; and --keep-task's walk of a user address
 * space, over the kernel's top table), and
 * --explain looks at a pfn inside the first "pages" line and at each
 * struct page poked (up to FUZZ_EXPLAIN_MAX pfns); every run must end
 * with a status (any), never a crash or a sanitizer report.  `make check`
 * replays tests/fuzz/corpus/pipeline (15-kcore-live.spec: a /proc/kcore
 * shape, read through kcore_input_ops).
 *
 * Every input format the program reads takes its turn (issue 28): the -l
 * file is cut into a split set of three parts, which -l -d 31 and
 * --dump-dmesg read in another order; a spec of "format sadump ..." is
 * written as that sadump file and read with -x, the debug vmlinux being
 * kobj-sadump (MDF_FUZZ_KOBJ_SADUMP; tests/run.sh sets it) given the
 * machine's symbols by objcopy, once per symbol table (a file in /tmp
 * named by its hash).  Without kobj-sadump or objcopy a sadump spec runs
 * without -x, which the program refuses.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dump.h"
#include "gen/gen.h"
#include "makedumpfile.h"
#include "filter/scan.h"

#define FUZZ_SPEC_MAX 8192
#define FUZZ_RAM_MAX (64ULL << 20)
/* The plan's tables grow with the highest address, not with the RAM. */
#define FUZZ_NPFN_MAX (UINT64_C(16) << 20)
#define FUZZ_EXPLAIN_MAX 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* --keep-task's walk of a user address space (arch_user_leaves()) over
 * the kernel's own top table: its user half is empty in a real kernel,
 * and the fuzzer's "poke table" lines put entries there. */
static int leaf_seen(void *arg, uint64_t va, uint64_t pa, uint64_t size)
{
	(void)va;
	(void)pa;
	(void)size;
	return ++*(unsigned *)arg > 100000; /* enough */
}

static void user_walk(struct mdf_ctx *ctx)
{
	unsigned n = 0;
	struct mdf_err e;

	if (!ctx->k.have_arch || !ctx->k.arch.have_pgd)
		return;
	mdf_err_clear(&e);
	if (arch_user_leaves(&ctx->k.arch, ctx->k.arch.pgd_paddr, readmem_read_pte, &ctx->k.rm,
			     leaf_seen, &n, &e) != MDF_OK)
		return; /* an error is an answer */
}

/* One makedumpfile run with @argv, as main() runs it (no messages). */
static void run(int argc, char **argv)
{
	struct mdf_ctx *ctx = calloc(1, sizeof(*ctx));
	enum mdf_status st;

	if (!ctx)
		return;
	ctx->in_fd = -1;
	pi_init(&ctx->pr, 0, false);
	if (opts_parse(argc, argv, &ctx->opts, &ctx->err) == MDF_OK) {
		if (ctx->opts.action == MDF_ACT_EXPLAIN) {
			/* Its text is formatted, into nothing. */
			FILE *null = fopen("/dev/null", "w");

			if (null) {
				ctx->pr.msg = null;
				ctx->pr.level = 2;
			}
			st = dump_explain(ctx);
			if (null)
				fclose(null);
			ctx->pr.msg = stdout;
		} else {
			st = dump_open(ctx);
			if (st == MDF_OK && ctx->opts.page_types)
				user_walk(ctx);
			if (st == MDF_OK)
				st = ctx->opts.dry_run ? dump_dry_run(ctx) : dump_write(ctx);
			if (st == MDF_OK && ctx->opts.page_types)
				st = dump_page_types(ctx);
		}
		(void)st;
		scan_pool_stop(ctx->ds.scan, &ctx->cache.stats);
	}
	dump_close(ctx);
	free(ctx);
}

extern char **environ;

/* The debug vmlinux of a sadump spec's kernel (see above) at @path (@cap
 * bytes): kobj-sadump with the symbols of @k.  False when it cannot be
 * had. */
static bool sadump_vmlinux(const struct gen_spec *spec, const struct gen_kernel *k, char *path,
			   size_t cap)
{
	const char *kobj = getenv("MDF_FUZZ_KOBJ_SADUMP");
	char *syms = NULL, *save = NULL, **argv = NULL, tmp[160];
	size_t n = 0, lines = 0;
	uint64_t h = 1469598103934665603ULL;  /* FNV-1a of the table */
	struct stat sb;
	struct mdf_err err;
	pid_t pid;
	int status = 1;
	bool ok = false;

	if (!kobj || !*kobj || access(kobj, R_OK) != 0 ||
	    gen_kernel_symbols(spec, k, &syms, &err) != MDF_OK)
		return false;
	for (const char *c = syms; *c; c++) {
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
		lines += *c == '\n';
	}
	snprintf(path, cap, "/tmp/mdf-fuzz-kobj.%016llx", (unsigned long long)h);
	if (stat(path, &sb) == 0) {
		free(syms);
		return true;
	}
	snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
	/* objcopy --strip-symbol=S --add-symbol S=ADDR,global,object ... */
	argv = calloc(3 * lines + 4, sizeof(*argv));
	if (!argv)
		goto out;
	argv[n++] = strdup("objcopy");
	for (char *l = strtok_r(syms, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[128], arg[192];
		unsigned long long addr;

		if (sscanf(l, "%127s %llx", name, &addr) != 2)
			continue;
		snprintf(arg, sizeof(arg), "--strip-symbol=%s", name);
		argv[n++] = strdup(arg);
		argv[n++] = strdup("--add-symbol");
		snprintf(arg, sizeof(arg), "%s=%lld,global,object", name, (long long)addr);
		argv[n++] = strdup(arg);
	}
	argv[n++] = strdup(kobj);
	argv[n++] = strdup(tmp);
	for (size_t i = 0; i < n; i++)
		if (!argv[i])
			goto out;
	if (posix_spawnp(&pid, "objcopy", NULL, NULL, argv, environ) == 0 &&
	    waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		ok = rename(tmp, path) == 0;
	if (!ok)
		unlink(tmp);
out:
	for (size_t i = 0; argv && i < n; i++)
		free(argv[i]);
	free(argv);
	free(syms);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char vm[64], out[64], part[3][80], vmlinux[96], *text;
	unsigned disks = 0;
	bool have_x = false;
	struct gen_spec spec;
	struct gen_kernel k;
	struct mdf_err err;
	uint64_t ram = 0, explain[FUZZ_EXPLAIN_MAX];
	size_t nexplain = 0;
	bool ok;

	if (size > FUZZ_SPEC_MAX)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	ok = gen_spec_parse(text, &spec, &err) == MDF_OK;
	free(text);
	if (!ok)
		return 0;
	for (size_t i = 0; i < spec.nram; i++)
		ram += spec.ram[i].memsz;
	if (spec.npages)
		explain[nexplain++] = spec.pages[0].first + (spec.pages[0].last > spec.pages[0].first);
	for (size_t i = 0; i < spec.npokes && nexplain < FUZZ_EXPLAIN_MAX; i++)
		if (spec.pokes[i].at == GEN_POKE_PAGE)
			explain[nexplain++] = spec.pokes[i].addr;
	if (ram > FUZZ_RAM_MAX || gen_spec_npfn(&spec) > FUZZ_NPFN_MAX ||
	    gen_kernel_plan(&spec, &k, &err) != MDF_OK) {
		gen_spec_free(&spec);
		return 0;
	}
	snprintf(vm, sizeof(vm), "/tmp/mdf-fuzz-pipeline.%ld.elf", (long)getpid());
	snprintf(out, sizeof(out), "/tmp/mdf-fuzz-pipeline.%ld.out", (long)getpid());
	for (int i = 0; i < 3; i++)
		snprintf(part[i], sizeof(part[i]), "/tmp/mdf-fuzz-pipeline.%ld.part%d",
			 (long)getpid(), i + 1);
	if (gen_spec_sadump(&spec)) {
		ok = gen_sadump_write(&spec, &k, vm, &err) == MDF_OK;
		have_x = ok && sadump_vmlinux(&spec, &k, vmlinux, sizeof(vmlinux));
		disks = spec.format == GEN_FMT_SADUMP_DISKSET ? spec.disks : 1;
	} else {
		ok = gen_elf_write(&spec, &k, vm, &err) == MDF_OK;
	}
	gen_kernel_free(&k);
	gen_spec_free(&spec);
	if (ok && disks) {
		/* getopt reorders the pointers, never the strings. */
		char *argv[10 + GEN_SADUMP_MAX_DISKS + 1], dset[GEN_SADUMP_MAX_DISKS][96];
		char fmt[3] = "-l";
		int n = 0;

		argv[n++] = (char *)"makedumpfile";
		argv[n++] = (char *)"-f";
		argv[n++] = fmt;
		argv[n++] = (char *)"--message-level";
		argv[n++] = (char *)"0";
		argv[n++] = (char *)"-d";
		argv[n++] = (char *)"31";
		if (have_x) {
			argv[n++] = (char *)"-x";
			argv[n++] = vmlinux;
		}
		if (disks > 1) {
			for (unsigned i = 0; i < disks && i < GEN_SADUMP_MAX_DISKS; i++) {
				if (i)
					snprintf(dset[i], sizeof(dset[i]), "--diskset=%s.%u", vm, i + 1);
				else
					snprintf(dset[i], sizeof(dset[i]), "--diskset=%s", vm);
				argv[n++] = dset[i];
			}
		} else {
			argv[n++] = vm;
		}
		argv[n++] = out;
		argv[n] = NULL;
		run(n, argv);
		fmt[1] = 'E'; /* and the ELF view of it */
		run(n, argv);
		for (unsigned i = 2; i <= disks; i++) {
			char p[96];

			snprintf(p, sizeof(p), "%s.%u", vm, i);
			unlink(p);
		}
	} else if (ok) {
		/* getopt reorders the pointers, never the strings. */
#define A(s) ((char *)(s))
		char *write_argv[] = { A("makedumpfile"), A("-f"), A("-l"), A("-d"),
				       A("31"), A("--message-level"), A("0"), vm, out,
				       NULL };
		/* -e walks the vmemmap's page tables and drops pages by runs */
		char *e_argv[] = { A("makedumpfile"), A("-f"), A("-e"), A("-E"), A("-d"),
				   A("31"), A("--message-level"), A("0"), vm, out, NULL };
		char *dry_argv[] = { A("makedumpfile"), A("--dry-run"), A("-d"), A("31"),
				     A("--num-threads"), A("4"), A("--page-types"),
				     A("--message-level"), A("0"), vm, NULL };

		char *split_argv[] = { A("makedumpfile"), A("-f"), A("-l"), A("-d"), A("31"),
				       A("--split"), A("--message-level"), A("0"), vm, part[0],
				       part[1], part[2], NULL };
		/* the parts in another order: one dump */
		char *set_argv[] = { A("makedumpfile"), A("-f"), A("-l"), A("-d"), A("31"),
				     A("--message-level"), A("0"), part[2], part[0], part[1],
				     out, NULL };
		char *set_dmesg_argv[] = { A("makedumpfile"), A("-f"), A("--dump-dmesg"),
					   A("--message-level"), A("0"), part[1], part[2],
					   part[0], out, NULL };
#undef A

		run(9, write_argv);
		run(12, split_argv);
		run(11, set_argv);
		run(9, set_dmesg_argv);
		run(10, e_argv);
		run(10, dry_argv);
		for (size_t i = 0; i < nexplain; i++) {
			char arg[32];
			char *explain_argv[] = { (char *)"makedumpfile", (char *)"--explain", arg,
						 vm, NULL };

			snprintf(arg, sizeof(arg), "pfn:0x%llx", (unsigned long long)explain[i]);
			run(4, explain_argv);
		}
	}
	unlink(vm);
	unlink(out);
	for (int i = 0; i < 3; i++)
		unlink(part[i]);
	return 0;
}
