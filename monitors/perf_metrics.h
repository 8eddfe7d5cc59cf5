/* perf-stat arithmetic, apart from any PMU: multiplex scaling, the per-interval and per-second
 * reductions, and the derived metrics LKP reports (ipc, cache-miss-rate%, MPKI, ...). */
#ifndef SCALEBENCH_PERF_METRICS_H
#define SCALEBENCH_PERF_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* Scale a count taken while the event shared the PMU: raw * enabled / running, the count it
 * would have reached had it been on the PMU the whole time.  factor (may be NULL) gets
 * enabled / running.  Returns 0, or -1 when running is 0: the event was never scheduled,
 * so there is no count to scale ("not counted"). */
int perf_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *scaled, double *factor);

/* One event over a window cut into intervals: dt_s[k] long, delta[k] counted in it (NaN when
 * not counted in that interval). */
struct perf_series {
	double total;	  /* sum of the counted deltas: perf-stat.total */
	double seconds;	  /* the time those deltas cover */
	double per_s;	  /* total / seconds: perf-stat.ps */
	double mean_rate; /* mean over the intervals of delta / dt: perf-stat.i */
	size_t nr_counted;
};

/* Reduce one series.  Intervals shorter than min_dt_s are left out of mean_rate (a last sliver
 * of a window gives a noisy rate) unless every interval is that short; they still count in
 * total and per_s.  Returns 0, or -1 when no interval was counted. */
int perf_reduce_series(const double *dt_s, const double *delta, size_t n, double min_dt_s,
		       struct perf_series *out);

struct perf_count {
	const char *event; /* "instructions", "cpu-cycles" (or "cycles"), ... */
	double value;	   /* NaN: not counted */
};

struct perf_metric {
	const char *name; /* "ipc", "cache-miss-rate%", ... (static storage) */
	double value;
};

#define PERF_MAX_METRICS 16

/* The derived metrics whose inputs are all in counts (and whose denominator is not 0), into
 * out[PERF_MAX_METRICS]; ops is the testcase's operations over the same span, for
 * instructions-per-op (0: unknown, none).  Returns how many were written. */
size_t perf_derive_metrics(const struct perf_count *counts, size_t n, double ops,
			   struct perf_metric *out);

/* perf-stat.i.<metric>: the metrics of every interval (deltas: nr_intervals rows of nr_events
 * values, NaN = not counted), averaged over the intervals where each is defined; intervals
 * shorter than min_dt_s are left out as in perf_reduce_series.  Returns how many were written
 * to out[PERF_MAX_METRICS]. */
size_t perf_interval_metrics(const char *const *events, size_t nr_events, const double *deltas,
			     const double *dt_s, size_t nr_intervals, double min_dt_s,
			     struct perf_metric *out);

/* perf-stat.i.metric.<unit>: LKP's programs/perf-stat/parse adds up, per interval, the figure
 * `perf stat -I` prints beside each event when that figure's unit is one word starting with a
 * capital (GHz, K/sec, M/sec, G/sec), and its stats are the means of those sums over the
 * intervals (0 where an interval printed none).  perf (6.x) prints, with the clock being the
 * mean of the task-clock and cpu-clock counted (msec in deltas, as perf prints them): cycles / clock in GHz; for the events
 * without a ratio of their own (everything but the clocks, instructions, cycles and the
 * misses perf relates to their accesses) 1e9 * count / clock per second, in K, M or G when
 * above 1e3, 1e6, 1e9 (below 1e3 the unit is "/sec", which LKP does not take).  Same
 * arguments and returns as perf_interval_metrics; names are "metric.GHz" etc., sums that are
 * 0 throughout are left out. */
size_t perf_unit_metrics(const char *const *events, size_t nr_events, const double *deltas,
			 const double *dt_s, size_t nr_intervals, double min_dt_s,
			 struct perf_metric *out);

#endif
