#include "load.h"
#include "../lib/file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* /proc/stat grows with the CPUs and interrupts: a line per CPU, one long intr line. */
#define PROC_STAT_MAX (16u << 20)

int cpu_times_parse(const char *text, struct cpu_times *t)
{
	const char *p = strstr(text, "cpu ");
	const char *r = strstr(text, "\nprocs_running ");

	memset(t, 0, sizeof(*t));
	if (!p || (p != text && p[-1] != '\n'))
		return -1;
	p += 4;
	/* user nice system idle iowait irq softirq steal guest guest_nice: guest time is
	 * already counted in user and nice, so the total stops at steal. */
	for (int field = 0; field < 8; field++) {
		char *end;
		unsigned long long v = strtoull(p, &end, 10);

		if (end == p)
			break;
		t->total += v;
		if (field == 7)
			t->steal = v;
		p = end;
	}
	if (r)
		t->procs_running = (unsigned)strtoul(r + 15, NULL, 10);
	t->ok = t->total > 0;
	return t->ok ? 0 : -1;
}

static void read_times(const struct machine_load *l, struct cpu_times *t)
{
	char path[4096], *text = NULL;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/stat", l->proc_root);
	if (file_read(path, PROC_STAT_MAX, &text, NULL, NULL, 0) == 0)
		cpu_times_parse(text, t);
	free(text);
}

void machine_load_init(struct machine_load *l, const char *proc_root, const char *sys_root,
		       unsigned nr_cpus, unsigned nr_task)
{
	memset(l, 0, sizeof(*l));
	l->proc_root = proc_root ? proc_root : "/proc";
	l->sys_root = sys_root ? sys_root : "/sys";
	l->nr_cpus = nr_cpus ? nr_cpus : 1;
	l->nr_task = nr_task;
	l->steal_pct = NAN;
	l->cpu_mhz_mean = NAN;
}

void machine_load_start(struct machine_load *l)
{
	read_times(l, &l->start);
}

void machine_load_sample(struct machine_load *l)
{
	struct cpu_times t;
	double others;

	read_times(l, &t);
	if (!t.ok)
		return;
	/* procs_running counts the copies that are running and the runner reading the file;
	 * what is left competes with them. */
	others = (double)t.procs_running - (double)l->nr_task - 1;
	if (others < 0)
		others = 0;
	l->runnable_sum += others;
	if (others > l->runnable_max)
		l->runnable_max = others;
	l->samples++;
}

/* The mean of every CPU's scaling_cur_freq, in MHz; NAN when none is readable. */
static double cpu_mhz(const struct machine_load *l)
{
	double sum = 0;
	unsigned n = 0;

	for (unsigned c = 0; c < l->nr_cpus; c++) {
		char path[4096], *text = NULL;

		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%u/cpufreq/scaling_cur_freq",
			 l->sys_root, c);
		if (file_read(path, 64, &text, NULL, NULL, 0) == 0 && strtod(text, NULL) > 0) {
			sum += strtod(text, NULL) / 1000.0;
			n++;
		}
		free(text);
	}
	return n ? sum / n : NAN;
}

void machine_load_stop(struct machine_load *l)
{
	struct cpu_times end;

	read_times(l, &end);
	if (l->start.ok && end.ok && end.total > l->start.total)
		l->steal_pct = 100.0 * (double)(end.steal - l->start.steal) /
			       (double)(end.total - l->start.total);
	l->cpu_mhz_mean = cpu_mhz(l);
	machine_load_decide(l);
}

void machine_load_decide(struct machine_load *l)
{
	double mean = l->samples ? l->runnable_sum / (double)l->samples : 0;
	double free_cpus = l->nr_task < l->nr_cpus ? (double)(l->nr_cpus - l->nr_task) : 0;
	size_t len = 0;

	l->busy = false;
	l->reason[0] = '\0';
	if (l->samples && mean >= free_cpus + 0.5) {
		l->busy = true;
		len += (size_t)snprintf(l->reason, sizeof(l->reason),
					"%.1f runnable tasks on %u CPU%s besides the testcase's %u "
					"cop%s",
					mean, l->nr_cpus, l->nr_cpus == 1 ? "" : "s", l->nr_task,
					l->nr_task == 1 ? "y" : "ies");
	}
	if (l->steal_pct > 5) {
		l->busy = true;
		if (len < sizeof(l->reason))
			snprintf(l->reason + len, sizeof(l->reason) - len,
				 "%s%.1f%% of the CPU time stolen by the hypervisor",
				 len ? "; " : "", l->steal_pct);
	}
}

static json_t *number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *machine_load_json(const struct machine_load *l)
{
	json_t *o = json_object();

	json_object_set_new(o, "runnable_mean",
			    l->samples ? json_real(l->runnable_sum / (double)l->samples)
				       : json_null());
	json_object_set_new(o, "runnable_max",
			    l->samples ? json_real(l->runnable_max) : json_null());
	json_object_set_new(o, "samples", json_integer((json_int_t)l->samples));
	json_object_set_new(o, "steal_pct", number_or_null(l->steal_pct));
	json_object_set_new(o, "cpu_mhz_mean", number_or_null(l->cpu_mhz_mean));
	json_object_set_new(o, "nr_cpus", json_integer(l->nr_cpus));
	json_object_set_new(o, "nr_task", json_integer(l->nr_task));
	json_object_set_new(o, "busy", json_boolean(l->busy));
	if (l->busy)
		json_object_set_new(o, "reason", json_string(l->reason));
	return o;
}
