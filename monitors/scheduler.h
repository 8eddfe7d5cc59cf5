/* The monitors of one run: set up from the job before the testcase starts, sampled in a
 * thread of their own over the measurement window (so the core's sampler keeps its timing),
 * reduced to stats after it. */
#ifndef SCALEBENCH_SCHEDULER_H
#define SCALEBENCH_SCHEDULER_H

#include "monitor.h"

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

struct monitor_run {
	const struct monitor *m;
	struct monitor_ctx ctx;
	bool prepared; /* prepare() succeeded (or there is none): start owed */
	bool started;  /* start() succeeded: stop/reduce owed */
	unsigned nr_failed; /* samples and stop that failed (a file vanished) */
	double failed_s;    /* the first of them, in seconds since the window opened */
	bool lost;	    /* the stop failed too: the stats end before the window does */
	double next_s;
};

struct monitor_set {
	struct monitor_run *v;
	size_t n;
	json_t *skipped; /* name -> note, for meta.json */
	bool ready;	 /* set up: monitor_set_free owed */
	pthread_t thread;
	bool thread_running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	struct timespec t0;
};

/* The monitors a job wants (wanted: name -> options object or null), the default ones when
 * it names none, none at all with `none`; each prepared, sampling every interval_s (the
 * job's interval) unless its own `interval` option says otherwise.  One that cannot work here is left
 * out, said on stderr the first time and noted for meta.json.  0, or -1 when out of memory. */
int monitor_set_init(struct monitor_set *ms, const json_t *wanted, bool none, unsigned nr_cpus,
		     double runtime_s, double interval_s);

/* The window: start the monitors and their thread; stop them (and join it).  Stop may be
 * called again, or without a start. */
void monitor_set_start(struct monitor_set *ms);
void monitor_set_stop(struct monitor_set *ms);

/* What the window measured, for the monitors' reduce. */
struct monitor_window {
	uint64_t ops;	      /* the testcase's ops in the window */
	double window_s;      /* its length */
	double run_elapsed_s; /* from the testcase's setup to its teardown */
};

/* After the window: every monitor that ran adds its stats to `stats`; meta (an object) gets
 * each monitor's entry for meta.json, {"status": "ok" | "not run" | "unavailable" |
 * "incomplete", "note", and what the monitor adds}.  A monitor whose source failed during the
 * window keeps being sampled: when it came back by the end, its stats are whole (counters
 * need the first and last readings) and the note counts the failed readings; when its last
 * reading failed too it is incomplete: its stats would cover only part of the window, so
 * they go to its entry's "partial_stats", not to `stats`.  Either way the note says what
 * failed and when, on stderr too.  The raw samples stay in v[i].ctx.raw for those started. */
void monitor_set_reduce(struct monitor_set *ms, const struct monitor_window *w, json_t *stats,
			json_t *meta);

/* Clean up every monitor (stopping the thread if need be); nothing when never set up. */
void monitor_set_free(struct monitor_set *ms);

#endif
