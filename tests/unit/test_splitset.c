/*
 * tests/unit/test_splitset.c - a split set read as one dump (splitset.h).
 *
 * The sets are made by the real programs: build/<flavour>/tests/gen/mkvmcore
 * writes a synthetic vmcore (tests/lib/genvm.h) and
 * build/<flavour>/makedumpfile splits it (--split) and writes the same dump
 * whole.  Every page of the set, opened in every order of its parts, must
 * equal the whole dump's; the broken sets must be refused with the exact
 * line that names the part at fault.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "diskdump_read.h"
#include "splitset.h"
#include "genvm.h"
#include "tap.h"

static struct genvm g;
static char mdf[PATH_MAX + 64];
static char vm[256];

static const char spec[] =
	"kernel 6.1\n"
	"ram 0x1000 +0x9ec00\n"
	"ram 0x100000 0x4000000\n"
	"pages 0x200+64 anon random\n"
	"pages 0x400+64 cache text 3\n"
	"fill 0x600+64 random 5\n"
	"pages 0x800+256 free order=8\n"
	"fill 0xa00+64 zero\n"
	"fill 0xc00+128 random 11\n";

/* @name in the directory (a few at a time: each call takes the next of
 * eight buffers). */
static const char *path(const char *name)
{
	static char buf[8][PATH_MAX];
	static unsigned i;

	return genvm_name(&g, name, buf[i++ % 8], sizeof(buf[0]));
}

/* makedumpfile @args (names in the directory are made absolute by the
 * caller); true on exit status 0. */
static bool mdf_run(const char *args)
{
	char cmd[4 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' --message-level 0 %s >/dev/null 2>&1",
		 g.dir, mdf, args);
	return system(cmd) == 0;
}

static void setup(void)
{
	char cmd[3 * PATH_MAX];

	if (!genvm_make(&g, spec, "vm", vm, sizeof(vm)))
		return;
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && ln '%s' '%s'", path("p2"),
		 path("p2copy"), path("p1"), path("p1link"));
	if (!mdf_run("-l -d 1 --split vm p1 p2 p3") || !mdf_run("-l -d 31 --split vm q1 q2") ||
	    !mdf_run("-l -d 1 vm whole") || system(cmd) != 0)
		genvm_fail(&g, "makedumpfile could not write the split sets");
}

/* Open @names (in the directory) as a set. */
static enum mdf_status open_set(struct splitset *ss, const char *const *names, unsigned n,
				struct mdf_err *err)
{
	static char paths[8][PATH_MAX];
	char *argv[8];

	for (unsigned i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s", path(names[i]));
		argv[i] = paths[i];
	}
	mdf_err_clear(err);
	return splitset_open(ss, argv, n, NULL, err);
}

struct whole {
	int fd;
	struct cache cache;
	struct diskdump_info di;
};

static bool whole_open(struct whole *w)
{
	struct cache_config cc = { .policy = CACHE_MMAP_NEVER };
	struct mdf_err err;

	w->fd = open(path("whole"), O_RDONLY);
	return w->fd >= 0 && cache_init(&w->cache, w->fd, "whole", &cc, &err) == MDF_OK &&
	       diskdump_open(&w->di, w->fd, "whole", &w->cache, &err) == MDF_OK;
}

static void whole_close(struct whole *w)
{
	diskdump_close(&w->di);
	cache_release(&w->cache);
	if (w->fd >= 0)
		close(w->fd);
}

/* Every page of the set @ss equals the whole dump's; bitmaps and facts. */
static void check_pages(struct splitset *ss, struct whole *w)
{
	const struct input_ops *ops = &splitset_input_ops;
	const struct diskdump_info *d0 = &ss->order[0]->di;
	struct input_facts f, fw;
	struct mdf_err err;
	uint64_t pages = 0;

	T_EQ_U64(d0->max_mapnr, w->di.max_mapnr);
	for (uint64_t pfn = 0; pfn < w->di.max_mapnr; pfn++) {
		const unsigned char *a, *b;
		enum mdf_status st = ops->page(ss, NULL, pfn, 4096, NULL, &a, &err);

		if (!diskdump_dumpable(&w->di, pfn)) {
			if (st != MDF_ERR_NODATA) {
				T_EQ_U64(st, MDF_ERR_NODATA);
				return;
			}
			continue;
		}
		if (st != MDF_OK) {
			T_OK(st, &err);
			return;
		}
		T_OK(diskdump_get_page(&w->di, &w->cache, pfn, &b, &err), &err);
		if (memcmp(a, b, 4096) != 0) {
			T_ASSERT(!"a page of the set differs from the whole dump's");
			return;
		}
		pages++;
	}
	T_ASSERT(pages > 256);
	ops->facts(ss, &f);
	diskdump_input_ops.facts(&w->di, &fw);
	T_EQ_U64(f.vmcoreinfo_len, fw.vmcoreinfo_len);
	T_EQ_U64(f.notes_len, fw.notes_len);
	T_EQ_U64(f.max_paddr, fw.max_paddr);
	T_ASSERT(!f.incomplete);
}

