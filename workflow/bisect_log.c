/* The bisection's state, persistent: the log (JSON, rewritten whole after every change, each
 * change an event), the options as --resume reads them back, the counts of runs and reboots
 * spent per commit, each commit's own log in the .d directory, and the claim of the log's
 * path.  The log is the one place a bisection's state is kept: --resume LOG continues from it
 * after a kill, a crash or a reboot of this machine. */
#include "bisect_internal.h"
#include "../analyze/bisect.h"
#include "../lib/errors.h"
#include "../lib/file.h"
#include "../lib/options.h"
#include "../lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

size_t bisect_commit_slot(struct bisect *b, const char *sha)
{
	size_t i;

	for (i = 0; i < b->norder; i++)
		if (!strcmp(b->order[i], sha))
			return i;
	b->order = xrealloc(b->order, (b->norder + 1) * sizeof(*b->order));
	b->spent = xrealloc(b->spent, (b->norder + 1) * sizeof(*b->spent));
	b->reboots = xrealloc(b->reboots, (b->norder + 1) * sizeof(*b->reboots));
	snprintf(b->order[i], sizeof(b->order[i]), "%s", sha);
	b->spent[i] = b->reboots[i] = 0;
	b->norder++;
	return i;
}

/* ISO 8601 UTC with milliseconds. */
static void iso_now(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char s[64];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%.24s.%03dZ", s, (int)(ts.tv_nsec / 1000000) % 1000);
}

