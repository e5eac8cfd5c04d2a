/*
 * sadump.c - sadump dumps as an input (sadump.h).
 */
#include "sadump.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "files.h"
#include "util.h"

typedef unsigned long long ull;

/* "sadu", "mp\0\0" at the start of a partition header */
#define SADUMP_SIG1 0x75646173u
#define SADUMP_SIG2 0x0000706du
#define SADUMP_DUMP_SIG "sadump\0\0"
#define EFI_TZ_UNSPECIFIED 2047

/* Offsets in the dump header. */
#define DH_VERSION 8
#define DH_TIME 16
#define DH_BLOCK_SIZE 40
#define DH_SUB_HDR_SIZE 48
#define DH_BITMAP_BLOCKS 52
#define DH_DUMPABLE_BLOCKS 56
#define DH_MAX_MAPNR 60
#define DH_NR_CPUS 80
#define DH_MAX_MAPNR_64 88

/* In a disk set header: 15 volume entries of 32 bytes from 16. */
#define DSH_VOL0 16
#define DSH_VOL_SIZE 32

/* In a media header. */
#define MH_DISK_SET_ID 16
#define MH_SEQ_NUM 48

/* The SMRAM cpu state (upstream's struct sadump_smram_cpu_state). */
#define CS_IDT_UPPER 472
#define CS_CR4 576
#define CS_IDT_LOWER 660
#define CS_GPR 796
#define CS_ES 936
#define CS_RIP 984
#define CS_EFER 992
#define CS_RFLAGS 1000
#define CS_CR3 1008
#define CS_CR0 1016
#define CS_SIZE 1024
#define APIC_STATE_SIZE 16

/* Most pfns a dump may describe: 2^52 bytes of 4 KiB pages. */
#define SADUMP_MAX_MAPNR (UINT64_C(1) << 40)

static bool has_signature(const unsigned char *ph)
{
	return load_le32(ph) == SADUMP_SIG1 && load_le32(ph + 4) == SADUMP_SIG2;
}

bool sadump_probe(const unsigned char *head, size_t len)
{
	if (len >= 8 && has_signature(head))
		return true;
	return len >= SADUMP_HEAD_BLOCK + 8 && memcmp(head, "\177ELF", 4) != 0 &&
	       has_signature(head + SADUMP_HEAD_BLOCK);
}

const char *sadump_kind_name(enum sadump_kind kind)
{
	switch (kind) {
	case SADUMP_SINGLE: return "single partition";
	case SADUMP_DISKSET: return "diskset";
	case SADUMP_MEDIA: return "media backup";
	}
	return "unknown";
}

static void efi_time_load(const unsigned char *p, struct sadump_efi_time *t)
{
	t->year = load_le16(p);
	t->month = p[2];
	t->day = p[3];
	t->hour = p[4];
	t->minute = p[5];
	t->second = p[6];
	t->nanosecond = load_le32(p + 8);
	t->timezone = (int16_t)load_le16(p + 12);
	t->daylight = p[14];
}

bool sadump_efi_mktime(const struct sadump_efi_time *e, int64_t *ret)
{
	struct tm t;
	time_t ti;

	/* As upstream's sadump_set_timestamp(): the fields as local time,
	 * tm_isdst 0, and the time zone (minutes) added to the hours. */
	memset(&t, 0, sizeof(t));
	t.tm_sec = e->second;
	t.tm_min = e->minute;
	t.tm_hour = e->hour;
	t.tm_mday = e->day;
	t.tm_mon = e->month - 1;
	t.tm_year = e->year - 1900;
	if (e->timezone != EFI_TZ_UNSPECIFIED)
		t.tm_hour += e->timezone;
	ti = mktime(&t);
	if (ti == (time_t)-1)
		return false;
	*ret = (int64_t)ti;
	return true;
}

/* Each word of the magic number is (the one before + 7) * 11. */
static bool magic_ok(const unsigned char *ph)
{
	const unsigned char *m = ph + SADUMP_PH_MAGIC;

	for (unsigned i = 1; i < SADUMP_PH_MAGIC_WORDS; i++)
		if (load_le32(m + 4 * i) != (uint32_t)((load_le32(m + 4 * (i - 1)) + 7) * 11))
			return false;
	return true;
}

/* @len header bytes at @off of disk @d (through its cache: @c); a file
 * that ends first is truncated. */
