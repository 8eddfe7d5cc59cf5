#include "fileio.h"

#include <fcntl.h>

static int readseek3_global_prepare(struct tc_run *run)
{
	return fileio_shared_file(run, FILEIO_PER_COPY, 0);
}

static int readseek3_prepare(struct tc_copy *copy)
{
	return fileio_open_shared(copy, O_RDONLY, FILEIO_AT_COPY_PAGE);
}

const struct testcase tc_readseek3 = {
    .name = "readseek3",
    .description = "Same file seek+read to different offsets (4 KiB at page <copy index>)",
    .suite = "will-it-scale",
    .op = "lseek+read",
    .global_prepare = readseek3_global_prepare,
    .prepare = readseek3_prepare,
    .run = fileio_readseek_run,
};
