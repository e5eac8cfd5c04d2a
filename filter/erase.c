/*
 * erase.c - --config FILE resolved to physical ranges (erase.h).
 */
#include "filter/erase.h"
#include "kernel/btf.h"
#include "kernel/kallsyms.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/vmcoreinfo.h"
#include "util.h"

/* A string erased by its length: at most this (makedumpfile.conf(5)). */
#define ERASE_STR_MAX 1024
/* One command erases at most this much; a loop runs at most this often. */
#define ERASE_CMD_MAX (UINT64_C(1) << 30)
#define ERASE_LOOP_MAX 1000000u
#define ERASE_RANGES_MAX (1u << 24)

/* An object of the crashed kernel: where, and of what type. */
struct obj {
	uint64_t addr;
	struct dwarf_type t;
};

/* The variables and structs the commands name, found in one pass. */
struct names {
	struct dwarf_query *q;
	size_t n;
};

/* A loaded module as the dump shows it: where its symbol table is. */
struct modsyms {
	uint64_t symtab, strtab;     /* Elf64_Sym[num], their names */
	uint64_t num;
	uint64_t btf, btf_len;       /* its BTF (btf_data), 0 when none */
};

/* struct module's members find_module() reads, and the module list. */
struct modlayout {
	bool tried;
	const char *why;             /* NULL when found */
	char why_buf[256];
	uint64_t o_list, o_name, o_ks, o_sym, o_str, o_num, num_size, head;
	bool has_btf;                /* CONFIG_DEBUG_INFO_BTF_MODULES */
	uint64_t bm_head, o_bm_list, o_bm_mod, o_bm_btf, o_data, o_size, size_size;
};

struct ctx {
	const struct erase_config *cfg;
	const struct erase_env *env;
	struct erase_set *out;
	struct names names;
	struct mdf_err *err;
	/* The section being resolved: vmlinux's debuginfo and symbols, or a
	 * module's debuginfo (types) and kallsyms (addresses). */
	const char *module;          /* "" for vmlinux */
	struct dwarf_info *di;       /* the section's DWARF, if that is its source */
	struct erase_types dw;       /* ty for di */
	const struct erase_types *ty;
	const struct modsyms *mod;
	struct modlayout layout;
};

static enum mdf_status bad(struct ctx *c, unsigned line, const char *fmt, const char *a,
			   const char *b)
{
	return mdf_err_set(c->err, MDF_ERR_FORMAT, "line %u: %s%s%s", line, a,
			   fmt, b ? b : "");
}

/* A symbol the dump's kallsyms has and its BTF does not type (Linux
 * types only per-cpu variables there): "erase SYM size N" still works. */
#define UNTYPED UINT64_MAX

/* What @t is; a failure of the vmlinux's DWARF (a loop in its types)
 * names the line and the expression too. */
static enum mdf_status describe(struct ctx *c, unsigned line, const char *text,
				struct dwarf_type t, struct dwarf_type_info *ti)
{
	enum mdf_status st;

	if (t.die == UNTYPED) {
		memset(ti, 0, sizeof(*ti));
		ti->kind = DWARF_T_OTHER;
		return MDF_OK;
	}
	st = c->ty->describe(c->ty->arg, t, ti, c->err);
	return st == MDF_OK ? st : mdf_err_push(c->err, "line %u: %s", line, text);
}

/* Member @name of @t, which must exist. */
static enum mdf_status member(struct ctx *c, unsigned line, const char *text,
			      struct dwarf_type t, const char *name, uint64_t *off,
			      struct dwarf_type *mt)
{
	bool found;
	enum mdf_status st = c->ty->member(c->ty->arg, t, name, &found, off, mt, c->err);

	if (st != MDF_OK)
		return mdf_err_push(c->err, "line %u: %s", line, text);
	if (!found)
		return mdf_err_set(c->err, MDF_ERR_FORMAT, "line %u: %s: no member '%s'", line,
				   text, name);
	return MDF_OK;
}

static const struct dwarf_query *find_name(const struct names *nm, const char *name,
					   bool is_type)
{
	for (size_t i = 0; i < nm->n; i++)
		if (nm->q[i].is_type == is_type && !strcmp(nm->q[i].name, name))
			return &nm->q[i];
	return NULL;
}

static enum mdf_status want_name(struct names *nm, const char *name, bool is_type,
				 struct mdf_err *err)
{
	struct dwarf_query *q;

	if (find_name(nm, name, is_type))
		return MDF_OK;
	q = realloc(nm->q, (nm->n + 1) * sizeof(*q));
	if (!q)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	nm->q = q;
	memset(&q[nm->n], 0, sizeof(*q));
	q[nm->n].name = name;
	q[nm->n].is_type = is_type;
	nm->n++;
	return MDF_OK;
}

/* Every name the commands use, looked up at once. */
static enum mdf_status collect_names(struct ctx *c)
{
	const struct erase_config *cfg = c->cfg;
	enum mdf_status st = MDF_OK;

