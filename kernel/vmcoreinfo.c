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

struct vi_group_desc {
	char prefix[8];
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
 * crash_core.c/vmcore_info.c, seen in 6.12 x86_64 dumps).  Decimal must fit
 * int64_t; hex may use all 64 bits and is kept as the same bit pattern.
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
	if (!vi_parse_dec(s, n, &u) || u > (uint64_t)INT64_MAX)
		return false;
	*ret = (int64_t)u;
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

/* Store value @v (@vn bytes) of key @k (@kn bytes) into its field. */
static enum mdf_status vi_store(const struct vi_ent *e, const char *k, size_t kn,
				const char *v, size_t vn, struct kinfo *ki,
				size_t lineno, struct mdf_err *err)
{
	char *field = (char *)ki + e->off;
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

enum mdf_status vmcoreinfo_parse(const char *text, size_t len,
				 struct kinfo *ret, struct mdf_err *err)
{
	const char *p, *end, *nul;
	size_t lineno = 0;

	if (!text) {
		if (len)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "VMCOREINFO: no text but length %zu", len);
		return MDF_OK;
	}
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
				enum mdf_status st;

				size_t kn = (size_t)(eq - p);

				st = vi_store(e, p, kn, eq + 1,
					      (size_t)(le - eq - 1), ret, lineno, err);
				if (st == MDF_ERR_FORMAT && vi_soft(p, kn)) {
					if (!ret->ignored_key[0]) {
						snprintf(ret->ignored_key, sizeof(ret->ignored_key),
							 "%.*s", (int)kn, p);
						mdf_err_keep(err, ret->ignored_msg,
							     sizeof(ret->ignored_msg));
					}
					mdf_err_clear(err);
				} else if (st != MDF_OK) {
					return st;
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
	return MDF_OK;
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
