#include "spawn.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>

static char *const spawn_envp[] = {NULL};

static int spawn1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	char *argv[] = {copy->priv, NULL};

	for (;;) {
		pid_t pid;
		/* glibc's posix_spawn is clone(CLONE_VM | CLONE_VFORK) + exec: the path that
		 * avoids copying the parent's page tables. */
		int err = posix_spawn(&pid, copy->priv, NULL, NULL, argv, spawn_envp);

		if (err) {
			errno = err;
			return tc_error(copy, "posix_spawn %s: %m", (char *)copy->priv);
		}
		if (spawn_wait(copy, pid))
			return -1;
		(*iterations)++;
	}
}

const struct testcase tc_spawn1 = {
    .name = "spawn1",
    .description = "posix_spawn of a static binary + wait",
    .suite = "will-it-scale",
    .op = "spawn",
    .prepare = spawn_prepare_static,
    .run = spawn1_run,
};
