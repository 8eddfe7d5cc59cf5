/* Simulated bisection decisions on synthetic runs: one midpoint per trial, good or bad with
 * equal odds, its runs lognormal around the good or the bad endpoint.  The endpoints are
 * measured as scalebench bisect does (3 runs each, one more each until the analyzer's test
 * confirms the change, at most --max-runs; then 6 each at least, the SPRT's model); then
 * the midpoint is classified
 *   - by the SPRT (3 runs, one more at a time, closer endpoint at the cap), and
 *   - by the robot's fixed rule: 4 runs, bad when the LKP rule sees a change from the good
 *     endpoint's 4 runs in the direction of the regression.
 * usage: bisect_sim [TRIALS] [NOISE_PCT] [SHIFT_PCT...] */
#include "../analyze/bisect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_RUNS   10
#define MODEL_RUNS 6

static double gauss(void)
{
	double u = drand48(), v = drand48();

	return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

/* One run: a regression of shift (fraction) for the bad side, lognormal noise. */
static double run(bool bad, double shift, double noise)
{
	return 1e6 * exp((bad ? log(1 - shift) : 0) + noise * gauss());
}

int main(int argc, char **argv)
{
	int trials = argc > 1 ? atoi(argv[1]) : 1000;
	double noise = (argc > 2 ? atof(argv[2]) : 2) / 100;
	double shifts[8] = {2, 3, 5};
	int nshift = 3;

	if (argc > 3)
		for (nshift = 0; nshift + 3 < argc && nshift < 8; nshift++)
			shifts[nshift] = atof(argv[nshift + 3]);
	srand48(42);
	printf("%d trials per shift, noise %.1f%% (lognormal), cap %d runs, confidence 0.99\n\n",
	       trials, noise * 100, MAX_RUNS);
	printf(
	    "shift  endpoints  ep runs |  SPRT wrong  runs/mid  capped | LKP-4 wrong  runs/mid\n");
	for (int s = 0; s < nshift; s++) {
		double shift = shifts[s] / 100;
		long ep_ok = 0, ep_runs = 0, sprt_wrong = 0, sprt_runs = 0, capped = 0;
		long lkp_wrong = 0, lkp_n = 0;

		for (int t = 0; t < trials; t++) {
			double g[MAX_RUNS], b[MAX_RUNS], m[MAX_RUNS];
			size_t n = 3;
			struct endpoint_check ec = {0};
			const char *why;
			bool truth_bad = t & 1;

			for (size_t i = 0; i < MAX_RUNS; i++) {
				g[i] = run(false, shift, noise);
				b[i] = run(true, shift, noise);
			}
			for (;; n++) {
				if (endpoints_check(g, n, b, n, DIR_HIGHER_BETTER, 1, 0.01, 0.01,
						    &ec, &why))
					return 1;
				if (ec.confirmed || ec.verdict == V_NO_CHANGE || n >= MAX_RUNS)
					break;
			}
			ep_runs += 2 * (long)n;
			/* The robot: 4 runs a side, no endpoint confirmation. */
			double m4[4];
			struct lkp_rule_result lr;

			for (int i = 0; i < 4; i++)
				m4[i] = run(truth_bad, shift, noise);
			if (lkp_rule(g, 4, m4, 4, true, &lr, &why) == 0) {
				bool bad = lr.changed && lr.ratio < 1;

				lkp_wrong += bad != truth_bad;
				lkp_n++;
			}

			if (!ec.confirmed)
				continue; /* scalebench stops here: nothing bisected, nobody blamed
					   */
			ep_ok++;
			struct sprt_model sm;
			enum sprt_decision d;
			size_t k = 0;

			/* As bisect does: at least 6 runs of each endpoint model the SPRT. */
			size_t nm = n < MODEL_RUNS ? MODEL_RUNS : n;

			ep_runs += 2 * (long)(nm - n);
			if (sprt_init(&sm, g, nm, b, nm, 0.99, &why))
				return 1;
			while (k < 3)
				m[k++] = run(truth_bad, shift, noise);
			for (;;) {
				d = sprt_decide(&sm, m, k, 3, NULL);
				if (d != SPRT_CONTINUE)
					break;
				if (k >= MAX_RUNS) {
					d = sprt_closer(&sm, m, k);
					capped++;
					break;
				}
				m[k++] = run(truth_bad, shift, noise);
			}
			sprt_runs += (long)k;
			sprt_wrong += (d == SPRT_BAD) != truth_bad;
		}
		printf("%4.0f%%  %5.1f%%ok  %7.1f | %9.2f%%  %8.2f  %5.1f%% | %9.2f%%  %8.2f\n",
		       shifts[s], 100.0 * (double)ep_ok / trials, (double)ep_runs / trials,
		       ep_ok ? 100.0 * (double)sprt_wrong / (double)ep_ok : NAN,
		       ep_ok ? (double)sprt_runs / (double)ep_ok : NAN,
		       ep_ok ? 100.0 * (double)capped / (double)ep_ok : NAN,
		       lkp_n ? 100.0 * (double)lkp_wrong / (double)lkp_n : NAN, 4.0);
	}
	return 0;
}
