/*
 * tests/unit/test_output.c - the output sink (write/output.c) without a
 * dump writer: every file is compared byte for byte with a model image
 * built from the same writes, and flattened streams are parsed back the
 * way -R reads them.  test_output_thread.c covers the writing thread's
 * failures; here out_start_io only has to give the plain path's bytes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskdump.h"
#include "write/output.h"
#include "tap.h"
#include "testutil.h"
#include "util.h"

static char g_dir[64];

static void path_of(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", g_dir, name);
}

/* Random bytes, not a short pattern: a piece at the wrong offset shows. */
static unsigned char src[256 << 10];

/* What the file should hold: the writes applied in order. */
#define IMG_MAX (8u << 20)
static unsigned char model[IMG_MAX];
static uint64_t model_end, model_taken;

static void model_reset(void)
{
	memset(model, 0, sizeof(model));
	model_end = model_taken = 0;
}

static void model_put(uint64_t off, const void *p, size_t len)
{
	memcpy(model + off, p, len);
	if (off + len > model_end)
		model_end = off + len;
}

/* out_write() and the model together. */
static enum mdf_status put_both(struct out_sink *o, uint64_t off, const void *p,
				size_t len, struct mdf_err *err)
{
	model_put(off, p, len);
	model_taken += len;
	return out_write(o, off, p, len, err);
}

static enum mdf_status patch_both(struct out_sink *o, uint64_t off,
				  const void *p, size_t len, struct mdf_err *err)
{
	model_put(off, p, len);
	return out_patch(o, off, p, len, err);
}

/* The file at @path is exactly the model. */
static bool file_is_model(const char *path)
{
	size_t len = 0;
	unsigned char *f = t_slurp(path, &len);
	bool same = f && len == model_end && memcmp(f, model, len) == 0;

	free(f);
	return same;
}

/*
 * What -R does with a flattened stream: check the 4096-byte header, apply
 * the records in order to @img, stop at the end marker, which must be the
 * last 16 bytes.  Returns the number of records, -1 if malformed.
 */
static long flat_parse(const unsigned char *s, size_t len, unsigned char *img,
		       uint64_t *img_end, uint64_t *last_off, uint64_t *last_size)
{
	static const unsigned char zero[MDF_FLAT_HEADER_SIZE];
	size_t sig = sizeof(MDF_FLAT_SIGNATURE) - 1, pos = MDF_FLAT_HEADER_SIZE;
	long n = 0;

	if (len < MDF_FLAT_HEADER_SIZE || memcmp(s, MDF_FLAT_SIGNATURE, sig) != 0 ||
	    memcmp(s + sig, zero, MDF_FLAT_SIG_LEN - sig) != 0 ||
	    load_be64(s + MDF_FLAT_SIG_LEN) != MDF_FLAT_TYPE_KDUMP ||
	    load_be64(s + MDF_FLAT_SIG_LEN + 8) != MDF_FLAT_VERSION ||
	    memcmp(s + MDF_FLAT_SIG_LEN + 16, zero,
		   MDF_FLAT_HEADER_SIZE - MDF_FLAT_SIG_LEN - 16) != 0)
		return -1;
	*img_end = 0;
	while (pos + 16 <= len) {
		uint64_t off = load_be64(s + pos), size = load_be64(s + pos + 8);

		pos += 16;
		if (off == (uint64_t)(int64_t)MDF_FLAT_END_MARK &&
		    size == (uint64_t)(int64_t)MDF_FLAT_END_MARK)
			return pos == len ? n : -1;
		if (size > len - pos || off > IMG_MAX || size > IMG_MAX - off)
			return -1;
		memcpy(img + off, s + pos, size);
		if (off + size > *img_end)
			*img_end = off + size;
		*last_off = off;
		*last_size = size;
		pos += size;
		n++;
	}
	return -1; /* no end marker */
}

