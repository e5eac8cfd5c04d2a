/*
 * kallsyms.c - the kernel's symbol table from the dump (kallsyms.h).
 */
#include <stdlib.h>
#include <string.h>

#include "kernel/kallsyms.h"
#include "util.h"

/* Symbols no kernel has more of: a count beyond is a damaged table. */
#define KALLSYMS_MAX_SYMS (1u << 24)
/* A name is at most KSYM_NAME_LEN (512 since 6.1) characters. */
#define KALLSYMS_NAME_MAX 512
/* kallsyms_token_table: 256 NUL-terminated tokens, each short. */
#define KALLSYMS_TOKEN_TABLE_MAX 65536

bool kallsyms_available(const struct kinfo *ki)
{
	/* kallsyms_relative_base is gone since the place-relative offsets
	 * (below) */
	return ki->sym.kallsyms_names.set && ki->sym.kallsyms_num_syms.set &&
	       ki->sym.kallsyms_token_table.set && ki->sym.kallsyms_token_index.set &&
	       ki->sym.kallsyms_offsets.set;
}

void kallsyms_free(struct kallsyms *ks)
{
	free(ks->addr);
	free(ks->name);
	free(ks->ntok);
	free(ks->names);
	free(ks->tokens);
	memset(ks, 0, sizeof(*ks));
}

/* Read @len bytes of kernel memory at @va into a new buffer. */
static enum mdf_status grab(struct readmem *rm, uint64_t va, size_t len, const char *what,
			    unsigned char **ret, struct mdf_err *err)
{
	unsigned char *b = malloc(len ? len : 1);

	*ret = NULL;
	if (!b)
		return mdf_err_set(err, MDF_ERR_NOMEM, "kallsyms: out of memory for %s", what);
	if (readmem_vaddr(rm, va, b, len, err) != MDF_OK) {
		free(b);
		return mdf_err_push(err, "kallsyms: %s (0x%zx bytes at 0x%llx)", what, len,
				    (unsigned long long)va);
	}
	*ret = b;
	return MDF_OK;
}

/* Index the names: a pass that reads kallsyms_names in pieces as it goes
 * (its length is not in VMCOREINFO), keeps the entries as they are and
 * checks each one: its tokens exist and its name is 2 to
 * KALLSYMS_NAME_MAX bytes (the type and at least one character). */
static enum mdf_status index_names(struct kallsyms *ks, struct readmem *rm, uint64_t names_va,
				   size_t tt_len, struct mdf_err *err)
{
	enum { CHUNK = 1 << 16 };
	size_t cap = (size_t)ks->n * 12 + CHUNK, have = 0, pos = 0;
	enum mdf_status st = MDF_OK;

	for (unsigned k = 0; k < 256; k++) {
		size_t o = ks->tok[k];
		size_t tl = o < tt_len ? strnlen(ks->tokens + o, tt_len - o) : 0;

		/* an empty token, or one that runs past the table, is a
		 * damaged index: refused when an entry uses it */
		ks->toklen[k] = tl && o + tl < tt_len && tl <= KALLSYMS_NAME_MAX ? (uint16_t)tl : 0;
	}
	ks->names = malloc(cap);
	if (!ks->names)
		return mdf_err_set(err, MDF_ERR_NOMEM, "kallsyms: out of memory for %u names", ks->n);
	for (uint32_t i = 0; i < ks->n; i++) {
		unsigned len, k;
		size_t chars = 0;

		/* the entry needs at most 2 + 2 * KALLSYMS_NAME_MAX bytes */
		if (have - pos < 2 + KALLSYMS_NAME_MAX * 2) {
			if (cap - have < CHUNK) {
				unsigned char *p = realloc(ks->names, cap * 2);

				if (!p) {
					st = mdf_err_set(err, MDF_ERR_NOMEM, "kallsyms: out of memory for names");
					break;
				}
				ks->names = p;
				cap *= 2;
			}
			if (readmem_vaddr(rm, names_va + have, ks->names + have, CHUNK, err) == MDF_OK) {
				have += CHUNK;
			} else {
				/* the end of mapped memory: what is there may do */
				size_t part = 4096 - ((names_va + have) & 4095);

				mdf_err_clear(err);
				if (readmem_vaddr(rm, names_va + have, ks->names + have, part, err) != MDF_OK) {
					st = mdf_err_push(err, "kallsyms: kallsyms_names at 0x%llx (symbol %u of %u)",
							  (unsigned long long)(names_va + have), i, ks->n);
					break;
				}
				have += part;
			}
		}
		len = ks->names[pos++];
		if (len & 0x80)
			len = (len & 0x7f) | (unsigned)ks->names[pos++] << 7;
		if (len == 0 || len > KALLSYMS_NAME_MAX * 2 || pos + len > have) {
			st = mdf_err_set(err, MDF_ERR_FORMAT,
					 "kallsyms: symbol %u of %u has a name of %u tokens at 0x%llx",
					 i, ks->n, len, (unsigned long long)(names_va + pos));
			break;
		}
		ks->name[i] = (uint32_t)pos;
		ks->ntok[i] = (uint16_t)len;
		for (unsigned t = 0; t < len; t++) {
			k = ks->names[pos + t];
			if (!ks->toklen[k]) {
				st = mdf_err_set(err, MDF_ERR_FORMAT,
						 "kallsyms: symbol %u of %u: token %u at 0x%x of kallsyms_token_table is empty or runs past it",
						 i, ks->n, k, (unsigned)ks->tok[k]);
				break;
			}
			chars += ks->toklen[k];
		}
		if (st != MDF_OK)
			break;
		if (chars < 2 || chars > KALLSYMS_NAME_MAX) {
			st = mdf_err_set(err, MDF_ERR_FORMAT, "kallsyms: symbol %u of %u has a name of %zu bytes",
					 i, ks->n, chars);
			break;
		}
		pos += len;
	}
	ks->names_len = pos;
	return st;
}

