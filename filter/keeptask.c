/*
 * keeptask.c - --keep-task (keeptask.h).
 */
#include "filter/keeptask.h"

#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "stop.h"
#include "util.h"

struct walk_arg {
	struct keeptask *kt;
	struct mdf_kept_proc *p;
	const struct mdf_stop *stop;
	struct readmem *rm;
	struct mdf_err *err;
	enum mdf_status st;
};

static int leaf(void *arg, uint64_t vaddr, uint64_t paddr, uint64_t size)
{
	struct walk_arg *w = arg;
	unsigned sh = w->kt->page_shift;
	uint64_t first = paddr >> sh, n = size ? size >> sh : 1;

	(void)vaddr;
	if (size) {
		w->p->pages += n;
	} else {
		w->p->tables++;
		/* a damaged tree can fan out for long: a stop ends it */
		if (w->stop && (w->st = stop_check(w->stop, w->err)) != MDF_OK)
			return 1;
	}
	w->st = pfn_set_add(&w->kt->kept, first, first + n, "--keep-task ranges", w->err);
	return w->st != MDF_OK;
}

/* @path is in the cgroup @want or below it. */
static bool in_cgroup(const char *path, const char *want)
{
	size_t n = strlen(want);

	if (strcmp(want, "/") == 0)
		return true;
	return strncmp(path, want, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Count the specs that choose @t; true when any does.  Its cgroup path is
 * read only when a cgroup spec asks. */
static bool chosen(struct walk_arg *w, const struct task_info *t)
{
	struct keeptask *kt = w->kt;
	char path[4096];
	bool any = false, have_path = false, tried = false;

	if (kt->all)
		return true;
	for (unsigned i = 0; i < kt->nspecs; i++) {
		const struct mdf_keep_spec *s = &kt->specs[i];
		bool hit = false;

		if (s->kind == MDF_KEEP_PID)
			hit = t->tgid == s->pid || t->pid == s->pid;
		else if (s->kind == MDF_KEEP_COMM)
			hit = strcmp(t->comm, s->comm) == 0;
		else {
			if (!tried) {
				struct mdf_err e;

				tried = true;
				mdf_err_clear(&e);
				have_path = tasks_cgroup_path(&kt->layout, w->rm, t->task, path,
							      sizeof(path), &e) == MDF_OK;
				if (!have_path && !kt->cgroup_unreadable++)
					kt->cgroup_err = e;
			}
			hit = have_path && in_cgroup(path, s->cgroup);
		}
		if (hit)
			kt->matched[i]++;
		any |= hit;
	}
	return any;
}

/* Whether @mm is a process already chosen (threads share it); else it is
 * remembered.  An open-addressed set, twice as big as the processes. */
static enum mdf_status mm_seen(struct keeptask *kt, uint64_t mm, bool *seen, struct mdf_err *err)
{
	size_t i;

	if (2 * (kt->nmms + 1) > kt->mms_cap) {
		size_t cap = kt->mms_cap ? 2 * kt->mms_cap : 64;
		uint64_t *m = calloc(cap, sizeof(*m));

		if (!m)
			return mdf_err_set(err, MDF_ERR_NOMEM, "--keep-task: out of memory");
		for (size_t j = 0; j < kt->mms_cap; j++) {
			if (!kt->mms[j])
				continue;
			for (i = (size_t)(kt->mms[j] >> 6) & (cap - 1); m[i]; i = (i + 1) & (cap - 1))
				;
			m[i] = kt->mms[j];
		}
		free(kt->mms);
		kt->mms = m;
		kt->mms_cap = cap;
	}
	for (i = (size_t)(mm >> 6) & (kt->mms_cap - 1); kt->mms[i]; i = (i + 1) & (kt->mms_cap - 1)) {
		if (kt->mms[i] == mm) {
			*seen = true;
			return MDF_OK;
		}
	}
	*seen = false;
	return MDF_OK;
}

static void mm_add(struct keeptask *kt, uint64_t mm)
{
	size_t i;

	for (i = (size_t)(mm >> 6) & (kt->mms_cap - 1); kt->mms[i]; i = (i + 1) & (kt->mms_cap - 1))
		;
	kt->mms[i] = mm;
	kt->nmms++;
}

static int each_task(void *arg, const struct task_info *t)
{
	struct walk_arg *w = arg;
	struct keeptask *kt = w->kt;
	bool seen = false;

	if (!t->mm)
		return 0;
	w->st = mm_seen(kt, t->mm, &seen, w->err);
	if (w->st != MDF_OK)
		return 1;
	if (seen || !chosen(w, t))
		return 0; /* another thread of a process already chosen */
	mm_add(kt, t->mm);
	if (kt->nprocs == kt->procs_cap) {
		size_t cap = kt->procs_cap ? 2 * kt->procs_cap : 8;
		struct mdf_kept_proc *p = realloc(kt->procs, cap * sizeof(*p));

		if (!p) {
			w->st = mdf_err_set(w->err, MDF_ERR_NOMEM, "--keep-task: out of memory");
			return 1;
		}
		kt->procs = p;
		kt->procs_cap = cap;
	}
	kt->procs[kt->nprocs++] = (struct mdf_kept_proc){ .pid = t->tgid, .mm = t->mm,
							  .task = t->task };
	memcpy(kt->procs[kt->nprocs - 1].comm, t->comm, sizeof(t->comm));
	return 0;
}

/* The physical address of process @p's page-table root (mm->pgd). */
static enum mdf_status proc_root(const struct keeptask *kt, const struct mdf_kept_proc *p,
				 struct readmem *rm, uint64_t *root, struct mdf_err *err)
{
	uint64_t pgd;

	if (readmem_ulong(rm, p->mm + kt->layout.o_pgd, &pgd, err) != MDF_OK)
		return err->status;
	return readmem_vtop(rm, pgd, root, NULL, err);
}

enum mdf_status keeptask_walk_proc(const struct keeptask *kt, size_t i, struct readmem *rm,
				   const struct arch_state *arch, arch_leaf_fn cb, void *arg,
				   struct mdf_err *err)
{
	const struct mdf_kept_proc *p = &kt->procs[i];
	uint64_t root;
	enum mdf_status st = proc_root(kt, p, rm, &root, err);

	if (st == MDF_OK)
		st = arch_user_leaves(arch, root, readmem_read_pte, rm, cb, arg, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "process %d (%s), mm 0x%llx", p->pid, p->comm,
				    (unsigned long long)p->mm);
	return MDF_OK;
}

enum mdf_status keeptask_build(struct keeptask *kt, const struct tasks_layout *l,
			       struct readmem *rm, const struct arch_state *arch,
			       const struct mdf_stop *stop, struct mdf_err *err)
{
	struct walk_arg w = { kt, NULL, stop, rm, err, MDF_OK };
	enum mdf_status st;

	kt->page_shift = arch->page_shift;
	kt->layout = *l;
	st = tasks_each(l, rm, each_task, &w, err);
	if (st == MDF_OK)
		st = w.st;
	for (size_t i = 0; st == MDF_OK && !kt->list_only && i < kt->nprocs; i++) {
		struct mdf_kept_proc *p = &kt->procs[i];
		uint64_t mm_pa;

		/* the page of its mm_struct, where the dump has it */
		if (readmem_vtop(rm, p->mm, &mm_pa, NULL, err) == MDF_OK)
			st = pfn_set_add(&kt->kept, mm_pa >> kt->page_shift,
					 (mm_pa >> kt->page_shift) + 1, "--keep-task ranges", err);
		else
			mdf_err_clear(err);
		w.p = p;
		if (st == MDF_OK)
			st = keeptask_walk_proc(kt, i, rm, arch, leaf, &w, err);
		if (st == MDF_OK)
			st = w.st;
		if (st != MDF_OK)
			st = mdf_err_push(err, "--keep-task");
	}
	pfn_set_compact(&kt->kept);
	return st;
}

struct owner_arg {
	uint64_t pfn;
	unsigned shift;
	bool found;
};

static int owner_leaf(void *arg, uint64_t vaddr, uint64_t paddr, uint64_t size)
{
	struct owner_arg *o = arg;
	uint64_t first = paddr >> o->shift, n = size ? size >> o->shift : 1;

	(void)vaddr;
	o->found = o->pfn >= first && o->pfn < first + n;
	return o->found;
}

bool keeptask_owner(const struct keeptask *kt, struct readmem *rm,
		    const struct arch_state *arch, uint64_t pfn, size_t *idx)
{
	for (size_t i = 0; i < kt->nprocs; i++) {
		struct owner_arg o = { pfn, kt->page_shift, false };
		struct mdf_err e;
		uint64_t mm_pa;

		mdf_err_clear(&e);
		if (readmem_vtop(rm, kt->procs[i].mm, &mm_pa, NULL, &e) == MDF_OK &&
		    mm_pa >> kt->page_shift == pfn)
			o.found = true;
		if (!o.found && keeptask_walk_proc(kt, i, rm, arch, owner_leaf, &o, &e) != MDF_OK)
			o.found = false; /* a walk that failed names no owner */
		if (o.found) {
			*idx = i;
			return true;
		}
	}
	return false;
}

bool keeptask_has(void *arg, uint64_t pfn, uint64_t npfn)
{
	const struct keeptask *kt = arg;

	return pfn_set_overlaps(&kt->kept, pfn, npfn);
}

void keeptask_free(struct keeptask *kt)
{
	pfn_set_release(&kt->kept);
	free(kt->procs);
	free(kt->mms);
	kt->procs = NULL;
	kt->mms = NULL;
	kt->nmms = kt->mms_cap = 0;
	kt->nprocs = kt->procs_cap = 0;
}
