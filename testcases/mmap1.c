#include "testcase.h"

#include <sys/mman.h>

#define MEMSIZE (128ul << 20)

static int mmap1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	for (;;) {
		void *c =
		    mmap(NULL, MEMSIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (c == MAP_FAILED)
			return tc_error(copy, "mmap of %lu MiB anonymous memory: %m",
					MEMSIZE >> 20);
		if (munmap(c, MEMSIZE))
			return tc_error(copy, "munmap of %lu MiB: %m", MEMSIZE >> 20);
		(*iterations)++;
	}
}

const struct testcase tc_mmap1 = {
    .name = "mmap1",
    .description = "Anonymous memory mmap/munmap of 128 MiB, untouched",
    .suite = "will-it-scale",
    .op = "mmap+munmap",
    .run = mmap1_run,
};
