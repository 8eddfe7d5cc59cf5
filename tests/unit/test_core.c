/* Unit tests of the counter core: slot layout, rates over uneven intervals, whole-or-nothing
 * output files, placement, real core runs, and every way a core run ends.  (Task counts and
 * option values: test_num.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../lib/outfile.h"
#include "../../core/core.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_slot_layout(void **state)
{
	struct counter_area area = {0};
	(void)state;

	assert_int_equal(sizeof(struct counter_slot), 256);
	assert_int_equal(_Alignof(struct counter_slot), 256);
	assert_int_equal(counter_area_map(&area, 5), 0);
	for (unsigned i = 0; i < 5; i++) {
		uintptr_t p = (uintptr_t)&area.slots[i];

		assert_int_equal(p % COUNTER_SLOT_SIZE, 0);
		if (i)
			assert_int_equal(p - (uintptr_t)&area.slots[i - 1], COUNTER_SLOT_SIZE);
		/* Each counter alone in its 256-byte unit: nothing else shares it. */
		assert_true((uintptr_t)area.ctl + 256 <= (uintptr_t)area.slots);
	}
	assert_true((uintptr_t)area.status >= (uintptr_t)&area.slots[5]);
	assert_true((uintptr_t)&area.slots[4] + 256 <= (uintptr_t)area.base + area.size);
	counter_area_unmap(&area);
}

static void fill(struct sample_window *w, const uint64_t *t, const uint64_t *counts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(window_append(w, t[i], &counts[i * w->nr_copies]), 0);
}

static void test_rates_uneven_intervals(void **state)
{
	/* Two copies; intervals of 0.5 s, 1.2 s and 0.8 s. */
	const uint64_t t[] = {0, 500000000, 1700000000, 2500000000};
	const uint64_t counts[] = {0, 0, 100, 300, 340, 780, 500, 1100};
	struct sample_window w = {.nr_copies = 2};
	struct interval_rates r;
	(void)state;

	fill(&w, t, counts, 4);
	assert_int_equal(window_delta(&w, 2, 0), 240);
	assert_int_equal(window_delta(&w, 2, 1), 480);
	assert_int_equal(window_rates(&w, 1, 2, &r), 0);
	assert_float_equal(r.seconds, 1.2, 1e-12);
	assert_float_equal(r.min, 200.0, 1e-9); /* 240 ops / 1.2 s, not 240 "per second" */
	assert_float_equal(r.max, 400.0, 1e-9);
	assert_float_equal(r.total, 600.0, 1e-9);
	assert_int_equal(r.ops, 720);
	/* Whole window from sample 1: (500-100)/2 s and (1100-300)/2 s. */
	assert_int_equal(window_rates(&w, 1, 3, &r), 0);
	assert_float_equal(r.mean, (200.0 + 400.0) / 2, 1e-9);
	assert_float_equal(window_copy_rate(&w, 1, 3, 1), 400.0, 1e-9);
	/* Empty or reversed intervals are refused, not divided by zero. */
	assert_int_equal(window_rates(&w, 2, 2, &r), -1);
	assert_int_equal(window_rates(&w, 3, 1, &r), -1);
	assert_int_equal(window_rates(&w, 0, 9, &r), -1);
	window_free(&w);
}

static void test_rates_many_samples(void **state)
{
	struct sample_window w = {.nr_copies = 3};
	uint64_t c[3] = {0, 0, 0};
	(void)state;

	for (uint64_t i = 0; i < 1000; i++) {
		c[0] += 10;
		c[1] += 20;
		c[2] += 30;
		assert_int_equal(window_append(&w, i * 1000000000ull, c), 0);
	}
	assert_int_equal(w.n, 1000);
	assert_float_equal(window_copy_rate(&w, 0, 999, 2), 30.0, 1e-9);
	window_free(&w);
}

