/*
 * files.h - the files a run names.  Every input (VMCORE, the split parts
 * of --reassemble, -x, -i, --config, and -R's standard input) is opened
 * so that it cannot block forever, and no output path of any action may
 * be one of them, under any name (a link, another path, -f or not):
 * compared by device and inode before anything is written.
 */
#ifndef MDF_FILES_H
#define MDF_FILES_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"
#include "opts.h"

/* the parts, or VMCORE, and -x, -i, --config, standard input */
#define FILES_MAX_INPUTS (OPTS_MAX_PARTS + 4)

struct mdf_files {
	size_t n;
	struct {
		dev_t dev;
		ino_t ino;
		const char *path;  /* as named, or "standard input" */
		const char *what;  /* "the dump", "-x", ... for the message */
	} in[FILES_MAX_INPUTS];
};

/* Note every input @o names that exists now (one that does not fails
 * later, where it is opened, with its own message). */
void files_note_inputs(struct mdf_files *f, const struct mdf_opts *o);
/* MDF_ERR_ARG when an output of @o's action is one of the inputs. */
enum mdf_status files_check_outputs(const struct mdf_files *f, const struct mdf_opts *o,
				    struct mdf_err *err);
/* Open @path to read so that the open cannot block (a FIFO with no
 * writer): anything but a regular file or a device is refused with
 * "PATH: not a regular file or a device (a FIFO)". */
enum mdf_status files_open_input(const char *path, int *fd_ret, struct mdf_err *err);

#endif
