/*
 * tests/unit/test_pagetypes.c - page-types' flags of hand-made struct pages
 * (filter/pagetypes.c), in the two eras of the kernel's
 * stable_page_flags(): before 6.10 a page shows its own flag bits, from
 * 6.10 its folio's.  The layouts are the 6.1 and 6.12 presets of
 * tests/lib/vipresets.h (lines of Debian's VMCOREINFO), with the enum pageflags
 * bits of those kernels that BTF gives (the table itself:
 * test_kpageflags).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "vipresets.h"

#include "filter/filter.h"
#include "filter/pagetypes.h"
#include "kinfo.h"
#include "kernel/vmcoreinfo.h"
#include "util.h"

static const char v61[] = V61_TEXT;
static const char v612[] = V612_TEXT;

#define PSZ 64
static unsigned char pg[4 * PSZ];  /* head, page[1], a tail, a small page */
static struct filter_rules R;
static struct pagetypes_kernel K;

static void put64(unsigned i, unsigned off, uint64_t v) { store_le64(pg + i * PSZ + off, v); }
static void put32(unsigned i, unsigned off, uint32_t v)
{
	for (int b = 0; b < 4; b++)
		pg[i * PSZ + off + b] = (unsigned char)(v >> (8 * b));
}

static void reset(void)
{
	memset(pg, 0, sizeof(pg));
	for (unsigned i = 0; i < 4; i++)
		put32(i, 48, 0xffffffffu); /* unmapped */
	put32(1, 20, 0xffffffffu);         /* 6.1: compound_mapcount */
	put32(1, 44, 0xffffffffu);         /* 6.12: _large_mapcount */
}

/* The rules of the VMCOREINFO @t. */
static bool rules(const char *t)
{
	struct kinfo ki;
	struct filter_warnings w;
	struct mdf_err err;

	mdf_err_clear(&err);
	kinfo_init(&ki);
	if (vmcoreinfo_parse(t, strlen(t), &ki, &err) != MDF_OK ||
	    filter_rules_init(&R, &ki, 31, false, &w, &err) != MDF_OK) {
		printf("# %s\n", err.msg);
		return false;
	}
	return true;
}

/* The rules and what BTF gives of 6.1's or 6.12's enum pageflags. */
static bool setup(bool new_kernel)
{
	const char *t = new_kernel ? v612 : v61;


	if (!rules(t))
		return false;
	pagetypes_kernel_init(&K, &R);
	if (new_kernel) { /* 6.12: PG_locked 0, referenced 1, uptodate 3, ... */
		K.pg_locked = 0, K.pg_referenced = 1, K.pg_uptodate = 3, K.pg_dirty = 4;
		K.pg_active = 7, K.pg_writeback = 2, K.pg_reclaim = 18, K.pg_unevictable = 19;
		K.table = PT_TABLE_TOP_BYTE;
		K.table_value = 0xf2; /* PGTY_table */
		K.off_large_mapcount = PSZ + 44;
	} else {          /* 6.1 */
		K.pg_locked = 0, K.pg_referenced = 1, K.pg_uptodate = 2, K.pg_dirty = 3;
		K.pg_active = 5, K.pg_error = 8, K.pg_writeback = 15, K.pg_reclaim = 18;
		K.pg_unevictable = 20;
		K.off_entire_mapcount = PSZ + 20; /* page[1].compound_mapcount */
	}
	return true;
}

static uint64_t F(unsigned idx, unsigned head, bool tail, bool large, bool huge)
{
	return kpf_well_known(pagetypes_page_flags(&R, &K, pg + idx * PSZ, pg + head * PSZ,
							 pg + (head + 1) * PSZ, tail, large, huge));
}

#define B(x) KPF_BIT(KPF_B_##x)

/* 6.1: an anon THP's tail shows its own (empty) flag bits, and the head's
 * anon, THP, swap cache; mapped by page[1]'s compound_mapcount. */
