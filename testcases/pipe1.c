#include "testcase.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static int pipe1_prepare(struct tc_copy *copy)
{
	int *fd = malloc(2 * sizeof(*fd));

	if (!fd)
		return tc_error(copy, "out of memory");
	if (pipe2(fd, O_CLOEXEC))
		return tc_error(copy, "pipe: %m");
	copy->priv = fd;
	return 0;
}

static int pipe1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	const int *fd = copy->priv;
	char c = 0;

	/* The copy's own pipe: the byte it writes is there to read, so nothing blocks. */
	while (write(fd[1], &c, 1) == 1 && read(fd[0], &c, 1) == 1)
		(*iterations)++;
	return tc_error(copy, "pipe write/read of 1 byte: %m");
}

const struct testcase tc_pipe1 = {
    .name = "pipe1",
    .description = "pipe read/write of 1 byte on a per-copy pipe",
    .suite = "will-it-scale",
    .op = "write+read",
    .prepare = pipe1_prepare,
    .run = pipe1_run,
};
