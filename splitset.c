/*
 * splitset.c - a split set read as one dump (splitset.h).
 */
#include "splitset.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "util.h"

typedef unsigned long long ull;

/* One part: its file, cache and reader, and the raw header blocks. */
static enum mdf_status part_open(struct splitset_part *pt, const char *path,
				 const struct cache_config *cc, struct mdf_err *err)
{
	struct cache_config never = { 0 };
	const struct diskdump_info *d = &pt->di;
	uint64_t head_len;
	size_t got = 0;
	enum mdf_status st;

	pt->path = path;
	st = files_open_input(path, &pt->fd, err);
	if (st != MDF_OK)
		return st;
	never.policy = CACHE_MMAP_NEVER;
	st = cache_init(&pt->cache, pt->fd, path, cc ? cc : &never, err);
	if (st == MDF_OK)
		st = diskdump_open_flags(&pt->di, pt->fd, path, &pt->cache,
					 DISKDUMP_OPEN_SPLIT, err);
	if (st != MDF_OK)
		return st;
	if (!d->split)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "%s: not a part of a split dump (split=0)", path);
	if (d->split_start_pfn > d->split_end_pfn || d->split_end_pfn > d->max_mapnr)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: bad split range 0x%llx-0x%llx (max_mapnr 0x%llx)",
				   path, (ull)d->split_start_pfn,
				   (ull)d->split_end_pfn, (ull)d->max_mapnr);
	/* in 64 bits: a 32-bit size_t must not wrap it below the bitmaps */
	head_len = (1 + (uint64_t)d->header.sub_hdr_size) * d->block_size;
	if (head_len > d->off_bitmap1 || head_len > d->file_size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: sub header blocks overlap the bitmaps", path);
	if (!size_fits(head_len))
		return mdf_err_set(err, MDF_ERR_NOMEM,
				   "%s: headers of 0x%llx bytes do not fit this host's memory",
				   path, (ull)head_len);
	pt->head_len = (size_t)head_len;
	pt->head = malloc(pt->head_len);
	if (!pt->head)
		return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", path);
	st = util_pread_full(pt->fd, pt->head, pt->head_len, 0, &got, err);
	if (st == MDF_OK && got != pt->head_len)
		st = mdf_err_set(err, MDF_ERR_FORMAT, "%s: truncated header", path);
	if (st != MDF_OK)
		return mdf_err_push(err, "%s", path);
	return MDF_OK;
}

static void part_close(struct splitset_part *pt)
{
	diskdump_close(&pt->di);
	cache_release(&pt->cache);
	free(pt->head);
	pt->head = NULL;
	if (pt->fd >= 0)
		close(pt->fd);
	pt->fd = -1;
}

void splitset_head_mark(const struct splitset_part *p0, unsigned char *head,
			bool incomplete)
{
	struct disk_dump_header h;

	kdump_header_get(&h, head, p0->di.abi, p0->di.big_endian);
	if (incomplete)
		h.status |= DUMP_DH_COMPRESSED_INCOMPLETE;
	else
		h.status &= ~(uint32_t)DUMP_DH_COMPRESSED_INCOMPLETE;
	kdump_header_put(head, &h, p0->di.abi, p0->di.big_endian);
}

void splitset_plain_head(const struct splitset_part *pt, unsigned char *head)
{
	struct kdump_sub_header s;
	size_t at = pt->di.block_size;

	memcpy(head, pt->head, pt->head_len);
	splitset_head_mark(pt, head, false);
	kdump_sub_header_get(&s, head + at, pt->di.abi, pt->di.big_endian);
	s.split = 0;
	s.start_pfn = s.end_pfn = 0;
	if (pt->di.header.header_version >= 6)
		s.start_pfn_64 = s.end_pfn_64 = 0;
	/* Each part carries the eraseinfo after its own data. */
	if (pt->di.header.header_version >= 5)
		s.offset_eraseinfo = 0;
	kdump_sub_header_put(head + at, &s, pt->di.abi, pt->di.big_endian);
}

