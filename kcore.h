/*
 * kcore.h - /proc/kcore, the running kernel's memory, as an input.
 *
 * /proc/kcore is an ELF core file, so elf_info reads its headers and its
 * bytes; what differs from a vmcore is in its own input_ops table:
 *  - no crash happened: no crash time (the kdump header gets the time of
 *    the copy, dump.c), its one NT_PRSTATUS note holds zero registers and
 *    is copied as it is (as upstream does), and its e_flags are the arch's
 *    ELF_CORE_EFLAGS, not makedumpfile's "incomplete" bit;
 *  - the memory changes while it is copied: the dump is no snapshot of
 *    one moment (dump.c warns once);
 *  - it cannot be mmap()ed (no mmap in fs/proc/kcore.c), and its st_size
 *    is the size of the whole kernel address space: the cache's default
 *    policy (try mmap once, then read for good, cache.h) serves it;
 *  - fs/proc/kcore.c hands out zeros for what it will not read (no RAM,
 *    offline or poisoned pages, faults), but a read may still fail (a
 *    range hot-removed while we copy, EFAULT): that page is lost, as in an
 *    incomplete input, and the dump says it is incomplete, instead of the
 *    whole run failing on one page.
 */
#ifndef MDF_KCORE_H
#define MDF_KCORE_H

#include <stdbool.h>

#include "elf_info.h"
#include "input.h"

#define KCORE_PATH "/proc/kcore"

/**
 * Whether @ei (opened from @fd) is a /proc/kcore: the file /proc/kcore
 * itself (same device and inode), or a file of its shape, PT_LOADs
 * without a physical address (p_paddr -1) for vmalloc, modules and
 * vmemmap, which /proc/kcore gives since Linux 4.11 (commit 464920104bf7,
 * "/proc/kcore: update physical address for kcore ram and text") and a
 * vmcore never has.  Before 4.11 every p_paddr there is 0: only the
 * live file is recognised, by its inode.
 */
bool kcore_detect(const struct elf_info *ei, int fd);

/** Whether @fd is the running system's /proc/kcore itself. */
bool kcore_is_proc_kcore(int fd);

/** The ops of a kcore input; the object is its struct elf_info. */
extern const struct input_ops kcore_input_ops;

#endif
