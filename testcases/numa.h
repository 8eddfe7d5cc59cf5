/* numa01 and numa02 (autonuma-benchmark's shapes): copies sweep memory a cache line at a
 * time, over one buffer all share (numa01) or over one buffer each (numa02). */
#ifndef SCALEBENCH_NUMA_H
#define SCALEBENCH_NUMA_H

#include "testcase.h"

#define NUMA_LINE 64ul

/* Fault in every page of buf now, so that the sweep measures memory, not page faults. */
void numa_touch(volatile char *buf, size_t size);

/* Write one byte in every cache line of buf, from the first to the last, forever. */
int numa_sweep(volatile char *buf, size_t size, volatile uint64_t *iterations);

#endif
