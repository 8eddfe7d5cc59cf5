#include "testcase.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

static int fork1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	for (;;) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			return tc_error(copy, "fork: %m");
		if (pid == 0)
			_exit(0);
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return tc_error(copy, "waitpid: %m");
		(*iterations)++;
	}
}

const struct testcase tc_fork1 = {
    .name = "fork1",
    .description = "fork, child _exit, waitpid",
    .suite = "will-it-scale",
    .op = "fork",
    .run = fork1_run,
};
