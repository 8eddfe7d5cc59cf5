/* cgroup v2 for a run: a job's `cgroup2:` map (LKP's setup/cgroup2 keys) checked, a cgroup
 * made for the run with those controller settings, the copies run in it (core_config
 * .cgroup_dir), a few of its counters read over the measurement window, and the cgroup
 * removed afterwards.
 *
 *	cgroup_spec_check   the map's keys and values, no machine needed (job loading)
 *	cgroup_plan         the v2 hierarchy found, controllers it cannot enable noted,
 *			    percentages of memory resolved, stale cgroups of dead runners swept
 *	cgroup_create       <hierarchy>/scalebench/run.<pid>.<n>, controllers, settings
 *	cgroup_count        counters at the window's start and end (CORE_WINDOW_*)
 *	cgroup_remove       the cgroup removed (the copies are gone by then)
 *	cgroup_meta/stats   what meta.json and stats.json record */
#ifndef SCALEBENCH_CGROUP_H
#define SCALEBENCH_CGROUP_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One key of the job's map. */
struct cgroup_setting {
	char *key;    /* "memory.high" */
	char *asked;  /* as the job wrote it: "90%" */
	char *value;  /* what is written: a percentage of memory resolved to bytes */
	bool applied; /* false when its controller is missing (cgroup_missing) */
};

/* A controller the job's keys need that the v2 hierarchy cannot enable, and why. */
struct cgroup_missing {
	char *controller;
	char *why;
};

#define CGROUP_NR_COUNTERS 8

struct cgroup_run {
	char mount[PATH_MAX]; /* the cgroup v2 hierarchy */
	char path[PATH_MAX];  /* the run's cgroup, once created */
	struct cgroup_setting *set;
	size_t n_set;
	struct cgroup_missing *missing;
	size_t n_missing;
	bool created, removed;
	/* What the percentages of memory were of: "memory" (the job's memory:, in LKP's way)
	 * or "MemTotal"; empty when the map has none. */
	char percent_of[16];
	uint64_t percent_of_bytes;
	bool have[2][CGROUP_NR_COUNTERS]; /* [CORE_WINDOW_START or _END][counter] */
	uint64_t count[2][CGROUP_NR_COUNTERS];
};

/* The job's cgroup2 value (a map, or null for a cgroup with no settings): every key one scalebench
 * can set (LKP's setup/cgroup2 keys and the other cgroup v2 interface files of a controller),
 * every value of the form its file takes.  An empty value is skipped, as LKP skips it.  0, or -1
 * with err naming the key and the value and what was expected. */
int cgroup_spec_check(const json_t *spec, char *err, size_t errlen);

/* The job's memory: key (the testbox's nominal memory, lkp-tests' hosts/ files: 8G) in bytes,
 * as lib/unit.rb's to_byte reads it: digits, then K, M, G, T or P (any case, a B after it
 * allowed), or a number of bytes.  0, or -1 when it is none of those. */
int cgroup_memory_bytes(const json_t *memory, uint64_t *bytes);

/* Plan the run's cgroup on this machine (cg zeroed first): the hierarchy found in
 * /proc/self/mountinfo, each controller the keys need checked against its cgroup.controllers
 * (a controller it lacks, e.g. one bound to a cgroup v1 hierarchy, is listed in cg->missing
 * and its keys are not applied), percentages of memory resolved: of the job's memory (the
 * value of its memory: key, or NULL) as LKP does, pct * memory / 100, else of MemTotal, down
 * to a whole page.  0, or -1 with err (no cgroup v2 hierarchy, a bad value). */
int cgroup_plan(struct cgroup_run *cg, const json_t *spec, const json_t *memory, char *err,
		size_t errlen);

/* Make the run's cgroup (cg->path) with the planned controllers and settings; a controller
 * whose enabling fails is moved to cg->missing.  On error (a setting the kernel refuses, named
 * with its key and value) nothing is left behind.  0, or -1 with err. */
int cgroup_create(struct cgroup_run *cg, char *err, size_t errlen);

/* For a run of an atomic job (its tree): nothing when the job has no cgroup2 key, else
 * cgroup_plan and cgroup_create from its value.  0, or -1 with err. */
int cgroup_begin(struct cgroup_run *cg, const json_t *job_tree, char *err, size_t errlen);

/* The note on missing controller i: which, why, and the keys not applied. */
void cgroup_missing_note(const struct cgroup_run *cg, size_t i, char *buf, size_t len);

/* Counters at phase CORE_WINDOW_START or CORE_WINDOW_END (0 or 1), when the cgroup exists. */
void cgroup_count(struct cgroup_run *cg, int phase);

/* Remove the run's cgroup (waits briefly for exiting tasks to leave it); 0 when it is gone or
 * was never made, -1 with err. */
int cgroup_remove(struct cgroup_run *cg, char *err, size_t errlen);

/* meta.json's "cgroup2": path, settings (asked, written), controllers missing, removed. */
json_t *cgroup_meta(const struct cgroup_run *cg);
/* stats.json: cgroup.* deltas over the measurement window (see README, Job files). */
void cgroup_stats(const struct cgroup_run *cg, json_t *stats);

void cgroup_free(struct cgroup_run *cg);

#endif
