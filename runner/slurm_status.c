/* scalebench status / wait: what became of a submission's tasks.  The job script's done/<I>
 * records come first (they say what run returned, and they outlive Slurm's memory of the
 * job); squeue then says which of the others are pending or running; scontrol (and sacct when
 * accounting is on) how the rest ended. */
#include "slurm.h"
#include "slurm_parse.h"
#include "../lib/errors.h"
#include "../lib/text.h"
#include "../lib/file.h"
#include "../lib/interrupt.h"
#include "../lib/run_command.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SLURM_CMD_TIMEOUT_MS 60000
#define TAIL_LINES 10
#define TAIL_BYTES 16384

/* ---- parsers ---- */

static int parse_ll(const char *s, size_t n, long long *out)
{
	long long v = 0;

	if (n == 0 || n > 18)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

int slurm_parse_done(const char *text, struct slurm_done *d, char *err, size_t errlen)
{
	static const char *const keys[] = {"exit=", "node=", "start=", "end="};
	const char *p = text;
	long long v[4] = {0};

	memset(d, 0, sizeof(*d));
	for (int k = 0; k < 4; k++) {
		size_t kl = strlen(keys[k]), n;

		if (strncmp(p, keys[k], kl)) {
			snprintf(err, errlen, "expected \"%s\" at \"%.20s\" (a record is one line "
				 "\"exit=RC node=HOST start=EPOCH end=EPOCH\")", keys[k], p);
			goto fail;
		}
		p += kl;
		n = strcspn(p, " \n");
		if (k == 1) {
			for (size_t i = 0; i < n; i++)
				if (!isalnum((unsigned char)p[i]) && !strchr("-._", p[i]))
					n = 0;
			if (n == 0) {
				snprintf(err, errlen, "node: expected a host name");
				goto fail;
			}
			d->node = strndup(p, n);
			if (!d->node) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
		} else if (parse_ll(p, n, &v[k]) || (k == 0 && v[k] > 255)) {
			snprintf(err, errlen, "%.*s: expected %s", (int)(kl - 1), keys[k],
				 k == 0 ? "an exit status (0..255)" : "seconds since the epoch");
			goto fail;
		}
		p += n;
		if (k == 3 && !*p)
			break; /* the newline is optional */
		if (*p != (k == 3 ? '\n' : ' ')) {
			snprintf(err, errlen, "%s", k == 3 ? "expected the line to end after end="
						       : "expected one space between fields");
			goto fail;
		}
		p++;
	}
	if (*p) {
		snprintf(err, errlen, "expected one line, found more");
		goto fail;
	}
	if (v[3] < v[2]) {
		snprintf(err, errlen, "end= is before start=");
		goto fail;
	}
	d->exit_code = (int)v[0];
	d->start = v[2];
	d->end = v[3];
	return 0;
fail:
	slurm_done_free(d);
	return -1;
}

void slurm_done_free(struct slurm_done *d)
{
	free(d->node);
	d->node = NULL;
}

void slurm_reports_free(struct slurm_reports *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].state);
		free(r->v[i].node);
		free(r->v[i].reason);
	}
	free(r->v);
	free(r->command);
	memset(r, 0, sizeof(*r));
}

const struct slurm_report *slurm_reports_find(const struct slurm_reports *r, long task)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].task <= task && task <= r->v[i].task_last)
			return &r->v[i];
	return NULL;
}

static char *dup_field(const char *s, size_t n)
{
	return strndup(s, n);
}

/* Node and reason words that mean "none". */
static char *dup_unless_none(const char *s, size_t n)
{
	if (n == 0 || (n == 4 && !strncmp(s, "None", 4)) || (n == 6 && !strncmp(s, "(null)", 6)) ||
	    (n == 3 && !strncmp(s, "N/A", 3)))
		return NULL;
	return strndup(s, n);
}

/* One report per range of the array-task field ("3", "4-5", "[4-5%1]", "1,3-4", "N/A"),
 * the others copied.  0 or -1. */
