/*
 * tests/fuzz/fuzz_dwarf.c - a debug vmlinux's DWARF, as -x, -g and
 * --config read it (kernel/dwarf_info.c).
 *
 * The input is an ELF file, written to a memfd and opened by its
 * /proc/self/fd path with dwarf_info_open(); then dwarf_info_kinfo()
 * (every key -x and -g look up), dwarf_info_lookup() of variables and
 * types a config or the kernel's note names, and, as --config's member
 * paths do, dwarf_type_describe() and dwarf_type_member() from each one
 * found, through members, pointers and array elements, a few steps deep.
 * Any bytes end in a status: never a crash, a hang (every walk over the
 * types is bounded) or a sanitizer report, and every failure names the
 * file.
 *
 * Seed corpus (tests/fuzz/corpus/dwarf/), each file under 64 KiB: the
 * hand-written loops of tests/gen/kobj/cycle.S and the synthetic kernel
 * object, as the Makefile builds them:
 *   make build/default/tests/gen/cycle-{anon,ring,typedef,array,sibling,spec,origin,config}
 *   make build/default/tests/gen/kobj build/default/tests/gen/kobj-other
 *   cp build/default/tests/gen/cycle-* build/default/tests/gen/kobj* tests/fuzz/corpus/dwarf/
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "error.h"
#include "kernel/dwarf_info.h"
#include "kernel/vmcoreinfo.h"
#include "kinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


/* The names a lookup asks for: the seeds' variables and types. */
static const struct {
	const char *name;
	bool is_type;
} fuzz_names[] = {
	{ "init_uts_ns", false }, { "node_data", false }, { "mem_section", false },
	{ "kobj_page", false }, { "vmap_area_list", false }, { "cyc_anon", false },
	{ "cyc_ring", false }, { "cyc_typedef", false }, { "cyc_array", false },
	{ "cyc_self", false }, { "big_array", false }, { "huge_array", false },
	{ "wide_array", false }, { "page", true }, { "uts_namespace", true },
	{ "nodemask_t", true }, { "zone", true }, { "list_head", true },
	{ "cyc_anon_t", true }, { "pud_t", true },
};

static const char *const fuzz_members[] = {
	"name", "release", "flags", "lru", "next", "_refcount", "m", "bits", "free_area",
	"compound_head", "secret",
};

/* A failure says which file. */
static void fuzz_failed(const struct mdf_err *err, const char *path)
{
	FUZZ_CHECK(err->msg[0] != '\0');
	FUZZ_CHECK(strncmp(err->msg, path, strlen(path)) == 0);
}

static void fuzz_type(struct dwarf_info *di, const char *path, struct dwarf_type t,
		      unsigned depth)
{
	struct dwarf_type_info ti;
	struct mdf_err err;

	mdf_err_clear(&err);
	if (dwarf_type_describe(di, t, &ti, &err) != MDF_OK) {
		fuzz_failed(&err, path);
		return;
	}
	FUZZ_CHECK(ti.kind <= DWARF_T_INT);
	FUZZ_CHECK(!ti.is_char || (ti.kind == DWARF_T_INT && ti.size == 1));
	if (depth == 0)
		return;
	switch (ti.kind) {
	case DWARF_T_POINTER:
	case DWARF_T_ARRAY:
		fuzz_type(di, path, ti.target, depth - 1);
		break;
	case DWARF_T_STRUCT:
		for (size_t i = 0; i < sizeof(fuzz_members) / sizeof(fuzz_members[0]); i++) {
			struct dwarf_type mt = { 0 };
			uint64_t off = 0;
			bool found = false;

			mdf_err_clear(&err);
			if (dwarf_type_member(di, t, fuzz_members[i], &found, &off, &mt, &err) !=
			    MDF_OK) {
				fuzz_failed(&err, path);
				continue;
			}
			if (found)
				fuzz_type(di, path, mt, depth - 1);
		}
		break;
	default:
		break;
	}
}

static void fuzz_opened(struct dwarf_info *di, const char *path)
{
	struct dwarf_query q[sizeof(fuzz_names) / sizeof(fuzz_names[0])];
	struct dwarf_facts facts;
	struct kinfo *ki = malloc(sizeof(*ki));
	struct mdf_err err;
	uint64_t addr, sz;
	size_t n = sizeof(q) / sizeof(q[0]);

	if (!ki)
		return;
	kinfo_init(ki);
	mdf_err_clear(&err);
	if (dwarf_info_kinfo(di, ki, &facts, &err) == MDF_OK)
		FUZZ_CHECK(memchr(ki->osrelease, '\0', sizeof(ki->osrelease)) != NULL);
	else
		fuzz_failed(&err, path);
	free(ki);
	(void)dwarf_info_symbol(di, "init_uts_ns", &addr, &sz);

	memset(q, 0, sizeof(q));
	for (size_t i = 0; i < n; i++) {
		q[i].name = fuzz_names[i].name;
		q[i].is_type = fuzz_names[i].is_type;
	}
	mdf_err_clear(&err);
	if (dwarf_info_lookup(di, q, n, &err) != MDF_OK) {
		fuzz_failed(&err, path);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (q[i].found)
			fuzz_type(di, path, q[i].type, 3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwarf_info *di = NULL;
	struct mdf_err err;
	char path[64];
	int fd = fuzz_memfd("fuzz_dwarf", data, size);

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	mdf_err_clear(&err);
	if (dwarf_info_open(path, &di, &err) == MDF_OK) {
		fuzz_opened(di, path);
		dwarf_info_close(di);
	} else {
		fuzz_failed(&err, path);
	}
	close(fd);
	return 0;
}
