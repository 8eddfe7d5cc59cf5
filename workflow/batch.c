/* k runs of the atomic job J at commit C, as many as C still lacks: each batch a child
 * `scalebench run` here, `scalebench run --target` on the target, or `scalebench submit --wait`
 * (one Slurm job array), after boot_commit; the values of the stat read back from the results
 * tree, and with --slurm the check that C's runs and the endpoints' are on machines of one
 * model.  What was spent (what came back) is counted in the bisect log. */
#include "batch.h"
#include "bisect_internal.h"
#include "boot.h"
#include "executor.h"
#include "../analyze/results.h"
#include "../analyze/select.h"
#include "../lib/errors.h"
#include "../lib/file.h"
#include "../lib/strvec.h"
#include "../lib/xalloc.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The groups of sha's runs, appended to *g (n groups there, grown), as select.h's policy takes
 * them: its one commit directory, or with --slurm every one that differs in tbox_group alone
 * (nodes of one class named apart, node-01 and c002: the machine check says whether they are
 * alike).  When the policy takes none of several, none after a message, b->split set.  A
 * directory without a complete run counts no runs.  How many were added. */
static size_t commit_groups(struct bisect *b, const char *sha, struct result_group **g, size_t *n)
{
	char **found, err[2048];
	size_t k, added = 0;
	enum select_result r = select_dirs(b->results, b->path_params, sha,
					   b->slurm ? SELECT_NODES : 0, &found, &k, err, sizeof(err));

	if (r == SELECT_AMBIGUOUS) {
		sb_error("%.10s: %s%s", sha, err,
			 b->slurm ? " (another rootfs, kconfig or compiler on some nodes: name one "
				    "class of nodes with --constraint)"
				  : "");
		b->split = true;
	}
	if (r == SELECT_ERROR) /* out of memory: select_dirs's only error */
		xalloc_die();
	if (r != SELECT_OK)
		return 0; /* none yet: no runs seen, the caller says so */
	*g = xrealloc(*g, (*n + k) * sizeof(**g));
	for (size_t i = 0; i < k; i++)
		added += group_load(found[i], &(*g)[*n + added], err, sizeof(err)) == 0;
	*n += added;
	for (size_t i = 0; i < k; i++)
		free(found[i]);
	free(found);
	return added;
}

/* The stat's values over the commit's runs in the results tree; -1 when the stat is absent
 * from runs that exist.  *stored (when not NULL): the runs there, with the stat or not. */
static size_t load_values(struct bisect *b, const char *sha, double **vals, bool *absent,
			  size_t *stored)
{
	struct result_group *g = NULL;
	size_t ng = 0, n = 0, nruns = 0;

	*vals = NULL;
	*absent = false;
	commit_groups(b, sha, &g, &ng);
	for (size_t i = 0; i < ng; i++)
		nruns += g[i].nruns;
	if (ng)
		*vals = xcalloc(nruns + 1, sizeof(double));
	for (size_t i = 0; i < ng; i++)
		n += group_values(&g[i], b->stat, *vals + n);
	*absent = nruns > 0 && n == 0;
	if (stored)
		*stored = nruns;
	if (n && !b->dir_known) {
		b->dir = group_stat_direction(g, ng, b->stat);
		b->dir_known = true;
	}
	for (size_t i = 0; i < ng; i++)
		group_free(&g[i]);
	free(g);
	return n;
}

static void count_spent(struct bisect *b, const char *sha, unsigned runs)
{
	size_t i = bisect_commit_slot(b, sha); /* it may move the arrays */

	b->spent[i] += runs;
}

/* --slurm: the runs of sha and of the endpoints on machines of one model (a class of nodes),
 * else the comparison would measure the machines.  0, or -1 after a message naming both
 * models. */
