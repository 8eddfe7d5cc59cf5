/* 128 MiB is past glibc's largest mmap threshold (32 MiB), so every malloc is an mmap and
 * every free a munmap, however the threshold adapts. */
#include "testcase.h"

#include <stdlib.h>

#define SIZE (128ul << 20)

static int malloc1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	for (;;) {
		void *p = malloc(SIZE);

		if (!p)
			return tc_error(copy, "malloc of %lu MiB: %m", SIZE >> 20);
		/* The compiler may drop an unused malloc/free pair: make the pointer used. */
		__asm__ volatile("" : : "r"(p) : "memory");
		free(p);
		(*iterations)++;
	}
}

const struct testcase tc_malloc1 = {
    .name = "malloc1",
    .description = "malloc/free of 128 MiB (the mmap path, memory untouched)",
    .suite = "will-it-scale",
    .op = "malloc+free",
    .run = malloc1_run,
};
