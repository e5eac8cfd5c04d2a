/*
 * tests/lib/vmsetup.h - open an ELF vmcore the way dump.c does, for unit tests
 * that need the real read path: the file, elf_info, a cache, VMCOREINFO,
 * the arch layer (address translation from the PT_LOAD hints) and a
 * readmem over them.  Header-only (static inline): each test includes it.
 */
#ifndef MDF_TESTS_VMSETUP_H
#define MDF_TESTS_VMSETUP_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "arch/arch.h"
#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "readmem.h"
#include "util.h"
#include "kernel/vmcoreinfo.h"

struct test_vm {
	int fd;
	struct elf_info elf;
	struct cache cache;
	struct kinfo ki;
	struct arch_state arch;
	struct readmem rm;
};

/* @cc NULL: the cache's defaults (pread). */
static inline enum mdf_status test_vm_open(struct test_vm *v, const char *path,
					   const struct cache_config *cc,
					   uint64_t page_size,
					   struct mdf_err *err)
{
	struct arch_seg_hint hints[16];
	size_t nh = 0;
	enum mdf_status st;

	memset(v, 0, sizeof(*v));
	v->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (v->fd < 0)
		return mdf_err_errno(err, MDF_ERR_IO, errno, "cannot open %s", path);
	st = elf_info_open(&v->elf, v->fd, path, err);
	if (st == MDF_OK)
		st = cache_init(&v->cache, v->fd, path, cc, err);
	if (st != MDF_OK)
		return st;
	kinfo_init(&v->ki);
	st = vmcoreinfo_parse(v->elf.vmcoreinfo, v->elf.vmcoreinfo_len, &v->ki, err);
	if (st != MDF_OK)
		return st;
	for (size_t i = 0; i < v->elf.nloads && nh < ARRAY_SIZE(hints); i++, nh++) {
		hints[nh].vaddr = v->elf.loads[i].vaddr;
		hints[nh].paddr = v->elf.loads[i].paddr;
		hints[nh].size = v->elf.loads[i].memsz;
	}
	st = arch_init(&v->arch, v->elf.e_machine, &v->ki, hints, nh, err);
	if (st != MDF_OK)
		return st;
	readmem_init(&v->rm, &v->elf, &v->cache, &v->arch, page_size);
	return MDF_OK;
}

static inline void test_vm_close(struct test_vm *v)
{
	cache_release(&v->cache);
	elf_info_close(&v->elf);
	if (v->fd > 0)
		close(v->fd);
	memset(v, 0, sizeof(*v));
}

#endif
