/* cgroup v2 for a run (cgroup.h).
 *
 * Every run's cgroup is <hierarchy>/scalebench/run.<pid>.<n>, whatever cgroup scalebench
 * itself is in: cgroup v2 lets a cgroup with processes in it enable no controller for its
 * children (except the root), so a cgroup beside scalebench's own could get none; the root's
 * children can.  The parent "scalebench" stays: removing it would race with another runner
 * making its run's cgroup in it.  A runner killed by SIGKILL leaves its run's cgroup behind
 * (its copies die with it, PR_SET_PDEATHSIG); the next plan removes every run.<pid>.* whose
 * pid is gone, as the store sweeps the temp run directories of dead writers. */
#include "cgroup.h"
#include "../core/core.h"
#include "../lib/file.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PARENT "scalebench"

/* ---- the job's map, without the machine ------------------------------------------------ */

enum value_kind {
	V_BYTES,    /* max, 512M, 2G, or a percentage of memory: 90% */
	V_BOOL,	    /* 0 or 1 */
	V_MAX_NUM,  /* max or a number */
	V_WEIGHT,   /* 1..10000 */
	V_NICE,	    /* -20..19 */
	V_CPU_MAX,  /* "max" or a quota, then optionally a period: "50000 100000" */
	V_LIST,	    /* a list of CPUs or nodes: 0-3,8 */
	V_PARTITION, /* member, root, isolated */
	V_TEXT,	    /* one line the kernel checks (io.max "8:0 rbps=1M", rdma.max ...) */
};

struct key_rule {
	const char *key;
	enum value_kind kind;
};

/* The writable interface files of cgroup v2 controllers (Documentation/admin-guide/
 * cgroup-v2.rst); hugetlb.<size>.max and .rsvd.max are matched apart. */
static const struct key_rule key_rules[] = {
    {"memory.max", V_BYTES},
    {"memory.high", V_BYTES},
    {"memory.low", V_BYTES},
    {"memory.min", V_BYTES},
    {"memory.swap.max", V_BYTES},
    {"memory.swap.high", V_BYTES},
    {"memory.zswap.max", V_BYTES},
    {"memory.zswap.writeback", V_BOOL},
    {"memory.oom.group", V_BOOL},
    {"pids.max", V_MAX_NUM},
    {"cpu.weight", V_WEIGHT},
    {"cpu.weight.nice", V_NICE},
    {"cpu.max", V_CPU_MAX},
    {"cpu.max.burst", V_MAX_NUM},
    {"cpu.idle", V_BOOL},
    {"cpu.uclamp.min", V_TEXT},
    {"cpu.uclamp.max", V_TEXT},
    {"cpuset.cpus", V_LIST},
    {"cpuset.mems", V_LIST},
    {"cpuset.cpus.exclusive", V_LIST},
    {"cpuset.cpus.partition", V_PARTITION},
    {"io.max", V_TEXT},
    {"io.weight", V_TEXT},
    {"io.latency", V_TEXT},
    {"io.bfq.weight", V_TEXT},
    {"rdma.max", V_TEXT},
    {"misc.max", V_TEXT},
    {"dmem.max", V_TEXT},
    {"dmem.min", V_TEXT},
    {"dmem.low", V_TEXT},
};

static const char *const kind_expected[] = {
    [V_BYTES] = "max, a size in bytes (512M, 2G) or a percentage of memory (90%)",
    [V_BOOL] = "0 or 1",
    [V_MAX_NUM] = "max or a number",
    [V_WEIGHT] = "a weight from 1 to 10000",
    [V_NICE] = "a nice value from -20 to 19",
    [V_CPU_MAX] = "max or a quota in microseconds, then optionally a period (50000 100000)",
    [V_LIST] = "a list of numbers and ranges (0-3,8)",
    [V_PARTITION] = "member, root or isolated",
    [V_TEXT] = "one line of printable text",
};

/* LKP's setup/cgroup2 options that are not interface files. */
static bool is_option_key(const char *key)
{
	return !strcmp(key, "cg_count") || !strcmp(key, "cg_bind");
}

