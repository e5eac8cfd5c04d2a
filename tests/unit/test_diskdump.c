/*
 * tests/unit/test_diskdump.c - diskdump.c: the kdump-compressed headers in
 * both C ABIs a producer can have, LP64 and ILP32 (an i386 kernel's dump,
 * as makedumpfile built for i386 and crash built for X86 lay them out),
 * checked field by field against offsets typed in from the structs'
 * layouts (diskdump_mod.h's types under each ABI), in both byte orders.
 */
#include <string.h>

#include "diskdump.h"
#include "tap.h"
#include "util.h"

static void sample(struct disk_dump_header *h, struct kdump_sub_header *s)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->signature, KDUMP_SIGNATURE, KDUMP_SIG_LEN);
	h->header_version = 6;
	strcpy(h->utsname.sysname, "Linux");
	strcpy(h->utsname.machine, "i686");
	h->timestamp.tv_sec = 1700000001;
	h->timestamp.tv_usec = 7;
	h->status = DUMP_DH_COMPRESSED_ZLIB | DUMP_DH_COMPRESSED_INCOMPLETE;
	h->block_size = 4096;
	h->sub_hdr_size = 2;
	h->bitmap_blocks = 16;
	h->max_mapnr = 0x40000;
	h->nr_cpus = 4;
	memset(s, 0, sizeof(*s));
	s->phys_base = 0;
	s->dump_level = 31;
	s->split = 1;
	s->start_pfn = 0x100;
	s->end_pfn = 0x200;
	s->offset_vmcoreinfo = 0x1234;
	s->size_vmcoreinfo = 0x800;
	s->offset_note = 0x1050;
	s->size_note = 0x1000;
	s->offset_eraseinfo = 0x123456789aLL;
	s->size_eraseinfo = 0x40;
	s->start_pfn_64 = 0x100;
	s->end_pfn_64 = 0x200;
	s->max_mapnr_64 = 0x140000;
}

static void t_sizes(void)
{
	T_EQ_U64(kdump_header_size(KDUMP_ABI_LP64), 464);
	T_EQ_U64(kdump_sub_header_size(KDUMP_ABI_LP64), 104);
	T_EQ_U64(kdump_header_size(KDUMP_ABI_ILP32), 452);
	T_EQ_U64(kdump_sub_header_size(KDUMP_ABI_ILP32), 80);
	T_EQ_U64(kdump_header_offset(KDUMP_ABI_LP64, KDUMP_HF_STATUS), 424);
	T_EQ_U64(kdump_header_offset(KDUMP_ABI_ILP32, KDUMP_HF_STATUS), 412);
	T_EQ_U64(kdump_header_offset(KDUMP_ABI_ILP32, KDUMP_HF_NR_CPUS), 448);
	T_EQ_U64(kdump_sub_header_offset(KDUMP_ABI_ILP32, KDUMP_SF_MAX_MAPNR_64), 72);
	T_EQ_U64(kdump_sub_header_offset(KDUMP_ABI_LP64, KDUMP_SF_SIZE_ERASEINFO), 72);
}

static void t_ilp32_bytes(void)
{
	struct disk_dump_header h, h2;
	struct kdump_sub_header s, s2;
	unsigned char b[464], c[104];

	sample(&h, &s);
	kdump_header_put(b, &h, KDUMP_ABI_ILP32, false);
	T_ASSERT(memcmp(b, "KDUMP   ", 8) == 0);
	T_EQ_U64(load_le32(b + 8), 6);
	T_EQ_STR((const char *)b + 12 + 4 * 65, "i686");
	T_EQ_U64(b[402] | b[403], 0);                /* alignment of the timeval */
	T_EQ_U64(load_le32(b + 404), 1700000001);
	T_EQ_U64(load_le32(b + 408), 7);
	T_EQ_U64(load_le32(b + 412), 0x9);
	T_EQ_U64(load_le32(b + 416), 4096);
	T_EQ_U64(load_le32(b + 420), 2);
	T_EQ_U64(load_le32(b + 424), 16);
	T_EQ_U64(load_le32(b + 428), 0x40000);
	T_EQ_U64(load_le32(b + 448), 4);
	kdump_header_get(&h2, b, KDUMP_ABI_ILP32, false);
	T_ASSERT(memcmp(&h, &h2, sizeof(h)) == 0);

	kdump_sub_header_put(c, &s, KDUMP_ABI_ILP32, false);
	T_EQ_U64(load_le32(c + 0), 0);               /* phys_base */
	T_EQ_U64(load_le32(c + 4), 31);              /* dump_level */
	T_EQ_U64(load_le32(c + 8), 1);               /* split */
	T_EQ_U64(load_le32(c + 12), 0x100);          /* start_pfn */
	T_EQ_U64(load_le32(c + 16), 0x200);          /* end_pfn */
	T_EQ_U64(load_le64(c + 20), 0x1234);         /* offset_vmcoreinfo */
	T_EQ_U64(load_le32(c + 28), 0x800);
	T_EQ_U64(load_le64(c + 32), 0x1050);         /* offset_note */
	T_EQ_U64(load_le32(c + 40), 0x1000);
	T_EQ_U64(load_le64(c + 44), 0x123456789aULL);/* offset_eraseinfo */
	T_EQ_U64(load_le32(c + 52), 0x40);
	T_EQ_U64(load_le64(c + 56), 0x100);          /* start_pfn_64 */
	T_EQ_U64(load_le64(c + 64), 0x200);
	T_EQ_U64(load_le64(c + 72), 0x140000);       /* max_mapnr_64 */
	kdump_sub_header_get(&s2, c, KDUMP_ABI_ILP32, false);
	T_ASSERT(memcmp(&s, &s2, sizeof(s)) == 0);

	/* a negative time_t of 4 bytes comes back negative */
	h.timestamp.tv_sec = -5;
	kdump_header_put(b, &h, KDUMP_ABI_ILP32, true);
	T_EQ_U64(load_be32(b + 404), 0xfffffffbu);
	kdump_header_get(&h2, b, KDUMP_ABI_ILP32, true);
	T_EQ_U64(h2.timestamp.tv_sec, (uint64_t)-5);
}

