/*
 * tests/unit/test_memmap.c - kernel/memmap.c: which memory model
 * memmap_init() picks from VMCOREINFO, and where memmap_page_vaddr() finds
 * the struct page of a pfn.
 *
 * Model selection needs no memory: the cases build struct kinfo by hand.
 * Lookups need the real read path (readmem through the arch layer and the
 * cache), so main() writes a tiny ELF64 x86_64 core into a memfd: one
 * PT_NOTE with VMCOREINFO and one PT_LOAD of 1 MiB of "RAM" at physical 0,
 * mapped at the default direct-map base, so every address below translates
 * without page tables.  In that RAM lie a SPARSEMEM_EXTREME root array with
 * its section pages, and a flat SPARSEMEM section array; the struct pages
 * they point at are never read, only their addresses computed.
 */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "kernel/kernel.h"
#include "kernel/memmap.h"
#include "kernel/vmcoreinfo.h"
#include "kinfo.h"
#include "readmem.h"
#include "corefile.h"
#include "tap.h"
#include "util.h"

#define PO 0xffff888000000000ULL /* direct-map base */
#define RAM 0x100000u
#define PAGE 4096u
#define SPS 64u                   /* SIZE(page) */
#define SSB 27                    /* NUMBER(SECTION_SIZE_BITS), x86_64 */
#define MPB 46                    /* NUMBER(MAX_PHYSMEM_BITS) */
#define SEC_PFNS (1ULL << (SSB - 12))
#define NR_ROOTS 2048u            /* 2^(MPB - SSB) sections, 256 per root */

/* physical layout */
#define ROOTS_PA 0x10000u  /* EXTREME: root pointers (16 KiB) */
#define ROOT0_PA 0x20000u  /* EXTREME: sections 0..255 */
#define ROOT2_PA 0x21000u  /* EXTREME: sections 512..767 */
#define FLAT_PA 0x30000u   /* SPARSE: the sections, 32 bytes each */
#define MAP0_PA 0x80000u   /* struct pages of a few sections */
#define MAP3_PA 0x90000u
#define MAP517_PA 0xa0000u
#define MEM_MAP_PA 0x40000u /* FLATMEM: the variable mem_map, and a NULL one */
#define NULL_MAP_PA 0x40008u

/* Far past RAM: no direct-map translation, no page tables either. */
#define UNMAPPED_VA (PO + 0x40000000ULL)

#define SET(f, val) do { (f).v = (val); (f).set = true; } while (0)

/* T_EQ_STR through a variable: long literals in its stringified message
 * trip -Wformat-truncation. */
#define T_MSG(err, text)                      \
	do {                                  \
		const char *want_ = (text);   \
		T_EQ_STR((err).msg, want_);   \
	} while (0)

/* Before its mem_map is set, a present section keeps its node id above
 * the flag bits (sparse_encode_early_nid()): address bits that are not
 * zero, without SECTION_HAS_MEM_MAP. */
#define EARLY_NID(nid) ((uint64_t)(nid) << 6)

static unsigned char mem[RAM];

static uint64_t va(uint64_t pa) { return PO + pa; }
static void w64(uint64_t pa, uint64_t v) { store_le64(mem + pa, v); }

/* section_mem_map as the kernel stores it: the section's mem_map minus
 * its first pfn, in struct page units, with flag bits in the low 6. */
static uint64_t enc(uint64_t map_pa, uint64_t nr, uint64_t flags)
{
	return (va(map_pa) - nr * SEC_PFNS * SPS) | flags;
}

/* Where the struct page of @pfn must be, for a section encoded by enc(). */
static uint64_t want_va(uint64_t map_pa, uint64_t pfn)
{
	return va(map_pa) + (pfn % SEC_PFNS) * SPS;
}

