#include "fileio.h"

#include <fcntl.h>

static int writeseek3_global_prepare(struct tc_run *run)
{
	return fileio_shared_file(run, FILEIO_PER_COPY, 0);
}

static int writeseek3_prepare(struct tc_copy *copy)
{
	return fileio_open_shared(copy, O_RDWR, FILEIO_AT_COPY_PAGE);
}

const struct testcase tc_writeseek3 = {
    .name = "writeseek3",
    .description = "Same file seek+write to different offsets (4 KiB at page "
		   "<copy index>)",
    .suite = "will-it-scale",
    .op = "lseek+write",
    .global_prepare = writeseek3_global_prepare,
    .prepare = writeseek3_prepare,
    .run = fileio_writeseek_run,
};
