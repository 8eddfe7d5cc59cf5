/* The monitors against LKP itself: tests/fixtures/lkp-stats/raw holds /proc files captured on a
 * real machine as LKP's monitors write them ("time: <epoch>", then the file, once a second),
 * and lkp/stats.json what lkp-tests' parse scripts, sbin/dump-stat and create_stats_matrix made
 * of them (regenerate.sh).  Each reading is laid out here as a proc_root tree, scalebench's
 * monitors read the trees in turn (start, samples, stop) and reduce, and their stats must be
 * LKP's: the same names and the same values, family by family, except the deliberate
 * differences listed below (also in the README's Monitors section). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../monitors/monitor.h"
#include "../../monitors/perf_metrics.h"
#include "../../monitors/procfs.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Where scalebench differs from LKP on purpose: a stat-name prefix, what differs, and why. */
static const struct difference {
	const char *prefix;
	/* values not compared / name on one side only / scalebench may leave out what LKP has */
	enum { DIFF_VALUE, DIFF_NAME, DIFF_ZERO } what;
	const char *why;
} differences[] = {
    {"vmstat.", DIFF_VALUE,
     "LKP averages vmstat(8)'s rows, the first of which is the average since boot; scalebench "
     "gives the window's rates and shares from /proc/stat, /proc/vmstat and /proc/meminfo"},
    {"vmstat.", DIFF_ZERO,
     "a column that is 0 over the window (cpu.id of a busy window) is left out, while LKP's "
     "since-boot row can make it non-zero"},
    {"vmstat.cpu.gu", DIFF_NAME, "procps 4's guest column: scalebench counts guest time in us"},
    {"proc-stat.", DIFF_NAME,
     "lkp-tests has a proc-stat monitor but no parse script: LKP makes no proc-stat stats"},
    {"time.", DIFF_VALUE,
     "LKP's come from /usr/bin/time -v around its whole test script, scalebench's from the "
     "rusage of the testcase's processes; percent_of_cpu_this_job_got is not rounded to %"},
    {"time.average_", DIFF_NAME, "0 on Linux (dropped by LKP): rusage has no such fields"},
    {"time.swaps", DIFF_NAME, "0 on Linux (dropped by LKP)"},
    {"time.socket_messages_", DIFF_NAME, "0 on Linux (dropped by LKP)"},
    {"time.signals_delivered", DIFF_NAME, "the signals sent to /usr/bin/time's child: none"},
    {"time.exit_status", DIFF_NAME, "a failed copy is a failure stat in scalebench"},
    /* perf-stat (test_perf_stat compares i.* only) */
    {"perf-stat.ps.", DIFF_VALUE,
     "LKP divides the reported intervals' counts by a time that includes perf's last, "
     "unreported interval; scalebench by the time the counts cover"},
    {"perf-stat.overall.path-length", DIFF_NAME,
     "LKP's is total instructions / will-it-scale.workload, an ops/s sum, not per op; "
     "scalebench's per-op figure is perf-stat.overall.instructions-per-op"},
    {"perf-stat.overall.instructions-per-op", DIFF_NAME, "see path-length"},
    {"perf-stat.overall.MPKI", DIFF_VALUE,
     "cache-references per 1000 instructions, as the robot's published reports show it; "
     "lkp-tests' parse at HEAD divides cache-misses: the reports win"},
};

static const struct difference *difference_of(const char *stat, int what)
{
	const struct difference *best = NULL;

	/* the longest matching prefix decides, so that time.average_ (names) refines time. */
	for (size_t i = 0; i < sizeof(differences) / sizeof(*differences); i++)
		if (differences[i].what == (unsigned)what &&
		    strncmp(stat, differences[i].prefix, strlen(differences[i].prefix)) == 0 &&
		    (!best || strlen(differences[i].prefix) > strlen(best->prefix)))
			best = &differences[i];
	return best;
}

static char fixtures[4096];
static char trees[64];
static unsigned nr_readings;
static json_t *lkp_stats;

