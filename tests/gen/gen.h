/*
 * tests/gen/gen.h - the synthetic vmcore generator (mkvmcore): shared types
 * and the functions of each of its files.
 *
 *   gen_spec.c    text spec -> struct gen_spec
 *   gen_preset.c  kernel presets: VMCOREINFO templates, page flag numbers
 *   gen_kernel.c  the fake kernel: pfn kinds, physical allocator, struct
 *                 page array, mem_section, page tables (x86_64 4-level,
 *                 arm64 with a 4 KiB granule and 48-bit VAs, riscv64
 *                 Sv39/Sv48/Sv57, ppc64 radix and hash with 64 KiB pages,
 *                 s390x DAT with 3 to 5 levels, i386 2-level and PAE,
 *                 ARMv7 short-descriptor and LPAE),
 *                 the printk ring
 *   gen_elf.c     ELF64 (i386, arm: ELF32) core layout, sparse output, page
 *                 contents, breakage
 *   gen_sadump.c  the same machine as a Fujitsu sadump file (single
 *                 partition, diskset, media backup)
 *   gen_ref.c     reference bitmaps (an oracle computed from declared kinds)
 *   mkvmcore.c    main()
 *
 * Test code: it may print (only mkvmcore.c does) and exit from main().
 * The format of the spec is documented in tests/gen/README.md.
 */
#ifndef MDF_TESTS_GEN_H
#define MDF_TESTS_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "util.h"

/* The page of x86_64, arm64 and riscv64, and the unit of the file layout
 * (PT_NOTE at one page, the data from the next); ppc64's kernel page is
 * 64 KiB (spec->page_shift). */
#define GEN_PAGE_SHIFT 12
#define GEN_PAGE_SIZE (UINT64_C(1) << GEN_PAGE_SHIFT)
#define GEN_PPC64_PAGE_SHIFT 16
#define GEN_PAGE_MAX (UINT64_C(1) << GEN_PPC64_PAGE_SHIFT)   /* the largest page */
#define GEN_STRUCT_PAGE 64                 /* SIZE(page) on every arch here */
#define GEN_SECTION_SHIFT 27               /* NUMBER(SECTION_SIZE_BITS) */
#define GEN_SECTION_SHIFT_PPC64 24
#define GEN_SECTION_SHIFT_S390X 28
#define GEN_SECTION_ROOTS 4096             /* LENGTH(mem_section), x86_64 (46 bits) */
#define GEN_SECTION_ROOTS_ARM64 16384      /* arm64: MAX_PHYSMEM_BITS 48 */
#define GEN_SECTION_ROOTS_RISCV64 4194304  /* riscv64: MAX_PHYSMEM_BITS 56 */
#define GEN_SECTION_ROOTS_PPC64 65536      /* ppc64: 2^(51 - 24) / 2048 per root */
#define GEN_SECTION_ROOTS_S390X 2048       /* s390x: 2^(46 - 28) / 128 per root */
#define GEN_MAX_BUDDY_ORDER 10             /* LENGTH(zone.free_area) - 1 */
#define GEN_MAX_BUDDY_ORDER_PPC64 8        /* 64 KiB pages: LENGTH 9 */
#define GEN_START_KERNEL_MAP UINT64_C(0xffffffff80000000)
#define GEN_ARM64_KIMAGE_VADDR UINT64_C(0xffff800008000000)
#define GEN_RISCV64_KERNEL_LINK_ADDR UINT64_C(0xffffffff80000000)
#define GEN_PPC64_PAGE_OFFSET UINT64_C(0xc000000000000000)
#define GEN_PPC64_VMALLOC_PAGES 4          /* ppc64: pages mapped at vmalloc_start */
#define GEN_S390X_IMAGE UINT64_C(0x100000)   /* s390x: the image's link address (va = pa) */
#define GEN_MAX_PT_LEVELS 5                /* riscv64 Sv57 */
/* i386 (Debian bookworm 6.1.0-57-686 and -686-pae, see gen_preset.c): the
 * direct map at PAGE_OFFSET (VMSPLIT_3G), the image at
 * CONFIG_PHYSICAL_START, struct page of 40 bytes in a FLATMEM mem_map,
 * lowmem up to MAXMEM (arch/x86/include/asm/pgtable_32_areas.h, computed
 * from the vmlinux's fixmap and cpu_entry_area sizes), and the split
 * kexec-tools makes at its own X86_MAXMEM (kexec/arch/i386/crashdump-x86.h):
 * PT_LOADs above it have p_vaddr -1. */
