/*
 * elf_write.h - the ELF dump writer (-E), through an out_sink (file or
 * flattened stream).
 *
 * The output is an ET_CORE file of the input's class, byte order, machine
 * and e_flags (bit 0 set when the dump is incomplete).  Layout, the same
 * as makedumpfile 1.7.2 writes it (no padding anywhere, so a byte-level
 * comparison with its output is possible):
 *
 *   ELF header | program headers (PT_NOTE, then the PT_LOADs) |
 *   section header 0 (only with extended numbering) | note bytes |
 *   segment data, in program-header order, back to back
 *
 * The PT_LOADs follow the input's PT_LOADs one by one in program-header
 * order, so the kernel-text segment that aliases RAM is written twice, once
 * per input segment.  Within one input segment:
 *  - a partial first page (p_paddr not page-aligned) is always kept;
 *  - whole pages are walked with bitmap2 of the dump source; a run of at
 *    least ELF_WRITE_SPLIT_PAGES excluded pages ends the output segment and
 *    the next one starts at the next dumpable page (a run at the very start
 *    gives a segment with p_filesz 0 and p_offset 0, as upstream does);
 *    shorter runs are written with their real bytes so the segment stays
 *    contiguous;
 *  - excluded pages at the end of an output segment are not written:
 *    p_filesz < p_memsz, p_memsz reaching the next output segment or the
 *    end of the input segment;
 *  - a partial last page counts as a page, with only its bytes inside the
 *    input segment.
 * p_vaddr/p_paddr are the input segment's plus the offset, p_flags the
 * input segment's, p_align 0.  The PT_NOTE takes p_flags, p_align,
 * p_vaddr and p_paddr from the input's first PT_NOTE.  More than 65534 PT_LOADs use extended
 * numbering: e_phnum = PN_XNUM and the real count in sh_info of section
 * header 0 (e_shnum = 1, e_shstrndx = SHN_UNDEF).
 */
#ifndef MDF_ELF_WRITE_H
#define MDF_ELF_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "write/dumpsrc.h"
#include "elf_info.h"
#include "error.h"
#include "write/output.h"

/* makedumpfile's PFN_EXCLUDED: this many excluded pages split a segment. */
#define ELF_WRITE_SPLIT_PAGES 256

struct elf_write_params {
	/** Input: ei_class, ei_data, e_machine, e_flags and loads[] are used;
	 *  p_flags come from in->elf (libelf) when it is set, else RWX. */
	const struct elf_info *in;
	uint64_t page_size;          /* a power of two */
	const unsigned char *notes;  /* PT_NOTE contents to copy (in->notes) */
	size_t notes_len;
	/** Passed to the source's cycle() as drop_zero: true when the dump
	 *  level excludes zero pages (bit 0).  ELF has no shared zero page,
	 *  so makedumpfile leaves zero pages out of -E dumps only then. */
	bool exclude_zero;
	/** The input is marked incomplete (e_flags bit 0): so is the output
	 *  (the bit stays), and the result is MDF_ERR_NODATA. */
	bool input_incomplete;
};

struct elf_write_stats {
	uint64_t pages;       /* pages (or partial pages) handed to the sink */
	uint64_t segments;    /* PT_LOAD program headers */
	uint64_t data_bytes;  /* segment data (sum of p_filesz) */
	uint64_t file_size;   /* size of the complete dump */
	bool incomplete;      /* the sink filled up; e_flags bit 0 was set */
	uint64_t lost_pages;  /* pages the source could not give
				 (MDF_ERR_NODATA): written as zeros, and
				 e_flags bit 0 says the dump is incomplete */
};

/**
 * Write the whole dump.  Two passes: the first walks every cycle of @src
 * in order (src->cycle() once per cycle) and computes the output segments,
 * O(segments) memory; the second writes headers, notes and data in file
 * order, reading pages with src->page() only (no cycle() calls).
 * When the sink fills up (disk full or -L) writing stops, bit 0 of e_flags
 * is set with out_patch() (not possible on a flattened stream) and the
 * result is MDF_ERR_NOSPC with a message saying the dump is incomplete.
 * @stats may be NULL.
 */
enum mdf_status elf_write_dump(const struct elf_write_params *p,
			       const struct dump_source *src,
			       struct out_sink *out,
			       struct elf_write_stats *stats,
			       struct mdf_err *err) MDF_MUST_CHECK;

/* ---- header encoding (exposed for tests) -------------------------- */

/** Where things go in the output file. */
struct elf_write_layout {
	bool is64, big;          /* class and byte order */
	size_t ehsize, phentsize, shentsize;
	uint64_t phnum;          /* PT_NOTE + PT_LOADs */
	bool xnum;               /* phnum >= PN_XNUM: extended numbering */
	uint64_t phoff;          /* program headers */
	uint64_t shoff;          /* section header 0 with xnum, else 0 */
	uint64_t note_off;       /* note bytes */
	uint64_t data_off;       /* first byte of segment data */
};

/** One program header, in host order. */
struct elf_write_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

/**
 * Plan the header area for @nloads_out PT_LOADs and @notes_len note bytes.
 * MDF_ERR_ARG for an unknown class or byte order, MDF_ERR_NOTSUPP when the
 * count does not fit sh_info.
 */
enum mdf_status elf_write_plan(struct elf_write_layout *l, int ei_class,
			       int ei_data, uint64_t nloads_out,
			       uint64_t notes_len,
			       struct mdf_err *err) MDF_MUST_CHECK;

/** Encode the ELF header into @buf (l->ehsize bytes, at most 64). */
void elf_write_encode_ehdr(const struct elf_write_layout *l, uint16_t machine,
			   uint32_t flags, unsigned char *buf);

/** Encode section header 0 for extended numbering (l->shentsize bytes). */
void elf_write_encode_shdr(const struct elf_write_layout *l,
			   unsigned char *buf);

/** Encode one program header (l->phentsize bytes).  ELF32: the caller
 *  checked that every value fits 32 bits. */
void elf_write_encode_phdr(const struct elf_write_layout *l,
			   const struct elf_write_phdr *ph, unsigned char *buf);

#endif
