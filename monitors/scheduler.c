#include "scheduler.h"
#include "../lib/num.h"
#include "../lib/errors.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double ts_s(const struct timespec *t)
{
	return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

/* A monitor's sampling interval: its `interval` option (a duration, 0.05 s to a day), else the
 * job's (def_s).  A value that is not one leaves the monitor out with a note naming it (-1). */
static int option_interval(const json_t *options, double def_s, double *interval_s, char *note,
			   size_t len)
{
	const json_t *v = options ? json_object_get(options, "interval") : NULL;
	char err[160];

	*interval_s = def_s;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_number(v) && isfinite(json_number_value(v)) && json_number_value(v) >= 0.05 &&
	    json_number_value(v) <= 86400) {
		*interval_s = json_number_value(v);
		return 0;
	}
	if (json_is_string(v) &&
	    !num_parse_duration(json_string_value(v), 0.05, 86400, interval_s, err, sizeof(err)))
		return 0;
	if (json_is_string(v))
		snprintf(note, len, "option interval %s (from 0.05 s to 1 day)", err);
	else
		snprintf(note, len, "option interval: expected a duration from 0.05 s to 1 day");
	*interval_s = def_s;
	return -1;
}

/* Whether the monitor was said to be left out already (and now it is). */
static bool told_before(const struct monitor *m)
{
	static const struct monitor **told;
	static size_t ntold;
	const struct monitor **v;

	for (size_t i = 0; i < ntold; i++)
		if (told[i] == m)
			return true;
	v = realloc(told, (ntold + 1) * sizeof(*v));
	if (v) {
		told = v;
		told[ntold++] = m;
	}
	return false;
}

/* Left out of this run, the note in meta.json, and on stderr the first time for each monitor:
 * a bad option or a missing permission is the same for every run of the job. */
static void monitor_skip(struct monitor_set *ms, struct monitor_run *r)
{
	const char *note = r->ctx.note[0] ? r->ctx.note : "could not start";

	if (!told_before(r->m))
		sb_error("monitor %s left out: %s", r->m->name, note);
	json_object_set_new(ms->skipped, r->m->name, json_string(note));
	if (r->m->cleanup)
		r->m->cleanup(&r->ctx);
	r->prepared = false;
}

/* Next call of a monitor after one at t: the next interval tick, or its wake hint if sooner. */
static void monitor_schedule(struct monitor_run *r, double t)
{
	double iv = r->ctx.interval_s;

	r->next_s = (floor(t / iv + 1e-3) + 1) * iv;
	if (r->ctx.wake_s > t + 1e-3 && r->ctx.wake_s < r->next_s)
		r->next_s = r->ctx.wake_s;
	r->ctx.wake_s = 0;
}

