/*
 * tests/unit/test_error.c - the error object: set, errno, the push chain,
 * truncation at MDF_ERR_MSG_MAX, status texts.
 */
#include <errno.h>
#include <string.h>

#include "tap.h"

#include "error.h"

/* The buffer must always hold a NUL-terminated string within bounds. */
static int terminated(const struct mdf_err *e)
{
	return memchr(e->msg, '\0', sizeof(e->msg)) != NULL;
}

static void clear(void)
{
	struct mdf_err e;

	memset(&e, 0x55, sizeof(e));
	mdf_err_clear(&e);
	T_EQ_U64(e.status, MDF_OK);
	T_EQ_U64(e.sys_errno, 0);
	T_EQ_STR(e.msg, "");
}

static void set(void)
{
	struct mdf_err e;

	mdf_err_clear(&e);
	T_EQ_U64(mdf_err_set(&e, MDF_ERR_FORMAT, "PT_LOAD %u: offset 0x%llx", 3u,
			     0x5000ULL), MDF_ERR_FORMAT);
	T_EQ_U64(e.status, MDF_ERR_FORMAT);
	T_EQ_STR(e.msg, "PT_LOAD 3: offset 0x5000");
	/* A second set replaces message, status and errno. */
	e.sys_errno = EIO;
	T_EQ_U64(mdf_err_set(&e, MDF_ERR_ARG, "%s", "bad"), MDF_ERR_ARG);
	T_EQ_U64(e.status, MDF_ERR_ARG);
	T_EQ_U64(e.sys_errno, 0);
	T_EQ_STR(e.msg, "bad");
	T_EQ_U64(mdf_err_set(&e, MDF_ERR_IO, "%s", ""), MDF_ERR_IO);
	T_EQ_STR(e.msg, "");
}

static void with_errno(void)
{
	struct mdf_err e;
	char want[256];

	mdf_err_clear(&e);
	T_EQ_U64(mdf_err_errno(&e, MDF_ERR_IO, ENOENT, "cannot open %s", "fx.elf"),
		 MDF_ERR_IO);
	T_EQ_U64(e.status, MDF_ERR_IO);
	T_EQ_U64(e.sys_errno, ENOENT);
	snprintf(want, sizeof(want), "cannot open fx.elf: %s", strerror(ENOENT));
	T_EQ_STR(e.msg, want);
	T_EQ_STR(e.msg, "cannot open fx.elf: No such file or directory");
	T_EQ_U64(mdf_err_errno(&e, MDF_ERR_NOSPC, ENOSPC, "write"), MDF_ERR_NOSPC);
	T_EQ_STR(e.msg, "write: No space left on device");
	T_EQ_U64(e.sys_errno, ENOSPC);
	/* An errno with no name still gives one line. */
	T_EQ_U64(mdf_err_errno(&e, MDF_ERR_IO, 123456, "x"), MDF_ERR_IO);
	T_ASSERT(strncmp(e.msg, "x: ", 3) == 0);
	T_ASSERT(strlen(e.msg) > 3 && !strchr(e.msg, '\n'));
	/* Setting again forgets the errno. */
	mdf_err_set(&e, MDF_ERR_ARG, "y");
	T_EQ_U64(e.sys_errno, 0);
}

static void push_chain(void)
{
	struct mdf_err e;

	mdf_err_clear(&e);
	mdf_err_set(&e, MDF_ERR_FORMAT, "c");
	T_EQ_U64(mdf_err_push(&e, "b"), MDF_ERR_FORMAT);
	T_EQ_U64(mdf_err_push(&e, "%s", "a"), MDF_ERR_FORMAT);
	T_EQ_STR(e.msg, "a: b: c");
	T_EQ_U64(e.status, MDF_ERR_FORMAT);

	mdf_err_errno(&e, MDF_ERR_IO, EACCES, "open");
	mdf_err_push(&e, "%s: PT_LOAD %d", "fx.elf", 3);
	T_EQ_STR(e.msg, "fx.elf: PT_LOAD 3: open: Permission denied");
	T_EQ_U64(e.sys_errno, EACCES);      /* kept by push */
	T_EQ_U64(e.status, MDF_ERR_IO);
	/* An empty context still adds the separator. */
	mdf_err_set(&e, MDF_ERR_ARG, "m");
	mdf_err_push(&e, "%s", "");
	T_EQ_STR(e.msg, ": m");
}

