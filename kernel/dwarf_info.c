/*
 * dwarf_info.c - a debug vmlinux's answers to the kinfo vocabulary
 * (dwarf_info.h), through libelf and libdw.
 */
#include "files.h"
#include "kernel/dwarf_info.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <dirent.h>
#include <elfutils/libdwfl.h>
#include <limits.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernel/vmcoreinfo.h"
#include "util.h"

struct dwarf_info {
	const char *path;
	char *own_path;         /* a module's, found by the search */
	int fd;
	Elf *elf;
	Dwarf *dw;
	Dwfl *dwfl;             /* a module's: owns elf and dw */
};

/* ---- the wanted names ---- */

/* What a name is wanted as. */
enum {
	DW_W_TYPE = 1 << 0,     /* struct, union or enum of that name */
	DW_W_TYPEDEF = 1 << 1,  /* typedef of that name */
	DW_W_VAR = 1 << 2,      /* a variable */
};

struct dw_want {
	char name[48];
	uint8_t kinds;          /* DW_W_* wanted */
	uint8_t found;          /* DW_W_* found */
	uint8_t var_rank;       /* of the variable DIE kept: 2 definition,
				   1 bounded declaration, 0 declaration */
	bool found_decl;        /* only declarations so far */
	Dwarf_Off type_off, typedef_off, var_off;
};

/* Open addressing over a power-of-two table; the names are few (~120). */
#define DW_WANT_SLOTS 512

struct dw_wants {
	struct dw_want w[DW_WANT_SLOTS];
	bool used[DW_WANT_SLOTS];
	size_t n, open;         /* names, names with kinds not all found */
};

static uint32_t dw_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static struct dw_want *dw_want_find(struct dw_wants *ws, const char *name, size_t n)
{
	if (n >= sizeof(ws->w[0].name))
		return NULL;
	for (uint32_t i = dw_hash(name, n);; i++) {
		size_t slot = i & (DW_WANT_SLOTS - 1);

		if (!ws->used[slot])
			return NULL;
		if (!strncmp(ws->w[slot].name, name, n) && ws->w[slot].name[n] == '\0')
			return &ws->w[slot];
	}
}

static void dw_want_add(struct dw_wants *ws, const char *name, size_t n, uint8_t kinds)
{
	struct dw_want *w = dw_want_find(ws, name, n);

	if (n == 0 || n >= sizeof(ws->w[0].name))
		return;
	if (!w) {
		if (ws->n >= DW_WANT_SLOTS / 2)
			return; /* never with the kinfo lists: checked by the unit test */
		uint32_t i = dw_hash(name, n);

		while (ws->used[i & (DW_WANT_SLOTS - 1)])
			i++;
		w = &ws->w[i & (DW_WANT_SLOTS - 1)];
		ws->used[i & (DW_WANT_SLOTS - 1)] = true;
		memcpy(w->name, name, n);
		w->name[n] = '\0';
		ws->n++;
		ws->open++;
	}
	w->kinds |= kinds;
}

/* A name is done when its variable (if wanted) and its type - tagged or
 * typedef, either will do - (if wanted) are found. */
static bool dw_want_done(const struct dw_want *w)
{
	uint8_t types = DW_W_TYPE | DW_W_TYPEDEF;

	if ((w->kinds & DW_W_VAR) && !(w->found & DW_W_VAR))
		return false;
	return !(w->kinds & types) || (w->found & types);
}

/* A variable DIE is kept: its definition, or a declaration. */
static bool dw_var_known(const struct dw_want *w)
{
	return (w->found & DW_W_VAR) || w->found_decl;
}

static void dw_want_found(struct dw_wants *ws, struct dw_want *w, uint8_t kind)
{
	bool was_open = !dw_want_done(w);

	w->found |= kind;
	if (was_open && dw_want_done(w))
		ws->open--;
}

/*
 * NUMBER() keys that are enumerators, with the enum that holds them: the
 * name alone is not enough, since 6.10's enum pagetype reused PG_slab,
 * PG_buddy and PG_hugetlb as masks (kernel commit 46df8e73a4a3 "mm: free
 * up PG_slab") while enum pageflags holds bit numbers.
 */
static const struct {
	const char *key, *enum_name;
} dw_enum_keys[] = {
	{ "PG_lru", "pageflags" },
	{ "PG_private", "pageflags" },
	{ "PG_head", "pageflags" },
	{ "PG_swapcache", "pageflags" },
	{ "PG_swapbacked", "pageflags" },
	{ "PG_slab", "pageflags" },
	{ "PG_buddy", "pageflags" },
	{ "PG_hwpoison", "pageflags" },
	{ "PG_hugetlb", "pageflags" },
	{ "PG_offline", "pageflags" },
	{ "NR_FREE_PAGES", "zone_stat_item" },
	{ "N_ONLINE", "node_states" },
	{ "HUGETLB_PAGE_DTOR", "compound_dtor_id" },
};

/*
 * The page-type markers in page._mapcount (page_type) of free, offline,
 * slab, hugetlb and unaccepted pages, from enum pagetype when the kernel
 * has it: until 6.11 its PG_ values are masks and the marker is ~mask
 * (6.10, kernel commit 46df8e73a4a3 "mm: free up PG_slab", added PG_slab
 * there); since 6.12 its PGTY_ values sit in the top byte, the marker is
 * PGTY << 24 (the 6.12 fixture's note: PAGE_BUDDY_MAPCOUNT_VALUE =
 * -268435456 = 0xf0 << 24).  Older kernels have macros: not in DWARF.
 */
static const struct {
	const char *key, *pgty, *pg;
} dw_page_types[] = {
	{ "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)", "PGTY_buddy", "PG_buddy" },
	{ "NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)", "PGTY_offline", "PG_offline" },
	{ "NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)", "PGTY_slab", "PG_slab" },
	{ "NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)", "PGTY_hugetlb", "PG_hugetlb" },
	{ "NUMBER(PAGE_UNACCEPTED_MAPCOUNT_VALUE)", "PGTY_unaccepted", "PG_unaccepted" },
};

/*
 * LENGTH() keys that are not "variable" or "struct.member": the kernel
 * writes the size of dev_printk_info's two strings under these names
 * (kernel/printk/printk.c, 5.10).
 */
static const struct {
	const char *key, *path;
} dw_length_alias[] = {
	{ "printk_info_subsystem", "dev_printk_info.subsystem" },
	{ "printk_info_device", "dev_printk_info.device" },
};

static const char *dw_length_path(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(dw_length_alias); i++)
		if (!strcmp(dw_length_alias[i].key, key))
			return dw_length_alias[i].path;
	return key;
}

/* "type.member": want the type. */
static void dw_want_path(struct dw_wants *ws, const char *path)
{
	const char *dot = strchr(path, '.');

	if (dot)
		dw_want_add(ws, path, (size_t)(dot - path), DW_W_TYPE | DW_W_TYPEDEF);
	else
		dw_want_add(ws, path, strlen(path), DW_W_VAR);
}

#define DW_WANT_SIZE(ident, key) \
	dw_want_add(ws, key, sizeof(key) - 1, DW_W_TYPE | DW_W_TYPEDEF);
