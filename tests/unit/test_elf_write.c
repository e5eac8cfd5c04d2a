/*
 * test_elf_write.c - the -E writer against a fake dump source: the file is
 * read back with libelf and with byte checks.
 */
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bitmap.h"
#include "elf_info.h"
#include "write/elf_write.h"
#include "write/output.h"
#include "tap.h"
#include "testutil.h"
#include "util.h"

/* ---- fake dump source ---------------------------------------------- */

struct fake {
	uint64_t ps, max_pfn, cycle_pfns;
	bool (*dumpable)(uint64_t pfn);
	struct bitmap present, dump;
	unsigned char *page;
	uint64_t ncycles, next_start;
	bool out_of_order, drop_zero_seen;
	uint64_t page_calls;
};

static uint8_t pat(uint64_t pa)
{
	uint64_t x = (pa >> 3) * 0x9e3779b97f4a7c15ULL;

	return (uint8_t)((x >> 56) ^ (pa & 7) ^ 0x5a);
}

static enum mdf_status fake_cycle(void *arg, uint64_t start, bool drop_zero,
				  const struct bitmap **present,
				  const struct bitmap **dumpable,
				  struct mdf_err *err)
{
	struct fake *f = arg;
	uint64_t end = MDF_MIN(start + f->cycle_pfns, f->max_pfn);

	(void)err;
	if (start != f->next_start)
		f->out_of_order = true;
	f->next_start = end;
	f->ncycles++;
	f->drop_zero_seen = drop_zero;
	bitmap_reset(&f->present, start, end);
	bitmap_reset(&f->dump, start, end);
	bitmap_set_range(&f->present, start, end);
	for (uint64_t pfn = start; pfn < end; pfn++)
		if (f->dumpable(pfn))
			bitmap_set(&f->dump, pfn);
	*present = &f->present;
	*dumpable = &f->dump;
	return MDF_OK;
}

static enum mdf_status fake_page(void *arg, uint64_t pfn,
				 const unsigned char **data, struct mdf_err *err)
{
	struct fake *f = arg;

	(void)err;
	for (uint64_t j = 0; j < f->ps; j++)
		f->page[j] = pat(pfn * f->ps + j);
	f->page_calls++;
	*data = f->page;
	return MDF_OK;
}

static bool fake_init(struct fake *f, struct dump_source *src, uint64_t ps,
		      uint64_t max_pfn, uint64_t cycle_pfns,
		      bool (*dumpable)(uint64_t))
{
	struct mdf_err err;

	memset(f, 0, sizeof(*f));
	f->ps = ps;
	f->max_pfn = max_pfn;
	f->cycle_pfns = cycle_pfns;
	f->dumpable = dumpable;
	f->page = malloc(ps);
	if (!f->page || bitmap_init(&f->present, cycle_pfns, &err) != MDF_OK ||
	    bitmap_init(&f->dump, cycle_pfns, &err) != MDF_OK)
		return false;
	memset(src, 0, sizeof(*src));
	src->arg = f;
	src->page_size = ps;
	src->max_pfn = max_pfn;
	src->cycle_pfns = cycle_pfns;
	src->cycle = fake_cycle;
	src->page = fake_page;
	return true;
}

static void fake_release(struct fake *f)
{
	bitmap_release(&f->present);
	bitmap_release(&f->dump);
	free(f->page);
}

/* ---- helpers -------------------------------------------------------- */

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char path[128];

	if (!tmpdir[0]) {
		strcpy(tmpdir, "/tmp/test_elf_write.XXXXXX");
		if (!mkdtemp(tmpdir))
			return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	unlink(path);
	return path;
}

/* readelf -lW must accept the file without a warning. */
static int readelf_ok(const char *file)
{
	char cmd[512], path[128], errp[128];
	size_t len = 0;
	unsigned char *e;
	int rc;

	snprintf(path, sizeof(path), "%s", file);
	snprintf(errp, sizeof(errp), "%s", tmp_path("readelf.err"));
	if (system("command -v readelf >/dev/null 2>&1") != 0)
		return 1;
	snprintf(cmd, sizeof(cmd), "readelf -lW '%s' >/dev/null 2>'%s'", path, errp);
	rc = system(cmd);
	e = t_slurp(errp, &len);
	free(e);
	unlink(errp);
	return rc == 0 && len == 0;
}

static const unsigned char test_notes[] = {
	5, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 'C', 'O', 'R', 'E', 0, 0, 0, 0,
	1, 2, 3, 4, 5, 6, 7, 8,
	11, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 'V', 'M', 'C', 'O', 'R', 'E', 'I',
	'N', 'F', 'O', 0, 0, 'a', '=', '1', '\n',
};

