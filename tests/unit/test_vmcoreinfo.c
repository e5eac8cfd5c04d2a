/*
 * tests/unit/test_vmcoreinfo.c - VMCOREINFO parser and writer.
 *
 * Uses embedded excerpts of the two real texts (always run), the full
 * texts from the VMCOREINFO notes of the real vmcores in
 * $MDF_VMCORE_CACHE when present (see tests/lib/realvm.h), and hand-made
 * malformed lines with their exact messages.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "realvm.h"
#include "util.h"
#include "kernel/vmcoreinfo.h"

/* Excerpt of the 6.1.0-57-amd64 text (Debian 12 kernel), lines verbatim. */
static const char vm61_excerpt[] =
	"OSRELEASE=6.1.0-57-amd64\n"
	"BUILD-ID=6a2b4ac77585b8cf102cba771300e573c8489b69\n"
	"PAGESIZE=4096\n"
	"SYMBOL(init_uts_ns)=ffffffffa99fb000\n"
	"OFFSET(uts_namespace.name)=0\n"
	"SYMBOL(swapper_pg_dir)=ffffffffa9810000\n"
	"SYMBOL(mem_section)=ffff8ceb1ffd2000\n"
	"LENGTH(mem_section)=4096\n"
	"SIZE(mem_section)=32\n"
	"OFFSET(mem_section.section_mem_map)=0\n"
	"NUMBER(SECTION_SIZE_BITS)=27\n"
	"NUMBER(MAX_PHYSMEM_BITS)=46\n"
	"SIZE(page)=64\n"
	"OFFSET(page.flags)=0\n"
	"OFFSET(page._refcount)=52\n"
	"OFFSET(page.mapping)=24\n"
	"OFFSET(page.lru)=8\n"
	"OFFSET(page._mapcount)=48\n"
	"OFFSET(page.private)=40\n"
	"OFFSET(page.compound_dtor)=16\n"
	"OFFSET(page.compound_order)=17\n"
	"OFFSET(page.compound_head)=8\n"
	"OFFSET(pglist_data.nr_zones)=171552\n"
	"LENGTH(zone.free_area)=11\n"
	"LENGTH(free_area.free_list)=5\n"
	"NUMBER(NR_FREE_PAGES)=0\n"
	"NUMBER(PG_lru)=4\n"
	"NUMBER(PG_private)=13\n"
	"NUMBER(PG_head_mask)=65536\n"
	"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129\n"
	"NUMBER(HUGETLB_PAGE_DTOR)=2\n"
	"NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-257\n"
	"NUMBER(phys_base)=-322961408\n"
	"SYMBOL(init_top_pgt)=ffffffffa9810000\n"
	"NUMBER(pgtable_l5_enabled)=0\n"
	"KERNELOFFSET=26e00000\n"
	"NUMBER(KERNEL_IMAGE_SIZE)=1073741824\n"
	"NUMBER(sme_mask)=0\n"
	"CRASHTIME=1796083400\n";

/* Excerpt of the 6.12.117+deb13-amd64 text (Debian 13 kernel). */
static const char vm612_excerpt[] =
	"OSRELEASE=6.12.117+deb13-amd64\n"
	"BUILD-ID=b1d7a9114053a488ef493f85f85e9fc75ba9f632\n"
	"PAGESIZE=4096\n"
	"SYMBOL(_stext)=ffffffffa7400000\n"
	"NUMBER(VMALLOC_START)=0xffffcd8cc0000000\n"
	"SYMBOL(vmemmap)=fffff12400000000\n"
	"SYMBOL(mem_section)=ffff8d6c1ffd2000\n"
	"LENGTH(mem_section)=4096\n"
	"SIZE(page)=64\n"
	"OFFSET(page.flags)=0\n"
	"OFFSET(page._refcount)=52\n"
	"OFFSET(page.mapping)=24\n"
	"OFFSET(page.lru)=8\n"
	"OFFSET(page._mapcount)=48\n"
	"OFFSET(page.private)=40\n"
	"OFFSET(page.compound_head)=8\n"
	"OFFSET(zone.spanned_pages)=160\n"
	"NUMBER(PG_lru)=5\n"
	"NUMBER(PG_private)=14\n"
	"NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=-184549376\n"
	"NUMBER(PG_hwpoison)=20\n"
	"NUMBER(PG_head_mask)=64\n"
	"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-268435456\n"
	"NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)=-201326592\n"
	"NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-251658240\n"
	"NUMBER(phys_base)=-377487360\n"
	"KERNELOFFSET=26400000\n"
	"CRASHTIME=1796083421\n";

/* Non-empty lines of a text. */
static size_t count_lines(const char *t, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		if (t[i] != '\n' && (i + 1 == n || t[i + 1] == '\n'))
			c++;
	return c;
}

/* Parse @n bytes copied into an exact-size heap buffer (no NUL after). */
static enum mdf_status parse_exact(const char *text, size_t n, struct kinfo *ki,
				   struct mdf_err *err)
{
	char *copy = malloc(n ? n : 1);
	enum mdf_status st;

	if (!copy)
		return MDF_ERR_NOMEM;
	memcpy(copy, text, n);
	kinfo_init(ki);
	mdf_err_clear(err);
	st = vmcoreinfo_parse(copy, n, ki, err);
	free(copy);
	return st;
}

static int check_61(const struct kinfo *ki)
{
	return strcmp(ki->osrelease, "6.1.0-57-amd64") == 0 &&
	       strcmp(ki->build_id, "6a2b4ac77585b8cf102cba771300e573c8489b69") == 0 &&
	       ki->page_size.set && ki->page_size.v == 4096 &&
	       ki->crashtime.set && ki->crashtime.v == 1796083400 &&
	       ki->kernel_offset.set && ki->kernel_offset.v == 0x26e00000 &&
	       ki->size.page.set && ki->size.page.v == 64 &&
	       ki->off.page_compound_head.set && ki->off.page_compound_head.v == 8 &&
	       ki->off.page_compound_dtor.set && ki->off.page_compound_dtor.v == 16 &&
	       ki->off.page_compound_order.v == 17 &&
	       ki->off.page_flags.set && ki->off.page_flags.v == 0 &&
	       ki->off.page__refcount.v == 52 && ki->off.page__mapcount.v == 48 &&
	       !ki->off.page__count.set && !ki->off.page_compound_info.set &&
	       ki->num.PG_lru.set && ki->num.PG_lru.v == 4 &&
	       ki->num.PAGE_BUDDY_MAPCOUNT_VALUE.set &&
	       ki->num.PAGE_BUDDY_MAPCOUNT_VALUE.v == -129 &&
	       ki->num.PAGE_OFFLINE_MAPCOUNT_VALUE.v == -257 &&
	       !ki->num.PAGE_SLAB_MAPCOUNT_VALUE.set &&
	       ki->num.phys_base.set && ki->num.phys_base.v == -322961408 &&
	       ki->num.NR_FREE_PAGES.set && ki->num.NR_FREE_PAGES.v == 0 &&
	       ki->num.SECTION_SIZE_BITS.v == 27 && ki->num.MAX_PHYSMEM_BITS.v == 46 &&
	       !ki->num.VMALLOC_START.set &&
	       ki->sym.mem_section.set && ki->sym.mem_section.v == 0xffff8ceb1ffd2000ULL &&
	       ki->sym.swapper_pg_dir.v == 0xffffffffa9810000ULL &&
	       !ki->sym.vmemmap.set &&
	       ki->len.mem_section.set && ki->len.mem_section.v == 4096 &&
	       ki->len.zone_free_area.v == 11 && ki->len.free_area_free_list.v == 5 &&
	       !ki->config.X86_PAE;
}