#define DW_WANT_OFFSET(ident, key) dw_want_path(ws, key);
#define DW_WANT_LENGTH(ident, key) dw_want_path(ws, dw_length_path(key));
#define DW_WANT_SRCFILE(ident, key) dw_want_add(ws, key, sizeof(key) - 1, DW_W_TYPEDEF);

static void dw_wants_kinfo(struct dw_wants *ws)
{
	KINFO_SIZES(DW_WANT_SIZE)
	KINFO_OFFSETS(DW_WANT_OFFSET)
	KINFO_LENGTHS(DW_WANT_LENGTH)
	KINFO_SRCFILES(DW_WANT_SRCFILE)
	for (size_t i = 0; i < ARRAY_SIZE(dw_enum_keys); i++)
		dw_want_add(ws, dw_enum_keys[i].enum_name, strlen(dw_enum_keys[i].enum_name),
			    DW_W_TYPE);
	/* The release string's place in init_uts_ns, and the mem_section
	 * variable's type. */
	dw_want_add(ws, "pagetype", 8, DW_W_TYPE);
	dw_want_add(ws, "uts_namespace", 13, DW_W_TYPE);
	dw_want_add(ws, "new_utsname", 11, DW_W_TYPE);
	dw_want_add(ws, "mem_section", 11, DW_W_VAR);
	/* i386: PAE or not (the kernel's CONFIG_X86_PAE=y), arm: LPAE or not
	 * (CONFIG_ARM_LPAE=y), by its pte_t */
	dw_want_add(ws, "pte_t", 5, DW_W_TYPE | DW_W_TYPEDEF);
}

#undef DW_WANT_SIZE
#undef DW_WANT_OFFSET
#undef DW_WANT_LENGTH
#undef DW_WANT_SRCFILE

/* ---- the pass over the compilation units ---- */

static bool dw_is_decl(Dwarf_Die *die)
{
	bool flag = false;
	Dwarf_Attribute a;

	if (dwarf_attr(die, DW_AT_declaration, &a))
		(void)dwarf_formflag(&a, &flag);
	return flag;
}

/* ---- walks over the type graph ---- */

/*
 * Every walk over types is bounded.  A compiler never makes the graph
 * loop, but a corrupt or hostile vmlinux can: a struct whose anonymous
 * member is of its own type, a typedef of itself, an array of itself.
 * The limits lie far above a real kernel's (Debian's 6.1 vmlinux, its 3
 * million type DIEs, each struct searched for a member it lacks: typedef
 * and qualifier chains of 6 at most, anonymous members 4 deep, no array
 * of arrays - a multi-dimensional array is one DIE -, under 300 members
 * looked at), and reaching one is an error naming the file, the type and
 * the limit: neither a crash nor an answer "absent".  libdw's dwarf_peel_type() and dwarf_aggregate_size()
 * are bounded too, but fail with the same -1 as for a missing type, and
 * the latter multiplies an array's size without an overflow check: they
 * are not used.
 */
#define DW_PEEL_MAX 64          /* typedefs and qualifiers in a row */
#define DW_ORIGIN_MAX 16        /* DW_AT_specification/abstract_origin links */
#define DW_NEST_MAX 32          /* anonymous members inside each other */
#define DW_ARRAY_MAX 32         /* arrays of arrays */
#define DW_MEMBERS_MAX 65536u   /* members looked at by one lookup */

/* One lookup: where it started (for messages), what it has cost. */
struct dw_walk {
	const char *path;       /* the vmlinux */
	char what[96];          /* "of NAME", or "at DIE 0xOFF" */
	unsigned members;       /* members looked at */
	struct mdf_err *err;
};

static void dw_walk_init(struct dw_walk *w, const struct dwarf_info *di, struct mdf_err *err)
{
	w->path = di->path;
	w->what[0] = '\0';
	w->members = 0;
	w->err = err;
}

/* The lookup is of the type or variable @name (@n bytes). */
static void dw_walk_about(struct dw_walk *w, const char *name, size_t n)
{
	snprintf(w->what, sizeof(w->what), "of %.*s", (int)(n > 80 ? 80 : n), name);
}

/* The lookup starts at @die: its name, else where it is. */
static void dw_walk_about_die(struct dw_walk *w, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);

	if (name)
		dw_walk_about(w, name, strlen(name));
	else
		snprintf(w->what, sizeof(w->what), "at DIE 0x%llx",
			 (unsigned long long)dwarf_dieoffset(die));
}

/* "VMLINUX: DWARF type of page: WHY", with " (a cycle in the type
 * graph?)" after a limit. */
static enum mdf_status MDF_PRINTF(3, 4) dw_fail(const struct dw_walk *w, bool limit,
						const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return mdf_err_set(w->err, MDF_ERR_FORMAT, "%s: DWARF type %s: %s%s", w->path, w->what,
			   why, limit ? " (a cycle in the type graph?)" : "");
}

/* Tags that only rename or qualify the type they refer to. */
static bool dw_is_alias(int tag)
{
	switch (tag) {
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_immutable_type:
	case DW_TAG_packed_type:
	case DW_TAG_shared_type:
		return true;
	default:
		return false;
	}
}

static bool dw_is_type(int tag)
{
	switch (tag) {
	case DW_TAG_array_type:
	case DW_TAG_class_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_string_type:
	case DW_TAG_structure_type:
	case DW_TAG_subroutine_type:
	case DW_TAG_union_type:
	case DW_TAG_ptr_to_member_type:
	case DW_TAG_set_type:
	case DW_TAG_subrange_type:
	case DW_TAG_base_type:
	case DW_TAG_unspecified_type:
		return true;
	default:
		return dw_is_alias(tag);
	}
}

/*
 * The type @die refers to (DW_AT_type, through the declaration a
 * definition completes: DW_AT_specification, DW_AT_abstract_origin).
 * *@found false: none (void), or a reference that leads nowhere.
 */
static enum mdf_status dw_type_of(const struct dw_walk *w, Dwarf_Die *die, Dwarf_Die *ret,
				  bool *found)
{
	Dwarf_Die d = *die;
	Dwarf_Attribute a;

	*found = false;
	for (unsigned n = 0;; n++) {
		if (dwarf_attr(&d, DW_AT_type, &a)) {
			*found = dwarf_formref_die(&a, ret) != NULL;
			return MDF_OK;
		}
		if (!dwarf_attr(&d, DW_AT_specification, &a) &&
		    !dwarf_attr(&d, DW_AT_abstract_origin, &a))
			return MDF_OK;
		if (n == DW_ORIGIN_MAX)
			return dw_fail(w, true, "more than %d DW_AT_specification or "
				       "DW_AT_abstract_origin links in a row", DW_ORIGIN_MAX);
		if (!dwarf_formref_die(&a, &d))
			return MDF_OK;
	}
}

/* @type without its typedefs and qualifiers; an alias of nothing (void)
 * stays an alias. */