static int machines_check(struct bisect *b, const char *sha)
{
	const char *commits[3] = {b->good, b->bad, sha};
	struct result_group *g = NULL;
	char mix[2048];
	size_t n = 0;

	for (size_t i = 0; i < 3; i++) {
		if (i == 2 && (!strcmp(sha, b->good) || !strcmp(sha, b->bad)))
			break;
		commit_groups(b, commits[i], &g, &n);
	}
	bool mixed = groups_mix_machines(g, n, mix, sizeof(mix));

	for (size_t i = 0; i < n; i++)
		group_free(&g[i]);
	free(g);
	if (b->split)
		return -1;
	if (!mixed)
		return 0;
	bisect_event(b, "machines-differ", json_pack("{s:s, s:s}", "commit", sha, "machines", mix));
	sb_error(
	    "%.10s: the runs are on machines of different models: %s; good and bad must be "
	    "measured on like machines: pass --constraint FEATURES (or --partition) naming one "
	    "class of nodes",
	    sha, mix);
	return -1;
}

/* The runs of sha the results root holds, with the stat or not (a failed run is stored too):
 * what a batch spent is how many more there are after it. */
static size_t stored_runs(struct bisect *b, const char *sha)
{
	struct result_group *g = NULL;
	size_t ng = 0, n = 0;

	commit_groups(b, sha, &g, &ng);
	for (size_t i = 0; i < ng; i++) {
		n += g[i].nruns;
		group_free(&g[i]);
	}
	free(g);
	return n;
}

static size_t count_runs(void *arg)
{
	return stored_runs(((void **)arg)[0], ((void **)arg)[1]);
}

/* k more runs of the job at sha (booted), through the bisection's executor (executor.h):
 * here, on the target, or one Slurm job array.  before: the runs sha has (stored_runs).  0, 1 runs
 * lost on the way back from a target or a Slurm task failed (the caller may ask again), -1 error,
 * 130. */
/* --kernel-tree: run's --vm-* options for the guest, each "--name=value". */
static int vm_args(const struct bisect *b, struct strvec *a)
{
	int rc = 0;

	if (b->vm_cpus)
		rc |= strvec_pushf(a, "--vm-cpus=%u", b->vm_cpus);
	if (b->vm_max_cpus)
		rc |= strvec_pushf(a, "--vm-max-cpus=%u", b->vm_max_cpus);
	if (b->vm_memory)
		rc |= strvec_pushf(a, "--vm-memory=%u", b->vm_memory);
	if (b->vm_append)
		rc |= strvec_pushf(a, "--vm-append=%s", b->vm_append);
	if (b->vm_icount)
		rc |= strvec_push(a, "--vm-icount");
	else if (b->vm_accel)
		rc |= strvec_pushf(a, "--vm-accel=%s", b->vm_accel);
	for (size_t i = 0; i < b->n_qemu_args; i++)
		rc |= strvec_pushf(a, "--qemu-arg=%s", b->qemu_args[i]);
	rc |= strvec_pushf(a, "--boot-timeout=%.0f", b->boot_timeout > 3600 ? 3600
						     : b->boot_timeout < 1  ? 1
									    : b->boot_timeout);
	return rc ? -1 : 0;
}

static int run_job(struct bisect *b, const char *sha, unsigned k, size_t before)
{
	struct strvec vm = STRVEC_INIT;
	struct exec_settings set = {.target = b->target,
					  .target_bin = b->target_bin,
					  .ssh_options = b->ssh_options,
					  .n_ssh_options = b->n_ssh_options,
					  .partition = b->partition,
					  .constraint = b->constraint,
					  .runs_per_task = b->runs_per_task,
					  .said = &b->said};
	const char *env[] = {b->env_token, NULL};
	void *arg[2] = {b, (void *)sha};
	const struct exec_request rq = {.job_path = b->job_path,
					.commit = sha,
					.results = b->results,
					.runs = k,
					.plugins = b->plugins,
					.nplugins = b->nplugins,
					.overrides = b->overrides.v,
					.noverrides = b->overrides.n,
					.no_monitors = b->no_monitors,
					.env = env,
					.before = before,
					.count_runs = count_runs,
					.count_arg = arg};
	struct executor e;
	struct exec_result r;
	int rc;

	if (interrupt_caught)
		return SB_EXIT_INTERRUPTED;
	if (b->kernel_tree) {
		if (vm_args(b, &vm))
			xalloc_die();
		set.kernel_cache = b->kernel_cache;
		set.console_dir = b->dir_d;
		set.vm_args = vm.v;
		set.n_vm_args = vm.n;
	}
	executor_init(&e, b->slurm, &set);
	rc = executor_run(&e, &rq, &r);
	strvec_clear(&vm);
	if (rc == SB_EXIT_INTERRUPTED || interrupt_caught)
		return SB_EXIT_INTERRUPTED;
	if (rc == -1 && r.exit == -1)
		return -1; /* not run: said */
	count_spent(b, sha, r.stored);
	json_t *f = json_pack("{s:s, s:i, s:i, s:i}", "commit", sha, "runs", (int)r.stored, "asked",
			      (int)k, "exit", r.exit);

	if (b->slurm)
		json_object_set_new(f, "slurm_job", r.id[0] ? json_string(r.id) : json_null());
	bisect_event(b, "runs", f);
	if (r.exit && !r.no_boot)
		sb_error("%.10s: %s", sha, r.why);
	if (e.ops->many_machines && r.stored && machines_check(b, sha))
		return -1;
	return rc;
}