/* The log, whole, in place of the old one: the bisection's state after every change. */
static int write_log(struct bisect *b)
{
	char err[PATH_MAX + 64], *text;
	json_t *runs = json_object(), *reboots = json_object();
	unsigned nruns = 0, nreboots = 0;

	for (size_t i = 0; i < b->norder; i++) {
		json_object_set_new(runs, b->order[i], json_integer(b->spent[i]));
		if (b->reboots[i])
			json_object_set_new(reboots, b->order[i], json_integer(b->reboots[i]));
		nruns += b->spent[i];
		nreboots += b->reboots[i];
	}
	json_object_set_new(b->log, "runs_spent", runs);
	json_object_set_new(b->log, "reboots_spent", reboots);
	json_object_set_new(b->log, "total_runs", json_integer(nruns));
	json_object_set_new(b->log, "total_reboots", json_integer(nreboots));
	text = json_dumps(b->log, JSON_INDENT(1));
	if (!text || file_write(b->log_file, text, strlen(text), err, sizeof(err))) {
		/* err names the file and why */
		if (text)
			sb_error("bisect log: %s", err);
		else
			sb_error("cannot write the bisect log %s: %s", b->log_file,
				 strerror(ENOMEM));
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

int bisect_event(struct bisect *b, const char *name, json_t *fields)
{
	char now[64];
	json_t *e;

	iso_now(now, sizeof(now));
	e = json_pack("{s:s, s:s}", "time", now, "event", name);
	if (fields)
		json_object_update(e, fields);
	json_decref(fields);
	json_array_append_new(b->events, e);
	int rc = write_log(b);

	if (rc)
		b->log_lost = true;

	if (b->kill_n && !strcmp(name, b->kill_event) && ++b->kill_seen == b->kill_n)
		raise(SIGKILL);
	return rc;
}

int bisect_commit_log_open(struct bisect *b, const char *sha, const char *what, const char *cmd)
{
	char path[PATH_MAX + 64], now[40];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.log", b->dir_d, sha);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0) {
		sb_error("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	iso_now(now, sizeof(now));
	dprintf(fd, "=== %s %s: %s\n", now, what, cmd);
	return fd;
}

void bisect_plain_copy(char *out, size_t len, const char *s)
{
	size_t n = 0;

	for (; s && *s && *s != '\n' && n + 1 < len; s++)
		out[n++] = *s >= ' ' && *s < 127 ? *s : '?';
	out[n] = '\0';
}

json_t *bisect_values_json(const double *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

void bisect_log_step(struct bisect *b, const char *sha, const char *role, const double *v, size_t n,
		     const char *decision, json_t *extra)
{
	char now[64];
	json_t *s;

	iso_now(now, sizeof(now));
	s = json_pack("{s:s, s:s, s:s, s:I, s:o, s:s}", "time", now, "commit", sha, "role", role,
		      "runs", (json_int_t)n, "values", bisect_values_json(v, n), "decision",
		      decision);
	if (extra)
		json_object_update(s, extra);
	json_decref(extra);
	json_array_append_new(b->steps, s);
	bisect_event(b, "decision", json_pack("{s:s, s:s}", "commit", sha, "decision", decision));
}

/* The options, as the log keeps them for --resume: b's strings then point into the log. */
static int args_store(struct bisect *b)
{
	char err[512];
	json_t *a = options_to_json(b->opts, err, sizeof(err));

	if (!a) {
		sb_error("the bisection log: %s", err);
		return -1;
	}
	if (json_object_set_new(b->log, "args", a))
		xalloc_die();
	return 0;
}

/* The options from the log's args: 0, or -1 after a message naming the log. */
static int args_load(struct bisect *b)
{
	char err[512];

	if (options_from_json(b->opts, json_object_get(b->log, "args"), err, sizeof(err))) {
		sb_error("%s: args: %s", b->log_file[0] ? b->log_file : b->resume, err);
		return -1;
	}
	b->good_arg = json_string_value(json_object_get(b->log, "good"));
	b->bad_arg = json_string_value(json_object_get(b->log, "bad"));
	snprintf(b->token, sizeof(b->token), "%s",
		 json_string_value(json_object_get(b->log, "token")) ?: "");
	snprintf(b->env_token, sizeof(b->env_token), "SCALEBENCH_BISECT_TOKEN=%s", b->token);
	return 0;
}

int bisect_resume_load(struct bisect *b)
{
	char *text, err[PATH_MAX + 64];
	json_error_t je;
	json_t *e, *v;
	const char *key;
	size_t i;

	if (file_read(b->resume, 64 << 20, &text, NULL, err, sizeof(err))) {
		sb_error("--resume: %s", err);
		return SB_EXIT_ERROR;
	}
	b->log = json_loads(text, 0, &je);
	free(text);
	if (!json_is_object(b->log) || !json_is_object(json_object_get(b->log, "args")) ||
	    !json_is_string(json_object_get(b->log, "token"))) {
		sb_error("--resume %s: not a bisect log of this scalebench (%s)", b->resume,
			 b->log ? "no args or token" : je.text);
		return SB_EXIT_ERROR;
	}
	v = json_object_get(b->log, "exit");
	if (json_is_integer(v) && json_integer_value(v) != SB_EXIT_INTERRUPTED &&
	    json_integer_value(v) != SB_EXIT_ERROR) {
		sb_error("--resume %s: this bisection is over (%s, exit %d): nothing to resume",
			 b->resume, json_string_value(json_object_get(b->log, "status")) ?: "?",
			 (int)json_integer_value(v));
		return SB_EXIT_ERROR;
	}
	if (args_load(b))
		return SB_EXIT_ERROR;
	if (!b->repo || !b->job_path || !b->results || !b->prepare || !b->stat || !b->good_arg ||
	    !b->bad_arg || b->max_runs < BISECT_FIRST_RUNS || !b->runs_per_boot) {
		sb_error("--resume %s: its args are incomplete", b->resume);
		return SB_EXIT_ERROR;
	}
	b->steps = json_object_get(b->log, "steps");
	b->events = json_object_get(b->log, "events");
	if (!json_is_array(b->steps) || !json_is_array(b->events)) {
		sb_error("--resume %s: no steps or events", b->resume);
		return SB_EXIT_ERROR;
	}
	json_incref(b->steps);
	json_incref(b->events);
	json_object_foreach (json_object_get(b->log, "runs_spent"), key, v) {
		size_t slot = bisect_commit_slot(b, key); /* it may move the arrays */

		b->spent[slot] = (unsigned)json_integer_value(v);
	}
	json_object_foreach (json_object_get(b->log, "reboots_spent"), key, v) {
		size_t slot = bisect_commit_slot(b, key);

		b->reboots[slot] = (unsigned)json_integer_value(v);
	}
	/* A reboot issued and not yet answered: its boot is awaited, not issued again. */
	json_array_foreach (b->events, i, e) {
		const char *name = json_string_value(json_object_get(e, "event"));
		const char *c = json_string_value(json_object_get(e, "commit"));

		if (!name)
			continue;
		if ((!strcmp(name, "reboot") || !strcmp(name, "booted")) && c) {
			snprintf(b->booted, sizeof(b->booted), "%s", c);
			b->up = !strcmp(name, "booted");
		}
		/* The default boot check's reference, as read before that reboot. */
		if (!strcmp(name, "reboot")) {
			bisect_plain_copy(b->boot_id_before, sizeof(b->boot_id_before),
					  json_string_value(json_object_get(e, "boot_id_before")));
			bisect_plain_copy(b->uname_before, sizeof(b->uname_before),
					  json_string_value(json_object_get(e, "uname_before")));
			bisect_plain_copy(b->last_up, sizeof(b->last_up),
					  json_string_value(json_object_get(e, "last_up")));
		}
		if (!strcmp(name, "booted") && c)
			bisect_plain_copy(b->last_up, sizeof(b->last_up), c);
		else if (!strcmp(name, "runs") || !strcmp(name, "boot-failed")) {
			/* a boot serves one batch */
			b->booted[0] = '\0';
			b->up = false;
		}
	}
	json_object_del(b->log, "exit");
	json_object_del(b->log, "signal");
	json_object_set_new(b->log, "status", json_string("running"));
	return SB_EXIT_OK;
}

int bisect_log_claim(struct bisect *b)
{
	char base[PATH_MAX + 64], path[PATH_MAX + 96];
	struct stat st;
	int fd;

	if (b->resume) {
		path_absolute(b->resume, b->log_file, sizeof(b->log_file));
	} else if (b->log_path) {
		path_absolute(b->log_path, b->log_file, sizeof(b->log_file));
		if (lstat(b->log_file, &st) == 0) {
			sb_error(
			    "--log %s exists: a bisect log is never overwritten (continue it with "
			    "--resume %s, or name another)",
			    b->log_path, b->log_path);
			return SB_EXIT_ERROR;
		}
	} else {
		char res[PATH_MAX];

		path_absolute(b->results, res, sizeof(res));
		snprintf(base, sizeof(base), "%s/bisect-%.10s-%.10s", res, b->good, b->bad);
		for (unsigned i = 1;; i++) {
			if (i == 1)
				snprintf(path, sizeof(path), "%s.json", base);
			else
				snprintf(path, sizeof(path), "%s-%u.json", base, i);
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
			if (fd >= 0) {
				close(fd);
				break;
			}
			if (errno != EEXIST) {
				sb_error("cannot create the bisect log %s: %s", path,
					 strerror(errno));
				return SB_EXIT_ERROR;
			}
		}
		if (strlen(path) >= sizeof(b->log_file)) {
			sb_error("the bisect log's path %s is too long", path);
			return SB_EXIT_ERROR;
		}
		memcpy(b->log_file, path, strlen(path) + 1);
	}
	size_t n = strlen(b->log_file);

	if (n > 5 && !strcmp(b->log_file + n - 5, ".json"))
		n -= 5;
	snprintf(b->dir_d, sizeof(b->dir_d), "%.*s.d", (int)n, b->log_file);
	if (mkdir(b->dir_d, 0777) && errno != EEXIST) {
		sb_error("cannot create %s: %s", b->dir_d, strerror(errno));
		return SB_EXIT_ERROR;
	}
	return SB_EXIT_OK;
}

void bisect_kill_hook(struct bisect *b)
{
	const char *v = getenv("SCALEBENCH_BISECT_KILL_AT"), *colon;

	if (!v || !(colon = strchr(v, ':')) || (size_t)(colon - v) >= sizeof(b->kill_event))
		return;
	snprintf(b->kill_event, sizeof(b->kill_event), "%.*s", (int)(colon - v), v);
	b->kill_n = (unsigned)strtoul(colon + 1, NULL, 10);
}

int bisect_log_new(struct bisect *b)
{
	unsigned char rnd[16];

	if (getentropy(rnd, sizeof(rnd))) {
		sb_error("getentropy: %s", strerror(errno));
		return SB_EXIT_ERROR;
	}
	for (size_t i = 0; i < sizeof(rnd); i++) {
		b->token[2 * i] = "0123456789abcdef"[rnd[i] >> 4];
		b->token[2 * i + 1] = "0123456789abcdef"[rnd[i] & 15];
	}
	b->log = json_pack("{s:i, s:s, s:s, s:s, s:s, s:f, s:i, s:s, s:s, s:s}", "version", 2,
			   "repo", b->repo, "good", b->good, "bad", b->bad, "stat", b->stat,
			   "confidence", b->confidence, "max_runs", (int)b->max_runs, "job",
			   b->path_params, "token", b->token, "status", "running");
	if (!b->log) { /* jansson's one other failure: a string that is not UTF-8 */
		sb_error("the bisection log: the repository, a revision, the stat or the job is "
			 "not UTF-8 text");
		return SB_EXIT_ERROR;
	}
	if (args_store(b) || args_load(b))
		return SB_EXIT_ERROR;
	b->steps = json_array();
	b->events = json_array();
	json_object_set(b->log, "steps", b->steps);
	json_object_set(b->log, "events", b->events);
	return SB_EXIT_OK;
}
