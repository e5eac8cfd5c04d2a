/*
 * tests/unit/test_arch_riscv64.c - the architecture layer on riscv64.
 *
 * Page tables are built by hand in a fake physical memory (paddr -> 8-byte
 * entry); the read callback logs every address it is asked for, so the
 * tests also prove that translation reads nothing else.  The layout numbers
 * are those a riscv64 kernel under qemu's virt machine writes (RAM at
 * 0x80000000, the kernel loaded 2 MiB above it), for each paging mode.
 */
#include <elf.h>

#include "archtest.h"
#include "util.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

#define RAM 0x80000000ULL
#define LINK 0xffffffff80000000ULL
#define KPA_OFF (LINK - (RAM + 0x200000ULL))
#define SWAPPER (LINK + 0x1400000ULL)

/* Entry bits: V, R|W (a leaf), Svnapot's N; PPN at bit 10. */
#define V 0x1ULL
#define RW 0x6ULL
#define AD 0xc0ULL
#define N (1ULL << 63)
#define PPN(pa) (((pa) >> 12) << 10)

static uint64_t page_offset_of(unsigned va_bits)
{
	return va_bits == 57 ? 0xff60000000000000ULL
	       : va_bits == 48 ? 0xffffaf8000000000ULL : 0xffffffd600000000ULL;
}

/* Linux 6.12 on qemu virt, 1 GiB of RAM. */
static void ki_rv(struct kinfo *ki, unsigned va_bits)
{
	memset(ki, 0, sizeof(*ki));
	snprintf(ki->osrelease, sizeof(ki->osrelease), "6.12.57+deb13-riscv64");
	SET_U64(ki->page_size, 4096);
	SET_U64(ki->num.VA_BITS, va_bits);
	SET_U64(ki->num.phys_ram_base, (int64_t)RAM);
	SET_U64(ki->num.PAGE_OFFSET, (int64_t)page_offset_of(va_bits));
	SET_U64(ki->num.KERNEL_LINK_ADDR, (int64_t)LINK);
	SET_U64(ki->num.va_kernel_pa_offset, (int64_t)KPA_OFF);
	SET_U64(ki->num.VMEMMAP_START, (int64_t)0xff1c000000000000ULL);
	SET_U64(ki->num.MAX_PHYSMEM_BITS, 56);
	SET_U64(ki->sym.swapper_pg_dir, SWAPPER);
	SET_U64(ki->size.page, 64);
}

/* The kernel image, then RAM in two pieces around the crashkernel. */
static struct arch_seg_hint rv_segs[3];

static void segs_rv(unsigned va_bits)
{
	uint64_t po = page_offset_of(va_bits);

	rv_segs[0] = (struct arch_seg_hint){ LINK, RAM + 0x200000ULL, 0x1800000ULL };
	rv_segs[1] = (struct arch_seg_hint){ po, RAM, 0x30000000ULL };
	rv_segs[2] = (struct arch_seg_hint){ po + 0x3c000000ULL, RAM + 0x3c000000ULL,
					     0x04000000ULL };
}

static void t_ops_find(void)
{
	const struct arch_ops *ops = arch_ops_find(EM_RISCV);

	T_ASSERT(ops == &arch_riscv64_ops);
	T_EQ_STR(ops->name, "riscv64");
	T_EQ_U64(arch_machine_from_uts("riscv64"), EM_RISCV);
	T_EQ_U64(arch_machine_from_uts("aarch64"), EM_AARCH64);
	T_EQ_U64(arch_machine_from_uts("x86_64"), EM_X86_64);
	T_EQ_U64(arch_machine_from_uts("vax"), 0);
}

static void t_init(void)
{
	static const unsigned modes[] = { 39, 48, 57 };

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		struct arch_state st;
		struct kinfo ki;
		struct mdf_err err;
		uint64_t pa;

		ki_rv(&ki, modes[i]);
		segs_rv(modes[i]);
		T_OK(arch_init(&st, EM_RISCV, &ki, rv_segs, ARRAY_SIZE(rv_segs), &err), &err);
		T_EQ_U64(st.page_size, 4096);
		T_EQ_U64(st.va_bits, modes[i]);
		T_EQ_U64(st.levels, modes[i] == 57 ? 5 : modes[i] == 48 ? 4 : 3);
		T_EQ_U64(st.max_physmem_bits, 56);
		T_ASSERT(st.have_phys_base);
		T_EQ_U64(st.phys_base, RAM);
		T_ASSERT(st.have_pgd);
		T_EQ_U64(st.pgd_paddr, RAM + 0x200000ULL + 0x1400000ULL);
		T_ASSERT(st.page_offset_exact);
		T_EQ_U64(st.page_offset, page_offset_of(modes[i]));
		T_ASSERT(st.vmemmap_exact);
		T_EQ_U64(st.vmemmap_base, 0xff1c000000000000ULL - (RAM >> 12) * 64);
		/* Both fast-path windows, proven by the PT_LOADs. */
		T_ASSERT(arch_kvtop_fast(&st, LINK + 0x1234, &pa));
		T_EQ_U64(pa, RAM + 0x201234ULL);
		T_ASSERT(arch_kvtop_fast(&st, page_offset_of(modes[i]) + 0x3c001000ULL, &pa));
		T_EQ_U64(pa, RAM + 0x3c001000ULL);
		T_ASSERT(!arch_kvtop_fast(&st, 0xff1c000000000000ULL, &pa));
	}
}

