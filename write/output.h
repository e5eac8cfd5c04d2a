/*
 * output.h - where dump bytes go: a file written with pwrite, or the
 * flattened stream (-F) on a pipe.  Writers say "these bytes at this file
 * offset"; the sink coalesces sequential pieces into large writes, turns
 * them into flattened records, enforces -L and reports a full disk as
 * MDF_ERR_NOSPC so the writer can mark the dump incomplete.
 */
#ifndef MDF_OUTPUT_H
#define MDF_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

struct out_io;

struct out_sink {
	int fd;
	const char *path;      /* for messages; "standard output" with -F */
	bool flat;             /* emit flattened records */
	bool stream;           /* a pipe or terminal: write(), in order */
	bool own_fd;           /* close fd at the end */
	bool regular;          /* a regular file (safe to remove on a retry) */
	uint64_t limit;        /* -L: bytes the dump may take, 0 = none */
	uint64_t written;      /* bytes handed to the kernel */
	uint64_t taken;        /* bytes handed to out_write() (-L of a file) */
	uint64_t unsynced;     /* bytes written since the disk was last asked
				  to write the file out */
	uint64_t reserved;     /* bytes the writer will still write (its
				  buffered page descriptors): within -L too */
	uint64_t syscalls;     /* write calls made */
	bool full;             /* ENOSPC or the limit was hit */
	bool limit_hit;        /* the limit (-L), not the disk */
	uint64_t fail_off;     /* with full: file offset of the first byte
				  that may not have been written */
	/* coalescing buffer: buf holds [buf_off, buf_off + buf_len) */
	unsigned char *buf;
	size_t cap, buf_len;
	uint64_t buf_off;
	struct out_io *io;     /* the writing thread, or NULL: writes here */
	/* out_open_file_tmp(): the file is written as tmp_path and renamed
	 * to final_path (path, or where its symlink leads) by out_commit() */
	bool tmp;
	bool force;            /* the rename may replace final_path */
	char tmp_path[PATH_MAX];
	char final_path[PATH_MAX];
};

/*
 * Default coalescing buffers when -b asks for less.  A file gets 128 KiB
 * writes: few enough syscalls (about 900 for a 110 MiB dump, a tenth of
 * upstream's) and small page-cache folios.  Since Linux 6.16 ext4 backs a
 * buffered write with a folio as large as the write, and the high-order
 * free blocks large folios come from are the ones a VM balloon with free
 * page reporting hands back to the host, so each of their pages costs a
 * host fault when the write first touches it.  On -l -d 0 of fx-v61 here,
 * 256 KiB writes took 0.37-0.44 s (0.17-0.22 s in the kernel) in 5 of 12
 * back-to-back runs, 128 and 64 KiB writes 0.21-0.29 s in all 24 (1 MiB
 * writes had lost 0.2-1.1 s on a 2 GiB dump in an earlier session).
 * A pipe (-F) has no page cache behind it and keeps 1 MiB.
 */
#define OUT_FILE_BUF (128u << 10)
#define OUT_PIPE_BUF (1u << 20)

/**
 * Create @path for a dump: O_EXCL unless @force, mode 0600 (a dump holds
 * secrets).  @bufsize bytes of coalescing buffer (at least 64 KiB).
 */
enum mdf_status out_open_file(struct out_sink *o, const char *path, bool force,
			      uint64_t limit, size_t bufsize,
			      struct mdf_err *err) MDF_MUST_CHECK;

/**
 * out_open_file() for a file that must never be seen half written (the
 * --dump-dmesg text, -g's VMCOREINFO): it is written under a temporary
 * name in the same directory (".NAME.incomplete.PID.N", created with
 * @mode, less the umask) and renamed to @path by out_commit() once its
 * bytes are on the disk; out_discard() removes it.  Without @force an
 * existing @path is refused at once, and the rename never replaces one
 * that appears meanwhile.  With @force an existing @path that is no
 * regular file (a device, a FIFO, a terminal) is written directly, in
 * order (the writes must be sequential); a symlink's target is replaced,
 * not the link.
 * Messages name @path, never the temporary name.
 */
enum mdf_status out_open_file_tmp(struct out_sink *o, const char *path, bool force,
				  mode_t mode, uint64_t limit, size_t bufsize,
				  struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The end of a file that is complete: flush, wait until its data is on
 * the disk (fdatasync), and for out_open_file_tmp() rename it to its name
 * (without force never over an existing file: renameat2 RENAME_NOREPLACE,
 * else link() and unlink(), else a look and rename() on file systems with
 * neither) and sync the directory.  On failure the temporary file is
 * still there for out_discard().
 */
enum mdf_status out_commit(struct out_sink *o, struct mdf_err *err) MDF_MUST_CHECK;

/** Flattened stream on @fd (stdout): writes the 4096-byte header. */
enum mdf_status out_open_flat(struct out_sink *o, int fd, uint64_t limit,
			      size_t bufsize, struct mdf_err *err) MDF_MUST_CHECK;

/** Plain text on @fd (stdout; -F --dump-dmesg): written in order, as it
 *  is, never synced or removed; at most @limit bytes (-L) unless 0. */
enum mdf_status out_open_stream(struct out_sink *o, int fd, uint64_t limit,
				size_t bufsize, struct mdf_err *err) MDF_MUST_CHECK;

/** Put @len bytes at file offset @off. */
enum mdf_status out_write(struct out_sink *o, uint64_t off, const void *buf,
			  size_t len, struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Hand the writes of a file sink to a thread of their own from now on
 * (the kdump writer does with --num-threads): out_write() queues full
 * buffers and returns, so the calling thread goes on feeding the
 * compression threads while the kernel copies.  Whole aligned blocks go
 * to the file opened a second time with O_DIRECT: no page cache to fill
 * (and, in a capture kernel, none to write back later), the data is on
 * disk when the writes return; the unaligned ends of each buffer, and
 * everything when O_DIRECT is refused, are written as before.  Writes stay
 * in order, and after a failure nothing later is written: the failure
 * (NOSPC sets full and fail_off) comes back from the next out_write(),
 * out_flush() or out_close().  Not for a flattened stream (a no-op).
 */
enum mdf_status out_start_io(struct out_sink *o, struct mdf_err *err) MDF_MUST_CHECK;

/** Write out whatever is buffered, and with a writing thread wait until
 *  it has written everything. */
enum mdf_status out_flush(struct out_sink *o, struct mdf_err *err) MDF_MUST_CHECK;

/** out_flush(), then for a file wait until its data is on the disk
 *  (fdatasync): the writers clear the incomplete flag only after it. */
enum mdf_status out_sync(struct out_sink *o, struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Rewrite bytes that were already written (a header), bypassing the
 * limit: the writers clear the incomplete flag with it, or set it after
 * the disk filled.  On a flattened stream it is one more record at that
 * offset (-R applies records in order).
 */
enum mdf_status out_patch(struct out_sink *o, uint64_t off, const void *buf,
			  size_t len, struct mdf_err *err) MDF_MUST_CHECK;

/** Flush, write the end marker of a flattened stream, fsync nothing,
 *  close a file we opened.  Safe after a failure (best effort). */
enum mdf_status out_close(struct out_sink *o, struct mdf_err *err) MDF_MUST_CHECK;

/** Remove the output file (a retry at another dump level, a failure);
 *  for out_open_file_tmp() the temporary file, never @path. */
void out_discard(struct out_sink *o);

#endif
