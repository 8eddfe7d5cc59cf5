/* Unit tests of job files: matrix expansion, task percentages, path_params, LKP's layout and
 * multi-document form, the YAML writer's round trip, and every refusal with its file, line
 * and key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../runner/job.h"
#include "../../monitors/monitor.h"
#include "../../testcases/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIX "tests/fixtures/jobs/"

static char tmpdir[] = "/tmp/scalebench-test-job.XXXXXX";

/* Write text to TMPDIR/name and return the path (static buffer, one at a time). */
static const char *write_job(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void load_ok(const char *path, unsigned nr_online, struct job_file *job)
{
	char err[1024] = "";

	if (job_load(path, nr_online, job, err, sizeof(err))) {
		print_error("job_load(%s) failed: %s\n", path, err);
		fail();
	}
}

/* Load text that must be refused; the message must contain every expected part. */
static void expect_error(const char *text, const char *part1, const char *part2)
{
	const char *path = write_job("bad.yaml", text);
	struct job_file job;
	char err[1024] = "";

	if (job_load(path, 4, &job, err, sizeof(err)) == 0) {
		print_error("loaded, expected an error with '%s':\n%s", part1, text);
		job_free(&job);
		fail();
	}
	if (!strstr(err, part1) || (part2 && !strstr(err, part2))) {
		print_error("error '%s' lacks '%s' / '%s'\n", err, part1, part2 ? part2 : "");
		fail();
	}
	/* A failed load leaves nothing to free. */
	assert_null(job.atomic);
	assert_int_equal(job.n_atomic, 0);
}

static const struct atomic_job *find_atomic(const struct job_file *job, const char *name)
{
	for (size_t i = 0; i < job->n_atomic; i++)
		if (!strcmp(job->atomic[i].name, name))
			return &job->atomic[i];
	print_error("no atomic job named %s; have:\n", name);
	for (size_t i = 0; i < job->n_atomic; i++)
		print_error("  %s\n", job->atomic[i].name);
	fail();
	return NULL;
}

static bool has_note(const struct job_file *job, const char *part)
{
	for (size_t i = 0; i < job->n_notes; i++)
		if (strstr(job->notes[i], part))
			return true;
	return false;
}

static size_t count_notes(const struct job_file *job, const char *part)
{
	size_t n = 0;

	for (size_t i = 0; i < job->n_notes; i++)
		n += strstr(job->notes[i], part) != NULL;
	return n;
}

static void test_lkp_job(void **state)
{
	struct job_file job;
	const struct atomic_job *a;
	(void)state;

	load_ok(FIX "lkp-will-it-scale.yaml", 8, &job);
	assert_string_equal(job.name, "lkp-will-it-scale");
	assert_int_equal(job.n_atomic, 4); /* 1 x 2 x 2 */
	a = find_atomic(&job, "lkp-will-it-scale-process-100%-page_fault3");
	assert_string_equal(a->path_params, "process-100%-page_fault3");
	assert_string_equal(a->test, "page_fault3");
	assert_int_equal(a->mode, TC_MODE_PROCESS);
	assert_int_equal(a->nr_task, 8);
	assert_float_equal(a->runtime_s, 300, 0);
	assert_float_equal(a->warmup_s, 1, 0);
	a = find_atomic(&job, "lkp-will-it-scale-thread-100%-fallocate1");
	assert_int_equal(a->mode, TC_MODE_THREAD);
	assert_string_equal(a->test, "fallocate1");
	/* LKP-only keys stay in the tree (the run's job.yaml keeps them). */
	assert_string_equal(json_string_value(json_object_get(a->tree, "kconfig")),
			    "x86_64-rhel-8.3");
	assert_string_equal(json_string_value(json_object_get(a->tree, "category")), "benchmark");
	assert_true(json_is_null(json_object_get(a->tree, "perf-stat")));
	/* kconfig is the runner's kconfig axis: used, not noted. */
	assert_int_equal(count_notes(&job, "key 'kconfig'"), 0);
	/* category: benchmark is LKP's class of every shipped job: known, kept, not noted. */
	assert_int_equal(count_notes(&job, "category"), 0);
	assert_false(has_note(&job, "'suite'"));
	assert_false(has_note(&job, "'nr_task'"));
	/* Bare monitor keys switch the monitor on; one scalebench lacks is a note. */
	for (size_t i = 0; i < job.n_atomic; i++) {
		const char *mons[] = {"perf-stat", "proc-vmstat"};

		for (size_t m = 0; m < 2; m++) {
			json_t *opt = json_object_get(job.atomic[i].monitors, mons[m]);

			if (monitor_find(mons[m])) {
				assert_non_null(opt);
				assert_true(json_is_null(opt));
			} else {
				assert_null(opt);
				assert_true(has_note(&job, mons[m]));
			}
		}
	}
	/* The whole file as parsed. */
	assert_true(json_is_array(json_object_get(job.tree, "nr_task")));
	job_free(&job);
}

static void test_matrix_counts(void **state)
{
	struct job_file job;
	(void)state;

	load_ok(FIX "three-dims.yaml", 4, &job);
	assert_int_equal(job.n_atomic, 12);
	/* First dimension outermost, last fastest. */
	/* LKP's path_params: runtime is a will-it-scale option, so it names the job too. */
	assert_string_equal(job.atomic[0].name, "three-dims-process-1-5m-page_fault3");
	assert_string_equal(job.atomic[1].name, "three-dims-process-1-5m-getppid1");
	assert_string_equal(job.atomic[2].name, "three-dims-thread-1-5m-page_fault3");
	assert_string_equal(job.atomic[11].name, "three-dims-thread-100%-5m-getppid1");
	assert_int_equal(find_atomic(&job, "three-dims-thread-50%-5m-getppid1")->nr_task, 2);
	assert_float_equal(job.atomic[0].runtime_s, 300, 0);
	assert_float_equal(job.atomic[0].warmup_s, 2, 0);
	/* Every name distinct. */
	for (size_t i = 0; i < job.n_atomic; i++)
		for (size_t k = i + 1; k < job.n_atomic; k++)
			assert_string_not_equal(job.atomic[i].name, job.atomic[k].name);
	job_free(&job);

	/* LKP's dimensions inside nested maps: 2 (setup.sysctl.sc_max_map_count, an option
	 * of LKP's sysctl program) x 2 (cpufreq_governor, a program); tuning.sysctl.vm.* and
	 * time.interval (a monitor's option) are values. */
	load_ok(FIX "nested-maps.yaml", 4, &job);
	assert_int_equal(job.n_atomic, 4);
	const struct atomic_job *a = find_atomic(&job, "nested-maps-powersave-262144-getppid1");
	json_t *sysctl = json_object_get(json_object_get(a->tree, "setup"), "sysctl");
	assert_string_equal(json_string_value(json_object_get(sysctl, "sc_max_map_count")),
			    "262144");
	assert_int_equal(
	    json_array_size(json_object_get(
		json_object_get(json_object_get(a->tree, "tuning"), "sysctl"), "vm.max_map_count")),
	    2);
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(json_object_get(a->tree, "tuning"), "fixed"), "a")),
			    "b");
	assert_string_equal(json_string_value(json_object_get(a->tree, "cpufreq_governor")),
			    "powersave");
	assert_int_equal(
	    json_array_size(json_object_get(json_object_get(a->tree, "time"), "interval")), 2);
	if (monitor_find("time"))
		assert_int_equal(json_array_size(json_object_get(
				     json_object_get(a->monitors, "time"), "interval")),
				 2);
	job_free(&job);

	/* 2 x 2 */
	load_ok(write_job("two.yaml", "will-it-scale: {mode: [process, thread], test: "
				      "[page_fault3, fallocate1]}\nnr_task: 1\n"),
		4, &job);
	assert_int_equal(job.n_atomic, 4);
	job_free(&job);
}

