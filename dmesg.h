/*
 * dmesg.h - --dump-dmesg: the crashed kernel's log, as text.
 *
 * Three layouts of the kernel log are understood, chosen from VMCOREINFO:
 *
 *  - the lockless printk_ringbuffer (Linux 5.10, commit 896fbe20b4e2, on):
 *    SYMBOL(prb) and the SIZE/OFFSET entries of printk_ringbuffer,
 *    prb_desc_ring, prb_desc, prb_data_blk_lpos, printk_info and
 *    prb_data_ring;
 *  - variable-length struct printk_log records in log_buf (Linux 3.5,
 *    commit 7ff9554bb578, to 5.9): SYMBOL(log_first_idx), SIZE(printk_log);
 *  - the plain character ring of older kernels: SYMBOL(log_end).
 *
 * Records are written as makedumpfile 1.7.2 writes them:
 * "[%5llu.%06llu] " (seconds, microseconds of ts_nsec), then the text,
 * where a newline inside the text starts a new line indented to the
 * width of the prefix, bytes that are neither printable nor white space
 * (C locale) are written as \xNN, and a newline ends the record.  The
 * legacy character ring is copied out as it is.
 *
 * The extractor reads memory through a callback (struct dmesg_mem), so
 * unit tests and the fuzz target run it on hand-built images.  Every
 * index, length and count taken from the dump is checked and every loop
 * is bounded by the ring's size.  A ring that cannot be walked at all
 * (missing VMCOREINFO entries, unreadable or impossible header fields) is
 * an error; a single malformed record is left out, counted in
 * dmesg_stats.bad and described in dmesg_stats.problem.
 *
 * Only 64-bit kernels are read (unsigned long = 8 bytes), in either byte
 * order (struct dmesg_mem says which).
 */
#ifndef MDF_DMESG_H
#define MDF_DMESG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kinfo.h"

struct mdf_ctx;

/** Read @len bytes of the crashed kernel's virtual memory at @vaddr. */
typedef enum mdf_status (*dmesg_read_fn)(void *arg, uint64_t vaddr, void *buf,
					 size_t len, struct mdf_err *err);

struct dmesg_mem {
	dmesg_read_fn read;
	void *arg;
	bool big_endian;        /* the dump's byte order */
	unsigned word_size;     /* the kernel's unsigned long and pointers:
				 * 4 on i386, else 8 (0 means 8) */
};

/** Take @len bytes of log text (called with whole buffers, in order). */
typedef enum mdf_status (*dmesg_write_fn)(void *arg, const void *buf,
					  size_t len, struct mdf_err *err);

#define DMESG_OUT_BUF 8192

/** Buffered text output; set write and arg, zero the rest. */
struct dmesg_out {
	dmesg_write_fn write;
	void *arg;
	uint64_t total;               /* bytes passed to write() so far */
	size_t len;                   /* bytes waiting in buf */
	unsigned char buf[DMESG_OUT_BUF];
};

enum dmesg_format {
	DMESG_FMT_LOCKLESS,   /* printk_ringbuffer, 5.10+ */
	DMESG_FMT_PRINTK_LOG, /* struct printk_log records, 3.5 - 5.9 */
	DMESG_FMT_LEGACY,     /* character ring, before 3.5 */
};

struct dmesg_stats {
	enum dmesg_format format;
	uint64_t records;     /* records written (legacy: 0) */
	uint64_t cleared;     /* left out by --partial-dmesg */
	uint64_t bad;         /* malformed records left out or cut short */
	char problem[256];    /* what was wrong with the first bad one */
	uint64_t unreadable;  /* of those, records whose text could not be
				 read (not in the dump, lost in it) */
	char lost[256];       /* why the first of them could not */
};

/** Text for a format, e.g. "printk_ringbuffer". */
const char *dmesg_format_name(enum dmesg_format f);

/**
 * Which log layout VMCOREINFO describes.  MDF_ERR_NODATA when it has no
 * SYMBOL(prb), SYMBOL(log_first_idx) or SYMBOL(log_end).
 */
enum mdf_status dmesg_detect(const struct kinfo *ki, enum dmesg_format *ret,
			     struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Write the log described by @ki, read through @mem, to @out (flushed at
 * the end).  With @partial only records not yet cleared (seq >= clear_seq
 * for the ringbuffer; from clear_idx for printk_log; the legacy ring has
 * no such mark and is written whole).  Errors name the ring and field:
 * "printk_ringbuffer: desc_ring.count_bits 70 out of range (0-31)".
 */
enum mdf_status dmesg_extract(const struct kinfo *ki, const struct dmesg_mem *mem,
			      bool partial, struct dmesg_out *out,
			      struct dmesg_stats *stats,
			      struct mdf_err *err) MDF_MUST_CHECK;

/** Same as dmesg_extract() for a known format (no detection). */
enum mdf_status dmesg_lockless(const struct kinfo *ki, const struct dmesg_mem *mem,
			       bool partial, struct dmesg_out *out,
			       struct dmesg_stats *stats,
			       struct mdf_err *err) MDF_MUST_CHECK;
enum mdf_status dmesg_printk_log(const struct kinfo *ki, const struct dmesg_mem *mem,
				 bool partial, struct dmesg_out *out,
				 struct dmesg_stats *stats,
				 struct mdf_err *err) MDF_MUST_CHECK;
enum mdf_status dmesg_legacy(const struct kinfo *ki, const struct dmesg_mem *mem,
			     struct dmesg_out *out, struct dmesg_stats *stats,
			     struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Format one record: prefix from @ts_nsec, @text escaped as described
 * above, final newline.
 */
enum mdf_status dmesg_emit_record(struct dmesg_out *out, uint64_t ts_nsec,
				  const unsigned char *text, size_t len,
				  struct mdf_err *err) MDF_MUST_CHECK;

/** Append raw bytes / write out what is buffered. */
enum mdf_status dmesg_out_put(struct dmesg_out *out, const void *buf,
			      size_t len, struct mdf_err *err) MDF_MUST_CHECK;
enum mdf_status dmesg_out_flush(struct dmesg_out *out,
				struct mdf_err *err) MDF_MUST_CHECK;

/**
 * --dump-dmesg: open ctx->opts.vmcore (dump_open at dump level 0), read
 * the log through ctx->k.rm (kernel virtual addresses), write it to
 * ctx->opts.dumpfile and print "The dmesg log is saved to X." and
 * "makedumpfile Completed.".  The caller prints the error and calls
 * dump_close().
 *
 * The text file cannot say it is incomplete, so it is written under a
 * temporary name in the same directory (out_open_file_tmp: mode 0600,
 * never over an existing file without -f) and gets its name only once
 * all of it is on the disk; on any failure (a full disk, -L, a stop
 * signal) the temporary file is removed and nothing is left.  A log that
 * cannot be read whole is a failure too: a record whose text is not in
 * the dump (a page lost in an incomplete dump, or excluded), or no record
 * at all (every one malformed, or a ring that reads as empty); a log
 * emptied by "dmesg -c" under --partial-dmesg is not.
 *
 * Input formats: whatever dump_open() can open and give a struct readmem
 * with address translation for: ELF vmcores and kdump-compressed dumps
 * (read through diskdump_read.c); nothing here depends on the input
 * format beyond ctx->k.ki and ctx->k.rm.
 */
enum mdf_status dmesg_run(struct mdf_ctx *ctx) MDF_MUST_CHECK;

#endif
