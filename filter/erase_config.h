/*
 * erase_config.h - the --config FILE text (makedumpfile.conf(5)), parsed.
 *
 *   [vmlinux]                         a section: vmlinux or a module (its
 *                                     commands name the module's symbols);
 *                                     the unnamed first section is vmlinux
 *   erase SYM[.member...]             the object, its type's size (a
 *                                     char *: the string, up to 1024)
 *   erase SYM[.member...] size N[K|M] N bytes (of what a pointer points at)
 *   erase SYM[.member...] size SYM2[.member...]   the size an integer says
 *   erase SYM[.member...] nullify     a pointer set to NULL
 *   for ID in ARRAY                   each element;
 *   for ID in STRUCTVAR via NEXT      a list linked by a next pointer;
 *   for ID in LISTHEAD within STRUCT:MEMBER   a struct list_head list;
 *       erase ID[.member...] [size ... | nullify]
 *   endfor
 *   # a comment line; blank lines
 *
 * Pure: no I/O, no DWARF.  The text is untrusted (fuzz_config replays its
 * corpus in make check).  Errors: MDF_ERR_FORMAT "line N: ..." naming
 * what is wrong; the caller puts the file name in front.
 */
#ifndef MDF_ERASE_CONFIG_H
#define MDF_ERASE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define ERASE_EXPR_PARTS 16
#define ERASE_NAME_MAX 64

/* "sym.m1.m2": parts[0] is the symbol (or a loop's ID). */
struct erase_expr {
	unsigned nparts;
	char parts[ERASE_EXPR_PARTS][ERASE_NAME_MAX];
	char text[ERASE_EXPR_PARTS * ERASE_NAME_MAX]; /* as written */
};

enum erase_size_kind {
	ERASE_SIZE_TYPE,    /* no size: from the type */
	ERASE_SIZE_VALUE,   /* size N */
	ERASE_SIZE_EXPR,    /* size SYM[.member...] (or ID[.member...]) */
	ERASE_NULLIFY,      /* nullify */
};

struct erase_cmd {
	unsigned line;
	char module[ERASE_NAME_MAX];    /* its section: "" for vmlinux */
	int loop;                       /* index into loops, or -1 */
	struct erase_expr target;
	enum erase_size_kind kind;
	uint64_t size;                  /* ERASE_SIZE_VALUE */
	struct erase_expr size_expr;    /* ERASE_SIZE_EXPR */
};

enum erase_loop_kind { ERASE_LOOP_ARRAY, ERASE_LOOP_VIA, ERASE_LOOP_WITHIN };

struct erase_loop {
	unsigned line;
	char id[ERASE_NAME_MAX];
	struct erase_expr list;
	enum erase_loop_kind kind;
	char struct_name[ERASE_NAME_MAX]; /* within STRUCT:MEMBER */
	char member[ERASE_NAME_MAX];      /* via MEMBER, within ..:MEMBER */
};

struct erase_config {
	struct erase_cmd *cmds;         /* the commands, in order */
	size_t ncmds;
	struct erase_loop *loops;
	size_t nloops;
	size_t cap_cmds, cap_loops;
	unsigned module_sections;       /* sections of modules */
};

/** Parse @len bytes of @text (NULs are errors) into @cfg (zeroed first). */
enum mdf_status erase_config_parse(const char *text, size_t len, struct erase_config *cfg,
				   struct mdf_err *err) MDF_MUST_CHECK;

void erase_config_free(struct erase_config *cfg);

#endif
