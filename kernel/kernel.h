/*
 * kernel.h - the crashed kernel as an opened input shows it: what
 * VMCOREINFO says, the page size and pfn range, address translation,
 * readmem, and where its struct pages live.
 *
 * One way to get there for the run (dump.c), the log (dmesg.c) and the
 * tests: kernel_open(), then kernel_find_memmap() when struct pages are
 * to be read.  Pure: no printing; what the caller may want to say (a line
 * of VMCOREINFO that was ignored, why there is no translation) is left in
 * the struct.
 */
#ifndef MDF_KERNEL_H
#define MDF_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"
#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "input.h"
#include "kernel/dwarf_info.h"
#include "kernel/memmap.h"
#include "kinfo.h"
#include "readmem.h"

struct kernel_input {
	const char *name;               /* the input, for messages */
	const struct input_ops *ops;    /* its format (input.h), and */
	void *obj;                      /* its object */
	const struct elf_info *elf;     /* PT_LOADs (translation hints, the
					   physical-range check), or NULL */
	struct cache *cache;            /* serves every input byte */
	const char *extra_vmcoreinfo;   /* -i FILE's text, or NULL: parsed */
	size_t extra_len;               /* first, the input's note over it */
	const char *extra_name;         /* FILE, for messages */
	struct dwarf_info *vmlinux;     /* -x VMLINUX, or NULL: its answers
					   lie under the note's */
	const char *vmlinux_name;
	bool need_arch;                 /* fail without address translation
					   (else carry on: -d 0 and -d 1) */
	bool located;                   /* the input found the kernel image
					   (sadump: kernel/sadump_kernel.h),
					   a dump without a note: */
	uint64_t kernel_offset;         /* KERNELOFFSET and */
	uint64_t phys_base;             /* NUMBER(phys_base) */
};

struct kernel {
	struct kinfo ki;
	uint64_t page_size;             /* PAGESIZE, else 4096 */
	uint64_t max_pfn;               /* pfns 0 .. max_pfn-1 */
	struct arch_state arch;
	bool have_arch;
	char no_arch[160];              /* why not, when !have_arch */
	struct readmem rm;
	struct memmap mm;               /* MEMMAP_NONE until found */
};

/**
 * With @in->vmlinux: what DWARF answers first (symbols moved by
 * KERNELOFFSET, from the note or the kernel-image PT_LOAD), the note over
 * it; then what only the dump holds: the mem_section pointer (4.14 on),
 * and the release, checked against the vmlinux's.  A release or build-id
 * that differs is MDF_ERR_RELEASE (exit status 2).
 *
 * Parse the input's VMCOREINFO (none is allowed: an empty kinfo) over
 * -i FILE's, each text checked as it is parsed and what they and -x give
 * together checked as a whole (vmcoreinfo_check(): a value no kernel has
 * is refused, naming the file and line it came from), check
 * PAGESIZE (and the kdump block size against it), pick the architecture
 * from the ELF machine or the kdump header's utsname, check that every
 * PT_LOAD lies in its physical address space, and set up readmem.
 * Errors name @in->name.
 */
enum mdf_status kernel_open(struct kernel *k, const struct kernel_input *in,
			    struct mdf_err *err) MDF_MUST_CHECK;

/** Find the struct pages (kernel/memmap.h); errors name nothing. */
/** Free what kernel_open() allocated (the arch state's tables). */
void kernel_close(struct kernel *k);

enum mdf_status kernel_find_memmap(struct kernel *k,
				   struct mdf_err *err) MDF_MUST_CHECK;

#endif