static void thp_61(void)
{
	T_ASSERT(setup(false));
	reset();
	put64(0, 0, (1ULL << 16) | (1ULL << 4) | (1ULL << 2) | (1ULL << 19)); /* head lru up sb */
	put64(0, 24, 0xffff888012345601ULL);                                 /* anon */
	put64(1, 8, 1);                                                      /* page[1]: tail */
	put32(1, 20, 0);                                                     /* mapped once */
	put64(2, 8, 1);
	T_EQ_U64(F(0, 0, false, true, false),
		 B(UPTODATE) | B(LRU) | B(SWAPBACKED) | B(MMAP) | B(ANON) | B(THP));
	T_EQ_U64(F(2, 0, true, true, false), B(MMAP) | B(ANON) | B(THP));
	/* not mapped: no MMAP, still THP */
	put32(1, 20, 0xffffffffu);
	T_EQ_U64(F(2, 0, true, true, false), B(ANON) | B(THP));
}

/* 6.12: every page of a folio shows the folio's flags; mapped by
 * folio._large_mapcount. */
static void thp_612(void)
{
	T_ASSERT(setup(true));
	reset();
	put64(0, 0, (1ULL << 6) | (1ULL << 5) | (1ULL << 3) | (1ULL << 17)); /* head lru up sb */
	put64(0, 24, 0xffff888012345601ULL);
	put64(1, 8, 1);
	put32(1, 44, 0);
	put64(2, 8, 1);
	T_EQ_U64(F(2, 0, true, true, false),
		 B(UPTODATE) | B(LRU) | B(SWAPBACKED) | B(MMAP) | B(ANON) | B(THP));
	/* a large folio of the page cache (on the LRU, not anon): THP */
	put64(0, 24, 0xffff888012345600ULL);
	T_EQ_U64(F(2, 0, true, true, false), B(UPTODATE) | B(LRU) | B(SWAPBACKED) | B(MMAP) | B(THP));
	/* a driver's compound page: neither */
	put64(0, 0, 1ULL << 6);
	T_EQ_U64(F(2, 0, true, true, false), B(MMAP));
}

static void hugetlb(void)
{
	T_ASSERT(setup(false));
	reset();
	put64(0, 0, (1ULL << 16) | (1ULL << 2));
	put64(0, 24, 0xffff888012345601ULL);
	put64(2, 8, 1);
	T_EQ_U64(F(0, 0, false, true, true), B(UPTODATE) | B(ANON) | B(COMPOUND_HEAD) | B(HUGE));
	T_EQ_U64(F(2, 0, true, true, true), B(ANON) | B(COMPOUND_TAIL) | B(HUGE));
}

/* Small pages: the flag bits, slab (no mmap), KSM, swap cache, the page
 * types of each era, hwpoison. */
static void small(void)
{
	T_ASSERT(setup(false));
	reset();
	put64(3, 0, (1ULL << 0) | (1ULL << 3) | (1ULL << 15) | (1ULL << 18) | (1ULL << 20));
	T_EQ_U64(F(3, 3, false, false, false),
		 B(LOCKED) | B(DIRTY) | B(WRITEBACK) | B(RECLAIM) | B(UNEVICTABLE));
	put64(3, 0, 1ULL << 9);              /* PG_slab */
	put32(3, 48, 0);                     /* _mapcount reused: no mmap */
	T_EQ_U64(F(3, 3, false, false, false), B(SLAB));
	put64(3, 0, (1ULL << 10) | (1ULL << 19)); /* swapcache + swapbacked */
	put64(3, 24, 0xffff888012345603ULL);       /* KSM */
	T_EQ_U64(F(3, 3, false, false, false),
		 B(MMAP) | B(ANON) | B(KSM) | B(SWAPCACHE) | B(SWAPBACKED));
	put64(3, 0, 1ULL << 10); /* PG_owner_priv_1 alone: not the swap cache */
	put64(3, 24, 0);
	put32(3, 48, 0xfffffdffu); /* ~PG_table */
	T_EQ_U64(F(3, 3, false, false, false), B(PGTABLE));
	put32(3, 48, 0xfffffeffu); /* ~PG_offline */
	T_EQ_U64(F(3, 3, false, false, false), B(OFFLINE));
	put32(3, 48, 0xffffff7fu); /* ~PG_buddy: the walk marks buddy, not the page */
	T_EQ_U64(F(3, 3, false, false, false), 0);
	T_ASSERT(filter_page_is_buddy(&R, pg + 3 * PSZ));
	put32(3, 48, 0xffffffffu);
	put64(3, 0, 1ULL << 23);
	T_EQ_U64(F(3, 3, false, false, false), B(HWPOISON));

	T_ASSERT(setup(true));
	reset();
	put32(3, 48, 0xf2000000u); /* PGTY_table */
	T_EQ_U64(F(3, 3, false, false, false), B(PGTABLE));
	put32(3, 48, 0xf5000000u); /* PGTY_slab */
	T_EQ_U64(F(3, 3, false, false, false), B(SLAB));
	put32(3, 48, 0xf1000000u); /* PGTY_offline */
	T_EQ_U64(F(3, 3, false, false, false), B(OFFLINE));
}

