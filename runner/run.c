/* The runner.  Per run: a temp directory in the results tree, job.yaml, the testcase through
 * the counter core with the monitors running over its measurement window (in a thread of
 * their own, so the sampler keeps its timing), then every stat reduced to stats.json beside
 * meta.json, the raw monitor samples and the testcase's output, and the directory renamed to
 * the first free run number.  An interrupted or unwritable run is removed whole. */
#include "run.h"
#include "machine.h"
#include "../monitors/monitor.h"
#include "../store/store.h"
#include "../core/core.h"
#include "../testcases/registry.h"
#include "../core/summary.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#ifndef SCALEBENCH_VERSION
#define SCALEBENCH_VERSION "0.1"
#endif

#define MAX_MONITORS 64

struct mon_run {
	const struct monitor *m;
	struct monitor_ctx ctx;
	bool prepared; /* prepare() succeeded (or there is none): start owed */
	bool started;  /* start() succeeded: stop/reduce owed */
	double next_s;
};

struct monitor_set {
	struct mon_run v[MAX_MONITORS];
	size_t n;
	json_t *skipped; /* name -> note, for meta.json */
	pthread_t thread;
	bool thread_running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	struct timespec t0;
};

/* Everything one run needs from its callbacks. */
struct run_state {
	const struct runner_opts *o;
	const struct atomic_job *aj;
	const struct testcase *tc;
	struct monitor_set mons;
	FILE *output;
	bool output_measuring;
	/* progress */
	unsigned index, total, k;
	double window_end_s;
};

static double ts_s(const struct timespec *t)
{
	return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return ts_s(&t);
}

/* ---- monitors ------------------------------------------------------------------------- */

static double option_interval(const json_t *options)
{
	const json_t *v = options ? json_object_get(options, "interval") : NULL;
	double s = 0;

	if (json_is_string(v))
		s = strtod(json_string_value(v), NULL);
	else if (json_is_number(v))
		s = json_number_value(v);
	return s >= 0.05 ? s : 1.0;
}

/* Left out of this run, the note in meta.json, and on stderr the first time for each monitor:
 * a bad option or a missing permission is the same for every run of the job. */
static void monitor_skip(struct monitor_set *ms, struct mon_run *r)
{
	static const struct monitor *told[MAX_MONITORS];
	const char *note = r->ctx.note[0] ? r->ctx.note : "could not start";
	size_t i = 0;

	while (i < MAX_MONITORS && told[i] && told[i] != r->m)
		i++;
	if (i < MAX_MONITORS && !told[i]) {
		told[i] = r->m;
		fprintf(stderr, "scalebench run: monitor %s left out: %s\n", r->m->name, note);
	}
	json_object_set_new(ms->skipped, r->m->name, json_string(note));
	if (r->m->cleanup)
		r->m->cleanup(&r->ctx);
	r->prepared = false;
}

/* Next call of a monitor after one at t: the next interval tick, or its wake hint if sooner. */
static void monitor_schedule(struct mon_run *r, double t)
{
	double iv = r->ctx.interval_s;

	r->next_s = (floor(t / iv + 1e-3) + 1) * iv;
	if (r->ctx.wake_s > t + 1e-3 && r->ctx.wake_s < r->next_s)
		r->next_s = r->ctx.wake_s;
	r->ctx.wake_s = 0;
}

