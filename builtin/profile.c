/* scalebench profile: a run's perf-profile call chains as a perf-report-like tree. */
#include "builtin.h"
#include "../runner/profile.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    .usage = "RUN_DIR [--children|--self] [--min PCT]",
    .summary = "Show a run's perf-profile call chains as a perf-report-like tree.",
    .details = "RUN_DIR is one run's directory, written by 'scalebench run' with the perf-profile\n"
	       "monitor in the job (perf-profile: {freq: 1000, delay: 0, duration: 10}).  Each\n"
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

static int load(const char *dir, struct profile *p, char *event, size_t elen, json_int_t *lost)
{
	char path[4096], err[512];
	json_error_t jerr;
	const json_t *run = NULL, *v;
	json_t *root;
	struct stat st;
	size_t i, len;
	char *text;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "scalebench profile: %s: %s\n", dir,
			errno ? strerror(errno) : "not a directory");
		return -1;
	}
	/* perf-profile.json.gz; runs stored before compression have perf-profile.json. */
	snprintf(path, sizeof(path), "%s/perf-profile.json.gz", dir);
	if (access(path, F_OK))
		snprintf(path, sizeof(path), "%s/perf-profile.json", dir);
	if (access(path, F_OK)) {
		fprintf(stderr,
			"scalebench profile: %s: no perf-profile.json.gz: the run had no "
			"perf-profile monitor (name 'perf-profile:' in the job's monitors)\n",
			dir);
		return -1;
	}
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
	if (profile_from_json(json_object_get(run, "chains"), p, err, sizeof(err))) {
		fprintf(stderr, "scalebench profile: %s: %s\n", path, err);
		json_decref(root);
		return -1;
	}
	v = json_object_get(run, "event");
	snprintf(event, elen, "%s", json_is_string(v) ? json_string_value(v) : "?");
	*lost = json_integer_value(json_object_get(run, "lost"));
	json_decref(root);
	return 0;
}

int cmd_profile(int argc, char **argv)
{
	const char *arg;
	struct profile p;
	bool by_self = false;
	double min_pct = 0.5;
	char event[64], *end;
	json_int_t lost = 0;
	int c;

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
	if (argc - cli_optind() != 1) {
		fprintf(stderr, "usage: scalebench profile %s\n", profile_command.usage);
		return 2;
	}
	errno = 0;
	if (load(argv[cli_optind()], &p, event, sizeof(event), &lost))
		return 1;
	if (!p.samples) {
		fprintf(stderr, "scalebench profile: %s: the profile has no samples\n",
			argv[cli_optind()]);
		profile_free(&p);
		return 1;
	}
	printf("# event %s, %lld lost\n", event, (long long)lost);
	profile_print_report(&p, stdout, by_self, min_pct);
	profile_free(&p);
	return 0;
}
