/*
 * pagetypes.c - page-types' table of a dump (pagetypes.h).
 *
 * Each pfn's flags are the kernel's stable_page_flags() (fs/proc/page.c)
 * worked out from the struct page bytes: the copied flag bits by their
 * enum pageflags numbers, the pseudo flags (mmap, anonymous, KSM, THP,
 * hugetlb, buddy, slab, offline, page table) from mapping, _mapcount, the
 * page type and the folio's head.  Two eras: before Linux 6.10 a page
 * shows its own flag bits; from 6.10 ("proc: rewrite stable_page_flags()")
 * every page of a folio shows the folio's.
 */
#include "filter/pagetypes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void pagetypes_kernel_init(struct pagetypes_kernel *pk, const struct filter_rules *r)
{
	memset(pk, 0, sizeof(*pk));
	pk->pg_locked = pk->pg_error = pk->pg_referenced = pk->pg_uptodate = pk->pg_dirty = -1;
	pk->pg_active = pk->pg_writeback = pk->pg_reclaim = pk->pg_unevictable = -1;
	pk->pg_idle = pk->pg_large_rmappable = -1;
	pk->table = PT_TABLE_NONE;
	/* Page tables have had a page type since 4.18 (kernel commit
	 * 1eba86c096e3, "mm: Add page type for page tables"), known by the
	 * buddy value that goes with it (~0x80) under PAGE_TYPE_BASE
	 * 0xf0000000: PG_table 0x400 after PG_kmemcg 0x200 until 5.11 took
	 * kmemcg out of the page types (kernel "mm: convert page kmemcg
	 * type to a page memcg flag", Roman Gushchin), 0x200 from 5.11
	 * to 6.9.  Later layouts come from the enum in BTF (pagetypes'
	 * caller).  Lab case: reclaim-5.10. */
	if (r->has_buddy_mc && r->buddy_mc == 0xffffff7fu && r->kver >= util_kver(4, 18, 0)) {
		pk->table = PT_TABLE_MASK;
		pk->table_base = 0xf0000000u;
		pk->table_value = r->kver < util_kver(5, 11, 0) ? 0x400 : 0x200;
	}
	/* Before 6.2 a compound page counts its mappings in page[1]'s
	 * compound_mapcount, the atomic_t after the byte compound_order
	 * (a byte since 4.16, kernel "mm: Store compound_dtor /
	 * compound_order as bytes"); BTF, where the dump
	 * has it, says the same (pagetypes' caller).  6.2 split it
	 * (_entire_mapcount, _nr_pages_mapped: BTF only).  Lab case: the
	 * THPs of every 5.10 run. */
	if (r->order_src == ORDER_PAGE1_FIELD && r->kver >= util_kver(4, 16, 0) &&
	    r->kver < util_kver(6, 2, 0))
		pk->off_entire_mapcount = r->page_struct_size + align_up(r->off_order + 1, 4);
	pk->folio_flags = r->kver >= util_kver(6, 10, 0);
	/* SECTION_IS_ONLINE, since 4.13 (memmap_section_online()).  Lab
	 * case: hotplug-5.10, one hot-added section of 32768 pfns offline. */
	pk->section_online = r->kver >= util_kver(4, 13, 0);
}

/* A word of struct page: 4 bytes on i386 (filter.c's rdword()). */
static uint64_t rdword(const struct filter_rules *r, const unsigned char *p)
{
	return load_tword(p, r->word_size, r->big_endian);
}

static int32_t rd32s(const struct filter_rules *r, const unsigned char *p)
{
	return (int32_t)load_t32(p, r->big_endian);
}

static uint64_t copy_bit(uint64_t k, int kbit, enum kpf_bit ubit)
{
	return kbit >= 0 && kbit < 64 && ((k >> kbit) & 1) ? KPF_BIT(ubit) : 0;
}

/* A 32-bit field at @off of the folio whose head is @head (and @head1
 * the struct page after it, or NULL); false when it is not at hand. */
