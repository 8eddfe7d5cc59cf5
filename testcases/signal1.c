#include "testcase.h"

#include <signal.h>

static void signal1_handler(int sig)
{
	(void)sig;
}

/* In thread mode every copy installs the same handler into the one process: harmless.
 * raise() signals the calling thread only, so each copy handles its own signals. */
static int signal1_prepare(struct tc_copy *copy)
{
	struct sigaction sa = {.sa_handler = signal1_handler};

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return tc_error(copy, "sigaction(SIGUSR1): %m");
	return 0;
}

static int signal1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	/* The handler has run by the time raise() returns. */
	while (raise(SIGUSR1) == 0)
		(*iterations)++;
	return tc_error(copy, "raise(SIGUSR1): %m");
}

const struct testcase tc_signal1 = {
    .name = "signal1",
    .description = "signal delivery: raise(SIGUSR1) with an empty handler",
    .suite = "will-it-scale",
    .op = "signal",
    .prepare = signal1_prepare,
    .run = signal1_run,
};
