/*
 * tests/unit/test_compress.c - the per-page codecs: round trips for every
 * codec built in, zlib bytes equal to the reference writer (libdeflate at
 * level 1 when built with it, else compress2() as makedumpfile) and read
 * by zlib's uncompress(), the "did not shrink" rule, decompression of bad
 * input, the "built without" stub, reuse.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>
#if HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "compress/compress.h"
#include "diskdump.h"
#include "tap.h"

#define PAGE 4096
#define BIG (2 * PAGE)   /* room above any codec's bound for one page */
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static const enum mdf_codec all_codecs[] = {
	MDF_CODEC_NONE, MDF_CODEC_ZLIB, MDF_CODEC_LZO, MDF_CODEC_SNAPPY, MDF_CODEC_ZSTD,
};
static const enum mdf_codec real_codecs[] = {
	MDF_CODEC_ZLIB, MDF_CODEC_LZO, MDF_CODEC_SNAPPY, MDF_CODEC_ZSTD,
};
static const uint32_t real_flags[] = {
	DUMP_DH_COMPRESSED_ZLIB, DUMP_DH_COMPRESSED_LZO,
	DUMP_DH_COMPRESSED_SNAPPY, DUMP_DH_COMPRESSED_ZSTD,
};

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic pages from a seed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

enum kind { K_ZERO, K_RANDOM, K_TEXT, K_INCOMPRESSIBLE, K_NKINDS };
static const char *const kind_names[] = { "zero", "random", "text", "incompressible" };

/* Fill one page: zero, random pointers (compressible),
 * English-like text, or uniformly random bytes (incompressible). */
static void fill(unsigned char *p, size_t len, enum kind k, uint64_t seed)
{
	static const char *const words[] = {
		"the ", "kernel ", "page ", "of ", "memory ", "dump ", "filter ",
		"crash ", "struct ", "task_struct ", "slab ", "\n", "0x", "ffff",
	};

	rng_state = seed * 2654435761u + 88172645463325252ULL;
	switch (k) {
	case K_ZERO:
		memset(p, 0, len);
		break;
	case K_RANDOM:
		/* random kernel direct-map pointers: compressible, not trivial */
		for (size_t i = 0; i + 8 <= len; i += 8) {
			uint64_t v = 0xffff888000000000ULL | (rng() >> 36);

			memcpy(p + i, &v, 8);
		}
		break;
	case K_TEXT:
		for (size_t i = 0; i < len;) {
			const char *w = words[rng() % ARRAY_SIZE(words)];

			for (; *w && i < len; w++)
				p[i++] = (unsigned char)*w;
		}
		break;
	default:
		for (size_t i = 0; i < len; i++)
			p[i] = (unsigned char)(rng() >> 56);
		break;
	}
}

static const char *codec_str(enum mdf_codec c)
{
	static const char *const n[] = { "none", "zlib", "lzo", "snappy", "zstd" };
	return n[c];
}

/* ---- registry ---------------------------------------------------------- */

static void availability(void)
{
	T_ASSERT(compress_available(MDF_CODEC_NONE));
	T_ASSERT(compress_available(MDF_CODEC_ZLIB));
	T_ASSERT(compress_available(MDF_CODEC_LZO));
	/* Built exactly when the Makefile compiled the optional file. */
	T_EQ_U64(compress_available(MDF_CODEC_ZSTD), HAVE_ZSTD);
	T_EQ_U64(compress_available(MDF_CODEC_SNAPPY), HAVE_SNAPPY);
	T_ASSERT(!compress_available((enum mdf_codec)99));
}

static void flag_names(void)
{
	T_EQ_STR(compress_flag_name(0), "raw");
	T_EQ_STR(compress_flag_name(DUMP_DH_COMPRESSED_ZLIB), "zlib");
	T_EQ_STR(compress_flag_name(DUMP_DH_COMPRESSED_LZO), "lzo");
	T_EQ_STR(compress_flag_name(DUMP_DH_COMPRESSED_SNAPPY), "snappy");
	T_EQ_STR(compress_flag_name(DUMP_DH_COMPRESSED_ZSTD), "zstd");
	T_EQ_STR(compress_flag_name(DUMP_DH_COMPRESSED_INCOMPLETE), "unknown");
	T_EQ_STR(compress_flag_name(0x3), "unknown");
}