static enum mdf_status read_hdr(const struct sadump_disk *d, struct cache *c, void *buf,
				size_t len, uint64_t off, const char *what,
				struct mdf_err *err)
{
	if (off > d->file_size || len > d->file_size - off)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: %s at 0x%llx+0x%zx: past the end of the file (size 0x%llx)",
				   d->path, what, (ull)off, len, (ull)d->file_size);
	if (cache_pread(c, buf, len, off, NULL, err) != MDF_OK)
		return mdf_err_push(err, "%s: %s", d->path, what);
	return MDF_OK;
}

static unsigned log2_exact(uint64_t v)
{
	unsigned s = 0;

	while ((UINT64_C(1) << s) < v)
		s++;
	return s;
}

/* The dump header at @off: block size, version, bitmaps, cpus. */
static enum mdf_status parse_dump_header(struct sadump_info *si, const unsigned char *dh,
					 uint32_t *bs_ret, struct mdf_err *err)
{
	uint32_t bs = load_le32(dh + DH_BLOCK_SIZE);

	if (memcmp(dh, SADUMP_DUMP_SIG, 8) != 0)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: no dump header (\"sadump\" signature) at 0x%llx",
				   si->path, (ull)si->off_dump_header);
	if (bs == 0 || (bs & (bs - 1)))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: dump header: block size %u is not a power of two",
				   si->path, bs);
	if (bs < SADUMP_MIN_BLOCK || bs > SADUMP_MAX_BLOCK)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: dump header: block size %u out of range %u..%u",
				   si->path, bs, SADUMP_MIN_BLOCK, SADUMP_MAX_BLOCK);
	*bs_ret = bs;
	si->header_version = load_le32(dh + DH_VERSION);
	if (si->header_version > 1)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "%s: dump header version %u (versions 0 and 1 are known)",
				   si->path, si->header_version);
	si->max_mapnr = si->header_version == 0 ? load_le32(dh + DH_MAX_MAPNR)
						: load_le64(dh + DH_MAX_MAPNR_64);
	if (si->max_mapnr == 0 || si->max_mapnr > SADUMP_MAX_MAPNR)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: dump header: max_mapnr 0x%llx out of range 1..0x%llx",
				   si->path, (ull)si->max_mapnr, (ull)SADUMP_MAX_MAPNR);
	si->nr_cpus = load_le32(dh + DH_NR_CPUS);
	return MDF_OK;
}

/* Where the data starts on disk 1, and the bitmaps and the sub header
 * inside the file. */
static enum mdf_status place_areas(struct sadump_info *si, struct cache *c,
				   const unsigned char *dh, struct mdf_err *err)
{
	struct sadump_disk *d = &si->disks[0];
	uint64_t bs = si->block_size;
	uint64_t sub_blocks = load_le32(dh + DH_SUB_HDR_SIZE);
	uint64_t b1 = load_le32(dh + DH_BITMAP_BLOCKS), b2 = load_le32(dh + DH_DUMPABLE_BLOCKS);
	uint64_t need = div_round_up(si->max_mapnr, 8);
	unsigned char word[4];

	si->off_sub = si->off_dump_header + bs;
	si->sub_size = sub_blocks * bs;
	si->off_bitmap1 = si->off_sub + si->sub_size;
	if (b1 * bs < need || b2 * bs < need)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: dump header: bitmaps of %llu and %llu blocks are too small for "
				   "max_mapnr 0x%llx (%llu blocks each)", si->path, (ull)b1, (ull)b2,
				   (ull)si->max_mapnr, (ull)div_round_up(need, bs));
	si->bitmap_len = b1 * bs;
	si->off_bitmap2 = si->off_bitmap1 + si->bitmap_len;
	d->data_off = si->off_bitmap2 + b2 * bs;
	if (d->data_off > d->file_size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: the bitmaps end at 0x%llx, past the end of the file (size 0x%llx)",
				   si->path, (ull)d->data_off, (ull)d->file_size);
	/* The sub header: a u32 (the size of the cpu states), nr_cpus APIC
	 * states, nr_cpus SMRAM states. */
	if (sub_blocks == 0 || si->nr_cpus == 0)
		return MDF_OK;
	if (read_hdr(d, c, word, 4, si->off_sub, "sub header", err) != MDF_OK)
		return err->status;
	si->cpu_state_size = load_le32(word) / si->nr_cpus;
	if (si->cpu_state_size < CS_SIZE ||
	    4 + (uint64_t)si->nr_cpus * (APIC_STATE_SIZE + si->cpu_state_size) > si->sub_size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: sub header: %u cpu states of %u bytes do not fit its %llu bytes",
				   si->path, si->nr_cpus, si->cpu_state_size, (ull)si->sub_size);
	return MDF_OK;
}