static int check_612(const struct kinfo *ki)
{
	return strcmp(ki->osrelease, "6.12.117+deb13-amd64") == 0 &&
	       ki->page_size.v == 4096 &&
	       ki->crashtime.v == 1796083421 &&
	       ki->kernel_offset.v == 0x26400000 &&
	       ki->size.page.v == 64 &&
	       ki->off.page_compound_head.set && ki->off.page_compound_head.v == 8 &&
	       !ki->off.page_compound_dtor.set && !ki->off.page_compound_order.set &&
	       ki->num.PG_lru.v == 5 &&
	       ki->num.PAGE_SLAB_MAPCOUNT_VALUE.set &&
	       ki->num.PAGE_SLAB_MAPCOUNT_VALUE.v == -184549376 &&
	       ki->num.PAGE_BUDDY_MAPCOUNT_VALUE.v == -268435456 &&
	       ki->num.PAGE_HUGETLB_MAPCOUNT_VALUE.v == -201326592 &&
	       ki->num.PAGE_OFFLINE_MAPCOUNT_VALUE.v == -251658240 &&
	       ki->num.phys_base.v == -377487360 &&
	       ki->num.VMALLOC_START.set &&
	       (uint64_t)ki->num.VMALLOC_START.v == 0xffffcd8cc0000000ULL &&
	       ki->sym.vmemmap.set && ki->sym.vmemmap.v == 0xfffff12400000000ULL &&
	       ki->sym.mem_section.v == 0xffff8d6c1ffd2000ULL;
}

/* parse(format(ki)) == ki, byte for byte; the text is returned in @buf. */
static int round_trip(const struct kinfo *ki, char *buf, size_t cap, size_t *len)
{
	struct kinfo again;
	struct mdf_err err;

	mdf_err_clear(&err);
	if (vmcoreinfo_format(ki, buf, cap, len, &err) != MDF_OK)
		return 0;
	if (strlen(buf) != *len || count_lines(buf, *len) != vmcoreinfo_count_set(ki))
		return 0;
	if (parse_exact(buf, *len, &again, &err) != MDF_OK)
		return 0;
	return memcmp(&again, ki, sizeof(again)) == 0;
}

/* Every line of @out appears verbatim in @orig, except @skip_prefix ones. */
static int lines_in(const char *out, const char *orig, size_t orig_len,
		    const char *skip_prefix)
{
	char *hay = malloc(orig_len + 2), needle[256];
	int ok = 1;

	if (!hay)
		return 0;
	hay[0] = '\n';
	memcpy(hay + 1, orig, orig_len);
	hay[orig_len + 1] = '\0';
	for (const char *p = out; *p && ok;) {
		const char *nl = strchr(p, '\n');
		size_t n = (size_t)(nl - p);

		if (!nl || n + 3 > sizeof(needle))
			ok = 0;
		else if (!skip_prefix || strncmp(p, skip_prefix, strlen(skip_prefix))) {
			needle[0] = '\n';
			memcpy(needle + 1, p, n + 1);
			needle[n + 2] = '\0';
			ok = strstr(hay, needle) != NULL;
		}
		p = nl ? nl + 1 : p;
	}
	free(hay);
	return ok;
}

static void t_excerpt_61(void)
{
	struct kinfo ki;
	struct mdf_err err;
	char buf[VMCOREINFO_TEXT_MAX];
	size_t len;

	T_OK(parse_exact(vm61_excerpt, sizeof(vm61_excerpt) - 1, &ki, &err), &err);
	T_ASSERT(check_61(&ki));
	T_EQ_U64(vmcoreinfo_count_set(&ki), count_lines(vm61_excerpt, sizeof(vm61_excerpt) - 1));
	T_ASSERT(round_trip(&ki, buf, sizeof(buf), &len));
	T_ASSERT(lines_in(buf, vm61_excerpt, sizeof(vm61_excerpt) - 1, NULL));
}

static void t_excerpt_612(void)
{
	struct kinfo ki;
	struct mdf_err err;
	char buf[VMCOREINFO_TEXT_MAX];
	size_t len;

	T_OK(parse_exact(vm612_excerpt, sizeof(vm612_excerpt) - 1, &ki, &err), &err);
	T_ASSERT(check_612(&ki));
	T_EQ_U64(vmcoreinfo_count_set(&ki), count_lines(vm612_excerpt, sizeof(vm612_excerpt) - 1));
	T_ASSERT(round_trip(&ki, buf, sizeof(buf), &len));
	/* VMALLOC_START comes back in decimal, same bits. */
	T_ASSERT(strstr(buf, "NUMBER(VMALLOC_START)=-55470576369664\n") != NULL);
	T_ASSERT(lines_in(buf, vm612_excerpt, sizeof(vm612_excerpt) - 1,
			  "NUMBER(VMALLOC_START)="));
}

/* A real text, from the note of the vmcore @name: every line is a known
 * key, values as expected, round trip. */
static void real_text(const char *name, int (*check)(const struct kinfo *),
		      const char *skip_prefix)
{
	struct realvm rv;
	struct kinfo ki;
	struct mdf_err err;
	char buf[VMCOREINFO_TEXT_MAX];
	size_t n = 0, len;
	char *text;
	enum mdf_status st;

	if (!realvm_find_or_skip(&rv, name))
		return;
	T_OK(realvm_vmcoreinfo(rv.path, &text, &n, &err), &err);
	st = parse_exact(text, n, &ki, &err);
	if (st != MDF_OK) {
		free(text);
		T_OK(st, &err);
	}
	len = count_lines(text, n);
	if (!check(&ki) || vmcoreinfo_count_set(&ki) != len ||
	    !round_trip(&ki, buf, sizeof(buf), &len) ||
	    !lines_in(buf, text, n, skip_prefix)) {
		free(text);
		T_ASSERT(!"real text: wrong values, unknown keys or no round trip");
	}
	free(text);
}

static void t_real_61(void)
{
	real_text("fx-v61-512m", check_61, NULL);
}

static void t_real_612(void)
{
	real_text("fx-v612-512m", check_612, "NUMBER(VMALLOC_START)=");
}

struct bad_case {
	const char *text;
	const char *msg;
};

