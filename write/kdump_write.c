/*
 * kdump_write.c - the kdump-compressed writer.
 */
#include "write/kdump_write.h"

#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"
#include "util.h"
#include "workers.h"

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
	l->sub_hdr_size = (uint32_t)div_round_up(kdump_sub_header_size(p->abi) +
						 p->notes_len, l->B);
	one_bitmap = align_up(div_round_up(src->max_pfn - p->pfn_base, 8), l->B);
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
	uint64_t max = src->max_pfn - p->pfn_base;

	h->max_mapnr = max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
	h->nr_cpus = p->nr_cpus;
}

static void fill_sub_header(const struct kdump_write_params *p,
			    const struct dump_source *src, const struct layout *l,
			    struct kdump_sub_header *s)
{
	uint64_t off_note = l->B + kdump_sub_header_size(p->abi);

	memset(s, 0, sizeof(*s));
	s->phys_base = p->phys_base;
	s->dump_level = (int32_t)p->dump_level;
	s->offset_note = (int64_t)off_note;
	s->size_note = p->notes_len;
	if (p->have_vmcoreinfo) {
		s->offset_vmcoreinfo = (int64_t)(off_note + p->vmcoreinfo_off);
		s->size_vmcoreinfo = p->vmcoreinfo_size;
	}
	s->max_mapnr_64 = src->max_pfn - p->pfn_base;
	if (p->split) {
		/* in the file's numbering, from pfn_base */
		uint64_t a = p->start_pfn > p->pfn_base ? p->start_pfn - p->pfn_base : 0;
		uint64_t b = p->end_pfn > p->pfn_base ? p->end_pfn - p->pfn_base : 0;

		s->split = 1;
		s->start_pfn = a > UINT32_MAX ? UINT32_MAX : a;
		s->end_pfn = b > UINT32_MAX ? UINT32_MAX : b;
		s->start_pfn_64 = a;
		s->end_pfn_64 = b;
	}
}

/*
 * The headers and descriptors are written in the dumped machine's byte
 * order and C ABI (as makedumpfile running there writes its in-memory
 * structs: an i386 dump's headers are ILP32's, diskdump.c); these write
 * (or patch) them so.
 */
static bool other_order(const struct kdump_write_params *p)
{
	return p->big_endian != MDF_HOST_BIG_ENDIAN;
}

static enum mdf_status put_header(const struct kdump_write_params *p,
				  struct out_sink *out, bool patch,
				  const struct disk_dump_header *h,
				  struct mdf_err *err)
{
	unsigned char b[KDUMP_HEADER_SIZE_MAX];

	kdump_header_put(b, h, p->abi, p->big_endian);
	return (patch ? out_patch : out_write)(out, 0, b, kdump_header_size(p->abi), err);
}

static enum mdf_status put_sub_header(const struct kdump_write_params *p,
				      struct out_sink *out, bool patch,
				      uint64_t at, const struct kdump_sub_header *s,
				      struct mdf_err *err)
{
	unsigned char b[sizeof(struct kdump_sub_header)];

	kdump_sub_header_put(b, s, p->abi, p->big_endian);
	return (patch ? out_patch : out_write)(out, at, b, kdump_sub_header_size(p->abi), err);
}

/*
 * Pass 2 runs pages through batches: the calling thread fills a batch with
 * page bytes, a worker (workers.h) zero-checks and compresses it, and the
 * calling thread takes batches back in submission order and writes
 * descriptors and data exactly as a page-at-a-time loop would.  Page bytes
 * are not copied when the source can hold them (page_ref: a pinned mapped
 * window of the input); the few it cannot hold are copied into the batch.
 * With no threads the pool runs each batch inline and a batch is one page
 * whose bytes are the source's own: the serial path is the same code.
 */
#define BATCH_BYTES (256 << 10)

enum page_kind { PK_ZERO, PK_COMP, PK_RAW, PK_LOST };

struct page_res {
	uint32_t size;              /* stored bytes (PK_COMP, PK_RAW) */
	uint8_t kind;               /* enum page_kind */
};

