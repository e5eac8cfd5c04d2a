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

static enum mdf_status fake_read(void *arg, uint64_t paddr, uint64_t *pte_ret,
				 struct mdf_err *err)
{
	struct fake_mem *m = arg;

	if (m->nlog < FAKE_MAX)
		m->log[m->nlog++] = paddr;
	for (size_t i = 0; i < m->n; i++) {
		if (m->paddr[i] == paddr) {
			*pte_ret = m->val[i];
			return MDF_OK;
		}
	}
	return mdf_err_set(err, MDF_ERR_NODATA, "fake: paddr 0x%llx not in memory",
			   (unsigned long long)paddr);
}

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
