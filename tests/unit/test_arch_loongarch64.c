/*
 * tests/unit/test_arch_loongarch64.c - the architecture layer on 64-bit
 * LoongArch.
 *
 * The addresses are those of Debian's loong64 kernel 7.2.13+deb14-loong64
 * (System.map: swapper_pg_dir 0x9000000001b20000, invalid_pte_table
 * 0x9000000001b24000, invalid_pmd_table 0x9000000001b28000, _text
 * 0x9000000000200000), 16 KiB pages and 3 levels, on a machine whose
 * cpu_vabits is 48 (vm_map_base 0xffff000000000000: modules at
 * 0xffff000002008000, vmalloc from 0xffff000012008000).  Page tables are
 * built by hand in a fake physical memory; the read callback logs every
 * address it is asked for.
 */
#include <elf.h>

#include "archtest.h"
#include "util.h"

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif

#define DMW1 0x9000000000000000ULL
#define SWAPPER (DMW1 + 0x1b20000ULL)
#define INV_PTE 0x1b24000ULL
#define INV_PMD 0x1b28000ULL
#define PMD_TBL 0x4000000ULL
#define PTE_TBL 0x4004000ULL
#define VMALLOC 0xffff000012008000ULL
/* PAGE_KERNEL: PRESENT VALID DIRTY WRITE GLOBAL PLV0 CC, and MODIFIED */
#define KPROT 0x3c3ULL

static void ki_la(struct kinfo *ki)
{
	memset(ki, 0, sizeof(*ki));
	snprintf(ki->osrelease, sizeof(ki->osrelease), "7.2.13+deb14-loong64");
	SET_U64(ki->page_size, 16384);
	SET_U64(ki->num.MAX_PHYSMEM_BITS, 48);
	SET_U64(ki->sym.swapper_pg_dir, SWAPPER);
	SET_U64(ki->sym._stext, DMW1 + 0x220000ULL);
}

/* kexec-tools' PT_LOADs: the image (_text, "Kernel code"), then RAM. */
static const struct arch_seg_hint la_segs[] = {
	{ DMW1 + 0x200000ULL, 0x200000ULL, 0x1a00000ULL },
	{ DMW1, 0, 0x10000000ULL },
	{ DMW1 + 0x90000000ULL, 0x90000000ULL, 0x30000000ULL },
};

static void t_ops_find(void)
{
	const struct arch_ops *ops = arch_ops_find(EM_LOONGARCH);

	T_ASSERT(ops == &arch_loongarch64_ops);
	T_EQ_STR(ops->name, "loongarch64");
	T_EQ_U64(arch_word_size(EM_LOONGARCH), 8);
	T_EQ_U64(arch_machine_from_uts("loongarch64"), EM_LOONGARCH);
}

