/*
 * tests/tools/codecfloor.c - how long the compression library alone takes
 * for the pages of a dump, called the way makedumpfile 1.7.2 calls it.
 *
 * usage: codecfloor lzo|zlib|zstd DUMPFILE
 *
 * DUMPFILE is a kdump-compressed dump (any codec); every page it stores is
 * decompressed (not timed) and then compressed twice more, each timed:
 * with the library call makedumpfile 1.7.2 makes (lzo1x_1_compress,
 * compress2(..., Z_BEST_SPEED), ZSTD_compressCCtx(..., 1)), and with our
 * compressor_page() (compress.c: the same bytes, with the library set up
 * once and zero pages compressed once).  Prints
 * "pages N upstream_calls S1 our_calls S2".
 *
 * `make bench` uses it to show the floor a single-threaded writer with
 * byte-identical output cannot go below (S2), next to upstream's wall
 * time, which is S1 plus everything else it does.
 */
#include <fcntl.h>
#include <lzo/lzo1x.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#if HAVE_ZSTD
#include <zstd.h>
#endif

#include "cache.h"
#include "compress.h"
#include "diskdump_read.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct cache_config cc = { .policy = CACHE_MMAP_TRY };
	struct mdf_err err = { 0 };
	struct diskdump_info di;
	struct cache c;
	const char *codec, *path;
	unsigned char *wrk, *out;
	size_t B, cap;
	double t = 0, tours = 0;
	struct compressor comp = { 0 };
	enum mdf_codec mc;
	uint64_t pages = 0;
	int fd;
#if HAVE_ZSTD
	ZSTD_CCtx *zc = ZSTD_createCCtx();
#endif

	if (argc != 3) {
		fprintf(stderr, "usage: codecfloor lzo|zlib|zstd DUMPFILE\n");
		return 2;
	}
	codec = argv[1];
	path = argv[2];
	memset(&di, 0, sizeof(di));
	memset(&c, 0, sizeof(c));
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	if (cache_init(&c, fd, path, &cc, &err) != MDF_OK ||
	    diskdump_open(&di, fd, path, &c, &err) != MDF_OK) {
		fprintf(stderr, "codecfloor: %s\n", err.msg);
		return 1;
	}
	if (lzo_init() != LZO_E_OK)
		return 1;
	if (strcmp(codec, "lzo") == 0) {
		mc = MDF_CODEC_LZO;
	} else if (strcmp(codec, "zlib") == 0) {
		mc = MDF_CODEC_ZLIB;
	} else if (strcmp(codec, "zstd") == 0) {
		mc = MDF_CODEC_ZSTD;
	} else {
		fprintf(stderr, "codecfloor: unknown codec %s\n", codec);
		return 2;
	}
	if (compressor_init(&comp, mc, &err) != MDF_OK) {
		fprintf(stderr, "codecfloor: %s\n", err.msg);
		return 1;
	}
	B = di.block_size;
	cap = B + B / 16 + 64 + 3 + compressBound((uLong)B);
	wrk = malloc(LZO1X_1_MEM_COMPRESS);
	out = malloc(cap);
	if (!wrk || !out)
		return 1;
	for (uint64_t pfn = 0; pfn < di.max_mapnr; pfn++) {
		const unsigned char *p;
		double t0;
		int ok = 1;

		if (!diskdump_dumpable(&di, pfn))
			continue;
		if (diskdump_get_page(&di, &c, pfn, &p, &err) != MDF_OK) {
			fprintf(stderr, "codecfloor: %s\n", err.msg);
			return 1;
		}
		t0 = now();
		if (strcmp(codec, "lzo") == 0) {
			lzo_uint n = cap;

			ok = lzo1x_1_compress(p, B, out, &n, wrk) == LZO_E_OK;
		} else if (strcmp(codec, "zlib") == 0) {
			uLongf n = (uLongf)cap;

			ok = compress2(out, &n, p, (uLong)B, Z_BEST_SPEED) == Z_OK;
#if HAVE_ZSTD
		} else if (strcmp(codec, "zstd") == 0) {
			ok = zc && !ZSTD_isError(ZSTD_compressCCtx(zc, out, cap, p, B, 1));
#endif
		} else {
			fprintf(stderr, "codecfloor: unknown codec %s\n", codec);
			return 2;
		}
		t += now() - t0;
		if (ok) {
			size_t n;

			t0 = now();
			ok = compressor_page(&comp, p, B, out, cap, &n, &err) == MDF_OK;
			tours += now() - t0;
		}
		if (!ok) {
			fprintf(stderr, "codecfloor: %s failed at pfn 0x%llx\n", codec,
				(unsigned long long)pfn);
			return 1;
		}
		pages++;
	}
	printf("pages %llu upstream_calls %.3f our_calls %.3f\n",
	       (unsigned long long)pages, t, tours);
	compressor_release(&comp);
	free(wrk);
	free(out);
#if HAVE_ZSTD
	ZSTD_freeCCtx(zc);
#endif
	diskdump_close(&di);
	cache_release(&c);
	close(fd);
	return 0;
}
