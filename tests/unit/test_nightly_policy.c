/* Unit tests of nightly's confirmation policy (analyze/nightly_policy.c) on synthetic series:
 * the night noise measured from the history (runs and nights), a change point mailed only
 * once confirm_commits commits follow it, its range holding the step, the one-night check
 * mailing a large step at once and not a small one or a series without history. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../analyze/nightly_policy.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define RUNS 3
#define MAXN 80

struct series {
	double v[MAXN * RUNS];
	struct cp_commit c[MAXN];
	size_t n;
};

/* n commits, runs lognormal with noise around 1e6, the commits from `at` on moved by step
 * (a fraction), each night's mean moved by night (a log sd) as well. */
static void generate(struct series *s, size_t n, double noise, double night, size_t at, double step)
{
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		double level = (i >= at ? log(1 + step) : 0) + night * rng_normal();

		for (size_t j = 0; j < RUNS; j++)
			s->v[i * RUNS + j] = 1e6 * exp(level + noise * rng_normal());
		s->c[i] = (struct cp_commit){s->v + i * RUNS, RUNS};
	}
}

static ssize_t changes(const struct series *s, const struct nightly_policy *p,
		       struct nightly_found **f)
{
	char err[256];
	ssize_t n =
	    nightly_series_changes(s->c, s->n, DIR_HIGHER_BETTER, p, false, f, err, sizeof(err));

	assert_true(n >= 0);
	return n;
}

/* The noise of a commit's mean, what varies between nights included: runs alone give
 * noise / sqrt(RUNS); a night effect adds its own. */
static void test_night_noise(void **state)
{
	static struct series s;
	double sum = 0, sum_night = 0;
	(void)state;

	rng_state = 11;
	for (int k = 0; k < 20; k++) {
		generate(&s, 60, 0.02, 0, 60, 0);
		sum += nightly_night_noise(s.c, s.n);
		generate(&s, 60, 0.02, 0.02, 60, 0);
		sum_night += nightly_night_noise(s.c, s.n);
	}
	/* 0.02 / sqrt 3 = 0.0115; with a night sd of 0.02: sqrt(0.0115^2 + 0.02^2) = 0.023 */
	assert_true(fabs(sum / 20 - 0.0115) < 0.002);
	assert_true(fabs(sum_night / 20 - 0.0231) < 0.004);
	assert_true(isnan(nightly_night_noise(s.c, 2)));
}

/* A -5% step at commit 40 of 2% noise: no change point until confirm_commits commits follow
 * it (the step's commit included), then one, its range holding commit 40. */
static void test_confirm_and_range(void **state)
{
	static struct series s;
	struct nightly_policy p;
	struct nightly_found *f;
	int found = 0, in_range = 0;
	(void)state;

	nightly_policy_default(&p);
	p.night_z = 1000; /* the change points alone */
	rng_state = 12;
	for (int k = 0; k < 20; k++) {
		generate(&s, 42, 0.02, 0, 40, -0.05);
		ssize_t n = changes(&s, &p, &f);

		for (ssize_t i = 0; i < n; i++) /* none with fewer commits after it */
			assert_true(s.n - f[i].index >= p.confirm_commits && f[i].index < 40);
		free(f);
		s.n = 43; /* a third night */
		generate(&s, 43, 0.02, 0, 40, -0.05);
		n = changes(&s, &p, &f);
		for (ssize_t i = 0; i < n; i++) {
			if (f[i].index < 35 || f[i].verdict != V_REGRESSION)
				continue;
			found++;
			assert_true(f[i].lo <= f[i].index && f[i].index <= f[i].hi);
			assert_true(f[i].hi - f[i].lo < NIGHTLY_RANGE_MAX);
			in_range += f[i].lo <= 40 && 40 <= f[i].hi;
		}
		free(f);
	}
	assert_true(found >= 18);
	assert_true(in_range >= found - 1);
}

/* The one-night check: a -20% step mails on its night, a -2% one does not, nor a -20% one
 * without 8 commits of history. */
static void test_one_night(void **state)
{
	static struct series s;
	struct nightly_policy p;
	struct nightly_found *f;
	(void)state;

	nightly_policy_default(&p);
	rng_state = 13;
	generate(&s, 40, 0.02, 0, 39, -0.20);
	ssize_t n = changes(&s, &p, &f);
	assert_int_equal(n, 1);
	assert_false(f[0].from_cp);
	assert_int_equal(f[0].index, 39);
	assert_int_equal(f[0].verdict, V_REGRESSION);
	assert_true(f[0].change_pct < -15 && f[0].change_pct > -25);
	free(f);
	generate(&s, 40, 0.02, 0, 39, -0.02);
	assert_int_equal(changes(&s, &p, &f), 0);
	free(f);
	generate(&s, 6, 0.02, 0, 5, -0.20);
	assert_int_equal(changes(&s, &p, &f), 0);
	free(f);
}

/* The range of a change between two bounds, and its edges. */
static void test_range_edges(void **state)
{
	static struct series s;
	struct nightly_policy p;
	size_t lo, hi;
	(void)state;

	nightly_policy_default(&p);
	rng_state = 14;
	generate(&s, 30, 0.01, 0, 15, -0.10);
	nightly_change_range(s.c, 0, s.n, 15, &p, &lo, &hi);
	assert_true(lo <= 15 && 15 <= hi && hi - lo <= 2);
	/* An index outside (a, b): the index alone. */
	nightly_change_range(s.c, 16, 30, 15, &p, &lo, &hi);
	assert_int_equal(lo, 15);
	assert_int_equal(hi, 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_night_noise),
	    cmocka_unit_test(test_confirm_and_range),
	    cmocka_unit_test(test_one_night),
	    cmocka_unit_test(test_range_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
