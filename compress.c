/*
 * compress.c - codec registry, and the always-built codecs: none, zlib, lzo.
 */
#include "compress.h"

#include <lzo/lzo1x.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "diskdump.h"

/* ---- none ---------------------------------------------------------- */

static size_t none_bound(size_t len)
{
	return len;
}

static enum mdf_status none_compress(struct compressor *c, const void *src,
				     size_t len, void *dst, size_t cap,
				     size_t *out_len, struct mdf_err *err)
{
	(void)c;
	(void)dst;
	(void)cap;
	(void)src;
	(void)err;
	*out_len = len; /* never smaller: stored raw */
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

	if (!zs)
		return mdf_err_set(err, MDF_ERR_NOMEM, "zlib: out of memory");
	/* compress2()'s parameters, so the bytes equal makedumpfile's. */
	if (deflateInit(zs, Z_BEST_SPEED) != Z_OK) {
		free(zs);
		return mdf_err_set(err, MDF_ERR_INTERNAL, "zlib: deflateInit failed");
	}
	c->state = zs;
	return MDF_OK;
}

static void zlib_release(struct compressor *c)
{
	if (c->state) {
		deflateEnd(c->state);
		free(c->state);
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
	int ret;

	if (deflateReset(zs) != Z_OK)
		return mdf_err_set(err, MDF_ERR_INTERNAL, "zlib: deflateReset failed");
	zs->next_in = (Bytef *)(uintptr_t)src;
	zs->avail_in = (uInt)len;
	zs->next_out = dst;
	zs->avail_out = (uInt)cap;
	ret = deflate(zs, Z_FINISH);
	if (ret == Z_STREAM_END) {
		*out_len = cap - zs->avail_out;
		return MDF_OK;
	}
	if (ret == Z_OK || ret == Z_BUF_ERROR) {
		*out_len = len; /* did not fit: store raw */
		return MDF_OK;
	}
	return mdf_err_set(err, MDF_ERR_INTERNAL, "zlib: deflate failed (%d)", ret);
}

static enum mdf_status zlib_decompress(const void *src, size_t len, void *dst,
				       size_t dst_len, size_t *out_len,
				       struct mdf_err *err)
{
	uLongf n = (uLongf)dst_len;
	int ret = uncompress(dst, &n, src, (uLong)len);

	if (ret != Z_OK)
		return mdf_err_set(err, MDF_ERR_FORMAT, "zlib: %s",
				   ret == Z_BUF_ERROR ? "output larger than a page" :
				   ret == Z_MEM_ERROR ? "out of memory" : "data error");
	*out_len = n;
	return MDF_OK;
}

static const struct compress_ops zlib_ops = {
	.name = "zlib", .codec = MDF_CODEC_ZLIB, .flag = DUMP_DH_COMPRESSED_ZLIB,
	.init = zlib_init, .release = zlib_release, .bound = zlib_bound,
	.compress = zlib_compress, .decompress = zlib_decompress,
};

/* ---- lzo1x_1 --------------------------------------------------------- */

static enum mdf_status lzo_init_state(struct compressor *c, struct mdf_err *err)
{
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
	/* The worst case documented by LZO for lzo1x. */
	return len + len / 16 + 64 + 3;
}

static enum mdf_status lzo_compress(struct compressor *c, const void *src,
				    size_t len, void *dst, size_t cap,
				    size_t *out_len, struct mdf_err *err)
{
	lzo_uint n = cap;
	int ret;

	if (cap < lzo_bound(len)) {
		*out_len = len;
		return MDF_OK;
	}
	ret = lzo1x_1_compress(src, (lzo_uint)len, dst, &n, c->state);
	if (ret != LZO_E_OK)
		return mdf_err_set(err, MDF_ERR_INTERNAL, "lzo: compression failed (%d)", ret);
	*out_len = n;
	return MDF_OK;
}

static enum mdf_status lzo_decompress(const void *src, size_t len, void *dst,
				      size_t dst_len, size_t *out_len,
				      struct mdf_err *err)
{
	lzo_uint n = dst_len;
	int ret = lzo1x_decompress_safe(src, (lzo_uint)len, dst, &n, NULL);

	if (ret != LZO_E_OK)
		return mdf_err_set(err, MDF_ERR_FORMAT, "lzo: data error (%d)", ret);
	*out_len = n;
	return MDF_OK;
}

static const struct compress_ops lzo_ops = {
	.name = "lzo", .codec = MDF_CODEC_LZO, .flag = DUMP_DH_COMPRESSED_LZO,
	.init = lzo_init_state, .release = lzo_release, .bound = lzo_bound,
	.compress = lzo_compress, .decompress = lzo_decompress,
};

/* ---- registry ---------------------------------------------------------- */

static const struct compress_ops *ops_for(enum mdf_codec codec)
{
	switch (codec) {
	case MDF_CODEC_NONE: return &none_ops;
	case MDF_CODEC_ZLIB: return &zlib_ops;
	case MDF_CODEC_LZO: return &lzo_ops;
	case MDF_CODEC_ZSTD: return COMPRESS_ZSTD_OPS;
	case MDF_CODEC_SNAPPY: return COMPRESS_SNAPPY_OPS;
	}
	return NULL;
}

static const struct compress_ops *ops_for_flag(uint32_t flag)
{
	static const enum mdf_codec all[] = { MDF_CODEC_ZLIB, MDF_CODEC_LZO,
					      MDF_CODEC_SNAPPY, MDF_CODEC_ZSTD };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const struct compress_ops *o = ops_for(all[i]);

		if (o && o->flag == flag)
			return o;
	}
	return NULL;
}

