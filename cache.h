/*
 * cache.h - every byte read from the input goes through here.
 *
 * The cache knows a file descriptor and file offsets, nothing else: no ELF,
 * no kdump format, no architecture.  An entry is a run of input bytes of
 * any length, held either in a read buffer (filled with pread) or in an
 * mmap()ed window of the input, used in place with no copy.
 *
 * Entry life cycle:
 *
 *   free --cache_alloc--> pending --cache_add--> used (MRU list)
 *                            |                     |
 *                            +--cache_free--> free <--evicted (discard cb)--+
 *
 * A pending entry is being filled and is never evicted, so a read may
 * nest inside another one (for instance a page-table walk inside a
 * struct page read).  Eviction takes the least recently used entry of the
 * used list that is not pinned, and calls its discard callback: munmap()
 * for a mapped window, nothing for a read buffer (its memory is kept for
 * the next user of the slot).
 *
 * The input format tells the cache, for each request, the extent of file
 * bytes that belong with it (struct cache_span): a whole PT_LOAD segment,
 * for instance.  Mapped windows never cross a span, read-ahead never
 * crosses a span, and a span that is not "mappable" (its start or end is
 * not page-aligned: the "fractional" pieces of a segment) is always read.
 *
 * Windows are bounded.  mmap() of /proc/vmcore fills the page tables of
 * the whole window at once (remap_pfn_range: 2 MiB of page tables per GiB
 * mapped), in a capture kernel whose memory is a small fixed reservation.
 * So a window is at most window_max bytes (256 MiB), and every cache of a
 * run draws its windows from one struct cache_budget (512 MiB mapped at
 * once, 1 MiB of page tables): a new window first unmaps the cache's own
 * least recently used idle windows, and when the budget still has no room
 * (the rest is pinned, or held by other caches) the bytes are read
 * instead.  Requests smaller than a page (page-table entries, list
 * pointers) are read on a miss rather than given a window of their own.
 *
 * Released bytes are never touched again.  cache_done() drops the pages
 * of a window from the process (MADV_DONTNEED) and the entry no longer
 * holds them (it shrinks, or keeps them as a hole), so a later request for
 * released bytes misses and gets a fresh window (which replaces the old
 * one) or a read: on /proc/vmcore a touch of a released page could fault
 * (SIGBUS).
 */
#ifndef MDF_CACHE_H
#define MDF_CACHE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum cache_mmap_policy {
	CACHE_MMAP_NEVER,  /* always pread (--non-mmap) */
	CACHE_MMAP_TRY,    /* mmap; on the first failure fall back to pread for good */
	CACHE_MMAP_ALWAYS, /* mmap or fail (tests) */
};

enum cache_state { CACHE_FREE, CACHE_PENDING, CACHE_USED };

/* Released ranges an entry remembers inside itself; past that, it is cut. */
#define CACHE_HOLES 4

struct cache;

struct cache_entry {
	uint64_t off;             /* file offset of buf[0] */
	size_t len;               /* bytes valid at buf */
	const unsigned char *buf; /* into rbuf or into a mapping */
	/* Called when the entry leaves the used list by eviction or release. */
	void (*discard)(struct cache *c, struct cache_entry *e);
	struct cache_entry *prev, *next;
	enum cache_state state;
	unsigned pins;            /* > 0: in use by a caller, never evicted */
	unsigned char *rbuf;      /* read buffer storage, kept across reuse */
	size_t rcap;
	void *map_addr;           /* mapping to munmap, or NULL */
	size_t map_len;
	uint64_t map_off;         /* file offset of map_addr[0] */
	/* Released ranges inside [off, off+len): never handed out again. */
	struct { uint64_t start, end; } holes[CACHE_HOLES];
	unsigned nholes;
};

/*
 * How many bytes the caches of a run may have mapped at once, shared by
 * all of them (the scan threads' caches and the main one).  Thread-safe.
 */
struct cache_budget {
	uint64_t limit;
	_Atomic uint64_t mapped;  /* now */
	_Atomic uint64_t peak;    /* the most at any time */
};

