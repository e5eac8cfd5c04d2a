/*
 * tests/gen/gen_spec.c - the line-based spec of mkvmcore (see README.md).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "util.h"

#define MAX_WORDS 16

static const char *const kind_names[] = {
#define GEN_KIND_NAME(name, text) text,
	GEN_KINDS(GEN_KIND_NAME)
#undef GEN_KIND_NAME
};

const char *gen_spec_kind_name(enum gen_kind kind)
{
	return (unsigned)kind < GEN_K_COUNT ? kind_names[kind] : "?";
}

static bool kind_from_name(const char *s, enum gen_kind *kind)
{
	for (unsigned i = GEN_K_KERNEL; i < GEN_K_COUNT; i++) {
		if (strcmp(s, kind_names[i]) == 0) {
			*kind = (enum gen_kind)i;
			return true;
		}
	}
	if (strcmp(s, "reserved") == 0) {
		*kind = GEN_K_KERNEL;
		return true;
	}
	return false;
}

/* A number with an optional binary suffix K, M, G or T. */
static unsigned hexval(char c)
{
	return isdigit((unsigned char)c) ? (unsigned)(c - '0')
					 : (unsigned)(tolower((unsigned char)c) - 'a' + 10);
}

static bool parse_num(const char *s, uint64_t *ret)
{
	size_t n = strlen(s);
	unsigned shift = 0;
	if (n > 1) {
		switch (toupper((unsigned char)s[n - 1])) {
		case 'K': shift = 10; break;
		case 'M': shift = 20; break;
		case 'G': shift = 30; break;
		case 'T': shift = 40; break;
		default: break;
		}
	}
	/* "0x...B" etc. are plain hex digits, never suffixes. */
	if (shift && n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		shift = 0;
	if (!shift)
		return util_parse_u64(s, ret);
	char buf[64];
	if (n - 1 >= sizeof(buf))
		return false;
	memcpy(buf, s, n - 1);
	buf[n - 1] = '\0';
	uint64_t v;
	if (!util_parse_u64(buf, &v) || v > (UINT64_MAX >> shift))
		return false;
	*ret = v << shift;
	return true;
}

/* "A-B" (inclusive) or "A+N" pfns. */
static bool parse_pfns(const char *s, uint64_t *first, uint64_t *last)
{
	char buf[80];
	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	char *sep = strpbrk(buf, "-+");
	if (!sep)
		return false;
	char op = *sep;
	*sep = '\0';
	uint64_t a, b;
	if (!parse_num(buf, &a) || !parse_num(sep + 1, &b))
		return false;
	if (op == '+') {
		if (b == 0 || a + b < a)
			return false;
		b = a + b - 1;
	}
	if (b < a)
		return false;
	*first = a;
	*last = b;
	return true;
}

static void *grow(void *arr, size_t *n, size_t size)
{
	/* Capacity doubles at powers of two. */
	size_t cnt = *n;
	if (cnt && (cnt & (cnt - 1)))
		return arr;
	size_t cap = cnt ? cnt * 2 : 4;
	return realloc(arr, cap * size);
}

#define PUSH(arr, n, errp, lineno)                                              \
	do {                                                                     \
		void *g_ = grow((arr), &(n), sizeof(*(arr)));                     \
		if (!g_)                                                          \
			return mdf_err_set((errp), MDF_ERR_NOMEM,                 \
					   "spec:%u: out of memory", (lineno));   \
		(arr) = g_;                                                       \
		memset(&(arr)[(n)], 0, sizeof(*(arr)));                           \
		(n)++;                                                            \
	} while (0)

static enum mdf_status bad(struct mdf_err *err, unsigned line, const char *what,
			   const char *word)
{
	return mdf_err_set(err, MDF_ERR_FORMAT, "spec:%u: %s '%s'", line, what,
			   word ? word : "");
}

/* Directive @d takes @a or @b: *is_a says which @word is, else
 * "spec:LINE: D is A or B, not 'WORD'". */
static enum mdf_status choice(struct mdf_err *err, unsigned line, const char *d,
			      const char *word, const char *a, const char *b, bool *is_a)
{
	if (strcmp(word, a) != 0 && strcmp(word, b) != 0)
		return mdf_err_set(err, MDF_ERR_FORMAT, "spec:%u: %s is %s or %s, not '%s'", line,
				   d, a, b, word);
	*is_a = strcmp(word, a) == 0;
	return MDF_OK;
}

/* PATTERN [ARG] at w[i..]; *used = words consumed. */
static enum mdf_status parse_pattern(char **w, int nw, int i, unsigned line,
				     struct gen_fill *f, int *used, struct mdf_err *err)
{
	*used = 0;
	if (i >= nw)
		return bad(err, line, "missing fill pattern", "");
	const char *p = w[i];
	uint64_t v = 0;
	*used = 1;
	if (strcmp(p, "zero") == 0) {
		f->type = GEN_FILL_ZERO;
	} else if (strcmp(p, "random") == 0 || strcmp(p, "text") == 0) {
		f->type = p[0] == 'r' ? GEN_FILL_RANDOM : GEN_FILL_TEXT;
		f->seed = 0;
		if (i + 1 < nw && parse_num(w[i + 1], &v)) {
			f->seed = v;
			*used = 2;
		}
	} else if (strcmp(p, "byte") == 0) {
		if (i + 1 >= nw || !parse_num(w[i + 1], &v) || v > 255)
			return bad(err, line, "byte needs a value 0..255, got",
				   i + 1 < nw ? w[i + 1] : "");
		f->type = v ? GEN_FILL_BYTE : GEN_FILL_ZERO;
		f->byte = (uint8_t)v;
		*used = 2;
	} else {
		return bad(err, line, "unknown fill pattern (zero, random, text, byte N)", p);
	}
	return MDF_OK;
}

static enum mdf_status parse_line(char **w, int nw, unsigned line,
				  struct gen_spec *s, struct mdf_err *err)
{
	const char *d = w[0];
	uint64_t v;
	int64_t sv;

#define NEED(n)                                                                 \
	do {                                                                     \
		if (nw != (n))                                                   \
			return mdf_err_set(err, MDF_ERR_FORMAT,                  \
					   "spec:%u: '%s' takes %d argument(s)", \
					   line, d, (n) - 1);                    \
	} while (0)
#define NUM(i, dst)                                                             \
	do {                                                                     \
		if (!parse_num(w[i], &(dst)))                                    \
			return bad(err, line, "bad number", w[i]);               \
	} while (0)
#define CHOICE(a, b, is_a)                                                      \
	do {                                                                     \
		enum mdf_status cst_ = choice(err, line, d, w[1], a, b, is_a);  \
		if (cst_)                                                        \
			return cst_;                                             \
	} while (0)

	if (strcmp(d, "kernel") == 0) {
		NEED(2);
		s->kernel_line = line;
		if (strcmp(w[1], "none") == 0) {
			s->preset = NULL;
			s->no_struct_pages = true;
		} else {
			/* The x86_64 preset; spec_finish() swaps in the arch's. */
			s->preset = gen_preset_find(w[1], GEN_ARCH_X86_64, false);
			if (!s->preset)   /* loongarch64's 7.2 has no x86_64 twin */
				s->preset = gen_preset_find(w[1], GEN_ARCH_LOONGARCH64, false);
			if (!s->preset)
				return mdf_err_set(err, MDF_ERR_FORMAT,
						   "spec:%u: unknown kernel '%s' (one of: %s)",
						   line, w[1], gen_preset_names(GEN_ARCH_X86_64));
		}
	} else if (strcmp(d, "arch") == 0) {
		/* "arch x86 pae", "arch arm lpae": the 32-bit kernels with
		 * wider page-table entries. */
		s->big_endian = false;
		s->x86_pae = s->arm_lpae = s->mips64_4k = false;
		if (nw == 3 && strcmp(w[1], "x86") == 0 && strcmp(w[2], "pae") == 0) {
			s->arch = GEN_ARCH_X86;
			s->x86_pae = true;
			return MDF_OK;
		}
		if (nw == 3 && strcmp(w[1], "arm") == 0 && strcmp(w[2], "lpae") == 0) {
			s->arch = GEN_ARCH_ARM;
			s->arm_lpae = true;
			return MDF_OK;
		}
		if (nw == 3 && strcmp(w[1], "mips64") == 0 && strcmp(w[2], "4k") == 0) {
			s->arch = GEN_ARCH_MIPS64;
			s->mips64_4k = true;
			return MDF_OK;
		}
		NEED(2);
		/* The byte order goes with the arch: s390x and ppc64be are
		 * big-endian. */
		if (strcmp(w[1], "x86") == 0) {
			s->arch = GEN_ARCH_X86;
		} else if (strcmp(w[1], "arm") == 0) {
			s->arch = GEN_ARCH_ARM;
		} else if (strcmp(w[1], "x86_64") == 0) {
			s->arch = GEN_ARCH_X86_64;
		} else if (strcmp(w[1], "arm64") == 0) {
			s->arch = GEN_ARCH_ARM64;
		} else if (strcmp(w[1], "riscv64") == 0) {
			s->arch = GEN_ARCH_RISCV64;
		} else if (strcmp(w[1], "loongarch64") == 0) {
			s->arch = GEN_ARCH_LOONGARCH64;
		} else if (strcmp(w[1], "ppc64") == 0 || strcmp(w[1], "ppc64be") == 0) {
			s->arch = GEN_ARCH_PPC64;
			s->big_endian = w[1][5] == 'b';
		} else if (strcmp(w[1], "s390x") == 0) {
			s->arch = GEN_ARCH_S390X;
			s->big_endian = true;
		} else if (strcmp(w[1], "mips64") == 0) {
			s->arch = GEN_ARCH_MIPS64;
		} else {
			return bad(err, line,
				   "arch is x86_64, x86 [pae], arm [lpae], arm64, riscv64, ppc64, ppc64be, "
				   "s390x, loongarch64 or mips64, not",
				   w[1]);
		}
	} else if (strcmp(d, "elfclass") == 0) {
		NEED(2);
		CHOICE("32", "64", &s->elf32);
		s->elfclass_line = line;
	} else if (strcmp(d, "mmu") == 0) {
		NEED(2);
		bool radix = false;

		CHOICE("radix", "hash", &radix);
		s->ppc64_hash = !radix;
		s->mmu_line = line;
	} else if (strcmp(d, "radix_number") == 0) {
		NEED(2);
		CHOICE("yes", "no", &s->radix_number);
		s->radix_number_line = line;
	} else if (strcmp(d, "va_bits") == 0) {
		NEED(2);
		NUM(1, v);
		if (v != 39 && v != 48 && v != 57)
			return bad(err, line, "va_bits is 39, 48 or 57, not", w[1]);
		s->va_bits = (unsigned)v;
		s->va_bits_line = line;
	} else if (strcmp(d, "levels") == 0) {
		NEED(2);
		NUM(1, v);
		if (v < 3 || v > 5)
			return bad(err, line, "levels is 3, 4 or 5, not", w[1]);
		s->levels = (unsigned)v;
		s->levels_line = line;
	} else if (strcmp(d, "dmesg") == 0) {
		size_t len = 0;
		char *text;

		if (nw < 2)
			return bad(err, line, "usage: dmesg TEXT", "");
		for (int i = 1; i < nw; i++)
			len += strlen(w[i]) + 1;
		text = malloc(len);
		if (!text)
			return mdf_err_set(err, MDF_ERR_NOMEM, "spec:%u: out of memory", line);
		text[0] = '\0';
		for (int i = 1; i < nw; i++) {
			if (i > 1)
				strcat(text, " ");
			strcat(text, w[i]);
		}
		PUSH(s->logs, s->nlogs, err, line);
		s->logs[s->nlogs - 1].text = text;
		s->logs[s->nlogs - 1].line = line;
	} else if (strcmp(d, "dmesg_clear") == 0) {
		NEED(2);
		NUM(1, s->log_clear);
		s->log_clear_line = line;
	} else if (strcmp(d, "cpus") == 0) {
		NEED(2);
		NUM(1, v);
		if (v < 1 || v > 4096)
			return bad(err, line, "cpus must be 1..4096, got", w[1]);
		s->cpus = (unsigned)v;
	} else if (strcmp(d, "seed") == 0) {
		NEED(2);
		NUM(1, s->seed);
	} else if (strcmp(d, "page_offset") == 0) {
		NEED(2);
		NUM(1, s->page_offset);
		s->page_offset_set = true;
		s->page_offset_line = line;
		if (s->page_offset & ((UINT64_C(1) << 30) - 1))
			return bad(err, line, "page_offset must be 1 GiB aligned", w[1]);
	} else if (strcmp(d, "vmemmap") == 0) {
		NEED(2);
		NUM(1, s->vmemmap);
		s->vmemmap_set = true;
		if (s->vmemmap & ((UINT64_C(1) << 30) - 1))
			return bad(err, line, "vmemmap must be 1 GiB aligned", w[1]);
	} else if (strcmp(d, "vmalloc_start") == 0) {
		NEED(2);
		NUM(1, s->vmalloc_start);
		s->vmalloc_set = true;
	} else if (strcmp(d, "phys_base") == 0) {
		NEED(2);
		if (!util_parse_s64(w[1], &sv))
			return bad(err, line, "bad signed number", w[1]);
		s->phys_base = sv;
		s->phys_base_line = sv ? line : 0;
	} else if (strcmp(d, "kaslr") == 0) {
		NEED(2);
		NUM(1, s->kaslr);
		s->kaslr_line = s->kaslr ? line : 0;
		if (s->kaslr & 0x1fffff)
			return bad(err, line, "kaslr must be 2 MiB aligned", w[1]);
	} else if (strcmp(d, "text") == 0) {
		if (nw != 2 && !(nw == 3 && strcmp(w[2], "nophdr") == 0))
			return bad(err, line, "usage: text SIZE [nophdr]", "");
		NUM(1, s->text_size);
		if (s->text_size < 4 * GEN_PAGE_SIZE || s->text_size % GEN_PAGE_SIZE)
			return bad(err, line, "text size must be pages, at least 4", w[1]);
		s->text_phdr = nw == 2;
		s->text_line = line;
	} else if (strcmp(d, "text_tail") == 0) {
		NEED(2);
		NUM(1, s->text_tail);
		if (!s->text_tail || s->text_tail >= GEN_PAGE_MAX)
			return bad(err, line, "text_tail must be inside a page, not 0", w[1]);
	} else if (strcmp(d, "vmemmap_pte") == 0) {
		NEED(2);
		/* The base page: 4k, ppc64 64k (checked at the end). */
		if (strcmp(w[1], "4k") == 0 || strcmp(w[1], "64k") == 0) {
			s->pte4k = true;
			s->vmemmap_pte_size = w[1][0] == '4' ? GEN_PAGE_SIZE : GEN_PAGE_MAX;
		} else if (strcmp(w[1], "2m") == 0) {
			s->pte4k = false;
			s->vmemmap_pte_size = 0;
		} else {
			return bad(err, line, "vmemmap_pte is 4k (ppc64 64k) or 2m, not", w[1]);
		}
		s->vmemmap_pte_line = line;
	} else if (strcmp(d, "supersections") == 0) {
		NEED(2);
		CHOICE("yes", "no", &s->arm_super);
		s->super_line = line;
	} else if (strcmp(d, "default") == 0) {
		NEED(2);
		CHOICE("free", "kernel", &s->default_free);
	} else if (strcmp(d, "struct_pages") == 0) {
		NEED(2);
		bool yes;

		CHOICE("yes", "no", &yes);
		s->no_struct_pages = !yes;
	} else if (strcmp(d, "crashtime") == 0) {
		NEED(2);
		NUM(1, s->crashtime);
	} else if (strcmp(d, "crashkernel") == 0) {
		NEED(3);
		NUM(1, s->crash_start);
		NUM(2, s->crash_size);
		if ((s->crash_start | s->crash_size) & (GEN_PAGE_SIZE - 1))
			return bad(err, line, "crashkernel start and size must be page aligned",
				   w[1]);
	} else if (strcmp(d, "ram") == 0) {
		if (nw < 3)
			return bad(err, line, "usage: ram START END|+SIZE [memsz=N] [gap=N]", "");
		uint64_t start, end;
		NUM(1, start);
		if (w[2][0] == '+') {
			if (!parse_num(w[2] + 1, &v) || v == 0 || start + v < start)
				return bad(err, line, "bad size", w[2]);
			end = start + v;
		} else {
			NUM(2, end);
			if (end <= start)
				return bad(err, line, "ram end must be above start", w[2]);
		}
		PUSH(s->ram, s->nram, err, line);
		struct gen_ram *r = &s->ram[s->nram - 1];
		r->start = start;
		r->filesz = r->memsz = end - start;
		r->line = line;
		for (int i = 3; i < nw; i++) {
			if (strncmp(w[i], "memsz=", 6) == 0) {
				if (!parse_num(w[i] + 6, &r->memsz) || r->memsz < r->filesz)
					return bad(err, line, "memsz must be >= the size", w[i]);
			} else if (strncmp(w[i], "gap=", 4) == 0) {
				if (!parse_num(w[i] + 4, &r->gap))
					return bad(err, line, "bad gap", w[i]);
			} else {
				return bad(err, line, "unknown ram option", w[i]);
			}
		}
	} else if (strcmp(d, "fill") == 0) {
		uint64_t a, b;
		if (nw < 3 || !parse_pfns(w[1], &a, &b))
			return bad(err, line, "usage: fill FIRST-LAST|FIRST+COUNT PATTERN, got",
				   nw > 1 ? w[1] : "");
		struct gen_fill f = { .first = a, .last = b };
		int used;
		enum mdf_status st = parse_pattern(w, nw, 2, line, &f, &used, err);
		if (st)
			return st;
		if (2 + used != nw)
			return bad(err, line, "trailing words after pattern", w[2 + used]);
		PUSH(s->fills, s->nfills, err, line);
		s->fills[s->nfills - 1] = f;
	} else if (strcmp(d, "pages") == 0) {
		uint64_t a, b;
		enum gen_kind kind;
		if (nw < 3 || !parse_pfns(w[1], &a, &b))
			return bad(err, line, "usage: pages FIRST-LAST|FIRST+COUNT KIND, got",
				   nw > 1 ? w[1] : "");
		if (!kind_from_name(w[2], &kind))
			return bad(err, line, "unknown page kind", w[2]);
		struct gen_pages p = { .first = a, .last = b, .kind = kind, .line = line };
		bool has_order = false;
		int i = 3;
		if (i < nw && strncmp(w[i], "order=", 6) == 0) {
			if (!parse_num(w[i] + 6, &v) || v > 30)
				return bad(err, line, "bad order", w[i]);
			p.order = (unsigned)v;
			has_order = true;
			i++;
		}
		if ((kind == GEN_K_THP || kind == GEN_K_HUGETLB) && !has_order) {
			/* The arch's PMD leaf: spec_finish() sets the order
			 * and checks the range. */
			p.order_implicit = true;
		} else if (kind == GEN_K_THP || kind == GEN_K_HUGETLB || kind == GEN_K_FREE) {
			/* The arch's own limit is checked at the end. */
			if (kind == GEN_K_FREE && p.order > GEN_MAX_BUDDY_ORDER_ARM)
				return bad(err, line, "free order must be 0..11", w[i - 1]);
			if ((kind != GEN_K_FREE && p.order < 1) || p.order > 18)
				return bad(err, line, "compound order must be 1..18", w[i - 1]);
			uint64_t n = UINT64_C(1) << p.order;
			if (a % n || (b - a + 1) % n)
				return bad(err, line, "range must be whole blocks of 2^order pages",
					   w[1]);
		} else if (has_order) {
			return bad(err, line, "order= only for free, thp, hugetlb", w[3]);
		}
		PUSH(s->pages, s->npages, err, line);
		s->pages[s->npages - 1] = p;
		if (i < nw) {
			struct gen_fill f = { .first = a, .last = b };
			int used;
			enum mdf_status st = parse_pattern(w, nw, i, line, &f, &used, err);
			if (st)
				return st;
			if (i + used != nw)
				return bad(err, line, "trailing words after pattern", w[i + used]);
			PUSH(s->fills, s->nfills, err, line);
			s->fills[s->nfills - 1] = f;
		}
	} else if (strcmp(d, "vmcoreinfo") == 0) {
		if (nw == 3 && strcmp(w[1], "set") == 0) {
			char *eq = strchr(w[2], '=');
			if (!eq || eq == w[2])
				return bad(err, line, "usage: vmcoreinfo set KEY=VALUE, got", w[2]);
			PUSH(s->edits, s->nedits, err, line);
			struct gen_vmi_edit *e = &s->edits[s->nedits - 1];
			e->op = GEN_VMI_SET;
			e->key = strndup(w[2], (size_t)(eq - w[2]));
			e->value = strdup(eq + 1);
			if (!e->key || !e->value)
				return mdf_err_set(err, MDF_ERR_NOMEM, "spec:%u: out of memory", line);
		} else if (nw == 3 && strcmp(w[1], "del") == 0) {
			PUSH(s->edits, s->nedits, err, line);
			struct gen_vmi_edit *e = &s->edits[s->nedits - 1];
			e->op = GEN_VMI_DEL;
			e->key = strdup(w[2]);
			if (!e->key)
				return mdf_err_set(err, MDF_ERR_NOMEM, "spec:%u: out of memory", line);
		} else {
			return bad(err, line, "usage: vmcoreinfo set KEY=VALUE | del KEY", "");
		}
	} else if (strcmp(d, "poke") == 0) {
		/* poke phys PADDR HEX | poke page PFN OFF HEX | poke table VADDR LEVEL HEX */
		struct gen_poke pk = { .line = line };
		int hex;

		if (nw == 4 && strcmp(w[1], "phys") == 0) {
			pk.at = GEN_POKE_PHYS;
			NUM(2, pk.addr);
			hex = 3;
		} else if (nw == 5 && (strcmp(w[1], "page") == 0 || strcmp(w[1], "table") == 0)) {
			pk.at = w[1][0] == 'p' ? GEN_POKE_PAGE : GEN_POKE_TABLE;
			NUM(2, pk.addr);
			NUM(3, pk.off);
			/* The arch's number of levels is checked at the end. */
			if (pk.at == GEN_POKE_PAGE ? pk.off >= GEN_STRUCT_PAGE
						   : pk.off >= GEN_MAX_PT_LEVELS)
				return bad(err, line, "poke: offset or level out of range", w[3]);
			hex = 4;
		} else {
			return bad(err, line, "usage: poke phys PADDR HEX | page PFN OFF HEX | "
				   "table VADDR LEVEL HEX", "");
		}
		for (const char *h = w[hex]; *h; h += 2) {
			if (!h[1] || pk.len == GEN_POKE_MAX ||
			    !isxdigit((unsigned char)h[0]) || !isxdigit((unsigned char)h[1]))
				return bad(err, line, "poke: bytes must be 1 to 64 hex pairs", w[hex]);
			pk.bytes[pk.len++] = (uint8_t)(hexval(h[0]) << 4 | hexval(h[1]));
		}
		PUSH(s->pokes, s->npokes, err, line);
		s->pokes[s->npokes - 1] = pk;
	} else if (strcmp(d, "format") == 0) {
		/* format elf | sadump single | sadump diskset N | sadump media */
		s->format_line = line;
		if (nw == 2 && strcmp(w[1], "elf") == 0) {
			s->format = GEN_FMT_ELF;
		} else if (nw == 3 && strcmp(w[1], "sadump") == 0 && strcmp(w[2], "single") == 0) {
			s->format = GEN_FMT_SADUMP_SINGLE;
		} else if (nw == 3 && strcmp(w[1], "sadump") == 0 && strcmp(w[2], "media") == 0) {
			s->format = GEN_FMT_SADUMP_MEDIA;
		} else if (nw == 4 && strcmp(w[1], "sadump") == 0 &&
			   strcmp(w[2], "diskset") == 0) {
			NUM(3, v);
			if (v < 2 || v > GEN_SADUMP_MAX_DISKS)
				return bad(err, line, "diskset: disks must be 2..16, got", w[3]);
			s->format = GEN_FMT_SADUMP_DISKSET;
			s->disks = (unsigned)v;
		} else {
			return bad(err, line,
				   "format is elf, sadump single, sadump diskset N or sadump media, got",
				   w[1]);
		}
	} else if (strcmp(d, "kcore") == 0) {
		NEED(1);
		s->kcore = true;
		s->kcore_line = line;
	} else if (strcmp(d, "break") == 0) {
		if (nw < 2)
			return bad(err, line, "break needs a kind", "");
		const char *b = w[1];
		if (strcmp(b, "truncate") == 0) {
			NEED(3);
			NUM(2, s->truncate_at);
			s->has_truncate = true;
		} else if (strcmp(b, "phoff_past_eof") == 0) {
			NEED(2);
			s->phoff_past_eof = true;
		} else if (strcmp(b, "load_past_eof") == 0) {
			NEED(2);
			s->load_past_eof = true;
		} else if (strcmp(b, "note_overflow") == 0) {
			NEED(2);
			s->note_overflow = true;
		} else if (strcmp(b, "no_vmcoreinfo") == 0) {
			NEED(2);
			s->no_vmcoreinfo = true;
		} else if (strcmp(b, "empty") == 0) {
			NEED(2);
			s->empty = true;
		} else {
			return bad(err, line,
				   "unknown break (truncate N, phoff_past_eof, load_past_eof, "
				   "note_overflow, no_vmcoreinfo, empty)", b);
		}
	} else if (strcmp(d, "ref_levels") == 0) {
		if (nw < 2)
			return bad(err, line, "ref_levels needs levels", "");
		s->ref_levels = 0;
		for (int i = 1; i < nw; i++) {
			NUM(i, v);
			if (v >= GEN_MAX_LEVELS)
				return bad(err, line, "dump level must be 0..31", w[i]);
			s->ref_levels |= UINT32_C(1) << v;
		}
	} else {
		return bad(err, line, "unknown directive", d);
	}
	return MDF_OK;
#undef NEED
#undef NUM
#undef CHOICE
}

/* The preset of @s->preset's name for the spec's arch. */
static enum mdf_status swap_preset(struct gen_spec *s, const char *arch_name,
				   struct mdf_err *err)
{
	const struct gen_preset *p;

	if (!s->preset)
		return MDF_OK;
	p = gen_preset_find(s->preset->name, s->arch, s->big_endian);
	if (!p)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec:%u: arch %s has no kernel '%s' (one of: %s)",
				   s->kernel_line, arch_name, s->preset->name,
				   gen_preset_names(s->arch));
	s->preset = p;
	return MDF_OK;
}

