/*
 * arch/ppc64.c - ppc64 (Book3S-64: Debian's ppc64el, and big-endian ppc64
 * kernels, whose dumps are read in their byte order) address translation: the linear map, the kernel's four-level tables under the
 * radix MMU (POWER9 and later) and under the hash MMU (POWER8), and the
 * vmemmap through vmemmap_list.
 *
 * Layout facts (arch/powerpc/include/asm/book3s/64/ in the kernel):
 *   linear map     pa = va - 0xc000000000000000, all RAM; the kernel image
 *                  runs inside it (no KASLR on Book3S-64)
 *   vmalloc, io    the kernel's page tables (swapper_pg_dir, in the image)
 *   vmemmap        radix: the page tables; hash: bolted into the hash page
 *                  table only, so the kernel keeps vmemmap_list, a list of
 *                  {phys, virt_addr} blocks of 1 << mmu_psize_defs[
 *                  mmu_vmemmap_psize].shift bytes
 * Table entries are big-endian in memory whatever the kernel's byte order
 * (since Linux 4.7: pte_t is a __be64, asm/pgtable-be-types.h); a table
 * entry holds the next table's physical
 * address under the bits 0xc0000000000000ff; a leaf has _PAGE_PTE (bit 62)
 * at any level, _PAGE_PRESENT (bit 63), and its RPN in bits
 * [52:PAGE_SHIFT] (since Linux 4.11).  Bits each level indexes (PTE, PMD,
 * PUD, PGD): radix 5/9/9/13 with 64 KiB pages and 9/9/9/13 with 4 KiB;
 * hash 8/10/10/8 with 64 KiB pages (H_PUD_INDEX_SIZE 10 since Linux 4.17,
 * 7 in 4.12-4.16) and 9/7/9/9 with 4 KiB.
 * vmemmap_list and the mmu_psize_def facts are in VMCOREINFO; so is
 * NUMBER(RADIX_MMU) since Linux 6.7 (commit 36e826b568e4, "powerpc/vmcore:
 * Add MMU information to vmcoreinfo", also in 6.6.y).  Before, the walk
 * tells the two apart: the radix tables map the linear map, so entry 0 of
 * swapper_pg_dir (0xc000000000000000 on) is set; the hash MMU bolts the
 * linear map into the hash table and leaves that entry empty (with 64
 * KiB pages; a 4 KiB hash kernel's tables cover 46 bits, and vmalloc
 * lands in entry 0 too: there only RADIX_MMU tells).  Radix
 * kernels keep the vmemmap in the page tables only since commit
 * 368a0590d954 ("powerpc/book3s64/vmemmap: switch radix to use a different
 * vmemmap handling function"); 6.1's radix vmemmap_list is still filled.
 */
#include "arch/arch.h"

#include <elf.h>
#include <stdlib.h>

#include "util.h"

#define PPC64_PAGE_OFFSET 0xc000000000000000ULL
#define PPC64_PRESENT (1ULL << 63)
#define PPC64_LEAF (1ULL << 62)
#define PPC64_TABLE_FLAGS 0xc0000000000000ffULL
#define PPC64_RPN_BITS 53
/* A loop in a corrupt vmemmap_list ends here. */
#define PPC64_VMEMMAP_MAX 1000000

static enum mdf_status ppc64_geometry(struct arch_state *st, const struct kinfo *ki,
				      struct mdf_err *err)
{
	static const unsigned radix64k[4] = { 5, 9, 9, 13 }, radix4k[4] = { 9, 9, 9, 13 };
	static const unsigned hash64k[4] = { 8, 10, 10, 8 }, hash64k_412[4] = { 8, 10, 7, 8 };
	static const unsigned hash4k[4] = { 9, 7, 9, 9 };
	uint64_t ps = ki->page_size.set ? ki->page_size.v : 65536;
	unsigned kver = util_parse_kver(ki->osrelease);
	const unsigned *hash, *radix;

	if (ps != 4096 && ps != 65536)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "PAGESIZE=%llu in VMCOREINFO, expected 65536 or 4096",
				   (unsigned long long)ps);
	st->page_size = ps;
	st->page_shift = (unsigned)__builtin_ctzll(ps);
	if (kver && kver < util_kver(4, 12, 0))
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "Linux %s: page tables before 4.12 are not supported",
				   ki->osrelease);
	if (ki->num.RADIX_MMU.set)
		st->ppc64_mmu = ki->num.RADIX_MMU.v == 1 ? PPC64_MMU_RADIX : PPC64_MMU_HASH;
	radix = ps == 65536 ? radix64k : radix4k;
	if (ps == 4096)
		hash = hash4k;
	else
		hash = kver && kver < util_kver(4, 17, 0) ? hash64k_412 : hash64k;
	for (unsigned l = 0; l < 4; l++) {
		st->ppc64_index_bits[0][l] = hash[l];
		st->ppc64_index_bits[1][l] = radix[l];
	}
	st->levels = 4;
	st->va_bits = 64;	/* the top level drops the bits above its index */
	/* MAX_PHYSMEM_BITS is 51 since Linux 4.20 with 64 KiB pages. */
	return arch_physmem_bits(st, ki, 51, err);
}

