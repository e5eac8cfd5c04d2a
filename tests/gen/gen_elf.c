/*
 * tests/gen/gen_elf.c - the ELF64 core file (x86_64, AArch64, RISC-V,
 * PowerPC64 of either byte order or s390x), shaped like /proc/vmcore:
 *
 *   ELF header | program headers | (pad) PT_NOTE at 0x1000: one "CORE"
 *   NT_PRSTATUS per cpu, then "VMCOREINFO" (type 0) | (pad to 4 KiB) the
 *   PT_LOAD data back to back: kernel text first (its paddr aliases RAM of
 *   a later segment, as on every x86_64, arm64 and riscv64 dump; ppc64's
 *   and s390x's image is in the linear or identity map, with no PT_LOAD of
 *   its own), then the ram ranges at their direct-map (linear-map)
 *   addresses.  s390x's notes are those its capture kernel writes
 *   (arch/s390/kernel/crash_dump.c): NT_PRPSINFO, then per cpu
 *   NT_PRSTATUS, NT_PRFPREG and the "LINUX" notes of the s390 registers.
 *   Every multi-byte field is in the target's byte order.
 *
 * i386 ("arch x86") is what kexec-tools (kexec/arch/i386/crashdump-x86.c,
 * kexec/crashdump-elf.c; i386 has no kexec_file_load) prepares and the
 * capture kernel's /proc/vmcore passes on: an ELF32 core (ELF64 when RAM
 * ends above 4 GiB: get_core_type()), EM_386, no image PT_LOAD, the RAM
 * ranges split at kexec-tools' X86_MAXMEM (0x38000000), p_vaddr =
 * PAGE_OFFSET + paddr below it and -1 (all ones) for a range that ends
 * above it, highmem; NT_PRSTATUS of the i386 struct elf_prstatus (144
 * bytes, pr_pid at 24, pr_reg 17 longs at 72).
 *
 * The file is sized with ftruncate() and only non-zero bytes are written,
 * so a machine of 64 GiB mostly free is a sparse file.  A write to a
 * physical address goes to every segment that maps it.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "util.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif
#ifndef EM_S390
#define EM_S390 22
#endif
/* e_flags of a ppc64le core: ELF_CORE_EFLAGS, the ELFv2 ABI. */
#define PPC64_EF_ELFV2 2

#define PRSTATUS_SIZE 336     /* struct elf_prstatus on x86_64 */
#define PRSTATUS_SIZE_ARM64 392   /* 34 registers instead of 27 */
/* 112 bytes before pr_reg, 32 registers (pc, x1-x31), pr_fpvalid, padding. */
#define PRSTATUS_SIZE_RISCV64 376
/* loongarch64: elf_prstatus_common 112 + 45 registers + pr_fpvalid and
 * padding (gdb of Debian's 7.2.13+deb14-loong64 vmlinux) */
#define PRSTATUS_SIZE_LOONGARCH64 480
/* 112 bytes, pt_regs (48 registers), pr_fpvalid, padding. */
#define PRSTATUS_SIZE_PPC64 504
/* s390x: 112 bytes, s390_regs (psw 16, gprs 128, acrs 64, orig_gpr2 8 =
 * ELF_NGREG 27 longs, as x86_64's), pr_fpvalid and padding. */
#define PRSTATUS_SIZE_S390X 336
/* i386 (gdb of the 6.1 -686 vmlinux): elf_prstatus_common of 72 bytes
 * (32-bit longs and timevals), elf_gregset_t of 17 longs, pr_fpvalid. */
#define PRSTATUS_SIZE_X86 144
#define PRSTATUS_PID_OFF_X86 24    /* also arm's */
/* arm (gdb of the 6.1 -armmp and -armmp-lpae vmlinux): the same 72 bytes,
 * elf_gregset_t of 18 longs (r0-r15, cpsr, orig_r0), pr_fpvalid. */
#define PRSTATUS_SIZE_ARM 148
/* mips64: pr_reg at 112 (as x86_64), 45 registers (gdb of the
 * loongson-3 vmlinux: sizeof(struct elf_prstatus) 480) */
