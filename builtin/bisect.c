/* scalebench bisect: find the commit that changed a stat.  The command alone: its help, its
 * option table and the combinations it refuses; the bisection itself is workflow/bisect.h. */
#include "builtin.h"
#include "../analyze/bisect.h"
#include "../lib/file.h"
#include "../lib/num.h"
#include "../lib/xalloc.h"
#include "../runner/slurm.h"
#include "../runner/target.h"
#include "../runner/vm.h"
#include "../workflow/bisect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct command_def bisect_command = {
    .name = "bisect",
    .alt = "--resume LOG",
    .summary = "Find the commit that changed a stat: git bisect driven by runs and an SPRT.",
    .details =
	"The endpoints first: 3 runs each, then one more on each side at a time, until the\n"
	"analyzer's test (Welch on log values, 1% threshold) confirms the change; if it does\n"
	"not within --max-runs, nothing is bisected; else 6 runs each (at least) model them.\n"
	"Each midpoint: 3 runs, then one at a time, until a sequential probability ratio test\n"
	"against the two endpoints' log values decides good or bad (alpha = beta = 1 -\n"
	"confidence); at --max-runs the closer endpoint decides, with a warning.  A failing\n"
	"prepare command skips the commit.  The culprit is re-verified against its parent.\n"
	"With --reboot, each batch of --runs-per-boot runs is one boot: prepare, reboot, then\n"
	"--boot-check until it exits 0 (a commit that does not come up twice is skipped).\n"
	"With --target ssh://HOST the runs go there (scalebench run --target) and every batch\n"
	"is one boot; --reboot defaults to `reboot` there over ssh, --boot-check to the target\n"
	"answering again with a new boot_id and (for another commit) a new uname -r.\n"
	"With --slurm each batch of runs is one Slurm job array (scalebench submit --wait)\n"
	"on the nodes --partition and --constraint name; runs of a commit on machines of\n"
	"another model than the endpoints' stop the bisection (exit 2).\n"
	"With --kernel-tree each commit of the kernel tree --repo is built with\n"
	"--kernel-config (scalebench-kernel-build: olddefconfig, LOCALVERSION -g<sha12>,\n"
	"ccache, nice; out of tree in --kernel-cache, one bzImage per commit, reused) and each\n"
	"batch of --runs-per-boot runs is a fresh QEMU guest booting it (run --kernel): a\n"
	"commit that does not build is skipped, one that does not boot is tried once more,\n"
	"then skipped, its console kept beside the log.  --vm-icount measures path length in\n"
	"instructions (no noise, no contention between CPUs).\n"
	"The log is the bisection's state, rewritten whole after every change; --resume LOG\n"
	"continues it after a kill, crash or reboot.  Each commit's prepare, reboot and boot\n"
	"check output goes to LOG's .d directory.  The repository's bisect state is reset at\n"
	"the end and on SIGINT/SIGTERM (not while a reboot is awaited: --resume goes on).\n"
	"\nexit status: 0 culprit found and verified, 1 change not reproduced between the\n"
	"endpoints, 3 inconclusive (a step out of --max-runs, culprit not verified, only\n"
	"skipped commits left), 2 error, 130 interrupted (SIGINT or SIGTERM).\n",
    .rules =
	(const struct option_rule[]){
	    {OPTION_ALONE, "resume", "dry-run",
	     "--resume LOG takes its options from LOG: give it alone"},
	    {OPTION_NEEDS,
	     "kernel-config kernel-cache vm-cpus vm-max-cpus vm-memory vm-append "
	     "vm-accel vm-icount qemu-arg",
	     "kernel-tree", NULL},
	    {OPTION_CONFLICTS, "kernel-tree", "prepare reboot boot-check target slurm",
	     "--kernel-tree builds each commit and boots it in QEMU by itself"},
	    {OPTION_NEEDS, "boot-check", "reboot target", "it checks each boot"},
	    {OPTION_NEEDS, "target-bin ssh-option", "target", NULL},
	    {OPTION_NEEDS, "partition constraint runs-per-task", "slurm", NULL},
	    {OPTION_CONFLICTS, "slurm", "target",
	     "the runs go either to Slurm's nodes or to one target, not both"},
	    /* The reboot command would run here, not on the node Slurm picks for the array. */
	    {OPTION_CONFLICTS, "slurm", "reboot",
	     "rebooting a Slurm node into a commit is site-specific and not done by bisect (see "
	     "the README, bisect on Slurm); bisect userspace with --slurm, or a kernel with "
	     "--target"},
	    {OPTION_RULES_END, NULL, NULL, NULL}},
};

