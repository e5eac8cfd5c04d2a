/*
 * tests/tools/codecfloor.c - the least time one thread needs to read and
 * compress the pages a dump stores, with byte-identical output.
 *
 * usage: codecfloor lzo|zlib|zstd DUMPFILE VMCORE [OUTFILE]
 *
 * DUMPFILE is a kdump-compressed dump made from the ELF VMCORE; its
 * bitmap says which pages are stored.  Each of those pages is taken from
 * VMCORE through the same mmap windows the writer uses (no copy) and given
 * to compressor_page() (compress.c: the library calls makedumpfile 1.7.2
 * makes, set up once, zero pages compressed once).  Only that call is
 * timed, so the time is the library plus the first touch of the page
 * bytes: what any single-threaded writer pays before it writes anything.
 * Prints "pages N seconds S".
 *
 * With OUTFILE, each page's stored bytes (compressed, or the page when
 * that is not smaller) also go to OUTFILE through the writer's own sink
 * (output.h, OUT_FILE_BUF pieces), and the line gains "write W": the
 * seconds spent in it.  OUTFILE is removed at the end.
 *
 * `make bench` puts it next to upstream's wall time: a one-thread target
 * below S / upstream's wall cannot be met.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "compress/compress.h"
#include "diskdump_read.h"
#include "elf_info.h"
#include "write/output.h"
#include "readmem.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fail(const char *what, const struct mdf_err *err)
{
	fprintf(stderr, "codecfloor: %s: %s\n", what, err->msg);
	return 1;
}

int main(int argc, char **argv)
{
	struct cache_config cc = { .policy = CACHE_MMAP_TRY };
	struct mdf_err err = { 0 };
	struct diskdump_info di;
	struct elf_info ei;
	struct cache dc, vc;
	struct readmem rm;
	struct compressor comp = { 0 };
	enum mdf_codec mc;
	struct out_sink sink;
	bool writing = argc == 5;
	unsigned char *out, *scratch;
	size_t B, cap;
	double t = 0, tw = 0;
	uint64_t pages = 0, woff = 0;
	int dfd, vfd;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: codecfloor lzo|zlib|zstd DUMPFILE VMCORE [OUTFILE]\n");
		return 2;
	}
	if (writing && out_open_file(&sink, argv[4], true, 0, OUT_FILE_BUF, &err) != MDF_OK)
		return fail(argv[4], &err);
	if (strcmp(argv[1], "lzo") == 0) {
		mc = MDF_CODEC_LZO;
	} else if (strcmp(argv[1], "zlib") == 0) {
		mc = MDF_CODEC_ZLIB;
	} else if (strcmp(argv[1], "zstd") == 0) {
		mc = MDF_CODEC_ZSTD;
	} else {
		fprintf(stderr, "codecfloor: unknown codec %s\n", argv[1]);
		return 2;
	}
	memset(&di, 0, sizeof(di));
	memset(&ei, 0, sizeof(ei));
	memset(&dc, 0, sizeof(dc));
	memset(&vc, 0, sizeof(vc));
	dfd = open(argv[2], O_RDONLY);
	vfd = open(argv[3], O_RDONLY);
	if (dfd < 0 || vfd < 0) {
		perror(dfd < 0 ? argv[2] : argv[3]);
		return 1;
	}
	if (cache_init(&dc, dfd, argv[2], &cc, &err) != MDF_OK ||
	    diskdump_open(&di, dfd, argv[2], &dc, &err) != MDF_OK)
		return fail(argv[2], &err);
	if (elf_info_open(&ei, vfd, argv[3], &err) != MDF_OK ||
	    cache_init(&vc, vfd, argv[3], &cc, &err) != MDF_OK)
		return fail(argv[3], &err);
	if (compressor_init(&comp, mc, &err) != MDF_OK)
		return fail(argv[1], &err);
	B = di.block_size;
	readmem_init(&rm, &ei, &vc, NULL, B);
	cap = compressor_bound(&comp, B);
	out = malloc(cap);
	scratch = malloc(B);
	if (!out || !scratch)
		return 1;
	for (uint64_t pfn = 0; pfn < di.max_mapnr; pfn++) {
		const unsigned char *p;
		size_t n;
		double t0;
		enum mdf_status st;

		if (!diskdump_dumpable(&di, pfn))
			continue;
		if (readmem_page(&rm, pfn, scratch, &p, &err) != MDF_OK)
			return fail(argv[3], &err);
		t0 = now();
		st = compressor_page(&comp, p, B, out, cap, &n, &err);
		t += now() - t0;
		if (st != MDF_OK)
			return fail(argv[1], &err);
		pages++;
		if (writing) {
			size_t len = n < B ? n : B;

			t0 = now();
			st = out_write(&sink, woff, n < B ? out : p, len, &err);
			tw += now() - t0;
			if (st != MDF_OK)
				return fail(argv[4], &err);
			woff += len;
		}
	}
	if (writing) {
		double t0 = now();
		enum mdf_status st = out_close(&sink, &err);

		tw += now() - t0;
		unlink(argv[4]);
		if (st != MDF_OK)
			return fail(argv[4], &err);
		printf("pages %llu seconds %.3f write %.3f\n",
		       (unsigned long long)pages, t, tw);
	} else {
		printf("pages %llu seconds %.3f\n", (unsigned long long)pages, t);
	}
	compressor_release(&comp);
	free(out);
	free(scratch);
	diskdump_close(&di);
	elf_info_close(&ei);
	cache_release(&dc);
	cache_release(&vc);
	close(dfd);
	close(vfd);
	return 0;
}
