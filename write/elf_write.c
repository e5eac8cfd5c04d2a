/*
 * elf_write.c - the ELF dump writer (-E).  See elf_write.h for the format.
 */
#include "write/elf_write.h"

#include <elf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- byte-order aware stores ------------------------------------- */

static void ew_put(const struct elf_write_layout *l, unsigned char *p,
		   uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++, v >>= 8)
		p[l->big ? bytes - 1 - i : i] = (uint8_t)v;
}

#define EW_PUT(l, buf, type, field, v) \
	ew_put((l), (buf) + offsetof(type, field), (v), sizeof(((type *)0)->field))

enum mdf_status elf_write_plan(struct elf_write_layout *l, int ei_class,
			       int ei_data, uint64_t nloads_out,
			       uint64_t notes_len, struct mdf_err *err)
{
	memset(l, 0, sizeof(*l));
	if (ei_class != ELFCLASS32 && ei_class != ELFCLASS64)
		return mdf_err_set(err, MDF_ERR_ARG, "ELF output: unknown ELF class %d",
				   ei_class);
	if (ei_data != ELFDATA2LSB && ei_data != ELFDATA2MSB)
		return mdf_err_set(err, MDF_ERR_ARG, "ELF output: unknown byte order %d",
				   ei_data);
	l->is64 = ei_class == ELFCLASS64;
	l->big = ei_data == ELFDATA2MSB;
	l->ehsize = l->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	l->phentsize = l->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	l->shentsize = l->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (nloads_out >= UINT32_MAX)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "ELF output: %llu segments do not fit an ELF file",
				   (unsigned long long)nloads_out);
	l->phnum = nloads_out + 1;
	l->xnum = l->phnum >= PN_XNUM;
	l->phoff = l->ehsize;
	l->note_off = l->phoff + l->phnum * l->phentsize;
	if (l->xnum) {
		l->shoff = l->note_off;
		l->note_off += l->shentsize;
	}
	l->data_off = l->note_off + notes_len;
	return MDF_OK;
}

void elf_write_encode_ehdr(const struct elf_write_layout *l, uint16_t machine,
			   uint32_t flags, unsigned char *buf)
{
	memset(buf, 0, l->ehsize);
	memcpy(buf, ELFMAG, SELFMAG);
	buf[EI_CLASS] = l->is64 ? ELFCLASS64 : ELFCLASS32;
	buf[EI_DATA] = l->big ? ELFDATA2MSB : ELFDATA2LSB;
	buf[EI_VERSION] = EV_CURRENT;
	buf[EI_OSABI] = ELFOSABI_NONE;
	/* The fields are the same in both classes; only their sizes and
	 * offsets differ. */
#define EW_EHDR(T)                                                        \
	do {                                                              \
		EW_PUT(l, buf, T, e_type, ET_CORE);                       \
		EW_PUT(l, buf, T, e_machine, machine);                    \
		EW_PUT(l, buf, T, e_version, EV_CURRENT);                 \
		EW_PUT(l, buf, T, e_phoff, l->phoff);                     \
		EW_PUT(l, buf, T, e_shoff, l->shoff);                     \
		EW_PUT(l, buf, T, e_flags, flags);                        \
		EW_PUT(l, buf, T, e_ehsize, l->ehsize);                   \
		EW_PUT(l, buf, T, e_phentsize, l->phentsize);             \
		EW_PUT(l, buf, T, e_phnum, l->xnum ? PN_XNUM : l->phnum); \
		if (l->xnum) {                                            \
			EW_PUT(l, buf, T, e_shentsize, l->shentsize);     \
			EW_PUT(l, buf, T, e_shnum, 1);                    \
		}                                                         \
	} while (0)
	if (l->is64)
		EW_EHDR(Elf64_Ehdr);
	else
		EW_EHDR(Elf32_Ehdr);
#undef EW_EHDR
}

void elf_write_encode_shdr(const struct elf_write_layout *l, unsigned char *buf)
{
	/* SHT_NULL entry; sh_size 0 (e_shnum itself did not overflow),
	 * sh_link 0 (e_shstrndx is SHN_UNDEF), sh_info the phdr count. */
	memset(buf, 0, l->shentsize);
	if (l->is64)
		EW_PUT(l, buf, Elf64_Shdr, sh_info, l->phnum);
	else
		EW_PUT(l, buf, Elf32_Shdr, sh_info, l->phnum);
}

