/*
 * kinfo.h - what we know about the crashed kernel, from VMCOREINFO (or,
 * DWARF, kernel/dwarf_info.h).  Each vocabulary is listed exactly once, as an X-macro;
 * the parser, the -g writer and the "needed for dump level N" checks are
 * all generated from these lists.
 *
 * X(ident, "key as written in VMCOREINFO")
 */
#ifndef MDF_KINFO_H
#define MDF_KINFO_H

#include <stdbool.h>
#include <stdint.h>

/* SYMBOL(name)=hex address */
#define KINFO_SYMBOLS(X)                                   \
	X(mem_map, "mem_map")                              \
	X(vmem_map, "vmem_map")                            \
	X(mem_section, "mem_section")                      \
	X(vmemmap, "vmemmap")                              \
	X(swapper_pg_dir, "swapper_pg_dir")                \
	X(init_top_pgt, "init_top_pgt")                    \
	X(init_level4_pgt, "init_level4_pgt")              \
	X(level4_kernel_pgt, "level4_kernel_pgt")          \
	X(_stext, "_stext")                                \
	X(init_uts_ns, "init_uts_ns")                      \
	X(node_online_map, "node_online_map")              \
	X(node_states, "node_states")                      \
	X(node_data, "node_data")                          \
	X(pgdat_list, "pgdat_list")                        \
	X(contig_page_data, "contig_page_data")            \
	X(vmap_area_list, "vmap_area_list")                \
	X(vmlist, "vmlist")                                \
	X(high_memory, "high_memory")                      \
	X(max_pfn, "max_pfn")                              \
	X(prb, "prb")                                      \
	X(printk_rb_static, "printk_rb_static")            \
	X(clear_seq, "clear_seq")                          \
	X(log_buf, "log_buf")                              \
	X(log_buf_len, "log_buf_len")                      \
	X(log_first_idx, "log_first_idx")                  \
	X(log_next_idx, "log_next_idx")                    \
	X(log_end, "log_end")                              \
	X(clear_idx, "clear_idx")                          \
	X(free_huge_page, "free_huge_page")                \
	X(kallsyms_names, "kallsyms_names")                \
	X(kallsyms_num_syms, "kallsyms_num_syms")          \
	X(kallsyms_token_table, "kallsyms_token_table")    \
	X(kallsyms_token_index, "kallsyms_token_index")    \
	X(kallsyms_offsets, "kallsyms_offsets")            \
	X(kallsyms_relative_base, "kallsyms_relative_base")    \
	X(vmemmap_list, "vmemmap_list")        /* ppc64 */     \
	X(mmu_vmemmap_psize, "mmu_vmemmap_psize")              \
	X(mmu_psize_defs, "mmu_psize_defs")

/* SIZE(name)=decimal */
#define KINFO_SIZES(X)                                     \
	X(page, "page")                                    \
	X(mem_section, "mem_section")                      \
	X(pglist_data, "pglist_data")                      \
	X(zone, "zone")                                    \
	X(free_area, "free_area")                          \
	X(list_head, "list_head")                          \
	X(nodemask_t, "nodemask_t")                        \
	X(pageflags, "pageflags")                          \
	X(printk_log, "printk_log")                        \
	X(log, "log")                  /* 3.5-3.10 */      \
	X(printk_ringbuffer, "printk_ringbuffer")          \
	X(prb_desc_ring, "prb_desc_ring")                  \
	X(prb_desc, "prb_desc")                            \
	X(prb_data_blk_lpos, "prb_data_blk_lpos")          \
	X(printk_info, "printk_info")                      \
	X(dev_printk_info, "dev_printk_info")              \
	X(prb_data_ring, "prb_data_ring")                  \
	X(atomic_long_t, "atomic_long_t")                  \
	X(latched_seq, "latched_seq")                      \
	X(vmemmap_backing, "vmemmap_backing")  /* ppc64 */ \
	X(mmu_psize_def, "mmu_psize_def")

