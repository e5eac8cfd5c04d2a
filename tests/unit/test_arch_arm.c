/*
 * tests/unit/test_arch_arm.c - the architecture layer on 32-bit arm, in the
 * short-descriptor format (2 levels of 4-byte entries: 1 MiB sections,
 * 16 MiB supersections, page tables of small and large pages, Linux's pte
 * pairs) and with LPAE (3 levels of 8-byte entries: 1 GiB and 2 MiB blocks,
 * pages).
 *
 * Page tables are built by hand in a fake physical memory (paddr -> entry,
 * read 4 or 8 bytes wide); the read callback logs every address it is
 * asked for.  The layout is Debian's armmp on qemu virt: PAGE_OFFSET
 * 0xC0000000, RAM (and PHYS_OFFSET) at 0x40000000, swapper_pg_dir 16 KiB
 * below _text (0xC0204000); the LPAE machine's RAM at 0x80000000 with
 * swapper_pg_dir at 0xC0203000, its PMD tables in the pages after it.
 */
#include <elf.h>

#include "archtest.h"
#include "diskdump.h"
#include "util.h"

#define PO 0xC0000000ULL
#define PHYS 0x40000000ULL
#define SWAPPER_VA 0xC0204000ULL
#define SWAPPER_PA 0x40204000ULL

/* short descriptors as 6.1 armmp writes them (tests/gen/README.md) */
#define SECT 0x1140eULL
#define SUPER 0x5140eULL
#define TABLE 0x11ULL
#define SMALL 0x45eULL
#define LINUX_PTE 0x45fULL
#define LARGE 0x00dULL   /* 01: large page, B C */

/* long descriptors */
#define L_TABLE 0x3ULL
#define L_BLOCK 0x71dULL
#define L_PAGE (0x71fULL | 1ULL << 55)
#define L_XN (1ULL << 54)

#define LPAE_PHYS 0x80000000ULL
#define LPAE_SWAPPER_VA 0xC0203000ULL
#define LPAE_SWAPPER_PA 0x80203000ULL

static void ki_armmp(struct kinfo *ki, bool lpae, uint64_t swapper_va)
{
	memset(ki, 0, sizeof(*ki));
	snprintf(ki->osrelease, sizeof(ki->osrelease),
		 lpae ? "6.1.0-57-armmp-lpae" : "6.1.0-57-armmp");
	SET_U64(ki->page_size, 4096);
	SET_U64(ki->sym.swapper_pg_dir, swapper_va);
	ki->config.ARM_LPAE = lpae;
}

/* kexec-tools' PT_LOADs: lowmem, and highmem at paddr + PAGE_OFFSET -
 * the first start in 32 bits (mapping nothing). */
static const struct arch_seg_hint segs_armmp[] = {
	{ 0xC0000000ULL, PHYS, 0x30000000ULL },
	{ 0xF0000000ULL, 0x70000000ULL, 0x30000000ULL },
};

/* ---- choosing the architecture ---- */

static void t_ops_find(void)
{
	const struct arch_ops *ops = arch_ops_find(EM_ARM);

	T_ASSERT(ops == &arch_arm_ops);
	T_EQ_STR(ops->name, "arm");
	T_EQ_U64(ops->e_machine, 40);
	T_EQ_STR(ops->uts_machine, "armv7l");
	T_EQ_U64(arch_word_size(EM_ARM), 4);
	T_EQ_U64(arch_machine_from_uts("armv7l"), EM_ARM);
	T_EQ_U64(arch_machine_from_uts("armv6l"), EM_ARM);
	T_EQ_U64(arch_machine_from_uts("aarch64"), EM_AARCH64);
	T_EQ_U64(arch_machine_from_uts("arm"), 0);
	/* armhf's kdump headers: ILP32's with 8-byte members aligned to 8 */
	T_EQ_U64(kdump_abi_of_machine(EM_ARM), KDUMP_ABI_EABI32);
	T_EQ_U64(kdump_header_size(KDUMP_ABI_EABI32), 452);
	T_EQ_U64(kdump_sub_header_size(KDUMP_ABI_EABI32), 96);
	T_EQ_U64(kdump_header_offset(KDUMP_ABI_EABI32, KDUMP_HF_BLOCK_SIZE), 416);
	T_EQ_U64(kdump_sub_header_offset(KDUMP_ABI_EABI32, KDUMP_SF_OFFSET_ERASEINFO), 56);
	T_EQ_U64(kdump_sub_header_offset(KDUMP_ABI_EABI32, KDUMP_SF_MAX_MAPNR_64), 88);
	T_EQ_U64(kdump_pfn_base(KDUMP_ABI_EABI32, PHYS, 12), 0x40000);
	T_EQ_U64(kdump_pfn_base(KDUMP_ABI_ILP32, PHYS, 12), 0);
}

