/* time: what the testcase cost, as /usr/bin/time reports it for LKP (time.user_time, ...),
 * over the testcase's whole life like LKP's (setup, warmup, window, teardown).  The copies
 * are reaped by scalebench (directly, or as its subreaper), so RUSAGE_CHILDREN read after the
 * run, minus its value at the start, is exactly this run's processes: the copy host, every
 * copy and whatever they forked. */
#include "monitor.h"

#include <stdlib.h>
#include <sys/resource.h>

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

static int time_reduce(struct monitor_ctx *ctx, json_t *stats)
{
	struct time_state *st = ctx->priv;
	struct rusage now;
	double user, sys;

	/* Called after the copies were reaped: now they are counted. */
	getrusage(RUSAGE_CHILDREN, &now);
	user = tv_s(now.ru_utime) - tv_s(st->start.ru_utime);
	sys = tv_s(now.ru_stime) - tv_s(st->start.ru_stime);
	json_object_set_new(stats, "time.user_time", json_real(user));
	json_object_set_new(stats, "time.system_time", json_real(sys));
	json_object_set_new(stats, "time.elapsed_time", json_real(ctx->run_elapsed_s));
	if (ctx->run_elapsed_s > 0)
		json_object_set_new(stats, "time.percent_of_cpu_this_job_got",
				    json_real(100.0 * (user + sys) / ctx->run_elapsed_s));
	json_object_set_new(stats, "time.voluntary_context_switches",
			    json_integer(now.ru_nvcsw - st->start.ru_nvcsw));
	json_object_set_new(stats, "time.involuntary_context_switches",
			    json_integer(now.ru_nivcsw - st->start.ru_nivcsw));
	json_object_set_new(stats, "time.minor_page_faults",
			    json_integer(now.ru_minflt - st->start.ru_minflt));
	json_object_set_new(stats, "time.major_page_faults",
			    json_integer(now.ru_majflt - st->start.ru_majflt));
	json_object_set_new(stats, "time.file_system_inputs",
			    json_integer(now.ru_inblock - st->start.ru_inblock));
	json_object_set_new(stats, "time.file_system_outputs",
			    json_integer(now.ru_oublock - st->start.ru_oublock));
	/* ru_maxrss of children is the largest single one, in KiB. */
	json_object_set_new(stats, "time.maximum_resident_set_size", json_integer(now.ru_maxrss));
	json_array_append_new(ctx->raw,
			      json_pack("{s:f, s:f, s:f}", "user_time", user, "system_time", sys,
					"elapsed_time", ctx->run_elapsed_s));
	return 0;
}

static void time_cleanup(struct monitor_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

const struct monitor mon_time = {
    .name = "time",
    .description = "CPU time, context switches, faults and max RSS of the testcase's processes",
    .start = time_start,
    .reduce = time_reduce,
    .cleanup = time_cleanup,
    .is_default = true,
};
