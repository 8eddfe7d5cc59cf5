#include "taskcount.h"
#include "../lib/text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A whole /proc file (they are small: stat under 1 KiB, status some 1.5 KiB) into buf,
 * NUL-terminated; -1 when it cannot be read (the task ended meanwhile). */
static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return 0;
}

struct proc_entry {
	pid_t pid, ppid;
	uint64_t faults;
	int member; /* 0 not yet known, 1 below the root, -1 not */
};

/* ppid and the four fault counts of /proc/PID/stat.  The name in parentheses may hold
 * spaces and parentheses itself: the fields start after the last ')'. */
static int parse_stat(const char *text, struct proc_entry *e)
{
	const char *p = strrchr(text, ')');
	unsigned long long f[13];
	int ppid;

	/* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt */
	if (!p || sscanf(p + 1, " %*c %d %*d %*d %*d %*d %*u %llu %llu %llu %llu", &ppid, &f[0],
			 &f[1], &f[2], &f[3]) != 5)
		return -1;
	e->ppid = ppid;
	e->faults = f[0] + f[1] + f[2] + f[3];
	return 0;
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = ((const struct proc_entry *)a)->pid, y = ((const struct proc_entry *)b)->pid;

	return (x > y) - (x < y);
}

static int by_id(const void *a, const void *b)
{
	pid_t x = ((const struct task_value *)a)->id, y = ((const struct task_value *)b)->id;

	return (x > y) - (x < y);
}

/* Every process of the machine with its parent. */
static int list_procs(const char *proc_root, struct proc_entry **out, size_t *n)
{
	DIR *d = opendir(proc_root);
	struct proc_entry *v = NULL;
	size_t cap = 0;
	struct dirent *de;
	char path[4096], text[1024];

	*n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		struct proc_entry e = {0};

		if (!text_is_digits(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s/stat", proc_root, de->d_name);
		e.pid = (pid_t)atoi(de->d_name);
		if (read_small(path, text, sizeof(text)) || parse_stat(text, &e))
			continue; /* ended since readdir saw it */
		if (*n == cap) {
			struct proc_entry *g = realloc(v, (cap = cap ? 2 * cap : 512) * sizeof(*v));

			if (!g) {
				free(v);
				closedir(d);
				errno = ENOMEM;
				return -1;
			}
			v = g;
		}
		v[(*n)++] = e;
	}
	closedir(d);
	qsort(v, *n, sizeof(*v), by_pid);
	*out = v;
	return 0;
}

static struct proc_entry *find_proc(struct proc_entry *v, size_t n, pid_t pid)
{
	struct proc_entry key = {.pid = pid};

	return bsearch(&key, v, n, sizeof(*v), by_pid);
}

/* Whether e is root or below it, remembered along the way up. */
static int member(struct proc_entry *v, size_t n, struct proc_entry *e, pid_t root)
{
	struct proc_entry *up;
	int m;

	if (e->member)
		return e->member;
	if (e->pid == root)
		m = 1;
	else if (e->ppid <= 0 || e->ppid == e->pid || !(up = find_proc(v, n, e->ppid)))
		m = -1;
	else
		m = member(v, n, up, root);
	return e->member = m;
}

static int push(struct task_value **v, size_t *n, size_t *cap, pid_t id, uint64_t value)
{
	if (*n == *cap) {
		struct task_value *g = realloc(*v, (*cap = *cap ? 2 * *cap : 64) * sizeof(**v));

		if (!g)
			return -1;
		*v = g;
	}
	(*v)[(*n)++] = (struct task_value){.id = id, .v = value};
	return 0;
}

/* voluntary_ctxt_switches + nonvoluntary_ctxt_switches of one status file. */
static uint64_t switches(const char *text)
{
	static const char *const keys[] = {"\nvoluntary_ctxt_switches:",
					   "\nnonvoluntary_ctxt_switches:"};
	uint64_t sum = 0;

	for (size_t k = 0; k < 2; k++) {
		const char *p = strstr(text, keys[k]);

		if (p)
			sum += strtoull(p + strlen(keys[k]), NULL, 10);
	}
	return sum;
}

/* The threads of process pid and their switches. */
static int add_threads(const char *proc_root, pid_t pid, struct task_snapshot *s, size_t *cap)
{
	char path[4096], text[8192];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%d/task", proc_root, (int)pid);
	if (!(d = opendir(path)))
		return 0; /* ended meanwhile */
	while ((de = readdir(d))) {
		if (!text_is_digits(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%d/task/%s/status", proc_root, (int)pid,
			 de->d_name);
		if (read_small(path, text, sizeof(text)))
			continue;
		if (push(&s->threads, &s->nthreads, cap, (pid_t)atoi(de->d_name),
			 switches(text))) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

int task_snapshot_take(const char *proc_root, pid_t root, struct task_snapshot *s)
{
	struct proc_entry *v;
	size_t n, pcap = 0, tcap = 0;
	int found = 0;

	memset(s, 0, sizeof(*s));
	if (list_procs(proc_root, &v, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (member(v, n, &v[i], root) != 1)
			continue;
		found = 1;
		if (push(&s->procs, &s->nprocs, &pcap, v[i].pid, v[i].faults) ||
		    add_threads(proc_root, v[i].pid, s, &tcap)) {
			free(v);
			task_snapshot_free(s);
			errno = ENOMEM;
			return -1;
		}
	}
	free(v);
	if (!found) {
		task_snapshot_free(s);
		errno = ESRCH;
		return -1;
	}
	qsort(s->threads, s->nthreads, sizeof(*s->threads), by_id);
	return 0; /* procs are in pid order already */
}

/* Σ over b of each entry's growth since a (all of it when a has none: new). */
static uint64_t growth(const struct task_value *a, size_t na, const struct task_value *b,
		       size_t nb)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < nb; i++) {
		const struct task_value *was = bsearch(&b[i], a, na, sizeof(*a), by_id);

		/* Less than before: the id was reused by a new task. */
		sum += was && was->v <= b[i].v ? b[i].v - was->v : b[i].v;
	}
	return sum;
}

void task_snapshot_delta(const struct task_snapshot *a, const struct task_snapshot *b,
			 uint64_t *pgfault, uint64_t *ctxt)
{
	*pgfault = growth(a->procs, a->nprocs, b->procs, b->nprocs);
	*ctxt = growth(a->threads, a->nthreads, b->threads, b->nthreads);
}

void task_snapshot_free(struct task_snapshot *s)
{
	free(s->procs);
	free(s->threads);
	memset(s, 0, sizeof(*s));
}
