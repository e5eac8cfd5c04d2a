/*
 * readmem.c - address -> bytes.
 */
#include "readmem.h"

#include <string.h>

#include "util.h"

void readmem_init(struct readmem *rm, const struct elf_info *elf,
		  struct cache *cache, const struct arch_state *arch,
		  uint64_t page_size)
{
	memset(rm, 0, sizeof(*rm));
	rm->elf = elf;
	rm->cache = cache;
	rm->arch = arch;
	rm->page_size = page_size;
}

enum mdf_status readmem_paddr(struct readmem *rm, uint64_t paddr, void *buf,
			      size_t len, struct mdf_err *err)
{
	return elf_info_read_paddr(rm->elf, rm->cache, paddr, buf, len, err);
}

static enum mdf_status read_pte(void *arg, uint64_t paddr, uint64_t *pte,
				struct mdf_err *err)
{
	struct readmem *rm = arg;
	unsigned char b[8];
	enum mdf_status st;

	st = elf_info_read_paddr(rm->elf, rm->cache, paddr, b, 8, err);
	if (st != MDF_OK)
		return st;
	*pte = load_le64(b);
	return MDF_OK;
}

enum mdf_status readmem_vtop(struct readmem *rm, uint64_t vaddr,
			     uint64_t *paddr_ret, uint64_t *contig_ret,
			     struct mdf_err *err)
{
	struct arch_walk walk;
	enum mdf_status st;

	if (!rm->arch)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "virtual address 0x%llx: no address translation",
				   (unsigned long long)vaddr);
	if (arch_kvtop_fast(rm->arch, vaddr, paddr_ret)) {
		if (contig_ret)
			*contig_ret = rm->page_size - (vaddr & (rm->page_size - 1));
		return MDF_OK;
	}
	if (rm->tlb_valid && vaddr - rm->tlb_va < rm->tlb_size) {
		*paddr_ret = rm->tlb_pa + (vaddr - rm->tlb_va);
		if (contig_ret)
			*contig_ret = rm->tlb_size - (vaddr - rm->tlb_va);
		return MDF_OK;
	}
	st = arch_walk(rm->arch, vaddr, read_pte, rm, &walk, err);
	if (st != MDF_OK)
		return st;
	rm->walks++;
	if (walk.map_size && !(walk.map_size & (walk.map_size - 1))) {
		rm->tlb_va = align_down(vaddr, walk.map_size);
		rm->tlb_pa = walk.paddr - (vaddr - rm->tlb_va);
		rm->tlb_size = walk.map_size;
		rm->tlb_valid = true;
		if (contig_ret)
			*contig_ret = walk.map_size - (vaddr - rm->tlb_va);
	} else if (contig_ret) {
		*contig_ret = rm->page_size - (vaddr & (rm->page_size - 1));
	}
	*paddr_ret = walk.paddr;
	return MDF_OK;
}

enum mdf_status readmem_vaddr(struct readmem *rm, uint64_t vaddr, void *buf,
			      size_t len, struct mdf_err *err)
{
	unsigned char *out = buf;

	while (len) {
		uint64_t pa, contig;
		size_t n;
		enum mdf_status st;

		st = readmem_vtop(rm, vaddr, &pa, &contig, err);
		if (st == MDF_OK) {
			n = contig < len ? (size_t)contig : len;
			st = elf_info_read_paddr(rm->elf, rm->cache, pa, out, n, err);
		}
		if (st != MDF_OK)
			return mdf_err_push(err, "reading virtual address 0x%llx",
					    (unsigned long long)vaddr);
		out += n;
		vaddr += n;
		len -= n;
	}
	return MDF_OK;
}

enum mdf_status readmem_u64(struct readmem *rm, uint64_t vaddr,
			    uint64_t *ret, struct mdf_err *err)
{
	unsigned char b[8];
	enum mdf_status st = readmem_vaddr(rm, vaddr, b, 8, err);

	if (st == MDF_OK)
		*ret = load_le64(b);
	return st;
}

enum mdf_status readmem_page(struct readmem *rm, uint64_t pfn,
			     unsigned char *scratch,
			     const unsigned char **ret, struct mdf_err *err)
{
	uint64_t ps = rm->page_size, pa = pfn * ps, done = 0;
	struct elf_loc loc;
	bool any = false;

	if (elf_info_locate(rm->elf, pa, &loc) == MDF_OK && loc.in_file &&
	    loc.avail >= ps)
		return cache_get(rm->cache, loc.off, (size_t)ps, &loc.span, ret,
				 err);
	/* Assemble: file pieces, zero tails, zeros for holes inside the page. */
	while (done < ps) {
		uint64_t n = ps - done;
		enum mdf_status st;

		if (elf_info_locate(rm->elf, pa + done, &loc) != MDF_OK) {
			/* A hole: zeros up to the next range that starts in the page. */
			uint64_t next = ps;

			for (size_t i = 0; i < rm->elf->nranges; i++) {
				uint64_t s = rm->elf->ranges[i].pstart;

				if (s > pa + done && s < pa + ps) {
					next = s - pa;
					break;
				}
			}
			memset(scratch + done, 0, (size_t)(next - done));
			done = next;
			continue;
		}
		any = true;
		if (loc.avail < n)
			n = loc.avail;
		if (loc.in_file) {
			st = cache_pread(rm->cache, scratch + done, (size_t)n,
					 loc.off, &loc.span, err);
			if (st != MDF_OK)
				return mdf_err_push(err, "pfn 0x%llx",
						    (unsigned long long)pfn);
		} else {
			memset(scratch + done, 0, (size_t)n);
		}
		done += n;
	}
	if (!any)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "pfn 0x%llx is not in the dump",
				   (unsigned long long)pfn);
	*ret = scratch;
	return MDF_OK;
}
