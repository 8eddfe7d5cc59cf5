/* scalebench status: what became of a Slurm submission's tasks (or of every submission). */
#include "builtin.h"
#include "../lib/jsonw.h"
#include "../lib/text.h"
#include "../lib/xalloc.h"
#include "../runner/slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct command_def status_command = {
    .name = "status",
    .args = "[ID|NAME]",
    .summary = "Say what became of a Slurm submission's tasks: pending, running, done, failed.",
    .details =
	"ID is the Slurm job id `scalebench submit` printed, or the submission's NAME; without\n"
	"one, every submission under the results root is listed, newest first, one line each.\n"
	"A task's state comes from its done/<I> record (what run returned), else from squeue\n"
	"(pending, running), else from scontrol and, when accounting is on, sacct (how Slurm\n"
	"ended it: CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY...); a task nobody knows is\n"
	"UNKNOWN and counted as failed.  A failed task is shown with its atomic job, node, exit\n"
	"code or Slurm's state and the last lines of its output.\n"
	"Exit status: 0 printed (whatever the tasks' states), 2 error (unknown or malformed ID,\n"
	"a malformed record, Slurm not answering).\n",
};

static const char *const state_words[] = {"pending", "running", "done", "failed", "unknown"};

static const char *slurm_task_state_word(enum slurm_task_state s)
{
	return state_words[s];
}

static void print_task(const struct slurm_task *k, FILE *out)
{
	fprintf(out, "  task %u: %s", k->task, slurm_task_state_word(k->state));
	if (k->slurm_state && k->state != SLURM_TASK_PENDING && k->state != SLURM_TASK_RUNNING)
		fprintf(out, " (%s)", text_safe(k->slurm_state));
	fprintf(out, ", %s (%s)", text_safe(k->name ? k->name : "?"),
		text_safe(k->atomic ? k->atomic : "?"));
	if (k->node)
		fprintf(out, ", node %s", text_safe(k->node));
	if (k->exit_code >= 0)
		fprintf(out, ", exit %d", k->exit_code);
	if (k->reason)
		fprintf(out, ", reason %s", text_safe(k->reason));
	fputc('\n', out);
	if (k->output_tail && *k->output_tail) {
		const char *p = k->output_tail;

		while (*p) {
			size_t n = strcspn(p, "\n");
			char *line = xstrndup(p, n);

			fprintf(out, "    | %s\n", text_safe(line));
			free(line);
			p += n;
			if (*p)
				p++;
		}
	}
}

void slurm_status_print(const struct slurm_status *st, FILE *out, bool failed_only)
{
	if (!failed_only) {
		fprintf(out, "submission %s (Slurm job %s)\n", text_safe(st->name),
			st->id[0] ? st->id : "none");
		fprintf(out, "  directory: %s\n", text_safe(st->dir));
		if (st->job)
			fprintf(out, "  job: %s\n", text_safe(st->job));
		if (st->commit)
			fprintf(out, "  commit: %s\n", text_safe(st->commit));
		fprintf(out, "  tasks: %zu: %zu done, %zu running, %zu pending, %zu failed%s\n",
			st->n_tasks, st->n_done, st->n_running, st->n_pending, st->n_failed,
			st->ended ? " (ended)" : "");
		if (st->n_runs != st->n_tasks)
			fprintf(out, "  runs: %zu, several in a task (--runs-per-task)\n",
				st->n_runs);
		if (st->then_id[0])
			fprintf(out, "  then: Slurm job %s, %s\n", st->then_id,
				text_safe(st->then_state ? st->then_state : "state unknown"));
	}
	/* Pending and running tasks in runs of consecutive ones alike (a large array waiting
	 * for Resources is one line), each failed one on its own with its output. */
	for (size_t i = 0; i < st->n_tasks;) {
		const struct slurm_task *k = &st->tasks[i];
		size_t j = i + 1;

		if (k->state == SLURM_TASK_FAILED || k->state == SLURM_TASK_UNKNOWN) {
			print_task(k, out);
			i++;
			continue;
		}
		if (failed_only || k->state == SLURM_TASK_DONE) {
			i++;
			continue;
		}
		const char *what = k->state == SLURM_TASK_PENDING ? k->reason : k->node;

		while (j < st->n_tasks && st->tasks[j].state == k->state) {
			const char *w = k->state == SLURM_TASK_PENDING ? st->tasks[j].reason
								     : st->tasks[j].node;

			if (!(w == what || (w && what && !strcmp(w, what))))
				break;
			j++;
		}
		if (j - i > 1)
			fprintf(out, "  tasks %u-%u: ", k->task, st->tasks[j - 1].task);
		else
			fprintf(out, "  task %u: ", k->task);
		fprintf(out, "%s", slurm_task_state_word(k->state));
		if (what)
			fprintf(out, ", %s %s", k->state == SLURM_TASK_PENDING ? "reason" : "node",
				text_safe(what));
		fputc('\n', out);
		i = j;
	}
}

