#include "run_write.h"
#include "families.h"
#include "matrix.h"
#include "run_read.h"
#include "store.h"

#include "../lib/errors.h"
#include "../lib/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

int store_run_begin(struct store_run *r, const char *commit_dir, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	if (path_fmt(r->commit_dir, sizeof(r->commit_dir), err, errlen, "%s", commit_dir))
		return -1;
	if (store_begin(commit_dir, r->dir, sizeof(r->dir), &r->owner_fd, err, errlen))
		return -1;
	r->writing = true;
	return 0;
}

static int run_file(const struct store_run *r, const char *name, char *path, size_t len, char *err,
		    size_t errlen)
{
	return path_fmt(path, len, err, errlen, "%s/%s", r->dir, name);
}

FILE *store_run_create(struct store_run *r, const char *name, char *err, size_t errlen)
{
	char path[PATH_MAX];
	FILE *fp;

	if (run_file(r, name, path, sizeof(path), err, errlen))
		return NULL;
	/* Each file of a run is made once, in a directory only we can write: exclusively, so
	 * nothing already there (a symlink least of all) is written through. */
	fp = fopen(path, "wex");
	if (!fp)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	return fp;
}

int store_run_close(struct store_run *r, FILE *fp, const char *name, char *err, size_t errlen)
{
	int e = 0;

	/* The errno of the call that failed, taken at once: what runs after it may change errno
	 * (a full disk was once reported as "Input/output error" here, 1 run in 84). */
	errno = 0;
	if (fflush(fp) || ferror(fp))
		e = errno ? errno : EIO;
	if (fclose(fp) && !e)
		e = errno ? errno : EIO;
	if (e) {
		snprintf(err, errlen, "cannot write %s/%s: %s", r->dir, name, strerror(e));
		return -1;
	}
	return 0;
}

/* Indented, keys sorted, 12 significant digits: what a person reads and diffs. */
static int write_json(struct store_run *r, const char *name, const json_t *v, char *err,
		      size_t errlen)
{
	char path[PATH_MAX];
	FILE *fp;
	int bad;

	if (run_file(r, name, path, sizeof(path), err, errlen))
		return -1;
	fp = fopen(path, "wex");
	if (!fp) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	errno = 0;
	bad = json_dumpf(v, fp, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12)) ||
	      fputc('\n', fp) == EOF;
	bad |= fflush(fp) || ferror(fp) || fsync(fileno(fp));
	if (fclose(fp) || bad) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

static int gz_chunk(const char *buf, size_t size, void *gz)
{
	return size && gzwrite(gz, buf, (unsigned)size) != (int)size ? -1 : 0;
}

/* The same, compact and gzip-compressed: what a monitor keeps in bulk (call chains). */
static int write_json_gz(struct store_run *r, const char *name, const json_t *v, char *err,
			 size_t errlen)
{
	char path[PATH_MAX];
	int fd, bad, zerr = Z_OK;
	gzFile gz;

	if (run_file(r, name, path, sizeof(path), err, errlen))
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	gz = fd >= 0 ? gzdopen(fd, "wb6") : NULL;
	if (!gz) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 strerror(fd < 0 ? errno : ENOMEM));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	errno = 0;
	bad = json_dump_callback(v, gz_chunk, gz, JSON_COMPACT | JSON_REAL_PRECISION(12)) ||
	      gzputc(gz, '\n') == -1 || gzflush(gz, Z_FINISH) != Z_OK;
	if (bad)
		gzerror(gz, &zerr);
	bad |= fsync(fd) != 0;
	bad |= gzclose(gz) != Z_OK;
	if (bad) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 zerr != Z_OK && zerr != Z_ERRNO ? "zlib error"
							 : strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

int store_run_write_raw(struct store_run *r, const char *monitor, bool compress,
			const json_t *samples, char *err, size_t errlen)
{
	char name[NAME_MAX + 1];

	if (snprintf(name, sizeof(name), "%s" STORE_RAW_SUFFIX "%s", monitor,
		     compress ? ".gz" : "") >=
	    (int)sizeof(name)) {
		snprintf(err, errlen, "monitor name '%s' too long for a file name", monitor);
		return -1;
	}
	return (compress ? write_json_gz : write_json)(r, name, samples, err, errlen);
}

static json_t *families_of(const json_t *stats, const char *suite, const json_t *failure_stats)
{
	size_t suite_len = strcspn(suite, ".");
	json_t *families = json_object(), *v;
	const char *name;
	char family[NAME_MAX + 1];
	size_t i;

	if (!families)
		return NULL;
	json_object_foreach ((json_t *)stats, name, v) {
		size_t n = strcspn(name, ".");
		const char *role;

		if (n >= sizeof(family))
			n = sizeof(family) - 1;
		memcpy(family, name, n);
		family[n] = '\0';
		if (family_is_failure(family))
			role = "failure";
		else if (n == suite_len && !strncmp(name, suite, n))
			role = "headline";
		else
			role = "monitor";
		if (!json_object_get(families, family) &&
		    json_object_set_new(families, family, json_string(role)))
			goto fail;
	}
	json_array_foreach (failure_stats, i, v) {
		const char *stat = json_string_value(v);
		size_t n = stat ? strcspn(stat, ".") : 0;

		/* Only families the stats hold: failure_stats names what a run's stats say. */
		if (!n || n >= sizeof(family))
			continue;
		memcpy(family, stat, n);
		family[n] = '\0';
		if (json_object_get(families, family) &&
		    json_object_set_new(families, family, json_string("failure")))
			goto fail;
	}
	return families;
fail:
	json_decref(families);
	return NULL;
}

int store_meta_declare(json_t *meta, const struct store_headline *h, const json_t *stats)
{
	json_t *families = families_of(stats, h->suite, json_object_get(meta, "failure_stats"));
	json_t *headline = json_pack("{s:s, s:s}", "stat", h->stat, "direction",
				     h->lower_is_better ? "lower" : "higher");

	if (!families || !headline || json_object_set_new(meta, "suite", json_string(h->suite))) {
		json_decref(families);
		json_decref(headline);
		return -1;
	}
	if (json_object_set_new(meta, "headline", headline) ||
	    json_object_set_new(meta, "families", families))
		return -1;
	return 0;
}

int store_run_finish(struct store_run *r, const json_t *meta, const json_t *stats, char *err,
		     size_t errlen)
{
	if (write_json(r, STORE_META_FILE, meta, err, errlen) ||
	    write_json(r, STORE_STATS_FILE, stats, err, errlen))
		return -1;
	if (store_commit(r->commit_dir, r->dir, &r->number, err, errlen))
		return -1;
	close(r->owner_fd);
	r->writing = false;
	/* Shorter than the temp name it replaces: it fits. */
	if (snprintf(r->dir, sizeof(r->dir), "%s/%u", r->commit_dir, r->number) < 0)
		r->dir[0] = '\0';
	/* The run is stored whatever becomes of LKP's view of it, which can be rebuilt. */
	if (store_matrix_write(r->commit_dir, err, errlen))
		sb_note("%s; 'scalebench lkp-matrix %s' rebuilds it", err, r->commit_dir);
	return 0;
}

void store_run_abort(struct store_run *r)
{
	if (!r->writing)
		return;
	store_abort(r->dir);
	close(r->owner_fd);
	r->writing = false;
}
