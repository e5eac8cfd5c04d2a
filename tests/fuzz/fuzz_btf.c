/*
 * tests/fuzz/fuzz_btf.c - the kernel's BTF as the dump holds it, handed to
 * libbpf (kernel/btf.c, kbtf_from_bytes()), then the lookups the run makes
 * (struct sizes, member offsets through anonymous members) of names the
 * input may or may not define.  Any bytes end in a status: never a crash,
 * a hang or a sanitizer report, in libbpf or here.
 *
 * Seed corpus (tests/fuzz/corpus/btf/): small valid BTF blobs, a struct
 * with a member inside an anonymous union, both byte orders, made by
 * tests/fuzz/btf_seeds.py.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "kernel/btf.h"
#include "kernel/btf_kinfo.h"
#include "kernel/vmcoreinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[][2] = {
		{ "page", "flags" }, { "page", "mapping" }, { "page", "nosuch" },
		{ "zone", "free_area" }, { "", "" }, { "int", "x" },
	};
	struct kbtf b;
	struct kinfo ki;
	struct mdf_err err;
	char keys[128];
	uint64_t v;

	if (kbtf_from_bytes(&b, data, size, "fuzz", &err) != MDF_OK) {
		FUZZ_CHECK(err.msg[0] != '\0' && !b.btf);
		return 0;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		(void)kbtf_struct_size(&b, names[i][0], &v);
		(void)kbtf_member_offset(&b, names[i][0], names[i][1], &v);
	}
	kinfo_init(&ki);
	(void)btf_kinfo_fill(&ki, &b, NULL, keys, sizeof(keys));
	FUZZ_CHECK(strlen(keys) < sizeof(keys));
	/* the same bytes as a module's BTF, split from themselves (a module
	 * of the dump: struct btf's data on btf_modules) */
	{
		struct kbtf m;

		if (kbtf_split_from_bytes(&m, &b, data, size, "fuzz module", &err) == MDF_OK) {
			(void)kbtf_struct_size(&m, "page", &v);
			(void)kbtf_member_offset(&m, "page", "mapping", &v);
		} else {
			FUZZ_CHECK(err.msg[0] != '\0' && !m.btf);
		}
		kbtf_free(&m);
	}
	kbtf_free(&b);
	return 0;
}
