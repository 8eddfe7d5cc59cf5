/* --rule lkp's pieces on hand-computed cases, each from lkp-tests' source (the commit in
 * tests/fixtures/lkp/lkp-tests.commit; file:line there).  The whole table is checked against
 * lkp-tests' own output by tests/e2e/test_lkp_golden.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../analyze/lkp.h"

#include <math.h>
#include <string.h>

static const char *const base_keys[] = {"suite.case.pass", NULL};

static bool has_key(const void *ctx, const char *key)
{
	(void)ctx;
	for (size_t i = 0; base_keys[i]; i++)
		if (!strcmp(base_keys[i], key))
			return true;
	return false;
}

/* Whether LKP reports name with head a against base b (both n runs), and its reason. */
static bool changed(const char *name, bool headline, const double *a, size_t na, const double *b,
		    size_t nb, char *why)
{
	struct lkp_rules *rules = lkp_rules_new();
	struct lkp_stat_in in = {.name = name,
				 .function = lkp_function_stat(name),
				 .headline = headline,
				 .base_has = true,
				 .base_has_family = true,
				 .base_has_key = has_key,
				 .a = a,
				 .na = na,
				 .b = b,
				 .nb = nb};
	bool r;

	assert_non_null(rules);
	r = lkp_stat_changed(rules, &in, why, 256);
	lkp_rules_free(rules);
	return r;
}

/* lib/statistics.rb:10-37: average over a compensated sum (Ruby's Array#sum), and
 * sample_variance is 1/n * sum: the population stddev, -1 below 2 values (compare.rb
 * calc_avg_stddev). */
static void test_average_stddev(void **state)
{
	(void)state;
	assert_true(fabs(lkp_stddev((const double[]){1, 2, 3, 4}, 4) - sqrt(1.25)) < 1e-12);
	assert_true(lkp_stddev((const double[]){5}, 1) == -1);
	/* [1e16, 1.0, -1e16].sum / 3.0 == 0.333... in Ruby; a naive sum gives 0 */
	assert_true(fabs(lkp_average((const double[]){1e16, 1, -1e16}, 3) - 1.0 / 3) < 1e-15);
}

/* compare.rb show_perf_change */
static void test_formats(void **state)
{
	char buf[64];

	(void)state;
	lkp_format_avg(446882.9, buf, sizeof(buf)); /* 'd' of a Float truncates */
	assert_string_equal(buf, "    446882");
	lkp_format_avg(263660773, buf, sizeof(buf)); /* > 100_000_000: '.4g' */
	assert_string_equal(buf, " 2.637e+08");
	lkp_format_avg(100000000, buf, sizeof(buf)); /* not above: 'd' */
	assert_string_equal(buf, " 100000000");
	lkp_format_avg(999.999, buf, sizeof(buf)); /* < 1000: '.2f' */
	assert_string_equal(buf, "   1000.00");
	lkp_format_avg(0.0021, buf, sizeof(buf));
	assert_string_equal(buf, "      0.00");
	lkp_format_stddev(2.1, 100, buf, sizeof(buf)); /* > 2 (%): shown, truncated */
	assert_string_equal(buf, " \u00b1  2%");
	lkp_format_stddev(2.0, 100, buf, sizeof(buf));
	assert_string_equal(buf, "      ");
	lkp_format_stddev(-1, 100, buf, sizeof(buf)); /* one run */
	assert_string_equal(buf, "      ");
	lkp_format_stddev(3, 0, buf, sizeof(buf)); /* mean 0: the stddev itself is compared */
	assert_string_equal(buf, " \u00b1  3%");
	lkp_format_change(-7.84, false, buf, sizeof(buf));
	assert_string_equal(buf, "      -7.8% ");
	lkp_format_change(123456, false, buf, sizeof(buf)); /* >= 100_000: '.2g' */
	assert_string_equal(buf, "  +1.2e+05% ");
	lkp_format_change(1.86, true, buf, sizeof(buf)); /* perf-profile, *%: a delta */
	assert_string_equal(buf, "      +1.9  ");
}

/* Ruby's printf rounds a value within its dtoa fast path's error bound of a tie half to even
 * on the digits (missing/dtoa.c "half"), where C rounds the binary value: checked against
 * ruby 3.1's output for each case. */
static void test_ruby_rounding(void **state)
{
	char buf[64];

	(void)state;
	lkp_format_avg(80.534999999999997, buf, sizeof(buf)); /* C: 80.53 */
	assert_string_equal(buf, "     80.54");
	lkp_format_avg(2.675, buf, sizeof(buf)); /* C: 2.67 */
	assert_string_equal(buf, "      2.68");
	lkp_format_avg(1.005, buf, sizeof(buf)); /* even: down, as C */
	assert_string_equal(buf, "      1.00");
	lkp_format_avg(945050000000.0, buf, sizeof(buf)); /* down to even keeps the zero */
	assert_string_equal(buf, " 9.450e+11");
	lkp_format_avg(945000000000.0, buf, sizeof(buf));
	assert_string_equal(buf, "  9.45e+11");
	lkp_format_change(0.35, true, buf, sizeof(buf)); /* C: +0.3 */
	assert_string_equal(buf, "      +0.4  ");
}

