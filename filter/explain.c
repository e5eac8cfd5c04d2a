/*
 * explain.c - why one page is kept or excluded (see explain.h).
 */
#include "filter/explain.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The window before the page that is scanned as one cycle: 2^18 pfns, the
 * largest compound order in use (1 GiB on 4 KiB pages, 16 GiB on 64 KiB). */
#define EXPLAIN_WINDOW_SHIFT 18

/* Struct pages after the page read for its compound fields: folio fields
 * lie in the first tail pages (filter.c reads page[1] and the folio's
 * second struct page). */
#define EXPLAIN_NEXT_MAX 7

struct work {
	struct bitmap present, dumpable;
	unsigned char *batch;   /* FILTER_BATCH struct pages */
	unsigned char *page;    /* one page */
};

static void work_free(struct work *w)
{
	bitmap_release(&w->present);
	bitmap_release(&w->dumpable);
	free(w->batch);
	free(w->page);
	memset(w, 0, sizeof(*w));
}

static enum mdf_status work_init(struct work *w, uint64_t pfns, uint64_t psz,
				 uint64_t page_size, struct mdf_err *err)
{
	enum mdf_status st;

	memset(w, 0, sizeof(*w));
	st = bitmap_init(&w->present, pfns, err);
	if (st == MDF_OK)
		st = bitmap_init(&w->dumpable, pfns, err);
	if (st != MDF_OK)
		return st;
	w->batch = malloc((size_t)(FILTER_BATCH * (psz ? psz : 1)));
	w->page = malloc((size_t)page_size);
	if (!w->batch || !w->page)
		return mdf_err_set(err, MDF_ERR_NOMEM, "--explain: out of memory");
	return MDF_OK;
}

/* The first decision of the scan that covers one pfn. */
struct watch {
	uint64_t pfn;
	bool hit;
	struct filter_event ev;
};

static void watch_seen(void *arg, const struct filter_event *ev)
{
	struct watch *w = arg;

	if (!w->hit && ev->pfn <= w->pfn && w->pfn < ev->end) {
		w->hit = true;
		w->ev = *ev;
	}
}

/* The bitmaps a run's scan of [start, end) starts from (dump.c's
 * prepare_cycle): the input's present and stored pfns, less the free
 * lists when the level drops free pages by them. */
static void prepare(const struct explain_input *in, bool use_free_lists, struct work *w,
		    uint64_t start, uint64_t end)
{
	bitmap_reset(&w->present, start, end);
	in->in->cycle_bitmaps(in->in_obj, in->page_size, &w->present, &w->dumpable);
	if (use_free_lists)
		(void)freelist_apply(in->free_lists, &w->dumpable);
}

/* Scan [start, end) as a cycle of its own (no carry in) and catch the
 * decision that covers @pfn in *@wt. */
static enum mdf_status scan(const struct explain_input *in, const struct filter_rules *r,
			    bool use_free_lists, struct work *w, uint64_t start, uint64_t end,
			    uint64_t pfn, struct watch *wt, struct mdf_err *err)
{
	struct filter_carry carry = { 0 };
	struct filter_counts counts;
	struct filter_observer obs = { .seen = watch_seen, .arg = wt };

	memset(&counts, 0, sizeof(counts));
	memset(wt, 0, sizeof(*wt));
	wt->pfn = pfn;
	prepare(in, use_free_lists, w, start, end);
	return filter_cycle_observed(r, in->mm, in->rm, &w->present, &w->dumpable, w->batch,
				     &carry, &counts, &obs, err);
}

static bool kept(enum mdf_explain_how how)
{
	return how == MDF_EXPLAIN_KEPT || how == MDF_EXPLAIN_UNREADABLE ||
	       how == MDF_EXPLAIN_NO_MEMMAP || how == MDF_EXPLAIN_NOT_SCANNED;
}

