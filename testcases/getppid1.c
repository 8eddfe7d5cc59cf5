#include "testcase.h"

#include <sys/syscall.h>
#include <unistd.h>

static int getppid1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	/* The raw syscall: a libc that cached getppid would measure nothing. */
	while (syscall(SYS_getppid) >= 0)
		(*iterations)++;
	return tc_error(copy, "getppid: %m");
}

const struct testcase tc_getppid1 = {
    .name = "getppid1",
    .description = "getppid: the bare syscall path, the floor for overhead checks",
    .suite = "will-it-scale",
    .op = "getppid",
    .run = getppid1_run,
};
