/*
 * tests/unit/test_elf_info.c - ELF vmcore input.
 *
 * Builds small ELF cores in memory with the tiny writer below (ELF64 and
 * ELF32, both byte orders), puts them in memfds and opens them.
 *
 * The seed corpus of the fuzz target (tests/fuzz/corpus/elf/) is written
 * by this test:
 *
 *   MDF_ELF_CORPUS=tests/fuzz/corpus/elf build/default/tests/unit/test_elf_info
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "tap.h"
#include "realvm.h"
#include "util.h"

#define PT_LOAD_ 1u
#define PT_NOTE_ 4u
#define ET_CORE_ 4u
#define ET_EXEC_ 2u
#define EM_X86_64_ 62u
#define EM_PPC_ 20u
#define CLS32 1
#define CLS64 2
#define LSB 1
#define MSB 2

#define TPATH "test.core"

/* ---- a tiny ELF core writer ---- */

struct tph {
	uint32_t type;
	uint64_t offset, vaddr, paddr, filesz, memsz;
};

struct tcore {
	int cls, data;
	uint16_t etype, machine;
	uint32_t flags;
	uint64_t phoff;          /* 0: right after the ELF header */
	unsigned nph;
	struct tph ph[8];
};

static void put(unsigned char *p, int data, unsigned bytes, uint64_t v)
{
	for (unsigned i = 0; i < bytes; i++) {
		unsigned sh = data == LSB ? i : bytes - 1 - i;
		p[i] = (unsigned char)(v >> (8 * sh));
	}
}

static size_t ehdr_size(int cls)
{
	return cls == CLS64 ? 64 : 52;
}

static size_t phdr_size(int cls)
{
	return cls == CLS64 ? 56 : 32;
}

/* Write the ELF header and program headers of @c into @img. */
static void core_headers(const struct tcore *c, unsigned char *img)
{
	int d = c->data;
	size_t eh = ehdr_size(c->cls), pe = phdr_size(c->cls);
	uint64_t phoff = c->phoff ? c->phoff : eh;

	memset(img, 0, eh);
	memcpy(img, "\177ELF", 4);
	img[4] = (unsigned char)c->cls;
	img[5] = (unsigned char)d;
	img[6] = 1; /* EV_CURRENT */
	put(img + 16, d, 2, c->etype);
	put(img + 18, d, 2, c->machine);
	put(img + 20, d, 4, 1);
	if (c->cls == CLS64) {
		put(img + 32, d, 8, phoff);
		put(img + 48, d, 4, c->flags);
		put(img + 52, d, 2, eh);
		put(img + 54, d, 2, pe);
		put(img + 56, d, 2, c->nph);
	} else {
		put(img + 28, d, 4, phoff);
		put(img + 36, d, 4, c->flags);
		put(img + 40, d, 2, eh);
		put(img + 42, d, 2, pe);
		put(img + 44, d, 2, c->nph);
	}
	if (c->phoff)
		return; /* deliberately elsewhere (maybe past the end) */
	for (unsigned i = 0; i < c->nph; i++) {
		unsigned char *p = img + phoff + i * pe;
		const struct tph *h = &c->ph[i];

		if (c->cls == CLS64) {
			put(p, d, 4, h->type);
			put(p + 4, d, 4, 7);
			put(p + 8, d, 8, h->offset);
			put(p + 16, d, 8, h->vaddr);
			put(p + 24, d, 8, h->paddr);
			put(p + 32, d, 8, h->filesz);
			put(p + 40, d, 8, h->memsz);
			put(p + 48, d, 8, 0);
		} else {
			put(p, d, 4, h->type);
			put(p + 4, d, 4, h->offset);
			put(p + 8, d, 4, h->vaddr);
			put(p + 12, d, 4, h->paddr);
			put(p + 16, d, 4, h->filesz);
			put(p + 20, d, 4, h->memsz);
			put(p + 24, d, 4, 7);
			put(p + 28, d, 4, 0);
		}
	}
}

struct tnotes {
	unsigned char buf[2048];
	size_t len;
};

static void note_add(struct tnotes *n, int data, const char *name,
		     uint32_t type, const void *desc, uint32_t descsz)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;

	put(n->buf + n->len, data, 4, namesz);
	put(n->buf + n->len + 4, data, 4, descsz);
	put(n->buf + n->len + 8, data, 4, type);
	n->len += 12;
	memset(n->buf + n->len, 0, align_up(namesz, 4));
	memcpy(n->buf + n->len, name, namesz);
	n->len += align_up(namesz, 4);
	memset(n->buf + n->len, 0, align_up(descsz, 4));
	if (desc)
		memcpy(n->buf + n->len, desc, descsz);
	n->len += align_up(descsz, 4);
}

/* A recognisable byte for each file offset. */
static unsigned char pat(uint64_t off)
{
	return (unsigned char)(off * 7 + (off >> 8) + 1);
}

static void fill_pat(unsigned char *img, uint64_t from, uint64_t to)
{
	for (uint64_t o = from; o < to; o++)
		img[o] = pat(o);
}

