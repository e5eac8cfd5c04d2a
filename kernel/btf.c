/*
 * btf.c - the kernel's BTF from the dump, through libbpf (btf.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/btf.h"

/* A vmlinux's BTF is a few MiB (6.12: 5.6 MiB); more is a damaged pair
 * of symbols. */
#define KBTF_MAX (256u << 20)

#if HAVE_LIBBPF
#include <bpf/btf.h>
#include <sys/mman.h>
#include <unistd.h>

bool kbtf_supported(void)
{
	return true;
}

enum mdf_status kbtf_load(struct kbtf *b, const struct kallsyms *ks, struct readmem *rm,
			  struct mdf_err *err)
{
	uint64_t start, stop;
	unsigned char *raw;

	memset(b, 0, sizeof(*b));
	if (!kallsyms_lookup(ks, "__start_BTF", &start, NULL) ||
	    !kallsyms_lookup(ks, "__stop_BTF", &stop, NULL))
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "no BTF in the kernel (no __start_BTF: built without CONFIG_DEBUG_INFO_BTF)");
	if (stop <= start || stop - start > KBTF_MAX)
		return mdf_err_set(err, MDF_ERR_FORMAT, "BTF: __start_BTF 0x%llx, __stop_BTF 0x%llx",
				   (unsigned long long)start, (unsigned long long)stop);
	raw = malloc(stop - start);
	if (!raw)
		return mdf_err_set(err, MDF_ERR_NOMEM, "BTF: out of memory for 0x%llx bytes",
				   (unsigned long long)(stop - start));
	if (readmem_vaddr(rm, start, raw, stop - start, err) != MDF_OK) {
		free(raw);
		return mdf_err_push(err, "BTF at 0x%llx", (unsigned long long)start);
	}
	{
		char where[64];
		enum mdf_status st;

		snprintf(where, sizeof(where), "BTF at 0x%llx", (unsigned long long)start);
		st = kbtf_from_bytes(b, raw, stop - start, where, err);
		free(raw);
		b->start = start;
		return st;
	}
}

static struct btf *split_from_bytes(const void *data, uint64_t len, struct btf *base, int *e)
{
	char path[64];
	struct btf *b = NULL;
	uint64_t done = 0;
	int fd = memfd_create("mdf-module-btf", MFD_CLOEXEC);

	if (fd < 0) {
		*e = errno;
		return NULL;
	}
	while (done < len) {
		ssize_t w = write(fd, (const unsigned char *)data + done, (size_t)(len - done));

		if (w <= 0) {
			*e = w < 0 ? errno : EIO;
			close(fd);
			return NULL;
		}
		done += (uint64_t)w;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	b = btf__parse_raw_split(path, base);
	*e = b ? 0 : errno;
	close(fd);
	return b;
}

enum mdf_status kbtf_load_split(struct kbtf *b, const struct kbtf *base, uint64_t va,
				uint64_t len, struct readmem *rm, struct mdf_err *err)
{
	unsigned char *raw;

	memset(b, 0, sizeof(*b));
	if (!base->btf)
		return mdf_err_set(err, MDF_ERR_NODATA, "no vmlinux BTF to split a module's from");
	if (len == 0 || len > KBTF_MAX)
		return mdf_err_set(err, MDF_ERR_FORMAT, "module BTF at 0x%llx: 0x%llx bytes",
				   (unsigned long long)va, (unsigned long long)len);
	raw = malloc(len);
	if (!raw)
		return mdf_err_set(err, MDF_ERR_NOMEM, "module BTF: out of memory");
	if (readmem_vaddr(rm, va, raw, len, err) != MDF_OK) {
		free(raw);
		return mdf_err_push(err, "module BTF at 0x%llx", (unsigned long long)va);
	}
	{
		char where[64];
		enum mdf_status st;

		snprintf(where, sizeof(where), "module BTF at 0x%llx", (unsigned long long)va);
		st = kbtf_split_from_bytes(b, base, raw, (size_t)len, where, err);
		free(raw);
		b->start = va;
		return st;
	}
}

enum mdf_status kbtf_split_from_bytes(struct kbtf *b, const struct kbtf *base, const void *data,
				      size_t len, const char *where, struct mdf_err *err)
{
	int e = 0;

	memset(b, 0, sizeof(*b));
	if (!base->btf)
		return mdf_err_set(err, MDF_ERR_NODATA, "%s: no vmlinux BTF to split it from", where);
	if (len == 0 || len > KBTF_MAX)
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: 0x%zx bytes of BTF", where, len);
	/* the module's types follow the vmlinux's: split BTF.  libbpf 1.1
	 * (Debian 12) parses split BTF from a file only (btf__new_split()
	 * came later): the bytes go through a memfd. */
	b->btf = split_from_bytes(data, len, base->btf, &e);
	if (!b->btf)
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s (0x%zx bytes): libbpf cannot parse it: %s",
				   where, len, strerror(e));
	b->len = len;
	return MDF_OK;
}

