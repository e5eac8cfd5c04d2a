/*
 * tests/unit/test_files.c - inputs opened so that none can block, and no
 * output that is an input (files.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"

#include "files.h"

static char dir[] = "/tmp/mdf-test-files.XXXXXX";

static const char *path(const char *name)
{
	static char buf[8][256];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void touch(const char *name)
{
	int fd = open(path(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	T_ASSERT(fd >= 0 && write(fd, "x", 1) == 1 && close(fd) == 0);
}

static void open_input(void)
{
	struct mdf_err err = { 0 };
	int fd;

	touch("regular");
	T_OK(files_open_input(path("regular"), &fd, &err), &err);
	T_ASSERT(fd >= 0);
	/* blocking again once open */
	T_ASSERT(!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	close(fd);
	/* a FIFO with no writer: refused at once, not a hang */
	T_ASSERT(mkfifo(path("fifo"), 0600) == 0);
	T_ASSERT(files_open_input(path("fifo"), &fd, &err) == MDF_ERR_FORMAT && fd == -1);
	T_ASSERT(strstr(err.msg, "fifo: not a regular file or a device (a FIFO)"));
	T_ASSERT(files_open_input(dir, &fd, &err) == MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "not a regular file or a device (a directory)"));
	T_ASSERT(files_open_input(path("missing"), &fd, &err) == MDF_ERR_IO);
	T_ASSERT(strstr(err.msg, "cannot open "));
	/* a character device is a device */
	T_OK(files_open_input("/dev/null", &fd, &err), &err);
	close(fd);
}

static void outputs(void)
{
	struct mdf_opts o = { 0 };
	struct mdf_files f;
	struct mdf_err err = { 0 };
	const char *parts[] = { NULL, NULL, NULL };

	touch("vmcore");
	touch("vmlinux");
	touch("conf");
	T_ASSERT(symlink(path("vmlinux"), path("vmlinux.sym")) == 0);
	T_ASSERT(link(path("conf"), path("conf.hard")) == 0);
	o.action = MDF_ACT_DUMP;
	o.vmcore = path("vmcore");
	o.vmlinux = path("vmlinux");
	o.config_file = path("conf");
	o.vmcoreinfo_file = path("missing"); /* fails where it is opened */
	files_note_inputs(&f, &o);
	T_EQ_U64(f.n, 3);
	o.dumpfile = path("new");
	T_OK(files_check_outputs(&f, &o, &err), &err);
	o.dumpfile = path("vmlinux.sym");
	T_ASSERT(files_check_outputs(&f, &o, &err) == MDF_ERR_ARG);
	T_ASSERT(strstr(err.msg, "vmlinux.sym is ") && strstr(err.msg, "vmlinux itself (the -x file)"));
	o.dumpfile = path("new");
	o.debug_bitmap = path("conf.hard");
	T_ASSERT(files_check_outputs(&f, &o, &err) == MDF_ERR_ARG);
	T_ASSERT(strstr(err.msg, "(the --config file)"));
	o.debug_bitmap = NULL;
	/* -F writes no file; --dry-run none */
	o.flatten = true;
	o.dumpfile = path("vmcore");
	T_OK(files_check_outputs(&f, &o, &err), &err);
	o.flatten = false;
	o.dry_run = true;
	T_OK(files_check_outputs(&f, &o, &err), &err);
	o.dry_run = false;
	/* -g, with and without -f */
	o.action = MDF_ACT_GENERATE;
	o.generate_file = path("vmlinux");
	o.force = true;
	T_ASSERT(files_check_outputs(&f, &o, &err) == MDF_ERR_ARG);
	o.generate_file = path("conf.hard2");
	touch("conf.hard2");
	T_OK(files_check_outputs(&f, &o, &err), &err);
	o.force = false;
	T_ASSERT(files_check_outputs(&f, &o, &err) == MDF_ERR_IO);
	T_ASSERT(strstr(err.msg, "already exists (use -f to overwrite it)"));
	/* --reassemble: the parts are the inputs */
	touch("p1");
	touch("p2");
	parts[0] = path("p1");
	parts[1] = path("p2");
	o = (struct mdf_opts){ .action = MDF_ACT_REASSEMBLE, .split_files = (char *const *)parts,
			       .nsplit = 2, .dumpfile = path("p2"), .force = true };
	files_note_inputs(&f, &o);
	T_EQ_U64(f.n, 2);
	T_ASSERT(files_check_outputs(&f, &o, &err) == MDF_ERR_ARG);
	T_ASSERT(strstr(err.msg, "(a split part)"));
}

int main(void)
{
	int ret;

	if (!mkdtemp(dir))
		return 1;
	T_RUN(open_input);
	T_RUN(outputs);
	ret = t_done();
	/* the directory's files, then itself */
	for (const char *n = "regular\0fifo\0vmcore\0vmlinux\0vmlinux.sym\0conf\0conf.hard\0conf.hard2\0p1\0p2\0";
	     *n; n += strlen(n) + 1)
		unlink(path(n));
	rmdir(dir);
	return ret;
}