static int memfd_with(const void *img, size_t len)
{
	int fd = memfd_create("test_elf_info", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (len && pwrite(fd, img, len, 0) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return fd;
}

static void corpus_save(const char *name, const void *img, size_t len)
{
	const char *dir = getenv("MDF_ELF_CORPUS");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(img, 1, len, f);
	fclose(f);
}

static const char vmci_text[] = "OSRELEASE=6.1.0-test\nPAGESIZE=4096\n";

/*
 * The standard small core (0xe00 bytes):
 *   ph0 PT_NOTE  at 0x180: CORE/PRSTATUS x2, LINUX/0x200, VMCOREINFO
 *   ph1 PT_LOAD  paddr 0x100000 offset 0x800 filesz 0x400 memsz 0x400
 *   ph2 PT_LOAD  paddr 0x100400 offset 0xc00 filesz 0x200 memsz 0x800
 */
#define STD_SIZE 0xe00u
#define STD_NOTE_OFF 0x180u

struct std_core {
	unsigned char img[STD_SIZE];
	struct tcore c;
	struct tnotes n;
	size_t vmci_desc; /* offset of the VMCOREINFO descriptor in notes */
};

static void std_core(struct std_core *s, int cls, int data)
{
	unsigned char prs[0x50];
	char vmci[sizeof(vmci_text) + 3];

	memset(s, 0, sizeof(*s));
	memset(prs, 0xab, sizeof(prs));
	memset(vmci, 0, sizeof(vmci));
	memcpy(vmci, vmci_text, sizeof(vmci_text) - 1); /* + 4 NULs */
	note_add(&s->n, data, "CORE", 1, prs, sizeof(prs));
	note_add(&s->n, data, "CORE", 1, prs, sizeof(prs));
	note_add(&s->n, data, "LINUX", 0x200, prs, 8);
	s->vmci_desc = s->n.len + 12 + 12;
	note_add(&s->n, data, "VMCOREINFO", 0, vmci, sizeof(vmci));

	s->c.cls = cls;
	s->c.data = data;
	s->c.etype = ET_CORE_;
	s->c.machine = cls == CLS64 ? EM_X86_64_ : EM_PPC_;
	s->c.flags = 0x5;
	s->c.nph = 3;
	s->c.ph[0] = (struct tph){ PT_NOTE_, STD_NOTE_OFF, 0, 0, s->n.len, s->n.len };
	s->c.ph[1] = (struct tph){ PT_LOAD_, 0x800, 0xc0100000, 0x100000, 0x400, 0x400 };
	s->c.ph[2] = (struct tph){ PT_LOAD_, 0xc00, 0xc0100400, 0x100400, 0x200, 0x800 };
	fill_pat(s->img, 0x800, STD_SIZE);
	memcpy(s->img + STD_NOTE_OFF, s->n.buf, s->n.len);
	core_headers(&s->c, s->img);
}

static int std_open(struct elf_info *ei, const struct std_core *s,
		    size_t len, struct mdf_err *err, enum mdf_status *st)
{
	int fd = memfd_with(s->img, len);

	if (fd < 0)
		return -1;
	*st = elf_info_open(ei, fd, TPATH, err);
	return fd;
}

/* ---- parsing ---- */

static void check_format(int cls, int data, const char *corpus_name)
{
	struct std_core s;
	struct elf_info ei;
	struct mdf_err err;
	enum mdf_status st;
	int fd;

	std_core(&s, cls, data);
	corpus_save(corpus_name, s.img, sizeof(s.img));
	fd = std_open(&ei, &s, sizeof(s.img), &err, &st);
	T_ASSERT(fd >= 0);
	if (st != MDF_OK) {
		t_fail(__FILE__, __LINE__, err.msg);
		close(fd);
		return;
	}
	T_EQ_U64(ei.ei_class, cls);
	T_EQ_U64(ei.ei_data, data);
	T_EQ_U64(ei.e_machine, cls == CLS64 ? EM_X86_64_ : EM_PPC_);
	T_EQ_U64(ei.e_flags, 5);
	T_ASSERT(ei.size_known);
	T_EQ_U64(ei.file_size, STD_SIZE);
	T_EQ_U64(ei.nloads, 2);
	T_EQ_U64(ei.loads[0].phdr_index, 1);
	T_EQ_U64(ei.loads[0].paddr, 0x100000);
	T_EQ_U64(ei.loads[0].vaddr, 0xc0100000);
	T_EQ_U64(ei.loads[0].offset, 0x800);
	T_EQ_U64(ei.loads[0].filesz, 0x400);
	T_EQ_U64(ei.loads[0].memsz, 0x400);
	T_EQ_U64(ei.loads[1].phdr_index, 2);
	T_EQ_U64(ei.loads[1].paddr, 0x100400);
	T_EQ_U64(ei.loads[1].offset, 0xc00);
	T_EQ_U64(ei.loads[1].filesz, 0x200);
	T_EQ_U64(ei.loads[1].memsz, 0x800);
	T_EQ_U64(ei.nranges, 2);
	T_EQ_U64(ei.ranges[0].pstart, 0x100000);
	T_EQ_U64(ei.ranges[0].pend, 0x100400);
	T_ASSERT(ei.ranges[0].load == &ei.loads[0]);
	T_EQ_U64(ei.ranges[1].pstart, 0x100400);
	T_EQ_U64(ei.ranges[1].pend, 0x100c00);
	T_EQ_U64(elf_info_max_paddr(&ei), 0x100c00);
	T_EQ_U64(ei.notes_len, s.n.len);
	T_ASSERT(memcmp(ei.notes, s.n.buf, s.n.len) == 0);
	T_EQ_U64(ei.nr_cpus, 2);
	T_ASSERT(ei.vmcoreinfo != NULL);
	T_EQ_U64(ei.vmcoreinfo_off, s.vmci_desc);
	T_ASSERT(ei.vmcoreinfo == (const char *)ei.notes + s.vmci_desc);
	T_EQ_U64(ei.vmcoreinfo_len, strlen(vmci_text));
	T_ASSERT(memcmp(ei.vmcoreinfo, vmci_text, strlen(vmci_text)) == 0);
	T_ASSERT(ei.host_page_size == (size_t)sysconf(_SC_PAGESIZE));
	elf_info_close(&ei);
	close(fd);
}

static void t_elf64_le(void) { check_format(CLS64, LSB, "std64le.core"); }
static void t_elf64_be(void) { check_format(CLS64, MSB, "std64be.core"); }
static void t_elf32_le(void) { check_format(CLS32, LSB, "std32le.core"); }
static void t_elf32_be(void) { check_format(CLS32, MSB, "std32be.core"); }

static void t_close_twice(void)
{
	struct elf_info ei;

	memset(&ei, 0, sizeof(ei));
	elf_info_close(&ei);
	elf_info_close(&ei);
	T_ASSERT(ei.loads == NULL && ei.elf == NULL);
}

/* Notes in two PT_NOTE segments are concatenated in phdr order. */
static void t_two_note_segments(void)
{
	struct std_core s;
	struct elf_info ei;
	struct mdf_err err;
	enum mdf_status st;
	size_t split = 2 * (12 + 8 + 0x50); /* the two PRSTATUS notes */
	int fd;

	std_core(&s, CLS64, LSB);
	/* phdr 3 = first two notes (placed at 0x600), phdr 0 = the rest. */
	s.c.nph = 4;
	s.c.ph[3] = s.c.ph[0];
	s.c.ph[3].offset = 0x600;
	s.c.ph[3].filesz = s.c.ph[3].memsz = split;
	memcpy(s.img + 0x600, s.n.buf, split);
	s.c.ph[0].offset = STD_NOTE_OFF + split;
	s.c.ph[0].filesz = s.c.ph[0].memsz = s.n.len - split;
	core_headers(&s.c, s.img);
	fd = std_open(&ei, &s, sizeof(s.img), &err, &st);
	T_ASSERT(fd >= 0);
	T_OK(st, &err);
	T_EQ_U64(ei.notes_len, s.n.len);
	T_EQ_U64(ei.nr_cpus, 2);
	T_ASSERT(memcmp(ei.notes, s.n.buf + split, s.n.len - split) == 0);
	T_ASSERT(memcmp(ei.notes + s.n.len - split, s.n.buf, split) == 0);
	T_EQ_U64(ei.vmcoreinfo_off, s.vmci_desc - split);
	T_EQ_U64(ei.vmcoreinfo_len, strlen(vmci_text));
	corpus_save("twonotes.core", s.img, sizeof(s.img));
	elf_info_close(&ei);
	close(fd);
}

/* ---- aliasing and locate ---- */

/*
 * phdr 1: "kernel text" 0x14a00000+0x3000 inside phdr 3's RAM
 * phdr 2: 0x100000+0x2000, phdr 4: 0x100000+0x4000 (tie: phdr 2 wins)
 * phdr 3: RAM 0x14000000+0x1000000 (filesz 0x400: zero tail)
 * phdr 5: 0x14fff000+0x2000 sticks out of the RAM segment
 * phdr 6: zero-sized, ignored
 */
static void alias_core(unsigned char *img, size_t size, struct tcore *c)
{
	memset(img, 0, size);
	memset(c, 0, sizeof(*c));
	c->cls = CLS64;
	c->data = LSB;
	c->etype = ET_CORE_;
	c->machine = EM_X86_64_;
	c->nph = 7;
	c->ph[0] = (struct tph){ PT_NOTE_, 0x200, 0, 0, 0, 0 };
	c->ph[1] = (struct tph){ PT_LOAD_, 0x400, 0, 0x14a00000, 0x100, 0x3000 };
	c->ph[2] = (struct tph){ PT_LOAD_, 0x500, 0, 0x100000, 0x100, 0x2000 };
	c->ph[3] = (struct tph){ PT_LOAD_, 0x600, 0, 0x14000000, 0x400, 0x1000000 };
	c->ph[4] = (struct tph){ PT_LOAD_, 0xa00, 0, 0x100000, 0x300, 0x4000 };
	c->ph[5] = (struct tph){ PT_LOAD_, 0xd00, 0, 0x14fff000, 0x100, 0x2000 };
	c->ph[6] = (struct tph){ PT_LOAD_, 0, 0, 0x500000, 0, 0 };
	{
		struct tnotes n;

		memset(&n, 0, sizeof(n));
		note_add(&n, LSB, "VMCOREINFO", 0, "A=1\n", 4);
		c->ph[0].filesz = c->ph[0].memsz = n.len;
		memcpy(img + 0x200, n.buf, n.len);
	}
	fill_pat(img, 0x400, size);
	core_headers(c, img);
}

static void t_alias(void)
{
	unsigned char img[0xe00];
	struct tcore c;
	struct elf_info ei;
	struct elf_loc loc;
	struct mdf_err err;
	int fd;

	alias_core(img, sizeof(img), &c);
	corpus_save("alias.core", img, sizeof(img));
	fd = memfd_with(img, sizeof(img));
	T_ASSERT(fd >= 0);
	T_OK(elf_info_open(&ei, fd, TPATH, &err), &err);
	T_EQ_U64(ei.nloads, 6);
	T_EQ_U64(ei.nr_cpus, 0);
	T_EQ_U64(ei.nranges, 4);
	T_EQ_U64(ei.ranges[0].pstart, 0x100000);
	T_EQ_U64(ei.ranges[0].pend, 0x102000);
	T_EQ_U64(ei.ranges[0].load->phdr_index, 2);
	T_EQ_U64(ei.ranges[1].pstart, 0x102000);
	T_EQ_U64(ei.ranges[1].pend, 0x104000);
	T_EQ_U64(ei.ranges[1].load->phdr_index, 4);
	T_EQ_U64(ei.ranges[2].pstart, 0x14000000);
	T_EQ_U64(ei.ranges[2].pend, 0x15000000);
	T_EQ_U64(ei.ranges[2].load->phdr_index, 3);
	T_EQ_U64(ei.ranges[3].pstart, 0x15000000);
	T_EQ_U64(ei.ranges[3].pend, 0x15001000);
	T_EQ_U64(ei.ranges[3].load->phdr_index, 5);
	T_EQ_U64(elf_info_max_paddr(&ei), 0x15001000);

	/* Holes. */
	T_EQ_U64(elf_info_locate(&ei, 0, &loc), MDF_ERR_NODATA);
	T_EQ_U64(elf_info_locate(&ei, 0xfffff, &loc), MDF_ERR_NODATA);
	T_EQ_U64(elf_info_locate(&ei, 0x104000, &loc), MDF_ERR_NODATA);
	T_EQ_U64(elf_info_locate(&ei, 0x500000, &loc), MDF_ERR_NODATA);
	T_EQ_U64(elf_info_locate(&ei, 0x15001000, &loc), MDF_ERR_NODATA);
	T_EQ_U64(elf_info_locate(&ei, UINT64_MAX, &loc), MDF_ERR_NODATA);

	/* In file, owned by phdr 2. */
	T_EQ_U64(elf_info_locate(&ei, 0x100010, &loc), MDF_OK);
	T_ASSERT(loc.in_file);
	T_EQ_U64(loc.off, 0x510);
	T_EQ_U64(loc.avail, 0xf0);
	T_ASSERT(!loc.span.mappable);
	T_EQ_U64(loc.span.start, 0x500);
	T_EQ_U64(loc.span.end, 0x600);
	/* Past p_filesz of phdr 2: zeros to the end of its range. */
	T_EQ_U64(elf_info_locate(&ei, 0x100100, &loc), MDF_OK);
	T_ASSERT(!loc.in_file);
	T_EQ_U64(loc.avail, 0x1f00);
	/* phdr 4 owns the rest: its data at rel 0x2000 is past its filesz. */
	T_EQ_U64(elf_info_locate(&ei, 0x102800, &loc), MDF_OK);
	T_ASSERT(!loc.in_file);
	T_EQ_U64(loc.avail, 0x1800);
	/* The kernel text is read through the RAM segment (zero tail here). */
	T_EQ_U64(elf_info_locate(&ei, 0x14a00000, &loc), MDF_OK);
	T_ASSERT(!loc.in_file);
	T_EQ_U64(loc.avail, 0x600000);
	T_EQ_U64(elf_info_locate(&ei, 0x14000010, &loc), MDF_OK);
	T_ASSERT(loc.in_file);
	T_EQ_U64(loc.off, 0x610);
	T_EQ_U64(loc.avail, 0x3f0);
	/* phdr 5 beyond the RAM end: rel 0x1000 is past its filesz 0x100. */
	T_EQ_U64(elf_info_locate(&ei, 0x15000000, &loc), MDF_OK);
	T_ASSERT(!loc.in_file);
	T_EQ_U64(loc.avail, 0x1000);
	elf_info_close(&ei);
	close(fd);
}

/* Spans: a segment of 0x9ec00 bytes and one at an unaligned offset. */
static void t_spans(void)
{
	struct tcore c;
	unsigned char hdr[0x1000];
	struct tnotes n;
	struct elf_info ei;
	struct elf_loc loc;
	struct mdf_err err;
	uint64_t hp, a_off = 0x10000, a_len = 0x9ec00;
	uint64_t b_off = a_off + a_len, b_len = 0x3000;
	uint64_t a_me, b_ms, b_me;
	int fd;

	memset(hdr, 0, sizeof(hdr));
	memset(&c, 0, sizeof(c));
	memset(&n, 0, sizeof(n));
	note_add(&n, LSB, "VMCOREINFO", 0, "A=1\n", 4);
	memcpy(hdr + 0x400, n.buf, n.len);
	c.cls = CLS64;
	c.data = LSB;
	c.etype = ET_CORE_;
	c.nph = 3;
	c.ph[0] = (struct tph){ PT_NOTE_, 0x400, 0, 0, n.len, n.len };
	c.ph[1] = (struct tph){ PT_LOAD_, a_off, 0, 0x1000000, a_len, a_len };
	c.ph[2] = (struct tph){ PT_LOAD_, b_off, 0, 0x2000000, b_len, b_len + 0x1000 };
	core_headers(&c, hdr);
	fd = memfd_with(hdr, sizeof(hdr));
	T_ASSERT(fd >= 0);
	T_ASSERT(ftruncate(fd, (off_t)(b_off + b_len)) == 0);
	T_OK(elf_info_open(&ei, fd, TPATH, &err), &err);
	hp = ei.host_page_size;
	T_ASSERT(hp >= 4096 && hp <= a_off);
	a_me = align_down(a_off + a_len, hp);
	b_ms = align_up(b_off, hp);
	b_me = align_down(b_off + b_len, hp);

	/* Segment A: mappable body, then the fractional tail. */
	T_EQ_U64(elf_info_locate(&ei, 0x1000000, &loc), MDF_OK);
	T_ASSERT(loc.in_file && loc.span.mappable);
	T_EQ_U64(loc.off, a_off);
	T_EQ_U64(loc.span.start, a_off);
	T_EQ_U64(loc.span.end, a_me);
	T_EQ_U64(loc.avail, a_me - a_off);
	/* Just before the tail: avail stops at the mappable span's end. */
	T_EQ_U64(elf_info_locate(&ei, 0x1000000 + (a_me - a_off) - 0x10, &loc),
		 MDF_OK);
	T_ASSERT(loc.span.mappable);
	T_EQ_U64(loc.avail, 0x10);
	T_EQ_U64(elf_info_locate(&ei, 0x1000000 + a_len - 1, &loc), MDF_OK);
	T_ASSERT(loc.in_file && !loc.span.mappable);
	T_EQ_U64(loc.off, a_off + a_len - 1);
	T_EQ_U64(loc.span.start, a_me);
	T_EQ_U64(loc.span.end, a_off + a_len);
	T_EQ_U64(loc.avail, 1);
	if (hp == 4096) {
		T_EQ_U64(a_me, 0xae000);
		T_EQ_U64(loc.span.start, 0xae000);
		T_EQ_U64(loc.span.end, 0xaec00);
	}

	/* Segment B starts mid-page: head piece, body, tail, zero tail. */
	T_EQ_U64(elf_info_locate(&ei, 0x2000000, &loc), MDF_OK);
	T_ASSERT(loc.in_file && !loc.span.mappable);
	T_EQ_U64(loc.off, b_off);
	T_EQ_U64(loc.span.start, b_off);
	if (b_ms < b_me) {
		T_EQ_U64(loc.span.end, b_ms);
		T_EQ_U64(loc.avail, b_ms - b_off);
		T_EQ_U64(elf_info_locate(&ei, 0x2000000 + (b_ms - b_off), &loc),
			 MDF_OK);
		T_ASSERT(loc.span.mappable);
		T_EQ_U64(loc.span.start, b_ms);
		T_EQ_U64(loc.span.end, b_me);
		T_EQ_U64(elf_info_locate(&ei, 0x2000000 + (b_me - b_off), &loc),
			 MDF_OK);
		T_ASSERT(!loc.span.mappable);
		T_EQ_U64(loc.span.start, b_me);
		T_EQ_U64(loc.span.end, b_off + b_len);
		T_EQ_U64(loc.avail, b_off + b_len - b_me);
	} else {
		T_EQ_U64(loc.span.end, b_off + b_len);
		T_EQ_U64(loc.avail, b_len);
	}
	if (hp == 4096) {
		T_EQ_U64(b_ms, 0xaf000);
		T_EQ_U64(b_me, 0xb1000);
	}
	T_EQ_U64(elf_info_locate(&ei, 0x2000000 + b_len, &loc), MDF_OK);
	T_ASSERT(!loc.in_file);
	T_EQ_U64(loc.avail, 0x1000);
	elf_info_close(&ei);
	close(fd);
}

/* ---- reading ---- */

static void t_read_paddr(void)
{
	struct std_core s;
	struct elf_info ei;
	struct cache cache;
	struct cache_config cfg = { .nentries = 4, .policy = CACHE_MMAP_NEVER };
	struct mdf_err err;
	enum mdf_status st;
	unsigned char buf[0x900];
	int fd;

	std_core(&s, CLS64, MSB);
	fd = std_open(&ei, &s, sizeof(s.img), &err, &st);
	T_ASSERT(fd >= 0);
	T_OK(st, &err);
	T_OK(cache_init(&cache, fd, TPATH, &cfg, &err), &err);
	/* 0x100300..0x100c00: 0x100 bytes of phdr 1, 0x200 of phdr 2, zeros. */
	memset(buf, 0x55, sizeof(buf));
	st = elf_info_read_paddr(&ei, &cache, 0x100300, buf, sizeof(buf), &err);
	if (st != MDF_OK)
		t_fail(__FILE__, __LINE__, err.msg);
	for (size_t i = 0; st == MDF_OK && i < 0x100; i++)
		if (buf[i] != pat(0xb00 + i))
			st = MDF_ERR_INTERNAL;
	for (size_t i = 0; st == MDF_OK && i < 0x200; i++)
		if (buf[0x100 + i] != pat(0xc00 + i))
			st = MDF_ERR_INTERNAL;
	for (size_t i = 0x300; st == MDF_OK && i < sizeof(buf); i++)
		if (buf[i] != 0)
			st = MDF_ERR_INTERNAL;
	if (st == MDF_OK) {
		/* Running into the hole after the last segment. */
		st = elf_info_read_paddr(&ei, &cache, 0x100b00, buf, 0x200, &err);
		if (st != MDF_ERR_NODATA ||
		    !strstr(err.msg, "physical address 0x100c00 is not in any PT_LOAD"))
			st = MDF_ERR_INTERNAL;
		else
			st = MDF_OK;
	}
	if (st == MDF_OK) {
		st = elf_info_read_paddr(&ei, &cache, 0xff000, buf, 1, &err);
		st = st == MDF_ERR_NODATA ? MDF_OK : MDF_ERR_INTERNAL;
	}
	if (st == MDF_OK) {
		st = elf_info_read_paddr(&ei, &cache, 0x1003ff, buf, 2, &err);
		if (st == MDF_OK && (buf[0] != pat(0xbff) || buf[1] != pat(0xc00)))
			st = MDF_ERR_INTERNAL;
	}
	cache_release(&cache);
	elf_info_close(&ei);
	close(fd);
	T_EQ_U64(st, MDF_OK);
}

/* ---- errors ---- */

/* @st is the status, err the message: it must start with the path and
 * contain @phrase. */
static int err_is(enum mdf_status st, const struct mdf_err *err,
		  const char *phrase)
{
	if (st != MDF_ERR_FORMAT)
		return 0;
	if (strncmp(err->msg, TPATH ": ", strlen(TPATH) + 2) != 0)
		return 0;
	return strstr(err->msg, phrase) != NULL;
}

#define T_ERR(st, err, phrase)                                               \
	do {                                                                 \
		if (!err_is((st), (err), (phrase))) {                        \
			char t_w_[400];                                      \
			snprintf(t_w_, sizeof(t_w_), "status %d, msg \"%.250s\", want \"%s\"", \
				 (int)(st), (err)->msg, (phrase));           \
			t_fail(__FILE__, __LINE__, t_w_);                    \
			return;                                              \
		}                                                            \
	} while (0)

/* Open @len bytes of @s; return the status, err filled. */
static enum mdf_status open_bytes(const void *img, size_t len,
				  struct mdf_err *err)
{
	struct elf_info ei;
	enum mdf_status st;
	int fd = memfd_with(img, len);

	if (fd < 0) {
		mdf_err_set(err, MDF_ERR_INTERNAL, "memfd");
		return MDF_ERR_INTERNAL;
	}
	st = elf_info_open(&ei, fd, TPATH, err);
	elf_info_close(&ei);
	close(fd);
	return st;
}

static void t_err_empty(void)
{
	struct mdf_err err;
	enum mdf_status st = open_bytes("", 0, &err);

	T_ERR(st, &err, "empty file, not an ELF vmcore");
	T_EQ_STR(err.msg, TPATH ": empty file, not an ELF vmcore");
}

static void t_err_not_elf(void)
{
	struct mdf_err err;
	char text[200];
	enum mdf_status st;

	memset(text, 'x', sizeof(text));
	st = open_bytes(text, sizeof(text), &err);
	T_ERR(st, &err, "not an ELF file");
	st = open_bytes("\177EL", 3, &err);
	T_ERR(st, &err, "not an ELF file");
}

static void t_err_short_ehdr(void)
{
	struct std_core s;
	struct mdf_err err;
	enum mdf_status st;

	std_core(&s, CLS64, LSB);
	st = open_bytes(s.img, 40, &err);
	T_ERR(st, &err, "truncated ELF header");
	std_core(&s, CLS32, MSB);
	st = open_bytes(s.img, 10, &err);
	T_ERR(st, &err, "truncated ELF header");
}

static void t_err_bad_ident(void)
{
	struct std_core s;
	struct mdf_err err;
	enum mdf_status st;

	std_core(&s, CLS64, LSB);
	s.img[4] = 3;
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "unsupported ELF class 3");
	std_core(&s, CLS64, LSB);
	s.img[5] = 0;
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "unsupported ELF data encoding");
}