static bool folio_s32(const struct filter_rules *r, const unsigned char *head,
		      const unsigned char *head1, uint64_t off, int32_t *v)
{
	uint64_t psz = r->page_struct_size;

	if (!off)
		return false;
	if (off + 4 <= psz) {
		*v = rd32s(r, head + off);
		return true;
	}
	if (head1 && off >= psz && off + 4 <= 2 * psz) {
		*v = rd32s(r, head1 + (off - psz));
		return true;
	}
	return false;
}

/* page_mapped(): a small page by its _mapcount, a large folio by the
 * mapcount it keeps for the whole folio (6.11 on: _large_mapcount; 6.2
 * to 6.10: _entire_mapcount or any page mapped; before, page[1]'s
 * compound_mapcount), or by the page's own _mapcount when none is at
 * hand. */
static bool mapped(const struct filter_rules *r, const struct pagetypes_kernel *pk,
		   const unsigned char *page, const unsigned char *head,
		   const unsigned char *head1, bool large)
{
	int32_t own = r->has_mapcount ? rd32s(r, page + r->off_mapcount) : -1;
	int32_t v;

	if (!large)
		return own >= 0;
	if (folio_s32(r, head, head1, pk->off_large_mapcount, &v))
		return v >= 0;
	if (folio_s32(r, head, head1, pk->off_entire_mapcount, &v) && v >= 0)
		return true;
	if (folio_s32(r, head, head1, pk->off_nr_pages_mapped, &v) && v > 0)
		return true;
	return own >= 0;
}

static bool page_table(const struct filter_rules *r, const struct pagetypes_kernel *pk,
		       const unsigned char *page)
{
	uint32_t mc;

	if (!r->has_mapcount || pk->table == PT_TABLE_NONE)
		return false;
	mc = load_t32(page + r->off_mapcount, r->big_endian);
	if (pk->table == PT_TABLE_TOP_BYTE)
		return (mc >> 24) == pk->table_value;
	return (mc & (pk->table_base | pk->table_value)) == pk->table_base;
}

uint64_t pagetypes_page_flags(const struct filter_rules *r, const struct pagetypes_kernel *pk,
			      const unsigned char *page, const unsigned char *head,
			      const unsigned char *head1, bool tail, bool large, bool huge)
{
	uint64_t own = rdword(r, page + r->off_flags);
	uint64_t hk = rdword(r, head + r->off_flags);
	uint64_t k = pk->folio_flags ? hk : own;
	uint64_t mapping = r->has_mapping ? rdword(r, head + r->off_mapping) : 0;
	bool slab = filter_page_is_slab(r, head);
	bool anon = (mapping & 1) && !slab;
	uint64_t u = 0;

	if (!slab && mapped(r, pk, page, head, head1, large))
		u |= KPF_BIT(KPF_B_MMAP);
	if (anon) {
		u |= KPF_BIT(KPF_B_ANON);
		if ((mapping & 3) == 3)
			u |= KPF_BIT(KPF_B_KSM);
	}
	if (large)
		u |= KPF_BIT(tail ? KPF_B_COMPOUND_TAIL : KPF_B_COMPOUND_HEAD);
	if (huge) {
		u |= KPF_BIT(KPF_B_HUGE);
	} else if (large) {
		/* a THP, not a compound page of a driver or the slab:
		 * large_rmappable where the kernel has it (6.7 on, in the
		 * folio's second page), else on an LRU or anonymous */
		bool thp = (hk & r->m_lru) || anon;

		if (pk->pg_large_rmappable >= 0 && head1)
			thp = (rdword(r, head1 + r->off_flags) >> pk->pg_large_rmappable) & 1;
		if (thp)
			u |= KPF_BIT(KPF_B_THP);
	}
	if (r->has_offline_mc && r->has_mapcount &&
	    load_t32(page + r->off_mapcount, r->big_endian) == r->offline_mc)
		u |= KPF_BIT(KPF_B_OFFLINE);
	if (page_table(r, pk, page))
		u |= KPF_BIT(KPF_B_PGTABLE);
	if (slab)
		u |= KPF_BIT(KPF_B_SLAB);
	u |= copy_bit(k, pk->pg_idle, KPF_B_IDLE);
	u |= copy_bit(k, pk->pg_locked, KPF_B_LOCKED);
	u |= copy_bit(k, pk->pg_error, KPF_B_ERROR);
	u |= copy_bit(k, pk->pg_dirty, KPF_B_DIRTY);
	u |= copy_bit(k, pk->pg_uptodate, KPF_B_UPTODATE);
	u |= copy_bit(k, pk->pg_writeback, KPF_B_WRITEBACK);
	if (k & r->m_lru)
		u |= KPF_BIT(KPF_B_LRU);
	u |= copy_bit(k, pk->pg_referenced, KPF_B_REFERENCED);
	u |= copy_bit(k, pk->pg_active, KPF_B_ACTIVE);
	u |= copy_bit(k, pk->pg_reclaim, KPF_B_RECLAIM);
	/* the swap cache is the folio's in both eras (PageSwapCache looks at
	 * the head): PG_swapcache means it only with PG_swapbacked */
	if (r->m_swapcache && (hk & r->m_swapcache) &&
	    (!r->has_swapbacked || (hk & r->m_swapbacked)))
		u |= KPF_BIT(KPF_B_SWAPCACHE);
	if (k & r->m_swapbacked)
		u |= KPF_BIT(KPF_B_SWAPBACKED);
	u |= copy_bit(k, pk->pg_unevictable, KPF_B_UNEVICTABLE);
	if ((huge ? hk : own) & r->m_hwpoison)
		u |= KPF_BIT(KPF_B_HWPOISON);
	return u;
}

