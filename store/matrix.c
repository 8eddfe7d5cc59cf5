#include "matrix.h"
#include "store.h"
#include "layout.h"
#include "run_read.h"

#include "../lib/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* lib/matrix.rb unite_remove_denylist_stats: /^sched_debug.*\.[0-9]+$/, per-CPU values that
 * change from run to run whatever the kernel does. */
static bool denylisted(const char *name)
{
	static const char prefix[] = "sched_debug";
	const char *dot = strrchr(name, '.');

	if (strncmp(name, prefix, sizeof(prefix) - 1) || !dot || dot < name + sizeof(prefix) - 1 ||
	    !dot[1])
		return false;
	return strspn(dot + 1, "0123456789") == strlen(dot + 1);
}

/* unite_remove_empty_stats: no values, or only integer zeros (a float 0.0 is kept). */
static bool empty_stat(const json_t *values)
{
	size_t i;
	json_t *v;

	json_array_foreach (values, i, v) {
		if (!json_is_integer(v) || json_integer_value(v))
			return false;
	}
	return true;
}

/* lib/stats.rb add_stats_to_matrix: pad the stat to the columns the matrix has before this
 * run, then append the run's value (an array's values, one by one). */
static int add_run(json_t *matrix, json_t *stats)
{
	size_t columns = 0;
	const char *name;
	json_t *v;

	json_object_foreach (matrix, name, v) {
		if (json_array_size(v) > columns)
			columns = json_array_size(v);
	}
	json_object_foreach (stats, name, v) {
		json_t *values = json_object_get(matrix, name);

		if (!values) {
			values = json_array();
			if (!values || json_object_set_new(matrix, name, values))
				return -1;
		}
		while (json_array_size(values) < columns)
			if (json_array_append_new(values, json_integer(0)))
				return -1;
		if (json_is_array(v) ? json_array_extend(values, v) : json_array_append(values, v))
			return -1;
	}
	return 0;
}

/* One run's stats.json as LKP loads it, its "stats_source" added (unite_stats: the real path,
 * which LKP's unite_to also uses to find the run's column again).  NULL with err. */
static json_t *run_stats(const char *run_dir, char *err, size_t errlen)
{
	char path[PATH_MAX], real[PATH_MAX], source[PATH_MAX + 16];
	json_error_t e;
	size_t len;
	char *text;
	json_t *stats;

	if (path_fmt(path, sizeof(path), err, errlen, "%s/%s", run_dir, STORE_STATS_FILE))
		return NULL;
	text = store_read_file(path, &len);
	if (!text) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	stats = json_loadb(text, len, 0, &e);
	free(text);
	if (!json_is_object(stats)) {
		snprintf(err, errlen, "%s: line %d: %s", path, e.line,
			 stats ? "not a JSON object" : e.text);
		json_decref(stats);
		return NULL;
	}
	if (!realpath(run_dir, real) ||
	    snprintf(source, sizeof(source), "%s/%s", real, STORE_STATS_FILE) >= (int)sizeof(source) ||
	    json_object_set_new(stats, "stats_source", json_string(source))) {
		snprintf(err, errlen, "%s: cannot name its stats_source: %s", run_dir,
			 strerror(errno ? errno : ENOMEM));
		json_decref(stats);
		return NULL;
	}
	return stats;
}

/* A run without stats.json did not complete: LKP never unites one. */
static bool run_complete(const char *run_dir)
{
	char path[PATH_MAX];

	return snprintf(path, sizeof(path), "%s/%s", run_dir, STORE_STATS_FILE) >=
		       (int)sizeof(path) ||
	       access(path, F_OK) == 0 || errno != ENOENT;
}

/* unite_to's pruning, done after each run as unite_to does it: a stat dropped for being all
 * zeros comes back at the end of the order when a later run has it. */