struct exp_seg {
	uint64_t paddr, vaddr, filesz, memsz;
};

/* Check the PT_LOADs with libelf against @exp and their bytes against
 * the pattern; the note copy too. */
static int check_file(const char *path, int cls, int data, uint16_t machine,
		      uint32_t flags, const struct exp_seg *exp, size_t nexp,
		      bool complete, char *why, size_t whylen)
{
	size_t len = 0, phnum = 0;
	unsigned char *buf = t_slurp(path, &len);
	int fd = open(path, O_RDONLY), ok = 0;
	Elf *e = NULL;
	GElf_Ehdr eh;
	GElf_Phdr ph;

	snprintf(why, whylen, "cannot read %s", path);
	if (!buf || fd < 0 || elf_version(EV_CURRENT) == EV_NONE)
		goto out;
	e = elf_begin(fd, ELF_C_READ, NULL);
	snprintf(why, whylen, "libelf: %s", elf_errmsg(-1));
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    elf_getphdrnum(e, &phnum) != 0)
		goto out;
	snprintf(why, whylen, "ehdr: class %d data %d type %d machine %d flags 0x%x phnum %zu",
		 eh.e_ident[EI_CLASS], eh.e_ident[EI_DATA], eh.e_type,
		 eh.e_machine, (unsigned)eh.e_flags, phnum);
	if (eh.e_ident[EI_CLASS] != cls || eh.e_ident[EI_DATA] != data ||
	    eh.e_type != ET_CORE || eh.e_machine != machine ||
	    eh.e_flags != flags || phnum != nexp + 1 ||
	    eh.e_phoff != (cls == ELFCLASS64 ? 64u : 52u))
		goto out;
	if (!gelf_getphdr(e, 0, &ph) || ph.p_type != PT_NOTE ||
	    ph.p_filesz != sizeof(test_notes) || ph.p_offset + ph.p_filesz > len ||
	    memcmp(buf + ph.p_offset, test_notes, sizeof(test_notes)) != 0) {
		snprintf(why, whylen, "PT_NOTE wrong");
		goto out;
	}
	uint64_t next_off = 0;

	for (size_t i = 0; i < nexp; i++) {
		if (!gelf_getphdr(e, (int)i + 1, &ph))
			goto out;
		snprintf(why, whylen,
			 "PT_LOAD %zu: type %u paddr 0x%llx vaddr 0x%llx filesz 0x%llx "
			 "memsz 0x%llx off 0x%llx align %llu flags %x, expected paddr 0x%llx "
			 "vaddr 0x%llx filesz 0x%llx memsz 0x%llx", i, ph.p_type,
			 (unsigned long long)ph.p_paddr, (unsigned long long)ph.p_vaddr,
			 (unsigned long long)ph.p_filesz, (unsigned long long)ph.p_memsz,
			 (unsigned long long)ph.p_offset, (unsigned long long)ph.p_align,
			 (unsigned)ph.p_flags,
			 (unsigned long long)exp[i].paddr, (unsigned long long)exp[i].vaddr,
			 (unsigned long long)exp[i].filesz, (unsigned long long)exp[i].memsz);
		if (ph.p_type != PT_LOAD || ph.p_paddr != exp[i].paddr ||
		    ph.p_vaddr != exp[i].vaddr || ph.p_filesz != exp[i].filesz ||
		    ph.p_memsz != exp[i].memsz || ph.p_align != 0 ||
		    ph.p_flags != (PF_R | PF_W | PF_X) ||
		    (ph.p_filesz && i > 0 && next_off && ph.p_offset != next_off))
			goto out; /* data back to back */
		/* A load without data: offset 0 when it leads a split PT_LOAD,
		 * else where data would follow (as upstream writes them;
		 * e2e/real_write compares whole files with 1.7.2's). */
		if (!ph.p_filesz && ph.p_offset != 0 && next_off && ph.p_offset != next_off)
			goto out;
		if (ph.p_offset)
			next_off = ph.p_offset + ph.p_filesz;
		if (complete && ph.p_offset + ph.p_filesz > len)
			goto out;
		for (uint64_t j = 0; j < ph.p_filesz && ph.p_offset + j < len; j++) {
			if (buf[ph.p_offset + j] != pat(ph.p_paddr + j)) {
				if (!complete && buf[ph.p_offset + j] == 0)
					break; /* lost tail of an incomplete dump */
				snprintf(why, whylen, "PT_LOAD %zu: byte 0x%llx (paddr 0x%llx) is 0x%x, expected 0x%x",
					 i, (unsigned long long)j,
					 (unsigned long long)(ph.p_paddr + j),
					 buf[ph.p_offset + j], pat(ph.p_paddr + j));
				goto out;
			}
		}
	}
	ok = 1;
