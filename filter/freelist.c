/*
 * freelist.c - walk the buddy allocator's free lists (see freelist.h).
 */
#include "filter/freelist.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Sanity caps on numbers read from VMCOREINFO or from the dump. */
#define FL_MAX_NODES (1u << 16)     /* LENGTH(node_data) (MAX_NUMNODES) */
#define FL_LENGTH_UNKNOWN ((uint64_t)INT64_MAX - 1)
#define FL_MAX_ZONES 16             /* pglist_data.nr_zones (MAX_NR_ZONES <= 8) */
#define FL_MAX_ORDERS 64            /* LENGTH(zone.free_area) */
#define FL_MAX_TYPES 64             /* LENGTH(free_area.free_list) */

static unsigned long long ull(uint64_t v)
{
	return (unsigned long long)v;
}

/* Where things are, from VMCOREINFO. */
struct fl_layout {
	uint64_t zone_size, free_area_size, list_head_size, page_size;
	uint64_t off_zones, off_nr_zones, off_free_area, off_free_list;
	uint64_t off_next, off_prev, off_lru, off_spanned, off_counter;
	bool has_prev, has_spanned, has_counter;
	unsigned nr_orders, nr_types;
	unsigned word;             /* unsigned long, pointers: 8, 4 on i386 */
};

/* One run of struct pages: [vstart, vend) holds the pages of pfn, pfn+1... */
struct fl_vrange {
	uint64_t vstart, vend, pfn;
};

/* Everything one walk needs. */
struct fl_walk {
	struct fl_layout lay;
	bool counters_only;        /* read the zones' free counters, no list */
	struct readmem *rm;
	uint64_t max_pfn;
	struct fl_vrange *vr;      /* sorted by vstart */
	size_t nvr, capvr;
	uint64_t zone_pages;       /* pages the current zone spans (or max_pfn) */
	struct freelist_result *res;
	struct mdf_err *err;
};

static enum mdf_status need(const struct kinfo_u64 *f, const char *what,
			    uint64_t *out, struct mdf_err *err)
{
	if (!f->set)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "VMCOREINFO has no %s", what);
	*out = f->v;
	return MDF_OK;
}

/* The free-page counter of a zone: zone.free_pages until 2.6.20,
 * vm_stat[NR_FREE_PAGES] (an atomic_long_t) since 2.6.21. */
static void layout_counter(struct fl_layout *l, const struct kinfo *ki)
{
	if (ki->off.zone_free_pages.set) {
		l->has_counter = true;
		l->off_counter = ki->off.zone_free_pages.v;
	} else if (ki->off.zone_vm_stat.set && ki->num.NR_FREE_PAGES.set &&
		   ki->num.NR_FREE_PAGES.v >= 0 && ki->num.NR_FREE_PAGES.v < 256) {
		l->has_counter = true;
		l->off_counter = ki->off.zone_vm_stat.v +
				 l->word * (uint64_t)ki->num.NR_FREE_PAGES.v;
	}
}

/* What reading the counters takes: the nodes, their zones, the counter
 * inside SIZE(zone). */
static enum mdf_status layout_counters_init(struct fl_layout *l, const struct kinfo *ki,
					    struct mdf_err *err)
{
	enum mdf_status st;

	memset(l, 0, sizeof(*l));
	l->word = kinfo_word_size(ki);
	st = need(&ki->size.zone, "SIZE(zone)", &l->zone_size, err);
	if (st == MDF_OK)
		st = need(&ki->off.pglist_data_node_zones, "OFFSET(pglist_data.node_zones)",
			  &l->off_zones, err);
	if (st == MDF_OK)
		st = need(&ki->off.pglist_data_nr_zones, "OFFSET(pglist_data.nr_zones)",
			  &l->off_nr_zones, err);
	if (st != MDF_OK)
		return st;
	layout_counter(l, ki);
	if (!l->has_counter)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "VMCOREINFO has neither OFFSET(zone.free_pages) nor "
				   "OFFSET(zone.vm_stat) with NUMBER(NR_FREE_PAGES)");
	if (l->zone_size < l->word || l->off_counter > l->zone_size - l->word)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "VMCOREINFO: the free page counter at 0x%llx lies outside "
				   "SIZE(zone)=%llu", ull(l->off_counter), ull(l->zone_size));
	l->has_spanned = ki->off.zone_spanned_pages.set &&
			 ki->off.zone_spanned_pages.v <= l->zone_size - l->word;
	l->off_spanned = ki->off.zone_spanned_pages.v;
	return MDF_OK;
}