static void machine_setup(void)
{
	memset(mem, 0, sizeof(mem));
	/* EXTREME roots: 0 and 2 hold sections, 1 is NULL, 3 unreadable,
	 * and one just past LENGTH(mem_section) that must never be used. */
	w64(ROOTS_PA + 0 * 8, va(ROOT0_PA));
	w64(ROOTS_PA + 2 * 8, va(ROOT2_PA));
	w64(ROOTS_PA + 3 * 8, UNMAPPED_VA);
	w64(ROOTS_PA + NR_ROOTS * 8, va(ROOT0_PA));
	/* 16-byte sections, section_mem_map at offset 0 */
	w64(ROOT0_PA + 0 * 16, enc(MAP0_PA, 0, 0x3));  /* present */
	w64(ROOT0_PA + 1 * 16, EARLY_NID(2) | 0x1);     /* no mem_map yet */
	/* section 2: all zero */
	w64(ROOT0_PA + 3 * 16, enc(MAP3_PA, 3, 0x1f)); /* every flag bit */
	w64(ROOT0_PA + 4 * 16, 0x3);                    /* flag, NULL map */
	w64(ROOT2_PA + 5 * 16, enc(MAP517_PA, 517, 0x3));
	/* SPARSE: 32-byte sections, section_mem_map at offset 8.  Offset 0
	 * holds a valid-looking decoy, so reading the wrong word shows. */
	w64(FLAT_PA + 0 * 32 + 8, enc(MAP0_PA, 0, 0x3));
	w64(FLAT_PA + 1 * 32 + 0, enc(MAP0_PA, 1, 0x3));
	w64(FLAT_PA + 1 * 32 + 8, EARLY_NID(1) | 0x1);
	w64(FLAT_PA + 7 * 32 + 8, enc(MAP3_PA, 7, 0x3));
	w64(FLAT_PA + 8 * 32 + 8, enc(MAP0_PA, 8, 0x3)); /* past LENGTH 8 */
	w64(MEM_MAP_PA, va(MAP0_PA));
}


/* ELF64 LE core of mem[] with @text as VMCOREINFO; a memfd, or -1. */
static int write_core(const char *text)
{
	return t_core_memfd("memmap.core", text, PO, mem, RAM);
}

/* The machine, opened once the way dump.c opens an input. */
static struct {
	int fd;
	struct elf_info elf;
	struct cache cache;
	struct kernel k;
	bool ok;
	char why[MDF_ERR_MSG_MAX + 64];
} E = { .fd = -1 };

static enum mdf_status env_open(struct mdf_err *err)
{
	struct kernel_input in = { .name = "memmap.core", .need_arch = true };
	struct cache_config cc = { 0 };
	char text[512];
	enum mdf_status st;

	/* The same EXTREME layout the cases build by hand, to see the
	 * VMCOREINFO text reach memmap_init() through kernel_find_memmap(). */
	snprintf(text, sizeof(text),
		 "OSRELEASE=6.1.0-fake\nPAGESIZE=%u\nSIZE(page)=%u\n"
		 "SYMBOL(mem_section)=%llx\nLENGTH(mem_section)=%u\n"
		 "SIZE(mem_section)=16\nOFFSET(mem_section.section_mem_map)=0\n"
		 "NUMBER(SECTION_SIZE_BITS)=%d\nNUMBER(MAX_PHYSMEM_BITS)=%d\n",
		 PAGE, SPS, (unsigned long long)va(ROOTS_PA), NR_ROOTS, SSB, MPB);
	machine_setup();
	E.fd = write_core(text);
	if (E.fd < 0)
		return mdf_err_set(err, MDF_ERR_IO, "cannot write the test core");
	st = elf_info_open(&E.elf, E.fd, in.name, err);
	if (st == MDF_OK)
		st = cache_init(&E.cache, E.fd, in.name, &cc, err);
	if (st != MDF_OK)
		return st;
	in.ops = &elf_input_ops;
	in.obj = &E.elf;
	in.elf = &E.elf;
	in.cache = &E.cache;
	st = kernel_open(&E.k, &in, err);
	if (st == MDF_OK)
		st = kernel_find_memmap(&E.k, err);
	return st;
}

static void env_close(void)
{
	cache_release(&E.cache);
	kernel_close(&E.k);
	elf_info_close(&E.elf);
	if (E.fd >= 0)
		close(E.fd);
	E.fd = -1;
}

#define NEED_ENV()                                               \
	do {                                                     \
		if (!E.ok) {                                     \
			t_fail(__FILE__, __LINE__, E.why);       \
			return;                                  \
		}                                                \
	} while (0)

