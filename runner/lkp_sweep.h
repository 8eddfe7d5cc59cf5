/* LKP's will-it-scale sweep inside one atomic job: a job without mode and nr_task runs both
 * modes over the task counts lkp-tests' setup_threads_to_iterate picks on this machine, and
 * reports what its programs/will-it-scale/parse reports for runtest.py's table. */
#ifndef SCALEBENCH_LKP_SWEEP_H
#define SCALEBENCH_LKP_SWEEP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What setup_threads_to_iterate reads (lscpu and sysfs). */
struct lkp_topology {
	unsigned nr_cpu;	   /* nproc: CPUs this process may run on */
	unsigned nr_node;	   /* /sys/devices/system/node/node* */
	unsigned threads_per_core; /* lscpu "Thread(s) per core" */
	unsigned nr_l2, nr_l3;	   /* cache instances; nr_l3 0: no L3 */
};

/* This machine's topology from sysfs.  0, or -1 with err. */
int lkp_topology_probe(struct lkp_topology *t, char *err, size_t errlen);

/* LKP's task counts: 1, cores_per_llc, i * cores_per_node for each node, and with 4 CPUs or
 * more 3/4 and all of them; sorted, distinct, zeros dropped.  Malloc'd in *v (*n of them);
 * 0, or -1 (bad topology: no cores per node, as LKP's "Invalid nr_cpu" exit, or no memory). */
int lkp_threads_to_iterate(const struct lkp_topology *t, unsigned **v, size_t *n);

/* The measurement window of one sweep point, as LKP's setup_params computes it from the
 * job's runtime: runtime / (3 + nr_node) / 2 - 5 s (will-it-scale's warmup), at least 5 s;
 * integer seconds, as LKP's shell arithmetic truncates. */
double lkp_sweep_point_runtime(double runtime_s, unsigned nr_node);

/* One line of runtest.py's table: ops/s of all copies in each mode (0: not run or failed),
 * the CPUs' idle percentage over each window, and linear (1-task rate x tasks). */
struct lkp_sweep_point {
	unsigned tasks;
	unsigned long long processes, threads, linear;
	double processes_idle, threads_idle;
};

/* The table as runtest.py prints it: header, the "0,0,100,0,100,0" line, one line a point. */
void lkp_sweep_header(FILE *out);
void lkp_sweep_line(FILE *out, const struct lkp_sweep_point *p);

/* runtest.py's table read back (the lines parse reads; others ignored).  Malloc'd points;
 * 0, or -1 on no memory. */
int lkp_sweep_read(const char *text, struct lkp_sweep_point **v, size_t *n);

/* What programs/will-it-scale/parse reports for the points, each name prefixed by
 * "<suite>.": N.processes, N.processes_idle, N.threads, N.threads_idle, N.linear, scalability,
 * per_process_ops, per_thread_ops, workload (each only when parse prints it).  Values are
 * parse's: the idle percentages rounded to 2 decimals, scalability to 6, the averages and
 * workload truncated to integers. */
void lkp_sweep_stats(const struct lkp_sweep_point *v, size_t n, const char *suite, json_t *stats);
/* What parse prints for one line of the table, the family LKP reports for every run (a sweep
 * point or a run at one task count): N.processes, N.processes_idle, N.threads,
 * N.threads_idle, N.linear.  Nothing for the "0,..." line or one where both modes failed;
 * returns whether it set them. */
bool lkp_point_stats(const struct lkp_sweep_point *p, const char *suite, json_t *stats);

/* CPU time of some CPUs from /proc/stat (procstat: its text), as runtest.py's linux_stat
 * counts it: idle (idle + iowait) and busy (user nice system irq softirq steal guest
 * guest_nice), in ticks.  cpus: OS indexes; n 0 means the "cpu" line, all of them. */
struct cpu_ticks {
	unsigned long long idle, busy;
};
int lkp_cpu_ticks(const char *procstat, const int *cpus, size_t n, struct cpu_ticks *out);
/* The idle percentage between two readings (100 * idle / (idle + busy); 0 when no tick). */
double lkp_idle_percent(const struct cpu_ticks *before, const struct cpu_ticks *after);

#endif