#define GEN_X86_PAGE_OFFSET UINT64_C(0xc0000000)
#define GEN_X86_PHYSICAL_START UINT64_C(0x1000000)
#define GEN_X86_PHYSICAL_ALIGN UINT64_C(0x1000000)
#define GEN_X86_STRUCT_PAGE 40
#define GEN_X86_MAXMEM UINT64_C(0x36bfe000)       /* 686: 4 MiB PMD_MASK */
#define GEN_X86_MAXMEM_PAE UINT64_C(0x36ffe000)   /* 686-pae: 2 MiB */
#define GEN_X86_KEXEC_LOWMEM UINT64_C(0x38000000) /* kexec-tools' X86_MAXMEM */
#define GEN_X86_TEXT_SIZE UINT64_C(0x1018000)     /* _end - _text, 686 */
#define GEN_X86_TEXT_SIZE_PAE UINT64_C(0x1143000) /* 686-pae */
/* arm (Debian bookworm 6.1.0-57-armmp and -armmp-lpae on qemu's virt
 * machine, RAM from 0x40000000; see gen_preset.c): VMSPLIT_3G, the image's
 * _text at PAGE_OFFSET + TEXT_OFFSET (0x208000: the multiplatform kernel's,
 * arch/arm/Makefile) in the direct map from PHYS_OFFSET (the RAM start
 * rounded down to 128 MiB: AUTO_ZRELADDR, arch/arm/boot/compressed/head.S),
 * swapper_pg_dir right below it (16 KiB; LPAE: a page of 4 entries and the
 * 4 PMD tables, 0x5000), lowmem up to vmalloc_min 0xf0000000 (arch/arm/mm/
 * mmu.c: VMALLOC_END 0xff800000 - 240 MiB - VMALLOC_OFFSET), struct page of
 * 36 bytes in a FLATMEM mem_map from ARCH_PFN_OFFSET, MAX_ORDER 12
 * (CONFIG_ARCH_FORCE_MAX_ORDER). */
#define GEN_ARM_PAGE_OFFSET UINT64_C(0xc0000000)
#define GEN_ARM_TEXT_OFFSET UINT64_C(0x208000)
#define GEN_ARM_PHYS_ALIGN (UINT64_C(128) << 20)
#define GEN_ARM_LOWMEM UINT64_C(0x30000000)       /* vmalloc_min - PAGE_OFFSET */
#define GEN_ARM_STRUCT_PAGE 36
#define GEN_ARM_TEXT_SIZE UINT64_C(0x1400000)      /* _end - _text, armmp */
#define GEN_ARM_TEXT_SIZE_LPAE UINT64_C(0x1606000) /* armmp-lpae */
#define GEN_ARM_PGD_SIZE UINT64_C(0x4000)          /* swapper_pg_dir below _text */
#define GEN_ARM_PGD_SIZE_LPAE UINT64_C(0x5000)
#define GEN_MAX_BUDDY_ORDER_ARM 11                 /* LENGTH(zone.free_area) 12 */
/* mips64 ("arch mips64"): Debian bookworm's 6.1.0-50-loongson-3 (see the
 * generator README's "mips64") */
#define GEN_MIPS64_PAGE_SHIFT 14
#define GEN_SECTION_SHIFT_MIPS64 28
#define GEN_SECTION_ROOTS_MIPS64 1024             /* 2^(48 - 28) / 1024 per root */
#define GEN_MEM_SECTION_SIZE_MIPS64 16            /* no PAGE_EXTENSION: map, usage */
#define GEN_MIPS64_CAC_BASE UINT64_C(0x9800000000000000)   /* the direct map */
#define GEN_MIPS64_KEXEC_BASE UINT64_C(0xa800000000000000) /* kexec-tools' p_vaddr */
#define GEN_MIPS64_CKSEG0 UINT64_C(0xffffffff80000000)
#define GEN_MIPS64_TEXT_PA UINT64_C(0x200000)     /* _text 0xffffffff80200000 */
#define GEN_MIPS64_TEXT_SIZE UINT64_C(0x131c000)  /* _end - _text, page aligned */
/* "arch mips64 4k": 6.1.0-50-5kc-malta, 4 KiB pages, FLATMEM */
#define GEN_MIPS64_TEXT_PA_4K UINT64_C(0x100000)  /* _text 0xffffffff80100000 */
#define GEN_MIPS64_TEXT_SIZE_4K UINT64_C(0x11d1000)
#define GEN_MAX_BUDDY_ORDER_MIPS64 11             /* LENGTH(zone.free_area) 12 */
#define GEN_MAX_LEVELS 32
/* loongarch64 (Debian's loong64 7.2.13+deb14-loong64; see gen_kernel.c):
 * 16 KiB pages, 512 MiB sections (SECTION_SIZE_BITS 29), the kernel in the
 * cached direct map window DMW1 from VMLINUX_LOAD_ADDRESS, struct page of
 * 80 bytes (WANT_PAGE_VIRTUAL's virtual, aligned to 16), 1024 mem_section
 * roots (MAX_PHYSMEM_BITS 48: 2^19 sections, 512 a root), MAX_PAGE_ORDER
 * 10 (ARCH_FORCE_MAX_ORDER 11: LENGTH(zone.free_area) 12, max order 11),
 * vm_map_base 0xffff000000000000 (cpu_vabits 48, as qemu's la464). */
