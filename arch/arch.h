/*
 * arch/arch.h - the architecture layer: virtual to physical address
 * translation for the crashed kernel.
 *
 * One ops table per architecture, chosen at run time from the vmcore's ELF
 * machine (e_machine); every architecture is compiled in, whatever the host.
 * arch_init() turns the kernel facts (struct kinfo, from VMCOREINFO) and the
 * vmcore's PT_LOAD ranges into a read-only struct arch_state; after that,
 * arch_vtop() translates addresses.
 *
 * Translation never does I/O of its own: a page-table walk reads each
 * entry through a caller-supplied arch_read_pte_fn, so readmem can serve it
 * from the dump and unit tests can serve it from hand-built tables.
 *
 * Two kinds of kernel address are translated without any walk (the "fast
 * path"), through two linear windows that init fills when it can prove them:
 *
 *   text window    kernel image map: pa = va - text.vaddr + text.paddr
 *                  (x86_64: __START_KERNEL_map and phys_base)
 *   direct window  linear map of RAM: pa = va - direct.vaddr + direct.paddr
 *                  (x86_64: page_offset_base, physical 0)
 *
 * Everything else (vmalloc, modules, vmemmap, and any address of a window
 * that init could not prove) goes through the page-table walk, which is
 * always right but costs one read per level.
 */
#ifndef MDF_ARCH_H
#define MDF_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kinfo.h"

/**
 * Read one page-table entry: @size bytes (8, or 4 for the 32-bit tables of
 * non-PAE i386) in the dump's byte order, at physical address @paddr of the
 * crashed machine, into *@pte_ret as a number, zero-extended (the reader
 * converts: the ops never see byte order).  Returns MDF_OK, or fills @err
 * (e.g. MDF_ERR_NODATA when @paddr is not in the dump; MDF_ERR_INTERNAL for
 * a size other than 4 or 8).  @arg is the caller's context, passed through
 * unchanged.
 */
typedef enum mdf_status (*arch_read_pte_fn)(void *arg, uint64_t paddr, unsigned size,
					    uint64_t *pte_ret,
					    struct mdf_err *err);

/** One PT_LOAD of the vmcore, as a hint for init (KASLR offsets). */
struct arch_seg_hint {
	uint64_t vaddr;
	uint64_t paddr;
	uint64_t size;
};

/**
 * A linear range of virtual addresses: when valid, every va with
 * va - vaddr < size translates to va - vaddr + paddr (uint64 arithmetic,
 * so a "negative" paddr such as x86_64's phys_base wraps as it should).
 */
struct arch_window {
	bool valid;
	uint64_t vaddr;
	uint64_t size;
	uint64_t paddr;
};

/** Deepest page-table walk of any supported architecture. */
#define ARCH_WALK_MAX_STEPS 6

/** One level of a page-table walk, for --vtop style tracing and tests. */
struct arch_walk_step {
	const char *level;      /* "PGD", "P4D", "PUD", "PMD", "PTE" */
	uint64_t entry_paddr;   /* where the entry was read */
	uint64_t entry;         /* its raw value, as read (before masking) */
};

/** Result of a page-table walk. */
struct arch_walk {
	unsigned nsteps;        /* entries read, including a not-present one */
	struct arch_walk_step step[ARCH_WALK_MAX_STEPS];
	uint64_t paddr;         /* translation (valid when the walk succeeded) */
	uint64_t map_size;      /* size of the mapping that holds it: 4 KiB,
				 * 2 MiB or 1 GiB on x86_64; a caller may reuse
				 * the translation for the whole aligned block */
};

struct arch_ops;

/**
 * -e: one run of the vmemmap that physically contiguous huge pages map.
 * Its struct pages start at pfn @vmap_pfn_start; @vmap_pfn_end is the
 * first pfn of its last huge page.  They describe the pfns from
 * @rep_start; @rep_end is where the run's struct pages end (the first pfn
 * past them, which upstream's find_vmemmap_pages() takes as the last one
 * inside: kept so, for the same pages as upstream's -e).
 */
struct arch_vmemmap_group {
	uint64_t vmap_pfn_start, vmap_pfn_end;
	uint64_t rep_start, rep_end;
};

/** One block of a ppc64 vmemmap_list: [virt, virt + block) at phys. */
struct arch_vmemmap_block {
	uint64_t virt, phys;
};

