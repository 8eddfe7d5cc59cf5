/* The bisection's decisions on known values: the endpoint check, the SPRT's thresholds,
 * its decisions on runs near either endpoint, and the closer-endpoint fallback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../analyze/bisect.h"

#include <math.h>

static const double good[] = {1000, 1010, 990, 1005, 995};
static const double bad[] = {900, 909, 891, 904, 896};

static void test_endpoints_confirmed(void **state)
{
	struct endpoint_check ec;
	const char *why;

	(void)state;
	assert_int_equal(
	    endpoints_check(good, 5, bad, 5, DIR_HIGHER_BETTER, 1, 0.01, 0.01, &ec, &why), 0);
	assert_true(ec.confirmed);
	assert_int_equal(ec.verdict, V_REGRESSION);
	assert_true(fabs(ec.change_pct + 10) < 0.1);
	assert_true(ec.w.hi_pct < -1);
}

static void test_endpoints_no_change(void **state)
{
	struct endpoint_check ec;
	const char *why;

	(void)state;
	/* Identical sides: the interval is the noise around 0, inside a 2% threshold. */
	assert_int_equal(
	    endpoints_check(good, 5, good, 5, DIR_HIGHER_BETTER, 2, 0.01, 0.01, &ec, &why), 0);
	assert_false(ec.confirmed);
	assert_int_equal(ec.verdict, V_NO_CHANGE);
	/* Too few runs: refused with a reason, not a verdict. */
	assert_int_equal(
	    endpoints_check(good, 1, bad, 5, DIR_HIGHER_BETTER, 1, 0.01, 0.01, &ec, &why), -1);
	assert_non_null(why);
}

static void test_sprt_thresholds(void **state)
{
	struct sprt_model m;
	const char *why;

	(void)state;
	assert_int_equal(sprt_init(&m, good, 5, bad, 5, 0.99, &why), 0);
	assert_true(fabs(m.upper - log(99)) < 1e-12);
	assert_true(fabs(m.lower + log(99)) < 1e-12);
	assert_true(fabs(m.mu_good - log(1000)) < 0.01);
	assert_true(fabs(m.mu_bad - log(900)) < 0.01);
	assert_true(m.sd > 0.005 && m.sd < 0.02);
	assert_int_equal(sprt_init(&m, good, 5, bad, 5, 1.0, &why), -1);
	assert_int_equal(sprt_init(&m, good, 1, bad, 5, 0.99, &why), -1);
}

static void test_sprt_decides(void **state)
{
	struct sprt_model m;
	const char *why;
	const double near_good[] = {1002, 998, 1001}, near_bad[] = {901, 899, 903};
	const double middle[] = {948.683, 948.683, 948.683}; /* sqrt(1000 * 900) */
	double llr;

	(void)state;
	assert_int_equal(sprt_init(&m, good, 5, bad, 5, 0.99, &why), 0);
	assert_int_equal(sprt_decide(&m, near_good, 3, 3, &llr), SPRT_GOOD);
	assert_true(llr < m.lower);
	assert_int_equal(sprt_decide(&m, near_bad, 3, 3, &llr), SPRT_BAD);
	assert_true(llr > m.upper);
	/* Not before the minimum number of runs, however clear the first ones are. */
	assert_int_equal(sprt_decide(&m, near_bad, 2, 3, &llr), SPRT_CONTINUE);
	/* Half-way between the endpoints on the log scale: no evidence either way. */
	assert_int_equal(sprt_decide(&m, middle, 3, 3, &llr), SPRT_CONTINUE);
	assert_true(fabs(llr) < 1);
	assert_int_equal(sprt_closer(&m, (const double[]){960, 962}, 2), SPRT_GOOD);
	assert_int_equal(sprt_closer(&m, (const double[]){935, 937}, 2), SPRT_BAD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_endpoints_confirmed),
	    cmocka_unit_test(test_endpoints_no_change),
	    cmocka_unit_test(test_sprt_thresholds),
	    cmocka_unit_test(test_sprt_decides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
