/*
 * arch/s390x.c - s390x (IBM Z, 64-bit, big-endian) address translation:
 * the identity map of RAM, the kernel image, and the walk of the kernel's
 * DAT tables (swapper_pg_dir) with 4 KiB pages.
 *
 * Two kernel layouts (arch/s390/include/asm/page.h, arch/s390/boot/startup.c):
 *
 *   before 6.10    one map: va == pa for all RAM ("identity map" at 0), and
 *                  the kernel image runs inside it.  KASLR (s390 has it
 *                  since Linux 5.2) moves the image in physical memory, and
 *                  KERNELOFFSET= says by how much.  vmemmap, vmalloc and
 *                  modules lie above the identity map, in the page tables.
 *   6.10 on        commit c98d2ecae08f ("s390/mm: Uncouple physical vs
 *                  virtual address spaces"): the identity map starts at
 *                  __identity_base (PAGE_OFFSET; random with
 *                  CONFIG_RANDOMIZE_IDENTITY_BASE, else 0) and the image has
 *                  a virtual address of its own at the top of the space,
 *                  above vmemmap, vmalloc and modules.  KERNELOFFSET= is now
 *                  that virtual base (__kaslr_offset, not a shift), and
 *                      pa = va - KERNELOFFSET + __kaslr_offset_phys  (va >= KERNELOFFSET)
 *                      pa = va - __identity_base                     (identity map)
 *                  Commit 378e32aa8197 ("s390/vmcoreinfo: Store virtual
 *                  memory layout"), in the same release, adds the plain keys
 *                  IDENTITYBASE= and KERNELOFFPHYS= (hex, like KERNELOFFSET=):
 *                  with them the root and the identity map's base are known
 *                  without any PT_LOAD.  The same values are in the old kernel's
 *                  os_info (entries IDENTITY_BASE 4, KASLR_OFFSET 5,
 *                  KASLR_OFF_PHYS 6), and the kernel's /proc/vmcore writes
 *                  its PT_LOADs from them: RAM at vaddr = __identity_base +
 *                  paddr, plus one PT_LOAD for the image (_stext to _end at
 *                  __pa(_stext)); before, every PT_LOAD had vaddr == paddr.
 *
 * What tells the two apart, without reading memory (init does no I/O):
 *   - NUMBER(VMALLOC_START), in VMCOREINFO since Linux 6.9 (commit
 *     55c49fee57af, "mm/vmalloc: remove vmap_area_list"): the root table,
 *     SYMBOL(swapper_pg_dir), lies below it before 6.10 and above it (in
 *     the image) since;
 *   - the PT_LOADs: the image's own PT_LOAD (vaddr >= KERNELOFFSET, vaddr !=
 *     paddr) or a shifted identity map mean 6.10 on; PT_LOADs with vaddr ==
 *     paddr that hold swapper_pg_dir's address mean the old layout;
 *   - OSRELEASE, last: 6.10 on, or before.
 * Evidence that disagrees is an error.  Other producers of ELF dumps write
 * PT_LOADs of their own (QEMU's dump-guest-memory writes vaddr 0): a
 * shifted identity map is trusted only next to the kernel's image PT_LOAD,
 * and PT_LOADs that disagree with each other prove no window.
 *
 * The lowcore.  Each CPU addresses its 8 KiB lowcore as real 0-0x1fff; the
 * prefix register moves that to the CPU's own pages in absolute storage
 * (and absolute 0-0x1fff to the CPU's prefix pages).  A dump holds absolute
 * storage, and the kernel maps its identity map onto absolute addresses
 * (its per-CPU lowcores are reached through lowcore_ptr[]), so a
 * translation's result is an absolute address and the prefix plays no part
 * in it.  In a kdump, the capture kernel runs in [0, crashkernel size) and
 * its /proc/vmcore swaps that range back with the crashkernel region
 * (arch/s390/kernel/crash_dump.c, copy_oldmem_iter()): the dump's paddr 0 is
 * the old kernel's absolute 0, the absolute lowcore.  What matters there:
 * its os_info pointer (0xe18), the os_info page it points at (magic
 * "OSINFOSZ", entries of 20 bytes from offset 32: 8-byte value, 8-byte
 * size, 4-byte checksum).  Without KERNELOFFPHYS= and the image's PT_LOAD
 * (a kdump-compressed input of a kernel with the 6.10 layout carried back
 * but not its VMCOREINFO keys) swapper_pg_dir has no known physical
 * address; init_mem then reads KASLR_OFFSET and KASLR_OFF_PHYS from
 * os_info once, as makedumpfile and crash do.
 *
 * DAT (z/Architecture Principles of Operation, "Dynamic Address
 * Translation"; Linux's names in arch/s390/include/asm/pgtable.h).  A
 * virtual address indexes up to five tables: region-first (bits 63-53),
 * region-second (52-42), region-third (41-31), segment (30-20), 2048 entries
 * of 8 bytes each, and the page table (19-12), 256 entries (2 KiB).  Entry
 * bits, as numbers (IBM's bit b is 1 << (63 - b)):
 *   region/segment  0x20 invalid (_REGION_ENTRY_INVALID), 0x0c table type
 *                   (3 region-first ... 0 segment; the type of the table
 *                   holding the entry, set in empty entries too), 0x400 FC
 *                   (a 2 GiB frame in a region-third entry with EDAT-2, a 1
 *                   MiB frame in a segment entry with EDAT-1); a region
 *                   entry gives the next table's origin (bits 63-12), its
 *                   offset 0xc0 and length 0x03 in 4 KiB blocks (512
 *                   entries): the next index's top two bits must lie in
 *                   [offset, length]; a segment entry gives the page table's
 *                   origin (bits 63-11)
 *   page            0x400 invalid (_PAGE_INVALID), 0x800 must be zero,
 *                   frame in bits 63-12
 * The top table's type and length are in the ASCE, which VMCOREINFO does
 * not give; like the kernel's own walkers and the readers (crash,
 * libkdumpfile, drgn), the walk takes the type from entry 0 of
 * swapper_pg_dir (Linux fills every entry, empty ones with the type and
 * the invalid bit) and takes the table as full (Linux allocates region and
 * segment tables of 2048 entries).  The kernel's own tables are region-third
 * (3 levels, 4 TiB) or region-second (4 levels, 8 PiB); any of the four
 * types is walked.  An invalid entry at any level is "not mapped", as the
 * hardware sees it; Linux also marks "old" user pages invalid, which
 * matters for nothing the kernel maps.
 */
