/*
 * kernel.c - the crashed kernel as an opened input shows it (kernel.h).
 */
#include "kernel/kernel.h"

#include <elf.h>
#include <stdlib.h>
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

/* -x: the vmlinux's answers under the note's (parsed into k->ki). */
static enum mdf_status take_debuginfo(struct kernel *k, const struct kernel_input *in,
				      uint16_t machine, const struct arch_seg_hint *hints,
				      size_t nh, struct dwarf_facts *df, struct mdf_err *err)
{
	struct kinfo *dk = malloc(sizeof(*dk));
	enum mdf_status st;

	if (!dk)
		return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", in->vmlinux_name);
	kinfo_init(dk);
	/* the dump's byte order, which no VMCOREINFO key carries: the copy
	 * below (k->ki = *dk) lost it, and -x on s390x then read every
	 * word of the dump little-endian (--keep-task's task list, the
	 * erase's page tables) */
	dk->big_endian = k->ki.big_endian;
	/* and its word size (an i386 kernel's 4 bytes), the same way */
	dk->word_size = k->ki.word_size;
	st = dwarf_info_kinfo(in->vmlinux, dk, df, err);
	if (st != MDF_OK)
		goto out;
	if (df->machine != machine) {
		st = mdf_err_set(err, MDF_ERR_RELEASE,
				 "%s: a vmlinux for ELF machine %u, the dump is of machine %u",
				 in->vmlinux_name, df->machine, machine);
		goto out;
	}
	if (k->ki.osrelease[0] && dk->osrelease[0] && strcmp(k->ki.osrelease, dk->osrelease)) {
		st = mdf_err_set(err, MDF_ERR_RELEASE,
				 "%s: release %s, but the dump's is %s", in->vmlinux_name,
				 dk->osrelease, k->ki.osrelease);
		goto out;
	}
	if (k->ki.build_id[0] && dk->build_id[0] &&
	    strncmp(k->ki.build_id, dk->build_id, strlen(dk->build_id))) {
		st = mdf_err_set(err, MDF_ERR_RELEASE,
				 "%s: build-id %s, but the dump's is %s (another build of %s)",
				 in->vmlinux_name, dk->build_id, k->ki.build_id,
				 dk->osrelease);
		goto out;
	}
	/* The note's KERNELOFFSET, else the architecture's guess from the
	 * image's PT_LOAD (and its macros, SECTION_SIZE_BITS); symbols are
	 * moved by it. */
	if (k->ki.kernel_offset.set)
		dk->kernel_offset = k->ki.kernel_offset;
	arch_debuginfo_defaults(machine, dk, df->text, df->have_text ? hints : NULL,
				df->have_text ? nh : 0);
	/* Else the distance of a symbol both name: the note's address is the
	 * running one.  A relocated mips64 kernel writes no KERNELOFFSET (6.1
	 * has no arch_crash_save_vmcoreinfo() there): Debian's loongson-3
	 * lab kernel ran 0x22e0000 above its link address. */
	if (!dk->kernel_offset.set && k->ki.sym.init_uts_ns.set && dk->sym.init_uts_ns.set) {
		dk->kernel_offset.v = (int64_t)(k->ki.sym.init_uts_ns.v - dk->sym.init_uts_ns.v);
		dk->kernel_offset.set = true;
	}
#define MOVE_SYM(ident, key)                                     \
	if (dk->sym.ident.set && dk->kernel_offset.set)          \
		dk->sym.ident.v += dk->kernel_offset.v;
	KINFO_SYMBOLS(MOVE_SYM)
#undef MOVE_SYM
	if (dk->kernel_offset.set)
		df->text += dk->kernel_offset.v;
	/* The vmlinux's SYMBOL(mem_section) is the variable; the note's is
	 * the roots array it points at (since 4.14): found in the dump. */
	/* A note that makedumpfile wrote from a vmlinux (-g, or 1.7.2's
	 * note of a sadump dump: sadump_kernel.h) names the variable too. */
	if (df->mem_section_is_ptr && k->ki.sym.mem_section.set && dk->sym.mem_section.set &&
	    k->ki.sym.mem_section.v == dk->sym.mem_section.v)
		k->ki.sym.mem_section.set = false;
	if (df->mem_section_is_ptr && !k->ki.sym.mem_section.set) {
		df->mem_section_at = dk->sym.mem_section.v;
		df->mem_section_pending = dk->sym.mem_section.set;
		dk->sym.mem_section.set = false;
	}
	vmcoreinfo_merge(dk, &k->ki);
	k->ki = *dk;
out:
	free(dk);
	return st;
}