static bool hugetlb_key(const char *key)
{
	size_t n = strlen(key);
	const char *size = key + strlen("hugetlb.");
	size_t len;

	if (strncmp(key, "hugetlb.", 8))
		return false;
	if (n > 9 + 4 && !strcmp(key + n - 9, ".rsvd.max"))
		len = (size_t)(key + n - 9 - size);
	else if (n > 4 + 8 && !strcmp(key + n - 4, ".max"))
		len = (size_t)(key + n - 4 - size);
	else
		return false;
	/* hugetlb.2MB.max, hugetlb.1GB.rsvd.max: the page size names the file. */
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)size[i]))
			return false;
	return len > 0;
}

static const struct key_rule *rule_of(const char *key)
{
	static const struct key_rule hugetlb = {"hugetlb.<size>.max", V_BYTES};

	for (size_t i = 0; i < sizeof(key_rules) / sizeof(key_rules[0]); i++)
		if (!strcmp(key_rules[i].key, key))
			return &key_rules[i];
	return hugetlb_key(key) ? &hugetlb : NULL;
}

/* A number of at most max, all digits; the end of what was read in *end. */
static bool parse_u64(const char *s, const char **end, uint64_t *v)
{
	uint64_t x = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*end = p;
	*v = x;
	return true;
}

static bool parse_int_range(const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return !errno && end != s && !*end && !isspace((unsigned char)*s) && v >= lo && v <= hi;
}

/* A size as the kernel's memparse reads it: digits and one optional K, M, G, T, P or E. */
static bool parse_size(const char *s, uint64_t *bytes)
{
	static const char units[] = "kmgtpe";
	const char *end, *u;
	uint64_t v;

	if (!parse_u64(s, &end, &v))
		return false;
	if (!*end) {
		*bytes = v;
		return true;
	}
	if (end[1] || !(u = strchr(units, tolower((unsigned char)*end))))
		return false;
	for (const char *k = units; k <= u; k++) {
		if (v > UINT64_MAX / 1024)
			return false;
		v *= 1024;
	}
	*bytes = v;
	return true;
}

/* "90%", "12.5%": a percentage from 0 to 100 in *pct. */
static bool parse_percent(const char *s, double *pct)
{
	size_t n = strlen(s);
	char *end;

	if (n < 2 || s[n - 1] != '%' || !(isdigit((unsigned char)*s)))
		return false;
	*pct = strtod(s, &end);
	return end == s + n - 1 && *pct >= 0 && *pct <= 100;
}

static bool valid_list(const char *s)
{
	/* "0-3,8", and empty (cpuset.cpus "" means the parent's). */
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != ',' && *p != '-')
			return false;
	return true;
}

static bool valid_text(const char *s)
{
	if (strlen(s) > 4096)
		return false;
	for (const char *p = s; *p; p++)
		if (!isprint((unsigned char)*p))
			return false;
	return true;
}

static bool valid_value(enum value_kind kind, const char *s)
{
	uint64_t v;
	double pct;
	const char *end;

	switch (kind) {
	case V_BYTES:
		return !strcmp(s, "max") || parse_size(s, &v) || parse_percent(s, &pct);
	case V_BOOL:
		return !strcmp(s, "0") || !strcmp(s, "1");
	case V_MAX_NUM:
		return !strcmp(s, "max") || (parse_u64(s, &end, &v) && !*end);
	case V_WEIGHT:
		return parse_int_range(s, 1, 10000);
	case V_NICE:
		return parse_int_range(s, -20, 19);
	case V_CPU_MAX:
		if (!strncmp(s, "max", 3))
			end = s + 3;
		else if (!parse_u64(s, &end, &v))
			return false;
		if (!*end)
			return true;
		return *end == ' ' && parse_u64(end + 1, &end, &v) && !*end;
	case V_LIST:
		return valid_list(s);
	case V_PARTITION:
		return !strcmp(s, "member") || !strcmp(s, "root") || !strcmp(s, "isolated");
	case V_TEXT:
		return valid_text(s);
	}
	return false;
}

