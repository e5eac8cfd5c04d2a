/*
 * tests/unit/test_freelist.c - the free-list walk.
 *
 * Synthetic cases build a tiny ELF64 x86_64 core in a memfd: one PT_NOTE
 * with VMCOREINFO, one PT_LOAD of 8 MiB of "RAM" mapped at the default
 * direct-map base, so every address below is a direct-map address that
 * readmem translates without page tables.  Inside that RAM the test lays
 * out node_data, two pglist_data with their zones, free_areas and
 * list_heads, and a struct page array, with a made-up (but consistent)
 * layout given in VMCOREINFO.
 *
 * The real-vmcore case walks the free lists of fx-v61-512m.elf and
 * fx-v612-512m.elf in $MDF_VMCORE_CACHE (see tests/lib/realvm.h; skipped when
 * absent) and compares them with what the buddy marker in struct page
 * finds.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/arch.h"
#include "bitmap.h"
#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "filter/filter.h"
#include "filter/freelist.h"
#include "kernel/kernel.h"
#include "kernel/memmap.h"
#include "readmem.h"
#include "corefile.h"
#include "tap.h"
#include "realvm.h"
#include "util.h"
#include "kernel/vmcoreinfo.h"

/* ---- the fake machine ---- */

#define PO 0xffff888000000000ULL   /* direct-map base */
#define RAM (8u << 20)
#define MAX_PFN (RAM / 4096)

/* physical layout */
#define VMEMMAP_PA 0x100000u        /* struct page of pfn 0 (linear layout) */
#define NODE_DATA_PA 0x10000u
#define PGDAT0_PA 0x11000u
#define PGDAT1_PA 0x14000u
#define MEMSEC_ROOT_PA 0x18000u     /* sparse: mem_section roots */
#define MEMSEC_PA 0x19000u          /* sparse: the sections */
#define SEC1_MAP_PA 0x20000u        /* sparse: struct pages of pfns 256.. */
#define MEM_MAP_VAR_PA 0x1f000u     /* FLATMEM: the pointer mem_map */

/* struct layout (VMCOREINFO below says the same) */
#define PAGE_SZ 64u
#define OFF_LRU 16u
#define LH_SZ 16u
#define FA_SZ 0x40u
#define OFF_FL 8u
#define NR_TYPES 3u
#define ZONE_SZ 0x200u
#define OFF_FA 0x40u
#define NR_ORDERS 4u
#define OFF_SPANNED 0x10u
#define OFF_VMSTAT 0x180u
#define OFF_ZONES 0x20u
#define OFF_NR_ZONES 0x8u
#define PGDAT_SZ 0x800u

static unsigned char mem[RAM];
static int sparse_mode;           /* struct pages of pfns >= 256 elsewhere */

static uint64_t va(uint64_t pa) { return PO + pa; }

static uint64_t page_pa(uint64_t pfn)
{
	if (sparse_mode && pfn >= 256)
		return SEC1_MAP_PA + (pfn - 256) * PAGE_SZ;
	return VMEMMAP_PA + pfn * PAGE_SZ;
}

static uint64_t elem_va(uint64_t pfn) { return va(page_pa(pfn) + OFF_LRU); }

static void w64(uint64_t pa, uint64_t v) { store_le64(mem + pa, v); }
static uint64_t r64(uint64_t pa) { return load_le64(mem + pa); }

static void w32(uint64_t pa, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		mem[pa + i] = (unsigned char)(v >> (8 * i));
}

static uint64_t zone_pa(uint64_t pgdat, unsigned z)
{
	return pgdat + OFF_ZONES + z * ZONE_SZ;
}

static uint64_t head_pa(uint64_t pgdat, unsigned z, unsigned order, unsigned mt)
{
	return zone_pa(pgdat, z) + OFF_FA + order * FA_SZ + OFF_FL + mt * LH_SZ;
}

/* list_add_tail() of the element at virtual @e onto the head at @h. */
static void list_add_tail_pa(uint64_t h, uint64_t e_pa)
{
	uint64_t last = r64(h + 8);

	w64(e_pa, va(h));         /* new.next = head */
	w64(e_pa + 8, last);      /* new.prev = head.prev */
	w64(last - PO, va(e_pa)); /* last.next = new */
	w64(h + 8, va(e_pa));     /* head.prev = new */
}

