/*
 * Unit tests for bitmap.c
 *
 * Besides a few hand-written cases, every public function is checked
 * against a reference model (one bool per pfn of the window) under
 * exhaustive small ranges and randomized operations from a fixed seed.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#include "bitmap.h"

/* Run a helper that uses T_* macros; stop the case if it failed. */
#define T_CALL(call)                            \
	do {                                    \
		call;                           \
		if (t_st.case_failed)           \
			return;                 \
	} while (0)

/* ---- deterministic randomness ---------------------------------------- */

static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
	rng_state = seed;
}

static uint64_t rng(void) /* splitmix64 */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rng_below(uint64_t n)
{
	return n ? rng() % n : 0;
}

/* ---- the reference model --------------------------------------------- */

struct model {
	uint64_t start, end;
	bool *v; /* end - start entries */
};

static bool model_init(struct model *m, uint64_t start, uint64_t end)
{
	m->start = start;
	m->end = end;
	m->v = calloc((size_t)(end - start) + 1, sizeof(*m->v));
	return m->v != NULL;
}

static void model_release(struct model *m)
{
	free(m->v);
	m->v = NULL;
}

static void model_clip(const struct model *m, uint64_t *a, uint64_t *b)
{
	if (*a < m->start)
		*a = m->start;
	if (*b > m->end)
		*b = m->end;
	if (*b < *a)
		*b = *a;
}

static bool model_test(const struct model *m, uint64_t pfn)
{
	return pfn >= m->start && pfn < m->end && m->v[pfn - m->start];
}

/* Set or clear [a, b) clipped; returns how many were set before. */
static uint64_t model_fill(struct model *m, uint64_t a, uint64_t b, bool val)
{
	uint64_t n = 0;

	model_clip(m, &a, &b);
	for (uint64_t p = a; p < b; p++) {
		n += m->v[p - m->start];
		m->v[p - m->start] = val;
	}
	return n;
}

static uint64_t model_count(const struct model *m, uint64_t a, uint64_t b)
{
	uint64_t n = 0;

	model_clip(m, &a, &b);
	for (uint64_t p = a; p < b; p++)
		n += m->v[p - m->start];
	return n;
}

static uint64_t model_next(const struct model *m, uint64_t from)
{
	if (from < m->start)
		from = m->start;
	for (uint64_t p = from; p < m->end; p++)
		if (m->v[p - m->start])
			return p;
	return m->end;
}

/* A pfn near the interesting places of the window (never wraps). */
static uint64_t pick_pfn(const struct model *m)
{
	uint64_t n = m->end - m->start, base, d;

	switch (rng_below(8)) {
	case 0: return 0;
	case 1: return UINT64_MAX;
	case 2: base = m->start; break;
	case 3: base = m->end; break;
	case 4: base = m->start + (n & ~(uint64_t)63); break;
	default: return m->start + rng_below(n + 1);
	}
	d = rng_below(72);
	if (rng() & 1)
		return base >= d ? base - d : 0;
	return base <= UINT64_MAX - d ? base + d : UINT64_MAX;
}

/*
 * The bitmap equals the model: window, bitmap_test around and inside it,
 * the stored bytes (LSB first, bits past end_pfn clear, as a dump
 * writes them), the size and the total count.
 */
static void check_same(const struct bitmap *b, const struct model *m)
{
	uint64_t n = m->end - m->start, total = 0;
	uint64_t lo = m->start >= 16 ? m->start - 16 : 0;
	uint64_t hi = m->end <= UINT64_MAX - 16 ? m->end + 16 : UINT64_MAX;

	T_EQ_U64(b->start_pfn, m->start);
	T_EQ_U64(b->end_pfn, m->end);
	T_EQ_U64(bitmap_bytes(b), (n + 7) / 8);
	for (uint64_t p = lo;; p++) {
		if (bitmap_test(b, p) != model_test(m, p)) {
			char why[128];

			snprintf(why, sizeof(why), "bitmap_test(pfn %#llx) != model",
				 (unsigned long long)p);
			t_fail(__FILE__, __LINE__, why);
			return;
		}
		if (p == hi)
			break;
	}
	for (uint64_t k = 0; k < (n + 7) / 8; k++) {
		uint8_t want = 0;

		for (unsigned j = 0; j < 8; j++)
			if (8 * k + j < n && m->v[8 * k + j])
				want |= (uint8_t)(1u << j);
		T_EQ_U64(b->bits[k], want);
	}
	for (uint64_t i = 0; i < n; i++)
		total += m->v[i];
	T_EQ_U64(bitmap_count(b, 0, UINT64_MAX), total);
	T_EQ_U64(bitmap_count(b, m->start, m->end), total);
}

