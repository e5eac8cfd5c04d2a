/*
 * tests/fuzz/fuzz_decompress.c - fuzz decompress_page(), the reader's
 * per-page decoder, with every codec.
 *
 * Input: byte 0 picks the page flag (low 3 bits: raw, zlib, lzo, snappy,
 * zstd, and the bad flags 0x8, 0x3, 0x40) and the page size (bits 3-4:
 * 4096, 512, 8192, 65536); the rest is the stored page.  The output buffer
 * is exactly the page size, so any write past it trips ASan.  A page that
 * decompresses is compressed again with the same codec and must come
 * back unchanged.
 *
 * Seed corpus: tests/fuzz/corpus/decompress/ - one good 4096-byte text
 * page per codec (made by this program's own compressors), truncated and
 * bit-flipped copies, and a raw page.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compress/compress.h"
#include "diskdump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check(int cond)
{
	if (!cond)
		abort();
}

static const uint32_t fuzz_flags[8] = {
	0, DUMP_DH_COMPRESSED_ZLIB, DUMP_DH_COMPRESSED_LZO,
	DUMP_DH_COMPRESSED_SNAPPY, DUMP_DH_COMPRESSED_ZSTD,
	DUMP_DH_COMPRESSED_INCOMPLETE, 0x3, 0x40,
};
static const enum mdf_codec fuzz_codecs[8] = {
	MDF_CODEC_NONE, MDF_CODEC_ZLIB, MDF_CODEC_LZO, MDF_CODEC_SNAPPY,
	MDF_CODEC_ZSTD, MDF_CODEC_NONE, MDF_CODEC_NONE, MDF_CODEC_NONE,
};
static const size_t fuzz_sizes[4] = { 4096, 512, 8192, 65536 };

/* Compress @page again and check that it decompresses to itself. */
static void recompress(enum mdf_codec codec, const unsigned char *page,
		       size_t page_len)
{
	struct compressor c = { 0 };
	struct mdf_err err;
	unsigned char *buf, *back;
	size_t cap, n = 0;

	fuzz_check(compressor_init(&c, codec, &err) == MDF_OK);
	cap = compressor_bound(&c, page_len);
	buf = malloc(cap);
	back = malloc(page_len);
	fuzz_check(buf && back);
	fuzz_check(compressor_page(&c, page, page_len, buf, cap, &n, &err) == MDF_OK);
	if (n < page_len) {
		fuzz_check(decompress_page(compressor_flag(&c), buf, n, back,
					   page_len, &err) == MDF_OK);
		fuzz_check(memcmp(back, page, page_len) == 0);
	}
	free(back);
	free(buf);
	compressor_release(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdf_err err;
	unsigned char *src, *dst;
	uint32_t flag;
	enum mdf_codec codec;
	size_t len, page_len;
	enum mdf_status st;

	if (size < 1)
		return 0;
	flag = fuzz_flags[data[0] & 7];
	codec = fuzz_codecs[data[0] & 7];
	page_len = fuzz_sizes[(data[0] >> 3) & 3];
	len = size - 1;

	/* Exact-size copies, so a read or write past either end trips ASan. */
	src = malloc(len ? len : 1);
	dst = malloc(page_len);
	fuzz_check(src && dst);
	memcpy(src, data + 1, len);
	mdf_err_clear(&err);
	st = decompress_page(flag, src, len, dst, page_len, &err);
	if (st != MDF_OK) {
		fuzz_check(st == MDF_ERR_FORMAT || st == MDF_ERR_NOTSUPP ||
			   st == MDF_ERR_NOMEM);
		fuzz_check(err.msg[0] != '\0' && strchr(err.msg, '\n') == NULL);
		fuzz_check(st != MDF_ERR_NOTSUPP || !compress_available(codec));
	} else {
		fuzz_check(flag != DUMP_DH_COMPRESSED_INCOMPLETE && flag != 0x3 &&
			   flag != 0x40);
		if (flag == 0)
			fuzz_check(len == page_len && memcmp(dst, src, len) == 0);
		else
			recompress(codec, dst, page_len);
	}
	free(dst);
	free(src);
	return 0;
}