/* The other disks of a set: each of this set, in its place. */
static enum mdf_status check_disk(struct sadump_info *si, unsigned i, const unsigned char *ph,
				  const unsigned char *dsh, struct mdf_err *err)
{
	const char *p = si->disks[i].path;
	const unsigned char *vol = dsh + DSH_VOL0 + (i - 1) * DSH_VOL_SIZE;
	uint32_t num = load_le32(ph + SADUMP_PH_SET_DISK_SET);

	if (!has_signature(ph))
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: not a sadump disk (no partition header)", p);
	if (!magic_ok(ph))
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: partition header: bad magic number", p);
	if (memcmp(ph + SADUMP_PH_SADUMP_ID, si->sadump_id, 16) ||
	    memcmp(ph + SADUMP_PH_DISK_SET_ID, si->disk_set_id, 16))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: a disk of another %s than %s", p,
				   memcmp(ph + SADUMP_PH_SADUMP_ID, si->sadump_id, 16) ? "system" : "disk set",
				   si->path);
	if (num != i + 1)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: disk %u of the set, given as --diskset number %u", p, num, i + 1);
	if (memcmp(ph + SADUMP_PH_VOL_ID, vol, 16))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: its volume id is not the one %s's disk set header has for disk %u",
				   p, si->path, i + 1);
	return MDF_OK;
}

/* A disk's share of the data: from data_off to used_device. */
static enum mdf_status set_share(struct sadump_info *si, struct sadump_disk *d,
				 const unsigned char *ph, struct mdf_err *err)
{
	uint64_t used = load_le64(ph + SADUMP_PH_USED_DEVICE);

	if (used < d->data_off || used > d->file_size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: partition header: used_device 0x%llx outside its data 0x%llx..0x%llx "
				   "(the file's size)", d->path, (ull)used, (ull)d->data_off,
				   (ull)d->file_size);
	(void)si;
	d->data_len = used - d->data_off;
	return MDF_OK;
}

static enum mdf_status open_disk(struct sadump_info *si, unsigned i, const char *path,
				 const struct cache_config *cfg, struct mdf_err *err)
{
	struct sadump_disk *d = &si->disks[i];
	struct stat sb;

	d->path = path;
	d->fd = -1;
	if (files_open_input(path, &d->fd, err) != MDF_OK)
		return err->status;
	d->own_fd = true;
	if (fstat(d->fd, &sb) != 0)
		return mdf_err_errno(err, MDF_ERR_IO, errno, "%s: fstat", path);
	d->file_size = (uint64_t)sb.st_size;
	if (cache_init(&d->cache, d->fd, path, cfg, err) != MDF_OK)
		return err->status;
	d->have_cache = true;
	return MDF_OK;
}

/* Load a bitmap, turned round into LSB-first order. */
static enum mdf_status load_bitmap(struct sadump_info *si, uint64_t off, uint8_t **ret,
				   const char *what, struct mdf_err *err)
{
	size_t n = (size_t)(div_round_up(si->max_mapnr, 64) * 8);
	size_t want = (size_t)div_round_up(si->max_mapnr, 8), got = 0;
	uint8_t *b = calloc(1, n);

	if (!b)
		return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory for the %s", si->path, what);
	*ret = b;
	if (util_pread_full(si->disks[0].fd, b, want, off, &got, err) != MDF_OK)
		return mdf_err_push(err, "%s: %s", si->path, what);
	if (got != want)
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: %s cut short", si->path, what);
	for (size_t i = 0; i < want; i++) {
		uint8_t c = b[i];

		c = (uint8_t)((c & 0x55) << 1 | (c & 0xaa) >> 1);
		c = (uint8_t)((c & 0x33) << 2 | (c & 0xcc) >> 2);
		b[i] = (uint8_t)(c << 4 | c >> 4);
	}
	if (si->max_mapnr % 8)
		b[want - 1] &= (uint8_t)((1u << (si->max_mapnr % 8)) - 1);
	return MDF_OK;
}