static void test_percentages(void **state)
{
	static const struct {
		const char *spec;
		unsigned nr_online, want;
	} cases[] = {
	    {"100%", 8, 8}, {"50%", 3, 1}, {"1%", 2, 1},   {"50%", 8, 4},
	    {"150%", 2, 3}, {"7", 2, 7},   {"100%", 1, 1}, {"33%", 10, 3},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[128];
		struct job_file job;

		snprintf(text, sizeof(text), "test: getppid1\nnr_task: %s\n", cases[i].spec);
		load_ok(write_job("pct.yaml", text), cases[i].nr_online, &job);
		assert_int_equal(job.n_atomic, 1);
		if (job.atomic[0].nr_task != cases[i].want) {
			print_error("nr_task %s of %u: got %u, want %u\n", cases[i].spec,
				    cases[i].nr_online, job.atomic[0].nr_task, cases[i].want);
			fail();
		}
		/* path_params keeps the value as written. */
		assert_non_null(strstr(job.atomic[0].path_params, cases[i].spec));
		job_free(&job);
	}
}

/* job_drop_coinciding: atomic jobs that differ only in nr_task and resolve to the same count
 * here run once, the first kept as written; what differs in anything else, resolves apart, or
 * names no nr_task stays; one note per set of values, whatever else varies. */
static void test_coinciding_task_counts(void **state)
{
	const char *matrix = "test: [getppid1, page_fault3]\nmode: [process, thread]\n"
			     "nr_task: [1, 50%, 100%, 2]\n";
	const struct atomic_job *a;
	struct job_file job;
	(void)state;

	/* 2 CPUs: 1 and 50% are 1 task, 100% and 2 are 2, in each test and mode. */
	load_ok(write_job("same.yaml", matrix), 2, &job);
	assert_int_equal(job.n_atomic, 16);
	assert_int_equal(job.nr_online, 2);
	assert_int_equal(job_drop_coinciding(&job), 8);
	assert_int_equal(job.n_atomic, 8);
	a = find_atomic(&job, "same-process-1-getppid1");
	assert_int_equal(a->nr_task, 1);
	a = find_atomic(&job, "same-thread-100%-page_fault3");
	assert_int_equal(a->nr_task, 2);
	/* The kept one is recorded as written, a percentage as LKP records it. */
	assert_string_equal(a->path_params, "thread-100%-page_fault3");
	assert_string_equal(json_string_value(json_object_get(a->tree, "nr_task")), "100%");
	for (size_t i = 0; i < job.n_atomic; i++)
		assert_null(strstr(job.atomic[i].name, "-50%-"));
	assert_int_equal(count_notes(&job, "nr_task"), 2);
	assert_true(has_note(&job, "same.yaml: nr_task 1 and 50% are both 1 task on this "
				   "machine's 2 CPUs: run once, as 1"));
	assert_true(has_note(&job, "nr_task 100% and 2 are both 2 tasks on this machine's 2 CPUs: "
				   "run once, as 100%"));
	/* Again: nothing left to drop, no note added. */
	assert_int_equal(job_drop_coinciding(&job), 0);
	assert_int_equal(job.n_atomic, 8);
	assert_int_equal(count_notes(&job, "nr_task"), 2);
	job_free(&job);

	/* 4 CPUs: 50% and 2 are 2 tasks; 1 and 100% are counts of their own. */
	load_ok(write_job("same.yaml", matrix), 4, &job);
	assert_int_equal(job_drop_coinciding(&job), 4);
	assert_int_equal(job.n_atomic, 12);
	assert_true(has_note(&job, "nr_task 50% and 2 are both 2 tasks on this machine's 4 CPUs: "
				   "run once, as 50%"));
	assert_false(has_note(&job, "nr_task 1 and"));
	job_free(&job);

	/* Three values, one CPU; a job of one value, and LKP's sweep (no nr_task), untouched. */
	load_ok(write_job("three.yaml", "test: getppid1\nnr_task: [1, 50%, 100%]\n"), 1, &job);
	assert_int_equal(job_drop_coinciding(&job), 2);
	assert_int_equal(job.n_atomic, 1);
	assert_string_equal(job.atomic[0].name, "three-1-getppid1");
	assert_true(has_note(&job, "nr_task 1, 50% and 100% are all 1 task on this machine's 1 "
				   "CPU: run once, as 1"));
	job_free(&job);
	load_ok(write_job("one.yaml", "test: getppid1\nnr_task: 50%\n"), 2, &job);
	assert_int_equal(job_drop_coinciding(&job), 0);
	assert_int_equal(job.n_atomic, 1);
	job_free(&job);
	load_ok(write_job("sweep.yaml", "will-it-scale: {test: [getppid1, page_fault3]}\n"), 2,
		&job);
	assert_int_equal(job_drop_coinciding(&job), 0);
	assert_int_equal(job.n_atomic, 2);
	job_free(&job);

	/* Documents that differ in more than nr_task are different jobs at the same count. */
	load_ok(write_job("docs.yaml", "test: getppid1\nnr_task: 1\n---\nnr_task: 50%\n---\n"
				       "nr_task: 50%\nmode: thread\n"),
		2, &job);
	assert_int_equal(job.n_atomic, 3);
	assert_int_equal(job_drop_coinciding(&job), 1);
	assert_int_equal(job.n_atomic, 2);
	assert_string_equal(job.atomic[0].name, "docs-1-getppid1");
	assert_string_equal(job.atomic[1].name, "docs-thread-50%-getppid1");
	assert_int_equal(count_notes(&job, "nr_task"), 1);
	job_free(&job);
}