static int failf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int failf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A value as the job wrote it: a string, a number, or nothing (NULL). */
static int value_text(const char *key, const json_t *v, char *buf, size_t len, const char **out,
		      char *err, size_t errlen)
{
	if (json_is_null(v)) {
		*out = NULL;
	} else if (json_is_string(v)) {
		*out = json_string_value(v);
	} else if (json_is_integer(v)) {
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
		*out = buf;
	} else {
		return failf(err, errlen, "cgroup2.%s: expected one value, got a %s", key,
			     json_is_array(v) ? "list" : json_is_object(v) ? "map" : "boolean");
	}
	if (*out && !**out)
		*out = NULL; /* LKP skips an empty value */
	return 0;
}

int cgroup_spec_check(const json_t *spec, char *err, size_t errlen)
{
	const char *key;
	json_t *v;

	if (json_is_null(spec) || !spec)
		return 0;
	if (!json_is_object(spec))
		return failf(err, errlen,
			     "cgroup2: expected a map of cgroup v2 settings (memory.high: 90%%, "
			     "pids.max: 10000), got a %s",
			     json_is_array(spec) ? "list" : "single value");
	json_object_foreach ((json_t *)spec, key, v) {
		const struct key_rule *r = rule_of(key);
		const char *s;
		char num[32];

		if (value_text(key, v, num, sizeof(num), &s, err, errlen))
			return -1;
		if (is_option_key(key)) {
			if (!strcmp(key, "cg_count") && s && strcmp(s, "1"))
				return failf(err, errlen,
					     "cgroup2.cg_count '%s': scalebench runs the copies in one "
					     "cgroup; expected 1 (LKP's multi-cgroup jobs run one "
					     "instance per cgroup, which scalebench does not do)",
					     s);
			continue;
		}
		if (!r)
			return failf(err, errlen,
				     "cgroup2.%s: not a cgroup v2 interface file scalebench can set "
				     "(expected a controller's file such as memory.high, memory.max, "
				     "pids.max, cpu.max, cpu.weight, cpuset.cpus, io.max, "
				     "hugetlb.2MB.max; or cg_count, cg_bind)",
				     key);
		if (s && !valid_value(r->kind, s))
			return failf(err, errlen, "cgroup2.%s '%s': expected %s", key, s,
				     kind_expected[r->kind]);
	}
	return 0;
}

/* ---- the machine ----------------------------------------------------------------------- */

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*w++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
}

/* The mount point of the first mount of fstype whose super options hold option (any when
 * NULL), from /proc/self/mountinfo; false when there is none. */
