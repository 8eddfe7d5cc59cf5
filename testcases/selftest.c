/* Test-only testcases: they fail on purpose so the tests can check that the core reports
 * failures and never hangs.  Hidden from `list`; runnable only with SCALEBENCH_SELFTEST=1. */
#include "testcase.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

/* Copy 1 misbehaves after about 300 ms; the others (and single-copy runs) are fine. */
static bool misbehaves(const struct tc_copy *copy, uint64_t loops)
{
	return copy->index == 1 && loops >= 300;
}

static int crash_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	for (uint64_t loops = 0;; loops++) {
		usleep(1000);
		(*iterations)++;
		/* abort(), not a SIGSEGV: sanitizers turn SIGSEGV into an exit status. */
		if (misbehaves(copy, loops))
			abort();
	}
	return 0;
}

static int exit_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	for (uint64_t loops = 0;; loops++) {
		usleep(1000);
		(*iterations)++;
		if (misbehaves(copy, loops))
			return tc_error(copy, "deliberate failure of copy %u", copy->index);
	}
}

static int stuck_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	for (;;) {
		usleep(1000);
		if (copy->index != 1)
			(*iterations)++;
	}
	return 0;
}

static int hang_prepare(struct tc_copy *copy)
{
	if (copy->index == 1)
		for (;;)
			pause();
	return 0;
}

static int hang_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	(void)copy;
	for (;;) {
		usleep(1000);
		(*iterations)++;
	}
	return 0;
}

const struct testcase tc_selftest_crash = {
    .name = "selftest-crash",
    .description = "test only: copy 1 dies of SIGABRT",
    .suite = "selftest",
    .flags = TC_HIDDEN,
    .run = crash_run,
};

const struct testcase tc_selftest_exit = {
    .name = "selftest-exit",
    .description = "test only: copy 1's loop returns an error",
    .suite = "selftest",
    .flags = TC_HIDDEN,
    .run = exit_run,
};

const struct testcase tc_selftest_stuck = {
    .name = "selftest-stuck",
    .description = "test only: copy 1 never counts",
    .suite = "selftest",
    .flags = TC_HIDDEN,
    .run = stuck_run,
};

const struct testcase tc_selftest_setup_hang = {
    .name = "selftest-setup-hang",
    .description = "test only: copy 1 never finishes its setup",
    .suite = "selftest",
    .flags = TC_HIDDEN,
    .prepare = hang_prepare,
    .run = hang_run,
};