/* The variable mem_section at @at points at the roots (SPARSEMEM_EXTREME
 * since 4.15, kernel commit 83e3c48729d9): read it, and the roots' count,
 * NR_SECTION_ROOTS, when nothing said it. */
static enum mdf_status mem_section_roots(struct kernel *k, const struct kernel_input *in,
					 uint64_t at, struct mdf_err *err)
{
	struct kinfo *ki = &k->ki;
	uint64_t roots;
	enum mdf_status st = readmem_ulong(&k->rm, at, &roots, err);

	if (st != MDF_OK)
		return mdf_err_push(err, "%s: mem_section", in->name);
	ki->sym.mem_section.v = roots;
	ki->sym.mem_section.set = true;
	/* NR_SECTION_ROOTS: a page of sections per root. */
	if (!ki->len.mem_section.set && ki->size.mem_section.set && ki->size.mem_section.v &&
	    ki->num.SECTION_SIZE_BITS.set &&
	    k->arch.max_physmem_bits > ki->num.SECTION_SIZE_BITS.v) {
		uint64_t per_root = k->page_size / ki->size.mem_section.v;
		uint64_t nr = 1ULL << (k->arch.max_physmem_bits - ki->num.SECTION_SIZE_BITS.v);

		ki->len.mem_section.v = per_root ? div_round_up(nr, per_root) : 0;
		ki->len.mem_section.set = per_root != 0;
		ki->num.MAX_PHYSMEM_BITS.v = k->arch.max_physmem_bits;
		ki->num.MAX_PHYSMEM_BITS.set = true;
	}
	return MDF_OK;
}

/* -x: what only the dump's memory says, now that it can be read. */
static enum mdf_status debuginfo_from_dump(struct kernel *k, const struct kernel_input *in,
					   const struct dwarf_facts *df, const char *vm_release,
					   struct mdf_err *err)
{
	struct kinfo *ki = &k->ki;
	enum mdf_status st;

	if (df->mem_section_pending) {
		st = mem_section_roots(k, in, df->mem_section_at, err);
		if (st != MDF_OK)
			return st;
	}
	/* Without a note the release is checked against the dump's memory. */
	if (!vm_release[0] && df->have_release_off && ki->sym.init_uts_ns.set && ki->osrelease[0]) {
		char rel[sizeof(ki->osrelease)];

		st = readmem_vaddr(&k->rm, ki->sym.init_uts_ns.v + df->release_off, rel,
				   sizeof(rel) - 1, err);
		if (st != MDF_OK)
			return mdf_err_push(err, "%s: init_uts_ns", in->name);
		rel[sizeof(rel) - 1] = '\0';
		if (strcmp(rel, ki->osrelease))
			return mdf_err_set(err, MDF_ERR_RELEASE,
					   "%s: release %s, but the dump's is %.64s",
					   in->vmlinux_name, ki->osrelease, rel);
	}
	return MDF_OK;
}

/* Levels 0 and 1 need no translation: carry on without, keeping why. */
static void carry_on_without_arch(struct kernel *k, struct mdf_err *err)
{
	mdf_err_keep(err, k->no_arch, sizeof(k->no_arch));
	k->have_arch = false;
	mdf_err_clear(err);
}

enum mdf_status kernel_open(struct kernel *k, const struct kernel_input *in,
			    struct mdf_err *err)
{
	struct dwarf_facts df;
	struct vmcoreinfo_lines lines_i, lines_n;
	char note_release[sizeof(k->ki.osrelease)];
	struct arch_seg_hint hints[64];
	size_t nh = 0;
	struct input_facts f;
	enum mdf_status st;

