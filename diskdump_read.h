/*
 * diskdump_read.h - kdump-compressed input, for refiltering (makedumpfile
 * reading its own output and filtering it again at a higher dump level).
 *
 * diskdump_open() checks the whole frame of the file once: headers (by
 * header version), block size, the sub header, the note copy and the
 * VMCOREINFO inside it, both bitmaps and the descriptor area against the
 * file size.  It keeps both bitmaps in memory (1 bit per pfn: 2 MiB each
 * for 64 GiB of RAM) and a rank table built from bitmap2, so that the
 * descriptor of pfn N (descriptors are stored in the order of the set bits
 * of bitmap2) is found with one table load and at most 64 word popcounts.
 *
 * Page data is read through the caller's struct cache (the same fd), with
 * one span over the file: mappable up to the last whole host page, read
 * buffers for the tail.  Descriptors are checked when a page is read; each
 * message names the file, the pfn and the file offset concerned:
 *
 *   "dump.kdump: pfn 0x1234: page descriptor at 0xa018: data offset
 *    0x9999999 + 0x800 past end of file (size 0x160000)"
 *
 * A few decompressed pages are kept (DISKDUMP_SLOTS), so repeated small
 * reads of one page (page-table walks, struct page batches) decompress it
 * once.  Not thread-safe: one diskdump_info per thread that reads pages.
 *
 * Integers are read in the host's byte order and LP64 layout (the only
 * producer layout we support); a file from a host of the other byte order
 * is refused.  Not supported here: split dumps (--split; splitset.h reads
 * a set), the flattened format (-F; rearrange with -R first) and the old
 * "DISKDUMP" format.
 */
#ifndef MDF_DISKDUMP_READ_H
#define MDF_DISKDUMP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "diskdump.h"
#include "error.h"
#include "input.h"

/* pfns per rank table entry */
#define DISKDUMP_RANK_PFNS 4096
/* decompressed pages kept */
#define DISKDUMP_SLOTS 4

struct diskdump_slot {
	uint64_t pfn;
	uint64_t stamp;          /* last use, for LRU replacement; 0 = empty */
	unsigned char *buf;      /* block_size bytes */
};

struct diskdump_info {
	const char *path;        /* for messages, not owned */
	int fd;                  /* not owned */
	uint64_t file_size;

	/* Copies of the headers.  Sub header fields of versions later than
	 * header.header_version are zero.  The utsname strings are NUL
	 * terminated in this copy. */
	struct disk_dump_header header;
	struct kdump_sub_header sub;

	bool swapped;            /* written by a host of the other byte order:
				    the copies above are swapped to ours */
	bool big_endian;         /* the file's byte order */
	enum kdump_abi abi;      /* the headers' C ABI: ILP32 for an i386
				    kernel's dump (by utsname.machine) */
	uint32_t block_size;     /* page size of the dumped machine */
	unsigned block_shift;    /* log2(block_size) */
	uint64_t max_mapnr;      /* pfns 0 .. max_mapnr-1: sub.max_mapnr_64 for
				    header version 6, else header.max_mapnr */
	uint64_t off_bitmap1, off_bitmap2; /* file offsets */
	uint64_t bitmap_bytes;   /* on-disk size of one bitmap */
	uint64_t off_desc;       /* first struct page_desc */
	uint64_t ndesc;          /* descriptors: set bits of bitmap2 below max_mapnr */
	uint64_t off_data;       /* end of the descriptor area: page data starts here */

	/* Bitmaps in memory: bit i of byte i/8 (LSB first) = pfn i, as on
	 * disk, ceil(max_mapnr / 64) * 8 bytes each; bits at and above
	 * max_mapnr are clear. */
	uint8_t *bitmap1;        /* present (not a hole) */
	uint8_t *bitmap2;        /* dumpable (page stored) */
	uint64_t *rank;          /* rank[i] = set bits of bitmap2 below pfn
				    i * DISKDUMP_RANK_PFNS; nrank entries */
	uint64_t nrank;
	uint64_t stray_dumpable; /* pfns bitmap2 stores but bitmap1 called
				    holes: made present, the caller warns */

