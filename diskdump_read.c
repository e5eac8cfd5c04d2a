/*
 * diskdump_read.c - kdump-compressed input (refiltering).
 */
#include "diskdump_read.h"

#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bitmap.h"
#include "compress/compress.h"
#include "util.h"

#define DD_CODEC_FLAGS                                               \
	(DUMP_DH_COMPRESSED_ZLIB | DUMP_DH_COMPRESSED_LZO |          \
	 DUMP_DH_COMPRESSED_SNAPPY | DUMP_DH_COMPRESSED_ZSTD)
#define DD_MIN_BLOCK 512
#define DD_MAX_BLOCK 65536

typedef unsigned long long ull;

bool diskdump_probe(const unsigned char *head, size_t len)
{
	return len >= KDUMP_SIG_LEN &&
	       memcmp(head, KDUMP_SIGNATURE, KDUMP_SIG_LEN) == 0;
}

/*
 * The span for a request [off, off+len) inside the file: the part of the
 * file made of whole host pages may be mapped; a request reaching into the
 * tail is read.
 */
static void dd_span(const struct diskdump_info *di, const struct cache *cache,
		    uint64_t off, uint64_t len, struct cache_span *sp)
{
	uint64_t ps = cache->page_size ? cache->page_size : 4096;
	uint64_t mend = align_down(di->file_size, ps);

	sp->start = 0;
	if (off + len <= mend) {
		sp->end = mend;
		sp->mappable = true;
	} else {
		sp->end = di->file_size;
		sp->mappable = false;
	}
}

/* Read bytes the caller has checked to lie inside the file. */
static enum mdf_status dd_pread(const struct diskdump_info *di,
				struct cache *cache, void *buf, size_t len,
				uint64_t off, struct mdf_err *err)
{
	struct cache_span sp;

	dd_span(di, cache, off, len, &sp);
	return cache_pread(cache, buf, len, off, &sp, err);
}

/* True if [off, off+len) lies inside the file. */
static bool dd_inside(const struct diskdump_info *di, uint64_t off, uint64_t len)
{
	return off <= di->file_size && len <= di->file_size - off;
}

/* "KDUMP\x00.." style rendering of 8 signature bytes for messages. */
static void dd_sig_text(const unsigned char *sig, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";
	char *p = out;

	for (size_t i = 0; i < n; i++) {
		if (sig[i] >= 0x20 && sig[i] < 0x7f && sig[i] != '"' && sig[i] != '\\') {
			*p++ = (char)sig[i];
		} else {
			*p++ = '\\';
			*p++ = 'x';
			*p++ = hex[sig[i] >> 4];
			*p++ = hex[sig[i] & 15];
		}
	}
	*p = '\0';
}

static enum mdf_status dd_check_signature(struct diskdump_info *di,
					  const unsigned char *head, size_t n,
					  struct mdf_err *err)
{
	static const char flat[MDF_FLAT_SIG_LEN] = MDF_FLAT_SIGNATURE;
	char text[4 * KDUMP_SIG_LEN + 1];

	if (n >= sizeof(flat) && memcmp(head, flat, sizeof(flat)) == 0)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "%s: flattened format: rearrange it with makedumpfile -R first",
				   di->path);
	if (n >= KDUMP_SIG_LEN && memcmp(head, DISKDUMP_SIGNATURE, KDUMP_SIG_LEN) == 0)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "%s: old diskdump format (signature \"DISKDUMP\") is not supported",
				   di->path);
	if (!diskdump_probe(head, n)) {
		dd_sig_text(head, MDF_MIN(n, (size_t)KDUMP_SIG_LEN), text);
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: not a kdump-compressed dump (signature \"%s\", expected \"KDUMP   \")",
				   di->path, text);
	}
	if (n < sizeof(struct disk_dump_header))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: file too small for a kdump header (size 0x%llx, need 0x%zx)",
				   di->path, (ull)di->file_size,
				   sizeof(struct disk_dump_header));
	return MDF_OK;
}

static enum mdf_status dd_check_header(struct diskdump_info *di,
				       struct mdf_err *err)
{
	const struct disk_dump_header *h = &di->header;
	int32_t v = h->header_version;
	uint64_t B;

