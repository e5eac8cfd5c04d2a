/*
 * error.c - the error object: status texts, set, push context.
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const status_texts[MDF_STATUS_COUNT] = {
#define MDF_STATUS_TEXT(name, text) [MDF_##name] = text,
	MDF_STATUSES(MDF_STATUS_TEXT)
#undef MDF_STATUS_TEXT
};

const char *mdf_status_text(enum mdf_status status)
{
	if ((unsigned)status >= MDF_STATUS_COUNT)
		return "unknown status";
	return status_texts[status];
}

void mdf_err_keep(const struct mdf_err *err, char *dst, size_t cap)
{
	size_t n = strnlen(err->msg, cap - 1);

	memcpy(dst, err->msg, n);
	dst[n] = '\0';
}

void mdf_err_clear(struct mdf_err *err)
{
	err->status = MDF_OK;
	err->sys_errno = 0;
	err->file = NULL;
	err->msg[0] = '\0';
}

static void err_vset(struct mdf_err *err, enum mdf_status status,
		     const char *fmt, va_list ap)
{
	err->status = status;
	err->sys_errno = 0;
	err->file = NULL;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

enum mdf_status mdf_err_set(struct mdf_err *err, enum mdf_status status,
			    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(err, status, fmt, ap);
	va_end(ap);
	return status;
}

enum mdf_status mdf_err_errno(struct mdf_err *err, enum mdf_status status,
			      int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t len;
	char buf[128];

	va_start(ap, fmt);
	err_vset(err, status, fmt, ap);
	va_end(ap);
	err->sys_errno = errnum;
	len = strlen(err->msg);
	/* strerror_r (GNU flavour) may return a static string instead of buf. */
	snprintf(err->msg + len, sizeof(err->msg) - len, ": %s",
		 strerror_r(errnum, buf, sizeof(buf)));
	return status;
}

enum mdf_status mdf_err_push(struct mdf_err *err, const char *fmt, ...)
{
	char prefix[MDF_ERR_MSG_MAX];
	size_t plen, olen, cap = sizeof(err->msg) - 1;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	if (n < 0)
		return err->status;
	plen = strlen(prefix);
	olen = strlen(err->msg);
	if (olen) {
		/* Shift the old message right to make room for "prefix: ". */
		if (plen + 2 > cap)
			plen = cap - 2;
		if (plen + 2 + olen > cap)
			olen = cap - plen - 2;
		memmove(err->msg + plen + 2, err->msg, olen);
		memcpy(err->msg, prefix, plen);
		err->msg[plen] = ':';
		err->msg[plen + 1] = ' ';
		err->msg[plen + 2 + olen] = '\0';
	} else {
		memcpy(err->msg, prefix, plen + 1);
	}
	if (err->status == MDF_OK)
		err->status = MDF_ERR_INTERNAL;
	return err->status;
}

void mdf_err_names(struct mdf_err *err, const char *file)
{
	err->file = file;
}

enum mdf_status mdf_err_about(struct mdf_err *err, const char *file)
{
	if (err->file && (err->file == file || strcmp(err->file, file) == 0))
		return err->status;
	mdf_err_push(err, "%s", file);
	err->file = file;
	return err->status;
}
