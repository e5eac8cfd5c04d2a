/*
 * tests/lib/kopen.h - a kernel opened from a core file the way dump.c
 * opens an input (elf_info_open, cache_init, kernel_open), for the unit
 * tests that read a dump's memory: a synthetic core in a memfd
 * (corefile.h) or a real fixture (realvm.h).  Header-only.
 */
#ifndef MDF_TESTS_KOPEN_H
#define MDF_TESTS_KOPEN_H

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "kernel/kernel.h"

struct t_kopen {
	int fd;
	struct elf_info elf;
	struct cache cache;
	struct kernel k;
};

/* Open the core @fd (taken over: t_kclose() closes it), named @name. */
static inline enum mdf_status t_kopen_fd(struct t_kopen *t, int fd, const char *name,
					 struct mdf_err *err)
{
	struct kernel_input in = { .name = name, .need_arch = true };
	struct cache_config cc = { 0 };
	enum mdf_status st;

	memset(t, 0, sizeof(*t));
	t->fd = fd;
	if (fd < 0)
		return mdf_err_set(err, MDF_ERR_IO, "%s: cannot open the test core", name);
	st = elf_info_open(&t->elf, fd, name, err);
	if (st == MDF_OK)
		st = cache_init(&t->cache, fd, name, &cc, err);
	if (st != MDF_OK)
		return st;
	in.ops = &elf_input_ops;
	in.obj = &t->elf;
	in.elf = &t->elf;
	in.cache = &t->cache;
	return kernel_open(&t->k, &in, err);
}

static inline enum mdf_status t_kopen_path(struct t_kopen *t, const char *path,
					   struct mdf_err *err)
{
	return t_kopen_fd(t, open(path, O_RDONLY), path, err);
}

static inline void t_kclose(struct t_kopen *t)
{
	cache_release(&t->cache);
	kernel_close(&t->k);
	elf_info_close(&t->elf);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

#endif
