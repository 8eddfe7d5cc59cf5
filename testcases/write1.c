#include "fileio.h"

#include <unistd.h>

static int write1_prepare(struct tc_copy *copy)
{
	return fileio_open_private(copy, 0, 0);
}

/* 4 KiB writes through the first MiB, then back to the start: the file never grows past 1 MiB, and
 * every op after the first lap rewrites cached pages. */
static int write1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	const struct fileio *f = copy->priv;
	unsigned long size = 0;

	for (;;) {
		ssize_t n = write(f->fd, f->buf, FILEIO_BUFLEN);

		if (n < 0)
			return tc_error(copy, "write: %m");
		size += (unsigned long)n;
		if (size >= FILEIO_FILESIZE) {
			size = 0;
			if (lseek(f->fd, 0, SEEK_SET) < 0)
				return tc_error(copy, "lseek: %m");
		}
		(*iterations)++;
	}
}

const struct testcase tc_write1 = {
    .name = "write1",
    .description = "Separate file write (4 KiB at a time through 1 MiB)",
    .suite = "will-it-scale",
    .op = "write",
    .prepare = write1_prepare,
    .run = write1_run,
};
