/*
 * arch/mips64.c - 64-bit MIPS address translation: the unmapped segments
 * (XKPHYS, CKSEG0, CKSEG1) and the walk of the kernel's page tables for
 * the mapped ones (XKSEG: vmalloc; KSEG3: fixmap).
 *
 * Layout facts (Linux 6.1, the kernel of Debian bookworm's mips64el
 * flavours 5kc-malta, mips64r2el, loongson-3 and octeon:
 * arch/mips/include/asm/addrspace.h, mach-generic/spaces.h, page.h,
 * pgtable-64.h, pgtable-bits.h):
 *   XKPHYS  [0x8000000000000000, 0xc000000000000000): unmapped; bits 61..59
 *           are the cache attribute, the rest the physical address.  The
 *           direct map of RAM is there: PAGE_OFFSET = CAC_BASE +
 *           PHYS_OFFSET (0), CAC_BASE 0x9800000000000000 with
 *           CONFIG_DMA_NONCOHERENT (every Debian flavour but octeon, whose
 *           mach-cavium-octeon/spaces.h says 0x8000000000000000), else
 *           0xa800000000000000.
 *   CKSEG0  [0xffffffff80000000, +512 MiB): unmapped, cached, physical
 *           0..512 MiB: the kernel image (Debian's malta at 0x80100000,
 *           loongson-3 at 0x80200000, octeon at 0x81100000 and up, moved by
 *           CONFIG_RANDOMIZE_BASE within 16 MiB: VA and PA move together).
 *   CKSEG1  [0xffffffffa0000000, +512 MiB): the same memory, uncached.
 *   XKSEG   [0xc000000000000000, ...): mapped; vmalloc from MAP_BASE + 2
 *           pages, through swapper_pg_dir; the modules too on Debian's
 *           kernels (their vmlinux has no module_pg_dir: MODULE_START is
 *           not defined, pgtable-64.h).
 *   CKSSEG  [0xffffffffc0000000, +512 MiB): mapped; the modules of a
 *           kernel built with -msym32 (KBUILD_64BIT_SYM32), through
 *           module_pg_dir, which no VMCOREINFO line names: not walked.
 *   KSEG3   [0xffffffffe0000000, ...): mapped; fixmap, through
 *           swapper_pg_dir.
 *
 * Page tables (pgtable-64.h): PGD -> PMD -> PTE (CONFIG_PGTABLE_LEVELS=3
 * on every Debian flavour: no MIPS_VA_BITS_48), 8-byte entries, a table
 * of PAGE_SIZE << order bytes: 4 KiB pages, the PGD of order 1 (1024
 * entries: va bits 39..30), PMD and PTE 512 (29..21, 20..12); 16 KiB pages
 * (loongson-3), every table 2048 entries (46..36, 35..25, 24..14); 64 KiB
 * pages, two levels (PGD 8192: 41..29, PTE 8192).  A PGD or PMD entry
 * holds the kernel *virtual* address of the next table (an XKPHYS or
 * CKSEG0 address); an empty one points at invalid_pmd_table or
 * invalid_pte_table, whose entries are empty in turn.  A PMD entry with
 * _PAGE_HUGE set is a leaf mapping PMD_SIZE, in the PTE format.
 *
 * A PTE (pgtable-bits.h, the r4k layout) holds the pfn from bit
 * _PFN_SHIFT = PAGE_SHIFT - 12 + _CACHE_SHIFT + 3, and below it, from bit
 * 0: software bits _PAGE_PRESENT, (_PAGE_NO_READ without RIXI),
 * _PAGE_WRITE, _PAGE_ACCESSED, _PAGE_MODIFIED, _PAGE_HUGE (with
 * MIPS_HUGE_TLB_SUPPORT), _PAGE_SPECIAL (ARCH_HAS_PTE_SPECIAL),
 * _PAGE_SOFT_DIRTY (HAVE_ARCH_SOFT_DIRTY), then the EntryLo bits (XI RI
 * with CPU_HAS_RIXI) G V D and the 3-bit cache attribute at _CACHE_SHIFT.
 * Debian's 6.1 flavours (CPU_MIPSR2, CPU_HAS_RIXI, MIPS_HUGE_TLB_SUPPORT,
 * ARCH_HAS_PTE_SPECIAL, no SOFT_DIRTY: their /boot/config-6.1.0-50-*) put
 * G at 8 and the cache at 11 (gdb's enum pgtable_bits of the 5kc-malta
 * and loongson-3 -dbg vmlinux: _CACHE_SHIFT is its 12th value): the pfn
 * at bit 14 with 4 KiB pages, 16 with 16 KiB; _PAGE_HUGE is bit 4.  The layout depends on the
 * configuration and no VMCOREINFO line gives it (MIPS has no
 * arch_crash_save_vmcoreinfo() in 6.1), so init takes Debian's and
 * init_mem reads the real one from the kernel's own vmalloc ptes: in a
 * pte of PAGE_KERNEL, G is the lowest bit set above the software bits
 * that such a pte leaves clear (5 up), with V right above it.
 *
 * VMCOREINFO has no PAGE_OFFSET either.  kexec-tools (2.0.25,
 * kexec/arch/mips/crashdump-mips.c) writes each RAM range's p_vaddr as
 * paddr + 0xa800000000000000 (0x8000000000000000 on an Octeon): an
 * XKPHYS alias of the same memory whatever the kernel's CAC_BASE, and the
 * kernel image's as its physical address in CKSEG0.  init_mem proves
 * CAC_BASE from swapper_pg_dir's entries that point at tables the kernel
 * allocated.
 */