/* A complete SPARSEMEM description; cases then take pieces away. */
static void ki_sparse(struct kinfo *ki, uint64_t sym, uint64_t len,
		      uint64_t ms_size, uint64_t off_map)
{
	kinfo_init(ki);
	SET(ki->size.page, SPS);
	SET(ki->sym.mem_section, sym);
	SET(ki->len.mem_section, len);
	SET(ki->size.mem_section, ms_size);
	SET(ki->off.mem_section_section_mem_map, off_map);
	SET(ki->num.SECTION_SIZE_BITS, SSB);
	SET(ki->num.MAX_PHYSMEM_BITS, MPB);
}

/* memmap_init() on @ki must fail with @status and exactly @msg, and leave
 * no model behind. */
static int init_fails(const struct kinfo *ki, enum mdf_status status,
		      const char *msg, char *why, size_t cap)
{
	struct memmap mm;
	struct mdf_err err;
	enum mdf_status st;

	memset(&err, 0, sizeof(err));
	st = memmap_init(&mm, ki, PAGE, 256, &err);
	if (st != status || strcmp(err.msg, msg) != 0 || mm.model != MEMMAP_NONE) {
		snprintf(why, cap, "status %d (want %d), model %d, msg \"%.300s\", want \"%.300s\"",
			 (int)st, (int)status, (int)mm.model, err.msg, msg);
		return 0;
	}
	return 1;
}

#define T_INIT_FAILS(ki, status, msg)                                      \
	do {                                                               \
		char why_[800];                                            \
		if (!init_fails(&(ki), (status), (msg), why_, sizeof(why_))) { \
			t_fail(__FILE__, __LINE__, why_);                  \
			return;                                            \
		}                                                          \
	} while (0)

/* Look @pfn up: it must succeed, with @present and (when present) the
 * struct page at @want. */
static int lookup_ok(struct memmap *mm, uint64_t pfn, bool present,
		     uint64_t want, char *why, size_t cap)
{
	uint64_t v = 0xdead;
	bool p = !present;
	struct mdf_err err;
	enum mdf_status st;

	memset(&err, 0, sizeof(err));
	st = memmap_page_vaddr(mm, &E.k.rm, pfn, &v, &p, &err);
	if (st != MDF_OK || p != present || (present && v != want)) {
		snprintf(why, cap, "pfn 0x%llx: status %d, present %d (want %d), "
			 "vaddr 0x%llx (want 0x%llx): %.300s",
			 (unsigned long long)pfn, (int)st, (int)p, (int)present,
			 (unsigned long long)v, (unsigned long long)want, err.msg);
		return 0;
	}
	return 1;
}

#define T_LOOKUP(mm, pfn, present, want)                                   \
	do {                                                               \
		char why_[600];                                            \
		if (!lookup_ok((mm), (pfn), (present), (want), why_, sizeof(why_))) { \
			t_fail(__FILE__, __LINE__, why_);                  \
			return;                                            \
		}                                                          \
	} while (0)

/* ---- cases ---- */

static void t_model_names(void)
{
	T_EQ_STR(memmap_model_name(MEMMAP_NONE), "none");
	T_EQ_STR(memmap_model_name(MEMMAP_SPARSE), "SPARSEMEM");
	T_EQ_STR(memmap_model_name(MEMMAP_SPARSE_EXTREME), "SPARSEMEM_EX");
	T_EQ_STR(memmap_model_name(MEMMAP_VMEMMAP), "VMEMMAP");
	T_EQ_STR(memmap_model_name(MEMMAP_FLAT), "FLATMEM");
}

/* SYMBOL(vmemmap) alone, or with a mem_section description too incomplete
 * to use: the linear layout, base + pfn * SIZE(page), with no reads (a
 * NULL readmem would crash on one). */
