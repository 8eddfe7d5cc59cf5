#include "testcase.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

static int futex3_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	/* futex1 with FUTEX_PRIVATE_FLAG: the key is mm + address, no page lookup. */
	unsigned int word = 0;

	while (syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) >= 0)
		(*iterations)++;
	return tc_error(copy, "futex(FUTEX_WAKE_PRIVATE): %m");
}

const struct testcase tc_futex3 = {
    .name = "futex3",
    .description = "futex(FUTEX_WAKE_PRIVATE) of a per-copy word with no waiters",
    .suite = "will-it-scale",
    .op = "futex wake",
    .run = futex3_run,
};