#include "arch/arch.h"

#include <elf.h>
#include <string.h>

#include "util.h"

#define MIPS_XKPHYS 0x8000000000000000ULL
#define MIPS_XKSEG 0xc000000000000000ULL
#define MIPS_CKSEG0 0xffffffff80000000ULL
#define MIPS_CKSEG1 0xffffffffa0000000ULL
#define MIPS_CKSSEG 0xffffffffc0000000ULL
#define MIPS_CKSEG_SIZE 0x20000000ULL
/* XKPHYS: the cache attribute in bits 61..59 */
#define MIPS_XKPHYS_PA_MASK ((1ULL << 59) - 1)
/* CAC_BASE with and without CONFIG_DMA_NONCOHERENT (mach-generic/spaces.h) */
#define MIPS_CAC_BASE_NONCOHERENT 0x9800000000000000ULL
/* MAX_PHYSMEM_BITS of 64-bit MIPS (asm/sparsemem.h) */
#define MIPS_PHYSMEM_BITS 48
/* SECTION_SIZE_BITS (asm/sparsemem.h): 29 with huge pages of 64 KiB
 * pages, else 28 */
#define MIPS_SECTION_SIZE_BITS 28
#define MIPS_SECTION_SIZE_BITS_64K 29

#define MIPS_PTE_PRESENT 0x1ULL
/* _PAGE_HUGE with RIXI (bit 4), as in Debian's flavours */
#define MIPS_PTE_HUGE (1ULL << 4)
/* Debian 6.1's _CACHE_SHIFT (see the head of the file) */
#define MIPS_CACHE_SHIFT_DEBIAN 11
/* the lowest bit G can be at: after P W A M H (RIXI) or P R W A M */
#define MIPS_G_MIN 5
#define MIPS_G_MAX 12

/* How many present ptes init_mem reads to learn the layout, from how
 * many of the PGD's first entries. */
#define MIPS_PROBE_PTES 64
#define MIPS_PROBE_PGDS 4

static unsigned mips_pfn_shift_of(unsigned page_shift, unsigned cache_shift)
{
	return page_shift - 12 + cache_shift + 3;
}

/* The physical address of an unmapped-segment address, or false. */
static bool mips_unmapped(const struct arch_state *st, uint64_t va, uint64_t *pa)
{
	if (va >> 62 == 2) { /* XKPHYS */
		uint64_t p = va & MIPS_XKPHYS_PA_MASK;

		if (st->max_physmem_bits < 64 && p >> st->max_physmem_bits)
			return false;
		*pa = p;
		return true;
	}
	if (va - MIPS_CKSEG0 < 2 * MIPS_CKSEG_SIZE) { /* CKSEG0, CKSEG1 */
		*pa = (va - MIPS_CKSEG0) & (MIPS_CKSEG_SIZE - 1);
		return true;
	}
	return false;
}

