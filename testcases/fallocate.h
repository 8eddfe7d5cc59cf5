/* fallocate1 and fallocate2 differ only in the filesystem under their files. */
#ifndef SCALEBENCH_FALLOCATE_H
#define SCALEBENCH_FALLOCATE_H

#include "testcase.h"

int fallocate_prepare_in(struct tc_copy *copy, const char *dir);
int fallocate_run(struct tc_copy *copy, volatile uint64_t *iterations);

#endif
