#include "testcase.h"

#include <sys/mman.h>
#include <unistd.h>

#define MEMSIZE (128ul << 20)

static int page_fault1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (;;) {
		char *c =
		    mmap(NULL, MEMSIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (c == MAP_FAILED)
			return tc_error(copy, "mmap of %lu MiB anonymous memory: %m",
					MEMSIZE >> 20);
		for (size_t i = 0; i < MEMSIZE; i += page) {
			c[i] = 0;
			(*iterations)++;
		}
		munmap(c, MEMSIZE);
	}
}

const struct testcase tc_page_fault1 = {
    .name = "page_fault1",
    .description = "Anonymous memory page fault",
    .suite = "will-it-scale",
    .op = "page touched",
    .run = page_fault1_run,
};
