/* Each copy writes only its own memory, allocated and faulted in by the copy itself, so it
 * sits on the copy's node and nothing is shared. */
#include "numa.h"

#include <sys/mman.h>

#define BUFSIZE (64ul << 20)

static int numa02_prepare(struct tc_copy *copy)
{
	void *buf = mmap(NULL, BUFSIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		return tc_error(copy, "mmap of a %lu MiB buffer: %m", BUFSIZE >> 20);
	numa_touch(buf, BUFSIZE);
	copy->priv = buf;
	return 0;
}

static int numa02_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	return numa_sweep(copy->priv, BUFSIZE, iterations);
}

const struct testcase tc_numa02 = {
    .name = "numa02",
    .description = "numa02-like: each copy sweeps its own 64 MiB buffer, writing every cache line",
    .suite = "will-it-scale",
    .op = "cache line written",
    .prepare = numa02_prepare,
    .run = numa02_run,
};
