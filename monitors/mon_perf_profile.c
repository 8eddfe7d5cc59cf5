/* perf-profile: call chains sampled on every CPU (cycles:pp, or cpu-clock without a PMU),
 * each with its task, symbolized by following the processes' forks, execs and mappings,
 * reduced to the robot's perf-profile.{self,children,calltrace}.<event>.* percentages of the
 * run's own processes' samples. */
#include "../lib/num.h"
#include "monitor.h"
#include "perf_events.h"
#include "../store/profile_reduce.h"
#include "symbols.h"
#include "../store/profile.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* 2^8 data pages per CPU: 1 MiB holds a few seconds of 1000 Hz chains 30 frames deep, more
 * than one monitor interval.  Option "pages" changes it (a power of 2). */
#define DATA_PAGES 256
#define MAX_FRAMES 128
/* PERF_FORMAT_LOST (Linux 6.0): libpfm4's copy of perf_event.h predates it. */
#define FORMAT_LOST (1U << 4)

struct cpu_buf {
	int fd;
	void *base; /* the metadata page, then the data pages */
	size_t data_size;
};

struct mapping {
	uint64_t start, end, pgoff;
	int elf;	     /* index in the ELF cache, -1: no file, -2: [vdso] and the like */
	const char *special; /* interned in perf_profile.names: a re-read maps file can't free it */
	const char *dso;     /* the file or [vdso], interned; NULL: anonymous */
};

/* A process: its name and what its user addresses map. */
struct proc_maps {
	int pid, ppid; /* ppid -1: not seen forking */
	char comm[17];
	struct mapping *m;
	size_t n, cap;
	unsigned generation; /* the read() batch it was last read in */
	bool maps_read;	     /* /proc/PID/maps read once */
	bool from_records;   /* built from FORK/COMM/MMAP2 records: /proc no longer says */
	bool exited;
};

struct rec_ref;

struct elf_entry {
	char *path;
	struct elf_syms syms;
	bool ok;
};

struct perf_profile {
	struct cpu_buf *cpu;
	size_t nr_cpus;
	char event[32];
	double delay_s, duration_s;
	double on_s, off_s; /* when sampling really started and stopped, -1: not (yet) */
	bool enabled, finished;
	uint64_t samples, lost;
	bool lost_format; /* read() gives the kernel's own lost count */
	size_t pages;	  /* data pages per CPU */
	double cpu_s;	  /* spent in drain_all */
	struct ksyms ksyms;
	bool have_ksyms;
	struct proc_maps **procs;
	size_t nr_procs;
	json_t *proc_index; /* decimal pid -> index in procs */
	json_t *run_pids;   /* the run's processes: decimal pid -> true */
	int self;	    /* this process: the run's processes are those below it */
	/* The records of one drain of every ring, handled in time order. */
	unsigned char *batch;
	size_t batch_len, batch_cap;
	struct rec_ref *refs;
	size_t nr_refs, refs_cap;
	struct elf_entry *elfs;
	size_t nr_elfs;
	unsigned generation;
	struct profile prof;
	unsigned char *scratch; /* a record that wraps the ring's end, copied whole */
	size_t scratch_size;
	/* [vdso], [heap], ...: frames of a sample already resolved point into this set while a
	 * later frame of the same sample re-reads the maps file. */
	json_t *names;
};

static const char *intern(struct perf_profile *pp, const char *s)
{
	json_t *v;

	if (!pp->names && !(pp->names = json_object()))
		return NULL;
	v = json_object_get(pp->names, s);
	if (!v) {
		json_object_set_new(pp->names, s, json_string(s));
		v = json_object_get(pp->names, s);
	}
	return v ? json_string_value(v) : NULL;
}

/* A sampling event on one CPU.  It asks for the lost count in read() (PERF_FORMAT_LOST,
 * Linux 6.0) and goes without on older kernels: then only the PERF_RECORD_LOST records
 * count, and those the kernel had no room to write after the last drain are missed. */
static int open_on_cpu(struct perf_event_attr *attr, int cpu)
{
	long fd;

	attr->read_format |= FORMAT_LOST;
	fd = syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL) {
		attr->read_format &= ~(uint64_t)FORMAT_LOST;
		fd = syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return (int)fd;
}

/* Option KEY of the job (a string there, as every scalar of a job file; a number from the
 * tests) into *out, dflt when absent: a number, or with `duration` a job-file duration
 * ("10", "10s", "1m").  -1 with the note naming the option and the value when it is neither. */
static int option(struct monitor_ctx *ctx, const char *key, bool duration, double dflt, double *out)
{
	const json_t *v = ctx->options ? json_object_get(ctx->options, key) : NULL;
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;

	*out = dflt;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return 0;
	}
	if (s && (duration ? num_parse_duration(s, 0, NUM_DURATION_MAX, out, NULL, 0) == 0
			   : num_parse_float(s, -DBL_MAX, DBL_MAX, out, NULL, 0) == 0))
		return 0;
	snprintf(ctx->note, sizeof(ctx->note), "perf-profile: option %s: expected %s, got '%.200s'",
		 key, duration ? "seconds (e.g. 10 or 10s)" : "a number",
		 s		      ? s
		 : json_is_boolean(v) ? "true/false"
				      : "a list or map");
	return -1;
}

