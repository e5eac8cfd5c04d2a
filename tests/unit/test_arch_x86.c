/*
 * tests/unit/test_arch_x86.c - the architecture layer on 32-bit x86 (i386),
 * without PAE (2 levels of 4-byte entries) and with it (3 levels of 8-byte
 * entries).
 *
 * Page tables are built by hand in a fake physical memory (paddr -> entry,
 * read 4 or 8 bytes wide); the read callback logs every address it is asked
 * for.  The layout is a Debian 686 kernel's: PAGE_OFFSET 0xC0000000 (the
 * 2G split for the proof of PAGE_OFFSET), the image at 16 MiB,
 * swapper_pg_dir in it, 32 MiB of lowmem, and the PT_LOADs kexec-tools
 * writes (lowmem at va = pa + 0xC0000000 whatever the split, highmem at
 * p_vaddr -1).
 */
#include <elf.h>

#include "archtest.h"
#include "util.h"

#define PO 0xC0000000ULL
#define SWAPPER_VA 0xC1A00000ULL
#define SWAPPER_PA 0x01A00000ULL
#define LOWMEM (32ULL << 20)

/* entry bits: present, rw, accessed, dirty, PSE; PAE's NX */
#define P 0x1ULL
#define TBL 0x67ULL
#define PG 0x63ULL
#define LARGE 0xe3ULL
#define NX (1ULL << 63)

static void ki_686(struct kinfo *ki, bool pae, uint64_t swapper_va)
{
	memset(ki, 0, sizeof(*ki));
	snprintf(ki->osrelease, sizeof(ki->osrelease), pae ? "6.1.0-44-686-pae" : "6.1.0-44-686");
	SET_U64(ki->page_size, 4096);
	SET_U64(ki->sym.swapper_pg_dir, swapper_va);
	SET_U64(ki->sym._stext, swapper_va - SWAPPER_PA + 0x1000000ULL);
	ki->config.X86_PAE = pae;
}

/* kexec-tools' PT_LOADs of a 32 MiB machine with 64 MiB of highmem at
 * 4 GiB (only a PAE kernel has it), ELF32's -1 as p_vaddr. */
static const struct arch_seg_hint segs_686[] = {
	{ 0xC0001000ULL, 0x1000ULL, 0x9e000ULL },
	{ 0xC0100000ULL, 0x100000ULL, LOWMEM - 0x100000ULL },
	{ 0xffffffffULL, 0x100000000ULL, 64ULL << 20 },
};

/* ---- choosing the architecture ---- */

static void t_ops_find(void)
{
	const struct arch_ops *ops = arch_ops_find(EM_386);

	T_ASSERT(ops == &arch_x86_ops);
	T_EQ_STR(ops->name, "x86");
	T_EQ_U64(ops->e_machine, 3);
	T_EQ_STR(ops->uts_machine, "i686");
	T_EQ_U64(arch_machine_from_uts("i686"), EM_386);
	T_EQ_U64(arch_machine_from_uts("i386"), EM_386);
	T_EQ_U64(arch_machine_from_uts("i586"), EM_386);
	T_EQ_U64(arch_machine_from_uts("i786"), 0);
	T_EQ_U64(arch_machine_from_uts("i68"), 0);
	T_EQ_U64(arch_machine_from_uts("x86_64"), EM_X86_64);
}

/* ---- hand-built tables ---- */

/* Non-PAE, PAGE_OFFSET @po: the PGD at swapper's pa maps lowmem by 4 MiB
 * PSE entries, except the first 4 MiB through a PTE table at 0x01B00000
 * (its first page only); a vmalloc page at 0xF8001234 through the table
 * at 0x01C00000. */
static void tables_nopae(struct fake_mem *m, uint64_t po)
{
	uint64_t pgd = SWAPPER_PA;
	uint64_t first = po >> 22;

	memset(m, 0, sizeof(*m));
	fake_put(m, pgd + first * 4, 0x01B00000ULL | TBL);
	fake_put(m, 0x01B00000ULL, 0x0 | PG);
	for (uint64_t i = 1; i < LOWMEM >> 22; i++)
		fake_put(m, pgd + (first + i) * 4, (i << 22) | LARGE);
	fake_put(m, pgd + 0x3E0 * 4, 0x01C00000ULL | TBL);
	fake_put(m, 0x01C00000ULL + 1 * 4, 0x03FF0000ULL | PG);
	/* a present PTE with the PAT bit (7), and one not present */
	fake_put(m, 0x01C00000ULL + 2 * 4, 0x03FF1000ULL | 0x80 | PG);
	fake_put(m, 0x01C00000ULL + 3 * 4, 0x03FF2000ULL);
	fake_put(m, pgd + 0x20 * 4, 0);
}

