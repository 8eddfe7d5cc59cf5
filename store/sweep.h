/* Sweeps: the atomic jobs (or the runs) of one test in one mode, in task-count order.  The
 * runner's summary, compare's MMTests tables and the scalability plot all show jobs this way;
 * one grouping serves them so they show the same sweeps in the same order. */
#ifndef SCALEBENCH_SWEEP_H
#define SCALEBENCH_SWEEP_H

#include <stddef.h>
#include <sys/types.h>

struct sweep_item {
	const char *test; /* "page_fault3"; NULL matches only NULL */
	const char *mode; /* "process", "thread"; NULL matches only NULL */
	unsigned nr_task;
	size_t index; /* the caller's: which atomic job, which run */
};

struct sweep {
	const char *test, *mode;  /* shared by its items */
	struct sweep_item *items; /* ascending nr_task; equal task counts in input order */
	size_t n;
};

/* Group items by (test, mode), the sweeps in the order their first item comes, each ordered
 * by nr_task.  Returns the number of sweeps with *out allocated (NULL for none; free it with
 * sweep_free), or -1 when out of memory. */
ssize_t sweep_group(const struct sweep_item *items, size_t n, struct sweep **out);
void sweep_free(struct sweep *s, size_t nsweeps);

#endif