static void from_event(const struct watch *wt, struct mdf_explain_level *ret)
{
	const struct filter_event *ev = &wt->ev;

	if (!wt->hit) {
		/* The level reads no struct pages (or there are none). */
		ret->how = MDF_EXPLAIN_NOT_SCANNED;
		return;
	}
	switch (ev->kind) {
	case FILTER_EV_PAGE:
		if (ev->v.cls == PC_KEEP || ev->v.cls == PC_TAIL) {
			ret->how = MDF_EXPLAIN_KEPT;
			ret->cls = ev->v.cls;
			return;
		}
		/* fall through */
	case FILTER_EV_CARRIED:
		ret->how = MDF_EXPLAIN_EXCLUDED;
		ret->cls = ev->v.cls;
		ret->head = ev->pfn;
		ret->nr_pages = ev->v.nr_pages;
		return;
	case FILTER_EV_UNREADABLE:
		ret->how = MDF_EXPLAIN_UNREADABLE;
		return;
	case FILTER_EV_NO_MEMMAP:
		ret->how = MDF_EXPLAIN_NO_MEMMAP;
		return;
	}
}

enum mdf_status explain_level(const struct explain_input *in, uint64_t pfn,
			      unsigned level, struct mdf_explain_level *ret,
			      struct mdf_err *err)
{
	unsigned eff = level | in->old_level;
	uint64_t win = align_down(pfn, UINT64_C(1) << EXPLAIN_WINDOW_SHIFT), prev = UINT64_MAX;
	struct filter_rules r;
	struct filter_warnings warn;
	struct watch wt = { 0 };
	struct work w;
	bool use_free_lists;
	enum mdf_status st;

	memset(ret, 0, sizeof(*ret));
	ret->level = level;
	ret->effective = eff;
	ret->cls = PC_KEEP;
	st = filter_rules_init(&r, in->ki, eff, in->ki->big_endian, &warn, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "%s", in->name);
	if (in->keep && r.scan)
		r.keep = *in->keep;
	use_free_lists = warn.no_free_detection && in->free_lists;
	ret->free_unknown = warn.no_free_detection && !in->free_lists;
	st = work_init(&w, pfn + 1 - win, r.page_struct_size, in->page_size, err);
	if (st != MDF_OK)
		goto out;

	/* What the scan starts from: present, stored in the input, and not
	 * on the walked free lists. */
	prepare(in, false, &w, win, pfn + 1);
	if (!bitmap_test(&w.present, pfn)) {
		ret->how = MDF_EXPLAIN_HOLE;
		goto out;
	}
	if (!bitmap_test(&w.dumpable, pfn)) {
		ret->how = MDF_EXPLAIN_NO_DATA;
		goto out;
	}
	if (use_free_lists && freelist_contains(in->free_lists, pfn)) {
		ret->how = MDF_EXPLAIN_FREE_LIST;
		goto out;
	}

	/* Heads below the window, of orders above its own, lowest first:
	 * the first whose exclusion reaches the page decides it (a run
	 * carries that exclusion across its cycles). */
	for (unsigned k = 63; k > EXPLAIN_WINDOW_SHIFT && !wt.hit; k--) {
		uint64_t c = align_down(pfn, UINT64_C(1) << k);

		if (c >= win || c == prev)
			continue;
		prev = c;
		st = scan(in, &r, use_free_lists, &w, c, c + 1, pfn, &wt, err);
		if (st != MDF_OK)
			goto out;
	}
	if (!wt.hit) {
		st = scan(in, &r, use_free_lists, &w, win, pfn + 1, pfn, &wt, err);
		if (st != MDF_OK)
			goto out;
	}
	from_event(&wt, ret);

	/* The run's zero check: a kept page whose bytes are all zero. */
	if (kept(ret->how) && (eff & DL_EXCLUDE_ZERO)) {
		const unsigned char *p;

		st = readmem_page(in->rm, pfn, w.page, &p, err);
		if (st != MDF_OK) {
			st = mdf_err_about(err, in->name);
			goto out;
		}
		if (util_is_zero(p, (size_t)in->page_size))
			ret->how = MDF_EXPLAIN_ZERO;
	}
out:
	work_free(&w);
	if (st != MDF_OK)
		return mdf_err_push(err, "--explain: dump level %u", eff);
	return MDF_OK;
}

/* ---- the page itself ------------------------------------------------ */

/* The PG_ flag numbers of VMCOREINFO (one list: kinfo.h). */
#define EXPLAIN_NUMBER(ident, key) { key, offsetof(struct kinfo, num.ident) },
static const struct {
	const char *key;
	size_t off;
} numbers[] = { KINFO_NUMBERS(EXPLAIN_NUMBER) };
#undef EXPLAIN_NUMBER