static void t_err_not_core(void)
{
	struct std_core s;
	struct mdf_err err;
	enum mdf_status st;

	std_core(&s, CLS32, LSB);
	s.c.etype = ET_EXEC_;
	core_headers(&s.c, s.img);
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "not an ELF core file (e_type 2)");
}

static void t_err_truncated_phdrs(void)
{
	struct std_core s;
	struct mdf_err err;
	enum mdf_status st;

	std_core(&s, CLS64, LSB);
	/* Cut in the middle of program header 1. */
	st = open_bytes(s.img, 64 + 56 + 20, &err);
	T_ERR(st, &err, "program header table at 0x40+0xa8 past end of file (size 0x8c)");
	corpus_save("cut-phdrs.core", s.img, 64 + 56 + 20);
	std_core(&s, CLS32, MSB);
	st = open_bytes(s.img, 52 + 40, &err);
	T_ERR(st, &err, "program header table at 0x34+0x60 past end of file");
}

static void t_err_phoff(void)
{
	struct std_core s;
	struct mdf_err err;
	enum mdf_status st;

	std_core(&s, CLS64, MSB);
	s.c.phoff = 0x100000;
	core_headers(&s.c, s.img);
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "program header table at 0x100000+0xa8 past end of file (size 0xe00)");
}

