/*
 * rearrange.h - makedumpfile -R: rebuild a dump file from the flattened
 * stream (-F) read on standard input.
 *
 * The stream (see diskdump.h) is a 4096-byte header, then records
 * {int64 offset, int64 size, size bytes}, big-endian, ended by {-1, -1}.
 * Records are applied in stream order (a later record may overwrite bytes
 * of an earlier one); bytes no record covers read as zero (holes).
 * Anything after the end marker is ignored and not read, so the stream may
 * come from a raw device that holds more than the stream.
 */
#ifndef MDF_REARRANGE_H
#define MDF_REARRANGE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "opts.h"
#include "print_info.h"
#include "stop.h"

/* Limits on what a record may say before any byte of it is believed. */
#define REARRANGE_MAX_RECORD (1ULL << 30)  /* bytes in one record */

struct rearrange_stats {
	uint64_t records;    /* data records applied (not the end marker) */
	uint64_t in_bytes;   /* stream bytes consumed, header and marker included */
	uint64_t data_bytes; /* payload bytes written */
	uint64_t out_size;   /* highest offset + size: the rebuilt file's length */
	uint64_t reads;      /* read calls made */
	uint64_t writes;     /* pwrite calls made (contiguous records coalesced) */
	bool dump_incomplete; /* rearrange_dump_fd(): the stream's dump header
				 says incomplete (its writer was cut short) */
	bool keep;           /* on failure: the file holds what came, its
				dump header marked incomplete (else it holds
				no dump and is to be removed) */
};

/**
 * Check the 4096-byte flattened header at @hdr (@len bytes available).
 * Errors name @in_name: "standard input: not a flattened makedumpfile
 * stream (...)", with a hint when @hdr looks like a kdump-compressed or ELF
 * file instead.
 */
enum mdf_status rearrange_check_header(const unsigned char *hdr, size_t len,
				       const char *in_name,
				       struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Read the flattened stream from @in_fd and apply it to @out_fd, which is
 * already open for reading and writing (pwrite) and named @out_name in
 * messages: the stream's bytes, whatever they are (rearrange_dump_fd()
 * asks for a dump).  Nothing is truncated or removed here.  While it is
 * written, the byte of a kdump or ELF header in the file that holds the
 * dump's "incomplete" mark (kdump status bit 0x8, ELF e_flags bit 0)
 * carries the mark; at the end marker the data is synced (fdatasync) and
 * the stream's own byte written back.  A stream without the end marker
 * fails with "IN: flattened stream cut short after N records at byte X
 * ...: no end marker", and the file keeps the mark (st->keep when it has
 * a header to carry one).  @st (may be NULL) is filled even on failure.
 */
enum mdf_status rearrange_fd(int in_fd, const char *in_name, int out_fd,
			     const char *out_name, struct rearrange_stats *st,
			     struct mdf_err *err) MDF_MUST_CHECK;

/**
 * rearrange_fd() for -R: the rebuilt file must be a usable dump.  It fails
 * (MDF_ERR_FORMAT) when the stream has no record ("IN: flattened stream
 * ends after the header: no page data"), when the file starts with no
 * kdump-compressed or ELF header it can read, or holds no page data (it
 * ends before the page descriptors, or the first descriptor points at no
 * data, or before the first PT_LOAD's data): st->keep is false, the file
 * is to be removed.  It fails with st->keep set, the file marked
 * incomplete, when the stream was cut short (no end marker), stopped by a
 * signal seen through @stop (may be NULL), or ends before its dump does
 * (descriptors, the last page's data, the eraseinfo, PT_LOAD data past the
 * end).  A whole dump whose own header is marked incomplete is
 * MDF_ERR_NODATA "OUT: the dump is incomplete: the dump in IN is marked
 * incomplete", st->dump_incomplete and st->keep set.
 */
enum mdf_status rearrange_dump_fd(int in_fd, const char *in_name, int out_fd,
				  const char *out_name, const struct mdf_stop *stop,
				  struct rearrange_stats *st,
				  struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The whole of -R: check the header of the stream on @in_fd, then create
 * @out_path (O_EXCL unless @force; mode 0600) and rebuild the dump in it
 * with rearrange_dump_fd().  On a failure that leaves no dump the file is
 * removed (a regular file only; a device is left alone) and the message
 * says so ("; removed the incomplete OUT"); one that keeps what came says
 * ": OUT holds what came before, marked incomplete".  Refuses an
 * @out_path that is the input itself.
 */
enum mdf_status rearrange_stream(int in_fd, const char *in_name,
				 const char *out_path, bool force,
				 const struct mdf_stop *stop,
				 struct rearrange_stats *st,
				 struct mdf_err *err) MDF_MUST_CHECK;

/**
 * main()'s -R: rearrange_stream() from standard input into @o->dumpfile,
 * with SIGTERM, SIGHUP and SIGINT watched (stop.h), then the debug
 * statistics and "The dumpfile is saved to ..." / "makedumpfile
 * Completed." through @pr, or a warning when the stream's dump is marked
 * incomplete.  Errors are left in @err for main() to print.
 */
enum mdf_status rearrange_main(const struct mdf_opts *o,
			       const struct mdf_printer *pr,
			       const struct mdf_stop *stop,
			       struct mdf_err *err) MDF_MUST_CHECK;

#endif
