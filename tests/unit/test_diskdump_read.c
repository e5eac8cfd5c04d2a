/*
 * tests/unit/test_diskdump_read.c - the kdump-compressed reader.
 *
 * Dumps are made by the real programs: build/<flavour>/tests/gen/mkvmcore
 * writes a small synthetic vmcore and build/<flavour>/makedumpfile filters
 * it with each codec; both are found next to this test binary (argv[0] is
 * build/<flavour>/tests/unit/test_diskdump_read).  Every stored page must
 * equal the page read from the ELF vmcore, broken copies must be refused
 * with exact messages.  /usr/bin/makedumpfile (upstream), when installed,
 * writes -l and -c dumps of the real fixture fx-v61-512m.elf.
 *
 * The fuzz seed corpus tests/fuzz/corpus/kdump/ is written by this test:
 *   MDF_KDUMP_CORPUS=tests/fuzz/corpus/kdump build/default/tests/unit/test_diskdump_read
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "compress/compress.h"
#include "diskdump.h"
#include "diskdump_read.h"
#include "elf_info.h"
#include "error.h"
#include "tap.h"
#include "realvm.h"
#include "util.h"

static char tmpdir[256];
static char mdf_bin[PATH_MAX + 64], gen_bin[PATH_MAX + 64];
static bool have_tools;
static const char *tools_why = "makedumpfile or mkvmcore not built";
static char vm_path[PATH_MAX];       /* generated vmcore */
static bool have_vm;

struct codec_case {
	const char *opt;
	const char *name;
	enum mdf_codec codec;
	uint32_t flag;
};

static const struct codec_case codecs[] = {
	{ "-l", "lzo", MDF_CODEC_LZO, DUMP_DH_COMPRESSED_LZO },
	{ "-c", "zlib", MDF_CODEC_ZLIB, DUMP_DH_COMPRESSED_ZLIB },
	{ "-z", "zstd", MDF_CODEC_ZSTD, DUMP_DH_COMPRESSED_ZSTD },
	{ "-p", "snappy", MDF_CODEC_SNAPPY, DUMP_DH_COMPRESSED_SNAPPY },
	{ "", "none", MDF_CODEC_NONE, 0 },
};

/* A 20 MiB machine: two rank blocks of pfns, every kind of page. */
static const char main_spec[] =
	"kernel 6.1\n"
	"cpus 3\n"
	"vmemmap_pte 4k\n"
	"phys_base -0xf00000\n"
	"text 0x80000\n"
	"ram 0x1000 +0x9ec00\n"
	"ram 0x100000 0x400000\n"
	"ram 0x1000000 0x1400000\n"
	"pages 0x60+16 anon random\n"
	"pages 0x70+16 cache text 3\n"
	"pages 0x80+16 kernel random 5\n"
	"pages 0x200+64 kernel text 9\n"
	"fill 0x90+8 zero\n"
	"pages 0x1000+256 free order=8\n"
	"pages 0x1100+32 kernel random 11\n"
	"pages 0x1120+32 cache_private byte 0x5a\n"
	"pages 0x1140+16 kernel byte 0x33\n"
	"ref_levels 31\n";

static const char *tmp_path(const char *name)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

static bool write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	bool ok;

	if (!f)
		return false;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else if (buf) {
			*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

static bool run(const char *cmd)
{
	return system(cmd) == 0;
}

/* mkvmcore SPEC-TEXT -> @out, reference bitmaps into @ref (or none) */
static bool gen_vmcore(const char *spec, const char *out, const char *ref)
{
	char cmd[5 * PATH_MAX];
	const char *sp = tmp_path("spec.txt");

	if (!write_file(sp, spec, strlen(spec)))
		return false;
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s'%s%s%s >/dev/null 2>&1", gen_bin,
		 sp, out, ref ? " --ref '" : "", ref ? ref : "", ref ? "'" : "");
	return run(cmd);
}

/* makedumpfile @opts @in @out (quiet, overwrite) */
static bool mdf_dump(const char *bin, const char *opts, const char *in,
		     const char *out)
{
	char cmd[4 * PATH_MAX];

	unlink(out);
	snprintf(cmd, sizeof(cmd), "'%s' %s '%s' '%s' >/dev/null 2>&1", bin, opts,
		 in, out);
	return run(cmd);
}

/* ---- an opened dump ---- */

struct dd {
	int fd;
	bool have_cache, open;
	struct cache cache;
	struct diskdump_info di;
};

static enum mdf_status dd_open(struct dd *d, const char *path,
			       enum cache_mmap_policy policy, struct mdf_err *err)
{
	struct cache_config cfg = { .nentries = 6, .policy = policy };
	enum mdf_status st;

	memset(d, 0, sizeof(*d));
	mdf_err_clear(err);
	d->fd = open(path, O_RDONLY);
	if (d->fd < 0)
		return mdf_err_errno(err, MDF_ERR_IO, errno, "%s", path);
	st = cache_init(&d->cache, d->fd, path, &cfg, err);
	if (st != MDF_OK)
		return st;
	d->have_cache = true;
	st = diskdump_open(&d->di, d->fd, path, &d->cache, err);
	d->open = st == MDF_OK;
	return st;
}

static void dd_close(struct dd *d)
{
	if (d->open)
		diskdump_close(&d->di);
	if (d->have_cache)
		cache_release(&d->cache);
	if (d->fd >= 0)
		close(d->fd);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
}

struct elf {
	int fd;
	bool open, have_cache;
	struct elf_info ei;
	struct cache cache;
};

static enum mdf_status elf_open(struct elf *e, const char *path, struct mdf_err *err)
{
	struct cache_config cfg = { .nentries = 8, .policy = CACHE_MMAP_TRY };
	enum mdf_status st;

	memset(e, 0, sizeof(*e));
	e->fd = open(path, O_RDONLY);
	if (e->fd < 0)
		return mdf_err_errno(err, MDF_ERR_IO, errno, "%s", path);
	st = elf_info_open(&e->ei, e->fd, path, err);
	if (st != MDF_OK)
		return st;
	e->open = true;
	st = cache_init(&e->cache, e->fd, path, &cfg, err);
	e->have_cache = st == MDF_OK;
	return st;
}

static void elf_close(struct elf *e)
{
	if (e->have_cache)
		cache_release(&e->cache);
	if (e->open)
		elf_info_close(&e->ei);
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
	e->open = e->have_cache = false;
}

/* Value of KEY= in VMCOREINFO text, copied into @out. */
static bool vmcoreinfo_value(const char *text, size_t len, const char *key,
			     char *out, size_t cap)
{
	size_t kl = strlen(key);

	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (end - i > kl && !memcmp(text + i, key, kl) && text[i + kl] == '=') {
			size_t n = MDF_MIN(end - i - kl - 1, cap - 1);

			memcpy(out, text + i + kl + 1, n);
			out[n] = '\0';
			return true;
		}
		i = end + 1;
	}
	return false;
}

/*
 * Every pfn of @d against the ELF vmcore: stored pages equal, others
 * NODATA; returns the number of pages stored.
 */
static bool compare_with_elf(struct dd *d, struct elf *e, uint64_t *stored,
			     char *why, size_t whylen)
{
	struct diskdump_info *di = &d->di;
	unsigned char *a = malloc(di->block_size), *b = malloc(di->block_size);
	struct mdf_err err;
	bool ok = a && b;

	*stored = 0;
	for (uint64_t pfn = 0; ok && pfn < di->max_mapnr + 2; pfn++) {
		enum mdf_status st = diskdump_read_page(di, &d->cache, pfn, a, &err);

		if (!diskdump_dumpable(di, pfn)) {
			if (st != MDF_ERR_NODATA || !strstr(err.msg, "is not in the dump")) {
				snprintf(why, whylen, "pfn 0x%llx: excluded page read: %s",
					 (unsigned long long)pfn, err.msg);
				ok = false;
			}
			if (diskdump_present(di, pfn) && !strstr(err.msg, "(excluded)")) {
				snprintf(why, whylen, "pfn 0x%llx: %s", (unsigned long long)pfn, err.msg);
				ok = false;
			}
			continue;
		}
		if (!diskdump_present(di, pfn)) {
			snprintf(why, whylen, "pfn 0x%llx dumpable but not present",
				 (unsigned long long)pfn);
			ok = false;
		} else if (st != MDF_OK) {
			snprintf(why, whylen, "%s", err.msg);
			ok = false;
		} else if (elf_info_read_paddr(&e->ei, &e->cache, pfn * di->block_size,
					       b, di->block_size, &err) != MDF_OK) {
			snprintf(why, whylen, "ELF: %s", err.msg);
			ok = false;
		} else if (memcmp(a, b, di->block_size) != 0) {
			snprintf(why, whylen, "pfn 0x%llx differs from the ELF vmcore",
				 (unsigned long long)pfn);
			ok = false;
		}
		(*stored)++;
	}
	if (!a || !b)
		snprintf(why, whylen, "out of memory");
	free(a);
	free(b);
	return ok;
}