	for (size_t i = 0; st == MDF_OK && i < cfg->ncmds; i++) {
		const struct erase_cmd *cmd = &cfg->cmds[i];

		if (strcmp(cmd->module, c->module))
			continue;
		if (cmd->loop >= 0) {
			const struct erase_loop *l = &cfg->loops[cmd->loop];

			st = want_name(&c->names, l->list.parts[0], false, c->err);
			if (st == MDF_OK && l->kind == ERASE_LOOP_WITHIN)
				st = want_name(&c->names, l->struct_name, true, c->err);
		}
		if (st == MDF_OK && cmd->loop < 0)
			st = want_name(&c->names, cmd->target.parts[0], false, c->err);
		if (st == MDF_OK && cmd->kind == ERASE_SIZE_EXPR &&
		    (cmd->loop < 0 || strcmp(cmd->size_expr.parts[0], cfg->loops[cmd->loop].id)))
			st = want_name(&c->names, cmd->size_expr.parts[0], false, c->err);
	}
	if (st == MDF_OK && c->names.n)
		st = c->ty->lookup(c->ty->arg, c->names.q, c->names.n, c->err);
	return st;
}

/* The running address of variable @name: the note's SYMBOL() when it has
 * one (but mem_section's there is the array it points at), else the
 * vmlinux's moved by KERNELOFFSET. */
static bool mod_sym_addr(struct ctx *c, const char *name, uint64_t *ret);

static bool sym_addr(struct ctx *c, const char *name, uint64_t *ret)
{
	char key[ERASE_NAME_MAX + 16];

	if (c->mod)
		return mod_sym_addr(c, name, ret);
	snprintf(key, sizeof(key), "SYMBOL(%s)", name);
	if (strcmp(name, "mem_section") && vmcoreinfo_lookup(c->env->ki, key, ret))
		return true;
	if (!c->ty->symbol(c->ty->arg, name, ret))
		return false;
	if (!c->ty->running)
		*ret += c->env->kernel_offset;
	return true;
}

/* A pointer of the dump at @va; false when the dump cannot say. */
static bool read_ptr(struct ctx *c, uint64_t va, uint64_t *ret)
{
	struct mdf_err e;

	mdf_err_clear(&e);
	return readmem_ulong(c->env->rm, va, ret, &e) == MDF_OK;
}

/*
 * @e from @base (a loop's element, when e->parts[0] is its ID) or from its
 * symbol: members are taken through pointers, which are read from the
 * dump.  *@null_ret: a NULL (or unreadable) pointer was on the way.
 */
static enum mdf_status eval(struct ctx *c, unsigned line, const struct erase_expr *e,
			    const struct obj *base, struct obj *o, bool *null_ret)
{
	struct dwarf_type_info ti;
	unsigned i = 1;

	*null_ret = false;
	if (base) {
		*o = *base;
	} else {
		const struct dwarf_query *q = find_name(&c->names, e->parts[0], false);

		if (q && !q->found && c->ty->running && sym_addr(c, e->parts[0], &o->addr)) {
			if (e->nparts > 1)
				return mdf_err_set(c->err, MDF_ERR_FORMAT,
						   "line %u: %s: the type of %s is not in the dump's BTF "
						   "(the kernel's BTF types per-cpu variables only): give "
						   "-x VMLINUX", line, e->text, e->parts[0]);
			o->t.die = UNTYPED;
			return MDF_OK;
		}
		if (!q || !q->found || !sym_addr(c, e->parts[0], &o->addr))
			return mdf_err_set(c->err, MDF_ERR_FORMAT,
					   "line %u: %s: no such variable in %s%s", line, e->parts[0],
					   c->mod ? "module " : c->ty->running ? "the dump's kallsyms" :
					   "the vmlinux", c->module);
		o->t = q->type;
	}
	for (; i < e->nparts; i++) {
		uint64_t off;
		struct dwarf_type mt;
		enum mdf_status st = describe(c, line, e->text, o->t, &ti);

		if (st != MDF_OK)
			return st;
		if (ti.kind == DWARF_T_POINTER) {
			if (!read_ptr(c, o->addr, &o->addr) || o->addr == 0) {
				*null_ret = true;
				return MDF_OK;
			}
			o->t = ti.target;
			st = describe(c, line, e->text, o->t, &ti);
			if (st != MDF_OK)
				return st;
		}
		if (ti.kind != DWARF_T_STRUCT)
			return mdf_err_set(c->err, MDF_ERR_FORMAT,
					   "line %u: %s: no struct or union to take '%s' of",
					   line, e->text, e->parts[i]);
		st = member(c, line, e->text, o->t, e->parts[i], &off, &mt);
		if (st != MDF_OK)
			return st;
		o->addr += off;
		o->t = mt;
	}
	return MDF_OK;
}

static enum mdf_status add_range(struct ctx *c, uint64_t pa, uint64_t len, uint8_t fill)
{
	struct erase_set *s = c->out;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct erase_range *r;

		if (cap > ERASE_RANGES_MAX)
			return mdf_err_set(c->err, MDF_ERR_NOTSUPP,
					   "more than %u pieces to erase", ERASE_RANGES_MAX);
		r = realloc(s->r, cap * sizeof(*r));
		if (!r)
			return mdf_err_set(c->err, MDF_ERR_NOMEM, "out of memory");
		s->r = r;
		s->cap = cap;
	}
	s->r[s->n++] = (struct erase_range){ pa, len, fill };
	return MDF_OK;
}