#define GEN_LA_PAGE_SHIFT 14
#define GEN_LA_SECTION_SHIFT 29
#define GEN_LA_DMW1 UINT64_C(0x9000000000000000)
#define GEN_LA_TEXT_PA UINT64_C(0x200000)
#define GEN_LA_STRUCT_PAGE 80
#define GEN_SECTION_ROOTS_LA 1024
#define GEN_MAX_BUDDY_ORDER_LA 11
#define GEN_LA_VM_MAP_BASE UINT64_C(0xffff000000000000)

/* Page kinds a spec can declare for pfn ranges. */
#define GEN_KINDS(X)                       \
	X(UNSET, "unset")                  \
	X(KERNEL, "kernel")                \
	X(FREE, "free")                    \
	X(CACHE, "cache")                  \
	X(CACHE_PRIVATE, "cache_private")  \
	X(SWAPCACHE, "swapcache")          \
	X(ANON, "anon")                    \
	X(THP, "thp")                      \
	X(HUGETLB, "hugetlb")              \
	X(SLAB, "slab")                    \
	X(HWPOISON, "hwpoison")            \
	X(OFFLINE, "offline")

enum gen_kind {
#define GEN_KIND_ENUM(name, text) GEN_K_##name,
	GEN_KINDS(GEN_KIND_ENUM)
#undef GEN_KIND_ENUM
	GEN_K_COUNT
};

/* The crashed machine's architecture ("arch" directive). */
enum gen_arch {
	GEN_ARCH_X86_64,
	GEN_ARCH_ARM64,
	GEN_ARCH_RISCV64,
	GEN_ARCH_PPC64,
	GEN_ARCH_S390X,
	GEN_ARCH_X86,       /* i386: 2-level tables, or 3 with spec->x86_pae */
	GEN_ARCH_ARM,       /* ARMv7: short-descriptor tables, or LPAE with spec->arm_lpae */
	GEN_ARCH_LOONGARCH64, /* 16 KiB pages, 3 levels, the kernel in DMW1 */
	GEN_ARCH_MIPS64,    /* Debian's loongson-3: 16 KiB pages, XKPHYS, CKSEG0 */
};

/* The 32-bit kernels: FLATMEM, 32-bit words, lowmem and highmem. */
static inline bool gen_arch_32(enum gen_arch arch)
{
	return arch == GEN_ARCH_X86 || arch == GEN_ARCH_ARM;
}

/*
 * Multi-byte values of the target, in its byte order (@big: big-endian,
 * s390x and "arch ppc64be"): ELF headers and notes, struct pages,
 * mem_section, page tables, the printk ring, every kernel variable.  The
 * one place that knows how to store them.
 */
static inline void gen_store16(bool big, void *p, uint16_t v)
{
	uint8_t *b = p;

	b[big ? 0 : 1] = (uint8_t)(v >> 8);
	b[big ? 1 : 0] = (uint8_t)v;
}
static inline void gen_store32(bool big, void *p, uint32_t v)
{
	if (big)
		store_be32(p, v);
	else
		store_le32(p, v);
}
static inline void gen_store64(bool big, void *p, uint64_t v)
{
	if (big)
		store_be64(p, v);
	else
		store_le64(p, v);
}

/* The container the machine is written in ("format" directive). */
enum gen_format {
	GEN_FMT_ELF,
	GEN_FMT_SADUMP_SINGLE,    /* one partition */
	GEN_FMT_SADUMP_DISKSET,   /* spec->disks disks, OUT and OUT.2 .. OUT.N */
	GEN_FMT_SADUMP_MEDIA,     /* a media backup file of one partition */
};
#define GEN_SADUMP_MAX_DISKS 16

/* Page content patterns. */
enum gen_fill_type { GEN_FILL_ZERO, GEN_FILL_RANDOM, GEN_FILL_TEXT, GEN_FILL_BYTE };

/* One physical RAM range = one direct-map PT_LOAD, in spec order. */
struct gen_ram {
	uint64_t start;    /* paddr */
	uint64_t filesz;   /* bytes present in the file (any alignment) */
	uint64_t memsz;    /* >= filesz */
	uint64_t gap;      /* extra bytes before its data in the file */
	unsigned line;     /* spec line, for messages */
};

