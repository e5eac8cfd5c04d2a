/*
 * tests/lib/genvm.h - unit tests on machines made by the real generator,
 * build/<flavour>/tests/gen/mkvmcore (found from the test's own path):
 * a temporary directory, vmcores made there from spec text, a struct
 * page field patched afterwards, and the directory removed at the end.
 * When a step fails, the cases that need the machines skip, for the
 * first reason (g.ok false, g.why).
 *
 * Header-only (static inline).
 */
#ifndef MDF_TESTS_GENVM_H
#define MDF_TESTS_GENVM_H

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_info.h"
#include "error.h"
#include "readmem.h"
#include "vmsetup.h"

struct genvm {
	char dir[64];            /* the temporary directory; "" when none */
	char bin[PATH_MAX + 64]; /* the generator */
	bool ok;                 /* false: the cases skip, for @why */
	const char *why;
};

/* The first reason wins: a later step only fails a set-up that was ok. */
static inline void genvm_fail(struct genvm *g, const char *why)
{
	if (g->ok) {
		g->ok = false;
		g->why = why;
	}
}

/* The generator next to @argv0's directory (build/<flavour>/tests/unit)
 * and a new /tmp/@prefix.XXXXXX. */
static inline void genvm_init(struct genvm *g, const char *argv0, const char *prefix)
{
	char self[PATH_MAX], *slash;

	memset(g, 0, sizeof(*g));
	g->why = "mkvmcore not built";
	if (realpath(argv0, self) && (slash = strrchr(self, '/'))) {
		*slash = '\0';
		snprintf(g->bin, sizeof(g->bin), "%s/../gen/mkvmcore", self);
		g->ok = access(g->bin, X_OK) == 0;
	}
	snprintf(g->dir, sizeof(g->dir), "/tmp/%s.XXXXXX", prefix);
	if (!mkdtemp(g->dir)) {
		g->dir[0] = '\0';
		g->ok = false;
		g->why = "cannot make a temporary directory";
	}
}

/* The path of @name in the directory, in @out (@len bytes). */
static inline const char *genvm_name(const struct genvm *g, const char *name, char *out,
				     size_t len)
{
	snprintf(out, len, "%s/%s", g->dir, name);
	return out;
}

/* The generator's vmcore for @spec (its text) as @name in the directory;
 * its path in @out (also when the set-up has already failed). */
static inline bool genvm_make(struct genvm *g, const char *spec, const char *name,
			      char *out, size_t len)
{
	char sp[PATH_MAX], cmd[3 * PATH_MAX + 64];
	FILE *f;
	bool made;

	genvm_name(g, name, out, len);
	if (!g->ok)
		return false;
	snprintf(sp, sizeof(sp), "%s/spec", g->dir);
	f = fopen(sp, "w");
	made = f != NULL;
	if (f) {
		fputs(spec, f);
		made = fclose(f) == 0;
	}
	if (made) {
		snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' >/dev/null 2>&1", g->bin, sp, out);
		made = system(cmd) == 0;
	}
	if (!made)
		genvm_fail(g, "mkvmcore failed on the test spec");
	return made;
}

/* Set the compound order of the page at pfn @head to @order in @path's
 * struct pages, as a 6.1 x86_64 kernel keeps it (4 KiB pages, 64-byte
 * struct pages from @vmemmap, page[1] byte 17), in every PT_LOAD that
 * holds it. */
static inline bool genvm_set_order(struct genvm *g, const char *path, uint64_t vmemmap,
				   uint64_t head, uint8_t order)
{
	struct test_vm v;
	struct mdf_err err;
	uint64_t pa;
	int fd, n = 0;

	if (!g->ok)
		return false;
	if (test_vm_open(&v, path, NULL, 4096, &err) != MDF_OK ||
	    readmem_vtop(&v.k.rm, vmemmap + (head + 1) * 64 + 17, &pa, NULL, &err) != MDF_OK) {
		test_vm_close(&v);
		genvm_fail(g, "cannot patch the compound order in the generated vmcore");
		return false;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	for (size_t i = 0; fd >= 0 && i < v.elf.nloads; i++) {
		const struct elf_load *l = &v.elf.loads[i];

		if (pa >= l->paddr && pa < l->paddr + l->filesz &&
		    pwrite(fd, &order, 1, (off_t)(l->offset + pa - l->paddr)) == 1)
			n++;
	}
	test_vm_close(&v);
	if (fd < 0 || close(fd) != 0 || n == 0) {
		genvm_fail(g, "cannot patch the compound order in the generated vmcore");
		return false;
	}
	return true;
}

/* Remove the directory and all that was made in it. */
static inline void genvm_fini(struct genvm *g)
{
	char cmd[128];

	if (!g->dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", g->dir);
	g->dir[0] = '\0';
}

#endif
