/* brk1 and brk2 move the one program break of the process up a page and back; they differ
 * only in what lies just below the page that comes and goes. */
#ifndef SCALEBENCH_BRK_H
#define SCALEBENCH_BRK_H

#include "testcase.h"

int brk_global_prepare(struct tc_run *run, unsigned grown_pages);
int brk_run(struct tc_copy *copy, volatile uint64_t *iterations);

#endif
