/*
 * compress.h - per-page codecs for the kdump-compressed format.
 *
 * Writer side: one struct compressor per thread.  It owns its zlib stream,
 * zstd context or lzo work memory, set up once by compressor_init() and
 * reused for every page (per-page library setup costs as much as the
 * compression of a mostly-zero page).  The bytes written equal those of
 * makedumpfile 1.7.2 for the same library versions, except for -c built
 * with libdeflate:
 *
 *   -c  zlib format (RFC 1950), level 1: libdeflate_zlib_compress() when
 *       built with libdeflate (deflate.c: other bytes, the same
 *       format, 2.4 times as fast), else zlib with windowBits 15, memLevel
 *       8 (what compress2(..., Z_BEST_SPEED) produces, as makedumpfile)
 *   -l  lzo1x_1_compress
 *   -p  raw snappy (snappy_compress, no framing)
 *   -z  ZSTD_compressCCtx(..., level 1), one frame with its content size
 *
 * A page is stored compressed only when the result is strictly smaller
 * than the page; otherwise raw with page_desc.flags 0.
 *
 * Reader side: decompress_page() needs no state; it picks the codec by
 * page_desc.flags and insists on exactly one page of output.
 *
 * zlib and lzo are always built (compress.c).  zstd, snappy and the
 * libdeflate writer of zlib streams live in optional files
 * (zstd.c, snappy.c, deflate.c in compress/) that the
 * Makefile compiles only when pkg-config finds the library (HAVE_ZSTD=1,
 * HAVE_SNAPPY=1, HAVE_LIBDEFLATE=1).  When a file is left out, the stub
 * below makes its ops NULL and every request for zstd or snappy fails with
 * MDF_ERR_NOTSUPP "built without zstd" (zlib falls back to zlib's deflate);
 * no other code tests HAVE_ZSTD/HAVE_SNAPPY/HAVE_LIBDEFLATE.
 */
#ifndef MDF_COMPRESS_H
#define MDF_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* The codec of a kdump-compressed dump (the option that picks it). */
enum mdf_codec {
	MDF_CODEC_NONE,
	MDF_CODEC_ZLIB,   /* -c */
	MDF_CODEC_LZO,    /* -l */
	MDF_CODEC_SNAPPY, /* -p */
	MDF_CODEC_ZSTD,   /* -z */
};

struct compressor;

/**
 * One codec.  Filled in by compress.c (none, zlib, lzo) and by the
 * optional files; the rest of the program uses the functions below.
 */
struct compress_ops {
	const char *name;                   /* "zlib", as in messages */
	enum mdf_codec codec;
	uint32_t flag;                      /* DUMP_DH_COMPRESSED_*, 0 for none */
	/* Optional: allocate c->state.  On failure leave c->state NULL. */
	enum mdf_status (*init)(struct compressor *c, struct mdf_err *err);
	/* Optional: free c->state (never called with a failed init). */
	void (*release)(struct compressor *c);
	/* Output room that always holds the compressed form of @len bytes. */
	size_t (*bound)(size_t len);
	/* Compress; *out_len >= len means "did not shrink" (also when the
	 * output did not fit in @cap). */
	enum mdf_status (*compress)(struct compressor *c, const void *src,
				    size_t len, void *dst, size_t cap,
				    size_t *out_len, struct mdf_err *err);
	/* Decompress into at most @dst_len bytes; *out_len = bytes made.
	 * MDF_ERR_FORMAT for bad data, never writes past @dst_len. */
	enum mdf_status (*decompress)(const void *src, size_t len, void *dst,
				      size_t dst_len, size_t *out_len,
				      struct mdf_err *err);
};

/**
 * A codec plus its working memory: one per thread, never shared.
 * Zero-initialise it ({ 0 }) before use so compressor_release() is safe on
 * every path.
 */
struct compressor {
	const struct compress_ops *ops;     /* NULL: not initialised */
	void *state;                        /* the codec's own */
	/* The codec's output for an all-zero page of zero_len bytes, made on
	 * the first zero page (codecs are deterministic, so reusing it gives
	 * the same bytes); zero_out NULL: not made yet. */
	unsigned char *zero_out;
	size_t zero_len, zero_out_len;
};

/*
 * Optional codecs (the header stub): the real ops when their file is
 * built, else NULL.  Only the registry in compress.c reads these.
 */
