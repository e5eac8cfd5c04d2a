/*
 * bitmap.c - pfn sets for one cycle.
 */
#include "bitmap.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

enum mdf_status bitmap_init(struct bitmap *b, uint64_t cap_pfns,
			    struct mdf_err *err)
{
	memset(b, 0, sizeof(*b));
	/* Rounding up must not wrap to 0 (a bitmap with no room). */
	if (cap_pfns > UINT64_MAX - 63)
		return mdf_err_set(err, MDF_ERR_NOMEM, "bitmap too large");
	b->cap_pfns = align_up(cap_pfns ? cap_pfns : 64, 64);
	if (b->cap_pfns / 8 > SIZE_MAX)
		return mdf_err_set(err, MDF_ERR_NOMEM, "bitmap too large");
	b->bits = calloc(1, (size_t)(b->cap_pfns / 8));
	if (!b->bits)
		return mdf_err_set(err, MDF_ERR_NOMEM,
				   "cannot allocate a %llu-byte bitmap",
				   (unsigned long long)(b->cap_pfns / 8));
	return MDF_OK;
}

void bitmap_release(struct bitmap *b)
{
	free(b->bits);
	memset(b, 0, sizeof(*b));
}

void bitmap_reset(struct bitmap *b, uint64_t start, uint64_t end)
{
	b->start_pfn = start;
	b->end_pfn = end;
	memset(b->bits, 0, (size_t)((end - start + 7) / 8));
}

void bitmap_copy(struct bitmap *dst, const struct bitmap *src)
{
	dst->start_pfn = src->start_pfn;
	dst->end_pfn = src->end_pfn;
	memcpy(dst->bits, src->bits, bitmap_bytes(src));
}

static void clip(const struct bitmap *b, uint64_t *start, uint64_t *end)
{
	if (*start < b->start_pfn)
		*start = b->start_pfn;
	if (*end > b->end_pfn)
		*end = b->end_pfn;
	if (*end < *start)
		*end = *start;
}

void bitmap_set_range(struct bitmap *b, uint64_t start, uint64_t end)
{
	clip(b, &start, &end);
	uint64_t i = start - b->start_pfn, e = end - b->start_pfn;

	for (; i < e && (i & 7); i++)
		b->bits[i >> 3] |= (uint8_t)(1u << (i & 7));
	if (e - i >= 8) {
		memset(b->bits + (i >> 3), 0xff, (size_t)((e - i) >> 3));
		i += (e - i) & ~(uint64_t)7;
	}
	for (; i < e; i++)
		b->bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

uint64_t bitmap_clear_range(struct bitmap *b, uint64_t start, uint64_t end)
{
	uint64_t n = 0;

	clip(b, &start, &end);
	for (uint64_t i = start - b->start_pfn, e = end - b->start_pfn; i < e; i++) {
		uint8_t m = (uint8_t)(1u << (i & 7));

		if (!(i & 7) && e - i >= 8) {
			n += (uint64_t)__builtin_popcount(b->bits[i >> 3]);
			b->bits[i >> 3] = 0;
			i += 7;
			continue;
		}
		if (b->bits[i >> 3] & m) {
			n++;
			b->bits[i >> 3] &= (uint8_t)~m;
		}
	}
	return n;
}

uint64_t bitmap_count(const struct bitmap *b, uint64_t start, uint64_t end)
{
	uint64_t n = 0;

	clip(b, &start, &end);
	for (uint64_t i = start - b->start_pfn, e = end - b->start_pfn; i < e; i++) {
		if (!(i & 63) && e - i >= 64) {
			uint64_t w;

			memcpy(&w, b->bits + (i >> 3), 8);
			n += (uint64_t)__builtin_popcountll(w);
			i += 63;
			continue;
		}
		n += (b->bits[i >> 3] >> (i & 7)) & 1;
	}
	return n;
}

uint64_t bitmap_next_set(const struct bitmap *b, uint64_t from)
{
	uint64_t i, e = b->end_pfn - b->start_pfn;

	if (from < b->start_pfn)
		from = b->start_pfn;
	for (i = from - b->start_pfn; i < e; i++) {
		uint8_t byte = b->bits[i >> 3] >> (i & 7);

		if (byte)
			return b->start_pfn + i + (uint64_t)__builtin_ctz(byte);
		i |= 7; /* rest of this byte is clear */
	}
	return b->end_pfn;
}

uint64_t bitmap_cycle_pfns(uint64_t budget_bytes, unsigned nbitmaps,
			   uint64_t total_pfns)
{
	uint64_t n = nbitmaps ? nbitmaps : 1;
	/* --cyclic-buffer takes any KiB count: bytes * 8 must not wrap (a
	 * huge budget meant one cycle, it gave the smallest). */
	uint64_t per = budget_bytes > UINT64_MAX / 8 ? UINT64_MAX / n
						      : budget_bytes * 8 / n;
	uint64_t all = align_up(total_pfns ? total_pfns : 1, 4096);

	per &= ~(uint64_t)4095;
	if (per < 4096)
		per = 4096;
	return per < all ? per : all;
}
