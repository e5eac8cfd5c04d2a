/*
 * Unit tests for kernel/btf.c: the kernel's BTF out of the dump.  On the
 * real fixtures (6.1, 6.12: Debian builds them with CONFIG_DEBUG_INFO_BTF)
 * every SIZE() and OFFSET() of VMCOREINFO that BTF knows agrees with it,
 * members inside anonymous unions included (struct page); bytes libbpf
 * refuses are one error naming where they were.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "elf_info.h"
#include "error.h"
#include "kernel/btf.h"
#include "kernel/kallsyms.h"
#include "kernel/kernel.h"
#include "kinfo.h"
#include "tap.h"
#include "realvm.h"
#include "kopen.h"

static void refused(void)
{
	static const unsigned char junk[] = { 0x9f, 0xeb, 1, 0, 24, 0, 0, 0, 0xff, 0xff };
	struct kbtf b;
	struct mdf_err err;

	if (!kbtf_supported()) {
		t_skip("built without libbpf");
		return;
	}
	T_ASSERT(kbtf_from_bytes(&b, junk, sizeof(junk), "BTF at 0x1000", &err) == MDF_ERR_FORMAT);
	T_ASSERT(strncmp(err.msg, "BTF at 0x1000 (0xa bytes): libbpf cannot parse it: ", 51) == 0);
	T_ASSERT(!b.btf);
	kbtf_free(&b);
}

static void real_fixture(const char *name)
{
	struct realvm rv;
	struct t_kopen t;
	struct kallsyms ks;
	struct kbtf b;
	struct mdf_err err;
	struct timespec t0, t1;
	unsigned checked = 0, known = 0;

	if (!kbtf_supported()) {
		t_skip("built without libbpf");
		return;
	}
	if (!realvm_find_or_skip(&rv, name))
		return;
	T_OK(t_kopen_path(&t, rv.path, &err), &err);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	T_OK(kallsyms_load(&ks, &t.k.ki, &t.k.rm, &err), &err);
	T_OK(kbtf_load(&b, &ks, &t.k.rm, &err), &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
#define CHECK_SIZE(field, text)                                               \
	if (t.k.ki.size.field.set) {                                            \
		uint64_t v_;                                                  \
		known++;                                                      \
		if (kbtf_struct_size(&b, text, &v_)) {                        \
			T_EQ_U64(v_, t.k.ki.size.field.v);                      \
			checked++;                                            \
		}                                                             \
	}
	KINFO_SIZES(CHECK_SIZE)
#undef CHECK_SIZE
#define CHECK_OFF(field, text)                                                \
	if (t.k.ki.off.field.set) {                                             \
		char s_[64];                                                  \
		const char *dot_ = strchr(text, '.');                         \
		uint64_t v_;                                                  \
		known++;                                                      \
		snprintf(s_, sizeof(s_), "%.*s", (int)(dot_ - text), text);   \
		if (kbtf_member_offset(&b, s_, dot_ + 1, &v_)) {              \
			T_EQ_U64(v_, t.k.ki.off.field.v);                       \
			checked++;                                            \
		}                                                             \
	}
	KINFO_OFFSETS(CHECK_OFF)
#undef CHECK_OFF
	printf("# %s: %zu bytes of BTF at 0x%llx, kallsyms and BTF in %.3f s; %u of %u "
	       "VMCOREINFO sizes and offsets agree (the rest are typedefs or not in BTF)\n",
	       name, b.len, (unsigned long long)b.start,
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, checked, known);
	T_ASSERT(checked >= 20);
	kbtf_free(&b);
	kallsyms_free(&ks);
	t_kclose(&t);
}

static void real_61(void) { real_fixture("fx-v61-512m"); }
static void real_612(void) { real_fixture("fx-v612-512m"); }

int main(void)
{
	T_RUN(refused);
	T_RUN(real_61);
	T_RUN(real_612);
	return t_done();
}