static int add_reports(struct slurm_reports *r, const char *tasks, size_t tn, const char *state,
		       size_t sn, const char *node, size_t nn, const char *reason, size_t rn,
		       int exit_code, int exit_signal, char *err, size_t errlen)
{
	char *t = strndup(tasks, tn), *save = NULL, *item;
	int rc = -1;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	char *s = t;
	if (*s == '[')
		s++;
	s[strcspn(s, "]%")] = '\0';
	if (!strcmp(s, "N/A") || !*s) {
		s = NULL;
	}
	for (item = s ? strtok_r(s, ",", &save) : NULL;; item = strtok_r(NULL, ",", &save)) {
		long long lo = -1, hi = -1;

		if (s && !item)
			break;
		if (item) {
			const char *dash = strchr(item, '-');

			if (dash ? parse_ll(item, (size_t)(dash - item), &lo) ||
					   parse_ll(dash + 1, strlen(dash + 1), &hi) || hi < lo
				 : parse_ll(item, strlen(item), &lo)) {
				snprintf(err, errlen, "array task \"%.*s\": expected N, N-M or N/A",
					 (int)tn, tasks);
				goto out;
			}
			if (!dash)
				hi = lo;
		}
		{
			struct slurm_report *v = realloc(r->v, (r->n + 1) * sizeof(*v)), *e;

			if (!v) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			r->v = v;
			e = &v[r->n++];
			memset(e, 0, sizeof(*e));
			e->task = (long)lo;
			e->task_last = (long)hi;
			e->state = dup_field(state, sn);
			e->node = dup_unless_none(node, nn);
			e->reason = dup_unless_none(reason, rn);
			e->exit_code = exit_code;
			e->exit_signal = exit_signal;
			if (!e->state) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
		}
		if (!s)
			break;
	}
	rc = 0;
out:
	free(t);
	return rc;
}

/* One line of squeue's or sacct's --parsable2 output (len bytes, no newline) into its 4
 * '|'-separated fields: the last takes the rest of the line.  0, or -1 with fewer fields. */
static int split4(const char *line, size_t len, const char **f, size_t *fl)
{
	const char *p = line;

	for (int i = 0; i < 4; i++) {
		size_t rest = len - (size_t)(p - line);
		size_t n = i < 3 ? strcspn(p, "|\n") : rest;

		if (i < 3 && (n >= rest || p[n] != '|'))
			return -1;
		f[i] = p;
		fl[i] = n;
		p += n + 1;
	}
	return 0;
}

/* One line's four fields into reports: 0, or -1 with err (parse_lines adds the line). */
typedef int line_fn(const char **f, size_t *fl, struct slurm_reports *r, char *err,
		    size_t errlen);

/* Every non-empty line of a tool's TASK|STATE|NODE|... output through fn; on an error the
 * reports so far are freed and err names the tool and the line. */
static int parse_lines(const char *text, const char *tool, const char *fields, line_fn *fn,
		       struct slurm_reports *r, char *err, size_t errlen)
{
	const char *line = text;
	unsigned lineno = 0;

	memset(r, 0, sizeof(*r));
	while (*line) {
		size_t len = strcspn(line, "\n");
		const char *f[4];
		size_t fl[4];
		char e[160];

		lineno++;
		if (len && split4(line, len, f, fl)) {
			snprintf(err, errlen, "%s line %u: expected 4 fields %s", tool, lineno,
				 fields);
			slurm_reports_free(r);
			return -1;
		}
		if (len && fn(f, fl, r, e, sizeof(e))) {
			snprintf(err, errlen, "%s line %u: %s", tool, lineno, e);
			slurm_reports_free(r);
			return -1;
		}
		line += len;
		if (*line)
			line++;
	}
	return 0;
}

static int squeue_line(const char **f, size_t *fl, struct slurm_reports *r, char *err,
		       size_t errlen)
{
	if (fl[1] == 0) {
		snprintf(err, errlen, "no state");
		return -1;
	}
	return add_reports(r, f[0], fl[0], f[1], fl[1], f[2], fl[2], f[3], fl[3], -1, 0, err,
			   errlen);
}

int slurm_parse_squeue(const char *text, struct slurm_reports *r, char *err, size_t errlen)
{
	return parse_lines(text, "squeue", "TASK|STATE|NODE|REASON", squeue_line, r, err, errlen);
}

/* The value of KEY= in a block (a word, or with rest the rest of its line). */
static const char *block_value(const char *b, size_t blen, const char *key, bool rest, size_t *n)
{
	size_t kl = strlen(key);

	for (const char *p = b; p < b + blen; p++) {
		if ((p == b || isspace((unsigned char)p[-1])) && (size_t)(b + blen - p) > kl &&
		    !strncmp(p, key, kl) && p[kl] == '=') {
			const char *v = p + kl + 1;
			const char *end = b + blen;
			const char *q = v;

			while (q < end && *q != '\n' && (rest || !isspace((unsigned char)*q)))
				q++;
			*n = (size_t)(q - v);
			return v;
		}
	}
	return NULL;
}

