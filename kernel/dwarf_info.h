/*
 * dwarf_info.h - what a debug vmlinux says of its kernel (-x VMLINUX).
 *
 * libelf gives the symbol table, the build-id note and the bytes of the
 * image's sections; libdw gives types, members, array bounds and
 * enumerators.  The answers are the same struct kinfo the VMCOREINFO
 * parser fills, keyed by the same X-macro lists (kinfo.h), so the rest of
 * the program does not know where a value came from.
 *
 * Speed: one pass over the top-level DIEs of every compilation unit
 * finds every wanted type, variable and enumerator by name (a hash of the
 * wanted names); nested DIEs (function bodies, members of unwanted types)
 * are skipped through DW_AT_sibling.  The pass stops early once every
 * wanted name is found.  Upstream walks the whole DWARF once per key.
 *
 * Reads the vmlinux only: never the dump.  Addresses are link-time
 * addresses; the caller relocates them by KERNELOFFSET.
 */
#ifndef MDF_DWARF_INFO_H
#define MDF_DWARF_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kinfo.h"

struct dwarf_info;

/* Facts of the vmlinux beyond the VMCOREINFO vocabulary. */
struct dwarf_facts {
	uint16_t machine;            /* e_machine */
	bool have_text;              /* _text, the image's first byte */
	uint64_t text;
	bool mem_section_is_ptr;     /* struct mem_section **mem_section
				      * (SPARSEMEM_EXTREME since 4.14): the
				      * symbol holds the roots' address */
	bool have_release_off;       /* offset of the release string in */
	uint64_t release_off;        /* init_uts_ns */
	/* Filled by kernel_open(): the running address of the mem_section
	 * pointer, still to be read from the dump. */
	bool mem_section_pending;
	uint64_t mem_section_at;
};

/**
 * Open @path (an ELF file with DWARF).  Errors name @path: not found, not
 * ELF, no DWARF ("no debugging information: a debug vmlinux, such as
 * /usr/lib/debug/boot/vmlinux-RELEASE, is needed").
 */
enum mdf_status dwarf_info_open(const char *path, struct dwarf_info **ret,
				struct mdf_err *err) MDF_MUST_CHECK;

void dwarf_info_close(struct dwarf_info *di);

/**
 * Open the debuginfo of kernel module @name (as the module list spells
 * it) of kernel @release: NAME.ko or NAME.ko.debug, '-' and '_' alike,
 * looked for under DIR/lib/modules/RELEASE (DIR: @vmlinux's directory),
 * /usr/lib/debug/lib/modules/RELEASE and /lib/modules/RELEASE, in that
 * order.  The .ko is relocatable: libdwfl applies its relocations to the
 * DWARF.  MDF_ERR_NODATA "no debuginfo for module NAME under ..." when
 * there is none.  Only the types are of use: a module's addresses are in
 * the dump (its kallsyms).
 */
enum mdf_status dwarf_info_open_module(const char *vmlinux, const char *release,
				       const char *name, struct dwarf_info **ret,
				       struct mdf_err *err) MDF_MUST_CHECK;

/** The file @di was opened from. */
const char *dwarf_info_path(const struct dwarf_info *di);

/**
 * Fill @ki (kinfo_init()ed by the caller, or holding values to keep:
 * fields found here overwrite) with every key of kinfo.h the vmlinux
 * answers: OSRELEASE (the release string in init_uts_ns's bytes),
 * BUILD-ID, SYMBOL at link-time addresses, SIZE, OFFSET (through
 * anonymous structs and unions), LENGTH (arrays: variables and members),
 * NUMBER (enumerators; PG_head_mask from PG_head), SRCFILE.  PAGESIZE is
 * not in DWARF: left as it is.  @facts_ret may be NULL.  A type graph
 * that loops where a key looks is an error, as for dwarf_type_describe().
 */
enum mdf_status dwarf_info_kinfo(struct dwarf_info *di, struct kinfo *ki,
				 struct dwarf_facts *facts_ret,
				 struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The link-time address of symbol @name (a function or an object), and
 * its size when the symbol table says (either pointer may be NULL).
 * False if there is none.
 */
bool dwarf_info_symbol(struct dwarf_info *di, const char *name, uint64_t *addr_ret,
		       uint64_t *size_ret);

/*
 * Types, for --config: a type is its DIE's offset (0: none or void).
 * Typedefs, const and volatile are looked through.
 */
struct dwarf_type {
	uint64_t die;
};

enum dwarf_type_kind {
	DWARF_T_OTHER,      /* functions, ... */
	DWARF_T_VOID,
	DWARF_T_STRUCT,     /* struct or union */
	DWARF_T_POINTER,
	DWARF_T_ARRAY,
	DWARF_T_INT,        /* base types and enums */
};

struct dwarf_type_info {
	enum dwarf_type_kind kind;
	uint64_t size;              /* bytes; 0 when not known */
	struct dwarf_type target;   /* pointer: the pointee; array: the element */
	uint64_t count;             /* array: its length, 0 when not known */
	bool is_char;               /* a one-byte base type (char) */
	bool is_signed;
};

/* One name to find: a variable's type, or a struct/union/typedef. */
struct dwarf_query {
	const char *name;
	bool is_type;
	bool found;
	struct dwarf_type type;
};

/** Find every query in one pass over the units (found false: none). */
enum mdf_status dwarf_info_lookup(struct dwarf_info *di, struct dwarf_query *q, size_t n,
				  struct mdf_err *err) MDF_MUST_CHECK;

/*
 * What @t is.  Every walk over the type graph is bounded (typedef and
 * qualifier chains, anonymous members, arrays of arrays: see
 * dwarf_info.c); reaching a limit, a DIE that is not a type, or an array
 * whose size overflows 64 bits is an error naming the vmlinux ("VMLINUX:
 * DWARF type of T: ... (a cycle in the type graph?)").  A multi-dimensional
 * array counts all its elements (int a[3][4]: 12 ints).
 */
enum mdf_status dwarf_type_describe(struct dwarf_info *di, struct dwarf_type t,
				    struct dwarf_type_info *ret, struct mdf_err *err) MDF_MUST_CHECK;

/** Member @name of struct/union @t (through anonymous members): *@found
 *  false when there is none; errors as dwarf_type_describe(). */
enum mdf_status dwarf_type_member(struct dwarf_info *di, struct dwarf_type t, const char *name,
				  bool *found, uint64_t *off_ret, struct dwarf_type *mtype_ret,
				  struct mdf_err *err) MDF_MUST_CHECK;

#endif