#define PRSTATUS_SIZE_MIPS64 480
#define PRSTATUS_MAX PRSTATUS_SIZE_PPC64
#define PRSTATUS_PID_OFF 32
/* s390x's other notes: NT_PRPSINFO (struct elf_prpsinfo, 136 bytes:
 * pr_sname at 1, pr_fname at 40), and per cpu NT_PRFPREG (fpc, pad, 16
 * fprs) and the "LINUX" ones (elf.h's NT_S390_*). */
#define PRPSINFO_SIZE 136
#define PRPSINFO_SNAME_OFF 1
#define PRPSINFO_FNAME_OFF 40
#define S390X_NOTE_MAX 256
#define S390X_NT_PREFIX 0x305
#define FILL_BATCH 64         /* pages per write of a fill */

struct seg {
	uint64_t paddr, vaddr, filesz, memsz, offset;
	uint64_t gap;  /* bytes before its data in the file */
	bool nophys;   /* kcore's vmalloc, modules, vmemmap: p_paddr -1 */
};

/* The segments /proc/kcore adds with p_paddr -1 (Linux 4.11 on), as
 * (vaddr, size); their bytes are left zero. */
#define KCORE_EXTRA 3
#define KCORE_EXTRA_SIZE 0x200000

struct out {
	int fd;
	struct seg *segs;
	size_t nsegs;
	const char *path;
};

static enum mdf_status phys_write(void *ctx, uint64_t pa, const void *buf, size_t len,
				  struct mdf_err *err)
{
	const struct out *o = ctx;
	uint64_t end = pa + len;
	for (size_t i = 0; i < o->nsegs; i++) {
		const struct seg *sg = &o->segs[i];
		if (sg->nophys)
			continue;
		uint64_t lo = MDF_MAX(pa, sg->paddr);
		uint64_t hi = MDF_MIN(end, sg->paddr + sg->filesz);
		if (lo >= hi)
			continue;
		enum mdf_status st = util_pwrite_full(o->fd, (const uint8_t *)buf + (lo - pa),
						      (size_t)(hi - lo),
						      sg->offset + (lo - sg->paddr), err);
		if (st)
			return mdf_err_push(err, "%s", o->path);
	}
	return MDF_OK;
}

static uint64_t page_state(const struct gen_spec *spec, const struct gen_fill *f,
			   uint64_t pfn)
{
	uint64_t st = spec->seed * UINT64_C(0x9e3779b97f4a7c15) ^ f->seed;
	st ^= gen_splitmix64(&st) ^ pfn * UINT64_C(0xd1b54a32d192ed03);
	return st;
}

void gen_elf_fill_page(const struct gen_spec *spec, const struct gen_fill *f,
		       uint64_t pfn, uint8_t *page)
{
	const size_t psz = (size_t)1 << spec->page_shift;
	uint64_t st = page_state(spec, f, pfn);
	switch (f->type) {
	case GEN_FILL_ZERO:
		memset(page, 0, psz);
		break;
	case GEN_FILL_BYTE:
		memset(page, f->byte, psz);
		break;
	case GEN_FILL_RANDOM:
		for (size_t i = 0; i < psz; i += 8)
			store_le64(page + i, gen_splitmix64(&st));
		break;
	case GEN_FILL_TEXT: {
		/* Lines of lower-case words, at most 72 columns. */
		size_t i = 0, col = 0;
		while (i < psz) {
			uint64_t r = gen_splitmix64(&st);
			size_t wl = 2 + (size_t)(r % 8);
			if (col + wl + 1 > 72) {
				page[i++] = '\n';
				col = 0;
				continue;
			}
			for (size_t j = 0; j < wl && i < psz; j++) {
				r = r / 26 ? r / 26 : gen_splitmix64(&st);
				page[i++] = (uint8_t)('a' + r % 26);
			}
			if (i < psz)
				page[i++] = ' ';
			col += wl + 1;
		}
		page[psz - 1] = '\n';
		break;
	}
	}
}