/* Both bitmaps, the block table, and the data against the disks. */
static enum mdf_status load_bitmaps(struct sadump_info *si, struct mdf_err *err)
{
	size_t nwords = (size_t)div_round_up(si->max_mapnr, 64);
	uint64_t total = 0, have = 0;

	if (load_bitmap(si, si->off_bitmap1, &si->ram, "RAM bitmap", err) != MDF_OK ||
	    load_bitmap(si, si->off_bitmap2, &si->dumpable, "dumpable bitmap", err) != MDF_OK)
		return err->status;
	si->nrank = div_round_up(si->max_mapnr, SADUMP_RANK_PFNS) + 1;
	si->rank = calloc((size_t)si->nrank, sizeof(*si->rank));
	if (!si->rank)
		return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", si->path);
	for (size_t w = 0; w < nwords; w++) {
		uint64_t r = load_le64(si->ram + 8 * w), s = load_le64(si->dumpable + 8 * w);

		if (w % (SADUMP_RANK_PFNS / 64) == 0)
			si->rank[w / (SADUMP_RANK_PFNS / 64)] = total;
		/* upstream counts blocks by the dumpable bitmap alone */
		total += (uint64_t)__builtin_popcountll(s);
		si->nram += (uint64_t)__builtin_popcountll(r);
		si->stray_dumpable += (uint64_t)__builtin_popcountll(s & ~r);
		if (r & ~s)
			si->zero_excluded = true;
	}
	si->rank[si->nrank - 1] = total;
	si->nstored = total;
	for (unsigned i = 0; i < si->ndisks; i++) {
		si->disks[i].data_start = have;
		have += si->disks[i].data_len;
	}
	if (total > have / si->block_size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   si->ndisks > 1 ?
				   "%s: the dumpable bitmap stores %llu pages, the disks hold %llu "
				   "(a disk is cut short, or missing)" :
				   "%s: the dumpable bitmap stores %llu pages, the file holds %llu "
				   "(truncated?)", si->path, (ull)total, (ull)(have / si->block_size));
	return MDF_OK;
}

/* Disk 1: partition header (or a media header first), [disk set
 * header], dump header; again with the dump's block size when it is not
 * the one the first pass assumed. */
static enum mdf_status read_headers(struct sadump_info *si, struct cache *c,
				    unsigned ndisks, unsigned char *ph, unsigned char *dsh,
				    struct mdf_err *err)
{
	struct sadump_disk *d = &si->disks[0];
	uint32_t bs = SADUMP_HEAD_BLOCK, found = 0;
	unsigned char *dh = malloc(SADUMP_HEAD_BLOCK);
	unsigned char mh[64];
	enum mdf_status st = MDF_OK;

