/*
 * tests/unit/test_arch_arm64.c - the architecture layer on arm64.
 *
 * Page tables are built by hand in a fake physical memory (paddr -> 8-byte
 * descriptor); the read callback logs every address it is asked for, so
 * the tests also prove that translation reads nothing else.  The kernel
 * facts of the first cases are those of a Debian arm64 6.1 guest (1 GiB,
 * KASLR on) made by ../shared/lab (mkvmcore.sh --arch arm64).
 */
#include <elf.h>

#include "archtest.h"
#include "util.h"

/* ---- kernel facts: Debian 6.1.0-57-arm64, 4 KiB pages, 48-bit VAs ---- */

#define V61_KIMAGE_VOFFSET 0xffffc6fd9ee00000ULL
#define V61_PHYS_OFFSET 0x40000000ULL
#define V61_SWAPPER 0xffffc6fde0658000ULL

/* The image, then the two RAM ranges around the crashkernel hole. */
static const struct arch_seg_hint v61_segs[] = {
	{ 0xffffc6fddf000000ULL, 0x40200000ULL, 0x2010000ULL },
	{ 0xffff000000000000ULL, 0x40000000ULL, 0x2ec00000ULL },
	{ 0xffff00003ac00000ULL, 0x7ac00000ULL, 0x05400000ULL },
};

static void ki_v61(struct kinfo *ki)
{
	memset(ki, 0, sizeof(*ki));
	snprintf(ki->osrelease, sizeof(ki->osrelease), "6.1.0-57-arm64");
	SET_U64(ki->page_size, 4096);
	SET_U64(ki->num.VA_BITS, 48);
	SET_U64(ki->num.TCR_EL1_T1SZ, 16);
	SET_U64(ki->num.PHYS_OFFSET, (int64_t)V61_PHYS_OFFSET);
	SET_U64(ki->num.kimage_voffset, (int64_t)V61_KIMAGE_VOFFSET);
	SET_U64(ki->num.MAX_PHYSMEM_BITS, 48);
	SET_U64(ki->sym.swapper_pg_dir, V61_SWAPPER);
}