/* PAE, PAGE_OFFSET 0xC0000000: the PDPT at swapper's pa, its entry 3 a
 * PMD page at 0x01B00000 mapping lowmem by 2 MiB, except the first 2 MiB
 * through a PTE table at 0x01C00000; a vmalloc page at 0xF8001234, NX,
 * at 0x123456000 (above 4 GiB) through the table at 0x01D00000. */
static void tables_pae(struct fake_mem *m)
{
	uint64_t pmd = 0x01B00000ULL;

	memset(m, 0, sizeof(*m));
	fake_put(m, SWAPPER_PA + 3 * 8, pmd | P);
	fake_put(m, pmd, 0x01C00000ULL | TBL);
	fake_put(m, 0x01C00000ULL, 0x0 | PG);
	for (uint64_t i = 1; i < LOWMEM >> 21; i++)
		fake_put(m, pmd + i * 8, (i << 21) | LARGE);
	fake_put(m, pmd + 0x1C0 * 8, 0x01D00000ULL | TBL);
	fake_put(m, 0x01D00000ULL + 1 * 8, NX | 0x123456000ULL | PG);
	fake_put(m, SWAPPER_PA, 0);
	fake_put(m, pmd + 0x1C1 * 8, 0);
}

/* ---- init ---- */

static void t_init_nopae(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	uint64_t pa;

	ki_686(&ki, false, SWAPPER_VA);
	mdf_err_clear(&err);
	T_OK(arch_init(&st, EM_386, &ki, segs_686, ARRAY_SIZE(segs_686), &err), &err);
	T_EQ_U64(st.page_size, 4096);
	T_EQ_U64(st.levels, 2);
	T_EQ_U64(st.va_bits, 32);
	T_EQ_U64(st.max_physmem_bits, 32);
	T_EQ_U64(st.page_offset, PO);
	T_ASSERT(!st.page_offset_exact);      /* init_mem proves it */
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
	T_ASSERT(!st.text.valid);
	T_ASSERT(st.direct.valid);
	T_EQ_U64(st.direct.vaddr, PO);
	T_EQ_U64(st.direct.size, LOWMEM);     /* where the lowmem PT_LOADs end */
	T_EQ_U64(st.direct.paddr, 0);
	/* the fast path: lowmem without a read, nothing past it */
	T_ASSERT(arch_kvtop_fast(&st, 0xC0123456ULL, &pa));
	T_EQ_U64(pa, 0x123456ULL);
	T_ASSERT(!arch_kvtop_fast(&st, PO + LOWMEM, &pa));
	T_ASSERT(!arch_kvtop_fast(&st, 0xBFFFF000ULL, &pa));
}

