#include "testcase.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

static int futex4_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	/* futex2 with FUTEX_PRIVATE_FLAG: a mismatched value, so EAGAIN at once. */
	unsigned int word = 0;
	long ret;

	while ((ret = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0)) < 0 &&
	       errno == EAGAIN)
		(*iterations)++;
	if (ret >= 0)
		return tc_error(
		    copy,
		    "futex(FUTEX_WAIT_PRIVATE) on a mismatched value returned %ld, not EAGAIN",
		    ret);
	return tc_error(copy, "futex(FUTEX_WAIT_PRIVATE): %m");
}

const struct testcase tc_futex4 = {
    .name = "futex4",
    .description = "futex(FUTEX_WAIT_PRIVATE) on a per-copy word holding another value (EAGAIN)",
    .suite = "will-it-scale",
    .op = "futex wait",
    .run = futex4_run,
};
