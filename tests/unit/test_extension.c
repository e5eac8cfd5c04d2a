/*
 * Unit tests for filter/extension.c: loading (a missing file, a name
 * that is no *.so, too many), running init() with a host, the page
 * hook's arbitration, and cleanup(), with tests/ext/keep_drop.so (built
 * into $MDF_BUILD/tests/ext by make check).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "filter/extension.h"
#include "makedumpfile/extension.h"
#include "tap.h"

struct said {
	char lines[4][128];
	unsigned n;
};

static void say(void *arg, const char *ext, const char *text)
{
	struct said *s = arg;

	if (s->n < 4)
		snprintf(s->lines[s->n++], sizeof(s->lines[0]), "%s: %s", ext, text);
}

static void refused(void)
{
	struct ext_set *s = NULL;
	struct mdf_err err;
	char m[] = "nosuch.so", h[] = "/etc/hostname", x[] = "x.so";
	char *missing[] = { m };
	char *notso[] = { h };
	char *many[EXT_MAX + 1];

	T_ASSERT(ext_open(&s, missing, 1, "/nonexistent", &err) == MDF_ERR_IO);
	T_EQ_STR(err.msg, "nosuch.so: no such extension in ., ./extensions or /nonexistent");
	T_ASSERT(!s);
	T_ASSERT(ext_open(&s, notso, 1, "/nonexistent", &err) == MDF_ERR_ARG);
	T_EQ_STR(err.msg, "/etc/hostname: an extension is a shared object named *.so");
	for (unsigned i = 0; i <= EXT_MAX; i++)
		many[i] = x;
	T_ASSERT(ext_open(&s, many, EXT_MAX + 1, "/nonexistent", &err) == MDF_ERR_ARG);
	ext_close(NULL);
}

static void keep_drop(void)
{
	const char *b = getenv("MDF_BUILD");
	char path[512];
	char *paths[] = { path };
	struct ext_set *s = NULL;
	struct said said = { .n = 0 };
	struct ext_env env = { .page_size = 4096, .page_struct_size = 64, .say = say,
			       .say_arg = &said };
	struct mdf_err err;
	unsigned char page[64] = { 0 };

	if (!b) {
		t_skip("no MDF_BUILD (run by make check)");
		return;
	}
	snprintf(path, sizeof(path), "%s/tests/ext/keep_drop.so", b);
	if (ext_open(&s, paths, 1, "/nonexistent", &err) != MDF_OK) {
		if (err.status == MDF_ERR_NOTSUPP) {
			t_skip("a static build loads no extensions");
			return;
		}
		T_OK(err.status, &err);
		return;
	}
	T_EQ_U64(ext_count(s), 1);
	T_EQ_STR(ext_name(s, 0), "keep_drop");
	T_ASSERT(!ext_has_page_hook(s));       /* not before init() ran */
	T_OK(ext_init(s, &env, &err), &err);
	T_ASSERT(ext_has_page_hook(s));
	T_EQ_U64(said.n, 1);
	T_EQ_STR(said.lines[0], "keep_drop: keeps pfn % 97 == 0, drops pfn % 89 == 0");
	T_EQ_U64((uint64_t)ext_page(s, 97 * 89, page), MDF_EXT_KEEP);
	T_EQ_U64((uint64_t)ext_page(s, 89, page), MDF_EXT_DROP);
	T_EQ_U64((uint64_t)ext_page(s, 1, page), MDF_EXT_UNDECIDED);
	ext_close(s);
	T_EQ_U64(said.n, 2);
	T_EQ_STR(said.lines[1], "keep_drop: asked about 3 pages");
}

int main(void)
{
	T_RUN(refused);
	T_RUN(keep_drop);
	return t_done();
}
