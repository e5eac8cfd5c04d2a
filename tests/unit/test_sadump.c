/*
 * tests/unit/test_sadump.c - the sadump reader (sadump.h).
 *
 * The dumps are built here, byte by byte, from the layout sadump.h
 * describes (not by tests/gen, whose sadump writer is the oracle's): a
 * single partition, a media backup and a disk set of two disks, each with
 * 100 pfns of which some are RAM, some of those stored.  Then the header
 * fields, the bit order, the block mapping, the disk set lookup, the cpu
 * state, and each refusal's exact line.
 *
 * The fuzz seed corpus tests/fuzz/corpus/sadump/ is written by this test:
 *   MDF_SADUMP_CORPUS=tests/fuzz/corpus/sadump build/default/tests/unit/test_sadump
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "kernel/sadump_kernel.h"
#include "kernel/vmcoreinfo.h"
#include "sadump.h"
#include "util.h"
#include "tap.h"

#define BS 4096u
#define NPFN 100u
/* RAM: pfns 2..21; stored: the RAM pfns but 10..14 and 17 (14 pages) */
#define IS_RAM(p) ((p) >= 2 && (p) < 22)
#define IS_STORED(p) (IS_RAM(p) && !((p) >= 10 && (p) < 15) && (p) != 17)

static char dir[PATH_MAX];

struct img {
	unsigned char *b;
	size_t len;
};

static void img_grow(struct img *m, size_t len)
{
	if (len > m->len) {
		m->b = realloc(m->b, len);
		memset(m->b + m->len, 0, len - m->len);
		m->len = len;
	}
}

/* A partition header at @off: set_disk_set @num, used_device @used,
 * volume id byte @vol. */
static void put_part(struct img *m, size_t off, uint32_t num, uint64_t used, uint8_t vol)
{
	unsigned char *p;
	uint32_t w = 0x12345678;

	img_grow(m, off + BS);
	p = m->b + off;
	store_le32(p, 0x75646173);
	store_le32(p + 4, 0x0000706d);
	memset(p + SADUMP_PH_SADUMP_ID, 0xa1, 16);
	memset(p + SADUMP_PH_DISK_SET_ID, 0xb2, 16);
	memset(p + SADUMP_PH_VOL_ID, vol, 16);
	/* 2023-11-14 22:13:20, time zone 0 */
	store_le32(p + SADUMP_PH_TIME, 2023 | 11 << 16 | 14 << 24);
	p[SADUMP_PH_TIME + 4] = 22;
	p[SADUMP_PH_TIME + 5] = 13;
	p[SADUMP_PH_TIME + 6] = 20;
	store_le32(p + SADUMP_PH_SET_DISK_SET, num);
	store_le64(p + SADUMP_PH_USED_DEVICE, used);
	for (unsigned i = 0; i < SADUMP_PH_MAGIC_WORDS; i++) {
		store_le32(p + SADUMP_PH_MAGIC + 4 * i, w);
		w = (w + 7) * 11;
	}
}

/* Dump header, sub header (one cpu), both bitmaps (MSB first) at @off;
 * returns where the data starts. */
static size_t put_dump(struct img *m, size_t off)
{
	unsigned char *p;

	img_grow(m, off + 4 * BS);
	p = m->b + off;
	memcpy(p, "sadump\0\0", 8);
	store_le32(p + 8, 1);               /* header_version */
	store_le32(p + 40, BS);             /* block_size */
	store_le32(p + 48, 1);              /* sub_hdr_size */
	store_le32(p + 52, 1);              /* bitmap_blocks */
	store_le32(p + 56, 1);              /* dumpable_bitmap_blocks */
	store_le32(p + 60, NPFN);
	store_le32(p + 80, 1);              /* nr_cpus */
	store_le64(p + 88, NPFN);           /* max_mapnr_64 */
	p += BS;                            /* sub header */
	store_le32(p, 1024);
	store_le64(p + 4, 0);               /* APIC id 0 */
	store_le32(p + 20 + 796, 0x1111);   /* r15 lower */
	store_le32(p + 20 + 800, 0x2222);   /* r15 upper */
	store_le64(p + 20 + 984, 0xffffffff81000123ULL); /* rip */
	store_le64(p + 20 + 1008, 0x5000);  /* cr3 */
	store_le32(p + 20 + 472, 0xfffffe00); /* IdtUpper */
	store_le32(p + 20 + 660, 0x1000);   /* IdtLower */
	p += BS;
	for (unsigned pfn = 0; pfn < NPFN; pfn++) {
		if (IS_RAM(pfn))
			p[pfn / 8] |= (unsigned char)(0x80 >> (pfn % 8));
		if (IS_STORED(pfn))
			p[BS + pfn / 8] |= (unsigned char)(0x80 >> (pfn % 8));
	}
	return off + 4 * BS;
}

