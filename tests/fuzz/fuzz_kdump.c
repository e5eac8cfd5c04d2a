/*
 * tests/fuzz/fuzz_kdump.c - the kdump-compressed reader (refiltering input).
 *
 * The input is written to a memfd and opened with diskdump_open(); on
 * success the bitmaps, the rank table and the descriptor area are checked
 * for consistency, and pages are read (with diskdump_read_page() and,
 * across page boundaries, diskdump_read_paddr()) through a small cache.
 * Every failure must name the file.  The seed corpus
 * (tests/fuzz/corpus/kdump/) is written by tests/unit/test_diskdump_read.c
 * (see the comment at its top).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "cache.h"
#include "diskdump_read.h"
#include "error.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_NAME "fuzz.kdump"
#define FUZZ_MAX_READS 256
#define FUZZ_MAX_SCAN (UINT64_C(1) << 20)


static void fuzz_check_msg(const struct mdf_err *err)
{
	FUZZ_CHECK(strncmp(err->msg, FUZZ_NAME ": ", sizeof(FUZZ_NAME ": ") - 1) == 0);
}

static void fuzz_check_frame(const struct diskdump_info *di)
{
	uint64_t n = 0, scan = MDF_MIN(di->max_mapnr, FUZZ_MAX_SCAN);

	FUZZ_CHECK(di->max_mapnr > 0);
	FUZZ_CHECK(di->block_size >= 512 && di->block_size <= 65536);
	FUZZ_CHECK((UINT32_C(1) << di->block_shift) == di->block_size);
	FUZZ_CHECK(di->off_bitmap1 < di->off_bitmap2 && di->off_bitmap2 < di->off_desc);
	FUZZ_CHECK(di->off_desc <= di->file_size);
	FUZZ_CHECK(di->off_data == di->off_desc + di->ndesc * sizeof(struct page_desc));
	FUZZ_CHECK(di->incomplete || di->off_data <= di->file_size);
	FUZZ_CHECK(di->max_mapnr <= di->bitmap_bytes * 8);
	FUZZ_CHECK(!di->split);
	FUZZ_CHECK(di->notes || di->notes_len == 0);
	if (di->vmcoreinfo) {
		FUZZ_CHECK(di->vmcoreinfo_len <= di->vmcoreinfo_size);
		FUZZ_CHECK(di->vmcoreinfo[di->vmcoreinfo_size] == '\0');
		if (di->vmcoreinfo_in_notes)
			FUZZ_CHECK(di->vmcoreinfo_note_off + di->vmcoreinfo_size <=
				   di->notes_len);
	}
	for (uint64_t i = 1; i < di->nrank; i++)
		FUZZ_CHECK(di->rank[i] >= di->rank[i - 1]);
	FUZZ_CHECK(di->rank[di->nrank - 1] == di->ndesc);
	FUZZ_CHECK(diskdump_desc_offset(di, di->max_mapnr) == di->off_data);
	for (uint64_t pfn = 0; pfn < scan; pfn++) {
		if (pfn % 509 == 0)
			FUZZ_CHECK(diskdump_desc_offset(di, pfn) ==
				   di->off_desc + n * sizeof(struct page_desc));
		n += diskdump_dumpable(di, pfn);
	}
	if (scan == di->max_mapnr)
		FUZZ_CHECK(n == di->ndesc);
	FUZZ_CHECK(!diskdump_present(di, di->max_mapnr));
	FUZZ_CHECK(!diskdump_dumpable(di, di->max_mapnr));
}

static void fuzz_read_pages(struct diskdump_info *di, struct cache *c)
{
	unsigned char *a = malloc(di->block_size), *b = malloc(di->block_size);
	unsigned char small[64];
	struct mdf_err err;
	unsigned reads = 0;

	if (!a || !b)
		goto out;
	for (uint64_t pfn = 0; pfn < di->max_mapnr && pfn < FUZZ_MAX_SCAN &&
	     reads < FUZZ_MAX_READS; pfn++) {
		enum mdf_status st = diskdump_read_page(di, c, pfn, a, &err);

		if (!diskdump_dumpable(di, pfn)) {
			FUZZ_CHECK(st == MDF_ERR_NODATA);
			fuzz_check_msg(&err);
			continue;
		}
		reads++;
		if (st != MDF_OK) {
			FUZZ_CHECK(st == MDF_ERR_FORMAT || st == MDF_ERR_NOTSUPP ||
				   st == MDF_ERR_IO ||
				   (st == MDF_ERR_NODATA && di->incomplete));
			fuzz_check_msg(&err);
			continue;
		}
		/* A second read (from a slot) gives the same bytes. */
		FUZZ_CHECK(diskdump_read_page(di, c, pfn, b, &err) == MDF_OK);
		FUZZ_CHECK(memcmp(a, b, di->block_size) == 0);
		/* Across the end of the page. */
		if (diskdump_read_paddr(di, c, ((pfn + 1) << di->block_shift) - 32,
					small, sizeof(small), &err) == MDF_OK)
			FUZZ_CHECK(memcmp(small, a + di->block_size - 32, 32) == 0);
		else
			fuzz_check_msg(&err);
	}
out:
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diskdump_info di;
	struct cache c;
	struct cache_config cfg = { .nentries = 4, .policy = CACHE_MMAP_TRY,
				    .read_ahead = 8192 };
	struct mdf_err err;
	int fd = fuzz_memfd("fuzz_kdump", data, size);

	if (fd < 0)
		return 0;
	if (cache_init(&c, fd, FUZZ_NAME, &cfg, &err) != MDF_OK) {
		close(fd);
		return 0;
	}
	if (diskdump_open(&di, fd, FUZZ_NAME, &c, &err) == MDF_OK) {
		FUZZ_CHECK(di.file_size == size);
		fuzz_check_frame(&di);
		fuzz_read_pages(&di, &c);
	} else {
		fuzz_check_msg(&err);
	}
	diskdump_close(&di);
	diskdump_close(&di);
	cache_release(&c);
	close(fd);
	return 0;
}