/* The flattened stream in @path, applied, is the model: @n records. */
static bool flat_is_model(const char *path, long n, uint64_t *last_off,
			  uint64_t *last_size)
{
	static unsigned char img[IMG_MAX];
	uint64_t end = 0;
	size_t len = 0;
	unsigned char *f = t_slurp(path, &len);
	bool ok;

	memset(img, 0, sizeof(img));
	ok = f && flat_parse(f, len, img, &end, last_off, last_size) == n &&
	     end == model_end && memcmp(img, model, end) == 0;
	free(f);
	return ok;
}

/* Sequential, out of order, overlapping: each byte where it was put. */
static void file_offsets(void)
{
	char path[128];
	struct out_sink o;
	struct mdf_err err;
	uint64_t calls;

	path_of(path, sizeof(path), "offsets");
	model_reset();
	T_OK(out_open_file(&o, path, false, 0, 0, &err), &err);
	T_EQ_U64(o.cap, 64u << 10); /* -b below the minimum */
	for (unsigned i = 0; i < 100; i++)
		T_OK(put_both(&o, 4096 + 700 * i, src + 13 * i, 700, &err), &err);
	T_OK(put_both(&o, 300000, src + 5, 999, &err), &err);      /* ahead */
	T_OK(put_both(&o, 0, src + 77, 464, &err), &err);          /* behind */
	T_OK(put_both(&o, 4000, src + 1234, 5000, &err), &err);    /* over both */
	T_OK(put_both(&o, 9000, src + 99, 70000, &err), &err);     /* > cap */
	T_OK(out_flush(&o, &err), &err);
	/* out_sync is a flush and one fdatasync. */
	calls = o.syscalls;
	T_OK(out_sync(&o, &err), &err);
	T_EQ_U64(o.syscalls, calls + 1);
	T_EQ_U64(o.written, model_taken);
	T_EQ_U64(o.taken, model_taken);
	T_OK(out_close(&o, &err), &err);
	T_ASSERT(file_is_model(path));
	unlink(path);
}

/* Small sequential writes go out as whole buffers, with the same bytes
 * whatever the buffer size. */
static void coalescing(void)
{
	static const size_t bufs[] = { 64u << 10, 1u << 20 };
	static const uint64_t want_calls[] = { 16, 1 }; /* 1e6 bytes each */
	char path[128];
	struct mdf_err err;

	path_of(path, sizeof(path), "coalesce");
	for (unsigned b = 0; b < 2; b++) {
		struct out_sink o;

		model_reset();
		T_OK(out_open_file(&o, path, true, 0, bufs[b], &err), &err);
		for (unsigned i = 0; i < 1000; i++)
			T_OK(put_both(&o, 1000 * i, src + 7 * i, 1000, &err), &err);
		T_OK(out_close(&o, &err), &err);
		T_EQ_U64(o.syscalls, want_calls[b]);
		T_EQ_U64(o.written, 1000000);
		T_ASSERT(file_is_model(path));
	}
	unlink(path);
}

/* A patch rewrites flushed bytes in place while later writes buffer on. */
static void patch_after_flush(void)
{
	char path[128];
	struct out_sink o;
	struct mdf_err err;
	uint64_t calls, written;

	path_of(path, sizeof(path), "patch");
	model_reset();
	T_OK(out_open_file(&o, path, false, 0, 0, &err), &err);
	T_OK(put_both(&o, 0, src, 464, &err), &err);
	for (unsigned i = 0; i < 10; i++)
		T_OK(put_both(&o, 4096 + 1000 * i, src + 500 + i, 1000, &err), &err);
	T_OK(out_flush(&o, &err), &err);
	T_OK(put_both(&o, 14096, src + 4000, 3000, &err), &err); /* buffered */
	calls = o.syscalls;
	written = o.written;
	T_OK(patch_both(&o, 8, "incomplete=0", 12, &err), &err);
	T_OK(patch_both(&o, 4500, src + 9000, 2500, &err), &err); /* 3 writes */
	T_EQ_U64(o.syscalls, calls + 2);
	T_EQ_U64(o.written, written); /* a patch is not dump bytes */
	T_OK(out_close(&o, &err), &err);
	T_ASSERT(file_is_model(path));
	unlink(path);
}

