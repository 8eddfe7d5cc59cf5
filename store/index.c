/* The results index (index.h): SQLite, one file in the results root.
 *
 * Schema (PRAGMA user_version = INDEX_SCHEMA):
 *   jobs(id, key, testcase, path_params, tbox_group, rootfs, kconfig, compiler)
 *   runs(id, job_id, commit_label, run, inode, mtime_ns, files, started, status, ok, machine)
 *   stats(id, name)
 *   job_stats(job_id, stat_id) -> in_rows           WITHOUT ROWID: the stat names of a job,
 *                                                   and whether its values are in vals too
 *   run_vals(run_id, vals)                          each run's values, one blob (RUN_VAL)
 *   vals(job_id, stat_id, run_id) -> value          WITHOUT ROWID: the stats in_rows (the
 *                                                   headline, failures): one stat of one job
 *                                                   over every run one range of the key
 *   commit_dirs(job_id, commit_label) -> inode, mtime_ns   WITHOUT ROWID: each commit
 *                                                   directory as its runs were last read
 *                                                   (mtime_ns -1: to be read again)
 * A run is known by its place in the tree (job, commit label, run number), by its directory's
 * inode and mtime (a commit directory that was deleted and run again reuses the numbers, with
 * new directories) and by `files`, a digest of its stats.json's and meta.json's inode, size,
 * mtime and ctime: a run directory never changes once renamed in, but a person may edit its
 * files by hand, in place, which leaves the directory's mtime as it was.
 *
 * The journal is the rollback journal, not WAL: WAL's readers and writer share memory through a
 * mapped -shm file, which NFS, where a results root shared by several machines often lives, does
 * not give.  synchronous=NORMAL: a power cut at the wrong moment may corrupt the index, which is
 * then rebuilt from the tree; nothing is lost. */
#include "index.h"
#include "index_sum.h"
#include "families.h"
#include "layout.h"
#include "run_read.h"

#include "../lib/errors.h"
#include "../lib/file.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct results_index {
	sqlite3 *db;
	char *root;
	char why[96];
	char **skipped; /* "RUN_DIR: what is wrong", runs_skipped of them */
	size_t nskipped;
	bool tree_failed; /* the last update could not walk the tree (not the index's fault) */
	struct index_sum sum; /* the file as its sum file says it is, once checked */
	bool sum_recorded;    /* ... and the sum file says so already */
	struct index_writes writes; /* the chunks of the file written since (index_sum.h) */
	/* The last job's commits (index_commits of a job, every commit): the series commands
	 * ask for them several times a job (its labels, its order, each stat's series), and the
	 * index does not change while it is open. */
	char *commits_job;
	struct index_commit *commits;
	size_t ncommits;
	struct job_vals *vals; /* the last job's values from run_vals, for the stats not in rows */
	int64_t vals_asked;    /* the job whose blobs were last read (for one stat or all) */
};

/* Every value of one job's runs, read from their blobs at once (a series of a stat not kept
 * in rows is one value from each run's blob: reading the blobs once for all of a job's stats
 * costs what reading them for one would). */
struct job_vals {
	int64_t job;
	int64_t only; /* the one stat read, or -1: every stat of the job */
	size_t nruns, nstats;
	struct job_run {
		size_t label; /* offset in labels */
		unsigned run;
		int64_t started;
		bool ok;
		int64_t id;
	} *run;	      /* in series order: started, commit label, run number */
	char *labels;
	int64_t *stat; /* the job's stat ids, sorted */
	uint64_t *bits; /* [run * nstats + stat]: the value's bits, or VAL_ABSENT */
};

/* No value (a signalling NaN's bits, which no stats.json can hold). */
#define VAL_ABSENT 0x7ff4000000a5e47dull

static void job_vals_free(struct job_vals *j)
{
	if (!j)
		return;
	free(j->run);
	free(j->labels);
	free(j->stat);
	free(j->bits);
	free(j);
}

static const char schema_sql[] =
    "CREATE TABLE jobs(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, testcase TEXT,"
    " path_params TEXT, tbox_group TEXT, rootfs TEXT, kconfig TEXT, compiler TEXT);"
    "CREATE INDEX jobs_path_params ON jobs(path_params);"
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, job_id INTEGER NOT NULL,"
    " commit_label TEXT NOT NULL, run INTEGER NOT NULL, inode INTEGER NOT NULL,"
    " mtime_ns INTEGER NOT NULL, files INTEGER NOT NULL, started INTEGER NOT NULL,"
    " status TEXT, ok INTEGER NOT NULL, machine TEXT, UNIQUE(job_id, commit_label, run));"
    "CREATE TABLE stats(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
    "CREATE TABLE job_stats(job_id INTEGER NOT NULL, stat_id INTEGER NOT NULL,"
    " in_rows INTEGER NOT NULL, PRIMARY KEY(job_id, stat_id)) WITHOUT ROWID;"
    "CREATE TABLE vals(job_id INTEGER NOT NULL, stat_id INTEGER NOT NULL,"
    " run_id INTEGER NOT NULL, value REAL, PRIMARY KEY(job_id, stat_id, run_id)) WITHOUT ROWID;"
    "CREATE TABLE run_vals(run_id INTEGER PRIMARY KEY, vals BLOB NOT NULL);"
    "CREATE TABLE commit_dirs(job_id INTEGER NOT NULL, commit_label TEXT NOT NULL,"
    " inode INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, PRIMARY KEY(job_id, commit_label))"
    " WITHOUT ROWID;";

/* The index's mark in its header (PRAGMA application_id, "SBIX"): a database at its path that
 * lacks it and holds tables that are not the index's is someone else's, never rebuilt into. */
#define INDEX_APPLICATION_ID 0x53424958

/* The tables above that hold the runs, counted by check_index (commit_dirs, missing or other,
 * is schema_is_ours's to find). */
#define NR_TABLES 6

/* ---- small helpers ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool is_corrupt(int rc)
{
	rc &= 0xff;
	return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

/* A write that failed for want of space (SQLITE_FULL; an I/O error of ENOSPC or EDQUOT). */
static bool is_full(sqlite3 *db, int rc)
{
	int e = sqlite3_system_errno(db);

	return (rc & 0xff) == SQLITE_FULL || e == ENOSPC || e == EDQUOT;
}

static int db_exec(sqlite3 *db, const char *sql, const char *path, char *err, size_t errlen)
{
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
	return rc;
}

static int64_t pragma_int(sqlite3 *db, const char *sql, int *rc)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	*rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (*rc != SQLITE_OK)
		return -1;
	*rc = sqlite3_step(st);
	if (*rc == SQLITE_ROW) {
		v = sqlite3_column_int64(st, 0);
		*rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return v;
}

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* ---- a string -> id map (stat names, job keys) ---- */

struct name_map {
	char **names;
	int64_t *ids;
	size_t cap, n;
};

static uint64_t hash_name(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int64_t map_get(const struct name_map *m, const char *s, size_t len)
{
	if (!m->cap)
		return 0;
	for (size_t i = hash_name(s, len) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->names[i])
			return 0;
		if (!strncmp(m->names[i], s, len) && !m->names[i][len])
			return m->ids[i];
	}
}

static int map_put(struct name_map *m, const char *s, size_t len, int64_t id)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct name_map b = {.cap = m->cap ? m->cap * 2 : 256};

		b.names = calloc(b.cap, sizeof(*b.names));
		b.ids = calloc(b.cap, sizeof(*b.ids));
		if (!b.names || !b.ids) {
			free(b.names);
			free(b.ids);
			return -1;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->names[i])
				continue;
			size_t j = hash_name(m->names[i], strlen(m->names[i])) & (b.cap - 1);

			while (b.names[j])
				j = (j + 1) & (b.cap - 1);
			b.names[j] = m->names[i];
			b.ids[j] = m->ids[i];
		}
		b.n = m->n;
		free(m->names);
		free(m->ids);
		*m = b;
	}
	size_t i = hash_name(s, len) & (m->cap - 1);

	while (m->names[i])
		i = (i + 1) & (m->cap - 1);
	m->names[i] = strndup(s, len);
	if (!m->names[i])
		return -1;
	m->ids[i] = id;
	m->n++;
	return 0;
}

static void map_free(struct name_map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->names[i]);
	free(m->names);
	free(m->ids);
	memset(m, 0, sizeof(*m));
}

/* ---- runs, as the tree has them and as the index has them ---- */

struct run_ref {
	char *key;   /* the job's key */
	char *label; /* the commit */
	unsigned run;
	int64_t inode, mtime_ns;
	int64_t files;		/* files_digest of its stats.json and meta.json */
	int64_t id;		/* indexed: its row */
	size_t dir;		/* in the tree: its commit directory in the walk's list, from 1 */
	struct store_axes axes; /* in the tree: the run directory's axes */
};

struct run_list {
	struct run_ref *v;
	size_t n, cap;
};

/* A zeroed new element at the end of the array *v of *n (room for *cap) elements of size
 * bytes, the array doubled when full; NULL when that fails (the array kept). */
static void *slot_add(void **v, size_t *n, size_t *cap, size_t size)
{
	char *p;

	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		void *w = realloc(*v, c * size);

		if (!w)
			return NULL;
		*v = w;
		*cap = c;
	}
	p = (char *)*v + (*n)++ * size;
	memset(p, 0, size);
	return p;
}

static struct run_ref *list_add(struct run_list *l)
{
	return slot_add((void **)&l->v, &l->n, &l->cap, sizeof(*l->v));
}

static void list_free(struct run_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].label);
		store_axes_free(&l->v[i].axes);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int by_place(const void *a, const void *b)
{
	const struct run_ref *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (!c)
		c = strcmp(x->label, y->label);
	if (!c)
		c = (x->run > y->run) - (x->run < y->run);
	return c;
}

/* The job's key from a commit directory's axes: the path from the root to the commit. */
static char *job_key(const struct store_axes *a)
{
	char *k;

	if (asprintf(&k, "%s/%s/%s/%s/%s/%s", a->testcase, a->path_params, a->tbox_group, a->rootfs,
		     a->kconfig, a->compiler) < 0)
		return NULL;
	return k;
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 1099511628211ull;
	return h;
}

/* What a hand edit of a run's files changes, whether it rewrites a file in place (size, mtime,
 * ctime) or replaces it (inode): one lstat each, not a read. */
static int64_t files_digest(const char *run_dir)
{
	static const char *const files[] = {STORE_STATS_FILE, STORE_META_FILE};
	uint64_t h = 1469598103934665603ull;
	char p[PATH_MAX];

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		struct stat st;

		if (snprintf(p, sizeof(p), "%s/%s", run_dir, files[i]) >= (int)sizeof(p) ||
		    lstat(p, &st)) {
			h = mix(h, UINT64_MAX);
			continue;
		}
		h = mix(h, st.st_ino);
		h = mix(h, (uint64_t)st.st_size);
		h = mix(h, (uint64_t)ts_ns(&st.st_mtim));
		h = mix(h, (uint64_t)ts_ns(&st.st_ctim));
	}
	return (int64_t)h;
}

/* A commit directory of the tree, or one the index recorded (commit_dirs). */
struct dir_ref {
	char *path;  /* in the tree: the directory */
	char *key;   /* the job's key */
	char *label; /* the commit */
	int64_t inode, mtime_ns;
	struct store_axes axes; /* in the tree: the commit directory's axes */
	bool unsure; /* not to be trusted next time: a run of it skipped, or its mtime too recent */
};

struct dir_list {
	struct dir_ref *v;
	size_t n, cap;
};

static struct dir_ref *dirs_add(struct dir_list *l)
{
	return slot_add((void **)&l->v, &l->n, &l->cap, sizeof(*l->v));
}

static void dirs_free(struct dir_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].key);
		free(l->v[i].label);
		store_axes_free(&l->v[i].axes);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int by_dir(const void *a, const void *b)
{
	const struct dir_ref *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : strcmp(x->label, y->label);
}

/* Sorted by job and commit: mostly they come so already (SQL's ORDER BY, the walk's sorted
 * paths), and an O(n) look spares an O(n log n) sort of long common prefixes. */
static void sort_dirs(struct dir_list *l)
{
	for (size_t i = 1; i < l->n; i++)
		if (by_dir(&l->v[i - 1], &l->v[i]) > 0) {
			qsort(l->v, l->n, sizeof(*l->v), by_dir);
			return;
		}
}

/* Every commit directory of the tree, through the layout's own walk, each stat()ed before its
 * runs are listed: a run renamed in after the stat makes the next update look again. */