static enum mdf_status dw_peel(const struct dw_walk *w, Dwarf_Die *type, Dwarf_Die *ret)
{
	*ret = *type;
	for (unsigned n = 0; dw_is_alias(dwarf_tag(ret)); n++) {
		Dwarf_Die next;
		bool found;
		enum mdf_status st;

		if (n == DW_PEEL_MAX)
			return dw_fail(w, true, "more than %d typedefs and qualifiers in a row",
				       DW_PEEL_MAX);
		st = dw_type_of(w, ret, &next, &found);
		if (st != MDF_OK || !found)
			return st;
		*ret = next;
	}
	return MDF_OK;
}

/* The next sibling of @d into @d (*@more false at the end); an error for
 * DWARF that libdw cannot walk (a sibling link that points back, ...). */
static enum mdf_status dw_next(const struct dw_walk *w, Dwarf_Die *d, bool *more)
{
	int r = dwarf_siblingof(d, d);

	*more = r == 0;
	if (r < 0)
		return mdf_err_set(w->err, MDF_ERR_FORMAT, "%s: DWARF type %s: %s", w->path,
				   w->what, dwarf_errmsg(-1));
	return MDF_OK;
}

/*
 * The number of elements of array @arr: its first dimension's
 * (@first_only: LENGTH(), as the kernel's ARRAY_SIZE()), or of all its
 * dimensions together.  *@found false when a bound is not known ("T x[]").
 */
static enum mdf_status dw_array_count(const struct dw_walk *w, Dwarf_Die *arr, bool first_only,
				      uint64_t *ret, bool *found)
{
	Dwarf_Die sub;
	uint64_t total = 1;
	bool more, any = false;
	enum mdf_status st;

	*found = false;
	if (dwarf_child(arr, &sub) != 0)
		return MDF_OK;
	do {
		Dwarf_Attribute a;
		Dwarf_Word v, lo = 0, n;

		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			return MDF_OK; /* enumeration_type dimensions: not C */
		if (dwarf_attr(&sub, DW_AT_count, &a)) {
			if (dwarf_formudata(&a, &n) != 0)
				return MDF_OK;
		} else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) &&
			   dwarf_formudata(&a, &v) == 0 && v != UINT64_MAX) {
			if (dwarf_attr(&sub, DW_AT_lower_bound, &a))
				(void)dwarf_formudata(&a, &lo);
			if (v + 1 < lo)
				return MDF_OK;
			n = v + 1 - lo;
		} else {
			return MDF_OK;
		}
		if (first_only) {
			*ret = n;
			*found = true;
			return MDF_OK;
		}
		if (n && total > UINT64_MAX / n)
			return dw_fail(w, false, "an array of %llu x %llu elements: its length "
				       "overflows 64 bits", (unsigned long long)total,
				       (unsigned long long)n);
		total *= n;
		any = true;
		st = dw_next(w, &sub, &more);
		if (st != MDF_OK)
			return st;
	} while (more);
	*ret = total;
	*found = any;
	return MDF_OK;
}

/* LENGTH(): the first dimension of @type, an array (peeled). */
static enum mdf_status dw_array_len(const struct dw_walk *w, Dwarf_Die *type, uint64_t *len_ret,
				    bool *found)
{
	Dwarf_Die t;
	enum mdf_status st = dw_peel(w, type, &t);

	*found = false;
	if (st != MDF_OK || dwarf_tag(&t) != DW_TAG_array_type)
		return st;
	return dw_array_count(w, &t, true, len_ret, found);
}

/*
 * The size of @type in bytes: its DW_AT_byte_size, a pointer's address
 * size, or an array's elements times their number (@depth: arrays of
 * arrays so far).  *@found false when DWARF does not say.
 */
static enum mdf_status dw_type_size(const struct dw_walk *w, Dwarf_Die *type, unsigned depth,
				    uint64_t *ret, bool *found)
{
	Dwarf_Die t, elem, cu;
	Dwarf_Attribute a;
	Dwarf_Word v = 0;
	uint64_t esize, n, stride;
	uint8_t asize;
	enum mdf_status st = dw_peel(w, type, &t);

	*found = false;
	if (st != MDF_OK)
		return st;
	if (dwarf_attr(&t, DW_AT_byte_size, &a)) {
		*found = dwarf_formudata(&a, &v) == 0;
		if (*found)
			*ret = v;
		return MDF_OK;
	}
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		if (dwarf_diecu(&t, &cu, &asize, NULL)) {
			*ret = asize;
			*found = true;
		}
		return MDF_OK;
	case DW_TAG_array_type:
		break;
	default:
		return MDF_OK;
	}
	if (depth >= DW_ARRAY_MAX)
		return dw_fail(w, true, "arrays of arrays nested deeper than %d levels",
			       DW_ARRAY_MAX);
	st = dw_type_of(w, &t, &elem, found);
	if (st == MDF_OK && *found)
		st = dw_type_size(w, &elem, depth + 1, &esize, found);
	if (st != MDF_OK || !*found)
		return st;
	stride = esize;
	if (dwarf_attr(&t, DW_AT_byte_stride, &a)) {
		*found = dwarf_formudata(&a, &stride) == 0;
	} else if (dwarf_attr(&t, DW_AT_bit_stride, &a)) {
		*found = dwarf_formudata(&a, &v) == 0 && v % 8 == 0;
		stride = v / 8;
	}
	if (*found)
		st = dw_array_count(w, &t, false, &n, found);
	if (st != MDF_OK || !*found)
		return st;
	if (stride && n > UINT64_MAX / stride)
		return dw_fail(w, false, "an array of %llu elements of %llu bytes: its size "
			       "overflows 64 bits", (unsigned long long)n,
			       (unsigned long long)stride);
	*ret = n * stride;
	return MDF_OK;
}

static bool dw_member_loc(Dwarf_Die *m, uint64_t *off_ret)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if (!dwarf_attr(m, DW_AT_data_member_location, &a)) {
		*off_ret = 0; /* union members */
		return true;
	}
	if (dwarf_formudata(&a, &v) != 0)
		return false; /* a location expression: not in C */
	*off_ret = v;
	return true;
}

/*
 * Member @name of struct/union @type, searched through anonymous members
 * (@depth of them around it so far): its offset added to *@off, its type
 * into *@mtype.
 */
