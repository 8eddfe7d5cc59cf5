/* Unit tests of the perf-stat monitor: multiplex scaling, the i/ps/total reductions, the derived
 * metrics (checked against the robot's own numbers), event pairing, and real windows on this
 * machine with and without a hardware PMU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../monitors/monitor.h"
#include "../../monitors/perf_events.h"
#include "../../monitors/perf_metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FIXTURES "tests/fixtures/perf_stat"

extern const struct monitor mon_perf_stat;

static const struct perf_metric *find_metric(const struct perf_metric *m, size_t n,
					     const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(m[i].name, name) == 0)
			return &m[i];
	return NULL;
}

static double metric(const struct perf_metric *m, size_t n, const char *name)
{
	const struct perf_metric *p = find_metric(m, n, name);

	if (!p)
		fail_msg("metric %s missing", name);
	return p->value;
}

static void test_derived_metrics(void **state)
{
	const struct perf_count counts[] = {
	    {"cpu-cycles", 4000},	{"instructions", 2000},	      {"cache-references", 500},
	    {"cache-misses", 100},	{"branch-instructions", 400}, {"branch-misses", 8},
	    {"dTLB-loads", 900},	{"dTLB-load-misses", 100},    {"dTLB-stores", 300},
	    {"dTLB-store-misses", 100}, {"iTLB-loads", 30},	      {"iTLB-load-misses", 10},
	    {"node-loads", 60},		{"node-load-misses", 40},     {"node-stores", 95},
	    {"node-store-misses", 5},	{"page-faults", 7},
	};
	struct perf_metric m[PERF_MAX_METRICS];
	size_t n;
	(void)state;

	n = perf_derive_metrics(counts, sizeof(counts) / sizeof(counts[0]), 50, m);
	assert_int_equal(n, 13);
	assert_float_equal(metric(m, n, "ipc"), 0.5, 1e-12);
	assert_float_equal(metric(m, n, "cpi"), 2.0, 1e-12);
	assert_float_equal(metric(m, n, "cache-miss-rate%"), 20.0, 1e-12);
	assert_float_equal(metric(m, n, "branch-miss-rate%"), 2.0, 1e-12);
	/* TLB and node rates: misses over accesses + misses, as the robot. */
	assert_float_equal(metric(m, n, "dTLB-load-miss-rate%"), 10.0, 1e-12);
	assert_float_equal(metric(m, n, "dTLB-store-miss-rate%"), 25.0, 1e-12);
	assert_float_equal(metric(m, n, "iTLB-load-miss-rate%"), 25.0, 1e-12);
	assert_float_equal(metric(m, n, "node-load-miss-rate%"), 40.0, 1e-12);
	assert_float_equal(metric(m, n, "node-store-miss-rate%"), 5.0, 1e-12);
	/* MPKI: cache-references per 1000 instructions, as the robot. */
	assert_float_equal(metric(m, n, "MPKI"), 250.0, 1e-12);
	assert_float_equal(metric(m, n, "cycles-between-cache-misses"), 40.0, 1e-12);
	assert_float_equal(metric(m, n, "instructions-per-iTLB-miss"), 200.0, 1e-12);
	/* per op: not LKP's path-length, which divides by an ops/s figure */
	assert_float_equal(metric(m, n, "instructions-per-op"), 40.0, 1e-12);
	assert_null(find_metric(m, n, "path-length"));
}

/* The robot's page_fault3 report (../shared/reference/robot-report-page_fault3.txt): its
 * ps.* counts must give back its overall.* ratios to the digits it prints. */