/* Does @b belong to the same dump as @a?  NULL if so, else what differs. */
static const char *part_mismatch(const struct splitset_part *a,
				 const struct splitset_part *b,
				 unsigned char *ha, unsigned char *hb)
{
	const struct diskdump_info *x = &a->di, *y = &b->di;
	size_t bm = (size_t)((x->max_mapnr + 63) / 64 * 8);

	if (x->header.header_version != y->header.header_version ||
	    x->block_size != y->block_size || x->max_mapnr != y->max_mapnr ||
	    a->head_len != b->head_len || x->swapped != y->swapped)
		return "header";
	/* The plain headers below hold these too: named first, as the
	 * likeliest differences between two dumps. */
	if (memcmp(&x->header.utsname, &y->header.utsname, sizeof(x->header.utsname)) != 0)
		return "utsname";
	if (x->timestamp != y->timestamp)
		return "crash time";
	if (x->dump_level != y->dump_level)
		return "dump level";
	splitset_plain_head(a, ha);
	splitset_plain_head(b, hb);
	if (memcmp(ha, hb, a->head_len) != 0)
		return "header or note copy";
	if (x->off_bitmap1 != y->off_bitmap1 || x->off_desc != y->off_desc ||
	    x->ndesc != y->ndesc || x->off_data != y->off_data)
		return "layout";
	if (memcmp(x->bitmap1, y->bitmap1, bm) != 0)
		return "bitmap1";
	if (memcmp(x->bitmap2, y->bitmap2, bm) != 0)
		return "bitmap2";
	return NULL;
}

/* Every part from the same dump as the first one. */
static enum mdf_status check_same_dump(const struct splitset *ss, struct mdf_err *err)
{
	const struct splitset_part *p0 = &ss->parts[0];
	unsigned char *ha = malloc(p0->head_len), *hb = malloc(p0->head_len);
	enum mdf_status st = MDF_OK;

	if (!ha || !hb)
		st = mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	for (unsigned i = 1; i < ss->n && st == MDF_OK; i++) {
		const struct splitset_part *pi = &ss->parts[i];
		const char *what = part_mismatch(p0, pi, ha, hb);
		/* A part cut short in its bitmaps (they are written cycle by
		 * cycle with the pages) is not another dump. */
		const struct splitset_part *cut = p0->di.incomplete ? p0 :
						  pi->di.incomplete ? pi : NULL;

		if (!what)
			continue;
		if (cut && strncmp(what, "bitmap", 6) == 0)
			st = mdf_err_set(err, MDF_ERR_FORMAT,
					 "%s: the part is incomplete and its %s was not written whole: the set cannot be read",
					 cut->path, what);
		else
			st = mdf_err_set(err, MDF_ERR_ARG,
					 "%s: not a part of the same dump as %s (%s differs)",
					 pi->path, p0->path, what);
	}
	free(ha);
	free(hb);
	return st;
}

static int cmp_start(const void *a, const void *b)
{
	const struct splitset_part *const *x = a, *const *y = b;
	uint64_t s = (*x)->di.split_start_pfn, t = (*y)->di.split_start_pfn;

	if (s != t)
		return s < t ? -1 : 1;
	return (*x)->di.split_end_pfn < (*y)->di.split_end_pfn ? -1 :
	       (*x)->di.split_end_pfn > (*y)->di.split_end_pfn;
}

/* The ranges, by start, cover every pfn once. */
static enum mdf_status check_cover(const struct splitset *ss, struct mdf_err *err)
{
	/* from pfn 0, or from 32-bit arm's PHYS_OFFSET (diskdump.h) */
	uint64_t expect = ss->parts[0].di.pfn_base, max = ss->parts[0].di.max_mapnr;
	const struct splitset_part *prev = NULL;