#define STR_(x) #x
#define STR(x)	STR_(x)

/* 1 - alpha = 1 - beta of the SPRT: strictly between 0.5 and 1. */
static int confidence_option(const struct option_def *opt, const char *arg, char *err,
			     size_t errlen)
{
	double c;

	if (num_parse_float(arg, 0.5, 1, &c, NULL, 0) || c == 0.5 || c == 1) {
		snprintf(err, errlen,
			 "--confidence '%s': expected a number between 0.5 and 1 (e.g. 0.99)", arg);
		return -1;
	}
	*(double *)opt->value = c;
	return 0;
}

static int ssh_option_arg(const struct option_def *opt, const char *arg, char *err, size_t errlen)
{
	struct bisect *b = opt->value;
	const char **v;

	if (target_ssh_option_check(arg, err, errlen))
		return -1;
	v = xrealloc(b->ssh_options, (b->n_ssh_options + 1) * sizeof(*v));
	b->ssh_options = v;
	v[b->n_ssh_options++] = arg;
	return 0;
}

static int plugin_arg(const struct option_def *opt, const char *arg, char *err, size_t errlen)
{
	struct bisect *b = opt->value;

	if (b->nplugins == sizeof(b->plugins) / sizeof(*b->plugins)) {
		snprintf(err, errlen, "--plugin: at most %zu", b->nplugins);
		return -1;
	}
	b->plugins[b->nplugins++] = arg;
	return 0;
}

/* The saved state of the callback options (options_to_json): --confidence a number,
 * --ssh-option and --plugin lists (plug-ins absolute). */
static json_t *confidence_save(const struct option_def *opt)
{
	return json_real(*(double *)opt->value);
}

static int confidence_load(const struct option_def *opt, json_t *v, char *err, size_t errlen)
{
	double c = json_number_value(v);

	if (!json_is_number(v) || !(c > 0.5 && c < 1)) {
		snprintf(err, errlen, "'confidence': expected a number between 0.5 and 1");
		return -1;
	}
	*(double *)opt->value = c;
	return 0;
}

/* A list option's values as a JSON array of strings. */
static json_t *strings_json(const char *const *v, size_t n)
{
	json_t *a = json_array();

	/* NULL, not a shorter list, for a value JSON cannot hold (not UTF-8). */
	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_string(v[i]))) {
			json_decref(a);
			a = NULL;
		}
	return a;
}

/* A saved list option back through its own callback, one value at a time (each checked as
 * on the command line); the list was emptied by the caller.  -1 with a message in err. */
static int strings_load(const struct option_def *opt, json_t *v, const char *what, char *err,
			size_t errlen)
{
	size_t i;
	json_t *w;

	json_array_foreach (v, i, w) {
		if (!json_is_string(w)) {
			snprintf(err, errlen, "'%s': expected %s", opt->state_key, what);
			return -1;
		}
		if (opt->callback(opt, json_string_value(w), err, errlen))
			return -1;
	}
	return 0;
}

static json_t *ssh_options_save(const struct option_def *opt)
{
	const struct bisect *b = opt->value;

	return strings_json(b->ssh_options, b->n_ssh_options);
}

static int ssh_options_load(const struct option_def *opt, json_t *v, char *err, size_t errlen)
{
	struct bisect *b = opt->value;

	free(b->ssh_options);
	b->ssh_options = NULL;
	b->n_ssh_options = 0;
	return strings_load(opt, v, "strings", err, errlen);
}

static int qemu_arg(const struct option_def *opt, const char *arg, char *err, size_t errlen)
{
	struct bisect *b = opt->value;

	if (b->n_qemu_args == sizeof(b->qemu_args) / sizeof(*b->qemu_args)) {
		snprintf(err, errlen, "--qemu-arg: at most %zu", b->n_qemu_args);
		return -1;
	}
	b->qemu_args[b->n_qemu_args++] = arg;
	return 0;
}

static json_t *qemu_args_save(const struct option_def *opt)
{
	const struct bisect *b = opt->value;

	return strings_json(b->qemu_args, b->n_qemu_args);
}

static int qemu_args_load(const struct option_def *opt, json_t *v, char *err, size_t errlen)
{
	((struct bisect *)opt->value)->n_qemu_args = 0;
	return strings_load(opt, v, "strings", err, errlen);
}

