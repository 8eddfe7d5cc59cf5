/* What the parts of job loading share (job.c, job_yaml.c, job_expand.c, job_check.c,
 * job_emit.c); not for use outside runner/job*.c, whose API is job.h. */
#ifndef SCALEBENCH_JOB_INTERNAL_H
#define SCALEBENCH_JOB_INTERNAL_H

#include "job.h"
#include "../core/core.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

/* What a key the job file leaves out means (job_check.c reads them; path_params, as LKP's,
 * names only what the job gives). */
#define DEFAULT_MODE	"process"
#define DEFAULT_NR_TASK "100%"
#define DEFAULT_RUNTIME 300.0
#define DEFAULT_WARMUP	1.0
/* The sampling interval (`interval`): the core's samples of every counter and the default of
 * every monitor's own `interval` option.  Its bounds are the monitors' lower one (a procfs
 * read of every CPU every 50 ms is already most of a CPU on a big machine) and a minute. */
#define DEFAULT_INTERVAL 1.0
#define JOB_MIN_INTERVAL 0.05
#define JOB_MAX_INTERVAL CORE_MAX_INTERVAL_S
/* The shortest measurement window, in sampling intervals: a copy that does not advance in it
 * is a failure (stuck), and within less than one interval a copy sharing its CPU may simply
 * not have been scheduled yet: 32 copies on 2 CPUs failed half their 0.1 s runs at a 1 s
 * interval.  One interval keeps the 1 s minimum of the default interval. */
#define JOB_MIN_RUNTIME_INTERVALS 1

/* Atomic jobs of one job file, all its documents together: each holds its tree in memory
 * until the file is run or written. */
#define JOB_MAX_ATOMIC 10000
/* Values in the copies loading makes, all together: every later document merged with the
 * header, and every atomic job.  A file's own values are few (JOB_MAX_NODES), but a header
 * of 10000 keys over 1000 documents took 60 s and 5 GB to expand. */
#define JOB_MAX_COPIED 1000000

/* One job_load: where messages and notes go, and each parsed value's place in the file. */
struct loader {
	const char *path;
	unsigned nr_online;
	char *err;
	size_t errlen;
	/* "%p" of a parsed node -> [node, line, column].  Holding the node keeps its
	 * address from being reused while the table lives; atomic trees share the
	 * parsed strings, so a value found in an atomic job still has its line. */
	json_t *marks;
	json_t *notes_seen; /* note text -> null, to give each note once */
	struct job_file *job;
	size_t nodes; /* values parsed: aliases of aliases must not eat the machine */
	/* Set by expand_includes when the file includes others: per line of the text
	 * parsed, [file, line] (messages name the file a line came from), and duplicate
	 * keys keep the last value, as LKP's textual includes need. */
	json_t *srcmap;
	bool included;
	bool results_only; /* job_load_results: unknown suites and testcases taken by name */
};

/* A parameter: where it is in a tree (key segments) and how it is shown. */
struct param {
	json_t *segs; /* array of key strings */
	char *shown;  /* "will-it-scale.mode" */
};

struct param_list {
	struct param *v;
	size_t n, cap;
};

/* job.c: the loader's messages. */
/* "FILE:LINE" of a line of the parsed text, in buf. */
const char *where_line(const struct loader *l, size_t line, char *buf, size_t len);
void mark_set(struct loader *l, json_t *node, const yaml_mark_t *m);
/* A value the file wrote plain that LKP's Ruby does not read as text (job_file's
 * plain_values).  0, or -1 out of memory. */
int mark_plain(struct loader *l, json_t *v);
/* to gets from's place in the file (a copy made for an alias). */
void mark_copy(struct loader *l, json_t *to, const json_t *from);
/* An error about a value: "FILE:LINE: message", or "FILE: message" when the
 * value has no line (a default, or a null).  Returns -1. */
int fail(struct loader *l, const json_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A value as a message shows it: 'text', or what it is when it is not text. */
const char *describe(const json_t *v, char *buf, size_t len);
/* A note on the job (once per text); 0, or -1 out of memory. */
int note(struct loader *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* job_yaml.c: the file to its documents. */
int read_whole(struct loader *l, char **buf, size_t *len);
int check_erb(struct loader *l, const char *buf, size_t len);
/* Every document of the file, each an object, appended to docs. */
int parse_documents(struct loader *l, const char *buf, size_t len, json_t *docs);
/* A plain scalar YAML reads as null: nothing, ~, null, Null, NULL. */
bool is_null_word(const char *s, size_t n);

/* job_expand.c: documents merged and expanded into l->job's atomic jobs. */
void params_free(struct param_list *pl);
/* A later document applied to a copy of the header (LKP's revise_hash): a later value
 * replaces the header's, an accumulative key's (need_*) is added to it, and `key+:`/`key-:`
 * keys are applied. */
json_t *merge_revision(struct loader *l, json_t *header, json_t *rev);
/* A copy of doc with its `key+:`/`key-:` keys applied (a header, or a file of one document:
 * an include may give the value they revise). */
json_t *apply_revision_keys(struct loader *l, json_t *doc);
/* The values in v, v included (a list or map counts one, and each value in it). */
size_t count_values(const json_t *v);
/* How many atomic jobs one merged document expands to (SIZE_MAX: more than a size_t holds)
 * and how many values each holds, its lists checked; nothing is built. */
int count_atomic(struct loader *l, json_t *doc, size_t *n, size_t *values);
/* One merged document's atomic jobs appended to l->job; names: atomic names so far;
 * kconfigs: the file gives several kconfigs (its documents together), which the names
 * then carry. */
int expand_document(struct loader *l, json_t *doc, json_t *names, bool kconfigs);
/* A YAML 1.1 boolean word: LKP's YAML reads it as true (1) or false (0, and path_params leaves
 * it out); -1 for any other scalar. */
int yaml_bool(const char *s);

/* job_lkp_programs.c (generated from lkp-tests): its workload programs, each with the options
 * its script declares ("name-", or "name=" for an option path_params shows as name=value), and
 * its monitors. */
struct lkp_program {
	const char *name;
	const char *const *options;
};
extern const struct lkp_program lkp_programs[];
extern const char *const lkp_monitor_names[];

/* job_include.c: LKP's `<<: FILE` includes, expanded in the text before YAML sees it. */
int expand_includes(struct loader *l, char **buf, size_t *len);

/* job_override.c: the command line's values set in the parsed documents (job.h). */
int apply_overrides(struct loader *l, json_t *docs, const struct job_override *ov, size_t n_ov);

/* job_check.c: one atomic job checked. */
/* A top-level key that names a monitor, scalebench's or only LKP's (turbostat). */
bool is_monitor_key(const char *key);
/* obj's key, or NULL when it is absent or null. */
json_t *get_set(json_t *obj, const char *key);
int check_atomic(struct loader *l, json_t *t, struct atomic_job *a);

#endif