int slurm_parse_scontrol(const char *text, struct slurm_reports *r, char *err, size_t errlen)
{
	const char *b = text;
	unsigned blockno = 0;

	memset(r, 0, sizeof(*r));
	while (*b) {
		const char *end = NULL;
		size_t blen;
		const char *task, *state, *node, *reason, *exitc, *cmd;
		size_t tl = 0, sl = 0, nl = 0, rl = 0, el = 0, cl = 0;
		int code = -1, sig = 0;
		char e[160];

		/* A block ends at an empty line (scontrol's blank lines may hold spaces). */
		for (const char *p = b; *p; p++) {
			if (*p == '\n') {
				const char *q = p + 1;

				while (*q == ' ' || *q == '\t')
					q++;
				if (*q == '\n' || !*q) {
					end = p;
					break;
				}
			}
		}
		blen = end ? (size_t)(end - b) : strlen(b);
		if (strspn(b, " \t\n") >= blen)
			goto next;
		blockno++;
		state = block_value(b, blen, "JobState", false, &sl);
		if (!state || !sl) {
			snprintf(err, errlen, "scontrol block %u: no JobState=", blockno);
			goto fail;
		}
		task = block_value(b, blen, "ArrayTaskId", false, &tl);
		node = block_value(b, blen, "NodeList", false, &nl);
		reason = block_value(b, blen, "Reason", false, &rl);
		exitc = block_value(b, blen, "ExitCode", false, &el);
		if (exitc) {
			const char *colon = memchr(exitc, ':', el);
			long long c, s;

			if (!colon || parse_ll(exitc, (size_t)(colon - exitc), &c) ||
			    parse_ll(colon + 1, el - (size_t)(colon + 1 - exitc), &s) || c > 255 ||
			    s > 255) {
				snprintf(err, errlen, "scontrol block %u: ExitCode=%.*s: expected RC:SIG",
					 blockno, (int)el, exitc);
				goto fail;
			}
			code = (int)c;
			sig = (int)s;
		}
		if (add_reports(r, task ? task : "N/A", task ? tl : 3, state, sl, node, nl, reason,
				rl, code, sig, e, sizeof(e))) {
			snprintf(err, errlen, "scontrol block %u: %s", blockno, e);
			goto fail;
		}
		cmd = block_value(b, blen, "Command", true, &cl);
		if (cmd && cl && !r->command) {
			r->command = strndup(cmd, cl);
			if (!r->command) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
		}
next:
		if (!end)
			break;
		b = end + 1;
		while (*b == ' ' || *b == '\t' || *b == '\n')
			b++;
	}
	return 0;
fail:
	slurm_reports_free(r);
	return -1;
}

static int sacct_line(const char **f, size_t *fl, struct slurm_reports *r, char *err,
		      size_t errlen)
{
	const char *us, *colon;
	long long c = -1, s = 0;

	/* 12_3 is array task 3; 12_3.batch and 12_3.extern are its steps. */
	if (memchr(f[0], '.', fl[0]))
		return 0;
	us = memchr(f[0], '_', fl[0]);
	colon = memchr(f[3], ':', fl[3]);
	if (!colon || parse_ll(f[3], (size_t)(colon - f[3]), &c) ||
	    parse_ll(colon + 1, fl[3] - (size_t)(colon + 1 - f[3]), &s) || c > 255 || s > 255) {
		snprintf(err, errlen, "ExitCode \"%.*s\": expected RC:SIG", (int)fl[3], f[3]);
		return -1;
	}
	fl[1] = strcspn(f[1], " |");
	if (fl[1] == 0) {
		snprintf(err, errlen, "no state");
		return -1;
	}
	return add_reports(r, us ? us + 1 : "N/A", us ? fl[0] - (size_t)(us + 1 - f[0]) : 3, f[1],
			   fl[1], f[2], fl[2], "", 0, (int)c, (int)s, err, errlen);
}

int slurm_parse_sacct(const char *text, struct slurm_reports *r, char *err, size_t errlen)
{
	return parse_lines(text, "sacct", "JobID|State|NodeList|ExitCode", sacct_line, r, err,
			   errlen);
}

const char *slurm_tail_lines(const char *text, size_t len, unsigned max_lines)
{
	const char *p = text + len;
	unsigned lines = 0;

	if (p > text && p[-1] == '\n')
		p--;
	while (p > text) {
		if (p[-1] == '\n' && ++lines == max_lines)
			break;
		p--;
	}
	return p;
}

/* ---- asking Slurm ---- */

/* Run argv, its output in *out (malloc'd).  0 when it exited 0; 1 when it exited otherwise
 * (its stderr in *out then); -1 after a message when it could not be run. */
