/*
 * erase.h - --config FILE: the bytes to erase, found, and put on pages.
 *
 * erase_resolve() walks the parsed commands (erase_config.h) with the
 * vmlinux's types (kernel/dwarf_info.h) and the dump's memory (pointers
 * are followed, lists and arrays walked, sizes read): the result is a
 * sorted set of physical ranges, filled with 'X' (0x58) - or with zeros
 * for "nullify" - and the eraseinfo text the dump carries ("erase
 * init_uts_ns.name.nodename size 65", one line per object erased - per
 * element in a loop - as makedumpfile writes it).  erase_apply() patches a page's copy.
 *
 * A module section (makedumpfile.conf(5)) takes its types from the
 * module's debuginfo and its addresses from the module's kallsyms in the
 * dump; a module that is not loaded, or whose debuginfo is not found, is
 * skipped (counted, and the first reason kept for a warning).
 *
 * A command whose symbol or member does not exist is an error naming its
 * line: a config that cannot be applied would let the secret out.  So is
 * a loop in the vmlinux's types (dwarf_type_describe()), and an array loop
 * over more elements than the dump's memory, the address space or a loop
 * (a million elements) can hold: a bad DWARF length of 2^32 or more ran
 * for hours.  Loops look at the stop signals (env->stop) between elements.  A NULL
 * pointer on the way, or memory the dump does not hold, erases nothing
 * (there is nothing to erase) and is counted.
 */
#ifndef MDF_ERASE_H
#define MDF_ERASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "filter/erase_config.h"
#include "kernel/dwarf_info.h"
#include "kinfo.h"
#include "readmem.h"
#include "stop.h"

struct erase_range {
	uint64_t paddr, len;
	uint8_t fill;                /* 'X', or 0 for nullify */
};

struct erase_set {
	struct erase_range *r;       /* sorted by paddr; may overlap */
	size_t n, cap;
	char *info;                  /* eraseinfo text, or NULL */
	size_t info_len, info_cap;
	uint64_t null_skips;         /* a NULL pointer on the way */
	uint64_t unreadable;         /* bytes the dump does not hold */
	uint64_t loop_cut;           /* loops stopped at the iteration limit */
	unsigned modules_skipped;    /* module sections skipped: */
	char module_problem[320];    /* the first one's "[name]: why" */
};

/*
 * Where the vmlinux section's types and addresses come from: the vmlinux's
 * DWARF (-x; the default when erase_env.types is NULL), or the dump's own
 * BTF and kallsyms (kernel/btf.h, kernel/kallsyms.h: no -x).  A type is a
 * struct dwarf_type either way (a DIE offset, or a BTF type id).
 */
struct erase_types {
	const char *what;            /* for messages: "the vmlinux's DWARF" */
	void *arg;
	bool running;                /* symbol() gives running addresses (no
					KERNELOFFSET to add) */
	enum mdf_status (*lookup)(void *arg, struct dwarf_query *q, size_t n,
				  struct mdf_err *err);
	bool (*symbol)(void *arg, const char *name, uint64_t *addr);
	enum mdf_status (*describe)(void *arg, struct dwarf_type t, struct dwarf_type_info *ti,
				    struct mdf_err *err);
	enum mdf_status (*member)(void *arg, struct dwarf_type t, const char *name, bool *found,
				  uint64_t *off, struct dwarf_type *mt, struct mdf_err *err);
};

struct kbtf;
struct kallsyms;

/* The dump's own types: @b's BTF and @ks's addresses (running ones).
 * @t must outlive the resolve; @d too (it is t->arg). */
struct erase_dump_types {
	const struct kbtf *b;
	const struct kallsyms *ks;
};
void erase_types_from_dump(struct erase_types *t, struct erase_dump_types *d);

struct erase_env {
	struct dwarf_info *di;       /* the vmlinux's, or NULL with types */
	const struct erase_types *types; /* NULL: di's DWARF */
	const struct erase_dump_types *dump; /* the dump's BTF and kallsyms when
					    types are theirs: modules' split
					    BTF goes on from its BTF */
	const char *vmlinux;         /* its path: module debuginfo is looked
					for beside it (dwarf_info.h) */
	const struct kinfo *ki;      /* SYMBOL()s here win over the vmlinux's */
	uint64_t kernel_offset;      /* moves the vmlinux's symbols */
	struct readmem *rm;
	const char *vmcore;          /* the dump's name, for messages */
	uint64_t mem_bytes;          /* its physical memory (max pfn x page
					size): no array a loop walks is
					larger */
	const struct mdf_stop *stop; /* loops look at it; NULL: never stop */
};

/** Resolve @cfg into @out (zeroed first).  Errors: "line N: ...". */
enum mdf_status erase_resolve(const struct erase_config *cfg, const struct erase_env *env,
			      struct erase_set *out, struct mdf_err *err) MDF_MUST_CHECK;

/** Erase [@va, @va + @len) of the crashed kernel with @fill: a range per
 *  page it spans, through @rm's translation; bytes the dump does not hold
 *  are counted in es->unreadable.  The ranges are not sorted: call
 *  erase_sort() once all are in. */
enum mdf_status erase_add_vrange(struct erase_set *es, struct readmem *rm, uint64_t va,
				 uint64_t len, uint8_t fill, struct mdf_err *err) MDF_MUST_CHECK;

/** Sort es->r by paddr, as erase_apply() needs. */
void erase_sort(struct erase_set *es);

/** -x's DWARF as the types of the vmlinux (symbols as linked: add
 *  KERNELOFFSET). */
void erase_types_from_dwarf(struct erase_types *t, struct dwarf_info *di);

/** Append @len bytes of eraseinfo text (a refiltered dump's, first). */
enum mdf_status erase_add_info(struct erase_set *es, const char *text, size_t len,
			       struct mdf_err *err) MDF_MUST_CHECK;

/**
 * When [@paddr, @paddr + @size) holds erased bytes: copy @src into @buf
 * (@size bytes), fill them there and return true; else false, @buf
 * untouched.
 */
bool erase_apply(const struct erase_set *es, uint64_t paddr, size_t size,
		 const unsigned char *src, unsigned char *buf);

void erase_set_free(struct erase_set *es);

#endif