static void monitors_setup(struct monitor_set *ms, const json_t *wanted, bool none,
			   unsigned nr_cpus, double runtime_s)
{
	const char *name;
	json_t *options;

	memset(ms, 0, sizeof(*ms));
	ms->skipped = json_object();
	if (none) {
		/* --no-monitors */
	} else if (!wanted || json_object_size(wanted) == 0) {
		for (size_t i = 0; monitor_table[i] && ms->n < MAX_MONITORS; i++)
			if (monitor_table[i]->is_default)
				ms->v[ms->n++].m = monitor_table[i];
	} else {
		json_object_foreach((json_t *)wanted, name, options)
		{
			const struct monitor *m = monitor_find(name);

			if (!m) {
				json_object_set_new(ms->skipped, name,
						    json_string("not a scalebench monitor"));
				continue;
			}
			if (ms->n < MAX_MONITORS)
				ms->v[ms->n++].m = m;
		}
	}
	for (size_t i = 0; i < ms->n; i++) {
		struct mon_run *r = &ms->v[i];
		const json_t *opts = wanted ? json_object_get(wanted, r->m->name) : NULL;

		r->ctx = (struct monitor_ctx){
		    .name = r->m->name,
		    .options = json_is_object(opts) ? opts : NULL,
		    .interval_s = option_interval(json_is_object(opts) ? opts : NULL),
		    .nr_cpus = nr_cpus,
		    .proc_root = "/proc",
		    .sys_root = "/sys",
		    .runtime_s = runtime_s,
		    .raw = json_array(),
		    .meta = json_object(),
		};
		r->prepared = !r->m->prepare || r->m->prepare(&r->ctx) == 0;
		if (!r->prepared)
			monitor_skip(ms, r);
	}
	pthread_mutex_init(&ms->lock, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ms->cond, &attr);
	pthread_condattr_destroy(&attr);
}

static void *monitor_thread(void *arg)
{
	struct monitor_set *ms = arg;
	struct timespec now;

	for (size_t i = 0; i < ms->n; i++) {
		struct mon_run *r = &ms->v[i];

		if (!r->prepared)
			continue;
		if (!r->m->start || r->m->start(&r->ctx) == 0) {
			r->started = true;
			monitor_schedule(r, 0);
		} else {
			monitor_skip(ms, r);
		}
	}
	pthread_mutex_lock(&ms->lock);
	while (!ms->stop) {
		double next = -1;

		for (size_t i = 0; i < ms->n; i++)
			if (ms->v[i].started && ms->v[i].m->sample &&
			    (next < 0 || ms->v[i].next_s < next))
				next = ms->v[i].next_s;
		if (next < 0) {
			pthread_cond_wait(&ms->cond, &ms->lock);
			continue;
		}
		double deadline = ts_s(&ms->t0) + next;
		struct timespec ts = {(time_t)deadline,
				      (long)((deadline - (double)(time_t)deadline) * 1e9)};
		if (pthread_cond_timedwait(&ms->cond, &ms->lock, &ts) != ETIMEDOUT)
			continue; /* stop, or spurious: re-check */
		pthread_mutex_unlock(&ms->lock);
		clock_gettime(CLOCK_MONOTONIC, &now);
		double t = ts_s(&now) - ts_s(&ms->t0);
		for (size_t i = 0; i < ms->n; i++) {
			struct mon_run *r = &ms->v[i];

			if (!r->started || !r->m->sample || r->next_s > t + 1e-3)
				continue;
			r->m->sample(&r->ctx, t);
			monitor_schedule(r, t);
		}
		pthread_mutex_lock(&ms->lock);
	}
	pthread_mutex_unlock(&ms->lock);
	clock_gettime(CLOCK_MONOTONIC, &now);
	for (size_t i = 0; i < ms->n; i++)
		if (ms->v[i].started && ms->v[i].m->stop)
			ms->v[i].m->stop(&ms->v[i].ctx, ts_s(&now) - ts_s(&ms->t0));
	return NULL;
}

