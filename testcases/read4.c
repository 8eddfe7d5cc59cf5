/* Skipped where the temp dir's filesystem has no O_DIRECT (ramfs; tmpfs before Linux 6.6). */
#include "fileio.h"

#include <fcntl.h>

static int read4_global_prepare(struct tc_run *run)
{
	return fileio_shared_file(run, FILEIO_FILESIZE, O_RDONLY | O_DIRECT);
}

static int read4_prepare(struct tc_copy *copy)
{
	return fileio_open_shared(copy, O_RDONLY | O_DIRECT, FILEIO_AT_ZERO);
}

const struct testcase tc_read4 = {
    .name = "read4",
    .description = "Same file O_DIRECT read (4 KiB at a time through 1 MiB, "
		   "each copy with its own file position)",
    .suite = "will-it-scale",
    .op = "read",
    .global_prepare = read4_global_prepare,
    .prepare = read4_prepare,
    .run = fileio_read_run,
};
