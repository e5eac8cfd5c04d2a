/*
 * compress.h - per-page codecs for the kdump-compressed format.
 *
 * One struct compressor per thread: it owns its stream, context or work
 * memory, set up once and reused for every page (makedumpfile once spent
 * a third of its time in per-page zlib setup).  zlib and lzo are always
 * built; zstd and snappy live in optional files (compress_zstd.c,
 * compress_snappy.c) and, when their library is absent, asking for them
 * fails with "built without zstd".
 */
#ifndef MDF_COMPRESS_H
#define MDF_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "opts.h"

struct compressor;

struct compress_ops {
	const char *name;
	enum mdf_codec codec;
	uint32_t flag;                      /* DUMP_DH_COMPRESSED_* */
	enum mdf_status (*init)(struct compressor *c, struct mdf_err *err);
	void (*release)(struct compressor *c);
	size_t (*bound)(size_t len);
	/* *out_len >= len means "did not shrink" */
	enum mdf_status (*compress)(struct compressor *c, const void *src,
				    size_t len, void *dst, size_t cap,
				    size_t *out_len, struct mdf_err *err);
	enum mdf_status (*decompress)(const void *src, size_t len, void *dst,
				      size_t dst_len, size_t *out_len,
				      struct mdf_err *err);
};

struct compressor {
	const struct compress_ops *ops;
	void *state;
};

/* Optional codecs: the real ops when built in, else NULL (header stub). */
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

/** Set up @c for @codec; MDF_ERR_NOTSUPP "built without zstd" when the
 *  codec's library was not found at build time. */
enum mdf_status compressor_init(struct compressor *c, enum mdf_codec codec,
				struct mdf_err *err) MDF_MUST_CHECK;
/** Free the codec state; safe on a zeroed struct and twice. */
void compressor_release(struct compressor *c);

/** Output room needed to compress @len bytes. */
size_t compressor_bound(const struct compressor *c, size_t len);
/** page_desc.flags for pages this codec stored compressed; 0 for none. */
uint32_t compressor_flag(const struct compressor *c);

/**
 * Compress one page into @dst (@cap bytes, at least compressor_bound()).
 * MDF_OK also when the data did not shrink: then *@out_len >= @len and the
 * writer stores the page raw (makedumpfile's rule: compressed only when
 * strictly smaller).
 */
enum mdf_status compressor_page(struct compressor *c, const void *src,
				size_t len, void *dst, size_t cap,
				size_t *out_len, struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Decompress a page stored with page_desc.flags @flag into exactly
 * @dst_len bytes; anything else is MDF_ERR_FORMAT.  Never writes past
 * @dst_len.  @flag 0 means raw.
 */
enum mdf_status decompress_page(uint32_t flag, const void *src, size_t len,
				void *dst, size_t dst_len,
				struct mdf_err *err) MDF_MUST_CHECK;

const char *compress_flag_name(uint32_t flag);
bool compress_available(enum mdf_codec codec);

#endif