static bool codec_usable(const struct codec_case *c)
{
	return c->codec == MDF_CODEC_NONE || compress_available(c->codec);
}

static const char *dump_path(const struct codec_case *c)
{
	static char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s/main-%s.kdump", tmpdir, c->name);
	return buf;
}

/* Make the per-codec dumps of the main vmcore once. */
static bool main_dumps(void)
{
	static int done;

	if (!done) {
		done = -1;
		if (!have_vm)
			return false;
		for (size_t i = 0; i < ARRAY_SIZE(codecs); i++) {
			char opts[64];

			if (!codec_usable(&codecs[i]))
				continue;
			snprintf(opts, sizeof(opts), "%s -d 31", codecs[i].opt);
			if (!mdf_dump(mdf_bin, opts, vm_path, dump_path(&codecs[i])))
				return false;
		}
		done = 1;
	}
	return done == 1;
}

/* ---- tests ---- */

static void t_probe(void)
{
	T_ASSERT(diskdump_probe((const unsigned char *)"KDUMP   xyz", 11));
	T_ASSERT(!diskdump_probe((const unsigned char *)"KDUMP  ", 7));
	T_ASSERT(!diskdump_probe((const unsigned char *)"DISKDUMP", 8));
	T_ASSERT(!diskdump_probe((const unsigned char *)"\177ELF\2\1\1\0", 8));
}

static void t_every_codec(void)
{
	struct mdf_err err;
	struct elf e;
	int tested = 0;

	if (!have_tools || !main_dumps()) {
		t_skip(tools_why);
		return;
	}
	T_OK(elf_open(&e, vm_path, &err), &err);
	for (size_t i = 0; i < ARRAY_SIZE(codecs); i++) {
		const struct codec_case *c = &codecs[i];
		struct dd d;
		uint64_t stored = 0;
		char why[1100] = "";
		bool ok;

		if (!codec_usable(c))
			continue;
		if (dd_open(&d, dump_path(c), i % 2 ? CACHE_MMAP_NEVER : CACHE_MMAP_TRY,
			    &err) != MDF_OK) {
			dd_close(&d);
			elf_close(&e);
			T_OK(MDF_ERR_FORMAT, &err);
		}
		ok = compare_with_elf(&d, &e, &stored, why, sizeof(why));
		if (!ok) {
			dd_close(&d);
			elf_close(&e);
			t_fail(__FILE__, __LINE__, why);
			return;
		}
		T_EQ_U64(stored, d.di.ndesc);
		T_ASSERT(stored > 100);
		T_EQ_U64(d.di.compression, c->flag);
		T_EQ_U64(d.di.pages_decoded, stored);
		dd_close(&d);
		tested++;
	}
	elf_close(&e);
	T_ASSERT(tested >= 3);
	for (size_t i = 0; i < ARRAY_SIZE(codecs); i++)
		tested -= codec_usable(&codecs[i]);
	T_EQ_U64(tested, 0);
}

static void t_header_fields(void)
{
	struct mdf_err err;
	struct elf e;
	struct dd d;
	char rel[80];
	const char *bm2 = tmp_path("ref/d31.bitmap2"), *bm1 = tmp_path("ref/bitmap1");
	unsigned char *ref1, *ref2;
	size_t len1, len2;
	uint64_t nb;

	if (!have_tools || !main_dumps()) {
		t_skip(tools_why);
		return;
	}
	T_OK(elf_open(&e, vm_path, &err), &err);
	T_OK(dd_open(&d, dump_path(&codecs[0]), CACHE_MMAP_TRY, &err), &err);
	T_EQ_U64(d.di.header.header_version, 6);
	T_EQ_U64(d.di.block_size, 4096);
	T_EQ_U64(d.di.block_shift, 12);
	T_EQ_U64(d.di.dump_level, 31);
	T_EQ_U64(d.di.max_mapnr, div_round_up(elf_info_max_paddr(&e.ei), 4096));
	T_EQ_U64(d.di.max_mapnr, 0x1400);
	T_EQ_U64(d.di.nr_cpus, 3);
	T_EQ_U64(d.di.nr_cpus, e.ei.nr_cpus);
	T_EQ_U64(d.di.phys_base, (uint64_t)-0xf00000LL);
	T_EQ_U64(d.di.timestamp, 1700000000);
	T_ASSERT(!d.di.incomplete && !d.di.split);
	T_ASSERT(d.di.vmcoreinfo != NULL);
	T_ASSERT(d.di.vmcoreinfo_in_notes);
	T_EQ_U64(d.di.vmcoreinfo_len, e.ei.vmcoreinfo_len);
	T_ASSERT(memcmp(d.di.vmcoreinfo, e.ei.vmcoreinfo, e.ei.vmcoreinfo_len) == 0);
	T_EQ_U64(d.di.vmcoreinfo_note_off, e.ei.vmcoreinfo_off);
	T_EQ_U64(d.di.notes_len, e.ei.notes_len);
	T_ASSERT(memcmp(d.di.notes, e.ei.notes, e.ei.notes_len) == 0);
	T_ASSERT(vmcoreinfo_value(e.ei.vmcoreinfo, e.ei.vmcoreinfo_len, "OSRELEASE",
				  rel, sizeof(rel)));
	T_EQ_STR(d.di.header.utsname.release, rel);
	T_EQ_STR(d.di.header.utsname.sysname, "Linux");
	T_EQ_U64(d.di.size_eraseinfo, 0);
	/* The bitmaps equal the generator's independent reference. */
	ref1 = slurp(bm1, &len1);
	ref2 = slurp(bm2, &len2);
	nb = div_round_up(d.di.max_mapnr, 8);
	if (!ref1 || !ref2 || len1 < nb || len2 < nb ||
	    memcmp(ref1, d.di.bitmap1, nb) || memcmp(ref2, d.di.bitmap2, nb)) {
		free(ref1);
		free(ref2);
		dd_close(&d);
		elf_close(&e);
		T_ASSERT(!"bitmaps equal mkvmcore --ref bitmap1 and d31.bitmap2");
	}
	free(ref1);
	free(ref2);
	/* Rank across the two rank blocks (pfn 0x1000 starts the second). */
	T_ASSERT(diskdump_dumpable(&d.di, 0x1100));
	T_ASSERT(!diskdump_dumpable(&d.di, 0x1000));
	T_ASSERT(diskdump_present(&d.di, 0x1000));
	T_ASSERT(!diskdump_present(&d.di, 0x500));
	T_EQ_U64(diskdump_desc_offset(&d.di, 0), d.di.off_desc);
	T_EQ_U64(diskdump_desc_offset(&d.di, d.di.max_mapnr), d.di.off_data);
	dd_close(&d);
	elf_close(&e);
}