static enum mdf_status dw_member(struct dw_walk *w, Dwarf_Die *type, const char *name,
				 unsigned depth, bool *found, uint64_t *off, Dwarf_Die *mtype)
{
	Dwarf_Die t, m;
	bool more;
	enum mdf_status st;

	*found = false;
	if (depth > DW_NEST_MAX)
		return dw_fail(w, true, "anonymous member nesting deeper than %d levels",
			       DW_NEST_MAX);
	st = dw_peel(w, type, &t);
	if (st != MDF_OK)
		return st;
	if (dwarf_tag(&t) != DW_TAG_structure_type && dwarf_tag(&t) != DW_TAG_union_type)
		return MDF_OK;
	if (dwarf_child(&t, &m) != 0)
		return MDF_OK;
	do {
		uint64_t moff;
		const char *mn;

		if (++w->members > DW_MEMBERS_MAX)
			return dw_fail(w, true, "more than %u members searched for '%.64s'",
				       DW_MEMBERS_MAX, name);
		if (dwarf_tag(&m) == DW_TAG_member && dw_member_loc(&m, &moff)) {
			mn = dwarf_diename(&m);
			if (mn && !strcmp(mn, name)) {
				st = dw_type_of(w, &m, mtype, found);
				if (st == MDF_OK && *found)
					*off += moff;
				return st;
			}
			if (!mn) {
				Dwarf_Die anon;
				uint64_t sub = 0;
				bool has;

				st = dw_type_of(w, &m, &anon, &has);
				if (st == MDF_OK && has)
					st = dw_member(w, &anon, name, depth + 1, found, &sub,
						       mtype);
				if (st != MDF_OK)
					return st;
				if (*found) {
					*off += moff + sub;
					return MDF_OK;
				}
			}
		}
		st = dw_next(w, &m, &more);
		if (st != MDF_OK)
			return st;
	} while (more);
	return MDF_OK;
}

static void dw_visit(const struct dwarf_info *di, struct dw_wants *ws, Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	uint8_t kind;

	switch (tag) {
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		kind = DW_W_TYPE;
		break;
	case DW_TAG_typedef:
		kind = DW_W_TYPEDEF;
		break;
	case DW_TAG_variable:
		kind = DW_W_VAR;
		break;
	default:
		return;
	}
	const char *name = dwarf_diename(die);

	if (!name)
		return;
	struct dw_want *w = dw_want_find(ws, name, strlen(name));

	if (!w || !(w->kinds & kind))
		return;
	if (kind == DW_W_VAR) {
		/* The definition, else a declaration with an array bound, else
		 * any declaration ("extern T x[];" has no bound); the name is
		 * done once its definition is seen. */
		Dwarf_Die type;
		uint64_t len;
		bool def = !dw_is_decl(die), bounded = false, typed;
		struct dw_walk wk;
		struct mdf_err ignored;

		/* Only a ranking: a loop in the type is told by the lookup. */
		mdf_err_clear(&ignored);
		dw_walk_init(&wk, di, &ignored);
		if (!def && dw_type_of(&wk, die, &type, &typed) == MDF_OK && typed &&
		    dw_array_len(&wk, &type, &len, &bounded) != MDF_OK)
			bounded = false;
		int rank = def ? 2 : bounded ? 1 : 0;

		if (dw_var_known(w) && rank <= w->var_rank)
			return;
		w->var_off = dwarf_dieoffset(die);
		w->var_rank = (uint8_t)rank;
		if (def)
			dw_want_found(ws, w, DW_W_VAR);
		else
			w->found_decl = true;
		return;
	}
	if ((w->found & kind) || dw_is_decl(die))
		return;
	if (kind == DW_W_TYPE)
		w->type_off = dwarf_dieoffset(die);
	else
		w->typedef_off = dwarf_dieoffset(die);
	dw_want_found(ws, w, kind);
}

/* The bytes of section @name inside libelf's map of the file, or NULL. */
static const uint8_t *dw_section_map(struct dwarf_info *di, const char *name, size_t *len_ret)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(di->elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(di->elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(di->elf, shstrndx, sh.sh_name)) ||
		    strcmp(n, name))
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf)
			return NULL;
		*len_ret = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

/* Give back the pages of .debug_info the pass has left behind: the file
 * is mapped, and every page it touched would stay in the RSS (174 MB of
 * the 6.1 vmlinux).  The few DIEs looked at later fault back in. */
#define DW_DROP_STEP (8u << 20)

static void dw_drop_behind(const uint8_t *base, size_t len, uint64_t done, uint64_t *dropped)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo, hi;

	if (!base || done > len || done - *dropped < DW_DROP_STEP)
		return;
	/* done <= len: both fit in the address space */
	lo = ((uintptr_t)base + (uintptr_t)*dropped + page - 1) & ~(page - 1);
	hi = ((uintptr_t)base + (uintptr_t)done) & ~(page - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
	*dropped = done;
}

/* One pass over the top-level DIEs of every unit, until all is found. */
static enum mdf_status dw_scan(struct dwarf_info *di, struct dw_wants *ws,
			       struct mdf_err *err)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, die;
	uint8_t unit_type;
	Dwarf_Half version;
	size_t info_len = 0;
	const uint8_t *info = dw_section_map(di, ".debug_info", &info_len);
	uint64_t dropped = 0;
	int r;

	while (ws->open > 0 &&
	       (r = dwarf_get_units(di->dw, cu, &cu, &version, &unit_type, &cudie, NULL)) == 0) {
		dw_drop_behind(info, info_len, dwarf_dieoffset(&cudie), &dropped);
		if (dwarf_child(&cudie, &die) != 0)
			continue;
		do {
			dw_visit(di, ws, &die);
		} while ((r = dwarf_siblingof(&die, &die)) == 0);
		/* libdw refuses a DW_AT_sibling that points back (a loop). */
		if (r < 0)
			return mdf_err_set(err, MDF_ERR_FORMAT, "%s: DWARF: the DIE after 0x%llx: %s",
					   di->path, (unsigned long long)dwarf_dieoffset(&die),
					   dwarf_errmsg(-1));
	}
	return MDF_OK;
}

/* ---- answers ---- */

static bool dw_die(struct dwarf_info *di, Dwarf_Off off, Dwarf_Die *ret)
{
	return dwarf_offdie(di->dw, off, ret) != NULL;
}

/* The struct (or union, enum) named @name (@n bytes), else its typedef,
 * peeled; *@found false if there is neither. */
static enum mdf_status dw_named_type(const struct dw_walk *w, struct dwarf_info *di,
				     struct dw_wants *ws, const char *name, size_t n,
				     Dwarf_Die *ret, bool *found)
{
	struct dw_want *want = dw_want_find(ws, name, n);
	Dwarf_Die t;
	enum mdf_status st;

	*found = false;
	if (!want)
		return MDF_OK;
	if (want->found & DW_W_TYPE) {
		*found = dw_die(di, want->type_off, ret);
		return MDF_OK;
	}
	if (!(want->found & DW_W_TYPEDEF) || !dw_die(di, want->typedef_off, &t))
		return MDF_OK;
	st = dw_peel(w, &t, ret);
	*found = st == MDF_OK && !dw_is_alias(dwarf_tag(ret));
	return st;
}

/* "type.member": its offset and type; *@found false if either is not
 * there.  @w names the type. */
static enum mdf_status dw_path(struct dw_walk *w, struct dwarf_info *di, struct dw_wants *ws,
			       const char *path, uint64_t *off_ret, Dwarf_Die *mtype,
			       bool *found)
{
	const char *dot = strchr(path, '.');
	Dwarf_Die t;
	enum mdf_status st;

	*found = false;
	if (!dot)
		return MDF_OK;
	dw_walk_about(w, path, (size_t)(dot - path));
	st = dw_named_type(w, di, ws, path, (size_t)(dot - path), &t, found);
	if (st != MDF_OK || !*found)
		return st;
	*off_ret = 0;
	return dw_member(w, &t, dot + 1, 0, found, off_ret, mtype);
}

