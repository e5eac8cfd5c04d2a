/*
 * tests/gen/gen_ref.c - reference bitmaps: what a correct filter must keep,
 * computed from the kinds the spec declares (never from the struct pages
 * written, so it is an independent oracle).
 *
 * Format as in /work/shared/vmcores/NAME.ref/: raw bitmaps as stored in a
 * kdump-compressed file, bit i = pfn i, LSB first, roundup(ceil(max_pfn/8),
 * page size) bytes, where max_pfn = highest PT_LOAD paddr end rounded up
 * to a page.  Pages are 4 KiB (">> 12" below), 64 KiB on ppc64.
 *
 * bitmap1: pfns [paddr >> 12, (paddr + memsz) >> 12) of every PT_LOAD: a
 * partial last page (legacy kexec's 0x1000-0x9fc00 segment) is a hole, as
 * in makedumpfile's cyclic mode, the mode of a capture kernel (HEAD and
 * 1.7.2 on the lab's legacy dump; with the whole bitmap in one cycle they
 * round up instead).
 * dL.bitmap2: bitmap1, minus the pfns [(paddr + filesz) >> 12,
 * (paddr + memsz) >> 12) of every PT_LOAD (pages past p_filesz), minus by
 * dump level L
 * (makedumpfile's rules): 1 zero pages are NOT cleared here (they stay set
 * and are shared in the data area); 2 page cache without PG_private (LRU or
 * swapcache, not anon); 4 all page cache; 8 user data (anon, THP,
 * hugetlb); 16 free buddy pages; hwpoison and offline pages always; kernel,
 * reserved and slab pages never.  A compound page or buddy block goes as a
 * whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen.h"
#include "util.h"

bool gen_ref_keep(enum gen_kind kind, unsigned level)
{
	switch (kind) {
	case GEN_K_CACHE:
	case GEN_K_SWAPCACHE:
		return !(level & (2 | 4));
	case GEN_K_CACHE_PRIVATE:
		return !(level & 4);
	case GEN_K_ANON:
	case GEN_K_THP:
	case GEN_K_HUGETLB:
		return !(level & 8);
	case GEN_K_FREE:
		return !(level & 16);
	case GEN_K_HWPOISON:
	case GEN_K_OFFLINE:
		return false;
	case GEN_K_UNSET:
	case GEN_K_KERNEL:
	case GEN_K_SLAB:
	case GEN_K_COUNT:
		break;
	}
	return true;
}

static enum mdf_status write_file(const char *dir, const char *name, const uint8_t *buf,
				  size_t len, struct mdf_err *err)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return mdf_err_set(err, MDF_ERR_ARG, "%s: path too long", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return mdf_err_errno(err, MDF_ERR_IO, errno, "%s: cannot create", path);
	enum mdf_status st = util_pwrite_full(fd, buf, len, 0, err);
	if (close(fd) != 0 && !st)
		st = mdf_err_errno(err, MDF_ERR_IO, errno, "%s: close", path);
	return st ? mdf_err_push(err, "%s", path) : MDF_OK;
}

struct span {
	uint64_t paddr, filesz, memsz;
};

enum mdf_status gen_ref_write(const struct gen_spec *spec, const struct gen_kernel *k,
			      const char *dir, struct mdf_err *err)
{
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return mdf_err_errno(err, MDF_ERR_IO, errno, "%s: mkdir", dir);
	size_t nspan = 0;
	struct span *sp = calloc(spec->nram + 1, sizeof(*sp));
	if (!sp)
		return mdf_err_set(err, MDF_ERR_NOMEM, "ref: out of memory");
	if (spec->text_phdr)
		sp[nspan++] = (struct span){ k->text_pa, spec->text_size, spec->text_size };
	for (size_t i = 0; i < spec->nram; i++)
		sp[nspan++] = (struct span){ spec->ram[i].start, spec->ram[i].filesz,
					     spec->ram[i].memsz };

	size_t len = (size_t)align_up(div_round_up(k->max_pfn, 8), k->page_size);
	uint8_t *b1 = calloc(1, len), *nodata = calloc(1, len), *b2 = malloc(len);
	enum mdf_status st = MDF_OK;
	if (!b1 || !nodata || !b2) {
		st = mdf_err_set(err, MDF_ERR_NOMEM, "ref: out of memory");
		goto out;
	}
	for (size_t i = 0; i < nspan; i++) {
		uint64_t end = (sp[i].paddr + sp[i].memsz) >> k->page_shift;
		for (uint64_t p = sp[i].paddr >> k->page_shift; p < end; p++)
			gen_bit_set(b1, p);
		for (uint64_t p = (sp[i].paddr + sp[i].filesz) >> k->page_shift; p < end; p++)
			gen_bit_set(nodata, p);
	}
	st = write_file(dir, "bitmap1", b1, len, err);
	for (unsigned level = 0; level < GEN_MAX_LEVELS && !st; level++) {
		if (!(spec->ref_levels & (UINT32_C(1) << level)))
			continue;
		memset(b2, 0, len);
		for (uint64_t p = 0; p < k->max_pfn; p++) {
			if (gen_bit_test(b1, p) && !gen_bit_test(nodata, p) &&
			    gen_ref_keep((enum gen_kind)k->kind[p], level))
				gen_bit_set(b2, p);
		}
		char name[32];
		snprintf(name, sizeof(name), "d%u.bitmap2", level);
		st = write_file(dir, name, b2, len, err);
	}
out:
	free(b1);
	free(nodata);
	free(b2);
	free(sp);
	return st;
}
