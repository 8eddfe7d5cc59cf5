#include "tlb_flush.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

int tlb_flush_file_prepare(struct tc_copy *copy)
{
	int fd = tc_tmpfile(copy->tmpdir, "tlb_flush", TLB_FLUSH_FILESIZE);

	if (fd < 0)
		return tc_error(copy, "cannot create a %lu MiB temp file in %s: %m",
				TLB_FLUSH_FILESIZE >> 20, copy->tmpdir);
	copy->priv = (void *)(intptr_t)fd;
	return 0;
}

int tlb_flush_run(struct tc_copy *copy, volatile uint64_t *iterations, int fd, size_t size,
		  int map_flags, char expect)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (;;) {
		char *addr = mmap(NULL, size, PROT_READ | PROT_WRITE, map_flags, fd, 0);

		if (addr == MAP_FAILED)
			return tc_error(copy, "mmap of %zu KiB: %m", size >> 10);
		for (size_t i = 0; i < size; i += page) {
			volatile char *p = addr + i;

			*p = 1;
			/* Zapping a page another thread may have cached is the TLB flush. */
			if (madvise(addr + i, page, MADV_DONTNEED))
				return tc_error(copy, "madvise(MADV_DONTNEED): %m");
			if (*p != expect)
				return tc_error(copy,
						"page %zu reads %d after MADV_DONTNEED, not %d",
						i / page, *p, expect);
			(*iterations)++;
		}
		if (munmap(addr, size))
			return tc_error(copy, "munmap of %zu KiB: %m", size >> 10);
	}
}