	if (!dh)
		return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", si->path);
	for (int pass = 0; pass < 2; pass++) {
		uint64_t off = 0;

		st = read_hdr(d, c, ph, SADUMP_HEAD_BLOCK, 0, "partition header", err);
		if (st != MDF_OK)
			break;
		si->kind = SADUMP_SINGLE;
		if (!has_signature(ph)) {
			st = read_hdr(d, c, mh, sizeof(mh), 0, "media header", err);
			if (st == MDF_OK)
				st = read_hdr(d, c, ph, SADUMP_HEAD_BLOCK, bs, "partition header", err);
			if (st != MDF_OK)
				break;
			/* a dump header has the partition header's signature too:
			 * the magic number tells them apart */
			if (!has_signature(ph) || !magic_ok(ph)) {
				st = mdf_err_set(err, MDF_ERR_FORMAT,
						 "%s: no sadump partition header (at 0, or at 0x%x after a media header)",
						 si->path, bs);
				break;
			}
			si->kind = SADUMP_MEDIA;
			off = bs;
		} else if (load_le32(ph + SADUMP_PH_SET_DISK_SET) != 0) {
			si->kind = SADUMP_DISKSET;
		}
		if (!magic_ok(ph)) {
			st = mdf_err_set(err, MDF_ERR_FORMAT, "%s: partition header: bad magic number",
					 si->path);
			break;
		}
		off += bs;
		memcpy(si->sadump_id, ph + SADUMP_PH_SADUMP_ID, 16);
		memcpy(si->disk_set_id, ph + SADUMP_PH_DISK_SET_ID, 16);
		efi_time_load(ph + SADUMP_PH_TIME, &si->time);
		if (si->kind == SADUMP_MEDIA) {
			if (memcmp(mh, si->sadump_id, 16) || memcmp(mh + MH_DISK_SET_ID, si->disk_set_id, 16)) {
				st = mdf_err_set(err, MDF_ERR_FORMAT,
						 "%s: media header: its %s id is not the partition header's",
						 si->path, memcmp(mh, si->sadump_id, 16) ? "system" : "disk set");
				break;
			}
			if (mh[MH_SEQ_NUM] != 1) {
				st = mdf_err_set(err, MDF_ERR_NOTSUPP,
						 "%s: medium number %u of a media backup: only the first "
						 "medium is read", si->path, mh[MH_SEQ_NUM]);
				break;
			}
		}
		if (si->kind == SADUMP_DISKSET) {
			uint32_t num = load_le32(ph + SADUMP_PH_SET_DISK_SET);
			uint64_t blocks;

			if (num != 1) {
				st = mdf_err_set(err, MDF_ERR_FORMAT,
						 "%s: disk %u of a disk set: give every disk, the first one "
						 "first (--diskset=DISK1 --diskset=DISK2 ...)", si->path, num);
				break;
			}
			st = read_hdr(d, c, dsh, SADUMP_HEAD_BLOCK, off, "disk set header", err);
			if (st != MDF_OK)
				break;
			blocks = load_le32(dsh);
			si->disk_num = load_le32(dsh + 4);
			if (si->disk_num < 2 || si->disk_num > SADUMP_MAX_DISKS || blocks == 0 ||
			    blocks > 16) {
				st = mdf_err_set(err, MDF_ERR_FORMAT,
						 "%s: disk set header: %u disks, header of %llu blocks",
						 si->path, si->disk_num, (ull)blocks);
				break;
			}
			if (ndisks != si->disk_num) {
				st = mdf_err_set(err, MDF_ERR_FORMAT,
						 ndisks < si->disk_num ?
						 "%s: the first disk of a set of %u disks, %u given: give "
						 "every disk with --diskset=, the first one first" :
						 "%s: the first disk of a set of %u disks, but %u are given",
						 si->path, si->disk_num, ndisks);
				break;
			}
			off += blocks * bs;
		} else if (ndisks > 1) {
			st = mdf_err_set(err, MDF_ERR_FORMAT,
					 "%s: a sadump %s, not the first disk of a disk set",
					 si->path, sadump_kind_name(si->kind));
			break;
		}
		si->off_dump_header = off;
		st = read_hdr(d, c, dh, SADUMP_HEAD_BLOCK, off, "dump header", err);
		if (st == MDF_OK)
			st = parse_dump_header(si, dh, &found, err);
		if (st != MDF_OK || found == bs)
			break;
		/* upstream reads again with the dump's block size */
		if (pass == 1) {
			st = mdf_err_set(err, MDF_ERR_FORMAT,
					 "%s: dump header: block size %u, then %u", si->path, bs, found);
			break;
		}
		bs = found;
	}
	si->block_size = bs;
	si->block_shift = log2_exact(bs);
	if (st == MDF_OK)
		st = place_areas(si, c, dh, err);
	free(dh);
	return st;
}