/* A header in the other byte order than EI_DATA says is named so, in
 * either direction and class, instead of as a file cut short. */
static void t_err_byte_order(void)
{
	static const int cls[] = { CLS64, CLS32 };
	struct std_core s;
	struct mdf_err err;
	enum mdf_status st;

	for (size_t i = 0; i < ARRAY_SIZE(cls); i++) {
		std_core(&s, cls[i], LSB);
		s.img[5] = MSB;
		st = open_bytes(s.img, sizeof(s.img), &err);
		T_ERR(st, &err, "byte order: EI_DATA 2 says big-endian, but the ELF header is "
		      "little-endian");
		T_ASSERT(strstr(err.msg, "(e_type, e_version, e_ehsize and e_phentsize make "
				"sense only byte-swapped)") != NULL);
		corpus_save(i ? "swapped32.core" : "swapped64.core", s.img, sizeof(s.img));
		std_core(&s, cls[i], MSB);
		s.img[5] = LSB;
		st = open_bytes(s.img, sizeof(s.img), &err);
		T_ERR(st, &err, "byte order: EI_DATA 1 says little-endian, but the ELF header is "
		      "big-endian");
	}
	/* One odd field is not enough: its own message. */
	std_core(&s, CLS64, MSB);
	s.img[16] = 4;     /* e_type 0x404 */
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "not an ELF core file (e_type 1028)");
}