static int walk_dirs(const char *root, struct dir_list *l, char *err, size_t errlen)
{
	char **dirs = NULL, why[256];
	ssize_t nd = store_find(root, NULL, NULL, &dirs);
	int ret = -1;

	if (nd < 0) {
		snprintf(err, errlen, "%s: %s", root, strerror(errno));
		return -1;
	}
	for (ssize_t i = 0; i < nd; i++) {
		struct dir_ref *d;
		struct stat st;

		if (stat(dirs[i], &st) || !S_ISDIR(st.st_mode))
			continue; /* gone meanwhile: as store_find does, passed over */
		d = dirs_add(l);
		if (!d)
			goto out;
		if (store_parse(dirs[i], STORE_COMMIT_DIR, &d->axes, why, sizeof(why))) {
			l->n--;
			continue;
		}
		d->key = job_key(&d->axes);
		d->label = strdup(d->axes.commit);
		d->path = dirs[i];
		dirs[i] = NULL;
		if (!d->key || !d->label)
			goto out;
		d->inode = (int64_t)st.st_ino;
		d->mtime_ns = ts_ns(&st.st_mtim);
	}
	ret = 0;
out:
	if (ret)
		snprintf(err, errlen, "%s: %s", root, strerror(ENOMEM));
	for (ssize_t i = 0; i < nd; i++)
		free(dirs[i]);
	free(dirs);
	return ret;
}

/* The run directories of commit directory d (the dir'th of its list, counted from 1), added
 * to l.  0, or -1 out of memory. */
static int list_dir_runs(const struct dir_ref *d, size_t dir, struct run_list *l)
{
	char **runs = NULL, why[256];
	ssize_t nr = store_list_runs(d->path, &runs);
	int ret = -1;

	if (nr < 0) /* gone meanwhile, or unreadable: as store_find does, passed over */
		return 0;
	for (ssize_t j = 0; j < nr; j++) {
		struct run_ref *r;
		struct stat st;

		if (stat(runs[j], &st) || !S_ISDIR(st.st_mode))
			continue;
		r = list_add(l);
		if (!r)
			goto out;
		if (store_parse(runs[j], STORE_RUN_DIR, &r->axes, why, sizeof(why))) {
			l->n--;
			continue;
		}
		r->key = job_key(&r->axes);
		r->label = strdup(r->axes.commit);
		if (!r->key || !r->label)
			goto out;
		r->run = r->axes.run;
		r->dir = dir;
		r->inode = (int64_t)st.st_ino;
		r->mtime_ns = ts_ns(&st.st_mtim);
		r->files = files_digest(runs[j]);
	}
	ret = 0;
out:
	for (ssize_t j = 0; j < nr; j++)
		free(runs[j]);
	free(runs);
	return ret;
}

/* Every run directory of the tree (and, in *dirs, every commit directory). */
static int walk_tree(const char *root, struct dir_list *dirs, struct run_list *l, char *err,
		     size_t errlen)
{
	if (walk_dirs(root, dirs, err, errlen))
		return -1;
	for (size_t i = 0; i < dirs->n; i++)
		if (list_dir_runs(&dirs->v[i], i + 1, l)) {
			snprintf(err, errlen, "%s: %s", root, strerror(ENOMEM));
			return -1;
		}
	return 0;
}

/* ---- the update: one transaction ---- */

struct job_state {
	int64_t id;
	unsigned char *has; /* by stat id: the job has the stat in job_stats (HAS_STAT), its values
			     * in rows too (HAS_ROWS) */
	size_t hascap;
};

#define HAS_STAT 1
#define HAS_ROWS 2

struct updater {
	struct results_index *ix;
	sqlite3 *db;
	const char *path;
	struct name_map stats, jobs;
	int64_t next_stat_id;
	struct job_state *jv;
	size_t njobs;
	sqlite3_stmt *ins_run, *ins_val, *ins_blob, *ins_stat, *ins_job, *ins_job_stat, *del_vals;
	sqlite3_stmt *del_blob, *del_run, *put_dir, *del_dir, *dir_runs, *set_rows, *job_blobs;
	unsigned char *blob; /* a run's values, as run_vals holds them */
	size_t blobcap;
	int64_t *dropped; /* the jobs a run was dropped from, ndropped of them */
	size_t ndropped;
	char *err;
	size_t errlen;
};

static int up_fail(struct updater *u, int rc)
{
	snprintf(u->err, u->errlen, "%s: %s", u->path, sqlite3_errmsg(u->db));
	return rc ? rc : SQLITE_ERROR;
}

static struct job_state *job_state_of(struct updater *u, int64_t id)
{
	for (size_t i = 0; i < u->njobs; i++)
		if (u->jv[i].id == id)
			return &u->jv[i];
	struct job_state *v = realloc(u->jv, (u->njobs + 1) * sizeof(*v));

	if (!v)
		return NULL;
	u->jv = v;
	memset(&v[u->njobs], 0, sizeof(*v));
	v[u->njobs].id = id;
	return &v[u->njobs++];
}

/* What the job has of stat (0, HAS_STAT, HAS_STAT | HAS_ROWS), with the flags in set added;
 * -1 out of memory. */
static int job_has(struct job_state *j, int64_t stat, int set)
{
	if (stat < 0)
		return -1;
	if ((size_t)stat >= j->hascap) {
		size_t cap = j->hascap ? j->hascap : 1024;
		unsigned char *h;

		while (cap <= (size_t)stat)
			cap *= 2;
		h = realloc(j->has, cap);
		if (!h)
			return -1;
		memset(h + j->hascap, 0, cap - j->hascap);
		j->has = h;
		j->hascap = cap;
	}
	int had = j->has[stat];

	j->has[stat] |= (unsigned char)set;
	return had;
}

static int prepare(struct updater *u, sqlite3_stmt **st, const char *sql)
{
	int rc = sqlite3_prepare_v3(u->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);

	return rc == SQLITE_OK ? 0 : up_fail(u, rc);
}

static int updater_init(struct updater *u)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prepare(u, &u->ins_run,
			  "INSERT INTO runs(job_id, commit_label, run, inode, mtime_ns, files,"
			  " started, status, ok, machine) VALUES(?,?,?,?,?,?,?,?,?,?)")) ||
	    (rc = prepare(u, &u->ins_val, "INSERT OR REPLACE INTO vals VALUES(?,?,?,?)")) ||
	    (rc = prepare(u, &u->ins_blob, "INSERT INTO run_vals VALUES(?,?)")) ||
	    (rc = prepare(u, &u->del_blob, "DELETE FROM run_vals WHERE run_id = ?")) ||
	    (rc = prepare(u, &u->set_rows,
			  "UPDATE job_stats SET in_rows = 1 WHERE job_id = ? AND stat_id = ?")) ||
	    (rc = prepare(u, &u->job_blobs,
			  "SELECT r.id, v.vals FROM runs r JOIN run_vals v ON v.run_id = r.id"
			  " WHERE r.job_id = ?")) ||
	    (rc = prepare(u, &u->ins_stat, "INSERT INTO stats(id, name) VALUES(?,?)")) ||
	    (rc =
		 prepare(u, &u->ins_job,
			 "INSERT INTO jobs(key, testcase, path_params, tbox_group, rootfs, kconfig,"
			 " compiler) VALUES(?,?,?,?,?,?,?)")) ||
	    (rc = prepare(u, &u->ins_job_stat, "INSERT OR IGNORE INTO job_stats VALUES(?,?,?)")) ||
	    (rc = prepare(u, &u->del_vals,
			  "DELETE FROM vals WHERE job_id = ?1 AND stat_id IN (SELECT stat_id FROM"
			  " job_stats WHERE job_id = ?1) AND run_id = ?2")) ||
	    (rc = prepare(u, &u->del_run, "DELETE FROM runs WHERE id = ?")) ||
	    (rc = prepare(u, &u->put_dir, "INSERT OR REPLACE INTO commit_dirs VALUES(?,?,?,?)")) ||
	    (rc = prepare(u, &u->del_dir,
			  "DELETE FROM commit_dirs WHERE job_id = ? AND commit_label = ?")) ||
	    (rc = prepare(u, &u->dir_runs,
			  "SELECT id, run, inode, mtime_ns, files FROM runs WHERE job_id = ? AND"
			  " commit_label = ?")))
		return rc;

	/* What the index holds already: stat names, jobs, each job's stats. */
	if ((rc = sqlite3_prepare_v2(u->db, "SELECT id, name FROM stats", -1, &st, NULL)))
		return up_fail(u, rc);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);

		if (!name) { /* NOT NULL, but a file can say anything: rebuilt */
			rc = SQLITE_CORRUPT;
			break;
		}
		if (map_put(&u->stats, name, strlen(name), id)) {
			rc = SQLITE_NOMEM;
			break;
		}
		if (id >= u->next_stat_id)
			u->next_stat_id = id + 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return up_fail(u, rc);
	if ((rc = sqlite3_prepare_v2(u->db, "SELECT id, key FROM jobs", -1, &st, NULL)))
		return up_fail(u, rc);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 1);

		if (!key) {
			rc = SQLITE_CORRUPT;
			break;
		}
		if (map_put(&u->jobs, key, strlen(key), sqlite3_column_int64(st, 0))) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return up_fail(u, rc);
	if ((rc = sqlite3_prepare_v2(u->db, "SELECT job_id, stat_id, in_rows FROM job_stats", -1,
				     &st, NULL)))
		return up_fail(u, rc);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct job_state *j = job_state_of(u, sqlite3_column_int64(st, 0));
		int flags = HAS_STAT | (sqlite3_column_int64(st, 2) ? HAS_ROWS : 0);

		if (!j || job_has(j, sqlite3_column_int64(st, 1), flags) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return up_fail(u, rc);
	if (u->next_stat_id < 1)
		u->next_stat_id = 1;
	return 0;
}

static void updater_free(struct updater *u)
{
	sqlite3_finalize(u->ins_run);
	sqlite3_finalize(u->ins_val);
	sqlite3_finalize(u->ins_blob);
	sqlite3_finalize(u->del_blob);
	sqlite3_finalize(u->set_rows);
	sqlite3_finalize(u->job_blobs);
	sqlite3_finalize(u->ins_stat);
	sqlite3_finalize(u->ins_job);
	sqlite3_finalize(u->ins_job_stat);
	sqlite3_finalize(u->del_vals);
	sqlite3_finalize(u->del_run);
	sqlite3_finalize(u->put_dir);
	sqlite3_finalize(u->del_dir);
	sqlite3_finalize(u->dir_runs);
	map_free(&u->stats);
	map_free(&u->jobs);
	for (size_t i = 0; i < u->njobs; i++)
		free(u->jv[i].has);
	free(u->jv);
	free(u->blob);
	free(u->dropped);
}

static int step_done(struct updater *u, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : up_fail(u, rc);
}

static int64_t job_id_of(struct updater *u, const struct run_ref *r, int *rc)
{
	int64_t id = map_get(&u->jobs, r->key, strlen(r->key));
	const struct store_axes *a = &r->axes;

	*rc = 0;
	if (id)
		return id;
	sqlite3_bind_text(u->ins_job, 1, r->key, -1, SQLITE_STATIC);
	sqlite3_bind_text(u->ins_job, 2, a->testcase, -1, SQLITE_STATIC);
	sqlite3_bind_text(u->ins_job, 3, a->path_params, -1, SQLITE_STATIC);
	sqlite3_bind_text(u->ins_job, 4, a->tbox_group, -1, SQLITE_STATIC);
	sqlite3_bind_text(u->ins_job, 5, a->rootfs, -1, SQLITE_STATIC);
	sqlite3_bind_text(u->ins_job, 6, a->kconfig, -1, SQLITE_STATIC);
	sqlite3_bind_text(u->ins_job, 7, a->compiler, -1, SQLITE_STATIC);
	if ((*rc = step_done(u, u->ins_job)))
		return 0;
	id = sqlite3_last_insert_rowid(u->db);
	if (map_put(&u->jobs, r->key, strlen(r->key), id)) {
		*rc = SQLITE_NOMEM;
		snprintf(u->err, u->errlen, "%s: %s", u->path, strerror(ENOMEM));
		return 0;
	}
	return id;
}

static int64_t stat_id_of(struct updater *u, const char *name, size_t len, int *rc)
{
	int64_t id = map_get(&u->stats, name, len);

	*rc = 0;
	if (id)
		return id;
	id = u->next_stat_id++;
	sqlite3_bind_int64(u->ins_stat, 1, id);
	sqlite3_bind_text(u->ins_stat, 2, name, (int)len, SQLITE_STATIC);
	if ((*rc = step_done(u, u->ins_stat)))
		return 0;
	if (map_put(&u->stats, name, len, id)) {
		*rc = SQLITE_NOMEM;
		snprintf(u->err, u->errlen, "%s: %s", u->path, strerror(ENOMEM));
		return 0;
	}
	return id;
}

