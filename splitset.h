/*
 * splitset.h - a split set (--split's N kdump-compressed parts) read as
 * one dump: the input of a refilter, --dump-dmesg and --explain given
 * several operands, and the files --reassemble merges.
 *
 * Each part is a whole kdump-compressed file (split.h describes the set):
 * the same headers, note copy and full-range bitmaps in every part, and
 * the descriptors and data of its own pfn range [start_pfn, end_pfn).
 * splitset_open() opens every part with its own fd, cache (the caller's
 * cache_config, so the parts' windows share one map budget) and
 * diskdump_info, in the order given, and checks that they are one set:
 *
 *   - every file is a kdump-compressed part (split=1) with a sane range;
 *   - no file is given twice (by name, or the same file by another name);
 *   - every part comes from the same dump as the first: header version,
 *     block size, max_mapnr, both headers with the split fields and the
 *     incomplete mark cleared (utsname, timestamp, status, dump level,
 *     phys_base, the note copy and VMCOREINFO), the layout of bitmaps and
 *     descriptors, and both bitmaps;
 *   - the ranges, sorted by start, cover 0 .. max_mapnr once: no gap
 *     between them, none before the first or after the last (a missing
 *     part), no overlap.
 *
 * Each refusal is one line naming the part at fault, e.g.
 *   "p2: pfns 0x0-0x4000 overlap p1's 0x0-0x4000 (the same part twice?)"
 *   "the split set lacks pfns 0x4000-0x8000, after p1 and before p3 (a part is missing)"
 *
 * Pages are read from the part whose range holds them, through that
 * part's cache; bitmaps and header facts are the first part's (the same
 * in every part, checked).  A part marked incomplete is accepted: the
 * set is incomplete (facts), and its lost pages are lost.  Not thread-safe,
 * as diskdump_read.h.
 */
#ifndef MDF_SPLITSET_H
#define MDF_SPLITSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "diskdump_read.h"
#include "error.h"
#include "input.h"

/** Parts in a set: at least 2, at most this (opts.h's OPTS_MAX_PARTS). */
#define SPLITSET_MAX_PARTS 256

struct splitset_part {
	const char *path;        /* as given, not owned */
	int fd;                  /* owned; -1 when not open */
	struct cache cache;
	struct diskdump_info di;
	unsigned char *head;     /* the raw header block and sub header blocks */
	size_t head_len;
};

struct splitset {
	unsigned n;
	struct splitset_part *parts;   /* in the order given */
	struct splitset_part **order;  /* by start pfn (after a good open) */
	unsigned nincomplete;          /* parts marked incomplete */
	const struct splitset_part *first_incomplete;
	uint64_t stray_dumpable;       /* as diskdump_info's (every part's) */
	bool not_a_part;               /* splitset_open() failed on a file that
					  is no kdump-compressed split part */
};

/**
 * Open the @n files @paths (any order) as one split set, checked as above.
 * @cc configures each part's cache (NULL: read buffers only).  On failure
 * everything is closed again (splitset_close() is harmless) and @err names
 * the part at fault.
 */
enum mdf_status splitset_open(struct splitset *ss, char *const *paths, unsigned n,
			      const struct cache_config *cc,
			      struct mdf_err *err) MDF_MUST_CHECK;

/** The parts' caches released, their statistics added to @stats (may be
 *  NULL).  The parts stay open for facts; safe on a zeroed struct. */
void splitset_release_caches(struct splitset *ss, struct cache_stats *stats);

/** Close every part.  Safe on a zeroed struct and twice. */
void splitset_close(struct splitset *ss);

/** The part whose range holds @pfn, or NULL (beyond max_mapnr). */
struct splitset_part *splitset_part_of(const struct splitset *ss, uint64_t pfn);

/**
 * Headers of @pt with the split fields, the incomplete mark and the
 * eraseinfo offset cleared, into @head (pt->head_len bytes): the same in
 * every part of a set, and the merged dump's headers.
 */
void splitset_plain_head(const struct splitset_part *pt, unsigned char *head);

/** The DUMP_DH_COMPRESSED_INCOMPLETE bit of the header at the start of
 *  @head (in @pt's byte order) set or cleared. */
void splitset_head_mark(const struct splitset_part *pt, unsigned char *head,
			bool incomplete);

/** The set's ops (input.h): the object is a struct splitset. */
extern const struct input_ops splitset_input_ops;

#endif
