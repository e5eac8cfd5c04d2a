/*
 * tests/fuzz/fuzz_flat.c - the flattened-stream reader behind -R.
 *
 * The input is the stream (header included), fed through a memfd and
 * rearranged into another memfd.  On success the result must equal an
 * independent model that applies the records in order to a byte array
 * (when the rebuilt file is small enough to hold); on failure the message
 * must name the input or the output.
 *
 * Then the same stream goes through -R's own path, rearrange_dump_fd():
 * a whole dump comes out the same bytes, unmarked; a failure leaves a
 * file whose dump header carries the incomplete mark (kdump status bit
 * 0x8, ELF e_flags bit 0) when it is kept, and says so.
 *
 * Seed corpus (tests/fuzz/corpus/flat/): ok-* rebuild, bad-* and cut-*
 * are rejected (the snippet at the end of this file); dump-* are -F
 * streams of a tiny kdump-compressed and ELF dump, whole, cut, with a
 * record left out, or of a dump marked incomplete (the second snippet);
 * regress-* are libFuzzer finds: a stream cut inside a record that
 * rewrites the header with other bytes (the file was called marked
 * because a mark had been forced before), one cut inside the header
 * after the mark's byte, and a cut kdump header that names no machine,
 * whose block size says ILP32 (its mark is at ILP32's status: this
 * check had looked at LP64's).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "diskdump.h"
#include "error.h"
#include "write/rearrange.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MODEL_MAX (4u << 20)

/* The input as a file, read from its start (-R reads a stream). */
static int input_fd(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd("fuzz_flat", data, size);

	if (fd >= 0 && lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The stream was accepted: apply it again, simply, and compare. */
static void fuzz_compare(const uint8_t *data, size_t size, int out,
			 const struct rearrange_stats *st)
{
	unsigned char *want, *got;
	size_t pos = MDF_FLAT_HEADER_SIZE;
	uint64_t records = 0, end = 0;
	struct stat sb;

	FUZZ_CHECK(fstat(out, &sb) == 0);
	FUZZ_CHECK((uint64_t)sb.st_size == st->out_size);
	if (st->out_size > FUZZ_MODEL_MAX)
		return;
	want = calloc(1, st->out_size + 1);
	got = malloc(st->out_size + 1);
	FUZZ_CHECK(want && got);
	for (;;) {
		int64_t off, len;

		FUZZ_CHECK(pos + 16 <= size);
		off = (int64_t)load_be64(data + pos);
		len = (int64_t)load_be64(data + pos + 8);
		pos += 16;
		if (off == -1 && len == -1)
			break;
		FUZZ_CHECK(off >= 0 && len >= 0 && pos + (uint64_t)len <= size);
		FUZZ_CHECK((uint64_t)off + (uint64_t)len <= st->out_size || len == 0);
		if (len) {
			memcpy(want + off, data + pos, (size_t)len);
			if ((uint64_t)(off + len) > end)
				end = (uint64_t)(off + len);
		}
		pos += (size_t)len;
		records++;
	}
	FUZZ_CHECK(records == st->records);
	FUZZ_CHECK(end == st->out_size);
	FUZZ_CHECK(pos == st->in_bytes);
	FUZZ_CHECK(pread(out, got, st->out_size, 0) == (ssize_t)st->out_size);
	FUZZ_CHECK(memcmp(want, got, st->out_size) == 0);
	free(want);
	free(got);
}

/* Is the dump header of the file on @fd marked incomplete?  -1: it has
 * none. */
static int fuzz_marked(int fd)
{
	unsigned char h[464];
	ssize_t n = pread(fd, h, sizeof(h), 0);
	size_t at;

	if (n < 12)
		return -1;
	if (memcmp(h, KDUMP_SIGNATURE, KDUMP_SIG_LEN) == 0) {
		/* status where a reader looks: LP64 or ILP32 (an i386 or
		 * arm kernel's header) as its reader tells them apart */
		at = kdump_header_offset(kdump_abi_of_header(h, (size_t)n), KDUMP_HF_STATUS) +
		     (h[8] == 0 && h[11] != 0 ? 3 : 0);
		return (size_t)n > at ? (h[at] & DUMP_DH_COMPRESSED_INCOMPLETE) != 0 : -1;
	}
	if (memcmp(h, "\177ELF", 4) == 0 && (h[4] == 1 || h[4] == 2) &&
	    (h[5] == 1 || h[5] == 2)) {
		at = (h[4] == 2 ? 48u : 36u) + (h[5] == 2 ? 3u : 0u);
		return (size_t)n > at ? (h[at] & 1) != 0 : -1;
	}
	return -1;
}

/* -R's path: a usable dump, or a failure that leaves nothing that looks
 * whole. */
static void fuzz_dump(const uint8_t *data, size_t size, int raw_out, enum mdf_status raw_rc)
{
	struct rearrange_stats st;
	struct mdf_err err;
	enum mdf_status rc;
	int in = input_fd(data, size), out;

	if (in < 0)
		return;
	out = memfd_create("fuzz_flat_dump", MFD_CLOEXEC);
	if (out < 0) {
		close(in);
		return;
	}
	rc = rearrange_dump_fd(in, "fuzz", out, "out", NULL, &st, &err);
	if (rc == MDF_OK) {
		struct stat a, b;

		/* The stream's bytes, as the plain rearrangement has them. */
		FUZZ_CHECK(raw_rc == MDF_OK);
		FUZZ_CHECK(fuzz_marked(out) == 0);
		FUZZ_CHECK(!st.keep && st.records > 0);
		FUZZ_CHECK(fstat(out, &a) == 0 && fstat(raw_out, &b) == 0 &&
			   a.st_size == b.st_size);
		if ((uint64_t)a.st_size <= FUZZ_MODEL_MAX) {
			unsigned char *x = malloc((size_t)a.st_size + 1);
			unsigned char *y = malloc((size_t)a.st_size + 1);

			FUZZ_CHECK(x && y);
			FUZZ_CHECK(pread(out, x, (size_t)a.st_size, 0) == a.st_size);
			FUZZ_CHECK(pread(raw_out, y, (size_t)a.st_size, 0) == a.st_size);
			FUZZ_CHECK(memcmp(x, y, (size_t)a.st_size) == 0);
			free(x);
			free(y);
		}
	} else {
		FUZZ_CHECK(strncmp(err.msg, "fuzz", 4) == 0 ||
			   strncmp(err.msg, "out: ", 5) == 0);
		if (st.keep)
			FUZZ_CHECK(fuzz_marked(out) == 1);
		if (rc == MDF_ERR_NODATA)
			FUZZ_CHECK(st.keep && st.dump_incomplete);
	}
	close(in);
	close(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rearrange_stats st;
	struct mdf_err err;
	enum mdf_status rc;
	int in, out;

	/* The header check alone, on any length. */
	if (rearrange_check_header(data, MDF_MIN(size, (size_t)MDF_FLAT_HEADER_SIZE),
				   "fuzz", &err) != MDF_OK)
		FUZZ_CHECK(strncmp(err.msg, "fuzz", 4) == 0);

	in = input_fd(data, size);
	if (in < 0)
		return 0;
	out = memfd_create("fuzz_flat_out", MFD_CLOEXEC);
	if (out < 0) {
		close(in);
		return 0;
	}
	rc = rearrange_fd(in, "fuzz", out, "out", &st, &err);
	if (rc == MDF_OK) {
		FUZZ_CHECK(st.in_bytes <= size);
		fuzz_compare(data, size, out, &st);
	} else {
		FUZZ_CHECK(strncmp(err.msg, "fuzz", 4) == 0 ||
			   strncmp(err.msg, "out: ", 5) == 0);
		FUZZ_CHECK(st.in_bytes <= size);
		/* Kept: its header carries the mark. */
		if (st.keep)
			FUZZ_CHECK(fuzz_marked(out) == 1);
	}
	fuzz_dump(data, size, out, rc);
	close(in);
	close(out);
	return 0;
}

/*
 * Seed corpus generator (python3, run in tests/fuzz/corpus/flat):
 *
 *   import struct
 *   def hdr(t=1, v=1): return b"makedumpfile".ljust(16, b"\0") + struct.pack(">qq", t, v) + bytes(4096 - 32)
 *   def rec(off, data): return struct.pack(">qq", off, len(data)) + data
 *   END = struct.pack(">qq", -1, -1)
 *   open("ok-overwrite", "wb").write(hdr() + rec(0, b"A" * 300) + rec(600, b"B" * 200) + rec(100, b"C" * 50) + END)
 *   open("ok-interleaved", "wb").write(hdr() + b"".join(rec(4096 + i * 64, bytes([i]) * 64) + rec(64 * i, b"d" * 64) for i in range(8)) + END + b"trailing")
 *   open("ok-empty", "wb").write(hdr() + END)
 *   open("cut-payload", "wb").write(hdr() + rec(0, b"x" * 100)[:-10])
 *   open("cut-no-end", "wb").write(hdr() + rec(0, b"x" * 100))
 *   open("bad-type", "wb").write(hdr(t=2) + END)
 *   open("bad-negative", "wb").write(hdr() + struct.pack(">qq", -5, 10) + bytes(10) + END)
 *   open("bad-huge", "wb").write(hdr() + struct.pack(">qq", 0x7ffffffffffffff0, 0x40000000) + END)
  *
 * The dump-* seeds (python3, in tests/fuzz/corpus/flat, with MDF the
 * program and /tmp/tiny.elf the vmcore of fuzz_reassemble.c's snippet):
 *
 *   import subprocess
 *   def flat(opts): return subprocess.run([MDF, "--message-level", "0", "-F"] + opts +
 *                                         ["/tmp/tiny.elf"], capture_output=True).stdout
 *   k = flat(["-c", "-d", "1"]); e = flat(["-E", "-d", "0"])
 *   open("dump-kdump", "wb").write(k)
 *   open("dump-elf", "wb").write(e)
 *   open("dump-kdump-cut", "wb").write(k[:len(k) * 2 // 3])
 *   open("dump-elf-cut", "wb").write(e[:len(e) - 3000])
 *   lim = subprocess.run([MDF, "--message-level", "0", "-F", "-l", "-d", "0", "-L", "20000",
 *                         "/tmp/tiny.elf"], capture_output=True).stdout
 *   open("dump-kdump-limit", "wb").write(lim)
 *   # the data record after the descriptors left out
 *   import struct
 *   pos, recs = 4096, []
 *   while True:
 *       off, n = struct.unpack_from(">qq", k, pos)
 *       if off == -1: break
 *       recs.append(k[pos:pos + 16 + n]); pos += 16 + n
 *   open("dump-kdump-hole", "wb").write(k[:4096] + b"".join(recs[:-3] + recs[-2:]) + k[pos:])
 */