/* ---- a run's values in one row ----
 *
 * run_vals holds each run's values as one blob, RUN_VAL bytes a stat in the order stats.json
 * lists them: the stat's id (4 bytes) and the value's IEEE 754 bits (8), little-endian.  A
 * night's runs then add one row each at the end of the table, where a row per value went to
 * its stat's range of vals, one page of the file for each of a run's 2,000 stats.  A name
 * listed twice: the later value counts (as in jansson), for whoever reads the blob in order.
 * The stats a series is asked for every night (the headline, failures) are kept in vals
 * rows too (job_stats.in_rows): one row a run, and their series one range of its key. */
#define RUN_VAL 12

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
	uint64_t v8;
	uint32_t v4;

	/* (the only sizes: a stat id, a value; memcpy and a swap where the host is big-endian
	 * are what the decoder's inner loop can afford, a byte at a time is not) */
	if (bytes == 4) {
		memcpy(&v4, p, 4);
		return le32toh(v4);
	}
	memcpy(&v8, p, 8);
	return le64toh(v8);
}

/* Whether a stat's values (name, NUL-terminated) are kept in vals rows as well: the headline
 * the run declares, the headlines of a run that declares none (results.c's
 * group_headline_stat), failures. */
static bool row_stat(const char *name, const char *headline)
{
	return !strcmp(name, "will-it-scale.per_process_ops") ||
	       !strcmp(name, "will-it-scale.per_thread_ops") || (headline && !strcmp(name, headline)) ||
	       stat_family_is_failure(name);
}

static int insert_row(struct updater *u, int64_t job, int64_t stat, int64_t run, double value)
{
	sqlite3_bind_int64(u->ins_val, 1, job);
	sqlite3_bind_int64(u->ins_val, 2, stat);
	sqlite3_bind_int64(u->ins_val, 3, run);
	sqlite3_bind_double(u->ins_val, 4, value);
	return step_done(u, u->ins_val);
}

/* A stat of the job kept in rows from now on: its values in the job's runs indexed so far
 * (the run being added is not yet among them) copied from their blobs to vals. */
static int backfill_rows(struct updater *u, int64_t job, int64_t stat)
{
	int rc;

	sqlite3_bind_int64(u->set_rows, 1, job);
	sqlite3_bind_int64(u->set_rows, 2, stat);
	if ((rc = step_done(u, u->set_rows)))
		return rc;
	sqlite3_bind_int64(u->job_blobs, 1, job);
	while ((rc = sqlite3_step(u->job_blobs)) == SQLITE_ROW) {
		const unsigned char *b = sqlite3_column_blob(u->job_blobs, 1);
		size_t n = (size_t)sqlite3_column_bytes(u->job_blobs, 1) / RUN_VAL;
		bool found = false;
		uint64_t bits = 0;

		for (size_t i = 0; b && i < n; i++)
			if ((int64_t)get_le(b + i * RUN_VAL, 4) == stat) {
				bits = get_le(b + i * RUN_VAL + 4, 8);
				found = true;
			}
		if (found) {
			double v;
			int irc;

			memcpy(&v, &bits, sizeof(v));
			irc = insert_row(u, job, stat, sqlite3_column_int64(u->job_blobs, 0), v);
			if (irc) { /* (err said by insert_row) */
				sqlite3_reset(u->job_blobs);
				sqlite3_clear_bindings(u->job_blobs);
				return irc;
			}
		}
	}
	if (rc != SQLITE_DONE)
		rc = up_fail(u, rc);
	else
		rc = 0;
	sqlite3_reset(u->job_blobs);
	sqlite3_clear_bindings(u->job_blobs);
	return rc;
}

/* meta.json's "started" ("2026-11-30T17:25:35+0000", as the runner writes it, or Unix
 * seconds) as Unix seconds; -1 when it has none. */
static int64_t started_of(const json_t *meta)
{
	const json_t *s = json_object_get(meta, "started");
	struct tm tm = {0};
	const char *end;

	if (json_is_integer(s))
		return json_integer_value(s);
	if (json_is_real(s))
		return (int64_t)json_real_value(s);
	if (!json_is_string(s))
		return -1;
	end = strptime(json_string_value(s), "%Y-%m-%dT%H:%M:%S%z", &tm);
	if (end && !*end) {
		long off = tm.tm_gmtoff; /* before timegm, which resets it */

		return (int64_t)timegm(&tm) - off;
	}
	/* No offset: the machine's local time, as a person would read it. */
	memset(&tm, 0, sizeof(tm));
	end = strptime(json_string_value(s), "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end || *end)
		return -1;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

static int add_skip(struct results_index *ix, const char *dir, const char *file, const char *why)
{
	char **v = realloc(ix->skipped, (ix->nskipped + 1) * sizeof(*v));

	if (!v)
		return -1;
	ix->skipped = v;
	/* The readers' reasons may already begin with the file's path: said once. */
	char path[PATH_MAX + 32];
	size_t n = (size_t)snprintf(path, sizeof(path), "%s/%s", dir, file);

	if (!strncmp(why, path, n) && why[n] == ':')
		why += n + 1 + (why[n + 1] == ' ');
	if (asprintf(&v[ix->nskipped], "%s: %s", path, why) < 0)
		return -1;
	ix->nskipped++;
	return 0;
}

/* Read one run directory and add it.  1 when it was skipped (incomplete or corrupt). */
static int add_run(struct updater *u, const struct run_ref *r)
{
	char dir[PATH_MAX], why[256], mpath[PATH_MAX + 16];
	struct store_stats s = {0};
	json_t *meta = NULL;
	const char *status = NULL, *machine = r->axes.tbox_group;
	int64_t started, job, run_id;
	struct job_state *js;
	int rc;

	if (store_path(&r->axes, dir, sizeof(dir)))
		return 1;
	if (store_read_stats(dir, &s, why, sizeof(why))) {
		if (add_skip(u->ix, dir, STORE_STATS_FILE,
			     errno == ENOENT ? "missing (an incomplete run)" : why))
			goto nomem;
		return 1;
	}
	snprintf(mpath, sizeof(mpath), "%s/%s", dir, STORE_META_FILE);
	if (access(mpath, F_OK) == 0) {
		meta = store_read_meta(dir, why, sizeof(why));
		if (!meta) {
			store_stats_free(&s);
			if (add_skip(u->ix, dir, STORE_META_FILE, why))
				goto nomem;
			return 1;
		}
	}
	started = started_of(meta);
	if (started < 0)
		started = r->mtime_ns / 1000000000;
	if (json_is_string(json_object_get(meta, "status")))
		status = json_string_value(json_object_get(meta, "status"));
	const json_t *cpu = json_object_get(json_object_get(meta, "machine"), "cpu_model");

	if (json_is_string(cpu) && json_string_length(cpu))
		machine = json_string_value(cpu);

	job = job_id_of(u, r, &rc);
	if (rc)
		goto out;
	js = job_state_of(u, job);
	if (!js) {
		rc = SQLITE_NOMEM;
		goto out;
	}
	sqlite3_bind_int64(u->ins_run, 1, job);
	sqlite3_bind_text(u->ins_run, 2, r->label, -1, SQLITE_STATIC);
	sqlite3_bind_int64(u->ins_run, 3, r->run);
	sqlite3_bind_int64(u->ins_run, 4, r->inode);
	sqlite3_bind_int64(u->ins_run, 5, r->mtime_ns);
	sqlite3_bind_int64(u->ins_run, 6, r->files);
	sqlite3_bind_int64(u->ins_run, 7, started);
	if (status)
		sqlite3_bind_text(u->ins_run, 8, status, -1, SQLITE_STATIC);
	sqlite3_bind_int(u->ins_run, 9, !status || !strcmp(status, "ok"));
	sqlite3_bind_text(u->ins_run, 10, machine, -1, SQLITE_STATIC);
	if ((rc = step_done(u, u->ins_run)))
		goto out;
	run_id = sqlite3_last_insert_rowid(u->db);
	if (s.n > SIZE_MAX / RUN_VAL / 2 || s.n > INT_MAX / RUN_VAL) {
		rc = SQLITE_TOOBIG;
		goto out;
	}
	if (s.n * RUN_VAL > u->blobcap) {
		unsigned char *b = realloc(u->blob, s.n * RUN_VAL);

		if (!b) {
			rc = SQLITE_NOMEM;
			goto out;
		}
		u->blob = b;
		u->blobcap = s.n * RUN_VAL;
	}
	const char *headline =
	    json_string_value(json_object_get(json_object_get(meta, "headline"), "stat"));

	for (size_t i = 0; i < s.n; i++) {
		int64_t stat = stat_id_of(u, s.v[i].name, s.v[i].len, &rc);
		bool rows = row_stat(s.v[i].name, headline);
		uint64_t bits;
		int had;

		if (rc)
			goto out;
		had = job_has(js, stat, HAS_STAT | (rows ? HAS_ROWS : 0));
		if (had < 0 || stat > UINT32_MAX) {
			rc = had < 0 ? SQLITE_NOMEM : SQLITE_TOOBIG;
			goto out;
		}
		if (!had) {
			sqlite3_bind_int64(u->ins_job_stat, 1, job);
			sqlite3_bind_int64(u->ins_job_stat, 2, stat);
			sqlite3_bind_int(u->ins_job_stat, 3, rows);
			if ((rc = step_done(u, u->ins_job_stat)))
				goto out;
		} else if (rows && !(had & HAS_ROWS) && (rc = backfill_rows(u, job, stat))) {
			goto out;
		}
		if ((rows || (had & HAS_ROWS)) &&
		    (rc = insert_row(u, job, stat, run_id, s.v[i].value)))
			goto out;
		memcpy(&bits, &s.v[i].value, sizeof(bits));
		put_le(u->blob + i * RUN_VAL, (uint64_t)stat, 4);
		put_le(u->blob + i * RUN_VAL + 4, bits, 8);
	}
	sqlite3_bind_int64(u->ins_blob, 1, run_id);
	sqlite3_bind_blob(u->ins_blob, 2, u->blob ? (const void *)u->blob : "", (int)(s.n * RUN_VAL),
			  SQLITE_STATIC);
	if ((rc = step_done(u, u->ins_blob)))
		goto out;
out:
	store_stats_free(&s);
	json_decref(meta);
	if (rc == SQLITE_NOMEM)
		snprintf(u->err, u->errlen, "%s: %s", u->path, strerror(ENOMEM));
	return rc ? -rc : 0;
nomem:
	snprintf(u->err, u->errlen, "%s: %s", u->path, strerror(ENOMEM));
	return -SQLITE_NOMEM;
}

static int drop_run(struct updater *u, const struct run_ref *r)
{
	int64_t job = map_get(&u->jobs, r->key, strlen(r->key));
	int rc;

	sqlite3_bind_int64(u->del_vals, 1, job);
	sqlite3_bind_int64(u->del_vals, 2, r->id);
	if ((rc = step_done(u, u->del_vals)))
		return rc;
	sqlite3_bind_int64(u->del_blob, 1, r->id);
	if ((rc = step_done(u, u->del_blob)))
		return rc;
	sqlite3_bind_int64(u->del_run, 1, r->id);
	if ((rc = step_done(u, u->del_run)))
		return rc;
	/* Its job's stats to be looked at again (prune). */
	for (size_t i = 0; i < u->ndropped; i++)
		if (u->dropped[i] == job)
			return 0;
	int64_t *d = realloc(u->dropped, (u->ndropped + 1) * sizeof(*d));

	if (!d) {
		snprintf(u->err, u->errlen, "%s: %s", u->path, strerror(ENOMEM));
		return SQLITE_NOMEM;
	}
	u->dropped = d;
	d[u->ndropped++] = job;
	return 0;
}

/* After runs were dropped (prune_job_stats first): jobs without runs, stats no job has. */
static const char prune_sql[] =
    "DELETE FROM jobs WHERE id NOT IN (SELECT job_id FROM runs);"
    "DELETE FROM stats WHERE id NOT IN (SELECT stat_id FROM job_stats);"
    "DELETE FROM commit_dirs WHERE job_id NOT IN (SELECT id FROM jobs);";

/* After runs were dropped: the stats that no run left of a job it lost runs from has, dropped
 * from its job_stats (read from the runs' blobs: a rare path). */
static int prune_job_stats(struct updater *u)
{
	sqlite3_stmt *list = NULL, *del = NULL;
	int rc = 0;

	if (!u->ndropped)
		return 0;
	if ((rc = prepare(u, &list, "SELECT stat_id FROM job_stats WHERE job_id = ?")) ||
	    (rc = prepare(u, &del, "DELETE FROM job_stats WHERE job_id = ? AND stat_id = ?")))
		goto out;
	for (size_t k = 0; k < u->ndropped && !rc; k++) {
		int64_t job = u->dropped[k], *ids = NULL;
		size_t n = 0, cap = 0;
		unsigned char *seen;

		sqlite3_bind_int64(list, 1, job);
		while ((rc = sqlite3_step(list)) == SQLITE_ROW) {
			if (n == cap) {
				int64_t *v = realloc(ids, (cap = cap ? 2 * cap : 256) * sizeof(*v));

				if (!v) {
					rc = SQLITE_NOMEM;
					break;
				}
				ids = v;
			}
			ids[n++] = sqlite3_column_int64(list, 0);
		}
		sqlite3_reset(list);
		if (rc != SQLITE_DONE) {
			free(ids);
			rc = rc == SQLITE_NOMEM ? rc : up_fail(u, rc);
			break;
		}
		rc = 0;
		seen = calloc(n ? n : 1, 1);
		if (!seen) {
			free(ids);
			rc = SQLITE_NOMEM;
			break;
		}
		sqlite3_bind_int64(u->job_blobs, 1, job);
		while ((rc = sqlite3_step(u->job_blobs)) == SQLITE_ROW) {
			const unsigned char *b = sqlite3_column_blob(u->job_blobs, 1);
			size_t nb = (size_t)sqlite3_column_bytes(u->job_blobs, 1) / RUN_VAL;

			for (size_t i = 0; b && i < nb; i++) {
				int64_t id = (int64_t)get_le(b + i * RUN_VAL, 4);

				/* ids come sorted (the key's order) */
				size_t lo = 0, hi = n;

				while (lo < hi) {
					size_t mid = (lo + hi) / 2;

					if (ids[mid] < id)
						lo = mid + 1;
					else
						hi = mid;
				}
				if (lo < n && ids[lo] == id)
					seen[lo] = 1;
			}
		}
		sqlite3_reset(u->job_blobs);
		rc = rc == SQLITE_DONE ? 0 : up_fail(u, rc);
		for (size_t i = 0; i < n && !rc; i++) {
			if (seen[i])
				continue;
			sqlite3_bind_int64(del, 1, job);
			sqlite3_bind_int64(del, 2, ids[i]);
			rc = step_done(u, del);
		}
		free(seen);
		free(ids);
	}
	if (rc == SQLITE_NOMEM)
		snprintf(u->err, u->errlen, "%s: %s", u->path, strerror(ENOMEM));
out:
	sqlite3_finalize(list);
	sqlite3_finalize(del);
	return rc;
}

static int load_indexed(sqlite3 *db, const char *path, struct run_list *l, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc =
	    sqlite3_prepare_v2(db,
			       "SELECT r.id, j.key, r.commit_label, r.run, r.inode, r.mtime_ns,"
			       " r.files FROM runs r JOIN jobs j ON j.id = r.job_id",
			       -1, &st, NULL);

	if (rc) {
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
		return rc;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct run_ref *r = list_add(l);

		if (!r) {
			rc = SQLITE_NOMEM;
			break;
		}
		if (sqlite3_column_type(st, 1) == SQLITE_NULL ||
		    sqlite3_column_type(st, 2) == SQLITE_NULL) {
			rc = SQLITE_CORRUPT; /* NOT NULL columns holding NULL: rebuilt */
			break;
		}
		r->id = sqlite3_column_int64(st, 0);
		r->key = xstrdup((const char *)sqlite3_column_text(st, 1));
		r->label = xstrdup((const char *)sqlite3_column_text(st, 2));
		r->run = (unsigned)sqlite3_column_int64(st, 3);
		r->inode = sqlite3_column_int64(st, 4);
		r->mtime_ns = sqlite3_column_int64(st, 5);
		r->files = sqlite3_column_int64(st, 6);
		if (!r->key || !r->label) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s: %s", path,
			 rc == SQLITE_NOMEM ? strerror(ENOMEM) : sqlite3_errmsg(db));
		return rc;
	}
	return 0;
}

/* Whether a run of the tree at an indexed run's place is that run, as it was read. */
static bool same_run(const struct run_ref *tree, const struct run_ref *have)
{
	return tree->inode == have->inode && tree->mtime_ns == have->mtime_ns &&
	       tree->files == have->files;
}

/* Whether the index holds exactly the tree's runs (both sorted by place), each as the tree
 * has it. */
static bool index_current(const struct run_list *tree, const struct run_list *have)
{
	size_t i;

	if (tree->n != have->n)
		return false;
	for (i = 0; i < tree->n; i++)
		if (by_place(&tree->v[i], &have->v[i]) || !same_run(&tree->v[i], &have->v[i]))
			break;
	return i == tree->n;
}

/* In the update's transaction: whatever tables and views db holds dropped (another schema's
 * too), this schema's created.  0 or an SQLite code (err says what). */
static int recreate_schema(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	char *drop = NULL;
	size_t dl = 0;
	FILE *f = open_memstream(&drop, &dl);
	int rc;

	if (!f)
		return SQLITE_NOMEM;
	rc = sqlite3_prepare_v2(db,
				"SELECT type, name FROM sqlite_master WHERE type IN"
				" ('table', 'view') AND name NOT LIKE 'sqlite_%'",
				-1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		char *q = sqlite3_mprintf("DROP %s IF EXISTS \"%w\";",
					  (const char *)sqlite3_column_text(st, 0),
					  (const char *)sqlite3_column_text(st, 1));

		fputs(q ? q : "", f);
		sqlite3_free(q);
	}
	sqlite3_finalize(st);
	fclose(f);
	if (rc != SQLITE_DONE) {
		free(drop);
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
		return rc ? rc : SQLITE_ERROR;
	}
	rc = db_exec(db, drop, path, err, errlen);
	free(drop);
	if (rc || (rc = db_exec(db, schema_sql, path, err, errlen)))
		return rc;
	char v[64];

	snprintf(v, sizeof(v), "PRAGMA user_version = %d; PRAGMA application_id = %d", INDEX_SCHEMA,
		 INDEX_APPLICATION_ID);
	return db_exec(db, v, path, err, errlen);
}

/* The index brought to the tree, both lists sorted by place: a run the tree has as the index
 * has it is kept, one gone or replaced dropped, one new or replaced added; the counts in
 * *added, *removed and *total (the runs indexed after).  0 or an SQLite code. */
static int merge_runs(struct updater *u, const struct run_list *tree, const struct run_list *have,
		      struct dir_list *dirs, size_t *added, size_t *removed, size_t *total)
{
	size_t i = 0, j = 0;
	int rc;

	while (i < tree->n || j < have->n) {
		int c = i == tree->n ? 1 : j == have->n ? -1 : by_place(&tree->v[i], &have->v[j]);

		if (c == 0 && same_run(&tree->v[i], &have->v[j])) {
			i++, j++, (*total)++;
			continue;
		}
		if (c >= 0) { /* indexed, gone from the tree (or replaced) */
			if ((rc = drop_run(u, &have->v[j++])))
				return rc;
			(*removed)++;
			if (c > 0)
				continue;
		}
		int r = add_run(u, &tree->v[i]);

		if (r < 0)
			return -r;
		if (r == 0) {
			(*added)++;
			(*total)++;
		} else if (tree->v[i].dir) { /* skipped: its directory is to be looked at again */
			dirs->v[tree->v[i].dir - 1].unsure = true;
		}
		i++;
	}
	return 0;
}

/* A commit directory's mtime this close to the update's start (or after it) may not change
 * when a run is renamed in a moment later (a coarse clock, another machine's): it is recorded
 * as one to read again. */
#define RACY_NS ((int64_t)2000000000)

static int64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts_ns(&ts);
}