	memset(k, 0, sizeof(*k));
	in->ops->facts(in->obj, &f);
	/* A kdump file names its machine as uname -m does. */
	if (!f.machine && f.have_uts)
		f.machine = arch_machine_from_uts(f.uts.machine);
	kinfo_init(&k->ki);
	k->ki.big_endian = f.big_endian;
	k->ki.word_size = arch_word_size(f.machine);
	memset(&lines_i, 0, sizeof(lines_i));
	/* -i FILE first: the note, parsed over it, wins for every key it
	 * has (as upstream). */
	if (in->extra_vmcoreinfo) {
		st = vmcoreinfo_parse_lines(in->extra_vmcoreinfo, in->extra_len, &k->ki,
					    &lines_i, err);
		if (st != MDF_OK)
			return mdf_err_push(err, "%s", in->extra_name);
	}
	st = vmcoreinfo_parse_lines(f.vmcoreinfo, f.vmcoreinfo_len, &k->ki, &lines_n, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "%s", in->name);
	memcpy(note_release, k->ki.osrelease, sizeof(note_release));
	/* x86_64: a kdump header's phys_base is NUMBER(phys_base), which a
	 * note written from a vmlinux lacks when it is 0 (1.7.2's note of a
	 * sadump dump) */
	/* 32-bit arm: a kdump header's phys_base is PHYS_OFFSET, which no
	 * VMCOREINFO line gives (arch/arm.c takes it as the RAM start) */
	if ((f.machine == EM_X86_64 || f.machine == EM_ARM) && f.have_phys_base &&
	    !k->ki.num.phys_base.set && !in->located) {
		k->ki.num.phys_base.v = (int64_t)f.phys_base;
		k->ki.num.phys_base.set = true;
	}
	/* A note without the macros (NUMBER(SECTION_SIZE_BITS) came in 5.13,
	 * kernel commit 4f5aecdff25f, and 1.7.2's note of a sadump dump has
	 * none): the architecture's constants, as upstream's and as for -x. */
	if (!in->vmlinux)
		arch_debuginfo_defaults(f.machine, &k->ki, 0, NULL, 0);
	if (in->located) {
		k->ki.kernel_offset.v = in->kernel_offset;
		k->ki.kernel_offset.set = true;
		k->ki.num.phys_base.v = (int64_t)in->phys_base;
		k->ki.num.phys_base.set = true;
	}
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
	memset(&df, 0, sizeof(df));
	if (in->vmlinux) {
		st = take_debuginfo(k, in, f.machine, hints, nh, &df, err);
		if (st != MDF_OK)
			return st;
	}
	/* Each text was checked alone; what they say together (and what
	 * DWARF adds) is checked as a whole. */
	if (in->extra_vmcoreinfo || in->vmlinux) {
		const struct vmcoreinfo_source src[] = {
			{ in->name, &lines_n },
			{ in->extra_name, &lines_i },
			{ in->vmlinux ? in->vmlinux_name : NULL, NULL },
		};

		st = vmcoreinfo_check(&k->ki, src, in->vmlinux ? 3 : 2, err);
		if (st != MDF_OK)
			return st;
	}
	st = arch_init(&k->arch, f.machine, &k->ki, hints, nh, err);
	if (st == MDF_OK) {
		k->have_arch = true;
	} else if (in->need_arch) {
		return mdf_err_push(err, "%s", in->name);
	} else {
		carry_on_without_arch(k, err);
	}
	st = check_phys_ranges(k, in, err);
	if (st != MDF_OK)
		return st;
	readmem_init_input(&k->rm, in->ops, in->obj, in->cache,
			   k->have_arch ? &k->arch : NULL, k->page_size);
	k->rm.word_size = kinfo_word_size(&k->ki);
	/* What translation needs from the dump's memory, read once. */
	if (k->have_arch) {
		st = arch_init_mem(&k->arch, readmem_read_pte, &k->rm, err);
		if (st != MDF_OK) {
			arch_release(&k->arch);
			if (in->need_arch)
				return mdf_err_push(err, "%s", in->name);
			k->rm.arch = NULL;
			carry_on_without_arch(k, err);
		}
	}
	if (in->vmlinux && k->have_arch)
		return debuginfo_from_dump(k, in, &df, note_release, err);
	/* A kernel's note has LENGTH(mem_section) with SYMBOL(mem_section);
	 * one that makedumpfile wrote from a vmlinux (1.7.2's note of a
	 * sadump dump) has the variable and no LENGTH, as -x sees it. */
	if (k->have_arch && k->ki.sym.mem_section.set && !k->ki.len.mem_section.set &&
	    util_parse_kver(k->ki.osrelease) >= util_kver(4, 15, 0))
		return mem_section_roots(k, in, k->ki.sym.mem_section.v, err);
	return MDF_OK;
}

void kernel_close(struct kernel *k)
{
	arch_release(&k->arch);
}

enum mdf_status kernel_find_memmap(struct kernel *k, struct mdf_err *err)
{
	enum mdf_status st = memmap_init(&k->mm, &k->ki, k->page_size, k->max_pfn, err);

	if (st != MDF_OK) {
		memset(&k->mm, 0, sizeof(k->mm));
		return st;
	}
	/* FLATMEM's array starts at ARCH_PFN_OFFSET: PHYS_OFFSET's pfn on
	 * arm (arch/arm/include/asm/memory.h), 0 elsewhere */
	if (k->mm.model == MEMMAP_FLAT && k->have_arch)
		k->mm.pfn_offset = k->arch.flat_pfn_offset;
	return st;
}
