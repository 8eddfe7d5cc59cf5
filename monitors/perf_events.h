/* perf events by name, counted on every CPU: libpfm4 turns names into perf_event_attr,
 * perf_event_open counts them system-wide, paired hardware events share a group so their
 * ratios come from the same stretch of PMU time. */
#ifndef SCALEBENCH_PERF_EVENTS_H
#define SCALEBENCH_PERF_EVENTS_H

#include <perfmon/pfmlib_perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One cumulative group read on one CPU. */
struct perf_reading {
	uint64_t value, enabled, running;
};

struct perf_counter {
	char *name; /* as the user gave it */
	struct perf_event_attr attr;
	double unit;	/* counts are multiplied by it: 1e-6 turns clock ns into msec, as perf */
	bool encoded;	/* libpfm knew the name */
	bool supported; /* open on every CPU */
	bool hardware;	/* a PMU event, not a kernel software one */
	int err;	/* errno of the failed perf_event_open, 0 if none */
	char reason[160];
	size_t leader;		   /* index of its group's leader; itself when it leads */
	unsigned slot;		   /* its place in the group read: 0 for the leader */
	int *fd;		   /* per CPU of the set, -1 when not open */
	struct perf_reading *last; /* per CPU, the previous reading */
};

struct perf_event_set {
	struct perf_counter *ev;
	size_t nr_events;
	int *cpus;
	size_t nr_cpus;
};

/* pfm_initialize, once per process.  Returns 0, or -1 with libpfm's reason in err. */
int perf_pfm_init(char *err, size_t errlen);

/* Parse a kernel CPU list ("0-3,8,10-11").  Returns 0 with a malloc'ed array, or -1. */
int perf_parse_cpu_list(const char *list, int **cpus, size_t *nr_cpus);

/* Encode every name (an unknown one is kept, unsupported, with libpfm's reason) and pair the
 * hardware events into groups.  Needs perf_pfm_init.  Returns 0, or -1 (out of memory). */
int perf_set_init(struct perf_event_set *set, const char *const *names, size_t nr_names,
		  const int *cpus, size_t nr_cpus);

/* Open every encoded event on every CPU, disabled.  An event that fails on any CPU is closed
 * everywhere and marked unsupported with the reason; a member whose leader failed leads its
 * own group.  Returns how many events are supported. */
size_t perf_set_open(struct perf_event_set *set);

/* Enable every group and take the first reading. */
void perf_set_enable(struct perf_event_set *set);

/* Read every group on every CPU.  delta[i] gets event i's count since the previous reading,
 * scaled for multiplexing and summed over CPUs (NaN when it was not counted at all: not
 * supported, or never on the PMU in that time); factor[i] (may be NULL) the scaling applied,
 * enabled / running over the CPUs that counted. */
void perf_set_read(struct perf_event_set *set, double *delta, double *factor);

/* Disable and close what is open, free the set. */
void perf_set_free(struct perf_event_set *set);

/* /proc/sys/kernel/perf_event_paranoid under proc_root ("/proc" when NULL), as text ("?" when
 * unreadable): what permission messages quote. */
void perf_paranoid_value(const char *proc_root, char *value, size_t len);

#endif