/* Fill window and model with a random pattern of about @permille set. */
static void random_fill(struct bitmap *b, struct model *m, unsigned permille)
{
	for (uint64_t p = m->start; p < m->end; p++) {
		bool on = rng_below(1000) < permille;

		m->v[p - m->start] = on;
		if (on)
			bitmap_set(b, p);
		else
			bitmap_clear(b, p);
	}
}

/* ---- hand-written cases ------------------------------------------------ */

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

/* Capacity is rounded up to 64 (0 gives 64), the bits start clear, and
 * release leaves a zeroed struct that may be released again. */
static void init_and_release(void)
{
	static const uint64_t caps[][2] = {
		{ 0, 64 }, { 1, 64 }, { 63, 64 }, { 64, 64 }, { 65, 128 },
		{ 1000, 1024 }, { 4096, 4096 }, { 1ULL << 20, 1ULL << 20 },
	};
	struct mdf_err err;

	for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		struct bitmap b;

		T_OK(bitmap_init(&b, caps[c][0], &err), &err);
		T_EQ_U64(b.cap_pfns, caps[c][1]);
		T_ASSERT(b.bits != NULL);
		T_EQ_U64(b.start_pfn, 0);
		T_EQ_U64(b.end_pfn, 0);
		T_EQ_U64(bitmap_bytes(&b), 0);
		for (uint64_t k = 0; k < b.cap_pfns / 8; k++)
			T_EQ_U64(b.bits[k], 0);
		/* The whole capacity is usable. */
		bitmap_reset(&b, 0, b.cap_pfns);
		bitmap_set_range(&b, 0, UINT64_MAX);
		T_EQ_U64(bitmap_count(&b, 0, UINT64_MAX), b.cap_pfns);
		bitmap_release(&b);
		T_ASSERT(b.bits == NULL);
		T_EQ_U64(b.cap_pfns, 0);
		T_EQ_U64(b.start_pfn, 0);
		T_EQ_U64(b.end_pfn, 0);
		bitmap_release(&b); /* twice: a no-op on the zeroed struct */
		T_ASSERT(b.bits == NULL);
	}

	/* A zero-initialised, never allocated bitmap may be released (error
	 * paths release both bitmaps whether or not the second was made). */
	struct bitmap z;

	memset(&z, 0, sizeof(z));
	bitmap_release(&z);
	T_ASSERT(z.bits == NULL);
}

/* reset moves the window and clears it, stale bits of an earlier cycle
 * included, whatever the size: empty, 1, around a byte, around a word,
 * the whole capacity; at low and high starts (always multiples of 8). */
