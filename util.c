/*
 * util.c - full-length I/O loops, number parsing, zero check.
 */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum mdf_status util_pread_full(int fd, void *buf, size_t len, uint64_t off,
				size_t *got, struct mdf_err *err)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  (off_t)(off + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*got = done;
			return mdf_err_errno(err, MDF_ERR_IO, errno,
					     "read of %zu bytes at offset 0x%llx",
					     len - done,
					     (unsigned long long)(off + done));
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	*got = done;
	return MDF_OK;
}

enum mdf_status util_pwrite_full(int fd, const void *buf, size_t len,
				 uint64_t off, struct mdf_err *err)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done,
				   (off_t)(off + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return mdf_err_errno(err, errno == ENOSPC ? MDF_ERR_NOSPC
								  : MDF_ERR_IO,
					     errno, "write at offset 0x%llx",
					     (unsigned long long)(off + done));
		}
		done += (size_t)n;
	}
	return MDF_OK;
}

enum mdf_status util_write_full(int fd, const void *buf, size_t len,
				struct mdf_err *err)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return mdf_err_errno(err, errno == ENOSPC ? MDF_ERR_NOSPC
								  : MDF_ERR_IO,
					     errno, "write");
		}
		done += (size_t)n;
	}
	return MDF_OK;
}

bool util_parse_u64_base(const char *s, int base, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	/* strtoull would skip any leading white space and negate "-1". */
	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end)
		return false;
	*ret = v;
	return true;
}

bool util_parse_u64(const char *s, uint64_t *ret)
{
	return util_parse_u64_base(s, 0, ret);
}

bool util_parse_s64(const char *s, int64_t *ret)
{
	char *end;
	long long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || *end)
		return false;
	*ret = v;
	return true;
}

bool util_same_file(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

bool util_is_zero(const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t n = len / 8;

	/* 4 words at a time through memcpy: a page of the input may start
	 * at any byte (a PT_LOAD's p_offset need not be aligned), and the
	 * compiler turns these into plain loads. */
	for (size_t i = 0; i + 4 <= n; i += 4) {
		uint64_t w[4];

		memcpy(w, b + 8 * i, sizeof(w));
		if (w[0] | w[1] | w[2] | w[3])
			return false;
	}
	for (size_t i = n & ~(size_t)3; i < n; i++) {
		uint64_t w;

		memcpy(&w, b + 8 * i, sizeof(w));
		if (w)
			return false;
	}
	for (size_t i = n * 8; i < len; i++)
		if (b[i])
			return false;
	return true;
}

unsigned util_parse_kver(const char *s)
{
	unsigned v[3] = { 0, 0, 0 };
	int i = 0;

	if (!s || *s < '0' || *s > '9')
		return 0;
	while (i < 3) {
		unsigned n = 0;
		int digits = 0;

		while (*s >= '0' && *s <= '9' && digits < 6) {
			n = n * 10 + (unsigned)(*s++ - '0');
			digits++;
		}
		if (!digits)
			break;
		v[i++] = n;
		if (*s != '.')
			break;
		s++;
	}
	if (i < 2)
		return 0;
	return util_kver(v[0], v[1], v[2]);
}
