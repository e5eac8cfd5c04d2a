/*
 * sadump_kernel.h - the kernel of a sadump dump (sadump.h), found with
 * -x VMLINUX as upstream finds it: a sadump dump has no ELF notes and no
 * VMCOREINFO.
 *
 * sadump_kernel_locate(), before the kernel is opened: phys_base and the
 * KASLR offset.  linux_banner ("Linux version") at its link-time address
 * with phys_base 0, else with phys_base -16 MiB .. +16 MiB in steps of
 * 1 MiB (KASLR off); else, cpu by cpu, the IDT that IDTR of the saved cpu
 * state points at, translated through the cpu's CR3: its vector 0 handler
 * minus the vmlinux's divide_error (asm_exc_divide_error since Linux 5.8,
 * commit 9d06c4027f21) is the KASLR offset, and the IDT's physical address
 * gives phys_base, checked by finding linux_banner through CR3 again;
 * else both 0 (as upstream).
 *
 * sadump_kernel_notes(), once the kernel is opened: the notes a
 * kdump-compressed output copies, as makedumpfile 1.7.2 makes them
 * (sadump_generate_elf_note_from_dumpfile()): one "CORE" NT_PRSTATUS per
 * online cpu (__cpu_online_mask), with the cpu's registers from the
 * kernel's crash_notes when the crashing kernel filled them, else from
 * the cpu state the firmware saved (the cpu's APIC id from the per-cpu
 * x86_bios_cpu_apicid), then a VMCOREINFO note of the text 1.7.2 writes
 * from the vmlinux (write_vmcoreinfo_data(): its keys, in its order, with
 * its values), given to the input by sadump_set_notes().
 */
#ifndef MDF_SADUMP_KERNEL_H
#define MDF_SADUMP_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "kernel/dwarf_info.h"
#include "kernel/kernel.h"
#include "sadump.h"

struct sadump_kernel_loc {
	uint64_t kernel_offset;   /* running - link-time address */
	uint64_t phys_base;       /* two's complement */
	char how[96];             /* how they were found, for -D */
};

/** phys_base and the KASLR offset (see above); MDF_ERR_FORMAT when the
 *  vmlinux has no linux_banner. */
enum mdf_status sadump_kernel_locate(struct sadump_info *si, struct cache *cache,
				     struct dwarf_info *dw, struct sadump_kernel_loc *ret,
				     struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The notes (see above), given to @si.  @k is the opened kernel (its
 * readmem reads the dump), @vmlinux_name names the vmlinux in messages.
 * A dump without online cpus is MDF_ERR_FORMAT, as upstream refuses it.
 * When the vmlinux lacks what the registers need, upstream writes no note
 * at all: so do we, and @missing (@cap bytes) names the first thing
 * missing; else it is "".
 */
enum mdf_status sadump_kernel_notes(struct sadump_info *si, struct cache *cache,
				    struct dwarf_info *dw, const char *vmlinux_name,
				    struct kernel *k, const struct sadump_kernel_loc *loc,
				    char *missing, size_t cap,
				    struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The dump as an ELF vmcore's program headers, for an -E output (issue 28:
 * upstream refuses -E of a sadump dump): the ones kexec-tools writes for
 * an x86_64 machine.  First the kernel image, [_text, _end) rounded up to
 * a page, at its running address (the link-time one plus the KASLR
 * offset) and at that minus __START_KERNEL_map plus phys_base, as
 * /proc/kcore's text segment, from which crash and 1.7.2 take phys_base;
 * then one PT_LOAD per run of the RAM bitmap at page_offset_base (read
 * from the dump, else the paging mode's default) plus its address.  @ei
 * gets ELFCLASS64, little-endian, EM_X86_64, the loads (malloc'd) and a
 * copy of the notes sadump_kernel_notes() gave @si; elf_info_close()
 * frees them.  Without _text and _end in the vmlinux there is no image
 * segment.
 */
enum mdf_status sadump_kernel_elf_view(const struct sadump_info *si, struct dwarf_info *dw,
				       struct kernel *k, const struct sadump_kernel_loc *loc,
				       struct elf_info *ei, struct mdf_err *err) MDF_MUST_CHECK;

/**
 * The VMCOREINFO text makedumpfile 1.7.2 writes from a vmlinux for a
 * sadump dump: @dk as DWARF gives it (symbols at link-time addresses, here
 * moved by @kernel_offset), the running kernel's @release, PAGESIZE
 * @page_size, and NUMBER(phys_base) and KERNELOFFSET when not 0.  In
 * @buf (@cap bytes, NUL-terminated); *@len_ret its length.
 * MDF_ERR_ARG when it does not fit.
 */
enum mdf_status sadump_vmcoreinfo_text(const struct kinfo *dk, const char *release,
				       uint64_t page_size, uint64_t phys_base,
				       uint64_t kernel_offset, char *buf, size_t cap,
				       size_t *len_ret, struct mdf_err *err) MDF_MUST_CHECK;

#endif