static void t_read_paddr(void)
{
	struct mdf_err err;
	struct elf e;
	struct dd d;
	unsigned char a[0x3000], b[0x3000];
	uint64_t dec;

	if (!have_tools || !main_dumps()) {
		t_skip(tools_why);
		return;
	}
	T_OK(elf_open(&e, vm_path, &err), &err);
	T_OK(dd_open(&d, dump_path(&codecs[0]), CACHE_MMAP_TRY, &err), &err);
	/* Three stored pages at an odd offset. */
	T_OK(diskdump_read_paddr(&d.di, &d.cache, 0x80123, a, 0x2100, &err), &err);
	T_OK(elf_info_read_paddr(&e.ei, &e.cache, 0x80123, b, 0x2100, &err), &err);
	T_ASSERT(memcmp(a, b, 0x2100) == 0);
	/* Small reads of one page decompress it once. */
	dec = d.di.pages_decoded;
	for (int i = 0; i < 100; i++)
		T_OK(diskdump_read_paddr(&d.di, &d.cache, 0x1100000 + 8 * (uint64_t)i,
					 a, 8, &err), &err);
	T_EQ_U64(d.di.pages_decoded, dec + 1);
	/* Alternating among four pages: still no decompression. */
	for (int i = 0; i < 40; i++)
		T_OK(diskdump_read_paddr(&d.di, &d.cache, 0x80000 + 0x1000 * (uint64_t)(i % 4),
					 a, 16, &err), &err);
	T_EQ_U64(d.di.pages_decoded, dec + 1 + 1);  /* 0x83000 is new */
	/* Into an excluded page (zero pages at pfn 0x90). */
	T_ASSERT(diskdump_read_paddr(&d.di, &d.cache, 0x8f800, a, 0x1000, &err) ==
		 MDF_ERR_NODATA);
	T_ASSERT(strstr(err.msg, "physical address 0x90000 is not in the dump (excluded)"));
	T_ASSERT(diskdump_read_paddr(&d.di, &d.cache, 0x500000, a, 1, &err) == MDF_ERR_NODATA);
	T_ASSERT(strstr(err.msg, "physical address 0x500000 is not in the dump (not present)"));
	T_ASSERT(diskdump_read_paddr(&d.di, &d.cache, 0x1400000, a, 1, &err) == MDF_ERR_NODATA);
	T_ASSERT(strstr(err.msg, "(beyond max_mapnr 0x1400)"));
	T_ASSERT(diskdump_read_paddr(&d.di, &d.cache, UINT64_MAX - 4, a, 16, &err) == MDF_ERR_ARG);
	T_ASSERT(diskdump_read_page(&d.di, &d.cache, 0x1010, a, &err) == MDF_ERR_NODATA);
	T_ASSERT(strstr(err.msg, "pfn 0x1010 is not in the dump (excluded)"));
	dd_close(&d);
	elf_close(&e);
}

/* ---- broken copies ---- */

static unsigned char *good_img;   /* the lzo dump of the main vmcore */
static size_t good_len;

static bool load_good(void)
{
	if (!good_img && have_tools && main_dumps())
		good_img = slurp(dump_path(&codecs[0]), &good_len);
	return good_img != NULL;
}

/* Write @img to a file and open it: the status, with @d open on MDF_OK. */
static enum mdf_status open_img(struct dd *d, const unsigned char *img,
				size_t len, struct mdf_err *err)
{
	const char *p = tmp_path("mut.kdump");

	if (!write_file(p, img, len))
		return mdf_err_set(err, MDF_ERR_IO, "cannot write %s", p);
	return dd_open(d, p, CACHE_MMAP_TRY, err);
}

/* A writable copy of the good dump with its header and sub header. */
struct mut {
	unsigned char *img;
	size_t len;
	struct disk_dump_header h;      /* in host order: mut_commit() writes */
	struct kdump_sub_header s;      /* them in the image's */
	bool swapped;                   /* the image is not in host order */
};

/* A kdump image is in the dumped machine's byte order: on a big-endian
 * host (tests/cross.sh s390x) the x86_64 dumps here are the other one. */
static bool img_swapped(const unsigned char *img)
{
	int32_t v;

	memcpy(&v, img + 8, sizeof(v));
	return v < 1 || v > KDUMP_HEADER_VERSION;
}

static void get_desc(const unsigned char *img, uint64_t off, struct page_desc *pd)
{
	memcpy(pd, img + off, sizeof(*pd));
	if (img_swapped(img))
		kdump_page_desc_bswap(pd, 1);
}

static void put_desc(unsigned char *img, uint64_t off, const struct page_desc *pd)
{
	struct page_desc c = *pd;

	if (img_swapped(img))
		kdump_page_desc_bswap(&c, 1);
	memcpy(img + off, &c, sizeof(c));
}

static bool mut_start(struct mut *m)
{
	if (!load_good())
		return false;
	m->img = malloc(good_len);
	if (!m->img)
		return false;
	memcpy(m->img, good_img, good_len);
	m->len = good_len;
	memcpy(&m->h, m->img, sizeof(m->h));
	memcpy(&m->s, m->img + 4096, sizeof(m->s));
	m->swapped = img_swapped(m->img);
	if (m->swapped) {
		kdump_header_bswap(&m->h);
		kdump_sub_header_bswap(&m->s);
	}
	return true;
}

/* The sub header as the good image has it. */
static void mut_reset_sub(struct mut *m)
{
	memcpy(&m->s, good_img + 4096, sizeof(m->s));
	if (m->swapped)
		kdump_sub_header_bswap(&m->s);
}

static void mut_commit(struct mut *m)
{
	struct disk_dump_header h = m->h;
	struct kdump_sub_header s = m->s;

	if (m->swapped) {
		kdump_header_bswap(&h);
		kdump_sub_header_bswap(&s);
	}
	memcpy(m->img, &h, sizeof(h));
	memcpy(m->img + 4096, &s, sizeof(s));
}

/* Open the mutated image; expect @want and @frag in the message. */
static bool mut_expect(struct mut *m, enum mdf_status want, const char *frag,
		       char *why, size_t whylen)
{
	struct dd d;
	struct mdf_err err;
	enum mdf_status st;
	bool ok;

	mut_commit(m);
	st = open_img(&d, m->img, m->len, &err);
	ok = st == want && (!frag || strstr(err.msg, frag));
	if (!ok)
		snprintf(why, whylen, "want %s \"%s\", got %s \"%s\"",
			 mdf_status_text(want), frag ? frag : "",
			 mdf_status_text(st), st ? err.msg : "");
	dd_close(&d);
	return ok;
}

#define EXPECT_OPEN(m, want, frag)                                        \
	do {                                                              \
		char why_[1100];                                          \
		if (!mut_expect(m, want, frag, why_, sizeof(why_))) {     \
			free((m)->img);                                   \
			t_fail(__FILE__, __LINE__, why_);                 \
			return;                                           \
		}                                                         \
	} while (0)

