/*
 * makedumpfile/extension.h - extensions of makedumpfile: shared objects
 * given with --extension FILE.so that keep or drop pages and erase data,
 * using the crashed kernel's own symbols and types (its kallsyms and BTF
 * in the dump, or -x VMLINUX's DWARF).
 *
 * An extension exports one object named "mdf_extension":
 *
 *	#include <makedumpfile/extension.h>
 *
 *	static int init(const struct mdf_ext_host *host, void **state) { ... }
 *	const struct mdf_extension mdf_extension = {
 *		.abi = MDF_EXTENSION_ABI, .name = "mine", .init = init,
 *	};
 *
 * and is built with `cc -shared -fPIC -o mine.so mine.c`.  makedumpfile
 * calls init() once, after it has read the kernel's metadata and before it
 * scans the struct pages; page() (optional) for each page whose struct
 * page the scan reads; cleanup() (optional) at the end.  Extensions built
 * for upstream makedumpfile (against its internal headers) cannot load.
 *
 * This interface is ABI version 1: a member is never moved or removed, and
 * new ones come at the ends of the structs with a new version.
 */
#ifndef MAKEDUMPFILE_EXTENSION_H
#define MAKEDUMPFILE_EXTENSION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MDF_EXTENSION_ABI 1

/* What page() says of a page.  Any extension's KEEP keeps it, whatever the
 * dump level says; else any DROP drops it, if the dump level keeps it;
 * else the dump level decides. */
enum mdf_ext_page {
	MDF_EXT_UNDECIDED = 0,
	MDF_EXT_KEEP = 1,
	MDF_EXT_DROP = 2,
};

/* What makedumpfile gives an extension.  Each function takes @ctx first
 * and returns 0 on success, -1 when the thing is not there (or cannot be
 * read).  Addresses are the crashed kernel's virtual addresses, as it ran
 * (KASLR applied). */
struct mdf_ext_host {
	unsigned abi;               /* MDF_EXTENSION_ABI */
	void *ctx;
	uint32_t page_size;         /* the dump's page size */
	uint32_t page_struct_size;  /* sizeof(struct page) */
	int big_endian;             /* the dump's byte order */
	/* the address of a kernel symbol */
	int (*symbol)(void *ctx, const char *name, uint64_t *addr);
	/* the size of a struct, union, typedef or enum */
	int (*type_size)(void *ctx, const char *type, uint64_t *size);
	/* the byte offset and size of a member (through anonymous members) */
	int (*member)(void *ctx, const char *type, const char *member, uint64_t *offset,
		      uint64_t *size);
	/* @len bytes of kernel memory at @vaddr (in init() only) */
	int (*read)(void *ctx, uint64_t vaddr, void *buf, size_t len);
	/* overwrite @len bytes at @vaddr with @fill in the dump written
	 * (in init() only); the eraseinfo says how much each extension erased */
	int (*erase)(void *ctx, uint64_t vaddr, uint64_t len, unsigned char fill);
	/* one line of text for the user (no newline needed) */
	void (*message)(void *ctx, const char *text);
};

struct mdf_extension {
	unsigned abi;               /* MDF_EXTENSION_ABI */
	const char *name;
	/* 0: the extension runs; anything else: it is skipped (said) */
	int (*init)(const struct mdf_ext_host *host, void **state);
	/* the page of @pfn, whose struct page is @struct_page (the dump's
	 * bytes, host->page_struct_size of them).  May be NULL.  It may be
	 * called from several threads at once (--num-threads). */
	enum mdf_ext_page (*page)(void *state, uint64_t pfn, const void *struct_page);
	/* after the dump is written, or when it fails.  May be NULL. */
	void (*cleanup)(void *state);
};

#ifdef __cplusplus
}
#endif

#endif
