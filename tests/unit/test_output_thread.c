/*
 * tests/unit/test_output_thread.c - the output sink: coalesced pwrites,
 * -L, patches, and the writing thread (out_start_io), whose files must be
 * byte for byte those of the synchronous sink, whatever the pattern of
 * writes; its failures come back to the caller.  Named *_thread so that
 * `make tsan-check` runs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "write/output.h"
#include "tap.h"
#include "testutil.h"

static char g_dir[64];

static void path_of(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", g_dir, name);
}

/*
 * A kdump writer's pattern: a header, then a descriptor region and a data
 * region growing in turns, pieces of any size, the descriptors patched at
 * the end.  Written with the synchronous sink and with the thread: the two
 * files must be equal.
 */
static enum mdf_status write_pattern(const char *path, bool thread,
				     uint64_t seed, struct mdf_err *err)
{
	struct out_sink o;
	static unsigned char src[300000];
	uint64_t s = seed, desc = 4096, data = 4096 + 200000;
	enum mdf_status st;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 131 + seed);
	st = out_open_file(&o, path, true, 0, OUT_FILE_BUF, err);
	if (st != MDF_OK)
		return st;
	if (thread)
		st = out_start_io(&o, err);
	if (st == MDF_OK)
		st = out_write(&o, 0, src, 464, err);
	for (int k = 0; st == MDF_OK && k < 400; k++) {
		size_t n = (size_t)(t_rnd(&s) % 3000) + 1;

		if (t_rnd(&s) % 8 == 0) {
			st = out_write(&o, desc, src + 7, 24 * (n % 40 + 1), err);
			desc += 24 * (n % 40 + 1);
		} else {
			if (t_rnd(&s) % 50 == 0)
				n = sizeof(src);    /* larger than the buffer */
			st = out_write(&o, data, src + (sizeof(src) - n) / 2, n, err);
			data += n;
		}
	}
	if (st == MDF_OK)
		st = out_flush(&o, err);
	if (st == MDF_OK)
		st = out_patch(&o, 100, "patched", 7, err);
	if (st == MDF_OK)
		st = out_write(&o, data, src, 5000, err);
	if (st == MDF_OK)
		st = out_close(&o, err);
	else if (out_close(&o, &(struct mdf_err){ 0 }) != MDF_OK)
		st = MDF_ERR_IO;
	return st;
}

static void thread_equals_sync(void)
{
	char a[128], b[128];
	struct mdf_err err;

	path_of(a, sizeof(a), "sync");
	path_of(b, sizeof(b), "thread");
	for (uint64_t seed = 1; seed <= 5; seed++) {
		unsigned char *fa, *fb;
		size_t la = 0, lb = 0;

		T_OK(write_pattern(a, false, seed, &err), &err);
		T_OK(write_pattern(b, true, seed, &err), &err);
		fa = t_slurp(a, &la);
		fb = t_slurp(b, &lb);
		T_ASSERT(fa && fb);
		T_EQ_U64(la, lb);
		T_ASSERT(memcmp(fa, fb, la) == 0);
		free(fa);
		free(fb);
	}
	unlink(a);
	unlink(b);
}

/* -L with the thread: the same bytes written, the same fail_off. */
static void thread_limit(void)
{
	char path[128];
	static unsigned char page[4096];
	struct mdf_err err;
	uint64_t fail[2] = { 0, 0 }, written[2] = { 0, 0 };

	path_of(path, sizeof(path), "limit");
	for (int thread = 0; thread < 2; thread++) {
		struct out_sink o;
		enum mdf_status st = MDF_OK;
		uint64_t off = 0;

		T_OK(out_open_file(&o, path, true, 1000000, OUT_FILE_BUF, &err), &err);
		if (thread)
			T_OK(out_start_io(&o, &err), &err);
		while (st == MDF_OK && off < 4000000) {
			st = out_write(&o, off, page, sizeof(page) - 7, &err);
			off += sizeof(page) - 7;
		}
		if (st == MDF_OK)
			st = out_flush(&o, &err);
		T_EQ_U64(st, MDF_ERR_NOSPC);
		T_ASSERT(o.full);
		T_ASSERT(strstr(err.msg, "size limit") != NULL);
		fail[thread] = o.fail_off;
		written[thread] = o.written;
		T_ASSERT(out_close(&o, &err) == MDF_OK); /* full: nothing more */
	}
	T_EQ_U64(fail[0], fail[1]);
	T_EQ_U64(written[0], written[1]);
	T_ASSERT(written[0] <= 1000000);
	unlink(path);
}

/* A write the thread cannot make (the file size limit: EFBIG) comes back
 * from a later call, names the file, and nothing after it is written. */
static void thread_failure(void)
{
	char path[128];
	static unsigned char page[4096];
	struct rlimit old, lim;
	struct sigaction sa, osa;
	struct out_sink o;
	struct mdf_err err;
	enum mdf_status st = MDF_OK;
	uint64_t off = 0;
	struct stat sb;

	path_of(path, sizeof(path), "efbig");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGXFSZ, &sa, &osa);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 2 << 20;
	if (setrlimit(RLIMIT_FSIZE, &lim) != 0) {
		sigaction(SIGXFSZ, &osa, NULL);
		t_skip("cannot set RLIMIT_FSIZE");
		return;
	}
	T_OK(out_open_file(&o, path, true, 0, OUT_FILE_BUF, &err), &err);
	T_OK(out_start_io(&o, &err), &err);
	while (st == MDF_OK && off < (8u << 20)) {
		st = out_write(&o, off, page, sizeof(page), &err);
		off += sizeof(page);
	}
	if (st == MDF_OK)
		st = out_flush(&o, &err);
	if (out_close(&o, &(struct mdf_err){ 0 }) == MDF_OK && st == MDF_OK)
		st = MDF_ERR_INTERNAL;
	setrlimit(RLIMIT_FSIZE, &old);
	sigaction(SIGXFSZ, &osa, NULL);
	T_EQ_U64(st, MDF_ERR_IO);
	T_EQ_U64(err.sys_errno, EFBIG);
	T_ASSERT(strncmp(err.msg, path, strlen(path)) == 0);
	T_ASSERT(stat(path, &sb) == 0 && sb.st_size <= (2 << 20));
	unlink(path);
}

/* A flattened stream keeps writing in the calling thread. */
static void flat_no_thread(void)
{
	char path[128];
	struct out_sink o;
	struct mdf_err err;
	int fd;

	path_of(path, sizeof(path), "flat");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	T_ASSERT(fd >= 0);
	T_OK(out_open_flat(&o, fd, 0, OUT_PIPE_BUF, &err), &err);
	T_OK(out_start_io(&o, &err), &err);
	T_ASSERT(o.io == NULL);
	T_OK(out_write(&o, 8192, "x", 1, &err), &err);
	T_OK(out_close(&o, &err), &err);
	close(fd);
	unlink(path);
}

int main(void)
{
	snprintf(g_dir, sizeof(g_dir), "/var/tmp/test_output.XXXXXX");
	if (!mkdtemp(g_dir)) {
		printf("not ok setup: cannot create %s\n", g_dir);
		return 1;
	}
	T_RUN(thread_equals_sync);
	T_RUN(thread_limit);
	T_RUN(thread_failure);
	T_RUN(flat_no_thread);
	rmdir(g_dir);
	return t_done();
}