/**
 * Everything translation needs, filled by arch_init() (and once by
 * arch_init_mem()) and read-only afterwards.  Copy it, share it between
 * threads: a copy shares the one table init_mem may allocate (ppc64's
 * vmemmap blocks), which only the original releases (arch_release()).  A field
 * with an "_exact"/"have_"/"valid" flag beside it is a guess (or unknown)
 * when the flag is false; callers that need certainty check the flag.
 */
struct arch_state {
	const struct arch_ops *ops;
	uint16_t e_machine;
	unsigned word_size;           /* the ops' word_size: 4 or 8 */

	uint64_t page_size;           /* base page size, from PAGESIZE= */
	bool big_endian;              /* the dump's (kinfo.big_endian): where
				       * an op takes a narrower value out of an
				       * 8-byte read */
	unsigned page_shift;
	unsigned levels;              /* page-table levels: x86_64 4 or 5,
				       * arm64 2 to 4 */
	unsigned va_bits;             /* x86_64: 48 or 57; arm64: what the
				       * walk resolves (64 - TCR_EL1.T1SZ) */
	unsigned pgd_va_bits;         /* arm64: NUMBER(VA_BITS), what the top
				       * table is laid out for (52 with 48 in
				       * use); 0 on x86_64 */
	unsigned max_physmem_bits;    /* NUMBER(MAX_PHYSMEM_BITS) or default */

	/* x86_64: NUMBER(phys_base) as two's complement (equals text.paddr);
	 * arm64: NUMBER(PHYS_OFFSET).  The kdump header's phys_base. */
	uint64_t phys_base;
	bool have_phys_base;

	/* FLATMEM: the pfn of mem_map's first struct page, ARCH_PFN_OFFSET
	 * (arm: PHYS_OFFSET >> PAGE_SHIFT; 0 elsewhere). */
	uint64_t flat_pfn_offset;

	/* Physical address of the kernel's top-level page table
	 * (x86_64 init_top_pgt, arm64 swapper_pg_dir). */
	uint64_t pgd_paddr;
	bool have_pgd;

	/* Direct-map base (x86_64 page_offset_base): derived from the PT_LOAD
	 * hints, else the default of the paging mode.  page_offset_exact says
	 * whether it is proven (hints, or KASLR off). */
	uint64_t page_offset;
	bool page_offset_exact;

	/* Virtual address of struct page for pfn 0 (SPARSEMEM_VMEMMAP):
	 * SYMBOL(vmemmap) when given, else the paging mode's default; exact
	 * when given or when KASLR is off.  Needs a page walk to read. */
	uint64_t vmemmap_base;
	bool vmemmap_exact;

	/* arm64: descriptors in the FEAT_LPA2 format (52-bit VAs with 4 or
	 * 16 KiB pages). */
	bool arm64_lpa2;
	/* arm64: the bits that make an invalid user entry present (a
	 * PROT_NONE or NUMA-hinting page, an invalidated THP pmd): a page
	 * entry's, and a block entry's (arch/arm64.c). */
	uint64_t arm64_present_invalid, arm64_block_present_invalid;

	/* ppc64 (Book3S-64): which MMU, when VMCOREINFO says (since 6.7), and
	 * the bits each level indexes under each ([0] hash, [1] radix), leaf
	 * level first (PTE, PMD, PUD, PGD). */
	enum { PPC64_MMU_UNKNOWN, PPC64_MMU_HASH, PPC64_MMU_RADIX } ppc64_mmu;
	unsigned ppc64_index_bits[2][4];
	/* ppc64: the vmemmap through vmemmap_list (physical addresses of the
	 * variables; offsets in struct vmemmap_backing), where the hash MMU
	 * maps it outside the kernel's page tables. */
	struct {
		bool valid;
		uint64_t head_pa;       /* &vmemmap_list */
		uint64_t psize_pa;      /* &mmu_vmemmap_psize (an int) */
		uint64_t psize_defs_pa; /* mmu_psize_defs[] */
		uint64_t size_psize_def, off_shift;
		uint64_t off_list, off_phys, off_virt;
		/* Read once by init_mem: the blocks, sorted by virt, each
		 * 1 << block_shift bytes (owned: arch_release()). */
		bool have_blocks;
		char why[128];          /* why not, when valid */
		unsigned block_shift;
		size_t nblocks;
		struct arch_vmemmap_block *blocks;
	} ppc64_vmemmap;