#if HAVE_ZSTD
extern const struct compress_ops compress_zstd_ops;
#define COMPRESS_ZSTD_OPS (&compress_zstd_ops)
#else
#define COMPRESS_ZSTD_OPS NULL
#endif
#if HAVE_SNAPPY
extern const struct compress_ops compress_snappy_ops;
#define COMPRESS_SNAPPY_OPS (&compress_snappy_ops)
#else
#define COMPRESS_SNAPPY_OPS NULL
#endif
#if HAVE_LIBDEFLATE
extern const struct compress_ops compress_deflate_ops;
#define COMPRESS_DEFLATE_OPS (&compress_deflate_ops)
#else
#define COMPRESS_DEFLATE_OPS NULL
#endif

/**
 * Set up @c for @codec (MDF_CODEC_NONE gives a compressor that never
 * shrinks anything, so every page is stored raw).
 * Errors: MDF_ERR_NOTSUPP "built without zstd" / "built without snappy"
 * when that codec's file was not compiled in; MDF_ERR_ARG for a codec
 * value outside enum mdf_codec; MDF_ERR_NOMEM / MDF_ERR_INTERNAL when the
 * library cannot set up.  On failure @c is left zeroed.
 */
enum mdf_status compressor_init(struct compressor *c, enum mdf_codec codec,
				struct mdf_err *err) MDF_MUST_CHECK;

/** Free the codec state and zero @c; safe on a zeroed struct and twice. */
void compressor_release(struct compressor *c);

/**
 * Output buffer size with which compressor_page() can always store the
 * compressed form of @len bytes (zlib: compressBound(); lzo:
 * len + len/16 + 67; none: len).  0 if @c is not initialised.
 */
size_t compressor_bound(const struct compressor *c, size_t len);

/**
 * page_desc.flags for pages this codec stored compressed
 * (DUMP_DH_COMPRESSED_*), and the codec bit of disk_dump_header.status;
 * 0 for none or an uninitialised @c.
 */
uint32_t compressor_flag(const struct compressor *c);

/**
 * Compress one page of @len bytes from @src into @dst (@cap bytes; give
 * compressor_bound() to keep every page that shrinks).
 *
 * An all-zero page is compressed once and its output reused (at -d 0
 * about half the pages of a typical dump are zero, and the codec's output
 * is the same every time).
 *
 * Returns MDF_OK with *@out_len = the compressed size, also when the data
 * did not shrink: then *@out_len >= @len (exactly @len when the output
 * did not fit in @cap) and the writer stores the page raw (makedumpfile's
 * rule: compressed only when strictly smaller).  Library failures are
 * MDF_ERR_INTERNAL with the library's message; MDF_ERR_ARG when @c is not
 * initialised.
 */
enum mdf_status compressor_page(struct compressor *c, const void *src,
				size_t len, void *dst, size_t cap,
				size_t *out_len, struct mdf_err *err) MDF_MUST_CHECK;

/**
 * compressor_page() for a page the caller has already found not all-zero
 * (the writer checks every page at -d 1 and above): the same result
 * without looking for zeros again.
 */
enum mdf_status compressor_page_nonzero(struct compressor *c, const void *src,
					size_t len, void *dst, size_t cap,
					size_t *out_len,
					struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Decompress a page stored with page_desc.flags @flag (0 = raw copy) from
 * @src/@len into exactly @dst_len bytes at @dst.  Never writes past
 * @dst_len and never reads past @len, whatever the input.
 * Errors (MDF_ERR_FORMAT): "zlib: data error", "lzo: truncated input",
 * "zstd: decompressed to 2048 bytes, expected 4096", "unknown page flags
 * 0x8", ...; MDF_ERR_NOTSUPP "page compressed with zstd: built without
 * zstd" when the codec is known but not built in.
 */
enum mdf_status decompress_page(uint32_t flag, const void *src, size_t len,
				void *dst, size_t dst_len,
				struct mdf_err *err) MDF_MUST_CHECK;

/** "raw", "zlib", "lzo", "snappy", "zstd" or "unknown" for a page flag. */
const char *compress_flag_name(uint32_t flag);

/** True when @codec can be used (none, zlib, lzo always), for -v. */
bool compress_available(enum mdf_codec codec);

#endif