/* e_shnum in the reserved range, PN_XNUM without section header 0: the
 * header is corrupt (the table read after it was 65535 headers of data). */
static void t_err_section_counts(void)
{
	struct std_core s;
	struct mdf_err err;
	enum mdf_status st;

	std_core(&s, CLS64, LSB);
	put(s.img + 60, LSB, 2, 0xffff);
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "e_shnum 0xffff is a reserved value (0xff00 and up), no section count");
	std_core(&s, CLS64, LSB);
	put(s.img + 56, LSB, 2, 0xffff);
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "e_phnum 0xffff (PN_XNUM) says section header 0 holds the program "
	      "header count, but there is none");
	corpus_save("xnum-no-shdr.core", s.img, sizeof(s.img));
	put(s.img + 40, LSB, 8, 0x100000);
	put(s.img + 58, LSB, 2, 64);
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "section header 0, which holds the count, at 0x100000 lies past the end");
	/* Section header 0 inside the file, its sh_info the real count. */
	std_core(&s, CLS64, LSB);
	put(s.img + 56, LSB, 2, 0xffff);
	put(s.img + 40, LSB, 8, 0x100);
	put(s.img + 58, LSB, 2, 64);
	put(s.img + 60, LSB, 2, 1);
	memset(s.img + 0x100, 0, 64);
	put(s.img + 0x100 + 44, LSB, 4, 3);    /* sh_info */
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_OK(st, &err);
}