void elf_write_encode_phdr(const struct elf_write_layout *l,
			   const struct elf_write_phdr *ph, unsigned char *buf)
{
	memset(buf, 0, l->phentsize);
#define EW_PHDR(T)                                            \
	do {                                                  \
		EW_PUT(l, buf, T, p_type, ph->type);          \
		EW_PUT(l, buf, T, p_flags, ph->flags);        \
		EW_PUT(l, buf, T, p_offset, ph->offset);      \
		EW_PUT(l, buf, T, p_vaddr, ph->vaddr);        \
		EW_PUT(l, buf, T, p_paddr, ph->paddr);        \
		EW_PUT(l, buf, T, p_filesz, ph->filesz);      \
		EW_PUT(l, buf, T, p_memsz, ph->memsz);        \
		EW_PUT(l, buf, T, p_align, ph->align);        \
	} while (0)
	if (l->is64)
		EW_PHDR(Elf64_Phdr);
	else
		EW_PHDR(Elf32_Phdr);
#undef EW_PHDR
}

/* ---- pass 1: output segments ------------------------------------- */

/* One output PT_LOAD: a piece of input segment @load. */
struct ew_seg {
	uint64_t start;          /* byte offset from the input p_paddr */
	uint64_t memsz, filesz;
	uint64_t offset;         /* file offset (set after pass 1) */
	size_t load;
};

/* Walk state of one input segment. */
struct ew_walk {
	uint64_t first, last;    /* pfns walked: [first, last) */
	uint64_t tail;           /* bytes of pfn last-1 in the segment, 0 = all */
	uint64_t next;           /* next pfn to classify */
	uint64_t seg_start;      /* current output segment (byte offset) */
	uint64_t memsz, filesz;
	uint64_t nexcl;          /* excluded pages ending the current segment */
};

struct ew_segs {
	struct ew_seg *v;
	size_t n, cap;
};

static enum mdf_status ew_push(struct ew_segs *s, size_t load,
			       const struct ew_walk *w, struct mdf_err *err)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct ew_seg *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return mdf_err_set(err, MDF_ERR_NOMEM,
					   "ELF output: out of memory for %zu segment headers",
					   cap);
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct ew_seg){ .start = w->seg_start, .memsz = w->memsz,
					.filesz = w->filesz, .load = load };
	return MDF_OK;
}

/* Bytes of the segment in pfns [a, b). */
static uint64_t ew_bytes(const struct ew_walk *w, uint64_t a, uint64_t b,
			 uint64_t ps)
{
	uint64_t n = (b - a) * ps;

	if (b == w->last && w->tail)
		n -= ps - w->tail;
	return n;
}

static void ew_excluded(struct ew_walk *w, uint64_t a, uint64_t b, uint64_t ps)
{
	w->nexcl += b - a;
	w->memsz += ew_bytes(w, a, b, ps);
	w->next = b;
}

static enum mdf_status ew_dumpable(struct ew_segs *segs, size_t load,
				   struct ew_walk *w, uint64_t a, uint64_t b,
				   uint64_t ps, struct mdf_err *err)
{
	if (w->nexcl >= ELF_WRITE_SPLIT_PAGES) {
		/* A long hole: the segment ends (its memsz covers the hole),
		 * the next one starts here. */
		enum mdf_status st = ew_push(segs, load, w, err);

		if (st != MDF_OK)
			return st;
		w->seg_start += w->memsz;
		w->memsz = w->filesz = 0;
	}
	/* A short hole (or none) is kept with its data. */
	w->nexcl = 0;
	w->memsz += ew_bytes(w, a, b, ps);
	w->filesz = w->memsz;
	w->next = b;
	return MDF_OK;
}

/* First clear bit at or after @from in the window of @b, or end_pfn. */
static uint64_t ew_next_clear(const struct bitmap *b, uint64_t from)
{
	uint64_t i, e = b->end_pfn - b->start_pfn;

	for (i = from - b->start_pfn; i < e; i++) {
		uint8_t byte = (uint8_t)~b->bits[i >> 3] >> (i & 7);

		if (byte)
			return MDF_MIN(b->start_pfn + i + (uint64_t)__builtin_ctz(byte),
				       b->end_pfn);
		i |= 7;
	}
	return b->end_pfn;
}

