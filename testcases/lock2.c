/* POSIX record locks belong to the process: in thread mode every copy is the same owner, so the
 * copies never wait for each other and only share the inode's lock list (will-it-scale has the same
 * property). */
#include "fileio.h"

#include <fcntl.h>

static int lock2_global_prepare(struct tc_run *run)
{
	return fileio_shared_file(run, 0, 0);
}

static int lock2_prepare(struct tc_copy *copy)
{
	return fileio_open_shared(copy, O_RDWR, FILEIO_AT_ZERO);
}

const struct testcase tc_lock2 = {
    .name = "lock2",
    .description = "Same file write lock/unlock (fcntl F_SETLKW; threads of one process "
		   "never contend: POSIX locks are per process)",
    .suite = "will-it-scale",
    .op = "lock or unlock",
    .global_prepare = lock2_global_prepare,
    .prepare = lock2_prepare,
    .run = fileio_lock_run,
};