static void t_malformed(void)
{
	static const struct bad_case cases[] = {
		{ "OSRELEASE=6.1\nPAGESIZE=4096\ngarbage\n",
		  "VMCOREINFO line 3: no '=' in 'garbage'" },
		{ "PAGESIZE=4096\n\nFOO=bar\n\n\n\n\n\n\n\n\nSIZE(page)=x64\n",
		  "VMCOREINFO line 12: SIZE(page): bad number 'x64'" },
		{ "SIZE(page)=", "VMCOREINFO line 1: SIZE(page): bad number ''" },
		{ "SIZE(page)=64 \n", "VMCOREINFO line 1: SIZE(page): bad number '64 '" },
		{ "SIZE(page)=64\r\n", "VMCOREINFO line 1: SIZE(page): bad number '64\\x0d'" },
		{ "SIZE(page)= 64\n", "VMCOREINFO line 1: SIZE(page): bad number ' 64'" },
		{ "SIZE(page)=-1\n", "VMCOREINFO line 1: SIZE(page): bad number '-1'" },
		{ "SIZE(page)=+1\n", "VMCOREINFO line 1: SIZE(page): bad number '+1'" },
		{ "SIZE(page)=0x40\n", "VMCOREINFO line 1: SIZE(page): bad number '0x40'" },
		{ "OFFSET(page.flags)=18446744073709551616\n",
		  "VMCOREINFO line 1: OFFSET(page.flags): bad number '18446744073709551616'" },
		{ "LENGTH(mem_section)=4k\n",
		  "VMCOREINFO line 1: LENGTH(mem_section): bad number '4k'" },
		{ "PAGESIZE=4096\nCRASHTIME=now\n",
		  "VMCOREINFO line 2: CRASHTIME: bad number 'now'" },
		{ "SYMBOL(mem_section)=ffff8ceb1ffd2000x\n",
		  "VMCOREINFO line 1: SYMBOL(mem_section): bad number 'ffff8ceb1ffd2000x'" },
		{ "SYMBOL(mem_section)=0x\n",
		  "VMCOREINFO line 1: SYMBOL(mem_section): bad number '0x'" },
		{ "SYMBOL(mem_section)=0x0x5\n",
		  "VMCOREINFO line 1: SYMBOL(mem_section): bad number '0x0x5'" },
		{ "SYMBOL(mem_section)=1ffff8ceb1ffd2000\n",
		  "VMCOREINFO line 1: SYMBOL(mem_section): bad number '1ffff8ceb1ffd2000'" },
		{ "KERNELOFFSET=-26e00000\n",
		  "VMCOREINFO line 1: KERNELOFFSET: bad number '-26e00000'" },
		{ "NUMBER(phys_base)=-9223372036854775809\n",
		  "VMCOREINFO line 1: NUMBER(phys_base): bad number '-9223372036854775809'" },
		{ "NUMBER(phys_base)=18446744073709551616\n",
		  "VMCOREINFO line 1: NUMBER(phys_base): bad number '18446744073709551616'" },
		{ "NUMBER(VMALLOC_START)=0x10000000000000000\n",
		  "VMCOREINFO line 1: NUMBER(VMALLOC_START): bad number '0x10000000000000000'" },
		{ "NUMBER(PG_lru)=-0x5\n", "VMCOREINFO line 1: NUMBER(PG_lru): bad number '-0x5'" },
		{ "NUMBER(PG_lru)=+5\n", "VMCOREINFO line 1: NUMBER(PG_lru): bad number '+5'" },
		{ "NUMBER(PG_lru)=-\n", "VMCOREINFO line 1: NUMBER(PG_lru): bad number '-'" },
		{ "NUMBER(PG_lru)=\n", "VMCOREINFO line 1: NUMBER(PG_lru): bad number ''" },
		{ "NUMBER(PG_lru)=0x\n", "VMCOREINFO line 1: NUMBER(PG_lru): bad number '0x'" },
		{ "NUMBER(PG_lru)=4=5\n", "VMCOREINFO line 1: NUMBER(PG_lru): bad number '4=5'" },
		{ "OSRELEASE=\n", "VMCOREINFO line 1: OSRELEASE: empty value" },
		{ "OSRELEASE=12345678901234567890123456789012345678901234567890123456789012345\n",
		  "VMCOREINFO line 1: OSRELEASE: value too long (65 bytes, max 64)" },
		{ "BUILD-ID=6a2bxyz\n", "VMCOREINFO line 1: BUILD-ID: bad hex string '6a2bxyz'" },
		{ "BUILD-ID=\n", "VMCOREINFO line 1: BUILD-ID: bad hex string ''" },
		{ "BUILD-ID=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
		  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0\n",
		  "VMCOREINFO line 1: BUILD-ID: value too long (129 bytes, max 128)" },
		{ "CONFIG_X86_PAE=m\n",
		  "VMCOREINFO line 1: CONFIG_X86_PAE: bad value 'm' (want y or n)" },
		{ "CONFIG_X86_PAE=\n",
		  "VMCOREINFO line 1: CONFIG_X86_PAE: bad value '' (want y or n)" },
		{ "ab\001c\n", "VMCOREINFO line 1: no '=' in 'ab\\x01c'" },
		{ "back\\slash\n", "VMCOREINFO line 1: no '=' in 'back\\x5cslash'" },
		{ " \n", "VMCOREINFO line 1: no '=' in ' '" },
		{ "PAGESIZE=4096\n0123456789012345678901234567890123456789012345678901234567890123456789\n",
		  "VMCOREINFO line 2: no '=' in '012345678901234567890123456789012345678901234567...'" },
		{ "PAGESIZE=4096\nlast line without newline",
		  "VMCOREINFO line 2: no '=' in 'last line without newline'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kinfo ki;
		struct mdf_err err;
		enum mdf_status st;

		/* Lines filtering does not read are ignored and kept for
		 * a warning: the first one's message. */
		bool soft = strstr(cases[i].text, "BUILD-ID") ||
			    strstr(cases[i].text, "CRASHTIME");

		st = parse_exact(cases[i].text, strlen(cases[i].text), &ki, &err);
		if (soft && st == MDF_OK && strcmp(ki.ignored_msg, cases[i].msg) == 0)
			continue;
		if (soft || st != MDF_ERR_FORMAT || strcmp(err.msg, cases[i].msg) != 0) {
			char m[400];

			snprintf(m, sizeof(m), "case %zu: status %d, message '%.300s'",
				 i, (int)st, err.msg);
			t_fail(__FILE__, __LINE__, m);
			return;
		}
	}
}

static void t_error_keeps_earlier_lines(void)
{
	static const char text[] = "PAGESIZE=4096\nSIZE(page)=64\nSIZE(zone)=z\nSIZE(free_area)=88\n";
	struct kinfo ki;
	struct mdf_err err;

	T_ASSERT(parse_exact(text, sizeof(text) - 1, &ki, &err) == MDF_ERR_FORMAT);
	T_EQ_U64(ki.page_size.v, 4096);
	T_EQ_U64(ki.size.page.v, 64);
	T_ASSERT(!ki.size.zone.set && !ki.size.free_area.set);
	T_EQ_U64(err.status, MDF_ERR_FORMAT);
}

static void t_null_text(void)
{
	struct kinfo ki;
	struct mdf_err err;

	kinfo_init(&ki);
	mdf_err_clear(&err);
	T_OK(vmcoreinfo_parse(NULL, 0, &ki, &err), &err);
	T_ASSERT(vmcoreinfo_parse(NULL, 5, &ki, &err) == MDF_ERR_ARG);
	T_OK(vmcoreinfo_parse("", 0, &ki, &err), &err);
	T_OK(vmcoreinfo_parse("\n\n\n", 3, &ki, &err), &err);
	T_EQ_U64(vmcoreinfo_count_set(&ki), 0);
}

static void t_unknown_ignored(void)
{
	static const char text[] =
		"SYMBOL(unknown_sym)=zzz\n"
		"FOO=\n"
		"SIZE(page=xx\n"
		"SIZE(page))=xx\n"
		"size(page)=xx\n"
		"NUMBER()=1\n"
		"SYMBOL()=1\n"
		"CONFIG_FOO=maybe\n"
		"CONFIG_=1\n"
		"=5\n"
		"=\n"
		" PAGESIZE=x\n"
		"OFFSET(page)=1\n"
		"NUMBER(NOT_A_KEY)=0xffffcd8cc0000000\n"
		"SYMBOL(mem_section)=10\n";
	struct kinfo ki;
	struct mdf_err err;

	T_OK(parse_exact(text, sizeof(text) - 1, &ki, &err), &err);
	T_EQ_U64(vmcoreinfo_count_set(&ki), 1);
	T_ASSERT(ki.sym.mem_section.set);
	T_EQ_U64(ki.sym.mem_section.v, 0x10);
}

static void t_config(void)
{
	static const char text[] = "CONFIG_X86_PAE=y\nCONFIG_PGTABLE_4=n\n"
				   "CONFIG_SPARSEMEM_VMEMMAP=y\n";
	struct kinfo ki;
	struct mdf_err err;
	char buf[256];
	size_t len;
	uint64_t v = 0;

	T_OK(parse_exact(text, sizeof(text) - 1, &ki, &err), &err);
	T_ASSERT(ki.config.X86_PAE && ki.config.SPARSEMEM_VMEMMAP);
	T_ASSERT(!ki.config.PGTABLE_4 && !ki.config.PGTABLE_3);
	T_EQ_U64(vmcoreinfo_count_set(&ki), 2);
	T_ASSERT(vmcoreinfo_lookup(&ki, "CONFIG_X86_PAE", &v));
	T_EQ_U64(v, 1);
	T_ASSERT(!vmcoreinfo_lookup(&ki, "CONFIG_PGTABLE_4", &v));
	T_ASSERT(round_trip(&ki, buf, sizeof(buf), &len));
	T_EQ_STR(buf, "CONFIG_X86_PAE=y\nCONFIG_SPARSEMEM_VMEMMAP=y\n");
}

static void t_nul_ends_text(void)
{
	/* The note descriptor is padded with NULs; a NUL ends the text. */
	static const char text[] = "PAGESIZE=4096\nSIZE(page)=64\n\0\0\0garbage\0\0";
	static const char mid[] = "SIZE(page)=64\0garbage";
	struct kinfo ki;
	struct mdf_err err;

	T_OK(parse_exact(text, sizeof(text) - 1, &ki, &err), &err);
	T_EQ_U64(vmcoreinfo_count_set(&ki), 2);
	T_EQ_U64(ki.size.page.v, 64);
	T_OK(parse_exact(mid, sizeof(mid) - 1, &ki, &err), &err);
	T_EQ_U64(ki.size.page.v, 64);
	T_EQ_U64(vmcoreinfo_count_set(&ki), 1);
}

/* A NUL in place of a newline, more lines after it: the line is named,
 * not a key that the cut seems to have removed. */
static void t_nul_in_text(void)
{
	static const char text[] = "PAGESIZE=4096\nSIZE(page)=64\0SYMBOL(mem_section)=1\n";
	struct kinfo ki;
	struct mdf_err err;

	T_ASSERT(parse_exact(text, sizeof(text) - 1, &ki, &err) == MDF_ERR_FORMAT);
	T_EQ_STR(err.msg, "VMCOREINFO line 2: NUL byte at offset 27, text follows it");
}

static void t_no_trailing_newline(void)
{
	static const char text[] = "PAGESIZE=4096\nSIZE(page)=64";
	static const char cut[] = "SIZE(page)=6400000";
	struct kinfo ki;
	struct mdf_err err;

	T_OK(parse_exact(text, sizeof(text) - 1, &ki, &err), &err);
	T_EQ_U64(ki.size.page.v, 64);
	/* len ends inside the line: the bytes after are never looked at. */
	T_OK(parse_exact(cut, 13, &ki, &err), &err);
	T_EQ_U64(ki.size.page.v, 64);
	T_ASSERT(parse_exact(cut, 11, &ki, &err) == MDF_ERR_FORMAT);
	T_EQ_STR(err.msg, "VMCOREINFO line 1: SIZE(page): bad number ''");
}

static void t_numbers(void)
{
	static const char text[] =
		"NUMBER(phys_base)=-9223372036854775808\n"
		"NUMBER(sme_mask)=9223372036854775807\n"
		"NUMBER(PG_lru)=-0\n"
		"NUMBER(PG_slab)=007\n"
		/* "%lu", as makedumpfile writes a sadump dump's phys_base: -0x13400000 */
		"NUMBER(PHYS_OFFSET)=18446744073386590208\n"
		"NUMBER(VMALLOC_START)=0xFFFFFFFFFFFFFFFF\n"
		"NUMBER(kimage_voffset)=0X0000000000000000000012\n"
		"SYMBOL(_stext)=0xFFFFFFFF81000000\n"
		"SYMBOL(vmemmap)=00000000000000000000ffffea0000000000\n"
		"KERNELOFFSET=0\n"
		"OFFSET(page.flags)=18446744073709551615\n";
	struct kinfo ki;
	struct mdf_err err;
	char buf[VMCOREINFO_TEXT_MAX];
	size_t len;

	T_OK(parse_exact(text, sizeof(text) - 1, &ki, &err), &err);
	T_ASSERT(ki.num.phys_base.v == INT64_MIN);
	T_ASSERT(ki.num.sme_mask.v == INT64_MAX);
	T_ASSERT(ki.num.PG_lru.set && ki.num.PG_lru.v == 0);
	T_EQ_U64(ki.num.PG_slab.v, 7);
	T_ASSERT(ki.num.PHYS_OFFSET.v == -0x13400000);
	T_ASSERT(ki.num.VMALLOC_START.v == -1);
	T_EQ_U64(ki.num.kimage_voffset.v, 0x12);
	T_EQ_U64(ki.sym._stext.v, 0xffffffff81000000ULL);
	T_EQ_U64(ki.sym.vmemmap.v, 0xffffea0000000000ULL);
	T_ASSERT(ki.kernel_offset.set && ki.kernel_offset.v == 0);
	T_EQ_U64(ki.off.page_flags.v, UINT64_MAX);
	T_ASSERT(round_trip(&ki, buf, sizeof(buf), &len));
	T_ASSERT(strstr(buf, "NUMBER(phys_base)=-9223372036854775808\n"));
	T_ASSERT(strstr(buf, "SYMBOL(_stext)=ffffffff81000000\n"));
	T_ASSERT(strstr(buf, "KERNELOFFSET=0\n"));
}

/* A key given twice: the same value is taken, another one is refused with
 * both lines (the last one used to win: SIZE(page), mem_section, PAGESIZE
 * could be changed by a line appended to the note). */
static void t_duplicates(void)
{
	static const char same[] = "OSRELEASE=6.1\nSIZE(page)=64\nBUILD-ID=12\n"
				   "SIZE(page)=64\nOSRELEASE=6.1\nBUILD-ID=12\nSIZE(page)=64\n";
	static const char fresh[] = "OSRELEASE=6.1\nSIZE(page)=64\nBUILD-ID=12\n";
	static const char two[] = "SYMBOL(_stext)=ffffffff81000000\nSYMBOL(_stext)=0xFFFFFFFF81000000\n";
	static const char soft[] = "BUILD-ID=12\nSIZE(page)=64\nBUILD-ID=34\n";
	static const struct bad_case bad[] = {
		{ "OSRELEASE=6.12.117+deb13-amd64\nSIZE(page)=64\nOSRELEASE=6.1\n",
		  "VMCOREINFO line 3: OSRELEASE=6.1 conflicts with line 1: "
		  "OSRELEASE=6.12.117+deb13-amd64" },
		{ "PAGESIZE=4096\nSIZE(page)=64\n\nSIZE(page)=72\n",
		  "VMCOREINFO line 4: SIZE(page)=72 conflicts with line 2: SIZE(page)=64" },
		{ "SYMBOL(mem_section)=ffff8ceb1ffd2000\nSYMBOL(mem_section)=0xffff8ceb1ffd3000\n",
		  "VMCOREINFO line 2: SYMBOL(mem_section)=0xffff8ceb1ffd3000 conflicts with "
		  "line 1: SYMBOL(mem_section)=ffff8ceb1ffd2000" },
		{ "NUMBER(SECTION_SIZE_BITS)=27\nNUMBER(SECTION_SIZE_BITS)=28\n",
		  "VMCOREINFO line 2: NUMBER(SECTION_SIZE_BITS)=28 conflicts with line 1: "
		  "NUMBER(SECTION_SIZE_BITS)=27" },
		{ "PAGESIZE=4096\nPAGESIZE=65536\n",
		  "VMCOREINFO line 2: PAGESIZE=65536 conflicts with line 1: PAGESIZE=4096" },
		{ "CONFIG_PGTABLE_4=y\nCONFIG_PGTABLE_4=n\n",
		  "VMCOREINFO line 2: CONFIG_PGTABLE_4=n conflicts with line 1: CONFIG_PGTABLE_4=y" },
		{ "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129\nNUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-128\n",
		  "VMCOREINFO line 2: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-128 conflicts with line 1: "
		  "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129" },
	};
	struct kinfo a, b;
	struct mdf_err err;

	T_OK(parse_exact(same, sizeof(same) - 1, &a, &err), &err);
	T_OK(parse_exact(fresh, sizeof(fresh) - 1, &b, &err), &err);
	T_ASSERT(memcmp(&a, &b, sizeof(a)) == 0);
	/* The same number written otherwise is the same value. */
	T_OK(parse_exact(two, sizeof(two) - 1, &a, &err), &err);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		T_ASSERT(parse_exact(bad[i].text, strlen(bad[i].text), &a, &err) == MDF_ERR_FORMAT);
		T_EQ_STR(err.msg, bad[i].msg);
	}
	/* A key that filtering does not read: the values are dropped, with
	 * a warning, as for a bad value. */
	T_OK(parse_exact(soft, sizeof(soft) - 1, &a, &err), &err);
	T_EQ_STR(a.build_id, "");
	T_EQ_STR(a.ignored_key, "BUILD-ID");
	T_EQ_STR(a.ignored_msg, "VMCOREINFO line 3: BUILD-ID=34 conflicts with line 1: BUILD-ID=12");
	T_EQ_U64(a.size.page.v, 64);
}