static int online_cpus(const struct monitor_ctx *ctx, int **cpus, size_t *nr)
{
	char path[4096], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online",
		 ctx->sys_root ? ctx->sys_root : "/sys");
	f = fopen(path, "r");
	if (f) {
		bool ok = fgets(line, sizeof(line), f) && perf_parse_cpu_list(line, cpus, nr) == 0;

		fclose(f);
		if (ok)
			return 0;
	}
	if (!ctx->nr_cpus)
		return -1;
	*cpus = malloc(ctx->nr_cpus * sizeof(**cpus));
	if (!*cpus)
		return -1;
	for (unsigned i = 0; i < ctx->nr_cpus; i++)
		(*cpus)[i] = (int)i;
	*nr = ctx->nr_cpus;
	return 0;
}

static void base_attr(struct perf_event_attr *a, double freq)
{
	a->size = sizeof(*a);
	a->freq = 1;
	a->sample_freq = (uint64_t)freq;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	a->disabled = 1;
	/* Processes born, exec'd and mapping files while sampled, as perf record follows them;
	 * every record timed (sample_id_all) to be put in order with the samples. */
	/* mmap alone turns the records on (nr_mmap_events); mmap2 gives their MMAP2 form. */
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
}

/* cycles at the most precise level the PMU takes, else cpu-clock.  Returns the fd open on
 * cpu, with attr and the stat name of the event filled in, or -errno. */
static int choose_event(int cpu, double freq, struct perf_event_attr *attr, char *name, size_t len)
{
	static const char *const names[] = {"cycles", "cycles-p", "cycles-pp"};
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;
	char err[256];
	long fd;

	for (int precise = 2; precise >= 0; precise--) {
		memset(&a, 0, sizeof(a));
		memset(&arg, 0, sizeof(arg));
		arg.attr = &a;
		arg.size = sizeof(arg);
		if (perf_pfm_init(err, sizeof(err)) ||
		    pfm_get_os_event_encoding("cycles", PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
					      &arg) != PFM_SUCCESS) {
			memset(&a, 0, sizeof(a));
			a.type = PERF_TYPE_HARDWARE;
			a.config = PERF_COUNT_HW_CPU_CYCLES;
		}
		base_attr(&a, freq);
		a.precise_ip = (unsigned)precise;
		fd = open_on_cpu(&a, cpu);
		if (fd >= 0) {
			*attr = a;
			snprintf(name, len, "%s", names[precise]);
			return (int)fd;
		}
		if (errno == EACCES || errno == EPERM)
			return -errno;
	}
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	base_attr(&a, freq);
	fd = open_on_cpu(&a, cpu);
	if (fd < 0)
		return -errno;
	*attr = a;
	snprintf(name, len, "cpu-clock");
	return (int)fd;
}

static void note_permission(struct monitor_ctx *ctx, int err)
{
	char value[32];

	perf_paranoid_value(ctx->proc_root, value, sizeof(value));
	snprintf(ctx->note, sizeof(ctx->note),
		 "perf-profile: perf_event_open: %s: system-wide sampling needs root or "
		 "/proc/sys/kernel/perf_event_paranoid <= 0 (it is %s)",
		 strerror(err), value);
}

