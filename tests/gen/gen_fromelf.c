/*
 * tests/gen/gen_fromelf.c - a real x86_64 ELF vmcore (a kdump's
 * /proc/vmcore) rewritten as the sadump file its machine's firmware would
 * have written at the same moment, so that readers which need a real
 * kernel (crash, with the kernel's debug vmlinux) can open a sadump file.
 *
 * What the sadump file holds, and where it comes from:
 *   - memory: every page of every PT_LOAD, at its physical address (the
 *     image's alias PT_LOAD lands on the same pages); RAM and dumpable
 *     bitmaps are the pages the PT_LOADs cover, so the crash kernel's
 *     reservation and the first MiB that kdump leaves out are holes;
 *   - per cpu, the SMRAM state: the general registers, RIP, RSP and
 *     RFLAGS of the cpu's NT_PRSTATUS note, in note order; CR3 at
 *     init_top_pgt (SYMBOL(init_top_pgt) - __START_KERNEL_map +
 *     NUMBER(phys_base) of the VMCOREINFO note); IDTR at the read-only
 *     alias of idt_table at the start of the cpu entry area,
 *     CPU_ENTRY_AREA_RO_IDT (0xfffffe0000000000 with 4-level paging),
 *     which x86_64 kernels load into IDTR, as the firmware would find it;
 *     the control registers those of a 4-level kernel with NX;
 *   - the time: CRASHTIME of the VMCOREINFO note.
 * The layout is written by gen_sadump.c, as for a synthetic machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "util.h"

#define FE_PAGE 4096u
#define START_KERNEL_MAP UINT64_C(0xffffffff80000000)
#define CEA_RO_IDT UINT64_C(0xfffffe0000000000)
#define NT_PRSTATUS_TYPE 1
#define PRSTATUS_REG_OFF 112           /* x86_64 struct elf_prstatus.pr_reg */
#define PRSTATUS_NREGS 27              /* struct user_regs_struct */
#define FE_MAX_CPUS 8192
#define FE_MAX_LOADS 1024
#define FE_CHUNK (1u << 20)

/* struct user_regs_struct, in words. */
enum { UR_R15, UR_R14, UR_R13, UR_R12, UR_RBP, UR_RBX, UR_R11, UR_R10, UR_R9, UR_R8,
       UR_RAX, UR_RCX, UR_RDX, UR_RSI, UR_RDI, UR_ORIG_RAX, UR_RIP, UR_CS, UR_EFLAGS,
       UR_RSP, UR_SS, UR_FS_BASE, UR_GS_BASE, UR_DS, UR_ES, UR_FS, UR_GS };

struct load {
	uint64_t off, pa, size;
};

struct core {
	const char *path;
	int fd;
	struct load load[FE_MAX_LOADS];
	size_t nload;
	struct gen_cpu_state *cpu;
	unsigned ncpu;
	uint64_t init_top_pgt, crashtime;
	int64_t phys_base;
	bool have_pgt, have_base;
};

/* The value after "KEY" in the VMCOREINFO text @t (@n bytes). */
static const char *info_value(const char *t, size_t n, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = t; p && p + kl <= t + n;) {
		if (strncmp(p, key, kl) == 0)
			return p + kl;
		p = memchr(p, '\n', (size_t)(t + n - p));
		if (p)
			p++;
	}
	return NULL;
}

static void take_vmcoreinfo(struct core *c, const char *t, size_t n)
{
	char buf[32];
	const char *v;
	if ((v = info_value(t, n, "SYMBOL(init_top_pgt)="))) {
		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(v, "\n"), v);
		c->init_top_pgt = strtoull(buf, NULL, 16);
		c->have_pgt = true;
	}
	if ((v = info_value(t, n, "NUMBER(phys_base)="))) {
		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(v, "\n"), v);
		c->phys_base = strtoll(buf, NULL, 10);
		c->have_base = true;
	}
	if ((v = info_value(t, n, "CRASHTIME="))) {
		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(v, "\n"), v);
		c->crashtime = strtoull(buf, NULL, 10);
	}
}