#define PT_WHY "is no page type (-128 before Linux 4.18, ~(1 << N) for N 7 to 30 " \
	"from 4.18, T << 24 for T 0xf0 to 0xfe from 6.12)"

/* Values no kernel has: refused with the line, the key and why. */
static void t_implausible(void)
{
	static const struct bad_case cases[] = {
		{ "PAGESIZE=4096\nNUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-1\n",
		  "VMCOREINFO line 2: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-1 " PT_WHY },
		{ "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=0\n",
		  "VMCOREINFO line 1: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=0 " PT_WHY },
		{ "NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=5\n",
		  "VMCOREINFO line 1: NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=5 " PT_WHY },
		{ "NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=-2\n",
		  "VMCOREINFO line 1: NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=-2 " PT_WHY },
		{ "NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)=-127\n",
		  "VMCOREINFO line 1: NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)=-127 " PT_WHY },
		{ "NUMBER(PAGE_UNACCEPTED_MAPCOUNT_VALUE)=-130\n",
		  "VMCOREINFO line 1: NUMBER(PAGE_UNACCEPTED_MAPCOUNT_VALUE)=-130 " PT_WHY },
		{ "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=0xffffffff\n",
		  "VMCOREINFO line 1: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=0xffffffff " PT_WHY },
		{ "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-2147483648\n",
		  "VMCOREINFO line 1: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-2147483648 " PT_WHY },
		{ "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-4294967169\n",
		  "VMCOREINFO line 1: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-4294967169 " PT_WHY },
		{ "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=2147483647\n",
		  "VMCOREINFO line 1: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=2147483647 " PT_WHY },
		{ "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-16777216\n",
		  "VMCOREINFO line 1: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-16777216 " PT_WHY },
		{ "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-285212672\n",
		  "VMCOREINFO line 1: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-285212672 " PT_WHY },
		{ "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-268435455\n",
		  "VMCOREINFO line 1: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-268435455 " PT_WHY },
		{ "PAGESIZE=0\n",
		  "VMCOREINFO line 1: PAGESIZE=0 is no page size (a power of two from 4096 to 262144)" },
		{ "PAGESIZE=512\n",
		  "VMCOREINFO line 1: PAGESIZE=512 is no page size (a power of two from 4096 to 262144)" },
		{ "PAGESIZE=12288\n",
		  "VMCOREINFO line 1: PAGESIZE=12288 is no page size (a power of two from 4096 to 262144)" },
		{ "PAGESIZE=524288\n",
		  "VMCOREINFO line 1: PAGESIZE=524288 is no page size (a power of two from 4096 to 262144)" },
		{ "SIZE(page)=20\n",
		  "VMCOREINFO line 1: SIZE(page)=20 is no struct page size (a multiple of 8 from 32 to 256)" },
		{ "SIZE(page)=68\n",
		  "VMCOREINFO line 1: SIZE(page)=68 is no struct page size (a multiple of 8 from 32 to 256)" },
		{ "SIZE(mem_section)=12\n",
		  "VMCOREINFO line 1: SIZE(mem_section)=12 is no struct mem_section size "
		  "(a multiple of 8 from 8 to 256)" },
		{ "NUMBER(PG_lru)=64\n",
		  "VMCOREINFO line 1: NUMBER(PG_lru)=64 is no page flag bit (0 to 63)" },
		{ "NUMBER(PG_hwpoison)=-1\n",
		  "VMCOREINFO line 1: NUMBER(PG_hwpoison)=-1 is no page flag bit (0 to 63)" },
		{ "NUMBER(PG_slab)=0x100\n",
		  "VMCOREINFO line 1: NUMBER(PG_slab)=0x100 is no page flag bit (0 to 63)" },
		{ "NUMBER(PG_head_mask)=0\n",
		  "VMCOREINFO line 1: NUMBER(PG_head_mask)=0 is no page flag mask (one bit set)" },
		{ "NUMBER(PG_head_mask)=65537\n",
		  "VMCOREINFO line 1: NUMBER(PG_head_mask)=65537 is no page flag mask (one bit set)" },
		{ "NUMBER(HUGETLB_PAGE_DTOR)=0\n",
		  "VMCOREINFO line 1: NUMBER(HUGETLB_PAGE_DTOR)=0 is no compound page destructor (1 to 255)" },
		{ "NUMBER(SECTION_SIZE_BITS)=3\n",
		  "VMCOREINFO line 1: NUMBER(SECTION_SIZE_BITS)=3 is no memory section size (20 to 40 bits)" },
		{ "NUMBER(SECTION_SIZE_BITS)=64\n",
		  "VMCOREINFO line 1: NUMBER(SECTION_SIZE_BITS)=64 is no memory section size (20 to 40 bits)" },
		{ "NUMBER(MAX_PHYSMEM_BITS)=65\n",
		  "VMCOREINFO line 1: NUMBER(MAX_PHYSMEM_BITS)=65 is no physical address width (32 to 64 bits)" },
		{ "NUMBER(MAX_PHYSMEM_BITS)=12\n",
		  "VMCOREINFO line 1: NUMBER(MAX_PHYSMEM_BITS)=12 is no physical address width (32 to 64 bits)" },
		{ "LENGTH(zone.free_area)=0\n",
		  "VMCOREINFO line 1: LENGTH(zone.free_area)=0 is no number of buddy orders (1 to 64)" },
		{ "LENGTH(free_area.free_list)=1000\n",
		  "VMCOREINFO line 1: LENGTH(free_area.free_list)=1000 is no number of migrate types (1 to 64)" },
		{ "NUMBER(NR_FREE_PAGES)=-1\n",
		  "VMCOREINFO line 1: NUMBER(NR_FREE_PAGES)=-1 is no zone counter index (0 to 255)" },
		{ "SYMBOL(mem_section)=0\n",
		  "VMCOREINFO line 1: SYMBOL(mem_section)=0 is no kernel address" },
		{ "SYMBOL(swapper_pg_dir)=0x0000\n",
		  "VMCOREINFO line 1: SYMBOL(swapper_pg_dir)=0x0000 is no kernel address" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kinfo ki;
		struct mdf_err err;

		if (parse_exact(cases[i].text, strlen(cases[i].text), &ki, &err) != MDF_ERR_FORMAT ||
		    strcmp(err.msg, cases[i].msg) != 0) {
			char m[600];

			snprintf(m, sizeof(m), "case %zu: '%.400s'", i, err.msg);
			t_fail(__FILE__, __LINE__, m);
			return;
		}
	}
}

/* Every value a real kernel exports is taken. */
static void t_plausible(void)
{
	static const char *const ok[] = {
		/* page types: 2.6.38-4.17, 4.18-6.11, 6.12 on (7.x alike) */
		"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-128\n",
		"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129\nNUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-257\n",
		"NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)=-2049\nNUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=-4097\n",
		"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-268435456\n"
		"NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-251658240\n"
		"NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)=-201326592\n"
		"NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=-184549376\n"
		"NUMBER(PAGE_UNACCEPTED_MAPCOUNT_VALUE)=-150994944\n",
		/* the 32 bits in hex, and the last type byte 0xfe */
		"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=0xf0000000\n",
		"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=0xffffffffffffff7f\n",
		"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-33554432\n",
		/* page sizes of arm64, ppc64, ia64 and the largest */
		"PAGESIZE=16384\n", "PAGESIZE=65536\n", "PAGESIZE=262144\n",
		"SIZE(page)=56\n", "SIZE(page)=80\n", "SIZE(mem_section)=16\n",
		"NUMBER(SECTION_SIZE_BITS)=24\nNUMBER(MAX_PHYSMEM_BITS)=51\n",
		"NUMBER(SECTION_SIZE_BITS)=30\nNUMBER(MAX_PHYSMEM_BITS)=52\n",
		"NUMBER(SECTION_SIZE_BITS)=27\nNUMBER(MAX_PHYSMEM_BITS)=56\n",
		"NUMBER(PG_head)=6\nNUMBER(PG_head_mask)=64\n",
		"NUMBER(PG_hwpoison)=63\nNUMBER(PG_lru)=0\nNUMBER(HUGETLB_PAGE_DTOR)=2\n",
		"LENGTH(zone.free_area)=14\nLENGTH(free_area.free_list)=6\n",
		/* OFFSET(S.m) with no SIZE(S), or inside it */
		"OFFSET(zone.vm_stat)=99999\n",
		"SIZE(zone)=1536\nOFFSET(zone.vm_stat)=1344\nOFFSET(zone.free_area)=256\n",
	};

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		struct kinfo ki;
		struct mdf_err err;

		if (parse_exact(ok[i], strlen(ok[i]), &ki, &err) != MDF_OK) {
			char m[600];

			snprintf(m, sizeof(m), "case %zu: '%.400s'", i, err.msg);
			t_fail(__FILE__, __LINE__, m);
			return;
		}
	}
}

