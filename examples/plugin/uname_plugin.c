/* A minimal out-of-tree scalebench testcase: uname() in a loop.
 *
 *   cc -O2 -Wall -shared -fPIC -o uname_plugin.so uname_plugin.c
 *   scalebench bench --plugin ./uname_plugin.so -m both -t 1-100%
 *
 * It includes only the installed header and exports its testcases with SCALEBENCH_PLUGIN;
 * scalebench runs it in the counter core exactly like a built-in testcase. */
#include <scalebench/testcase.h>

#include <sys/utsname.h>

static int uname1_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	struct utsname u;

	while (uname(&u) == 0)
		(*iterations)++;
	return tc_error(copy, "uname: %m");
}

static const struct testcase tc_uname1 = {
    .name = "uname1",
    .description = "uname() system call (example plug-in)",
    .suite = "plugin",
    .op = "uname",
    .run = uname1_run,
};

SCALEBENCH_PLUGIN(&tc_uname1);