enum mdf_status sadump_open(struct sadump_info *si, int fd, struct cache *cache,
			    const char *const *paths, unsigned npaths,
			    const struct cache_config *cfg, struct mdf_err *err)
{
	unsigned char *ph = malloc(SADUMP_HEAD_BLOCK), *dsh = malloc(SADUMP_HEAD_BLOCK);
	struct stat sb;
	enum mdf_status st;

	memset(si, 0, sizeof(*si));
	si->path = paths[0];
	if (!ph || !dsh) {
		st = mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", si->path);
		goto out;
	}
	if (npaths > SADUMP_MAX_DISKS) {
		st = mdf_err_set(err, MDF_ERR_ARG, "at most %u disks in a disk set", SADUMP_MAX_DISKS);
		goto out;
	}
	si->disks[0].path = paths[0];
	si->disks[0].fd = fd;
	si->ndisks = 1;
	if (fstat(fd, &sb) != 0) {
		st = mdf_err_errno(err, MDF_ERR_IO, errno, "%s: fstat", si->path);
		goto out;
	}
	si->disks[0].file_size = (uint64_t)sb.st_size;
	st = read_headers(si, cache, npaths, ph, dsh, err);
	if (st == MDF_OK && si->kind == SADUMP_DISKSET)
		st = set_share(si, &si->disks[0], ph, err);
	else if (st == MDF_OK)
		si->disks[0].data_len = si->disks[0].file_size - si->disks[0].data_off;
	for (unsigned i = 1; st == MDF_OK && i < npaths; i++) {
		struct sadump_disk *d = &si->disks[i];

		si->ndisks++;
		st = open_disk(si, i, paths[i], cfg, err);
		if (st == MDF_OK)
			st = read_hdr(d, &d->cache, ph, SADUMP_HEAD_BLOCK, 0, "partition header", err);
		if (st == MDF_OK)
			st = check_disk(si, i, ph, dsh, err);
		d->data_off = si->block_size;
		if (st == MDF_OK)
			st = set_share(si, d, ph, err);
	}
	if (st == MDF_OK)
		st = load_bitmaps(si, err);
	if (st == MDF_OK)
		si->have_timestamp = sadump_efi_mktime(&si->time, &si->timestamp);
out:
	free(ph);
	free(dsh);
	if (st != MDF_OK)
		sadump_close(si);
	return st;
}

void sadump_close(struct sadump_info *si)
{
	for (unsigned i = 0; i < si->ndisks && i < SADUMP_MAX_DISKS; i++) {
		struct sadump_disk *d = &si->disks[i];

		if (d->have_cache)
			cache_release(&d->cache);
		d->have_cache = false;
		if (d->own_fd && d->fd >= 0)
			close(d->fd);
		d->own_fd = false;
		d->fd = -1;
	}
	si->ndisks = 0;
	free(si->ram);
	free(si->dumpable);
	free(si->rank);
	free(si->notes);
	si->ram = si->dumpable = NULL;
	si->rank = NULL;
	si->notes = NULL;
}

static bool bit(const uint8_t *b, uint64_t pfn)
{
	return b[pfn / 8] >> (pfn % 8) & 1;
}

bool sadump_is_ram(const struct sadump_info *si, uint64_t pfn)
{
	return pfn < si->max_mapnr && bit(si->ram, pfn);
}

bool sadump_is_stored(const struct sadump_info *si, uint64_t pfn)
{
	return pfn < si->max_mapnr && bit(si->dumpable, pfn);
}

uint64_t sadump_pfn_to_block(const struct sadump_info *si, uint64_t pfn)
{
	uint64_t r = pfn / SADUMP_RANK_PFNS, n = si->rank[r];
	uint64_t w = r * (SADUMP_RANK_PFNS / 64), last = pfn / 64;

	for (; w < last; w++)
		n += (uint64_t)__builtin_popcountll(load_le64(si->dumpable + 8 * w));
	if (pfn % 64)
		n += (uint64_t)__builtin_popcountll(load_le64(si->dumpable + 8 * last) &
						    ((UINT64_C(1) << (pfn % 64)) - 1));
	return n;
}

bool sadump_block_where(const struct sadump_info *si, uint64_t block,
			unsigned *disk_ret, uint64_t *off_ret)
{
	uint64_t off;

	if (block > UINT64_MAX / si->block_size)
		return false;
	off = block * si->block_size;
	for (unsigned i = 0; i < si->ndisks; i++) {
		const struct sadump_disk *d = &si->disks[i];

		if (off - d->data_start < d->data_len && off >= d->data_start) {
			*disk_ret = i;
			*off_ret = d->data_off + (off - d->data_start);
			return true;
		}
	}
	return false;
}

enum mdf_status sadump_cpu_state(struct sadump_info *si, struct cache *cache,
				 uint32_t apicid, struct sadump_cpu_state *ret,
				 struct mdf_err *err)
{
	unsigned char s[CS_SIZE];
	uint64_t off;

