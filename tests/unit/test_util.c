/*
 * tests/unit/test_util.c - number parsing, full-length I/O on files and
 * pipes, endian helpers, alignment, util_is_zero.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#include "util.h"

/* ---- numbers ------------------------------------------------------------ */

static void parse_u64(void)
{
	uint64_t v = 77;

	T_ASSERT(util_parse_u64("0", &v) && v == 0);
	T_ASSERT(util_parse_u64("123", &v) && v == 123);
	T_ASSERT(util_parse_u64("0x1F", &v) && v == 31);
	T_ASSERT(util_parse_u64("0XfF", &v) && v == 255);
	T_ASSERT(util_parse_u64("010", &v) && v == 8);      /* base 0: octal */
	T_ASSERT(util_parse_u64("18446744073709551615", &v) && v == UINT64_MAX);
	T_ASSERT(util_parse_u64("0xffffffffffffffff", &v) && v == UINT64_MAX);
	v = 77;
	T_ASSERT(!util_parse_u64("18446744073709551616", &v));
	T_ASSERT(!util_parse_u64("0x10000000000000000", &v));
	T_ASSERT(!util_parse_u64("", &v));
	T_ASSERT(!util_parse_u64(NULL, &v));
	T_ASSERT(!util_parse_u64("-1", &v));
	T_ASSERT(!util_parse_u64("-0", &v));
	T_ASSERT(!util_parse_u64("+1", &v));
	T_ASSERT(!util_parse_u64(" 1", &v));
	T_ASSERT(!util_parse_u64("\t1", &v));
	T_ASSERT(!util_parse_u64("\n1", &v));
	T_ASSERT(!util_parse_u64("1 ", &v));
	T_ASSERT(!util_parse_u64("1\n", &v));
	T_ASSERT(!util_parse_u64("12a", &v));
	T_ASSERT(!util_parse_u64("0x", &v));
	T_ASSERT(!util_parse_u64("0x-1", &v));
	T_ASSERT(!util_parse_u64("08", &v));                /* not octal */
	T_ASSERT(!util_parse_u64("1e3", &v));
	T_EQ_U64(v, 77);                                    /* untouched on failure */
}

static void parse_u64_base(void)
{
	uint64_t v = 5;

	T_ASSERT(util_parse_u64_base("010", 10, &v) && v == 10);
	T_ASSERT(util_parse_u64_base("ff", 16, &v) && v == 255);
	T_ASSERT(util_parse_u64_base("0xff", 16, &v) && v == 255);
	T_ASSERT(util_parse_u64_base("ffffffffffffffff", 16, &v) && v == UINT64_MAX);
	T_ASSERT(util_parse_u64_base("777", 8, &v) && v == 511);
	T_ASSERT(util_parse_u64_base("101", 2, &v) && v == 5);
	T_ASSERT(util_parse_u64_base("z", 36, &v) && v == 35);
	v = 5;
	T_ASSERT(!util_parse_u64_base("0x10", 10, &v));
	T_ASSERT(!util_parse_u64_base("ff", 10, &v));
	T_ASSERT(!util_parse_u64_base("8", 8, &v));
	T_ASSERT(!util_parse_u64_base("10000000000000000", 16, &v));
	T_ASSERT(!util_parse_u64_base("-1", 10, &v));
	T_ASSERT(!util_parse_u64_base(" 1", 10, &v));
	T_ASSERT(!util_parse_u64_base("\v1", 10, &v));
	T_ASSERT(!util_parse_u64_base("", 16, &v));
	T_ASSERT(!util_parse_u64_base("1", 1, &v));          /* no such base */
	T_ASSERT(!util_parse_u64_base("1", 37, &v));
	T_EQ_U64(v, 5);
}