/* OFFSET(struct.member)=decimal */
#define KINFO_OFFSETS(X)                                                  \
	X(page_flags, "page.flags")                                       \
	X(page__refcount, "page._refcount")                               \
	X(page__count, "page._count")                                     \
	X(page_mapping, "page.mapping")                                   \
	X(page_lru, "page.lru")                                           \
	X(page__mapcount, "page._mapcount")                               \
	X(page_private, "page.private")                                   \
	X(page_compound_dtor, "page.compound_dtor")                       \
	X(page_compound_order, "page.compound_order")                     \
	X(page_compound_head, "page.compound_head")                       \
	X(page_compound_info, "page.compound_info")                       \
	X(folio__folio_dtor, "folio._folio_dtor")                         \
	X(folio__folio_order, "folio._folio_order")                       \
	X(mem_section_section_mem_map, "mem_section.section_mem_map")     \
	X(pglist_data_node_zones, "pglist_data.node_zones")               \
	X(pglist_data_nr_zones, "pglist_data.nr_zones")                   \
	X(pglist_data_node_mem_map, "pglist_data.node_mem_map")           \
	X(pglist_data_node_start_pfn, "pglist_data.node_start_pfn")       \
	X(pglist_data_node_spanned_pages, "pglist_data.node_spanned_pages") \
	X(pglist_data_node_id, "pglist_data.node_id")                     \
	X(pglist_data_pgdat_next, "pglist_data.pgdat_next")               \
	X(zone_free_pages, "zone.free_pages")                             \
	X(zone_free_area, "zone.free_area")                               \
	X(zone_vm_stat, "zone.vm_stat")                                   \
	X(zone_spanned_pages, "zone.spanned_pages")                       \
	X(free_area_free_list, "free_area.free_list")                     \
	X(list_head_next, "list_head.next")                               \
	X(list_head_prev, "list_head.prev")                               \
	X(uts_namespace_name, "uts_namespace.name")                       \
	X(vmap_area_va_start, "vmap_area.va_start")                       \
	X(vmap_area_list, "vmap_area.list")                               \
	X(vm_struct_addr, "vm_struct.addr")                               \
	X(vmemmap_backing_list, "vmemmap_backing.list")    /* ppc64 */    \
	X(vmemmap_backing_phys, "vmemmap_backing.phys")                   \
	X(vmemmap_backing_virt_addr, "vmemmap_backing.virt_addr")         \
	X(mmu_psize_def_shift, "mmu_psize_def.shift")                     \
	X(printk_log_ts_nsec, "printk_log.ts_nsec")                       \
	X(printk_log_len, "printk_log.len")                               \
	X(printk_log_text_len, "printk_log.text_len")                     \
	X(log_ts_nsec, "log.ts_nsec")            /* 3.5-3.10 */           \
	X(log_len, "log.len")                                             \
	X(log_text_len, "log.text_len")                                   \
	X(printk_ringbuffer_desc_ring, "printk_ringbuffer.desc_ring")     \
	X(printk_ringbuffer_text_data_ring, "printk_ringbuffer.text_data_ring") \
	X(printk_ringbuffer_fail, "printk_ringbuffer.fail")               \
	X(prb_desc_ring_count_bits, "prb_desc_ring.count_bits")           \
	X(prb_desc_ring_descs, "prb_desc_ring.descs")                     \
	X(prb_desc_ring_infos, "prb_desc_ring.infos")                     \
	X(prb_desc_ring_head_id, "prb_desc_ring.head_id")                 \
	X(prb_desc_ring_tail_id, "prb_desc_ring.tail_id")                 \
	X(prb_desc_state_var, "prb_desc.state_var")                       \
	X(prb_desc_text_blk_lpos, "prb_desc.text_blk_lpos")               \
	X(prb_data_blk_lpos_begin, "prb_data_blk_lpos.begin")             \
	X(prb_data_blk_lpos_next, "prb_data_blk_lpos.next")               \
	X(printk_info_seq, "printk_info.seq")                             \
	X(printk_info_ts_nsec, "printk_info.ts_nsec")                     \
	X(printk_info_text_len, "printk_info.text_len")                   \
	X(printk_info_caller_id, "printk_info.caller_id")                 \
	X(printk_info_dev_info, "printk_info.dev_info")                   \
	X(dev_printk_info_subsystem, "dev_printk_info.subsystem")         \
	X(dev_printk_info_device, "dev_printk_info.device")               \
	X(prb_data_ring_size_bits, "prb_data_ring.size_bits")             \
	X(prb_data_ring_data, "prb_data_ring.data")                       \
	X(prb_data_ring_head_lpos, "prb_data_ring.head_lpos")             \
	X(prb_data_ring_tail_lpos, "prb_data_ring.tail_lpos")             \
	X(atomic_long_t_counter, "atomic_long_t.counter")                 \
	X(latched_seq_val, "latched_seq.val")

