#include "fallocate.h"

#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#define CHUNK	 (8ul << 10)
#define FILESIZE (1ul << 20)

int fallocate_prepare_in(struct tc_copy *copy, const char *dir)
{
	int fd = tc_tmpfile(dir, "fallocate", 0);

	if (fd < 0)
		return tc_error(copy, "cannot create a temp file in %s: %m", dir);
	copy->priv = (void *)(intptr_t)fd;
	return 0;
}

int fallocate_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	int fd = (int)(intptr_t)copy->priv;

	for (;;) {
		for (off_t off = 0; off < (off_t)FILESIZE; off += CHUNK) {
			if (fallocate(fd, 0, off, CHUNK))
				return tc_error(copy, "fallocate of %lu KiB at %lld: %m",
						CHUNK >> 10, (long long)off);
			(*iterations)++;
		}
		if (ftruncate(fd, 0))
			return tc_error(copy, "ftruncate to 0: %m");
	}
}

/* tmpfs, always: the shmem fallocate path is what the robot's fallocate1 reports exercise. */
static int fallocate1_prepare(struct tc_copy *copy)
{
	return fallocate_prepare_in(copy, "/dev/shm");
}

const struct testcase tc_fallocate1 = {
    .name = "fallocate1",
    .description = "Separate file fallocate 8 KiB at a time on tmpfs (/dev/shm)",
    .suite = "will-it-scale",
    .op = "fallocate",
    .prepare = fallocate1_prepare,
    .run = fallocate_run,
};
