/* poll1 with 128 per-copy temp files.  In thread mode every copy's fds live in the one
 * process's table, so the run needs 128 fds per copy under RLIMIT_NOFILE. */
#include "testcase.h"

#include <dirent.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/resource.h>

#define NR_FILES  128
#define FD_MARGIN 16 /* for whatever the core or libc opens after global_prepare */

static long open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	long n = 0;

	if (!dir)
		return 64; /* no /proc: assume a generous count */
	while (readdir(dir))
		n++;
	closedir(dir);
	return n; /* counts ".", ".." and the directory's own fd: a small overcount */
}

static int poll2_global_prepare(struct tc_run *run)
{
	unsigned copies_per_table = run->mode == TC_MODE_THREAD ? run->nr_copies : 1;
	rlim_t need = (rlim_t)NR_FILES * copies_per_table + (rlim_t)open_fds() + FD_MARGIN;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return tc_run_error(run, "getrlimit(RLIMIT_NOFILE): %m");
	if (rl.rlim_cur >= need) /* RLIM_INFINITY is the largest rlim_t */
		return 0;
	if (rl.rlim_max < need)
		return tc_run_error(
		    run,
		    "poll2 needs %llu open files (%d per copy, %u copies in one fd "
		    "table) but the hard RLIMIT_NOFILE is %llu: raise it (ulimit -Hn)",
		    (unsigned long long)need, NR_FILES, copies_per_table,
		    (unsigned long long)rl.rlim_max);
	/* Only the soft limit moves, in the copy host: copies inherit it, scalebench keeps its own.
	 */
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return tc_run_error(run, "cannot raise the soft RLIMIT_NOFILE to %llu: %m",
				    (unsigned long long)need);
	return 0;
}

static int poll2_prepare(struct tc_copy *copy)
{
	struct pollfd *pfd = calloc(NR_FILES, sizeof(*pfd));

	if (!pfd)
		return tc_error(copy, "out of memory");
	for (int i = 0; i < NR_FILES; i++) {
		pfd[i].fd = tc_tmpfile(copy->tmpdir, "poll2", 0);
		if (pfd[i].fd < 0)
			return tc_error(copy, "cannot create temp file %d of %d in %s: %m", i + 1,
					NR_FILES, copy->tmpdir);
		pfd[i].events = POLLOUT;
	}
	copy->priv = pfd;
	return 0;
}

static int poll2_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	struct pollfd *pfd = copy->priv;

	while (poll(pfd, NR_FILES, 0) >= 0)
		(*iterations)++;
	return tc_error(copy, "poll of %d fds: %m", NR_FILES);
}

const struct testcase tc_poll2 = {
    .name = "poll2",
    .description = "poll of 128 fds (per-copy temp files), timeout 0",
    .suite = "will-it-scale",
    .op = "poll",
    .global_prepare = poll2_global_prepare,
    .prepare = poll2_prepare,
    .run = poll2_run,
};