static enum mdf_status take_prstatus(struct core *c, const uint8_t *d, size_t n,
				     struct mdf_err *err)
{
	if (n < PRSTATUS_REG_OFF + PRSTATUS_NREGS * 8)
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: NT_PRSTATUS of %zu bytes", c->path, n);
	if (c->ncpu == FE_MAX_CPUS)
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: more than %u NT_PRSTATUS notes",
				   c->path, FE_MAX_CPUS);
	struct gen_cpu_state *cs = &c->cpu[c->ncpu++];
	uint64_t r[PRSTATUS_NREGS];
	for (unsigned i = 0; i < PRSTATUS_NREGS; i++)
		r[i] = load_le64(d + PRSTATUS_REG_OFF + 8 * i);
	memset(cs, 0, sizeof(*cs));
	/* gpr[]: rax rcx rdx rbx rsp rbp rsi rdi r8 .. r15 */
	static const unsigned from[16] = { UR_RAX, UR_RCX, UR_RDX, UR_RBX, UR_RSP, UR_RBP,
					   UR_RSI, UR_RDI, UR_R8, UR_R9, UR_R10, UR_R11,
					   UR_R12, UR_R13, UR_R14, UR_R15 };
	for (unsigned i = 0; i < 16; i++)
		cs->gpr[i] = r[from[i]];
	cs->rip = r[UR_RIP];
	cs->rsp = r[UR_RSP];
	cs->rflags = r[UR_EFLAGS];
	cs->cs = (uint32_t)r[UR_CS];
	cs->ss = (uint32_t)r[UR_SS];
	cs->ds = (uint32_t)r[UR_DS];
	cs->es = (uint32_t)r[UR_ES];
	cs->fs = (uint32_t)r[UR_FS];
	cs->gs = (uint32_t)r[UR_GS];
	cs->cr0 = UINT64_C(0x80050033);   /* PG WP NE ET MP PE */
	cs->cr4 = UINT64_C(0x3506f0);     /* 4-level paging: no LA57 */
	cs->efer = UINT64_C(0xd01);       /* SCE LME LMA NXE */
	cs->idt = CEA_RO_IDT;
	cs->idt_limit = 256 * 16 - 1;
	return MDF_OK;
}

static enum mdf_status read_exact(const struct core *c, void *buf, size_t len, uint64_t off,
				  struct mdf_err *err)
{
	size_t got;
	enum mdf_status st = util_pread_full(c->fd, buf, len, off, &got, err);
	if (!st && got < len)
		st = mdf_err_set(err, MDF_ERR_FORMAT, "%s: ends at %" PRIu64 ", inside a segment",
				 c->path, off + got);
	return st ? mdf_err_push(err, "%s", c->path) : MDF_OK;
}

static enum mdf_status read_notes(struct core *c, const uint8_t *d, size_t n,
				  struct mdf_err *err)
{
	for (size_t at = 0; at + 12 <= n;) {
		uint32_t nsz = load_le32(d + at), dsz = load_le32(d + at + 4);
		uint32_t type = load_le32(d + at + 8);
		size_t name = at + 12, desc = name + align_up(nsz, 4);
		if (nsz > n || dsz > n || desc + dsz > n)
			break;
		if (nsz == 5 && memcmp(d + name, "CORE", 5) == 0 && type == NT_PRSTATUS_TYPE) {
			enum mdf_status st = take_prstatus(c, d + desc, dsz, err);
			if (st)
				return st;
		} else if (nsz == 11 && memcmp(d + name, "VMCOREINFO", 11) == 0) {
			take_vmcoreinfo(c, (const char *)d + desc, dsz);
		}
		at = desc + align_up(dsz, 4);
	}
	return MDF_OK;
}

