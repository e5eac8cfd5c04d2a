/*
 * arch/arm.c - 32-bit arm (ARMv7-A) address translation: the lowmem direct
 * map, and the page-table walk in the short-descriptor format (2 levels of
 * 4-byte entries) or, with LPAE, the long-descriptor format (3 levels of
 * 8-byte entries).
 *
 * Layout facts (the kernel's arch/arm/include/asm/memory.h, pgtable-2level.h,
 * pgtable-3level.h, arch/arm/mm/mmu.c, arch/arm/Kconfig; the ARM ARM
 * (DDI 0406C) B3.5 and B3.6 for the descriptors):
 *   direct map  [PAGE_OFFSET, PAGE_OFFSET + lowmem): pa = va - PAGE_OFFSET
 *               + PHYS_OFFSET.  PAGE_OFFSET is CONFIG_PAGE_OFFSET:
 *               0xC0000000 (VMSPLIT_3G, every distribution), 0xB0000000
 *               (3G_OPT), 0x80000000 (2G), 0x40000000 (1G).  PHYS_OFFSET
 *               is where RAM starts, patched into the kernel at boot
 *               (ARM_PATCH_PHYS_VIRT; AUTO_ZRELADDR's decompressor puts the
 *               kernel at the RAM start rounded down to 128 MiB).  The
 *               kernel image is inside the direct map.  lowmem ends at
 *               arm_lowmem_limit, at most vmalloc_min = VMALLOC_END
 *               0xff800000 - 240 MiB - VMALLOC_OFFSET 8 MiB = 0xf0000000
 *               (adjust_lowmem_bounds()).
 *   highmem     RAM above lowmem: no fixed virtual address.
 *   short       first level: 4096 entries (va bits 31..20): a page table
 *   descriptors (bits 1..0 = 01, at bits 31..10), a 1 MiB section (bit 1
 *               set, bit 18 clear: pa bits 31..20) or a 16 MiB supersection
 *               (bit 18 set: pa bits 31..24, 35..32 in bits 23..20, 39..36
 *               in bits 8..5); second level: 256 entries (bits 19..12): a
 *               64 KiB large page (01: pa bits 31..16) or a 4 KiB small
 *               page (bit 1 set: pa bits 31..12).  Linux keeps its own
 *               ptes beside the hardware's (pgtable-2level.h): one page
 *               holds Linux's two 256-entry tables at +0 and +1024 and the
 *               hardware's at +2048 and +3072, and the first-level pair
 *               points at the hardware ones; Linux's pte is 2048 bytes
 *               below the hardware's, and cpu_v7_set_pte_ext() leaves the
 *               hardware pte 0 for a present page that is not young.
 *   LPAE        PGD of 4 8-byte entries (bits 31..30) -> PMD of 512
 *               (29..21) -> PTE of 512 (20..12); bits 1..0: 11 a table
 *               (a page at level 3), 01 a block (1 GiB at the PGD, 2 MiB at
 *               the PMD); the address in bits 39..12.
 *
 * The root is SYMBOL(swapper_pg_dir), a lowmem address (generic
 * VMCOREINFO).  The format: CONFIG_ARM_LPAE=y in VMCOREINFO, which arm's
 * arch_crash_save_vmcoreinfo() writes (arch/arm/kernel/machine_kexec.c
 * in 6.1, moved unchanged to arch/arm/kernel/vmcore_info.c in 6.9);
 * without the line the kernel is short-descriptor.
 *
 * VMCOREINFO has neither PAGE_OFFSET nor PHYS_OFFSET on arm, and
 * kexec-tools' PT_LOADs (kexec/arch/arm/phys_to_virt.c) put every range at
 * paddr + PAGE_OFFSET - the first range's start, highmem too, in 32 bits:
 * a guess, off by the difference when RAM starts above PHYS_OFFSET.  So
 * init guesses (PAGE_OFFSET 0xC0000000, PHYS_OFFSET the lowest RAM start
 * rounded down to 128 MiB) and init_mem proves a pair of the candidates
 * by the page tables themselves: with the right pair, swapper_pg_dir -
 * PAGE_OFFSET + PHYS_OFFSET is a table that maps swapper_pg_dir to that
 * same physical address.  It then measures lowmem: the highest page below
 * vmalloc_min that the tables map linearly.  PT_LOAD p_vaddr is never
 * trusted beyond the guess.
 */
#include "arch/arch.h"

#include <elf.h>
#include <string.h>

