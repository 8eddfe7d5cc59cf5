/* What runs declare about their stats (meta.json: suite, headline, families) and the rules for
 * runs that declare nothing, read through analyze/results.h; and a comparison that follows
 * them: roles, the headline's direction, any number of groups, any number of runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../analyze/compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[] = "/tmp/test_roles.XXXXXX";

/* A new-style run: a suite whose headline is a latency (lower is better). */
static const char new_meta[] =
    "{\"suite\": \"lat\", \"mode\": \"process\", \"testcase\": \"ping\", "
    "\"headline\": {\"stat\": \"lat.p99_us\", \"direction\": \"lower\"}, "
    "\"families\": {\"lat\": \"headline\", \"perf-stat\": \"monitor\", "
    "\"custommon\": \"monitor\", \"oops\": \"failure\", \"proc-vmstat\": \"monitor\"}}";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A commit directory <root>/<name> of nruns runs; stats is a printf format with one %g, the
 * run's value; meta may be NULL (no meta.json). */
static void make_group(const char *name, size_t nruns, const char *meta, const char *stats,
		       const double *values)
{
	char path[4096], text[4096];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	assert_int_equal(mkdir(path, 0755), 0);
	for (size_t r = 0; r < nruns; r++) {
		snprintf(path, sizeof(path), "%s/%s/%zu", root, name, r);
		assert_int_equal(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/%s/%zu/stats.json", root, name, r);
		snprintf(text, sizeof(text), stats, values[r]);
		write_file(path, text);
		if (meta) {
			snprintf(path, sizeof(path), "%s/%s/%zu/meta.json", root, name, r);
			write_file(path, meta);
		}
	}
}

static void load(const char *name, struct result_group *g)
{
	char path[4096], err[1024];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	if (group_load(path, g, err, sizeof(err)))
		fail_msg("%s", err);
}

static const double five[] = {100, 101, 99, 100.5, 99.5};
static const double five_up[] = {120, 121, 119, 120.5, 119.5};

static int setup(void **state)
{
	char cmd[4200];

	(void)state;
	assert_non_null(mkdtemp(root));
	make_group("new-a", 5, new_meta,
		   "{\"lat.p99_us\": %g, \"lat.score\": 1, \"perf-stat.ps.cpu-cycles\": 5, "
		   "\"custommon.wait_latency\": 3, \"oops.BUG\": 0, \"proc-vmstat.numa_miss\": 2, "
		   "\"undeclared.x_ops\": 4, \"dmesg.WARNING\": 0}",
		   five);
	make_group("new-b", 5, new_meta,
		   "{\"lat.p99_us\": %g, \"lat.score\": 1, \"perf-stat.ps.cpu-cycles\": 5, "
		   "\"custommon.wait_latency\": 3, \"oops.BUG\": 1, \"proc-vmstat.numa_miss\": 2, "
		   "\"undeclared.x_ops\": 4, \"dmesg.WARNING\": 0}",
		   five_up);
	make_group("old-thread", 5, "{\"mode\": \"thread\", \"testcase\": \"page_fault3\"}",
		   "{\"will-it-scale.per_thread_ops\": %g, \"perf-stat.ps.cpu-cycles\": 5, "
		   "\"dmesg.WARNING\": 0, \"kmsg.x\": 0, \"stderr.y\": 0, \"last_state.z\": 0, "
		   "\"time.user_time\": 1}",
		   five);
	make_group("no-meta", 2, NULL, "{\"will-it-scale.per_thread_ops\": %g}", five);
	make_group("none", 2, NULL, "{\"x.y\": %g}", five);
	make_group("bad-meta", 2,
		   "{\"mode\": \"process\", \"headline\": {\"stat\": \"\"}, "
		   "\"families\": {\"will-it-scale\": \"primary\", \"perf-stat\": 7}}",
		   "{\"will-it-scale.per_process_ops\": %g, \"perf-stat.ps.cpu-cycles\": 5}", five);
	make_group("no-direction", 2,
		   "{\"headline\": {\"stat\": \"x.elapsed_time\"}, \"families\": {\"x\": "
		   "\"headline\"}}",
		   "{\"x.elapsed_time\": %g}", five);
	snprintf(cmd, sizeof(cmd), "test -d %s", root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[4200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static void test_declared(void **state)
{
	struct result_group g;

	(void)state;
	load("new-a", &g);
	assert_string_equal(group_headline_stat(&g, 1), "lat.p99_us");
	assert_int_equal(group_headline_direction(&g, 1), DIR_LOWER_BETTER);
	assert_int_equal(group_stat_role(&g, 1, "lat.p99_us"), ROLE_HEADLINE);
	assert_int_equal(group_stat_role(&g, 1, "custommon.wait_latency"), ROLE_MONITOR);
	assert_int_equal(group_stat_role(&g, 1, "oops.BUG"), ROLE_FAILURE);
	/* a family the runs do not declare: the old rule */
	assert_int_equal(group_stat_role(&g, 1, "dmesg.WARNING"), ROLE_FAILURE);
	assert_int_equal(group_stat_role(&g, 1, "undeclared.x_ops"), ROLE_HEADLINE);
	/* the headline's direction from meta, every other stat's from its name and role */
	assert_int_equal(group_stat_direction(&g, 1, "lat.p99_us"), DIR_LOWER_BETTER);
	assert_int_equal(group_stat_direction(&g, 1, "custommon.wait_latency"), DIR_NEUTRAL);
	assert_int_equal(group_stat_direction(&g, 1, "perf-stat.ps.cpu-cycles"), DIR_LOWER_BETTER);
	assert_int_equal(group_stat_direction(&g, 1, "undeclared.x_ops"), DIR_HIGHER_BETTER);
	group_free(&g);
}

static void test_undeclared(void **state)
{
	struct result_group g;

	(void)state;
	/* runs stored before meta.json declared anything: the headline by mode */
	load("old-thread", &g);
	assert_string_equal(group_headline_stat(&g, 1), "will-it-scale.per_thread_ops");
	assert_int_equal(group_headline_direction(&g, 1), DIR_HIGHER_BETTER);
	assert_int_equal(group_stat_role(&g, 1, "will-it-scale.per_thread_ops"), ROLE_HEADLINE);
	assert_int_equal(group_stat_role(&g, 1, "perf-stat.ps.cpu-cycles"), ROLE_MONITOR);
	assert_int_equal(group_stat_role(&g, 1, "time.user_time"), ROLE_MONITOR);
	assert_int_equal(group_stat_direction(&g, 1, "time.user_time"), DIR_NEUTRAL);
	for (const char *const *f =
		 (const char *const[]){"dmesg.WARNING", "kmsg.x", "stderr.y", "last_state.z", NULL};
	     *f; f++)
		assert_int_equal(group_stat_role(&g, 1, *f), ROLE_FAILURE);
	group_free(&g);

	/* no meta.json at all: whichever per-copy stat the runs have */
	load("no-meta", &g);
	assert_string_equal(group_headline_stat(&g, 1), "will-it-scale.per_thread_ops");
	group_free(&g);
	load("none", &g);
	assert_null(group_headline_stat(&g, 1));
	assert_int_equal(group_headline_direction(&g, 1), DIR_NEUTRAL);
	group_free(&g);

	/* words that are not roles, an empty headline: as if undeclared */
	load("bad-meta", &g);
	assert_string_equal(group_headline_stat(&g, 1), "will-it-scale.per_process_ops");
	assert_int_equal(group_stat_role(&g, 1, "will-it-scale.per_process_ops"), ROLE_HEADLINE);
	assert_int_equal(group_stat_role(&g, 1, "perf-stat.ps.cpu-cycles"), ROLE_MONITOR);
	group_free(&g);

	/* a declared headline without a direction: its name decides */
	load("no-direction", &g);
	assert_string_equal(group_headline_stat(&g, 1), "x.elapsed_time");
	assert_int_equal(group_headline_direction(&g, 1), DIR_LOWER_BETTER);
	group_free(&g);
}

static void test_first_declaring_group(void **state)
{
	struct result_group g[2];

	(void)state;
	/* an old base against a new group: the new group's declarations decide */
	load("none", &g[0]);
	load("new-a", &g[1]);
	assert_string_equal(group_headline_stat(g, 2), "lat.p99_us");
	assert_int_equal(group_headline_direction(g, 2), DIR_LOWER_BETTER);
	assert_int_equal(group_stat_role(g, 2, "custommon.wait_latency"), ROLE_MONITOR);
	group_free(&g[0]);
	group_free(&g[1]);
}

static const struct stat_row *row(const struct comparison *c, const char *name)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(c->rows[i].name, name))
			return &c->rows[i];
	fail_msg("no row %s", name);
	return NULL;
}

static const struct compare_opts opts = {
    .rule = RULE_STATS, .threshold_pct = 1, .threshold_abs = 0.1, .q_max = 0.05, .alpha = 0.05};

static void test_compare_follows_meta(void **state)
{
	struct result_group g[2];
	struct comparison c;
	char err[256];
	const struct stat_row *r;

	(void)state;
	load("new-a", &g[0]);
	load("new-b", &g[1]);
	assert_int_equal(compare_groups(g, 2, &opts, &c, err, sizeof(err)), 0);
	assert_string_equal(c.headline_stat, "lat.p99_us");
	/* the latency went up 20%: lower is better, so a regression, and the exit status */
	r = row(&c, "lat.p99_us");
	assert_true(r->headline);
	assert_int_equal(r->dir, DIR_LOWER_BETTER);
	assert_int_equal(r->verdict[1], V_REGRESSION);
	assert_true(comparison_regressed(&c));
	r = row(&c, "custommon.wait_latency");
	assert_false(r->headline);
	assert_int_equal(r->dir, DIR_NEUTRAL);
	r = row(&c, "oops.BUG");
	assert_true(r->failure);
	assert_int_equal(r->fails[1], 5);
	comparison_free(&c);

	/* the other way round: an improvement, nothing regressed */
	assert_int_equal(
	    compare_groups((struct result_group[]){g[1], g[0]}, 2, &opts, &c, err, sizeof(err)), 0);
	assert_int_equal(row(&c, "lat.p99_us")->verdict[1], V_IMPROVEMENT);
	assert_false(comparison_regressed(&c));
	comparison_free(&c);
	group_free(&g[0]);
	group_free(&g[1]);
}

static void test_no_caps(void **state)
{
	enum { NGROUPS = 12, NRUNS = 80 };
	struct result_group g[NGROUPS];
	struct comparison c;
	double values[NRUNS];
	char name[32], err[256];

	(void)state;
	/* 12 groups (more than the 8 there were room for) of 80 runs (more than the 64 the
	 * outlier check had room for) with one outlier each */
	for (size_t k = 0; k < NGROUPS; k++) {
		for (size_t r = 0; r < NRUNS; r++)
			values[r] = 1000 + (double)k + (double)(r % 7) - (r == 3 ? 500 : 0);
		snprintf(name, sizeof(name), "many-%02zu", k);
		make_group(name, NRUNS, NULL, "{\"will-it-scale.per_process_ops\": %g}", values);
		load(name, &g[k]);
	}
	assert_int_equal(compare_groups(g, NGROUPS, &opts, &c, err, sizeof(err)), 0);
	assert_int_equal(c.nrows, 1);
	for (size_t k = 1; k < NGROUPS; k++) {
		assert_int_equal(c.rows[0].sum[k].n, NRUNS);
		/* the outlier sends the test to the trimmed one, at any number of runs */
		assert_int_equal(c.rows[0].test[k], TEST_YUEN_LOG);
	}
	comparison_free(&c);
	assert_int_equal(compare_groups(g, 1, &opts, &c, err, sizeof(err)), -1);
	for (size_t k = 0; k < NGROUPS; k++)
		group_free(&g[k]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_declared),
	    cmocka_unit_test(test_undeclared),
	    cmocka_unit_test(test_first_declaring_group),
	    cmocka_unit_test(test_compare_follows_meta),
	    cmocka_unit_test(test_no_caps),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
