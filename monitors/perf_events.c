/* perf events by name on every CPU: libpfm4 encoding, perf_event_open, group reads. */
#include "perf_events.h"
#include "perf_metrics.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

/* A group is a leader and at most this many members (the pairs below have one). */
#define GROUP_MAX 4

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status;

static void pfm_init_once(void)
{
	pfm_status = pfm_initialize();
}

int perf_pfm_init(char *err, size_t errlen)
{
	pthread_once(&pfm_once, pfm_init_once);
	if (pfm_status == PFM_SUCCESS)
		return 0;
	snprintf(err, errlen, "libpfm: pfm_initialize: %s", pfm_strerror(pfm_status));
	return -1;
}

int perf_parse_cpu_list(const char *list, int **cpus, size_t *nr_cpus)
{
	int *out = NULL;
	size_t n = 0, cap = 0;
	const char *p = list;

	while (*p && *p != '\n') {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0)
			goto bad;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				goto bad;
			p = end;
		}
		for (long c = lo; c <= hi; c++) {
			if (n == cap) {
				int *grown;

				cap = cap ? 2 * cap : 64;
				grown = realloc(out, cap * sizeof(*out));
				if (!grown)
					goto bad;
				out = grown;
			}
			out[n++] = (int)c;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			goto bad;
	}
	if (!n)
		goto bad;
	*cpus = out;
	*nr_cpus = n;
	return 0;
bad:
	free(out);
	return -1;
}

static bool is_hardware(const struct perf_event_attr *attr)
{
	return attr->type != PERF_TYPE_SOFTWARE && attr->type != PERF_TYPE_TRACEPOINT &&
	       attr->type != PERF_TYPE_BREAKPOINT;
}

static void encode(struct perf_counter *c)
{
	pfm_perf_encode_arg_t arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	arg.attr = &c->attr;
	arg.size = sizeof(arg);
	/* User and kernel: the robot's perf stat -a counts both. */
	ret = pfm_get_os_event_encoding(c->name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		snprintf(c->reason, sizeof(c->reason), "libpfm: %s", pfm_strerror(ret));
		return;
	}
	c->encoded = true;
	c->hardware = is_hardware(&c->attr);
	/* perf stat shows the clocks in msec; the robot's numbers are in its units. */
	if (c->attr.type == PERF_TYPE_SOFTWARE && (c->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
						   c->attr.config == PERF_COUNT_SW_TASK_CLOCK))
		c->unit = 1e-6;
}

/* The pairs whose ratios LKP reports: cycles/instructions, cache references/misses, branches/
 * misses, and every cache event's accesses/misses (dTLB, iTLB, node, L1...). */
static bool leads(const struct perf_event_attr *lead, const struct perf_event_attr *member)
{
	const uint64_t result_mask = 0xffULL << 16;
	uint64_t l = lead->config, m = member->config;

	if (lead->type != member->type)
		return false;
	if (lead->type == PERF_TYPE_HARDWARE) {
		/* The high half names the PMU on hybrid machines. */
		if (l >> 32 != m >> 32)
			return false;
		l &= 0xffffffff;
		m &= 0xffffffff;
		return (l == PERF_COUNT_HW_CPU_CYCLES && m == PERF_COUNT_HW_INSTRUCTIONS) ||
		       (l == PERF_COUNT_HW_CACHE_REFERENCES && m == PERF_COUNT_HW_CACHE_MISSES) ||
		       (l == PERF_COUNT_HW_BRANCH_INSTRUCTIONS && m == PERF_COUNT_HW_BRANCH_MISSES);
	}
	if (lead->type == PERF_TYPE_HW_CACHE)
		return (l & ~result_mask) == (m & ~result_mask) &&
		       (l & result_mask) >> 16 == PERF_COUNT_HW_CACHE_RESULT_ACCESS &&
		       (m & result_mask) >> 16 == PERF_COUNT_HW_CACHE_RESULT_MISS;
	return false;
}