/* [va, va + len) of the crashed kernel, page by page to physical. */
static enum mdf_status erase_vrange(struct ctx *c, uint64_t va, uint64_t len, uint8_t fill)
{
	uint64_t ps = c->env->rm->page_size;

	while (len) {
		uint64_t piece = ps - (va & (ps - 1)), pa;
		struct mdf_err e;
		enum mdf_status st;

		if (piece > len)
			piece = len;
		mdf_err_clear(&e);
		if (readmem_vtop(c->env->rm, va, &pa, NULL, &e) == MDF_OK) {
			st = add_range(c, pa, piece, fill);
			if (st != MDF_OK)
				return st;
		} else {
			c->out->unreadable += piece;
		}
		va += piece;
		len -= piece;
	}
	return MDF_OK;
}

/* One eraseinfo line per object erased, as makedumpfile writes them (a
 * loop's command says it once per element). */
static enum mdf_status say(struct ctx *c, const struct erase_cmd *cmd, uint64_t size,
			   bool nullify)
{
	char line[sizeof(cmd->target.text) + 48];
	int n;

	if (nullify)
		n = snprintf(line, sizeof(line), "erase %s nullify\n", cmd->target.text);
	else
		n = snprintf(line, sizeof(line), "erase %s size %" PRIu64 "\n", cmd->target.text,
			     size);
	return erase_add_info(c->out, line, (size_t)n, c->err);
}

/* An integer member of @size bytes (little-endian target) at @va. */
static bool read_uint(struct ctx *c, uint64_t va, uint64_t size, uint64_t *ret)
{
	unsigned char b[8] = { 0 };
	struct mdf_err e;

	mdf_err_clear(&e);
	if (size == 0 || size > 8 || readmem_vaddr(c->env->rm, va, b, (size_t)size, &e) != MDF_OK)
		return false;
	*ret = 0;
	for (unsigned i = 0; i < size; i++)
		*ret |= (uint64_t)b[i] << (8 * i);
	return true;
}

/* An integer of the dump (size SYMBOL). */
static enum mdf_status read_size(struct ctx *c, const struct erase_cmd *cmd,
				 const struct obj *base, uint64_t *ret, bool *none)
{
	struct dwarf_type_info ti;
	struct obj o;
	uint64_t v = 0;
	enum mdf_status st = eval(c, cmd->line, &cmd->size_expr, base, &o, none);

	if (st != MDF_OK || *none)
		return st;
	st = describe(c, cmd->line, cmd->size_expr.text, o.t, &ti);
	if (st != MDF_OK)
		return st;
	if (ti.kind != DWARF_T_INT ||
	    (ti.size != 1 && ti.size != 2 && ti.size != 4 && ti.size != 8))
		return bad(c, cmd->line, ": the size is not an integer", cmd->size_expr.text, NULL);
	if (!read_uint(c, o.addr, ti.size, &v)) {
		*none = true;
		return MDF_OK;
	}
	if (ti.is_signed && (v >> (8 * ti.size - 1)) & 1)
		v = 0; /* negative: nothing */
	*ret = v;
	*none = v == 0;
	return MDF_OK;
}

/* The length of the string at @va, up to ERASE_STR_MAX. */
static uint64_t str_len(struct ctx *c, uint64_t va)
{
	unsigned char b[ERASE_STR_MAX];
	struct mdf_err e;
	uint64_t n = 0;

	while (n < ERASE_STR_MAX) {
		uint64_t ps = c->env->rm->page_size, piece = ps - ((va + n) & (ps - 1));

		if (piece > ERASE_STR_MAX - n)
			piece = ERASE_STR_MAX - n;
		mdf_err_clear(&e);
		if (readmem_vaddr(c->env->rm, va + n, b + n, (size_t)piece, &e) != MDF_OK)
			break;
		const unsigned char *z = memchr(b + n, 0, (size_t)piece);

		if (z)
			return (uint64_t)(z - b);
		n += piece;
	}
	return n;
}

/* One erase command, on @base when inside a loop. */
static enum mdf_status run_cmd(struct ctx *c, const struct erase_cmd *cmd, const struct obj *base)
{
	struct dwarf_type_info ti;
	struct obj o;
	bool none;
	uint64_t size = 0, ptr;
	enum mdf_status st = eval(c, cmd->line, &cmd->target, base, &o, &none);

