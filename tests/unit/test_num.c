/* Unit tests of lib/num: every parser over one table of good and bad inputs, each row saying
 * what every parser must make of it, so the kinds cannot drift apart again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/num.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parameters every row is parsed with: counts up to 1000, numbers within +-1e6,
 * durations above 0 up to 30 days, percentages 0..100, tasks of 2 online CPUs. */
#define COUNT_MAX 1000
#define FLOAT_LIM 1e6
#define ONLINE	  2
#define TASK_MAX  4096

/* NO: the parser must refuse the input. */
#define NO NAN

struct row {
	const char *in;
	double count, flt, duration, percent, tasks;
	const char *taskspec; /* the counts, comma-separated, or NULL: refused */
};

static const struct row rows[] = {
    /* in		count	float	duration	percent	tasks	taskspec */
    {"5", 5, 5, 5, 5, 5, "5"},
    {"007", 7, 7, 7, 7, 7, "7"},
    {"0", 0, 0, NO, 0, NO, NULL},
    {"1000", 1000, 1000, 1000, NO, 1000, "1000"},
    {"1001", NO, 1001, 1001, NO, 1001, "1001"},
    {"4096", NO, 4096, 4096, NO, 4096, "4096"},
    {"4097", NO, 4097, 4097, NO, NO, NULL},
    {"0.5", NO, 0.5, 0.5, 0.5, NO, NULL},
    {"0.0000001", NO, 1e-7, NO, 1e-7, NO, NULL},
    {"0.000001", NO, 1e-6, 1e-6, 1e-6, NO, NULL},
    {"1%", NO, NO, NO, 1, 1, "1"},
    {"50%", NO, NO, NO, 50, 1, "1"},
    {"100%", NO, NO, NO, 100, 2, "2"},
    {"150%", NO, NO, NO, NO, 3, "3"},
    {"0%", NO, NO, NO, 0, NO, NULL},
    {"5.5%", NO, NO, NO, 5.5, NO, NULL},
    {"99999999999%", NO, NO, NO, NO, NO, NULL},
    {"%", NO, NO, NO, NO, NO, NULL},
    {"5%%", NO, NO, NO, NO, NO, NULL},
    {"nan", NO, NO, NO, NO, NO, NULL},
    {"-nan", NO, NO, NO, NO, NO, NULL},
    {"NaN", NO, NO, NO, NO, NO, NULL},
    {"inf", NO, NO, NO, NO, NO, NULL},
    {"-inf", NO, NO, NO, NO, NO, NULL},
    {"infinity", NO, NO, NO, NO, NO, NULL},
    {"1e999", NO, NO, NO, NO, NO, NULL},
    {"1e-999", NO, NO, NO, NO, NO, NULL},
    {"1e3", NO, 1000, NO, NO, NO, NULL},
    {"1e7", NO, NO, NO, NO, NO, NULL},
    {"0x10", NO, NO, NO, NO, NO, NULL},
    {"5s", NO, NO, 5, NO, NO, NULL},
    {"5m", NO, NO, 300, NO, NO, NULL},
    {"1.5h", NO, NO, 5400, NO, NO, NULL},
    {"2d", NO, NO, 172800, NO, NO, NULL},
    {"30d", NO, NO, 2592000, NO, NO, NULL},
    {"31d", NO, NO, NO, NO, NO, NULL},
    {"5x", NO, NO, NO, NO, NO, NULL},
    {"5ss", NO, NO, NO, NO, NO, NULL},
    {"s", NO, NO, NO, NO, NO, NULL},
    {"-1", NO, -1, NO, NO, NO, NULL},
    {"-0.5", NO, -0.5, NO, NO, NO, NULL},
    {"+5", NO, NO, NO, NO, NO, NULL},
    {"18446744073709551615", NO, NO, NO, NO, NO, NULL},
    {"18446744073709551616", NO, NO, NO, NO, NO, NULL},
    {"", NO, NO, NO, NO, NO, NULL},
    {" ", NO, NO, NO, NO, NO, NULL},
    {" 5", NO, NO, NO, NO, NO, NULL},
    {"5 ", NO, NO, NO, NO, NO, NULL},
    {"5.", NO, NO, NO, NO, NO, NULL},
    {".5", NO, NO, NO, NO, NO, NULL},
    {"1.2.3", NO, NO, NO, NO, NO, NULL},
    {"abc", NO, NO, NO, NO, NO, NULL},
    {"1,2,4", NO, NO, NO, NO, NO, "1,2,4"},
    {"4,1,2,1", NO, NO, NO, NO, NO, "1,2,4"},
    {"1-8", NO, NO, NO, NO, NO, "1,2,3,4,5,6,7,8"},
    {"1-100%", NO, NO, NO, NO, NO, "1,2"},
    {"1,50%,100%", NO, NO, NO, NO, NO, "1,2"},
    {"1%-2", NO, NO, NO, NO, NO, "1,2"},
    {"3-1", NO, NO, NO, NO, NO, NULL},
    {"1-4097", NO, NO, NO, NO, NO, NULL},
    {"0-2", NO, NO, NO, NO, NO, NULL},
    {"1,", NO, NO, NO, NO, NO, NULL},
    {",1", NO, NO, NO, NO, NO, NULL},
    {"1,,2", NO, NO, NO, NO, NO, NULL},
    {"1-", NO, NO, NO, NO, NO, NULL},
    {"-3", NO, -3, NO, NO, NO, NULL},
    {"1-2-3", NO, NO, NO, NO, NO, NULL},
    {"2.5", NO, 2.5, 2.5, 2.5, NO, NULL},
    {"1, 2", NO, NO, NO, NO, NO, NULL},
};

