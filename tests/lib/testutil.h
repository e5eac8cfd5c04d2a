/*
 * tests/lib/testutil.h - small helpers that several unit tests share:
 * read a whole file, and a seeded xorshift for reproducible random cases.
 * Header-only (static inline).
 */
#ifndef MDF_TESTS_TESTUTIL_H
#define MDF_TESTS_TESTUTIL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole of @path, malloc()ed (one spare byte), *@len its size; NULL
 * when it cannot be read. */
static inline unsigned char *t_slurp(const char *path, size_t *len)
{
	struct stat sb;
	unsigned char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &sb) != 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (buf && pread(fd, buf, (size_t)sb.st_size, 0) != sb.st_size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	*len = (size_t)sb.st_size;
	return buf;
}

/* xorshift64: the same sequence for the same nonzero seed *@s. */
static inline uint64_t t_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
