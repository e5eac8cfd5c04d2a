/*
 * tests/unit/test_arch_ppc64.c - the architecture layer on ppc64 (Book3S-64,
 * little-endian).
 *
 * Page tables are built by hand in a fake physical memory (paddr -> the 8
 * bytes there, read little-endian by the callback as a dump reader would);
 * ppc64's table entries are big-endian, so the tests store them swapped.
 * The kernel facts are those of Debian's 6.1.0-57-powerpc64le on a qemu
 * pseries guest (64 KiB pages) made by the lab, POWER9 (radix) and POWER8
 * (hash).
 */
#include <elf.h>

#include "archtest.h"
#include "util.h"

#define PO 0xc000000000000000ULL
#define SWAPPER (PO + 0x2740000ULL)
#define VMEMMAP_LIST (PO + 0x27591c0ULL)
#define PSIZE (PO + 0x27593c0ULL)
#define PSIZE_DEFS (PO + 0x27593c8ULL)

#define PRESENT (1ULL << 63)
#define LEAF (1ULL << 62)
#define RW 0x106ULL   /* some permission and accessed bits */

static uint64_t be(uint64_t v)
{
	return __builtin_bswap64(v);
}

static void ki_p9(struct kinfo *ki, int radix)
{
	memset(ki, 0, sizeof(*ki));
	snprintf(ki->osrelease, sizeof(ki->osrelease), "6.1.0-57-powerpc64le");
	SET_U64(ki->page_size, 65536);
	SET_U64(ki->num.MAX_PHYSMEM_BITS, 51);
	SET_U64(ki->sym.swapper_pg_dir, SWAPPER);
	if (radix >= 0)
		SET_U64(ki->num.RADIX_MMU, radix);
	SET_U64(ki->sym.vmemmap_list, VMEMMAP_LIST);
	SET_U64(ki->sym.mmu_vmemmap_psize, PSIZE);
	SET_U64(ki->sym.mmu_psize_defs, PSIZE_DEFS);
	SET_U64(ki->size.mmu_psize_def, 96);
	SET_U64(ki->off.mmu_psize_def_shift, 0);
	SET_U64(ki->size.vmemmap_backing, 24);
	SET_U64(ki->off.vmemmap_backing_list, 0);
	SET_U64(ki->off.vmemmap_backing_phys, 8);
	SET_U64(ki->off.vmemmap_backing_virt_addr, 16);
}