	/* s390x: a 6.10-on kernel whose image has no PT_LOAD and no
	 * KERNELOFFPHYS=: init cannot place swapper_pg_dir, and init_mem takes
	 * the image's physical offset from the old kernel's os_info
	 * (arch/s390x.c). */
	struct {
		bool root_via_os_info;
		char why[128];          /* init_mem could not: why */
		uint64_t swapper_va;    /* SYMBOL(swapper_pg_dir) */
		uint64_t kernel_offset; /* KERNELOFFSET: the image's virtual base */
	} s390x;

	/* x86 (32-bit): where swapper_pg_dir is, to prove PAGE_OFFSET by
	 * (arch/x86.c's init_mem). */
	struct {
		bool have_swapper;
		uint64_t swapper_va;
	} x86;

	/* arm (32-bit): where swapper_pg_dir is and the lowest RAM, to prove
	 * PAGE_OFFSET and PHYS_OFFSET by (arch/arm.c's init_mem). */
	struct {
		bool have_swapper;
		uint64_t swapper_va;
		uint64_t ram_start;
	} arm;

	/* loongarch64 and mips64: the physical addresses of the shared empty
	 * tables (invalid_pmd_table, invalid_pte_table) that empty directory
	 * entries point at, learned by init_mem (arch_table_mode()); with
	 * two levels (mips64's 64 KiB pages) pmd_pa is unused. */
	struct {
		bool have;
		uint64_t pmd_pa, pte_pa;
	} empty;
	/* mips64: where a pte's pfn starts (_PFN_SHIFT), and whether
	 * init_mem read it from the kernel's own ptes (arch/mips64.c). */
	struct {
		unsigned pfn_shift;
		bool pfn_shift_proven;
	} mips64;

	/* Bits cleared from every page-table entry before use
	 * (x86_64 NUMBER(sme_mask), the AMD SME encryption bit). */
	uint64_t pte_strip_mask;

	struct arch_window text;      /* fast path: kernel image */
	struct arch_window direct;    /* fast path: direct map of RAM */
};

/* A leaf of a walk over a range of an address space (arch_leaves()): the
 * mapping of [@vaddr, @vaddr + @size) at @paddr; or, with @size 0, the
 * page-table page at @paddr.  Non-zero stops the walk. */
typedef int (*arch_leaf_fn)(void *arg, uint64_t vaddr, uint64_t paddr, uint64_t size);

/* At most this many page-table pages in one arch_leaves() walk: a
 * process's tables of a few GiB are a few thousand; a damaged tree that
 * points back into itself fans out without end. */
#define ARCH_LEAVES_MAX_TABLES (1u << 20)

/* A user address space's page tables, as arch_user_leaves() walks them
 * (the ops' user_layout). */
struct arch_user_layout {
	unsigned levels;
	unsigned page_shift;  /* an entry of level l maps 1 << (page_shift + l * level_bits) bytes */
	unsigned level_bits;  /* a table holds 1 << level_bits entries (the top one: up to end) */
	unsigned top_bits;    /* ... but the top one 1 << top_bits (0: level_bits) */
	uint64_t end;         /* user space is [0, end) */
	uint64_t root_mask;   /* the root's address is root & root_mask */
	unsigned entry_size;  /* bytes of an entry: 4 or 8 (0: 8) */
	const char *why_not;  /* non-NULL: this dump's tables cannot be walked, and why */
};

/* What a page-table entry is (the ops' user_entry). */
enum arch_entry { ARCH_ENTRY_NONE, ARCH_ENTRY_TABLE, ARCH_ENTRY_LEAF };

/* The address bits (@mask) of x86's PROT_NONE entry @e (present clear):
 * inverted since the L1TF mitigation (kernel "x86/speculation/l1tf:
 * Protect PROT_NONE PTEs against speculation", CVE-2018-3620: 4.19 and
 * the stable kernels it went to; not on 2-level tables), which the
 * address shows: bits at or above @physmem_bits, which no pfn has.
 * x86_64's and i386's user walks. */
static inline uint64_t arch_x86_protnone_addr(uint64_t e, uint64_t mask, unsigned physmem_bits)
{
	uint64_t a = e & mask;

	return physmem_bits < 64 && a >> physmem_bits ? ~e & mask : a;
}

