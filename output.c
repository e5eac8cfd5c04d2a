/*
 * output.c - file and flattened-stream sinks.
 */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskdump.h"
#include "util.h"

#define OUT_MIN_BUF (64 << 10)

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
	return raw_write(o, hdr, sizeof(hdr), err);
}

/* Write [off, off+len) now: one pwrite, or one flattened record. */
static enum mdf_status emit(struct out_sink *o, uint64_t off, const void *buf,
			    size_t len, struct mdf_err *err)
{
	enum mdf_status st;

	if (len == 0)
		return MDF_OK;
	if (o->limit && o->written + len + (o->flat ? 16 : 0) > o->limit) {
		o->full = true;
		o->fail_off = off;
		return mdf_err_set(err, MDF_ERR_NOSPC,
				   "the size limit of %llu bytes (-L) was reached",
				   (unsigned long long)o->limit);
	}
	if (o->flat) {
		unsigned char rec[16];

		store_be64(rec, off);
		store_be64(rec + 8, len);
		st = raw_write(o, rec, sizeof(rec), err);
		if (st == MDF_OK)
			st = raw_write(o, buf, len, err);
	} else {
		st = util_pwrite_full(o->fd, buf, len, off, err);
		o->syscalls++;
		if (st == MDF_OK)
			o->written += len;
		else if (st != MDF_ERR_NOSPC)
			mdf_err_push(err, "%s", o->path);
	}
	if (st == MDF_ERR_NOSPC) {
		o->full = true;
		o->fail_off = off;
	}
	return st;
}

enum mdf_status out_flush(struct out_sink *o, struct mdf_err *err)
{
	enum mdf_status st;

	if (!o->buf_len)
		return MDF_OK;
	st = emit(o, o->buf_off, o->buf, o->buf_len, err);
	o->buf_len = 0;
	return st;
}

enum mdf_status out_write(struct out_sink *o, uint64_t off, const void *buf,
			  size_t len, struct mdf_err *err)
{
	const unsigned char *p = buf;
	enum mdf_status st;

	while (len) {
		size_t n;

		/* Not contiguous with the buffered bytes: flush them first. */
		if (o->buf_len && off != o->buf_off + o->buf_len) {
			st = out_flush(o, err);
			if (st != MDF_OK)
				return st;
		}
		if (!o->buf_len) {
			o->buf_off = off;
			/* A large piece bypasses the buffer. */
			if (len >= o->cap)
				return emit(o, off, p, len, err);
		}
		n = o->cap - o->buf_len;
		if (n > len)
			n = len;
		memcpy(o->buf + o->buf_len, p, n);
		o->buf_len += n;
		p += n;
		off += n;
		len -= n;
		if (o->buf_len == o->cap) {
			st = out_flush(o, err);
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

	if (o->flat)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "cannot rewrite a flattened stream");
	st = util_pwrite_full(o->fd, buf, len, off, err);
	o->syscalls++;
	if (st != MDF_OK)
		return mdf_err_push(err, "%s", o->path);
	return MDF_OK;
}

enum mdf_status out_close(struct out_sink *o, struct mdf_err *err)
{
	enum mdf_status st = MDF_OK;

	if (o->buf_len && !o->full)
		st = out_flush(o, err);
	if (st == MDF_OK && o->flat && !o->full) {
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

void out_discard(struct out_sink *o)
{
	/* Never remove a device node given as the dump file. */
	if (!o->flat && o->path && o->regular)
		unlink(o->path);
}
