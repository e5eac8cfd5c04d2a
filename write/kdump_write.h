/*
 * kdump_write.h - the kdump-compressed writer (makedumpfile's default
 * format, header version 6), through an out_sink (file or flattened).
 */
#ifndef MDF_KDUMP_WRITE_H
#define MDF_KDUMP_WRITE_H

#include <stdint.h>

#include "compress/compress.h"
#include "diskdump.h"
#include "write/dumpsrc.h"
#include "error.h"
#include "write/output.h"

struct kdump_write_params {
	uint64_t page_size;
	bool big_endian;              /* the dumped machine's byte order:
				       * headers and descriptors in it */
	enum kdump_abi abi;           /* and the C ABI of its headers: ILP32
				       * for an i386 kernel (diskdump.c) */
	unsigned dump_level;          /* recorded in the sub header */
	struct new_utsname uts;       /* init_uts_ns.name of the crashed kernel */
	int64_t crashtime;            /* CRASHTIME, seconds */
	uint64_t phys_base;
	uint64_t pfn_base;            /* bit 0 of the bitmaps, max_mapnr and
				       * split ranges count from this pfn
				       * (kdump_pfn_base(): PHYS_OFFSET's on
				       * 32-bit arm, else 0); a multiple of 64 */
	int32_t nr_cpus;
	const unsigned char *notes;   /* input PT_NOTE contents, copied after the sub header */
	size_t notes_len;
	bool have_vmcoreinfo;
	uint64_t vmcoreinfo_off;      /* descriptor offset within notes */
	uint64_t vmcoreinfo_size;     /* its n_descsz (as the input says) */
	bool excluded_vmemmap;        /* -e: DUMP_DH_EXCLUDED_VMEMMAP */
	bool input_incomplete;        /* the input is marked incomplete: so
				       * is this dump, whatever it holds */
	const char *eraseinfo;        /* --config's "erase ..." lines (and a */
	size_t eraseinfo_len;         /* refiltered dump's): after the page
					 data, named by the sub header */
	size_t desc_buf_bytes;        /* descriptor batch, 0 = default */
	unsigned nthreads;            /* --num-threads: compressing threads,
					 0 = compress in the calling thread */
	/* One part of a split set (--split, see split.h): the header says
	 * split=1 and [start_pfn, end_pfn); the bitmaps cover the whole
	 * machine; descriptors and data only of the range's pages, the
	 * descriptor area sized for total_dumpable (all parts' pages) so that
	 * page data starts at the same offset in every part. */
	bool split;
	uint64_t start_pfn, end_pfn;
	uint64_t total_dumpable;      /* with split: skips the counting pass */
	uint64_t part_dumpable;       /* with split: this part's pages, for
				       * the "incomplete" message */
	uint64_t split_block_pfns;    /* split_write_set(): boundaries on this
				       * grid (--splitblock-size, at least 64) */
};

struct kdump_write_stats {
	uint64_t pages;          /* descriptors written */
	uint64_t zero_pages;     /* pointing at the shared zero page */
	uint64_t lost_pages;     /* the source had no data (a refiltered
				    incomplete dump): zero descriptors */
	uint64_t compressed;     /* stored compressed */
	uint64_t raw;            /* stored raw (did not shrink) */
	uint64_t data_bytes;     /* page data stored */
	uint64_t file_size;      /* end of the dump */
	uint64_t other_written;  /* --split: bytes written to parts 2..n (the
				    first part's are counted by its sink) */
	bool incomplete;
};

/**
 * Write the whole dump: two passes over @src's cycles, the first to count
 * the dumpable pages (descriptor area size), the second to write bitmaps,
 * descriptors and page data in pfn order.  With dump level bit 1, zero
 * pages share one stored zero page.  @comp compresses (may be the "none"
 * codec).  When the sink fills up (disk full or -L), what was written stays
 * readable: descriptors of lost pages are zero and the header carries
 * DUMP_DH_COMPRESSED_INCOMPLETE; the result is MDF_ERR_NOSPC.
 *
 * With p->nthreads > 0, that many threads (workers.h), each with its own
 * compressor of @comp's codec, zero-check and compress batches of pages
 * that the calling thread copies out of @src; the calling thread writes
 * the results in pfn order.  The output is byte-identical (even the order
 * of out_write() calls, so -F streams match too) whatever p->nthreads.
 * @src and @out are only ever used from the calling thread.
 *
 * With p->split, one part of a split set is written (see the params);
 * stats->pages counts that part's pages only.
 */
enum mdf_status kdump_write_dump(const struct kdump_write_params *p,
				 const struct dump_source *src,
				 struct compressor *comp, struct out_sink *out,
				 struct kdump_write_stats *stats,
				 struct mdf_err *err) MDF_MUST_CHECK;

#endif
