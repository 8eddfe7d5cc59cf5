/* The counter core.
 *
 * Process tree of one run:
 *
 *	scalebench (sampler; child subreaper)
 *	  └─ copy host (process group leader; runs global_prepare)
 *	       ├─ copy 0 … copy N-1   (process mode: forked processes)
 *	       └─ or N threads        (thread mode)
 *
 * The sampler never runs testcase code, so a copy can slow it only by competing for a CPU,
 * and every rate is divided by the time actually measured.  The host is a process group
 * leader so that one kill() reaches every copy and whatever they forked; scalebench is a
 * child subreaper so that those orphans come back to it and are reaped before the next run
 * starts.  Everything below PR_SET_PDEATHSIG dies with its parent. */
#include "core.h"
#include "taskcount.h"
#include "../lib/interrupt.h"
#include "../lib/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum fail_kind { FAIL_NONE, FAIL_EXIT, FAIL_SIGNAL, FAIL_ERROR, FAIL_GLOBAL, FAIL_SKIP };

#define HOST_EXIT_COPY_DIED 4
#define HOST_EXIT_GLOBAL    5

/* How long processes that left the copies' group get to end after SIGTERM at teardown: the
 * janitor's cleanup retries for about 5 s while files keep appearing. */
#define LEFTOVER_GRACE_NS (5 * 1000000000ull)

/* Written only at setup and on failure: kept apart from the counters. */
struct copy_status {
	_Alignas(64) pid_t pid;
	int ready;
	char msg[504];
};

struct core_ctl {
	_Alignas(COUNTER_SLOT_SIZE) unsigned ready; /* copies past their setup */
	_Alignas(COUNTER_SLOT_SIZE) int go;	    /* futex word: 1 releases the copies */
	_Alignas(COUNTER_SLOT_SIZE) int fail_copy;  /* -1: none */
	int fail_kind;
	int fail_code;
	pid_t fail_pid;
	char host_msg[512];
};

static volatile sig_atomic_t got_sigchld;

/* SIGINT or SIGTERM: lib/interrupt.h's one flag, sticky, the command stops. */
bool core_interrupted(void)
{
	return interrupt_caught != 0;
}

int core_interrupt_signal(void)
{
	return interrupt_caught;
}

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		got_sigchld = 1;
	else
		interrupt_handler(sig);
}

/* Installed once and kept: a SIGINT between two runs of a sweep must stop the sweep and let
 * the command clean up, not kill scalebench with a half-written file. */
void core_catch_signals(void)
{
	static bool installed;
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};

	if (installed)
		return;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	installed = true;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static size_t round_up(size_t x, size_t to)
{
	return (x + to - 1) / to * to;
}

int counter_area_map(struct counter_area *sh, unsigned n)
{
	size_t ctl = round_up(sizeof(struct core_ctl), COUNTER_SLOT_SIZE);
	size_t slots = (size_t)n * sizeof(struct counter_slot);
	size_t status = (size_t)n * sizeof(struct copy_status);

	sh->size = round_up(ctl + slots + status, (size_t)sysconf(_SC_PAGESIZE));
	sh->base = mmap(NULL, sh->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh->base == MAP_FAILED) {
		sh->base = NULL; /* counter_area_unmap stays safe */
		return -errno;
	}
	sh->ctl = sh->base;
	sh->slots = (struct counter_slot *)((char *)sh->base + ctl);
	sh->status = (struct copy_status *)((char *)sh->base + ctl + slots);
	sh->ctl->fail_copy = -1;
	return 0;
}

void counter_area_unmap(struct counter_area *sh)
{
	if (sh->base)
		munmap(sh->base, sh->size);
	sh->base = NULL;
}

/* ---- inside the copies ---------------------------------------------------------------- */

static void die_with_parent(pid_t expected_parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* The parent may have died before prctl took effect. */
	if (getppid() != expected_parent)
		_exit(1);
}

static void reset_signals(const sigset_t *mask)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);
}

static int pin_to(struct tc_copy *copy, int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* pid 0 is the calling thread on Linux, in both modes. */
	if (sched_setaffinity(0, sizeof(set), &set))
		return tc_error(copy, "cannot pin copy %u to CPU %d: %m", copy->index, cpu);
	return 0;
}

struct copy_args {
	const struct core_config *cfg;
	struct counter_area *sh;
	struct tc_copy copy;
	int cpu;
};

