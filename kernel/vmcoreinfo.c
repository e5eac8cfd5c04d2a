/*
 * vmcoreinfo.c - VMCOREINFO text <-> struct kinfo.
 *
 * One flat table describes every key: the five plain keys, then one
 * entry per name of each kinfo.h X-macro list, grouped by list.  Parser,
 * writer, lookup and count all walk this table.  The table holds no
 * pointers (names are inline arrays, fields are offsets into struct
 * kinfo), so it lives in .rodata, not in relocated data.
 */
#include "kernel/vmcoreinfo.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* How a value is written. */
enum vi_type {
	VI_T_STR,    /* char[]: any bytes but NUL and '\n', non-empty */
	VI_T_HEXSTR, /* char[]: hex digits */
	VI_T_DEC,    /* struct kinfo_u64, decimal */
	VI_T_HEX,    /* struct kinfo_u64, hex without 0x */
	VI_T_NUM,    /* struct kinfo_s64, signed decimal or 0x hex */
	VI_T_BOOL,   /* bool, "y" */
};

/* The forms a key takes: PREFIX name SUFFIX. */
enum vi_group {
	VI_G_PLAIN,
	VI_G_SYMBOL,
	VI_G_SIZE,
	VI_G_OFFSET,
	VI_G_LENGTH,
	VI_G_NUMBER,
	VI_G_CONFIG,
	VI_G_SRCFILE,
	VI_G_COUNT
};

#define VI_NAME_MAX 48

struct vi_ent {
	char name[VI_NAME_MAX]; /* not NUL-terminated when full */
	uint8_t name_len;
	uint8_t type;           /* enum vi_type */
	uint32_t off;           /* offsetof(struct kinfo, field) */
	uint32_t size;          /* sizeof the field */
};

#define VI_ONE(ident, key) +1
enum {
	VI_N_PLAIN = 7,
	VI_N_SYMBOL = 0 KINFO_SYMBOLS(VI_ONE),
	VI_N_SIZE = 0 KINFO_SIZES(VI_ONE),
	VI_N_OFFSET = 0 KINFO_OFFSETS(VI_ONE),
	VI_N_LENGTH = 0 KINFO_LENGTHS(VI_ONE),
	VI_N_NUMBER = 0 KINFO_NUMBERS(VI_ONE),
	VI_N_CONFIG = 0 KINFO_CONFIGS(VI_ONE),
	VI_N_SRCFILE = 0 KINFO_SRCFILES(VI_ONE),
	VI_FIRST_SYMBOL = VI_N_PLAIN,
	VI_FIRST_SIZE = VI_FIRST_SYMBOL + VI_N_SYMBOL,
	VI_FIRST_OFFSET = VI_FIRST_SIZE + VI_N_SIZE,
	VI_FIRST_LENGTH = VI_FIRST_OFFSET + VI_N_OFFSET,
	VI_FIRST_NUMBER = VI_FIRST_LENGTH + VI_N_LENGTH,
	VI_FIRST_CONFIG = VI_FIRST_NUMBER + VI_N_NUMBER,
	VI_FIRST_SRCFILE = VI_FIRST_CONFIG + VI_N_CONFIG,
	VI_N_ENTS = VI_FIRST_SRCFILE + VI_N_SRCFILE,
};
#undef VI_ONE

/* Every listed key must fit the inline name array. */
#define VI_FITS(ident, key) \
	_Static_assert(sizeof(key) <= VI_NAME_MAX, "VMCOREINFO name too long: " key);
KINFO_SYMBOLS(VI_FITS)
KINFO_SIZES(VI_FITS)
KINFO_OFFSETS(VI_FITS)
KINFO_LENGTHS(VI_FITS)
KINFO_NUMBERS(VI_FITS)
KINFO_CONFIGS(VI_FITS)
KINFO_SRCFILES(VI_FITS)
#undef VI_FITS
_Static_assert(sizeof(struct kinfo) < UINT32_MAX, "struct kinfo offsets fit");

#define VI_FSIZE(member) ((uint32_t)sizeof(((struct kinfo *)0)->member))
#define VI_PLAIN(key, type, member) \
	{ key, sizeof(key) - 1, type, offsetof(struct kinfo, member), VI_FSIZE(member) },
#define VI_ENT(type, member, ident, key) \
	{ key, sizeof(key) - 1, type, offsetof(struct kinfo, member.ident), VI_FSIZE(member.ident) },
#define VI_SYM(ident, key) VI_ENT(VI_T_HEX, sym, ident, key)
#define VI_SIZE(ident, key) VI_ENT(VI_T_DEC, size, ident, key)
#define VI_OFF(ident, key) VI_ENT(VI_T_DEC, off, ident, key)
#define VI_LEN(ident, key) VI_ENT(VI_T_DEC, len, ident, key)
#define VI_NUM(ident, key) VI_ENT(VI_T_NUM, num, ident, key)
#define VI_CFG(ident, key) VI_ENT(VI_T_BOOL, config, ident, key)
#define VI_SRC(ident, key) VI_ENT(VI_T_STR, srcfile, ident, key)

static const struct vi_ent vi_ents[VI_N_ENTS] = {
	VI_PLAIN("OSRELEASE", VI_T_STR, osrelease)
	VI_PLAIN("BUILD-ID", VI_T_HEXSTR, build_id)
	VI_PLAIN("PAGESIZE", VI_T_DEC, page_size)
	VI_PLAIN("KERNELOFFSET", VI_T_HEX, kernel_offset)
	VI_PLAIN("IDENTITYBASE", VI_T_HEX, identity_base)
	VI_PLAIN("KERNELOFFPHYS", VI_T_HEX, kernel_off_phys)
	VI_PLAIN("CRASHTIME", VI_T_DEC, crashtime)
	KINFO_SYMBOLS(VI_SYM)
	KINFO_SIZES(VI_SIZE)
	KINFO_OFFSETS(VI_OFF)
	KINFO_LENGTHS(VI_LEN)
	KINFO_NUMBERS(VI_NUM)
	KINFO_CONFIGS(VI_CFG)
	KINFO_SRCFILES(VI_SRC)
};

#undef VI_FSIZE
#undef VI_PLAIN
#undef VI_ENT
#undef VI_SYM
#undef VI_SIZE
#undef VI_OFF
#undef VI_LEN
#undef VI_NUM
#undef VI_CFG
#undef VI_SRC

