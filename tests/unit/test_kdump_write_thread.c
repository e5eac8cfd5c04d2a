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

static bool write_one(enum mdf_codec codec, unsigned level, unsigned nthreads,
		      uint64_t fail_pfn, uint64_t limit, struct result *r)
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

int main(void)
{
	T_RUN(test_thread_writer_identical_lzo_d0);
	T_RUN(test_thread_writer_identical_zlib_d1);
	T_RUN(test_thread_writer_identical_none_d1);
	T_RUN(test_thread_writer_source_error);
	T_RUN(test_thread_writer_full_disk);
	T_RUN(test_thread_writer_too_many_threads);
	return t_done();
}