static void flags_per_codec(void)
{
	static const uint32_t want[] = { 0, DUMP_DH_COMPRESSED_ZLIB, DUMP_DH_COMPRESSED_LZO,
					 DUMP_DH_COMPRESSED_SNAPPY, DUMP_DH_COMPRESSED_ZSTD };
	struct mdf_err err;

	for (size_t i = 0; i < ARRAY_SIZE(all_codecs); i++) {
		struct compressor c = { 0 };

		if (!compress_available(all_codecs[i]))
			continue;
		T_OK(compressor_init(&c, all_codecs[i], &err), &err);
		T_EQ_U64(compressor_flag(&c), want[all_codecs[i]]);
		compressor_release(&c);
		T_EQ_U64(compressor_flag(&c), 0);
	}
}

/* The stub: a codec whose file was not built says so, for both sides. */
static void missing_codecs(void)
{
	static const enum mdf_codec opt[] = { MDF_CODEC_ZSTD, MDF_CODEC_SNAPPY };
	static const uint32_t opt_flag[] = { DUMP_DH_COMPRESSED_ZSTD, DUMP_DH_COMPRESSED_SNAPPY };
	unsigned char page[PAGE], out[PAGE];
	int missing = 0;

	for (size_t i = 0; i < ARRAY_SIZE(opt); i++) {
		struct compressor c = { 0 };
		struct mdf_err err;
		char want[64];

		if (compress_available(opt[i]))
			continue;
		missing++;
		snprintf(want, sizeof(want), "built without %s", codec_str(opt[i]));
		mdf_err_clear(&err);
		T_EQ_U64(compressor_init(&c, opt[i], &err), MDF_ERR_NOTSUPP);
		T_EQ_STR(err.msg, want);
		T_ASSERT(c.ops == NULL && c.state == NULL);
		compressor_release(&c);

		memset(page, 1, sizeof(page));
		T_EQ_U64(decompress_page(opt_flag[i], page, 100, out, PAGE, &err),
			 MDF_ERR_NOTSUPP);
		snprintf(want, sizeof(want), "page compressed with %s: built without %s",
			 codec_str(opt[i]), codec_str(opt[i]));
		T_EQ_STR(err.msg, want);
	}
	if (!missing)
		t_skip("zstd and snappy both built in (the stub path is checked by "
		       "a HAVE_ZSTD=0 HAVE_SNAPPY=0 build)");
}

static void unknown_codec(void)
{
	struct compressor c = { 0 };
	struct mdf_err err;

	T_EQ_U64(compressor_init(&c, (enum mdf_codec)42, &err), MDF_ERR_ARG);
	T_EQ_STR(err.msg, "unknown compression codec 42");
	T_ASSERT(c.ops == NULL);
}

/* ---- round trips ------------------------------------------------------- */

static void round_trip(void)
{
	static unsigned char page[PAGE], comp[BIG], back[PAGE];
	struct mdf_err err;

	for (size_t i = 0; i < ARRAY_SIZE(all_codecs); i++) {
		struct compressor c = { 0 };

		if (!compress_available(all_codecs[i]))
			continue;
		T_OK(compressor_init(&c, all_codecs[i], &err), &err);
		for (int k = 0; k < K_NKINDS; k++) {
			size_t n = 0;
			char what[96];

			snprintf(what, sizeof(what), "%s, %s page", codec_str(all_codecs[i]),
				 kind_names[k]);
			fill(page, PAGE, (enum kind)k, (uint64_t)k + 1);
			T_OK(compressor_page(&c, page, PAGE, comp,
					     compressor_bound(&c, PAGE), &n, &err), &err);
			if (all_codecs[i] == MDF_CODEC_NONE || k == K_INCOMPRESSIBLE) {
				/* stored raw */
				if (n < PAGE) {
					t_fail(__FILE__, __LINE__, what);
					break;
				}
				continue;
			}
			if (n >= PAGE || n == 0) {
				t_fail(__FILE__, __LINE__, what);
				break;
			}
			memset(back, 0xaa, sizeof(back));
			if (decompress_page(compressor_flag(&c), comp, n, back, PAGE, &err) != MDF_OK ||
			    memcmp(back, page, PAGE) != 0) {
				t_fail(__FILE__, __LINE__, what);
				break;
			}
		}
		compressor_release(&c);
	}
}