static void record_failure(struct core_ctl *ctl, int copy, int kind, int code, pid_t pid)
{
	int none = -1;

	if (__atomic_compare_exchange_n(&ctl->fail_copy, &none, copy, false, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST)) {
		ctl->fail_kind = kind;
		ctl->fail_code = code;
		ctl->fail_pid = pid;
	}
}

/* Runs in the copy (process or thread) until killed; returns only to fail. */
static void copy_body(struct copy_args *a)
{
	const struct testcase *tc = a->cfg->tc;
	struct core_ctl *ctl = a->sh->ctl;
	volatile uint64_t *iterations = &a->sh->slots[a->copy.index].iterations;

	a->sh->status[a->copy.index].pid = (pid_t)syscall(SYS_gettid);
	int ret = pin_to(&a->copy, a->cpu);

	if (!ret && tc->prepare)
		ret = tc->prepare(&a->copy);
	if (ret == TC_SKIP) {
		record_failure(ctl, (int)a->copy.index, FAIL_SKIP, 0,
			       a->sh->status[a->copy.index].pid);
		_exit(3);
	}
	if (ret)
		goto fail;
	a->sh->status[a->copy.index].ready = 1;
	__atomic_add_fetch(&ctl->ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&ctl->go, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &ctl->go, FUTEX_WAIT, 0, NULL, NULL, 0);
	tc->run(&a->copy, iterations);
	if (!a->copy.errbuf[0])
		snprintf(a->copy.errbuf, a->copy.errbuf_size, "%s: the loop returned", tc->name);
fail:
	record_failure(ctl, (int)a->copy.index, FAIL_ERROR, 0, a->sh->status[a->copy.index].pid);
	/* In thread mode this ends the host with every copy: a failed copy fails the run. */
	_exit(3);
}

static __thread int thread_copy_index = -1;
static struct core_ctl *host_ctl;

/* Thread mode: a crashing thread takes the host down; say which copy it was first. */
static void on_crash(int sig)
{
	record_failure(host_ctl, thread_copy_index, FAIL_SIGNAL, sig, (pid_t)syscall(SYS_gettid));
	raise(sig); /* SA_RESETHAND: now the default action */
}

static void *thread_trampoline(void *arg)
{
	struct copy_args *a = arg;

	thread_copy_index = (int)a->copy.index;
	copy_body(a);
	return NULL;
}

static void init_copy(struct copy_args *a, const struct core_config *cfg, struct counter_area *sh,
		      unsigned i, const int *cpus, void *shared)
{
	a->cfg = cfg;
	a->sh = sh;
	a->cpu = cpus ? cpus[i] : -1;
	a->copy = (struct tc_copy){
	    .index = i,
	    .nr_copies = cfg->nr_copies,
	    .mode = cfg->mode,
	    .tmpdir = cfg->tmpdir,
	    .helper_dir = cfg->helper_dir,
	    .shared = shared,
	    .errbuf = sh->status[i].msg,
	    .errbuf_size = sizeof(sh->status[i].msg),
	};
}

/* The host into the run's cgroup, before anything of the testcase runs: the copies it forks
 * (or its threads) are born in it.  Not clone3(CLONE_INTO_CGROUP) from the sampler: a raw
 * clone3 skips what glibc's fork does for a child that goes on running C code (its cached
 * thread id, the malloc locks, the sanitizers' fork hooks); a write of "0" by the host itself,
 * first thing, leaves nothing of the testcase outside either. */
static int join_cgroup(const char *dir, char *msg, size_t len)
{
	char path[PATH_MAX];
	int fd, e = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= sizeof(path)) {
		snprintf(msg, len, "cannot join cgroup %s: path too long", dir);
		return -1;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "0", 1) != 1)
		e = errno;
	if (fd >= 0)
		close(fd);
	if (e)
		snprintf(msg, len, "cannot join cgroup %s: %s", dir, strerror(e));
	return e ? -1 : 0;
}