#include "util.h"

#define ARM_PAGE_SHIFT 12
#define ARM_PAGE_OFFSET_DEFAULT 0xC0000000ULL
#define ARM_VA_END (1ULL << 32)
#define ARM_VMALLOC_MIN 0xF0000000ULL

/* short descriptors */
#define ARM_S_TYPE_MASK 0x3ULL
#define ARM_S_L1_TABLE 0x1ULL
#define ARM_S_L1_SECT_BIT 0x2ULL
#define ARM_S_SUPER (1ULL << 18)
#define ARM_S_TABLE_MASK 0xfffffc00ULL
#define ARM_S_SECT_MASK 0xfff00000ULL
#define ARM_S_SUPER_MASK 0xff000000ULL
#define ARM_S_L2_LARGE 0x1ULL
#define ARM_S_L2_SMALL_BIT 0x2ULL
#define ARM_S_LARGE_MASK 0xffff0000ULL
#define ARM_S_SMALL_MASK 0xfffff000ULL
/* Linux's pte (pgtable-2level.h): L_PTE_PRESENT, and its distance below
 * the hardware pte in the page of a table pair */
#define ARM_L_PTE_PRESENT 0x1ULL
#define ARM_LINUX_PTE_DELTA 2048ULL

/* long descriptors */
#define ARM_L_VALID 0x1ULL
#define ARM_L_TABLE 0x2ULL
#define ARM_L_ADDR_MASK 0x000000fffffff000ULL

/* MAX_PHYSMEM_BITS: 32 bits of physical address in short descriptors
 * (supersections reach 40, which Linux uses for no RAM), 40 with LPAE
 * (arch/arm/include/asm/pgtable-3level.h's PHYS_MASK). */
#define ARM_SHORT_PHYSMEM_BITS 32
#define ARM_LPAE_PHYSMEM_BITS 40

/* CONFIG_PAGE_OFFSET of each VMSPLIT choice, the most common first. */
static const uint32_t arm_page_offsets[] = {
	0xC0000000u, 0x80000000u, 0x40000000u, 0xB0000000u,
};

static bool arm_lpae(const struct arch_state *st)
{
	return st->levels == 3;
}

static uint64_t arm_maxmem(uint64_t po)
{
	return po < ARM_VMALLOC_MIN ? ARM_VMALLOC_MIN - po : 0;
}

/* The root and the direct window for PAGE_OFFSET @po and PHYS_OFFSET
 * @phys, lowmem @lowmem bytes. */
static void arm_set(struct arch_state *st, uint64_t po, uint64_t phys, uint64_t lowmem)
{
	uint64_t va = st->arm.swapper_va;

	st->page_offset = po;
	st->phys_base = phys;
	st->have_phys_base = true;
	st->flat_pfn_offset = phys >> ARM_PAGE_SHIFT;
	st->have_pgd = st->arm.have_swapper && va >= po && va - po < arm_maxmem(po);
	st->pgd_paddr = st->have_pgd ? va - po + phys : 0;
	st->direct.valid = lowmem > 0;
	st->direct.vaddr = po;
	st->direct.size = lowmem;
	st->direct.paddr = phys;
}

static enum mdf_status arm_init(struct arch_state *st, const struct kinfo *ki,
				const struct arch_seg_hint *segs, size_t nsegs,
				struct mdf_err *err)
{
	bool lpae = ki->config.ARM_LPAE;
	uint64_t ram_start = UINT64_MAX, ram_end = 0, phys, lowmem;

	if (arch_page_size_4k(st, ki, err) != MDF_OK)
		return err->status;
	st->levels = lpae ? 3 : 2;
	st->va_bits = 32;
	if (arch_physmem_bits(st, ki, lpae ? ARM_LPAE_PHYSMEM_BITS : ARM_SHORT_PHYSMEM_BITS,
			      err) != MDF_OK)
		return err->status;
	if (ki->sym.swapper_pg_dir.set && ki->sym.swapper_pg_dir.v >= ARM_VA_END)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "SYMBOL(swapper_pg_dir)=0x%llx is not a 32-bit address",
				   (unsigned long long)ki->sym.swapper_pg_dir.v);
	st->arm.have_swapper = ki->sym.swapper_pg_dir.set;
	st->arm.swapper_va = ki->sym.swapper_pg_dir.v;

	for (size_t i = 0; i < nsegs; i++) {
		if (!segs[i].size)
			continue;
		ram_start = MDF_MIN(ram_start, segs[i].paddr);
		ram_end = MDF_MAX(ram_end, segs[i].paddr + segs[i].size);
	}
	/* A kdump-compressed input: its header's phys_base is PHYS_OFFSET
	 * (the kernel of the dump filled NUMBER(phys_base) from it). */
	if (ki->num.phys_base.set)
		ram_start = (uint64_t)ki->num.phys_base.v;
	st->arm.ram_start = ram_start == UINT64_MAX ? 0 : ram_start;
	phys = st->arm.ram_start & ~((128ULL << 20) - 1);
	lowmem = arm_maxmem(ARM_PAGE_OFFSET_DEFAULT);
	if (ram_end > phys && ram_end - phys < lowmem)
		lowmem = ram_end - phys;
	arm_set(st, ARM_PAGE_OFFSET_DEFAULT, phys, lowmem);
	st->page_offset_exact = false;
	return MDF_OK;
}

