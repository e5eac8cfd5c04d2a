/*
 * test_kcore.c - kcore.c: which files are a /proc/kcore, what their facts
 * say (live, never marked incomplete by e_flags), and a page the running
 * kernel would not hand out read as lost (MDF_ERR_NODATA) where the ELF
 * ops fail the read.  On machines of the real generator (genvm.h): one
 * spec, as a plain vmcore and with kcore's p_paddr -1 segments.
 */
#include <fcntl.h>
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
#include "genvm.h"
#include "input.h"
#include "kcore.h"
#include "tap.h"

static struct genvm gv;
static char vm_plain[PATH_MAX + 64], vm_kcore[PATH_MAX + 64];

static const char spec_plain[] =
	"kernel 6.1\nseed 3\nram 0x100000 +64M\nvmcoreinfo del CRASHTIME\n";
static const char spec_kcore[] =
	"kernel 6.1\nseed 3\nram 0x100000 +64M\nvmcoreinfo del CRASHTIME\nkcore\n";

static bool need_vms(void)
{
	if (!gv.ok)
		t_skip(gv.why);
	return gv.ok;
}

/* @path opened into @ei; false when the machines are not there (a
 * skipped case) or it does not open (a failed one). */
static bool open_elf(struct elf_info *ei, const char *path, int flags, int *fd)
{
	struct mdf_err err;

	*fd = -1;
	if (!need_vms())
		return false;
	*fd = open(path, flags | O_CLOEXEC);
	if (*fd < 0 || elf_info_open(ei, *fd, path, &err) != MDF_OK) {
		t_fail(__FILE__, __LINE__, path);
		if (*fd >= 0)
			close(*fd);
		return false;
	}
	return true;
}

/* The shape decides: p_paddr -1 segments, not the name. */
static void t_detect(void)
{
	struct elf_info ei;
	int fd;

	if (!open_elf(&ei, vm_kcore, O_RDONLY, &fd))
		return;
	T_EQ_U64(ei.nophys_loads, 3);
	T_ASSERT(kcore_detect(&ei, fd));
	T_ASSERT(!kcore_is_proc_kcore(fd));
	elf_info_close(&ei);
	close(fd);

	if (!open_elf(&ei, vm_plain, O_RDONLY, &fd))
		return;
	T_EQ_U64(ei.nophys_loads, 0);
	T_ASSERT(!kcore_detect(&ei, fd));
	elf_info_close(&ei);
	close(fd);
}

/* Live, and e_flags bit 0 is no "incomplete" mark in a kcore (it is the
 * arch's ELF_CORE_EFLAGS there); the ELF ops read it as one. */
static void t_facts(void)
{
	struct input_facts f, fe;
	struct elf_info ei;
	int fd;

	if (!open_elf(&ei, vm_kcore, O_RDONLY, &fd))
		return;
	ei.e_flags |= ELF_INFO_EF_INCOMPLETE;
	kcore_input_ops.facts(&ei, &f);
	elf_input_ops.facts(&ei, &fe);
	T_ASSERT(f.live);
	T_ASSERT(!f.incomplete);
	T_ASSERT(!fe.live);
	T_ASSERT(fe.incomplete);
	T_EQ_U64(f.nr_cpus, fe.nr_cpus);
	T_EQ_U64(f.max_paddr, fe.max_paddr);
	T_ASSERT(f.vmcoreinfo != NULL);
	T_EQ_STR(kcore_input_ops.kind, "/proc/kcore");
	T_ASSERT(kcore_input_ops.file_run == NULL);
	elf_info_close(&ei);
	close(fd);
}

/*
 * The file shrinks under the reader (memory hot-removed while we copy):
 * the last page of the highest RAM segment reads short.  The ELF ops say
 * the file ends too early; kcore's say the page is lost, and pages that
 * are still there read as before.
 */
static void t_lost_page(void)
{
	struct cache_config cfg = { .nentries = 4, .policy = CACHE_MMAP_NEVER };
	char copy[PATH_MAX + 80], cmd[2 * PATH_MAX + 200];
	unsigned char page[4096];
	const unsigned char *p;
	const struct elf_load *last = NULL;
	struct elf_info ei;
	struct cache cache;
	struct mdf_err err;
	uint64_t lastpfn;
	enum mdf_status st;
	int fd;

	if (!need_vms())
		return;
	snprintf(copy, sizeof(copy), "%s.cut", vm_kcore);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", vm_kcore, copy);
	T_ASSERT(system(cmd) == 0);
	if (!open_elf(&ei, copy, O_RDWR, &fd))
		return;
	for (size_t i = 0; i < ei.nloads; i++)
		if (ei.loads[i].filesz &&
		    (!last || ei.loads[i].offset > last->offset))
			last = &ei.loads[i];
	T_ASSERT(last != NULL);
	lastpfn = (last->paddr + last->filesz) / 4096 - 1;
	T_ASSERT(ftruncate(fd, (off_t)(last->offset + last->filesz - 4096)) == 0);
	T_OK(cache_init(&cache, fd, copy, &cfg, &err), &err);

	st = elf_input_ops.page(&ei, &cache, lastpfn, 4096, page, &p, &err);
	T_EQ_U64(st, MDF_ERR_FORMAT);
	st = kcore_input_ops.page(&ei, &cache, lastpfn, 4096, page, &p, &err);
	T_EQ_U64(st, MDF_ERR_NODATA);
	T_ASSERT(strstr(err.msg, "of the running system could not be read: ") != NULL);
	st = kcore_input_ops.read_paddr(&ei, &cache, lastpfn * 4096 + 8, page, 8, &err);
	T_EQ_U64(st, MDF_ERR_NODATA);
	/* The page before it is whole. */
	T_OK(kcore_input_ops.page(&ei, &cache, lastpfn - 1, 4096, page, &p, &err), &err);
	T_OK(kcore_input_ops.read_paddr(&ei, &cache, (lastpfn - 1) * 4096, page, 64, &err),
	     &err);
	/* A hole stays what the ELF ops say it is, not a lost page. */
	st = kcore_input_ops.read_paddr(&ei, &cache, 0x10, page, 8, &err);
	T_EQ_U64(st, MDF_ERR_NODATA);
	T_EQ_STR(err.msg, "physical address 0x10 is not in any PT_LOAD");
	cache_release(&cache);
	elf_info_close(&ei);
	close(fd);
	unlink(copy);
}

int main(int argc, char **argv)
{
	(void)argc;
	genvm_init(&gv, argv[0], "mdf-kcore");
	genvm_make(&gv, spec_plain, "plain.elf", vm_plain, sizeof(vm_plain));
	genvm_make(&gv, spec_kcore, "kcore.elf", vm_kcore, sizeof(vm_kcore));

	T_RUN(t_detect);
	T_RUN(t_facts);
	T_RUN(t_lost_page);
	genvm_fini(&gv);
	return t_done();
}
