/* Unit tests of the results index (store/index.c): built, updated incrementally, rebuilt when
 * missing, corrupt, truncated or of another schema, and left whole by a killed update. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../store/index.h"
#include "../../store/layout.h"
#include "../../store/run_write.h"
#include "../../store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char root[64];

static int setup(void **state)
{
	(void)state;
	strcpy(root, "/tmp/sb-index-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void commit_dir(const char *pp, const char *commit, char *out, size_t len)
{
	struct store_axes a = {.root = root,
			       .testcase = "will-it-scale",
			       .path_params = pp,
			       .tbox_group = "lkp-box",
			       .rootfs = "debian-12-x86_64",
			       .kconfig = "defconfig",
			       .compiler = "gcc-12",
			       .commit = commit};

	assert_int_equal(store_path(&a, out, len), 0);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A run written by hand: nstats stats, "s.<i>" = base + i, and the headline. */
static void hand_run(const char *pp, const char *commit, unsigned run, long started,
		     const char *status, double headline, int nstats)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	commit_dir(pp, commit, dir, sizeof(dir));
	assert_int_equal(store_mkdirs(dir), 0);
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/%u", run);
	assert_int_equal(mkdir(dir, 0755), 0);
	fprintf(f, "{\"will-it-scale.per_process_ops\": %.17g", headline);
	for (int i = 0; i < nstats; i++)
		fprintf(f, ", \"s.%d\": %d", i, i + (int)run);
	fputs("}\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/stats.json", dir);
	write_file(path, text);
	free(text);
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	if (started >= 0) {
		char when[64];
		time_t t = started;

		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S+0000", gmtime(&t));
		fprintf(f,
			"{\"started\": \"%s\", \"status\": \"%s\", \"machine\": {\"cpu_model\":"
			" \"Test CPU\"}}\n",
			when, status);
	} else {
		fprintf(f, "{\"status\": \"%s\"}\n", status);
	}
	fclose(f);
}

static void index_path(char *out, size_t len)
{
	snprintf(out, len, "%s/%s", root, INDEX_FILE);
}

static struct results_index *open_ok(enum index_mode mode, struct index_update *u)
{
	struct results_index *ix = NULL;
	char err[512] = "";

	if (index_open(root, mode, &ix, u, err, sizeof(err)))
		fail_msg("index_open: %s", err);
	return ix;
}

static void three_commits(void)
{
	hand_run("process-1-page_fault3", "aaa", 0, 1000, "ok", 100, 5);
	hand_run("process-1-page_fault3", "aaa", 1, 1010, "ok", 102, 5);
	hand_run("process-1-page_fault3", "bbb", 0, 2000, "ok", 90, 5);
	hand_run("process-1-page_fault3", "bbb", 1, 2010, "failed", 0, 5);
	hand_run("process-1-page_fault3", "ccc", 0, 1500, "ok", 95, 5);
	hand_run("thread-1-page_fault3", "aaa", 0, 1000, "ok", 50, 3);
}

