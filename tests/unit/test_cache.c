/*
 * tests/unit/test_cache.c - the page cache: entry state machine, mapped
 * windows, read path, fallbacks and errors.
 *
 * The input is a temporary file in which every 8-byte word holds its own
 * file offset (host byte order), so any returned byte can be checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "tap.h"
#include "testutil.h"
#include "util.h"

static char g_path[64];
static int g_fd = -1;
static size_t g_ps;          /* host page size */
static uint64_t g_size;      /* file size: 64 pages + 100 bytes */

/* The byte the pattern has at file offset @x. */
static unsigned char pat_byte(uint64_t x)
{
	uint64_t w = x & ~(uint64_t)7;
	unsigned char b[8];

	memcpy(b, &w, 8);
	return b[x & 7];
}

static int pat_check(const unsigned char *p, uint64_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pat_byte(off + i))
			return 0;
	return 1;
}

static int make_file(void)
{
	unsigned char *buf;
	int fd;

	g_ps = (size_t)sysconf(_SC_PAGESIZE);
	g_size = 64 * (uint64_t)g_ps + 100;
	snprintf(g_path, sizeof(g_path), "/tmp/test_cache.XXXXXX");
	fd = mkstemp(g_path);
	if (fd < 0)
		return -1;
	buf = malloc(g_size);
	if (!buf)
		return -1;
	for (uint64_t i = 0; i < g_size; i++)
		buf[i] = pat_byte(i);
	if (pwrite(fd, buf, g_size, 0) != (ssize_t)g_size) {
		free(buf);
		return -1;
	}
	free(buf);
	return fd;
}

static struct cache_config cfg_of(enum cache_mmap_policy p, size_t n,
				  size_t ra, uint64_t wmax)
{
	struct cache_config cfg = { 0 };

	cfg.policy = p;
	cfg.nentries = n;
	cfg.read_ahead = ra;
	cfg.window_max = wmax;
	return cfg;
}

static struct cache_span span_of(uint64_t start, uint64_t end, bool mappable)
{
	struct cache_span s = { start, end, mappable };

	return s;
}

/* Fill a pending entry by hand with [off, off+len) of the pattern. */
static void fill(struct cache_entry *e, uint64_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		e->rbuf[i] = pat_byte(off + i);
	e->off = off;
	e->len = len;
}

static void t_init_defaults(void)
{
	struct cache c;
	struct cache_config cfg = { 0 };
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, NULL, &err), &err);
	T_EQ_U64(c.nentries, 16);
	T_EQ_U64(c.read_ahead, 256 << 10);
	T_EQ_U64(c.policy, CACHE_MMAP_NEVER);
	T_EQ_U64(c.page_size, g_ps);
	T_EQ_U64(c.file_size, g_size);
	T_EQ_U64(c.window_max, sizeof(void *) >= 8 ? (uint64_t)256 << 20
						   : (uint64_t)64 << 20);
	/* Its own budget: two windows of the default size. */
	T_ASSERT(c.budget == &c.own_budget);
	T_EQ_U64(c.budget->limit, 2 * c.window_max);
	cache_release(&c);

	cfg.window_max = g_ps - 1;
	T_ASSERT(cache_init(&c, g_fd, g_path, &cfg, &err) == MDF_ERR_ARG);
	T_ASSERT(strstr(err.msg, g_path) != NULL);
	cache_release(&c);
	cfg.window_max = 3 * (uint64_t)g_ps + 5; /* rounded down */
	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	T_EQ_U64(c.window_max, 3 * g_ps);
	cache_release(&c);
}

static void t_alloc_add_search_hit(void)
{
	struct cache c;
	struct cache_entry *e;
	const unsigned char *p;
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, NULL, &err), &err);
	e = cache_alloc(&c, 256);
	T_ASSERT(e != NULL);
	T_EQ_U64(e->state, CACHE_PENDING);
	T_ASSERT(e->rcap >= 256 && e->buf == e->rbuf);
	T_ASSERT(c.pending.head == e);
	fill(e, 1000, 256);
	cache_add(&c, e);
	T_EQ_U64(e->state, CACHE_USED);
	T_ASSERT(c.pending.head == NULL && c.used.head == e && c.used.tail == e);

	p = cache_search(&c, 1000, 256);
	T_ASSERT(p != NULL && pat_check(p, 1000, 256));
	p = cache_search(&c, 1100, 8);
	T_ASSERT(p != NULL && pat_check(p, 1100, 8));
	T_ASSERT(cache_search(&c, 999, 8) == NULL);   /* starts before */
	T_ASSERT(cache_search(&c, 1250, 8) == NULL);  /* runs past end */
	T_ASSERT(cache_search(&c, 5000, 1) == NULL);
	T_EQ_U64(c.stats.hits, 2);
	T_EQ_U64(c.stats.misses, 3);
	cache_release(&c);
}

static void t_alloc_free_pool(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_NEVER, 2, 0, 0);
	struct cache_entry *a, *b, *d;
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	a = cache_alloc(&c, 64);
	b = cache_alloc(&c, 64);
	T_ASSERT(a && b && a != b);
	T_ASSERT(c.free_list == NULL);
	T_ASSERT(cache_alloc(&c, 64) == NULL);  /* all pending */
	cache_free(&c, b);                      /* failed read */
	T_EQ_U64(b->state, CACHE_FREE);
	T_ASSERT(c.free_list == b && c.pending.head == a);
	d = cache_alloc(&c, 32);
	T_ASSERT(d == b);                       /* back from the pool */
	T_EQ_U64(c.stats.evictions, 0);
	cache_free(&c, a);
	cache_free(&c, d);
	T_ASSERT(c.pending.head == NULL && c.used.head == NULL);
	cache_release(&c);
}