/* (prefix has room for its NUL: gcc 15's -Wextra refuses "SRCFILE(" in 8) */
struct vi_group_desc {
	char prefix[9];
	char suffix[2];
	uint8_t prefix_len, suffix_len;
	uint16_t first, count;
};

static const struct vi_group_desc vi_groups[VI_G_COUNT] = {
	[VI_G_PLAIN] = { "", "", 0, 0, 0, VI_N_PLAIN },
	[VI_G_SYMBOL] = { "SYMBOL(", ")", 7, 1, VI_FIRST_SYMBOL, VI_N_SYMBOL },
	[VI_G_SIZE] = { "SIZE(", ")", 5, 1, VI_FIRST_SIZE, VI_N_SIZE },
	[VI_G_OFFSET] = { "OFFSET(", ")", 7, 1, VI_FIRST_OFFSET, VI_N_OFFSET },
	[VI_G_LENGTH] = { "LENGTH(", ")", 7, 1, VI_FIRST_LENGTH, VI_N_LENGTH },
	[VI_G_NUMBER] = { "NUMBER(", ")", 7, 1, VI_FIRST_NUMBER, VI_N_NUMBER },
	[VI_G_CONFIG] = { "CONFIG_", "", 7, 0, VI_FIRST_CONFIG, VI_N_CONFIG },
	[VI_G_SRCFILE] = { "SRCFILE(", ")", 8, 1, VI_FIRST_SRCFILE, VI_N_SRCFILE },
};

void kinfo_init(struct kinfo *ki)
{
	memset(ki, 0, sizeof(*ki));
}

/* The group of entry index @i. */
static enum vi_group vi_group_of(size_t i)
{
	enum vi_group g = VI_G_PLAIN;

	for (int k = 1; k < VI_G_COUNT; k++)
		if (i >= vi_groups[k].first)
			g = (enum vi_group)k;
	return g;
}

/* The entry for key @k (@n bytes), or NULL if the key is not known. */
static const struct vi_ent *vi_find(const char *k, size_t n)
{
	const struct vi_group_desc *gd = &vi_groups[VI_G_PLAIN];

	for (int g = 1; g < VI_G_COUNT; g++) {
		const struct vi_group_desc *d = &vi_groups[g];

		if (n > (size_t)d->prefix_len + d->suffix_len &&
		    memcmp(k, d->prefix, d->prefix_len) == 0 &&
		    memcmp(k + n - d->suffix_len, d->suffix, d->suffix_len) == 0) {
			gd = d;
			break;
		}
	}
	k += gd->prefix_len;
	n -= (size_t)gd->prefix_len + gd->suffix_len;
	for (size_t i = gd->first; i < (size_t)gd->first + gd->count; i++)
		if (vi_ents[i].name_len == n && memcmp(vi_ents[i].name, k, n) == 0)
			return &vi_ents[i];
	return NULL;
}

static int vi_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decimal digits only, at least one, no overflow. */
static bool vi_parse_dec(const char *s, size_t n, uint64_t *ret)
{
	uint64_t v = 0;

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*ret = v;
	return true;
}

