/*
 * extension.c - --extension FILE.so (extension.h).
 */
#include "filter/extension.h"

#if HAVE_EXTENSIONS
#include <dlfcn.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "makedumpfile/extension.h"

struct ext_one {
	void *dl;
	const struct mdf_extension *x;
	char path[512];
	void *state;
	bool running;
	uint64_t erased_ranges, erased_bytes;
};

struct ext_set {
	struct ext_one e[EXT_MAX];
	size_t n;
	struct mdf_ext_host host;
	/* the host, while init() runs (and for messages after) */
	struct ext_env envc;
	const struct ext_env *env;
	struct ext_one *cur;
	bool in_init;
	struct mdf_err *err;
	enum mdf_status failed;     /* an erase that could not be added */
};

/* @name as given when it has a '/', else the first of ./, ./extensions/
 * and @dir that has it. */
static bool find_file(const char *name, const char *dir, char *path, size_t cap)
{
	const char *dirs[] = { ".", "./extensions", dir };

	if (strchr(name, '/'))
		return snprintf(path, cap, "%s", name) < (int)cap;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (!dirs[i] || !dirs[i][0])
			continue;
		if (snprintf(path, cap, "%s/%s", dirs[i], name) >= (int)cap)
			continue;
		if (access(path, F_OK) == 0)
			return true;
	}
	return false;
}

enum mdf_status ext_open(struct ext_set **ret, char *const *paths, size_t n, const char *dir,
			 struct mdf_err *err)
{
	struct ext_set *s;

	*ret = NULL;
	if (n > EXT_MAX)
		return mdf_err_set(err, MDF_ERR_ARG, "more than %u --extension options", EXT_MAX);
	s = calloc(1, sizeof(*s));
	if (!s)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct ext_one *o = &s->e[s->n];
		size_t len = strlen(paths[i]);

		if (len <= 3 || strcmp(paths[i] + len - 3, ".so") != 0) {
			ext_close(s);
			return mdf_err_set(err, MDF_ERR_ARG,
					   "%s: an extension is a shared object named *.so", paths[i]);
		}
		if (!find_file(paths[i], dir, o->path, sizeof(o->path))) {
			ext_close(s);
			return mdf_err_set(err, MDF_ERR_IO, "%s: no such extension in ., ./extensions "
					   "or %s", paths[i], dir);
		}
#if HAVE_EXTENSIONS
		/* lazily: an upstream extension calls into upstream's binary,
		 * and is then refused below for what it lacks, not for that */
		o->dl = dlopen(o->path, RTLD_LAZY | RTLD_LOCAL);
		if (!o->dl) {
			const char *why = dlerror();

			mdf_err_set(err, MDF_ERR_FORMAT, "%s: cannot load it: %s%s", o->path,
				    why ? why : "dlopen failed",
				    why && strstr(why, "undefined symbol") ?
				    " (an extension of upstream makedumpfile cannot load here: see "
				    "makedumpfile(8))" : "");
			ext_close(s);
			return err->status;
		}
		s->n++;
		o->x = dlsym(o->dl, "mdf_extension");
		if (!o->x) {
			mdf_err_set(err, MDF_ERR_FORMAT,
				    "%s: no 'mdf_extension' in it (an extension of upstream "
				    "makedumpfile cannot load here: see makedumpfile(8))", o->path);
			ext_close(s);
			return err->status;
		}
		if (o->x->abi != MDF_EXTENSION_ABI || !o->x->init) {
			mdf_err_set(err, MDF_ERR_FORMAT, "%s: extension ABI %u%s, this makedumpfile "
				    "has ABI %u", o->path, o->x->abi,
				    o->x->init ? "" : " with no init()", MDF_EXTENSION_ABI);
			ext_close(s);
			return err->status;
		}
#else
		mdf_err_set(err, MDF_ERR_NOTSUPP, "%s: this makedumpfile is linked statically: it "
			    "loads no extensions", o->path);
		ext_close(s);
		return err->status;
#endif
	}
	*ret = s;
	return MDF_OK;
}

/* ---- the host ------------------------------------------------------ */

static int h_symbol(void *ctx, const char *name, uint64_t *addr)
{
	struct ext_set *s = ctx;
	const struct erase_types *t = s->env->types;

	if (!t || !name || !addr || !t->symbol(t->arg, name, addr))
		return -1;
	if (!t->running)
		*addr += s->env->kernel_offset;
	return 0;
}

static bool h_type(struct ext_set *s, const char *type, struct dwarf_type *dt,
		   struct dwarf_type_info *ti)
{
	const struct erase_types *t = s->env->types;
	struct dwarf_query q = { .name = type, .is_type = true };
	struct mdf_err e;

	mdf_err_clear(&e);
	if (!t || !type || t->lookup(t->arg, &q, 1, &e) != MDF_OK || !q.found)
		return false;
	*dt = q.type;
	return t->describe(t->arg, q.type, ti, &e) == MDF_OK;
}

static int h_type_size(void *ctx, const char *type, uint64_t *size)
{
	struct dwarf_type dt;
	struct dwarf_type_info ti;

	if (!size || !h_type(ctx, type, &dt, &ti) || !ti.size)
		return -1;
	*size = ti.size;
	return 0;
}

