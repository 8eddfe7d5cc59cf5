/* Reading one run of the results store: its stats.json as name -> number pairs, its
 * meta.json and job.yaml as trees. */
#ifndef SCALEBENCH_RUN_READ_H
#define SCALEBENCH_RUN_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define STORE_STATS_FILE "stats.json"
#define STORE_META_FILE	 "meta.json"
#define STORE_JOB_FILE	 "job.yaml"

struct store_stat {
	const char *name; /* NUL-terminated, len bytes */
	size_t len;
	double value;
	bool integer; /* written as a JSON integer (no fraction, no exponent), as jansson types it */
};

/* A run's stats.  A name may be listed twice when the file repeats it: the later value is
 * the one that counts (as in jansson). */
struct store_stats {
	struct store_stat *v;
	size_t n;
	char *text_;   /* the file, which the fast path's names point into */
	json_t *tree_; /* jansson's tree, which the other names point into */
};

/* <run_dir>/stats.json: a flat object of numbers, exactly what jansson accepts as one.
 * Returns 0, or -1 with errno (ENOENT: there is none; EINVAL: it is not such an object) and
 * in why what is wrong with it ("line 3: ...", "stat 'x' is not a number"), without the
 * path, which the caller names. */
int store_read_stats(const char *run_dir, struct store_stats *s, char *why, size_t whylen);

/* The same from text (text[len] must be '\0'; the names point into it, which the fast path
 * changes: it writes the '\0' ending each name). */
int store_parse_stats(char *text, size_t len, struct store_stats *s, char *why, size_t whylen);
void store_stats_free(struct store_stats *s);

/* The fast path alone (for its test): the number of stats, or -1 when text is anything but
 * plain ASCII keys without escapes and JSON numbers that need no more than strtod, in which
 * case jansson decides.  Never accepts what jansson rejects; gives the values jansson would. */
long store_stats_parse_fast(char *text, size_t len, struct store_stat **out);

/* <run_dir>/meta.json, an object; NULL (why says what) when it is missing or not one. */
json_t *store_read_meta(const char *run_dir, char *why, size_t whylen);

/* Whether run_dir is a run as this scalebench stores one, by the readers every command uses:
 * its stats.json as store_read_stats takes it and its meta.json an object (both there: a
 * local run is stored only with both, and a run from elsewhere, a --target's, is held to the
 * same).  Its meta.json in *meta (may be NULL) for the caller's own checks.  0, or -1 with
 * why naming the file and what is wrong. */
int store_run_check(const char *run_dir, json_t **meta, char *why, size_t whylen);

/* <run_dir>/job.yaml's first document, the atomic job as the run stored it: mappings as
 * objects, sequences as arrays, every scalar a string as written ("100%", "300s"), a bare
 * key's value null; an alias is null too (a stored atomic job has none).  Runs LKP made have
 * no meta.json and this is all they say of their parameters.  NULL (why says what) when it is
 * missing, not YAML, nested deeper than 32 levels or not a mapping. */
json_t *store_read_job(const char *run_dir, char *why, size_t whylen);

/* Where a run keeps a monitor's raw samples: <run_dir>/<monitor>.samples.json.gz or
 * .samples.json, or for a run stored before they had those names <monitor>.json.gz or .json,
 * whichever exists first.  0 with the path, or -1 when there is none. */
int store_raw_path(const char *run_dir, const char *monitor, char *path, size_t len);

/* A file of a run, whole: regular files only, at most STORE_FILE_MAX bytes, '\0'-terminated
 * (*len excludes it).  NULL with errno (EINVAL: not a regular file, EFBIG: too big). */
#define STORE_FILE_MAX (64u << 20)
char *store_read_file(const char *path, size_t *len);

#endif