out:
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	free(buf);
	return ok;
}

/* ---- the main scenario ---------------------------------------------- */

#define PS 4096ULL

/*
 * pfn space 0..4095, cycles of 1024 pfns.  loads[0] = kernel text alias
 * pfns 512..767; loads[1] = RAM from 0x800 (partial first page) to
 * 2048*PS + 0x234 (partial last page); loads[2] = pfns 2304..4095.
 */
static bool main_dumpable(uint64_t pfn)
{
	if (pfn >= 1 && pfn <= 99)
		return true;
	if (pfn >= 100 && pfn <= 109) /* 10 excluded: kept */
		return false;
	if (pfn >= 110 && pfn <= 599)
		return true;
	if (pfn >= 600 && pfn <= 1100) /* 501 excluded, across a cycle: split */
		return false;
	if (pfn >= 1101 && pfn <= 1299)
		return true;
	if (pfn >= 1300 && pfn <= 1554) /* 255: kept */
		return false;
	if (pfn >= 1555 && pfn <= 1599)
		return true;
	if (pfn >= 1600 && pfn <= 1855) /* 256: split */
		return false;
	if (pfn >= 1856 && pfn <= 1900)
		return true;
	if (pfn >= 1901 && pfn <= 2040) /* 140: kept */
		return false;
	if (pfn >= 2041 && pfn <= 2048)
		return true;
	if (pfn >= 2049 && pfn <= 2303) /* outside every load */
		return true;
	if (pfn >= 2600 && pfn <= 3000)
		return true;
	return false;   /* 2304..2599 leading 296, 3001.. trailing */
}

#define KTEXT 0xffffffff81000000ULL
#define DMAP 0xffff888000000000ULL

static struct elf_load main_loads[] = {
	{ .phdr_index = 1, .paddr = 512 * PS, .vaddr = KTEXT, .memsz = 256 * PS,
	  .filesz = 256 * PS },
	{ .phdr_index = 2, .paddr = 0x800, .vaddr = DMAP + 0x800,
	  .memsz = 2048 * PS + 0x234 - 0x800, .filesz = 2048 * PS + 0x234 - 0x800 },
	{ .phdr_index = 3, .paddr = 2304 * PS, .vaddr = DMAP + 2304 * PS,
	  .memsz = (4096 - 2304) * PS, .filesz = (4096 - 2304) * PS },
};

static const struct exp_seg main_exp[] = {
	{ 512 * PS, KTEXT, 88 * PS, 256 * PS },
	{ 0x800, DMAP + 0x800, 600 * PS - 0x800, 1101 * PS - 0x800 },
	{ 1101 * PS, DMAP + 1101 * PS, (1600 - 1101) * PS, (1856 - 1101) * PS },
	{ 1856 * PS, DMAP + 1856 * PS, 2048 * PS + 0x234 - 1856 * PS,
	  2048 * PS + 0x234 - 1856 * PS },
	{ 2304 * PS, DMAP + 2304 * PS, 0, 296 * PS },
	{ 2600 * PS, DMAP + 2600 * PS, 401 * PS, (4096 - 2600) * PS },
};

static void main_info(struct elf_info *ei, int cls, int data, uint32_t flags)
{
	memset(ei, 0, sizeof(*ei));
	ei->path = "fake.vmcore";
	ei->ei_class = cls;
	ei->ei_data = data;
	ei->e_machine = EM_X86_64;
	ei->e_flags = flags;
	ei->loads = main_loads;
	ei->nloads = ARRAY_SIZE(main_loads);
	ei->notes = (unsigned char *)test_notes;
	ei->notes_len = sizeof(test_notes);
}