	if (st != MDF_OK)
		return st;
	if (none) {
		c->out->null_skips++;
		return MDF_OK;
	}
	if (o.t.die == UNTYPED && cmd->kind != ERASE_SIZE_VALUE)
		return mdf_err_set(c->err, MDF_ERR_FORMAT,
				   "line %u: %s: its type is not in the dump's BTF (the kernel's BTF "
				   "types per-cpu variables only): give its size ('erase %s size N') "
				   "or -x VMLINUX", cmd->line, cmd->target.text, cmd->target.text);
	st = describe(c, cmd->line, cmd->target.text, o.t, &ti);
	if (st != MDF_OK)
		return st;
	switch (cmd->kind) {
	case ERASE_NULLIFY:
		if (ti.kind != DWARF_T_POINTER)
			return bad(c, cmd->line, ": nullify needs a pointer", cmd->target.text, NULL);
		st = erase_vrange(c, o.addr, ti.size ? ti.size : 8, 0);
		return st == MDF_OK ? say(c, cmd, 0, true) : st;
	case ERASE_SIZE_EXPR:
		st = read_size(c, cmd, base && !strcmp(cmd->size_expr.parts[0], cmd->target.parts[0]) ?
				       base : NULL, &size, &none);
		if (st != MDF_OK)
			return st;
		if (none) {
			c->out->null_skips++;
			return MDF_OK;
		}
		break;
	case ERASE_SIZE_VALUE:
		size = cmd->size;
		break;
	case ERASE_SIZE_TYPE:
		break;
	}
	if (ti.kind == DWARF_T_POINTER) {
		/* What it points at: a size given, a string, or the pointee. */
		struct dwarf_type_info pt;

		if (!read_ptr(c, o.addr, &ptr) || ptr == 0) {
			c->out->null_skips++;
			return MDF_OK;
		}
		st = describe(c, cmd->line, cmd->target.text, ti.target, &pt);
		if (st != MDF_OK)
			return st;
		if (cmd->kind == ERASE_SIZE_TYPE) {
			if (pt.kind == DWARF_T_VOID)
				return bad(c, cmd->line, ": a void pointer needs 'size' or 'nullify'",
					   cmd->target.text, NULL);
			size = pt.is_char ? str_len(c, ptr) : pt.size;
		}
		o.addr = ptr;
	} else if (cmd->kind == ERASE_SIZE_TYPE) {
		size = ti.size;
	}
	if (size == 0)
		return MDF_OK;
	if (size > ERASE_CMD_MAX)
		return mdf_err_set(c->err, MDF_ERR_FORMAT, "line %u: %s: size %" PRIu64
				   " is more than 1 GiB", cmd->line, cmd->target.text, size);
	st = erase_vrange(c, o.addr, size, 'X');
	return st == MDF_OK ? say(c, cmd, size, false) : st;
}

/*
 * An array a loop may walk: @n elements of @size bytes at @va must fit in
 * 64 bits, in the address space and in the dump's memory (its highest
 * pfn's end: no array is larger), and be no more than a loop runs.  A
 * corrupt vmlinux's DWARF length (2^32 and more) ran the loop for hours.
 */
static enum mdf_status check_array(struct ctx *c, const struct erase_loop *l, uint64_t va,
				   uint64_t n, uint64_t size)
{
	const char *vmlinux = c->ty->what;
	uint64_t bytes;

	if (n > UINT64_MAX / size)
		return mdf_err_set(c->err, MDF_ERR_FORMAT,
				   "line %u: %s: %s says %" PRIu64 " elements of %" PRIu64
				   " bytes: the array's size overflows 64 bits", l->line,
				   l->list.text, vmlinux, n, size);
	bytes = n * size;
	if (bytes > c->env->mem_bytes)
		return mdf_err_set(c->err, MDF_ERR_FORMAT,
				   "line %u: %s: %s says %" PRIu64 " elements of %" PRIu64
				   " bytes (0x%" PRIx64 " bytes): more than the memory of %s holds "
				   "(0x%" PRIx64 " bytes)", l->line, l->list.text, vmlinux, n, size,
				   bytes, c->env->vmcore, c->env->mem_bytes);
	if (bytes && va > UINT64_MAX - (bytes - 1))
		return mdf_err_set(c->err, MDF_ERR_FORMAT,
				   "line %u: %s: %s says %" PRIu64 " elements of %" PRIu64
				   " bytes: from 0x%" PRIx64 " they run past the end of the "
				   "address space", l->line, l->list.text, vmlinux, n, size, va);
	if (n > ERASE_LOOP_MAX)
		return mdf_err_set(c->err, MDF_ERR_FORMAT,
				   "line %u: %s: an array of %" PRIu64 " elements: a loop runs at "
				   "most %u times", l->line, l->list.text, n, ERASE_LOOP_MAX);
	return MDF_OK;
}

/* MDF_ERR_INTERRUPTED once a stop signal came: a long loop unwinds by
 * itself, as the dump does between pages, rather than being ended by the
 * stop thread's grace (stop.h). */
static enum mdf_status stopped(struct ctx *c)
{
	return c->env->stop ? stop_check(c->env->stop, c->err) : MDF_OK;
}

/* Loop @cmd's list, running @cmd on each element.  Each command walks
 * the list itself, so that eraseinfo has its lines together, as
 * makedumpfile writes them. */
static enum mdf_status run_loop(struct ctx *c, const struct erase_cmd *cmd)
{
	const struct erase_loop *l = &c->cfg->loops[cmd->loop];
	struct dwarf_type_info ti, et;
	struct obj o, elem;
	bool none;
	uint64_t off = 0, first, cur, n;
	enum mdf_status st = eval(c, l->line, &l->list, NULL, &o, &none);

