/*
 * tests/unit/test_dwarf_info.c - kernel/dwarf_info.c on the synthetic
 * kernel object (BUILD/tests/gen/kobj, from tests/gen/kobj/kobj.h): every
 * answer equals what the compiler says of the same types here, through
 * sizeof(), offsetof() and the enumerators themselves; and on the
 * hand-written loops of tests/gen/kobj/cycle.S (BUILD/tests/gen/cycle-*).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "kernel/dwarf_info.h"
#include "kernel/vmcoreinfo.h"
#include "kinfo.h"
#include "gen/kobj/kobj.h"
#include "tap.h"

static char kobj_path[4096];
static struct kinfo ki;
static struct dwarf_facts facts;
static bool have_kobj;

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void t_sizes_offsets(void)
{
	T_ASSERT(have_kobj);
	T_ASSERT(ki.size.page.set);
	T_EQ_U64(ki.size.page.v, sizeof(struct page));
	T_EQ_U64(ki.size.zone.v, sizeof(struct zone));
	T_EQ_U64(ki.size.pglist_data.v, sizeof(struct pglist_data));
	T_EQ_U64(ki.size.free_area.v, sizeof(struct free_area));
	/* typedef'd anonymous structs */
	T_EQ_U64(ki.size.nodemask_t.v, sizeof(nodemask_t));
	T_EQ_U64(ki.size.atomic_long_t.v, sizeof(atomic_long_t));
	T_EQ_U64(ki.size.pageflags.v, sizeof(enum pageflags));
	/* members inside anonymous unions and structs, three deep */
	T_EQ_U64(ki.off.page_lru.v, offsetof(struct page, lru));
	T_EQ_U64(ki.off.page_compound_head.v, offsetof(struct page, compound_head));
	T_EQ_U64(ki.off.page_compound_order.v, offsetof(struct page, compound_order));
	T_EQ_U64(ki.off.page_private.v, offsetof(struct page, private));
	T_EQ_U64(ki.off.page__mapcount.v, offsetof(struct page, _mapcount));
	T_EQ_U64(ki.off.page__refcount.v, offsetof(struct page, _refcount));
	T_EQ_U64(ki.off.zone_vm_stat.v, offsetof(struct zone, vm_stat));
	T_EQ_U64(ki.off.pglist_data_node_id.v, offsetof(struct pglist_data, node_id));
	T_EQ_U64(ki.off.atomic_long_t_counter.v, offsetof(atomic_long_t, counter));
	/* what the object does not have stays unset */
	T_ASSERT(!ki.off.page__count.set);
	T_ASSERT(!ki.size.printk_log.set);
	T_ASSERT(!ki.off.folio__folio_order.set);
}

static void t_lengths_numbers(void)
{
	struct zone z;
	struct free_area fa;

	T_ASSERT(have_kobj);
	T_EQ_U64(ki.len.zone_free_area.v, ARRAY_LEN(z.free_area));
	T_EQ_U64(ki.len.free_area_free_list.v, ARRAY_LEN(fa.free_list));
	/* the definition's bound, not an "extern T x[];" */
	T_ASSERT(ki.len.node_data.set);
	T_EQ_U64(ki.len.node_data.v, 1024);
	/* mem_section is a pointer here (4.14 and later): no length */
	T_ASSERT(!ki.len.mem_section.set);
	T_ASSERT(facts.mem_section_is_ptr);
	T_EQ_U64(ki.num.PG_lru.v, PG_lru);
	T_EQ_U64(ki.num.PG_swapcache.v, PG_swapcache);
	T_EQ_U64(ki.num.PG_hwpoison.v, PG_hwpoison);
	T_EQ_U64(ki.num.PG_head.v, PG_head);
	T_EQ_U64(ki.num.PG_head_mask.v, 1UL << PG_head);
	T_EQ_U64(ki.num.HUGETLB_PAGE_DTOR.v, HUGETLB_PAGE_DTOR);
	T_EQ_U64(ki.num.NR_FREE_PAGES.v, NR_FREE_PAGES);
	T_EQ_U64(ki.num.N_ONLINE.v, N_ONLINE);
	/* enum pagetype's PG_buddy is a mask, not a pageflags bit */
	T_ASSERT(!ki.num.PG_buddy.set);
	T_ASSERT(!ki.num.PG_offline.set);
	/* the markers, from enum pagetype's masks (6.10-6.11 style) */
	T_ASSERT(ki.num.PAGE_BUDDY_MAPCOUNT_VALUE.set);
	T_EQ_U64(ki.num.PAGE_BUDDY_MAPCOUNT_VALUE.v, (int64_t)(int32_t)~PG_buddy);
	T_EQ_U64(ki.num.PAGE_OFFLINE_MAPCOUNT_VALUE.v, (int64_t)(int32_t)~PG_offline);
	T_ASSERT(!ki.num.PAGE_SLAB_MAPCOUNT_VALUE.set);
	/* macros are not in DWARF */
	T_ASSERT(!ki.num.SECTION_SIZE_BITS.set);
}