/* Classify the pfns of @w inside the window of @d. */
static enum mdf_status ew_walk_window(struct ew_segs *segs, size_t load,
				      struct ew_walk *w, const struct bitmap *d,
				      uint64_t ps, struct mdf_err *err)
{
	uint64_t lo, hi = MDF_MIN(w->last, d->end_pfn);

	/* pfns no window covered (should not happen): excluded. */
	if (w->next < d->start_pfn)
		ew_excluded(w, w->next, MDF_MIN(d->start_pfn, w->last), ps);
	for (lo = w->next; lo < hi;) {
		uint64_t e;

		if (bitmap_test(d, lo)) {
			enum mdf_status st;

			e = MDF_MIN(ew_next_clear(d, lo), hi);
			st = ew_dumpable(segs, load, w, lo, e, ps, err);
			if (st != MDF_OK)
				return st;
		} else {
			e = MDF_MIN(bitmap_next_set(d, lo), hi);
			ew_excluded(w, lo, e, ps);
		}
		lo = e;
	}
	return MDF_OK;
}

static int ew_seg_cmp(const void *a, const void *b)
{
	const struct ew_seg *x = a, *y = b;

	if (x->load != y->load)
		return x->load < y->load ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Start the walk of input segment @l. */
static void ew_walk_init(struct ew_walk *w, const struct elf_load *l,
			 uint64_t ps)
{
	uint64_t end = l->paddr + l->memsz;
	uint64_t head = l->paddr % ps;

	memset(w, 0, sizeof(*w));
	w->first = l->paddr / ps;
	w->last = end / ps;
	w->tail = end % ps;
	if (w->tail)
		w->last++;
	if (head && l->memsz) {
		/* A partial first page is always kept, as makedumpfile does. */
		w->memsz = w->filesz = MDF_MIN(ps - head, l->memsz);
		w->first++;
		if (w->first >= w->last) {
			/* The whole segment lies inside one page. */
			w->last = w->first;
			w->tail = 0;
		}
	}
	if (w->last < w->first)
		w->last = w->first;
	w->next = w->first;
}

static enum mdf_status ew_pass1(const struct elf_write_params *p,
				const struct dump_source *src,
				struct ew_segs *segs, struct mdf_err *err)
{
	const struct elf_info *in = p->in;
	uint64_t ps = p->page_size;
	struct ew_walk *w;
	enum mdf_status st = MDF_OK;

	w = calloc(in->nloads ? in->nloads : 1, sizeof(*w));
	if (!w)
		return mdf_err_set(err, MDF_ERR_NOMEM, "ELF output: out of memory");
	for (size_t i = 0; i < in->nloads; i++)
		ew_walk_init(&w[i], &in->loads[i], ps);

	for (uint64_t start = 0; st == MDF_OK && start < src->max_pfn;
	     start += src->cycle_pfns) {
		const struct bitmap *present, *dumpable;

		st = src->cycle(src->arg, start, p->exclude_zero, &present,
				&dumpable, err);
		for (size_t i = 0; st == MDF_OK && i < in->nloads; i++) {
			if (w[i].next >= w[i].last || w[i].first >= dumpable->end_pfn)
				continue;
			st = ew_walk_window(segs, i, &w[i], dumpable, ps, err);
		}
	}
	/* Close every input segment: pfns past the pfn space are excluded. */
	for (size_t i = 0; st == MDF_OK && i < in->nloads; i++) {
		if (w[i].next < w[i].last)
			ew_excluded(&w[i], w[i].next, w[i].last, ps);
		st = ew_push(segs, i, &w[i], err);
	}
	free(w);
	if (st != MDF_OK)
		return st;
	if (segs->n > 1) /* never qsort(NULL, 0, ...) */
		qsort(segs->v, segs->n, sizeof(*segs->v), ew_seg_cmp);
	return MDF_OK;
}

/* ---- pass 2: writing ---------------------------------------------- */

/* What each output PT_LOAD keeps of its input PT_LOAD's header, as
 * makedumpfile does: p_flags and p_align (0 in kexec-tools' headers, 4096
 * in the ones s390x's capture kernel writes itself). */
struct ew_load_phdr {
	uint32_t flags;
	uint64_t align;
};

struct ew_writer {
	const struct elf_write_params *p;
	const struct dump_source *src;
	struct out_sink *out;
	struct elf_write_layout lay;
	struct ew_segs segs;
	struct ew_load_phdr *lph; /* per input segment */
	struct elf_write_stats *stats;
	unsigned char *zero;      /* a page of zeros, for lost pages */
};

static struct ew_load_phdr ew_load_phdr(const struct elf_info *in, size_t i)
{
	GElf_Phdr ph;

	if (in->elf && gelf_getphdr(in->elf, (int)in->loads[i].phdr_index, &ph))
		return (struct ew_load_phdr){ ph.p_flags, ph.p_align };
	return (struct ew_load_phdr){ PF_R | PF_W | PF_X, 0 };
}

/* A PT_LOAD of memory with no virtual address: kexec-tools gives i386
 * highmem segments p_vaddr -1 (all ones of the class, crashdump-elf.c).
 * Each piece of it keeps that -1: an address past it would be made up. */
static bool ew_no_vaddr(const struct elf_info *in, uint64_t vaddr)
{
	return vaddr == UINT64_MAX || (in->ei_class == ELFCLASS32 && vaddr == UINT32_MAX);
}

/* In ELF32 a piece's vaddr is a 32-bit address, wrapping as kexec-tools'
 * own arithmetic does: arm's p_vaddr (paddr + PAGE_OFFSET - the first RAM
 * start, kexec/arch/arm/phys_to_virt.c) of highmem runs past 4 GiB. */
static uint64_t ew_piece_vaddr(const struct elf_info *in, const struct elf_load *l,
			       uint64_t start)
{
	if (ew_no_vaddr(in, l->vaddr))
		return l->vaddr;
	return in->ei_class == ELFCLASS32 ? (uint32_t)(l->vaddr + start) : l->vaddr + start;
}

/* File offsets of the segments; checks ELF32 limits. */
static enum mdf_status ew_place(struct ew_writer *w, struct mdf_err *err)
{
	const struct elf_info *in = w->p->in;
	uint64_t off = w->lay.data_off;

	for (size_t i = 0; i < w->segs.n; i++) {
		struct ew_seg *s = &w->segs.v[i];
		const struct elf_load *l = &in->loads[s->load];

		/* A piece without data points where data would follow, as
		 * HEAD and 1.7.2 write it, but for a PT_LOAD's leading
		 * excluded run, followed by more of the PT_LOAD: offset 0.
		 * Not the first PT_LOAD: crash takes the headers' size and
		 * the file's kind (kdump's ELF, not netdump's) from its
		 * p_offset (netdump.c's is_netdump()), so at 0 it cannot
		 * open the file (the lab's armhf kdumps, whose first RAM
		 * pages are free). */
		s->offset = i > 0 && s->filesz == 0 && i + 1 < w->segs.n &&
			    w->segs.v[i + 1].load == s->load ? 0 : off;
		off += s->filesz;
		w->stats->data_bytes += s->filesz;
		if (!w->lay.is64 &&
		    (off > UINT32_MAX || l->paddr + s->start + s->memsz > UINT32_MAX + 1ULL))
			return mdf_err_set(err, MDF_ERR_NOTSUPP,
					   "ELF output: PT_LOAD %u: the dump does not fit ELF32 "
					   "(file offset 0x%llx); use the kdump-compressed format",
					   in->loads[s->load].phdr_index,
					   (unsigned long long)off);
	}
	w->stats->file_size = off;
	w->stats->segments = w->segs.n;
	return MDF_OK;
}

/* PT_NOTE: p_flags, p_align, p_vaddr and p_paddr of the input's first
 * PT_NOTE (makedumpfile copies them: a 6.12 /proc/vmcore has p_align 4). */
static void ew_note_phdr(const struct elf_write_params *p,
			 const struct elf_write_layout *l,
			 struct elf_write_phdr *ph)
{
	size_t n = 0;
	GElf_Phdr g;

	memset(ph, 0, sizeof(*ph));
	ph->type = PT_NOTE;
	ph->offset = l->note_off;
	ph->filesz = ph->memsz = p->notes_len;
	if (!p->in->elf || elf_getphdrnum(p->in->elf, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		if (gelf_getphdr(p->in->elf, (int)i, &g) && g.p_type == PT_NOTE) {
			ph->flags = g.p_flags;
			ph->align = g.p_align;
			ph->vaddr = g.p_vaddr;
			ph->paddr = g.p_paddr;
			return;
		}
	}
}

static enum mdf_status ew_write_headers(struct ew_writer *w, struct mdf_err *err)
{
	const struct elf_write_params *p = w->p;
	const struct elf_info *in = p->in;
	unsigned char buf[64 * sizeof(Elf64_Phdr)];
	struct elf_write_phdr ph;
	size_t fill = 0;
	uint64_t off = 0;
	enum mdf_status st;

	/* e_flags bit 0 ("incomplete") until the last write (elf_write_dump). */
	elf_write_encode_ehdr(&w->lay, in->e_machine, in->e_flags | 1, buf);
	st = out_write(w->out, 0, buf, w->lay.ehsize, err);
	if (st != MDF_OK)
		return st;
	off = w->lay.phoff;
	ew_note_phdr(p, &w->lay, &ph);
	elf_write_encode_phdr(&w->lay, &ph, buf);
	fill = w->lay.phentsize;
	for (size_t i = 0; i < w->segs.n; i++) {
		const struct ew_seg *s = &w->segs.v[i];
		const struct elf_load *l = &in->loads[s->load];

		if (fill + w->lay.phentsize > sizeof(buf)) {
			st = out_write(w->out, off, buf, fill, err);
			if (st != MDF_OK)
				return st;
			off += fill;
			fill = 0;
		}
		ph.type = PT_LOAD;
		ph.flags = w->lph[s->load].flags;
		ph.offset = s->offset;
		ph.vaddr = ew_piece_vaddr(w->p->in, l, s->start);
		ph.paddr = l->paddr + s->start;
		ph.filesz = s->filesz;
		ph.memsz = s->memsz;
		ph.align = w->lph[s->load].align;
		elf_write_encode_phdr(&w->lay, &ph, buf + fill);
		fill += w->lay.phentsize;
	}
	if (w->lay.xnum) {
		elf_write_encode_shdr(&w->lay, buf + fill);
		fill += w->lay.shentsize;
	}
	st = out_write(w->out, off, buf, fill, err);
	if (st == MDF_OK && p->notes_len)
		st = out_write(w->out, w->lay.note_off, p->notes, p->notes_len, err);
	return st;
}

static enum mdf_status ew_write_data(struct ew_writer *w, struct mdf_err *err)
{
	const struct dump_source *src = w->src;
	uint64_t ps = w->p->page_size;

	for (size_t i = 0; i < w->segs.n; i++) {
		const struct ew_seg *s = &w->segs.v[i];
		uint64_t pa = w->p->in->loads[s->load].paddr + s->start;
		uint64_t end = pa + s->filesz, off = s->offset;

		while (pa < end) {
			uint64_t in_page = pa % ps;
			uint64_t n = MDF_MIN(ps - in_page, end - pa);
			const unsigned char *data;
			enum mdf_status st;

			st = src->page(src->arg, pa / ps, &data, err);
			if (st == MDF_ERR_NODATA) {
				/* Lost in the input (a live system's page
				 * that would not read): zeros, and the
				 * header will say incomplete. */
				mdf_err_clear(err);
				if (!w->zero)
					w->zero = calloc(1, (size_t)ps);
				if (!w->zero)
					return mdf_err_set(err, MDF_ERR_NOMEM,
							   "ELF output: out of memory");
				data = w->zero;
				w->stats->lost_pages++;
				st = MDF_OK;
			}
			if (st == MDF_OK)
				st = out_write(w->out, off, data + in_page, (size_t)n, err);
			if (st != MDF_OK)
				return st;
			w->stats->pages++;
			pa += n;
			off += n;
		}
	}
	return MDF_OK;
}

/* The sink filled up: set bit 0 of e_flags if the header made it. */
static enum mdf_status ew_incomplete(struct ew_writer *w, struct mdf_err *err)
{
	unsigned char ehdr[64];
	struct mdf_err ignore;

	w->stats->incomplete = true;
	if (w->out->fail_off < w->lay.ehsize)
		return mdf_err_push(err, "%s: the ELF dump is incomplete (not even its "
				    "header was written)", w->out->path);
	elf_write_encode_ehdr(&w->lay, w->p->in->e_machine,
			      w->p->in->e_flags | 1, ehdr);
	if (out_patch(w->out, 0, ehdr, w->lay.ehsize, &ignore) != MDF_OK)
		return mdf_err_push(err, "%s: the ELF dump is incomplete (and could "
				    "not be marked so: %s)", w->out->path, ignore.msg);
	return mdf_err_push(err, "%s: the ELF dump is incomplete (e_flags bit 0 set, "
			    "data from offset 0x%llx on missing)",
			    w->out->path, (unsigned long long)w->out->fail_off);
}

static enum mdf_status ew_check(const struct elf_write_params *p,
				const struct dump_source *src,
				struct mdf_err *err)
{
	const struct elf_info *in = p->in;
	uint64_t ps = p->page_size;

	if (!ps || (ps & (ps - 1)) || ps != src->page_size)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "ELF output: bad page size %llu (source %llu)",
				   (unsigned long long)ps,
				   (unsigned long long)src->page_size);
	if (src->max_pfn && !src->cycle_pfns)
		return mdf_err_set(err, MDF_ERR_ARG, "ELF output: zero cycle size");
	if (p->notes_len && !p->notes)
		return mdf_err_set(err, MDF_ERR_ARG, "ELF output: notes missing");
	for (size_t i = 0; i < in->nloads; i++) {
		const struct elf_load *l = &in->loads[i];

		if (l->paddr + l->memsz < l->paddr ||
		    (!ew_no_vaddr(in, l->vaddr) && l->vaddr + l->memsz < l->vaddr))
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "%s: PT_LOAD %u: address 0x%llx+0x%llx wraps around",
					   in->path ? in->path : "vmcore", l->phdr_index,
					   (unsigned long long)l->paddr,
					   (unsigned long long)l->memsz);
	}
	return MDF_OK;
}

