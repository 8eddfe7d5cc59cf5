/* As will-it-scale: the fd is a regular temp file, whose poll is the VFS default (always
 * ready), so the op is poll's own fd lookup and bookkeeping, not a driver's wait queue. */
#include "testcase.h"

#include <poll.h>
#include <stdlib.h>

static int poll1_prepare(struct tc_copy *copy)
{
	struct pollfd *pfd = calloc(1, sizeof(*pfd));

	if (!pfd)
		return tc_error(copy, "out of memory");
	pfd->fd = tc_tmpfile(copy->tmpdir, "poll1", 0);
	if (pfd->fd < 0)
		return tc_error(copy, "cannot create a temp file in %s: %m", copy->tmpdir);
	pfd->events = POLLOUT;
	copy->priv = pfd;
	return 0;
}

static int poll1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	struct pollfd *pfd = copy->priv;

	while (poll(pfd, 1, 0) >= 0)
		(*iterations)++;
	return tc_error(copy, "poll of 1 fd: %m");
}

const struct testcase tc_poll1 = {
    .name = "poll1",
    .description = "poll of 1 fd (a per-copy temp file), timeout 0",
    .suite = "will-it-scale",
    .op = "poll",
    .prepare = poll1_prepare,
    .run = poll1_run,
};
