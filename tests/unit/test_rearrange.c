/*
 * tests/unit/test_rearrange.c - makedumpfile -R (rearrange.c).
 *
 * Streams are built in memory, fed through a memfd (a regular file) or a
 * pipe written by a thread in odd-sized pieces, and the rebuilt file is
 * compared with a simple model: a byte array the records are applied to in
 * order.  The round trip through output.c's -F sink checks writer and
 * reader against each other.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskdump.h"
#include "write/output.h"
#include "write/rearrange.h"
#include "tap.h"
#include "util.h"

/* ---- stream builder and model ---- */

struct sbuf {
	unsigned char *p;
	size_t len, cap;
};

static void sb_add(struct sbuf *s, const void *p, size_t n)
{
	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2 + 4096;
		s->p = realloc(s->p, s->cap);
		if (!s->p)
			abort();
	}
	memcpy(s->p + s->len, p, n);
	s->len += n;
}

static void sb_header(struct sbuf *s, int64_t type, int64_t version)
{
	unsigned char h[MDF_FLAT_HEADER_SIZE];

	memset(h, 0, sizeof(h));
	memcpy(h, MDF_FLAT_SIGNATURE, strlen(MDF_FLAT_SIGNATURE));
	store_be64(h + 16, (uint64_t)type);
	store_be64(h + 24, (uint64_t)version);
	sb_add(s, h, sizeof(h));
}

static void sb_rec_hdr(struct sbuf *s, int64_t off, int64_t size)
{
	unsigned char r[16];

	store_be64(r, (uint64_t)off);
	store_be64(r + 8, (uint64_t)size);
	sb_add(s, r, 16);
}

/* A record of @size bytes of pattern @seed at @off. */
static void sb_rec(struct sbuf *s, int64_t off, size_t size, unsigned seed)
{
	sb_rec_hdr(s, off, (int64_t)size);
	for (size_t i = 0; i < size; i++) {
		unsigned char b = (unsigned char)((i * 131 + seed * 7 + (i >> 9)) & 0xff);
		sb_add(s, &b, 1);
	}
}

static void sb_end(struct sbuf *s)
{
	sb_rec_hdr(s, -1, -1);
}

/*
 * A small kdump-compressed file, as -R must rebuild it: header, sub
 * header, bitmaps of 16 pfns, 4 descriptors of raw pages and their data.
 */
#define KD_B 4096
#define KD_OFF_DESC (4 * KD_B)
#define KD_NPAGES 4
#define KD_OFF_DATA (KD_OFF_DESC + KD_NPAGES * 24)
#define KD_SIZE (KD_OFF_DATA + KD_NPAGES * KD_B)
#define KD_STATUS 424

static void kd_build(unsigned char *kd, uint32_t status)
{
	memset(kd, 0, KD_SIZE);
	memcpy(kd, "KDUMP   ", 8);
	store_le32(kd + 8, 6);                   /* header_version */
	store_le32(kd + KD_STATUS, status);
	store_le32(kd + 428, KD_B);              /* block_size */
	store_le32(kd + 432, 1);                 /* sub_hdr_size */
	store_le32(kd + 436, 2);                 /* bitmap_blocks */
	store_le32(kd + 440, 16);                /* max_mapnr */
	store_le64(kd + KD_B + 96, 16);          /* max_mapnr_64 */
	kd[2 * KD_B] = 0xff;                     /* bitmap1: 16 pfns */
	kd[2 * KD_B + 1] = 0xff;
	kd[3 * KD_B] = 0x0f;                     /* bitmap2: pfns 0-3 */
	for (unsigned i = 0; i < KD_NPAGES; i++) {
		store_le64(kd + KD_OFF_DESC + 24 * i, KD_OFF_DATA + (uint64_t)i * KD_B);
		store_le32(kd + KD_OFF_DESC + 24 * i + 8, KD_B);
		memset(kd + KD_OFF_DATA + i * KD_B, 'a' + (int)i, KD_B);
	}
}

/* The file @img in records of at most @piece bytes, front to back. */
static void sb_add_dump(struct sbuf *s, const unsigned char *img, size_t len,
			size_t piece)
{
	for (size_t off = 0; off < len; off += piece) {
		size_t n = MDF_MIN(piece, len - off);

		sb_rec_hdr(s, (int64_t)off, (int64_t)n);
		sb_add(s, img + off, n);
	}
}