/* Commit directory d recorded as its runs were read (or as one to read again).  A directory of
 * a job with no run indexed is not recorded: it is looked at every time, as it was. */
static int record_dir(struct updater *u, const struct dir_ref *d, int64_t started_ns)
{
	int64_t job = map_get(&u->jobs, d->key, strlen(d->key));
	bool again = d->unsure || d->mtime_ns >= started_ns - RACY_NS;

	if (!job)
		return 0;
	sqlite3_bind_int64(u->put_dir, 1, job);
	sqlite3_bind_text(u->put_dir, 2, d->label, -1, SQLITE_STATIC);
	sqlite3_bind_int64(u->put_dir, 3, d->inode);
	sqlite3_bind_int64(u->put_dir, 4, again ? -1 : d->mtime_ns);
	return step_done(u, u->put_dir);
}

/* The runs the index has of one commit directory, added to l with their rows.  0 or an SQLite
 * code. */
static int load_dir_runs(struct updater *u, const struct dir_ref *d, struct run_list *l)
{
	int64_t job = map_get(&u->jobs, d->key, strlen(d->key));
	int rc;

	if (!job)
		return 0;
	sqlite3_bind_int64(u->dir_runs, 1, job);
	sqlite3_bind_text(u->dir_runs, 2, d->label, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(u->dir_runs)) == SQLITE_ROW) {
		struct run_ref *r = list_add(l);

		if (!r || !(r->key = strdup(d->key)) || !(r->label = strdup(d->label))) {
			rc = SQLITE_NOMEM;
			break;
		}
		r->id = sqlite3_column_int64(u->dir_runs, 0);
		r->run = (unsigned)sqlite3_column_int64(u->dir_runs, 1);
		r->inode = sqlite3_column_int64(u->dir_runs, 2);
		r->mtime_ns = sqlite3_column_int64(u->dir_runs, 3);
		r->files = sqlite3_column_int64(u->dir_runs, 4);
	}
	sqlite3_reset(u->dir_runs);
	sqlite3_clear_bindings(u->dir_runs);
	if (rc == SQLITE_NOMEM) {
		snprintf(u->err, u->errlen, "%s: %s", u->path, strerror(ENOMEM));
		return rc;
	}
	return rc == SQLITE_DONE ? 0 : up_fail(u, rc);
}

/* The commit directories the index recorded, sorted by job and commit. */
static int load_dirs(sqlite3 *db, const char *path, struct dir_list *l, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db,
				    "SELECT j.key, c.commit_label, c.inode, c.mtime_ns FROM"
				    " commit_dirs c JOIN jobs j ON j.id = c.job_id ORDER BY j.key, c.commit_label",
				    -1, &st, NULL);

	if (rc) {
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
		return rc;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct dir_ref *d = dirs_add(l);

		if (!d) {
			rc = SQLITE_NOMEM;
			break;
		}
		if (sqlite3_column_type(st, 0) == SQLITE_NULL ||
		    sqlite3_column_type(st, 1) == SQLITE_NULL) {
			rc = SQLITE_CORRUPT;
			break;
		}
		d->key = xstrdup((const char *)sqlite3_column_text(st, 0));
		d->label = xstrdup((const char *)sqlite3_column_text(st, 1));
		d->inode = sqlite3_column_int64(st, 2);
		d->mtime_ns = sqlite3_column_int64(st, 3);
		if (!d->key || !d->label) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s: %s", path,
			 rc == SQLITE_NOMEM ? strerror(ENOMEM) : sqlite3_errmsg(db));
		return rc;
	}
	sort_dirs(l);
	return 0;
}

static int by_run_number(const void *a, const void *b)
{
	const struct run_ref *x = a, *y = b;

	return (x->run > y->run) - (x->run < y->run);
}

/* One commit directory of the tree (have: the index's record of it, or NULL) brought to the
 * index: its runs listed and merged, as a full update would, and recorded. */
static int update_dir(struct updater *u, struct dir_list *tree, size_t i, int64_t started_ns,
		      size_t *added, size_t *removed)
{
	struct run_list t = {0}, h = {0};
	size_t total = 0;
	int rc;

	if (list_dir_runs(&tree->v[i], i + 1, &t)) {
		snprintf(u->err, u->errlen, "%s: %s", u->path, strerror(ENOMEM));
		rc = SQLITE_NOMEM;
		goto out;
	}
	if ((rc = load_dir_runs(u, &tree->v[i], &h)))
		goto out;
	if (t.n > 1)
		qsort(t.v, t.n, sizeof(*t.v), by_run_number);
	if (h.n > 1)
		qsort(h.v, h.n, sizeof(*h.v), by_run_number);
	if ((rc = merge_runs(u, &t, &h, tree, added, removed, &total)))
		goto out;
	rc = record_dir(u, &tree->v[i], started_ns);
out:
	list_free(&t);
	list_free(&h);
	return rc;
}

/* A commit directory gone from the tree: its runs dropped, its record too. */
static int drop_dir(struct updater *u, const struct dir_ref *d, size_t *removed)
{
	struct run_list h = {0};
	int64_t job = map_get(&u->jobs, d->key, strlen(d->key));
	int rc = load_dir_runs(u, d, &h);

	for (size_t j = 0; j < h.n && !rc; j++) {
		rc = drop_run(u, &h.v[j]);
		(*removed)++;
	}
	list_free(&h);
	if (rc || !job)
		return rc;
	sqlite3_bind_int64(u->del_dir, 1, job);
	sqlite3_bind_text(u->del_dir, 2, d->label, -1, SQLITE_STATIC);
	return step_done(u, u->del_dir);
}

