/* The texts slurm_status.c reads, parsed into plain structs (here for the unit tests): the
 * done/<I> records the job script writes, and what squeue, scontrol and sacct print. */
#ifndef SCALEBENCH_SLURM_PARSE_H
#define SCALEBENCH_SLURM_PARSE_H

#include <stddef.h>

/* done/<I>: "exit=<RC> node=<HOST> start=<EPOCH> end=<EPOCH>\n", nothing else. */
struct slurm_done {
	int exit_code;
	char *node;
	long long start, end;
};

/* 0, or -1 with err saying what is wrong (the caller names the file). */
int slurm_parse_done(const char *text, struct slurm_done *d, char *err, size_t errlen);
void slurm_done_free(struct slurm_done *d);

/* Array tasks task..task_last as Slurm reports them (pending tasks not yet started come as
 * one range).  task -1: a job that is not an array (the --then job). */
struct slurm_report {
	long task, task_last;
	char *state;	  /* first word: "CANCELLED by 0" is CANCELLED */
	char *node;	  /* NULL when none */
	char *reason;	  /* NULL when none or "None" */
	int exit_code;	  /* ExitCode=RC:SIG's RC, -1 when not given */
	int exit_signal;  /* its SIG, 0 when none */
};

struct slurm_reports {
	struct slurm_report *v;
	size_t n;
	char *command; /* scontrol's Command= of the first block, NULL when none */
};

/* `squeue -h -r -j ID -o %K|%T|%N|%r`: one line per task (or a range "4-5", "[4-5%1]", a
 * list "1,3-4" of pending tasks: one report per range).  0, or -1 with err naming the line. */
int slurm_parse_squeue(const char *text, struct slurm_reports *r, char *err, size_t errlen);
/* `scontrol show job ID`: one block per task (ArrayTaskId=, JobState=, NodeList=, ExitCode=,
 * Reason=, Command=). */
int slurm_parse_scontrol(const char *text, struct slurm_reports *r, char *err, size_t errlen);
/* `sacct -n -P -j ID --format=JobID,State,NodeList,ExitCode`: ID_TASK lines (steps skipped). */
int slurm_parse_sacct(const char *text, struct slurm_reports *r, char *err, size_t errlen);
void slurm_reports_free(struct slurm_reports *r);
/* The report of task (or of the job, -1), NULL when none. */
const struct slurm_report *slurm_reports_find(const struct slurm_reports *r, long task);

/* The last max_lines lines of text (a pointer into it). */
const char *slurm_tail_lines(const char *text, size_t len, unsigned max_lines);

#endif