static enum mdf_status layout_init(struct fl_layout *l, const struct kinfo *ki,
				   struct mdf_err *err)
{
	uint64_t orders = 0, types = 1;
	enum mdf_status st;

	memset(l, 0, sizeof(*l));
	l->word = kinfo_word_size(ki);
#define NEED(field, name, out)                                        \
	do {                                                          \
		st = need(&ki->field, name, out, err);                \
		if (st != MDF_OK)                                     \
			return st;                                    \
	} while (0)
	NEED(size.page, "SIZE(page)", &l->page_size);
	NEED(size.zone, "SIZE(zone)", &l->zone_size);
	NEED(size.free_area, "SIZE(free_area)", &l->free_area_size);
	NEED(off.page_lru, "OFFSET(page.lru)", &l->off_lru);
	NEED(off.pglist_data_node_zones, "OFFSET(pglist_data.node_zones)", &l->off_zones);
	NEED(off.pglist_data_nr_zones, "OFFSET(pglist_data.nr_zones)", &l->off_nr_zones);
	NEED(off.zone_free_area, "OFFSET(zone.free_area)", &l->off_free_area);
	NEED(off.free_area_free_list, "OFFSET(free_area.free_list)", &l->off_free_list);
	NEED(off.list_head_next, "OFFSET(list_head.next)", &l->off_next);
	NEED(len.zone_free_area, "LENGTH(zone.free_area)", &orders);
#undef NEED
	/* SIZE(list_head) is two pointers on every kernel. */
	l->list_head_size = ki->size.list_head.set ? ki->size.list_head.v : 2 * l->word;
	l->has_prev = ki->off.list_head_prev.set;
	l->off_prev = ki->off.list_head_prev.v;
	/* Migrate types, one free list each, came with 2.6.24. */
	if (ki->len.free_area_free_list.set)
		types = ki->len.free_area_free_list.v;
	l->has_spanned = ki->off.zone_spanned_pages.set;
	l->off_spanned = ki->off.zone_spanned_pages.v;
	layout_counter(l, ki);

	if (orders == 0 || orders > FL_MAX_ORDERS)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "VMCOREINFO: LENGTH(zone.free_area)=%llu out of range 1..%u",
				   ull(orders), FL_MAX_ORDERS);
	if (types == 0 || types > FL_MAX_TYPES)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "VMCOREINFO: LENGTH(free_area.free_list)=%llu out of range 1..%u",
				   ull(types), FL_MAX_TYPES);
	if (l->page_size == 0 || l->page_size > 4096 || l->off_lru + l->word > l->page_size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "VMCOREINFO: SIZE(page)=%llu with OFFSET(page.lru)=%llu",
				   ull(l->page_size), ull(l->off_lru));
	if (l->list_head_size < l->word || l->off_next + l->word > l->list_head_size ||
	    (l->has_prev && l->off_prev + l->word > l->list_head_size))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "VMCOREINFO: SIZE(list_head)=%llu with OFFSET(list_head.next)=%llu",
				   ull(l->list_head_size), ull(l->off_next));
	/* The lists of one order must fit in a free_area, the free_areas in a
	 * zone: a check that the numbers belong together. */
	if (l->off_free_list + types * l->list_head_size > l->free_area_size ||
	    l->off_free_area + orders * l->free_area_size > l->zone_size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "VMCOREINFO: %llu free lists of SIZE(list_head)=%llu at "
				   "OFFSET(free_area.free_list)=%llu do not fit SIZE(free_area)=%llu, "
				   "or %llu free areas at OFFSET(zone.free_area)=%llu do not fit SIZE(zone)=%llu",
				   ull(types), ull(l->list_head_size), ull(l->off_free_list),
				   ull(l->free_area_size), ull(orders), ull(l->off_free_area),
				   ull(l->zone_size));
	l->nr_orders = (unsigned)orders;
	l->nr_types = (unsigned)types;
	return MDF_OK;
}