enum mdf_status pagetypes_pfn(const struct filter_rules *r, const struct pagetypes_kernel *pk,
			      struct memmap *mm, struct readmem *rm, uint64_t pfn,
			      uint64_t *flags, struct mdf_err *err)
{
	size_t psz = (size_t)r->page_struct_size;
	unsigned char pg[2 * FILTER_PAGE_STRUCT_MAX], head[2 * FILTER_PAGE_STRUCT_MAX];
	uint64_t va, hva;
	bool have_map, huge = false, two;
	unsigned order;
	enum mdf_status st;

	st = memmap_page_vaddr(mm, rm, pfn, &va, &have_map, err);
	if (st != MDF_OK)
		return st;
	if (!have_map) {
		*flags = KPF_BIT(KPF_B_NOPAGE);
		return MDF_OK;
	}
	two = readmem_vaddr(rm, va, pg, 2 * psz, err) == MDF_OK;
	if (!two && readmem_vaddr(rm, va, pg, psz, err) != MDF_OK)
		return err->status;
	mdf_err_clear(err);
	if (r->has_head && (rdword(r, pg + r->off_head) & 1)) {
		hva = filter_head_vaddr(r, va, rdword(r, pg + r->off_head));
		if (readmem_vaddr(rm, hva, head, 2 * psz, err) != MDF_OK) {
			mdf_err_clear(err);
			*flags = pagetypes_page_flags(r, pk, pg, pg, NULL, true, true, false);
			return MDF_OK;
		}
		/* the head's pfn is not known here: no alignment to check */
		filter_compound(r, head, head + psz, 1, 0, &order, &huge);
		*flags = pagetypes_page_flags(r, pk, pg, head, head + psz, true, true, huge);
		return MDF_OK;
	}
	if (r->m_head && (rdword(r, pg + r->off_flags) & r->m_head)) {
		filter_compound(r, pg, pg + psz, two ? 1 : 0, pfn, &order, &huge);
		*flags = pagetypes_page_flags(r, pk, pg, pg, two ? pg + psz : NULL, false, true, huge);
		return MDF_OK;
	}
	*flags = pagetypes_page_flags(r, pk, pg, pg, NULL, false, false, false);
	if (pk->has_zero_pfn && pfn == pk->zero_pfn)
		*flags |= KPF_BIT(KPF_B_ZERO_PAGE);
	return MDF_OK;
}