/* The hardware's small or large page of second-level entry @e at @ep
 * mapping @va; or, when the hardware entry is a fault, Linux's pte of a
 * present page that is not young, 2048 bytes below it (a table pair's). */
static enum mdf_status arm_short_pte(uint64_t e, uint64_t ep, uint64_t vaddr,
				     arch_read_pte_fn rd, void *arg, struct arch_walk *walk,
				     struct mdf_err *err)
{
	uint64_t lin;
	enum mdf_status s;

	if (e & ARM_S_L2_SMALL_BIT) {
		walk->map_size = 1ULL << ARM_PAGE_SHIFT;
		walk->paddr = (e & ARM_S_SMALL_MASK) | (vaddr & 0xfff);
		return MDF_OK;
	}
	if ((e & ARM_S_TYPE_MASK) == ARM_S_L2_LARGE) {
		walk->map_size = 1ULL << 16;
		walk->paddr = (e & ARM_S_LARGE_MASK) | (vaddr & 0xffff);
		return MDF_OK;
	}
	if ((ep & 0xfff) >= ARM_LINUX_PTE_DELTA) {
		s = arch_walk_read_n(walk, "LPTE", ep - ARM_LINUX_PTE_DELTA, 4, vaddr, rd, arg,
				     &lin, err);
		if (s != MDF_OK)
			return s;
		if (lin & ARM_L_PTE_PRESENT) {
			walk->map_size = 1ULL << ARM_PAGE_SHIFT;
			walk->paddr = (lin & ARM_S_SMALL_MASK) | (vaddr & 0xfff);
			return MDF_OK;
		}
	}
	return mdf_err_set(err, MDF_ERR_NODATA,
			   "virtual address 0x%llx not mapped (PTE entry 0x%llx at paddr 0x%llx not present)",
			   (unsigned long long)vaddr, (unsigned long long)e,
			   (unsigned long long)ep);
}

static enum mdf_status arm_walk_short(const struct arch_state *st, uint64_t vaddr,
				      arch_read_pte_fn rd, void *arg, struct arch_walk *walk,
				      struct mdf_err *err)
{
	uint64_t ep = st->pgd_paddr + 4 * (vaddr >> 20), e;
	enum mdf_status s;

	s = arch_walk_read_n(walk, "PGD", ep, 4, vaddr, rd, arg, &e, err);
	if (s != MDF_OK)
		return s;
	if (e & ARM_S_L1_SECT_BIT) {
		if (e & ARM_S_SUPER) {
			walk->map_size = 16ULL << 20;
			walk->paddr = (e & ARM_S_SUPER_MASK) | ((e >> 20 & 0xf) << 32) |
				      ((e >> 5 & 0xf) << 36) | (vaddr & 0xffffff);
		} else {
			walk->map_size = 1ULL << 20;
			walk->paddr = (e & ARM_S_SECT_MASK) | (vaddr & 0xfffff);
		}
		return MDF_OK;
	}
	if ((e & ARM_S_TYPE_MASK) != ARM_S_L1_TABLE)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx not mapped (PGD entry 0x%llx at paddr 0x%llx not present)",
				   (unsigned long long)vaddr, (unsigned long long)e,
				   (unsigned long long)ep);
	ep = (e & ARM_S_TABLE_MASK) + 4 * (vaddr >> 12 & 0xff);
	s = arch_walk_read_n(walk, "PTE", ep, 4, vaddr, rd, arg, &e, err);
	if (s != MDF_OK)
		return s;
	return arm_short_pte(e, ep, vaddr, rd, arg, walk, err);
}