static void test_path_params(void **state)
{
	struct job_file job;
	const struct atomic_job *a;
	(void)state;

	/* LKP's Job#path_params: the options of the programs the job uses (will-it-scale's,
	 * block_queue's, a program given a plain value, the wrapper's) sorted by key
	 * (cpu_node_bind, cpufreq_governor, max_sectors_kb, mode, nr_task, test), whatever the
	 * file's order and depth; characters outside [-a-zA-Z0-9+=:.%] become '_', byte by
	 * byte; keys that are no program's option (zeta, warmup) are not in it. */
	load_ok(write_job("pp.yaml",
			  "zeta: [\"b/c d\", \"x*y\"]\nwarmup: 0\n"
			  "will-it-scale:\n  test: getppid1\n  mode: [thread]\n"
			  "nr_task: [50%]\nblock_queue: {max_sectors_kb: [\"k=v:1.0+\", \"\xc3\xa9\"]}\n"
			  "cpufreq_governor: \"b/c d\"\n"
			  "setup: {cpu_node_bind: x*y}\n"),
		2, &job);
	assert_int_equal(job.n_atomic, 2);
	a = &job.atomic[0];
	assert_string_equal(a->path_params, "x_y-b_c_d-k=v:1.0+-thread-50%-getppid1");
	assert_string_equal(a->name, "pp-x_y-b_c_d-k=v:1.0+-thread-50%-getppid1");
	assert_string_equal(job.atomic[1].path_params, "x_y-b_c_d-__-thread-50%-getppid1");
	/* zeta is no dimension: the tree keeps the list, as written. */
	assert_int_equal(json_array_size(json_object_get(a->tree, "zeta")), 2);
	job_free(&job);

	/* Values cut to 31 characters (UTF-8 characters, as Ruby's [0..30]); absent (null)
	 * options, and false ones, left out; '=' options (LKP's '# = name' in a program)
	 * would show as name=value. */
	load_ok(
	    write_job(
		"cut.yaml",
		"test: getppid1\nmode: ~\nno_affinity: false\n"
		"smt: yes\nsysctl: {sc_pid_max: \"123456789012345678901234567890\xc3\xa9XYZ\"}\n"),
	    2, &job);
	assert_string_equal(job.atomic[0].path_params,
			    "123456789012345678901234567890__-true-getppid1");
	job_free(&job);

	/* No option at all: "defaults", as LKP names it. */
	{
		json_t *t = json_pack("{s{ss}}", "perf-stat", "events", "cycles");
		char *pp = job_path_params(t);

		assert_string_equal(pp, "defaults");
		free(pp);
		json_decref(t);
	}

	/* No list at all: the options given, none filled in. */
	load_ok(FIX "no-dimension.yaml", 2, &job);
	assert_int_equal(job.n_atomic, 1);
	assert_string_equal(job.atomic[0].path_params, "getppid1");
	assert_string_equal(job.atomic[0].name, "no-dimension-getppid1");
	assert_int_equal(job.atomic[0].nr_task, 2);
	job_free(&job);

	/* Every option, varying or not: runtime names the results place too. */
	load_ok("jobs/page_fault3.yaml", 2, &job);
	assert_int_equal(job.n_atomic, 6);
	find_atomic(&job, "page_fault3-thread-50%-300s-page_fault3");
	job_free(&job);

	/* split-job's file name adds the job's commits and its rootfs (rootfs_filename: the
	 * last run of [a-zA-Z0-9._-]) after path_params; path_params does not have them. */
	load_ok(write_job("cr.yaml", "test: getppid1\ncommit: [abc, def]\n"
				     "rootfs: /osimage/debian/debian-12-x86_64.cgz\n"),
		2, &job);
	assert_int_equal(job.n_atomic, 2);
	assert_string_equal(job.atomic[1].name, "cr-getppid1-def-debian-12-x86_64.cgz");
	assert_string_equal(job.atomic[1].path_params, "getppid1");
	job_free(&job);

	/* Several kconfigs: each name gets its kconfig (LKP's would be one name for both). */
	load_ok(write_job("kc.yaml", "test: getppid1\nkconfig: [x86_64-rhel, \"a b\"]\n"), 2, &job);
	assert_int_equal(job.n_atomic, 2);
	assert_string_equal(job.atomic[0].name, "kc-getppid1-x86_64-rhel");
	assert_string_equal(job.atomic[1].name, "kc-getppid1-a_b");
	assert_string_equal(job.atomic[1].path_params, "getppid1");
	job_free(&job);
	/* ... and one of them split again keeps its name. */
	load_ok(write_job("kc-getppid1-a_b.yaml", "test: getppid1\nkconfig: a b\n"), 2, &job);
	assert_string_equal(job.atomic[0].name, "kc-getppid1-a_b");
	job_free(&job);

	/* Top-level test and mode count as the will-it-scale ones; .yml is stripped too. */
	load_ok(write_job("top.yml", "test: getppid1\nmode: thread\nnr_task: 3\n"), 2, &job);
	assert_string_equal(job.atomic[0].name, "top-thread-3-getppid1");
	assert_int_equal(job.atomic[0].mode, TC_MODE_THREAD);
	job_free(&job);
}

static void test_shipped_jobs(void **state)
{
	static const struct {
		const char *path;
		size_t n;
	} jobs[] = {
	    {"jobs/default.yaml", 12},
	    {"jobs/page_fault3.yaml", 6},
	    {"jobs/fallocate1.yaml", 6},
	    {"jobs/exec1.yaml", 6},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		struct job_file job;

		load_ok(jobs[i].path, 2, &job);
		assert_int_equal(job.n_atomic, jobs[i].n);
		job_free(&job);
	}
}

static void test_erb_refused(void **state)
{
	struct job_file job;
	char err[1024];
	(void)state;

	assert_int_equal(job_load(FIX "erb.yaml", 2, &job, err, sizeof(err)), -1);
	assert_non_null(strstr(err, FIX "erb.yaml:3: ERB templates"));
	assert_non_null(strstr(err, "not supported"));
	expect_error("test: getppid1\nnr_task: <%= nr_cpu %>\n", "bad.yaml:2: ERB", NULL);
	expect_error("test: getppid1\n\n\n%if x\n", "bad.yaml:4: ERB", NULL);
	/* A YAML directive is not ERB. */
	load_ok(write_job("directive.yaml", "%YAML 1.1\n---\ntest: getppid1\n"), 2, &job);
	assert_int_equal(job.n_atomic, 1);
	job_free(&job);
}

