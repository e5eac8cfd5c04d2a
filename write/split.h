/*
 * split.h - split sets (--split) and their reassembly (--reassemble).
 *
 * A split set is N kdump-compressed files that together hold one dump.
 * Each part is a complete kdump-compressed file whose sub header says
 * split=1 and start_pfn_64/end_pfn_64 (and the 32-bit start_pfn/end_pfn)
 * = its pfn range [start, end); the parts' ranges cover 0 .. max_mapnr
 * without overlap.  Every part carries the note copy and both bitmaps for
 * the whole machine (identical in every part), then descriptors of its
 * own range's pages only, from the start of the descriptor area, which is
 * sized for the pages of ALL parts, so page data starts at the same
 * offset in every part.  With dump level bit 1 each part stores the shared
 * zero page first in its data area.
 *
 * Unlike upstream makedumpfile (one process per part), the parts are
 * written one after another by the calling process; the files are the
 * same.  Ranges are balanced exactly: each part gets total/N dumpable
 * pages (give or take one), counted pfn by pfn.
 */
#ifndef MDF_SPLIT_H
#define MDF_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

#include "compress/compress.h"
#include "write/dumpsrc.h"
#include "error.h"
#include "opts.h"
#include "print_info.h"
#include "write/kdump_write.h"
#include "write/output.h"
#include "stop.h"

/** Parts in a set: at least 2, at most this. */
#define SPLIT_MAX_PARTS 256

/**
 * Choose the ranges of an @n-part set over @src: one pass to count the
 * dumpable pages (*@total), a second, stopped early, to place the
 * boundaries.  @bounds gets n + 1 entries: part k holds pfns
 * [bounds[k], bounds[k+1]), bounds[0] = 0, bounds[n] = src->max_pfn; part
 * k ends right after its floor(total * (k + 1) / n)-th dumpable pfn,
 * that boundary then rounded up to a multiple of @block pfns (the split
 * block; 0 or 1: none), or to max_pfn.
 */
enum mdf_status split_ranges(const struct dump_source *src, unsigned n,
			     uint64_t block, uint64_t *bounds, uint64_t *total,
			     struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Write an @n-part split set to @paths with the settings of @kp (its
 * split fields are ignored): split_ranges(), then one kdump_write_dump()
 * per part.  @out0 is already open on @paths[0] (the caller closes it);
 * the other parts are created here (O_EXCL unless @force, -L @size_limit
 * each, @out0's buffer size) and closed before returning.  *@stats sums
 * the parts (file_size: the largest part).
 */
enum mdf_status split_write_set(const struct kdump_write_params *kp,
				const struct dump_source *src,
				struct compressor *comp, struct out_sink *out0,
				char *const *paths, unsigned n, bool force,
				uint64_t size_limit,
				struct kdump_write_stats *stats,
				struct mdf_err *err) MDF_MUST_CHECK;

struct split_reassemble_stats {
	uint64_t pages;             /* descriptors written, lost ones too */
	uint64_t lost;              /* pages lost in incomplete parts */
	unsigned incomplete_parts;  /* parts marked incomplete */
};

/**
 * Merge the split set @parts (@n files, any order) into the ordinary
 * kdump-compressed dump @out_path (O_EXCL unless @force): byte-identical
 * to the dump written directly with the same options.  Checks that every
 * file is a part (split=1), that all come from the same dump (headers,
 * note copy, bitmaps, layout), that their ranges cover every pfn exactly
 * once, and every page descriptor as a reader would (diskdump_check_desc:
 * known flags, sizes and offsets inside the data area; the shared zero
 * page's offset only as that page) before its data is copied; messages
 * name the file, the pfn and the descriptor at fault.  Page data is
 * copied as stored (no recompression).
 *
 * The output's header is marked incomplete from its first write; the
 * mark is cleared by the last write, once all is on the disk (fdatasync),
 * and only when no part is marked incomplete.  A part marked incomplete
 * is taken, with a warning through @pr (may be NULL): its lost pages stay
 * lost and the result is MDF_ERR_NODATA "OUT: the dump is incomplete
 * (...)".  A failure (a bad part, a read or write error, a full disk, a
 * stop signal seen through @stop, which may be NULL) keeps an output that
 * holds pages, marked incomplete, and says so; one without a page is
 * removed.  *@rs (may be NULL) is filled in either case.
 */
enum mdf_status split_reassemble(char *const *parts, unsigned n,
				 const char *out_path, bool force,
				 const struct mdf_printer *pr,
				 const struct mdf_stop *stop,
				 struct split_reassemble_stats *rs,
				 struct mdf_err *err) MDF_MUST_CHECK;

/**
 * main()'s --reassemble: split_reassemble() of @o's parts into
 * @o->dumpfile, with SIGTERM, SIGHUP and SIGINT watched (stop.h), then
 * "The dumpfile is saved to ..." / "makedumpfile Completed." through @pr.
 */
enum mdf_status split_reassemble_main(const struct mdf_opts *o,
				      const struct mdf_printer *pr,
				      const struct mdf_stop *stop,
				      struct mdf_err *err) MDF_MUST_CHECK;

#endif