struct gen_fill {
	uint64_t first, last;   /* pfns, inclusive */
	enum gen_fill_type type;
	uint64_t seed;
	uint8_t byte;
};

struct gen_pages {
	uint64_t first, last;   /* pfns, inclusive */
	enum gen_kind kind;
	unsigned order;         /* block order: free, thp, hugetlb */
	bool order_implicit;    /* thp/hugetlb without order=: the arch's PMD size */
	unsigned line;
};

enum gen_vmi_op { GEN_VMI_SET, GEN_VMI_DEL };

/* Raw bytes written over the finished memory ("poke"), last of all. */
enum gen_poke_at { GEN_POKE_PHYS, GEN_POKE_PAGE, GEN_POKE_TABLE };
#define GEN_POKE_MAX 64

struct gen_poke {
	enum gen_poke_at at;
	uint64_t addr;          /* paddr, pfn, or the vaddr a table maps */
	uint64_t off;           /* PAGE: byte in the struct page; TABLE: level */
	uint8_t bytes[GEN_POKE_MAX];
	size_t len;
	unsigned line;
};

struct gen_vmi_edit {
	enum gen_vmi_op op;
	char *key;              /* "NUMBER(PG_lru)", "OSRELEASE", ... */
	char *value;            /* GEN_VMI_SET only */
};

struct gen_preset;

/* One record of the kernel log ("dmesg" directive). */
struct gen_log {
	char *text;
	unsigned line;
};

struct gen_spec {
	enum gen_arch arch;
	bool big_endian;         /* the target's byte order (s390x, ppc64be) */
	const struct gen_preset *preset;  /* NULL: "kernel none" */
	unsigned cpus;
	uint64_t seed;
	uint64_t page_offset;
	uint64_t vmemmap;
	uint64_t vmalloc_start;
	int64_t phys_base;
	/* riscv64 and arm (0 elsewhere, which keeps the x86_64/arm64
	 * formulas): the RAM start the linear map begins at (arm:
	 * PHYS_OFFSET); riscv64 only: NUMBER(VMEMMAP_START), the
	 * struct page of that start's pfn (vmemmap above stays the struct
	 * page of pfn 0, as everywhere); the paging mode's VA_BITS. */
	uint64_t phys_ram_base;
	uint64_t vmemmap_start;
	unsigned va_bits;
	unsigned va_bits_line;   /* line of "va_bits", 0 if none */
	/* s390x only: the levels of the kernel's DAT tables (3: a region-
	 * third table on top, 4: region-second, 5: region-first). */
	unsigned levels;
	unsigned levels_line;
	/* x86 (i386) only: PAE ("arch x86 pae"), and the ELF class of the
	 * core: kexec-tools writes ELF32 unless RAM ends above 4 GiB
	 * ("elfclass 32|64" forces one); its line, 0 if none. */
	bool x86_pae;
	bool elf32;
	unsigned elfclass_line;
	/* arm only: LPAE ("arch arm lpae"); the direct map's physical base
	 * PHYS_OFFSET is phys_ram_base above.  "supersections yes" (short
	 * descriptors only): lowmem in 16 MiB supersections where it can,
	 * which Linux does not do, for a reader's walk; its line. */
	bool arm_lpae;
	bool mips64_4k;          /* "arch mips64 4k": 5kc-malta, FLATMEM */
	bool arm_super;
	unsigned super_line;
	/* The kernel's page and memory section (12 and 27 but on ppc64: 16
	 * and 24), set by the arch. */
	unsigned page_shift;
	unsigned section_shift;
	/* ppc64 only: the hash MMU (else radix), and whether VMCOREINFO has
	 * NUMBER(RADIX_MMU) (Linux 6.7 on); their lines, 0 if none. */
	bool ppc64_hash;
	bool radix_number;
	unsigned mmu_line, radix_number_line;
	unsigned vmemmap_pte_line;
	uint64_t vmemmap_pte_size;  /* the page "vmemmap_pte" named: 4k or 64k */
	uint64_t kaslr;          /* KERNELOFFSET */
	uint64_t text_size;
	bool text_phdr;          /* emit the kernel-text PT_LOAD */
	uint64_t text_tail;      /* 0, or where in its last page that PT_LOAD
				    ends (kexec-tools' MIPS image segment
				    ends at _end): "text_tail BYTES" */
	bool pte4k;              /* map vmemmap with base pages (4 KiB, ppc64
				    64 KiB), not 2 MiB PMDs (ppc64 hash: 16 MiB) */
	bool default_free;       /* undeclared RAM is free (buddy) or kernel */
	bool no_struct_pages;    /* VMCOREINFO only, no fake kernel in memory */
	uint64_t crashtime;
	uint64_t crash_start, crash_size;  /* RAM not in the dump (crashkernel=) */
	bool kcore;              /* also /proc/kcore's PT_LOADs with p_paddr -1 */
	/* Set by their directives (else the arch's defaults apply). */
	bool page_offset_set, vmemmap_set, vmalloc_set;
	unsigned kernel_line;    /* line of the "kernel" directive, 0 if none */
	/* Lines of directives some arch has no use for (0 if none). */
	unsigned page_offset_line, kaslr_line, phys_base_line, kcore_line, text_line;

