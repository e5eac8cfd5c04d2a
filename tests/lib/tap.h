/*
 * tests/lib/tap.h - the tiny test harness shared by unit tests and fuzz replay.
 *
 * Each test case is a void function.  T_ASSERT and friends record the
 * first failure of the case (file:line and the expression) and return from
 * it.  t_run() prints one line per case, which tests/run.sh counts:
 *
 *   ok <name>
 *   not ok <name>: <file>:<line>: <what>
 *   skip <name>: <reason>
 */
#ifndef MDF_TESTS_TAP_H
#define MDF_TESTS_TAP_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct t_state {
	int pass, fail, skip;
	int case_failed, case_skipped;
	char why[1200];
};

static struct t_state t_st;

static inline void t_fail(const char *file, int line, const char *what)
{
	if (!t_st.case_failed)
		snprintf(t_st.why, sizeof(t_st.why), "%.200s:%d: %.900s", file, line, what);
	t_st.case_failed = 1;
}

static inline void t_skip(const char *why)
{
	snprintf(t_st.why, sizeof(t_st.why), "%s", why);
	t_st.case_skipped = 1;
}

static inline void t_run(const char *name, void (*fn)(void))
{
	t_st.case_failed = 0;
	t_st.case_skipped = 0;
	t_st.why[0] = '\0';
	fn();
	if (t_st.case_failed) {
		printf("not ok %s: %s\n", name, t_st.why);
		t_st.fail++;
	} else if (t_st.case_skipped) {
		printf("skip %s: %s\n", name, t_st.why);
		t_st.skip++;
	} else {
		printf("ok %s\n", name);
		t_st.pass++;
	}
	fflush(stdout);
}

static inline int t_done(void)
{
	return t_st.fail ? 1 : 0;
}

#define T_RUN(fn) t_run(#fn, fn)

#define T_ASSERT(cond)                                          \
	do {                                                    \
		if (!(cond)) {                                  \
			t_fail(__FILE__, __LINE__, #cond);      \
			return;                                 \
		}                                               \
	} while (0)

#define T_EQ_U64(a, b)                                                       \
	do {                                                                 \
		unsigned long long t_a_ = (unsigned long long)(a);           \
		unsigned long long t_b_ = (unsigned long long)(b);           \
		if (t_a_ != t_b_) {                                          \
			char t_m_[256];                                      \
			snprintf(t_m_, sizeof(t_m_), "%s == %s (0x%llx != 0x%llx)", \
				 #a, #b, t_a_, t_b_);                        \
			t_fail(__FILE__, __LINE__, t_m_);                    \
			return;                                              \
		}                                                            \
	} while (0)

#define T_EQ_STR(a, b)                                                       \
	do {                                                                 \
		const char *t_a_ = (a), *t_b_ = (b);                         \
		if (!t_a_ || !t_b_ || strcmp(t_a_, t_b_) != 0) {             \
			char t_m_[400];                                      \
			snprintf(t_m_, sizeof(t_m_), "%s == %s (\"%.150s\" != \"%.150s\")", \
				 #a, #b, t_a_ ? t_a_ : "(null)",             \
				 t_b_ ? t_b_ : "(null)");                    \
			t_fail(__FILE__, __LINE__, t_m_);                    \
			return;                                              \
		}                                                            \
	} while (0)

/* The call must return MDF_OK; on failure show the error message. */
#define T_OK(call, errp)                                                     \
	do {                                                                 \
		enum mdf_status t_s_ = (call);                               \
		if (t_s_ != MDF_OK) {                                        \
			char t_m_[400];                                      \
			snprintf(t_m_, sizeof(t_m_), "%s failed: %.300s", #call, \
				 (errp)->msg);                               \
			t_fail(__FILE__, __LINE__, t_m_);                    \
			return;                                              \
		}                                                            \
	} while (0)

#endif
