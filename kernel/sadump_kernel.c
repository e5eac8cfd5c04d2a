/*
 * sadump_kernel.c - the kernel of a sadump dump (sadump_kernel.h).
 */
#include "kernel/sadump_kernel.h"

#include <elf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "kernel/vmcoreinfo.h"
#include "readmem.h"
#include "util.h"

typedef unsigned long long ull;

#define START_KERNEL_MAP UINT64_C(0xffffffff80000000)
#define MIB (UINT64_C(1) << 20)
#define BANNER "Linux version"
#define BANNER_LEN (sizeof(BANNER) - 1)
#define CR4_LA57 (UINT64_C(1) << 12)
/* CR3's PCID bits, and with page-table isolation (4.15, commit
 * aa8c6248f8c7; KAISER in the stable backports) the user half's bit. */
#define CR3_PCID_MASK UINT64_C(0xfff)
#define CR3_PTI_USER_BIT (UINT64_C(1) << 12)

/* The notes: a "CORE" NT_PRSTATUS is x86_64's struct elf_prstatus, 336
 * bytes, its registers (27 of 8 bytes) from byte 112. */
#define PRSTATUS_SIZE 336
#define PRSTATUS_REG 112
#define NREGS 27
/* The kernel's crash note of a cpu: two note headers, "CORE" padded, the
 * prstatus (upstream's KEXEC_NOTE_BYTES). */
#define CRASH_NOTE_BYTES (12 * 2 + 8 + PRSTATUS_SIZE)

/* user_regs_struct, in pr_reg's order */
static const char *const reg_names[NREGS] = {
	"r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10", "r9", "r8",
	"ax", "cx", "dx", "si", "di", "orig_ax", "ip", "cs", "flags", "sp",
	"ss", "fs_base", "gs_base", "ds", "es", "fs", "gs",
};

/* ---- phys_base and KASLR --------------------------------------------- */

static bool banner_at(struct readmem *rm, uint64_t pa)
{
	char b[BANNER_LEN];
	struct mdf_err e;

	return readmem_paddr(rm, pa, b, BANNER_LEN, &e) == MDF_OK && memcmp(b, BANNER, BANNER_LEN) == 0;
}

/* @va through the page tables at @cr3 (5 levels when CR4 says LA57). */
static enum mdf_status cr3_vtop(struct readmem *rm, uint64_t cr3, bool la57, uint64_t va,
				uint64_t *pa, struct mdf_err *err)
{
	struct kinfo *ki = malloc(sizeof(*ki));
	struct arch_state st;
	struct arch_walk w;
	enum mdf_status s;

	if (!ki)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	kinfo_init(ki);
	ki->page_size.v = 4096;
	ki->page_size.set = true;
	ki->num.pgtable_l5_enabled.v = la57;
	ki->num.pgtable_l5_enabled.set = true;
	s = arch_init(&st, EM_X86_64, ki, NULL, 0, err);
	free(ki);
	if (s != MDF_OK)
		return s;
	st.pgd_paddr = cr3;
	st.have_pgd = true;
	memset(&w, 0, sizeof(w));
	s = arch_walk(&st, va, readmem_read_pte, rm, &w, err);
	if (s == MDF_OK)
		*pa = w.paddr;
	arch_release(&st);
	return s;
}

/* Upstream's calc_kaslr_offset(): the first cpu whose IDT gives offsets
 * that find linux_banner. */
static bool locate_by_idt(struct sadump_info *si, struct cache *cache, struct readmem *rm,
			  struct dwarf_info *dw, uint64_t banner, struct sadump_kernel_loc *ret)
{
	uint64_t divide_error, idt_table;
	bool pti = dwarf_info_symbol(dw, "pti_init", NULL, NULL) ||
		   dwarf_info_symbol(dw, "kaiser_init", NULL, NULL);

	if (!dwarf_info_symbol(dw, "divide_error", &divide_error, NULL) &&
	    !dwarf_info_symbol(dw, "asm_exc_divide_error", &divide_error, NULL))
		return false;
	if (!dwarf_info_symbol(dw, "idt_table", &idt_table, NULL))
		return false;
	for (uint32_t apicid = 0; apicid < si->nr_cpus; apicid++) {
		struct sadump_cpu_state cs;
		unsigned char gate[16];
		uint64_t cr3, idt_pa, vec0, koff, pb, bpa;
		struct mdf_err e;
		bool la57;

		if (sadump_cpu_state(si, cache, apicid, &cs, &e) != MDF_OK)
			return false;
		if (!cs.cr3 || !cs.idtr)
			continue;
		cr3 = cs.cr3 & ~(CR3_PCID_MASK | (pti ? CR3_PTI_USER_BIT : 0));
		la57 = (cs.cr4 & CR4_LA57) != 0;
		if (cr3_vtop(rm, cr3, la57, cs.idtr, &idt_pa, &e) != MDF_OK ||
		    readmem_paddr(rm, idt_pa, gate, sizeof(gate), &e) != MDF_OK)
			continue;
		/* a 64-bit gate: offset bits 0-15 at 0, 16-31 at 6, 32-63 at 8 */
		vec0 = (uint64_t)load_le32(gate + 8) << 32 | (uint64_t)load_le16(gate + 6) << 16 |
		       load_le16(gate);
		koff = vec0 - divide_error;
		pb = idt_pa - (idt_table + koff - START_KERNEL_MAP);
		if (cr3_vtop(rm, cr3, la57, banner + koff, &bpa, &e) == MDF_OK && banner_at(rm, bpa)) {
			ret->kernel_offset = koff;
			ret->phys_base = pb;
			snprintf(ret->how, sizeof(ret->how), "the IDT of APIC id %u", apicid);
			return true;
		}
	}
	return false;
}