	if (v < 1)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: header version %d is invalid (1 to %d expected)",
				   di->path, v, KDUMP_HEADER_VERSION);
	if (v > KDUMP_HEADER_VERSION)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "%s: header version %d is newer than this reader (1 to %d)",
				   di->path, v, KDUMP_HEADER_VERSION);
	if (h->block_size < DD_MIN_BLOCK || h->block_size > DD_MAX_BLOCK ||
	    (h->block_size & (h->block_size - 1)))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: block size %d is not a power of two from %d to %d",
				   di->path, h->block_size, DD_MIN_BLOCK, DD_MAX_BLOCK);
	di->block_size = (uint32_t)h->block_size;
	di->block_shift = (unsigned)__builtin_ctz(di->block_size);
	B = di->block_size;
	if (h->sub_hdr_size < 1)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: sub header size %d blocks (at least 1 expected)",
				   di->path, h->sub_hdr_size);
	di->off_bitmap1 = (1 + (uint64_t)h->sub_hdr_size) * B;
	if (di->off_bitmap1 > di->file_size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: sub header at 0x%llx+0x%llx (%d blocks) past end of file (size 0x%llx)",
				   di->path, (ull)B, (ull)(di->off_bitmap1 - B),
				   h->sub_hdr_size, (ull)di->file_size);
	if (h->nr_cpus < 0)
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: nr_cpus %d is negative",
				   di->path, h->nr_cpus);
	di->nr_cpus = (unsigned)h->nr_cpus;
	di->status = h->status;
	di->compression = h->status & DD_CODEC_FLAGS;
	di->incomplete = (h->status & DUMP_DH_COMPRESSED_INCOMPLETE) != 0;
	di->excluded_vmemmap = (h->status & DUMP_DH_EXCLUDED_VMEMMAP) != 0;
	di->timestamp = h->timestamp.tv_sec;
	return MDF_OK;
}

/* Clear the sub header fields that header version @v does not have. */
static void dd_gate_sub_header(struct kdump_sub_header *s, int v)
{
	unsigned char *p = (unsigned char *)s;
	size_t keep = sizeof(*s);

	if (v < 2)
		keep = offsetof(struct kdump_sub_header, split);
	else if (v < 3)
		keep = offsetof(struct kdump_sub_header, offset_vmcoreinfo);
	else if (v < 4)
		keep = offsetof(struct kdump_sub_header, offset_note);
	else if (v < 5)
		keep = offsetof(struct kdump_sub_header, offset_eraseinfo);
	else if (v < 6)
		keep = offsetof(struct kdump_sub_header, start_pfn_64);
	memset(p + keep, 0, sizeof(*s) - keep);
}

/* A region of the file described by an (int64 offset, uint64 size) pair,
 * to be read into memory (with a terminating byte). */
static enum mdf_status dd_check_region(const struct diskdump_info *di,
				       const char *what, int64_t off,
				       uint64_t size, struct mdf_err *err)
{
	if (off < 0 || !dd_inside(di, (uint64_t)off, size))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: %s at 0x%llx+0x%llx past end of file (size 0x%llx)",
				   di->path, what, (ull)off, (ull)size,
				   (ull)di->file_size);
	if (size >= SIZE_MAX) /* a 32-bit host, a file over 4 GiB */
		return mdf_err_set(err, MDF_ERR_NOMEM,
				   "%s: %s of 0x%llx bytes does not fit this host's memory",
				   di->path, what, (ull)size);
	return MDF_OK;
}

static enum mdf_status dd_read_sub_header(struct diskdump_info *di,
					  struct cache *cache, bool allow_split,
					  struct mdf_err *err)
{
	struct kdump_sub_header *s = &di->sub;
	int v = di->header.header_version;
	unsigned char b[sizeof(*s)];
	enum mdf_status st;