static void t_pending_is_miss(void)
{
	struct cache c;
	struct cache_entry *e;
	const unsigned char *p;
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, NULL, &err), &err);
	e = cache_alloc(&c, 4096);
	T_ASSERT(e != NULL);
	fill(e, 0, 4096);
	T_ASSERT(cache_search(&c, 0, 8) == NULL);  /* not valid yet */
	T_EQ_U64(c.stats.misses, 1);
	cache_add(&c, e);
	p = cache_search(&c, 0, 8);
	T_ASSERT(p != NULL && pat_check(p, 0, 8));
	T_EQ_U64(c.stats.hits, 1);
	cache_release(&c);
}

static void t_nesting(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_NEVER, 4, 4096, 0);
	struct cache_span sp = span_of(0, g_size, false);
	struct cache_entry *u[2], *pend[4];
	const unsigned char *p;
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	for (int i = 0; i < 2; i++) {
		u[i] = cache_alloc(&c, 16);
		T_ASSERT(u[i] != NULL);
		fill(u[i], 16 * (uint64_t)i, 16);
		cache_add(&c, u[i]);
	}
	/* Two free entries, then the two used ones by eviction (LRU first). */
	for (int i = 0; i < 4; i++) {
		pend[i] = cache_alloc(&c, 16);
		T_ASSERT(pend[i] != NULL);
	}
	T_ASSERT(pend[2] == u[0] && pend[3] == u[1]);
	T_EQ_U64(c.stats.evictions, 2);
	T_ASSERT(c.used.head == NULL);
	/* Every entry is pending now: nothing may be stolen. */
	T_ASSERT(cache_alloc(&c, 16) == NULL);
	T_ASSERT(cache_get(&c, 0, 8, &sp, &p, &err) == MDF_ERR_INTERNAL);
	T_ASSERT(strstr(err.msg, "page cache exhausted (nested reads too deep)"));
	T_ASSERT(strncmp(err.msg, g_path, strlen(g_path)) == 0);
	/* The innermost read completes, and the outer ones still can. */
	fill(pend[3], 8192, 16);
	cache_add(&c, pend[3]);
	T_OK(cache_get(&c, 100, 8, &sp, &p, &err), &err); /* evicts pend[3] */
	T_ASSERT(pat_check(p, 100, 8));
	for (int i = 0; i < 3; i++) {
		T_EQ_U64(pend[i]->state, CACHE_PENDING);
		fill(pend[i], 20000 + 16 * (uint64_t)i, 16);
		cache_add(&c, pend[i]);
	}
	for (int i = 0; i < 3; i++) {
		p = cache_search(&c, 20000 + 16 * (uint64_t)i, 16);
		T_ASSERT(p && pat_check(p, 20000 + 16 * (uint64_t)i, 16));
	}
	cache_release(&c);
}

static int g_discards;
static uint64_t g_discard_off;

static void count_discard(struct cache *c, struct cache_entry *e)
{
	(void)c;
	g_discards++;
	g_discard_off = e->off;
}

static void t_evict_discard(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_NEVER, 3, 0, 0);
	struct cache_entry *e, *first = NULL;
	const unsigned char *p;
	struct mdf_err err;

	g_discards = 0;
	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	for (int i = 0; i < 3; i++) {
		e = cache_alloc(&c, 32);
		T_ASSERT(e != NULL);
		fill(e, 100 * (uint64_t)i, 32);
		e->discard = count_discard;
		cache_add(&c, e);
		if (!i)
			first = e;
	}
	/* Touch entry 0: entry 1 becomes the least recently used. */
	T_ASSERT(cache_search(&c, 0, 32) != NULL);
	T_ASSERT(c.used.head == first);
	e = cache_alloc(&c, 32);
	T_ASSERT(e != NULL);
	T_EQ_U64(g_discards, 1);
	T_EQ_U64(g_discard_off, 100);
	T_EQ_U64(c.stats.evictions, 1);
	T_ASSERT(e->discard != count_discard); /* reset to the default */
	fill(e, 500, 32);
	cache_add(&c, e);
	T_ASSERT(cache_search(&c, 100, 8) == NULL);
	p = cache_search(&c, 500, 32);
	T_ASSERT(p && pat_check(p, 500, 32));
	/* Release discards the two remaining counted entries. */
	cache_release(&c);
	T_EQ_U64(g_discards, 3);
}

static void t_rbuf_reuse(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_NEVER, 1, 0, 0);
	struct cache_entry *e;
	unsigned char *buf;
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	e = cache_alloc(&c, 1000);
	T_ASSERT(e != NULL);
	buf = e->rbuf;
	fill(e, 0, 1000);
	cache_add(&c, e);
	e = cache_alloc(&c, 10);       /* evicts; smaller: same memory */
	T_ASSERT(e != NULL && e->rbuf == buf && e->rcap >= 1000);
	cache_free(&c, e);
	e = cache_alloc(&c, 100000);   /* larger: grown */
	T_ASSERT(e != NULL && e->rcap >= 100000);
	fill(e, 0, 100000);
	cache_add(&c, e);
	T_ASSERT(pat_check(cache_search(&c, 99992, 8), 99992, 8));
	cache_release(&c);
}

