/*
 * keeptask.h - --keep-task SPEC: the memory of chosen processes kept at any
 * dump level.  SPEC is a pid (the process: every thread of it), or
 * comm:NAME (every process a thread of which is called NAME), or
 * cgroup:PATH (every process in that cgroup of the default hierarchy, or
 * below it: cgroup:/system.slice/foo.service).  Each chosen
 * process's address space is walked through its user page tables
 * (arch_user_leaves()): every page they map (anonymous, file, shmem, THP,
 * hugetlb) and the page-table pages themselves are kept, and so is the
 * page of its struct mm_struct, whatever class the rules give them.
 */
#ifndef MDF_KEEPTASK_H
#define MDF_KEEPTASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "error.h"
#include "opts.h"
#include "print_info.h"
#include "filter/pfnset.h"
#include "filter/tasks.h"
#include "readmem.h"

struct keeptask {
	const struct mdf_keep_spec *specs; /* the options' */
	unsigned nspecs;
	unsigned matched[MDF_MAX_KEEP_TASKS]; /* processes each one chose */
	struct mdf_kept_proc *procs;
	size_t nprocs, procs_cap;
	struct pfn_set kept;       /* compacted by keeptask_build() */
	unsigned page_shift;       /* the architecture's */
	struct tasks_layout layout; /* what keeptask_build() read them by */
	uint64_t *mms;             /* the chosen processes' mm_structs, a set */
	size_t nmms, mms_cap;
	bool all;                  /* every process with an address space */
	bool list_only;            /* keeptask_build() lists them, walks none */
	uint64_t cgroup_unreadable; /* tasks whose cgroup could not be read */
	struct mdf_err cgroup_err;  /* the first such error */
};

struct mdf_stop;

/**
 * Find the processes @kt->specs choose on the task list (@l) and walk
 * each one's page tables through @arch, reading through @rm; @stop (may
 * be NULL) is looked at between page-table pages.  A spec that chooses
 * nothing is left with matched 0 (the caller warns).
 */
enum mdf_status keeptask_build(struct keeptask *kt, const struct tasks_layout *l,
			       struct readmem *rm, const struct arch_state *arch,
			       const struct mdf_stop *stop, struct mdf_err *err) MDF_MUST_CHECK;

/** Each leaf of process @i's page tables (arch_user_leaves()) to @cb. */
enum mdf_status keeptask_walk_proc(const struct keeptask *kt, size_t i, struct readmem *rm,
				   const struct arch_state *arch, arch_leaf_fn cb, void *arg,
				   struct mdf_err *err) MDF_MUST_CHECK;

/** The process whose page tables map @pfn (its index in kt->procs, for
 *  --explain), found by walking them again; false when none does. */
bool keeptask_owner(const struct keeptask *kt, struct readmem *rm,
		    const struct arch_state *arch, uint64_t pfn, size_t *idx);

/** Whether any pfn of [@pfn, @pfn + @npfn) is kept (filter_keep). */
bool keeptask_has(void *kt, uint64_t pfn, uint64_t npfn);

void keeptask_free(struct keeptask *kt);

#endif
