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

/* Limits on what a record may say before any byte of it is believed. */
#define REARRANGE_MAX_RECORD (1ULL << 30)  /* bytes in one record */

struct rearrange_stats {
	uint64_t records;    /* data records applied (not the end marker) */
	uint64_t in_bytes;   /* stream bytes consumed, header and marker included */
	uint64_t data_bytes; /* payload bytes written */
	uint64_t out_size;   /* highest offset + size: the rebuilt file's length */
	uint64_t reads;      /* read calls made */
	uint64_t writes;     /* pwrite calls made (contiguous records coalesced) */
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
 * already open for writing (pwrite) and named @out_name in messages.
 * Nothing is truncated or removed here.  A stream without the end marker
 * fails with "IN: flattened stream cut short after N records at byte X
 * ...: no end marker".  @st (may be NULL) is filled even on failure.
 */
enum mdf_status rearrange_fd(int in_fd, const char *in_name, int out_fd,
			     const char *out_name, struct rearrange_stats *st,
			     struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The whole of -R: check the header of the stream on @in_fd, then create
 * @out_path (O_EXCL unless @force; mode 0600) and rebuild the dump in it.
 * On any failure after the file was created the incomplete file is
 * removed (a regular file only; a device is left alone) and the message
 * says so.  Refuses an @out_path that is the input itself.
 */
enum mdf_status rearrange_stream(int in_fd, const char *in_name,
				 const char *out_path, bool force,
				 struct rearrange_stats *st,
				 struct mdf_err *err) MDF_MUST_CHECK;

/**
 * main()'s -R: rearrange_stream() from standard input into @o->dumpfile,
 * then the debug statistics and "The dumpfile is saved to ..." /
 * "makedumpfile Completed." through @pr.  Errors are left in @err for
 * main() to print.
 */
enum mdf_status rearrange_main(const struct mdf_opts *o,
			       const struct mdf_printer *pr,
			       struct mdf_err *err) MDF_MUST_CHECK;

#endif
