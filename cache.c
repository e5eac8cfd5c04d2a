/*
 * cache.c - input bytes by file offset: mmap()ed windows used in place and
 * pread() buffers, held in entries of any length (see cache.h).
 *
 * Where upstream maps 4 MiB windows (262,144 mmap calls for a pass over
 * 1 TiB), a window here is 256 MiB: 4,096 calls for that pass, and 1 MiB
 * of page tables for the two windows the budget allows at once.
 */
#include "cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define CACHE_DEFAULT_ENTRIES 16
#define CACHE_DEFAULT_READ_AHEAD ((size_t)256 << 10)
#define CACHE_DEFAULT_WINDOW_64 ((uint64_t)256 << 20)
#define CACHE_DEFAULT_WINDOW_32 ((uint64_t)64 << 20)
/* Two windows of the default size. */
#define CACHE_DEFAULT_BUDGET_64 (2 * CACHE_DEFAULT_WINDOW_64)
#define CACHE_DEFAULT_BUDGET_32 (2 * CACHE_DEFAULT_WINDOW_32)

void cache_budget_init(struct cache_budget *b, uint64_t limit)
{
	if (!limit)
		limit = sizeof(void *) >= 8 ? CACHE_DEFAULT_BUDGET_64
					    : CACHE_DEFAULT_BUDGET_32;
	b->limit = limit;
	atomic_init(&b->mapped, 0);
	atomic_init(&b->peak, 0);
}

uint64_t cache_budget_peak(const struct cache_budget *b)
{
	return atomic_load(&((struct cache_budget *)b)->peak);
}

/* Take @len bytes of the budget; false when they would exceed it. */
static bool budget_take(struct cache_budget *b, uint64_t len)
{
	uint64_t cur = atomic_load(&b->mapped), peak;

	do {
		if (len > b->limit || cur > b->limit - len)
			return false;
	} while (!atomic_compare_exchange_weak(&b->mapped, &cur, cur + len));
	cur += len;
	peak = atomic_load(&b->peak);
	while (peak < cur && !atomic_compare_exchange_weak(&b->peak, &peak, cur))
		;
	return true;
}

static void budget_give(struct cache_budget *b, uint64_t len)
{
	atomic_fetch_sub(&b->mapped, len);
}

static const char *cache_name(const struct cache *c)
{
	return c->name ? c->name : "input";
}

/* Discard callback of a read buffer: the memory stays with the slot. */
static void cache_discard_buffer(struct cache *c, struct cache_entry *e)
{
	(void)c;
	(void)e;
}

/* Discard callback of a mapped window. */
static void cache_discard_unmap(struct cache *c, struct cache_entry *e)
{
	if (e->map_addr) {
		/* munmap() only fails for a bad range, which we never pass. */
		(void)munmap(e->map_addr, e->map_len);
		c->stats.munmaps++;
		budget_give(c->budget, e->map_len);
	}
	e->map_addr = NULL;
	e->map_len = 0;
}

/* Forget what the entry held; keep its read buffer. */
static void cache_entry_reset(struct cache_entry *e)
{
	e->off = 0;
	e->len = 0;
	e->buf = e->rbuf;
	e->discard = cache_discard_buffer;
	e->prev = NULL;
	e->next = NULL;
	e->pins = 0;
	e->map_addr = NULL;
	e->map_len = 0;
	e->map_off = 0;
	e->nholes = 0;
}

static void cache_list_push_front(struct cache_list *l, struct cache_entry *e)
{
	e->prev = NULL;
	e->next = l->head;
	if (l->head)
		l->head->prev = e;
	else
		l->tail = e;
	l->head = e;
}

static void cache_list_remove(struct cache_list *l, struct cache_entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		l->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		l->tail = e->prev;
	e->prev = e->next = NULL;
}

static void cache_free_push(struct cache *c, struct cache_entry *e)
{
	cache_entry_reset(e);
	e->state = CACHE_FREE;
	e->next = c->free_list;
	c->free_list = e;
}