static void test_syntax_errors(void **state)
{
	struct job_file job;
	char err[1024];
	(void)state;

	assert_int_equal(job_load(FIX "bad-syntax.yaml", 2, &job, err, sizeof(err)), -1);
	assert_string_equal(err, FIX
			    "bad-syntax.yaml:4:8: mapping values are not allowed in this context");
	expect_error("test: getppid1\nnr_task: [1, 2\n", "bad.yaml:3:1: did not find expected ','",
		     NULL);
	expect_error("a: 'open\n", "bad.yaml:2:1: found unexpected end of stream", NULL);
	expect_error("test: getppid1\ntest: getppid1\n", "bad.yaml:2:1: duplicate key 'test'",
		     NULL);
	expect_error("", "bad.yaml: empty job file", NULL);
	expect_error("- a\n- b\n", "bad.yaml:1: expected keys", "got a list");
	/* Aliases work; aliases of aliases that would expand without bound do not. */
	load_ok(write_job("alias.yaml", "base: &b {test: getppid1}\nwill-it-scale: *b\n"), 2, &job);
	assert_string_equal(job.atomic[0].test, "getppid1");
	job_free(&job);
	{
		char bomb[2048], *p = bomb;

		p += sprintf(p, "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
		for (int i = 1; i < 6; i++)
			p += sprintf(p,
				     "l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, "
				     "*l%d, *l%d]\n",
				     i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1,
				     i - 1, i - 1);
		expect_error(bomb, "bad.yaml:", "more than 100000 values");
	}
	{
		char deep[1024] = "a: ";

		for (int i = 0; i < 70; i++)
			strcat(deep, "[");
		for (int i = 0; i < 70; i++)
			strcat(deep, "]");
		strcat(deep, "\n");
		expect_error(deep, "bad.yaml:1:", "nested deeper than 64 levels");
	}
	/* Checked while parsing, as the parser goes: maps, and aliases that would go too deep. */
	{
		char deep[1024] = "a: ";

		for (int i = 0; i < 70; i++)
			strcat(deep, "{a: ");
		strcat(deep, "x");
		for (int i = 0; i < 70; i++)
			strcat(deep, "}");
		strcat(deep, "\n");
		expect_error(deep, "bad.yaml:1:", "nested deeper than 64 levels");
	}
	{
		char deep[1024] = "a: &d ";

		for (int i = 0; i < 40; i++)
			strcat(deep, "[");
		for (int i = 0; i < 40; i++)
			strcat(deep, "]");
		strcat(deep, "\nb: [[[[[[[[[[[[[[[[[[[[[[[[[[*d]]]]]]]]]]]]]]]]]]]]]]]]]\n");
		expect_error(deep, "bad.yaml:2:", "nested deeper than 64 levels");
	}
	expect_error("a: &a [x, *a]\n", "bad.yaml:1:11: alias '*a' is inside the value it names",
		     NULL);
	expect_error("a: *nope\n", "bad.yaml:1:4: alias '*nope' names no anchor", NULL);
	expect_error("a: &x 1\nb: &x 2\n", "bad.yaml:2:4: anchor '&x' is defined twice", NULL);
	expect_error("a: &m {b: 1}\n*m : 2\n", "bad.yaml:2:1: a key must be a plain value", NULL);
	expect_error("? [a]\n: 1\n", "bad.yaml:1:3: a key must be a plain value", NULL);
	/* An alias is a copy: a list aliased in two places is two dimensions, and an alias may
	 * name a key. */
	load_ok(write_job("alias2.yaml", "nr_task: &n [1, 2]\nruntime: *n\nk: &k kconfig\n*k : a\n"
					 "test: getppid1\n"),
		2, &job);
	assert_int_equal(job.n_atomic, 4);
	assert_string_equal(json_string_value(json_object_get(job.atomic[0].tree, "kconfig")), "a");
	job_free(&job);
	assert_int_equal(job_load(FIX "missing.yaml", 2, &job, err, sizeof(err)), -1);
	assert_string_equal(err, "cannot read " FIX "missing.yaml: No such file or directory");
}

static void test_semantic_errors(void **state)
{
	struct job_file job;
	char err[1024];
	(void)state;

	assert_int_equal(job_load(FIX "unknown-test.yaml", 2, &job, err, sizeof(err)), -1);
	assert_string_equal(err, FIX "unknown-test.yaml:6: will-it-scale.test 'no_such_test': "
				     "unknown testcase; 'scalebench list' shows the names");
	expect_error("test: nope\n", "bad.yaml:1: test 'nope': unknown testcase", NULL);
	expect_error("will-it-scale:\n  mode: fibre\n  test: getppid1\n",
		     "bad.yaml:2: will-it-scale.mode 'fibre': expected process or thread", NULL);
	expect_error("test: getppid1\nnr_task: 0\n", "bad.yaml:2: nr_task '0': expected at least 1",
		     NULL);
	expect_error("test: getppid1\nnr_task: 0%\n", "nr_task '0%'", "at least 1");
	expect_error("test: getppid1\nnr_task: [1, abc]\n", "bad.yaml:2: nr_task 'abc': expected",
		     "percentage");
	expect_error("test: getppid1\nnr_task: -1\n", "nr_task '-1'", NULL);
	expect_error("test: getppid1\nnr_task: 99999\n", "nr_task '99999'", "maximum");
	expect_error("test: getppid1\nnr_task: {a: 1}\n", "nr_task a map: expected", NULL);
	expect_error("test: getppid1\nruntime: abc\n",
		     "bad.yaml:2: runtime 'abc': expected a duration", NULL);
	expect_error("test: getppid1\nruntime: 0\n", "runtime '0'", NULL);
	expect_error("test: getppid1\nruntime: 5x\n", "runtime '5x'", NULL);
	expect_error("test: getppid1\nwarmup: -1\n", "bad.yaml:2: warmup '-1'", NULL);
	expect_error("test: getppid1\nwill-it-scale:\n  mode: []\n",
		     "bad.yaml:3: will-it-scale.mode: empty list", NULL);
	expect_error("test: getppid1\nfs:\n  - a: 1\n  - b: 2\n",
		     "bad.yaml:3: fs[0]: a list of maps is not supported", NULL);
	expect_error("test: getppid1\nfs: [[1, 2]]\n", "fs[0]: a list of lists is not supported",
		     NULL);
	expect_error("test: getppid1\nfs: [a, ~]\n", "bad.yaml:2: fs[1]: empty list item", NULL);
	/* A list under a key LKP does not expand is a value, lists of maps included (LKP's
	 * split-job writes need_kconfig_hw so). */
	load_ok(write_job("lm.yaml", "test: getppid1\nneed_kconfig_hw:\n  - E1000E: y\n  - ATA\n"
				     "foo: [[1, 2], ~]\n"),
		2, &job);
	assert_int_equal(job.n_atomic, 1);
	assert_int_equal(json_array_size(json_object_get(job.atomic[0].tree, "need_kconfig_hw")),
			 2);
	job_free(&job);
	/* LKP's {{ }} expressions are Ruby: refused, like ERB. */
	expect_error("test: getppid1\nnr_task: \"{{ nr_cpu / 2 }}\"\n",
		     "bad.yaml:2: nr_task: LKP's '{{ ... }}'", NULL);
	expect_error("suite: will-it-scale\n", "bad.yaml: no testcase", "scalebench list");
	expect_error("test: getppid1\nwill-it-scale:\n  test: getppid1\n",
		     "test and will-it-scale.test are both set", NULL);
	expect_error("will-it-scale: getppid1\n", "bad.yaml:1: will-it-scale: expected a map",
		     NULL);
	expect_error("suite: unixbench\ntest: getppid1\n", "bad.yaml:1: suite 'unixbench'",
		     "scalebench list -l");
	expect_error("testcase: unixbench\ntest: getppid1\n", "bad.yaml:1: testcase 'unixbench'",
		     NULL);
	expect_error("test: getppid1\nmode: [process, process]\n", "the same name", NULL);
	expect_error("test: getppid1\nnr_task: 2\n---\nnr_task-: 2\n",
		     "bad.yaml:4: key 'nr_task-': expected 'nr_task' to hold a list or a map", NULL);
	expect_error("test: getppid1\nk: {a: 1}\n---\nk+: [b]\n",
		     "key 'k+': expected a map or a name to add to the map", NULL);
	assert_int_equal(job_load(FIX "nr-task-zero.yaml", 2, &job, err, sizeof(err)), -1);
	assert_string_equal(err, FIX "nr-task-zero.yaml:5: nr_task '0': expected at least 1 task");
	assert_int_equal(job_load(FIX "runtime-abc.yaml", 2, &job, err, sizeof(err)), -1);
	assert_non_null(strstr(err, FIX "runtime-abc.yaml:1: runtime 'abc'"));
	/* A monitor scalebench has takes a map of options or nothing. */
	for (size_t i = 0; monitor_table[i]; i++) {
		char text[128], want[128];

		snprintf(text, sizeof(text), "test: getppid1\n%s: 5\n", monitor_table[i]->name);
		snprintf(want, sizeof(want), "bad.yaml:2: %s: expected a map of monitor options",
			 monitor_table[i]->name);
		expect_error(text, want, NULL);
	}
}

static void test_mode_unsupported(void **state)
{
	const char *src = write_job("procplug.c", "#include \"testcase.h\"\n"
						  "static int run(struct tc_copy *c, volatile "
						  "uint64_t *it) { (void)c; (*it)++; return -1; }\n"
						  "static const struct testcase tc = {.name = "
						  "\"proconly1\", .description = \"d\", .suite = "
						  "\"procsuite\", .flags = TC_PROCESS_ONLY, .run = "
						  "run};\nSCALEBENCH_PLUGIN(&tc);\n");
	char cmd[1024], so[512], err[1024];
	struct job_file job;
	(void)state;

	snprintf(so, sizeof(so), "%s/procplug.so", tmpdir);
	snprintf(cmd, sizeof(cmd), "cc -std=c11 -shared -fPIC -Itestcases -o %s %s 2>/dev/null", so,
		 src);
	if (system(cmd) != 0)
		skip();
	assert_int_equal(plugin_load(so, err, sizeof(err)), 1);
	expect_error("will-it-scale:\n  test: proconly1\n  mode:\n    - process\n    - thread\n",
		     "bad.yaml:5: will-it-scale.mode 'thread': testcase 'proconly1' does not run "
		     "in thread mode",
		     NULL);
	/* A plug-in's suite is a known suite. */
	load_ok(write_job("plug.yaml", "suite: procsuite\ntest: proconly1\n"), 2, &job);
	assert_string_equal(job.atomic[0].test, "proconly1");
	job_free(&job);
}

static void test_defaults_and_units(void **state)
{
	static const struct {
		const char *runtime;
		double s;
	} cases[] = {{"300", 300},   {"300s", 300}, {"5m", 300},
		     {"1.5h", 5400}, {"1", 1},	    {"2d", 172800}, {"30d", 2592000}};
	struct job_file job;
	(void)state;

	load_ok(write_job("d.yaml", "test: getppid1\n"), 6, &job);
	assert_int_equal(job.atomic[0].mode, TC_MODE_PROCESS);
	assert_int_equal(job.atomic[0].nr_task, 6);
	assert_float_equal(job.atomic[0].runtime_s, 300, 0);
	assert_float_equal(job.atomic[0].warmup_s, 1, 0);
	assert_float_equal(job.atomic[0].interval_s, 1, 0);
	assert_int_equal(json_object_size(job.atomic[0].monitors), 0);
	job_free(&job);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[128];

		snprintf(text, sizeof(text), "test: getppid1\nruntime: %s\nwarmup: 0\n",
			 cases[i].runtime);
		load_ok(write_job("u.yaml", text), 2, &job);
		assert_float_equal(job.atomic[0].runtime_s, cases[i].s, 1e-9);
		assert_float_equal(job.atomic[0].warmup_s, 0, 0);
		job_free(&job);
	}
	/* The shortest window the core measures is a sampling interval; the warmup may be
	 * anything from 0. */
	expect_error("test: getppid1\nruntime: 0.5\n",
		     "bad.yaml:2: runtime '0.5': expected at least 1s", "once a second");
	expect_error("test: getppid1\nruntime: 0.0000001\n", "runtime '0.0000001'", "from 1us");
	expect_error("test: getppid1\nruntime: 31d\n", "runtime '31d'", "to 30d");
	expect_error("test: getppid1\nwarmup: 31d\n", "warmup '31d'", "to 30d");
	expect_error("test: getppid1\nwarmup: inf\n", "warmup 'inf'", NULL);
	load_ok(write_job("w.yaml", "test: getppid1\nruntime: 30d\nwarmup: 0.000001\n"), 2, &job);
	assert_float_equal(job.atomic[0].warmup_s, 1e-6, 1e-12);
	job_free(&job);
	/* The sampling interval: the shortest runtime is one of them, whatever it is; it is no
	 * program's option, so path_params does not change with it. */
	load_ok(write_job("i.yaml", "test: getppid1\ninterval: 0.25s\nruntime: 0.25\n"), 2, &job);
	assert_float_equal(job.atomic[0].interval_s, 0.25, 0);
	assert_float_equal(job.atomic[0].runtime_s, 0.25, 0);
	assert_string_equal(job.atomic[0].path_params, "0.25-getppid1");
	job_free(&job);
	expect_error("test: getppid1\ninterval: 0.25\nruntime: 0.2\n",
		     "bad.yaml:3: runtime '0.2': expected at least 0.25s", "every 0.25s (interval)");
	expect_error("test: getppid1\ninterval: 2\nruntime: 1\n",
		     "bad.yaml:3: runtime '1': expected at least 2s", "every 2s");
	expect_error("test: getppid1\ninterval: 0.01\n", "bad.yaml:2: interval '0.01'",
		     "from 0.05s to 1m");
	expect_error("test: getppid1\ninterval: 2m\n", "bad.yaml:2: interval '2m'", NULL);
	expect_error("test: getppid1\ninterval: [1, 2]\n", "bad.yaml:2: interval", NULL);
	expect_error("test: getppid1\ninterval: abc\n", "bad.yaml:2: interval 'abc'", NULL);
	/* `nr_task:` with nothing is unset, as in LKP. */
	load_ok(write_job("n.yaml", "test: getppid1\nnr_task:\nruntime: ~\n"), 3, &job);
	assert_int_equal(job.atomic[0].nr_task, 3);
	assert_float_equal(job.atomic[0].runtime_s, 300, 0);
	job_free(&job);
}