static void monitors_start(struct monitor_set *ms)
{
	sigset_t all, old;

	clock_gettime(CLOCK_MONOTONIC, &ms->t0);
	/* Signals belong to the sampler: the core waits for them in ppoll. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ms->thread_running = pthread_create(&ms->thread, NULL, monitor_thread, ms) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void monitors_stop(struct monitor_set *ms)
{
	if (!ms->thread_running)
		return;
	pthread_mutex_lock(&ms->lock);
	ms->stop = true;
	pthread_cond_signal(&ms->cond);
	pthread_mutex_unlock(&ms->lock);
	pthread_join(ms->thread, NULL);
	ms->thread_running = false;
}

static void monitors_free(struct monitor_set *ms)
{
	monitors_stop(ms);
	for (size_t i = 0; i < ms->n; i++) {
		struct mon_run *r = &ms->v[i];

		/* Cleanup is owed once prepare or start has succeeded (a skipped monitor was
		 * cleaned up then, and is neither prepared nor started). */
		if ((r->started || (r->prepared && r->m->prepare)) && r->m->cleanup)
			r->m->cleanup(&r->ctx);
		r->started = r->prepared = false;
		json_decref(r->ctx.raw);
		json_decref(r->ctx.meta);
	}
	json_decref(ms->skipped);
	pthread_mutex_destroy(&ms->lock);
	pthread_cond_destroy(&ms->cond);
}

/* ---- callbacks from the core ---------------------------------------------------------- */

static void on_window(int phase, void *arg)
{
	struct run_state *rs = arg;

	if (phase == CORE_WINDOW_START)
		monitors_start(&rs->mons);
	else
		monitors_stop(&rs->mons);
}

static void on_sample(const struct sample_window *w, size_t i, void *arg)
{
	struct run_state *rs = arg;
	struct interval_rates r;
	char line[128];

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
	       rs->aj->name, rs->k, rs->o->repeat, i > w->measure_start ? "measuring" : "warmup",
	       left > 0 ? left : 0, r.total);
	fflush(stdout);
}

/* ---- writing a run -------------------------------------------------------------------- */

static int write_json(const char *dir, const char *name, json_t *v, char *err, size_t errlen)
{
	char path[4096];
	FILE *fp;
	int bad;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "we");
	if (!fp) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	bad = json_dumpf(v, fp, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12)) ||
	      fputc('\n', fp) == EOF;
	bad |= fflush(fp) || ferror(fp) || fsync(fileno(fp));
	if (fclose(fp) || bad) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

static int gz_chunk(const char *buf, size_t size, void *gz)
{
	return size && gzwrite(gz, buf, (unsigned)size) != (int)size ? -1 : 0;
}

/* The same, gzip-compressed (NAME ends in .json.gz): what a monitor keeps in bulk. */
static int write_json_gz(const char *dir, const char *name, json_t *v, char *err,
			 size_t errlen)
{
	char path[4096];
	int fd, bad, zerr = Z_OK;
	gzFile gz;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	gz = fd >= 0 ? gzdopen(fd, "wb6") : NULL;
	if (!gz) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 strerror(fd < 0 ? errno : ENOMEM));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	bad = json_dump_callback(v, gz_chunk, gz, JSON_COMPACT | JSON_REAL_PRECISION(12)) ||
	      gzputc(gz, '\n') == -1 || gzflush(gz, Z_FINISH) != Z_OK;
	if (bad)
		gzerror(gz, &zerr);
	bad |= fsync(fd) != 0;
	bad |= gzclose(gz) != Z_OK;
	if (bad) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 zerr != Z_OK && zerr != Z_ERRNO ? "zlib error"
							 : strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* A failure stat, LKP style (stderr.<message>): spaces to '_', numbers kept. */
static void failure_stat(const char *failure, json_t *stats, json_t *list)
{
	char name[256] = "stderr.";
	size_t n = strlen(name);

	for (const char *p = failure; *p && n + 1 < sizeof(name); p++) {
		if (*p == '(')
			break; /* pids and tids vary from run to run */
		name[n++] = (*p == ' ' || *p == ':') ? '_' : *p;
	}
	while (n > 7 && name[n - 1] == '_')
		n--;
	name[n] = '\0';
	json_object_set_new(stats, name, json_integer(1));
	json_array_append_new(list, json_string(name));
}

static const char *job_testcase_axis(const struct job_file *job, const struct testcase *tc)
{
	const json_t *v = json_object_get(job->tree, "testcase");

	if (json_is_string(v) && *json_string_value(v))
		return json_string_value(v);
	return tc->suite ? tc->suite : "will-it-scale";
}

