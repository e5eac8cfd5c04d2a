/*
 * elf_info.c - ELF vmcore input: program headers, physical ranges, notes.
 *
 * libelf reads and byte-swaps the ELF and program headers; the PT_NOTE
 * bytes are read raw and walked here (the note header is three 32-bit
 * words in both classes, name and descriptor padded to 4 bytes as the
 * kernel writes them).
 */
#include "elf_info.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util.h"

#define ELF_INFO_PROC_MAGIC 0x9fa0          /* PROC_SUPER_MAGIC */
#define ELF_INFO_NOTES_MAX (256u << 20)      /* sanity cap on PT_NOTE bytes */
#define ELF_INFO_PHNUM_MAX (1u << 24)        /* sanity cap when size unknown */
#define ELF_INFO_NHDR_SIZE 12u
#define ELF_INFO_NT_PRSTATUS 1u

static unsigned long long ull(uint64_t v)
{
	return (unsigned long long)v;
}

static uint64_t note_align(uint64_t v)
{
	return (v + 3) & ~(uint64_t)3;
}

static uint32_t elf_info_load32(const struct elf_info *ei, const unsigned char *p)
{
	return ei->ei_data == ELFDATA2MSB ? load_be32(p) : load_le32(p);
}

/* True if the note name (namesz bytes, usually NUL-terminated) is @want. */
static bool note_name_is(const unsigned char *name, uint32_t namesz,
			 const char *want)
{
	size_t wl = strlen(want);
	size_t nl = 0;

	while (nl < namesz && name[nl] != '\0')
		nl++;
	return nl == wl && memcmp(name, want, wl) == 0;
}

static bool bytes_all_zero(const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/* Decide whether st_size can be trusted.  Returns MDF_OK or an error. */
static enum mdf_status elf_info_stat(struct elf_info *ei, struct mdf_err *err)
{
	struct stat st;
	struct statfs sfs;

	if (fstat(ei->fd, &st) < 0)
		return mdf_err_errno(err, MDF_ERR_IO, errno, "fstat");
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		ei->file_size = (uint64_t)st.st_size;
		ei->size_known = true;
		return MDF_OK;
	}
	if (S_ISREG(st.st_mode) && fstatfs(ei->fd, &sfs) == 0 &&
	    (unsigned long)sfs.f_type != ELF_INFO_PROC_MAGIC)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "empty file, not an ELF vmcore");
	/* A /proc file or a device: st_size says nothing. */
	ei->file_size = 0;
	ei->size_known = false;
	return MDF_OK;
}

/*
 * How many of the header fields every vmcore has the same (e_type ET_CORE,
 * e_version EV_CURRENT, e_ehsize and e_phentsize the class's sizes) read
 * as @big_endian says.
 */
static unsigned elf_info_header_sense(const unsigned char *h, bool is64,
				      bool big_endian)
{
	unsigned o_eh = is64 ? 52 : 40;
	uint16_t type = big_endian ? load_be16(h + 16) : load_le16(h + 16);
	uint32_t version = big_endian ? load_be32(h + 20) : load_le32(h + 20);
	uint16_t ehsize = big_endian ? load_be16(h + o_eh) : load_le16(h + o_eh);
	uint16_t phentsize = big_endian ? load_be16(h + o_eh + 2) : load_le16(h + o_eh + 2);

	return (unsigned)(type == ET_CORE) + (unsigned)(version == EV_CURRENT) +
	       (unsigned)(ehsize == (is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr))) +
	       (unsigned)(phentsize == (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)));
}

/*
 * A header in the other byte order than EI_DATA says (a byte swapped by
 * hand, a converter's bug) reads as nonsense offsets and counts, which
 * used to be reported as a file cut short: say what it is.
 */
static enum mdf_status elf_info_check_order(const unsigned char *h,
					    struct mdf_err *err)
{
	bool is64 = h[EI_CLASS] == ELFCLASS64, be = h[EI_DATA] == ELFDATA2MSB;
	unsigned as_said = elf_info_header_sense(h, is64, be);
	unsigned swapped = elf_info_header_sense(h, is64, !be);

