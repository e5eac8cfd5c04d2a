/*
 * diskdump.h - the on-disk kdump-compressed and flattened formats, shared
 * by the writer, the reader (refiltering) and the tests.  No code.
 *
 * kdump-compressed layout (block size B = page size):
 *   0                      struct disk_dump_header
 *   B                      struct kdump_sub_header, then a copy of the
 *                          input's PT_NOTE contents
 *   (1 + sub_hdr_size) B   bitmap1 (present), then bitmap2 (dumpable),
 *                          each bitmap_blocks / 2 blocks
 *   ... + bitmap_blocks B  struct page_desc[number of set bits in bitmap2]
 *   then                   page data, packed; with dump level bit 1 the
 *                          first datum is one raw zero page that every zero
 *                          page's descriptor points at
 * All integers are in the producer's byte order and C ABI: LP64, or ILP32
 * for a 32-bit x86 kernel's dump (diskdump.c has both layouts; the structs
 * below are LP64's, and the in-memory form of either).
 *
 * Flattened format (-F): a 4096-byte header {"makedumpfile", type 1,
 * version 1}, then records {int64 offset, int64 size, size bytes} saying
 * where the bytes go in the rebuilt file, ended by {-1, -1}.  All
 * big-endian.  Later records may overwrite earlier ones.
 */
#ifndef MDF_DISKDUMP_H
#define MDF_DISKDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KDUMP_SIGNATURE "KDUMP   "
#define DISKDUMP_SIGNATURE "DISKDUMP"
#define KDUMP_SIG_LEN 8
#define KDUMP_HEADER_VERSION 6

/* disk_dump_header.status and page_desc.flags */
#define DUMP_DH_COMPRESSED_ZLIB 0x1
#define DUMP_DH_COMPRESSED_LZO 0x2
#define DUMP_DH_COMPRESSED_SNAPPY 0x4
#define DUMP_DH_COMPRESSED_INCOMPLETE 0x8
#define DUMP_DH_EXCLUDED_VMEMMAP 0x10
#define DUMP_DH_COMPRESSED_ZSTD 0x20

#define NEW_UTS_LEN 64

struct new_utsname {
	char sysname[NEW_UTS_LEN + 1];
	char nodename[NEW_UTS_LEN + 1];
	char release[NEW_UTS_LEN + 1];
	char version[NEW_UTS_LEN + 1];
	char machine[NEW_UTS_LEN + 1];
	char domainname[NEW_UTS_LEN + 1];
};

struct kdump_timeval64 {
	int64_t tv_sec;
	int64_t tv_usec;
};

/* 464 bytes on LP64 */
struct disk_dump_header {
	char signature[KDUMP_SIG_LEN];
	int32_t header_version;
	struct new_utsname utsname;     /* 390 bytes, at 12 */
	char pad0[2];                   /* C alignment of the timeval */
	/* at 408: LP64's alignment on every host (i386 aligns int64_t to 4) */
	_Alignas(8) struct kdump_timeval64 timestamp;
	uint32_t status;                /* 424 */
	int32_t block_size;             /* 428 */
	int32_t sub_hdr_size;           /* 432, in blocks */
	uint32_t bitmap_blocks;         /* 436 */
	uint32_t max_mapnr;             /* 440, truncated; see max_mapnr_64 */
	uint32_t total_ram_blocks;
	uint32_t device_blocks;
	uint32_t written_blocks;
	uint32_t current_cpu;
	int32_t nr_cpus;                /* 460 */
};

/* 104 bytes on LP64 */
struct kdump_sub_header {
	uint64_t phys_base;
	int32_t dump_level;             /* header_version >= 1 */
	int32_t split;                  /* >= 2 */
	uint64_t start_pfn;             /* >= 2 */
	uint64_t end_pfn;
	int64_t offset_vmcoreinfo;      /* >= 3 */
	uint64_t size_vmcoreinfo;
	int64_t offset_note;            /* >= 4 */
	uint64_t size_note;
	int64_t offset_eraseinfo;       /* >= 5 */
	uint64_t size_eraseinfo;
	uint64_t start_pfn_64;          /* >= 6 */
	uint64_t end_pfn_64;
	uint64_t max_mapnr_64;
};