static void test_metrics_match_robot_report(void **state)
{
	const struct perf_count ps[] = {
	    {"branch-instructions", 3.793e10}, {"branch-misses", 3.037e8},
	    {"cache-misses", 2.726e8},	       {"cache-references", 4.423e8},
	    {"instructions", 1.872e11},	       {"iTLB-loads", 2.33e8},
	    {"iTLB-load-misses", 1.407e8},     {"node-loads", 29662127},
	    {"node-load-misses", 1449665},     {"node-stores", 66047901},
	    {"node-store-misses", 12344092},   {"dTLB-stores", 3.02e10},
	    {"dTLB-store-misses", 1.068e9},
	};
	struct perf_metric m[PERF_MAX_METRICS];
	size_t n;
	(void)state;

	n = perf_derive_metrics(ps, sizeof(ps) / sizeof(ps[0]), 0, m);
	assert_float_equal(metric(m, n, "MPKI"), 2.36, 0.005);
	assert_float_equal(metric(m, n, "branch-miss-rate%"), 0.80, 0.005);
	assert_float_equal(metric(m, n, "cache-miss-rate%"), 61.65, 0.05);
	assert_float_equal(metric(m, n, "iTLB-load-miss-rate%"), 37.66, 0.05);
	assert_float_equal(metric(m, n, "node-load-miss-rate%"), 4.66, 0.005);
	assert_float_equal(metric(m, n, "node-store-miss-rate%"), 15.75, 0.05);
	assert_float_equal(metric(m, n, "dTLB-store-miss-rate%"), 3.41, 0.01);
	assert_float_equal(metric(m, n, "instructions-per-iTLB-miss"), 1330, 5);
}

static void test_missing_inputs_emit_nothing(void **state)
{
	const struct perf_count only_sw[] = {{"page-faults", 100}, {"cpu-clock", 5}};
	const struct perf_count partial[] = {
	    {"instructions", 1000},  {"cpu-cycles", NAN},     {"cache-misses", 10},
	    {"cache-references", 0}, {"iTLB-load-misses", 4},
	};
	const struct perf_count aliased[] = {
	    {"cycles", 300}, {"instructions", 600}, {"branches", 50}, {"branch-misses", 5}};
	struct perf_metric m[PERF_MAX_METRICS];
	size_t n;
	(void)state;

	assert_int_equal(perf_derive_metrics(only_sw, 2, 1000, m), 0);
	/* cycles not counted, references 0, no iTLB-loads, ops unknown: only MPKI (0/1000)
	 * and instructions-per-iTLB-miss remain. */
	n = perf_derive_metrics(partial, 5, 0, m);
	assert_int_equal(n, 2);
	assert_float_equal(metric(m, n, "MPKI"), 0.0, 1e-12);
	assert_float_equal(metric(m, n, "instructions-per-iTLB-miss"), 250.0, 1e-12);
	assert_null(find_metric(m, n, "ipc"));
	assert_null(find_metric(m, n, "cache-miss-rate%"));
	assert_null(find_metric(m, n, "instructions-per-op"));
	/* perf's other spellings of the same events. */
	n = perf_derive_metrics(aliased, 4, 0, m);
	assert_float_equal(metric(m, n, "ipc"), 2.0, 1e-12);
	assert_float_equal(metric(m, n, "branch-miss-rate%"), 10.0, 1e-12);
}

static void test_scaling(void **state)
{
	double scaled = 0, factor = 0;
	(void)state;

	assert_int_equal(perf_scale(1000, 500, 500, &scaled, &factor), 0);
	assert_float_equal(scaled, 1000, 1e-9);
	assert_float_equal(factor, 1, 1e-12);
	/* On the PMU half the time: the count doubles. */
	assert_int_equal(perf_scale(1000, 2000, 1000, &scaled, &factor), 0);
	assert_float_equal(scaled, 2000, 1e-9);
	assert_float_equal(factor, 2, 1e-12);
	assert_int_equal(perf_scale(300, 4000, 1000, &scaled, NULL), 0);
	assert_float_equal(scaled, 1200, 1e-9);
	/* Never on the PMU: no count at all, not zero. */
	scaled = -1;
	assert_int_equal(perf_scale(0, 1000, 0, &scaled, &factor), -1);
	assert_float_equal(scaled, -1, 0);
	/* Running a hair past enabled never scales a count down. */
	assert_int_equal(perf_scale(1000, 999, 1000, &scaled, &factor), 0);
	assert_float_equal(scaled, 1000, 1e-9);
}