static void add_block(uint64_t pgdat, unsigned z, unsigned order, unsigned mt,
		      uint64_t pfn)
{
	list_add_tail_pa(head_pa(pgdat, z, order, mt), page_pa(pfn) + OFF_LRU);
}

static void zone_setup(uint64_t pgdat, unsigned z, uint64_t spanned, uint64_t nfree)
{
	uint64_t zp = zone_pa(pgdat, z);

	w64(zp + OFF_SPANNED, spanned);
	w64(zp + OFF_VMSTAT, nfree);
	for (unsigned o = 0; o < NR_ORDERS; o++)
		for (unsigned mt = 0; mt < NR_TYPES; mt++) {
			uint64_t h = head_pa(pgdat, z, o, mt);

			w64(h, va(h));
			w64(h + 8, va(h));
		}
}

/* Two nodes (node_data[0] and [2]; [1] and [3] NULL).  Node 0: zone 0 of
 * 256 pages with free blocks, zone 1 empty (lists never initialised);
 * node 1: zone 0 spanning pfns 256..511. */
static void machine_empty(void)
{
	memset(mem, 0, sizeof(mem));
	w64(NODE_DATA_PA + 0, va(PGDAT0_PA));
	w64(NODE_DATA_PA + 16, va(PGDAT1_PA));
	w32(PGDAT0_PA + OFF_NR_ZONES, 2);
	w32(PGDAT1_PA + OFF_NR_ZONES, 1);
	zone_setup(PGDAT0_PA, 0, 256, 0);
	zone_setup(PGDAT1_PA, 0, 256, 0);
	/* sparse: roots[0] -> sections; section 0 linear at VMEMMAP_PA,
	 * section 1 elsewhere (the kernel stores mem_map - start_pfn). */
	w64(MEMSEC_ROOT_PA, va(MEMSEC_PA));
	w64(MEMSEC_PA, va(VMEMMAP_PA) | 2);
	w64(MEMSEC_PA + 16, (va(SEC1_MAP_PA) - 256 * PAGE_SZ) | 2);
	w64(MEM_MAP_VAR_PA, va(VMEMMAP_PA));
}

static void machine_full(void)
{
	machine_empty();
	w64(zone_pa(PGDAT0_PA, 0) + OFF_VMSTAT, 20);
	w64(zone_pa(PGDAT1_PA, 0) + OFF_VMSTAT, 18);
	add_block(PGDAT0_PA, 0, 0, 0, 3);
	add_block(PGDAT0_PA, 0, 0, 0, 5);
	add_block(PGDAT0_PA, 0, 0, 1, 100);
	add_block(PGDAT0_PA, 0, 2, 2, 8);
	add_block(PGDAT0_PA, 0, 2, 2, 16);
	add_block(PGDAT0_PA, 0, 3, 0, 24);
	add_block(PGDAT1_PA, 0, 1, 0, 300);
	add_block(PGDAT1_PA, 0, 3, 1, 264);
	add_block(PGDAT1_PA, 0, 3, 1, 256);
}

static const struct pfn_range full_ranges[] = {
	{ 3, 4 }, { 5, 6 }, { 8, 12 }, { 16, 20 }, { 24, 32 }, { 100, 101 },
	{ 256, 272 }, { 300, 302 },
};
#define FULL_PAGES 37u
#define FULL_BLOCKS 9u

/* VMCOREINFO options */
enum { VI_NO_PREV = 1, VI_SPARSE = 2, VI_CONTIG = 4, VI_NO_LRU = 8,
       VI_VMEMMAP_SYM = 16, VI_FLAT = 32 };