static int slurm_cmd(const char *const *argv, char **out)
{
	struct child_process c = {.argv = argv, .out = RUN_OUT_CAPTURE, .err = RUN_OUT_CAPTURE,
				  .timeout_ms = SLURM_CMD_TIMEOUT_MS, .end_group = true};
	char err[512];
	int rc;

	*out = NULL;
	if (child_run(&c, err, sizeof(err))) {
		sb_error("%s", err);
		child_release(&c);
		return -1;
	}
	if (c.timed_out) {
		sb_error("%s did not answer in %u s", argv[0], SLURM_CMD_TIMEOUT_MS / 1000);
		child_release(&c);
		return -1;
	}
	if (c.interrupted) {
		child_release(&c);
		return -1;
	}
	rc = c.exit_code == 0 ? 0 : 1;
	*out = strdup(rc == 0 ? (c.out_text.p ? c.out_text.p : "")
			      : (c.err_text.p && *c.err_text.p ? c.err_text.p : "(no message)"));
	child_release(&c);
	if (!*out) {
		sb_error("out of memory");
		return -1;
	}
	return rc;
}

/* Slurm's words for a job it no longer knows. */
static bool invalid_job_id(const char *msg)
{
	return strstr(msg, "Invalid job id") != NULL;
}

/* Run a Slurm query (what: its name in messages) and parse its output into r.  0 with r filled;
 * `unknown` when Slurm says the job id is invalid (the job is gone from the controller); -1
 * after a message. */
static int ask(const char *const *argv, const char *what, const char *id,
	       int (*parse)(const char *, struct slurm_reports *, char *, size_t), int unknown,
	       struct slurm_reports *r)
{
	char *out, err[256];
	int rc = slurm_cmd(argv, &out);

	memset(r, 0, sizeof(*r));
	if (rc < 0)
		return -1;
	if (rc == 1) {
		if (invalid_job_id(out)) {
			free(out);
			return unknown;
		}
		text_chomp(out);
		sb_error("%s %s: %s", what, id, out);
		free(out);
		return -1;
	}
	rc = parse(out, r, err, sizeof(err));
	free(out);
	if (rc) {
		sb_error("%s %s: %s", what, id, err);
		return -1;
	}
	return 0;
}

/* scontrol show job ID: 0 with r filled, 1 when Slurm does not know the job, -1 error. */
static int ask_scontrol(const char *id, struct slurm_reports *r)
{
	const char *argv[] = {"scontrol", "show", "job", id, NULL};

	return ask(argv, "scontrol show job", id, slurm_parse_scontrol, 1, r);
}

/* squeue's tasks of ID: a job gone from the controller has nothing queued (0, r empty). */
static int ask_squeue(const char *id, struct slurm_reports *r)
{
	const char *argv[] = {"squeue", "-h", "-r", "-j", id, "-o", "%K|%T|%N|%r", NULL};

	return ask(argv, "squeue -j", id, slurm_parse_squeue, 0, r);
}

/* sacct, when accounting is on; quietly nothing when it is off or sacct is missing. */
static void ask_sacct(const char *id, struct slurm_reports *r)
{
	const char *argv[] = {"sacct", "-n", "-P", "-j", id,
			      "--format=JobID,State,NodeList,ExitCode", NULL};
	struct child_process c = {.argv = argv, .out = RUN_OUT_CAPTURE, .err = RUN_OUT_CAPTURE,
				  .timeout_ms = SLURM_CMD_TIMEOUT_MS, .end_group = true};
	char err[256];

	memset(r, 0, sizeof(*r));
	if (child_run(&c, err, sizeof(err)) == 0 && c.exit_code == 0 && c.out_text.p &&
	    slurm_parse_sacct(c.out_text.p, r, err, sizeof(err)))
		sb_note("sacct -j %s: %s (ignored)", id, err);
	child_release(&c);
}

/* ---- the submission ---- */

/* NAME: YYYYmmddTHHMMSS.mmm-xxxxxx (slurm.h), or YYYYmmddTHHMMSS-xxxxxx as submit named them
 * before the milliseconds. */
static bool is_name(const char *s)
{
	size_t len = strlen(s), dash = len - 7;

	if (len != 22 && len != 26)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool ok = i == 8 ? c == 'T'
			  : i == dash ? c == '-'
			  : i == 15 ? c == '.'
			  : i < dash ? isdigit((unsigned char)c) != 0
				     : (isdigit((unsigned char)c) || (c >= 'a' && c <= 'z'));

		if (!ok)
			return false;
	}
	return true;
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s/%s", a, b);
	return s;
}

static char *json_strdup(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? strdup(v) : NULL;
}