/* Is @va in the kernel half of a @va_bits address space (sign-extended)? */
static bool kernel_va(uint64_t va, unsigned va_bits)
{
	return (va >> (va_bits - 1)) == (UINT64_MAX >> (va_bits - 1));
}

/*
 * riscv64, as Debian 6.12 under qemu virt (Documentation/arch/riscv/
 * vm-layout.rst): the layout of the paging mode, and phys_ram_base = the
 * lowest RAM (ram or crashkernel) rounded down to 2 MiB, as setup_bootmem()
 * aligns it to a PMD.
 */
static enum mdf_status finish_riscv64(struct gen_spec *s, struct mdf_err *err)
{
	static const struct {
		unsigned va_bits;
		uint64_t page_offset, vmemmap_start, vmalloc_start;
	} modes[] = {
		{ 39, UINT64_C(0xffffffd600000000), UINT64_C(0xffffffc500000000),
		  UINT64_C(0xffffffc600000000) },
		{ 48, UINT64_C(0xffffaf8000000000), UINT64_C(0xffff8d8000000000),
		  UINT64_C(0xffff8f8000000000) },
		{ 57, UINT64_C(0xff60000000000000), UINT64_C(0xff1c000000000000),
		  UINT64_C(0xff20000000000000) },
	};
	uint64_t low = UINT64_MAX;
	size_t m = 0;

