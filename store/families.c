#include "families.h"

#include <stdio.h>
#include <string.h>

/* lkp-tests' monitors (its monitors/ directory): the families a run's stats can come from
 * besides the testcase's own.  A job naming one scalebench lacks is noted, not refused. */
static const char *const lkp_monitors[] = {
    "perf-stat", "proc-vmstat",	 "vmstat",	  "meminfo",	  "proc-stat",	   "interrupts",
    "softirqs",	 "numa-meminfo", "numa-numastat", "numa-vmstat",  "slabinfo",	   "sched_debug",
    "time",	 "dmesg",	 "kmsg",	  "perf-profile", "cpuidle",	   "cpufreq-stats",
    "energy",	 "ftrace",	 "heartbeat",	  "iostat",	  "latency_stats", "lock_stat",
    "mpstat",	 "oom-killer",	 "pagetypeinfo",  "perf-c2c",	  "perf-sched",	   "pmeter",
    "turbostat", "uptime",	 "watchdog",	  "top",	  "buddyinfo",	   "zoneinfo",
    "diskstats", "nfsstat",	 "mountstats",	  NULL,
};

static bool family_n_is_lkp_monitor(const char *family, size_t n)
{
	for (size_t i = 0; lkp_monitors[i]; i++)
		if (strlen(lkp_monitors[i]) == n && !strncmp(lkp_monitors[i], family, n))
			return true;
	return false;
}

bool family_is_lkp_monitor(const char *family)
{
	return family_n_is_lkp_monitor(family, strlen(family));
}

bool stat_family_is_lkp_monitor(const char *stat)
{
	return family_n_is_lkp_monitor(stat, strcspn(stat, "."));
}

static bool family_n_is_failure(const char *family, size_t n)
{
	static const char *const failures[] = {"stderr", "dmesg", "kmsg", "last_state"};

	for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++)
		if (strlen(failures[i]) == n && !strncmp(failures[i], family, n))
			return true;
	return false;
}

bool family_is_failure(const char *family)
{
	return family_n_is_failure(family, strlen(family));
}

bool stat_family_is_failure(const char *stat)
{
	return family_n_is_failure(stat, strcspn(stat, "."));
}

void failure_stat_name(const char *failure, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "stderr.");

	if (n >= len)
		return;
	for (const char *p = failure; *p && n + 1 < len; p++) {
		if (*p == '(') { /* " (thread 77)": left out with the space before it */
			const char *end = strchr(p, ')');

			if (!end)
				break;
			if (n > 7 && out[n - 1] == '_')
				n--;
			p = end;
			continue;
		}
		if (!strncmp(p, "copy ", 5) && (p == failure || p[-1] == ' ')) {
			/* "copy 3 of 8": "copy" */
			const char *q = p + 5;
			size_t d = strspn(q, "0123456789");

			if (d && !strncmp(q + d, " of ", 4) && strspn(q + d + 4, "0123456789")) {
				q += d + 4;
				q += strspn(q, "0123456789");
				for (const char *c = "copy"; *c && n + 1 < len; c++)
					out[n++] = *c;
				p = q - 1;
				continue;
			}
		}
		out[n++] = (*p == ' ' || *p == ':') ? '_' : *p;
	}
	while (n > 7 && out[n - 1] == '_')
		n--;
	out[n] = '\0';
}