static void reset_windows(void)
{
	static const uint64_t starts[] = { 0, 8, 64, 4096 + 8, 1ULL << 40,
					   (1ULL << 52) - 8 };
	static const uint64_t sizes[] = { 0, 1, 7, 8, 9, 63, 64, 65, 127, 128,
					  129, 500, 1024 };
	struct bitmap b;
	struct mdf_err err;

	T_OK(bitmap_init(&b, 1024, &err), &err);
	for (size_t s = 0; s < sizeof(starts) / sizeof(starts[0]); s++) {
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			uint64_t st = starts[s], n = sizes[z];

			/* Dirty the whole buffer as a previous cycle would. */
			bitmap_reset(&b, 0, b.cap_pfns);
			bitmap_set_range(&b, 0, b.cap_pfns);
			bitmap_reset(&b, st, st + n);
			T_EQ_U64(b.start_pfn, st);
			T_EQ_U64(b.end_pfn, st + n);
			T_EQ_U64(bitmap_bytes(&b), (n + 7) / 8);
			for (uint64_t k = 0; k < (n + 7) / 8; k++)
				T_EQ_U64(b.bits[k], 0);
			T_EQ_U64(bitmap_count(&b, 0, UINT64_MAX), 0);
			T_EQ_U64(bitmap_next_set(&b, 0), st + n);
			T_EQ_U64(bitmap_next_set(&b, st), st + n);
			T_ASSERT(!bitmap_test(&b, st));
			T_ASSERT(!bitmap_test(&b, st + n));
			if (st)
				T_ASSERT(!bitmap_test(&b, st - 1));
			if (n == 0) {
				/* Nothing can be set or cleared in it. */
				bitmap_set_range(&b, 0, UINT64_MAX);
				T_EQ_U64(bitmap_count(&b, 0, UINT64_MAX), 0);
				T_EQ_U64(bitmap_clear_range(&b, 0, UINT64_MAX), 0);
				T_EQ_U64(bitmap_next_set(&b, 0), st);
				T_EQ_U64(bitmap_next_set(&b, UINT64_MAX), st);
				T_ASSERT(!bitmap_test(&b, st));
				continue;
			}
			bitmap_set_range(&b, 0, UINT64_MAX);
			T_EQ_U64(bitmap_count(&b, 0, UINT64_MAX), n);
			T_EQ_U64(bitmap_next_set(&b, 0), st);
			T_ASSERT(bitmap_test(&b, st + n - 1));
			T_ASSERT(!bitmap_test(&b, st + n));
		}
	}
	bitmap_release(&b);
}

/* Bits past end_pfn in the last byte stay clear: a dump stores the bytes
 * of the window as they are. */
static void tail_bits_stay_clear(void)
{
	struct bitmap b;
	struct mdf_err err;

	T_OK(bitmap_init(&b, 128, &err), &err);
	for (uint64_t n = 1; n <= 80; n++) {
		size_t nb = (size_t)((n + 7) / 8);
		uint8_t last = n % 8 ? (uint8_t)((1u << (n % 8)) - 1) : 0xff;

		bitmap_reset(&b, 0, 128);
		bitmap_set_range(&b, 0, 128);
		bitmap_reset(&b, 800, 800 + n);
		bitmap_set_range(&b, 0, UINT64_MAX);
		T_EQ_U64(bitmap_bytes(&b), nb);
		for (size_t k = 0; k + 1 < nb; k++)
			T_EQ_U64(b.bits[k], 0xff);
		T_EQ_U64(b.bits[nb - 1], last);
		T_EQ_U64(bitmap_clear_range(&b, 800 + n - 1, UINT64_MAX), 1);
		T_EQ_U64(bitmap_count(&b, 0, UINT64_MAX), n - 1);
		T_EQ_U64(bitmap_next_set(&b, 800 + n - 1), 800 + n);
	}
	bitmap_release(&b);
}

/* Every [a, b) over a 150-pfn window (unaligned end, three 64-bit words)
 * from 10 pfns before to 10 after, set into an empty window. */
static void set_range_exhaustive(void)
{
	const uint64_t st = 1024 + 8, n = 150;
	struct bitmap b;
	struct model m;
	struct mdf_err err;

	T_OK(bitmap_init(&b, n, &err), &err);
	T_ASSERT(model_init(&m, st, st + n));
	for (uint64_t a = st - 10; a <= st + n + 10; a++) {
		for (uint64_t e = st - 10; e <= st + n + 10; e++) {
			bitmap_reset(&b, st, st + n);
			memset(m.v, 0, (size_t)n);
			bitmap_set_range(&b, a, e);
			model_fill(&m, a, e, true);
			T_CALL(check_same(&b, &m));
		}
	}
	/* Whole-space and empty ranges. */
	bitmap_reset(&b, st, st + n);
	bitmap_set_range(&b, UINT64_MAX, 0);
	bitmap_set_range(&b, 0, 0);
	bitmap_set_range(&b, UINT64_MAX, UINT64_MAX);
	bitmap_set_range(&b, st + 5, st + 5);
	T_EQ_U64(bitmap_count(&b, 0, UINT64_MAX), 0);
	bitmap_set_range(&b, 0, UINT64_MAX);
	T_EQ_U64(bitmap_count(&b, 0, UINT64_MAX), n);
	model_release(&m);
	bitmap_release(&b);
}