static void test_main_layout(void)
{
	struct fake f;
	struct dump_source src;
	struct elf_info ei;
	struct elf_write_params p;
	struct elf_write_stats stats;
	struct out_sink out;
	struct mdf_err err;
	const char *path = tmp_path("main.elf");
	char why[600];
	uint64_t pages = 0, bytes = 0;

	T_ASSERT(path && fake_init(&f, &src, PS, 4096, 1024, main_dumpable));
	main_info(&ei, ELFCLASS64, ELFDATA2LSB, 0);
	p = (struct elf_write_params){ .in = &ei, .page_size = PS,
				       .notes = test_notes,
				       .notes_len = sizeof(test_notes),
				       .exclude_zero = true };
	T_OK(out_open_file(&out, path, false, 0, 0, &err), &err);
	T_OK(elf_write_dump(&p, &src, &out, &stats, &err), &err);
	T_OK(out_close(&out, &err), &err);

	/* One ordered walk over the cycles, with drop_zero passed on. */
	T_EQ_U64(f.ncycles, 4);
	T_ASSERT(!f.out_of_order);
	T_ASSERT(f.drop_zero_seen);

	for (size_t i = 0; i < ARRAY_SIZE(main_exp); i++) {
		bytes += main_exp[i].filesz;
		pages += div_round_up((main_exp[i].paddr + main_exp[i].filesz), PS) -
			 main_exp[i].paddr / PS;
	}
	T_EQ_U64(stats.segments, ARRAY_SIZE(main_exp));
	T_EQ_U64(stats.data_bytes, bytes);
	T_EQ_U64(stats.pages, pages);
	T_EQ_U64(f.page_calls, pages);
	T_ASSERT(!stats.incomplete);
	/* No padding: data follows the notes. */
	T_EQ_U64(stats.file_size, 64 + 7 * 56 + sizeof(test_notes) + bytes);

	if (!check_file(path, ELFCLASS64, ELFDATA2LSB, EM_X86_64, 0, main_exp,
			ARRAY_SIZE(main_exp), true, why, sizeof(why)))
		t_fail(__FILE__, __LINE__, why);
	T_ASSERT(readelf_ok(path));
	fake_release(&f);
}

/* Every dumpable pfn of every input segment is in the file, with its
 * bytes; the aliased kernel-text pages appear twice. */
static void test_main_every_page(void)
{
	struct fake f;
	struct dump_source src;
	struct elf_info ei;
	struct elf_write_params p;
	struct out_sink out;
	struct mdf_err err;
	const char *path = tmp_path("every.elf");
	size_t len = 0;
	unsigned char *buf;
	uint64_t phoff = 64, ktext_hits = 0;

	T_ASSERT(path && fake_init(&f, &src, PS, 4096, 1024, main_dumpable));
	main_info(&ei, ELFCLASS64, ELFDATA2LSB, 0);
	p = (struct elf_write_params){ .in = &ei, .page_size = PS,
				       .notes = test_notes,
				       .notes_len = sizeof(test_notes) };
	T_OK(out_open_file(&out, path, false, 0, 0, &err), &err);
	T_OK(elf_write_dump(&p, &src, &out, NULL, &err), &err);
	T_OK(out_close(&out, &err), &err);
	T_ASSERT(!f.drop_zero_seen);
	buf = t_slurp(path, &len);
	T_ASSERT(buf);
	T_EQ_U64(load_le16(buf + 56), 7); /* e_phnum */
	for (size_t li = 0; li < ARRAY_SIZE(main_loads); li++) {
		const struct elf_load *l = &main_loads[li];

		for (uint64_t pfn = div_round_up(l->paddr, PS);
		     (pfn + 1) * PS <= l->paddr + l->memsz; pfn++) {
			bool found = false;

			if (!main_dumpable(pfn))
				continue;
			/* Find it in the PT_LOADs belonging to this input segment:
			 * they are the ones whose vaddr - paddr matches. */
			for (unsigned i = 1; i < 7 && !found; i++) {
				const unsigned char *ph = buf + phoff + i * 56;
				uint64_t off = load_le64(ph + 8), va = load_le64(ph + 16);
				uint64_t pa = load_le64(ph + 24), fs = load_le64(ph + 32);

				if (va - pa != l->vaddr - l->paddr || pfn * PS < pa ||
				    (pfn + 1) * PS > pa + fs)
					continue;
				T_ASSERT(off + fs <= len);
				for (uint64_t j = 0; j < PS; j++)
					T_ASSERT(buf[off + pfn * PS - pa + j] == pat(pfn * PS + j));
				found = true;
				if (li == 0)
					ktext_hits++;
			}
			T_ASSERT(found);
		}
	}
	T_EQ_U64(ktext_hits, 88);
	/* The partial head page: bytes 0x800..0xfff of pfn 0 start seg 1. */
	{
		uint64_t off = load_le64(buf + phoff + 2 * 56 + 8);

		T_EQ_U64(buf[off], pat(0x800));
		T_EQ_U64(buf[off + 0x7ff], pat(0xfff));
	}
	free(buf);
	fake_release(&f);
}

