/*
 * tests/unit/test_readmem.c - readmem.c: from an address of the crashed
 * machine to its bytes (virtual -> physical through the arch layer,
 * physical -> file offset through the input, file offset -> bytes through
 * the cache).
 *
 * Most cases need no real vmcore.  main() writes a small ELF64 x86_64 core
 * into a memfd (as test_memmap.c does) and a small kdump-compressed dump
 * into another.  The ELF core's physical memory, four PT_LOADs:
 *
 *   L0  0x00000-0x40000  file 0x10000  RAM; page tables at 0x1000-0x4fff
 *       0x40000-0x50000                a hole
 *   L1  0x50000-0x58000  file 0x50000
 *   L2  0x58000-0x60000  file 0x60000  right after L1 in memory, not in the
 *                                      file; p_filesz 0x5800: zeros from
 *                                      0x5d800 (the file holds junk there)
 *       0x60000-0x60800                a hole inside page 0x60
 *   L3  0x60800-0x62000  file 0x70800  starts mid-page; its file offset puts
 *                                      physical 0x61000 on a host page
 *       0x62000-0x63800                a hole: page 0x62 whole, 0x63 half
 *   L4  0x63800-0x64000  file 0x72800
 *
 * Every PT_LOAD is mapped at the default direct-map base, so the arch
 * layer proves the direct window from them; NUMBER(phys_base)=0 gives the
 * kernel-text window, and SYMBOL(init_top_pgt) page tables that map, in
 * the vmalloc area, 4 KiB pages scattered over the segments, a 2 MiB and a
 * 1 GiB mapping of physical 0 (machine_build()).  Each 8-byte word of
 * memory is a function of its physical address, so a byte read from the
 * wrong place shows.
 *
 * The machine is opened with the input-layer calls themselves (elf_info,
 * cache, vmcoreinfo_parse, arch_init, readmem_init), not kernel_open(), so
 * that readmem is what is under test.
 *
 * The cases on a machine made by tests/gen/mkvmcore (the no-copy reads)
 * run when that tool is built; t_real_fixtures when $MDF_VMCORE_CACHE
 * holds the fixture vmcores (tests/lib/realvm.h).
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/arch.h"
#include "cache.h"
#include "diskdump.h"
#include "diskdump_read.h"
#include "elf_info.h"
#include "error.h"
#include "kernel/memmap.h"
#include "kernel/vmcoreinfo.h"
#include "kinfo.h"
#include "readmem.h"
#include "tap.h"
#include "realvm.h"
#include "vmsetup.h"
#include "util.h"

#define PAGE 4096ULL
#define SPS 64 /* SIZE(page) of the generator's 6.1 layout */

/* ---- the synthetic ELF machine --------------------------------------- */

#define PO 0xffff888000000000ULL    /* direct map (default, 4-level) */
#define KTEXT 0xffffffff80000000ULL /* kernel image map, phys_base 0 */
#define VM 0xffffc90000000000ULL    /* vmalloc: 4 KiB pages */
#define VM2M (VM + 0x200000)        /* one 2 MiB mapping of physical 0 */
#define VM1G (VM + 0x40000000)      /* one 1 GiB mapping of physical 0 */
#define PHYS_END 0x64000u
#define FILE_SIZE 0x73000u
#define HDR_SIZE 0x10000u
#define PGD_PA 0x1000u
#define PT_POOL 0x2000u

#define PTE_P 0x001ULL
#define PTE_RW 0x002ULL
#define PTE_AD 0x060ULL
#define PTE_PSE 0x080ULL
#define PTE_MASK 0x000ffffffffff000ULL

struct seg {
	uint64_t pa, filesz, memsz, off;
};

static const struct seg segs[] = {
	{ 0x00000, 0x40000, 0x40000, 0x10000 }, /* L0 */
	{ 0x50000, 0x08000, 0x08000, 0x50000 }, /* L1 */
	{ 0x58000, 0x05800, 0x08000, 0x60000 }, /* L2, zero tail */
	{ 0x60800, 0x01800, 0x01800, 0x70800 }, /* L3, mid-page start */
	{ 0x63800, 0x00800, 0x00800, 0x72800 }, /* L4, after a hole of 1.5 pages */
};
#define OFF0 0x10000u /* file offset of physical 0 */
#define OFF1 0x50000u /* ... of physical 0x50000 */

/* What the memory holds: zeros in the holes and the zero tail. */
static unsigned char phys[PHYS_END];
static unsigned char file_img[FILE_SIZE];
static uint64_t pt_next;
static uint64_t pte_absent_pa; /* the PTE of VM + 0x4000 (not present) */

static const char vmcoreinfo_text[] =
	"OSRELEASE=6.1.0-readmem\n"
	"PAGESIZE=4096\n"
	"SYMBOL(init_top_pgt)=ffffffff80001000\n"
	"NUMBER(phys_base)=0\n"
	"KERNELOFFSET=0\n";

static unsigned pt_idx(uint64_t va, unsigned level)
{
	return (unsigned)(va >> (12 + 9 * level)) & 511;
}

/* The next-level table under entry @idx of @table, made when absent. */
static uint64_t pt_table(uint64_t table, unsigned idx)
{
	uint64_t e = load_le64(phys + table + idx * 8);

	if (!(e & PTE_P)) {
		uint64_t t = pt_next;

		pt_next += PAGE;
		memset(phys + t, 0, PAGE);
		e = t | PTE_P | PTE_RW | PTE_AD;
		store_le64(phys + table + idx * 8, e);
	}
	return e & PTE_MASK;
}

/* Put @entry at level @leaf (0 PTE, 1 PMD, 2 PUD) for @va; returns the
 * physical address of the entry. */
static uint64_t pt_map(uint64_t va, unsigned leaf, uint64_t entry)
{
	uint64_t t = PGD_PA, ep;

	for (unsigned l = 3; l > leaf; l--)
		t = pt_table(t, pt_idx(va, l));
	ep = t + pt_idx(va, leaf) * 8;
	store_le64(phys + ep, entry);
	return ep;
}

#define PTE(pa) ((uint64_t)(pa) | PTE_P | PTE_RW | PTE_AD)
#define HUGE(pa) ((uint64_t)(pa) | PTE_P | PTE_RW | PTE_AD | PTE_PSE)

static void machine_build(void)
{
	for (uint64_t pa = 0; pa < PHYS_END; pa += 8)
		store_le64(phys + pa, (pa * 0x9e3779b97f4a7c15ULL) ^ 0x0123456789abcdefULL);
	memset(phys + 0x40000, 0, 0x10000);
	memset(phys + 0x5d800, 0, 0x2800); /* L2's zero tail */
	memset(phys + 0x60000, 0, 0x800);
	memset(phys + 0x62000, 0, 0x1800);

	memset(phys + PGD_PA, 0, PAGE);
	pt_next = PT_POOL;
	pt_map(VM + 0x0000, 0, PTE(0x3f000));  /* L0's last page, then */
	pt_map(VM + 0x1000, 0, PTE(0x50000));  /* L1's first, past the hole */
	pt_map(VM + 0x2000, 0, PTE(0x20000));  /* contiguous, separate PTEs */
	pt_map(VM + 0x3000, 0, PTE(0x21000));
	pte_absent_pa = pt_map(VM + 0x4000, 0, 0x12345000); /* not present */
	pt_map(VM + 0x5000, 0, PTE(0x45000));  /* mapped, into the hole */
	pt_map(VM + 0x6000, 0, PTE(0x5d000));  /* half file, half zero tail */
	pt_map(VM + 0x7000, 0, PTE(0x30000));  /* one file run, but pages */
	pt_map(VM + 0x8000, 0, PTE(0x10000));  /* out of order */
	pt_map(VM2M, 1, HUGE(0));
	pt_map(VM1G, 2, HUGE(0));
}

static void put_le(unsigned char *p, unsigned bytes, uint64_t v)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

#define EH(field) offsetof(Elf64_Ehdr, field)
#define PH(field) offsetof(Elf64_Phdr, field)

