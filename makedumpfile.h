/*
 * makedumpfile.h - the program's shared words: its exit codes, and the run
 * context (context.h) that main() sets up.
 */
#ifndef MDF_MAKEDUMPFILE_H
#define MDF_MAKEDUMPFILE_H

#include "context.h"

/* Exit codes, as upstream makedumpfile. */
enum {
	MDF_EXIT_OK = 0,
	MDF_EXIT_FAILED = 1,
	MDF_EXIT_RELEASE_MISMATCH = 2,
};

#endif
