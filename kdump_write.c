/*
 * kdump_write.c - the kdump-compressed writer.
 */
#include "kdump_write.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

#define DESC_BUF_DEFAULT (256 << 10)

struct layout {
	uint64_t B;              /* block size */
	uint32_t sub_hdr_size;   /* blocks */
	uint32_t bitmap_blocks;  /* both bitmaps */
	uint64_t off_bitmap1, off_bitmap2;
	uint64_t off_desc, off_data;
	uint64_t ndumpable;
};

static void compute_layout(const struct kdump_write_params *p,
			   const struct dump_source *src, uint64_t ndumpable,
			   struct layout *l)
{
	uint64_t one_bitmap;

	l->B = p->page_size;
	l->sub_hdr_size = (uint32_t)div_round_up(sizeof(struct kdump_sub_header) +
						 p->notes_len, l->B);
	one_bitmap = align_up(div_round_up(src->max_pfn, 8), l->B);
	l->bitmap_blocks = (uint32_t)(2 * one_bitmap / l->B);
	l->off_bitmap1 = (1 + (uint64_t)l->sub_hdr_size) * l->B;
	l->off_bitmap2 = l->off_bitmap1 + one_bitmap;
	l->off_desc = l->off_bitmap1 + 2 * one_bitmap;
	l->ndumpable = ndumpable;
	l->off_data = l->off_desc + ndumpable * sizeof(struct page_desc);
}

static void fill_header(const struct kdump_write_params *p,
			const struct dump_source *src, const struct layout *l,
			uint32_t status, struct disk_dump_header *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->signature, KDUMP_SIGNATURE, KDUMP_SIG_LEN);
	h->header_version = KDUMP_HEADER_VERSION;
	h->utsname = p->uts;
	h->timestamp.tv_sec = p->crashtime;
	h->status = status;
	h->block_size = (int32_t)l->B;
	h->sub_hdr_size = (int32_t)l->sub_hdr_size;
	h->bitmap_blocks = l->bitmap_blocks;
	h->max_mapnr = src->max_pfn > UINT32_MAX ? UINT32_MAX : (uint32_t)src->max_pfn;
	h->nr_cpus = p->nr_cpus;
}

static void fill_sub_header(const struct kdump_write_params *p,
			    const struct dump_source *src, const struct layout *l,
			    struct kdump_sub_header *s)
{
	uint64_t off_note = l->B + sizeof(*s);

	memset(s, 0, sizeof(*s));
	s->phys_base = p->phys_base;
	s->dump_level = (int32_t)p->dump_level;
	s->offset_note = (int64_t)off_note;
	s->size_note = p->notes_len;
	if (p->have_vmcoreinfo) {
		s->offset_vmcoreinfo = (int64_t)(off_note + p->vmcoreinfo_off);
		s->size_vmcoreinfo = p->vmcoreinfo_size;
	}
	s->max_mapnr_64 = src->max_pfn;
}

struct writer {
	const struct kdump_write_params *p;
	const struct dump_source *src;
	struct compressor *comp;
	struct out_sink *out;
	struct kdump_write_stats *stats;
	struct layout l;
	struct page_desc *descs;    /* batch of descriptors */
	size_t ndescs, cap_descs;
	uint64_t desc_pos;          /* file offset of descs[0] */
	uint64_t data_pos;          /* next page data offset */
	unsigned char *cbuf;        /* compression output */
	size_t cbuf_cap;
	struct page_desc pd_zero;
};

static enum mdf_status flush_descs(struct writer *w, struct mdf_err *err)
{
	size_t n = w->ndescs * sizeof(struct page_desc);
	enum mdf_status st;

	if (!n)
		return MDF_OK;
	st = out_write(w->out, w->desc_pos, w->descs, n, err);
	if (st != MDF_OK)
		return st;
	w->desc_pos += n;
	w->ndescs = 0;
	return MDF_OK;
}

static enum mdf_status add_desc(struct writer *w, const struct page_desc *pd,
				struct mdf_err *err)
{
	if (w->ndescs == w->cap_descs) {
		enum mdf_status st = flush_descs(w, err);

		if (st != MDF_OK)
			return st;
	}
	w->descs[w->ndescs++] = *pd;
	return MDF_OK;
}

static enum mdf_status write_page(struct writer *w, uint64_t pfn,
				  struct mdf_err *err)
{
	const unsigned char *data;
	struct page_desc pd;
	size_t clen = 0;
	size_t B = (size_t)w->l.B;
	enum mdf_status st;

	st = w->src->page(w->src->arg, pfn, &data, err);
	if (st != MDF_OK)
		return st;
	if ((w->p->dump_level & 1) && util_is_zero(data, B)) {
		w->stats->zero_pages++;
		w->stats->pages++;
		return add_desc(w, &w->pd_zero, err);
	}
	memset(&pd, 0, sizeof(pd));
	st = compressor_page(w->comp, data, B, w->cbuf, w->cbuf_cap, &clen, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "pfn 0x%llx", (unsigned long long)pfn);
	pd.offset = (int64_t)w->data_pos;
	if (compressor_flag(w->comp) && clen < B) {
		pd.size = (uint32_t)clen;
		pd.flags = compressor_flag(w->comp);
		st = out_write(w->out, w->data_pos, w->cbuf, clen, err);
		w->stats->compressed++;
	} else {
		pd.size = (uint32_t)B;
		st = out_write(w->out, w->data_pos, data, B, err);
		w->stats->raw++;
	}
	if (st != MDF_OK)
		return st;
	w->data_pos += pd.size;
	w->stats->data_bytes += pd.size;
	w->stats->pages++;
	return add_desc(w, &pd, err);
}

