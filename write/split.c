/*
 * split.c - split sets (--split) and their reassembly (--reassemble).
 */
#include "files.h"
#include "write/split.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "diskdump_read.h"
#include "splitset.h"
#include "filter/filter.h"
#include "util.h"
#include "stop.h"

typedef unsigned long long ull;

static uint64_t split_target(uint64_t total, unsigned k, unsigned n)
{
	/* floor(total * k / n) without overflow for any total */
	return total / n * k + total % n * k / n;
}

enum mdf_status split_ranges(const struct dump_source *src, unsigned n,
			     uint64_t block, uint64_t *bounds, uint64_t *total,
			     struct mdf_err *err)
{
	const struct bitmap *present, *dumpable;
	uint64_t cum = 0, sum = 0;
	unsigned k = 1;
	enum mdf_status st;

	if (n < 2 || n > SPLIT_MAX_PARTS)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "a split set has 2 to %u parts, not %u",
				   SPLIT_MAX_PARTS, n);
	for (uint64_t start = 0; start < src->max_pfn; start += src->cycle_pfns) {
		st = src->cycle(src->arg, start, false, &present, &dumpable, err);
		if (st != MDF_OK)
			return st;
		sum += bitmap_count(dumpable, dumpable->start_pfn, dumpable->end_pfn);
	}
	*total = sum;
	bounds[0] = 0;
	for (unsigned i = 1; i <= n; i++)
		bounds[i] = src->max_pfn;
	while (k < n && split_target(sum, k, n) == 0)
		bounds[k++] = 0;
	/* Cycles are walked in order from 0 (a cycle may depend on the one
	 * before it), stopping once every boundary is placed. */
	for (uint64_t start = 0; k < n && start < src->max_pfn;
	     start += src->cycle_pfns) {
		st = src->cycle(src->arg, start, false, &present, &dumpable, err);
		if (st != MDF_OK)
			return st;
		for (uint64_t pfn = bitmap_next_set(dumpable, dumpable->start_pfn);
		     k < n && pfn < dumpable->end_pfn;
		     pfn = bitmap_next_set(dumpable, pfn + 1)) {
			cum++;
			while (k < n && cum == split_target(sum, k, n))
				bounds[k++] = pfn + 1;
		}
	}
	/* On the block grid: crash reads a part's bitmap in 64-bit words
	 * counted from its start_pfn, so a part that starts off a 64-pfn
	 * line cannot be opened ("cannot resolve init_task_union"). */
	for (unsigned i = 1; block > 1 && i < n; i++) {
		uint64_t b = bounds[i] / block * block;

		if (b < bounds[i])
			b = b + block < src->max_pfn ? b + block : src->max_pfn;
		bounds[i] = b > bounds[i - 1] ? b : bounds[i - 1];
	}
	return MDF_OK;
}

enum mdf_status split_write_set(const struct kdump_write_params *kp,
				const struct dump_source *src,
				struct compressor *comp, struct out_sink *out0,
				char *const *paths, unsigned n, bool force,
				uint64_t size_limit,
				struct kdump_write_stats *stats,
				struct mdf_err *err)
{
	uint64_t bounds[SPLIT_MAX_PARTS + 1];
	struct kdump_write_params p = *kp;
	struct mdf_err first;
	unsigned nincomplete = 0;
	enum mdf_status st;

	memset(stats, 0, sizeof(*stats));
	if (n < 2 || n > SPLIT_MAX_PARTS)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "a split set has 2 to %u parts, not %u",
				   SPLIT_MAX_PARTS, n);
	st = split_ranges(src, n, kp->split_block_pfns, bounds, &p.total_dumpable, err);
	if (st != MDF_OK)
		return st;
	p.split = true;
	for (unsigned i = 0; i < n; i++) {
		struct out_sink part, *out = out0;
		struct kdump_write_stats ks;
		struct mdf_err cerr;

		p.start_pfn = bounds[i];
		p.end_pfn = bounds[i + 1];
		p.part_dumpable = split_target(p.total_dumpable, i + 1, n) -
				  split_target(p.total_dumpable, i, n);
		if (i > 0) {
			memset(&part, 0, sizeof(part));
			part.fd = -1;
			out = &part;
			st = out_open_file(out, paths[i], force, size_limit,
					   out0->cap, err);
			if (st != MDF_OK)
				return st;
		}
		st = kdump_write_dump(&p, src, comp, out, &ks, err);
		if (i > 0)
			stats->other_written += out->written;
		if (i > 0 && out_close(out, &cerr) != MDF_OK && st == MDF_OK) {
			*err = cerr;
			st = cerr.status;
		}
		stats->pages += ks.pages;
		stats->zero_pages += ks.zero_pages;
		stats->compressed += ks.compressed;
		stats->raw += ks.raw;
		stats->data_bytes += ks.data_bytes;
		stats->file_size = MDF_MAX(stats->file_size, ks.file_size);
		stats->incomplete |= ks.incomplete;
		if (st == MDF_ERR_NODATA) {
			/* Pages lost in an incomplete input, or its mark: the
			 * part is written, marked incomplete; so are the next. */
			if (!nincomplete++) {
				first = *err;
				mdf_err_push(&first, "split part %u of %u (%s)",
					     i + 1, n, paths[i]);
			}
			continue;
		}
		if (st != MDF_OK)
			return mdf_err_push(err, "split part %u of %u (%s)",
					    i + 1, n, paths[i]);
	}
	if (nincomplete) {
		*err = first;
		return mdf_err_push(err, "%u of %u split parts are incomplete",
				    nincomplete, n);
	}
	return MDF_OK;
}

