/* osbench "Launch Programs": launch a batch of programs, then wait for all of them; the
 * figure is the time per launched program, lower is better, reported as the robot reports
 * phoronix-test-suite.osbench.LaunchPrograms.us_per_event. */
#include "spawn.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 100

static int launch1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	pid_t pids[BATCH];

	for (;;) {
		/* Counted as each one is launched, so the counter moves steadily even when a
		 * batch takes longer than a sampling interval; over a window the count is the
		 * same as counting at the final wait. */
		for (int i = 0; i < BATCH; i++) {
			pids[i] = spawn_fork_exec(copy, copy->priv);
			if (pids[i] < 0)
				return -1;
			(*iterations)++;
		}
		for (int i = 0; i < BATCH; i++)
			if (spawn_wait(copy, pids[i]))
				return -1;
	}
}

const struct testcase tc_launch1 = {
    .name = "launch1",
    .description = "osbench launch programs: fork+exec 100 programs, wait for all (us/program)",
    .suite = "phoronix-test-suite.osbench.LaunchPrograms",
    .op = "launched program",
    .cost_stat = "us_per_event",
    .lower_is_better = true,
    .prepare = spawn_prepare_static,
    .run = launch1_run,
};
