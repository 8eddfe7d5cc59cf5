/* runner/lkp_sweep: LKP's task counts, runtest.py's table, and programs/will-it-scale/parse's
 * stats of it, checked against lkp-tests' own parse run on the same tables
 * (tests/fixtures/lkp-sweep, regenerate.sh there). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../runner/lkp_sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIX "tests/fixtures/lkp-sweep/"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		fail_msg("cannot open %s (run from the repository root)", path);
	FILE *m = open_memstream(&buf, &len);
	int c;

	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

/* LKP's "name: value" lines against scalebench's stats of the same table: the same names
 * (with the suite's prefix), the same values. */
static void check_against_lkp(const char *base, json_t **out)
{
	char path[256];
	struct lkp_sweep_point *pts;
	size_t n;
	json_t *stats = json_object();
	size_t lkp_names = 0;

	snprintf(path, sizeof(path), FIX "%s.output", base);
	char *table = slurp(path);

	assert_int_equal(lkp_sweep_read(table, &pts, &n), 0);
	lkp_sweep_stats(pts, n, "will-it-scale", stats);
	snprintf(path, sizeof(path), FIX "%s.lkp", base);
	char *lkp = slurp(path);

	for (char *line = strtok(lkp, "\n"); line; line = strtok(NULL, "\n")) {
		char *colon = strstr(line, ": "), name[128];
		json_t *v;

		assert_non_null(colon);
		*colon = '\0';
		snprintf(name, sizeof(name), "will-it-scale.%s", line);
		v = json_object_get(stats, name);
		if (!v)
			fail_msg("%s: LKP's %s missing", base, name);
		double want = strtod(colon + 2, NULL), got = json_number_value(v);

		if (fabs(want - got) > 1e-9 * fmax(1, fabs(want)))
			fail_msg("%s: %s: LKP %.9g, scalebench %.9g", base, name, want, got);
		lkp_names++;
	}
	assert_int_equal(json_object_size(stats), lkp_names);
	free(table);
	free(lkp);
	free(pts);
	if (out)
		*out = stats;
	else
		json_decref(stats);
}

static void test_edge_table(void **state)
{
	(void)state;
	check_against_lkp("edge", NULL);
}

/* A real sweep run: its output's table reduces to LKP's parse of it, and the stats.json the
 * run stored holds exactly those values. */
static void test_real_run(void **state)
{
	json_t *stats, *stored, *v;
	json_error_t e;
	const char *k;

	(void)state;
	check_against_lkp("page_fault3", &stats);
	stored = json_load_file(FIX "page_fault3.stats.json", 0, &e);
	assert_non_null(stored);
	json_object_foreach (stats, k, v) {
		json_t *s = json_object_get(stored, k);

		if (!s)
			fail_msg("stored stats.json lacks %s", k);
		assert_true(fabs(json_number_value(s) - json_number_value(v)) <= 1e-9);
	}
	json_decref(stats);
	json_decref(stored);
}

/* Real runs at one task count, one per mode: LKP's parse of their output's table gives the
 * N.* family, and the stats.json each run stored holds it with the same values, and LKP's
 * per_<mode>_ops and workload too (scalebench's, not truncated to an integer: within 1).  The
 * one line of LKP's it does not store is the other mode's per_*_ops, 0. */
static void check_plain_run(const char *base, const char *other_mode_stat)
{
	char path[256];
	struct lkp_sweep_point *pts;
	size_t n, family = 0, in_lkp = 0;
	json_t *stats = json_object(), *stored;
	json_error_t e;

	snprintf(path, sizeof(path), FIX "%s.output", base);
	char *table = slurp(path);

	assert_int_equal(lkp_sweep_read(table, &pts, &n), 0);
	assert_int_equal(n, 2); /* the "0,0,100,..." line and the run's */
	assert_false(lkp_point_stats(&pts[0], "will-it-scale", stats));
	assert_true(lkp_point_stats(&pts[1], "will-it-scale", stats));
	snprintf(path, sizeof(path), FIX "%s.stats.json", base);
	stored = json_load_file(path, 0, &e);
	assert_non_null(stored);
	snprintf(path, sizeof(path), FIX "%s.lkp", base);
	char *lkp = slurp(path);

	for (char *line = strtok(lkp, "\n"); line; line = strtok(NULL, "\n")) {
		char *colon = strstr(line, ": "), name[128];
		json_t *mine, *kept;

		assert_non_null(colon);
		*colon = '\0';
		snprintf(name, sizeof(name), "will-it-scale.%s", line);
		double want = strtod(colon + 2, NULL);

		in_lkp++;
		mine = json_object_get(stats, name);
		kept = json_object_get(stored, name);
		if (!strcmp(line, other_mode_stat)) {
			assert_true(want == 0 && !kept);
			continue;
		}
		if (!kept)
			fail_msg("%s: stored stats.json lacks LKP's %s", base, name);
		if (mine) {
			family++;
			if (want != json_number_value(mine) || want != json_number_value(kept))
				fail_msg("%s: %s: LKP %.9g, scalebench %.9g, stored %.9g", base, name,
					 want, json_number_value(mine), json_number_value(kept));
		} else if (fabs(want - json_number_value(kept)) >= 1) {
			fail_msg("%s: %s: LKP %.9g, stored %.9g", base, name, want,
				 json_number_value(kept));
		}
	}
	assert_int_equal(family, 5);
	assert_int_equal(json_object_size(stats), 5);
	assert_int_equal(json_object_size(stored), in_lkp - 1);
	free(table);
	free(lkp);
	free(pts);
	json_decref(stats);
	json_decref(stored);
}