static void test_reduce_uneven_intervals(void **state)
{
	/* 0.5 s with 100, 2 s with 1000, 1 s with 300: rates 200, 500, 300. */
	const double dt[] = {0.5, 2.0, 1.0};
	const double delta[] = {100, 1000, 300};
	const double skipped[] = {100, NAN, 300};
	const double none[] = {NAN, NAN, NAN};
	struct perf_series s;
	(void)state;

	assert_int_equal(perf_reduce_series(dt, delta, 3, 0, &s), 0);
	assert_float_equal(s.total, 1400, 1e-9);
	assert_float_equal(s.seconds, 3.5, 1e-12);
	assert_float_equal(s.per_s, 400, 1e-9);
	assert_float_equal(s.mean_rate, (200 + 500 + 300) / 3.0, 1e-9);
	assert_int_equal(s.nr_counted, 3);
	/* A sliver shorter than half an interval is out of the mean, not of the total. */
	assert_int_equal(perf_reduce_series(dt, delta, 3, 0.6, &s), 0);
	assert_float_equal(s.mean_rate, 400, 1e-9);
	assert_float_equal(s.per_s, 400, 1e-9);
	/* All short: then they are all there is. */
	assert_int_equal(perf_reduce_series(dt, delta, 3, 5, &s), 0);
	assert_float_equal(s.mean_rate, (200 + 500 + 300) / 3.0, 1e-9);
	/* Not counted in the middle interval: left out of both. */
	assert_int_equal(perf_reduce_series(dt, skipped, 3, 0, &s), 0);
	assert_float_equal(s.total, 400, 1e-9);
	assert_float_equal(s.per_s, 400 / 1.5, 1e-9);
	assert_float_equal(s.mean_rate, 250, 1e-9);
	assert_int_equal(s.nr_counted, 2);
	assert_int_equal(perf_reduce_series(dt, none, 3, 0, &s), -1);
}

static void test_interval_metrics(void **state)
{
	const char *const events[] = {"cpu-cycles", "instructions", "page-faults"};
	/* ipc 0.5, then 2.0, then not counted; the short last one is left out. */
	const double deltas[] = {
	    1000, 500,	3, /* */
	    100,  200,	4, /* */
	    NAN,  NAN,	5, /* */
	    10,	  1000, 6,
	};
	const double dt[] = {1.0, 1.0, 1.0, 0.1};
	struct perf_metric m[PERF_MAX_METRICS];
	size_t n;
	(void)state;

	n = perf_interval_metrics(events, 3, deltas, dt, 4, 0.5, m);
	assert_int_equal(n, 2);
	assert_float_equal(metric(m, n, "ipc"), 1.25, 1e-12);
	assert_float_equal(metric(m, n, "cpi"), 1.25, 1e-12);
	n = perf_interval_metrics(events, 3, deltas, dt, 4, 0, m);
	assert_float_equal(metric(m, n, "ipc"), (0.5 + 2 + 100) / 3, 1e-12);
}