/**
 * Per-architecture operations.  Callers never call these directly: they
 * use arch_init(), arch_walk() and arch_vtop(), which supply the default
 * for an op an architecture leaves NULL.
 */
struct arch_ops {
	const char *name;             /* "x86_64" */
	uint16_t e_machine;           /* EM_X86_64 */
	const char *uts_machine;      /* what uname -m says there, as the
				       * kdump header's utsname.machine */
	const char *uts_machine_be;   /* ... on a big-endian kernel, when
				       * that differs (ppc64 for ppc64le) */
	unsigned word_size;           /* bytes of the kernel's unsigned long
				       * and pointers: 4 on i386; 0 means 8 */

	/**
	 * Fill @st (already zeroed, ops and e_machine set) from @ki and the
	 * vmcore's PT_LOADs (@segs may be NULL when @nsegs is 0, e.g. for a
	 * kdump-compressed input).  Facts that are missing leave the matching
	 * flag false; only contradictory facts are errors.
	 * Default when NULL: page size from @ki, nothing else known.
	 */
	enum mdf_status (*init)(struct arch_state *st, const struct kinfo *ki,
				const struct arch_seg_hint *segs, size_t nsegs,
				struct mdf_err *err);

	/**
	 * Page-table walk of @vaddr from st->pgd_paddr, reading entries only
	 * through @rd.  Fills @walk (steps, paddr, map_size).  An entry that
	 * is not present gives MDF_ERR_NODATA naming the level.
	 * Default when NULL: MDF_ERR_NOTSUPP.
	 */
	enum mdf_status (*walk)(const struct arch_state *st, uint64_t vaddr,
				arch_read_pte_fn rd, void *arg,
				struct arch_walk *walk, struct mdf_err *err);

	/**
	 * Once after init, when the dump can be read: the facts that are in
	 * the crashed kernel's memory, not its headers (ppc64: which MMU a
	 * kernel before 6.7 ran, the vmemmap_list blocks; s390x: the root
	 * from os_info), so that no walk has to read them again.  Reads
	 * only through @rd.  May allocate (arch_release() frees).  A fact
	 * that cannot be read is left unknown, and the walks that need it
	 * say so; only a contradiction is an error.
	 * Default when NULL: nothing.
	 */
	enum mdf_status (*init_mem)(struct arch_state *st, arch_read_pte_fn rd,
				    void *arg, struct mdf_err *err);

	/**
	 * For -x without a note, and for a note that lacks them: fill what
	 * VMCOREINFO would say and DWARF cannot (macros such as
	 * SECTION_SIZE_BITS; with -x, KERNELOFFSET from the kernel-image
	 * PT_LOAD among @segs, given @text, the link-time address of _text).
	 * Sets only fields not set.  Default when NULL: nothing.
	 */
	void (*debuginfo_defaults)(struct kinfo *ki, uint64_t text,
				   const struct arch_seg_hint *segs, size_t nsegs);

	/**
	 * -e: the runs of the vmemmap (struct page of pfn 0 at
	 * @vmemmap_start, @page_struct_size bytes each, pfns below @max_pfn)
	 * as the kernel's page tables map them, in *@ret (malloc'ed, *@nret
	 * entries).  Reads only through @rd.  Default when NULL:
	 * MDF_ERR_NOTSUPP.
	 */
	enum mdf_status (*vmemmap_groups)(const struct arch_state *st, uint64_t vmemmap_start,
					  uint64_t max_pfn, uint64_t page_struct_size,
					  arch_read_pte_fn rd, void *arg,
					  struct arch_vmemmap_group **ret, size_t *nret,
					  struct mdf_err *err);

	/**
	 * --keep-task: how a user address space's page tables read, for
	 * arch_user_leaves(): their shape (user_layout: levels, the page
	 * shift and the bits of a level, where user space ends, the bits of
	 * the root's address), and what entry
	 * @e of level @l, which maps @va, is (user_entry: nothing, the next
	 * table at *@pa, or a leaf mapping from *@pa).  Both or neither;
	 * neither: MDF_ERR_NOTSUPP.
	 */
	void (*user_layout)(const struct arch_state *st, struct arch_user_layout *ul);
	enum arch_entry (*user_entry)(const struct arch_state *st, unsigned l, uint64_t e,
				      uint64_t va, uint64_t *pa);
};

