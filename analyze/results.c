#include "results.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const group_axis_names[AX_COUNT] = {
    "compiler", "kconfig", "mode", "nr_task", "rootfs", "tbox_group", "test", "testcase",
};

static int cmp_run_dirs(const void *a, const void *b)
{
	const char *x = strrchr(*(char *const *)a, '/') + 1,
		   *y = strrchr(*(char *const *)b, '/') + 1;

	return atoi(x) - atoi(y);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static void add_note(struct result_group *g, const char *fmt, const char *a, const char *b)
{
	char buf[PATH_MAX + 256];
	char **v = realloc(g->notes, (g->nnotes + 1) * sizeof(*v));

	if (!v)
		return;
	g->notes = v;
	snprintf(buf, sizeof(buf), fmt, a, b);
	g->notes[g->nnotes++] = strdup(buf);
}

/* A stats.json is a flat object of numbers; anything else is corrupt. */
static json_t *load_stats(const char *path, char *why, size_t len)
{
	json_error_t e;
	json_t *v = json_load_file(path, 0, &e), *x;
	const char *k;

	if (!v) {
		snprintf(why, len, "line %d: %s", e.line, e.text);
		return NULL;
	}
	if (!json_is_object(v)) {
		snprintf(why, len, "not a JSON object");
		json_decref(v);
		return NULL;
	}
	json_object_foreach(v, k, x)
	{
		if (!json_is_number(x)) {
			snprintf(why, len, "stat '%s' is not a number", k);
			json_decref(v);
			return NULL;
		}
	}
	return v;
}

static void axes_from_path(struct result_group *g)
{
	/* .../<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit> */
	char buf[PATH_MAX], *parts[8] = {0};
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", g->dir);
	for (char *p = buf + strlen(buf); p > buf && n < 8;) {
		while (p > buf && p[-1] == '/')
			*--p = '\0';
		char *slash = strrchr(buf, '/');
		if (!slash || slash >= p) {
			parts[n++] = buf;
			break;
		}
		parts[n++] = slash + 1;
		p = slash;
		*p = '\0';
	}
	/* parts[0] = commit, [1] compiler, [2] kconfig, [3] rootfs, [4] tbox_group,
	 * [5] path_params, [6] testcase */
	if (n >= 7) {
		g->axes[AX_COMPILER] = strdup(parts[1]);
		g->axes[AX_KCONFIG] = strdup(parts[2]);
		g->axes[AX_ROOTFS] = strdup(parts[3]);
		g->axes[AX_TBOX_GROUP] = strdup(parts[4]);
		g->axes[AX_TESTCASE] = strdup(parts[6]);
	}
}

static void axes_from_meta(struct result_group *g, const json_t *meta)
{
	const json_t *m = json_object_get(meta, "machine");
	char buf[32];

	if (!g->axes[AX_MODE] && json_is_string(json_object_get(meta, "mode")))
		g->axes[AX_MODE] = strdup(json_string_value(json_object_get(meta, "mode")));
	if (!g->axes[AX_TEST] && json_is_string(json_object_get(meta, "testcase")))
		g->axes[AX_TEST] = strdup(json_string_value(json_object_get(meta, "testcase")));
	if (!g->axes[AX_NR_TASK] && json_is_integer(json_object_get(meta, "nr_task"))) {
		snprintf(buf, sizeof(buf), "%lld",
			 (long long)json_integer_value(json_object_get(meta, "nr_task")));
		g->axes[AX_NR_TASK] = strdup(buf);
	}
	static const struct {
		enum group_axis ax;
		const char *key;
	} from_machine[] = {{AX_COMPILER, "compiler"},
			    {AX_KCONFIG, "kconfig"},
			    {AX_ROOTFS, "rootfs"},
			    {AX_TBOX_GROUP, "tbox_group"}};
	for (size_t i = 0; i < sizeof(from_machine) / sizeof(from_machine[0]); i++) {
		const json_t *v = json_object_get(m, from_machine[i].key);

		if (!g->axes[from_machine[i].ax] && json_is_string(v))
			g->axes[from_machine[i].ax] = strdup(json_string_value(v));
	}
}

int group_load(const char *dir, struct result_group *g, char *err, size_t errlen)
{
	char path[PATH_MAX], why[256], **names = NULL;
	size_t nnames = 0;
	struct dirent *e;
	struct stat st;
	DIR *d;

	memset(g, 0, sizeof(*g));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", dir, errno ? strerror(errno) : "not a directory");
		return -1;
	}
	d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (!all_digits(e->d_name))
			continue;
		char **v = realloc(names, (nnames + 1) * sizeof(*v));
		if (!v)
			break;
		names = v;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		names[nnames++] = strdup(path);
	}
	closedir(d);
	if (!nnames) {
		snprintf(err, errlen,
			 "%s is not a results group: expected a commit directory of a results tree "
			 "(<root>/<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/"
			 "<compiler>/<commit>/) holding numbered runs",
			 dir);
		free(names);
		return -1;
	}
	qsort(names, nnames, sizeof(*names), cmp_run_dirs);
	g->dir = strdup(dir);
	g->runs = calloc(nnames, sizeof(*g->runs));
	for (size_t i = 0; i < nnames; i++) {
		json_t *stats, *meta;

		snprintf(path, sizeof(path), "%s/stats.json", names[i]);
		if (access(path, F_OK)) {
			add_note(g, "%s: incomplete run (no stats.json), skipped%s", names[i], "");
			free(names[i]);
			continue;
		}
		stats = load_stats(path, why, sizeof(why));
		if (!stats) {
			add_note(g, "%s: corrupt (%s), run skipped", path, why);
			free(names[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/meta.json", names[i]);
		meta = json_load_file(path, 0, NULL);
		if (meta && !json_is_object(meta)) {
			json_decref(meta);
			meta = NULL;
		}
		g->runs[g->nruns++] =
		    (struct run_record){.dir = names[i], .stats = stats, .meta = meta};
	}
	free(names);
	if (!g->nruns) {
		snprintf(err, errlen, "%s: no complete run (every run lacks a usable stats.json)",
			 dir);
		for (size_t i = 0; i < g->nnotes; i++)
			fprintf(stderr, "scalebench: note: %s\n", g->notes[i]);
		group_free(g);
		return -1;
	}
	const char *slash = strrchr(g->dir, '/');
	g->commit = strdup(slash && slash[1] ? slash + 1 : g->dir);
	axes_from_path(g);
	for (size_t i = 0; i < g->nruns; i++)
		if (g->runs[i].meta)
			axes_from_meta(g, g->runs[i].meta);
	return 0;
}

void group_free(struct result_group *g)
{
	for (size_t i = 0; i < g->nruns; i++) {
		free(g->runs[i].dir);
		json_decref(g->runs[i].stats);
		json_decref(g->runs[i].meta);
	}
	for (size_t i = 0; i < g->nnotes; i++)
		free(g->notes[i]);
	for (int a = 0; a < AX_COUNT; a++)
		free(g->axes[a]);
	free(g->notes);
	free(g->runs);
	free(g->dir);
	free(g->commit);
	memset(g, 0, sizeof(*g));
}

size_t group_values(const struct result_group *g, const char *stat, double *out)
{
	size_t n = 0;

	for (size_t i = 0; i < g->nruns; i++) {
		const json_t *v = json_object_get(g->runs[i].stats, stat);

		if (json_is_number(v))
			out[n++] = json_number_value(v);
	}
	return n;
}

bool stat_is_failure(const char *name)
{
	return !strncmp(name, "dmesg.", 6) || !strncmp(name, "kmsg.", 5) ||
	       !strncmp(name, "stderr.", 7) || !strncmp(name, "last_state.", 11);
}

size_t group_failures(const struct result_group *g, const char *stat)
{
	size_t n = 0;

	for (size_t i = 0; i < g->nruns; i++) {
		const json_t *v = json_object_get(g->runs[i].stats, stat);

		if (json_is_number(v) && json_number_value(v) != 0)
			n++;
	}
	return n;
}

size_t results_find(const char *root, const char *path_params, const char *commit, char ***out)
{
	char pattern[PATH_MAX];
	glob_t gl;
	size_t n = 0;

	*out = NULL;
	/* Path components never contain glob characters we care about except '%'; escape
	 * the wildcard characters glob knows. */
	char pp[512], cm[256];
	size_t j = 0;
	for (const char *p = path_params; *p && j + 2 < sizeof(pp); p++) {
		if (strchr("*?[]\\", *p))
			pp[j++] = '\\';
		pp[j++] = *p;
	}
	pp[j] = '\0';
	j = 0;
	for (const char *p = commit; *p && j + 2 < sizeof(cm); p++) {
		if (strchr("*?[]\\", *p))
			cm[j++] = '\\';
		cm[j++] = *p;
	}
	cm[j] = '\0';
	snprintf(pattern, sizeof(pattern), "%s/*/%s/*/*/*/*/%s", root, pp, cm);
	if (glob(pattern, GLOB_ONLYDIR, NULL, &gl) == 0) {
		*out = calloc(gl.gl_pathc, sizeof(**out));
		for (size_t i = 0; *out && i < gl.gl_pathc; i++)
			(*out)[n++] = strdup(gl.gl_pathv[i]);
	}
	globfree(&gl);
	return n;
}
