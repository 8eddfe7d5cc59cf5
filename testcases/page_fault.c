#include "page_fault.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

int page_fault_file_prepare(struct tc_copy *copy)
{
	int fd = tc_tmpfile(copy->tmpdir, "page_fault", PAGE_FAULT_MEMSIZE);

	if (fd < 0)
		return tc_error(copy, "cannot create a %lu MiB temp file in %s: %m",
				PAGE_FAULT_MEMSIZE >> 20, copy->tmpdir);
	copy->priv = (void *)(intptr_t)fd;
	return 0;
}

int page_fault_file_run(struct tc_copy *copy, volatile uint64_t *iterations, int map_flags)
{
	int fd = (int)(intptr_t)copy->priv;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (;;) {
		char *c = mmap(NULL, PAGE_FAULT_MEMSIZE, PROT_READ | PROT_WRITE, map_flags, fd, 0);

		if (c == MAP_FAILED)
			return tc_error(copy, "mmap of a %lu MiB file: %m",
					PAGE_FAULT_MEMSIZE >> 20);
		for (size_t i = 0; i < PAGE_FAULT_MEMSIZE; i += page) {
			c[i] = 0;
			(*iterations)++;
		}
		munmap(c, PAGE_FAULT_MEMSIZE);
	}
}
