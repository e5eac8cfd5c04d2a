/*
 * test_workers_thread.c - the worker pool (workers.c): order, backpressure,
 * errors, shutdown, inline mode.  "thread" in the name puts it in
 * `make tsan-check` (TESTS=thread).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "tap.h"
#include "workers.h"

#if defined(__SANITIZE_THREAD__)
#define TINY_JOBS 20000u
#else
#define TINY_JOBS 100000u
#endif

struct tjob {
	uint64_t id;
	unsigned delay_us;
	bool fail;
	uint64_t result;
	pthread_t ran_on;
};

struct tstate {
	unsigned idx;
	uint64_t jobs;            /* plain counter: TSan sees sharing */
};

struct targ {
	atomic_uint inits, finis;
	atomic_ullong jobs_seen;  /* sum of tstate.jobs at fini */
	atomic_ullong processed;
	int fail_init_at;         /* -1: never */
};

static void sleep_us(unsigned us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static enum mdf_status t_init(void *arg, unsigned idx, void **state,
			      struct mdf_err *err)
{
	struct targ *a = arg;
	struct tstate *s;

	if (a->fail_init_at >= 0 && idx == (unsigned)a->fail_init_at)
		return mdf_err_set(err, MDF_ERR_NOMEM, "no memory for state");
	s = calloc(1, sizeof(*s));
	if (!s)
		return mdf_err_set(err, MDF_ERR_NOMEM, "calloc");
	s->idx = idx;
	*state = s;
	atomic_fetch_add(&a->inits, 1);
	return MDF_OK;
}

static void t_fini(void *arg, unsigned idx, void *state)
{
	struct targ *a = arg;
	struct tstate *s = state;

	if (s->idx != idx)
		abort();
	atomic_fetch_add(&a->jobs_seen, s->jobs);
	atomic_fetch_add(&a->finis, 1);
	free(s);
}

/* Needs the pool's arg for the processed counter: kept in a static. */
static struct targ *t_cur;

static enum mdf_status t_process(void *job, void *state, struct mdf_err *err)
{
	struct tjob *j = job;
	struct tstate *s = state;

	if (j->delay_us)
		sleep_us(j->delay_us);
	s->jobs++;
	j->ran_on = pthread_self();
	j->result = mix(j->id);
	atomic_fetch_add(&t_cur->processed, 1);
	if (j->fail)
		return mdf_err_set(err, MDF_ERR_IO, "job %llu: read failed",
				   (unsigned long long)j->id);
	return MDF_OK;
}

static const struct workers_ops t_ops = {
	.init = t_init, .fini = t_fini, .process = t_process,
};

static void targ_reset(struct targ *a)
{
	atomic_store(&a->inits, 0);
	atomic_store(&a->finis, 0);
	atomic_store(&a->jobs_seen, 0);
	atomic_store(&a->processed, 0);
	a->fail_init_at = -1;
	t_cur = a;
}

/*
 * The writer's pattern: one thread produces and consumes.  Jobs live in a
 * ring of capacity entries; after each submit, take while the ring is full.
 * Returns false (with a message in *why) on the first wrong result.
 */
static bool run_ordered(unsigned nthreads, unsigned nslots, uint64_t njobs,
			unsigned max_delay_us, char *why, size_t whylen)
{
	struct targ a;
	struct workers *pool;
	struct mdf_err err;
	struct tjob *jobs;
	uint64_t next_take = 0;
	unsigned cap;
	bool good = true;

	targ_reset(&a);
	if (workers_create(&pool, nthreads, nslots, &t_ops, &a, &err) != MDF_OK) {
		snprintf(why, whylen, "create: %.400s", err.msg);
		return false;
	}
	cap = workers_capacity(pool);
	jobs = calloc(cap, sizeof(*jobs));
	for (uint64_t i = 0; good && (i < njobs || next_take < njobs);) {
		void *got;

		if (i < njobs) {
			struct tjob *j = &jobs[i & (cap - 1)];

			j->id = i;
			j->delay_us = max_delay_us ? (unsigned)(mix(i * 7 + 1) % max_delay_us) : 0;
			j->fail = false;
			j->result = 0;
			if (workers_submit(pool, j, &err) != MDF_OK) {
				snprintf(why, whylen, "submit %llu: %.400s",
					 (unsigned long long)i, err.msg);
				good = false;
				break;
			}
			i++;
			if (workers_pending(pool) < cap && i < njobs)
				continue;
		}
		if (workers_take(pool, &got, &err) != MDF_OK) {
			snprintf(why, whylen, "take %llu: %.400s",
				 (unsigned long long)next_take, err.msg);
			good = false;
		} else if (((struct tjob *)got)->id != next_take ||
			   ((struct tjob *)got)->result != mix(next_take)) {
			snprintf(why, whylen, "took job %llu, expected %llu",
				 (unsigned long long)((struct tjob *)got)->id,
				 (unsigned long long)next_take);
			good = false;
		}
		next_take++;
	}
	workers_destroy(pool);
	free(jobs);
	if (good && (atomic_load(&a.finis) != atomic_load(&a.inits) ||
		     atomic_load(&a.jobs_seen) != njobs ||
		     atomic_load(&a.processed) != njobs)) {
		snprintf(why, whylen, "%u inits %u finis, %llu jobs seen of %llu",
			 atomic_load(&a.inits), atomic_load(&a.finis),
			 (unsigned long long)atomic_load(&a.jobs_seen),
			 (unsigned long long)njobs);
		good = false;
	}
	return good;
}

static void test_thread_order_random_delays(void)
{
	char why[600];

	for (unsigned n = 1; n <= 8; n++) {
		bool ok = run_ordered(n, 2 * n + 2, 400, 300, why, sizeof(why));

		if (!ok)
			printf("# %u threads: %s\n", n, why);
		T_ASSERT(ok);
	}
}

static void test_thread_tiny_jobs(void)
{
	char why[600];

	for (unsigned n = 1; n <= 8; n++) {
		bool ok = run_ordered(n, 4 * n, TINY_JOBS, 0, why, sizeof(why));

		if (!ok)
			printf("# %u threads: %s\n", n, why);
		T_ASSERT(ok);
	}
}

static void test_thread_inline_zero_threads(void)
{
	struct targ a;
	struct workers *pool;
	struct mdf_err err;
	struct tjob j[3] = { { .id = 0 }, { .id = 1 }, { .id = 2 } };
	void *got;
	char why[600];

	targ_reset(&a);
	T_OK(workers_create(&pool, 0, 4, &t_ops, &a, &err), &err);
	T_EQ_U64(workers_threads(pool), 0);
	T_EQ_U64(workers_capacity(pool), 4);
	T_EQ_U64(atomic_load(&a.inits), 1);
	for (int i = 0; i < 3; i++) {
		T_OK(workers_submit(pool, &j[i], &err), &err);
		/* Processed before submit returned, on this thread. */
		T_EQ_U64(j[i].result, mix((uint64_t)i));
		T_ASSERT(pthread_equal(j[i].ran_on, pthread_self()));
	}
	T_EQ_U64(workers_pending(pool), 3);
	for (int i = 0; i < 3; i++) {
		T_OK(workers_take(pool, &got, &err), &err);
		T_ASSERT(got == &j[i]);
	}
	T_EQ_U64(workers_take(pool, &got, &err), MDF_ERR_ARG);
	T_ASSERT(got == NULL);
	workers_destroy(pool);
	T_EQ_U64(atomic_load(&a.finis), 1);
	T_ASSERT(run_ordered(0, 1, 1000, 0, why, sizeof(why)));
}

/* Job 17 of 40 fails; the error reaches the consumer with job 17, in
 * order, and the jobs around it are unaffected. */
static void test_thread_error_propagates(void)
{
	for (unsigned n = 0; n <= 4; n++) {
		struct targ a;
		struct workers *pool;
		struct mdf_err err;
		struct tjob jobs[40];
		unsigned cap;
		uint64_t taken = 0;

		targ_reset(&a);
		memset(jobs, 0, sizeof(jobs));
		T_OK(workers_create(&pool, n, 64, &t_ops, &a, &err), &err);
		cap = workers_capacity(pool);
		T_ASSERT(cap >= 40);
		for (unsigned i = 0; i < 40; i++) {
			jobs[i].id = i;
			jobs[i].fail = i == 17;
			jobs[i].delay_us = i == 17 ? 2000 : (i % 5) * 100;
			T_OK(workers_submit(pool, &jobs[i], &err), &err);
		}
		for (unsigned i = 0; i < 40; i++) {
			void *got;
			enum mdf_status st;

			mdf_err_clear(&err);
			st = workers_take(pool, &got, &err);
			T_ASSERT(got == &jobs[i]);
			if (i == 17) {
				T_EQ_U64(st, MDF_ERR_IO);
				T_EQ_STR(err.msg, "job 17: read failed");
			} else {
				T_EQ_U64(st, MDF_OK);
				T_EQ_U64(err.status, MDF_OK);
			}
			taken++;
		}
		T_EQ_U64(taken, 40);
		workers_destroy(pool);
		T_EQ_U64(atomic_load(&a.jobs_seen), 40);
	}
}

static void test_thread_init_failure(void)
{
	struct targ a;
	struct workers *pool = (struct workers *)&a;
	struct mdf_err err;

	targ_reset(&a);
	a.fail_init_at = 2;
	T_EQ_U64(workers_create(&pool, 4, 8, &t_ops, &a, &err), MDF_ERR_NOMEM);
	T_ASSERT(pool == NULL);
	T_EQ_STR(err.msg, "worker 2: no memory for state");
	T_EQ_U64(atomic_load(&a.inits), 2);
	T_EQ_U64(atomic_load(&a.finis), 2);

	T_EQ_U64(workers_create(&pool, WORKERS_MAX_THREADS + 1, 8, &t_ops, &a, &err),
		 MDF_ERR_ARG);
	T_EQ_U64(workers_create(&pool, 1, 8, NULL, &a, &err), MDF_ERR_ARG);
	workers_destroy(NULL);
}

/* A slow consumer in its own thread: the producer never gets more than
 * the ring's capacity ahead, and it does have to wait. */
struct bp {
	struct workers *pool;
	struct tjob *jobs;
	uint64_t njobs;
	atomic_ullong taken;
	atomic_ullong submitted;
	atomic_bool bad;
};

static void *bp_consumer(void *p)
{
	struct bp *b = p;
	struct mdf_err err;

	for (uint64_t i = 0; i < b->njobs; i++) {
		void *got;

		if (i % 4 == 0)
			sleep_us(1000);
		/* take() does not wait for a job to be submitted: wait here. */
		while (atomic_load(&b->submitted) <= i)
			sleep_us(50);
		if (workers_take(b->pool, &got, &err) != MDF_OK ||
		    ((struct tjob *)got)->id != i ||
		    ((struct tjob *)got)->result != mix(i))
			atomic_store(&b->bad, true);
		atomic_store(&b->taken, i + 1);
	}
	return NULL;
}

static void test_thread_backpressure_slow_consumer(void)
{
	for (unsigned n = 1; n <= 3; n++) {
		struct targ a;
		struct bp b = { .njobs = 200 };
		struct mdf_err err;
		pthread_t tid;
		unsigned cap;
		uint64_t max_ahead = 0;
		struct timespec t0, t1;
		double secs;

		targ_reset(&a);
		atomic_store(&b.taken, 0);
		atomic_store(&b.submitted, 0);
		atomic_store(&b.bad, false);
		T_OK(workers_create(&b.pool, n, 8, &t_ops, &a, &err), &err);
		cap = workers_capacity(b.pool);
		T_EQ_U64(cap, 8);
		b.jobs = calloc(b.njobs, sizeof(*b.jobs));
		T_ASSERT(pthread_create(&tid, NULL, bp_consumer, &b) == 0);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (uint64_t i = 0; i < b.njobs; i++) {
			uint64_t ahead;

			b.jobs[i].id = i;
			if (workers_submit(b.pool, &b.jobs[i], &err) != MDF_OK)
				atomic_store(&b.bad, true);
			atomic_store(&b.submitted, i + 1);
			/* i + 1 submitted; at least taken were taken. */
			ahead = i + 1 - atomic_load(&b.taken);
			if (ahead > max_ahead)
				max_ahead = ahead;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		pthread_join(tid, NULL);
		workers_destroy(b.pool);
		free(b.jobs);
		secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		T_ASSERT(!atomic_load(&b.bad));
		/* taken is stored just after each take returns: one more
		 * may have been taken than it says. */
		T_ASSERT(max_ahead <= cap + 1);
		/* The consumer sleeps 50 x 1 ms; the producer had to wait for
		 * most of it (all but the first ring-full of jobs). */
		T_ASSERT(secs > 0.035);
		T_EQ_U64(atomic_load(&a.processed), b.njobs);
	}
}

/* Shut down with jobs queued and running: destroy returns, running jobs
 * finish, queued ones are dropped, nothing runs afterwards. */
static void test_thread_shutdown_in_flight(void)
{
	for (unsigned n = 1; n <= 8; n++) {
		struct targ a;
		struct workers *pool;
		struct mdf_err err;
		struct tjob jobs[64];
		uint64_t after;

		targ_reset(&a);
		memset(jobs, 0, sizeof(jobs));
		T_OK(workers_create(&pool, n, 64, &t_ops, &a, &err), &err);
		for (unsigned i = 0; i < 64; i++) {
			jobs[i].id = i;
			jobs[i].delay_us = 3000;
			T_OK(workers_submit(pool, &jobs[i], &err), &err);
		}
		sleep_us(1000);
		workers_destroy(pool);
		after = atomic_load(&a.processed);
		T_ASSERT(after < 64);
		T_EQ_U64(atomic_load(&a.finis), n);
		T_EQ_U64(atomic_load(&a.jobs_seen), after);
		sleep_us(10000);
		T_EQ_U64(atomic_load(&a.processed), after);
	}
	/* And with nothing submitted at all. */
	{
		struct targ a;
		struct workers *pool;
		struct mdf_err err;

		targ_reset(&a);
		T_OK(workers_create(&pool, 3, 4, &t_ops, &a, &err), &err);
		workers_destroy(pool);
		T_EQ_U64(atomic_load(&a.finis), 3);
	}
}

/* Every worker gets its own state, and process() always sees one. */
static void test_thread_states_private(void)
{
	char why[600];
	struct targ a;
	struct workers *pool;
	struct mdf_err err;

	targ_reset(&a);
	T_OK(workers_create(&pool, 5, 16, &t_ops, &a, &err), &err);
	T_EQ_U64(atomic_load(&a.inits), 5);
	T_EQ_U64(workers_threads(pool), 5);
	workers_destroy(pool);
	T_EQ_U64(atomic_load(&a.finis), 5);
	/* Non-power-of-two ring sizes round up. */
	targ_reset(&a);
	T_OK(workers_create(&pool, 2, 5, &t_ops, &a, &err), &err);
	T_EQ_U64(workers_capacity(pool), 8);
	workers_destroy(pool);
	T_ASSERT(run_ordered(3, 3, 500, 50, why, sizeof(why)));
}

int main(void)
{
	T_RUN(test_thread_inline_zero_threads);
	T_RUN(test_thread_order_random_delays);
	T_RUN(test_thread_tiny_jobs);
	T_RUN(test_thread_error_propagates);
	T_RUN(test_thread_init_failure);
	T_RUN(test_thread_backpressure_slow_consumer);
	T_RUN(test_thread_shutdown_in_flight);
	T_RUN(test_thread_states_private);
	return t_done();
}
