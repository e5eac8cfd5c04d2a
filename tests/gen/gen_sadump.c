/*
 * tests/gen/gen_sadump.c - the machine as a Fujitsu sadump file: what the
 * firmware of a PRIMEQUEST writes to its dump device, single partition,
 * diskset (the device spread over several disks) or media backup (a copy
 * of a single partition with a media header in front).  Written from the
 * format's description (tests/gen/README.md, "sadump"), every field
 * little-endian, in blocks of 4096 bytes:
 *
 *   single:   part header | dump header | sub header (cpu states) |
 *             RAM bitmap | dumpable bitmap | dumpable pages in pfn order
 *   media:    media header | the same
 *   diskset:  disk 1: part header (disk 1) | disk set header | dump
 *             header ... bitmaps | the first share of the pages
 *             disk N: part header (disk N) | the next share
 *
 * Bitmaps are MSB first: pfn 8i + j is bit 7 - j of byte i.  The files are
 * sized with ftruncate() and only non-zero bytes are written.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gen.h"
#include "util.h"

#define SA_BLOCK 4096u
/* struct sadump_part_header */
#define PH_SIG1 0x75646173u            /* "sadu" */
#define PH_SIG2 0x0000706du            /* "mp\0\0" */
#define PH_ENABLE 8
#define PH_REBOOT 12
#define PH_RECYCLE 20
#define PH_SADUMP_ID 88
#define PH_DISK_SET_ID 104
#define PH_VOL_ID 120
#define PH_TIME 136
#define PH_SET_DISK_SET 152
#define PH_USED_DEVICE 160
#define PH_MAGIC 168                   /* 982 words to the end of the block */
/* struct sadump_disk_set_header */
#define DS_SIZE_BLOCKS 0
#define DS_DISK_NUM 4
#define DS_SET_SIZE 8
#define DS_VOL_INFO 16                 /* 15 of 32 bytes: disks 2..16 */
#define DS_VOL_ENTRY 32
#define DS_VOL_SIZE 16
/* struct sadump_header */
#define SH_VERSION 8
#define SH_TIME 16
#define SH_BLOCK_SIZE 40
#define SH_SUB_HDR_SIZE 48
#define SH_BITMAP_BLOCKS 52
#define SH_DUMPABLE_BLOCKS 56
#define SH_MAX_MAPNR 60
#define SH_TOTAL_RAM 64
#define SH_DEVICE_BLOCKS 68
#define SH_WRITTEN_BLOCKS 72
#define SH_CURRENT_CPU 76
#define SH_NR_CPUS 80
#define SH_MAX_MAPNR_64 88
#define SH_TOTAL_RAM_64 96
#define SH_DEVICE_BLOCKS_64 104
#define SH_WRITTEN_BLOCKS_64 112
/* struct sadump_media_header */
#define MH_SADUMP_ID 0
#define MH_DISK_SET_ID 16
#define MH_TIME 32
#define MH_SEQUENTIAL 48
#define MH_TERM_CORD 49
#define MH_DISKS_IN_USE 51
/* The sub header: u32 size of the cpu states, then per cpu an APIC
 * state (16 bytes), then per cpu an SMRAM cpu state (1024 bytes). */
#define APIC_STATE_SIZE 16
#define SMRAM_SIZE 1024
#define SM_GDT_UPPER 464
#define SM_IDT_UPPER 472
#define SM_CR4 576
#define SM_GDT_LOWER 652
#define SM_GDT_LIMIT 656
#define SM_IDT_LOWER 660
#define SM_IDT_LIMIT 664
#define SM_SMBASE 760
#define SM_SMM_REVISION 764
#define SM_GPR 796                     /* r15 .. r8, rax rcx rdx rbx rsp rbp rsi rdi */
#define SM_ES 936
#define SM_CS 940
#define SM_SS 944
#define SM_DS 948
#define SM_FS 952
#define SM_GS 956
#define SM_TR 964
#define SM_DR7 968
#define SM_DR6 976
#define SM_RIP 984
#define SM_EFER 992
#define SM_RFLAGS 1000
#define SM_CR3 1008
#define SM_CR0 1016
#define EFI_TIME_SIZE 16
#define GUID_SIZE 16

struct disk {
	int fd;
	char *path;
	uint64_t data_off;   /* file offset of its first page */
	uint64_t first;      /* its first page, counted over the whole set */
	uint64_t npages;
	uint8_t vol_id[GUID_SIZE];
};

