/*
 * stop.c - stop signals for single-threaded writers (stop.h).
 */
#include "write/stop.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

enum mdf_status stop_start(struct stop_watch *s, struct mdf_err *err)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	sigemptyset(&s->set);
	sigaddset(&s->set, SIGTERM);
	sigaddset(&s->set, SIGHUP);
	sigaddset(&s->set, SIGINT);
	ret = pthread_sigmask(SIG_BLOCK, &s->set, &s->old);
	if (ret)
		return mdf_err_errno(err, MDF_ERR_INTERNAL, ret, "cannot block the stop signals");
	s->blocked = true;
	s->fd = signalfd(-1, &s->set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->fd < 0) {
		/* No way to see them: let them act as before. */
		pthread_sigmask(SIG_SETMASK, &s->old, NULL);
		s->blocked = false;
	}
	return MDF_OK;
}

enum mdf_status stop_check(struct stop_watch *s, struct mdf_err *err)
{
	struct signalfd_siginfo si;

	while (!s->sig && s->fd >= 0) {
		ssize_t n = read(s->fd, &si, sizeof(si));

		if (n == (ssize_t)sizeof(si)) {
			s->sig = (int)si.ssi_signo;
			break;
		}
		if (n < 0 && errno == EINTR)
			continue;
		break; /* EAGAIN: none came */
	}
	if (!s->sig)
		return MDF_OK;
	return mdf_err_set(err, MDF_ERR_INTERRUPTED, "stopped by SIG%s",
			   sigabbrev_np(s->sig) ? sigabbrev_np(s->sig) : "?");
}

int stop_fd(const struct stop_watch *s)
{
	return s->fd;
}

void stop_end(struct stop_watch *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->blocked)
		pthread_sigmask(SIG_SETMASK, &s->old, NULL);
	s->blocked = false;
}
