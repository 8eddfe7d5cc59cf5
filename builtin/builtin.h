/* The subcommands, one file each, dispatched from main.c's table.  Each parses its options
 * from its own table (lib/options.h), says what goes wrong through lib/errors.h, which adds
 * the "scalebench CMD: " prefix, and returns its exit status, named in lib/exit.h. */
#ifndef SCALEBENCH_BUILTIN_H
#define SCALEBENCH_BUILTIN_H

#include "../lib/errors.h"
#include "../lib/exit.h"
#include "../lib/mail.h"
#include "../lib/options.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Option groups: an option several commands take, declared once (its name, value and
 * default); each table adds its own .help, and .flags where it needs them. */
#define OPT_RESULTS(p) OPT_STRING("results", 0, p), .arg = "DIR", .def = "results"
/* --results without a default: a command that can also work without a results root. */
#define OPT_RESULTS_OPTIONAL(p) OPT_STRING("results", 0, p), .arg = "DIR"
/* The robot mail's delivery: report and nightly. */
#define OPT_MAIL_MBOX(p) OPT_STRING("mbox", 0, p), .arg = "FILE"
#define OPT_MAIL_SENDMAIL(p) OPT_FLAG("sendmail", 0, p)
#define OPT_MAIL_FROM(p)                                                                           \
	OPT_STRING("from", 0, p), .arg = "ADDR", .def = MAIL_FROM_DEFAULT,  \
	.help = "From: one address, 'Name <local@domain>' or 'local@domain'"
#define OPT_MAIL_TO(p) OPT_STRING("to", 0, p), .arg = "ADDR"

int cmd_list(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_split(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_lkp_matrix(int argc, char **argv);
int cmd_nightly(int argc, char **argv);
int cmd_trend(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_wait(int argc, char **argv);
int cmd_submit(int argc, char **argv);

extern const struct command_def list_command;
extern const struct command_def bench_command;
extern const struct command_def split_command;
extern const struct command_def run_command;
extern const struct command_def compare_command;
extern const struct command_def plot_command;
extern const struct command_def profile_command;
extern const struct command_def bisect_command;
extern const struct command_def report_command;
extern const struct command_def lkp_matrix_command;
extern const struct command_def nightly_command;
extern const struct command_def trend_command;
extern const struct command_def index_command;
extern const struct command_def results_command;
extern const struct command_def html_command;
extern const struct command_def status_command;
extern const struct command_def wait_command;
extern const struct command_def submit_command;

/* --plugin FILE.so, repeatable: the plug-in's testcases are loaded at once.  The option's
 * value, when not NULL, is a size_t counting the plug-ins loaded. */
int plugin_option(const struct option_def *opt, const char *arg, char *err, size_t errlen);
/* The same, each path also pushed onto the option's value, a struct strvec (lib/strvec.h):
 * for a command that sends the plug-ins on (run --target, submit). */
int plugin_list_option(const struct option_def *opt, const char *arg, char *err,
		       size_t errlen);

/* The testcases' temp dir: opt (--tmpdir), else $TMPDIR, else /tmp, checked by creating a
 * temp file in it.  NULL after a message naming it. */
const char *tmpdir_checked(const char *opt);

/* builtin/status.c's printing, shared with wait: the submission (failed_only: its failed
 * tasks alone), names and output escaped for the terminal. */
struct slurm_status;
void slurm_status_print(const struct slurm_status *st, FILE *out, bool failed_only);
/* The command line's job-file values of run (and submit), in the order given (a later one of a
 * key wins): --set KEY=VALUE, --runtime, --nr-task fill a struct override_list (opt->value);
 * keys are malloc'd, values point into argv. */
int run_set_option(const struct option_def *opt, const char *arg, char *err, size_t errlen);

/* The job file a command-line word names, as run finds it: a file or path, else a shipped
 * job by name.  0 with the path in out, or -1 after a message saying where it looked. */
int run_find_job(const char *arg, char *out, size_t len);

#endif
