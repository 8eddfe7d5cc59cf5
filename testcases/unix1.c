#include "testcase.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int unix1_prepare(struct tc_copy *copy)
{
	int *fd = malloc(2 * sizeof(*fd));

	if (!fd)
		return tc_error(copy, "out of memory");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd))
		return tc_error(copy, "socketpair(AF_UNIX, SOCK_STREAM): %m");
	copy->priv = fd;
	return 0;
}

static int unix1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	const int *fd = copy->priv;
	char c = 0;

	/* Write into one end, read it back from the other: the data is there, nothing blocks. */
	while (write(fd[1], &c, 1) == 1 && read(fd[0], &c, 1) == 1)
		(*iterations)++;
	return tc_error(copy, "unix socket write/read of 1 byte: %m");
}

const struct testcase tc_unix1 = {
    .name = "unix1",
    .description = "unix domain socket read/write of 1 byte on a per-copy socketpair",
    .suite = "will-it-scale",
    .op = "write+read",
    .prepare = unix1_prepare,
    .run = unix1_run,
};
