/* A profile: unique symbolized call chains with their sample counts, and the raw file a run
 * keeps them in (perf-profile.samples.json.gz, written by the perf-profile monitor, read by
 * `scalebench profile`). */
#ifndef SCALEBENCH_STORE_PROFILE_H
#define SCALEBENCH_STORE_PROFILE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Unique symbolized chains (leaf first) with their sample counts, and the task they were
 * sampled in when the monitor said (pid -1: not said, profiles stored before it did). */
struct profile_chain {
	char **frames;
	char **dsos; /* NULL, or per frame the binary it is in (NULL: not known) */
	size_t depth;
	uint64_t count;
	int pid, tid;
	char *comm; /* NULL when not said */
};

/* The task of a sample: pid -1 when unknown, comm NULL when unknown. */
struct profile_task {
	int pid, tid;
	const char *comm;
};

struct profile {
	struct profile_chain *chain;
	size_t n, cap;
	json_t *index; /* joined frames -> index in chain */
	uint64_t samples;
};

int profile_init(struct profile *p);
/* Count one more (or count more) sample(s) of the chain frames[0..depth), leaf first.
 * Returns 0, -ENOMEM, or -EOVERFLOW (p unchanged) when the total would pass INT64_MAX. */
int profile_add(struct profile *p, const char *const *frames, size_t depth, uint64_t count);
/* The same, the chain told apart by its task and, where dsos is not NULL, by the binary of
 * each frame (dsos[i] NULL where not known). */
int profile_add_task(struct profile *p, const struct profile_task *task, const char *const *frames,
		     const char *const *dsos, size_t depth, uint64_t count);
void profile_free(struct profile *p);

/* [{"count": n, "chain": [leaf, caller, ...]}, ...], most samples first; with "pid", "tid",
 * "comm" where the chain has a task, "dsos" (a name or null per frame) where it has them. */
json_t *profile_to_json(const struct profile *p);
/* The reverse; -1 with err naming what was wrong ("corrupt: ..." when the counts add up past
 * INT64_MAX). */
int profile_from_json(const json_t *chains, struct profile *p, char *err, size_t errlen);
/* The same, added to p (initialized): several runs in one profile, chains of the same frames
 * merged whatever their task.  On error p keeps what was added before it. */
int profile_add_json(const json_t *chains, struct profile *p, char *err, size_t errlen);
/* The same, only the chains whose "pid" is in pids (an object: decimal pid -> anything);
 * every chain when pids is NULL. */
int profile_add_json_pids(const json_t *chains, const json_t *pids, struct profile *p, char *err,
			  size_t errlen);

/* The raw file is a list of records, one per sampling the monitor did, each
 * {"t_s", "event", "samples", "lost", "chains"} and, from the monitors that attribute samples,
 * "run_pids": the run's own processes (the copy host and every process below it), which the
 * report keeps by default.  A record without it was stored before: it has no attribution. */
struct profile_record {
	const char *event;    /* the event sampled; "?" when the record does not say */
	json_t *run_pids; /* an object: decimal pid -> true; NULL when not said */
	json_int_t lost;      /* samples the kernel could not report; 0 when not said */
	json_int_t samples;   /* samples taken, >= the chains' sum; -1 when not said */
	const json_t *chains; /* for profile_add_json */
};

/* A record of p sampled up to t_s (seconds into the window), or NULL (out of memory). */
json_t *profile_record_new(const struct profile *p, double t_s, const char *event, uint64_t samples,
			   uint64_t lost);
/* The record of a raw file (parsed) that holds chains, the last if several do; -1 when
 * none does (not a list, or the monitor did not finish), -2 when its "lost" or "samples" is
 * not a whole number >= 0 or "run_pids" not a list of them (corrupt).  r points into file,
 * but for r->run_pids, which the caller releases (json_decref). */
int profile_record_find(const json_t *file, struct profile_record *r);
/* "run_pids" of a record from n pids (sorted here); -1 when out of memory. */
int profile_record_set_run_pids(json_t *record, int *pids, size_t n);

#endif
