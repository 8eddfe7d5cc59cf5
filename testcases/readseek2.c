#include "fileio.h"

#include <fcntl.h>

static int readseek2_global_prepare(struct tc_run *run)
{
	return fileio_shared_file(run, FILEIO_BUFLEN, 0);
}

static int readseek2_prepare(struct tc_copy *copy)
{
	return fileio_open_shared(copy, O_RDWR, FILEIO_AT_ZERO);
}

const struct testcase tc_readseek2 = {
    .name = "readseek2",
    .description = "Same file seek+read (4 KiB at offset 0)",
    .suite = "will-it-scale",
    .op = "lseek+read",
    .global_prepare = readseek2_global_prepare,
    .prepare = readseek2_prepare,
    .run = fileio_readseek_run,
};