	if (!s->va_bits)
		s->va_bits = 57;
	while (modes[m].va_bits != s->va_bits)
		m++;
	if (!s->page_offset_set)
		s->page_offset = modes[m].page_offset;
	if (!s->vmemmap_set)
		s->vmemmap = modes[m].vmemmap_start;
	if (!s->vmalloc_set)
		s->vmalloc_start = modes[m].vmalloc_start;
	const struct {
		const char *what;
		uint64_t va;
	} va[] = { { "page_offset", s->page_offset }, { "vmemmap", s->vmemmap },
		   { "vmalloc_start", s->vmalloc_start } };
	for (size_t i = 0; i < sizeof(va) / sizeof(va[0]); i++)
		if (!kernel_va(va[i].va, s->va_bits))
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "spec: %s 0x%" PRIx64 " is not a kernel address of Sv%u",
					   va[i].what, va[i].va, s->va_bits);

	for (size_t i = 0; i < s->nram; i++)
		low = MDF_MIN(low, s->ram[i].start);
	if (s->crash_size)
		low = MDF_MIN(low, s->crash_start);
	s->phys_ram_base = low & ~UINT64_C(0x1fffff);
	/* The struct page of pfn 0: the kernel's vmemmap. */
	s->vmemmap_start = s->vmemmap;
	s->vmemmap -= (s->phys_ram_base >> GEN_PAGE_SHIFT) * GEN_STRUCT_PAGE;
	/* No "kernel" line: the lab's kernel, the only one. */
	if (!s->kernel_line)
		s->preset = gen_preset_find("6.12", GEN_ARCH_X86_64, false);
	return swap_preset(s, "riscv64", err);
}

