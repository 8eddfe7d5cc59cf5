/* perf-profile: call chains sampled on every CPU (cycles:pp, or cpu-clock without a PMU),
 * symbolized while the testcase's processes live, reduced to the robot's
 * perf-profile.{self,children,calltrace}.<event>.* percentages. */
#include "../lib/num.h"
#include "monitor.h"
#include "perf_events.h"
#include "profile_reduce.h"
#include "symbols.h"
#include "../store/profile.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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
};

struct proc_maps {
	int pid;
	struct mapping *m;
	size_t n;
	unsigned generation; /* the read() batch it was last read in */
};

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
	struct proc_maps *procs;
	size_t nr_procs;
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
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	a->disabled = 1;
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

	if (!pp || profile_init(&pp->prof)) {
		free(pp);
		snprintf(ctx->note, sizeof(ctx->note), "perf-profile: out of memory");
		return -1;
	}
	ctx->priv = pp;
	pp->on_s = pp->off_s = -1;
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

/* Sampling starts now or at the slice's start (a call of its own, off the interval grid). */
static void perf_profile_toggle(struct monitor_ctx *ctx, struct perf_profile *pp, double t_s)
{
	if (!pp->enabled && !pp->finished && t_s >= pp->delay_s - 1e-3) {
		set_enabled(pp, true);
		pp->on_s = t_s;
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

/* --- user space symbols --- */

static int elf_index(struct perf_profile *pp, const char *path)
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
	g->ok = elf_syms_load(path, &g->syms, err, sizeof(err)) == 0;
	pp->nr_elfs++;
	return g->ok ? (int)pp->nr_elfs - 1 : -1;
}

static void free_maps(struct proc_maps *pm)
{
	free(pm->m);
	pm->m = NULL;
	pm->n = 0;
}

static void read_maps(struct perf_profile *pp, const char *proc_root, struct proc_maps *pm)
{
	char path[4096], line[4096 + 256];
	size_t cap = 0;
	FILE *f;

	free_maps(pm);
	pm->generation = pp->generation;
	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, pm->pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8];
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
		if (file[0] == '/')
			mp.elf = elf_index(pp, file);
		else if (file[0] == '[')
			mp.special = intern(pp, file);
		if (pm->n == cap) {
			size_t c = cap ? 2 * cap : 32;
			struct mapping *g = realloc(pm->m, c * sizeof(*g));

			if (!g)
				break;
			pm->m = g;
			cap = c;
		}
		pm->m[pm->n++] = mp;
	}
	fclose(f);
}

static struct proc_maps *find_proc(struct perf_profile *pp, const char *proc_root, int pid)
{
	struct proc_maps *g;

	for (size_t i = 0; i < pp->nr_procs; i++)
		if (pp->procs[i].pid == pid)
			return &pp->procs[i];
	g = realloc(pp->procs, (pp->nr_procs + 1) * sizeof(*g));
	if (!g)
		return NULL;
	pp->procs = g;
	g = &pp->procs[pp->nr_procs++];
	memset(g, 0, sizeof(*g));
	g->pid = pid;
	read_maps(pp, proc_root, g);
	return g;
}

static const struct mapping *find_mapping(const struct proc_maps *pm, uint64_t addr)
{
	for (size_t i = 0; i < pm->n; i++)
		if (addr >= pm->m[i].start && addr < pm->m[i].end)
			return &pm->m[i];
	return NULL;
}

static const char *user_symbol(struct perf_profile *pp, const char *proc_root, int pid,
			       uint64_t addr)
{
	struct proc_maps *pm = find_proc(pp, proc_root, pid);
	const struct mapping *m;
	const char *name;

	if (!pm)
		return NULL;
	m = find_mapping(pm, addr);
	/* Mapped since we read it (a library loaded late): read it again, once per batch. */
	if (!m && pm->generation != pp->generation) {
		read_maps(pp, proc_root, pm);
		m = find_mapping(pm, addr);
	}
	if (!m)
		return NULL;
	if (m->special)
		return m->special;
	if (m->elf < 0)
		return NULL;
	name = elf_syms_lookup_offset(&pp->elfs[m->elf].syms, addr - m->start + m->pgoff);
	return name;
}

/* --- the ring buffers --- */

static void add_sample(struct monitor_ctx *ctx, struct perf_profile *pp, const uint64_t *p,
		       size_t words)
{
	const char *proc_root = ctx->proc_root ? ctx->proc_root : "/proc";
	const char *frames[MAX_FRAMES];
	size_t depth = 0;
	uint64_t nr;
	uint32_t pid;
	bool user = false;

	/* ip, pid/tid, nr, ips[nr] */
	if (words < 3)
		return;
	pid = (uint32_t)(p[1] & 0xffffffff);
	nr = p[2];
	if (nr > words - 3)
		return;
	pp->samples++;
	for (uint64_t i = 0; i < nr && depth < MAX_FRAMES; i++) {
		uint64_t a = p[3 + i];
		const char *name;

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			user = a == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (!user) {
			name = pp->have_ksyms ? ksyms_lookup(&pp->ksyms, a) : NULL;
			frames[depth++] = name					? name
					  : pp->have_ksyms && !pp->ksyms.zeroed ? "[unknown]"
										: "[kernel]";
		} else {
			name = pid ? user_symbol(pp, proc_root, (int)pid, a) : NULL;
			frames[depth++] = name ? name : "[unknown]";
		}
	}
	/* A user stack walked without frame pointers ends in garbage: keep what resolved. */
	while (depth > 1 && !strcmp(frames[depth - 1], "[unknown]"))
		depth--;
	if (!depth)
		frames[depth++] = "[unknown]";
	profile_add(&pp->prof, frames, depth, 1);
}

static void drain(struct monitor_ctx *ctx, struct perf_profile *pp, struct cpu_buf *b)
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
		if (h.type == PERF_RECORD_SAMPLE) {
			uint64_t words[MAX_FRAMES + 8];
			size_t len = h.size - sizeof(h);

			/* Copied to an aligned buffer; a chain past MAX_FRAMES is cut. */
			if (len > sizeof(words))
				len = sizeof(words);
			memcpy(words, rec + sizeof(h), len);
			if (len / 8 >= 3 && words[2] > len / 8 - 3)
				words[2] = len / 8 - 3;
			add_sample(ctx, pp, words, len / 8);
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost;

			memcpy(&lost, rec + sizeof(h) + 8, sizeof(lost));
			pp->lost += lost;
		}
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
	for (size_t i = 0; i < pp->nr_cpus; i++)
		if (pp->cpu[i].base)
			drain(ctx, pp, &pp->cpu[i]);
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
	if (record && json_is_array(ctx->raw))
		json_array_append_new(ctx->raw, record);
	else
		json_decref(record);
	return 0;
}

static int perf_profile_reduce(struct monitor_ctx *ctx, json_t *stats)
{
	struct perf_profile *pp = ctx->priv;

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
	if (ctx->meta)
		json_object_set_new(ctx->meta, "profile",
				    json_pack("{s:s,s:I,s:I,s:f,s:f,s:f}", "event", pp->event,
					      "samples", (json_int_t)pp->samples, "lost",
					      (json_int_t)pp->lost, "cpu_s", pp->cpu_s, "from_s",
					      pp->on_s, "to_s", pp->off_s));
	return profile_reduce(&pp->prof, pp->event, PROFILE_MIN_PCT, stats);
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
	for (size_t i = 0; i < pp->nr_procs; i++)
		free_maps(&pp->procs[i]);
	free(pp->procs);
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