static void commit_dir_of(const struct runner_opts *o, const struct job_file *job,
			  const struct atomic_job *aj, const struct testcase *tc,
			  const struct machine *m, const char *commit, char *out, size_t len)
{
	char c[8][256];

	store_component(job_testcase_axis(job, tc), c[0], sizeof(c[0]));
	store_component(aj->path_params, c[1], sizeof(c[1]));
	store_component(m->tbox_group, c[2], sizeof(c[2]));
	store_component(m->rootfs, c[3], sizeof(c[3]));
	store_component(m->kconfig, c[4], sizeof(c[4]));
	store_component(m->compiler, c[5], sizeof(c[5]));
	store_component(commit, c[6], sizeof(c[6]));
	snprintf(out, len, "%s/%s/%s/%s/%s/%s/%s/%s", o->results_root, c[0], c[1], c[2], c[3], c[4],
		 c[5], c[6]);
}

enum run_outcome { RUN_STORED, RUN_FAILED_STORED, RUN_SKIPPED, RUN_INTERRUPTED, RUN_ERROR };

/* What the closing summary shows of one atomic job: the mean over its successful runs. */
struct job_tally {
	unsigned ok, failed;
	double per_copy_ops, total_ops; /* sums over ok runs */
};

static enum run_outcome run_one(const struct runner_opts *o, const struct job_file *job,
				const struct atomic_job *aj, const struct machine *m,
				const char *commit, unsigned index, unsigned total, unsigned k,
				struct job_tally *tally)
{
	const struct testcase *tc = testcase_find(aj->test);
	struct run_state rs = {.o = o, .aj = aj, .tc = tc, .index = index, .total = total, .k = k};
	char commit_dir[4096], tmp[4096], path[4200], err[9000] = "";
	json_t *stats = NULL, *meta = NULL, *failures = json_array(), *mons_meta = json_object();
	struct core_result res = {0};
	struct run_summary sum;
	enum run_outcome out = RUN_ERROR;
	unsigned run_no = 0;
	time_t started = time(NULL);
	FILE *fp;

	commit_dir_of(o, job, aj, tc, m, commit, commit_dir, sizeof(commit_dir));
	if (store_begin(commit_dir, tmp, sizeof(tmp), err, sizeof(err)))
		goto error;
	snprintf(path, sizeof(path), "%s/job.yaml", tmp);
	fp = fopen(path, "we");
	if (!fp || job_write_yaml(aj->tree, fp) || fflush(fp) || ferror(fp)) {
		snprintf(err, sizeof(err), "cannot write %s: %s", path,
			 strerror(errno ? errno : EIO));
		if (fp)
			fclose(fp);
		goto error_tmp;
	}
	fclose(fp);
	snprintf(path, sizeof(path), "%s/output", tmp);
	rs.output = fopen(path, "we");
	if (!rs.output) {
		snprintf(err, sizeof(err), "cannot write %s: %s", path, strerror(errno));
		goto error_tmp;
	}
	fprintf(rs.output,
		"testcase:%s\n%s: %s mode, %u copies, warmup %.3g s, measurement %.3g s\n",
		tc->description, tc->name, aj->mode == TC_MODE_PROCESS ? "process" : "thread",
		aj->nr_task, aj->warmup_s, aj->runtime_s);

	monitors_setup(&rs.mons, aj->monitors, o->no_monitors, m->threads, aj->runtime_s);
	rs.window_end_s = aj->warmup_s + aj->runtime_s;
	if (!o->quiet && !o->tty) {
		printf("[%u/%u] %s run %u/%u: %.0f s\n", index, total, aj->name, k, o->repeat,
		       aj->warmup_s + aj->runtime_s);
		fflush(stdout);
	}

