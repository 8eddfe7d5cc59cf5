#include "results.h"
#include "../store/families.h"
#include "../store/layout.h"
#include "../store/run_read.h"
#include "../lib/num.h"
#include "../lib/text.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

const char *const group_axis_names[AX_COUNT] = {
    "compiler", "kconfig", "mode", "nr_task", "rootfs", "runtime", "tbox_group", "test", "testcase",
};

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
		bool *nk = realloc(g->lkp_kept, cap * sizeof(*nk));

		if (nv)
			g->values = nv;
		if (nn)
			g->stat_names = nn;
		if (nk)
			g->lkp_kept = nk;
		if (!nv || !nn || !nk)
			return -1;
		for (size_t i = g->stats_cap * g->runs_cap; i < cap * g->runs_cap; i++)
			g->values[i] = NAN;
		g->stats_cap = cap;
	}
	g->stat_names[g->nstats] = strdup(key);
	g->lkp_kept[g->nstats] = false;
	json_object_set_new(g->stat_index, key, json_integer((json_int_t)g->nstats));
	return (int)g->nstats++;
}

/* One run's stats.json into the group's table as column `run`.  Nothing is added unless the
 * whole file is a flat object of numbers: a corrupt run leaves no partial column. */
static int load_stats(struct result_group *g, size_t run, const char *run_dir, char *why,
		      size_t len)
{
	struct store_stats st;

	if (store_read_stats(run_dir, &st, why, len))
		return -1;
	for (size_t i = 0; i < st.n; i++) {
		int idx = stat_index_of(g, st.v[i].name, st.v[i].len, i);

		if (idx < 0)
			continue;
		g->values[(size_t)idx * g->runs_cap + run] = st.v[i].value;
		/* unite_remove_empty_stats keeps a float 0.0, drops integer zeros */
		if (!st.v[i].integer || st.v[i].value != 0)
			g->lkp_kept[idx] = true;
	}
	store_stats_free(&st);
	return 0;
}