static int map_buf(struct cpu_buf *b, size_t pages)
{
	long page = sysconf(_SC_PAGESIZE);

	b->data_size = (size_t)page * pages;
	b->base =
	    mmap(NULL, (size_t)page + b->data_size, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
	if (b->base == MAP_FAILED) {
		b->base = NULL;
		return -1;
	}
	return 0;
}

static void set_enabled(struct perf_profile *pp, bool on)
{
	for (size_t i = 0; i < pp->nr_cpus; i++)
		if (pp->cpu[i].fd >= 0)
			ioctl(pp->cpu[i].fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
			      0);
	pp->enabled = on;
}

/* Everything opened before the testcase starts, the window pays only for the sampling: the
 * events (disabled), their ring buffers and /proc/kallsyms (a tenth of a second of CPU). */
static int perf_profile_prepare(struct monitor_ctx *ctx)
{
	struct perf_profile *pp = calloc(1, sizeof(*pp));
	struct perf_event_attr attr;
	char path[4096], err[512];
	double freq, pages;
	int *cpus = NULL, fd;
	size_t nr = 0;

	if (!pp || profile_init(&pp->prof) || !(pp->proc_index = json_object()) ||
	    !(pp->run_pids = json_object())) {
		if (pp) {
			profile_free(&pp->prof);
			json_decref(pp->proc_index);
		}
		free(pp);
		snprintf(ctx->note, sizeof(ctx->note), "perf-profile: out of memory");
		return -1;
	}
	ctx->priv = pp;
	pp->on_s = pp->off_s = -1;
	pp->self = (int)getpid();
	/* The default slice: from half the window, 10 s or what is left of it. */
	if (option(ctx, "freq", false, 1000, &freq) ||
	    option(ctx, "pages", false, DATA_PAGES, &pages) ||
	    option(ctx, "delay", true, ctx->runtime_s / 2, &pp->delay_s) ||
	    option(ctx, "duration", true,
		   ctx->runtime_s > pp->delay_s && ctx->runtime_s - pp->delay_s < 10
		       ? ctx->runtime_s - pp->delay_s
		       : 10,
		   &pp->duration_s))
		return -1;
	if (ctx->runtime_s > 0 && pp->delay_s >= ctx->runtime_s) {
		snprintf(ctx->note, sizeof(ctx->note),
			 "perf-profile: delay %g s starts after the %g s measurement window",
			 pp->delay_s, ctx->runtime_s);
		return -1;
	}
	if (freq < 1 || pp->delay_s < 0 || pp->duration_s <= 0 || pages < 1 || pages > 65536 ||
	    ((size_t)pages & ((size_t)pages - 1)) || pages != (double)(size_t)pages) {
		snprintf(ctx->note, sizeof(ctx->note),
			 "perf-profile: options freq (Hz, >= 1), delay (s, >= 0), duration (s, "
			 "> 0), pages (a power of 2): got %g, %g, %g, %g",
			 freq, pp->delay_s, pp->duration_s, pages);
		return -1;
	}
	if (online_cpus(ctx, &cpus, &nr)) {
		snprintf(ctx->note, sizeof(ctx->note), "perf-profile: no online CPU list");
		return -1;
	}
	pp->cpu = calloc(nr, sizeof(*pp->cpu));
	if (!pp->cpu) {
		free(cpus);
		snprintf(ctx->note, sizeof(ctx->note), "perf-profile: out of memory");
		return -1;
	}
	pp->nr_cpus = nr;
	for (size_t i = 0; i < nr; i++)
		pp->cpu[i].fd = -1;
	fd = choose_event(cpus[0], freq, &attr, pp->event, sizeof(pp->event));
	if (fd < 0) {
		free(cpus);
		if (-fd == EACCES || -fd == EPERM) {
			note_permission(ctx, -fd);
			return MONITOR_UNAVAILABLE;
		}
		snprintf(ctx->note, sizeof(ctx->note),
			 "perf-profile: perf_event_open cpu-clock on CPU %d: %s", cpus[0],
			 strerror(-fd));
		return MONITOR_UNAVAILABLE;
	}
	pp->cpu[0].fd = fd;
	pp->lost_format = attr.read_format & FORMAT_LOST;
	for (size_t i = 1; i < nr; i++) {
		pp->cpu[i].fd = open_on_cpu(&attr, cpus[i]);
		if (pp->cpu[i].fd < 0) {
			snprintf(ctx->note, sizeof(ctx->note),
				 "perf-profile: perf_event_open %s on CPU %d: %s", pp->event,
				 cpus[i], strerror(errno));
			free(cpus);
			return MONITOR_UNAVAILABLE;
		}
	}
	free(cpus);
	pp->pages = (size_t)pages;
	for (size_t i = 0; i < nr; i++)
		if (map_buf(&pp->cpu[i], pp->pages)) {
			snprintf(ctx->note, sizeof(ctx->note),
				 "perf-profile: mmap of the ring buffer: %s (raise "
				 "/proc/sys/kernel/perf_event_mlock_kb?)",
				 strerror(errno));
			return MONITOR_UNAVAILABLE;
		}
	snprintf(path, sizeof(path), "%s/kallsyms", ctx->proc_root ? ctx->proc_root : "/proc");
	pp->have_ksyms = ksyms_load(path, &pp->ksyms, err, sizeof(err)) == 0;
	if (!pp->have_ksyms || pp->ksyms.zeroed)
		snprintf(ctx->note, sizeof(ctx->note),
			 "perf-profile: kernel frames are [kernel]: %.400s",
			 pp->have_ksyms ? "/proc/kallsyms addresses are all 0 (kptr_restrict)"
					: err);
	return 0;
}

static void scan_run_pids(struct perf_profile *pp, const char *proc_root);
static int read_ppid(const char *proc_root, int pid);

/* Sampling starts now or at the slice's start (a call of its own, off the interval grid). */
static void perf_profile_toggle(struct monitor_ctx *ctx, struct perf_profile *pp, double t_s)
{
	if (!pp->enabled && !pp->finished && t_s >= pp->delay_s - 1e-3) {
		set_enabled(pp, true);
		pp->on_s = t_s;
		/* After enabling: a process forked in between is in the scan or in a record. */
		scan_run_pids(pp, ctx->proc_root ? ctx->proc_root : "/proc");
	} else if (pp->enabled && t_s >= pp->delay_s + pp->duration_s - 1e-3) {
		set_enabled(pp, false);
		pp->off_s = t_s;
		pp->finished = true;
	}
	if (!pp->finished)
		ctx->wake_s = pp->enabled ? pp->delay_s + pp->duration_s : pp->delay_s;
}

static int perf_profile_start(struct monitor_ctx *ctx)
{
	struct perf_profile *pp = ctx->priv;

	if (!pp)
		return -1;
	perf_profile_toggle(ctx, pp, 0);
	return 0;
}

/* --- tasks: who each sample belongs to and what its user addresses map --- */

/* "comm" and the pids come from the records (PERF_RECORD_COMM, FORK, EXIT, MMAP2) as perf
 * follows them, so that a process that lived between two reads of the ring buffers (exec1's
 * children) is still named and its user frames resolved; a process that was there before
 * sampling started has no records yet: its maps are read from /proc the first time one of
 * its user frames is seen, as perf synthesizes them at its start. */

static int elf_open(struct perf_profile *pp, const char *path, const char *alt)
{
	struct elf_entry *g;
	char err[512];

	for (size_t i = 0; i < pp->nr_elfs; i++)
		if (!strcmp(pp->elfs[i].path, path))
			return pp->elfs[i].ok ? (int)i : -1;
	g = realloc(pp->elfs, (pp->nr_elfs + 1) * sizeof(*g));
	if (!g)
		return -1;
	pp->elfs = g;
	g = &pp->elfs[pp->nr_elfs];
	g->path = strdup(path);
	if (!g->path)
		return -1;
	g->ok = elf_syms_load(path, &g->syms, err, sizeof(err)) == 0 ||
		(alt && elf_syms_load(alt, &g->syms, err, sizeof(err)) == 0);
	pp->nr_elfs++;
	return g->ok ? (int)pp->nr_elfs - 1 : -1;
}

static int elf_index(struct perf_profile *pp, const char *path)
{
	return elf_open(pp, path, NULL);
}

/* The binary's name as frames carry it: without the " (deleted)" of an unlinked file. */
static const char *dso_name(struct perf_profile *pp, const char *path)
{
	size_t n = strlen(path);
	char buf[4096];

	if (n > 10 && n - 10 < sizeof(buf) && !strcmp(path + n - 10, " (deleted)")) {
		memcpy(buf, path, n - 10);
		buf[n - 10] = '\0';
		return intern(pp, buf);
	}
	return intern(pp, path);
}

static bool is_deleted(const char *path)
{
	size_t n = strlen(path);

	return n > 10 && !strcmp(path + n - 10, " (deleted)");
}

static void free_maps(struct proc_maps *pm)
{
	free(pm->m);
	pm->m = NULL;
	pm->n = pm->cap = 0;
}

static int push_mapping(struct proc_maps *pm, const struct mapping *mp)
{
	if (pm->n == pm->cap) {
		size_t c = pm->cap ? 2 * pm->cap : 32;
		struct mapping *g = realloc(pm->m, c * sizeof(*g));

		if (!g)
			return -1;
		pm->m = g;
		pm->cap = c;
	}
	pm->m[pm->n++] = *mp;
	return 0;
}

/* The maps of a living process, from /proc.  Kept as they were when it is gone. */
static void read_maps(struct perf_profile *pp, const char *proc_root, struct proc_maps *pm)
{
	char path[4096], line[4096 + 256];
	FILE *f;

	pm->generation = pp->generation;
	pm->maps_read = true;
	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, pm->pid);
	f = fopen(path, "r");
	if (!f)
		return;
	free_maps(pm);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8], alt[4096];
		int off = 0;
		const char *file;
		struct mapping mp = {.elf = -1};

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff,
			   &off) < 4 ||
		    !off || perms[2] != 'x')
			continue;
		file = line + off;
		line[strcspn(line, "\n")] = '\0';
		mp.start = start;
		mp.end = end;
		mp.pgoff = pgoff;
		if (file[0] == '/') {
			/* An unlinked file is still there through map_files while it is mapped. */
			snprintf(alt, sizeof(alt), "%s/%d/map_files/%llx-%llx", proc_root,
				 pm->pid, start, end);
			mp.elf = elf_open(pp, file, is_deleted(file) ? alt : NULL);
			mp.dso = dso_name(pp, file);
		} else if (file[0] == '[') {
			mp.special = mp.dso = intern(pp, file);
		}
		if (push_mapping(pm, &mp))
			break;
	}
	fclose(f);
}

