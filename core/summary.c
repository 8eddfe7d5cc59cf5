#include "summary.h"

#include <stdio.h>

void run_summarize(const struct core_result *res, enum tc_mode mode, unsigned nr_task,
		   struct run_summary *s)
{
	struct interval_rates r;

	*s = (struct run_summary){.mode = mode, .nr_task = nr_task, .status = res->status};
	if (res->samples.n < 2 ||
	    window_rates(&res->samples, res->samples.measure_start, res->samples.n - 1, &r))
		return;
	s->per_copy_ops = r.mean;
	s->total_ops = r.total;
	s->window_ops = r.ops;
	s->window_s = r.seconds;
}

const char *core_status_name(enum core_status st)
{
	switch (st) {
	case CORE_OK:
		return "ok";
	case CORE_FAILED:
		return "failed";
	case CORE_SKIPPED:
		return "skipped";
	default:
		return "interrupted";
	}
}

const char *per_copy_stat_name(enum tc_mode mode)
{
	return mode == TC_MODE_PROCESS ? "per_process_ops" : "per_thread_ops";
}

double run_cost(const struct run_summary *s)
{
	return s->per_copy_ops > 0 ? 1e6 / s->per_copy_ops : 0.0;
}

static void add_stat(json_t *stats, const struct testcase *tc, const char *stat, double v)
{
	char name[256];

	snprintf(name, sizeof(name), "%s.%s", tc->suite ? tc->suite : "will-it-scale", stat);
	json_object_set_new(stats, name, json_real(v));
}

void testcase_stats(const struct testcase *tc, const struct run_summary *s, json_t *stats)
{
	if (s->status != CORE_OK || s->window_s <= 0)
		return;
	add_stat(stats, tc, per_copy_stat_name(s->mode), s->per_copy_ops);
	add_stat(stats, tc, "workload", s->total_ops);
	if (tc->cost_stat)
		add_stat(stats, tc, tc->cost_stat, run_cost(s));
}

int interval_line(const struct sample_window *w, size_t i, char *buf, size_t len)
{
	struct interval_rates r;

	if (i == 0 || window_rates(w, i - 1, i, &r))
		return -1;
	snprintf(buf, len, "min:%.0f max:%.0f total:%.0f", r.min, r.max, r.total);
	return 0;
}