/* -L on a file: the bytes handed over up to the limit, not one more. */
static void file_limit(void)
{
	char path[128];
	struct out_sink o;
	struct mdf_err err;
	struct stat sb;

	path_of(path, sizeof(path), "limit");
	model_reset();
	T_OK(out_open_file(&o, path, false, 10000, 0, &err), &err);
	for (unsigned i = 0; i < 3; i++)
		T_OK(put_both(&o, 3000 * i, src + i, 3000, &err), &err);
	model_put(9000, src + 3, 1000); /* of the next 3000, 1000 fit */
	T_EQ_U64(out_write(&o, 9000, src + 3, 3000, &err), MDF_ERR_NOSPC);
	T_ASSERT(strstr(err.msg, "size limit") != NULL);
	T_ASSERT(o.full && o.limit_hit);
	T_EQ_U64(o.fail_off, 10000);
	T_EQ_U64(o.written, 10000);
	T_EQ_U64(out_write(&o, 10000, src, 1, &err), MDF_ERR_NOSPC);
	T_EQ_U64(o.written, 10000);
	/* The header saying "incomplete" still goes in: outside -L. */
	T_OK(patch_both(&o, 0, "HDR!", 4, &err), &err);
	T_OK(out_close(&o, &err), &err);
	T_ASSERT(stat(path, &sb) == 0 && sb.st_size == 10000);
	T_ASSERT(file_is_model(path));

	/* What the writer will still write counts too. */
	model_reset();
	T_OK(out_open_file(&o, path, true, 10000, 0, &err), &err);
	o.reserved = 4000;
	T_OK(put_both(&o, 0, src, 6000, &err), &err);
	T_EQ_U64(out_write(&o, 6000, src, 1, &err), MDF_ERR_NOSPC);
	T_EQ_U64(o.fail_off, 6000);
	T_OK(out_close(&o, &err), &err);
	T_ASSERT(file_is_model(path));
	unlink(path);
}

/* The flattened format: header, (offset, size) records, end marker;
 * contiguous pieces make one record, a patch is one more. */
static void flat_format(void)
{
	char path[128];
	struct out_sink o;
	struct mdf_err err;
	uint64_t lo = 0, ls = 0;
	size_t len = 0;
	int fd;

	path_of(path, sizeof(path), "flat");
	model_reset();
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	T_ASSERT(fd >= 0);
	T_OK(out_open_flat(&o, fd, 0, 0, &err), &err);
	T_ASSERT(o.flat && !o.own_fd && !o.regular);
	T_EQ_U64(o.written, MDF_FLAT_HEADER_SIZE);
	for (unsigned i = 0; i < 10; i++)                      /* record 1 */
		T_OK(put_both(&o, 4096 + 100 * i, src + i, 100, &err), &err);
	T_OK(put_both(&o, 0, src + 50, 464, &err), &err);       /* record 2 */
	T_OK(put_both(&o, 8192, src + 60, 100000, &err), &err); /* record 3 */
	T_OK(out_flush(&o, &err), &err);
	T_OK(patch_both(&o, 0, "PATCH", 5, &err), &err);        /* record 4 */
	T_OK(out_close(&o, &err), &err);
	/* header, two writes a record, the end marker */
	T_EQ_U64(o.syscalls, 1 + 2 * 4 + 1);
	T_ASSERT(fcntl(fd, F_GETFD) != -1); /* the caller's fd stays open */
	close(fd);
	T_ASSERT(flat_is_model(path, 4, &lo, &ls));
	T_EQ_U64(lo, 0);
	T_EQ_U64(ls, 5);
	free(t_slurp(path, &len));
	T_EQ_U64(o.written, len);
	unlink(path);
}

/* A plain stream (-F --dump-dmesg): the bytes in order on a pipe, as they
 * are; nothing to sync, the caller's fd stays open, nothing is removed. */