static void t_pinned(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_NEVER, 2, 64, 0);
	struct cache_span sp = span_of(0, g_size, false);
	struct cache_entry *pa, *pb;
	const unsigned char *a, *p;
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	T_EQ_U64(c.npinned, 0);
	T_OK(cache_get_pinned(&c, 0, 64, &sp, &a, &pa, &err), &err);
	T_ASSERT(pa && pa->pins == 1 && !cache_entry_mapped(pa));
	T_EQ_U64(c.npinned, 1);
	/* Many other reads cycle through the one unpinned slot. */
	for (uint64_t off = 4096; off < 4096 * 10; off += 4096) {
		T_OK(cache_get(&c, off, 64, &sp, &p, &err), &err);
		T_ASSERT(pat_check(p, off, 64));
		T_ASSERT(pat_check(a, 0, 64)); /* still valid */
	}
	T_EQ_U64(c.stats.evictions, 8);
	/* A hit on the pinned entry pins it again. */
	T_OK(cache_get_pinned(&c, 8, 8, &sp, &p, &pb, &err), &err);
	T_ASSERT(pb == pa && pa->pins == 2 && pat_check(p, 8, 8));
	T_EQ_U64(c.npinned, 1); /* entries, not pins */
	/* Pin the second entry too: nothing left to evict. */
	T_OK(cache_get_pinned(&c, 8192, 8, &sp, &p, &pb, &err), &err);
	T_ASSERT(pb != pa);
	T_EQ_U64(c.npinned, 2);
	T_ASSERT(cache_get(&c, 12288, 8, &sp, &p, &err) == MDF_ERR_INTERNAL);
	T_ASSERT(cache_alloc(&c, 8) == NULL);
	cache_unpin(&c, pb);
	T_OK(cache_get(&c, 12288, 8, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 12288, 8) && pat_check(a, 0, 64));
	cache_unpin(&c, pa);
	cache_unpin(&c, pa);
	cache_unpin(&c, NULL);
	T_EQ_U64(pa->pins, 0);
	T_EQ_U64(c.npinned, 0);
	/* len 0: no entry, no pin. */
	T_OK(cache_get_pinned(&c, 5, 0, &sp, &p, &pb, &err), &err);
	T_ASSERT(pb == NULL && p != NULL);
	cache_release(&c);
}

static void t_spanning_lookup(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_NEVER, 4, 4096, 0);
	struct cache_span sp = span_of(0, g_size, false);
	const unsigned char *p;
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	T_OK(cache_get(&c, 0, 8, &sp, &p, &err), &err);     /* [0, 4096) */
	T_OK(cache_get(&c, 4096, 8, &sp, &p, &err), &err);  /* [4096, 8192) */
	T_EQ_U64(c.stats.reads, 2);
	T_EQ_U64(c.stats.misses, 2);
	/* The end of one entry and the start of the next: a miss. */
	T_OK(cache_get(&c, 4000, 200, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 4000, 200));
	T_EQ_U64(c.stats.misses, 3);
	T_EQ_U64(c.stats.reads, 3);
	T_EQ_U64(c.stats.hits, 0);
	T_OK(cache_get(&c, 4100, 8, &sp, &p, &err), &err);  /* a hit */
	T_ASSERT(pat_check(p, 4100, 8));
	T_EQ_U64(c.stats.hits, 1);
	/* Odd lengths and offsets. */
	for (uint64_t off = 1; off < 30000; off += 997) {
		unsigned char buf[333];

		T_OK(cache_pread(&c, buf, sizeof(buf), off, &sp, &err), &err);
		T_ASSERT(pat_check(buf, off, sizeof(buf)));
	}
	cache_release(&c);
}

static void t_read_ahead_bounded(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_NEVER, 4, 65536, 0);
	struct cache_span sp = span_of(1000, 10000, false);
	const unsigned char *p;
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	T_OK(cache_get(&c, 9000, 100, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 9000, 100));
	T_EQ_U64(c.stats.read_bytes, 1000);  /* up to the span end only */
	T_OK(cache_get(&c, 9500, 500, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 9500, 500));
	T_EQ_U64(c.stats.hits, 1);
	/* a read elsewhere reads the rest of its page, no more */
	T_OK(cache_get(&c, 1000, 8, &sp, &p, &err), &err);
	T_EQ_U64(c.stats.read_bytes, 1000 + (4096 - 1000 % 4096));
	/* A request larger than the read-ahead reads exactly itself. */
	cache_release(&c);
	cfg.read_ahead = 16;
	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	T_OK(cache_get(&c, 2000, 100, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 2000, 100));
	T_EQ_U64(c.stats.read_bytes, 100);
	/* No span: exactly the request. */
	T_OK(cache_get(&c, 30000, 24, NULL, &p, &err), &err);
	T_ASSERT(pat_check(p, 30000, 24));
	T_EQ_U64(c.stats.read_bytes, 124);
	/* A request outside its span is a caller bug. */
	T_ASSERT(cache_get(&c, 9990, 20, &sp, &p, &err) == MDF_ERR_ARG);
	T_ASSERT(cache_get(&c, 999, 2, &sp, &p, &err) == MDF_ERR_ARG);
	T_ASSERT(cache_get(&c, UINT64_MAX - 2, 8, NULL, &p, &err) == MDF_ERR_ARG);
	cache_release(&c);
}