static enum mdf_status dw_offset(struct dwarf_info *di, struct dw_wants *ws, const char *key,
				 struct kinfo_u64 *out, struct mdf_err *err)
{
	struct dw_walk w;
	Dwarf_Die t;
	uint64_t off;
	bool found;
	enum mdf_status st;

	dw_walk_init(&w, di, err);
	st = dw_path(&w, di, ws, key, &off, &t, &found);
	if (st == MDF_OK && found) {
		out->v = off;
		out->set = true;
	}
	return st;
}

static enum mdf_status dw_size(struct dwarf_info *di, struct dw_wants *ws, const char *name,
			       struct kinfo_u64 *out, struct mdf_err *err)
{
	struct dw_walk w;
	Dwarf_Die t;
	uint64_t size;
	bool found;
	enum mdf_status st;

	dw_walk_init(&w, di, err);
	dw_walk_about(&w, name, strlen(name));
	st = dw_named_type(&w, di, ws, name, strlen(name), &t, &found);
	if (st == MDF_OK && found)
		st = dw_type_size(&w, &t, 0, &size, &found);
	if (st == MDF_OK && found) {
		out->v = size;
		out->set = true;
	}
	return st;
}

static enum mdf_status dw_length(struct dwarf_info *di, struct dw_wants *ws, const char *key,
				 struct kinfo_u64 *out, struct mdf_err *err)
{
	const char *path = dw_length_path(key);
	struct dw_walk w;
	struct dw_want *want;
	Dwarf_Die d, t;
	uint64_t off, len;
	bool found = false;
	enum mdf_status st = MDF_OK;

	dw_walk_init(&w, di, err);
	if (strchr(path, '.')) {
		st = dw_path(&w, di, ws, path, &off, &t, &found);
	} else {
		dw_walk_about(&w, path, strlen(path));
		want = dw_want_find(ws, path, strlen(path));
		if (want && dw_var_known(want) && dw_die(di, want->var_off, &d))
			st = dw_type_of(&w, &d, &t, &found);
	}
	if (st == MDF_OK && found)
		st = dw_array_len(&w, &t, &len, &found);
	if (st == MDF_OK && found) {
		out->v = len;
		out->set = true;
	}
	return st;
}

/* Enumerator @name of enum @enum_name; *@found false if not there. */
static enum mdf_status dw_enumerator(struct dwarf_info *di, struct dw_wants *ws,
				     const char *enum_name, const char *name, int64_t *ret,
				     bool *found, struct mdf_err *err)
{
	struct dw_walk w;
	Dwarf_Die t, e;
	bool more;
	enum mdf_status st;

	dw_walk_init(&w, di, err);
	dw_walk_about(&w, enum_name, strlen(enum_name));
	st = dw_named_type(&w, di, ws, enum_name, strlen(enum_name), &t, found);
	if (st != MDF_OK || !*found)
		return st;
	*found = false;
	if (dwarf_tag(&t) != DW_TAG_enumeration_type || dwarf_child(&t, &e) != 0)
		return MDF_OK;
	do {
		const char *n = dwarf_diename(&e);
		Dwarf_Attribute a;
		Dwarf_Sword sv;
		Dwarf_Word uv;

		if (dwarf_tag(&e) == DW_TAG_enumerator && n && !strcmp(n, name)) {
			if (!dwarf_attr(&e, DW_AT_const_value, &a))
				return MDF_OK;
			if (dwarf_whatform(&a) == DW_FORM_sdata) {
				*found = dwarf_formsdata(&a, &sv) == 0;
				if (*found)
					*ret = sv;
			} else {
				*found = dwarf_formudata(&a, &uv) == 0;
				if (*found)
					*ret = (int64_t)uv;
			}
			return MDF_OK;
		}
		st = dw_next(&w, &e, &more);
		if (st != MDF_OK)
			return st;
	} while (more);
	return MDF_OK;
}

static bool dw_srcfile(struct dwarf_info *di, struct dw_wants *ws, const char *name,
		       char *buf, size_t cap)
{
	struct dw_want *w = dw_want_find(ws, name, strlen(name));
	Dwarf_Die d;
	const char *f;

	if (!w || !(w->found & DW_W_TYPEDEF) || !dw_die(di, w->typedef_off, &d))
		return false;
	f = dwarf_decl_file(&d);
	if (!f)
		return false;
	while (f[0] == '.' && f[1] == '/')
		f += 2;
	if (strlen(f) >= cap || strchr(f, '\n'))
		return false;
	strcpy(buf, f);
	return true;
}

/* ---- ELF: symbols, build-id, section bytes ---- */

/* @fn on every defined symbol of the symbol table, until it says stop. */
typedef bool (*dw_sym_fn)(void *arg, const char *name, const GElf_Sym *s);

static void dw_each_symbol(struct dwarf_info *di, dw_sym_fn fn, void *arg)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(di->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(s.st_info) == STT_SECTION ||
			    GELF_ST_TYPE(s.st_info) == STT_FILE)
				continue;
			n = elf_strptr(di->elf, sh.sh_link, s.st_name);
			if (n && n[0] && !fn(arg, n, &s))
				return;
		}
	}
}

/* A symbol of a name: the first global one, else the first local one. */
struct dw_sym_want {
	const char *name;
	uint64_t addr, size;
	bool found, global;
};

static bool dw_sym_take(struct dw_sym_want *w, const GElf_Sym *s)
{
	bool global = GELF_ST_BIND(s->st_info) == STB_GLOBAL;

	if (w->global || (w->found && !global))
		return false;
	w->addr = s->st_value;
	w->size = s->st_size;
	w->found = true;
	w->global = global;
	return true;
}

static bool dw_one_symbol(void *arg, const char *name, const GElf_Sym *s)
{
	struct dw_sym_want *w = arg;

	if (!strcmp(name, w->name))
		(void)dw_sym_take(w, s);
	return !w->global;
}

bool dwarf_info_symbol(struct dwarf_info *di, const char *name, uint64_t *addr_ret,
		       uint64_t *size_ret)
{
	struct dw_sym_want w = { .name = name };

	dw_each_symbol(di, dw_one_symbol, &w);
	if (w.found) {
		if (addr_ret)
			*addr_ret = w.addr;
		if (size_ret)
			*size_ret = w.size;
	}
	return w.found;
}

/* Every SYMBOL() of kinfo.h in one walk of the symbol table. */
#define DW_SYM_SLOT(ident, key) { key, offsetof(struct kinfo, sym.ident) },
static const struct {
	const char *name;
	size_t off;
} dw_syms[] = { KINFO_SYMBOLS(DW_SYM_SLOT) };
#undef DW_SYM_SLOT

static bool dw_kinfo_symbol(void *arg, const char *name, const GElf_Sym *s)
{
	struct dw_sym_want *w = arg;

	for (size_t k = 0; k < ARRAY_SIZE(dw_syms); k++)
		if (!strcmp(name, dw_syms[k].name))
			(void)dw_sym_take(&w[k], s);
	return true;
}

