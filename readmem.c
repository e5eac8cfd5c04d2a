/*
 * readmem.c - address -> bytes.
 */
#include "readmem.h"

#include <string.h>

#include "util.h"

void readmem_init_input(struct readmem *rm, const struct input_ops *in,
			void *in_obj, struct cache *cache,
			const struct arch_state *arch, uint64_t page_size)
{
	memset(rm, 0, sizeof(*rm));
	rm->in = in;
	rm->in_obj = in_obj;
	rm->cache = cache;
	rm->arch = arch;
	rm->big_endian = arch && arch->big_endian;
	rm->word_size = arch && arch->word_size == 4 ? 4 : 8;
	rm->page_size = page_size;
}

void readmem_init(struct readmem *rm, const struct elf_info *elf,
		  struct cache *cache, const struct arch_state *arch,
		  uint64_t page_size)
{
	/* The ELF ops only read the elf_info. */
	readmem_init_input(rm, &elf_input_ops, (void *)(uintptr_t)elf, cache, arch,
			   page_size);
}

void readmem_use_diskdump(struct readmem *rm, struct diskdump_info *dd)
{
	rm->in = &diskdump_input_ops;
	rm->in_obj = dd;
}

/* Physical bytes from whichever input this is, no retiring. */
static enum mdf_status raw_read(struct readmem *rm, uint64_t paddr, void *buf,
				size_t len, struct mdf_err *err)
{
	return rm->in->read_paddr(rm->in_obj, rm->cache, paddr, buf, len, err);
}

/*
 * Retired bytes are released 4 MiB at a time (one madvise call each: 80
 * for a pass over 320 MiB; 8 MiB halved the calls but added 4 MiB of
 * peak RSS).  A pass that moves forward
 * with small gaps (the struct page scan skips free blocks) is treated as
 * one range.  Exactly the bytes read, and the gaps between them, are
 * released: the bytes before the range may be the next ones read (the
 * struct pages of ascending pfns can lie at descending addresses), and
 * released bytes cost a new window.
 */
#define RETIRE_BATCH (4ULL << 20)
#define RETIRE_GAP (4ULL << 20)

void readmem_retire_flush(struct readmem *rm)
{
	if (rm->done_len)
		cache_done(rm->cache, rm->done_off, rm->done_len);
	rm->done_len = 0;
}

/* The bytes handed out in place last time are done with now. */
static void retire_returned(struct readmem *rm)
{
	if (rm->have_returned) {
		rm->have_returned = false;
		readmem_retire(rm, rm->returned_off, rm->returned_len);
	}
}

static void hold_returned(struct readmem *rm, uint64_t off, uint64_t len)
{
	rm->have_returned = true;
	rm->returned_off = off;
	rm->returned_len = len;
}

void readmem_retire(struct readmem *rm, uint64_t off, uint64_t len)
{
	uint64_t end = rm->done_off + rm->done_len;
	/* A gap may hold pages pinned by readmem_page_ref(), which must not
	 * be released before their unref: bridge gaps only while no page
	 * is pinned. */
	uint64_t gap = rm->cache->npinned ? 0 : RETIRE_GAP;

	if (rm->done_len && off >= rm->done_off && off <= end + gap) {
		if (off + len > end)
			rm->done_len = off + len - rm->done_off;
	} else {
		readmem_retire_flush(rm);
		rm->done_off = off;
		rm->done_len = len;
	}
	if (rm->done_len >= RETIRE_BATCH)
		readmem_retire_flush(rm);
}

/* [@off, @off + @len) is about to be pinned: take it out of the bytes
 * gathered for release (those before it are released now, those after it
 * stay gathered), so that no later flush releases it under the pin. */
static void retire_except(struct readmem *rm, uint64_t off, uint64_t len)
{
	uint64_t s = rm->done_off, e = rm->done_off + rm->done_len;

	if (!rm->done_len || off >= e || off + len <= s)
		return;
	rm->done_len = off > s ? off - s : 0;
	readmem_retire_flush(rm);
	if (off + len < e) {
		rm->done_off = off + len;
		rm->done_len = e - (off + len);
	}
}

/* True when physical [@paddr, @paddr + @len) is one run of bytes of the
 * input's file; *@loc says where. */
static bool file_run(const struct readmem *rm, uint64_t paddr, uint64_t len,
		     struct input_run *loc)
{
	return rm->in->file_run && rm->in->file_run(rm->in_obj, paddr, len, loc);
}

/* Copying reads: the bytes are copied out, so their mapping can go. */
static enum mdf_status read_and_retire(struct readmem *rm, uint64_t paddr,
				       void *buf, size_t len, struct mdf_err *err)
{
	enum mdf_status st = raw_read(rm, paddr, buf, len, err);
	struct input_run loc;

	if (st == MDF_OK && len >= 4096 && file_run(rm, paddr, len, &loc))
		readmem_retire(rm, loc.off, len);
	return st;
}

enum mdf_status readmem_paddr(struct readmem *rm, uint64_t paddr, void *buf,
			      size_t len, struct mdf_err *err)
{
	return read_and_retire(rm, paddr, buf, len, err);
}

