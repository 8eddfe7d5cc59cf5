/* The one list of testcases: list, bench and --help are generated from it. */
#include "testcase.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const struct testcase tc_page_fault1, tc_page_fault2, tc_page_fault3;
extern const struct testcase tc_fallocate1, tc_fallocate2;
extern const struct testcase tc_exec1, tc_fork1, tc_getppid1;
extern const struct testcase tc_selftest_crash, tc_selftest_exit, tc_selftest_stuck,
    tc_selftest_setup_hang;

const struct testcase *const testcase_table[] = {
    &tc_exec1,
    &tc_fallocate1,
    &tc_fallocate2,
    &tc_fork1,
    &tc_getppid1,
    &tc_page_fault1,
    &tc_page_fault2,
    &tc_page_fault3,
    &tc_selftest_crash,
    &tc_selftest_exit,
    &tc_selftest_stuck,
    &tc_selftest_setup_hang,
    NULL,
};

bool testcase_selftest_enabled(void)
{
	const char *v = getenv("SCALEBENCH_SELFTEST");

	return v && strcmp(v, "1") == 0;
}

const struct testcase *testcase_find(const char *name)
{
	for (size_t i = 0; testcase_table[i]; i++) {
		const struct testcase *tc = testcase_table[i];

		if (strcmp(tc->name, name) == 0) {
			if ((tc->flags & TC_HIDDEN) && !testcase_selftest_enabled())
				return NULL;
			return tc;
		}
	}
	return NULL;
}

int tc_tmpfile(const char *dir, const char *tag, uint64_t size)
{
	char path[4096];
	int fd;

	if (snprintf(path, sizeof(path), "%s/scalebench-%s.XXXXXX", dir, tag) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Unlinked at once: a killed run leaves nothing behind. */
	unlink(path);
	if (size && ftruncate(fd, (off_t)size)) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}
