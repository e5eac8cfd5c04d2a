/*
 * sadump.h - the dumps of Fujitsu's sadump firmware (x86 only): a single
 * partition, a disk set (one dump cut across 2..16 disks) and a media
 * backup (a single partition behind a media header), read as an input
 * (input.h).
 *
 * The layout (little-endian, in blocks of the dump header's block_size;
 * tests/gen/README.md "sadump" describes it field by field):
 *
 *   [media header]  partition header  [disk set header]  dump header
 *   sub header (the cpus' APIC and SMRAM states)  RAM bitmap
 *   dumpable bitmap  data: one block per dumpable pfn, in pfn order
 *
 * The bitmaps number their bits from the most significant one (pfn 8i+j
 * is bit 0x80 >> j of byte i), the reverse of a kdump-compressed file's;
 * sadump_open() turns them round once, so that sadump_info's bitmaps read
 * like every other bitmap of the program.  A pfn the RAM bitmap has and
 * the dumpable one lacks reads as zeros (as upstream's readpage_sadump()),
 * and a dump that has such pfns excludes zero pages at every level
 * (sadump_info.zero_excluded).  The data of a disk set is one sequence:
 * disk 1's share after its bitmaps, every other disk's from its second
 * block, each share ending at the disk's used_device.
 *
 * The dump has no ELF notes and no VMCOREINFO: kernel/sadump_kernel.h
 * finds the kernel with -x VMLINUX and gives back the notes a
 * kdump-compressed output copies (sadump_set_notes()).
 *
 * Every check is made once, at open, against the file sizes; each message
 * names the file (or the disk) and what is wrong:
 *   "dump.sadump: dump header: block size 3000 is not a power of two"
 *   "disk2: disk 3 of the set, given as --diskset number 2"
 */
#ifndef MDF_SADUMP_H
#define MDF_SADUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "error.h"
#include "input.h"

#define SADUMP_MAX_DISKS 16      /* a disk set has 2..16 disks */
#define SADUMP_HEAD_BLOCK 4096   /* the first read of a header */
#define SADUMP_MIN_BLOCK 4096    /* a block holds a partition header */
#define SADUMP_MAX_BLOCK 65536
#define SADUMP_RANK_PFNS 4096    /* pfns per entry of the block table */
/* The first bytes sadump_probe() looks at: a media backup has its
 * partition header in the second block. */
#define SADUMP_PROBE_LEN (SADUMP_HEAD_BLOCK + 8)

enum sadump_kind {
	SADUMP_SINGLE = 1,       /* single partition */
	SADUMP_DISKSET,          /* disk set */
	SADUMP_MEDIA,            /* media backup */
};

/* Offsets in a partition header. */
#define SADUMP_PH_SADUMP_ID 88
#define SADUMP_PH_DISK_SET_ID 104
#define SADUMP_PH_VOL_ID 120
#define SADUMP_PH_TIME 136
#define SADUMP_PH_SET_DISK_SET 152
#define SADUMP_PH_USED_DEVICE 160
#define SADUMP_PH_MAGIC 168
#define SADUMP_PH_MAGIC_WORDS 982

/* An EFI_TIME (16 bytes). */
struct sadump_efi_time {
	uint16_t year;
	uint8_t month, day, hour, minute, second;
	uint32_t nanosecond;
	int16_t timezone;        /* minutes; 2047: unspecified */
	uint8_t daylight;
};

/* The SMRAM state of one cpu: what upstream reads of it. */
struct sadump_cpu_state {
	uint64_t gpr[16];        /* r15 r14 r13 r12 r11 r10 r9 r8 rax rcx
				    rdx rbx rsp rbp rsi rdi, as stored */
	uint32_t es, cs, ss, ds, fs, gs;
	uint64_t rip, rflags, cr3, cr0, ia32_efer;
	uint32_t cr4;
	uint64_t idtr;           /* IdtUpper:IdtLower */
};

/* One disk of the dump: a single partition or media file is disk 1. */
struct sadump_disk {
	const char *path;        /* not owned */
	int fd;                  /* disk 1: the run's; others own_fd */
	bool own_fd;
	struct cache cache;      /* disks 2..: their own (disk 1: the run's) */
	bool have_cache;
	uint64_t file_size;
	uint64_t data_off;       /* its share of the data starts here */
	uint64_t data_len;       /* and is this long */
	uint64_t data_start;     /* offset of its share in the whole data */
};

struct sadump_info {
	const char *path;        /* disk 1, for messages */
	enum sadump_kind kind;
	uint32_t block_size;
	unsigned block_shift;
	uint32_t header_version;
	uint64_t max_mapnr;      /* pfns 0 .. max_mapnr-1 */
	uint32_t nr_cpus;        /* cpu states in the sub header */
	uint64_t off_dump_header;
	uint64_t off_sub;        /* the sub header; sub_size bytes */
	uint64_t sub_size;
	uint32_t cpu_state_size; /* bytes per SMRAM state; 0: none */
	uint64_t off_bitmap1, off_bitmap2, bitmap_len;
	struct sadump_efi_time time; /* the partition header's time_stamp */
	uint8_t sadump_id[16], disk_set_id[16];
	uint32_t disk_num;       /* a disk set: disk_num of its header */