enum mdf_status kbtf_from_bytes(struct kbtf *b, const void *data, size_t len, const char *where,
				struct mdf_err *err)
{
	memset(b, 0, sizeof(*b));
	if (len > KBTF_MAX)
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: 0x%zx bytes of BTF", where, len);
	/* btf__new() copies the bytes */
	b->btf = btf__new(data, (uint32_t)len);
	if (!b->btf) {
		int e = errno;

		return mdf_err_set(err, MDF_ERR_FORMAT, "%s (0x%zx bytes): libbpf cannot parse it: %s",
				   where, len, strerror(e));
	}
	b->len = len;
	return MDF_OK;
}

static int32_t find_struct(const struct btf *btf, const char *name)
{
	int32_t id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);

	return id > 0 ? id : btf__find_by_name_kind(btf, name, BTF_KIND_UNION);
}

/* A struct or union by its tag, or a typedef of one (atomic_long_t). */
static int32_t find_aggregate(const struct btf *btf, const char *name)
{
	int32_t id = find_struct(btf, name);

	return id > 0 ? id : btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
}

/* The size of the first type called @name of the @n @kinds, in order. */
static bool size_of_kind(const struct kbtf *b, const char *name, const int *kinds, size_t n,
			 uint64_t *size)
{
	int64_t sz;

	for (size_t i = 0; b->btf && i < n; i++) {
		int32_t id = btf__find_by_name_kind(b->btf, name, kinds[i]);

		if (id <= 0)
			continue;
		sz = btf__resolve_size(b->btf, (uint32_t)id);
		if (sz < 0)
			return false;
		*size = (uint64_t)sz;
		return true;
	}
	return false;
}

bool kbtf_struct_size(const struct kbtf *b, const char *name, uint64_t *size)
{
	static const int kinds[] = { BTF_KIND_STRUCT, BTF_KIND_UNION };

	return size_of_kind(b, name, kinds, sizeof(kinds) / sizeof(kinds[0]), size);
}

enum mdf_status kbtf_lookup(const struct kbtf *b, struct dwarf_query *q, size_t n,
			    struct mdf_err *err)
{
	(void)err;
	for (size_t i = 0; i < n; i++) {
		int32_t id;

		q[i].found = false;
		if (!b->btf)
			continue;
		if (q[i].is_type) {
			id = find_struct(b->btf, q[i].name);
			if (id <= 0)
				id = btf__find_by_name_kind(b->btf, q[i].name, BTF_KIND_TYPEDEF);
			if (id > 0) {
				q[i].found = true;
				q[i].type.die = (uint64_t)id;
			}
			continue;
		}
		id = btf__find_by_name_kind(b->btf, q[i].name, BTF_KIND_VAR);
		if (id > 0) {
			const struct btf_type *v = btf__type_by_id(b->btf, (uint32_t)id);

			q[i].found = v != NULL;
			q[i].type.die = v ? v->type : 0;
		}
	}
	return MDF_OK;
}

/* Through typedefs, qualifiers and type tags, boundedly. */
static const struct btf_type *skip_mods(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);

	for (unsigned i = 0; t && i < 64 && (btf_is_mod(t) || btf_is_typedef(t) ||
					     btf_kind(t) == BTF_KIND_TYPE_TAG); i++) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t && (btf_is_mod(t) || btf_is_typedef(t)) ? NULL : t;
}

enum mdf_status kbtf_describe(const struct kbtf *b, struct dwarf_type dt,
			      struct dwarf_type_info *ti, struct mdf_err *err)
{
	uint32_t id = (uint32_t)dt.die;
	const struct btf_type *t;
	int64_t sz;

	memset(ti, 0, sizeof(*ti));
	if (dt.die > UINT32_MAX || !b->btf)
		return mdf_err_set(err, MDF_ERR_FORMAT, "BTF: type %llu", (unsigned long long)dt.die);
	if (id == 0) {
		ti->kind = DWARF_T_VOID;
		return MDF_OK;
	}
	t = skip_mods(b->btf, &id);
	if (!t)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "BTF type %u: a chain of typedefs or qualifiers with no end",
				   (unsigned)dt.die);
	if (id == 0) {
		ti->kind = DWARF_T_VOID;
		return MDF_OK;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		ti->kind = DWARF_T_STRUCT;
		ti->size = t->size;
		break;
	case BTF_KIND_PTR:
		ti->kind = DWARF_T_POINTER;
		ti->size = 8;
		ti->target.die = t->type;
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);

		ti->kind = DWARF_T_ARRAY;
		ti->target.die = a->type;
		ti->count = a->nelems;
		sz = btf__resolve_size(b->btf, id);
		if (sz < 0)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "BTF type %u: an array whose size cannot be worked out",
					   (unsigned)id);
		ti->size = (uint64_t)sz;
		break;
	}
	case BTF_KIND_INT:
		ti->kind = DWARF_T_INT;
		ti->size = t->size;
		ti->is_signed = (btf_int_encoding(t) & BTF_INT_SIGNED) != 0;
		ti->is_char = t->size == 1;
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		ti->kind = DWARF_T_INT;
		ti->size = t->size;
		ti->is_signed = btf_kflag(t);
		break;
	default:
		ti->kind = DWARF_T_OTHER;
		break;
	}
	return MDF_OK;
}