static void t_vmemmap(void)
{
	const uint64_t base = 0xffffea0000000000ULL;
	struct kinfo ki;
	struct memmap mm;
	struct mdf_err err;
	uint64_t v;
	bool p;

	kinfo_init(&ki);
	SET(ki.size.page, SPS);
	SET(ki.sym.vmemmap, base);
	T_OK(memmap_init(&mm, &ki, PAGE, 1000, &err), &err);
	T_EQ_U64(mm.model, MEMMAP_VMEMMAP);
	T_EQ_U64(mm.base, base);
	T_EQ_U64(mm.max_pfn, 1000);
	T_EQ_U64(mm.page_struct_size, SPS);
	T_EQ_U64(memmap_section_pfns(&mm), 1u << 15);
	T_OK(memmap_page_vaddr(&mm, NULL, 0, &v, &p, &err), &err);
	T_ASSERT(p);
	T_EQ_U64(v, base);
	T_OK(memmap_page_vaddr(&mm, NULL, 0x12345, &v, &p, &err), &err);
	T_EQ_U64(v, base + 0x12345ULL * SPS);
	T_OK(memmap_page_vaddr(&mm, NULL, 1ULL << 34, &v, &p, &err), &err);
	T_EQ_U64(v, base + (1ULL << 34) * SPS);

	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 16, 0);
	SET(ki.sym.vmemmap, base);
	ki.num.SECTION_SIZE_BITS.set = false;
	T_OK(memmap_init(&mm, &ki, PAGE, 1000, &err), &err);
	T_EQ_U64(mm.model, MEMMAP_VMEMMAP);
}

static void t_flat_and_none(void)
{
	struct kinfo ki;
	struct memmap mm;
	struct mdf_err err;
	uint64_t v;
	bool p = true;

	NEED_ENV();
	/* FLATMEM: the struct page of pfn N at mem_map + N * SIZE(page),
	 * mem_map read once from the variable SYMBOL(mem_map) names */
	kinfo_init(&ki);
	SET(ki.size.page, SPS);
	SET(ki.sym.mem_map, va(MEM_MAP_PA));
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_EQ_U64(mm.model, MEMMAP_FLAT);
	T_OK(memmap_page_vaddr(&mm, &E.k.rm, 5, &v, &p, &err), &err);
	T_ASSERT(p);
	T_EQ_U64(v, va(MAP0_PA) + 5 * SPS);
	T_EQ_U64(mm.base, va(MAP0_PA));
	/* past the last pfn: no struct page */
	T_OK(memmap_page_vaddr(&mm, &E.k.rm, 256, &v, &p, &err), &err);
	T_ASSERT(!p);
	/* a NULL mem_map, and one the dump does not have */
	SET(ki.sym.mem_map, va(NULL_MAP_PA));
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_EQ_U64(memmap_page_vaddr(&mm, &E.k.rm, 5, &v, &p, &err), MDF_ERR_FORMAT);
	T_ASSERT(!p);
	T_MSG(err, "mem_map (FLATMEM) at 0xffff888000040008 is NULL");
	SET(ki.sym.mem_map, UNMAPPED_VA);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_EQ_U64(memmap_page_vaddr(&mm, &E.k.rm, 5, &v, &p, &err), MDF_ERR_NODATA);
	T_ASSERT(!p);

	ki.sym.mem_map.set = false;
	T_INIT_FAILS(ki, MDF_ERR_NOTSUPP,
		     "cannot find struct pages: VMCOREINFO has neither SYMBOL(mem_section) "
		     "nor SYMBOL(vmemmap) nor SYMBOL(mem_map)");
	/* A model of none finds no struct pages, and that is no error. */
	memset(&mm, 0, sizeof(mm));
	p = true;
	T_OK(memmap_page_vaddr(&mm, NULL, 5, &v, &p, &err), &err);
	T_ASSERT(!p);
}

/* LENGTH(mem_section) equal to NR_SECTION_ROOTS means an array of root
 * pointers; without MAX_PHYSMEM_BITS to tell, EXTREME is assumed. */
static void t_init_extreme(void)
{
	struct kinfo ki;
	struct memmap mm;
	struct mdf_err err;

	NEED_ENV();
	/* from the core's VMCOREINFO text */
	T_EQ_U64(E.k.mm.model, MEMMAP_SPARSE_EXTREME);
	T_EQ_U64(E.k.mm.max_pfn, RAM / PAGE);

	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 16, 0);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_EQ_U64(mm.model, MEMMAP_SPARSE_EXTREME);
	T_EQ_U64(mm.pfn_section_shift, SSB - 12);
	T_EQ_U64(memmap_section_pfns(&mm), SEC_PFNS);
	T_EQ_U64(mm.mem_section, va(ROOTS_PA));
	T_EQ_U64(mm.nr_roots, NR_ROOTS);
	T_EQ_U64(mm.per_root, PAGE / 16);
	T_EQ_U64(mm.ms_size, 16);
	T_EQ_U64(mm.off_map, 0);
	T_EQ_U64(mm.page_struct_size, SPS);

	ki.num.MAX_PHYSMEM_BITS.set = false;
	SET(ki.len.mem_section, 4);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_EQ_U64(mm.model, MEMMAP_SPARSE_EXTREME);
	T_EQ_U64(mm.nr_roots, 4);
	/* MAX_PHYSMEM_BITS not above SECTION_SIZE_BITS tells nothing either */
	SET(ki.num.MAX_PHYSMEM_BITS, SSB);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_EQ_U64(mm.model, MEMMAP_SPARSE_EXTREME);
}

