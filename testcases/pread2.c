#include "fileio.h"

#include <fcntl.h>

static int pread2_global_prepare(struct tc_run *run)
{
	return fileio_shared_file(run, FILEIO_BUFLEN, 0);
}

static int pread2_prepare(struct tc_copy *copy)
{
	return fileio_open_shared(copy, O_RDONLY, FILEIO_AT_ZERO);
}

const struct testcase tc_pread2 = {
    .name = "pread2",
    .description = "Same file pread (4 KiB at offset 0)",
    .suite = "will-it-scale",
    .op = "pread",
    .global_prepare = pread2_global_prepare,
    .prepare = pread2_prepare,
    .run = fileio_pread_run,
};