/* Zero pages shrink a lot with every real codec (the writer's common case). */
static void zero_page_small(void)
{
	static unsigned char page[PAGE], comp[BIG];
	struct mdf_err err;

	memset(page, 0, sizeof(page));
	for (size_t i = 0; i < ARRAY_SIZE(real_codecs); i++) {
		struct compressor c = { 0 };
		size_t n = 0;

		if (!compress_available(real_codecs[i]))
			continue;
		T_OK(compressor_init(&c, real_codecs[i], &err), &err);
		T_OK(compressor_page(&c, page, PAGE, comp, sizeof(comp), &n, &err), &err);
		compressor_release(&c);
		T_ASSERT(n > 0 && n < 256);
	}
}

/* Zero pages are compressed once and the result reused: the bytes must
 * equal a fresh compressor's, page after page, between other pages, and
 * for another page size. */
static void zero_page_memo(void)
{
	static unsigned char zero[2 * PAGE], text[PAGE], first[2 * BIG], again[2 * BIG];
	struct mdf_err err;

	memset(zero, 0, sizeof(zero));
	fill(text, PAGE, K_TEXT, 3);
	for (size_t i = 0; i < ARRAY_SIZE(real_codecs); i++) {
		struct compressor c = { 0 }, fresh = { 0 };
		size_t n0 = 0, n = 0;

		if (!compress_available(real_codecs[i]))
			continue;
		T_OK(compressor_init(&fresh, real_codecs[i], &err), &err);
		T_OK(compressor_page(&fresh, zero, PAGE, first, sizeof(first), &n0, &err), &err);
		compressor_release(&fresh);
		T_OK(compressor_init(&c, real_codecs[i], &err), &err);
		for (int k = 0; k < 4; k++) {
			T_OK(compressor_page(&c, text, PAGE, again, sizeof(again), &n, &err), &err);
			memset(again, 0xa5, sizeof(again));
			T_OK(compressor_page(&c, zero, PAGE, again, sizeof(again), &n, &err), &err);
			T_EQ_U64(n, n0);
			T_ASSERT(memcmp(again, first, n) == 0);
		}
		T_ASSERT(c.zero_out != NULL && c.zero_len == PAGE);
		/* Another size: made again, and right. */
		T_OK(compressor_init(&fresh, real_codecs[i], &err), &err);
		T_OK(compressor_page(&fresh, zero, 2 * PAGE, first, sizeof(first), &n0, &err), &err);
		compressor_release(&fresh);
		T_OK(compressor_page(&c, zero, 2 * PAGE, again, sizeof(again), &n, &err), &err);
		T_EQ_U64(n, n0);
		T_ASSERT(memcmp(again, first, n) == 0 && c.zero_len == 2 * PAGE);
		/* Too little room for the worst case: no memo, the codec decides. */
		T_OK(compressor_page(&c, zero, PAGE, again, 8, &n, &err), &err);
		T_ASSERT(n == PAGE || n <= 8);
		compressor_release(&c);
		T_ASSERT(c.zero_out == NULL && c.ops == NULL);
	}
}

/* compressor_page_nonzero() gives compressor_page()'s bytes for a
 * non-zero page, and refuses an uninitialised compressor the same way. */
static void nonzero_entry_same_bytes(void)
{
	static unsigned char text[PAGE], a[2 * BIG], b[2 * BIG];
	struct compressor none = { 0 };
	struct mdf_err err;
	size_t na = 0, nb = 0;

	fill(text, PAGE, K_TEXT, 5);
	text[PAGE - 1] |= 1; /* non-zero even if fill() leaves zeros */
	for (size_t i = 0; i < ARRAY_SIZE(real_codecs); i++) {
		struct compressor c = { 0 };

		if (!compress_available(real_codecs[i]))
			continue;
		T_OK(compressor_init(&c, real_codecs[i], &err), &err);
		T_OK(compressor_page(&c, text, PAGE, a, sizeof(a), &na, &err), &err);
		T_OK(compressor_page_nonzero(&c, text, PAGE, b, sizeof(b), &nb, &err), &err);
		T_EQ_U64(na, nb);
		T_ASSERT(memcmp(a, b, na) == 0);
		compressor_release(&c);
	}
	T_EQ_U64(compressor_page_nonzero(&none, text, PAGE, b, sizeof(b), &nb, &err),
		 MDF_ERR_ARG);
}