static void t_map_whole_span(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_TRY, 4, 0, 0);
	struct cache_span sp = span_of(g_ps, 64 * (uint64_t)g_ps, true);
	const unsigned char *p;
	struct mdf_err err;
	uint64_t n = 0;

	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	/* A page-sized request maps; the small ones after it hit. */
	for (uint64_t off = sp.start; off < sp.end; off += 512, n++) {
		size_t len = off == sp.start ? g_ps : 512;

		T_OK(cache_get(&c, off, len, &sp, &p, &err), &err);
		T_ASSERT(pat_check(p, off, len));
	}
	T_EQ_U64(c.stats.mmaps, 1);
	T_EQ_U64(c.stats.reads, 0);
	T_EQ_U64(c.stats.misses, 1);
	T_EQ_U64(c.stats.hits, n - 1);
	/* Zero copy: the entry is the mapping itself. */
	T_ASSERT(c.used.head->map_addr != NULL);
	T_EQ_U64(c.used.head->off, sp.start);
	T_EQ_U64(c.used.head->len, sp.end - sp.start);
	T_ASSERT(p == (const unsigned char *)c.used.head->map_addr +
			      (sp.end - 512 - sp.start));
	/* A span marked mappable with unaligned ends maps only its whole
	 * pages; a request outside them is read. */
	sp = span_of(150, 64 * (uint64_t)g_ps + 150, true);
	T_OK(cache_get(&c, 160, g_ps, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 160, g_ps));
	T_EQ_U64(c.stats.mmaps, 1);
	T_EQ_U64(c.stats.reads, 1);
	cache_release(&c);
	T_EQ_U64(c.stats.munmaps, 1);
}

/* A request smaller than a page does not get a window on a miss. */
static void t_small_reads(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_ALWAYS, 4, g_ps, 0);
	struct cache_span sp = span_of(0, 64 * (uint64_t)g_ps, true);
	const unsigned char *p;
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	T_OK(cache_get(&c, 40 * (uint64_t)g_ps + 8, 8, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 40 * (uint64_t)g_ps + 8, 8));
	T_EQ_U64(c.stats.mmaps, 0);
	T_EQ_U64(c.stats.reads, 1);
	T_EQ_U64(c.stats.read_bytes, g_ps - 8);   /* the rest of its page */
	/* A page maps the span; small requests in it hit the window. */
	T_OK(cache_get(&c, 0, g_ps, &sp, &p, &err), &err);
	T_EQ_U64(c.stats.mmaps, 1);
	T_OK(cache_get(&c, 20 * (uint64_t)g_ps + 8, 8, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 20 * (uint64_t)g_ps + 8, 8));
	T_EQ_U64(c.stats.mmaps, 1);
	T_EQ_U64(c.stats.reads, 1);
	cache_release(&c);
}

static void t_window_max(void)
{
	struct cache c;
	uint64_t w = 4 * (uint64_t)g_ps;
	struct cache_config cfg = cfg_of(CACHE_MMAP_ALWAYS, 3, 0, w);
	struct cache_span sp = span_of(0, 64 * (uint64_t)g_ps, true);
	const unsigned char *p;
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	for (uint64_t off = 0; off < sp.end; off += g_ps / 2) {
		if (off % w == 0) { /* a page-sized request maps the tile */
			T_OK(cache_get(&c, off, g_ps, &sp, &p, &err), &err);
			T_ASSERT(pat_check(p, off, g_ps));
		}
		T_OK(cache_get(&c, off, g_ps / 2, &sp, &p, &err), &err);
		T_ASSERT(pat_check(p, off, g_ps / 2));
		T_ASSERT(c.used.head->len <= w);
	}
	T_EQ_U64(c.stats.mmaps, 16);
	T_EQ_U64(c.stats.munmaps, 13);  /* three windows still cached */
	T_EQ_U64(c.stats.reads, 0);
	/* A request straddling two tiles gets a window of its own. */
	T_OK(cache_get(&c, w - 8, g_ps, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, w - 8, g_ps));
	T_EQ_U64(c.used.head->off, align_down(w - 8, g_ps));
	T_EQ_U64(c.used.head->len, w);
	T_EQ_U64(c.stats.mmaps, 17);
	/* When the last tile is partial, a straddling request gets a full
	 * window that ends at the span end. */
	sp.end = 62 * (uint64_t)g_ps;
	T_OK(cache_get(&c, 59 * (uint64_t)g_ps + 100, 2 * g_ps, &sp, &p, &err),
	     &err);
	T_ASSERT(pat_check(p, 59 * (uint64_t)g_ps + 100, 2 * g_ps));
	T_EQ_U64(c.used.head->off, 58 * (uint64_t)g_ps);
	T_EQ_U64(c.used.head->len, w);
	T_EQ_U64(c.stats.mmaps, 18);
	T_EQ_U64(c.stats.reads, 0);
	/* Larger than any window: read, even under ALWAYS. */
	T_OK(cache_get(&c, 100, w + 1, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 100, w + 1));
	T_EQ_U64(c.stats.reads, 1);
	T_EQ_U64(c.stats.mmaps, 18);
	cache_release(&c);
	T_EQ_U64(c.stats.munmaps, c.stats.mmaps);
}

