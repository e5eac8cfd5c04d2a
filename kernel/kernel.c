/*
 * kernel.c - the crashed kernel as an opened input shows it (kernel.h).
 */
#include "kernel/kernel.h"

#include <string.h>

#include "kernel/vmcoreinfo.h"
#include "util.h"

/* Physical addresses no CPU of the dump's kind has, when nothing says. */
#define PHYS_BITS_ANY 52

/*
 * Every PT_LOAD must lie in the physical address space of the crashed
 * kernel (NUMBER(MAX_PHYSMEM_BITS), or the architecture's), else its
 * p_memsz is garbage: one of 2^48 bytes took 78 s and wrote 17 GB of
 * bitmaps for pfns no machine has.
 */
static enum mdf_status check_phys_ranges(const struct kernel *k,
					 const struct kernel_input *in,
					 struct mdf_err *err)
{
	unsigned bits = k->have_arch ? k->arch.max_physmem_bits : PHYS_BITS_ANY;
	uint64_t top = bits < 64 ? 1ULL << bits : UINT64_MAX;

	for (size_t i = 0; in->elf && i < in->elf->nloads; i++) {
		const struct elf_load *l = &in->elf->loads[i];

		if (l->memsz && (l->paddr >= top || l->memsz > top - l->paddr))
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "%s: PT_LOAD %u: physical range 0x%llx-0x%llx lies beyond "
					   "the %u-bit physical address space",
					   in->name, l->phdr_index,
					   (unsigned long long)l->paddr,
					   (unsigned long long)(l->paddr + l->memsz), bits);
	}
	return MDF_OK;
}

enum mdf_status kernel_open(struct kernel *k, const struct kernel_input *in,
			    struct mdf_err *err)
{
	struct arch_seg_hint hints[64];
	size_t nh = 0;
	struct input_facts f;
	enum mdf_status st;

	memset(k, 0, sizeof(*k));
	in->ops->facts(in->obj, &f);
	kinfo_init(&k->ki);
	/* -i FILE first: the note, parsed over it, wins for every key it
	 * has (as upstream). */
	if (in->extra_vmcoreinfo) {
		st = vmcoreinfo_parse(in->extra_vmcoreinfo, in->extra_len, &k->ki, err);
		if (st != MDF_OK)
			return mdf_err_push(err, "%s", in->extra_name);
	}
	st = vmcoreinfo_parse(f.vmcoreinfo, f.vmcoreinfo_len, &k->ki, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "%s", in->name);
	k->page_size = k->ki.page_size.set ? k->ki.page_size.v : 4096;
	if (k->page_size < 512 || k->page_size > (1 << 20) ||
	    (k->page_size & (k->page_size - 1)))
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: VMCOREINFO: bad PAGESIZE=%llu",
				   in->name, (unsigned long long)k->page_size);
	if (f.block_size && f.block_size != k->page_size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: block size %u differs from PAGESIZE=%llu",
				   in->name, f.block_size, (unsigned long long)k->page_size);
	k->max_pfn = div_round_up(f.max_paddr, k->page_size);

	for (size_t i = 0; in->elf && i < in->elf->nloads && nh < ARRAY_SIZE(hints); i++) {
		hints[nh].vaddr = in->elf->loads[i].vaddr;
		hints[nh].paddr = in->elf->loads[i].paddr;
		hints[nh].size = in->elf->loads[i].memsz;
		nh++;
	}
	st = arch_init(&k->arch, f.machine, &k->ki, hints, nh, err);
	if (st == MDF_OK) {
		k->have_arch = true;
	} else if (in->need_arch) {
		return mdf_err_push(err, "%s", in->name);
	} else {
		/* Levels 0 and 1 need no translation: carry on without. */
		size_t n = strnlen(err->msg, sizeof(k->no_arch) - 1);

		memcpy(k->no_arch, err->msg, n);
		k->no_arch[n] = '\0';
		mdf_err_clear(err);
	}
	st = check_phys_ranges(k, in, err);
	if (st != MDF_OK)
		return st;
	readmem_init_input(&k->rm, in->ops, in->obj, in->cache,
			   k->have_arch ? &k->arch : NULL, k->page_size);
	return MDF_OK;
}

enum mdf_status kernel_find_memmap(struct kernel *k, struct mdf_err *err)
{
	enum mdf_status st = memmap_init(&k->mm, &k->ki, k->page_size, k->max_pfn, err);

	if (st != MDF_OK)
		memset(&k->mm, 0, sizeof(k->mm));
	return st;
}