	/* Bitmaps, turned round: bit i of byte i/8 (LSB first) = pfn i,
	 * ceil(max_mapnr / 64) * 8 bytes each; no bit at or past max_mapnr. */
	uint8_t *ram;
	uint8_t *dumpable;       /* only where ram is set */
	uint64_t *rank;          /* dumpable pfns below i * SADUMP_RANK_PFNS */
	uint64_t nrank;
	uint64_t nstored;        /* dumpable pfns: data blocks */
	uint64_t nram;           /* pfns the RAM bitmap has */
	bool zero_excluded;      /* a RAM pfn is not stored (reads as zeros):
				    zero pages are excluded at every level */
	uint64_t stray_dumpable; /* dumpable but not RAM: ignored */

	struct sadump_disk disks[SADUMP_MAX_DISKS];
	unsigned ndisks;

	/* Set by the kernel layer (sadump_set_notes()): what a
	 * kdump-compressed output copies. */
	unsigned char *notes;
	size_t notes_len;
	bool have_vmcoreinfo;
	uint64_t vmcoreinfo_off, vmcoreinfo_size;
	const char *vmcoreinfo;  /* into notes */
	size_t vmcoreinfo_len;
	int32_t nr_online;       /* NT_PRSTATUS notes: the online cpus */
	bool have_phys_base;
	uint64_t phys_base;
	bool have_timestamp;     /* the time stamp, as upstream reads it */
	int64_t timestamp;
};

/** Does @head (the first @len bytes of a file) start a sadump dump: a
 *  partition header at 0, or (a media backup) at SADUMP_HEAD_BLOCK and
 *  no ELF header at 0? */
bool sadump_probe(const unsigned char *head, size_t len);

/**
 * Read and check the dump on @paths[0..@npaths) (@npaths 1: a single
 * partition or a media backup; more: a disk set, disk 1 first, each disk
 * in its place).  @fd is @paths[0] opened, @cache the run's cache over it
 * (@cfg: the configuration for the caches of the other disks).  On
 * failure @si is left closed; sadump_close() on it is harmless.
 */
enum mdf_status sadump_open(struct sadump_info *si, int fd, struct cache *cache,
			    const char *const *paths,
			    unsigned npaths, const struct cache_config *cfg,
			    struct mdf_err *err) MDF_MUST_CHECK;

/** Free what sadump_open() and sadump_set_notes() took; close the other
 *  disks.  Safe on a zeroed struct and twice. */
void sadump_close(struct sadump_info *si);

/** "single partition", "diskset", "media backup" (upstream's words). */
const char *sadump_kind_name(enum sadump_kind kind);

/** The RAM bitmap has @pfn. */
bool sadump_is_ram(const struct sadump_info *si, uint64_t pfn);

/** The dumpable bitmap has @pfn (its page is stored). */
bool sadump_is_stored(const struct sadump_info *si, uint64_t pfn);

/** The data block of a stored @pfn: the stored pfns below it. */
uint64_t sadump_pfn_to_block(const struct sadump_info *si, uint64_t pfn);

/** Where data block @block is: the disk (an index of si->disks) and the
 *  file offset on it.  False past the end of the data. */
bool sadump_block_where(const struct sadump_info *si, uint64_t block,
			unsigned *disk_ret, uint64_t *off_ret);

/** Cpu state @apicid of the sub header (MDF_ERR_NODATA when the dump has
 *  none, or fewer). */
enum mdf_status sadump_cpu_state(struct sadump_info *si, struct cache *cache,
				 uint32_t apicid, struct sadump_cpu_state *ret,
				 struct mdf_err *err) MDF_MUST_CHECK;

/** Upstream's crash time of the dump (sadump_set_timestamp()): the
 *  partition header's EFI time read as local time (mktime(), so TZ
 *  matters), its time zone added as hours.  False when mktime() fails. */
bool sadump_efi_mktime(const struct sadump_efi_time *t, int64_t *ret);

/** Take @notes (malloc'ed; @si frees them): the notes a kdump-compressed
 *  output copies, with VMCOREINFO's descriptor at @vi_off, @vi_size long
 *  (@vi_size 0: none), @nr_online cpus, and phys_base. */
void sadump_set_notes(struct sadump_info *si, unsigned char *notes, size_t len,
		      uint64_t vi_off, uint64_t vi_size, int32_t nr_online,
		      uint64_t phys_base);

/** The sadump input's ops (input.h): the object is a struct sadump_info. */
extern const struct input_ops sadump_input_ops;

#endif