static size_t vmcoreinfo_text(char *buf, size_t cap, unsigned opt)
{
	size_t n = 0;

#define L(...) (n += (size_t)snprintf(buf + n, cap - n, __VA_ARGS__))
	L("OSRELEASE=2.6.99-fake\nPAGESIZE=4096\n");
	L("SIZE(page)=%u\n", PAGE_SZ);
	if (!(opt & VI_NO_LRU))
		L("OFFSET(page.lru)=%u\n", OFF_LRU);
	L("OFFSET(page.flags)=0\n");
	if (opt & VI_CONTIG) {
		L("SYMBOL(contig_page_data)=%llx\n", (unsigned long long)va(PGDAT0_PA));
	} else {
		L("SYMBOL(node_data)=%llx\nLENGTH(node_data)=4\n",
		  (unsigned long long)va(NODE_DATA_PA));
	}
	if (opt & VI_SPARSE) {
		L("SYMBOL(mem_section)=%llx\nLENGTH(mem_section)=2\n"
		  "SIZE(mem_section)=16\nOFFSET(mem_section.section_mem_map)=0\n"
		  "NUMBER(SECTION_SIZE_BITS)=20\n",
		  (unsigned long long)va(MEMSEC_ROOT_PA));
	}
	if (opt & VI_VMEMMAP_SYM)
		L("SYMBOL(vmemmap)=%llx\n", (unsigned long long)va(VMEMMAP_PA));
	if (opt & VI_FLAT)
		L("SYMBOL(mem_map)=%llx\n", (unsigned long long)va(MEM_MAP_VAR_PA));
	L("SIZE(pglist_data)=%u\nSIZE(zone)=%u\nSIZE(free_area)=%u\nSIZE(list_head)=%u\n",
	  PGDAT_SZ, ZONE_SZ, FA_SZ, LH_SZ);
	L("OFFSET(pglist_data.node_zones)=%u\nOFFSET(pglist_data.nr_zones)=%u\n",
	  OFF_ZONES, OFF_NR_ZONES);
	L("OFFSET(zone.free_area)=%u\nOFFSET(zone.spanned_pages)=%u\nOFFSET(zone.vm_stat)=%u\n",
	  OFF_FA, OFF_SPANNED, OFF_VMSTAT);
	L("OFFSET(free_area.free_list)=%u\nOFFSET(list_head.next)=0\n", OFF_FL);
	if (!(opt & VI_NO_PREV))
		L("OFFSET(list_head.prev)=8\n");
	L("LENGTH(zone.free_area)=%u\nLENGTH(free_area.free_list)=%u\nNUMBER(NR_FREE_PAGES)=0\n",
	  NR_ORDERS, NR_TYPES);
#undef L
	return n;
}

/* ELF64 LE core: header, PT_NOTE, PT_LOAD; returns a memfd or -1. */
static int write_core(unsigned opt)
{
	char text[4096];

	vmcoreinfo_text(text, sizeof(text), opt);
	return t_core_memfd("fl.core", text, PO, mem, RAM);
}

/* ---- the real setup, as dump.c builds it ---- */

struct env {
	int fd;
	struct elf_info elf;
	struct cache cache;
	struct kernel k;            /* as dump.c has it: kernel_open() */
	bool have_mm;
};

static void env_close(struct env *e)
{
	cache_release(&e->cache);
	kernel_close(&e->k);
	elf_info_close(&e->elf);
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
}

static enum mdf_status env_open(struct env *e, int fd, const char *name,
				struct mdf_err *err)
{
	struct kernel_input in = { .name = name, .need_arch = true };
	struct cache_config cc = { 0 };
	enum mdf_status st;

	memset(e, 0, sizeof(*e));
	e->fd = fd;
	st = elf_info_open(&e->elf, fd, name, err);
	if (st != MDF_OK)
		return st;
	st = cache_init(&e->cache, fd, name, &cc, err);
	if (st != MDF_OK)
		return st;
	in.ops = &elf_input_ops;
	in.obj = &e->elf;
	in.elf = &e->elf;
	in.cache = &e->cache;
	st = kernel_open(&e->k, &in, err);
	if (st != MDF_OK)
		return st;
	if (kernel_find_memmap(&e->k, err) == MDF_OK)
		e->have_mm = true;
	else
		mdf_err_clear(err);  /* tests that need no mm pass a base */
	return MDF_OK;
}

/* Write the machine, open it, walk. */
static enum mdf_status run_walk(unsigned opt, uint64_t vmemmap_base,
				struct freelist_result *res, struct mdf_err *err)
{
	struct env e;
	int fd = write_core(opt);
	enum mdf_status st;

	memset(res, 0x5a, sizeof(*res)); /* must be reset by the walk */
	if (fd < 0)
		return mdf_err_set(err, MDF_ERR_IO, "cannot write the test core");
	st = env_open(&e, fd, "fl.core", err);
	if (st == MDF_OK)
		st = freelist_collect(&e.k.ki, &e.k.rm, &e.k.mm, vmemmap_base, MAX_PFN,
				      res, err);
	env_close(&e);
	return st;
}