static void read_comm(const char *proc_root, struct proc_maps *pm)
{
	char path[4096];
	FILE *f;

	pm->comm[0] = '\0';
	if (pm->pid == 0) {
		snprintf(pm->comm, sizeof(pm->comm), "swapper");
		return;
	}
	snprintf(path, sizeof(path), "%s/%d/comm", proc_root, pm->pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(pm->comm, sizeof(pm->comm), f))
		pm->comm[0] = '\0';
	pm->comm[strcspn(pm->comm, "\n")] = '\0';
	fclose(f);
}

static struct proc_maps *lookup_proc(struct perf_profile *pp, int pid)
{
	char key[16];
	json_t *v;

	snprintf(key, sizeof(key), "%d", pid);
	v = json_object_get(pp->proc_index, key);
	return v ? pp->procs[json_integer_value(v)] : NULL;
}

/* The table of pid, new (comm from /proc, maps read when first needed) when there is none. */
static struct proc_maps *find_proc(struct perf_profile *pp, const char *proc_root, int pid)
{
	struct proc_maps *pm = lookup_proc(pp, pid), **g;
	char key[16];

	if (pm)
		return pm;
	g = realloc(pp->procs, (pp->nr_procs + 1) * sizeof(*g));
	if (!g)
		return NULL;
	pp->procs = g;
	pm = calloc(1, sizeof(*pm));
	snprintf(key, sizeof(key), "%d", pid);
	if (!pm || json_object_set_new(pp->proc_index, key, json_integer((json_int_t)pp->nr_procs))) {
		free(pm);
		return NULL;
	}
	pm->pid = pid;
	pm->ppid = -1;
	pp->procs[pp->nr_procs++] = pm;
	read_comm(proc_root, pm);
	return pm;
}

/* Tables of processes that exited go once the batch that saw them exit is read. */
static void sweep_procs(struct perf_profile *pp)
{
	size_t k = 0;

	for (size_t i = 0; i < pp->nr_procs; i++) {
		struct proc_maps *pm = pp->procs[i];

		if (pm->exited) {
			free_maps(pm);
			free(pm);
			continue;
		}
		pp->procs[k++] = pm;
	}
	if (k != pp->nr_procs) {
		json_object_clear(pp->proc_index);
		for (size_t i = 0; i < k; i++) {
			char key[16];

			snprintf(key, sizeof(key), "%d", pp->procs[i]->pid);
			json_object_set_new(pp->proc_index, key, json_integer((json_int_t)i));
		}
	}
	pp->nr_procs = k;
}

