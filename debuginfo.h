/*
 * debuginfo.h - -g FILE -x VMLINUX: a VMCOREINFO text for a kernel, from
 * its debug vmlinux (kernel/dwarf_info.h), in the note's format
 * (kernel/vmcoreinfo.h) so that -i FILE reads it back.
 *
 * Written: OSRELEASE, BUILD-ID, PAGESIZE, then SYMBOL at link-time
 * addresses, SIZE, OFFSET, LENGTH, NUMBER and SRCFILE for every key of
 * kinfo.h the vmlinux answers - each key makedumpfile 1.7.2 writes, and
 * the ones today's notes carry where DWARF knows them.  SYMBOL(mem_section)
 * is the variable's address, as 1.7.2 writes it (the note gives the roots
 * array the variable points at since 4.14).
 */
#ifndef MDF_DEBUGINFO_H
#define MDF_DEBUGINFO_H

#include "error.h"

struct mdf_ctx;

/** -g: write ctx->opts.generate_file from ctx->opts.vmlinux. */
enum mdf_status debuginfo_generate(struct mdf_ctx *ctx) MDF_MUST_CHECK;

#endif