	if (!si->cpu_state_size || apicid >= si->nr_cpus)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "%s: no cpu state for APIC id %u (the sub header has %u)",
				   si->path, apicid, si->cpu_state_size ? si->nr_cpus : 0);
	off = si->off_sub + 4 + (uint64_t)si->nr_cpus * APIC_STATE_SIZE +
	      (uint64_t)apicid * si->cpu_state_size;
	if (read_hdr(&si->disks[0], cache, s, sizeof(s), off, "cpu state", err) != MDF_OK)
		return err->status;
	memset(ret, 0, sizeof(*ret));
	for (unsigned i = 0; i < 16; i++)
		ret->gpr[i] = (uint64_t)load_le32(s + CS_GPR + 8 * i) |
			      (uint64_t)load_le32(s + CS_GPR + 8 * i + 4) << 32;
	ret->es = load_le32(s + CS_ES);
	ret->cs = load_le32(s + CS_ES + 4);
	ret->ss = load_le32(s + CS_ES + 8);
	ret->ds = load_le32(s + CS_ES + 12);
	ret->fs = load_le32(s + CS_ES + 16);
	ret->gs = load_le32(s + CS_ES + 20);
	ret->rip = load_le64(s + CS_RIP);
	ret->ia32_efer = load_le64(s + CS_EFER);
	ret->rflags = load_le64(s + CS_RFLAGS);
	ret->cr3 = load_le64(s + CS_CR3);
	ret->cr0 = load_le64(s + CS_CR0);
	ret->cr4 = load_le32(s + CS_CR4);
	ret->idtr = (uint64_t)load_le32(s + CS_IDT_UPPER) << 32 | load_le32(s + CS_IDT_LOWER);
	return MDF_OK;
}

void sadump_set_notes(struct sadump_info *si, unsigned char *notes, size_t len,
		      uint64_t vi_off, uint64_t vi_size, int32_t nr_online,
		      uint64_t phys_base)
{
	free(si->notes);
	si->notes = notes;
	si->notes_len = len;
	si->have_vmcoreinfo = vi_size != 0;
	si->vmcoreinfo_off = vi_off;
	si->vmcoreinfo_size = vi_size;
	si->vmcoreinfo = vi_size ? (const char *)notes + vi_off : NULL;
	si->vmcoreinfo_len = (size_t)vi_size;
	si->nr_online = nr_online;
	si->have_phys_base = true;
	si->phys_base = phys_base;
}

/* ---- the input ops (input.h) ----------------------------------------- */

/* The cache of disk @i: the run's for disk 1. */
static struct cache *disk_cache(struct sadump_info *si, struct cache *cache, unsigned i)
{
	return i == 0 ? cache : &si->disks[i].cache;
}

/* Why @pfn has no bytes. */
static enum mdf_status absent(const struct sadump_info *si, uint64_t pfn, struct mdf_err *err)
{
	if (pfn >= si->max_mapnr)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "%s: physical address 0x%llx is not in the dump (beyond max_mapnr 0x%llx)",
				   si->path, (ull)(pfn << si->block_shift), (ull)si->max_mapnr);
	return mdf_err_set(err, MDF_ERR_NODATA,
			   "%s: physical address 0x%llx is not in the dump (not RAM)",
			   si->path, (ull)(pfn << si->block_shift));
}

/* The bytes of stored page @pfn, from its disk's cache. */
static enum mdf_status get_stored(struct sadump_info *si, struct cache *cache, uint64_t pfn,
				  const unsigned char **ret, struct mdf_err *err)
{
	struct cache_span sp;
	unsigned disk;
	uint64_t off;

	/* its disk and offset, checked at open to lie inside */
	if (!sadump_block_where(si, sadump_pfn_to_block(si, pfn), &disk, &off))
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: pfn 0x%llx: its block is past the data",
				   si->path, (ull)pfn);
	sp.start = si->disks[disk].data_off;
	sp.end = sp.start + si->disks[disk].data_len;
	sp.mappable = true;
	return cache_get(disk_cache(si, cache, disk), off, si->block_size, &sp, ret, err);
}

/* The page's bytes: RAM that is not stored reads as zeros. */
static enum mdf_status get_page(struct sadump_info *si, struct cache *cache, uint64_t pfn,
				const unsigned char **ret, unsigned char *scratch,
				struct mdf_err *err)
{
	if (!sadump_is_ram(si, pfn))
		return absent(si, pfn, err);
	if (!sadump_is_stored(si, pfn)) {
		memset(scratch, 0, si->block_size);
		*ret = scratch;
		return MDF_OK;
	}
	return get_stored(si, cache, pfn, ret, err);
}

