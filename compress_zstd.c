/*
 * compress_zstd.c - zstd level 1, one context per compressor (optional).
 */
#include <zstd.h>
#include <zstd_errors.h>

#include "compress.h"
#include "diskdump.h"

static enum mdf_status zstd_init(struct compressor *c, struct mdf_err *err)
{
	c->state = ZSTD_createCCtx();
	if (!c->state)
		return mdf_err_set(err, MDF_ERR_NOMEM, "zstd: out of memory");
	return MDF_OK;
}

static void zstd_release(struct compressor *c)
{
	ZSTD_freeCCtx(c->state);
}

static size_t zstd_bound(size_t len)
{
	return ZSTD_compressBound(len);
}

static enum mdf_status zstd_compress(struct compressor *c, const void *src,
				     size_t len, void *dst, size_t cap,
				     size_t *out_len, struct mdf_err *err)
{
	size_t n = ZSTD_compressCCtx(c->state, dst, cap, src, len, 1);

	if (ZSTD_isError(n)) {
		if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall) {
			*out_len = len;
			return MDF_OK;
		}
		return mdf_err_set(err, MDF_ERR_INTERNAL, "zstd: %s",
				   ZSTD_getErrorName(n));
	}
	*out_len = n;
	return MDF_OK;
}

static enum mdf_status zstd_decompress(const void *src, size_t len, void *dst,
				       size_t dst_len, size_t *out_len,
				       struct mdf_err *err)
{
	size_t n = ZSTD_decompress(dst, dst_len, src, len);

	if (ZSTD_isError(n))
		return mdf_err_set(err, MDF_ERR_FORMAT, "zstd: %s",
				   ZSTD_getErrorName(n));
	*out_len = n;
	return MDF_OK;
}

const struct compress_ops compress_zstd_ops = {
	.name = "zstd", .codec = MDF_CODEC_ZSTD, .flag = DUMP_DH_COMPRESSED_ZSTD,
	.init = zstd_init, .release = zstd_release, .bound = zstd_bound,
	.compress = zstd_compress, .decompress = zstd_decompress,
};