static void test_build_and_query(void **state)
{
	struct index_update u;
	struct results_index *ix;
	struct index_job *jobs;
	struct index_commit *c;
	struct index_value *v;
	char **names;
	ssize_t n;

	(void)state;
	three_commits();
	ix = open_ok(INDEX_UPDATE, &u);
	assert_true(u.rebuilt);
	assert_string_equal(u.why_rebuilt, "missing");
	assert_int_equal(u.runs_added, 6);
	assert_int_equal(u.runs_total, 6);
	assert_int_equal(u.runs_removed, 0);
	assert_int_equal(u.runs_skipped, 0);

	n = index_jobs(ix, NULL, &jobs);
	assert_int_equal(n, 2);
	assert_string_equal(jobs[0].key, "will-it-scale/process-1-page_fault3/lkp-box/"
					 "debian-12-x86_64/defconfig/gcc-12");
	assert_string_equal(jobs[0].path_params, "process-1-page_fault3");
	assert_string_equal(jobs[0].tbox_group, "lkp-box");
	assert_int_equal(jobs[0].commits, 3);
	assert_int_equal(jobs[0].runs, 5);
	assert_int_equal(jobs[1].runs, 1);
	char *key = strdup(jobs[0].key);

	index_jobs_free(jobs, (size_t)n);
	n = index_jobs(ix, "thread-1-page_fault3", &jobs);
	assert_int_equal(n, 1);
	index_jobs_free(jobs, 1);
	n = index_jobs(ix, key, &jobs);
	assert_int_equal(n, 1);
	index_jobs_free(jobs, 1);
	assert_int_equal(index_jobs(ix, "nope", &jobs), 0);
	free(jobs);

	/* Commits in time order: aaa (1000), ccc (1500), bbb (2000). */
	n = index_commits(ix, key, NULL, &c);
	assert_int_equal(n, 3);
	assert_string_equal(c[0].commit, "aaa");
	assert_int_equal(c[0].first_started, 1000);
	assert_int_equal(c[0].last_started, 1010);
	assert_int_equal(c[0].runs, 2);
	assert_int_equal(c[0].failed, 0);
	assert_string_equal(c[0].machine, "Test CPU");
	assert_string_equal(c[1].commit, "ccc");
	assert_string_equal(c[2].commit, "bbb");
	assert_int_equal(c[2].failed, 1);
	assert_non_null(strstr(c[2].dir, "/gcc-12/bbb"));
	assert_int_equal(strncmp(c[2].dir, root, strlen(root)), 0);
	index_commits_free(c, (size_t)n);
	n = index_commits(ix, NULL, "aaa", &c);
	assert_int_equal(n, 2);
	index_commits_free(c, (size_t)n);

	n = index_stat_values(ix, key, "will-it-scale.per_process_ops", &v);
	assert_int_equal(n, 5);
	assert_string_equal(v[0].commit, "aaa");
	assert_int_equal(v[0].run, 0);
	assert_true(v[0].value == 100);
	assert_string_equal(v[1].commit, "aaa");
	assert_true(v[1].value == 102);
	assert_string_equal(v[2].commit, "ccc");
	assert_string_equal(v[4].commit, "bbb");
	assert_false(v[4].ok);
	assert_true(v[3].ok);
	index_values_free(v, (size_t)n);
	/* No rows: nothing allocated, so a caller that frees only when n > 0 leaks nothing
	 * (fuzz_index found the 1-byte allocation this used to hand over). */
	assert_int_equal(index_stat_values(ix, key, "no.such", &v), 0);
	assert_null(v);

	n = index_stat_names(ix, key, &names);
	assert_int_equal(n, 6);
	assert_string_equal(names[0], "s.0");
	assert_string_equal(names[5], "will-it-scale.per_process_ops");
	for (ssize_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(key);
	index_close(ix);

	/* Up to date: nothing read again. */
	ix = open_ok(INDEX_UPDATE, &u);
	assert_false(u.rebuilt);
	assert_int_equal(u.runs_added, 0);
	assert_int_equal(u.runs_total, 6);
	index_close(ix);
	ix = open_ok(INDEX_REBUILD, &u);
	assert_true(u.rebuilt);
	assert_string_equal(u.why_rebuilt, "asked");
	assert_int_equal(u.runs_added, 6);
	index_close(ix);
}

static void test_incremental(void **state)
{
	struct index_update u;
	struct results_index *ix;
	struct index_commit *c;
	char dir[PATH_MAX], cmd[PATH_MAX + 16];
	ssize_t n;

	(void)state;
	three_commits();
	index_close(open_ok(INDEX_UPDATE, &u));

	hand_run("process-1-page_fault3", "ddd", 0, 3000, "ok", 80, 5);
	ix = open_ok(INDEX_UPDATE, &u);
	assert_false(u.rebuilt);
	assert_int_equal(u.runs_added, 1);
	assert_int_equal(u.runs_removed, 0);
	assert_int_equal(u.runs_total, 7);
	index_close(ix);

	/* A commit directory deleted; another run again under the same numbers. */
	commit_dir("process-1-page_fault3", "bbb", dir, sizeof(dir));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	commit_dir("process-1-page_fault3", "aaa", dir, sizeof(dir));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	hand_run("process-1-page_fault3", "aaa", 0, 4000, "ok", 70, 2);
	ix = open_ok(INDEX_UPDATE, &u);
	assert_int_equal(u.runs_removed, 4);
	assert_int_equal(u.runs_added, 1);
	assert_int_equal(u.runs_total, 4);
	n = index_commits(ix,
			  "will-it-scale/process-1-page_fault3/lkp-box/debian-12-x86_64/"
			  "defconfig/gcc-12",
			  "aaa", &c);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].first_started, 4000);
	assert_int_equal(c[0].runs, 1);
	index_commits_free(c, 1);
	char **names;

	n = index_stat_names(ix,
			     "will-it-scale/process-1-page_fault3/lkp-box/debian-12-x86_64/"
			     "defconfig/gcc-12",
			     &names);
	assert_int_equal(n, 6);
	for (ssize_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	index_close(ix);

	/* Every job gone: no job left either. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/will-it-scale'", root);
	assert_int_equal(system(cmd), 0);
	ix = open_ok(INDEX_UPDATE, &u);
	assert_int_equal(u.runs_total, 0);
	struct index_job *jobs;

	assert_int_equal(index_jobs(ix, NULL, &jobs), 0);
	free(jobs);
	index_close(ix);
}

static void test_skipped_runs(void **state)
{
	struct index_update u;
	struct results_index *ix;
	char dir[PATH_MAX], path[PATH_MAX + 32];
	const char *const *skipped;
	size_t ns;

	(void)state;
	three_commits();
	commit_dir("process-1-page_fault3", "eee", dir, sizeof(dir));
	strcat(dir, "/0");
	assert_int_equal(store_mkdirs(dir), 0); /* incomplete: no stats.json */
	commit_dir("process-1-page_fault3", "eee", dir, sizeof(dir));
	strcat(dir, "/1");
	assert_int_equal(store_mkdirs(dir), 0);
	snprintf(path, sizeof(path), "%s/stats.json", dir);
	write_file(path, "{\"a\": tru");
	ix = open_ok(INDEX_UPDATE, &u);
	assert_int_equal(u.runs_total, 6);
	assert_int_equal(u.runs_skipped, 2);
	skipped = index_skipped(ix, &ns);
	assert_int_equal(ns, 2);
	assert_non_null(strstr(skipped[0], "eee/0/stats.json: missing"));
	assert_non_null(strstr(skipped[1], "eee/1/stats.json: "));
	index_close(ix);

	/* Retried next time: now whole. */
	write_file(path, "{\"a\": 1}");
	ix = open_ok(INDEX_UPDATE, &u);
	assert_int_equal(u.runs_added, 1);
	assert_int_equal(u.runs_skipped, 1);
	assert_int_equal(u.runs_total, 7);
	index_close(ix);
}

