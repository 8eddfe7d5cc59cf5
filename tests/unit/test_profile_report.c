/* Unit tests of what `scalebench profile` reads and shows, with the analyzer's archives only
 * (analyze + store + lib): the chains' JSON and the raw file's records (store/profile.c), the
 * profiles of run and commit directories added up, and the perf-report-like tree
 * (analyze/profile_report.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../analyze/profile_report.h"
#include "../../store/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[] = "/tmp/scalebench-test-profile-report.XXXXXX";

static void add(struct profile *p, uint64_t count, size_t n, ...)
{
	const char *frames[16];
	va_list ap;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		frames[i] = va_arg(ap, const char *);
	va_end(ap);
	assert_int_equal(profile_add(p, frames, n, count), 0);
}

/* Every chain of p in q with the same count, and nothing else in q. */
static void assert_same_profile(const struct profile *p, const struct profile *q)
{
	assert_int_equal(p->n, q->n);
	assert_int_equal(p->samples, q->samples);
	for (size_t i = 0; i < p->n; i++) {
		const struct profile_chain *c = &p->chain[i];
		int found = 0;

		for (size_t j = 0; j < q->n && !found; j++) {
			const struct profile_chain *d = &q->chain[j];

			if (d->depth != c->depth || d->count != c->count)
				continue;
			found = 1;
			for (size_t f = 0; f < c->depth; f++)
				found &= !strcmp(c->frames[f], d->frames[f]);
		}
		assert_true(found);
	}
}

static void test_json_round_trip_and_report(void **state)
{
	struct profile p, q;
	char err[256], *text = NULL;
	size_t len = 0;
	json_t *js;
	FILE *out;

	(void)state;
	assert_int_equal(profile_init(&p), 0);
	add(&p, 7, 3, "clear_page", "do_fault", "testcase");
	add(&p, 3, 2, "getppid", "testcase");
	js = profile_to_json(&p);
	assert_non_null(js);
	assert_int_equal(json_array_size(js), 2);
	/* Most samples first. */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(js, 0), "count")), 7);
	assert_int_equal(profile_from_json(js, &q, err, sizeof(err)), 0);
	assert_int_equal(q.samples, 10);
	assert_same_profile(&p, &q);

	out = open_memstream(&text, &len);
	profile_print_report(&q, out, false, 0.5);
	fclose(out);
	assert_non_null(strstr(text, "# 10 samples"));
	assert_non_null(strstr(text, "100.00%    0.00%  testcase"));
	assert_non_null(strstr(text, "70.00%   70.00%  clear_page"));
	assert_non_null(strstr(text, "|--70.00%--do_fault"));
	assert_non_null(strstr(text, "    |--70.00%--testcase"));
	free(text);
	text = NULL;
	out = open_memstream(&text, &len);
	profile_print_report(&q, out, true, 50);
	fclose(out);
	assert_non_null(strstr(text, "clear_page"));
	assert_null(strstr(text, "getppid")); /* 30% self: under --min 50 */
	free(text);

	profile_free(&q);
	json_array_append_new(js, json_pack("{s:i,s:[i]}", "count", 1, "chain", 5));
	assert_int_equal(profile_from_json(js, &q, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "chains[2].chain[0]"));
	json_decref(js);
	profile_free(&p);
	profile_free(&q);
}

/* The monitor's record and the reader's view of it agree; the reader takes the last record
 * with chains and says when there is none. */
static void test_record(void **state)
{
	struct profile p, q;
	struct profile_record r;
	json_t *file = json_array(), *rec;
	char err[256];

	(void)state;
	assert_int_equal(profile_init(&p), 0);
	add(&p, 5, 2, "a", "b");
	assert_int_equal(profile_record_find(file, &r), -1);
	rec = profile_record_new(&p, 1.5, "cpu-clock", 6, 2);
	assert_non_null(rec);
	assert_int_equal(json_integer_value(json_object_get(rec, "samples")), 6);
	assert_true(json_real_value(json_object_get(rec, "t_s")) == 1.5);
	json_array_append_new(file, json_pack("{s:s}", "event", "not this one"));
	json_array_append_new(file, rec);
	json_array_append_new(file, json_pack("{s:i}", "lost", 99));
	assert_int_equal(profile_record_find(file, &r), 0);
	assert_string_equal(r.event, "cpu-clock");
	assert_int_equal(r.lost, 2);
	assert_int_equal(profile_from_json(r.chains, &q, err, sizeof(err)), 0);
	assert_same_profile(&p, &q);
	profile_free(&q);

	json_array_append_new(file, json_pack("{s:[]}", "chains"));
	assert_int_equal(profile_record_find(file, &r), 0);
	assert_string_equal(r.event, "?");
	assert_int_equal(r.lost, 0);
	assert_int_equal(json_array_size(r.chains), 0);

	assert_int_equal(profile_record_find(json_object_get(rec, "chains"), &r), -1);
	json_decref(file);
	profile_free(&p);
}

