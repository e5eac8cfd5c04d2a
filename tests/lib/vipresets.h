/*
 * tests/lib/vipresets.h - VMCOREINFO texts of Debian's 6.1 and 6.12 amd64
 * kernels (lines of the real ones: the struct page layout and the numbers
 * the filter rules read), for the unit tests that build rules by hand
 * (test_filter, test_pagetypes).
 */
#ifndef MDF_TESTS_VIPRESETS_H
#define MDF_TESTS_VIPRESETS_H

/* Lines common to all x86_64 presets: the struct page word offsets. */
#define PAGE_WORDS                          \
	"SIZE(page)=64\n"                   \
	"OFFSET(page.flags)=0\n"            \
	"OFFSET(page._refcount)=52\n"       \
	"OFFSET(page.mapping)=24\n"         \
	"OFFSET(page.lru)=8\n"              \
	"OFFSET(page._mapcount)=48\n"       \
	"OFFSET(page.private)=40\n"         \
	"LENGTH(zone.free_area)=11\n"

/* 6.1.0-57-amd64 (Debian 12), lines from its VMCOREINFO. */
#define V61_TEXT                                \
	"OSRELEASE=6.1.0-57-amd64\n"            \
	PAGE_WORDS                              \
	"OFFSET(page.compound_dtor)=16\n"       \
	"OFFSET(page.compound_order)=17\n"      \
	"OFFSET(page.compound_head)=8\n"        \
	"NUMBER(PG_lru)=4\n"                    \
	"NUMBER(PG_private)=13\n"               \
	"NUMBER(PG_swapcache)=10\n"             \
	"NUMBER(PG_swapbacked)=19\n"            \
	"NUMBER(PG_slab)=9\n"                   \
	"NUMBER(PG_hwpoison)=23\n"              \
	"NUMBER(PG_head_mask)=65536\n"          \
	"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129\n" \
	"NUMBER(HUGETLB_PAGE_DTOR)=2\n"         \
	"NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-257\n"

/* 6.12.117+deb13-amd64 (Debian 13), lines from its VMCOREINFO. */
#define V612_NUMBERS                                              \
	"NUMBER(PG_lru)=5\n"                                      \
	"NUMBER(PG_private)=14\n"                                 \
	"NUMBER(PG_swapcache)=10\n"                               \
	"NUMBER(PG_swapbacked)=17\n"                              \
	"NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=-184549376\n"           \
	"NUMBER(PG_hwpoison)=20\n"                                \
	"NUMBER(PG_head_mask)=64\n"                               \
	"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-268435456\n"          \
	"NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)=-201326592\n"        \
	"NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-251658240\n"

#define V612_TEXT                               \
	"OSRELEASE=6.12.117+deb13-amd64\n"      \
	PAGE_WORDS                              \
	"OFFSET(page.compound_head)=8\n"        \
	V612_NUMBERS

#endif
