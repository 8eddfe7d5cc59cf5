/* scalebench submit: a job file's atomic jobs x repeats as one Slurm job array (runner/slurm.h
 * describes the submission directory). */
#include "slurm.h"
#include "job.h"
#include "../lib/errors.h"
#include "../lib/file.h"
#include "../lib/interrupt.h"
#include "../lib/jsonw.h"
#include "../lib/run_command.h"
#include "../lib/strvec.h"
#include "../lib/text.h"
#include "../store/store.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int slurm_word_check(const char *opt, const char *v, bool name)
{
	if (!v)
		return 0;
	if (!*v || (name && strlen(v) > 255)) {
		sb_error("--%s: expected %s", opt, name ? "1 to 255 characters" : "a non-empty value");
		return -1;
	}
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || (name && *p == ' ')) {
			char *q = sh_quote(v);

			if (*p == ' ')
				sb_error("--%s %s: expected a Slurm name or feature expression, without "
					 "spaces or control characters",
					 opt, q ? q : "");
			else
				sb_error("--%s %s: a control character (0x%02x); expected printable text",
					 opt, q ? q : "", *p);
			free(q);
			return -1;
		}
	}
	return 0;
}

/* path made absolute without requiring it to exist (realpath when it does). */
static char *absolute(const char *path)
{
	char cwd[PATH_MAX], *r = realpath(path, NULL), *out;

	if (r)
		return r;
	if (path[0] == '/')
		return strdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	return asprintf(&out, "%s/%s", cwd, path) < 0 ? NULL : out;
}

/* --runs-per-task, 1 when not given. */
static unsigned per_task(const struct slurm_submit_opts *o)
{
	return o->runs_per_task ? o->runs_per_task : 1;
}

/* The task order of slurm.h: task t is atomic job *j, its runs from repeat *r on, *runs of
 * them (--runs-per-task; the last task of a job makes what is left). */
static void task_of(const struct slurm_submit_opts *o, size_t t, size_t m, size_t *j, unsigned *r,
		    unsigned *runs)
{
	unsigned per = per_task(o);
	unsigned chunks = (o->repeat + per - 1) / per, c;

	if (o->interleave) {
		*j = t % m;
		c = (unsigned)(t / m);
	} else {
		*j = t / chunks;
		c = (unsigned)(t % chunks);
	}
	*r = c * per;
	*runs = o->repeat - *r < per ? o->repeat - *r : per;
}

/* Array tasks for m atomic jobs. */
static size_t tasks_for(const struct slurm_submit_opts *o, size_t m)
{
	unsigned per = per_task(o);

	return m * ((o->repeat + per - 1) / per);
}

/* Everything slurm_submit works with, built once. */
struct sub {
	const struct slurm_submit_opts *o;
	struct job_file job;
	size_t n_tasks;
	char *results, *job_path, *bin, **plugins, *dir, *name;
	char created[32];
	struct strvec sbatch;
};