enum mdf_status sadump_kernel_locate(struct sadump_info *si, struct cache *cache,
				     struct dwarf_info *dw, struct sadump_kernel_loc *ret,
				     struct mdf_err *err)
{
	struct readmem rm;
	uint64_t banner, pa;

	memset(ret, 0, sizeof(*ret));
	if (!dwarf_info_symbol(dw, "linux_banner", &banner, NULL))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: the vmlinux has no linux_banner, by which a sadump dump's "
				   "kernel is found", dwarf_info_path(dw));
	readmem_init_input(&rm, &sadump_input_ops, si, cache, NULL, si->block_size);
	pa = banner - START_KERNEL_MAP;
	if (banner_at(&rm, pa)) {
		snprintf(ret->how, sizeof(ret->how), "linux_banner");
		return MDF_OK;
	}
	/* phys_base -16 MiB .. +16 MiB, as upstream's sadump_virt_phys_base() */
	for (uint64_t d = (uint64_t)-(16 * MIB); d != 17 * MIB; d += MIB)
		if (banner_at(&rm, pa + d)) {
			ret->phys_base = d;
			snprintf(ret->how, sizeof(ret->how), "linux_banner at phys_base %+lld MiB",
				 (long long)(int64_t)d / (long long)MIB);
			return MDF_OK;
		}
	if (locate_by_idt(si, cache, &rm, dw, banner, ret))
		return MDF_OK;
	snprintf(ret->how, sizeof(ret->how), "not found: 0, as upstream");
	return MDF_OK;
}

/* ---- VMCOREINFO as 1.7.2 writes it ------------------------------------ */

struct textbuf {
	char *buf;
	size_t cap, len;
	bool over;
};

static void tb_add(struct textbuf *t, const char *fmt, ...) MDF_PRINTF(2, 3);
static void tb_add(struct textbuf *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->over)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= t->cap - t->len)
		t->over = true;
	else
		t->len += (size_t)n;
}

/* 1.7.2's LENGTH(node_data): its DWARF lookup of a symbol's array type
 * answers FOUND_ARRAY_TYPE (LONG_MAX - 1), not the length. */
#define FOUND_ARRAY_TYPE (INT64_MAX - 1)
/* 1.7.2's defaults of old kernels (get_value_for_old_linux()) */
#define PG_LRU_ORIGINAL 5
#define PG_SLAB_ORIGINAL 7
#define PG_PRIVATE_ORIGINAL 11
#define PG_COMPOUND_ORIGINAL 14
#define PG_SWAPCACHE_ORIGINAL 15

