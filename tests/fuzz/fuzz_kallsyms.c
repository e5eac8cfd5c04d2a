/*
 * tests/fuzz/fuzz_kallsyms.c - the kernel's symbol table as the dump holds
 * it (kernel/kallsyms.c): the input is the first bytes of a little memory
 * image in which VMCOREINFO names the tables at fixed places (the count
 * at 0, the base at 8, the token index at 0x100, the offsets at 0x400,
 * the names at 0x1000 and the token table at 0x8000), opened as an ELF
 * core the way dump.c opens one.  Any bytes end in a status and, when
 * they load, in lookups of every name: never a crash, a hang or a
 * sanitizer report.
 *
 * Seed corpus (tests/fuzz/corpus/kallsyms/): valid tables of both address
 * encodings and a big name, made by tests/fuzz/kallsyms_seeds.py.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "kernel/kallsyms.h"
#include "corefile.h"
#include "kopen.h"

#define PO 0xffff888000000000ULL
#define RAM 0x18000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char mem[RAM];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct t_kopen t;
	struct kallsyms ks;
	struct mdf_err err;
	char text[640];

	memset(mem, 0, sizeof(mem));
	memcpy(mem, data, size < RAM ? size : RAM);
	snprintf(text, sizeof(text),
		 "OSRELEASE=6.12.0-fuzz\nPAGESIZE=4096\n"
		 "SYMBOL(kallsyms_num_syms)=%llx\nSYMBOL(kallsyms_relative_base)=%llx\n"
		 "SYMBOL(kallsyms_token_index)=%llx\nSYMBOL(kallsyms_offsets)=%llx\n"
		 "SYMBOL(kallsyms_names)=%llx\nSYMBOL(kallsyms_token_table)=%llx\n",
		 PO, PO + 8, PO + 0x100, PO + 0x400, PO + 0x1000, PO + 0x8000);
	FUZZ_CHECK(t_kopen_fd(&t, t_core_memfd("kallsyms.core", text, PO, mem, RAM), "kallsyms.core",
			      &err) == MDF_OK);
	if (kallsyms_load(&ks, &t.k.ki, &t.k.rm, &err) == MDF_OK) {
		FUZZ_CHECK(ks.n > 0 && ks.addr && ks.name && ks.names);
		for (uint32_t i = 0; i < ks.n; i++) {
			char s[600];
			size_t len = kallsyms_name(&ks, i, s, sizeof(s));

			FUZZ_CHECK(ks.name[i] + ks.ntok[i] <= ks.names_len);
			FUZZ_CHECK(len >= 2 && len < sizeof(s) && strlen(s) == len);
			FUZZ_CHECK(kallsyms_lookup(&ks, s + 1, NULL, NULL));
		}
		kallsyms_free(&ks);
	} else {
		FUZZ_CHECK(err.msg[0] != '\0');
	}
	t_kclose(&t);
	return 0;
}
