#include "testcase.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

static int futex2_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	/* The word is 0 and the op expects 1: the kernel looks the futex up, sees the
	 * mismatch and returns EAGAIN without sleeping. */
	unsigned int word = 0;
	long ret;

	while ((ret = syscall(SYS_futex, &word, FUTEX_WAIT, 1, NULL, NULL, 0)) < 0 &&
	       errno == EAGAIN)
		(*iterations)++;
	if (ret >= 0)
		return tc_error(
		    copy, "futex(FUTEX_WAIT) on a mismatched value returned %ld, not EAGAIN", ret);
	return tc_error(copy, "futex(FUTEX_WAIT): %m");
}

const struct testcase tc_futex2 = {
    .name = "futex2",
    .description = "futex(FUTEX_WAIT) on a per-copy word holding another value (EAGAIN)",
    .suite = "will-it-scale",
    .op = "futex wait",
    .run = futex2_run,
};
