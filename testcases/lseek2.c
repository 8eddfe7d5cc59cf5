#include "fileio.h"

#include <fcntl.h>

static int lseek2_global_prepare(struct tc_run *run)
{
	return fileio_shared_file(run, FILEIO_BUFLEN, 0);
}

static int lseek2_prepare(struct tc_copy *copy)
{
	return fileio_open_shared(copy, O_RDWR, FILEIO_AT_ZERO);
}

const struct testcase tc_lseek2 = {
    .name = "lseek2",
    .description = "Same file lseek (each copy through its own open file description)",
    .suite = "will-it-scale",
    .op = "lseek",
    .global_prepare = lseek2_global_prepare,
    .prepare = lseek2_prepare,
    .run = fileio_lseek_run,
};
