/* runner/slurm_status's parsers: done/<I> records, and squeue, scontrol and sacct output.
 * The squeue and scontrol outputs are captures from the one-node test cluster, one file each
 * under tests/fixtures/slurm (its README says what each is); the other inputs are written for
 * the cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/file.h"
#include "../../runner/slurm_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIX "tests/fixtures/slurm/"

/* The capture FIX/name (the tests run from the repository's root), malloc'd; the case fails
 * naming the file when it cannot be read. */
static char *capture(const char *name)
{
	char path[256], err[512], *text;

	snprintf(path, sizeof(path), FIX "%s", name);
	if (file_read(path, 1 << 20, &text, NULL, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	return text;
}

static void test_done_good(void **state)
{
	struct slurm_done d;
	char err[256];

	(void)state;
	assert_int_equal(slurm_parse_done("exit=0 node=vm start=1796070000 end=1796070003\n", &d,
					  err, sizeof(err)),
			 0);
	assert_int_equal(d.exit_code, 0);
	assert_string_equal(d.node, "vm");
	assert_true(d.start == 1796070000 && d.end == 1796070003);
	slurm_done_free(&d);
	/* without the final newline too (a script's printf without \n) */
	assert_int_equal(slurm_parse_done("exit=2 node=node-01.cluster start=5 end=5", &d, err,
					  sizeof(err)),
			 0);
	assert_int_equal(d.exit_code, 2);
	assert_string_equal(d.node, "node-01.cluster");
	slurm_done_free(&d);
}

static void test_done_malformed(void **state)
{
	static const char *const bad[] = {
	    "",
	    "\n",
	    "exit=0\n",
	    "exit= node=vm start=1 end=2\n",
	    "exit=-1 node=vm start=1 end=2\n",
	    "exit=256 node=vm start=1 end=2\n",
	    "exit=0x1 node=vm start=1 end=2\n",
	    "exit=0 node= start=1 end=2\n",
	    "exit=0 node=v;m start=1 end=2\n",
	    "exit=0 node=vm start=1 end=2\nexit=0 node=vm start=1 end=2\n",
	    "exit=0  node=vm start=1 end=2\n",
	    "exit=0 node=vm start=2 end=1\n",
	    "exit=0 node=vm start=1 end=2 extra=3\n",
	    "node=vm exit=0 start=1 end=2\n",
	    "exit=0 node=vm start=99999999999999999999 end=2\n",
	};
	struct slurm_done d;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (slurm_parse_done(bad[i], &d, err, sizeof(err)) != -1)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_true(err[0] != '\0');
		assert_null(d.node);
	}
}

static void test_squeue(void **state)
{
	struct slurm_reports r;
	const struct slurm_report *t;
	char err[256], *running, *held;

	(void)state;
	running = capture("squeue-array-running.txt");
	assert_int_equal(slurm_parse_squeue(running, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 4);
	t = slurm_reports_find(&r, 2);
	assert_non_null(t);
	assert_string_equal(t->state, "RUNNING");
	assert_string_equal(t->node, "vm");
	assert_null(t->reason); /* "None" */
	t = slurm_reports_find(&r, 5);
	assert_string_equal(t->state, "PENDING");
	assert_null(t->node);
	assert_string_equal(t->reason, "Resources");
	assert_null(slurm_reports_find(&r, 0));
	slurm_reports_free(&r);

	held = capture("squeue-array-held.txt");
	assert_int_equal(slurm_parse_squeue(held, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(slurm_reports_find(&r, 1)->reason, "JobHeldUser");
	slurm_reports_free(&r);
	free(running);
	free(held);

	/* an unsplit pending range, a non-array job, nothing at all */
	assert_int_equal(slurm_parse_squeue("[4-6%2]|PENDING||JobArrayTaskLimit\n", &r, err,
					    sizeof(err)),
			 0);
	assert_int_equal(r.n, 1);
	assert_non_null(slurm_reports_find(&r, 4));
	assert_non_null(slurm_reports_find(&r, 6));
	assert_null(slurm_reports_find(&r, 7));
	slurm_reports_free(&r);
	assert_int_equal(slurm_parse_squeue("1,3-4|PENDING||Priority\n", &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 2);
	assert_null(slurm_reports_find(&r, 2));
	assert_string_equal(slurm_reports_find(&r, 4)->reason, "Priority");
	slurm_reports_free(&r);
	assert_int_equal(slurm_parse_squeue("N/A|RUNNING|vm|None\n", &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.v[0].task, -1);
	slurm_reports_free(&r);
	assert_int_equal(slurm_parse_squeue("", &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 0);
	slurm_reports_free(&r);

	static const char *const bad[] = {"3|PENDING\n", "x|PENDING||None\n", "3||vm|None\n",
					   "5-3|PENDING||None\n", "1-x|PENDING||None\n"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (slurm_parse_squeue(bad[i], &r, err, sizeof(err)) != -1)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_non_null(strstr(err, "squeue line 1"));
	}
	/* The messages name the tool, the line and what was expected. */
	assert_int_equal(slurm_parse_squeue("1|PENDING||None\n\n3|PENDING\n", &r, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "squeue line 3: expected 4 fields TASK|STATE|NODE|REASON");
	assert_int_equal(slurm_parse_squeue("3||vm|None\n", &r, err, sizeof(err)), -1);
	assert_string_equal(err, "squeue line 1: no state");
	assert_int_equal(slurm_parse_sacct("7_1|COMPLETED|vm|0:0\n7_1.batch|COMPLETED|vm|x\n"
					   "7_2|FAILED|vm|1\n",
					   &r, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "sacct line 3: ExitCode \"1\": expected RC:SIG");
	assert_int_equal(slurm_parse_sacct("7_1|COMPLETED\n", &r, err, sizeof(err)), -1);
	assert_string_equal(err, "sacct line 1: expected 4 fields JobID|State|NodeList|ExitCode");
}

static void test_scontrol(void **state)
{
	struct slurm_reports r;
	const struct slurm_report *t;
	char err[256], *mixed, *ended;

	(void)state;
	mixed = capture("scontrol-show-job-mixed.txt");
	assert_int_equal(slurm_parse_scontrol(mixed, &r, err, sizeof(err)), 0);
	/* 4-5 pending (one block), 3 running, 2 cancelled, 1 failed, 0 completed */
	assert_int_equal(r.n, 5);
	t = slurm_reports_find(&r, 4);
	assert_string_equal(t->state, "PENDING");
	assert_string_equal(t->reason, "Resources");
	assert_null(t->node);
	assert_string_equal(slurm_reports_find(&r, 5)->state, "PENDING");
	assert_string_equal(slurm_reports_find(&r, 3)->state, "RUNNING");
	t = slurm_reports_find(&r, 2);
	assert_string_equal(t->state, "CANCELLED");
	assert_string_equal(t->node, "vm");
	assert_int_equal(t->exit_code, 0);
	assert_int_equal(t->exit_signal, 15);
	t = slurm_reports_find(&r, 1);
	assert_string_equal(t->state, "FAILED");
	assert_int_equal(t->exit_code, 3);
	t = slurm_reports_find(&r, 0);
	assert_string_equal(t->state, "COMPLETED");
	assert_int_equal(t->exit_code, 0);
	assert_non_null(r.command);
	assert_non_null(strstr(r.command, "/j.sh"));
	assert_null(strchr(r.command, '\n'));
	slurm_reports_free(&r);

	ended = capture("scontrol-show-job-ended.txt");
	assert_int_equal(slurm_parse_scontrol(ended, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 5);
	for (long i = 2; i < 6; i++)
		assert_string_equal(slurm_reports_find(&r, i)->state, "CANCELLED");
	slurm_reports_free(&r);
	free(mixed);
	free(ended);

	assert_int_equal(slurm_parse_scontrol("", &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 0);
	slurm_reports_free(&r);
	assert_int_equal(slurm_parse_scontrol("JobId=7 JobName=x\n   Reason=None\n\n", &r, err,
					      sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "JobState"));
	assert_int_equal(slurm_parse_scontrol("JobId=7 ArrayTaskId=1\n   JobState=FAILED "
					      "ExitCode=x:0\n",
					      &r, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "ExitCode"));
}

static void test_sacct(void **state)
{
	struct slurm_reports r;
	const struct slurm_report *t;
	char err[256];

	(void)state;
	/* the format sacct -P prints when accounting is on, written by hand: the test cluster runs
	 * without accounting, so there is no capture (tests/fixtures/slurm/README.md) */
	assert_int_equal(slurm_parse_sacct("12_0|COMPLETED|vm|0:0\n"
					   "12_0.batch|COMPLETED|vm|0:0\n"
					   "12_1|CANCELLED by 0|vm|0:15\n"
					   "12_2|TIMEOUT|vm|0:0\n"
					   "12_3|OUT_OF_MEMORY|vm|0:125\n",
					   &r, err, sizeof(err)),
			 0);
	assert_int_equal(r.n, 4);
	assert_string_equal(slurm_reports_find(&r, 1)->state, "CANCELLED");
	t = slurm_reports_find(&r, 3);
	assert_string_equal(t->state, "OUT_OF_MEMORY");
	assert_int_equal(t->exit_signal, 125);
	slurm_reports_free(&r);
	assert_int_equal(slurm_parse_sacct("12_0|COMPLETED|vm\n", &r, err, sizeof(err)), -1);
	/* found by fuzz_slurm: an empty state */
	assert_int_equal(slurm_parse_sacct("00||soR0|0:0\n", &r, err, sizeof(err)), -1);
}

static void test_tail(void **state)
{
	const char *t = "1\n2\n3\n4\n";

	(void)state;
	assert_string_equal(slurm_tail_lines(t, strlen(t), 2), "3\n4\n");
	assert_string_equal(slurm_tail_lines(t, strlen(t), 10), t);
	assert_string_equal(slurm_tail_lines("a\nb", 3, 1), "b");
	assert_string_equal(slurm_tail_lines("", 0, 3), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_done_good),   cmocka_unit_test(test_done_malformed),
	    cmocka_unit_test(test_squeue),	cmocka_unit_test(test_scontrol),
	    cmocka_unit_test(test_sacct),	cmocka_unit_test(test_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
