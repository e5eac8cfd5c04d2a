/*
 * test_kdump_write_thread.c - the kdump writer gives the same bytes, the
 * same stats and the same errors whatever p->nthreads, on a fake source
 * (several cycles, holes, zero / random / compressible pages, a scratch
 * page buffer overwritten on every call), including a source that fails
 * in the middle and a sink that fills up (-L).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "write/kdump_write.h"
#include "cache.h"
#include "diskdump_read.h"
#include "util.h"
#include "workers.h"

#define PS 4096u
#define MAXPFN 5000u
#define CYCLE 1024u

struct fsrc {
	struct bitmap present, dumpable;
	uint64_t fail_pfn;         /* UINT64_MAX: never */
	unsigned char page[PS];    /* overwritten by every page() call */
};

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static enum mdf_status f_cycle(void *arg, uint64_t start, bool drop_zero,
			       const struct bitmap **present,
			       const struct bitmap **dumpable, struct mdf_err *err)
{
	struct fsrc *s = arg;
	uint64_t end = start + CYCLE < MAXPFN ? start + CYCLE : MAXPFN;

	(void)drop_zero;
	(void)err;
	bitmap_reset(&s->present, start, end);
	bitmap_reset(&s->dumpable, start, end);
	for (uint64_t pfn = start; pfn < end; pfn++) {
		if (pfn % 97 == 50)
			continue;                  /* a hole */
		bitmap_set(&s->present, pfn);
		if (pfn % 7 != 3)
			bitmap_set(&s->dumpable, pfn);
	}
	*present = &s->present;
	*dumpable = &s->dumpable;
	return MDF_OK;
}

static enum mdf_status f_page(void *arg, uint64_t pfn, const unsigned char **data,
			      struct mdf_err *err)
{
	struct fsrc *s = arg;

	if (pfn == s->fail_pfn)
		return mdf_err_set(err, MDF_ERR_IO, "fake: cannot read pfn 0x%llx",
				   (unsigned long long)pfn);
	switch (pfn % 5) {
	case 0:
		memset(s->page, 0, PS);
		break;
	case 1:
		for (unsigned i = 0; i < PS; i += 8)
			store_le64(s->page + i, mix(pfn * 4096 + i));
		break;
	case 2:
		for (unsigned i = 0; i < PS; i++)
			s->page[i] = (unsigned char)("lorem ipsum dolor "[(i + pfn) % 18]);
		break;
	default:
		memset(s->page, (int)(pfn & 0xff), PS);
		s->page[pfn % PS] ^= 0x55;
	}
	*data = s->page;
	return MDF_OK;
}

struct result {
	enum mdf_status st;
	char msg[MDF_ERR_MSG_MAX];
	struct kdump_write_stats stats;
	unsigned char *file;
	size_t len;
};

static bool write_order(enum mdf_codec codec, unsigned level, unsigned nthreads,
			uint64_t fail_pfn, uint64_t limit, bool big_endian,
			struct result *r)
{
	struct fsrc s;
	struct dump_source src = {
		.arg = &s, .page_size = PS, .max_pfn = MAXPFN, .cycle_pfns = CYCLE,
		.cycle = f_cycle, .page = f_page,
	};
	struct kdump_write_params p;
	struct compressor comp = { 0 };
	struct out_sink out;
	struct mdf_err err, cerr;
	char path[64];
	struct stat sb;
	int fd;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	s.fail_pfn = fail_pfn;
	if (bitmap_init(&s.present, CYCLE, &err) != MDF_OK ||
	    bitmap_init(&s.dumpable, CYCLE, &err) != MDF_OK)
		return false;
	memset(&p, 0, sizeof(p));
	p.page_size = PS;
	p.big_endian = big_endian;
	p.dump_level = level;
	p.nr_cpus = 1;
	p.desc_buf_bytes = 24 * 100;     /* flush descriptors often */
	p.nthreads = nthreads;
	/* The same name every time: it is in error messages. */
	snprintf(path, sizeof(path), "/tmp/mdf-kwt.%ld", (long)getpid());
	unlink(path);
	memset(&out, 0, sizeof(out));
	out.fd = -1;
	if (compressor_init(&comp, codec, &err) != MDF_OK ||
	    out_open_file(&out, path, false, limit, 64 << 10, &err) != MDF_OK)
		return false;
	r->st = kdump_write_dump(&p, &src, &comp, &out, &r->stats, &err);
	if (r->st != MDF_OK)
		memcpy(r->msg, err.msg, sizeof(r->msg));
	if (out_close(&out, &cerr) != MDF_OK && r->st == MDF_OK)
		return false;
	compressor_release(&comp);
	bitmap_release(&s.present);
	bitmap_release(&s.dumpable);
	fd = open(path, O_RDONLY);
	unlink(path);
	if (fd < 0 || fstat(fd, &sb) != 0)
		return false;
	r->len = (size_t)sb.st_size;
	r->file = malloc(r->len + 1);
	if (!r->file || read(fd, r->file, r->len) != (ssize_t)r->len) {
		close(fd);
		return false;
	}
	close(fd);
	return true;
}

