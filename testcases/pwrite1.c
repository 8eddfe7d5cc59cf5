#include "fileio.h"

static int pwrite1_prepare(struct tc_copy *copy)
{
	return fileio_open_private(copy, 0, 0);
}

const struct testcase tc_pwrite1 = {
    .name = "pwrite1",
    .description = "Separate file pwrite (4 KiB)",
    .suite = "will-it-scale",
    .op = "pwrite",
    .prepare = pwrite1_prepare,
    .run = fileio_pwrite_run,
};
