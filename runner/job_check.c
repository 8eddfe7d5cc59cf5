/* Job files, third step: one atomic job checked and what the runner needs taken from it
 * (testcase, mode, nr_task, runtime, warmup, monitors); keys it does not use become notes. */
#include "job_internal.h"
#include "../lib/num.h"
#include "../store/families.h"
#include "cgroup.h"
#include "../core/core.h"
#include "../testcases/registry.h"
#include "../monitors/monitor.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys scalebench itself reads. */
/* kconfig is the runner's kconfig axis of the results path (unless --kconfig says otherwise). */
static const char *const own_keys[] = {
    "suite",	   "testcase", "nr_task",	"runtime", "warmup", "interval",
    "test",	   "mode",     "will-it-scale", "kconfig", "no_affinity", "smt",
    NULL,
};

static bool in_list(const char *const *list, const char *s)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

bool is_monitor_key(const char *key)
{
	return monitor_find(key) || family_is_lkp_monitor(key);
}

/* ---- Checking one atomic job ---- */

/* category: LKP's class of job (its include/category/ files), which every shipped job names;
 * the three LKP knows are kept without a word, anything else is noted. */
static const char *const lkp_categories[] = {"benchmark", "functional", "noise-benchmark", NULL};

static int check_category(struct loader *l, json_t *v)
{
	char b[96];

	if (json_is_string(v) && in_list(lkp_categories, json_string_value(v)))
		return 0;
	return note(l, "category %s is kept but not used by scalebench (LKP's are benchmark, "
		       "functional, noise-benchmark)",
		    describe(v, b, sizeof(b)));
}

/* cgroup2: LKP's setup/cgroup2 map, checked here so that a bad key or value stops the job
 * before anything runs (the runner makes the cgroup, runner/run.c). */
static int check_cgroup2(struct loader *l, json_t *v)
{
	char err[512];

	if (cgroup_spec_check(v, err, sizeof(err)))
		return fail(l, v, "%s", err);
	return 0;
}

/* memory: (the testbox's, lkp-tests' hosts/ files) is what cgroup2's percentages of memory
 * are of, as LKP computes them: read as LKP's to_byte reads it. */
static int check_memory(struct loader *l, json_t *v)
{
	uint64_t bytes;
	char b[256];

	if (cgroup_memory_bytes(v, &bytes))
		return fail(l, v,
			    "memory %s: expected a size as LKP's to_byte reads it (8G, 512M, a "
			    "number of bytes), which cgroup2's percentages of memory are of",
			    describe(v, b, sizeof(b)));
	return 0;
}

static bool known_suite(const char *s)
{
	if (!strcmp(s, "will-it-scale"))
		return true;
	for (size_t i = 0; testcase_table[i]; i++)
		if (testcase_listed(testcase_table[i]) && testcase_table[i]->suite &&
		    !strcmp(testcase_table[i]->suite, s))
			return true;
	for (size_t i = 0; i < plugin_count(); i++)
		if (plugin_testcase(i)->suite && !strcmp(plugin_testcase(i)->suite, s))
			return true;
	return false;
}

json_t *get_set(json_t *obj, const char *key)
{
	json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

	return json_is_null(v) ? NULL : v;
}

/* The value of a parameter read from will-it-scale.<key> or, as a shorthand,
 * the top-level <key>; both at once is ambiguous. */
static int block_or_top(struct loader *l, json_t *t, const char *key, json_t **v, char *shown,
			size_t len)
{
	json_t *inner = get_set(json_object_get(t, "will-it-scale"), key);
	json_t *top = get_set(t, key);

	if (inner && top)
		return fail(l, top, "%s and will-it-scale.%s are both set; give one", key, key);
	*v = inner ? inner : top;
	snprintf(shown, len, "%s%s", inner ? "will-it-scale." : "", key);
	return 0;
}

static int check_monitor(struct loader *l, const char *k, json_t *v, struct atomic_job *a)
{
	char b[256];

	if (monitor_find(k)) {
		if (!json_is_null(v) && !json_is_object(v))
			return fail(l, v,
				    "%s: expected a map of monitor options (or nothing), got %s", k,
				    describe(v, b, sizeof(b)));
		json_object_set_new(a->monitors, k,
				    json_is_null(v) ? json_null() : json_deep_copy(v));
		return 0;
	}
	return note(l,
		    "monitor '%s' is not available in scalebench; the key is kept "
		    "but not used",
		    k);
}

