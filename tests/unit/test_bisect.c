/* The bisection's decisions on known values: the endpoint check, the SPRT's thresholds,
 * its decisions on runs near either endpoint, the closer-endpoint fallback, and the policy
 * around them (more runs, confirmed, not reproduced, good, bad) on synthetic values. */
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

static const struct bisect_policy pol = {
    .max_runs = 10, .batch = 1, .confidence = 0.99, .threshold_pct = 1, .dir = DIR_HIGHER_BETTER};

static void test_policy_endpoints(void **state)
{
	/* Noisy: 3 runs cannot tell 5% apart at 99%. */
	const double g[] = {1000, 1060, 950, 1000, 1002, 998, 1001, 999, 1000, 1000};
	const double b[] = {950, 1000, 900, 950, 951, 949, 950, 950, 951, 949};
	struct bisect_policy two = pol;
	struct endpoint_check ec;
	const char *why;
	unsigned want = BISECT_FIRST_RUNS;

	(void)state;
	assert_int_equal(bisect_endpoints_next(&pol, g, 3, b, 3, &want, &ec, &why), BISECT_MORE);
	assert_int_equal(want, 4);
	/* One batch at a time, to the budget at most. */
	two.batch = 4;
	want = 8;
	assert_int_equal(bisect_endpoints_next(&two, g, 3, b, 3, &want, &ec, &why), BISECT_MORE);
	assert_int_equal(want, 10);
	/* Out of budget: not reproduced, want unchanged. */
	assert_int_equal(bisect_endpoints_next(&two, g, 3, b, 3, &want, &ec, &why),
			 BISECT_NOT_REPRODUCED);
	assert_int_equal(want, 10);
	/* With the quiet runs the change shows. */
	want = 10;
	assert_int_equal(bisect_endpoints_next(&pol, g, 10, b, 10, &want, &ec, &why),
			 BISECT_CONFIRMED);
	assert_true(ec.confirmed);
	/* The same values on both sides, inside a 2% threshold: no change, whatever is left of
	 * the budget. */
	two = pol;
	two.threshold_pct = 2;
	want = 3;
	assert_int_equal(bisect_endpoints_next(&two, good, 5, good, 5, &want, &ec, &why),
			 BISECT_NOT_REPRODUCED);
	assert_int_equal(want, 3);
	assert_int_equal(bisect_endpoints_next(&pol, good, 1, bad, 5, &want, &ec, &why),
			 BISECT_ERROR);
	/* The model: 6 runs each at least, never over the budget. */
	assert_int_equal(bisect_model_runs(&pol, 3), BISECT_MODEL_RUNS);
	assert_int_equal(bisect_model_runs(&pol, 8), 8);
	two.max_runs = 4;
	assert_int_equal(bisect_model_runs(&two, 3), 4);
}

static void test_policy_classify(void **state)
{
	const double near_bad[] = {901, 899, 903, 2000, 2000};
	const double middle[] = {948.683, 948.683, 948.683, 948.683, 948.683,
				 948.683, 948.683, 948.683, 948.683, 949.5};
	struct midpoint_call call;
	struct sprt_model m;
	const char *why;

	(void)state;
	assert_int_equal(sprt_init(&m, good, 5, bad, 5, 0.99, &why), 0);
	/* Sequential inside a batch: decided on the first 3, whatever came after them. */
	assert_int_equal(bisect_classify_next(&pol, &m, near_bad, 5, &call), BISECT_BAD);
	assert_int_equal(call.used, 3);
	assert_false(call.fallback);
	assert_int_equal(
	    bisect_classify_next(&pol, &m, (const double[]){1002, 998, 1001}, 3, &call),
	    BISECT_GOOD);
	/* No evidence: one more run (a batch), to the budget, then the closer endpoint. */
	assert_int_equal(bisect_classify_next(&pol, &m, middle, 3, &call), BISECT_MORE);
	assert_int_equal(call.want, 4);
	assert_int_equal(bisect_classify_next(&pol, &m, middle, 10, &call), BISECT_GOOD);
	assert_true(call.fallback);
	assert_int_equal(call.used, 10);
	/* Fewer runs than the first batch: more, never a decision. */
	assert_int_equal(bisect_classify_next(&pol, &m, near_bad, 2, &call), BISECT_MORE);
	assert_int_equal(call.want, 3);
}

static void test_policy_verify(void **state)
{
	/* As on CI's busy machine: one of the parent's 3 runs had its copy starved for the whole
	 * 0.25 s window, the culprit's locked adds cost 200-fold. */
	const double parent[] = {1.05e9, 1.12e9, 2e6, 0.98e9, 1.2e9, 1.1e9};
	const double culprit[] = {5.2e6, 4.1e6, 6.3e6, 5.0e6, 4.8e6, 5.5e6};
	struct endpoint_check ec;
	unsigned want = BISECT_VERIFY_RUNS;
	const char *why;

	(void)state;
	want = 5;
	assert_int_equal(bisect_verify(&pol, good, 5, bad, 5, &want, &ec, &why), BISECT_CONFIRMED);
	assert_false(ec.trimmed);
	/* +0.6% on 5 runs at a 1% threshold: no verdict yet, one more run each (a batch). */
	assert_int_equal(bisect_verify(&pol, good, 5, (const double[]){1001, 1011, 991, 1006, 996},
				       5, &want, &ec, &why),
			 BISECT_MORE);
	assert_int_equal(want, 6);
	assert_int_equal(bisect_verify(&pol, good, 1, bad, 1, &want, &ec, &why), BISECT_ERROR);
	/* The starved run makes 3 v 3 inconclusive: more runs, not "NOT verified". */
	want = BISECT_VERIFY_RUNS;
	assert_int_equal(bisect_verify(&pol, parent, 3, culprit, 3, &want, &ec, &why), BISECT_MORE);
	assert_int_equal(ec.verdict, V_INCONCLUSIVE);
	assert_true(ec.w.hi_pct > 0);
	assert_int_equal(want, 4);
	/* From 5 runs the outlier is trimmed (as compare does): the 200-fold drop, a tight
	 * interval, the printed change inside it. */
	want = 5;
	assert_int_equal(bisect_verify(&pol, parent, 5, culprit, 5, &want, &ec, &why),
			 BISECT_CONFIRMED);
	assert_true(ec.trimmed);
	assert_int_equal(ec.verdict, V_REGRESSION);
	assert_true(ec.w.lo_pct > -100 && ec.w.hi_pct < -99);
	assert_true(ec.change_pct >= ec.w.lo_pct && ec.change_pct <= ec.w.hi_pct);
	/* Out of budget without a verdict: not reproduced, no more runs asked. */
	want = pol.max_runs;
	assert_int_equal(bisect_verify(&pol, parent, 3, culprit, 3, &want, &ec, &why),
			 BISECT_NOT_REPRODUCED);
	assert_int_equal(want, pol.max_runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_endpoints_confirmed), cmocka_unit_test(test_endpoints_no_change),
	    cmocka_unit_test(test_sprt_thresholds),	cmocka_unit_test(test_sprt_decides),
	    cmocka_unit_test(test_policy_endpoints),	cmocka_unit_test(test_policy_classify),
	    cmocka_unit_test(test_policy_verify),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