static void status_json(struct jsonw *w, const struct slurm_status *st)
{
	jsonw_begin_object(w);
	jsonw_key_string_or_null(w, "name", st->name);
	jsonw_key_string_or_null(w, "id", st->id[0] ? st->id : NULL);
	jsonw_key_string_or_null(w, "dir", st->dir);
	jsonw_key_string_or_null(w, "job", st->job);
	jsonw_key_string_or_null(w, "commit", st->commit);
	jsonw_key(w, "n_tasks");
	jsonw_uint(w, st->n_tasks);
	jsonw_key(w, "n_runs");
	jsonw_uint(w, st->n_runs);
	jsonw_key(w, "pending");
	jsonw_uint(w, st->n_pending);
	jsonw_key(w, "running");
	jsonw_uint(w, st->n_running);
	jsonw_key(w, "done");
	jsonw_uint(w, st->n_done);
	jsonw_key(w, "failed");
	jsonw_uint(w, st->n_failed);
	jsonw_key(w, "ended");
	jsonw_bool(w, st->ended);
	jsonw_key(w, "then");
	if (st->then_id[0]) {
		jsonw_begin_object(w);
		jsonw_key_string_or_null(w, "id", st->then_id);
		jsonw_key_string_or_null(w, "state", st->then_state);
		jsonw_end_object(w);
	} else {
		jsonw_null(w);
	}
	jsonw_key(w, "tasks");
	jsonw_begin_array(w);
	for (size_t i = 0; i < st->n_tasks; i++) {
		const struct slurm_task *k = &st->tasks[i];

		jsonw_begin_object(w);
		jsonw_key(w, "task");
		jsonw_uint(w, k->task);
		jsonw_key_string_or_null(w, "state", slurm_task_state_word(k->state));
		jsonw_key_string_or_null(w, "name", k->name);
		jsonw_key_string_or_null(w, "atomic", k->atomic);
		jsonw_key(w, "runs");
		jsonw_uint(w, k->runs);
		jsonw_key_string_or_null(w, "node", k->node);
		jsonw_key(w, "exit_code");
		if (k->exit_code >= 0)
			jsonw_uint(w, (unsigned)k->exit_code);
		else
			jsonw_null(w);
		jsonw_key_string_or_null(w, "slurm_state", k->slurm_state);
		jsonw_key_string_or_null(w, "reason", k->reason);
		jsonw_key_string_or_null(w, "output_tail", k->output_tail);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
}

int cmd_status(int argc, char **argv)
{
	const char *root = NULL;
	bool json = false;
	const struct option_def opts[] = {
	    {OPT_RESULTS(&root),
	     .help = "results root the submissions were made into"},
	    {OPT_FLAG("json", 0, &json), .help = "one JSON object on standard output"},
	    {OPT_END},
	};
	struct jsonw w;
	int first, rc = options_parse(&status_command, opts, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	if (argc - first > 1) {
		sb_error("unexpected argument '%s'", argv[first + 1]);
		return SB_EXIT_ERROR;
	}
	if (json)
		jsonw_init(&w, stdout, 3);
	if (first < argc) {
		struct slurm_status st;

		if (slurm_status_get(root, argv[first], &st))
			return SB_EXIT_ERROR;
		if (json)
			status_json(&w, &st);
		else
			slurm_status_print(&st, stdout, false);
		slurm_status_free(&st);
		if (json && jsonw_finish(&w)) {
			sb_error("JSON output failed");
			return SB_EXIT_ERROR;
		}
		return SB_EXIT_OK;
	}

	char **names;
	size_t n;

	if (slurm_list(root, &names, &n))
		return SB_EXIT_ERROR;
	rc = SB_EXIT_OK;
	if (json) {
		jsonw_begin_object(&w);
		jsonw_key(&w, "submissions");
		jsonw_begin_array(&w);
	} else if (n == 0) {
		printf("no submissions in %s/%s\n", text_safe(root), SLURM_SUBDIR);
	}
	for (size_t i = 0; i < n; i++) {
		struct slurm_status st;

		if (slurm_status_get(root, names[i], &st)) {
			rc = SB_EXIT_ERROR;
		} else if (json) {
			status_json(&w, &st);
		} else {
			printf("%s  job %-8s %zu tasks: %zu done, %zu running, %zu pending, %zu "
			       "failed  %s\n",
			       text_safe(st.name), st.id[0] ? st.id : "none", st.n_tasks, st.n_done,
			       st.n_running, st.n_pending, st.n_failed,
			       text_safe(st.job ? st.job : ""));
		}
		slurm_status_free(&st);
		free(names[i]);
	}
	free(names);
	if (json) {
		jsonw_end_array(&w);
		jsonw_end_object(&w);
		if (jsonw_finish(&w)) {
			sb_error("JSON output failed");
			return SB_EXIT_ERROR;
		}
	}
	return rc;
}