	int dump_level;          /* sub.dump_level */
	uint32_t status;         /* header.status */
	uint32_t compression;    /* status & the DUMP_DH_COMPRESSED_* codec bits */
	bool incomplete;         /* DUMP_DH_COMPRESSED_INCOMPLETE: descriptors with
				    offset 0 (or past the end) are lost pages */
	bool excluded_vmemmap;   /* DUMP_DH_EXCLUDED_VMEMMAP (-e) */
	unsigned nr_cpus;        /* header.nr_cpus */
	uint64_t phys_base;      /* sub.phys_base */
	uint64_t pfn_base;       /* the file's pfn 0 is this pfn of the
				    machine (kdump_pfn_base(): 32-bit arm's
				    PHYS_OFFSET's); max_mapnr, the split
				    range and the bitmaps in memory are the
				    machine's, from pfn 0 */
	uint64_t file_max_mapnr; /* max_mapnr as the file says it */
	int64_t timestamp;       /* header.timestamp.tv_sec (CRASHTIME) */

	unsigned char *notes;    /* copy of the input's PT_NOTE contents
				    (offset_note/size_note), or NULL */
	size_t notes_len;
	uint64_t off_notes;      /* file offset of the copy */
	/* VMCOREINFO (offset_vmcoreinfo/size_vmcoreinfo), an own NUL
	 * terminated copy; NULL when the dump has none (header version < 3
	 * or size 0).  The length leaves out trailing NULs.  When the text
	 * lies inside the note copy (always, for makedumpfile's output),
	 * vmcoreinfo_in_notes is set and vmcoreinfo_note_off is its offset
	 * within notes: what a writer of the refiltered dump needs. */
	char *vmcoreinfo;
	size_t vmcoreinfo_len;
	uint64_t vmcoreinfo_size; /* size_vmcoreinfo as stored */
	bool vmcoreinfo_in_notes;
	size_t vmcoreinfo_note_off;
	uint64_t off_eraseinfo;  /* eraseinfo text (version >= 5), checked to be */
	uint64_t size_eraseinfo; /* inside the file; 0/0 when absent */

	/* Split dumps are refused by diskdump_open(); see
	 * diskdump_open_flags(). */
	bool split;
	uint64_t split_start_pfn, split_end_pfn;
	uint64_t desc_base;      /* a split part: set bits of bitmap2 below
				    split_start_pfn (its first descriptor's
				    rank); else 0 */

	struct diskdump_slot slots[DISKDUMP_SLOTS];
	uint64_t clock;          /* slot use counter */
	unsigned char *slot_mem;
	uint64_t pages_decoded;  /* pages read from the file (slot misses) */
};

/** True if @head (the first @len bytes of a file) starts with the
 *  kdump-compressed signature "KDUMP   ". */
bool diskdump_probe(const unsigned char *head, size_t len);

/**
 * Read and check the kdump-compressed dump @fd (@path for messages; both
 * must outlive @di).  @cache must be set up over the same @fd.  Checks:
 * signature ("KDUMP   "; "DISKDUMP" and the flattened signature
 * "makedumpfile" are refused with MDF_ERR_NOTSUPP and advice), byte
 * order, header version 1..6 (later: MDF_ERR_NOTSUPP), block size a power
 * of two in 512..64 KiB, sub header, note copy, VMCOREINFO and eraseinfo
 * inside the file, bitmaps large enough for max_mapnr and inside the file,
 * the descriptor area inside the file (unless the dump is incomplete).
 * A split dump is MDF_ERR_NOTSUPP "split dump (...): give all the parts
 * of the set, or use --reassemble ...".  An
 * incomplete dump (DUMP_DH_COMPRESSED_INCOMPLETE) is accepted and flagged
 * in di->incomplete.  On failure @di is left closed; diskdump_close() on
 * it is harmless.
 */
enum mdf_status diskdump_open(struct diskdump_info *di, int fd,
			      const char *path, struct cache *cache,
			      struct mdf_err *err) MDF_MUST_CHECK;

