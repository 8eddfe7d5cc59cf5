/* time: what the testcase cost, as /usr/bin/time reports it for LKP (time.user_time, ...),
 * over the testcase's whole life like LKP's (setup, warmup, window, teardown).  The copies
 * are reaped by scalebench (directly, or as its subreaper), so RUSAGE_CHILDREN read after the
 * run, minus its value at the start, is exactly this run's processes: the copy host, every
 * copy and whatever they forked.  Also time.page_size and time.elapsed_time.max, as LKP has
 * them; stats that are 0 are left out, as LKP leaves them out. */
#include "procfs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

struct time_state {
	struct rusage start;
};

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static int time_start(struct monitor_ctx *ctx)
{
	struct time_state *st = calloc(1, sizeof(*st));

	if (!st)
		return -1;
	/* The run's processes are alive and unreaped now: none of their time is in here. */
	getrusage(RUSAGE_CHILDREN, &st->start);
	ctx->priv = st;
	return 0;
}

/* LKP's time stats come from `/usr/bin/time -v` (programs/time/parse), and dump-stat leaves
 * out those that are 0: so does this. */
static int time_put(json_t *stats, const char *key, double v)
{
	if (v == 0)
		return 0;
	return stats_put(stats, v, "time.%s", key);
}

static int time_reduce(struct monitor_ctx *ctx, json_t *stats)
{
	struct time_state *st = ctx->priv;
	struct rusage now;
	double user, sys;
	int rc = 0;

	/* Called after the copies were reaped: now they are counted. */
	getrusage(RUSAGE_CHILDREN, &now);
	user = tv_s(now.ru_utime) - tv_s(st->start.ru_utime);
	sys = tv_s(now.ru_stime) - tv_s(st->start.ru_stime);
	rc |= time_put(stats, "user_time", user);
	rc |= time_put(stats, "system_time", sys);
	rc |= time_put(stats, "elapsed_time", ctx->run_elapsed_s);
	/* LKP adds <stat>.max for the stats etc/add-max-latency names (.*time.elapsed_time):
	 * of one reading, the reading itself */
	rc |= time_put(stats, "elapsed_time.max", ctx->run_elapsed_s);
	if (ctx->run_elapsed_s > 0)
		rc |= time_put(stats, "percent_of_cpu_this_job_got",
			       100.0 * (user + sys) / ctx->run_elapsed_s);
	rc |= time_put(stats, "voluntary_context_switches",
		       (double)(now.ru_nvcsw - st->start.ru_nvcsw));
	rc |= time_put(stats, "involuntary_context_switches",
		       (double)(now.ru_nivcsw - st->start.ru_nivcsw));
	rc |= time_put(stats, "minor_page_faults", (double)(now.ru_minflt - st->start.ru_minflt));
	rc |= time_put(stats, "major_page_faults", (double)(now.ru_majflt - st->start.ru_majflt));
	rc |= time_put(stats, "file_system_inputs", (double)(now.ru_inblock - st->start.ru_inblock));
	rc |= time_put(stats, "file_system_outputs",
		       (double)(now.ru_oublock - st->start.ru_oublock));
	/* ru_maxrss of children is the largest single one, in KiB. */
	rc |= time_put(stats, "maximum_resident_set_size", (double)now.ru_maxrss);
	rc |= time_put(stats, "page_size", (double)sysconf(_SC_PAGESIZE));
	rc |= json_array_append_new(ctx->raw, json_pack("{s:f, s:f, s:f}", "user_time", user,
							 "system_time", sys, "elapsed_time",
							 ctx->run_elapsed_s));
	return rc ? -1 : 0;
}

static void time_cleanup(struct monitor_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

/* What the window's copies did, in all: CPU seconds, context switches, faults, blocks.  The
 * elapsed time, the CPU share, the largest RSS and the page size are not. */
static bool time_is_rate(const char *stat)
{
	static const char *const rates[] = {
	    "time.user_time",		      "time.system_time",
	    "time.voluntary_context_switches", "time.involuntary_context_switches",
	    "time.minor_page_faults",	      "time.major_page_faults",
	    "time.file_system_inputs",	      "time.file_system_outputs",
	};

	for (size_t i = 0; i < sizeof(rates) / sizeof(*rates); i++)
		if (!strcmp(stat, rates[i]))
			return true;
	return false;
}

const struct monitor mon_time = {
    .name = "time",
    .description = "CPU time, context switches, faults and max RSS of the testcase's processes",
    .start = time_start,
    .reduce = time_reduce,
    .cleanup = time_cleanup,
    .is_default = true,
    .is_rate = time_is_rate,
};
