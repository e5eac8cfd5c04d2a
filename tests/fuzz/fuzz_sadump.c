/*
 * tests/fuzz/fuzz_sadump.c - the sadump reader (sadump.h).
 *
 * The input is one dump: the disks of a disk set are joined by the line
 * "--sadump-disk--" (at most 16 disks).  Each disk is written to a memfd
 * and the set opened with sadump_open() (the other disks by their
 * /proc/self/fd path); on success the bitmaps, the block table and the
 * disks' shares are checked for consistency, and pages are read through
 * the input ops.  Every failure must name a disk.  The seed corpus
 * (tests/fuzz/corpus/sadump/) is written by tests/unit/test_sadump.c (see
 * the comment at its top).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "cache.h"
#include "error.h"
#include "sadump.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DISK_SEP "--sadump-disk--\n"
#define FUZZ_MAX_READS 256

/* Every message starts with the name of one of the disks. */
static void check_msg(const struct mdf_err *err, char names[][32], unsigned n)
{
	bool named = false;

	for (unsigned i = 0; i < n; i++)
		named |= strncmp(err->msg, names[i], strlen(names[i])) == 0;
	FUZZ_CHECK(named);
}

static void check_frame(const struct sadump_info *si)
{
	uint64_t have = 0;

	FUZZ_CHECK(si->max_mapnr > 0);
	FUZZ_CHECK((UINT32_C(1) << si->block_shift) == si->block_size);
	FUZZ_CHECK(si->block_size >= SADUMP_MIN_BLOCK && si->block_size <= SADUMP_MAX_BLOCK);
	for (unsigned i = 0; i < si->ndisks; i++) {
		const struct sadump_disk *d = &si->disks[i];

		FUZZ_CHECK(d->data_start == have);
		FUZZ_CHECK(d->data_off + d->data_len <= d->file_size);
		have += d->data_len;
	}
	FUZZ_CHECK(si->nstored <= have / si->block_size);
	for (uint64_t i = 1; i < si->nrank; i++)
		FUZZ_CHECK(si->rank[i] >= si->rank[i - 1]);
	FUZZ_CHECK(si->rank[si->nrank - 1] == si->nstored);
	for (uint64_t pfn = 0; pfn < si->max_mapnr && pfn < (1u << 20); pfn += 97)
		FUZZ_CHECK(sadump_pfn_to_block(si, pfn) <= si->nstored);
	FUZZ_CHECK(!sadump_is_ram(si, si->max_mapnr));
}

static void read_pages(struct sadump_info *si, struct cache *c, char names[][32], unsigned n)
{
	unsigned char *a = malloc(si->block_size);
	unsigned reads = 0;
	struct mdf_err err;

	if (!a)
		return;
	for (uint64_t pfn = 0; pfn < si->max_mapnr && reads < FUZZ_MAX_READS; pfn++) {
		enum mdf_status st = sadump_input_ops.read_paddr(si, c, pfn << si->block_shift, a,
								  si->block_size, &err);

		if (!sadump_is_ram(si, pfn)) {
			FUZZ_CHECK(st == MDF_ERR_NODATA);
			check_msg(&err, names, n);
			continue;
		}
		reads++;
		if (st != MDF_OK) {
			check_msg(&err, names, n);
			continue;
		}
		if (!sadump_is_stored(si, pfn))
			for (unsigned i = 0; i < si->block_size; i++)
				FUZZ_CHECK(a[i] == 0);
	}
	free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fds[SADUMP_MAX_DISKS];
	char names[SADUMP_MAX_DISKS][32];
	const char *paths[SADUMP_MAX_DISKS];
	struct cache_config cfg = { .nentries = 4, .policy = CACHE_MMAP_TRY, .read_ahead = 8192 };
	struct sadump_info si;
	struct cache c;
	struct mdf_err err;
	unsigned n = 0;
	size_t pos = 0, sl = strlen(DISK_SEP);

	while (n < SADUMP_MAX_DISKS) {
		const uint8_t *end = memmem(data + pos, size - pos, DISK_SEP, sl);
		size_t len = end ? (size_t)(end - (data + pos)) : size - pos;

		fds[n] = fuzz_memfd("fuzz_sadump", data + pos, len);
		if (fds[n] < 0)
			break;
		snprintf(names[n], sizeof(names[n]), "/proc/self/fd/%d", fds[n]);
		paths[n] = names[n];
		n++;
		if (!end)
			break;
		pos += len + sl;
	}
	if (n && cache_init(&c, fds[0], names[0], &cfg, &err) == MDF_OK) {
		if (sadump_open(&si, fds[0], &c, paths, n, &cfg, &err) == MDF_OK) {
			check_frame(&si);
			read_pages(&si, &c, names, n);
		} else {
			check_msg(&err, names, n);
		}
		sadump_close(&si);
		sadump_close(&si);
		cache_release(&c);
	}
	for (unsigned i = 0; i < n; i++)
		close(fds[i]);
	return 0;
}