static void t_init_pae(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_686(&ki, true, SWAPPER_VA);
	mdf_err_clear(&err);
	T_OK(arch_init(&st, EM_386, &ki, segs_686, ARRAY_SIZE(segs_686), &err), &err);
	T_EQ_U64(st.levels, 3);
	T_EQ_U64(st.max_physmem_bits, 36);
	T_EQ_U64(st.page_offset, PO);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
	T_EQ_U64(st.direct.size, LOWMEM);
	/* without PT_LOADs (a kdump-compressed input): the default split,
	 * lowmem at most MAXMEM (896 MiB) */
	T_OK(arch_init(&st, EM_386, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.page_offset, PO);
	T_EQ_U64(st.direct.size, 896ULL << 20);
	/* SECTION_SIZE_BITS for a note without it */
	arch_debuginfo_defaults(EM_386, &ki, 0, NULL, 0);
	T_EQ_U64(ki.num.SECTION_SIZE_BITS.v, 29);
	ki.config.X86_PAE = false;
	ki.num.SECTION_SIZE_BITS.set = false;
	arch_debuginfo_defaults(EM_386, &ki, 0, NULL, 0);
	T_EQ_U64(ki.num.SECTION_SIZE_BITS.v, 26);
}

static void t_init_errors(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_686(&ki, false, SWAPPER_VA);
	SET_U64(ki.page_size, 8192);
	mdf_err_clear(&err);
	T_EQ_U64(arch_init(&st, EM_386, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "x86: PAGESIZE=8192 in VMCOREINFO, expected 4096");

	ki_686(&ki, false, SWAPPER_VA);
	SET_U64(ki.num.MAX_PHYSMEM_BITS, 36);
	T_EQ_U64(arch_init(&st, EM_386, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "x86: NUMBER(MAX_PHYSMEM_BITS)=36 without CONFIG_X86_PAE (32-bit page tables reach 4 GiB)");

	ki_686(&ki, true, 0xffffffffc1a00000ULL);
	T_EQ_U64(arch_init(&st, EM_386, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "x86: SYMBOL(swapper_pg_dir)=0xffffffffc1a00000 is not a 32-bit address");

	/* no swapper_pg_dir: init works, a walk says what is missing */
	ki_686(&ki, true, SWAPPER_VA);
	ki.sym.swapper_pg_dir.set = false;
	T_OK(arch_init(&st, EM_386, &ki, NULL, 0, &err), &err);
	T_ASSERT(!st.have_pgd);
	{
		struct fake_mem m = { 0 };
		struct arch_walk w;

		T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
		T_EQ_U64(arch_walk(&st, 0xF8000000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);
		T_MSG(err, "x86: virtual address 0xf8000000: no page-table root (VMCOREINFO needs SYMBOL(swapper_pg_dir) in lowmem)");
		T_EQ_U64(m.nlog, 0);
	}
}

/* ---- walks ---- */

static void t_walk_nopae(void)
{
	struct arch_state st;
	struct arch_walk w;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m;
	uint64_t pa;

	ki_686(&ki, false, SWAPPER_VA);
	mdf_err_clear(&err);
	T_OK(arch_init(&st, EM_386, &ki, segs_686, ARRAY_SIZE(segs_686), &err), &err);
	tables_nopae(&m, PO);

	/* a 4 KiB page: PGD then PTE, 4-byte entries */
	T_OK(arch_walk(&st, 0xF8001234ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x03FF0234ULL);
	T_EQ_U64(w.map_size, 4096);
	T_EQ_U64(w.nsteps, 2);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_U64(w.step[0].entry_paddr, SWAPPER_PA + 0x3E0 * 4);
	T_EQ_U64(w.step[0].entry, 0x01C00000ULL | TBL);
	T_EQ_STR(w.step[1].level, "PTE");
	T_EQ_U64(w.step[1].entry_paddr, 0x01C00004ULL);
	/* bit 7 of a PTE is PAT, not a size */
	T_OK(arch_walk(&st, 0xF8002010ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x03FF1010ULL);
	T_EQ_U64(w.map_size, 4096);
	/* a 4 MiB PSE leaf in the PGD */
	T_OK(arch_walk(&st, SWAPPER_VA + 0x567ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, SWAPPER_PA + 0x567ULL);
	T_EQ_U64(w.map_size, 4ULL << 20);
	T_EQ_U64(w.nsteps, 1);
	/* not present: a PTE, then a PGD entry */
	T_EQ_U64(arch_walk(&st, 0xF8003000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);
	T_MSG(err, "x86: virtual address 0xf8003000 not mapped (PTE entry 0x3ff2000 at paddr 0x1c0000c not present)");
	T_EQ_U64(arch_vtop(&st, 0x08048000ULL, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "x86: virtual address 0x8048000 not mapped (PGD entry 0x0 at paddr 0x1a00080 not present)");
	/* a table the dump lacks */
	fake_put(&m, SWAPPER_PA + 0x3E1 * 4, 0x05000000ULL | TBL);
	T_EQ_U64(arch_walk(&st, 0xF8400000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);
	T_MSG(err, "x86: virtual address 0xf8400000: PTE entry at paddr 0x5000000: fake: paddr 0x5000000 not in memory");
	/* no 64-bit addresses */
	T_EQ_U64(arch_walk(&st, 0x100000000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);
	T_MSG(err, "x86: virtual address 0x100000000 is not a 32-bit address");
	/* vtop of lowmem reads nothing */
	m.nlog = 0;
	T_OK(arch_vtop(&st, 0xC1234567ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x1234567ULL);
	T_EQ_U64(m.nlog, 0);
}

static void t_walk_pae(void)
{
	struct arch_state st;
	struct arch_walk w;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m;

	ki_686(&ki, true, SWAPPER_VA);
	mdf_err_clear(&err);
	T_OK(arch_init(&st, EM_386, &ki, segs_686, ARRAY_SIZE(segs_686), &err), &err);
	tables_pae(&m);

	/* PDPT, PMD, PTE; NX and the bits above 4 GiB */
	T_OK(arch_walk(&st, 0xF8001234ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x123456234ULL);
	T_EQ_U64(w.map_size, 4096);
	T_EQ_U64(w.nsteps, 3);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_U64(w.step[0].entry_paddr, SWAPPER_PA + 3 * 8);
	T_EQ_STR(w.step[1].level, "PMD");
	T_EQ_U64(w.step[1].entry_paddr, 0x01B00000ULL + 0x1C0 * 8);
	T_EQ_STR(w.step[2].level, "PTE");
	T_EQ_U64(w.step[2].entry, NX | 0x123456000ULL | PG);
	/* a 2 MiB PSE leaf in the PMD */
	T_OK(arch_walk(&st, SWAPPER_VA + 0x1567ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, SWAPPER_PA + 0x1567ULL);
	T_EQ_U64(w.map_size, 2ULL << 20);
	T_EQ_U64(w.nsteps, 2);
	/* the first 2 MiB through 4 KiB pages */
	T_OK(arch_walk(&st, PO + 0xabcULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0xabcULL);
	T_EQ_U64(w.nsteps, 3);
	/* a PDPT entry not present (user space of a kernel thread) */
	T_EQ_U64(arch_walk(&st, 0x08048000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);
	T_MSG(err, "x86: virtual address 0x8048000 not mapped (PGD entry 0x0 at paddr 0x1a00000 not present)");
	/* a PMD entry not present */
	T_EQ_U64(arch_walk(&st, 0xF8200000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);
	T_MSG(err, "x86: virtual address 0xf8200000 not mapped (PMD entry 0x0 at paddr 0x1b00e08 not present)");
}

/* ---- init_mem: PAGE_OFFSET proven, lowmem measured ---- */

static void t_init_mem(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m;

	/* non-PAE, 3G split: the guess proven, lowmem 32 MiB */
	ki_686(&ki, false, SWAPPER_VA);
	mdf_err_clear(&err);
	T_OK(arch_init(&st, EM_386, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.direct.size, 896ULL << 20);
	tables_nopae(&m, PO);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_ASSERT(st.page_offset_exact);
	T_EQ_U64(st.page_offset, PO);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
	T_ASSERT(st.direct.valid);
	T_EQ_U64(st.direct.size, LOWMEM);

	/* PAE the same */
	ki_686(&ki, true, SWAPPER_VA);
	T_OK(arch_init(&st, EM_386, &ki, segs_686, ARRAY_SIZE(segs_686), &err), &err);
	tables_pae(&m);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_ASSERT(st.page_offset_exact);
	T_EQ_U64(st.direct.size, LOWMEM);

	/* a 2G split (PAGE_OFFSET 0x80000000) under kexec-tools' PT_LOADs,
	 * which say 0xC0000000: init guesses that and finds no root; init_mem
	 * finds the split that maps swapper_pg_dir to itself */
	ki_686(&ki, false, SWAPPER_VA - PO + 0x80000000ULL);
	T_OK(arch_init(&st, EM_386, &ki, segs_686, ARRAY_SIZE(segs_686), &err), &err);
	T_EQ_U64(st.page_offset, PO);
	T_ASSERT(!st.have_pgd);
	tables_nopae(&m, 0x80000000ULL);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_ASSERT(st.page_offset_exact);
	T_EQ_U64(st.page_offset, 0x80000000ULL);
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
	T_EQ_U64(st.direct.vaddr, 0x80000000ULL);
	T_EQ_U64(st.direct.size, LOWMEM);

	/* tables that prove nothing (the root page missing): init's guess
	 * stays, unproven, and no error */
	ki_686(&ki, false, SWAPPER_VA);
	T_OK(arch_init(&st, EM_386, &ki, segs_686, ARRAY_SIZE(segs_686), &err), &err);
	memset(&m, 0, sizeof(m));
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_ASSERT(!st.page_offset_exact);
	T_EQ_U64(st.page_offset, PO);
	T_EQ_U64(st.direct.size, LOWMEM);
	T_ASSERT(st.have_pgd);
}

/* ---- --keep-task: a user address space ---- */

static void t_user_leaves(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m;
	struct leaf_log log = { 0 };
	const uint64_t root = 0x02000000ULL;

	/* non-PAE: a 4 KiB page at 0x08048000, a 4 MiB page at 0x40000000;
	 * kernel entries (from PAGE_OFFSET up) are not user space */
	ki_686(&ki, false, SWAPPER_VA);
	mdf_err_clear(&err);
	T_OK(arch_init(&st, EM_386, &ki, segs_686, ARRAY_SIZE(segs_686), &err), &err);
	memset(&m, 0, sizeof(m));
	fake_put(&m, root + (0x08048000ULL >> 22) * 4, 0x02001000ULL | TBL);
	fake_put(&m, 0x02001000ULL + ((0x08048000ULL >> 12) & 0x3ff) * 4, 0x03000000ULL | PG);
	/* PROT_NONE (present clear, _PAGE_PROTNONE set: not inverted here) */
	fake_put(&m, 0x02001000ULL + ((0x08049000ULL >> 12) & 0x3ff) * 4, 0x03001164ULL);
	fake_put(&m, 0x02001000ULL + ((0x0804a000ULL >> 12) & 0x3ff) * 4, 0x3a0c00ULL); /* swap */
	fake_put(&m, root + (0x40000000ULL >> 22) * 4, 0x04000000ULL | LARGE);
	fake_put(&m, root + (PO >> 22) * 4, 0x01B00000ULL | TBL);
	T_OK(arch_user_leaves(&st, root, fake_read, &m, log_leaf, &log, &err), &err);
	{
		const uint64_t want[][3] = {
			{ 0, root, 0 },
			{ 0, 0x02001000ULL, 0 },
			{ 0x08048000ULL, 0x03000000ULL, 4096 },
			{ 0x08049000ULL, 0x03001000ULL, 4096 },
			{ 0x40000000ULL, 0x04000000ULL, 4ULL << 20 },
		};

		T_LEAVES(log, want);
	}

	/* PAE: a 32-byte aligned PDPT, a 2 MiB page and a 4 KiB NX page */
	ki_686(&ki, true, SWAPPER_VA);
	T_OK(arch_init(&st, EM_386, &ki, segs_686, ARRAY_SIZE(segs_686), &err), &err);
	memset(&m, 0, sizeof(m));
	memset(&log, 0, sizeof(log));
	fake_put(&m, root + 0x20, 0x02001000ULL | P);
	fake_put(&m, 0x02001000ULL + 0x40 * 8, 0x02002000ULL | TBL);
	fake_put(&m, 0x02002000ULL + 0x48 * 8, NX | 0x103000000ULL | PG);
	/* PROT_NONE with its pfn inverted (L1TF), and a swap entry */
	fake_put(&m, 0x02002000ULL + 0x49 * 8, (~0x103001000ULL & 0x000ffffffffff000ULL) | 0x164);
	fake_put(&m, 0x02002000ULL + 0x4a * 8, 0x3a0c00ULL);
	fake_put(&m, 0x02001000ULL + 0x100 * 8, 0x04000000ULL | LARGE);
	fake_put(&m, root + 0x20 + 3 * 8, 0x01B00000ULL | P); /* the kernel's */
	T_OK(arch_user_leaves(&st, root + 0x20, fake_read, &m, log_leaf, &log, &err), &err);
	{
		const uint64_t want[][3] = {
			{ 0, root + 0x20, 0 },
			{ 0, 0x02001000ULL, 0 },
			{ 0, 0x02002000ULL, 0 },
			{ 0x08048000ULL, 0x103000000ULL, 4096 },
			{ 0x08049000ULL, 0x103001000ULL, 4096 },
			{ 0x20000000ULL, 0x04000000ULL, 2ULL << 20 },
		};

		T_LEAVES(log, want);
	}
}

int main(void)
{
	T_RUN(t_ops_find);
	T_RUN(t_init_nopae);
	T_RUN(t_init_pae);
	T_RUN(t_init_errors);
	T_RUN(t_walk_nopae);
	T_RUN(t_walk_pae);
	T_RUN(t_init_mem);
	T_RUN(t_user_leaves);
	return t_done();
}
