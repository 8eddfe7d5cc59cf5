/* scalebench bench: run one testcase at one or more task counts and print what
 * will-it-scale would, plus a scalability table for a sweep. */
#include "builtin.h"
#include "../lib/num.h"
#include "../lib/outfile.h"
#include "../lib/xalloc.h"
#include "../core/core.h"
#include "../testcases/registry.h"
#include "../core/summary.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct command_def bench_command = {
    .name = "bench",
    .args = "TESTCASE",
    .alt = "--plugin FILE.so [TESTCASE] [options]",
    .summary = "Run a testcase's copies and measure their throughput.",
    .details =
	"Every copy runs the testcase's loop and counts its ops; the sampler reads all\n"
	"counters about once a second.  Per interval it prints will-it-scale's line\n"
	"  min:<slowest copy> max:<fastest copy> total:<all copies>   (ops/s)\n"
	"then per_process_ops (thread mode: per_thread_ops) = mean ops/s of one copy over\n"
	"the window, and workload = ops/s of all copies together (LKP's meaning).\n"
	"Testcases whose figure is a cost also report it (us_per_event = 1e6 / ops/s).\n"
	"With several task counts a scalability table follows: linear = the per-copy rate\n"
	"of the smallest count times the copies; scalability = total / linear.\n"
	"\nA plug-in is a shared object built against <scalebench/testcase.h>; with one\n"
	"testcase in it, TESTCASE may be left out.\n"
	"\nexit status: 0 all runs ok or skipped, 1 a run failed (a copy crashed, exited or\n"
	"got stuck), 2 bad usage, 128+N interrupted by signal N.\n",
};

struct bench_opts {
	const struct testcase *tc;
	enum tc_mode modes[2];
	size_t nmodes;
	const char *mode_arg;
	struct option_tasks tasks;
	double runtime_s, warmup_s, interval_s, setup_timeout_s;
	bool affinity, smt, quiet, verbose;
	const char *json_path;
	const char *tmpdir;
	char helper_dir[PATH_MAX];
};

static void print_testcases(FILE *out)
{
	fprintf(out, "testcases:\n");
	for (size_t i = 0; testcase_table[i]; i++)
		if (testcase_listed(testcase_table[i]))
			options_wrap(out, testcase_table[i]->description,
				     (size_t)fprintf(out, "  %-20s ", testcase_table[i]->name), 25);
	for (size_t i = 0; i < plugin_count(); i++) {
		char *text = xasprintf("%s (plug-in)", plugin_testcase(i)->description);

		options_wrap(out, text, (size_t)fprintf(out, "  %-20s ", plugin_testcase(i)->name),
			     25);
		free(text);
	}
}

/* The options into o, the testcase resolved: -1 to go on, else the exit status.  o->tasks.v
 * is allocated either way. */