/* The quick update (INDEX_QUICK): only the commit directories whose inode or mtime is not the
 * one recorded are read (a run renamed in or removed changes its directory's mtime), the
 * others taken as indexed: one stat per commit directory, not three per run.  A file edited in
 * place inside a run directory is not seen (the full update sees it). */
static int quick_update(struct results_index *ix, sqlite3 *db, const char *path,
			struct index_update *out, char *err, size_t errlen)
{
	struct dir_list tree = {0}, have = {0};
	struct updater u = {.ix = ix, .db = db, .path = path, .err = err, .errlen = errlen};
	size_t added = 0, removed = 0, *changed = NULL, nchanged = 0, *gone = NULL, ngone = 0;
	int64_t started_ns = wall_ns(), n;
	bool began = false;
	int rc;

	if ((rc = load_dirs(db, path, &have, err, errlen)))
		goto out;
	if (walk_dirs(ix->root, &tree, err, errlen)) {
		ix->tree_failed = true;
		rc = SQLITE_ERROR;
		goto out;
	}
	sort_dirs(&tree);
	changed = malloc((tree.n + 1) * sizeof(*changed));
	gone = malloc((have.n + 1) * sizeof(*gone));
	if (!changed || !gone) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		rc = SQLITE_NOMEM;
		goto out;
	}
	for (size_t i = 0, j = 0; i < tree.n || j < have.n;) {
		int c = i == tree.n ? 1 : j == have.n ? -1 : by_dir(&tree.v[i], &have.v[j]);

		if (c > 0) {
			gone[ngone++] = j++;
			continue;
		}
		if (c < 0 || tree.v[i].inode != have.v[j].inode ||
		    tree.v[i].mtime_ns != have.v[j].mtime_ns)
			changed[nchanged++] = i;
		i++;
		j += c == 0;
	}
	/* Nothing to change: no write transaction, which would wait for readers. */
	if (nchanged || ngone) {
		if ((rc = db_exec(db, "BEGIN IMMEDIATE", path, err, errlen)))
			goto out;
		began = true;
		if ((rc = updater_init(&u)))
			goto out;
		for (size_t k = 0; k < nchanged; k++)
			if ((rc = update_dir(&u, &tree, changed[k], started_ns, &added, &removed)))
				goto out;
		for (size_t k = 0; k < ngone; k++)
			if ((rc = drop_dir(&u, &have.v[gone[k]], &removed)))
				goto out;
		if (removed && ((rc = prune_job_stats(&u)) ||
				(rc = db_exec(db, prune_sql, path, err, errlen))))
			goto out;
		if ((rc = db_exec(db, "COMMIT", path, err, errlen)))
			goto out;
		began = false;
	}
	n = pragma_int(db, "SELECT count(*) FROM runs", &rc);
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	if (out) {
		out->runs_added = added;
		out->runs_removed = removed;
		out->runs_total = n > 0 ? (size_t)n : 0;
	}
out:
	if (began)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	updater_free(&u);
	free(changed);
	free(gone);
	dirs_free(&tree);
	dirs_free(&have);
	return rc;
}

/* Bring db up to date with the tree; fresh: the tables are to be (re)created first.  Returns
 * 0 or an SQLite code (err says what); a corrupt database is SQLITE_CORRUPT. */
static int update(struct results_index *ix, sqlite3 *db, const char *path, bool fresh,
		  struct index_update *out, char *err, size_t errlen)
{
	struct dir_list dirs = {0};
	struct run_list tree = {0}, have = {0};
	int64_t started_ns = wall_ns();
	struct updater u = {.ix = ix, .db = db, .path = path, .err = err, .errlen = errlen};
	size_t added = 0, removed = 0, total = 0;
	bool began = false;
	int rc;

	if (!fresh && (rc = load_indexed(db, path, &have, err, errlen)))
		goto out;
	if (walk_tree(ix->root, &dirs, &tree, err, errlen)) {
		ix->tree_failed = true;
		rc = SQLITE_ERROR;
		goto out;
	}
	if (tree.n > 1)
		qsort(tree.v, tree.n, sizeof(*tree.v), by_place);
	if (have.n > 1)
		qsort(have.v, have.n, sizeof(*have.v), by_place);

	/* Nothing to change: no write transaction, which would wait for readers. */
	if (!fresh && index_current(&tree, &have)) {
		total = have.n;
		rc = 0;
		goto skipped;
	}
	if ((rc = db_exec(db, "BEGIN IMMEDIATE", path, err, errlen)))
		goto out;
	began = true;
	if (fresh && (rc = recreate_schema(db, path, err, errlen)))
		goto out;
	if ((rc = updater_init(&u)) ||
	    (rc = merge_runs(&u, &tree, &have, &dirs, &added, &removed, &total)))
		goto out;
	/* Every commit directory as its runs were read now, for the quick update. */
	if ((rc = db_exec(db, "DELETE FROM commit_dirs", path, err, errlen)))
		goto out;
	for (size_t i = 0; i < dirs.n; i++)
		if ((rc = record_dir(&u, &dirs.v[i], started_ns)))
			goto out;
	if (removed &&
	    ((rc = prune_job_stats(&u)) || (rc = db_exec(db, prune_sql, path, err, errlen))))
		goto out;
	rc = db_exec(db, "COMMIT", path, err, errlen);
	began = false;
skipped:
	if (out) {
		out->runs_added = added;
		out->runs_removed = removed;
		out->runs_total = total;
	}
out:
	if (began)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	updater_free(&u);
	list_free(&tree);
	list_free(&have);
	dirs_free(&dirs);
	return rc;
}

/* ---- opening ---- */

static void set_pragmas(sqlite3 *db)
{
	sqlite3_busy_timeout(db, 600000);
	sqlite3_exec(db,
		     "PRAGMA journal_mode = DELETE; PRAGMA synchronous = NORMAL;"
		     " PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;",
		     NULL, NULL, NULL);
}

/* What is at one of the index's paths (the database, its journal) when it is not a file the
 * index may open and write: a regular file with no other name.  A symbolic link would be
 * followed to a file anywhere (its tables dropped), a hard link is another file's name, a FIFO
 * or device is no file, a directory cannot be opened. */
static const char *foreign_kind(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return "a symbolic link";
	if (S_ISDIR(st->st_mode))
		return "a directory";
	if (S_ISFIFO(st->st_mode))
		return "a FIFO";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		return "a device";
	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_nlink != 1)
		return "a file with other hard links";
	return NULL;
}

/* Whether db holds tables, views or indexes that the index does not have. */
static bool has_other_tables(sqlite3 *db)
{
	int rc;
	int64_t n = pragma_int(db,
			       "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
			       " AND name NOT IN ('jobs', 'runs', 'stats', 'job_stats', 'vals', 'run_vals',"
			       " 'commit_dirs', 'jobs_path_params')",
			       &rc);

	return rc || n != 0;
}

/* db's tables, indexes and views as SQLite keeps them (their CREATE statements), one string;
 * NULL when they cannot be read. */
static char *schema_text(sqlite3 *db)
{
	sqlite3_stmt *st;
	char *t = NULL;

	if (sqlite3_prepare_v2(
		db,
		"SELECT group_concat(type || ' ' || name || ' ' || tbl_name || ' ' ||"
		" coalesce(sql, ''), char(10)) FROM (SELECT * FROM sqlite_master"
		" ORDER BY type, name)",
		-1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		t = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return t;
}

/* Whether db's tables are exactly those schema_sql makes, column for column, constraint for
 * constraint (NOT NULL above all: the readers rely on it): compared with an index made in
 * memory. */
static bool schema_is_ours(sqlite3 *db)
{
	sqlite3 *mem = NULL;
	char *want = NULL, *have = NULL;
	bool same = false;

	if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) ==
		SQLITE_OK &&
	    sqlite3_exec(mem, schema_sql, NULL, NULL, NULL) == SQLITE_OK) {
		want = schema_text(mem);
		have = schema_text(db);
		same = want && have && !strcmp(want, have);
	}
	free(want);
	free(have);
	sqlite3_close(mem);
	return same;
}

/* Why an index cannot be used as it is, or NULL when it can.  *corrupt: it is not a
 * database, or not whole.  *foreign: a database that is not an index (other tables and no
 * mark of ours), to be set aside, not rebuilt into. */