/* Keys that contradict each other in one text: both lines named. */
static void t_cross(void)
{
	static const struct bad_case cases[] = {
		{ "SIZE(zone)=1536\nPAGESIZE=4096\nOFFSET(zone.vm_stat)=2000\n",
		  "VMCOREINFO line 3: OFFSET(zone.vm_stat)=2000 lies outside SIZE(zone)=1536 (line 1)" },
		{ "OFFSET(page.mapping)=64\nSIZE(page)=64\n",
		  "VMCOREINFO line 1: OFFSET(page.mapping)=64 lies outside SIZE(page)=64 (line 2)" },
		{ "SIZE(mem_section)=16\nOFFSET(mem_section.section_mem_map)=16\n",
		  "VMCOREINFO line 2: OFFSET(mem_section.section_mem_map)=16 lies outside "
		  "SIZE(mem_section)=16 (line 1)" },
		{ "SIZE(list_head)=16\nOFFSET(list_head.prev)=4096\n",
		  "VMCOREINFO line 2: OFFSET(list_head.prev)=4096 lies outside SIZE(list_head)=16 (line 1)" },
		{ "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129\nNUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-129\n",
		  "VMCOREINFO line 2: NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-129 is also "
		  "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129 (line 1): a page has one type" },
		{ "NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=0xf0000000\nNUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-268435456\n",
		  "VMCOREINFO line 2: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-268435456 is also "
		  "NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=4026531840 (line 1): a page has one type" },
		{ "NUMBER(PG_head)=16\nNUMBER(PG_head_mask)=64\n",
		  "VMCOREINFO line 2: NUMBER(PG_head_mask)=64 is not 1 << NUMBER(PG_head)=16 (line 1)" },
		{ "NUMBER(MAX_PHYSMEM_BITS)=40\nNUMBER(SECTION_SIZE_BITS)=40\n",
		  "VMCOREINFO line 2: NUMBER(SECTION_SIZE_BITS)=40 is not below "
		  "NUMBER(MAX_PHYSMEM_BITS)=40 (line 1)" },
	};
	static const char soft[] = "SIZE(printk_info)=88\nOFFSET(printk_info.seq)=88\nSIZE(page)=64\n";
	struct kinfo ki;
	struct mdf_err err;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		if (parse_exact(cases[i].text, strlen(cases[i].text), &ki, &err) != MDF_ERR_FORMAT ||
		    strcmp(err.msg, cases[i].msg) != 0) {
			char m[600];

			snprintf(m, sizeof(m), "case %zu: '%.400s'", i, err.msg);
			t_fail(__FILE__, __LINE__, m);
			return;
		}
	}
	/* A printk offset outside its struct costs --dump-dmesg only. */
	T_OK(parse_exact(soft, sizeof(soft) - 1, &ki, &err), &err);
	T_ASSERT(!ki.off.printk_info_seq.set && ki.size.printk_info.set);
	T_EQ_STR(ki.ignored_key, "OFFSET(printk_info.seq)");
	T_ASSERT(strcmp(ki.ignored_msg, "VMCOREINFO line 2: OFFSET(printk_info.seq)=88 lies "
			"outside SIZE(printk_info)=88 (line 1)") == 0);
}

