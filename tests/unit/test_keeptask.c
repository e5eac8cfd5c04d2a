/*
 * tests/unit/test_keeptask.c - --keep-task's SPEC and its set of pages
 * (filter/keeptask.c): what a SPEC may be, and whether a run of pfns
 * meets the kept ranges (the scan's question for a page, or a compound
 * page and its tails).  The walk itself: test_arch_x86_64 (the page
 * tables) and e2e/keep_task (real dumps).
 */
#include <string.h>

#include "tap.h"

#include "filter/keeptask.h"

static void parse(void)
{
	static const char *const bad[] = { "", "0", "-1", "+5", "12x", "0x10", "comm:",
					   "comm:0123456789abcdef", "cgroup:", "cgroup:x", "cgroup://x",
					   "cgroup", "99999999999", "2147483648" };
	struct mdf_keep_spec s;
	struct mdf_err err;

	T_OK(opts_keep_spec_parse("1234", &s, &err), &err);
	T_ASSERT(s.kind == MDF_KEEP_PID && s.pid == 1234);
	T_OK(opts_keep_spec_parse("2147483647", &s, &err), &err);
	T_ASSERT(s.pid == 2147483647);
	T_OK(opts_keep_spec_parse("comm:qemu-system-x86", &s, &err), &err);
	T_ASSERT(s.kind == MDF_KEEP_COMM);
	T_EQ_STR(s.comm, "qemu-system-x86");
	T_EQ_STR(s.text, "comm:qemu-system-x86");
	T_OK(opts_keep_spec_parse("cgroup:/system.slice/foo.service/", &s, &err), &err);
	T_ASSERT(s.kind == MDF_KEEP_CGROUP);
	T_EQ_STR(s.cgroup, "/system.slice/foo.service");
	T_OK(opts_keep_spec_parse("cgroup:/", &s, &err), &err);
	T_EQ_STR(s.cgroup, "/");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		T_EQ_U64(opts_keep_spec_parse(bad[i], &s, &err), MDF_ERR_ARG);
		T_ASSERT(strstr(err.msg, "--keep-task ") == err.msg);
	}
}

static void ranges(void)
{
	struct keeptask kt;
	struct mdf_err err;

	memset(&kt, 0, sizeof(kt));
	/* as the walks add them: out of order, one run in two pieces */
	T_OK(pfn_set_add(&kt.kept, 512, 700, "t", &err), &err);
	T_OK(pfn_set_add(&kt.kept, 10, 20, "t", &err), &err);
	T_OK(pfn_set_add(&kt.kept, 100, 101, "t", &err), &err);
	T_OK(pfn_set_add(&kt.kept, 600, 1024, "t", &err), &err);
	pfn_set_compact(&kt.kept);
	T_ASSERT(!keeptask_has(&kt, 0, 10));
	T_ASSERT(keeptask_has(&kt, 0, 11));
	T_ASSERT(keeptask_has(&kt, 19, 1));
	T_ASSERT(!keeptask_has(&kt, 20, 80));
	T_ASSERT(keeptask_has(&kt, 20, 81));
	T_ASSERT(keeptask_has(&kt, 100, 1));
	T_ASSERT(!keeptask_has(&kt, 101, 1));
	/* a THP head before the range, its tails in it */
	T_ASSERT(keeptask_has(&kt, 0, 512 + 1));
	T_ASSERT(!keeptask_has(&kt, 1024, 512));
	T_EQ_U64(kt.kept.pages, 10 + 1 + 512);
	keeptask_free(&kt);
	T_ASSERT(!keeptask_has(&kt, 0, 1ULL << 40));
}

int main(void)
{
	T_RUN(parse);
	T_RUN(ranges);
	return t_done();
}