/*
 * mips64, as Debian bookworm's 6.1.0-50-loongson-3 (mips64el): 16 KiB
 * pages, 256 MiB sections, the direct map in XKPHYS at CAC_BASE
 * 0x9800000000000000 (DMA_NONCOHERENT), the image in CKSEG0 at
 * 0xffffffff80200000 (pa 0x200000; RANDOMIZE_BASE moves it, va and pa
 * together: not made), vmalloc from MAP_BASE + 2 pages in XKSEG.
 */
#define MAP_BASE_MIPS64 UINT64_C(0xc000000000000000)

static enum mdf_status finish_mips64(struct gen_spec *s, struct mdf_err *err)
{
	const struct {
		unsigned line;
		const char *what;
	} fixed[] = {
		{ s->page_offset_line, "page_offset: mips64's direct map is XKPHYS at CAC_BASE" },
		{ s->kaslr_line, "kaslr: not made for mips64 (the image's va and pa move together)" },
		{ s->phys_base_line, "phys_base: mips64's image is in CKSEG0 (pa = va - CKSEG0)" },
		{ s->kcore_line, "kcore: not made for mips64" },
		{ s->vmemmap_pte_line, "vmemmap_pte: mips64 has no vmemmap" },
	};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (fixed[i].line)
			return mdf_err_set(err, MDF_ERR_FORMAT, "spec:%u: %s", fixed[i].line,
					   fixed[i].what);
	if (s->vmemmap_set)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec: vmemmap is not for mips64 (SPARSEMEM without a vmemmap)");
	/* 4 KiB: the tables reach 40 bits of va; 16 KiB 47 */
	const uint64_t reach = MAP_BASE_MIPS64 + (UINT64_C(1) << (s->mips64_4k ? 40 : 47));
	const struct gen_preset *p;