static const char *check_index(struct results_index *ix, sqlite3 *db, const char *path,
			       bool *corrupt, bool *foreign)
{
	struct stat st;
	int rc;
	int64_t v, app, pages, psize;

	*corrupt = *foreign = false;
	if (lstat(path, &st) == 0 && st.st_size == 0)
		return "empty";
	v = pragma_int(db, "PRAGMA user_version", &rc);
	app = rc ? -1 : pragma_int(db, "PRAGMA application_id", &rc);
	if (rc) {
		*corrupt = is_corrupt(rc);
		snprintf(ix->why, sizeof(ix->why), "unreadable: %s", sqlite3_errmsg(db));
		return *corrupt ? "corrupt" : ix->why;
	}
	/* A truncated file: the header says how many pages the database has. */
	pages = pragma_int(db, "PRAGMA page_count", &rc);
	psize = rc ? -1 : pragma_int(db, "PRAGMA page_size", &rc);
	if (rc || pages < 0 || psize <= 0 || lstat(path, &st) || pages * psize > st.st_size) {
		*corrupt = true;
		return "corrupt";
	}
	/* Unmarked: an index of an older scalebench (only the index's tables), or not ours. */
	if (app != INDEX_APPLICATION_ID && (app != 0 || has_other_tables(db))) {
		*foreign = true;
		return "a database of other tables";
	}
	if (v != INDEX_SCHEMA) {
		snprintf(ix->why, sizeof(ix->why), "schema %lld, this scalebench has %d",
			 (long long)v, INDEX_SCHEMA);
		return ix->why;
	}
	sqlite3_stmt *q;
	int64_t n = 0;

	rc =
	    sqlite3_prepare_v2(db,
			       "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN"
			       " ('jobs', 'runs', 'stats', 'job_stats', 'vals', 'run_vals')",
			       -1, &q, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	if (n != (int64_t)NR_TABLES) {
		*corrupt = rc != SQLITE_ROW && is_corrupt(rc);
		return "corrupt";
	}
	/* The right version, the wrong tables (made by hand, by another tool): rebuilt. */
	if (!schema_is_ours(db))
		return "tables not of this schema";
	return NULL;
}

static void remove_index_files(const char *path)
{
	char j[PATH_MAX + 16];

	unlink(path);
	snprintf(j, sizeof(j), "%s-journal", path);
	unlink(j);
}

/* ---- the index as its last writer left it ----
 *
 * Checking the schema says nothing of the values: a flipped byte in a page of the jobs or vals
 * table is a wrong answer that PRAGMA quick_check, and mostly integrity_check too, does not
 * see.  So every writer, under the lock, after its last write, records in INDEX_SUM_FILE what
 * the file is (inode, size, mtime, ctime) and a CRC-32 of all its bytes.  A reader whose file
 * is still what the sum says pays one lstat and one small read; one whose file changed
 * otherwise (the ctime moves with any write) reads the file once for its CRC: the same bytes
 * (a copy of the root, a hot journal rolled back to the last commit) are trusted, and any
 * other change, or no sum at all, is a doubt: the index is rebuilt.  (Not a defence against
 * someone who can write the results root: they can write the tree and the sum too.) */

/* Why the index at path cannot be taken as its last writer left it, or NULL when it can
 * (ix->sum then describes it, with its chunks' CRCs when they were read or recorded, and
 * ix->sum_recorded says whether the sum file says so already).  The writes noted so far are
 * forgotten: the sum is of the file as it is now. */
static const char *sum_doubt(struct results_index *ix, const char *path, const char *sum_path)
{
	struct index_sum rec, now;
	struct stat st;

	ix->sum_recorded = false;
	index_sum_free(&ix->sum);
	index_writes_clear(&ix->writes);
	if (lstat(path, &st))
		return "unreadable";
	index_sum_of_stat(&st, &now);
	if (!index_sum_read(sum_path, &rec))
		return "no sum of its last write";
	if (index_sum_same_file(&rec, &now)) {
		ix->sum = rec;
		ix->sum_recorded = true;
		return NULL;
	}
	if (rec.size != now.size || index_sum_compute(path, &st, NULL, NULL, &now) ||
	    !index_sum_same_bytes(&now, &rec)) {
		index_sum_free(&rec);
		index_sum_free(&now);
		return "changed since scalebench wrote it";
	}
	index_sum_free(&rec);
	ix->sum = now;
	return NULL;
}

/* After a successful update, under the lock: the sum file made to describe the index as it is
 * now.  Nothing is written when it does already (the common case: nothing new).  Only the
 * chunks written since the sum was last known are read back (index_sum.h).  0, or -1 with
 * err. */
static int sum_write(struct results_index *ix, const char *path, const char *sum_path, char *err,
		     size_t errlen)
{
	struct index_sum now;
	struct stat st;

	if (lstat(path, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	index_sum_of_stat(&st, &now);
	if (ix->sum_recorded && index_sum_same_file(&ix->sum, &now))
		return 0;
	if (index_sum_compute(path, &st, &ix->sum, &ix->writes, &now)) {
		snprintf(err, errlen, "%s: cannot be read back", path);
		return -1;
	}
	if (index_sum_write(sum_path, &now, err, errlen)) {
		index_sum_free(&now);
		return -1;
	}
	index_sum_free(&ix->sum);
	ix->sum = now;
	ix->sum_recorded = true;
	index_writes_clear(&ix->writes);
	return 0;
}

int index_sum_forge(const char *root, char *err, size_t errlen)
{
	struct results_index ix = {0};
	char path[PATH_MAX], sump[PATH_MAX];
	int rc;

	if (path_fmt(path, sizeof(path), err, errlen, "%s/%s", root, INDEX_FILE) ||
	    path_fmt(sump, sizeof(sump), err, errlen, "%s/%s", root, INDEX_SUM_FILE))
		return -1;
	rc = sum_write(&ix, path, sump, err, errlen);
	index_sum_free(&ix.sum);
	return rc;
}
/* Rename what is at path to the first free PATH.aside-N, never replacing anything (a plain
 * rename after a look where renameat2 has no RENAME_NOREPLACE: NFS; we hold the lock), and
 * say so.  Nothing it names is opened: a symbolic link's target stays as it is. */
static int set_aside(const char *path, const char *what, char *err, size_t errlen)
{
	char to[PATH_MAX + 32];
	int r = -1;

	for (int n = 1; n <= 100; n++) {
		struct stat st;

		snprintf(to, sizeof(to), "%s.aside-%d", path, n);
		r = renameat2(AT_FDCWD, path, AT_FDCWD, to, RENAME_NOREPLACE);
		if (r && (errno == EINVAL || errno == ENOSYS)) {
			if (lstat(to, &st) == 0)
				errno = EEXIST;
			else if (errno == ENOENT)
				r = rename(path, to);
		}
		if (!r || (errno != EEXIST && errno != ENOTEMPTY))
			break;
	}
	if (r) {
		snprintf(err, errlen, "%s is %s, and cannot be set aside: %s", path, what,
			 strerror(errno));
		return -1;
	}
	sb_note("%s was %s, not an index: renamed to %s, the index made anew", path, what, to);
	return 0;
}

/* Under the lock: path (and its journal's) made fit to open: anything there that is not a
 * regular file of one link is set aside, and an index missing is created, exclusively, never
 * through a link.  *why: why the index is to be built ("missing", what was set aside), left as
 * it is when the file there is fit; *st: the file.  0, or -1 with err. */
static int index_ready(struct results_index *ix, const char *path, const char **why,
		       struct stat *st, char *err, size_t errlen)
{
	char j[PATH_MAX + 16];
	const char *what;
	int fd;

	snprintf(j, sizeof(j), "%s-journal", path);
	if (lstat(j, st) == 0 && (what = foreign_kind(st)) && set_aside(j, what, err, errlen))
		return -1;
	/* The sum: a directory there would keep it from being written, and every reader would
	 * rebuild the index.  (A link is only replaced by the sum's rename, never followed.) */
	snprintf(j, sizeof(j), "%s" INDEX_SUM_SUFFIX, path);
	if (lstat(j, st) == 0 && S_ISDIR(st->st_mode) && set_aside(j, "a directory", err, errlen))
		return -1;
	if (lstat(path, st) == 0) {
		what = foreign_kind(st);
		if (!what)
			return 0;
		if (set_aside(path, what, err, errlen))
			return -1;
		snprintf(ix->why, sizeof(ix->why), "%s was there, set aside", what);
		*why = ix->why;
	} else if (errno != ENOENT) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	} else if (!*why) {
		*why = "missing";
	}
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0 || fstat(fd, st)) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int open_db(const char *path, int flags, const char *vfs, sqlite3 **db, char *err,
		   size_t errlen)
{
	int rc = sqlite3_open_v2(path, db, flags, vfs);

	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot open %s: %s", path,
			 *db ? sqlite3_errmsg(*db) : sqlite3_errstr(rc));
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	set_pragmas(*db);
	return 0;
}

/* The file index_ready made fit, opened by SQLite: through dbpath (the root's real path, as
 * SQLITE_OPEN_NOFOLLOW refuses a link anywhere in it, the index's own name a link included),
 * and checked to be still the file st describes. */
static int open_index(struct results_index *ix, const char *path, const char *dbpath,
		      const struct stat *st, char *err, size_t errlen)
{
	struct stat now;

	/* A new file, or the old one opened again: its sum is to be known anew. */
	index_sum_free(&ix->sum);
	ix->sum_recorded = false;
	index_writes_clear(&ix->writes);
	if (open_db(dbpath, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW,
		    index_sum_vfs(&ix->writes), &ix->db, err, errlen))
		return -1;
	if (lstat(path, &now) || now.st_dev != st->st_dev || now.st_ino != st->st_ino ||
	    foreign_kind(&now)) {
		snprintf(err, errlen, "%s: replaced while it was being opened", path);
		sqlite3_close(ix->db);
		ix->db = NULL;
		return -1;
	}
	return 0;
}

/* The index cannot be used or updated here (note says why): the tree indexed in memory for
 * this command, said once.  The index is a cache of the tree: a reader never fails for it. */
static int index_in_memory(struct results_index *ix, const char *note, const char *why,
			   struct index_update *u, char *err, size_t errlen)
{
	sqlite3_close(ix->db);
	ix->db = NULL;
	for (size_t i = 0; i < ix->nskipped; i++)
		free(ix->skipped[i]);
	ix->nskipped = 0;
	sb_note("%s: indexing the tree in memory for this command", note);
	u->read_only = true;
	u->rebuilt = true;
	u->why_rebuilt = why;
	u->runs_added = u->runs_removed = u->runs_total = 0;
	if (open_db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL, &ix->db, err,
		    errlen))
		return -1;
	return update(ix, ix->db, ":memory:", true, u, err, errlen) ? -1 : 0;
}

/* The index cannot be written here: read it as it is, or index the tree in memory. */
static int open_readonly(struct results_index *ix, const char *path, const char *dbpath,
			 const char *sump, const char *why_not, struct index_update *u, char *err,
			 size_t errlen)
{
	bool corrupt, foreign;
	struct stat st;
	char note[PATH_MAX + 160];
	const char *doubt = NULL;

	u->read_only = true;
	/* Only a file of its own: a FIFO would block the open, a link lead anywhere. */
	if (lstat(path, &st) == 0 && !foreign_kind(&st) && access(path, R_OK) == 0 &&
	    open_db(dbpath, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL, &ix->db, err,
		    errlen) == 0) {
		if (!check_index(ix, ix->db, path, &corrupt, &foreign) &&
		    !(doubt = sum_doubt(ix, path, sump))) {
			sb_note("cannot update %s (%s): reading it as it was last updated", path,
				why_not);
			int rc;
			int64_t n = pragma_int(ix->db, "SELECT count(*) FROM runs", &rc);

			u->runs_total = n > 0 ? (size_t)n : 0;
			return 0;
		}
	}
	if (doubt)
		snprintf(note, sizeof(note), "cannot rebuild %s (%s), %s", path, why_not, doubt);
	else
		snprintf(note, sizeof(note), "cannot write %s (%s)", path, why_not);
	return index_in_memory(ix, note, "not writable", u, err, errlen);
}

/* The lock file, opened without following a link or blocking on a FIFO: its descriptor, or
 * -1 with errno, or -2 when what is there is no regular file (*what says what it is). */
static int open_lock(const char *lock, const char **what)
{
	struct stat st;
	int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);

	*what = NULL;
	if (fd < 0) {
		if (errno == ELOOP)
			*what = "a symbolic link";
		else if (errno == EISDIR)
			*what = "a directory";
		else if (errno == ENXIO)
			*what = "a socket";
		return *what ? -2 : -1;
	}
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		struct stat as_link = st;

		as_link.st_nlink = 1; /* the lock is only flocked, never written: links are fine */
		*what = foreign_kind(&as_link);
	}
	if (*what) {
		close(fd);
		return -2;
	}
	return fd;
}

int index_open(const char *root, enum index_mode mode, struct results_index **out,
	       struct index_update *u, char *err, size_t errlen)
{
	struct results_index *ix = calloc(1, sizeof(*ix));
	char path[PATH_MAX], lock[PATH_MAX + 8], sump[PATH_MAX], real[PATH_MAX], dbpath[PATH_MAX],
	    note[PATH_MAX + 1200];
	struct index_update local = {0};
	double t0 = now_s();
	struct stat st;
	const char *why = NULL, *what;
	bool corrupt = false, foreign = false;
	int lfd = -1, rc = 0;

	*out = NULL;
	if (!u)
		u = &local;
	memset(u, 0, sizeof(*u));
	if (!ix || !(ix->root = strdup(root))) {
		snprintf(err, errlen, "%s: %s", root, strerror(ENOMEM));
		goto fail;
	}
	if (stat(root, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", root,
			 errno == ENOENT || !S_ISDIR(st.st_mode) ? "no such results directory"
								 : strerror(errno));
		goto fail;
	}
	if (!realpath(root, real)) {
		snprintf(err, errlen, "%s: %s", root, strerror(errno));
		goto fail;
	}
	if (path_fmt(path, sizeof(path), err, errlen, "%s/%s", root, INDEX_FILE) ||
	    path_fmt(lock, sizeof(lock), err, errlen, "%s.lock", path) ||
	    path_fmt(sump, sizeof(sump), err, errlen, "%s/%s", root, INDEX_SUM_FILE) ||
	    path_fmt(dbpath, sizeof(dbpath), err, errlen, "%s/%s", real, INDEX_FILE))
		goto fail;
	lfd = open_lock(lock, &what);
	if (lfd == -2) {
		/* Not ours to replace: an updater may hold the lock we would set aside. */
		snprintf(note, sizeof(note), "%s is %s, not a lock file (remove it)", lock, what);
		if (index_in_memory(ix, note, "no lock file", u, err, errlen))
			goto fail;
		goto done;
	}
	if (lfd < 0 && (errno == ENOSPC || errno == EDQUOT)) {
		snprintf(note, sizeof(note), "cannot create %s (%s)", lock, strerror(errno));
		if (index_in_memory(ix, note, "disk full", u, err, errlen))
			goto fail;
		goto done;
	}
	if (lfd < 0 || access(root, W_OK) ||
	    (lstat(path, &st) == 0 && !foreign_kind(&st) && access(path, W_OK))) {
		const char *why_not = strerror(lfd < 0 ? errno : EACCES);

		if (lfd < 0 && errno != EACCES && errno != EROFS && errno != EPERM) {
			snprintf(err, errlen, "cannot open %s: %s", lock, strerror(errno));
			goto fail;
		}
		if (lfd >= 0)
			close(lfd);
		lfd = -1;
		if (open_readonly(ix, path, dbpath, sump, why_not, u, err, errlen))
			goto fail;
		goto done;
	}
	/* One updater at a time; readers of the database itself are SQLite's to serialise. */
	while (flock(lfd, LOCK_EX)) {
		if (errno != EINTR) {
			snprintf(err, errlen, "cannot lock %s: %s", lock, strerror(errno));
			goto fail;
		}
	}
	if (mode == INDEX_REBUILD)
		why = "asked";
	if (index_ready(ix, path, &why, &st, err, errlen) ||
	    open_index(ix, path, dbpath, &st, err, errlen))
		goto in_memory;
	if (!why)
		why = check_index(ix, ix->db, path, &corrupt, &foreign);
	/* Of this schema: but are its values what a writer put there? */
	if (!why && (why = sum_doubt(ix, path, sump)))
		corrupt = true; /* not to be read, nor written into: made anew */
	for (int attempt = 0;; attempt++) {
		if (corrupt || foreign) {
			/* Not a database any more: no transaction can replace it, the file is.
			 * Someone's database: set aside whole, never rebuilt into. */
			sqlite3_close(ix->db);
			ix->db = NULL;
			if (foreign) {
				if (set_aside(path, why, err, errlen))
					goto in_memory;
			} else {
				remove_index_files(path);
			}
			foreign = false;
			if (index_ready(ix, path, &why, &st, err, errlen) ||
			    open_index(ix, path, dbpath, &st, err, errlen))
				goto in_memory;
		}
		u->rebuilt = why != NULL;
		u->why_rebuilt = why;
		rc = mode == INDEX_QUICK && !why ? quick_update(ix, ix->db, path, u, err, errlen)
						 : update(ix, ix->db, path, why != NULL, u, err, errlen);
		if (!rc)
			break;
		if (ix->tree_failed || rc == SQLITE_NOMEM)
			goto fail;
		if (!is_corrupt(rc) || attempt)
			goto in_memory;
		corrupt = true;
		why = "corrupt";
		for (size_t i = 0; i < ix->nskipped; i++)
			free(ix->skipped[i]);
		ix->nskipped = 0;
	}
	/* A sum not written only costs the next reader a rebuild. */
	if (sum_write(ix, path, sump, note, sizeof(note)))
		sb_note("%s: the index's sum not recorded (the next reader rebuilds it)", note);
done:
	if (lfd >= 0)
		close(lfd);
	u->runs_skipped = ix->nskipped;
	u->seconds = now_s() - t0;
	*out = ix;
	return 0;
in_memory:
	/* The index is only a cache: a full disk, a file that cannot be made or kept fit, are no
	 * reason to fail a reader that can read the tree.  (err names path first, mostly.) */
	snprintf(note, sizeof(note), "cannot update %s (%s)", path,
		 !strncmp(err, path, strlen(path)) && err[strlen(path)] == ':'
		     ? err + strlen(path) + 2
		     : err);
	if (index_in_memory(ix, note, ix->db && is_full(ix->db, rc) ? "disk full" : "not updatable",
			    u, err, errlen) == 0)
		goto done;
fail:
	if (lfd >= 0)
		close(lfd);
	index_close(ix);
	return -1;
}