static json_t *plugins_save(const struct option_def *opt)
{
	const struct bisect *b = opt->value;
	json_t *a = json_array();
	char buf[PATH_MAX];

	for (size_t i = 0; a && i < b->nplugins; i++) {
		path_absolute(b->plugins[i], buf, sizeof(buf));
		if (json_array_append_new(a, json_string(buf))) {
			json_decref(a);
			a = NULL;
		}
	}
	return a;
}

static int plugins_load(const struct option_def *opt, json_t *v, char *err, size_t errlen)
{
	((struct bisect *)opt->value)->nplugins = 0;
	return strings_load(opt, v, "paths", err, errlen);
}

/* --set, --runtime and --nr-task in the log as one list of KEY=VALUE, in the order given. */
static json_t *overrides_save(const struct option_def *opt)
{
	const struct override_list *l = opt->value;
	json_t *a = json_array();

	for (size_t i = 0; a && i < l->n; i++) {
		char *kv = xasprintf("%s=%s", l->v[i].key, l->v[i].value);

		if (json_array_append_new(a, json_string(kv))) {
			json_decref(a);
			a = NULL;
		}
		free(kv);
	}
	return a;
}

static int overrides_load(const struct option_def *opt, json_t *v, char *err, size_t errlen)
{
	struct override_list *l = opt->value;

	for (size_t i = 0; i < l->n; i++)
		free((char *)l->v[i].key);
	l->n = 0;
	return strings_load(opt, v, "KEY=VALUE strings", err, errlen);
}

#define BISECT_MAX_OPTIONS 48

/* Parse argv into b; the option table, which the bisect log's args are written from and
 * read back with (options_to_json), into opts. */