enum mdf_status cache_init(struct cache *c, int fd, const char *name,
			   const struct cache_config *cfg, struct mdf_err *err)
{
	struct cache_config cf = { 0 };
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t wmax;
	struct stat st;

	if (cfg)
		cf = *cfg;
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->name = name;
	c->released = cf.released;
	cache_budget_init(&c->own_budget, 0);
	c->budget = cf.budget ? cf.budget : &c->own_budget;
	if (ps <= 0 || (ps & (ps - 1)) != 0)
		return mdf_err_set(err, MDF_ERR_INTERNAL,
				   "%s: unusable host page size %ld",
				   cache_name(c), ps);
	c->page_size = (size_t)ps;
	if (cf.policy != CACHE_MMAP_NEVER && cf.policy != CACHE_MMAP_TRY &&
	    cf.policy != CACHE_MMAP_ALWAYS)
		return mdf_err_set(err, MDF_ERR_ARG, "%s: bad mmap policy %d",
				   cache_name(c), (int)cf.policy);
	c->policy = cf.policy;
	c->read_ahead = cf.read_ahead ? cf.read_ahead : CACHE_DEFAULT_READ_AHEAD;

	wmax = cf.window_max;
	if (!wmax)
		wmax = sizeof(void *) >= 8 ? CACHE_DEFAULT_WINDOW_64
					   : CACHE_DEFAULT_WINDOW_32;
	/* A window length must fit in size_t (32-bit hosts). */
	if (wmax - 1 > (uint64_t)(size_t)-1 - 1)
		wmax = (uint64_t)(size_t)-1;
	wmax = align_down(wmax, c->page_size);
	if (!wmax)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "%s: mmap window size 0x%llx is below the page size 0x%zx",
				   cache_name(c),
				   (unsigned long long)cf.window_max, c->page_size);
	c->window_max = wmax;

	/* Windows must not reach a page wholly past the end of a regular
	 * file: touching it would raise SIGBUS.  st_size 0 (procfs files)
	 * means unknown. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		c->file_size = (uint64_t)st.st_size;

	c->nentries = cf.nentries ? cf.nentries : CACHE_DEFAULT_ENTRIES;
	c->entries = calloc(c->nentries, sizeof(*c->entries));
	if (!c->entries) {
		size_t n = c->nentries;

		c->nentries = 0;
		return mdf_err_set(err, MDF_ERR_NOMEM,
				   "%s: no memory for %zu cache entries",
				   cache_name(c), n);
	}
	for (size_t i = c->nentries; i-- > 0;)
		cache_free_push(c, &c->entries[i]);
	return MDF_OK;
}

void cache_stats_add(struct cache_stats *dst, const struct cache_stats *src)
{
	dst->hits += src->hits;
	dst->misses += src->misses;
	dst->mmaps += src->mmaps;
	dst->munmaps += src->munmaps;
	dst->mmap_failures += src->mmap_failures;
	dst->reads += src->reads;
	dst->read_bytes += src->read_bytes;
	dst->evictions += src->evictions;
	dst->budget_reads += src->budget_reads;
}

void cache_release(struct cache *c)
{
	for (size_t i = 0; c->entries && i < c->nentries; i++) {
		struct cache_entry *e = &c->entries[i];

		if (e->state == CACHE_USED && e->discard)
			e->discard(c, e);
		if (e->map_addr) /* a pending window, or a discard that did not */
			cache_discard_unmap(c, e);
		free(e->rbuf);
	}
	free(c->entries);
	c->entries = NULL;
	c->nentries = 0;
	c->free_list = NULL;
	c->pending.head = c->pending.tail = NULL;
	c->used.head = c->used.tail = NULL;
	c->npinned = 0;
}

/* True if [off, off+len) lies inside the bytes held by @e. */
static bool cache_entry_holds(const struct cache_entry *e, uint64_t off,
			      size_t len)
{
	if (off < e->off || off - e->off > e->len || len > e->len - (off - e->off))
		return false;
	for (unsigned i = 0; i < e->nholes; i++)
		if (off < e->holes[i].end && e->holes[i].start < off + len)
			return false;
	return true;
}