/* Bits of va a table of level @l (0 = PTE) indexes, and its shift. */
static unsigned mips_level_bits(const struct arch_state *st, unsigned l)
{
	unsigned bits = st->page_shift - 3;

	/* the PGD of 4 KiB pages is two pages (PGD_ORDER 1) */
	if (l + 1 == st->levels && st->page_shift == 12)
		bits++;
	return bits;
}

static unsigned mips_level_shift(const struct arch_state *st, unsigned l)
{
	return st->page_shift + l * (st->page_shift - 3);
}

static enum mdf_status mips64_init(struct arch_state *st, const struct kinfo *ki,
				   const struct arch_seg_hint *segs, size_t nsegs,
				   struct mdf_err *err)
{
	uint64_t ps = ki->page_size.set ? ki->page_size.v : 4096;
	uint64_t ram_end = 0;

	if (ps != 4096 && ps != 16384 && ps != 65536)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "PAGESIZE=%llu in VMCOREINFO, expected 4096, 16384 or 65536",
				   (unsigned long long)ps);
	st->page_size = ps;
	st->page_shift = (unsigned)__builtin_ctzll(ps);
	st->levels = ps == 65536 ? 2 : 3;
	st->va_bits = mips_level_shift(st, st->levels - 1) + mips_level_bits(st, st->levels - 1);
	if (arch_physmem_bits(st, ki, MIPS_PHYSMEM_BITS, err) != MDF_OK)
		return err->status;
	st->mips64.pfn_shift = mips_pfn_shift_of(st->page_shift, MIPS_CACHE_SHIFT_DEBIAN);
	st->phys_base = 0;
	st->have_phys_base = true;

	/* the root: SYMBOL(swapper_pg_dir), in the image (CKSEG0) */
	if (ki->sym.swapper_pg_dir.set) {
		uint64_t pa;

		/* a 32-bit kernel's symbols are KSEG0's 32-bit addresses
		 * (0x80000000 up), a 64-bit one's sign-extended CKSEG0 or
		 * XKPHYS: EM_MIPS is both, and only MIPS64 is read */
		if (ki->sym.swapper_pg_dir.v >> 32 == 0)
			return mdf_err_set(err, MDF_ERR_NOTSUPP,
					   "32-bit MIPS is not supported (SYMBOL(swapper_pg_dir)=0x%llx "
					   "is a 32-bit kernel's address; mips64 kernels only)",
					   (unsigned long long)ki->sym.swapper_pg_dir.v);
		if (!mips_unmapped(st, ki->sym.swapper_pg_dir.v, &pa))
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "SYMBOL(swapper_pg_dir)=0x%llx is in no unmapped segment",
					   (unsigned long long)ki->sym.swapper_pg_dir.v);
		st->pgd_paddr = pa;
		st->have_pgd = true;
	}

	/* The image in CKSEG0 is the hardware's: pa = va - CKSEG0. */
	st->text.valid = true;
	st->text.vaddr = MIPS_CKSEG0;
	st->text.size = MIPS_CKSEG_SIZE;
	st->text.paddr = 0;

	/* The direct map: CAC_BASE over the RAM of the PT_LOADs (their own
	 * vaddrs are kexec-tools' alias, see the head of the file); the
	 * noncoherent CAC_BASE before init_mem proves the kernel's. */
	for (size_t i = 0; i < nsegs; i++)
		if (segs[i].size && segs[i].vaddr >> 62 == 2)
			ram_end = MDF_MAX(ram_end, segs[i].paddr + segs[i].size);
	st->page_offset = MIPS_CAC_BASE_NONCOHERENT;
	st->page_offset_exact = false;
	st->direct.valid = true;
	st->direct.vaddr = st->page_offset;
	st->direct.size = ram_end ? ram_end : 1ULL << st->max_physmem_bits;
	st->direct.paddr = 0;
	return MDF_OK;
}

/* The physical address of the table an entry of a PGD (or PMD) points
 * at, or false when it points nowhere a table can be. */
static bool mips_table_pa(const struct arch_state *st, uint64_t e, uint64_t *pa)
{
	if (e & (st->page_size - 1))
		return false;
	return mips_unmapped(st, e, pa);
}

