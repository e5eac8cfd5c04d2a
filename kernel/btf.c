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

bool kbtf_struct_size(const struct kbtf *b, const char *name, uint64_t *size)
{
	int32_t id = b->btf ? find_struct(b->btf, name) : -1;
	int64_t sz;

	if (id <= 0)
		return false;
	sz = btf__resolve_size(b->btf, (uint32_t)id);
	if (sz < 0)
		return false;
	*size = (uint64_t)sz;
	return true;
}

/* @member in struct/union @id, through anonymous members; bit offset. */
static bool member_bits(const struct btf *btf, uint32_t id, const char *member, unsigned depth,
			uint64_t *bits)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	if (!t || depth > 32 || (!btf_is_struct(t) && !btf_is_union(t)))
		return false;
	m = btf_members(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		uint64_t off = btf_member_bit_offset(t, i), inner;

		if (n && n[0] && strcmp(n, member) == 0) {
			*bits = off;
			return true;
		}
		if ((!n || !n[0]) &&
		    member_bits(btf, btf__resolve_type(btf, m->type) > 0 ?
				     (uint32_t)btf__resolve_type(btf, m->type) : m->type,
				member, depth + 1, &inner)) {
			*bits = off + inner;
			return true;
		}
	}
	return false;
}

bool kbtf_member_offset(const struct kbtf *b, const char *name, const char *member,
			uint64_t *off)
{
	int32_t id = b->btf ? find_struct(b->btf, name) : -1;
	uint64_t bits;

	if (id <= 0 || !member_bits(b->btf, (uint32_t)id, member, 0, &bits) || bits % 8)
		return false;
	*off = bits / 8;
	return true;
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

void kbtf_free(struct kbtf *b)
{
	memset(b, 0, sizeof(*b));
}
#endif
