/*
 * stop.h - the stop signals (SIGTERM from systemd or kdump's timeout,
 * SIGHUP, SIGINT), from the first open() to the last fdatasync().
 *
 * They are blocked in every thread and taken by one thread of their own
 * (no handler, no global).  The run looks at stop_check() in its loops
 * and unwinds with MDF_ERR_INTERRUPTED, its outputs left marked
 * incomplete; main() then ends the process by the same signal
 * (stop_finish()), so a caller sees the status of the signal it sent.
 * Where the run cannot look (blocked in a read of a pipe that nobody
 * writes, an open(), a slow device), the thread waits STOP_GRACE_MS and
 * then prints one line and ends the process by that signal itself: every
 * writer keeps its file marked incomplete until its last byte is durable,
 * so what it leaves never looks complete.
 */
#ifndef MDF_STOP_H
#define MDF_STOP_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "error.h"
#include "print_info.h"

#define STOP_GRACE_MS 500

struct mdf_stop {
	sigset_t sigs, old_mask;
	pthread_t thread;
	bool running;
	atomic_int sig;          /* the stop signal that came, or 0 */
	atomic_bool finished;    /* main() is done: no forced end */
	atomic_bool quit;        /* stop_finish() wakes the thread to end it */
	int wake;                /* the watched signal that wakes it */
	int pipe_fd[2];          /* a byte is written when a signal came */
	const char *output;      /* the run's output, for the forced end's line */
	_Atomic(const char *) tmp; /* a temporary file the forced end removes */
	const struct mdf_printer *pr;
};

/* Block the stop signals and start the thread (before any other thread
 * and any open()). */
enum mdf_status stop_start(struct mdf_stop *s, const struct mdf_printer *pr,
			   struct mdf_err *err);
/* MDF_ERR_INTERRUPTED, "stopped by SIGTERM", once a stop signal came. */
enum mdf_status stop_check(const struct mdf_stop *s, struct mdf_err *err);
/* The signal that came, or 0. */
int stop_signal(const struct mdf_stop *s);
/* A descriptor that becomes readable when a stop signal came, for a
 * writer's poll() beside its input (-R waiting for the stream); -1 when
 * nothing is watched. */
int stop_fd(const struct mdf_stop *s);
/* What the forced end (a run still blocked after the grace) names in its
 * line: the run's output (its caller keeps the string). */
void stop_name_output(struct mdf_stop *s, const char *path);
/* A temporary file (written under another name and renamed when whole)
 * that the forced end removes; NULL once it is renamed or removed.  The
 * caller keeps the string while it is noted. */
void stop_note_tmp(struct mdf_stop *s, const char *path);
/* The run has unwound: from here on the thread leaves the ending to
 * stop_finish() (the run's own message comes, not a second one). */
void stop_settle(struct mdf_stop *s);
/* The run is over: end the thread and, when a stop signal came, end the
 * process by it (does not return then). */
void stop_finish(struct mdf_stop *s);

#endif