static bool find_mount(const char *fstype, const char *option, char *out, size_t len)
{
	char *buf, *line, *save = NULL;
	bool found = false;

	if (file_read("/proc/self/mountinfo", 1 << 24, &buf, NULL, NULL, 0))
		return false;
	for (line = strtok_r(buf, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		/* id parent maj:min root mountpoint options [optional...] - fstype source super */
		char *sep = strstr(line, " - "), *f[6], *p = line, *type, *super, *s2 = NULL;
		int n = 0;

		if (!sep)
			continue;
		*sep = '\0';
		for (char *t = strtok_r(p, " ", &s2); t && n < 6; t = strtok_r(NULL, " ", &s2))
			f[n++] = t;
		type = strtok_r(sep + 3, " ", &s2);
		strtok_r(NULL, " ", &s2); /* source */
		super = strtok_r(NULL, " ", &s2);
		if (n < 5 || !type || strcmp(type, fstype))
			continue;
		if (option) {
			char *o2 = NULL;
			bool has = false;

			for (char *o = super ? strtok_r(super, ",", &o2) : NULL; o && !has;
			     o = strtok_r(NULL, ",", &o2))
				has = !strcmp(o, option);
			if (!has)
				continue;
		}
		unescape(f[4]);
		found = (size_t)snprintf(out, len, "%s", f[4]) < len;
	}
	free(buf);
	return found;
}

/* The word list in a file such as cgroup.controllers holds word. */
static bool file_has_word(const char *path, const char *word)
{
	char *buf, *save = NULL;
	bool has = false;

	if (file_read(path, 1 << 16, &buf, NULL, NULL, 0))
		return false;
	for (char *w = strtok_r(buf, " \n", &save); w && !has; w = strtok_r(NULL, " \n", &save))
		has = !strcmp(w, word);
	free(buf);
	return has;
}

/* cgroup v1's name of a controller (/proc/cgroups, v1 mount options). */
static const char *v1_name(const char *controller)
{
	return strcmp(controller, "io") ? controller : "blkio";
}

/* Why the hierarchy at mount cannot enable controller: a sentence for the note. */
static void why_missing(const char *mount, const char *controller, char *why, size_t len)
{
	const char *v1 = v1_name(controller);
	char *buf, *save = NULL, v1mount[PATH_MAX];
	bool listed = false;
	int hier = 0, enabled = 1;

	if (!file_read("/proc/cgroups", 1 << 16, &buf, NULL, NULL, 0)) {
		for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char name[64];
			int h, nr, en;

			if (sscanf(l, "%63s %d %d %d", name, &h, &nr, &en) == 4 &&
			    !strcmp(name, v1)) {
				listed = true;
				hier = h;
				enabled = en;
			}
		}
		free(buf);
	}
	if (find_mount("cgroup", v1, v1mount, sizeof(v1mount)))
		snprintf(why, len,
			 "the %s controller is bound to the cgroup v1 hierarchy mounted at %s, and a "
			 "controller can be in one hierarchy only, so cgroup v2 (%s) cannot enable it",
			 controller, v1mount, mount);
	else if (listed && hier != 0)
		snprintf(why, len,
			 "the %s controller is bound to cgroup v1 hierarchy %d (/proc/cgroups), and "
			 "a controller can be in one hierarchy only, so cgroup v2 (%s) cannot enable "
			 "it",
			 controller, hier, mount);
	else if (listed && !enabled)
		snprintf(why, len, "the %s controller is disabled (cgroup_disable= on the kernel "
			 "command line)", controller);
	else if (!listed && strcmp(controller, "misc") && strcmp(controller, "dmem"))
		snprintf(why, len, "the %s controller is not in this kernel (not in /proc/cgroups "
			 "nor in %s/cgroup.controllers)", controller, mount);
	else
		snprintf(why, len, "%s/cgroup.controllers does not offer the %s controller", mount,
			 controller);
}

static int add_missing(struct cgroup_run *cg, const char *controller, const char *why)
{
	struct cgroup_missing *m;

	for (size_t i = 0; i < cg->n_missing; i++)
		if (!strcmp(cg->missing[i].controller, controller))
			return 0;
	m = realloc(cg->missing, (cg->n_missing + 1) * sizeof(*m));
	if (!m)
		return -1;
	cg->missing = m;
	m[cg->n_missing].controller = strdup(controller);
	m[cg->n_missing].why = strdup(why);
	if (!m[cg->n_missing].controller || !m[cg->n_missing].why) {
		free(m[cg->n_missing].controller);
		free(m[cg->n_missing].why);
		return -1;
	}
	cg->n_missing++;
	return 0;
}

static bool is_missing(const struct cgroup_run *cg, const char *controller)
{
	for (size_t i = 0; i < cg->n_missing; i++)
		if (!strcmp(cg->missing[i].controller, controller))
			return true;
	return false;
}

/* The controller of a key: its name up to the first dot. */
static void controller_of(const char *key, char *out, size_t len)
{
	size_t n = strcspn(key, ".");

	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), key);
}

static bool mem_total_bytes(uint64_t *bytes)
{
	char *buf, *p;
	unsigned long long kb;
	bool ok = false;

	if (file_read("/proc/meminfo", 1 << 20, &buf, NULL, NULL, 0))
		return false;
	p = strstr(buf, "MemTotal:");
	if (p && sscanf(p, "MemTotal: %llu kB", &kb) == 1) {
		*bytes = (uint64_t)kb * 1024;
		ok = true;
	}
	free(buf);
	return ok;
}