enum mdf_status sadump_vmcoreinfo_text(const struct kinfo *dk, const char *release,
				       uint64_t page_size, uint64_t phys_base,
				       uint64_t kernel_offset, char *buf, size_t cap,
				       size_t *len_ret, struct mdf_err *err)
{
	struct textbuf t = { buf, cap, 0, false };
	bool ringbuffer = dk->size.printk_ringbuffer.set, printk_log = dk->size.printk_log.set;
	int64_t pg_lru, pg_private, pg_swapcache, pg_swapbacked, pg_slab, pg_head_mask;
	bool have_swapbacked;

	tb_add(&t, "OSRELEASE=%s\n", release);
	tb_add(&t, "PAGESIZE=%llu\n", (ull)page_size);
#define SYM(ident) \
	if (dk->sym.ident.set) \
		tb_add(&t, "SYMBOL(%s)=%llx\n", #ident, (ull)(dk->sym.ident.v + kernel_offset));
	SYM(mem_map) SYM(vmem_map) SYM(mem_section) SYM(init_uts_ns) SYM(_stext)
	SYM(swapper_pg_dir) SYM(init_level4_pgt) SYM(level4_kernel_pgt) SYM(init_top_pgt)
	SYM(vmlist) SYM(vmap_area_list) SYM(node_online_map) SYM(node_states) SYM(node_data)
	SYM(pgdat_list) SYM(contig_page_data) SYM(prb) SYM(clear_seq) SYM(log_buf)
	SYM(log_buf_len) SYM(log_end) SYM(log_first_idx) SYM(clear_idx) SYM(log_next_idx)
	SYM(max_pfn) SYM(high_memory) SYM(vmemmap_list) SYM(mmu_psize_defs)
	SYM(mmu_vmemmap_psize) SYM(free_huge_page)
#undef SYM
#define SIZE(ident, key) \
	if (dk->size.ident.set) \
		tb_add(&t, "SIZE(%s)=%lld\n", key, (long long)dk->size.ident.v);
	SIZE(page, "page") SIZE(mem_section, "mem_section") SIZE(pglist_data, "pglist_data")
	SIZE(zone, "zone") SIZE(free_area, "free_area") SIZE(list_head, "list_head")
	SIZE(nodemask_t, "nodemask_t")
	/* SIZE(pageflags): 1.7.2 finds no size of an enum type, and its
	 * default needs the kernel version, unknown at that point */
	if (ringbuffer) {
		SIZE(printk_ringbuffer, "printk_ringbuffer") SIZE(prb_desc, "prb_desc")
		SIZE(printk_info, "printk_info") SIZE(latched_seq, "latched_seq")
	} else if (printk_log) {
		SIZE(printk_log, "printk_log")
	} else {
		SIZE(log, "log")
	}
	SIZE(vmemmap_backing, "vmemmap_backing") SIZE(mmu_psize_def, "mmu_psize_def")
#undef SIZE
#define OFF(ident, key) \
	if (dk->off.ident.set) \
		tb_add(&t, "OFFSET(%s)=%lld\n", key, (long long)dk->off.ident.v);
	OFF(page_flags, "page.flags")
	if (dk->off.page__refcount.set) {
		OFF(page__refcount, "page._refcount")
	} else {
		OFF(page__count, "page._count")
	}
	OFF(page_mapping, "page.mapping") OFF(page_lru, "page.lru")
	OFF(page__mapcount, "page._mapcount") OFF(page_private, "page.private")
	OFF(page_compound_dtor, "page.compound_dtor")
	OFF(page_compound_order, "page.compound_order")
	OFF(page_compound_head, "page.compound_head")
	OFF(mem_section_section_mem_map, "mem_section.section_mem_map")
	OFF(pglist_data_node_zones, "pglist_data.node_zones")
	OFF(pglist_data_nr_zones, "pglist_data.nr_zones")
	OFF(pglist_data_node_mem_map, "pglist_data.node_mem_map")
	OFF(pglist_data_node_start_pfn, "pglist_data.node_start_pfn")
	OFF(pglist_data_node_spanned_pages, "pglist_data.node_spanned_pages")
	OFF(pglist_data_pgdat_next, "pglist_data.pgdat_next")
	OFF(zone_free_pages, "zone.free_pages") OFF(zone_free_area, "zone.free_area")
	OFF(zone_vm_stat, "zone.vm_stat") OFF(zone_spanned_pages, "zone.spanned_pages")
	OFF(free_area_free_list, "free_area.free_list")
	OFF(list_head_next, "list_head.next") OFF(list_head_prev, "list_head.prev")
	OFF(vm_struct_addr, "vm_struct.addr") OFF(vmap_area_va_start, "vmap_area.va_start")
	OFF(vmap_area_list, "vmap_area.list")
	if (ringbuffer) {
		OFF(printk_ringbuffer_desc_ring, "printk_ringbuffer.desc_ring")
		OFF(printk_ringbuffer_text_data_ring, "printk_ringbuffer.text_data_ring")
		OFF(prb_desc_ring_count_bits, "prb_desc_ring.count_bits")
		OFF(prb_desc_ring_descs, "prb_desc_ring.descs")
		OFF(prb_desc_ring_infos, "prb_desc_ring.infos")
		OFF(prb_desc_ring_head_id, "prb_desc_ring.head_id")
		OFF(prb_desc_ring_tail_id, "prb_desc_ring.tail_id")
		OFF(prb_desc_state_var, "prb_desc.state_var")
		OFF(prb_desc_text_blk_lpos, "prb_desc.text_blk_lpos")
		OFF(prb_data_blk_lpos_begin, "prb_data_blk_lpos.begin")
		OFF(prb_data_blk_lpos_next, "prb_data_blk_lpos.next")
		OFF(prb_data_ring_size_bits, "prb_data_ring.size_bits")
		OFF(prb_data_ring_data, "prb_data_ring.data")
		OFF(printk_info_ts_nsec, "printk_info.ts_nsec")
		OFF(printk_info_text_len, "printk_info.text_len")
		OFF(atomic_long_t_counter, "atomic_long_t.counter")
		OFF(latched_seq_val, "latched_seq.val")
	} else if (printk_log) {
		OFF(printk_log_ts_nsec, "printk_log.ts_nsec")
		OFF(printk_log_len, "printk_log.len")
		OFF(printk_log_text_len, "printk_log.text_len")
	} else {
		OFF(log_ts_nsec, "log.ts_nsec") OFF(log_len, "log.len")
		OFF(log_text_len, "log.text_len")
	}
	OFF(vmemmap_backing_phys, "vmemmap_backing.phys")
	OFF(vmemmap_backing_virt_addr, "vmemmap_backing.virt_addr")
	OFF(vmemmap_backing_list, "vmemmap_backing.list")
	OFF(mmu_psize_def_shift, "mmu_psize_def.shift")
	OFF(uts_namespace_name, "uts_namespace.name")
#undef OFF
	if (dk->sym.node_data.set && dk->len.node_data.set)
		tb_add(&t, "LENGTH(node_data)=%lld\n", (long long)FOUND_ARRAY_TYPE);
	if (dk->sym.pgdat_list.set && dk->len.pgdat_list.set)
		tb_add(&t, "LENGTH(pgdat_list)=%lld\n", (long long)FOUND_ARRAY_TYPE);
	if (dk->sym.mem_section.set && dk->len.mem_section.set)
		tb_add(&t, "LENGTH(mem_section)=%lld\n", (long long)dk->len.mem_section.v);
	if (dk->len.zone_free_area.set)
		tb_add(&t, "LENGTH(zone.free_area)=%lld\n", (long long)dk->len.zone_free_area.v);
	if (dk->len.free_area_free_list.set)
		tb_add(&t, "LENGTH(free_area.free_list)=%lld\n",
		       (long long)dk->len.free_area_free_list.v);
#define NUM(ident) \
	if (dk->num.ident.set) \
		tb_add(&t, "NUMBER(%s)=%lld\n", #ident, (long long)dk->num.ident.v);
	NUM(NR_FREE_PAGES) NUM(N_ONLINE)
#undef NUM
	/* the page flags, with 1.7.2's defaults for old kernels */
	pg_lru = dk->num.PG_lru.set ? dk->num.PG_lru.v : PG_LRU_ORIGINAL;
	pg_private = dk->num.PG_private.set ? dk->num.PG_private.v : PG_PRIVATE_ORIGINAL;
	pg_swapcache = dk->num.PG_swapcache.set ? dk->num.PG_swapcache.v : PG_SWAPCACHE_ORIGINAL;
	have_swapbacked = dk->num.PG_swapbacked.set || pg_swapcache < pg_private;
	pg_swapbacked = dk->num.PG_swapbacked.set ? dk->num.PG_swapbacked.v : pg_private + 6;
	pg_slab = dk->num.PG_slab.set ? dk->num.PG_slab.v : PG_SLAB_ORIGINAL;
	pg_head_mask = dk->num.PG_head_mask.set ? dk->num.PG_head_mask.v :
		       dk->num.PG_head.set ? (int64_t)1 << dk->num.PG_head.v :
		       (int64_t)1 << PG_COMPOUND_ORIGINAL;
	tb_add(&t, "NUMBER(PG_lru)=%lld\n", (long long)pg_lru);
	tb_add(&t, "NUMBER(PG_private)=%lld\n", (long long)pg_private);
	tb_add(&t, "NUMBER(PG_head_mask)=%lld\n", (long long)pg_head_mask);
	tb_add(&t, "NUMBER(PG_swapcache)=%lld\n", (long long)pg_swapcache);
	if (have_swapbacked)
		tb_add(&t, "NUMBER(PG_swapbacked)=%lld\n", (long long)pg_swapbacked);
	if (dk->num.PG_buddy.set)
		tb_add(&t, "NUMBER(PG_buddy)=%lld\n", (long long)dk->num.PG_buddy.v);
	tb_add(&t, "NUMBER(PG_slab)=%lld\n", (long long)pg_slab);
	if (dk->num.PG_hwpoison.set)
		tb_add(&t, "NUMBER(PG_hwpoison)=%lld\n", (long long)dk->num.PG_hwpoison.v);
	/* NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE) and PAGE_OFFLINE_MAPCOUNT_VALUE:
	 * 1.7.2 takes them from a note or by the kernel version only, neither
	 * known at that point (our DWARF reading gives them from the enum
	 * pagetype of Linux 6.10 on; 1.7.2 does not look there) */
	if (dk->num.HUGETLB_PAGE_DTOR.set)
		tb_add(&t, "NUMBER(HUGETLB_PAGE_DTOR)=%lld\n", (long long)dk->num.HUGETLB_PAGE_DTOR.v);
	/* phys_base unsigned, as 1.7.2's "%lu" */
	if (phys_base)
		tb_add(&t, "NUMBER(phys_base)=%llu\n", (ull)phys_base);
	if (kernel_offset)
		tb_add(&t, "KERNELOFFSET=%llx\n", (ull)kernel_offset);
	if (dk->srcfile.pud_t[0])
		tb_add(&t, "SRCFILE(pud_t)=%s\n", dk->srcfile.pud_t);
	if (t.over)
		return mdf_err_set(err, MDF_ERR_ARG, "VMCOREINFO text longer than %zu bytes", cap);
	*len_ret = t.len;
	return MDF_OK;
}

/* ---- the notes -------------------------------------------------------- */

/* What the registers need of the vmlinux (upstream's
 * sadump_check_debug_info()), at running addresses. */
struct sk_syms {
	uint64_t cpumask;          /* the online mask's address */
	uint64_t cpumask_size;
	uint64_t per_cpu_offset, nr_per_cpu_offset, per_cpu_load;
	uint64_t crash_notes;
	bool have_bios_cpu_apicid; /* u8 array (before 2.6.30), else */
	uint64_t bios_cpu_apicid;
	uint64_t x86_apicid;       /* per-cpu u16, link-time (a per-cpu offset) */
	uint64_t early_ptr, early_map;
	uint64_t prstatus_size, pr_reg;
	uint64_t reg_off[NREGS];
};

/* A symbol at its running address; false (with @what named) if none. */
static bool sym(struct dwarf_info *dw, const char *name, uint64_t koff, uint64_t *ret,
		const char **missing)
{
	if (dwarf_info_symbol(dw, name, ret, NULL)) {
		*ret += koff;
		return true;
	}
	if (!*missing)
		*missing = name;
	return false;
}

static enum mdf_status type_size(struct dwarf_info *dw, struct dwarf_query *q, uint64_t *ret,
				 struct mdf_err *err)
{
	struct dwarf_type_info ti;

	*ret = 0;
	if (!q->found)
		return MDF_OK;
	if (dwarf_type_describe(dw, q->type, &ti, err) != MDF_OK)
		return err->status;
	*ret = ti.kind == DWARF_T_ARRAY ? ti.count : ti.size;
	return MDF_OK;
}

static enum mdf_status find_syms(struct dwarf_info *dw, uint64_t koff, struct sk_syms *s,
				 const char **missing, struct mdf_err *err)
{
	struct dwarf_query q[] = {
		{ "cpumask", true, false, { 0 } },
		{ "elf_prstatus", true, false, { 0 } },
		{ "user_regs_struct", true, false, { 0 } },
		{ "__per_cpu_offset", false, false, { 0 } },
	};
	struct dwarf_type mt;
	bool found;
	uint64_t v;

	memset(s, 0, sizeof(*s));
	*missing = NULL;
	if (dwarf_info_lookup(dw, q, ARRAY_SIZE(q), err) != MDF_OK)
		return err->status;
	if (type_size(dw, &q[0], &s->cpumask_size, err) != MDF_OK ||
	    type_size(dw, &q[1], &s->prstatus_size, err) != MDF_OK ||
	    type_size(dw, &q[3], &s->nr_per_cpu_offset, err) != MDF_OK)
		return err->status;
	/* the online mask: __cpu_online_mask (4.5 on, commit 5aec01b83417),
	 * else what cpu_online_mask points at */
	if (!sym(dw, "__cpu_online_mask", koff, &s->cpumask, missing)) {
		*missing = NULL;
		if (!sym(dw, "cpu_online_mask", koff, &v, missing))
			return MDF_OK;
		s->cpumask = v | 1; /* a pointer to read: marked by bit 0 */
	}
	if (!s->cpumask_size && !*missing)
		*missing = "struct cpumask";
	if (dwarf_info_symbol(dw, "bios_cpu_apicid", &s->bios_cpu_apicid, NULL)) {
		s->have_bios_cpu_apicid = true;
		s->bios_cpu_apicid += koff;
	} else if (dwarf_info_symbol(dw, "x86_bios_cpu_apicid", &s->x86_apicid, NULL)) {
		sym(dw, "x86_bios_cpu_apicid_early_ptr", koff, &s->early_ptr, missing);
		sym(dw, "x86_bios_cpu_apicid_early_map", koff, &s->early_map, missing);
	} else if (!*missing) {
		*missing = "x86_bios_cpu_apicid";
	}
	sym(dw, "crash_notes", koff, &s->crash_notes, missing);
	sym(dw, "__per_cpu_load", koff, &s->per_cpu_load, missing);
	sym(dw, "__per_cpu_offset", koff, &s->per_cpu_offset, missing);
	if (!s->nr_per_cpu_offset && !*missing)
		*missing = "the length of __per_cpu_offset";
	if (!s->prstatus_size && !*missing)
		*missing = "struct elf_prstatus";
	if (q[1].found) {
		if (dwarf_type_member(dw, q[1].type, "pr_reg", &found, &s->pr_reg, &mt, err) != MDF_OK)
			return err->status;
		if (!found && !*missing)
			*missing = "elf_prstatus.pr_reg";
	}
	for (unsigned i = 0; i < NREGS; i++) {
		found = false;
		if (q[2].found && dwarf_type_member(dw, q[2].type, reg_names[i], &found,
						    &s->reg_off[i], &mt, err) != MDF_OK)
			return err->status;
		if (!found && !*missing)
			*missing = "a member of struct user_regs_struct";
	}
	return MDF_OK;
}

/* The registers of a kernel crash note (@note, CRASH_NOTE_BYTES) into
 * @regs; false when the note is empty or not a "CORE" NT_PRSTATUS of the
 * vmlinux's elf_prstatus. */
static bool regs_from_crash_note(const unsigned char *note, const struct sk_syms *s,
				 uint64_t *regs)
{
	static const unsigned char zero[CRASH_NOTE_BYTES];
	const unsigned char *desc = note + 12 + 8;

	if (!memcmp(note, zero, sizeof(zero)) || load_le32(note) != 5 ||
	    load_le32(note + 4) != s->prstatus_size || load_le32(note + 8) != NT_PRSTATUS ||
	    memcmp(note + 12, "CORE", 5) != 0 || s->prstatus_size > PRSTATUS_SIZE ||
	    s->pr_reg > s->prstatus_size)
		return false;
	for (unsigned i = 0; i < NREGS; i++) {
		uint64_t o = s->pr_reg + s->reg_off[i];

		if (o + 8 > s->prstatus_size)
			return false;
		/* 1.7.2 copies every register but r12, which it leaves 0 (a
		 * slip of copy_regs_from_prstatus()); we copy r12 too */
		regs[i] = load_le64(desc + o);
	}
	return true;
}

static void regs_from_cpu_state(const struct sadump_cpu_state *c, uint64_t *r)
{
	/* SMRAM order: r15 r14 r13 r12 r11 r10 r9 r8 rax rcx rdx rbx rsp rbp rsi rdi */
	static const uint8_t from[16] = { 0, 1, 2, 3, 13, 11, 4, 5, 6, 7, 8, 9, 10, 14, 15, 8 };

	for (unsigned i = 0; i < 16; i++)
		r[i] = c->gpr[from[i]];
	r[16] = c->rip;
	r[17] = c->cs;
	r[18] = c->rflags;
	r[19] = c->gpr[12];
	r[20] = c->ss;
	r[21] = r[22] = 0; /* fs_base, gs_base */
	r[23] = c->ds;
	r[24] = c->es;
	r[25] = c->fs;
	r[26] = c->gs;
}

/* The APIC id of @cpu, which indexes the cpu states. */
static enum mdf_status cpu_apicid(struct readmem *rm, const struct sk_syms *s,
				  const uint64_t *pco, uint64_t koff, uint64_t cpu,
				  uint32_t *ret, struct mdf_err *err)
{
	unsigned char b[8];
	uint64_t addr;

	if (s->have_bios_cpu_apicid) {
		if (readmem_vaddr(rm, s->bios_cpu_apicid + cpu, b, 1, err) != MDF_OK)
			return err->status;
		*ret = b[0];
		return MDF_OK;
	}
	if (readmem_vaddr(rm, s->early_ptr, b, 8, err) != MDF_OK)
		return err->status;
	if (load_le64(b))
		addr = s->early_map + cpu * 2;
	else if (pco[cpu] == s->per_cpu_load)
		return mdf_err_set(err, MDF_ERR_NODATA, "cpu %llu has no per-cpu area", (ull)cpu);
	else
		addr = s->x86_apicid + pco[cpu];
	(void)koff;
	if (readmem_vaddr(rm, addr, b, 2, err) != MDF_OK)
		return err->status;
	*ret = load_le16(b);
	return MDF_OK;
}

/* Append a note (12-byte header, name, descriptor, each padded to 4). */
static void put_note(unsigned char *p, size_t *off, const char *name, uint32_t type,
		     const void *desc, size_t dsz, size_t *desc_off)
{
	size_t nsz = strlen(name) + 1;

	store_le32(p + *off, (uint32_t)nsz);
	store_le32(p + *off + 4, (uint32_t)dsz);
	store_le32(p + *off + 8, type);
	memcpy(p + *off + 12, name, nsz);
	*off += 12 + (size_t)align_up(nsz, 4);
	if (desc_off)
		*desc_off = *off;
	memcpy(p + *off, desc, dsz);
	*off += (size_t)align_up(dsz, 4);
}

enum mdf_status sadump_kernel_notes(struct sadump_info *si, struct cache *cache,
				    struct dwarf_info *dw, const char *vmlinux_name,
				    struct kernel *k, const struct sadump_kernel_loc *loc,
				    char *missing, size_t cap, struct mdf_err *err)
{
	uint64_t koff = loc->kernel_offset;
	struct readmem *rm = &k->rm;
	struct sk_syms s;
	const char *miss = NULL;
	unsigned char *mask = NULL, *notes = NULL;
	uint64_t *pco = NULL;
	struct kinfo *dk = malloc(sizeof(*dk));
	struct dwarf_facts df;
	char *text = malloc(VMCOREINFO_TEXT_MAX);
	size_t text_len = 0, off = 0, vi_off = 0;
	int32_t online = 0;
	char release[65];
	enum mdf_status st;

	missing[0] = '\0';
	if (!dk || !text) {
		st = mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = find_syms(dw, koff, &s, &miss, err);
	if (st != MDF_OK)
		goto out;
	if (!s.cpumask || !s.cpumask_size) {
		st = mdf_err_set(err, MDF_ERR_FORMAT,
				 "%s: the vmlinux has no %s: the online cpus of a sadump dump "
				 "are not known", vmlinux_name,
				 s.cpumask ? "struct cpumask" : "__cpu_online_mask");
		goto out;
	}
	/* sizes from the vmlinux: a 32-bit host must not cut them */
	if (!size_fits(s.cpumask_size) || s.nr_per_cpu_offset > SIZE_MAX / sizeof(*pco)) {
		st = mdf_err_set(err, MDF_ERR_NOMEM,
				 "%s: struct cpumask of 0x%llx bytes or __per_cpu_offset of 0x%llx "
				 "entries does not fit this host's memory", vmlinux_name,
				 (ull)s.cpumask_size,
				 (ull)s.nr_per_cpu_offset);
		goto out;
	}
	mask = malloc((size_t)s.cpumask_size);
	if (!mask) {
		st = mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (s.cpumask & 1) {
		uint64_t p;

		st = readmem_u64(rm, s.cpumask & ~UINT64_C(1), &p, err);
		s.cpumask = p;
	}
	if (st == MDF_OK)
		st = readmem_vaddr(rm, s.cpumask, mask, (size_t)s.cpumask_size, err);
	if (st != MDF_OK) {
		mdf_err_push(err, "%s: the online cpu mask", si->path);
		goto out;
	}
	for (uint64_t c = 0; c < s.cpumask_size * 8; c++)
		online += mask[c / 8] >> (c % 8) & 1;
	if (!online) {
		st = mdf_err_set(err, MDF_ERR_FORMAT, "%s: no cpu is online (__cpu_online_mask is empty)",
				 si->path);
		goto out;
	}
	if (miss) {
		/* as upstream: no notes at all */
		snprintf(missing, cap, "%s", miss);
		sadump_set_notes(si, NULL, 0, 0, 0, online, k->arch.phys_base);
		goto out;
	}
	/* the running release, and the vmlinux's keys for the text */
	memset(release, 0, sizeof(release));
	if (k->ki.sym.init_uts_ns.set) {
		uint64_t va = k->ki.sym.init_uts_ns.v + (k->ki.off.uts_namespace_name.set ?
							  k->ki.off.uts_namespace_name.v : 4) + 2 * 65;

		st = readmem_vaddr(rm, va, release, sizeof(release) - 1, err);
		if (st != MDF_OK) {
			mdf_err_push(err, "%s: init_uts_ns", si->path);
			goto out;
		}
	}
	kinfo_init(dk);
	st = dwarf_info_kinfo(dw, dk, &df, err);
	if (st == MDF_OK)
		st = sadump_vmcoreinfo_text(dk, release, si->block_size, loc->phys_base, koff,
					    text, VMCOREINFO_TEXT_MAX, &text_len, err);
	if (st != MDF_OK)
		goto out;
	pco = calloc((size_t)s.nr_per_cpu_offset, sizeof(*pco));
	notes = calloc(1, (size_t)online * (20 + PRSTATUS_SIZE) + 24 + (size_t)align_up(text_len, 4));
	if (!pco || !notes) {
		st = mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (uint64_t i = 0; i < s.nr_per_cpu_offset; i++) {
		st = readmem_u64(rm, s.per_cpu_offset + 8 * i, &pco[i], err);
		if (st != MDF_OK) {
			mdf_err_push(err, "%s: __per_cpu_offset", si->path);
			goto out;
		}
	}
	for (uint64_t c = 0; c < s.cpumask_size * 8; c++) {
		unsigned char pr[PRSTATUS_SIZE], note[CRASH_NOTE_BYTES];
		uint64_t regs[NREGS], cn;
		struct mdf_err e;
		bool from_note = false;

		if (!(mask[c / 8] >> (c % 8) & 1))
			continue;
		/* crash_notes, when the crashing kernel filled this cpu's */
		if (c < s.nr_per_cpu_offset && pco[c] != s.per_cpu_load &&
		    readmem_u64(rm, s.crash_notes, &cn, &e) == MDF_OK && cn &&
		    readmem_vaddr(rm, cn + pco[c], note, sizeof(note), &e) == MDF_OK)
			from_note = regs_from_crash_note(note, &s, regs);
		if (!from_note) {
			struct sadump_cpu_state cs;
			uint32_t apicid = 0;

			if (c >= s.nr_per_cpu_offset) {
				st = mdf_err_set(err, MDF_ERR_FORMAT,
						 "%s: online cpu %llu past __per_cpu_offset's %llu",
						 si->path, (ull)c, (ull)s.nr_per_cpu_offset);
				goto out;
			}
			st = cpu_apicid(rm, &s, pco, koff, c, &apicid, err);
			if (st == MDF_OK)
				st = sadump_cpu_state(si, cache, apicid, &cs, err);
			if (st != MDF_OK) {
				mdf_err_push(err, "%s: the registers of cpu %llu", si->path, (ull)c);
				goto out;
			}
			regs_from_cpu_state(&cs, regs);
		}
		memset(pr, 0, sizeof(pr));
		for (unsigned i = 0; i < NREGS; i++)
			store_le64(pr + PRSTATUS_REG + 8 * i, regs[i]);
		put_note(notes, &off, "CORE", NT_PRSTATUS, pr, sizeof(pr), NULL);
	}
	put_note(notes, &off, "VMCOREINFO", 0, text, text_len, &vi_off);
	sadump_set_notes(si, notes, off, vi_off, text_len, online, loc->phys_base);
	notes = NULL;
out:
	free(mask);
	free(pco);
	free(notes);
	free(text);
	free(dk);
	return st;
}

/* The RAM bitmap's runs, from @pfn: the next one in [*start, *end). */
static bool next_ram_run(const struct sadump_info *si, uint64_t pfn, uint64_t *start,
			 uint64_t *end)
{
	while (pfn < si->max_mapnr && !sadump_is_ram(si, pfn))
		pfn++;
	if (pfn >= si->max_mapnr)
		return false;
	*start = pfn;
	while (pfn < si->max_mapnr && sadump_is_ram(si, pfn))
		pfn++;
	*end = pfn;
	return true;
}

enum mdf_status sadump_kernel_elf_view(const struct sadump_info *si, struct dwarf_info *dw,
				       struct kernel *k, const struct sadump_kernel_loc *loc,
				       struct elf_info *ei, struct mdf_err *err)
{
	uint64_t ps = k->page_size, koff = loc->kernel_offset;
	uint64_t text = 0, end = 0, pob = 0, start, stop, pfn = 0;
	size_t n = 0, cap = 1;
	bool image;
	struct mdf_err e;

	memset(ei, 0, sizeof(*ei));
	ei->fd = -1;
	ei->path = si->path;
	ei->ei_class = ELFCLASS64;
	ei->ei_data = ELFDATA2LSB;
	ei->e_machine = EM_X86_64;
	image = dwarf_info_symbol(dw, "_text", &text, NULL) &&
		dwarf_info_symbol(dw, "_end", &end, NULL) && end > text;
	/* page_offset_base: a variable since 4.8 (KASLR of the direct map,
	 * commit 021182e52fe0); before, the constant the arch knows */
	mdf_err_clear(&e);
	if (!dwarf_info_symbol(dw, "page_offset_base", &pob, NULL) ||
	    readmem_u64(&k->rm, pob + koff, &pob, &e) != MDF_OK)
		pob = k->arch.page_offset;
	for (uint64_t p = 0; next_ram_run(si, p, &start, &stop); p = stop)
		cap++;
	ei->loads = calloc(cap, sizeof(*ei->loads));
	if (!ei->loads)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	if (image) {
		struct elf_load *l = &ei->loads[n];

		l->phdr_index = (unsigned)(n + 1);
		l->vaddr = text + koff;
		l->paddr = text + koff - START_KERNEL_MAP + loc->phys_base;
		l->filesz = l->memsz = align_up(end - text, ps);
		n++;
	}
	while (next_ram_run(si, pfn, &start, &stop)) {
		struct elf_load *l = &ei->loads[n];

		l->phdr_index = (unsigned)(n + 1);
		l->paddr = start * ps;
		l->vaddr = pob + l->paddr;
		l->filesz = l->memsz = (stop - start) * ps;
		n++;
		pfn = stop;
	}
	ei->nloads = n;
	if (si->notes_len) {
		ei->notes = malloc(si->notes_len);
		if (!ei->notes)
			return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
		memcpy(ei->notes, si->notes, si->notes_len);
		ei->notes_len = si->notes_len;
	}
	return MDF_OK;
}