static int read_manifest(const char *dir, struct slurm_status *st)
{
	char *path = join(dir, "submission.json"), *buf = NULL, err[512];
	json_t *root = NULL, *tasks, *then;
	json_error_t je;
	int rc = -1;

	if (!path) {
		sb_error("out of memory");
		return -1;
	}
	if (file_read(path, 64 << 20, &buf, NULL, err, sizeof(err))) {
		sb_error("%s", err);
		goto out;
	}
	root = json_loads(buf, 0, &je);
	if (!root || !json_is_object(root)) {
		sb_error("%s: not a submission manifest (%s)", path,
			 root ? "not an object" : je.text);
		goto out;
	}
	if (json_integer_value(json_object_get(root, "version")) != 1) {
		sb_error("%s: version: expected 1", path);
		goto out;
	}
	st->name = json_strdup(root, "name");
	st->job = json_strdup(root, "job");
	st->commit = json_strdup(root, "commit");
	const char *id = json_string_value(json_object_get(root, "id"));
	if (id && (!text_is_digits(id) || strlen(id) >= sizeof(st->id))) {
		sb_error("%s: id \"%s\": expected a Slurm job id (digits)", path, id);
		goto out;
	}
	snprintf(st->id, sizeof(st->id), "%s", id ? id : "");
	then = json_object_get(root, "then");
	if (json_is_object(then)) {
		const char *tid = json_string_value(json_object_get(then, "id"));

		if (tid && text_is_digits(tid) && strlen(tid) < sizeof(st->then_id))
			snprintf(st->then_id, sizeof(st->then_id), "%s", tid);
	}
	tasks = json_object_get(root, "tasks");
	if (!st->name || !json_is_array(tasks)) {
		sb_error("%s: expected \"name\" and a \"tasks\" array", path);
		goto out;
	}
	st->n_tasks = json_array_size(tasks);
	st->tasks = calloc(st->n_tasks ? st->n_tasks : 1, sizeof(*st->tasks));
	if (!st->tasks) {
		sb_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < st->n_tasks; i++) {
		json_t *t = json_array_get(tasks, i);
		struct slurm_task *k = &st->tasks[i];
		json_int_t n = json_integer_value(json_object_get(t, "task"));

		k->exit_code = -1;
		k->state = SLURM_TASK_UNKNOWN;
		if (!json_is_integer(json_object_get(t, "task")) || n != (json_int_t)i) {
			sb_error("%s: tasks[%zu]: expected \"task\": %zu", path, i, i);
			goto out;
		}
		k->task = (unsigned)i;
		k->runs = 1;
		if (json_object_get(t, "runs")) {
			json_int_t runs = json_integer_value(json_object_get(t, "runs"));

			if (!json_is_integer(json_object_get(t, "runs")) || runs < 1 ||
			    runs > 100000) {
				sb_error("%s: tasks[%zu]: \"runs\": expected a count from 1 to "
					 "100000",
					 path, i);
				goto out;
			}
			k->runs = (unsigned)runs;
		}
		st->n_runs += k->runs;
		k->name = json_strdup(t, "name");
		k->atomic = json_strdup(t, "atomic");
	}
	rc = 0;
out:
	json_decref(root);
	free(buf);
	free(path);
	return rc;
}

/* The submission directory of id under root, NULL when not there. */
static char *find_local(const char *root, const char *id)
{
	char *sub, *p, *real = NULL;
	struct stat sb;

	if (!root)
		return NULL;
	sub = join(root, SLURM_SUBDIR);
	p = sub ? join(sub, id) : NULL;
	if (p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
		real = realpath(p, NULL);
	free(p);
	free(sub);
	return real;
}

/* The done/<I> record: 1 when there is one (d filled), 0 when not, -1 after a message. */
static int read_done(const char *dir, unsigned task, struct slurm_done *d)
{
	char path[PATH_MAX], err[512], *buf;
	int rc;

	snprintf(path, sizeof(path), "%s/done/%u", dir, task);
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	if (file_read(path, 4096, &buf, NULL, err, sizeof(err))) {
		sb_error("%s", err);
		return -1;
	}
	rc = slurm_parse_done(buf, d, err, sizeof(err));
	free(buf);
	if (rc) {
		sb_error("%s: malformed task record: %s", path, err);
		return -1;
	}
	return 1;
}

/* The last lines of out/<I>.out, read from its end (a task's output may be large). */
static char *read_tail(const char *dir, unsigned task)
{
	char path[PATH_MAX], *buf, *tail;
	int fd;
	struct stat sb;
	off_t from;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/out/%u.out", dir, task);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return NULL;
	}
	from = sb.st_size > TAIL_BYTES ? sb.st_size - TAIL_BYTES : 0;
	buf = malloc(TAIL_BYTES + 1);
	n = buf ? pread(fd, buf, TAIL_BYTES, from) : -1;
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	tail = strdup(slurm_tail_lines(buf, strlen(buf), TAIL_LINES));
	free(buf);
	return tail;
}

