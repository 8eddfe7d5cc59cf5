/* Simulated bisection decisions on synthetic runs: one midpoint per trial, good or bad with
 * equal odds, its runs lognormal around the good or the bad endpoint.  The decisions are
 * scalebench bisect's own (analyze/bisect.c's policy: endpoints 3 runs each, one more each
 * until the analyzer's test confirms the change, at most --max-runs, then the SPRT's model;
 * the midpoint 3 runs, one more at a time, the closer endpoint at the cap), with its defaults
 * and one run per batch as without reboots; beside them the robot's fixed rule: 4 runs, bad
 * when the LKP rule sees a change from the good endpoint's 4 runs in the regression's
 * direction.  Then the verification bisect ends with (bisect_verify: the culprit against its
 * parent, 3 runs each, more until the test decides, as many as the endpoints at most), on
 * fresh runs: of a true culprit (verified: how often, and runs a side), and of a commit that
 * changed nothing (both sides good: how often it is wrongly verified).
 * usage: bisect_sim [TRIALS] [NOISE_PCT] [SHIFT_PCT...] */
#include "../analyze/bisect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The trials' random stream, and the verification's apart from it (so that adding the
 * verification left the classification figures as they were): erand48 states, the first
 * srand48(42)'s. */
static unsigned short trial_rng[3] = {0x330E, 42, 0}, verify_rng[3] = {0x330E, 43, 0};

