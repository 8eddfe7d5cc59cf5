#include "page_fault.h"

#include <sys/mman.h>

static int page_fault2_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	return page_fault_file_run(copy, iterations, MAP_PRIVATE);
}

const struct testcase tc_page_fault2 = {
    .name = "page_fault2",
    .description = "Separate file private mapping page fault (copy on write)",
    .suite = "will-it-scale",
    .op = "page touched",
    .prepare = page_fault_file_prepare,
    .run = page_fault2_run,
};