static const struct mapping *find_mapping(const struct proc_maps *pm, uint64_t addr)
{
	/* Newest first: a mapping laid over an older one hides it. */
	for (size_t i = pm->n; i-- > 0;)
		if (addr >= pm->m[i].start && addr < pm->m[i].end)
			return &pm->m[i];
	return NULL;
}

static bool is_run_pid(const struct perf_profile *pp, int pid)
{
	char key[16];

	snprintf(key, sizeof(key), "%d", pid);
	return json_object_get(pp->run_pids, key) != NULL;
}

static void add_run_pid(struct perf_profile *pp, int pid)
{
	char key[16];

	snprintf(key, sizeof(key), "%d", pid);
	json_object_set_new(pp->run_pids, key, json_true());
}

/* The run's processes when sampling starts: every process below this one (the copy host,
 * the copies, their children), not this one (the monitors' own thread is in it).  Those
 * forked later are added from the FORK records. */
static void scan_run_pids(struct perf_profile *pp, const char *proc_root)
{
	struct {
		int pid, ppid;
	} *t = NULL;
	size_t n = 0, cap = 0;
	bool grew = true;
	struct dirent *e;
	DIR *d = opendir(proc_root);
	int self = pp->self;

	if (!d)
		return;
	while ((e = readdir(d))) {
		int pid, ppid;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid = atoi(e->d_name);
		ppid = read_ppid(proc_root, pid);
		if (ppid < 0)
			continue;
		if (n == cap) {
			size_t c = cap ? 2 * cap : 512;
			void *g = realloc(t, c * sizeof(*t));

			if (!g)
				break;
			t = g;
			cap = c;
		}
		t[n].pid = pid;
		t[n++].ppid = ppid;
	}
	closedir(d);
	while (grew) {
		grew = false;
		for (size_t i = 0; i < n; i++)
			if (!is_run_pid(pp, t[i].pid) &&
			    (t[i].ppid == self || is_run_pid(pp, t[i].ppid))) {
				add_run_pid(pp, t[i].pid);
				grew = true;
			}
	}
	free(t);
}

/* The process's maps from /proc (the first time, and again once per batch when an address
 * is not in them: a library loaded late), unless the records built them. */
static const struct mapping *user_mapping(struct perf_profile *pp, const char *proc_root,
					  struct proc_maps *pm, uint64_t addr)
{
	const struct mapping *m;

	if (!pm->maps_read && !pm->from_records)
		read_maps(pp, proc_root, pm);
	m = find_mapping(pm, addr);
	if (!m && !pm->from_records && pm->generation != pp->generation) {
		read_maps(pp, proc_root, pm);
		m = find_mapping(pm, addr);
	}
	return m;
}

static const char *mapping_symbol(struct perf_profile *pp, const struct mapping *m, uint64_t addr)
{
	if (m->special)
		return m->special;
	if (m->elf < 0)
		return NULL;
	return elf_syms_lookup_offset(&pp->elfs[m->elf].syms, addr - m->start + m->pgoff);
}