/* 24 bytes */
struct page_desc {
	int64_t offset;      /* of the page data in the file; 0 = lost (incomplete dump) */
	uint32_t size;       /* bytes stored */
	uint32_t flags;      /* DUMP_DH_COMPRESSED_* or 0 for raw */
	uint64_t page_flags; /* always 0 */
};

_Static_assert(sizeof(struct disk_dump_header) == 464, "disk_dump_header layout");
_Static_assert(sizeof(struct kdump_sub_header) == 104, "kdump_sub_header layout");
_Static_assert(sizeof(struct page_desc) == 24, "page_desc layout");

/*
 * Byte order: the writing machine's (makedumpfile writes these structs as
 * they are in memory, so an s390x dump's are big-endian).  A reader or
 * writer on a host of the other order swaps every multi-byte field with
 * these; the character fields and the bitmaps (byte arrays) stay as they are.
 */
static inline void kdump_header_bswap(struct disk_dump_header *h)
{
	h->header_version = (int32_t)__builtin_bswap32((uint32_t)h->header_version);
	h->timestamp.tv_sec = (int64_t)__builtin_bswap64((uint64_t)h->timestamp.tv_sec);
	h->timestamp.tv_usec = (int64_t)__builtin_bswap64((uint64_t)h->timestamp.tv_usec);
	h->status = __builtin_bswap32(h->status);
	h->block_size = (int32_t)__builtin_bswap32((uint32_t)h->block_size);
	h->sub_hdr_size = (int32_t)__builtin_bswap32((uint32_t)h->sub_hdr_size);
	h->bitmap_blocks = __builtin_bswap32(h->bitmap_blocks);
	h->max_mapnr = __builtin_bswap32(h->max_mapnr);
	h->total_ram_blocks = __builtin_bswap32(h->total_ram_blocks);
	h->device_blocks = __builtin_bswap32(h->device_blocks);
	h->written_blocks = __builtin_bswap32(h->written_blocks);
	h->current_cpu = __builtin_bswap32(h->current_cpu);
	h->nr_cpus = (int32_t)__builtin_bswap32((uint32_t)h->nr_cpus);
}

static inline void kdump_sub_header_bswap(struct kdump_sub_header *s)
{
	s->phys_base = __builtin_bswap64(s->phys_base);
	s->dump_level = (int32_t)__builtin_bswap32((uint32_t)s->dump_level);
	s->split = (int32_t)__builtin_bswap32((uint32_t)s->split);
	s->start_pfn = __builtin_bswap64(s->start_pfn);
	s->end_pfn = __builtin_bswap64(s->end_pfn);
	s->offset_vmcoreinfo = (int64_t)__builtin_bswap64((uint64_t)s->offset_vmcoreinfo);
	s->size_vmcoreinfo = __builtin_bswap64(s->size_vmcoreinfo);
	s->offset_note = (int64_t)__builtin_bswap64((uint64_t)s->offset_note);
	s->size_note = __builtin_bswap64(s->size_note);
	s->offset_eraseinfo = (int64_t)__builtin_bswap64((uint64_t)s->offset_eraseinfo);
	s->size_eraseinfo = __builtin_bswap64(s->size_eraseinfo);
	s->start_pfn_64 = __builtin_bswap64(s->start_pfn_64);
	s->end_pfn_64 = __builtin_bswap64(s->end_pfn_64);
	s->max_mapnr_64 = __builtin_bswap64(s->max_mapnr_64);
}

static inline void kdump_page_desc_bswap(struct page_desc *pd, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		pd[i].offset = (int64_t)__builtin_bswap64((uint64_t)pd[i].offset);
		pd[i].size = __builtin_bswap32(pd[i].size);
		pd[i].flags = __builtin_bswap32(pd[i].flags);
		pd[i].page_flags = __builtin_bswap64(pd[i].page_flags);
	}
}