static struct cache_entry *cache_lookup(struct cache *c, uint64_t off,
					size_t len)
{
	for (struct cache_entry *e = c->used.head; e; e = e->next) {
		if (!cache_entry_holds(e, off, len))
			continue;
		if (e != c->used.head) {
			cache_list_remove(&c->used, e);
			cache_list_push_front(&c->used, e);
		}
		c->stats.hits++;
		return e;
	}
	c->stats.misses++;
	return NULL;
}

const unsigned char *cache_search(struct cache *c, uint64_t off, size_t len)
{
	struct cache_entry *e = cache_lookup(c, off, len);

	return e ? e->buf + (off - e->off) : NULL;
}

/* cache_alloc() with a reason on failure.  @err may be NULL. */
static enum mdf_status cache_take(struct cache *c, size_t len,
				  struct cache_entry **ret, struct mdf_err *err)
{
	struct cache_entry *e = c->free_list;

	if (e) {
		c->free_list = e->next;
	} else {
		/* The least recently used entry nobody holds. */
		for (e = c->used.tail; e && e->pins; e = e->prev)
			;
		if (!e) {
			if (!err)
				return MDF_ERR_INTERNAL;
			return mdf_err_set(err, MDF_ERR_INTERNAL,
					   "%s: page cache exhausted (nested reads too deep)",
					   cache_name(c));
		}
		cache_list_remove(&c->used, e);
		if (e->discard)
			e->discard(c, e);
		c->stats.evictions++;
	}
	if (len > e->rcap) {
		unsigned char *p = realloc(e->rbuf, len);

		if (!p) {
			cache_free_push(c, e);
			if (!err)
				return MDF_ERR_NOMEM;
			return mdf_err_set(err, MDF_ERR_NOMEM,
					   "%s: no memory for a read buffer of 0x%zx bytes",
					   cache_name(c), len);
		}
		e->rbuf = p;
		e->rcap = len;
	}
	cache_entry_reset(e);
	e->state = CACHE_PENDING;
	cache_list_push_front(&c->pending, e);
	*ret = e;
	return MDF_OK;
}

struct cache_entry *cache_alloc(struct cache *c, size_t len)
{
	struct cache_entry *e;

	if (cache_take(c, len, &e, NULL) != MDF_OK)
		return NULL;
	return e;
}

void cache_add(struct cache *c, struct cache_entry *e)
{
	if (e->state != CACHE_PENDING)
		return;
	cache_list_remove(&c->pending, e);
	e->state = CACHE_USED;
	cache_list_push_front(&c->used, e);
}

void cache_free(struct cache *c, struct cache_entry *e)
{
	if (e->state != CACHE_PENDING)
		return;
	cache_list_remove(&c->pending, e);
	if (e->map_addr)
		cache_discard_unmap(c, e);
	cache_free_push(c, e);
}

/* Take @e off the used list and unmap it (it is idle: no pins). */
static void cache_drop(struct cache *c, struct cache_entry *e)
{
	cache_list_remove(&c->used, e);
	if (e->discard)
		e->discard(c, e);
	cache_free_push(c, e);
}

/* The least recently used window nobody holds, or NULL. */
static struct cache_entry *cache_idle_window(struct cache *c)
{
	struct cache_entry *e;

	for (e = c->used.tail; e && (e->pins || !e->map_addr); e = e->prev)
		;
	return e;
}

/*
 * Make room in the budget for a window of @len bytes over file [ws, we):
 * idle windows that overlap it go first (the new one replaces them, and
 * they may have released bytes), then idle windows from the LRU end.
 * False when the rest of the budget is pinned or held by other caches.
 */
static bool cache_room(struct cache *c, uint64_t ws, uint64_t we)
{
	struct cache_entry *e, *prev;

	for (e = c->used.tail; e; e = prev) {
		prev = e->prev;
		if (e->map_addr && !e->pins && e->map_off < we &&
		    ws < e->map_off + e->map_len)
			cache_drop(c, e);
	}
	while (!budget_take(c->budget, we - ws)) {
		e = cache_idle_window(c);
		if (!e)
			return false;
		cache_drop(c, e);
	}
	return true;
}

/*
 * Try to serve [off, off+len) of a mappable span from a new window.
 * MDF_OK with *ret NULL means "read it instead".
 */