static void test_cpu_list(void **state)
{
	int *cpus = NULL;
	size_t n = 0;
	(void)state;

	assert_int_equal(perf_parse_cpu_list("0-3,8,10-11\n", &cpus, &n), 0);
	assert_int_equal(n, 7);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[3], 3);
	assert_int_equal(cpus[4], 8);
	assert_int_equal(cpus[6], 11);
	free(cpus);
	assert_int_equal(perf_parse_cpu_list("5", &cpus, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(cpus[0], 5);
	free(cpus);
	assert_int_equal(perf_parse_cpu_list("", &cpus, &n), -1);
	assert_int_equal(perf_parse_cpu_list("3-1", &cpus, &n), -1);
	assert_int_equal(perf_parse_cpu_list("0,x", &cpus, &n), -1);
}

static size_t index_of(const struct perf_event_set *set, const char *name)
{
	for (size_t i = 0; i < set->nr_events; i++)
		if (strcmp(set->ev[i].name, name) == 0)
			return i;
	fail_msg("event %s not in the set", name);
	return 0;
}

/* Pairing works on the encodings, so it is testable without a PMU. */
static void test_groups(void **state)
{
	const char *const names[] = {"instructions", "page-faults",	 "cycles",
				     "dTLB-loads",   "dTLB-load-misses", "dTLB-store-misses",
				     "dTLB-stores",  "cache-misses",	 "no-such-event"};
	const int cpus[] = {0};
	struct perf_event_set set;
	char err[256];
	size_t ins, cyc;
	(void)state;

	assert_int_equal(perf_pfm_init(err, sizeof(err)), 0);
	assert_int_equal(perf_set_init(&set, names, 9, cpus, 1), 0);
	ins = index_of(&set, "instructions");
	cyc = index_of(&set, "cycles");
	/* Whichever comes first leads. */
	assert_int_equal(set.ev[ins].leader, ins);
	assert_int_equal(set.ev[cyc].leader, ins);
	assert_int_equal(set.ev[cyc].slot, 1);
	assert_int_equal(set.ev[index_of(&set, "dTLB-load-misses")].leader,
			 index_of(&set, "dTLB-loads"));
	assert_int_equal(set.ev[index_of(&set, "dTLB-stores")].leader,
			 index_of(&set, "dTLB-store-misses"));
	/* Software events and unpaired ones lead themselves. */
	assert_int_equal(set.ev[index_of(&set, "page-faults")].leader,
			 index_of(&set, "page-faults"));
	assert_int_equal(set.ev[index_of(&set, "cache-misses")].leader,
			 index_of(&set, "cache-misses"));
	assert_false(set.ev[index_of(&set, "no-such-event")].encoded);
	assert_true(set.ev[index_of(&set, "page-faults")].encoded);
	assert_false(set.ev[index_of(&set, "page-faults")].hardware);
	assert_true(set.ev[ins].hardware);
	perf_set_free(&set);
}

/* Whether this machine has a hardware PMU: can it count cycles on CPU 0? */
static bool have_pmu(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	fd = perf_event_open(&attr, -1, 0, -1, 0);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};

	nanosleep(&ts, NULL);
}

/* Page faults and context switches while the window is open. */
static void some_work(void)
{
	for (int i = 0; i < 20; i++) {
		char *p = malloc(1 << 20);

		if (p) {
			memset(p, i, 1 << 20);
			free(p);
		}
		sleep_s(0.01);
	}
}

static int start_capturing(struct monitor_ctx *ctx, char *err, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), ret;
	size_t n;

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), 2) >= 0);
	ret = mon_perf_stat.start(ctx);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(err, 1, len - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
	return ret;
}

struct window {
	struct monitor_ctx ctx;
	json_t *options, *stats;
	int start_ret;
	struct timespec t0;
	double t_end_s;
	char err[2048]; /* what start wrote on stderr */
};

static void window_open(struct window *w, const char *options, const char *sys_root)
{
	memset(w, 0, sizeof(*w));
	w->options = options ? json_loads(options, 0, NULL) : NULL;
	if (options)
		assert_non_null(w->options);
	w->ctx.name = "perf-stat";
	w->ctx.options = w->options;
	w->ctx.interval_s = 0.25;
	w->ctx.nr_cpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	w->ctx.proc_root = "/proc";
	w->ctx.sys_root = sys_root;
	w->ctx.raw = json_array();
	w->ctx.meta = json_object();
	w->stats = json_object();
	w->start_ret = start_capturing(&w->ctx, w->err, sizeof(w->err));
	clock_gettime(CLOCK_MONOTONIC, &w->t0);
}

static double since_start(const struct window *w)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - w->t0.tv_sec) + (t.tv_nsec - w->t0.tv_nsec) / 1e9;
}

/* A ~0.5 s window sampled half way, reduced. */
static void window_run(struct window *w, uint64_t ops)
{
	assert_int_equal(w->start_ret, 0);
	some_work();
	assert_int_equal(mon_perf_stat.sample(&w->ctx, since_start(w)), 0);
	some_work();
	w->t_end_s = since_start(w);
	assert_int_equal(mon_perf_stat.stop(&w->ctx, w->t_end_s), 0);
	w->ctx.window_ops = ops;
	w->ctx.window_s = w->t_end_s;
	assert_int_equal(mon_perf_stat.reduce(&w->ctx, w->stats), 0);
}

static void window_close(struct window *w)
{
	mon_perf_stat.cleanup(&w->ctx);
	assert_null(w->ctx.priv);
	json_decref(w->options);
	json_decref(w->ctx.raw);
	json_decref(w->ctx.meta);
	json_decref(w->stats);
}