/* ---- reassembly ---------------------------------------------------- */

static uint64_t count_bits(const uint8_t *bits, uint64_t start, uint64_t end)
{
	uint64_t n = 0;

	for (uint64_t pfn = start; pfn < end; pfn++) {
		if (pfn % 64 == 0 && pfn + 64 <= end) {
			uint64_t w;

			memcpy(&w, bits + pfn / 8, 8);
			n += (uint64_t)__builtin_popcountll(w);
			pfn += 63;
			continue;
		}
		n += (bits[pfn / 8] >> (pfn % 8)) & 1;
	}
	return n;
}

/* Copy [off, off + len) of @pt's file to the same offset of @out. */
static enum mdf_status copy_range(const struct splitset_part *pt, struct out_sink *out,
				  uint64_t off, uint64_t len,
				  unsigned char *buf, size_t cap,
				  struct mdf_err *err)
{
	while (len) {
		size_t n = (size_t)MDF_MIN(len, (uint64_t)cap), got = 0;
		enum mdf_status st = util_pread_full(pt->fd, buf, n, off, &got, err);

		if (st == MDF_OK && got != n)
			st = mdf_err_set(err, MDF_ERR_FORMAT,
					 "0x%llx+0x%zx past end of file", (ull)off, n);
		if (st != MDF_OK)
			return mdf_err_push(err, "%s", pt->path);
		st = out_write(out, off, buf, n, err);
		if (st != MDF_OK)
			return st;
		off += n;
		len -= n;
	}
	return MDF_OK;
}

#define COPY_BUF (1u << 20)
#define DESC_CHUNK 4096

/* The next set bit of @bits at or after @pfn, below @end (else @end). */
static uint64_t next_bit(const uint8_t *bits, uint64_t pfn, uint64_t end)
{
	while (pfn < end) {
		uint64_t w = load_le64(bits + pfn / 64 * 8) >> (pfn % 64); /* whole words */
		if (w)
			return MDF_MIN(pfn + (uint64_t)__builtin_ctzll(w), end);
		pfn = (pfn / 64 + 1) * 64;
	}
	return end;
}

/* Where the copy is: what the output holds so far, for the messages. */
struct copy_state {
	uint64_t desc_pos, data_pos;  /* next descriptor, next data byte */
	uint64_t zero_off;            /* the shared zero page, or 0 */
	uint64_t pages;               /* descriptors handed to the sink */
	uint64_t lost;                /* of those, lost in an incomplete part */
	const struct mdf_stop *stop;      /* may be NULL */
};

/*
 * Is the descriptor @pd of @pfn (at @doff of @pt) one to copy?  MDF_OK:
 * yes; MDF_ERR_NODATA: a page lost in an incomplete part (copied as lost);
 * anything else refuses the part: unknown flags, a size or offset outside
 * the data area, raw data that is not one block, or the shared zero
 * page's offset with another size or flags.
 */
static enum mdf_status check_desc(const struct splitset_part *pt, uint64_t zero_off,
				  uint64_t pfn, uint64_t doff,
				  const struct page_desc *pd, struct mdf_err *err)
{
	const struct diskdump_info *di = &pt->di;

	if (zero_off && pd->offset == (int64_t)zero_off &&
	    (pd->size != di->block_size || pd->flags != 0))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: pfn 0x%llx: page descriptor at 0x%llx: the shared zero page's offset 0x%llx with size 0x%x and flags 0x%x",
				   pt->path, (ull)pfn, (ull)doff, (ull)zero_off,
				   pd->size, pd->flags);
	return diskdump_check_desc(di, pfn, doff, pd, err);
}