static void ppc64_vmemmap_facts(struct arch_state *st, const struct kinfo *ki)
{
	if (!ki->sym.vmemmap_list.set || !ki->sym.mmu_vmemmap_psize.set ||
	    !ki->sym.mmu_psize_defs.set || !ki->size.mmu_psize_def.set ||
	    !ki->off.mmu_psize_def_shift.set || !ki->off.vmemmap_backing_list.set ||
	    !ki->off.vmemmap_backing_phys.set || !ki->off.vmemmap_backing_virt_addr.set)
		return;
	st->ppc64_vmemmap.valid = true;
	st->ppc64_vmemmap.head_pa = ki->sym.vmemmap_list.v - PPC64_PAGE_OFFSET;
	st->ppc64_vmemmap.psize_pa = ki->sym.mmu_vmemmap_psize.v - PPC64_PAGE_OFFSET;
	st->ppc64_vmemmap.psize_defs_pa = ki->sym.mmu_psize_defs.v - PPC64_PAGE_OFFSET;
	st->ppc64_vmemmap.size_psize_def = ki->size.mmu_psize_def.v;
	st->ppc64_vmemmap.off_shift = ki->off.mmu_psize_def_shift.v;
	st->ppc64_vmemmap.off_list = ki->off.vmemmap_backing_list.v;
	st->ppc64_vmemmap.off_phys = ki->off.vmemmap_backing_phys.v;
	st->ppc64_vmemmap.off_virt = ki->off.vmemmap_backing_virt_addr.v;
}

static enum mdf_status ppc64_init(struct arch_state *st, const struct kinfo *ki,
				  const struct arch_seg_hint *segs, size_t nsegs,
				  struct mdf_err *err)
{
	enum mdf_status s = ppc64_geometry(st, ki, err);

	(void)segs;
	(void)nsegs;
	if (s != MDF_OK)
		return s;
	/* The linear map is fixed: every physical address the machine can
	 * have, from PAGE_OFFSET (vmalloc starts above it). */
	st->page_offset = PPC64_PAGE_OFFSET;
	st->page_offset_exact = true;
	st->direct.valid = true;
	st->direct.vaddr = PPC64_PAGE_OFFSET;
	st->direct.size = 1ULL << st->max_physmem_bits;
	st->direct.paddr = 0;
	st->have_phys_base = true;	/* makedumpfile writes 0 there */
	if (ki->sym.swapper_pg_dir.set && ki->sym.swapper_pg_dir.v >= PPC64_PAGE_OFFSET &&
	    ki->sym.swapper_pg_dir.v - PPC64_PAGE_OFFSET < st->direct.size) {
		st->pgd_paddr = ki->sym.swapper_pg_dir.v - PPC64_PAGE_OFFSET;
		st->have_pgd = true;
	}
	ppc64_vmemmap_facts(st, ki);
	return MDF_OK;
}

/* Entries are big-endian whatever the kernel's order; the reader gives the
 * 8 bytes in the dump's order, so a ppc64le dump's need swapping. */
static enum mdf_status ppc64_entry(const struct arch_state *st,
				   struct arch_walk *walk, const char *level,
				   uint64_t ep, uint64_t vaddr, arch_read_pte_fn rd,
				   void *arg, uint64_t *e, struct mdf_err *err)
{
	enum mdf_status s = arch_walk_read(walk, level, ep, vaddr, rd, arg, e, err);

	if (s == MDF_OK && !st->big_endian) {
		*e = __builtin_bswap64(*e);
		walk->step[walk->nsteps - 1].entry = *e;
	}
	return s;
}

/* Radix or hash: VMCOREINFO's word or what init_mem found, else (init_mem
 * did not run) entry 0 of swapper_pg_dir. */
static enum mdf_status ppc64_is_radix(const struct arch_state *st, arch_read_pte_fn rd,
				      void *arg, bool *radix, struct mdf_err *err)
{
	uint64_t e;

	if (st->ppc64_mmu != PPC64_MMU_UNKNOWN) {
		*radix = st->ppc64_mmu == PPC64_MMU_RADIX;
		return MDF_OK;
	}
	if (rd(arg, st->pgd_paddr, 8, &e, err) != MDF_OK)
		return mdf_err_push(err, "swapper_pg_dir at paddr 0x%llx",
				    (unsigned long long)st->pgd_paddr);
	*radix = e != 0;
	return MDF_OK;
}