/* LP64 in either order is what the structs are in memory (with the
 * byte swap of diskdump.h for the other order). */
static void t_lp64_is_the_struct(void)
{
	struct disk_dump_header h, hs;
	struct kdump_sub_header s, ss;
	unsigned char b[464], c[104];
	bool host_big = MDF_HOST_BIG_ENDIAN;

	sample(&h, &s);
	kdump_header_put(b, &h, KDUMP_ABI_LP64, host_big);
	T_ASSERT(memcmp(b, &h, sizeof(h)) == 0);
	kdump_sub_header_put(c, &s, KDUMP_ABI_LP64, host_big);
	T_ASSERT(memcmp(c, &s, sizeof(s)) == 0);
	hs = h;
	kdump_header_bswap(&hs);
	kdump_header_put(b, &h, KDUMP_ABI_LP64, !host_big);
	T_ASSERT(memcmp(b, &hs, sizeof(hs)) == 0);
	ss = s;
	kdump_sub_header_bswap(&ss);
	kdump_sub_header_put(c, &s, KDUMP_ABI_LP64, !host_big);
	T_ASSERT(memcmp(c, &ss, sizeof(ss)) == 0);
}

static void t_abi_of(void)
{
	struct disk_dump_header h;
	struct kdump_sub_header s;
	unsigned char b[464];

	T_EQ_U64(kdump_abi_of_machine(3 /* EM_386 */), KDUMP_ABI_ILP32);
	T_EQ_U64(kdump_abi_of_machine(62 /* EM_X86_64 */), KDUMP_ABI_LP64);
	T_EQ_U64(kdump_abi_of_machine(0), KDUMP_ABI_LP64);
	sample(&h, &s);
	kdump_header_put(b, &h, KDUMP_ABI_ILP32, false);
	T_EQ_U64(kdump_abi_of_header(b, 452), KDUMP_ABI_ILP32);
	strcpy(h.utsname.machine, "i386");
	kdump_header_put(b, &h, KDUMP_ABI_ILP32, false);
	T_EQ_U64(kdump_abi_of_header(b, 452), KDUMP_ABI_ILP32);
	strcpy(h.utsname.machine, "x86_64");
	kdump_header_put(b, &h, KDUMP_ABI_LP64, false);
	T_EQ_U64(kdump_abi_of_header(b, 464), KDUMP_ABI_LP64);
	/* too short to say: LP64 */
	T_EQ_U64(kdump_abi_of_header(b, 100), KDUMP_ABI_LP64);
	/* no machine named: the layout whose block and sub header sizes
	 * make sense, in either byte order */
	memset(h.utsname.machine, 0, sizeof(h.utsname.machine));
	kdump_header_put(b, &h, KDUMP_ABI_ILP32, false);
	T_EQ_U64(kdump_abi_of_header(b, 464), KDUMP_ABI_ILP32);
	kdump_header_put(b, &h, KDUMP_ABI_ILP32, true);
	T_EQ_U64(kdump_abi_of_header(b, 464), KDUMP_ABI_ILP32);
	kdump_header_put(b, &h, KDUMP_ABI_LP64, false);
	T_EQ_U64(kdump_abi_of_header(b, 464), KDUMP_ABI_LP64);
	kdump_header_put(b, &h, KDUMP_ABI_LP64, true);
	T_EQ_U64(kdump_abi_of_header(b, 464), KDUMP_ABI_LP64);
}

int main(void)
{
	T_RUN(t_sizes);
	T_RUN(t_ilp32_bytes);
	T_RUN(t_lp64_is_the_struct);
	T_RUN(t_abi_of);
	return t_done();
}