static double stat(const struct window *w, const char *name)
{
	const json_t *v = json_object_get(w->stats, name);

	if (!json_is_number(v))
		fail_msg("stat %s missing", name);
	return json_number_value(v);
}

static const char *unsupported_reason(const struct window *w, const char *event)
{
	const json_t *list = json_object_get(w->ctx.meta, "unsupported"), *e;
	size_t i;

	json_array_foreach (list, i, e)
		if (strcmp(json_string_value(json_object_get(e, "event")), event) == 0)
			return json_string_value(json_object_get(e, "reason"));
	return NULL;
}

static void test_real_window_default_events(void **state)
{
	long nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	const json_t *sample;
	struct window w;
	(void)state;

	window_open(&w, NULL, FIXTURES "/sys");
	window_run(&w, 1000);

	/* Software events work everywhere. */
	assert_true(stat(&w, "perf-stat.ps.page-faults") > 0);
	assert_true(stat(&w, "perf-stat.i.page-faults") > 0);
	assert_true(stat(&w, "perf-stat.ps.context-switches") > 0);
	assert_true(json_is_number(json_object_get(w.stats, "perf-stat.ps.minor-faults")));
	/* cpu-clock in msec per second, summed over every CPU: about 1000 per CPU. */
	assert_float_equal(stat(&w, "perf-stat.ps.cpu-clock"), 1000.0 * nr_cpus, 250.0 * nr_cpus);

	if (have_pmu()) {
		assert_true(stat(&w, "perf-stat.ps.instructions") > 0);
		assert_true(stat(&w, "perf-stat.total.instructions") > 0);
		assert_true(stat(&w, "perf-stat.overall.ipc") > 0);
		assert_true(stat(&w, "perf-stat.i.ipc") > 0);
		assert_float_equal(stat(&w, "perf-stat.overall.instructions-per-op"),
				   stat(&w, "perf-stat.total.instructions") / 1000, 1e-6);
		assert_null(unsupported_reason(&w, "cpu-cycles"));
	} else {
		const char *reason = unsupported_reason(&w, "cpu-cycles");

		assert_non_null(reason);
		assert_non_null(strstr(reason, "perf_event_open"));
		assert_non_null(unsupported_reason(&w, "instructions"));
		assert_null(unsupported_reason(&w, "page-faults"));
		assert_null(json_object_get(w.stats, "perf-stat.ps.instructions"));
		assert_null(json_object_get(w.stats, "perf-stat.overall.ipc"));
		assert_null(json_object_get(w.stats, "perf-stat.i.ipc"));
		assert_null(json_object_get(w.stats, "perf-stat.overall.instructions-per-op"));
		assert_non_null(strstr(w.err, "scalebench: perf-stat: not supported here: "
					      "cpu-cycles, instructions, cache-references,"));
		assert_non_null(strstr(w.err, "node-store-misses (no hardware PMU?)\n"));
		assert_null(strstr(w.err, "page-faults"));
		assert_ptr_equal(strchr(w.err, '\n'), w.err + strlen(w.err) - 1);
	}
	/* Two raw samples, each with its time and the software counts. */
	assert_int_equal(json_array_size(w.ctx.raw), 2);
	sample = json_array_get(w.ctx.raw, 1);
	assert_float_equal(json_number_value(json_object_get(sample, "t_s")), w.t_end_s, 1e-12);
	assert_true(json_is_number(json_object_get(sample, "page-faults")));
	assert_true(json_is_number(json_object_get(sample, "cpu-clock")));
	/* The raw deltas add up to what ps reports. */
	assert_float_equal(
	    stat(&w, "perf-stat.ps.page-faults") * w.t_end_s,
	    json_number_value(json_object_get(json_array_get(w.ctx.raw, 0), "page-faults")) +
		json_number_value(json_object_get(sample, "page-faults")),
	    1e-3);
	window_close(&w);
}

