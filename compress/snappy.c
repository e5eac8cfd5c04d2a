/*
 * compress_snappy.c - raw snappy (snappy-c.h, no framing), as makedumpfile
 * writes with -p.  Optional: compiled only when libsnappy is found
 * (HAVE_SNAPPY=1); otherwise compress.h makes the codec report "built
 * without snappy".  Snappy keeps no state between calls.
 */
#include <snappy-c.h>

#include "compress/compress.h"
#include "diskdump.h"

static size_t snappy_bound(size_t len)
{
	return snappy_max_compressed_length(len);
}

static enum mdf_status snappy_page(struct compressor *c, const void *src,
				   size_t len, void *dst, size_t cap,
				   size_t *out_len, struct mdf_err *err)
{
	size_t n = cap;
	snappy_status st;

	(void)c;
	/* snappy_compress() refuses any buffer below the worst case. */
	if (cap < snappy_max_compressed_length(len)) {
		*out_len = len;
		return MDF_OK;
	}
	st = snappy_compress(src, len, dst, &n);
	if (st != SNAPPY_OK)
		return mdf_err_set(err, MDF_ERR_INTERNAL,
				   "snappy: snappy_compress failed (%d)", (int)st);
	*out_len = n;
	return MDF_OK;
}

static enum mdf_status snappy_unpage(const void *src, size_t len, void *dst,
				     size_t dst_len, size_t *out_len,
				     struct mdf_err *err)
{
	size_t n;

	/* The stream starts with the uncompressed length (a varint). */
	if (snappy_uncompressed_length(src, len, &n) != SNAPPY_OK)
		return mdf_err_set(err, MDF_ERR_FORMAT, "snappy: bad length header");
	if (n != dst_len)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "snappy: decompressed to %zu bytes, expected %zu",
				   n, dst_len);
	/* snappy_uncompress() checks every copy against @n = dst_len. */
	if (snappy_uncompress(src, len, dst, &n) != SNAPPY_OK)
		return mdf_err_set(err, MDF_ERR_FORMAT, "snappy: data error");
	*out_len = n;
	return MDF_OK;
}

const struct compress_ops compress_snappy_ops = {
	.name = "snappy", .codec = MDF_CODEC_SNAPPY, .flag = DUMP_DH_COMPRESSED_SNAPPY,
	.bound = snappy_bound, .compress = snappy_page, .decompress = snappy_unpage,
};