	if (as_said <= 1 && swapped >= 3)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "byte order: EI_DATA %u says %s-endian, but the ELF header is "
				   "%s-endian (e_type, e_version, e_ehsize and e_phentsize make "
				   "sense only byte-swapped)",
				   h[EI_DATA], be ? "big" : "little", be ? "little" : "big");
	return MDF_OK;
}

/*
 * Check e_ident before handing the file to libelf: libelf would read a
 * whole non-ELF file into memory to classify it, and its messages are
 * vague.
 */
static enum mdf_status elf_info_check_ident(struct elf_info *ei,
					    struct mdf_err *err)
{
	unsigned char hdr[sizeof(Elf64_Ehdr)];
	size_t got, need;
	enum mdf_status st;

	st = util_pread_full(ei->fd, hdr, sizeof(hdr), 0, &got, err);
	if (st != MDF_OK)
		return st;
	if (got == 0)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "empty file, not an ELF vmcore");
	if (got < SELFMAG || memcmp(hdr, ELFMAG, SELFMAG) != 0)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "not an ELF file (bad magic)");
	if (got < EI_NIDENT)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "truncated ELF header (%zu bytes)", got);
	if (hdr[EI_CLASS] != ELFCLASS32 && hdr[EI_CLASS] != ELFCLASS64)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "unsupported ELF class %u", hdr[EI_CLASS]);
	if (hdr[EI_DATA] != ELFDATA2LSB && hdr[EI_DATA] != ELFDATA2MSB)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "unsupported ELF data encoding %u",
				   hdr[EI_DATA]);
	if (hdr[EI_VERSION] != EV_CURRENT)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "unsupported ELF version %u", hdr[EI_VERSION]);
	need = hdr[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Ehdr)
					   : sizeof(Elf32_Ehdr);
	if (got < need)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "truncated ELF header (%zu of %zu bytes)",
				   got, need);
	st = elf_info_check_order(hdr, err);
	if (st != MDF_OK)
		return st;
	ei->ei_class = hdr[EI_CLASS];
	ei->ei_data = hdr[EI_DATA];
	return MDF_OK;
}

static enum mdf_status elf_info_libelf_err(struct mdf_err *err,
					   const char *what)
{
	return mdf_err_set(err, MDF_ERR_FORMAT, "libelf: %s: %s", what,
			   elf_errmsg(-1));
}

/* [off, off+size) must not overflow and must lie inside the file. */
static enum mdf_status elf_info_check_extent(const struct elf_info *ei,
					     const char *what, unsigned idx,
					     uint64_t off, uint64_t size,
					     struct mdf_err *err)
{
	if (size > (uint64_t)INT64_MAX || off > (uint64_t)INT64_MAX - size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s %u: file offset 0x%llx+0x%llx overflows",
				   what, idx, ull(off), ull(size));
	if (ei->size_known && size && off + size > ei->file_size)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s %u: file offset 0x%llx+0x%llx past end of file (size 0x%llx)",
				   what, idx, ull(off), ull(size),
				   ull(ei->file_size));
	return MDF_OK;
}

/* Walk the notes of one PT_NOTE segment copied at ei->notes + base. */
static enum mdf_status elf_info_walk_notes(struct elf_info *ei, unsigned idx,
					   size_t base, size_t size,
					   struct mdf_err *err)
{
	const unsigned char *seg = ei->notes + base;
	uint64_t pos = 0;
	unsigned n;