/* What -i FILE, the note and -x give together: each key named by where
 * it came from. */
static void t_check_sources(void)
{
	static const char file[] = "PAGESIZE=4096\nOFFSET(zone.vm_stat)=2000\n"
				   "NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-129\n";
	static const char note[] = "OSRELEASE=6.1.0-57-amd64\nSIZE(zone)=1536\n";
	static const char note2[] = "SIZE(zone)=4096\nNUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129\n";
	struct vmcoreinfo_lines li, ln;
	const char *want;
	struct kinfo ki;
	struct mdf_err err;
	const struct vmcoreinfo_source src[] = {
		{ "vmcore", &ln }, { "vmcoreinfo.txt", &li }, { "vmlinux", NULL },
	};

	kinfo_init(&ki);
	mdf_err_clear(&err);
	T_OK(vmcoreinfo_parse_lines(file, sizeof(file) - 1, &ki, &li, &err), &err);
	T_EQ_U64(li.line[0], 0);
	T_OK(vmcoreinfo_parse_lines(note, sizeof(note) - 1, &ki, &ln, &err), &err);
	T_ASSERT(vmcoreinfo_check(&ki, src, 3, &err) == MDF_ERR_FORMAT);
	want = "vmcoreinfo.txt: VMCOREINFO line 2: OFFSET(zone.vm_stat)=2000 lies "
		 "outside SIZE(zone)=1536 (vmcore: VMCOREINFO line 2)";
	T_EQ_STR(err.msg, want);
	/* The note's SIZE(zone) wins; the page types clash across files. */
	T_OK(vmcoreinfo_parse_lines(note2, sizeof(note2) - 1, &ki, &ln, &err), &err);
	T_ASSERT(vmcoreinfo_check(&ki, src, 3, &err) == MDF_ERR_FORMAT);
	want = "vmcoreinfo.txt: VMCOREINFO line 3: NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-129 "
		 "is also NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129 (vmcore: VMCOREINFO line 2): "
		 "a page has one type";
	T_EQ_STR(err.msg, want);
	/* A value no text gave came from -x. */
	ki.num.PAGE_OFFLINE_MAPCOUNT_VALUE.set = false;
	ki.num.PAGE_SLAB_MAPCOUNT_VALUE = (struct kinfo_s64){ -1, true };
	T_ASSERT(vmcoreinfo_check(&ki, src, 3, &err) == MDF_ERR_FORMAT);
	want = "vmlinux: NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=-1 " PT_WHY;
	T_EQ_STR(err.msg, want);
	/* And with no source at all. */
	T_ASSERT(vmcoreinfo_check(&ki, NULL, 0, &err) == MDF_ERR_FORMAT);
	want = "VMCOREINFO: NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=-1 " PT_WHY;
	T_EQ_STR(err.msg, want);
	ki.num.PAGE_SLAB_MAPCOUNT_VALUE.set = false;
	T_OK(vmcoreinfo_check(&ki, src, 3, &err), &err);
}

