/*
 * tests/fuzz/driver.c - replay a fuzz corpus without libFuzzer.
 *
 * Linked with one fuzz_*.c target; runs LLVMFuzzerTestOneInput() on every
 * file of the corpus directory given as argv[1] and prints one "ok" line
 * per file.  A crash or sanitizer report fails the test.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, len = 0, n;

	if (!f)
		return -1;
	do {
		if (len == cap) {
			unsigned char *nb;
			cap = cap ? cap * 2 : 4096;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	DIR *d;
	struct dirent *de;
	int n = 0, bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	d = opendir(argv[1]);
	if (!d) {
		printf("skip corpus: no directory %s\n", argv[1]);
		return 0;
	}
	while ((de = readdir(d))) {
		char path[4096];
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[1], de->d_name);
		if (replay(path) < 0) {
			printf("not ok %s: cannot read\n", de->d_name);
			bad++;
		}
		n++;
	}
	closedir(d);
	printf("ok replayed %d corpus files from %s\n", n, argv[1]);
	return bad ? 1 : 0;
}
