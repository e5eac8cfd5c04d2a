/*
 * workers.c - bounded job ring, N threads, results in submission order.
 *
 * Three counters, all under one mutex, never wrap in practice (uint64_t):
 *
 *   tail <= next_run <= head,   head - tail <= nslots
 *
 *   [tail, next_run)   started: RUNNING or DONE, waiting to be taken
 *   [next_run, head)   QUEUED, no thread has picked them yet
 *
 * Job seq lives in slots[seq & mask].  Workers pick jobs in seq order;
 * they may finish in any order, and the consumer waits for slot
 * tail & mask to be DONE (zstdmt's doneJobID), so results come back in
 * order.  Condition variables: work (a job was queued, or stop), done
 * (the job at tail finished), room (take freed a slot).
 */
#include "workers.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum slot_state { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE };

struct slot {
	void *job;
	enum slot_state state;
	enum mdf_status status;
	struct mdf_err err;        /* the job's own; written by its runner */
};

struct worker {
	struct workers *pool;
	unsigned idx;
	void *state;               /* from ops->init */
	bool have_state;
	bool started;              /* thread created, must be joined */
	pthread_t tid;
};

struct workers {
	pthread_mutex_t lock;
	pthread_cond_t work_cond;
	pthread_cond_t done_cond;
	pthread_cond_t room_cond;
	struct slot *slots;
	unsigned nslots, mask;
	uint64_t head, next_run, tail;
	bool stop;
	unsigned nthreads;
	struct worker *w;          /* nthreads entries, or 1 when inline */
	unsigned nw;
	const struct workers_ops *ops;
	void *arg;
};

/*
 * Run the job of slot @s (sequence @seq) with worker state @state.  Called
 * with the lock held; drops it while the job runs and holds it again on
 * return.  The slot's error is the runner's alone while RUNNING.
 */
static void run_slot(struct workers *pool, struct slot *s, uint64_t seq,
		     void *state)
{
	void *job = s->job;
	enum mdf_status st;

	s->state = SLOT_RUNNING;
	pthread_mutex_unlock(&pool->lock);
	mdf_err_clear(&s->err);
	st = pool->ops->process(job, state, &s->err);
	pthread_mutex_lock(&pool->lock);
	s->status = st;
	s->state = SLOT_DONE;
	if (seq == pool->tail)
		pthread_cond_signal(&pool->done_cond);
}

