/* Unit tests of the change points (analyze/changepoint.c) on synthetic series with known
 * truth, a modest number of seeds each (bench/trend.sh runs the full table): steps found
 * within +-1 commit, A/A series left alone, two changes close together both found, an
 * outlier commit not taken for a change, the verdict by direction, and the edges (too short,
 * commits without usable runs, bad options, the same answer twice). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../analyze/changepoint.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS  3
#define NOISE 0.02
#define MAXN  200

struct series {
	double v[MAXN * RUNS];
	struct cp_commit c[MAXN];
	size_t n;
};

/* level: each commit's log level; runs lognormal around it with 2% noise. */
static void generate(struct series *s, size_t n, const double *level)
{
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < RUNS; j++)
			s->v[i * RUNS + j] = 1e6 * exp(level[i] + NOISE * rng_normal());
		s->c[i] = (struct cp_commit){s->v + i * RUNS, RUNS};
	}
}

static size_t between(size_t lo, size_t hi)
{
	return lo + (size_t)(rng_uniform() * (double)(hi - lo + 1));
}

static ssize_t detect(const struct series *s, enum stat_direction dir, struct change_point **cp)
{
	struct cp_opts o;
	char err[256] = "";
	ssize_t k;

	cp_opts_default(&o);
	k = changepoints_find(s->c, s->n, dir, &o, cp, err, sizeof(err));
	if (k < 0)
		fail_msg("changepoints_find: %s", err);
	return k;
}

static bool found_near(const struct change_point *cp, ssize_t k, size_t at)
{
	for (ssize_t i = 0; i < k; i++)
		if (cp[i].index + 1 >= at && cp[i].index <= at + 1)
			return true;
	return false;
}

static void test_defaults(void **state)
{
	struct cp_opts o;
	(void)state;

	cp_opts_default(&o);
	assert_int_equal(o.min_segment, 3);
	assert_int_equal(o.permutations, 199);
	assert_true(o.p_max == 0.05 && o.alpha == 0.05 && o.threshold_pct == 1);
}

/* Each step size over 20 seeds: found within +-1 commit in nearly all from -4% on (the
 * bench's table: 98-100%), in most at -2% (74%: at 2% noise a commit's mean moves 1.2%). */
static void test_steps_found(void **state)
{
	static const double steps[] = {-2, -4, -6, -8, -10};
	static const int min_hits[] = {11, 18, 19, 19, 19};
	static struct series s;
	double level[MAXN];
	(void)state;

	for (size_t st = 0; st < 5; st++) {
		int hits = 0;

		rng_state = 0x1234 + st;
		for (int seed = 0; seed < 20; seed++) {
			size_t n = between(60, 200), at = between(10, n - 10);
			struct change_point *cp;
			ssize_t k;

			for (size_t i = 0; i < n; i++)
				level[i] = i >= at ? log1p(steps[st] / 100) : 0;
			generate(&s, n, level);
			k = detect(&s, DIR_HIGHER_BETTER, &cp);
			hits += found_near(cp, k, at);
			free(cp);
		}
		if (hits < min_hits[st])
			fail_msg("step %g%%: found in %d of 20 series, expected %d", steps[st],
				 hits, min_hits[st]);
	}
}

/* A/A: 200 commits with no change; at least 99% of series must have no change point. */
static void test_aa_quiet(void **state)
{
	static struct series s;
	double level[MAXN] = {0};
	int noisy = 0;
	(void)state;

	rng_state = 0xaaaa;
	for (int seed = 0; seed < 200; seed++) {
		struct change_point *cp;
		ssize_t k;

		generate(&s, 200, level);
		k = detect(&s, DIR_HIGHER_BETTER, &cp);
		noisy += k > 0;
		free(cp);
	}
	if (noisy > 2)
		fail_msg("A/A: change points in %d of 200 series, at most 2 (1%%) expected", noisy);
}

/* A staircase (-5%, then -5% more, 5-8 commits later) and a short dip (-6% for 5-8
 * commits, then back): both changes found within +-1 commit. */
static void test_close_pair(void **state)
{
	static struct series s;
	double level[MAXN];
	(void)state;

	for (int kind = 0; kind < 2; kind++) {
		int both = 0;

		rng_state = 0xc105e + (uint64_t)kind;
		for (int seed = 0; seed < 20; seed++) {
			size_t n = between(60, 200), at0 = between(15, n - 25),
			       at1 = at0 + between(5, 8);
			struct change_point *cp;
			ssize_t k;

			for (size_t i = 0; i < n; i++)
				level[i] = (i >= at0 ? (kind ? log(0.94) : log(0.95)) : 0) +
					   (i >= at1 ? (kind ? -log(0.94) : log(0.95)) : 0);
			generate(&s, n, level);
			k = detect(&s, DIR_HIGHER_BETTER, &cp);
			both += found_near(cp, k, at0) && found_near(cp, k, at1);
			free(cp);
		}
		/* bench: 98.9% for the staircase, 97.9% for the dip */
		if (both < 18)
			fail_msg("%s: both found in %d of 20", kind ? "dip" : "staircase", both);
	}
}

/* One commit whose runs are all 20% low is an outlier, not a change. */
static void test_outlier_commit(void **state)
{
	static struct series s;
	double level[MAXN];
	int flagged = 0;
	(void)state;

	rng_state = 0x0071;
	for (int seed = 0; seed < 30; seed++) {
		size_t at = between(10, 189);
		struct change_point *cp;
		ssize_t k;

		for (size_t i = 0; i < 200; i++)
			level[i] = i == at ? log(0.8) : 0;
		generate(&s, 200, level);
		k = detect(&s, DIR_HIGHER_BETTER, &cp);
		flagged += k > 0;
		free(cp);
	}
	assert_true(flagged <= 1);
}

