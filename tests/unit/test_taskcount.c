/* core/taskcount: a process's faults and its threads' context switches, for it and every
 * process below it and nothing else, from a fixture /proc; growth between two readings, with
 * new tasks counted whole and reused ids not counted negative. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../core/taskcount.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

/* PID's stat (faults: minflt cminflt majflt cmajflt) and one status per thread. */
static void proc(int pid, const char *comm, int ppid, unsigned f0, unsigned f1, unsigned f2,
		 unsigned f3)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/stat", root, pid);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%d (%s) S %d %d %d 0 -1 4194560 %u %u %u %u 0 0 0 0 20 0 1 0\n", pid, comm,
		ppid, pid, pid, f0, f1, f2, f3);
	fclose(f);
}

static void thread(int pid, int tid, unsigned vol, unsigned invol)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/task/%d", root, pid, tid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task/%d/status", root, pid, tid);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "Name:\tx\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t%u\n"
		   "nonvoluntary_ctxt_switches:\t%u\n", vol, invol);
	fclose(f);
}

static void test_tree_and_delta(void **state)
{
	struct task_snapshot a, b;
	uint64_t pf, cs;
	char cmd[128];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_taskcount.XXXXXX");
	assert_non_null(mkdtemp(root));
	proc(1, "init", 0, 9, 9, 9, 9);
	thread(1, 1, 50, 50);
	proc(100, "scalebench", 1, 1000, 0, 0, 0); /* the sampler: not counted */
	thread(100, 100, 70, 0);
	proc(101, "host", 100, 10, 0, 1, 0); /* the root */
	thread(101, 101, 5, 0);
	proc(102, "copy (a) b)", 101, 100, 20, 0, 0); /* a name with parentheses */
	thread(102, 102, 30, 3);
	thread(102, 110, 7, 0);
	proc(103, "helper", 102, 4, 0, 0, 0); /* a grandchild */
	thread(103, 103, 2, 0);
	proc(200, "other", 1, 500, 0, 0, 0); /* elsewhere on the machine */
	thread(200, 200, 900, 0);

	assert_int_equal(task_snapshot_take(root, 101, &a), 0);
	assert_int_equal(a.nprocs, 3);
	assert_int_equal(a.nthreads, 4);
	assert_int_equal(a.procs[1].id, 102);
	assert_int_equal(a.procs[1].v, 120);

	/* The copy faults 50 more, thread 110 switches 8 more, the helper ends (reaped: its
	 * faults into the copy's cminflt), a new child 104 comes, other tasks do a lot. */
	proc(102, "copy (a) b)", 101, 150, 24, 0, 0);
	thread(102, 110, 15, 0);
	snprintf(cmd, sizeof(cmd), "rm -r %s/103", root);
	assert_int_equal(system(cmd), 0);
	proc(104, "child", 102, 6, 0, 0, 0);
	thread(104, 104, 1, 1);
	proc(200, "other", 1, 99999, 0, 0, 0);
	thread(200, 200, 99999, 0);
	thread(100, 100, 99999, 0);
	assert_int_equal(task_snapshot_take(root, 101, &b), 0);
	task_snapshot_delta(&a, &b, &pf, &cs);
	assert_int_equal(pf, 54 + 6);
	assert_int_equal(cs, 8 + 2);

	/* A reused id whose count is lower: counted as new, never as a huge wrap. */
	thread(102, 102, 1, 0);
	task_snapshot_free(&b);
	assert_int_equal(task_snapshot_take(root, 101, &b), 0);
	task_snapshot_delta(&a, &b, &pf, &cs);
	assert_int_equal(cs, 8 + 2 + 1);
	task_snapshot_free(&b);

	/* No such root, no such /proc. */
	assert_int_equal(task_snapshot_take(root, 4242, &b), -1);
	assert_int_equal(task_snapshot_take("/nonexistent", 101, &b), -1);
	task_snapshot_free(&a);
	snprintf(cmd, sizeof(cmd), "rm -r %s", root);
	assert_int_equal(system(cmd), 0);
}

/* The real /proc: this process is found, with at least the faults it took to start. */
static void test_self(void **state)
{
	struct task_snapshot s;

	(void)state;
	assert_int_equal(task_snapshot_take("/proc", getpid(), &s), 0);
	assert_true(s.nprocs >= 1 && s.nthreads >= 1);
	assert_int_equal(s.procs[0].id, getpid());
	assert_true(s.procs[0].v > 0);
	task_snapshot_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tree_and_delta),
	    cmocka_unit_test(test_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