static bool word_in(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(w, *list))
			return true;
	return false;
}

static const char *const pending_words[] = {"PENDING", "REQUEUED", "REQUEUE_HOLD",
					    "REQUEUE_FED", "RESV_DEL_HOLD", NULL};
static const char *const running_words[] = {"RUNNING",	  "CONFIGURING", "COMPLETING",
					    "SUSPENDED",  "STAGE_OUT",	 "RESIZING",
					    "SIGNALING",  "STOPPED",	 NULL};

/* A task without a record, as Slurm reports it. */
static void apply_report(struct slurm_task *k, const struct slurm_report *rep)
{
	free(k->slurm_state);
	k->slurm_state = strdup(rep->state);
	if (rep->node && !k->node)
		k->node = strdup(rep->node);
	if (word_in(rep->state, pending_words)) {
		k->state = SLURM_TASK_PENDING;
		if (rep->reason)
			k->reason = strdup(rep->reason);
	} else if (word_in(rep->state, running_words)) {
		k->state = SLURM_TASK_RUNNING;
	} else {
		/* Ended without a record: the job script did not get to write it (cancelled,
		 * timed out, its node failed), so its run was not stored. */
		k->state = SLURM_TASK_FAILED;
		if (rep->exit_code > 0)
			k->exit_code = rep->exit_code;
	}
}

static int resolve(const char *results_root, const char *id, struct slurm_status *st)
{
	struct slurm_reports r;
	char *dir = find_local(results_root, id), *slash;
	struct stat sb;
	int rc;

	if (dir) {
		st->dir = dir;
		return 0;
	}
	if (!text_is_digits(id))
		goto unknown;
	rc = ask_scontrol(id, &r);
	if (rc < 0)
		return -1;
	if (rc == 1 || !r.command || r.command[0] != '/' || !(slash = strrchr(r.command, '/')) ||
	    strcmp(slash, "/job.sh")) {
		slurm_reports_free(&r);
		goto unknown;
	}
	*slash = '\0';
	dir = join(r.command, "submission.json");
	if (dir && stat(dir, &sb) == 0) {
		st->dir = strdup(r.command);
		free(dir);
		slurm_reports_free(&r);
		return st->dir ? 0 : -1;
	}
	free(dir);
	sb_error("job %s: not a scalebench submission (its script %s/job.sh has no "
		 "submission.json beside it)", id, r.command);
	slurm_reports_free(&r);
	return -1;
unknown:
	if (results_root)
		sb_error("no submission %s: not in %s/%s, and Slurm does not know job %s", id,
			 results_root, SLURM_SUBDIR, id);
	else
		sb_error("no submission %s: Slurm does not know job %s", id, id);
	return -1;
}

static void count(struct slurm_status *st)
{
	st->n_pending = st->n_running = st->n_done = st->n_failed = 0;
	for (size_t i = 0; i < st->n_tasks; i++) {
		switch (st->tasks[i].state) {
		case SLURM_TASK_PENDING:
			st->n_pending++;
			break;
		case SLURM_TASK_RUNNING:
			st->n_running++;
			break;
		case SLURM_TASK_DONE:
			st->n_done++;
			break;
		default:
			st->n_failed++;
		}
	}
	st->ended = st->n_pending + st->n_running == 0;
}

/* Read the done/ records of the tasks without one yet.  0 or -1. */
static int read_records(struct slurm_status *st, bool *missing)
{
	*missing = false;
	for (size_t i = 0; i < st->n_tasks; i++) {
		struct slurm_task *k = &st->tasks[i];
		struct slurm_done d;
		int rc;

		if (k->state == SLURM_TASK_DONE || k->exit_code >= 0)
			continue;
		rc = read_done(st->dir, k->task, &d);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			*missing = true;
			continue;
		}
		k->exit_code = d.exit_code;
		free(k->node);
		k->node = d.node;
		k->state = d.exit_code == 0 ? SLURM_TASK_DONE : SLURM_TASK_FAILED;
		free(k->reason);
		k->reason = NULL;
	}
	return 0;
}