static void name_flags(const struct kinfo *ki, struct mdf_explain *e)
{
	bool head_named = false;

	for (size_t i = 0; i < ARRAY_SIZE(numbers); i++) {
		const struct kinfo_s64 *n =
			(const struct kinfo_s64 *)((const char *)ki + numbers[i].off);

		if (strncmp(numbers[i].key, "PG_", 3) != 0 ||
		    strcmp(numbers[i].key, "PG_head_mask") == 0 || !n->set ||
		    n->v < 0 || n->v >= 64 || !(e->flags & (UINT64_C(1) << n->v)))
			continue;
		if (e->nflag_names < MDF_EXPLAIN_MAX_FLAGS)
			e->flag_names[e->nflag_names++] = numbers[i].key;
		if (strcmp(numbers[i].key, "PG_head") == 0)
			head_named = true;
	}
	/* Kernels export PG_head as a mask (NUMBER(PG_head_mask)). */
	if (!head_named && ki->num.PG_head_mask.set &&
	    (e->flags & (uint64_t)ki->num.PG_head_mask.v) &&
	    e->nflag_names < MDF_EXPLAIN_MAX_FLAGS)
		e->flag_names[e->nflag_names++] = "PG_head";
}

static const char *page_type(const struct filter_rules *r, uint32_t mc)
{
	if (r->has_buddy_mc && mc == r->buddy_mc)
		return "buddy (a free block's head)";
	if (r->has_offline_mc && mc == r->offline_mc)
		return "offline";
	if (r->has_slab_mc && mc == r->slab_mc)
		return "slab";
	if (r->has_hugetlb_mc && mc == r->hugetlb_mc)
		return "hugetlb";
	if (r->has_unaccepted_mc && mc == r->unaccepted_mc)
		return "unaccepted";
	return NULL;
}

/* Where the scan finds the struct page of @pfn: its batch's start looked
 * up, then an array from there (filter_cycle()); the pfn's own section
 * when the batch's start has no mem_map. */
static enum mdf_status page_vaddr(const struct explain_input *in, uint64_t psz, uint64_t pfn,
				  uint64_t *vaddr, bool *have_map, struct mdf_err *err)
{
	uint64_t batch = align_down(pfn, FILTER_BATCH);
	enum mdf_status st = memmap_page_vaddr(in->mm, in->rm, batch, vaddr, have_map, err);

	if (st == MDF_OK && *have_map) {
		*vaddr += (pfn - batch) * psz;
		return MDF_OK;
	}
	if (st != MDF_OK)
		return st;
	return memmap_page_vaddr(in->mm, in->rm, pfn, vaddr, have_map, err);
}

/* The struct page of @pfn into @buf, and after it those of its batch, up
 * to EXPLAIN_NEXT_MAX (*@nnext of them).  False with @why said. */
static bool read_struct_pages(const struct explain_input *in, uint64_t psz, uint64_t pfn,
			      unsigned char *buf, uint64_t *vaddr, size_t *nnext,
			      char *why, size_t whylen)
{
	uint64_t bend = MDF_MIN(align_down(pfn, FILTER_BATCH) + FILTER_BATCH, in->mm->max_pfn);
	struct mdf_err e;
	bool have_map = false;

	mdf_err_clear(&e);
	*nnext = 0;
	if (in->mm->model == MEMMAP_NONE) {
		snprintf(why, whylen, "VMCOREINFO says nowhere where struct pages are");
		return false;
	}
	if (page_vaddr(in, psz, pfn, vaddr, &have_map, &e) != MDF_OK) {
		mdf_err_keep(&e, why, whylen);
		return false;
	}
	if (!have_map) {
		snprintf(why, whylen, "no mem_section maps a struct page for it");
		return false;
	}
	if (bend > pfn + 1)
		*nnext = (size_t)MDF_MIN(bend - pfn - 1, EXPLAIN_NEXT_MAX);
	if (readmem_vaddr(in->rm, *vaddr, buf, (size_t)((1 + *nnext) * psz), &e) == MDF_OK)
		return true;
	*nnext = 0;
	mdf_err_clear(&e);
	if (readmem_vaddr(in->rm, *vaddr, buf, (size_t)psz, &e) == MDF_OK)
		return true;
	mdf_err_push(&e, "at 0x%llx", (unsigned long long)*vaddr);
	mdf_err_keep(&e, why, whylen);
	return false;
}

