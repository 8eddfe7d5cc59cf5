#include "page_fault.h"

#include <sys/mman.h>

static int page_fault3_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	return page_fault_file_run(copy, iterations, MAP_SHARED);
}

const struct testcase tc_page_fault3 = {
    .name = "page_fault3",
    .description = "Separate file shared mapping page fault",
    .suite = "will-it-scale",
    .op = "page touched",
    .prepare = page_fault_file_prepare,
    .run = page_fault3_run,
};
