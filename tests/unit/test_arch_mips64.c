/*
 * tests/unit/test_arch_mips64.c - the architecture layer on 64-bit MIPS.
 *
 * Page tables are built by hand in a fake physical memory (paddr -> 8-byte
 * entry); the read callback logs every address it is asked for, so the
 * tests also prove that translation reads nothing else.  The layouts are
 * Debian bookworm's 6.1 mips64el kernels': 5kc-malta (4 KiB pages, a
 * 2-page PGD) and loongson-3 (16 KiB pages), both CPU_MIPSR2 with RIXI,
 * huge pages and pte_special, the kernel in CKSEG0, the direct map at
 * CAC_BASE 0x9800000000000000 (DMA_NONCOHERENT).
 */
#include <elf.h>

#include "archtest.h"
#include "util.h"

#define CKSEG0 0xffffffff80000000ULL
#define CAC 0x9800000000000000ULL
#define SWAPPER (CKSEG0 + 0xa00000ULL)
#define VMALLOC 0xc000000000000000ULL

/* PAGE_KERNEL of Debian's layout: P W A M, G V D at 8..10, cacheable
 * noncoherent (3) at 11; the pfn from bit 14 (4 KiB) or 16 (16 KiB). */
#define KFLAGS (0xfULL | 0x7ULL << 8 | 3ULL << 11)
#define HUGE (1ULL << 4)

static void ki_mips(struct kinfo *ki, uint64_t page_size)
{
	memset(ki, 0, sizeof(*ki));
	snprintf(ki->osrelease, sizeof(ki->osrelease), "6.1.0-50-5kc-malta");
	SET_U64(ki->page_size, page_size);
	SET_U64(ki->sym.swapper_pg_dir, SWAPPER);
	SET_U64(ki->size.page, 64);
}

/* kexec-tools' PT_LOADs: the image in CKSEG0, RAM at 0xa8... */
static const struct arch_seg_hint mips_segs[] = {
	{ CKSEG0 + 0x100000ULL, 0x100000ULL, 0xd00000ULL },
	{ 0xa800000000000000ULL, 0, 0x100000ULL },
	{ 0xa800000000100000ULL, 0x100000ULL, 0xfefffffULL },
};

static void t_ops_find(void)
{
	const struct arch_ops *ops = arch_ops_find(EM_MIPS);

	T_ASSERT(ops == &arch_mips64_ops);
	T_EQ_STR(ops->name, "mips64");
	T_EQ_U64(arch_word_size(EM_MIPS), 8);
	T_EQ_U64(arch_machine_from_uts("mips64"), EM_MIPS);
}