static void push_empty(void)
{
	struct mdf_err e;

	/* Nothing recorded yet: the context becomes the message and the
	 * status says something went wrong without saying what. */
	mdf_err_clear(&e);
	T_EQ_U64(mdf_err_push(&e, "reading %s", "notes"), MDF_ERR_INTERNAL);
	T_EQ_STR(e.msg, "reading notes");
	T_EQ_U64(e.status, MDF_ERR_INTERNAL);
	/* A status without a message keeps its status. */
	mdf_err_clear(&e);
	e.status = MDF_ERR_NOMEM;
	T_EQ_U64(mdf_err_push(&e, "ctx"), MDF_ERR_NOMEM);
	T_EQ_STR(e.msg, "ctx");
	/* Push then more pushes. */
	T_EQ_U64(mdf_err_push(&e, "outer"), MDF_ERR_NOMEM);
	T_EQ_STR(e.msg, "outer: ctx");
}

static void truncation(void)
{
	static char big[3 * MDF_ERR_MSG_MAX];
	struct mdf_err e;
	size_t len;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';

	/* set: cut at the buffer. */
	mdf_err_set(&e, MDF_ERR_FORMAT, "%s", big);
	T_ASSERT(terminated(&e));
	T_EQ_U64(strlen(e.msg), MDF_ERR_MSG_MAX - 1);

	/* errno on a full message: no room for the text, still terminated. */
	mdf_err_errno(&e, MDF_ERR_IO, EIO, "%s", big);
	T_ASSERT(terminated(&e));
	T_EQ_U64(strlen(e.msg), MDF_ERR_MSG_MAX - 1);
	T_EQ_U64(e.sys_errno, EIO);
	/* Nearly full: the errno text is cut. */
	mdf_err_errno(&e, MDF_ERR_IO, EIO, "%.*s", (int)MDF_ERR_MSG_MAX - 6, big);
	T_EQ_U64(strlen(e.msg), MDF_ERR_MSG_MAX - 1);
	T_ASSERT(memcmp(e.msg + MDF_ERR_MSG_MAX - 6, ": In", 4) == 0);

	/* push a short context on a full message: the context survives, the
	 * old message loses its tail. */
	mdf_err_set(&e, MDF_ERR_FORMAT, "%s", big);
	mdf_err_push(&e, "ctx");
	T_ASSERT(terminated(&e));
	len = strlen(e.msg);
	T_EQ_U64(len, MDF_ERR_MSG_MAX - 1);
	T_ASSERT(strncmp(e.msg, "ctx: xxx", 8) == 0);

	/* push a huge context on a short message: the context is cut and
	 * the old message is dropped rather than overflowing. */
	mdf_err_set(&e, MDF_ERR_FORMAT, "old");
	mdf_err_push(&e, "%s", big);
	T_ASSERT(terminated(&e));
	len = strlen(e.msg);
	T_EQ_U64(len, MDF_ERR_MSG_MAX - 1);
	T_ASSERT(strstr(e.msg, "old") == NULL);
	T_EQ_STR(e.msg + len - 3, "x: ");
	T_EQ_U64(e.status, MDF_ERR_FORMAT);

	/* A context exactly filling the buffer but for the separator. */
	mdf_err_set(&e, MDF_ERR_FORMAT, "m");
	mdf_err_push(&e, "%.*s", (int)MDF_ERR_MSG_MAX - 4, big);
	T_ASSERT(terminated(&e));
	T_EQ_U64(strlen(e.msg), MDF_ERR_MSG_MAX - 1);
	T_ASSERT(strcmp(e.msg + MDF_ERR_MSG_MAX - 4, ": m") == 0);
	/* One more byte of context: "m" no longer fits. */
	mdf_err_set(&e, MDF_ERR_FORMAT, "m");
	mdf_err_push(&e, "%.*s", (int)MDF_ERR_MSG_MAX - 3, big);
	T_ASSERT(terminated(&e));
	T_ASSERT(strlen(e.msg) <= MDF_ERR_MSG_MAX - 1);
	T_ASSERT(strchr(e.msg, 'm') == NULL);

	/* Many pushes on a long chain: always bounded and terminated. */
	mdf_err_set(&e, MDF_ERR_IO, "root");
	for (int i = 0; i < 500; i++) {
		mdf_err_push(&e, "level %d", i);
		if (!terminated(&e))
			break;
	}
	T_ASSERT(terminated(&e));
	T_ASSERT(strncmp(e.msg, "level 499: level 498: ", 22) == 0);
	T_EQ_U64(strlen(e.msg), MDF_ERR_MSG_MAX - 1);

	/* Empty message push with a huge context. */
	mdf_err_clear(&e);
	mdf_err_push(&e, "%s", big);
	T_EQ_U64(strlen(e.msg), MDF_ERR_MSG_MAX - 1);
}