/* An i386 vmcore from kexec-tools: ELF32 EM_386, lowmem at va = pa +
 * 0xC0000000, highmem with p_vaddr -1 (no virtual address).  A highmem
 * PT_LOAD cut in two by a run of excluded pages keeps -1 in both pieces;
 * so does one of ELF64 (all ones). */
static bool i386_dumpable(uint64_t pfn)
{
	return pfn < 8 || (pfn >= 16 && pfn < 20) || pfn >= 300;
}

static void test_elf32_i386_highmem(void)
{
	static struct elf_load loads[] = {
		{ .phdr_index = 1, .paddr = 0, .vaddr = 0xc0000000, .memsz = 16 * PS, .filesz = 16 * PS },
		{ .phdr_index = 2, .paddr = 16 * PS, .vaddr = 0xffffffff, .memsz = 300 * PS,
		  .filesz = 300 * PS },
	};
	static const struct exp_seg exp[] = {
		{ 0, 0xc0000000, 8 * PS, 16 * PS },
		{ 16 * PS, 0xffffffff, 4 * PS, 284 * PS }, /* the run folded in */
		{ 300 * PS, 0xffffffff, 16 * PS, 16 * PS },
	};
	struct fake f;
	struct dump_source src;
	struct elf_info ei;
	struct elf_write_params p;
	struct out_sink out;
	struct mdf_err err;
	struct elf_write_stats stats;
	const char *path = tmp_path("i386.elf");
	char why[600];

	T_ASSERT(path && fake_init(&f, &src, PS, 316, 4096, i386_dumpable));
	memset(&ei, 0, sizeof(ei));
	ei.ei_class = ELFCLASS32;
	ei.ei_data = ELFDATA2LSB;
	ei.e_machine = EM_386;
	ei.loads = loads;
	ei.nloads = ARRAY_SIZE(loads);
	p = (struct elf_write_params){ .in = &ei, .page_size = PS,
				       .notes = test_notes,
				       .notes_len = sizeof(test_notes) };
	T_OK(out_open_file(&out, path, false, 0, 0, &err), &err);
	T_OK(elf_write_dump(&p, &src, &out, &stats, &err), &err);
	T_OK(out_close(&out, &err), &err);
	T_EQ_U64(stats.segments, 3);
	if (!check_file(path, ELFCLASS32, ELFDATA2LSB, EM_386, 0, exp, ARRAY_SIZE(exp), true,
			why, sizeof(why)))
		t_fail(__FILE__, __LINE__, why);
	T_ASSERT(readelf_ok(path));

	/* ELF64 EM_386 (kexec-tools' choice with RAM above 4 GiB) */
	loads[1].vaddr = UINT64_MAX;
	ei.ei_class = ELFCLASS64;
	path = tmp_path("i386-64.elf");
	T_ASSERT(path);
	T_OK(out_open_file(&out, path, false, 0, 0, &err), &err);
	T_OK(elf_write_dump(&p, &src, &out, &stats, &err), &err);
	T_OK(out_close(&out, &err), &err);
	{
		static const struct exp_seg exp64[] = {
			{ 0, 0xc0000000, 8 * PS, 16 * PS },
			{ 16 * PS, UINT64_MAX, 4 * PS, 284 * PS },
			{ 300 * PS, UINT64_MAX, 16 * PS, 16 * PS },
		};

		if (!check_file(path, ELFCLASS64, ELFDATA2LSB, EM_386, 0, exp64,
				ARRAY_SIZE(exp64), true, why, sizeof(why)))
			t_fail(__FILE__, __LINE__, why);
	}
	loads[1].vaddr = 0xffffffff;
	fake_release(&f);
}

/* ELF32 big-endian, and odd segments: empty, all excluded, one page. */
static bool sparse_dumpable(uint64_t pfn)
{
	return pfn >= 8 && pfn < 12;
}