/* will-it-scale a map or nothing; suite and testcase, when set, a suite scalebench runs. */
static int check_suite(struct loader *l, json_t *t)
{
	json_t *wis = json_object_get(t, "will-it-scale"), *v;
	char b[256];

	if (wis && !json_is_null(wis) && !json_is_object(wis))
		return fail(l, wis, "will-it-scale: expected a map with test and mode, got %s",
			    describe(wis, b, sizeof(b)));
	for (int i = 0; i < 2; i++) {
		const char *sk = i ? "testcase" : "suite";

		v = get_set(t, sk);
		if (!v)
			continue;
		if (!json_is_string(v) || (!l->results_only && !known_suite(json_string_value(v))))
			return fail(l, v,
				    "%s %s: expected will-it-scale or the suite of a scalebench "
				    "testcase ('scalebench list -l' shows them)",
				    sk, describe(v, b, sizeof(b)));
	}
	return 0;
}

/* The testcase will-it-scale.test (or test) names, in *tc and a->test. */
static int check_test(struct loader *l, json_t *t, const struct testcase **tc, struct atomic_job *a)
{
	char key[64], b[256];
	json_t *v;

	if (block_or_top(l, t, "test", &v, key, sizeof(key)))
		return -1;
	if (!v && json_object_get(t, "cgroup2") && !json_object_get(t, "testcase")) {
		/* lkp-tests' jobs/cgroup2.yaml: an include, which split-job also makes a job of */
		char *pp = job_path_params(t);
		int ret = fail(l, NULL,
			       "no testcase: a job of cgroup2 keys alone, as lkp-tests' "
			       "jobs/cgroup2.yaml, is an include; LKP would run it as a job of its "
			       "own, %s-%s, that sets up the cgroup and runs no benchmark, nothing "
			       "scalebench can measure: include it from a job that names a testcase "
			       "('<<: cgroup2.yaml', as lkp-tests' will-it-scale-cgroup2.yaml does)",
			       l->job && l->job->name ? l->job->name : "job", pp ? pp : "defaults");
		free(pp);
		return ret;
	}
	if (!v)
		return fail(l, NULL,
			    "no testcase: expected will-it-scale.test (or test) naming one; "
			    "'scalebench list' shows the names");
	if (!json_is_string(v))
		return fail(l, v, "%s: expected a testcase name, got %s", key,
			    describe(v, b, sizeof(b)));
	*tc = testcase_find(json_string_value(v));
	if (!*tc && l->results_only) {
		/* The tree t is the caller's to free: the name outlives it here. */
		a->test = a->test_owned = strdup(json_string_value(v));
		return a->test ? 0 : fail(l, NULL, "out of memory");
	}
	if (!*tc && testcase_suggest(json_string_value(v)))
		return fail(l, v, "%s '%s': unknown testcase; did you mean '%s'?", key,
			    json_string_value(v), testcase_suggest(json_string_value(v)));
	if (!*tc)
		return fail(l, v, "%s '%s': unknown testcase; 'scalebench list' shows the names",
			    key, json_string_value(v));
	a->test = (*tc)->name;
	return 0;
}

/* a->mode: will-it-scale.mode (or mode), one tc runs in; a->sweep when neither it nor
 * nr_task is set. */
static int check_mode(struct loader *l, json_t *t, const struct testcase *tc, struct atomic_job *a)
{
	char key[64], b[256];
	const char *s;
	json_t *v;

	if (block_or_top(l, t, "mode", &v, key, sizeof(key)))
		return -1;
	a->sweep = !v && !get_set(t, "nr_task");
	s = v ? json_string_value(v) : DEFAULT_MODE;
	if (tc_mode_parse(s, &a->mode))
		return fail(l, v, "%s %s: expected process or thread", key,
			    describe(v, b, sizeof(b)));
	if (tc && !testcase_supports(tc, a->mode))
		return fail(l, v, "%s '%s': testcase '%s' does not run in %s mode", key, s,
			    tc->name, s);
	return 0;
}

/* *on: will-it-scale's no_affinity or smt (or the top-level key): 0 or 1, as LKP's runtest.py
 * reads them (int(), 1 sets the flag); absent is 0, and YAML's false and true (what LKP's
 * job2sh makes of them: false is unset, so 0) are 0 and 1. */
static int check_flag01(struct loader *l, json_t *t, const char *name, bool *on)
{
	char key[64], b[256];
	const char *s;
	json_t *v;

	if (block_or_top(l, t, name, &v, key, sizeof(key)))
		return -1;
	*on = false;
	if (!v)
		return 0;
	s = json_string_value(v);
	if (s && (!strcmp(s, "1") || yaml_bool(s) == 1))
		*on = true;
	else if (!s || (strcmp(s, "0") && yaml_bool(s) != 0))
		return fail(l, v, "%s %s: expected 0 or 1, as will-it-scale's runtest.py reads it", key,
			    describe(v, b, sizeof(b)));
	return 0;
}