/* Every [a, b) cleared from a full window and from a random one: the
 * result and the count returned (bits really removed). */
static void clear_range_exhaustive(void)
{
	const uint64_t st = 64, n = 150;
	struct bitmap b;
	struct model m, pat;
	struct mdf_err err;

	rng_seed(0x636c656172ULL);
	T_OK(bitmap_init(&b, n, &err), &err);
	T_ASSERT(model_init(&m, st, st + n));
	T_ASSERT(model_init(&pat, st, st + n));
	for (int full = 1; full >= 0; full--) {
		for (uint64_t i = 0; i < n; i++)
			pat.v[i] = full || rng_below(2);
		for (uint64_t a = st - 10; a <= st + n + 10; a++) {
			for (uint64_t e = st - 10; e <= st + n + 10; e++) {
				bitmap_reset(&b, st, st + n);
				for (uint64_t i = 0; i < n; i++)
					if (pat.v[i])
						bitmap_set(&b, st + i);
				memcpy(m.v, pat.v, (size_t)n);
				T_EQ_U64(bitmap_clear_range(&b, a, e),
					 model_fill(&m, a, e, false));
				T_CALL(check_same(&b, &m));
			}
		}
	}
	bitmap_reset(&b, st, st + n);
	bitmap_set_range(&b, 0, UINT64_MAX);
	T_EQ_U64(bitmap_clear_range(&b, UINT64_MAX, 0), 0);
	T_EQ_U64(bitmap_clear_range(&b, st + n, UINT64_MAX), 0);
	T_EQ_U64(bitmap_clear_range(&b, 0, st), 0);
	T_EQ_U64(bitmap_clear_range(&b, 0, UINT64_MAX), n);
	T_EQ_U64(bitmap_clear_range(&b, 0, UINT64_MAX), 0);
	model_release(&pat);
	model_release(&m);
	bitmap_release(&b);
}

/* bitmap_count of every [a, b) around a 200-pfn window with random bits,
 * at several densities; the window is not word-aligned in the buffer's
 * pfn space only at its end (offsets are relative to start_pfn). */
static void count_exhaustive(void)
{
	static const unsigned dens[] = { 0, 30, 500, 970, 1000 };
	const uint64_t st = 8, n = 200;
	struct bitmap b;
	struct model m;
	struct mdf_err err;

	rng_seed(0x636f756e74ULL);
	T_OK(bitmap_init(&b, n, &err), &err);
	T_ASSERT(model_init(&m, st, st + n));
	for (size_t d = 0; d < sizeof(dens) / sizeof(dens[0]); d++) {
		bitmap_reset(&b, st, st + n);
		random_fill(&b, &m, dens[d]);
		T_CALL(check_same(&b, &m));
		for (uint64_t a = 0; a <= st + n + 10; a++)
			for (uint64_t e = 0; e <= st + n + 10; e++)
				T_EQ_U64(bitmap_count(&b, a, e), model_count(&m, a, e));
		T_EQ_U64(bitmap_count(&b, UINT64_MAX, 0), 0);
		T_EQ_U64(bitmap_count(&b, UINT64_MAX, UINT64_MAX), 0);
		T_EQ_U64(bitmap_count(&b, st + n, UINT64_MAX), 0);
		T_EQ_U64(bitmap_count(&b, 0, st), 0);
	}
	model_release(&m);
	bitmap_release(&b);
}

/* bitmap_next_set from every position before, in and past the window,
 * for edge sizes and patterns (empty, full, first only, last only,
 * random sparse and dense). */