	for (n = 0; pos < size; n++) {
		uint32_t namesz, descsz, type;
		uint64_t name_off, desc_off, end, next;

		if (size - pos < ELF_INFO_NHDR_SIZE) {
			if (bytes_all_zero(seg + pos, (size_t)(size - pos)))
				break;
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "PT_NOTE %u: note %u header at 0x%llx past end of segment (size 0x%zx)",
					   idx, n, ull(pos), size);
		}
		namesz = elf_info_load32(ei, seg + pos);
		descsz = elf_info_load32(ei, seg + pos + 4);
		type = elf_info_load32(ei, seg + pos + 8);
		if (namesz == 0 && descsz == 0 && type == 0)
			break; /* zero padding after the last note */
		name_off = pos + ELF_INFO_NHDR_SIZE;
		desc_off = name_off + note_align(namesz);
		end = desc_off + descsz;
		if (end > size)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "PT_NOTE %u: note %u size 0x%llx past end of segment (0x%llx bytes left)",
					   idx, n, ull(end - pos),
					   ull(size - pos));
		if (type == ELF_INFO_NT_PRSTATUS &&
		    note_name_is(seg + name_off, namesz, "CORE"))
			ei->nr_cpus++;
		if (!ei->vmcoreinfo &&
		    note_name_is(seg + name_off, namesz, "VMCOREINFO")) {
			const char *text = (const char *)seg + desc_off;
			size_t len = descsz;

			while (len && text[len - 1] == '\0')
				len--;
			ei->vmcoreinfo = text;
			ei->vmcoreinfo_len = len;
			ei->vmcoreinfo_off = base + (size_t)desc_off;
			ei->vmcoreinfo_descsz = descsz;
		}
		next = desc_off + note_align(descsz);
		pos = next < size ? next : size;
	}
	return MDF_OK;
}

static enum mdf_status elf_info_read_notes(struct elf_info *ei,
					   const GElf_Phdr *ph, size_t phnum,
					   struct mdf_err *err)
{
	uint64_t total = 0;
	size_t pos = 0;
	enum mdf_status st;

	for (size_t i = 0; i < phnum; i++) {
		if (ph[i].p_type != PT_NOTE)
			continue;
		total += ph[i].p_filesz; /* each checked < 2^63, no wrap in 2^64 */
		if (total > ELF_INFO_NOTES_MAX)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "PT_NOTE %zu: notes larger than %u bytes in all",
					   i, ELF_INFO_NOTES_MAX);
	}
	if (total) {
		ei->notes = malloc((size_t)total);
		if (!ei->notes)
			return mdf_err_set(err, MDF_ERR_NOMEM,
					   "out of memory for 0x%llx bytes of notes",
					   ull(total));
	}
	for (size_t i = 0; i < phnum; i++) {
		size_t len = (size_t)ph[i].p_filesz, got;

		if (ph[i].p_type != PT_NOTE || len == 0)
			continue;
		st = util_pread_full(ei->fd, ei->notes + pos, len,
				     ph[i].p_offset, &got, err);
		if (st != MDF_OK)
			return mdf_err_push(err, "PT_NOTE %zu", i);
		if (got < len)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "PT_NOTE %zu: unexpected end of file at 0x%llx",
					   i, ull(ph[i].p_offset + got));
		ei->notes_len = pos + len;
		st = elf_info_walk_notes(ei, (unsigned)i, pos, len, err);
		if (st != MDF_OK)
			return st;
		pos += len;
	}
	if (!ei->vmcoreinfo && !(ei->open_flags & ELF_INFO_VMCOREINFO_LATER))
		return mdf_err_set(err, MDF_ERR_FORMAT, "no VMCOREINFO note");
	return MDF_OK;
}

static int elf_info_cmp_load(const void *a, const void *b)
{
	const struct elf_load *x = *(const struct elf_load *const *)a;
	const struct elf_load *y = *(const struct elf_load *const *)b;

	if (x->paddr != y->paddr)
		return x->paddr < y->paddr ? -1 : 1;
	if (x->phdr_index != y->phdr_index)
		return x->phdr_index < y->phdr_index ? -1 : 1;
	return 0;
}

/* Give every physical address one owner: the lowest-starting segment. */
static enum mdf_status elf_info_build_ranges(struct elf_info *ei,
					     struct mdf_err *err)
{
	const struct elf_load **order;
	uint64_t covered = 0;
	size_t n = 0;