/* The core file, in file_img; a memfd of it, or -1. */
static int write_core(void)
{
	size_t tl = strlen(vmcoreinfo_text), note_off = 0x400;
	size_t note_len = 12 + 12 + ((tl + 3) & ~(size_t)3);
	unsigned nph = 1 + (unsigned)ARRAY_SIZE(segs);
	unsigned char *p;
	int fd;

	memset(file_img, 0xee, sizeof(file_img)); /* junk wherever no segment is */
	memset(file_img, 0, HDR_SIZE);
	memcpy(file_img, ELFMAG, SELFMAG);
	file_img[EI_CLASS] = ELFCLASS64;
	file_img[EI_DATA] = ELFDATA2LSB;
	file_img[EI_VERSION] = EV_CURRENT;
	put_le(file_img + EH(e_type), 2, ET_CORE);
	put_le(file_img + EH(e_machine), 2, EM_X86_64);
	put_le(file_img + EH(e_version), 4, EV_CURRENT);
	put_le(file_img + EH(e_phoff), 8, sizeof(Elf64_Ehdr));
	put_le(file_img + EH(e_ehsize), 2, sizeof(Elf64_Ehdr));
	put_le(file_img + EH(e_phentsize), 2, sizeof(Elf64_Phdr));
	put_le(file_img + EH(e_phnum), 2, nph);
	p = file_img + sizeof(Elf64_Ehdr);
	put_le(p + PH(p_type), 4, PT_NOTE);
	put_le(p + PH(p_offset), 8, note_off);
	put_le(p + PH(p_filesz), 8, note_len);
	for (size_t i = 0; i < ARRAY_SIZE(segs); i++) {
		p += sizeof(Elf64_Phdr);
		put_le(p + PH(p_type), 4, PT_LOAD);
		put_le(p + PH(p_flags), 4, PF_R | PF_W | PF_X);
		put_le(p + PH(p_offset), 8, segs[i].off);
		put_le(p + PH(p_vaddr), 8, PO + segs[i].pa);
		put_le(p + PH(p_paddr), 8, segs[i].pa);
		put_le(p + PH(p_filesz), 8, segs[i].filesz);
		put_le(p + PH(p_memsz), 8, segs[i].memsz);
		memcpy(file_img + segs[i].off, phys + segs[i].pa, segs[i].filesz);
	}
	p = file_img + note_off;
	put_le(p, 4, sizeof("VMCOREINFO"));
	put_le(p + 4, 4, tl);
	memcpy(p + 12, "VMCOREINFO", sizeof("VMCOREINFO"));
	memcpy(p + 24, vmcoreinfo_text, tl);

	fd = memfd_create("readmem.core", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (pwrite(fd, file_img, sizeof(file_img), 0) != (ssize_t)sizeof(file_img)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- an opened input, the way dump.c sees it ------------------------- */

struct rig {
	int fd;
	bool have_elf, have_cache;
	struct elf_info elf;
	struct cache cache;
	struct kinfo ki;
	struct arch_state arch;
};

/* elf_info, a cache over @fd (@cc), VMCOREINFO and the arch layer with the
 * PT_LOAD hints (as kernel_open() gives them). */
static enum mdf_status rig_open(struct rig *r, int fd, const char *name,
				const struct cache_config *cc, struct mdf_err *err)
{
	struct arch_seg_hint hints[64];
	size_t nh = 0;
	enum mdf_status st;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	st = elf_info_open(&r->elf, fd, name, err);
	if (st != MDF_OK)
		return st;
	r->have_elf = true;
	st = cache_init(&r->cache, fd, name, cc, err);
	if (st != MDF_OK)
		return st;
	r->have_cache = true;
	kinfo_init(&r->ki);
	st = vmcoreinfo_parse(r->elf.vmcoreinfo, r->elf.vmcoreinfo_len, &r->ki, err);
	if (st != MDF_OK)
		return st;
	for (size_t i = 0; i < r->elf.nloads && nh < ARRAY_SIZE(hints); i++, nh++) {
		hints[nh].vaddr = r->elf.loads[i].vaddr;
		hints[nh].paddr = r->elf.loads[i].paddr;
		hints[nh].size = r->elf.loads[i].memsz;
	}
	return arch_init(&r->arch, r->elf.e_machine, &r->ki, hints, nh, err);
}

static void rig_close(struct rig *r)
{
	if (r->have_cache)
		cache_release(&r->cache);
	if (r->have_elf)
		elf_info_close(&r->elf);
	r->have_cache = r->have_elf = false;
}

/* The synthetic machine, opened once by main(). */
static struct rig E;
static bool E_ok;
static char E_why[MDF_ERR_MSG_MAX + 64];
static long host_page;

#define NEED_ENV()                                               \
	do {                                                     \
		if (!E_ok) {                                     \
			t_fail(__FILE__, __LINE__, E_why);       \
			return;                                  \
		}                                                \
	} while (0)

/* Which pages of the core are mapped windows depends on the host's page
 * size: the cases that count windows and pins assume 4 KiB. */
#define NEED_4K()                                                \
	do {                                                     \
		NEED_ENV();                                      \
		if (host_page != 4096) {                         \
			t_skip("host pages are not 4 KiB");      \
			return;                                  \
		}                                                \
	} while (0)

/* A cache of its own over the machine's file (@rel: the released hook). */
static enum mdf_status own_cache(struct cache *c, enum cache_mmap_policy pol,
				 size_t nentries, void (*rel)(void *, size_t),
				 struct mdf_err *err)
{
	struct cache_config cc = { .policy = pol, .nentries = nentries, .released = rel };

	return cache_init(c, E.fd, "readmem.core", &cc, err);
}

/* ---- checks ----------------------------------------------------------- */

/* @st must be @want, and the message start with @prefix and, when @part
 * is not NULL, contain it. */
static int err_is(enum mdf_status st, const struct mdf_err *err, enum mdf_status want,
		  const char *prefix, const char *part, char *why, size_t cap)
{
	if (st == want && strncmp(err->msg, prefix, strlen(prefix)) == 0 &&
	    (!part || strstr(err->msg, part)))
		return 1;
	snprintf(why, cap, "status %d (want %d), msg \"%.300s\", want \"%.200s\"...\"%.100s\"",
		 (int)st, (int)want, st == MDF_OK ? "" : err->msg, prefix, part ? part : "");
	return 0;
}

#define T_ERR(call, errv, want, prefix, part)                                \
	do {                                                                 \
		char why_[800];                                              \
		enum mdf_status s_ = (call);                                 \
		if (!err_is(s_, &(errv), (want), (prefix), (part), why_, sizeof(why_))) { \
			t_fail(__FILE__, __LINE__, why_);                    \
			return;                                              \
		}                                                            \
	} while (0)

/* The exact message, built with printf. */
#define T_ERRF(call, errv, want, ...)                                        \
	do {                                                                 \
		char want_[400];                                             \
		snprintf(want_, sizeof(want_), __VA_ARGS__);                 \
		T_ERR(call, errv, want, want_, NULL);                        \
	} while (0)

/* @len bytes at @got equal memory at physical @pa. */
#define T_PHYS(got, pa, len) T_ASSERT(memcmp((got), phys + (pa), (len)) == 0)

/* ---- readmem_paddr ---------------------------------------------------- */

static void t_paddr(void)
{
	static unsigned char buf[0x30000];
	struct readmem rm;
	struct mdf_err err;

	NEED_ENV();
	readmem_init(&rm, &E.elf, &E.cache, &E.arch, PAGE);
	/* in a page, across a page, across many pages of one PT_LOAD */
	T_OK(readmem_paddr(&rm, 0x12340, buf, 0x80, &err), &err);
	T_PHYS(buf, 0x12340, 0x80);
	T_OK(readmem_paddr(&rm, 0x12ff9, buf, 0x11, &err), &err);
	T_PHYS(buf, 0x12ff9, 0x11);
	T_OK(readmem_paddr(&rm, 0x10000, buf, 0x30000, &err), &err);
	T_PHYS(buf, 0x10000, 0x30000);
	/* L1 into L2: adjacent in memory, apart in the file */
	T_OK(readmem_paddr(&rm, 0x57ff0, buf, 0x20, &err), &err);
	T_PHYS(buf, 0x57ff0, 0x20);
	/* all of L1 and L2: file data, then zeros past p_filesz (the file
	 * holds 0xee there) */
	memset(buf, 0x5a, 0x10000);
	T_OK(readmem_paddr(&rm, 0x50000, buf, 0x10000, &err), &err);
	T_PHYS(buf, 0x50000, 0x10000);
	T_OK(readmem_paddr(&rm, 0x5d7f8, buf, 0x10, &err), &err);
	T_PHYS(buf, 0x5d7f8, 0x10);
	T_ASSERT(load_le64(buf + 8) == 0 && load_le64(buf) != 0);
	/* L3 from its mid-page start: a piece of a host page, then a whole one */
	T_OK(readmem_paddr(&rm, 0x60800, buf, 0x1800, &err), &err);
	T_PHYS(buf, 0x60800, 0x1800);
	T_OK(readmem_paddr(&rm, 0x63800, buf, 0x800, &err), &err);
	T_PHYS(buf, 0x63800, 0x800);

	/* Holes: MDF_ERR_NODATA naming the first missing address. */
	T_ERR(readmem_paddr(&rm, 0x3fff0, buf, 0x20, &err), err, MDF_ERR_NODATA,
	      "physical address 0x40000 is not in ", NULL);
	T_ERR(readmem_paddr(&rm, 0x48000, buf, 1, &err), err, MDF_ERR_NODATA,
	      "physical address 0x48000 is not in ", NULL);
	T_ERR(readmem_paddr(&rm, 0x5fff8, buf, 0x10, &err), err, MDF_ERR_NODATA,
	      "physical address 0x60000 is not in ", NULL);
	T_ERR(readmem_paddr(&rm, 0x61ff8, buf, 0x10, &err), err, MDF_ERR_NODATA,
	      "physical address 0x62000 is not in ", NULL);
	T_ERR(readmem_paddr(&rm, PHYS_END, buf, 1, &err), err, MDF_ERR_NODATA,
	      "physical address 0x64000 is not in ", NULL);
	T_ERR(readmem_paddr(&rm, UINT64_MAX - 3, buf, 8, &err), err, MDF_ERR_NODATA,
	      "physical address 0xfffffffffffffffc is not in ", NULL);

	/* Physical reads need no translation. */
	readmem_init(&rm, &E.elf, &E.cache, NULL, PAGE);
	T_OK(readmem_paddr(&rm, 0x57ff0, buf, 0x20, &err), &err);
	T_PHYS(buf, 0x57ff0, 0x20);
}

/* ---- translation ------------------------------------------------------ */

/* The direct map and the kernel text: no page-table walk at all. */
static void t_vaddr_fast(void)
{
	static unsigned char buf[0x10000];
	struct readmem rm;
	struct mdf_err err;
	uint64_t pa, contig, v;

	NEED_ENV();
	readmem_init(&rm, &E.elf, &E.cache, &E.arch, PAGE);
	T_OK(readmem_vtop(&rm, PO + 0x12345, &pa, &contig, &err), &err);
	T_EQ_U64(pa, 0x12345);
	T_EQ_U64(contig, 0x1000 - 0x345); /* known to the end of the page */
	T_OK(readmem_vtop(&rm, KTEXT + 0x57ff8, &pa, &contig, &err), &err);
	T_EQ_U64(pa, 0x57ff8);
	T_EQ_U64(contig, 8);
	/* translation does not look at the data: a hole translates */
	T_OK(readmem_vtop(&rm, PO + 0x45000, &pa, NULL, &err), &err);
	T_EQ_U64(pa, 0x45000);
	T_EQ_U64(rm.walks, 0);

	T_OK(readmem_vaddr(&rm, PO + 0x12ff8, buf, 0x10, &err), &err);
	T_PHYS(buf, 0x12ff8, 0x10);
	T_OK(readmem_vaddr(&rm, KTEXT + 0x57ff0, buf, 0x20, &err), &err);
	T_PHYS(buf, 0x57ff0, 0x20);
	T_OK(readmem_vaddr(&rm, PO + 0x50000, buf, 0x10000, &err), &err);
	T_PHYS(buf, 0x50000, 0x10000);
	T_OK(readmem_vaddr(&rm, PO + 0x60ffc, buf, 0x1004, &err), &err);
	T_PHYS(buf, 0x60ffc, 0x1004);
	T_OK(readmem_vaddr(&rm, PO, buf, 0, &err), &err);
	T_EQ_U64(rm.walks, 0);

	/* readmem_u64: little-endian, across pages, into the zero tail */
	T_OK(readmem_u64(&rm, PO + 0x12340, &v, &err), &err);
	T_EQ_U64(v, load_le64(phys + 0x12340));
	T_OK(readmem_u64(&rm, KTEXT + 0x12ffc, &v, &err), &err);
	T_EQ_U64(v, load_le64(phys + 0x12ffc));
	T_OK(readmem_u64(&rm, PO + 0x5d7fc, &v, &err), &err);
	T_EQ_U64(v, load_le64(phys + 0x5d7fc));
	T_ASSERT(v >> 32 == 0 && v != 0);

	/* A hole: the piece before it is read, the error names the address
	 * of the piece that failed. */
	T_ERR(readmem_vaddr(&rm, PO + 0x3fff0, buf, 0x20, &err), err, MDF_ERR_NODATA,
	      "reading virtual address 0xffff888000040000: physical address 0x40000 is not in ",
	      NULL);
	v = 0x77;
	T_ERR(readmem_u64(&rm, PO + 0x47ff8, &v, &err), err, MDF_ERR_NODATA,
	      "reading virtual address 0xffff888000047ff8: physical address 0x47ff8 is not in ",
	      NULL);
	T_EQ_U64(v, 0x77); /* untouched on failure */
}

/* Page tables: 4 KiB pages, a 2 MiB and a 1 GiB mapping, the one-entry
 * translation cache, and walks that fail. */
static void t_vaddr_walk(void)
{
	static unsigned char buf[0x4000], want[0x4000];
	struct readmem rm;
	struct mdf_err err;
	uint64_t pa, contig, v, w;

	NEED_ENV();
	readmem_init(&rm, &E.elf, &E.cache, &E.arch, PAGE);
	T_OK(readmem_vtop(&rm, VM + 0x10, &pa, &contig, &err), &err);
	T_EQ_U64(pa, 0x3f010);
	T_EQ_U64(contig, 0xff0);
	T_EQ_U64(rm.walks, 1);
	T_OK(readmem_vtop(&rm, VM + 0xff8, &pa, &contig, &err), &err); /* same page */
	T_EQ_U64(pa, 0x3fff8);
	T_EQ_U64(contig, 8);
	T_EQ_U64(rm.walks, 1);
	T_OK(readmem_vtop(&rm, VM + 0x1000, &pa, &contig, &err), &err);
	T_EQ_U64(pa, 0x50000);
	T_EQ_U64(contig, 0x1000);
	T_EQ_U64(rm.walks, 2);

	/* Virtually contiguous, physically apart: page by page. */
	T_OK(readmem_vaddr(&rm, VM + 0xff0, buf, 0x20, &err), &err);
	T_PHYS(buf, 0x3fff0, 0x10);
	T_PHYS(buf + 0x10, 0x50000, 0x10);
	memcpy(want, phys + 0x3f000, 0x1000);
	memcpy(want + 0x1000, phys + 0x50000, 0x1000);
	memcpy(want + 0x2000, phys + 0x20000, 0x2000);
	T_OK(readmem_vaddr(&rm, VM, buf, 0x4000, &err), &err);
	T_ASSERT(memcmp(buf, want, 0x4000) == 0);
	T_OK(readmem_u64(&rm, VM + 0xffc, &v, &err), &err);
	T_EQ_U64(v, load_le64(want + 0xffc));
	memset(buf, 0x5a, 0x1000);
	T_OK(readmem_vaddr(&rm, VM + 0x6000, buf, 0x1000, &err), &err);
	T_PHYS(buf, 0x5d000, 0x1000); /* half file data, half zeros */
	T_OK(readmem_vaddr(&rm, VM + 0x7ff8, buf, 0x10, &err), &err);
	T_PHYS(buf, 0x30ff8, 8);
	T_PHYS(buf + 8, 0x10000, 8);

	/* 2 MiB: one walk serves the whole mapping. */
	w = rm.walks;
	T_OK(readmem_vtop(&rm, VM2M + 0x12345, &pa, &contig, &err), &err);
	T_EQ_U64(pa, 0x12345);
	T_EQ_U64(contig, 0x200000 - 0x12345);
	T_EQ_U64(rm.walks, w + 1);
	T_OK(readmem_vtop(&rm, VM2M + 0x1fffff, &pa, &contig, &err), &err);
	T_EQ_U64(pa, 0x1fffff);
	T_EQ_U64(contig, 1);
	T_OK(readmem_vaddr(&rm, VM2M + 0x57ff0, buf, 0x20, &err), &err);
	T_PHYS(buf, 0x57ff0, 0x20); /* two PT_LOADs, one translation */
	T_OK(readmem_vaddr(&rm, VM2M + 0x50000, buf, 0x4000, &err), &err);
	T_PHYS(buf, 0x50000, 0x4000);
	T_EQ_U64(rm.walks, w + 1);
	/* One error in between keeps the cached translation. */
	T_ASSERT(readmem_vtop(&rm, VM + 0x4000, &pa, &contig, &err) == MDF_ERR_NODATA);
	T_OK(readmem_vtop(&rm, VM2M + 5, &pa, &contig, &err), &err);
	T_EQ_U64(pa, 5);
	T_EQ_U64(rm.walks, w + 1);
	/* 1 GiB */
	T_OK(readmem_vtop(&rm, VM1G + 0x61fff, &pa, &contig, &err), &err);
	T_EQ_U64(pa, 0x61fff);
	T_EQ_U64(contig, 0x40000000 - 0x61fff);
	T_EQ_U64(rm.walks, w + 2);
	T_OK(readmem_vtop(&rm, VM1G + 0x3fffffff, &pa, &contig, &err), &err);
	T_EQ_U64(pa, 0x3fffffff);
	T_EQ_U64(contig, 1);
	T_EQ_U64(rm.walks, w + 2);
	/* the 2 MiB mapping again: one entry only, so a new walk */
	T_OK(readmem_vtop(&rm, VM2M + 5, &pa, &contig, &err), &err);
	T_EQ_U64(rm.walks, w + 3);

	/* One translation over a hole: the error names the piece read. */
	T_ERR(readmem_vaddr(&rm, VM2M + 0x3fff0, buf, 0x20, &err), err, MDF_ERR_NODATA,
	      "reading virtual address 0xffffc9000023fff0: physical address 0x40000 is not in ",
	      NULL);
	/* A PTE that is not present, and a page mapped into the hole. */
	T_ERRF(readmem_vtop(&rm, VM + 0x4000, &pa, &contig, &err), err, MDF_ERR_NODATA,
	       "x86_64: virtual address 0xffffc90000004000 not mapped (PTE entry 0x12345000 at paddr 0x%llx not present)",
	       (unsigned long long)pte_absent_pa);
	T_ERRF(readmem_vaddr(&rm, VM + 0x3ff8, buf, 0x10, &err), err, MDF_ERR_NODATA,
	       "reading virtual address 0xffffc90000004000: x86_64: virtual address 0xffffc90000004000 "
	       "not mapped (PTE entry 0x12345000 at paddr 0x%llx not present)",
	       (unsigned long long)pte_absent_pa);
	T_OK(readmem_vtop(&rm, VM + 0x5000, &pa, &contig, &err), &err);
	T_EQ_U64(pa, 0x45000);
	T_ERR(readmem_vaddr(&rm, VM + 0x5000, buf, 8, &err), err, MDF_ERR_NODATA,
	      "reading virtual address 0xffffc90000005000: physical address 0x45000 is not in ",
	      NULL);
}

/* Addresses nothing translates; and no translation at all. */
static void t_untranslatable(void)
{
	static unsigned char scratch[PAGE];
	unsigned char buf[64];
	const unsigned char *p;
	struct readmem rm;
	struct mdf_err err, e2;
	uint64_t pa = 0x99, v = 0x99, contig;
	static const uint64_t bad[] = { PO + PHYS_END, 0x0000900000000000ULL, 0x1000 };

	NEED_ENV();
	readmem_init(&rm, &E.elf, &E.cache, &E.arch, PAGE);
	/* past the end of RAM the direct window stops: a walk, no PGD entry */
	T_ERRF(readmem_vtop(&rm, PO + PHYS_END, &pa, &contig, &err), err, MDF_ERR_NODATA,
	       "x86_64: virtual address 0x%llx not mapped (PGD entry 0x0 at paddr 0x%llx not present)",
	       PO + PHYS_END, (unsigned long long)(PGD_PA + pt_idx(PO, 3) * 8));
	T_ERR(readmem_vtop(&rm, 0x0000900000000000ULL, &pa, &contig, &err), err, MDF_ERR_NODATA,
	      "x86_64: virtual address 0x900000000000 is not canonical for 4-level paging", NULL);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char want[128];
		enum mdf_status s1, s2;

		snprintf(want, sizeof(want), "reading virtual address 0x%llx: x86_64: virtual address 0x%llx ",
			 (unsigned long long)bad[i], (unsigned long long)bad[i]);
		T_ERR(readmem_vaddr(&rm, bad[i], buf, sizeof(buf), &err), err, MDF_ERR_NODATA,
		      want, NULL);
		s2 = readmem_vaddr_view(&rm, bad[i], sizeof(buf), buf, &p, &e2);
		T_EQ_U64(s2, MDF_ERR_NODATA);
		T_EQ_STR(e2.msg, err.msg);
		s1 = readmem_u64(&rm, bad[i], &v, &e2);
		T_EQ_U64(s1, MDF_ERR_NODATA);
		T_EQ_STR(e2.msg, err.msg);
	}

	/* rm->arch NULL: physical reads only. */
	readmem_init(&rm, &E.elf, &E.cache, NULL, PAGE);
	T_ERR(readmem_vtop(&rm, PO, &pa, &contig, &err), err, MDF_ERR_NOTSUPP,
	      "virtual address 0xffff888000000000: no address translation", NULL);
	T_ASSERT(strcmp(err.msg, "virtual address 0xffff888000000000: no address translation") == 0);
	T_EQ_U64(pa, 0x99);
	T_ERR(readmem_vaddr(&rm, PO + 0x10, buf, 8, &err), err, MDF_ERR_NOTSUPP,
	      "reading virtual address 0xffff888000000010: virtual address 0xffff888000000010: "
	      "no address translation", NULL);
	T_EQ_U64(readmem_vaddr_view(&rm, PO + 0x10, 8, buf, &p, &e2), MDF_ERR_NOTSUPP);
	T_EQ_STR(e2.msg, err.msg);
	T_EQ_U64(readmem_u64(&rm, PO + 0x10, &v, &e2), MDF_ERR_NOTSUPP);
	T_EQ_STR(e2.msg, err.msg);
	T_EQ_U64(v, 0x99);
	T_OK(readmem_paddr(&rm, 0x10, buf, 8, &err), &err);
	T_PHYS(buf, 0x10, 8);
	T_OK(readmem_page(&rm, 0x10, scratch, &p, &err), &err);
	T_PHYS(p, 0x10000, PAGE);
}

/* ---- readmem_vaddr_view ----------------------------------------------- */

/* In place (a pointer into the cache, @buf untouched) or copied into @buf. */
static int view_is(struct readmem *rm, uint64_t va, size_t len, bool in_place,
		   const unsigned char *want, char *why, size_t cap)
{
	static unsigned char buf[0x4000];
	const unsigned char *p = NULL;
	struct mdf_err err;
	enum mdf_status st;
	size_t untouched = 0;

	memset(buf, 0x5a, sizeof(buf));
	st = readmem_vaddr_view(rm, va, len, buf, &p, &err);
	while (untouched < len && buf[untouched] == 0x5a)
		untouched++;
	if (st != MDF_OK || !p || (p == buf) == in_place || memcmp(p, want, len) != 0 ||
	    (in_place && untouched != len)) {
		snprintf(why, cap, "view 0x%llx+0x%zx: status %d (%.300s), %s (want %s), bytes %s",
			 (unsigned long long)va, len, (int)st, st == MDF_OK ? "" : err.msg,
			 p == buf ? "copied" : "in place", in_place ? "in place" : "copied",
			 p && memcmp(p, want, len) == 0 ? "right" : "wrong");
		return 0;
	}
	return 1;
}

#define T_VIEW(rm, va, len, in_place, want)                                  \
	do {                                                                 \
		char why_[600];                                              \
		if (!view_is((rm), (va), (len), (in_place), (want), why_, sizeof(why_))) { \
			t_fail(__FILE__, __LINE__, why_);                    \
			return;                                              \
		}                                                            \
	} while (0)

static void t_view(void)
{
	static unsigned char want[0x100];
	unsigned char buf[64];
	const unsigned char *p;
	struct readmem rm;
	struct cache never;
	struct mdf_err err, e2;
	enum mdf_status s1, s2;

	NEED_ENV();
	readmem_init(&rm, &E.elf, &E.cache, &E.arch, PAGE);
	/* one translation, one file run: in place */
	T_VIEW(&rm, PO + 0x10000, 0x100, true, phys + 0x10000);
	T_VIEW(&rm, KTEXT + 0x57f00, 0x100, true, phys + 0x57f00);
	T_VIEW(&rm, VM + 0x1010, 0x40, true, phys + 0x50010);
	T_VIEW(&rm, VM2M + 0x10000, 0x2000, true, phys + 0x10000); /* across pages */
	T_VIEW(&rm, VM2M + 0x61000, 0x1000, true, phys + 0x61000);
	/* else copied, with the same bytes */
	memcpy(want, phys + 0x3ffe0, 0x20);
	memcpy(want + 0x20, phys + 0x50000, 0x20);
	T_VIEW(&rm, VM + 0xfe0, 0x40, false, want);            /* two mappings */
	T_VIEW(&rm, VM2M + 0x57ff0, 0x20, false, phys + 0x57ff0); /* two PT_LOADs */
	T_VIEW(&rm, VM2M + 0x5d7f0, 0x20, false, phys + 0x5d7f0); /* into the zero tail */
	T_VIEW(&rm, VM2M + 0x5e000, 0x100, false, phys + 0x5e000); /* all zero tail */
	/* the ends of a segment's host pages (one span, with larger pages) */
	T_VIEW(&rm, VM2M + 0x5cff0, 0x20, host_page != 4096, phys + 0x5cff0);
	T_VIEW(&rm, VM2M + 0x60ff0, 0x20, host_page != 4096, phys + 0x60ff0);
	T_VIEW(&rm, VM + 0x6000, 0x1000, false, phys + 0x5d000);
	/* two pages of one file run, not in order */
	memcpy(want, phys + 0x30fe0, 0x20);
	memcpy(want + 0x20, phys + 0x10000, 0x20);
	T_VIEW(&rm, VM + 0x7fe0, 0x40, false, want);
	/* nothing asked: nothing read, @buf returned */
	T_OK(readmem_vaddr_view(&rm, VM + 0x4000, 0, buf, &p, &err), &err);
	T_ASSERT(p == buf);
	/* errors are the copying read's */
	s1 = readmem_vaddr(&rm, PO + 0x3fff0, buf, 0x20, &err);
	s2 = readmem_vaddr_view(&rm, PO + 0x3fff0, 0x20, buf, &p, &e2);
	T_EQ_U64(s1, MDF_ERR_NODATA);
	T_EQ_U64(s2, s1);
	T_EQ_STR(e2.msg, err.msg);
	s1 = readmem_vaddr(&rm, VM + 0x4000, buf, 8, &err);
	s2 = readmem_vaddr_view(&rm, VM + 0x4000, 8, buf, &p, &e2);
	T_EQ_U64(s1, MDF_ERR_NODATA);
	T_EQ_U64(s2, s1);
	T_EQ_STR(e2.msg, err.msg);

	/* From a read buffer (no mmap): still in place. */
	T_OK(own_cache(&never, CACHE_MMAP_NEVER, 0, NULL, &err), &err);
	readmem_init(&rm, &E.elf, &never, &E.arch, PAGE);
	s1 = view_is(&rm, PO + 0x10000, 0x100, true, phys + 0x10000, e2.msg, sizeof(e2.msg))
		? MDF_OK : MDF_ERR_INTERNAL;
	cache_release(&never);
	T_OK(s1, &e2);
}

/* ---- pages ------------------------------------------------------------ */

/* readmem_page(@pfn): in place (not @scratch) or assembled in @scratch. */
static unsigned char scratch_g[PAGE + 0x2000]; /* a page and a guard */

static bool guard_intact(void)
{
	for (size_t i = PAGE; i < sizeof(scratch_g); i++)
		if (scratch_g[i] != 0x5a)
			return false;
	return true;
}

static int page_is(struct readmem *rm, uint64_t pfn, bool in_place, char *why, size_t cap)
{
	unsigned char *scratch = scratch_g;
	const unsigned char *p = NULL;
	struct mdf_err err;
	enum mdf_status st;

	memset(scratch_g, 0x5a, sizeof(scratch_g));
	st = readmem_page(rm, pfn, scratch, &p, &err);
	if (st != MDF_OK || !p || (p == scratch) == in_place || !guard_intact() ||
	    memcmp(p, phys + pfn * PAGE, PAGE) != 0) {
		snprintf(why, cap, "pfn 0x%llx: status %d (%.300s), %s (want %s), bytes %s%s",
			 (unsigned long long)pfn, (int)st, st == MDF_OK ? "" : err.msg,
			 p == scratch ? "in scratch" : "in place",
			 in_place ? "in place" : "in scratch",
			 p && memcmp(p, phys + pfn * PAGE, PAGE) == 0 ? "right" : "wrong",
			 guard_intact() ? "" : ", written past the scratch page");
		return 0;
	}
	return 1;
}

#define T_PAGE(rm, pfn, in_place)                                            \
	do {                                                                 \
		char why_[600];                                              \
		if (!page_is((rm), (pfn), (in_place), why_, sizeof(why_))) { \
			t_fail(__FILE__, __LINE__, why_);                    \
			return;                                              \
		}                                                            \
	} while (0)

static void t_page(void)
{
	static unsigned char scratch[PAGE];
	const unsigned char *p;
	struct readmem rm;
	struct cache never;
	struct mdf_err err;
	bool ok;

	NEED_ENV();
	readmem_init(&rm, &E.elf, &E.cache, &E.arch, PAGE);
	T_PAGE(&rm, 0x00, true);
	T_PAGE(&rm, 0x10, true);
	T_PAGE(&rm, 0x3f, true);  /* last of L0 */
	T_PAGE(&rm, 0x50, true);
	T_PAGE(&rm, 0x57, true);  /* last of L1 */
	T_PAGE(&rm, 0x58, true);  /* first of L2 */
	T_PAGE(&rm, 0x5c, true);  /* last whole host page of L2's file data */
	T_PAGE(&rm, 0x5d, false); /* 0x800 of file data, then zeros */
	T_PAGE(&rm, 0x5e, false); /* all past p_filesz */
	T_PAGE(&rm, 0x5f, false);
	T_PAGE(&rm, 0x60, false); /* a hole, then L3's first bytes */
	T_PAGE(&rm, 0x61, true);  /* L3's one whole page */
	T_PAGE(&rm, 0x63, false); /* a hole, then L4 */
	T_PAGE(&rm, 0x10, true);  /* again, after pages in scratch */
	/* pfns no PT_LOAD touches */
	T_ERR(readmem_page(&rm, 0x40, scratch, &p, &err), err, MDF_ERR_NODATA,
	      "pfn 0x40 is not in the dump", NULL);
	T_ERR(readmem_page(&rm, 0x4f, scratch, &p, &err), err, MDF_ERR_NODATA,
	      "pfn 0x4f is not in the dump", NULL);
	/* a hole whose next range starts inside the next page: nothing
	 * written past the scratch page */
	memset(scratch_g, 0x5a, sizeof(scratch_g));
	T_ERR(readmem_page(&rm, 0x62, scratch_g, &p, &err), err, MDF_ERR_NODATA,
	      "pfn 0x62 is not in the dump", NULL);
	T_ASSERT(guard_intact());
	T_ERR(readmem_page(&rm, 0x64, scratch, &p, &err), err, MDF_ERR_NODATA,
	      "pfn 0x64 is not in the dump", NULL);
	T_ERR(readmem_page(&rm, 0xfffff, scratch, &p, &err), err, MDF_ERR_NODATA,
	      "pfn 0xfffff is not in the dump", NULL);
	T_PAGE(&rm, 0x3f, true);

	/* Read buffers: in place all the same. */
	T_OK(own_cache(&never, CACHE_MMAP_NEVER, 0, NULL, &err), &err);
	readmem_init(&rm, &E.elf, &never, &E.arch, PAGE);
	ok = page_is(&rm, 0x10, true, err.msg, sizeof(err.msg)) &&
	     page_is(&rm, 0x5d, false, err.msg, sizeof(err.msg)) &&
	     page_is(&rm, 0x61, true, err.msg, sizeof(err.msg));
	cache_release(&never);
	T_OK(ok ? MDF_OK : MDF_ERR_INTERNAL, &err);
}

/* A failed condition is recorded (its line, once) and the case goes on,
 * so that what it set up is torn down: the case reads `ok` and `line`. */
#define CHECK_ON(cond)                          \
	do {                                    \
		if (ok && !(cond)) {            \
			ok = false;             \
			line = __LINE__;        \
		}                               \
	} while (0)

/* A failed condition ends the check at `fail:`, with its line. */
#define CHECK_OR_FAIL(cond)                     \
	do {                                    \
		if (!(cond)) {                  \
			line = __LINE__;        \
			goto fail;              \
		}                               \
	} while (0)

/* readmem_page_ref() on its own cache of 4 entries: at most 2 pinned. */
static void t_page_ref_synthetic(void)
{
	static unsigned char scratch[PAGE], s2[PAGE], big[0x10000];
	static const uint64_t pfns[] = { 0x10, 0x11, 0x50 };
	const unsigned char *got[3], *p;
	struct cache_entry *pin[3], *pn;
	struct readmem rm;
	struct cache c;
	struct mdf_err err;
	bool ok = true;
	int line = 0;

	NEED_4K();
	T_OK(own_cache(&c, CACHE_MMAP_ALWAYS, 4, NULL, &err), &err);
	readmem_init(&rm, &E.elf, &c, &E.arch, PAGE);
	for (int i = 0; i < 3; i++) {
		pin[i] = NULL;
		CHECK_ON(readmem_page_ref(&rm, pfns[i], scratch, &got[i], &pin[i], &err) == MDF_OK);
		CHECK_ON(pin[i] && cache_entry_mapped(pin[i]) && got[i] != scratch);
		CHECK_ON(ok && memcmp(got[i], phys + pfns[i] * PAGE, PAGE) == 0);
	}
	/* 0x10 and 0x11 share L0's window: one entry, two pins */
	CHECK_ON(ok && pin[0] == pin[1] && pin[0]->pins == 2 && pin[2] != pin[0]);
	CHECK_ON(c.npinned == 2);
	/* A third window would pin more than half the entries: not kept. */
	pn = (struct cache_entry *)1;
	CHECK_ON(readmem_page_ref(&rm, 0x58, scratch, &p, &pn, &err) == MDF_OK);
	CHECK_ON(pn == NULL && p != scratch && memcmp(p, phys + 0x58000, PAGE) == 0);
	CHECK_ON(c.npinned == 2);
	/* assembled pages and holes are never pinned */
	pn = (struct cache_entry *)1;
	CHECK_ON(readmem_page_ref(&rm, 0x5d, scratch, &p, &pn, &err) == MDF_OK);
	CHECK_ON(pn == NULL && p == scratch && memcmp(p, phys + 0x5d000, PAGE) == 0);
	pn = (struct cache_entry *)1;
	CHECK_ON(readmem_page_ref(&rm, 0x44, scratch, &p, &pn, &err) == MDF_ERR_NODATA);
	CHECK_ON(pn == NULL);
	/* Many other reads, enough to evict every unpinned entry... */
	for (int round = 0; ok && round < 3; round++) {
		for (uint64_t pfn = 0; pfn < PHYS_END / PAGE; pfn += 3) {
			if (readmem_page(&rm, pfn, s2, &p, &err) == MDF_OK)
				CHECK_ON(memcmp(p, phys + pfn * PAGE, PAGE) == 0);
		}
		CHECK_ON(readmem_paddr(&rm, 0x58000, big, 0x8000, &err) == MDF_OK);
		CHECK_ON(readmem_vaddr(&rm, VM, big, 0x4000, &err) == MDF_OK);
		CHECK_ON(readmem_paddr(&rm, 0x60800, big, 0x1800, &err) == MDF_OK);
	}
	CHECK_ON(c.stats.evictions > 0);
	/* ...and the pinned bytes have not moved. */
	for (int i = 0; ok && i < 3; i++)
		CHECK_ON(memcmp(got[i], phys + pfns[i] * PAGE, PAGE) == 0);
	CHECK_ON(c.npinned == 2);
	/* unref unpins, and retires the page's bytes */
	readmem_retire_flush(&rm);
	for (int i = 0; ok && i < 3; i++)
		readmem_page_unref(&rm, pfns[i], pin[i]);
	CHECK_ON(c.npinned == 0);
	CHECK_ON(rm.done_off == OFF0 + 0x10000 && rm.done_len == OFF1 + 0x1000 - (OFF0 + 0x10000));
	readmem_page_unref(&rm, 0, NULL); /* does nothing */
	CHECK_ON(rm.done_off == OFF0 + 0x10000 && rm.done_len == OFF1 + 0x1000 - (OFF0 + 0x10000));
	cache_release(&c);
	if (!ok) {
		char why[MDF_ERR_MSG_MAX + 64];

		snprintf(why, sizeof(why), "check at line %d failed (last error: %.900s)", line, err.msg);
		t_fail(__FILE__, __LINE__, why);
		return;
	}

	/* Read buffers are refilled in place: never pinned. */
	T_OK(own_cache(&c, CACHE_MMAP_NEVER, 4, NULL, &err), &err);
	readmem_init(&rm, &E.elf, &c, &E.arch, PAGE);
	pn = (struct cache_entry *)1;
	ok = readmem_page_ref(&rm, 0x10, scratch, &p, &pn, &err) == MDF_OK && pn == NULL &&
	     p != scratch && memcmp(p, phys + 0x10000, PAGE) == 0 && c.npinned == 0;
	cache_release(&c);
	T_ASSERT(ok);
}

/* ---- retiring --------------------------------------------------------- */

static struct {
	const unsigned char *addr;
	size_t len;
} rel[64];
static unsigned nrel;

static void rec_released(void *addr, size_t len)
{
	if (nrel < ARRAY_SIZE(rel)) {
		rel[nrel].addr = addr;
		rel[nrel].len = len;
	}
	nrel++;
}

/* Was any byte of [@p, @p + @len) released? */
static bool was_released(const unsigned char *p, size_t len)
{
	for (unsigned i = 0; i < nrel && i < ARRAY_SIZE(rel); i++)
		if (rel[i].addr < p + len && p < rel[i].addr + rel[i].len)
			return true;
	return false;
}

/* Bytes read in place are retired at the next read, copied ones at once;
 * retired ranges merge across small gaps and are released (cache_done) in
 * batches. */
static void t_retire(void)
{
	static unsigned char scratch[PAGE], buf[0x2000];
	const unsigned char *p20, *p;
	struct readmem rm;
	struct cache c;
	struct mdf_err err;
	bool ok = true;
	int line = 0;

	NEED_4K();
	T_OK(own_cache(&c, CACHE_MMAP_ALWAYS, 0, rec_released, &err), &err);
	readmem_init(&rm, &E.elf, &c, &E.arch, PAGE);
	nrel = 0;
#define DONE(off, len) CHECK_ON(rm.done_off == (off) && rm.done_len == (len))
	/* a page in place: retired by the next read */
	CHECK_ON(readmem_page(&rm, 0x20, scratch, &p20, &err) == MDF_OK && p20 != scratch);
	CHECK_ON(rm.done_len == 0);
	CHECK_ON(readmem_page(&rm, 0x22, scratch, &p, &err) == MDF_OK && p == p20 + 0x2000);
	DONE(OFF0 + 0x20000, 0x1000);
	CHECK_ON(nrel == 0);
	readmem_retire_flush(&rm);
	CHECK_ON(rm.done_len == 0);
	CHECK_ON(nrel == 1 && rel[0].addr == p20 && rel[0].len == 0x1000);
	/* merging: a gap, an overlap, a range inside */
	readmem_retire(&rm, OFF0 + 0x24000, 0x1000);
	DONE(OFF0 + 0x24000, 0x1000);
	readmem_retire(&rm, OFF0 + 0x26000, 0x800);
	DONE(OFF0 + 0x24000, 0x2800);
	readmem_retire(&rm, OFF0 + 0x26400, 0x1c00);
	DONE(OFF0 + 0x24000, 0x4000);
	readmem_retire(&rm, OFF0 + 0x25000, 0x100);
	DONE(OFF0 + 0x24000, 0x4000);
	CHECK_ON(nrel == 1);
	/* an earlier offset: what was gathered goes, now (the page 0x22
	 * still held by the reader is not in it) */
	readmem_retire(&rm, OFF0 + 0x23800, 0x100);
	DONE(OFF0 + 0x23800, 0x100);
	CHECK_ON(nrel == 2 && rel[1].addr == p20 + 0x4000 && rel[1].len == 0x4000);
	CHECK_ON(!was_released(p20 + 0x2000, PAGE));
	/* a gap too far: the same */
	readmem_retire(&rm, OFF0 + 0x23800 + 0x100 + (4 << 20) + 1, 0x100);
	CHECK_ON(nrel == 2 && rm.done_off == OFF0 + 0x23800 + 0x100 + (4 << 20) + 1);
	/* 4 MiB gathered: released at once */
	readmem_retire(&rm, OFF0, 4 << 20);
	CHECK_ON(rm.done_len == 0);
	readmem_retire_flush(&rm);
	CHECK_ON(rm.done_len == 0);

	/* copying reads retire what they read when it is a page or more of
	 * one file run */
	CHECK_ON(readmem_paddr(&rm, 0x30000, buf, 0x2000, &err) == MDF_OK);
	DONE(OFF0 + 0x30000, 0x2000);
	readmem_retire_flush(&rm);
	CHECK_ON(readmem_paddr(&rm, 0x30000, buf, 0x800, &err) == MDF_OK);
	CHECK_ON(rm.done_len == 0);
	CHECK_ON(readmem_paddr(&rm, 0x57000, buf, 0x2000, &err) == MDF_OK);
	CHECK_ON(rm.done_len == 0);
	CHECK_ON(readmem_vaddr(&rm, VM2M + 0x31000, buf, 0x1000, &err) == MDF_OK);
	DONE(OFF0 + 0x31000, 0x1000);
	readmem_retire_flush(&rm);
	/* a view in place: retired by the next one */
	CHECK_ON(readmem_vaddr_view(&rm, VM2M + 0x34000, 0x40, buf, &p, &err) == MDF_OK);
	/* (page 0x22, read in place above, was held until this read in
	 * place: copying reads leave it be) */
	CHECK_ON(p != buf);
	DONE(OFF0 + 0x22000, 0x1000);
	readmem_retire_flush(&rm);
	CHECK_ON(readmem_vaddr_view(&rm, VM2M + 0x35000, 0x40, buf, &p, &err) == MDF_OK);
	DONE(OFF0 + 0x34000, 0x40);
	readmem_retire_flush(&rm);
	cache_release(&c);
#undef DONE
	if (!ok) {
		snprintf(err.msg, sizeof(err.msg), "check at line %d failed (%u releases)", line, nrel);
		T_OK(MDF_ERR_INTERNAL, &err);
	}
}

/*
 * A page pinned by readmem_page_ref() stays valid until its unref, "across
 * any later reads" (readmem.h); released bytes are never to be touched
 * again (cache.h: on /proc/vmcore a touch could fault).  So no retiring
 * may release a pinned page before its unref.  Pages are read in place
 * around page 0x12, as the writer reads pages its cache could not pin
 * (read buffers, half the entries pinned):
 *   @pin_first: 0x12 is pinned, then 0x14 and 0x16 are retired, and the
 *               gap bridged between 0x10 and 0x14 holds it;
 *   else:       0x10 and 0x14 are retired first, then 0x12 is pinned
 *               inside the range gathered so far.
 * Reads of pages 0x01 and 0x02 then release what was gathered; only the
 * releases made while the pin is held count.
 */
static int pinned_survives(bool pin_first, char *why, size_t cap)
{
	static unsigned char scratch[PAGE];
	const unsigned char *p, *p12 = NULL;
	struct cache_entry *pin = NULL;
	struct readmem rm;
	struct cache c;
	struct mdf_err err;
	bool ok, released = false, intact = false;

	memset(&err, 0, sizeof(err));
	if (own_cache(&c, CACHE_MMAP_ALWAYS, 0, rec_released, &err) != MDF_OK) {
		snprintf(why, cap, "%.500s", err.msg);
		return 0;
	}
	readmem_init(&rm, &E.elf, &c, &E.arch, PAGE);
	nrel = 0;
	ok = readmem_page(&rm, 0x10, scratch, &p, &err) == MDF_OK;
	if (ok && pin_first)
		ok = readmem_page_ref(&rm, 0x12, scratch, &p12, &pin, &err) == MDF_OK;
	nrel = 0; /* only releases made while 0x12 is pinned count */
	ok = ok && readmem_page(&rm, 0x14, scratch, &p, &err) == MDF_OK &&
	     readmem_page(&rm, 0x16, scratch, &p, &err) == MDF_OK;
	if (ok && !pin_first) {
		ok = readmem_page_ref(&rm, 0x12, scratch, &p12, &pin, &err) == MDF_OK;
		nrel = 0;
	}
	ok = ok && pin && readmem_page(&rm, 0x01, scratch, &p, &err) == MDF_OK &&
	     readmem_page(&rm, 0x02, scratch, &p, &err) == MDF_OK;
	if (ok)
		readmem_retire_flush(&rm);
	if (ok) {
		released = was_released(p12, PAGE);
		intact = memcmp(p12, phys + 0x12000, PAGE) == 0;
	}
	readmem_page_unref(&rm, 0x12, pin);
	cache_release(&c);
	if (ok && nrel && intact && !released)
		return 1;
	snprintf(why, cap, "pin %s: %s%s%s%.300s", pin_first ? "first" : "last",
		 nrel ? "" : "nothing released, ", intact ? "" : "bytes changed, ",
		 released ? "page 0x12 released while pinned" : "", ok ? "" : err.msg);
	return 0;
}

static void t_retire_spares_pinned(void)
{
	char why[600];

	NEED_4K();
	if (!pinned_survives(true, why, sizeof(why)) ||
	    !pinned_survives(false, why, sizeof(why)))
		t_fail(__FILE__, __LINE__, why);
}

/*
 * A pfn past any physical address (pfn * page size wraps around 2^64) is
 * touched by no PT_LOAD: MDF_ERR_NODATA, as readmem.h says, not the bytes
 * of the page it wraps to.  (The run asks only for pfns below max_pfn;
 * other callers get no such bound.)
 */
static void t_page_pfn_wraps(void)
{
	static unsigned char scratch[PAGE];
	const unsigned char *p = NULL;
	struct cache_entry *pin = NULL;
	struct readmem rm;
	struct mdf_err err;
	enum mdf_status st;

	NEED_ENV();
	readmem_init(&rm, &E.elf, &E.cache, &E.arch, PAGE);
	st = readmem_page(&rm, (1ULL << 52) + 0x10, scratch, &p, &err);
	T_ASSERT(st == MDF_ERR_NODATA);
	st = readmem_page_ref(&rm, (1ULL << 52) + 0x10, scratch, &p, &pin, &err);
	readmem_page_unref(&rm, (1ULL << 52) + 0x10, pin);
	T_ASSERT(st == MDF_ERR_NODATA);
}

/* ---- a kdump-compressed input ----------------------------------------- */

#define DD_PFNS 8

/* pfn 0 is a hole, 6 is excluded, the rest are stored raw. */
static bool dd_present(uint64_t pfn) { return pfn != 0; }
static bool dd_stored(uint64_t pfn) { return pfn != 0 && pfn != 6; }

static void dd_page(uint64_t pfn, unsigned char *p)
{
	for (uint64_t i = 0; i < PAGE; i += 8)
		store_le64(p + i, ((pfn * PAGE + i) * 0x9e3779b97f4a7c15ULL) ^ 0xddddULL);
}

/* A dump with 4 KiB blocks, header version 6, no compression: a memfd. */
static int write_kdump(void)
{
	static const char vi[] = "OSRELEASE=6.1.0-readmem\nPAGESIZE=4096\nKERNELOFFSET=0\n";
	size_t vsz = sizeof(vi) - 1, nnotes = 24 + align_up(vsz, 4);
	size_t size = (4 + 1) * PAGE + DD_PFNS * PAGE;
	unsigned char *img = calloc(1, size);
	struct disk_dump_header h;
	struct kdump_sub_header sub;
	uint64_t off_desc = 4 * PAGE, data;
	int fd = -1;

	if (!img)
		return -1;
	memset(&h, 0, sizeof(h));
	memcpy(h.signature, KDUMP_SIGNATURE, 8);
	h.header_version = 6;
	strcpy(h.utsname.sysname, "Linux");
	strcpy(h.utsname.release, "6.1.0-readmem");
	strcpy(h.utsname.machine, "x86_64");
	h.block_size = (int32_t)PAGE;
	h.sub_hdr_size = 1;
	h.bitmap_blocks = 2;
	h.max_mapnr = DD_PFNS;
	h.nr_cpus = 1;
	memset(&sub, 0, sizeof(sub));
	sub.dump_level = 1;
	sub.offset_note = (int64_t)(PAGE + sizeof(sub));
	sub.size_note = nnotes;
	sub.offset_vmcoreinfo = sub.offset_note + 24;
	sub.size_vmcoreinfo = vsz;
	sub.max_mapnr_64 = DD_PFNS;
	memcpy(img, &h, sizeof(h));
	memcpy(img + PAGE, &sub, sizeof(sub));
	img[sub.offset_note] = 11;
	img[sub.offset_note + 4] = (unsigned char)vsz;
	memcpy(img + sub.offset_note + 12, "VMCOREINFO", 11);
	memcpy(img + sub.offset_note + 24, vi, vsz);
	for (uint64_t pfn = 0; pfn < DD_PFNS; pfn++) {
		if (dd_present(pfn))
			img[2 * PAGE + pfn / 8] |= (unsigned char)(1u << (pfn % 8));
		if (dd_stored(pfn))
			img[3 * PAGE + pfn / 8] |= (unsigned char)(1u << (pfn % 8));
	}
	data = off_desc + PAGE; /* descriptors fit in one block */
	for (uint64_t pfn = 0, i = 0; pfn < DD_PFNS; pfn++) {
		struct page_desc pd;

		if (!dd_stored(pfn))
			continue;
		memset(&pd, 0, sizeof(pd));
		pd.offset = (int64_t)data;
		pd.size = (uint32_t)PAGE;
		dd_page(pfn, img + data);
		data += PAGE;
		memcpy(img + off_desc + i++ * sizeof(pd), &pd, sizeof(pd));
	}
	fd = memfd_create("readmem.kdump", MFD_CLOEXEC);
	if (fd >= 0 && pwrite(fd, img, (size_t)data, 0) != (ssize_t)data) {
		close(fd);
		fd = -1;
	}
	free(img);
	return fd;
}

struct ddrig {
	int fd;
	struct cache cache;
	struct diskdump_info di;
	struct kinfo ki;
	struct arch_state arch;
	bool have_cache, have_di;
};

static enum mdf_status ddrig_open(struct ddrig *d, struct mdf_err *err)
{
	struct cache_config cc = { .policy = CACHE_MMAP_TRY };
	enum mdf_status st;

	memset(d, 0, sizeof(*d));
	d->fd = write_kdump();
	if (d->fd < 0)
		return mdf_err_set(err, MDF_ERR_IO, "cannot write the test kdump file");
	st = cache_init(&d->cache, d->fd, "readmem.kdump", &cc, err);
	if (st != MDF_OK)
		return st;
	d->have_cache = true;
	st = diskdump_open(&d->di, d->fd, "readmem.kdump", &d->cache, err);
	if (st != MDF_OK)
		return st;
	d->have_di = true;
	kinfo_init(&d->ki);
	st = vmcoreinfo_parse(d->di.vmcoreinfo, d->di.vmcoreinfo_len, &d->ki, err);
	if (st != MDF_OK)
		return st;
	/* no PT_LOAD hints: KERNELOFFSET=0 proves the default direct map */
	return arch_init(&d->arch, EM_X86_64, &d->ki, NULL, 0, err);
}

static void ddrig_close(struct ddrig *d)
{
	if (d->have_di)
		diskdump_close(&d->di);
	if (d->have_cache)
		cache_release(&d->cache);
	if (d->fd >= 0)
		close(d->fd);
	memset(d, 0, sizeof(*d));
}

/* Everything through readmem_use_diskdump(): the same calls, pages from
 * the reader's slots, never in place from the file, never pinned. */
static int dd_checks(struct ddrig *d, char *why, size_t cap)
{
	static unsigned char want[DD_PFNS * PAGE], buf[3 * PAGE], scratch[PAGE];
	const unsigned char *p;
	struct cache_entry *pin;
	struct readmem rm;
	struct mdf_err err;
	uint64_t pa, v;
	int line = 0;

	for (uint64_t pfn = 0; pfn < DD_PFNS; pfn++)
		dd_page(pfn, want + pfn * PAGE);
	readmem_init(&rm, NULL, &d->cache, &d->arch, PAGE);
	readmem_use_diskdump(&rm, &d->di);
	memset(&err, 0, sizeof(err));

	CHECK_OR_FAIL(readmem_paddr(&rm, 0x1ff0, buf, 0x20, &err) == MDF_OK);
	CHECK_OR_FAIL(memcmp(buf, want + 0x1ff0, 0x20) == 0);
	CHECK_OR_FAIL(readmem_paddr(&rm, 0x1000, buf, 3 * PAGE, &err) == MDF_OK);
	CHECK_OR_FAIL(memcmp(buf, want + 0x1000, 3 * PAGE) == 0);
	CHECK_OR_FAIL(readmem_vtop(&rm, PO + 0x2ff8, &pa, NULL, &err) == MDF_OK && pa == 0x2ff8);
	CHECK_OR_FAIL(readmem_vaddr(&rm, PO + 0x2ff8, buf, 0x10, &err) == MDF_OK);
	CHECK_OR_FAIL(memcmp(buf, want + 0x2ff8, 0x10) == 0);
	CHECK_OR_FAIL(readmem_u64(&rm, PO + 0x6ffc, &v, &err) == MDF_ERR_NODATA);
	CHECK_OR_FAIL(readmem_u64(&rm, PO + 0x5ff8, &v, &err) == MDF_OK &&
	      v == load_le64(want + 0x5ff8));
	/* not stored: the reader's messages */
	CHECK_OR_FAIL(readmem_paddr(&rm, 0x5ff8, buf, 0x10, &err) == MDF_ERR_NODATA);
	CHECK_OR_FAIL(strstr(err.msg, "physical address 0x6000 is not in the dump (excluded)"));
	CHECK_OR_FAIL(readmem_paddr(&rm, 0x10, buf, 1, &err) == MDF_ERR_NODATA);
	CHECK_OR_FAIL(strstr(err.msg, "physical address 0x10 is not in the dump (not present)"));
	CHECK_OR_FAIL(readmem_vaddr(&rm, PO + 0x6000, buf, 8, &err) == MDF_ERR_NODATA);
	CHECK_OR_FAIL(strncmp(err.msg, "reading virtual address 0xffff888000006000: ", 44) == 0);
	CHECK_OR_FAIL(strstr(err.msg, "physical address 0x6000 is not in the dump (excluded)"));
	/* views are copies */
	CHECK_OR_FAIL(readmem_vaddr_view(&rm, PO + 0x3000, 0x40, buf, &p, &err) == MDF_OK);
	CHECK_OR_FAIL(p == buf && memcmp(buf, want + 0x3000, 0x40) == 0);
	/* pages: from the slots, not @scratch, not pinned */
	CHECK_OR_FAIL(readmem_page(&rm, 3, scratch, &p, &err) == MDF_OK);
	CHECK_OR_FAIL(p != scratch && memcmp(p, want + 3 * PAGE, PAGE) == 0);
	pin = (struct cache_entry *)1;
	CHECK_OR_FAIL(readmem_page_ref(&rm, 7, scratch, &p, &pin, &err) == MDF_OK);
	CHECK_OR_FAIL(pin == NULL && memcmp(p, want + 7 * PAGE, PAGE) == 0);
	readmem_page_unref(&rm, 7, pin);
	pin = (struct cache_entry *)1;
	CHECK_OR_FAIL(readmem_page_ref(&rm, 6, scratch, &p, &pin, &err) == MDF_ERR_NODATA && pin == NULL);
	CHECK_OR_FAIL(strstr(err.msg, "pfn 0x6 is not in the dump (excluded)"));
	CHECK_OR_FAIL(readmem_page(&rm, 0, scratch, &p, &err) == MDF_ERR_NODATA);
	CHECK_OR_FAIL(readmem_page(&rm, DD_PFNS, scratch, &p, &err) == MDF_ERR_NODATA);
	CHECK_OR_FAIL(rm.done_len == 0); /* nothing of the file is retired */
	return 1;
fail:
	snprintf(why, cap, "check at line %d failed (last error: %.500s)", line, err.msg);
	return 0;
}

static void t_diskdump(void)
{
	struct ddrig d;
	struct mdf_err err;
	enum mdf_status st = ddrig_open(&d, &err);

	if (st == MDF_OK && !dd_checks(&d, err.msg, sizeof(err.msg)))
		st = MDF_ERR_INTERNAL;
	ddrig_close(&d);
	T_OK(st, &err);
}

/* ---- the real fixtures ------------------------------------------------ */

/* On a real vmcore: the utsname through the kernel-text window, the same
 * bytes through the page tables, and pages in place equal to copies. */
static int real_checks(struct rig *r, char *why, size_t cap)
{
	static unsigned char scratch[PAGE], copy[PAGE];
	struct new_utsname uts;
	struct readmem rm;
	struct mdf_err err;
	const unsigned char *p;
	uint64_t va, pa, pa2, contig, n = 0, inplace = 0;
	int line = 0;

	memset(&err, 0, sizeof(err));
	readmem_init(&rm, &r->elf, &r->cache, &r->arch, PAGE);
	CHECK_OR_FAIL(r->ki.sym.init_uts_ns.set);
	va = r->ki.sym.init_uts_ns.v +
	     (r->ki.off.uts_namespace_name.set ? r->ki.off.uts_namespace_name.v : 4);
	CHECK_OR_FAIL(readmem_vaddr(&rm, va, &uts, sizeof(uts), &err) == MDF_OK);
	CHECK_OR_FAIL(strcmp(uts.sysname, "Linux") == 0);
	CHECK_OR_FAIL(strncmp(uts.release, r->ki.osrelease, sizeof(uts.release)) == 0);
	CHECK_OR_FAIL(rm.walks == 0);
	/* the kernel's own page tables agree with the text window */
	CHECK_OR_FAIL(readmem_vtop(&rm, va, &pa, &contig, &err) == MDF_OK);
	{
		/* the fast windows switched off: page-table walks */
		struct arch_state a = r->arch;
		struct readmem rm2 = rm;

		a.text.valid = false;
		a.direct.valid = false;
		rm2.arch = &a;
		rm2.tlb_valid = false;
		CHECK_OR_FAIL(readmem_vtop(&rm2, va, &pa2, &contig, &err) == MDF_OK);
		CHECK_OR_FAIL(pa2 == pa && rm2.walks == rm.walks + 1);
		CHECK_OR_FAIL(readmem_vaddr(&rm2, va, copy, sizeof(uts), &err) == MDF_OK);
		CHECK_OR_FAIL(memcmp(copy, &uts, sizeof(uts)) == 0);
		/* a direct-map address: the same page both ways */
		CHECK_OR_FAIL(readmem_vtop(&rm, r->arch.page_offset + 0x100000, &pa, NULL, &err) == MDF_OK);
		CHECK_OR_FAIL(readmem_vtop(&rm2, r->arch.page_offset + 0x100000, &pa2, NULL, &err) == MDF_OK);
		CHECK_OR_FAIL(pa == 0x100000 && pa2 == pa);
	}
	/* pages in place equal copies, every 97th pfn of the dump */
	for (uint64_t pfn = 0x100; pfn < elf_info_max_paddr(&r->elf) / PAGE; pfn += 97) {
		enum mdf_status st = readmem_page(&rm, pfn, scratch, &p, &err);

		if (st == MDF_ERR_NODATA)
			continue;
		CHECK_OR_FAIL(st == MDF_OK);
		CHECK_OR_FAIL(readmem_paddr(&rm, pfn * PAGE, copy, PAGE, &err) == MDF_OK);
		/* p was valid until that read: ask again */
		CHECK_OR_FAIL(readmem_page(&rm, pfn, scratch, &p, &err) == MDF_OK);
		CHECK_OR_FAIL(memcmp(p, copy, PAGE) == 0);
		inplace += p != scratch;
		n++;
	}
	CHECK_OR_FAIL(n > 500 && inplace * 10 > n * 9);
	return 1;
fail:
	snprintf(why, cap, "check at line %d failed (last error: %.500s)", line, err.msg);
	return 0;
}

static void t_real_fixtures(void)
{
	static const char *const names[] = { "fx-v61-512m", "fx-v612-512m" };
	struct realvm rv;
	struct mdf_err err;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct cache_config cc = { .policy = CACHE_MMAP_TRY };
		struct rig r;
		enum mdf_status st;
		int fd;

		if (!realvm_find_or_skip(&rv, names[i]))
			return;
		fd = open(rv.path, O_RDONLY | O_CLOEXEC);
		T_ASSERT(fd >= 0);
		memset(&err, 0, sizeof(err));
		st = rig_open(&r, fd, rv.path, &cc, &err);
		if (st == MDF_OK && !real_checks(&r, err.msg, sizeof(err.msg)))
			st = MDF_ERR_INTERNAL;
		if (st != MDF_OK)
			mdf_err_push(&err, "%s", names[i]);
		rig_close(&r);
		close(fd);
		T_OK(st, &err);
	}
}

/* ---- a machine made by tests/gen/mkvmcore ---------------------------- */

static const char spec[] =
	"kernel 6.1\n"
	"cpus 1\n"
	"ram 0x100000 0x20000000\n"
	"pages 0x10000+256 anon random 3\n"
	"fill 0x11000+64 text 5\n";

static char tmpdir[64];
static char vm[PATH_MAX];
static const char *why = "mkvmcore not built";
static bool have_vm;

struct machine {
	struct test_vm v;
	struct memmap mm;
	struct cache_budget budget;
};

static enum mdf_status machine_open(struct machine *m, enum cache_mmap_policy pol,
				    struct mdf_err *err)
{
	/* 64-bit hosts' default windows and budget on every host (a 32-bit
	 * one's are 64 and 128 MiB): t_page_ref pins pages of two windows */
	struct cache_config cc = { .policy = pol, .window_max = (uint64_t)256 << 20,
				   .budget = &m->budget };
	enum mdf_status st;

	cache_budget_init(&m->budget, (uint64_t)512 << 20);
	st = test_vm_open(&m->v, vm, &cc, PAGE, err);

	memset(&m->mm, 0, sizeof(m->mm));
	if (st != MDF_OK)
		return st;
	return memmap_init(&m->mm, &m->v.k.ki, PAGE,
			   div_round_up(elf_info_max_paddr(&m->v.elf), PAGE), err);
}

static void machine_close(struct machine *m)
{
	test_vm_close(&m->v);
}

/* Struct pages in place equal the copied ones, batch after batch. */
static void t_view_equals_copy(void)
{
	static unsigned char copy[512 * SPS], buf[512 * SPS];
	struct machine m;
	struct mdf_err err;
	unsigned inplace = 0, batches = 0;

	if (!have_vm) {
		t_skip(why);
		return;
	}
	T_OK(machine_open(&m, CACHE_MMAP_TRY, &err), &err);
	for (uint64_t pfn = 0x100; pfn < 0x20000; pfn += 512 * 7) {
		uint64_t va;
		const unsigned char *p;
		bool have;

		T_OK(memmap_page_vaddr(&m.mm, &m.v.k.rm, pfn, &va, &have, &err), &err);
		if (!have)
			continue;
		T_OK(readmem_vaddr(&m.v.k.rm, va, copy, sizeof(copy), &err), &err);
		memset(buf, 0x5a, sizeof(buf));
		T_OK(readmem_vaddr_view(&m.v.k.rm, va, sizeof(buf), buf, &p, &err), &err);
		T_ASSERT(memcmp(p, copy, sizeof(copy)) == 0);
		inplace += p != buf;
		batches++;
	}
	T_ASSERT(batches > 10);
	/* vmemmap is contiguous: all but a batch crossing a segment end */
	T_ASSERT(inplace + 2 >= batches);
	machine_close(&m);
}

/* An address nothing maps: the same error as the copying read. */
static void t_view_errors(void)
{
	unsigned char buf[64];
	const unsigned char *p = NULL;
	struct machine m;
	struct mdf_err e1, e2;
	enum mdf_status s1, s2;

	if (!have_vm) {
		t_skip(why);
		return;
	}
	T_OK(machine_open(&m, CACHE_MMAP_TRY, &e1), &e1);
	s1 = readmem_vaddr(&m.v.k.rm, 0xffffc90000000000ULL, buf, sizeof(buf), &e1);
	s2 = readmem_vaddr_view(&m.v.k.rm, 0xffffc90000000000ULL, sizeof(buf), buf, &p, &e2);
	T_ASSERT(s1 != MDF_OK);
	T_EQ_U64(s2, s1);
	T_EQ_STR(e2.msg, e1.msg);
	machine_close(&m);
}

/* Pinned pages: same bytes as readmem_page, still valid after many other
 * reads, one pin per window entry counted, released by unref. */
static void t_page_ref(void)
{
	static unsigned char scratch[PAGE], want[4][PAGE];
	static const uint64_t pfns[4] = { 0x10000, 0x10001, 0x11000, 0x1ff00 };
	const unsigned char *got[4];
	struct cache_entry *pin[4];
	struct machine m;
	struct mdf_err err;

	if (!have_vm) {
		t_skip(why);
		return;
	}
	T_OK(machine_open(&m, CACHE_MMAP_TRY, &err), &err);
	for (int i = 0; i < 4; i++) {
		const unsigned char *p;

		T_OK(readmem_page(&m.v.k.rm, pfns[i], scratch, &p, &err), &err);
		memcpy(want[i], p, PAGE);
	}
	for (int i = 0; i < 4; i++) {
		T_OK(readmem_page_ref(&m.v.k.rm, pfns[i], scratch, &got[i], &pin[i], &err), &err);
		T_ASSERT(pin[i] != NULL && cache_entry_mapped(pin[i]));
	}
	T_ASSERT(m.v.cache.npinned >= 1 && m.v.cache.npinned <= 4);
	/* Other reads in between do not move pinned bytes. */
	for (uint64_t pfn = 0x100; pfn < 0x1f000; pfn += 0x800) {
		const unsigned char *p;

		T_OK(readmem_page(&m.v.k.rm, pfn, scratch, &p, &err), &err);
	}
	for (int i = 0; i < 4; i++) {
		T_ASSERT(memcmp(got[i], want[i], PAGE) == 0);
		readmem_page_unref(&m.v.k.rm, pfns[i], pin[i]);
	}
	T_EQ_U64(m.v.cache.npinned, 0);
	readmem_page_unref(&m.v.k.rm, 0, NULL); /* does nothing */
	machine_close(&m);

	/* Read buffers are refilled in place: never pinned, bytes still right. */
	T_OK(machine_open(&m, CACHE_MMAP_NEVER, &err), &err);
	T_OK(readmem_page_ref(&m.v.k.rm, pfns[2], scratch, &got[0], &pin[0], &err), &err);
	T_ASSERT(pin[0] == NULL && memcmp(got[0], want[2], PAGE) == 0);
	T_EQ_U64(m.v.cache.npinned, 0);
	machine_close(&m);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], gen_bin[PATH_MAX + 64], cmd[PATH_MAX * 2 + 256], *slash;
	struct mdf_err err;
	FILE *f;
	int fd;

	/* The synthetic machine: always there. */
	host_page = sysconf(_SC_PAGESIZE);
	memset(&err, 0, sizeof(err));
	machine_build();
	fd = write_core();
	if (fd < 0) {
		snprintf(E_why, sizeof(E_why), "cannot write the test core");
	} else {
		struct cache_config cc = { .policy = CACHE_MMAP_TRY };

		E_ok = rig_open(&E, fd, "readmem.core", &cc, &err) == MDF_OK;
		if (!E_ok)
			snprintf(E_why, sizeof(E_why), "test machine: %s", err.msg);
	}

	(void)argc;
	if (realpath(argv[0], self) && (slash = strrchr(self, '/'))) {
		*slash = '\0'; /* build/<flavour>/tests/unit */
		snprintf(gen_bin, sizeof(gen_bin), "%s/../gen/mkvmcore", self);
		have_vm = access(gen_bin, X_OK) == 0;
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/mdf-readmem.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		tmpdir[0] = '\0';
		have_vm = false;
		why = "cannot make a temporary directory";
	}
	snprintf(vm, sizeof(vm), "%s/vm.elf", tmpdir);
	if (have_vm) {
		snprintf(cmd, sizeof(cmd), "'%s' - '%s' >/dev/null 2>&1", gen_bin, vm);
		f = popen(cmd, "w");
		if (!f || fputs(spec, f) < 0 || pclose(f) != 0) {
			have_vm = false;
			why = "mkvmcore failed on the test spec";
		}
	}

	T_RUN(t_paddr);
	T_RUN(t_vaddr_fast);
	T_RUN(t_vaddr_walk);
	T_RUN(t_untranslatable);
	T_RUN(t_view);
	T_RUN(t_page);
	T_RUN(t_page_ref_synthetic);
	T_RUN(t_retire);
	T_RUN(t_retire_spares_pinned);
	T_RUN(t_page_pfn_wraps);
	T_RUN(t_diskdump);
	T_RUN(t_view_equals_copy);
	T_RUN(t_view_errors);
	T_RUN(t_page_ref);
	T_RUN(t_real_fixtures);

	rig_close(&E);
	if (fd >= 0)
		close(fd);

	if (tmpdir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", tmpdir);
	}
	return t_done();
}
