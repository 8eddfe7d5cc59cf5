/* One way to run git: `git -C REPO ARGS...` through run_command (its own process group, our
 * SIGINT/SIGTERM passed on), with no cap on the arguments, its output captured whole, and one
 * form of message when it fails.  bisect, nightly, the series of a branch and the robot mail
 * all run git through here.
 *
 *	char *out, err[512];
 *	const char *args[] = {"rev-list", "--first-parent", branch, "--", NULL};
 *
 *	if (git_run(repo, args, 0, &out, err, sizeof(err)) != 0)
 *		fail(err);	// "git -C REPO rev-list --first-parent: <git's first line>"
 *	free(out);
 */
#ifndef SCALEBENCH_GIT_H
#define SCALEBENCH_GIT_H

#include <stdbool.h>
#include <stddef.h>

enum git_flags {
	GIT_STDERR_TO_OUT = 1 << 0, /* git's stderr into *out too (2>&1): bisect reads both */
	GIT_NO_FORWARD = 1 << 1,    /* our SIGINT/SIGTERM not passed on: a cleanup that must end */
};

/* Run git -C repo with args (NULL-terminated).  git's exit status (0 success), or -1 when git
 * could not be started or watched, or memory ran out.  With out, *out is what git printed
 * (malloc'd and NUL-terminated, "" when nothing; the caller frees it) whatever its status, or
 * NULL on -1.  When the status is not 0, err (errlen bytes, may be 0) says
 * "git -C REPO ARG1 ARG2 failed: " and the first line of git's stderr. */
int git_run(const char *repo, const char *const *args, unsigned flags, char **out, char *err,
	    size_t errlen);

/* The first line of git's output into line (len bytes): 0, or -1 with line "" when git failed
 * or printed nothing. */
int git_line(const char *repo, const char *const *args, char *line, size_t len);

#define GIT_ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* An object name as this repository's hash writes it: 40 hex digits (SHA-1) or 64 (SHA-256). */
bool git_is_oid(const char *s);

/* The fewest hex digits git reads as an abbreviated object name (core.abbrev's minimum). */
#define GIT_MIN_ABBREV 4

/* Whether s could be an object name or the start of one: hex digits only (either case, as git
 * reads them), at least min of them and at most a SHA-256 name's 64. */
bool git_is_abbrev(const char *s, size_t min);

/* The full object name of the commit that rev names in repo (any revision: a sha or a prefix of
 * one, a tag, a branch, HEAD~2) into oid (len bytes, 65 hold any): 0, or -1 with oid "" when
 * git knows no such commit, or rev starts with '-' (git would read an option). */
int git_commit_oid(const char *repo, const char *rev, char *oid, size_t len);

#endif