	struct gen_ram *ram;
	size_t nram;
	struct gen_fill *fills;
	size_t nfills;
	struct gen_pages *pages;
	size_t npages;
	struct gen_vmi_edit *edits;
	size_t nedits;
	struct gen_poke *pokes;
	size_t npokes;
	struct gen_log *logs;    /* the kernel log, oldest first */
	size_t nlogs;
	uint64_t log_clear;      /* clear_seq ("dmesg_clear") */
	unsigned log_clear_line;

	/* Breakage for error tests. */
	bool has_truncate;
	uint64_t truncate_at;
	bool phoff_past_eof;
	bool load_past_eof;
	bool note_overflow;
	bool no_vmcoreinfo;
	bool empty;

	uint32_t ref_levels;     /* bit L: write dL.bitmap2 */

	/* "format": the container; a sadump spec's kernel also holds what a
	 * reader without VMCOREINFO needs (gen_kernel.c, "sadump"). */
	enum gen_format format;
	unsigned disks;          /* diskset: 2..16 */
	unsigned format_line;
};

static inline bool gen_spec_sadump(const struct gen_spec *spec)
{
	return spec->format != GEN_FMT_ELF;
}

/* ---- gen_spec.c ---- */

/** Parse spec text (NUL-terminated) into @spec; "spec:LINE: why" on error. */
enum mdf_status gen_spec_parse(const char *text, struct gen_spec *spec,
			       struct mdf_err *err) MDF_MUST_CHECK;
/** Free everything gen_spec_parse() allocated. */
void gen_spec_free(struct gen_spec *spec);
/** Name of a kind ("anon"). */
const char *gen_spec_kind_name(enum gen_kind kind);

/* ---- gen_preset.c ---- */

/* A symbol of a 32-bit kernel at @off from its image start. */
struct gen_sym {
	const char *name;
	uint64_t off;
};

/* The structures of a 32-bit FLATMEM kernel (gdb of its vmlinux), which
 * its VMCOREINFO prints (SIZE, OFFSET, LENGTH) and the generator writes
 * contig_page_data and clear_seq by: sizes of struct page, pglist_data,
 * zone and free_area, offsets in pglist_data (node_present_pages and
 * node_spanned_pages follow node_start_pfn) and zone (vm_stat; free_area
 * at 128, zone_start_pfn 64, spanned 72, present 76 on all of them),
 * LENGTH(zone.free_area) and (free_area.free_list), struct latched_seq. */
struct gen_flat32 {
	unsigned page, pglist_data, zone, free_area;
	unsigned nr_zones, node_mem_map, node_start_pfn, node_id;
	unsigned vm_stat, free_orders, migrate_types;
	unsigned latched_seq, latched_seq_val;
};

/** Page-structure semantics of one kernel version on one architecture. */
struct gen_preset {
	const char *name;          /* "6.1" */
	enum gen_arch arch;
	bool big_endian;           /* ppc64: the ppc64 (BE) kernel, not ppc64el */
	const char *osrelease;
	const char *const *vmcoreinfo;   /* template lines, NULL-terminated */
	int pg_referenced, pg_uptodate, pg_lru, pg_private, pg_swapcache;
	int pg_swapbacked, pg_reserved, pg_hwpoison, pg_head;
	int pg_slab;               /* -1: slab is a page type */
	int32_t buddy_mapcount, offline_mapcount;
	int32_t slab_mapcount;     /* 0: slab is PG_slab */
	int32_t hugetlb_mapcount;  /* 0: hugetlb is the page[1] dtor */
	int hugetlb_dtor;          /* -1: none */
	bool order_in_flags1;      /* order = low byte of page[1].flags (6.9+) */
	bool slab_odd_mapping;     /* offset 24 of a slab has bit 0 set */
	bool no_huge;              /* no TRANSPARENT_HUGEPAGE nor HUGETLB_PAGE
				      (arm without LPAE): no thp, hugetlb */
	/* The 32-bit kernels (NULL elsewhere): their BUILD-ID, symbols
	 * (NULL-terminated) and structures. */
	const char *build_id;
	const struct gen_sym *syms;
	const struct gen_flat32 *flat32;
};