/* Before 6.5 there is no NUMBER(va_kernel_pa_offset): the image's PT_LOAD
 * says it; without either there is no walk, and the message says why. */
static void t_init_no_kpa(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	uint64_t pa;

	ki_rv(&ki, 39);
	ki.num.va_kernel_pa_offset.set = false;
	segs_rv(39);
	T_OK(arch_init(&st, EM_RISCV, &ki, rv_segs, ARRAY_SIZE(rv_segs), &err), &err);
	T_ASSERT(st.have_pgd);
	T_EQ_U64(st.pgd_paddr, RAM + 0x200000ULL + 0x1400000ULL);

	T_OK(arch_init(&st, EM_RISCV, &ki, NULL, 0, &err), &err);
	T_ASSERT(!st.have_pgd);
	T_ASSERT(!st.direct.valid && !st.text.valid);
	T_EQ_U64(arch_vtop(&st, LINK, fake_read, &m, &pa, &err), MDF_ERR_NODATA);
	T_MSG(err, "riscv64: virtual address 0xffffffff80000000: no page-table root "
	      "(VMCOREINFO needs NUMBER(VA_BITS), NUMBER(KERNEL_LINK_ADDR), "
	      "SYMBOL(swapper_pg_dir) and NUMBER(va_kernel_pa_offset) or the kernel image's PT_LOAD)");
	T_EQ_U64(m.nlog, 0);
}