int cgroup_memory_bytes(const json_t *memory, uint64_t *bytes)
{
	static const char units[] = "KMGTP"; /* lib/unit.rb SIZE_UNITS: shifts 10 to 50 */
	const char *s = json_string_value(memory), *p;
	unsigned long long n = 0;

	if (json_is_integer(memory) && json_integer_value(memory) > 0) {
		*bytes = (uint64_t)json_integer_value(memory);
		return 0;
	}
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	for (p = s; isdigit((unsigned char)*p); p++) {
		if (n > (UINT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (unsigned long long)(*p - '0');
	}
	const char *u = *p ? strchr(units, toupper((unsigned char)*p)) : NULL;
	unsigned shift = u ? 10 * (unsigned)(u - units + 1) : 0;

	if (u)
		p++;
	if (*p == 'B' || *p == 'b')
		p++;
	if (*p || !n || n > UINT64_MAX >> shift)
		return -1;
	*bytes = (uint64_t)n << shift;
	return 0;
}

/* What a percentage of memory is of, found once per plan: the job's memory: (the testbox's
 * nominal figure, as LKP's params/memory.* maps compute with it), else MemTotal. */
static int percent_base(struct cgroup_run *cg, const json_t *memory, const char *key,
			const char *asked, char *err, size_t errlen)
{
	if (cg->percent_of[0])
		return 0;
	if (memory) {
		if (cgroup_memory_bytes(memory, &cg->percent_of_bytes))
			return failf(err, errlen,
				     "memory: expected a size as LKP's to_byte reads it (8G, 512M, "
				     "a number of bytes) to resolve cgroup2.%s '%s'",
				     key, asked);
		snprintf(cg->percent_of, sizeof(cg->percent_of), "memory");
		return 0;
	}
	if (!mem_total_bytes(&cg->percent_of_bytes))
		return failf(err, errlen,
			     "cgroup2.%s '%s': cannot read MemTotal from /proc/meminfo to resolve "
			     "the percentage",
			     key, asked);
	snprintf(cg->percent_of, sizeof(cg->percent_of), "MemTotal");
	return 0;
}

/* A percentage of memory in bytes.  Of the job's memory: as LKP computes it,
 * pct * memory / 100 in integers ('90%' of 8G: 7730941132, no page rounding); of MemTotal,
 * down to a whole page. */
static int resolve_value(struct cgroup_run *cg, const json_t *memory, const char *key,
			 const char *asked, char **value, char *err, size_t errlen)
{
	const struct key_rule *r = rule_of(key);
	uint64_t total, page = (uint64_t)sysconf(_SC_PAGESIZE);
	double pct;
	char buf[32];

	if (!r || r->kind != V_BYTES || !parse_percent(asked, &pct)) {
		*value = strdup(asked);
		return *value ? 0 : failf(err, errlen, "out of memory");
	}
	if (percent_base(cg, memory, key, asked, err, errlen))
		return -1;
	total = cg->percent_of_bytes;
	if (memory && pct == (double)(unsigned)pct)
		/* exact: (total / 100) * pct + (total % 100) * pct / 100 */
		total = total / 100 * (unsigned)pct + total % 100 * (unsigned)pct / 100;
	else if (memory)
		total = (uint64_t)((long double)total * pct / 100);
	else
		total = (uint64_t)((double)total * pct / 100.0) / page * page;
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)total);
	*value = strdup(buf);
	return *value ? 0 : failf(err, errlen, "out of memory");
}

/* A run.<pid>.<n> left by a runner that is gone: removed (rmdir fails harmlessly while anything
 * is still in it). */
static void sweep_stale(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		unsigned long pid;

		if (sscanf(e->d_name, "run.%lu.", &pid) != 1 || pid == 0 ||
		    pid > INT_MAX || (pid_t)pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", parent, e->d_name) < sizeof(path))
			rmdir(path);
	}
	closedir(d);
}