static bool symbol(const char *name, uint64_t *a, uint64_t *sz)
{
	struct dwarf_info *di = NULL;
	struct mdf_err err;
	bool found;

	memset(&err, 0, sizeof(err));
	if (dwarf_info_open(kobj_path, &di, &err) != MDF_OK)
		return false;
	found = dwarf_info_symbol(di, name, a, sz);
	dwarf_info_close(di);
	return found;
}

static void t_symbols_release(void)
{
	uint64_t a = 0, sz = 0;

	T_ASSERT(have_kobj);
	T_EQ_STR(ki.osrelease, "6.1.0-57-amd64");
	T_EQ_STR(ki.build_id, "6a2b4ac77585b8cf102cba771300e573c8489b69");
	T_EQ_STR(ki.srcfile.pud_t, "tests/gen/kobj/kobj.h");
	T_ASSERT(symbol("init_uts_ns", &a, &sz));
	T_ASSERT(ki.sym.init_uts_ns.set);
	T_EQ_U64(ki.sym.init_uts_ns.v, a);
	T_EQ_U64(sz, sizeof(struct uts_namespace));
	T_ASSERT(ki.sym.mem_section.set && ki.sym.node_data.set && ki.sym._stext.set);
	T_ASSERT(!ki.sym.prb.set);
	T_ASSERT(!symbol("no_such_symbol", &a, &sz));
	T_ASSERT(facts.have_text == false || facts.text != 0);
	T_ASSERT(facts.have_release_off);
	T_EQ_U64(facts.release_off, offsetof(struct uts_namespace, name.release));
	T_ASSERT(!ki.page_size.set);
}

/* Written by -g, read back by the parser: the same struct. */
static void t_format_roundtrip(void)
{
	static char text[VMCOREINFO_TEXT_MAX];
	struct kinfo back;
	struct mdf_err err;
	size_t len;

	T_ASSERT(have_kobj);
	memset(&err, 0, sizeof(err));
	T_OK(vmcoreinfo_format(&ki, text, sizeof(text), &len, &err), &err);
	kinfo_init(&back);
	if (sizeof(struct page) % 8 &&
	    vmcoreinfo_parse(text, len, &back, &err) != MDF_OK) {
		/* kobj is built for this host: on a 32-bit one its struct
		 * page is a 32-bit kernel's, not a size of 64-bit kernels */
		t_skip("a 32-bit host's struct page size is not a 64-bit kernel's");
		return;
	}
	kinfo_init(&back);
	T_OK(vmcoreinfo_parse(text, len, &back, &err), &err);
	T_ASSERT(memcmp(&back, &ki, sizeof(ki)) == 0);
}

static void t_open_errors(void)
{
	struct dwarf_info *di = NULL;
	struct mdf_err err;
	char p[64];
	FILE *f;

	memset(&err, 0, sizeof(err));
	T_EQ_U64(dwarf_info_open("/nonexistent/vmlinux", &di, &err), MDF_ERR_IO);
	T_ASSERT(strstr(err.msg, "cannot open /nonexistent/vmlinux"));
	snprintf(p, sizeof(p), "/tmp/mdf-dwarf-test.%d", (int)getpid());
	f = fopen(p, "w");
	T_ASSERT(f);
	fputs("not an ELF file", f);
	fclose(f);
	T_EQ_U64(dwarf_info_open(p, &di, &err), MDF_ERR_FORMAT);
	remove(p);
	T_ASSERT(strstr(err.msg, "not an ELF file"));
	T_ASSERT(di == NULL);
}

