/*
 * tests/fuzz/fuzz_reassemble.c - --reassemble: several parts of a split
 * set, read as one dump by the part reader (diskdump_open_flags with
 * DISKDUMP_OPEN_SPLIT, the set checks, every page descriptor) and merged.
 *
 * Input: byte 0 gives the number of parts (2 + byte % 3), then one
 * little-endian 32-bit length per part but the last, which takes the
 * rest; each part goes into a memfd, named /proc/self/fd/N.  The merged
 * dump is written into a directory of its own.  Whatever the parts say,
 * the output is whole and unmarked only on success, marked incomplete
 * when the result is MDF_ERR_NODATA (a part marked incomplete), and on
 * any other failure absent or marked incomplete; the message is not
 * empty.  The same parts are then read as one dump (splitset.h, the
 * input of a refilter, --dump-dmesg and --explain): a set --reassemble
 * merged opens, and every page of the first 4096 pfns and a read across
 * the parts' first cut give bytes or a message, never a crash.
 *
 * Seed corpus (tests/fuzz/corpus/reassemble/): split sets of a tiny
 * synthetic vmcore (tests/gen/mkvmcore, "kernel none", 8 pages of RAM,
 * -c -d 1 in 2 parts and -l -d 0 in 3), one with a part marked incomplete,
 * one with a descriptor of unknown flags; made with the Python snippet at
 * the end of this file.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "diskdump.h"
#include "error.h"
#include "util.h"
#include "splitset.h"
#include "write/split.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


#define FUZZ_MAX_PARTS 4

/* The output directory, made once per process and removed at its exit. */
static char fuzz_dir_name[64];

static void fuzz_dir_remove(void)
{
	char out[96];

	snprintf(out, sizeof(out), "%s/out", fuzz_dir_name);
	unlink(out);
	rmdir(fuzz_dir_name);
}

static const char *fuzz_dir(void)
{
	if (!fuzz_dir_name[0]) {
		snprintf(fuzz_dir_name, sizeof(fuzz_dir_name), "/tmp/fuzz_reassemble.XXXXXX");
		FUZZ_CHECK(mkdtemp(fuzz_dir_name) != NULL);
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_name;
}

/* "none", "marked", "clear" or "other" as an int: 0, 1, 2, 3. */
static int fuzz_mark(const char *path)
{
	unsigned char h[464];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, h, sizeof(h), 0);
	close(fd);
	if (n < 428 || memcmp(h, KDUMP_SIGNATURE, KDUMP_SIG_LEN) != 0)
		return 3;
	/* status: in the parts' order; the header version says which */
	return (h[8] == 0 && h[11] != 0 ? h[427] : h[424]) & DUMP_DH_COMPRESSED_INCOMPLETE ? 1 : 2;
}

/* The parts read as one dump, as a refilter reads them. */
static void fuzz_read_set(char *const *parts, unsigned n, bool merged)
{
	static unsigned char buf[2 * 65536];
	struct splitset ss;
	struct mdf_err err;
	const struct diskdump_info *d0;
	uint64_t cut;

	mdf_err_clear(&err);
	if (splitset_open(&ss, parts, n, NULL, &err) != MDF_OK) {
		FUZZ_CHECK(!merged && err.msg[0] != '\0');
		return;
	}
	d0 = &ss.order[0]->di;
	for (uint64_t pfn = 0; pfn < MDF_MIN(d0->max_mapnr + 1, (uint64_t)4096); pfn++) {
		const unsigned char *p;

		mdf_err_clear(&err);
		if (splitset_input_ops.page(&ss, NULL, pfn, d0->block_size, NULL, &p, &err) != MDF_OK)
			FUZZ_CHECK(err.msg[0] != '\0');
	}
	cut = ss.order[1]->di.split_start_pfn;
	if (cut) {
		mdf_err_clear(&err);
		if (splitset_input_ops.read_paddr(&ss, NULL, (cut - 1) * d0->block_size + 1, buf,
						  d0->block_size, &err) != MDF_OK)
			FUZZ_CHECK(err.msg[0] != '\0');
	}
	splitset_close(&ss);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char names[FUZZ_MAX_PARTS][40], out[96];
	char *parts[FUZZ_MAX_PARTS];
	int fds[FUZZ_MAX_PARTS];
	struct split_reassemble_stats rs;
	struct mdf_err err;
	enum mdf_status st;
	unsigned n, made = 0;
	size_t pos;
	int m;

	if (size < 1)
		return 0;
	n = 2 + data[0] % 3;
	pos = 1 + 4 * (size_t)(n - 1);
	if (pos > size)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		size_t len = i + 1 < n ? load_le32(data + 1 + 4 * i) : size - pos;

		len = MDF_MIN(len, size - pos);
		fds[i] = fuzz_memfd("part", data + pos, len);
		if (fds[i] < 0)
			goto done;
		made++;
		snprintf(names[i], sizeof(names[i]), "/proc/self/fd/%d", fds[i]);
		parts[i] = names[i];
		pos += len;
	}
	snprintf(out, sizeof(out), "%s/out", fuzz_dir());
	unlink(out);
	mdf_err_clear(&err);
	st = split_reassemble(parts, n, out, false, NULL, NULL, &rs, &err);
	m = fuzz_mark(out);
	if (st == MDF_OK) {
		FUZZ_CHECK(m == 2);
		FUZZ_CHECK(rs.lost == 0 && rs.incomplete_parts == 0);
	} else {
		FUZZ_CHECK(err.msg[0] != '\0');
		FUZZ_CHECK(m == 0 || m == 1);
		if (st == MDF_ERR_NODATA)
			FUZZ_CHECK(m == 1 && rs.incomplete_parts > 0);
	}
	unlink(out);
	fuzz_read_set(parts, n, st == MDF_OK);
done:
	for (unsigned i = 0; i < made; i++)
		close(fds[i]);
	return 0;
}

/*
 * Seed corpus generator (python3, in tests/fuzz/corpus/reassemble, with
 * MDF the program and GEN tests/gen/mkvmcore):
 *
 *   import os, struct, subprocess
 *   open("/tmp/tiny.spec", "w").write("kernel none\ntext 0x4000\n"
 *       "ram 0x1000000 +0x8000\nfill 0x1006+1 text 3\nfill 0x1007+1 random 7\n")
 *   subprocess.run([GEN, "/tmp/tiny.spec", "/tmp/tiny.elf"], check=True)
 *   def split(opts, n):
 *       names = ["/tmp/tp%d" % i for i in range(n)]
 *       for f in names:
 *           if os.path.exists(f): os.unlink(f)
 *       subprocess.run([MDF, "--message-level", "0"] + opts + ["--split", "/tmp/tiny.elf"] + names, check=True)
 *       return [open(f, "rb").read() for f in names]
 *   def seed(name, parts):
 *       body = bytes([len(parts) - 2]) + b"".join(struct.pack("<I", len(p)) for p in parts[:-1])
 *       open(name, "wb").write(body + b"".join(parts))
 *   c2 = split(["-c", "-d", "1"], 2)
 *   seed("c-d1-2parts", c2)
 *   seed("l-d0-3parts", split(["-l", "-d", "0"], 3))
 *   inc = bytearray(c2[1]); inc[424] |= 8
 *   seed("c-d1-part-incomplete", [c2[0], bytes(inc)])
 *   bad = bytearray(c2[1]); sub, bb = struct.unpack_from("<iI", bad, 432)
 *   bad[(1 + sub + bb) * 4096 + 12] |= 0x40
 *   seed("c-d1-bad-flags", [c2[0], bytes(bad)])
 */