static void t_string_limits(void)
{
	char text[256];
	struct kinfo ki;
	struct mdf_err err;
	size_t n;

	n = (size_t)snprintf(text, sizeof(text), "OSRELEASE=%064d\nBUILD-ID=", 7);
	memset(text + n, 'a', 128);
	n += 128;
	T_OK(parse_exact(text, n, &ki, &err), &err);
	T_EQ_U64(strlen(ki.osrelease), 64);
	T_EQ_U64(strlen(ki.build_id), 128);
	T_EQ_U64(vmcoreinfo_count_set(&ki), 2);
	/* Odd bytes in OSRELEASE are kept and written back as they are. */
	T_OK(parse_exact("OSRELEASE= a=b\r \n", 17, &ki, &err), &err);
	T_EQ_STR(ki.osrelease, " a=b\r ");
	T_ASSERT(round_trip(&ki, text, sizeof(text), &n));
}

static void t_merge(void)
{
	static const char text[] = "SIZE(page)=64\nNUMBER(PG_lru)=4\n";
	struct kinfo ki;
	struct mdf_err err;

	kinfo_init(&ki);
	mdf_err_clear(&err);
	ki.size.page.v = 56;
	ki.size.page.set = true;
	ki.off.page_flags.set = true;
	T_OK(vmcoreinfo_parse(text, sizeof(text) - 1, &ki, &err), &err);
	T_EQ_U64(ki.size.page.v, 64);
	T_ASSERT(ki.off.page_flags.set && ki.off.page_flags.v == 0);
	T_EQ_U64(vmcoreinfo_count_set(&ki), 3);
}

/* vmcoreinfo_merge(): what the note has wins, the rest stays;
 * vmcoreinfo_set() by key; SRCFILE() is a string key. */
static void t_merge_set_srcfile(void)
{
	static const char dwarf[] = "SIZE(page)=56\nOFFSET(vm_struct.addr)=8\n"
				    "SRCFILE(pud_t)=arch/x86/include/asm/pgtable_types.h\n";
	static const char note[] = "OSRELEASE=6.1.0-57-amd64\nSIZE(page)=64\n";
	struct kinfo dk, nk;
	struct mdf_err err;
	uint64_t v = 0;

	mdf_err_clear(&err);
	kinfo_init(&dk);
	kinfo_init(&nk);
	T_OK(vmcoreinfo_parse(dwarf, sizeof(dwarf) - 1, &dk, &err), &err);
	T_EQ_STR(dk.srcfile.pud_t, "arch/x86/include/asm/pgtable_types.h");
	T_OK(vmcoreinfo_parse(note, sizeof(note) - 1, &nk, &err), &err);
	vmcoreinfo_merge(&dk, &nk);
	T_EQ_U64(dk.size.page.v, 64);
	T_EQ_U64(dk.off.vm_struct_addr.v, 8);
	T_EQ_STR(dk.osrelease, "6.1.0-57-amd64");
	T_EQ_STR(dk.srcfile.pud_t, "arch/x86/include/asm/pgtable_types.h");
	T_EQ_U64(vmcoreinfo_count_set(&dk), 4);
	T_ASSERT(vmcoreinfo_set(&dk, "NUMBER(PG_lru)", 4));
	T_ASSERT(vmcoreinfo_set(&dk, "NUMBER(phys_base)", (uint64_t)-322961408LL));
	T_ASSERT(dk.num.phys_base.set && dk.num.phys_base.v == -322961408LL);
	T_ASSERT(vmcoreinfo_lookup(&dk, "NUMBER(PG_lru)", &v) && v == 4);
	T_ASSERT(!vmcoreinfo_set(&dk, "OSRELEASE", 1));
	T_ASSERT(!vmcoreinfo_set(&dk, "SRCFILE(pud_t)", 1));
	T_ASSERT(!vmcoreinfo_set(&dk, "NUMBER(no_such)", 1));
}

static void t_lookup(void)
{
	struct kinfo ki;
	struct mdf_err err;
	uint64_t v = 0;

	T_OK(parse_exact(vm61_excerpt, sizeof(vm61_excerpt) - 1, &ki, &err), &err);
	T_ASSERT(vmcoreinfo_lookup(&ki, "SIZE(page)", &v));
	T_EQ_U64(v, 64);
	T_ASSERT(vmcoreinfo_lookup(&ki, "PAGESIZE", &v));
	T_EQ_U64(v, 4096);
	T_ASSERT(vmcoreinfo_lookup(&ki, "KERNELOFFSET", &v));
	T_EQ_U64(v, 0x26e00000);
	T_ASSERT(vmcoreinfo_lookup(&ki, "SYMBOL(mem_section)", &v));
	T_EQ_U64(v, 0xffff8ceb1ffd2000ULL);
	T_ASSERT(vmcoreinfo_lookup(&ki, "OFFSET(page.compound_head)", &v));
	T_EQ_U64(v, 8);
	T_ASSERT(vmcoreinfo_lookup(&ki, "LENGTH(mem_section)", &v));
	T_EQ_U64(v, 4096);
	T_ASSERT(vmcoreinfo_lookup(&ki, "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)", &v));
	T_ASSERT((int64_t)v == -129);
	T_ASSERT(!vmcoreinfo_lookup(&ki, "NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)", &v));
	T_ASSERT(!vmcoreinfo_lookup(&ki, "OSRELEASE", &v));
	T_ASSERT(!vmcoreinfo_lookup(&ki, "SIZE(nonexistent)", &v));
	T_ASSERT(!vmcoreinfo_lookup(&ki, "", &v));
}

static void t_format_limits(void)
{
	struct kinfo ki;
	struct mdf_err err;
	char buf[VMCOREINFO_TEXT_MAX], small[16];
	size_t need = 0, len = 0;

	T_OK(parse_exact(vm61_excerpt, sizeof(vm61_excerpt) - 1, &ki, &err), &err);
	/* Size query. */
	T_ASSERT(vmcoreinfo_format(&ki, NULL, 0, &need, &err) == MDF_ERR_NOSPC);
	T_OK(vmcoreinfo_format(&ki, buf, need + 1, &len, &err), &err);
	T_EQ_U64(len, need);
	T_EQ_U64(len, sizeof(vm61_excerpt) - 1); /* same lines, other order */
	/* One byte short: truncated, NUL-terminated prefix. */
	T_ASSERT(vmcoreinfo_format(&ki, buf, need, &len, &err) == MDF_ERR_NOSPC);
	T_EQ_U64(len, need);
	T_EQ_U64(strlen(buf), need - 1);
	T_ASSERT(vmcoreinfo_format(&ki, small, sizeof(small), &len, &err) == MDF_ERR_NOSPC);
	T_EQ_STR(small, "OSRELEASE=6.1.0");
	T_ASSERT(vmcoreinfo_format(&ki, NULL, 5, &len, &err) == MDF_ERR_ARG);

	/* Values that would not re-parse are refused. */
	kinfo_init(&ki);
	strcpy(ki.osrelease, "6.1\nPAGESIZE=1");
	T_ASSERT(vmcoreinfo_format(&ki, buf, sizeof(buf), &len, &err) == MDF_ERR_ARG);
	T_EQ_STR(err.msg, "VMCOREINFO OSRELEASE: contains a newline");
	kinfo_init(&ki);
	strcpy(ki.build_id, "12xy");
	T_ASSERT(vmcoreinfo_format(&ki, buf, sizeof(buf), &len, &err) == MDF_ERR_ARG);
	T_EQ_STR(err.msg, "VMCOREINFO BUILD-ID: not a hex string");
	kinfo_init(&ki);
	memset(ki.osrelease, 'x', sizeof(ki.osrelease));
	T_ASSERT(vmcoreinfo_format(&ki, buf, sizeof(buf), &len, &err) == MDF_ERR_ARG);

	/* Empty kinfo: empty text. */
	kinfo_init(&ki);
	T_OK(vmcoreinfo_format(&ki, buf, 1, &len, &err), &err);
	T_EQ_U64(len, 0);
	T_EQ_STR(buf, "");
}