/* A tail's head, from the pointer it holds: the pfn whose struct page is
 * at that address, and what the rules read in it. */
static void find_head(const struct explain_input *in, const struct filter_rules *r,
		      struct mdf_explain *e, unsigned char *buf)
{
	uint64_t psz = r->page_struct_size, va, diff;
	uint64_t head_va = filter_head_vaddr(r, e->page_vaddr, e->head_word);
	uint64_t cand;
	size_t nnext;
	bool have_map = false;
	struct mdf_err err;
	char why[192];

	mdf_err_clear(&err);
	if (head_va > e->page_vaddr)
		return;
	diff = e->page_vaddr - head_va;
	if (diff % psz || diff / psz > e->pfn)
		return;
	cand = e->pfn - diff / psz;
	if (page_vaddr(in, psz, cand, &va, &have_map, &err) != MDF_OK || !have_map ||
	    va != head_va)
		return;
	e->head_known = true;
	e->head_pfn = cand;
	if (!read_struct_pages(in, psz, cand, buf, &va, &nnext, why, sizeof(why)))
		return;
	e->head_read = true;
	e->head_is_head = filter_compound(r, buf, buf + psz, nnext, cand, &e->head_order,
					  &e->head_hugetlb);
}

static void describe_page(const struct explain_input *in, uint64_t pfn, struct mdf_explain *e)
{
	struct filter_rules r;
	struct filter_warnings warn;
	struct mdf_err err;
	unsigned char *buf;
	size_t nnext;
	bool big;

	mdf_err_clear(&err);
	if (filter_rules_init(&r, in->ki, 31 | in->old_level, in->ki->big_endian, &warn,
			      &err) != MDF_OK || !r.page_struct_size) {
		if (!err.msg[0])
			mdf_err_set(&err, MDF_ERR_FORMAT,
				    "VMCOREINFO gives no usable struct page layout");
		mdf_err_keep(&err, e->no_page, sizeof(e->no_page));
		return;
	}
	buf = malloc((size_t)(r.page_struct_size * (1 + EXPLAIN_NEXT_MAX)));
	if (!buf) {
		snprintf(e->no_page, sizeof(e->no_page), "out of memory");
		return;
	}
	e->page_struct_size = r.page_struct_size;
	if (!read_struct_pages(in, r.page_struct_size, pfn, buf, &e->page_vaddr, &nnext,
			       e->no_page, sizeof(e->no_page))) {
		free(buf);
		return;
	}
	big = r.big_endian;
	e->have_page = true;
	e->flags = load_tword(buf + r.off_flags, r.word_size, big);
	name_flags(in->ki, e);
	e->has_mapping = r.has_mapping;
	if (r.has_mapping)
		e->mapping = load_tword(buf + r.off_mapping, r.word_size, big);
	e->has_private = r.has_private;
	if (r.has_private)
		e->private_ = load_tword(buf + r.off_private, r.word_size, big);
	e->has_mapcount = r.has_mapcount;
	if (r.has_mapcount) {
		e->mapcount = load_t32(buf + r.off_mapcount, big);
		e->page_type = page_type(&r, e->mapcount);
	}
	e->head_flag = filter_compound(&r, buf, buf + r.page_struct_size, nnext, pfn,
				       &e->order, &e->hugetlb);
	e->has_head_word = r.has_head;
	if (r.has_head) {
		e->head_word = load_tword(buf + r.off_head, r.word_size, big);
		e->tail = e->head_word & 1;
		if (e->tail)
			find_head(in, &r, e, buf);
	}
	free(buf);
}

/* Where the input has the page: bitmap1 and the start of bitmap2, and for
 * an ELF input the PT_LOAD that owns it. */
static enum mdf_status locate(const struct explain_input *in, uint64_t pfn,
			      struct mdf_explain *e, struct mdf_err *err)
{
	uint64_t start = align_down(pfn, 8), pend = e->paddr + in->page_size;
	struct bitmap present, dumpable;
	enum mdf_status st;

