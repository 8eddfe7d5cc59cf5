/* Job files: LKP-compatible YAML, expanded into atomic jobs as lkp-tests' split-job does.
 *
 * A list is a dimension where LKP expands one (a program's option such as will-it-scale's
 * test, mode, nr_task, runtime; a program; kconfig, commit, rootfs): the job expands to the
 * cartesian product of its dimensions, nested maps included
 * (`will-it-scale: {mode: [process, thread], test: [page_fault3, fallocate1]}`); any other
 * list is a value.  `<<: FILE` lines include other job files; several documents make the
 * first one a job and a header for the others.  Keys that name a monitor switch it on (with
 * an optional map of options). */
#ifndef SCALEBENCH_JOB_H
#define SCALEBENCH_JOB_H

#include "../testcases/testcase.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct atomic_job {
	char *name;	   /* "<job>-<path_params>[-<commit>...][-<rootfs>]", split-job's */
	char *path_params; /* LKP's: every program option's value sorted by key name,
			    * joined by '-' (job_path_params) */
	json_t *tree;	   /* the atomic job: the job file with every list replaced by one of
			    * its values; scalars are strings (as written), bare keys null */
	/* What the runner needs, extracted and validated: */
	const char *test;  /* will-it-scale.test: the testcase name */
	char *test_owned;  /* test, when no testcase of this binary has that name (a plug-in's
			    * not loaded: job_load_results); NULL otherwise */
	enum tc_mode mode; /* will-it-scale.mode (default process) */
	unsigned nr_task;  /* nr_task: a number or a percentage of online CPUs (>= 1) */
	double runtime_s;  /* runtime: 300, 300s, 5m (default 300 s) */
	double warmup_s;   /* warmup (scalebench's own key; default 1 s: DEFAULT_WARMUP) */
	double interval_s; /* interval: between samples (scalebench's own key; default 1 s) */
	json_t *monitors;  /* object: monitor name -> options object or null */
	/* will-it-scale.no_affinity, .smt (0 or 1, default 0): the copies not pinned to CPUs;
	 * SMT siblings used too (core_config's affinity, smt). */
	bool no_affinity, smt;
	/* Neither mode nor nr_task given: LKP's will-it-scale run sweeps, in this one job, both
	 * modes over the task counts its setup_threads_to_iterate picks (runner/lkp_sweep.h);
	 * mode and nr_task then hold the defaults path_params shows. */
	bool sweep;
};

struct job_file {
	char *path;
	char *name;   /* file name without directory and .yaml/.yml */
	json_t *tree; /* the whole job file as parsed */
	struct atomic_job *atomic;
	size_t n_atomic;
	/* One-line notes on keys kept but otherwise ignored (LKP keys scalebench does not use),
	 * and on atomic jobs job_drop_coinciding dropped. */
	char **notes;
	size_t n_notes;
	unsigned nr_online; /* the CPUs a percentage of nr_task was resolved against */
	/* What the file wrote plain that LKP's Ruby does not read as text (0x28, yes, 010,
	 * 12:30): the values ("%p" of the string, which atomic trees share -> it) and the keys
	 * (text -> null).  job_write_atomic writes them plain again, so that LKP reads the job
	 * it wrote as it reads the file, and quotes other such text ('0x28' stays text). */
	json_t *plain_values, *plain_keys;
};

/* Parse and expand a job file.  nr_online: CPUs that "100%" means.  Returns 0, or -1 with a
 * message in err naming the file, the line:column (syntax errors) or the key, the value
 * and what was expected. */
int job_load(const char *path, unsigned nr_online, struct job_file *job, char *err, size_t errlen);
void job_free(struct job_file *job);

/* Atomic jobs that differ only in nr_task and whose task counts resolve to the same number on
 * this machine (`nr_task: [1, 50%]` on 2 CPUs) would measure the same thing twice: the first
 * of them is kept, nr_task as written (its name, path_params and job.yaml as LKP's), the others
 * are dropped, and a note names the values, the count and the kept one.  For the commands
 * that run the job on this machine (run, bisect's local runs); split, compare and plot keep
 * LKP's expansion, which does not depend on the machine, as does submit, whose nodes need not
 * have the submitting host's CPUs.  Returns the atomic jobs dropped, or -1 out of memory (the
 * job is then as it was, but for notes). */
int job_drop_coinciding(struct job_file *job);

/* LKP's Job#path_params of an atomic job's tree (see job_expand.c): every option of the
 * programs it uses, sorted by key, values cut to 31 characters, "defaults" when none.  A
 * caller that changes a tree after job_load (an override) names it again with this.  NULL:
 * out of memory. */
char *job_path_params(json_t *tree);

/* A value given on the command line (scalebench run --set KEY=VALUE, --runtime, --nr-task),
 * applied to the parsed file before expansion, as if the file said it: in every document
 * that has KEY (a bare key also in the will-it-scale block; BLOCK.KEY inside a map), else
 * added to the first.  Later overrides of one key win. */
struct job_override {
	const char *key;
	const char *value;
};
/* A command line's overrides in the order given (a later one of a key wins): keys malloc'd,
 * values pointing into argv (or a saved state that outlives them). */
struct override_list {
	struct job_override *v;
	size_t n;
};

/* job_load for a command that only reads the job's results (compare, plot): a suite or a
 * testcase this binary does not know, a plug-in's that is not loaded, is taken by its name,
 * as its runs' meta.json says what they are; mode is not checked against the testcase.  What
 * picks the runs, the atomic jobs and their path_params, is as job_load expands them. */
int job_load_results(const char *path, unsigned nr_online, struct job_file *job, char *err,
		     size_t errlen);

/* job_load with overrides (n_ov may be 0). */
int job_load_overrides(const char *path, unsigned nr_online, const struct job_override *ov,
		       size_t n_ov, struct job_file *job, char *err, size_t errlen);

/* Write an atomic job of job as YAML (the run's job.yaml, split's output): each value reads
 * back, in job_load and in LKP's Ruby (Psych, YAML 1.1), as the job file's own value read
 * there: text stays text ('0x28', '010', 'yes'), what the file wrote plain stays plain. */
int job_write_atomic(const struct job_file *job, const struct atomic_job *a, FILE *out);
/* The same for a tree made in code: its text all stays text. */
int job_write_yaml(const json_t *tree, FILE *out);

/* Whether LKP's Ruby (Psych's YAML 1.1 reading) reads s, written as a plain scalar, as that
 * text: false for 0x28, 010, 1_000, yes, off, null, ~, 12:30, 2026-11-01, .inf, :sym. */
bool job_plain_is_text(const char *s, size_t n);

#endif
