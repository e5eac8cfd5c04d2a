/*
 * tests/fuzz/fuzz_vmcoreinfo.c - fuzz vmcoreinfo_parse() and check that
 * whatever it accepts survives vmcoreinfo_format() and a re-parse
 * unchanged, and passes vmcoreinfo_check() (the parser checks a text as
 * the whole check does).  Then the -i path: the input cut in two at its
 * middle line, the first part read as -i FILE and the second as the note
 * over it, and the merged VMCOREINFO checked as kernel_open() checks it.
 * Seed corpus: tests/fuzz/corpus/vmcoreinfo/ (the two real x86_64 texts,
 * 6.1 and 6.12, small malformed ones, and impossible values).
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

/* A message of vmcoreinfo_check() with these sources starts with one. */
static int named(const char *msg)
{
	static const char *const start[] = { "note: ", "file: ", "vmlinux: ", "VMCOREINFO" };

	for (size_t i = 0; i < sizeof(start) / sizeof(start[0]); i++)
		if (strncmp(msg, start[i], strlen(start[i])) == 0)
			return 1;
	return 0;
}

/* -i FILE (the first @cut bytes), the note over it (the rest). */
static void fuzz_two_texts(const uint8_t *data, size_t size, size_t cut)
{
	struct vmcoreinfo_lines li, ln;
	struct kinfo ki;
	struct mdf_err err;
	char *a = malloc(cut ? cut : 1), *b = malloc(size - cut ? size - cut : 1);
	enum mdf_status st;

	if (!a || !b)
		goto out;
	memcpy(a, data, cut);
	memcpy(b, data + cut, size - cut);
	kinfo_init(&ki);
	mdf_err_clear(&err);
	if (vmcoreinfo_parse_lines(a, cut, &ki, &li, &err) != MDF_OK ||
	    vmcoreinfo_parse_lines(b, size - cut, &ki, &ln, &err) != MDF_OK)
		goto out;
	{
		const struct vmcoreinfo_source src[] = {
			{ "note", &ln }, { "file", &li }, { "vmlinux", NULL },
		};

		for (size_t n = 2; n <= 3; n++) {
			st = vmcoreinfo_check(&ki, src, n, &err);
			fuzz_check(st == MDF_OK || st == MDF_ERR_FORMAT);
			fuzz_check(st == MDF_OK || named(err.msg));
			fuzz_check(strchr(err.msg, '\n') == NULL);
		}
	}
out:
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[VMCOREINFO_TEXT_MAX];
	struct kinfo a, b;
	struct vmcoreinfo_lines lines;
	struct mdf_err err;
	size_t len = 0, nlines = 0;
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
	st = vmcoreinfo_parse_lines(text, size, &a, &lines, &err);
	free(text);
	{
		const uint8_t *mid = size ? memchr(data + size / 2, '\n', size - size / 2) : NULL;

		fuzz_two_texts(data, size, mid ? (size_t)(mid - data) + 1 : size / 2);
	}
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
		nlines += out[i] == '\n';
	fuzz_check(nlines == vmcoreinfo_count_set(&a));

	{
		const struct vmcoreinfo_source one = { NULL, &lines };

		fuzz_check(vmcoreinfo_check(&a, &one, 1, &err) == MDF_OK);
	}

	kinfo_init(&b);
	st = vmcoreinfo_parse(out, len, &b, &err);
	fuzz_check(st == MDF_OK);
	/* A line filtering does not read with a bad value is left out of
	 * the text and leaves only its warning behind. */
	memset(a.ignored_key, 0, sizeof(a.ignored_key));
	memset(a.ignored_msg, 0, sizeof(a.ignored_msg));
	fuzz_check(memcmp(&a, &b, sizeof(a)) == 0);

	if (vmcoreinfo_lookup(&a, "SIZE(page)", &v))
		fuzz_check(a.size.page.set && a.size.page.v == v);
	if (vmcoreinfo_lookup(&a, "NUMBER(phys_base)", &v))
		fuzz_check(a.num.phys_base.set && (uint64_t)a.num.phys_base.v == v);
	return 0;
}