static void t_refuse_open(void)
{
	struct mut m;
	unsigned char flat[4096 + 16];

	if (!mut_start(&m)) {
		t_skip(tools_why);
		return;
	}
	memcpy(m.h.signature, "XDUMP  \x01", 8);
	EXPECT_OPEN(&m, MDF_ERR_FORMAT,
		    "mut.kdump: not a kdump-compressed dump (signature \"XDUMP  \\x01\", expected \"KDUMP   \")");
	memcpy(m.h.signature, "DISKDUMP", 8);
	EXPECT_OPEN(&m, MDF_ERR_NOTSUPP, "old diskdump format");
	memcpy(m.h.signature, KDUMP_SIGNATURE, 8);

	m.h.header_version = 0;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "mut.kdump: header version 0 is invalid");
	m.h.header_version = 7;
	EXPECT_OPEN(&m, MDF_ERR_NOTSUPP, "mut.kdump: header version 7 is newer than this reader");
	/* A swapped version says "the other byte order" (an s390x dump on
	 * x86_64): the rest is read swapped too, so this block size (4096)
	 * reads as 0x100000. */
	m.h.header_version = 0x06000000;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "mut.kdump: block size 1048576 is not a power of two");
	m.h.header_version = 6;

	m.h.block_size = 3000;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "mut.kdump: block size 3000 is not a power of two");
	m.h.block_size = 256;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "block size 256");
	m.h.block_size = 4096;

	m.h.sub_hdr_size = 0;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "sub header size 0 blocks");
	m.h.sub_hdr_size = 0x7fffffff;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "sub header at 0x1000+");
	m.h.sub_hdr_size = 1;

	m.h.bitmap_blocks = 0x100000;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "mut.kdump: bitmaps at 0x2000+0x100000000 past end of file");
	m.h.bitmap_blocks = 3;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "bitmap blocks 3 is not a positive even number");
	m.h.bitmap_blocks = 2;

	m.s.max_mapnr_64 = 0x8001;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "bitmaps of 0x1000 bytes are too small for max_mapnr 0x8001");
	m.s.max_mapnr_64 = 0;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "max_mapnr is 0");
	m.s.max_mapnr_64 = 0x1400;

	m.s.split = 1;
	m.s.start_pfn_64 = 0x100;
	m.s.end_pfn_64 = 0x200;
	EXPECT_OPEN(&m, MDF_ERR_NOTSUPP,
		    "mut.kdump: split dump (this part holds pfns 0x100-0x200): give all the parts of the set, or use --reassemble to merge them first");
	m.s.split = 0;

	m.s.size_note = 0x10000000;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "note copy at 0x1068+0x10000000 past end of file");
	m.s.size_note = good_len;  /* from 0x1068: one past */
	m.s.offset_note = 1;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "note copy at 0x1+");
	mut_reset_sub(&m);
	m.s.offset_vmcoreinfo = -5;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "VMCOREINFO at 0xfffffffffffffffb+");
	mut_reset_sub(&m);
	m.s.size_eraseinfo = 10;
	m.s.offset_eraseinfo = (int64_t)good_len - 9;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "eraseinfo at");
	m.s.offset_eraseinfo = (int64_t)good_len - 10;
	EXPECT_OPEN(&m, MDF_OK, NULL);
	mut_reset_sub(&m);
	m.h.nr_cpus = -1;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "nr_cpus -1");
	m.h.nr_cpus = 3;

	/* Truncated inside the descriptor area / inside the header. */
	m.len = 0x4000 + 24 * 5;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "page descriptors at 0x4000+");
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "past end of file (size 0x4078)");
	m.len = 300;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "file too small for a kdump header (size 0x12c, need 0x1d0)");
	m.len = 0;
	EXPECT_OPEN(&m, MDF_ERR_FORMAT, "not a kdump-compressed dump");
	free(m.img);

	/* Flattened: the real -F output, and a bare flattened header. */
	if (have_vm) {
		char cmd[4 * PATH_MAX];
		struct dd d;
		struct mdf_err err;
		enum mdf_status st;

		snprintf(cmd, sizeof(cmd), "'%s' -F -l -d 31 '%s' > '%s' 2>/dev/null",
			 mdf_bin, vm_path, tmp_path("flat"));
		T_ASSERT(run(cmd));
		st = dd_open(&d, tmp_path("flat"), CACHE_MMAP_TRY, &err);
		dd_close(&d);
		T_ASSERT(st == MDF_ERR_NOTSUPP);
		T_ASSERT(strstr(err.msg, "/flat: flattened format: rearrange it with makedumpfile -R first"));
	}
	memset(flat, 0, sizeof(flat));
	memcpy(flat, MDF_FLAT_SIGNATURE, strlen(MDF_FLAT_SIGNATURE));
	{
		struct dd d;
		struct mdf_err err;
		enum mdf_status st = open_img(&d, flat, sizeof(flat), &err);

		dd_close(&d);
		T_ASSERT(st == MDF_ERR_NOTSUPP);
		T_ASSERT(strstr(err.msg, "flattened format"));
	}
}

/* ---- hand-made dumps with small blocks ---- */

#define SMALL_B 512
#define SMALL_PFNS 20

static const char small_vmcoreinfo[] = "OSRELEASE=6.1.0-small\nPAGESIZE=512\n";

/* pfn 0 and 13 are holes, 7 is excluded, 4 and 9 are zero pages. */
static bool small_present(uint64_t pfn) { return pfn != 0 && pfn != 13; }
static bool small_dumpable(uint64_t pfn) { return small_present(pfn) && pfn != 7; }

static void small_page(uint64_t pfn, unsigned char *p)
{
	memset(p, 0, SMALL_B);
	if (pfn == 4 || pfn == 9)
		return;
	for (size_t i = 0; i < SMALL_B; i++)
		p[i] = (unsigned char)(i % 7 == 0 ? pfn * 11 + i / 64 : 'a' + i % 5);
}

/*
 * A kdump-compressed image with 512-byte blocks, written from scratch
 * (independently of kdump_write.c): dump level 1 with a shared zero
 * page, a note copy holding VMCOREINFO.  malloc()ed; NULL on failure.
 */
static unsigned char *small_image(enum mdf_codec codec, size_t *len)
{
	struct compressor comp = { 0 };
	struct mdf_err err;
	struct disk_dump_header h;
	struct kdump_sub_header sub;
	unsigned char notes[12 + 12 + sizeof(small_vmcoreinfo) + 3];
	size_t cap = 64 * 1024, nnotes, ndump = 0, data;
	unsigned char *img = calloc(1, cap), page[SMALL_B], cbuf[2 * SMALL_B];
	uint64_t off_desc, zero_off;
	size_t vsz = sizeof(small_vmcoreinfo) - 1;

	if (!img || compressor_init(&comp, codec, &err) != MDF_OK) {
		free(img);
		return NULL;
	}
	/* Note: namesz 11 "VMCOREINFO", type 0, the text. */
	memset(notes, 0, sizeof(notes));
	notes[0] = 11;
	notes[4] = (unsigned char)vsz;
	memcpy(notes + 12, "VMCOREINFO", 11);
	memcpy(notes + 24, small_vmcoreinfo, vsz);
	nnotes = 24 + align_up(vsz, 4);

	memset(&h, 0, sizeof(h));
	memcpy(h.signature, KDUMP_SIGNATURE, 8);
	h.header_version = 6;
	strcpy(h.utsname.sysname, "Linux");
	strcpy(h.utsname.release, "6.1.0-small");
	h.status = compressor_flag(&comp);
	h.block_size = SMALL_B;
	h.sub_hdr_size = 1;
	h.bitmap_blocks = 2;
	h.max_mapnr = SMALL_PFNS;
	h.nr_cpus = 1;
	memset(&sub, 0, sizeof(sub));
	sub.dump_level = 1;
	sub.offset_note = SMALL_B + sizeof(sub);
	sub.size_note = nnotes;
	sub.offset_vmcoreinfo = sub.offset_note + 24;
	sub.size_vmcoreinfo = vsz;
	sub.max_mapnr_64 = SMALL_PFNS;
	memcpy(img, &h, sizeof(h));
	memcpy(img + SMALL_B, &sub, sizeof(sub));
	memcpy(img + sub.offset_note, notes, nnotes);
	for (uint64_t pfn = 0; pfn < SMALL_PFNS; pfn++) {
		if (small_present(pfn))
			img[2 * SMALL_B + pfn / 8] |= (unsigned char)(1u << (pfn % 8));
		if (small_dumpable(pfn)) {
			img[3 * SMALL_B + pfn / 8] |= (unsigned char)(1u << (pfn % 8));
			ndump++;
		}
	}
	off_desc = 4 * SMALL_B;
	zero_off = off_desc + ndump * sizeof(struct page_desc);
	data = (size_t)zero_off + SMALL_B;  /* the zero page is all zeros */
	for (uint64_t pfn = 0, i = 0; pfn < SMALL_PFNS; pfn++) {
		struct page_desc pd;
		size_t clen = 0;

		if (!small_dumpable(pfn))
			continue;
		memset(&pd, 0, sizeof(pd));
		small_page(pfn, page);
		if (pfn == 4 || pfn == 9) {
			pd.offset = (int64_t)zero_off;
			pd.size = SMALL_B;
		} else {
			if (compressor_page(&comp, page, SMALL_B, cbuf, sizeof(cbuf),
					    &clen, &err) != MDF_OK)
				clen = SMALL_B;
			pd.offset = (int64_t)data;
			if (compressor_flag(&comp) && clen < SMALL_B) {
				pd.size = (uint32_t)clen;
				pd.flags = compressor_flag(&comp);
				memcpy(img + data, cbuf, clen);
			} else {
				pd.size = SMALL_B;
				memcpy(img + data, page, SMALL_B);
			}
			data += pd.size;
		}
		memcpy(img + off_desc + i++ * sizeof(pd), &pd, sizeof(pd));
	}
	compressor_release(&comp);
	*len = data;
	return img;
}