	if (st != MDF_OK)
		return st;
	if (none)
		return MDF_OK;
	st = describe(c, l->line, l->list.text, o.t, &ti);
	if (st != MDF_OK)
		return st;
	switch (l->kind) {
	case ERASE_LOOP_ARRAY:
		if (ti.kind != DWARF_T_ARRAY)
			return bad(c, l->line, ": not an array of known size", l->list.text, NULL);
		st = describe(c, l->line, l->list.text, ti.target, &et);
		if (st != MDF_OK)
			return st;
		if (!et.size)
			return bad(c, l->line, ": not an array of known size", l->list.text, NULL);
		st = check_array(c, l, o.addr, ti.count, et.size);
		for (n = 0; n < ti.count && st == MDF_OK; n++) {
			elem = (struct obj){ o.addr + n * et.size, ti.target };
			st = stopped(c);
			if (st == MDF_OK)
				st = run_cmd(c, cmd, &elem);
		}
		return st;
	case ERASE_LOOP_VIA: {
		struct dwarf_type mt, st_type = o.t;

		if (ti.kind == DWARF_T_POINTER) {
			if (!read_ptr(c, o.addr, &o.addr) || !o.addr)
				return MDF_OK;
			st_type = ti.target;
		}
		st = member(c, l->line, l->list.text, st_type, l->member, &off, &mt);
		if (st != MDF_OK)
			return st;
		first = cur = o.addr;
		for (n = 0; st == MDF_OK; n++) {
			if (n == ERASE_LOOP_MAX) {
				c->out->loop_cut++;
				break;
			}
			elem = (struct obj){ cur, st_type };
			st = stopped(c);
			if (st == MDF_OK)
				st = run_cmd(c, cmd, &elem);
			if (st != MDF_OK || !read_ptr(c, cur + off, &cur) || !cur || cur == first)
				break;
		}
		return st;
	}
	case ERASE_LOOP_WITHIN: {
		const struct dwarf_query *q = find_name(&c->names, l->struct_name, true);
		struct dwarf_type mt;

		if (!q || !q->found)
			return mdf_err_set(c->err, MDF_ERR_FORMAT,
					   "line %u: %s: no such struct in %s%s", l->line, l->struct_name,
					   c->mod ? "module " : "the vmlinux", c->module);
		st = member(c, l->line, l->struct_name, q->type, l->member, &off, &mt);
		if (st != MDF_OK)
			return st;
		/* list_head.next is its first member. */
		if (!read_ptr(c, o.addr, &cur))
			return MDF_OK;
		for (n = 0; cur && cur != o.addr && st == MDF_OK; n++) {
			if (n == ERASE_LOOP_MAX) {
				c->out->loop_cut++;
				break;
			}
			elem = (struct obj){ cur - off, q->type };
			st = stopped(c);
			if (st == MDF_OK)
				st = run_cmd(c, cmd, &elem);
			if (!read_ptr(c, cur, &cur))
				break;
		}
		return st;
	}
	}
	return MDF_OK;
}

/* ---- modules ---- */

/* The most entries walked in the module list and in a symbol table. */
#define ERASE_MODULES_MAX 100000u
#define ERASE_MODSYMS_MAX 1000000u

static bool same_module_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if ((*a == '-' ? '_' : *a) != (*b == '-' ? '_' : *b))
			return false;
	return *a == *b;
}

/*
 * Find module @name in the dump's module list (the vmlinux's "modules",
 * struct module .list and .name) and its symbol table: mod->kallsyms
 * (struct mod_kallsyms: symtab, num_symtab, strtab), which the module
 * loader keeps since 4.5 (kernel commit 8244062ef1e5, "modules: fix
 * longstanding /proc/kallsyms vs module insertion race").  False with
 * *@why set when it is not loaded or cannot be read.
 */
/* Where struct module and struct mod_kallsyms keep what find_module()
 * reads, and the address of the module list: looked up in the vmlinux
 * once for all module sections (each lookup is a pass over its DWARF). */
static bool module_btf_layout(struct ctx *c, struct modlayout *l)
{
	struct dwarf_query q[2] = { { .name = "btf_module", .is_type = true },
				    { .name = "btf", .is_type = true } };
	const struct erase_types *ty = c->ty;
	struct dwarf_type t;
	struct dwarf_type_info ti;
	struct mdf_err e;
	bool found = false;

	mdf_err_clear(&e);
	if (ty->lookup(ty->arg, q, 2, &e) != MDF_OK || !q[0].found || !q[1].found ||
	    !ty->symbol(ty->arg, "btf_modules", &l->bm_head))
		return false;
	if (!ty->running)
		l->bm_head += c->env->kernel_offset;
#define MEMBER(qi, name, off)                                                          \
	(ty->member(ty->arg, q[qi].type, name, &found, off, &t, &e) == MDF_OK && found)
	return MEMBER(0, "list", &l->o_bm_list) && MEMBER(0, "module", &l->o_bm_mod) &&
	       MEMBER(0, "btf", &l->o_bm_btf) && MEMBER(1, "data", &l->o_data) &&
	       MEMBER(1, "data_size", &l->o_size) &&
	       ty->describe(ty->arg, t, &ti, &e) == MDF_OK && (l->size_size = ti.size) != 0;
#undef MEMBER
}