static void t_non_mappable_span(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_ALWAYS, 4, 0, 0);
	/* The fractional head of a segment: [100, one page). */
	struct cache_span sp = span_of(100, g_ps, false);
	const unsigned char *p;
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	T_OK(cache_get(&c, 100, 8, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 100, 8));
	T_OK(cache_get(&c, g_ps - 8, 8, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, g_ps - 8, 8));
	T_EQ_U64(c.stats.mmaps, 0);
	T_EQ_U64(c.stats.mmap_failures, 0);
	T_EQ_U64(c.stats.reads, 1);
	T_EQ_U64(c.stats.read_bytes, g_ps - 100);
	/* The fractional tail of the file: past the last whole page. */
	sp = span_of(64 * (uint64_t)g_ps, g_size, false);
	T_OK(cache_get(&c, g_size - 12, 12, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, g_size - 12, 12));
	T_EQ_U64(c.stats.mmaps, 0);
	cache_release(&c);
}

static void t_policy_never(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_NEVER, 4, 8192, 0);
	struct cache_span sp = span_of(0, 64 * (uint64_t)g_ps, true);
	const unsigned char *p;
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	for (uint64_t off = 0; off < sp.end; off += 4096) {
		T_OK(cache_get(&c, off, 4096, &sp, &p, &err), &err);
		T_ASSERT(pat_check(p, off, 4096));
	}
	T_EQ_U64(c.stats.mmaps, 0);
	T_EQ_U64(c.stats.mmap_failures, 0);
	/* the first read takes its page, then 8 KiB each as they follow */
	T_EQ_U64(c.stats.reads, sp.end / 8192 + 1);
	T_EQ_U64(c.stats.read_bytes, sp.end);
	cache_release(&c);
	T_EQ_U64(c.stats.munmaps, 0);
}

/*
 * /proc/self/mem can be pread() but not mmap()ed (ENODEV): the file
 * offsets are our own addresses, so the pattern lives in a buffer whose
 * words hold their addresses.  With @same, -2 when the file does not
 * show that buffer at its address.
 */
static int open_self_mem(unsigned char **bufp, uint64_t *basep, size_t npages, bool same)
{
	unsigned char *buf, probe[16];
	int fd;

	buf = aligned_alloc(g_ps, npages * g_ps);
	if (!buf)
		return -1;
	*basep = (uint64_t)(uintptr_t)buf;
	for (size_t i = 0; i < npages * g_ps; i++)
		buf[i] = pat_byte(*basep + i);
	fd = open("/proc/self/mem", O_RDONLY);
	if (fd < 0) {
		free(buf);
		return -1;
	}
	/* qemu-user running a 32-bit program maps its memory at a guest
	 * base: /proc/self/mem is then the emulator's, at other addresses */
	if (same && (pread(fd, probe, sizeof(probe), (off_t)*basep) != (ssize_t)sizeof(probe) ||
		     memcmp(probe, buf, sizeof(probe)) != 0)) {
		close(fd);
		free(buf);
		return -2;
	}
	*bufp = buf;
	return fd;
}

/* Why open_self_mem() returned @fd < 0. */
static const char *self_mem_why(int fd)
{
	return fd == -2 ? "/proc/self/mem does not show our own memory at our addresses "
			  "(qemu-user with a guest base)"
			: "/proc/self/mem not available";
}

static void t_mmap_failure_try(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_TRY, 4, 0, 0);
	struct cache_span sp;
	const unsigned char *p;
	struct mdf_err err;
	unsigned char *buf;
	uint64_t base;
	int fd = open_self_mem(&buf, &base, 8, true);

	if (fd < 0) {
		t_skip(self_mem_why(fd));
		return;
	}
	sp = span_of(base, base + 8 * g_ps, true);
	if (cache_init(&c, fd, "/proc/self/mem", &cfg, &err) != MDF_OK) {
		close(fd);
		free(buf);
		T_ASSERT(!"cache_init");
	}
	for (uint64_t off = base; off < sp.end; off += 1000) {
		/* The first request is a page: it tries a window. */
		size_t len = MDF_MIN(off == base ? g_ps : 1000, sp.end - off);

		if (cache_get(&c, off, len, &sp, &p, &err) != MDF_OK ||
		    !pat_check(p, off, len))
			break;
	}
	cache_release(&c);
	close(fd);
	free(buf);
	T_EQ_U64(c.stats.mmap_failures, 1);
	T_EQ_U64(c.stats.mmaps, 0);
	T_EQ_U64(c.policy, CACHE_MMAP_NEVER);
	/* the reads follow each other: each reads twice as far ahead */
	T_ASSERT(c.stats.reads >= 2 && c.stats.reads <= 6);
	T_ASSERT(c.stats.read_bytes >= 8 * g_ps && c.stats.read_bytes < 9 * g_ps);
	T_EQ_U64(c.stats.misses, c.stats.reads);
}

static void t_mmap_failure_always(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_ALWAYS, 4, 0, 0);
	struct cache_span sp;
	const unsigned char *p;
	struct mdf_err err;
	unsigned char *buf;
	uint64_t base;
	enum mdf_status st = MDF_OK;
	int fd = open_self_mem(&buf, &base, 2, false);

	if (fd < 0) {
		t_skip(self_mem_why(fd));
		return;
	}
	sp = span_of(base, base + 2 * g_ps, true);
	if (cache_init(&c, fd, "/proc/self/mem", &cfg, &err) == MDF_OK) {
		st = cache_get(&c, base, g_ps, &sp, &p, &err);
		cache_release(&c);
	}
	close(fd);
	free(buf);
	T_EQ_U64(st, MDF_ERR_IO);
	T_ASSERT(err.sys_errno != 0);
	T_ASSERT(strstr(err.msg, "/proc/self/mem: mmap") == err.msg);
	T_EQ_U64(c.stats.mmap_failures, 1);
	T_EQ_U64(c.policy, CACHE_MMAP_ALWAYS);
	T_ASSERT(c.free_list != NULL || c.entries == NULL);
}

