/* scalebench split: expand a job file into its atomic jobs, as LKP's split-job does. */
#include "builtin.h"
#include "../lib/outfile.h"
#include "../lib/xalloc.h"
#include "../runner/job.h"
#include "../testcases/registry.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct command_def split_command = {
    .name = "split",
    .args = "JOB.yaml",
    .summary = "Expand a job file into its atomic jobs, one per combination of its lists.",
    .details =
	"A job file is LKP-style YAML, expanded as lkp-tests' split-job does.  A list is a\n"
	"dimension where LKP expands one: a program's option (will-it-scale's test, mode,\n"
	"nr_task, runtime; cgroup2's memory.max...), a program (cpufreq_governor), kconfig,\n"
	"commit or rootfs; any other list is a value (perf-stat: {events: [a, b]} is one\n"
	"job counting both).  The atomic jobs are the cartesian product of the dimensions,\n"
	"at most 10000 for the whole file.  Of several YAML documents the first is a job\n"
	"and the header of the others; '<<: FILE' includes FILE's text in its place.  Each\n"
	"atomic job is named <job>-<path_params>, as LKP names it: <job> is the file name\n"
	"without .yaml, <path_params> the value of every option of the programs the job\n"
	"uses, sorted by key name and joined by '-' (process-100%-300s-page_fault3), then\n"
	"its commits and rootfs.\n"
	"\nWithout -o, each atomic job is printed as a '# <name>.yaml' line and its YAML,\n"
	"separated by '---'.  With -o, each is written to DIR/<name>.yaml and its path\n"
	"printed; the files are written all or none.  Splitting an atomic job file gives\n"
	"the same file back.\n"
	"\nKeys scalebench does not use (kconfig, rootfs, ...) are kept and noted on stderr.\n"
	"\nexit status: 0 done, 1 the files of -o could not be written, 2 bad usage, a bad job\n"
	"file (the message names the file, the line and the key) or standard output could not\n"
	"be written.\n",
};

/* mkdir -p, remembering what it created so a failed split can remove it again: everything
 * below the first directory it had to create was created too, so that one's length says all. */
struct made_dirs {
	char path[PATH_MAX];
	size_t first; /* the length of the first created prefix of path; 0: none created */
};

static int make_dirs(const char *dir, struct made_dirs *made, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	size_t len = strlen(dir);
	struct stat st;

	if (len == 0 || len >= sizeof(buf)) {
		snprintf(err, errlen, "output directory '%s': expected a usable path", dir);
		return -1;
	}
	memcpy(buf, dir, len + 1);
	for (char *p = buf + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) == 0) {
			if (!made->first) {
				made->first = (size_t)(p - buf);
				memcpy(made->path, dir, len + 1);
			}
		} else if (errno != EEXIST) {
			snprintf(err, errlen, "cannot create directory '%s': %s", buf,
				 strerror(errno));
			return -1;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "output directory '%s' is not a directory", dir);
		return -1;
	}
	return 0;
}

static void remove_made(struct made_dirs *made)
{
	char *p = made->path, *slash;
	size_t n = strlen(p);

	if (!made->first)
		return;
	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	/* From the deepest up to the first created, one component at a time. */
	while (!rmdir(p) && (slash = strrchr(p, '/')) && (size_t)(slash - p) >= made->first)
		*slash = '\0';
}

static int write_files(const struct job_file *job, const char *dir)
{
	struct outfile *of = xcalloc(job->n_atomic, sizeof(*of));
	struct made_dirs *made = xcalloc(1, sizeof(*made));
	size_t opened = 0, committed = 0;
	char err[4600];
	int ret = SB_EXIT_ERROR;

	if (make_dirs(dir, made, err, sizeof(err)))
		goto fail;
	/* Every file is opened before any is written, so an unwritable DIR leaves nothing. */
	for (; opened < job->n_atomic; opened++) {
		char path[PATH_MAX];

		if (snprintf(path, sizeof(path), "%s/%s.yaml", dir, job->atomic[opened].name) >=
		    (int)sizeof(path)) {
			snprintf(err, sizeof(err), "%s/%s.yaml: path too long", dir,
				 job->atomic[opened].name);
			goto fail;
		}
		if (outfile_open(&of[opened], path, err, sizeof(err)))
			goto fail;
	}
	ret = SB_EXIT_FAILED;
	for (size_t i = 0; i < job->n_atomic; i++) {
		if (job_write_atomic(job, &job->atomic[i], of[i].fp) || fflush(of[i].fp)) {
			snprintf(err, sizeof(err), "cannot write %s: %s", of[i].path,
				 strerror(errno ? errno : EIO));
			goto fail;
		}
	}
	for (; committed < job->n_atomic; committed++)
		if (outfile_commit(&of[committed], err, sizeof(err)))
			goto fail;
	for (size_t i = 0; i < job->n_atomic; i++)
		printf("%s\n", of[i].path);
	ret = SB_EXIT_OK;
	goto out;
fail:
	sb_error("%s", err);
	for (size_t i = committed; i < opened; i++)
		outfile_abort(&of[i]);
	/* A commit that failed half way: take back the files already renamed into place. */
	for (size_t i = 0; i < committed; i++)
		unlink(of[i].path);
	remove_made(made);
out:
	free(of);
	free(made);
	return ret;
}

/* A write error on stdout is said once, at exit (main). */
static int print_all(const struct job_file *job)
{
	for (size_t i = 0; i < job->n_atomic; i++) {
		if (i)
			fputs("---\n", stdout);
		printf("# %s.yaml\n", job->atomic[i].name);
		if (job_write_atomic(job, &job->atomic[i], stdout) && !ferror(stdout)) {
			sb_error("%s: cannot write it as YAML", job->atomic[i].name);
			return SB_EXIT_FAILED;
		}
	}
	return SB_EXIT_OK;
}

int cmd_split(int argc, char **argv)
{
	const char *out_dir = NULL, *job_path;
	const struct option_def opts[] = {
	    {OPT_STRING("output", 'o', &out_dir), .arg = "DIR",
	     .help = "write DIR/<name>.yaml per atomic job (DIR is created if needed)"},
	    {OPT_CALLBACK("plugin", 0, plugin_option, NULL), .arg = "FILE.so",
	     .help = "also accept the testcases of a plug-in (repeatable)"},
	    {OPT_END},
	};
	struct job_file job;
	char err[1024];
	long nr_online;
	int first, ret = options_parse(&split_command, opts, argc, argv, &first, NULL);

	if (ret >= 0)
		return ret;
	if (first >= argc) {
		sb_error("which job file? (see 'scalebench split --help')");
		return SB_EXIT_ERROR;
	}
	job_path = argv[first];
	if (first + 1 < argc) {
		sb_error("unexpected argument '%s'", argv[first + 1]);
		return SB_EXIT_ERROR;
	}
	nr_online = sysconf(_SC_NPROCESSORS_ONLN);
	if (job_load(job_path, nr_online > 0 ? (unsigned)nr_online : 1, &job, err, sizeof(err))) {
		sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	for (size_t i = 0; i < job.n_notes; i++)
		sb_note("%s", job.notes[i]);
	ret = out_dir ? write_files(&job, out_dir) : print_all(&job);
	job_free(&job);
	return ret;
}
