/*
 * stop.c - the stop signals: one thread takes them (stop.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stop.h"

/* End the process by @sig, the way the signal's default action would. */
static void stop_die(int sig)
{
	sigset_t one;

	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	/* Unblocked in this thread, the signal is delivered before raise()
	 * returns: its default action ends the process. */
	raise(sig);
}

static void *stop_watch(void *arg)
{
	struct mdf_stop *s = arg;
	struct timespec step = { 0, 10 * 1000 * 1000 };
	int sig = 0;

	while (sigwait(&s->sigs, &sig) != 0)
		;
	/* stop_finish() woke us: no pthread_cancel(), whose unwinding
	 * leaves this frame's redzones poisoned under ASan. */
	if (atomic_load(&s->quit))
		return NULL;
	atomic_store(&s->sig, sig);
	if (s->pipe_fd[1] >= 0 && write(s->pipe_fd[1], "", 1) < 0) {
		/* a poll() beside the input then waits for the grace below */
	}
	/* The run looks at stop_check() between pages; give it the grace to
	 * unwind, print its line and call stop_finish(). */
	for (int waited = 0; waited < STOP_GRACE_MS; waited += 10) {
		if (atomic_load(&s->finished))
			return NULL;
		nanosleep(&step, NULL);
	}
	if (atomic_load(&s->finished))
		return NULL;
	{
		const char *tmp = atomic_load(&s->tmp);

		if (tmp)
			unlink(tmp);
	}
	pi_stopped(s->pr, sig, s->output);
	stop_die(sig);
	return NULL;
}

enum mdf_status stop_start(struct mdf_stop *s, const struct mdf_printer *pr,
			   struct mdf_err *err)
{
	static const int watched[] = { SIGTERM, SIGHUP, SIGINT };
	int ret;

	s->pr = pr;
	atomic_init(&s->sig, 0);
	atomic_init(&s->finished, false);
	atomic_init(&s->quit, false);
	s->running = false;
	s->wake = 0;
	s->pipe_fd[0] = s->pipe_fd[1] = -1;
	s->output = NULL;
	atomic_init(&s->tmp, NULL);
	sigemptyset(&s->sigs);
	for (size_t i = 0; i < sizeof(watched) / sizeof(watched[0]); i++) {
		struct sigaction sa;

		/* One ignored when we started stays ignored (nohup). */
		if (sigaction(watched[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			continue;
		sigaddset(&s->sigs, watched[i]);
		if (!s->wake)
			s->wake = watched[i];
	}
	if (!s->wake)
		return MDF_OK; /* all three ignored: nothing to watch */
	if (pipe2(s->pipe_fd, O_CLOEXEC | O_NONBLOCK) != 0)
		return mdf_err_errno(err, MDF_ERR_INTERNAL, errno, "cannot watch for signals: pipe");
	ret = pthread_sigmask(SIG_BLOCK, &s->sigs, &s->old_mask);
	if (ret == 0)
		ret = pthread_create(&s->thread, NULL, stop_watch, s);
	if (ret)
		return mdf_err_errno(err, MDF_ERR_INTERNAL, ret, "cannot watch for signals");
	s->running = true;
	return MDF_OK;
}

void stop_name_output(struct mdf_stop *s, const char *path)
{
	s->output = path;
}

void stop_note_tmp(struct mdf_stop *s, const char *path)
{
	atomic_store(&s->tmp, path);
}

int stop_fd(const struct mdf_stop *s)
{
	return s->pipe_fd[0];
}

int stop_signal(const struct mdf_stop *s)
{
	return atomic_load(&s->sig);
}

enum mdf_status stop_check(const struct mdf_stop *s, struct mdf_err *err)
{
	int sig = stop_signal(s);

	if (!sig)
		return MDF_OK;
	return mdf_err_set(err, MDF_ERR_INTERRUPTED, "stopped by SIG%s", sigabbrev_np(sig));
}

void stop_settle(struct mdf_stop *s)
{
	atomic_store(&s->finished, true);
}

void stop_finish(struct mdf_stop *s)
{
	int sig;

	if (!s->running)
		return;
	atomic_store(&s->finished, true);
	sig = stop_signal(s);
	if (!sig) {
		atomic_store(&s->quit, true);
		pthread_kill(s->thread, s->wake);
		pthread_join(s->thread, NULL);
		s->running = false;
		close(s->pipe_fd[0]);
		close(s->pipe_fd[1]);
		s->pipe_fd[0] = s->pipe_fd[1] = -1;
		/* A signal that came after the last look ends the process now. */
		pthread_sigmask(SIG_SETMASK, &s->old_mask, NULL);
		sig = stop_signal(s);
		if (!sig)
			return;
	}
	stop_die(sig);
}