/* The fields of one change point, and the verdict by direction. */
static void test_fields_and_direction(void **state)
{
	static struct series s;
	double level[MAXN];
	struct change_point *cp;
	ssize_t k;
	(void)state;

	rng_state = 0xf1e1d;
	for (size_t i = 0; i < 80; i++)
		level[i] = i >= 40 ? log(0.94) : 0;
	generate(&s, 80, level);
	k = detect(&s, DIR_HIGHER_BETTER, &cp);
	assert_int_equal(k, 1);
	assert_true(cp[0].index >= 39 && cp[0].index <= 41);
	assert_true(fabs(cp[0].before - 1e6) < 0.02e6);
	assert_true(fabs(cp[0].after - 0.94e6) < 0.02e6);
	assert_true(cp[0].change_pct < -4 && cp[0].change_pct > -8);
	assert_true(cp[0].lo_pct < cp[0].change_pct && cp[0].change_pct < cp[0].hi_pct);
	assert_true(cp[0].hi_pct < -1);
	assert_true(cp[0].p <= 0.05 && cp[0].test_p <= 0.05);
	assert_int_equal(cp[0].verdict, V_REGRESSION);
	free(cp);

	k = detect(&s, DIR_LOWER_BETTER, &cp);
	assert_int_equal(k, 1);
	assert_int_equal(cp[0].verdict, V_IMPROVEMENT);
	free(cp);
	k = detect(&s, DIR_NEUTRAL, &cp);
	assert_int_equal(k, 1);
	assert_int_equal(cp[0].verdict, V_CHANGED_DOWN);
	free(cp);
}

/* The same input and seed give the same answer: the permutations come from the seed. */
static void test_deterministic(void **state)
{
	static struct series s;
	double level[MAXN];
	struct change_point *a, *b;
	ssize_t ka, kb;
	(void)state;

	rng_state = 0xde7;
	for (size_t i = 0; i < 150; i++)
		level[i] = (i >= 50 ? log(0.97) : 0) + (i >= 100 ? log(1.05) : 0);
	generate(&s, 150, level);
	ka = detect(&s, DIR_HIGHER_BETTER, &a);
	kb = detect(&s, DIR_HIGHER_BETTER, &b);
	assert_int_equal(ka, kb);
	assert_true(ka >= 1);
	assert_memory_equal(a, b, (size_t)ka * sizeof(*a));
	free(a);
	free(b);
}

/* Commits without a usable run (none, zero, negative, NaN) are left out; the indices are
 * still those of the caller's array. */
static void test_unusable_commits(void **state)
{
	static struct series s;
	static struct cp_commit c[MAXN + 2];
	double level[MAXN], bad[] = {0, -1, NAN};
	struct change_point *cp;
	struct cp_opts o;
	char err[256];
	size_t m = 0;
	ssize_t k;
	(void)state;

	rng_state = 0xbad;
	for (size_t i = 0; i < 60; i++)
		level[i] = i >= 30 ? log(0.9) : 0;
	generate(&s, 60, level);
	for (size_t i = 0; i < 60; i++) {
		if (i == 10 || i == 29)
			c[m++] = (struct cp_commit){bad, 3};
		c[m++] = s.c[i];
	}
	c[m++] = (struct cp_commit){NULL, 0};
	cp_opts_default(&o);
	k = changepoints_find(c, m, DIR_HIGHER_BETTER, &o, &cp, err, sizeof(err));
	assert_int_equal(k, 1);
	/* commit 30 of the series is at 32 in c: two unusable ones come before it */
	assert_true(cp[0].index >= 31 && cp[0].index <= 33);
	assert_true(c[cp[0].index].n == 3 && c[cp[0].index].runs != bad);
	free(cp);
}

static void test_short_and_empty(void **state)
{
	static struct series s;
	double level[MAXN];
	struct change_point *cp = (void *)1;
	struct cp_opts o;
	char err[256];
	(void)state;

	cp_opts_default(&o);
	assert_int_equal(changepoints_find(NULL, 0, DIR_HIGHER_BETTER, &o, &cp, err, sizeof(err)),
			 0);
	free(cp);
	rng_state = 5;
	for (size_t i = 0; i < 5; i++)
		level[i] = i >= 3 ? log(0.5) : 0;
	generate(&s, 5, level);
	/* 5 commits cannot hold two segments of 3 */
	assert_int_equal(changepoints_find(s.c, 5, DIR_HIGHER_BETTER, &o, &cp, err, sizeof(err)),
			 0);
	free(cp);
}

static void test_bad_options(void **state)
{
	struct change_point *cp;
	struct cp_opts o;
	char err[256];
	(void)state;

	cp_opts_default(&o);
	o.permutations = 10; /* p >= 1/11 > 0.05 */
	assert_int_equal(changepoints_find(NULL, 0, DIR_HIGHER_BETTER, &o, &cp, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "10 permutations cannot reach"));
	cp_opts_default(&o);
	o.min_segment = 0;
	assert_int_equal(changepoints_find(NULL, 0, DIR_HIGHER_BETTER, &o, &cp, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "minimum segment"));
	cp_opts_default(&o);
	o.threshold_pct = -1;
	assert_int_equal(changepoints_find(NULL, 0, DIR_HIGHER_BETTER, &o, &cp, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "threshold"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),	    cmocka_unit_test(test_steps_found),
	    cmocka_unit_test(test_aa_quiet),	    cmocka_unit_test(test_close_pair),
	    cmocka_unit_test(test_outlier_commit),  cmocka_unit_test(test_fields_and_direction),
	    cmocka_unit_test(test_deterministic),   cmocka_unit_test(test_unusable_commits),
	    cmocka_unit_test(test_short_and_empty), cmocka_unit_test(test_bad_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
