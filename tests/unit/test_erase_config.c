/*
 * tests/unit/test_erase_config.c - filter/erase_config.c: the
 * makedumpfile.conf(5) forms, and every malformed line named by number.
 * erase_apply() of filter/erase.c is checked here too: it needs no dump.
 */
#include <stdio.h>
#include <string.h>

#include "filter/erase.h"
#include "filter/erase_config.h"
#include "tap.h"

static enum mdf_status parse(const char *text, struct erase_config *cfg, struct mdf_err *err)
{
	mdf_err_clear(err);
	return erase_config_parse(text, strlen(text), cfg, err);
}

static void t_erase_forms(void)
{
	static const char text[] =
		"# makedumpfile.conf(5)\n"
		"\n"
		"erase init_uts_ns.name.nodename\n"
		"  erase\tbuf.data size 25\n"
		"erase p size 1K\n"
		"erase q size 2m\n"
		"erase r.addr nullify\n"
		"erase s.addr size s.addr_size\r\n";
	struct erase_config cfg;
	struct mdf_err err;

	T_OK(parse(text, &cfg, &err), &err);
	T_EQ_U64(cfg.ncmds, 6);
	T_EQ_U64(cfg.cmds[0].line, 3);
	T_EQ_U64(cfg.cmds[0].kind, ERASE_SIZE_TYPE);
	T_EQ_U64(cfg.cmds[0].target.nparts, 3);
	T_EQ_STR(cfg.cmds[0].target.parts[2], "nodename");
	T_EQ_STR(cfg.cmds[0].target.text, "init_uts_ns.name.nodename");
	T_EQ_U64(cfg.cmds[1].kind, ERASE_SIZE_VALUE);
	T_EQ_U64(cfg.cmds[1].size, 25);
	T_EQ_U64(cfg.cmds[2].size, 1024);
	T_EQ_U64(cfg.cmds[3].size, 2 << 20);
	T_EQ_U64(cfg.cmds[4].kind, ERASE_NULLIFY);
	T_EQ_U64(cfg.cmds[5].kind, ERASE_SIZE_EXPR);
	T_EQ_STR(cfg.cmds[5].size_expr.text, "s.addr_size");
	T_ASSERT(cfg.cmds[5].loop == -1);
	erase_config_free(&cfg);
}

static void t_sections_and_loops(void)
{
	static const char text[] =
		"[mymodule]\n"
		"erase array_var\n"
		"[vmlinux]\n"
		"for tsk in init_task.tasks within task_struct:tasks\n"
		"	erase tsk.comm\n"
		"	erase tsk.mm nullify\n"
		"endfor\n"
		"for s in myarray\n"
		"	erase s.private size 100\n"
		"endfor\n"
		"for s in mystruct1 via next\n"
		"	erase s.key size s.key_size\n"
		"endfor\n"
		"[other]\n"
		"erase x\n";
	struct erase_config cfg;
	struct mdf_err err;

	T_OK(parse(text, &cfg, &err), &err);
	T_EQ_U64(cfg.module_sections, 2);
	T_EQ_U64(cfg.nloops, 3);
	T_EQ_U64(cfg.ncmds, 6);
	T_EQ_STR(cfg.cmds[0].module, "mymodule");
	T_EQ_STR(cfg.cmds[0].target.text, "array_var");
	T_EQ_STR(cfg.cmds[1].module, "");
	T_EQ_STR(cfg.cmds[5].module, "other");
	T_EQ_U64(cfg.loops[0].kind, ERASE_LOOP_WITHIN);
	T_EQ_STR(cfg.loops[0].struct_name, "task_struct");
	T_EQ_STR(cfg.loops[0].member, "tasks");
	T_EQ_STR(cfg.loops[0].id, "tsk");
	T_EQ_U64(cfg.loops[1].kind, ERASE_LOOP_ARRAY);
	T_EQ_U64(cfg.loops[2].kind, ERASE_LOOP_VIA);
	T_EQ_STR(cfg.loops[2].member, "next");
	T_ASSERT(cfg.cmds[0].loop == -1 && cfg.cmds[5].loop == -1);
	T_ASSERT(cfg.cmds[1].loop == 0 && cfg.cmds[2].loop == 0);
	T_ASSERT(cfg.cmds[3].loop == 1 && cfg.cmds[4].loop == 2);
	erase_config_free(&cfg);
}