#include "arch/arch.h"

#include <elf.h>

#include "util.h"

#ifndef EM_S390
#define EM_S390 22
#endif

#define S390X_PAGE_SHIFT 12
#define S390X_RSTE_INVALID 0x20ULL
#define S390X_RSTE_TT(e) (((e) >> 2) & 3)
#define S390X_RSTE_TF(e) (((e) >> 6) & 3)
#define S390X_RSTE_TL(e) ((e) & 3)
#define S390X_RSTE_FC 0x400ULL
#define S390X_RTE_ORIGIN (~0xfffULL)
#define S390X_STE_ORIGIN (~0x7ffULL)
#define S390X_PTE_INVALID 0x400ULL
#define S390X_PTE_ZERO 0x800ULL
#define S390X_PTE_ORIGIN (~0xfffULL)
#define S390X_SEG_FRAME_SHIFT 20      /* 1 MiB */
#define S390X_R3_FRAME_SHIFT 31       /* 2 GiB */
#define S390X_TT_REGION1 3

/* The absolute lowcore's os_info pointer and the os_info page
 * (arch/s390/include/asm/os_info.h, lowcore.h). */
#define S390X_LC_OS_INFO 0xe18ULL
#define S390X_OS_INFO_MAGIC 0x4f53494e464f535aULL /* "OSINFOSZ" */
#define S390X_OS_INFO_ENTRY(i) (32ULL + 20ULL * (i))
#define S390X_OS_INFO_KASLR_OFFSET 5
#define S390X_OS_INFO_KASLR_OFF_PHYS 6

/* The table holding entries of type tt. */
static const char *s390x_table_name(unsigned tt)
{
	static const char names[][14] = { "segment", "region-third", "region-second",
					  "region-first" };

	return names[tt & 3];
}

/* Bits below the index of level @l (0 = page table, 1 = segment table, 2
 * region-third, ...). */
static unsigned s390x_shift(unsigned l)
{
	return l == 0 ? S390X_PAGE_SHIFT : S390X_SEG_FRAME_SHIFT + 11 * (l - 1);
}