	st = dd_pread(di, cache, b, kdump_sub_header_size(di->abi), di->block_size, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "%s: sub header", di->path);
	kdump_sub_header_get(s, b, di->abi, di->big_endian);
	dd_gate_sub_header(s, v);
	di->dump_level = s->dump_level;
	di->phys_base = s->phys_base;
	di->split = s->split != 0;
	di->split_start_pfn = v >= 6 ? s->start_pfn_64 : s->start_pfn;
	di->split_end_pfn = v >= 6 ? s->end_pfn_64 : s->end_pfn;
	if (di->split && !allow_split)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "%s: split dump (this part holds pfns 0x%llx-0x%llx): give all the parts of the set, or use --reassemble to merge them first",
				   di->path, (ull)di->split_start_pfn,
				   (ull)di->split_end_pfn);
	di->max_mapnr = v >= 6 ? s->max_mapnr_64 : di->header.max_mapnr;
	if (di->max_mapnr == 0)
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: max_mapnr is 0",
				   di->path);
	/* 32-bit arm counts pfns from PHYS_OFFSET's (diskdump.h): from here
	 * on every pfn is the machine's, the file's bitmaps placed after
	 * pfn_base zero bits. */
	di->pfn_base = kdump_pfn_base(di->abi, di->phys_base, di->block_shift);
	if (di->pfn_base % 64 || di->max_mapnr > UINT64_MAX - di->pfn_base)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: phys_base 0x%llx is no page frame on a 64-page boundary",
				   di->path, (ull)di->phys_base);
	di->file_max_mapnr = di->max_mapnr;
	di->max_mapnr += di->pfn_base;
	di->split_start_pfn += di->pfn_base;
	di->split_end_pfn += di->pfn_base;
	if (s->size_note) {
		st = dd_check_region(di, "note copy", s->offset_note,
				     s->size_note, err);
		if (st != MDF_OK)
			return st;
	}
	if (s->size_vmcoreinfo) {
		st = dd_check_region(di, "VMCOREINFO", s->offset_vmcoreinfo,
				     s->size_vmcoreinfo, err);
		if (st != MDF_OK)
			return st;
	}
	if (s->size_eraseinfo) {
		st = dd_check_region(di, "eraseinfo", s->offset_eraseinfo,
				     s->size_eraseinfo, err);
		if (st != MDF_OK)
			return st;
		di->off_eraseinfo = (uint64_t)s->offset_eraseinfo;
		di->size_eraseinfo = s->size_eraseinfo;
	}
	return MDF_OK;
}

static enum mdf_status dd_read_notes(struct diskdump_info *di,
				     struct cache *cache, struct mdf_err *err)
{
	const struct kdump_sub_header *s = &di->sub;
	enum mdf_status st;
	size_t n;

	if (s->size_note) {
		di->off_notes = (uint64_t)s->offset_note;
		di->notes_len = (size_t)s->size_note;
		di->notes = malloc(di->notes_len + 1);
		if (!di->notes)
			return mdf_err_set(err, MDF_ERR_NOMEM,
					   "%s: out of memory for 0x%zx bytes of notes",
					   di->path, di->notes_len);
		st = dd_pread(di, cache, di->notes, di->notes_len, di->off_notes, err);
		if (st != MDF_OK)
			return mdf_err_push(err, "%s: note copy", di->path);
		di->notes[di->notes_len] = 0;
	}
	if (!s->size_vmcoreinfo)
		return MDF_OK;
	n = (size_t)s->size_vmcoreinfo;
	di->vmcoreinfo_size = s->size_vmcoreinfo;
	di->vmcoreinfo = malloc(n + 1);
	if (!di->vmcoreinfo)
		return mdf_err_set(err, MDF_ERR_NOMEM,
				   "%s: out of memory for 0x%zx bytes of VMCOREINFO",
				   di->path, n);
	if (di->notes && (uint64_t)s->offset_vmcoreinfo >= di->off_notes &&
	    s->size_vmcoreinfo <= di->notes_len &&
	    (uint64_t)s->offset_vmcoreinfo - di->off_notes <= di->notes_len - n) {
		di->vmcoreinfo_in_notes = true;
		di->vmcoreinfo_note_off = (size_t)((uint64_t)s->offset_vmcoreinfo -
						   di->off_notes);
		memcpy(di->vmcoreinfo, di->notes + di->vmcoreinfo_note_off, n);
	} else {
		st = dd_pread(di, cache, di->vmcoreinfo, n,
			      (uint64_t)s->offset_vmcoreinfo, err);
		if (st != MDF_OK)
			return mdf_err_push(err, "%s: VMCOREINFO", di->path);
	}
	di->vmcoreinfo[n] = '\0';
	while (n && di->vmcoreinfo[n - 1] == '\0')
		n--;
	di->vmcoreinfo_len = n;
	return MDF_OK;
}

static inline uint64_t dd_word(const uint8_t *bits, uint64_t w)
{
	return load_le64(bits + 8 * w);
}

static uint64_t dd_rank(const struct diskdump_info *di, uint64_t pfn);