static void t_small_blocks(void)
{
	static const enum mdf_codec cs[] = { MDF_CODEC_LZO, MDF_CODEC_ZLIB,
					     MDF_CODEC_NONE, MDF_CODEC_ZSTD };

	for (size_t c = 0; c < ARRAY_SIZE(cs); c++) {
		struct dd d;
		struct mdf_err err;
		unsigned char *img, page[SMALL_B], want[3 * SMALL_B], got[3 * SMALL_B];
		size_t len;

		if (cs[c] != MDF_CODEC_NONE && !compress_available(cs[c]))
			continue;
		img = small_image(cs[c], &len);
		T_ASSERT(img);
		if (open_img(&d, img, len, &err) != MDF_OK) {
			free(img);
			T_OK(MDF_ERR_FORMAT, &err);
		}
		free(img);
		T_EQ_U64(d.di.block_size, SMALL_B);
		T_EQ_U64(d.di.block_shift, 9);
		T_EQ_U64(d.di.max_mapnr, SMALL_PFNS);
		T_EQ_U64(d.di.ndesc, SMALL_PFNS - 3);
		T_EQ_U64(d.di.dump_level, 1);
		T_EQ_STR(d.di.vmcoreinfo, small_vmcoreinfo);
		T_ASSERT(d.di.vmcoreinfo_in_notes);
		T_EQ_U64(d.di.vmcoreinfo_note_off, 24);
		T_EQ_STR(d.di.header.utsname.release, "6.1.0-small");
		for (uint64_t pfn = 0; pfn < SMALL_PFNS; pfn++) {
			enum mdf_status st = diskdump_read_page(&d.di, &d.cache, pfn, page, &err);

			T_EQ_U64(diskdump_present(&d.di, pfn), small_present(pfn));
			T_EQ_U64(diskdump_dumpable(&d.di, pfn), small_dumpable(pfn));
			if (!small_dumpable(pfn)) {
				T_ASSERT(st == MDF_ERR_NODATA);
				continue;
			}
			T_OK(st, &err);
			small_page(pfn, want);
			T_ASSERT(memcmp(page, want, SMALL_B) == 0);
		}
		/* Pages 2..4 from the middle of page 2. */
		for (int i = 0; i < 3; i++)
			small_page(2 + (uint64_t)i, want + i * SMALL_B);
		T_OK(diskdump_read_paddr(&d.di, &d.cache, 2 * SMALL_B + 100, got,
					 2 * SMALL_B + 50, &err), &err);
		T_ASSERT(memcmp(got, want + 100, 2 * SMALL_B + 50) == 0);
		T_ASSERT(diskdump_read_paddr(&d.di, &d.cache, 6 * SMALL_B + 10, got,
					     SMALL_B, &err) == MDF_ERR_NODATA);
		T_ASSERT(strstr(err.msg, "physical address 0xe00 is not in the dump (excluded)"));
		T_ASSERT(diskdump_read_paddr(&d.di, &d.cache, 13 * SMALL_B, got, 1, &err) ==
			 MDF_ERR_NODATA);
		T_ASSERT(strstr(err.msg, "physical address 0x1a00 is not in the dump (not present)"));
		dd_close(&d);
	}
}

/*
 * The headers of an i386 kernel's dump, as makedumpfile built for i386
 * lays them out (ILP32: 4-byte longs and timeval, 8-byte off_t and long
 * long 4-byte aligned), written here byte by byte: the reader must take
 * the layout from utsname.machine and find every field.
 */
static unsigned char *ilp32_image(size_t *len)
{
	unsigned char *img = small_image(MDF_CODEC_NONE, len);
	unsigned char *h = img, *s = img + SMALL_B;
	const uint32_t off_note = SMALL_B + 80;
	uint32_t size_note;

	if (!img)
		return NULL;
	size_note = (uint32_t)load_le64(s + 56);
	/* the note copy moves up to follow the 80-byte sub header */
	memmove(img + off_note, img + SMALL_B + 104, size_note);
	memset(h + 404, 0, 464 - 404);
	memset(s, 0, 80);
	strcpy((char *)h + 12 + 4 * 65, "i686");
	store_le32(h + 404, 1700000000u);  /* timestamp.tv_sec */
	store_le32(h + 408, 5);            /* tv_usec */
	store_le32(h + 412, 0);            /* status: raw pages */
	store_le32(h + 416, SMALL_B);      /* block_size */
	store_le32(h + 420, 1);            /* sub_hdr_size */
	store_le32(h + 424, 2);            /* bitmap_blocks */
	store_le32(h + 428, SMALL_PFNS);   /* max_mapnr */
	store_le32(h + 448, 2);            /* nr_cpus */
	store_le32(s + 0, 0x1000);         /* phys_base */
	store_le32(s + 4, 1);              /* dump_level */
	store_le32(s + 8, 0);              /* split */
	store_le64(s + 20, off_note + 24); /* offset_vmcoreinfo */
	store_le32(s + 28, sizeof(small_vmcoreinfo) - 1);
	store_le64(s + 32, off_note);      /* offset_note */
	store_le32(s + 40, size_note);
	store_le64(s + 72, SMALL_PFNS);    /* max_mapnr_64 */
	return img;
}

static void t_ilp32(void)
{
	struct dd d;
	struct mdf_err err;
	size_t len;
	unsigned char *img = ilp32_image(&len), page[SMALL_B], want[SMALL_B];

	T_ASSERT(img);
	if (!img)
		return;
	if (open_img(&d, img, len, &err) != MDF_OK) {
		free(img);
		T_OK(MDF_ERR_FORMAT, &err);
	}
	free(img);
	T_EQ_U64(d.di.abi, KDUMP_ABI_ILP32);
	T_ASSERT(!d.di.swapped);
	T_EQ_U64(d.di.block_size, SMALL_B);
	T_EQ_U64(d.di.max_mapnr, SMALL_PFNS);
	T_EQ_U64(d.di.nr_cpus, 2);
	T_EQ_U64(d.di.timestamp, 1700000000);
	T_EQ_U64(d.di.header.timestamp.tv_usec, 5);
	T_EQ_U64(d.di.phys_base, 0x1000);
	T_EQ_U64(d.di.dump_level, 1);
	T_EQ_U64(d.di.ndesc, SMALL_PFNS - 3);
	T_EQ_STR(d.di.vmcoreinfo, small_vmcoreinfo);
	T_EQ_STR(d.di.header.utsname.machine, "i686");
	T_OK(diskdump_read_page(&d.di, &d.cache, 5, page, &err), &err);
	small_page(5, want);
	T_ASSERT(memcmp(page, want, SMALL_B) == 0);
	dd_close(&d);
}

/*
 * The headers of a 32-bit arm kernel's dump, as makedumpfile built for
 * armhf lays them out (EABI32: as ILP32, but the sub header's 8-byte
 * members aligned to 8, 96 bytes), with its pfns counted from the page of
 * phys_base (PHYS_OFFSET): bit 0 of the bitmaps is pfn 0x200 here.
 */
#define EABI_PHYS_BASE 0x40000u     /* pfn 0x200 of 512-byte blocks */

static unsigned char *eabi32_image(size_t *len)
{
	unsigned char *img = ilp32_image(len);
	unsigned char *h = img, *s = img + SMALL_B;
	const uint32_t off_note = SMALL_B + 96;
	uint32_t size_note;

	if (!img)
		return NULL;
	size_note = load_le32(s + 40);
	memmove(img + off_note, img + SMALL_B + 80, size_note);
	memset(s, 0, 96);
	memset(h + 12 + 4 * 65, 0, 65);
	strcpy((char *)h + 12 + 4 * 65, "armv7l");
	store_le32(s + 0, EABI_PHYS_BASE); /* phys_base */
	store_le32(s + 4, 1);              /* dump_level */
	store_le64(s + 24, off_note + 24); /* offset_vmcoreinfo */
	store_le32(s + 32, sizeof(small_vmcoreinfo) - 1);
	store_le64(s + 40, off_note);      /* offset_note */
	store_le32(s + 48, size_note);
	store_le64(s + 88, SMALL_PFNS);    /* max_mapnr_64 */
	return img;
}