/* ---- struct page address -> pfn -------------------------------------- */

static enum mdf_status vr_add(struct fl_walk *w, uint64_t vstart, uint64_t pfn,
			      uint64_t npfns)
{
	uint64_t psz = w->lay.page_size, vend;

	if (npfns > (UINT64_MAX - vstart) / psz)
		return mdf_err_set(w->err, MDF_ERR_FORMAT,
				   "struct pages of pfn 0x%llx at 0x%llx wrap around the address space",
				   ull(pfn), ull(vstart));
	vend = vstart + npfns * psz;
	if (w->nvr) {
		struct fl_vrange *last = &w->vr[w->nvr - 1];

		if (last->vend == vstart && last->pfn + (last->vend - last->vstart) / psz == pfn) {
			last->vend = vend;
			return MDF_OK;
		}
	}
	if (w->nvr == w->capvr) {
		size_t cap = w->capvr ? w->capvr * 2 : 16;
		struct fl_vrange *n = realloc(w->vr, cap * sizeof(*n));

		if (!n)
			return mdf_err_set(w->err, MDF_ERR_NOMEM,
					   "out of memory for %zu struct page ranges", cap);
		w->vr = n;
		w->capvr = cap;
	}
	w->vr[w->nvr].vstart = vstart;
	w->vr[w->nvr].vend = vend;
	w->vr[w->nvr].pfn = pfn;
	w->nvr++;
	return MDF_OK;
}

static int vr_cmp(const void *a, const void *b)
{
	const struct fl_vrange *x = a, *y = b;

	return x->vstart < y->vstart ? -1 : x->vstart > y->vstart;
}

static enum mdf_status vr_build(struct fl_walk *w, struct memmap *mm,
				uint64_t vmemmap_base)
{
	enum mdf_status st;

	if (w->max_pfn == 0)
		return MDF_OK;
	if (vmemmap_base)
		return vr_add(w, vmemmap_base, 0, w->max_pfn);
	switch (mm->model) {
	case MEMMAP_VMEMMAP:
		return vr_add(w, mm->base, 0, w->max_pfn);
	case MEMMAP_FLAT: { /* one array, from ARCH_PFN_OFFSET (arm: PHYS_OFFSET's pfn) */
		uint64_t v;
		bool present;

		if (mm->pfn_offset >= w->max_pfn)
			return MDF_OK;
		st = memmap_page_vaddr(mm, w->rm, mm->pfn_offset, &v, &present, w->err);
		if (st != MDF_OK)
			return mdf_err_push(w->err, "memory map of pfn 0x%llx", ull(mm->pfn_offset));
		return present ? vr_add(w, v, mm->pfn_offset, w->max_pfn - mm->pfn_offset)
			       : MDF_OK;
	}
	case MEMMAP_SPARSE:
	case MEMMAP_SPARSE_EXTREME:
		break;
	case MEMMAP_NONE:
		return mdf_err_set(w->err, MDF_ERR_NOTSUPP,
				   "cannot tell the pfn of a struct page with memory model %s",
				   memmap_model_name(mm->model));
	}
	/* Each present section: its mem_map, read once.  Sections are visited
	 * in pfn order, so a linear (vmemmap) layout collapses into one range
	 * per run of present sections. */
	for (uint64_t pfn = 0; pfn < w->max_pfn;) {
		uint64_t spfns = memmap_section_pfns(mm), next = pfn + spfns, v;
		bool present;

		st = memmap_page_vaddr(mm, w->rm, pfn, &v, &present, w->err);
		if (st != MDF_OK)
			return mdf_err_push(w->err, "memory map of pfn 0x%llx", ull(pfn));
		if (next > w->max_pfn || next < pfn)
			next = w->max_pfn;
		if (present) {
			st = vr_add(w, v, pfn, next - pfn);
			if (st != MDF_OK)
				return st;
		}
		pfn = next;
	}
	if (w->nvr > 1)
		qsort(w->vr, w->nvr, sizeof(*w->vr), vr_cmp);
	for (size_t i = 1; i < w->nvr; i++)
		if (w->vr[i].vstart < w->vr[i - 1].vend)
			return mdf_err_set(w->err, MDF_ERR_FORMAT,
					   "mem_map of pfn 0x%llx at 0x%llx overlaps that of pfn 0x%llx",
					   ull(w->vr[i].pfn), ull(w->vr[i].vstart),
					   ull(w->vr[i - 1].pfn));
	return MDF_OK;
}