/* Bitmaps in memory, the rank table and the descriptor area. */
static enum mdf_status dd_read_bitmaps(struct diskdump_info *di,
				       struct mdf_err *err)
{
	const struct disk_dump_header *h = &di->header;
	uint64_t B = di->block_size;
	uint64_t words = div_round_up(di->max_mapnr, 64);
	uint64_t nbytes = words * 8;
	/* the file's bytes, after pfn_base's (a multiple of 64) */
	uint64_t lead = di->pfn_base / 8, fbytes = nbytes - lead;
	uint64_t nblocks = div_round_up(di->max_mapnr, DISKDUMP_RANK_PFNS);
	const uint64_t wpb = DISKDUMP_RANK_PFNS / 64; /* words per rank block */
	uint8_t *maps[2];
	uint64_t offs[2];
	enum mdf_status st;

	if (h->bitmap_blocks == 0 || (h->bitmap_blocks & 1))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: bitmap blocks %u is not a positive even number",
				   di->path, h->bitmap_blocks);
	di->bitmap_bytes = (uint64_t)(h->bitmap_blocks / 2) * B;
	di->off_bitmap2 = di->off_bitmap1 + di->bitmap_bytes;
	di->off_desc = di->off_bitmap2 + di->bitmap_bytes;
	if (di->off_desc > di->file_size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: bitmaps at 0x%llx+0x%llx past end of file (size 0x%llx)",
				   di->path, (ull)di->off_bitmap1,
				   (ull)(2 * di->bitmap_bytes), (ull)di->file_size);
	if (di->file_max_mapnr > di->bitmap_bytes * 8)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: bitmaps of 0x%llx bytes are too small for max_mapnr 0x%llx",
				   di->path, (ull)di->bitmap_bytes, (ull)di->file_max_mapnr);
	/* bitmap_bytes is a multiple of 8, so nbytes <= bitmap_bytes. */
	if (!size_fits(nbytes) || !size_fits((nblocks + 1) * sizeof(*di->rank)))
		return mdf_err_set(err, MDF_ERR_NOMEM,
				   "%s: bitmaps of 0x%llx bytes do not fit this host's memory",
				   di->path, (ull)nbytes);
	di->bitmap1 = malloc((size_t)nbytes);
	di->bitmap2 = malloc((size_t)nbytes);
	di->nrank = nblocks + 1;
	di->rank = malloc((size_t)(di->nrank * sizeof(*di->rank)));
	if (!di->bitmap1 || !di->bitmap2 || !di->rank)
		return mdf_err_set(err, MDF_ERR_NOMEM,
				   "%s: out of memory for bitmaps of 0x%llx bytes",
				   di->path, (ull)nbytes);
	maps[0] = di->bitmap1;
	maps[1] = di->bitmap2;
	offs[0] = di->off_bitmap1;
	offs[1] = di->off_bitmap2;
	for (int i = 0; i < 2; i++) {
		size_t got = 0;

		/* Straight from the file: a bitmap is read once, and a
		 * cache entry would keep a buffer of its size for good. */
		memset(maps[i], 0, (size_t)lead);
		st = util_pread_full(di->fd, maps[i] + lead, (size_t)fbytes, offs[i],
				     &got, err);
		if (st != MDF_OK)
			return mdf_err_push(err, "%s: bitmap%d", di->path, i + 1);
		if (got < fbytes)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "%s: bitmap%d: unexpected end of file at 0x%llx",
					   di->path, i + 1, (ull)(offs[i] + got));
		/* Bits at and above max_mapnr do not count. */
		if (di->max_mapnr % 64) {
			uint64_t keep = (UINT64_C(1) << (di->max_mapnr % 64)) - 1;

			store_le64(maps[i] + nbytes - 8,
				   dd_word(maps[i], words - 1) & keep);
		}
	}
	/* A stored page is present whatever bitmap1 says: a zeroed bitmap1
	 * used to refilter to "Original pages: 0x0" without a word. */
	di->stray_dumpable = 0;
	for (uint64_t w = 0; w < words; w++) {
		uint64_t b1 = dd_word(di->bitmap1, w), b2 = dd_word(di->bitmap2, w);

		if (b2 & ~b1) {
			di->stray_dumpable += (uint64_t)__builtin_popcountll(b2 & ~b1);
			store_le64(di->bitmap1 + 8 * w, b1 | b2);
		}
	}
	di->rank[0] = 0;
	for (uint64_t b = 0; b < nblocks; b++) {
		uint64_t n = 0, end = MDF_MIN(words, (b + 1) * wpb);

		for (uint64_t w = b * wpb; w < end; w++)
			n += (uint64_t)__builtin_popcountll(dd_word(di->bitmap2, w));
		di->rank[b + 1] = di->rank[b] + n;
	}
	di->ndesc = di->rank[nblocks];
	/* A part of a split set stores the descriptors of its own range
	 * only, from off_desc on (the area is sized for all parts). */
	if (di->split && di->split_start_pfn <= di->split_end_pfn &&
	    di->split_end_pfn <= di->max_mapnr)
		di->desc_base = dd_rank(di, di->split_start_pfn);
	if (di->ndesc > (UINT64_MAX - di->off_desc) / sizeof(struct page_desc))
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: 0x%llx page descriptors overflow",
				   di->path, (ull)di->ndesc);
	di->off_data = di->off_desc + di->ndesc * sizeof(struct page_desc);
	if (!di->incomplete && di->off_data > di->file_size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: 0x%llx page descriptors at 0x%llx+0x%llx past end of file (size 0x%llx)",
				   di->path, (ull)di->ndesc, (ull)di->off_desc,
				   (ull)(di->off_data - di->off_desc),
				   (ull)di->file_size);
	return MDF_OK;
}