static int check_full(const struct freelist_result *r)
{
	if (r->free.n != ARRAY_SIZE(full_ranges) || r->free.pages != FULL_PAGES ||
	    r->blocks != FULL_BLOCKS)
		return 0;
	for (size_t i = 0; i < r->free.n; i++)
		if (r->free.r[i].start != full_ranges[i].start ||
		    r->free.r[i].end != full_ranges[i].end)
			return 0;
	return 1;
}

/* ---- cases ---- */

static void test_walk_ok(void)
{
	struct freelist_result r;
	struct mdf_err err;
	struct bitmap b;

	sparse_mode = 0;
	machine_full();
	T_OK(run_walk(0, va(VMEMMAP_PA), &r, &err), &err);
	T_EQ_U64(r.nodes, 2);
	T_EQ_U64(r.zones, 2);          /* node 0 zone 1 spans nothing */
	T_EQ_U64(r.blocks, FULL_BLOCKS);
	T_EQ_U64(r.free.pages, FULL_PAGES);
	T_EQ_U64(r.free.n, ARRAY_SIZE(full_ranges));
	for (size_t i = 0; i < r.free.n; i++) {
		T_EQ_U64(r.free.r[i].start, full_ranges[i].start);
		T_EQ_U64(r.free.r[i].end, full_ranges[i].end);
	}
	T_ASSERT(r.have_counter);
	T_EQ_U64(r.counter_pages, 38);
	T_ASSERT(freelist_contains(&r, 3));
	T_ASSERT(!freelist_contains(&r, 4));
	T_ASSERT(freelist_contains(&r, 271));
	T_ASSERT(!freelist_contains(&r, 272));
	T_ASSERT(!freelist_contains(&r, 0));
	T_ASSERT(!freelist_contains(&r, 511));

	/* apply: whole window, then the second half, then a partly excluded
	 * window */
	T_OK(bitmap_init(&b, 512, &err), &err);
	bitmap_reset(&b, 0, 512);
	bitmap_set_range(&b, 0, 512);
	T_EQ_U64(freelist_apply(&r, &b), FULL_PAGES);
	T_EQ_U64(bitmap_count(&b, 0, 512), 512 - FULL_PAGES);
	T_ASSERT(!bitmap_test(&b, 300) && bitmap_test(&b, 302) && !bitmap_test(&b, 24));
	bitmap_reset(&b, 256, 512);
	bitmap_set_range(&b, 256, 512);
	T_EQ_U64(freelist_apply(&r, &b), 18);
	bitmap_reset(&b, 8, 264);
	bitmap_set_range(&b, 8, 264);
	bitmap_clear_range(&b, 10, 12);
	T_EQ_U64(freelist_apply(&r, &b), 2 + 4 + 8 + 1 + 8);
	bitmap_release(&b);
	freelist_result_release(&r);
	freelist_result_release(&r);   /* twice is harmless */
	T_EQ_U64(r.free.n, 0);
}

/* mm decides the pfns: SYMBOL(vmemmap) (MEMMAP_VMEMMAP), SYMBOL(mem_map)
 * (FLATMEM), and SPARSEMEM
 * with a second section whose mem_map lies elsewhere. */
static void test_walk_memmap_models(void)
{
	struct freelist_result r;
	struct mdf_err err;

	sparse_mode = 0;
	machine_full();
	T_OK(run_walk(VI_VMEMMAP_SYM, 0, &r, &err), &err);
	T_ASSERT(check_full(&r));
	freelist_result_release(&r);

	/* FLATMEM (i386): SYMBOL(mem_map), the pointer to the one array */
	machine_full();
	T_OK(run_walk(VI_FLAT, 0, &r, &err), &err);
	T_ASSERT(check_full(&r));
	freelist_result_release(&r);

	sparse_mode = 1;
	machine_full();
	T_OK(run_walk(VI_SPARSE, 0, &r, &err), &err);
	T_ASSERT(check_full(&r));
	freelist_result_release(&r);
	/* the linear base is wrong for the second section */
	T_ASSERT(run_walk(VI_SPARSE, va(VMEMMAP_PA), &r, &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "node 2 zone 0") != NULL);
	T_ASSERT(strstr(err.msg, "not the page.lru of a struct page") != NULL);
	sparse_mode = 0;

	/* no way to map addresses at all */
	machine_full();
	T_ASSERT(run_walk(0, 0, &r, &err) == MDF_ERR_NOTSUPP);
	T_EQ_U64(r.free.n, 0);
	T_ASSERT(r.free.r == NULL);
}