static void *worker_main(void *p)
{
	struct worker *me = p;
	struct workers *pool = me->pool;

	pthread_mutex_lock(&pool->lock);
	for (;;) {
		struct slot *s;
		uint64_t seq;

		while (!pool->stop && pool->next_run == pool->head)
			pthread_cond_wait(&pool->work_cond, &pool->lock);
		if (pool->stop)
			break;
		seq = pool->next_run++;
		s = &pool->slots[seq & pool->mask];
		run_slot(pool, s, seq, me->state);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

/* Stop and join the threads, finalise the states, free everything. */
static void pool_free(struct workers *pool)
{
	pthread_mutex_lock(&pool->lock);
	pool->stop = true;
	pthread_cond_broadcast(&pool->work_cond);
	pthread_cond_broadcast(&pool->room_cond);
	pthread_mutex_unlock(&pool->lock);
	for (unsigned i = 0; i < pool->nw; i++)
		if (pool->w[i].started)
			pthread_join(pool->w[i].tid, NULL);
	for (unsigned i = 0; i < pool->nw; i++)
		if (pool->w[i].have_state && pool->ops->fini)
			pool->ops->fini(pool->arg, i, pool->w[i].state);
	pthread_cond_destroy(&pool->work_cond);
	pthread_cond_destroy(&pool->done_cond);
	pthread_cond_destroy(&pool->room_cond);
	pthread_mutex_destroy(&pool->lock);
	free(pool->w);
	free(pool->slots);
	free(pool);
}

enum mdf_status workers_create(struct workers **poolp, unsigned nthreads,
			       unsigned nslots, const struct workers_ops *ops,
			       void *arg, struct mdf_err *err)
{
	struct workers *pool;
	unsigned n = 1;
	enum mdf_status st;

	*poolp = NULL;
	if (!ops || !ops->process)
		return mdf_err_set(err, MDF_ERR_ARG, "workers: no process callback");
	if (nthreads > WORKERS_MAX_THREADS)
		return mdf_err_set(err, MDF_ERR_ARG,
				   "workers: %u threads asked for, at most %u",
				   nthreads, WORKERS_MAX_THREADS);
	if (nslots > (1u << 20))
		return mdf_err_set(err, MDF_ERR_ARG,
				   "workers: ring of %u jobs is too large", nslots);
	while (n < nslots)
		n <<= 1;
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return mdf_err_set(err, MDF_ERR_NOMEM, "workers: out of memory");
	/* From here on pool_free() is safe: it only looks at nw entries. */
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work_cond, NULL);
	pthread_cond_init(&pool->done_cond, NULL);
	pthread_cond_init(&pool->room_cond, NULL);
	pool->nslots = n;
	pool->mask = n - 1;
	pool->nthreads = nthreads;
	pool->ops = ops;
	pool->arg = arg;
	pool->slots = calloc(n, sizeof(*pool->slots));
	pool->w = calloc(nthreads ? nthreads : 1, sizeof(*pool->w));
	if (!pool->slots || !pool->w) {
		pool_free(pool);
		return mdf_err_set(err, MDF_ERR_NOMEM,
				   "workers: out of memory for %u jobs", n);
	}
	pool->nw = nthreads ? nthreads : 1;
	for (unsigned i = 0; i < pool->nw; i++) {
		pool->w[i].pool = pool;
		pool->w[i].idx = i;
		if (!ops->init)
			continue;
		st = ops->init(arg, i, &pool->w[i].state, err);
		if (st != MDF_OK) {
			pool_free(pool);
			return mdf_err_push(err, "worker %u", i);
		}
		pool->w[i].have_state = true;
	}
	for (unsigned i = 0; i < nthreads; i++) {
		int e = pthread_create(&pool->w[i].tid, NULL, worker_main, &pool->w[i]);

		if (e) {
			pool_free(pool);
			return mdf_err_errno(err, e == EAGAIN ? MDF_ERR_NOMEM : MDF_ERR_INTERNAL,
					     e, "workers: cannot start thread %u of %u",
					     i + 1, nthreads);
		}
		pool->w[i].started = true;
	}
	*poolp = pool;
	return MDF_OK;
}

unsigned workers_capacity(const struct workers *pool)
{
	return pool->nslots;
}

unsigned workers_threads(const struct workers *pool)
{
	return pool->nthreads;
}

unsigned workers_pending(struct workers *pool)
{
	unsigned n;

	pthread_mutex_lock(&pool->lock);
	n = (unsigned)(pool->head - pool->tail);
	pthread_mutex_unlock(&pool->lock);
	return n;
}

enum mdf_status workers_submit(struct workers *pool, void *job,
			       struct mdf_err *err)
{
	struct slot *s;
	uint64_t seq;

	pthread_mutex_lock(&pool->lock);
	while (!pool->stop && pool->head - pool->tail >= pool->nslots)
		pthread_cond_wait(&pool->room_cond, &pool->lock);
	if (pool->stop) {
		pthread_mutex_unlock(&pool->lock);
		return mdf_err_set(err, MDF_ERR_ARG, "workers: submit after shutdown");
	}
	seq = pool->head++;
	s = &pool->slots[seq & pool->mask];
	s->job = job;
	if (pool->nthreads) {
		s->state = SLOT_QUEUED;
		pthread_cond_signal(&pool->work_cond);
		pthread_mutex_unlock(&pool->lock);
		return MDF_OK;
	}
	/* Inline: run it here, in order, as a worker would. */
	pool->next_run++;
	run_slot(pool, s, seq, pool->w[0].state);
	pthread_mutex_unlock(&pool->lock);
	return MDF_OK;
}

enum mdf_status workers_take(struct workers *pool, void **job,
			     struct mdf_err *err)
{
	struct slot *s;
	enum mdf_status st;

	pthread_mutex_lock(&pool->lock);
	if (pool->tail == pool->head) {
		pthread_mutex_unlock(&pool->lock);
		*job = NULL;
		return mdf_err_set(err, MDF_ERR_ARG, "workers: no job to take");
	}
	s = &pool->slots[pool->tail & pool->mask];
	while (s->state != SLOT_DONE)
		pthread_cond_wait(&pool->done_cond, &pool->lock);
	*job = s->job;
	st = s->status;
	if (st != MDF_OK)
		*err = s->err;
	s->job = NULL;
	s->state = SLOT_FREE;
	pool->tail++;
	pthread_cond_signal(&pool->room_cond);
	pthread_mutex_unlock(&pool->lock);
	return st;
}

void workers_destroy(struct workers *pool)
{
	if (pool)
		pool_free(pool);
}