	if (ei->nloads == 0)
		return MDF_OK;
	order = malloc(ei->nloads * sizeof(*order));
	ei->ranges = malloc(ei->nloads * sizeof(*ei->ranges));
	if (!order || !ei->ranges) {
		free(order);
		return mdf_err_set(err, MDF_ERR_NOMEM,
				   "out of memory for %zu PT_LOAD ranges",
				   ei->nloads);
	}
	for (size_t i = 0; i < ei->nloads; i++)
		order[i] = &ei->loads[i];
	qsort(order, ei->nloads, sizeof(*order), elf_info_cmp_load);
	for (size_t i = 0; i < ei->nloads; i++) {
		const struct elf_load *l = order[i];
		uint64_t start = MDF_MAX(l->paddr, covered);
		uint64_t end = l->paddr + l->memsz;

		if (l->memsz == 0 || start >= end)
			continue;
		ei->ranges[n].pstart = start;
		ei->ranges[n].pend = end;
		ei->ranges[n].load = l;
		n++;
		covered = end;
	}
	ei->nranges = n;
	free(order);
	return MDF_OK;
}

/*
 * /proc/kcore gives every PT_LOAD that is not the direct map or the kernel
 * image (vmalloc, modules, vmemmap) p_paddr -1, since Linux 4.11 (commit
 * 464920104bf7, "/proc/kcore: update physical address for kcore ram and
 * text"; before it every p_paddr there is 0).  Such a segment is no
 * physical memory: it is left out of the loads.
 */
static bool elf_info_no_paddr(const struct elf_info *ei, const GElf_Phdr *ph)
{
	uint64_t none = ei->ei_class == ELFCLASS64 ? UINT64_MAX : UINT32_MAX;

	return ph->p_type == PT_LOAD && ph->p_paddr == none;
}

static enum mdf_status elf_info_check_phdrs(struct elf_info *ei,
					    const GElf_Phdr *ph, size_t phnum,
					    struct mdf_err *err)
{
	enum mdf_status st;

	for (size_t i = 0; i < phnum; i++) {
		const char *what;

		if (ph[i].p_type == PT_LOAD)
			what = "PT_LOAD";
		else if (ph[i].p_type == PT_NOTE)
			what = "PT_NOTE";
		else
			continue;
		if (ph[i].p_filesz > ph[i].p_memsz && ph[i].p_type == PT_LOAD)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "PT_LOAD %zu: p_filesz 0x%llx larger than p_memsz 0x%llx",
					   i, ull(ph[i].p_filesz),
					   ull(ph[i].p_memsz));
		st = elf_info_check_extent(ei, what, (unsigned)i,
					   ph[i].p_offset, ph[i].p_filesz, err);
		if (st != MDF_OK)
			return st;
		if (ph[i].p_type == PT_LOAD && !elf_info_no_paddr(ei, &ph[i]) &&
		    ph[i].p_memsz > UINT64_MAX - ph[i].p_paddr)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "PT_LOAD %zu: physical address 0x%llx+0x%llx overflows",
					   i, ull(ph[i].p_paddr),
					   ull(ph[i].p_memsz));
	}
	return MDF_OK;
}

static enum mdf_status elf_info_read_phdrs(struct elf_info *ei,
					   struct mdf_err *err)
{
	Elf *elf = ei->elf;
	GElf_Ehdr eh;
	GElf_Phdr *ph = NULL;
	size_t phnum, entsize, nload_phdrs = 0;
	enum mdf_status st;