/** Set up @b for at most @limit mapped bytes (0: the default, 512 MiB on
 *  64-bit hosts). */
void cache_budget_init(struct cache_budget *b, uint64_t limit);

/** The most bytes mapped at once so far. */
uint64_t cache_budget_peak(const struct cache_budget *b);

/* Where the bytes of one request come from, as the input format sees it. */
struct cache_span {
	uint64_t start, end; /* file range [start, end) the request lies in */
	bool mappable;       /* start and end page-aligned: may be mmapped */
};

struct cache_config {
	size_t nentries;        /* 0: default (16) */
	enum cache_mmap_policy policy;
	size_t read_ahead;      /* most bytes a pread reads ahead; 0: default (256 KiB) */
	uint64_t window_max;    /* largest mapping; 0: default (256 MiB on
				   64-bit hosts, 64 MiB on 32-bit) */
	struct cache_budget *budget; /* shared with other caches; NULL: a
					budget of the cache's own (default) */
	/* Tests: called with the address range of every cache_done()
	 * release, after it (to make those bytes inaccessible). */
	void (*released)(void *addr, size_t len);
};

struct cache_stats {
	uint64_t hits, misses;
	uint64_t mmaps, munmaps, mmap_failures;
	uint64_t reads, read_bytes;
	uint64_t evictions;
	uint64_t budget_reads;    /* reads because the map budget was full */
};

/* A doubly linked list of entries (through prev/next). */
struct cache_list {
	struct cache_entry *head, *tail;
};

struct cache {
	int fd;
	const char *name;          /* file name for messages (not owned) */
	enum cache_mmap_policy policy; /* TRY becomes NEVER after a failure */
	size_t page_size;          /* host page size, for mmap alignment */
	size_t read_ahead;
	/* Read-ahead that grows while the misses follow each other: a read
	 * that starts where the last one ended reads twice as far ahead
	 * (up to read_ahead); any other reads what it asks and the rest of
	 * its page.  Scattered
	 * pages (the kept pages of a mostly excluded machine, the heads of
	 * free blocks) then cost only themselves, where a fixed 256 KiB
	 * read of /proc/vmcore, which the kernel copies page by page,
	 * cost 64 pages for each.  A read that starts inside the last one or
	 * right at its end counts as following it. */
	size_t ra_cur;
	uint64_t ra_prev, ra_next;  /* the last read: [ra_prev, ra_next) */
	uint64_t window_max;
	size_t nentries;
	uint64_t file_size;        /* st_size of a regular file, 0 if unknown:
				      no window reaches a page past it */
	struct cache_budget *budget; /* &own_budget or a shared one */
	struct cache_budget own_budget;
	void (*released)(void *addr, size_t len);
	struct cache_entry *entries;
	struct cache_entry *free_list;              /* singly linked via next */
	struct cache_list pending;                  /* being filled */
	struct cache_list used;                     /* MRU at head */
	size_t npinned;            /* entries with pins > 0 */
	struct cache_stats stats;
};

/** Add the counts of @src to @dst (several caches, one report). */
void cache_stats_add(struct cache_stats *dst, const struct cache_stats *src);

/** Set up a cache over @fd.  @name is used in messages and must outlive @c.
 *  @cfg NULL means all defaults (and CACHE_MMAP_NEVER).  window_max is
 *  rounded down to the host page size; below one page is MDF_ERR_ARG.
 *  On failure nothing needs releasing (cache_release() is still safe). */
enum mdf_status cache_init(struct cache *c, int fd, const char *name,
			   const struct cache_config *cfg,
			   struct mdf_err *err) MDF_MUST_CHECK;

/** Discard every entry (munmap windows) and free all memory.  Safe on a
 *  zeroed struct and when called twice; the stats are kept. */
void cache_release(struct cache *c);

/*
 * Low-level interface: the state machine itself.  Exposed for tests and
 * for callers that fill entries themselves.
 */