struct sa {
	const struct gen_spec *spec;
	const struct gen_sadump_src *src;
	uint64_t *rank;      /* per 64 pfns: dumpable pfns below */
	struct disk disk[GEN_SADUMP_MAX_DISKS];
	unsigned ndisks;
};

/* The page's place among the dumped ones (pfn order). */
static uint64_t page_rank(const struct sa *a, uint64_t pfn)
{
	uint64_t r = a->rank[pfn / 64];
	for (uint64_t p = pfn & ~UINT64_C(63); p < pfn; p++)
		r += gen_bit_test(a->src->backed, p);
	return r;
}

static enum mdf_status sa_write(void *ctx, uint64_t pa, const void *buf, size_t len,
				struct mdf_err *err)
{
	const struct sa *a = ctx;
	const uint8_t *b = buf;
	for (uint64_t at = pa; at < pa + len;) {
		uint64_t pfn = at / SA_BLOCK, off = at % SA_BLOCK;
		uint64_t n = MDF_MIN(SA_BLOCK - off, pa + len - at);
		if (pfn < a->src->max_pfn && gen_bit_test(a->src->backed, pfn)) {
			uint64_t r = page_rank(a, pfn);
			unsigned d = 0;
			while (d + 1 < a->ndisks && r >= a->disk[d + 1].first)
				d++;
			const struct disk *dk = &a->disk[d];
			enum mdf_status st =
				util_pwrite_full(dk->fd, b + (at - pa), (size_t)n,
						 dk->data_off + (r - dk->first) * SA_BLOCK + off, err);
			if (st)
				return mdf_err_push(err, "%s", dk->path);
		}
		at += n;
	}
	return MDF_OK;
}

static void random_bytes(uint64_t *state, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i += 8) {
		uint8_t w[8];
		store_le64(w, gen_splitmix64(state));
		memcpy(p + i, w, MDF_MIN(8, n - i));
	}
}

/* EFI_TIME of the crash: UTC, timezone 0 minutes, no daylight saving. */
static void put_efi_time(uint8_t *p, uint64_t crashtime)
{
	time_t t = (time_t)crashtime;
	struct tm tm;
	gmtime_r(&t, &tm);
	gen_store16(false, p, (uint16_t)(tm.tm_year + 1900));
	p[2] = (uint8_t)(tm.tm_mon + 1);
	p[3] = (uint8_t)tm.tm_mday;
	p[4] = (uint8_t)tm.tm_hour;
	p[5] = (uint8_t)tm.tm_min;
	p[6] = (uint8_t)tm.tm_sec;
	memset(p + 7, 0, EFI_TIME_SIZE - 7);
}

/* The partition header of disk @d (0 on a single partition). */
static void part_header(uint8_t *b, const uint8_t *ids, const struct disk *dk, unsigned d,
			uint64_t used, uint64_t crashtime, uint32_t magic0)
{
	memset(b, 0, SA_BLOCK);
	store_le32(b, PH_SIG1);
	store_le32(b + 4, PH_SIG2);
	store_le32(b + PH_ENABLE, 1);
	store_le32(b + PH_REBOOT, 60);
	store_le32(b + PH_RECYCLE, 1);
	memcpy(b + PH_SADUMP_ID, ids, 2 * GUID_SIZE);   /* system, disk set */
	memcpy(b + PH_VOL_ID, dk->vol_id, GUID_SIZE);
	put_efi_time(b + PH_TIME, crashtime);
	store_le32(b + PH_SET_DISK_SET, d);
	store_le64(b + PH_USED_DEVICE, used);
	/* The magic numbers: each word is (the one before + 7) * 11. */
	uint32_t m = magic0;
	for (unsigned off = PH_MAGIC; off < SA_BLOCK; off += 4) {
		store_le32(b + off, m);
		m = (m + 7) * 11;
	}
}

