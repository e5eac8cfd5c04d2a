/*
 * runner.c - run one command and write its cost to a file (tests/bench.sh).
 *
 *   runner STATSFILE [--sync FILE] PROGRAM [ARG...]
 *
 * With --sync, the wall time runs until FILE's data is on disk too: after
 * the child exits, FILE (when it exists) is fdatasync()ed, as `sync -d
 * FILE` would.  Ours fdatasyncs its own output before it exits; upstream
 * leaves its dump in the page cache, and a kdump script syncs after it:
 * timing both to the disk counts neither durability as slowness nor hides it.
 *
 * STATSFILE gets one line: "WALL_S USER_S SYS_S MAXRSS_KIB EXIT", from
 * CLOCK_MONOTONIC around fork..wait4 and wait4()'s rusage of the child.
 * The bench needs this small process in between: ru_maxrss keeps the high
 * water mark of the memory the child had before exec(), so a child forked
 * straight from python would report python's RSS.
 * Exit status: the child's (128+signal if killed), 127 if exec failed,
 * 125 on a runner error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	const char *sync_path = NULL;
	char **prog;
	int status, code;
	pid_t pid;
	FILE *f;

	prog = argv + 2;
	if (argc >= 5 && strcmp(argv[2], "--sync") == 0) {
		sync_path = argv[3];
		prog = argv + 4;
	}
	if (argc < 3 || !*prog) {
		fprintf(stderr, "usage: runner STATSFILE [--sync FILE] PROGRAM [ARG...]\n");
		return 125;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "runner: fork: %s\n", strerror(errno));
		return 125;
	}
	if (pid == 0) {
		execvp(prog[0], prog);
		fprintf(stderr, "runner: %s: %s\n", prog[0], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "runner: wait4: %s\n", strerror(errno));
			return 125;
		}
	}
	if (sync_path) {
		int fd = open(sync_path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			if (fdatasync(fd) != 0) {
				fprintf(stderr, "runner: %s: fdatasync: %s\n", sync_path, strerror(errno));
				close(fd);
				return 125;
			}
			close(fd);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	f = fopen(argv[1], "w");
	if (!f) {
		fprintf(stderr, "runner: %s: %s\n", argv[1], strerror(errno));
		return 125;
	}
	fprintf(f, "%.6f %.6f %.6f %ld %d\n",
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		tv_s(ru.ru_utime), tv_s(ru.ru_stime), ru.ru_maxrss, code);
	if (fclose(f) != 0) {
		fprintf(stderr, "runner: %s: %s\n", argv[1], strerror(errno));
		return 125;
	}
	return code;
}
