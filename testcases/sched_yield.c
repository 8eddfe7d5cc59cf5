#include "testcase.h"

#include <sched.h>

static int sched_yield_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	/* Alone on its CPU (the default placement) the copy yields to nobody: the op is the
	 * scheduler's pick-next path finding itself again. */
	while (sched_yield() == 0)
		(*iterations)++;
	return tc_error(copy, "sched_yield: %m");
}

const struct testcase tc_sched_yield = {
    .name = "sched_yield",
    .description = "sched_yield",
    .suite = "will-it-scale",
    .op = "sched_yield",
    .run = sched_yield_run,
};
