/*
 * compress.c - the codec registry, and the always-built codecs: none,
 * zlib and lzo.  zstd and snappy are in compress_zstd.c and
 * compress_snappy.c (optional); see compress.h.
 */
#include "compress/compress.h"

#include <limits.h>
#include <lzo/lzo1x.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "diskdump.h"
#include "util.h"

/* ---- none: every page stored raw ------------------------------------ */

static size_t none_bound(size_t len)
{
	return len;
}

static enum mdf_status none_compress(struct compressor *c, const void *src,
				     size_t len, void *dst, size_t cap,
				     size_t *out_len, struct mdf_err *err)
{
	(void)c;
	(void)src;
	(void)dst;
	(void)cap;
	(void)err;
	*out_len = len; /* never smaller */
	return MDF_OK;
}

static const struct compress_ops none_ops = {
	.name = "none", .codec = MDF_CODEC_NONE, .flag = 0,
	.bound = none_bound, .compress = none_compress,
};

/* ---- zlib: RFC 1950, level 1, one stream reset per page ------------- */

static enum mdf_status zlib_init(struct compressor *c, struct mdf_err *err)
{
	z_stream *zs = calloc(1, sizeof(*zs));
	int ret;

	if (!zs)
		return mdf_err_set(err, MDF_ERR_NOMEM, "zlib: out of memory");
	/*
	 * compress2(..., Z_BEST_SPEED) is deflateInit(level 1) with
	 * windowBits 15, memLevel 8, Z_DEFAULT_STRATEGY: the same here, so
	 * the bytes equal makedumpfile's.
	 */
	ret = deflateInit(zs, Z_BEST_SPEED);
	if (ret != Z_OK) {
		free(zs);
		if (ret == Z_MEM_ERROR)
			return mdf_err_set(err, MDF_ERR_NOMEM, "zlib: out of memory");
		return mdf_err_set(err, MDF_ERR_INTERNAL,
				   "zlib: deflateInit failed (%d, zlib %s)",
				   ret, zlibVersion());
	}
	c->state = zs;
	return MDF_OK;
}

static void zlib_release(struct compressor *c)
{
	z_stream *zs = c->state;

	if (zs) {
		deflateEnd(zs);
		free(zs);
	}
}

static size_t zlib_bound(size_t len)
{
	return (size_t)compressBound((uLong)len);
}

static enum mdf_status zlib_compress(struct compressor *c, const void *src,
				     size_t len, void *dst, size_t cap,
				     size_t *out_len, struct mdf_err *err)
{
	z_stream *zs = c->state;
	uInt room = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
	int ret;

	if (len > UINT_MAX)
		return mdf_err_set(err, MDF_ERR_ARG, "zlib: page of %zu bytes too large", len);
	ret = deflateReset(zs);
	if (ret != Z_OK)
		return mdf_err_set(err, MDF_ERR_INTERNAL, "zlib: deflateReset: %s",
				   zs->msg ? zs->msg : "failed");
	zs->next_in = (Bytef *)(uintptr_t)src; /* zlib never writes input */
	zs->avail_in = (uInt)len;
	zs->next_out = dst;
	zs->avail_out = room;
	ret = deflate(zs, Z_FINISH);
	if (ret == Z_STREAM_END) {
		*out_len = room - zs->avail_out;
		return MDF_OK;
	}
	if (ret == Z_OK || ret == Z_BUF_ERROR) {
		/* Ran out of room: cannot be smaller than @cap; store raw.
		 * The next deflateReset() discards the half-done stream. */
		*out_len = len;
		return MDF_OK;
	}
	return mdf_err_set(err, MDF_ERR_INTERNAL, "zlib: deflate: %s (%d)",
			   zs->msg ? zs->msg : "failed", ret);
}

static enum mdf_status zlib_decompress(const void *src, size_t len, void *dst,
				       size_t dst_len, size_t *out_len,
				       struct mdf_err *err)
{
	uLongf n = (uLongf)dst_len;
	int ret = uncompress(dst, &n, src, (uLong)len);

	switch (ret) {
	case Z_OK:
		*out_len = n;
		return MDF_OK;
	case Z_BUF_ERROR: /* output full before the end of the stream */
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "zlib: decompresses to more than %zu bytes", dst_len);
	case Z_MEM_ERROR:
		return mdf_err_set(err, MDF_ERR_NOMEM, "zlib: out of memory");
	default: /* Z_DATA_ERROR: corrupt, truncated or needs a dictionary */
		return mdf_err_set(err, MDF_ERR_FORMAT, "zlib: data error");
	}
}

