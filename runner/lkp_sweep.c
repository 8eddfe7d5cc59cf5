/* LKP's will-it-scale sweep: the task counts, runtest.py's table and parse's stats of it. */
#include "lkp_sweep.h"
#include "../lib/file.h"

#include <ctype.h>
#include <dirent.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- topology ---- */

static unsigned count_dir(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t len = strlen(prefix);
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, len) && isdigit((unsigned char)e->d_name[len]))
			n++;
	closedir(d);
	return n;
}

static char *read_small(const char *path)
{
	char *buf = NULL;

	if (file_read(path, 1 << 16, &buf, NULL, NULL, 0))
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* CPUs in a cpulist ("0-3,8,10-11"). */
static unsigned cpulist_count(const char *s)
{
	unsigned n = 0;

	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			break;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (b >= a)
			n += (unsigned)(b - a + 1);
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* Cache instances of one level as lscpu counts them: distinct shared_cpu_list values. */
static unsigned cache_instances(unsigned level, unsigned nr_possible)
{
	json_t *seen = json_object();
	unsigned n;

	for (unsigned cpu = 0; cpu < nr_possible; cpu++) {
		for (unsigned idx = 0;; idx++) {
			char path[128], *lv, *shared;

			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%u/cache/index%u/level", cpu, idx);
			lv = read_small(path);
			if (!lv)
				break;
			if ((unsigned)atoi(lv) == level) {
				snprintf(
				    path, sizeof(path),
				    "/sys/devices/system/cpu/cpu%u/cache/index%u/shared_cpu_list",
				    cpu, idx);
				shared = read_small(path);
				if (shared)
					json_object_set_new(seen, shared, json_null());
				free(shared);
			}
			free(lv);
		}
	}
	n = (unsigned)json_object_size(seen);
	json_decref(seen);
	return n;
}

int lkp_topology_probe(struct lkp_topology *t, char *err, size_t errlen)
{
	cpu_set_t set;
	char *sib;
	unsigned possible = count_dir("/sys/devices/system/cpu", "cpu");

	memset(t, 0, sizeof(*t));
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		t->nr_cpu = (unsigned)CPU_COUNT(&set);
	t->nr_node = count_dir("/sys/devices/system/node", "node");
	if (!t->nr_node)
		t->nr_node = 1; /* no NUMA in the kernel: one node, as lscpu says */
	sib = read_small("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list");
	t->threads_per_core = sib ? cpulist_count(sib) : 1;
	free(sib);
	if (!t->threads_per_core)
		t->threads_per_core = 1;
	t->nr_l2 = cache_instances(2, possible);
	t->nr_l3 = cache_instances(3, possible);
	if (!t->nr_cpu) {
		snprintf(err, errlen, "cannot tell how many CPUs this process may use");
		return -1;
	}
	return 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

int lkp_threads_to_iterate(const struct lkp_topology *t, unsigned **v, size_t *n)
{
	unsigned cores_per_node, *out;
	size_t k = 0, w = 0;

	if (!t->nr_node || !t->threads_per_core)
		return -1;
	cores_per_node = t->nr_cpu / t->nr_node / t->threads_per_core;
	if (!cores_per_node)
		return -1;
	out = malloc((2 * (size_t)t->nr_node + 3) * sizeof(*out));
	if (!out)
		return -1;
	out[k++] = 1;
	for (unsigned i = 1; i <= t->nr_node; i++) {
		/* LKP divides by the L3 count; without an L3 its shell arithmetic fails and
		 * the point is lost: here it is left out. */
		if (t->nr_l3)
			out[k++] = t->nr_l2 / t->nr_l3;
		out[k++] = i * cores_per_node;
	}
	if (t->nr_cpu >= 4) {
		out[k++] = t->nr_cpu * 3 / 4;
		out[k++] = t->nr_cpu;
	}
	qsort(out, k, sizeof(*out), cmp_unsigned);
	for (size_t i = 0; i < k; i++)
		if (out[i] && (!w || out[w - 1] != out[i]))
			out[w++] = out[i];
	*v = out;
	*n = w;
	return 0;
}

double lkp_sweep_point_runtime(double runtime_s, unsigned nr_node)
{
	long long runtime = (long long)runtime_s;
	long long iterations = 3 + (long long)nr_node;
	long long duration = runtime / iterations / 2 - 5;

	return duration < 5 ? 5.0 : (double)duration;
}

/* ---- runtest.py's table ---- */

void lkp_sweep_header(FILE *out)
{
	fprintf(out, "tasks,processes,processes_idle,threads,threads_idle,linear\n");
	fprintf(out, "0,0,100,0,100,0\n");
}

void lkp_sweep_line(FILE *out, const struct lkp_sweep_point *p)
{
	fprintf(out, "%u,%llu,%0.2f,%llu,%0.2f,%llu\n", p->tasks, p->processes, p->processes_idle,
		p->threads, p->threads_idle, p->linear);
}

int lkp_sweep_read(const char *text, struct lkp_sweep_point **v, size_t *n)
{
	struct lkp_sweep_point *pts = NULL;
	size_t cnt = 0, cap = 0;

	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		struct lkp_sweep_point p = {0};
		char buf[256];
		int used = 0;

		if (len < sizeof(buf)) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			/* parse's data lines: digits, dots and commas only */
			if (len && strspn(buf, "0123456789.,") == len &&
			    sscanf(buf, "%u,%llu,%lf,%llu,%lf,%llu%n", &p.tasks, &p.processes,
				   &p.processes_idle, &p.threads, &p.threads_idle, &p.linear,
				   &used) == 6 &&
			    (size_t)used == len) {
				if (cnt == cap) {
					struct lkp_sweep_point *nv;

					cap = cap ? 2 * cap : 8;
					nv = realloc(pts, cap * sizeof(*nv));
					if (!nv) {
						free(pts);
						return -1;
					}
					pts = nv;
				}
				pts[cnt++] = p;
			}
		}
		line = end ? end + 1 : NULL;
	}
	*v = pts;
	*n = cnt;
	return 0;
}

/* A number as parse prints it, read back: the stored value is exactly what LKP stores. */
static double as_printed(const char *fmt, double x)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, x);
	return strtod(buf, NULL);
}

