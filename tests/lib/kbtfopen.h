/*
 * tests/lib/kbtfopen.h - a real fixture opened with the kernel's kallsyms
 * and BTF read from the dump (kopen.h, kernel/kallsyms.h, kernel/btf.h),
 * for the unit tests of BTF.  Header-only.
 */
#ifndef MDF_TESTS_KBTFOPEN_H
#define MDF_TESTS_KBTFOPEN_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "error.h"
#include "kernel/btf.h"
#include "kernel/kallsyms.h"
#include "tap.h"
#include "realvm.h"
#include "kopen.h"

struct t_kbtf {
	struct t_kopen t;
	struct kallsyms ks;
	struct kbtf b;
	double load_secs; /* kallsyms and BTF, read from the dump */
};

static inline void t_kbtf_close(struct t_kbtf *x)
{
	kbtf_free(&x->b);
	kallsyms_free(&x->ks);
	t_kclose(&x->t);
}

/* Fixture @name opened, or false: skipped (no libbpf, no fixture) or
 * failed, with t_skip() or t_fail() saying why. */
static inline bool t_kbtf_open(struct t_kbtf *x, const char *name)
{
	struct realvm rv;
	struct mdf_err err;
	struct timespec t0, t1;
	char why[400];
	const char *step = "t_kopen_path";

	if (!kbtf_supported()) {
		t_skip("built without libbpf");
		return false;
	}
	if (!realvm_find_or_skip(&rv, name))
		return false;
	mdf_err_clear(&err);
	if (t_kopen_path(&x->t, rv.path, &err) != MDF_OK)
		goto fail;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	step = "kallsyms_load";
	if (kallsyms_load(&x->ks, &x->t.k.ki, &x->t.k.rm, &err) != MDF_OK) {
		t_kclose(&x->t);
		goto fail;
	}
	step = "kbtf_load";
	if (kbtf_load(&x->b, &x->ks, &x->t.k.rm, &err) != MDF_OK) {
		kallsyms_free(&x->ks);
		t_kclose(&x->t);
		goto fail;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	x->load_secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	return true;
fail:
	snprintf(why, sizeof(why), "%s: %s failed: %.300s", name, step, err.msg);
	t_fail(__FILE__, __LINE__, why);
	return false;
}

#endif
