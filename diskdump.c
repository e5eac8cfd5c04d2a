/*
 * diskdump.c - the kdump-compressed headers in the producer's C ABI.
 *
 * makedumpfile writes struct disk_dump_header and struct kdump_sub_header
 * as they lie in its memory, so their layout is the ABI it was built for:
 * LP64 on every 64-bit machine, and ILP32 when it ran on (and read dumps
 * of) a 32-bit x86 kernel, where unsigned long and struct timeval's longs
 * are 4 bytes (glibc's i386 time_t is 32-bit, also in Debian trixie, which
 * left i386 out of its 64-bit time_t move) and 8-byte members (off_t:
 * upstream's Makefile builds with -D_FILE_OFFSET_BITS=64; unsigned long
 * long) are 4-byte aligned, as the i386 psABI has them.  crash built for
 * X86 reads that layout.  A 32-bit arm kernel's dump has the headers of
 * makedumpfile built for armhf (EABI32): as ILP32, but the ARM EABI aligns
 * 8-byte members to 8, so the sub header's off_t and unsigned long long
 * members move (crash's diskdump.c says the same for its x86-built ARM
 * target: struct kdump_sub_header_ARM_target; Debian's 1.7.2 armhf
 * writes it so).  Offsets (LP64 / ILP32 / EABI32):
 *
 *   disk_dump_header   signature 0/0, header_version 8/8, utsname 12/12,
 *                      timestamp 408/404 (2 x 8 / 2 x 4), status 424/412,
 *                      block_size 428/416, sub_hdr_size 432/420,
 *                      bitmap_blocks 436/424, max_mapnr 440/428,
 *                      total_ram_blocks .. current_cpu 444/432 .. 456/444,
 *                      nr_cpus 460/448; 464/452 bytes (EABI32 as ILP32)
 *   kdump_sub_header   phys_base 0/0/0 (8/4/4), dump_level 8/4/4,
 *                      split 12/8/8, start_pfn 16/12/12 (8/4/4),
 *                      end_pfn 24/16/16 (8/4/4), offset_vmcoreinfo
 *                      32/20/24 (8), size_vmcoreinfo 40/28/32 (8/4/4),
 *                      offset_note 48/32/40, size_note 56/40/48 (8/4/4),
 *                      offset_eraseinfo 64/44/56, size_eraseinfo 72/52/64
 *                      (8/4/4), start_pfn_64 80/56/72, end_pfn_64
 *                      88/64/80, max_mapnr_64 96/72/88; 104/80/96 bytes
 *   page_desc          24 bytes in both
 */
#include "diskdump.h"

#include <elf.h>
#include <string.h>

#include "arch/arch.h"
#include "util.h"

/* One integer member: where it is in each ABI's bytes and how wide, and
 * where it is in the (LP64-shaped) C struct, how wide, whether signed. */
struct kfield {
	uint16_t off[3];
	uint8_t size[3];
	uint16_t mem;
	uint8_t memsize;
	bool is_signed;
};

#define G(m, o64, s64, o32, s32, oe, sg)                                     \
	{ { o64, o32, oe }, { s64, s32, s32 }, offsetof(KSTRUCT, m), sizeof(((KSTRUCT *)0)->m), sg }
/* the header: EABI32 as ILP32 */
#define F(m, o64, s64, o32, s32, sg) G(m, o64, s64, o32, s32, o32, sg)

#define KSTRUCT struct disk_dump_header
static const struct kfield header_fields[] = {
	F(header_version, 8, 4, 8, 4, true),
	F(timestamp.tv_sec, 408, 8, 404, 4, true),
	F(timestamp.tv_usec, 416, 8, 408, 4, true),
	F(status, 424, 4, 412, 4, false),
	F(block_size, 428, 4, 416, 4, true),
	F(sub_hdr_size, 432, 4, 420, 4, true),
	F(bitmap_blocks, 436, 4, 424, 4, false),
	F(max_mapnr, 440, 4, 428, 4, false),
	F(total_ram_blocks, 444, 4, 432, 4, false),
	F(device_blocks, 448, 4, 436, 4, false),
	F(written_blocks, 452, 4, 440, 4, false),
	F(current_cpu, 456, 4, 444, 4, false),
	F(nr_cpus, 460, 4, 448, 4, true),
};
#undef KSTRUCT