static char *quoted_words(const char *const *v, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char *q = sh_quote(v[i]);

		fprintf(f, "%s%s", i ? " " : "", q ? q : "''");
		free(q);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* path as a part of an sbatch filename pattern (--output): each '%' as "%%", which sbatch
 * reads back as one (a results root "res%a" would otherwise become the task id).  malloc'd,
 * NULL when memory runs out. */
static char *sbatch_pattern_path(const char *path)
{
	size_t n = strlen(path) + 1;
	char *out, *o;

	for (const char *p = path; *p; p++)
		n += *p == '%';
	if (!(out = malloc(n)))
		return NULL;
	o = out;
	for (const char *p = path; *p; p++) {
		*o++ = *p;
		if (*p == '%')
			*o++ = '%';
	}
	*o = '\0';
	return out;
}

static int build_sbatch(struct sub *s, const char *dir)
{
	const struct slurm_submit_opts *o = s->o;
	struct strvec *a = &s->sbatch;
	int rc = 0;

	rc |= strvec_pushf(a, "%s", o->sbatch ? o->sbatch : "sbatch");
	rc |= strvec_pushf(a, "--parsable");
	rc |= strvec_pushf(a, "--array=0-%zu", s->n_tasks - 1);
	rc |= strvec_pushf(a, "--exclusive");
	rc |= strvec_pushf(a, "--mem=0");
	rc |= strvec_pushf(a, "--job-name=scalebench-%s", s->job.name);
	char *pattern = sbatch_pattern_path(dir);

	rc |= !pattern || strvec_pushf(a, "--output=%s/out/%%a.out", pattern);
	free(pattern);
	rc |= strvec_pushf(a, "--chdir=%s", dir);
	if (o->partition)
		rc |= strvec_pushf(a, "--partition=%s", o->partition);
	if (o->constraint)
		rc |= strvec_pushf(a, "--constraint=%s", o->constraint);
	if (o->time_limit)
		rc |= strvec_pushf(a, "--time=%s", o->time_limit);
	for (size_t i = 0; i < o->n_sbatch_args; i++)
		rc |= strvec_pushf(a, "%s", o->sbatch_args[i]);
	rc |= strvec_pushf(a, "%s/job.sh", dir);
	return rc ? -1 : 0;
}

static unsigned task_runs(const struct sub *s, size_t t)
{
	size_t j;
	unsigned r, runs;

	task_of(s->o, t, s->job.n_atomic, &j, &r, &runs);
	return runs;
}

/* The job script: fixed text, every word from input through sh_quote. */
static char *job_script(const struct sub *s)
{
	const struct slurm_submit_opts *o = s->o;
	char *buf = NULL, *argv_text = quoted_words(s->sbatch.v, s->sbatch.n);
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char *q;

	if (!f || !argv_text) {
		if (f)
			fclose(f);
		free(buf);
		free(argv_text);
		return NULL;
	}
	/* Comments: a newline in a path would end the comment; job names and paths are
	 * quoted, and sh_quote keeps a newline inside its quotes, so it is replaced here. */
	fprintf(f, "#!/bin/sh\n# Written by scalebench submit at %s for the job file\n",
		s->created);
	q = sh_quote(s->job_path);
	for (char *p = q; p && *p; p++)
		if (*p == '\n')
			*p = '?';
	fprintf(f, "#   %s\n# submitted as\n#   ", q ? q : "");
	free(q);
	for (char *p = argv_text; *p; p++)
		fputc(*p == '\n' ? '?' : *p, f);
	fprintf(f, "\n# Array task I runs atomic job tasks/I.yaml into the results root (once, or\n"
		   "# its submission.json \"runs\" times, each run stored on its own) and records\n"
		   "# its end in done/I.\n\n");
	fprintf(f,
		"i=\"${SLURM_ARRAY_TASK_ID:-}\"\n"
		"case \"$i\" in\n"
		"'' | *[!0-9]*)\n"
		"\techo \"scalebench job script: SLURM_ARRAY_TASK_ID '$i' is not a task "
		"number\" >&2\n"
		"\texit 2\n"
		"\t;;\n"
		"esac\n"
		"if [ \"$i\" -ge %zu ]; then\n"
		"\techo \"scalebench job script: task $i of %zu\" >&2\n"
		"\texit 2\n"
		"fi\n",
		s->n_tasks, s->n_tasks);
	q = sh_quote(s->dir);
	fprintf(f, "dir=%s\n", q ? q : "''");
	free(q);
	fprintf(f, "runs=%u\n", task_runs(s, 0));
	if (s->o->runs_per_task > 1 && s->o->repeat % s->o->runs_per_task) {
		/* Each job's last task makes what is left. */
		fprintf(f, "case \"$i\" in\n");
		for (size_t t = 0, first = 1; t < s->n_tasks; t++)
			if (task_runs(s, t) != task_runs(s, 0)) {
				fprintf(f, "%s%zu", first ? "" : " | ", t);
				first = 0;
			}
		fprintf(f, ") runs=%u ;;\nesac\n", s->o->repeat % s->o->runs_per_task);
	}
	fprintf(f, "start=$(date +%%s)\n");
	q = sh_quote(s->bin);
	fprintf(f, "%s run \"$dir/tasks/$i.yaml\"", q ? q : "''");
	free(q);
	q = sh_quote(s->results);
	fprintf(f, " --results %s", q ? q : "''");
	free(q);
	if (o->commit) {
		q = sh_quote(o->commit);
		fprintf(f, " --commit %s", q ? q : "''");
		free(q);
	}
	for (size_t i = 0; i < o->n_plugins; i++) {
		q = sh_quote(s->plugins[i]);
		fprintf(f, " --plugin %s", q ? q : "''");
		free(q);
	}
	if (o->no_monitors)
		fprintf(f, " --no-monitors");
	fprintf(f, " -r \"$runs\" -q\n"
		   "rc=$?\n"
		   "end=$(date +%%s)\n"
		   "printf 'exit=%%s node=%%s start=%%s end=%%s\\n' \"$rc\" \"$(hostname -s)\" "
		   "\"$start\" \"$end\" >\"$dir/done/.$i.tmp\" &&\n"
		   "\tmv -f \"$dir/done/.$i.tmp\" \"$dir/done/$i\"\n"
		   "exit \"$rc\"\n");
	free(argv_text);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int write_manifest(const struct sub *s, const char *id, const char *then_id)
{
	const struct slurm_submit_opts *o = s->o;
	char *buf = NULL, path[PATH_MAX], err[1024];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jsonw w;
	int rc;

	if (!f) {
		sb_error("out of memory");
		return -1;
	}
	jsonw_init(&w, f, 2);
	jsonw_begin_object(&w);
	jsonw_key(&w, "version");
	jsonw_uint(&w, 1);
	jsonw_key_string_or_null(&w, "name", s->name);
	jsonw_key_string_or_null(&w, "id", id);
	jsonw_key_string_or_null(&w, "created", s->created);
	jsonw_key_string_or_null(&w, "job", s->job_path);
	jsonw_key_string_or_null(&w, "commit", o->commit);
	jsonw_key_string_or_null(&w, "results", s->results);
	jsonw_key(&w, "repeat");
	jsonw_uint(&w, o->repeat);
	jsonw_key(&w, "interleave");
	jsonw_bool(&w, o->interleave);
	jsonw_key(&w, "runs_per_task");
	jsonw_uint(&w, per_task(o));
	jsonw_key_string_or_null(&w, "scalebench", s->bin);
	jsonw_key(&w, "plugins");
	jsonw_begin_array(&w);
	for (size_t i = 0; i < o->n_plugins; i++)
		jsonw_string(&w, s->plugins[i]);
	jsonw_end_array(&w);
	jsonw_key_string_or_null(&w, "partition", o->partition);
	jsonw_key_string_or_null(&w, "constraint", o->constraint);
	jsonw_key_string_or_null(&w, "time", o->time_limit);
	jsonw_key(&w, "sbatch");
	jsonw_begin_array(&w);
	for (size_t i = 0; i < s->sbatch.n; i++)
		jsonw_string(&w, s->sbatch.v[i]);
	jsonw_end_array(&w);
	jsonw_key(&w, "then");
	if (o->then) {
		jsonw_begin_object(&w);
		jsonw_key_string_or_null(&w, "command", o->then);
		jsonw_key_string_or_null(&w, "id", then_id && *then_id ? then_id : NULL);
		jsonw_end_object(&w);
	} else {
		jsonw_null(&w);
	}
	jsonw_key(&w, "tasks");
	jsonw_begin_array(&w);
	for (size_t t = 0; t < s->n_tasks; t++) {
		size_t j;
		unsigned r, runs;
		char atomic[64];

		task_of(o, t, s->job.n_atomic, &j, &r, &runs);
		snprintf(atomic, sizeof(atomic), "tasks/%zu.yaml", t);
		jsonw_begin_object(&w);
		jsonw_key(&w, "task");
		jsonw_uint(&w, t);
		jsonw_key_string_or_null(&w, "atomic", atomic);
		jsonw_key_string_or_null(&w, "name", s->job.atomic[j].name);
		jsonw_key_string_or_null(&w, "testcase", s->job.atomic[j].test);
		jsonw_key_string_or_null(&w, "path_params", s->job.atomic[j].path_params);
		jsonw_key(&w, "repeat");
		jsonw_uint(&w, r);
		jsonw_key(&w, "runs");
		jsonw_uint(&w, runs);
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_end_object(&w);
	rc = jsonw_finish(&w);
	fputc('\n', f);
	if (fclose(f) || rc) {
		free(buf);
		sb_error("out of memory");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/submission.json", s->dir);
	rc = file_write(path, buf, len, err, sizeof(err));
	free(buf);
	if (rc)
		sb_error("%s", err);
	return rc;
}

static int write_text(const char *dir, const char *name, const char *text, mode_t mode)
{
	char path[PATH_MAX], err[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (file_write(path, text, strlen(text), err, sizeof(err))) {
		sb_error("%s", err);
		return -1;
	}
	if (mode && chmod(path, mode)) {
		sb_error("cannot chmod '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The submission directory with tasks/, out/ and done/, under a fresh name. */
static int make_dir(struct sub *s)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char base[PATH_MAX], stamp[40];
	struct timespec ts;
	time_t now;
	struct tm tm;
	unsigned seed;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec;
	if (fd < 0 || read(fd, &seed, sizeof(seed)) != (ssize_t)sizeof(seed))
		seed = (unsigned)now ^ (unsigned)getpid();
	if (fd >= 0)
		close(fd);
	gmtime_r(&now, &tm);
	/* Milliseconds: names sort as the submissions were made, even within one second. */
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	snprintf(stamp + strlen(stamp), sizeof(stamp) - strlen(stamp), ".%03ld",
		 ts.tv_nsec / 1000000);
	snprintf(base, sizeof(base), "%s/%s", s->results, SLURM_SUBDIR);
	if (store_mkdirs(base)) {
		sb_error("cannot create '%s': %s", base, strerror(errno));
		return -1;
	}
	for (int attempt = 0; attempt < 100; attempt++) {
		char name[64], rnd[7];

		for (int i = 0; i < 6; i++)
			rnd[i] = alnum[rand_r(&seed) % (sizeof(alnum) - 1)];
		rnd[6] = '\0';
		snprintf(name, sizeof(name), "%s-%s", stamp, rnd);
		free(s->dir);
		if (asprintf(&s->dir, "%s/%s", base, name) < 0) {
			s->dir = NULL;
			sb_error("out of memory");
			return -1;
		}
		if (mkdir(s->dir, 0777) == 0) {
			s->name = strdup(name);
			break;
		}
		if (errno != EEXIST) {
			sb_error("cannot create '%s': %s", s->dir, strerror(errno));
			free(s->dir);
			s->dir = NULL;
			return -1;
		}
	}
	if (!s->name) {
		sb_error("cannot create a submission directory in '%s'", base);
		free(s->dir);
		s->dir = NULL;
		return -1;
	}
	for (size_t i = 0; i < 3; i++) {
		static const char *const sub[] = {"tasks", "out", "done"};
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/%s", s->dir, sub[i]);
		if (mkdir(p, 0777)) {
			sb_error("cannot create '%s': %s", p, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int write_tasks(const struct sub *s)
{
	for (size_t t = 0; t < s->n_tasks; t++) {
		char *buf = NULL, name[64];
		size_t len = 0, j;
		unsigned r, runs;
		FILE *f = open_memstream(&buf, &len);
		int rc;

		if (!f) {
			sb_error("out of memory");
			return -1;
		}
		task_of(s->o, t, s->job.n_atomic, &j, &r, &runs);
		rc = job_write_atomic(&s->job, &s->job.atomic[j], f);
		if (fclose(f) || rc) {
			free(buf);
			sb_error("cannot write atomic job %s", s->job.atomic[j].name);
			return -1;
		}
		snprintf(name, sizeof(name), "tasks/%zu.yaml", t);
		rc = write_text(s->dir, name, buf, 0);
		free(buf);
		if (rc)
			return -1;
	}
	return 0;
}

/* Run an sbatch argv; the job id (before any ";cluster") in id, or -1 after sbatch's own
 * words. */
static int run_sbatch(const char *const *argv, char *id, size_t idlen)
{
	struct child_process c = {.argv = argv, .out = RUN_OUT_CAPTURE, .err = RUN_OUT_CAPTURE};
	char err[1024];
	int rc = -1;

	if (child_run(&c, err, sizeof(err))) {
		sb_error("%s", err);
		goto out;
	}
	if (c.exit_code != 0) {
		const char *msg = c.err_text.p && *c.err_text.p ? c.err_text.p : c.out_text.p;
		size_t n = msg ? strlen(msg) : 0;

		while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
			n--;
		if (c.exit_code < 0)
			sb_error("sbatch was ended by signal %d", c.term_signal);
		else
			sb_error("sbatch refused the job (exit %d): %.*s", c.exit_code, (int)n,
				 msg ? msg : "");
		goto out;
	}
	{
		const char *p = c.out_text.p ? c.out_text.p : "";
		size_t n = strspn(p, "0123456789");

		if (!n || n >= idlen || (p[n] && p[n] != ';' && p[n] != '\n')) {
			sb_error("sbatch answered '%.60s'; expected a job id (--parsable)", p);
			goto out;
		}
		memcpy(id, p, n);
		id[n] = '\0';
	}
	rc = 0;
out:
	child_release(&c);
	return rc;
}

static int submit_then(struct sub *s, const char *id, char *then_id, size_t len)
{
	const struct slurm_submit_opts *o = s->o;
	struct strvec a = {0};
	char *script = NULL, *pattern = NULL, *q = sh_quote(s->results);
	int rc = -1;

	if (!q || asprintf(&script,
			   "#!/bin/sh\n# Written by scalebench submit at %s: the --then command, "
			   "run by /bin/sh in the results root once job array %s has ended.\n"
			   "cd %s || exit 2\n%s\n",
			   s->created, id, q, o->then) < 0) {
		script = NULL;
		sb_error("out of memory");
		goto out;
	}
	if (write_text(s->dir, "then.sh", script, 0755))
		goto out;
	pattern = sbatch_pattern_path(s->dir);
	if (!pattern || strvec_pushf(&a, "%s", o->sbatch ? o->sbatch : "sbatch") ||
	    strvec_pushf(&a, "--parsable") || strvec_pushf(&a, "--dependency=afterany:%s", id) ||
	    strvec_pushf(&a, "--job-name=scalebench-then") ||
	    strvec_pushf(&a, "--output=%s/out/then.out", pattern) ||
	    strvec_pushf(&a, "--chdir=%s", s->dir) ||
	    (o->partition && strvec_pushf(&a, "--partition=%s", o->partition)) ||
	    strvec_pushf(&a, "%s/then.sh", s->dir)) {
		sb_error("out of memory");
		goto out;
	}
	rc = run_sbatch(a.v, then_id, len);
out:
	strvec_clear(&a);
	free(pattern);
	free(script);
	free(q);
	return rc;
}

static int check_opts(const struct slurm_submit_opts *o)
{
	if (o->repeat < 1) {
		sb_error("--repeat %u: expected at least 1", o->repeat);
		return -1;
	}
	if (o->commit && !*o->commit) {
		sb_error("--commit: expected a non-empty label");
		return -1;
	}
	if (slurm_word_check("partition", o->partition, true) ||
	    slurm_word_check("constraint", o->constraint, true) ||
	    slurm_word_check("time", o->time_limit, false))
		return -1;
	for (size_t i = 0; i < o->n_sbatch_args; i++)
		if (slurm_word_check("sbatch-arg", o->sbatch_args[i], false))
			return -1;
	if (o->then && (!*o->then || strchr(o->then, '\n') || strchr(o->then, '\r'))) {
		sb_error("--then: expected a non-empty one-line shell command");
		return -1;
	}
	if (o->bin && !*o->bin) {
		sb_error("--bin: expected the path of the nodes' scalebench");
		return -1;
	}
	return 0;
}

/* The command line's "KEY=VALUE" overrides as job_override entries pointing into them. */
static int load_job(struct sub *s)
{
	const struct slurm_submit_opts *o = s->o;
	struct job_override *ov = calloc(o->n_overrides + 1, sizeof(*ov));
	char **keys = calloc(o->n_overrides + 1, sizeof(*keys));
	char err[1024];
	int rc = -1;

	if (!ov || !keys) {
		sb_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < o->n_overrides; i++) {
		const char *eq = strchr(o->overrides[i], '=');

		if (!eq || eq == o->overrides[i]) {
			sb_error("--set '%s': expected KEY=VALUE", o->overrides[i]);
			goto out;
		}
		keys[i] = strndup(o->overrides[i], (size_t)(eq - o->overrides[i]));
		if (!keys[i]) {
			sb_error("out of memory");
			goto out;
		}
		ov[i] = (struct job_override){.key = keys[i], .value = eq + 1};
	}
	if (job_load_overrides(o->job_path, (unsigned)sysconf(_SC_NPROCESSORS_ONLN), ov,
			       o->n_overrides, &s->job, err, sizeof(err))) {
		sb_error("%s", err);
		goto out;
	}
	for (size_t i = 0; i < s->job.n_notes; i++)
		sb_note("%s", s->job.notes[i]);
	rc = 0;
out:
	for (size_t i = 0; keys && i < o->n_overrides; i++)
		free(keys[i]);
	free(keys);
	free(ov);
	return rc;
}

static int resolve_paths(struct sub *s)
{
	const struct slurm_submit_opts *o = s->o;
	char exe[PATH_MAX];

	s->results = absolute(o->results_root);
	s->job_path = absolute(o->job_path);
	s->plugins = calloc(o->n_plugins + 1, sizeof(*s->plugins));
	if (!s->results || !s->job_path || !s->plugins) {
		sb_error("out of memory");
		return -1;
	}
	for (size_t i = 0; i < o->n_plugins; i++) {
		s->plugins[i] = realpath(o->plugins[i], NULL);
		if (!s->plugins[i]) {
			sb_error("--plugin '%s': %s", o->plugins[i], strerror(errno));
			return -1;
		}
	}
	if (o->bin) {
		s->bin = realpath(o->bin, NULL);
		if (!s->bin && o->bin[0] == '/')
			s->bin = strdup(o->bin); /* only on the nodes, maybe */
		if (!s->bin) {
			sb_error("--bin '%s': %s; expected an absolute path on the nodes or an "
				 "existing file",
				 o->bin, strerror(errno));
			return -1;
		}
	} else {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n <= 0) {
			sb_error("cannot find this scalebench (/proc/self/exe): %s; give --bin",
				 strerror(errno));
			return -1;
		}
		exe[n] = '\0';
		s->bin = strdup(exe);
		if (!s->bin) {
			sb_error("out of memory");
			return -1;
		}
	}
	return 0;
}

static int results_writable(const char *root)
{
	char probe[PATH_MAX];

	if (store_mkdirs(root) ||
	    snprintf(probe, sizeof(probe), "%s/.probe-XXXXXX", root) >= (int)sizeof(probe) ||
	    !mkdtemp(probe) || rmdir(probe)) {
		sb_error("results root '%s' is not writable: %s; expected a writable directory "
			 "(--results)",
			 root, strerror(errno));
		return -1;
	}
	return 0;
}

static void dry_run_print(struct sub *s)
{
	char *text = quoted_words(s->sbatch.v, s->sbatch.n);

	for (size_t t = 0; t < s->n_tasks; t++) {
		size_t j;
		unsigned r, runs;

		task_of(s->o, t, s->job.n_atomic, &j, &r, &runs);
		if (runs > 1)
			printf("task %zu: %s (repeats %u-%u)\n", t,
			       text_safe(s->job.atomic[j].name), r, r + runs - 1);
		else
			printf("task %zu: %s (repeat %u)\n", t, text_safe(s->job.atomic[j].name),
			       r);
	}
	printf("%s\n", text ? text : "");
	free(text);
}

static void sub_free(struct sub *s)
{
	job_free(&s->job);
	free(s->results);
	free(s->job_path);
	free(s->bin);
	for (size_t i = 0; s->plugins && i < s->o->n_plugins; i++)
		free(s->plugins[i]);
	free(s->plugins);
	free(s->name);
	strvec_clear(&s->sbatch);
}

int slurm_submit(const struct slurm_submit_opts *o, struct slurm_submission *out)
{
	struct sub s = {.o = o};
	char link[PATH_MAX], *script = NULL;
	time_t now = time(NULL);
	struct tm tm;
	int rc = -1;
	bool keep = false;

	memset(out, 0, sizeof(*out));
	if (check_opts(o) || load_job(&s))
		goto out;
	if (!s.job.n_atomic) {
		sb_error("%s: no atomic job to submit", o->job_path);
		goto out;
	}
	if (resolve_paths(&s))
		goto out;
	gmtime_r(&now, &tm);
	strftime(s.created, sizeof(s.created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	s.n_tasks = tasks_for(o, s.job.n_atomic);
	out->n_tasks = s.n_tasks;
	if (o->dry_run) {
		/* The directory the sbatch argv would name, not made. */
		if (asprintf(&s.dir, "%s/%s/<NAME>", s.results, SLURM_SUBDIR) < 0 ||
		    build_sbatch(&s, s.dir)) {
			sb_error("out of memory");
			goto out;
		}
		dry_run_print(&s);
		free(s.dir);
		s.dir = NULL;
		rc = 0;
		goto out;
	}
	if (results_writable(s.results) || make_dir(&s))
		goto out;
	if (build_sbatch(&s, s.dir)) {
		sb_error("out of memory");
		goto out;
	}
	script = job_script(&s);
	if (!script) {
		sb_error("out of memory");
		goto out;
	}
	if (write_tasks(&s) || write_text(s.dir, "job.sh", script, 0755) ||
	    write_manifest(&s, NULL, NULL))
		goto out;
	/* Interrupted before Slurm was asked: the directory goes, nothing was submitted. */
	if (interrupt_caught) {
		sb_error("interrupted by signal %d; nothing submitted", (int)interrupt_caught);
		goto out;
	}
	if (run_sbatch(s.sbatch.v, out->id, sizeof(out->id)))
		goto out;
	keep = true;
	if (write_manifest(&s, out->id, NULL))
		goto out;
	snprintf(link, sizeof(link), "%s/%s/%s", s.results, SLURM_SUBDIR, out->id);
	if (symlink(s.name, link) && errno != EEXIST) {
		sb_error("cannot link '%s' to %s: %s", link, s.name, strerror(errno));
		goto out;
	}
	out->dir = s.dir;
	s.dir = NULL;
	rc = 0;
	if (o->then) {
		s.dir = out->dir;
		if (submit_then(&s, out->id, out->then_id, sizeof(out->then_id))) {
			out->then_id[0] = '\0';
			rc = 1;
		} else if (write_manifest(&s, out->id, out->then_id)) {
			rc = 1;
		}
		s.dir = NULL;
	}
out:
	if (rc < 0 && s.dir && !keep)
		if (file_remove_tree(s.dir))
			sb_error("cannot remove '%s': %s", s.dir, strerror(errno));
	if (rc < 0 && keep)
		out->dir = s.dir, s.dir = NULL; /* submitted: the caller reports it */
	free(s.dir);
	free(script);
	sub_free(&s);
	return rc;
}

void slurm_submission_free(struct slurm_submission *s)
{
	free(s->dir);
	s->dir = NULL;
}