void index_close(struct results_index *ix)
{
	if (!ix)
		return;
	sqlite3_close(ix->db);
	index_sum_free(&ix->sum);
	index_writes_free(&ix->writes);
	for (size_t i = 0; i < ix->nskipped; i++)
		free(ix->skipped[i]);
	free(ix->skipped);
	free(ix->root);
	free(ix->commits_job);
	index_commits_free(ix->commits, ix->ncommits);
	job_vals_free(ix->vals);
	free(ix);
}

const char *const *index_skipped(const struct results_index *ix, size_t *n)
{
	*n = ix->nskipped;
	return (const char *const *)ix->skipped;
}

/* ---- queries ---- */

static int query(struct results_index *ix, sqlite3_stmt **st, const char *sql)
{
	int rc = sqlite3_prepare_v2(ix->db, sql, -1, st, NULL);

	if (rc != SQLITE_OK)
		sb_error("%s/%s: %s", ix->root, INDEX_FILE, sqlite3_errmsg(ix->db));
	return rc;
}

static ssize_t query_failed(struct results_index *ix, sqlite3_stmt *st, int rc)
{
	if (rc != SQLITE_DONE)
		sb_error("%s/%s: %s%s", ix->root, INDEX_FILE, sqlite3_errmsg(ix->db),
			 is_corrupt(rc) ? " (scalebench index --rebuild makes it anew)" : "");
	sqlite3_finalize(st);
	errno = rc == SQLITE_NOMEM ? ENOMEM : EIO;
	return -1;
}

static char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return strdup(t ? (const char *)t : "");
}

ssize_t index_jobs(struct results_index *ix, const char *job, struct index_job **out)
{
	sqlite3_stmt *st;
	struct index_job *v = NULL;
	size_t n = 0;
	int rc;

	*out = NULL;
	if (query(ix, &st,
		  "SELECT j.key, j.testcase, j.path_params, j.tbox_group, j.rootfs, j.kconfig,"
		  " j.compiler, (SELECT count(DISTINCT commit_label) FROM runs r WHERE r.job_id ="
		  " j.id), (SELECT count(*) FROM runs r WHERE r.job_id = j.id) FROM jobs j"
		  " WHERE ?1 IS NULL OR j.key = ?1 OR j.path_params = ?1 ORDER BY j.key"))
		return -1;
	if (job)
		sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct index_job *nv = realloc(v, (n + 1) * sizeof(*v)), *j;

		if (!nv) {
			index_jobs_free(v, n);
			return query_failed(ix, st, SQLITE_NOMEM);
		}
		v = nv;
		j = &v[n++];
		j->key = col_text(st, 0);
		j->testcase = col_text(st, 1);
		j->path_params = col_text(st, 2);
		j->tbox_group = col_text(st, 3);
		j->rootfs = col_text(st, 4);
		j->kconfig = col_text(st, 5);
		j->compiler = col_text(st, 6);
		j->commits = (size_t)sqlite3_column_int64(st, 7);
		j->runs = (size_t)sqlite3_column_int64(st, 8);
		if (!j->key || !j->testcase || !j->path_params || !j->tbox_group || !j->rootfs ||
		    !j->kconfig || !j->compiler) {
			index_jobs_free(v, n);
			return query_failed(ix, st, SQLITE_NOMEM);
		}
	}
	if (rc != SQLITE_DONE) {
		index_jobs_free(v, n);
		return query_failed(ix, st, rc);
	}
	sqlite3_finalize(st);
	*out = v;
	return (ssize_t)n;
}

void index_jobs_free(struct index_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].key);
		free(jobs[i].testcase);
		free(jobs[i].path_params);
		free(jobs[i].tbox_group);
		free(jobs[i].rootfs);
		free(jobs[i].kconfig);
		free(jobs[i].compiler);
	}
	free(jobs);
}

ssize_t index_job_keys(struct results_index *ix, const char *job, char ***out)
{
	sqlite3_stmt *st;
	char **v = NULL;
	size_t n = 0;
	int rc;

	*out = NULL;
	if (query(ix, &st,
		  "SELECT key FROM jobs WHERE ?1 IS NULL OR key = ?1 OR path_params = ?1"
		  " ORDER BY key"))
		return -1;
	if (job)
		sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char **nv = realloc(v, (n + 1) * sizeof(*v));

		if (!nv || !(nv[n] = col_text(st, 0))) {
			v = nv ? nv : v;
			rc = SQLITE_NOMEM;
			break;
		}
		v = nv;
		n++;
	}
	if (rc != SQLITE_DONE) {
		for (size_t i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return query_failed(ix, st, rc);
	}
	sqlite3_finalize(st);
	*out = v;
	return (ssize_t)n;
}

/* A copy of c[0..n) for the caller: 0, or -1 with errno. */
static int commits_copy(const struct index_commit *c, size_t n, struct index_commit **out)
{
	struct index_commit *v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		v[i] = c[i];
		v[i].job_key = strdup(c[i].job_key);
		v[i].commit = strdup(c[i].commit);
		v[i].machine = strdup(c[i].machine);
		v[i].dir = strdup(c[i].dir);
		if (!v[i].job_key || !v[i].commit || !v[i].machine || !v[i].dir) {
			index_commits_free(v, i + 1);
			goto nomem;
		}
	}
	*out = v;
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}

static ssize_t commits_query(struct results_index *ix, const char *job, const char *commit,
			     struct index_commit **out);

ssize_t index_commits(struct results_index *ix, const char *job, const char *commit,
		      struct index_commit **out)
{
	struct index_commit *v;
	ssize_t n;

	*out = NULL;
	if (!job || commit)
		return commits_query(ix, job, commit, out);
	if (!ix->commits_job || strcmp(ix->commits_job, job)) {
		char *key = strdup(job);

		if (!key) {
			errno = ENOMEM;
			return -1;
		}
		n = commits_query(ix, job, NULL, &v);
		if (n < 0) {
			free(key);
			return -1;
		}
		free(ix->commits_job);
		index_commits_free(ix->commits, ix->ncommits);
		ix->commits_job = key;
		ix->commits = v;
		ix->ncommits = (size_t)n;
	}
	if (commits_copy(ix->commits, ix->ncommits, out))
		return -1;
	if (!ix->ncommits) { /* nothing to hand over: no allocation for the caller to free */
		free(*out);
		*out = NULL;
	}
	return (ssize_t)ix->ncommits;
}

/* index_commits' order: the first run's start, then the label, then the job. */
static int by_commit_time(const void *a, const void *b)
{
	const struct index_commit *x = a, *y = b;
	int c;

	if (x->first_started != y->first_started)
		return x->first_started < y->first_started ? -1 : 1;
	c = strcmp(x->commit, y->commit);
	return c ? c : strcmp(x->job_key, y->job_key);
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The machines of one commit's runs m[0..n) (NULL: none said), distinct, sorted, ", "
 * between them (what group_concat of the sorted distinct ones made): malloc'd, or NULL. */
static char *machines_text(char **m, size_t n)
{
	size_t len = 1, k = 0;
	char *t;

	qsort(m, n, sizeof(*m), by_text);
	for (size_t i = 0; i < n; i++)
		len += strlen(m[i]) + 2;
	t = malloc(len);
	if (!t)
		return NULL;
	t[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t l;

		if (i && !strcmp(m[i], m[i - 1]))
			continue;
		if (k) {
			memcpy(t + k, ", ", 2);
			k += 2;
		}
		l = strlen(m[i]);
		memcpy(t + k, m[i], l + 1);
		k += l;
	}
	return t;
}

/* The runs in (job, commit) order, one pass, each commit's figures made here: a GROUP BY with
 * a sub-query per commit for its machines cost more than the rest of a nightly pass. */
static ssize_t commits_query(struct results_index *ix, const char *job, const char *commit,
			     struct index_commit **out)
{
	sqlite3_stmt *st;
	struct index_commit *v = NULL, *c = NULL;
	size_t n = 0, cap = 0, nm = 0, mcap = 0;
	char **mach = NULL;
	int64_t cur_job = 0;
	int rc;

	*out = NULL;
	if (query(ix, &st,
		  "SELECT r.job_id, j.key, r.commit_label, r.started, r.ok, r.machine FROM runs r"
		  " JOIN jobs j ON j.id = r.job_id WHERE (?1 IS NULL OR j.key = ?1)"
		  " AND (?2 IS NULL OR r.commit_label = ?2) ORDER BY r.job_id, r.commit_label"))
		return -1;
	if (job)
		sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	if (commit)
		sqlite3_bind_text(st, 2, commit, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t jid = sqlite3_column_int64(st, 0), started = sqlite3_column_int64(st, 3);
		const char *label = (const char *)sqlite3_column_text(st, 2);
		const char *m = (const char *)sqlite3_column_text(st, 5);

		if (!label)
			label = "";
		if (!c || jid != cur_job || strcmp(c->commit, label)) {
			if (c && !(c->machine = machines_text(mach, nm)))
				goto nomem;
			for (size_t i = 0; i < nm; i++)
				free(mach[i]);
			nm = 0;
			if (n == cap) {
				struct index_commit *nv =
				    realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

				if (!nv)
					goto nomem;
				v = nv;
			}
			c = &v[n++];
			memset(c, 0, sizeof(*c));
			cur_job = jid;
			c->job_key = col_text(st, 1);
			c->commit = strdup(label);
			c->first_started = c->last_started = started;
			if (!c->job_key || !c->commit ||
			    asprintf(&c->dir, "%s/%s/%s", ix->root, c->job_key, c->commit) < 0) {
				c->dir = NULL;
				goto nomem;
			}
		}
		if (started < c->first_started)
			c->first_started = started;
		if (started > c->last_started)
			c->last_started = started;
		c->runs++;
		c->failed += sqlite3_column_int(st, 4) == 0;
		if (m) {
			if (nm == mcap) {
				char **nv = realloc(mach, (mcap = mcap ? 2 * mcap : 16) * sizeof(*nv));

				if (!nv)
					goto nomem;
				mach = nv;
			}
			if (!(mach[nm] = strdup(m)))
				goto nomem;
			nm++;
		}
	}
	if (rc != SQLITE_DONE) {
		for (size_t i = 0; i < nm; i++)
			free(mach[i]);
		free(mach);
		index_commits_free(v, n);
		return query_failed(ix, st, rc);
	}
	if (c && !(c->machine = machines_text(mach, nm)))
		goto nomem;
	for (size_t i = 0; i < nm; i++)
		free(mach[i]);
	free(mach);
	sqlite3_finalize(st);
	if (n > 1)
		qsort(v, n, sizeof(*v), by_commit_time);
	*out = v;
	return (ssize_t)n;
nomem:
	for (size_t i = 0; i < nm; i++)
		free(mach[i]);
	free(mach);
	index_commits_free(v, n);
	return query_failed(ix, st, SQLITE_NOMEM);
}

void index_commits_free(struct index_commit *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].job_key);
		free(c[i].commit);
		free(c[i].machine);
		free(c[i].dir);
	}
	free(c);
}