/* Every address from kallsyms_offsets, in the encoding ks says.  Place-
 * relative (@place, the table's own address): Linux 7.x, Ard Biesheuvel's
 * "kallsyms: Get rid of kallsyms relative base" (2026), each entry is the
 * signed distance from itself, and VMCOREINFO has no
 * SYMBOL(kallsyms_relative_base) (7.3's has none). */
static void addresses(struct kallsyms *ks, const unsigned char *offs, bool be, uint64_t rbase,
		      uint64_t place)
{
	for (uint32_t i = 0; i < ks->n; i++) {
		int32_t o = (int32_t)load_t32(offs + 4 * i, be);

		if (place)
			ks->addr[i] = place + 4 * (uint64_t)i + (uint64_t)(int64_t)o;
		else if (!ks->absolute_percpu)
			ks->addr[i] = rbase + (uint32_t)o;
		else if (o >= 0)
			ks->addr[i] = (uint64_t)o;
		else
			ks->addr[i] = rbase - 1 - (uint64_t)(int64_t)o;
	}
}

enum mdf_status kallsyms_load(struct kallsyms *ks, const struct kinfo *ki, struct readmem *rm,
			      struct mdf_err *err)
{
	const bool be = ki->big_endian;
	unsigned char *tt = NULL, *raw_ti = NULL, *offs = NULL, nbuf[8];
	uint64_t rbase, place;
	bool any_neg = false;
	enum mdf_status st;