	s->page_shift = s->mips64_4k ? GEN_PAGE_SHIFT : GEN_MIPS64_PAGE_SHIFT;
	s->section_shift = GEN_SECTION_SHIFT_MIPS64;
	s->page_offset = GEN_MIPS64_CAC_BASE;
	if (!s->vmalloc_set)   /* MAP_BASE + 2 pages */
		s->vmalloc_start = MAP_BASE_MIPS64 + 2 * (UINT64_C(1) << s->page_shift);
	if (s->vmalloc_start < MAP_BASE_MIPS64 || s->vmalloc_start >= reach ||
	    s->vmalloc_start % (UINT64_C(1) << s->page_shift))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec: mips64 vmalloc_start must be a page aligned XKSEG "
				   "address the tables reach (below 0x%" PRIx64 ")", reach);
	if (!s->text_line)
		s->text_size = s->mips64_4k ? GEN_MIPS64_TEXT_SIZE_4K : GEN_MIPS64_TEXT_SIZE;
	if (s->mips64_4k) {   /* FLATMEM's one array from pfn 0 (ARCH_PFN_OFFSET 0) */
		bool low = false;

		for (size_t i = 0; i < s->nram; i++)
			low = low || s->ram[i].start < (UINT64_C(1) << GEN_SECTION_SHIFT_MIPS64);
		if (!low)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "spec: arch mips64 4k (FLATMEM) needs RAM in the first 256 MiB");
	}
	if (!s->preset)
		return MDF_OK;
	p = gen_preset_find_mips64(s->preset->name, s->mips64_4k);
	if (!p)
		return mdf_err_set(err, MDF_ERR_FORMAT, "spec:%u: arch mips64 has no kernel '%s' (one of: %s)",
				   s->kernel_line, s->preset->name, gen_preset_names(s->arch));
	s->preset = p;
	return MDF_OK;
}

/*
 * ppc64, as Debian 6.1 ppc64el (Book3S-64) on qemu pseries: 64 KiB pages,
 * 16 MiB sections, the linear map at 0xc000000000000000 over all RAM with
 * the kernel inside it from physical 0 (no image PT_LOAD, no KASLR, no
 * phys_base), vmalloc at 0xc008000000000000 and the vmemmap at
 * 0xc00a000000000000 (radix) or 0xc00c000000000000 (hash).
 */
static enum mdf_status finish_ppc64(struct gen_spec *s, struct mdf_err *err)
{
	const uint64_t page = UINT64_C(1) << GEN_PPC64_PAGE_SHIFT;
	const uint64_t linear_end = GEN_PPC64_PAGE_OFFSET + (UINT64_C(1) << 51);
	const struct {
		unsigned line;
		const char *what;
	} fixed[] = {
		{ s->page_offset_line, "page_offset: the linear map of ppc64 is at 0xc000000000000000" },
		{ s->kaslr_line, "kaslr: ppc64 (Book3S-64) has no KASLR" },
		{ s->phys_base_line, "phys_base: the ppc64 kernel runs from physical 0" },
		{ s->kcore_line, "kcore: not made for ppc64" },
	};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (fixed[i].line)
			return mdf_err_set(err, MDF_ERR_FORMAT, "spec:%u: %s", fixed[i].line,
					   fixed[i].what);
	s->page_shift = GEN_PPC64_PAGE_SHIFT;
	s->section_shift = GEN_SECTION_SHIFT_PPC64;
	s->page_offset = GEN_PPC64_PAGE_OFFSET;
	if (!s->vmemmap_set)
		s->vmemmap = s->ppc64_hash ? UINT64_C(0xc00c000000000000)
					   : UINT64_C(0xc00a000000000000);
	if (!s->vmalloc_set)
		s->vmalloc_start = UINT64_C(0xc008000000000000);
	/* Above the linear map, or the tables would map them over it. */
	if (s->vmemmap < linear_end || s->vmalloc_start < linear_end ||
	    s->vmalloc_start % page)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec: ppc64 vmemmap and vmalloc_start must be above the linear "
				   "map (0x%" PRIx64 "), vmalloc_start 64 KiB aligned", linear_end);
	/* The image is part of the linear map; by default as large as the
	 * lab kernel's, so that its symbols need no wrapping. */
	s->text_phdr = false;
	if (!s->text_line)
		s->text_size = 0x2800000;
	if (s->text_size < 4 * page || s->text_size % page)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec:%u: ppc64 text size must be 64 KiB pages, at least 4",
				   s->text_line);
	if ((s->crash_start | s->crash_size) % page)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec: ppc64 crashkernel start and size must be 64 KiB aligned");
	if (s->vmemmap_pte_line && s->vmemmap_pte_size && s->vmemmap_pte_size != page)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec:%u: ppc64 pages are 64 KiB: vmemmap_pte 64k or 2m",
				   s->vmemmap_pte_line);
	return swap_preset(s, s->big_endian ? "ppc64be" : "ppc64", err);
}

/*
 * loongarch64, as Debian's loong64 7.2.13+deb14-loong64 (16 KiB pages,
 * 512 MiB sections): RAM and the image in DMW1 (va = 0x9000000000000000 +
 * pa), the image at pa 0x200000 + kaslr (the relocation: the kernel's
 * are 64 KiB steps, relocation_addr_valid(); "kaslr" takes 2 MiB ones), its
 * PT_LOAD first as kexec-tools writes it;
 * with cpu_vabits 48 (vm_map_base 0xffff000000000000) the modules at
 * vm_map_base + 32 MiB + 2 pages, vmalloc 256 MiB above, and the vmemmap
 * where pgtable.h puts it below the tables' reach of 2^47: VMALLOC_END +
 * PMD_SIZE, rounded down to a PMD, with VMALLOC_END = vm_map_base + 2^47 -
 * PMD_SIZE - VMEMMAP_SIZE (80 bytes times 2^(cpu_pabits 48 + 1 - 14)
 * pages) - KFENCE_AREA_SIZE ((255 + 1) * 2 + 2 pages).
 */
static enum mdf_status finish_loongarch64(struct gen_spec *s, struct mdf_err *err)
{
	const uint64_t page = UINT64_C(1) << GEN_LA_PAGE_SHIFT, pmd = UINT64_C(1) << 25;
	const uint64_t vmemmap_size = (uint64_t)GEN_LA_STRUCT_PAGE << (48 + 1 - GEN_LA_PAGE_SHIFT);
	const uint64_t kfence = (UINT64_C(256) * 2 + 2) * page;
	const uint64_t vmalloc_end = GEN_LA_VM_MAP_BASE + (UINT64_C(1) << 47) - pmd -
				     vmemmap_size - kfence;
	const struct {
		unsigned line;
		const char *what;
	} fixed[] = {
		{ s->page_offset_line, "page_offset: loongarch64's direct map is DMW1, 0x9000000000000000" },
		{ s->phys_base_line, "phys_base: the loongarch64 image is in DMW1 (kaslr relocates it)" },
		{ s->kcore_line, "kcore: not made for loongarch64" },
		{ s->vmemmap_pte_line, "vmemmap_pte: not made for loongarch64 (32 MiB PMDs)" },
	};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (fixed[i].line)
			return mdf_err_set(err, MDF_ERR_FORMAT, "spec:%u: %s", fixed[i].line,
					   fixed[i].what);
	s->page_shift = GEN_LA_PAGE_SHIFT;
	s->section_shift = GEN_LA_SECTION_SHIFT;
	s->page_offset = GEN_LA_DMW1;
	if (!s->vmemmap_set)
		s->vmemmap = (vmalloc_end + pmd) & ~(pmd - 1);
	if (!s->vmalloc_set)
		s->vmalloc_start = GEN_LA_VM_MAP_BASE + (UINT64_C(32) << 20) + 2 * page +
				   (UINT64_C(256) << 20);
	if (s->vmemmap < GEN_LA_VM_MAP_BASE || s->vmemmap % pmd ||
	    s->vmalloc_start < GEN_LA_VM_MAP_BASE || s->vmalloc_start % page)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec: loongarch64 vmemmap (32 MiB aligned) and vmalloc_start (16 KiB "
				   "aligned) must be above vm_map_base 0x%" PRIx64, GEN_LA_VM_MAP_BASE);
	if (!s->text_line)
		s->text_size = 0x1a00000;   /* _end - _text of the 7.2 vmlinux */
	if (s->text_size % page || (s->crash_start | s->crash_size) % page)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec: loongarch64 text size and crashkernel must be 16 KiB pages");
	/* No "kernel" line: Debian's 7.2 ("kernel 6.1" is a model for
	 * makedumpfile 1.7.2, gen_preset.c's vmi_6_1_loongarch64). */
	if (!s->kernel_line)
		s->preset = gen_preset_find("7.2", GEN_ARCH_LOONGARCH64, false);
	return swap_preset(s, "loongarch64", err);
}