static void test_elf32_be(void)
{
	static struct elf_load loads[] = {
		{ .phdr_index = 1, .paddr = 0, .vaddr = 0xc0000000, .memsz = 16 * PS, .filesz = 16 * PS },
		{ .phdr_index = 2, .paddr = 0x20000, .vaddr = 0xc0020000, .memsz = 0, .filesz = 0 },
		{ .phdr_index = 3, .paddr = 0x20000, .vaddr = 0xc0020000, .memsz = 300 * PS, .filesz = 300 * PS },
		{ .phdr_index = 4, .paddr = 9 * PS + 0x10, .vaddr = 0xc0009010, .memsz = 0x20, .filesz = 0x20 },
	};
	static const struct exp_seg exp[] = {
		{ 0, 0xc0000000, 12 * PS, 16 * PS },       /* 8 excluded kept, 4 trailing */
		{ 0x20000, 0xc0020000, 0, 0 },             /* empty */
		{ 0x20000, 0xc0020000, 0, 300 * PS },      /* all excluded */
		{ 9 * PS + 0x10, 0xc0009010, 0x20, 0x20 }, /* inside one page */
	};
	struct fake f;
	struct dump_source src;
	struct elf_info ei;
	struct elf_write_params p;
	struct out_sink out;
	struct mdf_err err;
	struct elf_write_stats stats;
	const char *path = tmp_path("be32.elf");
	char why[600];
	size_t len = 0;
	unsigned char *buf;

	T_ASSERT(path && fake_init(&f, &src, PS, 0x20000 / PS + 300, 4096, sparse_dumpable));
	memset(&ei, 0, sizeof(ei));
	ei.ei_class = ELFCLASS32;
	ei.ei_data = ELFDATA2MSB;
	ei.e_machine = EM_PPC;
	ei.e_flags = 0x80000000u;
	ei.loads = loads;
	ei.nloads = ARRAY_SIZE(loads);
	p = (struct elf_write_params){ .in = &ei, .page_size = PS,
				       .notes = test_notes,
				       .notes_len = sizeof(test_notes) };
	T_OK(out_open_file(&out, path, false, 0, 0, &err), &err);
	T_OK(elf_write_dump(&p, &src, &out, &stats, &err), &err);
	T_OK(out_close(&out, &err), &err);
	T_EQ_U64(stats.segments, 4);
	if (!check_file(path, ELFCLASS32, ELFDATA2MSB, EM_PPC, 0x80000000u, exp,
			ARRAY_SIZE(exp), true, why, sizeof(why)))
		t_fail(__FILE__, __LINE__, why);
	buf = t_slurp(path, &len);
	T_ASSERT(buf && len == 52 + 5 * 32 + sizeof(test_notes) + 12 * PS + 0x20);
	T_EQ_U64(load_be32(buf + 36), 0x80000000u);          /* e_flags */
	T_EQ_U64((unsigned)buf[42] << 8 | buf[43], 32);      /* e_phentsize */
	T_EQ_U64((unsigned)buf[44] << 8 | buf[45], 5);       /* e_phnum */
	T_EQ_U64(load_be32(buf + 52 + 4), 52 + 5 * 32);      /* PT_NOTE p_offset */
	free(buf);
	T_ASSERT(readelf_ok(path));
	fake_release(&f);
}

/* -L: the sink fills up, e_flags gets bit 0, what was written is right. */
static void test_limit_incomplete(void)
{
	struct fake f;
	struct dump_source src;
	struct elf_info ei;
	struct elf_write_params p;
	struct elf_write_stats stats;
	struct out_sink out;
	struct mdf_err err, cerr;
	const char *path = tmp_path("limit.elf");
	char why[600];
	enum mdf_status st;
	size_t len = 0;
	unsigned char *buf;

	T_ASSERT(path && fake_init(&f, &src, PS, 4096, 1024, main_dumpable));
	main_info(&ei, ELFCLASS64, ELFDATA2LSB, 0x2);
	p = (struct elf_write_params){ .in = &ei, .page_size = PS,
				       .notes = test_notes,
				       .notes_len = sizeof(test_notes),
				       .exclude_zero = true };
	T_OK(out_open_file(&out, path, false, 300 * PS, 0, &err), &err);
	mdf_err_clear(&err);
	st = elf_write_dump(&p, &src, &out, &stats, &err);
	T_EQ_U64(st, MDF_ERR_NOSPC);
	T_ASSERT(strstr(err.msg, "incomplete"));
	T_ASSERT(stats.incomplete);
	if (out_close(&out, &cerr) != MDF_OK)
		mdf_err_clear(&cerr);
	buf = t_slurp(path, &len);
	T_ASSERT(buf && len <= 300 * PS && len > 200 * PS);
	T_EQ_U64(load_le32(buf + 48), 0x3);
	free(buf);
	if (!check_file(path, ELFCLASS64, ELFDATA2LSB, EM_X86_64, 0x3, main_exp,
			ARRAY_SIZE(main_exp), false, why, sizeof(why)))
		t_fail(__FILE__, __LINE__, why);
	fake_release(&f);
}

