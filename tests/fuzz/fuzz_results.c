/* The results-tree walker: store_find, store_list_runs and store_parse over a tree built from
 * the input, each run's stats.json and meta.json read, then every commit directory loaded as
 * the analyzer's group and asked what compare asks (values, roles, headline, busy runs).
 *
 * The input is a list of lines, each making one entry under a fresh root (paths relative to
 * it, parents made as needed; '..' and absolute paths are dropped, so nothing outside the root
 * is touched):
 *
 *	d PATH			a directory
 *	f PATH<TAB>CONTENT	a file holding CONTENT (the rest of the line)
 *	l PATH<TAB>TARGET	a symbolic link to TARGET (relative, no '..')
 *	p PATH			a FIFO
 *	q PATH_PARAMS<TAB>COMMIT	what store_find looks for (empty: any)
 *
 * Corpus: tests/fuzz/corpus/results (fixture trees of tests/fixtures/compare as such lists). */
#include "fuzz.h"
#include "../../analyze/results.h"
#include "../../store/layout.h"
#include "../../store/run_read.h"

#include <errno.h>
#include <sys/stat.h>

#define MAX_ENTRIES 256

/* A relative path that stays below the root: no leading '/', no '..' component. */
static bool safe_path(const char *p)
{
	if (!*p || *p == '/')
		return false;
	for (const char *c = p; *c;) {
		size_t n = strcspn(c, "/");

		if (n == 2 && c[0] == '.' && c[1] == '.')
			return false;
		c += n;
		c += *c == '/';
	}
	return strlen(p) < 1024;
}

static void make_parents(const char *root, const char *rel)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/", root);

	for (const char *c = rel; *c && n < (int)sizeof(path) - 1; c++) {
		if (*c == '/') {
			path[n] = '\0';
			mkdir(path, 0755);
		}
		path[n++] = *c;
	}
}

static void build(const char *root, char *text, char **pp, char **commit)
{
	char *line, *save = NULL;
	int entries = 0;

	for (line = strtok_r(text, "\n", &save); line && entries < MAX_ENTRIES;
	     line = strtok_r(NULL, "\n", &save), entries++) {
		char kind = line[0], *path = line + 1, *arg, full[PATH_MAX];

		if (!kind || line[1] != ' ')
			continue;
		path = line + 2;
		arg = strchr(path, '\t');
		if (arg)
			*arg++ = '\0';
		if (kind == 'q') {
			*pp = *path ? path : NULL;
			*commit = arg && *arg ? arg : NULL;
			continue;
		}
		if (!safe_path(path))
			continue;
		make_parents(root, path);
		snprintf(full, sizeof(full), "%s/%s", root, path);
		switch (kind) {
		case 'd':
			mkdir(full, 0755);
			break;
		case 'f':
			fuzz_write(root, path, arg ? arg : "", arg ? strlen(arg) : 0);
			break;
		case 'l':
			if (arg && safe_path(arg))
				symlink(arg, full);
			break;
		case 'p':
			mkfifo(full, 0644);
			break;
		}
	}
}

/* What store_parse gives back must name the same directory again. */
static void check_round_trip(const char *path, enum store_level level)
{
	struct store_axes a;
	char err[PATH_MAX + 256], again[PATH_MAX];

	if (store_parse(path, level, &a, err, sizeof(err))) {
		fprintf(stderr, "store_parse refuses a path the walker gave: %s\n", err);
		abort();
	}
	if (store_path(&a, again, sizeof(again)) || strcmp(again, path)) {
		fprintf(stderr, "store_parse/store_path round trip: %s -> %s\n", path, again);
		abort();
	}
	store_axes_free(&a);
}

static void read_run(const char *run)
{
	struct store_stats s;
	char why[512];

	check_round_trip(run, STORE_RUN_DIR);
	if (store_read_stats(run, &s, why, sizeof(why)) == 0)
		store_stats_free(&s);
	json_decref(store_read_meta(run, why, sizeof(why)));
}

/* The groups as one comparison, as compare reads them. */
static void ask_groups(struct result_group *g, size_t n)
{
	double *values;
	const char *reason;
	char title[256];

	if (!n)
		return;
	group_headline_stat(g, n);
	group_headline_direction(g, n);
	for (size_t i = 0; i < n; i++) {
		values = malloc((g[i].nruns + 1) * sizeof(*values));
		if (!values)
			fuzz_die("malloc");
		group_busy_runs(&g[i], &reason);
		for (size_t k = 0; k < g[i].nstats; k++) {
			const char *stat = g[i].stat_names[k];

			if (group_values(&g[i], stat, values) > g[i].nruns)
				abort();
			group_failures(&g[i], stat);
			group_stat_role(g, n, stat);
			group_stat_direction(g, n, stat);
			group_plot_title(&g[i], stat, title, sizeof(title));
		}
		free(values);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char root[PATH_MAX];
	char *text = malloc(size + 1), *pp = NULL, *commit = NULL, **dirs;
	ssize_t n;

	if (!text)
		fuzz_die("malloc");
	if (!root[0]) {
		snprintf(root, sizeof(root), "%s/results", fuzz_scratch());
		if (mkdir(root, 0755))
			fuzz_die(root);
	}
	memcpy(text, data, size);
	text[size] = '\0';
	build(root, text, &pp, &commit);

	n = store_find(root, pp, commit, &dirs);
	struct result_group *groups = calloc(n > 0 ? (size_t)n : 1, sizeof(*groups));
	size_t ngroups = 0;
	char err[PATH_MAX + 512];

	if (!groups)
		fuzz_die("calloc");
	for (ssize_t i = 0; i < n; i++) {
		char **runs;
		ssize_t nr;

		check_round_trip(dirs[i], STORE_COMMIT_DIR);
		if (group_load(dirs[i], &groups[ngroups], err, sizeof(err)) == 0)
			ngroups++;
		nr = store_list_runs(dirs[i], &runs);
		for (ssize_t j = 0; j < nr; j++) {
			read_run(runs[j]);
			free(runs[j]);
		}
		if (nr >= 0)
			free(runs);
		free(dirs[i]);
	}
	if (n >= 0)
		free(dirs);
	ask_groups(groups, ngroups);
	for (size_t i = 0; i < ngroups; i++)
		group_free(&groups[i]);
	free(groups);

	fuzz_rm_children(root);
	free(text);
	return 0;
}