static void t_short_read(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_TRY, 4, 0, 0);
	struct cache_span sp = span_of(64 * (uint64_t)g_ps, g_size + 500, false);
	const unsigned char *p;
	struct mdf_err err;
	char want[128];

	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	/* Read-ahead running into EOF is fine while the request is in. */
	T_OK(cache_get(&c, sp.start, 100, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, sp.start, 100));
	T_EQ_U64(c.used.head->len, 100);
	/* A request that is not all there fails. */
	T_ASSERT(cache_get(&c, g_size - 50, 60, &sp, &p, &err) == MDF_ERR_FORMAT);
	snprintf(want, sizeof(want), "%s: unexpected end of file at offset 0x%llx",
		 g_path, (unsigned long long)g_size);
	T_ASSERT(strncmp(err.msg, want, strlen(want)) == 0);
	/* The failed entry went back to the pool. */
	T_ASSERT(c.pending.head == NULL && c.free_list != NULL);
	/* A mappable span reaching past EOF: no window touches the missing
	 * page (that would be SIGBUS); the request is read and fails. */
	sp = span_of(0, 66 * (uint64_t)g_ps, true);
	T_ASSERT(cache_get(&c, 65 * (uint64_t)g_ps, 8, &sp, &p, &err) ==
		 MDF_ERR_FORMAT);
	T_ASSERT(strncmp(err.msg, g_path, strlen(g_path)) == 0);
	T_EQ_U64(c.stats.mmaps, 0);
	/* The last partial page is read, its whole pages mapped. */
	T_OK(cache_get(&c, g_size - 8, 8, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, g_size - 8, 8));
	T_EQ_U64(c.stats.mmaps, 0);
	T_OK(cache_get(&c, 8, g_ps, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 8, g_ps));
	T_EQ_U64(c.stats.mmaps, 1);
	T_EQ_U64(c.used.head->len, 64 * (uint64_t)g_ps);
	cache_release(&c);
}

static void t_read_error(void)
{
	struct cache c;
	struct cache_span sp = span_of(0, g_size, false);
	const unsigned char *p;
	struct mdf_err err;
	int fd = open(g_path, O_WRONLY);

	T_ASSERT(fd >= 0);
	T_OK(cache_init(&c, fd, g_path, NULL, &err), &err);
	T_ASSERT(cache_get(&c, 0, 8, &sp, &p, &err) == MDF_ERR_IO);
	close(fd);
	T_EQ_U64(err.sys_errno, EBADF);
	T_ASSERT(strncmp(err.msg, g_path, strlen(g_path)) == 0);
	T_ASSERT(c.pending.head == NULL);
	cache_release(&c);
}

static void t_cache_done(void)
{
	struct cache c;
	struct cache_config cfg = cfg_of(CACHE_MMAP_TRY, 4, 0, 0);
	struct cache_span sp = span_of(0, 64 * (uint64_t)g_ps, true);
	const unsigned char *p;
	struct mdf_err err;

	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	/* A forward pass releasing what it read: the window shrinks ahead
	 * of the reader and is unmapped when nothing is left of it. */
	for (uint64_t off = 0; off < sp.end; off += g_ps) {
		T_OK(cache_get(&c, off, g_ps, &sp, &p, &err), &err);
		T_ASSERT(pat_check(p, off, g_ps));
		T_EQ_U64(c.used.head->off, off);
		cache_done(&c, off, g_ps);
	}
	T_EQ_U64(c.stats.mmaps, 1);
	T_EQ_U64(c.stats.munmaps, 1);
	T_ASSERT(c.used.head == NULL);
	cache_done(&c, 0, UINT64_MAX);   /* whole range, no overflow */
	cache_done(&c, 17, 3 * g_ps);    /* unaligned ends */
	cache_done(&c, 5, 0);
	/* Released bytes come back through a new window. */
	T_OK(cache_get(&c, 0, g_ps, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 0, g_ps));
	T_EQ_U64(c.stats.mmaps, 2);
	/* A release in the middle is a hole: the bytes around it still hit,
	 * the whole pages inside [16.x, 20.x) pages are not handed out... */
	cache_done(&c, 16 * (uint64_t)g_ps + 3, 4 * (uint64_t)g_ps);
	T_EQ_U64(c.used.head->off, 0);
	T_EQ_U64(c.used.head->nholes, 1);
	T_OK(cache_get(&c, 40 * (uint64_t)g_ps, g_ps, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 40 * (uint64_t)g_ps, g_ps));
	T_OK(cache_get(&c, 16 * (uint64_t)g_ps, g_ps, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 16 * (uint64_t)g_ps, g_ps));
	T_EQ_U64(c.stats.mmaps, 2);
	/* ...so they need a window again, which replaces the old one (it
	 * maps the same bytes). */
	T_OK(cache_get(&c, 18 * (uint64_t)g_ps, g_ps, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 18 * (uint64_t)g_ps, g_ps));
	T_EQ_U64(c.stats.mmaps, 3);
	T_EQ_U64(c.stats.munmaps, 2);
	T_ASSERT(c.used.head->nholes == 0 && c.used.head->next == NULL);
	/* Holes next to each other merge; one at an end shrinks the entry. */
	cache_done(&c, 10 * (uint64_t)g_ps, 2 * (uint64_t)g_ps);
	cache_done(&c, 12 * (uint64_t)g_ps, 2 * (uint64_t)g_ps);
	T_EQ_U64(c.used.head->nholes, 1);
	cache_done(&c, 0, 10 * (uint64_t)g_ps);
	T_EQ_U64(c.used.head->nholes, 0);
	T_EQ_U64(c.used.head->off, 14 * (uint64_t)g_ps);
	/* A release that reaches the end keeps what lies before it. */
	cache_done(&c, 48 * (uint64_t)g_ps, 20 * (uint64_t)g_ps);
	T_EQ_U64(c.used.head->off, 14 * (uint64_t)g_ps);
	T_EQ_U64(c.used.head->len, 34 * (uint64_t)g_ps);
	/* Less than a page releases nothing. */
	cache_done(&c, 32 * (uint64_t)g_ps + 1, g_ps - 2);
	T_EQ_U64(c.used.head->nholes, 0);
	/* Past CACHE_HOLES holes, the entry keeps the larger side. */
	for (uint64_t k = 0; k < CACHE_HOLES; k++)
		cache_done(&c, (16 + 2 * k) * (uint64_t)g_ps, g_ps);
	T_EQ_U64(c.used.head->nholes, CACHE_HOLES);
	cache_done(&c, 30 * (uint64_t)g_ps, g_ps);
	T_EQ_U64(c.used.head->off, 31 * (uint64_t)g_ps);
	T_EQ_U64(c.used.head->len, 17 * (uint64_t)g_ps);
	T_EQ_U64(c.used.head->nholes, 0);
	T_OK(cache_get(&c, 24 * (uint64_t)g_ps, g_ps, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 24 * (uint64_t)g_ps, g_ps));
	T_EQ_U64(c.stats.mmaps, 4);
	cache_release(&c);
	T_EQ_U64(c.stats.munmaps, 4);
}