static void t_eabi32(void)
{
	const uint64_t base = EABI_PHYS_BASE / SMALL_B;
	struct dd d;
	struct mdf_err err;
	size_t len;
	unsigned char *img = eabi32_image(&len), page[SMALL_B], want[SMALL_B];

	T_ASSERT(img);
	if (!img)
		return;
	if (open_img(&d, img, len, &err) != MDF_OK) {
		free(img);
		T_OK(MDF_ERR_FORMAT, &err);
	}
	free(img);
	T_EQ_U64(d.di.abi, KDUMP_ABI_EABI32);
	T_EQ_U64(d.di.phys_base, EABI_PHYS_BASE);
	T_EQ_U64(d.di.pfn_base, base);
	T_EQ_U64(d.di.file_max_mapnr, SMALL_PFNS);
	T_EQ_U64(d.di.max_mapnr, base + SMALL_PFNS);
	T_EQ_U64(d.di.nr_cpus, 2);
	T_EQ_U64(d.di.dump_level, 1);
	T_EQ_U64(d.di.ndesc, SMALL_PFNS - 3);
	T_EQ_STR(d.di.vmcoreinfo, small_vmcoreinfo);
	/* the file's page 5 is the machine's pfn base + 5 */
	T_OK(diskdump_read_page(&d.di, &d.cache, base + 5, page, &err), &err);
	small_page(5, want);
	T_ASSERT(memcmp(page, want, SMALL_B) == 0);
	T_OK(diskdump_read_paddr(&d.di, &d.cache, (base + 5) * SMALL_B + 7, page, 9, &err), &err);
	T_ASSERT(memcmp(page, want + 7, 9) == 0);
	T_ASSERT(!diskdump_present(&d.di, 5));
	T_EQ_U64(diskdump_read_page(&d.di, &d.cache, 5, page, &err), MDF_ERR_NODATA);
	dd_close(&d);
}

/* Older header versions: later fields are ignored. */
static void t_old_versions(void)
{
	struct mut m;
	struct dd d;
	struct mdf_err err;
	unsigned char page[4096];

	if (!mut_start(&m)) {
		t_skip(tools_why);
		return;
	}
	/* Version 3: no note copy, VMCOREINFO read on its own;
	 * max_mapnr from the main header. */
	m.h.header_version = 3;
	m.s.max_mapnr_64 = 0x999999;
	m.s.size_note = 0x7777777;
	mut_commit(&m);
	if (open_img(&d, m.img, m.len, &err) != MDF_OK) {
		free(m.img);
		T_OK(MDF_ERR_FORMAT, &err);
	}
	T_EQ_U64(d.di.max_mapnr, 0x1400);
	T_ASSERT(d.di.notes == NULL && d.di.notes_len == 0);
	T_ASSERT(d.di.vmcoreinfo && !d.di.vmcoreinfo_in_notes);
	T_ASSERT(strncmp(d.di.vmcoreinfo, "OSRELEASE=", 10) == 0);
	T_EQ_U64(d.di.sub.max_mapnr_64, 0);
	T_EQ_U64(d.di.sub.size_note, 0);
	T_OK(diskdump_read_page(&d.di, &d.cache, 0x1100, page, &err), &err);
	dd_close(&d);
	/* Version 1: not even a split field; no VMCOREINFO. */
	m.h.header_version = 1;
	m.s.split = 1;
	mut_commit(&m);
	if (open_img(&d, m.img, m.len, &err) != MDF_OK) {
		free(m.img);
		T_OK(MDF_ERR_FORMAT, &err);
	}
	T_ASSERT(d.di.vmcoreinfo == NULL && !d.di.split);
	T_EQ_U64(d.di.dump_level, 31);
	dd_close(&d);
	free(m.img);
}

/* First descriptor with the given flags (or any when @flags is ~0). */
static bool find_desc(const struct diskdump_info *di, const unsigned char *img,
		      uint32_t flags, uint64_t *pfn, uint64_t *doff)
{
	for (uint64_t p = 0; p < di->max_mapnr; p++) {
		struct page_desc pd;
		uint64_t o;

		if (!diskdump_dumpable(di, p))
			continue;
		o = diskdump_desc_offset(di, p);
		get_desc(img, o, &pd);
		if (flags == ~0u ||
		    (pd.flags == flags && pd.size > 200 && pd.size < 4096)) {
			*pfn = p;
			*doff = o;
			return true;
		}
	}
	return false;
}

/* Modify the descriptor of @pfn (at @doff) and read the page. */
static bool desc_expect(struct mut *m, uint64_t pfn, uint64_t doff,
			const struct page_desc *pd, enum mdf_status want,
			const char *frag, char *why, size_t whylen)
{
	struct page_desc save;
	struct dd d;
	struct mdf_err err;
	unsigned char page[4096];
	enum mdf_status st;
	bool ok;

	memcpy(&save, m->img + doff, sizeof(save));
	put_desc(m->img, doff, pd);
	st = open_img(&d, m->img, m->len, &err);
	memcpy(m->img + doff, &save, sizeof(save));
	if (st == MDF_OK)
		st = diskdump_read_page(&d.di, &d.cache, pfn, page, &err);
	ok = st == want && (!frag || strstr(err.msg, frag));
	if (!ok)
		snprintf(why, whylen, "want %s \"%s\", got %s \"%s\"",
			 mdf_status_text(want), frag ? frag : "",
			 mdf_status_text(st), st ? err.msg : "");
	dd_close(&d);
	return ok;
}

#define EXPECT_DESC(pd, want, frag)                                          \
	do {                                                                 \
		char why_[1100];                                             \
		if (!desc_expect(&m, pfn, doff, pd, want, frag, why_, sizeof(why_))) { \
			free(m.img);                                         \
			t_fail(__FILE__, __LINE__, why_);                    \
			return;                                              \
		}                                                            \
	} while (0)

static void t_refuse_pages(void)
{
	struct mut m;
	struct dd d;
	struct mdf_err err;
	struct page_desc pd, orig;
	uint64_t pfn = 0, doff = 0, last = UINT64_MAX;
	char frag[300];
	unsigned char page[4096];

	if (!mut_start(&m)) {
		t_skip(tools_why);
		return;
	}
	T_OK(open_img(&d, m.img, m.len, &err), &err);
	if (!find_desc(&d.di, m.img, DUMP_DH_COMPRESSED_LZO, &pfn, &doff)) {
		dd_close(&d);
		free(m.img);
		T_ASSERT(!"dump has lzo-compressed descriptors");
	}
	/* The page whose data ends the file. */
	for (uint64_t p = 0; p < d.di.max_mapnr; p++) {
		if (diskdump_dumpable(&d.di, p)) {
			get_desc(m.img, diskdump_desc_offset(&d.di, p), &pd);
			if ((uint64_t)pd.offset + pd.size == m.len)
				last = p;
		}
	}
	dd_close(&d);
	T_ASSERT(last != UINT64_MAX);
	get_desc(m.img, doff, &orig);

	pd = orig;
	pd.size = 4097;
	snprintf(frag, sizeof(frag),
		 "mut.kdump: pfn 0x%llx: page descriptor at 0x%llx: data size 0x1001 larger than the block size 0x1000",
		 (unsigned long long)pfn, (unsigned long long)doff);
	EXPECT_DESC(&pd, MDF_ERR_FORMAT, frag);
	pd.size = 0;
	EXPECT_DESC(&pd, MDF_ERR_FORMAT, "data size 0");
	pd = orig;
	pd.offset = 0x9999999;
	snprintf(frag, sizeof(frag),
		 "mut.kdump: pfn 0x%llx: page descriptor at 0x%llx: data offset 0x9999999 + 0x%x past end of file (size 0x%zx)",
		 (unsigned long long)pfn, (unsigned long long)doff, orig.size, m.len);
	EXPECT_DESC(&pd, MDF_ERR_FORMAT, frag);
	pd.offset = (int64_t)m.len - pd.size + 1;
	EXPECT_DESC(&pd, MDF_ERR_FORMAT, "past end of file");
	pd.offset = 0x3000;
	EXPECT_DESC(&pd, MDF_ERR_FORMAT, "data offset 0x3000 before the data area");
	pd.offset = -1;
	EXPECT_DESC(&pd, MDF_ERR_FORMAT, "before the data area");
	pd.offset = 0;
	EXPECT_DESC(&pd, MDF_ERR_FORMAT, "data offset 0x0 before the data area");
	pd = orig;
	pd.flags = 0x40;
	EXPECT_DESC(&pd, MDF_ERR_FORMAT, "unknown flags 0x40");
	pd.flags = DUMP_DH_COMPRESSED_LZO | DUMP_DH_COMPRESSED_ZLIB;
	EXPECT_DESC(&pd, MDF_ERR_FORMAT, "unknown flags 0x3");
	pd.flags = 0;  /* raw, but short */
	EXPECT_DESC(&pd, MDF_ERR_FORMAT, "raw page of");
	pd.flags = DUMP_DH_COMPRESSED_ZLIB;  /* lzo data fed to zlib */
	snprintf(frag, sizeof(frag), "pfn 0x%llx: page descriptor at 0x%llx: data at 0x%llx+0x%x (zlib): zlib",
		 (unsigned long long)pfn, (unsigned long long)doff,
		 (unsigned long long)orig.offset, orig.size);
	EXPECT_DESC(&pd, MDF_ERR_FORMAT, frag);

	/* Corrupted compressed data: flip bytes inside the page's data. */
	for (uint32_t i = 0; i < orig.size; i += 3)
		m.img[orig.offset + i] ^= 0xa5;
	snprintf(frag, sizeof(frag), "mut.kdump: pfn 0x%llx: page descriptor at 0x%llx: data at 0x%llx+0x%x (lzo): lzo",
		 (unsigned long long)pfn, (unsigned long long)doff,
		 (unsigned long long)orig.offset, orig.size);
	EXPECT_DESC(&orig, MDF_ERR_FORMAT, frag);
	memcpy(m.img + orig.offset, good_img + orig.offset, orig.size);

	/* Truncated inside the page data: the last page fails. */
	m.len = good_len - 100;
	T_OK(open_img(&d, m.img, m.len, &err), &err);
	T_ASSERT(diskdump_read_page(&d.di, &d.cache, last, page, &err) == MDF_ERR_FORMAT);
	dd_close(&d);
	free(m.img);
	snprintf(frag, sizeof(frag), "mut.kdump: pfn 0x%llx: page descriptor at 0x",
		 (unsigned long long)last);
	T_ASSERT(strstr(err.msg, frag));
	snprintf(frag, sizeof(frag), "past end of file (size 0x%zx)", good_len - 100);
	T_ASSERT(strstr(err.msg, frag));
}