/* diskdump_open_flags() flags */
#define DISKDUMP_OPEN_SPLIT 1u  /* accept one part of a split set (--reassemble) */

/**
 * diskdump_open() with @flags.  With DISKDUMP_OPEN_SPLIT a part of a split
 * set is accepted: di->split, di->split_start_pfn and di->split_end_pfn
 * give its range; its bitmaps cover the whole machine, but only the pages
 * of its range have descriptors, stored from di->off_desc on in pfn order.
 * diskdump_desc_offset() and the page readers know that: a pfn of another
 * part's range is MDF_ERR_NODATA "... (in another part of the split
 * set)"; splitset.h reads a whole set as one dump.
 */
enum mdf_status diskdump_open_flags(struct diskdump_info *di, int fd,
				    const char *path, struct cache *cache,
				    unsigned flags,
				    struct mdf_err *err) MDF_MUST_CHECK;

/** Free everything diskdump_open() allocated.  Safe on a zeroed struct
 *  and twice.  Does not close the fd. */
void diskdump_close(struct diskdump_info *di);

/** bitmap1: pfn is memory of the dumped machine (not a hole). */
bool diskdump_present(const struct diskdump_info *di, uint64_t pfn);

/** bitmap2: the page is stored in the dump (has a descriptor). */
bool diskdump_dumpable(const struct diskdump_info *di, uint64_t pfn);

/**
 * File offset of the descriptor of @pfn.  Only meaningful when
 * diskdump_dumpable(@pfn); for other pfns it is the offset of the next
 * stored page's descriptor.
 */
uint64_t diskdump_desc_offset(const struct diskdump_info *di, uint64_t pfn);

/**
 * Check the descriptor @pd of @pfn, read at file offset @doff (in host
 * order), as diskdump_get_page() does before it reads the data: data size
 * 1 to block_size, one known codec flag or none (then exactly one block),
 * data inside the data area and the file.  MDF_ERR_NODATA for a page lost
 * in an incomplete dump (offset 0, or data past the end), MDF_ERR_FORMAT
 * for the rest; messages name the file, the pfn and @doff.  --reassemble
 * checks every descriptor of a part with it.
 */
enum mdf_status diskdump_check_desc(const struct diskdump_info *di, uint64_t pfn,
				    uint64_t doff, const struct page_desc *pd,
				    struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The block_size bytes of page @pfn: *@ret points into one of @di's
 * decompression slots, valid until DISKDUMP_SLOTS - 1 further page reads
 * on @di (the least recently used slot is replaced).  MDF_ERR_NODATA when the page is
 * not stored (excluded, a hole, beyond max_mapnr) or was lost in an
 * incomplete dump; MDF_ERR_FORMAT for a broken descriptor (size 0 or over
 * the block size, data outside the data area or past the end of the file,
 * unknown flags, raw data of the wrong size) or data that does not
 * decompress to exactly one page; MDF_ERR_NOTSUPP for a codec this build
 * lacks.  Messages name the file, the pfn and the file offset.
 */
enum mdf_status diskdump_get_page(struct diskdump_info *di,
				  struct cache *cache, uint64_t pfn,
				  const unsigned char **ret,
				  struct mdf_err *err) MDF_MUST_CHECK;

/** diskdump_get_page(), copied into @buf (block_size bytes). */
enum mdf_status diskdump_read_page(struct diskdump_info *di,
				   struct cache *cache, uint64_t pfn,
				   unsigned char *buf,
				   struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Read @len bytes of physical memory at @paddr, across pages.  A page
 * that is not stored is MDF_ERR_NODATA "physical address 0x... is not in
 * the dump (excluded)" (or "(not present)" for a hole, "(beyond
 * max_mapnr ...)" past the end).  Other errors as diskdump_get_page().
 */
enum mdf_status diskdump_read_paddr(struct diskdump_info *di,
				    struct cache *cache, uint64_t paddr,
				    void *buf, size_t len,
				    struct mdf_err *err) MDF_MUST_CHECK;

/** The kdump-compressed input's ops (input.h): the object is a struct
 *  diskdump_info. */
extern const struct input_ops diskdump_input_ops;

#endif