static int parse_bench_args(int argc, char **argv, struct bench_opts *o)
{
	size_t nplugins = 0;
	const struct option_def opts[] = {
	    {OPT_CHOICE("mode", 'm', &o->mode_arg), .choices = "process|thread|both",
	     .def = "process",
	     .help = "copies are processes or threads; both: the sweep in process mode, then in "
		     "thread mode"},
	    {OPT_TASKS("tasks", 't', &o->tasks), .def = "1", .max = CORE_MAX_COPIES,
	     .help = "copies: N, a list 1,2,4, a range 1-8, or 50% of online CPUs (rounded down, "
		     "at least 1)"},
	    {OPT_DURATION("seconds", 's', &o->runtime_s), .def = "5",
	     .help = "measurement window per task count"},
	    {OPT_DURATION("warmup", 'w', &o->warmup_s), .def = "1", .min = 0,
	     .max = NUM_DURATION_MAX, .help = "warmup before the window, discarded"},
	    {OPT_FLAG("no-affinity", 0, &o->affinity), .flags = OPTION_CLEAR,
	     .help = "do not pin copies to CPUs"},
	    {OPT_FLAG("smt", 0, &o->smt),
	     .help = "place copies on SMT siblings too, not only one per core"},
	    {OPT_STRING("json", 0, &o->json_path), .arg = "FILE",
	     .help = "write every sample and result to FILE as JSON"},
	    {OPT_STRING("tmpdir", 0, &o->tmpdir), .arg = "DIR", .def_doc = "$TMPDIR or /tmp",
	     .help = "directory for temp files"},
	    {OPT_DURATION("interval", 0, &o->interval_s), .def = "1", .min = CORE_MIN_INTERVAL_S,
	     .max = CORE_MAX_INTERVAL_S, .help = "sampling interval"},
	    {OPT_DURATION("setup-timeout", 0, &o->setup_timeout_s), .def = "120",
	     .help = "fail when the copies' setup takes longer"},
	    {OPT_CALLBACK("plugin", 0, plugin_option, &nplugins), .arg = "FILE.so",
	     .help = "load testcases from a plug-in (repeatable)"},
	    {OPT_FLAG("quiet", 'q', &o->quiet), .help = "print only the summary of each run"},
	    {OPT_FLAG("verbose", 'v', &o->verbose),
	     .help = "also print placement and per-copy rates"},
	    {OPT_END},
	};
	int first, rc;

	*o = (struct bench_opts){.affinity = true};
	rc = options_parse(&bench_command, opts, argc, argv, &first, print_testcases);
	if (rc >= 0)
		return rc;
	/* A plug-in with a single testcase needs no name. */
	if (first >= argc && nplugins && plugin_count() == 1) {
		o->tc = plugin_testcase(0);
	} else if (first >= argc) {
		sb_error("which testcase? expected one of:");
		print_testcases(stderr);
		return SB_EXIT_ERROR;
	} else if (argc - first > 1) {
		sb_error("unexpected argument '%s' (one testcase per bench)", argv[first + 1]);
		return SB_EXIT_ERROR;
	} else {
		o->tc = testcase_find(argv[first]);
		if (!o->tc) {
			const char *near = testcase_suggest(argv[first]);

			if (near)
				sb_error("unknown testcase '%s'; did you mean '%s'? ('scalebench list' "
					 "shows them all)",
					 argv[first], near);
			else
				sb_error("unknown testcase '%s'; 'scalebench list' shows the names",
					 argv[first]);
			return SB_EXIT_ERROR;
		}
	}
	if (strcmp(o->mode_arg, "both")) {
		enum tc_mode m = strcmp(o->mode_arg, "process") ? TC_MODE_THREAD : TC_MODE_PROCESS;

		if (!testcase_supports(o->tc, m)) {
			sb_error("%s runs in %s mode only", o->tc->name,
				 testcase_modes_name(o->tc));
			return SB_EXIT_ERROR;
		}
		o->modes[o->nmodes++] = m;
	} else {
		/* both: every mode the testcase supports, process first. */
		if (testcase_supports(o->tc, TC_MODE_PROCESS))
			o->modes[o->nmodes++] = TC_MODE_PROCESS;
		if (testcase_supports(o->tc, TC_MODE_THREAD))
			o->modes[o->nmodes++] = TC_MODE_THREAD;
		if (o->nmodes == 1 && !o->quiet)
			sb_note("%s runs in %s mode only", o->tc->name, testcase_modes_name(o->tc));
	}
	o->tmpdir = tmpdir_checked(o->tmpdir);
	if (!o->tmpdir)
		return SB_EXIT_ERROR;
	testcase_helper_dir(o->helper_dir, sizeof(o->helper_dir));
	return -1;
}

/* ---- output -------------------------------------------------------------------------- */

struct progress {
	const struct bench_opts *o;
	bool printed_measure;
};

static void on_sample(const struct sample_window *w, size_t i, void *arg)
{
	struct progress *p = arg;
	char line[128];

	if (p->o->quiet || interval_line(w, i, line, sizeof(line)))
		return;
	if (i == 1 && w->measure_start != 0 && p->o->warmup_s > 0)
		printf("warmup\n");
	if (i == w->measure_start + 1 && !p->printed_measure) {
		printf("measurement\n");
		p->printed_measure = true;
	}
	printf("%s\n", line);
	fflush(stdout);
}

