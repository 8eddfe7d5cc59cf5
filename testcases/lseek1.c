#include "fileio.h"

static int lseek1_prepare(struct tc_copy *copy)
{
	return fileio_open_private(copy, FILEIO_BUFLEN, 0);
}

const struct testcase tc_lseek1 = {
    .name = "lseek1",
    .description = "Separate file lseek",
    .suite = "will-it-scale",
    .op = "lseek",
    .prepare = lseek1_prepare,
    .run = fileio_lseek_run,
};