static void t_ops_find(void)
{
	const struct arch_ops *ops = arch_ops_find(EM_AARCH64);
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	T_ASSERT(ops == &arch_arm64_ops);
	T_EQ_STR(ops->name, "arm64");
	T_EQ_U64(ops->e_machine, 183);
	ki_v61(&ki);
	T_OK(arch_init(&st, EM_AARCH64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
	T_ASSERT(st.ops == &arch_arm64_ops);
}

/* --keep-task's walk of a user address space (TTBR0's: [0, 2^48)): every
 * valid leaf (4 KiB pages, 2 MiB and 1 GiB blocks) and each table. */
static void t_user_leaves(void)
{
	static const uint64_t want[][3] = {
		{ 0, 0x10000, 0 }, { 0, 0x11000, 0 }, { 1ULL << 30, 0x40000000, 1ULL << 30 },
		{ 0, 0x12000, 0 }, { 2ULL << 30, 0x200000, 2ULL << 20 }, { 0, 0x13000, 0 },
		{ (2ULL << 30) + (2ULL << 20), 0x5000, 4096 },
		{ (2ULL << 30) + (2ULL << 20) + 3 * 4096, 0x7000, 4096 },
	};
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct leaf_log l = { 0 };

	ki_v61(&ki);
	T_OK(arch_init(&st, EM_AARCH64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
	fake_put(&m, 0x10000, 0x11003);            /* PGD 0 -> PUD */
	fake_put(&m, 0x11000 + 1 * 8, 0x40000701); /* PUD 1: a 1 GiB block */
	fake_put(&m, 0x11000 + 2 * 8, 0x12003);    /* PUD 2 -> PMD */
	fake_put(&m, 0x12000, 0x200701);           /* PMD 0: a 2 MiB block */
	fake_put(&m, 0x12000 + 1 * 8, 0x13003);    /* PMD 1 -> PTE */
	fake_put(&m, 0x13000, 0x5703);             /* PTE 0 */
	fake_put(&m, 0x13000 + 2 * 8, 0x6701);     /* PTE 2: reserved (not a page) */
	fake_put(&m, 0x13000 + 3 * 8, 0x7703);     /* PTE 3 */
	fake_put(&m, 0x13000 + 4 * 8, 0x8702);     /* PTE 4: not valid */
	T_OK(arch_user_leaves(&st, 0x10000, fake_read, &m, log_leaf, &l, &err), &err);
	T_LEAVES(l, want);
}

/* An invalid user entry that pte_present() still counts (PROT_NONE, a
 * NUMA hinting fault, a THP pmd being split): a leaf, by the bits of its
 * kernel (6.1: PTE_PROT_NONE bit 58, PMD_PRESENT_INVALID bit 59; 6.10 on:
 * PTE_PRESENT_INVALID, the nG bit 11); a swap entry of that kernel (bits
 * 0-1 clear, its type at bits 3-7, the offset above) is none. */
static void t_user_prot_none(void)
{
	static const uint64_t want61[][3] = {
		{ 0, 0x10000, 0 }, { 0, 0x11000, 0 }, { 0, 0x12000, 0 }, { 0, 0x13000, 0 },
		{ 0, 0x5000, 4096 }, { 2ULL << 20, 0x400000, 2ULL << 20 },
	};
	static const uint64_t want612[][3] = {
		{ 0, 0x10000, 0 }, { 0, 0x11000, 0 }, { 0, 0x12000, 0 }, { 0, 0x13000, 0 },
		{ 4096, 0x6000, 4096 }, { 2ULL << 20, 0x400000, 2ULL << 20 },
	};
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	for (int v = 0; v < 2; v++) {
		struct fake_mem m = { 0 };
		struct leaf_log l = { 0 };

		ki_v61(&ki);
		if (v)
			snprintf(ki.osrelease, sizeof(ki.osrelease), "6.12.57+deb13-arm64");
		T_OK(arch_init(&st, EM_AARCH64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
		fake_put(&m, 0x10000, 0x11003);   /* PGD 0 -> PUD */
		fake_put(&m, 0x11000, 0x12003);   /* PUD 0 -> PMD */
		fake_put(&m, 0x12000, 0x13003);   /* PMD 0 -> PTE */
		/* PMD 1: a THP block, invalid: 6.1's PMD_PRESENT_INVALID,
		 * 6.12's nG */
		fake_put(&m, 0x12000 + 8, v ? 0x400f00 : 0x0800000000400f00ULL);
		/* PTE 0: PROT_NONE in 6.1 (bit 58), in 6.12 a swap entry
		 * whose offset has bit 58 */
		fake_put(&m, 0x13000, 0x0400000000005702ULL);
		/* PTE 1: PROT_NONE in 6.12 (nG); in 6.1 a swap entry (offset
		 * bits 8..57) */
		fake_put(&m, 0x13000 + 8, 0x6f02);
		/* PTE 2: a swap entry of either (type 3) */
		fake_put(&m, 0x13000 + 16, 0x123418);
		T_OK(arch_user_leaves(&st, 0x10000, fake_read, &m, log_leaf, &l, &err), &err);
		if (v)
			T_LEAVES(l, want612);
		else
			T_LEAVES(l, want61);
	}
}

/* ---- init ---- */

static void t_init_v61(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	uint64_t pa;

	ki_v61(&ki);
	T_OK(arch_init(&st, EM_AARCH64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
	T_EQ_U64(st.page_size, 4096);
	T_EQ_U64(st.page_shift, 12);
	T_EQ_U64(st.va_bits, 48);
	T_EQ_U64(st.pgd_va_bits, 48);
	T_EQ_U64(st.levels, 4);
	T_ASSERT(st.have_phys_base);
	T_EQ_U64(st.phys_base, V61_PHYS_OFFSET);
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, V61_SWAPPER - V61_KIMAGE_VOFFSET);
	/* The image segment is the text window; the RAM ones the linear map. */
	T_ASSERT(st.text.valid);
	T_EQ_U64(st.text.vaddr, v61_segs[0].vaddr);
	T_EQ_U64(st.text.size, v61_segs[0].size);
	T_EQ_U64(st.text.paddr, v61_segs[0].paddr);
	T_ASSERT(st.direct.valid);
	T_EQ_U64(st.direct.vaddr, 0xffff000000000000ULL);
	T_EQ_U64(st.direct.paddr, 0x40000000ULL);
	T_EQ_U64(st.direct.size, 0x40000000ULL);
	T_ASSERT(st.page_offset_exact);
	T_EQ_U64(st.page_offset, 0xffff000000000000ULL);
	/* Fast path: image and linear map, no reads. */
	T_ASSERT(arch_kvtop_fast(&st, v61_segs[0].vaddr + 0x1234, &pa));
	T_EQ_U64(pa, v61_segs[0].paddr + 0x1234);
	T_ASSERT(arch_kvtop_fast(&st, 0xffff00003ac01008ULL, &pa));
	T_EQ_U64(pa, 0x7ac01008ULL);
	/* vmalloc and vmemmap need the walk. */
	T_ASSERT(!arch_kvtop_fast(&st, 0xffff800008000000ULL, &pa));
	T_ASSERT(!arch_kvtop_fast(&st, 0xfffffc0000000000ULL, &pa));
}

/* A kdump-compressed input has no PT_LOADs: the linear map follows from
 * VA_BITS, PHYS_OFFSET and the kernel version (flipped in 5.4). */
static void t_init_no_hints(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	uint64_t pa;

	ki_v61(&ki);
	T_OK(arch_init(&st, EM_AARCH64, &ki, NULL, 0, &err), &err);
	T_ASSERT(!st.text.valid);
	T_ASSERT(st.direct.valid);
	T_EQ_U64(st.direct.vaddr, 0xffff000000000000ULL);
	T_EQ_U64(st.direct.size, 1ULL << 47);
	T_ASSERT(arch_kvtop_fast(&st, 0xffff000000001000ULL, &pa));
	T_EQ_U64(pa, 0x40001000ULL);
	T_ASSERT(st.have_pgd);

	snprintf(ki.osrelease, sizeof(ki.osrelease), "4.19.0-21-arm64");
	T_OK(arch_init(&st, EM_AARCH64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.direct.vaddr, 0xffff800000000000ULL);
	T_ASSERT(arch_kvtop_fast(&st, 0xffff800000001000ULL, &pa));
	T_EQ_U64(pa, 0x40001000ULL);

	/* Without PHYS_OFFSET nothing is proven: walk everything. */
	ki.num.PHYS_OFFSET.set = false;
	T_OK(arch_init(&st, EM_AARCH64, &ki, NULL, 0, &err), &err);
	T_ASSERT(!st.direct.valid);
	T_ASSERT(!st.have_phys_base);
}

static void t_init_errors(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_v61(&ki);
	SET_U64(ki.page_size, 8192);
	T_EQ_U64(arch_init(&st, EM_AARCH64, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "arm64: PAGESIZE=8192 in VMCOREINFO, expected 4096, 16384 or 65536");

	ki_v61(&ki);
	SET_U64(ki.num.VA_BITS, 60);
	T_EQ_U64(arch_init(&st, EM_AARCH64, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "arm64: NUMBER(VA_BITS)=60 out of range 36..52");

	ki_v61(&ki);
	SET_U64(ki.num.TCR_EL1_T1SZ, 8);
	T_EQ_U64(arch_init(&st, EM_AARCH64, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "arm64: NUMBER(TCR_EL1_T1SZ)=8 does not fit VA_BITS=48");

	/* A 52-bit 4 KiB-page kernel running with 48 bits loses a level. */
	ki_v61(&ki);
	SET_U64(ki.num.VA_BITS, 52);
	SET_U64(ki.num.TCR_EL1_T1SZ, 16);
	T_EQ_U64(arch_init(&st, EM_AARCH64, &ki, NULL, 0, &err), MDF_ERR_NOTSUPP);
	T_MSG(err, "arm64: a kernel built for 52-bit VAs running with 48 bits and 4096-byte pages is not supported");

	/* No VA_BITS (before 4.12): init works, the walk says what is missing. */
	ki_v61(&ki);
	ki.num.VA_BITS.set = false;
	T_OK(arch_init(&st, EM_AARCH64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
	T_ASSERT(!st.have_pgd);
	{
		struct fake_mem m = { 0 };
		uint64_t pa;

		T_EQ_U64(arch_vtop(&st, 0xffff800008000000ULL, fake_read, &m, &pa, &err),
			 MDF_ERR_NODATA);
		T_MSG(err, "arm64: virtual address 0xffff800008000000: no page-table root "
		      "(VMCOREINFO needs NUMBER(VA_BITS), NUMBER(kimage_voffset) and "
		      "SYMBOL(swapper_pg_dir))");
		T_EQ_U64(m.nlog, 0);
	}
}

/* ---- the walk, 4 KiB granule, 48-bit VAs: PGD PUD PMD PTE ---- */

#define TBL 0x3ULL   /* valid table (or, at the last level, page) */
#define BLK 0x1ULL   /* valid block */
#define ATTR 0x0060000000000f00ULL /* AF, SH, AP, UXN/PXN: ignored bits */

static void t_walk_4k(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;
	uint64_t pgd, va = 0xfffffc0000123456ULL, pa;

	ki_v61(&ki);
	T_OK(arch_init(&st, EM_AARCH64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
	pgd = st.pgd_paddr;
	/* va bits: [47:39] 0x1f8, [38:30] 0, [29:21] 0, [20:12] 0x123 */
	fake_put(&m, pgd + 0x1f8 * 8, 0x41000000ULL | TBL | ATTR);
	fake_put(&m, 0x41000000ULL, 0x41001000ULL | TBL);
	fake_put(&m, 0x41001000ULL, 0x41002000ULL | TBL);
	fake_put(&m, 0x41002000ULL + 0x123 * 8, 0x5abcd000ULL | TBL | ATTR);
	T_OK(arch_walk(&st, va, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x5abcd456ULL);
	T_EQ_U64(w.map_size, 4096);
	T_EQ_U64(w.nsteps, 4);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_STR(w.step[1].level, "PUD");
	T_EQ_STR(w.step[2].level, "PMD");
	T_EQ_STR(w.step[3].level, "PTE");
	T_EQ_U64(m.nlog, 4);
	T_EQ_U64(m.log[0], pgd + 0x1f8 * 8);

	/* A 2 MiB block at the PMD. */
	fake_put(&m, 0x41001000ULL + 1 * 8, 0x60200000ULL | BLK | ATTR);
	T_OK(arch_vtop(&st, 0xfffffc0000312345ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x60312345ULL);
	/* A 1 GiB block at the PUD. */
	fake_put(&m, 0x41000000ULL + 2 * 8, 0x80000000ULL | BLK);
	T_OK(arch_walk(&st, 0xfffffc00800abcdeULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x800abcdeULL);
	T_EQ_U64(w.map_size, 1ULL << 30);

	/* Not valid: the message names the level. */
	T_EQ_U64(arch_vtop(&st, 0xfffffc0000400000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "arm64: virtual address 0xfffffc0000400000: PMD entry at paddr 0x41001010: "
	      "fake: paddr 0x41001010 not in memory");
	fake_put(&m, 0x41001000ULL + 2 * 8, 0);
	T_EQ_U64(arch_vtop(&st, 0xfffffc0000400000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "arm64: virtual address 0xfffffc0000400000 not mapped "
	      "(PMD entry 0x0 at paddr 0x41001010 not valid)");
	/* A "block" descriptor at the last level is reserved: not mapped. */
	fake_put(&m, 0x41002000ULL + 0x124 * 8, 0x5abce000ULL | BLK);
	T_EQ_U64(arch_vtop(&st, 0xfffffc0000124000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	/* A user (TTBR0) address is no kernel address. */
	m.nlog = 0;
	T_EQ_U64(arch_vtop(&st, 0x0000ffff00001000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "arm64: virtual address 0xffff00001000 is not a kernel address for 48-bit VAs");
	T_EQ_U64(m.nlog, 0);
}

/* 39-bit VAs (4 KiB pages): three levels, PGD PMD PTE. */
static void t_walk_39(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;

	ki_v61(&ki);
	SET_U64(ki.num.VA_BITS, 39);
	SET_U64(ki.num.TCR_EL1_T1SZ, 25);
	T_OK(arch_init(&st, EM_AARCH64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.levels, 3);
	/* 0xffffffc0_00000000 + ...: [38:30] 0x100, [29:21] 1, [20:12] 2 */
	fake_put(&m, st.pgd_paddr + 0x100 * 8, 0x41000000ULL | TBL);
	fake_put(&m, 0x41000000ULL + 8, 0x41001000ULL | TBL);
	fake_put(&m, 0x41001000ULL + 16, 0x42000000ULL | TBL);
	T_OK(arch_walk(&st, 0xffffffc000202abcULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x42000abcULL);
	T_EQ_U64(w.nsteps, 3);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_STR(w.step[1].level, "PMD");
	T_EQ_STR(w.step[2].level, "PTE");
	/* Bit 39 clear: outside the 39-bit kernel range. */
	T_EQ_U64(arch_walk(&st, 0xffffff0000000000ULL, fake_read, &m, &w, &err),
		 MDF_ERR_NODATA);
}

/*
 * 64 KiB pages, a kernel built for 52-bit VAs running with 48
 * (TCR_EL1.T1SZ 16), 52-bit physical addresses: three levels; the top
 * table is indexed the 52-bit way, and PA[51:48] come from descriptor
 * bits [15:12].
 */
static void t_walk_64k_52(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;
	uint64_t va = 0xfffffc0000054321ULL;

	ki_v61(&ki);
	SET_U64(ki.page_size, 65536);
	SET_U64(ki.num.VA_BITS, 52);
	SET_U64(ki.num.TCR_EL1_T1SZ, 16);
	SET_U64(ki.num.MAX_PHYSMEM_BITS, 52);
	T_OK(arch_init(&st, EM_AARCH64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.levels, 3);
	T_EQ_U64(st.va_bits, 48);
	T_EQ_U64(st.pgd_va_bits, 52);
	/* shifts 42, 29, 16.  [51:42] of va: 0x3ff (48-bit index 0x3f, plus
	 * the 52-bit offset 1024 - 64 = 960); [41:29] 0; [28:16] 5. */
	fake_put(&m, st.pgd_paddr + 0x3ff * 8, 0x41000000ULL | TBL);
	fake_put(&m, 0x41000000ULL, 0x41010000ULL | TBL);
	/* PA 0x3_0000_4567_0000: bits [51:48] = 3 in descriptor bits [15:12]. */
	fake_put(&m, 0x41010000ULL + 5 * 8, 0x45670000ULL | (3ULL << 12) | TBL);
	T_OK(arch_walk(&st, va, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x0003000045674321ULL);
	T_EQ_U64(w.map_size, 65536);
	T_EQ_U64(m.log[0], st.pgd_paddr + 0x3ff * 8);
}

/*
 * FEAT_LPA2: 16 KiB pages, 52-bit VAs in use (Debian's 6.12 arm64-16k
 * kernel under qemu -cpu max: VA_BITS=52, TCR_EL1_T1SZ=0xc).  Four levels
 * (shifts 47, 36, 25, 14; the top one 5 bits); PA[51:50] are descriptor
 * bits [9:8], in table descriptors too.  No linear-map window from the
 * layout rule without PT_LOADs.
 */
static void t_walk_16k_lpa2(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;
	uint64_t va = 0xfff0000000004321ULL; /* the linear map's first page */

	ki_v61(&ki);
	SET_U64(ki.page_size, 16384);
	SET_U64(ki.num.VA_BITS, 52);
	SET_U64(ki.num.TCR_EL1_T1SZ, 12);
	SET_U64(ki.num.MAX_PHYSMEM_BITS, 52);
	T_OK(arch_init(&st, EM_AARCH64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.levels, 4);
	T_EQ_U64(st.va_bits, 52);
	T_ASSERT(st.arm64_lpa2);
	T_ASSERT(!st.direct.valid);
	/* [51:47] 0, [46:36] 0, [35:25] 0, [24:14] 1.  The PUD table is at
	 * PA 0x4_0000_4100_0000 (bit 50 set: descriptor bit 8). */
	fake_put(&m, st.pgd_paddr, 0x41000000ULL | 0x100 | TBL);
	fake_put(&m, 0x0004000041000000ULL, 0x41004000ULL | TBL);
	fake_put(&m, 0x41004000ULL, 0x41008000ULL | TBL);
	/* The page at PA 0x8_0000_5678_0000 (bit 51: descriptor bit 9), with
	 * attribute bits the kernel sets (AF, UXN, PXN, DBM). */
	fake_put(&m, 0x41008000ULL + 8, 0x56780000ULL | 0x200 | 0x0068000000000403ULL);
	T_OK(arch_walk(&st, va, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x0008000056780321ULL);
	T_EQ_U64(w.nsteps, 4);
	T_EQ_U64(w.map_size, 16384);
	/* Without LPA2 (48-bit VAs) bits 9:8 are shareability, not address. */
	SET_U64(ki.num.VA_BITS, 48);
	SET_U64(ki.num.TCR_EL1_T1SZ, 16);
	T_OK(arch_init(&st, EM_AARCH64, &ki, NULL, 0, &err), &err);
	T_ASSERT(!st.arm64_lpa2);
}

/* The lower-case spelling of some vendor kernels counts the same. */
static void t_t1sz_lower_case(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_v61(&ki);
	SET_U64(ki.num.VA_BITS, 52);
	SET_U64(ki.page_size, 65536);
	ki.num.TCR_EL1_T1SZ.set = false;
	SET_U64(ki.num.tcr_el1_t1sz, 16);
	T_OK(arch_init(&st, EM_AARCH64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.va_bits, 48);
	T_EQ_U64(st.pgd_va_bits, 52);
}

/* 16 KiB pages, 47-bit VAs: three levels of 11 bits. */
static void t_walk_16k(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	uint64_t pa;

	ki_v61(&ki);
	SET_U64(ki.page_size, 16384);
	SET_U64(ki.num.VA_BITS, 47);
	SET_U64(ki.num.TCR_EL1_T1SZ, 17);
	T_OK(arch_init(&st, EM_AARCH64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.levels, 3);
	/* shifts 36, 25, 14: [46:36] 0x7ff, [35:25] 0, [24:14] 3 */
	fake_put(&m, st.pgd_paddr + 0x7ff * 8, 0x41000000ULL | TBL);
	fake_put(&m, 0x41000000ULL, 0x41004000ULL | TBL);
	fake_put(&m, 0x41004000ULL + 3 * 8, 0x48000000ULL | TBL);
	T_OK(arch_vtop(&st, 0xfffffff00000c123ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x48000123ULL);
}

int main(void)
{
	T_RUN(t_ops_find);
	T_RUN(t_init_v61);
	T_RUN(t_user_leaves);
	T_RUN(t_user_prot_none);
	T_RUN(t_init_no_hints);
	T_RUN(t_init_errors);
	T_RUN(t_walk_4k);
	T_RUN(t_walk_39);
	T_RUN(t_walk_64k_52);
	T_RUN(t_walk_16k);
	T_RUN(t_t1sz_lower_case);
	T_RUN(t_walk_16k_lpa2);
	return t_done();
}