/* a->nr_task: nr_task (a number of tasks or a percentage of the online CPUs) or its default. */
static int check_nr_task(struct loader *l, json_t *t, struct atomic_job *a)
{
	json_t *v = get_set(t, "nr_task");
	const char *s = v ? json_string_value(v) : DEFAULT_NR_TASK;
	char b[256];

	if (!s)
		return fail(l, v,
			    "nr_task %s: expected a number of tasks (at least 1) or a percentage "
			    "of online CPUs (50%%)",
			    describe(v, b, sizeof(b)));
	if (num_parse_tasks(s, l->nr_online, CORE_MAX_COPIES, &a->nr_task, b, sizeof(b)))
		return fail(l, v, "nr_task %s", b);
	return 0;
}

/* a->interval_s, a->runtime_s (long enough for the counter core's sampling) and
 * a->warmup_s: the job's durations or their defaults. */
static int check_durations(struct loader *l, json_t *t, struct atomic_job *a)
{
	char b[256];
	json_t *v;

	a->interval_s = DEFAULT_INTERVAL;
	v = get_set(t, "interval");
	if (v && !json_is_string(v))
		return fail(l, v, "interval %s: expected a duration (1, 1s, 0.25s)",
			    describe(v, b, sizeof(b)));
	if (v && num_parse_duration(json_string_value(v), JOB_MIN_INTERVAL, JOB_MAX_INTERVAL,
				    &a->interval_s, b, sizeof(b)))
		return fail(l, v, "interval %s", b);

	a->runtime_s = DEFAULT_RUNTIME;
	v = get_set(t, "runtime");
	if (v && !json_is_string(v))
		return fail(l, v, "runtime %s: expected a duration (300, 300s, 5m)",
			    describe(v, b, sizeof(b)));
	if (v && num_parse_duration(json_string_value(v), NUM_DURATION_MIN, NUM_DURATION_MAX,
				    &a->runtime_s, b, sizeof(b)))
		return fail(l, v, "runtime %s", b);
	if (a->runtime_s < JOB_MIN_RUNTIME_INTERVALS * a->interval_s) {
		char every[48];

		if (a->interval_s == 1.0)
			snprintf(every, sizeof(every), "once a second");
		else
			snprintf(every, sizeof(every), "every %gs (interval)", a->interval_s);
		return fail(
		    l, v,
		    "runtime '%s': expected at least %gs: the counter core samples every copy "
		    "%s, and a shorter window can close before every copy has run "
		    "(the run would be stored as failed, 'stuck?')",
		    json_string_value(v), JOB_MIN_RUNTIME_INTERVALS * a->interval_s, every);
	}
	a->warmup_s = DEFAULT_WARMUP;
	v = get_set(t, "warmup");
	if (v && !json_is_string(v))
		return fail(l, v, "warmup %s: expected a duration (0, 1, 1s, 0.5)",
			    describe(v, b, sizeof(b)));
	if (v && num_parse_duration(json_string_value(v), 0, NUM_DURATION_MAX, &a->warmup_s, b,
				    sizeof(b)))
		return fail(l, v, "warmup %s", b);
	return 0;
}

/* The keys scalebench does not read itself: cgroup2 checked, monitors into a->monitors,
 * any other a note. */
static int check_other_keys(struct loader *l, json_t *t, struct atomic_job *a)
{
	json_t *wis = json_object_get(t, "will-it-scale"), *v;
	const char *k;

	a->monitors = json_object();
	json_object_foreach (t, k, v) {
		int ret = 0;

		if (in_list(own_keys, k))
			continue;
		if (!strcmp(k, "cgroup2"))
			ret = check_cgroup2(l, v);
		else if (!strcmp(k, "memory") && json_object_get(t, "cgroup2"))
			ret = check_memory(l, v);
		else if (!strcmp(k, "category"))
			ret = check_category(l, v);
		else if (is_monitor_key(k))
			ret = check_monitor(l, k, v, a);
		else
			ret = note(l, "key '%s' is kept but not used by scalebench", k);
		if (ret)
			return -1;
	}
	if (json_is_object(wis)) {
		json_t *iv;

		json_object_foreach (wis, k, iv) {
			if (strcmp(k, "test") && strcmp(k, "mode") && strcmp(k, "no_affinity") &&
			    strcmp(k, "smt") &&
			    note(l, "key 'will-it-scale.%s' is kept but not used by scalebench", k))
				return -1;
		}
	}
	return 0;
}

int check_atomic(struct loader *l, json_t *t, struct atomic_job *a)
{
	const struct testcase *tc = NULL;

	if (check_suite(l, t) || check_test(l, t, &tc, a) || check_mode(l, t, tc, a) ||
	    check_nr_task(l, t, a) || check_flag01(l, t, "no_affinity", &a->no_affinity) ||
	    check_flag01(l, t, "smt", &a->smt) || check_durations(l, t, a) ||
	    check_other_keys(l, t, a))
		return -1;
	return 0;
}