/* The BTF of the module at @mod, from btf_modules: false when none. */
static bool module_btf(struct ctx *c, uint64_t mod, struct modsyms *ms)
{
	const struct modlayout *l = &c->layout;
	uint64_t node, m, btf;
	unsigned n = 0;

	if (!l->has_btf || !read_ptr(c, l->bm_head, &node))
		return false;
	for (; node && node != l->bm_head && n < ERASE_MODULES_MAX; n++) {
		uint64_t bm = node - l->o_bm_list;

		if (!read_ptr(c, bm + l->o_bm_mod, &m))
			return false;
		if (m == mod)
			return read_ptr(c, bm + l->o_bm_btf, &btf) && btf &&
			       read_ptr(c, btf + l->o_data, &ms->btf) &&
			       read_uint(c, btf + l->o_size, l->size_size, &ms->btf_len);
		if (!read_ptr(c, node, &node))
			return false;
	}
	return false;
}

static bool module_layout(struct ctx *c, const char **why)
{
	struct dwarf_query q[2] = { { .name = "module", .is_type = true },
				    { .name = "mod_kallsyms", .is_type = true } };
	static const struct {
		unsigned q;
		const char *name;
		size_t off;
	} members[] = {
		{ 0, "list", offsetof(struct modlayout, o_list) },
		{ 0, "name", offsetof(struct modlayout, o_name) },
		{ 0, "kallsyms", offsetof(struct modlayout, o_ks) },
		{ 1, "symtab", offsetof(struct modlayout, o_sym) },
		{ 1, "strtab", offsetof(struct modlayout, o_str) },
		{ 1, "num_symtab", offsetof(struct modlayout, o_num) },
	};
	/* the vmlinux section's types: -x's DWARF or the dump's BTF */
	const struct erase_types *ty = c->ty;
	struct modlayout *l = &c->layout;
	struct dwarf_type t = { 0 };
	struct dwarf_type_info ti;
	struct mdf_err e;
	bool found = true;
	enum mdf_status st;

	if (l->tried) {
		*why = l->why;
		return !l->why;
	}
	l->tried = true;
	mdf_err_clear(&e);
	l->why = ty->running ? "the dump's BTF has no struct module or struct mod_kallsyms" :
			       "the vmlinux has no struct module or struct mod_kallsyms";
	st = ty->lookup(ty->arg, q, 2, &e);
	found = st == MDF_OK && q[0].found && q[1].found;
	for (size_t i = 0; found && i < ARRAY_SIZE(members); i++) {
		uint64_t *off = (uint64_t *)((char *)l + members[i].off);

		st = ty->member(ty->arg, q[members[i].q].type, members[i].name, &found, off, &t, &e);
		found = found && st == MDF_OK;
	}
	if (found)
		st = ty->describe(ty->arg, t, &ti, &e);
	if (st != MDF_OK) {
		/* A loop in the vmlinux's types: its message is the reason. */
		mdf_err_keep(&e, l->why_buf, sizeof(l->why_buf));
		l->why = l->why_buf;
	}
	if (st != MDF_OK || !found) {
		*why = l->why;
		return false;
	}
	l->num_size = ti.size;
	/* a module's own BTF (CONFIG_DEBUG_INFO_BTF_MODULES, since 5.11):
	 * struct module's btf_data is freed once the module is loaded, and
	 * the kernel keeps the bytes in its struct btf (data, data_size),
	 * on the list btf_modules of struct btf_module (list, module, btf) */
	l->has_btf = module_btf_layout(c, l);
	mdf_err_clear(&e);
	l->why = "the kernel has no symbol 'modules'";
	if (!ty->symbol(ty->arg, "modules", &l->head)) {
		*why = l->why;
		return false;
	}
	if (!ty->running)
		l->head += c->env->kernel_offset;
	l->why = NULL;
	return true;
}

static bool find_module(struct ctx *c, const char *name, struct modsyms *ms, const char **why)
{
	const struct modlayout *l = &c->layout;
	uint64_t node, ks;
	struct mdf_err e;
	unsigned n = 0;

	if (!module_layout(c, why))
		return false;
	mdf_err_clear(&e);
	*why = "it is not loaded in the dump";
	if (!read_ptr(c, l->head, &node))
		return false;
	for (; node && node != l->head && n < ERASE_MODULES_MAX; n++) {
		char mname[ERASE_NAME_MAX];
		uint64_t mod = node - l->o_list;

		if (readmem_vaddr(c->env->rm, mod + l->o_name, mname, sizeof(mname), &e) != MDF_OK)
			break;
		mname[sizeof(mname) - 1] = '\0';
		if (same_module_name(mname, name)) {
			*why = "its kallsyms cannot be read";
			if (!module_btf(c, mod, ms))
				ms->btf = ms->btf_len = 0;
			return read_ptr(c, mod + l->o_ks, &ks) && ks &&
			       read_ptr(c, ks + l->o_sym, &ms->symtab) &&
			       read_ptr(c, ks + l->o_str, &ms->strtab) &&
			       read_uint(c, ks + l->o_num, l->num_size, &ms->num) &&
			       ms->num <= ERASE_MODSYMS_MAX;
		}
		if (!read_ptr(c, node, &node))
			break;
	}
	return false;
}

