/*
 * kcore.c - /proc/kcore as an input (see kcore.h): elf_info's ops, with
 * the live system's facts and with a page the kernel would not hand out
 * lost instead of fatal.
 */
#include "kcore.h"

#include "util.h"

bool kcore_is_proc_kcore(int fd)
{
	return util_same_file(fd, KCORE_PATH);
}

bool kcore_detect(const struct elf_info *ei, int fd)
{
	return ei->nophys_loads > 0 || kcore_is_proc_kcore(fd);
}

/*
 * A read of the live memory that failed: an I/O error (EFAULT, EIO), or
 * an end of file where the headers promised bytes (memory hot-removed
 * while we copy: /proc/kcore rebuilds its headers on the next open).  The
 * bytes are lost, as in an incomplete dump (MDF_ERR_NODATA): the struct
 * pages there are kept unjudged, a page to copy goes out as lost.
 */
static enum mdf_status kcore_lost(enum mdf_status st, uint64_t paddr,
				  struct mdf_err *err)
{
	char why[MDF_ERR_MSG_MAX / 2];

	if (st != MDF_ERR_IO && st != MDF_ERR_FORMAT)
		return st;
	mdf_err_keep(err, why, sizeof(why));
	return mdf_err_set(err, MDF_ERR_NODATA,
			   "physical address 0x%llx of the running system could not be read: %s",
			   (unsigned long long)paddr, why);
}

static enum mdf_status kc_read_paddr(void *in, struct cache *cache, uint64_t paddr,
				     void *buf, size_t len, struct mdf_err *err)
{
	return kcore_lost(elf_input_ops.read_paddr(in, cache, paddr, buf, len, err),
			  paddr, err);
}

/* Every page through here (no file_run): read into @scratch, so a failed
 * read is this page's alone. */
static enum mdf_status kc_page(void *in, struct cache *cache, uint64_t pfn,
			       uint64_t ps, unsigned char *scratch,
			       const unsigned char **ret, struct mdf_err *err)
{
	return kcore_lost(elf_input_ops.page(in, cache, pfn, ps, scratch, ret, err),
			  pfn * ps, err);
}

static void kc_cycle_bitmaps(const void *in, uint64_t page_size,
			     struct bitmap *present, struct bitmap *dumpable)
{
	elf_input_ops.cycle_bitmaps(in, page_size, present, dumpable);
}

static void kc_facts(const void *in, struct input_facts *f)
{
	elf_input_ops.facts(in, f);
	f->live = true;
	/* e_flags are the arch's ELF_CORE_EFLAGS (ppc64: 0 or 2), no
	 * writer's mark. */
	f->incomplete = false;
}

const struct input_ops kcore_input_ops = {
	.kind = "/proc/kcore",
	.read_paddr = kc_read_paddr,
	.file_run = NULL,  /* every page through kc_page() */
	.page = kc_page,
	.cycle_bitmaps = kc_cycle_bitmaps,
	.facts = kc_facts,
};