	if (!gelf_getehdr(elf, &eh))
		return elf_info_libelf_err(err, "ELF header");
	if (eh.e_type != ET_CORE)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "not an ELF core file (e_type %u)",
				   (unsigned)eh.e_type);
	ei->e_machine = eh.e_machine;
	ei->e_flags = eh.e_flags;
	entsize = ei->ei_class == ELFCLASS64 ? sizeof(Elf64_Phdr)
					      : sizeof(Elf32_Phdr);
	if (eh.e_phentsize != entsize)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "e_phentsize %u, expected %zu",
				   (unsigned)eh.e_phentsize, entsize);
	/*
	 * e_shnum from SHN_LORESERVE (0xff00) up is no count: a larger one
	 * is written as 0 with the count in section header 0.  Nothing here
	 * reads sections, but such a header is corrupt, not cut short.
	 */
	if (eh.e_shnum >= SHN_LORESERVE)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "e_shnum 0x%x is a reserved value (0xff00 and up), no section "
				   "count: the ELF header is corrupt", (unsigned)eh.e_shnum);
	/*
	 * Check the table before libelf reads it, for a precise message.
	 * PN_XNUM: the count is in section header 0 (libelf reads it), which
	 * must then exist; without it libelf answers 0xffff itself and the
	 * bytes after the table were read as 65535 program headers.
	 */
	if (eh.e_phnum != PN_XNUM) {
		phnum = eh.e_phnum;
	} else {
		uint64_t shentsize = ei->ei_class == ELFCLASS64 ? sizeof(Elf64_Shdr)
								: sizeof(Elf32_Shdr);

		if (eh.e_shoff == 0 || eh.e_shentsize != shentsize)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "e_phnum 0xffff (PN_XNUM) says section header 0 holds the "
					   "program header count, but there is none (e_shoff 0x%llx, "
					   "e_shentsize %u)", ull(eh.e_shoff),
					   (unsigned)eh.e_shentsize);
		if (ei->size_known && (eh.e_shoff > ei->file_size ||
				       shentsize > ei->file_size - eh.e_shoff))
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "e_phnum 0xffff (PN_XNUM): section header 0, which holds "
					   "the count, at 0x%llx lies past the end of the file "
					   "(size 0x%llx)", ull(eh.e_shoff), ull(ei->file_size));
		if (elf_getphdrnum(elf, &phnum) != 0)
			return elf_info_libelf_err(err, "program header count");
		if (phnum == PN_XNUM)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "e_phnum 0xffff (PN_XNUM), but section header 0 gives no "
					   "program header count");
	}
	if (phnum == 0)
		return mdf_err_set(err, MDF_ERR_FORMAT, "no program headers");
	if (ei->size_known) {
		uint64_t tsize = (uint64_t)phnum * entsize;

		if (eh.e_phoff > ei->file_size ||
		    tsize > ei->file_size - eh.e_phoff)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "program header table at 0x%llx+0x%llx past end of file (size 0x%llx)",
					   ull(eh.e_phoff), ull(tsize),
					   ull(ei->file_size));
	} else if (phnum > ELF_INFO_PHNUM_MAX) {
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%zu program headers, more than %u",
				   phnum, ELF_INFO_PHNUM_MAX);
	}

	ph = calloc(phnum, sizeof(*ph));
	if (!ph)
		return mdf_err_set(err, MDF_ERR_NOMEM,
				   "out of memory for %zu program headers",
				   phnum);
	for (size_t i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph[i])) {
			st = elf_info_libelf_err(err, "program header");
			goto out;
		}
		if (ph[i].p_type == PT_LOAD)
			nload_phdrs++;
		if (ph[i].p_type == PT_LOAD && !elf_info_no_paddr(ei, &ph[i]))
			ei->nloads++;
	}
	st = elf_info_check_phdrs(ei, ph, phnum, err);
	if (st != MDF_OK)
		goto out;

	if (ei->nloads) {
		size_t k = 0;

		ei->loads = calloc(ei->nloads, sizeof(*ei->loads));
		if (!ei->loads) {
			st = mdf_err_set(err, MDF_ERR_NOMEM,
					 "out of memory for %zu PT_LOADs",
					 ei->nloads);
			goto out;
		}
		for (size_t i = 0; i < phnum; i++) {
			struct elf_load *l;

			if (ph[i].p_type != PT_LOAD || elf_info_no_paddr(ei, &ph[i]))
				continue;
			l = &ei->loads[k++];
			l->phdr_index = (unsigned)i;
			l->paddr = ph[i].p_paddr;
			l->vaddr = ph[i].p_vaddr;
			l->offset = ph[i].p_offset;
			l->filesz = ph[i].p_filesz;
			l->memsz = ph[i].p_memsz;
		}
	}
	ei->nophys_loads = (unsigned)(nload_phdrs - ei->nloads);
	st = elf_info_build_ranges(ei, err);
	if (st != MDF_OK)
		goto out;
	st = elf_info_read_notes(ei, ph, phnum, err);
	if (st == MDF_ERR_FORMAT && !ei->vmcoreinfo && ei->nophys_loads)
		st = mdf_err_set(err, MDF_ERR_FORMAT, ELF_INFO_NO_KCORE_VMCOREINFO);
out:
	free(ph);
	return st;
}