/* A refusal must name the input, quoted, and say what was expected. */
static void check_refusal(const char *parser, const char *in, int ret, const char *err)
{
	char quoted[256];

	snprintf(quoted, sizeof(quoted), "'%s'", in);
	if (ret != -1)
		fail_msg("%s accepted '%s'", parser, in);
	if (!strstr(err, quoted) || (!strstr(err, "expected") && !strstr(err, "maximum")))
		fail_msg("%s refused '%s' with '%s': the value or what was expected is missing",
			 parser, in, err);
}

static void check_value(const char *parser, const char *in, int ret, const char *err, double got,
			double want)
{
	if (ret != 0)
		fail_msg("%s refused '%s': %s", parser, in, err);
	if (fabs(got - want) > 1e-12 * fabs(want))
		fail_msg("%s('%s') = %.17g, expected %.17g", parser, in, got, want);
}

static void test_table(void **state)
{
	(void)state;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		char err[512];
		unsigned long long u = 0;
		unsigned t = 0, *v = NULL;
		size_t n = 0;
		double d = 0;
		int ret;

		err[0] = '\0';
		ret = num_parse_count(r->in, 0, COUNT_MAX, &u, err, sizeof(err));
		if (isnan(r->count))
			check_refusal("count", r->in, ret, err);
		else
			check_value("count", r->in, ret, err, (double)u, r->count);

		err[0] = '\0';
		ret = num_parse_float(r->in, -FLOAT_LIM, FLOAT_LIM, &d, err, sizeof(err));
		if (isnan(r->flt))
			check_refusal("float", r->in, ret, err);
		else
			check_value("float", r->in, ret, err, d, r->flt);

		err[0] = '\0';
		ret = num_parse_duration(r->in, NUM_DURATION_MIN, NUM_DURATION_MAX, &d, err,
					 sizeof(err));
		if (isnan(r->duration))
			check_refusal("duration", r->in, ret, err);
		else
			check_value("duration", r->in, ret, err, d, r->duration);

		err[0] = '\0';
		ret = num_parse_percent(r->in, 100, &d, err, sizeof(err));
		if (isnan(r->percent))
			check_refusal("percent", r->in, ret, err);
		else
			check_value("percent", r->in, ret, err, d, r->percent);

		err[0] = '\0';
		ret = num_parse_tasks(r->in, ONLINE, TASK_MAX, &t, err, sizeof(err));
		if (isnan(r->tasks))
			check_refusal("tasks", r->in, ret, err);
		else
			check_value("tasks", r->in, ret, err, t, r->tasks);

		err[0] = '\0';
		ret = num_parse_taskspec(r->in, ONLINE, TASK_MAX, &v, &n, err, sizeof(err));
		if (!r->taskspec) {
			check_refusal("taskspec", r->in, ret, err);
		} else {
			char got[512] = "";
			size_t len = 0;

			if (ret != 0)
				fail_msg("taskspec refused '%s': %s", r->in, err);
			for (size_t k = 0; k < n && len < sizeof(got); k++)
				len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%u",
							k ? "," : "", v[k]);
			if (strcmp(got, r->taskspec))
				fail_msg("taskspec('%s') = %s, expected %s", r->in, got,
					 r->taskspec);
			free(v);
		}
	}
}