/** The preset called @name ("5.10", "6.1", "6.12", "7.1") for @arch in
 *  byte order @big, or NULL.  pg_hwpoison is -1 when the kernel has no
 *  PG_hwpoison (riscv64 6.12, s390x 6.1).  ppc64 (64 KiB pages) and s390x
 *  have 6.1 only. */
const struct gen_preset *gen_preset_find(const char *name, enum gen_arch arch, bool big);
/** Names of the presets of @arch, space separated (for messages). */
const char *gen_preset_names(enum gen_arch arch);
/** The preset @name of a 32-bit @arch: x86's -686 or (@wide: PAE)
 *  -686-pae, arm's -armmp or (@wide: LPAE) -armmp-lpae; NULL but for
 *  6.1. */
const struct gen_preset *gen_preset_find_32(const char *name, enum gen_arch arch, bool wide);
/* mips64's 6.1 kernels: loongson-3 (16 KiB), or 5kc-malta with @k4. */
const struct gen_preset *gen_preset_find_mips64(const char *name, bool k4);

/* ---- gen_kernel.c ---- */

/* Per-pfn state: kind, and for blocks the head flag and order. */
#define GEN_INFO_HEAD 0x80u
#define GEN_INFO_ORDER 0x3fu

struct gen_table;

/* ppc64: one block of the vmemmap (a vmemmap_list entry). */
struct gen_vmemmap_block {
	uint64_t va, pa;
};

struct gen_kernel {
	enum gen_arch arch;       /* page-table format, layout */
	bool big_endian;          /* the kernel's data (spec->big_endian) */
	bool pt_big_endian;       /* page-table entries: ppc64's always BE */
	unsigned levels;          /* page-table levels: 4, riscv64 and s390x 3 to 5,
				     x86 2 (PAE 3) */
	unsigned pte_size;        /* bytes of a table entry: 8, x86 without PAE and
				     arm without LPAE 4 */
	unsigned struct_page;     /* SIZE(page): 64, x86 40, arm 36 */
	bool leaf_nx;             /* the leaves being mapped are not executable
				     (x86 PAE: NX; arm: XN) */
	bool arm_lpae;            /* arm: long descriptors (else short ones) */
	/* x86 and arm (FLATMEM): the struct page array mem_map (pfn
	 * memmap_pfn0 on: 0, arm ARCH_PFN_OFFSET), the end of lowmem
	 * (max_low_pfn, in bytes) and of ZONE_DMA (x86 16 MiB, arm all of
	 * lowmem: arm_dma_limit is 0xffffffff on a machine without a DMA
	 * zone size, arch/arm/mm/init.c). */
	uint64_t memmap_pa;
	uint64_t memmap_pfn0;
	uint64_t lowmem_end;
	uint64_t dma_end;
	/* Per level, 0 = the top: the va bits its index starts at, and how
	 * many (9 everywhere but on ppc64). */
	unsigned shift[GEN_MAX_PT_LEVELS];
	unsigned bits[GEN_MAX_PT_LEVELS];
	unsigned page_shift;      /* the kernel's page: 12, ppc64 16 */
	uint64_t page_size;
	uint64_t pfn_per_section;
	uint64_t sections_per_root;   /* a page of struct mem_section */
	unsigned ms_size;             /* SIZE(mem_section): 32, mips64 16 (no
				       * PAGE_EXTENSION) */
	unsigned max_order;       /* of a buddy block: LENGTH(zone.free_area) - 1 */
	bool ppc64_hash;          /* ppc64 under the hash MMU (else radix) */
	uint64_t npfn;            /* pfns tracked: max(max_pfn, sections end) */
	uint64_t max_pfn;         /* roundup(highest PT_LOAD paddr end) / page */
	uint8_t *kind;            /* enum gen_kind per pfn */
	uint8_t *info;            /* GEN_INFO_* per pfn */
	uint8_t *ram;             /* bitmap: pfn in a RAM range (makedumpfile's bitmap1) */
	uint8_t *sysram;          /* bitmap: ram, plus the crashkernel range */
	uint8_t *backed;          /* bitmap: pfn fully inside a RAM range's filesz */
	uint8_t *claimed;         /* bitmap: spec fill or pages line */
	uint8_t *meta;            /* bitmap: generator-owned (tables, struct pages) */

	uint64_t text_va, text_pa;
	uint64_t pgd_pa, uts_pa;
	/* loongarch64: invalid_pte_table and invalid_pmd_table, the pages
	 * after swapper_pg_dir, which empty PMD and PGD entries point at. */
	uint64_t la_inv_pte_pa, la_inv_pmd_pa;
	unsigned pgd_pages;       /* the top table's pages: 1, s390x 4 */
	uint64_t pt_half_pa;      /* s390x: the free 2 KiB half of a page-table page */
	uint64_t nroots;          /* LENGTH(mem_section) */
	uint64_t roots_pa;        /* nroots root pointers */
	uint64_t alloc_cursor;    /* allocator: next search below this pfn */