static enum mdf_status sa_read_paddr(void *in, struct cache *cache, uint64_t paddr,
				     void *buf, size_t len, struct mdf_err *err)
{
	struct sadump_info *si = in;
	unsigned char *out = buf;
	uint64_t mask = si->block_size - 1;

	if (len > UINT64_MAX - paddr)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "%s: physical address 0x%llx + 0x%zx wraps around",
				   si->path, (ull)paddr, len);
	while (len) {
		uint64_t pfn = paddr >> si->block_shift;
		size_t inpg = (size_t)(paddr & mask);
		size_t n = (size_t)MDF_MIN((uint64_t)len, (uint64_t)si->block_size - inpg);
		const unsigned char *p;

		if (!sadump_is_ram(si, pfn))
			return absent(si, pfn, err);
		if (!sadump_is_stored(si, pfn)) {
			memset(out, 0, n);
		} else {
			if (get_stored(si, cache, pfn, &p, err) != MDF_OK)
				return err->status;
			memcpy(out, p + inpg, n);
		}
		out += n;
		paddr += n;
		len -= n;
	}
	return MDF_OK;
}

/* A run of stored pages on disk 1 is one run of its file. */
static bool sa_file_run(const void *in, uint64_t paddr, uint64_t len, struct input_run *ret)
{
	const struct sadump_info *si = in;
	uint64_t pfn = paddr >> si->block_shift, last, off;
	unsigned disk;

	if (!len || (paddr & (si->block_size - 1)) || len > UINT64_MAX - paddr)
		return false;
	last = (paddr + len - 1) >> si->block_shift;
	for (uint64_t p = pfn; p <= last; p++)
		if (!sadump_is_ram(si, p) || !sadump_is_stored(si, p))
			return false;
	if (!sadump_block_where(si, sadump_pfn_to_block(si, pfn), &disk, &off) || disk != 0 ||
	    off + len > si->disks[0].data_off + si->disks[0].data_len)
		return false;
	ret->off = off;
	ret->span.start = si->disks[0].data_off;
	ret->span.end = si->disks[0].data_off + si->disks[0].data_len;
	ret->span.mappable = true;
	return true;
}

static enum mdf_status sa_page(void *in, struct cache *cache, uint64_t pfn,
			       uint64_t page_size, unsigned char *scratch,
			       const unsigned char **ret, struct mdf_err *err)
{
	struct sadump_info *si = in;

	(void)page_size;
	return get_page(si, cache, pfn, ret, scratch, err);
}

/* Present: the RAM bitmap; every present page may be dumped (RAM that is
 * not stored reads as zeros, and zero pages go: zero_excluded). */
static void sa_cycle_bitmaps(const void *in, uint64_t page_size, struct bitmap *present,
			     struct bitmap *dumpable)
{
	const struct sadump_info *si = in;
	uint64_t start = present->start_pfn, end = present->end_pfn;
	size_t n = bitmap_bytes(present);
	uint64_t have = start < si->max_mapnr ? div_round_up(si->max_mapnr - start, 8) : 0;

	(void)page_size;
	memset(present->bits, 0, n);
	memcpy(present->bits, si->ram + start / 8, (size_t)MDF_MIN((uint64_t)n, have));
	if ((end - start) % 8)
		present->bits[n - 1] &= (uint8_t)((1u << ((end - start) % 8)) - 1);
	bitmap_copy(dumpable, present);
}

static void sa_facts(const void *in, struct input_facts *f)
{
	const struct sadump_info *si = in;

	memset(f, 0, sizeof(*f));
	f->machine = EM_X86_64; /* sadump is x86 firmware */
	f->max_paddr = si->max_mapnr << si->block_shift;
	f->block_size = si->block_size;
	f->have_timestamp = si->have_timestamp;
	f->timestamp = si->timestamp;
	f->have_phys_base = si->have_phys_base;
	f->phys_base = si->phys_base;
	f->nr_cpus = si->nr_online;
	f->notes = si->notes;
	f->notes_len = si->notes_len;
	f->have_vmcoreinfo = si->have_vmcoreinfo;
	f->vmcoreinfo_off = si->vmcoreinfo_off;
	f->vmcoreinfo_size = si->vmcoreinfo_size;
}

const struct input_ops sadump_input_ops = {
	.kind = "sadump",
	.read_paddr = sa_read_paddr,
	.file_run = sa_file_run,
	.page = sa_page,
	.cycle_bitmaps = sa_cycle_bitmaps,
	.facts = sa_facts,
};