static Elf64_Half elf_machine(enum gen_arch arch)
{
	switch (arch) {
	case GEN_ARCH_ARM64:
		return EM_AARCH64;
	case GEN_ARCH_RISCV64:
		return EM_RISCV;
	case GEN_ARCH_PPC64:
		return EM_PPC64;
	case GEN_ARCH_S390X:
		return EM_S390;
	case GEN_ARCH_X86:
		return EM_386;
	case GEN_ARCH_ARM:
		return EM_ARM;
	case GEN_ARCH_LOONGARCH64:
		return EM_LOONGARCH;
	case GEN_ARCH_MIPS64:
		return EM_MIPS;
	case GEN_ARCH_X86_64:
		break;
	}
	return EM_X86_64;
}

static uint32_t prstatus_size(enum gen_arch arch)
{
	switch (arch) {
	case GEN_ARCH_ARM64:
		return PRSTATUS_SIZE_ARM64;
	case GEN_ARCH_RISCV64:
		return PRSTATUS_SIZE_RISCV64;
	case GEN_ARCH_PPC64:
		return PRSTATUS_SIZE_PPC64;
	case GEN_ARCH_S390X:
		return PRSTATUS_SIZE_S390X;
	case GEN_ARCH_X86:
		return PRSTATUS_SIZE_X86;
	case GEN_ARCH_ARM:
		return PRSTATUS_SIZE_ARM;
	case GEN_ARCH_LOONGARCH64:
		return PRSTATUS_SIZE_LOONGARCH64;
	case GEN_ARCH_MIPS64:
		return PRSTATUS_SIZE_MIPS64;
	case GEN_ARCH_X86_64:
		break;
	}
	return PRSTATUS_SIZE;
}

/* The ELF header and a program header, field by field in @big's order. */
static void put_ehdr(uint8_t *b, bool big, const Elf64_Ehdr *eh)
{
	memcpy(b, eh->e_ident, EI_NIDENT);
	gen_store16(big, b + offsetof(Elf64_Ehdr, e_type), eh->e_type);
	gen_store16(big, b + offsetof(Elf64_Ehdr, e_machine), eh->e_machine);
	gen_store32(big, b + offsetof(Elf64_Ehdr, e_version), eh->e_version);
	gen_store64(big, b + offsetof(Elf64_Ehdr, e_entry), eh->e_entry);
	gen_store64(big, b + offsetof(Elf64_Ehdr, e_phoff), eh->e_phoff);
	gen_store64(big, b + offsetof(Elf64_Ehdr, e_shoff), eh->e_shoff);
	gen_store32(big, b + offsetof(Elf64_Ehdr, e_flags), eh->e_flags);
	gen_store16(big, b + offsetof(Elf64_Ehdr, e_ehsize), eh->e_ehsize);
	gen_store16(big, b + offsetof(Elf64_Ehdr, e_phentsize), eh->e_phentsize);
	gen_store16(big, b + offsetof(Elf64_Ehdr, e_phnum), eh->e_phnum);
	gen_store16(big, b + offsetof(Elf64_Ehdr, e_shentsize), eh->e_shentsize);
	gen_store16(big, b + offsetof(Elf64_Ehdr, e_shnum), eh->e_shnum);
	gen_store16(big, b + offsetof(Elf64_Ehdr, e_shstrndx), eh->e_shstrndx);
}

static void put_phdr(uint8_t *b, bool big, const Elf64_Phdr *ph)
{
	gen_store32(big, b + offsetof(Elf64_Phdr, p_type), ph->p_type);
	gen_store32(big, b + offsetof(Elf64_Phdr, p_flags), ph->p_flags);
	gen_store64(big, b + offsetof(Elf64_Phdr, p_offset), ph->p_offset);
	gen_store64(big, b + offsetof(Elf64_Phdr, p_vaddr), ph->p_vaddr);
	gen_store64(big, b + offsetof(Elf64_Phdr, p_paddr), ph->p_paddr);
	gen_store64(big, b + offsetof(Elf64_Phdr, p_filesz), ph->p_filesz);
	gen_store64(big, b + offsetof(Elf64_Phdr, p_memsz), ph->p_memsz);
	gen_store64(big, b + offsetof(Elf64_Phdr, p_align), ph->p_align);
}