	struct core_config cfg = {
	    .tc = tc,
	    .mode = aj->mode,
	    .nr_copies = aj->nr_task,
	    .warmup_s = aj->warmup_s,
	    .runtime_s = aj->runtime_s,
	    .interval_s = 1.0,
	    .setup_timeout_s = 120,
	    .affinity = true,
	    .tmpdir = o->tmpdir,
	    .helper_dir = o->helper_dir,
	    .on_sample = on_sample,
	    .on_window = on_window,
	    .arg = &rs,
	};
	double t_run = now_s();
	core_run(&cfg, &res);
	t_run = now_s() - t_run;
	monitors_stop(&rs.mons);
	if (o->tty && !o->quiet)
		printf("\r\033[K");
	if (res.status == CORE_INTERRUPTED) {
		out = RUN_INTERRUPTED;
		goto discard;
	}
	run_summarize(&res, aj->mode, aj->nr_task, &sum);
	if (res.status == CORE_SKIPPED) {
		fprintf(stderr, "scalebench run: %s: %s (not stored)\n", aj->name, res.failure);
		out = RUN_SKIPPED;
		goto discard;
	}
	if (res.status == CORE_OK)
		fprintf(rs.output, "%s: %s %.0f workload %.0f\n", tc->name,
			per_copy_stat_name(aj->mode), sum.per_copy_ops, sum.total_ops);
	else
		fprintf(rs.output, "FAILED: %s\n", res.failure);
	if (fflush(rs.output) || ferror(rs.output)) {
		snprintf(err, sizeof(err), "cannot write %s/output: %s", tmp,
			 strerror(errno ? errno : EIO));
		goto discard_error;
	}

	stats = json_object();
	testcase_stats(tc, &sum, stats);
	if (res.status == CORE_FAILED)
		failure_stat(res.failure, stats, failures);
	for (size_t i = 0; i < rs.mons.n; i++) {
		struct mon_run *r = &rs.mons.v[i];
		json_t *mm;

		if (!r->started) {
			if (r->prepared) /* not skipped: the window never opened */
				json_object_set_new(
				    mons_meta, r->m->name,
				    json_pack("{s:s,s:s}", "status", "not run", "note",
					      "the testcase stopped before its measurement window"));
			continue;
		}
		mm = json_object();
		r->ctx.window_ops = sum.window_ops;
		r->ctx.window_s = sum.window_s > 0 ? sum.window_s : aj->runtime_s;
		r->ctx.run_elapsed_s = t_run;
		if (r->m->reduce && r->m->reduce(&r->ctx, stats) < 0)
			json_object_set_new(mm, "reduce", json_string("failed"));
		snprintf(path, sizeof(path), "%s.json%s", r->m->name,
			 r->m->compress_raw ? ".gz" : "");
		if ((r->m->compress_raw ? write_json_gz : write_json)(tmp, path, r->ctx.raw, err,
								       sizeof(err))) {
			json_decref(mm);
			goto discard_error;
		}
		json_object_set_new(mm, "status", json_string("ok"));
		json_object_update(mm, r->ctx.meta);
		if (r->ctx.note[0])
			json_object_set_new(mm, "note", json_string(r->ctx.note));
		json_object_set_new(mons_meta, r->m->name, mm);
	}
	const char *name;
	json_t *note;
	json_object_foreach(rs.mons.skipped, name, note) json_object_set_new(
	    mons_meta, name, json_pack("{s:s, s:O}", "status", "unavailable", "note", note));
	/* New kernel warnings are failures too (dmesg.*, kmsg.*). */
	json_t *v;
	json_object_foreach(stats, name,
			    v) if (!strncmp(name, "dmesg.", 6) || !strncmp(name, "kmsg.", 5))
	    json_array_append_new(failures, json_string(name));