static void t_err_load_past_eof(void)
{
	struct std_core s;
	struct mdf_err err;
	enum mdf_status st;

	std_core(&s, CLS64, LSB);
	s.c.ph[2].offset = 0xd00;
	core_headers(&s.c, s.img);
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "PT_LOAD 2: file offset 0xd00+0x200 past end of file (size 0xe00)");
	T_EQ_STR(err.msg, TPATH ": PT_LOAD 2: file offset 0xd00+0x200 past end of file (size 0xe00)");
	corpus_save("load-past-eof.core", s.img, sizeof(s.img));

	/* A PT_NOTE likewise. */
	std_core(&s, CLS32, LSB);
	s.c.ph[0].offset = 0xd80;
	core_headers(&s.c, s.img);
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "PT_NOTE 0: file offset 0xd80+");
	T_ERR(st, &err, "past end of file (size 0xe00)");
}

static void t_err_sizes(void)
{
	struct std_core s;
	struct mdf_err err;
	enum mdf_status st;

	std_core(&s, CLS64, LSB);
	s.c.ph[1].memsz = 0x3ff;
	core_headers(&s.c, s.img);
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "PT_LOAD 1: p_filesz 0x400 larger than p_memsz 0x3ff");

	std_core(&s, CLS64, LSB);
	s.c.ph[1].offset = 0xffffffffffffff00ull;
	core_headers(&s.c, s.img);
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "PT_LOAD 1: file offset 0xffffffffffffff00+0x400 overflows");

	std_core(&s, CLS64, LSB);
	s.c.ph[2].paddr = 0xfffffffffffffc00ull;
	core_headers(&s.c, s.img);
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "PT_LOAD 2: physical address 0xfffffffffffffc00+0x800 overflows");
}