static void test_monitors_and_notes(void **state)
{
	struct job_file job;
	(void)state;

	load_ok(write_job("m.yaml", "test: getppid1\nturbostat:\nrootfs: debian\n"
				    "will-it-scale:\n  extra: 1\nnr_task: [1, 2]\n"),
		2, &job);
	assert_int_equal(job.n_atomic, 2);
	/* One note per key, not per atomic job. */
	assert_int_equal(job.n_notes, 3);
	assert_true(has_note(&job, "monitor 'turbostat' is not available in scalebench"));
	assert_true(has_note(&job, "m.yaml: key 'rootfs' is kept but not used by scalebench"));
	assert_true(has_note(&job, "key 'will-it-scale.extra' is kept but not used"));
	assert_null(json_object_get(job.atomic[0].monitors, "turbostat"));
	job_free(&job);

	/* A category LKP does not know is kept and noted, once, naming the three it knows. */
	load_ok(write_job("c.yaml", "test: getppid1\ncategory: stress\nnr_task: [1, 2]\n"), 2, &job);
	assert_int_equal(job.n_notes, 1);
	assert_true(has_note(&job, "c.yaml: category 'stress' is kept but not used by scalebench "
				   "(LKP's are benchmark, functional, noise-benchmark)"));
	assert_string_equal(json_string_value(json_object_get(job.atomic[1].tree, "category")),
			    "stress");
	job_free(&job);
	load_ok(write_job("c.yaml", "test: getppid1\ncategory: functional\n"), 1, &job);
	assert_int_equal(job.n_notes, 0);
	job_free(&job);

	for (size_t i = 0; monitor_table[i]; i++) {
		char text[256];
		const char *name = monitor_table[i]->name;

		snprintf(text, sizeof(text), "test: getppid1\n%s:\n  interval: 2\n", name);
		load_ok(write_job("m.yaml", text), 2, &job);
		assert_string_equal(json_string_value(json_object_get(
					json_object_get(job.atomic[0].monitors, name), "interval")),
				    "2");
		assert_int_equal(job.n_notes, 0);
		job_free(&job);
	}
}

/* LKP's rule: a monitor's options are values, lists included (the README's
 * `perf-stat: {events: [a, b]}` is one job counting both); the testcase's parameters, LKP's
 * EXPAND_DIMS and keys scalebench does not use still expand. */
static void test_monitor_lists(void **state)
{
	struct job_file job;
	json_t *events;
	(void)state;

	load_ok(write_job("ev.yaml", "test: getppid1\nperf-stat:\n  events: [cpu-clock, task-clock]\n"
				     "proc-vmstat: {interval: 2, nested: {x: [1, 2]}}\n"
				     "turbostat: [a, b]\n"),
		2, &job);
	assert_int_equal(job.n_atomic, 1);
	assert_string_equal(job.atomic[0].name, "ev-getppid1");
	events = json_object_get(json_object_get(job.atomic[0].monitors, "perf-stat"), "events");
	assert_int_equal(json_array_size(events), 2);
	assert_string_equal(json_string_value(json_array_get(events, 0)), "cpu-clock");
	assert_string_equal(json_string_value(json_array_get(events, 1)), "task-clock");
	events = json_object_get(json_object_get(job.atomic[0].tree, "perf-stat"), "events");
	assert_int_equal(json_array_size(events), 2);
	assert_int_equal(json_array_size(json_object_get(job.atomic[0].tree, "turbostat")), 2);
	job_free(&job);

	load_ok(write_job("ev.yaml",
			  "perf-stat: {events: [cpu-clock, task-clock]}\n"
			  "nr_task: [1, 2]\ncommit: [a, b]\nfs: [xfs, ext4]\nfoo: [x, y]\n"
			  "will-it-scale: {test: getppid1, mode: [process, thread]}\n"),
		2, &job);
	assert_int_equal(job.n_atomic, 16);
	for (size_t i = 0; i < job.n_atomic; i++)
		assert_int_equal(json_array_size(json_object_get(
				     json_object_get(job.atomic[i].monitors, "perf-stat"), "events")),
				 2);
	job_free(&job);
	/* A monitor takes a map of options: a list in its place is refused, not expanded. */
	expect_error("test: getppid1\nperf-stat: [a, b]\n",
		     "bad.yaml:2: perf-stat: expected a map of monitor options", "got a list");
}