/* ---- the walk ------------------------------------------------------ */

struct walk {
	struct kpf_table *pt;
	uint64_t run_flags, run_pages;  /* pages of one flags in a row */
	/* the folio the tails that follow belong to */
	unsigned char head[2 * FILTER_PAGE_STRUCT_MAX];
	bool have_head, have_head1, head_huge;
	uint64_t head_end;               /* 0: its order is not known */
	uint64_t buddy_end;              /* pfns before it are in a free block */
};

static enum mdf_status flush(struct walk *w, struct mdf_err *err)
{
	enum mdf_status st = MDF_OK;

	if (w->run_pages)
		st = kpf_table_add(w->pt, w->run_flags, w->run_pages, err);
	w->run_pages = 0;
	return st;
}

static enum mdf_status count(struct walk *w, uint64_t flags, uint64_t pages,
			     struct mdf_err *err)
{
	if (w->run_pages && w->run_flags != flags && flush(w, err) != MDF_OK)
		return err->status;
	w->run_flags = flags;
	w->run_pages += pages;
	return MDF_OK;
}

static enum mdf_status nopage(struct walk *w, uint64_t pages, bool unreadable,
			      struct mdf_err *err)
{
	w->have_head = false;
	w->buddy_end = 0;
	if (unreadable)
		w->pt->unreadable += pages;
	return count(w, KPF_BIT(KPF_B_NOPAGE), pages, err);
}

static uint64_t one_page(struct walk *w, const struct filter_rules *r,
			 const struct pagetypes_kernel *pk, const unsigned char *p,
			 const unsigned char *next, size_t nnext, uint64_t pfn)
{
	size_t psz = (size_t)r->page_struct_size;
	uint64_t flags = rdword(r, p + r->off_flags);
	bool tail = r->has_head && (rdword(r, p + r->off_head) & 1);
	uint64_t kpf;

	if (!tail && r->m_head && (flags & r->m_head)) {
		unsigned order;
		bool huge;

		filter_compound(r, p, next, nnext, pfn, &order, &huge);
		memcpy(w->head, p, psz);
		w->have_head1 = nnext > 0;
		if (nnext)
			memcpy(w->head + psz, next, psz);
		w->have_head = true;
		w->head_huge = huge;
		w->head_end = order ? pfn + (1ULL << order) : 0;
		kpf = pagetypes_page_flags(r, pk, p, p, nnext ? next : NULL, false, true, huge);
	} else if (tail && w->have_head && (!w->head_end || pfn < w->head_end)) {
		kpf = pagetypes_page_flags(r, pk, p, w->head, w->have_head1 ? w->head + psz : NULL,
					   true, true, w->head_huge);
	} else if (tail) { /* its head is not at hand: judged by itself */
		kpf = pagetypes_page_flags(r, pk, p, p, NULL, true, true, false);
	} else {
		w->have_head = false;
		kpf = pagetypes_page_flags(r, pk, p, p, NULL, false, false, false);
	}
	if (pk->has_zero_pfn && pfn == pk->zero_pfn)
		kpf |= KPF_BIT(KPF_B_ZERO_PAGE);
	/* PageBuddy() marks the head of a free block; the kernel's
	 * is_free_buddy_page() finds the block of every page in it */
	if (!tail && filter_page_is_buddy(r, p)) {
		uint64_t order = r->has_private ? rdword(r, p + r->off_private) : 0;

		kpf |= KPF_BIT(KPF_B_BUDDY);
		if (order <= r->max_order && (pfn & ((1ULL << order) - 1)) == 0)
			w->buddy_end = pfn + (1ULL << order);
	} else if (pfn < w->buddy_end) {
		kpf |= KPF_BIT(KPF_B_BUDDY);
	}
	return kpf;
}