static uint64_t s390x_index(uint64_t vaddr, unsigned l)
{
	return (vaddr >> s390x_shift(l)) & (l == 0 ? 0xffULL : 0x7ffULL);
}

/* The PT_LOAD hints, sorted into the image's (text) and the identity
 * map's (lh). */
struct s390x_hints {
	struct arch_linear_hints lh;
	bool have_text;
	size_t text_i;
	uint64_t text_delta;
};

static enum mdf_status s390x_sort_hints(struct arch_state *st, const struct kinfo *ki,
					const struct arch_seg_hint *segs, size_t nsegs,
					struct s390x_hints *hs, struct mdf_err *err)
{
	uint64_t kofs = ki->kernel_offset.v;
	/* Only a 6.10 layout has an image PT_LOAD, and its KERNELOFFSET is
	 * the image's virtual base, never 0; an old kernel's KERNELOFFSET is
	 * a shift and may be 0 (no KASLR). */
	bool image_hints = ki->kernel_offset.set && kofs != 0;

	for (size_t i = 0; i < nsegs; i++) {
		const struct arch_seg_hint *h = &segs[i];
		uint64_t delta = h->vaddr - h->paddr;

		if (h->size == 0)
			continue;
		if (image_hints && h->vaddr >= kofs && delta != 0) {
			if (hs->have_text && delta != hs->text_delta)
				return mdf_err_set(err, MDF_ERR_FORMAT,
						   "PT_LOADs %zu and %zu both map the kernel image (above KERNELOFFSET=0x%llx), at offsets 0x%llx and 0x%llx",
						   hs->text_i, i, (unsigned long long)kofs,
						   (unsigned long long)hs->text_delta,
						   (unsigned long long)delta);
			if (!hs->have_text) {
				hs->have_text = true;
				hs->text_i = i;
				hs->text_delta = delta;
				arch_text_hint(st, h);
			}
			continue;
		}
		arch_linear_hint(&hs->lh, h);
	}
	return MDF_OK;
}

enum s390x_layout { S390X_UNKNOWN, S390X_FLAT, S390X_SPLIT };

static const char *s390x_layout_name(enum s390x_layout l)
{
	return l == S390X_SPLIT ? "the split layout of Linux 6.10 on"
				: "the identity-mapped layout before Linux 6.10";
}

/*
 * Which layout: VMCOREINFO's word (swapper_pg_dir against VMALLOC_START),
 * else the PT_LOADs', else OSRELEASE's.  Evidence that disagrees is an
 * error, except an old release with the new layout (a distribution may
 * carry the 6.10 change back).
 */
static enum mdf_status s390x_layout(const struct kinfo *ki, const struct s390x_hints *hs,
				    enum s390x_layout *ret, struct mdf_err *err)
{
	unsigned kver = util_parse_kver(ki->osrelease);
	uint64_t swapper = ki->sym.swapper_pg_dir.v;
	enum s390x_layout vi = S390X_UNKNOWN, hint = S390X_UNKNOWN, ver = S390X_UNKNOWN;
	bool lin_ok = hs->lh.have && !hs->lh.conflict;

	if (ki->sym.swapper_pg_dir.set && ki->num.VMALLOC_START.set)
		vi = swapper >= (uint64_t)ki->num.VMALLOC_START.v ? S390X_SPLIT : S390X_FLAT;
	if (hs->have_text || (lin_ok && hs->lh.delta != 0))
		hint = S390X_SPLIT;
	else if (lin_ok && ki->sym.swapper_pg_dir.set &&
		 swapper - hs->lh.ram_start < hs->lh.ram_end - hs->lh.ram_start)
		hint = S390X_FLAT;
	if (kver)
		ver = kver >= util_kver(6, 10, 0) ? S390X_SPLIT : S390X_FLAT;