static void test_unknown_event(void **state)
{
	const char *reason;
	struct window w;
	(void)state;

	window_open(&w, "{\"events\": [\"no-such-event\", \"page-faults\"]}", "/sys");
	window_run(&w, 0);
	reason = unsupported_reason(&w, "no-such-event");
	assert_non_null(reason);
	assert_non_null(strstr(reason, "libpfm"));
	assert_non_null(strstr(reason, pfm_strerror(PFM_ERR_NOTFOUND)));
	assert_true(stat(&w, "perf-stat.ps.page-faults") > 0);
	assert_null(unsupported_reason(&w, "page-faults"));
	assert_int_equal(json_object_size(w.stats), 2);
	/* One line, and no PMU hint: page-faults works, the name is just unknown. */
	assert_string_equal(w.err, "scalebench: perf-stat: not supported here: no-such-event\n");
	window_close(&w);
}

static void test_events_option_forms(void **state)
{
	struct window w;
	(void)state;

	/* One string, commas and spaces, a duplicate. */
	window_open(&w, "{\"events\": \" page-faults, context-switches,page-faults \"}", "/sys");
	window_run(&w, 0);
	assert_int_equal(json_object_size(w.stats), 4);
	assert_true(stat(&w, "perf-stat.ps.context-switches") > 0);
	assert_null(json_object_get(w.ctx.meta, "unsupported"));
	assert_string_equal(w.err, "");
	window_close(&w);

	window_open(&w, "{\"events\": 3}", "/sys");
	assert_int_equal(w.start_ret, -1);
	assert_non_null(strstr(w.ctx.note, "events"));
	window_close(&w);

	window_open(&w, "{\"events\": [\"page-faults\", 7]}", "/sys");
	assert_int_equal(w.start_ret, -1);
	assert_non_null(strstr(w.ctx.note, "events[1]"));
	window_close(&w);

	window_open(&w, "{\"events\": \" , \"}", "/sys");
	assert_int_equal(w.start_ret, -1);
	window_close(&w);
}

/* A CPU in the online list that cannot be opened takes the event out on every CPU. */
static void test_event_failing_on_one_cpu(void **state)
{
	const char *reason;
	struct window w;
	(void)state;

	window_open(&w, "{\"events\": \"page-faults\"}", FIXTURES "/sys-extra-cpu");
	assert_int_equal(w.start_ret, MONITOR_UNAVAILABLE);
	reason = unsupported_reason(&w, "page-faults");
	assert_non_null(reason);
	assert_non_null(strstr(reason, "CPU 4000"));
	assert_non_null(strstr(w.ctx.note, "page-faults"));
	window_close(&w);
}

/* Unprivileged with perf_event_paranoid > 0, nothing can be counted on every CPU: the monitor
 * steps aside and says which knob to turn. */
static void test_no_permission(void **state)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int paranoid = 0, status;
	pid_t pid;
	(void)state;

	if (!f || fscanf(f, "%d", &paranoid) != 1 || geteuid() != 0 || paranoid <= 0) {
		if (f)
			fclose(f);
		skip();
	}
	fclose(f);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct window w;
		char want[64];
		int ok;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		window_open(&w, NULL, "/sys");
		snprintf(want, sizeof(want), "(it is %d)", paranoid);
		ok = w.start_ret == MONITOR_UNAVAILABLE &&
		     strstr(w.ctx.note, "/proc/sys/kernel/perf_event_paranoid") &&
		     strstr(w.ctx.note, want);
		if (!ok)
			fprintf(stderr, "start %d, note: %s\n", w.start_ret, w.ctx.note);
		mon_perf_stat.cleanup(&w.ctx);
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_registered(void **state)
{
	(void)state;
	assert_ptr_equal(monitor_find("perf-stat"), &mon_perf_stat);
	assert_true(mon_perf_stat.is_default);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_derived_metrics),
	    cmocka_unit_test(test_metrics_match_robot_report),
	    cmocka_unit_test(test_missing_inputs_emit_nothing),
	    cmocka_unit_test(test_scaling),
	    cmocka_unit_test(test_reduce_uneven_intervals),
	    cmocka_unit_test(test_interval_metrics),
	    cmocka_unit_test(test_cpu_list),
	    cmocka_unit_test(test_groups),
	    cmocka_unit_test(test_real_window_default_events),
	    cmocka_unit_test(test_unknown_event),
	    cmocka_unit_test(test_events_option_forms),
	    cmocka_unit_test(test_event_failing_on_one_cpu),
	    cmocka_unit_test(test_no_permission),
	    cmocka_unit_test(test_registered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