enum mdf_status diskdump_open(struct diskdump_info *di, int fd,
			      const char *path, struct cache *cache,
			      struct mdf_err *err)
{
	return diskdump_open_flags(di, fd, path, cache, 0, err);
}

enum mdf_status diskdump_open_flags(struct diskdump_info *di, int fd,
				    const char *path, struct cache *cache,
				    unsigned flags, struct mdf_err *err)
{
	unsigned char head[MDF_MAX(sizeof(struct disk_dump_header),
				   (size_t)MDF_FLAT_SIG_LEN)];
	size_t n;
	struct stat st;
	enum mdf_status s;

	memset(di, 0, sizeof(*di));
	di->path = path;
	di->fd = fd;
	if (fstat(fd, &st) < 0)
		return mdf_err_errno(err, MDF_ERR_IO, errno, "%s: fstat", path);
	if (!S_ISREG(st.st_mode))
		return mdf_err_set(err, MDF_ERR_ARG,
				   "%s: a kdump-compressed input must be a regular file",
				   path);
	di->file_size = (uint64_t)st.st_size;
	n = (size_t)MDF_MIN((uint64_t)sizeof(head), di->file_size);
	s = dd_pread(di, cache, head, n, 0, err);
	if (s == MDF_OK)
		s = dd_check_signature(di, head, n, err);
	if (s != MDF_OK)
		goto fail;
	/* The writing machine's byte order (an s390x dump is big-endian):
	 * a header version that is only a small number swapped (1 to 6 are
	 * known; a later one is then refused as newer) says it is not ours.
	 * Its C ABI: an i386 kernel's dump has the ILP32 headers of the
	 * makedumpfile that ran there (diskdump.c), told by utsname.machine,
	 * at the same place in both. */
	{
		int32_t v = (int32_t)load_t32(head + 8, MDF_HOST_BIG_ENDIAN);
		uint32_t sw = __builtin_bswap32((uint32_t)v);

		di->swapped = (v < 1 || v > 0xffff) && sw >= 1 && sw <= 0xffff;
		di->big_endian = di->swapped != MDF_HOST_BIG_ENDIAN;
		di->abi = kdump_abi_of_header(head, n);
		kdump_header_get(&di->header, head, di->abi, di->big_endian);
	}
	for (size_t i = 0; i < 6; i++) {
		char *f = (char *)&di->header.utsname + i * (NEW_UTS_LEN + 1);

		f[NEW_UTS_LEN] = '\0';
	}
	s = dd_check_header(di, err);
	if (s == MDF_OK)
		s = dd_read_sub_header(di, cache,
				       (flags & DISKDUMP_OPEN_SPLIT) != 0, err);
	if (s == MDF_OK)
		s = dd_read_notes(di, cache, err);
	if (s == MDF_OK)
		s = dd_read_bitmaps(di, err);
	if (s != MDF_OK)
		goto fail;
	di->slot_mem = malloc((size_t)DISKDUMP_SLOTS * di->block_size);
	if (!di->slot_mem) {
		s = mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", path);
		goto fail;
	}
	for (size_t i = 0; i < DISKDUMP_SLOTS; i++)
		di->slots[i].buf = di->slot_mem + i * di->block_size;
	return MDF_OK;
fail:
	diskdump_close(di);
	return s;
}

