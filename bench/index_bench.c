/* The index benchmark's measuring half (bench/index.sh drives it):
 *
 *   index_bench parse ROOT          every run's stats.json read, as a reader without the index
 *                                   would: seconds and how many runs and values
 *   index_bench query ROOT JOB STAT  one stat's series from the index: best of 20, of
 *                                   index_open (the up-to-date check a command makes) +
 *                                   series_load, and of series_load alone, in ms */
#include "../analyze/series.h"
#include "../store/index.h"
#include "../store/layout.h"
#include "../store/run_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_all(const char *root)
{
	double t0 = now_s();
	char **dirs, why[256];
	ssize_t nd = store_find(root, NULL, NULL, &dirs);
	size_t runs = 0, values = 0;

	if (nd < 0) {
		perror(root);
		return 1;
	}
	for (ssize_t i = 0; i < nd; i++) {
		char **rd;
		ssize_t nr = store_list_runs(dirs[i], &rd);

		for (ssize_t j = 0; j < nr; j++) {
			struct store_stats s;

			if (store_read_stats(rd[j], &s, why, sizeof(why)) == 0) {
				runs++;
				values += s.n;
				store_stats_free(&s);
			}
			free(rd[j]);
		}
		if (nr >= 0)
			free(rd);
		free(dirs[i]);
	}
	free(dirs);
	printf("parse: %zu runs, %zu values, %.3f s\n", runs, values, now_s() - t0);
	return 0;
}

static int query(const char *root, const char *job, const char *stat)
{
	double best_all = 1e9, best_load = 1e9;
	size_t points = 0;

	for (int i = 0; i < 20; i++) {
		struct results_index *ix;
		struct series s;
		char err[512];
		double t0 = now_s(), t1;

		if (index_open(root, INDEX_UPDATE, &ix, NULL, err, sizeof(err))) {
			fprintf(stderr, "index_bench: %s\n", err);
			return 1;
		}
		t1 = now_s();
		if (series_load(ix, job, stat, NULL, &s, err, sizeof(err))) {
			fprintf(stderr, "index_bench: %s\n", err);
			index_close(ix);
			return 1;
		}
		double t2 = now_s();

		points = s.n;
		series_free(&s);
		index_close(ix);
		if (t2 - t0 < best_all)
			best_all = t2 - t0;
		if (t2 - t1 < best_load)
			best_load = t2 - t1;
	}
	printf("query: %zu points, %.1f ms with the up-to-date check, %.1f ms series_load alone\n",
	       points, best_all * 1000, best_load * 1000);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "parse"))
		return parse_all(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "query"))
		return query(argv[2], argv[3], argv[4]);
	fprintf(stderr, "usage: index_bench parse ROOT | query ROOT JOB STAT\n");
	return 2;
}
