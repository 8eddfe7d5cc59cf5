/* 1 KiB comes from the allocator's caches: no syscall and no fault once warm. */
#include "testcase.h"

#include <stdlib.h>

#define SIZE 1024ul

static int malloc2_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	for (;;) {
		void *p = malloc(SIZE);

		if (!p)
			return tc_error(copy, "malloc of %lu bytes: %m", SIZE);
		/* The compiler may drop an unused malloc/free pair: make the pointer used. */
		__asm__ volatile("" : : "r"(p) : "memory");
		free(p);
		(*iterations)++;
	}
}

const struct testcase tc_malloc2 = {
    .name = "malloc2",
    .description = "malloc/free of 1 KiB",
    .suite = "will-it-scale",
    .op = "malloc+free",
    .run = malloc2_run,
};