static void raw_pages(void)
{
	static unsigned char page[PAGE], back[PAGE];
	struct mdf_err err;

	fill(page, PAGE, K_TEXT, 7);
	T_OK(decompress_page(0, page, PAGE, back, PAGE, &err), &err);
	T_ASSERT(memcmp(page, back, PAGE) == 0);
	T_EQ_U64(decompress_page(0, page, PAGE - 1, back, PAGE, &err), MDF_ERR_FORMAT);
	T_EQ_STR(err.msg, "raw page of 4095 bytes, expected 4096");
}

/* ---- exact bytes -------------------------------------------------------- */

/* What -c stores for one page, made from scratch each time: libdeflate's
 * zlib stream at level 1 when the build has it (compress_deflate.c), else
 * what makedumpfile's compress2(..., Z_BEST_SPEED) makes.  0: no room. */
static size_t ref_zlib(const unsigned char *page, unsigned char *out, size_t cap)
{
#if HAVE_LIBDEFLATE
	struct libdeflate_compressor *d = libdeflate_alloc_compressor(1);
	size_t n = d ? libdeflate_zlib_compress(d, page, PAGE, out, cap) : 0;

	libdeflate_free_compressor(d);
	return n;
#else
	uLongf rn = (uLongf)cap;

	return compress2(out, &rn, page, PAGE, Z_BEST_SPEED) == Z_OK ? rn : 0;
#endif
}

static size_t ref_zlib_bound(size_t len)
{
#if HAVE_LIBDEFLATE
	return libdeflate_zlib_compress_bound(NULL, len);
#else
	return compressBound((uLong)len);
#endif
}

/* One reused compressor gives the reference bytes for every page, and
 * zlib's uncompress() (what every reader calls) gives the page back. */
static void zlib_equals_reference(void)
{
	static unsigned char page[PAGE], ours[BIG], ref[BIG];
	struct compressor c = { 0 };
	struct mdf_err err;
	int pages = 0;

	T_OK(compressor_init(&c, MDF_CODEC_ZLIB, &err), &err);
	for (int round = 0; round < 3; round++) {
		for (int k = 0; k < K_NKINDS; k++) {
			size_t n = 0, rn;

			fill(page, PAGE, (enum kind)k, (uint64_t)(round * 10 + k));
			if (round == 2) /* half text, half zero */
				memset(page + PAGE / 2, 0, PAGE / 2);
			T_OK(compressor_page(&c, page, PAGE, ours, sizeof(ours), &n, &err), &err);
			rn = ref_zlib(page, ref, sizeof(ref));
			T_EQ_U64(n, rn);
			T_ASSERT(memcmp(ours, ref, n) == 0);
			if (n < PAGE) {
				static unsigned char back[PAGE];
				uLongf bn = sizeof(back);

				T_EQ_U64(uncompress(back, &bn, ours, (uLong)n), Z_OK);
				T_EQ_U64(bn, PAGE);
				T_ASSERT(memcmp(back, page, PAGE) == 0);
			}
			pages++;
		}
	}
	compressor_release(&c);
	T_EQ_U64(pages, 12);
}

/* An output that does not fit (zlib: the stream is left half done); the
 * next page must still come out exactly as the reference makes it. */
static void zlib_no_room_then_exact(void)
{
	static unsigned char page[PAGE], ours[BIG], ref[BIG];
	struct compressor c = { 0 };
	struct mdf_err err;
	size_t n = 0, rn;

	T_OK(compressor_init(&c, MDF_CODEC_ZLIB, &err), &err);
	fill(page, PAGE, K_TEXT, 3);
	T_OK(compressor_page(&c, page, PAGE, ours, 16, &n, &err), &err);
	T_EQ_U64(n, PAGE);
	T_OK(compressor_page(&c, page, PAGE, ours, 0, &n, &err), &err);
	T_EQ_U64(n, PAGE);
	T_OK(compressor_page(&c, page, PAGE, ours, sizeof(ours), &n, &err), &err);
	rn = ref_zlib(page, ref, sizeof(ref));
	T_EQ_U64(n, rn);
	T_ASSERT(memcmp(ours, ref, n) == 0);
	compressor_release(&c);
}

/* ---- did not shrink ----------------------------------------------------- */