/* Hex digits only (no prefix), at least one, no overflow. */
static bool vi_parse_hex_digits(const char *s, size_t n, uint64_t *ret)
{
	uint64_t v = 0;

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		int d = vi_hexval(s[i]);

		if (d < 0 || v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*ret = v;
	return true;
}

static bool vi_has_0x(const char *s, size_t n)
{
	return n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* Hex with an optional 0x prefix. */
static bool vi_parse_hex(const char *s, size_t n, uint64_t *ret)
{
	if (vi_has_0x(s, n)) {
		s += 2;
		n -= 2;
	}
	return vi_parse_hex_digits(s, n, ret);
}

/*
 * NUMBER(): VMCOREINFO_NUMBER() writes "%ld", but some values are appended
 * as "0x%lx": by arch code (arm64 kimage_voffset and PHYS_OFFSET, the
 * riscv64 layout) and by generic code (NUMBER(VMALLOC_START), kernel
 * crash_core.c/vmcore_info.c, seen in 6.12 x86_64 dumps).  And makedumpfile
 * (1.7.2 and 1.7.9++) writes the VMCOREINFO of a dump it made from sadump
 * with "%lu": a negative phys_base (KASLR) comes as 18446744073386590208,
 * which upstream itself then cannot read back.  Decimal is signed or up to
 * UINT64_MAX; hex may use all 64 bits; either above INT64_MAX is kept as
 * the same bit pattern.
 */
static bool vi_parse_num(const char *s, size_t n, int64_t *ret)
{
	uint64_t u;

	if (vi_has_0x(s, n)) {
		if (!vi_parse_hex_digits(s + 2, n - 2, &u))
			return false;
		*ret = (int64_t)u; /* two's complement: same bits */
		return true;
	}
	if (n > 0 && s[0] == '-') {
		if (!vi_parse_dec(s + 1, n - 1, &u) || u > (uint64_t)INT64_MAX + 1)
			return false;
		*ret = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
		return true;
	}
	if (!vi_parse_dec(s, n, &u))
		return false;
	*ret = (int64_t)u; /* above INT64_MAX: two's complement, same bits */
	return true;
}

/* Quote @n bytes for a message: printable ASCII as is, others \xNN. */
#define VI_QUOTE_SHOW 48
#define VI_QUOTE_MAX (VI_QUOTE_SHOW * 4 + 4)
static void vi_quote(char out[VI_QUOTE_MAX], const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && i < VI_QUOTE_SHOW; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			out[o++] = (char)c;
		} else {
			snprintf(out + o, 5, "\\x%02x", c);
			o += 4;
		}
	}
	if (n > VI_QUOTE_SHOW) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

/*
 * Keys that filtering does not read: a bad value there costs only the
 * feature that uses it, as in upstream, which looks keys up one by one.
 */
static bool vi_soft(const char *k, size_t kn)
{
	static const char *const soft[] = {
		"BUILD-ID", "CRASHTIME", "SYMBOL(kallsyms_",
		"SYMBOL(prb)", "SYMBOL(printk_rb_static)", "SYMBOL(clear_seq)",
		"SYMBOL(log_", "SYMBOL(clear_idx)", "SIZE(printk_", "SIZE(log)",
		"SIZE(prb_", "SIZE(dev_printk_info)", "SIZE(atomic_long_t)",
		"SIZE(latched_seq)", "OFFSET(printk_", "OFFSET(log.", "OFFSET(prb_",
		"OFFSET(dev_printk_info.", "OFFSET(atomic_long_t.",
		"OFFSET(latched_seq.", "LENGTH(printk_info_",
	};

	for (size_t i = 0; i < sizeof(soft) / sizeof(soft[0]); i++) {
		size_t n = strlen(soft[i]);

		if (kn >= n && memcmp(k, soft[i], n) == 0)
			return true;
	}
	return false;
}

static enum mdf_status vi_bad(struct mdf_err *err, size_t lineno,
			      const char *key, size_t klen, const char *what,
			      const char *v, size_t vlen, const char *tail)
{
	char q[VI_QUOTE_MAX];

	vi_quote(q, v, vlen);
	return mdf_err_set(err, MDF_ERR_FORMAT, "VMCOREINFO line %zu: %.*s: %s '%s'%s",
			   lineno, (int)klen, key, what, q, tail);
}

/* Store value @v (@vn bytes) of key @k (@kn bytes) into @field, a buffer
 * laid out as the key's field of struct kinfo (e->size bytes, zeroed). */
static enum mdf_status vi_store(const struct vi_ent *e, const char *k, size_t kn,
				const char *v, size_t vn, char *field,
				size_t lineno, struct mdf_err *err)
{
	struct kinfo_u64 *fu = (struct kinfo_u64 *)(void *)field;
	struct kinfo_s64 *fs = (struct kinfo_s64 *)(void *)field;
	uint64_t u;
	int64_t s;

	switch ((enum vi_type)e->type) {
	case VI_T_STR:
	case VI_T_HEXSTR:
		if (vn > e->size - 1)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "VMCOREINFO line %zu: %.*s: value too long (%zu bytes, max %u)",
					   lineno, (int)kn, k, vn,
					   (unsigned)(e->size - 1));
		if (e->type == VI_T_STR && vn == 0)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "VMCOREINFO line %zu: %.*s: empty value",
					   lineno, (int)kn, k);
		if (e->type == VI_T_HEXSTR) {
			bool ok = vn > 0;

			for (size_t i = 0; ok && i < vn; i++)
				ok = vi_hexval(v[i]) >= 0;
			if (!ok)
				return vi_bad(err, lineno, k, kn, "bad hex string",
					      v, vn, "");
		}
		memset(field, 0, e->size);
		memcpy(field, v, vn);
		return MDF_OK;
	case VI_T_DEC:
		if (!vi_parse_dec(v, vn, &u))
			return vi_bad(err, lineno, k, kn, "bad number", v, vn, "");
		fu->v = u;
		fu->set = true;
		return MDF_OK;
	case VI_T_HEX:
		if (!vi_parse_hex(v, vn, &u))
			return vi_bad(err, lineno, k, kn, "bad number", v, vn, "");
		fu->v = u;
		fu->set = true;
		return MDF_OK;
	case VI_T_NUM:
		if (!vi_parse_num(v, vn, &s))
			return vi_bad(err, lineno, k, kn, "bad number", v, vn, "");
		fs->v = s;
		fs->set = true;
		return MDF_OK;
	case VI_T_BOOL:
		if (vn != 1 || (v[0] != 'y' && v[0] != 'n'))
			return vi_bad(err, lineno, k, kn, "bad value", v, vn,
				      " (want y or n)");
		*(bool *)(void *)field = v[0] == 'y';
		return MDF_OK;
	}
	return mdf_err_set(err, MDF_ERR_INTERNAL, "VMCOREINFO: bad table type %u",
			   (unsigned)e->type);
}

/* ---- what a kernel can have ------------------------------------------ */

/*
 * A value that no kernel writes is refused where it is read, naming its
 * line, instead of deciding pages by it: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-1,
 * the _mapcount of every unmapped page, made every such page free.
 */
enum vi_rule {
	VR_PAGESIZE,    /* PAGESIZE */
	VR_PG_BIT,      /* NUMBER(PG_x): a bit of page.flags */
	VR_PG_MASK,     /* NUMBER(PG_head_mask) */
	VR_PAGE_TYPE,   /* NUMBER(PAGE_x_MAPCOUNT_VALUE) */
	VR_DTOR,        /* NUMBER(HUGETLB_PAGE_DTOR) */
	VR_SECTION,     /* NUMBER(SECTION_SIZE_BITS) */
	VR_PHYS,        /* NUMBER(MAX_PHYSMEM_BITS) */
	VR_ORDERS,      /* LENGTH(zone.free_area) */
	VR_MTYPES,      /* LENGTH(free_area.free_list) */
	VR_ZONE_STAT,   /* NUMBER(NR_FREE_PAGES) */
	VR_MS_SIZE,     /* SIZE(mem_section) */
	VR_PAGE_SIZE,   /* SIZE(page) */
};

#define VI_RULE(member, rule) { offsetof(struct kinfo, member), rule }
static const struct {
	uint32_t off;
	uint8_t rule;
} vi_rules[] = {
	VI_RULE(page_size, VR_PAGESIZE),
	VI_RULE(num.PG_lru, VR_PG_BIT),
	VI_RULE(num.PG_private, VR_PG_BIT),
	VI_RULE(num.PG_head, VR_PG_BIT),
	VI_RULE(num.PG_swapcache, VR_PG_BIT),
	VI_RULE(num.PG_swapbacked, VR_PG_BIT),
	VI_RULE(num.PG_slab, VR_PG_BIT),
	VI_RULE(num.PG_buddy, VR_PG_BIT),
	VI_RULE(num.PG_hwpoison, VR_PG_BIT),
	VI_RULE(num.PG_hugetlb, VR_PG_BIT),
	VI_RULE(num.PG_offline, VR_PG_BIT),
	VI_RULE(num.PG_head_mask, VR_PG_MASK),
	VI_RULE(num.PAGE_BUDDY_MAPCOUNT_VALUE, VR_PAGE_TYPE),
	VI_RULE(num.PAGE_OFFLINE_MAPCOUNT_VALUE, VR_PAGE_TYPE),
	VI_RULE(num.PAGE_SLAB_MAPCOUNT_VALUE, VR_PAGE_TYPE),
	VI_RULE(num.PAGE_HUGETLB_MAPCOUNT_VALUE, VR_PAGE_TYPE),
	VI_RULE(num.PAGE_UNACCEPTED_MAPCOUNT_VALUE, VR_PAGE_TYPE),
	VI_RULE(num.HUGETLB_PAGE_DTOR, VR_DTOR),
	VI_RULE(num.SECTION_SIZE_BITS, VR_SECTION),
	VI_RULE(num.MAX_PHYSMEM_BITS, VR_PHYS),
	VI_RULE(len.zone_free_area, VR_ORDERS),
	VI_RULE(len.free_area_free_list, VR_MTYPES),
	VI_RULE(num.NR_FREE_PAGES, VR_ZONE_STAT),
	VI_RULE(size.mem_section, VR_MS_SIZE),
	VI_RULE(size.page, VR_PAGE_SIZE),
};
#undef VI_RULE

