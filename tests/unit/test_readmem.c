/*
 * tests/unit/test_readmem.c - the no-copy reads of readmem.c on a machine
 * made by tests/gen/mkvmcore: readmem_vaddr_view() (struct pages in place)
 * and readmem_page_ref()/readmem_page_unref() (pinned pages for workers).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "kernel/memmap.h"
#include "readmem.h"
#include "tap.h"
#include "vmsetup.h"
#include "util.h"

#define PAGE 4096ULL
#define SPS 64 /* SIZE(page) of the generator's 6.1 layout */

static const char spec[] =
	"kernel 6.1\n"
	"cpus 1\n"
	"ram 0x100000 0x20000000\n"
	"pages 0x10000+256 anon random 3\n"
	"fill 0x11000+64 text 5\n";

static char tmpdir[64];
static char vm[PATH_MAX];
static const char *why = "mkvmcore not built";
static bool have_vm;

struct machine {
	struct test_vm v;
	struct memmap mm;
};

static enum mdf_status machine_open(struct machine *m, enum cache_mmap_policy pol,
				    struct mdf_err *err)
{
	struct cache_config cc = { .policy = pol };
	enum mdf_status st = test_vm_open(&m->v, vm, &cc, PAGE, err);

	memset(&m->mm, 0, sizeof(m->mm));
	if (st != MDF_OK)
		return st;
	return memmap_init(&m->mm, &m->v.k.ki, PAGE,
			   div_round_up(elf_info_max_paddr(&m->v.elf), PAGE), err);
}

static void machine_close(struct machine *m)
{
	test_vm_close(&m->v);
}

/* Struct pages in place equal the copied ones, batch after batch. */
static void t_view_equals_copy(void)
{
	static unsigned char copy[512 * SPS], buf[512 * SPS];
	struct machine m;
	struct mdf_err err;
	unsigned inplace = 0, batches = 0;

	if (!have_vm) {
		t_skip(why);
		return;
	}
	T_OK(machine_open(&m, CACHE_MMAP_TRY, &err), &err);
	for (uint64_t pfn = 0x100; pfn < 0x20000; pfn += 512 * 7) {
		uint64_t va;
		const unsigned char *p;
		bool have;

		T_OK(memmap_page_vaddr(&m.mm, &m.v.k.rm, pfn, &va, &have, &err), &err);
		if (!have)
			continue;
		T_OK(readmem_vaddr(&m.v.k.rm, va, copy, sizeof(copy), &err), &err);
		memset(buf, 0x5a, sizeof(buf));
		T_OK(readmem_vaddr_view(&m.v.k.rm, va, sizeof(buf), buf, &p, &err), &err);
		T_ASSERT(memcmp(p, copy, sizeof(copy)) == 0);
		inplace += p != buf;
		batches++;
	}
	T_ASSERT(batches > 10);
	/* vmemmap is contiguous: all but a batch crossing a segment end */
	T_ASSERT(inplace + 2 >= batches);
	machine_close(&m);
}

/* An address nothing maps: the same error as the copying read. */
static void t_view_errors(void)
{
	unsigned char buf[64];
	const unsigned char *p = NULL;
	struct machine m;
	struct mdf_err e1, e2;
	enum mdf_status s1, s2;

	if (!have_vm) {
		t_skip(why);
		return;
	}
	T_OK(machine_open(&m, CACHE_MMAP_TRY, &e1), &e1);
	s1 = readmem_vaddr(&m.v.k.rm, 0xffffc90000000000ULL, buf, sizeof(buf), &e1);
	s2 = readmem_vaddr_view(&m.v.k.rm, 0xffffc90000000000ULL, sizeof(buf), buf, &p, &e2);
	T_ASSERT(s1 != MDF_OK);
	T_EQ_U64(s2, s1);
	T_EQ_STR(e2.msg, e1.msg);
	machine_close(&m);
}

/* Pinned pages: same bytes as readmem_page, still valid after many other
 * reads, one pin per window entry counted, released by unref. */
static void t_page_ref(void)
{
	static unsigned char scratch[PAGE], want[4][PAGE];
	static const uint64_t pfns[4] = { 0x10000, 0x10001, 0x11000, 0x1ff00 };
	const unsigned char *got[4];
	struct cache_entry *pin[4];
	struct machine m;
	struct mdf_err err;

	if (!have_vm) {
		t_skip(why);
		return;
	}
	T_OK(machine_open(&m, CACHE_MMAP_TRY, &err), &err);
	for (int i = 0; i < 4; i++) {
		const unsigned char *p;

		T_OK(readmem_page(&m.v.k.rm, pfns[i], scratch, &p, &err), &err);
		memcpy(want[i], p, PAGE);
	}
	for (int i = 0; i < 4; i++) {
		T_OK(readmem_page_ref(&m.v.k.rm, pfns[i], scratch, &got[i], &pin[i], &err), &err);
		T_ASSERT(pin[i] != NULL && cache_entry_mapped(pin[i]));
	}
	T_ASSERT(m.v.cache.npinned >= 1 && m.v.cache.npinned <= 4);
	/* Other reads in between do not move pinned bytes. */
	for (uint64_t pfn = 0x100; pfn < 0x1f000; pfn += 0x800) {
		const unsigned char *p;

		T_OK(readmem_page(&m.v.k.rm, pfn, scratch, &p, &err), &err);
	}
	for (int i = 0; i < 4; i++) {
		T_ASSERT(memcmp(got[i], want[i], PAGE) == 0);
		readmem_page_unref(&m.v.k.rm, pfns[i], pin[i]);
	}
	T_EQ_U64(m.v.cache.npinned, 0);
	readmem_page_unref(&m.v.k.rm, 0, NULL); /* does nothing */
	machine_close(&m);

	/* Read buffers are refilled in place: never pinned, bytes still right. */
	T_OK(machine_open(&m, CACHE_MMAP_NEVER, &err), &err);
	T_OK(readmem_page_ref(&m.v.k.rm, pfns[2], scratch, &got[0], &pin[0], &err), &err);
	T_ASSERT(pin[0] == NULL && memcmp(got[0], want[2], PAGE) == 0);
	T_EQ_U64(m.v.cache.npinned, 0);
	machine_close(&m);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], gen_bin[PATH_MAX + 64], cmd[PATH_MAX * 2 + 256], *slash;
	FILE *f;

	(void)argc;
	if (realpath(argv[0], self) && (slash = strrchr(self, '/'))) {
		*slash = '\0'; /* build/<flavour>/tests/unit */
		snprintf(gen_bin, sizeof(gen_bin), "%s/../gen/mkvmcore", self);
		have_vm = access(gen_bin, X_OK) == 0;
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/mdf-readmem.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		tmpdir[0] = '\0';
		have_vm = false;
		why = "cannot make a temporary directory";
	}
	snprintf(vm, sizeof(vm), "%s/vm.elf", tmpdir);
	if (have_vm) {
		snprintf(cmd, sizeof(cmd), "'%s' - '%s' >/dev/null 2>&1", gen_bin, vm);
		f = popen(cmd, "w");
		if (!f || fputs(spec, f) < 0 || pclose(f) != 0) {
			have_vm = false;
			why = "mkvmcore failed on the test spec";
		}
	}

	T_RUN(t_view_equals_copy);
	T_RUN(t_view_errors);
	T_RUN(t_page_ref);

	if (tmpdir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", tmpdir);
	}
	return t_done();
}
