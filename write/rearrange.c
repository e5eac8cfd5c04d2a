/*
 * rearrange.c - makedumpfile -R: flattened stream in, dump file out.
 *
 * Input is read in large chunks into one buffer (a pipe on stdin is grown
 * to the same size, so a fast writer fills it in one go); record headers
 * are parsed from it and payload bytes are handed to a write-behind cache
 * that turns contiguous records (the usual case: the writer emits the file
 * front to back, in one or two interleaved runs) into few large pwrite
 * calls.  Nothing is allocated from a size the stream declares, so a
 * hostile stream costs at most the fixed buffers (5 MiB).
 */
#include "write/rearrange.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskdump.h"
#include "write/output.h"
#include "util.h"

#define RR_IN_BUF (1u << 20)

struct rr_in {
	int fd;
	const char *name;
	unsigned char *buf;
	size_t cap;
	size_t pos, len;      /* unread bytes are buf[pos, len) */
	bool eof;
	bool cut;             /* ended without the end marker */
	uint64_t consumed;    /* stream bytes parsed so far */
	uint64_t reads;
};

/*
 * Write-behind: a few pending extents, each a contiguous run of bytes for
 * [off, off + len).  Upstream's -F interleaves two sequential streams (page
 * descriptors and page data), so one extent per stream keeps both
 * coalesced.  Pending extents never overlap: a record that touches one
 * flushes it first, which keeps "later records win".
 */
#define RR_SLOTS 4

struct rr_slot {
	unsigned char *buf;   /* allocated on first use */
	size_t len;
	uint64_t off;
	uint64_t used;        /* for LRU eviction */
};

struct rr_out {
	int fd;
	const char *name;
	size_t cap;           /* bytes per slot */
	struct rr_slot slot[RR_SLOTS];
	uint64_t tick;
	uint64_t writes;
	uint64_t end;         /* highest offset + size seen */
	uint64_t data;        /* payload bytes accepted */
};

static size_t rr_avail(const struct rr_in *in)
{
	return in->len - in->pos;
}

/* Make at least @need bytes readable at buf + pos, unless EOF comes first. */
static enum mdf_status rr_fill(struct rr_in *in, size_t need,
			       struct mdf_err *err)
{
	while (rr_avail(in) < need && !in->eof) {
		ssize_t n;

		if (in->pos == in->len) {
			in->pos = in->len = 0;
		} else if (in->cap - in->pos < need) {
			memmove(in->buf, in->buf + in->pos, rr_avail(in));
			in->len -= in->pos;
			in->pos = 0;
		}
		n = read(in->fd, in->buf + in->len, in->cap - in->len);
		in->reads++;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return mdf_err_errno(err, MDF_ERR_IO, errno,
					     "%s: read at byte %llu", in->name,
					     (unsigned long long)(in->consumed + rr_avail(in)));
		}
		if (n == 0)
			in->eof = true;
		in->len += (size_t)n;
	}
	return MDF_OK;
}

static enum mdf_status rr_pwrite(struct rr_out *out, const unsigned char *p,
				 size_t len, uint64_t off, struct mdf_err *err)
{
	enum mdf_status st = util_pwrite_full(out->fd, p, len, off, err);

	out->writes++;
	if (st != MDF_OK)
		return mdf_err_push(err, "%s", out->name);
	return MDF_OK;
}

static enum mdf_status rr_flush(struct rr_out *out, struct rr_slot *s,
				struct mdf_err *err)
{
	size_t len = s->len;

	if (!len)
		return MDF_OK;
	s->len = 0;
	return rr_pwrite(out, s->buf, len, s->off, err);
}

static enum mdf_status rr_flush_all(struct rr_out *out, struct mdf_err *err)
{
	for (unsigned i = 0; i < RR_SLOTS; i++) {
		enum mdf_status st = rr_flush(out, &out->slot[i], err);

		if (st != MDF_OK)
			return st;
	}
	return MDF_OK;
}

/* An empty slot with a buffer: a free one, else the least recently used
 * one, flushed. */
static enum mdf_status rr_pick(struct rr_out *out, struct rr_slot **ret,
			       struct mdf_err *err)
{
	struct rr_slot *best = NULL;

