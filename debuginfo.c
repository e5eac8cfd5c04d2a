/*
 * debuginfo.c - -g FILE -x VMLINUX (debuginfo.h).
 */
#include "debuginfo.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "dump.h"
#include "kernel/dwarf_info.h"
#include "kernel/vmcoreinfo.h"
#include "util.h"
#include "write/output.h"
#include "stop.h"

/* PAGESIZE: DWARF does not know it.  x86_64 and s390x have 4 KiB pages
 * only; elsewhere the host's, as upstream. */
static uint64_t generate_page_size(uint16_t machine)
{
	long ps;

	if (machine == EM_X86_64 || machine == EM_S390)
		return 4096;
	ps = sysconf(_SC_PAGESIZE);
	return ps > 0 ? (uint64_t)ps : 4096;
}

enum mdf_status debuginfo_generate(struct mdf_ctx *ctx)
{
	const char *out = ctx->opts.generate_file;
	struct dwarf_info *di = NULL;
	struct dwarf_facts df;
	struct kinfo *ki = malloc(sizeof(*ki));
	char *text = malloc(VMCOREINFO_TEXT_MAX);
	struct out_sink o;
	struct mdf_err cerr;
	size_t len = 0;
	enum mdf_status st;

	/* A stop signal (SIGTERM, SIGHUP, SIGINT) ends the run through the
	 * failure path below, which removes the temporary file. */
	if (!ki || !text) {
		st = mdf_err_set(&ctx->err, MDF_ERR_NOMEM, "%s: out of memory", out);
		goto done;
	}
	kinfo_init(ki);
	if (!ctx->opts.vmlinux) {
		/* -g FILE VMCORE: from the dump's BTF and kallsyms, marked so
		 * in a line that readers of VMCOREINFO ignore */
		size_t nbtf = 0;
		int w;

		st = dump_kinfo_btf(ctx, ki, &nbtf);
		if (st != MDF_OK)
			goto done;
		w = snprintf(text, VMCOREINFO_TEXT_MAX, "GENERATED-FROM=the dump's BTF and kallsyms "
			     "(%zu keys), and its VMCOREINFO note\n", nbtf);
		st = vmcoreinfo_format(ki, text + w, VMCOREINFO_TEXT_MAX - (size_t)w, &len,
				       &ctx->err);
		len += (size_t)w;
		if (st != MDF_OK)
			goto done;
	} else {
		st = dwarf_info_open(ctx->opts.vmlinux, &di, &ctx->err);
		if (st == MDF_OK)
			st = dwarf_info_kinfo(di, ki, &df, &ctx->err);
		if (st != MDF_OK)
			goto done;
		if (!ki->osrelease[0]) {
			st = mdf_err_set(&ctx->err, MDF_ERR_FORMAT,
					 "%s: no release string: init_uts_ns or struct new_utsname is missing",
					 ctx->opts.vmlinux);
			goto done;
		}
		ki->page_size.v = generate_page_size(df.machine);
		ki->page_size.set = true;
		st = vmcoreinfo_format(ki, text, VMCOREINFO_TEXT_MAX, &len, &ctx->err);
		if (st != MDF_OK)
			goto done;
	}
	/* The file gets its name only once all of it is on the disk: a stop
	 * or a failure never leaves a partial -g file (output.h). */
	st = out_open_file_tmp(&o, out, ctx->opts.force, 0644, 0, 0, &ctx->err);
	if (st != MDF_OK)
		goto done;
	stop_note_tmp(&ctx->stop, o.tmp_path);
	st = out_write(&o, 0, text, len, &ctx->err);
	if (st == MDF_OK)
		st = stop_check(&ctx->stop, &ctx->err);
	if (st == MDF_OK)
		st = out_commit(&o, &ctx->err);
	if (out_close(&o, &cerr) != MDF_OK && st == MDF_OK) {
		ctx->err = cerr;
		st = cerr.status;
	}
	if (st != MDF_OK)
		out_discard(&o);
	stop_note_tmp(&ctx->stop, NULL);
	if (st != MDF_OK) {
		/* The sink names the file in most of its messages. */
		if (strncmp(ctx->err.msg, out, strlen(out)) != 0)
			mdf_err_push(&ctx->err, "%s", out);
	} else {
		pi_vmcoreinfo_saved(&ctx->pr, out);
	}
done:
	dwarf_info_close(di);
	free(text);
	free(ki);
	return st;
}
