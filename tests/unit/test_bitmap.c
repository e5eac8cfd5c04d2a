/* Unit tests for bitmap.c */
#include "tap.h"

#include "bitmap.h"

static void set_clear_count(void)
{
	struct bitmap b;
	struct mdf_err err;

	T_OK(bitmap_init(&b, 1000, &err), &err);
	T_EQ_U64(b.cap_pfns, 1024);
	bitmap_reset(&b, 4096, 4096 + 1000);
	T_EQ_U64(bitmap_count(&b, 0, UINT64_MAX), 0);
	bitmap_set_range(&b, 4000, 4100);     /* clipped at the start */
	T_EQ_U64(bitmap_count(&b, 0, UINT64_MAX), 4);
	T_ASSERT(bitmap_test(&b, 4099));
	T_ASSERT(!bitmap_test(&b, 4100));
	T_ASSERT(!bitmap_test(&b, 4000));     /* outside the window */
	bitmap_set_range(&b, 4203, 4900);
	T_EQ_U64(bitmap_count(&b, 4096, 5096), 4 + 697);
	T_EQ_U64(bitmap_clear_range(&b, 4200, 4300), 97);
	T_EQ_U64(bitmap_clear_range(&b, 4200, 4300), 0);
	T_EQ_U64(bitmap_count(&b, 4096, 5096), 4 + 600);
	bitmap_clear(&b, 4899);
	T_ASSERT(!bitmap_test(&b, 4899));
	bitmap_set(&b, 5095);
	T_ASSERT(bitmap_test(&b, 5095));
	T_EQ_U64(bitmap_next_set(&b, 0), 4096);
	T_EQ_U64(bitmap_next_set(&b, 4100), 4300);
	T_EQ_U64(bitmap_next_set(&b, 4899), 5095);
	T_EQ_U64(bitmap_next_set(&b, 5096), 5096);
	T_EQ_U64(bitmap_bytes(&b), 125);
	bitmap_release(&b);
}

static void bytes_layout(void)
{
	struct bitmap b;
	struct mdf_err err;

	/* LSB first: pfn 8 is bit 0 of byte 1. */
	T_OK(bitmap_init(&b, 64, &err), &err);
	bitmap_reset(&b, 0, 64);
	bitmap_set(&b, 8);
	bitmap_set(&b, 15);
	T_EQ_U64(b.bits[0], 0);
	T_EQ_U64(b.bits[1], 0x81);
	bitmap_release(&b);
}

static void cycle_sizes(void)
{
	T_EQ_U64(bitmap_cycle_pfns(1 << 20, 2, 1ULL << 30), 4ULL << 20);
	T_EQ_U64(bitmap_cycle_pfns(10, 2, 1ULL << 30), 4096);
	T_EQ_U64(bitmap_cycle_pfns(1 << 30, 2, 131034), 131072);
}

int main(void)
{
	T_RUN(set_clear_count);
	T_RUN(bytes_layout);
	T_RUN(cycle_sizes);
	return t_done();
}