/* Members a lookup may visit: a real kernel's deepest nesting of anonymous
 * members is a few levels of a few members, while a hostile BTF whose
 * anonymous members lead back to their struct would make the walk
 * exponential in the depth. */
#define MEMBER_WALK_BUDGET 65536u

/* @name in struct/union @id, through anonymous members: byte offset and
 * type; false when none (or a bit-field), or when the walk exceeds
 * *@budget members. */
static bool member_of(const struct btf *btf, uint32_t id, const char *name, unsigned depth,
		      unsigned *budget, uint64_t *off, uint32_t *mid)
{
	const struct btf_type *t = skip_mods(btf, &id);
	const struct btf_member *m;

	if (!t || depth > 32 || (!btf_is_struct(t) && !btf_is_union(t)))
		return false;
	m = btf_members(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, m++) {
		if (*budget == 0)
			return false;
		--*budget;
		const char *n = btf__name_by_offset(btf, m->name_off);
		uint64_t bits = btf_member_bit_offset(t, i), inner;

		if (n && n[0] && strcmp(n, name) == 0) {
			if (bits % 8 || btf_member_bitfield_size(t, i))
				return false;
			*off = bits / 8;
			*mid = m->type;
			return true;
		}
		if ((!n || !n[0]) && member_of(btf, m->type, name, depth + 1, budget, &inner, mid)) {
			*off = bits / 8 + inner;
			return true;
		}
	}
	return false;
}

enum mdf_status kbtf_member(const struct kbtf *b, struct dwarf_type t, const char *name,
			    bool *found, uint64_t *off, struct dwarf_type *mt,
			    struct mdf_err *err)
{
	uint32_t mid = 0;
	unsigned budget = MEMBER_WALK_BUDGET;

	(void)err;
	*found = b->btf && t.die <= UINT32_MAX &&
		 member_of(b->btf, (uint32_t)t.die, name, 0, &budget, off, &mid);
	if (*found)
		mt->die = mid;
	return MDF_OK;
}

bool kbtf_member_offset(const struct kbtf *b, const char *name, const char *member,
			uint64_t *off)
{
	int32_t id = b->btf ? find_aggregate(b->btf, name) : -1;
	uint32_t mid;
	unsigned budget = MEMBER_WALK_BUDGET;

	return id > 0 && member_of(b->btf, (uint32_t)id, member, 0, &budget, off, &mid);
}

bool kbtf_type_size(const struct kbtf *b, const char *name, uint64_t *size)
{
	static const int kinds[] = { BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_TYPEDEF,
				     BTF_KIND_ENUM, BTF_KIND_ENUM64 };

	return size_of_kind(b, name, kinds, sizeof(kinds) / sizeof(kinds[0]), size);
}

bool kbtf_member_length(const struct kbtf *b, const char *name, const char *member,
			uint64_t *nelems)
{
	int32_t id = b->btf ? find_aggregate(b->btf, name) : -1;
	unsigned budget = MEMBER_WALK_BUDGET;
	const struct btf_type *t;
	uint64_t off;
	uint32_t mid;

	if (id <= 0 || !member_of(b->btf, (uint32_t)id, member, 0, &budget, &off, &mid))
		return false;
	t = skip_mods(b->btf, &mid);
	if (!t || !btf_is_array(t))
		return false;
	*nelems = btf_array(t)->nelems;
	return true;
}

