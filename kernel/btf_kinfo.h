/*
 * btf_kinfo.h - the VMCOREINFO keys a note lacks, from the dump's own BTF
 * and kallsyms (issue 27), as -x VMLINUX gives them from DWARF.
 *
 * What BTF and kallsyms can say:
 *  - SIZE(T): any struct, union, typedef or enum of that name;
 *  - OFFSET(T.m): a member, through anonymous structs and unions;
 *  - LENGTH(T.m) of a member array (zone.free_area, free_area.free_list,
 *    and printk_info_subsystem/_device, which are dev_printk_info's);
 *  - NUMBER(PG_x) from enum pageflags (PG_head_mask = 1 << PG_head),
 *    NUMBER(NR_FREE_PAGES) from enum zone_stat_item and NUMBER(N_ONLINE)
 *    from enum node_states: a flag the kernel was built without is not
 *    in its enum either, so BTF tells a missing feature from a lost line;
 *  - SYMBOL(x): the address kallsyms gives, for the symbols of memory's
 *    layout (not the printk or vmalloc lists', which every note with
 *    kallsyms has, and which decide how --dump-dmesg reads the log).
 * What they cannot: macros (PAGE_*_MAPCOUNT_VALUE, SECTION_SIZE_BITS,
 * MAX_PHYSMEM_BITS and the architecture's constants), the lengths of
 * arrays that are variables (Linux's BTF types per-cpu variables only),
 * and SYMBOL(mem_section), which the note gives as the value of the
 * pointer (the roots), not the address of the variable.  The legacy
 * printk keys of 3.5-3.10 (SIZE(log), OFFSET(log.*)) are not guessed from
 * a struct that happens to be called log.
 */
#ifndef MDF_BTF_KINFO_H
#define MDF_BTF_KINFO_H

#include <stddef.h>

#include "kernel/btf.h"
#include "kernel/kallsyms.h"
#include "kinfo.h"

/**
 * Set every key of @ki that is unset and that @b (may have no BTF) or @ks
 * (may be NULL) gives; keys already set stay.  Returns how many were set;
 * @names gets them, comma-separated, cut at @cap.
 */
size_t btf_kinfo_fill(struct kinfo *ki, const struct kbtf *b, const struct kallsyms *ks,
		      char *names, size_t cap);

#endif