static bool write_one(enum mdf_codec codec, unsigned level, unsigned nthreads,
		      uint64_t fail_pfn, uint64_t limit, struct result *r)
{
	return write_order(codec, level, nthreads, fail_pfn, limit,
			   MDF_HOST_BIG_ENDIAN, r);
}

/* All thread counts against 0; @want is the status expected. */
static void same_for_all(enum mdf_codec codec, unsigned level, uint64_t fail_pfn,
			 uint64_t limit, enum mdf_status want)
{
	struct result r0, r;

	T_ASSERT(write_one(codec, level, 0, fail_pfn, limit, &r0));
	if (r0.st != want)
		printf("# 0 threads: %s\n", r0.msg);
	T_EQ_U64(r0.st, want);
	T_ASSERT(r0.stats.pages > 0);
	for (unsigned n = 1; n <= 4; n++) {
		bool same;

		T_ASSERT(write_one(codec, level, n, fail_pfn, limit, &r));
		same = r.len == r0.len && memcmp(r.file, r0.file, r.len) == 0 &&
		       r.st == r0.st && strcmp(r.msg, r0.msg) == 0 &&
		       memcmp(&r.stats, &r0.stats, sizeof(r.stats)) == 0;
		if (!same)
			printf("# %u threads: st %d \"%s\", %zu bytes; 0 threads: st %d \"%s\", %zu bytes\n",
			       n, r.st, r.msg, r.len, r0.st, r0.msg, r0.len);
		free(r.file);
		if (!same)
			free(r0.file);
		T_ASSERT(same);
	}
	free(r0.file);
}

static void test_thread_writer_identical_lzo_d0(void)
{
	same_for_all(MDF_CODEC_LZO, 0, UINT64_MAX, 0, MDF_OK);
}

static void test_thread_writer_identical_zlib_d1(void)
{
	same_for_all(MDF_CODEC_ZLIB, 1, UINT64_MAX, 0, MDF_OK);
}

static void test_thread_writer_identical_none_d1(void)
{
	same_for_all(MDF_CODEC_NONE, 1, UINT64_MAX, 0, MDF_OK);
}

/* The source fails at pfn 3001 (mid-batch, mid-cycle): every page before
 * it is written, as in the serial loop, and the error is the source's. */
static void test_thread_writer_source_error(void)
{
	struct result r;
	uint64_t before = 0;

	for (uint64_t pfn = 0; pfn < 3001; pfn++)
		before += pfn % 97 != 50 && pfn % 7 != 3;
	same_for_all(MDF_CODEC_LZO, 1, 3001, 0, MDF_ERR_IO);
	T_ASSERT(write_one(MDF_CODEC_LZO, 1, 2, 3001, 0, &r));
	free(r.file);
	T_EQ_STR(r.msg, "fake: cannot read pfn 0xbb9");
	T_EQ_U64(r.stats.pages, before);
}

/* The sink fills up in the middle of the data: same incomplete dump. */
static void test_thread_writer_full_disk(void)
{
	same_for_all(MDF_CODEC_ZLIB, 0, UINT64_MAX, 2 << 20, MDF_ERR_NOSPC);
}

static void test_thread_writer_too_many_threads(void)
{
	struct result r;

	T_ASSERT(write_one(MDF_CODEC_LZO, 0, WORKERS_MAX_THREADS + 1, UINT64_MAX, 0, &r));
	free(r.file);
	T_EQ_U64(r.st, MDF_ERR_ARG);
	T_ASSERT(strstr(r.msg, "compression threads") != NULL);
}

/*
 * A dump of a machine of the other byte order (s390x filtered on x86_64,
 * or the reverse): the same file but for the headers and descriptors,
 * which are in that machine's order; and the reader takes it back.
 */