static int options_read(struct bisect *b, struct option_def *opts_out, int argc, char **argv)
{
	const struct option_def opts[] = {
	    {OPT_STRING("repo", 0, &b->repo), .arg = "DIR", .def = ".", .flags = OPTION_PATH,
	     .help = "the git repository to bisect"},
	    {OPT_STRING("good", 0, &b->good_arg), .arg = "G", .flags = OPTION_NO_STATE,
	     .help = "a commit without the change"},
	    {OPT_STRING("bad", 0, &b->bad_arg), .arg = "B", .flags = OPTION_NO_STATE,
	     .help = "a commit with the change (G must be its ancestor)"},
	    {OPT_STRING("job", 0, &b->job_path), .arg = "JOB.yaml", .flags = OPTION_PATH,
	     .help = "the job to run at each commit (one atomic job)"},
	    {OPT_STRING("stat", 0, &b->stat), .arg = "STAT",
	     .help = "the stat that changed (e.g. will-it-scale.per_thread_ops)"},
	    {OPT_STRING("prepare", 0, &b->prepare), .arg = "COMMAND",
	     .help = "shell command that builds what is tested, run in the repo with "
		     "$SCALEBENCH_COMMIT; non-zero exit skips the commit"},
	    {OPT_RESULTS(&b->results), .flags = OPTION_PATH,
	     .help = "results root; runs there are reused"},
	    {OPT_COUNT("max-runs", 0, &b->max_runs), .def = STR(BISECT_MAX_RUNS),
	     .min = BISECT_FIRST_RUNS, .max = 1000, .help = "run budget per commit"},
	    {OPT_CALLBACK("confidence", 0, confidence_option, &b->confidence), .arg = "C",
	     .def = "0.99", .help = "1 - alpha = 1 - beta of each midpoint's SPRT",
	     .save = confidence_save, .load = confidence_load},
	    {OPT_PERCENT("threshold", 0, &b->threshold), .def = "1", .max = 1000,
	     .help = "noise threshold of the endpoint and culprit checks (at most 0.1% in icount "
		     "mode)"},
	    {OPT_STRING("log", 0, &b->log_path), .arg = "FILE", .flags = OPTION_NO_STATE,
	     .def_doc = "RESULTS/bisect-<good>-<bad>[-N].json",
	     .help = "bisect log, JSON: the bisection's state; never overwritten"},
	    {OPT_STRING("resume", 0, &b->resume), .arg = "LOG", .flags = OPTION_NO_STATE,
	     .help = "continue the bisection LOG holds (all other options come from it)"},
	    {OPT_STRING("target", 0, &b->target), .arg = "ssh://[USER@]HOST[:PORT]",
	     .help = "run the job there (scalebench run --target); reboot it for each batch "
		     "of runs"},
	    {OPT_STRING("target-bin", 0, &b->target_bin), .arg = "PATH",
	     .def_doc = "scalebench on its PATH", .help = "the target's scalebench"},
	    {OPT_CALLBACK("ssh-option", 0, ssh_option_arg, b), .arg = "KEY=VALUE",
	     .help = "an ssh -o option for every connection to the target (repeatable)",
	     .state_key = "ssh_options", .save = ssh_options_save, .load = ssh_options_load},
	    {OPT_FLAG("slurm", 0, &b->slurm),
	     .help = "each batch of runs is one Slurm job array (scalebench submit --wait) into "
		     "the shared results root; prepare still runs here"},
	    {OPT_STRING("partition", 0, &b->partition), .arg = "P",
	     .help = "with --slurm: the partition of every array"},
	    {OPT_STRING("constraint", 0, &b->constraint), .arg = "FEATURES",
	     .help = "with --slurm: the node features of every array (one class of nodes)"},
	    {OPT_COUNT("runs-per-task", 0, &b->runs_per_task), .def = "1", .min = 1, .max = 1000,
	     .help = "with --slurm: runs per array task (scalebench submit --runs-per-task): "
		     "fewer of Slurm's scheduling passes, fewer nodes at once"},
	    {OPT_STRING("reboot", 0, &b->reboot), .arg = "COMMAND",
	     .def_doc = "with --target: ssh TARGET reboot",
	     .help = "shell command that reboots into the prepared commit, before each batch "
		     "of runs ($SCALEBENCH_COMMIT, $SCALEBENCH_TARGET set)"},
	    {OPT_STRING("boot-check", 0, &b->boot_check), .arg = "COMMAND",
	     .def_doc = "with --target: a new boot_id there, and a new uname -r",
	     .help = "shell command that exits 0 once the commit under test is booted; "
		     "polled after each reboot"},
	    {OPT_DURATION("boot-timeout", 0, &b->boot_timeout), .def = "600",
	     .help = "how long a boot may take before the commit is retried, then skipped"},
	    {OPT_COUNT("runs-per-boot", 0, &b->runs_per_boot), .def = "3", .min = 1, .max = 1000,
	     .help = "runs per boot: runs are asked for in batches of this many (with --reboot, "
		     "--target or --kernel-tree)"},
	    {OPT_FLAG("kernel-tree", 0, &b->kernel_tree),
	     .help = "--repo is a kernel tree: build each commit (scalebench-kernel-build) and "
		     "boot it in a fresh QEMU guest, run --kernel, for each batch of runs"},
	    {OPT_STRING("kernel-config", 0, &b->kernel_config), .arg = "FILE", .flags = OPTION_PATH,
	     .def_doc = "the shipped guest fragment",
	     .help = "with --kernel-tree: a whole .config, or a fragment merged onto "
		     "tinyconfig; then make olddefconfig"},
	    {OPT_STRING("kernel-cache", 0, &b->kernel_cache), .arg = "DIR", .flags = OPTION_PATH,
	     .def_doc = "RESULTS/kernels",
	     .help = "with --kernel-tree: the build directory and each commit's bzImage"},
	    {OPT_COUNT("vm-cpus", 0, &b->vm_cpus), .arg = "N", .def = "1", .min = 1, .max = 256,
	     .help = "with --kernel-tree: the guest's online CPUs"},
	    {OPT_COUNT("vm-max-cpus", 0, &b->vm_max_cpus), .arg = "N", .def_doc = "--vm-cpus",
	     .min = 0, .max = 256, .help = "with --kernel-tree: the guest's possible CPUs"},
	    {OPT_COUNT("vm-memory", 0, &b->vm_memory), .arg = "MIB", .def = "2048", .min = 128,
	     .max = 1048576, .unit = "MiB", .help = "with --kernel-tree: the guest's memory"},
	    {OPT_STRING("vm-append", 0, &b->vm_append), .arg = "TEXT",
	     .help = "with --kernel-tree: more kernel command line"},
	    {OPT_CHOICE("vm-accel", 0, &b->vm_accel), .choices = "auto|kvm|tcg|icount",
	     .def_doc = "auto", .help = "with --kernel-tree: how the guest's vCPUs run"},
	    {OPT_FLAG("vm-icount", 0, &b->vm_icount),
	     .help = "with --kernel-tree: TCG's instruction count (path length, no contention; "
		     "same as --vm-accel icount)"},
	    {OPT_CALLBACK("qemu-arg", 0, qemu_arg, b), .arg = "ARG", .state_key = "qemu_args",
	     .save = qemu_args_save, .load = qemu_args_load,
	     .help = "with --kernel-tree: one more QEMU argument, after scalebench's (repeatable)"},
	    {OPT_CALLBACK("plugin", 0, plugin_arg, b), .arg = "FILE.so",
	     .help = "passed to scalebench run (repeatable)", .state_key = "plugins",
	     .save = plugins_save, .load = plugins_load},
	    {OPT_CALLBACK("set", 0, run_set_option, &b->overrides), .arg = "KEY=VALUE",
	     .help = "a job-file key's value for every run, as run --set (repeatable)",
	     .state_key = "set", .save = overrides_save, .load = overrides_load},
	    {OPT_CALLBACK("runtime", 0, run_set_option, &b->overrides), .arg = "DURATION",
	     .flags = OPTION_NO_STATE, .help = "the job's runtime (--set runtime=DURATION)"},
	    {OPT_CALLBACK("nr-task", 0, run_set_option, &b->overrides), .arg = "N|P%",
	     .flags = OPTION_NO_STATE, .help = "the job's nr_task (--set nr_task=N|P%)"},
	    {OPT_MAIL_MBOX(&b->mbox),
	     .help = "when the culprit is verified, append the robot's mail of it against its "
		     "parent there (report --mbox)"},
	    {OPT_FLAG("no-monitors", 0, &b->no_monitors), .help = "passed to scalebench run"},
	    {OPT_FLAG("dry-run", 0, &b->dry_run), .flags = OPTION_NO_STATE,
	     .help = "check everything and print the plan, run nothing"},
	    {OPT_END},
	};
	int first, rc;

	_Static_assert(sizeof(opts) / sizeof(*opts) <= BISECT_MAX_OPTIONS, "BISECT_MAX_OPTIONS");
	memcpy(opts_out, opts, sizeof(opts));
	b->opts = opts_out;
	rc = options_parse(&bisect_command, opts_out, argc, argv, &first, NULL);

	if (rc >= 0)
		return rc;
	if (first < argc) {
		sb_error("unexpected argument '%s'", argv[first]);
		return SB_EXIT_ERROR;
	}
	return -1;
}