enum mdf_status elf_info_open(struct elf_info *ei, int fd, const char *path,
			      struct mdf_err *err)
{
	return elf_info_open_flags(ei, fd, path, 0, err);
}

#define ELF_INFO_MEM_NOTE_MAX (1u << 20)

enum mdf_status elf_info_vmcoreinfo_from_memory(struct elf_info *ei,
						struct cache *cache,
						uint64_t paddr, uint64_t size,
						struct mdf_err *err)
{
	unsigned char *buf;
	uint32_t namesz, descsz;
	uint64_t desc_off;
	enum mdf_status st;

	if (size < ELF_INFO_NHDR_SIZE || size > ELF_INFO_MEM_NOTE_MAX)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "VMCOREINFO note of 0x%llx bytes at paddr 0x%llx: size out of range",
				   ull(size), ull(paddr));
	buf = malloc((size_t)size);
	if (!buf)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	st = elf_info_read_paddr(ei, cache, paddr, buf, (size_t)size, err);
	if (st != MDF_OK) {
		free(buf);
		return mdf_err_push(err, "VMCOREINFO note at paddr 0x%llx", ull(paddr));
	}
	/* The kernel writes the note in its own byte order. */
	namesz = elf_info_load32(ei, buf);
	descsz = elf_info_load32(ei, buf + 4);
	desc_off = ELF_INFO_NHDR_SIZE + note_align(namesz);
	/* Sizes first: the name is only read inside the buffer. */
	if (desc_off > size || descsz > size - desc_off ||
	    !note_name_is(buf + ELF_INFO_NHDR_SIZE, namesz, "VMCOREINFO")) {
		free(buf);
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "no VMCOREINFO note at paddr 0x%llx (0x%llx bytes)",
				   ull(paddr), ull(size));
	}
	free(ei->vmcoreinfo_mem);
	ei->vmcoreinfo_mem = buf;
	ei->vmcoreinfo = (const char *)buf + desc_off;
	ei->vmcoreinfo_len = descsz;
	while (ei->vmcoreinfo_len && ei->vmcoreinfo[ei->vmcoreinfo_len - 1] == '\0')
		ei->vmcoreinfo_len--;
	ei->vmcoreinfo_off = 0;
	ei->vmcoreinfo_descsz = descsz;
	return MDF_OK;
}

enum mdf_status elf_info_open_flags(struct elf_info *ei, int fd, const char *path,
				    unsigned flags, struct mdf_err *err)
{
	enum mdf_status st;
	long ps;

	memset(ei, 0, sizeof(*ei));
	ei->fd = fd;
	ei->path = path;
	ei->open_flags = flags;
	ps = sysconf(_SC_PAGESIZE);
	ei->host_page_size = ps > 0 ? (size_t)ps : 4096;

	st = elf_info_stat(ei, err);
	if (st == MDF_OK)
		st = elf_info_check_ident(ei, err);
	if (st == MDF_OK && elf_version(EV_CURRENT) == EV_NONE)
		st = elf_info_libelf_err(err, "elf_version");
	if (st == MDF_OK) {
		ei->elf = elf_begin(fd, ELF_C_READ, NULL);
		if (!ei->elf)
			st = elf_info_libelf_err(err, "elf_begin");
	}
	if (st == MDF_OK && elf_kind(ei->elf) != ELF_K_ELF)
		st = mdf_err_set(err, MDF_ERR_FORMAT, "not an ELF file");
	if (st == MDF_OK)
		st = elf_info_read_phdrs(ei, err);
	if (st != MDF_OK) {
		elf_info_close(ei);
		return mdf_err_push(err, "%s", path);
	}
	return MDF_OK;
}

void elf_info_close(struct elf_info *ei)
{
	if (ei->elf)
		elf_end(ei->elf);
	free(ei->loads);
	free(ei->ranges);
	free(ei->notes);
	free(ei->vmcoreinfo_mem);
	memset(ei, 0, sizeof(*ei));
	ei->fd = -1;
}

/* Fill @ret->span and clip @ret->avail for file offset @off of @l. */
static void elf_info_span(const struct elf_info *ei, const struct elf_load *l,
			  struct elf_loc *ret)
{
	uint64_t hp = ei->host_page_size;
	uint64_t start = l->offset, end = l->offset + l->filesz;
	uint64_t ms = align_up(start, hp), me = align_down(end, hp);
	uint64_t off = ret->off;