#define KSTRUCT struct kdump_sub_header
static const struct kfield sub_fields[] = {
	G(phys_base, 0, 8, 0, 4, 0, false),
	G(dump_level, 8, 4, 4, 4, 4, true),
	G(split, 12, 4, 8, 4, 8, true),
	G(start_pfn, 16, 8, 12, 4, 12, false),
	G(end_pfn, 24, 8, 16, 4, 16, false),
	G(offset_vmcoreinfo, 32, 8, 20, 8, 24, true),
	G(size_vmcoreinfo, 40, 8, 28, 4, 32, false),
	G(offset_note, 48, 8, 32, 8, 40, true),
	G(size_note, 56, 8, 40, 4, 48, false),
	G(offset_eraseinfo, 64, 8, 44, 8, 56, true),
	G(size_eraseinfo, 72, 8, 52, 4, 64, false),
	G(start_pfn_64, 80, 8, 56, 8, 72, false),
	G(end_pfn_64, 88, 8, 64, 8, 80, false),
	G(max_mapnr_64, 96, 8, 72, 8, 88, false),
};
#undef KSTRUCT
#undef F
#undef G

static uint64_t get_n(const unsigned char *b, unsigned size, bool big, bool sg)
{
	switch (size) {
	case 4: {
		uint32_t v = load_t32(b, big);

		return sg ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default:
		return load_t64(b, big);
	}
}

static void put_n(unsigned char *b, unsigned size, bool big, uint64_t v)
{
	if (size == 4) {
		uint32_t w = (uint32_t)v;

		if (big)
			store_be32(b, w);
		else
			store_le32(b, w);
	} else if (big) {
		store_be64(b, v);
	} else {
		store_le64(b, v);
	}
}

/* struct member <-> host uint64_t */
static uint64_t mem_get(const void *s, const struct kfield *f)
{
	const unsigned char *p = (const unsigned char *)s + f->mem;

	if (f->memsize == 4) {
		uint32_t v;

		memcpy(&v, p, 4);
		return f->is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void mem_put(void *s, const struct kfield *f, uint64_t v)
{
	unsigned char *p = (unsigned char *)s + f->mem;

	if (f->memsize == 4) {
		uint32_t w = (uint32_t)v;

		memcpy(p, &w, 4);
	} else {
		memcpy(p, &v, 8);
	}
}

size_t kdump_header_size(enum kdump_abi a)
{
	return a == KDUMP_ABI_LP64 ? sizeof(struct disk_dump_header) : KDUMP_HEADER_SIZE_ILP32;
}

size_t kdump_sub_header_size(enum kdump_abi a)
{
	return a == KDUMP_ABI_ILP32 ? KDUMP_SUB_HEADER_SIZE_ILP32
	       : a == KDUMP_ABI_EABI32 ? KDUMP_SUB_HEADER_SIZE_EABI32
				       : sizeof(struct kdump_sub_header);
}

size_t kdump_header_offset(enum kdump_abi a, enum kdump_header_field f)
{
	static const uint16_t off[][2] = {
		[KDUMP_HF_STATUS] = { 424, 412 },
		[KDUMP_HF_BLOCK_SIZE] = { 428, 416 },
		[KDUMP_HF_SUB_HDR_SIZE] = { 432, 420 },
		[KDUMP_HF_BITMAP_BLOCKS] = { 436, 424 },
		[KDUMP_HF_MAX_MAPNR] = { 440, 428 },
		[KDUMP_HF_NR_CPUS] = { 460, 448 },
	};

	return off[f][a != KDUMP_ABI_LP64];
}

size_t kdump_sub_header_offset(enum kdump_abi a, enum kdump_sub_field f)
{
	static const uint16_t off[][3] = {
		[KDUMP_SF_OFFSET_ERASEINFO] = { 64, 44, 56 },
		[KDUMP_SF_SIZE_ERASEINFO] = { 72, 52, 64 },
		[KDUMP_SF_MAX_MAPNR_64] = { 96, 72, 88 },
	};

	return off[f][a];
}

static void put_fields(unsigned char *b, const void *s, const struct kfield *fs, size_t n,
		       enum kdump_abi a, bool big)
{
	unsigned i = a;

	for (size_t k = 0; k < n; k++)
		put_n(b + fs[k].off[i], fs[k].size[i], big, mem_get(s, &fs[k]));
}

static void get_fields(void *s, const unsigned char *b, const struct kfield *fs, size_t n,
		       enum kdump_abi a, bool big)
{
	unsigned i = a;

	for (size_t k = 0; k < n; k++)
		mem_put(s, &fs[k], get_n(b + fs[k].off[i], fs[k].size[i], big, fs[k].is_signed));
}

void kdump_header_put(unsigned char *b, const struct disk_dump_header *h, enum kdump_abi a,
		      bool big)
{
	memset(b, 0, kdump_header_size(a));
	memcpy(b, h->signature, KDUMP_SIG_LEN);
	memcpy(b + offsetof(struct disk_dump_header, utsname), &h->utsname, sizeof(h->utsname));
	put_fields(b, h, header_fields, ARRAY_SIZE(header_fields), a, big);
}

void kdump_header_get(struct disk_dump_header *h, const unsigned char *b, enum kdump_abi a,
		      bool big)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->signature, b, KDUMP_SIG_LEN);
	memcpy(&h->utsname, b + offsetof(struct disk_dump_header, utsname), sizeof(h->utsname));
	get_fields(h, b, header_fields, ARRAY_SIZE(header_fields), a, big);
}

void kdump_sub_header_put(unsigned char *b, const struct kdump_sub_header *s,
			  enum kdump_abi a, bool big)
{
	memset(b, 0, kdump_sub_header_size(a));
	put_fields(b, s, sub_fields, ARRAY_SIZE(sub_fields), a, big);
}

void kdump_sub_header_get(struct kdump_sub_header *s, const unsigned char *b,
			  enum kdump_abi a, bool big)
{
	memset(s, 0, sizeof(*s));
	get_fields(s, b, sub_fields, ARRAY_SIZE(sub_fields), a, big);
}

enum kdump_abi kdump_abi_of_machine(uint16_t e_machine)
{
	if (e_machine == EM_ARM)
		return KDUMP_ABI_EABI32;
	return arch_word_size(e_machine) == 4 ? KDUMP_ABI_ILP32 : KDUMP_ABI_LP64;
}

/* Do block_size and sub_hdr_size read right at ABI @a's offsets? */
static bool plausible(const unsigned char *b, enum kdump_abi a, bool big)
{
	uint32_t bs = load_t32(b + kdump_header_offset(a, KDUMP_HF_BLOCK_SIZE), big);
	int32_t sub = (int32_t)load_t32(b + kdump_header_offset(a, KDUMP_HF_SUB_HDR_SIZE), big);

	return bs >= 512 && bs <= 65536 && !(bs & (bs - 1)) && sub >= 1;
}

enum kdump_abi kdump_abi_of_header(const unsigned char *b, size_t len)
{
	const size_t at = offsetof(struct disk_dump_header, utsname) +
			  offsetof(struct new_utsname, machine);
	char machine[NEW_UTS_LEN + 1];
	uint16_t m;
	bool big;

	/* (ILP32's header is the shorter: all read below lies in it) */
	if (len < KDUMP_HEADER_SIZE_ILP32)
		return KDUMP_ABI_LP64;
	memcpy(machine, b + at, sizeof(machine));
	machine[NEW_UTS_LEN] = '\0';
	m = arch_machine_from_uts(machine);
	if (m)
		return kdump_abi_of_machine(m);
	/* No machine we know (an empty utsname: a dump of a kernel whose
	 * init_uts_ns could not be read): the layout whose block size and
	 * sub header size make sense.  An LP64 header has tv_usec's high
	 * half (0) where ILP32's block_size is; an ILP32 one has
	 * total_ram_blocks (0) where LP64's sub_hdr_size is. */
	big = b[8] == 0 && b[11] != 0;
	if (!plausible(b, KDUMP_ABI_LP64, big) && plausible(b, KDUMP_ABI_ILP32, big))
		return KDUMP_ABI_ILP32;
	return KDUMP_ABI_LP64;
}
