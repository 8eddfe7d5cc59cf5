#include "results.h"
#include "../lib/file.h"
#include "../store/families.h"

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

struct parsed_stat {
	const char *name; /* into the file's buffer (fast path) or the jansson tree */
	size_t len;
	double value;
};

static int stat_index_of(struct result_group *g, const char *name, size_t len, size_t hint)
{
	char key[512];
	json_t *v;

	/* Runs of one group list their stats in the same order: try the same position. */
	if (hint < g->nstats && strlen(g->stat_names[hint]) == len &&
	    !memcmp(g->stat_names[hint], name, len))
		return (int)hint;
	if (len >= sizeof(key))
		return -1;
	memcpy(key, name, len);
	key[len] = '\0';
	v = json_object_get(g->stat_index, key);
	if (v)
		return (int)json_integer_value(v);
	if (g->nstats == g->stats_cap) {
		size_t cap = g->stats_cap ? g->stats_cap * 2 : 256;
		double *nv = realloc(g->values, cap * g->runs_cap * sizeof(*nv));
		char **nn = realloc(g->stat_names, cap * sizeof(*nn));

		if (nv)
			g->values = nv;
		if (nn)
			g->stat_names = nn;
		if (!nv || !nn)
			return -1;
		for (size_t i = g->stats_cap * g->runs_cap; i < cap * g->runs_cap; i++)
			g->values[i] = NAN;
		g->stats_cap = cap;
	}
	g->stat_names[g->nstats] = strdup(key);
	json_object_set_new(g->stat_index, key, json_integer((json_int_t)g->nstats));
	return (int)g->nstats++;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* stats.json as scalebench writes it: one flat object of plain keys and numbers.  Returns
 * the number of stats, or -1 when the file is anything else (then jansson parses it and
 * either accepts it or says what is wrong). */
static long parse_flat(const char *p, const char *end, struct parsed_stat **out)
{
	struct parsed_stat *v = NULL;
	size_t n = 0, cap = 0;

	p = skip_ws(p, end);
	if (p == end || *p++ != '{')
		goto no;
	p = skip_ws(p, end);
	if (p < end && *p == '}')
		goto done;
	for (;;) {
		const char *name;
		char *num_end;
		double d;

		if (p == end || *p++ != '"')
			goto no;
		name = p;
		while (p < end && *p != '"' && *p != '\\')
			p++;
		if (p == end || *p != '"')
			goto no; /* escapes: let jansson decode them */
		size_t len = (size_t)(p - name);
		p = skip_ws(p + 1, end);
		if (p == end || *p++ != ':')
			goto no;
		p = skip_ws(p, end);
		if (p == end || !(*p == '-' || (*p >= '0' && *p <= '9')))
			goto no;
		d = strtod(p, &num_end);
		if (num_end == p || num_end > end)
			goto no;
		p = skip_ws(num_end, end);
		if (n == cap) {
			struct parsed_stat *nv =
			    realloc(v, (cap = cap ? cap * 2 : 256) * sizeof(*nv));
			if (!nv)
				goto no;
			v = nv;
		}
		v[n++] = (struct parsed_stat){name, len, d};
		if (p < end && *p == ',') {
			p = skip_ws(p + 1, end);
			continue;
		}
		if (p < end && *p == '}')
			break;
		goto no;
	}
done:
	p = skip_ws(p + 1, end);
	if (p != end)
		goto no;
	*out = v;
	return (long)n;
no:
	free(v);
	return -1;
}

/* Far above any real run's file (5,000 stats are some 200 kB): a wrong file is refused rather
 * than read into memory. */
#define RUN_FILE_MAX (1u << 30)

/* A run's file, whole; NULL with why naming it and saying what was wrong. */
static char *read_file(const char *path, size_t *len, char *why, size_t whylen)
{
	char *buf;

	return file_read(path, RUN_FILE_MAX, &buf, len, why, whylen) ? NULL : buf;
}

/* One run's stats.json into the group's table as column `run`.  Nothing is added unless the
 * whole file is a flat object of numbers: a corrupt run leaves no partial column.  -2 when the
 * file cannot be read (why then names it), -1 when it is corrupt. */
static int load_stats(struct result_group *g, size_t run, const char *path, char *why, size_t len)
{
	struct parsed_stat *v = NULL;
	json_t *tree = NULL;
	size_t size = 0;
	char *buf = read_file(path, &size, why, len);
	long n;

	if (!buf)
		return -2;
	n = parse_flat(buf, buf + size, &v);
	if (n < 0) {
		json_error_t e;
		const char *k;
		json_t *x;
		size_t i = 0;

		tree = json_loadb(buf, size, 0, &e);
		if (!tree) {
			snprintf(why, len, "line %d: %s", e.line, e.text);
			goto fail;
		}
		if (!json_is_object(tree)) {
			snprintf(why, len, "not a JSON object");
			goto fail;
		}
		v = calloc(json_object_size(tree) + 1, sizeof(*v));
		if (!v)
			goto fail;
		json_object_foreach(tree, k, x)
		{
			if (!json_is_number(x)) {
				snprintf(why, len, "stat '%s' is not a number", k);
				goto fail;
			}
			v[i++] = (struct parsed_stat){k, strlen(k), json_number_value(x)};
		}
		n = (long)i;
	}
	for (long i = 0; i < n; i++) {
		int idx = stat_index_of(g, v[i].name, v[i].len, (size_t)i);

		if (idx >= 0)
			g->values[(size_t)idx * g->runs_cap + run] = v[i].value;
	}
	free(v);
	json_decref(tree);
	free(buf);
	return 0;
fail:
	free(v);
	json_decref(tree);
	free(buf);
	return -1;
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
	char path[PATH_MAX], why[PATH_MAX + 256], **names = NULL;
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
	g->runs_cap = nnames;
	g->stat_index = json_object();
	for (size_t i = 0; i < nnames; i++) {
		json_t *meta;
		char *text;
		size_t size;
		int rc;

		snprintf(path, sizeof(path), "%s/stats.json", names[i]);
		if (access(path, F_OK)) {
			add_note(g, "%s: incomplete run (no stats.json), skipped%s", names[i], "");
			free(names[i]);
			continue;
		}
		rc = load_stats(g, g->nruns, path, why, sizeof(why));
		if (rc) {
			if (rc == -2)
				add_note(g, "%s, run skipped%s", why, "");
			else
				add_note(g, "%s: corrupt (%s), run skipped", path, why);
			free(names[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/meta.json", names[i]);
		text = read_file(path, &size, why, sizeof(why));
		meta = text ? json_loadb(text, size, 0, NULL) : NULL;
		free(text);
		if (meta && !json_is_object(meta)) {
			json_decref(meta);
			meta = NULL;
		}
		g->runs[g->nruns++] = (struct run_record){.dir = names[i], .meta = meta};
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
		json_decref(g->runs[i].meta);
	}
	for (size_t i = 0; i < g->nstats; i++)
		free(g->stat_names[i]);
	free(g->stat_names);
	free(g->values);
	json_decref(g->stat_index);
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

static const double *stat_column(const struct result_group *g, const char *stat)
{
	const json_t *v = json_object_get(g->stat_index, stat);

	return v ? &g->values[(size_t)json_integer_value(v) * g->runs_cap] : NULL;
}

size_t group_values(const struct result_group *g, const char *stat, double *out)
{
	const double *col = stat_column(g, stat);
	size_t n = 0;

	for (size_t i = 0; col && i < g->nruns; i++)
		if (!isnan(col[i]))
			out[n++] = col[i];
	return n;
}

size_t group_failures(const struct result_group *g, const char *stat)
{
	const double *col = stat_column(g, stat);
	size_t n = 0;

	for (size_t i = 0; col && i < g->nruns; i++)
		if (!isnan(col[i]) && col[i] != 0)
			n++;
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

long commit_list_split(const char *list, char ***out)
{
	size_t len = strlen(list), n = 1;
	char **v, *copy, *save = NULL;
	long k = 0;

	for (const char *p = list; *p; p++)
		n += *p == ',';
	/* The pointers and a copy of the list in one block: one free for the caller. */
	v = malloc((n + 1) * sizeof(*v) + len + 1);
	if (!v)
		return -1;
	copy = memcpy((char *)(v + n + 1), list, len + 1);
	for (char *c = strtok_r(copy, ",", &save); c; c = strtok_r(NULL, ",", &save))
		v[k++] = c;
	v[k] = NULL;
	*out = v;
	return k;
}

/* ---- What the runs declare about their stats (meta.json) ---- */

enum stat_role stat_role_undeclared(const char *stat)
{
	if (!strncmp(stat, "dmesg.", 6) || !strncmp(stat, "kmsg.", 5) ||
	    !strncmp(stat, "stderr.", 7) || !strncmp(stat, "last_state.", 11))
		return ROLE_FAILURE;
	return stat_family_is_lkp_monitor(stat) ? ROLE_MONITOR : ROLE_HEADLINE;
}

static bool role_of(const json_t *v, enum stat_role *out)
{
	static const char *const names[] = {
	    [ROLE_HEADLINE] = "headline", [ROLE_MONITOR] = "monitor", [ROLE_FAILURE] = "failure"};
	const char *s = json_string_value(v);

	for (size_t i = 0; s && i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum stat_role)i;
			return true;
		}
	return false;
}

enum stat_role group_stat_role(const struct result_group *g, size_t n, const char *stat)
{
	size_t family = strcspn(stat, ".");
	enum stat_role role;

	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < g[i].nruns; r++) {
			json_t *fams = json_object_get(g[i].runs[r].meta, "families");

			if (role_of(json_object_getn(fams, stat, family), &role))
				return role;
		}
	return stat_role_undeclared(stat);
}

/* The first declared headline with a stat name, or NULL. */
static const json_t *declared_headline(const struct result_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < g[i].nruns; r++) {
			json_t *h = json_object_get(g[i].runs[r].meta, "headline");
			const char *stat = json_string_value(json_object_get(h, "stat"));

			if (stat && *stat)
				return h;
		}
	return NULL;
}

static bool group_has(const struct result_group *g, size_t n, const char *stat)
{
	for (size_t i = 0; i < n; i++)
		if (json_object_get(g[i].stat_index, stat))
			return true;
	return false;
}

const char *group_headline_stat(const struct result_group *g, size_t n)
{
	static const char process[] = "will-it-scale.per_process_ops",
			  thread[] = "will-it-scale.per_thread_ops";
	const json_t *h = declared_headline(g, n);

	if (h)
		return json_string_value(json_object_get(h, "stat"));
	for (size_t i = 0; i < n; i++) {
		const char *mode = g[i].axes[AX_MODE];

		if (mode)
			return !strcmp(mode, "process")	 ? process
			       : !strcmp(mode, "thread") ? thread
							 : NULL;
	}
	return group_has(g, n, process) ? process : group_has(g, n, thread) ? thread : NULL;
}

enum stat_direction group_headline_direction(const struct result_group *g, size_t n)
{
	const json_t *h = declared_headline(g, n);
	const char *dir;

	if (!h)
		return group_headline_stat(g, n) ? DIR_HIGHER_BETTER : DIR_NEUTRAL;
	dir = json_string_value(json_object_get(h, "direction"));
	if (dir && !strcmp(dir, "higher"))
		return DIR_HIGHER_BETTER;
	if (dir && !strcmp(dir, "lower"))
		return DIR_LOWER_BETTER;
	return stat_direction(json_string_value(json_object_get(h, "stat")), ROLE_HEADLINE);
}

enum stat_direction group_stat_direction(const struct result_group *g, size_t n, const char *stat)
{
	const char *headline = group_headline_stat(g, n);

	if (headline && !strcmp(stat, headline))
		return group_headline_direction(g, n);
	return stat_direction(stat, group_stat_role(g, n, stat));
}
