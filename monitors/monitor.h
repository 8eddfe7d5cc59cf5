/* Monitors: what the runner samples beside the testcase during the measurement window.
 *
 * One file per monitor (or per family) ends in one descriptor,
 *
 *	const struct monitor mon_proc_vmstat = { .name = "proc-vmstat", .start = ..., ... };
 *
 * and the build collects every `const struct monitor mon_<name>` in runner/ (as it does for
 * testcases).  The runner calls prepare (if any) before the testcase starts, start at the
 * beginning of the window, sample every interval from its monitor thread, stop at the end of
 * the window, then reduce once to turn the raw samples into LKP-named stats.  A monitor never
 * fails a run: when it cannot work here it returns MONITOR_UNAVAILABLE with ctx->note saying
 * why, and the run goes on without it. */
#ifndef SCALEBENCH_MONITOR_H
#define SCALEBENCH_MONITOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MONITOR_UNAVAILABLE 1

struct monitor_ctx {
	const char *name;      /* the monitor's name, e.g. "proc-vmstat" */
	const json_t *options; /* its options from the job file (object), or NULL */
	double interval_s;     /* between samples (options "interval", default 1) */
	unsigned nr_cpus;      /* online CPUs */
	const char *proc_root; /* "/proc" (tests point it at fixture trees) */
	const char *sys_root;  /* "/sys" */
	double runtime_s;      /* the measurement window planned, 0 if unknown */
	bool started;	       /* set by the runner once start succeeded */
	/* Set by start or sample to be called again sooner than the next interval tick: the
	 * time (seconds since start) of one extra sample call; 0: none. */
	double wake_s;
	/* Filled in by the runner before reduce: the testcase's ops and the window length. */
	uint64_t window_ops;
	double window_s;
	/* The monitor's own raw data: written by the runner as <name>.json in the run
	 * directory (<name>.json.gz with compress_raw).  Append one object per sample, each
	 * with "t_s" (seconds since start). */
	json_t *raw;
	/* Notes for meta.json: a reason the monitor is unavailable, unsupported events. */
	char note[512];
	json_t *meta; /* object; the monitor may add keys (e.g. "unsupported": [...]) */
	void *priv;
	/* Filled in by the runner before reduce: seconds from the start of the testcase
	 * (before its setup) to the end of its teardown. */
	double run_elapsed_s;
};

struct monitor {
	const char *name;
	const char *description;
	/* Optional: open what is costly to open (symbol tables, buffers) before the testcase
	 * starts, so the window doesn't pay for it.  Same returns as start; on failure the
	 * monitor is left out and start is never called. */
	int (*prepare)(struct monitor_ctx *ctx);
	/* Open what it reads and take the first reading.  0, MONITOR_UNAVAILABLE (note set), or
	 * -1 (note set) on an unexpected error: both leave the monitor out of the run. */
	int (*start)(struct monitor_ctx *ctx);
	/* Called every interval_s from the monitor thread, t_s = seconds since start. */
	int (*sample)(struct monitor_ctx *ctx, double t_s);
	/* The last reading, at the end of the window. */
	int (*stop)(struct monitor_ctx *ctx, double t_s);
	/* Add stats to `stats` (a JSON object name -> number), LKP names, e.g.
	 * "proc-vmstat.pgfault".  Counters: end - start over the window; gauges: means. */
	int (*reduce)(struct monitor_ctx *ctx, json_t *stats);
	/* Free priv and close what start opened; called whatever happened. */
	void (*cleanup)(struct monitor_ctx *ctx);
	/* Switched on when a job names no monitor at all ("default monitors"). */
	bool is_default;
	/* Its raw data is bulky (call chains): written gzip-compressed, <name>.json.gz. */
	bool compress_raw;
	/* Optional: whether a stat it reports (the whole name, "proc-vmstat.pgfault") is a count
	 * or a rate over the measurement window, the work the window held (events, per second
	 * or in all), as against a level of the machine's state (a mean of readings: memory,
	 * runnable tasks), a share (CPU %) or a value per op.  The runner lists such stats in
	 * meta.json (monitors.<name>.rates): compare takes a rate's move that its value per op
	 * of the testcase does not share for the throughput's, not a change of its own. */
	bool (*is_rate)(const char *stat);
};

/* Every monitor, sorted by name, NULL-terminated (generated at build time). */
extern const struct monitor *const monitor_table[];
const struct monitor *monitor_find(const char *name);

#endif