/** arch_ops_find(@e_machine)'s debuginfo_defaults, if any. */
void arch_debuginfo_defaults(uint16_t e_machine, struct kinfo *ki, uint64_t text,
			     const struct arch_seg_hint *segs, size_t nsegs);

/** The x86_64 ops (arch/x86_64.c). */
extern const struct arch_ops arch_x86_64_ops;
/** The arm64 ops (arch/arm64.c). */
extern const struct arch_ops arch_arm64_ops;
/** The riscv64 ops (arch/riscv64.c). */
extern const struct arch_ops arch_riscv64_ops;
/** The ppc64 ops (arch/ppc64.c). */
extern const struct arch_ops arch_ppc64_ops;
/** The s390x ops (arch/s390x.c). */
extern const struct arch_ops arch_s390x_ops;
/** The 32-bit x86 (i386) ops, PAE or not (arch/x86.c). */
extern const struct arch_ops arch_x86_ops;

/** The 32-bit arm ops, short descriptors or LPAE (arch/arm.c). */
extern const struct arch_ops arch_arm_ops;

/** The 64-bit LoongArch ops (arch/loongarch64.c). */
extern const struct arch_ops arch_loongarch64_ops;
/** The 64-bit MIPS ops, either byte order (arch/mips64.c). */
extern const struct arch_ops arch_mips64_ops;

/** Bytes of an unsigned long (and a pointer) of the kernel of machine
 *  @e_machine: 4 on i386 and arm, else 8 (an unknown machine too). */
unsigned arch_word_size(uint16_t e_machine);

/** The ELF machine whose ops have @uts_machine (uname -m), or 0. */
uint16_t arch_machine_from_uts(const char *uts_machine);

/**
 * For the ops' init of an architecture with one page size, 4 KiB: the
 * note's PAGESIZE (4096 when it has none) must be it; sets st->page_size
 * and st->page_shift.
 */
enum mdf_status arch_page_size_4k(struct arch_state *st, const struct kinfo *ki,
				  struct mdf_err *err) MDF_MUST_CHECK;

/**
 * For the ops' init: st->max_physmem_bits from NUMBER(MAX_PHYSMEM_BITS)
 * (in VMCOREINFO since Linux 5.9), else @dflt.  A value outside 32..52
 * (or 32..@dflt when that is more: riscv64's 56) is an error.
 */
enum mdf_status arch_physmem_bits(struct arch_state *st, const struct kinfo *ki,
				  unsigned dflt, struct mdf_err *err) MDF_MUST_CHECK;

/**
 * For the ops' init: the PT_LOAD hints of the linear map, gathered one at
 * a time by arch_linear_hint(): the first one's va - pa, whether another
 * disagrees, and the physical extent of them all.
 */
struct arch_linear_hints {
	bool have, conflict;
	uint64_t delta, ram_start, ram_end;
};
#define ARCH_LINEAR_HINTS_INIT { .ram_start = UINT64_MAX }
void arch_linear_hint(struct arch_linear_hints *lh, const struct arch_seg_hint *h);

/** For the ops' init: the kernel image's window from hint @h, unless set. */
void arch_text_hint(struct arch_state *st, const struct arch_seg_hint *h);

/** For the ops' walk: the kernel's name of level @l (0 = the leaf level)
 * of a walk with @levels levels: "PTE", "PMD", "PUD", "P4D", and "PGD"
 * for the top one. */
const char *arch_level_name(unsigned levels, unsigned l);

/**
 * For the ops' walk: read the 8-byte entry at @entry_paddr through @rd and
 * record it as the next step of @walk under the name @level.  A failed
 * read's error names @vaddr, the level and the address.
 */
enum mdf_status arch_walk_read(struct arch_walk *walk, const char *level,
			       uint64_t entry_paddr, uint64_t vaddr,
			       arch_read_pte_fn rd, void *arg, uint64_t *entry_ret,
			       struct mdf_err *err) MDF_MUST_CHECK;

/** arch_walk_read() of an entry of @size bytes (4 or 8). */
enum mdf_status arch_walk_read_n(struct arch_walk *walk, const char *level,
				 uint64_t entry_paddr, unsigned size, uint64_t vaddr,
				 arch_read_pte_fn rd, void *arg, uint64_t *entry_ret,
				 struct mdf_err *err) MDF_MUST_CHECK;

/** Ops for an ELF machine number, or NULL if it is not supported. */
const struct arch_ops *arch_ops_find(uint16_t e_machine);

