/* What the machine did besides the testcase over a run's measurement window: runnable tasks
 * (/proc/stat's procs_running, sampled once per interval), steal time (/proc/stat's cpu line,
 * at the window's start and end) and the CPU frequency where cpufreq shows it.  A few reads of
 * /proc per second, independent of the optional monitors: a busy machine is noticed on every
 * run. */
#ifndef SCALEBENCH_LOAD_H
#define SCALEBENCH_LOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct cpu_times {
	unsigned long long total, steal; /* USER_HZ ticks over every field of the cpu line */
	unsigned procs_running;
	bool ok;
};

struct machine_load {
	const char *proc_root, *sys_root; /* "/proc", "/sys"; fixture trees in tests */
	unsigned nr_cpus, nr_task;
	struct cpu_times start;
	double runnable_sum, runnable_max;
	size_t samples;
	double steal_pct;    /* NAN when /proc/stat could not be read */
	double cpu_mhz_mean; /* NAN when no cpufreq is readable */
	bool busy;
	char reason[256]; /* why busy, in words; "" when not */
};

/* /proc/stat's text into t: the aggregate cpu line and procs_running.  0, or -1 when the cpu
 * line is missing. */
int cpu_times_parse(const char *text, struct cpu_times *t);

void machine_load_init(struct machine_load *l, const char *proc_root, const char *sys_root,
		       unsigned nr_cpus, unsigned nr_task);
/* At the start of the measurement window, once per interval inside it, at its end. */
void machine_load_start(struct machine_load *l);
void machine_load_sample(struct machine_load *l);
void machine_load_stop(struct machine_load *l);

/* The decision from the figures gathered (machine_load_stop calls it): busy when the tasks
 * runnable besides the testcase's copies outnumber the CPUs the copies leave free by half a
 * CPU or more, or when more than 5% of the CPU time was stolen by the hypervisor. */
void machine_load_decide(struct machine_load *l);

/* meta.json's "machine_load": {"runnable_mean", "runnable_max", "samples", "steal_pct",
 * "cpu_mhz_mean", "nr_cpus", "nr_task", "busy", "reason"}; unknown figures are null. */
json_t *machine_load_json(const struct machine_load *l);

#endif