static void pair_groups(struct perf_event_set *set)
{
	for (size_t i = 0; i < set->nr_events; i++) {
		struct perf_counter *c = &set->ev[i];

		if (!c->encoded)
			continue;
		for (size_t j = 0; j < i; j++) {
			struct perf_counter *l = &set->ev[j];
			bool taken = false;

			if (!l->encoded || l->leader != j)
				continue;
			for (size_t k = j + 1; k < i; k++)
				taken |= set->ev[k].leader == j;
			if (taken || !(leads(&l->attr, &c->attr) || leads(&c->attr, &l->attr)))
				continue;
			c->leader = j;
			c->slot = 1;
			break;
		}
	}
}

int perf_set_init(struct perf_event_set *set, const char *const *names, size_t nr_names,
		  const int *cpus, size_t nr_cpus)
{
	memset(set, 0, sizeof(*set));
	set->ev = calloc(nr_names ? nr_names : 1, sizeof(*set->ev));
	set->cpus = malloc((nr_cpus ? nr_cpus : 1) * sizeof(*set->cpus));
	if (!set->ev || !set->cpus)
		goto nomem;
	memcpy(set->cpus, cpus, nr_cpus * sizeof(*cpus));
	set->nr_cpus = nr_cpus;
	set->nr_events = nr_names;
	for (size_t i = 0; i < nr_names; i++) {
		struct perf_counter *c = &set->ev[i];

		c->leader = i;
		c->unit = 1;
		c->name = strdup(names[i]);
		c->fd = malloc((nr_cpus ? nr_cpus : 1) * sizeof(*c->fd));
		for (size_t k = 0; c->fd && k < nr_cpus; k++)
			c->fd[k] = -1;
		c->last = calloc(nr_cpus ? nr_cpus : 1, sizeof(*c->last));
		if (!c->name || !c->fd || !c->last)
			goto nomem;
		encode(c);
	}
	pair_groups(set);
	return 0;
nomem:
	perf_set_free(set);
	return -1;
}

/* 23 events on a few hundred CPUs outgrow the usual 1024 descriptors; perf raises the soft
 * limit to the hard one in the same case. */