struct batch {
	unsigned n, cap;            /* pages in it, room */
	unsigned nok;               /* pages processed (n unless it failed) */
	size_t B, cbound;
	unsigned dump_level;
	uint64_t *pfn;
	const unsigned char **data; /* page bytes: into in, or the source's */
	void **ref;                 /* source's hold on data[i], or NULL */
	unsigned char *in;          /* cap * B copies (NULL when inline) */
	unsigned char *out;         /* cap * cbound compressed bytes */
	struct page_res *res;
};

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
	struct page_desc pd_zero;
	struct workers *pool;
	struct batch *batches;      /* workers_capacity() of them */
	unsigned nbatches;
	uint64_t nsubmitted;        /* batch being filled: nsubmitted % nbatches */
};

/*
 * Descriptors wait in w->descs until a batch of them is written; when the
 * dump stops short (-L, a full disk) the ones waiting are written anyway,
 * as the last thing.  So the bytes they will take are held back from -L
 * (out_sink.reserved) while they wait: the dump stays within the limit.
 */
static enum mdf_status flush_descs(struct writer *w, struct mdf_err *err)
{
	size_t n = w->ndescs * sizeof(struct page_desc);
	enum mdf_status st;

	if (!n)
		return MDF_OK;
	w->out->reserved -= n;
	if (other_order(w->p))
		kdump_page_desc_bswap(w->descs, w->ndescs);
	st = out_write(w->out, w->desc_pos, w->descs, n, err);
	if (st != MDF_OK) {
		/* kept for finish_incomplete(), in host order */
		if (other_order(w->p))
			kdump_page_desc_bswap(w->descs, w->ndescs);
		w->out->reserved += n;
		return st;
	}
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
	w->out->reserved += sizeof(*pd);
	return MDF_OK;
}

/* Worker side (any thread): zero check and compression of a batch. */
static enum mdf_status batch_process(void *job, void *state,
				     struct mdf_err *err)
{
	struct batch *b = job;
	struct compressor *c = state;
	uint32_t flag = compressor_flag(c);

	/* At -d 1 and above a page reaches the compressor only after this
	 * loop found it non-zero: the compressor need not look again. */
	bool zero_checked = b->dump_level & DL_EXCLUDE_ZERO;

	b->nok = 0;
	for (unsigned i = 0; i < b->n; i++) {
		struct page_res *r = &b->res[i];
		unsigned char *dst = b->out + i * b->cbound;
		size_t clen = 0;
		enum mdf_status st;

		if (!b->data[i]) {
			r->kind = PK_LOST;
			r->size = 0;
		} else if (zero_checked && util_is_zero(b->data[i], b->B)) {
			r->kind = PK_ZERO;
			r->size = 0;
		} else {
			if (zero_checked)
				st = compressor_page_nonzero(c, b->data[i], b->B, dst,
							     b->cbound, &clen, err);
			else
				st = compressor_page(c, b->data[i], b->B, dst,
						     b->cbound, &clen, err);
			if (st != MDF_OK)
				return mdf_err_push(err, "pfn 0x%llx",
						    (unsigned long long)b->pfn[i]);
			if (flag && clen < b->B) {
				r->kind = PK_COMP;
				r->size = (uint32_t)clen;
			} else {
				r->kind = PK_RAW;
				r->size = (uint32_t)b->B;
			}
		}
		b->nok = i + 1;
	}
	return MDF_OK;
}

/* Worker states: their own compressor each, or the caller's when inline. */
static enum mdf_status worker_init(void *arg, unsigned idx, void **state,
				   struct mdf_err *err)
{
	struct writer *w = arg;
	struct compressor *c;
	enum mdf_status st;