static void cpu_states(const struct gen_sadump_src *src, uint8_t *b)
{
	const unsigned n = src->cpus;
	store_le32(b, n * SMRAM_SIZE);
	for (unsigned c = 0; c < n; c++) {
		uint8_t *ap = b + 4 + c * APIC_STATE_SIZE;
		uint8_t *sm = b + 4 + n * APIC_STATE_SIZE + c * SMRAM_SIZE;
		const struct gen_cpu_state cs = src->cpu[c];
		store_le64(ap, c);                                /* APIC ID */
		store_le64(ap + 8, (UINT64_C(1) << (c % 8)) << 24);   /* LDR, flat */
		store_le32(sm + SM_GDT_UPPER, (uint32_t)(cs.gdt >> 32));
		store_le32(sm + SM_IDT_UPPER, (uint32_t)(cs.idt >> 32));
		store_le32(sm + SM_CR4, (uint32_t)cs.cr4);
		store_le32(sm + SM_GDT_LOWER, (uint32_t)cs.gdt);
		store_le32(sm + SM_GDT_LIMIT, cs.gdt_limit);
		store_le32(sm + SM_IDT_LOWER, (uint32_t)cs.idt);
		store_le32(sm + SM_IDT_LIMIT, cs.idt_limit);
		store_le32(sm + SM_SMBASE, 0x7ff00000u + c * 0x2000u);
		store_le32(sm + SM_SMM_REVISION, 0x30064);
		/* Lower and upper halves, r15 down to r8, then rax rcx rdx
		 * rbx rsp rbp rsi rdi: gpr[] from its far end. */
		for (unsigned i = 0; i < 16; i++)
			store_le64(sm + SM_GPR + 8 * i, cs.gpr[i < 8 ? 15 - i : i - 8]);
		store_le32(sm + SM_ES, cs.es);
		store_le32(sm + SM_CS, cs.cs);
		store_le32(sm + SM_SS, cs.ss);
		store_le32(sm + SM_DS, cs.ds);
		store_le32(sm + SM_FS, cs.fs);
		store_le32(sm + SM_GS, cs.gs);
		store_le32(sm + SM_TR, cs.tr);
		store_le64(sm + SM_DR7, 0x400);
		store_le64(sm + SM_DR6, 0xffff0ff0);
		store_le64(sm + SM_RIP, cs.rip);
		store_le64(sm + SM_EFER, cs.efer);
		store_le64(sm + SM_RFLAGS, cs.rflags);
		store_le64(sm + SM_CR3, cs.cr3);
		store_le64(sm + SM_CR0, cs.cr0);
	}
}

/* A bitmap of @map (LSB first) over @npfn pfns, MSB first. */
static void msb_bitmap(uint8_t *dst, const uint8_t *map, uint64_t npfn)
{
	for (uint64_t p = 0; p < npfn; p++)
		if (gen_bit_test(map, p))
			dst[p / 8] |= (uint8_t)(0x80u >> (p % 8));
}

static uint64_t blocks(uint64_t bytes)
{
	return div_round_up(bytes, SA_BLOCK);
}

/* Everything before the pages of the first disk, at @b (@len bytes):
 * media or partition header, disk set header, dump header, sub header,
 * both bitmaps. */