/* The parent of a process from /proc, -1 when it is gone. */
static int read_ppid(const char *proc_root, int pid)
{
	char path[4096], buf[1024], *rp;
	int ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/stat", proc_root, pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	rp = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	/* "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses. */
	if (!rp || sscanf(rp + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

/* An unlinked binary (exec1 execs its helper copy by fd): the parent that holds it open. */
static int elf_of_deleted(struct perf_profile *pp, const char *proc_root, int pid, int ppid,
			  const char *path, dev_t dev, uint64_t ino)
{
	char dir[4096], alt[4096 + 256];
	struct dirent *e;
	int idx = -1;
	DIR *d;

	for (size_t i = 0; i < pp->nr_elfs; i++)
		if (!strcmp(pp->elfs[i].path, path))
			return pp->elfs[i].ok ? (int)i : -1;
	if (ppid < 0)
		ppid = read_ppid(proc_root, pid);
	/* Forked before sampling started and gone: not a reason to give up on the file, which
	 * the next process to map it may tell. */
	if (ppid <= 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s/%d/fd", proc_root, ppid);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		struct stat st;

		snprintf(alt, sizeof(alt), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.' && stat(alt, &st) == 0 && st.st_ino == ino &&
		    st.st_dev == dev) {
			idx = elf_open(pp, path, alt);
			break;
		}
	}
	if (d)
		closedir(d);
	return idx >= 0 ? idx : elf_index(pp, path);
}

/* PERF_RECORD_MMAP2: u32 pid, tid; u64 addr, len, pgoff; u32 maj, min; u64 ino, ino_gen;
 * u32 prot, flags; char filename[]; then the sample_id. */
static void on_mmap2(struct perf_profile *pp, const char *proc_root, const unsigned char *b,
		     size_t len)
{
	uint32_t pid, maj, min;
	uint64_t addr, size, pgoff, ino;
	struct mapping mp = {.elf = -1};
	struct proc_maps *pm;
	char name[4096];
	size_t k = 0, flen;

	if (len < 64 + 16 + 1)
		return;
	memcpy(&pid, b, 4);
	memcpy(&addr, b + 8, 8);
	memcpy(&size, b + 16, 8);
	memcpy(&pgoff, b + 24, 8);
	memcpy(&maj, b + 32, 4);
	memcpy(&min, b + 36, 4);
	memcpy(&ino, b + 40, 8);
	flen = strnlen((const char *)b + 64, len - 64 - 16);
	if (flen >= sizeof(name))
		return;
	memcpy(name, b + 64, flen);
	name[flen] = '\0';
	pm = find_proc(pp, proc_root, (int)pid);
	if (!pm)
		return;
	/* Known to /proc before its first record: what was mapped before it is read now. */
	if (!pm->maps_read && !pm->from_records)
		read_maps(pp, proc_root, pm);
	mp.start = addr;
	mp.end = addr + size;
	mp.pgoff = pgoff;
	if (name[0] == '/') {
		mp.elf = is_deleted(name) ? elf_of_deleted(pp, proc_root, pm->pid, pm->ppid, name,
							   makedev(maj, min), ino)
					  : elf_index(pp, name);
		mp.dso = dso_name(pp, name);
	} else if (name[0] == '[') {
		mp.special = mp.dso = intern(pp, name);
	}
	/* What the new mapping covers whole is gone. */
	for (size_t i = 0; i < pm->n; i++)
		if (!(pm->m[i].start >= mp.start && pm->m[i].end <= mp.end))
			pm->m[k++] = pm->m[i];
	pm->n = k;
	push_mapping(pm, &mp);
}

/* PERF_RECORD_COMM: u32 pid, tid; char comm[]; an exec (misc COMM_EXEC) starts a new image. */
static void on_comm(struct perf_profile *pp, const char *proc_root, uint16_t misc,
		    const unsigned char *b, size_t len)
{
	uint32_t pid, tid;
	struct proc_maps *pm;
	size_t n;

	if (len < 8 + 16 + 1)
		return;
	memcpy(&pid, b, 4);
	memcpy(&tid, b + 4, 4);
	if (pid != tid)
		return; /* a thread's name: the process keeps its own */
	pm = find_proc(pp, proc_root, (int)pid);
	if (!pm)
		return;
	n = strnlen((const char *)b + 8, len - 8 - 16);
	if (n >= sizeof(pm->comm))
		n = sizeof(pm->comm) - 1;
	memcpy(pm->comm, b + 8, n);
	pm->comm[n] = '\0';
	if (misc & PERF_RECORD_MISC_COMM_EXEC) {
		free_maps(pm);
		pm->from_records = true;
	}
}

/* PERF_RECORD_FORK / EXIT: u32 pid, ppid, tid, ptid; u64 time. */
static void on_task(struct perf_profile *pp, const char *proc_root, uint32_t type,
		    const unsigned char *b, size_t len)
{
	uint32_t pid, ppid, tid;
	struct proc_maps *pm, *parent;

	if (len < 24)
		return;
	memcpy(&pid, b, 4);
	memcpy(&ppid, b + 4, 4);
	memcpy(&tid, b + 8, 4);
	if (type == PERF_RECORD_EXIT) {
		pm = pid == tid ? lookup_proc(pp, (int)pid) : NULL;
		if (pm)
			pm->exited = true;
		return;
	}
	if (pid == ppid)
		return; /* a new thread shares its process's table */
	if ((int)ppid == pp->self || is_run_pid(pp, (int)ppid))
		add_run_pid(pp, (int)pid);
	pm = find_proc(pp, proc_root, (int)pid);
	parent = find_proc(pp, proc_root, (int)ppid);
	if (!pm || !parent)
		return;
	/* A pid used again: the old table's process is gone. */
	free_maps(pm);
	pm->exited = false;
	pm->ppid = (int)ppid;
	if (!parent->maps_read && !parent->from_records)
		read_maps(pp, proc_root, parent);
	memcpy(pm->comm, parent->comm, sizeof(pm->comm));
	for (size_t i = 0; i < parent->n; i++)
		if (push_mapping(pm, &parent->m[i]))
			break;
	pm->from_records = true;
}

/* --- the ring buffers --- */

/* sample: ip, pid/tid, time, nr, ips[nr] */
static void add_sample(struct monitor_ctx *ctx, struct perf_profile *pp, const uint64_t *p,
		       size_t words)
{
	const char *proc_root = ctx->proc_root ? ctx->proc_root : "/proc";
	const char *frames[MAX_FRAMES], *dsos[MAX_FRAMES];
	struct proc_maps *pm = NULL;
	struct profile_task task;
	size_t depth = 0;
	uint64_t nr;
	uint32_t pid, tid;
	bool user = false;

	if (words < 4)
		return;
	pid = (uint32_t)(p[1] & 0xffffffff);
	tid = (uint32_t)(p[1] >> 32);
	nr = p[3];
	if (nr > words - 4)
		return;
	pp->samples++;
	pm = find_proc(pp, proc_root, (int)pid);
	for (uint64_t i = 0; i < nr && depth < MAX_FRAMES; i++) {
		uint64_t a = p[4 + i];
		const struct mapping *m;
		const char *name;

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			user = a == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (!user) {
			name = pp->have_ksyms ? ksyms_lookup(&pp->ksyms, a) : NULL;
			dsos[depth] = "[kernel.kallsyms]";
			frames[depth++] = name					? name
					  : pp->have_ksyms && !pp->ksyms.zeroed ? "[unknown]"
										: "[kernel]";
			continue;
		}
		m = pid && pm ? user_mapping(pp, proc_root, pm, a) : NULL;
		name = m ? mapping_symbol(pp, m, a) : NULL;
		dsos[depth] = m ? m->dso : NULL;
		frames[depth++] = name ? name : "[unknown]";
	}
	/* A user stack walked without frame pointers ends in garbage: keep what resolved. */
	while (depth > 1 && !strcmp(frames[depth - 1], "[unknown]"))
		depth--;
	if (!depth) {
		dsos[depth] = NULL;
		frames[depth++] = "[unknown]";
	}
	task = (struct profile_task){
	    .pid = (int)pid, .tid = (int)tid, .comm = pm && pm->comm[0] ? pm->comm : NULL};
	profile_add_task(&pp->prof, &task, frames, dsos, depth, 1);
}

/* One record copied out of a ring, to be handled in time order with every CPU's. */
struct rec_ref {
	uint64_t time;
	size_t seq, off; /* off: into pp->batch */
};

static int rec_cmp(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int batch_push(struct perf_profile *pp, const unsigned char *rec, size_t size)
{
	struct perf_event_header h;
	uint64_t time = 0;

	memcpy(&h, rec, sizeof(h));
	/* The time: a sample's third word, every other record's sample_id ends with it. */
	if (h.type == PERF_RECORD_SAMPLE && size >= sizeof(h) + 24)
		memcpy(&time, rec + sizeof(h) + 16, 8);
	else if (size >= sizeof(h) + 16)
		memcpy(&time, rec + size - 8, 8);
	if (pp->batch_len + size > pp->batch_cap) {
		size_t c = pp->batch_cap ? 2 * pp->batch_cap : 1 << 20;
		unsigned char *g;

		while (c < pp->batch_len + size)
			c *= 2;
		g = realloc(pp->batch, c);
		if (!g)
			return -1;
		pp->batch = g;
		pp->batch_cap = c;
	}
	if (pp->nr_refs == pp->refs_cap) {
		size_t c = pp->refs_cap ? 2 * pp->refs_cap : 4096;
		struct rec_ref *g = realloc(pp->refs, c * sizeof(*g));

		if (!g)
			return -1;
		pp->refs = g;
		pp->refs_cap = c;
	}
	memcpy(pp->batch + pp->batch_len, rec, size);
	pp->refs[pp->nr_refs] =
	    (struct rec_ref){.time = time, .seq = pp->nr_refs, .off = pp->batch_len};
	pp->nr_refs++;
	pp->batch_len += size;
	return 0;
}

static void handle(struct monitor_ctx *ctx, struct perf_profile *pp, const unsigned char *rec)
{
	const char *proc_root = ctx->proc_root ? ctx->proc_root : "/proc";
	struct perf_event_header h;
	const unsigned char *body = rec + sizeof(h);
	size_t len;

	memcpy(&h, rec, sizeof(h));
	len = h.size - sizeof(h);
	switch (h.type) {
	case PERF_RECORD_SAMPLE: {
		uint64_t words[MAX_FRAMES + 8];

		/* Copied to an aligned buffer; a chain past MAX_FRAMES is cut. */
		if (len > sizeof(words))
			len = sizeof(words);
		memcpy(words, body, len);
		if (len / 8 >= 4 && words[3] > len / 8 - 4)
			words[3] = len / 8 - 4;
		add_sample(ctx, pp, words, len / 8);
		break;
	}
	case PERF_RECORD_LOST:
		if (len >= 16) {
			uint64_t lost;

			memcpy(&lost, body + 8, sizeof(lost));
			pp->lost += lost;
		}
		break;
	case PERF_RECORD_MMAP2:
		on_mmap2(pp, proc_root, body, len);
		break;
	case PERF_RECORD_COMM:
		on_comm(pp, proc_root, h.misc, body, len);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		on_task(pp, proc_root, h.type, body, len);
		break;
	default:
		break;
	}
}

static void drain(struct perf_profile *pp, struct cpu_buf *b)
{
	struct perf_event_mmap_page *meta = b->base;
	unsigned char *data = (unsigned char *)b->base + sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	size_t mask = b->data_size - 1;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		size_t at = (size_t)(tail & mask);
		const unsigned char *rec;

		/* The header itself may straddle the end of the ring. */
		for (size_t i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(at + i) & mask];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (at + h.size <= b->data_size) {
			rec = data + at;
		} else {
			size_t first = b->data_size - at;

			if (pp->scratch_size < h.size) {
				unsigned char *g = realloc(pp->scratch, h.size);

				if (!g)
					break;
				pp->scratch = g;
				pp->scratch_size = h.size;
			}
			memcpy(pp->scratch, data + at, first);
			memcpy(pp->scratch + first, data, h.size - first);
			rec = pp->scratch;
		}
		if (batch_push(pp, rec, h.size))
			break;
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Its own CPU time goes to meta: what reading and symbolizing cost beside the workload. */
static void drain_all(struct monitor_ctx *ctx, struct perf_profile *pp)
{
	double t0 = thread_cpu_s();

	pp->generation++;
	pp->nr_refs = pp->batch_len = 0;
	for (size_t i = 0; i < pp->nr_cpus; i++)
		if (pp->cpu[i].base)
			drain(pp, &pp->cpu[i]);
	/* Each CPU's ring is in time order, but a process forks or maps on one CPU and is
	 * sampled on another: perf's order, by time over all of them. */
	if (pp->nr_refs)
		qsort(pp->refs, pp->nr_refs, sizeof(*pp->refs), rec_cmp);
	for (size_t i = 0; i < pp->nr_refs; i++)
		handle(ctx, pp, pp->batch + pp->refs[i].off);
	sweep_procs(pp);
	pp->cpu_s += thread_cpu_s() - t0;
}

static int perf_profile_sample(struct monitor_ctx *ctx, double t_s)
{
	struct perf_profile *pp = ctx->priv;

	if (!pp)
		return -1;
	perf_profile_toggle(ctx, pp, t_s);
	drain_all(ctx, pp);
	return 0;
}

static int perf_profile_stop(struct monitor_ctx *ctx, double t_s)
{
	struct perf_profile *pp = ctx->priv;
	json_t *record;

	if (!pp)
		return -1;
	if (pp->enabled) {
		set_enabled(pp, false);
		pp->off_s = t_s;
	}
	pp->finished = true;
	drain_all(ctx, pp);
	/* The records counted what was lost up to the last one written; the kernel's count
	 * also has what it could not report after the last drain. */
	if (pp->lost_format) {
		uint64_t total = 0, v[2];

		for (size_t i = 0; i < pp->nr_cpus; i++)
			if (pp->cpu[i].fd >= 0 && read(pp->cpu[i].fd, v, sizeof(v)) == sizeof(v))
				total += v[1];
		if (total > pp->lost)
			pp->lost = total;
	}
	record = profile_record_new(&pp->prof, t_s, pp->event, pp->samples, pp->lost);
	if (record) {
		int *pids = malloc((json_object_size(pp->run_pids) + 1) * sizeof(*pids));
		size_t n = 0;
		const char *key;
		json_t *v;

		json_object_foreach (pp->run_pids, key, v)
			if (pids)
				pids[n++] = atoi(key);
		if (!pids || profile_record_set_run_pids(record, pids, n)) {
			json_decref(record);
			record = NULL;
		}
		free(pids);
	}
	if (record && json_is_array(ctx->raw))
		json_array_append_new(ctx->raw, record);
	else
		json_decref(record);
	return 0;
}

static int perf_profile_reduce(struct monitor_ctx *ctx, json_t *stats)
{
	struct perf_profile *pp = ctx->priv;
	struct profile own;
	int rc = 0;

	if (!pp)
		return -1;
	/* More than 1% lost: the profile is skewed toward what was sampled right after a read. */
	if (pp->lost * 100 > pp->samples + pp->lost) {
		char lost[256];
		size_t n = strlen(ctx->note);

		snprintf(
		    lost, sizeof(lost),
		    "perf-profile: lost %llu of %llu samples (%.1f%%): the ring buffers filled "
		    "between reads; raise pages (now %zu per CPU) or lower freq",
		    (unsigned long long)pp->lost, (unsigned long long)(pp->samples + pp->lost),
		    100.0 * (double)pp->lost / (double)(pp->samples + pp->lost), pp->pages);
		fprintf(stderr, "scalebench: %s\n", lost);
		/* After the kallsyms note, if there is one. */
		snprintf(ctx->note + n, sizeof(ctx->note) - n, "%s%s", n ? "; " : "", lost);
	}
	/* The stats are the run's own processes': percentages of their samples, whatever else
	 * the machine ran meanwhile.  The raw file keeps every task's. */
	if (profile_init(&own))
		return -1;
	for (size_t i = 0; i < pp->prof.n && rc == 0; i++) {
		const struct profile_chain *c = &pp->prof.chain[i];

		if (c->pid >= 0 && is_run_pid(pp, c->pid))
			rc = profile_add(&own, (const char *const *)c->frames, c->depth, c->count);
	}
	if (ctx->meta)
		json_object_set_new(ctx->meta, "profile",
				    json_pack("{s:s,s:I,s:I,s:I,s:f,s:f,s:f}", "event", pp->event,
					      "samples", (json_int_t)pp->samples, "run_samples",
					      (json_int_t)own.samples, "lost", (json_int_t)pp->lost,
					      "cpu_s", pp->cpu_s, "from_s", pp->on_s, "to_s",
					      pp->off_s));
	if (rc == 0)
		rc = profile_reduce(&own, pp->event, PROFILE_MIN_PCT, stats);
	profile_free(&own);
	return rc ? -1 : 0;
}

static void perf_profile_cleanup(struct monitor_ctx *ctx)
{
	struct perf_profile *pp = ctx->priv;
	long page = sysconf(_SC_PAGESIZE);

	if (!pp)
		return;
	for (size_t i = 0; i < pp->nr_cpus; i++) {
		if (pp->cpu[i].base)
			munmap(pp->cpu[i].base, (size_t)page + pp->cpu[i].data_size);
		if (pp->cpu[i].fd >= 0)
			close(pp->cpu[i].fd);
	}
	free(pp->cpu);
	if (pp->have_ksyms)
		ksyms_free(&pp->ksyms);
	for (size_t i = 0; i < pp->nr_procs; i++) {
		free_maps(pp->procs[i]);
		free(pp->procs[i]);
	}
	free(pp->procs);
	json_decref(pp->proc_index);
	json_decref(pp->run_pids);
	free(pp->batch);
	free(pp->refs);
	for (size_t i = 0; i < pp->nr_elfs; i++) {
		if (pp->elfs[i].ok)
			elf_syms_free(&pp->elfs[i].syms);
		free(pp->elfs[i].path);
	}
	free(pp->elfs);
	profile_free(&pp->prof);
	free(pp->scratch);
	json_decref(pp->names);
	free(pp);
	ctx->priv = NULL;
}

const struct monitor mon_perf_profile = {
    .name = "perf-profile",
    .description = "call chains sampled on every CPU (cycles:pp, or cpu-clock): self, children "
		   "and calltrace percentages per symbol",
    .prepare = perf_profile_prepare,
    .start = perf_profile_start,
    .sample = perf_profile_sample,
    .stop = perf_profile_stop,
    .reduce = perf_profile_reduce,
    .cleanup = perf_profile_cleanup,
    .is_default = false,
    .compress_raw = true,
};