/* DUMP_DH_COMPRESSED_INCOMPLETE: lost pages read as NODATA. */
static void t_incomplete(void)
{
	struct mut m;
	struct dd d;
	struct mdf_err err;
	struct page_desc zero;
	uint64_t pfn = 0, doff = 0;
	unsigned char page[4096];

	if (!mut_start(&m)) {
		t_skip(tools_why);
		return;
	}
	m.h.status |= DUMP_DH_COMPRESSED_INCOMPLETE;
	mut_commit(&m);
	T_OK(open_img(&d, m.img, m.len, &err), &err);
	T_ASSERT(d.di.incomplete);
	T_ASSERT(find_desc(&d.di, m.img, ~0u, &pfn, &doff));
	dd_close(&d);
	memset(&zero, 0, sizeof(zero));
	put_desc(m.img, doff, &zero);
	T_OK(open_img(&d, m.img, m.len, &err), &err);
	T_ASSERT(diskdump_read_page(&d.di, &d.cache, pfn, page, &err) == MDF_ERR_NODATA);
	T_ASSERT(strstr(err.msg, "page lost (the dump is incomplete)"));
	T_ASSERT(strstr(err.msg, "page descriptor at 0x"));
	dd_close(&d);
	/* Cut inside the descriptors: opens, the pages past the cut are lost. */
	m.len = (size_t)doff + 24 * 3 + 5;
	T_OK(open_img(&d, m.img, m.len, &err), &err);
	{
		uint64_t p = pfn + 1, n = 0;

		for (; p < d.di.max_mapnr && n < 4; p++) {
			if (!diskdump_dumpable(&d.di, p))
				continue;
			n++;
			if (n == 4)
				break;
		}
		T_ASSERT(diskdump_read_page(&d.di, &d.cache, p, page, &err) == MDF_ERR_NODATA);
		T_ASSERT(strstr(err.msg, "past end of file"));
		T_ASSERT(strstr(err.msg, "page lost"));
	}
	dd_close(&d);
	free(m.img);
}

/* A real incomplete dump: -L stops the writer. */
static void t_incomplete_real(void)
{
	struct dd d;
	struct mdf_err err;
	unsigned char page[4096];
	const char *kd = tmp_path("limited.kdump");
	uint64_t ok = 0, lost = 0, ndesc;

	if (!have_tools || !have_vm) {
		t_skip(tools_why);
		return;
	}
	(void)mdf_dump(mdf_bin, "-l -d 31 -L 90K", vm_path, kd);
	T_OK(dd_open(&d, kd, CACHE_MMAP_TRY, &err), &err);
	T_ASSERT(d.di.incomplete);
	for (uint64_t p = 0; p < d.di.max_mapnr; p++) {
		enum mdf_status st;

		if (!diskdump_dumpable(&d.di, p))
			continue;
		st = diskdump_read_page(&d.di, &d.cache, p, page, &err);
		if (st == MDF_OK)
			ok++;
		else if (st == MDF_ERR_NODATA && strstr(err.msg, "page lost"))
			lost++;
		else
			break;
	}
	ndesc = d.di.ndesc;
	dd_close(&d);
	T_ASSERT(ok > 0);
	T_ASSERT(lost > 0);
	T_EQ_U64(ok + lost, ndesc);
}

/* Upstream makedumpfile's -l and -c output of the real fixture. */
static void t_upstream_files(void)
{
	const char *up = "/usr/bin/makedumpfile";
	struct realvm rv;
	const char *elf;
	static const char *const opts[] = { "-l -d 31", "-c -d 31" };
	struct mdf_err err;
	struct elf e;

	if (access(up, X_OK) != 0) {
		t_skip("no /usr/bin/makedumpfile");
		return;
	}
	if (!realvm_find_or_skip(&rv, "fx-v61-512m"))
		return;
	elf = rv.path;
	if (!tmpdir[0]) {
		t_skip("no temporary directory");
		return;
	}
	T_OK(elf_open(&e, elf, &err), &err);
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		const char *kd = tmp_path("upstream.kdump");
		struct dd d;
		uint64_t stored = 0;
		char why[1100] = "";
		bool ok;

		if (!mdf_dump(up, opts[i], elf, kd)) {
			elf_close(&e);
			T_ASSERT(!"upstream makedumpfile ran");
		}
		if (dd_open(&d, kd, i ? CACHE_MMAP_NEVER : CACHE_MMAP_TRY, &err) != MDF_OK) {
			dd_close(&d);
			elf_close(&e);
			T_OK(MDF_ERR_FORMAT, &err);
		}
		ok = compare_with_elf(&d, &e, &stored, why, sizeof(why));
		if (ok && (stored != d.di.ndesc || stored < 1000 ||
			   d.di.dump_level != 31 || d.di.nr_cpus != e.ei.nr_cpus ||
			   d.di.vmcoreinfo_len != e.ei.vmcoreinfo_len ||
			   memcmp(d.di.vmcoreinfo, e.ei.vmcoreinfo, e.ei.vmcoreinfo_len) ||
			   d.di.max_mapnr != div_round_up(elf_info_max_paddr(&e.ei), 4096))) {
			snprintf(why, sizeof(why), "%s: header fields differ", opts[i]);
			ok = false;
		}
		dd_close(&d);
		unlink(kd);
		if (!ok) {
			elf_close(&e);
			t_fail(__FILE__, __LINE__, why);
			return;
		}
	}
	elf_close(&e);
}

/*
 * A part of a split set, opened alone with DISKDUMP_OPEN_SPLIT: the pages
 * of its own range read (its descriptors start at off_desc, with the rank
 * of its start_pfn), the stored pages of the other parts "in another part
 * of the split set", every page equal to the ELF vmcore's.
 */