	for (unsigned i = 0; i < RR_SLOTS; i++) {
		struct rr_slot *s = &out->slot[i];

		if (!s->buf) {
			s->buf = malloc(out->cap);
			if (!s->buf)
				continue; /* fewer slots, not a failure */
		}
		if (!s->len) {
			best = s;
			break;
		}
		if (!best || s->used < best->used)
			best = s;
	}
	if (!best)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory for the write buffer");
	*ret = best;
	return rr_flush(out, best, err);
}

/* Put @len bytes at file offset @off, after everything put before. */
static enum mdf_status rr_put(struct rr_out *out, uint64_t off,
			      const unsigned char *p, size_t len,
			      struct mdf_err *err)
{
	enum mdf_status st;

	while (len) {
		struct rr_slot *s = NULL;
		size_t n;

		for (unsigned i = 0; i < RR_SLOTS; i++) {
			struct rr_slot *t = &out->slot[i];

			if (!t->len)
				continue;
			if (off == t->off + t->len && t->len < out->cap) {
				s = t;
			} else if (off < t->off + t->len && t->off < off + len) {
				/* Older bytes under the new ones go out first. */
				st = rr_flush(out, t, err);
				if (st != MDF_OK)
					return st;
			}
		}
		if (!s) {
			/* A large piece goes out as is. */
			if (len >= out->cap)
				return rr_pwrite(out, p, len, off, err);
			st = rr_pick(out, &s, err);
			if (st != MDF_OK)
				return st;
			s->off = off;
		}
		s->used = ++out->tick;
		n = MDF_MIN(out->cap - s->len, len);
		memcpy(s->buf + s->len, p, n);
		s->len += n;
		p += n;
		off += n;
		len -= n;
		if (s->len == out->cap) {
			st = rr_flush(out, s, err);
			if (st != MDF_OK)
				return st;
		}
	}
	return MDF_OK;
}

enum mdf_status rearrange_check_header(const unsigned char *hdr, size_t len,
				       const char *in_name,
				       struct mdf_err *err)
{
	static const char sig[MDF_FLAT_SIG_LEN] = MDF_FLAT_SIGNATURE;
	int64_t type, version;

	if (len == 0)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s is empty: expected a flattened dump (the output of makedumpfile -F)",
				   in_name);
	if (len >= KDUMP_SIG_LEN && (memcmp(hdr, KDUMP_SIGNATURE, KDUMP_SIG_LEN) == 0 ||
				     memcmp(hdr, DISKDUMP_SIGNATURE, KDUMP_SIG_LEN) == 0))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s is not a flattened stream but already a kdump-compressed dump: it needs no -R",
				   in_name);
	if (len >= 4 && memcmp(hdr, "\177ELF", 4) == 0)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s is not a flattened stream but an ELF file: it needs no -R",
				   in_name);
	if (memcmp(hdr, sig, MDF_MIN(len, sizeof(sig))) != 0)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s is not a flattened makedumpfile stream: no \"%s\" signature at byte 0",
				   in_name, MDF_FLAT_SIGNATURE);
	if (len < MDF_FLAT_HEADER_SIZE)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: flattened stream cut short in its header: %zu of %d bytes",
				   in_name, len, MDF_FLAT_HEADER_SIZE);
	type = (int64_t)load_be64(hdr + MDF_FLAT_SIG_LEN);
	version = (int64_t)load_be64(hdr + MDF_FLAT_SIG_LEN + 8);
	if (type != MDF_FLAT_TYPE_KDUMP)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "%s: flattened stream of type %lld; only type %d is known",
				   in_name, (long long)type, MDF_FLAT_TYPE_KDUMP);
	if (version != MDF_FLAT_VERSION)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "%s: flattened stream of version %lld; only version %d is known",
				   in_name, (long long)version, MDF_FLAT_VERSION);
	return MDF_OK;
}

static enum mdf_status rr_read_header(struct rr_in *in, struct mdf_err *err)
{
	struct stat sb;
	enum mdf_status st;

