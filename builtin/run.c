/* scalebench run: a job file's atomic jobs, K runs each, into the results tree. */
#include "builtin.h"
#include "../core/core.h"
#include "../lib/strvec.h"
#include "../lib/utf8.h"
#include "../lib/xalloc.h"
#include "../runner/job.h"
#include "../runner/run.h"
#include "../runner/target.h"
#include "../runner/vm.h"
#include "../store/store.h"
#include "../testcases/registry.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct command_def run_command = {
    .name = "run",
    .args = "JOB.yaml|NAME",
    .summary = "Run a job file's atomic jobs with monitors and store every run.",
    .details = "Each run lands in\n"
	       "  RESULTS/<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/\n"
	       "          <commit>/<run>/\n"
	       "holding job.yaml, output, <monitor>.samples.json (perf-profile's gzipped),\n"
	       "stats.json and meta.json.  A run is written in a temporary directory and\n"
	       "renamed to the first free run number when complete.  Monitors: the job's\n"
	       "monitor keys (perf-stat:, proc-vmstat:, perf-profile:, ...), or the default set\n"
	       "when it names none.\n"
	       "\nA job is a file, or the name of a shipped job (page_fault3): ./NAME, then\n"
	       "NAME.yaml in the installed share/scalebench/jobs.  --set KEY=VALUE, --runtime and\n"
	       "--nr-task change the job file before it is expanded, as if it said so: a list\n"
	       "becomes that one value, path_params and each run's job.yaml show it.  KEY is a\n"
	       "top-level key, a key of the will-it-scale block (test, mode), or BLOCK.KEY.\n"
	       "\nWith --target ssh://[user@]host[:port] the job runs on that machine (its\n"
	       "scalebench, checked to be this version) and each completed run is brought back\n"
	       "over ssh into RESULTS whole, with the target's machine facts (tbox_group, meta).\n"
	       "A connection lost mid-run stores nothing of the run in progress (exit 1); an\n"
	       "unreachable target or an incompatible scalebench there is exit 2.\n"
	       "\nWith --kernel BZIMAGE the job runs in a QEMU guest booting that kernel: this\n"
	       "machine's / read-only over 9p, tmpfs for what the guest writes, its own sshd on\n"
	       "a port of 127.0.0.1; KVM when QEMU starts under it, else TCG.  --vm-icount runs\n"
	       "every vCPU in one host thread with guest time = instructions executed: a\n"
	       "path-length measure with almost no noise, blind to contention between CPUs.\n"
	       "Runs are stored under the VM's shape (tbox_group vm-tcg-1cpu-8max-2048M), the\n"
	       "commit label defaults to the guest kernel's release, meta.json's vm says how it\n"
	       "ran.  A guest that panics, hangs or never answers ssh is exit 3, with its\n"
	       "console's last lines.\n"
	       "\nexit status: 0 every run stored, 1 a run failed (it is stored) or could not be\n"
	       "written, 2 bad usage or job file, 3 the --kernel guest did not come up, 128+N\n"
	       "interrupted by signal N (the run in progress is discarded, completed runs stay).\n",
    .rules =
	(const struct option_rule[]){
	    {OPTION_CONFLICTS, "dry-run", "kernel", "a dry run boots nothing; drop one"},
	    {OPTION_CONFLICTS, "dry-run", "target",
	     "a dry run runs nothing, here or there; drop one"},
	    {OPTION_CONFLICTS, "target-bin", "push push-dir",
	     "the pushed scalebench is the one run; drop one"},
	    {OPTION_NEEDS, "target-bin push push-dir ssh-option", "target", NULL},
	    {OPTION_RULES_END, NULL, NULL, NULL}},
};

/* --target and what goes with it. */
struct target_cli {
	const char *url;
	const char *bin;
	bool push;
	const char *push_dir;
	const char **ssh_options;
	size_t n_ssh_options;
	struct strvec plugins; /* sent to the target with the job */
};

/* --kernel and what goes with it. */
struct vm_cli {
	struct vm_opts o;
	const char *kernel;
	struct strvec qemu_args;
	const char *accel;
	bool icount;
};