static void first_headers(const struct sa *a, uint8_t *b, const uint8_t *ids,
			  uint64_t used0, uint64_t set_bytes, uint64_t ram_pages,
			  uint64_t sub_blocks, uint64_t bmp_blocks, uint32_t magic0)
{
	const struct gen_spec *s = a->spec;
	const struct gen_sadump_src *src = a->src;
	const bool media = s->format == GEN_FMT_SADUMP_MEDIA;
	const bool set = s->format == GEN_FMT_SADUMP_DISKSET;
	uint8_t *p = b;
	if (media) {
		memcpy(p + MH_SADUMP_ID, ids, GUID_SIZE);
		memcpy(p + MH_DISK_SET_ID, ids + GUID_SIZE, GUID_SIZE);
		put_efi_time(p + MH_TIME, src->crashtime);
		p[MH_SEQUENTIAL] = 1;   /* the first (and only) medium */
		p[MH_TERM_CORD] = 1;
		p[MH_DISKS_IN_USE] = 1;
		p += SA_BLOCK;
	}
	part_header(p, ids, &a->disk[0], set ? 1 : 0, used0, src->crashtime, magic0);
	p += SA_BLOCK;
	if (set) {
		store_le32(p + DS_SIZE_BLOCKS, 1);
		store_le32(p + DS_DISK_NUM, a->ndisks);
		store_le64(p + DS_SET_SIZE, set_bytes);
		for (unsigned d = 1; d < a->ndisks; d++) {
			uint8_t *v = p + DS_VOL_INFO + (d - 1) * DS_VOL_ENTRY;
			memcpy(v, a->disk[d].vol_id, GUID_SIZE);
			store_le64(v + DS_VOL_SIZE, a->disk[d].data_off + a->disk[d].npages * SA_BLOCK);
		}
		p += SA_BLOCK;
	}
	const uint64_t written = blocks(set_bytes);
	memcpy(p, "sadump\0\0", 8);
	store_le32(p + SH_VERSION, 1);
	put_efi_time(p + SH_TIME, src->crashtime);
	store_le32(p + SH_BLOCK_SIZE, SA_BLOCK);
	store_le32(p + SH_SUB_HDR_SIZE, (uint32_t)sub_blocks);
	store_le32(p + SH_BITMAP_BLOCKS, (uint32_t)bmp_blocks);
	store_le32(p + SH_DUMPABLE_BLOCKS, (uint32_t)bmp_blocks);
	store_le32(p + SH_MAX_MAPNR, (uint32_t)src->max_pfn);
	store_le32(p + SH_TOTAL_RAM, (uint32_t)ram_pages);
	store_le32(p + SH_DEVICE_BLOCKS, (uint32_t)written);
	store_le32(p + SH_WRITTEN_BLOCKS, (uint32_t)written);
	store_le32(p + SH_CURRENT_CPU, 0);
	store_le32(p + SH_NR_CPUS, src->cpus);
	store_le64(p + SH_MAX_MAPNR_64, src->max_pfn);
	store_le64(p + SH_TOTAL_RAM_64, ram_pages);
	store_le64(p + SH_DEVICE_BLOCKS_64, written);
	store_le64(p + SH_WRITTEN_BLOCKS_64, written);
	p += SA_BLOCK;
	cpu_states(src, p);
	p += sub_blocks * SA_BLOCK;
	msb_bitmap(p, src->ram, src->max_pfn);
	msb_bitmap(p + bmp_blocks * SA_BLOCK, src->backed, src->max_pfn);
}