static void axes_from_path(struct result_group *g)
{
	struct store_axes a;
	char err[PATH_MAX + 256];

	/* A directory outside a tree still loads: its axes come from meta.json alone. */
	if (store_parse(g->dir, STORE_COMMIT_DIR, &a, err, sizeof(err)))
		return;
	g->axes[AX_COMPILER] = strdup(a.compiler);
	g->axes[AX_KCONFIG] = strdup(a.kconfig);
	g->axes[AX_ROOTFS] = strdup(a.rootfs);
	g->axes[AX_TBOX_GROUP] = strdup(a.tbox_group);
	g->axes[AX_TESTCASE] = strdup(a.testcase);
	store_axes_free(&a);
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

static void axis_set(struct result_group *g, enum group_axis ax, const json_t *v)
{
	const char *s = json_string_value(v);

	if (!g->axes[ax] && s && *s)
		g->axes[ax] = strdup(s);
}

/* What job.yaml says of the job that meta.json did not: nr_task as written ("100%", "16"; a
 * value that is neither a count nor a percentage is left out), the testcase's own map's mode
 * and test (will-it-scale: {mode: thread, test: page_fault3}). */
static void axes_from_job(struct result_group *g, const json_t *job)
{
	const char *nr = json_string_value(json_object_get(job, "nr_task")), *tc;
	unsigned long long count;
	double pct;

	axis_set(g, AX_TESTCASE, json_object_get(job, "testcase"));
	axis_set(g, AX_TBOX_GROUP, json_object_get(job, "tbox_group"));
	axis_set(g, AX_RUNTIME, json_object_get(job, "runtime"));
	tc = g->axes[AX_TESTCASE];
	const json_t *map = tc ? json_object_get(job, tc) : NULL;

	axis_set(g, AX_MODE, json_object_get(map, "mode"));
	axis_set(g, AX_TEST, json_object_get(map, "test"));
	if (nr && (!num_parse_count(nr, 1, UINT_MAX, &count, NULL, 0) ||
		   (strchr(nr, '%') && !num_parse_percent(nr, 100, &pct, NULL, 0))))
		axis_set(g, AX_NR_TASK, json_object_get(job, "nr_task"));
}

int group_load(const char *dir, struct result_group *g, char *err, size_t errlen)
{
	char why[256], **names = NULL;
	struct stat st;
	ssize_t nnames;

	memset(g, 0, sizeof(*g));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", dir, errno ? strerror(errno) : "not a directory");
		return -1;
	}
	nnames = store_list_runs(dir, &names);
	if (nnames < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!nnames) {
		snprintf(err, errlen,
			 "%s is not a results group: expected a commit directory of a results tree "
			 "(<root>/<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/"
			 "<compiler>/<commit>/) holding numbered runs",
			 dir);
		free(names);
		return -1;
	}
	g->dir = strdup(dir);
	g->runs = calloc((size_t)nnames, sizeof(*g->runs));
	g->runs_cap = (size_t)nnames;
	g->stat_index = json_object();
	for (size_t i = 0; i < (size_t)nnames; i++) {
		if (load_stats(g, g->nruns, names[i], why, sizeof(why))) {
			if (errno == ENOENT || errno == ENOTDIR)
				add_note(g,
					 "%s: incomplete run (no " STORE_STATS_FILE "), skipped%s",
					 names[i], "");
			else
				add_note(g, "%s/" STORE_STATS_FILE ": corrupt (%s), run skipped",
					 names[i], why);
			free(names[i]);
			continue;
		}
		/* A run without a readable meta.json still counts: its stats are whole. */
		json_t *meta = store_read_meta(names[i], why, sizeof(why));
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
	bool all_meta = true;

	for (size_t i = 0; i < g->nruns; i++) {
		if (g->runs[i].meta)
			axes_from_meta(g, g->runs[i].meta);
		all_meta = all_meta && g->runs[i].meta;
	}
	/* Runs LKP made (and hand-made trees) have no meta.json: their job.yaml names the job. */
	if (!all_meta || !g->axes[AX_MODE] || !g->axes[AX_TEST] || !g->axes[AX_NR_TASK] ||
	    !g->axes[AX_RUNTIME]) {
		for (size_t i = 0; i < g->nruns && !g->job; i++)
			g->job = store_read_job(g->runs[i].dir, why, sizeof(why));
		if (g->job)
			axes_from_job(g, g->job);
	}
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
	free(g->lkp_kept);
	free(g->values);
	json_decref(g->stat_index);
	for (size_t i = 0; i < g->nnotes; i++)
		free(g->notes[i]);
	for (int a = 0; a < AX_COUNT; a++)
		free(g->axes[a]);
	json_decref(g->job);
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

/* Whether run's monitor of stat's family ran to the end of the window: its meta.json says
 * "monitors": {"<family>": {"status": "ok"}}.  Monitors leave out stats that stayed zero, as
 * LKP's dump-stat does; such a run's zero is a value (LKP fills it in too:
 * matrix_fill_missing_zeros), while a monitor that failed or was incomplete measured nothing. */
static bool monitor_ran(const struct run_record *run, const char *stat)
{
	const char *dot = strchr(stat, '.');
	const json_t *mons = json_object_get(run->meta, "monitors"), *m;

	if (!dot || !json_is_object(mons))
		return false;
	m = json_object_getn(mons, stat, (size_t)(dot - stat));
	return m && json_is_string(json_object_get(m, "status")) &&
	       !strcmp(json_string_value(json_object_get(m, "status")), "ok");
}

size_t group_values(const struct result_group *g, const char *stat, double *out)
{
	const double *col = stat_column(g, stat);
	size_t n = 0;

	/* A function in no run's profile of this group took 0% of its samples in each run whose
	 * profiler ran (LKP's perf-profile rows of a new function show 0 on the base side). */
	bool zero_if_absent = !col && !strncmp(stat, "perf-profile.", strlen("perf-profile."));

	for (size_t i = 0; (col || zero_if_absent) && i < g->nruns; i++)
		if (col && !isnan(col[i]))
			out[n++] = col[i];
		else if (monitor_ran(&g->runs[i], stat))
			out[n++] = 0;
	return n;
}

double run_started(const struct run_record *run)
{
	const char *s = json_string_value(json_object_get(run->meta, "started"));
	struct tm tm = {0};
	const char *end = s ? strptime(s, "%Y-%m-%dT%H:%M:%S%z", &tm) : NULL;

	if (!end || *end)
		return NAN;
	return (double)timegm(&tm) - (double)tm.tm_gmtoff;
}

size_t group_timed_values(const struct result_group *g, const char *stat, double *t, double *v)
{
	const double *col = stat_column(g, stat);
	size_t n = 0;

	for (size_t i = 0; col && i < g->nruns; i++) {
		double at = run_started(&g->runs[i]);

		if (!isnan(col[i]) && !isnan(at)) {
			t[n] = at;
			v[n++] = col[i];
		}
	}
	return n;
}

size_t group_ratio_values(const struct result_group *g, const char *stat, const char *by,
			  double *out)
{
	const double *col = stat_column(g, stat), *per = stat_column(g, by);
	size_t n = 0;

	for (size_t i = 0; col && per && i < g->nruns; i++)
		if (!isnan(col[i]) && !isnan(per[i]) && per[i] != 0)
			out[n++] = col[i] / per[i];
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
	if (stat_family_is_failure(stat))
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

enum stat_kind group_stat_kind(const struct result_group *g, size_t n, const char *stat)
{
	size_t family = strcspn(stat, ".");
	bool declared = false;

	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < g[i].nruns; r++) {
			json_t *mon = json_object_getn(json_object_get(g[i].runs[r].meta, "monitors"),
						       stat, family);
			json_t *rates = json_object_get(mon, "rates"), *v;
			size_t k;

			if (!json_is_array(rates))
				continue;
			declared = true;
			json_array_foreach (rates, k, v)
				if (json_is_string(v) && !strcmp(json_string_value(v), stat))
					return STAT_RATE;
		}
	return declared ? STAT_LEVEL : STAT_UNDECLARED;
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

int group_dir_stat(const char *dir, const char *want, char **stat, enum stat_direction *sdir,
		   char *err, size_t errlen)
{
	struct result_group g;
	const char *h;

	*stat = NULL;
	if (group_load(dir, &g, err, errlen))
		return -1;
	h = want ? want : group_headline_stat(&g, 1);
	if (!h)
		snprintf(err, errlen, "%s: its runs declare no headline stat; give --stat", dir);
	else if (!(*stat = strdup(h)))
		snprintf(err, errlen, "out of memory");
	else if (sdir)
		*sdir = group_stat_direction(&g, 1, h);
	group_free(&g);
	return *stat ? 0 : h ? -1 : -2;
}

/* LKP's memory as its host files write it: a number and a unit ("256G", "1.5T", "512GB"). */
static bool memory_word(const char *s)
{
	size_t n = strspn(s, "0123456789"),
	       frac = s[n] == '.' ? strspn(s + n + 1, "0123456789") : 0;

	if (!n || n > 12 || (s[n] == '.' && !frac))
		return false;
	n += frac ? frac + 1 : 0;
	return s[n] && strchr("KMGTP", s[n]) && (!s[n + 1] || !strcmp(s + n + 1, "B"));
}

void group_machine_of(const struct result_group *g, struct group_machine *m)
{
	const json_t *mach = g->nruns ? json_object_get(g->runs[0].meta, "machine") : NULL;
	const char *model = json_string_value(json_object_get(mach, "cpu_model"));
	const char *nr_cpu = json_string_value(json_object_get(g->job, "nr_cpu"));
	const char *brand = json_string_value(json_object_get(g->job, "brand"));
	const char *lkp_model = json_string_value(json_object_get(g->job, "model"));
	const char *memory = json_string_value(json_object_get(g->job, "memory"));
	json_int_t mem_kib = json_integer_value(json_object_get(mach, "memory_kib"));
	unsigned long long n;

	memset(m, 0, sizeof(*m));
	m->threads = json_integer_value(json_object_get(mach, "threads"));
	m->sockets = json_integer_value(json_object_get(mach, "sockets"));
	if (!m->threads && nr_cpu && !num_parse_count(nr_cpu, 1, 1u << 20, &n, NULL, 0))
		m->threads = (long long)n;
	if (model && *model)
		snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", model);
	else if (brand && *brand && lkp_model && *lkp_model) /* the robot's "... (Skylake)" */
		snprintf(m->cpu_model, sizeof(m->cpu_model), "%s (%s)", brand, lkp_model);
	else if (brand && *brand)
		snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", brand);
	else if (lkp_model && *lkp_model)
		snprintf(m->cpu_model, sizeof(m->cpu_model), "(%s)", lkp_model);
	if (mem_kib > 0)
		snprintf(m->memory, sizeof(m->memory), "%.0fG",
			 (double)mem_kib / (1024.0 * 1024.0));
	else if (memory && memory_word(memory))
		snprintf(m->memory, sizeof(m->memory), "%s", memory);
}

int group_plot_title(const struct result_group *g, const char *stat, char *out, size_t len)
{
	struct store_axes a;
	char why[256];
	int n;

	if (store_parse(g->dir, STORE_COMMIT_DIR, &a, why, sizeof(why)))
		n = snprintf(out, len, "%s", stat);
	else
		n = snprintf(out, len, "%s: %s", a.path_params, stat);
	store_axes_free(&a);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

size_t group_busy_runs(const struct result_group *g, const char **reason)
{
	size_t n = 0;

	*reason = NULL;
	for (size_t r = 0; r < g->nruns; r++) {
		const json_t *l = json_object_get(g->runs[r].meta, "machine_load");

		if (!json_is_true(json_object_get(l, "busy")))
			continue;
		if (!n++)
			*reason = json_string_value(json_object_get(l, "reason"));
	}
	return n;
}

/* The machine facts that tell models apart; memory is compared loosely (see results.h). */
static bool same_machine_model(const json_t *a, const json_t *b)
{
	const char *ma = json_string_value(json_object_get(a, "cpu_model"));
	const char *mb = json_string_value(json_object_get(b, "cpu_model"));
	json_int_t ta = json_integer_value(json_object_get(a, "threads"));
	json_int_t tb = json_integer_value(json_object_get(b, "threads"));
	double ka = (double)json_integer_value(json_object_get(a, "memory_kib"));
	double kb = (double)json_integer_value(json_object_get(b, "memory_kib"));

	if (strcmp(ma, mb) || (ta && tb && ta != tb))
		return false;
	return ka <= 0 || kb <= 0 || (ka <= kb * 1.1 && kb <= ka * 1.1);
}

static void machine_words(const json_t *m, char *buf, size_t len)
{
	const char *model = json_string_value(json_object_get(m, "cpu_model"));

	snprintf(buf, len, "'%s', %lld threads, %.1f GiB", text_safe(model ? model : "?"),
		 (long long)json_integer_value(json_object_get(m, "threads")),
		 (double)json_integer_value(json_object_get(m, "memory_kib")) / (1024 * 1024));
}

bool groups_mix_machines(const struct result_group *g, size_t n, char *msg, size_t len)
{
	const json_t *first = NULL;
	const char *first_dir = NULL;

	for (size_t k = 0; k < n; k++) {
		for (size_t r = 0; r < g[k].nruns; r++) {
			const json_t *m = json_object_get(g[k].runs[r].meta, "machine");
			char a[512], b[512];

			if (!json_is_string(json_object_get(m, "cpu_model")))
				continue;
			if (!first) {
				first = m;
				first_dir = g[k].runs[r].dir;
				continue;
			}
			if (same_machine_model(first, m))
				continue;
			machine_words(first, a, sizeof(a));
			machine_words(m, b, sizeof(b));
			snprintf(msg, len, "%s (seen in %s) and %s (seen in %s)", a,
				 text_safe(first_dir), b, text_safe(g[k].runs[r].dir));
			return true;
		}
	}
	return false;
}

bool groups_icount(const struct result_group *g, size_t n)
{
	size_t runs = 0;

	for (size_t k = 0; k < n; k++)
		for (size_t r = 0; r < g[k].nruns; r++, runs++)
			if (!json_is_true(json_object_get(json_object_get(g[k].runs[r].meta, "vm"),
							  "icount")))
				return false;
	return runs > 0;
}