/* The values of a stat kept in rows (job_stats.in_rows). */
static ssize_t rows_values(struct results_index *ix, int64_t job, int64_t stat,
			   struct index_value **out)
{
	struct value_row {
		size_t label; /* offset in the labels */
		struct index_value v;
	} *rows = NULL;
	char *labels = NULL, *last = NULL;
	size_t n = 0, cap = 0, llen = 0, lcap = 0;
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	if (query(ix, &st,
		  "SELECT r.commit_label, r.run, r.started, r.ok, v.value FROM vals v"
		  " JOIN runs r ON r.id = v.run_id WHERE v.job_id = ?1 AND v.stat_id = ?2"
		  " ORDER BY r.started, r.commit_label, r.run"))
		return -1;
	sqlite3_bind_int64(st, 1, job);
	sqlite3_bind_int64(st, 2, stat);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *label = (const char *)sqlite3_column_text(st, 0);
		size_t ll = strlen(label);

		if (n == cap) {
			struct value_row *nr =
			    realloc(rows, (cap = cap ? cap * 2 : 64) * sizeof(*nr));

			if (!nr)
				goto nomem;
			rows = nr;
		}
		/* Runs of one commit come together mostly: their label is kept once. */
		if (!last || strcmp(last, label)) {
			if (llen + ll + 1 > lcap) {
				char *nl;

				while (llen + ll + 1 > lcap)
					lcap = lcap ? lcap * 2 : 256;
				nl = realloc(labels, lcap);
				if (!nl)
					goto nomem;
				labels = nl;
			}
			memcpy(labels + llen, label, ll + 1);
			last = labels + llen;
			llen += ll + 1;
		}
		rows[n].label = (size_t)(last - labels);
		rows[n].v.run = (unsigned)sqlite3_column_int64(st, 1);
		rows[n].v.started = sqlite3_column_int64(st, 2);
		rows[n].v.ok = sqlite3_column_int(st, 3) != 0;
		rows[n].v.value =
		    sqlite3_column_type(st, 4) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 4);
		n++;
	}
	if (rc != SQLITE_DONE) {
		free(rows);
		free(labels);
		return query_failed(ix, st, rc);
	}
	sqlite3_finalize(st);
	if (!n) {
		/* Nothing to hand over: no allocation for the caller to free. */
		free(rows);
		free(labels);
		return 0;
	}
	/* One allocation: the values, then their labels. */
	struct index_value *v = malloc(n * sizeof(*v) + llen + 1);

	if (!v) {
		free(rows);
		free(labels);
		errno = ENOMEM;
		return -1;
	}
	char *lp = (char *)(v + n);

	if (llen)
		memcpy(lp, labels, llen);
	for (size_t i = 0; i < n; i++) {
		v[i] = rows[i].v;
		v[i].commit = lp + rows[i].label;
	}
	free(rows);
	free(labels);
	*out = v;
	return (ssize_t)n;
nomem:
	free(rows);
	free(labels);
	return query_failed(ix, st, SQLITE_NOMEM);
}

/* The job's values from its runs' blobs into ix->vals (kept until another job's are asked):
 * of every stat, or only of stat only (>= 0).  0, or -1 with errno. */
static int load_job_vals(struct results_index *ix, int64_t job, int64_t only)
{
	struct job_vals *j;
	sqlite3_stmt *st = NULL;
	size_t cap = 0, llen = 0, lcap = 0, scap = 0, nmap = 0;
	int32_t *map = NULL; /* stat id -> column, when the ids are small */
	int rc;

	if (ix->vals && ix->vals->job == job && (ix->vals->only < 0 || ix->vals->only == only))
		return 0;
	job_vals_free(ix->vals);
	ix->vals = j = calloc(1, sizeof(*j));
	if (!j)
		goto nomem;
	j->job = job;
	j->only = only;
	if (query(ix, &st,
		  "SELECT commit_label, run, started, ok, id FROM runs WHERE job_id = ?"
		  " ORDER BY started, commit_label, run"))
		goto fail;
	sqlite3_bind_int64(st, 1, job);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *label = (const char *)sqlite3_column_text(st, 0);
		size_t ll = label ? strlen(label) : 0;
		struct job_run *r;

		if (j->nruns == cap) {
			r = realloc(j->run, (cap = cap ? 2 * cap : 256) * sizeof(*r));
			if (!r)
				goto nomem_q;
			j->run = r;
		}
		r = &j->run[j->nruns++];
		if (!label)
			label = "";
		/* Runs of one commit come together mostly: their label is kept once. */
		if (j->nruns == 1 || strcmp(j->labels + j->run[j->nruns - 2].label, label)) {
			if (llen + ll + 1 > lcap) {
				char *nl;

				while (llen + ll + 1 > lcap)
					lcap = lcap ? lcap * 2 : 4096;
				nl = realloc(j->labels, lcap);
				if (!nl)
					goto nomem_q;
				j->labels = nl;
			}
			memcpy(j->labels + llen, label, ll + 1);
			r->label = llen;
			llen += ll + 1;
		} else {
			r->label = j->run[j->nruns - 2].label;
		}
		r->run = (unsigned)sqlite3_column_int64(st, 1);
		r->started = sqlite3_column_int64(st, 2);
		r->ok = sqlite3_column_int(st, 3) != 0;
		r->id = sqlite3_column_int64(st, 4);
	}
	if (rc != SQLITE_DONE)
		goto fail_q;
	sqlite3_finalize(st);
	if (query(ix, &st,
		  "SELECT stat_id FROM job_stats WHERE job_id = ?1 AND (?2 < 0 OR stat_id = ?2)"
		  " ORDER BY stat_id"))
		goto fail;
	sqlite3_bind_int64(st, 1, job);
	sqlite3_bind_int64(st, 2, only);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (j->nstats == scap) {
			int64_t *v = realloc(j->stat, (scap = scap ? 2 * scap : 256) * sizeof(*v));

			if (!v)
				goto nomem_q;
			j->stat = v;
		}
		j->stat[j->nstats++] = sqlite3_column_int64(st, 0);
	}
	if (rc != SQLITE_DONE)
		goto fail_q;
	sqlite3_finalize(st);
	st = NULL;
	if (j->nstats && j->nruns > SIZE_MAX / sizeof(*j->bits) / j->nstats)
		goto nomem;
	size_t cells = j->nruns * j->nstats;

	j->bits = malloc((cells ? cells : 1) * sizeof(*j->bits));
	if (!j->bits)
		goto nomem;
	for (size_t i = 0; i < cells; i++)
		j->bits[i] = VAL_ABSENT;
	if (j->nstats && j->stat[0] >= 0 && j->stat[j->nstats - 1] < ((int64_t)1 << 22)) {
		nmap = (size_t)j->stat[j->nstats - 1] + 1;
		map = malloc(nmap * sizeof(*map));
		if (!map)
			goto nomem;
		for (size_t i = 0; i < nmap; i++)
			map[i] = -1;
		for (size_t i = 0; i < j->nstats; i++)
			map[j->stat[i]] = (int32_t)i;
	}
	/* Each run's blob by its id (a join in this order would sort the blobs themselves). */
	if (query(ix, &st, "SELECT vals FROM run_vals WHERE run_id = ?"))
		goto fail;
	for (size_t r = 0; r < j->nruns; r++) {
		const unsigned char *b;
		size_t nb;
		uint64_t *row = j->bits + r * j->nstats;

		sqlite3_bind_int64(st, 1, j->run[r].id);
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE) { /* no blob (an index not of this writer): no values */
			sqlite3_reset(st);
			continue;
		}
		if (rc != SQLITE_ROW)
			goto fail_q;
		b = sqlite3_column_blob(st, 0);
		nb = (size_t)sqlite3_column_bytes(st, 0) / RUN_VAL;
		for (size_t i = 0; b && i < nb; i++) {
			int64_t id = (int64_t)get_le(b + i * RUN_VAL, 4);
			ssize_t col = -1;

			if (map) {
				col = (size_t)id < nmap ? map[id] : -1;
			} else {
				size_t lo = 0, hi = j->nstats;

				while (lo < hi) {
					size_t mid = (lo + hi) / 2;

					if (j->stat[mid] < id)
						lo = mid + 1;
					else
						hi = mid;
				}
				col = lo < j->nstats && j->stat[lo] == id ? (ssize_t)lo : -1;
			}
			if (col >= 0) /* the later of a name listed twice counts */
				row[col] = get_le(b + i * RUN_VAL + 4, 8);
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	free(map);
	return 0;
nomem_q:
	sqlite3_finalize(st);
nomem:
	free(map);
	job_vals_free(ix->vals);
	ix->vals = NULL;
	errno = ENOMEM;
	return -1;
fail_q:
	query_failed(ix, st, rc);
	st = NULL;
fail:
	free(map);
	job_vals_free(ix->vals);
	ix->vals = NULL;
	if (errno != ENOMEM)
		errno = EIO;
	return -1;
}

/* The values of a stat not kept in rows, from the job's blobs. */
static ssize_t blob_values(struct results_index *ix, int64_t job, int64_t stat,
			   struct index_value **out)
{
	const struct job_vals *j;
	size_t lo = 0, hi, n = 0, llen = 0, col;
	ssize_t last = -1;

	*out = NULL;
	/* A job's blobs are read for one stat first (a trend of it): for all its stats when a
	 * second is asked (html, nightly --stats all), once. */
	if (load_job_vals(ix, job, ix->vals_asked == job ? -1 : stat))
		return -1;
	ix->vals_asked = job;
	j = ix->vals;
	for (hi = j->nstats; lo < hi;) {
		size_t mid = (lo + hi) / 2;

		if (j->stat[mid] < stat)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == j->nstats || j->stat[lo] != stat)
		return 0;
	col = lo;
	for (size_t r = 0; r < j->nruns; r++)
		if (j->bits[r * j->nstats + col] != VAL_ABSENT) {
			n++;
			if ((ssize_t)j->run[r].label != last)
				llen += strlen(j->labels + j->run[r].label) + 1;
			last = (ssize_t)j->run[r].label;
		}
	if (!n) /* nothing to hand over: no allocation for the caller to free */
		return 0;
	/* One allocation: the values, then their labels, as rows_values makes it. */
	struct index_value *v = malloc(n * sizeof(*v) + llen + 1);
	char *lp, *cur = NULL;
	size_t k = 0;

	if (!v) {
		errno = ENOMEM;
		return -1;
	}
	lp = (char *)(v + n);
	last = -1;
	for (size_t r = 0; r < j->nruns; r++) {
		uint64_t bits = j->bits[r * j->nstats + col];

		if (bits == VAL_ABSENT)
			continue;
		if ((ssize_t)j->run[r].label != last) {
			size_t ll = strlen(j->labels + j->run[r].label) + 1;

			memcpy(lp, j->labels + j->run[r].label, ll);
			cur = lp;
			lp += ll;
			last = (ssize_t)j->run[r].label;
		}
		v[k].commit = cur;
		v[k].run = j->run[r].run;
		v[k].started = j->run[r].started;
		v[k].ok = j->run[r].ok;
		memcpy(&v[k].value, &bits, sizeof(double));
		k++;
	}
	*out = v;
	return (ssize_t)n;
}

ssize_t index_stat_values(struct results_index *ix, const char *job, const char *stat,
			  struct index_value **out)
{
	sqlite3_stmt *st;
	int64_t job_id, stat_id;
	bool rows;
	int rc;

	*out = NULL;
	if (query(ix, &st,
		  "SELECT job_id, stat_id, in_rows FROM job_stats WHERE job_id = (SELECT id FROM"
		  " jobs WHERE key = ?1) AND stat_id = (SELECT id FROM stats WHERE name = ?2)"))
		return -1;
	sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, stat, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? (sqlite3_finalize(st), 0) : query_failed(ix, st, rc);
	job_id = sqlite3_column_int64(st, 0);
	stat_id = sqlite3_column_int64(st, 1);
	rows = sqlite3_column_int64(st, 2) != 0;
	sqlite3_finalize(st);
	return rows ? rows_values(ix, job_id, stat_id, out) : blob_values(ix, job_id, stat_id, out);
}

void index_values_free(struct index_value *v, size_t n)
{
	(void)n;
	free(v);
}

ssize_t index_stat_names(struct results_index *ix, const char *job, char ***out)
{
	sqlite3_stmt *st;
	char **v = NULL;
	size_t n = 0;
	int rc;

	*out = NULL;
	if (query(ix, &st,
		  "SELECT s.name FROM job_stats js JOIN stats s ON s.id = js.stat_id"
		  " WHERE js.job_id = (SELECT id FROM jobs WHERE key = ?1) ORDER BY s.name"))
		return -1;
	sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char **nv = realloc(v, (n + 1) * sizeof(*v));

		if (!nv || !(nv[n] = col_text(st, 0))) {
			v = nv ? nv : v;
			rc = SQLITE_NOMEM;
			break;
		}
		v = nv;
		n++;
	}
	if (rc != SQLITE_DONE) {
		for (size_t i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return query_failed(ix, st, rc);
	}
	sqlite3_finalize(st);
	*out = v;
	return (ssize_t)n;
}
