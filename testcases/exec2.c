/* exec1's opposite: every copy execs the same dynamically linked binary, so copies share its
 * inode, its page cache and the dynamic loader's, and the mappings the loader sets up. */
#include "spawn.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int exec2_prepare(struct tc_copy *copy)
{
	char path[PATH_MAX];

	if (spawn_helper_path(copy, EXEC_HELPER_DYNAMIC, path, sizeof(path)))
		return -1;
	copy->priv = strdup(path);
	if (!copy->priv)
		return tc_error(copy, "out of memory");
	/* A trial run, so a broken helper fails the setup rather than the window. */
	return spawn_wait(copy, spawn_fork_exec(copy, path));
}

static int exec2_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	const char *path = copy->priv;

	for (;;) {
		pid_t pid = spawn_fork_exec(copy, path);

		if (pid < 0 || spawn_wait(copy, pid))
			return -1;
		(*iterations)++;
	}
}

const struct testcase tc_exec2 = {
    .name = "exec2",
    .description = "fork + execve of one shared dynamically linked binary + wait",
    .suite = "will-it-scale",
    .op = "exec",
    .prepare = exec2_prepare,
    .run = exec2_run,
};