static bool raise_nofile(void)
{
	static bool tried;
	struct rlimit rl;

	if (tried || getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return false;
	tried = true;
	rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

static int open_on(const struct perf_counter *c, int cpu, int group_fd)
{
	struct perf_event_attr attr = c->attr;
	int fd;

	attr.size = sizeof(attr);
	attr.read_format =
	    PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.disabled = 1;
	attr.inherit = 0;
	/* CLOEXEC: the testcase's children must not inherit a few thousand counters. */
	fd = perf_event_open(&attr, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EMFILE && raise_nofile())
		fd = perf_event_open(&attr, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd;
}

static void close_all(struct perf_counter *c, size_t nr_cpus)
{
	for (size_t k = 0; k < nr_cpus; k++) {
		if (c->fd[k] >= 0)
			close(c->fd[k]);
		c->fd[k] = -1;
	}
}

static bool open_everywhere(struct perf_event_set *set, size_t i)
{
	struct perf_counter *c = &set->ev[i];
	const struct perf_counter *l = &set->ev[c->leader];

	for (size_t k = 0; k < set->nr_cpus; k++) {
		c->fd[k] = open_on(c, set->cpus[k], c->leader == i ? -1 : l->fd[k]);
		if (c->fd[k] < 0) {
			c->err = errno;
			snprintf(c->reason, sizeof(c->reason), "perf_event_open on CPU %d: %s",
				 set->cpus[k], strerror(c->err));
			close_all(c, set->nr_cpus);
			return false;
		}
	}
	c->supported = true;
	return true;
}

size_t perf_set_open(struct perf_event_set *set)
{
	size_t nr = 0;

	for (size_t i = 0; i < set->nr_events; i++)
		if (set->ev[i].encoded && set->ev[i].leader == i)
			nr += open_everywhere(set, i);
	for (size_t i = 0; i < set->nr_events; i++) {
		struct perf_counter *c = &set->ev[i];

		if (!c->encoded || c->leader == i)
			continue;
		if (!set->ev[c->leader].supported) {
			c->leader = i;
			c->slot = 0;
		}
		nr += open_everywhere(set, i);
	}
	return nr;
}

/* Fold one CPU's group read into the members' deltas. */
static void take_reading(struct perf_event_set *set, size_t leader, size_t k, const uint64_t *buf,
			 double *delta, double *raw_sum)
{
	uint64_t nr = buf[0];

	for (size_t i = leader; i < set->nr_events; i++) {
		struct perf_counter *c = &set->ev[i];
		struct perf_reading cur;
		double scaled;

		if (c->leader != leader || !c->supported || c->slot >= nr)
			continue;
		cur.value = buf[3 + c->slot];
		cur.enabled = buf[1];
		cur.running = buf[2];
		if (delta &&
		    perf_scale(cur.value - c->last[k].value, cur.enabled - c->last[k].enabled,
			       cur.running - c->last[k].running, &scaled, NULL) == 0) {
			if (isnan(delta[i])) {
				delta[i] = 0;
				raw_sum[i] = 0;
			}
			delta[i] += scaled * c->unit;
			raw_sum[i] += (double)(cur.value - c->last[k].value) * c->unit;
		}
		c->last[k] = cur;
	}
}

void perf_set_read(struct perf_event_set *set, double *delta, double *factor)
{
	double *raw_sum = NULL;

	if (delta) {
		raw_sum = calloc(set->nr_events ? set->nr_events : 1, sizeof(*raw_sum));
		for (size_t i = 0; i < set->nr_events; i++)
			delta[i] = NAN;
		if (!raw_sum)
			return;
	}
	for (size_t i = 0; i < set->nr_events; i++) {
		const struct perf_counter *c = &set->ev[i];

		if (!c->supported || c->leader != i)
			continue;
		for (size_t k = 0; k < set->nr_cpus; k++) {
			uint64_t buf[3 + GROUP_MAX];
			ssize_t len = read(c->fd[k], buf, sizeof(buf));

			/* A failed read leaves this CPU out of the interval; the next one spans
			 * both from the last good reading. */
			if (len < (ssize_t)(4 * sizeof(uint64_t)) ||
			    len < (ssize_t)((3 + buf[0]) * sizeof(uint64_t)))
				continue;
			take_reading(set, i, k, buf, delta, raw_sum);
		}
	}
	if (delta && factor)
		for (size_t i = 0; i < set->nr_events; i++)
			factor[i] = !isnan(delta[i]) && raw_sum[i] > 0 ? delta[i] / raw_sum[i] : 1;
	free(raw_sum);
}

void perf_set_enable(struct perf_event_set *set)
{
	for (size_t i = 0; i < set->nr_events; i++) {
		const struct perf_counter *c = &set->ev[i];

		if (!c->supported || c->leader != i)
			continue;
		for (size_t k = 0; k < set->nr_cpus; k++)
			ioctl(c->fd[k], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	}
	perf_set_read(set, NULL, NULL);
}

void perf_set_free(struct perf_event_set *set)
{
	if (!set->ev)
		goto out;
	for (size_t i = 0; i < set->nr_events; i++) {
		struct perf_counter *c = &set->ev[i];

		if (c->supported && c->leader == i)
			for (size_t k = 0; k < set->nr_cpus; k++)
				ioctl(c->fd[k], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	}
	/* Members before leaders, so no member outlives its group. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < set->nr_events; i++) {
			struct perf_counter *c = &set->ev[i];

			if (c->fd && (c->leader == i) == pass)
				close_all(c, set->nr_cpus);
		}
	for (size_t i = 0; i < set->nr_events; i++) {
		free(set->ev[i].name);
		free(set->ev[i].fd);
		free(set->ev[i].last);
	}
	free(set->ev);
out:
	free(set->cpus);
	memset(set, 0, sizeof(*set));
}

void perf_paranoid_value(const char *proc_root, char *value, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(value, len, "?");
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid",
		 proc_root ? proc_root : "/proc");
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(value, (int)len, f))
		value[strcspn(value, "\n")] = '\0';
	else
		snprintf(value, len, "?");
	fclose(f);
}
