/*
 * Unit tests for kernel/btf_kinfo.c: the VMCOREINFO keys a note lacks,
 * from the dump's BTF and kallsyms.
 *  - a small BTF (tests/fuzz/btf_seeds.py's, both byte orders): an array
 *    member's length, enum pageflags' values and PG_head_mask from them;
 *    keys already set stay; the names of the keys set are listed;
 *  - the real fixtures (6.1, 6.12): from BTF and kallsyms alone, every
 *    key the note also has is the note's value (sizes, offsets, lengths,
 *    numbers and symbols), and enough of them are there to filter.
 */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "kernel/btf.h"
#include "kernel/btf_kinfo.h"
#include "kernel/kallsyms.h"
#include "kernel/vmcoreinfo.h"
#include "kinfo.h"
#include "tap.h"
#include "kbtfopen.h"

/* tests/fuzz/corpus/btf/keys-le (btf_seeds.py's blob_keys()): struct
 * zone { int free_area[11]; }, enum pageflags { PG_lru = 4, PG_head = 6 } */
static const unsigned char keys_le[] = {
	0x9f, 0xeb, 0x01, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x5c, 0x00, 0x00, 0x00, 0x5c, 0x00, 0x00, 0x00, 0x2d, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00,
	0x20, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x0b, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x04,
	0x2c, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x06,
	0x04, 0x00, 0x00, 0x00, 0x1e, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
	0x25, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x69, 0x6e, 0x74,
	0x00, 0x7a, 0x6f, 0x6e, 0x65, 0x00, 0x66, 0x72, 0x65, 0x65, 0x5f, 0x61,
	0x72, 0x65, 0x61, 0x00, 0x70, 0x61, 0x67, 0x65, 0x66, 0x6c, 0x61, 0x67,
	0x73, 0x00, 0x50, 0x47, 0x5f, 0x6c, 0x72, 0x75, 0x00, 0x50, 0x47, 0x5f,
	0x68, 0x65, 0x61, 0x64, 0x00,
};

static void small(void)
{
	struct kbtf b;
	struct kinfo ki;
	struct mdf_err err;
	char names[256];

	if (!kbtf_supported()) {
		t_skip("built without libbpf");
		return;
	}
	T_OK(kbtf_from_bytes(&b, keys_le, sizeof(keys_le), "BTF", &err), &err);
	kinfo_init(&ki);
	ki.num.PG_lru.v = 5;   /* the note's value stays */
	ki.num.PG_lru.set = true;
	T_EQ_U64(btf_kinfo_fill(&ki, &b, NULL, names, sizeof(names)), 6);
	T_ASSERT(strcmp(names, "SIZE(zone), SIZE(pageflags), OFFSET(zone.free_area), "
			 "LENGTH(zone.free_area), NUMBER(PG_head), NUMBER(PG_head_mask)") == 0);
	T_EQ_U64(ki.size.zone.v, 44);
	T_EQ_U64(ki.len.zone_free_area.v, 11);
	T_EQ_U64((uint64_t)ki.num.PG_lru.v, 5);
	T_EQ_U64((uint64_t)ki.num.PG_head.v, 6);
	T_EQ_U64((uint64_t)ki.num.PG_head_mask.v, 64);
	T_EQ_U64(ki.off.zone_free_area.v, 0);
	/* cut short, still a string */
	kinfo_init(&ki);
	T_ASSERT(btf_kinfo_fill(&ki, &b, NULL, names, 12) >= 4);
	T_EQ_STR(names, "SIZE(zone),");
	kbtf_free(&b);
}

static void real_fixture(const char *name)
{
	struct t_kbtf x;
	struct kinfo ki;
	size_t n;
	unsigned agree = 0;

	if (!t_kbtf_open(&x, name))
		return;
	kinfo_init(&ki);
	n = btf_kinfo_fill(&ki, &x.b, &x.ks, NULL, 0);
#define AGREE(kind, ident, key)                                                  \
	if (x.t.k.ki.kind.ident.set && ki.kind.ident.set) {                     \
		if ((uint64_t)ki.kind.ident.v != (uint64_t)x.t.k.ki.kind.ident.v)     \
			printf("# %s: %s: BTF %llx, note %llx\n", name, key,          \
			       (unsigned long long)ki.kind.ident.v,                   \
			       (unsigned long long)x.t.k.ki.kind.ident.v);               \
		T_EQ_U64((uint64_t)ki.kind.ident.v, (uint64_t)x.t.k.ki.kind.ident.v); \
		agree++;                                                      \
	}
#define AGREE_SIZE(ident, key) AGREE(size, ident, key)
#define AGREE_OFF(ident, key) AGREE(off, ident, key)
#define AGREE_LEN(ident, key) AGREE(len, ident, key)
#define AGREE_NUM(ident, key) AGREE(num, ident, key)
#define AGREE_SYM(ident, key) AGREE(sym, ident, key)
	KINFO_SIZES(AGREE_SIZE)
	KINFO_OFFSETS(AGREE_OFF)
	KINFO_LENGTHS(AGREE_LEN)
	KINFO_NUMBERS(AGREE_NUM)
	KINFO_SYMBOLS(AGREE_SYM)
	printf("# %s: %zu keys from BTF and kallsyms, %u of them in the note too, all equal\n",
	       name, n, agree);
	t_kbtf_close(&x);
	/* what -d 31 needs of them */
	T_ASSERT(ki.size.page.set && ki.off.page_flags.set && ki.off.page_mapping.set &&
		 ki.off.page__mapcount.set && ki.off.page_private.set &&
		 ki.off.page_compound_head.set && ki.num.PG_lru.set && ki.num.PG_head_mask.set &&
		 ki.num.PG_swapcache.set && ki.num.PG_private.set);
	T_ASSERT(agree >= 40);
}

static void real_61(void) { real_fixture("fx-v61-512m"); }
static void real_612(void) { real_fixture("fx-v612-512m"); }

int main(void)
{
	T_RUN(small);
	T_RUN(real_61);
	T_RUN(real_612);
	return t_done();
}