/* The markers that must differ from each other (a page has one type). */
static const uint32_t vi_page_types[] = {
	offsetof(struct kinfo, num.PAGE_BUDDY_MAPCOUNT_VALUE),
	offsetof(struct kinfo, num.PAGE_OFFLINE_MAPCOUNT_VALUE),
	offsetof(struct kinfo, num.PAGE_SLAB_MAPCOUNT_VALUE),
	offsetof(struct kinfo, num.PAGE_HUGETLB_MAPCOUNT_VALUE),
	offsetof(struct kinfo, num.PAGE_UNACCEPTED_MAPCOUNT_VALUE),
};

/*
 * A page type as the kernel exports it, a 32-bit page_type word (written
 * sign-extended, "%ld" of an int; 0x hex of the 32 bits is taken too):
 *   - 2.6.38 to 4.17: PAGE_BUDDY_MAPCOUNT_VALUE -128 (include/linux/mm.h:
 *     "must be <= -2 but better not too close to -2");
 *   - 4.18 to 6.11: ~PG_x, one bit cleared of an all-ones word, the bit
 *     7 (PG_buddy 0x80) or above ("mm: split page_type out from
 *     _mapcount", 4.18): -129 buddy, -257 offline (5.0), -2049 hugetlb
 *     (6.9), -4097 slab (6.10); the 6.1 fixture has -129 and -257;
 *   - 6.12 on: PGTY_x << 24, the type in the top byte, 0xf0 to 0xfe
 *     (enum pagetype: 0x80-0xef are reserved for mapcount overflow, 0xff
 *     is PGTY_mapcount_underflow): the 6.12 fixture's buddy 0xf0000000 =
 *     -268435456, offline 0xf1, hugetlb 0xf4, slab 0xf5; unaccepted 0xf7
 *     (6.16); 7.x kernel/vmcore_info.c exports the same PGTY << 24.
 * Anything else is a mapcount (-1 an unmapped page, 0 and up mapped ones,
 * -2 to -127 underflows) or garbage.
 */
static bool vi_page_type_ok(int64_t v)
{
	uint32_t m, inv;

	if (v < INT32_MIN || v > (int64_t)UINT32_MAX || (v >= 0 && v <= INT32_MAX))
		return false;
	m = (uint32_t)v;
	inv = ~m;
	if (m == 0xffffff80u)
		return true;
	if (inv && !(inv & (inv - 1)) && inv >= 0x80u && inv <= 0x40000000u)
		return true;
	return (m & 0xffffffu) == 0 && (m >> 24) >= 0xf0 && (m >> 24) <= 0xfe;
}

/*
 * Is the value in @field (laid out as the field of entry @e) one a kernel
 * can have?  Returns NULL, or the reason after "KEY=VALUE ".
 */
static const char *vi_implausible(const struct vi_ent *e, const char *field, unsigned word)
{
	const struct kinfo_u64 *fu = (const struct kinfo_u64 *)(const void *)field;
	const struct kinfo_s64 *fs = (const struct kinfo_s64 *)(const void *)field;
	uint64_t u = fu->v;
	int64_t n = fs->v;

	/* A kernel symbol at address 0: no kernel links one there. */
	if (e >= &vi_ents[VI_FIRST_SYMBOL] && e < &vi_ents[VI_FIRST_SIZE])
		return u == 0 ? "is no kernel address" : NULL;
	for (size_t i = 0; i < sizeof(vi_rules) / sizeof(vi_rules[0]); i++) {
		if (vi_rules[i].off != e->off)
			continue;
		switch ((enum vi_rule)vi_rules[i].rule) {
		case VR_PAGESIZE:
			/* 4 KiB (every arch) to 256 KiB (the largest Linux
			 * offers, hexagon; 64 KiB on arm64, ppc64, mips64,
			 * loongarch64 and ia64). */
			return u < 4096 || u > (256u << 10) || (u & (u - 1)) ?
				"is no page size (a power of two from 4096 to 262144)" : NULL;
		case VR_PG_BIT:
			return n < 0 || n > 63 ? "is no page flag bit (0 to 63)" : NULL;
		case VR_PG_MASK:
			return !u || (u & (u - 1)) ? "is no page flag mask (one bit set)" : NULL;
		case VR_PAGE_TYPE:
			return vi_page_type_ok(n) ? NULL :
				"is no page type (-128 before Linux 4.18, ~(1 << N) for N 7 to 30 "
				"from 4.18, T << 24 for T 0xf0 to 0xfe from 6.12)";
		case VR_DTOR:
			/* enum compound_dtor_id, a byte in page[1] (4.16:
			 * "mm: Store compound_dtor / compound_order as bytes");
			 * 0 is NULL_COMPOUND_DTOR. */
			return n < 1 || n > 255 ? "is no compound page destructor (1 to 255)" : NULL;
		case VR_SECTION:
			/* 24 on ppc64, 27 on x86_64, arm64 and riscv64, 28 on
			 * s390x, 29-30 on arm64 with 64 KiB pages and ia64. */
			return n < 20 || n > 40 ? "is no memory section size (20 to 40 bits)" : NULL;
		case VR_PHYS:
			/* 46 (x86_64 4-level, s390x), 48-52 (arm64), 51 (ppc64),
			 * 52 (x86_64 5-level), 56 (riscv64 Sv57). */
			return n < 32 || n > 64 ? "is no physical address width (32 to 64 bits)" : NULL;
		case VR_ORDERS:
			/* NR_PAGE_ORDERS, MAX_ORDER + 1: 11, 14 with arm64's
			 * 64 KiB pages. */
			return u < 1 || u > 64 ? "is no number of buddy orders (1 to 64)" : NULL;
		case VR_MTYPES:
			return u < 1 || u > 64 ? "is no number of migrate types (1 to 64)" : NULL;
		case VR_ZONE_STAT:
			/* enum zone_stat_item: NR_FREE_PAGES is 0 everywhere. */
			return n < 0 || n > 255 ? "is no zone counter index (0 to 255)" : NULL;
		case VR_PAGE_SIZE:
			/* 56, 64, 72 and 80 are real sizes; a 32-bit
			 * kernel's words are 4 bytes, and 36 is 6.1 armmp's
			 * (filter.c says the same for a SIZE(page) from
			 * DWARF). */
			if (word == 4)
				return u < 32 || u > 256 || u % 4 ?
					"is no struct page size (a multiple of 4 from 32 to 256)" : NULL;
			return u < 32 || u > 256 || u % 8 ?
				"is no struct page size (a multiple of 8 from 32 to 256)" : NULL;
		case VR_MS_SIZE:
			/* 16 or 32 bytes (pointers and an unsigned long). */
			return u < 8 || u > 256 || u % 8 ?
				"is no struct mem_section size (a multiple of 8 from 8 to 256)" : NULL;
		}
	}
	return NULL;
}

