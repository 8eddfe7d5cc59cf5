#include "fileio.h"

static int writeseek1_prepare(struct tc_copy *copy)
{
	return fileio_open_private(copy, 0, 0);
}

const struct testcase tc_writeseek1 = {
    .name = "writeseek1",
    .description = "Separate file seek+write (4 KiB)",
    .suite = "will-it-scale",
    .op = "lseek+write",
    .prepare = writeseek1_prepare,
    .run = fileio_writeseek_run,
};