/* Any other length: mem_section holds the sections themselves. */
static void t_init_sparse(void)
{
	struct kinfo ki;
	struct memmap mm;
	struct mdf_err err;

	ki_sparse(&ki, va(FLAT_PA), 8, 32, 8);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_EQ_U64(mm.model, MEMMAP_SPARSE);
	T_EQ_U64(mm.nr_roots, 8);
	T_EQ_U64(mm.per_root, 1);
	T_EQ_U64(mm.ms_size, 32);
	T_EQ_U64(mm.off_map, 8);
	/* one root off from NR_SECTION_ROOTS is not EXTREME */
	ki_sparse(&ki, va(FLAT_PA), NR_ROOTS + 1, 16, 0);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_EQ_U64(mm.model, MEMMAP_SPARSE);
}

static void t_init_errors(void)
{
	struct kinfo ki;

	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 16, 0);
	ki.size.page.set = false;
	T_INIT_FAILS(ki, MDF_ERR_NOTSUPP, "VMCOREINFO has no usable SIZE(page)");
	SET(ki.size.page, 0);
	T_INIT_FAILS(ki, MDF_ERR_NOTSUPP, "VMCOREINFO has no usable SIZE(page)");
	SET(ki.size.page, 4097);
	T_INIT_FAILS(ki, MDF_ERR_NOTSUPP, "VMCOREINFO has no usable SIZE(page)");

	/* a section no larger than a page, and not above 2^63 bytes */
	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 16, 0);
	SET(ki.num.SECTION_SIZE_BITS, 12);
	T_INIT_FAILS(ki, MDF_ERR_FORMAT, "VMCOREINFO: bad NUMBER(SECTION_SIZE_BITS)=12");
	SET(ki.num.SECTION_SIZE_BITS, -1);
	T_INIT_FAILS(ki, MDF_ERR_FORMAT, "VMCOREINFO: bad NUMBER(SECTION_SIZE_BITS)=-1");
	SET(ki.num.SECTION_SIZE_BITS, 64);
	T_INIT_FAILS(ki, MDF_ERR_FORMAT, "VMCOREINFO: bad NUMBER(SECTION_SIZE_BITS)=64");

	/* a whole number of u64s, at most a page */
	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 4, 0);
	T_INIT_FAILS(ki, MDF_ERR_FORMAT, "VMCOREINFO: bad SIZE(mem_section)=4");
	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 20, 0);
	T_INIT_FAILS(ki, MDF_ERR_FORMAT, "VMCOREINFO: bad SIZE(mem_section)=20");
	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 2 * PAGE, 0);
	T_INIT_FAILS(ki, MDF_ERR_FORMAT, "VMCOREINFO: bad SIZE(mem_section)=8192");

	/* section_mem_map is an aligned u64 inside the section */
	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 16, 4);
	T_INIT_FAILS(ki, MDF_ERR_FORMAT,
		     "VMCOREINFO: OFFSET(mem_section.section_mem_map)=4 "
		     "does not fit SIZE(mem_section)=16");
	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 16, 16);
	T_INIT_FAILS(ki, MDF_ERR_FORMAT,
		     "VMCOREINFO: OFFSET(mem_section.section_mem_map)=16 "
		     "does not fit SIZE(mem_section)=16");

	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 16, 0);
	ki.len.mem_section.set = false;
	T_INIT_FAILS(ki, MDF_ERR_NOTSUPP,
		     "VMCOREINFO has SYMBOL(mem_section) but no LENGTH(mem_section)");
	/* even with SYMBOL(vmemmap) to fall back on: the description is
	 * broken, not missing */
	SET(ki.sym.vmemmap, 0xffffea0000000000ULL);
	T_INIT_FAILS(ki, MDF_ERR_NOTSUPP,
		     "VMCOREINFO has SYMBOL(mem_section) but no LENGTH(mem_section)");
}