/* ---- where a key came from, for messages ------------------------------ */

struct vi_srcs {
	const struct vmcoreinfo_source *src;
	size_t n;
};

/* The source of entry @i and its line (0: no line), or NULL if unknown. */
static const struct vmcoreinfo_source *vi_origin(const struct vi_srcs *s, size_t i,
						 uint32_t *line)
{
	*line = 0;
	for (size_t k = 0; k < s->n; k++)
		if (s->src[k].lines && s->src[k].lines->line[i]) {
			*line = s->src[k].lines->line[i];
			return &s->src[k];
		}
	for (size_t k = 0; k < s->n; k++)
		if (!s->src[k].lines)
			return &s->src[k];
	return NULL;
}

/* "NAME: VMCOREINFO line N", "VMCOREINFO line N" (no name: the caller
 * names the file), "NAME" (-x: no line) or "VMCOREINFO". */
static void vi_where(char *buf, size_t cap, const struct vmcoreinfo_source *o,
		     uint32_t line)
{
	const char *name = o && o->name ? o->name : NULL;

	if (line)
		snprintf(buf, cap, "%s%sVMCOREINFO line %u", name ? name : "",
			 name ? ": " : "", (unsigned)line);
	else
		snprintf(buf, cap, "%s", name ? name : "VMCOREINFO");
}

/* The key of entry @i as written: "NUMBER(PG_lru)". */
static void vi_key(char *buf, size_t cap, size_t i)
{
	const struct vi_group_desc *g = &vi_groups[vi_group_of(i)];

	snprintf(buf, cap, "%.*s%.*s%.*s", (int)g->prefix_len, g->prefix,
		 (int)vi_ents[i].name_len, vi_ents[i].name, (int)g->suffix_len, g->suffix);
}

static enum mdf_status vi_value_text(const struct vi_ent *e, const struct kinfo *ki,
				     char *tmp, size_t tmpcap, const char **s,
				     size_t *n, struct mdf_err *err);

/* "KEY=VALUE" of a present entry @i of @ki. */
static void vi_key_value(char *buf, size_t cap, const struct kinfo *ki, size_t i)
{
	char key[VI_NAME_MAX + 16], tmp[32];
	const char *s = "";
	size_t n = 0;
	struct mdf_err e;

	vi_key(key, sizeof(key), i);
	mdf_err_clear(&e);
	if (vi_value_text(&vi_ents[i], ki, tmp, sizeof(tmp), &s, &n, &e) != MDF_OK)
		n = 0;
	snprintf(buf, cap, "%s=%.*s", key, (int)(n > 64 ? 64 : n), s);
}

static bool vi_present(const struct vi_ent *e, const struct kinfo *ki);

/* Entry index of the field at offset @off. */
static size_t vi_index_of(uint32_t off)
{
	for (size_t i = 0; i < VI_N_ENTS; i++)
		if (vi_ents[i].off == off)
			return i;
	return VI_N_ENTS;
}

/* Is entry @i a key filtering does not read (vi_soft)? */
static bool vi_soft_index(size_t i)
{
	char key[VI_NAME_MAX + 16];

	vi_key(key, sizeof(key), i);
	return vi_soft(key, strlen(key));
}

/* Does entry @i come after entry @j: from a later source of @s (-i FILE
 * after the note), or the same one at a later line? */
static bool vi_later(const struct vi_srcs *s, size_t i, size_t j)
{
	uint32_t li, lj;
	const struct vmcoreinfo_source *oi = vi_origin(s, i, &li), *oj = vi_origin(s, j, &lj);

	if (oi != oj)
		return oi && oj && oi > oj;
	return li > lj;
}

/*
 * A problem with two entries, @i (the one named first) and @j.  @rel
 * joins them: "lies outside", "is also".  Soft entries are the caller's.
 */
static enum mdf_status vi_pair_err(const struct kinfo *ki, const struct vi_srcs *s,
				   size_t i, const char *rel, size_t j,
				   const char *tail, struct mdf_err *err)
{
	char wi[320], wj[320], kvi[160], kvj[160];
	const struct vmcoreinfo_source *oi, *oj;
	uint32_t li, lj;

	oi = vi_origin(s, i, &li);
	oj = vi_origin(s, j, &lj);
	vi_where(wi, sizeof(wi), oi, li);
	if (oj == oi && lj)
		snprintf(wj, sizeof(wj), "line %u", (unsigned)lj);
	else
		vi_where(wj, sizeof(wj), oj, lj);
	vi_key_value(kvi, sizeof(kvi), ki, i);
	vi_key_value(kvj, sizeof(kvj), ki, j);
	return mdf_err_set(err, MDF_ERR_FORMAT, "%s: %s %s %s (%s)%s", wi, kvi, rel,
			   kvj, wj, tail);
}

/*
 * The checks of entries against each other, on @ki; in a parse, @soft_ki
 * is the same kinfo and an offending soft entry is unset there (its key
 * and message kept as for a bad value) instead of failing.
 */
