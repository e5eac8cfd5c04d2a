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
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskdump.h"
#include "write/output.h"
#include "stop.h"
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
	bool stopped;         /* a stop signal came (in->stop) */
	uint64_t consumed;    /* stream bytes parsed so far */
	uint64_t reads;
	const struct mdf_stop *stop;  /* or NULL */
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

/*
 * The rebuilt file says "incomplete" until its last write, whatever the
 * stream says meanwhile (a stream of upstream's -F carries a header
 * without the mark, and -R may be killed): the bytes the stream puts in
 * the first RR_SHADOW bytes of the file are kept here as the stream has
 * them, and the byte that holds the dump's mark (kdump status bit 0x8,
 * ELF e_flags bit 0, in either byte order) goes to the file with the bit
 * set.  The stream's own bytes are put back at the very end, after
 * fdatasync, when the dump turned out whole.
 */
#define RR_SHADOW 512
#define RR_MARK_POS_MAX 6

/*
 * The byte ranges records have put, merged: a stream that says it is
 * whole but lacks a record in the middle of its dump's page data is not.
 * A writer's records make a handful of runs; a stream that makes more
 * than RR_COVER_MAX is not followed (its coverage is not checked).
 */
#define RR_COVER_MAX 65536

struct rr_cover {
	uint64_t (*iv)[2];    /* sorted, disjoint, not touching: [start, end) */
	size_t n, cap;
	bool overflow;
};

/* Add [a, b). */
static void cover_add(struct rr_cover *c, uint64_t a, uint64_t b)
{
	size_t lo = 0, hi, k;

	if (a >= b || c->overflow)
		return;
	/* The usual case: it extends the last run. */
	if (c->n && c->iv[c->n - 1][0] <= a && a <= c->iv[c->n - 1][1]) {
		if (b > c->iv[c->n - 1][1])
			c->iv[c->n - 1][1] = b;
		return;
	}
	/* First run that ends at or after a. */
	hi = c->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->iv[mid][1] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Runs [lo, k) touch [a, b): merged into one. */
	for (k = lo; k < c->n && c->iv[k][0] <= b; k++) {
		a = MDF_MIN(a, c->iv[k][0]);
		b = MDF_MAX(b, c->iv[k][1]);
	}
	if (k > lo) {
		c->iv[lo][0] = a;
		c->iv[lo][1] = b;
		memmove(c->iv + lo + 1, c->iv + k, (c->n - k) * sizeof(*c->iv));
		c->n -= k - lo - 1;
		return;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		void *iv = cap <= RR_COVER_MAX ? realloc(c->iv, cap * sizeof(*c->iv)) : NULL;

		if (!iv) {
			c->overflow = true;
			return;
		}
		c->iv = iv;
		c->cap = cap;
	}
	memmove(c->iv + lo + 1, c->iv + lo, (c->n - lo) * sizeof(*c->iv));
	c->iv[lo][0] = a;
	c->iv[lo][1] = b;
	c->n++;
}

/* The first byte of [a, b) no record put, or b (all of it is there). */
static uint64_t cover_gap(const struct rr_cover *c, uint64_t a, uint64_t b)
{
	if (c->overflow)
		return b;
	for (size_t i = 0; i < c->n && a < b; i++) {
		if (c->iv[i][1] <= a)
			continue;
		if (c->iv[i][0] > a)
			return a;
		a = c->iv[i][1];
	}
	return a < b ? a : b;
}