/* LENGTH(name)=decimal */
#define KINFO_LENGTHS(X)                                   \
	X(mem_section, "mem_section")                      \
	X(node_data, "node_data")                          \
	X(pgdat_list, "pgdat_list")                        \
	X(zone_free_area, "zone.free_area")                \
	X(free_area_free_list, "free_area.free_list")      \
	X(node_memblk, "node_memblk")                      \
	X(printk_info_subsystem, "printk_info_subsystem")  \
	X(printk_info_device, "printk_info_device")

/* NUMBER(name)=signed decimal, or 0x hex */
#define KINFO_NUMBERS(X)                                              \
	X(PG_lru, "PG_lru")                                           \
	X(PG_private, "PG_private")                                   \
	X(PG_head, "PG_head")                                         \
	X(PG_head_mask, "PG_head_mask")                               \
	X(PG_swapcache, "PG_swapcache")                               \
	X(PG_swapbacked, "PG_swapbacked")                             \
	X(PG_slab, "PG_slab")                                         \
	X(PG_buddy, "PG_buddy")                                       \
	X(PG_hwpoison, "PG_hwpoison")                                 \
	X(PG_hugetlb, "PG_hugetlb")                                   \
	X(PG_offline, "PG_offline")                                   \
	X(PAGE_BUDDY_MAPCOUNT_VALUE, "PAGE_BUDDY_MAPCOUNT_VALUE")     \
	X(PAGE_HUGETLB_MAPCOUNT_VALUE, "PAGE_HUGETLB_MAPCOUNT_VALUE") \
	X(PAGE_OFFLINE_MAPCOUNT_VALUE, "PAGE_OFFLINE_MAPCOUNT_VALUE") \
	X(PAGE_SLAB_MAPCOUNT_VALUE, "PAGE_SLAB_MAPCOUNT_VALUE")       \
	X(PAGE_UNACCEPTED_MAPCOUNT_VALUE, "PAGE_UNACCEPTED_MAPCOUNT_VALUE") \
	X(HUGETLB_PAGE_DTOR, "HUGETLB_PAGE_DTOR")                     \
	X(SECTION_SIZE_BITS, "SECTION_SIZE_BITS")                     \
	X(MAX_PHYSMEM_BITS, "MAX_PHYSMEM_BITS")                       \
	X(NR_FREE_PAGES, "NR_FREE_PAGES")                             \
	X(N_ONLINE, "N_ONLINE")                                       \
	X(pgtable_l5_enabled, "pgtable_l5_enabled")                   \
	X(sme_mask, "sme_mask")                                       \
	X(phys_base, "phys_base")                                     \
	X(KERNEL_IMAGE_SIZE, "KERNEL_IMAGE_SIZE")                     \
	X(VMALLOC_START, "VMALLOC_START")                             \
	X(RADIX_MMU, "RADIX_MMU")                                     \
	X(VA_BITS, "VA_BITS")                                         \
	X(TCR_EL1_T1SZ, "TCR_EL1_T1SZ")                               \
	X(tcr_el1_t1sz, "tcr_el1_t1sz")                               \
	X(PHYS_OFFSET, "PHYS_OFFSET")                                 \
	X(kimage_voffset, "kimage_voffset")                           \
	X(phys_ram_base, "phys_ram_base")      /* riscv64 */          \
	X(PAGE_OFFSET, "PAGE_OFFSET")                                 \
	X(VMALLOC_END, "VMALLOC_END")                                 \
	X(VMEMMAP_START, "VMEMMAP_START")                             \
	X(VMEMMAP_END, "VMEMMAP_END")                                 \
	X(MODULES_VADDR, "MODULES_VADDR")                             \
	X(MODULES_END, "MODULES_END")                                 \
	X(KERNEL_LINK_ADDR, "KERNEL_LINK_ADDR")                       \
	X(va_kernel_pa_offset, "va_kernel_pa_offset")

