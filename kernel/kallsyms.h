/*
 * kallsyms.h - the kernel's own symbol table, read from the dump.
 *
 * Since Linux 6.0 VMCOREINFO names the kallsyms tables (kernel commits
 * 5fd8fea935a1 "vmcoreinfo: include kallsyms symbols" and f09bddbd8661
 * "vmcoreinfo: add kallsyms_num_syms symbol"): kallsyms_num_syms,
 * kallsyms_names, kallsyms_token_table, kallsyms_token_index,
 * kallsyms_offsets and kallsyms_relative_base.  With them every symbol of
 * vmlinux and its address come out of the dump itself, with no debug
 * vmlinux (issue 27).
 *
 * The names are token-compressed: each entry is a length (one byte, or
 * two when the first has its top bit set: "big" symbols, 6.1's commit
 * 73bbb94466fd) and that many token indices; a token is a string of
 * kallsyms_token_table at kallsyms_token_index[i].  The first character
 * of a name is its type ('T', 't', 'D', ...).  An address is
 * kallsyms_relative_base plus the entry of kallsyms_offsets as an
 * unsigned 32-bit offset, except on kernels built with
 * KALLSYMS_ABSOLUTE_PERCPU (x86_64 SMP until 6.15's commit 01157ddc58dc
 * removed it), where a non-negative entry is an absolute value (the
 * per-cpu symbols) and a negative one is relative_base - 1 - entry.  The
 * configuration is not in the dump; the encoding is told apart by its
 * entries, as the kernel's own scripts/kallsyms writes them: with
 * absolute per-cpu symbols, every kernel-image symbol is negative; without,
 * none is (relative_base is the lowest address).  Where VMCOREINFO gives
 * SYMBOL(_stext) it decides: the other encoding is taken when the first
 * does not decode _stext to it, and an error when neither does.
 */
#ifndef MDF_KALLSYMS_H
#define MDF_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kinfo.h"
#include "readmem.h"

/* The names stay token-compressed, as kallsyms_names has them: a lookup
 * compares a name with the tokens of each entry and gives up at the first
 * byte that differs, so loading expands nothing (on 6.12's 167,000
 * symbols, 1.6 MB instead of 3.7 MB, and a quarter of the time). */
struct kallsyms {
	uint32_t n;
	uint64_t *addr;      /* n addresses */
	uint32_t *name;      /* n offsets into names: each entry's first token */
	uint16_t *ntok;      /* n token counts */
	unsigned char *names; /* the entries' token indices */
	size_t names_len;
	char *tokens;        /* kallsyms_token_table */
	uint16_t tok[256];   /* each token's offset in tokens */
	uint16_t toklen[256]; /* and length (0: never used by a valid entry) */
	bool absolute_percpu;
};

/** Whether VMCOREINFO names the tables (Linux 6.0 on). */
bool kallsyms_available(const struct kinfo *ki);

/**
 * Read and decode the whole table through @rm.  MDF_ERR_NODATA when
 * VMCOREINFO does not name the tables; a table that cannot be read or
 * decoded (a length past the names, a token index past the table, an
 * address that disagrees with SYMBOL(_stext)) is MDF_ERR_FORMAT naming
 * what and where.
 */
enum mdf_status kallsyms_load(struct kallsyms *ks, const struct kinfo *ki, struct readmem *rm,
			      struct mdf_err *err) MDF_MUST_CHECK;

/** The address and type of the first symbol called @name; false if none. */
bool kallsyms_lookup(const struct kallsyms *ks, const char *name, uint64_t *addr, char *type);

/** Symbol @i's type and name ("Tname") into @buf of @size bytes (cut
 *  short, NUL-terminated); its full length. */
size_t kallsyms_name(const struct kallsyms *ks, uint32_t i, char *buf, size_t size);

void kallsyms_free(struct kallsyms *ks);

#endif