static void dw_symbols(struct dwarf_info *di, struct kinfo *ki)
{
	struct dw_sym_want w[ARRAY_SIZE(dw_syms)];

	memset(w, 0, sizeof(w));
	dw_each_symbol(di, dw_kinfo_symbol, w);
	for (size_t k = 0; k < ARRAY_SIZE(dw_syms); k++) {
		struct kinfo_u64 *f = (struct kinfo_u64 *)((char *)ki + dw_syms[k].off);

		if (w[k].found) {
			f->v = w[k].addr;
			f->set = true;
		}
	}
}

static void dw_build_id(struct dwarf_info *di, struct kinfo *ki)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(di->elf, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const uint8_t *desc = (const uint8_t *)d->d_buf + desc_off;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4) ||
			    nh.n_descsz == 0 || nh.n_descsz * 2 >= sizeof(ki->build_id))
				continue;
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(ki->build_id + 2 * i, 3, "%02x", desc[i]);
			return;
		}
	}
}

/* @len bytes at link-time address @addr, from the section holding them. */
static bool dw_read_image(struct dwarf_info *di, uint64_t addr, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(di->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || addr < sh.sh_addr ||
		    addr - sh.sh_addr > sh.sh_size || len > sh.sh_size - (addr - sh.sh_addr))
			continue;
		return pread(di->fd, buf, len, (off_t)(sh.sh_offset + (addr - sh.sh_addr))) ==
		       (ssize_t)len;
	}
	return false;
}

/* ---- the whole kinfo ---- */

#define DW_FILL_SIZE(ident, key) \
	if (st == MDF_OK) \
		st = dw_size(di, ws, key, &ki->size.ident, err);
#define DW_FILL_OFFSET(ident, key) \
	if (st == MDF_OK) \
		st = dw_offset(di, ws, key, &ki->off.ident, err);
#define DW_FILL_LENGTH(ident, key) \
	if (st == MDF_OK) \
		st = dw_length(di, ws, key, &ki->len.ident, err);
#define DW_FILL_SRCFILE(ident, key) \
	(void)dw_srcfile(di, ws, key, ki->srcfile.ident, sizeof(ki->srcfile.ident));

static enum mdf_status dw_fill_numbers(struct dwarf_info *di, struct dw_wants *ws,
				       struct kinfo *ki, struct mdf_err *err)
{
	enum mdf_status st = MDF_OK;
	int64_t v;
	bool found;

	for (size_t i = 0; st == MDF_OK && i < ARRAY_SIZE(dw_enum_keys); i++) {
		char key[64];

		st = dw_enumerator(di, ws, dw_enum_keys[i].enum_name, dw_enum_keys[i].key, &v,
				   &found, err);
		if (st != MDF_OK || !found)
			continue;
		snprintf(key, sizeof(key), "NUMBER(%s)", dw_enum_keys[i].key);
		(void)vmcoreinfo_set(ki, key, (uint64_t)v);
	}
	for (size_t i = 0; st == MDF_OK && i < ARRAY_SIZE(dw_page_types); i++) {
		st = dw_enumerator(di, ws, "pagetype", dw_page_types[i].pgty, &v, &found, err);
		if (st == MDF_OK && found) {
			(void)vmcoreinfo_set(ki, dw_page_types[i].key,
					     (uint64_t)(int64_t)(int32_t)((uint32_t)v << 24));
			continue;
		}
		if (st == MDF_OK)
			st = dw_enumerator(di, ws, "pagetype", dw_page_types[i].pg, &v, &found, err);
		if (st == MDF_OK && found)
			(void)vmcoreinfo_set(ki, dw_page_types[i].key,
					     (uint64_t)(int64_t)(int32_t)~(uint32_t)v);
	}
	/* NUMBER(PG_head_mask) = 1UL << PG_head (kernel/crash_core.c, 4.8). */
	if (ki->num.PG_head.set && ki->num.PG_head.v >= 0 && ki->num.PG_head.v < 63) {
		ki->num.PG_head_mask.v = (int64_t)(1ULL << ki->num.PG_head.v);
		ki->num.PG_head_mask.set = true;
	}
	return st;
}

enum mdf_status dwarf_info_kinfo(struct dwarf_info *di, struct kinfo *ki,
				 struct dwarf_facts *facts_ret, struct mdf_err *err)
{
	struct dw_wants *ws = calloc(1, sizeof(*ws));
	struct dwarf_facts facts;
	struct dw_walk w;
	enum mdf_status st;
	GElf_Ehdr eh;
	Dwarf_Die t;
	bool found;

	if (!ws)
		return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", di->path);
	memset(&facts, 0, sizeof(facts));
	if (gelf_getehdr(di->elf, &eh))
		facts.machine = eh.e_machine;
	dw_wants_kinfo(ws);
	st = dw_scan(di, ws, err);
	if (st != MDF_OK) {
		free(ws);
		return st;
	}
	dw_symbols(di, ki);
	dw_build_id(di, ki);
	KINFO_SIZES(DW_FILL_SIZE)
	KINFO_OFFSETS(DW_FILL_OFFSET)
	KINFO_LENGTHS(DW_FILL_LENGTH)
	KINFO_SRCFILES(DW_FILL_SRCFILE)
	if (st == MDF_OK)
		st = dw_fill_numbers(di, ws, ki, err);
	/* An i386 kernel's pte_t is 8 bytes with PAE (pgtable-3level_types.h:
	 * pteval_t u64), 4 without: what VMCOREINFO says as CONFIG_X86_PAE=y,
	 * which a note written from a vmlinux would lack otherwise. */
	/* A 32-bit arm kernel's likewise with LPAE (pgtable-3level-types.h:
	 * pteval_t u64; pgtable-2level-types.h: u32): CONFIG_ARM_LPAE=y. */
	if (st == MDF_OK && (facts.machine == EM_386 || facts.machine == EM_ARM)) {
		struct kinfo_u64 pte = { 0, false };

		st = dw_size(di, ws, "pte_t", &pte, err);
		if (st == MDF_OK && pte.set && pte.v == 8) {
			if (facts.machine == EM_386)
				ki->config.X86_PAE = true;
			else
				ki->config.ARM_LPAE = true;
		}
	}

	/* The release: init_uts_ns.name.release, in the image's bytes. */
	uint64_t rel;

	dw_walk_init(&w, di, err);
	if (st == MDF_OK && ki->sym.init_uts_ns.set)
		st = dw_path(&w, di, ws, "new_utsname.release", &rel, &t, &found);
	if (st == MDF_OK && ki->sym.init_uts_ns.set && found) {
		uint64_t name_off = ki->off.uts_namespace_name.set ? ki->off.uts_namespace_name.v : 0;
		char buf[sizeof(ki->osrelease)];

		facts.have_release_off = true;
		facts.release_off = name_off + rel;
		if (dw_read_image(di, ki->sym.init_uts_ns.v + facts.release_off, buf,
				  sizeof(buf) - 1)) {
			buf[sizeof(buf) - 1] = '\0';
			if (buf[0] && !strchr(buf, '\n'))
				memcpy(ki->osrelease, buf, sizeof(buf));
		}
	}
	struct dw_want *ms = dw_want_find(ws, "mem_section", 11);
	Dwarf_Die d, mt, peeled;