/* Descriptors and data of one part, appended where @cs says. */
static enum mdf_status copy_part(const struct splitset_part *pt, struct out_sink *out,
				 struct copy_state *cs, unsigned char *buf,
				 struct page_desc *pds, struct mdf_err *err)
{
	const struct diskdump_info *di = &pt->di;
	uint64_t nd = count_bits(di->bitmap2, di->split_start_pfn,
				 di->split_end_pfn);
	uint64_t pfn = di->split_start_pfn, rd = di->off_desc;
	bool zero_checked = false;
	enum mdf_status st = MDF_OK;

	while (nd) {
		size_t n = (size_t)MDF_MIN(nd, (uint64_t)DESC_CHUNK), got = 0, i;
		size_t bytes = n * sizeof(*pds), have;

		if (cs->stop) {
			st = stop_check(cs->stop, err);
			if (st != MDF_OK)
				return st;
		}
		memset(pds, 0, bytes);
		st = util_pread_full(pt->fd, pds, bytes, rd, &got, err);
		if (st != MDF_OK)
			return mdf_err_push(err, "%s", pt->path);
		/* An incomplete part may end inside its descriptors: the
		 * rest are lost pages (diskdump_open let only such a part
		 * end there). */
		have = got / sizeof(*pds);
		if (have < n && !di->incomplete)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "%s: descriptors at 0x%llx past end of file",
					   pt->path, (ull)(rd + have * sizeof(*pds)));
		if (di->swapped)
			kdump_page_desc_bswap(pds, have);
		for (i = 0; i < n; i++, pfn = next_bit(di->bitmap2, pfn + 1,
						      di->split_end_pfn)) {
			struct page_desc *pd = &pds[i];
			uint64_t doff = rd + i * sizeof(*pds);

			/* Often enough to answer a stop within stop.h's grace
			 * on a slow disk; the pages before it still go out. */
			if (cs->stop && i && !(i % 64)) {
				st = stop_check(cs->stop, err);
				if (st != MDF_OK)
					break;
			}
			pfn = next_bit(di->bitmap2, pfn, di->split_end_pfn);
			st = i < have ? check_desc(pt, cs->zero_off, pfn, doff, pd, err)
				      : MDF_ERR_NODATA;
			if (st == MDF_ERR_NODATA && di->incomplete) {
				/* Lost in the part: lost here too. */
				mdf_err_clear(err);
				memset(pd, 0, sizeof(*pd));
				cs->lost++;
				st = MDF_OK;
				continue;
			}
			if (st != MDF_OK)
				break;
			if (cs->zero_off && pd->offset == (int64_t)cs->zero_off) {
				/* The shared zero page: the merged dump has its
				 * own at the same offset, so the part's must be
				 * zeros too (a reader of the part got those). */
				if (!zero_checked) {
					st = util_pread_full(pt->fd, buf, di->block_size,
							     cs->zero_off, &got, err);
					if (st == MDF_OK && (got != di->block_size ||
							     !util_is_zero(buf, got)))
						st = mdf_err_set(err, MDF_ERR_FORMAT,
								 "%s: pfn 0x%llx: page descriptor at 0x%llx: the shared zero page at 0x%llx is not zeros",
								 pt->path, (ull)pfn, (ull)doff,
								 (ull)cs->zero_off);
					else if (st != MDF_OK)
						mdf_err_push(err, "%s", pt->path);
					if (st != MDF_OK)
						break;
					zero_checked = true;
				}
				continue;
			}
			st = util_pread_full(pt->fd, buf, pd->size, (uint64_t)pd->offset,
					     &got, err);
			if (st == MDF_OK && got != pd->size)
				st = mdf_err_set(err, MDF_ERR_FORMAT,
						 "pfn 0x%llx: data 0x%llx+0x%x past end of file",
						 (ull)pfn, (ull)pd->offset, pd->size);
			if (st != MDF_OK) {
				mdf_err_push(err, "%s", pt->path);
				break;
			}
			st = out_write(out, cs->data_pos, buf, pd->size, err);
			if (st != MDF_OK)
				break;
			pd->offset = (int64_t)cs->data_pos;
			cs->data_pos += pd->size;
		}
		/* The descriptors before a failure still go out: their data
		 * was written (the sink writes in order). */
		if (di->swapped)
			kdump_page_desc_bswap(pds, i);
		if (i) {
			struct mdf_err werr;
			enum mdf_status wst = out_write(out, cs->desc_pos, pds,
							i * sizeof(*pds), &werr);

			if (wst != MDF_OK && st == MDF_OK) {
				*err = werr;
				st = wst;
			}
			if (wst == MDF_OK) {
				cs->desc_pos += i * sizeof(*pds);
				cs->pages += i;
			}
		}
		if (st != MDF_OK)
			return st;
		rd += bytes;
		nd -= n;
	}
	return MDF_OK;
}

