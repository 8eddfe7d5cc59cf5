#include "testcase.h"

#include <stdint.h>
#include <unistd.h>

static int dup1_prepare(struct tc_copy *copy)
{
	int fd = tc_tmpfile(copy->tmpdir, "dup1", 0);

	if (fd < 0)
		return tc_error(copy, "cannot create a temp file in %s: %m", copy->tmpdir);
	copy->priv = (void *)(intptr_t)fd;
	return 0;
}

static int dup1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	int fd = (int)(intptr_t)copy->priv;

	for (;;) {
		int fd2 = dup(fd);

		if (fd2 < 0)
			return tc_error(copy, "dup: %m");
		close(fd2);
		(*iterations)++;
	}
}

const struct testcase tc_dup1 = {
    .name = "dup1",
    .description = "Separate file dup/close",
    .suite = "will-it-scale",
    .op = "dup+close",
    .prepare = dup1_prepare,
    .run = dup1_run,
};