static enum mdf_status ppc64_table_walk(const struct arch_state *st, uint64_t vaddr,
					arch_read_pte_fn rd, void *arg,
					struct arch_walk *walk, struct mdf_err *err)
{
	uint64_t table = st->pgd_paddr;
	uint64_t rpn_mask = ((1ULL << PPC64_RPN_BITS) - 1) & ~(st->page_size - 1);
	const unsigned *bits;
	bool radix = false;
	enum mdf_status s = ppc64_is_radix(st, rd, arg, &radix, err);

	if (s != MDF_OK)
		return s;
	bits = st->ppc64_index_bits[radix];
	for (unsigned l = st->levels - 1;; l--) {
		unsigned shift = st->page_shift;
		uint64_t idx, ep, e;
		const char *name = arch_level_name(st->levels, l);

		for (unsigned i = 0; i < l; i++)
			shift += bits[i];
		idx = (vaddr >> shift) & ((1ULL << bits[l]) - 1);
		ep = table + idx * 8;
		s = ppc64_entry(st, walk, name, ep, vaddr, rd, arg, &e, err);
		if (s != MDF_OK)
			return s;
		if (e == 0 || (l == 0 && !(e & PPC64_PRESENT)) ||
		    ((e & PPC64_LEAF) && !(e & PPC64_PRESENT)))
			return mdf_err_set(err, MDF_ERR_NODATA,
					   "virtual address 0x%llx not mapped (%s entry 0x%llx at paddr 0x%llx not valid)",
					   (unsigned long long)vaddr, name,
					   (unsigned long long)e, (unsigned long long)ep);
		if (l == 0 || (e & PPC64_LEAF)) {
			uint64_t size = 1ULL << shift;

			walk->map_size = size;
			walk->paddr = (e & rpn_mask & ~(size - 1)) | (vaddr & (size - 1));
			return MDF_OK;
		}
		table = e & ~PPC64_TABLE_FLAGS;
	}
}

/* The 4-byte int at @pa, through the 8-byte reader: which half of the
 * word it is depends on the dump's byte order (ppc64 or ppc64le). */
static enum mdf_status ppc64_int(const struct arch_state *st, arch_read_pte_fn rd,
				 void *arg, uint64_t pa, uint32_t *v,
				 struct mdf_err *err)
{
	uint64_t w;
	unsigned at = (unsigned)(pa & 4);
	enum mdf_status s = rd(arg, pa & ~7ULL, 8, &w, err);

	if (s == MDF_OK)
		*v = (uint32_t)(w >> ((st->big_endian ? 4 - at : at) * 8));
	return s;
}

static int ppc64_block_cmp(const void *a, const void *b)
{
	const struct arch_vmemmap_block *x = a, *y = b;

	return x->virt < y->virt ? -1 : x->virt > y->virt;
}

/* vmemmap_list, copied once into a table sorted by virt. */
static enum mdf_status ppc64_read_vmemmap_list(struct arch_state *st, arch_read_pte_fn rd,
					       void *arg, struct mdf_err *err)
{
	struct arch_vmemmap_block *t = NULL, *nt;
	size_t n = 0, cap = 0;
	uint64_t head, node;
	uint32_t psize, shift;
	enum mdf_status s;

	s = rd(arg, st->ppc64_vmemmap.head_pa, 8, &head, err);
	if (s == MDF_OK)
		s = ppc64_int(st, rd, arg, st->ppc64_vmemmap.psize_pa, &psize, err);
	if (s == MDF_OK && psize > 64)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "vmemmap_list: mmu_vmemmap_psize %u is impossible", psize);
	if (s == MDF_OK)
		s = ppc64_int(st, rd, arg, st->ppc64_vmemmap.psize_defs_pa +
			      psize * st->ppc64_vmemmap.size_psize_def +
			      st->ppc64_vmemmap.off_shift, &shift, err);
	if (s != MDF_OK)
		return mdf_err_push(err, "vmemmap_list");
	if (shift < 12 || shift > 40)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "vmemmap_list: block shift %u (mmu_vmemmap_psize %u) is impossible",
				   shift, psize);
	for (node = head; node; ) {
		uint64_t pa = node - PPC64_PAGE_OFFSET, next;

		if (n == PPC64_VMEMMAP_MAX) {
			free(t);
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "vmemmap_list: more than %u entries (a loop?)",
					   PPC64_VMEMMAP_MAX);
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			nt = realloc(t, cap * sizeof(*t));
			if (!nt) {
				free(t);
				return mdf_err_set(err, MDF_ERR_NOMEM,
						   "out of memory for vmemmap_list");
			}
			t = nt;
		}
		s = rd(arg, pa + st->ppc64_vmemmap.off_virt, 8, &t[n].virt, err);
		if (s == MDF_OK)
			s = rd(arg, pa + st->ppc64_vmemmap.off_phys, 8, &t[n].phys, err);
		if (s == MDF_OK)
			s = rd(arg, pa + st->ppc64_vmemmap.off_list, 8, &next, err);
		if (s != MDF_OK) {
			free(t);
			return mdf_err_push(err, "vmemmap_list entry 0x%llx",
					    (unsigned long long)node);
		}
		n++;
		if (next == head)
			break;
		node = next;
	}
	if (n)
		qsort(t, n, sizeof(*t), ppc64_block_cmp);
	st->ppc64_vmemmap.blocks = t;
	st->ppc64_vmemmap.nblocks = n;
	st->ppc64_vmemmap.block_shift = shift;
	st->ppc64_vmemmap.have_blocks = true;
	return MDF_OK;
}

