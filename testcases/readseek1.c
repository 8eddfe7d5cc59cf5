#include "fileio.h"

static int readseek1_prepare(struct tc_copy *copy)
{
	return fileio_open_private(copy, FILEIO_BUFLEN, 0);
}

const struct testcase tc_readseek1 = {
    .name = "readseek1",
    .description = "Separate file seek+read (4 KiB)",
    .suite = "will-it-scale",
    .op = "lseek+read",
    .prepare = readseek1_prepare,
    .run = fileio_readseek_run,
};