	char started_str[64];
	strftime(started_str, sizeof(started_str), "%Y-%m-%dT%H:%M:%S%z", localtime(&started));
	meta = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:f, s:f, s:s, s:O, s:O, s:s}",
			 "scalebench", SCALEBENCH_VERSION, "job", job->path, "atomic_job", aj->name,
			 "path_params", aj->path_params, "commit", commit, "testcase", tc->name,
			 "mode", aj->mode == TC_MODE_PROCESS ? "process" : "thread", "nr_task",
			 (int)aj->nr_task, "runtime_s", aj->runtime_s, "warmup_s", aj->warmup_s,
			 "status", core_status_name(res.status), "monitors", mons_meta,
			 "failure_stats", failures, "started", started_str);
	json_object_set_new(meta, "machine", machine_json(m));
	if (res.status != CORE_OK)
		json_object_set_new(meta, "failure", json_string(res.failure));
	if (res.cpus) {
		json_t *cpus = json_array();

		for (unsigned c = 0; c < aj->nr_task; c++)
			json_array_append_new(cpus, json_integer(res.cpus[c]));
		json_object_set_new(meta, "cpus", cpus);
	}
	if (job->n_notes) {
		json_t *notes = json_array();

		for (size_t i = 0; i < job->n_notes; i++)
			json_array_append_new(notes, json_string(job->notes[i]));
		json_object_set_new(meta, "notes", notes);
	}
	if (write_json(tmp, "meta.json", meta, err, sizeof(err)) ||
	    write_json(tmp, "stats.json", stats, err, sizeof(err)))
		goto discard_error;
	fclose(rs.output);
	rs.output = NULL;
	/* A signal that came after the window leaves this run whole: it is kept, and the
	 * caller stops before the next one. */
	if (store_commit(commit_dir, tmp, &run_no, err, sizeof(err)))
		goto discard_error;
	out = res.status == CORE_OK ? RUN_STORED : RUN_FAILED_STORED;
	if (res.status == CORE_OK) {
		tally->ok++;
		tally->per_copy_ops += sum.per_copy_ops;
		tally->total_ops += sum.total_ops;
	} else {
		tally->failed++;
	}
	if (!o->quiet) {
		if (res.status == CORE_OK)
			printf("[%u/%u] %s run %u/%u: %s %.0f -> %s/%u\n", index, total, aj->name,
			       k, o->repeat, per_copy_stat_name(aj->mode), sum.per_copy_ops,
			       commit_dir, run_no);
		else
			printf("[%u/%u] %s run %u/%u: FAILED (%s) -> %s/%u\n", index, total,
			       aj->name, k, o->repeat, res.failure, commit_dir, run_no);
		fflush(stdout);
	}
	goto done;

discard_error:
	out = RUN_ERROR;
discard:
	if (rs.output)
		fclose(rs.output);
	rs.output = NULL;
	store_abort(tmp);
	goto done;
error_tmp:
	store_abort(tmp);
error:
	out = RUN_ERROR;
done:
	if (out == RUN_ERROR)
		fprintf(stderr, "scalebench run: %s: %s; the run was discarded\n", aj->name, err);
	if (rs.output)
		fclose(rs.output);
	if (rs.mons.n || rs.mons.skipped)
		monitors_free(&rs.mons);
	core_result_free(&res);
	json_decref(stats);
	json_decref(meta);
	json_decref(failures);
	json_decref(mons_meta);
	return out;
}

/* The scalability table of the whole job: atomic jobs of one testcase and mode, by task
 * count, against linear scaling from the smallest count. */