static void t_extreme_lookup(void)
{
	struct kinfo ki;
	struct memmap mm;
	struct mdf_err err;

	NEED_ENV();
	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 16, 0);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_LOOKUP(&mm, 0, true, want_va(MAP0_PA, 0));
	T_LOOKUP(&mm, SEC_PFNS - 1, true, want_va(MAP0_PA, SEC_PFNS - 1));
	T_LOOKUP(&mm, SEC_PFNS, false, 0);          /* no SECTION_HAS_MEM_MAP */
	T_LOOKUP(&mm, 2 * SEC_PFNS + 7, false, 0);  /* all zero */
	/* every flag bit set: masked off the address */
	T_LOOKUP(&mm, 3 * SEC_PFNS + 9, true, want_va(MAP3_PA, 9));
	T_LOOKUP(&mm, 4 * SEC_PFNS, false, 0);      /* flag but NULL map */
	T_LOOKUP(&mm, 256 * SEC_PFNS, false, 0);    /* root 1 is NULL */
	T_LOOKUP(&mm, 300 * SEC_PFNS + 1, false, 0);
	T_LOOKUP(&mm, 517 * SEC_PFNS + 3, true, want_va(MAP517_PA, 3));
	T_LOOKUP(&mm, 518 * SEC_PFNS, false, 0);
	/* past NR_SECTION_ROOTS: the decoy root behind the array is not read */
	T_LOOKUP(&mm, (uint64_t)NR_ROOTS * 256 * SEC_PFNS, false, 0);
	T_LOOKUP(&mm, UINT64_MAX, false, 0);
}

static void t_sparse_lookup(void)
{
	struct kinfo ki;
	struct memmap mm;
	struct mdf_err err;

	NEED_ENV();
	ki_sparse(&ki, va(FLAT_PA), 8, 32, 8);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_EQ_U64(mm.model, MEMMAP_SPARSE);
	T_LOOKUP(&mm, 17, true, want_va(MAP0_PA, 17));
	T_LOOKUP(&mm, SEC_PFNS + 1, false, 0);   /* the decoy at offset 0 unread */
	T_LOOKUP(&mm, 7 * SEC_PFNS + 2, true, want_va(MAP3_PA, 2));
	T_LOOKUP(&mm, 8 * SEC_PFNS, false, 0);   /* past LENGTH(mem_section) */
}

/* Two pfns of one section cost one read: with mem_section pointing
 * nowhere, the second lookup still succeeds, and another section fails. */
static void t_section_cache(void)
{
	struct kinfo ki;
	struct memmap mm;
	struct mdf_err err;
	uint64_t v;
	bool p;

	NEED_ENV();
	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 16, 0);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_ASSERT(!mm.cached_valid);
	T_LOOKUP(&mm, 3 * SEC_PFNS + 5, true, want_va(MAP3_PA, 5));
	T_ASSERT(mm.cached_valid && mm.cached_section == 3);
	mm.mem_section = UNMAPPED_VA;
	T_LOOKUP(&mm, 3 * SEC_PFNS + 1000, true, want_va(MAP3_PA, 1000));
	T_LOOKUP(&mm, 3 * SEC_PFNS, true, want_va(MAP3_PA, 0));
	T_ASSERT(memmap_page_vaddr(&mm, &E.k.rm, 0, &v, &p, &err) != MDF_OK);
	/* an absent section is cached as well */
	mm.mem_section = va(ROOTS_PA);
	T_LOOKUP(&mm, SEC_PFNS, false, 0);
	mm.mem_section = UNMAPPED_VA;
	T_LOOKUP(&mm, SEC_PFNS + 77, false, 0);
}

/* SECTION_IS_ONLINE (bit 2): section 0 is present with a mem_map and
 * offline (0x3), section 3 has every flag; a lookup of the same section
 * is cached; a model without sections says online. */