	memset(ks, 0, sizeof(*ks));
	if (!kallsyms_available(ki))
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "no kallsyms in VMCOREINFO (Linux 6.0 and later name them)");
	if (readmem_vaddr(rm, ki->sym.kallsyms_num_syms.v, nbuf, 4, err) != MDF_OK)
		return mdf_err_push(err, "kallsyms: kallsyms_num_syms");
	if (load_t32(nbuf, be) == 0 || load_t32(nbuf, be) > KALLSYMS_MAX_SYMS)
		return mdf_err_set(err, MDF_ERR_FORMAT, "kallsyms: kallsyms_num_syms is %u",
				   load_t32(nbuf, be));
	ks->n = load_t32(nbuf, be);
	rbase = 0;
	place = ki->sym.kallsyms_relative_base.set ? 0 : ki->sym.kallsyms_offsets.v;
	/* kallsyms_relative_base is an unsigned long: 4 bytes on i386 */
	if (!place && readmem_vaddr(rm, ki->sym.kallsyms_relative_base.v, nbuf,
				    kinfo_word_size(ki), err) != MDF_OK) {
		ks->n = 0;
		return mdf_err_push(err, "kallsyms: kallsyms_relative_base");
	}
	if (!place)
		rbase = load_tword(nbuf, kinfo_word_size(ki), be);
	st = grab(rm, ki->sym.kallsyms_token_index.v, 512, "kallsyms_token_index", &raw_ti, err);
	if (st == MDF_OK)
		st = grab(rm, ki->sym.kallsyms_token_table.v, KALLSYMS_TOKEN_TABLE_MAX,
			  "kallsyms_token_table", &tt, err);
	if (st == MDF_OK)
		st = grab(rm, ki->sym.kallsyms_offsets.v, (size_t)ks->n * 4, "kallsyms_offsets", &offs,
			  err);
	ks->addr = malloc((size_t)ks->n * sizeof(*ks->addr));
	ks->name = malloc((size_t)ks->n * sizeof(*ks->name));
	ks->ntok = malloc((size_t)ks->n * sizeof(*ks->ntok));
	ks->tokens = (char *)tt;
	tt = NULL;
	if (st == MDF_OK && (!ks->addr || !ks->name || !ks->ntok))
		st = mdf_err_set(err, MDF_ERR_NOMEM, "kallsyms: out of memory for %u symbols", ks->n);
	if (st == MDF_OK) {
		for (unsigned i = 0; i < 256; i++)
			ks->tok[i] = load_t16(raw_ti + 2 * i, be);
		for (uint32_t i = 0; i < ks->n; i++)
			any_neg |= (int32_t)load_t32(offs + 4 * i, be) < 0;
		st = index_names(ks, rm, ki->sym.kallsyms_names.v, KALLSYMS_TOKEN_TABLE_MAX, err);
	}
	free(tt);
	free(raw_ti);
	/* The encoding the entries suggest, checked by SYMBOL(_stext) where
	 * VMCOREINFO gives it; the other one when that disagrees. */
	if (st == MDF_OK) {
		ks->absolute_percpu = !place && any_neg;
		addresses(ks, offs, be, rbase, place);
		if (ki->sym._stext.set) {
			uint64_t a;

			if (!kallsyms_lookup(ks, "_stext", &a, NULL)) {
				st = mdf_err_set(err, MDF_ERR_FORMAT, "kallsyms: no _stext among %u symbols",
						 ks->n);
			} else if (a != ki->sym._stext.v && place) {
				st = mdf_err_set(err, MDF_ERR_FORMAT,
						 "kallsyms: _stext decodes to 0x%llx (place-relative), VMCOREINFO says 0x%llx",
						 (unsigned long long)a, (unsigned long long)ki->sym._stext.v);
			} else if (a != ki->sym._stext.v) {
				uint64_t first = a;

				ks->absolute_percpu = !any_neg;
				addresses(ks, offs, be, rbase, 0);
				if (!kallsyms_lookup(ks, "_stext", &a, NULL) || a != ki->sym._stext.v)
					st = mdf_err_set(err, MDF_ERR_FORMAT,
							 "kallsyms: _stext decodes to 0x%llx (or 0x%llx), VMCOREINFO says 0x%llx",
							 (unsigned long long)first, (unsigned long long)a,
							 (unsigned long long)ki->sym._stext.v);
			}
		}
	}
	free(offs);
	if (st != MDF_OK)
		kallsyms_free(ks);
	return st;
}

/* Whether symbol @i's name (after its type) is @name. */
static bool name_is(const struct kallsyms *ks, uint32_t i, const char *name)
{
	const unsigned char *e = ks->names + ks->name[i];
	bool type = true;   /* the first character is the type */

	for (unsigned t = 0; t < ks->ntok[i]; t++) {
		const char *tok = ks->tokens + ks->tok[e[t]];
		unsigned tl = ks->toklen[e[t]], b = 0;

		if (type) {
			b = 1;
			type = false;
		}
		for (; b < tl; b++)
			if (*name++ != tok[b])
				return false;
	}
	return *name == '\0';
}

bool kallsyms_lookup(const struct kallsyms *ks, const char *name, uint64_t *addr, char *type)
{
	for (uint32_t i = 0; i < ks->n; i++) {
		if (name_is(ks, i, name)) {
			if (addr)
				*addr = ks->addr[i];
			if (type)
				*type = ks->tokens[ks->tok[ks->names[ks->name[i]]]];
			return true;
		}
	}
	return false;
}

size_t kallsyms_name(const struct kallsyms *ks, uint32_t i, char *buf, size_t size)
{
	const unsigned char *e = ks->names + ks->name[i];
	size_t n = 0;

	for (unsigned t = 0; t < ks->ntok[i]; t++) {
		const char *tok = ks->tokens + ks->tok[e[t]];

		for (unsigned b = 0; b < ks->toklen[e[t]]; b++, n++)
			if (n + 1 < size)
				buf[n] = tok[b];
	}
	if (size)
		buf[n < size ? n : size - 1] = '\0';
	return n;
}