static enum mdf_status mips64_walk(const struct arch_state *st, uint64_t vaddr,
				   arch_read_pte_fn rd, void *arg,
				   struct arch_walk *walk, struct mdf_err *err)
{
	uint64_t table = st->pgd_paddr;

	/* unmapped segments: no table */
	if (mips_unmapped(st, vaddr, &walk->paddr)) {
		walk->map_size = st->page_size;
		return MDF_OK;
	}
	if (vaddr >> 62 != 3)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx is not a kernel address (user space)",
				   (unsigned long long)vaddr);
	if (vaddr - MIPS_CKSSEG < MIPS_CKSEG_SIZE)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx is in CKSSEG (modules), mapped by module_pg_dir, which VMCOREINFO does not name",
				   (unsigned long long)vaddr);
	if (!st->have_pgd)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx: no page-table root (VMCOREINFO needs SYMBOL(swapper_pg_dir))",
				   (unsigned long long)vaddr);

	for (unsigned l = st->levels - 1;; l--) {
		unsigned shift = mips_level_shift(st, l);
		uint64_t idx = (vaddr >> shift) & ((1ULL << mips_level_bits(st, l)) - 1);
		uint64_t ep = table + idx * 8, e;
		const char *name = arch_level_name(st->levels, l);
		enum mdf_status s;

		s = arch_walk_read(walk, name, ep, vaddr, rd, arg, &e, err);
		if (s != MDF_OK)
			return s;
		/* a leaf: a PTE, or a huge PMD */
		if (l == 0 || (l == 1 && (e & MIPS_PTE_HUGE))) {
			uint64_t size = 1ULL << shift;

			if (!(e & MIPS_PTE_PRESENT))
				return mdf_err_set(err, MDF_ERR_NODATA,
						   "virtual address 0x%llx not mapped (%s entry 0x%llx at paddr 0x%llx not present)",
						   (unsigned long long)vaddr, name,
						   (unsigned long long)e, (unsigned long long)ep);
			walk->map_size = size;
			walk->paddr = (((e >> st->mips64.pfn_shift) << st->page_shift) &
				       ~(size - 1)) | (vaddr & (size - 1));
			return MDF_OK;
		}
		if (!mips_table_pa(st, e, &table))
			return mdf_err_set(err, MDF_ERR_NODATA,
					   "virtual address 0x%llx not mapped (%s entry 0x%llx at paddr 0x%llx is no table's address)",
					   (unsigned long long)vaddr, name,
					   (unsigned long long)e, (unsigned long long)ep);
	}
}

/* _CACHE_SHIFT as pte @e of PAGE_KERNEL says it (G the lowest bit set
 * from MIPS_G_MIN, V above it), or 0. */
static unsigned mips_cache_shift_of_pte(uint64_t e)
{
	uint64_t hi = e & ~((1ULL << MIPS_G_MIN) - 1);
	unsigned g;

	if (!(e & MIPS_PTE_PRESENT) || !hi)
		return 0;
	g = (unsigned)__builtin_ctzll(hi);
	if (g > MIPS_G_MAX || !(e >> (g + 1) & 1))
		return 0;
	return g + 3;
}

struct mips_probe {
	unsigned votes[MIPS_G_MAX + 4];
	unsigned seen;
	/* tables that held nothing: invalid_pte_table and invalid_pmd_table,
	 * which every empty entry points at, are read once */
	uint64_t empty[4];
	unsigned nempty;
};

static bool mips_probe_known_empty(const struct mips_probe *p, uint64_t pa)
{
	for (unsigned i = 0; i < p->nempty; i++)
		if (p->empty[i] == pa)
			return true;
	return false;
}

static void mips_probe_mark_empty(struct mips_probe *p, uint64_t pa)
{
	if (p->nempty < ARRAY_SIZE(p->empty))
		p->empty[p->nempty++] = pa;
}