bool kbtf_enum_value(const struct kbtf *b, const char *type, const char *name, int64_t *v)
{
	static const int kinds[] = { BTF_KIND_ENUM, BTF_KIND_ENUM64 };

	for (size_t k = 0; b->btf && k < 2; k++) {
		int32_t id = btf__find_by_name_kind(b->btf, type, kinds[k]);
		const struct btf_type *t = id > 0 ? btf__type_by_id(b->btf, (uint32_t)id) : NULL;

		for (unsigned i = 0; t && i < btf_vlen(t); i++) {
			const char *n;

			if (btf_is_enum(t)) {
				const struct btf_enum *e = btf_enum(t) + i;

				n = btf__name_by_offset(b->btf, e->name_off);
				if (n && strcmp(n, name) == 0) {
					*v = btf_kflag(t) ? (int64_t)(int32_t)e->val : (int64_t)(uint32_t)e->val;
					return true;
				}
			} else {
				const struct btf_enum64 *e = btf_enum64(t) + i;

				n = btf__name_by_offset(b->btf, e->name_off);
				if (n && strcmp(n, name) == 0) {
					*v = (int64_t)btf_enum64_value(e);
					return true;
				}
			}
		}
	}
	return false;
}

void kbtf_free(struct kbtf *b)
{
	btf__free(b->btf);
	memset(b, 0, sizeof(*b));
}

#else /* no libbpf */

bool kbtf_supported(void)
{
	return false;
}

enum mdf_status kbtf_load(struct kbtf *b, const struct kallsyms *ks, struct readmem *rm,
			  struct mdf_err *err)
{
	(void)ks;
	(void)rm;
	memset(b, 0, sizeof(*b));
	return mdf_err_set(err, MDF_ERR_NOTSUPP,
			   "this makedumpfile was built without libbpf: it cannot read BTF");
}

enum mdf_status kbtf_split_from_bytes(struct kbtf *b, const struct kbtf *base, const void *data,
				      size_t len, const char *where, struct mdf_err *err)
{
	(void)base;
	(void)data;
	(void)len;
	memset(b, 0, sizeof(*b));
	return mdf_err_set(err, MDF_ERR_NOTSUPP,
			   "%s: this makedumpfile was built without libbpf: it cannot read BTF", where);
}

enum mdf_status kbtf_load_split(struct kbtf *b, const struct kbtf *base, uint64_t va,
				uint64_t len, struct readmem *rm, struct mdf_err *err)
{
	(void)base;
	(void)va;
	(void)len;
	(void)rm;
	memset(b, 0, sizeof(*b));
	return mdf_err_set(err, MDF_ERR_NOTSUPP,
			   "this makedumpfile was built without libbpf: it cannot read BTF");
}

enum mdf_status kbtf_from_bytes(struct kbtf *b, const void *data, size_t len, const char *where,
				struct mdf_err *err)
{
	(void)data;
	(void)len;
	memset(b, 0, sizeof(*b));
	return mdf_err_set(err, MDF_ERR_NOTSUPP,
			   "%s: this makedumpfile was built without libbpf: it cannot read BTF", where);
}

bool kbtf_struct_size(const struct kbtf *b, const char *name, uint64_t *size)
{
	(void)b;
	(void)name;
	(void)size;
	return false;
}

bool kbtf_member_offset(const struct kbtf *b, const char *name, const char *member,
			uint64_t *off)
{
	(void)b;
	(void)name;
	(void)member;
	(void)off;
	return false;
}

bool kbtf_type_size(const struct kbtf *b, const char *name, uint64_t *size)
{
	(void)b;
	(void)name;
	(void)size;
	return false;
}

bool kbtf_member_length(const struct kbtf *b, const char *name, const char *member,
			uint64_t *nelems)
{
	(void)b;
	(void)name;
	(void)member;
	(void)nelems;
	return false;
}

bool kbtf_enum_value(const struct kbtf *b, const char *type, const char *name, int64_t *v)
{
	(void)b;
	(void)type;
	(void)name;
	(void)v;
	return false;
}

enum mdf_status kbtf_lookup(const struct kbtf *b, struct dwarf_query *q, size_t n,
			    struct mdf_err *err)
{
	(void)b;
	for (size_t i = 0; i < n; i++)
		q[i].found = false;
	return mdf_err_set(err, MDF_ERR_NOTSUPP, "built without libbpf: no BTF");
}

enum mdf_status kbtf_describe(const struct kbtf *b, struct dwarf_type t,
			      struct dwarf_type_info *ti, struct mdf_err *err)
{
	(void)b;
	(void)t;
	memset(ti, 0, sizeof(*ti));
	return mdf_err_set(err, MDF_ERR_NOTSUPP, "built without libbpf: no BTF");
}

enum mdf_status kbtf_member(const struct kbtf *b, struct dwarf_type t, const char *name,
			    bool *found, uint64_t *off, struct dwarf_type *mt,
			    struct mdf_err *err)
{
	(void)b;
	(void)t;
	(void)name;
	(void)off;
	(void)mt;
	*found = false;
	return mdf_err_set(err, MDF_ERR_NOTSUPP, "built without libbpf: no BTF");
}

void kbtf_free(struct kbtf *b)
{
	memset(b, 0, sizeof(*b));
}
#endif