static _Noreturn void host_main(const struct core_config *cfg, struct counter_area *sh,
				const int *cpus)
{
	struct tc_run run = {
	    .nr_copies = cfg->nr_copies,
	    .mode = cfg->mode,
	    .tmpdir = cfg->tmpdir,
	    .helper_dir = cfg->helper_dir,
	    .errbuf = sh->ctl->host_msg,
	    .errbuf_size = sizeof(sh->ctl->host_msg),
	};
	pid_t host = getpid();

	if (cfg->cgroup_dir && join_cgroup(cfg->cgroup_dir, run.errbuf, run.errbuf_size)) {
		record_failure(sh->ctl, -2, FAIL_GLOBAL, 0, host);
		_exit(HOST_EXIT_GLOBAL);
	}
	int ret = cfg->tc->global_prepare ? cfg->tc->global_prepare(&run) : 0;

	if (ret) {
		record_failure(sh->ctl, -2, ret == TC_SKIP ? FAIL_SKIP : FAIL_GLOBAL, 0, host);
		_exit(HOST_EXIT_GLOBAL);
	}

	if (cfg->mode == TC_MODE_PROCESS) {
		for (unsigned i = 0; i < cfg->nr_copies; i++) {
			pid_t pid = fork();

			if (pid < 0) {
				snprintf(sh->ctl->host_msg, sizeof(sh->ctl->host_msg),
					 "fork of copy %u failed: %s", i, strerror(errno));
				record_failure(sh->ctl, -2, FAIL_GLOBAL, 0, host);
				_exit(HOST_EXIT_GLOBAL);
			}
			if (pid == 0) {
				struct copy_args a;

				die_with_parent(host);
				init_copy(&a, cfg, sh, i, cpus, run.shared);
				copy_body(&a);
			}
			sh->status[i].pid = pid;
		}
		/* Copies run until killed: any that ends on its own fails the run. */
		for (;;) {
			int st;
			pid_t pid = waitpid(-1, &st, 0);

			if (pid < 0 && errno == EINTR)
				continue;
			int idx = -2;
			for (unsigned i = 0; i < cfg->nr_copies; i++)
				if (sh->status[i].pid == pid)
					idx = (int)i;
			if (pid > 0 && WIFSIGNALED(st))
				record_failure(sh->ctl, idx, FAIL_SIGNAL, WTERMSIG(st), pid);
			else if (pid > 0)
				record_failure(sh->ctl, idx, FAIL_EXIT, WEXITSTATUS(st), pid);
			_exit(HOST_EXIT_COPY_DIED);
		}
	}

	struct copy_args *args = calloc(cfg->nr_copies, sizeof(*args));
	struct sigaction sa = {.sa_handler = on_crash, .sa_flags = SA_RESETHAND | SA_NODEFER};
	static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP};

	host_ctl = sh->ctl;
	for (size_t s = 0; s < sizeof(crash_signals) / sizeof(crash_signals[0]); s++)
		sigaction(crash_signals[s], &sa, NULL);
	if (!args)
		_exit(HOST_EXIT_GLOBAL);
	for (unsigned i = 0; i < cfg->nr_copies; i++) {
		pthread_t t;
		int err;

		init_copy(&args[i], cfg, sh, i, cpus, run.shared);
		err = pthread_create(&t, NULL, thread_trampoline, &args[i]);
		if (err) {
			snprintf(sh->ctl->host_msg, sizeof(sh->ctl->host_msg),
				 "creating thread for copy %u failed: %s", i, strerror(err));
			record_failure(sh->ctl, -2, FAIL_GLOBAL, 0, host);
			_exit(HOST_EXIT_GLOBAL);
		}
	}
	for (;;)
		pause();
}

/* ---- the sampler ---------------------------------------------------------------------- */

/* The value after `key ` on its own line of a /proc file; -1 when absent. */
static int proc_counter(const char *path, const char *key, uint64_t *out)
{
	char line[512];
	size_t klen = strlen(key);
	FILE *fp = fopen(path, "re");
	int ret = -1;

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ' ') {
			*out = strtoull(line + klen + 1, NULL, 10);
			ret = 0;
			break;
		}
	}
	fclose(fp);
	return ret;
}

static bool read_sys_counters(uint64_t *ctxt, uint64_t *pgfault)
{
	return proc_counter("/proc/stat", "ctxt", ctxt) == 0 &&
	       proc_counter("/proc/vmstat", "pgfault", pgfault) == 0;
}

/* Sleep until deadline (monotonic ns) or until a signal; returns 1 when woken early by a
 * signal, 0 at the deadline.  ppoll unblocks the signals atomically, so none is missed. */
static int sleep_until(uint64_t deadline, const sigset_t *wait_mask)
{
	uint64_t now = now_ns();
	struct timespec ts;

	if (now >= deadline)
		return 0;
	ts.tv_sec = (time_t)((deadline - now) / 1000000000ull);
	ts.tv_nsec = (long)((deadline - now) % 1000000000ull);
	if (ppoll(NULL, 0, &ts, wait_mask) < 0 && errno == EINTR)
		return 1;
	return 0;
}