static int prune(json_t *matrix)
{
	json_t *drop = json_array(), *v;
	const char *name;
	size_t i;
	int ret = drop ? 0 : -1;

	json_object_foreach (matrix, name, v) {
		if (!ret && (denylisted(name) || empty_stat(v)) &&
		    json_array_append_new(drop, json_string(name)))
			ret = -1;
	}
	json_array_foreach (drop, i, v)
		json_object_del(matrix, json_string_value(v));
	json_decref(drop);
	return ret;
}

/* The matrix of every complete run of the commit directory, in run order; an empty object
 * when there is none.  NULL with err. */
static json_t *build_matrix(const char *commit_dir, char *err, size_t errlen)
{
	json_t *matrix = json_object();
	char **runs = NULL;
	ssize_t n = store_list_runs(commit_dir, &runs);
	bool ok = matrix && n >= 0;

	if (n < 0)
		snprintf(err, errlen, "cannot read %s: %s", commit_dir, strerror(errno));
	else if (!ok)
		snprintf(err, errlen, "%s: out of memory", commit_dir);
	for (ssize_t r = 0; ok && r < n; r++) {
		json_t *stats;

		if (!run_complete(runs[r]))
			continue;
		stats = run_stats(runs[r], err, errlen);
		ok = stats && !add_run(matrix, stats) && !prune(matrix);
		if (stats && !ok)
			snprintf(err, errlen, "%s: out of memory", commit_dir);
		json_decref(stats);
	}
	for (ssize_t r = 0; r < n; r++)
		free(runs[r]);
	free(runs);
	if (!ok) {
		json_decref(matrix);
		return NULL;
	}
	return matrix;
}

/* file_write's temp files of writers killed before their rename (PATH.tmp.XXXXXX).  Every
 * matrix writer holds the commit directory's lock, as the caller does: any found is stale. */
static void sweep_tmp(int dfd)
{
	static const char prefix[] = STORE_MATRIX_FILE ".tmp.";
	DIR *d = store_opendir_locked(dfd);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, sizeof(prefix) - 1))
			unlinkat(dfd, e->d_name, 0);
	closedir(d);
}

int store_matrix_write(const char *commit_dir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	json_t *matrix = NULL;
	char *text = NULL;
	int dfd, ret = -1;
	bool locked;

	if (path_fmt(path, sizeof(path), err, errlen, "%s/%s", commit_dir, STORE_MATRIX_FILE))
		return -1;
	/* The lock store_begin takes: rebuilds are one at a time, each after its run's rename,
	 * so the last one to finish saw every run.  Where locks do not work, rebuild anyway. */
	dfd = store_lock_commit_dir(commit_dir, &locked, err, errlen);
	if (dfd < 0)
		return -1;
	if (locked)
		sweep_tmp(dfd);
	matrix = build_matrix(commit_dir, err, errlen);
	if (!matrix)
		goto out;
	if (!json_object_size(matrix)) {
		if (unlink(path) && errno != ENOENT) {
			snprintf(err, errlen, "cannot remove %s: %s", path, strerror(errno));
			goto out;
		}
		ret = 0;
		goto out;
	}
	/* LKP writes it with JSON.pretty_generate: two spaces, stats in the order they came. */
	text = json_dumps(matrix, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
	if (!text) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	ret = file_write(path, text, strlen(text), err, errlen);
out:
	free(text);
	json_decref(matrix);
	close(dfd); /* and the lock with it */
	return ret;
}

int store_matrix_paths(const char *commit_dir, FILE *out, char *err, size_t errlen)
{
	char **runs = NULL, real[PATH_MAX];
	ssize_t n = store_list_runs(commit_dir, &runs);
	int ret = 0;

	if (n < 0) {
		snprintf(err, errlen, "cannot read %s: %s", commit_dir, strerror(errno));
		return -1;
	}
	for (ssize_t r = 0; r < n; r++) {
		if (!ret && run_complete(runs[r])) {
			if (realpath(runs[r], real))
				fprintf(out, "%s/\n", real);
			else {
				snprintf(err, errlen, "%s: %s", runs[r], strerror(errno));
				ret = -1;
			}
		}
		free(runs[r]);
	}
	free(runs);
	return ret;
}