/* The types --config walks: a member path, an array's count and size. */
static void t_types(void)
{
	struct dwarf_query q[2] = { { .name = "zone", .is_type = true },
				    { .name = "init_uts_ns" } };
	struct dwarf_info *di = NULL;
	struct dwarf_type_info ti, et;
	struct dwarf_type mt;
	struct mdf_err err;
	uint64_t off;
	bool found;

	T_ASSERT(have_kobj);
	mdf_err_clear(&err);
	T_OK(dwarf_info_open(kobj_path, &di, &err), &err);
	T_OK(dwarf_info_lookup(di, q, 2, &err), &err);
	T_ASSERT(q[0].found && q[1].found);
	T_OK(dwarf_type_member(di, q[0].type, "free_area", &found, &off, &mt, &err), &err);
	T_ASSERT(found);
	T_EQ_U64(off, offsetof(struct zone, free_area));
	T_OK(dwarf_type_describe(di, mt, &ti, &err), &err);
	T_EQ_U64(ti.kind, DWARF_T_ARRAY);
	T_EQ_U64(ti.count, 11);
	T_EQ_U64(ti.size, sizeof(((struct zone *)0)->free_area));
	T_OK(dwarf_type_describe(di, ti.target, &et, &err), &err);
	T_EQ_U64(et.kind, DWARF_T_STRUCT);
	T_EQ_U64(et.size, sizeof(struct free_area));
	/* a member that is not there: not found, no error */
	T_OK(dwarf_type_member(di, q[1].type, "no_such", &found, &off, &mt, &err), &err);
	T_ASSERT(!found);
	dwarf_info_close(di);
}

/*
 * A vmlinux whose types loop (tests/gen/kobj/cycle.S): each lookup ends
 * in an error that names the file, the type and the limit.
 */
static void t_cycles(void)
{
	static const struct {
		const char *name, *member, *msg;
	} cases[] = {
		{ "cyc_anon", "x", "DWARF type of cyc_anon_t: anonymous member nesting deeper "
				    "than 32 levels (a cycle in the type graph?)" },
		{ "cyc_ring", "x", "DWARF type of cyc_ring_t: anonymous member nesting deeper "
				    "than 32 levels (a cycle in the type graph?)" },
		{ "cyc_typedef", NULL, "DWARF type of cyc_typedef_t: more than 64 typedefs and "
				       "qualifiers in a row (a cycle in the type graph?)" },
		{ "cyc_array", NULL, "arrays of arrays nested deeper than 32 levels" },
		{ "huge_array", NULL, "an array of 4611686018427387904 elements of 8 bytes: "
				      "its size overflows 64 bits" },
		{ "wide_array", NULL, "an array of 8589934592 x 8589934592 elements: its "
				      "length overflows 64 bits" },
	};
	struct dwarf_query q[ARRAY_LEN(cases)];
	struct dwarf_info *di = NULL;
	struct dwarf_type_info ti;
	struct dwarf_type mt;
	struct mdf_err err;
	char path[4096];
	const char *b = getenv("MDF_BUILD");
	uint64_t off;
	bool found;

	snprintf(path, sizeof(path), "%s/tests/gen/cycle-config", b ? b : "build");
	mdf_err_clear(&err);
	T_OK(dwarf_info_open(path, &di, &err), &err);
	memset(q, 0, sizeof(q));
	for (size_t i = 0; i < ARRAY_LEN(cases); i++)
		q[i].name = cases[i].name;
	T_OK(dwarf_info_lookup(di, q, ARRAY_LEN(q), &err), &err);
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		enum mdf_status st;

		T_ASSERT(q[i].found);
		mdf_err_clear(&err);
		if (cases[i].member)
			st = dwarf_type_member(di, q[i].type, cases[i].member, &found, &off, &mt,
					       &err);
		else
			st = dwarf_type_describe(di, q[i].type, &ti, &err);
		T_EQ_U64(st, MDF_ERR_FORMAT);
		T_ASSERT(!strncmp(err.msg, path, strlen(path)));
		if (!strstr(err.msg, cases[i].msg))
			printf("# %s: %s\n", cases[i].name, err.msg);
		T_ASSERT(strstr(err.msg, cases[i].msg));
	}
	dwarf_info_close(di);
}

int main(void)
{
	const char *b = getenv("MDF_BUILD");
	struct dwarf_info *di = NULL;
	struct mdf_err err;

	memset(&err, 0, sizeof(err));
	snprintf(kobj_path, sizeof(kobj_path), "%s/tests/gen/kobj", b ? b : "build");
	kinfo_init(&ki);
	if (dwarf_info_open(kobj_path, &di, &err) == MDF_OK &&
	    dwarf_info_kinfo(di, &ki, &facts, &err) == MDF_OK)
		have_kobj = true;
	else
		printf("# %s: %s\n", kobj_path, err.msg);
	dwarf_info_close(di);

	T_RUN(t_sizes_offsets);
	T_RUN(t_lengths_numbers);
	T_RUN(t_symbols_release);
	T_RUN(t_format_roundtrip);
	T_RUN(t_open_errors);
	T_RUN(t_types);
	T_RUN(t_cycles);
	return t_done();
}