/* Apply the records of a valid stream to a byte array; returns its size. */
static size_t model(const struct sbuf *s, unsigned char **out)
{
	size_t pos = MDF_FLAT_HEADER_SIZE, end = 0, cap = 0;
	unsigned char *m = NULL;

	for (;;) {
		int64_t off = (int64_t)load_be64(s->p + pos);
		int64_t size = (int64_t)load_be64(s->p + pos + 8);

		pos += 16;
		if (off == -1 && size == -1)
			break;
		if (size > 0 && (size_t)(off + size) > end) {
			if ((size_t)(off + size) > cap) {
				cap = (size_t)(off + size) * 2;
				m = realloc(m, cap);
				if (!m)
					abort();
			}
			memset(m + end, 0, (size_t)(off + size) - end);
			end = (size_t)(off + size);
		}
		memcpy(m + off, s->p + pos, (size_t)size);
		pos += (size_t)size;
	}
	*out = m;
	return end;
}

static int memfd_with(const struct sbuf *s)
{
	int fd = memfd_create("flat-in", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (s->len && pwrite(fd, s->p, s->len, 0) != (ssize_t)s->len) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The whole content of @fd. */
static size_t slurp(int fd, unsigned char **out)
{
	struct stat sb;
	unsigned char *p;

	if (fstat(fd, &sb) != 0)
		abort();
	p = malloc((size_t)sb.st_size + 1);
	if (!p || pread(fd, p, (size_t)sb.st_size, 0) != sb.st_size)
		abort();
	*out = p;
	return (size_t)sb.st_size;
}

/* Rearrange @s (through a memfd) into a memfd and compare with the model. */
static bool run_and_compare(const struct sbuf *s, struct rearrange_stats *st,
			    char *why, size_t whylen)
{
	struct mdf_err err;
	unsigned char *want, *got;
	size_t nwant, ngot;
	int in = memfd_with(s), out = memfd_create("flat-out", MFD_CLOEXEC);
	bool ok;

	if (in < 0 || out < 0)
		abort();
	if (rearrange_fd(in, "test", out, "out", st, &err) != MDF_OK) {
		snprintf(why, whylen, "rearrange_fd: %.500s", err.msg);
		close(in);
		close(out);
		return false;
	}
	nwant = model(s, &want);
	ngot = slurp(out, &got);
	ok = nwant == ngot && (nwant == 0 || memcmp(want, got, nwant) == 0);
	if (!ok)
		snprintf(why, whylen, "output differs from the model (%zu vs %zu bytes)",
			 ngot, nwant);
	free(want);
	free(got);
	close(in);
	close(out);
	return ok;
}

#define T_MODEL(s, st)                                                  \
	do {                                                            \
		char t_why_[600];                                       \
		if (!run_and_compare((s), (st), t_why_, sizeof(t_why_))) { \
			t_fail(__FILE__, __LINE__, t_why_);             \
			return;                                         \
		}                                                       \
	} while (0)

/* Rearrange @s expecting failure; the message must contain @want. */
static bool fails_with(const struct sbuf *s, const char *want, struct mdf_err *err)
{
	int in = memfd_with(s), out = memfd_create("flat-out", MFD_CLOEXEC);
	enum mdf_status st;

	if (in < 0 || out < 0)
		abort();
	st = rearrange_fd(in, "test", out, "out", NULL, err);
	close(in);
	close(out);
	return st != MDF_OK && strstr(err->msg, want) != NULL;
}

#define T_FAILS(s, want)                                                   \
	do {                                                               \
		struct mdf_err t_e_;                                       \
		mdf_err_clear(&t_e_);                                      \
		if (!fails_with((s), (want), &t_e_)) {                     \
			char t_m_[1200];                                   \
			snprintf(t_m_, sizeof(t_m_), "want \"%s\", got \"%.900s\"", \
				 (want), t_e_.msg);                        \
			t_fail(__FILE__, __LINE__, t_m_);                  \
			return;                                            \
		}                                                          \
	} while (0)

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char path[160];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

/* ---- header ---- */

static void test_header_checks(void)
{
	unsigned char h[MDF_FLAT_HEADER_SIZE];
	struct mdf_err err;

	memset(h, 0, sizeof(h));
	memcpy(h, "makedumpfile", 12);
	store_be64(h + 16, 1);
	store_be64(h + 24, 1);
	T_OK(rearrange_check_header(h, sizeof(h), "standard input", &err), &err);

	T_ASSERT(rearrange_check_header(h, 0, "standard input", &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "standard input is empty"));
	T_ASSERT(rearrange_check_header(h, 100, "standard input", &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "standard input: flattened stream cut short in its header: 100 of 4096"));

	store_be64(h + 16, 2);
	T_ASSERT(rearrange_check_header(h, sizeof(h), "standard input", &err) == MDF_ERR_NOTSUPP);
	T_ASSERT(strstr(err.msg, "standard input: flattened stream of type 2"));
	store_be64(h + 16, 1);
	store_be64(h + 24, 0x100000000000000ULL); /* little-endian 1 */
	T_ASSERT(rearrange_check_header(h, sizeof(h), "standard input", &err) == MDF_ERR_NOTSUPP);
	T_ASSERT(strstr(err.msg, "version"));
	store_be64(h + 24, 1);

	/* The signature is NUL padded: "makedumpfileX" is something else. */
	h[12] = 'X';
	T_ASSERT(rearrange_check_header(h, sizeof(h), "standard input", &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "standard input is not a flattened makedumpfile stream"));
	h[12] = 0;

	memcpy(h, "KDUMP   ", 8);
	T_ASSERT(rearrange_check_header(h, sizeof(h), "standard input", &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "kdump-compressed"));
	memcpy(h, "\177ELF\2\1\1\0", 8);
	T_ASSERT(rearrange_check_header(h, sizeof(h), "standard input", &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "ELF"));
	memcpy(h, "garbage!", 8);
	T_ASSERT(rearrange_check_header(h, 8, "x", &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "x is not a flattened makedumpfile stream"));
}

/* ---- streams ---- */

static void test_in_order_overwrite_and_holes(void)
{
	struct sbuf s = { 0 };
	struct rearrange_stats st;

	sb_header(&s, 1, 1);
	sb_rec(&s, 0, 464, 1);          /* header */
	sb_rec(&s, 8192, 10000, 2);     /* leaves a hole 464..8192 */
	sb_rec(&s, 100, 50, 3);         /* overwrites part of the header */
	sb_rec(&s, 8192 + 5000, 20, 4); /* overwrites the middle of record 2 */
	sb_rec(&s, 40000, 0, 5);        /* empty: changes nothing */
	sb_end(&s);
	T_MODEL(&s, &st);
	T_EQ_U64(st.records, 5);
	T_EQ_U64(st.out_size, 8192 + 10000);
	T_EQ_U64(st.data_bytes, 464 + 10000 + 50 + 20);
	T_EQ_U64(st.in_bytes, s.len);
	free(s.p);
}

static void test_trailing_bytes_ignored(void)
{
	struct sbuf s = { 0 };
	struct rearrange_stats st;
	size_t stream_len;

	sb_header(&s, 1, 1);
	sb_rec(&s, 0, 4096, 1);
	sb_end(&s);
	stream_len = s.len;
	/* A raw device holds more than the stream: junk after the marker. */
	sb_rec_hdr(&s, -7, 3);
	sb_add(&s, "junkjunk", 8);
	T_MODEL(&s, &st);
	T_EQ_U64(st.in_bytes, stream_len);
	T_EQ_U64(st.records, 1);
	free(s.p);
}

static void test_empty_dump(void)
{
	struct sbuf s = { 0 };
	struct rearrange_stats st;

	sb_header(&s, 1, 1);
	sb_end(&s);
	T_MODEL(&s, &st);
	T_EQ_U64(st.records, 0);
	T_EQ_U64(st.out_size, 0);
	free(s.p);
}

static void test_coalesces_contiguous_records(void)
{
	struct sbuf s = { 0 };
	struct rearrange_stats st;

	sb_header(&s, 1, 1);
	for (unsigned i = 0; i < 1024; i++)     /* 4 MiB in 4 KiB records */
		sb_rec(&s, (int64_t)i * 4096, 4096, i);
	sb_rec(&s, 0, 464, 9);                   /* header rewritten last */
	sb_end(&s);
	T_MODEL(&s, &st);
	T_EQ_U64(st.records, 1025);
	/* 4 MiB through the write buffer, plus the rewrite. */
	T_ASSERT(st.writes <= (4u << 20) / OUT_FILE_BUF + 2);
	T_ASSERT(st.reads <= 8);
	free(s.p);
}

/* Upstream's -F interleaves descriptors and data: both runs coalesce. */
static void test_interleaved_runs_coalesce(void)
{
	struct sbuf s = { 0 };
	struct rearrange_stats st;

	sb_header(&s, 1, 1);
	sb_rec(&s, 0, 464, 1);
	for (unsigned i = 0; i < 200; i++) {
		sb_rec(&s, (int64_t)(1 << 20) + (int64_t)i * 65000, 65000, i);
		sb_rec(&s, 0x2000 + (int64_t)i * 1656, 1656, i + 1000);
	}
	sb_end(&s);
	T_MODEL(&s, &st);
	T_EQ_U64(st.records, 401);
	/* 13 MiB of data, 330 KiB of descriptors, the header. */
	T_ASSERT(st.writes <= (200u * 65000 + 200 * 1656) / OUT_FILE_BUF + 4);
	free(s.p);
}

/* Random records that overlap, append and jump: the model decides. */
static void test_random_records_match_model(void)
{
	struct sbuf s = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	int64_t runs[3] = { 0, 1 << 20, 2 << 20 };

	for (int round = 0; round < 4; round++) {
		struct rearrange_stats st;
		unsigned nrec = round == 3 ? 40 : 600;

		s.len = 0;
		sb_header(&s, 1, 1);
		for (unsigned i = 0; i < nrec; i++) {
			size_t size;
			int64_t off;
			unsigned r;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			r = (unsigned)(x % 3);
			size = (size_t)((x >> 8) % (round == 3 ? 1500000 : 70000));
			if ((x >> 40) % 4 == 0) {
				/* Anywhere, probably over earlier bytes. */
				off = (int64_t)((x >> 20) % (3 << 20));
			} else {
				off = runs[r];
				runs[r] += (int64_t)size;
			}
			sb_rec(&s, off, size, i);
		}
		sb_end(&s);
		T_MODEL(&s, &st);
		T_EQ_U64(st.records, nrec);
	}
	free(s.p);
}

static void test_large_record(void)
{
	struct sbuf s = { 0 };
	struct rearrange_stats st;

	sb_header(&s, 1, 1);
	sb_rec(&s, 4096, 3 * 1024 * 1024 + 123, 1); /* larger than either buffer */
	sb_rec(&s, 0, 7, 2);
	sb_rec(&s, 4096 + 3 * 1024 * 1024 + 123, 4096, 3);
	sb_end(&s);
	T_MODEL(&s, &st);
	T_EQ_U64(st.out_size, 4096 + 3 * 1024 * 1024 + 123 + 4096);
	free(s.p);
}

static void test_bad_records(void)
{
	struct sbuf s = { 0 };

	sb_header(&s, 1, 1);
	sb_rec(&s, 0, 16, 1);
	sb_rec_hdr(&s, -2, 16);
	T_FAILS(&s, "test: record 2 at byte 4128: negative offset -2");

	s.len = MDF_FLAT_HEADER_SIZE;
	sb_rec_hdr(&s, -1, 16); /* half an end marker */
	T_FAILS(&s, "record 1 at byte 4096: negative offset -1");

	s.len = MDF_FLAT_HEADER_SIZE;
	sb_rec_hdr(&s, 0, -16);
	T_FAILS(&s, "negative size -16");

	s.len = MDF_FLAT_HEADER_SIZE;
	sb_rec_hdr(&s, 0, (1LL << 30) + 1);
	T_FAILS(&s, "over the limit");

	s.len = MDF_FLAT_HEADER_SIZE;
	sb_rec_hdr(&s, INT64_MAX - 10, 11);
	T_FAILS(&s, "overflows");

	/* Exactly 1 GiB is allowed by the check; the stream then ends. */
	s.len = MDF_FLAT_HEADER_SIZE;
	sb_rec_hdr(&s, 0, 1LL << 30);
	sb_add(&s, "abc", 3);
	T_FAILS(&s, "cut short after 0 records at byte 4115: no end marker (record 1, 1073741824 bytes for offset 0x0, has only 3)");
	free(s.p);
}

static void test_cut_short(void)
{
	struct sbuf s = { 0 };

	sb_header(&s, 1, 1);
	T_FAILS(&s, "test: flattened stream cut short after 0 records at byte 4096: no end marker");
	sb_rec(&s, 0, 100, 1);
	sb_rec(&s, 100, 100, 2);
	T_FAILS(&s, "cut short after 2 records at byte 4328: no end marker");
	sb_add(&s, "\0\0\0\0", 4);
	T_FAILS(&s, "cut short after 2 records at byte 4332: no end marker (a partial record header)");
	s.len -= 4;
	sb_rec(&s, 200, 100, 3);
	s.len -= 1;
	T_FAILS(&s, "cut short after 2 records at byte 4443: no end marker (record 3, 100 bytes for offset 0xc8, has only 99)");
	s.len = 100;
	T_FAILS(&s, "cut short in its header");
	free(s.p);
}

/* ---- pipes: reads return odd amounts ---- */

struct feeder {
	int fd;
	const struct sbuf *s;
};

static void *feed(void *arg)
{
	struct feeder *f = arg;
	size_t pos = 0, step = 1;

	while (pos < f->s->len) {
		size_t n = MDF_MIN(step, f->s->len - pos);
		ssize_t w = write(f->fd, f->s->p + pos, n);

		if (w <= 0)
			break;
		pos += (size_t)w;
		step = step * 3 + 1;
		if (step > 200000)
			step = 7;
	}
	close(f->fd);
	return NULL;
}

static void test_pipe_odd_pieces(void)
{
	struct sbuf s = { 0 };
	struct rearrange_stats st;
	struct mdf_err err;
	unsigned char *want, *got;
	size_t nwant, ngot;
	int p[2], out = memfd_create("flat-out", MFD_CLOEXEC);
	struct feeder f;
	pthread_t th;
	enum mdf_status rc;

	sb_header(&s, 1, 1);
	for (unsigned i = 0; i < 300; i++)
		sb_rec(&s, (int64_t)(i * 3001 % 700) * 4096, 4096 + i, i);
	sb_end(&s);
	T_ASSERT(out >= 0 && pipe(p) == 0);
	f.fd = p[1];
	f.s = &s;
	T_ASSERT(pthread_create(&th, NULL, feed, &f) == 0);
	rc = rearrange_fd(p[0], "pipe", out, "out", &st, &err);
	pthread_join(th, NULL);
	close(p[0]);
	T_OK(rc, &err);
	nwant = model(&s, &want);
	ngot = slurp(out, &got);
	close(out);
	T_EQ_U64(ngot, nwant);
	T_ASSERT(memcmp(want, got, nwant) == 0);
	T_EQ_U64(st.records, 300);
	free(want);
	free(got);
	free(s.p);
}

/* ---- rearrange_stream: the file ---- */

static void test_stream_creates_0600_and_refuses_existing(void)
{
	unsigned char kd[KD_SIZE];
	struct sbuf s = { 0 };
	struct rearrange_stats st;
	struct mdf_err err;
	const char *path = tmp_path("dump1");
	unsigned char *got;
	struct stat sb;
	int in, fd;
	size_t n;

	kd_build(kd, 0);
	sb_header(&s, 1, 1);
	sb_add_dump(&s, kd, KD_SIZE, 5000);
	sb_end(&s);
	unlink(path);
	in = memfd_with(&s);
	T_ASSERT(in >= 0);
	T_OK(rearrange_stream(in, "standard input", path, false, NULL, &st, &err), &err);
	T_ASSERT(stat(path, &sb) == 0);
	T_EQ_U64(sb.st_mode & 0777, 0600);
	T_EQ_U64(sb.st_size, KD_SIZE);

	/* Again without force: refused, file untouched. */
	T_ASSERT(lseek(in, 0, SEEK_SET) == 0);
	T_ASSERT(rearrange_stream(in, "standard input", path, false, NULL, &st, &err) == MDF_ERR_IO);
	T_ASSERT(strstr(err.msg, "already exists (use -f to overwrite it)"));
	T_ASSERT(stat(path, &sb) == 0 && sb.st_size == KD_SIZE);

	/* With force over a longer file: truncated to the new dump. */
	fd = open(path, O_WRONLY);
	T_ASSERT(fd >= 0 && pwrite(fd, "x", 1, 99999) == 1);
	close(fd);
	T_ASSERT(lseek(in, 0, SEEK_SET) == 0);
	T_OK(rearrange_stream(in, "standard input", path, true, NULL, &st, &err), &err);
	fd = open(path, O_RDONLY);
	T_ASSERT(fd >= 0);
	n = slurp(fd, &got);
	close(fd);
	T_EQ_U64(n, KD_SIZE);
	T_ASSERT(memcmp(got, kd, KD_SIZE) == 0);
	free(got);
	close(in);
	unlink(path);
	free(s.p);
}

static void test_stream_cut_short_removes_file(void)
{
	struct sbuf s = { 0 };
	struct mdf_err err;
	const char *path = tmp_path("dump2");
	int in;

	sb_header(&s, 1, 1);
	sb_rec(&s, 0, 5000, 1);
	sb_rec(&s, 5000, 5000, 2);
	s.len -= 10;
	unlink(path);
	in = memfd_with(&s);
	T_ASSERT(in >= 0);
	T_ASSERT(rearrange_stream(in, "standard input", path, false, NULL, NULL, &err) == MDF_ERR_FORMAT);
	close(in);
	T_ASSERT(strstr(err.msg, "standard input: flattened stream cut short after 1 records at byte 14118: no end marker"));
	T_ASSERT(strstr(err.msg, "; removed the incomplete "));
	T_ASSERT(access(path, F_OK) != 0 && errno == ENOENT);
	free(s.p);
}

static void test_stream_bad_header_creates_nothing(void)
{
	struct sbuf s = { 0 };
	struct mdf_err err;
	const char *path = tmp_path("dump3");
	int in;

	sb_header(&s, 1, 2);
	sb_end(&s);
	unlink(path);
	in = memfd_with(&s);
	T_ASSERT(in >= 0);
	T_ASSERT(rearrange_stream(in, "standard input", path, true, NULL, NULL, &err) != MDF_OK);
	close(in);
	T_ASSERT(strstr(err.msg, "standard input: flattened stream of version 2"));
	T_ASSERT(access(path, F_OK) != 0);
	free(s.p);
}

static void test_stream_refuses_its_own_input(void)
{
	struct sbuf s = { 0 };
	struct mdf_err err;
	const char *path = tmp_path("stream");
	struct stat sb;
	int fd, in;

	sb_header(&s, 1, 1);
	sb_rec(&s, 0, 100, 1);
	sb_end(&s);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	T_ASSERT(fd >= 0 && write(fd, s.p, s.len) == (ssize_t)s.len);
	close(fd);
	in = open(path, O_RDONLY);
	T_ASSERT(in >= 0);
	T_ASSERT(rearrange_stream(in, "standard input", path, true, NULL, NULL, &err) == MDF_ERR_ARG);
	close(in);
	T_ASSERT(strstr(err.msg, "is standard input itself"));
	T_ASSERT(stat(path, &sb) == 0 && (size_t)sb.st_size == s.len);
	unlink(path);
	free(s.p);
}


/* ---- rearrange_dump_fd: is the rebuilt file a usable dump? ---- */

/* Run @s through rearrange_dump_fd() into a fresh memfd; *@outfd keeps
 * it open for the caller (or -1). */
static enum mdf_status run_dump(const struct sbuf *s, struct rearrange_stats *st,
				struct mdf_err *err, int *outfd)
{
	int in = memfd_with(s), out = memfd_create("flat-out", MFD_CLOEXEC);
	enum mdf_status rc;

	if (in < 0 || out < 0)
		abort();
	rc = rearrange_dump_fd(in, "standard input", out, "OUT", NULL, st, err);
	close(in);
	if (outfd)
		*outfd = out;
	else
		close(out);
	return rc;
}

static uint32_t status_of(int fd)
{
	unsigned char b[4];

	if (pread(fd, b, 4, KD_STATUS) != 4)
		return 0xffffffff;
	return load_le32(b);
}

static void test_dump_whole(void)
{
	unsigned char kd[KD_SIZE], *got;
	struct sbuf s = { 0 };
	struct rearrange_stats st;
	struct mdf_err err;
	int out;

	/* Header record last, as -F writes its final header: the file is
	 * the stream's exactly (the mark forced meanwhile is put back). */
	kd_build(kd, 2);
	sb_header(&s, 1, 1);
	for (size_t off = KD_B; off < KD_SIZE; off += 3000) {
		size_t n = MDF_MIN((size_t)3000, KD_SIZE - off);

		sb_rec_hdr(&s, (int64_t)off, (int64_t)n);
		sb_add(&s, kd + off, n);
	}
	sb_rec_hdr(&s, 0, KD_B);
	sb_add(&s, kd, KD_B);
	sb_end(&s);
	T_OK(run_dump(&s, &st, &err, &out), &err);
	T_ASSERT(!st.keep && !st.dump_incomplete);
	T_EQ_U64(slurp(out, &got), KD_SIZE);
	T_ASSERT(memcmp(got, kd, KD_SIZE) == 0);
	free(got);
	close(out);
	free(s.p);
}

static void test_dump_not_whole(void)
{
	unsigned char kd[KD_SIZE];
	struct sbuf s = { 0 };
	struct rearrange_stats st;
	struct mdf_err err;
	int out;

	kd_build(kd, 2);
	/* No record at all. */
	sb_header(&s, 1, 1);
	sb_end(&s);
	T_ASSERT(run_dump(&s, &st, &err, NULL) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "standard input: flattened stream ends after the header: no page data"));
	T_ASSERT(!st.keep);

	/* Records, but no dump in them. */
	s.len = MDF_FLAT_HEADER_SIZE;
	sb_rec(&s, 0, 5000, 1);
	sb_end(&s);
	T_ASSERT(run_dump(&s, &st, &err, NULL) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "standard input: the flattened stream holds no dump: "));
	T_ASSERT(!st.keep);

	/* Only the dump's headers. */
	s.len = MDF_FLAT_HEADER_SIZE;
	sb_add_dump(&s, kd, 2 * KD_B, KD_B);
	sb_end(&s);
	T_ASSERT(run_dump(&s, &st, &err, NULL) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "standard input: the flattened stream holds no page data: the file ends at byte 0x2000, before the dump's page descriptors (0x4000)"));
	T_ASSERT(!st.keep);

	/* Everything but the last page: kept, marked incomplete although
	 * the stream's header is not. */
	s.len = MDF_FLAT_HEADER_SIZE;
	sb_add_dump(&s, kd, KD_SIZE - KD_B, 5000);
	sb_end(&s);
	T_ASSERT(run_dump(&s, &st, &err, &out) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "standard input: the flattened stream ends before its dump does: "
			"the file ends at byte 0x7060, before the dump's last page (0x8060)"));
	T_ASSERT(st.keep);
	T_EQ_U64(status_of(out), 2 | 8);
	close(out);

	/* Descriptors and data interleaved (upstream's -F), cut inside the
	 * descriptors with the first page's data there, no end marker:
	 * kept, marked. */
	s.len = MDF_FLAT_HEADER_SIZE;
	sb_add_dump(&s, kd, KD_OFF_DESC + 30, 5000);
	sb_rec_hdr(&s, KD_OFF_DATA, KD_B);
	sb_add(&s, kd + KD_OFF_DATA, KD_B);
	T_ASSERT(run_dump(&s, &st, &err, &out) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "no end marker"));
	T_ASSERT(st.keep);
	T_EQ_U64(status_of(out), 2 | 8);
	close(out);

	/* Cut inside the descriptors, no page data: not kept. */
	s.len = MDF_FLAT_HEADER_SIZE;
	sb_add_dump(&s, kd, KD_OFF_DESC + 30, 5000);
	T_ASSERT(run_dump(&s, &st, &err, NULL) == MDF_ERR_FORMAT);
	T_ASSERT(!st.keep);

	/* Cut before the first descriptor: no page, not kept. */
	s.len = MDF_FLAT_HEADER_SIZE;
	sb_add_dump(&s, kd, KD_OFF_DESC + 10, 5000);
	T_ASSERT(run_dump(&s, &st, &err, NULL) == MDF_ERR_FORMAT);
	T_ASSERT(!st.keep);

	/* A record missing in the middle of the page data (the stream says
	 * it is whole): kept, marked, the first byte no record put named. */
	s.len = MDF_FLAT_HEADER_SIZE;
	sb_add_dump(&s, kd, KD_OFF_DATA + KD_B, 5000);
	sb_rec_hdr(&s, KD_OFF_DATA + 2 * KD_B, 2 * KD_B);
	sb_add(&s, kd + KD_OFF_DATA + 2 * KD_B, 2 * KD_B);
	sb_end(&s);
	T_ASSERT(run_dump(&s, &st, &err, &out) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "standard input: the flattened stream ends before its dump does: "
			"no record holds byte 0x5060 of its page descriptors and data (0x4000-0x8060)"));
	T_ASSERT(st.keep);
	T_EQ_U64(status_of(out), 2 | 8);
	close(out);

	/* A whole stream of a dump its writer marked incomplete. */
	kd_build(kd, 2 | 8);
	s.len = MDF_FLAT_HEADER_SIZE;
	sb_add_dump(&s, kd, KD_SIZE, 7000);
	sb_end(&s);
	T_ASSERT(run_dump(&s, &st, &err, &out) == MDF_ERR_NODATA);
	T_ASSERT(strstr(err.msg, "OUT: the dump is incomplete: the dump in standard input is marked incomplete"));
	T_ASSERT(st.keep && st.dump_incomplete);
	T_EQ_U64(status_of(out), 2 | 8);
	close(out);
	free(s.p);
}

