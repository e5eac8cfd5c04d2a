/*
 * files.c - the files a run names: inputs opened so that none can block,
 * and no output that is an input (files.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"

static void note(struct mdf_files *f, const char *path, const char *what)
{
	struct stat sb;

	if (!path || f->n >= FILES_MAX_INPUTS || stat(path, &sb) != 0)
		return;
	f->in[f->n].dev = sb.st_dev;
	f->in[f->n].ino = sb.st_ino;
	f->in[f->n].path = path;
	f->in[f->n].what = what;
	f->n++;
}

void files_note_inputs(struct mdf_files *f, const struct mdf_opts *o)
{
	struct stat sb;

	f->n = 0;
	if (o->action == MDF_ACT_REASSEMBLE) {
		for (unsigned i = 0; i < o->nsplit; i++)
			note(f, o->split_files[i], "a split part");
	} else if (o->action == MDF_ACT_REARRANGE) {
		/* `-R OUT < OUT` would truncate the stream it reads. */
		if (fstat(STDIN_FILENO, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    f->n < FILES_MAX_INPUTS) {
			f->in[f->n].dev = sb.st_dev;
			f->in[f->n].ino = sb.st_ino;
			f->in[f->n].path = "standard input";
			f->in[f->n].what = "the stream";
			f->n++;
		}
	} else if (o->nin > 1) {
		for (unsigned i = 0; i < o->nin; i++)
			note(f, o->in_files[i], "a part of the split set read");
	} else {
		note(f, o->vmcore, "the dump");
	}
	note(f, o->vmlinux, "the -x file");
	note(f, o->vmcoreinfo_file, "the -i file");
	note(f, o->config_file, "the --config file");
}

static enum mdf_status check_one(const struct mdf_files *f, const char *out,
				 struct mdf_err *err)
{
	struct stat sb;

	/* stat() follows a link to its target, which is what would be
	 * truncated. */
	if (!out || stat(out, &sb) != 0)
		return MDF_OK;
	for (size_t i = 0; i < f->n; i++)
		if (f->in[i].dev == sb.st_dev && f->in[i].ino == sb.st_ino)
			return mdf_err_set(err, MDF_ERR_ARG,
					   "%s is %s itself (%s): write to another file",
					   out, f->in[i].path, f->in[i].what);
	return MDF_OK;
}

enum mdf_status files_check_outputs(const struct mdf_files *f, const struct mdf_opts *o,
				    struct mdf_err *err)
{
	const char *outs[OPTS_MAX_PARTS + 3];
	size_t n = 0;

	switch (o->action) {
	case MDF_ACT_DUMP:
		if (o->dry_run)
			break;
		if (o->split)
			for (unsigned i = 0; i < o->nsplit; i++)
				outs[n++] = o->split_files[i];
		else if (!o->flatten)
			outs[n++] = o->dumpfile;
		outs[n++] = o->debug_bitmap;
		outs[n++] = o->debug_bitmap1;
		break;
	case MDF_ACT_DMESG:
	case MDF_ACT_REASSEMBLE:
	case MDF_ACT_REARRANGE:
		outs[n++] = o->dumpfile;
		break;
	case MDF_ACT_GENERATE:
		outs[n++] = o->generate_file;
		break;
	default:
		break;
	}
	for (size_t i = 0; i < n; i++)
		if (check_one(f, outs[i], err) != MDF_OK)
			return err->status;
	/* -g obeys -f as every output does (the others check it where they
	 * create their files). */
	if (o->action == MDF_ACT_GENERATE && !o->force && o->generate_file &&
	    access(o->generate_file, F_OK) == 0)
		return mdf_err_set(err, MDF_ERR_IO, "%s already exists (use -f to overwrite it)",
				   o->generate_file);
	return MDF_OK;
}

static const char *file_kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISDIR(m))
		return "a directory";
	return "of an unknown type";
}

enum mdf_status files_open_input(const char *path, int *fd_ret, struct mdf_err *err)
{
	struct stat sb;
	int fd, fl;

	*fd_ret = -1;
	/* O_NONBLOCK: opening a FIFO with no writer returns at once. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return mdf_err_errno(err, MDF_ERR_IO, errno, "cannot open %s", path);
	if (fstat(fd, &sb) != 0) {
		int e = errno;

		close(fd);
		return mdf_err_errno(err, MDF_ERR_IO, e, "%s: fstat", path);
	}
	if (!S_ISREG(sb.st_mode) && !S_ISBLK(sb.st_mode) && !S_ISCHR(sb.st_mode)) {
		close(fd);
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: not a regular file or a device (%s)", path,
				   file_kind(sb.st_mode));
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		int e = errno;

		close(fd);
		return mdf_err_errno(err, MDF_ERR_IO, e, "%s: fcntl", path);
	}
	*fd_ret = fd;
	return MDF_OK;
}