enum mdf_status readmem_read_pte(void *arg, uint64_t paddr, unsigned size, uint64_t *pte,
				 struct mdf_err *err)
{
	struct readmem *rm = arg;
	unsigned char b[8];
	enum mdf_status st;

	if (size != 4 && size != 8)
		return mdf_err_set(err, MDF_ERR_INTERNAL,
				   "page-table entry of %u bytes at paddr 0x%llx", size,
				   (unsigned long long)paddr);
	st = raw_read(rm, paddr, b, size, err);
	if (st != MDF_OK)
		return st;
	*pte = size == 8 ? load_t64(b, rm->big_endian) : load_t32(b, rm->big_endian);
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
	st = arch_walk(rm->arch, vaddr, readmem_read_pte, rm, &walk, err);
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
			st = read_and_retire(rm, pa, out, n, err);
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

enum mdf_status readmem_vaddr_view(struct readmem *rm, uint64_t vaddr,
				   size_t len, void *buf,
				   const unsigned char **ret,
				   struct mdf_err *err)
{
	uint64_t pa, contig;
	struct input_run loc;
	struct mdf_err ignore;

	retire_returned(rm);
	/* In place when one translation and one file range cover it all. */
	if (len && rm->in->file_run &&
	    readmem_vtop(rm, vaddr, &pa, &contig, &ignore) == MDF_OK &&
	    contig >= len && file_run(rm, pa, len, &loc) &&
	    cache_get(rm->cache, loc.off, len, &loc.span, ret, &ignore) == MDF_OK) {
		hold_returned(rm, loc.off, len);
		return MDF_OK;
	}
	/* Else (or on any error, which the copying read reports) copy. */
	*ret = buf;
	return readmem_vaddr(rm, vaddr, buf, len, err);
}

enum mdf_status readmem_u64(struct readmem *rm, uint64_t vaddr,
			    uint64_t *ret, struct mdf_err *err)
{
	unsigned char b[8];
	enum mdf_status st = readmem_vaddr(rm, vaddr, b, 8, err);

	if (st == MDF_OK)
		*ret = load_t64(b, rm->big_endian);
	return st;
}

enum mdf_status readmem_ulong(struct readmem *rm, uint64_t vaddr,
			      uint64_t *ret, struct mdf_err *err)
{
	unsigned char b[8];
	unsigned w = rm->word_size == 4 ? 4 : 8;
	enum mdf_status st = readmem_vaddr(rm, vaddr, b, w, err);

	if (st == MDF_OK)
		*ret = load_tword(b, w, rm->big_endian);
	return st;
}

/* readmem_page(), and readmem_page_ref() when @pin is not NULL. */
static enum mdf_status get_page(struct readmem *rm, uint64_t pfn,
				unsigned char *scratch,
				const unsigned char **ret,
				struct cache_entry **pin, struct mdf_err *err)
{
	uint64_t ps = rm->page_size, pa = pfn * ps;
	struct input_run loc;

	if (pin)
		*pin = NULL;
	/* pfn * ps wraps: no physical address, no input holds it. */
	if (pfn > UINT64_MAX / ps)
		return mdf_err_set(err, MDF_ERR_NODATA, "pfn 0x%llx is not in the dump",
				   (unsigned long long)pfn);
	retire_returned(rm);
	if (file_run(rm, pa, ps, &loc)) {
		struct cache *c = rm->cache;
		struct cache_entry *e;
		enum mdf_status st;

		if (!pin) {
			st = cache_get(c, loc.off, (size_t)ps, &loc.span, ret, err);
		} else {
			retire_except(rm, loc.off, ps);
			st = cache_get_pinned(c, loc.off, (size_t)ps, &loc.span,
					      ret, &e, err);
			if (st != MDF_OK)
				return st;
			if (cache_keep_pin(c, e)) {
				*pin = e;
				return MDF_OK;
			}
			cache_unpin(c, e);
		}
		if (st == MDF_OK)
			hold_returned(rm, loc.off, ps);
		return st;
	}
	/* Not one run of the file: the format assembles it, or has it. */
	return rm->in->page(rm->in_obj, rm->cache, pfn, ps, scratch, ret, err);
}

enum mdf_status readmem_page(struct readmem *rm, uint64_t pfn,
			     unsigned char *scratch,
			     const unsigned char **ret, struct mdf_err *err)
{
	return get_page(rm, pfn, scratch, ret, NULL, err);
}

enum mdf_status readmem_page_ref(struct readmem *rm, uint64_t pfn,
				 unsigned char *scratch,
				 const unsigned char **ret,
				 struct cache_entry **pin,
				 struct mdf_err *err)
{
	return get_page(rm, pfn, scratch, ret, pin, err);
}

void readmem_page_unref(struct readmem *rm, uint64_t pfn,
			struct cache_entry *pin)
{
	struct input_run loc;

	if (!pin)
		return;
	cache_unpin(rm->cache, pin);
	if (file_run(rm, pfn * rm->page_size, rm->page_size, &loc))
		readmem_retire(rm, loc.off, rm->page_size);
}