static json_t *run_to_json(const struct bench_opts *o, const struct core_result *res,
			   const struct run_summary *s)
{
	const struct sample_window *w = &res->samples;
	json_t *run = json_object(), *samples = json_array(), *cpus = json_array();
	json_t *per_copy = json_array(), *stats = json_object();

	json_object_set_new(run, "mode", json_string(tc_mode_name(s->mode)));
	json_object_set_new(run, "nr_task", json_integer(s->nr_task));
	json_object_set_new(run, "status", json_string(core_status_name(s->status)));
	if (s->status != CORE_OK)
		json_object_set_new(run, "failure", json_string(res->failure));
	for (unsigned c = 0; c < s->nr_task && res->cpus; c++)
		json_array_append_new(cpus, json_integer(res->cpus[c]));
	json_object_set_new(run, "cpus", cpus);
	for (size_t i = 1; i < w->n; i++) {
		json_t *sm = json_object(), *d = json_array();

		json_object_set_new(sm, "t_s", json_real((double)w->t_ns[i] / 1e9));
		json_object_set_new(sm, "interval_s",
				    json_real((double)(w->t_ns[i] - w->t_ns[i - 1]) / 1e9));
		json_object_set_new(sm, "phase",
				    json_string(i <= w->measure_start ? "warmup" : "measure"));
		for (unsigned c = 0; c < w->nr_copies; c++)
			json_array_append_new(d, json_integer((json_int_t)window_delta(w, i, c)));
		json_object_set_new(sm, "deltas", d);
		json_array_append_new(samples, sm);
	}
	json_object_set_new(run, "samples", samples);
	if (s->status == CORE_OK && s->window_s > 0) {
		for (unsigned c = 0; c < w->nr_copies; c++)
			json_array_append_new(per_copy, json_real(window_copy_rate(
							    w, w->measure_start, w->n - 1, c)));
		json_object_set_new(run, per_copy_stat_name(s->mode), json_real(s->per_copy_ops));
		json_object_set_new(run, "workload", json_real(s->total_ops));
		json_object_set_new(run, "window_ops", json_integer((json_int_t)s->window_ops));
		json_object_set_new(run, "window_s", json_real(s->window_s));
		if (o->tc->cost_stat)
			json_object_set_new(run, o->tc->cost_stat, json_real(run_cost(s)));
	}
	json_object_set_new(run, "per_copy_ops", per_copy);
	if (res->sys_valid && s->window_ops) {
		json_t *sys = json_object();

		json_object_set_new(sys, "ctxt", json_integer((json_int_t)res->sys_ctxt));
		json_object_set_new(sys, "pgfault", json_integer((json_int_t)res->sys_pgfault));
		json_object_set_new(sys, "ctxt_per_op",
				    json_real((double)res->sys_ctxt / (double)s->window_ops));
		json_object_set_new(sys, "pgfault_per_op",
				    json_real((double)res->sys_pgfault / (double)s->window_ops));
		json_object_set_new(run, "system", sys);
	}
	if (res->task_valid && s->window_ops) {
		json_t *tasks = json_object();

		json_object_set_new(tasks, "ctxt", json_integer((json_int_t)res->task_ctxt));
		json_object_set_new(tasks, "pgfault", json_integer((json_int_t)res->task_pgfault));
		json_object_set_new(tasks, "ctxt_per_op",
				    json_real((double)res->task_ctxt / (double)s->window_ops));
		json_object_set_new(tasks, "pgfault_per_op",
				    json_real((double)res->task_pgfault / (double)s->window_ops));
		json_object_set_new(run, "tasks", tasks);
	}
	json_object_set_new(run, "sampler_cpu_s", json_real(res->sampler_cpu_s));
	testcase_stats(o->tc, s, stats);
	json_object_set_new(run, "stats", stats);
	return run;
}

