/*
 * pageclass.h - the classes a page falls in, and the rules that may
 * lack the VMCOREINFO entries they need: one word for the filter that
 * decides them, the report that counts them and the tests.
 *
 * X(name, report label, shown): shown is 0 for the classes that are
 * kept (never in the report), 1 for a line always printed, 2 for a line
 * printed only when its count is not zero.  Report labels are upstream's.
 */
#ifndef MDF_PAGECLASS_H
#define MDF_PAGECLASS_H

#include <stdbool.h>

#define PAGE_CLASSES(X)                                 \
	X(KEEP, "kept", 0)                              \
	X(TAIL, "compound tail", 0)                     \
	X(CACHE, "Non-private cache pages", 1)          \
	X(CACHE_PRIVATE, "Private cache pages", 1)      \
	X(USER, "User process data pages", 1)           \
	X(FREE, "Free pages", 1)                        \
	X(HWPOISON, "Hwpoison pages", 1)                \
	X(OFFLINE, "Offline pages", 1)                  \
	X(UNACCEPTED, "Unaccepted pages", 2)           \
	X(EXTENSION, "Extension filter pages", 2)

enum page_class {
#define PAGE_CLASS_ENUM(name, label, shown) PC_##name,
	PAGE_CLASSES(PAGE_CLASS_ENUM)
#undef PAGE_CLASS_ENUM
	PC_COUNT
};

/*
 * Rules a dump level asks for that VMCOREINFO may leave without what they
 * need; the pages they then keep are counted and reported by these names.
 * X(name, report name):
 *   FREE           free (buddy) pages, -d 16
 *   CACHE          page cache and swap cache, -d 2 and 4
 *   USER           anonymous pages, -d 8
 *   HUGETLB        hugetlbfs pages, -d 8
 *   COMPOUND_TAIL  the tail pages of an excluded compound page, -d 2, 4, 8
 *   HWPOISON       hwpoisoned pages, any level that reads struct pages
 *   OFFLINE        logically offline pages, the same
 */
#define PAGE_RULES(X)                                   \
	X(FREE, "free")                                 \
	X(CACHE, "cache")                               \
	X(USER, "user")                                 \
	X(HUGETLB, "hugetlb")                           \
	X(COMPOUND_TAIL, "compound-tail")               \
	X(HWPOISON, "hwpoison")                         \
	X(OFFLINE, "offline")

enum page_rule {
#define PAGE_RULE_ENUM(name, label) PR_##name,
	PAGE_RULES(PAGE_RULE_ENUM)
#undef PAGE_RULE_ENUM
	PR_COUNT
};

#define RULE_GAP_KEYS 6

/*
 * Why a rule cannot run: the VMCOREINFO entries it would need, none of
 * which is there ("OFFSET(page.mapping)": string literals).  untested:
 * nothing narrows down the pages it might have excluded, so every page
 * the scan keeps is counted for it.
 */
struct rule_gap {
	bool off;
	bool untested;
	unsigned nkeys;
	const char *keys[RULE_GAP_KEYS];
};

#endif
