/*
 * tests/lib/realvm.h - where unit tests find the real fixture vmcores.
 *
 * tests/run.sh decompresses ../shared/vmcores/NAME.elf.zst once into a
 * temporary directory and exports it as $MDF_VMCORE_CACHE.  A test asks
 * for NAME (e.g. "fx-v61-512m") and gets "$MDF_VMCORE_CACHE/NAME.elf", or
 * the reason to skip the case.  The VMCOREINFO text comes from the
 * vmcore's own note, found by elf_info_open() as dump.c does, so no
 * separate text file is needed.
 *
 * Header-only (static inline); include it after tap.h.
 */
#ifndef MDF_TESTS_REALVM_H
#define MDF_TESTS_REALVM_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_info.h"
#include "error.h"

struct realvm {
	char path[PATH_MAX];     /* $MDF_VMCORE_CACHE/NAME.elf */
	char why[PATH_MAX + 80]; /* the reason to skip, when not found */
};

/* True when $MDF_VMCORE_CACHE/@name.elf is readable; else @rv->why says why. */
static inline bool realvm_find(struct realvm *rv, const char *name)
{
	const char *dir = getenv("MDF_VMCORE_CACHE");

	rv->path[0] = '\0';
	rv->why[0] = '\0';
	if (!dir || !dir[0]) {
		snprintf(rv->why, sizeof(rv->why),
			 "MDF_VMCORE_CACHE not set (tests/run.sh sets it), no %.100s.elf",
			 name);
		return false;
	}
	if (snprintf(rv->path, sizeof(rv->path), "%s/%s.elf", dir, name) >=
	    (int)sizeof(rv->path)) {
		snprintf(rv->why, sizeof(rv->why), "MDF_VMCORE_CACHE path too long");
		rv->path[0] = '\0';
		return false;
	}
	if (access(rv->path, R_OK) != 0) {
		snprintf(rv->why, sizeof(rv->why), "no %s", rv->path);
		return false;
	}
	return true;
}

/* realvm_find(), and t_skip() with the reason when it fails. */
static inline bool realvm_find_or_skip(struct realvm *rv, const char *name)
{
	if (realvm_find(rv, name))
		return true;
	t_skip(rv->why);
	return false;
}

/*
 * The VMCOREINFO text of the ELF vmcore @path, as elf_info_open() finds it
 * in the notes: *@text is a malloc()ed copy of the vmcoreinfo_len bytes
 * (trailing NULs of the descriptor already dropped) plus a terminating
 * NUL, *@len its length.  The caller frees *@text.
 */
static inline enum mdf_status realvm_vmcoreinfo(const char *path, char **text,
						size_t *len, struct mdf_err *err)
{
	struct elf_info ei;
	enum mdf_status st;
	int fd;

	*text = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mdf_err_errno(err, MDF_ERR_IO, errno, "cannot open %s", path);
	st = elf_info_open(&ei, fd, path, err);
	if (st == MDF_OK) {
		*text = malloc(ei.vmcoreinfo_len + 1);
		if (*text) {
			memcpy(*text, ei.vmcoreinfo, ei.vmcoreinfo_len);
			(*text)[ei.vmcoreinfo_len] = '\0';
			*len = ei.vmcoreinfo_len;
		} else {
			st = mdf_err_set(err, MDF_ERR_NOMEM, "%s: VMCOREINFO copy", path);
		}
		elf_info_close(&ei);
	}
	close(fd);
	return st;
}

#endif
