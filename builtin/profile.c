/* scalebench profile: a run's perf-profile call chains as a perf-report-like tree. */
#include "builtin.h"
#include "../monitors/profile.h"
#include "../store/layout.h"
#include "../store/run_read.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum { OPT_CHILDREN = 256, OPT_SELF, OPT_MIN };

static const struct cli_option profile_options[] = {
    {"children", OPT_CHILDREN, NULL,
     "sort by children: samples with the symbol anywhere in the chain (default)"},
    {"self", OPT_SELF, NULL, "sort by self: samples whose leaf is the symbol"},
    {"min", OPT_MIN, "PCT", "leave out symbols and branches under PCT% of samples (default 0.5)"},
    {NULL, 0, NULL, NULL},
};

const struct cli_command profile_command = {
    .name = "profile",
    .usage = "DIR... [--children|--self] [--min PCT]",
    .summary = "Show perf-profile call chains as a perf-report-like tree.",
    .details = "Each DIR is a run's directory, written by 'scalebench run' with the perf-profile\n"
	       "monitor in the job (perf-profile: {freq: 1000}), or a commit's directory: all\n"
	       "its numbered runs.  The samples of every run given add up to one profile.  Each\n"
	       "symbol is shown with its children and self percentages of all samples and,\n"
	       "below it, the callers it was reached through, callee first.\n",
    .options = profile_options,
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
	return store_raw_path(dir, "perf-profile", path, len);
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
		fprintf(stderr, "scalebench profile: %s: cannot read: %s\n", path,
			errno ? strerror(errno) : "not gzip or JSON");
		return -1;
	}
	root = json_loadb(text, len, 0, &jerr);
	free(text);
	if (!root) {
		fprintf(stderr, "scalebench profile: %s:%d: %s\n", path, jerr.line, jerr.text);
		return -1;
	}
	json_array_foreach(root, i, v) if (json_is_object(v) && json_object_get(v, "chains")) run =
	    v;
	if (!run) {
		fprintf(stderr,
			"scalebench profile: %s: expected a list holding an object with \"chains\" "
			"(the monitor did not finish?)\n",
			path);
		json_decref(root);
		return -1;
	}
	v = json_object_get(run, "event");
	event = json_is_string(v) ? json_string_value(v) : "?";
	if (t->event[0] && strcmp(t->event, event)) {
		fprintf(stderr,
			"scalebench profile: %s: sampled %s, the runs before it %s: one event at "
			"a time\n",
			path, event, t->event);
		json_decref(root);
		return -1;
	}
	if (profile_add_json(json_object_get(run, "chains"), &t->p, err, sizeof(err))) {
		fprintf(stderr, "scalebench profile: %s: %s\n", path, err);
		json_decref(root);
		return -1;
	}
	snprintf(t->event, sizeof(t->event), "%s", event);
	t->lost += json_integer_value(json_object_get(run, "lost"));
	t->runs++;
	json_decref(root);
	return 0;
}

/* A run directory, or a commit directory: each of its numbered runs that has a profile. */
static int load(const char *dir, struct total *t)
{
	char path[4096], **runs = NULL;
	struct stat st;
	unsigned before = t->runs;
	ssize_t n;
	int bad = 0;

	errno = 0;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "scalebench profile: %s: %s\n", dir,
			errno ? strerror(errno) : "not a directory");
		return -1;
	}
	if (profile_file(dir, path, sizeof(path)) == 0)
		return load_run(path, t);
	n = store_list_runs(dir, &runs);
	for (ssize_t i = 0; i < n; i++) {
		if (!bad && profile_file(runs[i], path, sizeof(path)) == 0)
			bad = load_run(path, t);
		free(runs[i]);
	}
	free(runs);
	if (bad)
		return -1;
	if (t->runs == before) {
		fprintf(stderr,
			"scalebench profile: %s: no perf-profile.json.gz, here or in its numbered "
			"runs: the runs had no perf-profile monitor (name 'perf-profile:' in the "
			"job's monitors)\n",
			dir);
		return -1;
	}
	return 0;
}

int cmd_profile(int argc, char **argv)
{
	const char *arg;
	struct total t = {0};
	bool by_self = false;
	double min_pct = 0.5;
	char *end;
	int c, status = 0;

	cli_reset();
	while ((c = cli_next(&profile_command, argc, argv, &arg)) != -1) {
		switch (c) {
		case OPT_CHILDREN:
			by_self = false;
			break;
		case OPT_SELF:
			by_self = true;
			break;
		case OPT_MIN:
			errno = 0;
			min_pct = strtod(arg, &end);
			if (errno || end == arg || *end || min_pct < 0 || min_pct > 100) {
				fprintf(stderr,
					"scalebench profile: --min %s: expected a percentage 0 to "
					"100\n",
					arg);
				return 2;
			}
			break;
		case 'h':
			cli_print_help(&profile_command, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (argc - cli_optind() < 1) {
		fprintf(stderr, "usage: scalebench profile %s\n", profile_command.usage);
		return 2;
	}
	if (profile_init(&t.p)) {
		fprintf(stderr, "scalebench profile: out of memory\n");
		return 1;
	}
	for (int i = cli_optind(); i < argc && !status; i++)
		status = load(argv[i], &t) ? 1 : 0;
	if (!status && !t.p.samples) {
		fprintf(stderr, "scalebench profile: %s%s: the profile has no samples\n",
			argv[cli_optind()], argc - cli_optind() > 1 ? " ..." : "");
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