/*
 * The merged dump.  Its header says "incomplete" from the first write and
 * is cleared by the last one, made once everything else is on the disk
 * and only when no part was incomplete: whatever stops the copy (a
 * signal, a full disk, a bad part, SIGKILL) leaves a file readers tell
 * apart, whose descriptors not yet written read as lost pages.
 */
static enum mdf_status reassemble(struct splitset_part *pts, struct splitset_part **order,
				  unsigned n, struct out_sink *out,
				  struct copy_state *cs, bool input_incomplete,
				  struct mdf_err *err)
{
	const struct splitset_part *p0 = &pts[0];
	const struct diskdump_info *d0 = &p0->di;
	unsigned char *ha = malloc(p0->head_len);
	unsigned char *buf = malloc(COPY_BUF);
	struct page_desc *pds = malloc(DESC_CHUNK * sizeof(*pds));
	enum mdf_status st = MDF_OK;

	cs->desc_pos = d0->off_desc;
	cs->data_pos = d0->off_data;
	if (!ha || !buf || !pds) {
		st = mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* Headers (split fields cleared), note copy and both bitmaps. */
	splitset_plain_head(p0, ha);
	splitset_head_mark(p0, ha, true);
	st = out_write(out, 0, ha, p0->head_len, err);
	if (st == MDF_OK)
		st = copy_range(p0, out, d0->off_bitmap1,
				d0->off_desc - d0->off_bitmap1, buf, COPY_BUF, err);
	if (st != MDF_OK)
		goto out;
	/* Every part stores the shared zero page first in its data area. */
	if (d0->dump_level > 0 && (d0->dump_level & DL_EXCLUDE_ZERO)) {
		cs->zero_off = cs->data_pos;
		memset(buf, 0, d0->block_size);
		st = out_write(out, cs->data_pos, buf, d0->block_size, err);
		if (st != MDF_OK)
			goto out;
		cs->data_pos += d0->block_size;
	}
	for (unsigned i = 0; i < n && st == MDF_OK; i++)
		st = copy_part(order[i], out, cs, buf, pds, err);
	/* The eraseinfo (every part has the same), after the data. */
	if (st == MDF_OK && d0->size_eraseinfo) {
		struct kdump_sub_header sub;
		uint64_t from = d0->off_eraseinfo;

		kdump_sub_header_get(&sub, ha + d0->block_size, d0->abi, d0->big_endian);
		sub.offset_eraseinfo = (int64_t)cs->data_pos;
		kdump_sub_header_put(ha + d0->block_size, &sub, d0->abi, d0->big_endian);
		for (uint64_t left = d0->size_eraseinfo; st == MDF_OK && left;) {
			size_t k = (size_t)MDF_MIN(left, (uint64_t)COPY_BUF), got = 0;

			st = util_pread_full(p0->fd, buf, k, (off_t)from, &got, err);
			if (st == MDF_OK && got != k)
				st = mdf_err_set(err, MDF_ERR_FORMAT, "%s: eraseinfo cut short",
						 p0->path);
			if (st == MDF_OK)
				st = out_write(out, cs->data_pos, buf, k, err);
			from += k;
			cs->data_pos += k;
			left -= k;
		}
		if (st == MDF_OK)
			st = out_patch(out, 0, ha, p0->head_len, err);
	}
	/* Everything on the disk, then the last write: the mark cleared
	 * (unless a part was incomplete: then the dump is, too). */
	if (st == MDF_OK)
		st = out_sync(out, err);
	if (st == MDF_OK && cs->stop)
		st = stop_check(cs->stop, err);
	if (st == MDF_OK && !input_incomplete && !cs->lost) {
		splitset_head_mark(p0, ha, false);
		st = out_patch(out, 0, ha, kdump_header_size(d0->abi), err);
	}
	if (st == MDF_OK)
		st = out_flush(out, err);
out:
	free(ha);
	free(buf);
	free(pds);
	return st;
}

/* What the output holds after a failure: the descriptors that reached
 * the file (after a full disk, those before the write that failed). */
static uint64_t pages_on_disk(const struct out_sink *out,
			      const struct diskdump_info *d0,
			      const struct copy_state *cs)
{
	if (out->full && out->fail_off >= d0->off_desc && out->fail_off < cs->desc_pos)
		return (out->fail_off - d0->off_desc) / sizeof(struct page_desc);
	if (out->full && out->fail_off < d0->off_desc)
		return 0;
	return cs->pages;
}

enum mdf_status split_reassemble(char *const *parts, unsigned n,
				 const char *out_path, bool force,
				 const struct mdf_printer *pr,
				 const struct mdf_stop *stop,
				 struct split_reassemble_stats *rs,
				 struct mdf_err *err)
{
	struct splitset ss;
	struct splitset_part *pts, **order;
	struct out_sink out;
	struct mdf_err cerr;
	struct copy_state cs;
	const char *cut = NULL;
	uint64_t total = 0;
	unsigned ncut = 0;
	enum mdf_status st = MDF_OK;