static enum mdf_status cache_map(struct cache *c, uint64_t off, size_t len,
				 const struct cache_span *span,
				 struct cache_entry **ret, struct mdf_err *err)
{
	uint64_t ps = c->page_size, wmax = c->window_max;
	uint64_t s, end, ws, we;
	struct cache_entry *e;
	enum mdf_status st;
	void *addr;

	*ret = NULL;
	if (span->start > UINT64_MAX - ps)
		return MDF_OK;
	s = align_up(span->start, ps);
	end = align_down(span->end, ps);
	if (c->file_size && end > align_down(c->file_size, ps))
		end = align_down(c->file_size, ps);
	if (s >= end || off < s || off - s > end - s || len > end - off)
		return MDF_OK;

	ws = s;
	we = end;
	if (end - s > wmax) {
		/* Windows tile the span from its start... */
		ws = s + (off - s) / wmax * wmax;
		we = end - ws > wmax ? ws + wmax : end;
		if (len > we - off) {
			/* ...except for a request that straddles two tiles:
			 * its window starts at its page, or ends at the
			 * span end. */
			ws = align_down(off, ps);
			we = end - ws > wmax ? ws + wmax : end;
			if (we - ws < wmax)
				ws = we - wmax;
			if (len > we - off)
				return MDF_OK; /* larger than any window */
		}
	}
	if (we > (uint64_t)INT64_MAX)
		return MDF_OK; /* beyond off_t: let pread report it */
	if (!cache_room(c, ws, we)) {
		c->stats.budget_reads++;
		return MDF_OK;
	}

	st = cache_take(c, 0, &e, err);
	if (st != MDF_OK) {
		budget_give(c->budget, we - ws);
		return st;
	}
	addr = mmap(NULL, (size_t)(we - ws), PROT_READ, MAP_PRIVATE, c->fd,
		    (off_t)ws);
	if (addr == MAP_FAILED) {
		int errnum = errno;

		budget_give(c->budget, we - ws);
		cache_free(c, e);
		c->stats.mmap_failures++;
		if (c->policy == CACHE_MMAP_ALWAYS)
			return mdf_err_errno(err, MDF_ERR_IO, errnum,
					     "%s: mmap of 0x%llx bytes at offset 0x%llx",
					     cache_name(c),
					     (unsigned long long)(we - ws),
					     (unsigned long long)ws);
		c->policy = CACHE_MMAP_NEVER; /* for good */
		return MDF_OK;
	}
	c->stats.mmaps++;
	e->off = ws;
	e->len = (size_t)(we - ws);
	e->buf = addr;
	e->map_addr = addr;
	e->map_len = e->len;
	e->map_off = ws;
	e->discard = cache_discard_unmap;
	cache_add(c, e);
	*ret = e;
	return MDF_OK;
}

/* Serve [off, off+len) with pread, reading ahead up to the span end. */
static enum mdf_status cache_read(struct cache *c, uint64_t off, size_t len,
				  const struct cache_span *span,
				  struct cache_entry **ret, struct mdf_err *err)
{
	uint64_t want;
	size_t rlen;
	struct cache_entry *e;
	enum mdf_status st;
	size_t got = 0;

	/* a miss inside or right after the last read goes on from it */
	if (off > c->ra_prev && off <= c->ra_next)
		c->ra_cur = MDF_MIN(MDF_MAX(2 * c->ra_cur, 2 * len), c->read_ahead);
	else
		c->ra_cur = 0;
	/* ahead at least to the end of the page (/proc/vmcore copies whole
	 * pages), at most read_ahead */
	want = MDF_MAX((uint64_t)len,
		       MDF_MIN(MDF_MAX((uint64_t)c->ra_cur, align_up(off + 1, c->page_size) - off),
			       (uint64_t)c->read_ahead));
	rlen = (size_t)MDF_MIN(want, span->end - off);
	c->ra_prev = off;
	c->ra_next = off + rlen;
	st = cache_take(c, rlen, &e, err);
	if (st != MDF_OK)
		return st;
	st = util_pread_full(c->fd, e->rbuf, rlen, off, &got, err);
	c->stats.reads++;
	c->stats.read_bytes += got;
	if (st != MDF_OK && got < len && rlen > len) {
		/* The read-ahead failed past what was asked (a page the
		 * kernel will not hand out, /proc/kcore or /proc/vmcore):
		 * what was asked, alone, may still read. */
		mdf_err_clear(err);
		got = 0;
		rlen = len;
		c->ra_next = off + rlen;
		st = util_pread_full(c->fd, e->rbuf, rlen, off, &got, err);
		c->stats.reads++;
		c->stats.read_bytes += got;
	} else if (st != MDF_OK && got >= len) {
		mdf_err_clear(err);    /* what was asked is there */
		st = MDF_OK;
	}
	if (st != MDF_OK) {
		cache_free(c, e);
		return mdf_err_push(err, "%s", cache_name(c));
	}
	if (got < len) {
		cache_free(c, e);
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: unexpected end of file at offset 0x%llx (reading 0x%zx bytes at 0x%llx)",
				   cache_name(c),
				   (unsigned long long)(off + got), len,
				   (unsigned long long)off);
	}
	e->off = off;
	e->len = got;
	cache_add(c, e);
	*ret = e;
	return MDF_OK;
}