/* The file a message names travels with it: named once, not twice. */
static void about_file(void)
{
	static const char vm[] = "/proc/vmcore";
	char copy[sizeof(vm)];
	struct mdf_err err;

	memcpy(copy, vm, sizeof(vm));
	mdf_err_set(&err, MDF_ERR_NODATA, "pfn 0x9f is not in the dump");
	T_ASSERT(err.file == NULL);
	T_EQ_U64(mdf_err_about(&err, vm), MDF_ERR_NODATA);
	T_EQ_STR(err.msg, "/proc/vmcore: pfn 0x9f is not in the dump");
	mdf_err_about(&err, copy); /* the same name, another pointer */
	T_EQ_STR(err.msg, "/proc/vmcore: pfn 0x9f is not in the dump");
	mdf_err_push(&err, "copying"); /* context keeps the fact */
	mdf_err_about(&err, vm);
	T_EQ_STR(err.msg, "copying: /proc/vmcore: pfn 0x9f is not in the dump");
	mdf_err_about(&err, "other.elf"); /* another file is named */
	T_EQ_STR(err.msg, "other.elf: copying: /proc/vmcore: pfn 0x9f is not in the dump");

	mdf_err_set(&err, MDF_ERR_IO, "%s: short read", vm);
	mdf_err_names(&err, vm);
	mdf_err_about(&err, vm);
	T_EQ_STR(err.msg, "/proc/vmcore: short read");
	mdf_err_set(&err, MDF_ERR_IO, "again"); /* a new message: nothing named */
	T_ASSERT(err.file == NULL);
	mdf_err_clear(&err);
	T_ASSERT(err.file == NULL);
}

static void status_texts(void)
{
	static const struct { enum mdf_status st; const char *text; } t[] = {
		{ MDF_OK, "success" },
		{ MDF_ERR_ARG, "invalid argument" },
		{ MDF_ERR_IO, "input/output error" },
		{ MDF_ERR_FORMAT, "malformed input" },
		{ MDF_ERR_NOMEM, "out of memory" },
		{ MDF_ERR_NOTSUPP, "not supported" },
		{ MDF_ERR_NODATA, "data not present" },
		{ MDF_ERR_NOSPC, "no space left on output" },
		{ MDF_ERR_RELEASE, "vmlinux and vmcore do not match" },
		{ MDF_ERR_INTERRUPTED, "stopped by a signal" },
		{ MDF_ERR_INTERNAL, "internal error" },
	};

	T_EQ_U64(sizeof(t) / sizeof(t[0]), MDF_STATUS_COUNT);
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		T_EQ_STR(mdf_status_text(t[i].st), t[i].text);
	T_EQ_STR(mdf_status_text(MDF_STATUS_COUNT), "unknown status");
	T_EQ_STR(mdf_status_text((enum mdf_status)-1), "unknown status");
	T_EQ_STR(mdf_status_text((enum mdf_status)1000), "unknown status");
	T_EQ_U64(MDF_OK, 0);
}

int main(void)
{
	T_RUN(clear);
	T_RUN(set);
	T_RUN(with_errno);
	T_RUN(push_chain);
	T_RUN(push_empty);
	T_RUN(truncation);
	T_RUN(about_file);
	T_RUN(status_texts);
	return t_done();
}