static void t_section_online(void)
{
	struct kinfo ki;
	struct memmap mm;
	struct mdf_err err;
	bool on = true;

	NEED_ENV();
	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 16, 0);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_OK(memmap_section_online(&mm, &E.k.rm, 5, &on, &err), &err);
	T_ASSERT(!on);
	T_OK(memmap_section_online(&mm, &E.k.rm, 3 * SEC_PFNS + 9, &on, &err), &err);
	T_ASSERT(on);
	mm.mem_section = UNMAPPED_VA; /* cached: no read */
	T_OK(memmap_section_online(&mm, &E.k.rm, 3 * SEC_PFNS, &on, &err), &err);
	T_ASSERT(on);
	T_ASSERT(memmap_section_online(&mm, &E.k.rm, 0, &on, &err) != MDF_OK);
	mm.model = MEMMAP_FLAT;
	T_OK(memmap_section_online(&mm, &E.k.rm, 0, &on, &err), &err);
	T_ASSERT(on);
}

/* Reads that fail say which root or section they were for. */
static void t_read_errors(void)
{
	struct kinfo ki;
	struct memmap mm;
	struct mdf_err err;
	char want[128];
	uint64_t v;
	bool p;

	NEED_ENV();
	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 16, 0);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	/* root 3 points nowhere: its section 773 is unreadable */
	T_ASSERT(memmap_page_vaddr(&mm, &E.k.rm, 773 * SEC_PFNS + 1, &v, &p, &err) != MDF_OK);
	snprintf(want, sizeof(want), "mem_section 773: reading virtual address 0x%llx: ",
		 (unsigned long long)(UNMAPPED_VA + 5 * 16));
	T_ASSERT(strncmp(err.msg, want, strlen(want)) == 0);
	/* and the failure is not cached as an absent section */
	T_ASSERT(memmap_page_vaddr(&mm, &E.k.rm, 773 * SEC_PFNS + 2, &v, &p, &err) != MDF_OK);

	ki_sparse(&ki, UNMAPPED_VA, NR_ROOTS, 16, 0);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_ASSERT(memmap_page_vaddr(&mm, &E.k.rm, 2 * 256 * SEC_PFNS, &v, &p, &err) != MDF_OK);
	snprintf(want, sizeof(want), "mem_section root 2: reading virtual address 0x%llx: ",
		 (unsigned long long)(UNMAPPED_VA + 2 * 8));
	T_ASSERT(strncmp(err.msg, want, strlen(want)) == 0);

	ki_sparse(&ki, UNMAPPED_VA, 8, 32, 8);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_ASSERT(memmap_page_vaddr(&mm, &E.k.rm, 5 * SEC_PFNS, &v, &p, &err) != MDF_OK);
	snprintf(want, sizeof(want), "mem_section 5: reading virtual address 0x%llx: ",
		 (unsigned long long)(UNMAPPED_VA + 5 * 32 + 8));
	T_ASSERT(strncmp(err.msg, want, strlen(want)) == 0);
}

/* A failed lookup of one section must not change what is cached for
 * another: filter.c carries on after MDF_ERR_NODATA (a mem_section page
 * lost from the dump), and a later pfn of the cached section must still
 * find its struct pages. */
static void t_error_keeps_cache(void)
{
	struct kinfo ki;
	struct memmap mm;
	struct mdf_err err;
	uint64_t v;
	bool p;

	NEED_ENV();
	ki_sparse(&ki, va(ROOTS_PA), NR_ROOTS, 16, 0);
	T_OK(memmap_init(&mm, &ki, PAGE, 256, &err), &err);
	T_LOOKUP(&mm, 5, true, want_va(MAP0_PA, 5));
	T_ASSERT(memmap_page_vaddr(&mm, &E.k.rm, 773 * SEC_PFNS, &v, &p, &err) != MDF_OK);
	T_LOOKUP(&mm, 6, true, want_va(MAP0_PA, 6));
}

int main(void)
{
	struct mdf_err err;

	memset(&err, 0, sizeof(err));
	E.ok = env_open(&err) == MDF_OK;
	if (!E.ok)
		snprintf(E.why, sizeof(E.why), "test machine: %s", err.msg);

	T_RUN(t_model_names);
	T_RUN(t_vmemmap);
	T_RUN(t_flat_and_none);
	T_RUN(t_init_extreme);
	T_RUN(t_init_sparse);
	T_RUN(t_init_errors);
	T_RUN(t_extreme_lookup);
	T_RUN(t_sparse_lookup);
	T_RUN(t_section_cache);
	T_RUN(t_section_online);
	T_RUN(t_read_errors);
	T_RUN(t_error_keeps_cache);

	env_close();
	return t_done();
}