static void next_set_every_position(void)
{
	static const uint64_t sizes[] = { 1, 2, 7, 8, 9, 63, 64, 65, 127, 128,
					  129, 300 };
	struct bitmap b;
	struct model m;
	struct mdf_err err;

	rng_seed(0x6e657874ULL);
	T_OK(bitmap_init(&b, 512, &err), &err);
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		const uint64_t st = 128 + 8 * z, n = sizes[z];

		T_ASSERT(model_init(&m, st, st + n));
		for (int pat = 0; pat < 7; pat++) {
			bitmap_reset(&b, st, st + n);
			memset(m.v, 0, (size_t)n);
			switch (pat) {
			case 0: break;
			case 1: random_fill(&b, &m, 1000); break;
			case 2: bitmap_set(&b, st); m.v[0] = true; break;
			case 3: bitmap_set(&b, st + n - 1); m.v[n - 1] = true; break;
			case 4: random_fill(&b, &m, 20); break;
			case 5: random_fill(&b, &m, 200); break;
			default: random_fill(&b, &m, 800); break;
			}
			T_CALL(check_same(&b, &m));
			for (uint64_t from = 0; from <= st + n + 70; from++)
				T_EQ_U64(bitmap_next_set(&b, from), model_next(&m, from));
			T_EQ_U64(bitmap_next_set(&b, UINT64_MAX), st + n);
			T_EQ_U64(bitmap_next_set(&b, UINT64_MAX - 7), st + n);
			/* Walking the set bits visits each once, in order
			 * (and ends, whatever next_set returns). */
			uint64_t seen = 0, p = bitmap_next_set(&b, 0), q;

			while (p < st + n) {
				T_ASSERT(model_test(&m, p));
				seen++;
				q = bitmap_next_set(&b, p + 1);
				T_ASSERT(q > p);
				p = q;
			}
			T_EQ_U64(p, st + n);
			T_EQ_U64(seen, model_count(&m, 0, UINT64_MAX));
		}
		model_release(&m);
	}
	bitmap_release(&b);
}

/*
 * Random sequences of every operation against the model, on windows of
 * edge sizes.  Each window is used twice: in a buffer just big enough for
 * it (so valgrind/ASan see any read past the window's words) and in one
 * shared buffer whose window moves from cycle to cycle.
 */
static void random_ops_vs_model(void)
{
	static const uint64_t wins[][2] = { /* start, size */
		{ 0, 1 }, { 8, 1 }, { 0, 7 }, { 16, 8 }, { 24, 9 },
		{ 0, 63 }, { 64, 64 }, { 8, 65 }, { 4096, 127 }, { 40, 128 },
		{ 1ULL << 33, 129 }, { 4096 + 8, 1000 }, { 0, 0 },
		{ (1ULL << 52) - 1024, 1024 },
	};
	struct bitmap shared, b;
	struct model m;
	struct mdf_err err;

	rng_seed(0x72616e646f6dULL);
	T_OK(bitmap_init(&shared, 1024, &err), &err);
	for (size_t w = 0; w < 2 * sizeof(wins) / sizeof(wins[0]); w++) {
		const uint64_t st = wins[w / 2][0], n = wins[w / 2][1];
		struct bitmap *bp = &shared;

		if (w % 2 == 0) {
			T_OK(bitmap_init(&b, n, &err), &err);
			bp = &b;
		}
		T_ASSERT(model_init(&m, st, st + n));
		bitmap_reset(bp, st, st + n);
		T_CALL(check_same(bp, &m));
		for (int op = 0; op < 1500; op++) {
			uint64_t x = pick_pfn(&m), y = pick_pfn(&m);

			switch (rng_below(9)) {
			case 0:
			case 1:
				bitmap_set_range(bp, x, y);
				model_fill(&m, x, y, true);
				break;
			case 2:
			case 3:
				T_EQ_U64(bitmap_clear_range(bp, x, y),
					 model_fill(&m, x, y, false));
				break;
			case 4:
				T_EQ_U64(bitmap_count(bp, x, y), model_count(&m, x, y));
				break;
			case 5:
				T_EQ_U64(bitmap_next_set(bp, x), model_next(&m, x));
				break;
			case 6:
				T_EQ_U64(bitmap_test(bp, x), model_test(&m, x));
				break;
			default: /* single bits: only inside the window */
				if (!n)
					break;
				x = st + rng_below(n);
				if (rng() & 1) {
					bitmap_set(bp, x);
					m.v[x - st] = true;
				} else {
					bitmap_clear(bp, x);
					m.v[x - st] = false;
				}
				break;
			}
			if (op % 4 == 0)
				T_CALL(check_same(bp, &m));
		}
		T_CALL(check_same(bp, &m));
		model_release(&m);
		if (bp == &b)
			bitmap_release(&b);
	}
	bitmap_release(&shared);
}