	(void)idx;
	if (!w->p->nthreads) {
		*state = w->comp;
		return MDF_OK;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory for a compressor");
	st = compressor_init(c, w->comp->ops->codec, err);
	if (st != MDF_OK) {
		free(c);
		return st;
	}
	*state = c;
	return MDF_OK;
}

static void worker_fini(void *arg, unsigned idx, void *state)
{
	struct writer *w = arg;

	(void)idx;
	if (state != w->comp) {
		compressor_release(state);
		free(state);
	}
}

/* Consumer side: descriptors and data of the first @n pages of @b. */
static enum mdf_status emit_batch(struct writer *w, const struct batch *b,
				  unsigned n, struct mdf_err *err)
{
	uint32_t flag = compressor_flag(w->comp);
	enum mdf_status st;

	for (unsigned i = 0; i < n; i++) {
		const struct page_res *r = &b->res[i];
		struct page_desc pd;

		/* A page counts as written once its descriptor is queued. */
		if (r->kind == PK_LOST) {
			memset(&pd, 0, sizeof(pd));
			st = add_desc(w, &pd, err);
			if (st != MDF_OK)
				return st;
			w->stats->lost_pages++;
			continue;
		}
		if (r->kind == PK_ZERO) {
			st = add_desc(w, &w->pd_zero, err);
			if (st != MDF_OK)
				return st;
			w->stats->zero_pages++;
			w->stats->pages++;
			continue;
		}
		memset(&pd, 0, sizeof(pd));
		pd.offset = (int64_t)w->data_pos;
		pd.size = r->size;
		if (r->kind == PK_COMP) {
			pd.flags = flag;
			st = out_write(w->out, w->data_pos, b->out + i * b->cbound,
				       r->size, err);
		} else {
			st = out_write(w->out, w->data_pos, b->data[i], r->size, err);
		}
		if (st != MDF_OK)
			return st;
		w->data_pos += pd.size;
		st = add_desc(w, &pd, err);
		if (st != MDF_OK)
			return st;
		if (r->kind == PK_COMP)
			w->stats->compressed++;
		else
			w->stats->raw++;
		w->stats->data_bytes += pd.size;
		w->stats->pages++;
	}
	return MDF_OK;
}

/* Let the source drop its hold on the pages of @b. */
static void batch_release(struct writer *w, struct batch *b)
{
	for (unsigned i = 0; b->ref && i < b->n; i++) {
		if (b->ref[i])
			w->src->page_release(w->src->arg, b->pfn[i], b->ref[i]);
		b->ref[i] = NULL;
	}
	b->n = 0;
}

/* Take the oldest batch back and write it.  Pages before a failed one are
 * written first, as a serial loop would have done. */
static enum mdf_status take_one(struct writer *w, struct mdf_err *err)
{
	struct mdf_err jerr;
	void *job;
	struct batch *b;
	enum mdf_status st, est;

	st = workers_take(w->pool, &job, &jerr);
	b = job;
	if (!b) {
		*err = jerr;
		return st;
	}
	est = emit_batch(w, b, st == MDF_OK ? b->n : b->nok, err);
	batch_release(w, b);
	if (est != MDF_OK)
		return est;
	if (st != MDF_OK)
		*err = jerr;
	return st;
}

static enum mdf_status drain(struct writer *w, struct mdf_err *err)
{
	while (workers_pending(w->pool)) {
		enum mdf_status st = take_one(w, err);

		if (st != MDF_OK)
			return st;
	}
	return MDF_OK;
}

static struct batch *cur_batch(struct writer *w)
{
	return &w->batches[w->nsubmitted % w->nbatches];
}

/* Hand the batch being filled to the pool; keep a free one for the next. */
static enum mdf_status submit_batch(struct writer *w, struct mdf_err *err)
{
	enum mdf_status st = workers_submit(w->pool, cur_batch(w), err);

	if (st != MDF_OK)
		return st;
	w->nsubmitted++;
	while (workers_pending(w->pool) >= workers_capacity(w->pool)) {
		st = take_one(w, err);
		if (st != MDF_OK)
			return st;
	}
	return MDF_OK;
}

/* Put page @pfn in the batch being filled (true when that filled it). */
static enum mdf_status add_page(struct writer *w, uint64_t pfn, bool *full,
				struct mdf_err *err)
{
	struct batch *b = cur_batch(w);
	const unsigned char *data;
	void *ref = NULL;
	enum mdf_status st;

	if (b->ref)
		st = w->src->page_ref(w->src->arg, pfn, &data, &ref, err);
	else
		st = w->src->page(w->src->arg, pfn, &data, err);
	if (st == MDF_ERR_NODATA) {
		/* Lost in the input (a refiltered incomplete dump): lost
		 * here too, and the dump stays marked incomplete. */
		mdf_err_clear(err);
		data = NULL;
		ref = NULL;
	} else if (st != MDF_OK) {
		return st;
	}
	if (b->ref)
		b->ref[b->n] = ref;
	if (b->in && !ref && data) {
		memcpy(b->in + b->n * b->B, data, b->B);
		data = b->in + b->n * b->B;
	}
	b->data[b->n] = data;
	b->pfn[b->n] = pfn;
	*full = ++b->n == b->cap;
	return MDF_OK;
}

/* The source failed at some page: write what came before it, as a serial
 * loop would have, then report the source's error (unless writing the
 * earlier pages failed first). */
static enum mdf_status source_failed(struct writer *w, enum mdf_status st,
				     struct mdf_err *err)
{
	struct mdf_err saved = *err;
	enum mdf_status wst = MDF_OK;