	if (isatty(in->fd))
		return mdf_err_set(err, MDF_ERR_ARG,
				   "%s is a terminal: pipe the flattened dump into -R (makedumpfile -R DUMPFILE < STREAM)",
				   in->name);
	/* Best effort: fewer, larger reads from a pipe. */
	if (fstat(in->fd, &sb) == 0 && S_ISFIFO(sb.st_mode))
		(void)fcntl(in->fd, F_SETPIPE_SZ, (int)in->cap);
	st = rr_fill(in, MDF_FLAT_HEADER_SIZE, err);
	if (st != MDF_OK)
		return st;
	st = rearrange_check_header(in->buf + in->pos,
				    MDF_MIN(rr_avail(in), (size_t)MDF_FLAT_HEADER_SIZE),
				    in->name, err);
	if (st != MDF_OK)
		return st;
	in->pos += MDF_FLAT_HEADER_SIZE;
	in->consumed += MDF_FLAT_HEADER_SIZE;
	return MDF_OK;
}

static enum mdf_status rr_cut_short(struct rr_in *in, uint64_t records,
				    const char *detail, struct mdf_err *err)
{
	in->cut = true;
	return mdf_err_set(err, MDF_ERR_FORMAT,
			   "%s: flattened stream cut short after %llu records at byte %llu: no end marker%s",
			   in->name, (unsigned long long)records,
			   (unsigned long long)(in->consumed + rr_avail(in)), detail);
}

/* Parse and apply records up to the end marker. */
static enum mdf_status rr_apply(struct rr_in *in, struct rr_out *out,
				uint64_t *records, struct mdf_err *err)
{
	enum mdf_status st;

	for (;;) {
		int64_t off, size;
		uint64_t at = in->consumed, left, dst;

		st = rr_fill(in, 16, err);
		if (st != MDF_OK)
			return st;
		if (rr_avail(in) < 16)
			return rr_cut_short(in, *records, rr_avail(in) ?
					    " (a partial record header)" : "", err);
		off = (int64_t)load_be64(in->buf + in->pos);
		size = (int64_t)load_be64(in->buf + in->pos + 8);
		if (off == MDF_FLAT_END_MARK && size == MDF_FLAT_END_MARK) {
			in->pos += 16;
			in->consumed += 16;
			return MDF_OK;
		}
		if (off < 0)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "%s: record %llu at byte %llu: negative offset %lld",
					   in->name, (unsigned long long)*records + 1,
					   (unsigned long long)at, (long long)off);
		if (size < 0)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "%s: record %llu at byte %llu: negative size %lld",
					   in->name, (unsigned long long)*records + 1,
					   (unsigned long long)at, (long long)size);
		if ((uint64_t)size > REARRANGE_MAX_RECORD)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "%s: record %llu at byte %llu: size %lld is over the limit of %llu bytes per record",
					   in->name, (unsigned long long)*records + 1,
					   (unsigned long long)at, (long long)size,
					   REARRANGE_MAX_RECORD);
		if (off > INT64_MAX - size)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "%s: record %llu at byte %llu: offset 0x%llx + size 0x%llx overflows",
					   in->name, (unsigned long long)*records + 1,
					   (unsigned long long)at, (unsigned long long)off,
					   (unsigned long long)size);
		in->pos += 16;
		in->consumed += 16;
		dst = (uint64_t)off;
		left = (uint64_t)size;
		while (left) {
			size_t n;

			if (!rr_avail(in)) {
				st = rr_fill(in, 1, err);
				if (st != MDF_OK)
					return st;
				if (!rr_avail(in)) {
					char detail[160];

					snprintf(detail, sizeof(detail),
						 " (record %llu, %lld bytes for offset 0x%llx, has only %llu)",
						 (unsigned long long)*records + 1,
						 (long long)size, (unsigned long long)off,
						 (unsigned long long)((uint64_t)size - left));
					return rr_cut_short(in, *records, detail, err);
				}
			}
			n = (size_t)MDF_MIN((uint64_t)rr_avail(in), left);
			st = rr_put(out, dst, in->buf + in->pos, n, err);
			if (st != MDF_OK)
				return st;
			in->pos += n;
			in->consumed += n;
			dst += n;
			left -= n;
			out->data += n;
		}
		if (size && dst > out->end)
			out->end = dst;
		(*records)++;
	}
}

