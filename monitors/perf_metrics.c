/* perf-stat arithmetic: scaling, reductions and derived metrics, on plain numbers. */
#include "perf_metrics.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int perf_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *scaled, double *factor)
{
	double f;

	if (running == 0)
		return -1;
	/* running can exceed enabled by a few ns when the two are sampled apart; never scale
	 * a count down. */
	f = enabled > running ? (double)enabled / (double)running : 1.0;
	*scaled = (double)raw * f;
	if (factor)
		*factor = f;
	return 0;
}

/* Whether interval k takes part in a mean of per-interval values. */
static bool long_enough(const double *dt_s, size_t k, double min_dt_s, bool all_short)
{
	return dt_s[k] > 0 && (all_short || dt_s[k] >= min_dt_s);
}

static bool all_short(const double *dt_s, size_t n, double min_dt_s)
{
	for (size_t k = 0; k < n; k++)
		if (dt_s[k] > 0 && dt_s[k] >= min_dt_s)
			return false;
	return true;
}

int perf_reduce_series(const double *dt_s, const double *delta, size_t n, double min_dt_s,
		       struct perf_series *out)
{
	bool short_only = all_short(dt_s, n, min_dt_s);
	double rate_sum = 0;
	size_t nr_rates = 0;

	memset(out, 0, sizeof(*out));
	for (size_t k = 0; k < n; k++) {
		if (isnan(delta[k]))
			continue;
		out->total += delta[k];
		out->seconds += dt_s[k];
		out->nr_counted++;
		if (long_enough(dt_s, k, min_dt_s, short_only)) {
			rate_sum += delta[k] / dt_s[k];
			nr_rates++;
		}
	}
	if (!out->nr_counted || out->seconds <= 0)
		return -1;
	out->per_s = out->total / out->seconds;
	out->mean_rate = nr_rates ? rate_sum / nr_rates : out->per_s;
	return 0;
}

/* The generic hardware events have two perf names each; libpfm takes both. */
static const char *const aliases[][2] = {
    {"cpu-cycles", "cycles"},
    {"branch-instructions", "branches"},
};

static double lookup(const struct perf_count *counts, size_t n, const char *event)
{
	const char *alias = NULL;

	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(aliases[i][0], event) == 0)
			alias = aliases[i][1];
	for (size_t i = 0; i < n; i++)
		if (strcmp(counts[i].event, event) == 0 ||
		    (alias && strcmp(counts[i].event, alias) == 0))
			return counts[i].value;
	return NAN;
}

enum denominator {
	DEN_EVENT,	    /* num / den */
	DEN_EVENT_PLUS_NUM, /* num / (den + num) */
	DEN_OPS,	    /* num / the testcase's ops */
};

/* The formulas are the robot's, checked against its reports: the TLB and node miss rates
 * divide by accesses + misses (iTLB-load-misses 1.413e8 with iTLB-loads 2.339e8 gives its
 * 37.66%), cache-miss-rate% and branch-miss-rate% by the accesses alone, and MPKI counts
 * cache-references, not cache-misses, per 1000 instructions (its 2.36 is 4.423e8 references
 * over 1.872e11 instructions). */
static const struct metric_rule {
	const char *name;
	const char *num;
	const char *den;
	enum denominator kind;
	double scale;
} metric_rules[] = {
    {"ipc", "instructions", "cpu-cycles", DEN_EVENT, 1},
    {"cpi", "cpu-cycles", "instructions", DEN_EVENT, 1},
    {"cache-miss-rate%", "cache-misses", "cache-references", DEN_EVENT, 100},
    {"branch-miss-rate%", "branch-misses", "branch-instructions", DEN_EVENT, 100},
    {"dTLB-load-miss-rate%", "dTLB-load-misses", "dTLB-loads", DEN_EVENT_PLUS_NUM, 100},
    {"dTLB-store-miss-rate%", "dTLB-store-misses", "dTLB-stores", DEN_EVENT_PLUS_NUM, 100},
    {"iTLB-load-miss-rate%", "iTLB-load-misses", "iTLB-loads", DEN_EVENT_PLUS_NUM, 100},
    {"node-load-miss-rate%", "node-load-misses", "node-loads", DEN_EVENT_PLUS_NUM, 100},
    {"node-store-miss-rate%", "node-store-misses", "node-stores", DEN_EVENT_PLUS_NUM, 100},
    {"MPKI", "cache-references", "instructions", DEN_EVENT, 1000},
    {"cycles-between-cache-misses", "cpu-cycles", "cache-misses", DEN_EVENT, 1},
    {"instructions-per-iTLB-miss", "instructions", "iTLB-load-misses", DEN_EVENT, 1},
    /* Not LKP's path-length: that divides the run's instructions by will-it-scale.workload,
     * a sum of ops/s, which is not per op; this is the figure it was meant to be. */
    {"instructions-per-op", "instructions", NULL, DEN_OPS, 1},
};

_Static_assert(sizeof(metric_rules) / sizeof(metric_rules[0]) <= PERF_MAX_METRICS,
	       "PERF_MAX_METRICS too small");

size_t perf_derive_metrics(const struct perf_count *counts, size_t n, double ops,
			   struct perf_metric *out)
{
	size_t nr_out = 0;

