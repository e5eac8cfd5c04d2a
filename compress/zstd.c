/*
 * compress_zstd.c - zstd level 1 with one ZSTD_CCtx per compressor.
 * Optional: compiled only when libzstd is found (HAVE_ZSTD=1); otherwise
 * compress.h makes the codec report "built without zstd".
 */
#include <zstd.h>
#include <zstd_errors.h>

#include "compress/compress.h"
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
	/* makedumpfile's call: level 1, a single frame with its content
	 * size; the context's parameters are reset by every call. */
	size_t n = ZSTD_compressCCtx(c->state, dst, cap, src, len, 1);

	if (ZSTD_isError(n)) {
		if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall) {
			*out_len = len; /* did not fit: store raw */
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
	unsigned long long want = ZSTD_getFrameContentSize(src, len);
	size_t n;

	if (want == ZSTD_CONTENTSIZE_ERROR)
		return mdf_err_set(err, MDF_ERR_FORMAT, "zstd: not a zstd frame");
	/* The frame header states the size: check it before decompressing.
	 * (ZSTD_CONTENTSIZE_UNKNOWN: no size in the header; the result is
	 * checked by the caller.) */
	if (want != ZSTD_CONTENTSIZE_UNKNOWN && want != (unsigned long long)dst_len)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "zstd: decompressed to %llu bytes, expected %zu",
				   want, dst_len);
	n = ZSTD_decompress(dst, dst_len, src, len);
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
