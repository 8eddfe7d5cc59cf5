/* What every executor shares: the `scalebench` child it runs (this very binary), the request's
 * words, the count of what came back. */
#include "executor.h"
#include "../lib/errors.h"
#include "../lib/run_command.h"
#include "../lib/strvec.h"
#include "../lib/xalloc.h"

#include <stdio.h>
#include <string.h>

void executor_init(struct executor *e, bool slurm, const struct exec_settings *set)
{
	memset(e, 0, sizeof(*e));
	e->set = *set;
	e->ops = slurm		       ? &exec_slurm_ops
		 : set->kernel_cache ? &exec_qemu_ops
		 : set->target	     ? &exec_ssh_ops
				     : &exec_local_ops;
}

static int request_args(const struct exec_request *rq, struct strvec *a)
{
	int rc = strvec_pushf(a, "%s", rq->job_path);

	rc |= strvec_pushf(a, "--commit=%s", rq->commit);
	rc |= strvec_pushf(a, "--results=%s", rq->results);
	rc |= strvec_pushf(a, "-r%u", rq->runs);
	rc |= strvec_push(a, "-q");
	if (rq->no_monitors)
		rc |= strvec_push(a, "--no-monitors");
	for (size_t i = 0; i < rq->nplugins; i++)
		rc |= strvec_pushf(a, "--plugin=%s", rq->plugins[i]);
	for (size_t i = 0; i < rq->noverrides; i++)
		rc |= strvec_pushf(a, "--set=%s=%s", rq->overrides[i].key, rq->overrides[i].value);
	return rc ? -1 : 0;
}

/* text's lines that are not in said yet, to stderr, each added to said. */
static void say_once(struct strvec *said, const char *text)
{
	while (text && *text) {
		size_t len = strcspn(text, "\n");
		size_t i;

		for (i = 0; i < said->n; i++)
			if (strlen(said->v[i]) == len && !memcmp(said->v[i], text, len))
				break;
		if (i == said->n) {
			fprintf(stderr, "%.*s\n", (int)len, text);
			if (strvec_pushf(said, "%.*s", (int)len, text))
				xalloc_die();
		}
		text += len + (text[len] == '\n');
	}
}

int executor_run(const struct executor *e, const struct exec_request *rq, struct exec_result *r)
{
	struct strvec argv = STRVEC_INIT;
	struct child_process run = {.path = "/proc/self/exe", .env = rq->env, .end_group = true};
	char err[512];

	memset(r, 0, sizeof(*r));
	r->exit = -1;
	if (strvec_push(&argv, "scalebench") || strvec_push(&argv, e->ops->command) ||
	    request_args(rq, &argv) || (e->ops->args && e->ops->args(e, rq, &argv)))
		xalloc_die();
	run.argv = argv.v;
	if (e->ops->capture) {
		run.out = RUN_OUT_CAPTURE;
		run.out_text.max = 1 << 16;
	}
	if (e->set.said) {
		run.err = RUN_OUT_CAPTURE;
		run.err_text.max = 1 << 16;
	}
	if (child_run(&run, err, sizeof(err))) {
		sb_error("%s", err);
		strvec_clear(&argv);
		child_release(&run);
		return -1;
	}
	strvec_clear(&argv);
	if (e->set.said)
		say_once(e->set.said, run.err_text.p);
	r->exit = child_status(&run);
	if (e->ops->finish)
		e->ops->finish(e, run.out_text.p ? run.out_text.p : "", r);
	if (run.interrupted) {
		child_release(&run);
		return SB_EXIT_INTERRUPTED;
	}
	child_release(&run);
	/* What came back: all of it when the command says so, or when nothing can be lost on
	 * the way (a failed run is stored, as here); else what the results root holds now
	 * that it did not: a run the connection lost, or that a Slurm task did not store, is
	 * not spent; a failed run a task stored is. */
	r->stored = rq->runs;
	if (r->exit && e->ops->may_lose && rq->count_runs) {
		size_t now = rq->count_runs(rq->count_arg);

		r->stored = now > rq->before ? (unsigned)(now - rq->before) : 0;
	}
	if (r->stored > rq->runs)
		r->stored = rq->runs;
	r->lost = rq->runs - r->stored;
	if (r->exit && !r->why[0])
		snprintf(r->why, sizeof(r->why), "scalebench %s exited with %d", e->ops->name,
			 r->exit);
	/* 1 from a target (a run failed or the connection was lost: nothing half stored) or
	 * from Slurm (a task failed, submit --wait's 1): the caller may ask again. */
	if (r->no_boot)
		return 2;
	return r->exit == SB_EXIT_OK ? 0 : r->exit == SB_EXIT_FAILED && e->ops->may_lose ? 1 : -1;
}
