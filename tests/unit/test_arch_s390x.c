/*
 * tests/unit/test_arch_s390x.c - the architecture layer on s390x.
 *
 * DAT tables are built by hand in a fake physical memory (paddr -> the
 * 8-byte entry as a number: the reader has already converted it from the
 * dump's big-endian order).  The read callback logs every address it is
 * asked for, so the tests also prove what translation reads.
 *
 * Two kernels, with made-up but self-consistent numbers:
 *   6.1 (Debian bookworm's layout): identity map at 0, the image in it,
 *       KASLR as a shift (KERNELOFFSET), 1 GiB of RAM with the crashkernel
 *       region at 0x30000000 left out of the PT_LOADs;
 *   6.12 (the split layout of 6.10 on): identity map at IB, the image at
 *       KOFS (virtual) / KPHYS (physical), vmalloc and vmemmap between,
 *       the PT_LOADs the kernel's /proc/vmcore writes (RAM at IB + paddr,
 *       one for the image).
 */
#include <elf.h>

#include "archtest.h"
#include "util.h"

#ifndef EM_S390
#define EM_S390 22
#endif

/* 6.1 */
#define KOFS61 0x1e800000ULL
#define SWAPPER61 0x1fb8c000ULL

/* 6.12 */
#define IB 0x000001c000000000ULL
#define KOFS 0x000003ffdc000000ULL
#define KPHYS 0x2e000000ULL
#define STEXT (KOFS + 0x100000ULL)
#define SWAPPER (KOFS + 0x1b00000ULL)
#define SWAPPER_PA (KPHYS + 0x1b00000ULL)
#define VMALLOC 0x000003e000000000ULL
#define VMEMMAP 0x000003d000000000ULL

/* Entry bits */
#define INV 0x20ULL             /* region/segment entry invalid */
#define TT(t) ((uint64_t)(t) << 2)
#define TL3 0x3ULL              /* full next table */
#define FC 0x400ULL             /* large frame */
#define PINV 0x400ULL           /* page entry invalid */
#define RO 0x200ULL

static uint64_t va5(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t sx, uint64_t px,
		    uint64_t off)
{
	return r1 << 53 | r2 << 42 | r3 << 31 | sx << 20 | px << 12 | off;
}

static void ki_61(struct kinfo *ki)
{
	memset(ki, 0, sizeof(*ki));
	snprintf(ki->osrelease, sizeof(ki->osrelease), "6.1.0-37-s390x");
	SET_U64(ki->page_size, 4096);
	SET_U64(ki->kernel_offset, KOFS61);
	SET_U64(ki->sym.swapper_pg_dir, SWAPPER61);
	SET_U64(ki->num.MAX_PHYSMEM_BITS, 46);
	SET_U64(ki->num.SECTION_SIZE_BITS, 28);
}

static void ki_612(struct kinfo *ki)
{
	memset(ki, 0, sizeof(*ki));
	snprintf(ki->osrelease, sizeof(ki->osrelease), "6.12.41+deb13-s390x");
	SET_U64(ki->page_size, 4096);
	SET_U64(ki->kernel_offset, KOFS);
	SET_U64(ki->sym.swapper_pg_dir, SWAPPER);
	SET_U64(ki->sym.vmemmap, VMEMMAP);
	SET_U64(ki->num.VMALLOC_START, (int64_t)VMALLOC);
	SET_U64(ki->num.MAX_PHYSMEM_BITS, 46);
	SET_U64(ki->num.SECTION_SIZE_BITS, 28);
}

/* 6.1's /proc/vmcore: vaddr == paddr, the crashkernel region left out. */
static const struct arch_seg_hint segs_61[] = {
	{ 0, 0, 0x30000000 },
	{ 0x38000000, 0x38000000, 0x08000000 },
};

/* 6.12's: RAM at IB + paddr, then the image (_stext to _end). */
static const struct arch_seg_hint segs_612[] = {
	{ IB, 0, 0x20000000 },
	{ IB + 0x28000000, 0x28000000, 0x18000000 },
	{ STEXT, KPHYS + 0x100000, 0x1c00000 },
};

