/* nightly's confirmation policy on synthetic nights (analyze/nightly_policy.c, the code
 * nightly runs): a series of HISTORY commits, recorded as nightly --baseline would, then one
 * commit a night, RUNS runs each, lognormal with NOISE_PCT run noise; each night the policy's
 * changes are mailed unless a recorded change of the same kind has a range that meets theirs
 * (then a change point placed elsewhere updates the record, with one follow-up at most, when
 * the mailed commit left the range).
 *   A/A: NIGHTS nights with no change: the share of job-nights that mail anything.
 *   steps: one step at the first night, then 10 nights more: mailed within 3 nights and within
 *   10, mailed more than once (duplicates: mails of a regression whose range meets the step's
 *   commit or a neighbour of it), follow-ups, the culprit inside the recorded range, and
 *   series mailing anything else (another kind, or a range away from the step: noise).
 * The one-night check here is the policy's gate alone; nightly also wants the analyzer's
 * verdict on the two commits, so its false alarms are at most these.
 * usage: nightly_sim [SERIES [RUNS [CONFIRM [Z]]]]   (defaults 1000, 3, the policy's) */
#include "../analyze/nightly_policy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define HISTORY 30
#define MAXC	64

static uint64_t rng = 0x6e6967687431ULL;

static double uniform(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static double gauss(void)
{
	return sqrt(-2 * log(1 - uniform())) * cos(2 * M_PI * uniform());
}

struct record {
	size_t index, lo, hi;
	enum verdict v;
	bool followed;
};

struct outcome {
	int mails, followups; /* over the evaluated nights */
	int first_night;      /* of the first mail of the step's kind at or after it, or -1 */
	int step_mails;	      /* mails of the step's kind at or after it */
	int other;	      /* mails of another kind, or before the step */
	bool in_range;	      /* the step's record's range holds the step */
	int nights_mailing;   /* nights with any mail */
};

/* One series: history commits, then nights more; the step (fraction, 0 none) at commit
 * history.  A night's mails against the records. */
static int series(const struct nightly_policy *p, size_t runs, double noise, double step,
		  size_t nights, struct outcome *o)
{
	static double vals[MAXC][8];
	struct cp_commit c[MAXC];
	struct record rec[32];
	size_t nrec = 0, n = HISTORY + nights;
	char err[256];

	*o = (struct outcome){.first_night = -1};
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < runs; r++)
			vals[i][r] =
			    1e6 * exp((i >= HISTORY ? log(1 + step) : 0) + noise * gauss());
		c[i] = (struct cp_commit){.runs = vals[i], .n = runs};
	}
	for (size_t len = HISTORY; len <= n; len++) {
		struct nightly_found *f;
		ssize_t k = nightly_series_changes(c, len, DIR_HIGHER_BETTER, p, false, &f, err,
						   sizeof(err));
		int mailed = 0;

		if (k < 0) {
			fprintf(stderr, "nightly_sim: %s\n", err);
			return -1;
		}
		for (ssize_t i = 0; i < k; i++) {
			struct record *r = NULL;

			for (size_t j = 0; j < nrec && !r; j++)
				if (rec[j].v == f[i].verdict && f[i].lo <= rec[j].hi &&
				    rec[j].lo <= f[i].hi)
					r = &rec[j];
			if (r) { /* the same change: a better place updates it, one follow-up */
				if (f[i].from_cp && f[i].index != r->index) {
					/* mailed again only when the mailed place left the range */
					bool moved = r->index < f[i].lo || r->index > f[i].hi;

					if (moved && !r->followed && len > HISTORY) {
						o->followups++;
						mailed++;
					}
					r->followed |= moved;
					/* known wherever it was placed (nightly records each);
					 * r->index stays the mailed commit */
					r->lo = f[i].lo < r->lo ? f[i].lo : r->lo;
					r->hi = f[i].hi > r->hi ? f[i].hi : r->hi;
				}
				continue;
			}
			if (nrec < 32)
				rec[nrec++] = (struct record){f[i].index, f[i].lo, f[i].hi,
							      f[i].verdict, false};
			if (len == HISTORY)
				continue; /* the baseline: recorded, not mailed */
			o->mails++;
			mailed++;
			/* about the step: a regression whose range meets the step's commit or
			 * a neighbour */
			if (step != 0 && f[i].verdict == V_REGRESSION && f[i].hi + 1 >= HISTORY &&
			    f[i].lo <= HISTORY + 1) {
				if (o->first_night < 0)
					o->first_night = (int)(len - 1 - HISTORY);
				o->step_mails++;
			} else {
				o->other++;
			}
		}
		o->nights_mailing += len > HISTORY && mailed;
		free(f);
	}
	for (size_t j = 0; j < nrec; j++)
		if (rec[j].v == V_REGRESSION && rec[j].lo <= HISTORY && HISTORY <= rec[j].hi)
			o->in_range = true;
	return 0;
}