static void test_no_started(void **state)
{
	struct index_update u;
	struct results_index *ix;
	struct index_commit *c;
	struct stat st;
	char dir[PATH_MAX];

	(void)state;
	hand_run("p", "x", 0, -1, "ok", 1, 1);
	commit_dir("p", "x", dir, sizeof(dir));
	strcat(dir, "/0");
	assert_int_equal(stat(dir, &st), 0);
	ix = open_ok(INDEX_UPDATE, &u);
	assert_int_equal(index_commits(ix, NULL, NULL, &c), 1);
	/* No "started": the run directory's time; no cpu_model: the tbox_group. */
	assert_int_equal(c[0].first_started, st.st_mtime);
	assert_string_equal(c[0].machine, "lkp-box");
	index_commits_free(c, 1);
	index_close(ix);
}

/* A name stats.json lists twice: the later value counts, as everywhere else. */
static void test_duplicate_name(void **state)
{
	struct index_update u;
	struct results_index *ix;
	struct index_value *v;
	char dir[PATH_MAX], path[PATH_MAX + 32];

	(void)state;
	hand_run("p", "x", 0, 100, "ok", 1, 1);
	commit_dir("p", "x", dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/0/stats.json", dir);
	write_file(path, "{\"a\": 1, \"b\": 5, \"a\": 2}");
	ix = open_ok(INDEX_UPDATE, &u);
	assert_int_equal(u.runs_added, 1);
	assert_int_equal(index_stat_values(ix,
					   "will-it-scale/p/lkp-box/debian-12-x86_64/defconfig/"
					   "gcc-12",
					   "a", &v),
			 1);
	assert_true(v[0].value == 2);
	index_values_free(v, 1);
	index_close(ix);
}

/* The rows of vals a stat has (the stats kept in rows: the headline, failures). */
static long rows_of(const char *stat)
{
	char path[PATH_MAX];
	sqlite3 *db;
	sqlite3_stmt *st;
	long n = -1;

	index_path(path, sizeof(path));
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT count(*) FROM vals v JOIN stats s ON s.id ="
					    " v.stat_id WHERE s.name = ?",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, stat, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* The sum the last update left says what the file holds (the chunks it did not read back
 * included): the same bytes in a new file are trusted, not rebuilt. */
static void assert_sum_true(void)
{
	struct index_update u;
	char path[PATH_MAX], cmd[4 * PATH_MAX + 64];

	index_path(path, sizeof(path));
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s.copy' && mv '%s.copy' '%s'", path, path, path,
		 path);
	assert_int_equal(system(cmd), 0);
	index_close(open_ok(INDEX_UPDATE, &u));
	assert_false(u.rebuilt);
}

/* Each run's values are one blob; the headline (and failures) also rows.  A stat a later run
 * declares its headline is copied to rows from the blobs of the runs before; a stat's values
 * are the same from either (for one stat, and once all the job's stats are read); dropping a
 * run drops the stats no run left has. */
static void test_blobs_and_rows(void **state)
{
	static const char key[] = "will-it-scale/p/lkp-box/debian-12-x86_64/defconfig/gcc-12";
	struct index_update u;
	struct results_index *ix;
	struct index_value *v;
	char dir[PATH_MAX], path[PATH_MAX + 32], cmd[PATH_MAX + 64], **names;
	struct stat st;
	ssize_t n;

	(void)state;
	/* another job's 8,000 stats: chunks of the file the later updates do not write (the sum
	 * carries their CRCs forward) */
	hand_run("q", "c", 0, 50, "ok", 1, 8000);
	hand_run("p", "x", 0, 100, "ok", 10, 2); /* s.0 = 0, s.1 = 1 */
	hand_run("p", "x", 1, 110, "ok", 11, 3); /* s.0 = 1, s.1 = 2, s.2 = 3 */
	index_close(open_ok(INDEX_UPDATE, &u));
	index_path(path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 4 * 65536);
	assert_int_equal(rows_of("will-it-scale.per_process_ops"), 3);
	assert_int_equal(rows_of("s.0"), 0);

	hand_run("p", "y", 0, 200, "ok", 12, 2);
	commit_dir("p", "y", dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/0/meta.json", dir);
	write_file(path, "{\"started\": 200, \"status\": \"ok\", \"headline\": {\"stat\": \"s.0\"}}");
	ix = open_ok(INDEX_QUICK, &u);
	assert_int_equal(u.runs_added, 1);
	assert_int_equal(rows_of("s.0"), 3); /* p's alone: q's runs declare no such headline */
	n = index_stat_values(ix, key, "s.0", &v);
	assert_int_equal(n, 3);
	assert_true(v[0].value == 0 && v[1].value == 1 && v[2].value == 0);
	assert_string_equal(v[2].commit, "y");
	index_values_free(v, 3);
	/* from the blobs: one stat, then (a second stat asked) all of them */
	for (int pass = 0; pass < 2; pass++) {
		n = index_stat_values(ix, key, "s.1", &v);
		assert_int_equal(n, 3);
		assert_true(v[0].value == 1 && v[1].value == 2 && v[2].value == 1);
		assert_string_equal(v[0].commit, "x");
		assert_int_equal(v[1].run, 1);
		assert_true(v[1].started == 110 && v[1].ok);
		index_values_free(v, 3);
		n = index_stat_values(ix, key, "s.2", &v);
		assert_int_equal(n, 1);
		assert_true(v[0].value == 3 && v[0].run == 1);
		index_values_free(v, 1);
	}
	assert_int_equal(index_stat_values(ix, key, "no.such", &v), 0);
	index_close(ix);
	assert_sum_true();

	/* x's second run gone: s.2 with it, from the job's stats and its series */
	commit_dir("p", "x", dir, sizeof(dir));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/1'", dir);
	assert_int_equal(system(cmd), 0);
	ix = open_ok(INDEX_QUICK, &u);
	assert_int_equal(u.runs_removed, 1);
	assert_int_equal(rows_of("s.0"), 2);
	assert_int_equal(index_stat_values(ix, key, "s.2", &v), 0);
	n = index_stat_names(ix, key, &names);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "s.0");
	assert_string_equal(names[1], "s.1");
	assert_string_equal(names[2], "will-it-scale.per_process_ops");
	for (ssize_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	index_close(ix);
	assert_sum_true();
}

static void test_real_writer(void **state)
{
	struct index_update u;
	struct results_index *ix;
	struct store_run r;
	struct index_value *v;
	char dir[PATH_MAX], err[256];
	json_t *meta, *stats;

	(void)state;
	commit_dir("process-2-brk1", "v6.8", dir, sizeof(dir));
	for (int i = 0; i < 2; i++) {
		assert_int_equal(store_run_begin(&r, dir, err, sizeof(err)), 0);
		meta = json_pack("{s:s, s:s, s:{s:s}}", "started", "2026-01-02T03:04:05+0100",
				 "status", "ok", "machine", "cpu_model", "Xeon");
		stats = json_pack("{s:f, s:i}", "will-it-scale.per_process_ops", 10.5 + i,
				  "proc-vmstat.pgfault", 7);
		assert_int_equal(store_run_finish(&r, meta, stats, err, sizeof(err)), 0);
		json_decref(meta);
		json_decref(stats);
		close(r.owner_fd);
	}
	ix = open_ok(INDEX_UPDATE, &u);
	assert_int_equal(u.runs_added, 2);
	assert_int_equal(index_stat_values(ix,
					   "will-it-scale/process-2-brk1/lkp-box/"
					   "debian-12-x86_64/defconfig/gcc-12",
					   "will-it-scale.per_process_ops", &v),
			 2);
	assert_true(v[0].value == 10.5 && v[1].value == 11.5);
	/* 03:04:05 at +01:00 is 02:04:05 UTC. */
	assert_int_equal(v[0].started, 1767319445);
	index_values_free(v, 2);
	index_close(ix);
}

static void set_user_version(int version)
{
	char path[PATH_MAX], sql[64];
	sqlite3 *db;

	index_path(path, sizeof(path));
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void test_rebuilt_when_bad(void **state)
{
	struct index_update u;
	struct results_index *ix;
	char path[PATH_MAX], why[64];
	struct stat st;

	(void)state;
	three_commits();
	index_close(open_ok(INDEX_UPDATE, &u));
	index_path(path, sizeof(path));

	/* Garbage. */
	write_file(path, "this is not a database, not at all, but it is long enough to be "
			 "read as a header of one: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n");
	ix = open_ok(INDEX_UPDATE, &u);
	assert_true(u.rebuilt);
	assert_string_equal(u.why_rebuilt, "corrupt");
	assert_int_equal(u.runs_total, 6);
	index_close(ix);

	/* Truncated: the header says more pages than there are. */
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 4096);
	assert_int_equal(truncate(path, st.st_size / 2), 0);
	ix = open_ok(INDEX_UPDATE, &u);
	assert_true(u.rebuilt);
	assert_string_equal(u.why_rebuilt, "corrupt");
	assert_int_equal(u.runs_total, 6);
	index_close(ix);
	assert_int_equal(truncate(path, 0), 0);
	ix = open_ok(INDEX_UPDATE, &u);
	assert_true(u.rebuilt);
	assert_string_equal(u.why_rebuilt, "empty");
	assert_int_equal(u.runs_total, 6);
	index_close(ix);

	/* Another schema. */
	set_user_version(INDEX_SCHEMA + 1);
	ix = open_ok(INDEX_UPDATE, &u);
	assert_true(u.rebuilt);
	snprintf(why, sizeof(why), "schema %d, this scalebench has %d", INDEX_SCHEMA + 1,
		 INDEX_SCHEMA);
	assert_string_equal(u.why_rebuilt, why);
	assert_int_equal(u.runs_total, 6);
	index_close(ix);
	ix = open_ok(INDEX_UPDATE, &u);
	assert_false(u.rebuilt);
	index_close(ix);

	/* Deleted: nothing lost. */
	assert_int_equal(unlink(path), 0);
	ix = open_ok(INDEX_UPDATE, &u);
	assert_string_equal(u.why_rebuilt, "missing");
	assert_int_equal(u.runs_total, 6);
	index_close(ix);

	char err[256];

	assert_int_equal(
	    index_open("/nonexistent/results", INDEX_UPDATE, &ix, &u, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/results: no such results directory"));
}

static void sql_on_index(const char *sql)
{
	char path[PATH_MAX];
	sqlite3 *db;

	index_path(path, sizeof(path));
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static double headline_of(struct results_index *ix, const char *commit)
{
	struct index_value *v;
	ssize_t n = index_stat_values(ix,
				      "will-it-scale/process-1-page_fault3/lkp-box/"
				      "debian-12-x86_64/defconfig/gcc-12",
				      "will-it-scale.per_process_ops", &v);
	double x = -1;

	assert_true(n > 0);
	for (ssize_t i = 0; i < n; i++)
		if (!strcmp(v[i].commit, commit) && v[i].run == 0)
			x = v[i].value;
	index_values_free(v, (size_t)n);
	return x;
}

/* An index of this schema whose values changed otherwise than by an update (a flipped byte,
 * an edit by another program) is rebuilt before it is read; the same bytes in another file
 * (a copy) are not, nor is an index its sum describes. */
static void test_changed_under_us(void **state)
{
	struct index_update u;
	struct results_index *ix;
	char path[PATH_MAX], sum[PATH_MAX], copy[PATH_MAX + 8], cmd[5 * PATH_MAX];

	(void)state;
	three_commits();
	index_close(open_ok(INDEX_UPDATE, &u));
	index_path(path, sizeof(path));
	snprintf(sum, sizeof(sum), "%s/%s", root, INDEX_SUM_FILE);
	assert_int_equal(access(sum, F_OK), 0);

	ix = open_ok(INDEX_UPDATE, &u);
	assert_false(u.rebuilt);
	index_close(ix);

	/* A value changed by another writer: schema and structure as they were. */
	sql_on_index("UPDATE vals SET value = 12345 WHERE value = 100");
	ix = open_ok(INDEX_UPDATE, &u);
	assert_true(u.rebuilt);
	assert_string_equal(u.why_rebuilt, "changed since scalebench wrote it");
	assert_true(headline_of(ix, "aaa") == 100);
	index_close(ix);
	ix = open_ok(INDEX_UPDATE, &u);
	assert_false(u.rebuilt);
	index_close(ix);

	/* The same bytes in a new file (a copy of the root): not rebuilt. */
	snprintf(copy, sizeof(copy), "%s.copy", path);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && mv '%s' '%s'", path, copy, copy, path);
	assert_int_equal(system(cmd), 0);
	ix = open_ok(INDEX_UPDATE, &u);
	assert_false(u.rebuilt);
	index_close(ix);

	/* No sum (an older scalebench wrote the index): rebuilt. */
	assert_int_equal(unlink(sum), 0);
	ix = open_ok(INDEX_UPDATE, &u);
	assert_true(u.rebuilt);
	assert_string_equal(u.why_rebuilt, "no sum of its last write");
	index_close(ix);
	ix = open_ok(INDEX_UPDATE, &u);
	assert_false(u.rebuilt);
	index_close(ix);
}

static long indexed_runs(void)
{
	char path[PATH_MAX];
	sqlite3 *db;
	sqlite3_stmt *st;
	long n = -1;

	index_path(path, sizeof(path));
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM runs", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* An update killed midway (SIGKILL, in its transaction) leaves the index it started from. */
static void test_killed_update(void **state)
{
	struct index_update u;
	char journal[PATH_MAX + 16], label[16];
	pid_t pid;
	int status;

	(void)state;
	three_commits();
	index_close(open_ok(INDEX_UPDATE, &u));
	for (int c = 0; c < 150; c++) {
		snprintf(label, sizeof(label), "n%03d", c);
		for (unsigned r = 0; r < 2; r++)
			hand_run("process-1-page_fault3", label, r, 5000 + c, "ok", 1, 600);
	}
	index_path(journal, sizeof(journal));
	strcat(journal, "-journal");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct results_index *ix;
		char err[256];

		_exit(index_open(root, INDEX_UPDATE, &ix, NULL, err, sizeof(err)) ? 1 : 0);
	}
	/* Killed once its transaction has begun (the journal exists), or, on a machine fast
	 * enough to finish first, the test checks the finished update instead. */
	for (int i = 0; i < 20000 && access(journal, F_OK); i++) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			pid = 0;
			break;
		}
		usleep(200);
	}
	print_message("update %s\n",
		      pid ? "killed in its transaction" : "finished before the kill");
	if (pid) {
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));
		assert_int_equal(indexed_runs(), 6); /* the hot journal rolled back */
	}
	struct results_index *ix = open_ok(INDEX_UPDATE, &u);

	/* Rolled back to the bytes its sum describes: updated, not rebuilt. */
	assert_false(u.rebuilt);
	assert_int_equal(u.runs_total, 306);
	index_close(ix);
	assert_int_equal(indexed_runs(), 306);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_build_and_query, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_incremental, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_skipped_runs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_started, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_duplicate_name, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_blobs_and_rows, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_real_writer, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rebuilt_when_bad, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_killed_update, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_changed_under_us, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