/* The same in ELF32 (i386's and arm's core without RAM above 4 GiB). */
static void put_ehdr32(uint8_t *b, const Elf64_Ehdr *eh)
{
	memcpy(b, eh->e_ident, EI_NIDENT);
	b[EI_CLASS] = ELFCLASS32;
	gen_store16(false, b + offsetof(Elf32_Ehdr, e_type), (uint16_t)eh->e_type);
	gen_store16(false, b + offsetof(Elf32_Ehdr, e_machine), (uint16_t)eh->e_machine);
	store_le32(b + offsetof(Elf32_Ehdr, e_version), eh->e_version);
	store_le32(b + offsetof(Elf32_Ehdr, e_entry), (uint32_t)eh->e_entry);
	store_le32(b + offsetof(Elf32_Ehdr, e_phoff), (uint32_t)eh->e_phoff);
	store_le32(b + offsetof(Elf32_Ehdr, e_shoff), (uint32_t)eh->e_shoff);
	store_le32(b + offsetof(Elf32_Ehdr, e_flags), eh->e_flags);
	gen_store16(false, b + offsetof(Elf32_Ehdr, e_ehsize), (uint16_t)sizeof(Elf32_Ehdr));
	gen_store16(false, b + offsetof(Elf32_Ehdr, e_phentsize), (uint16_t)sizeof(Elf32_Phdr));
	gen_store16(false, b + offsetof(Elf32_Ehdr, e_phnum), (uint16_t)eh->e_phnum);
	gen_store16(false, b + offsetof(Elf32_Ehdr, e_shentsize), (uint16_t)eh->e_shentsize);
	gen_store16(false, b + offsetof(Elf32_Ehdr, e_shnum), (uint16_t)eh->e_shnum);
	gen_store16(false, b + offsetof(Elf32_Ehdr, e_shstrndx), (uint16_t)eh->e_shstrndx);
}

static void put_phdr32(uint8_t *b, const Elf64_Phdr *ph)
{
	store_le32(b + offsetof(Elf32_Phdr, p_type), ph->p_type);
	store_le32(b + offsetof(Elf32_Phdr, p_offset), (uint32_t)ph->p_offset);
	store_le32(b + offsetof(Elf32_Phdr, p_vaddr), (uint32_t)ph->p_vaddr);
	store_le32(b + offsetof(Elf32_Phdr, p_paddr), (uint32_t)ph->p_paddr);
	store_le32(b + offsetof(Elf32_Phdr, p_filesz), (uint32_t)ph->p_filesz);
	store_le32(b + offsetof(Elf32_Phdr, p_memsz), (uint32_t)ph->p_memsz);
	store_le32(b + offsetof(Elf32_Phdr, p_flags), ph->p_flags);
	store_le32(b + offsetof(Elf32_Phdr, p_align), (uint32_t)ph->p_align);
}

/* The sizes of the ELF header and a program header of the spec's class. */
static size_t ehdr_size(const struct gen_spec *spec)
{
	return spec->elf32 ? sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr);
}

static size_t phdr_size(const struct gen_spec *spec)
{
	return spec->elf32 ? sizeof(Elf32_Phdr) : sizeof(Elf64_Phdr);
}

static void put_note(uint8_t **p, bool big, const char *name, uint32_t type,
		     const void *desc, uint32_t descsz, uint32_t descsz_field)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	gen_store32(big, *p + offsetof(Elf64_Nhdr, n_namesz), namesz);
	gen_store32(big, *p + offsetof(Elf64_Nhdr, n_descsz), descsz_field);
	gen_store32(big, *p + offsetof(Elf64_Nhdr, n_type), type);
	*p += sizeof(Elf64_Nhdr);
	memcpy(*p, name, namesz);
	*p += align_up(namesz, 4);
	if (descsz)
		memcpy(*p, desc, descsz);
	*p += align_up(descsz, 4);
}