/* The raw files, each the monitor LKP names it after and the /proc file it is. */
static const struct {
	const char *monitor, *file;
} raw_files[] = {
    {"meminfo", "meminfo"},	  {"proc-vmstat", "vmstat"},	{"slabinfo", "slabinfo"},
    {"proc-stat", "stat"},	  {"interrupts", "interrupts"}, {"softirqs", "softirqs"},
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, n;
	char chunk[65536];

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		char *nb = realloc(buf, len + n + 1);

		if (!nb) {
			free(buf);
			fclose(f);
			return NULL;
		}
		buf = nb;
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* Splits raw/<monitor> at its "time:" lines into <trees>/<i>/proc/<file>. */
static unsigned split_raw(const char *monitor, const char *file)
{
	char path[4200];
	char *text, *p;
	unsigned n = 0;
	FILE *out = NULL;

	snprintf(path, sizeof(path), "%s/raw/%s", fixtures, monitor);
	text = slurp(path);
	if (!text)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	for (p = text; *p;) {
		char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (strncmp(p, "time:", 5) == 0) {
			if (out)
				fclose(out);
			snprintf(path, sizeof(path), "%s/%u", trees, n);
			mkdir(path, 0755);
			snprintf(path, sizeof(path), "%s/%u/proc", trees, n);
			mkdir(path, 0755);
			snprintf(path, sizeof(path), "%s/%u/proc/%s", trees, n, file);
			out = fopen(path, "w");
			if (!out)
				fail_msg("cannot write %s: %s", path, strerror(errno));
			n++;
		} else if (out) {
			fwrite(p, 1, len, out);
		}
		p += len;
	}
	if (out)
		fclose(out);
	free(text);
	return n;
}

static int setup(void **state)
{
	char exe[4096], path[4200];
	struct stat st;
	ssize_t n;
	json_error_t jerr;

	(void)state;
	if (stat("tests/fixtures/lkp-stats/lkp", &st) == 0) {
		snprintf(fixtures, sizeof(fixtures), "tests/fixtures/lkp-stats");
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n < 0)
			return -1;
		exe[n] = '\0';
		snprintf(fixtures, sizeof(fixtures), "%s/../../../tests/fixtures/lkp-stats",
			 dirname(exe));
	}
	snprintf(path, sizeof(path), "%s/lkp/stats.json", fixtures);
	lkp_stats = json_load_file(path, 0, &jerr);
	if (!lkp_stats) {
		fprintf(stderr, "%s: %s\n", path, jerr.text);
		return -1;
	}
	snprintf(trees, sizeof(trees), "/tmp/sb-lkpstats-XXXXXX");
	if (!mkdtemp(trees))
		return -1;
	for (size_t i = 0; i < sizeof(raw_files) / sizeof(*raw_files); i++) {
		unsigned r = split_raw(raw_files[i].monitor, raw_files[i].file);

		if (i && r != nr_readings) {
			fprintf(stderr, "raw/%s has %u readings, the others %u\n",
				raw_files[i].monitor, r, nr_readings);
			return -1;
		}
		nr_readings = r;
	}
	return nr_readings >= 3 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	json_decref(lkp_stats);
	if (!trees[0] || strncmp(trees, "/tmp/sb-lkpstats-", 17) != 0)
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", trees);
	return system(cmd) == 0 ? 0 : -1;
}

