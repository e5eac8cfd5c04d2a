/*
 * tasks.h - the crashed kernel's processes, from init_task's list of
 * tasks (task_struct.tasks), with the types of the dump's BTF or -x's
 * DWARF (filter/erase.h's struct erase_types): pid, tgid, comm, mm and
 * the mm's page-table root.  For --keep-task (filter/keeptask.h).
 */
#ifndef MDF_FILTER_TASKS_H
#define MDF_FILTER_TASKS_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "readmem.h"

struct erase_types;

/* Where struct task_struct and struct mm_struct keep what the walk reads. */
struct tasks_layout {
	uint64_t init_task;           /* running address */
	uint64_t o_tasks, o_pid, o_tgid, o_comm, o_mm, o_pgd;
	unsigned pid_size;            /* bytes of pid_t */
	/* a task's cgroup on the default (v2) hierarchy: task->cgroups
	 * (struct css_set), its dfl_cgrp, that cgroup's kn, each kernfs
	 * node's name and parent; has_cgroup false when the types lack one */
	bool has_cgroup;
	uint64_t o_cgroups, o_dfl_cgrp, o_cg_kn, o_kn_name, o_kn_parent;
};

struct task_info {
	uint64_t task;                /* its task_struct */
	int32_t pid, tgid;
	char comm[17];                /* TASK_COMM_LEN 16, and a NUL */
	uint64_t mm;                  /* 0: a kernel thread */
	uint64_t pgd;                 /* mm->pgd (a kernel virtual address) */
};

/* No kernel runs more tasks than this: the list of a damaged dump that
 * loops ends here. */
#define TASKS_MAX (1u << 22)

/** The layout from @types; @kernel_offset moves symbols when the types
 *  give them as linked (-x).  An error names what is missing. */
enum mdf_status tasks_layout(struct tasks_layout *l, const struct erase_types *types,
			     uint64_t kernel_offset, struct mdf_err *err) MDF_MUST_CHECK;

/* The deepest cgroup path read, in kernfs nodes. */
#define TASKS_CGROUP_DEPTH 64

/**
 * The path of @task's cgroup on the default hierarchy ("/" for the root,
 * "/system.slice/x.service" below it) into @buf (@cap bytes).  An error
 * names what could not be read; a path longer than @cap is one.
 */
enum mdf_status tasks_cgroup_path(const struct tasks_layout *l, struct readmem *rm,
				  uint64_t task, char *buf, size_t cap,
				  struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Each task on init_task's list (init_task first) to @cb, until it
 * returns non-zero.  A task_struct the dump lacks ends the walk with an
 * error naming it; so does a list longer than TASKS_MAX.
 */
enum mdf_status tasks_each(const struct tasks_layout *l, struct readmem *rm,
			   int (*cb)(void *arg, const struct task_info *t), void *arg,
			   struct mdf_err *err) MDF_MUST_CHECK;

#endif