static enum mdf_status write_headers(const struct gen_spec *spec, struct out *o,
				     uint64_t file_size, const uint8_t *notes,
				     uint64_t notesz, uint64_t note_off, struct mdf_err *err)
{
	size_t nph = 1 + o->nsegs;
	const bool big = spec->big_endian;
	const size_t esz = ehdr_size(spec), psz = phdr_size(spec);
	uint8_t ehb[sizeof(Elf64_Ehdr)];
	Elf64_Ehdr eh;
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = big ? ELFDATA2MSB : ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_ident[EI_OSABI] = ELFOSABI_SYSV;
	eh.e_type = ET_CORE;
	eh.e_machine = elf_machine(spec->arch);
	eh.e_version = EV_CURRENT;
	/* ppc64el's ELFv2; a big-endian ppc64 kernel is ELFv1 (0). */
	eh.e_flags = spec->arch == GEN_ARCH_PPC64 && !big ? PPC64_EF_ELFV2 : 0;
	eh.e_phoff = spec->phoff_past_eof ? file_size + GEN_PAGE_SIZE : esz;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (Elf64_Half)nph;

	Elf64_Phdr *ph = calloc(nph, sizeof(*ph));
	uint8_t *phb = calloc(nph, sizeof(*ph));
	if (!ph || !phb) {
		free(ph);
		free(phb);
		return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", o->path);
	}
	ph[0].p_type = PT_NOTE;
	ph[0].p_offset = note_off;
	ph[0].p_filesz = ph[0].p_memsz = notesz;
	ph[0].p_align = 4;
	for (size_t i = 0; i < o->nsegs; i++) {
		Elf64_Phdr *p = &ph[1 + i];
		p->p_type = PT_LOAD;
		p->p_flags = PF_R | PF_W | PF_X;
		p->p_offset = o->segs[i].offset;
		p->p_vaddr = o->segs[i].vaddr;
		p->p_paddr = o->segs[i].nophys ? UINT64_MAX : o->segs[i].paddr;
		p->p_filesz = o->segs[i].filesz;
		p->p_memsz = o->segs[i].memsz;
		/* s390x's loads_init() aligns its loads to a page. */
		p->p_align = spec->arch == GEN_ARCH_S390X ? GEN_PAGE_SIZE : 0;
	}
	if (spec->load_past_eof && o->nsegs) {
		Elf64_Phdr *p = &ph[o->nsegs];
		p->p_filesz += 0x100000;
		p->p_memsz = MDF_MAX(p->p_memsz, p->p_filesz);
	}
	for (size_t i = 0; i < nph; i++) {
		if (spec->elf32)
			put_phdr32(phb + i * psz, &ph[i]);
		else
			put_phdr(phb + i * psz, big, &ph[i]);
	}
	if (spec->elf32)
		put_ehdr32(ehb, &eh);
	else
		put_ehdr(ehb, big, &eh);
	enum mdf_status st = util_pwrite_full(o->fd, ehb, esz, 0, err);
	if (!st && !spec->phoff_past_eof)
		st = util_pwrite_full(o->fd, phb, nph * psz, esz, err);
	free(ph);
	free(phb);
	if (!st)
		st = util_pwrite_full(o->fd, notes, (size_t)notesz, note_off, err);
	return st ? mdf_err_push(err, "%s", o->path) : MDF_OK;
}

static enum mdf_status write_fills(const struct gen_spec *spec, gen_phys_write_fn wr,
				   void *ctx, struct mdf_err *err)
{
	const uint64_t psz = UINT64_C(1) << spec->page_shift;
	uint8_t *buf = malloc(FILL_BATCH * psz);
	if (!buf)
		return mdf_err_set(err, MDF_ERR_NOMEM, "fill: out of memory");
	enum mdf_status st = MDF_OK;
	for (size_t i = 0; i < spec->nfills && !st; i++) {
		const struct gen_fill *f = &spec->fills[i];
		if (f->type == GEN_FILL_ZERO)
			continue;   /* the file is zero already */
		for (uint64_t p = f->first; p <= f->last && !st;) {
			uint64_t n = MDF_MIN(FILL_BATCH, f->last - p + 1);
			for (uint64_t j = 0; j < n; j++)
				gen_elf_fill_page(spec, f, p + j, buf + j * psz);
			st = wr(ctx, p << spec->page_shift, buf, (size_t)(n * psz), err);
			p += n;
		}
	}
	free(buf);
	return st;
}