	struct gen_table *tables; /* page-table pages, [0] = PGD */
	size_t ntables, cap_tables;
	uint64_t *section_map_pa; /* per section: paddr of its struct pages, 0 if absent */
	uint64_t nsections;
	uint64_t *root_pa;        /* per root: paddr of its page of mem_sections, or 0 */

	/* The struct page array in units of vmemmap_unit bytes (a section's
	 * 2 MiB on x86_64, arm64, riscv64; ppc64: a vmemmap block of 2 MiB,
	 * 16 MiB under hash, or a page), in the order they were allocated. */
	uint64_t vmemmap_unit;
	/* The struct page of pfn 0's address (spec's vmemmap; mips64: in
	 * XKPHYS, where the array of the sections was allocated) */
	uint64_t vmemmap;
	uint64_t vmemmap_leaf;    /* the big leaf mapping it: 2 MiB, s390x 1 MiB
				     (ppc64: the unit) */
	struct gen_vmemmap_block *units;
	size_t nunits, cap_units;
	/* ppc64: the vmemmap_backing entries (24 bytes, one per unit), and
	 * the pages mapped at vmalloc_start (each holds its own va). */
	uint64_t nodes_pa;
	uint64_t vmalloc_pa[GEN_PPC64_VMALLOC_PAGES];
	size_t nvmalloc;
	/* The printk ring ("dmesg" lines): its descriptor, info and data
	 * arrays (in RAM), 1 << count_bits descriptors, 1 << data_bits
	 * bytes of text blocks. */
	uint64_t log_descs_pa, log_infos_pa, log_data_pa;
	unsigned log_count_bits, log_data_bits;
	/* A sadump spec: the image's pages of kernel variables a reader
	 * without VMCOREINFO looks for (GEN_SADUMP_VAR_PAGES of them), and
	 * the per-cpu areas (cpus * GEN_PCPU_SIZE bytes of RAM). */
	uint64_t sadump_vars_pa, percpu_pa, pgdat_pa;
};

/* A sadump spec's kernel: its variables take GEN_SADUMP_VAR_PAGES pages
 * of the image, each cpu a per-cpu area of GEN_PCPU_SIZE bytes of RAM;
 * NR_CPUS (cpumask, __per_cpu_offset) is Debian's. */
#define GEN_SADUMP_VAR_PAGES 20
#define GEN_PCPU_SIZE 0x2000
#define GEN_NR_CPUS 8192

/* The registers a sadump file keeps per cpu in place of NT_PRSTATUS. */
struct gen_cpu_state {
	uint64_t cr0, cr3, cr4, efer, rip, rsp, rflags;
	uint64_t idt, gdt;         /* linear base addresses */
	uint32_t idt_limit, gdt_limit;
	uint64_t gpr[16];          /* rax rcx rdx rbx rsp rbp rsi rdi r8 .. r15 */
	uint32_t cs, ss, ds, es, fs, gs, tr;
};

/**
 * Build the fake kernel's plan from @spec: pfn kinds, allocations of page
 * tables, mem_section and the struct page array.  Fails when spec ranges
 * collide with each other or with what the generator must own.
 */
/*
 * The pfns the plan tables cover: the highest physical address any RAM
 * range, the kernel image or the crashkernel region reaches, rounded up to
 * a section.  The plan costs about 2.7 bytes per pfn.
 */
uint64_t gen_spec_npfn(const struct gen_spec *spec);
enum mdf_status gen_kernel_plan(const struct gen_spec *spec, struct gen_kernel *k,
				struct mdf_err *err) MDF_MUST_CHECK;

/** The arch's MODULES_VADDR (riscv64: the image's end - 2 GiB). */
uint64_t gen_kernel_modules_vaddr(const struct gen_spec *spec, const struct gen_kernel *k);

/** Callback writing @len bytes at physical address @pa (all aliases). */
typedef enum mdf_status (*gen_phys_write_fn)(void *ctx, uint64_t pa, const void *buf,
					     size_t len, struct mdf_err *err);

/** Write page tables, mem_section, struct pages and init_uts_ns. */
enum mdf_status gen_kernel_write(const struct gen_spec *spec, const struct gen_kernel *k,
				 gen_phys_write_fn wr, void *ctx,
				 struct mdf_err *err) MDF_MUST_CHECK;

/** The physical address a poke writes at: its paddr, the struct page of
 *  its pfn (plus off), or the entry of the table at level off (0 = top)
 *  on the walk of its vaddr.  Fails when there is none. */