static void test_writer_other_byte_order(void)
{
	struct result nat, oth;
	struct disk_dump_header h;
	struct kdump_sub_header s;
	uint64_t off_desc, ndesc = 0, off_bm2;
	struct page_desc *pd;
	char path[64];
	int fd;
	struct cache cache;
	struct cache_config cfg = { .nentries = 6 };
	struct diskdump_info di;
	struct mdf_err err;
	const unsigned char *page;
	struct fsrc fs = { .fail_pfn = UINT64_MAX };
	struct input_facts facts;

	T_ASSERT(write_order(MDF_CODEC_ZLIB, 1, 0, UINT64_MAX, 0, MDF_HOST_BIG_ENDIAN, &nat));
	T_ASSERT(write_order(MDF_CODEC_ZLIB, 1, 2, UINT64_MAX, 0, !MDF_HOST_BIG_ENDIAN, &oth));
	T_EQ_U64(nat.st, MDF_OK);
	T_EQ_U64(oth.st, MDF_OK);
	T_EQ_U64(oth.len, nat.len);
	T_ASSERT(memcmp(nat.file, oth.file, nat.len) != 0);
	/* header version 6, in the other order */
	T_EQ_U64(MDF_HOST_BIG_ENDIAN ? load_le32(oth.file + 8) : load_be32(oth.file + 8), 6);
	memcpy(&h, oth.file, sizeof(h));
	kdump_header_bswap(&h);
	memcpy(oth.file, &h, sizeof(h));
	memcpy(&s, oth.file + PS, sizeof(s));
	kdump_sub_header_bswap(&s);
	memcpy(oth.file + PS, &s, sizeof(s));
	off_bm2 = (1 + (uint64_t)h.sub_hdr_size + h.bitmap_blocks / 2) * PS;
	off_desc = (1 + (uint64_t)h.sub_hdr_size + h.bitmap_blocks) * PS;
	for (uint64_t i = 0; i < (uint64_t)h.bitmap_blocks / 2 * PS; i++)
		ndesc += (uint64_t)__builtin_popcount(oth.file[off_bm2 + i]);
	T_ASSERT(off_desc + ndesc * sizeof(*pd) <= oth.len);
	pd = malloc(ndesc * sizeof(*pd));
	T_ASSERT(pd != NULL);
	memcpy(pd, oth.file + off_desc, ndesc * sizeof(*pd));
	kdump_page_desc_bswap(pd, ndesc);
	memcpy(oth.file + off_desc, pd, ndesc * sizeof(*pd));
	free(pd);
	T_ASSERT(memcmp(nat.file, oth.file, nat.len) == 0);
	free(nat.file);
	free(oth.file);

	/* The reader: the other order's file reads as the native one. */
	T_ASSERT(write_order(MDF_CODEC_ZLIB, 1, 0, UINT64_MAX, 0, !MDF_HOST_BIG_ENDIAN, &oth));
	snprintf(path, sizeof(path), "/tmp/mdf-kwo.%ld", (long)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	T_ASSERT(fd >= 0);
	unlink(path);
	T_ASSERT(write(fd, oth.file, oth.len) == (ssize_t)oth.len);
	free(oth.file);
	T_EQ_U64(cache_init(&cache, fd, path, &cfg, &err), MDF_OK);
	T_EQ_U64(diskdump_open(&di, fd, path, &cache, &err), MDF_OK);
	T_ASSERT(di.swapped);
	diskdump_input_ops.facts(&di, &facts);
	T_ASSERT(facts.big_endian == !MDF_HOST_BIG_ENDIAN);
	T_EQ_U64(di.max_mapnr, MAXPFN);
	T_EQ_U64(di.dump_level, 1);
	for (uint64_t pfn = 100; pfn < 140; pfn++) {
		const unsigned char *want;

		if (pfn % 97 == 50 || pfn % 7 == 3 || pfn % 5 == 0)
			continue;  /* holes, not dumpable, zero (level 1) */
		T_EQ_U64(diskdump_get_page(&di, &cache, pfn, &page, &err), MDF_OK);
		T_EQ_U64(f_page(&fs, pfn, &want, &err), MDF_OK);
		T_ASSERT(memcmp(page, want, PS) == 0);
	}
	diskdump_close(&di);
	cache_release(&cache);
	close(fd);
}

int main(void)
{
	T_RUN(test_thread_writer_identical_lzo_d0);
	T_RUN(test_thread_writer_identical_zlib_d1);
	T_RUN(test_thread_writer_identical_none_d1);
	T_RUN(test_thread_writer_source_error);
	T_RUN(test_thread_writer_full_disk);
	T_RUN(test_thread_writer_too_many_threads);
	T_RUN(test_writer_other_byte_order);
	return t_done();
}