int slurm_status_get(const char *results_root, const char *id, struct slurm_status *st)
{
	struct slurm_reports q = {0}, sc = {0}, sa = {0};
	bool missing;
	int rc;

	memset(st, 0, sizeof(*st));
	if (!text_is_digits(id) && !is_name(id)) {
		sb_error("'%s': expected a Slurm job id (digits) or a submission name "
			 "(YYYYmmddTHHMMSS.mmm-xxxxxx)", id);
		return -1;
	}
	if (resolve(results_root, id, st) || read_manifest(st->dir, st))
		goto fail;
	if (read_records(st, &missing))
		goto fail;
	bool any_failed = false;

	for (size_t i = 0; i < st->n_tasks; i++)
		if (st->tasks[i].state == SLURM_TASK_FAILED)
			any_failed = true;
	if ((missing || any_failed) && st->id[0]) {
		if (missing && ask_squeue(st->id, &q))
			goto fail;
		/* A task may have ended between our reading its record and squeue's answer. */
		if (read_records(st, &missing))
			goto fail;
		for (size_t i = 0; i < st->n_tasks; i++) {
			struct slurm_task *k = &st->tasks[i];
			const struct slurm_report *rep;

			if (k->exit_code >= 0 || k->state == SLURM_TASK_DONE)
				continue;
			rep = slurm_reports_find(&q, k->task);
			if (rep && (word_in(rep->state, pending_words) ||
				    word_in(rep->state, running_words)))
				apply_report(k, rep);
		}
		bool unlisted = false;

		/* A failed task's record says what run returned; Slurm may add why it ended
		 * (CANCELLED, TIMEOUT), so it is asked about those too. */
		for (size_t i = 0; i < st->n_tasks; i++)
			if (st->tasks[i].state == SLURM_TASK_UNKNOWN ||
			    st->tasks[i].state == SLURM_TASK_FAILED)
				unlisted = true;
		if (unlisted) {
			rc = ask_scontrol(st->id, &sc);
			if (rc < 0)
				goto fail;
			ask_sacct(st->id, &sa);
			for (size_t i = 0; i < st->n_tasks; i++) {
				struct slurm_task *k = &st->tasks[i];
				const struct slurm_report *rep;

				if (k->state != SLURM_TASK_UNKNOWN && k->state != SLURM_TASK_FAILED)
					continue;
				rep = slurm_reports_find(&sc, k->task);
				if (!rep)
					rep = slurm_reports_find(&sa, k->task);
				if (!rep)
					continue;
				if (k->state == SLURM_TASK_UNKNOWN)
					apply_report(k, rep);
				else if (!k->slurm_state)
					k->slurm_state = strdup(rep->state);
			}
		}
	}
	if (st->then_id[0]) {
		slurm_reports_free(&q);
		if (ask_squeue(st->then_id, &q))
			goto fail;
		const struct slurm_report *rep = q.n ? &q.v[0] : NULL;

		if (!rep) {
			slurm_reports_free(&sc);
			if (ask_scontrol(st->then_id, &sc) < 0)
				goto fail;
			rep = sc.n ? &sc.v[0] : NULL;
		}
		if (rep)
			st->then_state = strdup(rep->state);
	}
	for (size_t i = 0; i < st->n_tasks; i++) {
		struct slurm_task *k = &st->tasks[i];

		if (k->state == SLURM_TASK_FAILED || k->state == SLURM_TASK_UNKNOWN)
			k->output_tail = read_tail(st->dir, k->task);
	}
	count(st);
	slurm_reports_free(&q);
	slurm_reports_free(&sc);
	slurm_reports_free(&sa);
	return 0;
fail:
	slurm_reports_free(&q);
	slurm_reports_free(&sc);
	slurm_reports_free(&sa);
	slurm_status_free(st);
	return -1;
}

void slurm_status_free(struct slurm_status *st)
{
	for (size_t i = 0; i < st->n_tasks && st->tasks; i++) {
		struct slurm_task *k = &st->tasks[i];

		free(k->name);
		free(k->atomic);
		free(k->node);
		free(k->slurm_state);
		free(k->reason);
		free(k->output_tail);
	}
	free(st->tasks);
	free(st->dir);
	free(st->name);
	free(st->then_state);
	free(st->job);
	free(st->commit);
	memset(st, 0, sizeof(*st));
}