/** Look up [off, off+len) in the used list; on a hit move the entry to the
 *  front and return a pointer to byte @off.  Counts a hit or a miss. */
const unsigned char *cache_search(struct cache *c, uint64_t off, size_t len);

/** Take a free entry, or evict the LRU unpinned used entry, and make it
 *  pending with a read buffer of at least @len bytes.  NULL when every
 *  entry is pending or pinned (nesting too deep) or memory runs out.
 *  The caller fills e->rbuf (e->rcap >= @len bytes; e->buf already points
 *  there), sets e->off and e->len, and may replace e->discard (default: a
 *  no-op), then calls cache_add() or cache_free(). */
struct cache_entry *cache_alloc(struct cache *c, size_t len);

/** A filled pending entry becomes the most recently used. */
void cache_add(struct cache *c, struct cache_entry *e);

/** A pending entry whose read failed goes back to the free pool (its
 *  read buffer is kept; a mapping it holds is unmapped). */
void cache_free(struct cache *c, struct cache_entry *e);

/*
 * High-level interface.
 */

/**
 * Return a pointer to the @len input bytes at file offset @off, which lie
 * inside @span.  From a mapped window when the span is mappable and the
 * policy allows, else from a read buffer (read-ahead bounded by the span).
 * The pointer is valid until the next cache call on @c.  A read that comes
 * up short fails with MDF_ERR_FORMAT ("unexpected end of file"); a short
 * read-ahead past the requested bytes is not an error.  @span NULL means
 * the request alone: exactly @len bytes are read, never mapped.  A request
 * not inside @span is MDF_ERR_ARG.  @len 0 succeeds without I/O.
 */
enum mdf_status cache_get(struct cache *c, uint64_t off, size_t len,
			  const struct cache_span *span,
			  const unsigned char **ret,
			  struct mdf_err *err) MDF_MUST_CHECK;

/** Like cache_get(), but the entry stays pinned (never evicted) until
 *  cache_unpin(@*pin).  At most nentries-1 pins may be held at once.
 *  Pins nest: pinning the same entry twice needs two unpins.  *@pin may
 *  be NULL (for @len 0); cache_unpin(c, NULL) does nothing. */
enum mdf_status cache_get_pinned(struct cache *c, uint64_t off, size_t len,
				 const struct cache_span *span,
				 const unsigned char **ret,
				 struct cache_entry **pin,
				 struct mdf_err *err) MDF_MUST_CHECK;
void cache_unpin(struct cache *c, struct cache_entry *pin);

/** True when @e holds a mapped window (its bytes stay put while pinned)
 *  rather than a read buffer. */
static inline bool cache_entry_mapped(const struct cache_entry *e)
{
	return e && e->map_addr;
}

/**
 * Should a page pinned with cache_get_pinned() stay pinned for a later
 * reader (else unpin it now and copy)?  Only on a mapping (a read buffer
 * is refilled in place), and while half the entries are left for the
 * reads still to come (or the entry is pinned already).
 */
static inline bool cache_keep_pin(const struct cache *c, const struct cache_entry *e)
{
	return cache_entry_mapped(e) && (e->pins > 1 || c->npinned <= c->nentries / 2);
}

/** cache_get() then memcpy into @buf. */
enum mdf_status cache_pread(struct cache *c, void *buf, size_t len,
			    uint64_t off, const struct cache_span *span,
			    struct mdf_err *err) MDF_MUST_CHECK;

/** The bytes [off, off+len) will not be read again soon.  The whole
 *  mapped pages in that range are dropped from this process (MADV_DONTNEED), so that a sequential pass
 *  keeps its resident set small, and are never handed out again: their
 *  entry shrinks when they are at one of its ends, or remembers them as a
 *  hole (CACHE_HOLES of them; past that it keeps only its larger side); an
 *  entry left with nothing is unmapped. */
void cache_done(struct cache *c, uint64_t off, uint64_t len);

/** Unmap every window nobody holds (before other caches start to map:
 *  the budget is shared). */
void cache_trim(struct cache *c);

#endif