/*
 * s390x, Debian 6.1: where setup_kernel_memory_layout() (arch/s390/boot/
 * startup.c, 6.1) puts the vmemmap and vmalloc for an identity map of
 * @ident bytes and a kernel ASCE of @levels: from the top of the address
 * space the tables reach (4 TiB with a region-third table on top, 8 PiB
 * with a region-second one) down: the memcpy_real page, the absolute
 * lowcores (NR_CPUS 256 x 8 KiB), 2 GiB of modules, vmalloc (512 GiB less
 * the modules, or an eighth of memory), then the struct pages of every
 * page below, rounded down to a top-level entry and at most 64 TiB
 * (MAX_PHYSMEM_BITS).  A 5-level table (region-first) is not a layout 6.1
 * makes for the kernel; it gets the 4-level addresses.
 */
static void s390x_layout(uint64_t ident, unsigned levels, uint64_t *vmemmap,
			 uint64_t *vmalloc_start)
{
	const uint64_t seg = UINT64_C(1) << 20, r3 = UINT64_C(1) << 31;
	const uint64_t modules_len = r3, abs_lowcore_map = 256 * 8192;
	uint64_t vmax = levels == 3 ? UINT64_C(1) << 42 : UINT64_C(1) << 53;
	uint64_t rte = levels == 3 ? r3 : UINT64_C(1) << 42;
	uint64_t vsize = MDF_MAX(align_up(ident / 8, seg), (UINT64_C(512) << 30) - modules_len);
	uint64_t lowcores = align_down(align_down(vmax - GEN_PAGE_SIZE, GEN_PAGE_SIZE) -
					       abs_lowcore_map, 8192);
	uint64_t vmalloc_end = align_down(lowcores, seg) - modules_len;
	uint64_t start, pages;

	vsize = MDF_MIN(vsize, align_down(vmalloc_end / 2, r3));
	start = vmalloc_end - vsize;
	pages = align_up(start / (GEN_PAGE_SIZE + GEN_STRUCT_PAGE),
			 UINT64_C(1) << (GEN_SECTION_SHIFT_S390X - GEN_PAGE_SHIFT));
	*vmemmap = MDF_MIN(align_down(start - pages * GEN_STRUCT_PAGE, rte), UINT64_C(1) << 46);
	*vmalloc_start = start;
}

/*
 * s390x, as Debian bookworm's 6.1 (big-endian, 4 KiB pages, 256 MiB
 * sections): the kernel runs in the identity map (va = pa, no image
 * PT_LOAD, no phys_base; KASLR moves the image physically), and the
 * vmemmap sits above the identity map where s390x_layout() puts it.
 */
static enum mdf_status finish_s390x(struct gen_spec *s, struct mdf_err *err)
{
	const struct {
		unsigned line;
		const char *what;
	} fixed[] = {
		{ s->page_offset_line, "page_offset: the s390x identity map is at 0" },
		{ s->phys_base_line, "phys_base: s390x has none (its KASLR moves the image physically)" },
		{ s->kcore_line, "kcore: not made for s390x" },
	};
	uint64_t top = s->crash_start + s->crash_size, vmemmap, vmalloc_start;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (fixed[i].line)
			return mdf_err_set(err, MDF_ERR_FORMAT, "spec:%u: %s", fixed[i].line,
					   fixed[i].what);
	if (!s->levels)
		s->levels = 4;
	s->section_shift = GEN_SECTION_SHIFT_S390X;
	s->page_offset = 0;
	s->text_phdr = false;
	for (size_t i = 0; i < s->nram; i++)
		top = MDF_MAX(top, s->ram[i].start + s->ram[i].memsz);
	s390x_layout(top, s->levels, &vmemmap, &vmalloc_start);
	if (!s->vmemmap_set)
		s->vmemmap = vmemmap;
	if (!s->vmalloc_set)
		s->vmalloc_start = vmalloc_start;
	uint64_t span = gen_spec_npfn(s) * GEN_STRUCT_PAGE;
	if (s->vmemmap < align_up(top, UINT64_C(1) << 31) ||
	    (s->levels < 5 && s->vmemmap + span > UINT64_C(1) << (s->levels == 3 ? 42 : 53)))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec: s390x vmemmap 0x%" PRIx64 " must be above the identity map "
				   "(RAM up to 0x%" PRIx64 ") and its struct pages within the %u-level "
				   "tables' reach", s->vmemmap, top, s->levels);
	return swap_preset(s, "s390x", err);
}

/*
 * The 32-bit kernels, FLATMEM (no sections: the struct pages of the pfns
 * to max_pfn rounded up to MAX_ORDER_NR_PAGES, @max_order orders), PAGE_OFFSET
 * 0xc0000000 (VMSPLIT_3G), no image PT_LOAD (kexec-tools' i386 and arm code
 * gives none).  The ELF class is kexec-tools': 64 when RAM ends above
 * 4 GiB, else 32 (i386's get_core_type(), arm's load_crashdump_segments()).
 * @lowmem: the end of lowmem, which must hold the image.
 */
static enum mdf_status finish_flat32(struct gen_spec *s, const char *arch, unsigned max_order,
				     uint64_t lowmem, struct mdf_err *err)
{
	const struct {
		unsigned line;
		const char *what;
	} fixed[] = {
		{ s->page_offset_line, "page_offset: fixed at PAGE_OFFSET 0xc0000000 (VMSPLIT_3G)" },
		{ s->phys_base_line, "phys_base: the image is in the direct map" },
		{ s->kcore_line, "kcore: not made for the 32-bit kernels" },
		{ s->vmemmap_pte_line, "vmemmap_pte: FLATMEM has no vmemmap" },
	};
	uint64_t top = s->crash_start + s->crash_size, text_pa = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (fixed[i].line)
			return mdf_err_set(err, MDF_ERR_FORMAT, "spec:%u: %s (arch %s)",
					   fixed[i].line, fixed[i].what, arch);
	if (s->vmemmap_set || s->vmalloc_set)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec: vmemmap and vmalloc_start are not for %s (FLATMEM; "
				   "vmalloc follows high_memory)", arch);
	s->section_shift = GEN_PAGE_SHIFT + max_order;
	s->page_offset = s->arch == GEN_ARCH_ARM ? GEN_ARM_PAGE_OFFSET : GEN_X86_PAGE_OFFSET;
	s->text_phdr = false;
	for (size_t i = 0; i < s->nram; i++)
		top = MDF_MAX(top, s->ram[i].start + s->ram[i].memsz);
	if (!s->elfclass_line)
		s->elf32 = top <= (UINT64_C(1) << 32);
	else if (s->elf32 && top > (UINT64_C(1) << 32))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec:%u: elfclass 32 cannot hold RAM above 4 GiB (up to 0x%" PRIx64
				   ")", s->elfclass_line, top);
	if (s->arch == GEN_ARCH_X86)
		text_pa = GEN_X86_PHYSICAL_START + s->kaslr;
	else
		text_pa = s->phys_ram_base + GEN_ARM_TEXT_OFFSET;
	if (text_pa + s->text_size > lowmem)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec: the %s image (at 0x%" PRIx64 ", text 0x%" PRIx64
				   ") must lie in lowmem", arch, text_pa, s->text_size);
	if (s->preset) {
		const struct gen_preset *p = gen_preset_find_32(s->preset->name, s->arch,
								s->x86_pae || s->arm_lpae);

		if (!p)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "spec:%u: arch %s has no kernel '%s' (one of: %s)",
					   s->kernel_line, arch, s->preset->name,
					   gen_preset_names(s->arch));
		s->preset = p;
	}
	return MDF_OK;
}

