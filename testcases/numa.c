#include "numa.h"

#include <unistd.h>

void numa_touch(volatile char *buf, size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < size; i += page)
		buf[i] = 0;
}

int numa_sweep(volatile char *buf, size_t size, volatile uint64_t *iterations)
{
	for (char v = 1;; v++) {
		/* volatile: every line is really written, not folded into one memset. */
		for (size_t i = 0; i < size; i += NUMA_LINE) {
			buf[i] = v;
			(*iterations)++;
		}
	}
	return -1;
}