static void t_eabi32_sub_header(void)
{
	struct kdump_sub_header s, s2;
	unsigned char b[sizeof(s)];

	memset(&s, 0, sizeof(s));
	s.phys_base = PHYS;
	s.dump_level = 31;
	s.offset_vmcoreinfo = 0x11c8;
	s.size_vmcoreinfo = 0xaf3;
	s.offset_note = 0x1060;
	s.size_note = 0xc5c;
	s.max_mapnr_64 = 0x40600;
	kdump_sub_header_put(b, &s, KDUMP_ABI_EABI32, false);
	/* where 1.7.2 armhf has them */
	T_EQ_U64(load_le32(b + 0), PHYS);
	T_EQ_U64(load_le32(b + 4), 31);
	T_EQ_U64(load_le64(b + 24), 0x11c8);
	T_EQ_U64(load_le32(b + 32), 0xaf3);
	T_EQ_U64(load_le64(b + 40), 0x1060);
	T_EQ_U64(load_le32(b + 48), 0xc5c);
	T_EQ_U64(load_le64(b + 88), 0x40600);
	kdump_sub_header_get(&s2, b, KDUMP_ABI_EABI32, false);
	T_EQ_U64(s2.offset_note, 0x1060);
	T_EQ_U64(s2.max_mapnr_64, 0x40600);
	T_EQ_U64(s2.phys_base, PHYS);
}

/* ---- short descriptors ---- */

/* swapper_pg_dir at SWAPPER_PA: sections for the first 3 MiB (the image
 * and the table itself), a page-table pair at 0x40300000 for the 7th MiB
 * (odd: the hardware table at +3072, Linux's 2048 below it), a
 * supersection for 16 MiB at 0x41000000 (the first of its 16 entries), a
 * supersection above 4 GiB for 0xE0000000, nothing at 0xD0000000. */
static void tables_short(struct fake_mem *m)
{
	const uint64_t pgd = SWAPPER_PA, hw = 0x40300c00ULL;

	memset(m, 0, sizeof(*m));
	for (uint64_t i = 0; i < 3; i++)
		fake_put(m, pgd + (0xC00 + i) * 4, (PHYS + (i << 20)) | SECT);
	fake_put(m, pgd + 0xC07 * 4, hw | TABLE);
	fake_put(m, hw + 5 * 4, 0x40605000ULL | SMALL);
	fake_put(m, hw + 0x1a * 4, 0x40610000ULL | LARGE);
	/* a present page that is not young: the hardware pte 0, Linux's not */
	fake_put(m, hw + 7 * 4, 0);
	fake_put(m, hw - 2048 + 7 * 4, 0x40607000ULL | LINUX_PTE);
	/* not present in either */
	fake_put(m, hw + 8 * 4, 0);
	fake_put(m, hw - 2048 + 8 * 4, 0);
	fake_put(m, pgd + 0xC10 * 4, 0x41000000ULL | SUPER);
	/* PA bits 35..32 = 2 (bits 23..20), 39..36 = 1 (bits 8..5) */
	fake_put(m, pgd + 0xE00 * 4, 0x30000000ULL | 2ULL << 20 | 1ULL << 5 | SUPER);
	fake_put(m, pgd + 0xD00 * 4, 0);
}