struct rr_out {
	int fd;
	const char *name;
	size_t cap;           /* bytes per slot */
	struct rr_slot slot[RR_SLOTS];
	uint64_t tick;
	uint64_t writes;
	uint64_t end;         /* highest offset + size seen */
	uint64_t data;        /* payload bytes accepted */
	unsigned char shadow[RR_SHADOW]; /* the stream's bytes of the file */
	uint64_t have;        /* bit i: byte i of the first 64 was written */
	uint64_t hi;          /* end of the highest byte put so far */
	unsigned nforced;     /* mark bytes forced so far, at: */
	uint64_t forced[RR_MARK_POS_MAX];
	bool mark_set;        /* the file's byte at mark_at has the mark */
	uint64_t mark_at;
	struct rr_cover cover;
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
		if (in->stop && stop_fd(in->stop) >= 0) {
			/* Wait for input or a stop signal, whichever first. */
			struct pollfd pf[2] = {
				{ .fd = in->fd, .events = POLLIN },
				{ .fd = stop_fd(in->stop), .events = POLLIN },
			};

			if (poll(pf, 2, -1) < 0 && errno != EINTR)
				return mdf_err_errno(err, MDF_ERR_IO, errno, "%s: poll",
						     in->name);
			if (stop_check(in->stop, err) != MDF_OK) {
				in->stopped = true;
				return MDF_ERR_INTERRUPTED;
			}
			if (!(pf[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
				continue;
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

/* Where the dump's "incomplete" bit lives, from the shadow: the byte and
 * the bit; false while the header's first bytes say neither format. */
static bool rr_mark_pos(const struct rr_out *out, uint64_t *pos, unsigned char *bit)
{
	const unsigned char *h = out->shadow;

	if ((out->have & 0xfff) == 0xfff && memcmp(h, KDUMP_SIGNATURE, KDUMP_SIG_LEN) == 0) {
		/* status, a 32-bit field in the writing machine's order; the
		 * header version (1 to 6) says which; where it is, the C ABI
		 * (ILP32 for an i386 kernel's dump, by utsname.machine) */
		bool big = h[8] == 0 && h[11] != 0;

		*pos = kdump_header_offset(kdump_abi_of_header(h, RR_SHADOW), KDUMP_HF_STATUS) +
		       (big ? 3 : 0);
		*bit = DUMP_DH_COMPRESSED_INCOMPLETE;
		return true;
	}
	if ((out->have & 0x3f) == 0x3f && memcmp(h, ELFMAG, SELFMAG) == 0 &&
	    (h[EI_CLASS] == ELFCLASS32 || h[EI_CLASS] == ELFCLASS64) &&
	    (h[EI_DATA] == ELFDATA2LSB || h[EI_DATA] == ELFDATA2MSB)) {
		*pos = (h[EI_CLASS] == ELFCLASS64 ? offsetof(Elf64_Ehdr, e_flags)
						  : offsetof(Elf32_Ehdr, e_flags)) +
		       (h[EI_DATA] == ELFDATA2MSB ? 3 : 0);
		*bit = 1;
		return true;
	}
	return false;
}

/*
 * Put @n stream bytes at @dst of the file (@p is the read buffer, ours to
 * change): bytes of the first RR_SHADOW go to the shadow too, and the
 * mark byte goes out with its bit set, in this piece or as one more
 * byte after it (when this piece made the format known).
 */
static enum mdf_status rr_put_marked(struct rr_out *out, uint64_t dst,
				     unsigned char *p, size_t n,
				     struct mdf_err *err)
{
	uint64_t pos;
	unsigned char bit, b;
	enum mdf_status st;
	unsigned i;

	cover_add(&out->cover, dst, dst + n);
	out->hi = MDF_MAX(out->hi, dst + n);
	if (dst < RR_SHADOW) {
		memcpy(out->shadow + dst, p, (size_t)MDF_MIN((uint64_t)n, RR_SHADOW - dst));
		for (uint64_t k = dst; k < MDF_MIN(dst + n, (uint64_t)64); k++)
			out->have |= 1ULL << k;
	}
	/* (The file never grows for the mark: it waits until a piece takes
	 * the file past its byte.) */
	if (!rr_mark_pos(out, &pos, &bit) || pos >= out->hi)
		return rr_put(out, dst, p, n, err);
	/* A piece past the shadow leaves the mark where it is; it forces it
	 * only as the first to take the file past a byte no record wrote
	 * (fuzz_flat found a cut stream whose kept file said complete). */
	if (dst >= RR_SHADOW && out->mark_set && out->mark_at == pos)
		return rr_put(out, dst, p, n, err);
	out->mark_set = true;
	out->mark_at = pos;
	for (i = 0; i < out->nforced && out->forced[i] != pos; i++)
		;
	if (i == out->nforced && i < RR_MARK_POS_MAX)
		out->forced[out->nforced++] = pos;
	if (pos >= dst && pos < dst + n) {
		p[pos - dst] |= bit;
		return rr_put(out, dst, p, n, err);
	}
	st = rr_put(out, dst, p, n, err);
	b = out->shadow[pos] | bit;
	if (st == MDF_OK)
		st = rr_put(out, pos, &b, 1, err);
	return st;
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
			st = rr_put_marked(out, dst, in->buf + in->pos, n, err);
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

/* Write the stream's own bytes back where the mark was forced: the file
 * is then exactly what the stream says. */
static enum mdf_status rr_unforce(struct rr_out *out, struct mdf_err *err)
{
	for (unsigned i = 0; i < out->nforced; i++) {
		enum mdf_status st = util_pwrite_full(out->fd, out->shadow + out->forced[i], 1,
						      out->forced[i], err);

		if (st != MDF_OK)
			return mdf_err_push(err, "%s", out->name);
	}
	return MDF_OK;
}

/* ---- is the rebuilt file a usable dump? ----------------------------- */

struct rr_verdict {
	bool dump;            /* it starts with a kdump or ELF header it reads */
	bool marked;          /* the stream's header says incomplete */
	bool pages;           /* it holds page data (or has no page to hold) */
	bool cut;             /* it ends before the dump it describes does */
	uint64_t need;        /* where that dump ends, at least */
	char what[200];       /* why it is not a dump, or not whole */
};

/* @len bytes of the rebuilt file at @off: the stream's (the shadow's,
 * for the first bytes), zeros past its end.  False on a read error. */
static bool rr_read(const struct rr_out *out, void *buf, size_t len, uint64_t off)
{
	unsigned char *b = buf;
	struct mdf_err ignore;
	size_t got = 0;

	memset(buf, 0, len);
	if (off >= out->end)
		return true;
	if (util_pread_full(out->fd, buf, (size_t)MDF_MIN((uint64_t)len, out->end - off),
			    off, &got, &ignore) != MDF_OK)
		return false;
	for (size_t i = 0; i < len && off + i < RR_SHADOW; i++)
		b[i] = out->shadow[off + i];
	return true;
}

/* Set bits of bitmap2 below @nbits, read from the file at @off. */
static bool rr_count_bits(const struct rr_out *out, uint64_t off, uint64_t nbits,
			  uint64_t *ret)
{
	unsigned char buf[65536];
	uint64_t n = 0, bytes = nbits / 8;

	for (uint64_t at = 0; at < bytes; at += sizeof(buf)) {
		size_t k = (size_t)MDF_MIN(bytes - at, (uint64_t)sizeof(buf));

		if (!rr_read(out, buf, k, off + at))
			return false;
		for (size_t i = 0; i < k; i++)
			n += (uint64_t)__builtin_popcount(buf[i]);
	}
	if (nbits % 8) {
		unsigned char last;

		if (!rr_read(out, &last, 1, off + bytes))
			return false;
		n += (uint64_t)__builtin_popcount(last & ((1u << (nbits % 8)) - 1));
	}
	*ret = n;
	return true;
}

static void rr_why(struct rr_verdict *v, const char *fmt, ...) MDF_PRINTF(2, 3);

static void rr_why(struct rr_verdict *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->what, sizeof(v->what), fmt, ap);
	va_end(ap);
}

/* A kdump-compressed file: the layout its header gives, the bitmaps, and
 * the first and last page descriptors against the file's end. */
static void rr_check_kdump(const struct rr_out *out, struct rr_verdict *v)
{
	const unsigned char *h = out->shadow;
	bool big = h[8] == 0 && h[11] != 0;
	const enum kdump_abi abi = kdump_abi_of_header(h, RR_SHADOW);
	struct disk_dump_header hd;
	struct kdump_sub_header sd;
	uint32_t version, status, B, sub, bb;
	uint64_t max;
	uint64_t off_bm2, off_desc, off_data, ndesc, half;
	unsigned char sh[sizeof(struct kdump_sub_header)];
	struct page_desc pd[2];

	kdump_header_get(&hd, h, abi, big);
	version = (uint32_t)hd.header_version;
	status = hd.status;
	B = (uint32_t)hd.block_size;
	sub = (uint32_t)hd.sub_hdr_size;
	bb = hd.bitmap_blocks;
	max = hd.max_mapnr;

	v->marked = (status & DUMP_DH_COMPRESSED_INCOMPLETE) != 0;
	if (version < 1 || version > 6 || B < 512 || B > 65536 || (B & (B - 1)) ||
	    bb == 0 || bb % 2 || sub > (1u << 20)) {
		rr_why(v, "its kdump header is not one (version %u, block size %u, %u bitmap blocks)",
		       version, B, bb);
		return;
	}
	v->dump = true;
	half = (uint64_t)bb * B / 2;
	off_bm2 = (1 + (uint64_t)sub) * B + half;
	off_desc = off_bm2 + half;
	v->need = off_desc;
	if (!rr_read(out, sh, kdump_sub_header_size(abi), B))
		return;
	kdump_sub_header_get(&sd, sh, abi, big);
	if (version >= 6) {
		uint64_t m = sd.max_mapnr_64;

		if (m)
			max = m;
	}
	max = MDF_MIN(max, half * 8);
	if (out->end < off_desc) {
		rr_why(v, "the file ends at byte 0x%llx, before the dump's page descriptors (0x%llx)",
		       (unsigned long long)out->end, (unsigned long long)off_desc);
		v->cut = true;
		return;
	}
	if (!rr_count_bits(out, off_bm2, max, &ndesc))
		return;
	off_data = off_desc + ndesc * sizeof(struct page_desc);
	v->need = off_data;
	if (ndesc == 0) {
		v->pages = true; /* a dump that stores no page is whole so */
		return;
	}
	if (!rr_read(out, &pd[0], sizeof(pd[0]), off_desc) ||
	    !rr_read(out, &pd[1], sizeof(pd[1]), off_data - sizeof(pd[1])))
		return;
	for (int i = 0; i < 2; i++) {
		uint64_t o = load_t64(&pd[i].offset, big);
		uint32_t n = load_t32(&pd[i].size, big);

		if (o >= off_data && n && n <= B && o + n <= out->end) {
			if (i == 0)
				v->pages = true;
		} else if (o >= off_data && n && n <= B) {
			v->need = MDF_MAX(v->need, o + n);
			v->cut = true;
		} else if (i == 0) {
			rr_why(v, "its first page descriptor (at byte 0x%llx) points at no page data",
			       (unsigned long long)off_desc);
			return;
		}
	}
	if (out->end < off_data) {
		v->cut = true;
		rr_why(v, "the file ends at byte 0x%llx, inside the dump's page descriptors (0x%llx-0x%llx)",
		       (unsigned long long)out->end, (unsigned long long)off_desc,
		       (unsigned long long)off_data);
	} else if (v->cut) {
		rr_why(v, "the file ends at byte 0x%llx, before the dump's last page (0x%llx)",
		       (unsigned long long)out->end, (unsigned long long)v->need);
	}
	if (!v->cut) {
		/* Descriptors, page data and eraseinfo follow each other to
		 * the end of the file: every byte from a record. */
		uint64_t gap = cover_gap(&out->cover, off_desc, out->end);

		if (gap < out->end) {
			v->cut = true;
			rr_why(v, "no record holds byte 0x%llx of its page descriptors and data (0x%llx-0x%llx)",
			       (unsigned long long)gap, (unsigned long long)off_desc,
			       (unsigned long long)out->end);
		}
	}
	if (version >= 5 && !v->cut) {
		uint64_t eo = (uint64_t)sd.offset_eraseinfo;
		uint64_t es = sd.size_eraseinfo;

		if (es && eo < (1ULL << 62) && es < (1ULL << 62) && eo + es > out->end) {
			v->cut = true;
			v->need = eo + es;
			rr_why(v, "the file ends at byte 0x%llx, before the dump's eraseinfo (0x%llx+0x%llx)",
			       (unsigned long long)out->end, (unsigned long long)eo,
			       (unsigned long long)es);
		}
	}
}

/* An ELF file: the program headers and where its PT_LOAD data ends. */
static void rr_check_elf(const struct rr_out *out, struct rr_verdict *v)
{
	const unsigned char *h = out->shadow;
	bool is64 = h[EI_CLASS] == ELFCLASS64, big = h[EI_DATA] == ELFDATA2MSB;
	uint64_t phoff, shoff, phnum, entsz = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	uint32_t flags;
	uint64_t first_data = 0;
	bool any = false;

	if (is64) {
		phoff = load_t64(h + offsetof(Elf64_Ehdr, e_phoff), big);
		shoff = load_t64(h + offsetof(Elf64_Ehdr, e_shoff), big);
		flags = load_t32(h + offsetof(Elf64_Ehdr, e_flags), big);
		phnum = load_t16(h + offsetof(Elf64_Ehdr, e_phnum), big);
		if (load_t16(h + offsetof(Elf64_Ehdr, e_phentsize), big) != entsz)
			phnum = 0;
	} else {
		phoff = load_t32(h + offsetof(Elf32_Ehdr, e_phoff), big);
		shoff = load_t32(h + offsetof(Elf32_Ehdr, e_shoff), big);
		flags = load_t32(h + offsetof(Elf32_Ehdr, e_flags), big);
		phnum = load_t16(h + offsetof(Elf32_Ehdr, e_phnum), big);
		if (load_t16(h + offsetof(Elf32_Ehdr, e_phentsize), big) != entsz)
			phnum = 0;
	}
	v->marked = (flags & 1) != 0;
	if (phnum == PN_XNUM) {
		/* Extended numbering: section header 0's sh_info. */
		unsigned char sh[sizeof(Elf64_Shdr)];

		if (!rr_read(out, sh, sizeof(sh), shoff))
			return;
		phnum = is64 ? load_t32(sh + offsetof(Elf64_Shdr, sh_info), big)
			     : load_t32(sh + offsetof(Elf32_Shdr, sh_info), big);
	}
	if (phnum == 0 || phoff >= (1ULL << 62) || phnum > (1ULL << 32)) {
		rr_why(v, "its ELF header gives no program headers");
		return;
	}
	v->dump = true;
	v->need = phoff + phnum * entsz;
	if (v->need > out->end) {
		v->cut = true;
		rr_why(v, "the file ends at byte 0x%llx, inside the dump's program headers (0x%llx-0x%llx)",
		       (unsigned long long)out->end, (unsigned long long)phoff,
		       (unsigned long long)v->need);
		return;
	}
	for (uint64_t i = 0; i < phnum; i++) {
		unsigned char ph[sizeof(Elf64_Phdr)];
		uint64_t off, filesz;

		if (!rr_read(out, ph, (size_t)entsz, phoff + i * entsz))
			return;
		if (load_t32(ph, big) != PT_LOAD)
			continue;
		off = is64 ? load_t64(ph + offsetof(Elf64_Phdr, p_offset), big)
			   : load_t32(ph + offsetof(Elf32_Phdr, p_offset), big);
		filesz = is64 ? load_t64(ph + offsetof(Elf64_Phdr, p_filesz), big)
			      : load_t32(ph + offsetof(Elf32_Phdr, p_filesz), big);
		if (!filesz || off >= (1ULL << 62) || filesz >= (1ULL << 62))
			continue;
		if (!any || off < first_data)
			first_data = off;
		any = true;
		v->need = MDF_MAX(v->need, off + filesz);
		if (!v->cut && off + filesz <= out->end) {
			uint64_t gap = cover_gap(&out->cover, off, off + filesz);

			if (gap < off + filesz) {
				v->cut = true;
				rr_why(v, "no record holds byte 0x%llx of PT_LOAD %llu's data (0x%llx-0x%llx)",
				       (unsigned long long)gap, (unsigned long long)i,
				       (unsigned long long)off, (unsigned long long)(off + filesz));
			}
		}
	}
	/* No PT_LOAD with data: a dump that holds no page is whole so. */
	v->pages = !any || first_data < out->end;
	if (!v->pages)
		rr_why(v, "the file ends at byte 0x%llx, before the dump's first page data (0x%llx)",
		       (unsigned long long)out->end, (unsigned long long)first_data);
	else if (v->need > out->end && !v->cut) {
		v->cut = true;
		rr_why(v, "the file ends at byte 0x%llx, before the dump's page data does (0x%llx)",
		       (unsigned long long)out->end, (unsigned long long)v->need);
	}
}

static void rr_check(const struct rr_out *out, struct rr_verdict *v)
{
	uint64_t pos;
	unsigned char bit;

	memset(v, 0, sizeof(*v));
	rr_why(v, "the file it holds (0x%llx bytes) starts with no kdump-compressed or ELF header",
	       (unsigned long long)out->end);
	if (!rr_mark_pos(out, &pos, &bit))
		return;
	if (out->shadow[0] == KDUMP_SIGNATURE[0])
		rr_check_kdump(out, v);
	else
		rr_check_elf(out, v);
}

/* ---- the run --------------------------------------------------------- */

enum rr_mode {
	RR_RAW,   /* rearrange_fd(): the stream's bytes, whatever they are */
	RR_DUMP,  /* rearrange_dump_fd(): a usable dump, or a failure */
};

static void rr_msg(struct mdf_err *err, const char *fmt, ...) MDF_PRINTF(2, 3);

/* Append to the message (the outcome for the file). */
static void rr_msg(struct mdf_err *err, const char *fmt, ...)
{
	size_t len = strlen(err->msg);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg + len, sizeof(err->msg) - len, fmt, ap);
	va_end(ap);
}

/* Body shared by rearrange_fd() and rearrange_dump_fd(). */
static enum mdf_status rr_run(struct rr_in *in, int out_fd, const char *out_name,
			      enum rr_mode mode, struct rearrange_stats *stats,
			      struct mdf_err *err)
{
	struct rr_out *out = calloc(1, sizeof(*out));
	struct rr_verdict v = { 0 };
	struct mdf_err ferr;
	uint64_t records = 0;
	enum mdf_status st;

	if (!out)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory for the write buffer");
	out->fd = out_fd;
	out->name = out_name;
	out->cap = OUT_FILE_BUF;
	st = rr_apply(in, out, &records, err);
	if (st == MDF_ERR_INTERRUPTED && in->stopped)
		mdf_err_set(err, MDF_ERR_INTERRUPTED, "%s: %s after %llu records at byte %llu",
			    in->name, in->stop->sig == SIGHUP ? "stopped by SIGHUP" :
			    in->stop->sig == SIGINT ? "stopped by SIGINT" : "stopped by SIGTERM",
			    (unsigned long long)records, (unsigned long long)in->consumed);
	if (st == MDF_OK) {
		st = rr_flush_all(out, err);
	} else if (in->cut || in->stopped) {
		/* What came before is kept if it is a dump (a -L or a full
		 * disk leaves it so): flushed, its mark forced already. */
		if (rr_flush_all(out, &ferr) != MDF_OK) {
			in->cut = in->stopped = false;
		} else if (mode == RR_DUMP) {
			rr_check(out, &v);
			if (!v.dump || !v.pages) {
				rr_msg(err, ": what came holds %s (%s)",
				       v.dump ? "no page data" : "no dump", v.what);
				in->cut = in->stopped = false;
			}
		} else {
			/* Kept only if its header, as it is now, is marked. */
			uint64_t pos;
			unsigned char bit;

			if (!rr_mark_pos(out, &pos, &bit) || pos >= out->hi)
				in->cut = in->stopped = false;
		}
	}
	if (st == MDF_OK && mode == RR_DUMP) {
		rr_check(out, &v);
		if (!records) {
			st = mdf_err_set(err, MDF_ERR_FORMAT,
					 "%s: flattened stream ends after the header: no page data",
					 in->name);
		} else if (!v.dump) {
			st = mdf_err_set(err, MDF_ERR_FORMAT, "%s: the flattened stream holds no dump: %s",
					 in->name, v.what);
		} else if (!v.pages) {
			st = mdf_err_set(err, MDF_ERR_FORMAT,
					 "%s: the flattened stream holds no page data: %s",
					 in->name, v.what);
		} else if (v.cut && !v.marked) {
			/* (A dump its writer marked incomplete may end early
			 * and lack descriptors: it says so itself, below.) */
			st = mdf_err_set(err, MDF_ERR_FORMAT,
					 "%s: the flattened stream ends before its dump does: %s",
					 in->name, v.what);
			if (stats)
				stats->keep = true;
		}
		if (stats)
			stats->dump_incomplete = v.marked;
	}
	/* The file is on the disk; then its header may say what the stream
	 * says (a dump its writer marked incomplete stays so). */
	if (st == MDF_OK && fdatasync(out_fd) != 0 && errno != EINVAL)
		st = mdf_err_errno(err, errno == ENOSPC ? MDF_ERR_NOSPC : MDF_ERR_IO, errno,
				   "%s: fdatasync", out_name);
	if (st == MDF_OK && in->stop && stop_check(in->stop, err) != MDF_OK) {
		/* Whole, but the mark is still forced: it stays. */
		in->stopped = true;
		st = mdf_err_push(err, "%s", in->name);
	}
	if (st == MDF_OK)
		st = rr_unforce(out, err);
	if (st == MDF_OK && mode == RR_DUMP && v.marked) {
		st = mdf_err_set(err, MDF_ERR_NODATA,
				 "%s: the dump is incomplete: the dump in %s is marked incomplete (its writer was cut short)",
				 out_name, in->name);
		if (stats)
			stats->keep = true;
	}
	if (stats && st != MDF_OK && (in->cut || in->stopped))
		stats->keep = true;
	rr_stats(stats, in, out, records);
	for (unsigned i = 0; i < RR_SLOTS; i++)
		free(out->slot[i].buf);
	free(out->cover.iv);
	free(out);
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

static enum mdf_status rr_fd(int in_fd, const char *in_name, int out_fd,
			     const char *out_name, enum rr_mode mode,
			     const struct mdf_stop *stop, struct rearrange_stats *stats,
			     struct mdf_err *err)
{
	struct rr_in in;
	enum mdf_status st;

	st = rr_in_init(&in, in_fd, in_name, stats, err);
	in.stop = stop;
	if (st == MDF_OK)
		st = rr_read_header(&in, err);
	if (st == MDF_OK)
		st = rr_run(&in, out_fd, out_name, mode, stats, err);
	else if (stats)
		stats->in_bytes = in.consumed;
	free(in.buf);
	return st;
}

enum mdf_status rearrange_fd(int in_fd, const char *in_name, int out_fd,
			     const char *out_name, struct rearrange_stats *stats,
			     struct mdf_err *err)
{
	return rr_fd(in_fd, in_name, out_fd, out_name, RR_RAW, NULL, stats, err);
}

enum mdf_status rearrange_dump_fd(int in_fd, const char *in_name, int out_fd,
				  const char *out_name, const struct mdf_stop *stop,
				  struct rearrange_stats *stats, struct mdf_err *err)
{
	return rr_fd(in_fd, in_name, out_fd, out_name, RR_DUMP, stop, stats, err);
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
				 const struct mdf_stop *stop,
				 struct rearrange_stats *stats,
				 struct mdf_err *err)
{
	/* Read too: the rebuilt file is checked. */
	int flags = O_RDWR | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);
	struct rearrange_stats local;
	struct rr_in in;
	struct stat sb;
	bool regular;
	enum mdf_status st;
	int fd;

	if (!stats)
		stats = &local;
	st = rr_in_init(&in, in_fd, in_name, stats, err);
	in.stop = stop;
	if (st == MDF_OK)
		st = rr_read_header(&in, err);
	if (st == MDF_OK)
		st = rr_check_not_input(in_fd, in_name, out_path, err);
	if (st != MDF_OK) {
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
	st = rr_run(&in, fd, out_path, RR_DUMP, stats, err);
	free(in.buf);
	if (close(fd) != 0 && st == MDF_OK)
		st = mdf_err_errno(err, errno == ENOSPC ? MDF_ERR_NOSPC : MDF_ERR_IO,
				   errno, "%s: close", out_path);
	if (st == MDF_OK || st == MDF_ERR_NODATA)
		return st;  /* whole, or the stream's own dump is incomplete */
	if (stats->keep) {
		rr_msg(err, ": %s holds what came before, marked incomplete", out_path);
	} else if (regular) {
		if (unlink(out_path) == 0)
			rr_msg(err, "; removed the incomplete %s", out_path);
		else
			rr_msg(err, "; the incomplete %s could not be removed: do not use it",
			       out_path);
	}
	return st;
}

enum mdf_status rearrange_main(const struct mdf_opts *o,
			       const struct mdf_printer *pr,
			       const struct mdf_stop *stop,
			       struct mdf_err *err)
{
	struct rearrange_stats s;
	enum mdf_status st;

	st = rearrange_stream(STDIN_FILENO, "standard input", o->dumpfile,
			      o->force, stop, &s, err);
	if (st != MDF_OK && s.keep && s.dump_incomplete)
		pi_warn(pr, "standard input: the dump in the flattened stream is marked incomplete: %s is marked so too.\n",
			o->dumpfile);
	if (st != MDF_OK)
		return st;
	pi_debug(pr, "rearranged %llu records, %llu payload bytes, from %llu stream bytes into %llu bytes (%llu reads, %llu writes)\n",
		 (unsigned long long)s.records, (unsigned long long)s.data_bytes,
		 (unsigned long long)s.in_bytes, (unsigned long long)s.out_size,
		 (unsigned long long)s.reads, (unsigned long long)s.writes);
	pi_completed(pr, o->dumpfile);
	return MDF_OK;
}
