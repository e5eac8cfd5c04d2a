/*
 * Unit tests for kernel/kallsyms.c: the kernel's symbol table out of a
 * dump.  A synthetic core holds hand-made tables (token-compressed names,
 * a "big" name of two length bytes, the three address encodings), opened the
 * way dump.c opens an input; damaged tables give one error naming what;
 * and on the real fixtures (6.1, 6.12) every symbol VMCOREINFO names has
 * the address kallsyms gives it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "kernel/kallsyms.h"
#include "kernel/kernel.h"
#include "kinfo.h"
#include "corefile.h"
#include "kopen.h"
#include "tap.h"
#include "realvm.h"
#include "util.h"

#define PO 0xffff888000000000ULL
#define RAM 0x40000u
#define BASE 0xffffffff81000000ULL /* kallsyms_relative_base */

/* physical layout of the tables */
#define NUM_PA 0x1000u
#define BASE_PA 0x1008u
#define TI_PA 0x2000u
#define TT_PA 0x3000u
#define OFF_PA 0x4000u
#define NAMES_PA 0x5000u

static unsigned char mem[RAM];

static const char *const tokens[] = { "T_st", "ext", "t", "foo", "D", "bar", "A", "per", "cpu",
				      "x", "T" };
/* the names as token lists; a 0xff ends one */
static const unsigned char n0[] = { 0, 1, 0xff };       /* T _stext */
static const unsigned char n1[] = { 2, 3, 0xff };       /* t foo */
static const unsigned char n2[] = { 4, 5, 0xff };       /* D bar */
static const unsigned char n3[] = { 6, 7, 8, 0xff };    /* A percpu */
static const uint64_t addrs[] = { BASE, BASE + 0x10, BASE + 0x200000, 0x1000, BASE + 0x20 };

/* Lay the tables out; @absolute: KALLSYMS_ABSOLUTE_PERCPU's encoding. */
static void tables(bool absolute, uint32_t nsyms)
{
	const unsigned char *names[] = { n0, n1, n2, n3 };
	size_t o = 0, p = NAMES_PA;

	memset(mem, 0, sizeof(mem));
	store_le32(mem + NUM_PA, nsyms);
	store_le64(mem + BASE_PA, BASE);
	for (unsigned i = 0; i < ARRAY_SIZE(tokens); i++) {
		t_core_put(mem + TI_PA + 2 * i, 2, o);
		memcpy(mem + TT_PA + o, tokens[i], strlen(tokens[i]) + 1);
		o += strlen(tokens[i]) + 1;
	}
	for (unsigned i = 0; i < 4; i++) {
		unsigned len = 0;

		while (names[i][len] != 0xff)
			len++;
		mem[p++] = (unsigned char)len;
		memcpy(mem + p, names[i], len);
		p += len;
	}
	/* a "big" name: T and 200 x, 201 tokens in two length bytes */
	mem[p++] = 0x80 | (201 & 0x7f);
	mem[p++] = 201 >> 7;
	mem[p++] = 10;
	memset(mem + p, 9, 200);
	for (unsigned i = 0; i < 5; i++) {
		int32_t v = absolute ? (addrs[i] < BASE ? (int32_t)addrs[i]
							: (int32_t)(-(int64_t)(addrs[i] - BASE) - 1))
				     : (int32_t)(addrs[i] - BASE);

		store_le32(mem + OFF_PA + 4 * i, (uint32_t)v);
	}
}

static struct t_kopen E = { .fd = -1 };

/* The synthetic core with the tables, opened; @stext 0: no SYMBOL(_stext);
 * @no_base: no SYMBOL(kallsyms_relative_base), as Linux 7.x's. */
static enum mdf_status env_open_as(uint64_t stext, bool no_base, struct mdf_err *err)
{
	char text[1024], st_line[64] = "", base_line[64] = "";

	if (stext)
		snprintf(st_line, sizeof(st_line), "SYMBOL(_stext)=%llx\n", (unsigned long long)stext);
	if (!no_base)
		snprintf(base_line, sizeof(base_line), "SYMBOL(kallsyms_relative_base)=%llx\n",
			 (unsigned long long)(PO + BASE_PA));
	snprintf(text, sizeof(text),
		 "OSRELEASE=6.12.0-fake\nPAGESIZE=4096\n%s"
		 "SYMBOL(kallsyms_num_syms)=%llx\n%s"
		 "SYMBOL(kallsyms_token_index)=%llx\nSYMBOL(kallsyms_token_table)=%llx\n"
		 "SYMBOL(kallsyms_offsets)=%llx\nSYMBOL(kallsyms_names)=%llx\n",
		 st_line, PO + NUM_PA, base_line, PO + TI_PA, PO + TT_PA, PO + OFF_PA,
		 PO + NAMES_PA);
	return t_kopen_fd(&E, t_core_memfd("kallsyms.core", text, PO, mem, RAM), "kallsyms.core", err);
}