/* bitmap_copy: window and bits into a same-size or larger buffer with
 * stale content; the copy is independent of its source. */
static void copy_windows(void)
{
	static const uint64_t wins[][2] = {
		{ 0, 0 }, { 0, 1 }, { 8, 63 }, { 64, 64 }, { 128, 65 },
		{ 4096 + 8, 1000 }, { 1ULL << 40, 1024 },
	};
	struct bitmap src, same, big;
	struct model m;
	struct mdf_err err;

	rng_seed(0x636f7079ULL);
	T_OK(bitmap_init(&src, 1024, &err), &err);
	T_OK(bitmap_init(&same, 1024, &err), &err);
	T_OK(bitmap_init(&big, 4096, &err), &err);
	for (size_t w = 0; w < sizeof(wins) / sizeof(wins[0]); w++) {
		const uint64_t st = wins[w][0], n = wins[w][1];

		T_ASSERT(model_init(&m, st, st + n));
		bitmap_reset(&src, st, st + n);
		random_fill(&src, &m, 500);
		/* Destinations hold another window with other bits. */
		bitmap_reset(&same, 8, 8 + 1024);
		bitmap_set_range(&same, 0, UINT64_MAX);
		bitmap_reset(&big, 16, 16 + 3000);
		bitmap_set_range(&big, 100, 2000);
		bitmap_copy(&same, &src);
		bitmap_copy(&big, &src);
		T_EQ_U64(same.cap_pfns, 1024);
		T_EQ_U64(big.cap_pfns, 4096);
		T_CALL(check_same(&same, &m));
		T_CALL(check_same(&big, &m));
		T_ASSERT(memcmp(big.bits, src.bits, bitmap_bytes(&src)) == 0);
		/* Changing the source leaves the copies alone, and back. */
		bitmap_set_range(&src, 0, UINT64_MAX);
		T_CALL(check_same(&same, &m));
		bitmap_clear_range(&big, 0, UINT64_MAX);
		T_EQ_U64(bitmap_count(&same, 0, UINT64_MAX),
			 model_count(&m, 0, UINT64_MAX));
		T_EQ_U64(bitmap_count(&src, 0, UINT64_MAX), n);
		model_release(&m);
	}
	bitmap_release(&big);
	bitmap_release(&same);
	bitmap_release(&src);
}

/* A window ending at the very top of the pfn space: no wrap-around in
 * clipping, counting or next_set. */
static void high_pfn_window(void)
{
	const uint64_t st = (UINT64_MAX - 200) & ~(uint64_t)7;
	struct bitmap b;
	struct model m;
	struct mdf_err err;

	rng_seed(0x68696768ULL);
	T_OK(bitmap_init(&b, 256, &err), &err);
	T_ASSERT(model_init(&m, st, UINT64_MAX));
	bitmap_reset(&b, st, UINT64_MAX);
	T_EQ_U64(bitmap_bytes(&b), (UINT64_MAX - st + 7) / 8);
	T_EQ_U64(bitmap_next_set(&b, 0), UINT64_MAX);
	bitmap_set_range(&b, UINT64_MAX - 3, UINT64_MAX);
	model_fill(&m, UINT64_MAX - 3, UINT64_MAX, true);
	T_CALL(check_same(&b, &m));
	T_EQ_U64(bitmap_next_set(&b, 0), UINT64_MAX - 3);
	T_EQ_U64(bitmap_next_set(&b, UINT64_MAX - 1), UINT64_MAX - 1);
	T_EQ_U64(bitmap_next_set(&b, UINT64_MAX), UINT64_MAX);
	T_ASSERT(!bitmap_test(&b, UINT64_MAX));
	for (int op = 0; op < 500; op++) {
		uint64_t x = pick_pfn(&m), y = pick_pfn(&m);

		if (rng() & 1) {
			bitmap_set_range(&b, x, y);
			model_fill(&m, x, y, true);
		} else {
			T_EQ_U64(bitmap_clear_range(&b, x, y),
				 model_fill(&m, x, y, false));
		}
		T_EQ_U64(bitmap_count(&b, y, x), model_count(&m, y, x));
		T_EQ_U64(bitmap_next_set(&b, x), model_next(&m, x));
		T_CALL(check_same(&b, &m));
	}
	T_EQ_U64(bitmap_clear_range(&b, 0, UINT64_MAX), model_count(&m, 0, UINT64_MAX));
	T_EQ_U64(bitmap_next_set(&b, 0), UINT64_MAX);
	model_release(&m);
	bitmap_release(&b);
}

