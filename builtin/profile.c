/* scalebench profile: a run's perf-profile call chains as a perf-report-like tree. */
#include "builtin.h"
#include "../monitors/profile.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

const struct command_def profile_command = {
    .name = "profile",
    .args = "DIR...",
    .summary = "Show perf-profile call chains as a perf-report-like tree.",
    .details = "Each DIR is a run's directory, written by 'scalebench run' with the perf-profile\n"
	       "monitor in the job (perf-profile: {freq: 1000}), or a commit's directory: all\n"
	       "its numbered runs.  The samples of every run given add up to one profile.  Each\n"
	       "symbol is shown with its children and self percentages of all samples and,\n"
	       "below it, the callers it was reached through, callee first.\n",
};

/* The whole of a file, gunzipped if it is gzip (gzread passes plain files through). */
static char *slurp_gz(const char *path, size_t *len)
{
	gzFile gz = gzopen(path, "rbe");
	size_t cap = 1 << 16, n = 0;
	char *buf = gz ? malloc(cap) : NULL;
	int got = 0;

	while (buf && (got = gzread(gz, buf + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)got;
		if (n == cap) {
			char *g = realloc(buf, cap *= 2);

			if (!g) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = g;
		}
	}
	if (buf && got < 0) {
		free(buf);
		buf = NULL;
	}
	if (gz)
		gzclose(gz);
	*len = n;
	return buf;
}

/* What the runs read so far add up to. */
struct total {
	struct profile p;
	char event[64]; /* "" until the first run */
	json_int_t lost;
	unsigned runs;
};

/* The profile file of a run directory (perf-profile.json.gz, or perf-profile.json of runs
 * stored before compression), or -1. */
static int profile_file(const char *dir, char *path, size_t len)
{
	snprintf(path, len, "%s/perf-profile.json.gz", dir);
	if (access(path, F_OK))
		snprintf(path, len, "%s/perf-profile.json", dir);
	return access(path, F_OK) ? -1 : 0;
}

/* One run's chains into t. */
static int load_run(const char *path, struct total *t)
{
	char err[512];
	json_error_t jerr;
	const json_t *run = NULL, *v;
	const char *event;
	json_t *root;
	size_t i, len;
	char *text;

	errno = 0;
	text = slurp_gz(path, &len);
	if (!text) {
		sb_error("%s: cannot read: %s", path, errno ? strerror(errno) : "not gzip or JSON");
		return -1;
	}
	root = json_loadb(text, len, 0, &jerr);
	free(text);
	if (!root) {
		sb_error("%s:%d: %s", path, jerr.line, jerr.text);
		return -1;
	}
	json_array_foreach(root, i, v) if (json_is_object(v) && json_object_get(v, "chains")) run =
	    v;
	if (!run) {
		sb_error("%s: expected a list holding an object with \"chains\" "
			 "(the monitor did not finish?)",
			 path);
		json_decref(root);
		return -1;
	}
	v = json_object_get(run, "event");
	event = json_is_string(v) ? json_string_value(v) : "?";
	if (t->event[0] && strcmp(t->event, event)) {
		sb_error("%s: sampled %s, the runs before it %s: one event at "
			 "a time",
			 path, event, t->event);
		json_decref(root);
		return -1;
	}
	if (profile_add_json(json_object_get(run, "chains"), &t->p, err, sizeof(err))) {
		sb_error("%s: %s", path, err);
		json_decref(root);
		return -1;
	}
	snprintf(t->event, sizeof(t->event), "%s", event);
	t->lost += json_integer_value(json_object_get(run, "lost"));
	t->runs++;
	json_decref(root);
	return 0;
}

static int by_number(const struct dirent **a, const struct dirent **b)
{
	unsigned long x = strtoul((*a)->d_name, NULL, 10), y = strtoul((*b)->d_name, NULL, 10);

	return (x > y) - (x < y);
}

static int numbered(const struct dirent *d)
{
	return d->d_name[0] && strspn(d->d_name, "0123456789") == strlen(d->d_name);
}

/* A run directory, or a commit directory: each of its numbered runs that has a profile. */
static int load(const char *dir, struct total *t)
{
	char path[4096], sub[4096];
	struct dirent **runs = NULL;
	struct stat st;
	unsigned before = t->runs;
	int n, bad = 0;

	errno = 0;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		sb_error("%s: %s", dir, errno ? strerror(errno) : "not a directory");
		return -1;
	}
	if (profile_file(dir, path, sizeof(path)) == 0)
		return load_run(path, t);
	n = scandir(dir, &runs, numbered, by_number);
	for (int i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", dir, runs[i]->d_name);
		if (!bad && profile_file(sub, path, sizeof(path)) == 0)
			bad = load_run(path, t);
		free(runs[i]);
	}
	free(runs);
	if (bad)
		return -1;
	if (t->runs == before) {
		sb_error("%s: no perf-profile.json.gz, here or in its numbered "
			 "runs: the runs had no perf-profile monitor (name 'perf-profile:' in the "
			 "job's monitors)",
			 dir);
		return -1;
	}
	return 0;
}

int cmd_profile(int argc, char **argv)
{
	struct total t = {0};
	bool by_self = false;
	double min_pct;
	const struct option_def opts[] = {
	    {OPT_FLAG("children", 0, &by_self), .flags = OPTION_CLEAR,
	     .help = "sort by children: samples with the symbol anywhere in the chain (the "
		     "default)"},
	    {OPT_FLAG("self", 0, &by_self),
	     .help = "sort by self: samples whose leaf is the symbol"},
	    {OPT_PERCENT("min", 0, &min_pct), .def = "0.5",
	     .help = "leave out symbols and branches under this share of the samples"},
	    {OPT_END},
	};
	int first, status = options_parse(&profile_command, opts, argc, argv, &first, NULL);

	if (status >= 0)
		return status;
	status = 0;
	if (argc - first < 1) {
		options_usage(&profile_command, opts, stderr);
		return 2;
	}
	if (profile_init(&t.p)) {
		sb_error("out of memory");
		return 1;
	}
	for (int i = first; i < argc && !status; i++)
		status = load(argv[i], &t) ? 1 : 0;
	if (!status && !t.p.samples) {
		sb_error("%s%s: the profile has no samples", argv[first],
			 argc - first > 1 ? " ..." : "");
		status = 1;
	}
	if (status) {
		profile_free(&t.p);
		return status;
	}
	printf("# event %s, %u run%s, %lld lost\n", t.event, t.runs, t.runs == 1 ? "" : "s",
	       (long long)t.lost);
	profile_print_report(&t.p, stdout, by_self, min_pct);
	profile_free(&t.p);
	return 0;
}