static enum mdf_status vi_cross_check(const struct kinfo *ki, struct kinfo *soft_ki,
				      const struct vi_srcs *s, struct mdf_err *err)
{
	enum mdf_status st;

	/* OFFSET(S.m) inside SIZE(S) whenever both are known. */
	for (size_t i = VI_FIRST_OFFSET; i < VI_FIRST_LENGTH; i++) {
		const struct vi_ent *o = &vi_ents[i];
		const char *dot = memchr(o->name, '.', o->name_len);
		size_t sl = dot ? (size_t)(dot - o->name) : 0;

		if (!dot || !vi_present(o, ki))
			continue;
		for (size_t j = VI_FIRST_SIZE; j < VI_FIRST_OFFSET; j++) {
			const struct vi_ent *z = &vi_ents[j];
			uint64_t off, size;

			if (z->name_len != sl || memcmp(z->name, o->name, sl) || !vi_present(z, ki))
				continue;
			off = ((const struct kinfo_u64 *)(const void *)((const char *)ki + o->off))->v;
			size = ((const struct kinfo_u64 *)(const void *)((const char *)ki + z->off))->v;
			if (off < size)
				break;
			st = vi_pair_err(ki, s, i, "lies outside", j, "", err);
			if (!vi_soft_index(i))
				return st;
			/* A printk offset: only --dump-dmesg reads it.  A parse
			 * drops it and keeps the message, as for a bad value. */
			if (soft_ki) {
				if (!soft_ki->ignored_key[0]) {
					vi_key(soft_ki->ignored_key, sizeof(soft_ki->ignored_key), i);
					mdf_err_keep(err, soft_ki->ignored_msg,
						     sizeof(soft_ki->ignored_msg));
				}
				memset((char *)soft_ki + o->off, 0, o->size);
			}
			mdf_err_clear(err);
			break;
		}
	}
	/* Two page types with one value: the marker of one rule would take
	 * the pages of the other. */
	for (size_t a = 0; a < sizeof(vi_page_types) / sizeof(vi_page_types[0]); a++)
		for (size_t b = 0; b < a; b++) {
			size_t i = vi_index_of(vi_page_types[a]), j = vi_index_of(vi_page_types[b]);
			const struct kinfo_s64 *x, *y;

			if (i == VI_N_ENTS || j == VI_N_ENTS)
				continue;
			x = (const struct kinfo_s64 *)(const void *)((const char *)ki + vi_ents[i].off);
			y = (const struct kinfo_s64 *)(const void *)((const char *)ki + vi_ents[j].off);
			if (x->set && y->set && (uint32_t)x->v == (uint32_t)y->v) {
				/* Named first: the one the other file added, or
				 * the later line. */
				if (vi_later(s, j, i)) {
					size_t t = i;

					i = j;
					j = t;
				}
				return vi_pair_err(ki, s, i, "is also", j,
						   ": a page has one type", err);
			}
		}
	/* NUMBER(PG_head_mask) is 1UL << PG_head (kernel/crash_core.c,
	 * since 4.8). */
	if (ki->num.PG_head_mask.set && ki->num.PG_head.set &&
	    ki->num.PG_head.v >= 0 && ki->num.PG_head.v < 64 &&
	    (uint64_t)ki->num.PG_head_mask.v != 1ULL << ki->num.PG_head.v)
		return vi_pair_err(ki, s, vi_index_of(offsetof(struct kinfo, num.PG_head_mask)),
				   "is not 1 <<", vi_index_of(offsetof(struct kinfo, num.PG_head)),
				   "", err);
	/* A section is smaller than the physical address space. */
	if (ki->num.SECTION_SIZE_BITS.set && ki->num.MAX_PHYSMEM_BITS.set &&
	    ki->num.SECTION_SIZE_BITS.v >= ki->num.MAX_PHYSMEM_BITS.v)
		return vi_pair_err(ki, s, vi_index_of(offsetof(struct kinfo, num.SECTION_SIZE_BITS)),
				   "is not below", vi_index_of(offsetof(struct kinfo, num.MAX_PHYSMEM_BITS)),
				   "", err);
	return MDF_OK;
}

/* The largest field of struct kinfo an entry has (BUILD-ID, SRCFILE). */
#define VI_FIELD_MAX 256
#define VI_FIELD_CHECK(ident, key) \
	_Static_assert(sizeof(((struct kinfo *)0)->srcfile.ident) <= VI_FIELD_MAX, "field fits");
KINFO_SRCFILES(VI_FIELD_CHECK)
#undef VI_FIELD_CHECK
_Static_assert(sizeof(((struct kinfo *)0)->build_id) <= VI_FIELD_MAX, "field fits");
_Static_assert(VMCOREINFO_KEYS == VI_N_ENTS, "VMCOREINFO_KEYS counts the table");

/* One known key's line: parse, check, store into @own (see below). */
static enum mdf_status vi_line(const struct vi_ent *e, const char *p, size_t kn,
			       const char *v, size_t vn, struct kinfo *own,
			       struct vmcoreinfo_lines *seen, size_t lineno,
			       struct mdf_err *err)
{
	size_t idx = (size_t)(e - vi_ents);
	_Alignas(8) char val[VI_FIELD_MAX];
	char *field = (char *)own + e->off;
	const char *why;
	enum mdf_status st;

	memset(val, 0, sizeof(val));
	st = vi_store(e, p, kn, v, vn, val, lineno, err);
	if (st != MDF_OK)
		return st;
	if (seen->line[idx]) {
		char q[VI_QUOTE_MAX], prev[160];
		struct kinfo_u64 *fu = (struct kinfo_u64 *)(void *)field;

		/* A soft key already dropped for a bad value stays dropped. */
		if ((e->type == VI_T_DEC || e->type == VI_T_HEX || e->type == VI_T_NUM) &&
		    !fu->set)
			return MDF_OK;
		if (memcmp(val, field, e->size) == 0)
			return MDF_OK;   /* the same line again */
		vi_quote(q, v, vn);
		vi_key_value(prev, sizeof(prev), own, idx);
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "VMCOREINFO line %zu: %.*s=%s conflicts with line %u: %s",
				   lineno, (int)kn, p, q, (unsigned)seen->line[idx], prev);
	}
	if ((e->type == VI_T_DEC || e->type == VI_T_HEX || e->type == VI_T_NUM) &&
	    (why = vi_implausible(e, val, kinfo_word_size(own))) != NULL) {
		char q[VI_QUOTE_MAX];

		vi_quote(q, v, vn);
		return mdf_err_set(err, MDF_ERR_FORMAT, "VMCOREINFO line %zu: %.*s=%s %s",
				   lineno, (int)kn, p, q, why);
	}
	memcpy(field, val, e->size);
	seen->line[idx] = (uint32_t)(lineno > UINT32_MAX ? UINT32_MAX : lineno);
	return MDF_OK;
}