static int cmp_desc(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

int slurm_list(const char *results_root, char ***names, size_t *n)
{
	char *sub = join(results_root, SLURM_SUBDIR);
	DIR *d;
	struct dirent *e;
	char **v = NULL;
	size_t k = 0;

	*names = NULL;
	*n = 0;
	if (!sub) {
		sb_error("out of memory");
		return -1;
	}
	d = opendir(sub);
	if (!d) {
		int e0 = errno;

		if (e0 == ENOENT) {
			struct stat sb;

			free(sub);
			if (stat(results_root, &sb) == 0 && S_ISDIR(sb.st_mode))
				return 0;
			sb_error("%s: %s", results_root,
				 errno == ENOENT ? "no such results directory" : strerror(errno));
			return -1;
		}
		sb_error("cannot read %s: %s", sub, strerror(e0));
		free(sub);
		return -1;
	}
	while ((e = readdir(d))) {
		char **nv;

		if (!is_name(e->d_name))
			continue;
		nv = realloc(v, (k + 1) * sizeof(*v));
		if (!nv || !(nv[k] = strdup(e->d_name))) {
			v = nv ? nv : v;
			closedir(d);
			free(sub);
			while (k)
				free(v[--k]);
			free(v);
			sb_error("out of memory");
			return -1;
		}
		v = nv;
		k++;
	}
	closedir(d);
	free(sub);
	if (k)
		qsort(v, k, sizeof(*v), cmp_desc);
	*names = v;
	*n = k;
	return 0;
}

/* ---- wait, cancel ---- */

#define WAIT_SLICE_S 0.2

/* The entries of dir/done (task records; their temp files start with '.'). */
static size_t count_records(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	if ((size_t)snprintf(path, sizeof(path), "%s/done", dir) >= sizeof(path) ||
	    !(d = opendir(path)))
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int slurm_wait(const char *results_root, const char *id, double timeout_s, bool quiet)
{
	struct timespec t0, now;
	double delay_s = 0.5;
	char last[160] = "";
	int rc = 2;

	/* A signal ends the wait, not us mid-squeue: the caller says so and exits 128+N. */
	interrupt_catch();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct slurm_status st;
		char line[160];
		double elapsed_s;

		if (interrupt_caught)
			break;
		if (slurm_status_get(results_root, id, &st)) {
			rc = 2;
			break;
		}
		snprintf(line, sizeof(line), "%zu/%zu done, %zu running, %zu pending%s", st.n_done,
			 st.n_tasks, st.n_running, st.n_pending, "");
		if (st.n_failed)
			snprintf(line + strlen(line), sizeof(line) - strlen(line), ", %zu failed",
				 st.n_failed);
		if (!quiet && strcmp(line, last))
			fprintf(stderr, "%s: %s\n", st.name, line);
		snprintf(last, sizeof(last), "%s", line);
		if (st.ended) {
			rc = st.n_failed ? 1 : 0;
			slurm_status_free(&st);
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed_s = (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9;
		if (timeout_s > 0 && elapsed_s >= timeout_s) {
			sb_error("submission %s: timed out after %g s with %zu of %zu tasks not ended "
				 "(%zu pending, %zu running)", id, timeout_s,
				 st.n_pending + st.n_running, st.n_tasks, st.n_pending,
				 st.n_running);
			slurm_status_free(&st);
			rc = 2;
			break;
		}
		double sleep_s = delay_s;

		if (timeout_s > 0 && elapsed_s + sleep_s > timeout_s)
			sleep_s = timeout_s - elapsed_s;
		/* Slurm is asked at most every delay_s; the task records are a directory listing
		 * away, so a task that ends is seen within a slice (the last one above all: a
		 * bisection step or a nightly waits for it). */
		size_t records = count_records(st.dir);

		while (sleep_s > 0 && !interrupt_caught) {
			double slice_s = sleep_s < WAIT_SLICE_S ? sleep_s : WAIT_SLICE_S;
			struct timespec ts = {(time_t)slice_s,
					      (long)((slice_s - (time_t)slice_s) * 1e9)};

			nanosleep(&ts, NULL); /* a signal ends it early */
			sleep_s -= slice_s;
			if (count_records(st.dir) != records) {
				delay_s = 0.5 / 1.5;
				break;
			}
		}
		slurm_status_free(&st);
		delay_s = delay_s * 1.5 > 5 ? 5 : delay_s * 1.5;
	}
	if (interrupt_caught)
		rc = 128 + interrupt_caught;
	return rc;
}

int slurm_cancel(const struct slurm_status *st)
{
	const char *argv[] = {"scancel", st->id, st->then_id[0] ? st->then_id : NULL, NULL};
	char *out;
	int rc;

	if (!st->id[0]) {
		sb_error("submission %s: no Slurm job id (sbatch never answered)", st->name);
		return -1;
	}
	rc = slurm_cmd(argv, &out);
	if (rc == 1) {
		text_chomp(out);
		sb_error("scancel %s: %s", st->id, out);
	}
	free(out);
	return rc ? -1 : 0;
}
