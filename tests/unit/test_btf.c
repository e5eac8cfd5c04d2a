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
#include "kbtfopen.h"

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
	struct t_kbtf x;
	struct t_kopen *const t = &x.t;
	struct kbtf *const b = &x.b;
	unsigned checked = 0, known = 0;

	if (!t_kbtf_open(&x, name))
		return;
#define CHECK_SIZE(field, text)                                               \
	if (t->k.ki.size.field.set) {                                            \
		uint64_t v_;                                                  \
		known++;                                                      \
		if (kbtf_struct_size(b, text, &v_)) {                        \
			T_EQ_U64(v_, t->k.ki.size.field.v);                      \
			checked++;                                            \
		}                                                             \
	}
	KINFO_SIZES(CHECK_SIZE)
#undef CHECK_SIZE
#define CHECK_OFF(field, text)                                                \
	if (t->k.ki.off.field.set) {                                             \
		char s_[64];                                                  \
		const char *dot_ = strchr(text, '.');                         \
		uint64_t v_;                                                  \
		known++;                                                      \
		snprintf(s_, sizeof(s_), "%.*s", (int)(dot_ - text), text);   \
		if (kbtf_member_offset(b, s_, dot_ + 1, &v_)) {              \
			T_EQ_U64(v_, t->k.ki.off.field.v);                       \
			checked++;                                            \
		}                                                             \
	}
	KINFO_OFFSETS(CHECK_OFF)
#undef CHECK_OFF
	printf("# %s: %zu bytes of BTF at 0x%llx, kallsyms and BTF in %.3f s; %u of %u "
	       "VMCOREINFO sizes and offsets agree (the rest are typedefs or not in BTF)\n",
	       name, b->len, (unsigned long long)b->start, x.load_secs, checked, known);
	t_kbtf_close(&x);
	T_ASSERT(checked >= 20);
}

/* ext4's own BTF, split from the vmlinux's: struct ext4_sb_info is in
 * it and not in the vmlinux's.  The kernel keeps a module's BTF in its
 * struct btf (data, data_size), on the list btf_modules. */
static void module_split(const char *name)
{
	struct t_kbtf x;
	struct kbtf mb;
	struct mdf_err err;
	uint64_t head, node, o_list, o_btf, o_data, o_size, o_bname, size;
	unsigned n = 0;
	bool found = false;

	if (!t_kbtf_open(&x, name))
		return;
	T_ASSERT(!kbtf_struct_size(&x.b, "ext4_sb_info", &size));
	T_ASSERT(kallsyms_lookup(&x.ks, "btf_modules", &head, NULL));
	T_ASSERT(kbtf_member_offset(&x.b, "btf_module", "list", &o_list) &&
		 kbtf_member_offset(&x.b, "btf_module", "btf", &o_btf) &&
		 kbtf_member_offset(&x.b, "btf", "data", &o_data) &&
		 kbtf_member_offset(&x.b, "btf", "data_size", &o_size) &&
		 kbtf_member_offset(&x.b, "btf", "name", &o_bname));
	T_OK(readmem_u64(&x.t.k.rm, head, &node, &err), &err);
	for (; node != head && n < 1000 && !found; n++) {
		char bname[56];
		uint64_t btf, data;
		uint32_t len;

		T_OK(readmem_u64(&x.t.k.rm, node - o_list + o_btf, &btf, &err), &err);
		T_OK(readmem_vaddr(&x.t.k.rm, btf + o_bname, bname, sizeof(bname), &err), &err);
		if (strcmp(bname, "ext4") == 0) {
			found = true;
			T_OK(readmem_u64(&x.t.k.rm, btf + o_data, &data, &err), &err);
			T_OK(readmem_vaddr(&x.t.k.rm, btf + o_size, &len, sizeof(len), &err), &err);
			T_OK(kbtf_load_split(&mb, &x.b, data, len, &x.t.k.rm, &err), &err);
			T_ASSERT(kbtf_struct_size(&mb, "ext4_sb_info", &size) && size > 512);
			/* and the vmlinux's types through it */
			T_ASSERT(kbtf_struct_size(&mb, "task_struct", &size));
			printf("# %s: ext4's BTF, %u bytes split from the vmlinux's: struct ext4_sb_info "
			       "is there\n", name, len);
			kbtf_free(&mb);
		}
		T_OK(readmem_u64(&x.t.k.rm, node, &node, &err), &err);
	}
	t_kbtf_close(&x);
	T_ASSERT(found);
}

static void module_61(void) { module_split("fx-v61-512m"); }
static void module_612(void) { module_split("fx-v612-512m"); }
static void real_61(void) { real_fixture("fx-v61-512m"); }
static void real_612(void) { real_fixture("fx-v612-512m"); }

int main(void)
{
	T_RUN(refused);
	T_RUN(real_61);
	T_RUN(real_612);
	T_RUN(module_61);
	T_RUN(module_612);
	return t_done();
}
