#include "fileio.h"

static int read1_prepare(struct tc_copy *copy)
{
	return fileio_open_private(copy, FILEIO_FILESIZE, 0);
}

const struct testcase tc_read1 = {
    .name = "read1",
    .description = "Separate file read (4 KiB at a time through 1 MiB)",
    .suite = "will-it-scale",
    .op = "read",
    .prepare = read1_prepare,
    .run = fileio_read_run,
};
