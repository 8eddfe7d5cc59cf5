/* The runner's loop.  Per run: a run of the results store begun (store/run_write.h) with
 * job.yaml and the testcase's output, the testcase through the counter core with the monitors
 * sampling over its measurement window (monitors/scheduler.h), then every stat and what the
 * analyzer needs to read them (meta.json) written, and the run moved to its number.  An
 * interrupted or unwritable run is removed whole. */
#include "run.h"
#include "vm.h"
#include "load.h"
#include "lkp_sweep.h"
#include "machine.h"
#include "tally.h"
#include "cgroup.h"
#include "../core/core.h"
#include "../core/summary.h"
#include "../lib/errors.h"
#include "../lib/file.h"
#include "../lib/text.h"
#include "../monitors/scheduler.h"
#include "../store/families.h"
#include "../store/layout.h"
#include "../store/run_write.h"
#include "../testcases/registry.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#ifndef SCALEBENCH_VERSION
#define SCALEBENCH_VERSION "0.1"
#endif

enum run_outcome {
	RUN_STORED,
	RUN_FAILED_STORED,
	RUN_SKIPPED,
	RUN_INTERRUPTED,
	RUN_ERROR,
	RUN_AGAIN, /* starved: discarded, to be measured again */
};

/* A run with a starved copy (core.h's starved_share below 1: it wanted a CPU most of the
 * window and got under a quarter of it) is measured again, RUN_STARVED_TRIES times at most
 * (run --starved-tries), then kept as it is; so is one failed only because a starved copy
 * made no progress. */
#define RUN_STARVED_TRIES 3

static unsigned starved_tries(const struct runner_opts *o)
{
	return o->starved_tries ? o->starved_tries : RUN_STARVED_TRIES;
}

/* runtest.py's idle figure over one window (lkp_sweep.h): /proc/stat's ticks of the copies'
 * CPUs at the window's start and end. */
struct idle_watch {
	int *cpus; /* the CPUs of the copies being measured, each once */
	size_t n_cpus;
	struct cpu_ticks before;
	bool have_before;
	double idle; /* percent, when ok */
	bool ok;
};

/* LKP's sweep inside one run (an atomic job without mode and nr_task; lkp_sweep.h). */
struct sweep_state {
	struct lkp_topology topo;
	unsigned *tasks;
	size_t n_tasks;
	double point_runtime_s;
	struct lkp_sweep_point *points;
	size_t n_points;
	bool idle_failed;
	bool window_open;
	json_t *point_meta; /* per point and mode: status, CPUs, window */
};