void diskdump_close(struct diskdump_info *di)
{
	free(di->bitmap1);
	free(di->bitmap2);
	free(di->rank);
	free(di->notes);
	free(di->vmcoreinfo);
	free(di->slot_mem);
	di->bitmap1 = di->bitmap2 = NULL;
	di->rank = NULL;
	di->notes = NULL;
	di->vmcoreinfo = NULL;
	di->slot_mem = NULL;
	for (size_t i = 0; i < DISKDUMP_SLOTS; i++) {
		di->slots[i].buf = NULL;
		di->slots[i].stamp = 0;
	}
	di->max_mapnr = 0;
	di->notes_len = di->vmcoreinfo_len = 0;
}

static inline bool dd_bit(const uint8_t *bits, uint64_t pfn)
{
	return (bits[pfn >> 3] >> (pfn & 7)) & 1;
}

bool diskdump_present(const struct diskdump_info *di, uint64_t pfn)
{
	return pfn < di->max_mapnr && dd_bit(di->bitmap1, pfn);
}

bool diskdump_dumpable(const struct diskdump_info *di, uint64_t pfn)
{
	return pfn < di->max_mapnr && dd_bit(di->bitmap2, pfn);
}

/* Set bits of bitmap2 below @pfn (pfn <= max_mapnr). */
static uint64_t dd_rank(const struct diskdump_info *di, uint64_t pfn)
{
	uint64_t b = pfn / DISKDUMP_RANK_PFNS;
	uint64_t n = di->rank[b];
	uint64_t w = b * (DISKDUMP_RANK_PFNS / 64), wend = pfn / 64;

	for (; w < wend; w++)
		n += (uint64_t)__builtin_popcountll(dd_word(di->bitmap2, w));
	if (pfn % 64)
		n += (uint64_t)__builtin_popcountll(dd_word(di->bitmap2, wend) &
						    ((UINT64_C(1) << (pfn % 64)) - 1));
	return n;
}

uint64_t diskdump_desc_offset(const struct diskdump_info *di, uint64_t pfn)
{
	uint64_t r;

	if (pfn > di->max_mapnr)
		pfn = di->max_mapnr;
	r = dd_rank(di, pfn);
	return di->off_desc + (r - MDF_MIN(r, di->desc_base)) * sizeof(struct page_desc);
}

/* A part of a split set holds the pages of its own range only. */
static bool dd_in_part(const struct diskdump_info *di, uint64_t pfn)
{
	return !di->split ||
	       (pfn >= di->split_start_pfn && pfn < di->split_end_pfn);
}

/* Why @pfn has no stored page, for messages. */
static const char *dd_absent_why(const struct diskdump_info *di, uint64_t pfn)
{
	if (pfn >= di->max_mapnr)
		return "beyond max_mapnr";
	if (!dd_in_part(di, pfn))
		return "in another part of the split set";
	return diskdump_present(di, pfn) ? "excluded" : "not present";
}

/* Check descriptor @pd of @pfn (at file offset @doff). */
static enum mdf_status dd_check_desc(const struct diskdump_info *di,
				     uint64_t pfn, uint64_t doff,
				     const struct page_desc *pd,
				     struct mdf_err *err)
{
	const char *p = di->path;

	if (pd->offset == 0 && di->incomplete)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "%s: pfn 0x%llx: page descriptor at 0x%llx: page lost (the dump is incomplete)",
				   p, (ull)pfn, (ull)doff);
	if (pd->size == 0)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: pfn 0x%llx: page descriptor at 0x%llx: data size 0",
				   p, (ull)pfn, (ull)doff);
	if (pd->size > di->block_size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: pfn 0x%llx: page descriptor at 0x%llx: data size 0x%x larger than the block size 0x%x",
				   p, (ull)pfn, (ull)doff, pd->size, di->block_size);
	if (pd->flags & ~(uint32_t)DD_CODEC_FLAGS ||
	    __builtin_popcount(pd->flags) > 1)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: pfn 0x%llx: page descriptor at 0x%llx: unknown flags 0x%x",
				   p, (ull)pfn, (ull)doff, pd->flags);
	if (pd->offset < 0 || (uint64_t)pd->offset < di->off_data)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: pfn 0x%llx: page descriptor at 0x%llx: data offset 0x%llx before the data area (0x%llx)",
				   p, (ull)pfn, (ull)doff, (ull)pd->offset,
				   (ull)di->off_data);
	if (!dd_inside(di, (uint64_t)pd->offset, pd->size))
		return mdf_err_set(err, di->incomplete ? MDF_ERR_NODATA : MDF_ERR_FORMAT,
				   "%s: pfn 0x%llx: page descriptor at 0x%llx: data offset 0x%llx + 0x%x past end of file (size 0x%llx)%s",
				   p, (ull)pfn, (ull)doff, (ull)pd->offset,
				   pd->size, (ull)di->file_size,
				   di->incomplete ? ": page lost (the dump is incomplete)" : "");
	return MDF_OK;
}