static void t_init_errors(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;

	ki_rv(&ki, 39);
	SET_U64(ki.num.VA_BITS, 42);
	T_EQ_U64(arch_init(&st, EM_RISCV, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "riscv64: NUMBER(VA_BITS)=42, expected 39, 48 or 57 (Sv39, Sv48, Sv57)");
	ki_rv(&ki, 39);
	SET_U64(ki.page_size, 65536);
	T_EQ_U64(arch_init(&st, EM_RISCV, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "riscv64: PAGESIZE=65536 in VMCOREINFO, expected 4096");
	ki_rv(&ki, 39);
	SET_U64(ki.num.MAX_PHYSMEM_BITS, 57);
	T_EQ_U64(arch_init(&st, EM_RISCV, &ki, NULL, 0, &err), MDF_ERR_FORMAT);
	T_MSG(err, "riscv64: NUMBER(MAX_PHYSMEM_BITS)=57 out of range 32..56");
}

/* kexec-tools 2.0.32 (kexec_load) writes the linear map's PT_LOADs at
 * vaddr = paddr - 0x7f401000 (a lab 6.12 dump): the numbers win, over the
 * RAM the PT_LOADs cover.  Without the numbers, only hints that agree. */
static void t_init_bad_hints(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	uint64_t pa;

	ki_rv(&ki, 57);
	segs_rv(57);
	rv_segs[1].vaddr = rv_segs[1].paddr - 0x7f401000ULL;
	rv_segs[2].vaddr = rv_segs[2].paddr - 0x7f401000ULL;
	T_OK(arch_init(&st, EM_RISCV, &ki, rv_segs, ARRAY_SIZE(rv_segs), &err), &err);
	T_ASSERT(st.direct.valid);
	T_ASSERT(arch_kvtop_fast(&st, 0xff60000000001000ULL, &pa));
	T_EQ_U64(pa, RAM + 0x1000);
	T_ASSERT(!arch_kvtop_fast(&st, rv_segs[1].vaddr, &pa));

	ki.num.PAGE_OFFSET.set = false;
	rv_segs[2].vaddr += 0x1000;
	T_OK(arch_init(&st, EM_RISCV, &ki, rv_segs, ARRAY_SIZE(rv_segs), &err), &err);
	T_ASSERT(!st.direct.valid);
	T_ASSERT(st.text.valid);
}

/* Sv39: PGD PMD PTE; a 4 KiB page, a 2 MiB and a 1 GiB leaf, a napot run. */
/* --keep-task's walk of a user address space (Sv39: [0, 2^38)): leaves of
 * 4 KiB, 2 MiB and 1 GiB, a Svnapot PTE (its own page of the 64 KiB),
 * each table; nothing of the kernel half. */
#define PTE(pa, bits) ((((uint64_t)(pa) >> 12) << 10) | (bits))

static void t_user_leaves(void)
{
	static const uint64_t want[][3] = {
		{ 0, 0x10000, 0 }, { 0, 0x11000, 0 }, { 0, 0x12000, 0 },
		{ 0x1000, 0x5000, 4096 },
		{ 0x3000, 0x93000, 4096 },
		{ 1ULL << 21, 0x400000, 2ULL << 20 },
		{ 1ULL << 30, 0x40000000, 1ULL << 30 },
	};
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct leaf_log l = { 0 };

	ki_rv(&ki, 39);
	T_OK(arch_init(&st, EM_RISCV, &ki, NULL, 0, &err), &err);
	fake_put(&m, 0x10000, PTE(0x11000, 0x1));                    /* PGD 0 -> PMD */
	fake_put(&m, 0x10000 + 1 * 8, PTE(0x40000000, 0xcf));       /* PGD 1: 1 GiB */
	fake_put(&m, 0x10000 + 256 * 8, PTE(0x80000000, 0xcf));     /* the kernel half */
	fake_put(&m, 0x11000, PTE(0x12000, 0x1));                    /* PMD 0 -> PTE */
	fake_put(&m, 0x11000 + 1 * 8, PTE(0x400000, 0xcf));         /* PMD 1: 2 MiB */
	fake_put(&m, 0x12000 + 1 * 8, PTE(0x5000, 0xcf));           /* PTE 1 */
	fake_put(&m, 0x12000 + 2 * 8, PTE(0x6000, 0x1));            /* PTE 2: no RWX */
	fake_put(&m, 0x12000 + 3 * 8, PTE(0x98000, 0xcf) | (1ULL << 63)); /* napot */
	T_OK(arch_user_leaves(&st, 0x10000, fake_read, &m, log_leaf, &l, &err), &err);
	T_LEAVES(l, want);
}

static void t_walk_sv39(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;
	uint64_t pgd, pa, va = 0xffffffc400123456ULL;

	ki_rv(&ki, 39);
	T_OK(arch_init(&st, EM_RISCV, &ki, NULL, 0, &err), &err);
	pgd = st.pgd_paddr;
	/* va bits [38:30] 0x110, [29:21] 0, [20:12] 0x123 */
	fake_put(&m, pgd + 0x110 * 8, PPN(0x81000000ULL) | V);
	fake_put(&m, 0x81000000ULL, PPN(0x81001000ULL) | V);
	fake_put(&m, 0x81001000ULL + 0x123 * 8, PPN(0x9abcd000ULL) | RW | AD | V);
	T_OK(arch_walk(&st, va, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x9abcd456ULL);
	T_EQ_U64(w.map_size, 4096);
	T_EQ_U64(w.nsteps, 3);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_STR(w.step[1].level, "PMD");
	T_EQ_STR(w.step[2].level, "PTE");
	T_EQ_U64(m.nlog, 3);
	T_EQ_U64(m.log[0], pgd + 0x110 * 8);

	/* Svpbmt bits (61-62) are not address bits. */
	fake_put(&m, 0x81001000ULL + 0x124 * 8, (3ULL << 61) | PPN(0x9abce000ULL) | RW | V);
	T_OK(arch_vtop(&st, 0xffffffc400124010ULL, fake_read, &m, &pa, &err), &err);
	T_EQ_U64(pa, 0x9abce010ULL);
	/* A 2 MiB leaf at the PMD. */
	fake_put(&m, 0x81000000ULL + 1 * 8, PPN(0xa0200000ULL) | RW | V);
	T_OK(arch_walk(&st, 0xffffffc400312345ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0xa0312345ULL);
	T_EQ_U64(w.map_size, 2ULL << 20);
	/* A 1 GiB leaf at the PGD. */
	fake_put(&m, pgd + 0x111 * 8, PPN(0xc0000000ULL) | RW | V);
	T_OK(arch_walk(&st, 0xffffffc4400abcdeULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0xc00abcdeULL);
	T_EQ_U64(w.map_size, 1ULL << 30);
	T_EQ_U64(w.nsteps, 1);
	/* Svnapot: 16 PTEs for one 64 KiB run; PPN[3:0] = 0b1000. */
	fake_put(&m, 0x81001000ULL + 0x135 * 8, N | PPN(0xb0038000ULL) | RW | V);
	T_OK(arch_walk(&st, 0xffffffc400135678ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0xb0035678ULL);
	T_EQ_U64(w.map_size, 65536);

	/* Not valid: the message names the level. */
	fake_put(&m, 0x81000000ULL + 2 * 8, 0);
	T_EQ_U64(arch_vtop(&st, 0xffffffc400400000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "riscv64: virtual address 0xffffffc400400000 not mapped "
	      "(PMD entry 0x0 at paddr 0x81000010 not valid)");
	/* Unreadable: the read's error, with the level and address. */
	T_EQ_U64(arch_vtop(&st, 0xffffffc400600000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "riscv64: virtual address 0xffffffc400600000: PMD entry at paddr 0x81000018: "
	      "fake: paddr 0x81000018 not in memory");
	/* A pointer (no R/W/X) at the last level is reserved: not mapped. */
	fake_put(&m, 0x81001000ULL + 0x140 * 8, PPN(0x9abcf000ULL) | V);
	T_EQ_U64(arch_vtop(&st, 0xffffffc400140000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	/* A user address, or one that does not sign-extend bit 38. */
	m.nlog = 0;
	T_EQ_U64(arch_vtop(&st, 0x0000003f00001000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_MSG(err, "riscv64: virtual address 0x3f00001000 is not a kernel address for Sv39");
	T_EQ_U64(arch_vtop(&st, 0xffff800000000000ULL, fake_read, &m, &pa, &err),
		 MDF_ERR_NODATA);
	T_EQ_U64(m.nlog, 0);
}

/* Sv48 and Sv57: the top levels index bits [47:39] and [56:48]. */
static void t_walk_sv48_sv57(void)
{
	struct arch_state st;
	struct kinfo ki;
	struct mdf_err err;
	struct fake_mem m = { 0 };
	struct arch_walk w;
	uint64_t pgd;

	ki_rv(&ki, 48);
	T_OK(arch_init(&st, EM_RISCV, &ki, NULL, 0, &err), &err);
	pgd = st.pgd_paddr;
	/* 0xffffaf8000201000: [47:39] 0x15f, [38:30] 0, [29:21] 1, [20:12] 1 */
	fake_put(&m, pgd + 0x15f * 8, PPN(0x82000000ULL) | V);
	fake_put(&m, 0x82000000ULL, PPN(0x82001000ULL) | V);
	fake_put(&m, 0x82001000ULL + 8, PPN(0x82002000ULL) | V);
	fake_put(&m, 0x82002000ULL + 8, PPN(0x90000000ULL) | RW | V);
	T_OK(arch_walk(&st, 0xffffaf8000201abcULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x90000abcULL);
	T_EQ_U64(w.nsteps, 4);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_STR(w.step[1].level, "PUD");

	ki_rv(&ki, 57);
	T_OK(arch_init(&st, EM_RISCV, &ki, NULL, 0, &err), &err);
	memset(&m, 0, sizeof(m));
	/* 0xff60000000201abc: [56:48] 0x160, then 0, 0, 1, 1 */
	fake_put(&m, pgd + 0x160 * 8, PPN(0x83000000ULL) | V);
	fake_put(&m, 0x83000000ULL, PPN(0x83001000ULL) | V);
	fake_put(&m, 0x83001000ULL, PPN(0x83002000ULL) | V);
	fake_put(&m, 0x83002000ULL + 8, PPN(0x83003000ULL) | V);
	fake_put(&m, 0x83003000ULL + 8, PPN(0x91000000ULL) | RW | V);
	T_OK(arch_walk(&st, 0xff60000000201abcULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x91000abcULL);
	T_EQ_U64(w.nsteps, 5);
	T_EQ_STR(w.step[0].level, "PGD");
	T_EQ_STR(w.step[1].level, "P4D");
	T_EQ_STR(w.step[4].level, "PTE");
	/* A 512 GiB leaf at the P4D. */
	fake_put(&m, 0x83000000ULL + 8, PPN(0x8000000000ULL) | RW | V);
	T_OK(arch_walk(&st, 0xff60008000001234ULL, fake_read, &m, &w, &err), &err);
	T_EQ_U64(w.paddr, 0x8000001234ULL);
	T_EQ_U64(w.map_size, 1ULL << 39);
}

int main(void)
{
	T_RUN(t_ops_find);
	T_RUN(t_init);
	T_RUN(t_user_leaves);
	T_RUN(t_init_no_kpa);
	T_RUN(t_init_errors);
	T_RUN(t_init_bad_hints);
	T_RUN(t_walk_sv39);
	T_RUN(t_walk_sv48_sv57);
	return t_done();
}