	dw_walk_init(&w, di, err);
	dw_walk_about(&w, "mem_section", 11);
	if (st == MDF_OK && ms && dw_var_known(ms) && dw_die(di, ms->var_off, &d))
		st = dw_type_of(&w, &d, &mt, &found);
	else
		found = false;
	if (st == MDF_OK && found)
		st = dw_peel(&w, &mt, &peeled);
	if (st == MDF_OK && found)
		facts.mem_section_is_ptr = dwarf_tag(&peeled) == DW_TAG_pointer_type;
	facts.have_text = dwarf_info_symbol(di, "_text", &facts.text, NULL);
	free(ws);
	if (st == MDF_OK && facts_ret)
		*facts_ret = facts;
	return st;
}

#undef DW_FILL_SIZE
#undef DW_FILL_OFFSET
#undef DW_FILL_LENGTH
#undef DW_FILL_SRCFILE

/* ---- types, for --config ---- */

enum mdf_status dwarf_info_lookup(struct dwarf_info *di, struct dwarf_query *q, size_t n,
				  struct mdf_err *err)
{
	struct dw_wants *ws = calloc(1, sizeof(*ws));
	enum mdf_status st;

	if (!ws)
		return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", di->path);
	if (n > DW_WANT_SLOTS / 2) {
		free(ws);
		return mdf_err_set(err, MDF_ERR_NOTSUPP, "%s: more than %d names to look up",
				   di->path, DW_WANT_SLOTS / 2);
	}
	for (size_t i = 0; i < n; i++)
		dw_want_add(ws, q[i].name, strlen(q[i].name),
			    q[i].is_type ? DW_W_TYPE | DW_W_TYPEDEF : DW_W_VAR);
	st = dw_scan(di, ws, err);
	for (size_t i = 0; st == MDF_OK && i < n; i++) {
		struct dw_want *w = dw_want_find(ws, q[i].name, strlen(q[i].name));
		struct dw_walk wk;
		Dwarf_Die d, t;

		q[i].found = false;
		q[i].type.die = 0;
		if (!w)
			continue;
		dw_walk_init(&wk, di, err);
		dw_walk_about(&wk, q[i].name, strlen(q[i].name));
		if (q[i].is_type)
			st = dw_named_type(&wk, di, ws, q[i].name, strlen(q[i].name), &t,
					   &q[i].found);
		else if (dw_var_known(w) && dw_die(di, w->var_off, &d))
			st = dw_type_of(&wk, &d, &t, &q[i].found);
		if (st == MDF_OK && q[i].found)
			q[i].type.die = dwarf_dieoffset(&t);
	}
	free(ws);
	return st;
}

/* The DIE of @t, and a walk that names it. */
static enum mdf_status dw_type_die(struct dwarf_info *di, struct dwarf_type t, Dwarf_Die *d,
				   struct dw_walk *w, struct mdf_err *err)
{
	dw_walk_init(w, di, err);
	if (!dw_die(di, t.die, d))
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: no DWARF entry at 0x%llx", di->path,
				   (unsigned long long)t.die);
	dw_walk_about_die(w, d);
	return MDF_OK;
}

enum mdf_status dwarf_type_describe(struct dwarf_info *di, struct dwarf_type t,
				    struct dwarf_type_info *ret, struct mdf_err *err)
{
	struct dw_walk w;
	Dwarf_Die d, p, target;
	Dwarf_Attribute a;
	uint64_t size;
	bool found = false;
	enum mdf_status st;

	memset(ret, 0, sizeof(*ret));
	if (!t.die) {
		ret->kind = DWARF_T_VOID;
		return MDF_OK;
	}
	st = dw_type_die(di, t, &d, &w, err);
	if (st == MDF_OK)
		st = dw_peel(&w, &d, &p);
	if (st != MDF_OK)
		return st;
	if (!dw_is_type(dwarf_tag(&p)))
		return dw_fail(&w, false, "DIE 0x%llx (tag 0x%x) is not a type",
			       (unsigned long long)dwarf_dieoffset(&p), (unsigned)dwarf_tag(&p));
	switch (dwarf_tag(&p)) {
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		ret->kind = DWARF_T_STRUCT;
		break;
	case DW_TAG_pointer_type:
		ret->kind = DWARF_T_POINTER;
		st = dw_type_of(&w, &p, &target, &found);
		if (st == MDF_OK && found)
			ret->target.die = dwarf_dieoffset(&target);
		break;
	case DW_TAG_array_type:
		ret->kind = DWARF_T_ARRAY;
		st = dw_type_of(&w, &p, &target, &found);
		if (st == MDF_OK && found)
			ret->target.die = dwarf_dieoffset(&target);
		if (st == MDF_OK)
			st = dw_array_count(&w, &p, false, &ret->count, &found);
		if (st == MDF_OK && !found)
			ret->count = 0;
		break;
	case DW_TAG_base_type:
	case DW_TAG_enumeration_type: {
		Dwarf_Word enc = 0;

		ret->kind = DWARF_T_INT;
		if (dwarf_attr(&p, DW_AT_encoding, &a))
			(void)dwarf_formudata(&a, &enc);
		ret->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		break;
	}
	default:
		/* An alias of nothing: void. */
		ret->kind = dw_is_alias(dwarf_tag(&p)) ? DWARF_T_VOID : DWARF_T_OTHER;
		break;
	}
	if (st == MDF_OK && ret->kind != DWARF_T_VOID)
		st = dw_type_size(&w, &p, 0, &size, &found);
	if (st != MDF_OK)
		return st;
	if (found && ret->kind != DWARF_T_VOID)
		ret->size = size;
	ret->is_char = ret->kind == DWARF_T_INT && ret->size == 1;
	return MDF_OK;
}

enum mdf_status dwarf_type_member(struct dwarf_info *di, struct dwarf_type t, const char *name,
				  bool *found, uint64_t *off_ret, struct dwarf_type *mtype_ret,
				  struct mdf_err *err)
{
	struct dw_walk w;
	Dwarf_Die d, mt;
	enum mdf_status st;

	*found = false;
	*off_ret = 0;
	if (!t.die)
		return MDF_OK;
	st = dw_type_die(di, t, &d, &w, err);
	if (st == MDF_OK)
		st = dw_member(&w, &d, name, 0, found, off_ret, &mt);
	if (st == MDF_OK && *found)
		mtype_ret->die = dwarf_dieoffset(&mt);
	return st;
}

/* ---- open, close ---- */

/* A file cut short (a partial copy or download) says so, rather than
 * "no debugging information" or a DWARF error further on. */
static enum mdf_status dw_check_sections(struct dwarf_info *di, struct mdf_err *err)
{
	struct stat sb;
	Elf_Scn *scn = NULL;
	size_t shstrndx = 0;

	GElf_Ehdr eh;