enum mdf_status diskdump_check_desc(const struct diskdump_info *di, uint64_t pfn,
				    uint64_t doff, const struct page_desc *pd,
				    struct mdf_err *err)
{
	enum mdf_status st = dd_check_desc(di, pfn, doff, pd, err);

	/* A page stored raw is one whole block (decompress_page). */
	if (st == MDF_OK && pd->flags == 0 && pd->size != di->block_size)
		st = mdf_err_set(err, MDF_ERR_FORMAT,
				 "%s: pfn 0x%llx: page descriptor at 0x%llx: raw data of 0x%x bytes, not one block (0x%x)",
				 di->path, (ull)pfn, (ull)doff, pd->size, di->block_size);
	return st;
}

enum mdf_status diskdump_get_page(struct diskdump_info *di,
				  struct cache *cache, uint64_t pfn,
				  const unsigned char **ret,
				  struct mdf_err *err)
{
	struct diskdump_slot *slot = &di->slots[0];
	struct page_desc pd;
	struct cache_span sp;
	const unsigned char *data;
	uint64_t doff;
	enum mdf_status st;

	if (!diskdump_dumpable(di, pfn) || !dd_in_part(di, pfn))
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "%s: pfn 0x%llx is not in the dump (%s)",
				   di->path, (ull)pfn, dd_absent_why(di, pfn));
	for (size_t i = 0; i < DISKDUMP_SLOTS; i++) {
		struct diskdump_slot *s = &di->slots[i];

		if (s->stamp && s->pfn == pfn) {
			s->stamp = ++di->clock;
			*ret = s->buf;
			return MDF_OK;
		}
		if (s->stamp < slot->stamp)
			slot = s;
	}

	doff = diskdump_desc_offset(di, pfn);
	if (!dd_inside(di, doff, sizeof(pd)))
		return mdf_err_set(err, di->incomplete ? MDF_ERR_NODATA : MDF_ERR_FORMAT,
				   "%s: pfn 0x%llx: page descriptor at 0x%llx past end of file (size 0x%llx)%s",
				   di->path, (ull)pfn, (ull)doff, (ull)di->file_size,
				   di->incomplete ? ": page lost (the dump is incomplete)" : "");
	st = dd_pread(di, cache, &pd, sizeof(pd), doff, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "%s: pfn 0x%llx: page descriptor at 0x%llx",
				    di->path, (ull)pfn, (ull)doff);
	if (di->swapped)
		kdump_page_desc_bswap(&pd, 1);
	st = dd_check_desc(di, pfn, doff, &pd, err);
	if (st != MDF_OK)
		return st;

	slot->stamp = 0; /* empty until filled */
	dd_span(di, cache, (uint64_t)pd.offset, pd.size, &sp);
	st = cache_get(cache, (uint64_t)pd.offset, pd.size, &sp, &data, err);
	if (st == MDF_OK)
		st = decompress_page(pd.flags, data, pd.size, slot->buf,
				     di->block_size, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "%s: pfn 0x%llx: page descriptor at 0x%llx: data at 0x%llx+0x%x (%s)",
				    di->path, (ull)pfn, (ull)doff,
				    (ull)pd.offset, pd.size,
				    compress_flag_name(pd.flags));
	di->pages_decoded++;
	slot->pfn = pfn;
	slot->stamp = ++di->clock;
	*ret = slot->buf;
	return MDF_OK;
}

enum mdf_status diskdump_read_page(struct diskdump_info *di,
				   struct cache *cache, uint64_t pfn,
				   unsigned char *buf, struct mdf_err *err)
{
	const unsigned char *p;
	enum mdf_status st = diskdump_get_page(di, cache, pfn, &p, err);

	if (st == MDF_OK)
		memcpy(buf, p, di->block_size);
	return st;
}