static enum mdf_status read_core(struct core *c, struct mdf_err *err)
{
	Elf *e = elf_begin(c->fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	size_t nph = 0;
	enum mdf_status st = MDF_OK;
	if (!e || !gelf_getehdr(e, &eh) || eh.e_type != ET_CORE || eh.e_machine != EM_X86_64 ||
	    gelf_getclass(e) != ELFCLASS64 || elf_getphdrnum(e, &nph) != 0) {
		st = mdf_err_set(err, MDF_ERR_FORMAT, "%s: not an x86_64 ELF64 core", c->path);
		goto out;
	}
	for (size_t i = 0; i < nph && !st; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph)) {
			st = mdf_err_set(err, MDF_ERR_FORMAT, "%s: program header %zu", c->path, i);
		} else if (ph.p_type == PT_LOAD && ph.p_filesz) {
			if (c->nload == FE_MAX_LOADS || ph.p_paddr % FE_PAGE || ph.p_filesz % FE_PAGE)
				st = mdf_err_set(err, MDF_ERR_FORMAT,
						 "%s: PT_LOAD %zu: not page-aligned or too many",
						 c->path, i);
			else
				c->load[c->nload++] = (struct load){ ph.p_offset, ph.p_paddr,
								     ph.p_filesz };
		} else if (ph.p_type == PT_NOTE && ph.p_filesz) {
			uint8_t *d = ph.p_filesz <= (64u << 20) ? malloc(ph.p_filesz) : NULL;
			if (!d)
				st = mdf_err_set(err, MDF_ERR_NOMEM, "%s: notes", c->path);
			else if (!(st = read_exact(c, d, ph.p_filesz, ph.p_offset, err)))
				st = read_notes(c, d, ph.p_filesz, err);
			free(d);
		}
	}
	if (!st && (!c->ncpu || !c->have_pgt || !c->have_base || !c->nload))
		st = mdf_err_set(err, MDF_ERR_FORMAT,
				 "%s: needs NT_PRSTATUS, PT_LOAD and VMCOREINFO with "
				 "SYMBOL(init_top_pgt) and NUMBER(phys_base)", c->path);
out:
	if (e)
		elf_end(e);
	return st;
}

static bool page_zero(const uint8_t *p)
{
	for (size_t i = 0; i < FE_PAGE; i++)
		if (p[i])
			return false;
	return true;
}

/* Each non-zero page of each PT_LOAD (the file is sized with zeros). */
static enum mdf_status core_memory(const void *ctx, gen_phys_write_fn wr, void *wctx,
				   struct mdf_err *err)
{
	const struct core *c = ctx;
	uint8_t *buf = malloc(FE_CHUNK);
	enum mdf_status st = buf ? MDF_OK : mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < c->nload && !st; i++) {
		const struct load *l = &c->load[i];
		for (uint64_t at = 0; at < l->size && !st; at += FE_CHUNK) {
			size_t n = (size_t)MDF_MIN(FE_CHUNK, l->size - at);
			st = read_exact(c, buf, n, l->off + at, err);
			for (size_t p = 0; p < n && !st; p += FE_PAGE)
				if (!page_zero(buf + p))
					st = wr(wctx, l->pa + at + p, buf + p, FE_PAGE, err);
		}
	}
	free(buf);
	return st;
}

enum mdf_status gen_sadump_from_elf(const struct gen_spec *spec, const char *vmcore,
				    const char *path, struct mdf_err *err)
{
	struct core c = { .path = vmcore, .fd = -1 };
	uint8_t *ram = NULL;
	enum mdf_status st;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return mdf_err_set(err, MDF_ERR_FORMAT, "libelf: %s", elf_errmsg(-1));
	c.cpu = calloc(FE_MAX_CPUS, sizeof(*c.cpu));
	if (!c.cpu)
		return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", vmcore);
	c.fd = open(vmcore, O_RDONLY);
	if (c.fd < 0) {
		st = mdf_err_errno(err, MDF_ERR_IO, errno, "%s: cannot open", vmcore);
		goto out;
	}
	st = read_core(&c, err);
	if (st)
		goto out;
	const uint64_t cr3 = c.init_top_pgt - START_KERNEL_MAP + (uint64_t)c.phys_base;
	for (unsigned i = 0; i < c.ncpu; i++)
		c.cpu[i].cr3 = cr3;
	uint64_t max_pfn = 0;
	for (size_t i = 0; i < c.nload; i++)
		max_pfn = MDF_MAX(max_pfn, (c.load[i].pa + c.load[i].size) / FE_PAGE);
	ram = calloc(div_round_up(max_pfn, 8), 1);
	if (!ram) {
		st = mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", vmcore);
		goto out;
	}
	for (size_t i = 0; i < c.nload; i++)
		for (uint64_t p = c.load[i].pa / FE_PAGE;
		     p < (c.load[i].pa + c.load[i].size) / FE_PAGE; p++)
			gen_bit_set(ram, p);
	const struct gen_sadump_src src = {
		.cpus = c.ncpu, .cpu = c.cpu, .crashtime = c.crashtime,
		.max_pfn = max_pfn, .ram = ram, .backed = ram,
		.write_memory = core_memory, .ctx = &c,
	};
	st = gen_sadump_emit(spec, &src, path, err);
out:
	if (c.fd >= 0)
		close(c.fd);
	free(ram);
	free(c.cpu);
	return st;
}