static void parse_s64(void)
{
	int64_t v = 9;

	T_ASSERT(util_parse_s64("0", &v) && v == 0);
	T_ASSERT(util_parse_s64("-129", &v) && v == -129);
	T_ASSERT(util_parse_s64("-268435456", &v) && v == -268435456);
	T_ASSERT(util_parse_s64("65536", &v) && v == 65536);
	T_ASSERT(util_parse_s64("0x10", &v) && v == 16);
	T_ASSERT(util_parse_s64("-0x10", &v) && v == -16);
	T_ASSERT(util_parse_s64("9223372036854775807", &v) && v == INT64_MAX);
	T_ASSERT(util_parse_s64("-9223372036854775808", &v) && v == INT64_MIN);
	T_ASSERT(util_parse_s64("0x7fffffffffffffff", &v) && v == INT64_MAX);
	v = 9;
	T_ASSERT(!util_parse_s64("9223372036854775808", &v));
	T_ASSERT(!util_parse_s64("-9223372036854775809", &v));
	T_ASSERT(!util_parse_s64("0x8000000000000000", &v));
	T_ASSERT(!util_parse_s64("", &v));
	T_ASSERT(!util_parse_s64(NULL, &v));
	T_ASSERT(!util_parse_s64("-", &v));
	T_ASSERT(!util_parse_s64(" -1", &v));
	T_ASSERT(!util_parse_s64("\t-1", &v));
	T_ASSERT(!util_parse_s64("-1 ", &v));
	T_ASSERT(!util_parse_s64("1x", &v));
	T_ASSERT(!util_parse_s64("--1", &v));
	T_EQ_U64(v, 9);
}

/* ---- I/O ------------------------------------------------------------------ */

static int tmpfile_fd(void)
{
	char path[] = "/tmp/mdf-test-util.XXXXXX";
	int fd = mkstemp(path);

	if (fd >= 0)
		unlink(path);
	return fd;
}

static void pread_pwrite_file(void)
{
	static unsigned char data[300000], back[300000];
	struct mdf_err err;
	size_t got = 1;
	int fd = tmpfile_fd();
	bool ok;

	T_ASSERT(fd >= 0);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + (i >> 9));
	mdf_err_clear(&err);
	ok = util_pwrite_full(fd, data, sizeof(data), 4096, &err) == MDF_OK;
	/* Read it back whole, then a piece, then across the end of file. */
	ok = ok && util_pread_full(fd, back, sizeof(back), 4096, &got, &err) == MDF_OK &&
	     got == sizeof(back) && memcmp(data, back, sizeof(data)) == 0;
	ok = ok && util_pread_full(fd, back, 10, 4096 + 1000, &got, &err) == MDF_OK &&
	     got == 10 && memcmp(back, data + 1000, 10) == 0;
	ok = ok && util_pread_full(fd, back, 100, 4096 + sizeof(data) - 30, &got, &err) ==
		   MDF_OK && got == 30 && memcmp(back, data + sizeof(data) - 30, 30) == 0;
	/* Past the end: nothing, not an error. */
	ok = ok && util_pread_full(fd, back, 100, 1 << 30, &got, &err) == MDF_OK && got == 0;
	/* The hole before offset 4096 reads as zeros. */
	ok = ok && util_pread_full(fd, back, 4096, 0, &got, &err) == MDF_OK && got == 4096;
	for (size_t i = 0; ok && i < 4096; i++)
		ok = back[i] == 0;
	/* Zero-length calls. */
	ok = ok && util_pread_full(fd, back, 0, 0, &got, &err) == MDF_OK && got == 0;
	ok = ok && util_pwrite_full(fd, data, 0, 0, &err) == MDF_OK;
	close(fd);
	T_OK(ok ? MDF_OK : MDF_ERR_INTERNAL, &err);
}

static void write_full_file(void)
{
	static unsigned char data[200000], back[200000];
	struct mdf_err err;
	size_t got;
	int fd = tmpfile_fd();
	enum mdf_status st;

	T_ASSERT(fd >= 0);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i ^ (i >> 8));
	st = util_write_full(fd, data, 1000, &err);
	if (st == MDF_OK)
		st = util_write_full(fd, data + 1000, sizeof(data) - 1000, &err);
	if (st == MDF_OK)
		st = util_pread_full(fd, back, sizeof(back), 0, &got, &err);
	close(fd);
	T_OK(st, &err);
	T_EQ_U64(got, sizeof(data));
	T_ASSERT(memcmp(data, back, sizeof(data)) == 0);
}

