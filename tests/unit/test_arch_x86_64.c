/*
 * tests/unit/test_arch_x86_64.c - the architecture layer on x86_64.
 *
 * Page tables are built by hand in a fake physical memory (a short list of
 * paddr -> 8-byte entry); the read_pte callback logs every address it is
 * asked for, so the tests also prove that translation reads nothing else.
 * Kernel facts are those of the fixture vmcores (Debian 6.1.0-57-amd64 and
 * 6.12.117+deb13-amd64, 512 MiB guests, KASLR on), typed in from their
 * VMCOREINFO and program headers.  The last two cases walk the real page
 * tables of those vmcores when $MDF_VMCORE_CACHE has them (tests/lib/realvm.h).
 */
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include "archtest.h"
#include "realvm.h"
#include "util.h"

/* ---- kernel facts of the fixtures ---- */

/* fx-v61-512m.elf: 6.1.0-57-amd64 */
static const struct arch_seg_hint v61_segs[] = {
	{ 0xffffffffa7e00000ULL, 0x14a00000ULL, 0x3430000ULL },
	{ 0xffff8ceb00100000ULL, 0x00100000ULL, 0x7f00000ULL },
	{ 0xffff8ceb14000000ULL, 0x14000000ULL, 0xbfda000ULL },
};

/* fx-v612-512m.elf: 6.12.117+deb13-amd64 */
static const struct arch_seg_hint v612_segs[] = {
	{ 0xffffffffa7400000ULL, 0x10c00000ULL, 0x2c30000ULL },
	{ 0xffff8d6c00100000ULL, 0x00100000ULL, 0x3f00000ULL },
	{ 0xffff8d6c10000000ULL, 0x10000000ULL, 0xffda000ULL },
};

static void ki_v61(struct kinfo *ki)
{
	memset(ki, 0, sizeof(*ki));
	snprintf(ki->osrelease, sizeof(ki->osrelease), "6.1.0-57-amd64");
	SET_U64(ki->page_size, 4096);
	SET_U64(ki->kernel_offset, 0x26e00000ULL);
	SET_U64(ki->sym.swapper_pg_dir, 0xffffffffa9810000ULL);
	SET_U64(ki->sym.init_top_pgt, 0xffffffffa9810000ULL);
	SET_U64(ki->sym._stext, 0xffffffffa7e00000ULL);
	SET_U64(ki->num.SECTION_SIZE_BITS, 27);
	SET_U64(ki->num.MAX_PHYSMEM_BITS, 46);
	SET_U64(ki->num.phys_base, -322961408);
	SET_U64(ki->num.pgtable_l5_enabled, 0);
	SET_U64(ki->num.KERNEL_IMAGE_SIZE, 1073741824);
	SET_U64(ki->num.sme_mask, 0);
}

static void ki_v612(struct kinfo *ki)
{
	memset(ki, 0, sizeof(*ki));
	snprintf(ki->osrelease, sizeof(ki->osrelease), "6.12.117+deb13-amd64");
	SET_U64(ki->page_size, 4096);
	SET_U64(ki->kernel_offset, 0x26400000ULL);
	SET_U64(ki->sym.swapper_pg_dir, 0xffffffffa9022000ULL);
	SET_U64(ki->sym.init_top_pgt, 0xffffffffa9022000ULL);
	SET_U64(ki->sym._stext, 0xffffffffa7400000ULL);
	SET_U64(ki->sym.vmemmap, 0xfffff12400000000ULL);
	SET_U64(ki->num.VMALLOC_START, (int64_t)0xffffcd8cc0000000ULL);
	SET_U64(ki->num.SECTION_SIZE_BITS, 27);
	SET_U64(ki->num.MAX_PHYSMEM_BITS, 46);
	SET_U64(ki->num.phys_base, -377487360);
	SET_U64(ki->num.pgtable_l5_enabled, 0);
	SET_U64(ki->num.KERNEL_IMAGE_SIZE, 1073741824);
	SET_U64(ki->num.sme_mask, 0);
}

/* ---- choosing the architecture ---- */

static void t_ops_find(void)
{
	const struct arch_ops *ops = arch_ops_find(EM_X86_64);

	T_ASSERT(ops != NULL);
	T_ASSERT(ops == &arch_x86_64_ops);
	T_EQ_STR(ops->name, "x86_64");
	T_EQ_U64(ops->e_machine, 62);
	T_ASSERT(arch_ops_find(EM_SPARCV9) == NULL);
	T_ASSERT(arch_ops_find(0) == NULL);
}

static void t_init_unsupported(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_v61(&ki);
	mdf_err_clear(&err);
	T_EQ_U64(arch_init(&st, EM_SPARCV9, &ki, NULL, 0, &err), MDF_ERR_NOTSUPP);
	T_MSG(err, "architecture EM_SPARCV9 (43) is not supported");
	T_ASSERT(st.ops == NULL);
	T_EQ_U64(arch_init(&st, 0x1234, &ki, NULL, 0, &err), MDF_ERR_NOTSUPP);
	T_MSG(err, "architecture EM_? (4660) is not supported");
}