static void rr_stats(struct rearrange_stats *st, const struct rr_in *in,
		     const struct rr_out *out, uint64_t records)
{
	if (!st)
		return;
	st->records = records;
	st->in_bytes = in->consumed;
	st->data_bytes = out->data;
	st->out_size = out->end;
	st->reads = in->reads;
	st->writes = out->writes;
}

/*
 * Set the "incomplete" flag in the header of a rebuilt dump: kdump status
 * bit DUMP_DH_COMPRESSED_INCOMPLETE, or ELF e_flags bit 0.  Fails when the
 * file starts with neither (the stream was cut before the dump's header).
 */
static enum mdf_status rr_mark_incomplete(int fd, struct mdf_err *err)
{
	unsigned char h[sizeof(struct disk_dump_header)];
	size_t got = 0;
	uint64_t at;
	unsigned bit;
	enum mdf_status st = util_pread_full(fd, h, sizeof(h), 0, &got, err);

	if (st != MDF_OK)
		return st;
	if (got >= 8 && memcmp(h, KDUMP_SIGNATURE, KDUMP_SIG_LEN) == 0) {
		at = offsetof(struct disk_dump_header, status);
		bit = DUMP_DH_COMPRESSED_INCOMPLETE;
	} else if (got >= 52 && memcmp(h, ELFMAG, SELFMAG) == 0 &&
		   (h[EI_CLASS] == ELFCLASS32 || h[EI_CLASS] == ELFCLASS64)) {
		at = h[EI_CLASS] == ELFCLASS64 ? offsetof(Elf64_Ehdr, e_flags)
					       : offsetof(Elf32_Ehdr, e_flags);
		bit = 1;
	} else {
		return mdf_err_set(err, MDF_ERR_FORMAT, "no dump header");
	}
	if (at + 4 > got)
		return mdf_err_set(err, MDF_ERR_FORMAT, "no dump header");
	{
		/* The flag sits in the low byte of a 32-bit field, in either
		 * byte order of the dump: kdump headers are the writing
		 * machine's (the header version, 1 to 6, says which), ELF
		 * ones say it in EI_DATA. */
		bool big = h[0] == KDUMP_SIGNATURE[0]
				   ? got >= 12 && h[8] == 0 && h[11] != 0
				   : h[EI_DATA] == ELFDATA2MSB;
		unsigned char b = h[at + (big ? 3 : 0)] | (unsigned char)bit;

		return util_pwrite_full(fd, &b, 1, at + (big ? 3 : 0), err);
	}
}

/* Body shared by rearrange_fd() and rearrange_stream(). */
static enum mdf_status rr_run(struct rr_in *in, int out_fd, const char *out_name,
			      struct rearrange_stats *stats, struct mdf_err *err)
{
	struct rr_out out = { .fd = out_fd, .name = out_name, .cap = OUT_FILE_BUF };
	uint64_t records = 0;
	enum mdf_status st;

	st = rr_apply(in, &out, &records, err);
	if (st == MDF_OK) {
		st = rr_flush_all(&out, err);
	} else if (in->cut) {
		/* What came before the cut is a dump that stopped short, as a
		 * -L or a full disk leaves it: keep it, marked incomplete. */
		struct mdf_err ferr;

		if (rr_flush_all(&out, &ferr) != MDF_OK ||
		    rr_mark_incomplete(out_fd, &ferr) != MDF_OK)
			in->cut = false;
	}
	rr_stats(stats, in, &out, records);
	for (unsigned i = 0; i < RR_SLOTS; i++)
		free(out.slot[i].buf);
	return st;
}

static enum mdf_status rr_in_init(struct rr_in *in, int fd, const char *name,
				  struct rearrange_stats *stats,
				  struct mdf_err *err)
{
	memset(in, 0, sizeof(*in));
	if (stats)
		memset(stats, 0, sizeof(*stats));
	in->fd = fd;
	in->name = name;
	in->cap = RR_IN_BUF;
	in->buf = malloc(in->cap);
	if (!in->buf)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory for the read buffer");
	return MDF_OK;
}

