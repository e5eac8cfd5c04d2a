/*
 * pageclass.h - the classes a page falls in: one word for the filter
 * that decides them, the report that counts them and the tests.
 *
 * X(name, report label, shown): shown is 0 for the classes that are
 * kept (never in the report), 1 for a line always printed, 2 for a line
 * printed only when its count is not zero.  Report labels are upstream's.
 */
#ifndef MDF_PAGECLASS_H
#define MDF_PAGECLASS_H

#define PAGE_CLASSES(X)                                 \
	X(KEEP, "kept", 0)                              \
	X(TAIL, "compound tail", 0)                     \
	X(CACHE, "Non-private cache pages", 1)          \
	X(CACHE_PRIVATE, "Private cache pages", 1)      \
	X(USER, "User process data pages", 1)           \
	X(FREE, "Free pages", 1)                        \
	X(HWPOISON, "Hwpoison pages", 1)                \
	X(OFFLINE, "Offline pages", 1)                  \
	X(UNACCEPTED, "Unaccepted pages", 2)

enum page_class {
#define PAGE_CLASS_ENUM(name, label, shown) PC_##name,
	PAGE_CLASSES(PAGE_CLASS_ENUM)
#undef PAGE_CLASS_ENUM
	PC_COUNT
};

#endif
