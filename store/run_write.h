/* Writing one run of the results store.  Its files go to a temp directory in the commit
 * directory (store_begin), which becomes the run's numbered directory only once every file
 * is written (store_commit): a run is in the tree whole or not at all.
 *
 *	store_run_begin               the temp directory
 *	store_run_create/close        job.yaml, output: streams the caller fills
 *	store_run_write_raw           a monitor's raw samples, <monitor>.samples.json[.gz]
 *	store_run_finish              meta.json, stats.json, the rename to the first free number
 *	store_run_abort               (anything not finished) removed whole
 */
#ifndef SCALEBENCH_RUN_WRITE_H
#define SCALEBENCH_RUN_WRITE_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct store_run {
	char commit_dir[PATH_MAX];
	char dir[PATH_MAX]; /* the temp directory; the run directory once finished */
	unsigned number;    /* the run number, once finished */
	int owner_fd;	    /* while writing: its lock says the writer is alive (store.h) */
	bool writing;	    /* begun, neither finished nor aborted */
};

/* Create the commit directory (mkdir -p) and the run's temp directory in it.  0, or -1 with a
 * message naming the directory in err. */
int store_run_begin(struct store_run *r, const char *commit_dir, char *err, size_t errlen);

/* A file of the run for the caller to fill, NULL (err says why) when it cannot be made; then
 * store_run_close flushes and closes it, -1 (err names it) when anything written was lost. */
FILE *store_run_create(struct store_run *r, const char *name, char *err, size_t errlen);
int store_run_close(struct store_run *r, FILE *fp, const char *name, char *err, size_t errlen);

/* A monitor's raw samples: <monitor>.samples.json, or gzip-compressed
 * <monitor>.samples.json.gz.  Not <monitor>.json: lkp-tests' create-stats-matrix
 * (lib/matrix.rb) reads that name as dump-stat's map of a monitor's stats, and a list of
 * samples there crashes it; it skips a file of a name that is no monitor's. */
#define STORE_RAW_SUFFIX ".samples.json"
int store_run_write_raw(struct store_run *r, const char *monitor, bool compress,
			const json_t *samples, char *err, size_t errlen);

/* What a run's meta.json declares for its readers, from the testcase that made it. */
struct store_headline {
	const char *suite; /* "will-it-scale": the family of the testcase's stats */
	const char *stat;  /* "will-it-scale.per_process_ops" */
	bool lower_is_better;
};

/* Add to meta the fields its readers take a run's roles from: "suite", "headline" {"stat",
 * "direction": "higher"|"lower"} and "families", every family of stats (the name up to its
 * first '.') mapped to its role: "failure" (stderr, dmesg, kmsg, last_state, and the family of
 * every stat meta's "failure_stats" lists), "headline" (the suite's), else "monitor" (the
 * only other source of a run's stats). */
int store_meta_declare(json_t *meta, const struct store_headline *h, const json_t *stats);

/* Write meta.json and stats.json and move the run to the first free number (r->number,
 * r->dir).  On error (-1, err) the run is still there for store_run_abort. */
int store_run_finish(struct store_run *r, const json_t *meta, const json_t *stats, char *err,
		     size_t errlen);

/* Remove an unfinished run whole; nothing for one finished or never begun. */
void store_run_abort(struct store_run *r);

#endif
