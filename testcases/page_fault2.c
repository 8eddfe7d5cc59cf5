#include "testcase.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define MEMSIZE (128ul << 20)

static int page_fault2_prepare(struct tc_copy *copy)
{
	int fd = tc_tmpfile(copy->tmpdir, "page_fault2", MEMSIZE);

	if (fd < 0)
		return tc_error(copy, "cannot create a %lu MiB temp file in %s: %m", MEMSIZE >> 20,
				copy->tmpdir);
	copy->priv = (void *)(intptr_t)fd;
	return 0;
}

static int page_fault2_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	int fd = (int)(intptr_t)copy->priv;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (;;) {
		char *c = mmap(NULL, MEMSIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);

		if (c == MAP_FAILED)
			return tc_error(copy, "mmap of a %lu MiB file: %m", MEMSIZE >> 20);
		for (size_t i = 0; i < MEMSIZE; i += page) {
			c[i] = 0;
			(*iterations)++;
		}
		munmap(c, MEMSIZE);
	}
}

const struct testcase tc_page_fault2 = {
    .name = "page_fault2",
    .description = "Separate file private mapping page fault (copy on write)",
    .suite = "will-it-scale",
    .op = "page fault",
    .prepare = page_fault2_prepare,
    .run = page_fault2_run,
};
