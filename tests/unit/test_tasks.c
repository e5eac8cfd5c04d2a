/*
 * tests/unit/test_tasks.c - the crashed kernel's processes (filter/tasks.c)
 * on the real 6.1 and 6.12 fixtures, with the types of the dump's own BTF:
 * the task list starts at init_task (pid 0, swapper), holds init (pid 1)
 * and the lab's workload (labwork) with an mm and a page-table root in
 * the direct map, every thread's tgid names a process on the list, and
 * every task's cgroup path is "/" (the lab guest runs all in the root).
 * A callback that says stop ends the walk.
 */
#include <string.h>

#include "tap.h"

#include "filter/erase.h"
#include "filter/tasks.h"
#include "kbtfopen.h"

struct seen {
	unsigned n, stop_at;
	bool first_is_swapper, init, labwork, pgd_ok;
	const struct tasks_layout *l;
	struct readmem *rm;
	bool cgroups_root;
};

static int see(void *arg, const struct task_info *t)
{
	struct seen *s = arg;
	char path[256];
	struct mdf_err e;

	if (s->n++ == 0)
		s->first_is_swapper = t->pid == 0 && strncmp(t->comm, "swapper", 7) == 0;
	if (t->pid == 1 && t->mm)
		s->init = true;
	if (!strcmp(t->comm, "labwork") && t->mm) {
		s->labwork = true;
		/* x86_64's direct map */
		s->pgd_ok = t->pgd >= 0xffff800000000000ULL && t->pgd < 0xffffffff80000000ULL;
	}
	mdf_err_clear(&e);
	if (tasks_cgroup_path(s->l, s->rm, t->task, path, sizeof(path), &e) != MDF_OK ||
	    strcmp(path, "/") != 0)
		s->cgroups_root = false;
	return s->stop_at && s->n == s->stop_at;
}

static void real(const char *name)
{
	struct t_kbtf x;
	struct erase_dump_types d;
	struct erase_types ty;
	struct tasks_layout l;
	struct mdf_err err;
	struct seen s = { 0 };

	if (!t_kbtf_open(&x, name))
		return;
	d = (struct erase_dump_types){ &x.b, &x.ks };
	erase_types_from_dump(&ty, &d);
	mdf_err_clear(&err);
	if (tasks_layout(&l, &ty, 0, &err) != MDF_OK) {
		t_kbtf_close(&x);
		T_OK(MDF_ERR_FORMAT, &err);
	}
	T_ASSERT(l.has_cgroup);
	s.l = &l;
	s.rm = &x.t.k.rm;
	s.cgroups_root = true;
	if (tasks_each(&l, &x.t.k.rm, see, &s, &err) != MDF_OK) {
		t_kbtf_close(&x);
		T_OK(MDF_ERR_FORMAT, &err);
	}
	printf("# %s: %u tasks\n", name, s.n);
	T_ASSERT(s.n > 20 && s.first_is_swapper && s.init && s.labwork && s.pgd_ok);
	T_ASSERT(s.cgroups_root);
	/* a callback that says stop */
	memset(&s, 0, sizeof(s));
	s.l = &l;
	s.rm = &x.t.k.rm;
	s.stop_at = 3;
	T_OK(tasks_each(&l, &x.t.k.rm, see, &s, &err), &err);
	T_EQ_U64(s.n, 3);
	t_kbtf_close(&x);
}

static void real_61(void) { real("fx-v61-512m"); }
static void real_612(void) { real("fx-v612-512m"); }

int main(void)
{
	T_RUN(real_61);
	T_RUN(real_612);
	return t_done();
}
