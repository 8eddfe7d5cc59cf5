#include "fileio.h"

#include <fcntl.h>

static int read2_global_prepare(struct tc_run *run)
{
	return fileio_shared_file(run, FILEIO_FILESIZE, 0);
}

static int read2_prepare(struct tc_copy *copy)
{
	return fileio_open_shared(copy, O_RDONLY, FILEIO_AT_ZERO);
}

const struct testcase tc_read2 = {
    .name = "read2",
    .description = "Same file read (4 KiB at a time through 1 MiB, each copy "
		   "with its own file position)",
    .suite = "will-it-scale",
    .op = "read",
    .global_prepare = read2_global_prepare,
    .prepare = read2_prepare,
    .run = fileio_read_run,
};