/* The pfn of the struct page at @page, or false if it is none of ours. */
static bool vr_lookup(const struct fl_walk *w, uint64_t page, uint64_t *pfn_ret)
{
	size_t lo = 0, hi = w->nvr;
	const struct fl_vrange *r;
	uint64_t off;

	while (lo < hi) {        /* first range with vstart > page */
		size_t mid = lo + (hi - lo) / 2;

		if (w->vr[mid].vstart <= page)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	r = &w->vr[lo - 1];
	if (page >= r->vend)
		return false;
	off = page - r->vstart;
	if (off % w->lay.page_size)
		return false;
	*pfn_ret = r->pfn + off / w->lay.page_size;
	return true;
}

/* ---- the result ------------------------------------------------------- */

void freelist_result_release(struct freelist_result *r)
{
	pfn_set_release(&r->free);
	memset(r, 0, sizeof(*r));
}

/* ---- the walk --------------------------------------------------------- */

/* One list_head: next and prev (prev = 0 when the layout has none). */
static enum mdf_status read_list_head(struct fl_walk *w, uint64_t addr,
				      uint64_t *next, uint64_t *prev)
{
	unsigned char buf[64];
	size_t len = (size_t)MDF_MIN(w->lay.list_head_size, sizeof(buf));
	enum mdf_status st;

	if (w->lay.off_next + w->lay.word > len ||
	    (w->lay.has_prev && w->lay.off_prev + w->lay.word > len))
		return mdf_err_set(w->err, MDF_ERR_FORMAT,
				   "SIZE(list_head)=%llu too big", ull(w->lay.list_head_size));
	st = readmem_vaddr(w->rm, addr, buf, len, w->err);
	if (st != MDF_OK)
		return st;
	*next = load_tword(buf + w->lay.off_next, w->lay.word, w->rm->big_endian);
	*prev = w->lay.has_prev ? load_tword(buf + w->lay.off_prev, w->lay.word,
					     w->rm->big_endian) : 0;
	return MDF_OK;
}

/* After a prev mismatch at step @step on @elem: was @elem met before in
 * the chain of next pointers from @head?  (Then the list loops.)  Only on
 * the error path; a read error here just means "no". */
static bool seen_before(struct fl_walk *w, uint64_t head, uint64_t elem,
			uint64_t step, uint64_t *at_ret)
{
	uint64_t cur = head;

	for (uint64_t i = 1; i < step; i++) {
		uint64_t next, prev;

		if (read_list_head(w, cur, &next, &prev) != MDF_OK)
			break;
		(void)prev;
		cur = next;
		if (cur == elem) {
			*at_ret = i;
			return true;
		}
	}
	return false;
}

/*
 * Walk the list at @head of blocks of 2^@order pages.  *@budget is how
 * many more free pages the zone can hold; a list that needs more loops or
 * lies.
 */
static enum mdf_status walk_list(struct fl_walk *w, uint64_t head,
				 unsigned order, uint64_t *budget)
{
	const struct fl_layout *l = &w->lay;
	uint64_t npages = 1ULL << order;
	uint64_t next, prev, cur, before = head, step = 0;
	uint64_t brent_mark = head, brent_len = 0, brent_power = 1;
	enum mdf_status st;

	st = read_list_head(w, head, &next, &prev);
	if (st != MDF_OK)
		return mdf_err_push(w->err, "list head");
	/* A list never initialised (its zone was empty at boot) reads as
	 * zeros: nothing on it. */
	if (next == 0 && (!l->has_prev || prev == 0))
		return MDF_OK;
	cur = next;
	while (cur != head) {
		uint64_t page, pfn, end, at;

		step++;
		/* Brent's cycle finding: a loop that does not pass through the
		 * head is caught within about twice its length.  (With prev
		 * pointers the check below fires first.) */
		if (cur == brent_mark)
			return mdf_err_set(w->err, MDF_ERR_FORMAT,
					   "the free list loops: element 0x%llx (block %llu) was already visited",
					   ull(cur), ull(step));
		if (++brent_len == brent_power) {
			brent_mark = cur;
			brent_power *= 2;
			brent_len = 0;
		}
		if (*budget < npages)
			return mdf_err_set(w->err, MDF_ERR_FORMAT,
					   "the free list loops: at block %llu (0x%llx) the zone's "
					   "free lists hold more than the %llu pages it spans",
					   ull(step), ull(cur), ull(w->zone_pages));
		page = cur - l->off_lru;
		if (cur < l->off_lru || !vr_lookup(w, page, &pfn))
			return mdf_err_set(w->err, MDF_ERR_FORMAT,
					   "element 0x%llx (block %llu, after 0x%llx) is not the page.lru "
					   "of a struct page of a pfn below 0x%llx",
					   ull(cur), ull(step), ull(before), ull(w->max_pfn));
		if (pfn & (npages - 1))
			return mdf_err_set(w->err, MDF_ERR_FORMAT,
					   "element 0x%llx (block %llu): pfn 0x%llx is not aligned to order %u",
					   ull(cur), ull(step), ull(pfn), order);
		st = read_list_head(w, cur, &next, &prev);
		if (st != MDF_OK)
			return mdf_err_push(w->err, "element 0x%llx (block %llu, pfn 0x%llx)",
					    ull(cur), ull(step), ull(pfn));
		if (l->has_prev && prev != before) {
			if (seen_before(w, head, cur, step, &at))
				return mdf_err_set(w->err, MDF_ERR_FORMAT,
						   "the free list loops: element 0x%llx (block %llu) "
						   "is block %llu again",
						   ull(cur), ull(step), ull(at));
			return mdf_err_set(w->err, MDF_ERR_FORMAT,
					   "the free list is broken: element 0x%llx (block %llu, pfn 0x%llx) "
					   "has prev 0x%llx, expected 0x%llx",
					   ull(cur), ull(step), ull(pfn), ull(prev), ull(before));
		}
		end = pfn + npages;
		if (end > w->max_pfn)
			end = w->max_pfn;
		st = pfn_set_add(&w->res->free, pfn, end, "free ranges", w->err);
		if (st != MDF_OK)
			return st;
		w->res->blocks++;
		*budget -= npages;
		before = cur;
		cur = next;
	}
	/* Back at the head: its prev must be the last element. */
	st = read_list_head(w, head, &next, &prev);
	if (st != MDF_OK)
		return mdf_err_push(w->err, "list head");
	if (l->has_prev && prev != before)
		return mdf_err_set(w->err, MDF_ERR_FORMAT,
				   "the free list is broken: the head's prev is 0x%llx, "
				   "but the last of its %llu elements is 0x%llx",
				   ull(prev), ull(step), ull(before));
	return MDF_OK;
}

static enum mdf_status walk_zone(struct fl_walk *w, uint64_t zone, unsigned nid,
				 unsigned zid)
{
	const struct fl_layout *l = &w->lay;
	uint64_t budget = w->max_pfn;
	enum mdf_status st;

	if (l->has_spanned) {
		uint64_t spanned;

		st = readmem_ulong(w->rm, zone + l->off_spanned, &spanned, w->err);
		if (st != MDF_OK)
			return mdf_err_push(w->err, "node %u zone %u (0x%llx): spanned_pages",
					    nid, zid, ull(zone));
		if (spanned == 0)
			return MDF_OK;
		budget = spanned;
	}
	w->zone_pages = budget;
	if (l->has_counter) {
		uint64_t c;

		st = readmem_ulong(w->rm, zone + l->off_counter, &c, w->err);
		if (st != MDF_OK)
			return mdf_err_push(w->err, "node %u zone %u (0x%llx): free page counter",
					    nid, zid, ull(zone));
		if (l->word == 4) /* a long of i386 */
			c = (uint64_t)(int64_t)(int32_t)(uint32_t)c;
		/* vm_stat is an atomic_long_t: a transiently negative value
		 * counts as 0. */
		if ((int64_t)c > 0)
			w->res->counter_pages += c;
		w->res->have_counter = true;
	}
	w->res->zones++;
	if (w->counters_only)
		return MDF_OK;
	for (unsigned order = 0; order < l->nr_orders; order++) {
		uint64_t area = zone + l->off_free_area + order * l->free_area_size;

		for (unsigned mt = 0; mt < l->nr_types; mt++) {
			uint64_t head = area + l->off_free_list + mt * l->list_head_size;

			st = walk_list(w, head, order, &budget);
			if (st != MDF_OK)
				return mdf_err_push(w->err,
						    "node %u zone %u order %u migrate type %u (list head 0x%llx)",
						    nid, zid, order, mt, ull(head));
		}
	}
	return MDF_OK;
}

static enum mdf_status walk_node(struct fl_walk *w, uint64_t pgdat, unsigned nid)
{
	const struct fl_layout *l = &w->lay;
	unsigned char b[4];
	int32_t nr_zones;
	enum mdf_status st;

	st = readmem_vaddr(w->rm, pgdat + l->off_nr_zones, b, 4, w->err);
	if (st != MDF_OK)
		return mdf_err_push(w->err, "node %u (pglist_data 0x%llx): nr_zones",
				    nid, ull(pgdat));
	nr_zones = (int32_t)load_t32(b, w->rm->big_endian);
	if (nr_zones < 0 || nr_zones > FL_MAX_ZONES)
		return mdf_err_set(w->err, MDF_ERR_FORMAT,
				   "node %u (pglist_data 0x%llx): nr_zones %d out of range 0..%d",
				   nid, ull(pgdat), (int)nr_zones, FL_MAX_ZONES);
	w->res->nodes++;
	for (unsigned z = 0; z < (unsigned)nr_zones; z++) {
		st = walk_zone(w, pgdat + l->off_zones + z * l->zone_size, nid, z);
		if (st != MDF_OK)
			return st;
	}
	return MDF_OK;
}

static enum mdf_status walk_nodes(struct fl_walk *w, const struct kinfo *ki)
{
	uint64_t n, *ptrs;
	enum mdf_status st;

	if (!ki->sym.node_data.set) {
		if (ki->sym.contig_page_data.set)
			return walk_node(w, ki->sym.contig_page_data.v, 0);
		return mdf_err_set(w->err, MDF_ERR_NOTSUPP,
				   "VMCOREINFO has neither SYMBOL(node_data) nor SYMBOL(contig_page_data)");
	}
	if (!ki->len.node_data.set)
		return mdf_err_set(w->err, MDF_ERR_NOTSUPP,
				   "VMCOREINFO has SYMBOL(node_data) but no LENGTH(node_data)");
	n = ki->len.node_data.v;
	/* makedumpfile writes LONG_MAX - 1, its "an array whose length DWARF
	 * does not give", when the vmlinux declares node_data[] without a
	 * bound (1.7.2's note of a sadump dump, from 6.1's extern in
	 * asm/mmzone_64.h): MAX_NUMNODES is then the bits of a nodemask_t. */
	if (n == FL_LENGTH_UNKNOWN && ki->size.nodemask_t.set)
		n = ki->size.nodemask_t.v * 8;
	if (n == 0 || n > FL_MAX_NODES)
		return mdf_err_set(w->err, MDF_ERR_FORMAT,
				   "VMCOREINFO: LENGTH(node_data)=%llu out of range 1..%u",
				   ull(n), FL_MAX_NODES);
	/* pointers of the kernel's width (4 bytes on i386), read into the
	 * front of the array and widened from the back */
	ptrs = malloc((size_t)n * 8);
	if (!ptrs)
		return mdf_err_set(w->err, MDF_ERR_NOMEM, "out of memory for node_data");
	st = readmem_vaddr(w->rm, ki->sym.node_data.v, ptrs, (size_t)n * w->lay.word, w->err);
	if (st != MDF_OK) {
		free(ptrs);
		return mdf_err_push(w->err, "node_data[%llu] at 0x%llx", ull(n),
				    ull(ki->sym.node_data.v));
	}
	for (uint64_t i = n; i-- > 0;)
		ptrs[i] = load_tword((const unsigned char *)ptrs + i * w->lay.word, w->lay.word,
				     w->rm->big_endian);
	for (uint64_t i = 0; i < n && st == MDF_OK; i++) {
		bool dup = false;

		if (!ptrs[i])
			continue;  /* no such node */
		/* The same pglist_data twice would be walked twice for nothing. */
		for (uint64_t j = 0; j < i && !dup; j++)
			dup = ptrs[j] == ptrs[i];
		if (!dup)
			st = walk_node(w, ptrs[i], (unsigned)i);
	}
	free(ptrs);
	return st;
}

/* A walk over @rm's nodes and zones into @ret (emptied). */
static void walk_init(struct fl_walk *w, struct readmem *rm, uint64_t max_pfn,
		      struct freelist_result *ret, struct mdf_err *err)
{
	memset(ret, 0, sizeof(*ret));
	memset(w, 0, sizeof(*w));
	w->rm = rm;
	w->max_pfn = max_pfn;
	w->res = ret;
	w->err = err;
}

enum mdf_status freelist_collect(const struct kinfo *ki, struct readmem *rm,
				 struct memmap *mm, uint64_t vmemmap_base,
				 uint64_t max_pfn, struct freelist_result *ret,
				 struct mdf_err *err)
{
	struct fl_walk w;
	enum mdf_status st;

	walk_init(&w, rm, max_pfn, ret, err);
	st = layout_init(&w.lay, ki, err);
	if (st == MDF_OK)
		st = vr_build(&w, mm, vmemmap_base);
	if (st == MDF_OK)
		st = walk_nodes(&w, ki);
	free(w.vr);
	if (st != MDF_OK) {
		freelist_result_release(ret);
		return mdf_err_push(err, "free lists");
	}
	pfn_set_compact(&ret->free);
	return MDF_OK;
}

enum mdf_status freelist_count_free(const struct kinfo *ki, struct readmem *rm,
				    uint64_t max_pfn, struct freelist_result *ret,
				    struct mdf_err *err)
{
	struct fl_walk w;
	enum mdf_status st;

	walk_init(&w, rm, max_pfn, ret, err);
	w.counters_only = true;
	st = layout_counters_init(&w.lay, ki, err);
	if (st == MDF_OK)
		st = walk_nodes(&w, ki);
	if (st == MDF_OK && !ret->have_counter)
		st = mdf_err_set(err, MDF_ERR_NODATA, "no zone spans a page in %u nodes",
				 ret->nodes);
	if (st != MDF_OK) {
		memset(ret, 0, sizeof(*ret));
		return mdf_err_push(err, "free page counters");
	}
	return MDF_OK;
}

uint64_t freelist_apply(const struct freelist_result *r, struct bitmap *dumpable)
{
	const struct pfn_set *f = &r->free;
	uint64_t cleared = 0;

	for (size_t i = pfn_set_first_after(f, dumpable->start_pfn);
	     i < f->n && f->r[i].start < dumpable->end_pfn; i++)
		cleared += bitmap_clear_range(dumpable, f->r[i].start, f->r[i].end);
	return cleared;
}

bool freelist_contains(const struct freelist_result *r, uint64_t pfn)
{
	return pfn_set_overlaps(&r->free, pfn, 1);
}
