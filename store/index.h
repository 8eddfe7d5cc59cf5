/* The results index: a SQLite cache of the results tree for series queries (results, trend,
 * nightly, html), one file in the results root (INDEX_FILE).
 *
 * The tree stays the one source of truth.  Any reader brings the index up to date: under a
 * lock (flock on INDEX_FILE ".lock"), run directories that appeared since the last update, or
 * whose stats.json or meta.json changed (inode, size, mtime, ctime), are read and added, those
 * that disappeared are dropped; an index that is missing, corrupt or of
 * an older schema (PRAGMA user_version != INDEX_SCHEMA) is rebuilt from scratch.  Writers of
 * runs (`scalebench run`, many at once, on other machines) never touch it.  Deleting it loses
 * nothing.  Readers that cannot write the root (a web server's user) read the tree as it is
 * indexed and say so, never fail for it.
 *
 * A job here is a commit directory's parent: testcase/path_params/tbox_group/rootfs/kconfig/
 * compiler, its key that relative path; the --job options of the commands take either the key
 * or a path_params (ambiguous path_params are refused, naming the keys). */
#ifndef SCALEBENCH_INDEX_H
#define SCALEBENCH_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define INDEX_FILE ".scalebench-index.sqlite"
/* Beside it, what its last writer left it as (inode, size, mtime, ctime and a CRC-32 of its
 * bytes): an index file that is not so, changed by anything but scalebench (an edit, a flipped
 * byte, an older scalebench, a copy whose bytes differ), is rebuilt before it is read. */
#define INDEX_SUM_SUFFIX ".sum"
#define INDEX_SUM_FILE	 INDEX_FILE INDEX_SUM_SUFFIX
/* The layout of its tables (PRAGMA user_version): an index of another one is rebuilt. */
#define INDEX_SCHEMA 4

struct results_index;

struct index_update {
	bool rebuilt;		 /* built from scratch */
	const char *why_rebuilt; /* "missing", "corrupt", "schema 1, this scalebench has 2", "asked";
				  * in memory: "not writable", "disk full", "no lock file" */
	size_t runs_added, runs_removed, runs_total, runs_skipped; /* skipped: incomplete/corrupt */
	double seconds;
	bool read_only; /* not updated here (the root not writable, the disk full, no usable lock
			 * file): the index as it was, or one in memory */
};

/* INDEX_UPDATE: every run directory and its files looked at (three lstats a run), a file
 * edited in place by hand seen.  INDEX_QUICK: one stat per commit directory; only those whose
 * inode or mtime changed since their runs were read are read again (a run renamed in or
 * removed, a commit directory replaced), a file edited in place is not seen: for readers of
 * the whole tree every night (nightly, html), whose cost must follow what the night added.
 * INDEX_REBUILD: from scratch. */
enum index_mode { INDEX_UPDATE, INDEX_REBUILD, INDEX_QUICK };

/* Open root's index, bring it up to date (INDEX_REBUILD: from scratch) and return it in *ix.
 * u (may be NULL) says what was done.  -1 with err naming the file and the reason. */
int index_open(const char *root, enum index_mode mode, struct results_index **ix,
	       struct index_update *u, char *err, size_t errlen);
void index_close(struct results_index *ix);

/* Record root's index file, as it is now, as its last writer left it, unchecked: what someone
 * who can write the root can do.  For the fuzz harness, whose edits must reach the readers'
 * queries as a forged sum brings them.  0, or -1 with err. */
int index_sum_forge(const char *root, char *err, size_t errlen);

/* The runs the last update skipped (incomplete, corrupt), each "RUN_DIR/FILE: what is wrong";
 * *n of them, valid while ix is open. */
const char *const *index_skipped(const struct results_index *ix, size_t *n);

struct index_job {
	char *key; /* testcase/path_params/tbox_group/rootfs/kconfig/compiler */
	char *testcase, *path_params, *tbox_group, *rootfs, *kconfig, *compiler;
	size_t commits, runs;
};
/* Every job, by key; only those whose key or path_params is `job` when not NULL. */
ssize_t index_jobs(struct results_index *ix, const char *job, struct index_job **out);
void index_jobs_free(struct index_job *jobs, size_t n);
/* The keys alone of those jobs (no counts: what resolving a --job needs), by key.  Free each
 * and *out. */
ssize_t index_job_keys(struct results_index *ix, const char *job, char ***out);

/* One commit of one job: its runs' time span (meta.json's "started", Unix seconds), how many
 * runs, how many failed (status not ok), the machine (meta.json machine.cpu_model, else the
 * tbox_group) and the commit directory. */
struct index_commit {
	char *job_key, *commit, *machine, *dir;
	int64_t first_started, last_started;
	size_t runs, failed;
};
/* Commits of `job` (key; NULL: every job) in time order (first_started, then label); only
 * label `commit` when not NULL. */
ssize_t index_commits(struct results_index *ix, const char *job, const char *commit,
		      struct index_commit **out);
void index_commits_free(struct index_commit *c, size_t n);

/* One run's value of one stat. */
struct index_value {
	const char *commit; /* points into the result's own storage */
	unsigned run;
	int64_t started;
	bool ok; /* status ok */
	double value;
};
/* Every run of job (a key) that has stat, in time order.  Free *out with index_values_free. */
ssize_t index_stat_values(struct results_index *ix, const char *job, const char *stat,
			  struct index_value **out);
void index_values_free(struct index_value *v, size_t n);

/* The stat names the runs of job (a key) have, sorted. */
ssize_t index_stat_names(struct results_index *ix, const char *job, char ***out);

#endif
