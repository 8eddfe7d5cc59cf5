#include "brk.h"

/* The page grown first is a VMA of its own, so the loop grows and shrinks it. */
static int brk2_global_prepare(struct tc_run *run)
{
	return brk_global_prepare(run, 1);
}

const struct testcase tc_brk2 = {
    .name = "brk2",
    .description = "brk unshared increase/decrease of one page (one VMA grows and shrinks)",
    .suite = "will-it-scale",
    .op = "brk",
    .global_prepare = brk2_global_prepare,
    .run = brk_run,
};