static void t_init_short(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_armmp(&ki, false, SWAPPER_VA);
	mdf_err_clear(&err);
	T_OK(arch_init(&st, EM_ARM, &ki, segs_armmp, ARRAY_SIZE(segs_armmp), &err), &err);
	T_EQ_U64(st.page_size, 4096);
	T_EQ_U64(st.levels, 2);
	T_EQ_U64(st.word_size, 4);
	T_EQ_U64(st.max_physmem_bits, 32);
	T_EQ_U64(st.page_offset, PO);
	T_ASSERT(!st.page_offset_exact);      /* init_mem proves it */
	T_ASSERT(st.have_phys_base);
	T_EQ_U64(st.phys_base, PHYS);
	T_EQ_U64(st.flat_pfn_offset, 0x40000);
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
	T_ASSERT(st.direct.valid);
	T_EQ_U64(st.direct.vaddr, PO);
	T_EQ_U64(st.direct.paddr, PHYS);
	T_EQ_U64(st.direct.size, 0x30000000ULL); /* at most vmalloc_min */

	/* RAM from 0x40100000: PHYS_OFFSET guessed as its 128 MiB start */
	{
		const struct arch_seg_hint off[] = { { 0xC0000000ULL, 0x40100000ULL, 0x8000000ULL } };

		T_OK(arch_init(&st, EM_ARM, &ki, off, 1, &err), &err);
		T_EQ_U64(st.phys_base, PHYS);
		T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
		T_EQ_U64(st.direct.size, 0x8100000ULL);
	}
	/* a kdump-compressed input: its header's phys_base */
	SET_U64(ki.num.phys_base, 0x60000000);
	T_OK(arch_init(&st, EM_ARM, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.phys_base, 0x60000000);
	T_EQ_U64(st.pgd_paddr, 0x60204000);
}

static void t_init_errors(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_armmp(&ki, false, SWAPPER_VA);
	SET_U64(ki.page_size, 16384);
	mdf_err_clear(&err);
	T_EQ_U64(arch_init(&st, EM_ARM, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "arm: PAGESIZE=16384 in VMCOREINFO, expected 4096");

	ki_armmp(&ki, false, 0xffffffffc0204000ULL);
	T_EQ_U64(arch_init(&st, EM_ARM, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "arm: SYMBOL(swapper_pg_dir)=0xffffffffc0204000 is not a 32-bit address");

	ki_armmp(&ki, true, LPAE_SWAPPER_VA);
	SET_U64(ki.num.MAX_PHYSMEM_BITS, 60);
	T_EQ_U64(arch_init(&st, EM_ARM, &ki, NULL, 0, &err), MDF_ERR_FORMAT);

	/* no swapper_pg_dir: init works, a walk says what is missing */
	ki_armmp(&ki, false, SWAPPER_VA);
	ki.sym.swapper_pg_dir.set = false;
	T_OK(arch_init(&st, EM_ARM, &ki, segs_armmp, ARRAY_SIZE(segs_armmp), &err), &err);
	T_ASSERT(!st.have_pgd);
	{
		struct fake_mem m = { 0 };
		struct arch_walk w;

		T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
		T_EQ_U64(arch_walk(&st, 0xF8000000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);
		T_MSG(err, "arm: virtual address 0xf8000000: no page-table root (VMCOREINFO needs SYMBOL(swapper_pg_dir) in lowmem)");
		T_EQ_U64(m.nlog, 0);
	}
}

static void t_walk_short(void)
{
	struct arch_state st;
	struct arch_walk w;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m;

	ki_armmp(&ki, false, SWAPPER_VA);
	mdf_err_clear(&err);
	T_OK(arch_init(&st, EM_ARM, &ki, segs_armmp, ARRAY_SIZE(segs_armmp), &err), &err);
	tables_short(&m);

	/* a 1 MiB section: one read */
	T_OK(arch_walk(&st, 0xC0123456ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x40123456ULL);
	T_EQ_U64(w.map_size, 1ULL << 20);
	T_EQ_U64(w.nsteps, 1);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_U64(w.step[0].entry_paddr, SWAPPER_PA + 0xC01 * 4);

	/* a small page through the hardware table of an odd MiB */
	m.nlog = 0;
	T_OK(arch_walk(&st, 0xC0705123ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x40605123ULL);
	T_EQ_U64(w.map_size, 4096);
	T_EQ_U64(w.nsteps, 2);
	T_EQ_U64(m.log[1], 0x40300c00ULL + 5 * 4);

	/* a 64 KiB large page */
	T_OK(arch_walk(&st, 0xC071abcdULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x4061abcdULL);
	T_EQ_U64(w.map_size, 1ULL << 16);

	/* not young: Linux's pte, 2048 bytes below the hardware's */
	T_OK(arch_walk(&st, 0xC0707010ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x40607010ULL);
	T_EQ_U64(w.nsteps, 3);
	T_EQ_U64(w.step[2].entry_paddr, 0x40300400ULL + 7 * 4);

	/* not present in either */
	T_EQ_U64(arch_walk(&st, 0xC0708000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);
	T_MSG(err, "arm: virtual address 0xc0708000 not mapped (PTE entry 0x0 at paddr 0x40300c20 not present)");

	/* a supersection: 16 MiB */
	T_OK(arch_walk(&st, 0xC10bcdefULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x410bcdefULL);
	T_EQ_U64(w.map_size, 16ULL << 20);
	/* ... reaching 40 bits */
	T_OK(arch_walk(&st, 0xE00abcdeULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x12300abcdeULL);

	/* a fault in the first level */
	T_EQ_U64(arch_walk(&st, 0xD0000000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);
	T_MSG(err, "arm: virtual address 0xd0000000 not mapped (PGD entry 0x0 at paddr 0x40207400 not present)");
	/* a first-level entry the dump lacks */
	T_EQ_U64(arch_walk(&st, 0xC0500000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);
	T_EQ_U64(arch_walk(&st, 0x100000000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);
	T_MSG(err, "arm: virtual address 0x100000000 is not a 32-bit address");
}

static void t_init_mem_short(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m;
	uint64_t pa;

	ki_armmp(&ki, false, SWAPPER_VA);
	mdf_err_clear(&err);
	tables_short(&m);
	/* RAM from 0x40100000 (kexec-tools' p_vaddr 1 MiB off): PHYS_OFFSET
	 * is proven at 0x40000000 all the same */
	{
		const struct arch_seg_hint off[] = { { 0xC0000000ULL, 0x40100000ULL, 0x8000000ULL } };

		T_OK(arch_init(&st, EM_ARM, &ki, off, 1, &err), &err);
	}
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_ASSERT(st.page_offset_exact);
	T_EQ_U64(st.page_offset, PO);
	T_EQ_U64(st.phys_base, PHYS);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
	/* lowmem: up to the end of the last block mapped linearly (the
	 * supersection's first MiB, 0xC1000000) */
	T_EQ_U64(st.direct.size, 0x1100000ULL);
	T_ASSERT(arch_kvtop_fast(&st, 0xC10fffffULL, &pa));
	T_EQ_U64(pa, 0x410fffffULL);
	T_ASSERT(!arch_kvtop_fast(&st, 0xC1100000ULL, &pa));

	/* a 2G split: PAGE_OFFSET 0x80000000, the same tables one level up */
	ki_armmp(&ki, false, 0x80204000ULL);
	memset(&m, 0, sizeof(m));
	fake_put(&m, SWAPPER_PA + 0x802 * 4, (PHYS + (2ULL << 20)) | SECT);
	T_OK(arch_init(&st, EM_ARM, &ki, segs_armmp, ARRAY_SIZE(segs_armmp), &err), &err);
	T_EQ_U64(st.page_offset, PO);
	T_ASSERT(!st.have_pgd);             /* 0x80204000 is below the guess */
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_EQ_U64(st.page_offset, 0x80000000ULL);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
	T_EQ_U64(st.direct.size, 0x300000ULL);

	/* tables that map nothing: the guess stays, unproven */
	ki_armmp(&ki, false, SWAPPER_VA);
	memset(&m, 0, sizeof(m));
	T_OK(arch_init(&st, EM_ARM, &ki, segs_armmp, ARRAY_SIZE(segs_armmp), &err), &err);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_ASSERT(!st.page_offset_exact);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
}

/* ---- LPAE ---- */

/* swapper_pg_dir at LPAE_SWAPPER_PA: entry 3 a PMD table in the next
 * page, whose entry 1 is the 2 MiB block of the image and swapper, entry 0
 * a PTE table at 0x80300000; entry 2 a 1 GiB block; entry 0 nothing. */
static void tables_lpae(struct fake_mem *m)
{
	const uint64_t pgd = LPAE_SWAPPER_PA, pmd = 0x80204000ULL, pte = 0x80300000ULL;

	memset(m, 0, sizeof(*m));
	fake_put(m, pgd + 3 * 8, pmd | L_TABLE | 1ULL << 55);
	fake_put(m, pmd + 1 * 8, 0x80200000ULL | L_BLOCK);
	fake_put(m, pmd + 0 * 8, pte | L_TABLE);
	fake_put(m, pte + 5 * 8, 0x80005000ULL | L_PAGE | L_XN);
	fake_put(m, pte + 6 * 8, 0);
	fake_put(m, pte + 7 * 8, 0x123456000ULL | L_PAGE);
	/* a block entry at the last level is no page */
	fake_put(m, pte + 9 * 8, 0x80009000ULL | L_BLOCK);
	fake_put(m, pgd + 2 * 8, 0x40000000ULL | 0x701ULL);
	fake_put(m, pgd + 0 * 8, 0);
}

static void t_walk_lpae(void)
{
	struct arch_state st;
	struct arch_walk w;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m;

	ki_armmp(&ki, true, LPAE_SWAPPER_VA);
	mdf_err_clear(&err);
	{
		const struct arch_seg_hint segs[] = { { 0xC0000000ULL, LPAE_PHYS, 0x400000ULL } };

		T_OK(arch_init(&st, EM_ARM, &ki, segs, 1, &err), &err);
	}
	T_EQ_U64(st.levels, 3);
	T_EQ_U64(st.max_physmem_bits, 40);
	T_EQ_U64(st.pgd_paddr, LPAE_SWAPPER_PA);
	tables_lpae(&m);

	T_OK(arch_walk(&st, 0xC0234567ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x80234567ULL);
	T_EQ_U64(w.map_size, 2ULL << 20);
	T_EQ_U64(w.nsteps, 2);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_STR(w.step[1].level, "PMD");

	T_OK(arch_walk(&st, 0xC0005123ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x80005123ULL);   /* XN changes nothing */
	T_EQ_U64(w.map_size, 4096);
	T_EQ_U64(w.nsteps, 3);
	T_EQ_U64(w.step[2].entry_paddr, 0x80300000ULL + 5 * 8);

	T_OK(arch_walk(&st, 0xC0007fffULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x123456fffULL);  /* above 4 GiB */

	T_EQ_U64(arch_walk(&st, 0xC0006000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);
	T_MSG(err, "arm: virtual address 0xc0006000 not mapped (PTE entry 0x0 at paddr 0x80300030 not present)");
	T_EQ_U64(arch_walk(&st, 0xC0009000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);

	/* a 1 GiB block in the first level */
	T_OK(arch_walk(&st, 0x81234567ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x41234567ULL);
	T_EQ_U64(w.map_size, 1ULL << 30);
	T_EQ_U64(w.nsteps, 1);

	T_EQ_U64(arch_walk(&st, 0x00001000ULL, fake_read, &m, &w, &err), MDF_ERR_NODATA);
	T_MSG(err, "arm: virtual address 0x1000 not mapped (PGD entry 0x0 at paddr 0x80203000 not present)");
}

static void t_init_mem_lpae(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m;

	ki_armmp(&ki, true, LPAE_SWAPPER_VA);
	mdf_err_clear(&err);
	tables_lpae(&m);
	T_OK(arch_init(&st, EM_ARM, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.phys_base, 0);            /* nothing says where RAM is */
	T_ASSERT(!st.page_offset_exact);
	/* a kdump-compressed input's phys_base */
	SET_U64(ki.num.phys_base, (int64_t)LPAE_PHYS);
	T_OK(arch_init(&st, EM_ARM, &ki, NULL, 0, &err), &err);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_ASSERT(st.page_offset_exact);
	T_EQ_U64(st.phys_base, LPAE_PHYS);
	T_EQ_U64(st.pgd_paddr, LPAE_SWAPPER_PA);
	T_EQ_U64(st.flat_pfn_offset, 0x80000);
	/* the 2 MiB block at 0xC0200000 is the last linear one */
	T_EQ_U64(st.direct.size, 0x400000ULL);
}

/* ---- --keep-task: a user address space ---- */

/* Short descriptors: a task's 16 KiB pgd at 0x48000000; its 2nd MiB a
 * page-table pair's odd half (hardware table at 0x48100c00, Linux's at
 * 0x48100400: present pages whether young or not, a pte without
 * L_PTE_PRESENT none), its 3rd a section; TASK_SIZE (0xBF000000) and
 * above are the kernel's and not walked. */
static void t_user_leaves_short(void)
{
	static const uint64_t want[][3] = {
		{ 0, 0x48000000, 0 }, { 0, 0x48100400, 0 },
		{ 0x100000, 0x45000000, 4096 }, { 0x102000, 0x45002000, 4096 },
		{ 0x200000, 0x46000000, 1ULL << 20 },
	};
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct leaf_log l = { 0 };
	const uint64_t pgd = 0x48000000ULL, hw = 0x48100c00ULL;

	ki_armmp(&ki, false, SWAPPER_VA);
	mdf_err_clear(&err);
	T_OK(arch_init(&st, EM_ARM, &ki, segs_armmp, ARRAY_SIZE(segs_armmp), &err), &err);
	fake_put(&m, pgd + 1 * 4, hw | TABLE);
	fake_put(&m, hw - 2048 + 0 * 4, 0x45000000ULL | LINUX_PTE);
	fake_put(&m, hw - 2048 + 1 * 4, 0x45001000ULL | (LINUX_PTE & ~1ULL)); /* not present */
	fake_put(&m, hw - 2048 + 2 * 4, 0x45002000ULL | LINUX_PTE);          /* old: hw pte 0 */
	fake_put(&m, hw + 0 * 4, 0x45000000ULL | SMALL);
	fake_put(&m, pgd + 2 * 4, 0x46000000ULL | SECT);
	fake_put(&m, pgd + 0xBF0 * 4, 0x41000000ULL | SECT);                 /* modules: the kernel's */
	fake_put(&m, pgd + 0xC00 * 4, PHYS | SECT);
	T_OK(arch_user_leaves(&st, pgd, fake_read, &m, log_leaf, &l, &err), &err);
	T_LEAVES(l, want);
}

/* LPAE: a task's 4-entry pgd kmalloc()ed at 0x48000020; a PMD table with
 * a 2 MiB block (a THP) and a page table: a page, a PROT_NONE page (bit 0
 * clear, bit 1 and L_PTE_NONE set: present), a swap entry (bits 1..0
 * clear); the 4th GiB is the kernel's. */
static void t_user_leaves_lpae(void)
{
	static const uint64_t want[][3] = {
		{ 0, 0x48000020, 0 }, { 0, 0x48101000, 0 },
		{ 0x200000, 0x46000000, 2ULL << 20 }, { 0, 0x48102000, 0 },
		{ 0x400000, 0x45000000, 4096 }, { 0x401000, 0x45001000, 4096 },
	};
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct leaf_log l = { 0 };
	const uint64_t pgd = 0x48000020ULL;
	const struct arch_seg_hint segs[] = { { 0xC0000000ULL, LPAE_PHYS, 0x400000ULL } };

	ki_armmp(&ki, true, LPAE_SWAPPER_VA);
	mdf_err_clear(&err);
	T_OK(arch_init(&st, EM_ARM, &ki, segs, 1, &err), &err);
	fake_put(&m, pgd + 0 * 8, 0x48101000ULL | L_TABLE);
	fake_put(&m, pgd + 3 * 8, 0x48103000ULL | L_TABLE);
	fake_put(&m, 0x48101000ULL + 1 * 8, 0x46000000ULL | L_BLOCK);
	fake_put(&m, 0x48101000ULL + 2 * 8, 0x48102000ULL | L_TABLE);
	fake_put(&m, 0x48102000ULL + 0 * 8, 0x45000000ULL | L_PAGE);
	fake_put(&m, 0x48102000ULL + 1 * 8, (0x45001000ULL | L_PAGE | 1ULL << 57) & ~1ULL);
	fake_put(&m, 0x48102000ULL + 2 * 8, 0x1234500ULL);
	fake_put(&m, 0x48103000ULL, 0x80000000ULL | L_BLOCK);
	T_OK(arch_user_leaves(&st, pgd, fake_read, &m, log_leaf, &l, &err), &err);
	T_LEAVES(l, want);
}

int main(void)
{
	T_RUN(t_ops_find);
	T_RUN(t_eabi32_sub_header);
	T_RUN(t_init_short);
	T_RUN(t_init_errors);
	T_RUN(t_walk_short);
	T_RUN(t_init_mem_short);
	T_RUN(t_walk_lpae);
	T_RUN(t_init_mem_lpae);
	T_RUN(t_user_leaves_short);
	T_RUN(t_user_leaves_lpae);
	return t_done();
}