/* What the option rules cannot say, on the values given: 0, or 2 after a message. */
static int options_check(const struct bisect *b)
{
	if (b->kernel_tree) {
		/* Before the first build, not at the first boot after it. */
		const struct vm_opts vo = {
		    .cpus = b->vm_cpus, .max_cpus = b->vm_max_cpus, .append = b->vm_append};
		char err[512];

		if (vm_opts_check(&vo, err, sizeof(err))) {
			sb_error("%s", err);
			return SB_EXIT_ERROR;
		}
	}
	if (b->vm_icount && b->vm_accel && strcmp(b->vm_accel, "icount")) {
		sb_error("--vm-icount with --vm-accel %s: drop one", b->vm_accel);
		return SB_EXIT_ERROR;
	}
	if (slurm_word_check("partition", b->partition, true) ||
	    slurm_word_check("constraint", b->constraint, true))
		return SB_EXIT_ERROR;
	return SB_EXIT_OK;
}

/* Once the options are read: the checks, then the bisection or (--dry-run) its plan. */
static int bisect_checked(struct bisect *b)
{
	char err[1024];
	int rc;

	/* A resumed bisection's options are the log's: checked as the command line's are. */
	if ((b->resume && (rc = bisect_resume_load(b))) || (rc = options_check(b)))
		return rc;
	/* Refused here, not dropped from the log: --resume must find every option as given. */
	if (!b->resume) {
		json_t *saved = options_to_json(b->opts, err, sizeof(err));

		if (!saved) {
			sb_error(
			    "%s: the bisection log keeps every option for --resume, and it is "
			    "JSON, which holds UTF-8 text only (give it in UTF-8: a command can "
			    "be a script's path)",
			    err);
			return SB_EXIT_ERROR;
		}
		json_decref(saved);
	}
	/* Before anything runs: the URL reaches ssh. */
	if (b->target && target_parse(b->target, &b->tgt, err, sizeof(err))) {
		sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	if ((rc = bisect_preflight(b)))
		return rc;
	if (b->dry_run) {
		bisect_plan_print(b);
		return SB_EXIT_OK;
	}
	if ((rc = bisect_log_claim(b)) || (!b->resume && (rc = bisect_log_new(b))))
		return rc;
	return bisect_run(b);
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect b = {0};
	struct option_def opts[BISECT_MAX_OPTIONS];
	int rc = options_read(&b, opts, argc, argv);

	if (rc < 0)
		rc = bisect_checked(&b);
	bisect_free(&b);
	return rc;
}