	if (ms >= me) {
		ret->span.start = start;
		ret->span.end = end;
		ret->span.mappable = false;
	} else if (off < ms) {
		ret->span.start = start;
		ret->span.end = ms;
		ret->span.mappable = false;
	} else if (off < me) {
		ret->span.start = ms;
		ret->span.end = me;
		ret->span.mappable = true;
	} else {
		ret->span.start = me;
		ret->span.end = end;
		ret->span.mappable = false;
	}
	if (ret->avail > ret->span.end - off)
		ret->avail = ret->span.end - off;
}

enum mdf_status elf_info_locate(const struct elf_info *ei, uint64_t paddr,
				struct elf_loc *ret)
{
	size_t lo = 0, hi = ei->nranges;
	const struct elf_range *r = NULL;
	const struct elf_load *l;
	uint64_t rel;

	memset(ret, 0, sizeof(*ret));
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (paddr < ei->ranges[mid].pstart) {
			hi = mid;
		} else if (paddr >= ei->ranges[mid].pend) {
			lo = mid + 1;
		} else {
			r = &ei->ranges[mid];
			break;
		}
	}
	if (!r)
		return MDF_ERR_NODATA;
	l = r->load;
	rel = paddr - l->paddr;
	if (rel < l->filesz) {
		ret->in_file = true;
		ret->off = l->offset + rel;
		ret->avail = MDF_MIN(r->pend, l->paddr + l->filesz) - paddr;
		elf_info_span(ei, l, ret);
	} else {
		ret->in_file = false;
		ret->avail = r->pend - paddr;
	}
	return MDF_OK;
}

uint64_t elf_info_max_paddr(const struct elf_info *ei)
{
	uint64_t max = 0;

	for (size_t i = 0; i < ei->nloads; i++) {
		const struct elf_load *l = &ei->loads[i];

		if (l->memsz && l->paddr + l->memsz > max)
			max = l->paddr + l->memsz;
	}
	return max;
}

enum mdf_status elf_info_read_paddr(const struct elf_info *ei,
				    struct cache *cache, uint64_t paddr,
				    void *buf, size_t len,
				    struct mdf_err *err)
{
	unsigned char *out = buf;

	while (len) {
		struct elf_loc loc;
		size_t n;
		enum mdf_status st;

		if (elf_info_locate(ei, paddr, &loc) != MDF_OK)
			return mdf_err_set(err, MDF_ERR_NODATA,
					   "physical address 0x%llx is not in any PT_LOAD",
					   ull(paddr));
		if (loc.avail == 0)
			return mdf_err_set(err, MDF_ERR_INTERNAL,
					   "physical address 0x%llx: empty piece",
					   ull(paddr));
		n = loc.avail < len ? (size_t)loc.avail : len;
		if (loc.in_file) {
			st = cache_pread(cache, out, n, loc.off, &loc.span, err);
			if (st != MDF_OK)
				return st;
		} else {
			memset(out, 0, n);
		}
		out += n;
		paddr += n;
		len -= n;
	}
	return MDF_OK;
}

/* ---- the input ops (input.h) ----------------------------------------- */

static enum mdf_status ei_read_paddr(void *in, struct cache *cache, uint64_t paddr,
				     void *buf, size_t len, struct mdf_err *err)
{
	return elf_info_read_paddr(in, cache, paddr, buf, len, err);
}

static bool ei_file_run(const void *in, uint64_t paddr, uint64_t len,
			struct input_run *ret)
{
	struct elf_loc loc;

	if (elf_info_locate(in, paddr, &loc) != MDF_OK || !loc.in_file || loc.avail < len)
		return false;
	ret->off = loc.off;
	ret->span = loc.span;
	return true;
}

/* A page that is no single file run: file pieces, zero tails past
 * p_filesz, and zeros for holes inside the page. */
