/*
 * output.c - file and flattened-stream sinks.
 */
#include "write/output.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "diskdump.h"
#include "util.h"

#define OUT_MIN_BUF (64 << 10)

/*
 * The writing thread (out_start_io).  Buffers go round: the sink fills
 * one (o->buf points into it), queues it full, and takes a free one.  A
 * buffer's memory starts at a block boundary and its first byte sits at
 * the same offset in its block as in the file, so the whole blocks inside
 * are aligned in memory as O_DIRECT wants.
 */
#define IO_BLOCK 4096u
#define IO_NBUF 8

struct io_buf {
	unsigned char *mem;      /* cap + IO_BLOCK bytes, block aligned */
	uint64_t off;            /* file offset of the first byte */
	size_t len;
};

struct out_io {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more;     /* the thread: a buffer was queued, or stop */
	pthread_cond_t done;     /* the sink: a buffer was written */
	struct io_buf bufs[IO_NBUF];
	unsigned head, nqueued;  /* queue: bufs[head .. head + nqueued) */
	unsigned cur;            /* the one the sink fills (not queued) */
	bool stop;
	int dfd;                 /* O_DIRECT descriptor, or -1 */
	/* set by the thread: the first failure; later buffers are dropped */
	bool failed;
	enum mdf_status fail_st;
	uint64_t fail_off;
	struct mdf_err err;
	uint64_t syscalls;
};

static enum mdf_status alloc_buf(struct out_sink *o, size_t bufsize,
				 struct mdf_err *err)
{
	o->cap = bufsize < OUT_MIN_BUF ? OUT_MIN_BUF : bufsize;
	o->buf = malloc(o->cap);
	if (!o->buf)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory for the write buffer");
	return MDF_OK;
}

enum mdf_status out_open_file(struct out_sink *o, const char *path, bool force,
			      uint64_t limit, size_t bufsize,
			      struct mdf_err *err)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = path;
	o->limit = limit;
	o->fd = open(path, flags, 0600);
	if (o->fd < 0) {
		if (errno == EEXIST)
			return mdf_err_set(err, MDF_ERR_IO,
					   "%s already exists (use -f to overwrite it)",
					   path);
		return mdf_err_errno(err, MDF_ERR_IO, errno, "cannot create %s", path);
	}
	o->own_fd = true;
	{
		struct stat sb;

		o->regular = fstat(o->fd, &sb) == 0 && S_ISREG(sb.st_mode);
	}
	return alloc_buf(o, bufsize, err);
}

/* ---- files written under a temporary name -------------------------- */

/* "DIR/.BASE.incomplete.PID.N" for the final name @final. */
static bool tmp_name(char *dst, size_t cap, const char *final, unsigned n)
{
	const char *slash = strrchr(final, '/');
	const char *base = slash ? slash + 1 : final;
	int dlen = slash ? (int)(slash - final + 1) : 0;
	/* The name stays within NAME_MAX however long the base is. */
	int blen = (int)MDF_MIN(strlen(base), (size_t)200);
	int len = snprintf(dst, cap, "%.*s.%.*s.incomplete.%ld.%u", dlen, final,
			   blen, base, (long)getpid(), n);

	return len > 0 && (size_t)len < cap;
}

enum mdf_status out_open_file_tmp(struct out_sink *o, const char *path, bool force,
				  mode_t mode, uint64_t limit, size_t bufsize,
				  struct mdf_err *err)
{
	struct stat lsb, sb;
	bool exists = lstat(path, &lsb) == 0;
	enum mdf_status st;