/*
 * x86 (i386), as Debian bookworm's 6.1.0-57-686 and -686-pae: the image in
 * the direct map at CONFIG_PHYSICAL_START + kaslr (CONFIG_RANDOMIZE_BASE
 * moves it physically, in CONFIG_PHYSICAL_ALIGN steps, va = pa +
 * PAGE_OFFSET), MAX_ORDER_NR_PAGES 1024, RAM below 4 GiB without PAE
 * (MAX_PHYSMEM_BITS 32), 64 GiB with it (36).
 */
static enum mdf_status finish_x86(struct gen_spec *s, struct mdf_err *err)
{
	if (s->kaslr % GEN_X86_PHYSICAL_ALIGN)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec:%u: x86 kaslr must be a multiple of CONFIG_PHYSICAL_ALIGN "
				   "(0x%" PRIx64 ")", s->kaslr_line, GEN_X86_PHYSICAL_ALIGN);
	if (!s->text_line)
		s->text_size = s->x86_pae ? GEN_X86_TEXT_SIZE_PAE : GEN_X86_TEXT_SIZE;
	return finish_flat32(s, "x86", GEN_MAX_BUDDY_ORDER,
			     s->x86_pae ? GEN_X86_MAXMEM_PAE : GEN_X86_MAXMEM, err);
}

/*
 * arm, as Debian bookworm's 6.1.0-57-armmp and -armmp-lpae on qemu's virt
 * machine: PHYS_OFFSET (phys_ram_base) is the lowest RAM start rounded
 * down to 128 MiB, where AUTO_ZRELADDR's decompressor puts the kernel
 * (arch/arm/boot/compressed/head.S: pc & 0xf8000000), the image at
 * PHYS_OFFSET + TEXT_OFFSET; no KASLR, no kexec-tools option for the ELF
 * class; MAX_ORDER 12; lowmem is 768 MiB; RAM below 4 GiB without LPAE,
 * 1 TiB with it (40-bit physical addresses).
 */
static enum mdf_status finish_arm(struct gen_spec *s, struct mdf_err *err)
{
	uint64_t low = UINT64_MAX;

	if (s->kaslr_line)
		return mdf_err_set(err, MDF_ERR_FORMAT, "spec:%u: kaslr: arm has no KASLR",
				   s->kaslr_line);
	if (s->elfclass_line)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec:%u: elfclass: kexec-tools on arm chooses it (64 above 4 GiB)",
				   s->elfclass_line);
	for (size_t i = 0; i < s->nram; i++)
		low = MDF_MIN(low, s->ram[i].start);
	if (s->crash_size)
		low = MDF_MIN(low, s->crash_start);
	s->phys_ram_base = low == UINT64_MAX ? 0 : align_down(low, GEN_ARM_PHYS_ALIGN);
	if (!s->text_line)
		s->text_size = s->arm_lpae ? GEN_ARM_TEXT_SIZE_LPAE : GEN_ARM_TEXT_SIZE;
	return finish_flat32(s, "arm", GEN_MAX_BUDDY_ORDER_ARM, s->phys_ram_base + GEN_ARM_LOWMEM,
			     err);
}

/* thp and hugetlb without order=: the arch's PMD leaf (2 MiB; ppc64 hash
 * 16 MiB, radix 2 MiB of 64 KiB pages; s390x 1 MiB), whole blocks of it. */
static enum mdf_status finish_orders(struct gen_spec *s, struct mdf_err *err)
{
	unsigned order = 9;

	if (s->arch == GEN_ARCH_PPC64)
		order = s->ppc64_hash ? 24 - GEN_PPC64_PAGE_SHIFT : 21 - GEN_PPC64_PAGE_SHIFT;
	if (s->arch == GEN_ARCH_S390X)
		order = 20 - GEN_PAGE_SHIFT;   /* a 1 MiB segment */
	if (s->arch == GEN_ARCH_LOONGARCH64)
		order = 25 - GEN_LA_PAGE_SHIFT;   /* a 32 MiB huge PMD */
	if (s->arch == GEN_ARCH_X86 && !s->x86_pae)
		order = 22 - GEN_PAGE_SHIFT;   /* a 4 MiB PSE page (HPAGE_PMD_ORDER 10) */
	for (size_t i = 0; i < s->npages; i++) {
		struct gen_pages *p = &s->pages[i];
		uint64_t n = UINT64_C(1) << order;

		if ((p->kind == GEN_K_THP || p->kind == GEN_K_HUGETLB) && s->preset &&
		    s->preset->no_huge)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "spec:%u: pages: %s has no TRANSPARENT_HUGEPAGE or "
					   "HUGETLB_PAGE: %s pages cannot be made", p->line,
					   s->preset->osrelease, gen_spec_kind_name(p->kind));

		if (!p->order_implicit)
			continue;
		p->order = order;
		if (p->first % n || (p->last - p->first + 1) % n)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "spec:%u: range must be whole blocks of 2^order pages "
					   "(order %u)", p->line, order);
	}
	return MDF_OK;
}

/* What depends on the arch, known only after the last line. */
static enum mdf_status spec_finish(struct gen_spec *s, struct mdf_err *err)
{
	unsigned phys_bits = 46;   /* NUMBER(MAX_PHYSMEM_BITS) */
	unsigned levels = 4;
	enum mdf_status st;

