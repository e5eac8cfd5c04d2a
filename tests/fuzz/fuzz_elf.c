/*
 * tests/fuzz/fuzz_elf.c - ELF vmcore headers, notes and paddr lookups.
 *
 * The input is written to a memfd and opened with elf_info_open(); on
 * success the range table and every lookup are checked for consistency
 * and a few bytes are read at the edges of each range through a cache.
 * The seed corpus (tests/fuzz/corpus/elf/) is written by
 * tests/unit/test_elf_info.c (see the comment at its top).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


static void fuzz_check_loc(const struct elf_info *ei, uint64_t paddr)
{
	struct elf_loc loc;
	const struct elf_range *r = NULL;

	for (size_t i = 0; i < ei->nranges; i++)
		if (paddr >= ei->ranges[i].pstart && paddr < ei->ranges[i].pend)
			r = &ei->ranges[i];
	if (elf_info_locate(ei, paddr, &loc) != MDF_OK) {
		FUZZ_CHECK(r == NULL);
		return;
	}
	FUZZ_CHECK(r != NULL);
	FUZZ_CHECK(loc.avail > 0 && loc.avail <= r->pend - paddr);
	if (loc.in_file) {
		const struct elf_load *l = r->load;

		FUZZ_CHECK(loc.off == l->offset + (paddr - l->paddr));
		FUZZ_CHECK(loc.span.start <= loc.off);
		FUZZ_CHECK(loc.off + loc.avail <= loc.span.end);
		FUZZ_CHECK(loc.span.start >= l->offset);
		FUZZ_CHECK(loc.span.end <= l->offset + l->filesz);
		if (loc.span.mappable)
			FUZZ_CHECK(((loc.span.start | loc.span.end) &
				    (ei->host_page_size - 1)) == 0);
	}
}

static void fuzz_read(const struct elf_info *ei, struct cache *c,
		      uint64_t paddr, size_t len)
{
	unsigned char buf[64];
	struct mdf_err err;

	if (len > sizeof(buf))
		len = sizeof(buf);
	(void)!elf_info_read_paddr(ei, c, paddr, buf, len, &err);
}

static void fuzz_opened(const struct elf_info *ei, int fd)
{
	struct cache c;
	struct cache_config cfg = { .nentries = 4, .policy = CACHE_MMAP_TRY };
	struct mdf_err err;
	bool have_cache;

	FUZZ_CHECK(ei->vmcoreinfo != NULL);
	FUZZ_CHECK(ei->vmcoreinfo_off + ei->vmcoreinfo_len <= ei->notes_len);
	FUZZ_CHECK(ei->vmcoreinfo == (const char *)ei->notes + ei->vmcoreinfo_off);
	FUZZ_CHECK(ei->nranges <= ei->nloads);
	for (size_t i = 0; i < ei->nranges; i++) {
		const struct elf_range *r = &ei->ranges[i];

		FUZZ_CHECK(r->pstart < r->pend);
		FUZZ_CHECK(i == 0 || ei->ranges[i - 1].pend <= r->pstart);
		FUZZ_CHECK(r->pstart >= r->load->paddr);
		FUZZ_CHECK(r->pend == r->load->paddr + r->load->memsz);
		FUZZ_CHECK(r->pend <= elf_info_max_paddr(ei));
	}
	for (size_t i = 0; i < ei->nloads; i++) {
		const struct elf_load *l = &ei->loads[i];

		fuzz_check_loc(ei, l->paddr);
		fuzz_check_loc(ei, l->paddr + l->filesz);
		if (l->memsz)
			fuzz_check_loc(ei, l->paddr + l->memsz - 1);
		fuzz_check_loc(ei, l->paddr + l->memsz);
		fuzz_check_loc(ei, l->paddr - 1);
	}

	have_cache = cache_init(&c, fd, "fuzz.elf", &cfg, &err) == MDF_OK;
	if (!have_cache)
		return;
	for (size_t i = 0; i < ei->nranges && i < 64; i++) {
		const struct elf_range *r = &ei->ranges[i];

		fuzz_read(ei, &c, r->pstart, 64);
		if (r->pend - r->pstart > 32)
			fuzz_read(ei, &c, r->pend - 32, 64);
	}
	cache_release(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_info ei;
	struct mdf_err err;
	int fd = fuzz_memfd("fuzz_elf", data, size);

	if (fd < 0)
		return 0;
	if (elf_info_open(&ei, fd, "fuzz.elf", &err) == MDF_OK) {
		fuzz_opened(&ei, fd);
	} else {
		/* Every failure names the file. */
		FUZZ_CHECK(strncmp(err.msg, "fuzz.elf: ", 10) == 0);
	}
	elf_info_close(&ei);
	close(fd);
	return 0;
}
