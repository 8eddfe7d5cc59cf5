#include "fileio.h"

#include <fcntl.h>

static int pwrite3_global_prepare(struct tc_run *run)
{
	return fileio_shared_file(run, FILEIO_PER_COPY, 0);
}

static int pwrite3_prepare(struct tc_copy *copy)
{
	return fileio_open_shared(copy, O_RDWR, FILEIO_AT_COPY_PAGE);
}

const struct testcase tc_pwrite3 = {
    .name = "pwrite3",
    .description = "Same file pwrite to different offsets (4 KiB at page <copy index>)",
    .suite = "will-it-scale",
    .op = "pwrite",
    .global_prepare = pwrite3_global_prepare,
    .prepare = pwrite3_prepare,
    .run = fileio_pwrite_run,
};