static int h_member(void *ctx, const char *type, const char *member, uint64_t *offset,
		    uint64_t *size)
{
	struct ext_set *s = ctx;
	const struct erase_types *t = s->env->types;
	struct dwarf_type dt, mt;
	struct dwarf_type_info ti;
	struct mdf_err e;
	bool found = false;
	uint64_t off = 0;

	if (!member || !h_type(s, type, &dt, &ti))
		return -1;
	mdf_err_clear(&e);
	if (t->member(t->arg, dt, member, &found, &off, &mt, &e) != MDF_OK || !found)
		return -1;
	if (offset)
		*offset = off;
	if (size) {
		if (t->describe(t->arg, mt, &ti, &e) != MDF_OK)
			return -1;
		*size = ti.size;
	}
	return 0;
}

static int h_read(void *ctx, uint64_t vaddr, void *buf, size_t len)
{
	struct ext_set *s = ctx;
	struct mdf_err e;

	if (!s->in_init || !buf)
		return -1;
	mdf_err_clear(&e);
	return readmem_vaddr(s->env->rm, vaddr, buf, len, &e) == MDF_OK ? 0 : -1;
}

static int h_erase(void *ctx, uint64_t vaddr, uint64_t len, unsigned char fill)
{
	struct ext_set *s = ctx;
	uint64_t unread;

	if (!s->in_init || s->failed != MDF_OK || len == 0 || vaddr + len < vaddr)
		return -1;
	unread = s->env->es->unreadable;
	s->failed = erase_add_vrange(s->env->es, s->env->rm, vaddr, len, fill, s->err);
	if (s->failed != MDF_OK)
		return -1;
	if (s->env->es->unreadable != unread)
		return -1;   /* some of it is not in the dump */
	s->cur->erased_ranges++;
	s->cur->erased_bytes += len;
	return 0;
}

static void h_message(void *ctx, const char *text)
{
	struct ext_set *s = ctx;

	if (text && s->env && s->env->say)
		s->env->say(s->env->say_arg, s->cur ? s->cur->x->name : "?", text);
}

enum mdf_status ext_init(struct ext_set *s, const struct ext_env *env, struct mdf_err *err)
{
	/* the extensions may keep the host's address: it lives as long as
	 * they do */
	s->host = (struct mdf_ext_host){
		.abi = MDF_EXTENSION_ABI, .ctx = s, .page_size = env->page_size,
		.page_struct_size = env->page_struct_size, .big_endian = env->big_endian,
		.symbol = h_symbol, .type_size = h_type_size, .member = h_member,
		.read = h_read, .erase = h_erase, .message = h_message,
	};
	s->envc = *env;
	s->env = &s->envc;
	s->err = err;
	s->failed = MDF_OK;
	for (size_t i = 0; i < s->n; i++) {
		struct ext_one *o = &s->e[i];
		char line[256];
		int rc;

		s->cur = o;
		s->in_init = true;
		rc = o->x->init(&s->host, &o->state);
		s->in_init = false;
		if (s->failed != MDF_OK)
			return mdf_err_push(err, "%s", o->path);
		o->running = rc == 0;
		if (!o->running) {
			snprintf(line, sizeof(line), "init() returned %d: skipped", rc);
			h_message(s, line);
			continue;
		}
		if (o->erased_ranges) {
			int w = snprintf(line, sizeof(line), "extension %s erased %llu ranges (%llu bytes)\n",
					 o->x->name ? o->x->name : o->path,
					 (unsigned long long)o->erased_ranges,
					 (unsigned long long)o->erased_bytes);
			enum mdf_status st = erase_add_info(env->es, line,
							    (size_t)(w < (int)sizeof(line) ? w : (int)sizeof(line) - 1),
							    err);

			if (st != MDF_OK)
				return st;
		}
	}
	s->cur = NULL;
	return MDF_OK;
}

bool ext_has_page_hook(const struct ext_set *s)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->e[i].running && s->e[i].x->page)
			return true;
	return false;
}

int ext_page(void *set, uint64_t pfn, const unsigned char *struct_page)
{
	const struct ext_set *s = set;
	int ret = MDF_EXT_UNDECIDED;

	for (size_t i = 0; i < s->n; i++) {
		const struct ext_one *o = &s->e[i];
		enum mdf_ext_page v;

		if (!o->running || !o->x->page)
			continue;
		v = o->x->page(o->state, pfn, struct_page);
		if (v == MDF_EXT_KEEP)
			return MDF_EXT_KEEP;
		if (v == MDF_EXT_DROP)
			ret = MDF_EXT_DROP;
	}
	return ret;
}

const char *ext_name(const struct ext_set *s, size_t i)
{
	return s && i < s->n ? (s->e[i].x && s->e[i].x->name ? s->e[i].x->name : s->e[i].path) : "";
}

size_t ext_count(const struct ext_set *s)
{
	return s ? s->n : 0;
}

void ext_close(struct ext_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		struct ext_one *o = &s->e[i];

		s->cur = o;
		if (o->running && o->x->cleanup)
			o->x->cleanup(o->state);
#if HAVE_EXTENSIONS
		if (o->dl)
			dlclose(o->dl);
#endif
	}
	free(s);
}
