/* scalebench/testcase.h — the testcase descriptor: what a testcase defines, and the little it
 * may call.  Built-in testcases and out-of-tree plug-ins use this same header; it is
 * installed as <scalebench/testcase.h> and needs nothing else.
 *
 * A testcase owns its loop and nothing else; the counter core owns spawning, placement, the
 * start barrier, sampling and teardown.  A testcase file ends in one descriptor:
 *
 *	const struct testcase tc_page_fault3 = {
 *		.name = "page_fault3", .description = "...", .run = page_fault3_run, ...
 *	};
 *
 * Built-in testcases are collected from their `const struct testcase tc_<name>` definitions
 * at build time; a plug-in lists its own with SCALEBENCH_PLUGIN(&tc_a, &tc_b). */
#ifndef SCALEBENCH_TESTCASE_H
#define SCALEBENCH_TESTCASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bumped whenever struct testcase, struct tc_copy or struct tc_run change layout: a plug-in
 * built against another version is refused, not run with misread fields. */
#define SCALEBENCH_TESTCASE_ABI 1

enum tc_mode { TC_MODE_PROCESS, TC_MODE_THREAD };

/* "process" or "thread": the mode's name in job files, paths and outputs (inline: the core,
 * the registry and plug-ins share it without a link-time dependency). */
static inline const char *tc_mode_name(enum tc_mode mode)
{
	return mode == TC_MODE_PROCESS ? "process" : "thread";
}

/* What one copy sees.  In process mode each copy has its own struct (copied at fork); in
 * thread mode each thread has its own; `shared` is what global_prepare left for all. */
struct tc_copy {
	unsigned index; /* 0 .. nr_copies-1 */
	unsigned nr_copies;
	enum tc_mode mode;
	const char *tmpdir;	/* where temp files go; unlink them as soon as they are opened */
	const char *helper_dir; /* where helper binaries (scalebench-exec-helper) live */
	void *priv;		/* the testcase's per-copy state, set by prepare */
	void *shared;		/* the testcase's run-wide state, set by global_prepare */
	char *errbuf;		/* tc_error() writes here; the core reports it */
	size_t errbuf_size;
};

/* Run-wide context for global_prepare, called once per run in the copy host before any copy
 * exists: what it sets up (a shared file, a MAP_SHARED mutex) is inherited by every copy. */
struct tc_run {
	unsigned nr_copies;
	enum tc_mode mode;
	const char *tmpdir;
	const char *helper_dir;
	void *shared;
	char *errbuf;
	size_t errbuf_size;
};

#define TC_PROCESS_ONLY (1u << 0) /* meaningless in thread mode */
#define TC_THREAD_ONLY	(1u << 1) /* meaningless in process mode */
#define TC_HIDDEN	(1u << 2) /* test-only: not listed, runs only with SCALEBENCH_SELFTEST=1 */

/* prepare/global_prepare return this (after tc_error()) when the testcase cannot run on this
 * machine or filesystem (O_DIRECT on tmpfs, ...): the run is reported as skipped, not failed. */
#define TC_SKIP 1

struct testcase {
	const char *name;	 /* "page_fault3" */
	const char *description; /* one line, as will-it-scale's testcase_description */
	const char *suite;	 /* stat prefix: "will-it-scale" */
	const char *op;		 /* what one counted op is: "page touched", "exec" */
	/* The headline stat is a cost: with cost_stat set ("us_per_event"), the run reports
	 * <suite>.<cost_stat> = 1e6 / (ops/s of one copy), microseconds per op. */
	const char *cost_stat;
	bool lower_is_better;
	unsigned flags;
	/* Optional.  Return 0, TC_SKIP, or -1 after tc_error()/tc_run_error(). */
	int (*global_prepare)(struct tc_run *run);
	int (*prepare)(struct tc_copy *copy);
	/* The hot loop: increments *iterations once per op, forever.  Returns only on error
	 * (-1 after tc_error()); the core reports the copy as failed. */
	int (*run)(struct tc_copy *copy, volatile uint64_t *iterations);
};

/* Record why a copy failed (printf-style, %m for errno) and return -1. */
int tc_error(struct tc_copy *copy, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tc_run_error(struct tc_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Create a temp file of size bytes (0: empty) in dir, named scalebench-TAG.PGID.XXXXXX (PGID:
 * the run's process group), and unlink it at once.  Returns an O_RDWR, close-on-exec fd, or -1
 * with errno set. */
int tc_tmpfile(const char *dir, const char *tag, uint64_t size);

/* A run directory, from global_prepare: a temp directory whose files keep their names for the
 * whole run (open1 opens a file by name, so it cannot be unlinked at once), created as
 * <run->tmpdir>/scalebench-TAG.XXXXXX, its path written to path.  Copies are SIGKILLed at the
 * end with no cleanup hook, so a janitor process removes the directory and everything in it
 * when the copy host dies, however it dies.  Returns 0, or -1 after tc_run_error(). */
int tc_run_dir(struct tc_run *run, const char *tag, char *path, size_t len);

/* A plug-in's exports: its ABI version and a NULL-terminated list of its testcases. */
#define SCALEBENCH_PLUGIN(...)                                                                     \
	const unsigned scalebench_plugin_abi = SCALEBENCH_TESTCASE_ABI;                            \
	const struct testcase *const scalebench_plugin_testcases[] = {__VA_ARGS__, NULL}

#endif