/* The same on a flattened stream: NOSPC, and e_flags bit 0 stays set
 * (the header record that clears it never comes). */
static void test_limit_flat(void)
{
	struct fake f;
	struct dump_source src;
	struct elf_info ei;
	struct elf_write_params p;
	struct elf_write_stats stats;
	struct out_sink out;
	struct mdf_err err, cerr;
	const char *path = tmp_path("limit.flat");
	enum mdf_status st;
	int fd;

	T_ASSERT(path && fake_init(&f, &src, PS, 4096, 1024, main_dumpable));
	main_info(&ei, ELFCLASS64, ELFDATA2LSB, 0);
	p = (struct elf_write_params){ .in = &ei, .page_size = PS,
				       .notes = test_notes,
				       .notes_len = sizeof(test_notes) };
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	T_ASSERT(fd >= 0);
	T_OK(out_open_flat(&out, fd, 100 * PS, 0, &err), &err);
	st = elf_write_dump(&p, &src, &out, &stats, &err);
	T_EQ_U64(st, MDF_ERR_NOSPC);
	T_ASSERT(strstr(err.msg, "the ELF dump is incomplete (e_flags bit 0 set") != NULL);
	if (out_close(&out, &cerr) != MDF_OK)
		mdf_err_clear(&cerr);
	close(fd);
	fake_release(&f);
}

/* More than 65534 PT_LOADs: extended numbering.  Tiny pages keep the
 * file small: one dumpable page, then 256 excluded ones, 70000 times. */
#define XN_SEGS 70000ULL
#define XN_PS 64ULL

static bool xnum_dumpable(uint64_t pfn)
{
	return pfn % 257 == 0;
}

static void test_xnum(void)
{
	static struct elf_load load = { .phdr_index = 1, .paddr = 0,
					.vaddr = 0x1000000000ULL,
					.memsz = XN_SEGS * 257 * XN_PS,
					.filesz = XN_SEGS * 257 * XN_PS };
	struct fake f;
	struct dump_source src;
	struct elf_info ei;
	struct elf_write_params p;
	struct elf_write_stats stats;
	struct out_sink out;
	struct mdf_err err;
	const char *path = tmp_path("xnum.elf");
	size_t phnum = 0;
	int fd;
	Elf *e;
	GElf_Ehdr eh;
	GElf_Shdr shdr;
	GElf_Phdr ph;

	T_ASSERT(path && fake_init(&f, &src, XN_PS, XN_SEGS * 257, 1 << 20, xnum_dumpable));
	memset(&ei, 0, sizeof(ei));
	ei.ei_class = ELFCLASS64;
	ei.ei_data = ELFDATA2LSB;
	ei.e_machine = EM_AARCH64;
	ei.loads = &load;
	ei.nloads = 1;
	p = (struct elf_write_params){ .in = &ei, .page_size = XN_PS,
				       .notes = test_notes,
				       .notes_len = sizeof(test_notes) };
	T_OK(out_open_file(&out, path, false, 0, 0, &err), &err);
	T_OK(elf_write_dump(&p, &src, &out, &stats, &err), &err);
	T_OK(out_close(&out, &err), &err);
	T_EQ_U64(stats.segments, XN_SEGS);

	fd = open(path, O_RDONLY);
	T_ASSERT(fd >= 0 && elf_version(EV_CURRENT) != EV_NONE);
	e = elf_begin(fd, ELF_C_READ, NULL);
	T_ASSERT(e && gelf_getehdr(e, &eh));
	T_EQ_U64(eh.e_phnum, PN_XNUM);
	T_EQ_U64(eh.e_shnum, 1);
	T_EQ_U64(eh.e_shoff, 64 + (XN_SEGS + 1) * 56);
	T_ASSERT(elf_getphdrnum(e, &phnum) == 0);
	T_EQ_U64(phnum, XN_SEGS + 1);
	T_ASSERT(gelf_getshdr(elf_getscn(e, 0), &shdr));
	T_EQ_U64(shdr.sh_info, XN_SEGS + 1);
	T_EQ_U64(shdr.sh_type, SHT_NULL);
	T_ASSERT(gelf_getphdr(e, 0, &ph) && ph.p_type == PT_NOTE);
	T_EQ_U64(ph.p_offset, eh.e_shoff + 64);
	for (int i = 1; i <= (int)XN_SEGS; i += 9999) {
		T_ASSERT(gelf_getphdr(e, i, &ph));
		T_EQ_U64(ph.p_paddr, (uint64_t)(i - 1) * 257 * XN_PS);
		T_EQ_U64(ph.p_filesz, XN_PS);
		T_EQ_U64(ph.p_memsz, 257 * XN_PS);
	}
	elf_end(e);
	close(fd);
	T_ASSERT(readelf_ok(path));
	fake_release(&f);
}