static void io_errors(void)
{
	struct mdf_err err;
	unsigned char b[64] = { 0 };
	size_t got = 99;
	int p[2];
	int fd;

	/* Bad descriptor. */
	T_EQ_U64(util_pread_full(-1, b, 8, 0x1000, &got, &err), MDF_ERR_IO);
	T_EQ_U64(got, 0);
	T_EQ_U64(err.sys_errno, EBADF);
	T_EQ_STR(err.msg, "read of 8 bytes at offset 0x1000: Bad file descriptor");
	T_EQ_U64(util_pwrite_full(-1, b, 8, 0x20, &err), MDF_ERR_IO);
	T_EQ_STR(err.msg, "write at offset 0x20: Bad file descriptor");
	T_EQ_U64(util_write_full(-1, b, 8, &err), MDF_ERR_IO);
	T_EQ_STR(err.msg, "write: Bad file descriptor");

	/* Write-only file: reading fails. */
	fd = open("/dev/null", O_WRONLY);
	T_ASSERT(fd >= 0);
	T_EQ_U64(util_pread_full(fd, b, 8, 0, &got, &err), MDF_ERR_IO);
	close(fd);

	/* A full disk is MDF_ERR_NOSPC, for both writers. */
	fd = open("/dev/full", O_WRONLY);
	if (fd >= 0) {
		enum mdf_status s1 = util_write_full(fd, b, sizeof(b), &err);
		int e1 = err.sys_errno;
		enum mdf_status s2 = util_pwrite_full(fd, b, sizeof(b), 0, &err);

		close(fd);
		T_EQ_U64(s1, MDF_ERR_NOSPC);
		T_EQ_U64(e1, ENOSPC);
		T_EQ_U64(s2, MDF_ERR_NOSPC);
		T_EQ_STR(err.msg, "write at offset 0x0: No space left on device");
	}

	/* A pipe cannot be read or written at an offset. */
	T_ASSERT(pipe(p) == 0);
	T_EQ_U64(util_pread_full(p[0], b, 8, 0, &got, &err), MDF_ERR_IO);
	T_EQ_U64(err.sys_errno, ESPIPE);
	T_EQ_U64(util_pwrite_full(p[1], b, 8, 0, &err), MDF_ERR_IO);
	T_EQ_U64(err.sys_errno, ESPIPE);
	/* Nobody reading: EPIPE (with SIGPIPE ignored) is an I/O error. */
	close(p[0]);
	{
		struct sigaction sa, old;
		enum mdf_status st;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_IGN;
		sigaction(SIGPIPE, &sa, &old);
		st = util_write_full(p[1], b, sizeof(b), &err);
		sigaction(SIGPIPE, &old, NULL);
		close(p[1]);
		T_EQ_U64(st, MDF_ERR_IO);
		T_EQ_U64(err.sys_errno, EPIPE);
	}
}

/* More than a pipe buffer through util_write_full: the writer must keep
 * going after partial writes while a child reads slowly. */