static void test_walk_empty(void)
{
	struct freelist_result r;
	struct mdf_err err;

	sparse_mode = 0;
	machine_empty();
	T_OK(run_walk(0, va(VMEMMAP_PA), &r, &err), &err);
	T_EQ_U64(r.free.n, 0);
	T_EQ_U64(r.free.pages, 0);
	T_EQ_U64(r.blocks, 0);
	T_EQ_U64(r.nodes, 2);
	freelist_result_release(&r);
}

static void test_contig_page_data(void)
{
	struct freelist_result r;
	struct mdf_err err;

	sparse_mode = 0;
	machine_full();
	T_OK(run_walk(VI_CONTIG, va(VMEMMAP_PA), &r, &err), &err);
	T_EQ_U64(r.nodes, 1);
	T_EQ_U64(r.free.pages, 1 + 1 + 4 + 4 + 8 + 1);
	freelist_result_release(&r);
}

static void test_broken_prev(void)
{
	struct freelist_result r;
	struct mdf_err err;
	char want[128];

	sparse_mode = 0;
	machine_full();
	w64(page_pa(5) + OFF_LRU + 8, elem_va(100));  /* pfn 5's prev */
	T_ASSERT(run_walk(0, va(VMEMMAP_PA), &r, &err) == MDF_ERR_FORMAT);
	T_ASSERT(r.free.r == NULL && r.free.n == 0 && r.free.pages == 0);
	T_ASSERT(strncmp(err.msg, "free lists: node 0 zone 0 order 0 migrate type 0", 48) == 0);
	T_ASSERT(strstr(err.msg, "the free list is broken") != NULL);
	snprintf(want, sizeof(want), "element 0x%llx", (unsigned long long)elem_va(5));
	T_ASSERT(strstr(err.msg, want) != NULL);

	/* the head's prev not at the last element */
	machine_full();
	w64(head_pa(PGDAT1_PA, 0, 3, 1) + 8, elem_va(264));
	T_ASSERT(run_walk(0, va(VMEMMAP_PA), &r, &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "node 2 zone 0 order 3 migrate type 1") != NULL);
	T_ASSERT(strstr(err.msg, "head's prev") != NULL);

	/* without OFFSET(list_head.prev) the same list is believed */
	machine_full();
	w64(page_pa(5) + OFF_LRU + 8, elem_va(100));
	T_OK(run_walk(VI_NO_PREV, va(VMEMMAP_PA), &r, &err), &err);
	T_ASSERT(check_full(&r));
	freelist_result_release(&r);
}

static void test_loop(void)
{
	struct freelist_result r;
	struct mdf_err err;

	sparse_mode = 0;
	/* head -> 3 -> 5 -> 3 ...: pfn 5's next goes back to pfn 3 */
	machine_full();
	w64(page_pa(5) + OFF_LRU, elem_va(3));
	T_ASSERT(run_walk(0, va(VMEMMAP_PA), &r, &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "order 0 migrate type 0") != NULL);
	T_ASSERT(strstr(err.msg, "the free list loops") != NULL);
	/* the same without prev pointers: caught by cycle finding */
	T_ASSERT(run_walk(VI_NO_PREV, va(VMEMMAP_PA), &r, &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "the free list loops") != NULL);
	/* head -> 3 -> 5 -> 7 -> 5 ...: caught by the prev check, told apart
	 * from a plain broken link */
	machine_full();
	add_block(PGDAT0_PA, 0, 0, 0, 7);
	w64(page_pa(7) + OFF_LRU, elem_va(5));
	T_ASSERT(run_walk(0, va(VMEMMAP_PA), &r, &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "the free list loops") != NULL);
	T_ASSERT(strstr(err.msg, "(block 4) is block 2 again") != NULL);
	/* an element pointing at itself */
	machine_full();
	w64(page_pa(100) + OFF_LRU, elem_va(100));
	T_ASSERT(run_walk(VI_NO_PREV, va(VMEMMAP_PA), &r, &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "order 0 migrate type 1") != NULL);
	T_ASSERT(strstr(err.msg, "the free list loops") != NULL);
	/* more free pages than the zone spans */
	machine_full();
	w64(zone_pa(PGDAT0_PA, 0) + OFF_SPANNED, 12);
	T_ASSERT(run_walk(0, va(VMEMMAP_PA), &r, &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "hold more than the 12 pages it spans") != NULL);
}

