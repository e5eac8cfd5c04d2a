/*
 * tests/unit/test_stop.c - the stop signals (stop.c): seen by the run,
 * and a run that cannot look ended by the signal itself, within the grace.
 */
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#include "stop.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A child that starts the watch and then does what @blocked says: 1
 * blocks in a read of a pipe nobody writes, 0 looks at stop_check() and
 * ends through stop_finish().  @nohup: SIGHUP ignored before the watch
 * starts, as nohup leaves it; else the stop signals at their default
 * (a test run under nohup, or as a background job, inherits them
 * ignored, and the watch rightly leaves an ignored one alone). */
static pid_t child(int blocked, int nohup, int ready[2])
{
	pid_t pid = fork();

	if (pid == 0) {
		struct mdf_printer pr;
		struct mdf_stop s;
		struct mdf_err err = { 0 };
		int p[2];
		char c;

		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, nohup ? SIG_IGN : SIG_DFL);
		pi_init(&pr, 0, false); /* quiet */
		if (stop_start(&s, &pr, &err) != MDF_OK)
			_exit(3);
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
		if (blocked) {
			if (pipe(p) != 0)
				_exit(5);
			if (read(p[0], &c, 1) < 0) /* never returns */
				_exit(6);
			_exit(7);
		}
		while (stop_check(&s, &err) == MDF_OK)
			usleep(1000);
		if (!strstr(err.msg, "stopped by SIGTERM"))
			_exit(8);
		{
			/* a writer's poll() beside its input wakes too */
			struct pollfd pfd = { .fd = stop_fd(&s), .events = POLLIN };

			if (poll(&pfd, 1, 1000) != 1)
				_exit(10);
		}
		stop_settle(&s);
		stop_finish(&s); /* ends us by SIGTERM */
		_exit(9);
	}
	return pid;
}

/* waitpid() of @pid for at most 5 s; then SIGKILL (a test that would
 * hang fails instead).  Returns whether it ended by itself. */
static int reaped(pid_t pid, int *status)
{
	for (int i = 0; i < 500; i++) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return 1;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return 0;
}

static void ends_by(int blocked, int sig)
{
	int ready[2], status = 0;
	char c;
	double t0, dt;
	pid_t pid;

	T_ASSERT(pipe(ready) == 0);
	pid = child(blocked, 0, ready);
	T_ASSERT(pid > 0);
	T_ASSERT(read(ready[0], &c, 1) == 1);
	t0 = now();
	kill(pid, sig);
	T_ASSERT(reaped(pid, &status));
	dt = now() - t0;
	T_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == sig);
	/* the run that looks ends at once; the blocked one after the grace */
	T_ASSERT(dt < (blocked ? STOP_GRACE_MS / 1000.0 + 0.4 : 0.4));
	close(ready[0]);
	close(ready[1]);
}

static void looks(void) { ends_by(0, SIGTERM); }
static void blocked_term(void) { ends_by(1, SIGTERM); }
static void blocked_hup(void) { ends_by(1, SIGHUP); }
static void blocked_int(void) { ends_by(1, SIGINT); }

/* nohup: an ignored SIGHUP stays ignored (the run goes on); SIGTERM
 * still ends it. */
static void nohup_hup_ignored(void)
{
	int ready[2], status = 0;
	char c;
	pid_t pid;

	T_ASSERT(pipe(ready) == 0);
	pid = child(1, 1, ready);
	T_ASSERT(pid > 0);
	T_ASSERT(read(ready[0], &c, 1) == 1);
	kill(pid, SIGHUP);
	usleep(STOP_GRACE_MS * 1000 + 300000);
	T_ASSERT(waitpid(pid, &status, WNOHANG) == 0); /* still running */
	kill(pid, SIGTERM);
	T_ASSERT(reaped(pid, &status));
	T_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	close(ready[0]);
	close(ready[1]);
}

static void no_signal(void)
{
	struct mdf_printer pr;
	struct mdf_stop s;
	struct mdf_err err = { 0 };

	pi_init(&pr, 0, false);
	T_OK(stop_start(&s, &pr, &err), &err);
	T_OK(stop_check(&s, &err), &err);
	T_EQ_U64(stop_signal(&s), 0);
	stop_finish(&s); /* returns: nothing came */
}

int main(void)
{
	T_RUN(no_signal);
	T_RUN(looks);
	T_RUN(blocked_term);
	T_RUN(blocked_hup);
	T_RUN(blocked_int);
	T_RUN(nohup_hup_ignored);
	return t_done();
}