	for (unsigned i = 0; i < ss->n; i++) {
		const struct splitset_part *pt = ss->order[i];
		uint64_t s = pt->di.split_start_pfn, e = pt->di.split_end_pfn;

		if (s > expect && !prev)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "the split set lacks pfns 0x%llx-0x%llx, before %s (its first part is missing)",
					   (ull)expect, (ull)s, pt->path);
		if (s > expect)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "the split set lacks pfns 0x%llx-0x%llx, after %s and before %s (a part is missing)",
					   (ull)expect, (ull)s, prev->path, pt->path);
		if (s < expect)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "%s: pfns 0x%llx-0x%llx overlap %s's 0x%llx-0x%llx%s",
					   pt->path, (ull)s, (ull)e, prev->path,
					   (ull)prev->di.split_start_pfn,
					   (ull)prev->di.split_end_pfn,
					   s == prev->di.split_start_pfn &&
					   e == prev->di.split_end_pfn ?
					   " (the same part twice?)" : "");
		expect = e;
		prev = pt;
	}
	if (expect != max)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "the split set lacks pfns 0x%llx-0x%llx, after %s (its last part is missing)",
				   (ull)expect, (ull)max, prev->path);
	return MDF_OK;
}

/* No file twice, by name or under another name (a link). */
static enum mdf_status check_distinct(const struct splitset *ss, struct mdf_err *err)
{
	for (unsigned i = 1; i < ss->n; i++) {
		const struct splitset_part *a = &ss->parts[i];

		for (unsigned j = 0; j < i; j++) {
			const struct splitset_part *b = &ss->parts[j];

			if (strcmp(a->path, b->path) == 0 || util_same_file(a->fd, b->path))
				return mdf_err_set(err, MDF_ERR_ARG,
						   "%s: the same file as %s (a part given twice)",
						   a->path, b->path);
		}
	}
	return MDF_OK;
}

enum mdf_status splitset_open(struct splitset *ss, char *const *paths, unsigned n,
			      const struct cache_config *cc, struct mdf_err *err)
{
	enum mdf_status st = MDF_OK;
	bool not_a_part = false;

	memset(ss, 0, sizeof(*ss));
	if (n < 2 || n > SPLITSET_MAX_PARTS)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "a split set has 2 to %u parts, not %u",
				   SPLITSET_MAX_PARTS, n);
	ss->parts = calloc(n, sizeof(*ss->parts));
	ss->order = calloc(n, sizeof(*ss->order));
	if (!ss->parts || !ss->order) {
		splitset_close(ss);
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	}
	ss->n = n;
	for (unsigned i = 0; i < n; i++) {
		ss->parts[i].fd = -1;
		ss->order[i] = &ss->parts[i];
	}
	for (unsigned i = 0; i < n && st == MDF_OK; i++) {
		st = part_open(&ss->parts[i], paths[i], cc, err);
		/* opened, but no kdump header, or one that says split=0 */
		not_a_part = st != MDF_OK && ss->parts[i].fd >= 0 &&
			     !ss->parts[i].di.split;
	}
	if (st == MDF_OK)
		st = check_distinct(ss, err);
	if (st == MDF_OK)
		st = check_same_dump(ss, err);
	if (st == MDF_OK) {
		qsort(ss->order, n, sizeof(*ss->order), cmp_start);
		st = check_cover(ss, err);
	}
	if (st != MDF_OK) {
		splitset_close(ss);
		ss->not_a_part = not_a_part;
		return st;
	}
	for (unsigned i = 0; i < n; i++) {
		if (!ss->order[i]->di.incomplete)
			continue;
		if (!ss->nincomplete++)
			ss->first_incomplete = ss->order[i];
	}
	ss->stray_dumpable = ss->order[0]->di.stray_dumpable;
	return MDF_OK;
}

void splitset_release_caches(struct splitset *ss, struct cache_stats *stats)
{
	for (unsigned i = 0; ss->parts && i < ss->n; i++) {
		cache_release(&ss->parts[i].cache);
		if (stats)
			cache_stats_add(stats, &ss->parts[i].cache.stats);
		memset(&ss->parts[i].cache.stats, 0, sizeof(ss->parts[i].cache.stats));
	}
}