static void set_stat(json_t *stats, const char *suite, const char *name, json_t *v)
{
	char key[256];

	snprintf(key, sizeof(key), "%s.%s", suite, name);
	json_object_set_new(stats, key, v);
}

bool lkp_point_stats(const struct lkp_sweep_point *p, const char *suite, json_t *stats)
{
	char name[64];

	/* parse skips the "0,0,100,..." line and a line where both modes failed */
	if (!p->tasks || (!p->processes && !p->threads))
		return false;
	snprintf(name, sizeof(name), "%u.processes", p->tasks);
	set_stat(stats, suite, name, json_integer((json_int_t)p->processes));
	snprintf(name, sizeof(name), "%u.processes_idle", p->tasks);
	set_stat(stats, suite, name, json_real(as_printed("%0.2f", p->processes_idle)));
	snprintf(name, sizeof(name), "%u.threads", p->tasks);
	set_stat(stats, suite, name, json_integer((json_int_t)p->threads));
	snprintf(name, sizeof(name), "%u.threads_idle", p->tasks);
	set_stat(stats, suite, name, json_real(as_printed("%0.2f", p->threads_idle)));
	snprintf(name, sizeof(name), "%u.linear", p->tasks);
	set_stat(stats, suite, name, json_integer((json_int_t)p->linear));
	return true;
}

void lkp_sweep_stats(const struct lkp_sweep_point *v, size_t n, const char *suite, json_t *stats)
{
	double per_process = 0, per_thread = 0, workload = 0, scalability = 0;
	size_t used = 0;
	bool have_scalability = false;

	for (size_t i = 0; i < n; i++) {
		const struct lkp_sweep_point *p = &v[i];

		if (!lkp_point_stats(p, suite, stats))
			continue;
		if (p->linear && p->tasks != 1) {
			scalability = (double)p->processes / (double)p->linear;
			have_scalability = true;
		}
		per_process += (double)p->processes / p->tasks;
		per_thread += (double)p->threads / p->tasks;
		workload += (double)p->processes + (double)p->threads;
		used++;
	}
	if (have_scalability)
		set_stat(stats, suite, "scalability", json_real(as_printed("%f", scalability)));
	if (used) {
		set_stat(stats, suite, "per_process_ops",
			 json_integer((json_int_t)(per_process / (double)used)));
		set_stat(stats, suite, "per_thread_ops",
			 json_integer((json_int_t)(per_thread / (double)used)));
	}
	if (workload != 0)
		set_stat(stats, suite, "workload", json_integer((json_int_t)workload));
}

/* ---- idle time ---- */

int lkp_cpu_ticks(const char *procstat, const int *cpus, size_t n, struct cpu_ticks *out)
{
	size_t found = 0;

	memset(out, 0, sizeof(*out));
	for (const char *line = procstat; line && *line;) {
		unsigned long long f[10] = {0};
		char name[32];
		int cnt =
		    sscanf(line, "%31s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", name,
			   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9]);
		bool want = false;

		if (cnt >= 8 && !strncmp(name, "cpu", 3)) {
			if (!n) {
				want = !strcmp(name, "cpu");
			} else if (isdigit((unsigned char)name[3])) {
				int id = atoi(name + 3);

				for (size_t i = 0; i < n && !want; i++)
					want = cpus[i] == id;
			}
		}
		if (want) {
			/* user nice system idle iowait irq softirq steal guest guest_nice */
			out->idle += f[3] + f[4];
			out->busy += f[0] + f[1] + f[2] + f[5] + f[6] + f[7] + f[8] + f[9];
			found++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return found ? 0 : -1;
}

double lkp_idle_percent(const struct cpu_ticks *before, const struct cpu_ticks *after)
{
	double idle = (double)(after->idle - before->idle);
	double busy = (double)(after->busy - before->busy);

	if (idle + busy <= 0)
		return 0;
	return 100.0 * idle / (idle + busy);
}