static void test_bad_element(void)
{
	struct freelist_result r;
	struct mdf_err err;

	sparse_mode = 0;
	/* next of pfn 3 points past the struct pages of pfns < max_pfn */
	machine_full();
	w64(page_pa(3) + OFF_LRU, va(VMEMMAP_PA + MAX_PFN * PAGE_SZ + OFF_LRU));
	T_ASSERT(run_walk(0, va(VMEMMAP_PA), &r, &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "is not the page.lru of a struct page") != NULL);
	/* not on a struct page boundary */
	machine_full();
	w64(page_pa(3) + OFF_LRU, elem_va(7) + 8);
	T_ASSERT(run_walk(0, va(VMEMMAP_PA), &r, &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "is not the page.lru of a struct page") != NULL);
	/* a NULL next pointer */
	machine_full();
	w64(page_pa(3) + OFF_LRU, 0);
	T_ASSERT(run_walk(0, va(VMEMMAP_PA), &r, &err) == MDF_ERR_FORMAT);
	/* a block not aligned to its order */
	machine_full();
	add_block(PGDAT0_PA, 0, 2, 0, 42);
	T_ASSERT(run_walk(0, va(VMEMMAP_PA), &r, &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "not aligned to order 2") != NULL);
	/* an element whose struct page is not in the dump: a read error with
	 * context (section 1's mem_map placed past the end of RAM) */
	sparse_mode = 1;
	machine_full();
	w64(MEMSEC_PA + 16, (PO + RAM * 4 - 256 * PAGE_SZ) | 2);
	w64(head_pa(PGDAT0_PA, 0, 1, 1), PO + RAM * 4 + OFF_LRU);
	T_ASSERT(run_walk(VI_SPARSE, 0, &r, &err) == MDF_ERR_NODATA);
	sparse_mode = 0;
	T_ASSERT(strstr(err.msg, "node 0 zone 0 order 1 migrate type 1") != NULL);
	T_ASSERT(strstr(err.msg, "(block 1, pfn 0x100)") != NULL);
}

static void test_bad_vmcoreinfo(void)
{
	struct freelist_result r;
	struct mdf_err err;

	sparse_mode = 0;
	machine_full();
	T_ASSERT(run_walk(VI_NO_LRU, va(VMEMMAP_PA), &r, &err) == MDF_ERR_NOTSUPP);
	T_ASSERT(strstr(err.msg, "OFFSET(page.lru)") != NULL);
	/* nr_zones out of range */
	machine_full();
	w32(PGDAT1_PA + OFF_NR_ZONES, 0xffffffffu);
	T_ASSERT(run_walk(0, va(VMEMMAP_PA), &r, &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "nr_zones -1") != NULL);
	/* a node_data entry that points nowhere */
	machine_full();
	w64(NODE_DATA_PA + 24, PO + RAM * 8);
	T_ASSERT(run_walk(0, va(VMEMMAP_PA), &r, &err) == MDF_ERR_NODATA);
	T_ASSERT(strstr(err.msg, "node 3") != NULL);
}

/* Many blocks, in scattered order: the result compacts as it grows and
 * still merges exactly. */
static void test_many_blocks(void)
{
	struct freelist_result r;
	struct mdf_err err;

	sparse_mode = 0;
	machine_empty();
	/* every even pfn in 0..255 as order 0, in a shuffled order, across
	 * three lists; the odd ones of 256..511 likewise */
	for (unsigned i = 0; i < 128; i++) {
		unsigned k = (i * 37) % 128;

		add_block(PGDAT0_PA, 0, 0, k % 3, 2 * k);
		add_block(PGDAT1_PA, 0, 0, k % 3, 256 + 2 * k + 1);
	}
	T_OK(run_walk(0, va(VMEMMAP_PA), &r, &err), &err);
	T_EQ_U64(r.blocks, 256);
	T_EQ_U64(r.free.pages, 256);
	T_EQ_U64(r.free.n, 256);
	for (size_t i = 1; i < r.free.n; i++)
		T_ASSERT(r.free.r[i].start > r.free.r[i - 1].end);
	freelist_result_release(&r);
}

