/* The Slurm executor: `scalebench submit --wait --json`, one job array of the runs
 * (--runs-per-task of them in each task), waited for; cancelled when we are interrupted
 * (submit --wait does it).  A failed task costs its runs; the array's id is in the result. */
#include "executor.h"
#include "../lib/errors.h"
#include "../lib/strvec.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static int slurm_args(const struct executor *e, const struct exec_request *rq,
		     struct strvec *argv)
{
	(void)rq;
	const struct exec_settings *s = &e->set;
	int rc = strvec_push(argv, "--wait");
	rc |= strvec_push(argv, "--json");
	if (s->runs_per_task > 1)
		rc |= strvec_pushf(argv, "--runs-per-task=%u", s->runs_per_task);
	if (s->partition)
		rc |= strvec_pushf(argv, "--partition=%s", s->partition);
	if (s->constraint)
		rc |= strvec_pushf(argv, "--constraint=%s", s->constraint);
	return rc ? -1 : 0;
}

/* The job id submit --json printed (an object with "id", on a line of its own or the whole
 * output). */
static void slurm_finish(const struct executor *e, const char *out, struct exec_result *r)
{
	json_t *j = json_loads(out, 0, NULL);

	(void)e;
	for (const char *line = out; !j && line && *line; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (*line == '{')
			j = json_loadb(line, strcspn(line, "\n"), 0, NULL);
	}
	if (json_is_string(json_object_get(j, "id")))
		snprintf(r->id, sizeof(r->id), "%.31s",
			 json_string_value(json_object_get(j, "id")));
	json_decref(j);
	for (char *p = r->id; *p; p++)
		if (*p < '0' || *p > '9')
			*p = '?';
	if (r->exit == SB_EXIT_OK && !r->id[0]) {
		sb_error("scalebench submit printed no job id: %.200s", *out ? out : "(nothing)");
		r->exit = SB_EXIT_ERROR;
	}
}

const struct executor_ops exec_slurm_ops = {.name = "submit --wait",
					    .command = "submit",
					    .args = slurm_args,
					    .capture = true,
					    .finish = slurm_finish,
					    .may_lose = true,
					    .many_machines = true};
