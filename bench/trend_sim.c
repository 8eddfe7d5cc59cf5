/* Change points on synthetic series with known truth (analyze/changepoint.c, the defaults of
 * `scalebench trend`).  Every run is lognormal around its commit's level with NOISE_PCT run
 * noise; RUNS runs per commit.
 *   - steps of -2 .. -10%: one step at a random commit of a series of 60-200 commits (at
 *     least 10 commits on each side), found when a change point lies within +-1 commit of it;
 *     "extra" counts series with any other change point;
 *   - A/A: 200 commits, no change: the share of series with no change point at all;
 *   - two changes 5-8 commits apart, a staircase (-5% then -5% more) and a dip (-6% then back
 *     up): both found within +-1 commit;
 *   - one outlier commit (all its runs 20% low) in 200: the share with no change point;
 *   - the time of one detection over 1,000 commits x 5 runs (A/A, and with 3 steps).
 * usage: trend_sim [SEEDS [NOISE_PCT [RUNS]]]   (defaults 500, 2, 3) */
#include "../analyze/changepoint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t rng;

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

static size_t between(size_t lo, size_t hi)
{
	return lo + (size_t)(uniform() * (double)(hi - lo + 1));
}

struct series {
	struct cp_commit *c;
	double *v;
	size_t n;
};

/* level[i]: commit i's log level; its runs around it. */
static void generate(struct series *s, size_t n, size_t runs, const double *level, double noise)
{
	s->n = n;
	s->c = realloc(s->c, n * sizeof(*s->c));
	s->v = realloc(s->v, n * runs * sizeof(*s->v));
	if (!s->c || !s->v) {
		perror("trend_sim");
		exit(2);
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < runs; j++)
			s->v[i * runs + j] = 1e6 * exp(level[i] + noise * gauss());
		s->c[i] = (struct cp_commit){s->v + i * runs, runs};
	}
}

static ssize_t detect(const struct series *s, struct change_point **cp)
{
	struct cp_opts o;
	char err[256];
	ssize_t k;

	cp_opts_default(&o);
	k = changepoints_find(s->c, s->n, DIR_HIGHER_BETTER, &o, cp, err, sizeof(err));
	if (k < 0) {
		fprintf(stderr, "trend_sim: %s\n", err);
		exit(2);
	}
	return k;
}

static bool found(const struct change_point *cp, size_t k, size_t at)
{
	for (size_t i = 0; i < k; i++)
		if (cp[i].index + 1 >= at && cp[i].index <= at + 1)
			return true;
	return false;
}