static enum mdf_status env_open(uint64_t stext, struct mdf_err *err)
{
	return env_open_as(stext, false, err);
}

static void env_close(void)
{
	t_kclose(&E);
}

static void check_table(bool absolute)
{
	struct kallsyms ks;
	struct mdf_err err;
	uint64_t a = 0;
	char t = 0, big[202];

	tables(absolute, 5);
	T_OK(env_open(BASE, &err), &err);
	T_OK(kallsyms_load(&ks, &E.k.ki, &E.k.rm, &err), &err);
	T_EQ_U64(ks.n, 5);
	T_EQ_U64(ks.absolute_percpu, absolute);
	T_ASSERT(kallsyms_lookup(&ks, "_stext", &a, &t));
	T_EQ_U64(a, BASE);
	T_EQ_U64(t, 'T');
	T_ASSERT(kallsyms_lookup(&ks, "foo", &a, &t));
	T_EQ_U64(a, BASE + 0x10);
	T_EQ_U64(t, 't');
	T_ASSERT(kallsyms_lookup(&ks, "bar", &a, &t));
	T_EQ_U64(a, BASE + 0x200000);
	T_ASSERT(kallsyms_lookup(&ks, "percpu", &a, &t));
	/* without the absolute encoding a per-cpu offset would be relative */
	T_EQ_U64(a, absolute ? 0x1000 : BASE + (uint32_t)(0x1000 - BASE));
	memset(big, 'x', 200);
	big[200] = '\0';
	T_ASSERT(kallsyms_lookup(&ks, big, &a, &t));
	T_EQ_U64(a, BASE + 0x20);
	T_ASSERT(!kallsyms_lookup(&ks, "nosuch", NULL, NULL));
	kallsyms_free(&ks);
	env_close();
}

static void relative_encoding(void)
{
	/* the per-cpu symbol below the base cannot be told in this
	 * encoding; the others are what counts */
	check_table(false);
}

static void absolute_percpu_encoding(void)
{
	check_table(true);
}

/* A relative table with an entry past 2 GiB looks absolute by its
 * entries; SYMBOL(_stext) tells it right. */
static void stext_decides(void)
{
	struct kallsyms ks;
	struct mdf_err err;
	uint64_t a = 0;

	tables(false, 5);
	store_le32(mem + OFF_PA + 4 * 2, 0x90000000u);
	T_OK(env_open(BASE, &err), &err);
	T_OK(kallsyms_load(&ks, &E.k.ki, &E.k.rm, &err), &err);
	T_ASSERT(!ks.absolute_percpu);
	T_ASSERT(kallsyms_lookup(&ks, "bar", &a, NULL));
	T_EQ_U64(a, BASE + 0x90000000u);
	kallsyms_free(&ks);
	env_close();
}

/* Linux 7.x's place-relative offsets (Ard Biesheuvel's "kallsyms: Get rid
 * of kallsyms relative base"): entry i is the distance of the symbol from
 * the entry itself, and VMCOREINFO names no base.  The symbols lie within
 * 2 GiB of the table, here in the synthetic core's direct map, one of them
 * below it (a negative distance); the per-cpu and big-name entries too. */
static void place_relative(void)
{
	static const uint64_t at[] = { PO + 0x10000, PO + 0x10010, PO + 0x30000, PO + 0x800,
				       PO + 0x10020 };
	struct kallsyms ks;
	struct mdf_err err;
	uint64_t a = 0;

	tables(false, 5);
	for (unsigned i = 0; i < 5; i++)
		store_le32(mem + OFF_PA + 4 * i,
			   (uint32_t)(int32_t)(int64_t)(at[i] - (PO + OFF_PA + 4 * i)));
	T_OK(env_open_as(at[0], true, &err), &err);
	T_OK(kallsyms_load(&ks, &E.k.ki, &E.k.rm, &err), &err);
	T_ASSERT(!ks.absolute_percpu);
	T_ASSERT(kallsyms_lookup(&ks, "_stext", &a, NULL));
	T_EQ_U64(a, at[0]);
	T_ASSERT(kallsyms_lookup(&ks, "foo", &a, NULL));
	T_EQ_U64(a, at[1]);
	T_ASSERT(kallsyms_lookup(&ks, "bar", &a, NULL));
	T_EQ_U64(a, at[2]);
	T_ASSERT(kallsyms_lookup(&ks, "percpu", &a, NULL));
	T_EQ_U64(a, at[3]);
	kallsyms_free(&ks);
	env_close();
	/* a _stext the table does not decode to is said, in the encoding */
	T_OK(env_open_as(at[0] + 0x40, true, &err), &err);
	T_ASSERT(kallsyms_load(&ks, &E.k.ki, &E.k.rm, &err) != MDF_OK);
	env_close();
	T_ASSERT(strstr(err.msg, "_stext decodes to 0xffff888000010000 (place-relative), "
			"VMCOREINFO says 0xffff888000010040") != NULL);
}

