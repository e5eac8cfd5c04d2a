/*
 * makedumpfile.c - main(): options -> context -> phases -> exit code.
 * The only place that exits.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo.h"
#include "dmesg.h"
#include "dump.h"
#include "makedumpfile.h"
#include "write/rearrange.h"
#include "filter/scan.h"
#include "write/split.h"

static int exit_code(enum mdf_status st)
{
	switch (st) {
	case MDF_OK:
		return MDF_EXIT_OK;
	case MDF_ERR_RELEASE:
		return MDF_EXIT_RELEASE_MISMATCH;
	default:
		return MDF_EXIT_FAILED;
	}
}

static enum mdf_status run_dump(struct mdf_ctx *ctx)
{
	enum mdf_status st;

	if (ctx->opts.check_params)
		return MDF_OK;
	st = dump_open(ctx);
	if (st != MDF_OK)
		return st;
	st = ctx->opts.dry_run || ctx->opts.mem_usage ? dump_dry_run(ctx)
						      : dump_write(ctx);
	if (st == MDF_OK && ctx->opts.page_types)
		st = dump_page_types(ctx);
	/* Unmap the input first, so the report counts the munmap calls, the
	 * scan threads' too. */
	scan_pool_stop(ctx->ds.scan, &ctx->cache.stats);
	splitset_release_caches(&ctx->ss, &ctx->cache.stats);
	cache_release(&ctx->cache);
	ctx->report.cache = ctx->cache.stats;
	ctx->report.map_peak = cache_budget_peak(&ctx->map_budget);
	ctx->report.elapsed = pi_now() - ctx->t_start;
	if (st == MDF_OK && ctx->opts.mem_usage) {
		pi_report(&ctx->pr, &ctx->report, ctx->opts.page_types);
		pi_mem_usage(&ctx->pr, &ctx->report);
	} else if (st == MDF_OK || st == MDF_ERR_NOSPC) {
		pi_report(&ctx->pr, &ctx->report, ctx->opts.dry_run || ctx->opts.page_types);
	}
	if (st == MDF_OK && ctx->report.page_types)
		pi_page_types(&ctx->pr, ctx->report.page_types);
	if (st == MDF_OK && ctx->report.page_types_by)
		pi_page_types_by(&ctx->pr, ctx->report.page_types_by);
	return st;
}

int main(int argc, char **argv)
{
	struct mdf_ctx *ctx = calloc(1, sizeof(*ctx));
	enum mdf_status st;
	int code;

	if (!ctx)
		return MDF_EXIT_FAILED;
	/* A reader that goes away (ssh, the compressor kdump-tools pipes -F
	 * into, `| head`) is a write error with a message and exit status 1,
	 * not a silent death by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	ctx->in_fd = -1;
	ctx->t_start = pi_now();
	pi_init(&ctx->pr, 7, false);
	st = opts_parse(argc, argv, &ctx->opts, &ctx->err);
	if (st != MDF_OK) {
		pi_error(&ctx->pr, &ctx->err);
		pi_usage(&ctx->pr, stderr);
		free(ctx);
		return MDF_EXIT_FAILED;
	}
	pi_init(&ctx->pr, ctx->opts.debug ? 31 : ctx->opts.message_level,
		ctx->opts.flatten);
	ctx->pr.json = ctx->opts.report_json;
	/* Before any file is opened: a stop must work from the first open()
	 * (a FIFO with no writer blocks in it) to the last fdatasync(). */
	st = stop_start(&ctx->stop, &ctx->pr, &ctx->err);
	if (st != MDF_OK) {
		pi_error(&ctx->pr, &ctx->err);
		free(ctx);
		return MDF_EXIT_FAILED;
	}
	/* The output a stop names, when the run cannot answer it in time. */
	stop_name_output(&ctx->stop, ctx->opts.action == MDF_ACT_GENERATE ? ctx->opts.generate_file :
			 ctx->opts.split && ctx->opts.action == MDF_ACT_DUMP ? NULL :
			 ctx->opts.flatten || ctx->opts.dry_run ? NULL : ctx->opts.dumpfile);
	/* No output of any action may be an input, by any name, -f or not. */
	files_note_inputs(&ctx->files, &ctx->opts);
	if (ctx->opts.action != MDF_ACT_HELP && ctx->opts.action != MDF_ACT_VERSION &&
	    files_check_outputs(&ctx->files, &ctx->opts, &ctx->err) != MDF_OK) {
		pi_error(&ctx->pr, &ctx->err);
		pi_failed(&ctx->pr);
		stop_finish(&ctx->stop);
		free(ctx);
		return MDF_EXIT_FAILED;
	}

	switch (ctx->opts.action) {
	case MDF_ACT_HELP:
		pi_usage(&ctx->pr, stdout);
		st = MDF_OK;
		break;
	case MDF_ACT_VERSION:
		pi_version(&ctx->pr);
		st = MDF_OK;
		break;
	case MDF_ACT_REARRANGE:
		st = rearrange_main(&ctx->opts, &ctx->pr, &ctx->stop, &ctx->err);
		break;
	case MDF_ACT_DMESG:
		st = dmesg_run(ctx);
		break;
	case MDF_ACT_REASSEMBLE:
		st = split_reassemble_main(&ctx->opts, &ctx->pr, &ctx->stop, &ctx->err);
		break;
	case MDF_ACT_GENERATE:
		st = debuginfo_generate(ctx);
		if (st == MDF_OK)
			pi_completed(&ctx->pr, NULL);
		break;
	case MDF_ACT_EXPLAIN: /* its text is all it prints */
		st = ctx->opts.check_params ? MDF_OK : dump_explain(ctx);
		break;
	case MDF_ACT_MEM_USAGE: /* no "Completed" line after its table */
	case MDF_ACT_DUMP:
	default:
		st = run_dump(ctx);
		break;
	}
	stop_settle(&ctx->stop);
	if (st != MDF_OK) {
		pi_error(&ctx->pr, &ctx->err);
		/* A stop is one line, and the process ends by its signal. */
		if (!stop_signal(&ctx->stop))
			pi_failed(&ctx->pr);
	} else if (ctx->opts.action == MDF_ACT_DUMP && !ctx->opts.check_params) {
		if (ctx->opts.split && !ctx->opts.dry_run)
			pi_completed_split(&ctx->pr, ctx->opts.split_files,
					   ctx->opts.nsplit);
		else
			pi_completed(&ctx->pr, ctx->opts.dry_run ? NULL :
				     ctx->opts.dumpfile);
	}
	code = exit_code(st);
	dump_close(ctx);
	stop_finish(&ctx->stop); /* ends the process when a stop signal came */
	free(ctx);
	return code;
}