/* Atomic job i's value at key (a top-level key, or "will-it-scale" then sub). */
static json_t *at(const struct job_file *job, size_t i, const char *key, const char *sub)
{
	json_t *v = json_object_get(job->atomic[i].tree, key);

	return sub ? json_object_get(v, sub) : v;
}

/* LKP's revise_hash: key+: / key-:, need_* lists merged, kconfig across documents. */
static void test_revision_keys(void **state)
{
	struct job_file job;
	json_t *v;
	(void)state;

	/* key+: on the header's value, a list keeping each value once, dotted or not. */
	load_ok(write_job("rk.yaml", "nr_task: 1\nwill-it-scale: {mode: process, test: brk1}\n"
				     "---\nnr_task+: [2, 1]\nwill-it-scale.test+: getppid1\n"
				     "will-it-scale.mode: thread\n"),
		4, &job);
	assert_int_equal(job.n_atomic, 5); /* 1 + 2 x 2 */
	find_atomic(&job, "rk-process-1-brk1");
	find_atomic(&job, "rk-thread-2-getppid1");
	find_atomic(&job, "rk-thread-1-brk1");
	for (size_t i = 0; i < job.n_atomic; i++) {
		assert_null(at(&job, i, "nr_task+", NULL));
		assert_null(at(&job, i, "will-it-scale.test+", NULL));
	}
	job_free(&job);
	/* key-: removes the values listed, or the key when given none; the header's own
	 * value is left as it was for the header's job. */
	load_ok(write_job("rm.yaml", "perf-stat: {events: [cycles, instructions]}\n"
				     "will-it-scale: {mode: process, test: brk1}\n---\n"
				     "perf-stat.events-: cycles\nwill-it-scale.mode-:\n"),
		4, &job);
	assert_int_equal(job.n_atomic, 2);
	find_atomic(&job, "rm-process-brk1");
	assert_int_equal(json_array_size(at(&job, 0, "perf-stat", "events")), 2);
	v = at(&job, 1, "perf-stat", "events");
	assert_int_equal(json_array_size(v), 1);
	assert_string_equal(json_string_value(json_array_get(v, 0)), "instructions");
	assert_null(at(&job, 1, "will-it-scale", "mode"));
	assert_string_equal(job.atomic[1].name, "rm-brk1");
	job_free(&job);
	/* In one document (an include gives the value): applied to it. */
	load_ok(write_job("one.yaml", "test: brk1\nnr_task: 1\nnr_task+: 2\n"), 4, &job);
	assert_int_equal(job.n_atomic, 2);
	find_atomic(&job, "one-2-brk1");
	job_free(&job);
	/* need_* lists are added to the header's; need_memory is replaced. */
	load_ok(write_job("nm.yaml", "test: brk1\nneed_kconfig: [A: y]\nneed_memory: 1G\n---\n"
				     "test: getppid1\nneed_kconfig: [B: y]\nneed_memory: 2G\n"),
		4, &job);
	assert_int_equal(job.n_atomic, 2);
	assert_int_equal(json_array_size(at(&job, 0, "need_kconfig", NULL)), 1);
	v = at(&job, 1, "need_kconfig", NULL);
	assert_int_equal(json_array_size(v), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(v, 1), "B")), "y");
	assert_string_equal(json_string_value(at(&job, 1, "need_memory", NULL)), "2G");
	job_free(&job);
	/* Documents differing only by a scalar kconfig: each name carries its kconfig. */
	load_ok(write_job("kd.yaml", "test: brk1\nkconfig: a\n---\nkconfig: b\n"), 4, &job);
	assert_int_equal(job.n_atomic, 2);
	find_atomic(&job, "kd-brk1-a");
	find_atomic(&job, "kd-brk1-b");
	job_free(&job);
	/* The same kconfig in each document: names as LKP's. */
	load_ok(write_job("ks.yaml", "test: brk1\nkconfig: a\n---\ntest: getppid1\n"), 4, &job);
	find_atomic(&job, "ks-brk1");
	find_atomic(&job, "ks-getppid1");
	job_free(&job);
}

static void test_multi_document(void **state)
{
	struct job_file job;
	const struct atomic_job *a;
	(void)state;

	load_ok(FIX "multi-document.yaml", 4, &job);
	assert_int_equal(job.n_atomic, 3);
	/* runtime differs between documents, so it names the results place too. */
	a = find_atomic(&job, "multi-document-process-100%-10s-page_fault2");
	assert_float_equal(a->runtime_s, 10, 0);
	find_atomic(&job, "multi-document-thread-100%-10s-page_fault2");
	a = find_atomic(&job, "multi-document-thread-100%-20s-page_fault3");
	assert_string_equal(a->test, "page_fault3");
	assert_int_equal(a->mode, TC_MODE_THREAD);
	assert_float_equal(a->runtime_s, 20, 0);
	assert_int_equal(a->nr_task, 4);
	/* The dotted key became a nested one; the header's keys are all there. */
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(a->tree, "will-it-scale"), "test")),
	    "page_fault3");
	assert_null(json_object_get(a->tree, "will-it-scale.test"));
	assert_string_equal(json_string_value(json_object_get(a->tree, "suite")), "will-it-scale");
	assert_true(json_is_array(job.tree));
	assert_int_equal(json_array_size(job.tree), 3);
	job_free(&job);
}

/* LKP's Job#each_jobs: the first document is a job of its own when it names a testcase
 * (will-it-scale-part2.yaml), and the header of the others; one naming none (LKP's
 * '-defaults' job, which runs no benchmark) is skipped with a note. */
static void test_header_job(void **state)
{
	struct job_file job;
	(void)state;

	load_ok(write_job("part.yaml",
			  "nr_task: [100%]\nwill-it-scale:\n  mode: [process, thread]\n"
			  "  test: [getppid1, lock1]\n---\nwill-it-scale:\n"
			  "  mode: [process]\n  test: [malloc1]\n"),
		2, &job);
	assert_int_equal(job.n_atomic, 5);
	assert_string_equal(job.atomic[0].name, "part-process-100%-getppid1");
	assert_string_equal(job.atomic[3].name, "part-thread-100%-lock1");
	assert_string_equal(job.atomic[4].name, "part-process-100%-malloc1");
	assert_int_equal(job.n_notes, 0);
	job_free(&job);

	load_ok(write_job("lm.yaml", "nr_task: 100%\n---\nwill-it-scale:\n  test: [page_fault2]\n"),
		2, &job);
	assert_int_equal(job.n_atomic, 1);
	assert_string_equal(job.atomic[0].name, "lm-100%-page_fault2");
	assert_true(has_note(&job, "LKP makes a 'lm-defaults' job of it that runs no benchmark"));
	job_free(&job);
}

/* LKP's `<<: FILE`: textual, at the line's place and indentation; several in one file; a
 * later key overrides an earlier one; found beside the file or below the nearest jobs/
 * directory; {file:, ignore:, overrides}; missing files and loops refused with file:line. */