	if (exists && !force) {
		memset(o, 0, sizeof(*o));
		o->fd = -1;
		o->path = path;
		return mdf_err_set(err, MDF_ERR_IO,
				   "%s already exists (use -f to overwrite it)", path);
	}
	/* A device, a FIFO, a terminal (or a link to one): written in place,
	 * in order (these writers write front to back), as it always was;
	 * it cannot be renamed over. */
	if (exists && stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		st = out_open_file(o, path, true, limit, bufsize, err);
		o->stream = true;
		return st;
	}
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = path;
	o->limit = limit;
	o->tmp = true;
	o->force = force;
	o->regular = true;
	if (strlen(path) >= sizeof(o->final_path))
		return mdf_err_set(err, MDF_ERR_ARG, "%s: name too long", path);
	/* A symlink (with -f): the file it leads to is replaced, in its own
	 * directory, not the link (which may be /dev/stdout's). */
	if (!(exists && S_ISLNK(lsb.st_mode) && realpath(path, o->final_path)))
		memcpy(o->final_path, path, strlen(path) + 1);
	for (unsigned n = 0; o->fd < 0; n++) {
		if (!tmp_name(o->tmp_path, sizeof(o->tmp_path), o->final_path, n))
			return mdf_err_set(err, MDF_ERR_ARG, "%s: name too long", path);
		o->fd = open(o->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
		if (o->fd < 0 && (errno != EEXIST || n >= 1000)) {
			int e = errno;

			o->tmp_path[0] = '\0';
			return mdf_err_errno(err, e == ENOSPC ? MDF_ERR_NOSPC : MDF_ERR_IO, e,
					     "cannot create %s", path);
		}
	}
	o->own_fd = true;
	st = alloc_buf(o, bufsize, err);
	if (st != MDF_OK) {
		close(o->fd);
		o->fd = -1;
		out_discard(o);
	}
	return st;
}

/* rename() that never replaces an existing @to. */
static int rename_noreplace(const char *from, const char *to)
{
	struct stat sb;

	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return -1;
	/* The file system has no RENAME_NOREPLACE: a hard link is just as
	 * atomic, and fails with EEXIST. */
	if (link(from, to) == 0) {
		(void)unlink(from);
		return 0;
	}
	if (errno == EEXIST)
		return -1;
	if (errno != EPERM && errno != ENOSYS && errno != EOPNOTSUPP &&
	    errno != EMLINK)
		return -1;
	/* Nor hard links (vfat): look, then rename. */
	if (lstat(to, &sb) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(from, to);
}

/* The rename reaches the disk with the directory (best effort). */
static void sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int fd;

	if (!slash) {
		memcpy(dir, ".", 2);
	} else {
		size_t len = slash == path ? 1 : (size_t)(slash - path);

		memcpy(dir, path, len);
		dir[len] = '\0';
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

enum mdf_status out_commit(struct out_sink *o, struct mdf_err *err)
{
	enum mdf_status st = out_sync(o, err);
	int ret;

	if (st != MDF_OK || !o->tmp)
		return st;
	if (!o->tmp_path[0])
		return mdf_err_set(err, MDF_ERR_INTERNAL, "%s: committed twice", o->path);
	ret = o->force ? rename(o->tmp_path, o->final_path)
		       : rename_noreplace(o->tmp_path, o->final_path);
	if (ret != 0) {
		if (errno == EEXIST)
			return mdf_err_set(err, MDF_ERR_IO,
					   "%s already exists (use -f to overwrite it)",
					   o->path);
		return mdf_err_errno(err, errno == ENOSPC ? MDF_ERR_NOSPC : MDF_ERR_IO,
				     errno, "%s: rename", o->path);
	}
	o->tmp_path[0] = '\0';
	sync_dir(o->final_path);
	return MDF_OK;
}

static enum mdf_status raw_write(struct out_sink *o, const void *buf,
				 size_t len, struct mdf_err *err)
{
	enum mdf_status st = util_write_full(o->fd, buf, len, err);

	o->syscalls++;
	if (st == MDF_ERR_NOSPC)
		return st; /* the writer says which dump is incomplete */
	if (st != MDF_OK)
		return mdf_err_push(err, "%s", o->path);
	o->written += len;
	return MDF_OK;
}

enum mdf_status out_open_flat(struct out_sink *o, int fd, uint64_t limit,
			      size_t bufsize, struct mdf_err *err)
{
	unsigned char hdr[MDF_FLAT_HEADER_SIZE];
	enum mdf_status st;

	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->path = "standard output";
	o->flat = true;
	o->limit = limit;
	st = alloc_buf(o, bufsize, err);
	if (st != MDF_OK)
		return st;
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, MDF_FLAT_SIGNATURE, sizeof(MDF_FLAT_SIGNATURE) - 1);
	store_be64(hdr + MDF_FLAT_SIG_LEN, MDF_FLAT_TYPE_KDUMP);
	store_be64(hdr + MDF_FLAT_SIG_LEN + 8, MDF_FLAT_VERSION);
	st = raw_write(o, hdr, sizeof(hdr), err);
	/* Nothing is written yet: no writer can call the dump incomplete. */
	if (st == MDF_ERR_NOSPC)
		mdf_err_push(err, "%s", o->path);
	return st;
}

enum mdf_status out_open_stream(struct out_sink *o, int fd, uint64_t limit,
				size_t bufsize, struct mdf_err *err)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->path = "standard output";
	o->stream = true;
	o->limit = limit;
	return alloc_buf(o, bufsize, err);
}

static enum mdf_status io_queue(struct out_sink *o, size_t len,
				struct mdf_err *err);

/*
 * The writers wait at the end until the file is on the disk (out_sync):
 * start the disk writing the file as it grows, every WRITEBACK_STEP bytes
 * (sync_file_range, which does not wait), so that little is left for that
 * wait.  Dirty pages would otherwise sit until the end, or until the
 * kernel's own writeback, which in a capture kernel's small memory comes
 * as throttling.
 */
#define WRITEBACK_STEP (8u << 20)

static void start_writeback(struct out_sink *o, size_t len)
{
	o->unsynced += len;
	if (o->unsynced < WRITEBACK_STEP)
		return;
	o->unsynced = 0;
	o->syscalls++;
	/* The whole file: what was written out of order (descriptors) too.
	 * Errors come back from the fdatasync at the end. */
	(void)sync_file_range(o->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

/* Write [off, off+len) now: one pwrite, or one flattened record; with a
 * writing thread, queue the buffer being filled (@buf is o->buf). */
static enum mdf_status emit_now(struct out_sink *o, uint64_t off,
				const void *buf, size_t len, struct mdf_err *err)
{
	enum mdf_status st;

	if (len == 0)
		return MDF_OK;
	if (o->io)
		return io_queue(o, len, err);
	if (o->flat) {
		unsigned char rec[16];

		store_be64(rec, off);
		store_be64(rec + 8, len);
		st = raw_write(o, rec, sizeof(rec), err);
		if (st == MDF_OK)
			st = raw_write(o, buf, len, err);
	} else if (o->stream) {
		st = raw_write(o, buf, len, err);   /* in order: off == written */
	} else {
		st = util_pwrite_full(o->fd, buf, len, off, err);
		o->syscalls++;
		if (st == MDF_OK) {
			o->written += len;
			start_writeback(o, len);
		} else if (st != MDF_ERR_NOSPC) {
			mdf_err_push(err, "%s", o->path);
		}
	}
	if (st == MDF_ERR_NOSPC) {
		o->full = true;
		o->fail_off = off;
	}
	return st;
}

static enum mdf_status limit_reached(struct out_sink *o, uint64_t off,
				     struct mdf_err *err)
{
	o->full = true;
	o->limit_hit = true;
	o->fail_off = off;
	return mdf_err_set(err, MDF_ERR_NOSPC,
			   "the size limit of %llu bytes (-L) was reached",
			   (unsigned long long)o->limit);
}

/* emit_now(), and on a flattened stream within -L (with its 16-byte
 * record headers): the bytes that fit go out, to the byte.  A file's -L
 * is kept by out_write(). */
static enum mdf_status emit(struct out_sink *o, uint64_t off, const void *buf,
			    size_t len, struct mdf_err *err)
{
	uint64_t used = o->written + o->reserved + 16;
	enum mdf_status st;
	size_t room;

	if (!o->limit || !o->flat || used + len <= o->limit)
		return emit_now(o, off, buf, len, err);
	room = used < o->limit ? (size_t)MDF_MIN(o->limit - used, (uint64_t)len) : 0;
	st = emit_now(o, off, buf, room, err);
	if (st != MDF_OK)
		return st;
	return limit_reached(o, off + room, err);
}

static enum mdf_status io_wait(struct out_sink *o, struct mdf_err *err);

/* Bytes the buffer being filled takes: a writing thread's buffers end on
 * a block boundary, so that one after another their blocks are whole. */
static size_t buf_room(const struct out_sink *o)
{
	return o->io ? o->cap - (size_t)(o->buf_off % IO_BLOCK) : o->cap;
}

enum mdf_status out_flush(struct out_sink *o, struct mdf_err *err)
{
	enum mdf_status st = MDF_OK;

	if (o->buf_len)
		st = emit(o, o->buf_off, o->buf, o->buf_len, err);
	o->buf_len = 0;
	if (st == MDF_OK && o->io)
		st = io_wait(o, err);
	return st;
}

/* Queue the buffer being filled (full, or ending a contiguous run). */
static enum mdf_status out_pass(struct out_sink *o, struct mdf_err *err)
{
	enum mdf_status st;

	if (!o->io)
		return out_flush(o, err);
	st = emit(o, o->buf_off, o->buf, o->buf_len, err);
	o->buf_len = 0;
	return st;
}

static enum mdf_status put(struct out_sink *o, uint64_t off, const void *buf,
			   size_t len, struct mdf_err *err);

/*
 * A file's -L counts the bytes as they are handed over: the dump stops at
 * the same byte whatever the buffering (a writing thread's buffers end
 * elsewhere).  The bytes that fit are taken and everything taken is
 * written before the limit is reported.
 */
enum mdf_status out_write(struct out_sink *o, uint64_t off, const void *buf,
			  size_t len, struct mdf_err *err)
{
	uint64_t used = o->taken + o->reserved;
	enum mdf_status st;
	size_t room;

	if (!o->limit || o->flat || used + len <= o->limit) {
		o->taken += len;
		return put(o, off, buf, len, err);
	}
	room = used < o->limit ? (size_t)MDF_MIN(o->limit - used, (uint64_t)len) : 0;
	o->taken += room;
	st = put(o, off, buf, room, err);
	if (st == MDF_OK)
		st = out_flush(o, err);
	if (st != MDF_OK)
		return st;
	return limit_reached(o, off + room, err);
}

/* Into the buffer; full buffers, and large pieces, go out. */
static enum mdf_status put(struct out_sink *o, uint64_t off, const void *buf,
			   size_t len, struct mdf_err *err)
{
	const unsigned char *p = buf;
	enum mdf_status st;

	while (len) {
		size_t n;

		/* Not contiguous with the buffered bytes: flush them first. */
		if (o->buf_len && off != o->buf_off + o->buf_len) {
			st = out_pass(o, err);
			if (st != MDF_OK)
				return st;
		}
		if (!o->buf_len) {
			o->buf_off = off;
			/* A large piece bypasses the buffer (not the writing
			 * thread's: it writes after this returns). */
			if (len >= o->cap && !o->io)
				return emit(o, off, p, len, err);
			if (o->io)
				o->buf = o->io->bufs[o->io->cur].mem + off % IO_BLOCK;
		}
		n = buf_room(o) - o->buf_len;
		if (n > len)
			n = len;
		memcpy(o->buf + o->buf_len, p, n);
		o->buf_len += n;
		p += n;
		off += n;
		len -= n;
		if (o->buf_len == buf_room(o)) {
			st = out_pass(o, err);
			if (st != MDF_OK)
				return st;
		}
	}
	return MDF_OK;
}

enum mdf_status out_patch(struct out_sink *o, uint64_t off, const void *buf,
			  size_t len, struct mdf_err *err)
{
	enum mdf_status st;

	if (o->flat) {
		/* One more record, written at once, outside -L. */
		unsigned char rec[16];

		st = out_flush(o, err);
		if (st != MDF_OK)
			return st;
		store_be64(rec, off);
		store_be64(rec + 8, len);
		st = raw_write(o, rec, sizeof(rec), err);
		if (st == MDF_OK)
			st = raw_write(o, buf, len, err);
		return st;
	}
	if (o->io) {
		/* Whatever is queued goes first; its failure is not ours. */
		struct mdf_err ignore;

		(void)io_wait(o, &ignore);
	}
	st = util_pwrite_full(o->fd, buf, len, off, err);
	o->syscalls++;
	if (st != MDF_OK)
		return mdf_err_push(err, "%s", o->path);
	return MDF_OK;
}

enum mdf_status out_sync(struct out_sink *o, struct mdf_err *err)
{
	enum mdf_status st = out_flush(o, err);

	if (st != MDF_OK || o->flat || o->stream)
		return st;
	o->syscalls++;
	if (fdatasync(o->fd) != 0 && errno != EINVAL)
		return mdf_err_errno(err, errno == ENOSPC ? MDF_ERR_NOSPC : MDF_ERR_IO,
				     errno, "%s: fdatasync", o->path);
	return MDF_OK;
}

static void io_stop(struct out_sink *o);

enum mdf_status out_close(struct out_sink *o, struct mdf_err *err)
{
	enum mdf_status st = MDF_OK;

	if ((o->buf_len || o->io) && !o->full)
		st = out_flush(o, err);
	io_stop(o);
	/* A stream the limit cut still ends properly: -R then rebuilds an
	 * incomplete dump (its header says so).  One the pipe refused
	 * cannot. */
	if (st == MDF_OK && o->flat && (!o->full || o->limit_hit)) {
		unsigned char end[16];

		store_be64(end, (uint64_t)(int64_t)MDF_FLAT_END_MARK);
		store_be64(end + 8, (uint64_t)(int64_t)MDF_FLAT_END_MARK);
		st = raw_write(o, end, sizeof(end), err);
	}
	if (o->own_fd && o->fd >= 0) {
		if (close(o->fd) != 0 && st == MDF_OK)
			st = mdf_err_errno(err, errno == ENOSPC ? MDF_ERR_NOSPC : MDF_ERR_IO,
					   errno, "%s: close", o->path);
	}
	o->fd = -1;
	free(o->buf);
	o->buf = NULL;
	o->buf_len = 0;
	return st;
}

/* ---- the writing thread ------------------------------------------------- */

/* pwritev() of all of @iov (consumed), at @off. */
static enum mdf_status pwritev_full(int fd, struct iovec *iov, int n,
				    uint64_t off, uint64_t *calls,
				    struct mdf_err *err)
{
	while (n > 0) {
		ssize_t got = pwritev(fd, iov, n, (off_t)off);

		(*calls)++;
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return mdf_err_errno(err, errno == ENOSPC ? MDF_ERR_NOSPC : MDF_ERR_IO,
					     errno, "write at offset 0x%llx",
					     (unsigned long long)off);
		}
		off += (uint64_t)got;
		while (n > 0 && (size_t)got >= iov->iov_len) {
			got -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + got;
			iov->iov_len -= (size_t)got;
		}
	}
	return MDF_OK;
}

/*
 * A run of @k buffers, each ending where the next begins, on a block
 * boundary (but the last): the unaligned head of the first and tail of
 * the last through the page cache, all whole blocks between them in one
 * O_DIRECT pwritev (when the file takes it).
 */
static enum mdf_status io_write(struct out_sink *o, struct out_io *io,
				const struct io_buf *run, unsigned k,
				struct mdf_err *err)
{
	const struct io_buf *first = &run[0], *last = &run[k - 1];
	uint64_t start = first->off, end = last->off + last->len;
	uint64_t a = align_up(start, IO_BLOCK), e = align_down(end, IO_BLOCK);
	struct iovec iov[IO_NBUF];
	enum mdf_status st;
	int n = 0;

	if (io->dfd < 0 || a >= e) {
		for (unsigned i = 0; i < k; i++) {
			io->syscalls++;
			st = util_pwrite_full(o->fd, run[i].mem + run[i].off % IO_BLOCK,
					      run[i].len, run[i].off, err);
			if (st != MDF_OK)
				return st;
		}
		return MDF_OK;
	}
	if (a > start) {
		io->syscalls++;
		st = util_pwrite_full(o->fd, first->mem + start % IO_BLOCK,
				      (size_t)(a - start), start, err);
		if (st != MDF_OK)
			return st;
	}
	for (unsigned i = 0; i < k; i++) {
		uint64_t s = MDF_MAX(run[i].off, a);
		uint64_t t = MDF_MIN(run[i].off + run[i].len, e);

		if (s < t) {
			iov[n].iov_base = run[i].mem + run[i].off % IO_BLOCK + (s - run[i].off);
			iov[n].iov_len = (size_t)(t - s);
			n++;
		}
	}
	st = pwritev_full(io->dfd, iov, n, a, &io->syscalls, err);
	if (st == MDF_ERR_IO && err->sys_errno == EINVAL) {
		/* The file system takes no O_DIRECT writes after all: the
		 * whole run again, through the page cache. */
		close(io->dfd);
		io->dfd = -1;
		return io_write(o, io, run, k, err);
	}
	if (st != MDF_OK || e == end)
		return st;
	io->syscalls++;
	return util_pwrite_full(o->fd, last->mem + last->off % IO_BLOCK + (e - last->off),
				(size_t)(end - e), e, err);
}

/* How many queued buffers from the head make one run for io_write()
 * (caller holds the lock); the ring wraps, so a run stops there too. */
static unsigned io_run(const struct out_io *io)
{
	unsigned k = 1;

	while (k < io->nqueued && io->head + k < IO_NBUF) {
		const struct io_buf *p = &io->bufs[io->head + k - 1];
		const struct io_buf *q = &io->bufs[io->head + k];

		if (p->off + p->len != q->off || q->off % IO_BLOCK)
			break;
		k++;
	}
	return k;
}

static void *io_main(void *arg)
{
	struct out_sink *o = arg;
	struct out_io *io = o->io;

	pthread_mutex_lock(&io->lock);
	for (;;) {
		struct mdf_err err;
		enum mdf_status st;
		unsigned k;

		while (!io->nqueued && !io->stop)
			pthread_cond_wait(&io->more, &io->lock);
		if (!io->nqueued)
			break;
		k = io_run(io);
		if (!io->failed) {
			const struct io_buf *run = &io->bufs[io->head];

			pthread_mutex_unlock(&io->lock);
			st = io_write(o, io, run, k, &err);
			pthread_mutex_lock(&io->lock);
			if (st != MDF_OK) {
				io->failed = true;
				io->fail_st = st;
				io->fail_off = run[0].off;
				io->err = err;
			}
		}
		io->head = (io->head + k) % IO_NBUF;
		io->nqueued -= k;
		pthread_cond_signal(&io->done);
	}
	pthread_mutex_unlock(&io->lock);
	return NULL;
}

/* The thread's failure, as the sink's (caller holds the lock). */
static enum mdf_status io_failure(struct out_sink *o, struct out_io *io,
				  struct mdf_err *err)
{
	*err = io->err;
	if (io->fail_st == MDF_ERR_NOSPC) {
		o->full = true;
		o->fail_off = io->fail_off;
		return MDF_ERR_NOSPC;
	}
	return mdf_err_push(err, "%s", o->path);
}

static enum mdf_status io_queue(struct out_sink *o, size_t len,
				struct mdf_err *err)
{
	struct out_io *io = o->io;
	enum mdf_status st = MDF_OK;

	pthread_mutex_lock(&io->lock);
	if (io->failed) {
		st = io_failure(o, io, err);
	} else {
		io->bufs[io->cur].off = o->buf_off;
		io->bufs[io->cur].len = len;
		io->nqueued++;
		o->written += len;
		pthread_cond_signal(&io->more);
		/* The next free buffer: the one after the queue. */
		while (io->nqueued >= IO_NBUF - 1)
			pthread_cond_wait(&io->done, &io->lock);
		io->cur = (io->head + io->nqueued) % IO_NBUF;
	}
	pthread_mutex_unlock(&io->lock);
	return st;
}

static enum mdf_status io_wait(struct out_sink *o, struct mdf_err *err)
{
	struct out_io *io = o->io;
	enum mdf_status st = MDF_OK;

	pthread_mutex_lock(&io->lock);
	while (io->nqueued)
		pthread_cond_wait(&io->done, &io->lock);
	if (io->failed)
		st = io_failure(o, io, err);
	pthread_mutex_unlock(&io->lock);
	return st;
}

/* Everything of a thread that is not running (any more). */
static void io_free(struct out_io *io)
{
	if (io->dfd >= 0)
		close(io->dfd);
	for (unsigned i = 0; i < IO_NBUF; i++)
		free(io->bufs[i].mem);
	pthread_mutex_destroy(&io->lock);
	pthread_cond_destroy(&io->more);
	pthread_cond_destroy(&io->done);
	free(io);
}

enum mdf_status out_start_io(struct out_sink *o, struct mdf_err *err)
{
	struct out_io *io;
	enum mdf_status st;
	size_t cap;
	int ret;

	if (o->flat || o->io || !o->regular)
		return MDF_OK;
	st = out_flush(o, err);
	if (st != MDF_OK)
		return st;
	io = calloc(1, sizeof(*io));
	if (!io)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory for the writing thread");
	/* The same file again, for the whole blocks; -1 when the file
	 * system refuses O_DIRECT. */
	io->dfd = open(o->path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	/* Buffers of the sink's size, so that -L stops at the same byte. */
	cap = o->cap;
	for (unsigned i = 0; i < IO_NBUF; i++) {
		if (posix_memalign((void **)&io->bufs[i].mem, IO_BLOCK, cap + IO_BLOCK)) {
			while (i--)
				free(io->bufs[i].mem);
			if (io->dfd >= 0)
				close(io->dfd);
			free(io);
			return mdf_err_set(err, MDF_ERR_NOMEM,
					   "out of memory for the write buffers");
		}
	}
	pthread_mutex_init(&io->lock, NULL);
	pthread_cond_init(&io->more, NULL);
	pthread_cond_init(&io->done, NULL);
	o->io = io;
	ret = pthread_create(&io->thread, NULL, io_main, o);
	if (ret) {
		o->io = NULL;
		io_free(io);
		return mdf_err_errno(err, MDF_ERR_INTERNAL, ret,
				     "%s: cannot start the writing thread", o->path);
	}
	/* The thread never looks at o->buf: swap it now. */
	free(o->buf);
	o->buf = io->bufs[0].mem;
	o->cap = cap;
	return MDF_OK;
}

/* Stop the thread (after what is queued) and free it. */
static void io_stop(struct out_sink *o)
{
	struct out_io *io = o->io;

	if (!io)
		return;
	pthread_mutex_lock(&io->lock);
	io->stop = true;
	pthread_cond_signal(&io->more);
	pthread_mutex_unlock(&io->lock);
	pthread_join(io->thread, NULL);
	o->syscalls += io->syscalls;
	io_free(io);
	o->io = NULL;
	o->buf = NULL;
	o->buf_len = 0;
}

void out_discard(struct out_sink *o)
{
	if (o->tmp) {
		/* Only ever the temporary file: the name may be another's. */
		if (o->tmp_path[0])
			(void)unlink(o->tmp_path);
		o->tmp_path[0] = '\0';
		return;
	}
	/* Never remove a device node given as the dump file. */
	if (!o->flat && o->path && o->regular)
		unlink(o->path);
}