static enum mdf_status arm_walk_lpae(const struct arch_state *st, uint64_t vaddr,
				     arch_read_pte_fn rd, void *arg, struct arch_walk *walk,
				     struct mdf_err *err)
{
	static const char names[][4] = { "PTE", "PMD", "PGD" };
	uint64_t table = st->pgd_paddr;
	unsigned shift = 30;

	for (unsigned l = 2;; l--) {
		uint64_t idx = (vaddr >> shift) & (l == 2 ? 3 : 511);
		uint64_t ep = table + 8 * idx, e;
		enum mdf_status s;

		s = arch_walk_read_n(walk, names[l], ep, 8, vaddr, rd, arg, &e, err);
		if (s != MDF_OK)
			return s;
		if (!(e & ARM_L_VALID) || (l == 0 && !(e & ARM_L_TABLE)))
			return mdf_err_set(err, MDF_ERR_NODATA,
					   "virtual address 0x%llx not mapped (%s entry 0x%llx at paddr 0x%llx not present)",
					   (unsigned long long)vaddr, names[l],
					   (unsigned long long)e, (unsigned long long)ep);
		if (l == 0 || !(e & ARM_L_TABLE)) {
			uint64_t size = 1ULL << shift;

			walk->map_size = size;
			walk->paddr = (e & ARM_L_ADDR_MASK & ~(size - 1)) | (vaddr & (size - 1));
			return MDF_OK;
		}
		table = e & ARM_L_ADDR_MASK;
		shift -= 9;
	}
}

static enum mdf_status arm_walk(const struct arch_state *st, uint64_t vaddr,
				arch_read_pte_fn rd, void *arg,
				struct arch_walk *walk, struct mdf_err *err)
{
	if (!st->have_pgd)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx: no page-table root (VMCOREINFO needs SYMBOL(swapper_pg_dir) in lowmem)",
				   (unsigned long long)vaddr);
	if (vaddr >= ARM_VA_END)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx is not a 32-bit address",
				   (unsigned long long)vaddr);
	return arm_lpae(st) ? arm_walk_lpae(st, vaddr, rd, arg, walk, err)
			    : arm_walk_short(st, vaddr, rd, arg, walk, err);
}

static bool arm_root_maps_itself(const struct arch_state *st, uint64_t po, uint64_t phys,
				 arch_read_pte_fn rd, void *arg)
{
	struct arch_state t = *st;
	uint64_t va = st->arm.swapper_va;

	if (va < po || va - po >= arm_maxmem(po))
		return false;
	arm_set(&t, po, phys, 0);
	return arch_walk_maps_to(&t, va, va - po + phys, rd, arg);
}

/* Prove PAGE_OFFSET and PHYS_OFFSET and measure lowmem through the page
 * tables (see the head of the file).  What cannot be read leaves init's
 * guess. */
static enum mdf_status arm_init_mem(struct arch_state *st, arch_read_pte_fn rd, void *arg,
				    struct mdf_err *err)
{
	/* PHYS_OFFSET: the RAM start rounded down to 128 MiB (AUTO_ZRELADDR),
	 * to 16 MiB (ARM_PATCH_PHYS_VIRT's granule before 4.x), 2 MiB, or the
	 * RAM start itself */
	const uint64_t r = st->arm.ram_start;
	const uint64_t physes[] = { r & ~((128ULL << 20) - 1), r & ~((16ULL << 20) - 1),
				    r & ~((2ULL << 20) - 1), r };
	const uint64_t block = arm_lpae(st) ? 2ULL << 20 : 1ULL << 20;
	uint64_t po = 0, phys = 0, last = 0;
	bool found = false;

	(void)err;
	if (!st->arm.have_swapper)
		return MDF_OK;
	for (size_t i = 0; !found && i < ARRAY_SIZE(arm_page_offsets); i++) {
		for (size_t j = 0; !found && j < ARRAY_SIZE(physes); j++) {
			if (j && physes[j] == physes[j - 1])
				continue;
			if (arm_root_maps_itself(st, arm_page_offsets[i], physes[j], rd, arg)) {
				po = arm_page_offsets[i];
				phys = physes[j];
				found = true;
			}
		}
	}
	if (!found)
		return MDF_OK;
	arm_set(st, po, phys, 0); /* the window measured below, walking */
	/* the highest block below vmalloc_min whose first page is mapped
	 * linearly (lowmem may have holes: no-map memory), then its last
	 * page that is */
	for (uint64_t off = 0; off < arm_maxmem(po); off += block)
		if (arch_walk_maps_to(st, po + off, phys + off, rd, arg))
			last = off + block;
	if (last) {
		uint64_t end = last - block + (1ULL << ARM_PAGE_SHIFT);

		for (uint64_t off = end; off < last; off += 1ULL << ARM_PAGE_SHIFT) {
			if (!arch_walk_maps_to(st, po + off, phys + off, rd, arg))
				break;
			end = off + (1ULL << ARM_PAGE_SHIFT);
		}
		last = end;
	}
	st->page_offset_exact = true;
	arm_set(st, po, phys, last);
	return MDF_OK;
}

