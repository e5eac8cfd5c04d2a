/*
 * extension.h - --extension FILE.so: extensions that keep or drop pages
 * and erase data (include/makedumpfile/extension.h is their side).
 *
 * ext_open() loads every shared object first, before the dump is read
 * (a name without a '/' is looked for in ./, ./extensions/ and the
 * installed extensions' directory, as upstream); one that cannot load
 * or that lacks "mdf_extension" of our ABI is an error naming it.
 * ext_init() runs each one's init() with the host's lookups (the dump's
 * kallsyms and BTF, or -x's DWARF), reads and erases; ext_page() is the
 * scan's page hook; ext_close() runs cleanup() and unloads.
 */
#ifndef MDF_EXTENSION_H
#define MDF_EXTENSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "filter/erase.h"
#include "readmem.h"

#define EXT_MAX 16

struct ext_set;

struct ext_env {
	const struct erase_types *types;  /* symbols and types, or NULL */
	uint64_t kernel_offset;           /* added to symbols that are not
					     running addresses (DWARF's) */
	struct readmem *rm;
	struct erase_set *es;             /* erase() adds here */
	uint32_t page_size, page_struct_size;
	bool big_endian;
	/* a line for the user (print_info.c prints) */
	void (*say)(void *arg, const char *ext, const char *text);
	void *say_arg;
};

/** Load @n extensions (@paths as given); @dir is the installed ones'. */
enum mdf_status ext_open(struct ext_set **ret, char *const *paths, size_t n, const char *dir,
			 struct mdf_err *err) MDF_MUST_CHECK;

/** Run every init(); an extension whose init() fails is skipped (said
 *  through env->say) and the rest run.  The erase ranges are added to
 *  env->es (not sorted) with one eraseinfo line per extension that erased. */
enum mdf_status ext_init(struct ext_set *s, const struct ext_env *env,
			 struct mdf_err *err) MDF_MUST_CHECK;

/** Whether a running extension has a page hook. */
bool ext_has_page_hook(const struct ext_set *s);

/** The scan's hook (filter_page_hook): enum mdf_ext_page's values. */
int ext_page(void *set, uint64_t pfn, const unsigned char *struct_page);

/** The names of the extensions, for messages. */
const char *ext_name(const struct ext_set *s, size_t i);
size_t ext_count(const struct ext_set *s);

/** cleanup() of each that ran, then unload.  NULL is fine. */
void ext_close(struct ext_set *s);

#endif