static void t_errors(void)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "erase\n", "line 1: erase needs a symbol" },
		{ "\nerase a..b\n", "line 2: bad symbol expression 'a..b'" },
		{ "erase a-b\n", "line 1: bad symbol expression 'a-b'" },
		{ "erase a size 0\n", "line 1: bad size '0'" },
		{ "erase a size 12X\n", "line 1: bad size '12X'" },
		{ "erase a size\n", "line 1: expected 'size VALUE', 'size SYMBOL' or 'nullify' after 'a'" },
		{ "erase a nullify now\n", "line 1: expected 'size VALUE', 'size SYMBOL' or 'nullify' after 'a'" },
		{ "wipe a\n", "line 1: unknown command 'wipe'" },
		{ "for x in y\nerase x.z\n", "line 1: for without endfor" },
		{ "endfor\n", "line 1: endfor without for" },
		{ "for x in y\nfor z in w\n", "line 2: nested for loops are not allowed" },
		{ "for x in y\nerase q.z\nendfor\n", "line 2: inside the loop, erase names its ID, not 'q.z'" },
		{ "for x on y\n", "line 1: expected 'in', got 'on'" },
		{ "for x in y by z\n", "line 1: expected 'via' or 'within', got 'by'" },
		{ "for x in y within task_struct\n", "line 1: expected STRUCT:MEMBER after 'within', got 'task_struct'" },
		{ "[vm linux]\n", "line 1: bad section header '[vm'" },
		{ "for x in y\n[mod]\n", "line 2: section inside a for loop (no endfor) '[mod]'" },
	};
	struct erase_config cfg;
	struct mdf_err err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		T_EQ_U64(parse(cases[i].text, &cfg, &err), MDF_ERR_FORMAT);
		T_EQ_STR(err.msg, cases[i].msg);
		T_ASSERT(cfg.cmds == NULL && cfg.ncmds == 0);
	}
	T_EQ_U64(erase_config_parse("erase a\0b\n", 10, &cfg, &err), MDF_ERR_FORMAT);
	T_EQ_STR(err.msg, "line 1: NUL byte in the text");
}

/* Ranges on a page: a patched copy, the source untouched. */
static void t_apply(void)
{
	struct erase_range r[] = {
		{ 0x1ff0, 0x10, 'X' },  /* ends where the page starts */
		{ 0x2000, 4, 'X' },
		{ 0x2ffc, 4, 0 },       /* nullify, the last 4 bytes */
		{ 0x3000, 8, 'X' },     /* the next page */
	};
	struct erase_set es = { .r = r, .n = 4 };
	unsigned char src[4096], buf[4096];

	memset(src, 'a', sizeof(src));
	memset(buf, 0, sizeof(buf));
	T_ASSERT(erase_apply(&es, 0x2000, sizeof(src), src, buf));
	T_ASSERT(memcmp(buf, "XXXXa", 5) == 0);
	T_ASSERT(buf[4091] == 'a' && buf[4092] == 0 && buf[4095] == 0);
	T_ASSERT(src[0] == 'a');
	T_ASSERT(!erase_apply(&es, 0x5000, sizeof(src), src, buf));
	T_ASSERT(!erase_apply(&es, 0x1000, 0xff0, src, buf));
	es.n = 0;
	T_ASSERT(!erase_apply(&es, 0x2000, sizeof(src), src, buf));
}

int main(void)
{
	T_RUN(t_erase_forms);
	T_RUN(t_sections_and_loops);
	T_RUN(t_errors);
	T_RUN(t_apply);
	return t_done();
}