/* Every field set, at its widest value: fits VMCOREINFO_TEXT_MAX. */
static void t_format_max(void)
{
	struct kinfo ki, again;
	struct mdf_err err;
	static char buf[VMCOREINFO_TEXT_MAX];
	size_t len;

	kinfo_init(&ki);
	memset(ki.osrelease, 'o', sizeof(ki.osrelease) - 1);
	memset(ki.build_id, 'b', sizeof(ki.build_id) - 1);
	/* Walk the struct: every numeric field is {v, set}. */
	ki.page_size = (struct kinfo_u64){ UINT64_MAX, true };
	ki.kernel_offset = (struct kinfo_u64){ UINT64_MAX, true };
	ki.crashtime = (struct kinfo_u64){ UINT64_MAX, true };
#define SET_U64(ident, key) ki.sym.ident = (struct kinfo_u64){ UINT64_MAX, true };
	KINFO_SYMBOLS(SET_U64)
#undef SET_U64
#define SET_U64(ident, key) ki.size.ident = (struct kinfo_u64){ UINT64_MAX, true };
	KINFO_SIZES(SET_U64)
#undef SET_U64
#define SET_U64(ident, key) ki.off.ident = (struct kinfo_u64){ UINT64_MAX, true };
	KINFO_OFFSETS(SET_U64)
#undef SET_U64
#define SET_U64(ident, key) ki.len.ident = (struct kinfo_u64){ UINT64_MAX, true };
	KINFO_LENGTHS(SET_U64)
#undef SET_U64
#define SET_S64(ident, key) ki.num.ident = (struct kinfo_s64){ INT64_MIN, true };
	KINFO_NUMBERS(SET_S64)
#undef SET_S64
#define SET_B(ident, key) ki.config.ident = true;
	KINFO_CONFIGS(SET_B)
#undef SET_B
	mdf_err_clear(&err);
	T_OK(vmcoreinfo_format(&ki, buf, sizeof(buf), &len, &err), &err);
	T_ASSERT(len < sizeof(buf));
	T_EQ_U64(count_lines(buf, len), vmcoreinfo_count_set(&ki));
	/* No kernel has these values: the text does not parse back. */
	T_ASSERT(parse_exact(buf, len, &again, &err) == MDF_ERR_FORMAT);
	T_EQ_STR(err.msg, "VMCOREINFO line 3: PAGESIZE=18446744073709551615 is no page size "
		 "(a power of two from 4096 to 262144)");
}

static void t_speed(void)
{
	/* About 4 KiB of text; the best of 50 parses must be well under 1 ms. */
	char text[4096 + sizeof(vm61_excerpt)];
	size_t n = 0;
	double best = 1e9;

	while (n < 4096) {
		memcpy(text + n, vm61_excerpt, sizeof(vm61_excerpt) - 1);
		n += sizeof(vm61_excerpt) - 1;
	}
	for (int i = 0; i < 50; i++) {
		struct kinfo ki;
		struct mdf_err err;
		struct timespec a, b;
		enum mdf_status st;
		double us;

		kinfo_init(&ki);
		clock_gettime(CLOCK_MONOTONIC, &a);
		st = vmcoreinfo_parse(text, n, &ki, &err);
		clock_gettime(CLOCK_MONOTONIC, &b);
		T_OK(st, &err);
		us = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
		if (us < best)
			best = us;
	}
	T_ASSERT(n >= 4096);
	T_ASSERT(best < 1000.0);
}

/* /sys/kernel/vmcoreinfo: "%pa %x\n", as seen on this project's machine. */
static void t_sysfs_parse(void)
{
	static const char good[] = "0x0000000100c66000 1024\n";
	static const char *const bad[] = {
		"", "\n", "0x100c66000", "0x100c66000 ", " 1024", "0x100c66000 10x4",
		"0x100c66000  1024", "zz 1024", "0x100c66000 1024 7",
		"0x1234567890abcdef0 1024",
	};
	uint64_t pa = 0, sz = 0;

	T_ASSERT(vmcoreinfo_sysfs_parse(good, sizeof(good) - 1, &pa, &sz));
	T_EQ_U64(pa, 0x100c66000ULL);
	T_EQ_U64(sz, 0x1024);
	T_ASSERT(vmcoreinfo_sysfs_parse("100c66000 1024", 14, &pa, &sz));
	T_EQ_U64(pa, 0x100c66000ULL);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (vmcoreinfo_sysfs_parse(bad[i], strlen(bad[i]), &pa, &sz))
			t_fail(__FILE__, __LINE__, bad[i]);
}

/* Only the first ignored line is kept; the parse goes on past it, and a
 * bad line that filtering reads still fails. */
static void t_soft(void)
{
	static const char text[] = "BUILD-ID=zz\nOFFSET(printk_info.seq)=x\n"
				   "SIZE(page)=64\nSYMBOL(kallsyms_names)=q\n";
	static const char hard[] = "OFFSET(prb_desc.state_var)=0\nOFFSET(page.flags)=x\n";
	struct kinfo ki;
	struct mdf_err err;

	T_ASSERT(parse_exact(text, sizeof(text) - 1, &ki, &err) == MDF_OK);
	T_ASSERT(strcmp(ki.ignored_key, "BUILD-ID") == 0);
	T_ASSERT(strcmp(ki.ignored_msg, "VMCOREINFO line 1: BUILD-ID: bad hex string 'zz'") == 0);
	T_ASSERT(ki.size.page.set && ki.size.page.v == 64);
	T_ASSERT(!ki.off.printk_info_seq.set && !ki.sym.kallsyms_names.set);
	T_ASSERT(parse_exact(hard, sizeof(hard) - 1, &ki, &err) == MDF_ERR_FORMAT);
	T_ASSERT(strcmp(err.msg, "VMCOREINFO line 2: OFFSET(page.flags): bad number 'x'") == 0);
}

int main(void)
{
	T_RUN(t_excerpt_61);
	T_RUN(t_excerpt_612);
	T_RUN(t_real_61);
	T_RUN(t_real_612);
	T_RUN(t_malformed);
	T_RUN(t_error_keeps_earlier_lines);
	T_RUN(t_null_text);
	T_RUN(t_unknown_ignored);
	T_RUN(t_config);
	T_RUN(t_nul_ends_text);
	T_RUN(t_no_trailing_newline);
	T_RUN(t_numbers);
	T_RUN(t_duplicates);
	T_RUN(t_implausible);
	T_RUN(t_plausible);
	T_RUN(t_cross);
	T_RUN(t_check_sources);
	T_RUN(t_string_limits);
	T_RUN(t_merge);
	T_RUN(t_merge_set_srcfile);
	T_RUN(t_lookup);
	T_RUN(t_format_limits);
	T_RUN(t_format_max);
	T_RUN(t_speed);
	T_RUN(t_sysfs_parse);
	T_RUN(t_soft);
	T_RUN(t_nul_in_text);
	return t_done();
}