/* stats.rb:292 __function_stat? with etc/failure and etc/pass */
static void test_names(void **state)
{
	(void)state;
	assert_true(lkp_function_stat("dmesg.WARNING:at_mm/page_alloc.c:#__alloc_pages"));
	assert_true(lkp_function_stat("stress-ng.foo.fail"));
	assert_true(lkp_function_stat("suite.case.failures")); /* .+\.(error|warn|fail)[^_]*$ */
	assert_false(lkp_function_stat("suite.case.fail_count"));
	assert_false(lkp_function_stat("proc-vmstat.compact_fail"));
	assert_false(lkp_function_stat("will-it-scale.time.elapsed_time"));
	/* stats.rb:610 skip_stat?: stat-denylist, unless report-allowlist */
	assert_true(lkp_listed_out("interrupts.CPU0.LOC:Local_timer_interrupts"));
	assert_true(lkp_listed_out("softirqs.CPU0.RCU"));
	assert_true(lkp_listed_out("slabinfo.kmalloc-64.active_objs"));
	assert_false(lkp_listed_out("meminfo.Active"));
	assert_false(lkp_listed_out("proc-vmstat.pgfault"));
	assert_false(lkp_listed_out("will-it-scale.per_process_ops"));
	/* perf_metrics.rb: etc/perf-metrics-prefixes and -patterns */
	assert_true(lkp_perf_metric("proc-vmstat.pgfault", false));
	assert_true(lkp_perf_metric("vmstat.cpu.sy", false));
	assert_true(lkp_perf_metric("foo.time.elapsed_time", false)); /* ^(.*\.)?time..* */
	assert_false(lkp_perf_metric("meminfo.Active", false));
	assert_false(lkp_perf_metric("vmstat.memory.free", false));
	assert_true(lkp_perf_metric("suite.throughput", true));
}

/* changed_stat.rb:74-78 (no distance): min_b > mean_a && mean_b > max_a or the reverse,
 * "mean" being sorted[size / 2] (stats.rb:352 min_mean_max); then stats.rb:599 skip_small_change?
 */
static void test_rule(void **state)
{
	const double base[] = {100, 101, 102}, down[] = {90, 91, 92}, overlap[] = {99, 101.5, 103};
	char why[256];

	(void)state;
	assert_true(changed("suite.ops", true, down, 3, base, 3, why));
	assert_non_null(strstr(why, "ratio 1.11"));
	assert_false(changed("suite.ops", true, overlap, 3, base, 3, why));
	/* 2 runs a side: stats.rb:589 "at least one matrix has 3 samples" */
	assert_false(changed("suite.ops", true, down, 2, base, 2, why));
	assert_non_null(strstr(why, "fewer than 3 runs"));
	assert_true(changed("suite.ops", true, down, 2, base, 3, why));
	/* the upper median: of {1,2,3,4} it is 3, so a head of {2.5 x3} is not below it */
	assert_false(changed("suite.ops", true, (const double[]){3.5, 3.5, 3.5}, 3,
			     (const double[]){1, 2, 3, 4}, 4, why));
	/* +3%, separated: a perf metric passes ratio > 1.01, meminfo needs > 1.05 */
	const double b3[] = {1000000, 1000100, 1000200}, a3[] = {1030000, 1030100, 1030200};
	assert_true(changed("perf-stat.ps.cycles", false, a3, 3, b3, 3, why));
	assert_false(changed("meminfo.Active", false, a3, 3, b3, 3, why));
	assert_non_null(strstr(why, "not a perf metric"));
	/* +0.5%: ratio <= 1.01 for anyone */
	const double a05[] = {1005000, 1005100, 1005200};
	assert_false(changed("suite.ops", true, a05, 3, b3, 3, why));
	/* stats.rb:76 proc-vmstat/meminfo: max > 1000 */
	assert_false(changed("proc-vmstat.pgreuse", false, (const double[]){570, 575, 580}, 3,
			     (const double[]){635, 640, 645}, 3, why));
	assert_non_null(strstr(why, "max <= 1000"));
	/* perf-metrics-threshold.yaml .*vmstat.*nr_.*: 100 -> max >= 100 and delta >= 50 */
	assert_false(changed("proc-vmstat.nr_free_pages", false, (const double[]){59, 60, 61}, 3,
			     (const double[]){38, 39, 40}, 3, why));
	assert_true(changed("proc-vmstat.nr_free_pages", false, (const double[]){159, 160, 161}, 3,
			    (const double[]){98, 99, 100}, 3, why));
	/* vmstat.cpu.sy: 50 -> a change of 5 is below 25 */
	assert_false(changed("vmstat.cpu.sy", false, (const double[]){50, 50, 50}, 3,
			     (const double[]){44, 45, 45}, 3, why));
	/* interrupts: on the denylist whatever the change */
	assert_false(changed("interrupts.CPU0.LOC", false, (const double[]){40000, 40001, 40002}, 3,
			     b3, 3, why));
	/* stats.rb:522: the 5% perf-profile rule only for an Integer median */
	assert_true(changed("perf-profile.self.cycles-pp.x", false, (const double[]){7, 7, 7}, 3,
			    (const double[]){7, 7, 7}, 3, why));
	assert_false(changed("perf-profile.self.cycles-pp.x", false,
			     (const double[]){7.01, 7.01, 7.01}, 3,
			     (const double[]){7.01, 7.01, 7.01}, 3, why));
	/* failures: max differs (stats.rb:483), at any run count */
	assert_true(
	    changed("dmesg.WARNING:x", false, (const double[]){1}, 1, (const double[]){0}, 1, why));
	assert_false(changed("dmesg.WARNING:x", false, (const double[]){1, 0}, 2,
			     (const double[]){0, 1}, 2, why));
	/* stats.rb:572 skip_function_stat?: a .fail needs the .pass in the base */
	assert_true(changed("suite.case.fail", false, (const double[]){1, 1, 1}, 3,
			    (const double[]){0, 0, 0}, 3, why));
	assert_false(changed("suite.other.fail", false, (const double[]){1, 1, 1}, 3,
			     (const double[]){0, 0, 0}, 3, why));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_average_stddev), cmocka_unit_test(test_formats),
	    cmocka_unit_test(test_ruby_rounding),  cmocka_unit_test(test_names),
	    cmocka_unit_test(test_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
