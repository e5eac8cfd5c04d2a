/*
 * tests/fuzz/fuzz.h - what the fuzz targets share: a check that aborts
 * naming the condition, and an input's bytes as a file.
 */
#ifndef MDF_FUZZ_H
#define MDF_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define FUZZ_CHECK(cond)                                                            \
	do {                                                                        \
		if (!(cond)) {                                                      \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond);  \
			abort();                                                    \
		}                                                                   \
	} while (0)

/* A memfd named @name holding the @size bytes of @data, or -1. */
static inline int fuzz_memfd(const char *name, const uint8_t *data, size_t size)
{
	size_t done = 0;
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	return fd;
}

#endif