/* A module's symbol, by its kallsyms in the dump. */
static bool mod_sym_addr(struct ctx *c, const char *name, uint64_t *ret)
{
	size_t len = strlen(name);

	/* Elf64_Sym: st_shndx at 6, st_value at 8, 24 bytes; a 32-bit
	 * kernel's Elf32_Sym: st_value at 4, st_shndx at 14, 16 bytes */
	const bool w4 = c->env->rm->word_size == 4;
	const size_t symsz = w4 ? 16 : 24;

	for (uint64_t i = 0; i < c->mod->num; i++) {
		unsigned char sym[24];
		char sname[ERASE_NAME_MAX + 1];
		struct mdf_err e;
		uint32_t st_name;

		mdf_err_clear(&e);
		if (readmem_vaddr(c->env->rm, c->mod->symtab + symsz * i, sym, symsz, &e) != MDF_OK)
			return false;
		st_name = load_t32(sym, c->env->rm->big_endian);
		if (st_name == 0 ||
		    load_t16(sym + (w4 ? 14 : 6), c->env->rm->big_endian) == 0 /* SHN_UNDEF */)
			continue;
		if (readmem_vaddr(c->env->rm, c->mod->strtab + st_name, sname, len + 1, &e) != MDF_OK)
			continue;
		if (!memcmp(sname, name, len) && sname[len] == '\0') {
			*ret = w4 ? load_t32(sym + 4, c->env->rm->big_endian)
				  : load_t64(sym + 8, c->env->rm->big_endian);
			return true;
		}
	}
	return false;
}

static int range_cmp(const void *a, const void *b)
{
	const struct erase_range *x = a, *y = b;

	return x->paddr < y->paddr ? -1 : x->paddr > y->paddr;
}

/* The DWARF of a vmlinux or module as the types of a section. */
static enum mdf_status dw_lookup(void *arg, struct dwarf_query *q, size_t n, struct mdf_err *err)
{
	return dwarf_info_lookup(arg, q, n, err);
}

static bool dw_symbol(void *arg, const char *name, uint64_t *addr)
{
	return dwarf_info_symbol(arg, name, addr, NULL);
}

static enum mdf_status dw_describe(void *arg, struct dwarf_type t, struct dwarf_type_info *ti,
				   struct mdf_err *err)
{
	return dwarf_type_describe(arg, t, ti, err);
}

static enum mdf_status dw_member(void *arg, struct dwarf_type t, const char *name, bool *found,
				 uint64_t *off, struct dwarf_type *mt, struct mdf_err *err)
{
	return dwarf_type_member(arg, t, name, found, off, mt, err);
}

static void use_dwarf(struct ctx *c, struct dwarf_info *di)
{
	c->di = di;
	c->dw = (struct erase_types){ .what = dwarf_info_path(di), .arg = di, .lookup = dw_lookup,
				      .symbol = dw_symbol, .describe = dw_describe,
				      .member = dw_member };
	c->ty = &c->dw;
}

/* The dump's own BTF and kallsyms as the types of the vmlinux section. */
static enum mdf_status bt_lookup(void *arg, struct dwarf_query *q, size_t n, struct mdf_err *err)
{
	return kbtf_lookup(((struct erase_dump_types *)arg)->b, q, n, err);
}

static bool bt_symbol(void *arg, const char *name, uint64_t *addr)
{
	return kallsyms_lookup(((struct erase_dump_types *)arg)->ks, name, addr, NULL);
}

static enum mdf_status bt_describe(void *arg, struct dwarf_type t, struct dwarf_type_info *ti,
				   struct mdf_err *err)
{
	return kbtf_describe(((struct erase_dump_types *)arg)->b, t, ti, err);
}

static enum mdf_status bt_member(void *arg, struct dwarf_type t, const char *name, bool *found,
				 uint64_t *off, struct dwarf_type *mt, struct mdf_err *err)
{
	return kbtf_member(((struct erase_dump_types *)arg)->b, t, name, found, off, mt, err);
}

void erase_types_from_dump(struct erase_types *t, struct erase_dump_types *d)
{
	*t = (struct erase_types){ .what = "the dump's BTF", .arg = d, .running = true,
				   .lookup = bt_lookup, .symbol = bt_symbol,
				   .describe = bt_describe, .member = bt_member };
}

/* The vmlinux section's types: -x's DWARF, or the dump's own. */
static void use_vmlinux(struct ctx *c)
{
	if (c->env->types) {
		c->di = NULL;
		c->ty = c->env->types;
	} else {
		use_dwarf(c, c->env->di);
	}
}

/* The commands of one section: vmlinux's, or a loaded module's. */
static enum mdf_status run_section(struct ctx *c, const char *module)
{
	const struct erase_config *cfg = c->cfg;
	struct dwarf_info *mdi = NULL;
	struct modsyms ms;
	struct kbtf mbtf;
	struct erase_dump_types md;
	struct erase_types mty;
	enum mdf_status st = MDF_OK;