static void t_ops(void)
{
	const struct arch_ops *ops = arch_ops_find(EM_S390);

	T_ASSERT(ops == &arch_s390x_ops);
	T_EQ_STR(ops->name, "s390x");
	T_EQ_STR(ops->uts_machine, "s390x");
	T_EQ_U64(arch_machine_from_uts("s390x"), EM_S390);
}

/* 6.1: everything at va == pa; the root is swapper_pg_dir itself. */
static void t_init_61(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	uint64_t pa;

	ki_61(&ki);
	T_OK(arch_init(&st, EM_S390, &ki, segs_61, ARRAY_SIZE(segs_61), &err), &err);
	T_EQ_U64(st.page_size, 4096);
	T_EQ_U64(st.page_shift, 12);
	T_EQ_U64(st.max_physmem_bits, 46);
	T_ASSERT(st.have_phys_base);
	T_EQ_U64(st.phys_base, 0);
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, SWAPPER61);
	T_ASSERT(st.page_offset_exact);
	T_EQ_U64(st.page_offset, 0);
	T_ASSERT(!st.vmemmap_exact);
	T_ASSERT(!st.text.valid);
	T_ASSERT(st.direct.valid);
	T_EQ_U64(st.direct.vaddr, 0);
	T_EQ_U64(st.direct.size, 0x40000000);
	T_EQ_U64(st.direct.paddr, 0);
	T_ASSERT(arch_kvtop_fast(&st, 0x12345678, &pa));
	T_EQ_U64(pa, 0x12345678);
	T_ASSERT(arch_kvtop_fast(&st, SWAPPER61 + 8, &pa));
	T_EQ_U64(pa, SWAPPER61 + 8);
	/* vmemmap and vmalloc lie above RAM: page tables. */
	T_ASSERT(!arch_kvtop_fast(&st, 0x40000000, &pa));
	T_ASSERT(!arch_kvtop_fast(&st, 0x3d100000000ULL, &pa));

	/* A kdump-compressed input: no PT_LOADs, the release says va == pa
	 * for the root; no window is proven. */
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, SWAPPER61);
	T_ASSERT(!st.direct.valid && !st.text.valid);
	T_ASSERT(st.page_offset_exact);

	/* MAX_PHYSMEM_BITS: CONFIG_MAX_PHYSMEM_BITS goes to 53; 46 without
	 * the number (42 before Linux 3.3). */
	SET_U64(ki.num.MAX_PHYSMEM_BITS, 53);
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.max_physmem_bits, 53);
	ki.num.MAX_PHYSMEM_BITS.set = false;
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.max_physmem_bits, 46);
	snprintf(ki.osrelease, sizeof(ki.osrelease), "3.0.101-63-default");
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.max_physmem_bits, 42);
}

/* 6.12: the identity map at IB, the image at KOFS -> KPHYS, both proven
 * by the kernel's PT_LOADs; the root through the image's offset. */