static void print_summary(const struct job_file *job, const struct job_tally *t)
{
	bool *shown = calloc(job->n_atomic, sizeof(*shown));

	if (!shown)
		return;
	printf("\n%-14s %-8s %7s %5s %15s %14s %12s\n", "test", "mode", "nr_task", "runs",
	       "ops/s per copy", "total ops/s", "scalability");
	for (size_t a = 0; a < job->n_atomic; a++) {
		const struct atomic_job *base = NULL;

		if (shown[a])
			continue;
		/* This group, smallest task count first. */
		for (;;) {
			size_t best = job->n_atomic;

			for (size_t b = 0; b < job->n_atomic; b++) {
				const struct atomic_job *x = &job->atomic[b];

				if (shown[b] || strcmp(x->test, job->atomic[a].test) ||
				    x->mode != job->atomic[a].mode)
					continue;
				if (best == job->n_atomic || x->nr_task < job->atomic[best].nr_task)
					best = b;
			}
			if (best == job->n_atomic)
				break;
			shown[best] = true;
			const struct atomic_job *x = &job->atomic[best];
			const struct job_tally *tx = &t[best];

			if (!tx->ok) {
				printf("%-14s %-8s %7u %5u %15s\n", x->test,
				       x->mode == TC_MODE_PROCESS ? "process" : "thread",
				       x->nr_task, tx->ok + tx->failed,
				       tx->failed ? "failed" : "-");
				continue;
			}
			if (!base)
				base = x;
			size_t bi = (size_t)(base - job->atomic);
			double linear = t[bi].per_copy_ops / t[bi].ok * x->nr_task;
			printf("%-14s %-8s %7u %5u %15.0f %14.0f %11.1f%%\n", x->test,
			       x->mode == TC_MODE_PROCESS ? "process" : "thread", x->nr_task,
			       tx->ok + tx->failed, tx->per_copy_ops / tx->ok,
			       tx->total_ops / tx->ok,
			       linear > 0 ? 100.0 * (tx->total_ops / tx->ok) / linear : 0.0);
		}
	}
	free(shown);
}

int runner_run(const struct job_file *job, const struct runner_opts *o)
{
	struct machine m;
	struct utsname u;
	char commit[256];
	const char *kconfig = o->kconfig;
	unsigned total = (unsigned)job->n_atomic * o->repeat, stored = 0;
	bool failed = false;
	struct job_tally *tally;

	if (!kconfig && json_is_string(json_object_get(job->tree, "kconfig")))
		kconfig = json_string_value(json_object_get(job->tree, "kconfig"));
	machine_probe(&m, kconfig);
	if (o->commit)
		snprintf(commit, sizeof(commit), "%s", o->commit);
	else
		snprintf(commit, sizeof(commit), "%s", uname(&u) == 0 ? u.release : "unknown");

	if (o->dry_run) {
		for (size_t a = 0; a < job->n_atomic; a++) {
			const struct atomic_job *aj = &job->atomic[a];
			char dir[4096];

			commit_dir_of(o, job, aj, testcase_find(aj->test), &m, commit, dir,
				      sizeof(dir));
			printf(
			    "%s: %s, %s mode, %u copies, %.3g s + %.3g s warmup, %u run%s -> %s/\n",
			    aj->name, aj->test, aj->mode == TC_MODE_PROCESS ? "process" : "thread",
			    aj->nr_task, aj->runtime_s, aj->warmup_s, o->repeat,
			    o->repeat == 1 ? "" : "s", dir);
		}
		return 0;
	}

	tally = calloc(job->n_atomic, sizeof(*tally));
	if (!tally)
		return 1;
	for (unsigned i = 0; i < total; i++) {
		/* Back to back: every run of one atomic job, then the next; interleaved: one
		 * run of every atomic job per round, so slow drifts spread evenly. */
		size_t a = o->interleave ? i % job->n_atomic : i / o->repeat;
		unsigned k = o->interleave ? i / (unsigned)job->n_atomic + 1 : i % o->repeat + 1;
		enum run_outcome r;

		if (core_interrupted())
			goto interrupted;
		r = run_one(o, job, &job->atomic[a], &m, commit, i + 1, total, k, &tally[a]);
		if (r == RUN_INTERRUPTED)
			goto interrupted;
		if (r == RUN_ERROR) {
			free(tally);
			return 1;
		}
		if (r == RUN_FAILED_STORED)
			failed = true;
		if (r == RUN_STORED || r == RUN_FAILED_STORED)
			stored++;
	}
	if (core_interrupted())
		goto interrupted;
	if (!o->quiet)
		print_summary(job, tally);
	free(tally);
	return failed ? 1 : 0;
interrupted:
	free(tally);
	fprintf(stderr,
		"scalebench run: interrupted by signal %d; the run in progress was "
		"discarded, %u completed run%s kept\n",
		core_interrupt_signal(), stored, stored == 1 ? "" : "s");
	return 128 + core_interrupt_signal();
}
