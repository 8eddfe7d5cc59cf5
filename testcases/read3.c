/* Skipped where the temp dir's filesystem has no O_DIRECT (ramfs; tmpfs before Linux 6.6). */
#include "fileio.h"

#include <fcntl.h>

static int read3_prepare(struct tc_copy *copy)
{
	return fileio_open_private(copy, FILEIO_FILESIZE, O_DIRECT);
}

const struct testcase tc_read3 = {
    .name = "read3",
    .description = "Separate file O_DIRECT read (4 KiB at a time through 1 MiB)",
    .suite = "will-it-scale",
    .op = "read",
    .prepare = read3_prepare,
    .run = fileio_read_run,
};