static double gauss(unsigned short *rng)
{
	double u = erand48(rng), v = erand48(rng);

	return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

/* One run: a regression of shift (fraction) for the bad side, lognormal noise. */
static double run(bool bad, double shift, double noise, unsigned short *rng)
{
	return 1e6 * exp((bad ? log(1 - shift) : 0) + noise * gauss(rng));
}

struct tally {
	long ep_ok, ep_runs, sprt_wrong, sprt_runs, capped, lkp_wrong, lkp_n;
	long ver_ok, ver_runs, ver_false;
};

/* bisect_verify on fresh runs of a parent (good) and a culprit (bad when culprit_bad): its
 * verdict, the runs a side in *runs; BISECT_ERROR when the values cannot be compared. */
static enum bisect_next verify(const struct bisect_policy *pol, bool culprit_bad, double shift,
			       double noise, long *runs)
{
	double pv[BISECT_MAX_RUNS], cv[BISECT_MAX_RUNS];
	unsigned want = BISECT_VERIFY_RUNS;
	size_t k = 0;
	struct endpoint_check ec;
	enum bisect_next next;
	const char *why;

	do {
		for (; k < want && k < BISECT_MAX_RUNS; k++) {
			pv[k] = run(false, shift, noise, verify_rng);
			cv[k] = run(culprit_bad, shift, noise, verify_rng);
		}
		next = bisect_verify(pol, pv, k, cv, k, &want, &ec, &why);
	} while (next == BISECT_MORE);
	*runs += (long)k;
	return next;
}

/* One trial: the endpoints, the robot's call, then bisect's on one midpoint.  0, -1. */
static int trial(const struct bisect_policy *pol, bool truth_bad, double shift, double noise,
		 struct tally *t)
{
	double g[BISECT_MAX_RUNS], b[BISECT_MAX_RUNS], m[BISECT_MAX_RUNS], m4[4];
	unsigned want = BISECT_FIRST_RUNS, n;
	struct endpoint_check ec;
	struct lkp_rule_result lr;
	struct midpoint_call call;
	struct sprt_model sm;
	enum bisect_next next;
	const char *why;
	size_t k = 0;

	for (size_t i = 0; i < BISECT_MAX_RUNS; i++) {
		g[i] = run(false, shift, noise, trial_rng);
		b[i] = run(true, shift, noise, trial_rng);
	}
	do {
		n = want;
		next = bisect_endpoints_next(pol, g, n, b, n, &want, &ec, &why);
	} while (next == BISECT_MORE);
	if (next == BISECT_ERROR)
		return -1;
	t->ep_runs += 2 * (long)n;
	/* The robot: 4 runs a side, no endpoint confirmation. */
	for (int i = 0; i < 4; i++)
		m4[i] = run(truth_bad, shift, noise, trial_rng);
	if (lkp_rule(g, 4, m4, 4, true, &lr, &why) == 0) {
		t->lkp_wrong += (lr.changed && lr.ratio < 1) != truth_bad;
		t->lkp_n++;
	}
	if (next != BISECT_CONFIRMED)
		return 0; /* scalebench stops here: nothing bisected, nobody blamed */
	t->ep_ok++;
	unsigned nm = bisect_model_runs(pol, n);

	t->ep_runs += 2 * (long)(nm - n);
	if (sprt_init(&sm, g, nm, b, nm, pol->confidence, &why))
		return -1;
	want = BISECT_FIRST_RUNS;
	for (;;) {
		while (k < want)
			m[k++] = run(truth_bad, shift, noise, trial_rng);
		if ((next = bisect_classify_next(pol, &sm, m, k, &call)) != BISECT_MORE)
			break;
		want = call.want;
	}
	t->sprt_runs += (long)k;
	t->capped += call.fallback;
	t->sprt_wrong += (next == BISECT_BAD) != truth_bad;
	/* The verification, of a true culprit and of a commit that changed nothing. */
	enum bisect_next ver = verify(pol, true, shift, noise, &t->ver_runs);
	enum bisect_next aa = verify(pol, false, shift, noise, &(long){0});

	if (ver == BISECT_ERROR || aa == BISECT_ERROR)
		return -1;
	t->ver_ok += ver == BISECT_CONFIRMED;
	t->ver_false += aa == BISECT_CONFIRMED;
	return 0;
}

int main(int argc, char **argv)
{
	const struct bisect_policy pol = {.max_runs = BISECT_MAX_RUNS,
					  .batch = 1,
					  .confidence = 0.99,
					  .threshold_pct = 1,
					  .dir = DIR_HIGHER_BETTER};
	int trials = argc > 1 ? atoi(argv[1]) : 1000;
	double noise = (argc > 2 ? atof(argv[2]) : 2) / 100;
	double shifts[8] = {2, 3, 5};
	int nshift = 3;

	if (argc > 3)
		for (nshift = 0; nshift + 3 < argc && nshift < 8; nshift++)
			shifts[nshift] = atof(argv[nshift + 3]);
	printf("%d trials per shift, noise %.1f%% (lognormal), cap %u runs, confidence %.2f\n\n",
	       trials, noise * 100, pol.max_runs, pol.confidence);
	printf("shift  endpoints  ep runs |  SPRT wrong  runs/mid  capped | LKP-4 wrong  runs/mid | "
	       "verified  runs/side  A/A verified\n");
	for (int s = 0; s < nshift; s++) {
		struct tally t = {0};

		for (int i = 0; i < trials; i++)
			if (trial(&pol, i & 1, shifts[s] / 100, noise, &t))
				return 1;
		printf("%4.0f%%  %5.1f%%ok  %7.1f | %9.2f%%  %8.2f  %5.1f%% | %9.2f%%  %8.2f | "
		       "%7.1f%%  %9.2f  %11.2f%%\n",
		       shifts[s], 100.0 * (double)t.ep_ok / trials, (double)t.ep_runs / trials,
		       t.ep_ok ? 100.0 * (double)t.sprt_wrong / (double)t.ep_ok : NAN,
		       t.ep_ok ? (double)t.sprt_runs / (double)t.ep_ok : NAN,
		       t.ep_ok ? 100.0 * (double)t.capped / (double)t.ep_ok : NAN,
		       t.lkp_n ? 100.0 * (double)t.lkp_wrong / (double)t.lkp_n : NAN, 4.0,
		       t.ep_ok ? 100.0 * (double)t.ver_ok / (double)t.ep_ok : NAN,
		       t.ep_ok ? (double)t.ver_runs / (double)t.ep_ok : NAN,
		       t.ep_ok ? 100.0 * (double)t.ver_false / (double)t.ep_ok : NAN);
	}
	return 0;
}
