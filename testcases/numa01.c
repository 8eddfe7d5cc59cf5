/* All copies write the same buffer, so its lines bounce between the CPUs (and nodes) of the
 * copies: MAP_SHARED and made before the copies exist, so that process-mode copies share it
 * too. */
#include "numa.h"

#include <sys/mman.h>

#define BUFSIZE (256ul << 20)

static int numa01_global_prepare(struct tc_run *run)
{
	void *buf = mmap(NULL, BUFSIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		return tc_run_error(run, "mmap of a %lu MiB shared buffer: %m", BUFSIZE >> 20);
	numa_touch(buf, BUFSIZE);
	run->shared = buf;
	return 0;
}

/* A forked copy inherits the mapping but not its page table entries: fault them in here. */
static int numa01_prepare(struct tc_copy *copy)
{
	numa_touch(copy->shared, BUFSIZE);
	return 0;
}

static int numa01_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	return numa_sweep(copy->shared, BUFSIZE, iterations);
}

const struct testcase tc_numa01 = {
    .name = "numa01",
    .description =
	"numa01-like: all copies sweep one shared 256 MiB buffer, writing every cache line",
    .suite = "will-it-scale",
    .op = "cache line written",
    .global_prepare = numa01_global_prepare,
    .prepare = numa01_prepare,
    .run = numa01_run,
};
