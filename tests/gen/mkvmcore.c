/*
 * tests/gen/mkvmcore.c - main() of the synthetic vmcore generator.
 *
 *   mkvmcore SPEC OUT [--ref DIR] [--elf] [--symbols FILE]
 *   mkvmcore SPEC OUT --from-elf VMCORE
 *
 * SPEC is a spec file or "-" for stdin (format: tests/gen/README.md).
 * OUT is written in the spec's format (ELF, or sadump with "format");
 * --elf writes a sadump spec's machine as an ELF core instead, and
 * --symbols FILE the symbol table of the vmlinux the machine ran.
 * --from-elf writes the real x86_64 ELF VMCORE (its memory and registers)
 * as a sadump file of the spec's format instead of a synthetic machine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define SPEC_MAX (1u << 20)

static int usage(void)
{
	fprintf(stderr, "usage: mkvmcore SPEC|- OUT [--ref DIR] [--elf] [--symbols FILE]\n"
			"       mkvmcore SPEC|- OUT --from-elf VMCORE\n");
	return 2;
}

static char *read_spec(const char *path, struct mdf_err *err)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	if (!f) {
		mdf_err_errno(err, MDF_ERR_IO, errno, "%s: cannot open", path);
		return NULL;
	}
	char *buf = malloc(SPEC_MAX + 1);
	size_t n = buf ? fread(buf, 1, SPEC_MAX + 1, f) : 0;
	bool bad = buf && (ferror(f) || n > SPEC_MAX);
	if (f != stdin)
		fclose(f);
	if (!buf || bad) {
		mdf_err_set(err, buf ? MDF_ERR_IO : MDF_ERR_NOMEM, "%s: %s", path,
			    buf ? "read error or larger than 1 MiB" : "out of memory");
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		mdf_err_set(err, MDF_ERR_FORMAT, "%s: NUL byte in spec", path);
		free(buf);
		return NULL;
	}
	return buf;
}

static enum mdf_status write_symbols(const struct gen_spec *spec, const struct gen_kernel *k,
				     const char *path, struct mdf_err *err)
{
	char *text;
	enum mdf_status st = gen_kernel_symbols(spec, k, &text, err);
	if (st)
		return st;
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = false;
	free(text);
	return ok ? MDF_OK : mdf_err_errno(err, MDF_ERR_IO, errno, "%s: cannot write", path);
}

int main(int argc, char **argv)
{
	const char *spec_path = NULL, *out = NULL, *ref = NULL, *symbols = NULL, *from = NULL;
	bool elf = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--ref") == 0 && i + 1 < argc)
			ref = argv[++i];
		else if (strcmp(argv[i], "--symbols") == 0 && i + 1 < argc)
			symbols = argv[++i];
		else if (strcmp(argv[i], "--from-elf") == 0 && i + 1 < argc)
			from = argv[++i];
		else if (strcmp(argv[i], "--elf") == 0)
			elf = true;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return usage();
		else if (!spec_path)
			spec_path = argv[i];
		else if (!out)
			out = argv[i];
		else
			return usage();
	}
	if (!spec_path || !out || (from && (ref || symbols || elf)))
		return usage();

	struct mdf_err err;
	mdf_err_clear(&err);
	struct gen_spec spec;
	struct gen_kernel k;
	char *text = read_spec(spec_path, &err);
	if (!text)
		goto fail;
	enum mdf_status st = gen_spec_parse(text, &spec, &err);
	free(text);
	if (st) {
		mdf_err_push(&err, "%s", spec_path);
		goto fail;
	}
	if (from) {
		st = gen_spec_sadump(&spec)
			     ? gen_sadump_from_elf(&spec, from, out, &err)
			     : mdf_err_set(&err, MDF_ERR_ARG, "%s: --from-elf needs a sadump format",
					   spec_path);
		gen_spec_free(&spec);
		if (st)
			goto fail;
		return 0;
	}
	st = gen_kernel_plan(&spec, &k, &err);
	if (st) {
		gen_spec_free(&spec);
		goto fail;
	}
	st = gen_spec_sadump(&spec) && !elf ? gen_sadump_write(&spec, &k, out, &err)
					    : gen_elf_write(&spec, &k, out, &err);
	if (!st && ref)
		st = gen_ref_write(&spec, &k, ref, &err);
	if (!st && symbols)
		st = write_symbols(&spec, &k, symbols, &err);
	gen_kernel_free(&k);
	gen_spec_free(&spec);
	if (st)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "mkvmcore: %s\n", err.msg);
	return 1;
}
