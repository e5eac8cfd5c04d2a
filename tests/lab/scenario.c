/*
 * scenario.c - the page states of the lab matrix (tests/lab/matrix.sh),
 * made by a static program in the first kernel of a lab guest, after the
 * lab's own workload and before the capture kernel is loaded.
 *
 *   scenario hwpoison N     N anonymous pages poisoned with MADV_HWPOISON
 *                           and N more soft-offlined (MADV_SOFT_OFFLINE)
 *   scenario hugetlb1g N    N 1 GiB hugetlb pages mapped and written
 *   scenario mlock MB       MB of anonymous memory, mlock()ed
 *   scenario ksm MB         MB of anonymous memory made of 16 distinct page
 *                           contents, MADV_MERGEABLE (ksmd merges them)
 *   scenario swap MB        MB of anonymous memory pushed to swap with
 *                           MADV_PAGEOUT, then half of it read back (those
 *                           pages sit in the swap cache)
 *   scenario pagemap COMM   the pfns of the first process called COMM, from
 *                           its /proc/PID/pagemap (present pages of every
 *                           mapping), as "MDF-SCEN pagemap COMM pid P pages
 *                           N" and "MDF-SCEN pagemap-pfns COMM START+COUNT
 *                           ..." lines; it does not stay (--keep-task's
 *                           check, tests/tools/keep_task_ref.py)
 *
 * Each one prints "MDF-SCEN <what> ..." lines (with the pfns it knows of,
 * from /proc/self/pagemap), writes READY (argv's last word is the ready
 * file) and sleeps until the crash so its pages stay what they are.
 * Test code of the lab, not of the product: it may print and exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_HWPOISON
#define MADV_HWPOISON 100
#endif
#ifndef MADV_SOFT_OFFLINE
#define MADV_SOFT_OFFLINE 101
#endif
#ifndef MADV_MERGEABLE
#define MADV_MERGEABLE 12
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#define MAP_HUGE_1GB (30 << MAP_HUGE_SHIFT)

static long pagesz;

static void die(const char *what)
{
	printf("MDF-SCEN error %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(1);
}

/* The pfn behind a virtual address (0 when not present). */
static uint64_t pfn_of(void *p)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &e, 8, (off_t)((uintptr_t)p / pagesz * 8)) != 8)
		e = 0;
	close(fd);
	return (e >> 63) & 1 ? e & ((1ULL << 55) - 1) : 0;
}

static char *anon(size_t bytes)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	madvise(p, bytes, MADV_NOHUGEPAGE);
	return p;
}

static void fill(char *p, size_t bytes, unsigned seed)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL * (seed + 1);

	for (size_t i = 0; i < bytes; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
}

static void ready(const char *file)
{
	FILE *f = fopen(file, "w");

	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	fflush(stdout);
	for (;;)
		pause();
}

/* The pid of the first process called @comm, or 0. */
static int find_comm(const char *comm)
{
	char path[64], name[64];
	FILE *f;

	for (int pid = 1; pid < 1 << 22; pid++) {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f)) {
			name[strcspn(name, "\n")] = '\0';
			if (!strcmp(name, comm)) {
				fclose(f);
				return pid;
			}
		}
		fclose(f);
	}
	return 0;
}

