#include "fileio.h"

static int lock1_prepare(struct tc_copy *copy)
{
	return fileio_open_private(copy, 0, 0);
}

const struct testcase tc_lock1 = {
    .name = "lock1",
    .description = "Separate file write lock/unlock (fcntl F_SETLKW on byte 0)",
    .suite = "will-it-scale",
    .op = "lock or unlock",
    .prepare = lock1_prepare,
    .run = fileio_lock_run,
};