/* The sink filled up: keep what is readable, mark the dump incomplete. */
static enum mdf_status finish_incomplete(struct writer *w,
					 struct disk_dump_header *h,
					 struct mdf_err *err)
{
	struct mdf_err ignore;
	uint64_t lost_from = w->out->fail_off;

	/* Descriptors whose data may be lost read as "lost page" (offset 0). */
	for (size_t i = 0; i < w->ndescs; i++) {
		struct page_desc *pd = &w->descs[i];

		if ((uint64_t)pd->offset + pd->size > lost_from)
			memset(pd, 0, sizeof(*pd));
	}
	if (w->ndescs && !w->out->flat &&
	    out_patch(w->out, w->desc_pos, w->descs,
		      w->ndescs * sizeof(struct page_desc), &ignore) == MDF_OK)
		w->ndescs = 0;
	w->stats->incomplete = true;
	h->status |= DUMP_DH_COMPRESSED_INCOMPLETE;
	if (!w->out->flat && out_patch(w->out, 0, h, sizeof(*h), &ignore) != MDF_OK)
		return mdf_err_push(err, "the dump is incomplete and its header could not be marked so");
	return mdf_err_push(err, "%s: the dump is incomplete (%llu of %llu pages written)",
			    w->out->path, (unsigned long long)w->stats->pages,
			    (unsigned long long)w->l.ndumpable);
}

enum mdf_status kdump_write_dump(const struct kdump_write_params *p,
				 const struct dump_source *src,
				 struct compressor *comp, struct out_sink *out,
				 struct kdump_write_stats *stats,
				 struct mdf_err *err)
{
	struct writer w = { .p = p, .src = src, .comp = comp, .out = out,
			    .stats = stats };
	struct disk_dump_header h;
	struct kdump_sub_header sub;
	const struct bitmap *present, *dumpable;
	uint64_t ndumpable = 0;
	enum mdf_status st = MDF_OK;

	memset(stats, 0, sizeof(*stats));
	/* Pass 1: how many descriptors. */
	for (uint64_t start = 0; start < src->max_pfn; start += src->cycle_pfns) {
		st = src->cycle(src->arg, start, false, &present, &dumpable, err);
		if (st != MDF_OK)
			return st;
		ndumpable += bitmap_count(dumpable, dumpable->start_pfn, dumpable->end_pfn);
	}
	compute_layout(p, src, ndumpable, &w.l);
	fill_header(p, src, &w.l, compressor_flag(comp) |
		    (p->excluded_vmemmap ? DUMP_DH_EXCLUDED_VMEMMAP : 0), &h);
	fill_sub_header(p, src, &w.l, &sub);

	w.cap_descs = (p->desc_buf_bytes ? p->desc_buf_bytes : DESC_BUF_DEFAULT) /
		      sizeof(struct page_desc);
	w.descs = malloc(w.cap_descs * sizeof(struct page_desc));
	w.cbuf_cap = compressor_bound(comp, (size_t)w.l.B);
	w.cbuf = malloc(w.cbuf_cap);
	if (!w.descs || !w.cbuf) {
		st = mdf_err_set(err, MDF_ERR_NOMEM, "out of memory for the writer");
		goto out;
	}
	w.desc_pos = w.l.off_desc;
	w.data_pos = w.l.off_data;

	/* Headers and the note copy. */
	st = out_write(out, 0, &h, sizeof(h), err);
	if (st == MDF_OK)
		st = out_write(out, w.l.B, &sub, sizeof(sub), err);
	if (st == MDF_OK && p->notes_len)
		st = out_write(out, w.l.B + sizeof(sub), p->notes, p->notes_len, err);
	if (st != MDF_OK)
		goto out;

	/* The shared zero page comes first in the data area. */
	if (p->dump_level & 1) {
		unsigned char *zero = calloc(1, (size_t)w.l.B);

		if (!zero) {
			st = mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
			goto out;
		}
		w.pd_zero.offset = (int64_t)w.data_pos;
		w.pd_zero.size = (uint32_t)w.l.B;
		st = out_write(out, w.data_pos, zero, (size_t)w.l.B, err);
		free(zero);
		if (st != MDF_OK)
			goto out;
		w.data_pos += w.l.B;
	}

	/* Pass 2: bitmaps, descriptors and data, cycle by cycle. */
	for (uint64_t start = 0; start < src->max_pfn; start += src->cycle_pfns) {
		st = src->cycle(src->arg, start, false, &present, &dumpable, err);
		if (st != MDF_OK)
			goto out;
		st = out_write(out, w.l.off_bitmap1 + start / 8, present->bits,
			       bitmap_bytes(present), err);
		if (st == MDF_OK)
			st = out_write(out, w.l.off_bitmap2 + start / 8, dumpable->bits,
				       bitmap_bytes(dumpable), err);
		for (uint64_t pfn = bitmap_next_set(dumpable, dumpable->start_pfn);
		     st == MDF_OK && pfn < dumpable->end_pfn;
		     pfn = bitmap_next_set(dumpable, pfn + 1))
			st = write_page(&w, pfn, err);
		if (st != MDF_OK)
			goto out;
	}
	st = flush_descs(&w, err);
	if (st == MDF_OK)
		st = out_flush(out, err);
	stats->file_size = w.data_pos;
out:
	if (st == MDF_ERR_NOSPC && out->full)
		st = finish_incomplete(&w, &h, err);
	free(w.descs);
	free(w.cbuf);
	return st;
}