/* More free blocks than the first allocation holds, none adjacent to the
 * one listed before it: the result is compacted as it grows and ends as a
 * single run. */
static void test_compaction(void)
{
	struct freelist_result r;
	struct mdf_err err;

	sparse_mode = 0;
	machine_empty();
	w64(zone_pa(PGDAT0_PA, 0) + OFF_SPANNED, MAX_PFN);
	for (unsigned i = 0; i < MAX_PFN; i++)
		add_block(PGDAT0_PA, 0, 0, 1, (i * 37u) % MAX_PFN);
	T_OK(run_walk(0, va(VMEMMAP_PA), &r, &err), &err);
	T_EQ_U64(r.blocks, MAX_PFN);
	T_EQ_U64(r.free.pages, MAX_PFN);
	T_EQ_U64(r.free.n, 1);
	T_EQ_U64(r.free.r[0].start, 0);
	T_EQ_U64(r.free.r[0].end, MAX_PFN);
	T_ASSERT(r.free.cap <= 2048);
	freelist_result_release(&r);
}

/* ---- the real vmcores ---- */

static void real_one(const char *name, uint64_t ref_free)
{
	struct realvm rv;
	const char *path;
	struct env e;
	struct mdf_err err;
	struct freelist_result r;
	struct filter_rules rules;
	struct filter_warnings warn;
	struct filter_counts counts = { 0 };
	struct filter_carry carry = { 0 };
	struct bitmap present, buddy, walk;
	unsigned char *buf;
	uint64_t cleared, only_walk = 0, only_buddy = 0;
	int fd;

	if (!realvm_find_or_skip(&rv, name))
		return;
	path = rv.path;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	T_OK(env_open(&e, fd, path, &err), &err);
	T_ASSERT(e.have_mm);
	T_OK(freelist_collect(&e.k.ki, &e.k.rm, &e.k.mm, 0, e.k.max_pfn, &r, &err), &err);
	{
		struct freelist_result c;

		/* The counters alone: as the walk read them, and (these dumps
		 * were taken on a quiet machine) the buddy marker's count. */
		T_OK(freelist_count_free(&e.k.ki, &e.k.rm, e.k.max_pfn, &c, &err), &err);
		T_EQ_U64(c.counter_pages, r.counter_pages);
		T_EQ_U64(c.counter_pages, ref_free);
	}

	/* the buddy-marker result over the whole machine in one window */
	T_OK(filter_rules_init(&rules, &e.k.ki, DL_EXCLUDE_FREE, false, &warn, &err), &err);
	T_ASSERT(rules.can_find_free);
	T_OK(bitmap_init(&present, e.k.max_pfn, &err), &err);
	T_OK(bitmap_init(&buddy, e.k.max_pfn, &err), &err);
	T_OK(bitmap_init(&walk, e.k.max_pfn, &err), &err);
	bitmap_reset(&present, 0, e.k.max_pfn);
	for (size_t i = 0; i < e.elf.nranges; i++)
		bitmap_set_range(&present, e.elf.ranges[i].pstart / e.k.page_size,
				 e.elf.ranges[i].pend / e.k.page_size);
	bitmap_copy(&buddy, &present);
	bitmap_copy(&walk, &present);
	buf = malloc(FILTER_BATCH * rules.page_struct_size);
	T_ASSERT(buf);
	T_OK(filter_cycle(&rules, &e.k.mm, &e.k.rm, &present, &buddy, buf, &carry,
			  &counts, &err), &err);
	free(buf);
	cleared = freelist_apply(&r, &walk);
	for (uint64_t pfn = 0; pfn < e.k.max_pfn; pfn++) {
		bool in_walk = !bitmap_test(&walk, pfn) && bitmap_test(&present, pfn);
		bool in_buddy = !bitmap_test(&buddy, pfn) && bitmap_test(&present, pfn);

		only_walk += in_walk && !in_buddy;
		only_buddy += in_buddy && !in_walk;
	}
	printf("# %s: walk %llu blocks, %llu pages (%zu runs, %llu present), "
	       "zone counters %llu; buddy marker %llu free; only walk %llu, only buddy %llu; "
	       "%u nodes %u zones\n",
	       path, (unsigned long long)r.blocks, (unsigned long long)r.free.pages, r.free.n,
	       (unsigned long long)cleared, (unsigned long long)r.counter_pages,
	       (unsigned long long)counts.cls[PC_FREE], (unsigned long long)only_walk,
	       (unsigned long long)only_buddy, r.nodes, r.zones);
	T_EQ_U64(counts.cls[PC_FREE], ref_free);
	T_EQ_U64(only_walk, 0);         /* the walk never claims a used page */
	T_EQ_U64(cleared, ref_free - only_buddy);
	T_ASSERT(only_buddy <= ref_free / 100);
	bitmap_release(&present);
	bitmap_release(&buddy);
	bitmap_release(&walk);
	freelist_result_release(&r);
	env_close(&e);
}