/* CONFIG_X=y lines */
#define KINFO_CONFIGS(X)                                   \
	X(X86_PAE, "X86_PAE")                              \
	X(ARM_LPAE, "ARM_LPAE")                            \
	X(PGTABLE_3, "PGTABLE_3")                          \
	X(PGTABLE_4, "PGTABLE_4")                          \
	X(SPARSEMEM_VMEMMAP, "SPARSEMEM_VMEMMAP")

/* SRCFILE(typedef)=the header that declares it (written by -g; upstream
 * reads pud_t's to tell some x86 kernels apart) */
#define KINFO_SRCFILES(X) X(pud_t, "pud_t")

#define KINFO_SRCFILE_MAX 128

struct kinfo_u64 {
	uint64_t v;
	bool set;
};

struct kinfo_s64 {
	int64_t v;
	bool set;
};

#define KINFO_U64_FIELD(ident, key) struct kinfo_u64 ident;
#define KINFO_S64_FIELD(ident, key) struct kinfo_s64 ident;
#define KINFO_BOOL_FIELD(ident, key) bool ident;
#define KINFO_STR_FIELD(ident, key) char ident[KINFO_SRCFILE_MAX];

struct kinfo {
	bool big_endian;             /* the dump's byte order: from the input's
				      * headers (ELF EI_DATA, a kdump header's
				      * order), not from VMCOREINFO */
	unsigned word_size;          /* the kernel's unsigned long and pointers:
				      * 4 or 8, from the machine
				      * (arch_word_size()); 0 means 8 */
	char osrelease[65];          /* OSRELEASE= */
	char build_id[129];          /* BUILD-ID= */
	struct kinfo_u64 page_size;  /* PAGESIZE= */
	struct kinfo_u64 kernel_offset; /* KERNELOFFSET= (hex) */
	/* s390x since Linux 6.10 (commit 378e32aa8197): the identity map's
	 * base (__identity_base) and the image's physical offset
	 * (__kaslr_offset_phys), hex like KERNELOFFSET. */
	struct kinfo_u64 identity_base; /* IDENTITYBASE= */
	struct kinfo_u64 kernel_off_phys; /* KERNELOFFPHYS= */
	struct kinfo_u64 crashtime;  /* CRASHTIME= (decimal seconds) */
	struct { KINFO_SYMBOLS(KINFO_U64_FIELD) } sym;
	struct { KINFO_SIZES(KINFO_U64_FIELD) } size;
	struct { KINFO_OFFSETS(KINFO_U64_FIELD) } off;
	struct { KINFO_LENGTHS(KINFO_U64_FIELD) } len;
	struct { KINFO_NUMBERS(KINFO_S64_FIELD) } num;
	struct { KINFO_CONFIGS(KINFO_BOOL_FIELD) } config;
	struct { KINFO_SRCFILES(KINFO_STR_FIELD) } srcfile;
	/* The first line with a bad value that filtering does not use
	 * (BUILD-ID, CRASHTIME, kallsyms, printk): its field is left unset,
	 * the message kept for a warning, or for the error of the feature
	 * that needs the key (--dump-dmesg). */
	char ignored_key[64];
	char ignored_msg[192];
};

/** Bytes of the kernel's unsigned long and pointers: 4 or 8. */
static inline unsigned kinfo_word_size(const struct kinfo *ki)
{
	return ki->word_size == 4 ? 4 : 8;
}

#endif