enum mdf_status gen_elf_write_memory(const struct gen_spec *spec, const struct gen_kernel *k,
				     gen_phys_write_fn wr, void *ctx, struct mdf_err *err)
{
	enum mdf_status st = write_fills(spec, wr, ctx, err);
	if (!st)
		st = gen_kernel_write(spec, k, wr, ctx, err);
	for (size_t i = 0; !st && i < spec->npokes; i++) {
		uint64_t pa;

		st = gen_kernel_poke_pa(spec, k, &spec->pokes[i], &pa, err);
		if (!st)
			st = wr(ctx, pa, spec->pokes[i].bytes, spec->pokes[i].len, err);
	}
	return st;
}

static enum mdf_status build_notes(const struct gen_spec *spec, const struct gen_kernel *k,
				   uint8_t **notes, uint64_t *notesz, struct mdf_err *err)
{
	char *vmi = NULL;
	size_t vlen = 0;
	if (!spec->no_vmcoreinfo) {
		enum mdf_status st = gen_kernel_vmcoreinfo(spec, k, &vmi, err);
		if (st)
			return st;
		vlen = strlen(vmi);
	}
	/* s390x, per cpu after NT_PRSTATUS (fill_cpu_elf_notes()). */
	static const struct {
		const char *name;
		uint32_t type, size;
	} s390x_notes[] = {
		{ "CORE", NT_PRFPREG, 136 },        /* fpc, pad, fprs[16] */
		{ "LINUX", 0x301, 8 },              /* NT_S390_TIMER */
		{ "LINUX", 0x302, 8 },              /* NT_S390_TODCMP */
		{ "LINUX", 0x303, 4 },              /* NT_S390_TODPREG */
		{ "LINUX", 0x304, 128 },            /* NT_S390_CTRS */
		{ "LINUX", S390X_NT_PREFIX, 4 },    /* NT_S390_PREFIX */
		{ "LINUX", 0x309, 128 },            /* NT_S390_VXRS_LOW */
		{ "LINUX", 0x30a, 256 },            /* NT_S390_VXRS_HIGH */
	};
	const bool big = spec->big_endian, s390x = spec->arch == GEN_ARCH_S390X;
	uint32_t prsz = prstatus_size(spec->arch);
	size_t cap = spec->cpus * (12 + 8 + prsz) + 12 + 12 + align_up(vlen, 4);
	if (s390x)
		cap += 12 + 8 + PRPSINFO_SIZE +
		       spec->cpus * (sizeof(s390x_notes) / sizeof(s390x_notes[0])) *
			       (12 + 8 + S390X_NOTE_MAX);
	uint8_t *buf = calloc(1, cap), *p = buf;
	if (!buf) {
		free(vmi);
		return mdf_err_set(err, MDF_ERR_NOMEM, "notes: out of memory");
	}
	uint8_t prs[PRSTATUS_MAX];
	if (s390x) {   /* nt_prpsinfo(): the crashed "vmlinux", running */
		memset(prs, 0, sizeof(prs));
		prs[PRPSINFO_SNAME_OFF] = 'R';
		memcpy(prs + PRPSINFO_FNAME_OFF, "vmlinux", 7);
		put_note(&p, big, "CORE", NT_PRPSINFO, prs, PRPSINFO_SIZE, PRPSINFO_SIZE);
	}
	for (unsigned c = 0; c < spec->cpus; c++) {
		memset(prs, 0, sizeof(prs));
		gen_store32(big, prs + (gen_arch_32(spec->arch) ? PRSTATUS_PID_OFF_X86
								 : PRSTATUS_PID_OFF), c + 1);
		put_note(&p, big, "CORE", NT_PRSTATUS, prs, prsz, prsz);
		for (size_t i = 0; s390x && i < sizeof(s390x_notes) / sizeof(s390x_notes[0]); i++) {
			memset(prs, 0, sizeof(prs));
			if (s390x_notes[i].type == S390X_NT_PREFIX)   /* each cpu's lowcore */
				gen_store32(big, prs, 0x10000 * (c + 1));
			put_note(&p, big, s390x_notes[i].name, s390x_notes[i].type, prs,
				 s390x_notes[i].size, s390x_notes[i].size);
		}
	}
	if (vmi) {
		uint32_t field = (uint32_t)vlen;
		if (spec->note_overflow)
			field += 0x10000;   /* runs past the end of PT_NOTE */
		put_note(&p, big, "VMCOREINFO", 0, vmi, (uint32_t)vlen, field);
	}
	free(vmi);
	*notes = buf;
	*notesz = (uint64_t)(p - buf);
	return MDF_OK;
}