/* Durations: 0 only where the caller takes it, never anything between 0 and 1 us, and the
 * caller's bounds. */
static void test_duration_bounds(void **state)
{
	char err[256];
	double d;
	(void)state;

	assert_int_equal(num_parse_duration("0", 0, NUM_DURATION_MAX, &d, err, sizeof(err)), 0);
	assert_true(d == 0);
	assert_int_equal(num_parse_duration("0s", 0, NUM_DURATION_MAX, &d, err, sizeof(err)), 0);
	assert_int_equal(num_parse_duration("0.0000001", 0, NUM_DURATION_MAX, &d, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "'0.0000001': expected a duration from 0s to 30d"));
	assert_int_equal(num_parse_duration("0", 0.01, NUM_DURATION_MAX, &d, err, sizeof(err)), -1);
	assert_int_equal(num_parse_duration("0.005", 0.01, 100, &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "from 0.01s to 100s"));
	assert_int_equal(num_parse_duration("2m", 0.01, 100, &d, err, sizeof(err)), -1);
	assert_int_equal(num_parse_duration("1m", 0.01, 100, &d, err, sizeof(err)), 0);
	assert_true(d == 60);
	assert_int_equal(num_parse_duration("1", NUM_DURATION_MIN, 10, &d, NULL, 0), 0);
	assert_int_equal(num_parse_duration("11", NUM_DURATION_MIN, 10, &d, NULL, 0), -1);
}

/* Ranges are the caller's; counts are decimal. */
static void test_count_float_percent_bounds(void **state)
{
	char err[256];
	unsigned long long u;
	double d;
	(void)state;

	assert_int_equal(num_parse_count("0", 1, 10, &u, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'0': expected a whole number from 1 to 10"));
	assert_int_equal(num_parse_count("18446744073709551615", 0, UINT64_MAX, &u, NULL, 0), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(num_parse_count("18446744073709551616", 0, UINT64_MAX, &u, NULL, 0), -1);
	assert_int_equal(num_parse_float("0.5", 0.5, 1, &d, NULL, 0), 0);
	assert_int_equal(num_parse_float("0.49", 0.5, 1, &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'0.49': expected a number from 0.5 to 1"));
	assert_int_equal(num_parse_percent("1000", 1000, &d, NULL, 0), 0);
	assert_int_equal(num_parse_percent("1000.5", 1000, &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'1000.5': expected a percentage from 0 to 1000"));
	assert_int_equal(num_parse_percent("5s", 1000, &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'5s'"));
}

/* One rule for a percentage of CPUs, wherever it is read: rounded down, at least 1. */
static void test_tasks_percent_rule(void **state)
{
	unsigned t, *v;
	size_t n;
	char err[256];
	(void)state;

	assert_int_equal(num_parse_tasks("1%", 2, TASK_MAX, &t, NULL, 0), 0);
	assert_int_equal(t, 1);
	assert_int_equal(num_parse_taskspec("1%", 2, TASK_MAX, &v, &n, NULL, 0), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0], 1);
	free(v);
	assert_int_equal(num_parse_tasks("50%", 3, TASK_MAX, &t, NULL, 0), 0);
	assert_int_equal(t, 1);
	assert_int_equal(num_parse_tasks("99%", 100, TASK_MAX, &t, NULL, 0), 0);
	assert_int_equal(t, 99);
	assert_int_equal(num_parse_tasks("250%", 4, TASK_MAX, &t, NULL, 0), 0);
	assert_int_equal(t, 10);
	assert_int_equal(num_parse_tasks("200%", 4096, TASK_MAX, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'200%': more than the maximum of 4096 tasks"));
	assert_int_equal(num_parse_tasks("0", 2, TASK_MAX, &t, err, sizeof(err)), -1);
	assert_string_equal(err, "'0': expected at least 1 task");
	assert_int_equal(num_parse_taskspec("1,abc", 2, TASK_MAX, &v, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'abc': expected"));
	assert_non_null(strstr(err, "(in '1,abc')"));
	assert_int_equal(num_parse_taskspec("4-2", 8, TASK_MAX, &v, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "backwards"));
	/* The whole range is held, however long: no cap but the maximum count. */
	assert_int_equal(num_parse_taskspec("1-4096,2", 2, TASK_MAX, &v, &n, NULL, 0), 0);
	assert_int_equal(n, 4096);
	assert_int_equal(v[4095], 4096);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_duration_bounds),
	    cmocka_unit_test(test_count_float_percent_bounds),
	    cmocka_unit_test(test_tasks_percent_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