static void did_not_shrink(void)
{
	static unsigned char page[PAGE], comp[BIG];
	struct mdf_err err;

	fill(page, PAGE, K_INCOMPRESSIBLE, 11);
	for (size_t i = 0; i < ARRAY_SIZE(all_codecs); i++) {
		struct compressor c = { 0 };
		size_t n = 0;

		if (!compress_available(all_codecs[i]))
			continue;
		T_OK(compressor_init(&c, all_codecs[i], &err), &err);
		/* enough room: the output is just larger than the page */
		T_OK(compressor_page(&c, page, PAGE, comp, compressor_bound(&c, PAGE), &n, &err), &err);
		T_ASSERT(n >= PAGE);
		T_ASSERT(n <= compressor_bound(&c, PAGE));
		/* room for exactly one page: "did not fit", reported as len */
		T_OK(compressor_page(&c, page, PAGE, comp, PAGE, &n, &err), &err);
		T_EQ_U64(n, PAGE);
		/* no room at all */
		T_OK(compressor_page(&c, page, PAGE, comp, 1, &n, &err), &err);
		T_EQ_U64(n, PAGE);
		compressor_release(&c);
	}
}

/* Compressible data with too small a buffer: raw, never an overflow. */
static void small_cap_no_overflow(void)
{
	static unsigned char page[PAGE], comp[BIG];
	struct mdf_err err;

	fill(page, PAGE, K_RANDOM, 5);
	for (size_t i = 0; i < ARRAY_SIZE(real_codecs); i++) {
		struct compressor c = { 0 };
		size_t n = 0;

		if (!compress_available(real_codecs[i]))
			continue;
		T_OK(compressor_init(&c, real_codecs[i], &err), &err);
		memset(comp, 0x5a, sizeof(comp));
		T_OK(compressor_page(&c, page, PAGE, comp, 64, &n, &err), &err);
		T_EQ_U64(n, PAGE);
		for (size_t j = 64; j < sizeof(comp); j++)
			T_EQ_U64(comp[j], 0x5a);
		compressor_release(&c);
	}
}

/* ---- bounds ------------------------------------------------------------- */

static void bounds(void)
{
	struct compressor c = { 0 };
	struct mdf_err err;

	T_EQ_U64(compressor_bound(&c, PAGE), 0); /* not initialised */
	T_OK(compressor_init(&c, MDF_CODEC_NONE, &err), &err);
	T_EQ_U64(compressor_bound(&c, PAGE), PAGE);
	compressor_release(&c);
	T_OK(compressor_init(&c, MDF_CODEC_ZLIB, &err), &err);
	T_EQ_U64(compressor_bound(&c, PAGE), ref_zlib_bound(PAGE));
	T_EQ_U64(compressor_bound(&c, 65536), ref_zlib_bound(65536));
	compressor_release(&c);
	T_OK(compressor_init(&c, MDF_CODEC_LZO, &err), &err);
	T_EQ_U64(compressor_bound(&c, PAGE), PAGE + PAGE / 16 + 64 + 3);
	T_EQ_U64(compressor_bound(&c, 65536), 65536 + 4096 + 67);
	compressor_release(&c);
	for (size_t i = 0; i < ARRAY_SIZE(real_codecs); i++) {
		if (!compress_available(real_codecs[i]))
			continue;
		T_OK(compressor_init(&c, real_codecs[i], &err), &err);
		T_ASSERT(compressor_bound(&c, PAGE) > PAGE);
		T_ASSERT(compressor_bound(&c, PAGE) < BIG);
		T_ASSERT(compressor_bound(&c, 65536) > 65536);
		compressor_release(&c);
	}
}

/* ---- decompression errors ------------------------------------------------- */

/* Compress a text page with @codec into @comp; returns its size or 0. */
static size_t make_page(enum mdf_codec codec, unsigned char *page,
			unsigned char *comp, size_t cap, size_t len)
{
	struct compressor c = { 0 };
	struct mdf_err err;
	size_t n = 0;

	fill(page, len, K_TEXT, 21);
	if (compressor_init(&c, codec, &err) != MDF_OK)
		return 0;
	if (compressor_page(&c, page, len, comp, cap, &n, &err) != MDF_OK)
		n = 0;
	compressor_release(&c);
	return n < len ? n : 0;
}