static void t_err_note_past_segment(void)
{
	struct std_core s;
	struct mdf_err err;
	enum mdf_status st;
	size_t vmci_hdr;

	std_core(&s, CLS64, MSB);
	/* descsz of the VMCOREINFO note (note 3) runs past the segment. */
	vmci_hdr = STD_NOTE_OFF + s.vmci_desc - 12 - 12;
	put(s.img + vmci_hdr + 4, MSB, 4, 0x1000);
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "PT_NOTE 0: note 3 size 0x1018 past end of segment");
	corpus_save("note-past-seg.core", s.img, sizeof(s.img));

	/* A name size that wraps a 32-bit sum. */
	std_core(&s, CLS32, LSB);
	put(s.img + STD_NOTE_OFF, LSB, 4, 0xfffffffe);
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "PT_NOTE 0: note 0 size");
	T_ERR(st, &err, "past end of segment");

	/* A segment ending in the middle of a note header. */
	std_core(&s, CLS64, LSB);
	s.c.ph[0].filesz = s.c.ph[0].memsz = s.n.len + 4;
	s.img[STD_NOTE_OFF + s.n.len] = 1;
	core_headers(&s.c, s.img);
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "PT_NOTE 0: note 4 header");
}

static void t_err_no_vmcoreinfo(void)
{
	struct std_core s;
	struct mdf_err err;
	enum mdf_status st;

	std_core(&s, CLS32, MSB);
	/* Rename the note: "VMCOREINFO" -> "VMCOREINFX". */
	s.img[STD_NOTE_OFF + s.vmci_desc - 12 + 9] = 'X';
	st = open_bytes(s.img, sizeof(s.img), &err);
	T_ERR(st, &err, "no VMCOREINFO note");
	T_EQ_STR(err.msg, TPATH ": no VMCOREINFO note");
	corpus_save("no-vmcoreinfo.core", s.img, sizeof(s.img));
}

/*
 * /proc/kcore: PT_LOADs with p_paddr -1 (vmalloc, modules, vmemmap) are no
 * physical memory and are left out; without a VMCOREINFO note the message
 * says which kernels have one.
 */
static void t_kcore_nophys(void)
{
	static const int cls[] = { CLS64, CLS32 };

	for (unsigned i = 0; i < ARRAY_SIZE(cls); i++) {
		uint64_t none = cls[i] == CLS64 ? UINT64_MAX : UINT32_MAX;
		struct std_core s;
		struct elf_info ei;
		struct mdf_err err;
		enum mdf_status st;
		int fd;

		std_core(&s, cls[i], LSB);
		s.c.nph = 5;
		s.c.ph[3] = (struct tph){ PT_LOAD_, 0x800, 0xc8000000, none, 0x600, 0x600 };
		s.c.ph[4] = (struct tph){ PT_LOAD_, 0x900, 0xf0000000, none, 0x100, 0x100000 };
		core_headers(&s.c, s.img);
		fd = std_open(&ei, &s, sizeof(s.img), &err, &st);
		T_ASSERT(fd >= 0);
		T_OK(st, &err);
		T_EQ_U64(ei.nloads, 2);
		T_EQ_U64(ei.loads[0].paddr, 0x100000);
		T_EQ_U64(ei.loads[1].paddr, 0x100400);
		T_EQ_U64(elf_info_max_paddr(&ei), 0x100c00);
		elf_info_close(&ei);
		close(fd);
		if (cls[i] == CLS64)
			corpus_save("kcore-nophys.core", s.img, sizeof(s.img));

		/* The same without the note: the kcore hint. */
		s.img[STD_NOTE_OFF + s.vmci_desc - 12 + 9] = 'X';
		st = open_bytes(s.img, sizeof(s.img), &err);
		T_EQ_STR(err.msg, TPATH ": no VMCOREINFO note (/proc/kcore has one "
			 "from Linux 4.19 on)");
		T_EQ_U64(st, MDF_ERR_FORMAT);
	}
}

/*
 * Linux 4.11-4.18 /proc/kcore: no VMCOREINFO note in the file, but the
 * running kernel's note is in physical memory where /sys/kernel/vmcoreinfo
 * says.  Opened with ELF_INFO_VMCOREINFO_LATER, then taken from memory.
 */
