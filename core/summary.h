/* One run's result in the testcase's terms: what bench prints and the runner stores. */
#ifndef SCALEBENCH_SUMMARY_H
#define SCALEBENCH_SUMMARY_H

#include "core.h"

#include <jansson.h>

struct run_summary {
	enum tc_mode mode;
	unsigned nr_task;
	enum core_status status;
	double per_copy_ops; /* mean ops/s of one copy over the window */
	double total_ops;    /* ops/s of all copies */
	uint64_t window_ops;
	double window_s;
};

void run_summarize(const struct core_result *res, enum tc_mode mode, unsigned nr_task,
		   struct run_summary *s);
const char *core_status_name(enum core_status st);
/* "per_process_ops" or "per_thread_ops", as LKP names them. */
const char *per_copy_stat_name(enum tc_mode mode);
/* A cost testcase's figure: microseconds per op of one copy. */
double run_cost(const struct run_summary *s);
/* The run's testcase stats, LKP names: <suite>.per_process_ops (or per_thread_ops),
 * <suite>.workload and, for a cost testcase, <suite>.<cost_stat>.  Nothing for a run that
 * did not succeed. */
void testcase_stats(const struct testcase *tc, const struct run_summary *s, json_t *stats);
/* will-it-scale's line for the interval ending at sample i: "min:N max:N total:N" (ops/s).
 * Returns -1 for an empty interval. */
int interval_line(const struct sample_window *w, size_t i, char *buf, size_t len);

#endif