static enum mdf_status open_disks(struct sa *a, const char *path, struct mdf_err *err)
{
	for (unsigned d = 0; d < a->ndisks; d++) {
		struct disk *dk = &a->disk[d];
		size_t n = strlen(path) + 8;
		dk->path = malloc(n);
		if (!dk->path)
			return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", path);
		if (d == 0)
			snprintf(dk->path, n, "%s", path);
		else
			snprintf(dk->path, n, "%s.%u", path, d + 1);
		dk->fd = open(dk->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (dk->fd < 0)
			return mdf_err_errno(err, MDF_ERR_IO, errno, "%s: cannot create", dk->path);
	}
	return MDF_OK;
}

enum mdf_status gen_sadump_emit(const struct gen_spec *s, const struct gen_sadump_src *src,
				const char *path, struct mdf_err *err)
{
	struct sa a = { .spec = s, .src = src };
	const bool media = s->format == GEN_FMT_SADUMP_MEDIA;
	const bool set = s->format == GEN_FMT_SADUMP_DISKSET;
	uint8_t *head = NULL;
	enum mdf_status st;

	for (unsigned d = 0; d < GEN_SADUMP_MAX_DISKS; d++)
		a.disk[d].fd = -1;
	a.ndisks = set ? s->disks : 1;
	/* The dumped pages and the place of each among them. */
	const uint64_t nwords = div_round_up(src->max_pfn, 64);
	a.rank = malloc((nwords + 1) * sizeof(*a.rank));
	if (!a.rank)
		return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", path);
	uint64_t dumped = 0, ram_pages = 0;
	for (uint64_t w = 0; w < nwords; w++) {
		a.rank[w] = dumped;
		for (uint64_t p = w * 64; p < MDF_MIN((w + 1) * 64, src->max_pfn); p++) {
			dumped += gen_bit_test(src->backed, p);
			ram_pages += gen_bit_test(src->ram, p);
		}
	}
	a.rank[nwords] = dumped;

	/* Identities: system, disk set, one volume per disk. */
	uint64_t seed = s->seed * UINT64_C(0x5ad0a95ad0a9) ^ UINT64_C(0x73616475);
	uint8_t ids[2 * GUID_SIZE];
	random_bytes(&seed, ids, sizeof(ids));
	for (unsigned d = 0; d < a.ndisks; d++)
		random_bytes(&seed, a.disk[d].vol_id, GUID_SIZE);
	const uint32_t magic0 = (uint32_t)gen_splitmix64(&seed);

	const uint64_t sub_blocks = blocks(4 + (uint64_t)src->cpus * (APIC_STATE_SIZE + SMRAM_SIZE));
	const uint64_t bmp_blocks = blocks(div_round_up(src->max_pfn, 8));
	const uint64_t head_blocks = (media ? 1 : 0) + 1 + (set ? 1 : 0) + 1 + sub_blocks +
				     2 * bmp_blocks;
	/* The pages in shares, the first disks one more when uneven. */
	uint64_t set_bytes = 0;
	uint64_t first = 0;
	for (unsigned d = 0; d < a.ndisks; d++) {
		struct disk *dk = &a.disk[d];
		dk->first = first;
		dk->npages = dumped / a.ndisks + (d < dumped % a.ndisks ? 1 : 0);
		dk->data_off = d == 0 ? head_blocks * SA_BLOCK : SA_BLOCK;
		first += dk->npages;
		set_bytes += dk->data_off + dk->npages * SA_BLOCK;
	}
	st = open_disks(&a, path, err);
	if (st)
		goto out;
	head = calloc(head_blocks, SA_BLOCK);
	if (!head) {
		st = mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", path);
		goto out;
	}
	for (unsigned d = 0; d < a.ndisks && !st; d++) {
		struct disk *dk = &a.disk[d];
		uint64_t used = dk->data_off + dk->npages * SA_BLOCK;
		if (d == 0)
			first_headers(&a, head, ids, used, set_bytes,
				      ram_pages, sub_blocks, bmp_blocks, magic0);
		else
			part_header(head, ids, dk, d + 1, used, src->crashtime, magic0);
		if (ftruncate(dk->fd, (off_t)used) != 0)
			st = mdf_err_errno(err, MDF_ERR_IO, errno, "%s: ftruncate", dk->path);
		else
			st = util_pwrite_full(dk->fd, head, (size_t)(d == 0 ? dk->data_off : SA_BLOCK),
					      0, err);
	}
	if (!st)
		st = src->write_memory(src->ctx, sa_write, &a, err);
	if (!st && s->has_truncate && ftruncate(a.disk[0].fd, (off_t)s->truncate_at) != 0)
		st = mdf_err_errno(err, MDF_ERR_IO, errno, "%s: truncate", path);
	if (!st && s->empty && ftruncate(a.disk[0].fd, 0) != 0)
		st = mdf_err_errno(err, MDF_ERR_IO, errno, "%s: truncate", path);
out:
	for (unsigned d = 0; d < a.ndisks; d++) {
		if (a.disk[d].fd >= 0 && close(a.disk[d].fd) != 0 && !st)
			st = mdf_err_errno(err, MDF_ERR_IO, errno, "%s: close", a.disk[d].path);
		free(a.disk[d].path);
	}
	free(head);
	free(a.rank);
	return st;
}

/* The synthetic machine as a memory source. */
struct machine {
	const struct gen_spec *spec;
	const struct gen_kernel *k;
};

static enum mdf_status machine_memory(const void *ctx, gen_phys_write_fn wr, void *wctx,
				      struct mdf_err *err)
{
	const struct machine *m = ctx;
	return gen_elf_write_memory(m->spec, m->k, wr, wctx, err);
}

enum mdf_status gen_sadump_write(const struct gen_spec *s, const struct gen_kernel *k,
				 const char *path, struct mdf_err *err)
{
	struct gen_cpu_state *cpu = calloc(s->cpus ? s->cpus : 1, sizeof(*cpu));
	if (!cpu)
		return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", path);
	for (unsigned c = 0; c < s->cpus; c++)
		gen_kernel_cpu_state(s, k, c, &cpu[c]);
	const struct machine m = { .spec = s, .k = k };
	const struct gen_sadump_src src = {
		.cpus = s->cpus, .cpu = cpu, .crashtime = s->crashtime,
		.max_pfn = k->max_pfn, .ram = k->ram, .backed = k->backed,
		.write_memory = machine_memory, .ctx = &m,
	};
	enum mdf_status st = gen_sadump_emit(s, &src, path, err);
	free(cpu);
	return st;
}