	if (vi != S390X_UNKNOWN && hint != S390X_UNKNOWN && vi != hint)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "SYMBOL(swapper_pg_dir)=0x%llx and NUMBER(VMALLOC_START)=0x%llx say %s, the PT_LOADs say %s",
				   (unsigned long long)swapper,
				   (unsigned long long)ki->num.VMALLOC_START.v,
				   s390x_layout_name(vi), s390x_layout_name(hint));
	if (ver == S390X_SPLIT && (vi == S390X_FLAT || hint == S390X_FLAT))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "Linux %s, but %s say %s (SYMBOL(swapper_pg_dir)=0x%llx)",
				   ki->osrelease,
				   vi == S390X_FLAT ? "VMCOREINFO's numbers" : "the PT_LOADs",
				   s390x_layout_name(S390X_FLAT), (unsigned long long)swapper);
	*ret = vi != S390X_UNKNOWN ? vi : hint != S390X_UNKNOWN ? hint : ver;
	return MDF_OK;
}

static enum mdf_status s390x_set_root(struct arch_state *st, uint64_t pa,
				      const struct kinfo *ki, struct mdf_err *err)
{
	if (pa & ((1ULL << S390X_PAGE_SHIFT) - 1))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "SYMBOL(swapper_pg_dir)=0x%llx is at paddr 0x%llx, not on a 4 KiB boundary (a DAT table origin is)",
				   (unsigned long long)ki->sym.swapper_pg_dir.v,
				   (unsigned long long)pa);
	st->pgd_paddr = pa;
	st->have_pgd = true;
	return MDF_OK;
}

static enum mdf_status s390x_init(struct arch_state *st, const struct kinfo *ki,
				  const struct arch_seg_hint *segs, size_t nsegs,
				  struct mdf_err *err)
{
	unsigned kver = util_parse_kver(ki->osrelease);
	bool have_swapper = ki->sym.swapper_pg_dir.set;
	uint64_t swapper = ki->sym.swapper_pg_dir.v;
	struct s390x_hints hs = { .lh = ARCH_LINEAR_HINTS_INIT };
	bool lin_ok;
	enum s390x_layout layout = S390X_UNKNOWN;
	enum mdf_status s;

	if (arch_page_size_4k(st, ki, err) != MDF_OK)
		return err->status;
	/* MAX_PHYSMEM_BITS is CONFIG_MAX_PHYSMEM_BITS (42 to 53, default 46)
	 * in asm/sparsemem.h; a fixed 46 since Linux 3.3, 42 before (as
	 * makedumpfile has it).  The levels and VA size are the top table's
	 * type, which each walk reads (st->levels and va_bits stay 0). */
	s = arch_physmem_bits(st, ki, 53, err);
	if (s != MDF_OK)
		return s;
	if (!ki->num.MAX_PHYSMEM_BITS.set)
		st->max_physmem_bits = kver && kver < util_kver(3, 3, 0) ? 42 : 46;
	/* Physical addresses are absolute addresses: makedumpfile writes a
	 * phys_base of 0. */
	st->phys_base = 0;
	st->have_phys_base = true;
	/* SYMBOL(vmemmap), in VMCOREINFO since Linux 6.9 (commit d3246b6ee42a,
	 * "crash_core: export vmemmap when CONFIG_SPARSEMEM_VMEMMAP is
	 * enabled"), is the base itself: s390's vmemmap is a variable. */
	if (ki->sym.vmemmap.set) {
		st->vmemmap_base = ki->sym.vmemmap.v;
		st->vmemmap_exact = true;
	}

	s = s390x_sort_hints(st, ki, segs, nsegs, &hs, err);
	if (s == MDF_OK)
		s = s390x_layout(ki, &hs, &layout, err);
	if (s != MDF_OK)
		return s;
	lin_ok = hs.lh.have && !hs.lh.conflict;

	if (layout == S390X_FLAT) {
		/* The image and all RAM at va == pa, the root included. */
		st->page_offset = 0;
		st->page_offset_exact = true;
		if (lin_ok && hs.lh.delta == 0) {
			st->direct.valid = true;
			st->direct.vaddr = hs.lh.ram_start;
			st->direct.size = hs.lh.ram_end - hs.lh.ram_start;
			st->direct.paddr = hs.lh.ram_start;
		}
		if (have_swapper)
			return s390x_set_root(st, swapper, ki, err);
		return MDF_OK;
	}
	if (layout != S390X_SPLIT)
		return MDF_OK;	/* nothing to go by: the walk says what is missing */

