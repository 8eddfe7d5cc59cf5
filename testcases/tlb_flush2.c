#include "tlb_flush.h"

#include <sys/mman.h>

#define MEMSIZE (1ul << 20)

static int tlb_flush2_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	return tlb_flush_run(copy, iterations, -1, MEMSIZE, MAP_PRIVATE | MAP_ANONYMOUS, 0);
}

const struct testcase tc_tlb_flush2 = {
    .name = "tlb_flush2",
    .description = "TLB flush of anonymous memory private mapping (1 MiB, page by page)",
    .suite = "will-it-scale",
    .op = "page write, zap and refault",
    .run = tlb_flush2_run,
};