/* One run, from its callbacks to its cleanup. */
struct run_state {
	unsigned attempt; /* 0, or how many starved measurements of this run came before */
	const struct runner_opts *o;
	const struct job_file *job;
	const struct atomic_job *aj;
	const struct testcase *tc;
	const struct machine *m;
	const char *commit;
	unsigned index, total, k; /* progress: run index of total, repeat k */
	double window_end_s;
	time_t started;
	struct store_run run;
	FILE *output;
	bool output_measuring;
	struct monitor_set mons;
	struct machine_load load; /* what else ran over the window */
	bool load_started;
	struct core_result res;
	struct cgroup_run cg; /* the job's cgroup2, when it has one */
	struct run_summary sum;
	double run_elapsed_s;
	json_t *stats, *meta;
	struct sweep_state *sw; /* NULL: one mode at one task count */
	struct idle_watch idle; /* over the window being measured */
	char err[PATH_MAX + 1024];
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const char *suite_of(const struct testcase *tc)
{
	return tc->suite ? tc->suite : "will-it-scale";
}

/* The testcase axis of the layout: the job's testcase key (LKP's), else the suite. */
static const char *job_testcase_axis(const struct job_file *job, const struct testcase *tc)
{
	const json_t *v = json_object_get(job->tree, "testcase");

	if (json_is_string(v) && *json_string_value(v))
		return json_string_value(v);
	return suite_of(tc);
}

static int commit_dir_of(const struct runner_opts *o, const struct job_file *job,
			 const struct atomic_job *aj, const struct machine *m, const char *commit,
			 char *out, size_t len)
{
	const struct store_axes axes = {
	    .root = o->results_root,
	    .testcase = job_testcase_axis(job, testcase_find(aj->test)),
	    .path_params = aj->path_params,
	    .tbox_group = m->tbox_group,
	    .rootfs = m->rootfs,
	    .kconfig = m->kconfig,
	    .compiler = m->compiler,
	    .commit = commit,
	};

	return store_path(&axes, out, len);
}

/* ---- runtest.py's idle time ---------------------------------------------------------- */

/* The CPUs n copies are placed on, each once, as the core places them (none when placement
 * fails: the ticks are then the whole machine's, lkp_cpu_ticks with no CPU). */
static void idle_place(struct idle_watch *iw, unsigned n, bool smt)
{
	int *cpus = calloc(n ? n : 1, sizeof(*cpus));
	char err[256];

	free(iw->cpus);
	*iw = (struct idle_watch){.cpus = calloc(n ? n : 1, sizeof(*iw->cpus))};
	if (cpus && iw->cpus && placement_cpus(n, smt, cpus, err, sizeof(err)) == 0) {
		for (unsigned c = 0; c < n; c++) {
			size_t j = 0;

			while (j < iw->n_cpus && iw->cpus[j] != cpus[c])
				j++;
			if (j == iw->n_cpus && cpus[c] >= 0)
				iw->cpus[iw->n_cpus++] = cpus[c];
		}
	}
	free(cpus);
}

static int read_ticks(const struct idle_watch *iw, struct cpu_ticks *t)
{
	char *text = NULL;
	int ret;

	if (file_read("/proc/stat", 1 << 24, &text, NULL, NULL, 0))
		return -1;
	ret = lkp_cpu_ticks(text, iw->cpus, iw->n_cpus, t);
	free(text);
	return ret;
}

static void idle_start(struct idle_watch *iw)
{
	iw->have_before = read_ticks(iw, &iw->before) == 0;
	iw->ok = false;
}

static void idle_stop(struct idle_watch *iw)
{
	struct cpu_ticks after;

	iw->ok = iw->have_before && read_ticks(iw, &after) == 0;
	if (iw->ok)
		iw->idle = lkp_idle_percent(&iw->before, &after);
}

/* ---- callbacks from the core ---------------------------------------------------------- */

static void on_window(int phase, void *arg)
{
	struct run_state *rs = arg;

	cgroup_count(&rs->cg, phase);
	if (phase == CORE_WINDOW_START) {
		monitor_set_start(&rs->mons);
		machine_load_start(&rs->load);
		rs->load_started = true;
		idle_start(&rs->idle);
	} else {
		idle_stop(&rs->idle);
		monitor_set_stop(&rs->mons);
		if (rs->load_started)
			machine_load_stop(&rs->load);
	}
}

static void on_sample(const struct sample_window *w, size_t i, void *arg)
{
	struct run_state *rs = arg;
	struct interval_rates r;
	char line[128];

	if (i > w->measure_start && rs->load_started)
		machine_load_sample(&rs->load);
	if (interval_line(w, i, line, sizeof(line)) == 0) {
		if (i == 1 && w->measure_start != 0)
			fprintf(rs->output, "warmup\n");
		if (i > w->measure_start && !rs->output_measuring) {
			fprintf(rs->output, "measurement\n");
			rs->output_measuring = true;
		}
		fprintf(rs->output, "%s\n", line);
	}
	if (rs->o->quiet || !rs->o->tty || window_rates(w, i - 1, i, &r))
		return;
	double left = rs->window_end_s - (double)w->t_ns[i] / 1e9;
	printf("\r\033[K[%u/%u] %s run %u/%u: %s, %.0f s left, %.0f ops/s", rs->index, rs->total,
	       text_safe(rs->aj->name), rs->k, rs->o->repeat,
	       i > w->measure_start ? "measuring" : "warmup", left > 0 ? left : 0, r.total);
	fflush(stdout);
	sb_progress_shown(true);
}

/* ---- one run -------------------------------------------------------------------------- */

/* The run's job.yaml: its atomic job with the axes of its results path as LKP's runs carry
 * them (lib/job.rb's Job#axes reads tbox_group, rootfs, kconfig, compiler and commit there;
 * without them it makes up rootfs debian-x86_64.cgz and compiler gcc-7, and sbin/ncompare
 * finds no run of a commit), each the path's own component. */
static int write_job_yaml(struct run_state *rs, const char *commit_dir, FILE *fp)
{
	struct store_axes axes;
	struct atomic_job run = *rs->aj;
	char why[256];
	int bad;

	if (store_parse(commit_dir, STORE_COMMIT_DIR, &axes, why, sizeof(why)))
		return -1;
	run.tree = json_copy(rs->aj->tree);
	bad = !run.tree;
	if (!bad && !json_object_get(run.tree, "testcase"))
		bad = json_object_set_new(run.tree, "testcase", json_string(axes.testcase));
	bad = bad || json_object_set_new(run.tree, "tbox_group", json_string(axes.tbox_group)) ||
	      json_object_set_new(run.tree, "rootfs", json_string(axes.rootfs)) ||
	      json_object_set_new(run.tree, "kconfig", json_string(axes.kconfig)) ||
	      json_object_set_new(run.tree, "compiler", json_string(axes.compiler)) ||
	      json_object_set_new(run.tree, "commit", json_string(axes.commit)) ||
	      job_write_atomic(rs->job, &run, fp);
	json_decref(run.tree);
	store_axes_free(&axes);
	return bad ? -1 : 0;
}

/* The run begun in the store: job.yaml, and the output opened with its heading. */
static int run_begin(struct run_state *rs)
{
	char commit_dir[PATH_MAX];
	FILE *fp;
	int bad;

	if (commit_dir_of(rs->o, rs->job, rs->aj, rs->m, rs->commit, commit_dir,
			  sizeof(commit_dir))) {
		snprintf(rs->err, sizeof(rs->err), "%s: path too long", rs->o->results_root);
		return -1;
	}
	if (store_run_begin(&rs->run, commit_dir, rs->err, sizeof(rs->err)))
		return -1;
	fp = store_run_create(&rs->run, "job.yaml", rs->err, sizeof(rs->err));
	if (!fp)
		return -1;
	errno = 0;
	bad = write_job_yaml(rs, commit_dir, fp);
	if (store_run_close(&rs->run, fp, "job.yaml", rs->err, sizeof(rs->err)) || bad) {
		if (bad)
			snprintf(rs->err, sizeof(rs->err), "cannot write %s/job.yaml: %s",
				 rs->run.dir, strerror(errno ? errno : EIO));
		return -1;
	}
	rs->output = store_run_create(&rs->run, "output", rs->err, sizeof(rs->err));
	if (!rs->output)
		return -1;
	if (rs->sw)
		fprintf(rs->output,
			"testcase:%s\n%s: LKP sweep, both modes, warmup %.3g s, measurement %.3g s "
			"per point\n",
			rs->tc->description, rs->tc->name, rs->aj->warmup_s,
			rs->sw->point_runtime_s);
	else
		fprintf(rs->output,
			"testcase:%s\n%s: %s mode, %u copies, warmup %.3g s, measurement %.3g s\n",
			rs->tc->description, rs->tc->name, tc_mode_name(rs->aj->mode),
			rs->aj->nr_task, rs->aj->warmup_s, rs->aj->runtime_s);
	/* Written now: the core's fflush(NULL) before it forks would otherwise write it, and a
	 * full disk would surface at the end as an error without its errno. */
	if (fflush(rs->output)) {
		snprintf(rs->err, sizeof(rs->err), "cannot write %s/output: %s", rs->run.dir,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* How the core runs one measurement of rs: a plain run, or one point of LKP's sweep (every
 * point in the run's cgroup too, when the job has one).  The caller sets the callbacks. */
static struct core_config core_config_of(struct run_state *rs, enum tc_mode mode, unsigned n,
					 double runtime_s)
{
	return (struct core_config){
	    .tc = rs->tc,
	    .mode = mode,
	    .nr_copies = n,
	    .warmup_s = rs->aj->warmup_s,
	    .runtime_s = runtime_s,
	    .interval_s = rs->aj->interval_s,
	    .setup_timeout_s = 120,
	    .affinity = !rs->aj->no_affinity,
	    .smt = rs->aj->smt,
	    .tmpdir = rs->o->tmpdir,
	    .helper_dir = rs->o->helper_dir,
	    .cgroup_dir = rs->cg.created ? rs->cg.path : NULL,
	    .arg = rs,
	};
}

/* The testcase through the core, the monitors over its window. */
static int run_measure(struct run_state *rs)
{
	const struct atomic_job *aj = rs->aj;

	if (monitor_set_init(&rs->mons, aj->monitors, rs->o->no_monitors, rs->m->threads,
			     aj->runtime_s, aj->interval_s)) {
		snprintf(rs->err, sizeof(rs->err), "cannot set up the monitors: %s",
			 strerror(ENOMEM));
		return -1;
	}
	machine_load_init(&rs->load, NULL, NULL, rs->m->threads, aj->nr_task);
	rs->window_end_s = aj->warmup_s + aj->runtime_s;
	if (!rs->o->quiet && !rs->o->tty) {
		printf("[%u/%u] %s run %u/%u: %.10g s\n", rs->index, rs->total, text_safe(aj->name), rs->k,
		       rs->o->repeat, aj->warmup_s + aj->runtime_s);
		fflush(stdout);
	}

	struct core_config cfg = core_config_of(rs, aj->mode, aj->nr_task, aj->runtime_s);

	idle_place(&rs->idle, aj->nr_task, aj->smt);
	cfg.on_sample = on_sample;
	cfg.on_window = on_window;
	double t = now_s();
	core_run(&cfg, &rs->res);
	rs->run_elapsed_s = now_s() - t;
	if (rs->o->tty && !rs->o->quiet) {
		printf("\r\033[K");
		fflush(stdout);
		sb_progress_shown(false);
	}
	if (cgroup_remove(&rs->cg, rs->err, sizeof(rs->err)))
		sb_error("%s: %s", aj->name, rs->err);
	monitor_set_stop(&rs->mons);
	return 0;
}

/* ---- LKP's sweep in one run ---------------------------------------------------------- */

static void sweep_free(struct sweep_state *sw)
{
	if (!sw)
		return;
	free(sw->tasks);
	free(sw->points);
	json_decref(sw->point_meta);
	free(sw);
}

/* The task counts LKP would sweep on this machine and each point's window. */
static int sweep_prepare(struct run_state *rs)
{
	struct sweep_state *sw = calloc(1, sizeof(*sw));
	char err[256];

	if (!sw) {
		snprintf(rs->err, sizeof(rs->err), "out of memory");
		return -1;
	}
	rs->sw = sw;
	if (lkp_topology_probe(&sw->topo, err, sizeof(err))) {
		snprintf(rs->err, sizeof(rs->err), "LKP sweep: %s", err);
		return -1;
	}
	if (lkp_threads_to_iterate(&sw->topo, &sw->tasks, &sw->n_tasks)) {
		snprintf(rs->err, sizeof(rs->err),
			 "LKP sweep: no task counts for %u CPUs, %u nodes, %u threads per core "
			 "(LKP: 'Invalid nr_cpu, nr_node or threads_per_core')",
			 sw->topo.nr_cpu, sw->topo.nr_node, sw->topo.threads_per_core);
		return -1;
	}
	while (sw->n_tasks && sw->tasks[sw->n_tasks - 1] > CORE_MAX_COPIES)
		sw->n_tasks--;
	sw->point_runtime_s = lkp_sweep_point_runtime(rs->aj->runtime_s, sw->topo.nr_node);
	sw->points = calloc(sw->n_tasks ? sw->n_tasks : 1, sizeof(*sw->points));
	sw->point_meta = json_array();
	if (!sw->points || !sw->point_meta) {
		snprintf(rs->err, sizeof(rs->err), "out of memory");
		return -1;
	}
	return 0;
}

/* The monitors and the load watch run once over the whole sweep (LKP's monitors run over
 * the whole job); the idle time is read over each point's window, on the copies' CPUs. */
static void sweep_on_window(int phase, void *arg)
{
	struct run_state *rs = arg;
	struct sweep_state *sw = rs->sw;

	if (phase == CORE_WINDOW_START) {
		if (!rs->load_started) {
			monitor_set_start(&rs->mons);
			machine_load_start(&rs->load);
			rs->load_started = true;
		}
		idle_start(&rs->idle);
		sw->window_open = true;
	} else {
		sw->window_open = false;
		idle_stop(&rs->idle);
	}
}

static void sweep_on_sample(const struct sample_window *w, size_t i, void *arg)
{
	struct run_state *rs = arg;

	if (i > w->measure_start && rs->sw->window_open)
		machine_load_sample(&rs->load);
}

/* One point in one mode: its ops/s of all copies (will-it-scale's "average:") and idle. */
static enum core_status sweep_point(struct run_state *rs, enum tc_mode mode, unsigned n,
				    unsigned long long *ops_s, double *idle)
{
	struct sweep_state *sw = rs->sw;
	struct core_result res = {0};
	struct run_summary sum;

	*ops_s = 0;
	*idle = 0;
	idle_place(&rs->idle, n, rs->aj->smt);

	struct core_config cfg = core_config_of(rs, mode, n, sw->point_runtime_s);

	cfg.on_sample = sweep_on_sample;
	cfg.on_window = sweep_on_window;
	core_run(&cfg, &res);
	run_summarize(&res, mode, n, &sum);
	json_t *pm = json_pack("{s:i, s:s, s:s}", "tasks", (int)n, "mode", tc_mode_name(mode),
			       "status", core_status_name(res.status));

	if (pm && rs->idle.n_cpus) {
		json_t *c = json_array();

		for (size_t j = 0; j < rs->idle.n_cpus; j++)
			json_array_append_new(c, json_integer(rs->idle.cpus[j]));
		json_object_set_new(pm, "idle_cpus", c);
	}
	if (res.status == CORE_OK) {
		*ops_s = (unsigned long long)sum.total_ops;
		rs->sum.window_ops += sum.window_ops;
		rs->sum.window_s += sum.window_s;
		if (pm)
			json_object_set_new(pm, "window_s", json_real(sum.window_s));
	} else if (res.status != CORE_INTERRUPTED) {
		if (rs->res.status == CORE_OK) {
			rs->res.status = CORE_FAILED;
			snprintf(rs->res.failure, sizeof(rs->res.failure), "%s", res.failure);
		}
		if (pm)
			json_object_set_new(pm, "failure", json_string(res.failure));
	}
	if (rs->idle.ok)
		*idle = rs->idle.idle;
	else
		sw->idle_failed = true;
	if (pm)
		json_array_append_new(sw->point_meta, pm);
	enum core_status st = res.status;

	core_result_free(&res);
	return st;
}

/* runtest.py's loop: each task count in process then thread mode, its table line written as
 * it completes; linear is the better 1-task rate times the task count. */
static int sweep_measure(struct run_state *rs)
{
	struct sweep_state *sw = rs->sw;
	unsigned long long linear1 = 0;
	unsigned max_n = sw->n_tasks ? sw->tasks[sw->n_tasks - 1] : 1;

	if (monitor_set_init(&rs->mons, rs->aj->monitors, rs->o->no_monitors, rs->m->threads,
			     sw->point_runtime_s * 2 * (double)sw->n_tasks, rs->aj->interval_s)) {
		snprintf(rs->err, sizeof(rs->err), "cannot set up the monitors: %s",
			 strerror(ENOMEM));
		return -1;
	}
	machine_load_init(&rs->load, NULL, NULL, rs->m->threads, max_n);
	rs->res.status = CORE_OK;
	if (!rs->o->quiet) {
		printf("[%u/%u] %s run %u/%u: LKP sweep, both modes at", rs->index, rs->total,
		       text_safe(rs->aj->name), rs->k, rs->o->repeat);
		for (size_t i = 0; i < sw->n_tasks; i++)
			printf("%s%u", i ? "," : " ", sw->tasks[i]);
		printf(" tasks, %.0f s each\n", sw->point_runtime_s + rs->aj->warmup_s);
		fflush(stdout);
	}
	lkp_sweep_header(rs->output);
	double t = now_s();

	for (size_t i = 0; i < sw->n_tasks; i++) {
		struct lkp_sweep_point *p = &sw->points[i];

		p->tasks = sw->tasks[i];
		if (sweep_point(rs, TC_MODE_PROCESS, p->tasks, &p->processes,
				&p->processes_idle) == CORE_INTERRUPTED)
			break;
		if (testcase_supports(rs->tc, TC_MODE_THREAD) &&
		    sweep_point(rs, TC_MODE_THREAD, p->tasks, &p->threads, &p->threads_idle) ==
			CORE_INTERRUPTED)
			break;
		if (p->tasks == 1)
			linear1 = p->processes > p->threads ? p->processes : p->threads;
		p->linear = linear1 * p->tasks;
		lkp_sweep_line(rs->output, p);
		sw->n_points++;
		if (core_interrupted())
			break;
	}
	rs->run_elapsed_s = now_s() - t;
	if (cgroup_remove(&rs->cg, rs->err, sizeof(rs->err)))
		sb_error("%s: %s", rs->aj->name, rs->err);
	monitor_set_stop(&rs->mons);
	if (rs->load_started)
		machine_load_stop(&rs->load);
	if (core_interrupted()) {
		rs->res.status = CORE_INTERRUPTED;
		return 0;
	}
	/* The run's headline, as the tally and the line after it show it: LKP's figures. */
	json_t *st = json_object();
	char name[256];

	lkp_sweep_stats(sw->points, sw->n_points, suite_of(rs->tc), st);
	snprintf(name, sizeof(name), "%s.per_process_ops", suite_of(rs->tc));
	rs->sum.per_copy_ops = json_number_value(json_object_get(st, name));
	snprintf(name, sizeof(name), "%s.workload", suite_of(rs->tc));
	rs->sum.total_ops = json_number_value(json_object_get(st, name));
	json_decref(st);
	return 0;
}

/* What meta.json says of the sweep: how its points were chosen and measured. */
static json_t *sweep_meta(const struct sweep_state *sw)
{
	json_t *tasks = json_array();

	for (size_t i = 0; i < sw->n_tasks; i++)
		json_array_append_new(tasks, json_integer(sw->tasks[i]));
	return json_pack("{s:o, s:f, s:{s:i, s:i, s:i, s:i, s:i}, s:s, s:b, s:O}", "tasks", tasks,
			 "point_runtime_s", sw->point_runtime_s, "topology", "nr_cpu",
			 (int)sw->topo.nr_cpu, "nr_node", (int)sw->topo.nr_node,
			 "threads_per_core", (int)sw->topo.threads_per_core, "nr_l2",
			 (int)sw->topo.nr_l2, "nr_l3", (int)sw->topo.nr_l3, "idle",
			 "per-CPU /proc/stat of the copies' CPUs over each point's window",
			 "idle_complete", !sw->idle_failed, "points", sw->point_meta);
}

/* Failures as stats, LKP style, each listed in failures: the core's first (stderr.*), then
 * every other stat of a failure family (the kernel warnings the monitors found: dmesg.*,
 * kmsg.*). */
static void add_failures(struct run_state *rs, json_t *failures)
{
	char stat[256] = "";
	const char *name;
	json_t *v;

	if (rs->res.status == CORE_FAILED) {
		failure_stat_name(rs->res.failure, stat, sizeof(stat));
		json_object_set_new(rs->stats, stat, json_integer(1));
		json_array_append_new(failures, json_string(stat));
	}
	json_object_foreach (rs->stats, name, v) {
		if (stat_family_is_failure(name) && strcmp(name, stat))
			json_array_append_new(failures, json_string(name));
	}
}

static json_t *run_meta(struct run_state *rs, json_t *monitors, json_t *failures)
{
	const struct atomic_job *aj = rs->aj;
	const struct core_result *res = &rs->res;
	char started[64];
	json_t *meta;

	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%S%z", localtime(&rs->started));
	meta = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:f, s:f, s:f, s:s, s:O, s:O, s:s}",
			 "scalebench", SCALEBENCH_VERSION, "job", rs->job->path, "atomic_job",
			 aj->name, "path_params", aj->path_params, "commit", rs->commit, "testcase",
			 rs->tc->name, "mode", rs->sw ? "both" : tc_mode_name(aj->mode),
			 "nr_task", (int)aj->nr_task,
			 "runtime_s", aj->runtime_s, "warmup_s", aj->warmup_s, "interval_s",
			 aj->interval_s, "status",
			 core_status_name(res->status), "monitors", monitors, "failure_stats",
			 failures, "started", started);
	if (!meta)
		return NULL;
	json_object_set_new(meta, "machine", machine_json(rs->m));
	json_t *vm = vm_guest_meta();
	if (vm)
		json_object_set_new(meta, "vm", vm);
	if (rs->load_started)
		json_object_set_new(meta, "machine_load", machine_load_json(&rs->load));
	if (res->status != CORE_OK)
		json_object_set_new(meta, "failure", json_string(res->failure));
	if (rs->cg.created)
		json_object_set_new(meta, "cgroup2", cgroup_meta(&rs->cg));
	if (res->cpus) {
		json_t *cpus = json_array();

		for (unsigned c = 0; c < aj->nr_task; c++)
			json_array_append_new(cpus, json_integer(res->cpus[c]));
		json_object_set_new(meta, "cpus", cpus);
	}
	if (rs->job->n_notes) {
		json_t *notes = json_array();

		for (size_t i = 0; i < rs->job->n_notes; i++)
			json_array_append_new(notes, json_string(rs->job->notes[i]));
		json_object_set_new(meta, "notes", notes);
	}
	return meta;
}

/* A run at one task count as a line of runtest.py's table: LKP runs such a job as runtest.py
 * at that one count in that one mode, the other mode's cells 0 and linear 0 unless the count
 * is 1 (runtest.py sets it at 1 task only).  None for a run that did not succeed (parse
 * skips its line) or a testcase of another suite (not will-it-scale's parse) or a sweep. */
static bool plain_point(const struct run_state *rs, struct lkp_sweep_point *p)
{
	unsigned long long ops = (unsigned long long)rs->sum.total_ops;
	double idle = rs->idle.ok ? rs->idle.idle : 0;

	if (rs->sw || rs->res.status != CORE_OK || rs->sum.window_s <= 0 || rs->tc->cost_stat ||
	    strcmp(suite_of(rs->tc), "will-it-scale"))
		return false;
	*p = (struct lkp_sweep_point){.tasks = rs->aj->nr_task};
	if (rs->aj->mode == TC_MODE_PROCESS) {
		p->processes = ops;
		p->processes_idle = idle;
	} else {
		p->threads = ops;
		p->threads_idle = idle;
	}
	p->linear = p->tasks == 1 ? ops : 0;
	return true;
}

/* The output's last line, and the output closed: nothing it holds may be lost. */
static int run_close_output(struct run_state *rs)
{
	FILE *fp = rs->output;
	struct lkp_sweep_point p;

	if (plain_point(rs, &p)) {
		/* what LKP's parse reads, before the line a reader of the output looks at */
		lkp_sweep_header(fp);
		lkp_sweep_line(fp, &p);
	}
	if (rs->sw && rs->res.status == CORE_OK)
		; /* runtest.py's table is the output's last lines, as parse reads them */
	else if (rs->res.status == CORE_OK)
		fprintf(fp, "%s: %s %.0f workload %.0f\n", rs->tc->name,
			per_copy_stat_name(rs->aj->mode), rs->sum.per_copy_ops, rs->sum.total_ops);
	else
		fprintf(fp, "FAILED: %s\n", rs->res.failure);
	rs->output = NULL;
	return store_run_close(&rs->run, fp, "output", rs->err, sizeof(rs->err));
}

/* What the analyzer reads the run's stats by: the testcase's suite, its headline stat and
 * the direction that is better. */
static int declare_roles(struct run_state *rs)
{
	const struct testcase *tc = rs->tc;
	char stat[256];

	/* A sweep has no cost figure: its headline is LKP's per_process_ops. */
	bool cost = tc->cost_stat && !rs->sw;

	snprintf(stat, sizeof(stat), "%s.%s", suite_of(tc),
		 cost ? tc->cost_stat : per_copy_stat_name(rs->aj->mode));
	const struct store_headline h = {
	    .suite = suite_of(tc),
	    .stat = stat,
	    .lower_is_better = cost || (tc->lower_is_better && !rs->sw),
	};
	return store_meta_declare(rs->meta, &h, rs->stats);
}

/* What the run measured, into the store: the output's last line, stats.json (the testcase's,
 * the monitors', the failures'), the raw monitor samples and meta.json, then the run moved to
 * its number. */
static int run_store(struct run_state *rs)
{
	json_t *monitors, *failures;
	int ret = -1;

	if (run_close_output(rs))
		return -1;
	monitors = json_object();
	failures = json_array();
	rs->stats = json_object();
	if (rs->sw) {
		lkp_sweep_stats(rs->sw->points, rs->sw->n_points, suite_of(rs->tc), rs->stats);
	} else {
		struct lkp_sweep_point p;

		testcase_stats(rs->tc, &rs->sum, rs->stats);
		if (plain_point(rs, &p))
			lkp_point_stats(&p, suite_of(rs->tc), rs->stats);
	}
	cgroup_stats(&rs->cg, rs->stats);
	const struct monitor_window window = {
	    .ops = rs->sum.window_ops,
	    .window_s = rs->sum.window_s > 0 ? rs->sum.window_s : rs->aj->runtime_s,
	    .run_elapsed_s = rs->run_elapsed_s,
	};
	monitor_set_reduce(&rs->mons, &window, rs->stats, monitors);
	for (size_t i = 0; i < rs->mons.n; i++) {
		const struct monitor_run *r = &rs->mons.v[i];

		if (r->started && store_run_write_raw(&rs->run, r->m->name, r->m->compress_raw,
						      r->ctx.raw, rs->err, sizeof(rs->err)))
			goto out;
	}
	add_failures(rs, failures);
	rs->meta = run_meta(rs, monitors, failures);
	if (rs->meta && rs->sw)
		json_object_set_new(rs->meta, "sweep", sweep_meta(rs->sw));
	if (!rs->meta || declare_roles(rs)) {
		snprintf(rs->err, sizeof(rs->err), "cannot make meta.json: %s", strerror(ENOMEM));
		goto out;
	}
	/* A signal that came after the window leaves this run whole: it is kept, and the
	 * caller stops before the next one. */
	ret = store_run_finish(&rs->run, rs->meta, rs->stats, rs->err, sizeof(rs->err));
out:
	json_decref(monitors);
	json_decref(failures);
	return ret;
}

static void run_free(struct run_state *rs)
{
	if (rs->output)
		fclose(rs->output);
	store_run_abort(&rs->run);
	monitor_set_free(&rs->mons);
	core_result_free(&rs->res);
	cgroup_remove(&rs->cg, NULL, 0);
	cgroup_free(&rs->cg);
	json_decref(rs->stats);
	json_decref(rs->meta);
	sweep_free(rs->sw);
	rs->sw = NULL;
	free(rs->idle.cpus);
	rs->idle = (struct idle_watch){0};
}

/* A stored run into the job's tally and, unless quiet, its line: the headline or the failure,
 * and where it went. */
static void run_report(const struct run_state *rs, enum run_outcome out, struct job_tally *tally)
{
	const struct atomic_job *aj = rs->aj;

	if (out == RUN_STORED) {
		tally->ok++;
		tally->per_copy_ops += rs->sum.per_copy_ops;
		tally->total_ops += rs->sum.total_ops;
		if (rs->sw && rs->stats) {
			char name[256];
			json_t *sc;

			snprintf(name, sizeof(name), "%s.scalability", suite_of(rs->tc));
			sc = json_object_get(rs->stats, name);
			if (sc) {
				tally->scalability += json_number_value(sc);
				tally->n_scalability++;
			}
		}
	} else {
		tally->failed++;
	}
	if (rs->o->quiet) {
		/* -q keeps errors: a failed run says why (a Slurm task's output tail, a bisect's
		 * log), once, on stderr. */
		if (out != RUN_STORED)
			sb_error("%s run %u/%u: FAILED (%s) -> %s", aj->name, rs->k, rs->o->repeat,
				 rs->res.failure, rs->run.dir);
		return;
	}
	if (out == RUN_STORED)
		printf("[%u/%u] %s run %u/%u: %s %.0f -> %s\n", rs->index, rs->total,
		       text_safe(aj->name), rs->k, rs->o->repeat, per_copy_stat_name(aj->mode),
		       rs->sum.per_copy_ops, text_safe(rs->run.dir));
	else
		printf("[%u/%u] %s run %u/%u: FAILED (%s) -> %s\n", rs->index, rs->total,
		       text_safe(aj->name), rs->k, rs->o->repeat, text_safe(rs->res.failure),
		       text_safe(rs->run.dir));
	fflush(stdout);
}

static enum run_outcome run_one(struct run_state *rs, struct job_tally *tally)
{
	const struct atomic_job *aj = rs->aj;
	enum run_outcome out;

	rs->started = time(NULL);
	if ((aj->sweep && sweep_prepare(rs)) || run_begin(rs) ||
	    cgroup_begin(&rs->cg, aj->tree, rs->err, sizeof(rs->err)) ||
	    (rs->sw ? sweep_measure(rs) : run_measure(rs))) {
		out = RUN_ERROR;
	} else if (rs->res.status == CORE_INTERRUPTED) {
		out = RUN_INTERRUPTED;
	} else if (!rs->sw &&
		   (rs->res.status == CORE_OK ||
		    (rs->res.status == CORE_FAILED && rs->res.no_progress)) &&
		   rs->res.starved_share < 1 &&
		   rs->attempt + 1 < starved_tries(rs->o)) {
		if (!rs->o->quiet)
			sb_note("%s run %u/%u: a copy ran on a CPU %.0f%% of the window, starved by "
				"other tasks: measured again",
				text_safe(aj->name), rs->k, rs->o->repeat,
				100 * rs->res.starved_share);
		out = RUN_AGAIN;
	} else {
		if (!rs->sw)
			run_summarize(&rs->res, aj->mode, aj->nr_task, &rs->sum);
		if (rs->res.status == CORE_SKIPPED) {
			sb_error("%s: %s (not stored)", aj->name, rs->res.failure);
			out = RUN_SKIPPED;
		} else if (run_store(rs)) {
			out = RUN_ERROR;
		} else {
			out = rs->res.status == CORE_OK ? RUN_STORED : RUN_FAILED_STORED;
			run_report(rs, out, tally);
		}
	}
	if (out == RUN_ERROR)
		sb_error("%s: %s; the run was discarded", aj->name, rs->err);
	run_free(rs);
	return out;
}

static int dry_run(const struct job_file *job, const struct runner_opts *o, const struct machine *m,
		   const char *commit)
{
	double total = 0;
	unsigned runs = 0;

	for (size_t a = 0; a < job->n_atomic; a++) {
		const struct atomic_job *aj = &job->atomic[a];
		char dir[PATH_MAX];

		if (commit_dir_of(o, job, aj, m, commit, dir, sizeof(dir))) {
			sb_error("%s: %s: path too long", aj->name, o->results_root);
			return 1;
		}
		if (aj->sweep) {
			struct lkp_topology t;
			unsigned *tasks = NULL;
			size_t n = 0;
			char err[256];

			printf("%s: %s, LKP sweep, both modes at", aj->name, aj->test);
			if (lkp_topology_probe(&t, err, sizeof(err)) == 0 &&
			    lkp_threads_to_iterate(&t, &tasks, &n) == 0) {
				for (size_t i = 0; i < n; i++)
					printf("%s%u", i ? "," : " ", tasks[i]);
				printf(" tasks, %.3g s + %.3g s warmup each",
				       lkp_sweep_point_runtime(aj->runtime_s, t.nr_node),
				       aj->warmup_s);
				/* both modes at every task count */
				total += 2.0 * (double)n * o->repeat *
					 (lkp_sweep_point_runtime(aj->runtime_s, t.nr_node) +
					  aj->warmup_s);
				runs += 2 * (unsigned)n * o->repeat;
			} else {
				printf(" ? tasks (cannot read the topology)");
			}
			free(tasks);
			printf(", %u run%s -> %s/\n", o->repeat, o->repeat == 1 ? "" : "s", dir);
			continue;
		}
		printf("%s: %s, %s mode, %u cop%s, %.3g s + %.3g s warmup, %u run%s -> %s/\n",
		       aj->name, aj->test, tc_mode_name(aj->mode), aj->nr_task,
		       aj->nr_task == 1 ? "y" : "ies", aj->runtime_s, aj->warmup_s, o->repeat,
		       o->repeat == 1 ? "" : "s", dir);
		total += o->repeat * (aj->runtime_s + aj->warmup_s);
		runs += o->repeat;
	}
	/* What the windows take: setup, monitors and the machine probe come on top. */
	printf("in all: %zu atomic job%s, %u run%s, %.0f s of warmups and windows (%.1f min; "
	       "setup and monitors on top)\n",
	       job->n_atomic, job->n_atomic == 1 ? "" : "s", runs, runs == 1 ? "" : "s", total,
	       total / 60);
	return 0;
}

/* Every atomic job's cgroup2 made once and removed before the first run: a key or value the
 * kernel refuses stops the command before anything runs, and each controller the hierarchy
 * cannot enable is said once. */
static int cgroup_precheck(const struct job_file *job)
{
	json_t *said = json_object(), *checked = json_array();
	int ret = 0;

	for (size_t a = 0; a < job->n_atomic && !ret; a++) {
		json_t *spec = json_object_get(job->atomic[a].tree, "cgroup2");
		json_t *memory = json_object_get(job->atomic[a].tree, "memory");
		json_t *pair = spec ? json_pack("[O, O]", spec, memory ? memory : json_null())
				    : NULL;
		struct cgroup_run cg;
		char err[PATH_MAX + 1024];
		size_t k;

		/* Atomic jobs mostly share one cgroup2 map (and memory: its percentages are of):
		 * each different one is made once. */
		for (k = 0; pair && k < json_array_size(checked); k++)
			if (json_equal(pair, json_array_get(checked, k)))
				break;
		if (!pair || k < json_array_size(checked)) {
			json_decref(pair);
			continue;
		}
		json_array_append_new(checked, pair);
		if (cgroup_begin(&cg, job->atomic[a].tree, err, sizeof(err))) {
			sb_error("%s: %s", job->atomic[a].name, err);
			ret = -1;
			break;
		}
		for (size_t i = 0; i < cg.n_missing; i++) {
			cgroup_missing_note(&cg, i, err, sizeof(err));
			if (!json_object_get(said, err)) {
				sb_note("%s", err);
				json_object_set_new(said, err, json_null());
			}
		}
		if (cgroup_remove(&cg, err, sizeof(err))) {
			sb_error("%s: %s", job->atomic[a].name, err);
			ret = -1;
		}
		cgroup_free(&cg);
	}
	json_decref(said);
	json_decref(checked);
	return ret;
}

/* The runs measured on a busy machine, each with its reason, for the warning at the end. */
struct busy_runs {
	char **v;
	size_t n;
};

static void busy_add(struct busy_runs *b, const struct run_state *rs)
{
	char **v = realloc(b->v, (b->n + 1) * sizeof(*v));

	if (!v)
		return;
	b->v = v;
	if (asprintf(&b->v[b->n], "%s run %u/%u: %s", rs->aj->name, rs->k, rs->o->repeat,
		     rs->load.reason) >= 0)
		b->n++;
}

/* Said at the end, where it is read with the results: their spread and even their means may
 * be the other tasks', not the kernel's. */
/* Said unless -q: a quiet run keeps it in meta.json (machine_load.busy) and compare says it,
 * while a bisection or a Slurm task running it batch after batch is not filled with it. */
static void busy_warn(const struct busy_runs *b, bool quiet)
{
	if (!b->n || quiet)
		return;
	sb_error("warning: %zu run%s measured on a busy machine (compare will say so; rerun on "
		 "an idle one to trust them):",
		 b->n, b->n == 1 ? " was" : "s were");
	for (size_t i = 0; i < b->n; i++)
		fprintf(stderr, "  %s\n", b->v[i]);
}

static void busy_free(struct busy_runs *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->v[i]);
	free(b->v);
}

int runner_run(const struct job_file *job, const struct runner_opts *o)
{
	struct machine m;
	struct utsname u;
	char commit[256];
	const char *kconfig = o->kconfig;
	unsigned total = (unsigned)job->n_atomic * o->repeat, stored = 0;
	bool failed = false, interrupted = false;
	struct job_tally *tally;
	struct busy_runs busy = {0};

	if (!kconfig && json_is_string(json_object_get(job->tree, "kconfig")))
		kconfig = json_string_value(json_object_get(job->tree, "kconfig"));
	machine_probe(&m, kconfig);
	if (o->commit)
		snprintf(commit, sizeof(commit), "%s", o->commit);
	else
		snprintf(commit, sizeof(commit), "%s", uname(&u) == 0 ? u.release : "unknown");
	if (o->dry_run) {
		int rc = dry_run(job, o, &m, commit);

		return core_interrupted() ? 128 + core_interrupt_signal() : rc;
	}

	if (cgroup_precheck(job))
		return 1;
	tally = calloc(job->n_atomic, sizeof(*tally));
	if (!tally)
		return 1;
	for (unsigned i = 0; i < total && !interrupted; i++) {
		/* Back to back: every run of one atomic job, then the next; interleaved: one
		 * run of every atomic job per round, so slow drifts spread evenly. */
		size_t a = o->interleave ? i % job->n_atomic : i / o->repeat;
		unsigned k = o->interleave ? i / (unsigned)job->n_atomic + 1 : i % o->repeat + 1;
		struct run_state rs;
		enum run_outcome r;
		unsigned attempt = 0;

		if (core_interrupted())
			break;
		do {
			rs = (struct run_state){.attempt = attempt++,
						.o = o,
						.job = job,
						.aj = &job->atomic[a],
						.tc = testcase_find(job->atomic[a].test),
						.m = &m,
						.commit = commit,
						.index = i + 1,
						.total = total,
						.k = k};
			r = run_one(&rs, &tally[a]);
		} while (r == RUN_AGAIN && !core_interrupted());
		if (r == RUN_AGAIN)
			r = RUN_INTERRUPTED;
		if (r == RUN_ERROR) {
			busy_free(&busy);
			free(tally);
			return 1;
		}
		if ((r == RUN_STORED || r == RUN_FAILED_STORED) && rs.load.busy)
			busy_add(&busy, &rs);
		interrupted = r == RUN_INTERRUPTED;
		failed |= r == RUN_FAILED_STORED;
		stored += r == RUN_STORED || r == RUN_FAILED_STORED;
	}
	if (interrupted || core_interrupted()) {
		busy_warn(&busy, o->quiet);
		busy_free(&busy);
		free(tally);
		sb_error(
		    "interrupted by signal %d; the run in progress was discarded, %u completed "
		    "run%s kept",
		    core_interrupt_signal(), stored, stored == 1 ? "" : "s");
		return 128 + core_interrupt_signal();
	}
	if (!o->quiet)
		tally_print(job, tally);
	/* Last, after the table: what it says may be the other tasks' doing. */
	fflush(stdout);
	busy_warn(&busy, o->quiet);
	busy_free(&busy);
	free(tally);
	return failed ? 1 : 0;
}