/* Without BTF the copied bits are unknown: nothing shows them. */
static void no_btf(void)
{
	T_ASSERT(setup(true));
	pagetypes_kernel_init(&K, &R);
	reset();
	put64(3, 0, (1ULL << 0) | (1ULL << 3) | (1ULL << 5));
	T_EQ_U64(F(3, 3, false, false, false), B(LRU));
	T_ASSERT(K.table == PT_TABLE_NONE);
	T_ASSERT(setup(false));
	pagetypes_kernel_init(&K, &R);
	T_ASSERT(K.table == PT_TABLE_MASK && !K.folio_flags); /* 6.1's fixed PG_table */
	T_EQ_U64(K.table_value, 0x200);
	/* page[1].compound_mapcount after the byte compound_order (17) */
	T_EQ_U64(K.off_entire_mapcount, PSZ + 20);
}

/* 5.10 without BTF (Debian's bullseye kernel: no kallsyms in VMCOREINFO,
 * so no BTF found): PG_table 0x400 after PG_kmemcg, a THP's mappings in
 * page[1].compound_mapcount.  The lab's reclaim-5.10 run. */
static void no_btf_510(void)
{
	char t[sizeof(v61) + 8];
	const char *at = strstr(v61, "OSRELEASE=6.1.0");

	T_ASSERT(at != NULL);
	snprintf(t, sizeof(t), "%.*sOSRELEASE=5.10.0%s", (int)(at - v61), v61,
		 at + strlen("OSRELEASE=6.1.0"));
	T_ASSERT(rules(t));
	pagetypes_kernel_init(&K, &R);
	T_ASSERT(K.table == PT_TABLE_MASK);
	T_EQ_U64(K.table_value, 0x400);
	T_EQ_U64(K.off_entire_mapcount, PSZ + 20);
	reset();
	put32(3, 48, 0xf0000000u | (0xffffffffu & ~0xf0000000u & ~0x400u)); /* PageTable */
	T_EQ_U64(F(3, 3, false, false, false), B(PGTABLE));
	put32(3, 48, ~0x200u); /* 5.10's PageKmemcg: no flag page-types shows */
	T_EQ_U64(F(3, 3, false, false, false), 0);
	/* a THP mapped by page[1].compound_mapcount: its tail is mmap */
	put64(0, 24, 0xffff888012345601ULL);
	put64(1, 8, 1);
	put32(1, 20, 0);
	put64(2, 8, 1);
	T_EQ_U64(F(2, 0, true, true, false), B(MMAP) | B(ANON) | B(THP));
	/* 4.17 had no page type for page tables */
	at = strstr(t, "OSRELEASE=5.10.0");
	memcpy((char *)at + strlen("OSRELEASE="), "4.17.0", 6);
	T_ASSERT(rules(t));
	pagetypes_kernel_init(&K, &R);
	T_ASSERT(K.table == PT_TABLE_NONE);
}

int main(void)
{
	T_RUN(thp_61);
	T_RUN(thp_612);
	T_RUN(hugetlb);
	T_RUN(small);
	T_RUN(no_btf);
	T_RUN(no_btf_510);
	return t_done();
}