/* The zones' counters alone, with no list walked: the same sum as the
 * walk's, what is missing named, and nothing when no zone spans a page. */
static void test_counters(void)
{
	struct freelist_result r;
	struct mdf_err err;
	struct env e;
	int fd;

	sparse_mode = 0;
	machine_full();
	/* A list that the walk would call broken does not matter here. */
	w64(head_pa(PGDAT0_PA, 0, 0, 0) + 8, 0x1234);
	fd = write_core(0);
	T_ASSERT(fd >= 0);
	T_OK(env_open(&e, fd, "fl.core", &err), &err);
	T_OK(freelist_count_free(&e.k.ki, &e.k.rm, MAX_PFN, &r, &err), &err);
	T_ASSERT(r.have_counter);
	T_EQ_U64(r.counter_pages, 38);
	T_EQ_U64(r.nodes, 2);
	T_EQ_U64(r.zones, 2);
	T_EQ_U64(r.free.n, 0);
	T_EQ_U64(r.blocks, 0);
	/* Without NR_FREE_PAGES: not supported, named. */
	e.k.ki.num.NR_FREE_PAGES.set = false;
	T_ASSERT(freelist_count_free(&e.k.ki, &e.k.rm, MAX_PFN, &r, &err) == MDF_ERR_NOTSUPP);
	T_ASSERT(strcmp(err.msg, "free page counters: VMCOREINFO has neither "
			"OFFSET(zone.free_pages) nor OFFSET(zone.vm_stat) with "
			"NUMBER(NR_FREE_PAGES)") == 0);
	T_ASSERT(!r.have_counter && r.counter_pages == 0);
	e.k.ki.num.NR_FREE_PAGES.set = true;
	e.k.ki.size.zone.set = false;
	T_ASSERT(freelist_count_free(&e.k.ki, &e.k.rm, MAX_PFN, &r, &err) == MDF_ERR_NOTSUPP);
	T_EQ_STR(err.msg, "free page counters: VMCOREINFO has no SIZE(zone)");
	env_close(&e);

	/* node_data all NULL (the synthetic dumps of tests/gen): no zone. */
	machine_full();
	w64(NODE_DATA_PA + 0, 0);
	w64(NODE_DATA_PA + 16, 0);
	fd = write_core(0);
	T_ASSERT(fd >= 0);
	T_OK(env_open(&e, fd, "fl.core", &err), &err);
	T_ASSERT(freelist_count_free(&e.k.ki, &e.k.rm, MAX_PFN, &r, &err) == MDF_ERR_NODATA);
	T_EQ_STR(err.msg, "free page counters: no zone spans a page in 0 nodes");
	env_close(&e);
}

static void test_real_v61(void)
{
	real_one("fx-v61-512m", 37313);
}

static void test_real_v612(void)
{
	real_one("fx-v612-512m", 34067);
}

int main(void)
{
	T_RUN(test_walk_ok);
	T_RUN(test_walk_memmap_models);
	T_RUN(test_walk_empty);
	T_RUN(test_contig_page_data);
	T_RUN(test_broken_prev);
	T_RUN(test_loop);
	T_RUN(test_bad_element);
	T_RUN(test_bad_vmcoreinfo);
	T_RUN(test_many_blocks);
	T_RUN(test_compaction);
	T_RUN(test_counters);
	T_RUN(test_real_v61);
	T_RUN(test_real_v612);
	return t_done();
}
