/*
 * readmem.h - the one path from an address of the crashed machine to its
 * bytes: virtual -> physical through the arch layer, physical -> file
 * offset through the input, file offset -> bytes through the cache.
 *
 * A struct readmem is cheap and per thread: it holds a one-entry
 * translation cache (the last page-table walk's mapping), which makes
 * sequential reads of vmemmap cost one walk per 2 MiB.
 */
#ifndef MDF_READMEM_H
#define MDF_READMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "cache.h"
#include "diskdump_read.h"
#include "elf_info.h"
#include "error.h"
#include "input.h"

struct readmem {
	const struct input_ops *in;      /* the input format (input.h) */
	void *in_obj;                    /* its object: elf_info, diskdump_info */
	struct cache *cache;
	const struct arch_state *arch;   /* NULL: physical reads only */
	uint64_t page_size;
	bool big_endian;                 /* the dump's byte order (arch's; every
					  * read of a target word translates) */
	unsigned word_size;              /* the kernel's unsigned long: 4 or 8
					  * (arch's, else 8) */
	/* last walk: [tlb_va, tlb_va + tlb_size) -> tlb_pa */
	uint64_t tlb_va, tlb_pa, tlb_size;
	bool tlb_valid;
	uint64_t walks;                  /* page-table walks made */
	/* input bytes already consumed, not yet released (see readmem_retire) */
	uint64_t done_off, done_len;
	/* the bytes handed out in place last (a page or a view): in use by
	 * the caller until its next in-place read */
	bool have_returned;
	uint64_t returned_off, returned_len;
};

/**
 * The bytes at file offset [@off, @off + @len) are done with and will not
 * be read again soon: drop them from this process's mappings (cache_done),
 * in batches, so a sequential pass over a large dump keeps a flat resident
 * set.  Only bytes nobody uses any more: what was released is never handed
 * out again from the same mapping.
 */
void readmem_retire(struct readmem *rm, uint64_t off, uint64_t len);

/** Release everything retired so far. */
void readmem_retire_flush(struct readmem *rm);

/** Read the input @in_obj of format @in through @cache. */
void readmem_init_input(struct readmem *rm, const struct input_ops *in,
			void *in_obj, struct cache *cache,
			const struct arch_state *arch, uint64_t page_size);

/** readmem_init_input() of an ELF vmcore. */
void readmem_init(struct readmem *rm, const struct elf_info *elf,
		  struct cache *cache, const struct arch_state *arch,
		  uint64_t page_size);

/** Read from a kdump-compressed dump instead of an ELF vmcore. */
void readmem_use_diskdump(struct readmem *rm, struct diskdump_info *dd);

/** An arch_read_pte_fn (@arg the struct readmem): @size bytes (4 or 8) at
 *  physical @paddr in the dump's byte order. */
enum mdf_status readmem_read_pte(void *arg, uint64_t paddr, unsigned size, uint64_t *pte,
				 struct mdf_err *err) MDF_MUST_CHECK;

/** Read physical memory; past p_filesz reads zeros; a hole is
 *  MDF_ERR_NODATA "physical address 0x... is not in the dump". */
enum mdf_status readmem_paddr(struct readmem *rm, uint64_t paddr, void *buf,
			      size_t len, struct mdf_err *err) MDF_MUST_CHECK;

/** Translate @vaddr; *@contig_ret (may be NULL) is how many bytes from
 *  @vaddr on are known to be physically contiguous. */
enum mdf_status readmem_vtop(struct readmem *rm, uint64_t vaddr,
			     uint64_t *paddr_ret, uint64_t *contig_ret,
			     struct mdf_err *err) MDF_MUST_CHECK;

/** Read kernel virtual memory, any length, across mappings. */
enum mdf_status readmem_vaddr(struct readmem *rm, uint64_t vaddr, void *buf,
			      size_t len, struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Kernel virtual memory [@vaddr, @vaddr + @len), without a copy when it
 * lies in one physically contiguous run inside one file range: *@ret then
 * points into the cache and is valid until the next read through @rm.
 * Otherwise the bytes are read into @buf (@len bytes) and *@ret = @buf.
 * Errors are readmem_vaddr()'s.
 */
enum mdf_status readmem_vaddr_view(struct readmem *rm, uint64_t vaddr,
				   size_t len, void *buf,
				   const unsigned char **ret,
				   struct mdf_err *err) MDF_MUST_CHECK;

/** A 64-bit number of the target at @vaddr, in the dump's byte order. */
enum mdf_status readmem_u64(struct readmem *rm, uint64_t vaddr,
			    uint64_t *ret, struct mdf_err *err) MDF_MUST_CHECK;

/** An unsigned long (or a pointer) of the target at @vaddr: rm->word_size
 *  bytes in the dump's byte order, zero-extended. */
enum mdf_status readmem_ulong(struct readmem *rm, uint64_t vaddr,
			      uint64_t *ret, struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The bytes of page @pfn.  When the page lies whole inside file data the
 * pointer goes straight into the cache (no copy) and stays valid until the
 * next read through @rm's cache; otherwise the page is assembled in
 * @scratch (page_size bytes) with zeros for anything not in the file.
 * A pfn no PT_LOAD touches is MDF_ERR_NODATA.
 */
enum mdf_status readmem_page(struct readmem *rm, uint64_t pfn,
			     unsigned char *scratch,
			     const unsigned char **ret,
			     struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Like readmem_page(), for callers that hold several pages at once (the
 * writer's worker threads read them while this thread reads on): when the
 * page lies whole inside a mapped window of the input, its entry is pinned,
 * *@pin is set, and the bytes stay valid, with no copy, across any later
 * reads until readmem_page_unref().  Otherwise (read buffers, pages
 * assembled in @scratch, kdump-compressed input, or half the cache's
 * entries already pinned) *@pin is NULL and the bytes are valid only until
 * the next read, as with readmem_page(): copy them.
 */
enum mdf_status readmem_page_ref(struct readmem *rm, uint64_t pfn,
				 unsigned char *scratch,
				 const unsigned char **ret,
				 struct cache_entry **pin,
				 struct mdf_err *err) MDF_MUST_CHECK;

/** Done with page @pfn got with *@pin set: unpin it and retire its bytes.
 *  @pin NULL does nothing. */
void readmem_page_unref(struct readmem *rm, uint64_t pfn,
			struct cache_entry *pin);

#endif