static void t_every_order(void)
{
	static const char *const perms[6][3] = {
		{ "p1", "p2", "p3" }, { "p1", "p3", "p2" }, { "p2", "p1", "p3" },
		{ "p2", "p3", "p1" }, { "p3", "p1", "p2" }, { "p3", "p2", "p1" },
	};
	struct whole w = { .fd = -1 };
	struct splitset ss;
	struct mdf_err err;

	if (!g.ok) {
		t_skip(g.why);
		return;
	}
	T_ASSERT(whole_open(&w));
	for (int i = 0; i < 6; i++) {
		T_OK(open_set(&ss, perms[i], 3, &err), &err);
		T_EQ_U64(ss.n, 3);
		T_EQ_U64(ss.order[0]->di.split_start_pfn, 0);
		T_EQ_U64(ss.order[2]->di.split_end_pfn, ss.order[0]->di.max_mapnr);
		T_EQ_STR(ss.parts[0].path, path(perms[i][0]));
		if (i == 0 || i == 5)
			check_pages(&ss, &w);
		splitset_close(&ss);
		splitset_close(&ss); /* twice: harmless */
	}
	whole_close(&w);
}

/* read_paddr across the boundary of two parts, and the part of a pfn. */
static void t_boundary(void)
{
	static const char *const names[3] = { "p3", "p1", "p2" };
	struct whole w = { .fd = -1 };
	struct splitset ss;
	struct mdf_err err;
	unsigned char *a = malloc(3 * 4096), *b = malloc(3 * 4096);
	uint64_t pfn, cut;

	if (!g.ok) {
		t_skip(g.why);
		free(a);
		free(b);
		return;
	}
	T_ASSERT(whole_open(&w));
	T_OK(open_set(&ss, names, 3, &err), &err);
	cut = ss.order[1]->di.split_start_pfn;
	T_ASSERT(splitset_part_of(&ss, 0) == ss.order[0]);
	T_ASSERT(splitset_part_of(&ss, cut - 1) == ss.order[0]);
	T_ASSERT(splitset_part_of(&ss, cut) == ss.order[1]);
	T_ASSERT(splitset_part_of(&ss, ss.order[2]->di.split_end_pfn - 1) == ss.order[2]);
	T_ASSERT(splitset_part_of(&ss, ss.order[2]->di.split_end_pfn) == NULL);
	/* the nearest three stored pages around the cut, read as one run */
	for (pfn = cut - 1; pfn > 0 && !(diskdump_dumpable(&w.di, pfn) &&
					 diskdump_dumpable(&w.di, pfn + 1) &&
					 diskdump_dumpable(&w.di, pfn + 2)); pfn--)
		;
	if (pfn + 2 >= cut && pfn > 0) {
		T_OK(splitset_input_ops.read_paddr(&ss, NULL, pfn * 4096 + 100, a, 2 * 4096, &err),
		     &err);
		T_OK(diskdump_read_paddr(&w.di, &w.cache, pfn * 4096 + 100, b, 2 * 4096, &err),
		     &err);
		T_ASSERT(memcmp(a, b, 2 * 4096) == 0);
	} else {
		t_skip("no three stored pages across the first cut");
	}
	/* beyond the machine: the reader's own words */
	T_EQ_U64(splitset_input_ops.read_paddr(&ss, NULL, w.di.max_mapnr * 4096, a, 8, &err),
		 MDF_ERR_NODATA);
	T_ASSERT(strstr(err.msg, "beyond max_mapnr") != NULL);
	splitset_close(&ss);
	whole_close(&w);
	free(a);
	free(b);
}

/* A refused set: status @st and exactly @want (paths made absolute). */
static void refuse(const char *const *names, unsigned n, enum mdf_status st,
		   const char *fmt, const char *a, const char *b, const char *c)
{
	char want[MDF_ERR_MSG_MAX];
	struct splitset ss;
	struct mdf_err err;

	snprintf(want, sizeof(want), fmt, a ? path(a) : "", b ? path(b) : "", c ? path(c) : "");
	T_EQ_U64(open_set(&ss, names, n, &err), st);
	T_EQ_STR(err.msg, want);
	T_ASSERT(ss.parts == NULL && ss.n == 0);
	splitset_close(&ss);
}