int cgroup_plan(struct cgroup_run *cg, const json_t *spec, const json_t *memory, char *err,
		size_t errlen)
{
	char parent[PATH_MAX + 16];
	const char *key;
	json_t *v;

	memset(cg, 0, sizeof(*cg));
	if (cgroup_spec_check(spec, err, errlen))
		return -1;
	if (!find_mount("cgroup2", NULL, cg->mount, sizeof(cg->mount)))
		return failf(err, errlen,
			     "cgroup2: no cgroup v2 hierarchy is mounted (none in "
			     "/proc/self/mountinfo); mount one (mount -t cgroup2 none "
			     "/sys/fs/cgroup/unified) or remove the cgroup2 key");
	snprintf(parent, sizeof(parent), "%s/" PARENT, cg->mount);
	sweep_stale(parent);
	if (!json_is_object(spec))
		return 0;
	json_object_foreach ((json_t *)spec, key, v) {
		char controller[64], path[PATH_MAX + 32], why[PATH_MAX * 2 + 256], num[32];
		struct cgroup_setting *s;
		const char *asked;

		if (value_text(key, v, num, sizeof(num), &asked, err, errlen))
			return -1;
		if (is_option_key(key) || !asked)
			continue;
		s = realloc(cg->set, (cg->n_set + 1) * sizeof(*s));
		if (!s)
			return failf(err, errlen, "out of memory");
		cg->set = s;
		s = &cg->set[cg->n_set];
		memset(s, 0, sizeof(*s));
		s->key = strdup(key);
		s->asked = strdup(asked);
		cg->n_set++;
		if (!s->key || !s->asked)
			return failf(err, errlen, "out of memory");
		if (resolve_value(cg, memory, key, asked, &s->value, err, errlen))
			return -1;
		controller_of(key, controller, sizeof(controller));
		snprintf(path, sizeof(path), "%s/cgroup.controllers", cg->mount);
		if (!file_has_word(path, controller)) {
			why_missing(cg->mount, controller, why, sizeof(why));
			if (add_missing(cg, controller, why))
				return failf(err, errlen, "out of memory");
		}
		s->applied = !is_missing(cg, controller);
	}
	return 0;
}

/* ---- the run's cgroup ------------------------------------------------------------------ */

/* One write(2) of text to a cgroup file: the kernel takes or refuses it whole. */
static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	e = n < 0 ? errno : 0;
	close(fd);
	return n < 0 ? -e : 0;
}

/* +controller in dir's cgroup.subtree_control, unless already there. */
static int enable_in(const char *dir, const char *controller)
{
	char path[PATH_MAX + 32], text[80];

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	if (file_has_word(path, controller))
		return 0;
	snprintf(text, sizeof(text), "+%s", controller);
	return write_file(path, text);
}

static void unapply(struct cgroup_run *cg, const char *controller)
{
	char c[64];

	for (size_t i = 0; i < cg->n_set; i++) {
		controller_of(cg->set[i].key, c, sizeof(c));
		if (!strcmp(c, controller))
			cg->set[i].applied = false;
	}
}