/* Decompress into a guarded buffer: @dst_len bytes then a canary. */
static enum mdf_status guarded(uint32_t flag, const void *src, size_t len,
			       size_t dst_len, struct mdf_err *err, bool *clobbered)
{
	static unsigned char dst[3 * PAGE];
	enum mdf_status st;

	memset(dst, 0xc3, sizeof(dst));
	st = decompress_page(flag, src, len, dst, dst_len, err);
	*clobbered = false;
	for (size_t i = dst_len; i < sizeof(dst); i++)
		if (dst[i] != 0xc3)
			*clobbered = true;
	return st;
}

static void decompress_errors(void)
{
	static unsigned char page[2 * PAGE], comp[3 * PAGE], junk[PAGE];
	struct mdf_err err;
	bool clob;

	fill(junk, sizeof(junk), K_INCOMPRESSIBLE, 99);
	for (size_t i = 0; i < ARRAY_SIZE(real_codecs); i++) {
		uint32_t f = real_flags[i];
		const char *name = codec_str(real_codecs[i]);
		size_t n, cut;
		char what[160];

		if (!compress_available(real_codecs[i]))
			continue;
		n = make_page(real_codecs[i], page, comp, sizeof(comp), PAGE);
		T_ASSERT(n > 16);

		/* good page decompresses */
		T_OK(guarded(f, comp, n, PAGE, &err, &clob), &err);
		T_ASSERT(!clob);

		/* every truncation fails cleanly */
		for (cut = 0; cut < n; cut += (cut < 32 || n - cut < 32) ? 1 : 37) {
			enum mdf_status st = guarded(f, comp, cut, PAGE, &err, &clob);

			snprintf(what, sizeof(what), "%s cut to %zu of %zu: %.100s", name, cut, n,
				 st == MDF_OK ? "accepted" : err.msg);
			if (st != MDF_ERR_FORMAT || clob || strncmp(err.msg, name, strlen(name)) != 0) {
				t_fail(__FILE__, __LINE__, what);
				return;
			}
		}

		/* garbage */
		T_EQ_U64(guarded(f, junk, sizeof(junk), PAGE, &err, &clob), MDF_ERR_FORMAT);
		T_ASSERT(!clob);
		T_ASSERT(strncmp(err.msg, name, strlen(name)) == 0);
		T_EQ_U64(guarded(f, junk, 0, PAGE, &err, &clob), MDF_ERR_FORMAT);

		/* the page is larger than expected: never written past dst_len */
		T_EQ_U64(guarded(f, comp, n, PAGE / 2, &err, &clob), MDF_ERR_FORMAT);
		T_ASSERT(!clob);
		T_ASSERT(strstr(err.msg, "2048") != NULL);

		/* the page is smaller than expected */
		T_EQ_U64(guarded(f, comp, n, 2 * PAGE, &err, &clob), MDF_ERR_FORMAT);
		T_ASSERT(!clob);
		snprintf(what, sizeof(what), "%s: decompressed to 4096 bytes, expected 8192", name);
		T_EQ_STR(err.msg, what);
	}
}

