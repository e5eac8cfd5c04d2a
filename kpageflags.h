/*
 * kpageflags.h - the words of the kernel's /proc/kpageflags: its flag bits
 * (include/uapi/linux/kernel-page-flags.h), the letters and names the
 * kernel's tools/mm/page-types prints for them and its default view, and
 * the table of pages per combination of flags that --page-types fills
 * (filter/pagetypes.h) and the report prints.
 */
#ifndef MDF_KPAGEFLAGS_H
#define MDF_KPAGEFLAGS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* The bits of /proc/kpageflags (include/uapi/linux/kernel-page-flags.h),
 * and page-types' own above 32. */
enum kpf_bit {
	KPF_B_LOCKED = 0, KPF_B_ERROR = 1, KPF_B_REFERENCED = 2, KPF_B_UPTODATE = 3,
	KPF_B_DIRTY = 4, KPF_B_LRU = 5, KPF_B_ACTIVE = 6, KPF_B_SLAB = 7,
	KPF_B_WRITEBACK = 8, KPF_B_RECLAIM = 9, KPF_B_BUDDY = 10, KPF_B_MMAP = 11,
	KPF_B_ANON = 12, KPF_B_SWAPCACHE = 13, KPF_B_SWAPBACKED = 14,
	KPF_B_COMPOUND_HEAD = 15, KPF_B_COMPOUND_TAIL = 16, KPF_B_HUGE = 17,
	KPF_B_UNEVICTABLE = 18, KPF_B_HWPOISON = 19, KPF_B_NOPAGE = 20, KPF_B_KSM = 21,
	KPF_B_THP = 22, KPF_B_OFFLINE = 23, KPF_B_ZERO_PAGE = 24, KPF_B_IDLE = 25,
	KPF_B_PGTABLE = 26,
};
#define KPF_BIT(b) (1ULL << (b))

/** page-types' default view of raw kpageflags: the bits above 31 hidden,
 *  and the compound bits of pages that are not hugetlb. */
uint64_t kpf_well_known(uint64_t kpf);

/** page-types' symbolic flags (one letter or '_' per named bit) into
 *  @buf (at least 65 bytes), and the long names joined by commas into
 *  @lbuf (@lcap bytes). */
void kpf_names(uint64_t flags, char *buf, char *lbuf, size_t lcap);

struct kpf_row {
	uint64_t flags, pages;
};

/* Pages per combination of flags. */
struct kpf_table {
	struct kpf_row *e;
	size_t n, cap;
	uint64_t total;
	uint64_t page_size;
	uint64_t unreadable;   /* pfns whose struct pages the dump lacks
				  (counted as nopage) */
	uint64_t unknown;      /* KPF bits that cannot be told (no BTF) */
	double seconds;
};

/** Count @pages pages of @flags (well-known flags already applied). */
enum mdf_status kpf_table_add(struct kpf_table *pt, uint64_t flags, uint64_t pages,
			      struct mdf_err *err) MDF_MUST_CHECK;

/** The table sorted by flags. */
void kpf_table_sort(struct kpf_table *pt);

void kpf_table_free(struct kpf_table *pt);

/* --page-types-by: a table per process or cgroup, by its name. */
#define KPF_GROUP_NAME 320
struct kpf_group {
	char name[KPF_GROUP_NAME]; /* "process 1 (init)", a cgroup's path */
	unsigned members;          /* processes in it */
	struct kpf_table pt;
};

struct kpf_groups {
	const char *by;            /* "task", "cgroup" */
	struct kpf_group *g;
	size_t n, cap;
};

/** The group called @name in @gs, made when there is none. */
enum mdf_status kpf_group_get(struct kpf_groups *gs, const char *name, struct kpf_group **ret,
			      struct mdf_err *err) MDF_MUST_CHECK;

void kpf_groups_free(struct kpf_groups *gs);

#endif