static void plain_stream(void)
{
	struct out_sink o;
	struct mdf_err err;
	unsigned char back[100000];  /* 60000 bytes: within a pipe's 64 KiB */
	uint64_t off = 0;
	size_t got = 0;
	int p[2];

	T_ASSERT(pipe(p) == 0);
	T_OK(out_open_stream(&o, p[1], 0, 0, &err), &err);
	T_ASSERT(o.stream && !o.flat && !o.own_fd && !o.regular);
	for (unsigned i = 0; i < 3; i++) {
		T_OK(out_write(&o, off, src + 1000 * i, 20000, &err), &err);
		off += 20000;
	}
	T_OK(out_sync(&o, &err), &err);
	T_OK(out_close(&o, &err), &err);
	out_discard(&o);
	T_EQ_U64(o.written, 60000);
	T_ASSERT(fcntl(p[1], F_GETFD) != -1);
	close(p[1]);
	for (ssize_t n; (n = read(p[0], back + got, sizeof(back) - got)) > 0;)
		got += (size_t)n;
	close(p[0]);
	T_EQ_U64(got, 60000);
	for (unsigned i = 0; i < 3; i++)
		T_ASSERT(memcmp(back + 20000 * i, src + 1000 * i, 20000) == 0);
}

/* -L on a stream counts its header and record headers; the record the
 * limit cuts ends at the byte, and the stream still gets its end marker. */
static void flat_limit(void)
{
	const uint64_t limit = MDF_FLAT_HEADER_SIZE + 16 + 1000 + 16 + 500;
	char path[128];
	struct out_sink o;
	struct mdf_err err;
	uint64_t lo = 0, ls = 0;
	size_t len = 0;
	int fd;

	path_of(path, sizeof(path), "flatlimit");
	model_reset();
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	T_ASSERT(fd >= 0);
	T_OK(out_open_flat(&o, fd, limit, 0, &err), &err);
	T_OK(put_both(&o, 0, src, 1000, &err), &err);
	T_OK(out_write(&o, 50000, src + 1000, 1000, &err), &err); /* buffered */
	model_put(50000, src + 1000, 500);
	T_EQ_U64(out_flush(&o, &err), MDF_ERR_NOSPC);
	T_ASSERT(strstr(err.msg, "size limit") != NULL);
	T_ASSERT(o.full && o.limit_hit);
	T_EQ_U64(o.fail_off, 50500);
	T_EQ_U64(o.written, limit);
	T_OK(patch_both(&o, 0, "HDR", 3, &err), &err);
	T_OK(out_close(&o, &err), &err);
	close(fd);
	T_ASSERT(flat_is_model(path, 3, &lo, &ls));
	T_EQ_U64(lo, 0);
	T_EQ_U64(ls, 3);
	free(t_slurp(path, &len));
	T_EQ_U64(len, limit + 16 + 3 + 16); /* + the patch + the end marker */
	unlink(path);
}

/* A dump is never written over without -f, and only its owner reads it. */
static void excl_force_mode(void)
{
	char path[128];
	struct out_sink o;
	struct mdf_err err;
	struct stat sb;
	mode_t old = umask(0); /* 0600 must be asked for, not the umask's */
	enum mdf_status st;
	size_t len = 0;
	unsigned char *f;

	path_of(path, sizeof(path), "excl");
	st = out_open_file(&o, path, false, 0, 0, &err);
	umask(old);
	T_OK(st, &err);
	T_ASSERT(o.regular && o.own_fd);
	T_OK(out_write(&o, 0, "abc", 3, &err), &err);
	T_OK(out_close(&o, &err), &err);
	T_ASSERT(stat(path, &sb) == 0);
	T_EQ_U64(sb.st_mode & 07777, 0600);

	T_EQ_U64(out_open_file(&o, path, false, 0, 0, &err), MDF_ERR_IO);
	T_ASSERT(strstr(err.msg, "already exists") != NULL);
	f = t_slurp(path, &len);
	T_ASSERT(f && len == 3 && memcmp(f, "abc", 3) == 0);
	free(f);

	T_OK(out_open_file(&o, path, true, 0, 0, &err), &err);
	T_OK(out_close(&o, &err), &err);
	T_ASSERT(stat(path, &sb) == 0 && sb.st_size == 0); /* truncated */
	unlink(path);
}