void splitset_close(struct splitset *ss)
{
	for (unsigned i = 0; ss->parts && i < ss->n; i++)
		part_close(&ss->parts[i]);
	free(ss->parts);
	free(ss->order);
	ss->parts = NULL;
	ss->order = NULL;
	ss->n = 0;
}

struct splitset_part *splitset_part_of(const struct splitset *ss, uint64_t pfn)
{
	unsigned lo = 0, hi = ss->n;

	/* the last part that starts at or below @pfn */
	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;

		if (ss->order[mid]->di.split_start_pfn <= pfn)
			lo = mid;
		else
			hi = mid;
	}
	if (!ss->n || pfn < ss->order[lo]->di.split_start_pfn ||
	    pfn >= ss->order[lo]->di.split_end_pfn)
		return NULL;
	return ss->order[lo];
}

/* ---- the input ops (input.h) ----------------------------------------- */

/* Messages come from the part's reader and name the part: the set's
 * name (its first file, as the run calls the input) is not put before
 * them. */
static enum mdf_status ss_named(const struct splitset *ss, enum mdf_status st,
				struct mdf_err *err)
{
	if (st != MDF_OK)
		mdf_err_names(err, ss->parts[0].path);
	return st;
}

static enum mdf_status ss_op_read_paddr(void *in, struct cache *cache, uint64_t paddr,
					void *buf, size_t len, struct mdf_err *err)
{
	const struct splitset *ss = in;
	const struct diskdump_info *d0 = &ss->order[0]->di;
	unsigned char *out = buf;

	(void)cache;
	while (len) {
		struct splitset_part *pt = splitset_part_of(ss, paddr >> d0->block_shift);
		uint64_t end;
		size_t n;

		if (!pt) /* beyond max_mapnr: the reader says so */
			return ss_named(ss, diskdump_read_paddr(&ss->order[0]->di,
								&ss->order[0]->cache,
								paddr, out, len, err), err);
		end = pt->di.split_end_pfn << d0->block_shift;
		n = (size_t)MDF_MIN((uint64_t)len, end - paddr);
		if (diskdump_read_paddr(&pt->di, &pt->cache, paddr, out, n, err) != MDF_OK)
			return ss_named(ss, err->status, err);
		out += n;
		paddr += n;
		len -= n;
	}
	return MDF_OK;
}

static enum mdf_status ss_op_page(void *in, struct cache *cache, uint64_t pfn,
				  uint64_t page_size, unsigned char *scratch,
				  const unsigned char **ret, struct mdf_err *err)
{
	const struct splitset *ss = in;
	struct splitset_part *pt = splitset_part_of(ss, pfn);

	(void)page_size;
	(void)scratch;
	(void)cache;
	if (!pt)
		pt = ss->order[0]; /* beyond max_mapnr: its reader says so */
	return ss_named(ss, diskdump_get_page(&pt->di, &pt->cache, pfn, ret, err), err);
}

/* The first part's bitmaps: every part's are the same (checked). */
static void ss_op_cycle_bitmaps(const void *in, uint64_t page_size,
				struct bitmap *present, struct bitmap *dumpable)
{
	const struct splitset *ss = in;

	diskdump_input_ops.cycle_bitmaps(&ss->order[0]->di, page_size, present, dumpable);
}

static void ss_op_facts(const void *in, struct input_facts *f)
{
	const struct splitset *ss = in;

	diskdump_input_ops.facts(&ss->order[0]->di, f);
	f->incomplete = ss->nincomplete > 0;
}

const struct input_ops splitset_input_ops = {
	.kind = "kdump-compressed split set",
	.read_paddr = ss_op_read_paddr,
	.page = ss_op_page,
	.cycle_bitmaps = ss_op_cycle_bitmaps,
	.facts = ss_op_facts,
};
