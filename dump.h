/*
 * dump.h - the phases of a run, wired together: open the input and learn
 * the kernel, build the bitmaps cycle by cycle, count or copy pages.
 */
#ifndef MDF_DUMP_H
#define MDF_DUMP_H

#include "makedumpfile.h"

/** Open the input, parse VMCOREINFO, set up arch, memmap and rules. */
enum mdf_status dump_open(struct mdf_ctx *ctx) MDF_MUST_CHECK;

/** Build both bitmaps for every cycle, count pages per class and (with
 *  dump level bit 1) zero pages, without writing a dump (--dry-run). */
enum mdf_status dump_dry_run(struct mdf_ctx *ctx) MDF_MUST_CHECK;

/** Write the dump (kdump-compressed or ELF, to a file or flattened to
 *  stdout), retrying at the next level of a -d list when the disk fills. */
enum mdf_status dump_write(struct mdf_ctx *ctx) MDF_MUST_CHECK;

/** Free everything dump_open() set up; safe after a partial open. */
void dump_close(struct mdf_ctx *ctx);

#endif