static const struct compress_ops zlib_ops = {
	.name = "zlib", .codec = MDF_CODEC_ZLIB, .flag = DUMP_DH_COMPRESSED_ZLIB,
	.init = zlib_init, .release = zlib_release, .bound = zlib_bound,
	.compress = zlib_compress, .decompress = zlib_decompress,
};

/* ---- lzo1x_1 --------------------------------------------------------- */

static enum mdf_status lzo_init_state(struct compressor *c, struct mdf_err *err)
{
	/* lzo_init() only checks the library's build; calling it again is
	 * harmless, so every compressor does. */
	if (lzo_init() != LZO_E_OK)
		return mdf_err_set(err, MDF_ERR_INTERNAL, "lzo: lzo_init failed");
	c->state = malloc(LZO1X_1_MEM_COMPRESS);
	if (!c->state)
		return mdf_err_set(err, MDF_ERR_NOMEM, "lzo: out of memory");
	return MDF_OK;
}

static void lzo_release(struct compressor *c)
{
	free(c->state);
}

static size_t lzo_bound(size_t len)
{
	/* lzo1x's documented worst case for incompressible input. */
	return len + len / 16 + 64 + 3;
}

static enum mdf_status lzo_compress(struct compressor *c, const void *src,
				    size_t len, void *dst, size_t cap,
				    size_t *out_len, struct mdf_err *err)
{
	lzo_uint n = cap;
	int ret;

	/* lzo1x_1_compress() does not check the output size: only call it
	 * with room for the worst case. */
	if (cap < lzo_bound(len)) {
		*out_len = len;
		return MDF_OK;
	}
	ret = lzo1x_1_compress(src, (lzo_uint)len, dst, &n, c->state);
	if (ret != LZO_E_OK)
		return mdf_err_set(err, MDF_ERR_INTERNAL,
				   "lzo: lzo1x_1_compress failed (%d)", ret);
	*out_len = n;
	return MDF_OK;
}

static enum mdf_status lzo_decompress(const void *src, size_t len, void *dst,
				      size_t dst_len, size_t *out_len,
				      struct mdf_err *err)
{
	lzo_uint n = dst_len;
	int ret = lzo1x_decompress_safe(src, (lzo_uint)len, dst, &n, NULL);

	switch (ret) {
	case LZO_E_OK:
		*out_len = n;
		return MDF_OK;
	case LZO_E_INPUT_OVERRUN:
		return mdf_err_set(err, MDF_ERR_FORMAT, "lzo: truncated input");
	case LZO_E_OUTPUT_OVERRUN:
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "lzo: decompresses to more than %zu bytes", dst_len);
	case LZO_E_INPUT_NOT_CONSUMED:
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "lzo: trailing bytes after the end of the data");
	default: /* LZO_E_LOOKBEHIND_OVERRUN, LZO_E_ERROR */
		return mdf_err_set(err, MDF_ERR_FORMAT, "lzo: data error (%d)", ret);
	}
}

static const struct compress_ops lzo_ops = {
	.name = "lzo", .codec = MDF_CODEC_LZO, .flag = DUMP_DH_COMPRESSED_LZO,
	.init = lzo_init_state, .release = lzo_release, .bound = lzo_bound,
	.compress = lzo_compress, .decompress = lzo_decompress,
};

/* ---- registry ---------------------------------------------------------- */

/* What writes zlib streams: libdeflate when it is built in. */
static const struct compress_ops *zlib_writer(void)
{
	const struct compress_ops *deflate = COMPRESS_DEFLATE_OPS;

	return deflate ? deflate : &zlib_ops;
}

/* The ops that compress @codec, NULL for an optional codec that was not
 * built, or for a value outside the enum. */
static const struct compress_ops *ops_for(enum mdf_codec codec)
{
	switch (codec) {
	case MDF_CODEC_NONE: return &none_ops;
	case MDF_CODEC_ZLIB: return zlib_writer();
	case MDF_CODEC_LZO: return &lzo_ops;
	case MDF_CODEC_ZSTD: return COMPRESS_ZSTD_OPS;
	case MDF_CODEC_SNAPPY: return COMPRESS_SNAPPY_OPS;
	}
	return NULL;
}

/* The codec behind one page_desc.flags value, whether built or not. */
static bool codec_for_flag(uint32_t flag, enum mdf_codec *codec)
{
	switch (flag) {
	case DUMP_DH_COMPRESSED_ZLIB: *codec = MDF_CODEC_ZLIB; return true;
	case DUMP_DH_COMPRESSED_LZO: *codec = MDF_CODEC_LZO; return true;
	case DUMP_DH_COMPRESSED_SNAPPY: *codec = MDF_CODEC_SNAPPY; return true;
	case DUMP_DH_COMPRESSED_ZSTD: *codec = MDF_CODEC_ZSTD; return true;
	}
	return false;
}

