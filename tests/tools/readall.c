/*
 * tests/tools/readall.c - read every present page of an ELF vmcore through
 * elf_info + cache + readmem, exactly as makedumpfile does, and write the
 * pages in pfn order to stdout.  The e2e cache test compares the stream
 * with one read straight from the file by an independent script.
 *
 * usage: readall [--non-mmap|--mmap-always] [--window BYTES] VMCORE > pages
 * Prints the cache statistics on stderr.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "elf_info.h"
#include "readmem.h"
#include "util.h"

int main(int argc, char **argv)
{
	struct cache_config cc = { .policy = CACHE_MMAP_TRY };
	struct mdf_err err = { 0 };
	struct elf_info ei;
	struct cache c;
	struct readmem rm;
	unsigned char *scratch;
	const char *path = NULL;
	uint64_t ps = 4096, pages = 0;
	int fd, i;

	memset(&ei, 0, sizeof(ei));
	memset(&c, 0, sizeof(c));
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--non-mmap") == 0)
			cc.policy = CACHE_MMAP_NEVER;
		else if (strcmp(argv[i], "--mmap-always") == 0)
			cc.policy = CACHE_MMAP_ALWAYS;
		else if (strcmp(argv[i], "--window") == 0 && i + 1 < argc)
			cc.window_max = strtoull(argv[++i], NULL, 0);
		else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: readall [--non-mmap] VMCORE\n");
		return 2;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	if (elf_info_open(&ei, fd, path, &err) != MDF_OK ||
	    cache_init(&c, fd, path, &cc, &err) != MDF_OK) {
		fprintf(stderr, "readall: %s\n", err.msg);
		return 1;
	}
	readmem_init(&rm, &ei, &c, NULL, ps);
	scratch = malloc(ps);
	for (size_t r = 0; r < ei.nranges; r++) {
		uint64_t s = ei.ranges[r].pstart / ps, e = ei.ranges[r].pend / ps;

		for (uint64_t pfn = s; pfn < e; pfn++) {
			const unsigned char *p;

			if (readmem_page(&rm, pfn, scratch, &p, &err) != MDF_OK) {
				fprintf(stderr, "readall: %s\n", err.msg);
				return 1;
			}
			if (fwrite(p, 1, ps, stdout) != ps) {
				perror("write");
				return 1;
			}
			pages++;
		}
	}
	fprintf(stderr, "pages %llu hits %llu misses %llu mmaps %llu munmaps %llu reads %llu\n",
		(unsigned long long)pages, (unsigned long long)c.stats.hits,
		(unsigned long long)c.stats.misses, (unsigned long long)c.stats.mmaps,
		(unsigned long long)c.stats.munmaps, (unsigned long long)c.stats.reads);
	free(scratch);
	cache_release(&c);
	elf_info_close(&ei);
	close(fd);
	return 0;
}
