/*
 * tests/fuzz/fuzz_vmcoreinfo.c - fuzz vmcoreinfo_parse() and check that
 * whatever it accepts survives vmcoreinfo_format() and a re-parse
 * unchanged.  Seed corpus: tests/fuzz/corpus/vmcoreinfo/ (the two real
 * x86_64 texts, 6.1 and 6.12, and small malformed ones).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/vmcoreinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check(int cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[VMCOREINFO_TEXT_MAX];
	struct kinfo a, b;
	struct mdf_err err;
	size_t len = 0, lines = 0;
	char *text;
	enum mdf_status st;
	uint64_t v;

	/* An exact-size copy, so a read past the end trips ASan. */
	text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);
	kinfo_init(&a);
	mdf_err_clear(&err);
	st = vmcoreinfo_parse(text, size, &a, &err);
	free(text);
	if (st != MDF_OK) {
		fuzz_check(st == MDF_ERR_FORMAT);
		fuzz_check(strncmp(err.msg, "VMCOREINFO line ", 16) == 0);
		fuzz_check(strchr(err.msg, '\n') == NULL);
		return 0;
	}

	st = vmcoreinfo_format(&a, out, sizeof(out), &len, &err);
	fuzz_check(st == MDF_OK);
	fuzz_check(strlen(out) == len);
	for (size_t i = 0; i < len; i++)
		lines += out[i] == '\n';
	fuzz_check(lines == vmcoreinfo_count_set(&a));

	kinfo_init(&b);
	st = vmcoreinfo_parse(out, len, &b, &err);
	fuzz_check(st == MDF_OK);
	fuzz_check(memcmp(&a, &b, sizeof(a)) == 0);

	if (vmcoreinfo_lookup(&a, "SIZE(page)", &v))
		fuzz_check(a.size.page.set && a.size.page.v == v);
	if (vmcoreinfo_lookup(&a, "NUMBER(phys_base)", &v))
		fuzz_check(a.num.phys_base.set && (uint64_t)a.num.phys_base.v == v);
	return 0;
}