static enum mdf_status ei_page(void *in, struct cache *cache, uint64_t pfn,
			       uint64_t ps, unsigned char *scratch,
			       const unsigned char **ret, struct mdf_err *err)
{
	const struct elf_info *ei = in;
	uint64_t pa = pfn * ps, done = 0;
	struct elf_loc loc;
	bool any = false;

	while (done < ps) {
		uint64_t n = ps - done;
		enum mdf_status st;

		if (elf_info_locate(ei, pa + done, &loc) != MDF_OK) {
			/* A hole: zeros up to the next range that starts in the page. */
			uint64_t next = ps;

			for (size_t i = 0; i < ei->nranges; i++) {
				uint64_t s = ei->ranges[i].pstart;

				if (s > pa + done && s < pa + ps) {
					next = s - pa;
					break;
				}
			}
			memset(scratch + done, 0, (size_t)(next - done));
			done = next;
			continue;
		}
		any = true;
		if (loc.avail < n)
			n = loc.avail;
		if (loc.in_file) {
			st = cache_pread(cache, scratch + done, (size_t)n, loc.off,
					 &loc.span, err);
			if (st != MDF_OK)
				return mdf_err_push(err, "pfn 0x%llx", (unsigned long long)pfn);
		} else {
			memset(scratch + done, 0, (size_t)n);
		}
		done += n;
	}
	if (!any)
		return mdf_err_set(err, MDF_ERR_NODATA, "pfn 0x%llx is not in the dump",
				   (unsigned long long)pfn);
	*ret = scratch;
	return MDF_OK;
}

/*
 * As makedumpfile does, a PT_LOAD makes present the pfns from the page of
 * its first byte up to the last page it covers whole: a partial last page
 * (legacy kexec's 0x1000-0x9fc00 segment ends inside pfn 0x9f) is a hole,
 * as in HEAD and 1.7.2.  Pages from p_filesz on are present but hold no
 * data.
 */
static void ei_cycle_bitmaps(const void *in, uint64_t ps, struct bitmap *present,
			     struct bitmap *dumpable)
{
	const struct elf_info *ei = in;

	for (size_t i = 0; i < ei->nloads; i++) {
		const struct elf_load *l = &ei->loads[i];

		bitmap_set_range(present, l->paddr / ps, (l->paddr + l->memsz) / ps);
	}
	bitmap_copy(dumpable, present);
	for (size_t i = 0; i < ei->nloads; i++) {
		const struct elf_load *l = &ei->loads[i];
		uint64_t nodata = (l->paddr + l->filesz) / ps;
		uint64_t e = (l->paddr + l->memsz) / ps;

		bitmap_clear_range(dumpable, nodata, e); /* empty ranges: nothing */
	}
}

static void ei_facts(const void *in, struct input_facts *f)
{
	const struct elf_info *ei = in;

	memset(f, 0, sizeof(*f));
	f->vmcoreinfo = ei->vmcoreinfo;
	f->vmcoreinfo_len = ei->vmcoreinfo_len;
	f->machine = ei->e_machine;
	f->big_endian = ei->ei_data == ELFDATA2MSB;
	f->max_paddr = elf_info_max_paddr(ei);
	f->nr_cpus = (int32_t)ei->nr_cpus;
	f->notes = ei->notes;
	f->notes_len = ei->notes_len;
	/* A VMCOREINFO taken from memory is in no note to point at. */
	f->have_vmcoreinfo = ei->vmcoreinfo && !ei->vmcoreinfo_mem;
	f->vmcoreinfo_off = ei->vmcoreinfo_off;
	f->vmcoreinfo_size = ei->vmcoreinfo_descsz;
	/* e_flags bit 0: makedumpfile's (and our) -E dump cut short.  The
	 * kernel's and kexec-tools' /proc/vmcore headers leave e_flags 0
	 * (ppc64's ELF_CORE_EFLAGS is 0 or 2). */
	f->incomplete = (ei->e_flags & ELF_INFO_EF_INCOMPLETE) != 0;
}

const struct input_ops elf_input_ops = {
	.kind = "ELF",
	.read_paddr = ei_read_paddr,
	.file_run = ei_file_run,
	.page = ei_page,
	.cycle_bitmaps = ei_cycle_bitmaps,
	.facts = ei_facts,
};