static void t_refuse(void)
{
	static const char *const gap[] = { "p1", "p3" }, *const first[] = { "p3", "p2" },
		*const last[] = { "p2", "p1" }, *const copy[] = { "p1", "p2", "p2copy", "p3" },
		*const link_[] = { "p1", "p2", "p3", "p1link" }, *const twice[] = { "p2", "p2", "p1" },
		*const other[] = { "p1", "q2", "p3" }, *const plain[] = { "p1", "whole", "p2", "p3" },
		*const elf[] = { "vm", "p1", "p2", "p3" }, *const one[] = { "p1" };
	struct splitset ss;
	struct mdf_err err;
	uint64_t s2, s3, max;

	if (!g.ok) {
		t_skip(g.why);
		return;
	}
	{
		static const char *const all[] = { "p1", "p2", "p3" };

		T_OK(open_set(&ss, all, 3, &err), &err);
		s2 = ss.parts[1].di.split_start_pfn;
		s3 = ss.parts[2].di.split_start_pfn;
		max = ss.parts[0].di.max_mapnr;
		splitset_close(&ss);
	}
	{
		char fmt[512];

		snprintf(fmt, sizeof(fmt),
			 "the split set lacks pfns 0x%llx-0x%llx, after %%s and before %%s (a part is missing)",
			 (unsigned long long)s2, (unsigned long long)s3);
		refuse(gap, 2, MDF_ERR_ARG, fmt, "p1", "p3", NULL);
		snprintf(fmt, sizeof(fmt),
			 "the split set lacks pfns 0x0-0x%llx, before %%s (its first part is missing)",
			 (unsigned long long)s2);
		refuse(first, 2, MDF_ERR_ARG, fmt, "p2", NULL, NULL);
		snprintf(fmt, sizeof(fmt),
			 "the split set lacks pfns 0x%llx-0x%llx, after %%s (its last part is missing)",
			 (unsigned long long)s3, (unsigned long long)max);
		refuse(last, 2, MDF_ERR_ARG, fmt, "p2", NULL, NULL);
		snprintf(fmt, sizeof(fmt),
			 "%%s: pfns 0x%llx-0x%llx overlap %%s's 0x%llx-0x%llx (the same part twice?)",
			 (unsigned long long)s2, (unsigned long long)s3,
			 (unsigned long long)s2, (unsigned long long)s3);
		refuse(copy, 4, MDF_ERR_ARG, fmt, "p2copy", "p2", NULL);
	}
	refuse(link_, 4, MDF_ERR_ARG, "%s: the same file as %s (a part given twice)",
	       "p1link", "p1", NULL);
	refuse(twice, 3, MDF_ERR_ARG, "%s: the same file as %s (a part given twice)",
	       "p2", "p2", NULL);
	refuse(other, 3, MDF_ERR_ARG, "%s: not a part of the same dump as %s (dump level differs)",
	       "q2", "p1", NULL);
	refuse(plain, 4, MDF_ERR_ARG, "%s: not a part of a split dump (split=0)%s%s",
	       "whole", NULL, NULL);
	T_ASSERT(open_set(&ss, plain, 4, &err) != MDF_OK && ss.not_a_part);
	T_EQ_U64(open_set(&ss, elf, 4, &err), MDF_ERR_FORMAT);
	T_ASSERT(ss.not_a_part && strstr(err.msg, "not a kdump-compressed dump") != NULL);
	T_EQ_U64(open_set(&ss, one, 1, &err), MDF_ERR_ARG);
	T_EQ_STR(err.msg, "a split set has 2 to 256 parts, not 1");
}

int main(int argc, char **argv)
{
	(void)argc;
	genvm_init(&g, argv[0], "mdf-splitset");
	if (g.ok) {
		char *slash;

		snprintf(mdf, sizeof(mdf), "%s", g.bin);
		slash = strstr(mdf, "/../gen/mkvmcore"); /* build/<flavour>/tests/unit/.. */
		if (slash)
			strcpy(slash, "/../../makedumpfile");
		if (!slash || access(mdf, X_OK) != 0)
			genvm_fail(&g, "makedumpfile not built");
	}
	if (g.ok)
		setup();
	T_RUN(t_every_order);
	T_RUN(t_boundary);
	T_RUN(t_refuse);
	genvm_fini(&g);
	return t_done();
}