static void write_full_pipe(void)
{
	enum { N = 1 << 20 };
	unsigned char *data = malloc(N);
	struct mdf_err err;
	enum mdf_status st;
	int p[2], status = -1;
	pid_t pid;

	T_ASSERT(data);
	for (size_t i = 0; i < N; i++)
		data[i] = (unsigned char)(i * 31 + (i >> 12));
	if (pipe(p) != 0) {
		free(data);
		T_ASSERT(!"pipe");
	}
	pid = fork();
	if (pid == 0) {
		/* Child: read in odd-sized pieces and compare. */
		static unsigned char in[777];
		size_t off = 0;
		ssize_t n;
		int code = 0;

		close(p[1]);
		while ((n = read(p[0], in, sizeof(in))) > 0) {
			if (off + (size_t)n > N || memcmp(in, data + off, (size_t)n) != 0) {
				code = 2;
				break;
			}
			off += (size_t)n;
		}
		if (!code && (n != 0 || off != N))
			code = 3;
		free(data);   /* (valgrind checks the child for leaks too) */
		_exit(code);
	}
	close(p[0]);
	st = pid > 0 ? util_write_full(p[1], data, N, &err) : MDF_ERR_INTERNAL;
	close(p[1]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	free(data);
	T_ASSERT(pid > 0);
	T_OK(st, &err);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- endian and alignment ------------------------------------------------- */

static void endian(void)
{
	static const unsigned char b[11] = { 0xee, 0x01, 0x02, 0x03, 0x04,
					     0x05, 0x06, 0x07, 0x08, 0x80, 0xff };
	unsigned char s[10];

	T_EQ_U64(load_le16(b + 1), 0x0201);
	T_EQ_U64(load_le32(b + 1), 0x04030201);
	T_EQ_U64(load_le64(b + 1), 0x0807060504030201ULL);
	T_EQ_U64(load_be32(b + 1), 0x01020304);
	T_EQ_U64(load_be64(b + 1), 0x0102030405060708ULL);
	/* High bits: no sign extension. */
	T_EQ_U64(load_le16(b + 9), 0xff80);
	T_EQ_U64(load_le32(b + 7), 0xff800807u);
	T_EQ_U64(load_be32(b + 7), 0x070880ffu);
	T_EQ_U64(load_le64(b + 3), 0xff80080706050403ULL);
	T_EQ_U64(load_be64(b + 3), 0x03040506070880ffULL);

	memset(s, 0xaa, sizeof(s));
	store_le64(s + 1, 0x1122334455667788ULL);
	T_EQ_U64(s[0], 0xaa);
	T_EQ_U64(s[1], 0x88);
	T_EQ_U64(s[8], 0x11);
	T_EQ_U64(s[9], 0xaa);
	T_EQ_U64(load_le64(s + 1), 0x1122334455667788ULL);
	T_EQ_U64(load_be64(s + 1), 0x8877665544332211ULL);
	store_be64(s + 1, 0x1122334455667788ULL);
	T_EQ_U64(s[1], 0x11);
	T_EQ_U64(s[8], 0x88);
	T_EQ_U64(s[9], 0xaa);
	T_EQ_U64(load_be64(s + 1), 0x1122334455667788ULL);
	T_EQ_U64(load_le32(s + 1), 0x44332211u);
	store_le64(s, UINT64_MAX);
	T_EQ_U64(load_le64(s), UINT64_MAX);
	store_be64(s, 0);
	T_EQ_U64(load_be64(s), 0);
}

static void alignment(void)
{
	T_EQ_U64(align_down(0x1fff, 0x1000), 0x1000);
	T_EQ_U64(align_down(0x2000, 0x1000), 0x2000);
	T_EQ_U64(align_up(0x1001, 0x1000), 0x2000);
	T_EQ_U64(align_up(0x1000, 0x1000), 0x1000);
	T_EQ_U64(align_up(0, 64), 0);
	T_EQ_U64(align_down(UINT64_MAX, 1ULL << 63), 1ULL << 63);
	T_EQ_U64(div_round_up(0, 8), 0);
	T_EQ_U64(div_round_up(1, 8), 1);
	T_EQ_U64(div_round_up(8, 8), 1);
	T_EQ_U64(div_round_up(9, 8), 2);
	T_EQ_U64(MDF_MIN(3, 5), 3);
	T_EQ_U64(MDF_MAX(3, 5), 5);
	{
		int a[7];

		T_EQ_U64(ARRAY_SIZE(a), 7);
	}
}

/* ---- util_is_zero ------------------------------------------------------------ */

static uint64_t zbuf[8192 / 8 + 1];

/* One non-zero byte at @pos of a @len-byte zero buffer. */
static bool zero_one(size_t len, size_t pos, unsigned char val)
{
	unsigned char *p = (unsigned char *)zbuf;
	bool r;

	p[pos] = val;
	r = util_is_zero(zbuf, len);
	p[pos] = 0;
	return r;
}

static void is_zero(void)
{
	unsigned char *p = (unsigned char *)zbuf;

	memset(zbuf, 0, sizeof(zbuf));
	T_ASSERT(util_is_zero(zbuf, 0));
	for (size_t len = 8; len <= 8192; len += 8) {
		size_t n = len / 8;
		size_t cand[] = {
			0, 1, 7,                   /* first word */
			8, 15, 16, 23, 24, 31,     /* words 1 to 3 of the first group */
			32, 39,                    /* second group */
			(n & ~(size_t)3) * 8,      /* first word after the groups */
			(n & ~(size_t)3) * 8 + 5,
			len / 2, len / 2 + 3,
			len - 9, len - 8, len - 1, /* last words */
		};

		T_ASSERT(util_is_zero(zbuf, len));
		for (size_t i = 0; i < ARRAY_SIZE(cand); i++) {
			if (cand[i] >= len)
				continue;
			if (zero_one(len, cand[i], 0x01) || zero_one(len, cand[i], 0x80)) {
				char m[96];

				snprintf(m, sizeof(m), "len %zu: byte %zu non-zero not seen",
					 len, cand[i]);
				t_fail(__FILE__, __LINE__, m);
				return;
			}
		}
		/* A byte just past the length is not looked at. */
		p[len] = 0xff;
		if (!util_is_zero(zbuf, len)) {
			char m[64];

			snprintf(m, sizeof(m), "len %zu: read past the end", len);
			t_fail(__FILE__, __LINE__, m);
			return;
		}
		p[len] = 0;
	}
	T_ASSERT(util_is_zero(zbuf, 8192));
	/* Every position, for the short lengths. */
	for (size_t len = 8; len <= 512; len += 8)
		for (size_t pos = 0; pos < len; pos++)
			if (zero_one(len, pos, 0x40)) {
				char m[64];

				snprintf(m, sizeof(m), "len %zu pos %zu", len, pos);
				t_fail(__FILE__, __LINE__, m);
				return;
			}
	/* Whole-page patterns. */
	memset(zbuf, 0xff, 4096);
	T_ASSERT(!util_is_zero(zbuf, 4096));
	memset(zbuf, 0, sizeof(zbuf));
}

/* OSRELEASE -> KERNEL_VERSION, for the filter's and the arch layers' rules. */
static void parse_kver(void)
{
	T_EQ_U64(util_parse_kver("6.12.117+deb13-amd64"), util_kver(6, 12, 117));
	T_EQ_U64(util_parse_kver("6.12.117+deb13-amd64"), 0x060c75);
	T_EQ_U64(util_parse_kver("5.10.0-30-amd64"), 0x050a00);
	T_EQ_U64(util_parse_kver("6.1.0-57-amd64"), 0x060100);
	T_EQ_U64(util_parse_kver("7.1"), 0x070100);
	T_EQ_U64(util_parse_kver("7.1-rc3"), 0x070100);
	T_EQ_U64(util_parse_kver("2.6.32-754.el6.x86_64"), 0x020620);
	T_EQ_U64(util_parse_kver("4.19.300"), 0x0413ff);  /* sublevel clamps */
	T_EQ_U64(util_parse_kver(""), 0);
	T_EQ_U64(util_parse_kver("abc"), 0);
	T_EQ_U64(util_parse_kver("6"), 0);
	T_EQ_U64(util_parse_kver("6."), 0);
	T_EQ_U64(util_parse_kver("v6.1"), 0);
	T_EQ_U64(util_parse_kver(NULL), 0);
	T_EQ_U64(util_kver(6, 6, 0), 0x060600);
}

int main(void)
{
	T_RUN(parse_u64);
	T_RUN(parse_u64_base);
	T_RUN(parse_s64);
	T_RUN(pread_pwrite_file);
	T_RUN(write_full_file);
	T_RUN(io_errors);
	T_RUN(write_full_pipe);
	T_RUN(endian);
	T_RUN(alignment);
	T_RUN(is_zero);
	T_RUN(parse_kver);
	return t_done();
}