	/* 6.10 on: the identity map's PT_LOADs are the kernel's own only next
	 * to its image PT_LOAD; their offset is __identity_base, which
	 * IDENTITYBASE= says too (and must agree). */
	if (ki->identity_base.set) {
		if (hs.have_text && lin_ok && hs.lh.delta != ki->identity_base.v)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "IDENTITYBASE=0x%llx, but the PT_LOADs map RAM at offset 0x%llx",
					   (unsigned long long)ki->identity_base.v,
					   (unsigned long long)hs.lh.delta);
		st->page_offset = ki->identity_base.v;
		st->page_offset_exact = true;
	}
	if (hs.have_text && lin_ok) {
		st->page_offset = hs.lh.delta;
		st->page_offset_exact = true;
		st->direct.valid = true;
		st->direct.vaddr = hs.lh.ram_start + hs.lh.delta;
		st->direct.size = hs.lh.ram_end - hs.lh.ram_start;
		st->direct.paddr = hs.lh.ram_start;
	}
	if (!have_swapper)
		return MDF_OK;
	if (ki->kernel_offset.set && swapper < ki->kernel_offset.v)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "SYMBOL(swapper_pg_dir)=0x%llx is below KERNELOFFSET=0x%llx, the kernel image's virtual base",
				   (unsigned long long)swapper,
				   (unsigned long long)ki->kernel_offset.v);
	/* The image maps linearly from KERNELOFFSET on (__pa()), with the
	 * offset of its PT_LOAD, or KERNELOFFPHYS= (which must agree). */
	if (ki->kernel_offset.set && ki->kernel_off_phys.set) {
		uint64_t delta = ki->kernel_offset.v - ki->kernel_off_phys.v;

		if (hs.have_text && hs.text_delta != delta)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "KERNELOFFSET=0x%llx and KERNELOFFPHYS=0x%llx, but the kernel image's PT_LOAD is at offset 0x%llx",
					   (unsigned long long)ki->kernel_offset.v,
					   (unsigned long long)ki->kernel_off_phys.v,
					   (unsigned long long)hs.text_delta);
		return s390x_set_root(st, swapper - delta, ki, err);
	}
	if (hs.have_text)
		return s390x_set_root(st, swapper - hs.text_delta, ki, err);
	if (ki->kernel_offset.set) {
		st->s390x.root_via_os_info = true;
		st->s390x.swapper_va = swapper;
		st->s390x.kernel_offset = ki->kernel_offset.v;
	}
	return MDF_OK;
}

/* 6.10 on without the image's PT_LOAD or KERNELOFFPHYS=: swapper_pg_dir's
 * physical address from the old kernel's os_info, which the absolute
 * lowcore points at. */
static enum mdf_status s390x_root_from_os_info(const struct arch_state *st,
					       arch_read_pte_fn rd, void *arg,
					       uint64_t *root, struct mdf_err *err)
{
	uint64_t oi, magic, kofs, kphys, at;
	enum mdf_status s;

	at = S390X_LC_OS_INFO;
	s = rd(arg, at, 8, &oi, err);
	if (s == MDF_OK && (oi == 0 || (oi & 0xfff)))
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "the lowcore's os_info pointer at paddr 0x%llx is 0x%llx, not a page",
				   (unsigned long long)at, (unsigned long long)oi);
	if (s == MDF_OK) {
		at = oi;
		s = rd(arg, at, 8, &magic, err);
	}
	if (s == MDF_OK && magic != S390X_OS_INFO_MAGIC)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "no os_info magic at paddr 0x%llx: 0x%llx",
				   (unsigned long long)at, (unsigned long long)magic);
	if (s == MDF_OK) {
		at = oi + S390X_OS_INFO_ENTRY(S390X_OS_INFO_KASLR_OFFSET);
		s = rd(arg, at, 8, &kofs, err);
	}
	if (s == MDF_OK) {
		at = oi + S390X_OS_INFO_ENTRY(S390X_OS_INFO_KASLR_OFF_PHYS);
		s = rd(arg, at, 8, &kphys, err);
	}
	if (s != MDF_OK)
		return mdf_err_push(err, "os_info at paddr 0x%llx", (unsigned long long)at);
	if (kofs != st->s390x.kernel_offset)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "os_info at paddr 0x%llx has the kernel image at 0x%llx, KERNELOFFSET=0x%llx",
				   (unsigned long long)oi, (unsigned long long)kofs,
				   (unsigned long long)st->s390x.kernel_offset);
	*root = st->s390x.swapper_va - kofs + kphys;
	if (*root & 0xfff)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "os_info's KASLR_OFF_PHYS 0x%llx puts swapper_pg_dir at paddr 0x%llx, not on a 4 KiB boundary",
				   (unsigned long long)kphys, (unsigned long long)*root);
	return MDF_OK;
}