enum mdf_status diskdump_read_paddr(struct diskdump_info *di,
				    struct cache *cache, uint64_t paddr,
				    void *buf, size_t len, struct mdf_err *err)
{
	unsigned char *out = buf;
	uint64_t mask = di->block_size - 1;

	if (len > UINT64_MAX - paddr)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "%s: physical address 0x%llx + 0x%zx wraps around",
				   di->path, (ull)paddr, len);
	while (len) {
		uint64_t pfn = paddr >> di->block_shift;
		size_t in = (size_t)(paddr & mask);
		size_t n = (size_t)MDF_MIN((uint64_t)len, (uint64_t)di->block_size - in);
		const unsigned char *p;
		enum mdf_status st;

		if (!diskdump_dumpable(di, pfn) || !dd_in_part(di, pfn)) {
			if (pfn >= di->max_mapnr)
				return mdf_err_set(err, MDF_ERR_NODATA,
						   "%s: physical address 0x%llx is not in the dump (beyond max_mapnr 0x%llx)",
						   di->path, (ull)paddr, (ull)di->max_mapnr);
			return mdf_err_set(err, MDF_ERR_NODATA,
					   "%s: physical address 0x%llx is not in the dump (%s)",
					   di->path, (ull)paddr, dd_absent_why(di, pfn));
		}
		st = diskdump_get_page(di, cache, pfn, &p, err);
		if (st != MDF_OK)
			return st;
		memcpy(out, p + in, n);
		out += n;
		paddr += n;
		len -= n;
	}
	return MDF_OK;
}

/* ---- the input ops (input.h) ----------------------------------------- */

static enum mdf_status dd_op_read_paddr(void *in, struct cache *cache, uint64_t paddr,
					void *buf, size_t len, struct mdf_err *err)
{
	return diskdump_read_paddr(in, cache, paddr, buf, len, err);
}

/* Pages are stored compressed (or in blocks of their own): always from
 * the reader's slots, never a run of the file read in place. */
static enum mdf_status dd_op_page(void *in, struct cache *cache, uint64_t pfn,
				  uint64_t page_size, unsigned char *scratch,
				  const unsigned char **ret, struct mdf_err *err)
{
	const struct diskdump_info *di = in;
	enum mdf_status st;

	(void)page_size;
	(void)scratch;
	st = diskdump_get_page(in, cache, pfn, ret, err);
	if (st != MDF_OK)
		mdf_err_names(err, di->path); /* its messages start with it */
	return st;
}

/* Present as the input says; only the pages it stored can be dumpable.
 * The cycle starts on a multiple of 8 pfns. */
static void dd_op_cycle_bitmaps(const void *in, uint64_t page_size,
				struct bitmap *present, struct bitmap *dumpable)
{
	const struct diskdump_info *di = in;
	uint64_t start = present->start_pfn, end = present->end_pfn;
	size_t n = bitmap_bytes(present);

	(void)page_size;
	memcpy(present->bits, di->bitmap1 + start / 8, n);
	bitmap_copy(dumpable, present);
	memcpy(dumpable->bits, di->bitmap2 + start / 8, n);
	for (size_t i = 0; i < n; i++)
		dumpable->bits[i] &= present->bits[i];
	if ((end - start) % 8) {
		uint8_t m = (uint8_t)((1u << ((end - start) % 8)) - 1);

		present->bits[n - 1] &= m;
		dumpable->bits[n - 1] &= m;
	}
}

static void dd_op_facts(const void *in, struct input_facts *f)
{
	const struct diskdump_info *di = in;

	memset(f, 0, sizeof(*f));
	f->vmcoreinfo = di->vmcoreinfo;
	f->vmcoreinfo_len = di->vmcoreinfo_len;
	/* The kdump header names the machine only in utsname (uname -m):
	 * the kernel layer maps it (machine 0 here). */
	f->big_endian = MDF_HOST_BIG_ENDIAN != di->swapped;
	f->max_paddr = di->max_mapnr * di->block_size; /* the machine's pfns */
	f->block_size = di->block_size;
	f->have_uts = true;
	f->uts = di->header.utsname;
	f->have_timestamp = true;
	f->timestamp = di->timestamp;
	f->have_phys_base = true;
	f->phys_base = di->phys_base;
	f->nr_cpus = (int32_t)di->nr_cpus;
	f->notes = di->notes;
	f->notes_len = di->notes_len;
	f->have_vmcoreinfo = di->vmcoreinfo_in_notes;
	f->vmcoreinfo_off = di->vmcoreinfo_note_off;
	f->vmcoreinfo_size = di->vmcoreinfo_size;
	f->excluded_vmemmap = di->excluded_vmemmap;
	f->incomplete = di->incomplete;
}

const struct input_ops diskdump_input_ops = {
	.kind = "kdump-compressed",
	.read_paddr = dd_op_read_paddr,
	.page = dd_op_page,
	.cycle_bitmaps = dd_op_cycle_bitmaps,
	.facts = dd_op_facts,
};