enum mdf_status gen_kernel_poke_pa(const struct gen_spec *spec, const struct gen_kernel *k,
				   const struct gen_poke *p, uint64_t *pa,
				   struct mdf_err *err) MDF_MUST_CHECK;

/** VMCOREINFO text (malloc'd, NUL-terminated) from the preset and edits. */
enum mdf_status gen_kernel_vmcoreinfo(const struct gen_spec *spec,
				      const struct gen_kernel *k, char **text,
				      struct mdf_err *err) MDF_MUST_CHECK;

void gen_kernel_free(struct gen_kernel *k);

/** The registers of @cpu when the sadump firmware stopped it: CR3 at
 *  init_top_pgt, IDTR at idt_table, RIP in the text, RSP on its per-cpu
 *  page (a sadump spec's kernel). */
void gen_kernel_cpu_state(const struct gen_spec *spec, const struct gen_kernel *k,
			  unsigned cpu, struct gen_cpu_state *cs);

/** The symbol table of the vmlinux this machine ran, as "NAME 0xADDR"
 *  lines (malloc'd): the SYMBOLs of its VMCOREINFO and a sadump spec's
 *  variables, at their link-time (un-KASLR'd) addresses; per-cpu
 *  variables at their offsets in the per-cpu area. */
enum mdf_status gen_kernel_symbols(const struct gen_spec *spec, const struct gen_kernel *k,
				   char **text, struct mdf_err *err) MDF_MUST_CHECK;

static inline bool gen_bit_test(const uint8_t *map, uint64_t i)
{
	return (map[i >> 3] >> (i & 7)) & 1;
}
static inline void gen_bit_set(uint8_t *map, uint64_t i)
{
	map[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/* ---- gen_elf.c ---- */

/** Write the whole core file to @path. */
enum mdf_status gen_elf_write(const struct gen_spec *spec, const struct gen_kernel *k,
			      const char *path, struct mdf_err *err) MDF_MUST_CHECK;

/** Write the machine's memory through @wr: fills, the fake kernel, pokes. */
enum mdf_status gen_elf_write_memory(const struct gen_spec *spec, const struct gen_kernel *k,
				     gen_phys_write_fn wr, void *ctx,
				     struct mdf_err *err) MDF_MUST_CHECK;

/** Fill one page of content for @pfn with pattern @f (1 << spec->page_shift
 *  bytes). */
void gen_elf_fill_page(const struct gen_spec *spec, const struct gen_fill *f,
		       uint64_t pfn, uint8_t *page);

/* ---- gen_sadump.c ---- */

/** Write the machine as a sadump file (spec->format) to @path; a
 *  diskset's disks 2..N go to "@path.2" .. "@path.N". */
enum mdf_status gen_sadump_write(const struct gen_spec *spec, const struct gen_kernel *k,
				 const char *path, struct mdf_err *err) MDF_MUST_CHECK;

/* What a sadump file holds, from a synthetic machine or a real core. */
struct gen_sadump_src {
	unsigned cpus;
	const struct gen_cpu_state *cpu;   /* cpus of them */
	uint64_t crashtime;                /* seconds since the epoch, UTC */
	uint64_t max_pfn;
	const uint8_t *ram, *backed;       /* RAM and dumped pfns, LSB first */
	/* Write every dumped page's bytes through @wr (others are dropped). */
	enum mdf_status (*write_memory)(const void *ctx, gen_phys_write_fn wr, void *wctx,
					struct mdf_err *err);
	const void *ctx;
};

/** Write @src as a sadump file of spec->format (its disks, seed, and
 *  break truncate/empty) to @path. */
enum mdf_status gen_sadump_emit(const struct gen_spec *spec, const struct gen_sadump_src *src,
				const char *path, struct mdf_err *err) MDF_MUST_CHECK;

/* ---- gen_fromelf.c ---- */

/** Write the x86_64 ELF vmcore @vmcore (its RAM, its NT_PRSTATUS
 *  registers, CR3 at init_top_pgt, IDTR at the cpu entry area's IDT) as a
 *  sadump file of spec->format to @path. */
enum mdf_status gen_sadump_from_elf(const struct gen_spec *spec, const char *vmcore,
				    const char *path, struct mdf_err *err) MDF_MUST_CHECK;

/* ---- gen_ref.c ---- */

/** True if a page of @kind is dumpable at dump level @level. */
bool gen_ref_keep(enum gen_kind kind, unsigned level);

/** Write DIR/bitmap1 and DIR/dL.bitmap2 for every level in spec->ref_levels. */
enum mdf_status gen_ref_write(const struct gen_spec *spec, const struct gen_kernel *k,
			      const char *dir, struct mdf_err *err) MDF_MUST_CHECK;

/* splitmix64: the PRNG of all seeded content. */
static inline uint64_t gen_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

#endif