static void t_init_split(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	uint64_t pa;

	ki_612(&ki);
	T_OK(arch_init(&st, EM_S390, &ki, segs_612, ARRAY_SIZE(segs_612), &err), &err);
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
	T_EQ_U64(st.pgd_paddr, 0x2fb00000);
	T_ASSERT(!st.s390x.root_via_os_info);
	T_ASSERT(st.page_offset_exact);
	T_EQ_U64(st.page_offset, IB);
	T_ASSERT(st.vmemmap_exact);
	T_EQ_U64(st.vmemmap_base, VMEMMAP);
	T_ASSERT(st.have_phys_base);
	T_EQ_U64(st.phys_base, 0);
	T_ASSERT(st.direct.valid);
	T_EQ_U64(st.direct.vaddr, IB);
	T_EQ_U64(st.direct.size, 0x40000000);
	T_EQ_U64(st.direct.paddr, 0);
	T_ASSERT(st.text.valid);
	T_EQ_U64(st.text.vaddr, STEXT);
	T_EQ_U64(st.text.size, 0x1c00000);
	T_EQ_U64(st.text.paddr, KPHYS + 0x100000);
	T_ASSERT(arch_kvtop_fast(&st, IB + 0x12345678, &pa));
	T_EQ_U64(pa, 0x12345678);
	T_ASSERT(arch_kvtop_fast(&st, SWAPPER + 0x10, &pa));
	T_EQ_U64(pa, 0x2fb00010);
	/* va == pa is not the identity map any more; vmemmap and vmalloc
	 * need the walk. */
	T_ASSERT(!arch_kvtop_fast(&st, 0x12345678, &pa));
	T_ASSERT(!arch_kvtop_fast(&st, VMEMMAP, &pa));
	T_ASSERT(!arch_kvtop_fast(&st, VMALLOC + 0x1000, &pa));

	/* Without NUMBER(VMALLOC_START) (it came in 6.9) the PT_LOADs still
	 * say it; with no release either, the same. */
	ki.num.VMALLOC_START.set = false;
	ki.osrelease[0] = '\0';
	T_OK(arch_init(&st, EM_S390, &ki, segs_612, ARRAY_SIZE(segs_612), &err), &err);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
	T_ASSERT(st.direct.valid && st.text.valid);

	/* A distribution kernel with the 6.10 change carried back. */
	ki_612(&ki);
	ki.num.VMALLOC_START.set = false;
	snprintf(ki.osrelease, sizeof(ki.osrelease), "5.14.0-503.11.1.el9_5.s390x");
	T_OK(arch_init(&st, EM_S390, &ki, segs_612, ARRAY_SIZE(segs_612), &err), &err);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
}

/* 6.12 without the image's PT_LOAD: a kdump-compressed input, or QEMU's
 * dump-guest-memory (one PT_LOAD at vaddr 0).  No window; the walk finds
 * the root through os_info. */
static void t_init_split_no_image(void)
{
	static const struct arch_seg_hint qemu[] = { { 0, 0, 0x40000000 } };
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_612(&ki);
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	T_ASSERT(!st.have_pgd);
	T_ASSERT(st.s390x.root_via_os_info);
	T_EQ_U64(st.s390x.swapper_va, SWAPPER);
	T_EQ_U64(st.s390x.kernel_offset, KOFS);
	T_ASSERT(!st.direct.valid && !st.text.valid);
	T_ASSERT(!st.page_offset_exact);

	T_OK(arch_init(&st, EM_S390, &ki, qemu, ARRAY_SIZE(qemu), &err), &err);
	T_ASSERT(!st.have_pgd);
	T_ASSERT(st.s390x.root_via_os_info);
	T_ASSERT(!st.direct.valid && !st.text.valid);
}

/* 6.10 on with IDENTITYBASE= and KERNELOFFPHYS= (commit 378e32aa8197):
 * the root and the identity base without any PT_LOAD; with the PT_LOADs
 * they must agree. */
static void t_init_split_keys(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_612(&ki);
	SET_U64(ki.identity_base, IB);
	SET_U64(ki.kernel_off_phys, KPHYS);
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
	T_ASSERT(!st.s390x.root_via_os_info);
	T_ASSERT(st.page_offset_exact);
	T_EQ_U64(st.page_offset, IB);
	T_ASSERT(!st.direct.valid && !st.text.valid);

	T_OK(arch_init(&st, EM_S390, &ki, segs_612, ARRAY_SIZE(segs_612), &err), &err);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
	T_ASSERT(st.direct.valid && st.text.valid);

	SET_U64(ki.identity_base, IB + 0x100000000ULL);
	T_EQ_U64(arch_init(&st, EM_S390, &ki, segs_612, ARRAY_SIZE(segs_612), &err),
		 MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "IDENTITYBASE=") != NULL);
	SET_U64(ki.identity_base, IB);
	SET_U64(ki.kernel_off_phys, KPHYS + 0x100000);
	T_EQ_U64(arch_init(&st, EM_S390, &ki, segs_612, ARRAY_SIZE(segs_612), &err),
		 MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "KERNELOFFPHYS=") != NULL);
}