	if (cur_batch(w)->n)
		wst = submit_batch(w, err);
	if (wst == MDF_OK)
		wst = drain(w, err);
	if (wst != MDF_OK)
		return wst;
	*err = saved;
	return st;
}

static void batches_free(struct writer *w)
{
	for (unsigned i = 0; w->batches && i < w->nbatches; i++) {
		struct batch *b = &w->batches[i];

		batch_release(w, b);
		free(b->ref);
		free(b->pfn);
		free(b->data);
		free(b->in);
		free(b->out);
		free(b->res);
	}
	free(w->batches);
	w->batches = NULL;
}

/* The compression threads' ops (read-only: .data.rel.ro). */
static const struct workers_ops batch_workers_ops = {
	.init = worker_init,
	.fini = worker_fini,
	.process = batch_process,
};

/* The pool and one batch per ring slot. */
static enum mdf_status pipeline_init(struct writer *w, struct mdf_err *err)
{
	unsigned nthreads = w->p->nthreads;
	size_t B = (size_t)w->l.B;
	size_t cap = nthreads ? MDF_MAX(BATCH_BYTES / B, 1) : 1;
	size_t cbound = compressor_bound(w->comp, B);
	/* Workers read pages the source holds for them, when it can. */
	bool hold = nthreads && w->src->page_ref && w->src->page_release;
	enum mdf_status st;

	if (!w->comp->ops)
		return mdf_err_set(err, MDF_ERR_ARG, "writer: compressor not initialised");
	st = workers_create(&w->pool, nthreads, nthreads ? 2 * nthreads + 2 : 1,
			    &batch_workers_ops, w, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "cannot start %u compression threads", nthreads);
	w->nbatches = workers_capacity(w->pool);
	w->batches = calloc(w->nbatches, sizeof(*w->batches));
	if (!w->batches)
		goto nomem;
	for (unsigned i = 0; i < w->nbatches; i++) {
		struct batch *b = &w->batches[i];

		b->cap = (unsigned)cap;
		b->B = B;
		b->cbound = cbound;
		b->dump_level = w->p->dump_level;
		b->pfn = malloc(cap * sizeof(*b->pfn));
		b->data = malloc(cap * sizeof(*b->data));
		b->out = malloc(cap * cbound);
		b->res = malloc(cap * sizeof(*b->res));
		if (nthreads)
			b->in = malloc(cap * B);
		if (hold)
			b->ref = calloc(cap, sizeof(*b->ref));
		if (!b->pfn || !b->data || !b->out || !b->res ||
		    (nthreads && !b->in) || (hold && !b->ref))
			goto nomem;
	}
	return MDF_OK;
nomem:
	return mdf_err_set(err, MDF_ERR_NOMEM,
			   "out of memory for %u batches of %zu pages",
			   w->nbatches, cap);
}

/* The sink filled up, or a signal stopped the run: keep what is readable;
 * the header says the dump is incomplete. */
static enum mdf_status finish_incomplete(struct writer *w,
					 struct disk_dump_header *h,
					 enum mdf_status why, struct mdf_err *err)
{
	struct mdf_err ignore;
	uint64_t lost_from = why == MDF_ERR_NOSPC ? w->out->fail_off : UINT64_MAX;