static void add_task(struct profile *p, int pid, const char *comm, uint64_t count, size_t n, ...)
{
	const char *frames[16], *dsos[16];
	struct profile_task task = {.pid = pid, .tid = pid + 1, .comm = comm};
	va_list ap;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++) {
		frames[i] = va_arg(ap, const char *);
		dsos[i] = i ? "/bin/x" : NULL;
	}
	va_end(ap);
	assert_int_equal(profile_add_task(p, &task, frames, dsos, n, count), 0);
}

/* Chains told apart by task in the monitor, written with pid/tid/comm/dsos, merged by frames
 * when read back, filtered by the run's pids. */
static void test_task_chains(void **state)
{
	struct profile p, q;
	struct profile_record r;
	json_t *js, *file, *rec, *c0;
	char err[256];
	int pids[] = {30, 10};

	(void)state;
	assert_int_equal(profile_init(&p), 0);
	add_task(&p, 10, "page_fault3", 5, 2, "clear_page", "testcase");
	add_task(&p, 10, "page_fault3", 2, 2, "clear_page", "testcase");
	add_task(&p, 20, "sh", 4, 2, "clear_page", "testcase");
	add_task(&p, 30, NULL, 1, 1, "do_idle");
	assert_int_equal(p.n, 3);
	assert_int_equal(p.samples, 12);
	js = profile_to_json(&p);
	c0 = json_array_get(js, 0);
	assert_int_equal(json_integer_value(json_object_get(c0, "count")), 7);
	assert_int_equal(json_integer_value(json_object_get(c0, "pid")), 10);
	assert_int_equal(json_integer_value(json_object_get(c0, "tid")), 11);
	assert_string_equal(json_string_value(json_object_get(c0, "comm")), "page_fault3");
	assert_true(json_is_null(json_array_get(json_object_get(c0, "dsos"), 0)));
	assert_string_equal(json_string_value(json_array_get(json_object_get(c0, "dsos"), 1)),
			    "/bin/x");
	assert_null(json_object_get(json_array_get(js, 2), "comm"));
	/* Read back: one chain per frames, whatever the task. */
	assert_int_equal(profile_from_json(js, &q, err, sizeof(err)), 0);
	assert_int_equal(q.n, 2);
	assert_int_equal(q.samples, 12);
	assert_int_equal(q.chain[0].pid, -1);
	profile_free(&q);

	file = json_array();
	rec = profile_record_new(&p, 2, "cpu-clock", 12, 0);
	assert_int_equal(profile_record_set_run_pids(rec, pids, 2), 0);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(rec, "run_pids"), 0)),
			 10);
	json_array_append_new(file, rec);
	assert_int_equal(profile_record_find(file, &r), 0);
	assert_non_null(r.run_pids);
	assert_int_equal(profile_init(&q), 0);
	assert_int_equal(profile_add_json_pids(r.chains, r.run_pids, &q, err, sizeof(err)), 0);
	assert_int_equal(q.samples, 8); /* pid 10 and 30, not the shell */
	json_decref(r.run_pids);
	profile_free(&q);

	/* Corrupt run_pids: refused. */
	json_object_set_new(rec, "run_pids", json_pack("[i,s]", 1, "x"));
	assert_int_equal(profile_record_find(file, &r), -2);
	json_object_set_new(rec, "run_pids", json_pack("[i]", -4));
	assert_int_equal(profile_record_find(file, &r), -2);
	json_object_set_new(rec, "run_pids", json_string("10"));
	assert_int_equal(profile_record_find(file, &r), -2);
	/* Older records have none. */
	json_object_del(rec, "run_pids");
	assert_int_equal(profile_record_find(file, &r), 0);
	assert_null(r.run_pids);
	/* A chain's pid must be a whole number. */
	json_object_set_new(json_array_get(json_object_get(rec, "chains"), 0), "pid",
			    json_string("10"));
	assert_int_equal(profile_init(&q), 0);
	assert_int_equal(profile_add_json(json_object_get(rec, "chains"), &q, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "chains[0]: \"pid\": expected a whole number"));
	profile_free(&q);
	json_decref(file);
	json_decref(js);
	profile_free(&p);
}

/* TMPDIR/rel/name holding one record of chains as the runner writes it: gzip-compressed
 * unless name is the plain perf-profile.json of older runs. */