/* The levels of the kernel's tables: the table-type bits of entry 0 of
 * the top table at @root (Linux fills every entry, empty ones too). */
static enum mdf_status s390x_top_levels(uint64_t root, arch_read_pte_fn rd, void *arg,
					unsigned *levels, struct mdf_err *err)
{
	uint64_t e0;
	enum mdf_status s = rd(arg, root, 8, &e0, err);

	if (s == MDF_OK)
		*levels = (unsigned)S390X_RSTE_TT(e0) + 2;
	return s;
}

/*
 * Once the dump can be read: the root from os_info when init could not
 * place it, and the top table's type (entry 0 of swapper_pg_dir), so that
 * no walk reads either again.  What cannot be read is left for the walk
 * to report.
 */
static enum mdf_status s390x_init_mem(struct arch_state *st, arch_read_pte_fn rd,
				      void *arg, struct mdf_err *err)
{
	struct mdf_err lerr;
	uint64_t root = 0;

	(void)err;
	if (!st->have_pgd && st->s390x.root_via_os_info) {
		if (s390x_root_from_os_info(st, rd, arg, &root, &lerr) == MDF_OK) {
			st->pgd_paddr = root;
			st->have_pgd = true;
		} else {
			mdf_err_keep(&lerr, st->s390x.why, sizeof(st->s390x.why));
		}
	}
	if (st->have_pgd &&
	    s390x_top_levels(st->pgd_paddr, rd, arg, &st->levels, &lerr) == MDF_OK)
		st->va_bits = s390x_shift(st->levels - 1) + 11;
	return MDF_OK;
}

static enum mdf_status s390x_not_mapped(uint64_t vaddr, const char *name, uint64_t e,
					uint64_t ep, const char *why, struct mdf_err *err)
{
	return mdf_err_set(err, MDF_ERR_NODATA,
			   "virtual address 0x%llx not mapped (%s entry 0x%llx at paddr 0x%llx %s)",
			   (unsigned long long)vaddr, name, (unsigned long long)e,
			   (unsigned long long)ep, why);
}

static enum mdf_status s390x_walk(const struct arch_state *st, uint64_t vaddr,
				  arch_read_pte_fn rd, void *arg,
				  struct arch_walk *walk, struct mdf_err *err)
{
	uint64_t table = st->pgd_paddr;
	unsigned top, levels = st->levels;
	enum mdf_status s;