/* linear(N) = N x the per-copy rate at the smallest task count measured. */
static double scalability_pct(const struct run_summary *base, const struct run_summary *s)
{
	double linear = base->per_copy_ops * s->nr_task;

	return linear > 0 ? 100.0 * s->total_ops / linear : 0.0;
}

static bool all_ok(const struct run_summary *sums, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (sums[i].status != CORE_OK)
			return false;
	return n > 0;
}

static void print_table(const struct bench_opts *o, const struct run_summary *sums, size_t n)
{
	bool cost = o->tc->cost_stat != NULL;

	printf("\n%s, %s mode (ops/s)\n", o->tc->name, tc_mode_name(sums[0].mode));
	printf("%6s %14s %15s %14s %12s", "tasks", "total ops/s", "ops/s per copy", "linear",
	       "scalability");
	if (cost)
		printf(" %14s", o->tc->cost_stat);
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		const struct run_summary *s = &sums[i];

		if (s->status != CORE_OK || sums[0].status != CORE_OK) {
			printf("%6u %14s\n", s->nr_task, core_status_name(s->status));
			continue;
		}
		printf("%6u %14.0f %15.0f %14.0f %11.1f%%", s->nr_task, s->total_ops,
		       s->per_copy_ops, sums[0].per_copy_ops * s->nr_task,
		       scalability_pct(&sums[0], s));
		if (cost)
			printf(" %14.2f", run_cost(s));
		printf("\n");
	}
	/* More than linear is not a kernel scaling well: the smallest count was slowed (a busy
	 * machine) or the measure is broken.  Said under the table, whose rows scripts read. */
	for (size_t i = 1; i < n; i++)
		if (sums[i].status == CORE_OK && sums[0].status == CORE_OK &&
		    scalability_pct(&sums[0], &sums[i]) >= 100.5)
			printf(
			    "note: scalability %.1f%% at %u tasks is above linear: suspect (a busy "
			    "machine at %u task%s, or a broken measure)\n",
			    scalability_pct(&sums[0], &sums[i]), sums[i].nr_task, sums[0].nr_task,
			    sums[0].nr_task == 1 ? "" : "s");
}

static void print_run_header(const struct bench_opts *o, enum tc_mode mode, unsigned nr_task)
{
	if (o->quiet)
		return;
	printf("testcase:%s\n", o->tc->description);
	printf("%s: %s mode, %u %s, warmup %.3g s, measurement %.3g s\n", o->tc->name,
	       tc_mode_name(mode), nr_task,
	       nr_task == 1 ? tc_mode_name(mode)
			    : (mode == TC_MODE_PROCESS ? "processes" : "threads"),
	       o->warmup_s, o->runtime_s);
	fflush(stdout);
}

static void print_run_summary(const struct bench_opts *o, const struct core_result *res,
			      const struct run_summary *s)
{
	if (s->status == CORE_FAILED) {
		sb_error("FAILED: %s", res->failure);
		return;
	}
	if (s->status == CORE_SKIPPED) {
		sb_error("%s", res->failure);
		return;
	}
	if (s->status != CORE_OK)
		return;
	if (o->verbose) {
		const struct sample_window *w = &res->samples;

		for (unsigned c = 0; c < s->nr_task; c++)
			printf("copy %u: cpu %d, %.0f ops/s\n", c, res->cpus ? res->cpus[c] : -1,
			       window_copy_rate(w, w->measure_start, w->n - 1, c));
		printf("sampler cpu time: %.6f s\n", res->sampler_cpu_s);
	}
	printf("%s: %s mode, %u %s: %s %.0f workload %.0f", o->tc->name, tc_mode_name(s->mode),
	       s->nr_task, s->nr_task == 1 ? "copy" : "copies", per_copy_stat_name(s->mode),
	       s->per_copy_ops, s->total_ops);
	if (o->tc->cost_stat)
		printf(" %s %.2f", o->tc->cost_stat, run_cost(s));
	/* An op is what the testcase counts, in the descriptor's words; it is not a fault, an
	 * exec or a syscall unless that is what was counted (page_fault3 counts a page
	 * touched: with large folios ~0.1 faults each). */
	printf(" (%llu ops in %.2f s, one op: %s", (unsigned long long)s->window_ops, s->window_s,
	       o->tc->op ? o->tc->op : "an iteration of the testcase's loop");
	/* Faults only from the fault counter, and said to be the whole machine's. */
	if (res->sys_valid && s->window_ops)
		printf("; page faults %llu machine-wide, %.2f per op",
		       (unsigned long long)res->sys_pgfault,
		       (double)res->sys_pgfault / (double)s->window_ops);
	printf(")\n");
	fflush(stdout);
}