/* Windows of 4 pages, a budget of 2 of them. */
static void t_budget(void)
{
	struct cache a, b;
	struct cache_budget bud;
	uint64_t w = 4 * (uint64_t)g_ps;
	struct cache_config cfg = cfg_of(CACHE_MMAP_TRY, 8, g_ps, w);
	struct cache_span sp = span_of(0, 64 * (uint64_t)g_ps, true);
	struct cache_entry *pin1, *pin2;
	const unsigned char *p;
	struct mdf_err err;

	cache_budget_init(&bud, 2 * w);
	cfg.budget = &bud;
	T_OK(cache_init(&a, g_fd, g_path, &cfg, &err), &err);
	T_OK(cache_init(&b, g_fd, g_path, &cfg, &err), &err);
	T_ASSERT(a.budget == &bud && b.budget == &bud);
	for (uint64_t t = 0; t < 3; t++) {
		T_OK(cache_get(&a, t * w, g_ps, &sp, &p, &err), &err);
		T_ASSERT(pat_check(p, t * w, g_ps));
	}
	/* The third window unmapped the least recently used one first. */
	T_EQ_U64(a.stats.mmaps, 3);
	T_EQ_U64(a.stats.munmaps, 1);
	T_EQ_U64(atomic_load(&bud.mapped), 2 * w);
	T_EQ_U64(cache_budget_peak(&bud), 2 * w);
	/* Both windows pinned: a fourth tile is read, not mapped. */
	T_OK(cache_get_pinned(&a, w, g_ps, &sp, &p, &pin1, &err), &err);
	T_OK(cache_get_pinned(&a, 2 * w, g_ps, &sp, &p, &pin2, &err), &err);
	T_OK(cache_get(&a, 3 * w, g_ps, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 3 * w, g_ps));
	T_EQ_U64(a.stats.mmaps, 3);
	T_EQ_U64(a.stats.budget_reads, 1);
	T_ASSERT(!cache_entry_mapped(a.used.head));
	/* The other cache finds no room either... */
	T_OK(cache_get(&b, 5 * w, g_ps, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 5 * w, g_ps));
	T_EQ_U64(b.stats.mmaps, 0);
	T_EQ_U64(b.stats.budget_reads, 1);
	/* ...until the first one gives its windows back. */
	cache_unpin(&a, pin1);
	cache_trim(&a);
	T_EQ_U64(a.stats.munmaps, 2);    /* the idle one; the pinned stays */
	T_ASSERT(cache_entry_mapped(pin2) && pin2->pins == 1);
	T_OK(cache_get(&b, 6 * w, g_ps, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 6 * w, g_ps));
	T_EQ_U64(b.stats.mmaps, 1);
	T_EQ_U64(atomic_load(&bud.mapped), 2 * w);
	cache_unpin(&a, pin2);
	cache_release(&a);
	cache_release(&b);
	T_EQ_U64(atomic_load(&bud.mapped), 0);
	T_EQ_U64(cache_budget_peak(&bud), 2 * w);
	/* A budget below one window: everything is read. */
	cache_budget_init(&bud, w - g_ps);
	T_OK(cache_init(&a, g_fd, g_path, &cfg, &err), &err);
	T_OK(cache_get(&a, 0, g_ps, &sp, &p, &err), &err);
	T_ASSERT(pat_check(p, 0, g_ps));
	T_EQ_U64(a.stats.mmaps, 0);
	T_EQ_U64(a.stats.budget_reads, 1);
	cache_release(&a);
}

/*
 * The reader never touches released bytes.  Every range cache_done()
 * releases is made inaccessible (PROT_NONE) through the test hook, so a
 * pointer the cache hands out into one would fault when checked; random
 * requests, pins and releases over two caches sharing a small budget.
 */