static int aa(const struct nightly_policy *p, int nseries, size_t runs, double noise)
{
	long nights = 0, mailing = 0;
	const size_t evaluated = 20;

	for (int s = 0; s < nseries; s++) {
		struct outcome o;

		if (series(p, runs, noise, 0, evaluated, &o))
			return -1;
		nights += (long)evaluated;
		mailing += o.nights_mailing;
	}
	printf("A/A  noise %4.1f%%: %6.2f%% of %ld job-nights mail anything\n", 100 * noise,
	       100.0 * (double)mailing / (double)nights, nights);
	return 0;
}

static int steps(const struct nightly_policy *p, int nseries, size_t runs, double noise,
		 double step)
{
	int by3 = 0, by10 = 0, dup = 0, follow = 0, in_range = 0, other = 0, mailed = 0;

	for (int s = 0; s < nseries; s++) {
		struct outcome o;

		if (series(p, runs, noise, step, 11, &o))
			return -1;
		by3 += o.first_night >= 0 && o.first_night <= 2;
		by10 += o.first_night >= 0 && o.first_night <= 9;
		dup += o.step_mails > 1;
		follow += o.followups > 0;
		mailed += o.first_night >= 0;
		in_range += o.first_night >= 0 && o.in_range;
		other += o.other > 0;
	}
	printf("step %+3.0f%% noise %4.1f%%: mailed within 3 nights %5.1f%%, within 10 %5.1f%%; "
	       "duplicates %d, follow-ups %d, culprit in range %5.1f%% of mailed, other mail "
	       "%d\n",
	       100 * step, 100 * noise, 100.0 * by3 / nseries, 100.0 * by10 / nseries, dup, follow,
	       mailed ? 100.0 * in_range / mailed : NAN, other);
	return 0;
}

int main(int argc, char **argv)
{
	struct nightly_policy p;
	int nseries = argc > 1 ? atoi(argv[1]) : 1000;
	size_t runs = argc > 2 ? (size_t)atoi(argv[2]) : 3;

	nightly_policy_default(&p);
	if (argc > 3)
		p.confirm_commits = (size_t)atoi(argv[3]);
	if (argc > 4)
		p.night_z = atof(argv[4]);
	if (nseries < 1 || runs < 1 || runs > 8 || p.confirm_commits < 1) {
		fprintf(stderr, "usage: nightly_sim [SERIES [RUNS (1-8) [CONFIRM [Z]]]]\n");
		return 2;
	}
	printf("%d series, %zu runs a night, %d commits of history; confirm %zu commits, "
	       "one night at %.1f sigma of the night noise\n",
	       nseries, runs, HISTORY, p.confirm_commits, p.night_z);
	if (aa(&p, nseries, runs, 0.02) || aa(&p, nseries, runs, 0.10) ||
	    steps(&p, nseries, runs, 0.02, -0.05) || steps(&p, nseries, runs, 0.02, -0.02) ||
	    steps(&p, nseries, runs, 0.10, -0.05))
		return 1;
	return 0;
}