	if (s->va_bits_line && s->arch != GEN_ARCH_RISCV64)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec:%u: va_bits is for arch riscv64 only", s->va_bits_line);
	if (s->levels_line && s->arch != GEN_ARCH_S390X)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec:%u: levels is for arch s390x only", s->levels_line);
	if ((s->mmu_line || s->radix_number_line) && s->arch != GEN_ARCH_PPC64)
		return mdf_err_set(err, MDF_ERR_FORMAT, "spec:%u: %s is for arch ppc64 only",
				   s->mmu_line ? s->mmu_line : s->radix_number_line,
				   s->mmu_line ? "mmu" : "radix_number");
	if (s->vmemmap_pte_size > GEN_PAGE_SIZE && s->arch != GEN_ARCH_PPC64)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec:%u: vmemmap_pte 64k is for arch ppc64 only",
				   s->vmemmap_pte_line);
	if (s->arch == GEN_ARCH_ARM64) {
		phys_bits = 48;
		/* Debian 6.1 arm64, VA_BITS=48, PHYS_OFFSET 0. */
		if (!s->page_offset_set)
			s->page_offset = UINT64_C(0xffff000000000000);
		if (!s->vmemmap_set)
			s->vmemmap = UINT64_C(0xfffffc0000000000);
		if (!s->vmalloc_set)
			s->vmalloc_start = UINT64_C(0xffff800008000000);
		st = swap_preset(s, "arm64", err);
		if (st)
			return st;
	} else if (s->arch == GEN_ARCH_RISCV64) {
		phys_bits = 56;
		st = finish_riscv64(s, err);
		if (st)
			return st;
		levels = (s->va_bits - GEN_PAGE_SHIFT) / 9;
	} else if (s->arch == GEN_ARCH_PPC64) {
		phys_bits = 51;
		st = finish_ppc64(s, err);
		if (st)
			return st;
	} else if (s->arch == GEN_ARCH_LOONGARCH64) {
		phys_bits = 48;
		levels = 3;
		st = finish_loongarch64(s, err);
		if (st)
			return st;
	} else if (s->arch == GEN_ARCH_S390X) {
		st = finish_s390x(s, err);
		if (st)
			return st;
		levels = s->levels;
	} else if (s->arch == GEN_ARCH_MIPS64) {
		phys_bits = 48;
		st = finish_mips64(s, err);
		if (st)
			return st;
		levels = 3;
	} else if (gen_arch_32(s->arch)) {
		/* PAE: 36 physical address bits, LPAE 40; a third level */
		const bool arm = s->arch == GEN_ARCH_ARM, wide = s->x86_pae || s->arm_lpae;

		phys_bits = !wide ? 32 : arm ? 40 : 36;
		st = arm ? finish_arm(s, err) : finish_x86(s, err);
		if (st)
			return st;
		levels = wide ? 3 : 2;
	}
	if (s->super_line && (s->arch != GEN_ARCH_ARM || s->arm_lpae))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec:%u: supersections is for arch arm (short descriptors) only",
				   s->super_line);
	if (s->elfclass_line && s->arch != GEN_ARCH_X86)
		return mdf_err_set(err, MDF_ERR_FORMAT, "spec:%u: elfclass is for arch x86 only",
				   s->elfclass_line);
	/* Buddy blocks: LENGTH(zone.free_area) - 1 of the arch's kernel
	 * (ppc64's 64 KiB pages 8, arm's MAX_ORDER 12 11). */
	unsigned max_order = s->arch == GEN_ARCH_PPC64 ? GEN_MAX_BUDDY_ORDER_PPC64
			     : s->arch == GEN_ARCH_ARM ? GEN_MAX_BUDDY_ORDER_ARM
			     : s->arch == GEN_ARCH_LOONGARCH64 ? GEN_MAX_BUDDY_ORDER_LA
			     : s->arch == GEN_ARCH_MIPS64 && !s->mips64_4k ? GEN_MAX_BUDDY_ORDER_MIPS64
						       : GEN_MAX_BUDDY_ORDER;
	for (size_t i = 0; i < s->npages; i++)
		if (s->pages[i].kind == GEN_K_FREE && s->pages[i].order > max_order)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "spec:%u: free order must be 0..%u here (%u free_areas)",
					   s->pages[i].line, max_order, max_order + 1);
	for (size_t i = 0; s->preset && s->preset->pg_hwpoison < 0 && i < s->npages; i++)
		if (s->pages[i].kind == GEN_K_HWPOISON)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "spec:%u: pages: kernel %s on %s has no PG_hwpoison "
					   "(no CONFIG_MEMORY_FAILURE): hwpoison pages cannot be made",
					   s->pages[i].line, s->preset->name,
					   s->arch == GEN_ARCH_S390X ? "s390x"
					   : s->arch == GEN_ARCH_ARM ? "arm"
					   : s->arch == GEN_ARCH_LOONGARCH64 ? "loongarch64"
					   : s->arch == GEN_ARCH_MIPS64 ? "mips64" : "riscv64");
	if ((s->nlogs || s->log_clear_line) && s->arch == GEN_ARCH_LOONGARCH64 && s->preset &&
	    strcmp(s->preset->name, "7.2") == 0)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec:%u: dmesg: not made for loongarch64 (its 7.2 printk_info is "
				   "112 bytes, the ring written here has 88)",
				   s->nlogs ? s->logs[0].line : s->log_clear_line);
	if ((s->nlogs || s->log_clear_line) && !s->preset)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "spec:%u: dmesg needs a kernel (its VMCOREINFO has no printk ring)",
				   s->nlogs ? s->logs[0].line : s->log_clear_line);
	st = finish_orders(s, err);
	if (st)
		return st;
	if (gen_spec_sadump(s)) {
		/* sadump is an x86 firmware's; its reader finds the kernel
		 * through the fake kernel's tables and variables. */
		const char *why = s->arch != GEN_ARCH_X86_64 ? "x86_64 only"
				  : !s->preset || s->no_struct_pages ? "needs a kernel with struct pages"
				  : s->kcore ? "not with kcore"
				  : s->phoff_past_eof || s->load_past_eof || s->note_overflow ||
				    s->no_vmcoreinfo ? "the ELF breaks do not apply"
				  : NULL;
		if (why)
			return mdf_err_set(err, MDF_ERR_FORMAT, "spec:%u: format sadump: %s",
					   s->format_line, why);
	}
	for (size_t i = 0; i < s->nram; i++) {
		const struct gen_ram *r = &s->ram[i];
		if (r->start + r->memsz > (UINT64_C(1) << phys_bits))
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "spec:%u: ram beyond MAX_PHYSMEM_BITS (%u)", r->line,
					   phys_bits);
	}
	for (size_t i = 0; i < s->npokes; i++)
		if (s->pokes[i].at == GEN_POKE_TABLE && s->pokes[i].off >= levels)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "spec:%u: poke: offset or level out of range '%" PRIu64
					   "' (%u levels)", s->pokes[i].line, s->pokes[i].off, levels);
	return MDF_OK;
}

static void spec_defaults(struct gen_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->preset = gen_preset_find("6.1", GEN_ARCH_X86_64, false);
	s->cpus = 1;
	s->seed = 1;
	s->page_offset = UINT64_C(0xffff888000000000);
	s->vmemmap = UINT64_C(0xffffea0000000000);
	s->vmalloc_start = UINT64_C(0xffffc90000000000);
	s->page_shift = GEN_PAGE_SHIFT;
	s->section_shift = GEN_SECTION_SHIFT;
	s->text_size = 0x1000000;
	s->text_phdr = true;
	s->default_free = true;
	s->crashtime = 1700000000;
	s->ref_levels = 1u << 0 | 1u << 1 | 1u << 2 | 1u << 4 | 1u << 8 | 1u << 16 | 1u << 31;
}

enum mdf_status gen_spec_parse(const char *text, struct gen_spec *spec,
			       struct mdf_err *err)
{
	spec_defaults(spec);
	unsigned lineno = 0;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		char buf[1024];
		if (len >= sizeof(buf)) {
			gen_spec_free(spec);
			return mdf_err_set(err, MDF_ERR_FORMAT, "spec:%u: line too long", lineno);
		}
		memcpy(buf, p, len);
		buf[len] = '\0';
		p += len + (nl ? 1 : 0);
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		char *w[MAX_WORDS];
		int nw = 0;
		for (char *tok = strtok(buf, " \t\r"); tok; tok = strtok(NULL, " \t\r")) {
			if (nw == MAX_WORDS) {
				gen_spec_free(spec);
				return mdf_err_set(err, MDF_ERR_FORMAT,
						   "spec:%u: more than %d words", lineno, MAX_WORDS);
			}
			w[nw++] = tok;
		}
		if (nw == 0)
			continue;
		enum mdf_status st = parse_line(w, nw, lineno, spec, err);
		if (st) {
			gen_spec_free(spec);
			return st;
		}
	}
	if (spec->nram == 0) {
		gen_spec_free(spec);
		return mdf_err_set(err, MDF_ERR_FORMAT, "spec: no 'ram' line");
	}
	enum mdf_status st = spec_finish(spec, err);
	if (st) {
		gen_spec_free(spec);
		return st;
	}
	if (!spec->preset)
		spec->no_struct_pages = true;   /* no page semantics without a kernel */
	return MDF_OK;
}

void gen_spec_free(struct gen_spec *spec)
{
	for (size_t i = 0; i < spec->nedits; i++) {
		free(spec->edits[i].key);
		free(spec->edits[i].value);
	}
	free(spec->edits);
	free(spec->ram);
	free(spec->fills);
	free(spec->pages);
	free(spec->pokes);
	for (size_t i = 0; i < spec->nlogs; i++)
		free(spec->logs[i].text);
	free(spec->logs);
	spec->logs = NULL;
	spec->nlogs = 0;
	spec->pokes = NULL;
	spec->npokes = 0;
	spec->edits = NULL;
	spec->ram = NULL;
	spec->fills = NULL;
	spec->pages = NULL;
	spec->nedits = spec->nram = spec->nfills = spec->npages = 0;
}
