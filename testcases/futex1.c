#include "testcase.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

static int futex1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	/* A per-copy word (on this copy's stack) and nobody waiting on it.  Without
	 * FUTEX_PRIVATE_FLAG the kernel must look the page up to build the futex key. */
	unsigned int word = 0;

	while (syscall(SYS_futex, &word, FUTEX_WAKE, 1, NULL, NULL, 0) >= 0)
		(*iterations)++;
	return tc_error(copy, "futex(FUTEX_WAKE): %m");
}

const struct testcase tc_futex1 = {
    .name = "futex1",
    .description = "futex(FUTEX_WAKE) of a per-copy word with no waiters",
    .suite = "will-it-scale",
    .op = "futex wake",
    .run = futex1_run,
};
