#include "fileio.h"

#include <fcntl.h>

static int pwrite2_global_prepare(struct tc_run *run)
{
	return fileio_shared_file(run, FILEIO_BUFLEN, 0);
}

static int pwrite2_prepare(struct tc_copy *copy)
{
	return fileio_open_shared(copy, O_RDWR, FILEIO_AT_ZERO);
}

const struct testcase tc_pwrite2 = {
    .name = "pwrite2",
    .description = "Same file pwrite (4 KiB at offset 0)",
    .suite = "will-it-scale",
    .op = "pwrite",
    .global_prepare = pwrite2_global_prepare,
    .prepare = pwrite2_prepare,
    .run = fileio_pwrite_run,
};
