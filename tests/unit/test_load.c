/* Unit tests of the busy-machine record (runner/load.c): /proc/stat parsed, runnable tasks
 * besides the testcase's copies, steal over the window, cpufreq, and the decision in words,
 * on fixture /proc and /sys trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../runner/load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A /proc/stat with the aggregate line's steal field and procs_running as given. */
static void put_stat(const char *dir, unsigned long long busy_ticks, unsigned long long steal,
		     unsigned running)
{
	char path[8192], text[1024];

	snprintf(path, sizeof(path), "%.4000s/stat", dir);
	snprintf(text, sizeof(text),
		 "cpu  %llu 0 100 %llu 0 0 0 %llu 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n"
		 "intr 1 2 3\nctxt 99\nprocs_running %u\nprocs_blocked 0\n",
		 busy_ticks, 1000 - busy_ticks / 10, steal, running);
	put(path, text);
}

static void test_parse(void **state)
{
	struct cpu_times t;
	(void)state;

	assert_int_equal(cpu_times_parse("cpu  10 20 30 40 50 60 70 80 90 100\n"
					 "procs_running 7\n",
					 &t),
			 0);
	/* guest time is inside user and nice: the total stops at steal */
	assert_true(t.total == 10 + 20 + 30 + 40 + 50 + 60 + 70 + 80);
	assert_true(t.steal == 80);
	assert_int_equal(t.procs_running, 7);
	assert_int_equal(cpu_times_parse("cpu0 1 2 3\n", &t), -1);
	assert_int_equal(cpu_times_parse("", &t), -1);
}

static char *fixture(void)
{
	char *d = strdup("/tmp/test_load.XXXXXX"), path[4096];

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	snprintf(path, sizeof(path), "%s/proc", d);
	assert_int_equal(mkdir(path, 0755), 0);
	return d;
}

static void cleanup(char *d)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	assert_int_equal(system(cmd), 0);
	free(d);
}

static void test_busy_runnable(void **state)
{
	char *d = fixture(), proc[4096];
	struct machine_load l;
	(void)state;

	snprintf(proc, sizeof(proc), "%s/proc", d);
	put_stat(proc, 100, 0, 3);
	machine_load_init(&l, proc, d, 2, 2);
	machine_load_start(&l);
	/* 2 copies + the reader + k others */
	for (unsigned others = 5; others <= 7; others++) {
		put_stat(proc, 200, 0, 2 + 1 + others);
		machine_load_sample(&l);
	}
	machine_load_stop(&l);
	assert_true(l.busy);
	assert_true(fabs(l.runnable_sum / (double)l.samples - 6.0) < 1e-9);
	assert_string_equal(l.reason,
			    "6.0 runnable tasks on 2 CPUs besides the testcase's 2 copies");
	assert_true(isnan(l.cpu_mhz_mean)); /* no cpufreq in the fixture */
	json_t *j = machine_load_json(&l);
	assert_true(json_is_true(json_object_get(j, "busy")));
	assert_true(json_is_null(json_object_get(j, "cpu_mhz_mean")));
	json_decref(j);
	cleanup(d);
}

static void test_idle_and_free_cpus(void **state)
{
	char *d = fixture(), proc[4096], cmd[4200], path[4200];
	struct machine_load l;
	(void)state;

	snprintf(cmd, sizeof(cmd), "mkdir -p '%.4000s/devices/system/cpu/cpu0/cpufreq'", d);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%.4000s/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", d);
	put(path, "2400000\n");
	snprintf(proc, sizeof(proc), "%s/proc", d);
	/* 1 copy on 4 CPUs, 2 other tasks: they have CPUs of their own, not busy */
	put_stat(proc, 100, 0, 1 + 1 + 2);
	machine_load_init(&l, proc, d, 4, 1);
	machine_load_start(&l);
	machine_load_sample(&l);
	machine_load_stop(&l);
	assert_false(l.busy);
	assert_string_equal(l.reason, "");
	assert_true(fabs(l.cpu_mhz_mean - 2400) < 1e-9);
	/* fewer running than the copies (a copy asleep): none counted, not negative */
	machine_load_init(&l, proc, d, 2, 2);
	put_stat(proc, 100, 0, 1);
	machine_load_start(&l);
	machine_load_sample(&l);
	machine_load_stop(&l);
	assert_true(l.runnable_max == 0 && !l.busy);
	cleanup(d);
}

static void test_steal(void **state)
{
	char *d = fixture(), proc[4096];
	struct machine_load l;
	(void)state;

	snprintf(proc, sizeof(proc), "%s/proc", d);
	put_stat(proc, 100, 0, 3);
	machine_load_init(&l, proc, d, 2, 2);
	machine_load_start(&l);
	machine_load_sample(&l);
	/* 920 ticks more over the window, 200 of them stolen: 22% */
	put_stat(proc, 100 + 800, 200, 3);
	machine_load_stop(&l);
	assert_true(l.steal_pct > 5);
	assert_true(l.busy);
	assert_non_null(strstr(l.reason, "of the CPU time stolen by the hypervisor"));
	cleanup(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_busy_runnable),
	    cmocka_unit_test(test_idle_and_free_cpus),
	    cmocka_unit_test(test_steal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