/*
 * Once the dump can be read: which MMU (before 6.7: entry 0 of
 * swapper_pg_dir, see the top), and the vmemmap_list blocks.  A list that
 * cannot be read leaves have_blocks false: the walks of vmemmap addresses
 * outside the page tables then say the address is not mapped.
 */
static enum mdf_status ppc64_init_mem(struct arch_state *st, arch_read_pte_fn rd,
				      void *arg, struct mdf_err *err)
{
	struct mdf_err lerr;
	bool radix = false;

	if (st->ppc64_mmu == PPC64_MMU_UNKNOWN && st->have_pgd) {
		if (ppc64_is_radix(st, rd, arg, &radix, err) != MDF_OK)
			return err->status;
		st->ppc64_mmu = radix ? PPC64_MMU_RADIX : PPC64_MMU_HASH;
	}
	if (st->ppc64_vmemmap.valid &&
	    ppc64_read_vmemmap_list(st, rd, arg, &lerr) != MDF_OK)
		mdf_err_keep(&lerr, st->ppc64_vmemmap.why, sizeof(st->ppc64_vmemmap.why));
	return MDF_OK;
}

/* A vmemmap address through the vmemmap_list blocks: MDF_ERR_NODATA when
 * no block holds it (or the list is empty: then the page tables map the
 * vmemmap). */
static enum mdf_status ppc64_vmemmap_walk(const struct arch_state *st, uint64_t vaddr,
					  struct arch_walk *walk, struct mdf_err *err)
{
	const struct arch_vmemmap_block *t = st->ppc64_vmemmap.blocks;
	uint64_t block = 1ULL << st->ppc64_vmemmap.block_shift;
	size_t lo = 0, hi = st->ppc64_vmemmap.nblocks;

	/* the last block starting at or below vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid].virt <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && vaddr - t[lo - 1].virt < block) {
		walk->map_size = block;
		walk->paddr = t[lo - 1].phys + (vaddr - t[lo - 1].virt);
		return MDF_OK;
	}
	return mdf_err_set(err, MDF_ERR_NODATA,
			   "virtual address 0x%llx not mapped (in no vmemmap_list block)",
			   (unsigned long long)vaddr);
}

static enum mdf_status ppc64_walk(const struct arch_state *st, uint64_t vaddr,
				  arch_read_pte_fn rd, void *arg,
				  struct arch_walk *walk, struct mdf_err *err)
{
	enum mdf_status s;
	struct mdf_err table_err;

	if (!st->have_pgd)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx: no page-table root (VMCOREINFO needs SYMBOL(swapper_pg_dir))",
				   (unsigned long long)vaddr);
	if (vaddr < PPC64_PAGE_OFFSET)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx is not a kernel address",
				   (unsigned long long)vaddr);
	s = ppc64_table_walk(st, vaddr, rd, arg, walk, &table_err);
	if (s == MDF_ERR_NODATA && st->ppc64_vmemmap.why[0])
		return mdf_err_set(err, MDF_ERR_FORMAT, "virtual address 0x%llx: %s",
				   (unsigned long long)vaddr, st->ppc64_vmemmap.why);
	if (s == MDF_OK || s != MDF_ERR_NODATA || !st->ppc64_vmemmap.have_blocks) {
		if (s != MDF_OK)
			*err = table_err;
		return s;
	}
	/* Not in the page tables: under the hash MMU the vmemmap is not. */
	s = ppc64_vmemmap_walk(st, vaddr, walk, err);
	if (s == MDF_ERR_NODATA)
		*err = table_err;
	return s;
}

const struct arch_ops arch_ppc64_ops = {
	.name = "ppc64",
	.e_machine = EM_PPC64,
	.uts_machine = "ppc64le",
	.uts_machine_be = "ppc64",
	.init = ppc64_init,
	.init_mem = ppc64_init_mem,
	.walk = ppc64_walk,
};