static void describe_failure(const struct core_config *cfg, const struct counter_area *sh,
			     int host_status, struct core_result *res)
{
	const struct core_ctl *ctl = sh->ctl;
	const char *kind = tc_mode_name(cfg->mode);
	int c = ctl->fail_copy;
	char what[64];

	if (c >= 0)
		snprintf(what, sizeof(what), "copy %d of %u (%s %d)", c, cfg->nr_copies, kind,
			 (int)ctl->fail_pid);
	else
		snprintf(what, sizeof(what), "the copy host (pid %d)", (int)ctl->fail_pid);

	switch (c == -1 ? FAIL_NONE : ctl->fail_kind) {
	case FAIL_SIGNAL:
		snprintf(res->failure, sizeof(res->failure), "%s: %s killed by signal %d (%s)",
			 cfg->tc->name, what, ctl->fail_code, strsignal(ctl->fail_code));
		break;
	case FAIL_EXIT:
		snprintf(res->failure, sizeof(res->failure), "%s: %s exited with status %d%s%s",
			 cfg->tc->name, what, ctl->fail_code,
			 c >= 0 && sh->status[c].msg[0] ? ": " : "",
			 c >= 0 ? sh->status[c].msg : "");
		break;
	case FAIL_ERROR:
		snprintf(res->failure, sizeof(res->failure), "%s: %s failed: %s", cfg->tc->name,
			 what, sh->status[c].msg);
		break;
	case FAIL_GLOBAL:
		snprintf(res->failure, sizeof(res->failure), "%s: setup failed: %s", cfg->tc->name,
			 ctl->host_msg);
		break;
	case FAIL_SKIP:
		/* Not a failure: the testcase can't run here, and says why. */
		snprintf(res->failure, sizeof(res->failure), "%s: skipped: %s", cfg->tc->name,
			 c >= 0 ? sh->status[c].msg : ctl->host_msg);
		res->status = CORE_SKIPPED;
		return;
	default:
		if (WIFSIGNALED(host_status))
			snprintf(res->failure, sizeof(res->failure),
				 "%s: the copy host died by signal %d (%s)", cfg->tc->name,
				 WTERMSIG(host_status), strsignal(WTERMSIG(host_status)));
		else
			snprintf(res->failure, sizeof(res->failure),
				 "%s: the copy host exited with status %d", cfg->tc->name,
				 WEXITSTATUS(host_status));
	}
}

/* Send sig to every child of ours.  Those left after the group kill are processes that left
 * the copies' group (a janitor, or a testcase's daemon) and came back to us as orphans.  A pid
 * whose parent is us cannot be reused before we reap it, so the kill never hits a stranger. */
static void signal_children(int sig)
{
	pid_t self = getpid();
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct proc_stat st;

		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && !proc_stat_read(e->d_name, &st) &&
		    st.ppid == self)
			kill((pid_t)atoi(e->d_name), sig);
	}
	closedir(d);
}

static void teardown(pid_t host, bool host_reaped)
{
	uint64_t deadline = now_ns() + LEFTOVER_GRACE_NS;
	const struct timespec pause_10ms = {.tv_nsec = 10 * 1000 * 1000};
	bool killed = false;
	int st;

	kill(-host, SIGKILL);
	kill(host, SIGKILL); /* in case setpgid had not happened yet */
	if (!host_reaped)
		while (waitpid(host, &st, 0) < 0 && errno == EINTR)
			;
	/* As subreaper we inherit every orphaned copy (and its children): reap them all so no
	 * copy of this run overlaps the next one or outlives scalebench. */
	while (waitpid(-host, &st, 0) > 0 || errno == EINTR)
		;
	/* Helpers that left the group on purpose (a testcase's janitor, which must outlive
	 * the copies to clean up after them) come back to us too: reaping them here also
	 * means their cleanup is over before the next run starts.  They are asked to end
	 * (the janitor cleans on SIGTERM), and whatever is still there after the grace,
	 * ignoring SIGTERM or stopped, is killed, with anything it forks meanwhile. */
	signal_children(SIGTERM);
	for (;;) {
		pid_t pid = waitpid(-1, &st, WNOHANG);

		if (pid > 0 || (pid < 0 && errno == EINTR))
			continue;
		if (pid < 0)
			break; /* ECHILD: nothing of the run is left */
		if (killed || now_ns() >= deadline) {
			signal_children(SIGKILL);
			killed = true;
		}
		nanosleep(&pause_10ms, NULL);
	}
}

/* The sample schedule, in ns after release: every interval through the warmup, its end,
 * every interval through the measurement, its end.  Counted, not listed: a 60-day run at
 * 10 ms has 5e8 sample times, 4 GB that took minutes to write before the first sample. */