static void test_outfile(void **state)
{
	char dir[] = "/tmp/scalebench-unit.XXXXXX", path[256], err[512];
	struct outfile of;
	struct stat st;
	FILE *fp;
	char buf[16] = "";
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	/* An existing file survives an aborted write untouched. */
	fp = fopen(path, "w");
	fputs("old", fp);
	fclose(fp);
	assert_int_equal(outfile_open(&of, path, err, sizeof(err)), 0);
	fputs("half", of.fp);
	outfile_abort(&of);
	fp = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, "old");
	/* A committed write replaces it whole. */
	assert_int_equal(outfile_open(&of, path, err, sizeof(err)), 0);
	fputs("new", of.fp);
	assert_int_equal(outfile_commit(&of, err, sizeof(err)), 0);
	fp = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, "new");
	unlink(path);
	assert_int_equal(rmdir(dir), 0); /* no temp file left beside it */
	/* An unwritable path fails at open, naming the path. */
	assert_int_equal(outfile_open(&of, "/nonexistent-dir/x.json", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent-dir/x.json"));
	assert_int_not_equal(stat("/nonexistent-dir", &st), 0);
}

static void test_placement(void **state)
{
	int cpus[64];
	char err[256];
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	(void)state;

	assert_int_equal(placement_cpus(64, false, cpus, err, sizeof(err)), 0);
	for (int i = 0; i < 64; i++) {
		assert_true(cpus[i] >= 0);
		assert_true(cpus[i] < 4096);
	}
	/* Copies wrap around the cores: the pattern repeats with the core count's period. */
	int period = 1;
	while (period < 64 && cpus[period] != cpus[0])
		period++;
	assert_true(period <= online);
	for (int i = period; i < 64; i++)
		assert_int_equal(cpus[i], cpus[i - period]);
	/* Within one period every copy has a CPU of its own. */
	for (int i = 0; i < period; i++)
		for (int j = 0; j < i; j++)
			assert_int_not_equal(cpus[i], cpus[j]);
	assert_int_equal(placement_cpus(64, true, cpus, err, sizeof(err)), 0);
}

extern const struct testcase tc_getppid1;

/* A real run with short intervals: the schedule gives one sample per interval, a sample at
 * the end of the warmup and at the end of the window, and positive rates. */
static void test_core_run_samples(void **state)
{
	struct core_config cfg = {
	    .tc = &tc_getppid1,
	    .mode = TC_MODE_PROCESS,
	    .nr_copies = 2,
	    .warmup_s = 0.25,
	    .runtime_s = 0.5,
	    .interval_s = 0.1,
	    .setup_timeout_s = 30,
	    .affinity = true,
	    .tmpdir = "/tmp",
	    .helper_dir = ".",
	};
	struct core_result res;
	struct interval_rates r;
	(void)state;

	assert_int_equal(core_run(&cfg, &res), 0);
	assert_int_equal(res.status, CORE_OK);
	/* release + 0.1, 0.2, 0.25 (warmup end) + 0.35 .. 0.65 + 0.75 (end) */
	assert_int_equal(res.samples.n, 1 + 3 + 5);
	assert_int_equal(res.samples.measure_start, 3);
	for (size_t i = 1; i < res.samples.n; i++)
		assert_true(res.samples.t_ns[i] > res.samples.t_ns[i - 1]);
	assert_int_equal(
	    window_rates(&res.samples, res.samples.measure_start, res.samples.n - 1, &r), 0);
	assert_true(r.min > 0);
	assert_float_equal(r.seconds, 0.5, 0.05);
	core_result_free(&res);

	cfg.mode = TC_MODE_THREAD;
	cfg.warmup_s = 0;
	assert_int_equal(core_run(&cfg, &res), 0);
	assert_int_equal(res.samples.measure_start, 0);
	assert_int_equal(res.samples.n, 1 + 5);
	core_result_free(&res);
}

/* Testcases that end a run each their own way. */
static int prepare_fails_copy1(struct tc_copy *copy)
{
	return copy->index == 1 ? tc_error(copy, "no %s", "widget") : 0;
}

static int global_skips(struct tc_run *run)
{
	tc_run_error(run, "needs a widget");
	return TC_SKIP;
}

static int prepare_sleeps(struct tc_copy *copy)
{
	(void)copy;
	sleep(30);
	return 0;
}

static int run_counts(struct tc_copy *copy, volatile uint64_t *iterations)
{
	(void)copy;
	for (;;)
		(*iterations)++;
	return -1;
}

static int run_gives_up(struct tc_copy *copy, volatile uint64_t *iterations)
{
	(*iterations)++;
	usleep(100000);
	return tc_error(copy, "gave up");
}

static int run_never_counts(struct tc_copy *copy, volatile uint64_t *iterations)
{
	(void)copy;
	(void)iterations;
	for (;;)
		pause();
	return -1;
}

static const struct testcase tc_prepare_fails = {
    .name = "prepare_fails", .prepare = prepare_fails_copy1, .run = run_counts};
static const struct testcase tc_skips = {
    .name = "skips", .global_prepare = global_skips, .run = run_counts};
static const struct testcase tc_slow_setup = {
    .name = "slow_setup", .prepare = prepare_sleeps, .run = run_counts};
static const struct testcase tc_gives_up = {.name = "gives_up", .run = run_gives_up};
static const struct testcase tc_stuck = {.name = "stuck", .run = run_never_counts};

static int window_events[2];

static void count_window(int phase, void *arg)
{
	(void)arg;
	window_events[phase]++;
}

/* One run of tc; its status and failure in res.  Whatever the ending, the run leaves the
 * signal mask as it found it, no process behind, and a window that opened closed. */
static void run_to_end(const struct testcase *tc, enum tc_mode mode, struct core_result *res)
{
	struct core_config cfg = {
	    .tc = tc,
	    .mode = mode,
	    .nr_copies = 2,
	    .warmup_s = 0,
	    .runtime_s = 0.3,
	    .interval_s = 0.1,
	    .setup_timeout_s = 0.3,
	    .tmpdir = "/tmp",
	    .helper_dir = ".",
	    .on_window = count_window,
	};
	sigset_t before, after;

	memset(window_events, 0, sizeof(window_events));
	sigprocmask(SIG_SETMASK, NULL, &before);
	assert_int_equal(core_run(&cfg, res), -1);
	sigprocmask(SIG_SETMASK, NULL, &after);
	for (int sig = 1; sig < NSIG; sig++)
		assert_int_equal(sigismember(&before, sig), sigismember(&after, sig));
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(window_events[CORE_WINDOW_START], window_events[CORE_WINDOW_END]);
	assert_true(window_events[CORE_WINDOW_START] <= 1);
}

static void test_core_run_endings(void **state)
{
	struct core_config bad = {.tc = &tc_stuck, .nr_copies = 0, .runtime_s = 1, .interval_s = 1};
	struct core_result res;
	(void)state;

	assert_int_equal(core_run(&bad, &res), -EINVAL);
	assert_int_equal(res.status, CORE_FAILED);
	assert_string_equal(res.failure, "invalid core configuration");
	core_result_free(&res);

	for (int m = 0; m < 2; m++) {
		enum tc_mode mode = m ? TC_MODE_THREAD : TC_MODE_PROCESS;

		run_to_end(&tc_prepare_fails, mode, &res);
		assert_int_equal(res.status, CORE_FAILED);
		assert_non_null(strstr(res.failure, "prepare_fails: copy 1 of 2"));
		assert_non_null(strstr(res.failure, "failed: no widget"));
		assert_int_equal(window_events[CORE_WINDOW_START], 0);
		core_result_free(&res);

		run_to_end(&tc_skips, mode, &res);
		assert_int_equal(res.status, CORE_SKIPPED);
		assert_string_equal(res.failure, "skips: skipped: needs a widget");
		core_result_free(&res);

		run_to_end(&tc_slow_setup, mode, &res);
		assert_int_equal(res.status, CORE_FAILED);
		assert_non_null(strstr(res.failure, "slow_setup: only 0 of 2 copies finished their "
						    "setup within 0.3 s"));
		core_result_free(&res);

		/* A copy that fails in the window: the window still closes. */
		run_to_end(&tc_gives_up, mode, &res);
		assert_int_equal(res.status, CORE_FAILED);
		assert_non_null(strstr(res.failure, "gives_up: copy "));
		assert_non_null(strstr(res.failure, "failed: gave up"));
		assert_int_equal(window_events[CORE_WINDOW_START], 1);
		core_result_free(&res);

		run_to_end(&tc_stuck, mode, &res);
		assert_int_equal(res.status, CORE_FAILED);
		assert_non_null(strstr(res.failure, "made no progress in the 0.3 s measurement "
						    "window (stuck?)"));
		assert_int_equal(window_events[CORE_WINDOW_START], 1);
		core_result_free(&res);
	}
}

static void interrupt_on_sample(const struct sample_window *w, size_t i, void *arg)
{
	(void)w;
	(void)arg;
	if (i == 2)
		kill(getpid(), SIGTERM);
}

/* SIGTERM in the window ends the run as interrupted, and is sticky: the next run does not
 * start.  In a child, since nothing clears the interruption in this process. */
static void test_core_run_interrupted(void **state)
{
	pid_t pid;
	int st;
	(void)state;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct core_config cfg = {
		    .tc = &tc_getppid1,
		    .mode = TC_MODE_PROCESS,
		    .nr_copies = 1,
		    .runtime_s = 5,
		    .interval_s = 0.05,
		    .setup_timeout_s = 30,
		    .tmpdir = "/tmp",
		    .helper_dir = ".",
		    .on_sample = interrupt_on_sample,
		    .on_window = count_window,
		};
		struct core_result res;
		int code = 0;

		memset(window_events, 0, sizeof(window_events));
		if (core_run(&cfg, &res) != -1 || res.status != CORE_INTERRUPTED ||
		    strcmp(res.failure, "interrupted by signal 15 (Terminated)") ||
		    window_events[CORE_WINDOW_START] != 1 || window_events[CORE_WINDOW_END] != 1)
			code |= 1;
		core_result_free(&res);
		if (core_run(&cfg, &res) != -1 || res.status != CORE_INTERRUPTED ||
		    !core_interrupted() || core_interrupt_signal() != SIGTERM ||
		    window_events[CORE_WINDOW_START] != 1)
			code |= 2;
		core_result_free(&res);
		if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD)
			code |= 4;
		_exit(code);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_slot_layout),
	    cmocka_unit_test(test_rates_uneven_intervals),
	    cmocka_unit_test(test_rates_many_samples),
	    cmocka_unit_test(test_outfile),
	    cmocka_unit_test(test_placement),
	    cmocka_unit_test(test_core_run_samples),
	    cmocka_unit_test(test_core_run_endings),
	    cmocka_unit_test(test_core_run_interrupted),
	};

	return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
