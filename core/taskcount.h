/* What a run's own tasks did: page faults and context switches of a process and everything
 * below it (threads, children, their children), read from /proc at two moments.  Where the
 * machine's counters (/proc/stat ctxt, /proc/vmstat pgfault) count every other task too,
 * these count the testcase alone; and where per-task perf events would count the same, they
 * would also slow every context switch of the copies (by a third for context_switch1 on
 * this VM): two reads of /proc cost the copies nothing. */
#ifndef SCALEBENCH_TASKCOUNT_H
#define SCALEBENCH_TASKCOUNT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct task_value {
	pid_t id;
	uint64_t v;
};

/* One reading: per process (by pid) its faults, minor and major, its own with its dead
 * threads' and its reaped children's (minflt + majflt + cminflt + cmajflt of
 * /proc/PID/stat); per thread (by tid) its context switches, voluntary and not
 * (/proc/PID/task/TID/status).  Both sorted by id. */
struct task_snapshot {
	struct task_value *procs, *threads;
	size_t nprocs, nthreads;
};

/* Read root and every process below it under proc_root ("/proc"; tests give a fixture
 * tree).  0, or -1 with errno (proc_root unreadable, root not there, out of memory). */
int task_snapshot_take(const char *proc_root, pid_t root, struct task_snapshot *s);
/* What happened from a to b: each process's and thread's growth, in full for one that is new
 * in b.  A thread that ended between them takes its switches along (the kernel keeps them
 * only for getrusage); a process's faults stay, in its parent's count once it is reaped. */
void task_snapshot_delta(const struct task_snapshot *a, const struct task_snapshot *b,
			 uint64_t *pgfault, uint64_t *ctxt);
void task_snapshot_free(struct task_snapshot *s);

#endif