struct schedule {
	uint64_t step, warm, end;
	size_t nr_warm; /* the interval times before the warmup's end */
	size_t first_measure; /* index of the first interval time of the measurement */
	size_t n;	/* every time, the measurement's end the last */
};

static size_t schedule_init(struct schedule *sc, const struct core_config *cfg,
			    size_t *measure_idx)
{
	uint64_t step = (uint64_t)(cfg->interval_s * 1e9);
	uint64_t warm = (uint64_t)(cfg->warmup_s * 1e9);
	uint64_t end = warm + (uint64_t)(cfg->runtime_s * 1e9);
	size_t cap = (size_t)((cfg->warmup_s + cfg->runtime_s) / cfg->interval_s) + 4;
	uint64_t k;

	if (!step)
		return 0;
	*sc = (struct schedule){.step = step, .warm = warm, .end = end};
	/* step, 2 step, ... below warm; at most cap - 2 of them */
	k = warm ? (warm - 1) / step : 0;
	sc->nr_warm = k < cap - 2 ? (size_t)k : cap - 2;
	*measure_idx = sc->nr_warm + 1; /* sample 0 is the release itself */
	sc->first_measure = sc->nr_warm;
	if (warm > 0)
		sc->first_measure++;
	else
		*measure_idx = 0;
	/* warm + step, warm + 2 step, ... below end; the list is at most cap - 1 long before end */
	k = end > warm + step ? (end - warm - 1) / step : 0;
	if (k > cap - 1 - sc->first_measure)
		k = cap - 1 - sc->first_measure;
	sc->n = sc->first_measure + (size_t)k + 1;
	return sc->n;
}

/* Sample time k (k < n) of the schedule. */
static uint64_t schedule_at(const struct schedule *sc, size_t k)
{
	if (k < sc->nr_warm)
		return (uint64_t)(k + 1) * sc->step;
	if (k < sc->first_measure)
		return sc->warm;
	if (k + 1 < sc->n)
		return sc->warm + (uint64_t)(k - sc->first_measure + 1) * sc->step;
	return sc->end;
}

/* One core_run: what its phases share. */
struct sampler {
	const struct core_config *cfg;
	struct core_result *res;
	unsigned n;
	struct counter_area sh;
	struct schedule schedule; /* sample times after the release */
	size_t nsched, measure_idx;
	uint64_t *counts; /* one read of every copy's counter */
	sigset_t old_mask, wait_mask;
	bool masked; /* old_mask is to be restored */
	pid_t host;
	int host_status;
	bool host_reaped;
	uint64_t t0; /* the release */
	struct rusage ru0;
	bool window_open, sys0;
	uint64_t ctxt0, pgfault0;
	bool task0; /* task_start taken */
	struct task_snapshot task_start;
	uint64_t *sched0;     /* each copy's time on a CPU and waiting, at the window's start */
	uint64_t window0_ns; /* when the window opened */
};

/* How a phase of the run ended. */
enum run_end {
	RUN_ON,		 /* the next phase follows */
	RUN_FAILED,	 /* res->failure says why */
	RUN_NOMEM,	 /* while storing samples */
	RUN_INTERRUPTED, /* SIGINT or SIGTERM */
	RUN_HOST_DIED,	 /* the copy host ended: the failure it recorded says why */
};

static int setup_failed(struct core_result *res, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int setup_failed(struct core_result *res, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->failure, sizeof(res->failure), fmt, ap);
	va_end(ap);
	res->status = CORE_FAILED;
	return err;
}

/* Placement, the sample schedule and the counter area; 0 or a negative errno. */
static int sampler_init(struct sampler *s)
{
	const struct core_config *cfg = s->cfg;
	struct core_result *res = s->res;
	unsigned n = s->n;
	int err;

	res->cpus = malloc(n * sizeof(*res->cpus));
	s->counts = calloc(n, sizeof(*s->counts));
	s->sched0 = calloc(2 * (size_t)n, sizeof(*s->sched0));
	s->nsched = schedule_init(&s->schedule, cfg, &s->measure_idx);
	if (!res->cpus || !s->counts || !s->nsched)
		return setup_failed(res, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < n; i++)
		res->cpus[i] = -1;
	if (cfg->affinity &&
	    placement_cpus(n, cfg->smt, res->cpus, res->failure, sizeof(res->failure))) {
		res->status = CORE_FAILED;
		return -EINVAL;
	}
	err = counter_area_map(&s->sh, n);
	if (err)
		return setup_failed(res, err, "cannot map %u counter slots: %s", n, strerror(-err));
	return 0;
}

