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

#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "kernel/kernel.h"

struct test_vm {
	int fd;
	struct elf_info elf;
	struct cache cache;
	struct kernel k;            /* as dump.c has it: kernel_open() */
};

/* @cc NULL: the cache's defaults (pread).  @page_size must be the
 * kernel's PAGESIZE (kernel_open() takes it from VMCOREINFO). */
static inline enum mdf_status test_vm_open(struct test_vm *v, const char *path,
					   const struct cache_config *cc,
					   uint64_t page_size,
					   struct mdf_err *err)
{
	struct kernel_input in = { .name = path, .need_arch = true };
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
	in.ops = &elf_input_ops;
	in.obj = &v->elf;
	in.elf = &v->elf;
	in.cache = &v->cache;
	st = kernel_open(&v->k, &in, err);
	if (st == MDF_OK && v->k.page_size != page_size)
		st = mdf_err_set(err, MDF_ERR_ARG, "%s: PAGESIZE %llu, not %llu", path,
				 (unsigned long long)v->k.page_size,
				 (unsigned long long)page_size);
	return st;
}

static inline void test_vm_close(struct test_vm *v)
{
	kernel_close(&v->k);
	cache_release(&v->cache);
	elf_info_close(&v->elf);
	if (v->fd > 0)
		close(v->fd);
	memset(v, 0, sizeof(*v));
}

#endif