	memset(&cs, 0, sizeof(cs));
	cs.stop = stop;
	if (rs)
		memset(rs, 0, sizeof(*rs));
	if (n < 2 || n > SPLIT_MAX_PARTS)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "--reassemble needs 2 to %u split files, not %u",
				   SPLIT_MAX_PARTS, n);
	/* Read buffers only: every byte is read once, in order. */
	st = splitset_open(&ss, parts, n, NULL, err);
	if (st != MDF_OK)
		return st;
	pts = ss.parts;
	order = ss.order;
	for (unsigned i = 0; i < n && st == MDF_OK; i++)
		if (util_same_file(pts[i].fd, out_path))
			st = mdf_err_set(err, MDF_ERR_ARG,
					 "%s is %s itself: write the dump to another file",
					 out_path, parts[i]);
	/* An incomplete part (a full disk, -L, a stop while --split wrote
	 * it) is merged as refiltering takes an incomplete dump: the pages
	 * it lost stay lost, and the merged dump is marked incomplete. */
	for (unsigned i = 0; i < n && st == MDF_OK; i++) {
		const struct diskdump_info *d = &order[i]->di;

		total += count_bits(d->bitmap2, d->split_start_pfn, d->split_end_pfn);
		if (!d->incomplete)
			continue;
		if (!ncut++)
			cut = order[i]->path;
		if (pr)
			pi_warn(pr, "%s: this part is marked incomplete: the pages it lost stay lost, and %s will be marked incomplete too.\n",
				order[i]->path, out_path);
	}
	if (st == MDF_OK) {
		memset(&out, 0, sizeof(out));
		out.fd = -1;
		st = out_open_file(&out, out_path, force, 0, COPY_BUF, err);
		if (st == MDF_OK) {
			uint64_t kept;

			st = reassemble(pts, order, n, &out, &cs, ncut > 0, err);
			if (out_close(&out, &cerr) != MDF_OK && st == MDF_OK) {
				*err = cerr;
				st = cerr.status;
			}
			kept = pages_on_disk(&out, &pts[0].di, &cs);
			if (st != MDF_OK && !kept) {
				/* No page: no dump; the next try needs no -f. */
				out_discard(&out);
				if (st == MDF_ERR_NOSPC) /* the sink leaves it unnamed */
					mdf_err_push(err, "%s", out_path);
			} else if (st != MDF_OK) {
				mdf_err_push(err, "%s: the dump is incomplete (%llu of %llu pages written)",
					     out_path, (ull)(kept - MDF_MIN(kept, cs.lost)),
					     (ull)total);
			} else if (ncut && cs.lost) {
				st = mdf_err_set(err, MDF_ERR_NODATA,
						 "%s: the dump is incomplete (%llu of %llu pages written): %llu pages were lost in the input already (%s%s is marked incomplete)",
						 out_path, (ull)(cs.pages - cs.lost), (ull)total,
						 (ull)cs.lost, cut,
						 ncut > 1 ? " and other parts" : "");
			} else if (ncut) {
				st = mdf_err_set(err, MDF_ERR_NODATA,
						 "%s: the dump is incomplete: %s%s is marked incomplete (all %llu pages of the set were copied; the mark stays)",
						 out_path, cut, ncut > 1 ? " and other parts" : "",
						 (ull)total);
			}
		}
	}
	splitset_close(&ss);
	if (rs) {
		rs->pages = cs.pages;
		rs->lost = cs.lost;
		rs->incomplete_parts = ncut;
	}
	return st;
}

enum mdf_status split_reassemble_main(const struct mdf_opts *o,
				      const struct mdf_printer *pr,
				      const struct mdf_stop *stop,
				      struct mdf_err *err)
{
	enum mdf_status st;

	st = split_reassemble(o->split_files, o->nsplit, o->dumpfile, o->force,
			      pr, stop, NULL, err);
	if (st == MDF_OK)
		pi_completed(pr, o->dumpfile);
	return st;
}