static void test_plain_runs(void **state)
{
	(void)state;
	check_plain_run("plain-process", "per_thread_ops");
	check_plain_run("plain-thread", "per_process_ops");
}

/* setup_threads_to_iterate, read from lkp-tests' lib/sysinfo.sh, on machines of the kind the
 * robot names its stats for. */
static void check_tasks(struct lkp_topology t, const unsigned *want, size_t nwant)
{
	unsigned *v;
	size_t n;

	assert_int_equal(lkp_threads_to_iterate(&t, &v, &n), 0);
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(v[i], want[i]);
	free(v);
}

static void test_task_counts(void **state)
{
	(void)state;
	/* this 2-CPU VM: cores_per_llc 2/1, cores_per_node 2 */
	check_tasks((struct lkp_topology){2, 1, 1, 2, 1}, (unsigned[]){1, 2}, 2);
	/* 2 sockets x 56 cores x SMT2 (224 CPUs): 1, 56 (per LLC and per node), 112, 168, 224 */
	check_tasks((struct lkp_topology){224, 2, 2, 112, 2}, (unsigned[]){1, 56, 112, 168, 224},
		    5);
	/* 4 CPUs, one node, no SMT, L2 per core, one L3: 1, 4, 3 (3/4), 4 */
	check_tasks((struct lkp_topology){4, 1, 1, 4, 1}, (unsigned[]){1, 3, 4}, 3);
	/* no L3: the cores_per_llc point (a division by zero in LKP's shell) is left out */
	check_tasks((struct lkp_topology){8, 1, 2, 4, 0}, (unsigned[]){1, 4, 6, 8}, 4);
	/* 1 CPU */
	check_tasks((struct lkp_topology){1, 1, 1, 1, 1}, (unsigned[]){1}, 1);
	/* cores_per_node 0: LKP's "Invalid nr_cpu" */
	unsigned *v;
	size_t n;

	assert_int_equal(lkp_threads_to_iterate(&(struct lkp_topology){1, 2, 1, 1, 1}, &v, &n), -1);
}

static void test_point_runtime(void **state)
{
	(void)state;
	/* runtime 300, one node: 300 / 4 / 2 - 5 = 32 s */
	assert_true(lkp_sweep_point_runtime(300, 1) == 32);
	/* two nodes: 300 / 5 / 2 - 5 = 25 */
	assert_true(lkp_sweep_point_runtime(300, 2) == 25);
	/* short runtimes: at least 5 s, as LKP */
	assert_true(lkp_sweep_point_runtime(20, 1) == 5);
	assert_true(lkp_sweep_point_runtime(1, 1) == 5);
}

static void test_table_round_trip(void **state)
{
	struct lkp_sweep_point p = {.tasks = 2,
				    .processes = 100,
				    .threads = 90,
				    .linear = 200,
				    .processes_idle = 12.345,
				    .threads_idle = 0.004};
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct lkp_sweep_point *v;
	size_t n;

	(void)state;
	lkp_sweep_header(m);
	lkp_sweep_line(m, &p);
	fclose(m);
	assert_string_equal(buf, "tasks,processes,processes_idle,threads,threads_idle,linear\n"
				 "0,0,100,0,100,0\n2,100,12.35,90,0.00,200\n");
	assert_int_equal(lkp_sweep_read(buf, &v, &n), 0);
	/* the 0 line is read (parse skips it when computing) */
	assert_int_equal(n, 2);
	assert_int_equal(v[1].tasks, 2);
	assert_int_equal(v[1].linear, 200);
	free(v);
	free(buf);
}

static void test_cpu_ticks(void **state)
{
	const char *stat = "cpu  100 0 50 1000 10 0 0 0 0 0\n"
			   "cpu0 60 0 30 400 5 0 0 0 0 0\n"
			   "cpu1 40 0 20 600 5 0 0 0 0 0\n"
			   "intr 1 2 3\n";
	const char *later = "cpu  200 0 50 1100 10 0 0 0 0 0\n"
			    "cpu0 160 0 30 400 5 0 0 0 0 0\n"
			    "cpu1 40 0 20 700 5 0 0 0 0 0\n";
	struct cpu_ticks a, b;
	const int cpu0[] = {0}, both[] = {0, 1};

	(void)state;
	assert_int_equal(lkp_cpu_ticks(stat, NULL, 0, &a), 0);
	assert_int_equal(a.idle, 1010);
	assert_int_equal(a.busy, 150);
	/* copy 0's CPU: fully busy over the window */
	assert_int_equal(lkp_cpu_ticks(stat, cpu0, 1, &a), 0);
	assert_int_equal(lkp_cpu_ticks(later, cpu0, 1, &b), 0);
	assert_true(lkp_idle_percent(&a, &b) == 0);
	/* both CPUs: half idle */
	assert_int_equal(lkp_cpu_ticks(stat, both, 2, &a), 0);
	assert_int_equal(lkp_cpu_ticks(later, both, 2, &b), 0);
	assert_true(fabs(lkp_idle_percent(&a, &b) - 50) < 1e-9);
	/* no such CPU */
	assert_int_equal(lkp_cpu_ticks(stat, (const int[]){7}, 1, &a), -1);
	/* no tick between the readings */
	assert_true(lkp_idle_percent(&a, &a) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_edge_table),	     cmocka_unit_test(test_real_run),
	    cmocka_unit_test(test_plain_runs),
	    cmocka_unit_test(test_task_counts),	     cmocka_unit_test(test_point_runtime),
	    cmocka_unit_test(test_table_round_trip), cmocka_unit_test(test_cpu_ticks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