/* ELF32 cannot hold 4 GiB of data: refused before anything is written. */
static bool all_dumpable(uint64_t pfn)
{
	(void)pfn;
	return true;
}

static void test_elf32_too_big(void)
{
	static struct elf_load loads[] = {
		{ .phdr_index = 1, .paddr = 0, .vaddr = 0xc0000000,
		  .memsz = 0x40000000ULL, .filesz = 0x40000000ULL },
		{ .phdr_index = 2, .paddr = 0, .vaddr = 0,
		  .memsz = 0xc0000000ULL, .filesz = 0xc0000000ULL },
	};
	struct fake f;
	struct dump_source src;
	struct elf_info ei;
	struct elf_write_params p;
	struct out_sink out;
	struct mdf_err err, cerr;
	const char *path = tmp_path("big32.elf");
	enum mdf_status st;

	T_ASSERT(path && fake_init(&f, &src, PS, 0xc0000, 1 << 18, all_dumpable));
	memset(&ei, 0, sizeof(ei));
	ei.ei_class = ELFCLASS32;
	ei.ei_data = ELFDATA2LSB;
	ei.e_machine = EM_386;
	ei.loads = loads;
	ei.nloads = ARRAY_SIZE(loads);
	p = (struct elf_write_params){ .in = &ei, .page_size = PS,
				       .notes = test_notes,
				       .notes_len = sizeof(test_notes) };
	/* The limit keeps a regression from writing gigabytes. */
	T_OK(out_open_file(&out, path, false, 1 << 20, 0, &err), &err);
	st = elf_write_dump(&p, &src, &out, NULL, &err);
	T_OK(out_close(&out, &cerr), &cerr);
	fake_release(&f);
	T_EQ_U64(st, MDF_ERR_NOTSUPP);
	T_ASSERT(strstr(err.msg, "ELF32"));
	T_EQ_U64(f.page_calls, 0);
}

/* The header encoders on their own: ELF32 big-endian extended numbering. */
static void test_encode_xnum32(void)
{
	struct elf_write_layout l;
	struct mdf_err err;
	unsigned char eh[64], sh[64];

	T_OK(elf_write_plan(&l, ELFCLASS32, ELFDATA2MSB, 0x12345, 10, &err), &err);
	T_ASSERT(l.xnum);
	T_EQ_U64(l.phoff, 52);
	T_EQ_U64(l.shoff, 52 + 0x12346ULL * 32);
	T_EQ_U64(l.note_off, l.shoff + 40);
	T_EQ_U64(l.data_off, l.note_off + 10);
	elf_write_encode_ehdr(&l, EM_MIPS, 5, eh);
	elf_write_encode_shdr(&l, sh);
	T_EQ_U64((unsigned)eh[44] << 8 | eh[45], 0xffff);  /* e_phnum */
	T_EQ_U64((unsigned)eh[48] << 8 | eh[49], 1);       /* e_shnum */
	T_EQ_U64((unsigned)eh[46] << 8 | eh[47], 40);      /* e_shentsize */
	T_EQ_U64(load_be32(eh + 32), l.shoff);             /* e_shoff */
	T_EQ_U64(load_be32(sh + 28), 0x12346);             /* sh_info */
	T_EQ_U64(load_be32(sh + 20), 0);                   /* sh_size */

	T_OK(elf_write_plan(&l, ELFCLASS64, ELFDATA2LSB, 0xfffd, 0, &err), &err);
	T_ASSERT(!l.xnum);                                 /* 0xfffe phdrs */
	T_OK(elf_write_plan(&l, ELFCLASS64, ELFDATA2LSB, 0xfffe, 0, &err), &err);
	T_ASSERT(l.xnum);
	T_ASSERT(elf_write_plan(&l, 7, ELFDATA2LSB, 1, 0, &err) == MDF_ERR_ARG);
}

int main(void)
{
	T_RUN(test_main_layout);
	T_RUN(test_main_every_page);
	T_RUN(test_elf32_be);
	T_RUN(test_elf32_i386_highmem);
	T_RUN(test_limit_incomplete);
	T_RUN(test_limit_flat);
	T_RUN(test_xnum);
	T_RUN(test_elf32_too_big);
	T_RUN(test_encode_xnum32);
	if (tmpdir[0]) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", tmpdir);
	}
	return t_done();
}
