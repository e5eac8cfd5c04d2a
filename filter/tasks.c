/*
 * tasks.c - the crashed kernel's processes (tasks.h).
 */
#include "filter/tasks.h"

#include <stdio.h>
#include <string.h>

#include "filter/erase.h"
#include "kernel/dwarf_info.h"
#include "util.h"

static enum mdf_status member(const struct erase_types *ty, struct dwarf_type t,
			      const char *type, const char *name, uint64_t *off,
			      struct dwarf_type *mt, struct mdf_err *err)
{
	bool found = false;

	if (ty->member(ty->arg, t, name, &found, off, mt, err) != MDF_OK)
		return mdf_err_push(err, "struct %s", type);
	if (!found)
		return mdf_err_set(err, MDF_ERR_NODATA, "%s: struct %s has no member %s", ty->what,
				   type, name);
	return MDF_OK;
}

/* What cgroup:PATH reads; left unset (has_cgroup false) when the types
 * lack any of it. */
static void cgroup_layout(struct tasks_layout *l, const struct erase_types *ty,
			  struct dwarf_type task)
{
	struct dwarf_query q[3] = { { .name = "css_set", .is_type = true },
				    { .name = "cgroup", .is_type = true },
				    { .name = "kernfs_node", .is_type = true } };
	struct dwarf_type mt;
	struct mdf_err e;
	bool found = false;

	mdf_err_clear(&e);
	if (ty->lookup(ty->arg, q, 3, &e) != MDF_OK || !q[0].found || !q[1].found || !q[2].found)
		return;
#define HAS(t, name, off) \
	(ty->member(ty->arg, t, name, &found, off, &mt, &e) == MDF_OK && found)
	l->has_cgroup = HAS(task, "cgroups", &l->o_cgroups) &&
			HAS(q[0].type, "dfl_cgrp", &l->o_dfl_cgrp) &&
			HAS(q[1].type, "kn", &l->o_cg_kn) &&
			HAS(q[2].type, "name", &l->o_kn_name) &&
			/* renamed __parent when the kernfs node's parent went
			 * under RCU (Sebastian Andrzej Siewior's kernfs series
			 * of January 2025) */
			(HAS(q[2].type, "parent", &l->o_kn_parent) ||
			 HAS(q[2].type, "__parent", &l->o_kn_parent));
#undef HAS
}

enum mdf_status tasks_layout(struct tasks_layout *l, const struct erase_types *ty,
			     uint64_t kernel_offset, struct mdf_err *err)
{
	struct dwarf_query q[2] = { { .name = "task_struct", .is_type = true },
				    { .name = "mm_struct", .is_type = true } };
	struct dwarf_type mt;
	struct dwarf_type_info ti;
	enum mdf_status st;

	memset(l, 0, sizeof(*l));
	st = ty->lookup(ty->arg, q, 2, err);
	if (st != MDF_OK)
		return st;
	if (!q[0].found || !q[1].found)
		return mdf_err_set(err, MDF_ERR_NODATA, "%s has no struct %s", ty->what,
				   q[0].found ? "mm_struct" : "task_struct");
	if (!ty->symbol(ty->arg, "init_task", &l->init_task))
		return mdf_err_set(err, MDF_ERR_NODATA, "%s has no symbol init_task", ty->what);
	if (!ty->running)
		l->init_task += kernel_offset;
	st = member(ty, q[0].type, "task_struct", "tasks", &l->o_tasks, &mt, err);
	if (st == MDF_OK)
		st = member(ty, q[0].type, "task_struct", "pid", &l->o_pid, &mt, err);
	if (st == MDF_OK)
		st = ty->describe(ty->arg, mt, &ti, err);
	if (st == MDF_OK && ti.size != 4)
		st = mdf_err_set(err, MDF_ERR_FORMAT, "%s: task_struct.pid is %llu bytes, not 4",
				 ty->what, (unsigned long long)ti.size);
	if (st == MDF_OK)
		st = member(ty, q[0].type, "task_struct", "tgid", &l->o_tgid, &mt, err);
	if (st == MDF_OK)
		st = member(ty, q[0].type, "task_struct", "comm", &l->o_comm, &mt, err);
	if (st == MDF_OK)
		st = member(ty, q[0].type, "task_struct", "mm", &l->o_mm, &mt, err);
	if (st == MDF_OK)
		st = member(ty, q[1].type, "mm_struct", "pgd", &l->o_pgd, &mt, err);
	l->pid_size = 4;
	if (st == MDF_OK)
		cgroup_layout(l, ty, q[0].type);
	return st;
}

