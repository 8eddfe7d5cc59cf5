/* Unit tests of a stat's series (analyze/series.c): time order, a branch's first-parent order
 * in a git repository made here, labels as full shas or prefixes, --since, and refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../analyze/series.h"
#include "../../store/index.h"
#include "../../store/layout.h"
#include "../../store/store.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tmp[64], root[96], repo[96];
static char
    sha[6][48]; /* main's first-parent history, oldest first: c0..c4; sha[5] on a side branch */

static void sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static void read_sha(const char *rev, char *out)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse '%s'", repo, rev);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, 48, p));
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

static void hand_run(const char *pp, const char *commit, unsigned run, long started,
		     const char *status, double value)
{
	struct store_axes a = {.root = root,
			       .testcase = "will-it-scale",
			       .path_params = pp,
			       .tbox_group = "box",
			       .rootfs = "debian",
			       .kconfig = "defconfig",
			       .compiler = "gcc-12",
			       .commit = commit,
			       .has_run = true,
			       .run = run};
	char dir[PATH_MAX], path[PATH_MAX + 16], when[64];
	time_t t = started;
	FILE *f;

	assert_int_equal(store_path(&a, dir, sizeof(dir)), 0);
	assert_int_equal(store_mkdirs(dir), 0);
	snprintf(path, sizeof(path), "%s/stats.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"will-it-scale.per_process_ops\": %.17g, \"other\": 1}\n", value);
	fclose(f);
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S+0000", gmtime(&t));
	fprintf(f, "{\"started\": \"%s\", \"status\": \"%s\"}\n", when, status);
	fclose(f);
}

/* Runs at commits stored out of branch order in time: c3 ran first, then c0, c1 (as a
 * 7-digit prefix), c2 (a 10-digit one, with a failed run), c4, the side commit, a label off
 * any branch. */