int cgroup_create(struct cgroup_run *cg, char *err, size_t errlen)
{
	static unsigned seq;
	char parent[PATH_MAX + 16];
	int e;

	snprintf(parent, sizeof(parent), "%s/" PARENT, cg->mount);
	if (mkdir(parent, 0755) && errno != EEXIST)
		return failf(err, errlen, "cgroup2: cannot create %s: %s", parent, strerror(errno));
	/* The controllers, down to the run's cgroup.  One the kernel refuses (cpu while a
	 * realtime task is outside the root, say) is missing like one bound to v1. */
	for (size_t i = 0; i < cg->n_set; i++) {
		char c[64], why[PATH_MAX + 256];

		controller_of(cg->set[i].key, c, sizeof(c));
		if (!cg->set[i].applied)
			continue;
		const char *at = cg->mount;

		if ((e = enable_in(at, c)) || (e = enable_in(at = parent, c))) {
			snprintf(why, sizeof(why),
				 "enabling the %s controller in %s/cgroup.subtree_control failed: %s",
				 c, at, strerror(-e));
			if (add_missing(cg, c, why))
				return failf(err, errlen, "out of memory");
			unapply(cg, c);
		}
	}
	for (;;) {
		if ((size_t)snprintf(cg->path, sizeof(cg->path), "%s/run.%d.%u", parent,
				     (int)getpid(), ++seq) >= sizeof(cg->path))
			return failf(err, errlen, "cgroup2: %s: path too long", parent);
		if (!mkdir(cg->path, 0755))
			break;
		if (errno != EEXIST)
			return failf(err, errlen, "cgroup2: cannot create %s: %s", cg->path,
				     strerror(errno));
	}
	cg->created = true;
	for (size_t i = 0; i < cg->n_set; i++) {
		const struct cgroup_setting *s = &cg->set[i];
		char path[PATH_MAX + 64];

		if (!s->applied)
			continue;
		snprintf(path, sizeof(path), "%s/%s", cg->path, s->key);
		e = write_file(path, s->value);
		if (e == 0)
			continue;
		if (e == -ENOENT)
			failf(err, errlen,
			      "cgroup2.%s: not an interface file of the %.*s controller on this "
			      "kernel (no %s)",
			      s->key, (int)strcspn(s->key, "."), s->key, path);
		else if (strcmp(s->asked, s->value))
			failf(err, errlen, "cgroup2.%s '%s' (%s bytes): the kernel refused it: %s",
			      s->key, s->asked, s->value, strerror(-e));
		else
			failf(err, errlen, "cgroup2.%s '%s': the kernel refused it: %s", s->key,
			      s->asked, strerror(-e));
		cgroup_remove(cg, NULL, 0);
		return -1;
	}
	return 0;
}

int cgroup_begin(struct cgroup_run *cg, const json_t *job_tree, char *err, size_t errlen)
{
	const json_t *spec = json_object_get(job_tree, "cgroup2");

	memset(cg, 0, sizeof(*cg));
	if (!spec)
		return 0;
	if (cgroup_plan(cg, spec, json_object_get(job_tree, "memory"), err, errlen) ||
	    cgroup_create(cg, err, errlen)) {
		cgroup_free(cg);
		memset(cg, 0, sizeof(*cg));
		return -1;
	}
	return 0;
}

void cgroup_missing_note(const struct cgroup_run *cg, size_t i, char *buf, size_t len)
{
	const struct cgroup_missing *m = &cg->missing[i];
	size_t n = (size_t)snprintf(buf, len, "cgroup2: %s; the runs go on without it, not "
				    "applying", m->why);
	bool first = true;

	for (size_t k = 0; k < cg->n_set && n < len; k++) {
		char c[64];

		controller_of(cg->set[k].key, c, sizeof(c));
		if (strcmp(c, m->controller))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s %s %s", first ? "" : ",",
				      cg->set[k].key, cg->set[k].asked);
		first = false;
	}
	if (n < len)
		snprintf(buf + n, len - n, " (recorded in meta.json)");
}

/* ---- counting -------------------------------------------------------------------------- */

/* The counters recorded, each a "key value" line of one of the cgroup's files: what a memcg
 * or CPU regression moves, and nothing else (README, Job files). */
static const struct {
	const char *file, *key, *stat;
} counters[CGROUP_NR_COUNTERS] = {
    {"cpu.stat", "usage_usec", "cgroup.cpu.usage_usec"},
    {"cpu.stat", "user_usec", "cgroup.cpu.user_usec"},
    {"cpu.stat", "system_usec", "cgroup.cpu.system_usec"},
    {"memory.stat", "pgfault", "cgroup.memory.pgfault"},
    {"memory.stat", "pgmajfault", "cgroup.memory.pgmajfault"},
    {"memory.events", "high", "cgroup.memory.events.high"},
    {"memory.events", "max", "cgroup.memory.events.max"},
    {"memory.events", "oom_kill", "cgroup.memory.events.oom_kill"},
};