static void t_init_errors(void)
{
	static const struct arch_seg_hint two_images[] = {
		{ IB, 0, 0x20000000 },
		{ IB + 0x28000000, 0x28000000, 0x18000000 },
		{ STEXT, KPHYS + 0x100000, 0x1000000 },
		{ STEXT + 0x1000000, KPHYS + 0x1200000, 0xc00000 },
	};
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_61(&ki);
	SET_U64(ki.page_size, 65536);
	T_EQ_U64(arch_init(&st, EM_S390, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "s390x: PAGESIZE=65536 in VMCOREINFO, expected 4096");

	ki_61(&ki);
	SET_U64(ki.num.MAX_PHYSMEM_BITS, 54);
	T_EQ_U64(arch_init(&st, EM_S390, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "s390x: NUMBER(MAX_PHYSMEM_BITS)=54 out of range 32..53");

	/* A DAT table starts on a page. */
	ki_61(&ki);
	SET_U64(ki.sym.swapper_pg_dir, SWAPPER61 + 0x800);
	T_EQ_U64(arch_init(&st, EM_S390, &ki, segs_61, ARRAY_SIZE(segs_61), &err),
		 MDF_ERR_FORMAT);
	T_MSG(err, "s390x: SYMBOL(swapper_pg_dir)=0x1fb8c800 is at paddr 0x1fb8c800, "
	      "not on a 4 KiB boundary (a DAT table origin is)");

	/* 6.12 with its root below vmalloc. */
	ki_612(&ki);
	SET_U64(ki.num.VMALLOC_START, (int64_t)(KOFS + 0x10000000ULL));
	T_EQ_U64(arch_init(&st, EM_S390, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "s390x: Linux 6.12.41+deb13-s390x, but VMCOREINFO's numbers say the "
	      "identity-mapped layout before Linux 6.10 (SYMBOL(swapper_pg_dir)=0x3ffddb00000)");

	/* 6.12 with PT_LOADs of the old layout that hold its root. */
	ki_61(&ki);
	snprintf(ki.osrelease, sizeof(ki.osrelease), "6.12.41+deb13-s390x");
	T_EQ_U64(arch_init(&st, EM_S390, &ki, segs_61, ARRAY_SIZE(segs_61), &err),
		 MDF_ERR_FORMAT);
	T_MSG(err, "s390x: Linux 6.12.41+deb13-s390x, but the PT_LOADs say the "
	      "identity-mapped layout before Linux 6.10 (SYMBOL(swapper_pg_dir)=0x1fb8c000)");

	/* A 6.9 kernel (root below VMALLOC_START) with PT_LOADs of a shifted
	 * identity map. */
	ki_61(&ki);
	snprintf(ki.osrelease, sizeof(ki.osrelease), "6.9.12-s390x");
	SET_U64(ki.num.VMALLOC_START, (int64_t)VMALLOC);
	T_EQ_U64(arch_init(&st, EM_S390, &ki, segs_612, 2, &err), MDF_ERR_FORMAT);
	T_MSG(err, "s390x: SYMBOL(swapper_pg_dir)=0x1fb8c000 and NUMBER(VMALLOC_START)=0x3e000000000 "
	      "say the identity-mapped layout before Linux 6.10, the PT_LOADs say the "
	      "split layout of Linux 6.10 on");

	/* Two PT_LOADs for the image, at different offsets. */
	ki_612(&ki);
	T_EQ_U64(arch_init(&st, EM_S390, &ki, two_images, ARRAY_SIZE(two_images), &err),
		 MDF_ERR_FORMAT);
	T_MSG(err, "s390x: PT_LOADs 2 and 3 both map the kernel image (above "
	      "KERNELOFFSET=0x3ffdc000000), at offsets 0x3ffae000000 and 0x3ffadf00000");

	/* The root outside the image. */
	ki_612(&ki);
	SET_U64(ki.kernel_offset, SWAPPER + 0x1000);
	T_EQ_U64(arch_init(&st, EM_S390, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "s390x: SYMBOL(swapper_pg_dir)=0x3ffddb00000 is below "
	      "KERNELOFFSET=0x3ffddb01000, the kernel image's virtual base");
}

/* A region-first table on top (5 levels): every level, both large frames,
 * the invalid bits, the table-length fields and the table-type check. */
static void tables5(struct fake_mem *m)
{
	/* region-first at SWAPPER61 */
	fake_put(m, SWAPPER61, TT(3) | INV);
	fake_put(m, SWAPPER61 + 1 * 8, 0x1fb90000ULL | TT(3) | TL3);
	/* region-second at 0x1fb90000 */
	fake_put(m, 0x1fb90000ULL + 2 * 8, 0x1fb94000ULL | TT(2) | TL3);
	fake_put(m, 0x1fb90000ULL + 5 * 8, 0x1fb98000ULL | TT(2) | 0x40 | 0x1); /* blocks 1-1 */
	fake_put(m, 0x1fb90000ULL + 6 * 8, TT(2) | INV);
	/* region-third at 0x1fb94000 */
	fake_put(m, 0x1fb94000ULL + 3 * 8, 0x1fb9c000ULL | TT(1) | TL3);
	fake_put(m, 0x1fb94000ULL + 4 * 8, 0x80000000ULL | FC | TT(1));
	fake_put(m, 0x1fb94000ULL + 7 * 8, 0x1fb9c000ULL | TT(0) | TL3);
	/* the second region-third, of which only block 1 exists */
	fake_put(m, 0x1fb98000ULL + 0x200 * 8, 0x100000000ULL | FC | TT(1));
	/* segment at 0x1fb9c000 */
	fake_put(m, 0x1fb9c000ULL + 4 * 8, 0x1fba0800ULL | TT(0));
	fake_put(m, 0x1fb9c000ULL + 6 * 8, 0x23400000ULL | FC | TT(0));
	fake_put(m, 0x1fb9c000ULL + 7 * 8, TT(0) | INV);
	/* page table (2 KiB) at 0x1fba0800 */
	fake_put(m, 0x1fba0800ULL + 5 * 8, 0x7654000ULL | RO);
	fake_put(m, 0x1fba0800ULL + 6 * 8, 0x7655000ULL | PINV);
	fake_put(m, 0x1fba0800ULL + 8 * 8, 0x7656000ULL | 0x800);
}

static void t_walk5(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;
	uint64_t pa, va;

	ki_61(&ki);
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	tables5(&m);

	va = va5(1, 2, 3, 4, 5, 0x678);
	T_OK(arch_walk(&st, va, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x7654678);
	T_EQ_U64(w.map_size, 4096);
	T_EQ_U64(w.nsteps, 5);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_STR(w.step[1].level, "P4D");
	T_EQ_STR(w.step[2].level, "PUD");
	T_EQ_STR(w.step[3].level, "PMD");
	T_EQ_STR(w.step[4].level, "PTE");
	T_EQ_U64(w.step[0].entry_paddr, SWAPPER61 + 8);
	T_EQ_U64(w.step[4].entry, 0x7654000ULL | RO);
	/* Entry 0 for the table type, then one entry per level. */
	T_EQ_U64(m.nlog, 6);
	T_EQ_U64(m.log[0], SWAPPER61);
	T_EQ_U64(m.log[1], SWAPPER61 + 8);
	T_EQ_U64(m.log[2], 0x1fb90010);
	T_EQ_U64(m.log[3], 0x1fb94018);
	T_EQ_U64(m.log[4], 0x1fb9c020);
	T_EQ_U64(m.log[5], 0x1fba0828);

	/* 1 MiB frame in a segment entry (FC, EDAT-1). */
	T_OK(arch_walk(&st, va5(1, 2, 3, 6, 0, 0) | 0xabcde, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x234abcde);
	T_EQ_U64(w.map_size, 1ULL << 20);
	T_EQ_U64(w.nsteps, 4);
	/* 2 GiB frame in a region-third entry (FC, EDAT-2). */
	T_OK(arch_walk(&st, va5(1, 2, 4, 0, 0, 0) + 0x12345678, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x92345678);
	T_EQ_U64(w.map_size, 1ULL << 31);
	T_EQ_U64(w.nsteps, 3);

	/* Invalid entries, each level named. */
	va = va5(0, 0, 0, 0, 0, 0x10);
	T_EQ_U64(arch_vtop(&st, va, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x10 not mapped "
	      "(PGD entry 0x2c at paddr 0x1fb8c000 not valid)");
	va = va5(1, 6, 0, 0, 0, 0);
	T_EQ_U64(arch_vtop(&st, va, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x20180000000000 not mapped "
	      "(P4D entry 0x28 at paddr 0x1fb90030 not valid)");
	va = va5(1, 2, 3, 7, 0, 0);
	T_EQ_U64(arch_vtop(&st, va, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x20080180700000 not mapped "
	      "(PMD entry 0x20 at paddr 0x1fb9c038 not valid)");
	va = va5(1, 2, 3, 4, 6, 0);
	T_EQ_U64(arch_vtop(&st, va, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x20080180406000 not mapped "
	      "(PTE entry 0x7655400 at paddr 0x1fba0830 not valid)");
	/* Bit 52 of a page entry must be zero. */
	va = va5(1, 2, 3, 4, 8, 0);
	T_EQ_U64(arch_vtop(&st, va, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x20080180408000 not mapped "
	      "(PTE entry 0x7656800 at paddr 0x1fba0840 has bit 52 set, "
	      "a translation-specification exception)");
	/* Unreadable: the read's error, with the level. */
	va = va5(1, 2, 3, 4, 9, 0);
	T_EQ_U64(arch_vtop(&st, va, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x20080180409000: PTE entry at paddr 0x1fba0848: "
	      "fake: paddr 0x1fba0848 not in memory");

	/* The table offset and length of a region entry limit the next
	 * table: block 0 of this region-third table is not there, block 1
	 * is. */
	va = va5(1, 5, 3, 0, 0, 0);
	T_EQ_U64(arch_vtop(&st, va, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x20140180000000 not mapped "
	      "(P4D entry 0x1fb98049 at paddr 0x1fb90028 limits the region-third table "
	      "to blocks 1-1, index 0x3 is in block 0)");
	T_OK(arch_vtop(&st, va5(1, 5, 0x200, 0, 0, 0x1234), fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x100001234);

	/* A region-third table's entry with the type bits of a segment
	 * table: corrupt, not mapped. */
	va = va5(1, 2, 7, 0, 0, 0);
	T_EQ_U64(arch_vtop(&st, va, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x20080380000000 not mapped "
	      "(PUD entry 0x1fb9c003 at paddr 0x1fb94038 has the table type of a segment "
	      "table, in a region-third table)");
}

/* A region-third table on top (3 levels, the kernel's usual): 6.1's
 * identity map in 2 GiB frames, vmalloc through segment and page tables. */
static void t_walk3(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;
	uint64_t pa, va = 0x3e000123456ULL;

	ki_61(&ki);
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	fake_put(&m, SWAPPER61, 0x0ULL | FC | TT(1));
	/* va >> 31 = 0x7c0; segment index 1; page index 0x23 */
	fake_put(&m, SWAPPER61 + 0x7c0 * 8, 0x1fbc0000ULL | TT(1) | TL3);
	fake_put(&m, 0x1fbc0000ULL + 1 * 8, 0x1fbc4000ULL | TT(0));
	fake_put(&m, 0x1fbc4000ULL + 0x23 * 8, 0x3aa000ULL);

	T_OK(arch_walk(&st, va, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x3aa456);
	T_EQ_U64(w.map_size, 4096);
	T_EQ_U64(w.nsteps, 3);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_STR(w.step[1].level, "PMD");
	T_EQ_STR(w.step[2].level, "PTE");
	T_EQ_U64(w.step[0].entry_paddr, SWAPPER61 + 0x3e00);

	/* The identity map: a 2 GiB frame at entry 0. */
	T_OK(arch_walk(&st, 0x12345678, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x12345678);
	T_EQ_U64(w.map_size, 1ULL << 31);
	T_EQ_U64(w.nsteps, 1);

	/* Beyond 4 TiB: outside what a region-third table translates. */
	m.nlog = 0;
	T_EQ_U64(arch_vtop(&st, 1ULL << 42, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x40000000000 is beyond the kernel's 3-level "
	      "tables (a region-third table on top)");
	T_EQ_U64(m.nlog, 1);

	/* swapper_pg_dir itself unreadable. */
	memset(&m, 0, sizeof(m));
	T_EQ_U64(arch_vtop(&st, va, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x3e000123456: table type from entry 0 of "
	      "swapper_pg_dir at paddr 0x1fb8c000: fake: paddr 0x1fb8c000 not in memory");

	/* A region-second table on top: 4 levels. */
	fake_put(&m, SWAPPER61, TT(2) | INV);
	fake_put(&m, SWAPPER61 + 8, 0x1fbd0000ULL | TT(2) | TL3);
	fake_put(&m, 0x1fbd0000ULL, 0x1fbd4000ULL | TT(1) | TL3);
	fake_put(&m, 0x1fbd4000ULL, 0x1fbd8000ULL | TT(0));
	fake_put(&m, 0x1fbd8000ULL, 0x4000000ULL);
	T_OK(arch_walk(&st, 1ULL << 42 | 0x123, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x4000123);
	T_EQ_U64(w.nsteps, 4);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_STR(w.step[1].level, "PUD");
}

/* 6.12 without the image's PT_LOAD: the root from the lowcore's os_info. */
static void os_info(struct fake_mem *m, uint64_t magic, uint64_t kofs)
{
	fake_put(m, 0xe18, 0x9000);
	fake_put(m, 0x9000, magic);
	fake_put(m, 0x9000 + 32 + 20 * 5, kofs);   /* KASLR_OFFSET */
	fake_put(m, 0x9000 + 32 + 20 * 6, KPHYS);  /* KASLR_OFF_PHYS */
}

static void t_walk_os_info(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;
	uint64_t pa;

	ki_612(&ki);
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	os_info(&m, 0x4f53494e464f535aULL, KOFS);
	/* region-third on top; the identity map at IB (entry 0x380) */
	fake_put(&m, SWAPPER_PA, TT(1) | INV);
	fake_put(&m, SWAPPER_PA + 0x380 * 8, 0x0ULL | FC | TT(1));
	/* the image: va >> 31 = 0x7ff, segment index 0x5db, a 1 MiB frame */
	fake_put(&m, SWAPPER_PA + 0x7ff * 8, 0x2fa00000ULL | TT(1) | TL3);
	fake_put(&m, 0x2fa00000ULL + 0x5db * 8, 0x2fb00000ULL | FC | TT(0));

	/* init_mem reads os_info and the top table's type, once */
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, SWAPPER_PA);
	T_EQ_U64(st.levels, 3);
	T_EQ_U64(m.nlog, 5);
	T_EQ_U64(m.log[0], 0xe18);
	T_EQ_U64(m.log[1], 0x9000);
	T_EQ_U64(m.log[2], 0x9084);
	T_EQ_U64(m.log[3], 0x9098);
	T_EQ_U64(m.log[4], SWAPPER_PA);
	m.nlog = 0;
	T_OK(arch_vtop(&st, IB + 0x12345678, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x12345678);
	T_EQ_U64(m.nlog, 1);
	T_EQ_U64(m.log[0], SWAPPER_PA + 0x1c00);
	T_OK(arch_walk(&st, SWAPPER + 0x18, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, SWAPPER_PA + 0x18);
	T_EQ_U64(w.map_size, 1ULL << 20);
	T_EQ_U64(w.nsteps, 2);

	/* No os_info there, or one of another kernel: the walks say why. */
	os_info(&m, 0, KOFS);
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_EQ_U64(arch_vtop(&st, IB, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x1c000000000: no page-table root "
	      "(no os_info magic at paddr 0x9000: 0x0)");
	os_info(&m, 0x4f53494e464f535aULL, KOFS + 0x4000);
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_EQ_U64(arch_vtop(&st, IB, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x1c000000000: no page-table root (os_info at "
	      "paddr 0x9000 has the kernel image at 0x3ffdc004000, KERNELOFFSET=0x3ffdc000000)");
	fake_put(&m, 0xe18, 0);
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_EQ_U64(arch_vtop(&st, IB, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x1c000000000: no page-table root (the lowcore's "
	      "os_info pointer at paddr 0xe18 is 0x0, not a page)");
	memset(&m, 0, sizeof(m));
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_EQ_U64(arch_vtop(&st, IB, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x1c000000000: no page-table root (os_info at "
	      "paddr 0xe18: fake: paddr 0xe18 not in memory)");
}

/* Nothing to go by: no release, no VMALLOC_START, no PT_LOADs. */
static void t_walk_no_root(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	uint64_t pa;

	ki_61(&ki);
	ki.osrelease[0] = '\0';
	T_OK(arch_init(&st, EM_S390, &ki, NULL, 0, &err), &err);
	T_ASSERT(!st.have_pgd && !st.s390x.root_via_os_info);
	T_EQ_U64(arch_vtop(&st, 0x1000, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "s390x: virtual address 0x1000: no page-table root (VMCOREINFO needs "
	      "SYMBOL(swapper_pg_dir) and, since Linux 6.10, KERNELOFFSET with KERNELOFFPHYS, "
	      "the kernel image's PT_LOAD or the lowcore's os_info; OSRELEASE or "
	      "NUMBER(VMALLOC_START) says which)");
	T_EQ_U64(m.nlog, 0);
}

static void t_debuginfo_defaults(void)
{
	struct kinfo ki;

	memset(&ki, 0, sizeof(ki));
	snprintf(ki.osrelease, sizeof(ki.osrelease), "6.1.0-37-s390x");
	arch_debuginfo_defaults(EM_S390, &ki, 0, NULL, 0);
	T_ASSERT(ki.num.SECTION_SIZE_BITS.set);
	T_EQ_U64(ki.num.SECTION_SIZE_BITS.v, 28);
	T_ASSERT(!ki.kernel_offset.set);
	memset(&ki, 0, sizeof(ki));
	snprintf(ki.osrelease, sizeof(ki.osrelease), "6.13.0");
	arch_debuginfo_defaults(EM_S390, &ki, 0, NULL, 0);
	T_EQ_U64(ki.num.SECTION_SIZE_BITS.v, 27);
	/* A value already there stays; no release, no guess. */
	SET_U64(ki.num.SECTION_SIZE_BITS, 28);
	arch_debuginfo_defaults(EM_S390, &ki, 0, NULL, 0);
	T_EQ_U64(ki.num.SECTION_SIZE_BITS.v, 28);
	memset(&ki, 0, sizeof(ki));
	arch_debuginfo_defaults(EM_S390, &ki, 0, NULL, 0);
	T_ASSERT(!ki.num.SECTION_SIZE_BITS.set);
}

int main(void)
{
	T_RUN(t_ops);
	T_RUN(t_init_61);
	T_RUN(t_init_split);
	T_RUN(t_init_split_no_image);
	T_RUN(t_init_split_keys);
	T_RUN(t_init_errors);
	T_RUN(t_walk5);
	T_RUN(t_walk3);
	T_RUN(t_walk_os_info);
	T_RUN(t_walk_no_root);
	T_RUN(t_debuginfo_defaults);
	return t_done();
}