/* A 1 Mi-pfn window (a real cycle's size): walking the set bits with
 * next_set and counting sub-ranges stay linear and correct. */
static void large_window(void)
{
	const uint64_t st = 1ULL << 30, n = 1ULL << 20;
	uint32_t *prefix; /* prefix[i]: set bits among the first i pfns */
	struct bitmap b;
	struct model m;
	struct mdf_err err;
	uint64_t seen = 0, p, q;

	rng_seed(0x6c61726765ULL);
	T_OK(bitmap_init(&b, n, &err), &err);
	T_ASSERT(model_init(&m, st, st + n));
	prefix = malloc((size_t)(n + 1) * sizeof(*prefix));
	T_ASSERT(prefix != NULL);
	bitmap_reset(&b, st, st + n);
	/* Sparse bits, a dense run, and the last pfn. */
	for (int k = 0; k < 3000; k++) {
		p = st + rng_below(n);
		bitmap_set(&b, p);
		m.v[p - st] = true;
	}
	bitmap_set_range(&b, st + 500000 + 3, st + 520000 + 5);
	model_fill(&m, st + 500000 + 3, st + 520000 + 5, true);
	bitmap_set(&b, st + n - 1);
	m.v[n - 1] = true;
	prefix[0] = 0;
	for (uint64_t i = 0; i < n; i++)
		prefix[i + 1] = prefix[i] + m.v[i];

	T_EQ_U64(bitmap_count(&b, 0, UINT64_MAX), prefix[n]);
	p = bitmap_next_set(&b, 0);
	while (p < st + n) {
		T_ASSERT(m.v[p - st]);
		seen++;
		q = bitmap_next_set(&b, p + 1);
		T_ASSERT(q > p);
		p = q;
	}
	T_EQ_U64(p, st + n);
	T_EQ_U64(seen, prefix[n]);
	for (int k = 0; k < 2000; k++) {
		uint64_t x = st + rng_below(n + 1), y = st + rng_below(n + 1);
		uint64_t want = x < y ? prefix[y - st] - prefix[x - st] : 0;

		T_EQ_U64(bitmap_count(&b, x, y), want);
	}
	for (int k = 0; k < 200; k++) {
		uint64_t x = st + rng_below(n);

		T_EQ_U64(bitmap_next_set(&b, x), model_next(&m, x));
	}
	T_EQ_U64(bitmap_clear_range(&b, st + 1, st + n - 1),
		 prefix[n - 1] - prefix[1]);
	T_EQ_U64(bitmap_next_set(&b, st + 1), st + n - 1);
	bitmap_set_range(&b, 0, UINT64_MAX);
	T_EQ_U64(bitmap_count(&b, 0, UINT64_MAX), n);
	T_EQ_U64(bitmap_count(&b, st + 3, st + n - 3), n - 6);
	T_EQ_U64(bitmap_clear_range(&b, 0, UINT64_MAX), n);
	T_EQ_U64(bitmap_next_set(&b, 0), st + n);
	free(prefix);
	model_release(&m);
	bitmap_release(&b);
}