static void test_includes(void **state)
{
	char dir[600], path[700], err[1024];
	struct job_file job;
	(void)state;

	snprintf(dir, sizeof(dir), "%s/jobs/sub", tmpdir);
	snprintf(path, sizeof(path), "mkdir -p %s", dir);
	assert_int_equal(system(path), 0);
	write_job("jobs/cg.yaml", "cgroup2:\n  memory.high: 90%\n  pids.max: 10000\nruntime: 5s\n");
	write_job("jobs/sub/wis.yaml", "will-it-scale:\n  test:\n    - getppid1\n    - lock1\n");
	write_job("jobs/sub/nested.yaml", "setup:\n  <<: ../cg.yaml\n");
	load_ok(write_job("jobs/sub/both.yaml", "<<: cg.yaml\n<<: wis.yaml\nruntime: 7s\n"), 2,
		&job);
	assert_int_equal(job.n_atomic, 2);
	/* runtime: the file's own, after the include, wins */
	assert_string_equal(job.atomic[0].name, "both-90%-10000-7s-getppid1");
	assert_float_equal(job.atomic[1].runtime_s, 7, 0);
	job_free(&job);
	/* before the include, the included value wins */
	load_ok(write_job("jobs/sub/first.yaml", "runtime: 7s\n<<: cg.yaml\ntest: getppid1\n"), 2,
		&job);
	assert_float_equal(job.atomic[0].runtime_s, 5, 0);
	job_free(&job);
	/* indented: the included keys land in the map; an included file's own include too */
	load_ok(write_job("jobs/sub/ind.yaml", "test: getppid1\n<<: nested.yaml\n"), 2, &job);
	assert_string_equal(
	    json_string_value(json_object_get(
		json_object_get(json_object_get(job.atomic[0].tree, "setup"), "cgroup2"),
		"pids.max")),
	    "10000");
	job_free(&job);
	/* {file:, ignore:, KEY: VALUE}: as in LKP, the lines that set an ignored key are dropped,
	 * and an override replaces the line that sets the key at the start of a line, or is
	 * appended to each document without one. */
	load_ok(write_job("jobs/sub/opt.yaml",
			  "test: getppid1\n<<: {file: cg.yaml, ignore: [runtime], nr_task: 3}\n"),
		2, &job);
	assert_null(json_object_get(job.atomic[0].tree, "runtime"));
	assert_int_equal(job.atomic[0].nr_task, 3);
	job_free(&job);
	load_ok(
	    write_job("jobs/sub/opt2.yaml", "test: getppid1\n<<: {file: cg.yaml, runtime: 9s}\n"),
	    2, &job);
	assert_float_equal(job.atomic[0].runtime_s, 9, 0);
	job_free(&job);
	/* A missing file: the including file and line. */
	assert_int_equal(
	    job_load(write_job("jobs/sub/miss.yaml", "test: getppid1\n<<: nope.yaml\n"), 2, &job,
		     err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "jobs/sub/miss.yaml:2: included file 'nope.yaml' not found"));
	/* An error in included text names the included file and its line. */
	write_job("jobs/sub/badinc.yaml", "a: 1\nnr_task: 0\n");
	assert_int_equal(
	    job_load(write_job("jobs/sub/usebad.yaml", "test: getppid1\n<<: badinc.yaml\n"), 2,
		     &job, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "jobs/sub/badinc.yaml:2: nr_task '0'"));
	/* Loops, direct or not, are refused. */
	write_job("jobs/sub/l1.yaml", "<<: l2.yaml\n");
	write_job("jobs/sub/l2.yaml", "test: getppid1\n<<: l1.yaml\n");
	assert_int_equal(
	    job_load(write_job("jobs/sub/loop.yaml", "<<: l1.yaml\n"), 2, &job, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "include loop"));
	/* Includes that multiply (each file including the next one twice, 12 deep, over 5000
	 * bytes: 20 MB) are bounded by the size of the text they make. */
	{
		char name[32], text[5100];

		for (int i = 0; i < 12; i++) {
			snprintf(name, sizeof(name), "jobs/sub/m%d.yaml", i);
			snprintf(text, sizeof(text), "<<: m%d.yaml\n<<: m%d.yaml\n", i + 1, i + 1);
			write_job(name, text);
		}
		memset(text, 'x', 5000);
		memcpy(text, "a: ", 3);
		strcpy(text + 5000, "\n");
		write_job("jobs/sub/m12.yaml", text);
		assert_int_equal(job_load(write_job("jobs/sub/mult.yaml", "<<: m0.yaml\n"), 2, &job,
					  err, sizeof(err)),
				 -1);
		if (!strstr(err, "larger than 16 MiB"))
			print_error("%s\n", err);
		assert_non_null(strstr(err, "larger than 16 MiB"));
	}
	/* Kernel files are refused, not read. */
	assert_int_equal(job_load(write_job("jobs/sub/k.yaml", "<<: /proc/self/status\n"), 2, &job,
				  err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "not a job file"));
	/* YAML's own merge key (LKP's `<< : *REF`) is not an include: it merges, and the map's
	 * own keys win over the merged ones. */
	load_ok(write_job("jobs/sub/merge.yaml", "b: &b {test: getppid1, mode: thread}\n"
						 "will-it-scale:\n  <<: *b\n  mode: process\n"),
		2, &job);
	assert_string_equal(job.atomic[0].test, "getppid1");
	assert_int_equal(job.atomic[0].mode, TC_MODE_PROCESS);
	job_free(&job);
}

/* A job file with docs documents after its header, each with a list of per_doc values. */
static const char *write_docs(size_t docs, size_t per_doc)
{
	size_t cap = 64 + docs * (32 + per_doc * 8), n;
	char *text = malloc(cap);
	const char *path;

	assert_non_null(text);
	n = (size_t)snprintf(text, cap, "test: getppid1\n");
	for (size_t d = 0; d < docs; d++) {
		n += (size_t)snprintf(text + n, cap - n, "---\nkconfig: k%zu\ncpufreq_governor: [",
				      d);
		for (size_t i = 0; i < per_doc; i++)
			n += (size_t)snprintf(text + n, cap - n, "%s%zu-%zu", i ? ", " : "", d, i);
		n += (size_t)snprintf(text + n, cap - n, "]\n");
	}
	path = write_job("docs.yaml", text);
	free(text);
	return path;
}

/* The 10000 atomic-job cap holds for the whole file (the header a job too), counted before any
 * is built. */
static void test_atomic_cap(void **state)
{
	struct job_file job;
	char err[1024];
	(void)state;

	assert_int_equal(job_load(write_docs(3, 3334), 2, &job, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "docs.yaml: the job file expands to 10003 atomic jobs "
				    "(4 documents); at most 10000"));
	assert_int_equal(job_load(write_docs(150, 100), 2, &job, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "15001 atomic jobs (151 documents)"));
	/* One document: the product of its lists, even past what a size_t holds. */
	expect_error(
	    "test: getppid1\naspm: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n"
	    "chrt: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\ndisk: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
	    "fuse: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n",
	    "bad.yaml: the job file expands to 11000 atomic jobs (1 document); at most "
	    "10000",
	    NULL);
	{
		/* 20 of LKP's setup programs, each given 10 values */
		static const char *const progs[] = {"acpi_cpufreq",
						    "aspm",
						    "autonuma_migration",
						    "block_queue",
						    "boot_params",
						    "cgroup",
						    "cgroup2",
						    "chrt",
						    "cooling_device",
						    "cpufreq",
						    "cpufreq_governor",
						    "cpuidle_cstate",
						    "cpuoffline",
						    "dirty_thresh",
						    "disk",
						    "drop_caches",
						    "fs",
						    "fs1",
						    "fs2",
						    "fuse"};
		char big[2048] = "test: getppid1\n";

		for (int k = 0; k < 20; k++)
			sprintf(big + strlen(big), "%s: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n",
				progs[k]);
		expect_error(big, "expands to more than 18446744073709551615 atomic jobs", NULL);
	}
	load_ok(write_docs(3, 3333), 2, &job);
	assert_int_equal(job.n_atomic, 10000);
	job_free(&job);

	/* What the copies would hold is capped too: a wide header over many documents, or
	 * many atomic jobs of a wide document, is refused before any copy is made. */
	{
		size_t cap = 2000000, n = 0;
		char *text = malloc(cap);

		assert_non_null(text);
		n += (size_t)snprintf(text + n, cap - n, "test: getppid1\n");
		for (int k = 0; k < 2000; k++)
			n += (size_t)snprintf(text + n, cap - n, "k%d: v\n", k);
		for (int d = 0; d < 500; d++)
			n += (size_t)snprintf(text + n, cap - n, "---\nkconfig: c%d\n", d);
		expect_error(text, "bad.yaml: the job file's 500 documents, each merged with the "
				   "header, hold 1002000 values together; at most 1000000",
			     NULL);
		n = (size_t)snprintf(text, cap, "test: getppid1\ncpufreq_governor: [");
		for (int i = 0; i < 9000; i++)
			n += (size_t)snprintf(text + n, cap - n, "%s%d", i ? ", " : "", i);
		n += (size_t)snprintf(text + n, cap - n, "]\n");
		for (int k = 0; k < 120; k++)
			n += (size_t)snprintf(text + n, cap - n, "k%d: v\n", k);
		expect_error(text, "bad.yaml: the job file's 9000 atomic jobs would hold 1107000 values "
				   "together; at most 1000000",
			     NULL);
		free(text);
	}
}