static void t_vmcoreinfo_from_memory(void)
{
	static const char text[] = "OSRELEASE=4.18.0-305.el8\nPAGESIZE=4096\n";
	static const int data[] = { LSB, MSB };

	for (unsigned i = 0; i < ARRAY_SIZE(data); i++) {
		struct cache_config cfg = { .nentries = 4, .policy = CACHE_MMAP_NEVER };
		struct std_core s;
		struct elf_info ei;
		struct cache cache;
		struct mdf_err err;
		enum mdf_status st;
		unsigned char *n;
		int fd;

		std_core(&s, CLS64, data[i]);
		s.img[STD_NOTE_OFF + s.vmci_desc - 12 + 9] = 'X'; /* no note */
		/* The note as the kernel keeps it, at paddr 0x100100 (file 0x900). */
		n = s.img + 0x900;
		memset(n, 0, 0x80);
		put(n, data[i], 4, 11);
		put(n + 4, data[i], 4, sizeof(text) - 1);
		memcpy(n + 12, "VMCOREINFO", 11);
		memcpy(n + 24, text, sizeof(text) - 1);
		fd = memfd_with(s.img, sizeof(s.img));
		T_ASSERT(fd >= 0);
		st = elf_info_open(&ei, fd, TPATH, &err);
		T_EQ_STR(err.msg, TPATH ": no VMCOREINFO note");
		T_OK(elf_info_open_flags(&ei, fd, TPATH, ELF_INFO_VMCOREINFO_LATER, &err), &err);
		T_ASSERT(ei.vmcoreinfo == NULL);
		T_OK(cache_init(&cache, fd, TPATH, &cfg, &err), &err);
		T_OK(elf_info_vmcoreinfo_from_memory(&ei, &cache, 0x100100, 0x80, &err), &err);
		T_EQ_U64(ei.vmcoreinfo_len, sizeof(text) - 1);
		T_ASSERT(memcmp(ei.vmcoreinfo, text, sizeof(text) - 1) == 0);

		/* Not a VMCOREINFO note there; a size the note does not fit;
		 * a size out of range; an address in no PT_LOAD. */
		st = elf_info_vmcoreinfo_from_memory(&ei, &cache, 0x100104, 0x40, &err);
		T_EQ_U64(st, MDF_ERR_FORMAT);
		T_EQ_STR(err.msg, "no VMCOREINFO note at paddr 0x100104 (0x40 bytes)");
		st = elf_info_vmcoreinfo_from_memory(&ei, &cache, 0x100100, 0x30, &err);
		T_EQ_STR(err.msg, "no VMCOREINFO note at paddr 0x100100 (0x30 bytes)");
		st = elf_info_vmcoreinfo_from_memory(&ei, &cache, 0x100100, 4, &err);
		T_EQ_STR(err.msg, "VMCOREINFO note of 0x4 bytes at paddr 0x100100: size out of range");
		st = elf_info_vmcoreinfo_from_memory(&ei, &cache, 0x200000, 0x100, &err);
		T_EQ_U64(st, MDF_ERR_NODATA);
		T_ASSERT(strstr(err.msg, "VMCOREINFO note at paddr 0x200000") != NULL);
		/* The earlier good one stays. */
		T_EQ_U64(ei.vmcoreinfo_len, sizeof(text) - 1);
		cache_release(&cache);
		elf_info_close(&ei);
		close(fd);
	}
}

/* ---- a real x86_64 /proc/vmcore copy ---- */

static void t_real_vmcore(void)
{
	struct realvm rv;
	const char *path;
	const char *rel = "OSRELEASE=6.1.0-57-amd64";
	struct elf_info ei;
	struct elf_loc loc;
	struct cache cache;
	struct cache_config cfg = { .nentries = 8, .policy = CACHE_MMAP_TRY };
	struct mdf_err err;
	unsigned char a[256], b[256];
	size_t got;
	enum mdf_status st;
	int fd;

	if (!realvm_find_or_skip(&rv, "fx-v61-512m"))
		return;
	path = rv.path;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		t_fail(__FILE__, __LINE__, "cannot open the real vmcore");
		return;
	}
	st = elf_info_open(&ei, fd, path, &err);
	if (st != MDF_OK) {
		t_fail(__FILE__, __LINE__, err.msg);
		close(fd);
		return;
	}
	T_EQ_U64(ei.ei_class, CLS64);
	T_EQ_U64(ei.e_machine, EM_X86_64_);
	T_EQ_U64(ei.nloads, 3);
	T_EQ_U64(ei.nranges, 2);
	T_EQ_U64(ei.ranges[0].pstart, 0x100000);
	T_EQ_U64(ei.ranges[0].pend, 0x8000000);
	T_EQ_U64(ei.ranges[1].pstart, 0x14000000);
	T_EQ_U64(ei.ranges[1].pend, 0x1ffda000);
	T_EQ_U64(ei.ranges[1].load->phdr_index, 3);
	T_EQ_U64(ei.nr_cpus, 1);
	T_ASSERT(ei.vmcoreinfo_len > strlen(rel));
	T_ASSERT(memcmp(ei.vmcoreinfo, rel, strlen(rel)) == 0);
	T_ASSERT(ei.vmcoreinfo[ei.vmcoreinfo_len - 1] != '\0');
	T_EQ_U64(elf_info_max_paddr(&ei), 0x1ffda000);

	/* Kernel text is read from the RAM segment. */
	T_EQ_U64(elf_info_locate(&ei, 0x14a00000, &loc), MDF_OK);
	T_ASSERT(loc.in_file && loc.span.mappable);
	T_EQ_U64(loc.off, 0xb332000 + 0xa00000);
	T_OK(cache_init(&cache, fd, path, &cfg, &err), &err);
	st = elf_info_read_paddr(&ei, &cache, 0x14a00000 - 100, a, sizeof(a), &err);
	cache_release(&cache);
	T_OK(st, &err);
	T_OK(util_pread_full(fd, b, sizeof(b), 0xb332000 + 0xa00000 - 100, &got, &err),
	     &err);
	T_ASSERT(memcmp(a, b, sizeof(a)) == 0);
	elf_info_close(&ei);
	close(fd);
}

int main(void)
{
	T_RUN(t_elf64_le);
	T_RUN(t_elf64_be);
	T_RUN(t_elf32_le);
	T_RUN(t_elf32_be);
	T_RUN(t_close_twice);
	T_RUN(t_two_note_segments);
	T_RUN(t_alias);
	T_RUN(t_spans);
	T_RUN(t_read_paddr);
	T_RUN(t_err_empty);
	T_RUN(t_err_not_elf);
	T_RUN(t_err_short_ehdr);
	T_RUN(t_err_bad_ident);
	T_RUN(t_err_not_core);
	T_RUN(t_err_truncated_phdrs);
	T_RUN(t_err_phoff);
	T_RUN(t_err_byte_order);
	T_RUN(t_err_section_counts);
	T_RUN(t_err_load_past_eof);
	T_RUN(t_err_sizes);
	T_RUN(t_err_note_past_segment);
	T_RUN(t_err_no_vmcoreinfo);
	T_RUN(t_kcore_nophys);
	T_RUN(t_vmcoreinfo_from_memory);
	T_RUN(t_real_vmcore);
	return t_done();
}