/* Copy what the text said (@own, the keys with a line in @seen) over
 * @ret; the first ignored line's key and message if @ret has none. */
static void vi_merge_seen(struct kinfo *ret, const struct kinfo *own,
			  const struct vmcoreinfo_lines *seen)
{
	for (size_t i = 0; i < VI_N_ENTS; i++) {
		const struct vi_ent *e = &vi_ents[i];

		if (!seen->line[i])
			continue;
		/* CONFIG_X=n clears it; a dropped soft value leaves @ret's. */
		if (e->type != VI_T_BOOL && !vi_present(e, own))
			continue;
		memcpy((char *)ret + e->off, (const char *)own + e->off, e->size);
	}
	if (own->ignored_key[0] && !ret->ignored_key[0]) {
		memcpy(ret->ignored_key, own->ignored_key, sizeof(ret->ignored_key));
		memcpy(ret->ignored_msg, own->ignored_msg, sizeof(ret->ignored_msg));
	}
}

static enum mdf_status vi_parse_own(const char *text, size_t len, struct kinfo *own,
				    struct vmcoreinfo_lines *seen, struct mdf_err *err)
{
	const char *p, *end, *nul;
	size_t lineno = 0;

	nul = memchr(text, '\0', len);
	end = nul ? nul : text + len;
	/* NULs pad the note.  More KEY=value lines after one tell of a
	 * corrupt line, which is named rather than reported later as a key
	 * that seems missing. */
	if (nul) {
		size_t rest = len - (size_t)(end - text);

		if (memchr(end, '=', rest) && memchr(end, '\n', rest)) {
			size_t line = 1;

			for (const char *r = text; r < end; r++)
				line += *r == '\n';
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "VMCOREINFO line %zu: NUL byte at offset %zu, text follows it",
					   line, (size_t)(end - text));
		}
	}
	for (p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *eq;
		const struct vi_ent *e;
		size_t n = (size_t)(le - p);

		lineno++;
		if (n) {
			eq = memchr(p, '=', n);
			if (!eq) {
				char q[VI_QUOTE_MAX];

				vi_quote(q, p, n);
				return mdf_err_set(err, MDF_ERR_FORMAT,
						   "VMCOREINFO line %zu: no '=' in '%s'",
						   lineno, q);
			}
			e = vi_find(p, (size_t)(eq - p));
			if (e) {
				size_t kn = (size_t)(eq - p);
				enum mdf_status st;

				st = vi_line(e, p, kn, eq + 1, (size_t)(le - eq - 1), own,
					     seen, lineno, err);
				if (st == MDF_ERR_FORMAT && vi_soft(p, kn)) {
					if (!own->ignored_key[0]) {
						snprintf(own->ignored_key, sizeof(own->ignored_key),
							 "%.*s", (int)kn, p);
						mdf_err_keep(err, own->ignored_msg,
							     sizeof(own->ignored_msg));
					}
					/* Dropped; later lines of the key are not
					 * believed either. */
					memset((char *)own + e->off, 0, e->size);
					if (!seen->line[e - vi_ents])
						seen->line[e - vi_ents] = (uint32_t)lineno;
					mdf_err_clear(err);
				} else if (st != MDF_OK) {
					return st;
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
	{
		struct vmcoreinfo_source one = { NULL, seen };
		struct vi_srcs s = { &one, 1 };

		return vi_cross_check(own, own, &s, err);
	}
}

enum mdf_status vmcoreinfo_parse_lines(const char *text, size_t len,
				       struct kinfo *ret,
				       struct vmcoreinfo_lines *lines,
				       struct mdf_err *err)
{
	struct kinfo own;
	struct vmcoreinfo_lines seen;
	enum mdf_status st;

	if (lines)
		memset(lines, 0, sizeof(*lines));
	if (!text) {
		if (len)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "VMCOREINFO: no text but length %zu", len);
		return MDF_OK;
	}
	kinfo_init(&own);
	own.word_size = ret->word_size; /* what the values are checked by */
	memset(&seen, 0, sizeof(seen));
	st = vi_parse_own(text, len, &own, &seen, err);
	/* On failure too: the lines before the bad one. */
	vi_merge_seen(ret, &own, &seen);
	if (lines)
		*lines = seen;
	return st;
}

enum mdf_status vmcoreinfo_parse(const char *text, size_t len,
				 struct kinfo *ret, struct mdf_err *err)
{
	return vmcoreinfo_parse_lines(text, len, ret, NULL, err);
}

enum mdf_status vmcoreinfo_check(const struct kinfo *ki,
				 const struct vmcoreinfo_source *src, size_t nsrc,
				 struct mdf_err *err)
{
	struct vi_srcs s = { src, src ? nsrc : 0 };

	for (size_t i = 0; i < VI_N_ENTS; i++) {
		const struct vi_ent *e = &vi_ents[i];
		const struct vmcoreinfo_source *o;
		char w[320], kv[160];
		const char *why;
		uint32_t line;

		if ((e->type != VI_T_DEC && e->type != VI_T_HEX && e->type != VI_T_NUM) ||
		    !vi_present(e, ki) || vi_soft_index(i))
			continue;
		why = vi_implausible(e, (const char *)ki + e->off, kinfo_word_size(ki));
		if (!why)
			continue;
		o = vi_origin(&s, i, &line);
		vi_where(w, sizeof(w), o, line);
		vi_key_value(kv, sizeof(kv), ki, i);
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: %s %s", w, kv, why);
	}
	return vi_cross_check(ki, NULL, &s, err);
}

/* Is the field of @e present in @ki? */
static bool vi_present(const struct vi_ent *e, const struct kinfo *ki)
{
	const char *field = (const char *)ki + e->off;

	switch ((enum vi_type)e->type) {
	case VI_T_STR:
	case VI_T_HEXSTR:
		return field[0] != '\0';
	case VI_T_DEC:
	case VI_T_HEX:
		return ((const struct kinfo_u64 *)(const void *)field)->set;
	case VI_T_NUM:
		return ((const struct kinfo_s64 *)(const void *)field)->set;
	case VI_T_BOOL:
		return *(const bool *)(const void *)field;
	}
	return false;
}

/* Output cursor: counts everything, stores what fits. */
struct vi_out {
	char *buf;
	size_t cap, len;
};

static void vi_put(struct vi_out *o, const char *s, size_t n)
{
	if (o->len < o->cap) {
		size_t room = o->cap - o->len;

		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

/* The text of a present field's value: *@s, *@n (numbers go to @tmp). */
static enum mdf_status vi_value_text(const struct vi_ent *e, const struct kinfo *ki,
				     char *tmp, size_t tmpcap, const char **s,
				     size_t *n, struct mdf_err *err)
{
	const char *field = (const char *)ki + e->off;
	const struct kinfo_u64 *fu = (const struct kinfo_u64 *)(const void *)field;
	const struct kinfo_s64 *fs = (const struct kinfo_s64 *)(const void *)field;
	int w = 0;

	switch ((enum vi_type)e->type) {
	case VI_T_STR:
	case VI_T_HEXSTR: {
		const char *z = memchr(field, '\0', e->size);

		if (!z)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "VMCOREINFO %.*s: not NUL-terminated",
					   (int)e->name_len, e->name);
		*s = field;
		*n = (size_t)(z - field);
		for (size_t i = 0; i < *n; i++)
			if (e->type == VI_T_STR ? field[i] == '\n'
						: vi_hexval(field[i]) < 0)
				return mdf_err_set(err, MDF_ERR_ARG,
						   "VMCOREINFO %.*s: %s",
						   (int)e->name_len, e->name,
						   e->type == VI_T_STR
							   ? "contains a newline"
							   : "not a hex string");
		return MDF_OK;
	}
	case VI_T_DEC:
		w = snprintf(tmp, tmpcap, "%" PRIu64, fu->v);
		break;
	case VI_T_HEX:
		w = snprintf(tmp, tmpcap, "%" PRIx64, fu->v);
		break;
	case VI_T_NUM:
		w = snprintf(tmp, tmpcap, "%" PRId64, fs->v);
		break;
	case VI_T_BOOL:
		w = snprintf(tmp, tmpcap, "y");
		break;
	}
	if (w <= 0 || (size_t)w >= tmpcap)
		return mdf_err_set(err, MDF_ERR_INTERNAL,
				   "VMCOREINFO %.*s: cannot format value",
				   (int)e->name_len, e->name);
	*s = tmp;
	*n = (size_t)w;
	return MDF_OK;
}

enum mdf_status vmcoreinfo_format(const struct kinfo *ki, char *buf,
				  size_t cap, size_t *len_ret,
				  struct mdf_err *err)
{
	struct vi_out o = { buf, cap, 0 };

	if (!buf && cap)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "VMCOREINFO format: no buffer but capacity %zu", cap);
	for (size_t i = 0; i < VI_N_ENTS; i++) {
		const struct vi_ent *e = &vi_ents[i];
		const struct vi_group_desc *g = &vi_groups[vi_group_of(i)];
		char tmp[32];
		const char *s = "";
		size_t n = 0;
		enum mdf_status st;

		if (!vi_present(e, ki))
			continue;
		st = vi_value_text(e, ki, tmp, sizeof(tmp), &s, &n, err);
		if (st != MDF_OK)
			return st;
		vi_put(&o, g->prefix, g->prefix_len);
		vi_put(&o, e->name, e->name_len);
		vi_put(&o, g->suffix, g->suffix_len);
		vi_put(&o, "=", 1);
		vi_put(&o, s, n);
		vi_put(&o, "\n", 1);
	}
	if (len_ret)
		*len_ret = o.len;
	if (o.len < cap) {
		buf[o.len] = '\0';
		return MDF_OK;
	}
	if (cap)
		buf[cap - 1] = '\0';
	return mdf_err_set(err, MDF_ERR_NOSPC,
			   "VMCOREINFO text needs %zu bytes, buffer has %zu",
			   o.len + 1, cap);
}

bool vmcoreinfo_lookup(const struct kinfo *ki, const char *key, uint64_t *ret)
{
	const struct vi_ent *e = vi_find(key, strlen(key));
	const char *field;

	if (!e || !vi_present(e, ki))
		return false;
	field = (const char *)ki + e->off;
	switch ((enum vi_type)e->type) {
	case VI_T_STR:
	case VI_T_HEXSTR:
		return false;
	case VI_T_DEC:
	case VI_T_HEX:
		*ret = ((const struct kinfo_u64 *)(const void *)field)->v;
		return true;
	case VI_T_NUM:
		*ret = (uint64_t)((const struct kinfo_s64 *)(const void *)field)->v;
		return true;
	case VI_T_BOOL:
		*ret = 1;
		return true;
	}
	return false;
}

bool vmcoreinfo_set(struct kinfo *ki, const char *key, uint64_t v)
{
	const struct vi_ent *e = vi_find(key, strlen(key));
	char *field;

	if (!e)
		return false;
	field = (char *)ki + e->off;
	switch ((enum vi_type)e->type) {
	case VI_T_STR:
	case VI_T_HEXSTR:
		return false;
	case VI_T_DEC:
	case VI_T_HEX:
		((struct kinfo_u64 *)(void *)field)->v = v;
		((struct kinfo_u64 *)(void *)field)->set = true;
		return true;
	case VI_T_NUM:
		((struct kinfo_s64 *)(void *)field)->v = (int64_t)v;
		((struct kinfo_s64 *)(void *)field)->set = true;
		return true;
	case VI_T_BOOL:
		*(bool *)(void *)field = v != 0;
		return true;
	}
	return false;
}

void vmcoreinfo_merge(struct kinfo *dst, const struct kinfo *src)
{
	for (size_t i = 0; i < VI_N_ENTS; i++)
		if (vi_present(&vi_ents[i], src))
			memcpy((char *)dst + vi_ents[i].off, (const char *)src + vi_ents[i].off,
			       vi_ents[i].size);
}

size_t vmcoreinfo_count_set(const struct kinfo *ki)
{
	size_t n = 0;

	for (size_t i = 0; i < VI_N_ENTS; i++)
		n += vi_present(&vi_ents[i], ki);
	return n;
}

bool vmcoreinfo_sysfs_parse(const char *text, size_t len, uint64_t *paddr_ret,
			    uint64_t *size_ret)
{
	size_t sp = 0, end = len;

	while (end && (text[end - 1] == '\n' || text[end - 1] == '\0'))
		end--;
	while (sp < end && text[sp] != ' ')
		sp++;
	if (sp == 0 || sp + 1 >= end)
		return false;
	return vi_parse_hex(text, sp, paddr_ret) &&
	       vi_parse_hex(text + sp + 1, end - sp - 1, size_ret);
}