	memset(&present, 0, sizeof(present));
	memset(&dumpable, 0, sizeof(dumpable));
	st = bitmap_init(&present, 64, err);
	if (st == MDF_OK)
		st = bitmap_init(&dumpable, 64, err);
	if (st == MDF_OK) {
		bitmap_reset(&present, start, pfn + 1);
		in->in->cycle_bitmaps(in->in_obj, in->page_size, &present, &dumpable);
		e->present = bitmap_test(&present, pfn);
		e->has_data = bitmap_test(&dumpable, pfn);
	}
	bitmap_release(&present);
	bitmap_release(&dumpable);
	if (st != MDF_OK || !in->elf)
		return st;
	for (size_t i = 0; i < in->elf->nranges; i++) {
		const struct elf_range *rg = &in->elf->ranges[i];
		const struct elf_load *l = rg->load;
		struct elf_loc loc;

		if (rg->pend <= e->paddr || rg->pstart >= pend)
			continue;
		e->have_load = true;
		e->load_index = l->phdr_index;
		e->load_start = l->paddr;
		e->load_end = l->paddr + l->memsz;
		e->load_filesz_end = l->paddr + l->filesz;
		if (elf_info_locate(in->elf, MDF_MAX(e->paddr, rg->pstart), &loc) == MDF_OK) {
			e->in_file = loc.in_file;
			e->file_off = loc.off;
		}
		break;
	}
	return MDF_OK;
}

static void read_content(const struct explain_input *in, uint64_t pfn, struct mdf_explain *e)
{
	unsigned char *scratch = malloc((size_t)in->page_size);
	const unsigned char *p;
	struct mdf_err err;

	mdf_err_clear(&err);
	if (!scratch) {
		snprintf(e->no_content, sizeof(e->no_content), "out of memory");
		return;
	}
	if (readmem_page(in->rm, pfn, scratch, &p, &err) == MDF_OK) {
		e->have_content = true;
		e->zero = util_is_zero(p, (size_t)in->page_size);
	} else {
		mdf_err_keep(&err, e->no_content, sizeof(e->no_content));
	}
	free(scratch);
}

enum mdf_status explain_page(const struct explain_input *in, uint64_t value,
			     bool is_paddr, const unsigned *extra, unsigned nextra,
			     struct mdf_explain *e, struct mdf_err *err)
{
	static const unsigned defaults[] = EXPLAIN_DEFAULT_LEVELS;
	unsigned levels[MDF_EXPLAIN_MAX_LEVELS], n = 0;
	uint64_t pfn = is_paddr ? value / in->page_size : value;
	enum mdf_status st;

	memset(e, 0, sizeof(*e));
	e->vmcore = in->name;
	e->kind = in->in->kind;
	e->page_size = in->page_size;
	e->input_level = in->input_level;
	e->by_paddr = is_paddr;
	e->asked_paddr = is_paddr ? value : 0;
	if (pfn >= in->max_pfn) {
		char what[80] = "";

		if (is_paddr)
			snprintf(what, sizeof(what), "physical address 0x%llx, ",
				 (unsigned long long)value);
		if (!in->max_pfn)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "--explain: %spfn 0x%llx is not in %s's memory (it has none)",
					   what, (unsigned long long)pfn, in->name);
		return mdf_err_set(err, MDF_ERR_ARG,
				   "--explain: %spfn 0x%llx is not in %s's memory (max pfn 0x%llx)",
				   what, (unsigned long long)pfn, in->name,
				   (unsigned long long)(in->max_pfn - 1));
	}
	e->pfn = pfn;
	e->paddr = pfn * in->page_size;

	for (size_t i = 0; i < ARRAY_SIZE(defaults) + nextra; i++) {
		unsigned l = i < ARRAY_SIZE(defaults) ? defaults[i] : extra[i - ARRAY_SIZE(defaults)];
		bool seen = false;

		for (unsigned j = 0; j < n; j++)
			seen |= levels[j] == l;
		if (!seen && n < MDF_EXPLAIN_MAX_LEVELS)
			levels[n++] = l;
	}
	st = locate(in, pfn, e, err);
	if (st != MDF_OK)
		return st;
	describe_page(in, pfn, e);
	if (e->present && e->has_data)
		read_content(in, pfn, e);
	for (unsigned i = 0; i < n; i++) {
		st = explain_level(in, pfn, levels[i], &e->levels[i], err);
		if (st != MDF_OK)
			return st;
		e->nlevels = i + 1;
	}
	return MDF_OK;
}