/* Find or load the entry holding [off, off+len); len > 0. */
static enum mdf_status cache_find_or_load(struct cache *c, uint64_t off, size_t len,
					  const struct cache_span *span,
					  struct cache_entry **ret, struct mdf_err *err)
{
	struct cache_span alone;
	struct cache_entry *e;
	enum mdf_status st;

	if (len > UINT64_MAX - off)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "%s: request 0x%llx+0x%zx wraps around",
				   cache_name(c), (unsigned long long)off, len);
	if (!span) {
		alone.start = off;
		alone.end = off + len;
		alone.mappable = false;
		span = &alone;
	}
	if (off < span->start || off + len > span->end)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "%s: request 0x%llx+0x%zx outside its span [0x%llx, 0x%llx)",
				   cache_name(c), (unsigned long long)off, len,
				   (unsigned long long)span->start,
				   (unsigned long long)span->end);
	if (!c->entries)
		return mdf_err_set(err, MDF_ERR_INTERNAL,
				   "%s: page cache not initialized",
				   cache_name(c));

	e = cache_lookup(c, off, len);
	if (e) {
		*ret = e;
		return MDF_OK;
	}
	/* A small request does not get a window of its own. */
	if (span->mappable && c->policy != CACHE_MMAP_NEVER &&
	    len >= c->page_size) {
		st = cache_map(c, off, len, span, &e, err);
		if (st != MDF_OK)
			return st;
		if (e) {
			*ret = e;
			return MDF_OK;
		}
	}
	return cache_read(c, off, len, span, ret, err);
}

/* cache_find_or_load(): every message of it names the file, and the error
 * says so (mdf_err_names), so callers name the input only when it is not. */
static enum mdf_status cache_fill(struct cache *c, uint64_t off, size_t len,
				  const struct cache_span *span,
				  struct cache_entry **ret, struct mdf_err *err)
{
	enum mdf_status st = cache_find_or_load(c, off, len, span, ret, err);

	if (st != MDF_OK)
		mdf_err_names(err, cache_name(c));
	return st;
}

enum mdf_status cache_get(struct cache *c, uint64_t off, size_t len,
			  const struct cache_span *span,
			  const unsigned char **ret, struct mdf_err *err)
{
	struct cache_entry *e;
	enum mdf_status st;

	if (!len) {
		*ret = (const unsigned char *)"";
		return MDF_OK;
	}
	st = cache_fill(c, off, len, span, &e, err);
	if (st != MDF_OK)
		return st;
	*ret = e->buf + (off - e->off);
	return MDF_OK;
}

enum mdf_status cache_get_pinned(struct cache *c, uint64_t off, size_t len,
				 const struct cache_span *span,
				 const unsigned char **ret,
				 struct cache_entry **pin,
				 struct mdf_err *err)
{
	struct cache_entry *e;
	enum mdf_status st;

	*pin = NULL;
	if (!len) {
		*ret = (const unsigned char *)"";
		return MDF_OK;
	}
	st = cache_fill(c, off, len, span, &e, err);
	if (st != MDF_OK)
		return st;
	if (e->pins++ == 0)
		c->npinned++;
	*pin = e;
	*ret = e->buf + (off - e->off);
	return MDF_OK;
}

