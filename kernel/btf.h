/*
 * btf.h - the kernel's own type information, read from the dump.
 *
 * Kernels built with CONFIG_DEBUG_INFO_BTF (every Debian, Fedora and
 * Ubuntu kernel) carry their types in the .BTF section, between
 * __start_BTF and __stop_BTF, which kallsyms (kernel/kallsyms.h) finds in
 * the dump.  libbpf parses the blob from memory (btf__new(), either byte
 * order); this gives sizes and member offsets as DWARF does for -x, with
 * no debug vmlinux (issue 27).
 */
#ifndef MDF_BTF_H
#define MDF_BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kernel/dwarf_info.h"
#include "kernel/kallsyms.h"
#include "readmem.h"

struct btf;

struct kbtf {
	struct btf *btf;     /* libbpf's */
	uint64_t start;      /* __start_BTF */
	size_t len;          /* __stop_BTF - __start_BTF */
};

/** Whether this build reads BTF (libbpf was found). */
bool kbtf_supported(void);

/**
 * Read the kernel's BTF through @rm (its place from @ks) and parse it.
 * MDF_ERR_NODATA when the kernel has none (no __start_BTF: built without
 * CONFIG_DEBUG_INFO_BTF), MDF_ERR_NOTSUPP in a build without libbpf,
 * MDF_ERR_FORMAT when libbpf refuses the bytes (naming where they are).
 */
enum mdf_status kbtf_load(struct kbtf *b, const struct kallsyms *ks, struct readmem *rm,
			  struct mdf_err *err) MDF_MUST_CHECK;

/**
 * A module's BTF (struct module's btf_data, @len bytes at @va): split BTF
 * whose type ids go on from @base's (the vmlinux's), read through @rm.
 */
enum mdf_status kbtf_load_split(struct kbtf *b, const struct kbtf *base, uint64_t va,
				uint64_t len, struct readmem *rm, struct mdf_err *err) MDF_MUST_CHECK;

/** @len bytes of split BTF on @base's (copied); for kbtf_load_split() and
 *  the fuzz target.  MDF_ERR_FORMAT naming @where when libbpf refuses. */
enum mdf_status kbtf_split_from_bytes(struct kbtf *b, const struct kbtf *base, const void *data,
				      size_t len, const char *where,
				      struct mdf_err *err) MDF_MUST_CHECK;

/** Parse @len bytes of BTF (copied); for kbtf_load() and the fuzz target.
 *  MDF_ERR_FORMAT naming @where when libbpf refuses them. */
enum mdf_status kbtf_from_bytes(struct kbtf *b, const void *data, size_t len, const char *where,
				struct mdf_err *err) MDF_MUST_CHECK;

/** The size of struct @name (or union), or false when there is none. */
bool kbtf_struct_size(const struct kbtf *b, const char *name, uint64_t *size);

/**
 * The byte offset of member @member of struct @name, looking through
 * anonymous structs and unions as C does; false when there is none (or it
 * is a bit-field that does not start on a byte).
 */
bool kbtf_member_offset(const struct kbtf *b, const char *name, const char *member,
			uint64_t *off);

/** The size of the struct, union, typedef or enum called @name. */
bool kbtf_type_size(const struct kbtf *b, const char *name, uint64_t *size);

/** The number of elements of member @member of struct @name, an array;
 *  false when there is none or it is no array. */
bool kbtf_member_length(const struct kbtf *b, const char *name, const char *member,
			uint64_t *nelems);

/** The value of enumerator @name of enum @type; false when there is none. */
bool kbtf_enum_value(const struct kbtf *b, const char *type, const char *name, int64_t *v);

/*
 * The shape --config's resolver takes its types in (filter/erase.h,
 * struct erase_types), as kernel/dwarf_info.h gives them for -x: a
 * struct dwarf_type holds a BTF type id.
 *
 * kbtf_lookup(): a type query finds a struct, union or typedef of that
 * name; a variable query finds its BTF VAR, which Linux emits for per-cpu
 * variables only (pahole's default): other variables are not found.
 */
enum mdf_status kbtf_lookup(const struct kbtf *b, struct dwarf_query *q, size_t n,
			    struct mdf_err *err) MDF_MUST_CHECK;
enum mdf_status kbtf_describe(const struct kbtf *b, struct dwarf_type t,
			      struct dwarf_type_info *ti, struct mdf_err *err) MDF_MUST_CHECK;
enum mdf_status kbtf_member(const struct kbtf *b, struct dwarf_type t, const char *name,
			    bool *found, uint64_t *off, struct dwarf_type *mt,
			    struct mdf_err *err) MDF_MUST_CHECK;

void kbtf_free(struct kbtf *b);

#endif
