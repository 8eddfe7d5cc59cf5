#include "testcase.h"

#include <stdint.h>
#include <sys/mman.h>

#define MEMSIZE (128ul << 20)

static int mmap2_prepare(struct tc_copy *copy)
{
	int fd = tc_tmpfile(copy->tmpdir, "mmap2", MEMSIZE);

	if (fd < 0)
		return tc_error(copy, "cannot create a %lu MiB temp file in %s: %m", MEMSIZE >> 20,
				copy->tmpdir);
	copy->priv = (void *)(intptr_t)fd;
	return 0;
}

static int mmap2_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	int fd = (int)(intptr_t)copy->priv;

	for (;;) {
		void *c = mmap(NULL, MEMSIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);

		if (c == MAP_FAILED)
			return tc_error(copy, "mmap of a %lu MiB file: %m", MEMSIZE >> 20);
		if (munmap(c, MEMSIZE))
			return tc_error(copy, "munmap of %lu MiB: %m", MEMSIZE >> 20);
		(*iterations)++;
	}
}

const struct testcase tc_mmap2 = {
    .name = "mmap2",
    .description = "Separate file private mmap/munmap of 128 MiB, untouched",
    .suite = "will-it-scale",
    .op = "mmap+munmap",
    .prepare = mmap2_prepare,
    .run = mmap2_run,
};
