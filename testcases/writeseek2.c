#include "fileio.h"

#include <fcntl.h>

static int writeseek2_global_prepare(struct tc_run *run)
{
	return fileio_shared_file(run, FILEIO_BUFLEN, 0);
}

static int writeseek2_prepare(struct tc_copy *copy)
{
	return fileio_open_shared(copy, O_RDWR, FILEIO_AT_ZERO);
}

const struct testcase tc_writeseek2 = {
    .name = "writeseek2",
    .description = "Same file seek+write (4 KiB at offset 0)",
    .suite = "will-it-scale",
    .op = "lseek+write",
    .global_prepare = writeseek2_global_prepare,
    .prepare = writeseek2_prepare,
    .run = fileio_writeseek_run,
};