	for (size_t i = 0; i < sizeof(metric_rules) / sizeof(metric_rules[0]); i++) {
		const struct metric_rule *r = &metric_rules[i];
		double num = lookup(counts, n, r->num), den, v;

		if (r->kind == DEN_OPS)
			den = ops;
		else
			den = lookup(counts, n, r->den);
		if (r->kind == DEN_EVENT_PLUS_NUM)
			den += num;
		if (isnan(num) || isnan(den) || den <= 0)
			continue;
		v = r->scale * num / den;
		if (!isfinite(v))
			continue;
		out[nr_out].name = r->name;
		out[nr_out].value = v;
		nr_out++;
	}
	return nr_out;
}

/* perf's generic-rate rule applies to an event with no metric of its own. */
static bool has_own_perf_metric(const char *event)
{
	static const char *const own[] = {
	    "cpu-clock",	    "task-clock",	     "instructions",
	    "cpu-cycles",	    "cycles",		     "branch-misses",
	    "cache-misses",	    "dTLB-load-misses",	     "iTLB-load-misses",
	    "L1-dcache-load-misses", "L1-icache-load-misses", "LLC-load-misses",
	    "stalled-cycles-frontend", "stalled-cycles-backend",
	};

	for (size_t i = 0; i < sizeof(own) / sizeof(*own); i++)
		if (strcmp(own[i], event) == 0)
			return true;
	return false;
}

static const char *const unit_names[] = {"metric.GHz", "metric.K/sec", "metric.M/sec",
					 "metric.G/sec"};

size_t perf_unit_metrics(const char *const *events, size_t nr_events, const double *deltas,
			 const double *dt_s, size_t nr_intervals, double min_dt_s,
			 struct perf_metric *out)
{
	enum { NR_UNITS = sizeof(unit_names) / sizeof(*unit_names) };
	bool short_only = all_short(dt_s, nr_intervals, min_dt_s);
	double sum[NR_UNITS] = {0};
	size_t nr = 0, nr_out = 0;

	for (size_t k = 0; k < nr_intervals; k++) {
		const double *row = deltas + k * nr_events;
		double clock = 0;
		unsigned nr_clocks = 0;

		if (!long_enough(dt_s, k, min_dt_s, short_only))
			continue;
		nr++;
		for (size_t e = 0; e < nr_events; e++)
			if ((!strcmp(events[e], "task-clock") || !strcmp(events[e], "cpu-clock")) &&
			    !isnan(row[e])) {
				clock += row[e];
				nr_clocks++;
			}
		if (!nr_clocks || clock <= 0)
			continue;
		clock = clock / nr_clocks * 1e6; /* the deltas hold the clocks in msec, as perf */
		for (size_t e = 0; e < nr_events; e++) {
			double rate;
			unsigned u = 0;

			if (isnan(row[e]))
				continue;
			if (!strcmp(events[e], "cpu-cycles") || !strcmp(events[e], "cycles")) {
				sum[0] += row[e] / clock;
				continue;
			}
			if (has_own_perf_metric(events[e]))
				continue;
			/* perf's convert_unit_double: strictly above each step */
			rate = 1e9 * row[e] / clock;
			while (u < 3 && rate > 1000.0) {
				rate /= 1000.0;
				u++;
			}
			if (u)
				sum[u] += rate;
		}
	}
	for (size_t u = 0; nr && u < NR_UNITS; u++) {
		if (sum[u] == 0)
			continue;
		out[nr_out].name = unit_names[u];
		out[nr_out].value = sum[u] / nr;
		nr_out++;
	}
	return nr_out;
}

size_t perf_interval_metrics(const char *const *events, size_t nr_events, const double *deltas,
			     const double *dt_s, size_t nr_intervals, double min_dt_s,
			     struct perf_metric *out)
{
	enum { NR_RULES = sizeof(metric_rules) / sizeof(metric_rules[0]) };
	bool short_only = all_short(dt_s, nr_intervals, min_dt_s);
	struct perf_count *counts = calloc(nr_events ? nr_events : 1, sizeof(*counts));
	double sum[NR_RULES] = {0};
	size_t nr[NR_RULES] = {0}, nr_out = 0;

	if (!counts)
		return 0;
	for (size_t k = 0; k < nr_intervals; k++) {
		struct perf_metric m[PERF_MAX_METRICS];
		size_t nr_m;

		if (!long_enough(dt_s, k, min_dt_s, short_only))
			continue;
		for (size_t e = 0; e < nr_events; e++) {
			counts[e].event = events[e];
			counts[e].value = deltas[k * nr_events + e];
		}
		nr_m = perf_derive_metrics(counts, nr_events, 0, m);
		/* perf_derive_metrics keeps the rule order, so match names by rule. */
		for (size_t j = 0, r = 0; j < nr_m; j++) {
			while (metric_rules[r].name != m[j].name)
				r++;
			sum[r] += m[j].value;
			nr[r]++;
		}
	}
	free(counts);
	for (size_t r = 0; r < NR_RULES; r++) {
		if (!nr[r])
			continue;
		out[nr_out].name = metric_rules[r].name;
		out[nr_out].value = sum[r] / nr[r];
		nr_out++;
	}
	return nr_out;
}