/*
 * i386: the last segment (a ram line) as kexec-tools makes it:
 * segregate_lowmem_region() cuts a range across its X86_MAXMEM in two, and
 * crash_create_elf32/64_headers() give a range ending above X86_MAXMEM
 * p_vaddr -1 (HIGHMEM), the others PAGE_OFFSET + paddr.  The cut keeps the
 * bytes: the file part goes to the first half as far as it reaches.
 */
static void x86_split(const struct gen_spec *spec, struct seg *segs, size_t *n)
{
	const uint64_t lim = GEN_X86_KEXEC_LOWMEM;
	const uint64_t minus1 = spec->elf32 ? UINT32_MAX : UINT64_MAX;
	struct seg *a = &segs[*n - 1];

	if (a->paddr < lim && a->paddr + a->memsz > lim) {
		struct seg *b = &segs[(*n)++];
		uint64_t head = lim - a->paddr;

		*b = *a;
		b->gap = 0;
		b->paddr = lim;
		b->memsz = a->memsz - head;
		b->filesz = a->filesz > head ? a->filesz - head : 0;
		a->memsz = head;
		a->filesz = MDF_MIN(a->filesz, head);
		b->vaddr = minus1;
	}
	if (a->paddr + a->memsz > lim)
		a->vaddr = minus1;
}

/*
 * arm: the p_vaddr kexec-tools gives a RAM range (kexec/arch/arm/
 * phys_to_virt.c, crashdump-arm.c): paddr + PAGE_OFFSET - phys_offset,
 * its phys_offset being the start of the first usable RAM range (sorted,
 * the crash kernel's excluded), in an unsigned long of 32 bits, also in
 * an ELF64 core; no lowmem limit (arm sets none), so highmem ranges get a
 * vaddr past lowmem or wrapped around.  It equals the kernel's direct map
 * when RAM starts at PHYS_OFFSET.
 */
static uint64_t arm_vaddr(const struct gen_spec *spec, uint64_t paddr)
{
	uint64_t first = UINT64_MAX;

	for (size_t i = 0; i < spec->nram; i++)
		first = MDF_MIN(first, spec->ram[i].start);
	return (uint32_t)(paddr + GEN_ARM_PAGE_OFFSET - first);
}