static void t_init(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	uint64_t pa;

	ki_la(&ki);
	T_OK(arch_init(&st, EM_LOONGARCH, &ki, la_segs, ARRAY_SIZE(la_segs), &err), &err);
	T_EQ_U64(st.page_size, 16384);
	T_EQ_U64(st.page_shift, 14);
	T_EQ_U64(st.levels, 3);
	T_EQ_U64(st.va_bits, 47);
	T_EQ_U64(st.max_physmem_bits, 48);
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, 0x1b20000ULL);
	T_EQ_U64(st.page_offset, DMW1);
	T_ASSERT(st.page_offset_exact);
	T_ASSERT(!st.have_phys_base);
	/* the image's window, and the whole cached window */
	T_ASSERT(st.text.valid);
	T_EQ_U64(st.text.vaddr, DMW1 + 0x200000ULL);
	T_ASSERT(arch_kvtop_fast(&st, DMW1 + 0x1234, &pa));
	T_EQ_U64(pa, 0x1234);
	T_ASSERT(arch_kvtop_fast(&st, DMW1 + 0xffffffffffffULL, &pa));
	T_EQ_U64(pa, 0xffffffffffffULL);
	T_ASSERT(!arch_kvtop_fast(&st, VMALLOC, &pa));
	T_ASSERT(!arch_kvtop_fast(&st, 0x8000000000001000ULL, &pa));

	/* No PT_LOAD (a kdump-compressed input): the window all the same,
	 * not yet proven; no image segment. */
	T_OK(arch_init(&st, EM_LOONGARCH, &ki, NULL, 0, &err), &err);
	T_ASSERT(st.direct.valid && !st.page_offset_exact && !st.text.valid);
	/* PT_LOADs elsewhere prove nothing, and move nothing */
	{
		struct arch_seg_hint odd[] = { { 0xffff800000000000ULL, 0, 0x1000000ULL } };

		T_OK(arch_init(&st, EM_LOONGARCH, &ki, odd, 1, &err), &err);
		T_ASSERT(!st.page_offset_exact);
		T_ASSERT(arch_kvtop_fast(&st, DMW1 + 0x5000, &pa));
		T_EQ_U64(pa, 0x5000);
	}
	/* 4 KiB and 64 KiB kernels: 3 levels of 9 or 13 bits */
	SET_U64(ki.page_size, 4096);
	T_OK(arch_init(&st, EM_LOONGARCH, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.va_bits, 39);
	SET_U64(ki.page_size, 65536);
	T_OK(arch_init(&st, EM_LOONGARCH, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.va_bits, 55);
}

static void t_init_errors(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_la(&ki);
	SET_U64(ki.page_size, 8192);
	T_EQ_U64(arch_init(&st, EM_LOONGARCH, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "loongarch64: PAGESIZE=8192 in VMCOREINFO, expected 4096, 16384 or 65536");
	ki_la(&ki);
	SET_U64(ki.sym.swapper_pg_dir, 0xffff000000004000ULL);
	T_EQ_U64(arch_init(&st, EM_LOONGARCH, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "loongarch64: SYMBOL(swapper_pg_dir)=0xffff000000004000 is not a page of "
	      "the cached direct map window 0x9000000000000000");
	ki_la(&ki);
	SET_U64(ki.num.MAX_PHYSMEM_BITS, 53);
	T_EQ_U64(arch_init(&st, EM_LOONGARCH, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "loongarch64: NUMBER(MAX_PHYSMEM_BITS)=53 out of range 32..52");
}

/* swapper_pg_dir's PGD 0 -> PMD_TBL; PMD 9 -> PTE_TBL; PTE 2 -> a page;
 * PMD 10 a huge 32 MiB leaf.  Every other entry points at the empty
 * tables, as pgd_init() and pmd_init() fill them. */
static void la_tables(struct fake_mem *m)
{
	memset(m, 0, sizeof(*m));
	fake_put(m, 0x1b20000ULL, DMW1 + PMD_TBL);
	fake_put(m, 0x1b20000ULL + 8, DMW1 + INV_PMD);
	fake_put(m, PMD_TBL + 9 * 8, DMW1 + PTE_TBL);
	fake_put(m, PMD_TBL + 10 * 8, 0x60000000ULL | KPROT | (1ULL << 6) | (1ULL << 12));
	fake_put(m, PMD_TBL + 11 * 8, DMW1 + INV_PTE);
	fake_put(m, PTE_TBL + 2 * 8, 0x8abc000ULL | KPROT);
	fake_put(m, PTE_TBL + 3 * 8, 0x8ac0000ULL | KPROT | (1ULL << 62) | (1ULL << 61));
	fake_put(m, PTE_TBL + 4 * 8, 0x40); /* pte_clear() of a global pair */
	fake_put(m, INV_PTE, 0);
}

static void t_walk(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m;
	struct arch_walk w;
	uint64_t pa;

	ki_la(&ki);
	T_OK(arch_init(&st, EM_LOONGARCH, &ki, NULL, 0, &err), &err);
	la_tables(&m);
	/* va 0xffff000012008000 + 0x1234: PGD 0, PMD 9, PTE 2 */
	T_OK(arch_walk(&st, VMALLOC + 0x1234, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x8abd234ULL);
	T_EQ_U64(w.map_size, 16384);
	T_EQ_U64(w.nsteps, 3);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_STR(w.step[1].level, "PMD");
	T_EQ_STR(w.step[2].level, "PTE");
	T_EQ_U64(m.log[0], 0x1b20000ULL);
	T_EQ_U64(m.log[1], PMD_TBL + 9 * 8);
	T_EQ_U64(m.log[2], PTE_TBL + 2 * 8);
	/* NO_READ / NO_EXEC (bits 61, 62) are no address bits */
	T_OK(arch_vtop(&st, VMALLOC + 0x4010, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x8ac0010ULL);
	/* a huge PMD: 32 MiB; HGLOBAL (bit 12) is no address bit */
	T_OK(arch_walk(&st, 0xffff000014000000ULL + 0x123456, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x60123456ULL);
	T_EQ_U64(w.map_size, 32ULL << 20);
	T_EQ_U64(w.nsteps, 2);
	/* a PTE with only _PAGE_GLOBAL: not present */
	T_EQ_U64(arch_vtop(&st, VMALLOC + 0x8000, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "loongarch64: virtual address 0xffff000012010000 not mapped "
	      "(PTE entry 0x40 at paddr 0x4004020 not present)");
	/* an empty PMD: invalid_pte_table's zero entries */
	T_EQ_U64(arch_vtop(&st, 0xffff000016000000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "loongarch64: virtual address 0xffff000016000000 not mapped "
	      "(PTE entry 0x0 at paddr 0x1b24000 not present)");
	/* an entry that is no pointer */
	fake_put(&m, PMD_TBL + 12 * 8, 0x1234);
	T_EQ_U64(arch_vtop(&st, 0xffff000018000000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "loongarch64: virtual address 0xffff000018000000 not mapped "
	      "(PMD entry 0x1234 at paddr 0x4000060 is no table pointer)");
	/* unreadable */
	T_EQ_U64(arch_vtop(&st, 0xffff00001a000000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "loongarch64: virtual address 0xffff00001a000000: PMD entry at paddr "
	      "0x4000068: fake: paddr 0x4000068 not in memory");
	/* the uncached and write-combining windows: no table read */
	m.nlog = 0;
	T_OK(arch_vtop(&st, 0x8000000000001008ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x1008);
	T_OK(arch_vtop(&st, 0xa0000000fe000000ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0xfe000000ULL);
	/* a user address: not swapper_pg_dir's */
	T_EQ_U64(arch_vtop(&st, 0x120000000ULL, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "loongarch64: virtual address 0x120000000 is neither in a direct map window "
	      "nor a kernel address (XKVRANGE 0xc000000000000000 up)");
	T_EQ_U64(m.nlog, 0);

	/* no root */
	ki.sym.swapper_pg_dir.set = false;
	T_OK(arch_init(&st, EM_LOONGARCH, &ki, NULL, 0, &err), &err);
	T_EQ_U64(arch_vtop(&st, VMALLOC, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "loongarch64: virtual address 0xffff000012008000: no page-table root "
	      "(VMCOREINFO needs SYMBOL(swapper_pg_dir))");
}

/* A memory of whole tables for init_mem, which reads all 2048 entries of
 * swapper_pg_dir and of the table most of them point at. */
struct tables {
	uint64_t pgd0;      /* swapper_pg_dir[0] */
	uint64_t pgd_rest;  /* its other entries */
	uint64_t pmd_rest;  /* the entries of the table at INV_PMD */
	unsigned nreads;
};

static enum mdf_status tbl_read(void *arg, uint64_t paddr, unsigned size, uint64_t *v,
				struct mdf_err *err)
{
	struct tables *t = arg;

	t->nreads++;
	if (size != 8)
		return mdf_err_set(err, MDF_ERR_INTERNAL, "size %u", size);
	if (paddr == 0x1b20000ULL)
		*v = t->pgd0;
	else if (paddr > 0x1b20000ULL && paddr < 0x1b24000ULL)
		*v = t->pgd_rest;
	else if (paddr >= INV_PMD && paddr < INV_PMD + 0x4000)
		*v = t->pmd_rest;
	else
		return mdf_err_set(err, MDF_ERR_NODATA, "not in memory");
	return MDF_OK;
}

static void t_init_mem(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct tables t = { DMW1 + PMD_TBL, DMW1 + INV_PMD, DMW1 + INV_PTE, 0 };
	struct leaf_log l = { 0 };
	uint64_t pa;

	ki_la(&ki);
	T_OK(arch_init(&st, EM_LOONGARCH, &ki, NULL, 0, &err), &err);
	T_ASSERT(!st.page_offset_exact);
	T_OK(arch_init_mem(&st, tbl_read, &t, &err), &err);
	T_ASSERT(st.page_offset_exact);
	T_ASSERT(st.empty.have);
	T_EQ_U64(st.empty.pmd_pa, INV_PMD);
	T_EQ_U64(st.empty.pte_pa, INV_PTE);
	/* an empty PGD entry now says so, without reading the empty table */
	T_EQ_U64(arch_vtop(&st, 0xffff001000000000ULL, tbl_read, &t, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "loongarch64: virtual address 0xffff001000000000 not mapped "
	      "(PGD entry 0x9000000001b28000 at paddr 0x1b20008 points at the empty table)");
	/* a user space of empty entries: the root table only, no leaf */
	t.nreads = 0;
	T_OK(arch_user_leaves(&st, 0x1b20000ULL, tbl_read, &t, log_leaf, &l, &err), &err);
	T_EQ_U64(t.nreads, 2048 + 2048);
	/* the root itself, then PMD_TBL (whose entries the memory lacks) */
	T_EQ_U64(l.n, 2);

	/* not a table of pointers: not proven, no empty tables learned */
	t.pgd_rest = 0;
	T_OK(arch_init(&st, EM_LOONGARCH, &ki, NULL, 0, &err), &err);
	T_OK(arch_init_mem(&st, tbl_read, &t, &err), &err);
	T_ASSERT(!st.page_offset_exact);
	T_ASSERT(!st.empty.have);
}

/* --keep-task: [0, 2^47) of a user root; a 16 KiB page, a 32 MiB huge
 * PMD, the empty tables skipped. */
static void t_user_leaves(void)
{
	static const uint64_t want[][3] = {
		{ 0, 0x100000, 0 },
		{ 0, 0x104000, 0 },
		{ 0, 0x108000, 0 },
		{ 0x4000, 0x200000, 16384 },
		{ 32ULL << 20, 0x2000000, 32ULL << 20 },
	};
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct leaf_log l = { 0 };

	ki_la(&ki);
	T_OK(arch_init(&st, EM_LOONGARCH, &ki, NULL, 0, &err), &err);
	st.empty.have = true;
	st.empty.pmd_pa = INV_PMD;
	st.empty.pte_pa = INV_PTE;
	fake_put(&m, 0x100000, DMW1 + 0x104000);
	fake_put(&m, 0x100008, DMW1 + INV_PMD);
	fake_put(&m, 0x104000, DMW1 + 0x108000);
	fake_put(&m, 0x104008, 0x2000000ULL | 0x1d3ULL | (1ULL << 6)); /* huge, user */
	fake_put(&m, 0x104010, DMW1 + INV_PTE);
	fake_put(&m, 0x108000, 0);
	fake_put(&m, 0x108008, 0x200000ULL | 0x19fULL);
	/* entries the fake lacks are skipped, as a dump's missing pages */
	T_OK(arch_user_leaves(&st, 0x100000, fake_read, &m, log_leaf, &l, &err), &err);
	T_LEAVES(l, want);
}

/* -x: the relocation from the image's PT_LOAD, SECTION_SIZE_BITS 29 */
static void t_debuginfo_defaults(void)
{
	struct kinfo ki;
	struct arch_seg_hint segs[] = {
		{ DMW1 + 0x2200000ULL, 0x2200000ULL, 0x1a00000ULL },
		{ DMW1, 0, 0x10000000ULL },
	};

	memset(&ki, 0, sizeof(ki));
	arch_debuginfo_defaults(EM_LOONGARCH, &ki, DMW1 + 0x200000ULL, segs, 2);
	T_ASSERT(ki.kernel_offset.set);
	T_EQ_U64(ki.kernel_offset.v, 0x2000000ULL);
	T_EQ_U64(ki.num.SECTION_SIZE_BITS.v, 29);
	/* only RAM segments: no offset */
	memset(&ki, 0, sizeof(ki));
	arch_debuginfo_defaults(EM_LOONGARCH, &ki, DMW1 + 0x200000ULL, segs + 1, 1);
	T_ASSERT(!ki.kernel_offset.set);
}

int main(void)
{
	T_RUN(t_ops_find);
	T_RUN(t_init);
	T_RUN(t_init_errors);
	T_RUN(t_walk);
	T_RUN(t_init_mem);
	T_RUN(t_user_leaves);
	T_RUN(t_debuginfo_defaults);
	return t_done();
}
