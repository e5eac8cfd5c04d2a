/*
 * tests/lib/archtest.h - shared by the architecture unit tests: a fake
 * physical memory of page-table entries whose read callback logs every
 * address it is asked for (so a test also proves what translation reads),
 * and two helpers for struct kinfo and error messages.
 */
#ifndef MDF_TESTS_ARCHTEST_H
#define MDF_TESTS_ARCHTEST_H

#include "arch/arch.h"
#include "tap.h"

#define FAKE_MAX 64

struct fake_mem {
	size_t n;
	uint64_t paddr[FAKE_MAX];
	uint64_t val[FAKE_MAX];
	size_t nlog;
	uint64_t log[FAKE_MAX];
};

static void fake_put(struct fake_mem *m, uint64_t paddr, uint64_t val)
{
	for (size_t i = 0; i < m->n; i++) {
		if (m->paddr[i] == paddr) {
			m->val[i] = val;
			return;
		}
	}
	if (m->n < FAKE_MAX) {
		m->paddr[m->n] = paddr;
		m->val[m->n++] = val;
	}
}

/* An entry of @size bytes is the value put at its address, cut to them. */
static enum mdf_status fake_read(void *arg, uint64_t paddr, unsigned size, uint64_t *pte_ret,
				 struct mdf_err *err)
{
	struct fake_mem *m = arg;

	if (m->nlog < FAKE_MAX)
		m->log[m->nlog++] = paddr;
	if (size != 4 && size != 8)
		return mdf_err_set(err, MDF_ERR_INTERNAL, "fake: %u-byte read", size);
	for (size_t i = 0; i < m->n; i++) {
		if (m->paddr[i] == paddr) {
			*pte_ret = size == 4 ? (uint32_t)m->val[i] : m->val[i];
			return MDF_OK;
		}
	}
	return mdf_err_set(err, MDF_ERR_NODATA, "fake: paddr 0x%llx not in memory",
			   (unsigned long long)paddr);
}

/* arch_user_leaves()'s callback: each leaf (and table, size 0) in turn,
 * the first 16 kept. */
struct leaf_log {
	size_t n;
	uint64_t va[16], pa[16], size[16];
};

static inline int log_leaf(void *arg, uint64_t va, uint64_t pa, uint64_t size)
{
	struct leaf_log *l = arg;

	if (l->n < 16) {
		l->va[l->n] = va;
		l->pa[l->n] = pa;
		l->size[l->n++] = size;
	}
	return 0;
}

/* The leaves logged are exactly @want's rows { vaddr, paddr, size }. */
#define T_LEAVES(log, want)                                              \
	do {                                                             \
		T_EQ_U64((log).n, ARRAY_SIZE(want));                     \
		for (size_t i_ = 0; i_ < ARRAY_SIZE(want); i_++) {       \
			T_EQ_U64((log).va[i_], (want)[i_][0]);          \
			T_EQ_U64((log).pa[i_], (want)[i_][1]);          \
			T_EQ_U64((log).size[i_], (want)[i_][2]);        \
		}                                                        \
	} while (0)

/* T_EQ_STR on the error message; the expected text goes through a variable
 * because a long literal in T_EQ_STR's stringified message trips
 * -Wformat-truncation. */
#define T_MSG(err, text)                      \
	do {                                  \
		const char *want_ = (text);   \
		T_EQ_STR((err).msg, want_);   \
	} while (0)

#define SET_U64(f, val) do { (f).v = (val); (f).set = true; } while (0)

#endif