void cache_unpin(struct cache *c, struct cache_entry *pin)
{
	if (pin && pin->pins && --pin->pins == 0)
		c->npinned--;
}

enum mdf_status cache_pread(struct cache *c, void *buf, size_t len,
			    uint64_t off, const struct cache_span *span,
			    struct mdf_err *err)
{
	const unsigned char *p;
	enum mdf_status st;

	if (!len)
		return MDF_OK;
	st = cache_get(c, off, len, span, &p, err);
	if (st != MDF_OK)
		return st;
	memcpy(buf, p, len);
	return MDF_OK;
}

/* Drop the holes of @e that lie outside it, and shrink it past the holes
 * that reach one of its ends. */
static void cache_trim_ends(struct cache_entry *e)
{
	unsigned i = 0;

	while (i < e->nholes) {
		uint64_t hs = e->holes[i].start, he = e->holes[i].end;
		uint64_t eend = e->off + e->len;

		if (he <= e->off || hs >= eend) {
			/* outside */
		} else if (hs <= e->off) {
			he = MDF_MIN(he, eend);
			e->buf += he - e->off;
			e->len = (size_t)(eend - he);
			e->off = he;
		} else if (he >= eend) {
			e->len = (size_t)(hs - e->off);
		} else {
			i++;
			continue;
		}
		/* Gone: look at the others again, the entry changed. */
		e->holes[i] = e->holes[--e->nholes];
		i = 0;
	}
}

/*
 * Never hand out [a, b) of @e again (a < b, inside the entry): a hole,
 * merged with the holes it touches; at an end of the entry the entry
 * shrinks instead.  With no hole left to use, keep the larger side.
 */
static void cache_forget(struct cache_entry *e, uint64_t a, uint64_t b)
{
	for (unsigned i = 0; i < e->nholes;) {
		if (a <= e->holes[i].end && e->holes[i].start <= b) {
			a = MDF_MIN(a, e->holes[i].start);
			b = MDF_MAX(b, e->holes[i].end);
			e->holes[i] = e->holes[--e->nholes];
		} else {
			i++;
		}
	}
	if (e->nholes == CACHE_HOLES) {
		uint64_t eend = e->off + e->len;

		/* Keep the larger side of [a, b), with its holes. */
		if (eend - b >= a - e->off) {
			e->buf += b - e->off;
			e->len = (size_t)(eend - b);
			e->off = b;
		} else {
			e->len = (size_t)(a - e->off);
		}
		cache_trim_ends(e);
		return;
	}
	e->holes[e->nholes].start = a;
	e->holes[e->nholes].end = b;
	e->nholes++;
	cache_trim_ends(e);
}

void cache_done(struct cache *c, uint64_t off, uint64_t len)
{
	uint64_t ps = c->page_size, end;
	struct cache_entry *e, *next;

	if (!len || !ps)
		return;
	end = len > UINT64_MAX - off ? UINT64_MAX : off + len;
	for (e = c->used.head; e; e = next) {
		uint64_t a, b, eend = e->off + e->len;

		next = e->next;
		if (!e->map_addr)
			continue;
		/* The whole pages of the range, no more: the bytes around it
		 * may be the next ones read, and released bytes cost a new
		 * window. */
		a = align_up(MDF_MAX(off, e->off), ps);
		b = align_down(MDF_MIN(end, eend), ps);
		if (a >= b)
			continue;
		/* /proc/vmcore (VM_PFNMAP) answers EINVAL: its pages stay
		 * mapped until munmap, and the budget bounds them. */
		(void)madvise((unsigned char *)e->map_addr + (a - e->map_off),
			      (size_t)(b - a), MADV_DONTNEED);
		if (c->released)
			c->released((unsigned char *)e->map_addr + (a - e->map_off),
				    (size_t)(b - a));
		cache_forget(e, a, b);
		if (!e->len && !e->pins)
			cache_drop(c, e);
	}
}

void cache_trim(struct cache *c)
{
	struct cache_entry *e;

	while ((e = cache_idle_window(c)) != NULL)
		cache_drop(c, e);
}