	/* Descriptors whose data may be lost read as "lost page" (offset 0),
	 * and the pages they stood for do not count as written.  (Descriptors
	 * already on disk only point below lost_from: the sink writes the data
	 * before the descriptors that follow it.) */
	for (size_t i = 0; i < w->ndescs; i++) {
		struct page_desc *pd = &w->descs[i];

		if ((uint64_t)pd->offset + pd->size > lost_from) {
			memset(pd, 0, sizeof(*pd));
			w->stats->pages--;
		}
	}
	/* What the sink still holds goes out first (after a signal; after a
	 * full disk it is lost). */
	if (why != MDF_ERR_NOSPC)
		mdf_best_effort(out_flush(w->out, &ignore));
	if (other_order(w->p))
		kdump_page_desc_bswap(w->descs, w->ndescs);
	if (w->ndescs &&
	    out_patch(w->out, w->desc_pos, w->descs,
		      w->ndescs * sizeof(struct page_desc), &ignore) == MDF_OK)
		w->ndescs = 0;
	mdf_best_effort(out_flush(w->out, &ignore));
	w->stats->incomplete = true;
	h->status |= DUMP_DH_COMPRESSED_INCOMPLETE;
	if (put_header(w->p, w->out, true, h, &ignore) != MDF_OK ||
	    out_flush(w->out, &ignore) != MDF_OK)
		return mdf_err_push(err, "%s: the dump is incomplete and its header could not be marked so",
				    w->out->path);
	return mdf_err_push(err, "%s: the dump is incomplete (%llu of %llu pages written)",
			    w->out->path, (unsigned long long)w->stats->pages,
			    (unsigned long long)(w->p->split ? w->p->part_dumpable
							     : w->l.ndumpable));
}

/* The bitmaps of the cycle from @start, numbered from pfn_base: the
 * bytes of pfns below it are not written (no RAM is there). */
static enum mdf_status put_bitmaps(struct writer *w, uint64_t start,
				   const struct bitmap *present, const struct bitmap *dumpable,
				   struct mdf_err *err)
{
	const uint64_t base = w->p->pfn_base;
	size_t n = bitmap_bytes(present), skip = 0;
	enum mdf_status st;

	if (start < base) {
		if ((base - start) / 8 >= n)
			return MDF_OK;
		skip = (size_t)((base - start) / 8);
	}
	start += 8 * skip;
	st = out_write(w->out, w->l.off_bitmap1 + (start - base) / 8, present->bits + skip,
		       n - skip, err);
	if (st == MDF_OK)
		st = out_write(w->out, w->l.off_bitmap2 + (start - base) / 8,
			       dumpable->bits + skip, bitmap_bytes(dumpable) - skip, err);
	return st;
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
	uint64_t ndumpable = 0, first, last;
	enum mdf_status st = MDF_OK;

	memset(stats, 0, sizeof(*stats));
	if (p->pfn_base % 64 || (p->pfn_base && p->pfn_base >= src->max_pfn))
		return mdf_err_set(err, MDF_ERR_ARG,
				   "kdump: pfns counted from 0x%llx: not a multiple of 64 below max_pfn 0x%llx",
				   (unsigned long long)p->pfn_base,
				   (unsigned long long)src->max_pfn);
	if (p->split && (p->start_pfn > p->end_pfn || p->end_pfn > src->max_pfn))
		return mdf_err_set(err, MDF_ERR_ARG,
				   "split part: bad pfn range 0x%llx-0x%llx (max_pfn 0x%llx)",
				   (unsigned long long)p->start_pfn,
				   (unsigned long long)p->end_pfn,
				   (unsigned long long)src->max_pfn);
	/* Pass 1: how many descriptors (a split part is told). */
	if (p->split)
		ndumpable = p->total_dumpable;
	for (uint64_t start = 0; !p->split && start < src->max_pfn;
	     start += src->cycle_pfns) {
		st = src->cycle(src->arg, start, false, &present, &dumpable, err);
		if (st == MDF_ERR_INTERRUPTED) /* stopped before the first write */
			return mdf_err_push(err, "%s: no page written", out->path);
		if (st != MDF_OK)
			return st;
		ndumpable += bitmap_count(dumpable, dumpable->start_pfn, dumpable->end_pfn);
	}
	compute_layout(p, src, ndumpable, &w.l);
	/* The header says "incomplete" until the very last write, made once
	 * everything else is on the disk: a dump cut short for any reason (a
	 * read or write error, a signal, even SIGKILL) never looks whole. */
	fill_header(p, src, &w.l, compressor_flag(comp) | DUMP_DH_COMPRESSED_INCOMPLETE |
		    (p->excluded_vmemmap ? DUMP_DH_EXCLUDED_VMEMMAP : 0), &h);
	if (out->flat) /* that last write is one more record within -L */
		out->reserved += kdump_header_size(p->abi) + 16;
	fill_sub_header(p, src, &w.l, &sub);

	w.cap_descs = (p->desc_buf_bytes ? p->desc_buf_bytes : DESC_BUF_DEFAULT) /
		      sizeof(struct page_desc);
	w.descs = malloc(w.cap_descs * sizeof(struct page_desc));
	if (!w.descs) {
		st = mdf_err_set(err, MDF_ERR_NOMEM, "out of memory for the writer");
		goto out;
	}
	st = pipeline_init(&w, err);
	/* With compression threads, writing gets a thread too: this one
	 * then only feeds them and lays out descriptors. */
	if (st == MDF_OK && p->nthreads)
		st = out_start_io(out, err);
	if (st != MDF_OK)
		goto out;
	w.desc_pos = w.l.off_desc;
	w.data_pos = w.l.off_data;

