#include "testcase.h"

#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

static int eventfd1_prepare(struct tc_copy *copy)
{
	int fd = eventfd(0, EFD_CLOEXEC);

	if (fd < 0)
		return tc_error(copy, "eventfd: %m");
	copy->priv = (void *)(intptr_t)fd;
	return 0;
}

static int eventfd1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	int fd = (int)(intptr_t)copy->priv;
	uint64_t wbuf = 1, rbuf;

	/* The write makes the counter non-zero, so the read never blocks. */
	while (write(fd, &wbuf, sizeof(wbuf)) == sizeof(wbuf) &&
	       read(fd, &rbuf, sizeof(rbuf)) == sizeof(rbuf))
		(*iterations)++;
	return tc_error(copy, "eventfd write/read of 8 bytes: %m");
}

const struct testcase tc_eventfd1 = {
    .name = "eventfd1",
    .description = "eventfd read/write of 8 bytes on a per-copy eventfd",
    .suite = "will-it-scale",
    .op = "write+read",
    .prepare = eventfd1_prepare,
    .run = eventfd1_run,
};