static void put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

/* An ELF dump: e_flags bit 0 carries the mark while it is written. */
static void test_dump_elf(void)
{
	enum { EH = 64, PH = 56, DATA = 0x1000, LEN = 0x3000 };
	unsigned char elf[DATA + LEN], *got, b[4];
	struct sbuf s = { 0 };
	struct rearrange_stats st;
	struct mdf_err err;
	int out;

	memset(elf, 0, sizeof(elf));
	memcpy(elf, "\177ELF\2\1\1", 7);
	put16(elf + 16, 4);            /* ET_CORE */
	put16(elf + 18, 62);
	store_le64(elf + 32, EH);           /* e_phoff */
	put16(elf + 52, EH);
	put16(elf + 54, PH);
	put16(elf + 56, 1);
	store_le32(elf + EH, 1);            /* PT_LOAD */
	store_le64(elf + EH + 8, DATA);     /* p_offset */
	store_le64(elf + EH + 32, LEN);     /* p_filesz */
	store_le64(elf + EH + 40, LEN);
	memset(elf + DATA, 'x', LEN);
	sb_header(&s, 1, 1);
	sb_add_dump(&s, elf, sizeof(elf), 4096);
	sb_end(&s);
	T_OK(run_dump(&s, &st, &err, &out), &err);
	T_EQ_U64(slurp(out, &got), sizeof(elf));
	T_ASSERT(memcmp(got, elf, sizeof(elf)) == 0);
	free(got);
	close(out);
	/* Cut in its data: kept, e_flags bit 0 set. */
	s.len = MDF_FLAT_HEADER_SIZE;
	sb_add_dump(&s, elf, sizeof(elf) - 100, 4096);
	sb_end(&s);
	T_ASSERT(run_dump(&s, &st, &err, &out) == MDF_ERR_FORMAT);
	T_ASSERT(st.keep);
	T_ASSERT(pread(out, b, 4, 48) == 4 && (load_le32(b) & 1));
	close(out);
	free(s.p);
}