static void decompress_error_texts(void)
{
	static unsigned char page[PAGE], comp[BIG];
	struct mdf_err err;
	bool clob;
	size_t n;

	T_EQ_U64(guarded(DUMP_DH_COMPRESSED_INCOMPLETE, page, 10, PAGE, &err, &clob),
		 MDF_ERR_FORMAT);
	T_EQ_STR(err.msg, "unknown page flags 0x8");
	T_EQ_U64(guarded(0x3, page, 10, PAGE, &err, &clob), MDF_ERR_FORMAT);
	T_EQ_STR(err.msg, "unknown page flags 0x3");

	n = make_page(MDF_CODEC_ZLIB, page, comp, sizeof(comp), PAGE);
	T_ASSERT(n > 16);
	T_EQ_U64(guarded(DUMP_DH_COMPRESSED_ZLIB, comp, n, PAGE / 2, &err, &clob),
		 MDF_ERR_FORMAT);
	T_EQ_STR(err.msg, "zlib: decompresses to more than 2048 bytes");
	comp[n - 1] ^= 0x01; /* the Adler-32 at the end */
	T_EQ_U64(guarded(DUMP_DH_COMPRESSED_ZLIB, comp, n, PAGE, &err, &clob),
		 MDF_ERR_FORMAT);
	T_ASSERT(!clob);
	T_EQ_STR(err.msg, "zlib: data error");
	comp[n - 1] ^= 0x01;
	comp[0] ^= 0xff; /* the RFC 1950 header */
	T_EQ_U64(guarded(DUMP_DH_COMPRESSED_ZLIB, comp, n, PAGE, &err, &clob),
		 MDF_ERR_FORMAT);
	T_EQ_STR(err.msg, "zlib: data error");
	T_EQ_U64(guarded(DUMP_DH_COMPRESSED_ZLIB, comp, 1, PAGE, &err, &clob),
		 MDF_ERR_FORMAT);
	T_EQ_STR(err.msg, "zlib: data error");

	n = make_page(MDF_CODEC_LZO, page, comp, sizeof(comp), PAGE);
	T_ASSERT(n > 16);
	T_EQ_U64(guarded(DUMP_DH_COMPRESSED_LZO, comp, n - 1, PAGE, &err, &clob),
		 MDF_ERR_FORMAT);
	T_EQ_STR(err.msg, "lzo: truncated input");
	T_EQ_U64(guarded(DUMP_DH_COMPRESSED_LZO, comp, n, PAGE - 1, &err, &clob),
		 MDF_ERR_FORMAT);
	T_EQ_STR(err.msg, "lzo: decompresses to more than 4095 bytes");
	comp[n] = 0;
	T_EQ_U64(guarded(DUMP_DH_COMPRESSED_LZO, comp, n + 1, PAGE, &err, &clob),
		 MDF_ERR_FORMAT);
	T_EQ_STR(err.msg, "lzo: trailing bytes after the end of the data");

	if (compress_available(MDF_CODEC_ZSTD)) {
		n = make_page(MDF_CODEC_ZSTD, page, comp, sizeof(comp), PAGE);
		T_ASSERT(n > 16);
		T_EQ_U64(guarded(DUMP_DH_COMPRESSED_ZSTD, comp, n, 1000, &err, &clob),
			 MDF_ERR_FORMAT);
		T_EQ_STR(err.msg, "zstd: decompressed to 4096 bytes, expected 1000");
		T_EQ_U64(guarded(DUMP_DH_COMPRESSED_ZSTD, page, 64, PAGE, &err, &clob),
			 MDF_ERR_FORMAT);
		T_EQ_STR(err.msg, "zstd: not a zstd frame");
	}
	if (compress_available(MDF_CODEC_SNAPPY)) {
		n = make_page(MDF_CODEC_SNAPPY, page, comp, sizeof(comp), PAGE);
		T_ASSERT(n > 16);
		T_EQ_U64(guarded(DUMP_DH_COMPRESSED_SNAPPY, comp, n, 1000, &err, &clob),
			 MDF_ERR_FORMAT);
		T_EQ_STR(err.msg, "snappy: decompressed to 4096 bytes, expected 1000");
		memset(comp, 0xff, 8);
		T_EQ_U64(guarded(DUMP_DH_COMPRESSED_SNAPPY, comp, 8, PAGE, &err, &clob),
			 MDF_ERR_FORMAT);
		T_EQ_STR(err.msg, "snappy: bad length header");
	}
}

/* Random bytes, random lengths, every codec: fail or succeed, never
 * overflow (a small in-process fuzz; the fuzz target goes further). */
static void decompress_random_inputs(void)
{
	static unsigned char src[512];
	struct mdf_err err;
	bool clob;

	for (int iter = 0; iter < 2000; iter++) {
		uint32_t f = real_flags[iter % ARRAY_SIZE(real_flags)];
		size_t len = (size_t)(iter * 7) % sizeof(src);
		enum mdf_status st;

		fill(src, sizeof(src), (iter & 1) ? K_INCOMPRESSIBLE : K_RANDOM, (uint64_t)iter);
		st = guarded(f, src, len, PAGE, &err, &clob);
		T_ASSERT(!clob);
		T_ASSERT(st == MDF_ERR_FORMAT || st == MDF_ERR_NOTSUPP || st == MDF_OK);
		T_ASSERT(st == MDF_OK || (err.msg[0] && !strchr(err.msg, '\n')));
	}
}

/* ---- lifetime ----------------------------------------------------------- */