/* A full disk (/dev/full) is MDF_ERR_NOSPC with full and fail_off set, not
 * the limit; a stream the pipe refused gets no end marker. */
static void enospc(void)
{
	char path[128];
	struct out_sink o;
	struct mdf_err err;
	enum mdf_status st;
	uint64_t calls;
	int fd, full;

	if (access("/dev/full", W_OK) != 0) {
		t_skip("/dev/full is not writable");
		return;
	}
	T_OK(out_open_file(&o, "/dev/full", true, 0, 0, &err), &err);
	T_ASSERT(!o.regular); /* so out_discard() would leave it alone */
	T_OK(out_write(&o, 8192, src, 100, &err), &err); /* only buffered */
	T_EQ_U64(out_flush(&o, &err), MDF_ERR_NOSPC);
	T_ASSERT(o.full && !o.limit_hit);
	T_EQ_U64(o.fail_off, 8192);
	T_EQ_U64(o.written, 0);
	T_OK(out_close(&o, &err), &err);

	/* Nothing written yet: open says which output, not the writer. */
	full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	T_ASSERT(full >= 0);
	st = out_open_flat(&o, full, 0, 0, &err);
	mdf_best_effort(out_close(&o, &(struct mdf_err){ 0 })); /* the buffer */
	close(full);
	T_EQ_U64(st, MDF_ERR_NOSPC);
	T_ASSERT(strstr(err.msg, "standard output") != NULL);

	/* A stream that started well, then the pipe's reader ran out of disk. */
	path_of(path, sizeof(path), "flatfull");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	T_ASSERT(fd >= 0);
	T_OK(out_open_flat(&o, fd, 0, 0, &err), &err);
	full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	T_ASSERT(full >= 0 && dup2(full, fd) == fd);
	close(full);
	T_OK(out_write(&o, 4096, src, 10, &err), &err);
	T_EQ_U64(out_flush(&o, &err), MDF_ERR_NOSPC);
	T_ASSERT(o.full && !o.limit_hit);
	T_EQ_U64(o.fail_off, 4096);
	calls = o.syscalls;
	T_OK(out_close(&o, &err), &err);
	T_EQ_U64(o.syscalls, calls); /* no end marker tried */
	close(fd);
	unlink(path);
}

/* out_discard removes a regular dump file, never anything else. */
static void discard(void)
{
	char path[128];
	struct out_sink o;
	struct mdf_err err;
	struct stat sb;
	int rfd;

	path_of(path, sizeof(path), "discard");
	T_OK(out_open_file(&o, path, false, 0, 0, &err), &err);
	T_OK(out_write(&o, 0, src, 5000, &err), &err);
	T_OK(out_close(&o, &err), &err);
	out_discard(&o);
	T_ASSERT(stat(path, &sb) != 0 && errno == ENOENT);

	/* A FIFO stands in for a device node (safe to lose if this fails). */
	path_of(path, sizeof(path), "fifo");
	T_ASSERT(mkfifo(path, 0600) == 0);
	rfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* lets the open go */
	T_ASSERT(rfd >= 0);
	T_OK(out_open_file(&o, path, true, 0, 0, &err), &err);
	T_ASSERT(!o.regular);
	T_OK(out_close(&o, &err), &err);
	out_discard(&o);
	close(rfd);
	T_ASSERT(stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode));
	unlink(path);
}