/* The stored pages from @first on, @n of them, at @off: each page full
 * of its pfn's low byte. */
static void put_data(struct img *m, size_t off, unsigned first, unsigned n)
{
	unsigned k = 0;

	for (unsigned pfn = 0; pfn < NPFN; pfn++) {
		if (!IS_STORED(pfn))
			continue;
		if (k >= first && k < first + n) {
			img_grow(m, off + BS);
			memset(m->b + off, (int)(pfn & 0xff), BS);
			off += BS;
		}
		k++;
	}
}

static unsigned nstored(void)
{
	unsigned n = 0;

	for (unsigned pfn = 0; pfn < NPFN; pfn++)
		n += IS_STORED(pfn);
	return n;
}

static void build_single(struct img *m)
{
	size_t data;

	memset(m, 0, sizeof(*m));
	put_part(m, 0, 0, 0, 1);
	data = put_dump(m, BS);
	put_data(m, data, 0, nstored());
}

static void build_media(struct img *m)
{
	size_t data;

	memset(m, 0, sizeof(*m));
	img_grow(m, BS);
	memset(m->b, 0xa1, 16);             /* sadump_id */
	memset(m->b + 16, 0xb2, 16);        /* disk_set_id */
	m->b[48] = 1;                       /* sequential_num */
	put_part(m, BS, 0, 0, 1);
	data = put_dump(m, 2 * BS);
	put_data(m, data, 0, nstored());
}

/* Two disks: the first 6 stored pages on disk 1, the rest on disk 2. */
static void build_diskset(struct img *d1, struct img *d2)
{
	size_t data;
	unsigned n = nstored();

	memset(d1, 0, sizeof(*d1));
	memset(d2, 0, sizeof(*d2));
	put_part(d1, 0, 1, 0, 1);
	img_grow(d1, 2 * BS);
	store_le32(d1->b + BS, 1);          /* disk_set_header_size */
	store_le32(d1->b + BS + 4, 2);      /* disk_num */
	memset(d1->b + BS + 16, 2, 16);     /* vol_info[0]: disk 2's id */
	data = put_dump(d1, 2 * BS);
	put_data(d1, data, 0, 6);
	store_le64(d1->b + SADUMP_PH_USED_DEVICE, data + 6 * BS);
	put_part(d2, 0, 2, BS + (uint64_t)(n - 6) * BS, 2);
	put_data(d2, BS, 6, n - 6);
}