/* Read the ptes of the PTE table at @pa (present ones) into @p. */
static void mips_probe_table(const struct arch_state *st, uint64_t pa, arch_read_pte_fn rd,
			     void *arg, struct mips_probe *p)
{
	uint64_t n = 1ULL << mips_level_bits(st, 0);
	unsigned before = p->seen;

	if (mips_probe_known_empty(p, pa))
		return;
	for (uint64_t i = 0; i < n && p->seen < MIPS_PROBE_PTES; i++) {
		struct mdf_err e;
		uint64_t pte;
		unsigned c;

		mdf_err_clear(&e);
		if (rd(arg, pa + 8 * i, 8, &pte, &e) != MDF_OK)
			break; /* the dump lacks it: read no more of it */
		c = mips_cache_shift_of_pte(pte);
		if (!c)
			continue;
		p->votes[c]++;
		p->seen++;
	}
	if (p->seen == before)
		mips_probe_mark_empty(p, pa);
}

/* The PMD table at @pa: its PTE tables into @p. */
static void mips_probe_pmd(const struct arch_state *st, uint64_t pa, arch_read_pte_fn rd,
			   void *arg, struct mips_probe *p)
{
	uint64_t n = 1ULL << mips_level_bits(st, 1);
	unsigned before = p->seen;

	if (mips_probe_known_empty(p, pa))
		return;
	for (uint64_t j = 0; j < n && p->seen < MIPS_PROBE_PTES; j++) {
		struct mdf_err e;
		uint64_t pmd, pte_pa;

		mdf_err_clear(&e);
		if (rd(arg, pa + 8 * j, 8, &pmd, &e) != MDF_OK)
			break;
		if ((pmd & MIPS_PTE_HUGE) || !mips_table_pa(st, pmd, &pte_pa))
			continue;
		mips_probe_table(st, pte_pa, rd, arg, p);
	}
	if (p->seen == before)
		mips_probe_mark_empty(p, pa);
}

/* arch_table_mode()'s test: the address of a table. */
static bool mips_is_table(const struct arch_state *st, uint64_t e)
{
	uint64_t pa;

	return mips_table_pa(st, e, &pa);
}

/* The shared empty tables (st->empty): the entry most of swapper_pg_dir's
 * share (its few vmalloc entries aside) is invalid_pmd_table, all of
 * whose entries are invalid_pte_table; with two levels (64 KiB pages) it
 * is invalid_pte_table itself.  pgd_init() and pmd_init() fill every new
 * table with them, a process's as the kernel's. */
static void mips_learn_empty(struct arch_state *st, arch_read_pte_fn rd, void *arg)
{
	unsigned n = 1u << mips_level_bits(st, st->levels - 1), count;
	uint64_t mode, pa, pte_mode;
	bool all;

	if (!arch_table_mode(st, rd, arg, st->pgd_paddr, n, mips_is_table, &mode, &count, &all) ||
	    !all || count <= n / 2 || !mips_table_pa(st, mode, &pa))
		return;
	if (st->levels == 2) {
		st->empty.pte_pa = pa;
		st->empty.have = true;
		return;
	}
	n = 1u << mips_level_bits(st, 1);
	if (!arch_table_mode(st, rd, arg, pa, n, mips_is_table, &pte_mode, &count, &all) ||
	    count != n || !mips_table_pa(st, pte_mode, &st->empty.pte_pa))
		return;
	st->empty.pmd_pa = pa;
	st->empty.have = true;
}

/* Prove CAC_BASE (a PGD entry that points at an XKPHYS table) and the
 * pte layout (the vmalloc ptes) from the kernel's own tables; what cannot
 * be read leaves init's Debian defaults.  Then the empty tables. */
static enum mdf_status mips64_init_mem(struct arch_state *st, arch_read_pte_fn rd, void *arg,
				       struct mdf_err *err)
{
	struct mips_probe p;
	bool have_cac = false;