	if (fstat(di->fd, &sb) != 0)
		return mdf_err_errno(err, MDF_ERR_IO, errno, "%s", di->path);
	/* The section headers come last in a linked file. */
	if (gelf_getehdr(di->elf, &eh) && eh.e_shoff &&
	    (eh.e_shoff > (uint64_t)sb.st_size ||
	     (uint64_t)eh.e_shnum * eh.e_shentsize > (uint64_t)sb.st_size - eh.e_shoff))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: truncated: its section headers at 0x%llx lie past the end "
				   "(0x%llx bytes)", di->path, (unsigned long long)eh.e_shoff,
				   (unsigned long long)sb.st_size);
	if (elf_getshdrstrndx(di->elf, &shstrndx) != 0)
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: bad ELF section headers: %s",
				   di->path, elf_errmsg(-1));
	while ((scn = elf_nextscn(di->elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			return mdf_err_set(err, MDF_ERR_FORMAT, "%s: bad ELF section header: %s",
					   di->path, elf_errmsg(-1));
		if (sh.sh_type == SHT_NOBITS || (sh.sh_offset <= (uint64_t)sb.st_size &&
						 sh.sh_size <= (uint64_t)sb.st_size - sh.sh_offset))
			continue;
		n = elf_strptr(di->elf, shstrndx, sh.sh_name);
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: truncated: section %s ends at 0x%llx, the file has 0x%llx bytes",
				   di->path, n ? n : "?",
				   (unsigned long long)(sh.sh_offset + sh.sh_size),
				   (unsigned long long)sb.st_size);
	}
	return MDF_OK;
}

enum mdf_status dwarf_info_open(const char *path, struct dwarf_info **ret,
				struct mdf_err *err)
{
	struct dwarf_info *di = calloc(1, sizeof(*di));
	enum mdf_status st;

	if (!di)
		return mdf_err_set(err, MDF_ERR_NOMEM, "%s: out of memory", path);
	di->path = path;
	st = files_open_input(path, &di->fd, err);
	if (st != MDF_OK) {
		free(di);
		return st;
	}
	elf_version(EV_CURRENT);
	di->elf = elf_begin(di->fd, ELF_C_READ_MMAP, NULL);
	if (!di->elf || elf_kind(di->elf) != ELF_K_ELF) {
		dwarf_info_close(di);
		return mdf_err_set(err, MDF_ERR_FORMAT, "%s: not an ELF file", path);
	}
	st = dw_check_sections(di, err);
	if (st != MDF_OK) {
		dwarf_info_close(di);
		return st;
	}
	di->dw = dwarf_begin_elf(di->elf, DWARF_C_READ, NULL);
	if (!di->dw) {
		dwarf_info_close(di);
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: no debugging information: a debug vmlinux "
				   "(such as /usr/lib/debug/boot/vmlinux-RELEASE) is needed",
				   path);
	}
	*ret = di;
	return MDF_OK;
}

void dwarf_info_close(struct dwarf_info *di)
{
	if (!di)
		return;
	if (di->dwfl) {
		dwfl_end(di->dwfl);
	} else {
		if (di->dw)
			dwarf_end(di->dw);
		if (di->elf)
			elf_end(di->elf);
	}
	if (di->fd >= 0)
		close(di->fd);
	free(di->own_path);
	free(di);
}

const char *dwarf_info_path(const struct dwarf_info *di)
{
	return di->path;
}

/* ---- module debuginfo ---- */

static bool dw_mod_name_is(const char *file, const char *name)
{
	size_t i = 0;

	for (; name[i] && file[i]; i++) {
		char a = file[i] == '-' ? '_' : file[i], b = name[i] == '-' ? '_' : name[i];

		if (a != b)
			return false;
	}
	return !name[i] && (!strcmp(file + i, ".ko") || !strcmp(file + i, ".ko.debug"));
}

/* NAME.ko below @dir (@len bytes of path in @dir, room for PATH_MAX), at
 * most @depth levels down; the path is left in @dir. */
static bool dw_mod_find(char *dir, size_t len, const char *name, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		struct stat sb;

		if (e->d_name[0] == '.' || len + 1 + n >= PATH_MAX)
			continue;
		dir[len] = '/';
		memcpy(dir + len + 1, e->d_name, n + 1);
		if (lstat(dir, &sb) != 0)
			continue;
		if (S_ISREG(sb.st_mode))
			found = dw_mod_name_is(e->d_name, name);
		else if (S_ISDIR(sb.st_mode) && depth > 0)
			found = dw_mod_find(dir, len + 1 + n, name, depth - 1);
	}
	closedir(d);
	if (!found)
		dir[len] = '\0';
	return found;
}

/* The file found holds its DWARF: no search for a separate one (which
 * would also pull debuginfod, and its dlopen, into the static build). */
static int dw_mod_no_separate_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
					Dwarf_Addr base, const char *file_name,
					const char *debuglink_file, GElf_Word debuglink_crc,
					char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

enum mdf_status dwarf_info_open_module(const char *vmlinux, const char *release,
				       const char *name, struct dwarf_info **ret,
				       struct mdf_err *err)
{
	static const Dwfl_Callbacks cb = {
		.find_debuginfo = dw_mod_no_separate_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	char dirs[3][PATH_MAX], *path = malloc(PATH_MAX);
	const char *slash = strrchr(vmlinux, '/');
	struct dwarf_info *di;
	bool found = false;
	Dwfl_Module *m;
	Dwarf_Addr bias;

	if (!path)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	snprintf(dirs[0], sizeof(dirs[0]), "%.*s/lib/modules/%s",
		 slash ? (int)(slash - vmlinux) : 1, slash ? vmlinux : ".", release);
	snprintf(dirs[1], sizeof(dirs[1]), "/usr/lib/debug/lib/modules/%s", release);
	snprintf(dirs[2], sizeof(dirs[2]), "/lib/modules/%s", release);
	for (int i = 0; i < 3 && !found; i++) {
		size_t n = strnlen(dirs[i], PATH_MAX - 1);

		memcpy(path, dirs[i], n);
		path[n] = '\0';
		found = dw_mod_find(path, n, name, 8);
	}
	if (!found) {
		free(path);
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "no debuginfo for module %s under %.300s, %.300s or %.300s", name,
				   dirs[0], dirs[1], dirs[2]);
	}
	di = calloc(1, sizeof(*di));
	if (!di) {
		free(path);
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	}
	di->fd = -1;
	di->own_path = path;
	di->path = di->own_path;
	di->dwfl = dwfl_begin(&cb);
	m = di->dwfl ? dwfl_report_offline(di->dwfl, name, di->path, -1) : NULL;
	if (di->dwfl)
		(void)dwfl_report_end(di->dwfl, NULL, NULL);
	di->dw = m ? dwfl_module_getdwarf(m, &bias) : NULL;
	di->elf = m ? dwfl_module_getelf(m, &bias) : NULL;
	if (!di->dw || !di->elf) {
		enum mdf_status st = mdf_err_set(err, MDF_ERR_FORMAT, "%s: no usable DWARF: %s",
						 di->path, dwfl_errmsg(-1));

		dwarf_info_close(di);
		return st;
	}
	*ret = di;
	return MDF_OK;
}