static const char *codec_name(enum mdf_codec codec)
{
	switch (codec) {
	case MDF_CODEC_NONE: return "none";
	case MDF_CODEC_ZLIB: return "zlib";
	case MDF_CODEC_LZO: return "lzo";
	case MDF_CODEC_SNAPPY: return "snappy";
	case MDF_CODEC_ZSTD: return "zstd";
	}
	return NULL;
}

/* The ops that decompress @codec: zlib's inflate reads every zlib stream,
 * libdeflate's too. */
static const struct compress_ops *decoder_for(enum mdf_codec codec)
{
	return codec == MDF_CODEC_ZLIB ? &zlib_ops : ops_for(codec);
}

bool compress_available(enum mdf_codec codec)
{
	return ops_for(codec) != NULL;
}

const char *compress_flag_name(uint32_t flag)
{
	enum mdf_codec codec;

	if (flag == 0)
		return "raw";
	if (!codec_for_flag(flag, &codec))
		return "unknown";
	return codec_name(codec);
}

enum mdf_status compressor_init(struct compressor *c, enum mdf_codec codec,
				struct mdf_err *err)
{
	const struct compress_ops *ops = ops_for(codec);
	const char *name = codec_name(codec);

	memset(c, 0, sizeof(*c));
	if (!name)
		return mdf_err_set(err, MDF_ERR_ARG, "unknown compression codec %d",
				   (int)codec);
	if (!ops)
		return mdf_err_set(err, MDF_ERR_NOTSUPP, "built without %s", name);
	if (ops->init) {
		enum mdf_status st = ops->init(c, err);

		if (st != MDF_OK) {
			c->state = NULL;
			return st;
		}
	}
	c->ops = ops;
	return MDF_OK;
}

void compressor_release(struct compressor *c)
{
	if (c->ops && c->ops->release)
		c->ops->release(c);
	free(c->zero_out);
	memset(c, 0, sizeof(*c));
}

size_t compressor_bound(const struct compressor *c, size_t len)
{
	return c->ops ? c->ops->bound(len) : 0;
}

uint32_t compressor_flag(const struct compressor *c)
{
	return c->ops ? c->ops->flag : 0;
}

enum mdf_status compressor_page_nonzero(struct compressor *c, const void *src,
					size_t len, void *dst, size_t cap,
					size_t *out_len, struct mdf_err *err)
{
	if (!c->ops)
		return mdf_err_set(err, MDF_ERR_ARG, "compressor not initialised");
	return c->ops->compress(c, src, len, dst, cap, out_len, err);
}

enum mdf_status compressor_page(struct compressor *c, const void *src,
				size_t len, void *dst, size_t cap,
				size_t *out_len, struct mdf_err *err)
{
	enum mdf_status st;

	/* Only with room for any result, so the memo is the codec's answer
	 * and not a "did not fit". */
	if (!c->ops || cap < c->ops->bound(len) || !util_is_zero(src, len))
		return compressor_page_nonzero(c, src, len, dst, cap, out_len, err);
	if (!c->zero_out || c->zero_len != len) {
		/* First zero page (of this size): compress it for real. */
		unsigned char *buf = malloc(cap ? cap : 1);

		if (!buf)
			return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory",
					   c->ops->name);
		st = c->ops->compress(c, src, len, buf, cap, out_len, err);
		if (st != MDF_OK) {
			free(buf);
			return st;
		}
		free(c->zero_out);
		c->zero_out = buf;
		c->zero_len = len;
		c->zero_out_len = *out_len;
	}
	*out_len = c->zero_out_len;
	if (c->zero_out_len < len)
		memcpy(dst, c->zero_out, c->zero_out_len);
	return MDF_OK;
}

enum mdf_status decompress_page(uint32_t flag, const void *src, size_t len,
				void *dst, size_t dst_len, struct mdf_err *err)
{
	const struct compress_ops *ops;
	enum mdf_codec codec;
	size_t n = 0;
	enum mdf_status st;

	if (flag == 0) {
		if (len != dst_len)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "raw page of %zu bytes, expected %zu", len, dst_len);
		memcpy(dst, src, len);
		return MDF_OK;
	}
	if (!codec_for_flag(flag, &codec))
		return mdf_err_set(err, MDF_ERR_FORMAT, "unknown page flags 0x%x", flag);
	ops = decoder_for(codec);
	if (!ops)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "page compressed with %s: built without %s",
				   codec_name(codec), codec_name(codec));
	st = ops->decompress(src, len, dst, dst_len, &n, err);
	if (st != MDF_OK)
		return st;
	if (n != dst_len)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: decompressed to %zu bytes, expected %zu",
				   ops->name, n, dst_len);
	return MDF_OK;
}