static enum mdf_status read_task(const struct tasks_layout *l, struct readmem *rm,
				 uint64_t task, struct task_info *t, struct mdf_err *err)
{
	const bool be = rm->big_endian;
	unsigned char b[4];
	enum mdf_status st;

	memset(t, 0, sizeof(*t));
	t->task = task;
	st = readmem_vaddr(rm, task + l->o_pid, b, 4, err);
	if (st == MDF_OK)
		t->pid = (int32_t)load_t32(b, be);
	if (st == MDF_OK)
		st = readmem_vaddr(rm, task + l->o_tgid, b, 4, err);
	if (st == MDF_OK)
		t->tgid = (int32_t)load_t32(b, be);
	if (st == MDF_OK)
		st = readmem_vaddr(rm, task + l->o_comm, t->comm, 16, err);
	t->comm[16] = '\0';
	/* a name is printed: what is not printable ASCII shows as '?' */
	for (char *c = t->comm; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
	if (st == MDF_OK)
		st = readmem_ulong(rm, task + l->o_mm, &t->mm, err);
	if (st == MDF_OK && t->mm)
		st = readmem_ulong(rm, t->mm + l->o_pgd, &t->pgd, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "task_struct at 0x%llx", (unsigned long long)task);
	return MDF_OK;
}

/* A NUL-terminated string at @va into @buf (@cap bytes, cap > 1), read up
 * to the end of each page so that none past it is asked for. */
static enum mdf_status read_str(struct readmem *rm, uint64_t va, char *buf, size_t cap,
				struct mdf_err *err)
{
	size_t n = 0;

	while (n + 1 < cap) {
		size_t chunk = (size_t)MDF_MIN((uint64_t)(cap - 1 - n), 4096 - ((va + n) & 4095));

		if (readmem_vaddr(rm, va + n, buf + n, chunk, err) != MDF_OK)
			return err->status;
		if (memchr(buf + n, '\0', chunk))
			return MDF_OK;
		n += chunk;
	}
	buf[cap - 1] = '\0';
	return mdf_err_set(err, MDF_ERR_FORMAT, "a kernfs name at 0x%llx longer than %zu bytes",
			   (unsigned long long)va, cap - 1);
}

enum mdf_status tasks_cgroup_path(const struct tasks_layout *l, struct readmem *rm,
				  uint64_t task, char *buf, size_t cap, struct mdf_err *err)
{
	char names[TASKS_CGROUP_DEPTH][256];
	uint64_t cset, cgrp, kn, parent, name;
	unsigned depth = 0;
	size_t len = 0;

	if (!l->has_cgroup)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "the kernel's types have no css_set.dfl_cgrp, cgroup.kn or kernfs_node");
	if (readmem_ulong(rm, task + l->o_cgroups, &cset, err) != MDF_OK ||
	    readmem_ulong(rm, cset + l->o_dfl_cgrp, &cgrp, err) != MDF_OK ||
	    readmem_ulong(rm, cgrp + l->o_cg_kn, &kn, err) != MDF_OK)
		return mdf_err_push(err, "the cgroup of task_struct 0x%llx", (unsigned long long)task);
	/* up to the root, whose parent is NULL: its name is not in paths */
	while (kn) {
		if (readmem_ulong(rm, kn + l->o_kn_parent, &parent, err) != MDF_OK)
			return mdf_err_push(err, "kernfs node 0x%llx", (unsigned long long)kn);
		if (!parent)
			break;
		if (depth == TASKS_CGROUP_DEPTH)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "a cgroup deeper than %u levels: a loop in a damaged dump",
					   TASKS_CGROUP_DEPTH);
		if (readmem_ulong(rm, kn + l->o_kn_name, &name, err) != MDF_OK ||
		    read_str(rm, name, names[depth], sizeof(names[depth]), err) != MDF_OK)
			return mdf_err_push(err, "kernfs node 0x%llx", (unsigned long long)kn);
		depth++;
		kn = parent;
	}
	if (cap < 2)
		return mdf_err_set(err, MDF_ERR_INTERNAL, "no room for a cgroup path");
	buf[0] = '/';
	buf[1] = '\0';
	len = depth ? 0 : 1;
	while (depth--) {
		int w = snprintf(buf + len, cap - len, "/%s", names[depth]);

		if (w < 0 || (size_t)w >= cap - len)
			return mdf_err_set(err, MDF_ERR_FORMAT, "a cgroup path longer than %zu bytes",
					   cap - 1);
		len += (size_t)w;
	}
	return MDF_OK;
}

enum mdf_status tasks_each(const struct tasks_layout *l, struct readmem *rm,
			   int (*cb)(void *arg, const struct task_info *t), void *arg,
			   struct mdf_err *err)
{
	uint64_t head = l->init_task + l->o_tasks, node = head;
	struct task_info t;
	unsigned n = 0;

	do {
		uint64_t task = node - l->o_tasks;

		if (++n > TASKS_MAX)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "the list of tasks from init_task has more than %u entries: "
					   "a loop in a damaged dump", TASKS_MAX);
		if (read_task(l, rm, task, &t, err) != MDF_OK)
			return err->status;
		if (cb(arg, &t))
			return MDF_OK;
		if (readmem_ulong(rm, node, &node, err) != MDF_OK)
			return mdf_err_push(err, "the list of tasks at 0x%llx",
					    (unsigned long long)node);
	} while (node != head);
	return MDF_OK;
}
