/*
 * tasks.c - the crashed kernel's processes (tasks.h).
 */
#include "kernel/tasks.h"

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
	return st;
}

static enum mdf_status read_task(const struct tasks_layout *l, struct readmem *rm, bool be,
				 uint64_t task, struct task_info *t, struct mdf_err *err)
{
	unsigned char b[16];
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
		st = readmem_vaddr(rm, task + l->o_mm, b, 8, err);
	if (st == MDF_OK)
		t->mm = load_t64(b, be);
	if (st == MDF_OK && t->mm) {
		st = readmem_vaddr(rm, t->mm + l->o_pgd, b, 8, err);
		if (st == MDF_OK)
			t->pgd = load_t64(b, be);
	}
	if (st != MDF_OK)
		return mdf_err_push(err, "task_struct at 0x%llx", (unsigned long long)task);
	return MDF_OK;
}

enum mdf_status tasks_each(const struct tasks_layout *l, struct readmem *rm, bool be,
			   int (*cb)(void *arg, const struct task_info *t), void *arg,
			   struct mdf_err *err)
{
	uint64_t head = l->init_task + l->o_tasks, node = head;
	unsigned char b[8];
	struct task_info t;
	unsigned n = 0;

	do {
		uint64_t task = node - l->o_tasks;

		if (++n > TASKS_MAX)
			return mdf_err_set(err, MDF_ERR_FORMAT,
					   "the list of tasks from init_task has more than %u entries: "
					   "a loop in a damaged dump", TASKS_MAX);
		if (read_task(l, rm, be, task, &t, err) != MDF_OK)
			return err->status;
		if (cb(arg, &t))
			return MDF_OK;
		if (readmem_vaddr(rm, node, b, 8, err) != MDF_OK)
			return mdf_err_push(err, "the list of tasks at 0x%llx",
					    (unsigned long long)node);
		node = load_t64(b, be);
	} while (node != head);
	return MDF_OK;
}