	memset(&mbtf, 0, sizeof(mbtf));
	c->module = module;
	use_vmlinux(c);
	c->mod = NULL;
	if (module[0]) {
		const char *why = NULL;
		struct mdf_err e;

		mdf_err_clear(&e);
		if (!c->env->di) {
			/* the dump's own: the module's kallsyms for its symbols,
			 * its split BTF (else the vmlinux's) for types */
			if (!find_module(c, module, &ms, &why) ||
			    (ms.btf && c->env->dump &&
			     kbtf_load_split(&mbtf, c->env->dump->b, ms.btf, ms.btf_len,
					     c->env->rm, &e) != MDF_OK)) {
				if (!c->out->modules_skipped++)
					snprintf(c->out->module_problem,
						 sizeof(c->out->module_problem), "[%.63s]: %.240s",
						 module, why ? why : e.msg);
				kbtf_free(&mbtf);
				return MDF_OK;
			}
			if (mbtf.btf) {
				md = (struct erase_dump_types){ &mbtf, c->env->dump->ks };
				erase_types_from_dump(&mty, &md);
				c->ty = &mty;
			}
			c->mod = &ms;
		} else if (!find_module(c, module, &ms, &why) ||
		    dwarf_info_open_module(c->env->vmlinux, c->env->ki->osrelease, module, &mdi,
					   &e) != MDF_OK) {
			/* As makedumpfile.conf(5): such a section is skipped. */
			if (!c->out->modules_skipped++)
				snprintf(c->out->module_problem, sizeof(c->out->module_problem),
					 "[%.63s]: %.240s", module, why ? why : e.msg);
			return MDF_OK;
		}
		else {
			use_dwarf(c, mdi);
			c->mod = &ms;
		}
	}
	c->names.n = 0;
	st = collect_names(c);
	for (size_t i = 0; st == MDF_OK && i < cfg->ncmds; i++) {
		const struct erase_cmd *cmd = &cfg->cmds[i];

		if (strcmp(cmd->module, module))
			continue;
		st = cmd->loop < 0 ? run_cmd(c, cmd, NULL) : run_loop(c, cmd);
	}
	dwarf_info_close(mdi);
	kbtf_free(&mbtf);
	use_vmlinux(c);
	c->mod = NULL;
	return st;
}

enum mdf_status erase_resolve(const struct erase_config *cfg, const struct erase_env *env,
			      struct erase_set *out, struct mdf_err *err)
{
	struct ctx c = { .cfg = cfg, .env = env, .out = out, .err = err };
	enum mdf_status st = MDF_OK;

	memset(out, 0, sizeof(*out));
	/* Sections in the order they first come. */
	for (size_t i = 0; st == MDF_OK && i < cfg->ncmds; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(cfg->cmds[j].module, cfg->cmds[i].module);
		if (!seen)
			st = run_section(&c, cfg->cmds[i].module);
	}
	free(c.names.q);
	if (st != MDF_OK) {
		erase_set_free(out);
		return st;
	}
	/* Not qsort(NULL, 0, ...): a config that erases nothing has no ranges
	 * (undefined behaviour, and UBSan stops there). */
	if (out->n > 1)
		qsort(out->r, out->n, sizeof(*out->r), range_cmp);
	return MDF_OK;
}

enum mdf_status erase_add_vrange(struct erase_set *es, struct readmem *rm, uint64_t va,
				 uint64_t len, uint8_t fill, struct mdf_err *err)
{
	const struct erase_env env = { .rm = rm };
	struct ctx c = { .env = &env, .out = es, .err = err };

	return erase_vrange(&c, va, len, fill);
}

void erase_sort(struct erase_set *es)
{
	if (es->n > 1)
		qsort(es->r, es->n, sizeof(*es->r), range_cmp);
}

void erase_types_from_dwarf(struct erase_types *t, struct dwarf_info *di)
{
	*t = (struct erase_types){ .what = dwarf_info_path(di), .arg = di, .lookup = dw_lookup,
				   .symbol = dw_symbol, .describe = dw_describe,
				   .member = dw_member };
}

enum mdf_status erase_add_info(struct erase_set *es, const char *text, size_t len,
			       struct mdf_err *err)
{
	if (es->info_len + len + 1 > es->info_cap) {
		size_t cap = (es->info_len + len + 1) * 2;
		char *p = realloc(es->info, cap);

		if (!p)
			return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
		es->info = p;
		es->info_cap = cap;
	}
	memcpy(es->info + es->info_len, text, len);
	es->info_len += len;
	es->info[es->info_len] = '\0';
	return MDF_OK;
}

bool erase_apply(const struct erase_set *es, uint64_t paddr, size_t size,
		 const unsigned char *src, unsigned char *buf)
{
	size_t lo = 0, hi = es->n;
	bool copied = false;

	/* The first range that ends after @paddr; ranges are sorted by
	 * start and none is longer than a page (erase_vrange), so one that
	 * starts up to a page before may still reach in. */
	uint64_t from = paddr >= size ? paddr - size : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->r[mid].paddr < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < es->n && es->r[i].paddr < paddr + size; i++) {
		const struct erase_range *r = &es->r[i];
		uint64_t s = MDF_MAX(r->paddr, paddr), e = MDF_MIN(r->paddr + r->len, paddr + size);

		if (s >= e)
			continue;
		if (!copied) {
			memcpy(buf, src, size);
			copied = true;
		}
		memset(buf + (s - paddr), r->fill, (size_t)(e - s));
	}
	return copied;
}

void erase_set_free(struct erase_set *es)
{
	free(es->r);
	free(es->info);
	memset(es, 0, sizeof(*es));
}