/* kallsyms_load() on the synthetic core must fail with @msg in it. */
static void fails(const char *msg, uint64_t stext)
{
	struct kallsyms ks;
	struct mdf_err err;

	T_OK(env_open(stext, &err), &err);
	if (kallsyms_load(&ks, &E.k.ki, &E.k.rm, &err) == MDF_OK) {
		fprintf(stderr, "# loaded, want: %s\n", msg);
		kallsyms_free(&ks);
		env_close();
		T_ASSERT(0);
	}
	if (!strstr(err.msg, msg)) {
		fprintf(stderr, "# got: %s\n# want: %s\n", err.msg, msg);
		T_ASSERT(0);
	}
	T_ASSERT(ks.n == 0 && !ks.addr && !ks.names);
	env_close();
}

static void damaged(void)
{
	tables(true, 5);
	fails("_stext decodes to 0xffffffff81000000 (or 0x80ffffff), VMCOREINFO says 0xffffffff81000040",
	      BASE + 0x40);
	tables(true, 0x7fffffff);
	fails("kallsyms_num_syms is 2147483647", BASE);
	tables(true, 5);
	mem[NAMES_PA + 1] = 200; /* a token whose index points at zeros */
	t_core_put(mem + TI_PA + 2 * 200, 2, 0xfff8);
	fails("symbol 0 of 5: token 200 at 0xfff8 of kallsyms_token_table is empty or runs past it", 0);
	tables(true, 5);
	t_core_put(mem + TI_PA, 2, 0xfff0); /* token 0 points into nothing */
	fails("token 0 at 0xfff0 of kallsyms_token_table is empty or runs past it", 0);
	tables(true, 5);
	mem[NAMES_PA] = 0; /* an empty entry */
	fails("symbol 0 of 5 has a name of 0 tokens", 0);
	tables(true, 6); /* one more symbol than names: runs into zeros */
	fails("symbol 5 of 6 has a name of 0 tokens", 0);
}

static void real_fixture(const char *name)
{
	struct realvm rv;
	struct kallsyms ks;
	struct mdf_err err;
	struct timespec t0, t1;
	unsigned checked = 0;

	if (!realvm_find_or_skip(&rv, name))
		return;
	T_OK(t_kopen_path(&E, rv.path, &err), &err);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	T_OK(kallsyms_load(&ks, &E.k.ki, &E.k.rm, &err), &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	T_ASSERT(ks.n > 50000);
	T_ASSERT(ks.absolute_percpu); /* x86_64 SMP before 6.15 */
	/* every SYMBOL() of VMCOREINFO that kallsyms lists, but mem_section:
	 * VMCOREINFO gives the array the pointer points to (4.14's commit
	 * a0b1280368d1, SPARSEMEM_EXTREME), kallsyms the pointer */
#define CHECK_SYM(field, text)                                                    \
	if (E.k.ki.sym.field.set && strcmp(text, "mem_section") != 0) {           \
		uint64_t a_;                                                      \
		if (kallsyms_lookup(&ks, text, &a_, NULL)) {                      \
			T_EQ_U64(a_, E.k.ki.sym.field.v);                         \
			checked++;                                                \
		}                                                                 \
	}
	KINFO_SYMBOLS(CHECK_SYM)
#undef CHECK_SYM
	printf("# %s: %u symbols in %.3f s, %u agree with VMCOREINFO\n", name, ks.n,
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, checked);
	T_ASSERT(checked >= 8);
	kallsyms_free(&ks);
	env_close();
}

static void real_61(void) { real_fixture("fx-v61-512m"); }
static void real_612(void) { real_fixture("fx-v612-512m"); }

int main(void)
{
	T_RUN(relative_encoding);
	T_RUN(absolute_percpu_encoding);
	T_RUN(stext_decides);
	T_RUN(place_relative);
	T_RUN(damaged);
	T_RUN(real_61);
	T_RUN(real_612);
	return t_done();
}
