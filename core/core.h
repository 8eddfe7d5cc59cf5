/* The counter core: runs 1..N copies of a testcase as processes or threads, releases them
 * together, and samples their counters from outside. */
#ifndef SCALEBENCH_CORE_H
#define SCALEBENCH_CORE_H

#include "../testcases/testcase.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Adjacent-line prefetchers pull cache lines in pairs (and some CPUs in aligned 128-byte
 * pairs of pairs), so 128-byte padding still lets two copies' counters ping-pong; 256 bytes
 * keeps every counter alone in its prefetch unit. */
#define COUNTER_SLOT_SIZE 256

struct counter_slot {
	_Alignas(COUNTER_SLOT_SIZE) volatile uint64_t iterations;
	char pad[COUNTER_SLOT_SIZE - sizeof(uint64_t)];
};

_Static_assert(sizeof(struct counter_slot) == COUNTER_SLOT_SIZE, "counter slot size");
_Static_assert(_Alignof(struct counter_slot) == COUNTER_SLOT_SIZE, "counter slot alignment");

/* The memory shared by the sampler and every copy: control words (the start barrier,
 * failure reports), then one counter_slot per copy, then per-copy status, which is written
 * only at setup and on failure and so is kept away from the counters. */
struct core_ctl;
struct copy_status;
struct counter_area {
	struct core_ctl *ctl;
	struct counter_slot *slots;
	struct copy_status *status;
	void *base;
	size_t size;
};

int counter_area_map(struct counter_area *area, unsigned nr_copies);
void counter_area_unmap(struct counter_area *area);

/* Every sample the sampler took: t_ns[i] is the time since the copies were released, and
 * counts[i * nr_copies + c] is copy c's counter at that time.  Sample 0 is the release. */
struct sample_window {
	unsigned nr_copies;
	size_t n, cap;
	uint64_t *t_ns;
	uint64_t *counts;
	size_t measure_start; /* index of the sample that ends the warmup */
};

enum core_status { CORE_OK, CORE_FAILED, CORE_INTERRUPTED, CORE_SKIPPED };

struct core_config {
	const struct testcase *tc;
	enum tc_mode mode;
	unsigned nr_copies;
	double warmup_s;
	double runtime_s;
	double interval_s; /* between samples: CORE_MIN_INTERVAL_S to CORE_MAX_INTERVAL_S */
	double setup_timeout_s;
	bool affinity;
	bool smt;
	const char *tmpdir;
	const char *helper_dir;
	/* A cgroup v2 directory (cgroup.h) the copies run in, or NULL: the copy host joins it
	 * before its global_prepare, so the copies and all they start are in it from birth. */
	const char *cgroup_dir;
	/* Called after each sample is stored (progress output); may be NULL. */
	void (*on_sample)(const struct sample_window *w, size_t i, void *arg);
	/* Called in the sampler when the measurement window opens (CORE_WINDOW_START, right
	 * after its first sample) and closes (CORE_WINDOW_END, after its last sample, before
	 * the copies are torn down): monitors run exactly over the window.  May be NULL.  A
	 * window that opened is always closed, also on failure or interruption. */
	void (*on_window)(int phase, void *arg);
	void *arg;
};

struct core_result {
	enum core_status status;
	char failure[768]; /* why, when status != CORE_OK */
	struct sample_window samples;
	int *cpus;	      /* placement per copy (OS CPU index), -1 = not pinned */
	double sampler_cpu_s; /* CPU time of the sampling process over the run */
	/* System-wide context switches (/proc/stat ctxt) and page faults (/proc/vmstat
	 * pgfault) during the measurement window: a cheap check of what an op costs. */
	bool sys_valid;
	uint64_t sys_ctxt;
	uint64_t sys_pgfault;
	/* The same counted for the copy host and every task below it (copies, their threads,
	 * helpers and children) alone: what the testcase did, whatever else the machine runs
	 * (taskcount.h).  task_valid is false when /proc could not be read. */
	bool task_valid;
	uint64_t task_ctxt;
	uint64_t task_pgfault;
	/* Below 1: the share of the measurement window the most starved copy ran on a CPU,
	 * though it wanted one most of the window (/proc/TID/schedstat: under a quarter on a
	 * CPU, the rest waiting on a run queue or runnable at the end); its rate is other
	 * tasks'.  1 when no copy was starved (one that sleeps by design is not); NAN where
	 * the kernel does not say. */
	double starved_share;
	/* CORE_FAILED because a copy made no progress in the window: with starved_share below
	 * 1 it was starved, not stuck. */
	bool no_progress;
};

#define CORE_MAX_COPIES 4096

enum { CORE_WINDOW_START, CORE_WINDOW_END };

int core_run(const struct core_config *cfg, struct core_result *res);
void core_result_free(struct core_result *res);

/* SIGINT and SIGTERM only set the flag below from now on (core_run does this itself): a
 * command that writes anything before its first core_run calls it first thing, so that no
 * signal, however early, ends it with a half-written temp file or directory behind. */
void core_catch_signals(void);
/* True once SIGINT or SIGTERM arrived (after core_catch_signals): callers stop their loops. */
bool core_interrupted(void);
int core_interrupt_signal(void);

/* Rates (rates.c): pure functions over a sample_window. */
int window_append(struct sample_window *w, uint64_t t_ns, const uint64_t *counts);
void window_free(struct sample_window *w);

/* The sampling interval's bounds, for a job file's `interval` and bench --interval (default
 * 1 s both): below 10 ms the sampler's own reads and wakeups start to be part of what is
 * measured, and above a minute a window has too few samples to show a copy stall. */
#define CORE_MIN_INTERVAL_S 0.01
#define CORE_MAX_INTERVAL_S 60.0

/* Copy c's counter delta and the interval length between samples i-1 and i. */
uint64_t window_delta(const struct sample_window *w, size_t i, unsigned c);

/* Per-copy ops/s between samples `from` and `to`, and their sum; min and max over copies.
 * Returns -1 when the interval is empty. */
struct interval_rates {
	double min, max, total, mean;
	uint64_t ops;	/* ops of all copies between the samples */
	double seconds; /* length of the interval */
};
int window_rates(const struct sample_window *w, size_t from, size_t to, struct interval_rates *r);
double window_copy_rate(const struct sample_window *w, size_t from, size_t to, unsigned c);

/* Placement (placement.c): the CPU (OS index) for each copy: copy i on core i mod ncores,
 * first hardware thread of each core; with smt, every hardware thread, cores first. */
int placement_cpus(unsigned nr_copies, bool smt, int *cpus, char *err, size_t errlen);

#endif