enum mdf_status pagetypes_walk(struct kpf_table *pt, const struct filter_rules *r,
			       const struct pagetypes_kernel *pk, struct memmap *mm,
			       struct readmem *rm, uint64_t end_pfn, unsigned char *buf,
			       struct mdf_err *err)
{
	size_t psz = (size_t)r->page_struct_size;
	struct walk *w = calloc(1, sizeof(*w));
	enum mdf_status st = MDF_OK;
	uint64_t pfn = 0;

	if (!w)
		return mdf_err_set(err, MDF_ERR_NOMEM, "--page-types: out of memory");
	w->pt = pt;
	if (pk->pg_locked < 0)
		pt->unknown |= KPF_BIT(KPF_B_LOCKED);
	if (pk->pg_referenced < 0)
		pt->unknown |= KPF_BIT(KPF_B_REFERENCED);
	if (pk->pg_uptodate < 0)
		pt->unknown |= KPF_BIT(KPF_B_UPTODATE);
	if (pk->pg_dirty < 0)
		pt->unknown |= KPF_BIT(KPF_B_DIRTY);
	if (pk->pg_active < 0)
		pt->unknown |= KPF_BIT(KPF_B_ACTIVE);
	if (pk->pg_writeback < 0)
		pt->unknown |= KPF_BIT(KPF_B_WRITEBACK);
	if (pk->pg_reclaim < 0)
		pt->unknown |= KPF_BIT(KPF_B_RECLAIM);
	if (pk->pg_unevictable < 0)
		pt->unknown |= KPF_BIT(KPF_B_UNEVICTABLE);
	if (pk->table == PT_TABLE_NONE)
		pt->unknown |= KPF_BIT(KPF_B_PGTABLE);
	if (!pk->has_zero_pfn) /* empty_zero_page's address: kallsyms */
		pt->unknown |= KPF_BIT(KPF_B_ZERO_PAGE);
	while (st == MDF_OK && pfn < end_pfn) {
		uint64_t bend = MDF_MIN(align_down(pfn, FILTER_BATCH) + FILTER_BATCH, end_pfn);
		uint64_t vaddr = 0;
		const unsigned char *sp;
		bool have_map = false;
		size_t n = (size_t)(bend - pfn);

		st = memmap_page_vaddr(mm, rm, pfn, &vaddr, &have_map, err);
		if (st == MDF_ERR_NODATA) {
			mdf_err_clear(err);
			st = nopage(w, n, true, err);
			pfn = bend;
			continue;
		}
		if (st != MDF_OK)
			break;
		/* an offline section (memory hot-added and not onlined, or
		 * offlined): kpageflags' pfn_to_online_page() finds no page */
		if (have_map && pk->section_online) {
			st = memmap_section_online(mm, rm, pfn, &have_map, err);
			if (st != MDF_OK)
				break;
		}
		if (!have_map) {
			uint64_t send = MDF_MIN(align_down(pfn, memmap_section_pfns(mm)) +
						memmap_section_pfns(mm), end_pfn);

			st = nopage(w, send - pfn, false, err);
			pfn = send;
			continue;
		}
		st = readmem_vaddr_view(rm, vaddr, n * psz, buf, &sp, err);
		if (st != MDF_OK) {
			if (err->status != MDF_ERR_NODATA) {
				st = mdf_err_push(err, "--page-types: struct pages of pfn 0x%llx",
						  (unsigned long long)pfn);
				break;
			}
			mdf_err_clear(err);
			st = nopage(w, n, true, err);
			pfn = bend;
			continue;
		}
		for (size_t i = 0; i < n && st == MDF_OK; i++)
			st = count(w, kpf_well_known(one_page(w, r, pk, sp + i * psz,
								    sp + (i + 1) * psz, n - i - 1,
								    pfn + i)),
				   1, err);
		pfn = bend;
	}
	if (st == MDF_OK)
		st = flush(w, err);
	free(w);
	if (st == MDF_OK)
		kpf_table_sort(pt);
	return st;
}