/* The copy host, forked with the signals blocked that the sampler waits for (they are taken
 * only in sleep_until, so none is missed between a check and a sleep). */
static int spawn_host(struct sampler *s)
{
	sigset_t block;
	pid_t self = getpid();

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	got_sigchld = 0;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &s->old_mask);
	s->masked = true;
	s->wait_mask = s->old_mask;
	sigdelset(&s->wait_mask, SIGINT);
	sigdelset(&s->wait_mask, SIGTERM);
	sigdelset(&s->wait_mask, SIGCHLD);
	fflush(NULL); /* nothing buffered may be written twice by the children */
	s->host = fork();
	if (s->host == 0) {
		setpgid(0, 0);
		die_with_parent(self);
		reset_signals(&s->old_mask);
		host_main(s->cfg, &s->sh, s->cfg->affinity ? s->res->cpus : NULL);
	}
	if (s->host < 0)
		return setup_failed(s->res, -1, "fork: %s", strerror(errno));
	setpgid(s->host, s->host);
	return 0;
}

static bool host_ended(struct sampler *s)
{
	if (waitpid(s->host, &s->host_status, WNOHANG) != s->host)
		return false;
	s->host_reaped = true;
	return true;
}

/* The barrier: every copy past its setup, within the setup timeout. */
static enum run_end wait_for_setup(struct sampler *s)
{
	const struct core_config *cfg = s->cfg;
	struct counter_area *sh = &s->sh;
	uint64_t setup_deadline = now_ns() + (uint64_t)(cfg->setup_timeout_s * 1e9);
	unsigned n = s->n;

	for (;;) {
		if (interrupt_caught)
			return RUN_INTERRUPTED;
		if (host_ended(s))
			return RUN_HOST_DIED;
		if (__atomic_load_n(&sh->ctl->ready, __ATOMIC_ACQUIRE) == n)
			return RUN_ON;
		if (now_ns() > setup_deadline) {
			unsigned stuck = 0;

			while (stuck < n - 1 &&
			       __atomic_load_n(&sh->status[stuck].ready, __ATOMIC_ACQUIRE))
				stuck++;
			snprintf(s->res->failure, sizeof(s->res->failure),
				 "%s: only %u of %u copies finished their setup within %.3g s; "
				 "copy %u (pid %d) is still in it",
				 cfg->tc->name, __atomic_load_n(&sh->ctl->ready, __ATOMIC_ACQUIRE),
				 n, cfg->setup_timeout_s, stuck, (int)sh->status[stuck].pid);
			return RUN_FAILED;
		}
		sleep_until(now_ns() + 2000000, &s->wait_mask);
	}
}

/* At the window's last sample: what the host and every task below it did over the window. */
static void task_counts_end(struct sampler *s)
{
	struct task_snapshot end;

	if (!s->task0 || task_snapshot_take("/proc", s->host, &end))
		return;
	task_snapshot_delta(&s->task_start, &end, &s->res->task_pgfault, &s->res->task_ctxt);
	s->res->task_valid = true;
	task_snapshot_free(&end);
}

/* The measurement window opens: monitors start, system and task counters are read. */
/* A task's time on a CPU and waiting on a run queue so far (the first two fields of
 * /proc/TID/schedstat), ns; false when they cannot be read (no CONFIG_SCHED_INFO, the task
 * gone). */
static bool sched_times(pid_t tid, uint64_t *on, uint64_t *waited)
{
	char path[64], buf[128];
	unsigned long long a, b;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &a, &b) != 2)
		return false;
	*on = a;
	*waited = b;
	return true;
}