/* --keep-task's walk of a user address space: [0, TASK_SIZE), TASK_SIZE
 * being PAGE_OFFSET - 16 MiB (the modules sit below PAGE_OFFSET, in the
 * kernel's part).  A task's root is its mm's pgd: 16 KiB of 4096
 * first-level entries, or LPAE's 4 entries, 32 bytes from kmalloc(). */
static void arm_user_layout(const struct arch_state *st, struct arch_user_layout *ul)
{
	bool lpae = arm_lpae(st);

	ul->levels = lpae ? 3 : 2;
	ul->page_shift = ARM_PAGE_SHIFT;
	ul->level_bits = lpae ? 9 : 8;
	ul->top_bits = lpae ? 2 : 12;
	ul->entry_size = lpae ? 8 : 4;
	ul->end = st->page_offset > (16ULL << 20) ? st->page_offset - (16ULL << 20) : 0;
	ul->root_mask = lpae ? ~0x1fULL : ~0x3fffULL;
}

/* A short-descriptor first-level entry: a page table (whose Linux ptes,
 * present or not young, are 2048 bytes below the hardware's it points
 * at), or a section; a second-level one read there is Linux's pte
 * (L_PTE_PRESENT, bit 0; pgtable-2level.h).  LPAE: bits 1..0 11 a table
 * (a page at the last level), 01 a block; a PROT_NONE page keeps bit 1
 * with bit 0 (L_PTE_VALID) cleared by cpu_v7_set_pte_ext(), and is
 * present (pte_present() tests L_PTE_PRESENT, both bits). */
static enum arch_entry arm_user_entry(const struct arch_state *st, unsigned l, uint64_t e,
				      uint64_t va, uint64_t *pa)
{
	if (arm_lpae(st)) {
		if (l == 0) {
			*pa = e & ARM_L_ADDR_MASK;
			return e & (ARM_L_VALID | ARM_L_TABLE) ? ARCH_ENTRY_LEAF : ARCH_ENTRY_NONE;
		}
		if (!(e & ARM_L_VALID))
			return ARCH_ENTRY_NONE;
		*pa = e & ARM_L_ADDR_MASK;
		return e & ARM_L_TABLE ? ARCH_ENTRY_TABLE : ARCH_ENTRY_LEAF;
	}
	if (l == 0) {
		*pa = e & ARM_S_SMALL_MASK;
		return e & ARM_L_PTE_PRESENT ? ARCH_ENTRY_LEAF : ARCH_ENTRY_NONE;
	}
	if (e & ARM_S_L1_SECT_BIT) {
		*pa = e & ARM_S_SUPER ? (e & ARM_S_SUPER_MASK) | (va & 0xf00000)
				      : e & ARM_S_SECT_MASK;
		return ARCH_ENTRY_LEAF;
	}
	if ((e & ARM_S_TYPE_MASK) != ARM_S_L1_TABLE || (e & ARM_S_TABLE_MASK & 0xfff) < ARM_LINUX_PTE_DELTA)
		return ARCH_ENTRY_NONE;
	*pa = (e & ARM_S_TABLE_MASK) - ARM_LINUX_PTE_DELTA;
	return ARCH_ENTRY_TABLE;
}

const struct arch_ops arch_arm_ops = {
	.name = "arm",
	/* uname -m of an ARMv7 little-endian kernel (setup_processor():
	 * the cpu's architecture name and the endianness) */
	.uts_machine = "armv7l",
	.uts_machine_be = "armv7b",
	.e_machine = EM_ARM,
	.word_size = 4,
	.init = arm_init,
	.walk = arm_walk,
	.init_mem = arm_init_mem,
	.user_layout = arm_user_layout,
	.user_entry = arm_user_entry,
};