enum mdf_status gen_elf_write(const struct gen_spec *spec, const struct gen_kernel *k,
			      const char *path, struct mdf_err *err)
{
	struct out o = { .fd = -1, .path = path };
	uint8_t *notes = NULL;
	uint64_t notesz = 0;
	enum mdf_status st;

	/* x86 may split each range in two (lowmem, highmem). */
	o.segs = calloc(2 * spec->nram + 1 + KCORE_EXTRA, sizeof(*o.segs));
	if (!o.segs)
		return mdf_err_set(err, MDF_ERR_NOMEM, "segments: out of memory");
	if (spec->text_phdr) {
		struct seg *sg = &o.segs[o.nsegs++];
		sg->paddr = k->text_pa;
		sg->vaddr = k->text_va;
		sg->filesz = sg->memsz = spec->text_size;
		/* kexec-tools' MIPS image segment ends at _end, inside a page
		 * that the RAM segment holds whole */
		if (spec->text_tail) {
			uint64_t page = UINT64_C(1) << spec->page_shift;

			if (spec->text_tail >= page) {
				st = mdf_err_set(err, MDF_ERR_ARG,
						 "text_tail 0x%" PRIx64 " is not inside a page",
						 spec->text_tail);
				goto out;
			}
			sg->filesz = sg->memsz = spec->text_size - page + spec->text_tail;
		}
	}
	for (size_t i = 0; i < spec->nram; i++) {
		struct seg *sg = &o.segs[o.nsegs++];
		sg->paddr = spec->ram[i].start;
		/* phys_ram_base is 0 but on riscv64. */
		sg->vaddr = spec->page_offset + spec->ram[i].start - spec->phys_ram_base;
		sg->filesz = spec->ram[i].filesz;
		sg->memsz = spec->ram[i].memsz;
		sg->gap = spec->ram[i].gap;
		if (spec->arch == GEN_ARCH_X86)
			x86_split(spec, o.segs, &o.nsegs);
		if (spec->arch == GEN_ARCH_ARM)
			sg->vaddr = arm_vaddr(spec, sg->paddr);
		/* kexec-tools' PAGE_OFFSET, not the kernel's CAC_BASE: an
		 * XKPHYS alias (kexec/arch/mips/crashdump-mips.h) */
		if (spec->arch == GEN_ARCH_MIPS64)
			sg->vaddr = GEN_MIPS64_KEXEC_BASE + sg->paddr;
	}
	if (spec->kcore) {
		/* vmemmap from the struct page of pfn 0 (riscv64: of
		 * phys_ram_base's pfn, VMEMMAP_START). */
		uint64_t vmemmap = spec->arch == GEN_ARCH_RISCV64 ? spec->vmemmap_start
								 : spec->vmemmap;
		const uint64_t va[KCORE_EXTRA] = { spec->vmalloc_start,
						   gen_kernel_modules_vaddr(spec, k), vmemmap };
		for (size_t i = 0; i < KCORE_EXTRA; i++) {
			struct seg *sg = &o.segs[o.nsegs++];
			sg->nophys = true;
			sg->vaddr = va[i];
			sg->filesz = sg->memsz = KCORE_EXTRA_SIZE;
		}
	}
	st = build_notes(spec, k, &notes, &notesz, err);
	if (st)
		goto out;

	uint64_t note_off = align_up(ehdr_size(spec) + (1 + o.nsegs) * phdr_size(spec),
				     GEN_PAGE_SIZE);
	uint64_t off = align_up(note_off + notesz, GEN_PAGE_SIZE);
	for (size_t i = 0; i < o.nsegs; i++) {
		/* The gap of a ram range (text has none): unaligned offsets. */
		off += o.segs[i].gap;
		o.segs[i].offset = off;
		off += o.segs[i].filesz;
	}
	uint64_t file_size = off;

	o.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (o.fd < 0) {
		st = mdf_err_errno(err, MDF_ERR_IO, errno, "%s: cannot create", path);
		goto out;
	}
	if (spec->empty)
		goto out;
	if (ftruncate(o.fd, (off_t)file_size) != 0) {
		st = mdf_err_errno(err, MDF_ERR_IO, errno, "%s: ftruncate to 0x%" PRIx64, path,
				   file_size);
		goto out;
	}
	st = write_headers(spec, &o, file_size, notes, notesz, note_off, err);
	if (!st)
		st = gen_elf_write_memory(spec, k, phys_write, &o, err);
	if (!st && spec->has_truncate && ftruncate(o.fd, (off_t)spec->truncate_at) != 0)
		st = mdf_err_errno(err, MDF_ERR_IO, errno, "%s: truncate", path);
out:
	if (o.fd >= 0 && close(o.fd) != 0 && !st)
		st = mdf_err_errno(err, MDF_ERR_IO, errno, "%s: close", path);
	free(notes);
	free(o.segs);
	return st;
}