/* Entries of the test directory whose name starts with @prefix. */
static unsigned count_prefix(const char *prefix)
{
	DIR *d = opendir(g_dir);
	struct dirent *de;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/*
 * A file written under a temporary name: nothing at its name until
 * out_commit(), which never replaces a file without force; out_discard()
 * removes only the temporary file; a device is written in place.
 */
static void tmp_commit(void)
{
	char path[128], link_path[128], text[16];
	struct out_sink o;
	struct mdf_err err;
	struct stat sb;
	int fd, rfd;

	path_of(path, sizeof(path), "tmpfile");
	T_OK(out_open_file_tmp(&o, path, false, 0640, 0, 0, &err), &err);
	T_ASSERT(o.tmp && o.regular);
	T_OK(out_write(&o, 0, "hello", 5, &err), &err);
	T_OK(out_flush(&o, &err), &err);
	T_ASSERT(stat(path, &sb) != 0 && errno == ENOENT);  /* not yet */
	T_EQ_U64(count_prefix(".tmpfile.incomplete."), 1);
	T_OK(out_commit(&o, &err), &err);
	T_OK(out_close(&o, &err), &err);
	T_ASSERT(stat(path, &sb) == 0 && sb.st_size == 5 && S_ISREG(sb.st_mode));
	T_EQ_U64(count_prefix(".tmpfile.incomplete."), 0);

	/* It exists: refused at once without force ... */
	T_ASSERT(out_open_file_tmp(&o, path, false, 0600, 0, 0, &err) == MDF_ERR_IO);
	T_ASSERT(strstr(err.msg, "already exists (use -f to overwrite it)") != NULL);
	/* ... and a file that appears while it is written is not replaced. */
	path_of(link_path, sizeof(link_path), "late");
	T_OK(out_open_file_tmp(&o, link_path, false, 0600, 0, 0, &err), &err);
	T_OK(out_write(&o, 0, "new", 3, &err), &err);
	fd = open(link_path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	T_ASSERT(fd >= 0 && write(fd, "old", 3) == 3);
	close(fd);
	T_ASSERT(out_commit(&o, &err) == MDF_ERR_IO);
	T_ASSERT(strstr(err.msg, "late already exists") != NULL);
	T_OK(out_close(&o, &err), &err);
	out_discard(&o);
	fd = open(link_path, O_RDONLY);
	T_ASSERT(fd >= 0 && read(fd, text, sizeof(text)) == 3 && memcmp(text, "old", 3) == 0);
	close(fd);
	T_EQ_U64(count_prefix(".late.incomplete."), 0);
	unlink(link_path);

	/* With force it replaces; a failure leaves the old file alone. */
	T_OK(out_open_file_tmp(&o, path, true, 0600, 0, 0, &err), &err);
	T_OK(out_write(&o, 0, "abc", 3, &err), &err);
	T_OK(out_close(&o, &err), &err);
	out_discard(&o);
	T_ASSERT(stat(path, &sb) == 0 && sb.st_size == 5);
	T_EQ_U64(count_prefix(".tmpfile.incomplete."), 0);
	/* Through a symlink: the file it leads to, the link stays. */
	path_of(link_path, sizeof(link_path), "link");
	T_ASSERT(symlink("tmpfile", link_path) == 0);
	T_OK(out_open_file_tmp(&o, link_path, true, 0600, 0, 0, &err), &err);
	T_OK(out_write(&o, 0, "abc", 3, &err), &err);
	T_OK(out_commit(&o, &err), &err);
	T_OK(out_close(&o, &err), &err);
	T_ASSERT(lstat(link_path, &sb) == 0 && S_ISLNK(sb.st_mode));
	T_ASSERT(stat(path, &sb) == 0 && sb.st_size == 3);
	unlink(link_path);
	unlink(path);

	/* A FIFO (a device's stand-in) is written in place, never renamed. */
	path_of(path, sizeof(path), "tmpfifo");
	T_ASSERT(mkfifo(path, 0600) == 0);
	rfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	T_ASSERT(rfd >= 0);
	T_OK(out_open_file_tmp(&o, path, true, 0600, 0, 0, &err), &err);
	T_ASSERT(!o.tmp && !o.regular);
	T_OK(out_write(&o, 0, "xy", 2, &err), &err);
	T_OK(out_commit(&o, &err), &err);
	T_OK(out_close(&o, &err), &err);
	out_discard(&o);
	T_ASSERT(read(rfd, text, sizeof(text)) == 2);
	close(rfd);
	T_ASSERT(stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode));
	unlink(path);
}

/*
 * A writer's pattern, pseudo-random: mostly appends of any size (some
 * larger than the buffer), writes back over earlier bytes, holes, and
 * patches after a flush.  The model is rebuilt on every run.
 */
static enum mdf_status random_run(const char *path, uint64_t seed, size_t bufsize,
				  bool thread, struct out_sink *o,
				  struct mdf_err *err)
{
	uint64_t s = seed, cur = 4096;
	enum mdf_status st;

	model_reset();
	st = out_open_file(o, path, true, 0, bufsize, err);
	if (st != MDF_OK)
		return st;
	if (thread)
		st = out_start_io(o, err);
	if (st == MDF_OK && thread && !o->io)
		st = mdf_err_set(err, MDF_ERR_INTERNAL, "no writing thread");
	if (st == MDF_OK)
		st = put_both(o, 0, src, 464, err);
	for (unsigned k = 0; st == MDF_OK && k < 600 && cur < IMG_MAX - (1u << 20); k++) {
		uint64_t r = t_rnd(&s) % 100, off = t_rnd(&s) % cur;
		size_t len = (size_t)(t_rnd(&s) % 9000) + 1;
		const unsigned char *p;

		if (r < 3)
			len = (size_t)(t_rnd(&s) % 130000) + 70000;
		else if (r >= 80)
			len = len % 3000 + 1;
		p = src + t_rnd(&s) % (sizeof(src) - len + 1);
		if (r < 80) {
			st = put_both(o, cur, p, len, err);
			cur += len;
		} else if (r < 90) {
			st = put_both(o, off, p, len, err);
		} else if (r < 95) {
			cur += len; /* a hole */
		} else {
			st = out_flush(o, err);
			if (st == MDF_OK)
				st = patch_both(o, off, p, len, err);
		}
	}
	if (st == MDF_OK)
		st = out_close(o, err);
	else
		mdf_best_effort(out_close(o, &(struct mdf_err){ 0 }));
	return st;
}

/* Plain with either buffer size, and the writing thread: the same bytes. */
static void thread_same_bytes(void)
{
	char path[128];
	struct out_sink o;
	struct mdf_err err;

	path_of(path, sizeof(path), "random");
	for (uint64_t seed = 1; seed <= 3; seed++) {
		T_OK(random_run(path, seed, 64u << 10, false, &o, &err), &err);
		T_ASSERT(file_is_model(path));
		T_EQ_U64(o.written, model_taken);
		T_ASSERT(o.syscalls > 0 && o.syscalls < 600); /* coalesced */
		T_OK(random_run(path, seed, 1u << 20, false, &o, &err), &err);
		T_ASSERT(file_is_model(path));
		T_OK(random_run(path, seed, 64u << 10, true, &o, &err), &err);
		T_ASSERT(o.io == NULL && o.buf == NULL);
		T_ASSERT(file_is_model(path));
		T_EQ_U64(o.written, model_taken);
		T_EQ_U64(o.taken, model_taken);
		T_ASSERT(o.syscalls > 0);
	}
	unlink(path);
}

/* A failed case returns early and leaves its files: remove them all. */
static void remove_dir(void)
{
	DIR *d = opendir(g_dir);
	struct dirent *e;
	char path[512];

	while (d && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", g_dir, e->d_name);
			unlink(path);
		}
	}
	if (d)
		closedir(d);
	if (rmdir(g_dir) != 0)
		printf("# %s left behind: %s\n", g_dir, strerror(errno));
}

int main(void)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)t_rnd(&s);
	snprintf(g_dir, sizeof(g_dir), "/tmp/mdf-output.XXXXXX");
	if (!mkdtemp(g_dir)) {
		printf("not ok setup: cannot create %s\n", g_dir);
		return 1;
	}
	T_RUN(file_offsets);
	T_RUN(coalescing);
	T_RUN(patch_after_flush);
	T_RUN(file_limit);
	T_RUN(flat_format);
	T_RUN(plain_stream);
	T_RUN(flat_limit);
	T_RUN(excl_force_mode);
	T_RUN(enospc);
	T_RUN(discard);
	T_RUN(tmp_commit);
	T_RUN(thread_same_bytes);
	remove_dir();
	return t_done();
}