static int qemu_arg(const struct option_def *opt, const char *arg, char *err, size_t errlen)
{
	struct vm_cli *v = opt->value;

	(void)err;
	(void)errlen;
	if (strvec_push(&v->qemu_args, arg))
		xalloc_die();
	return 0;
}

static int ssh_option(const struct option_def *opt, const char *arg, char *err, size_t errlen)
{
	struct target_cli *t = opt->value;
	const char **v;

	if (target_ssh_option_check(arg, err, errlen))
		return -1;
	v = xrealloc(t->ssh_options, (t->n_ssh_options + 1) * sizeof(*v));
	t->ssh_options = v;
	v[t->n_ssh_options++] = arg;
	return 0;
}

/* key (its first keylen bytes) copied, value kept: argv outlives the job load. */
static void override_add(struct override_list *l, const char *key, size_t keylen, const char *value)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = (struct job_override){.key = xstrndup(key, keylen), .value = value};
}

int run_set_option(const struct option_def *opt, const char *arg, char *err, size_t errlen)
{
	struct override_list *l = opt->value;
	const char *eq = strchr(arg, '=');

	if (!strcmp(opt->name, "runtime")) {
		override_add(l, "runtime", strlen("runtime"), arg);
	} else if (!strcmp(opt->name, "nr-task")) {
		override_add(l, "nr_task", strlen("nr_task"), arg);
	} else if (!eq || eq == arg) {
		snprintf(err, errlen, "--set '%s': expected KEY=VALUE (runtime=20s, mode=thread)",
			 arg);
		return -1;
	} else {
		override_add(l, arg, (size_t)(eq - arg), eq + 1);
	}
	return 0;
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The job file arg names: itself when it is a file (or a path), else a shipped job by name,
 * NAME.yaml in share/scalebench/jobs beside the binary (bin/../share: a relocated install),
 * in the source tree's jobs/ when the binary is the build tree's (build/ or build/asan/, so
 * 'build/scalebench run page_fault3' works before 'make install'), or where it was
 * installed.  Returns 0 with the path in out, or -1 saying where it looked. */
int run_find_job(const char *arg, char *out, size_t len)
{
	static const char *const beside[] = {"/../share/scalebench/jobs", "/../jobs",
					     "/../../jobs"};
	char exe[PATH_MAX], dir[3][PATH_MAX + 32], tried[5 * PATH_MAX + 64] = "";
	const char *dirs[4] = {NULL, NULL, NULL, SCALEBENCH_DATADIR "/jobs"};
	const char *ext;
	ssize_t n;

	if (is_file(arg) || strchr(arg, '/') || !*arg) {
		snprintf(out, len, "%s", arg);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');

		if (slash) {
			*slash = '\0';
			for (size_t i = 0; i < 3; i++) {
				snprintf(dir[i], sizeof(dir[i]), "%s%s", exe, beside[i]);
				/* the directory without its "..", as messages show it */
				char *real = realpath(dir[i], NULL);

				if (real && strlen(real) < sizeof(dir[i]))
					memcpy(dir[i], real, strlen(real) + 1);
				free(real);
				dirs[i] = dir[i];
			}
		}
	}
	n = (ssize_t)strlen(arg);
	ext = n > 5 && !strcmp(arg + n - 5, ".yaml") ? "" : ".yaml";
	for (size_t i = 0; i < 4; i++) {
		if (!dirs[i])
			continue;
		if (snprintf(out, len, "%s/%s%s", dirs[i], arg, ext) < (int)len && is_file(out))
			return 0;
		snprintf(tried + strlen(tried), sizeof(tried) - strlen(tried), ", %s/%s%s", dirs[i],
			 arg, ext);
	}
	sb_error("job '%s' not found: looked at ./%s%s; expected a job file or the name of a "
		 "shipped job ('scalebench list' shows testcases, share/scalebench/jobs the jobs)",
		 arg, arg, tried);
	return -1;
}

/* The job file at path on the target: the options that shape the runs go with it; job, as it
 * loaded here, says which runs it may bring back (its atomic jobs' path_params). */
static int run_on_target(const struct runner_opts *o, const struct override_list *ov,
			 const struct target_cli *tc, const char *path, const struct job_file *job)
{
	struct target t;
	struct target_opts to = {.bin = tc->bin,
				 .push_dir = tc->push || tc->push_dir
						 ? (tc->push_dir ? tc->push_dir : "~/.scalebench")
						 : NULL,
				 .ssh_options = tc->ssh_options,
				 .n_ssh_options = tc->n_ssh_options,
				 .plugins = tc->plugins.v,
				 .n_plugins = tc->plugins.n,
				 .results_root = o->results_root,
				 .commit = o->commit,
				 .kconfig = o->kconfig,
				 .n_path_params = job->n_atomic,
				 .quiet = o->quiet};
	/* At most two words an option, four options without --set. */
	const char **args = xcalloc(2 * ov->n + 16, sizeof(*args));
	char **owned = xcalloc(ov->n + 1, sizeof(*owned));
	const char **path_params = xcalloc(job->n_atomic + 1, sizeof(*path_params));
	char repeat[16], err[1024];
	size_t n = 0;
	int rc = SB_EXIT_ERROR;

	if (target_parse(tc->url, &t, err, sizeof(err))) {
		sb_error("%s", err);
		goto out;
	}
	snprintf(repeat, sizeof(repeat), "%u", o->repeat);
	args[n++] = "--repeat";
	args[n++] = repeat;
	if (o->commit) {
		args[n++] = "--commit";
		args[n++] = o->commit;
	}
	if (o->kconfig) {
		args[n++] = "--kconfig";
		args[n++] = o->kconfig;
	}
	if (o->tmpdir) {
		args[n++] = "--tmpdir";
		args[n++] = o->tmpdir;
	}
	if (o->interleave)
		args[n++] = "--interleave";
	if (o->no_monitors)
		args[n++] = "--no-monitors";
	if (o->quiet)
		args[n++] = "--quiet";
	/* --runtime and --nr-task are --set runtime= and nr_task= there too. */
	for (size_t i = 0; i < ov->n; i++) {
		owned[i] = xasprintf("%s=%s", ov->v[i].key, ov->v[i].value);
		args[n++] = "--set";
		args[n++] = owned[i];
	}
	to.run_args = args;
	to.n_run_args = n;
	for (size_t i = 0; i < job->n_atomic; i++)
		path_params[i] = job->atomic[i].path_params;
	to.path_params = path_params;
	rc = target_run(&t, path, &to);
	target_free(&t);
out:
	for (size_t i = 0; i < ov->n; i++)
		free(owned[i]);
	free(owned);
	free(args);
	free(path_params);
	return rc;
}

/* The job file at path in a guest booting vc's kernel: the target path, over the guest's ssh,
 * with this scalebench (the guest sees the host's files). */
static int run_in_vm(const struct runner_opts *o, const struct override_list *ov,
		     const struct target_cli *tc, struct vm_cli *vc, const char *path,
		     const struct job_file *job)
{
	struct target_cli t = *tc;
	struct vm vm;
	char exe[PATH_MAX];
	int rc;

	if (!realpath("/proc/self/exe", exe)) {
		sb_error("cannot find this scalebench (/proc/self/exe): %s", strerror(errno));
		return SB_EXIT_ERROR;
	}
	vc->o.kernel = vc->kernel;
	vc->o.qemu_args = vc->qemu_args.v;
	vc->o.n_qemu_args = vc->qemu_args.n;
	vc->o.quiet = o->quiet;
	const char *accel = vc->accel ? vc->accel : "auto";

	vc->o.accel = vc->icount || !strcmp(accel, "icount") ? VM_ACCEL_ICOUNT
		      : !strcmp(accel, "kvm")		     ? VM_ACCEL_KVM
		      : !strcmp(accel, "tcg")		     ? VM_ACCEL_TCG
							     : VM_ACCEL_AUTO;
	rc = vm_start(&vm, &vc->o);
	if (rc == SB_EXIT_OK) {
		t.url = vm.url;
		t.bin = exe;
		t.ssh_options = vm.ssh_options.v;
		t.n_ssh_options = vm.ssh_options.n;
		rc = run_on_target(o, ov, &t, path, job);
	}
	vm_stop(&vm, &vc->o);
	return rc;
}

/* What --kernel's options say, checked before anything starts: 0, or 2 after a message. */
static int vm_check(const struct target_cli *tc, const struct vm_cli *vc)
{
	const struct vm_opts *v = &vc->o;
	char err[512];

	if (!vc->kernel) {
		if (v->modules || v->cpus || v->max_cpus || v->memory_mib || v->append ||
		    vc->qemu_args.n || v->boot_timeout_s || vc->icount || vc->accel || v->console) {
			sb_error("--vm-* options, --qemu-arg and --boot-timeout go with --kernel "
				 "BZIMAGE");
			return SB_EXIT_ERROR;
		}
		return SB_EXIT_OK;
	}
	if (tc->url || tc->bin || tc->push || tc->push_dir || tc->n_ssh_options) {
		sb_error("--kernel with --target: the guest is the target (this machine's "
			 "scalebench runs in it); drop one");
		return SB_EXIT_ERROR;
	}
	if (vc->icount && vc->accel && strcmp(vc->accel, "auto") && strcmp(vc->accel, "icount")) {
		sb_error("--vm-icount with --vm-accel %s: icount is a TCG mode; drop one",
			 vc->accel);
		return SB_EXIT_ERROR;
	}
	if (vm_opts_check(v, err, sizeof(err))) {
		sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	return SB_EXIT_OK;
}

/* The job named on the command line, loaded with the overrides and run. */
static int run_job(struct runner_opts o, const struct override_list *ov,
		   const struct target_cli *tc, struct vm_cli *vc, int argc, char **argv, int first)
{
	struct job_file job;
	char err[1024], helper_dir[PATH_MAX], path[PATH_MAX];
	int rc;

	if (o.commit && !*o.commit) {
		sb_error("--commit: expected a non-empty label");
		return SB_EXIT_ERROR;
	}
	if (argc - first != 1) {
		sb_error("%s; usage: scalebench run JOB.yaml|NAME [options]",
			 first >= argc ? "which job file?" : "one job file at a time");
		return SB_EXIT_ERROR;
	}
	if (vm_check(tc, vc))
		return SB_EXIT_ERROR;
	if (vc->kernel) {
		char err[1024], release[128];

		if (vm_kernel_release(vc->kernel, release, sizeof(release), err, sizeof(err))) {
			sb_error("%s", err);
			return SB_EXIT_ERROR;
		}
	}
	if (run_find_job(argv[first], path, sizeof(path)))
		return SB_EXIT_ERROR;
	/* A run's job.yaml and meta.json hold these, and take only UTF-8: refused now, not
	 * after the runs (they were discarded, "Input/output error", "Cannot allocate memory"). */
	if (utf8_check("--commit", o.commit, err, sizeof(err)) ||
	    utf8_check("--kconfig", o.kconfig, err, sizeof(err)) ||
	    utf8_check(path, path, err, sizeof(err))) {
		sb_error("%s (a run's job.yaml and meta.json hold it, and take only UTF-8)", err);
		return SB_EXIT_ERROR;
	}
	if (job_load_overrides(path, (unsigned)sysconf(_SC_NPROCESSORS_ONLN), ov->v, ov->n, &job,
			       err, sizeof(err))) {
		sb_error("%s", err);
		return SB_EXIT_ERROR;
	}
	/* A target's (a guest's) scalebench reads the job again, on its CPUs, and says the
	 * same. */
	if (!tc->url && !vc->kernel && job_drop_coinciding(&job) < 0)
		xalloc_die();
	for (size_t i = 0; !tc->url && !vc->kernel && i < job.n_notes; i++)
		sb_note("%s", job.notes[i]);
	/* A refused --target URL is refused before anything is made, the results root too. */
	if (tc->url) {
		struct target t = {0};

		if (target_parse(tc->url, &t, err, sizeof(err))) {
			sb_error("%s", err);
			job_free(&job);
			return SB_EXIT_ERROR;
		}
		target_free(&t);
	}
	if (!o.dry_run) {
		char probe[PATH_MAX];

		/* Every run would fail in an unusable temp dir, each stored as a failure.  A
		 * target's is the target's to check. */
		if (!tc->url && !vc->kernel)
			o.tmpdir = tmpdir_checked(o.tmpdir);
		if (!tc->url && !vc->kernel && !o.tmpdir) {
			job_free(&job);
			return SB_EXIT_ERROR;
		}
		/* Fail on an unusable results root before the first run, not after it. */
		if (store_mkdirs(o.results_root) ||
		    snprintf(probe, sizeof(probe), "%s/.probe-XXXXXX", o.results_root) >=
			(int)sizeof(probe) ||
		    !mkdtemp(probe) || rmdir(probe)) {
			sb_error("results root '%s' is not writable: %s; expected a "
				 "writable directory (--results)",
				 o.results_root, strerror(errno));
			job_free(&job);
			return SB_EXIT_ERROR;
		}
	}
	if (tc->url || vc->kernel) {
		rc = tc->url ? run_on_target(&o, ov, tc, path, &job)
			     : run_in_vm(&o, ov, tc, vc, path, &job);
		job_free(&job);
		return rc;
	}
	testcase_helper_dir(helper_dir, sizeof(helper_dir));
	o.helper_dir = helper_dir;
	rc = runner_run(&job, &o);
	job_free(&job);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct override_list ov = {0};
	struct target_cli tc = {0};
	struct vm_cli vc = {0};
	struct runner_opts o = {.tty = isatty(STDOUT_FILENO)};
	const struct option_def opts[] = {
	    {OPT_COUNT("repeat", 'r', &o.repeat), .arg = "K", .def = "1", .min = 1, .max = 100000,
	     .help = "runs per atomic job"},
	    {OPT_STRING("commit", 0, &o.commit), .arg = "LABEL", .def_doc = "uname -r",
	     .help = "the commit axis of the results path"},
	    {OPT_RESULTS(&o.results_root), .help = "results root"},
	    {OPT_FLAG("interleave", 0, &o.interleave),
	     .help = "run the atomic jobs round-robin instead of back to back"},
	    {OPT_COUNT("starved-tries", 0, &o.starved_tries), .arg = "N", .def = "3", .min = 1,
	     .max = 10,
	     .help = "measurements of a run whose copy other tasks starved, at most (1: keep the "
		     "first)"},
	    {OPT_STRING("kconfig", 0, &o.kconfig), .arg = "NAME",
	     .def_doc = "the job's kconfig key, else defconfig", .help = "the kconfig axis"},
	    {OPT_STRING("tmpdir", 0, &o.tmpdir), .arg = "DIR", .def_doc = "$TMPDIR or /tmp",
	     .help = "directory for the testcases' temp files"},
	    {OPT_FLAG("dry-run", 0, &o.dry_run),
	     .help = "print the atomic jobs and where their runs would go"},
	    {OPT_FLAG("no-monitors", 0, &o.no_monitors),
	     .help = "run no monitor, whatever the job says"},
	    {OPT_CALLBACK("plugin", 0, plugin_list_option, &tc.plugins), .arg = "FILE.so",
	     .help = "load testcases from a plug-in before reading the job (repeatable; with "
		     "--target, sent there too)"},
	    {OPT_FLAG("quiet", 'q', &o.quiet),
	     .help = "print nothing but errors and notes (a busy machine stays in meta.json, for "
		     "compare to say)"},
	    {OPT_CALLBACK("runtime", 0, run_set_option, &ov), .arg = "DURATION",
	     .help = "the job's runtime (same as --set runtime=DURATION)"},
	    {OPT_CALLBACK("nr-task", 0, run_set_option, &ov), .arg = "N|P%",
	     .help = "the job's nr_task (same as --set nr_task=N)"},
	    {OPT_CALLBACK("set", 0, run_set_option, &ov), .arg = "KEY=VALUE",
	     .help = "a job-file key set before expansion, recorded in job.yaml (repeatable)"},
	    {OPT_STRING("target", 0, &tc.url), .arg = "ssh://[USER@]HOST[:PORT]",
	     .help = "run the job on that machine over ssh and bring its runs back here"},
	    {OPT_STRING("target-bin", 0, &tc.bin), .arg = "PATH",
	     .def_doc = "scalebench on its PATH",
	     .help = "the target's scalebench (relative: to the target user's home)"},
	    {OPT_FLAG("push", 0, &tc.push),
	     .help = "copy this installed scalebench to the target first and run that one"},
	    {OPT_STRING("push-dir", 0, &tc.push_dir), .arg = "DIR", .def_doc = "~/.scalebench",
	     .help = "where --push puts it on the target (implies --push)"},
	    {OPT_CALLBACK("ssh-option", 0, ssh_option, &tc), .arg = "KEY=VALUE",
	     .help = "an ssh -o option for every connection to the target (repeatable)"},
	    {OPT_STRING("kernel", 0, &vc.kernel), .arg = "BZIMAGE",
	     .help = "boot this kernel in QEMU (this machine's / read-only) and run the job there"},
	    {OPT_COUNT("vm-cpus", 0, &vc.o.cpus), .arg = "N", .def_doc = "1", .min = 1, .max = 256,
	     .help = "the guest's online CPUs"},
	    {OPT_COUNT("vm-max-cpus", 0, &vc.o.max_cpus), .arg = "N", .def_doc = "--vm-cpus",
	     .min = 1, .max = 256, .help = "the guest's possible CPUs (QEMU's maxcpus)"},
	    {OPT_COUNT("vm-memory", 0, &vc.o.memory_mib), .arg = "MIB", .def_doc = "2048",
	     .min = 128, .max = 1048576, .unit = "MiB", .help = "the guest's memory"},
	    {OPT_STRING("vm-append", 0, &vc.o.append), .arg = "TEXT",
	     .help = "more kernel command line, after scalebench's"},
	    {OPT_CHOICE("vm-accel", 0, &vc.accel), .choices = "auto|kvm|tcg|icount",
	     .def_doc = "auto",
	     .help = "how vCPUs run: KVM when QEMU starts under it (auto), TCG, or TCG's "
		     "instruction count"},
	    {OPT_FLAG("vm-icount", 0, &vc.icount),
	     .help = "one host thread, guest time = instructions (path length, not contention; "
		     "same as --vm-accel icount)"},
	    {OPT_STRING("vm-modules", 0, &vc.o.modules), .arg = "DIR",
	     .def_doc = "/lib/modules/RELEASE when it exists",
	     .help = "the kernel's modules: its 9p and virtio drivers load from an initramfs"},
	    {OPT_CALLBACK("qemu-arg", 0, qemu_arg, &vc), .arg = "ARG",
	     .help = "one more QEMU argument, after scalebench's (repeatable)"},
	    {OPT_STRING("vm-console", 0, &vc.o.console), .arg = "FILE",
	     .help = "keep the guest's serial console there (it is removed with the VM)"},
	    {OPT_COUNT("boot-timeout", 0, &vc.o.boot_timeout_s), .arg = "S", .def_doc = "120",
	     .min = 1, .max = 3600, .unit = "s",
	     .help = "give up on a guest that does not answer ssh by then"},
	    {OPT_END},
	};
	int first, rc;

	/* Before anything is created (the probe, the first run's temp directory): from here a
	 * signal is a flag the runner stops at, never a death that leaves them behind. */
	core_catch_signals();
	rc = options_parse(&run_command, opts, argc, argv, &first, NULL);
	if (rc < 0)
		rc = run_job(o, &ov, &tc, &vc, argc, argv, first);
	for (size_t i = 0; i < ov.n; i++)
		free((char *)ov.v[i].key);
	free(ov.v);
	free(tc.ssh_options);
	strvec_clear(&tc.plugins);
	strvec_clear(&vc.qemu_args);
	return rc;
}