static void release_twice(void)
{
	struct compressor c = { 0 };
	struct mdf_err err;

	compressor_release(&c); /* zeroed: nothing to free */
	for (size_t i = 0; i < ARRAY_SIZE(all_codecs); i++) {
		if (!compress_available(all_codecs[i]))
			continue;
		T_OK(compressor_init(&c, all_codecs[i], &err), &err);
		compressor_release(&c);
		T_ASSERT(c.ops == NULL && c.state == NULL);
		compressor_release(&c);
	}
}

static void use_after_release(void)
{
	static unsigned char page[PAGE], comp[BIG];
	struct compressor c = { 0 };
	struct mdf_err err;
	size_t n = 0;

	T_OK(compressor_init(&c, MDF_CODEC_ZLIB, &err), &err);
	compressor_release(&c);
	T_EQ_U64(compressor_page(&c, page, PAGE, comp, sizeof(comp), &n, &err), MDF_ERR_ARG);
	T_EQ_STR(err.msg, "compressor not initialised");
	T_EQ_U64(compressor_flag(&c), 0);
}

/* One compressor per codec, 1000 varied pages each (run under valgrind:
 * no leak, no growth). */
static void reuse_1000_pages(void)
{
	static unsigned char page[PAGE], comp[BIG], back[PAGE];
	struct mdf_err err;

	for (size_t i = 0; i < ARRAY_SIZE(real_codecs); i++) {
		struct compressor c = { 0 };
		unsigned shrunk = 0;

		if (!compress_available(real_codecs[i]))
			continue;
		T_OK(compressor_init(&c, real_codecs[i], &err), &err);
		for (unsigned p = 0; p < 1000; p++) {
			size_t n = 0;

			fill(page, PAGE, (enum kind)(p % K_NKINDS), p);
			T_OK(compressor_page(&c, page, PAGE, comp, compressor_bound(&c, PAGE),
					     &n, &err), &err);
			if (n >= PAGE)
				continue;
			shrunk++;
			T_OK(decompress_page(compressor_flag(&c), comp, n, back, PAGE, &err), &err);
			T_ASSERT(memcmp(back, page, PAGE) == 0);
		}
		compressor_release(&c);
		T_EQ_U64(shrunk, 750); /* all but the incompressible quarter */
	}
}

/* Page sizes other than 4096 (arm64 64 KiB pages). */
static void other_page_sizes(void)
{
	static unsigned char page[65536], comp[2 * 65536], back[65536];
	static const size_t sizes[] = { 512, 16384, 65536 };
	struct mdf_err err;

	for (size_t i = 0; i < ARRAY_SIZE(real_codecs); i++) {
		struct compressor c = { 0 };

		if (!compress_available(real_codecs[i]))
			continue;
		T_OK(compressor_init(&c, real_codecs[i], &err), &err);
		for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
			size_t n = 0;

			T_ASSERT(compressor_bound(&c, sizes[s]) <= sizeof(comp));
			fill(page, sizes[s], K_TEXT, s);
			T_OK(compressor_page(&c, page, sizes[s], comp,
					     compressor_bound(&c, sizes[s]), &n, &err), &err);
			T_ASSERT(n < sizes[s]);
			T_OK(decompress_page(compressor_flag(&c), comp, n, back, sizes[s], &err), &err);
			T_ASSERT(memcmp(back, page, sizes[s]) == 0);
		}
		compressor_release(&c);
	}
}

int main(void)
{
	T_RUN(availability);
	T_RUN(flag_names);
	T_RUN(flags_per_codec);
	T_RUN(missing_codecs);
	T_RUN(unknown_codec);
	T_RUN(round_trip);
	T_RUN(zero_page_small);
	T_RUN(zero_page_memo);
	T_RUN(nonzero_entry_same_bytes);
	T_RUN(raw_pages);
	T_RUN(zlib_equals_reference);
	T_RUN(zlib_no_room_then_exact);
	T_RUN(did_not_shrink);
	T_RUN(small_cap_no_overflow);
	T_RUN(bounds);
	T_RUN(decompress_errors);
	T_RUN(decompress_error_texts);
	T_RUN(decompress_random_inputs);
	T_RUN(release_twice);
	T_RUN(use_after_release);
	T_RUN(reuse_1000_pages);
	T_RUN(other_page_sizes);
	return t_done();
}
