/*
 * tests/gen/kobj/kobj.h - a synthetic kernel object: the types a 6.1
 * x86_64 kernel exports through VMCOREINFO, laid out as the generator's
 * "kernel 6.1" preset says (tests/gen/gen_preset.c: the numbers of Debian's
 * 6.1.0-57-amd64).  kobj.c defines the variables; the Makefile links it
 * with -g into BUILD/tests/gen/kobj, a stand-in for a debug vmlinux that
 * -x and -g read in every make check.  test_dwarf_info.c includes this
 * header, so what DWARF answers is checked against offsetof() and sizeof().
 *
 * Written for the layout, not copied: padding arrays stand where the real
 * structs hold members no dump filter reads.
 */
#ifndef KOBJ_H
#define KOBJ_H

struct list_head {
	struct list_head *next, *prev;
};

struct address_space;

struct page {
	unsigned long flags;
	union {
		struct {
			union {
				struct list_head lru;
				struct {
					void *lru_filler;
					unsigned int mlock_count;
				};
			};
			struct address_space *mapping;
			unsigned long index;
			unsigned long private;
		};
		struct {
			unsigned long compound_head;
			unsigned char compound_dtor;
			unsigned char compound_order;
			int compound_mapcount;
			int compound_pincount;
		};
	};
	union {
		int _mapcount;
		unsigned int page_type;
	};
	int _refcount;
	unsigned long memcg_data;
};

struct mem_section {
	unsigned long section_mem_map;
	void *usage;
	void *page_ext;
	unsigned long pad;
};

struct free_area {
	struct list_head free_list[5];
	unsigned long nr_free;
};

typedef struct {
	long counter;
} atomic_long_t;

struct zone {
	char pad0[144];
	unsigned long spanned_pages;
	char pad1[256 - 152];
	struct free_area free_area[11];
	char pad2[1344 - 256 - 11 * 88];
	atomic_long_t vm_stat[11];
	char pad3[1536 - 1344 - 11 * 8];
};

typedef struct {
	unsigned long bits[16];
} nodemask_t;

struct pglist_data {
	struct zone node_zones[5];
	char pad0[171552 - 5 * 1536];
	int nr_zones;
	unsigned long node_start_pfn;
	unsigned long node_present_pages;
	unsigned long node_spanned_pages;
	int node_id;
	char pad1[174208 - 171588 - 4];
};

struct new_utsname {
	char sysname[65];
	char nodename[65];
	char release[65];
	char version[65];
	char machine[65];
	char domainname[65];
};

struct uts_namespace {
	struct new_utsname name;
	void *user_ns;
};

struct rb_node_like {
	unsigned long parent_color;
	void *right, *left;
};

struct vmap_area {
	unsigned long va_start;
	unsigned long va_end;
	struct rb_node_like rb_node;
	struct list_head list;
};

typedef struct {
	unsigned long pud;
} pud_t;

/* What a sadump reader needs besides (upstream's sadump_info.c): the
 * online cpu mask (NR_CPUS 8192, Debian's), the registers of struct
 * elf_prstatus (x86_64: pr_reg at 112, 336 bytes) it writes as notes. */
#define KOBJ_NR_CPUS 8192

struct cpumask {
	unsigned long bits[KOBJ_NR_CPUS / 64];
};

struct user_regs_struct {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
	unsigned long fs_base, gs_base, ds, es, fs, gs;
};

struct elf_prstatus {
	char pad0[112];
	struct user_regs_struct pr_reg;
	int pr_fpvalid;
};

enum pageflags {
	PG_locked, PG_referenced, PG_uptodate, PG_dirty, PG_lru, PG_active,
	PG_workingset, PG_waiters, PG_error, PG_slab, PG_owner_priv_1, PG_arch_1,
	PG_reserved, PG_private, PG_private_2, PG_writeback, PG_head,
	PG_mappedtodisk, PG_reclaim, PG_swapbacked, PG_unevictable, PG_mlocked,
	PG_uncached, PG_hwpoison, PG_young, PG_idle, PG_arch_2, __NR_PAGEFLAGS,
	PG_swapcache = PG_owner_priv_1,
};

enum compound_dtor_id {
	NULL_COMPOUND_DTOR, COMPOUND_PAGE_DTOR, HUGETLB_PAGE_DTOR,
	TRANSHUGE_PAGE_DTOR, NR_COMPOUND_DTORS,
};

enum zone_stat_item { NR_FREE_PAGES, NR_ZONE_LRU_BASE, NR_VM_ZONE_STAT_ITEMS = 11 };

enum node_states { N_POSSIBLE, N_ONLINE, N_NORMAL_MEMORY, N_HIGH_MEMORY, N_MEMORY,
		   NR_NODE_STATES };

/* In 6.10 and 6.11 the page types are an enum of masks that reuse PG_
 * names (kernel commit 46df8e73a4a3): -x must not take these for flag
 * bits, and makes the markers of them (~mask: the values of the
 * generator's 6.1 note, where they were macros). */
#if defined(KOBJ_NO_PAGETYPE)
/* kobj-sadump: 6.1 as it is, its page types macros (no DWARF), so that
 * upstream's -x takes no PG_buddy for a flag bit. */
#elif !defined(KOBJ_PGTY)
enum pagetype { PG_buddy = 0x00000080, PG_offline = 0x00000100 };
#else
/* 6.12 on: a type in the top byte (kobj-other is built so). */
enum pagetype { PGTY_buddy = 0xf0, PGTY_offline = 0xf1, PGTY_table = 0xf2, PGTY_guard = 0xf3,
		PGTY_hugetlb = 0xf4, PGTY_slab = 0xf5 };
#endif

#endif