	/* Headers and the note copy. */
	st = put_header(p, out, false, &h, err);
	if (st == MDF_OK)
		st = put_sub_header(p, out, false, w.l.B, &sub, err);
	if (st == MDF_OK && p->notes_len)
		st = out_write(out, w.l.B + kdump_sub_header_size(p->abi), p->notes, p->notes_len,
			       err);
	if (st != MDF_OK)
		goto out;

	/* The shared zero page comes first in the data area. */
	if (p->dump_level & DL_EXCLUDE_ZERO) {
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
		/* Pages of the last cycle go out before this cycle's bitmaps,
		 * so the order of writes does not depend on threads. */
		st = drain(&w, err);
		if (st != MDF_OK)
			goto out;
		st = src->cycle(src->arg, start, false, &present, &dumpable, err);
		if (st != MDF_OK)
			goto out;
		st = put_bitmaps(&w, start, present, dumpable, err);
		if (st != MDF_OK)
			goto out;
		first = dumpable->start_pfn;
		last = dumpable->end_pfn;
		if (p->split) {
			first = MDF_MAX(first, p->start_pfn);
			last = MDF_MIN(last, p->end_pfn);
		}
		for (uint64_t pfn = first < last ? bitmap_next_set(dumpable, first) : last;
		     pfn < last; pfn = bitmap_next_set(dumpable, pfn + 1)) {
			bool full = false;

			st = add_page(&w, pfn, &full, err);
			if (st != MDF_OK)
				st = source_failed(&w, st, err);
			else if (full)
				st = submit_batch(&w, err);
			if (st != MDF_OK)
				goto out;
		}
		if (cur_batch(&w)->n) {
			st = submit_batch(&w, err);
			if (st != MDF_OK)
				goto out;
		}
	}
	st = drain(&w, err);
	if (st == MDF_OK)
		st = flush_descs(&w, err);
	/* Eraseinfo after the data; the sub header names it (version 5). */
	if (st == MDF_OK && p->eraseinfo_len) {
		st = out_write(out, w.data_pos, p->eraseinfo, p->eraseinfo_len, err);
		sub.offset_eraseinfo = (int64_t)w.data_pos;
		sub.size_eraseinfo = p->eraseinfo_len;
		w.data_pos += p->eraseinfo_len;
		if (st == MDF_OK)
			st = put_sub_header(p, out, true, w.l.B, &sub, err);
	}
	if (st == MDF_OK)
		st = out_sync(out, err);
	if (st == MDF_OK && !stats->lost_pages && !p->input_incomplete) {
		h.status &= ~DUMP_DH_COMPRESSED_INCOMPLETE;
		st = put_header(p, out, true, &h, err);
	}
	if (st == MDF_OK)
		st = out_flush(out, err);
	stats->file_size = w.data_pos;
	if (st == MDF_OK && stats->lost_pages) {
		stats->incomplete = true;
		st = mdf_err_set(err, MDF_ERR_NODATA,
				 "%s: the dump is incomplete (%llu of %llu pages written): "
				 "%llu pages were lost in the input already",
				 out->path, (unsigned long long)stats->pages,
				 (unsigned long long)(p->split ? p->part_dumpable : w.l.ndumpable),
				 (unsigned long long)stats->lost_pages);
	} else if (st == MDF_OK && p->input_incomplete) {
		/* Every page it had came through, but what the input lost
		 * may be among the pages it does not store: the mark stays. */
		stats->incomplete = true;
		st = mdf_err_set(err, MDF_ERR_NODATA,
				 "%s: the dump is incomplete: its input is marked incomplete "
				 "(all %llu pages it stores were written; the mark stays)",
				 out->path, (unsigned long long)stats->pages);
	}
out:
	/* Jobs still in flight (after an error) are dropped here. */
	workers_destroy(w.pool);
	w.pool = NULL;
	batches_free(&w);
	if ((st == MDF_ERR_NOSPC && out->full) || st == MDF_ERR_INTERRUPTED)
		st = finish_incomplete(&w, &h, st, err);
	free(w.descs);
	return st;
}
