/* The results layout, LKP's: the one place that knows it.
 *
 *   <root>/<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>/<run>/
 *
 * A commit directory holds every run of one atomic job at one commit; a run directory is one
 * numbered run in it.  Everything else builds, parses or finds these paths through here. */
#ifndef SCALEBENCH_LAYOUT_H
#define SCALEBENCH_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The axes of a commit directory, in path order; with has_run, of one of its runs.  Built
 * from free-form values (each is escaped as store_component does); parsed, they are the path's
 * components as they are on disk. */
struct store_axes {
	const char *root;
	const char *testcase;
	const char *path_params;
	const char *tbox_group;
	const char *rootfs;
	const char *kconfig;
	const char *compiler;
	const char *commit;
	bool has_run;
	unsigned run;
	char *storage_; /* what store_parse allocated; store_axes_free releases it */
};

/* One path component from a free-form value: '/' and leading dots mapped to '_', nothing
 * empty, at most len - 1 bytes (a component holds NAME_MAX bytes at most). */
void store_component(const char *value, char *out, size_t len);

/* The commit directory of a (its run directory with has_run) into out.  Returns 0, or -1 when
 * it does not fit in len. */
int store_path(const struct store_axes *a, char *out, size_t len);

enum store_level { STORE_COMMIT_DIR, STORE_RUN_DIR };

/* Split path into the axes of a commit directory (STORE_COMMIT_DIR) or of a run directory
 * (STORE_RUN_DIR): its last seven (eight) components, the rest is the root.  Refuses, with
 * a message naming the path, what the layout cannot have made: too few components, a
 * component that is hidden ('.', '..', leading dot) or longer than NAME_MAX, a run that is
 * not a run number.  Only the path is read, not the filesystem.  Free with store_axes_free. */
int store_parse(const char *path, enum store_level level, struct store_axes *a, char *err,
		size_t errlen);
void store_axes_free(struct store_axes *a);

/* A run directory's name as its number: the plain decimal form store_commit gives ("0",
 * "12"; not "007", "+1", "1a", "" or anything beyond UINT_MAX).  0 when it is one. */
int store_run_number(const char *name, unsigned *run);

/* Every commit directory below root whose path_params and commit components are those of the
 * given values (NULL: any), sorted by path.  Returns how many (paths in *out, free each and
 * the array), or -1 with errno when memory runs out.  Unreadable directories are passed
 * over, as glob does. */
ssize_t store_find(const char *root, const char *path_params, const char *commit, char ***out);

/* The numbered runs of a commit directory, by number: paths in *out (free each and the
 * array).  Returns how many, or -1 with errno (the directory cannot be read, no memory). */
ssize_t store_list_runs(const char *commit_dir, char ***out);

#endif
