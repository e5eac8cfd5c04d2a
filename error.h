/*
 * error.h - status codes and the error object.
 *
 * Every function that can fail returns an enum mdf_status and, on failure,
 * fills a struct mdf_err.  Callers add context on the way out with
 * mdf_err_push(), so the message reads outermost-first:
 *
 *   "fx.elf: PT_LOAD 3: file offset 0x5000+0x3000 past end of file"
 *
 * Nothing here prints and nothing allocates: the message lives in a fixed
 * buffer inside the object, so the error path works when memory is short.
 */
#ifndef MDF_ERROR_H
#define MDF_ERROR_H

#include <stddef.h>

#define MDF_MUST_CHECK __attribute__((warn_unused_result))
#define MDF_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* X(name, text): the one list of status codes. */
#define MDF_STATUSES(X)                                   \
	X(OK, "success")                                  \
	X(ERR_ARG, "invalid argument")                    \
	X(ERR_IO, "input/output error")                   \
	X(ERR_FORMAT, "malformed input")                  \
	X(ERR_NOMEM, "out of memory")                     \
	X(ERR_NOTSUPP, "not supported")                   \
	X(ERR_NODATA, "data not present")                 \
	X(ERR_NOSPC, "no space left on output")           \
	X(ERR_RELEASE, "vmlinux and vmcore do not match") \
	X(ERR_INTERRUPTED, "stopped by a signal")        \
	X(ERR_INTERNAL, "internal error")

enum mdf_status {
#define MDF_STATUS_ENUM(name, text) MDF_##name,
	MDF_STATUSES(MDF_STATUS_ENUM)
#undef MDF_STATUS_ENUM
	MDF_STATUS_COUNT
};

#define MDF_ERR_MSG_MAX 1024

struct mdf_err {
	enum mdf_status status;
	int sys_errno;            /* errno behind the failure, or 0 */
	const char *file;         /* the file the message names, or NULL
				     (not owned; see mdf_err_about()) */
	char msg[MDF_ERR_MSG_MAX];
};

/** For a status that does not matter (best effort after a failure that is
 *  already being reported): says so where a (void) cast cannot. */
static inline void mdf_best_effort(enum mdf_status st)
{
	(void)st;
}

/** Text for a status code; never NULL. */
const char *mdf_status_text(enum mdf_status status);

/** Reset @err to "no error". */
void mdf_err_clear(struct mdf_err *err);

/** Keep @err's message in @dst (@cap bytes, @cap > 0), cut short if it
 *  does not fit: a reason stored for later (why a feature is off). */
void mdf_err_keep(const struct mdf_err *err, char *dst, size_t cap);

/** Record a failure: replaces any earlier message.  Returns @status. */
enum mdf_status mdf_err_set(struct mdf_err *err, enum mdf_status status,
			    const char *fmt, ...) MDF_PRINTF(3, 4);

/** Like mdf_err_set(), then appends ": strerror(errnum)". */
enum mdf_status mdf_err_errno(struct mdf_err *err, enum mdf_status status,
			      int errnum, const char *fmt, ...) MDF_PRINTF(4, 5);

/**
 * Put context in front of the message: "context: old message".
 * Returns the status already recorded in @err, so a caller can write
 * "return mdf_err_push(err, "PT_LOAD %u", i);".
 */
enum mdf_status mdf_err_push(struct mdf_err *err, const char *fmt, ...)
	MDF_PRINTF(2, 3);

/** Record that the message already names @file (a reader that puts its
 *  path in its messages says so). */
void mdf_err_names(struct mdf_err *err, const char *file);

/**
 * Name @file in front of the message ("file: old message") unless the
 * message names it already (mdf_err_names(), or an earlier
 * mdf_err_about()).  Returns the status recorded in @err.
 */
enum mdf_status mdf_err_about(struct mdf_err *err, const char *file);

#endif