void cgroup_count(struct cgroup_run *cg, int phase)
{
	const char *read_file = NULL;
	char *buf = NULL;

	if (!cg->created || cg->removed || (phase != CORE_WINDOW_START && phase != CORE_WINDOW_END))
		return;
	for (size_t i = 0; i < CGROUP_NR_COUNTERS; i++) {
		char path[PATH_MAX + 32];
		size_t klen = strlen(counters[i].key);

		if (!read_file || strcmp(read_file, counters[i].file)) {
			free(buf);
			buf = NULL;
			read_file = counters[i].file;
			snprintf(path, sizeof(path), "%s/%s", cg->path, read_file);
			if (file_read(path, 1 << 20, &buf, NULL, NULL, 0))
				buf = NULL;
		}
		for (const char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			unsigned long long v;

			if (!strncmp(l, counters[i].key, klen) && l[klen] == ' ' &&
			    sscanf(l + klen, " %llu", &v) == 1) {
				cg->count[phase][i] = v;
				cg->have[phase][i] = true;
				break;
			}
		}
	}
	free(buf);
}

int cgroup_remove(struct cgroup_run *cg, char *err, size_t errlen)
{
	const struct timespec pause = {.tv_nsec = 10 * 1000 * 1000};

	if (!cg->created || cg->removed)
		return 0;
	/* The copies are reaped by now, but an exiting task may still be listed for a moment. */
	for (int tries = 0; tries < 500; tries++) {
		if (!rmdir(cg->path) || errno == ENOENT) {
			cg->removed = true;
			return 0;
		}
		if (errno != EBUSY)
			break;
		nanosleep(&pause, NULL);
	}
	if (err)
		failf(err, errlen, "cgroup2: cannot remove %s: %s", cg->path, strerror(errno));
	return -1;
}

/* ---- records --------------------------------------------------------------------------- */

json_t *cgroup_meta(const struct cgroup_run *cg)
{
	json_t *m = json_object(), *set = json_object(), *missing = json_object();

	for (size_t i = 0; i < cg->n_set; i++) {
		const struct cgroup_setting *s = &cg->set[i];
		json_t *o = json_pack("{s:s, s:b}", "asked", s->asked, "applied", s->applied);

		if (o && s->applied)
			json_object_set_new(o, "written", json_string(s->value));
		json_object_set_new(set, s->key, o);
	}
	for (size_t i = 0; i < cg->n_missing; i++)
		json_object_set_new(missing, cg->missing[i].controller,
				    json_string(cg->missing[i].why));
	json_object_set_new(m, "path", json_string(cg->path));
	json_object_set_new(m, "settings", set);
	json_object_set_new(m, "controllers_missing", missing);
	json_object_set_new(m, "removed", json_boolean(cg->removed));
	if (cg->percent_of[0])
		json_object_set_new(m, "percent_of",
				    json_pack("{s:s, s:I}", "from", cg->percent_of, "bytes",
					      (json_int_t)cg->percent_of_bytes));
	return m;
}

void cgroup_stats(const struct cgroup_run *cg, json_t *stats)
{
	for (size_t i = 0; i < CGROUP_NR_COUNTERS; i++)
		if (cg->have[CORE_WINDOW_START][i] && cg->have[CORE_WINDOW_END][i] &&
		    cg->count[CORE_WINDOW_END][i] >= cg->count[CORE_WINDOW_START][i])
			json_object_set_new(stats, counters[i].stat,
					    json_integer((json_int_t)(cg->count[CORE_WINDOW_END][i] -
								      cg->count[CORE_WINDOW_START][i])));
}

void cgroup_free(struct cgroup_run *cg)
{
	for (size_t i = 0; i < cg->n_set; i++) {
		free(cg->set[i].key);
		free(cg->set[i].asked);
		free(cg->set[i].value);
	}
	for (size_t i = 0; i < cg->n_missing; i++) {
		free(cg->missing[i].controller);
		free(cg->missing[i].why);
	}
	free(cg->set);
	free(cg->missing);
	cg->set = NULL;
	cg->missing = NULL;
	cg->n_set = cg->n_missing = 0;
}