int monitor_set_init(struct monitor_set *ms, const json_t *wanted, bool none, unsigned nr_cpus,
		     double runtime_s, double interval_s)
{
	size_t nr_table = 0;
	const char *name;
	json_t *options;

	memset(ms, 0, sizeof(*ms));
	while (monitor_table[nr_table])
		nr_table++;
	/* Each monitor at most once: a job's names are an object's keys. */
	ms->v = calloc(nr_table ? nr_table : 1, sizeof(*ms->v));
	ms->skipped = json_object();
	if (!ms->v || !ms->skipped) {
		free(ms->v);
		json_decref(ms->skipped);
		memset(ms, 0, sizeof(*ms));
		return -1;
	}
	if (none) {
		/* --no-monitors */
	} else if (!wanted || json_object_size(wanted) == 0) {
		for (size_t i = 0; monitor_table[i]; i++)
			if (monitor_table[i]->is_default)
				ms->v[ms->n++].m = monitor_table[i];
	} else {
		json_object_foreach ((json_t *)wanted, name, options) {
			const struct monitor *m = monitor_find(name);

			if (!m) {
				json_object_set_new(ms->skipped, name,
						    json_string("not a scalebench monitor"));
				continue;
			}
			ms->v[ms->n++].m = m;
		}
	}
	/* A test hook, read here only: the procfs monitors read their files under another
	 * directory, which a test controls (a file deleted or replaced mid-run). */
	const char *proc_root = getenv("SCALEBENCH_PROCFS");

	if (!proc_root || !*proc_root)
		proc_root = "/proc";
	for (size_t i = 0; i < ms->n; i++) {
		struct monitor_run *r = &ms->v[i];
		const json_t *opts = wanted ? json_object_get(wanted, r->m->name) : NULL;

		r->ctx = (struct monitor_ctx){
		    .name = r->m->name,
		    .options = json_is_object(opts) ? opts : NULL,
		    .nr_cpus = nr_cpus,
		    .proc_root = proc_root,
		    .sys_root = "/sys",
		    .runtime_s = runtime_s,
		    .raw = json_array(),
		    .meta = json_object(),
		};
		if (option_interval(r->ctx.options, interval_s, &r->ctx.interval_s, r->ctx.note,
				    sizeof(r->ctx.note))) {
			monitor_skip(ms, r);
			continue;
		}
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
	ms->ready = true;
	return 0;
}

static void *monitor_thread(void *arg)
{
	struct monitor_set *ms = arg;
	struct timespec now;

	for (size_t i = 0; i < ms->n; i++) {
		struct monitor_run *r = &ms->v[i];

		if (!r->prepared)
			continue;
		if (!r->m->start || r->m->start(&r->ctx) == 0) {
			r->started = r->ctx.started = true;
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
			struct monitor_run *r = &ms->v[i];

			if (!r->started || !r->m->sample || r->next_s > t + 1e-3)
				continue;
			if (r->m->sample(&r->ctx, t) && !r->nr_failed++)
				r->failed_s = t;
			monitor_schedule(r, t);
		}
		pthread_mutex_lock(&ms->lock);
	}
	pthread_mutex_unlock(&ms->lock);
	clock_gettime(CLOCK_MONOTONIC, &now);
	for (size_t i = 0; i < ms->n; i++) {
		struct monitor_run *r = &ms->v[i];
		double t = ts_s(&now) - ts_s(&ms->t0);

		if (r->started && r->m->stop && r->m->stop(&r->ctx, t)) {
			r->lost = true;
			if (!r->nr_failed++)
				r->failed_s = t;
		}
	}
	return NULL;
}

void monitor_set_start(struct monitor_set *ms)
{
	sigset_t all, old;

	clock_gettime(CLOCK_MONOTONIC, &ms->t0);
	/* Signals belong to the sampler: the core waits for them in ppoll. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ms->thread_running = pthread_create(&ms->thread, NULL, monitor_thread, ms) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void monitor_set_stop(struct monitor_set *ms)
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

/* The monitor's stats that it declares counts or rates over the window (is_rate), in the
 * order reduced, as mm's "rates": what meta.json says of them for compare. */
static void declare_rates(const struct monitor *m, const json_t *stats, json_t *mm)
{
	json_t *rates = json_array(), *v;
	size_t len = strlen(m->name);
	const char *stat;

	if (!rates)
		return;
	json_object_foreach ((json_t *)stats, stat, v)
		if (!strncmp(stat, m->name, len) && stat[len] == '.' && m->is_rate(stat))
			json_array_append_new(rates, json_string(stat));
	json_object_set_new(mm, "rates", rates);
}

void monitor_set_reduce(struct monitor_set *ms, const struct monitor_window *w, json_t *stats,
			json_t *meta)
{
	const char *name;
	json_t *note;

	for (size_t i = 0; i < ms->n; i++) {
		struct monitor_run *r = &ms->v[i];
		json_t *mm;

		if (!r->started) {
			if (r->prepared) /* not skipped: the window never opened */
				json_object_set_new(
				    meta, r->m->name,
				    json_pack(
					"{s:s,s:s}", "status", "not run", "note",
					"the testcase stopped before its measurement window"));
			continue;
		}
		mm = json_object();
		r->ctx.window_ops = w->ops;
		r->ctx.window_s = w->window_s;
		r->ctx.run_elapsed_s = w->run_elapsed_s;
		/* A monitor whose last reading failed: counters over part of the window would
		 * read as a change against whole-window runs, so its stats are kept aside for a
		 * person, out of what compare reads. */
		json_t *partial = r->lost ? json_object() : NULL;
		if (r->m->reduce && r->m->reduce(&r->ctx, partial ? partial : stats) < 0)
			json_object_set_new(mm, "reduce", json_string("failed"));
		json_object_set_new(mm, "status", json_string(r->lost ? "incomplete" : "ok"));
		if (r->m->is_rate && !partial)
			declare_rates(r->m, stats, mm);
		json_object_update(mm, r->ctx.meta);
		if (r->nr_failed) {
			char note[sizeof(r->ctx.note) + 200];
			const char *why = r->ctx.note[0] ? r->ctx.note : "a read failed";

			if (r->lost)
				snprintf(note, sizeof(note),
					 "%s; failing from %.3g s into the %.3g s window to its end, so "
					 "its stats up to then are in partial_stats, not in stats.json",
					 why, r->failed_s, w->window_s);
			else
				snprintf(note, sizeof(note),
					 "%s; %u reading%s failed, the first %.3g s into the %.3g s "
					 "window; its stats are from the others",
					 why, r->nr_failed, r->nr_failed == 1 ? "" : "s", r->failed_s,
					 w->window_s);
			sb_error("monitor %s%s: %s", r->m->name, r->lost ? " incomplete" : "", note);
			json_object_set_new(mm, "note", json_string(note));
			if (partial)
				json_object_set_new(mm, "partial_stats", partial);
		} else if (r->ctx.note[0]) {
			json_object_set_new(mm, "note", json_string(r->ctx.note));
		}
		json_object_set_new(meta, r->m->name, mm);
	}
	json_object_foreach (ms->skipped, name, note)
		json_object_set_new(meta, name,
				    json_pack("{s:s, s:O}", "status", "unavailable", "note", note));
}

void monitor_set_free(struct monitor_set *ms)
{
	if (!ms->ready)
		return;
	monitor_set_stop(ms);
	for (size_t i = 0; i < ms->n; i++) {
		struct monitor_run *r = &ms->v[i];

		/* Cleanup is owed once prepare or start has succeeded (a skipped monitor was
		 * cleaned up then, and is neither prepared nor started). */
		if ((r->started || (r->prepared && r->m->prepare)) && r->m->cleanup)
			r->m->cleanup(&r->ctx);
		r->started = r->prepared = false;
		json_decref(r->ctx.raw);
		json_decref(r->ctx.meta);
	}
	free(ms->v);
	json_decref(ms->skipped);
	pthread_mutex_destroy(&ms->lock);
	pthread_cond_destroy(&ms->cond);
	memset(ms, 0, sizeof(*ms));
}