static void t_init(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	uint64_t pa;

	T_ASSERT(arch_ops_find(EM_PPC64) == &arch_ppc64_ops);
	T_EQ_U64(arch_machine_from_uts("ppc64le"), EM_PPC64);
	ki_p9(&ki, 1);
	T_OK(arch_init(&st, EM_PPC64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.page_size, 65536);
	T_EQ_U64(st.levels, 4);
	T_EQ_U64(st.ppc64_mmu, PPC64_MMU_RADIX);
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, 0x2740000);
	T_ASSERT(st.ppc64_vmemmap.valid);
	/* The linear map, up to 2^51: vmalloc (0xc008...) is not in it. */
	T_ASSERT(arch_kvtop_fast(&st, PO + 0x12345678, &pa));
	T_EQ_U64(pa, 0x12345678);
	T_ASSERT(!arch_kvtop_fast(&st, 0xc008000000020000ULL, &pa));
	ki_p9(&ki, -1);
	T_OK(arch_init(&st, EM_PPC64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.ppc64_mmu, PPC64_MMU_UNKNOWN);

	SET_U64(ki.page_size, 8192);
	T_EQ_U64(arch_init(&st, EM_PPC64, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "ppc64: PAGESIZE=8192 in VMCOREINFO, expected 65536 or 4096");
	ki_p9(&ki, 1);
	snprintf(ki.osrelease, sizeof(ki.osrelease), "4.4.0-1-powerpc64le");
	T_EQ_U64(arch_init(&st, EM_PPC64, &ki, NULL, 0, &err), MDF_ERR_NOTSUPP);
	T_MSG(err, "ppc64: Linux 4.4.0-1-powerpc64le: page tables before 4.12 are not supported");
}

/* Radix, 64 KiB pages: PGD 13 bits at 39, PUD 9 at 30, PMD 9 at 21, PTE 5
 * at 16.  0xc008000000020000: PGD 0x1000, PUD 0, PMD 0, PTE 2. */
static void radix_tables(struct fake_mem *m)
{
	fake_put(m, 0x2740000 + 0x1000 * 8, be(PRESENT | 0x2960000ULL | 0xd));
	fake_put(m, 0x2960000, be(PRESENT | 0x2970000ULL | 0x9));
	fake_put(m, 0x2970000, be(PRESENT | 0x2980000ULL | 0x5));
	fake_put(m, 0x2980000 + 2 * 8, be(PRESENT | LEAF | 0x4370000ULL | RW));
	/* The linear map: a 1 GiB leaf at the PUD, as radix maps it. */
	fake_put(m, 0x2740000, be(PRESENT | 0x2990000ULL | 0xd));
	fake_put(m, 0x2990000, be(PRESENT | LEAF | 0x0ULL | RW));
}

static void t_walk_radix(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;
	uint64_t pa;

	ki_p9(&ki, 1);
	T_OK(arch_init(&st, EM_PPC64, &ki, NULL, 0, &err), &err);
	radix_tables(&m);
	T_OK(arch_walk(&st, 0xc008000000021234ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x4371234);
	T_EQ_U64(w.map_size, 65536);
	T_EQ_U64(w.nsteps, 4);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_U64(w.step[0].entry, PRESENT | 0x2960000ULL | 0xd);
	T_EQ_STR(w.step[3].level, "PTE");
	T_EQ_U64(m.nlog, 4);
	/* A leaf above the last level: 1 GiB. */
	T_OK(arch_walk(&st, PO + 0x3456789ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x3456789);
	T_EQ_U64(w.map_size, 1ULL << 30);
	/* Not present. */
	T_EQ_U64(arch_vtop(&st, 0xc008000000030000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "ppc64: virtual address 0xc008000000030000: PTE entry at paddr 0x2980018: "
	      "fake: paddr 0x2980018 not in memory");
	fake_put(&m, 0x2980000 + 3 * 8, be(LEAF | 0x4380000ULL));
	T_EQ_U64(arch_vtop(&st, 0xc008000000030000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "ppc64: virtual address 0xc008000000030000 not mapped "
	      "(PTE entry 0x4000000004380000 at paddr 0x2980018 not valid)");
	/* A user address. */
	T_EQ_U64(arch_vtop(&st, 0x7fff00000000ULL, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "ppc64: virtual address 0x7fff00000000 is not a kernel address");

	/* Without NUMBER(RADIX_MMU) (before 6.7): entry 0 of swapper_pg_dir
	 * is set, so radix; one more read. */
	ki_p9(&ki, -1);
	T_OK(arch_init(&st, EM_PPC64, &ki, NULL, 0, &err), &err);
	m.nlog = 0;
	T_OK(arch_walk(&st, 0xc008000000021234ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x4371234);
	T_EQ_U64(m.nlog, 5);
	T_EQ_U64(m.log[0], 0x2740000);
}

/* Hash, 64 KiB pages: PGD 8 bits at 44, PUD 10 at 34, PMD 10 at 24, PTE 8
 * at 16; the vmemmap only through vmemmap_list. */
static void t_walk_hash(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;
	uint64_t pa;

	ki_p9(&ki, -1);
	T_OK(arch_init(&st, EM_PPC64, &ki, NULL, 0, &err), &err);
	/* 0xc008000000021234: PGD 0x80, PUD 0, PMD 0, PTE 2. */
	fake_put(&m, 0x2740000, 0);	/* no linear map in the tables */
	fake_put(&m, 0x2740000 + 0x80 * 8, be(0x2a00000ULL));
	fake_put(&m, 0x2a00000, be(0x2a10000ULL));
	fake_put(&m, 0x2a10000, be(0x2a20000ULL));
	fake_put(&m, 0x2a20000 + 2 * 8, be(PRESENT | LEAF | 0x5550000ULL | RW));
	T_OK(arch_walk(&st, 0xc008000000021234ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x5551234);
	T_EQ_U64(w.nsteps, 4);

	/* vmemmap_list: two 16 MiB blocks (mmu_psize_defs[4].shift = 24). */
	fake_put(&m, VMEMMAP_LIST - PO, PO + 0x100000);
	fake_put(&m, PSIZE - PO, 4);	/* an int in the low half (LE) */
	fake_put(&m, PSIZE_DEFS - PO + 4 * 96, 24);
	fake_put(&m, 0x100000, PO + 0x100018);          /* list */
	fake_put(&m, 0x100008, 0x3e000000);             /* phys */
	fake_put(&m, 0x100010, 0xc00c000000000000ULL);  /* virt_addr */
	fake_put(&m, 0x100018, 0);
	fake_put(&m, 0x100020, 0x3d000000);
	fake_put(&m, 0x100028, 0xc00c000001000000ULL);
	/* read once, in the dump's order (the reader's) */
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_ASSERT(st.ppc64_mmu == PPC64_MMU_HASH);
	T_EQ_U64(st.ppc64_vmemmap.nblocks, 2);
	m.nlog = 0;
	T_OK(arch_vtop(&st, 0xc00c000001000040ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x3d000040);
	T_OK(arch_walk(&st, 0xc00c000000ffffc0ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x3effffc0);
	T_EQ_U64(w.map_size, 1ULL << 24);
	/* The list is not read again (only the failing table walk). */
	for (unsigned i = 0; i < m.nlog; i++)
		T_ASSERT(m.log[i] >= 0x2740000);
	/* Beyond both blocks: the page tables' error. */
	fake_put(&m, 0x2740000 + 0xc0 * 8, 0);
	T_EQ_U64(arch_vtop(&st, 0xc00c000002000000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "ppc64: virtual address 0xc00c000002000000 not mapped "
	      "(PGD entry 0x0 at paddr 0x2740600 not valid)");
	arch_release(&st);
	/* A list that loops back to its head ends. */
	fake_put(&m, 0x100018, PO + 0x100000);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_EQ_U64(st.ppc64_vmemmap.nblocks, 2);
	T_EQ_U64(arch_vtop(&st, 0xc00c000002000000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	arch_release(&st);
	/* One that loops elsewhere is cut off. */
	fake_put(&m, 0x100018, PO + 0x100018);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_ASSERT(!st.ppc64_vmemmap.have_blocks);
	T_EQ_U64(arch_vtop(&st, 0xc00c000002000000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_FORMAT);
	T_MSG(err, "ppc64: virtual address 0xc00c000002000000: vmemmap_list: more than "
	      "1000000 entries (a loop?)");
	arch_release(&st);
	/* An impossible block size is named. */
	fake_put(&m, 0x100018, 0);
	fake_put(&m, PSIZE_DEFS - PO + 4 * 96, 63);
	T_OK(arch_init_mem(&st, fake_read, &m, &err), &err);
	T_EQ_U64(arch_vtop(&st, 0xc00c000002000000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_FORMAT);
	T_MSG(err, "ppc64: virtual address 0xc00c000002000000: vmemmap_list: block shift 63 "
	      "(mmu_vmemmap_psize 4) is impossible");
	arch_release(&st);
}

/* 4 KiB pages: radix 9/9/9/13 (PGD at 39, PUD 30, PMD 21, PTE 12), hash
 * 9/7/9/9 (PGD at 37, PUD 28, PMD 21, PTE 12). */
static void t_walk_4k(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;

	ki_p9(&ki, 1);
	SET_U64(ki.page_size, 4096);
	T_OK(arch_init(&st, EM_PPC64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.page_shift, 12);
	/* 0xc008000000203456: PGD 0x1000, PUD 0, PMD 1, PTE 3. */
	fake_put(&m, 0x2740000 + 0x1000 * 8, be(PRESENT | 0x2960000ULL | 9));
	fake_put(&m, 0x2960000, be(PRESENT | 0x2961000ULL | 9));
	fake_put(&m, 0x2961000 + 1 * 8, be(PRESENT | 0x2962000ULL | 9));
	fake_put(&m, 0x2962000 + 3 * 8, be(PRESENT | LEAF | 0x4371000ULL | RW));
	T_OK(arch_walk(&st, 0xc008000000203456ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x4371456);
	T_EQ_U64(w.map_size, 4096);

	ki_p9(&ki, 0);
	SET_U64(ki.page_size, 4096);
	T_OK(arch_init(&st, EM_PPC64, &ki, NULL, 0, &err), &err);
	memset(&m, 0, sizeof(m));
	/* 0xc008000000203456: PGD 0 (the bits above 45 are dropped), PUD 0,
	 * PMD 1, PTE 3. */
	fake_put(&m, 0x2740000, be(0x2a00000ULL));
	fake_put(&m, 0x2a00000, be(0x2a01000ULL));
	fake_put(&m, 0x2a01000 + 1 * 8, be(0x2a02000ULL));
	fake_put(&m, 0x2a02000 + 3 * 8, be(PRESENT | LEAF | 0x5551000ULL | RW));
	T_OK(arch_walk(&st, 0xc008000000203456ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x5551456);
	T_EQ_U64(w.nsteps, 4);
}

int main(void)
{
	T_RUN(t_init);
	T_RUN(t_walk_radix);
	T_RUN(t_walk_hash);
	T_RUN(t_walk_4k);
	return t_done();
}