bool compress_available(enum mdf_codec codec)
{
	return ops_for(codec) != NULL;
}

const char *compress_flag_name(uint32_t flag)
{
	switch (flag) {
	case 0: return "raw";
	case DUMP_DH_COMPRESSED_ZLIB: return "zlib";
	case DUMP_DH_COMPRESSED_LZO: return "lzo";
	case DUMP_DH_COMPRESSED_SNAPPY: return "snappy";
	case DUMP_DH_COMPRESSED_ZSTD: return "zstd";
	}
	return "unknown";
}

enum mdf_status compressor_init(struct compressor *c, enum mdf_codec codec,
				struct mdf_err *err)
{
	const struct compress_ops *ops = ops_for(codec);

	c->ops = NULL;
	c->state = NULL;
	if (!ops)
		return mdf_err_set(err, MDF_ERR_NOTSUPP, "built without %s",
				   codec == MDF_CODEC_ZSTD ? "zstd" :
				   codec == MDF_CODEC_SNAPPY ? "snappy" : "this codec");
	c->ops = ops;
	if (ops->init) {
		enum mdf_status st = ops->init(c, err);

		if (st != MDF_OK) {
			c->ops = NULL;
			return st;
		}
	}
	return MDF_OK;
}

void compressor_release(struct compressor *c)
{
	if (c->ops && c->ops->release)
		c->ops->release(c);
	c->ops = NULL;
	c->state = NULL;
}

size_t compressor_bound(const struct compressor *c, size_t len)
{
	return c->ops->bound(len);
}

uint32_t compressor_flag(const struct compressor *c)
{
	return c->ops->flag;
}

enum mdf_status compressor_page(struct compressor *c, const void *src,
				size_t len, void *dst, size_t cap,
				size_t *out_len, struct mdf_err *err)
{
	return c->ops->compress(c, src, len, dst, cap, out_len, err);
}

enum mdf_status decompress_page(uint32_t flag, const void *src, size_t len,
				void *dst, size_t dst_len, struct mdf_err *err)
{
	const struct compress_ops *ops;
	size_t n = 0;
	enum mdf_status st;

	if (flag == 0) {
		if (len != dst_len)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "raw page of %zu bytes, expected %zu", len, dst_len);
		memcpy(dst, src, len);
		return MDF_OK;
	}
	ops = ops_for_flag(flag);
	if (!ops || !ops->decompress)
		return mdf_err_set(err, flag & (flag - 1) ? MDF_ERR_FORMAT : MDF_ERR_NOTSUPP,
				   "page compressed with %s (flags 0x%x): %s",
				   compress_flag_name(flag), flag,
				   flag & (flag - 1) ? "bad flags" : "not built in");
	st = ops->decompress(src, len, dst, dst_len, &n, err);
	if (st != MDF_OK)
		return st;
	if (n != dst_len)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: decompressed to %zu bytes, expected %zu",
				   ops->name, n, dst_len);
	return MDF_OK;
}
