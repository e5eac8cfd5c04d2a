/*
 * tests/unit/test_kpageflags.c - /proc/kpageflags' words and page-types'
 * table (kpageflags.c): its default view, its letters and names (never
 * past the buffer), merging rows and their order, groups by name.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

#include "kpageflags.h"

#define B(x) KPF_BIT(KPF_B_##x)

static void names(void)
{
	char sym[72], lng[256];

	kpf_names(B(REFERENCED) | B(UPTODATE) | B(LRU), sym, lng, sizeof(lng));
	T_EQ_STR(sym, "__RU_l______________________________________");
	T_EQ_STR(lng, "referenced,uptodate,lru");
	kpf_names(B(NOPAGE), sym, lng, sizeof(lng));
	T_EQ_STR(lng, "nopage");
	kpf_names(0, sym, lng, sizeof(lng));
	T_EQ_STR(lng, "");
	T_EQ_U64(strlen(sym), 44);
	/* a name cut short by the buffer never runs past it */
	kpf_names(B(REFERENCED) | B(UPTODATE) | B(LRU), sym, lng, 8);
	T_ASSERT(strlen(lng) < 8);
}

static void well_known(void)
{
	/* compound bits only for hugetlb; bits 32 and up hidden */
	T_EQ_U64(kpf_well_known(B(COMPOUND_TAIL) | B(THP) | (1ULL << 33)), B(THP));
	T_EQ_U64(kpf_well_known(B(COMPOUND_HEAD) | B(HUGE)), B(COMPOUND_HEAD) | B(HUGE));
}

static void table(void)
{
	struct kpf_table pt;
	struct mdf_err err;

	memset(&pt, 0, sizeof(pt));
	for (unsigned i = 0; i < 200; i++)
		T_OK(kpf_table_add(&pt, (i % 70) * 4, 1 + i / 70, &err), &err);
	T_EQ_U64(pt.n, 70);
	kpf_table_sort(&pt);
	T_EQ_U64(pt.e[0].flags, 0);
	T_EQ_U64(pt.e[69].flags, 69 * 4);
	T_EQ_U64(pt.e[0].pages, 1 + 2 + 3);
	T_EQ_U64(pt.e[69].pages, 1 + 2);
	T_EQ_U64(pt.total, 200 + 130 + 60);
	kpf_table_free(&pt);
}

static void groups(void)
{
	struct kpf_groups gs;
	struct kpf_group *a, *b, *c;
	struct mdf_err err;

	memset(&gs, 0, sizeof(gs));
	for (unsigned i = 0; i < 40; i++) {
		char name[32];

		snprintf(name, sizeof(name), "process %u", i % 20);
		T_OK(kpf_group_get(&gs, name, &a, &err), &err);
		a->members++;
	}
	T_EQ_U64(gs.n, 20);
	T_OK(kpf_group_get(&gs, "process 3", &b, &err), &err);
	T_OK(kpf_group_get(&gs, "process 3", &c, &err), &err);
	T_ASSERT(b == c && b->members == 2);
	kpf_groups_free(&gs);
	T_ASSERT(gs.n == 0 && gs.g == NULL);
}

int main(void)
{
	T_RUN(names);
	T_RUN(well_known);
	T_RUN(table);
	T_RUN(groups);
	return t_done();
}