static int setup(void **state)
{
	(void)state;
	strcpy(tmp, "/tmp/sb-series-XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	snprintf(root, sizeof(root), "%s/results", tmp);
	snprintf(repo, sizeof(repo), "%s/repo", tmp);
	sh("git init -q -b main '%s' && cd '%s' && export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t "
	   "GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t && git commit -q --allow-empty -m c0 && "
	   "git commit -q --allow-empty -m c1 && git checkout -q -b side && "
	   "git commit -q --allow-empty -m s && git checkout -q main && "
	   "git commit -q --allow-empty -m c2 && git merge -q --no-ff -m c3 side && "
	   "git commit -q --allow-empty -m c4",
	   repo, repo);
	read_sha("main~4", sha[0]);
	read_sha("main~3", sha[1]);
	read_sha("main~2", sha[2]);
	read_sha("main~1", sha[3]);
	read_sha("main", sha[4]);
	read_sha("side", sha[5]);
	char p1[8], p2[11];

	snprintf(p1, sizeof(p1), "%.7s", sha[1]);
	snprintf(p2, sizeof(p2), "%.10s", sha[2]);
	hand_run("process-1-x", sha[3], 0, 1000, "ok", 30);
	hand_run("process-1-x", sha[0], 0, 2000, "ok", 10);
	hand_run("process-1-x", sha[0], 1, 2001, "ok", 12);
	hand_run("process-1-x", p1, 0, 3000, "ok", 20);
	hand_run("process-1-x", p2, 0, 4000, "failed", 0);
	hand_run("process-1-x", p2, 1, 4001, "ok", 25);
	hand_run("process-1-x", sha[4], 0, 5000, "ok", 40);
	hand_run("process-1-x", sha[5], 0, 6000, "ok", 99);
	hand_run("process-1-x", "local-build", 0, 7000, "ok", 77);
	hand_run("process-1-x", "onlyfailed", 0, 8000, "failed", 0);
	/* Same path_params in another tbox_group: "process-1-y" is ambiguous. */
	hand_run("process-1-y", "a", 0, 1000, "ok", 1);
	struct store_axes a = {.root = root,
			       .testcase = "will-it-scale",
			       .path_params = "process-1-y",
			       .tbox_group = "box2",
			       .rootfs = "debian",
			       .kconfig = "defconfig",
			       .compiler = "gcc-12",
			       .commit = "a",
			       .has_run = true};
	char dir[PATH_MAX];

	store_path(&a, dir, sizeof(dir));
	store_mkdirs(dir);
	sh("cp '%s/will-it-scale/process-1-y/box/debian/defconfig/gcc-12/a/0/'*.json '%s'", root,
	   dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf '%s'", tmp);
	return 0;
}

static struct results_index *open_index(void)
{
	struct results_index *ix;
	char err[256];

	if (index_open(root, INDEX_UPDATE, &ix, NULL, err, sizeof(err)))
		fail_msg("%s", err);
	return ix;
}

static void test_time_order(void **state)
{
	struct results_index *ix = open_index();
	struct series s;
	char err[512], **labels;
	ssize_t n;

	(void)state;
	assert_int_equal(series_load(ix, "process-1-x", "will-it-scale.per_process_ops", NULL, &s,
				     err, sizeof(err)),
			 0);
	assert_string_equal(s.job, "will-it-scale/process-1-x/box/debian/defconfig/gcc-12");
	assert_string_equal(s.stat, "will-it-scale.per_process_ops");
	/* Every commit with an ok run, by first run time; onlyfailed has none. */
	assert_int_equal(s.n, 7);
	assert_string_equal(s.points[0].commit, sha[3]);
	assert_string_equal(s.points[1].commit, sha[0]);
	assert_int_equal(s.points[1].nruns, 2);
	assert_true(s.points[1].runs[0] == 10 && s.points[1].runs[1] == 12);
	assert_true(s.points[1].mean == 11);
	assert_int_equal(s.points[1].first_started, 2000);
	assert_int_equal(s.points[3].nruns, 1); /* the failed run left out */
	assert_true(s.points[3].mean == 25);
	assert_string_equal(s.points[6].commit, "local-build");
	series_free(&s);

	n = series_commits(ix, "process-1-x", NULL, &labels, err, sizeof(err));
	assert_int_equal(n, 8); /* failures included */
	assert_string_equal(labels[7], "onlyfailed");
	for (ssize_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);

	/* since a date, and since a stored label. */
	struct series_order o = {.since = "1970-01-01T01:06:00"};

	setenv("TZ", "UTC", 1);
	tzset();
	assert_int_equal(series_load(ix, "process-1-x", "will-it-scale.per_process_ops", &o, &s,
				     err, sizeof(err)),
			 0);
	assert_int_equal(s.n, 4); /* from 3960 s on: p2, c4, side, local-build */
	series_free(&s);
	o.since = "local-build";
	assert_int_equal(series_load(ix, "process-1-x", "will-it-scale.per_process_ops", &o, &s,
				     err, sizeof(err)),
			 0);
	assert_int_equal(s.n, 1);
	series_free(&s);
	o.since = "nothing-like-it";
	assert_int_equal(series_load(ix, "process-1-x", "will-it-scale.per_process_ops", &o, &s,
				     err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "neither a date"));
	index_close(ix);
}

static void test_branch_order(void **state)
{
	struct results_index *ix = open_index();
	struct series_order o = {.repo = repo, .branch = "main"};
	struct series s;
	char err[512], **labels;
	ssize_t n;

	(void)state;
	assert_int_equal(series_load(ix, "process-1-x", "will-it-scale.per_process_ops", &o, &s,
				     err, sizeof(err)),
			 0);
	/* c0..c4 in first-parent order; the side commit and the local label are not on it. */
	assert_int_equal(s.n, 5);
	assert_string_equal(s.points[0].commit, sha[0]);
	assert_int_equal(strlen(s.points[1].commit), 7);
	assert_int_equal(strncmp(s.points[1].commit, sha[1], 7), 0);
	assert_int_equal(strncmp(s.points[2].commit, sha[2], 10), 0);
	assert_string_equal(s.points[3].commit, sha[3]);
	assert_string_equal(s.points[4].commit, sha[4]);
	series_free(&s);

	o.since = sha[2];
	n = series_commits(ix, "process-1-x", &o, &labels, err, sizeof(err));
	assert_int_equal(n, 3);
	for (ssize_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	o.since = "main~1"; /* any revision, with a repository */
	n = series_commits(ix, "process-1-x", &o, &labels, err, sizeof(err));
	assert_int_equal(n, 2);
	assert_string_equal(labels[0], sha[3]);
	for (ssize_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	o.since = "side";
	assert_int_equal(series_commits(ix, "process-1-x", &o, &labels, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not on main's first-parent history"));

	o.since = NULL;
	o.branch = "side"; /* HEAD's history would be main's */
	n = series_commits(ix, "process-1-x", &o, &labels, err, sizeof(err));
	assert_int_equal(n, 3); /* c0, c1, s */
	assert_string_equal(labels[2], sha[5]);
	for (ssize_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	o.branch = NULL;
	n = series_commits(ix, "process-1-x", &o, &labels, err, sizeof(err));
	assert_int_equal(n, 5);
	for (ssize_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	index_close(ix);
}

static void test_refusals(void **state)
{
	struct results_index *ix = open_index();
	struct series_order o = {.repo = repo, .branch = "no-such-branch"};
	struct series s;
	char err[512], **labels;

	(void)state;
	assert_int_equal(series_load(ix, "process-1-x", "will-it-scale.per_process_ops", &o, &s,
				     err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "rev-list"));
	o.branch = "--all";
	assert_int_equal(series_commits(ix, "process-1-x", &o, &labels, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "does not start with '-'"));
	o.branch = "main";
	o.since = "--output=/tmp/x";
	assert_int_equal(series_commits(ix, "process-1-x", &o, &labels, err, sizeof(err)), -1);
	assert_int_equal(series_load(ix, "process-1-y", "other", NULL, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ambiguous"));
	assert_non_null(strstr(err, "will-it-scale/process-1-y/box/debian/defconfig/gcc-12"));
	assert_non_null(strstr(err, "will-it-scale/process-1-y/box2/debian/defconfig/gcc-12"));
	assert_int_equal(series_load(ix, "will-it-scale/process-1-y/box2/debian/defconfig/gcc-12",
				     "other", NULL, &s, err, sizeof(err)),
			 0);
	assert_int_equal(s.n, 1);
	series_free(&s);
	assert_int_equal(series_load(ix, "nope", "other", NULL, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no job 'nope'"));
	assert_int_equal(series_load(ix, "process-1-x", "no.such.stat", NULL, &s, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "no stat 'no.such.stat'"));
	index_close(ix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_time_order),
	    cmocka_unit_test(test_branch_order),
	    cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
