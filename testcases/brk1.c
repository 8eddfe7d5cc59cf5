#include "brk.h"

static int brk1_global_prepare(struct tc_run *run)
{
	return brk_global_prepare(run, 0);
}

const struct testcase tc_brk1 = {
    .name = "brk1",
    .description = "brk increase/decrease of one page (a new VMA each time)",
    .suite = "will-it-scale",
    .op = "brk",
    .global_prepare = brk1_global_prepare,
    .run = brk_run,
};
