/* Bisection decisions: the endpoint check, the SPRT on log values, and the policy around them. */
#include "bisect.h"

#include <math.h>

int endpoints_check(const double *good, size_t ng, const double *bad, size_t nb,
		    enum stat_direction dir, double threshold_pct, double q_max, double alpha,
		    struct endpoint_check *r, const char **why)
{
	struct yuen_result y;
	double trim = stat_trim_for(good, ng, bad, nb);

	if (trim < 0) {
		*why = "out of memory";
		return -1;
	}
	if (yuen_test(good, ng, bad, nb, trim, true, NULL, alpha, &y, why))
		return -1;
	r->trimmed = trim > 0;
	r->w = (struct welch_result){
	    .ratio = y.ratio, .t = y.t, .df = y.df, .p = y.p, .lo_pct = y.lo, .hi_pct = y.hi};
	r->change_pct = 100 * (r->w.ratio - 1);
	/* One stat, one test: its q-value is its p-value. */
	r->verdict = stat_verdict(r->w.lo_pct, r->w.hi_pct, r->w.p, q_max, threshold_pct, dir);
	r->confirmed = r->verdict == V_REGRESSION || r->verdict == V_IMPROVEMENT ||
		       r->verdict == V_CHANGED_UP || r->verdict == V_CHANGED_DOWN;
	return 0;
}

int sprt_init(struct sprt_model *m, const double *good, size_t ng, const double *bad, size_t nb,
	      double confidence, const char **why)
{
	double vg, vb, err = 1 - confidence;

	if (ng < 2 || nb < 2) {
		*why = "need at least 2 runs of each endpoint";
		return -1;
	}
	if (!(err > 0 && err < 0.5)) {
		*why = "confidence must lie between 0.5 and 1";
		return -1;
	}
	if (log_moments(good, ng, &m->mu_good, &vg) || log_moments(bad, nb, &m->mu_bad, &vb)) {
		*why = "values must be positive for a test on log values";
		return -1;
	}
	/* The pooled standard deviation: the sums of squares are (n - 1) times the variances. */
	m->sd = sqrt((vg * (double)(ng - 1) + vb * (double)(nb - 1)) / (double)(ng + nb - 2));
	/* Identical runs would make every likelihood infinite: a floor far below any noise. */
	if (m->sd < 1e-4 * fabs(m->mu_bad - m->mu_good) || m->sd < 1e-9)
		m->sd = fmax(1e-4 * fabs(m->mu_bad - m->mu_good), 1e-9);
	m->upper = log((1 - err) / err);
	m->lower = log(err / (1 - err));
	return 0;
}

double sprt_llr(const struct sprt_model *m, const double *x, size_t n)
{
	double llr = 0, v = 2 * m->sd * m->sd;

	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0))
			continue;
		double l = log(x[i]);

		llr +=
		    ((l - m->mu_good) * (l - m->mu_good) - (l - m->mu_bad) * (l - m->mu_bad)) / v;
	}
	return llr;
}

enum sprt_decision sprt_decide(const struct sprt_model *m, const double *x, size_t n,
			       size_t min_runs, double *llr)
{
	double l = sprt_llr(m, x, n);

	if (llr)
		*llr = l;
	if (n < min_runs)
		return SPRT_CONTINUE;
	if (l >= m->upper)
		return SPRT_BAD;
	if (l <= m->lower)
		return SPRT_GOOD;
	return SPRT_CONTINUE;
}

enum sprt_decision sprt_closer(const struct sprt_model *m, const double *x, size_t n)
{
	double s = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (x[i] > 0) {
			s += log(x[i]);
			k++;
		}
	if (!k)
		return SPRT_CONTINUE;
	s /= (double)k;
	return fabs(s - m->mu_bad) < fabs(s - m->mu_good) ? SPRT_BAD : SPRT_GOOD;
}

static enum bisect_next policy_check(const struct bisect_policy *p, const double *a, size_t na,
				     const double *b, size_t nb, struct endpoint_check *ec,
				     const char **why)
{
	if (endpoints_check(a, na, b, nb, p->dir, p->threshold_pct, 1 - p->confidence,
			    1 - p->confidence, ec, why))
		return BISECT_ERROR;
	return ec->confirmed ? BISECT_CONFIRMED : BISECT_NOT_REPRODUCED;
}

enum bisect_next bisect_endpoints_next(const struct bisect_policy *p, const double *good, size_t ng,
				       const double *bad, size_t nb, unsigned *want,
				       struct endpoint_check *ec, const char **why)
{
	enum bisect_next next = policy_check(p, good, ng, bad, nb, ec, why);

	if (next != BISECT_NOT_REPRODUCED || ec->verdict == V_NO_CHANGE || *want >= p->max_runs)
		return next;
	*want += p->batch ? p->batch : 1;
	if (*want > p->max_runs)
		*want = p->max_runs;
	return BISECT_MORE;
}

unsigned bisect_model_runs(const struct bisect_policy *p, unsigned had)
{
	unsigned model = BISECT_MODEL_RUNS < p->max_runs ? BISECT_MODEL_RUNS : p->max_runs;

	return had < model ? model : had;
}

enum bisect_next bisect_classify_next(const struct bisect_policy *p, const struct sprt_model *m,
				      const double *x, size_t n, struct midpoint_call *r)
{
	enum sprt_decision d = SPRT_CONTINUE;

	*r = (struct midpoint_call){.used = n};
	for (size_t k = BISECT_FIRST_RUNS; k <= n && d == SPRT_CONTINUE; k++)
		if ((d = sprt_decide(m, x, k, BISECT_FIRST_RUNS, &r->llr)) != SPRT_CONTINUE)
			r->used = k;
	if (d == SPRT_CONTINUE && n >= p->max_runs) {
		d = sprt_closer(m, x, n);
		r->fallback = true;
	}
	if (d != SPRT_CONTINUE)
		return d == SPRT_BAD ? BISECT_BAD : BISECT_GOOD;
	r->want = (unsigned)n + (p->batch ? p->batch : 1);
	if (r->want > p->max_runs)
		r->want = p->max_runs;
	return BISECT_MORE;
}

enum bisect_next bisect_verify(const struct bisect_policy *p, const double *parent, size_t np,
			       const double *culprit, size_t nc, unsigned *want,
			       struct endpoint_check *ec, const char **why)
{
	return bisect_endpoints_next(p, parent, np, culprit, nc, want, ec, why);
}