enum mdf_status rearrange_fd(int in_fd, const char *in_name, int out_fd,
			     const char *out_name, struct rearrange_stats *stats,
			     struct mdf_err *err)
{
	struct rr_in in;
	enum mdf_status st;

	st = rr_in_init(&in, in_fd, in_name, stats, err);
	if (st == MDF_OK)
		st = rr_read_header(&in, err);
	if (st == MDF_OK)
		st = rr_run(&in, out_fd, out_name, stats, err);
	else if (stats)
		stats->in_bytes = in.consumed;
	free(in.buf);
	return st;
}

/* Refuse to truncate the very file the stream is read from. */
static enum mdf_status rr_check_not_input(int in_fd, const char *in_name,
					  const char *out_path,
					  struct mdf_err *err)
{
	struct stat si;

	if (fstat(in_fd, &si) == 0 && S_ISREG(si.st_mode) &&
	    util_same_file(in_fd, out_path))
		return mdf_err_set(err, MDF_ERR_ARG,
				   "%s is %s itself: write the dump to another file",
				   out_path, in_name);
	return MDF_OK;
}

enum mdf_status rearrange_stream(int in_fd, const char *in_name,
				 const char *out_path, bool force,
				 struct rearrange_stats *stats,
				 struct mdf_err *err)
{
	/* Read too: a dump cut short gets its incomplete flag set. */
	int flags = O_RDWR | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);
	struct rr_in in;
	struct stat sb;
	bool regular;
	enum mdf_status st;
	int fd;

	st = rr_in_init(&in, in_fd, in_name, stats, err);
	if (st == MDF_OK)
		st = rr_read_header(&in, err);
	if (st == MDF_OK)
		st = rr_check_not_input(in_fd, in_name, out_path, err);
	if (st != MDF_OK) {
		if (stats)
			stats->in_bytes = in.consumed;
		free(in.buf);
		return st;
	}
	fd = open(out_path, flags, 0600);
	if (fd < 0) {
		int e = errno;

		free(in.buf);
		if (e == EEXIST)
			return mdf_err_set(err, MDF_ERR_IO,
					   "%s already exists (use -f to overwrite it)",
					   out_path);
		return mdf_err_errno(err, e == ENOSPC ? MDF_ERR_NOSPC : MDF_ERR_IO,
				     e, "cannot create %s", out_path);
	}
	regular = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
	st = rr_run(&in, fd, out_path, stats, err);
	free(in.buf);
	if (close(fd) != 0 && st == MDF_OK)
		st = mdf_err_errno(err, errno == ENOSPC ? MDF_ERR_NOSPC : MDF_ERR_IO,
				   errno, "%s: close", out_path);
	if (st != MDF_OK && in.cut) {
		size_t len = strlen(err->msg);

		snprintf(err->msg + len, sizeof(err->msg) - len,
			 ": %s holds what came before, marked incomplete", out_path);
	} else if (st != MDF_OK && regular) {
		size_t len = strlen(err->msg);

		if (unlink(out_path) == 0)
			snprintf(err->msg + len, sizeof(err->msg) - len,
				 "; removed the incomplete %s", out_path);
		else
			snprintf(err->msg + len, sizeof(err->msg) - len,
				 "; the incomplete %s could not be removed: do not use it",
				 out_path);
	}
	return st;
}

enum mdf_status rearrange_main(const struct mdf_opts *o,
			       const struct mdf_printer *pr,
			       struct mdf_err *err)
{
	struct rearrange_stats s;
	enum mdf_status st;

	st = rearrange_stream(STDIN_FILENO, "standard input", o->dumpfile,
			      o->force, &s, err);
	if (st != MDF_OK)
		return st;
	pi_debug(pr, "rearranged %llu records, %llu payload bytes, from %llu stream bytes into %llu bytes (%llu reads, %llu writes)\n",
		 (unsigned long long)s.records, (unsigned long long)s.data_bytes,
		 (unsigned long long)s.in_bytes, (unsigned long long)s.out_size,
		 (unsigned long long)s.reads, (unsigned long long)s.writes);
	pi_completed(pr, o->dumpfile);
	return MDF_OK;
}
