/*
 * kpageflags.c - /proc/kpageflags' words and page-types' table (kpageflags.h).
 */
#include "kpageflags.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The letters and names page-types prints for each bit it names. */
static const char *const flag_names[64] = {
	[0] = "L:locked", [1] = "E:error", [2] = "R:referenced", [3] = "U:uptodate",
	[4] = "D:dirty", [5] = "l:lru", [6] = "A:active", [7] = "S:slab",
	[8] = "W:writeback", [9] = "I:reclaim", [10] = "B:buddy", [11] = "M:mmap",
	[12] = "a:anonymous", [13] = "s:swapcache", [14] = "b:swapbacked",
	[15] = "H:compound_head", [16] = "T:compound_tail", [17] = "G:huge",
	[18] = "u:unevictable", [19] = "X:hwpoison", [20] = "n:nopage", [21] = "x:ksm",
	[22] = "t:thp", [23] = "o:offline", [24] = "z:zero_page", [25] = "i:idle_page",
	[26] = "g:pgtable",
	[32] = "r:reserved", [33] = "m:mlocked", [34] = "d:owner_2", [35] = "P:private",
	[36] = "p:private_2", [37] = "O:owner_private", [38] = "h:arch", [39] = "c:uncached",
	[40] = "f:softdirty", [41] = "H:arch_2",
	[47] = "d:anon_exclusive", [48] = "I:readahead", [50] = "A:slub_frozen",
	[51] = "E:slub_debug",
	[61] = "F:file", [62] = "w:swap", [63] = "1:mmap_exclusive",
};

uint64_t kpf_well_known(uint64_t kpf)
{
	const uint64_t compound = KPF_BIT(KPF_B_COMPOUND_HEAD) | KPF_BIT(KPF_B_COMPOUND_TAIL);

	kpf &= 0xffffffffULL; /* page-types hides bits 32-47 for kernel hackers */
	if ((kpf & compound) && !(kpf & KPF_BIT(KPF_B_HUGE)))
		kpf &= ~compound;
	return kpf;
}

void kpf_names(uint64_t flags, char *buf, char *lbuf, size_t lcap)
{
	size_t j = 0, n = 0;

	if (lcap)
		lbuf[0] = '\0';
	for (unsigned i = 0; i < 64; i++) {
		if (!flag_names[i])
			continue;
		buf[j++] = (flags >> i) & 1 ? flag_names[i][0] : '_';
		if (((flags >> i) & 1) && n < lcap) {
			int w = snprintf(lbuf + n, lcap - n, "%s%s", n ? "," : "", flag_names[i] + 2);

			n = w > 0 && (size_t)w < lcap - n ? n + (size_t)w : lcap;
		}
	}
	buf[j] = '\0';
}

/* ---- the table ----------------------------------------------------- */

enum mdf_status kpf_table_add(struct kpf_table *pt, uint64_t flags, uint64_t pages,
			      struct mdf_err *err)
{
	/* a few hundred combinations at most: a linear look from the last
	 * one found, which the next page usually repeats */
	for (size_t i = 0; i < pt->n; i++) {
		if (pt->e[i].flags == flags) {
			pt->e[i].pages += pages;
			pt->total += pages;
			if (i) { /* move it forward: the common ones come first */
				struct kpf_row t = pt->e[i];

				pt->e[i] = pt->e[i - 1];
				pt->e[i - 1] = t;
			}
			return MDF_OK;
		}
	}
	if (pt->n == pt->cap) {
		size_t cap = pt->cap ? 2 * pt->cap : 64;
		struct kpf_row *e = realloc(pt->e, cap * sizeof(*e));

		if (!e)
			return mdf_err_set(err, MDF_ERR_NOMEM, "--page-types: out of memory");
		pt->e = e;
		pt->cap = cap;
	}
	pt->e[pt->n++] = (struct kpf_row){ flags, pages };
	pt->total += pages;
	return MDF_OK;
}

static int by_flags(const void *a, const void *b)
{
	const struct kpf_row *x = a, *y = b;

	return x->flags < y->flags ? -1 : x->flags > y->flags;
}

void kpf_table_sort(struct kpf_table *pt)
{
	if (pt->n)
		qsort(pt->e, pt->n, sizeof(*pt->e), by_flags);
}

void kpf_table_free(struct kpf_table *pt)
{
	free(pt->e);
	pt->e = NULL;
	pt->n = pt->cap = 0;
}

enum mdf_status kpf_group_get(struct kpf_groups *gs, const char *name,
				struct kpf_group **ret, struct mdf_err *err)
{
	for (size_t i = 0; i < gs->n; i++) {
		if (strcmp(gs->g[i].name, name) == 0) {
			*ret = &gs->g[i];
			return MDF_OK;
		}
	}
	if (gs->n == gs->cap) {
		size_t cap = gs->cap ? 2 * gs->cap : 16;
		struct kpf_group *g = realloc(gs->g, cap * sizeof(*g));

		if (!g)
			return mdf_err_set(err, MDF_ERR_NOMEM, "--page-types-by: out of memory");
		gs->g = g;
		gs->cap = cap;
	}
	*ret = &gs->g[gs->n++];
	memset(*ret, 0, sizeof(**ret));
	snprintf((*ret)->name, sizeof((*ret)->name), "%s", name);
	return MDF_OK;
}

void kpf_groups_free(struct kpf_groups *gs)
{
	for (size_t i = 0; i < gs->n; i++)
		kpf_table_free(&gs->g[i].pt);
	free(gs->g);
	gs->g = NULL;
	gs->n = gs->cap = 0;
}