/* bitmap_cycle_pfns keeps its promises for budgets and totals of any
 * realistic size: a multiple of 4096, at least 4096, at most the total
 * rounded up, within the budget when the budget allows 4096, and never
 * smaller for a larger budget. */
static void cycle_pfns_contract(void)
{
	rng_seed(0x6379636c65ULL);
	T_EQ_U64(bitmap_cycle_pfns(0, 2, 1000), 4096);
	T_EQ_U64(bitmap_cycle_pfns(1 << 20, 0, 1ULL << 30), 8ULL << 20);
	T_EQ_U64(bitmap_cycle_pfns(1 << 20, 1, 0), 4096);
	T_EQ_U64(bitmap_cycle_pfns(1 << 20, 2, 1), 4096);
	T_EQ_U64(bitmap_cycle_pfns(1 << 20, 2, 4096), 4096);
	T_EQ_U64(bitmap_cycle_pfns(1 << 20, 2, 4097), 8192);
	T_EQ_U64(bitmap_cycle_pfns(1024, 2, 1ULL << 30), 4096);
	T_EQ_U64(bitmap_cycle_pfns(1024 + 512, 2, 1ULL << 30), 4096);
	T_EQ_U64(bitmap_cycle_pfns(2048, 2, 1ULL << 30), 8192);
	for (int k = 0; k < 20000; k++) {
		uint64_t budget = rng() >> (rng_below(60) + 4); /* < 2^60 */
		unsigned nb = (unsigned)rng_below(9);
		uint64_t total = rng() >> (rng_below(52) + 12); /* < 2^52 */
		uint64_t all = ((total ? total : 1) + 4095) & ~(uint64_t)4095;
		uint64_t c = bitmap_cycle_pfns(budget, nb, total);
		uint64_t c2 = bitmap_cycle_pfns(budget * 2, nb, total);

		T_EQ_U64(c % 4096, 0);
		T_ASSERT(c >= 4096);
		T_ASSERT(c <= all);
		if (c > 4096)
			T_ASSERT(c / 8 * (nb ? nb : 1) <= budget);
		T_ASSERT(c2 >= c);
	}
}

/* ---- overflows found by these tests, fixed in bitmap.c ----------------- */

/*
 * budget_bytes * 8 wraps for budgets of 2^61 bytes and more, which
 * --cyclic-buffer accepts (up to UINT64_MAX >> 10 KiB): a huge budget then
 * plans the smallest cycles instead of one cycle for the whole machine.
 */
static void cycle_pfns_budget_overflow(void)
{
	T_EQ_U64(bitmap_cycle_pfns(1ULL << 61, 2, 1ULL << 40), 1ULL << 40);
	T_EQ_U64(bitmap_cycle_pfns(UINT64_MAX >> 10 << 10, 2, 1ULL << 40),
		 1ULL << 40);
}

/*
 * bitmap_init rounds cap_pfns up to 64 with align_up(), which wraps to 0
 * for cap_pfns > UINT64_MAX - 63: it then reports success with no room.
 */
static void init_cap_overflow(void)
{
	struct bitmap b;
	struct mdf_err err;
	enum mdf_status st = bitmap_init(&b, UINT64_MAX, &err);

	if (st == MDF_OK)   /* today: MDF_OK with cap_pfns == 0 */
		bitmap_release(&b);
	T_EQ_U64(st, MDF_ERR_NOMEM);
}

int main(void)
{
	T_RUN(set_clear_count);
	T_RUN(bytes_layout);
	T_RUN(cycle_sizes);
	T_RUN(init_and_release);
	T_RUN(reset_windows);
	T_RUN(tail_bits_stay_clear);
	T_RUN(set_range_exhaustive);
	T_RUN(clear_range_exhaustive);
	T_RUN(count_exhaustive);
	T_RUN(next_set_every_position);
	T_RUN(random_ops_vs_model);
	T_RUN(copy_windows);
	T_RUN(high_pfn_window);
	T_RUN(large_window);
	T_RUN(cycle_pfns_contract);
	T_RUN(cycle_pfns_budget_overflow);
	T_RUN(init_cap_overflow);
	return t_done();
}