/* Translation before a successful init is an internal error, not a crash. */
static void t_walk_before_init(void)
{
	struct arch_state st;
	struct arch_walk w;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	uint64_t pa;

	ki_v61(&ki);
	T_EQ_U64(arch_init(&st, EM_SPARCV9, &ki, NULL, 0, &err), MDF_ERR_NOTSUPP);
	T_EQ_U64(arch_walk(&st, 0xffffc90000000000ULL, fake_read, &m, &w, &err),
		 MDF_ERR_INTERNAL);
	T_EQ_U64(arch_vtop(&st, 0xffffffffa9810000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_INTERNAL);
	T_EQ_U64(m.nlog, 0);
}

/* ---- init from the fixtures' facts ---- */

static void t_init_v61(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_v61(&ki);
	T_OK(arch_init(&st, EM_X86_64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
	T_ASSERT(st.ops == &arch_x86_64_ops);
	T_EQ_U64(st.page_size, 4096);
	T_EQ_U64(st.page_shift, 12);
	T_EQ_U64(st.levels, 4);
	T_EQ_U64(st.va_bits, 48);
	T_EQ_U64(st.max_physmem_bits, 46);
	T_ASSERT(st.have_phys_base);
	T_EQ_U64(st.phys_base, 0xffffffffecc00000ULL); /* -322961408 */
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, 0x16410000ULL);
	T_ASSERT(st.page_offset_exact);
	T_EQ_U64(st.page_offset, 0xffff8ceb00000000ULL);
	/* no SYMBOL(vmemmap) and KASLR on: the default is only a guess */
	T_EQ_U64(st.vmemmap_base, 0xffffea0000000000ULL);
	T_ASSERT(!st.vmemmap_exact);
	T_EQ_U64(st.pte_strip_mask, 0);
	T_ASSERT(st.text.valid);
	T_EQ_U64(st.text.vaddr, 0xffffffff80000000ULL);
	T_EQ_U64(st.text.size, 0x40000000ULL);
	T_EQ_U64(st.text.paddr, 0xffffffffecc00000ULL);
	T_ASSERT(st.direct.valid);
	T_EQ_U64(st.direct.vaddr, 0xffff8ceb00000000ULL);
	T_EQ_U64(st.direct.size, 0x1ffda000ULL); /* end of RAM: 0x14000000 + 0xbfda000 */
	T_EQ_U64(st.direct.paddr, 0);
}

static void t_init_v612(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_v612(&ki);
	T_OK(arch_init(&st, EM_X86_64, &ki, v612_segs, ARRAY_SIZE(v612_segs), &err), &err);
	T_EQ_U64(st.phys_base, 0xffffffffe9800000ULL); /* -377487360 */
	T_EQ_U64(st.pgd_paddr, 0x12822000ULL);
	T_EQ_U64(st.page_offset, 0xffff8d6c00000000ULL);
	T_ASSERT(st.page_offset_exact);
	T_EQ_U64(st.vmemmap_base, 0xfffff12400000000ULL);
	T_ASSERT(st.vmemmap_exact);
	T_EQ_U64(st.direct.size, 0x1ffda000ULL);
}

/* Without KERNEL_IMAGE_SIZE (before 5.2) the text window is 512 MiB; with
 * VMALLOC_START inside page_offset + 2^MAX_PHYSMEM_BITS the direct window
 * stops there. */
static void t_init_bounds(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	uint64_t pa;

	ki_v61(&ki);
	ki.num.KERNEL_IMAGE_SIZE.set = false;
	SET_U64(ki.num.VMALLOC_START, (int64_t)0xffff8ceb10000000ULL);
	T_OK(arch_init(&st, EM_X86_64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
	T_EQ_U64(st.text.size, 0x20000000ULL);
	T_EQ_U64(st.direct.size, 0x10000000ULL);
	T_ASSERT(arch_kvtop_fast(&st, 0xffff8ceb0fffffffULL, &pa));
	T_EQ_U64(pa, 0x0fffffffULL);
	T_ASSERT(!arch_kvtop_fast(&st, 0xffff8ceb10000000ULL, &pa));
	/* init_top_pgt sits beyond 512 MiB: still the root, but walked */
	T_EQ_U64(st.pgd_paddr, 0x16410000ULL);
	T_ASSERT(arch_kvtop_fast(&st, 0xffffffff9fffffffULL, &pa));
	T_EQ_U64(pa, 0xcbfffffULL); /* 0x1fffffff + phys_base */
	T_ASSERT(!arch_kvtop_fast(&st, 0xffffffffa0000000ULL, &pa));
}

/* Before 4.10 there is no NUMBER(phys_base): the kernel-image PT_LOAD
 * gives it. */
static void t_init_phys_base_from_hint(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_v61(&ki);
	ki.num.phys_base.set = false;
	T_OK(arch_init(&st, EM_X86_64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
	T_ASSERT(st.have_phys_base);
	T_EQ_U64(st.phys_base, 0xffffffffecc00000ULL);
	T_EQ_U64(st.pgd_paddr, 0x16410000ULL);

	/* neither: no text window, no root; init still succeeds */
	T_OK(arch_init(&st, EM_X86_64, &ki, v61_segs + 1, 2, &err), &err);
	T_ASSERT(!st.have_phys_base);
	T_ASSERT(!st.text.valid);
	T_ASSERT(!st.have_pgd);
}

/* Older kernels: init_level4_pgt before 4.13. */
static void t_init_level4_pgt(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_v61(&ki);
	ki.sym.init_top_pgt.set = false;
	ki.sym.swapper_pg_dir.set = false;
	SET_U64(ki.sym.init_level4_pgt, 0xffffffffa9811000ULL);
	T_OK(arch_init(&st, EM_X86_64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.pgd_paddr, 0x16411000ULL);
}

/* Without PT_LOAD hints (a kdump-compressed input): the default direct-map
 * base is trusted only when KASLR is known to be off. */
static void t_init_defaults(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	uint64_t pa;

	ki_v61(&ki);
	T_OK(arch_init(&st, EM_X86_64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.page_offset, 0xffff888000000000ULL);
	T_ASSERT(!st.page_offset_exact);
	T_ASSERT(!st.direct.valid);
	T_ASSERT(!arch_kvtop_fast(&st, 0xffff8ceb00100000ULL, &pa));
	T_ASSERT(arch_kvtop_fast(&st, 0xffffffffa9810000ULL, &pa));
	T_EQ_U64(pa, 0x16410000ULL);

	SET_U64(ki.kernel_offset, 0); /* nokaslr */
	ki.num.phys_base.v = 0x1000000;
	T_OK(arch_init(&st, EM_X86_64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.page_offset, 0xffff888000000000ULL);
	T_ASSERT(st.page_offset_exact);
	T_EQ_U64(st.direct.size, 1ULL << 46);
	T_EQ_U64(st.vmemmap_base, 0xffffea0000000000ULL);
	T_ASSERT(st.vmemmap_exact);
	T_ASSERT(arch_kvtop_fast(&st, 0xffff888012345678ULL, &pa));
	T_EQ_U64(pa, 0x12345678ULL);

	snprintf(ki.osrelease, sizeof(ki.osrelease), "4.19.0-21-amd64");
	T_OK(arch_init(&st, EM_X86_64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.page_offset, 0xffff880000000000ULL);
	T_ASSERT(st.page_offset_exact);

	snprintf(ki.osrelease, sizeof(ki.osrelease), "6.1.0");
	SET_U64(ki.num.pgtable_l5_enabled, 1);
	ki.num.MAX_PHYSMEM_BITS.set = false;
	T_OK(arch_init(&st, EM_X86_64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.levels, 5);
	T_EQ_U64(st.va_bits, 57);
	T_EQ_U64(st.max_physmem_bits, 52);
	T_EQ_U64(st.page_offset, 0xff11000000000000ULL);
	T_EQ_U64(st.direct.size, 1ULL << 52);
	T_EQ_U64(st.vmemmap_base, 0xffd4000000000000ULL);
	T_ASSERT(st.vmemmap_exact);

	/* unknown release and no KERNELOFFSET: nothing proven */
	ki.osrelease[0] = '\0';
	ki.kernel_offset.set = false;
	T_OK(arch_init(&st, EM_X86_64, &ki, NULL, 0, &err), &err);
	T_ASSERT(!st.page_offset_exact);
	T_ASSERT(!st.vmemmap_exact);
}

/* Direct-map hints that disagree prove nothing. */
static void t_init_conflicting_hints(void)
{
	static const struct arch_seg_hint segs[] = {
		{ 0xffff8ceb00100000ULL, 0x00100000ULL, 0x7f00000ULL },
		{ 0xffff9ceb14000000ULL, 0x14000000ULL, 0xbfda000ULL },
	};
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_v61(&ki);
	T_OK(arch_init(&st, EM_X86_64, &ki, segs, ARRAY_SIZE(segs), &err), &err);
	T_ASSERT(!st.page_offset_exact);
	T_ASSERT(!st.direct.valid);
}

static void t_init_bad_facts(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_v61(&ki);
	ki.page_size.v = 65536;
	T_EQ_U64(arch_init(&st, EM_X86_64, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "x86_64: PAGESIZE=65536 in VMCOREINFO, expected 4096");

	ki_v61(&ki);
	ki.num.pgtable_l5_enabled.v = 2;
	T_EQ_U64(arch_init(&st, EM_X86_64, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "x86_64: NUMBER(pgtable_l5_enabled)=2, expected 0 or 1");

	ki_v61(&ki);
	ki.num.MAX_PHYSMEM_BITS.v = 64;
	T_EQ_U64(arch_init(&st, EM_X86_64, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "x86_64: NUMBER(MAX_PHYSMEM_BITS)=64 out of range 32..52");

	ki_v61(&ki);
	ki.num.sme_mask.v = 0x1;
	T_EQ_U64(arch_init(&st, EM_X86_64, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "x86_64: NUMBER(sme_mask)=0x1 outside the physical-address bits");

	ki_v61(&ki);
	ki.num.KERNEL_IMAGE_SIZE.v = 0;
	T_EQ_U64(arch_init(&st, EM_X86_64, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "x86_64: NUMBER(KERNEL_IMAGE_SIZE)=0 out of range 1..1 GiB");
}

/* ---- fast paths: no reads at all ---- */

static void t_fast_text_negative_phys_base(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	uint64_t pa;

	ki_v61(&ki);
	T_OK(arch_init(&st, EM_X86_64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
	T_OK(arch_vtop(&st, 0xffffffffa9810000ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x16410000ULL);
	T_OK(arch_vtop(&st, 0xffffffffa7e00000ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x14a00000ULL); /* the kernel-image PT_LOAD's paddr */
	T_OK(arch_vtop(&st, 0xffffffffbfffffffULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x2cbfffffULL);
	T_EQ_U64(m.nlog, 0);
	/* the module area right after the image is not text */
	T_ASSERT(!arch_kvtop_fast(&st, 0xffffffffc0000000ULL, &pa));
	T_ASSERT(!arch_kvtop_fast(&st, 0xffffffff7fffffffULL, &pa));
}

static void t_fast_direct_from_hints(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	uint64_t pa;

	ki_v61(&ki);
	T_OK(arch_init(&st, EM_X86_64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
	T_OK(arch_vtop(&st, 0xffff8ceb00100000ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x100000ULL);
	T_OK(arch_vtop(&st, 0xffff8ceb14000123ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x14000123ULL);
	T_OK(arch_vtop(&st, 0xffff8ceb1ffd9fffULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x1ffd9fffULL);
	T_EQ_U64(m.nlog, 0);
	T_ASSERT(!arch_kvtop_fast(&st, 0xffff8ceb1ffda000ULL, &pa));
	T_ASSERT(!arch_kvtop_fast(&st, 0xffff8ceaffffffffULL, &pa));
}

/* ---- page walks over hand-built tables (6.1 root 0x16410000) ---- */

/* va 0xffffc90000123456: PGD index 402, PUD 0, PMD 0, PTE 291 */
#define VA_VMALLOC 0xffffc90000123456ULL
#define E_PGD 0x16410c90ULL
#define E_PUD 0x20000000ULL
#define E_PMD 0x20001000ULL
#define E_PTE 0x20002918ULL

static void build_4k(struct fake_mem *m, uint64_t sme)
{
	memset(m, 0, sizeof(*m));
	fake_put(m, E_PGD, 0x8000000020000067ULL | sme); /* NX ignored */
	fake_put(m, E_PUD, 0x0000000020001063ULL | sme);
	fake_put(m, E_PMD, 0x0000000020002063ULL | sme);
	fake_put(m, E_PTE, 0x8000000012345163ULL | sme);
}

static enum mdf_status init_v61(struct arch_state *st, struct mdf_err *err)
{
	struct kinfo ki;

	ki_v61(&ki);
	return arch_init(st, EM_X86_64, &ki, v61_segs, ARRAY_SIZE(v61_segs), err);
}

static void t_walk_4level_4k(void)
{
	struct arch_state st;
	struct arch_walk w;
	struct mdf_err err;
	struct fake_mem m;
	uint64_t pa;

	T_OK(init_v61(&st, &err), &err);
	build_4k(&m, 0);
	T_OK(arch_vtop(&st, VA_VMALLOC, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x12345456ULL);
	/* exactly the four entries, top down */
	T_EQ_U64(m.nlog, 4);
	T_EQ_U64(m.log[0], E_PGD);
	T_EQ_U64(m.log[1], E_PUD);
	T_EQ_U64(m.log[2], E_PMD);
	T_EQ_U64(m.log[3], E_PTE);

	T_OK(arch_walk(&st, VA_VMALLOC, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x12345456ULL);
	T_EQ_U64(w.map_size, 0x1000);
	T_EQ_U64(w.nsteps, 4);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_STR(w.step[1].level, "PUD");
	T_EQ_STR(w.step[2].level, "PMD");
	T_EQ_STR(w.step[3].level, "PTE");
	T_EQ_U64(w.step[0].entry_paddr, E_PGD);
	T_EQ_U64(w.step[0].entry, 0x8000000020000067ULL);
	T_EQ_U64(w.step[3].entry_paddr, E_PTE);
	T_EQ_U64(w.step[3].entry, 0x8000000012345163ULL);
}

static void t_walk_2m(void)
{
	struct arch_state st;
	struct arch_walk w;
	struct mdf_err err;
	struct fake_mem m;

	T_OK(init_v61(&st, &err), &err);
	build_4k(&m, 0);
	/* PSE, and PAT (bit 12) which must not leak into the address */
	fake_put(&m, E_PMD, 0x80000000300010e3ULL);
	T_OK(arch_walk(&st, VA_VMALLOC, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x30123456ULL);
	T_EQ_U64(w.map_size, 0x200000);
	T_EQ_U64(w.nsteps, 3);
	T_EQ_U64(m.nlog, 3);
	T_EQ_U64(m.log[2], E_PMD);
}

static void t_walk_1g(void)
{
	struct arch_state st;
	struct arch_walk w;
	struct mdf_err err;
	struct fake_mem m;

	T_OK(init_v61(&st, &err), &err);
	build_4k(&m, 0);
	fake_put(&m, E_PUD, 0x00000001400010e3ULL);
	T_OK(arch_walk(&st, VA_VMALLOC, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x140123456ULL);
	T_EQ_U64(w.map_size, 0x40000000);
	T_EQ_U64(w.nsteps, 2);
	T_EQ_U64(m.nlog, 2);
}

/* --keep-task's walk of a user address space: every present leaf below
 * the kernel half (4 KiB, 2 MiB and 1 GiB), each table on the way, and
 * nothing of the kernel half or of an entry not present. */
static void t_user_leaves(void)
{
	static const uint64_t want[][3] = {
		{ 0, 0x10000, 0 }, { 0, 0x11000, 0 }, { 0, 0x12000, 0 },
		{ 1ULL << 30, 0x200000, 2ULL << 20 }, { 0, 0x13000, 0 },
		{ (1ULL << 30) + (2ULL << 20), 0x5000, 4096 },
		{ (1ULL << 30) + (2ULL << 20) + 5 * 4096, 0x6000, 4096 },
		{ 2ULL << 30, 0x80000000, 1ULL << 30 },
		{ 0, 0x14000, 0 },
	};
	struct arch_state st;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct leaf_log l = { 0 };

	T_OK(init_v61(&st, &err), &err);
	fake_put(&m, 0x10000, 0x11067);               /* PGD 0 */
	fake_put(&m, 0x10000 + 255 * 8, 0x14067);     /* PGD 255: the top of user space */
	fake_put(&m, 0x10000 + 256 * 8, 0x15067);     /* PGD 256: the kernel's */
	fake_put(&m, 0x11000 + 1 * 8, 0x12067);       /* PUD 1 -> PMD */
	fake_put(&m, 0x11000 + 2 * 8, 0x800000e7);    /* PUD 2: 1 GiB */
	fake_put(&m, 0x12000, 0x2000e7);              /* PMD 0: 2 MiB */
	fake_put(&m, 0x12000 + 1 * 8, 0x13067);       /* PMD 1 -> PT */
	fake_put(&m, 0x13000, 0x5067);                /* PTE 0 */
	fake_put(&m, 0x13000 + 3 * 8, 0x5066);        /* PTE 3: not present */
	fake_put(&m, 0x13000 + 5 * 8, 0x6067);        /* PTE 5 */
	fake_put(&m, 0x15000, 0x7067);
	T_OK(arch_user_leaves(&st, 0x10000, fake_read, &m, log_leaf, &l, &err), &err);
	T_LEAVES(l, want);
	/* an architecture without the walk says so */
	st.ops = &arch_s390x_ops;
	T_EQ_U64(arch_user_leaves(&st, 0x10000, fake_read, &m, log_leaf, &l, &err),
		 MDF_ERR_NOTSUPP);
	T_MSG(err, "the user page tables of s390x are not walked yet");
}

/* NUMA balancing's PROT_NONE entries map their pages (pte_present(),
 * pmd_present()): _PAGE_PROTNONE (bit 8) without _PAGE_PRESENT, on a THP's
 * PMD and on a PTE, with their pfns inverted (the L1TF mitigation); an
 * entry with neither (a swap entry) maps nothing.  The lab's numa4-5.10. */
static void t_user_leaves_protnone(void)
{
	static const uint64_t want[][3] = {
		{ 0, 0x10000, 0 }, { 0, 0x11000, 0 }, { 0, 0x12000, 0 },
		{ 0, 0x200000, 2ULL << 20 }, { 0, 0x13000, 0 },
		{ 2ULL << 20, 0x5000, 4096 },
	};
	struct arch_state st;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct leaf_log l = { 0 };

	T_OK(init_v61(&st, &err), &err);
	fake_put(&m, 0x10000, 0x11067);         /* PGD 0 */
	fake_put(&m, 0x11000, 0x12067);         /* PUD 0 -> PMD */
	/* PMD 0: a THP, PSE | PROTNONE, its pfn inverted (L1TF) */
	fake_put(&m, 0x12000, (~0x200000ULL & 0x000ffffffffff000ULL) | 0x1a4);
	fake_put(&m, 0x12000 + 1 * 8, 0x13067); /* PMD 1 -> PT */
	/* PTE 0: PROTNONE, inverted (the kernel's pte_pfn(): protnone_mask()) */
	fake_put(&m, 0x13000, (~0x5000ULL & 0x000ffffffffff000ULL) | 0x164);
	fake_put(&m, 0x13000 + 1 * 8, 0x3a0c00); /* PTE 1: a swap entry */
	T_OK(arch_user_leaves(&st, 0x10000, fake_read, &m, log_leaf, &l, &err), &err);
	T_LEAVES(l, want);
}

/* Bit 7 of a PTE is PAT, not a huge page. */
static void t_walk_pte_pat(void)
{
	struct arch_state st;
	struct mdf_err err;
	struct fake_mem m;
	uint64_t pa;

	T_OK(init_v61(&st, &err), &err);
	build_4k(&m, 0);
	fake_put(&m, E_PTE, 0x00000000123450e3ULL);
	T_OK(arch_vtop(&st, VA_VMALLOC, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x12345456ULL);
}

static void t_walk_sme_mask(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m;
	uint64_t pa;

	ki_v61(&ki);
	ki.num.sme_mask.v = 0x800000000000LL; /* C-bit 47 */
	T_OK(arch_init(&st, EM_X86_64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
	T_EQ_U64(st.pte_strip_mask, 0x800000000000ULL);
	build_4k(&m, 0x800000000000ULL);
	T_OK(arch_vtop(&st, VA_VMALLOC, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x12345456ULL);
	T_EQ_U64(m.nlog, 4);
	T_EQ_U64(m.log[1], E_PUD); /* the mask was stripped from the PGD entry too */
}

/* 5-level: va 0xffd4000000401234: PGD 468, P4D 0, PUD 0, PMD 2, PTE 1. */
static void t_walk_5level(void)
{
	struct arch_state st;
	struct arch_walk w;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };

	ki_v61(&ki);
	SET_U64(ki.num.pgtable_l5_enabled, 1);
	T_OK(arch_init(&st, EM_X86_64, &ki, NULL, 0, &err), &err);
	T_EQ_U64(st.levels, 5);
	fake_put(&m, 0x16410ea0ULL, 0x21000067ULL);
	fake_put(&m, 0x21000000ULL, 0x21001067ULL);
	fake_put(&m, 0x21001000ULL, 0x21002067ULL);
	fake_put(&m, 0x21002010ULL, 0x21003067ULL);
	fake_put(&m, 0x21003008ULL, 0x55555063ULL);
	T_OK(arch_walk(&st, 0xffd4000000401234ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x55555234ULL);
	T_EQ_U64(w.nsteps, 5);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_STR(w.step[1].level, "P4D");
	T_EQ_STR(w.step[2].level, "PUD");
	T_EQ_STR(w.step[3].level, "PMD");
	T_EQ_STR(w.step[4].level, "PTE");
	T_EQ_U64(m.nlog, 5);
	T_EQ_U64(m.log[0], 0x16410ea0ULL);
	T_EQ_U64(m.log[4], 0x21003008ULL);

	/* P4D not present */
	fake_put(&m, 0x21000000ULL, 0);
	T_EQ_U64(arch_walk(&st, 0xffd4000000401234ULL, fake_read, &m, &w, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "x86_64: virtual address 0xffd4000000401234 not mapped "
			  "(P4D entry 0x0 at paddr 0x21000000 not present)");
	T_EQ_U64(w.nsteps, 2);

	/* canonical in 57 bits, not in 48 */
	fake_put(&m, 0x16410000ULL + 351 * 8, 0);
	T_EQ_U64(arch_walk(&st, 0xff5ff00000001234ULL, fake_read, &m, &w, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "x86_64: virtual address 0xff5ff00000001234 not mapped "
			  "(PGD entry 0x0 at paddr 0x16410af8 not present)");
}

static void t_walk_not_present(void)
{
	static const struct {
		uint64_t entry_paddr;
		uint64_t value;
		const char *msg;
		unsigned nreads;
	} cases[] = {
		{ E_PGD, 0, "x86_64: virtual address 0xffffc90000123456 not mapped "
			    "(PGD entry 0x0 at paddr 0x16410c90 not present)", 1 },
		{ E_PUD, 0x20001062ULL, "x86_64: virtual address 0xffffc90000123456 not mapped "
			    "(PUD entry 0x20001062 at paddr 0x20000000 not present)", 2 },
		{ E_PMD, 0x80000000300010e2ULL, "x86_64: virtual address 0xffffc90000123456 not mapped "
			    "(PMD entry 0x80000000300010e2 at paddr 0x20001000 not present)", 3 },
		{ E_PTE, 0x12345000ULL, "x86_64: virtual address 0xffffc90000123456 not mapped "
			    "(PTE entry 0x12345000 at paddr 0x20002918 not present)", 4 },
	};
	struct arch_state st;
	struct mdf_err err;
	struct fake_mem m;
	uint64_t pa = 0xdead;

	T_OK(init_v61(&st, &err), &err);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		build_4k(&m, 0);
		fake_put(&m, cases[i].entry_paddr, cases[i].value);
		T_EQ_U64(arch_vtop(&st, VA_VMALLOC, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
		T_MSG(err, cases[i].msg);
		T_EQ_U64(m.nlog, cases[i].nreads);
		T_EQ_U64(pa, 0xdead); /* untouched on failure */
	}
}

/* sme_mask must not make a not-present entry look present. */
static void t_walk_sme_not_present(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m;
	uint64_t pa;

	ki_v61(&ki);
	ki.num.sme_mask.v = 0x8000000000000LL; /* bit 51 */
	T_OK(arch_init(&st, EM_X86_64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
	build_4k(&m, 0x8000000000000ULL);
	fake_put(&m, E_PMD, 0x8000000000000ULL);
	T_EQ_U64(arch_vtop(&st, VA_VMALLOC, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "x86_64: virtual address 0xffffc90000123456 not mapped "
			  "(PMD entry 0x8000000000000 at paddr 0x20001000 not present)");
}

static void t_walk_read_error(void)
{
	struct arch_state st;
	struct mdf_err err;
	struct fake_mem m;
	uint64_t pa;

	T_OK(init_v61(&st, &err), &err);
	build_4k(&m, 0);
	fake_put(&m, E_PUD, 0x0000000077000063ULL); /* PMD table not in memory */
	T_EQ_U64(arch_vtop(&st, VA_VMALLOC, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "x86_64: virtual address 0xffffc90000123456: PMD entry at "
			  "paddr 0x77000000: fake: paddr 0x77000000 not in memory");
}

static void t_walk_non_canonical(void)
{
	struct arch_state st;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	uint64_t pa;

	T_OK(init_v61(&st, &err), &err);
	T_EQ_U64(arch_vtop(&st, 0x0000800000000000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "x86_64: virtual address 0x800000000000 is not canonical for 4-level paging");
	T_EQ_U64(arch_vtop(&st, 0xff5ff00000001234ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_EQ_U64(m.nlog, 0);
}

static void t_walk_no_root(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	uint64_t pa;

	ki_v61(&ki);
	ki.sym.init_top_pgt.set = false;
	ki.sym.swapper_pg_dir.set = false;
	T_OK(arch_init(&st, EM_X86_64, &ki, v61_segs, ARRAY_SIZE(v61_segs), &err), &err);
	T_ASSERT(!st.have_pgd);
	T_EQ_U64(arch_vtop(&st, VA_VMALLOC, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "x86_64: virtual address 0xffffc90000123456: no page-table root "
			  "(VMCOREINFO needs SYMBOL(init_top_pgt) and NUMBER(phys_base))");
	T_EQ_U64(m.nlog, 0);
}

/* vmemmap is never direct-mapped: arch_vtop walks it, from SYMBOL(vmemmap).
 * 6.12: struct page of pfn 0x41 = 0xfffff12400000000 + 0x41 * 64
 * = 0xfffff12400001040: PGD 482, PUD 144, PMD 0, PTE 1. */
static void t_vmemmap_walk(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	uint64_t pa;
	uint64_t va;

	ki_v612(&ki);
	T_OK(arch_init(&st, EM_X86_64, &ki, v612_segs, ARRAY_SIZE(v612_segs), &err), &err);
	va = st.vmemmap_base + 0x41 * 64;
	T_EQ_U64(va, 0xfffff12400001040ULL);
	T_ASSERT(!arch_kvtop_fast(&st, va, &pa));
	fake_put(&m, 0x12822000ULL + 482 * 8, 0x1f001067ULL);
	fake_put(&m, 0x1f001000ULL + 144 * 8, 0x1f002067ULL);
	fake_put(&m, 0x1f002000ULL, 0x1f003067ULL);
	fake_put(&m, 0x1f003008ULL, 0x1e7ff163ULL);
	T_OK(arch_vtop(&st, va, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x1e7ff040ULL);
	T_EQ_U64(m.nlog, 4);
	T_EQ_U64(m.log[0], 0x12822f10ULL);
	T_EQ_U64(m.log[1], 0x1f001480ULL);
}

/* ---- the real fixture vmcores (skipped when absent) ---- */

struct real_core {
	int fd;
	size_t n;
	struct arch_seg_hint seg[16];
	uint64_t off[16];
};

/* The PT_LOADs of an x86_64 vmcore (little-endian, whatever the host). */
static bool real_open(struct real_core *c, const char *path)
{
	unsigned char eh[64], ph[56];
	struct mdf_err err;
	size_t got;
	uint64_t phoff;

	c->fd = open(path, O_RDONLY);
	c->n = 0;
	if (c->fd < 0)
		return false;
	if (util_pread_full(c->fd, eh, sizeof(eh), 0, &got, &err) != MDF_OK ||
	    got != sizeof(eh) || load_le16(eh + 18) != EM_X86_64) /* e_machine */
		goto fail;
	phoff = load_le64(eh + 32);
	for (unsigned i = 0; i < load_le16(eh + 56) /* e_phnum */ && c->n < 16; i++) {
		if (util_pread_full(c->fd, ph, sizeof(ph), phoff + (uint64_t)i * sizeof(ph),
				    &got, &err) != MDF_OK || got != sizeof(ph))
			goto fail;
		if (load_le32(ph) != PT_LOAD)
			continue;
		/* p_offset 8, p_vaddr 16, p_paddr 24, p_filesz 32 */
		c->seg[c->n] = (struct arch_seg_hint){ load_le64(ph + 16), load_le64(ph + 24),
						       load_le64(ph + 32) };
		c->off[c->n++] = load_le64(ph + 8);
	}
	return true;
fail:
	close(c->fd);
	return false;
}

static enum mdf_status real_read(void *arg, uint64_t paddr, unsigned size, uint64_t *pte_ret,
				 struct mdf_err *err)
{
	struct real_core *c = arg;
	uint8_t b[8];
	size_t got;

	for (size_t i = 0; i < c->n; i++) {
		if (paddr - c->seg[i].paddr < c->seg[i].size) {
			if (size != 8)
				return mdf_err_set(err, MDF_ERR_INTERNAL, "%u-byte entry", size);
			if (util_pread_full(c->fd, b, 8, c->off[i] + (paddr - c->seg[i].paddr),
					    &got, err) != MDF_OK)
				return MDF_ERR_IO;
			*pte_ret = load_le64(b);
			return MDF_OK;
		}
	}
	return mdf_err_set(err, MDF_ERR_NODATA, "paddr 0x%llx not in the vmcore",
			   (unsigned long long)paddr);
}

/*
 * Walk each of @vas on a real kernel's tables: the result must equal the
 * fast path's.  Then walk the struct page of pfn 0x1000 at vmemmap_base
 * (when @vmemmap_pa is not 0) and compare with @vmemmap_pa.
 */
static void check_real(const char *name, void (*fill)(struct kinfo *),
		       const uint64_t *vas, size_t nvas, uint64_t vmemmap_pa)
{
	struct realvm rv;
	struct real_core c;
	struct arch_state st;
	struct arch_walk w;
	struct kinfo ki;
	struct mdf_err err;
	uint64_t fast;
	char why[300] = "";

	if (!realvm_find_or_skip(&rv, name))
		return;
	T_ASSERT(real_open(&c, rv.path));
	fill(&ki);
	if (arch_init(&st, EM_X86_64, &ki, c.seg, c.n, &err) != MDF_OK)
		snprintf(why, sizeof(why), "init: %.250s", err.msg);
	for (size_t i = 0; !why[0] && i < nvas; i++) {
		if (!arch_kvtop_fast(&st, vas[i], &fast))
			snprintf(why, sizeof(why), "0x%llx: no fast path",
				 (unsigned long long)vas[i]);
		else if (arch_walk(&st, vas[i], real_read, &c, &w, &err) != MDF_OK)
			snprintf(why, sizeof(why), "%.250s", err.msg);
		else if (w.paddr != fast)
			snprintf(why, sizeof(why), "0x%llx: walk 0x%llx, fast 0x%llx",
				 (unsigned long long)vas[i], (unsigned long long)w.paddr,
				 (unsigned long long)fast);
	}
	if (!why[0] && vmemmap_pa) {
		uint64_t va = st.vmemmap_base + 0x1000 * 64;

		if (arch_walk(&st, va, real_read, &c, &w, &err) != MDF_OK)
			snprintf(why, sizeof(why), "%.250s", err.msg);
		else if (w.paddr != vmemmap_pa)
			snprintf(why, sizeof(why), "vmemmap 0x%llx: walk 0x%llx (map size 0x%llx), expected 0x%llx",
				 (unsigned long long)va, (unsigned long long)w.paddr,
				 (unsigned long long)w.map_size, (unsigned long long)vmemmap_pa);
	}
	close(c.fd);
	if (why[0])
		t_fail(__FILE__, __LINE__, why);
}

static void t_real_v61(void)
{
	static const uint64_t vas[] = {
		0xffffffffa7e00000ULL, /* _stext */
		0xffffffffa9810000ULL, /* init_top_pgt */
		0xffff8ceb00100000ULL, 0xffff8ceb14000000ULL, 0xffff8ceb1ffd9ff8ULL,
	};

	check_real("fx-v61-512m", ki_v61, vas, ARRAY_SIZE(vas), 0);
}

static void t_real_v612(void)
{
	static const uint64_t vas[] = {
		0xffffffffa7400000ULL, 0xffffffffa9022000ULL,
		0xffff8d6c00100000ULL, 0xffff8d6c10000000ULL, 0xffff8d6c1ffd9ff8ULL,
	};

	/* struct page of pfn 0x1000: in a 2 MiB page at 0x1e600000.  Checked
	 * by hand: the struct page of pfn 0xfff there has an empty lru list
	 * pointing at itself (0xfffff1240003ffc8), and its zone bits change
	 * from ZONE_DMA to ZONE_DMA32 at pfn 0x1000 (16 MiB). */
	check_real("fx-v612-512m", ki_v612, vas, ARRAY_SIZE(vas), 0x1e640000ULL);
}

int main(void)
{
	T_RUN(t_ops_find);
	T_RUN(t_init_unsupported);
	T_RUN(t_walk_before_init);
	T_RUN(t_init_v61);
	T_RUN(t_init_v612);
	T_RUN(t_init_bounds);
	T_RUN(t_init_phys_base_from_hint);
	T_RUN(t_init_level4_pgt);
	T_RUN(t_init_defaults);
	T_RUN(t_init_conflicting_hints);
	T_RUN(t_init_bad_facts);
	T_RUN(t_fast_text_negative_phys_base);
	T_RUN(t_fast_direct_from_hints);
	T_RUN(t_walk_4level_4k);
	T_RUN(t_walk_2m);
	T_RUN(t_walk_1g);
	T_RUN(t_user_leaves);
	T_RUN(t_user_leaves_protnone);
	T_RUN(t_walk_pte_pat);
	T_RUN(t_walk_sme_mask);
	T_RUN(t_walk_5level);
	T_RUN(t_walk_not_present);
	T_RUN(t_walk_sme_not_present);
	T_RUN(t_walk_read_error);
	T_RUN(t_walk_non_canonical);
	T_RUN(t_walk_no_root);
	T_RUN(t_vmemmap_walk);
	T_RUN(t_real_v61);
	T_RUN(t_real_v612);
	return t_done();
}