/* Any change point not within +-1 of a true one. */
static bool extra(const struct change_point *cp, size_t k, const size_t *at, size_t nat)
{
	for (size_t i = 0; i < k; i++) {
		bool near = false;

		for (size_t t = 0; t < nat; t++)
			near = near || (cp[i].index + 1 >= at[t] && cp[i].index <= at[t] + 1);
		if (!near)
			return true;
	}
	return false;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median ms of reps detections on 1,000 commits x 5 runs with nsteps steps of -5%. */
static double timing(size_t nsteps, double noise, int reps, ssize_t *found_k)
{
	static double level[1000], t[64];
	struct series s = {0};
	struct change_point *cp;

	for (int r = 0; r < reps && r < 64; r++) {
		for (size_t i = 0; i < 1000; i++)
			level[i] = nsteps ? log(0.95) * (double)(i * (nsteps + 1) / 1000) : 0;
		generate(&s, 1000, 5, level, noise);
		double t0 = now_s();

		*found_k = detect(&s, &cp);
		t[r] = (now_s() - t0) * 1e3;
		free(cp);
	}
	free(s.c);
	free(s.v);
	qsort(t, (size_t)reps, sizeof(*t), by_double);
	return t[reps / 2];
}

int main(int argc, char **argv)
{
	int seeds = argc > 1 ? atoi(argv[1]) : 500;
	double noise = (argc > 2 ? atof(argv[2]) : 2) / 100;
	size_t runs = argc > 3 ? (size_t)atoi(argv[3]) : 3;
	static const double steps[] = {-2, -4, -6, -8, -10};
	double level[200];
	struct series s = {0};
	struct change_point *cp;
	ssize_t k;

	if (seeds < 1 || runs < 1 || !(noise > 0)) {
		fprintf(stderr, "usage: trend_sim [SEEDS [NOISE_PCT [RUNS]]]\n");
		return 2;
	}
	printf("%d seeds per row, %.1f%% run noise (lognormal), %zu runs per commit, "
	       "defaults of scalebench trend\n\n",
	       seeds, noise * 100, runs);
	printf("step    found +-1 commit   extra change points\n");
	for (size_t st = 0; st < sizeof(steps) / sizeof(*steps); st++) {
		int hit = 0, more = 0;

		rng = 1000 + st;
		for (int i = 0; i < seeds; i++) {
			size_t n = between(60, 200), at = between(10, n - 10);

			for (size_t j = 0; j < n; j++)
				level[j] = j >= at ? log1p(steps[st] / 100) : 0;
			generate(&s, n, runs, level, noise);
			k = detect(&s, &cp);
			hit += found(cp, (size_t)k, at);
			more += extra(cp, (size_t)k, &at, 1);
			free(cp);
		}
		printf("%4.0f%%    %6.1f%%             %6.1f%%\n", steps[st], 100.0 * hit / seeds,
		       100.0 * more / seeds);
	}

	int none = 0;

	rng = 2000;
	for (int i = 0; i < seeds; i++) {
		for (size_t j = 0; j < 200; j++)
			level[j] = 0;
		generate(&s, 200, runs, level, noise);
		k = detect(&s, &cp);
		none += k == 0;
		free(cp);
	}
	printf("\nA/A, 200 commits: no change point in %.1f%% of series\n", 100.0 * none / seeds);

	static const char *const pair_name[] = {"staircase -5%, -5%", "dip -6%, +6%"};

	for (int kind = 0; kind < 2; kind++) {
		int both = 0, more = 0;

		rng = 3000 + (uint64_t)kind;
		for (int i = 0; i < seeds; i++) {
			size_t n = between(60, 200), at[2];

			at[0] = between(15, n - 25);
			at[1] = at[0] + between(5, 8);
			for (size_t j = 0; j < n; j++) {
				double l = 0;

				if (j >= at[0])
					l += kind ? log(0.94) : log(0.95);
				if (j >= at[1])
					l += kind ? -log(0.94) : log(0.95);
				level[j] = l;
			}
			generate(&s, n, runs, level, noise);
			k = detect(&s, &cp);
			both += found(cp, (size_t)k, at[0]) && found(cp, (size_t)k, at[1]);
			more += extra(cp, (size_t)k, at, 2);
			free(cp);
		}
		printf("two changes 5-8 commits apart, %s: both found in %.1f%%, extra in %.1f%%\n",
		       pair_name[kind], 100.0 * both / seeds, 100.0 * more / seeds);
	}

	none = 0;
	rng = 4000;
	for (int i = 0; i < seeds; i++) {
		size_t at = between(10, 189);

		for (size_t j = 0; j < 200; j++)
			level[j] = j == at ? log(0.8) : 0;
		generate(&s, 200, runs, level, noise);
		k = detect(&s, &cp);
		none += k == 0;
		free(cp);
	}
	printf("one outlier commit (-20%%) in 200: no change point in %.1f%%\n",
	       100.0 * none / seeds);
	free(s.c);
	free(s.v);

	ssize_t k0, k3;
	double t0 = timing(0, noise, 9, &k0), t3 = timing(3, noise, 9, &k3);

	printf("\n1,000 commits x 5 runs: %.1f ms (A/A, %zd found), %.1f ms (3 steps of -5%%, %zd "
	       "found), median of 9, CPU time\n",
	       t0, k0, t3, k3);
	return 0;
}
