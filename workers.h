/*
 * workers.h - a bounded pool of worker threads that hands results back in
 * submission order.
 *
 * The caller submits opaque jobs; N threads (created once, in
 * workers_create()) run ops->process() on them, each with its own private
 * state made by ops->init() (e.g. its own compressor); one consumer takes
 * the finished jobs back strictly in the order they were submitted.  The
 * ring holds at most workers_capacity() jobs between submit and take:
 * workers_submit() blocks while it is full, so a slow consumer slows the
 * producer down instead of letting memory grow.
 *
 * Nothing spins: waiting is done on condition variables, one mutex guards
 * the ring, and it is taken a few times per job (so make jobs coarse, e.g.
 * a batch of pages).  Errors are per job: process() fills the job's own
 * struct mdf_err and workers_take() hands it to the consumer with the job.
 *
 * With 0 threads there are no threads at all: workers_submit() runs the
 * job in the caller's thread before it returns, with the one state made by
 * init(0), so a caller keeps a single code path for serial and parallel.
 *
 * The pool knows nothing of pages or dump formats.
 */
#ifndef MDF_WORKERS_H
#define MDF_WORKERS_H

#include <stdbool.h>

#include "error.h"

#define WORKERS_MAX_THREADS 256

struct workers;

struct workers_ops {
	/**
	 * Optional: make the private state of worker @idx (0 .. nthreads-1,
	 * or 0 alone with 0 threads) in *@state.  Called from
	 * workers_create() in the caller's thread, before any thread starts.
	 */
	enum mdf_status (*init)(void *arg, unsigned idx, void **state,
				struct mdf_err *err);
	/** Optional: free what init() made (after every thread is joined). */
	void (*fini)(void *arg, unsigned idx, void *state);
	/**
	 * Run @job with the calling worker's @state.  Runs in a worker
	 * thread, concurrently with other jobs: touch only @job and @state.
	 * On failure fill @err (the job's own) and return its status.
	 */
	enum mdf_status (*process)(void *job, void *state, struct mdf_err *err);
};

/**
 * Start @nthreads threads (0 = run jobs inline in workers_submit(), at most
 * WORKERS_MAX_THREADS) around a ring of @nslots jobs (rounded up to a power
 * of two; 0 or 1 gives 1).  init() runs for every worker first; when one
 * fails, the ones made are finalised and its error is returned.  @ops and
 * @arg must outlive the pool.  Errors: MDF_ERR_ARG, MDF_ERR_NOMEM,
 * MDF_ERR_INTERNAL (a thread could not be created), or init()'s.
 */
enum mdf_status workers_create(struct workers **pool, unsigned nthreads,
			       unsigned nslots, const struct workers_ops *ops,
			       void *arg, struct mdf_err *err) MDF_MUST_CHECK;

/** Ring size: how many jobs may be submitted and not yet taken. */
unsigned workers_capacity(const struct workers *pool);

/** Threads running jobs (0: inline). */
unsigned workers_threads(const struct workers *pool);

/** Jobs submitted and not yet taken back. */
unsigned workers_pending(struct workers *pool);

/**
 * Queue @job (owned by the caller, untouched by it until taken back).
 * Blocks while the ring is full, until a workers_take() makes room; a
 * thread that is both producer and consumer must therefore take before
 * submitting into a full ring.  With 0 threads the job is processed here.
 * Errors: MDF_ERR_ARG after workers_destroy() began.
 */
enum mdf_status workers_submit(struct workers *pool, void *job,
			       struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Take back the oldest job not yet taken, waiting until it is processed:
 * jobs come back in submission order, whatever order they finished in.
 * *@job is set even when the job failed; the result is the job's process()
 * status, with its message in @err.  MDF_ERR_ARG (and *@job NULL) when
 * nothing is pending.  Call from one consumer thread only.
 */
enum mdf_status workers_take(struct workers *pool, void **job,
			     struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Shut down: set the stop flag, wake every thread, join them, finalise
 * their states, free the pool.  Jobs already running finish; queued jobs
 * that no thread started are dropped unprocessed (their memory is the
 * caller's).  No thread touches any job once this returns.  Safe on NULL.
 * Must not race with submit/take on the same pool.
 */
void workers_destroy(struct workers *pool);

#endif