static void t_init(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_mips(&ki, 4096);
	T_OK(arch_init(&st, EM_MIPS, &ki, mips_segs, ARRAY_SIZE(mips_segs), &err), &err);
	T_EQ_U64(st.page_shift, 12);
	T_EQ_U64(st.levels, 3);
	T_EQ_U64(st.va_bits, 40);
	T_EQ_U64(st.max_physmem_bits, 48);
	T_EQ_U64(st.mips64.pfn_shift, 14);
	T_ASSERT(!st.mips64.pfn_shift_proven);
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, 0xa00000);
	T_ASSERT(st.have_phys_base);
	T_EQ_U64(st.phys_base, 0);
	T_EQ_U64(st.page_offset, CAC);
	T_ASSERT(!st.page_offset_exact);
	T_EQ_U64(st.direct.vaddr, CAC);
	T_EQ_U64(st.direct.size, 0x10000000ULL - 1);

	ki_mips(&ki, 16384);
	T_OK(arch_init(&st, EM_MIPS, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.levels, 3);
	T_EQ_U64(st.va_bits, 47);
	T_EQ_U64(st.mips64.pfn_shift, 16);
	T_EQ_U64(st.direct.size, 1ULL << 48);

	ki_mips(&ki, 65536);
	T_OK(arch_init(&st, EM_MIPS, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.levels, 2);
	T_EQ_U64(st.va_bits, 42);
	T_EQ_U64(st.mips64.pfn_shift, 18);

	/* SECTION_SIZE_BITS and MAX_PHYSMEM_BITS for a note without them */
	ki_mips(&ki, 16384);
	arch_debuginfo_defaults(EM_MIPS, &ki, 0, NULL, 0);
	T_EQ_U64(ki.num.SECTION_SIZE_BITS.v, 28);
	T_EQ_U64(ki.num.MAX_PHYSMEM_BITS.v, 48);
}

static void t_init_errors(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_mips(&ki, 8192);
	T_EQ_U64(arch_init(&st, EM_MIPS, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "mips64: PAGESIZE=8192 in VMCOREINFO, expected 4096, 16384 or 65536");
	ki_mips(&ki, 4096);
	SET_U64(ki.sym.swapper_pg_dir, VMALLOC + 0x4000);
	T_EQ_U64(arch_init(&st, EM_MIPS, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "mips64: SYMBOL(swapper_pg_dir)=0xc000000000004000 is in no unmapped segment");
	/* a 32-bit MIPS kernel (mipsel's ELF32 vmcore): KSEG0 symbols */
	SET_U64(ki.sym.swapper_pg_dir, 0x80a0c000);
	T_EQ_U64(arch_init(&st, EM_MIPS, &ki, NULL, 0, &err), MDF_ERR_NOTSUPP);
	T_MSG(err, "mips64: 32-bit MIPS is not supported (SYMBOL(swapper_pg_dir)=0x80a0c000 is a "
		   "32-bit kernel's address; mips64 kernels only)");
}

/* The unmapped segments translate without a read. */
static void t_unmapped(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	uint64_t pa;

	ki_mips(&ki, 4096);
	T_OK(arch_init(&st, EM_MIPS, &ki, mips_segs, ARRAY_SIZE(mips_segs), &err), &err);
	T_OK(arch_vtop(&st, CKSEG0 + 0x123456, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x123456);
	T_OK(arch_vtop(&st, 0xffffffffa0123456ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x123456);
	T_OK(arch_vtop(&st, CAC + 0x1234567, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x1234567);
	/* kexec-tools' alias, and uncached XKPHYS */
	T_OK(arch_vtop(&st, 0xa800000001234567ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x1234567);
	T_OK(arch_vtop(&st, 0x9000000012345678ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x12345678);
	T_EQ_U64(m.nlog, 0);
	/* past MAX_PHYSMEM_BITS: no address */
	T_EQ_U64(arch_vtop(&st, CAC | 1ULL << 50, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	/* user space, and the modules' CKSSEG */
	T_EQ_U64(arch_vtop(&st, 0x120000000ULL, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "mips64: virtual address 0x120000000 is not a kernel address (user space)");
	T_EQ_U64(arch_vtop(&st, 0xffffffffc0001000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_EQ_U64(m.nlog, 0);
}

/* 4 KiB pages: PGD 1024 entries (39..30), PMD and PTE 512. */
static void t_walk_4k(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;
	uint64_t pa, pmd = 0x1230000ULL, pte = 0x1240000ULL;

	ki_mips(&ki, 4096);
	T_OK(arch_init(&st, EM_MIPS, &ki, mips_segs, ARRAY_SIZE(mips_segs), &err), &err);
	fake_put(&m, 0xa00000, CAC | pmd);
	fake_put(&m, pmd, CAC | pte);
	fake_put(&m, pte + 2 * 8, 0x3456ULL << 14 | KFLAGS);
	T_OK(arch_walk(&st, VMALLOC + 0x2abc, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x3456abcULL);
	T_EQ_U64(w.map_size, 4096);
	T_EQ_U64(w.nsteps, 3);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_STR(w.step[1].level, "PMD");
	T_EQ_STR(w.step[2].level, "PTE");
	T_EQ_U64(w.step[2].entry_paddr, pte + 16);
	T_OK(arch_vtop(&st, VMALLOC + 0x2abc, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x3456abcULL);

	/* PGD index 1023 (va bit 39 and up): KSEG3's fixmap, a CKSEG0 table
	 * (a pmd in the image's bss) */
	fake_put(&m, 0xa00000 + 1023 * 8, CKSEG0 + 0xb00000);
	fake_put(&m, 0xb00000 + 511 * 8, CAC | 0x1250000ULL);
	fake_put(&m, 0x1250000ULL + 0x1de * 8, 0x777ULL << 14 | KFLAGS);
	T_OK(arch_vtop(&st, 0xfffffffffffde123ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x777123ULL);

	/* a huge PMD: 2 MiB */
	fake_put(&m, pmd + 8, 0x2000ULL << 14 | KFLAGS | HUGE);
	T_OK(arch_walk(&st, VMALLOC + 0x212345, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x2012345ULL);
	T_EQ_U64(w.map_size, 2ULL << 20);
	T_EQ_U64(w.nsteps, 2);

	/* not present: an empty pte; a PMD entry that is no table */
	fake_put(&m, pte + 3 * 8, 0);
	T_EQ_U64(arch_walk(&st, VMALLOC + 0x3000, fake_read, &m, &w, &err), MDF_ERR_NODATA);
	T_MSG(err, "mips64: virtual address 0xc000000000003000 not mapped (PTE entry 0x0 at paddr 0x1240018 not present)");
	fake_put(&m, pmd + 16, 0);
	T_EQ_U64(arch_walk(&st, VMALLOC + 0x400000, fake_read, &m, &w, &err), MDF_ERR_NODATA);
	T_MSG(err, "mips64: virtual address 0xc000000000400000 not mapped (PMD entry 0x0 at paddr 0x1230010 is no table's address)");
	/* a table the dump lacks */
	T_EQ_U64(arch_walk(&st, VMALLOC + (1ULL << 30), fake_read, &m, &w, &err), MDF_ERR_NODATA);
}

/* 16 KiB pages: every table 2048 entries, the pfn from bit 16. */
static void t_walk_16k(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;
	uint64_t pmd = 0x2340000ULL, pte = 0x2344000ULL;
	uint64_t va = VMALLOC + (5ULL << 36) + (7ULL << 25) + (9ULL << 14) + 0x1abc;

	ki_mips(&ki, 16384);
	T_OK(arch_init(&st, EM_MIPS, &ki, NULL, 0, &err), &err);
	fake_put(&m, 0xa00000 + 5 * 8, CAC | pmd);
	fake_put(&m, pmd + 7 * 8, CAC | pte);
	fake_put(&m, pte + 9 * 8, 0x1234ULL << 16 | KFLAGS);
	T_OK(arch_walk(&st, va, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, (0x1234ULL << 14) + 0x1abc);
	T_EQ_U64(w.map_size, 16384);
	/* a huge PMD: 32 MiB */
	fake_put(&m, pmd + 8 * 8, 0x4000ULL << 16 | KFLAGS | HUGE);
	T_OK(arch_walk(&st, VMALLOC + (5ULL << 36) + (8ULL << 25) + 0x123456, fake_read, &m, &w,
			&err), &err);
	T_EQ_U64(w.paddr, (0x4000ULL << 14) + 0x123456);
	T_EQ_U64(w.map_size, 32ULL << 20);
}

/* init_mem: CAC_BASE from the PGD's first table, the pte layout from the
 * vmalloc ptes (here an R1 kernel without RIXI: G at 7, the pfn from 13),
 * the empty tables read once. */
static void t_init_mem(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;
	const uint64_t r1 = 0x1fULL | 0x7ULL << 7 | 3ULL << 10; /* P R W A M G V D CCC */
	uint64_t pmd = 0x1230000ULL, pte = 0x1240000ULL;

	ki_mips(&ki, 4096);
	T_OK(arch_init(&st, EM_MIPS, &ki, mips_segs, ARRAY_SIZE(mips_segs), &err), &err);
	fake_put(&m, 0xa00000, 0xa800000000000000ULL | pmd);
	fake_put(&m, pmd, 0xa800000000000000ULL | pte);
	fake_put(&m, pte, 0);
	fake_put(&m, pte + 8, 0);
	fake_put(&m, pte + 16, 0x3456ULL << 13 | r1);
	fake_put(&m, pte + 24, 0x3457ULL << 13 | r1);
	fake_put(&m, pte + 32, 0x9999ULL << 13 | r1);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_ASSERT(st.mips64.pfn_shift_proven);
	T_EQ_U64(st.mips64.pfn_shift, 13);
	T_ASSERT(st.page_offset_exact);
	T_EQ_U64(st.page_offset, 0xa800000000000000ULL);
	T_EQ_U64(st.direct.vaddr, 0xa800000000000000ULL);
	T_OK(arch_walk(&st, VMALLOC + 0x3123, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x3457123ULL);

	/* nothing mapped: the defaults stay */
	memset(&m, 0, sizeof(m));
	T_OK(arch_init(&st, EM_MIPS, &ki, mips_segs, ARRAY_SIZE(mips_segs), &err), &err);
	fake_put(&m, 0xa00000, CKSEG0 + 0xb00000);  /* invalid_pmd_table */
	fake_put(&m, 0xa00008, CKSEG0 + 0xb00000);
	fake_put(&m, 0xb00000, CKSEG0 + 0xb01000);  /* invalid_pte_table */
	fake_put(&m, 0xb00008, CKSEG0 + 0xb01000);
	fake_put(&m, 0xb01000, 0);
	fake_put(&m, 0xb01008, 0);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_ASSERT(!st.mips64.pfn_shift_proven);
	T_EQ_U64(st.mips64.pfn_shift, 14);
	T_ASSERT(!st.page_offset_exact);
	T_EQ_U64(st.page_offset, CAC);
	/* each of the two empty tables was read once, entry by entry until
	 * the fake memory ran out: pgd 0, 1, 2, pmd 0..2 once, pte 0..2 once;
	 * then the search for the empty tables, pgd 0, 1, 2 (a PGD that
	 * cannot be read whole names none) */
	T_EQ_U64(m.nlog, 12);
	T_ASSERT(!st.empty.have);
}

/* ---- --keep-task: a process's tables (loongson-3: 16 KiB pages, 2048
 * entries a table, the pfn from bit 16) ---- */

#define INV_PMD 0xb00000ULL    /* invalid_pmd_table, in the image */
#define INV_PTE 0xb04000ULL    /* invalid_pte_table */
#define U_ROOT 0x2000000ULL    /* the process's PGD */
#define U_PMD 0x2004000ULL
#define U_PTE 0x2008000ULL

struct mtables {
	bool no_empty;         /* swapper_pg_dir of no shared empty table */
	unsigned nreads;
};

/* Every table whole: swapper_pg_dir's entries all point at
 * invalid_pmd_table (or, no_empty, each at a table of its own), whose
 * entries point at invalid_pte_table (zeros); the process's root has one
 * PMD table, which has a PTE table and a huge page. */
static enum mdf_status mtbl_read(void *arg, uint64_t paddr, unsigned size, uint64_t *v,
				 struct mdf_err *err)
{
	struct mtables *t = arg;
	uint64_t i = (paddr & 0x3fff) / 8;

	(void)size;
	t->nreads++;
	if (paddr - 0xa00000ULL < 0x4000)
		*v = t->no_empty ? CKSEG0 + 0x3000000ULL + i * 0x4000 : CKSEG0 + INV_PMD;
	else if (paddr - INV_PMD < 0x4000)
		*v = CKSEG0 + INV_PTE;
	else if (paddr - INV_PTE < 0x4000)
		*v = 0;
	else if (paddr - U_ROOT < 0x4000)
		*v = i == 0 ? CAC | U_PMD : CKSEG0 + INV_PMD;
	else if (paddr - U_PMD < 0x4000)
		*v = i == 0 ? CAC | U_PTE : i == 1 ? 0x1000ULL << 16 | KFLAGS | HUGE
						 : CKSEG0 + INV_PTE;
	else if (paddr - U_PTE < 0x4000)
		/* 1: a page; 2: PROT_NONE (present, not valid); 3: a swap
		 * entry */
		*v = i == 1 ? 0x80ULL << 16 | KFLAGS : i == 2 ? 0x81ULL << 16 | 1
						 : i == 3 ? 0x5500 : 0;
	else
		return mdf_err_set(err, MDF_ERR_NODATA, "not in memory");
	return MDF_OK;
}

static void t_user_leaves(void)
{
	static const uint64_t want[][3] = {
		{ 0, U_ROOT, 0 }, { 0, U_PMD, 0 }, { 0, U_PTE, 0 },
		{ 0x4000, 0x200000, 16384 }, { 0x8000, 0x204000, 16384 },
		{ 32ULL << 20, 0x4000000, 32ULL << 20 },
	};
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct mtables t = { 0 };
	struct leaf_log l = { 0 };

	ki_mips(&ki, 16384);
	T_OK(arch_init(&st, EM_MIPS, &ki, mips_segs, ARRAY_SIZE(mips_segs), &err), &err);
	T_OK(arch_init_mem(&st, mtbl_read, &t, &err), &err);
	T_ASSERT(st.empty.have);
	T_EQ_U64(st.empty.pmd_pa, INV_PMD);
	T_EQ_U64(st.empty.pte_pa, INV_PTE);
	/* the three tables of the process, each read once; the empty
	 * tables never */
	t.nreads = 0;
	T_OK(arch_user_leaves(&st, U_ROOT, mtbl_read, &t, log_leaf, &l, &err), &err);
	T_LEAVES(l, want);
	T_EQ_U64(t.nreads, 3 * 2048);

	/* no shared empty table in swapper_pg_dir: not walked, and why */
	t.no_empty = true;
	T_OK(arch_init(&st, EM_MIPS, &ki, mips_segs, ARRAY_SIZE(mips_segs), &err), &err);
	T_OK(arch_init_mem(&st, mtbl_read, &t, &err), &err);
	T_ASSERT(!st.empty.have);
	T_EQ_U64(arch_user_leaves(&st, U_ROOT, mtbl_read, &t, log_leaf, &l, &err),
		 MDF_ERR_NOTSUPP);
	T_MSG(err, "the user page tables of mips64: the empty tables (invalid_pmd_table, "
	      "invalid_pte_table) were not found in swapper_pg_dir");
}

int main(void)
{
	T_RUN(t_ops_find);
	T_RUN(t_init);
	T_RUN(t_init_errors);
	T_RUN(t_unmapped);
	T_RUN(t_walk_4k);
	T_RUN(t_walk_16k);
	T_RUN(t_init_mem);
	T_RUN(t_user_leaves);
	return t_done();
}