/**
 * Zero @st, pick the ops for @e_machine and run their init.
 * MDF_ERR_NOTSUPP "architecture EM_ARM (40) is not supported" for an
 * unknown machine; errors from init carry the architecture name in front.
 * @ki must not be NULL (an all-zero kinfo means "nothing known").
 */
enum mdf_status arch_init(struct arch_state *st, uint16_t e_machine,
			  const struct kinfo *ki,
			  const struct arch_seg_hint *segs, size_t nsegs,
			  struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The ops' init_mem, once, right after arch_init() (errors carry the
 * architecture's name in front).
 */
enum mdf_status arch_init_mem(struct arch_state *st, arch_read_pte_fn rd,
			      void *arg, struct mdf_err *err) MDF_MUST_CHECK;

/** The ops' vmemmap_groups (-e), or MDF_ERR_NOTSUPP naming the
 * architecture. */
enum mdf_status arch_vmemmap_groups(const struct arch_state *st, uint64_t vmemmap_start,
				    uint64_t max_pfn, uint64_t page_struct_size,
				    arch_read_pte_fn rd, void *arg,
				    struct arch_vmemmap_group **ret, size_t *nret,
				    struct mdf_err *err) MDF_MUST_CHECK;

/** The most frequent of the @n 8-byte entries of the table at @pa, and
 *  how often it occurs; *@all_tables: @is_table accepts every entry.
 *  False when a read fails.  On loongarch64 and mips64 most entries of
 *  a kernel PGD point at the shared empty table (invalid_pmd_table), all
 *  of whose entries point at the next one (invalid_pte_table). */
bool arch_table_mode(const struct arch_state *st, arch_read_pte_fn rd, void *arg, uint64_t pa,
		     unsigned n, bool (*is_table)(const struct arch_state *st, uint64_t e),
		     uint64_t *mode, unsigned *count, bool *all_tables);

/** Is @pa the shared empty table an entry of level @l (1: a PMD, above:
 *  a PGD) points at, as init_mem learned (st->empty)? */
static inline bool arch_is_empty_table(const struct arch_state *st, unsigned l, uint64_t pa)
{
	return st->empty.have && pa == (l == 1 ? st->empty.pte_pa : st->empty.pmd_pa);
}

/** Every present leaf of the user address space whose page-table root is
 *  at @root (physical) to @cb, and each table page on the way (with size
 *  0), reading entries only through @rd, by the ops' user_layout and
 *  user_entry; MDF_ERR_NOTSUPP naming the architecture without them.  A
 *  table the dump lacks is skipped; a walk of more than
 *  ARCH_LEAVES_MAX_TABLES tables is an error. */
enum mdf_status arch_user_leaves(const struct arch_state *st, uint64_t root,
				 arch_read_pte_fn rd, void *arg, arch_leaf_fn cb, void *cbarg,
				 struct mdf_err *err) MDF_MUST_CHECK;

/** Free what init_mem allocated; @st stays usable as init left it. */
void arch_release(struct arch_state *st);

/**
 * Translate @vaddr through a proven fast-path window (kernel text, direct
 * map) without reading anything.  Returns false when a walk is needed.
 */
bool arch_kvtop_fast(const struct arch_state *st, uint64_t vaddr,
		     uint64_t *paddr_ret);

/**
 * For the ops' init_mem, which proves a window: does the walk of @st's
 * tables translate @vaddr to @want?  A failed walk is a no.
 */
bool arch_walk_maps_to(const struct arch_state *st, uint64_t vaddr, uint64_t want,
		       arch_read_pte_fn rd, void *arg);

/**
 * Always walk the page tables (no fast path), recording every entry read in
 * @walk.  For --vtop and for callers that want map_size.
 */
enum mdf_status arch_walk(const struct arch_state *st, uint64_t vaddr,
			  arch_read_pte_fn rd, void *arg,
			  struct arch_walk *walk,
			  struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Translate @vaddr: the fast path when it applies, else a page walk through
 * @rd.  MDF_ERR_NODATA when the address is not mapped.
 */
enum mdf_status arch_vtop(const struct arch_state *st, uint64_t vaddr,
			  arch_read_pte_fn rd, void *arg, uint64_t *paddr_ret,
			  struct mdf_err *err) MDF_MUST_CHECK;

#endif