static void t_split_part(void)
{
	char cmd[4 * PATH_MAX];
	struct elf e;
	struct mdf_err err;
	unsigned char *a, *b;
	uint64_t ours[2] = { 0, 0 };

	if (!have_tools || !have_vm) {
		t_skip(tools_why);
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' -l -d 1 --split '%s' '%s' '%s' >/dev/null 2>&1",
		 mdf_bin, vm_path, tmp_path("part1"), tmp_path("part2"));
	T_ASSERT(run(cmd));
	T_OK(elf_open(&e, vm_path, &err), &err);
	a = malloc(4096);
	b = malloc(4096);
	for (int k = 0; k < 2 && a && b; k++) {
		const char *name = tmp_path(k ? "part2" : "part1");
		struct cache_config cfg = { .nentries = 6, .policy = CACHE_MMAP_NEVER };
		struct dd d;

		memset(&d, 0, sizeof(d));
		d.fd = open(name, O_RDONLY);
		T_ASSERT(d.fd >= 0);
		T_OK(cache_init(&d.cache, d.fd, name, &cfg, &err), &err);
		d.have_cache = true;
		T_OK(diskdump_open_flags(&d.di, d.fd, name, &d.cache, DISKDUMP_OPEN_SPLIT, &err),
		     &err);
		d.open = true;
		T_ASSERT(d.di.split);
		T_EQ_U64(d.di.split_start_pfn == 0, k == 0);
		T_EQ_U64(d.di.split_end_pfn == d.di.max_mapnr, k == 1);
		T_EQ_U64(diskdump_desc_offset(&d.di, d.di.split_start_pfn), d.di.off_desc);
		for (uint64_t pfn = 0; pfn < d.di.max_mapnr; pfn++) {
			bool mine = pfn >= d.di.split_start_pfn && pfn < d.di.split_end_pfn;
			enum mdf_status st;

			if (!diskdump_dumpable(&d.di, pfn))
				continue;
			st = diskdump_read_page(&d.di, &d.cache, pfn, a, &err);
			if (!mine) {
				if (st != MDF_ERR_NODATA ||
				    !strstr(err.msg, "(in another part of the split set)")) {
					T_EQ_STR(err.msg, "pfn ... is not in the dump (in another part of the split set)");
					break;
				}
				continue;
			}
			if (st != MDF_OK) {
				T_OK(st, &err);
				break;
			}
			T_OK(elf_info_read_paddr(&e.ei, &e.cache, pfn * 4096, b, 4096, &err), &err);
			if (memcmp(a, b, 4096) != 0) {
				T_ASSERT(!"a page of the part differs from the ELF vmcore's");
				break;
			}
			ours[k]++;
		}
		dd_close(&d);
	}
	T_ASSERT(ours[0] > 0 && ours[1] > 0);
	free(a);
	free(b);
	elf_close(&e);
}

static void t_not_regular(void)
{
	struct dd d;
	struct mdf_err err;
	enum mdf_status st = dd_open(&d, "/dev/null", CACHE_MMAP_NEVER, &err);

	dd_close(&d);
	T_ASSERT(st == MDF_ERR_ARG);
	T_ASSERT(strstr(err.msg, "/dev/null: a kdump-compressed input must be a regular file"));
}

/* ---- the fuzz seed corpus (MDF_KDUMP_CORPUS=dir) ---- */

static const char corpus_spec[] =
	"kernel none\n"
	"cpus 2\n"
	"text 0x4000 nophdr\n"
	"phys_base -0xff8000\n"
	"ram 0x1000 +0xb000\n"
	"fill 0x1+1 text 3\n"
	"fill 0x3+1 byte 0x5a\n";

static bool corpus_file(const char *dir, const char *name,
			const unsigned char *img, size_t len)
{
	char out[PATH_MAX + 64];

	snprintf(out, sizeof(out), "%s/%s", dir, name);
	return write_file(out, img, len);
}

static void t_write_corpus(void)
{
	const char *dir = getenv("MDF_KDUMP_CORPUS");
	const char *vm = tmp_path("corpus.elf");
	char out[PATH_MAX + 64];
	unsigned char *img;
	size_t len;
	struct disk_dump_header h;
	struct kdump_sub_header sub;

	if (!dir) {
		t_skip("set MDF_KDUMP_CORPUS=DIR to write the fuzz corpus");
		return;
	}
	/* Our writer's output for a 48 KiB machine (16 KiB of frame). */
	T_ASSERT(have_tools);
	T_ASSERT(gen_vmcore(corpus_spec, vm, NULL));
	snprintf(out, sizeof(out), "%s/mdf-lzo-d0.kdump", dir);
	T_ASSERT(mdf_dump(mdf_bin, "-l -d 0", vm, out));
	snprintf(out, sizeof(out), "%s/mdf-zlib-d1.kdump", dir);
	T_ASSERT(mdf_dump(mdf_bin, "-c -d 1", vm, out));
	/* Hand-made 512-byte blocks: good ones and broken variants. */
	img = ilp32_image(&len);
	T_ASSERT(img);
	T_ASSERT(corpus_file(dir, "small-ilp32.kdump", img, len));
	free(img);
	img = eabi32_image(&len);
	T_ASSERT(img);
	T_ASSERT(corpus_file(dir, "small-eabi32.kdump", img, len));
	free(img);
	img = small_image(MDF_CODEC_LZO, &len);
	T_ASSERT(img);
	T_ASSERT(corpus_file(dir, "small-lzo.kdump", img, len));
	memcpy(&h, img, sizeof(h));
	memcpy(&sub, img + SMALL_B, sizeof(sub));
	h.status |= DUMP_DH_COMPRESSED_INCOMPLETE;
	memcpy(img, &h, sizeof(h));
	memset(img + 4 * SMALL_B + 2 * sizeof(struct page_desc), 0,
	       sizeof(struct page_desc));
	T_ASSERT(corpus_file(dir, "small-incomplete-cut.kdump", img,
			     4 * SMALL_B + 5 * sizeof(struct page_desc) + 7));
	h.status &= ~(uint32_t)DUMP_DH_COMPRESSED_INCOMPLETE;
	h.header_version = 3;
	memcpy(img, &h, sizeof(h));
	T_ASSERT(corpus_file(dir, "small-v3-truncated.kdump", img, len - 40));
	free(img);
	img = small_image(MDF_CODEC_ZLIB, &len);
	T_ASSERT(img);
	T_ASSERT(corpus_file(dir, "small-zlib.kdump", img, len));
	free(img);
	if (compress_available(MDF_CODEC_ZSTD)) {
		img = small_image(MDF_CODEC_ZSTD, &len);
		T_ASSERT(img);
		T_ASSERT(corpus_file(dir, "small-zstd.kdump", img, len));
		free(img);
	}
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], *slash;

	(void)argc;
	if (realpath(argv[0], self) && (slash = strrchr(self, '/'))) {
		*slash = '\0'; /* build/<flavour>/tests/unit */
		snprintf(mdf_bin, sizeof(mdf_bin), "%s/../../makedumpfile", self);
		snprintf(gen_bin, sizeof(gen_bin), "%s/../gen/mkvmcore", self);
		have_tools = access(mdf_bin, X_OK) == 0 && access(gen_bin, X_OK) == 0;
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/mdf-ddread.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		tmpdir[0] = '\0';
		have_tools = false;
		tools_why = "cannot make a temporary directory";
	}
	snprintf(vm_path, sizeof(vm_path), "%s/main.elf", tmpdir);
	if (have_tools) {
		have_vm = gen_vmcore(main_spec, vm_path, tmp_path("ref"));
		if (!have_vm) {
			have_tools = false;
			tools_why = "mkvmcore failed on the test spec";
		}
	}

	T_RUN(t_probe);
	T_RUN(t_not_regular);
	T_RUN(t_every_codec);
	T_RUN(t_header_fields);
	T_RUN(t_read_paddr);
	T_RUN(t_refuse_open);
	T_RUN(t_small_blocks);
	T_RUN(t_ilp32);
	T_RUN(t_eabi32);
	T_RUN(t_old_versions);
	T_RUN(t_refuse_pages);
	T_RUN(t_incomplete);
	T_RUN(t_incomplete_real);
	T_RUN(t_split_part);
	T_RUN(t_upstream_files);
	T_RUN(t_write_corpus);

	free(good_img);
	if (tmpdir[0]) {
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", tmpdir);
	}
	return t_done();
}
