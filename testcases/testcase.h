/* The testcase descriptor: what a testcase file defines, and the little it may call.
 *
 * A testcase owns its syscall loop and nothing else; the counter core (core.c) owns spawning,
 * placement, the start barrier, sampling and teardown.  One file per testcase ends in
 *
 *	const struct testcase tc_page_fault3 = { .name = ..., .run = ..., };
 *
 * and is listed once in registry.c. */
#ifndef SCALEBENCH_TESTCASE_H
#define SCALEBENCH_TESTCASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tc_mode { TC_MODE_PROCESS, TC_MODE_THREAD };

/* What one copy sees.  In process mode each copy has its own struct (copied at fork); in
 * thread mode each thread has its own; `shared` is what global_prepare left for all. */
struct tc_copy {
	unsigned index; /* 0 .. nr_copies-1 */
	unsigned nr_copies;
	enum tc_mode mode;
	const char *tmpdir;	/* where temp files go; they are unlinked as soon as opened */
	const char *helper_dir; /* where helper binaries (scalebench-exec-helper) live */
	void *priv;		/* the testcase's per-copy state, set by prepare */
	void *shared;		/* the testcase's run-wide state, set by global_prepare */
	char *errbuf;		/* tc_error() writes here; the core reports it */
	size_t errbuf_size;
};

/* Run-wide context for global_prepare/global_cleanup, called once per run in the copy host
 * before any copy exists (so state set up here is inherited by every copy). */
struct tc_run {
	unsigned nr_copies;
	enum tc_mode mode;
	const char *tmpdir;
	const char *helper_dir;
	void *shared;
	char *errbuf;
	size_t errbuf_size;
};

#define TC_PROCESS_ONLY (1u << 0) /* no thread mode */
#define TC_HIDDEN	(1u << 1) /* test-only: not listed, runs only with SCALEBENCH_SELFTEST=1 */

struct testcase {
	const char *name;	 /* "page_fault3" */
	const char *description; /* one line, as will-it-scale's testcase_description */
	const char *suite;	 /* stat prefix: "will-it-scale" */
	const char *op;		 /* what one counted op is: "page fault", "exec" */
	bool lower_is_better;	 /* the headline stat is a cost, not a throughput */
	unsigned flags;
	/* Optional.  Return 0, or -1 after tc_error()/tc_run_error(). */
	int (*global_prepare)(struct tc_run *run);
	int (*prepare)(struct tc_copy *copy);
	/* The hot loop: increments *iterations once per op, forever.  Returns only on error
	 * (-1 after tc_error()); the core reports the copy as failed. */
	int (*run)(struct tc_copy *copy, volatile uint64_t *iterations);
};

/* Record why a copy failed (printf-style) and return -1; errno is appended when set. */
int tc_error(struct tc_copy *copy, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tc_run_error(struct tc_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Create a temp file of size bytes (0: empty) in dir and unlink it at once.  Returns an
 * O_RDWR fd or -1 with errno set. */
int tc_tmpfile(const char *dir, const char *tag, uint64_t size);

/* The registry (registry.c). */
extern const struct testcase *const testcase_table[];
const struct testcase *testcase_find(const char *name);
bool testcase_selftest_enabled(void);

#endif
