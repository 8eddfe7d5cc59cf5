/* The testcases' temp dir, as bench and run take it, checked before any run starts: a temp
 * dir that can't be used would otherwise fail every run, each stored as a failure. */
#include "builtin.h"
#include "../testcases/testcase.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *tmpdir_checked(const char *opt)
{
	const char *env = getenv("TMPDIR");
	const char *dir = opt ? opt : env && *env ? env : "/tmp";
	/* What the testcases do there: create a file and unlink it. */
	int fd = tc_tmpfile(dir, "probe", 0);

	if (fd < 0) {
		sb_error("temp dir '%s' is not usable: %s; expected a writable directory (--tmpdir "
			 "or TMPDIR)",
			 dir, strerror(errno));
		return NULL;
	}
	close(fd);
	return dir;
}