/* The monitor over every reading, as the runner drives it. */
static json_t *run_monitor(const char *name)
{
	const struct monitor *m = monitor_find(name);
	struct monitor_ctx ctx = {0};
	char root[4][128];
	json_t *stats = json_object();

	if (!m)
		fail_msg("monitor %s is not registered", name);
	ctx.name = m->name;
	ctx.interval_s = 1;
	ctx.nr_cpus = 2;
	ctx.sys_root = "/nonexistent";
	ctx.raw = json_array();
	ctx.meta = json_object();
	for (unsigned i = 0; i < nr_readings; i++) {
		snprintf(root[i % 4], sizeof(root[0]), "%s/%u/proc", trees, i);
		ctx.proc_root = root[i % 4];
		if (i == 0)
			assert_int_equal(m->start(&ctx), 0);
		else if (i + 1 < nr_readings)
			assert_int_equal(m->sample(&ctx, i), 0);
		else
			assert_int_equal(m->stop(&ctx, i), 0);
	}
	assert_int_equal(m->reduce(&ctx, stats), 0);
	assert_string_equal(ctx.note, "");
	m->cleanup(&ctx);
	json_decref(ctx.raw);
	json_decref(ctx.meta);
	return stats;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Every <family>.* stat of LKP's is scalebench's, with the same value (unless a difference
 * says why not), and scalebench has none LKP lacks.  Returns the number of LKP's compared. */
static size_t compare_family(const char *family, const json_t *sb)
{
	char prefix[64];
	const char *key;
	json_t *v;
	size_t n = 0, bad = 0;

	snprintf(prefix, sizeof(prefix), "%s.", family);
	json_object_foreach (lkp_stats, key, v) {
		const json_t *mine = json_object_get(sb, key);
		double want = json_number_value(v), got;

		if (!has_prefix(key, prefix))
			continue;
		n++;
		if (!mine) {
			if (!difference_of(key, DIFF_NAME) && !difference_of(key, DIFF_ZERO)) {
				print_error("LKP has %s = %.17g, scalebench has not\n", key, want);
				bad++;
			}
			continue;
		}
		got = json_number_value(mine);
		if (difference_of(key, DIFF_VALUE))
			continue;
		if (fabs(got - want) > 1e-9 * fmax(1, fabs(want))) {
			print_error("%s: LKP %.17g, scalebench %.17g\n", key, want, got);
			bad++;
		}
	}
	json_object_foreach ((json_t *)sb, key, v) {
		if (has_prefix(key, prefix) && !json_object_get(lkp_stats, key) &&
		    !difference_of(key, DIFF_NAME)) {
			print_error("scalebench has %s = %.17g, LKP has not\n", key,
				    json_number_value(v));
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	return n;
}

static void test_family(const char *family, size_t at_least)
{
	json_t *sb = run_monitor(family);

	assert_true(compare_family(family, sb) >= at_least);
	json_decref(sb);
}

static void test_meminfo(void **state)
{
	(void)state;
	test_family("meminfo", 20);
	assert_non_null(json_object_get(lkp_stats, "meminfo.Memused"));
	assert_non_null(json_object_get(lkp_stats, "meminfo.max_used_kB"));
}

static void test_proc_vmstat(void **state)
{
	(void)state;
	test_family("proc-vmstat", 20);
	/* a level in LKP, not a counter (and not an nr_* key) */
	assert_non_null(json_object_get(lkp_stats, "proc-vmstat.workingset_nodes"));
}

static void test_slabinfo(void **state)
{
	(void)state;
	test_family("slabinfo", 100);
	assert_non_null(json_object_get(lkp_stats, "slabinfo.kmalloc-64.num_slabs"));
}

static void test_interrupts(void **state)
{
	(void)state;
	test_family("interrupts", 10);
}

static void test_softirqs(void **state)
{
	(void)state;
	test_family("softirqs", 10);
}

/* vmstat: LKP reads vmstat(8)'s output, scalebench the /proc files: names only. */
static void test_vmstat(void **state)
{
	(void)state;
	test_family("vmstat", 8);
}

static void test_proc_stat(void **state)
{
	json_t *sb = run_monitor("proc-stat");

	(void)state;
	assert_true(json_object_size(sb) > 0);
	assert_int_equal(compare_family("proc-stat", sb), 0);
	json_decref(sb);
}

/* time: names.  Every name scalebench gives is one LKP's programs/time/parse gives (or LKP's
 * .max of it); every name in LKP's stats is scalebench's unless a difference says why, or it
 * may be 0 for the child run here (then both leave it out). */
static void test_time(void **state)
{
	const struct monitor *m = monitor_find("time");
	struct monitor_ctx ctx = {0};
	json_t *stats = json_object();
	char path[4200], *parsed;
	static const char *const may_be_zero[] = {
	    "time.involuntary_context_switches", "time.file_system_inputs",
	    "time.file_system_outputs", "time.major_page_faults", NULL};
	const char *key;
	json_t *v;
	struct timespec t0, t1;
	pid_t pid;
	int status;

	(void)state;
	assert_non_null(m);
	ctx.name = "time";
	ctx.raw = json_array();
	ctx.meta = json_object();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(m->start(&ctx), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* user and system time, page faults, a voluntary switch */
		size_t len = 16 << 20;
		volatile char *mem = malloc(len);
		volatile unsigned long x = 0;

		for (size_t i = 0; mem && i < len; i += 4096)
			mem[i] = 1;
		for (unsigned long i = 0; i < 20000000; i++)
			x += i;
		for (int i = 0; i < 2000; i++)
			(void)getppid();
		usleep(10000);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ctx.run_elapsed_s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_int_equal(m->reduce(&ctx, stats), 0);
	m->cleanup(&ctx);

	snprintf(path, sizeof(path), "%s/lkp/time.parsed", fixtures);
	parsed = slurp(path);
	assert_non_null(parsed);
	json_object_foreach (stats, key, v) {
		char want[128];
		bool found = false;

		assert_true(has_prefix(key, "time."));
		if (strcmp(key, "time.elapsed_time.max") == 0)
			continue; /* LKP's etc/add-max-latency */
		snprintf(want, sizeof(want), "\n%s: ", key + 5);
		found = strstr(parsed, want) || (strncmp(parsed, want + 1, strlen(want + 1)) == 0);
		if (!found)
			print_error("scalebench has %s, LKP's time parse does not\n", key);
		assert_true(found);
	}
	json_object_foreach (lkp_stats, key, v) {
		bool ok = !has_prefix(key, "time.") || json_object_get(stats, key) ||
			  difference_of(key, DIFF_NAME);

		for (size_t i = 0; !ok && may_be_zero[i]; i++)
			ok = strcmp(key, may_be_zero[i]) == 0;
		if (!ok)
			print_error("LKP has %s, scalebench has not\n", key);
		assert_true(ok);
	}
	/* the two LKP names issue 14 found missing */
	assert_non_null(json_object_get(stats, "time.page_size"));
	assert_float_equal(json_number_value(json_object_get(stats, "time.elapsed_time.max")),
			   ctx.run_elapsed_s, 1e-9);
	free(parsed);
	json_decref(stats);
	json_decref(ctx.raw);
	json_decref(ctx.meta);
}

/* perf-stat: LKP parsed `perf stat -a -I 1000 -x ,` (raw/perf-stat); scalebench's reduction
 * of the same per-interval counts must give LKP's i.<event> and i.metric.<unit>.  LKP never
 * reports perf's last interval (its parse waits for the next timestamp), so neither does this;
 * a scalebench window ends with a reading, so its last interval is a whole one.  LKP's
 * ps.<event> divides the reported intervals' counts by a time that includes the unreported
 * one: not compared (scalebench divides by the time those counts cover). */
static void test_perf_stat(void **state)
{
	char path[4200], *text, *line, *save = NULL;
	const char *events[32];
	double deltas[64 * 32], dt_s[64], t_prev = 0, t_cur = -1;
	size_t nr_events = 0, nr_rows = 0, col = 0;
	struct perf_metric m[PERF_MAX_METRICS];
	size_t nr_m, compared = 0;
	const char *key;
	json_t *v;

	(void)state;
	snprintf(path, sizeof(path), "%s/raw/perf-stat", fixtures);
	text = slurp(path);
	assert_non_null(text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[8], *p = line, *comma;
		size_t nf = 0;
		double t;

		while (nf < 8) {
			f[nf++] = p;
			comma = strchr(p, ',');
			if (!comma)
				break;
			*comma = '\0';
			p = comma + 1;
		}
		if (nf < 7 || sscanf(f[0], "%lf", &t) != 1)
			continue; /* perf's version, the command line */
		if (t != t_cur) {
			if (t_cur >= 0) {
				assert_true(col == nr_events);
				dt_s[nr_rows] = t_cur - t_prev;
				t_prev = t_cur;
				nr_rows++;
			}
			assert_true(nr_rows < 64);
			t_cur = t;
			col = 0;
		}
		if (!nr_rows) {
			assert_true(nr_events < 32);
			events[nr_events++] = f[3];
		}
		assert_true(col < nr_events);
		assert_string_equal(events[col], f[3]);
		deltas[nr_rows * nr_events + col++] = strtod(f[1], NULL);
	}
	/* rows 0 .. nr_rows - 1 are complete; the one being read when the file ended is the
	 * last interval, which LKP does not report */
	assert_true(nr_rows >= 3 && nr_events >= 5);

	for (size_t e = 0; e < nr_events; e++) {
		double col_deltas[64];
		struct perf_series s;
		char name[128];
		const json_t *want;

		for (size_t k = 0; k < nr_rows; k++)
			col_deltas[k] = deltas[k * nr_events + e];
		assert_int_equal(perf_reduce_series(dt_s, col_deltas, nr_rows, 0.5, &s), 0);
		snprintf(name, sizeof(name), "perf-stat.i.%s", events[e]);
		want = json_object_get(lkp_stats, name);
		if (!want) {
			assert_float_equal(s.mean_rate, 0, 0); /* all 0: LKP dropped it */
			continue;
		}
		assert_float_equal(s.mean_rate, json_number_value(want),
				   1e-9 * fabs(json_number_value(want)));
		compared++;
	}
	/* LKP sums perf's printed figures, rounded to 3 decimals: 0.0005 each at most. */
	nr_m = perf_unit_metrics(events, nr_events, deltas, dt_s, nr_rows, 0.5, m);
	for (size_t j = 0; j < nr_m; j++) {
		char name[128];
		const json_t *want;

		snprintf(name, sizeof(name), "perf-stat.i.%s", m[j].name);
		want = json_object_get(lkp_stats, name);
		if (!want)
			print_error("scalebench has %s = %g, LKP has not\n", name, m[j].value);
		assert_non_null(want);
		assert_float_equal(m[j].value, json_number_value(want), 0.0005 * nr_events);
	}
	json_object_foreach (lkp_stats, key, v) {
		bool found = false;

		if (!has_prefix(key, "perf-stat.i.metric."))
			continue;
		for (size_t j = 0; j < nr_m; j++)
			found |= strcmp(key + strlen("perf-stat.i."), m[j].name) == 0;
		if (!found)
			print_error("LKP has %s, scalebench has not\n", key);
		assert_true(found);
		compared++;
	}
	assert_true(compared >= 6);
	free(text);
}

/* The units this machine cannot show (no PMU): GHz from cycles, G/sec, and /sec left out. */
static void test_perf_unit_rules(void **state)
{
	const char *const events[] = {"cpu-cycles",	  "task-clock",	      "cache-references",
				      "branch-misses",	  "context-switches", "page-faults"};
	/* two 1 s intervals of 2 CPUs: 2000 msec of task-clock each */
	const double deltas[] = {4e9, 2000, 3e9, 1e9, 500, 4000, /* */
				 2e9, 2000, 3e9, 1e9, 500, NAN};
	const double dt_s[] = {1, 1};
	struct perf_metric m[PERF_MAX_METRICS];
	size_t n;
	double ghz = NAN, g = NAN, k = NAN;

	(void)state;
	n = perf_unit_metrics(events, 6, deltas, dt_s, 2, 0.5, m);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(m[i].name, "metric.GHz"))
			ghz = m[i].value;
		else if (!strcmp(m[i].name, "metric.G/sec"))
			g = m[i].value;
		else if (!strcmp(m[i].name, "metric.K/sec"))
			k = m[i].value;
		else
			fail_msg("unexpected %s", m[i].name);
	}
	assert_int_equal(n, 3);
	assert_float_equal(ghz, (2.0 + 1.0) / 2, 1e-12);   /* cycles per ns of task-clock */
	assert_float_equal(g, 1.5, 1e-12);		    /* branch-misses: a ratio of its own */
	assert_float_equal(k, (2.0 + 0) / 2, 1e-12);	    /* 2000/s, then not counted */
	/* context-switches at 250/s print "/sec", which LKP does not take */
}

/* LKP's rule, by name. */
static void test_event_counter_rule(void **state)
{
	(void)state;
	assert_true(procfs_lkp_event_counter("proc-vmstat", "pgfault"));
	assert_true(procfs_lkp_event_counter("proc-vmstat", "nr_dirtied"));
	assert_true(procfs_lkp_event_counter("proc-vmstat", "numa_hit"));
	assert_false(procfs_lkp_event_counter("proc-vmstat", "workingset_nodes"));
	assert_false(procfs_lkp_event_counter("proc-vmstat", "workingset_refault_file"));
	assert_false(procfs_lkp_event_counter("proc-vmstat", "nr_free_pages"));
	assert_true(procfs_lkp_event_counter("interrupts", "CPU0.LOC:Local_timer_interrupts"));
	assert_false(procfs_lkp_event_counter("softirqs", "RCU"));
	assert_false(procfs_lkp_event_counter("meminfo", "MemFree"));
	assert_true(procfs_lkp_event_counter("numa-numastat", "node0.numa_hit"));
	assert_true(procfs_lkp_event_counter("numa-vmstat", "node12.pgfault"));
	assert_true(procfs_lkp_event_counter("numa-vmstat", "node0.nr_written"));
	assert_false(procfs_lkp_event_counter("numa-vmstat", "node0.nr_free_pages"));
	assert_false(procfs_lkp_event_counter("numa-vmstat", "nodex.pgfault"));
	assert_false(procfs_lkp_event_counter("proc", "vmstat.pg"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_meminfo),    cmocka_unit_test(test_proc_vmstat),
	    cmocka_unit_test(test_slabinfo),   cmocka_unit_test(test_interrupts),
	    cmocka_unit_test(test_softirqs),   cmocka_unit_test(test_vmstat),
	    cmocka_unit_test(test_proc_stat),  cmocka_unit_test(test_time),
	    cmocka_unit_test(test_perf_stat),  cmocka_unit_test(test_perf_unit_rules),
	    cmocka_unit_test(test_event_counter_rule),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