/*
 * The headers' C ABI: the producer's (diskdump.c).  The structs above are
 * LP64's; an i386 dump's headers are ILP32 (452 and 80 bytes), a 32-bit
 * arm dump's EABI32 (452 and 96: 8-byte members aligned to 8).
 */
enum kdump_abi { KDUMP_ABI_LP64, KDUMP_ABI_ILP32, KDUMP_ABI_EABI32 };
#define KDUMP_HEADER_SIZE_ILP32 452   /* EABI32's too */
#define KDUMP_SUB_HEADER_SIZE_ILP32 80
#define KDUMP_SUB_HEADER_SIZE_EABI32 96
#define KDUMP_HEADER_SIZE_MAX 464

/**
 * The pfn a kdump file's bit 0 (and its max_mapnr, split ranges) counts
 * from: 0, but on 32-bit arm (EABI32) the page of the sub header's
 * phys_base, PHYS_OFFSET, as 1.7.2 armhf writes it (ARCH_PFN_OFFSET, its
 * get_phys_base_arm()) and crash reads it (diskdump.c's paddr_to_pfn():
 * "In ARM, PFN 0 means first page in kernel direct-mapped view").
 */
static inline uint64_t kdump_pfn_base(enum kdump_abi a, uint64_t phys_base, unsigned page_shift)
{
	return a == KDUMP_ABI_EABI32 ? phys_base >> page_shift : 0;
}

/** The ABI of the dump of a kernel of ELF machine @e_machine. */
enum kdump_abi kdump_abi_of_machine(uint16_t e_machine);
/** The ABI of the header in @b (@len bytes): by its utsname.machine
 *  (i386..i686: ILP32; armv*: EABI32), at the same offset in all. */
enum kdump_abi kdump_abi_of_header(const unsigned char *b, size_t len);
size_t kdump_header_size(enum kdump_abi a);
size_t kdump_sub_header_size(enum kdump_abi a);

enum kdump_header_field { KDUMP_HF_STATUS, KDUMP_HF_BLOCK_SIZE, KDUMP_HF_SUB_HDR_SIZE,
			  KDUMP_HF_BITMAP_BLOCKS, KDUMP_HF_MAX_MAPNR, KDUMP_HF_NR_CPUS };
enum kdump_sub_field { KDUMP_SF_OFFSET_ERASEINFO, KDUMP_SF_SIZE_ERASEINFO,
		       KDUMP_SF_MAX_MAPNR_64 };
/** Where a field is in the header (sub header) bytes of ABI @a. */
size_t kdump_header_offset(enum kdump_abi a, enum kdump_header_field f);
size_t kdump_sub_header_offset(enum kdump_abi a, enum kdump_sub_field f);

/** The header @h as the bytes of ABI @a in byte order @big
 *  (kdump_header_size(@a) bytes at @b); and back. */
void kdump_header_put(unsigned char *b, const struct disk_dump_header *h, enum kdump_abi a,
		      bool big);
void kdump_header_get(struct disk_dump_header *h, const unsigned char *b, enum kdump_abi a,
		      bool big);
void kdump_sub_header_put(unsigned char *b, const struct kdump_sub_header *s,
			  enum kdump_abi a, bool big);
void kdump_sub_header_get(struct kdump_sub_header *s, const unsigned char *b,
			  enum kdump_abi a, bool big);

/* Flattened format */
#define MDF_FLAT_SIGNATURE "makedumpfile"
#define MDF_FLAT_SIG_LEN 16
#define MDF_FLAT_TYPE_KDUMP 1
#define MDF_FLAT_VERSION 1
#define MDF_FLAT_HEADER_SIZE 4096
#define MDF_FLAT_END_MARK (-1)

struct flat_header {          /* big-endian */
	char signature[MDF_FLAT_SIG_LEN];
	int64_t type;
	int64_t version;
};

struct flat_data_header {     /* big-endian */
	int64_t offset;
	int64_t buf_size;
};

#endif
