/*
 * tests/fuzz/fuzz_config.c - fuzz erase_config_parse() (--config FILE):
 * any bytes end in a status, never a crash; what it accepts holds only
 * well-formed commands (every name an identifier, a loop's commands name
 * its ID, sizes positive).  Seed corpus: tests/fuzz/corpus/config/ (the
 * makedumpfile.conf(5) forms and malformed ones).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filter/erase_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check(int cond)
{
	if (!cond)
		abort();
}

static void check_expr(const struct erase_expr *e)
{
	fuzz_check(e->nparts >= 1 && e->nparts <= ERASE_EXPR_PARTS);
	for (unsigned i = 0; i < e->nparts; i++)
		fuzz_check(e->parts[i][0] != '\0' &&
			   strlen(e->parts[i]) < ERASE_NAME_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct erase_config cfg;
	struct mdf_err err;
	char *text;

	if (size > (1u << 16))
		return 0;
	text = malloc(size ? size : 1); /* exact size: ASan sees overreads */
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);
	mdf_err_clear(&err);
	if (erase_config_parse(text, size, &cfg, &err) == MDF_OK) {
		for (size_t i = 0; i < cfg.ncmds; i++) {
			const struct erase_cmd *c = &cfg.cmds[i];

			check_expr(&c->target);
			fuzz_check(c->loop < (int)cfg.nloops);
			if (c->loop >= 0)
				fuzz_check(!strcmp(c->target.parts[0], cfg.loops[c->loop].id));
			if (c->kind == ERASE_SIZE_VALUE)
				fuzz_check(c->size > 0);
			if (c->kind == ERASE_SIZE_EXPR)
				check_expr(&c->size_expr);
		}
		for (size_t i = 0; i < cfg.nloops; i++)
			check_expr(&cfg.loops[i].list);
		erase_config_free(&cfg);
	} else {
		fuzz_check(err.msg[0] != '\0');
	}
	free(text);
	return 0;
}