/* Whether the task is runnable now (state R in /proc/TID/stat). */
static bool runnable_now(pid_t tid)
{
	char path[64], buf[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');

	return p && p[1] == ' ' && p[2] == 'R';
}

/* The least share of the window any copy ran on a CPU while it wanted one: a copy that ran
 * under a quarter of the window and waited for a CPU the rest (its run-queue wait, which the
 * kernel adds up only when the task next runs, or runnable still at the end) was starved by
 * other tasks; a copy that sleeps by design (a lock, a pipe) is neither.  1 when none was, NAN
 * when a reading is missing. */
static double starved_share(const struct sampler *s)
{
	uint64_t window = now_ns() - s->window0_ns;
	double least = 1;

	for (unsigned c = 0; c < s->n; c++) {
		uint64_t on, waited;
		double share;

		if (!s->sched0 || !window || !sched_times(s->sh.status[c].pid, &on, &waited) ||
		    on < s->sched0[2 * c] || waited < s->sched0[2 * c + 1])
			return NAN;
		share = (double)(on - s->sched0[2 * c]) / (double)window;
		if (share < 0.25 &&
		    ((double)(waited - s->sched0[2 * c + 1]) > 0.5 * (double)window ||
		     runnable_now(s->sh.status[c].pid)) &&
		    share < least)
			least = share;
	}
	return least;
}

static void open_window(struct sampler *s)
{
	for (unsigned c = 0; s->sched0 && c < s->n; c++)
		if (!sched_times(s->sh.status[c].pid, &s->sched0[2 * c], &s->sched0[2 * c + 1])) {
			free(s->sched0); /* no readings: nothing said of starvation */
			s->sched0 = NULL;
		}
	s->window0_ns = now_ns();
	s->task0 = task_snapshot_take("/proc", s->host, &s->task_start) == 0;
	s->sys0 = read_sys_counters(&s->ctxt0, &s->pgfault0);
	s->window_open = true;
	if (s->cfg->on_window)
		s->cfg->on_window(CORE_WINDOW_START, s->cfg->arg);
}

/* Every copy released at once; sample 0 is the release. */
static enum run_end release_copies(struct sampler *s)
{
	getrusage(RUSAGE_SELF, &s->ru0);
	s->t0 = now_ns();
	__atomic_store_n(&s->sh.ctl->go, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &s->sh.ctl->go, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	memset(s->counts, 0, s->n * sizeof(*s->counts));
	if (window_append(&s->res->samples, 0, s->counts))
		return RUN_NOMEM;
	if (s->measure_idx == 0)
		open_window(s);
	return RUN_ON;
}

/* A sample at each time of the schedule, until the last; a signal or the host's end stops it. */
static enum run_end sample_loop(struct sampler *s)
{
	const struct core_config *cfg = s->cfg;
	struct core_result *res = s->res;
	unsigned n = s->n;

	for (size_t k = 0; k < s->nsched; k++) {
		while (sleep_until(s->t0 + schedule_at(&s->schedule, k), &s->wait_mask)) {
			if (interrupt_caught)
				return RUN_INTERRUPTED;
			if (got_sigchld) {
				got_sigchld = 0;
				if (host_ended(s))
					return RUN_HOST_DIED;
			}
		}
		/* Bracket the counter reads with the clock and stamp the midpoint. */
		uint64_t a = now_ns();
		for (unsigned c = 0; c < n; c++)
			s->counts[c] =
			    __atomic_load_n(&s->sh.slots[c].iterations, __ATOMIC_RELAXED);
		uint64_t b = now_ns();
		if (window_append(&res->samples, (a + b) / 2 - s->t0, s->counts))
			return RUN_NOMEM;
		if (k + 1 == s->measure_idx) {
			res->samples.measure_start = res->samples.n - 1;
			open_window(s);
		}
		if (k + 1 == s->nsched && s->sys0 &&
		    read_sys_counters(&res->sys_ctxt, &res->sys_pgfault)) {
			res->sys_ctxt -= s->ctxt0;
			res->sys_pgfault -= s->pgfault0;
			res->sys_valid = true;
		}
		if (k + 1 == s->nsched)
			task_counts_end(s);
		if (cfg->on_sample)
			cfg->on_sample(&res->samples, res->samples.n - 1, cfg->arg);
	}
	return RUN_ON;
}

/* After the last sample: the sampler's own CPU time, and whether every copy was alive and
 * moving through the window. */
static enum run_end check_window(struct sampler *s)
{
	const struct core_config *cfg = s->cfg;
	struct core_result *res = s->res;
	unsigned n = s->n;
	struct rusage ru1;

	if (s->measure_idx == 0)
		res->samples.measure_start = 0;
	getrusage(RUSAGE_SELF, &ru1);
	res->sampler_cpu_s = (double)(ru1.ru_utime.tv_sec - s->ru0.ru_utime.tv_sec) +
			     (double)(ru1.ru_stime.tv_sec - s->ru0.ru_stime.tv_sec) +
			     (double)(ru1.ru_utime.tv_usec - s->ru0.ru_utime.tv_usec) / 1e6 +
			     (double)(ru1.ru_stime.tv_usec - s->ru0.ru_stime.tv_usec) / 1e6;

	res->starved_share = starved_share(s);
	if (host_ended(s))
		return RUN_HOST_DIED;
	/* A copy that never advanced in the window is stuck: the run can't be trusted. */
	for (unsigned c = 0; c < n; c++) {
		size_t last = res->samples.n - 1;
		if (res->samples.counts[last * n + c] ==
		    res->samples.counts[res->samples.measure_start * n + c]) {
			snprintf(res->failure, sizeof(res->failure),
				 "%s: copy %u of %u (%s %d) made no progress in the %.3g s "
				 "measurement window (stuck?)",
				 cfg->tc->name, c, n,
				 tc_mode_name(cfg->mode),
				 (int)s->sh.status[c].pid, cfg->runtime_s);
			res->no_progress = true;
			return RUN_FAILED;
		}
	}
	return RUN_ON;
}

/* The result's status and failure from how the run ended. */
static void record_end(struct sampler *s, enum run_end end)
{
	struct core_result *res = s->res;

	switch (end) {
	case RUN_ON:
		break;
	case RUN_FAILED:
		res->status = CORE_FAILED;
		break;
	case RUN_NOMEM:
		snprintf(res->failure, sizeof(res->failure), "out of memory while sampling");
		res->status = CORE_FAILED;
		break;
	case RUN_INTERRUPTED:
		snprintf(res->failure, sizeof(res->failure), "interrupted by signal %d (%s)",
			 (int)interrupt_caught, strsignal(interrupt_caught));
		res->status = CORE_INTERRUPTED;
		break;
	case RUN_HOST_DIED:
		res->status = CORE_FAILED;
		describe_failure(s->cfg, &s->sh, s->host_status, res);
		break;
	}
}

/* Copies or their host killed by SIGINT, SIGTERM or SIGHUP: most likely a signal sent to every
 * process of the run at once (a terminal's ^C to its foreground group, Slurm's scancel to all of
 * a job's processes), ours a moment behind theirs.  That run was interrupted, not failed: its
 * end is given a second to arrive before the run is called a failure (and stored as one). */
static enum run_end signal_race(struct sampler *s, enum run_end end)
{
	const struct core_ctl *ctl = s->sh.ctl;
	int sig = 0;
	uint64_t deadline;

	if (end != RUN_HOST_DIED)
		return end;
	if (WIFSIGNALED(s->host_status))
		sig = WTERMSIG(s->host_status);
	else if (ctl->fail_copy != -1 && ctl->fail_kind == FAIL_SIGNAL)
		sig = ctl->fail_code;
	if (sig != SIGINT && sig != SIGTERM && sig != SIGHUP)
		return end;
	deadline = now_ns() + 1000000000ull;
	while (!interrupt_caught && sleep_until(deadline, &s->wait_mask))
		; /* woken by another signal (SIGCHLD): until ours, or the deadline */
	return interrupt_caught ? RUN_INTERRUPTED : end;
}

/* The only way out once the host is forked: a window that opened is closed while the copies
 * still run, then every process of the run is killed and reaped. */
static void stop_copies(struct sampler *s)
{
	if (s->window_open && s->cfg->on_window)
		s->cfg->on_window(CORE_WINDOW_END, s->cfg->arg);
	teardown(s->host, s->host_reaped);
}

static void sampler_free(struct sampler *s)
{
	if (s->masked)
		sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
	task_snapshot_free(&s->task_start);
	counter_area_unmap(&s->sh);
	free(s->counts);
	free(s->sched0);
}

int core_run(const struct core_config *cfg, struct core_result *res)
{
	struct sampler s = {.cfg = cfg, .res = res, .n = cfg->nr_copies};
	enum run_end end;
	int err;

	memset(res, 0, sizeof(*res));
	res->starved_share = NAN;
	res->samples.nr_copies = s.n;
	core_catch_signals();
	if (interrupt_caught) {
		record_end(&s, RUN_INTERRUPTED);
		return -1;
	}
	if (s.n == 0 || s.n > CORE_MAX_COPIES || cfg->runtime_s <= 0 || cfg->interval_s <= 0)
		return setup_failed(res, -EINVAL, "invalid core configuration");
	err = sampler_init(&s);
	if (!err)
		err = spawn_host(&s);
	if (!err) {
		end = wait_for_setup(&s);
		if (end == RUN_ON)
			end = release_copies(&s);
		if (end == RUN_ON)
			end = sample_loop(&s);
		if (end == RUN_ON)
			end = check_window(&s);
		record_end(&s, signal_race(&s, end));
		stop_copies(&s);
	}
	sampler_free(&s);
	if (err)
		return err;
	return res->status == CORE_OK ? 0 : -1;
}

void core_result_free(struct core_result *res)
{
	window_free(&res->samples);
	free(res->cpus);
	res->cpus = NULL;
}