/* ---- round trip with output.c's -F sink ---- */

static void test_round_trip_with_flat_sink(void)
{
	struct out_sink flat, file;
	struct mdf_err err;
	const char *path = tmp_path("direct");
	unsigned char *chunk = malloc(70000), *a, *b;
	int ffd = memfd_create("flat", MFD_CLOEXEC), out = memfd_create("re", MFD_CLOEXEC);
	size_t na, nb;
	int fd;

	T_ASSERT(chunk && ffd >= 0 && out >= 0);
	for (size_t i = 0; i < 70000; i++)
		chunk[i] = (unsigned char)(i * 7 + (i >> 12));
	unlink(path);
	T_OK(out_open_flat(&flat, ffd, 0, 64 << 10, &err), &err);
	T_OK(out_open_file(&file, path, false, 0, 64 << 10, &err), &err);
	/* A writer's pattern: pages, a jump, the header last. */
	for (int k = 0; k < 2; k++) {
		struct out_sink *o = k ? &file : &flat;

		for (uint64_t off = 8192; off < 8192 + 20 * 70000; off += 70000)
			T_OK(out_write(o, off, chunk, 70000, &err), &err);
		T_OK(out_write(o, 3 << 20, chunk, 123, &err), &err);
		T_OK(out_write(o, 0, chunk + 5, 464, &err), &err);
		T_OK(out_write(o, 4096, chunk + 9, 4096, &err), &err);
		T_OK(out_close(o, &err), &err);
	}
	T_ASSERT(lseek(ffd, 0, SEEK_SET) == 0);
	T_OK(rearrange_fd(ffd, "flat", out, "re", NULL, &err), &err);
	na = slurp(out, &a);
	fd = open(path, O_RDONLY);
	T_ASSERT(fd >= 0);
	nb = slurp(fd, &b);
	close(fd);
	T_EQ_U64(na, nb);
	T_ASSERT(memcmp(a, b, na) == 0);
	free(a);
	free(b);
	free(chunk);
	close(ffd);
	close(out);
	unlink(path);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_rearrange.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		printf("not ok mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	T_RUN(test_header_checks);
	T_RUN(test_in_order_overwrite_and_holes);
	T_RUN(test_trailing_bytes_ignored);
	T_RUN(test_empty_dump);
	T_RUN(test_coalesces_contiguous_records);
	T_RUN(test_interleaved_runs_coalesce);
	T_RUN(test_random_records_match_model);
	T_RUN(test_large_record);
	T_RUN(test_bad_records);
	T_RUN(test_cut_short);
	T_RUN(test_pipe_odd_pieces);
	T_RUN(test_stream_creates_0600_and_refuses_existing);
	T_RUN(test_stream_cut_short_removes_file);
	T_RUN(test_stream_bad_header_creates_nothing);
	T_RUN(test_stream_refuses_its_own_input);
	T_RUN(test_round_trip_with_flat_sink);
	T_RUN(test_dump_whole);
	T_RUN(test_dump_not_whole);
	T_RUN(test_dump_elf);
	rmdir(tmpdir);
	return t_done();
}