static json_t *document(const struct bench_opts *o, json_t *runs, bool failed,
			struct run_summary *const sums[2], const size_t *done)
{
	json_t *doc = json_object(), *counts = json_array(), *modes = json_array();
	json_t *scal = json_object(), *table = json_array();

	json_object_set_new(doc, "testcase", json_string(o->tc->name));
	json_object_set_new(doc, "description", json_string(o->tc->description));
	json_object_set_new(doc, "suite", json_string(o->tc->suite));
	json_object_set_new(doc, "op", json_string(o->tc->op ? o->tc->op : "op"));
	json_object_set_new(doc, "lower_is_better", json_boolean(o->tc->lower_is_better));
	if (o->tc->cost_stat)
		json_object_set_new(doc, "cost_stat", json_string(o->tc->cost_stat));
	json_object_set_new(doc, "mode", json_string(o->mode_arg));
	for (size_t m = 0; m < o->nmodes; m++)
		json_array_append_new(modes, json_string(tc_mode_name(o->modes[m])));
	json_object_set_new(doc, "modes", modes);
	for (size_t i = 0; i < o->tasks.n; i++)
		json_array_append_new(counts, json_integer(o->tasks.v[i]));
	json_object_set_new(doc, "nr_task", counts);
	json_object_set_new(doc, "warmup_s", json_real(o->warmup_s));
	json_object_set_new(doc, "runtime_s", json_real(o->runtime_s));
	json_object_set_new(doc, "interval_s", json_real(o->interval_s));
	json_object_set_new(doc, "affinity", json_boolean(o->affinity));
	json_object_set_new(doc, "smt", json_boolean(o->smt));
	json_object_set_new(doc, "tmpdir", json_string(o->tmpdir));
	json_object_set_new(doc, "online_cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(doc, "status", json_string(failed ? "failed" : "ok"));
	json_object_set_new(doc, "runs", runs);
	/* Per mode, for a sweep whose runs all succeeded: the table, and how close the largest
	 * task count came to linear (in %). */
	for (size_t m = 0; m < o->nmodes; m++) {
		const struct run_summary *ms = sums[m];

		if (o->tasks.n < 2 || done[m] != o->tasks.n || !all_ok(ms, done[m]))
			continue;
		for (size_t i = 0; i < done[m]; i++) {
			json_t *row = json_object();

			json_object_set_new(row, "mode", json_string(tc_mode_name(ms[i].mode)));
			json_object_set_new(row, "nr_task", json_integer(ms[i].nr_task));
			json_object_set_new(row, "total_ops", json_real(ms[i].total_ops));
			json_object_set_new(row, "per_copy_ops", json_real(ms[i].per_copy_ops));
			json_object_set_new(row, "linear",
					    json_real(ms[0].per_copy_ops * ms[i].nr_task));
			json_object_set_new(row, "scalability",
					    json_real(scalability_pct(&ms[0], &ms[i])));
			json_array_append_new(table, row);
		}
		json_object_set_new(scal, tc_mode_name(o->modes[m]),
				    json_real(scalability_pct(&ms[0], &ms[done[m] - 1])));
	}
	if (json_object_size(scal)) {
		json_object_set_new(doc, "scalability", scal);
		json_object_set_new(doc, "scalability_table", table);
	} else {
		json_decref(scal);
		json_decref(table);
	}
	return doc;
}

int cmd_bench(int argc, char **argv)
{
	struct run_summary *sums[2] = {NULL, NULL};
	size_t done[2] = {0, 0};
	struct bench_opts o;
	struct outfile json_out = {0};
	json_t *runs = NULL;
	char err[512] = "";
	bool failed = false;
	int rc;

	/* Before the --json temp file exists: from here a signal is a flag the loop stops at
	 * (the temp file then removed), never a death that leaves it behind. */
	core_catch_signals();
	rc = parse_bench_args(argc, argv, &o);
	if (rc >= 0)
		goto out;
	for (size_t m = 0; m < o.nmodes; m++)
		sums[m] = xcalloc(o.tasks.n, sizeof(*sums[m]));
	if (o.json_path) {
		struct stat st;

		/* The temp file beside it would be created, and the rename over a directory
		 * fail only after the whole benchmark. */
		if (stat(o.json_path, &st) == 0 && S_ISDIR(st.st_mode)) {
			sb_error("--json: '%s' is a directory; expected a file name", o.json_path);
			rc = SB_EXIT_ERROR;
			goto out;
		}
		if (outfile_open(&json_out, o.json_path, err, sizeof(err))) {
			sb_error("--json: %s", err);
			rc = SB_EXIT_ERROR;
			goto out;
		}
		runs = json_array();
	}

	for (size_t m = 0; m < o.nmodes && !core_interrupted(); m++) {
		for (size_t i = 0; i < o.tasks.n && !core_interrupted(); i++) {
			struct progress prog = {.o = &o};
			struct core_config cfg = {
			    .tc = o.tc,
			    .mode = o.modes[m],
			    .nr_copies = o.tasks.v[i],
			    .warmup_s = o.warmup_s,
			    .runtime_s = o.runtime_s,
			    .interval_s = o.interval_s,
			    .setup_timeout_s = o.setup_timeout_s,
			    .affinity = o.affinity,
			    .smt = o.smt,
			    .tmpdir = o.tmpdir,
			    .helper_dir = o.helper_dir,
			    .on_sample = on_sample,
			    .arg = &prog,
			};
			struct core_result res;
			struct run_summary *s = &sums[m][done[m]];

			print_run_header(&o, o.modes[m], o.tasks.v[i]);
			core_run(&cfg, &res);
			run_summarize(&res, o.modes[m], o.tasks.v[i], s);
			print_run_summary(&o, &res, s);
			if (res.status == CORE_FAILED)
				failed = true;
			if (res.status != CORE_INTERRUPTED) {
				if (runs)
					json_array_append_new(runs, run_to_json(&o, &res, s));
				done[m]++;
			}
			core_result_free(&res);
		}
		if (o.tasks.n > 1 && !core_interrupted())
			print_table(&o, sums[m], done[m]);
	}

	if (core_interrupted()) {
		int sig = core_interrupt_signal();

		sb_error("interrupted by signal %d; %s", sig,
			 o.json_path ? "no JSON written" : "stopped");
		if (runs) {
			outfile_abort(&json_out);
			json_decref(runs);
		}
		rc = SB_EXIT_SIGNAL_BASE + sig;
		goto out;
	}

	rc = failed ? SB_EXIT_FAILED : SB_EXIT_OK;
	if (runs) {
		json_t *doc = document(&o, runs, failed, sums, done);

		if (json_dumpf(doc, json_out.fp, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) ||
		    fputc('\n', json_out.fp) == EOF ||
		    outfile_commit(&json_out, err, sizeof(err))) {
			sb_error("--json: %s", err[0] ? err : "write failed");
			outfile_abort(&json_out);
			rc = SB_EXIT_FAILED;
		}
		json_decref(doc);
	}
out:
	free(sums[0]);
	free(sums[1]);
	free(o.tasks.v);
	return rc;
}