enum mdf_status elf_write_dump(const struct elf_write_params *p,
			       const struct dump_source *src,
			       struct out_sink *out,
			       struct elf_write_stats *stats,
			       struct mdf_err *err)
{
	struct elf_write_stats dummy;
	struct ew_writer w;
	enum mdf_status st;

	if (!stats)
		stats = &dummy;
	memset(stats, 0, sizeof(*stats));
	memset(&w, 0, sizeof(w));
	w.p = p;
	w.src = src;
	w.out = out;
	w.stats = stats;
	st = ew_check(p, src, err);
	if (st != MDF_OK)
		return st;
	w.lph = calloc(p->in->nloads ? p->in->nloads : 1, sizeof(*w.lph));
	if (!w.lph)
		return mdf_err_set(err, MDF_ERR_NOMEM, "ELF output: out of memory");
	for (size_t i = 0; i < p->in->nloads; i++)
		w.lph[i] = ew_load_phdr(p->in, i);

	st = ew_pass1(p, src, &w.segs, err);
	if (st == MDF_OK)
		st = elf_write_plan(&w.lay, p->in->ei_class, p->in->ei_data,
				    w.segs.n, p->notes_len, err);
	if (st == MDF_OK)
		st = ew_place(&w, err);
	if (st == MDF_OK && src->expect_pages)
		src->expect_pages(src->arg, div_round_up(w.stats->data_bytes, p->page_size));
	if (st == MDF_OK)
		st = ew_write_headers(&w, err);
	if (st == MDF_OK)
		st = ew_write_data(&w, err);
	if (st == MDF_OK)
		st = out_sync(out, err);
	if (st == MDF_OK) {
		/* On the disk: now the header may say the dump is whole. */
		unsigned char ehdr[64];

		elf_write_encode_ehdr(&w.lay, p->in->e_machine,
				      p->in->e_flags |
				      (p->input_incomplete || stats->lost_pages ? 1u : 0u), ehdr);
		st = out_patch(out, 0, ehdr, w.lay.ehsize, err);
		if (st == MDF_OK)
			st = out_flush(out, err);
	}
	if (st == MDF_OK && stats->lost_pages) {
		stats->incomplete = true;
		st = mdf_err_set(err, MDF_ERR_NODATA,
				 "%s: the ELF dump is incomplete (e_flags bit 0): %llu pages "
				 "could not be read from the input and hold zeros",
				 out->path, (unsigned long long)stats->lost_pages);
	} else if (st == MDF_OK && p->input_incomplete) {
		stats->incomplete = true;
		st = mdf_err_set(err, MDF_ERR_NODATA,
				 "%s: the ELF dump is incomplete: its input is marked incomplete "
				 "(e_flags bit 0; all %llu pages it stores were written, the mark stays)",
				 out->path, (unsigned long long)stats->pages);
	}
	if (st == MDF_ERR_NOSPC && out->full) {
		st = ew_incomplete(&w, err);
	} else if (st == MDF_ERR_INTERRUPTED) {
		/* A stop signal: what was handed over goes out; the header
		 * says incomplete since its first write. */
		struct mdf_err ignore;

		mdf_best_effort(out_flush(out, &ignore));
		stats->incomplete = true;
		st = stats->pages ?
			mdf_err_push(err, "%s: the ELF dump is incomplete (e_flags bit 0 set, "
				     "%llu pages written)", out->path,
				     (unsigned long long)stats->pages) :
			mdf_err_push(err, "%s: no page written", out->path);
	}
	free(w.segs.v);
	free(w.lph);
	free(w.zero);
	return st;
}