/* Each batch of runs is a boot: of the target (--reboot, --target) or of a fresh guest. */
static bool batch_boots(const struct bisect *b)
{
	return boot_reboots(b) || b->kernel_tree;
}

unsigned batch_size(const struct bisect *b)
{
	return batch_boots(b) ? b->runs_per_boot : 1;
}

/* --kernel-tree: sha's guest did not come up (attempt of 2), logged with its console's tail. */
static void guest_failed(struct bisect *b, const char *sha, int attempt)
{
	char path[PATH_MAX + 80];
	char *tail;

	snprintf(path, sizeof(path), "%s/%s.console", b->dir_d, sha);
	tail = file_tail(path, 30); /* a panic's message is ~20 lines up, above its trace */
	bisect_event(b, "boot-failed",
		     json_pack("{s:s, s:i, s:s, s:s, s:s}", "commit", sha, "attempt", attempt,
			       "reason", "the guest did not answer ssh (run --kernel exit 3)",
			       "console", path, "tail", tail ? tail : ""));
	sb_error("%.10s: its kernel did not come up in the guest (attempt %d of 2)%s; console: %s",
		 sha, attempt, attempt == 1 ? ", booting it again" : ", skipping the commit", path);
	free(tail);
}

int batch_ensure_runs(struct bisect *b, const char *sha, unsigned want, double **vals, size_t *n)
{
	bool absent;
	int rc;
	unsigned lost = 0, no_boot = 0;
	size_t stored; /* the runs sha has, failed ones too: what a batch spent is the rise */

	*n = load_values(b, sha, vals, &absent, &stored);
	while (!b->split && !absent && *n < want) {
		unsigned k = want - (unsigned)*n;

		free(*vals);
		*vals = NULL;
		if (batch_boots(b) && k > b->runs_per_boot)
			k = b->runs_per_boot;
		/* A bisection whose state cannot be kept could not be resumed: stop spending. */
		if (b->log_lost)
			return -1;
		size_t before = *n;

		if ((rc = boot_commit(b, sha)))
			return rc;
		rc = run_job(b, sha, k, stored);
		if (rc == 2) {
			guest_failed(b, sha, (int)++no_boot);
			if (no_boot > 1)
				return 1;
			rc = 0;
			continue;
		}
		if (rc == 1) {
			/* A lost connection: its runs again, in a boot of their own (the target may
			 * be what failed); twice for one commit is an error. */
			const char *where = b->slurm ? "Slurm" : b->target;

			if (++lost > 1) {
				sb_error("%.10s: runs on %s failed twice in one step; giving up",
					 sha, where);
				return -1;
			}
			sb_error("%.10s: runs on %s failed or did not come back; asking again", sha,
				 where);
		} else if (rc) {
			return rc;
		}
		*n = load_values(b, sha, vals, &absent, &stored);
		if (rc == 0 && !absent && *n < before + k)
			absent = true; /* runs stored, not all with the stat */
	}
	if (b->split)
		return -1; /* said */
	if (absent) {
		sb_error("the stat '%s' is absent from the runs of job %s at %.10s (under %s)",
			 b->stat, b->path_params, sha, b->results);
		return -1;
	}
	/* Runs reused from the results root too: good and bad on like machines. */
	if (b->slurm && machines_check(b, sha)) {
		free(*vals);
		*vals = NULL;
		return -1;
	}
	if (*n > want)
		*n = want;
	return 0;
}