static void write_run_pids(const char *rel, const char *name, const char *event, uint64_t lost,
			   struct profile *p, int *pids, size_t nr_pids)
{
	char path[512];
	json_t *file = json_array(), *rec;
	char *text;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	assert_int_equal(mkdir(path, 0755), 0);
	rec = profile_record_new(p, 2, event, p->samples, lost);
	if (pids)
		assert_int_equal(profile_record_set_run_pids(rec, pids, nr_pids), 0);
	json_array_append_new(file, rec);
	text = json_dumps(file, JSON_COMPACT);
	assert_non_null(text);
	snprintf(path, sizeof(path), "%s/%s/%s", tmpdir, rel, name);
	if (strstr(name, ".gz")) {
		gzFile gz = gzopen(path, "wb");

		assert_non_null(gz);
		assert_int_equal(gzputs(gz, text), (int)strlen(text));
		assert_int_equal(gzclose(gz), Z_OK);
	} else {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(text, f);
		assert_int_equal(fclose(f), 0);
	}
	free(text);
	json_decref(file);
}

static void write_run(const char *rel, const char *name, const char *event, uint64_t lost,
		      struct profile *p)
{
	write_run_pids(rel, name, event, lost, p, NULL, 0);
}

static void write_text(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void make_dir(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static int add_dir(struct profile_runs *t, const char *rel, char *err, size_t errlen)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	return profile_runs_add(t, path, err, errlen);
}

static void test_runs_add(void **state)
{
	struct profile a, b;
	struct profile_runs t;
	char err[8192];

	(void)state;
	assert_int_equal(profile_init(&a), 0);
	assert_int_equal(profile_init(&b), 0);
	add(&a, 6, 2, "clear_page", "testcase");
	add(&b, 4, 2, "clear_page", "testcase");
	add(&b, 1, 1, "getppid");

	/* A commit directory: its numbered runs, in number order, the plain .json of older
	 * runs too; a numbered run without a profile and a name that is no run are passed. */
	make_dir("commit");
	write_run("commit/0", "perf-profile.json.gz", "cpu-clock", 1, &a);
	make_dir("commit/1");
	write_run("commit/10", "perf-profile.json", "cpu-clock", 2, &b);
	write_run("commit/x", "perf-profile.json.gz", "cycles", 0, &b);
	assert_int_equal(profile_runs_init(&t), 0);
	assert_int_equal(add_dir(&t, "commit", err, sizeof(err)), 0);
	assert_int_equal(t.runs, 2);
	assert_int_equal(t.lost, 3);
	assert_int_equal(t.p.samples, 11);
	assert_int_equal(t.p.n, 2);
	assert_string_equal(t.event, "cpu-clock");
	/* One run's directory adds to what was read before. */
	assert_int_equal(add_dir(&t, "commit/0", err, sizeof(err)), 0);
	assert_int_equal(t.runs, 3);
	assert_int_equal(t.p.samples, 17);
	/* Another event is refused, naming both. */
	assert_int_equal(add_dir(&t, "commit/x", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "commit/x/perf-profile.json.gz: sampled cycles, the runs "
				    "before it cpu-clock: one event at a time"));
	profile_runs_free(&t);

	assert_int_equal(profile_runs_init(&t), 0);
	assert_int_equal(add_dir(&t, "commit/1", err, sizeof(err)), -1);
	assert_non_null(
	    strstr(err, "commit/1: no perf-profile.samples.json.gz, here or in its numbered runs"));
	assert_int_equal(add_dir(&t, "missing", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "missing: No such file or directory"));
	write_text("commit/1/perf-profile.json", "[{\"chains\": [");
	assert_int_equal(add_dir(&t, "commit/1", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "commit/1/perf-profile.json:1: "));
	write_text("commit/1/perf-profile.json", "[{\"event\": \"cpu-clock\"}]");
	assert_int_equal(add_dir(&t, "commit/1", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "expected a list holding an object with \"chains\""));
	write_text("commit/1/perf-profile.json",
		   "[{\"event\": \"cpu-clock\", \"chains\": [{\"count\": -1, \"chain\": []}]}]");
	assert_int_equal(add_dir(&t, "commit/1", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "commit/1/perf-profile.json: chains[0]: expected"));
	/* A bad run in a commit directory fails it. */
	assert_int_equal(add_dir(&t, "commit", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "commit/1/perf-profile.json: chains[0]"));
	profile_runs_free(&t);

	profile_free(&a);
	profile_free(&b);
}

/* The run's own processes by default, every task with all_tasks, every task of older runs. */
static void test_runs_attributed(void **state)
{
	struct profile p;
	struct profile_runs t;
	char err[8192];
	int pids[] = {10};

	(void)state;
	assert_int_equal(profile_init(&p), 0);
	add_task(&p, 10, "page_fault3", 6, 2, "clear_page", "testcase");
	add_task(&p, 20, "sh", 4, 1, "[unknown]");
	make_dir("attr");
	write_run_pids("attr/0", "perf-profile.json.gz", "cpu-clock", 0, &p, pids, 1);
	write_run("attr/1", "perf-profile.json.gz", "cpu-clock", 0, &p);
	assert_int_equal(profile_runs_init(&t), 0);
	assert_int_equal(add_dir(&t, "attr/0", err, sizeof(err)), 0);
	assert_int_equal(t.p.samples, 6);
	assert_int_equal(t.unattributed, 0);
	assert_int_equal(add_dir(&t, "attr/1", err, sizeof(err)), 0);
	assert_int_equal(t.p.samples, 16);
	assert_int_equal(t.unattributed, 1);
	profile_runs_free(&t);
	assert_int_equal(profile_runs_init(&t), 0);
	t.all_tasks = true;
	assert_int_equal(add_dir(&t, "attr/0", err, sizeof(err)), 0);
	assert_int_equal(t.p.samples, 10);
	profile_runs_free(&t);
	profile_free(&p);
}

static char *diff_text(const char *a, const char *b, bool all, double min)
{
	char pa[512], pb[512], err[8192], *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	snprintf(pa, sizeof(pa), "%s/%s", tmpdir, a);
	snprintf(pb, sizeof(pb), "%s/%s", tmpdir, b);
	assert_non_null(out);
	if (profile_print_diff(pa, pb, all, min, out, err, sizeof(err))) {
		fclose(out);
		free(buf);
		return strdup(err);
	}
	fclose(out);
	return buf;
}

/* Two commits' runs: each side's mean over its runs (a stat missing from a run counts 0),
 * the spread shown over 2%, the change in points, the largest change first. */
static void test_diff(void **state)
{
	struct profile a0, a1, b0;
	int pids[] = {10};
	char *text, *x, *y;

	(void)state;
	assert_int_equal(profile_init(&a0), 0);
	assert_int_equal(profile_init(&a1), 0);
	assert_int_equal(profile_init(&b0), 0);
	/* base: clear_page 60% and 40% of the run's samples; head: 90% */
	add_task(&a0, 10, "t", 6, 2, "clear_page", "testcase");
	add_task(&a0, 10, "t", 4, 1, "testcase");
	add_task(&a0, 20, "sh", 50, 1, "busy");
	add_task(&a1, 10, "t", 4, 2, "clear_page", "testcase");
	add_task(&a1, 10, "t", 6, 1, "testcase");
	add_task(&b0, 10, "t", 9, 2, "clear_page", "testcase");
	add_task(&b0, 10, "t", 1, 1, "testcase");
	make_dir("base");
	make_dir("head");
	write_run_pids("base/0", "perf-profile.json.gz", "cpu-clock", 0, &a0, pids, 1);
	write_run_pids("base/1", "perf-profile.json.gz", "cpu-clock", 0, &a1, pids, 1);
	write_run_pids("head/0", "perf-profile.json.gz", "cpu-clock", 0, &b0, pids, 1);
	text = diff_text("base", "head", false, 0.5);
	assert_non_null(strstr(text, "# event cpu-clock, 2 runs of "));
	assert_non_null(strstr(text, "1 run of "));
	/* self.clear_page: 50 (+-28%) -> 90, +40 points; first row of all (ties by name). */
	x = strstr(text, "perf-profile.calltrace.cpu-clock.clear_page.testcase\n");
	assert_non_null(x);
	assert_non_null(strstr(text, "     50.00 \u00b1 28%      +40.0      90.00        "
				     "perf-profile.calltrace.cpu-clock.clear_page.testcase\n"));
	/* Children of testcase: 100 on both sides, no change: last. */
	y = strstr(text, "    100.00             +0.0     100.00        "
			 "perf-profile.children.cpu-clock.testcase\n");
	assert_non_null(y);
	assert_true(x < y);
	assert_null(strstr(text, "busy"));
	free(text);
	text = diff_text("base", "head", true, 0.5);
	assert_non_null(strstr(text, "perf-profile.self.cpu-clock.busy\n"));
	assert_non_null(strstr(text, "all tasks"));
	free(text);
	/* Another event on one side, a side without profiles: refused, named. */
	write_run_pids("other", "perf-profile.json.gz", "cycles-pp", 0, &b0, pids, 1);
	text = diff_text("base", "other", false, 0.5);
	assert_non_null(strstr(text, "sampled cpu-clock"));
	assert_non_null(strstr(text, "sampled cycles-pp: one event at a time"));
	free(text);
	make_dir("none");
	text = diff_text("none", "head", false, 0.5);
	assert_non_null(strstr(text, "none: no perf-profile.samples.json.gz"));
	free(text);
	profile_free(&a0);
	profile_free(&a1);
	profile_free(&b0);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_json_round_trip_and_report),
	    cmocka_unit_test(test_record),
	    cmocka_unit_test(test_runs_add),
	    cmocka_unit_test(test_task_chains),
	    cmocka_unit_test(test_runs_attributed),
	    cmocka_unit_test(test_diff),
	};

	return cmocka_run_group_tests_name("profile_report", tests, setup, teardown);
}
