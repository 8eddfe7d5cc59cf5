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

/* TMPDIR/rel/name holding one record of chains as the runner writes it: gzip-compressed
 * unless name is the plain perf-profile.json of older runs. */
static void write_run(const char *rel, const char *name, const char *event, uint64_t lost,
		      struct profile *p)
{
	char path[512];
	json_t *file = json_array();
	char *text;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	assert_int_equal(mkdir(path, 0755), 0);
	json_array_append_new(file, profile_record_new(p, 2, event, p->samples, lost));
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
	    strstr(err, "commit/1: no perf-profile.json.gz, here or in its numbered runs"));
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
	};

	return cmocka_run_group_tests_name("profile_report", tests, setup, teardown);
}