	(void)err;
	if (!st->have_pgd)
		return MDF_OK;
	memset(&p, 0, sizeof(p));
	/* vmalloc (XKSEG from MAP_BASE) starts at index 0 of each level:
	 * its first PGD entries hold the boot's vmalloc'ed pages */
	for (uint64_t i = 0; i < MIPS_PROBE_PGDS && p.seen < MIPS_PROBE_PTES; i++) {
		struct mdf_err e;
		uint64_t pgd, next;

		mdf_err_clear(&e);
		if (rd(arg, st->pgd_paddr + 8 * i, 8, &pgd, &e) != MDF_OK)
			break;
		if (!mips_table_pa(st, pgd, &next))
			continue;
		/* an allocated table is in the direct map: CAC_BASE */
		if (!have_cac && pgd >> 62 == 2) {
			st->page_offset = pgd & ~MIPS_XKPHYS_PA_MASK;
			st->page_offset_exact = true;
			st->direct.vaddr = st->page_offset;
			have_cac = true;
		}
		if (st->levels == 2)
			mips_probe_table(st, next, rd, arg, &p);
		else
			mips_probe_pmd(st, next, rd, arg, &p);
	}
	if (p.seen) {
		unsigned best = 0;

		for (unsigned c = 0; c < ARRAY_SIZE(p.votes); c++)
			if (p.votes[c] > p.votes[best])
				best = c;
		/* a layout most of the ptes agree on */
		if (2 * p.votes[best] > p.seen) {
			st->mips64.pfn_shift = mips_pfn_shift_of(st->page_shift, best);
			st->mips64.pfn_shift_proven = true;
		}
	}
	mips_learn_empty(st, rd, arg);
	return MDF_OK;
}

static void mips64_debuginfo_defaults(struct kinfo *ki, uint64_t text,
				      const struct arch_seg_hint *segs, size_t nsegs)
{
	(void)text;
	(void)segs;
	(void)nsegs;
	if (!ki->num.SECTION_SIZE_BITS.set) {
		ki->num.SECTION_SIZE_BITS.v = ki->page_size.set && ki->page_size.v == 65536 ?
						      MIPS_SECTION_SIZE_BITS_64K :
						      MIPS_SECTION_SIZE_BITS;
		ki->num.SECTION_SIZE_BITS.set = true;
	}
	if (!ki->num.MAX_PHYSMEM_BITS.set) {
		ki->num.MAX_PHYSMEM_BITS.v = MIPS_PHYSMEM_BITS;
		ki->num.MAX_PHYSMEM_BITS.set = true;
	}
}

/* --keep-task: a user address space is the whole reach of its tables
 * (TASK_SIZE64 is no less), rooted at mm->pgd (an XKPHYS address the
 * caller translates); entries as in the kernel's tables.  An empty entry
 * points at a shared empty table, which is not walked: without knowing
 * it (init_mem) the walk would read it once per empty entry. */
static void mips64_user_layout(const struct arch_state *st, struct arch_user_layout *ul)
{
	ul->levels = st->levels;
	ul->page_shift = st->page_shift;
	ul->level_bits = st->page_shift - 3;
	ul->top_bits = mips_level_bits(st, st->levels - 1);
	ul->end = 1ULL << st->va_bits;
	ul->root_mask = ~(st->page_size - 1);
	if (!st->empty.have)
		ul->why_not = "the empty tables (invalid_pmd_table, invalid_pte_table) were not "
			      "found in swapper_pg_dir";
}

static enum arch_entry mips64_user_entry(const struct arch_state *st, unsigned l, uint64_t e,
					 uint64_t va, uint64_t *pa)
{
	(void)va;
	if (l == 0 || (l == 1 && (e & MIPS_PTE_HUGE))) {
		/* PROT_NONE keeps _PAGE_PRESENT (PAGE_NONE) */
		if (!(e & MIPS_PTE_PRESENT))
			return ARCH_ENTRY_NONE;
		*pa = (e >> st->mips64.pfn_shift) << st->page_shift;
		return ARCH_ENTRY_LEAF;
	}
	if (!mips_table_pa(st, e, pa) || arch_is_empty_table(st, l, *pa))
		return ARCH_ENTRY_NONE;
	return ARCH_ENTRY_TABLE;
}

const struct arch_ops arch_mips64_ops = {
	.name = "mips64",
	/* uname -m of a 64-bit MIPS kernel, either byte order */
	.uts_machine = "mips64",
	.e_machine = EM_MIPS,
	.init = mips64_init,
	.walk = mips64_walk,
	.init_mem = mips64_init_mem,
	.debuginfo_defaults = mips64_debuginfo_defaults,
	.user_layout = mips64_user_layout,
	.user_entry = mips64_user_entry,
};
