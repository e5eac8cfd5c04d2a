/*
 * stop.h - SIGTERM, SIGHUP and SIGINT for the writers that run without
 * the dump's signal thread (dump.c): -R, --reassemble and -g.
 *
 * The signals are blocked in the calling thread and taken from a
 * signalfd, so a stop is seen where the writer looks (between pieces of
 * work, or while it waits for input: stop_fd() goes into its poll()), the
 * file it writes keeps its incomplete mark, and the run ends with a
 * message and exit status 1 instead of a death by the signal that leaves
 * a file looking whole.  No handler and no global: the state is the
 * caller's struct.  These writers are single-threaded.
 */
#ifndef MDF_STOP_H
#define MDF_STOP_H

#include <signal.h>
#include <stdbool.h>

#include "error.h"

struct stop_watch {
	int fd;             /* the signalfd, or -1 */
	sigset_t set, old;  /* the stop signals; the mask before */
	bool blocked;
	int sig;            /* the signal that came, or 0 */
};

/** Block the stop signals and open the signalfd.  Without a signalfd
 *  (an old kernel) the signals stay as they were: a stop kills. */
enum mdf_status stop_start(struct stop_watch *s, struct mdf_err *err) MDF_MUST_CHECK;

/** MDF_ERR_INTERRUPTED "stopped by SIGTERM" when a stop signal came
 *  (now or before); MDF_OK otherwise.  Safe on a watch that never
 *  started (s->fd < 0). */
enum mdf_status stop_check(struct stop_watch *s, struct mdf_err *err) MDF_MUST_CHECK;

/** The descriptor to poll() for POLLIN next to the input, or -1. */
int stop_fd(const struct stop_watch *s);

/** Close the signalfd and restore the mask: a stop signal that came
 *  after the last stop_check() ends the process now, by that signal. */
void stop_end(struct stop_watch *s);

#endif
