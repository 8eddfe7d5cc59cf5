#include "fileio.h"

static int pread1_prepare(struct tc_copy *copy)
{
	return fileio_open_private(copy, FILEIO_BUFLEN, 0);
}

const struct testcase tc_pread1 = {
    .name = "pread1",
    .description = "Separate file pread (4 KiB)",
    .suite = "will-it-scale",
    .op = "pread",
    .prepare = pread1_prepare,
    .run = fileio_pread_run,
};