/* One run of pfns, printed 12 to a console line (flush with count 0). */
static void run_out(const char *comm, uint64_t start, uint64_t count)
{
	static int n;

	if (count) {
		printf("%s%s 0x%llx+%llu", n ? "" : "MDF-SCEN pagemap-pfns ", n ? "" : comm,
		       (unsigned long long)start, (unsigned long long)count);
		n++;
	}
	if (n && (n == 12 || !count)) {
		printf("\n");
		n = 0;
	}
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Write @value to the kernel setting @path when it holds another; say so. */
static void quiet_set(const char *path, const char *value)
{
	char was[32] = "";
	int fd = open(path, O_RDWR);
	ssize_t n;

	if (fd < 0)
		return;
	n = read(fd, was, sizeof(was) - 1);
	if (n > 0) {
		was[strcspn(was, "\n")] = '\0';
		if (strcmp(was, value) && pwrite(fd, value, strlen(value), 0) == (ssize_t)strlen(value))
			printf("MDF-SCEN pagemap: %s %s, now %s\n", path, was, value);
	}
	close(fd);
}

/* The present pfns of process @comm's mappings, sorted, as runs, on the
 * console. */
static void pagemap(const char *comm)
{
	char path[64], line[512];
	uint64_t *pfns = NULL, start = 0, count = 0;
	size_t n = 0, cap = 0;
	int pid = find_comm(comm), fd;
	FILE *maps;

	if (!pid) {
		printf("MDF-SCEN error pagemap: no process %s\n", comm);
		return;
	}
	/* The kernel moves pages while the guest runs: NUMA balancing,
	 * proactive compaction and khugepaged's collapses.  On the numa4
	 * case two runs lost 3,413 and 3,302 of labwork's pfns between its
	 * page map and the crash (NUMA balancing off alone was not enough):
	 * all three stop before the map is taken. */
	quiet_set("/proc/sys/kernel/numa_balancing", "0");
	quiet_set("/proc/sys/vm/compaction_proactiveness", "0");
	quiet_set("/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs", "3600000");
	quiet_set("/sys/kernel/mm/transparent_hugepage/khugepaged/alloc_sleep_millisecs", "3600000");
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = fopen(path, "r");
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY);
	if (!maps || fd < 0)
		die("pagemap: open");
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long lo, hi;

		if (sscanf(line, "%llx-%llx", &lo, &hi) != 2)
			continue;
		for (uint64_t va = lo; va < hi; va += (uint64_t)pagesz) {
			uint64_t e;

			if (pread(fd, &e, 8, (off_t)(va / (uint64_t)pagesz * 8)) != 8 ||
			    !(e >> 63 & 1))
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 4096;
				pfns = realloc(pfns, cap * sizeof(*pfns));
				if (!pfns)
					die("pagemap: realloc");
			}
			pfns[n++] = e & ((1ULL << 55) - 1);
		}
	}
	qsort(pfns, n, sizeof(*pfns), by_value);
	for (size_t i = 0; i < n; i++) {
		if (count && pfns[i] < start + count)
			continue; /* mapped twice */
		if (count && pfns[i] == start + count) {
			count++;
			continue;
		}
		run_out(comm, start, count);
		start = pfns[i];
		count = 1;
	}
	run_out(comm, start, count);
	run_out(comm, 0, 0);
	fclose(maps);
	close(fd);
	free(pfns);
	printf("MDF-SCEN pagemap %s pid %d pages %zu\n", comm, pid, n);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? strtol(argv[2], NULL, 0) : 0;
	const char *rfile = argc > 3 ? argv[3] : "/run/scenario.ready";

	pagesz = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(what, "hwpoison")) {
		char *p = anon((size_t)(4 * n) * pagesz);

		fill(p, (size_t)(4 * n) * pagesz, 7);
		for (long i = 0; i < n; i++) {
			char *q = p + (size_t)(4 * i) * pagesz;
			uint64_t pfn = pfn_of(q);

			if (madvise(q, pagesz, MADV_HWPOISON))
				die("madvise(MADV_HWPOISON)");
			printf("MDF-SCEN hwpoison pfn 0x%llx\n", (unsigned long long)pfn);
			q += 2 * pagesz;
			pfn = pfn_of(q);
			if (madvise(q, pagesz, MADV_SOFT_OFFLINE))
				die("madvise(MADV_SOFT_OFFLINE)");
			printf("MDF-SCEN soft-offline pfn 0x%llx\n", (unsigned long long)pfn);
		}
	} else if (!strcmp(what, "hugetlb1g")) {
		size_t bytes = (size_t)n << 30;
		char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_1GB, -1, 0);

		if (p == MAP_FAILED)
			die("mmap(MAP_HUGE_1GB)");
		for (size_t i = 0; i < bytes; i += (size_t)pagesz)
			p[i] = (char)(i >> 12 | 1);
		for (long i = 0; i < n; i++)
			printf("MDF-SCEN hugetlb1g head pfn 0x%llx\n",
			       (unsigned long long)pfn_of(p + ((size_t)i << 30)));
	} else if (!strcmp(what, "mlock")) {
		size_t bytes = (size_t)n << 20;
		char *p = anon(bytes);

		fill(p, bytes, 11);
		if (mlock(p, bytes))
			die("mlock");
		printf("MDF-SCEN mlock %ld MiB first pfn 0x%llx\n", n,
		       (unsigned long long)pfn_of(p));
	} else if (!strcmp(what, "ksm")) {
		size_t bytes = (size_t)n << 20;
		char *p = anon(bytes);

		for (size_t i = 0; i < bytes; i += (size_t)pagesz)
			memset(p + i, 'A' + (int)(i / pagesz % 16), (size_t)pagesz);
		if (madvise(p, bytes, MADV_MERGEABLE))
			die("madvise(MADV_MERGEABLE)");
		printf("MDF-SCEN ksm %ld MiB mergeable\n", n);
	} else if (!strcmp(what, "pagemap")) {
		pagemap(argc > 2 ? argv[2] : "");
		return 0;
	} else if (!strcmp(what, "swap")) {
		size_t bytes = (size_t)n << 20;
		char *p = anon(bytes);
		volatile char sink = 0;

		fill(p, bytes, 13);
		if (madvise(p, bytes, MADV_PAGEOUT))
			die("madvise(MADV_PAGEOUT)");
		for (size_t i = 0; i < bytes / 2; i += (size_t)pagesz)
			sink ^= p[i];
		(void)sink;
		printf("MDF-SCEN swap %ld MiB paged out, half read back\n", n);
	} else {
		fprintf(stderr, "usage: scenario hwpoison|hugetlb1g|mlock|ksm|swap N [READYFILE]\n"
				"       scenario pagemap COMM\n");
		return 2;
	}
	ready(rfile);
	return 0;
}
