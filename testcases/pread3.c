#include "fileio.h"

#include <fcntl.h>

static int pread3_global_prepare(struct tc_run *run)
{
	return fileio_shared_file(run, FILEIO_PER_COPY, 0);
}

static int pread3_prepare(struct tc_copy *copy)
{
	return fileio_open_shared(copy, O_RDONLY, FILEIO_AT_COPY_PAGE);
}

const struct testcase tc_pread3 = {
    .name = "pread3",
    .description = "Same file pread to different offsets (4 KiB at page <copy index>)",
    .suite = "will-it-scale",
    .op = "pread",
    .global_prepare = pread3_global_prepare,
    .prepare = pread3_prepare,
    .run = fileio_pread_run,
};