static const char *path(const char *name)
{
	static char buf[8][PATH_MAX + 64];
	static unsigned i;
	char *p = buf[i++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static void save(const struct img *m, const char *name)
{
	FILE *f = fopen(path(name), "wb");

	if (f) {
		if (m->len)
			fwrite(m->b, 1, m->len, f);
		fclose(f);
	}
}

struct opened {
	struct sadump_info si;
	struct cache c;
	int fd;
};

/* Open @names (disk 1 first) as one dump. */
static enum mdf_status open_names(struct opened *o, const char *const *names, unsigned n,
				  struct mdf_err *err)
{
	const char *paths[SADUMP_MAX_DISKS];
	enum mdf_status st;

	memset(o, 0, sizeof(*o));
	for (unsigned i = 0; i < n; i++)
		paths[i] = names[i];
	o->fd = open(names[0], O_RDONLY);
	if (o->fd < 0)
		return mdf_err_set(err, MDF_ERR_IO, "open %s", names[0]);
	st = cache_init(&o->c, o->fd, names[0], NULL, err);
	if (st == MDF_OK)
		st = sadump_open(&o->si, o->fd, &o->c, paths, n, NULL, err);
	return st;
}

static void close_opened(struct opened *o)
{
	sadump_close(&o->si);
	sadump_close(&o->si);
	cache_release(&o->c);
	if (o->fd >= 0)
		close(o->fd);
}

/* Every pfn reads as the layout says, through the ops. */
static int check_pages(struct opened *o)
{
	unsigned char page[BS];
	struct mdf_err err;

	for (unsigned pfn = 0; pfn < NPFN + 2; pfn++) {
		enum mdf_status st = sadump_input_ops.read_paddr(&o->si, &o->c, (uint64_t)pfn * BS,
								  page, BS, &err);

		if (!IS_RAM(pfn)) {
			if (st != MDF_ERR_NODATA)
				return (int)pfn + 1;
			continue;
		}
		if (st != MDF_OK)
			return (int)pfn + 1;
		for (unsigned i = 0; i < BS; i++)
			if (page[i] != (IS_STORED(pfn) ? (pfn & 0xff) : 0))
				return (int)pfn + 1;
	}
	return 0;
}

static void t_single(void)
{
	struct img m;
	struct opened o;
	struct mdf_err err;
	const char *names[1];
	struct input_facts f;

	build_single(&m);
	save(&m, "single");
	T_ASSERT(sadump_probe(m.b, m.len));
	free(m.b);
	names[0] = path("single");
	T_OK(open_names(&o, names, 1, &err), &err);
	T_EQ_U64(o.si.kind, SADUMP_SINGLE);
	T_EQ_U64(o.si.block_size, BS);
	T_EQ_U64(o.si.max_mapnr, NPFN);
	T_EQ_U64(o.si.nstored, nstored());
	T_EQ_U64(o.si.nram, 20);
	T_ASSERT(o.si.zero_excluded);
	T_EQ_U64(o.si.disks[0].data_off, 5 * BS);
	T_EQ_U64(check_pages(&o), 0);
	/* the time stamp, as local time: TZ is UTC here */
	T_EQ_U64(o.si.have_timestamp, 1);
	T_EQ_U64(o.si.timestamp, 1700000000);
	sadump_input_ops.facts(&o.si, &f);
	T_EQ_U64(f.machine, 62);
	T_EQ_U64(f.max_paddr, (uint64_t)NPFN * BS);
	close_opened(&o);
}

/* pfn 8i+j is bit 0x80 >> j of byte i: the first RAM pfn, 2, is 0x20. */
static void t_bit_order(void)
{
	struct img m;
	struct opened o;
	struct mdf_err err;
	const char *names[1];

	build_single(&m);
	T_EQ_U64(m.b[BS + 2 * BS], 0x3f);   /* pfns 2..7 of byte 0 */
	save(&m, "bits");
	free(m.b);
	names[0] = path("bits");
	T_OK(open_names(&o, names, 1, &err), &err);
	T_EQ_U64(o.si.ram[0], 0xfc);         /* turned round: LSB first */
	T_ASSERT(!sadump_is_ram(&o.si, 1));
	T_ASSERT(sadump_is_ram(&o.si, 2));
	T_ASSERT(sadump_is_ram(&o.si, 10) && !sadump_is_stored(&o.si, 10));
	T_ASSERT(!sadump_is_ram(&o.si, NPFN));
	close_opened(&o);
}

/* Blocks: the stored pfns below. */
static void t_block_mapping(void)
{
	struct img m;
	struct opened o;
	struct mdf_err err;
	const char *names[1];
	unsigned disk;
	uint64_t off;

	build_single(&m);
	save(&m, "blocks");
	free(m.b);
	names[0] = path("blocks");
	T_OK(open_names(&o, names, 1, &err), &err);
	T_EQ_U64(sadump_pfn_to_block(&o.si, 2), 0);
	T_EQ_U64(sadump_pfn_to_block(&o.si, 9), 7);
	T_EQ_U64(sadump_pfn_to_block(&o.si, 15), 8);
	T_EQ_U64(sadump_pfn_to_block(&o.si, 18), 10);
	T_EQ_U64(sadump_pfn_to_block(&o.si, 21), nstored() - 1);
	T_EQ_U64(nstored(), 14);
	T_ASSERT(sadump_block_where(&o.si, 3, &disk, &off));
	T_EQ_U64(disk, 0);
	T_EQ_U64(off, 5 * BS + 3 * BS);
	T_ASSERT(!sadump_block_where(&o.si, nstored(), &disk, &off));
	close_opened(&o);
}

static void t_media(void)
{
	struct img m;
	struct opened o;
	struct mdf_err err;
	const char *names[1];

	build_media(&m);
	T_ASSERT(sadump_probe(m.b, m.len));
	save(&m, "media");
	free(m.b);
	names[0] = path("media");
	T_OK(open_names(&o, names, 1, &err), &err);
	T_EQ_U64(o.si.kind, SADUMP_MEDIA);
	T_EQ_U64(o.si.disks[0].data_off, 6 * BS);
	T_EQ_U64(check_pages(&o), 0);
	close_opened(&o);
}

static void t_diskset(void)
{
	struct img d1, d2;
	struct opened o;
	struct mdf_err err;
	const char *names[2];
	unsigned disk;
	uint64_t off;

	build_diskset(&d1, &d2);
	save(&d1, "disk1");
	save(&d2, "disk2");
	free(d1.b);
	free(d2.b);
	names[0] = path("disk1");
	names[1] = path("disk2");
	T_OK(open_names(&o, names, 2, &err), &err);
	T_EQ_U64(o.si.kind, SADUMP_DISKSET);
	T_EQ_U64(o.si.ndisks, 2);
	T_EQ_U64(o.si.disks[0].data_len, 6 * BS);
	T_ASSERT(sadump_block_where(&o.si, 5, &disk, &off));
	T_EQ_U64(disk, 0);
	T_ASSERT(sadump_block_where(&o.si, 6, &disk, &off));
	T_EQ_U64(disk, 1);
	T_EQ_U64(off, BS);
	T_EQ_U64(check_pages(&o), 0);
	close_opened(&o);
}

static void t_cpu_state(void)
{
	struct img m;
	struct opened o;
	struct mdf_err err;
	const char *names[1];
	struct sadump_cpu_state cs;

	build_single(&m);
	save(&m, "cpu");
	free(m.b);
	names[0] = path("cpu");
	T_OK(open_names(&o, names, 1, &err), &err);
	T_OK(sadump_cpu_state(&o.si, &o.c, 0, &cs, &err), &err);
	T_EQ_U64(cs.gpr[0], 0x0000222200001111ULL);
	T_EQ_U64(cs.rip, 0xffffffff81000123ULL);
	T_EQ_U64(cs.cr3, 0x5000);
	T_EQ_U64(cs.idtr, 0xfffffe0000001000ULL);
	T_ASSERT(sadump_cpu_state(&o.si, &o.c, 1, &cs, &err) == MDF_ERR_NODATA);
	close_opened(&o);
}

/* Open @name(s), expect failure with exactly @want after the directory. */
static int refused(const char *const *names, unsigned n, const char *want)
{
	struct opened o;
	struct mdf_err err;
	char exp[PATH_MAX + 512];
	enum mdf_status st;

	st = open_names(&o, names, n, &err);
	close_opened(&o);
	snprintf(exp, sizeof(exp), want, dir, dir, dir);
	if (st == MDF_OK || strcmp(err.msg, exp) != 0) {
		fprintf(stderr, "# got: %s\n# want: %s\n", st == MDF_OK ? "success" : err.msg, exp);
		return 0;
	}
	return 1;
}

static void t_refusals(void)
{
	struct img m, d2;
	const char *one[1], *two[2];

	/* truncated header */
	build_single(&m);
	m.len = 3000;
	save(&m, "trunc");
	one[0] = path("trunc");
	T_ASSERT(refused(one, 1, "%s/trunc: partition header at 0x0+0x1000: past the end of the "
			 "file (size 0xbb8)"));
	free(m.b);
	/* bad signature: no partition header at 0 or at 0x1000 */
	build_single(&m);
	m.b[0] = 'X';
	save(&m, "nosig");
	one[0] = path("nosig");
	T_ASSERT(refused(one, 1, "%s/nosig: no sadump partition header (at 0, or at 0x1000 after a "
			 "media header)"));
	free(m.b);
	/* bad magic number */
	build_single(&m);
	m.b[SADUMP_PH_MAGIC + 400] ^= 1;
	save(&m, "magic");
	one[0] = path("magic");
	T_ASSERT(refused(one, 1, "%s/magic: partition header: bad magic number"));
	free(m.b);
	/* no dump header */
	build_single(&m);
	m.b[BS] = 'X';
	save(&m, "nodh");
	one[0] = path("nodh");
	T_ASSERT(refused(one, 1, "%s/nodh: no dump header (\"sadump\" signature) at 0x1000"));
	free(m.b);
	/* block size not a power of two, too big */
	build_single(&m);
	store_le32(m.b + BS + 40, 3000);
	save(&m, "bs3000");
	one[0] = path("bs3000");
	T_ASSERT(refused(one, 1, "%s/bs3000: dump header: block size 3000 is not a power of two"));
	store_le32(m.b + BS + 40, 1u << 20);
	save(&m, "bsbig");
	one[0] = path("bsbig");
	T_ASSERT(refused(one, 1, "%s/bsbig: dump header: block size 1048576 out of range 4096..65536"));
	free(m.b);
	/* bitmaps past the end of the file */
	build_single(&m);
	store_le32(m.b + BS + 52, 100);
	save(&m, "bmeof");
	one[0] = path("bmeof");
	T_ASSERT(refused(one, 1, "%s/bmeof: the bitmaps end at 0x68000, past the end of the file "
			 "(size 0x13000)"));
	free(m.b);
	/* bitmaps too small */
	build_single(&m);
	store_le64(m.b + BS + 88, 40000);
	save(&m, "bmsmall");
	one[0] = path("bmsmall");
	T_ASSERT(refused(one, 1, "%s/bmsmall: dump header: bitmaps of 1 and 1 blocks are too small "
			 "for max_mapnr 0x9c40 (2 blocks each)"));
	free(m.b);
	/* data cut short */
	build_single(&m);
	m.len -= BS;
	save(&m, "datacut");
	one[0] = path("datacut");
	T_ASSERT(refused(one, 1, "%s/datacut: the dumpable bitmap stores 14 pages, the file holds "
			 "13 (truncated?)"));
	free(m.b);
	/* a disk set: its second disk missing, of another set, in the wrong place */
	build_diskset(&m, &d2);
	save(&m, "ds1");
	one[0] = path("ds1");
	T_ASSERT(refused(one, 1, "%s/ds1: the first disk of a set of 2 disks, 1 given: give every "
			 "disk with --diskset=, the first one first"));
	d2.b[SADUMP_PH_DISK_SET_ID] ^= 1;
	save(&d2, "ds2other");
	two[0] = path("ds1");
	two[1] = path("ds2other");
	T_ASSERT(refused(two, 2, "%s/ds2other: a disk of another disk set than %s/ds1"));
	d2.b[SADUMP_PH_DISK_SET_ID] ^= 1;
	store_le32(d2.b + SADUMP_PH_SET_DISK_SET, 3);
	save(&d2, "ds2num");
	two[0] = path("ds1");
	two[1] = path("ds2num");
	T_ASSERT(refused(two, 2, "%s/ds2num: disk 3 of the set, given as --diskset number 2"));
	store_le32(d2.b + SADUMP_PH_SET_DISK_SET, 2);
	d2.len -= BS;
	save(&d2, "ds2cut");
	two[0] = path("ds1");
	two[1] = path("ds2cut");
	T_ASSERT(refused(two, 2, "%s/ds2cut: partition header: used_device 0x9000 outside its "
			 "data 0x1000..0x8000 (the file's size)"));
	/* disk 2 given first */
	store_le32(d2.b + SADUMP_PH_SET_DISK_SET, 2);
	d2.len += BS;
	save(&d2, "ds2");
	two[0] = path("ds2");
	two[1] = path("ds1");
	T_ASSERT(refused(two, 2, "%s/ds2: disk 2 of a disk set: give every disk, the first one "
			 "first (--diskset=DISK1 --diskset=DISK2 ...)"));
	free(m.b);
	free(d2.b);
}

/* 1.7.2's VMCOREINFO text: its order, its defaults (PG_* of old kernels),
 * LENGTH(node_data) as FOUND_ARRAY_TYPE, phys_base unsigned. */
static void t_vmcoreinfo_text(void)
{
	struct kinfo *k = malloc(sizeof(*k));
	char buf[4096];
	size_t n = 0;
	struct mdf_err err;

	T_ASSERT(k);
	kinfo_init(k);
	k->sym.init_uts_ns = (struct kinfo_u64){ 0xffffffff81ffe000ULL, true };
	k->sym.node_data = (struct kinfo_u64){ 0xffffffff81c393a0ULL, true };
	k->len.node_data = (struct kinfo_u64){ 1024, true };
	k->size.page = (struct kinfo_u64){ 64, true };
	k->off.page__count = (struct kinfo_u64){ 52, true };
	k->num.PG_head = (struct kinfo_s64){ 16, true };
	k->num.PG_hwpoison = (struct kinfo_s64){ 23, true };
	k->num.PAGE_BUDDY_MAPCOUNT_VALUE = (struct kinfo_s64){ -128, true };
	enum mdf_status st = sadump_vmcoreinfo_text(k, "6.1.0-57-amd64", 4096,
						    (uint64_t)-322961408, 0x26e00000,
						    buf, sizeof(buf), &n, &err);
	static const char want[] =
		 "OSRELEASE=6.1.0-57-amd64\n"
		 "PAGESIZE=4096\n"
		 "SYMBOL(init_uts_ns)=ffffffffa8dfe000\n"
		 "SYMBOL(node_data)=ffffffffa8a393a0\n"
		 "SIZE(page)=64\n"
		 "OFFSET(page._count)=52\n"
		 "LENGTH(node_data)=9223372036854775806\n"
		 "NUMBER(PG_lru)=5\n"
		 "NUMBER(PG_private)=11\n"
		 "NUMBER(PG_head_mask)=65536\n"
		 "NUMBER(PG_swapcache)=15\n"
		 "NUMBER(PG_slab)=7\n"
		 "NUMBER(PG_hwpoison)=23\n"
		 "NUMBER(phys_base)=18446744073386590208\n"
		 "KERNELOFFSET=26e00000\n";

	free(k);
	T_EQ_U64(st, MDF_OK);
	if (strcmp(buf, want))
		fprintf(stderr, "# got:\n%s", buf);
	T_ASSERT(strcmp(buf, want) == 0);
	T_EQ_U64(n, strlen(buf));
	T_ASSERT(sadump_vmcoreinfo_text(k = calloc(1, sizeof(*k)), "x", 4096, 0, 0, buf, 20, &n,
					&err) == MDF_ERR_ARG);
	free(k);
}

/* ---- the fuzz seed corpus (MDF_SADUMP_CORPUS=dir) ---- */

#define DISK_SEP "--sadump-disk--\n"

static void t_write_corpus(void)
{
	const char *out = getenv("MDF_SADUMP_CORPUS");
	struct img m, d2;
	char p[PATH_MAX];
	FILE *f;

	if (!out) {
		t_skip("set MDF_SADUMP_CORPUS=DIR to write the fuzz corpus");
		return;
	}
	build_single(&m);
	snprintf(p, sizeof(p), "%s/single", out);
	f = fopen(p, "wb");
	T_ASSERT(f);
	fwrite(m.b, 1, m.len, f);
	fclose(f);
	free(m.b);
	build_media(&m);
	snprintf(p, sizeof(p), "%s/media", out);
	f = fopen(p, "wb");
	T_ASSERT(f);
	fwrite(m.b, 1, m.len, f);
	fclose(f);
	free(m.b);
	build_diskset(&m, &d2);
	snprintf(p, sizeof(p), "%s/diskset", out);
	f = fopen(p, "wb");
	T_ASSERT(f);
	fwrite(m.b, 1, m.len, f);
	fwrite(DISK_SEP, 1, strlen(DISK_SEP), f);
	fwrite(d2.b, 1, d2.len, f);
	fclose(f);
	free(m.b);
	free(d2.b);
}

int main(void)
{
	char cmd[PATH_MAX + 16];

	setenv("TZ", "UTC", 1);
	snprintf(dir, sizeof(dir), "%s/mdf-sadump-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		printf("not ok setup: mkdtemp\n");
		return 1;
	}
	T_RUN(t_single);
	T_RUN(t_bit_order);
	T_RUN(t_block_mapping);
	T_RUN(t_media);
	T_RUN(t_diskset);
	T_RUN(t_cpu_state);
	T_RUN(t_refusals);
	T_RUN(t_vmcoreinfo_text);
	T_RUN(t_write_corpus);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return t_done();
}