static void protect_released(void *addr, size_t len)
{
	if (mprotect(addr, len, PROT_NONE) != 0)
		abort();
}

static void t_released_never_touched(void)
{
	struct cache cs[2];
	struct cache_budget bud;
	uint64_t w = 4 * (uint64_t)g_ps, seed = 0x9e3779b97f4a7c15ULL;
	struct cache_config cfg = cfg_of(CACHE_MMAP_ALWAYS, 6, 2 * g_ps, w);
	struct cache_span sp = span_of(0, 64 * (uint64_t)g_ps, true);
	struct cache_entry *pins[2][2] = { { NULL, NULL }, { NULL, NULL } };
	const unsigned char *p;
	struct mdf_err err;
	uint64_t released = 0, remaps = 0;

	cache_budget_init(&bud, 3 * w);
	cfg.budget = &bud;
	cfg.released = protect_released;
	for (int i = 0; i < 2; i++)
		T_OK(cache_init(&cs[i], g_fd, g_path, &cfg, &err), &err);
	for (int it = 0; it < 20000; it++) {
		uint64_t r = t_rnd(&seed);
		struct cache *c = &cs[r & 1];
		struct cache_entry **pn = pins[r & 1];
		uint64_t off = (r >> 8) % sp.end;
		size_t len;

		switch ((r >> 4) % 8) {
		case 0: /* release a range (the caller's contract: no pins
			   held into it, so let them go first) */
			for (int k = 0; k < 2; k++) {
				cache_unpin(c, pn[k]);
				pn[k] = NULL;
			}
			cache_done(c, off, (r >> 40) % (6 * w));
			released++;
			break;
		case 1: /* pin, or let a pin go */
			if (pn[r >> 63]) {
				cache_unpin(c, pn[r >> 63]);
				pn[r >> 63] = NULL;
				break;
			}
			len = g_ps;
			off = MDF_MIN(off, sp.end - len);
			T_OK(cache_get_pinned(c, off, len, &sp, &p, &pn[r >> 63], &err),
			     &err);
			T_ASSERT(pat_check(p, off, len));
			break;
		default: /* a read of 8 bytes to 3 pages */
			len = (size_t)(((r >> 32) % 4) ? ((r >> 32) % 4) * g_ps : 8);
			off = MDF_MIN(off, sp.end - len);
			T_OK(cache_get(c, off, len, &sp, &p, &err), &err);
			T_ASSERT(pat_check(p, off, len));
			break;
		}
		T_ASSERT(atomic_load(&bud.mapped) <= bud.limit);
	}
	for (int i = 0; i < 2; i++) {
		remaps += cs[i].stats.mmaps;
		cache_unpin(&cs[i], pins[i][0]);
		cache_unpin(&cs[i], pins[i][1]);
		cache_release(&cs[i]);
	}
	printf("# %llu releases, %llu windows mapped\n",
	       (unsigned long long)released, (unsigned long long)remaps);
	T_ASSERT(released > 1000 && remaps > 1000);
	T_EQ_U64(atomic_load(&bud.mapped), 0);
	T_ASSERT(cache_budget_peak(&bud) <= 3 * w);
}

static void t_release_twice(void)
{
	struct cache c;
	struct cache z;
	struct cache_config cfg = cfg_of(CACHE_MMAP_TRY, 2, 0, 0);
	struct cache_span sp = span_of(0, 64 * (uint64_t)g_ps, true);
	const unsigned char *p;
	struct mdf_err err;

	memset(&z, 0, sizeof(z));
	cache_release(&z);
	cache_release(&z);
	cache_done(&z, 0, 100);
	T_OK(cache_init(&c, g_fd, g_path, &cfg, &err), &err);
	T_OK(cache_get(&c, 0, g_ps, &sp, &p, &err), &err);
	T_ASSERT(cache_alloc(&c, 10) != NULL);  /* left pending */
	cache_release(&c);
	T_EQ_U64(c.stats.munmaps, 1);
	cache_release(&c);
	T_EQ_U64(c.stats.munmaps, 1);
	T_ASSERT(c.entries == NULL && c.used.head == NULL);
	/* A released cache refuses work instead of crashing. */
	T_ASSERT(cache_get(&c, 0, 8, &sp, &p, &err) == MDF_ERR_INTERNAL);
}

int main(void)
{
	g_fd = make_file();
	if (g_fd < 0) {
		printf("not ok setup: cannot create %s\n", g_path);
		return 1;
	}
	T_RUN(t_init_defaults);
	T_RUN(t_alloc_add_search_hit);
	T_RUN(t_alloc_free_pool);
	T_RUN(t_pending_is_miss);
	T_RUN(t_nesting);
	T_RUN(t_evict_discard);
	T_RUN(t_rbuf_reuse);
	T_RUN(t_pinned);
	T_RUN(t_spanning_lookup);
	T_RUN(t_read_ahead_bounded);
	T_RUN(t_map_whole_span);
	T_RUN(t_small_reads);
	T_RUN(t_window_max);
	T_RUN(t_non_mappable_span);
	T_RUN(t_policy_never);
	T_RUN(t_mmap_failure_try);
	T_RUN(t_mmap_failure_always);
	T_RUN(t_short_read);
	T_RUN(t_read_error);
	T_RUN(t_cache_done);
	T_RUN(t_budget);
	T_RUN(t_released_never_touched);
	T_RUN(t_release_twice);
	close(g_fd);
	unlink(g_path);
	return t_done();
}
