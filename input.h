/*
 * input.h - what the rest of the run needs of an input format, as an ops
 * table: physical bytes, pages (in place when the file holds them as one
 * run), the present and dumpable pfns of a cycle, and the header facts a
 * kdump-compressed output copies.
 *
 * elf_info.c (ELF vmcores, /proc/vmcore), kcore.c (the running
 * system's /proc/kcore, an ELF file read live) and diskdump_read.c
 * (kdump-compressed dumps, refiltering) each provide one; readmem and
 * dump.c hold ops + the format's own object, so a further input
 * (a split set read as one dump, sadump) is one more table,
 * not one more branch.
 */
#ifndef MDF_INPUT_H
#define MDF_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitmap.h"
#include "cache.h"
#include "diskdump.h"
#include "error.h"

/* A physical range that is one run of bytes of the file. */
struct input_run {
	uint64_t off;              /* file offset */
	struct cache_span span;    /* for cache_get() */
};

/* What the input's headers say: what the kernel is opened with, and what
 * a kdump-compressed header copies. */
struct input_facts {
	const char *vmcoreinfo;    /* VMCOREINFO text, or NULL */
	size_t vmcoreinfo_len;
	uint16_t machine;          /* ELF e_machine, 0: not in the input's
				    * headers (a kdump file: see uts.machine) */
	bool big_endian;           /* the dumped machine's byte order */
	uint64_t max_paddr;        /* end of physical memory it covers */
	uint32_t block_size;       /* its page size, 0: the kernel's */
	bool have_uts;             /* the input's header has a utsname */
	struct new_utsname uts;
	bool have_timestamp;       /* ... and a crash time */
	int64_t timestamp;
	bool have_phys_base;       /* ... and phys_base (else: the kernel's) */
	uint64_t phys_base;
	int32_t nr_cpus;
	const unsigned char *notes; /* the notes to copy, and their length */
	size_t notes_len;
	bool have_vmcoreinfo;      /* VMCOREINFO is a note in them, at: */
	uint64_t vmcoreinfo_off, vmcoreinfo_size;
	bool excluded_vmemmap;     /* -e was used on the input */
	bool incomplete;           /* its writer marked it incomplete (kdump
				    * status bit 0x8, ELF e_flags bit 0): a
				    * dump written from it is marked so too */
	bool live;                 /* the memory of the running system
				    * (/proc/kcore, kcore.h): no crash, and it
				    * changes while it is read */
};

struct input_ops {
	const char *kind;          /* "ELF", "kdump-compressed" */
	/** Physical bytes, copied; past p_filesz zeros; holes NODATA. */
	enum mdf_status (*read_paddr)(void *in, struct cache *cache, uint64_t paddr,
				      void *buf, size_t len, struct mdf_err *err);
	/** Optional: is physical [@paddr, @paddr + @len) one run of the
	 *  file (then it may be read in place, and released after)? */
	bool (*file_run)(const void *in, uint64_t paddr, uint64_t len,
			 struct input_run *ret);
	/** Page @pfn (@page_size bytes) when it is not one file run: in a
	 *  slot of the reader's, or assembled in @scratch. */
	enum mdf_status (*page)(void *in, struct cache *cache, uint64_t pfn,
				uint64_t page_size, unsigned char *scratch,
				const unsigned char **ret, struct mdf_err *err);
	/** bitmap1 (present) and the start of bitmap2 (pfns with data) of
	 *  the cycle @present and @dumpable are already reset to. */
	void (*cycle_bitmaps)(const void *in, uint64_t page_size,
			      struct bitmap *present, struct bitmap *dumpable);
	/** The header facts. */
	void (*facts)(const void *in, struct input_facts *ret);
};

#endif