	if (!st->have_pgd && st->s390x.why[0])
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx: no page-table root (%s)",
				   (unsigned long long)vaddr, st->s390x.why);
	if (!st->have_pgd)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx: no page-table root (VMCOREINFO needs SYMBOL(swapper_pg_dir) and, since Linux 6.10, KERNELOFFSET with KERNELOFFPHYS, the kernel image's PT_LOAD or the lowcore's os_info; OSRELEASE or NUMBER(VMALLOC_START) says which)",
				   (unsigned long long)vaddr);
	/* The top table's type: the table-type bits of its entry 0 (init_mem
	 * read it, unless it did not run or could not). */
	if (!levels && s390x_top_levels(table, rd, arg, &levels, err) != MDF_OK)
		return mdf_err_push(err, "virtual address 0x%llx: table type from entry 0 of swapper_pg_dir at paddr 0x%llx",
				    (unsigned long long)vaddr, (unsigned long long)table);
	top = levels - 2;
	if (top != S390X_TT_REGION1 && (vaddr >> (s390x_shift(levels - 1) + 11)) != 0)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx is beyond the kernel's %u-level tables (a %s table on top)",
				   (unsigned long long)vaddr, levels, s390x_table_name(top));

	for (unsigned l = levels - 1;; l--) {
		uint64_t ep = table + s390x_index(vaddr, l) * 8, e;
		const char *name = arch_level_name(levels, l);

		s = arch_walk_read(walk, name, ep, vaddr, rd, arg, &e, err);
		if (s != MDF_OK)
			return s;
		if (l == 0) {
			if (e & S390X_PTE_INVALID)
				return s390x_not_mapped(vaddr, name, e, ep, "not valid", err);
			if (e & S390X_PTE_ZERO)
				return s390x_not_mapped(vaddr, name, e, ep,
							"has bit 52 set, a translation-specification exception",
							err);
			walk->map_size = 1ULL << S390X_PAGE_SHIFT;
			walk->paddr = (e & S390X_PTE_ORIGIN) | (vaddr & (walk->map_size - 1));
			return MDF_OK;
		}
		if (e & S390X_RSTE_INVALID)
			return s390x_not_mapped(vaddr, name, e, ep, "not valid", err);
		if (S390X_RSTE_TT(e) != l - 1)
			return mdf_err_set(err, MDF_ERR_NODATA,
					   "virtual address 0x%llx not mapped (%s entry 0x%llx at paddr 0x%llx has the table type of a %s table, in a %s table)",
					   (unsigned long long)vaddr, name,
					   (unsigned long long)e, (unsigned long long)ep,
					   s390x_table_name((unsigned)S390X_RSTE_TT(e)),
					   s390x_table_name(l - 1));
		if ((l == 1 || l == 2) && (e & S390X_RSTE_FC)) {
			unsigned shift = l == 1 ? S390X_SEG_FRAME_SHIFT : S390X_R3_FRAME_SHIFT;
			uint64_t size = 1ULL << shift;

			walk->map_size = size;
			walk->paddr = (e & ~(size - 1)) | (vaddr & (size - 1));
			return MDF_OK;
		}
		if (l == 1) {
			table = e & S390X_STE_ORIGIN;
			continue;
		}
		/* A region entry limits the next table to the 4 KiB blocks
		 * [offset, length]. */
		{
			unsigned blk = (unsigned)(s390x_index(vaddr, l - 1) >> 9);

			if (blk < S390X_RSTE_TF(e) || blk > S390X_RSTE_TL(e))
				return mdf_err_set(err, MDF_ERR_NODATA,
						   "virtual address 0x%llx not mapped (%s entry 0x%llx at paddr 0x%llx limits the %s table to blocks %u-%u, index 0x%llx is in block %u)",
						   (unsigned long long)vaddr, name,
						   (unsigned long long)e, (unsigned long long)ep,
						   s390x_table_name(l - 2),
						   (unsigned)S390X_RSTE_TF(e),
						   (unsigned)S390X_RSTE_TL(e),
						   (unsigned long long)s390x_index(vaddr, l - 1), blk);
		}
		table = e & S390X_RTE_ORIGIN;
	}
}

/*
 * For -x without a note: SECTION_SIZE_BITS is 28 (since Linux 2.6.27) and
 * 27 since Linux 6.13 (commit e3a6970b7daf, "s390/sparsemem: Reduce section
 * size to 128 MiB").  VMCOREINFO carries it since Linux 5.13 (commit
 * 4f5aecdff25f, "crash_core, vmcoreinfo: append 'SECTION_SIZE_BITS' to
 * vmcoreinfo"), so only -x without a note needs this.  Without a release,
 * nothing is guessed.
 * MAX_PHYSMEM_BITS is a config option (init's default).  KERNELOFFSET is
 * not guessed from the image's PT_LOAD: since 6.10 it is the image's
 * virtual base, not a shift of the link-time addresses.
 */
static void s390x_debuginfo_defaults(struct kinfo *ki, uint64_t text,
				     const struct arch_seg_hint *segs, size_t nsegs)
{
	unsigned kver = util_parse_kver(ki->osrelease);

	(void)text;
	(void)segs;
	(void)nsegs;
	if (!ki->num.SECTION_SIZE_BITS.set && kver) {
		ki->num.SECTION_SIZE_BITS.v = kver >= util_kver(6, 13, 0) ? 27 : 28;
		ki->num.SECTION_SIZE_BITS.set = true;
	}
}

const struct arch_ops arch_s390x_ops = {
	.name = "s390x",
	.e_machine = EM_S390,
	.uts_machine = "s390x",
	.init = s390x_init,
	.init_mem = s390x_init_mem,
	.walk = s390x_walk,
	.debuginfo_defaults = s390x_debuginfo_defaults,
};