/* Write an atomic job, load it back: the same tree and the same parameters. */
static void roundtrip(const struct job_file *job, const struct atomic_job *a, bool same_name)
{
	char path[512];
	struct job_file back;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.yaml", tmpdir, a->name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(job_write_atomic(job, a, f), 0);
	assert_int_equal(fclose(f), 0);
	load_ok(path, 4, &back);
	assert_int_equal(back.n_atomic, 1);
	if (!json_equal(back.atomic[0].tree, a->tree)) {
		char *x = json_dumps(a->tree, 0), *y = json_dumps(back.atomic[0].tree, 0);

		print_error("round trip changed the tree:\n%s\n%s\n", x, y);
		free(x);
		free(y);
		fail();
	}
	assert_string_equal(back.atomic[0].test, a->test);
	assert_int_equal(back.atomic[0].mode, a->mode);
	assert_int_equal(back.atomic[0].nr_task, a->nr_task);
	assert_float_equal(back.atomic[0].runtime_s, a->runtime_s, 0);
	assert_float_equal(back.atomic[0].warmup_s, a->warmup_s, 0);
	assert_true(json_equal(back.atomic[0].monitors, a->monitors));
	if (same_name) {
		assert_string_equal(back.atomic[0].name, a->name);
		assert_string_equal(back.atomic[0].path_params, a->path_params);
	}
	unlink(path);
	job_free(&back);
}

static void test_roundtrip(void **state)
{
	static const struct {
		const char *path;
		bool same_name;
	} files[] = {
	    {FIX "lkp-will-it-scale.yaml", true},
	    {FIX "three-dims.yaml", true},
	    {FIX "no-dimension.yaml", true},
	    {"jobs/default.yaml", true},
	    /* A varying key other than mode, nr_task and test is a scalar in the atomic file,
	     * so it no longer shows in the name; so is one that differs between documents. */
	    {FIX "nested-maps.yaml", false},
	    {FIX "multi-document.yaml", false},
	};
	struct job_file job;
	(void)state;

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		load_ok(files[f].path, 4, &job);
		for (size_t i = 0; i < job.n_atomic; i++)
			roundtrip(&job, &job.atomic[i], files[f].same_name);
		job_free(&job);
	}

	/* Values that need quoting to read back as the same text. */
	load_ok(write_job("q.yaml", "test: getppid1\na: \"null\"\nb: \"\"\nc: '~'\nd: ~\n"
				    "e: \"- x\"\nf: \"a: b\"\ng: \"%x\"\nh: \" lead\"\n"
				    "i: \"x\\n%y\"\nj: {}\n\"%k\": '#'\nl: \"\xc3\xa9\"\n"
				    "m: \"<%x\"\nn: 'it''s'\no: \"a #b\"\np: \"true\"\n"),
		4, &job);
	roundtrip(&job, &job.atomic[0], true);
	assert_string_equal(json_string_value(json_object_get(job.atomic[0].tree, "a")), "null");
	assert_true(json_is_null(json_object_get(job.atomic[0].tree, "d")));
	assert_string_equal(json_string_value(json_object_get(job.atomic[0].tree, "i")), "x\n%y");
	job_free(&job);
}

static void test_write_yaml_layout(void **state)
{
	json_t *tree = json_pack("{s:s, s:n, s:{s:s, s:s}, s:[s,s], s:i, s:b}", "suite",
				 "will-it-scale", "perf-stat", "will-it-scale", "mode", "process",
				 "test", "page_fault3", "list", "a", "b", "n", 3, "t", 1);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	(void)state;

	assert_int_equal(job_write_yaml(tree, f), 0);
	fclose(f);
	assert_string_equal(buf, "suite: will-it-scale\n"
				 "perf-stat:\n"
				 "will-it-scale:\n"
				 "  mode: process\n"
				 "  test: page_fault3\n"
				 "list:\n"
				 "- a\n"
				 "- b\n"
				 "n: 3\n"
				 "t: true\n");
	free(buf);
	json_decref(tree);
}

/* job_plain_is_text against Psych itself: each text of tests/fixtures/lkp-jobs/psych/plain.txt
 * with the class LKP's Ruby makes of it written plain (regenerate.sh there). */
static void test_plain_text_as_psych_reads_it(void **state)
{
	/* Text Psych keeps as text that scalebench quotes all the same: a merge key, and a date
	 * and a time that Ruby cannot make (Psych then falls back to the text). */
	static const char *const quoted_anyway[] = {"<<", "2026-02-30", "2026-11-01 25:61:61",
						    NULL};
	FILE *f = fopen("tests/fixtures/lkp-jobs/psych/plain.txt", "r");
	char line[512];
	size_t n = 0, typed = 0;
	(void)state;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');
		bool text, anyway = false;

		assert_non_null(tab);
		*tab = '\0';
		tab[1 + strcspn(tab + 1, "\n")] = '\0';
		text = !strcmp(tab + 1, "String");
		for (size_t i = 0; quoted_anyway[i]; i++)
			anyway |= !strcmp(line, quoted_anyway[i]);
		if (job_plain_is_text(line, strlen(line)) != (text && !anyway)) {
			print_error("'%s': Psych reads it as %s, job_plain_is_text says %s\n", line,
				    tab + 1, text ? "not text" : "text");
			fail();
		}
		n++;
		typed += !text;
	}
	fclose(f);
	assert_true(n > 100 && typed > 50);
	assert_true(job_plain_is_text("no\nmore", 7) && !job_plain_is_text("no\nx", 4));
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[600];
	(void)state;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lkp_job),
	    cmocka_unit_test(test_matrix_counts),
	    cmocka_unit_test(test_percentages),
	    cmocka_unit_test(test_coinciding_task_counts),
	    cmocka_unit_test(test_path_params),
	    cmocka_unit_test(test_shipped_jobs),
	    cmocka_unit_test(test_erb_refused),
	    cmocka_unit_test(test_syntax_errors),
	    cmocka_unit_test(test_semantic_errors),
	    cmocka_unit_test(test_mode_unsupported),
	    cmocka_unit_test(test_defaults_and_units),
	    cmocka_unit_test(test_monitors_and_notes),
	    cmocka_unit_test(test_monitor_lists),
	    cmocka_unit_test(test_multi_document),
	    cmocka_unit_test(test_revision_keys),
	    cmocka_unit_test(test_header_job),
	    cmocka_unit_test(test_includes),
	    cmocka_unit_test(test_atomic_cap),
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_write_yaml_layout),
	    cmocka_unit_test(test_plain_text_as_psych_reads_it),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
