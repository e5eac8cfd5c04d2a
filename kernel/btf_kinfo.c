/*
 * btf_kinfo.c - VMCOREINFO keys from the dump's BTF and kallsyms
 * (btf_kinfo.h).
 */
#include "kernel/btf_kinfo.h"

#include <stdio.h>
#include <string.h>

struct filled {
	size_t n;
	char *names;
	size_t cap, len;
};

static void note_key(struct filled *f, const char *kind, const char *key)
{
	int w;

	f->n++;
	if (!f->names || f->cap == 0 || f->len + 1 >= f->cap)
		return;
	w = snprintf(f->names + f->len, f->cap - f->len, "%s%s(%s)", f->len ? ", " : "", kind,
		     key);
	if (w > 0)
		f->len = f->len + (size_t)w < f->cap ? f->len + (size_t)w : f->cap - 1;
}

/* "T.m" into its struct and member; false when @key has no dot. */
static bool split_key(const char *key, char *type, size_t cap, const char **member)
{
	const char *dot = strchr(key, '.');

	if (!dot || (size_t)(dot - key) >= cap)
		return false;
	memcpy(type, key, (size_t)(dot - key));
	type[dot - key] = '\0';
	*member = dot + 1;
	return true;
}

static bool legacy_log(const char *key)
{
	return strcmp(key, "log") == 0 || strncmp(key, "log.", 4) == 0;
}

static void fill_size(struct filled *f, const struct kbtf *b, struct kinfo_u64 *v,
		      const char *key)
{
	if (!v->set && !legacy_log(key) && kbtf_type_size(b, key, &v->v)) {
		v->set = true;
		note_key(f, "SIZE", key);
	}
}

static void fill_offset(struct filled *f, const struct kbtf *b, struct kinfo_u64 *v,
			const char *key)
{
	char type[64];
	const char *member;

	if (!v->set && !legacy_log(key) && split_key(key, type, sizeof(type), &member) &&
	    kbtf_member_offset(b, type, member, &v->v)) {
		v->set = true;
		note_key(f, "OFFSET", key);
	}
}

static void fill_length(struct filled *f, const struct kbtf *b, struct kinfo_u64 *v,
			const char *key)
{
	char type[64];
	const char *member;

	if (v->set)
		return;
	/* The kernel names these two after printk_info, whose dev_info
	 * member holds the arrays. */
	if (strcmp(key, "printk_info_subsystem") == 0) {
		member = "subsystem";
		v->set = kbtf_member_length(b, "dev_printk_info", member, &v->v);
	} else if (strcmp(key, "printk_info_device") == 0) {
		member = "device";
		v->set = kbtf_member_length(b, "dev_printk_info", member, &v->v);
	} else if (split_key(key, type, sizeof(type), &member)) {
		v->set = kbtf_member_length(b, type, member, &v->v);
	}
	if (v->set)
		note_key(f, "LENGTH", key);
}

/* The enum each NUMBER() that BTF knows is an enumerator of. */
static const char *number_enum(const char *key)
{
	if (strncmp(key, "PG_", 3) == 0)
		return "pageflags";
	if (strcmp(key, "NR_FREE_PAGES") == 0)
		return "zone_stat_item";
	if (strcmp(key, "N_ONLINE") == 0)
		return "node_states";
	return NULL;
}

static void fill_number(struct filled *f, const struct kbtf *b, struct kinfo_s64 *v,
			const char *key)
{
	const char *type = number_enum(key);

	if (v->set || !type || strcmp(key, "PG_head_mask") == 0)
		return;
	if (kbtf_enum_value(b, type, key, &v->v)) {
		v->set = true;
		note_key(f, "NUMBER", key);
	}
}

/* Symbols kallsyms does not give as the note would: SYMBOL(mem_section)
 * is the roots the variable points at, vmemmap a value where an
 * architecture exports it; and the printk and vmalloc lists, which the
 * note of every kernel with kallsyms in it has, and which choose how
 * --dump-dmesg reads the log (log_buf exists beside prb since 5.10). */
static bool symbol_not_taken(const char *key)
{
	static const char *const no[] = {
		"mem_section", "vmemmap", "prb", "printk_rb_static", "clear_seq", "log_buf",
		"log_buf_len", "log_first_idx", "log_next_idx", "log_end", "clear_idx",
		"vmap_area_list", "vmlist", "high_memory", "max_pfn",
	};

	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (strcmp(key, no[i]) == 0)
			return true;
	return false;
}

static void fill_symbol(struct filled *f, const struct kallsyms *ks, struct kinfo_u64 *v,
			const char *key)
{
	if (v->set || !ks || symbol_not_taken(key))
		return;
	if (kallsyms_lookup(ks, key, &v->v, NULL)) {
		v->set = true;
		note_key(f, "SYMBOL", key);
	}
}

size_t btf_kinfo_fill(struct kinfo *ki, const struct kbtf *b, const struct kallsyms *ks,
		      char *names, size_t cap)
{
	struct filled f = { 0, names, cap, 0 };

	if (names && cap)
		names[0] = '\0';
	if (b) {
#define FILL_SIZE(ident, key) fill_size(&f, b, &ki->size.ident, key);
#define FILL_OFFSET(ident, key) fill_offset(&f, b, &ki->off.ident, key);
#define FILL_LENGTH(ident, key) fill_length(&f, b, &ki->len.ident, key);
#define FILL_NUMBER(ident, key) fill_number(&f, b, &ki->num.ident, key);
		KINFO_SIZES(FILL_SIZE)
		KINFO_OFFSETS(FILL_OFFSET)
		KINFO_LENGTHS(FILL_LENGTH)
		KINFO_NUMBERS(FILL_NUMBER)
#undef FILL_SIZE
#undef FILL_OFFSET
#undef FILL_LENGTH
#undef FILL_NUMBER
		if (!ki->num.PG_head_mask.set && ki->num.PG_head.set &&
		    ki->num.PG_head.v >= 0 && ki->num.PG_head.v < 63) {
			ki->num.PG_head_mask.v = (int64_t)1 << ki->num.PG_head.v;
			ki->num.PG_head_mask.set = true;
			note_key(&f, "NUMBER", "PG_head_mask");
		}
	}
#define FILL_SYMBOL(ident, key) fill_symbol(&f, ks, &ki->sym.ident, key);
	KINFO_SYMBOLS(FILL_SYMBOL)
#undef FILL_SYMBOL
	return f.n;
}
