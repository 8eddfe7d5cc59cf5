/* lkp-tests' compare, rule and table.  References are to lkp-tests (github.com/intel/lkp-tests,
 * the commit in tests/fixtures/lkp/lkp-tests.commit): lib/stats.rb, lib/changed_stat.rb,
 * lib/compare.rb, lib/statistics.rb and the lists in etc/.  Where lkp-tests has a quirk, it is
 * kept and named: the point of --rule lkp is to say what the robot would say. */
#include "lkp.h"
#include "../lib/text.h"

#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LKP_MAX_RATIO		   5  /* stats.rb MAX_RATIO */
#define LKP_PERF_PROFILE_THRESHOLD 5  /* compare.rb Comparer @perf_profile_threshold */
#define ABS_WIDTH		   10 /* compare.rb */
#define REL_WIDTH		   10
#define ERR_WIDTH		   6

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* stats.rb __function_stat?: etc/failure and etc/pass, each pattern anchored at the start. */
bool lkp_function_stat(const char *name)
{
	static const char *const families[] = {"dmesg", "kmsg", "last_state", "stderr"};

	if (strstr(name, ".time.") || strstr(name, ".timestamp:") || strstr(name, ".bootstage:"))
		return false;
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (starts(name, families[i]))
			return true;
	/* .+killed_by.*   .+\.pass$ */
	const char *k = strstr(name + (name[0] != 0), "killed_by");
	if (k || (ends(name, ".pass") && strlen(name) > 5))
		return true;
	/* .+\.(error|warn|fail)[^_]*$ */
	for (const char *p = strchr(name + (name[0] != 0), '.'); p; p = strchr(p + 1, '.')) {
		static const char *const words[] = {"error", "warn", "fail"};

		for (size_t i = 0; i < 3; i++)
			if (starts(p + 1, words[i]) && !strchr(p + 1 + strlen(words[i]), '_'))
				return true;
	}
	/* kmemleak\..+unreferenced_object\..+  xfstests\..+fail$  and the torture tests' */
	if (starts(name, "kmemleak.") && strstr(name + 10, "unreferenced_object."))
		return true;
	if (starts(name, "xfstests.") && strlen(name) > 13 && ends(name, "fail"))
		return true;
	if ((starts(name, "locktoture.") && strstr(name + 12, "lock_hotplug")) ||
	    (starts(name, "rcutoture.") && strstr(name + 11, "rcu_hotplug")))
		return true;
	return false;
}

/* stats.rb skip_stat?: !bisectable_stat? && !ReportAllowlist.  etc/stat-denylist names whole
 * monitors and many single kernel messages of other suites; these are its entries for the
 * monitors and generic messages scalebench records.  etc/report-allowlist then lets most
 * monitors back in: what stays out is interrupts, softirqs, slabinfo, pagetypeinfo,
 * buddyinfo, zoneinfo, diskstats and pmeter.fail. */
bool lkp_listed_out(const char *name)
{
	static const char *const deny_prefix[] = {"boot-meminfo.",
						  "boot-slabinfo.",
						  "boot-time.",
						  "buddyinfo.",
						  "cpuidle.",
						  "diskstats.",
						  "interrupts.",
						  "iostat.",
						  "lock_stat.",
						  "max_iostat.",
						  "meminfo.",
						  "mpstat.",
						  "numa-meminfo.",
						  "numa-numastat.",
						  "numa-vmstat.",
						  "pagetypeinfo.",
						  "perf-profile",
						  "perf-stat.",
						  "pmeter.fail",
						  "proc-vmstat.",
						  "sched_debug.",
						  "slabinfo.",
						  "softirqs.",
						  "tcrypt.",
						  "time.",
						  "turbostat.",
						  "uptime.",
						  "vmstat.",
						  "zoneinfo.",
						  "dmesg.backtrace",
						  "dmesg.bootstage",
						  "dmesg.boot_failures",
						  "dmesg.boot_successes",
						  "dmesg.calltrace",
						  "dmesg.timestamp:",
						  "dmesg.Mem-Info",
						  "dmesg.page_allocation_failure",
						  "kmsg.timestamp:",
						  "kmsg.bootstage:",
						  "last_state.exit_fail",
						  "last_state.OOM",
						  "last_state.post_run",
						  "last_state.soft_timeout",
						  "last_state.initrd_broken",
						  "last_state.kvm_fail",
						  NULL};
	static const char *const deny_anywhere[] = {"Modules_linked_in", "Spectre_v2_mitigation",
						    "{#:#}", "},at", NULL};
	/* report-allowlist: "^meminfo." and the like, the dot being any character */
	static const char *const report_allow[] = {
	    "boot-meminfo", "boot-slabinfo", "boot-time", "cpuidle",	  "iostat",
	    "lock_stat",    "meminfo",	     "mpstat",	  "numa-meminfo", "numa-numastat",
	    "numa-vmstat",  "perf-profile",  "perf-stat", "proc-vmstat",  "sched_debug",
	    "time",	    "turbostat",     "uptime",	  "vmstat",	  NULL};
	bool denied = false;

	/* stat-allowlist: ^kmsg\.sanitizer and ^stress-ng\..+\.fail among ours */
	if (starts(name, "kmsg.sanitizer") ||
	    (starts(name, "stress-ng.") && strlen(name) > 15 && ends(name, ".fail")))
		return false;
	for (size_t i = 0; report_allow[i]; i++)
		if (starts(name, report_allow[i]) && name[strlen(report_allow[i])])
			return false;
	for (size_t i = 0; deny_prefix[i] && !denied; i++)
		denied = starts(name, deny_prefix[i]);
	for (size_t i = 0; deny_anywhere[i] && !denied; i++)
		denied = strstr(name, deny_anywhere[i]) != NULL;
	if (!denied && starts(name, "last_state.")) {
		const char *e = strstr(name + 11, ".exit_code"); /* ^last_state\..+\.exit_code */
		denied = e && e > name + 11;
	}
	return denied;
}

/* perf_metrics.rb: etc/perf-metrics-prefixes, etc/perf-metrics-patterns, and the tests'
 * own stats (test_prefixes: LKP's performance tests; here the runs' headline family). */
bool lkp_perf_metric(const char *name, bool headline)
{
	static const char *const prefixes[] = {
	    "boot-meminfo.DirectMap1G",
	    "boot-meminfo.DirectMap2M",
	    "boot-meminfo.DirectMap4k",
	    "boot-meminfo.KernelStack",
	    "boot-meminfo.MemFree",
	    "boot-meminfo.MemTotal",
	    "boot-meminfo.PageTables",
	    "boot-meminfo.Slab",
	    "boot-meminfo.VmallocUsed",
	    "boot-memory.bootmem",
	    "boot-memory.code",
	    "boot-memory.init",
	    "boot-slabinfo.",
	    "boot-time.",
	    "energy.",
	    "interrupts.CAL:Function_call_interrupts",
	    "iostat.",
	    "perf-c2c.HITM.total",
	    "perf-profile.children.cycles-pp.native_queued_spin_lock_slowpath",
	    "perf-stat.",
	    "pmeter.",
	    "proc-vmstat.",
	    "turbostat.%Busy",
	    "turbostat.Bzy_MHz",
	    "turbostat.C1%",
	    "turbostat.C1E%",
	    "turbostat.CorWatt",
	    "turbostat.Pk%pc10",
	    "turbostat.Pkg%pc2",
	    "turbostat.Pkg%pc3",
	    "turbostat.Pkg%pc6",
	    "turbostat.Pkg%pc7",
	    "turbostat.Pkg%pc8",
	    "turbostat.Pkg%pc9",
	    "turbostat.PkgTmp",
	    "turbostat.PkgWatt",
	    "turbostat.POLL%",
	    "turbostat.RAMWatt",
	    "turbostat.SYS%LPI",
	    "vmstat.cpu.",
	    "vmstat.io.",
	    "vmstat.swap.",
	    "vmstat.system.",
	    NULL};

	if (headline)
		return true;
	for (size_t i = 0; prefixes[i]; i++)
		if (starts(name, prefixes[i]))
			return true;
	/* ^(.*\.)?time..*  : "time" at the start or after a dot, then at least one character */
	if (starts(name, "time") && name[4])
		return true;
	for (const char *p = strchr(name, '.'); p; p = strchr(p + 1, '.'))
		if (starts(p + 1, "time") && p[5])
			return true;
	/* ^lock_stat..*..contentions */
	if (starts(name, "lock_stat") && strlen(name) >= 10) {
		const char *c = strstr(name + 10, "contentions");

		if (c && c >= name + 11)
			return true;
	}
	return false;
}

/* etc/perf-metrics-threshold.yaml: ^pattern$ -> the least max a change must reach; for an
 * integer threshold the change of the means must also reach half of it. */
static const struct {
	const char *re;
	double v;
	bool integer;
} thresholds[] = {
    {".*.time.elapsed_time.*", 10, true},
    {".*.time.file_system_inputs", 10000, true},
    {".*.time.file_system_outputs", 10000, true},
    {".*.time.involuntary_context_switches", 1000, true},
    {".*.time.major_page_faults", 1000, true},
    {".*.time.minor_page_faults", 1000, true},
    {".*.time.socket_messages_received", 10000, true},
    {".*.time.socket_messages_sent", 10000, true},
    {".*.time.swaps", 1000, true},
    {".*.time.system_time", 10, true},
    {".*.time.user_time", 10, true},
    {".*.time.voluntary_context_switches", 1000, true},
    {".*vmstat.*nr_.*", 100, true},
    {"dd.kill_time", 10, true},
    {"dd.startup_time", 10, true},
    {"interrupts.*", 100, true},
    {"iostat.*.avgrq-sz", 200, true},
    {"iostat.*.await", 50, true},
    {"iostat.*.util", 10, true},
    {"iostat.*.[rw]/s", 50, true},
    {"iostat.*.[rw]kB/s", 100, true},
    {"iostat.*.[rw]_await", 50, true},
    {"perf-c2c.HITM.total", 3000, true},
    {"perf-profile.*", 1, true},
    {"perf-profile.children.cycles-pp.native_queued_spin_lock_slowpath", 2.00, false},
    {"proc-vmstat.allocstall", 100, true},
    {"proc-vmstat.compact_fail", 100, true},
    {"proc-vmstat.compact_stall", 100, true},
    {"proc-vmstat.htlb_buddy_alloc_fail", 100, true},
    {"proc-vmstat.kswapd_high_wmark_hit_quickly", 100, true},
    {"proc-vmstat.kswapd_low_wmark_hit_quickly", 100, true},
    {"proc-vmstat.nr_vmscan_immediate_reclaim", 100, true},
    {"proc-vmstat.nr_vmscan_write", 100, true},
    {"proc-vmstat.pgmigrate_fail", 100, true},
    {"sysbench-fileio.latency_95th_ms", 10, true},
    {"vmstat.cpu.id", 10, true},
    {"vmstat.cpu.st", 10, true},
    {"vmstat.cpu.sy", 50, true},
    {"vmstat.cpu.us", 10, true},
    {"vmstat.cpu.wa", 10, true},
    {"vmstat.io.bi", 100, true},
    {"vmstat.io.bo", 100, true},
    {"vmstat.system.cs", 100, true},
    {"vmstat.system.in", 100, true},
    {"xfstests.*.seconds", 10, true},
};
#define NTHRESHOLDS (sizeof(thresholds) / sizeof(thresholds[0]))

struct lkp_rules {
	regex_t re[NTHRESHOLDS];
	size_t n;
};

struct lkp_rules *lkp_rules_new(void)
{
	struct lkp_rules *r = calloc(1, sizeof(*r));
	char buf[256];

	if (!r)
		return NULL;
	for (; r->n < NTHRESHOLDS; r->n++) {
		snprintf(buf, sizeof(buf), "^(%s)$", thresholds[r->n].re);
		if (regcomp(&r->re[r->n], buf, REG_EXTENDED | REG_NOSUB)) {
			lkp_rules_free(r);
			return NULL;
		}
	}
	return r;
}

void lkp_rules_free(struct lkp_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		regfree(&r->re[i]);
	free(r);
}

/* stats.rb reasonable_perf_change? */
static bool reasonable_perf_change(const struct lkp_rules *rules, const char *name, double delta,
				   double max, const char **why)
{
	for (size_t i = 0; i < rules->n; i++) {
		if (regexec(&rules->re[i], name, 0, NULL, 0))
			continue;
		*why = "below its perf-metrics-threshold";
		if (max < thresholds[i].v)
			return false;
		if (delta < thresholds[i].v / 2 && thresholds[i].integer)
			return false;
		return true;
	}
	if (starts(name, "iostat")) {
		*why = "iostat: max <= 1";
		return max > 1;
	}
	if (starts(name, "pagetypeinfo") || starts(name, "buddyinfo") || starts(name, "slabinfo")) {
		*why = "delta <= 100";
		return delta > 100;
	}
	if (starts(name, "proc-vmstat") || strstr(name, "meminfo")) {
		*why = "proc-vmstat/meminfo: max <= 1000";
		return max > 1000;
	}
	if (starts(name, "lock_stat")) {
		/* `case name when /time/` on the whole name; 'waittime-total' never matches it */
		*why = "lock_stat: delta too small";
		return strstr(name, "time") ? delta > 1000 : delta > 10000;
	}
	if (starts(name, "interrupts") || starts(name, "softirqs")) {
		*why = "interrupts/softirqs: max <= 10000";
		return max > 10000;
	}
	return true;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* stats.rb StatSummary: sorted, margin runs cut at each end, min, "mean" (the upper median:
 * min_mean_max takes array[size / 2]) and max. */
struct summary {
	double min, mid, max;
	size_t n;
};

static bool summarize(const double *x, size_t n, size_t max_margin, double *scratch,
		      struct summary *s)
{
	size_t margin = n >> 5; /* MARGIN_SHIFT */

	if (margin > max_margin)
		margin = max_margin;
	if (n <= 2 * margin)
		return false;
	memcpy(scratch, x, n * sizeof(*x));
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	scratch += margin;
	s->n = n - 2 * margin;
	s->min = scratch[0];
	s->mid = scratch[s->n / 2];
	s->max = scratch[s->n - 1];
	return true;
}

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

static bool integral(double v)
{
	return v == floor(v) && fabs(v) < 9007199254740992.0;
}

/* skip_function_stat?: whether the failure stat in is left out (why says so): a .fail is news
 * only against a base that has the .pass. */
static bool function_stat_skipped(const struct lkp_stat_in *in, char *why, size_t whylen)
{
	const char *k = in->name;
	const char *dot = strrchr(k, '.');
	size_t stem = dot ? (size_t)(dot - k) : strlen(k);
	char key[1024];

	if (dot && (!strcmp(dot, ".error") || !strcmp(dot, ".warn") || !strcmp(dot, ".fail"))) {
		snprintf(key, sizeof(key), "%.*s.pass", (int)stem, k);
		if (!in->base_has_key(in->ctx, key)) {
			say(why, whylen, "%s without %s in the base", dot + 1, key);
			return true;
		}
	} else if (dot && !strcmp(dot, ".pass")) {
		bool any = false;

		for (int i = 0; i < 3 && !any; i++) {
			static const char *const sfx[] = {"error", "warn", "fail"};

			snprintf(key, sizeof(key), "%.*s.%s", (int)stem, k, sfx[i]);
			any = in->base_has_key(in->ctx, key);
		}
		if (!any) {
			say(why, whylen, "pass without error/warn/fail in the base");
			return true;
		}
	}
	return false;
}

/* Whether the stat is left out before its values are looked at (why says so). */
static bool stat_skipped(const struct lkp_stat_in *in, char *why, size_t whylen)
{
	const char *k = in->name;

	/* StatCompare#process: a monitor new in the head has nothing to compare with */
	if (!in->base_has && !in->function &&
	    !((starts(k, "lock_stat.") || starts(k, "perf-profile.")) && in->base_has_family)) {
		say(why, whylen, "not in the base runs");
		return true;
	}
	/* skip_stat? */
	if (lkp_listed_out(k)) {
		say(why, whylen, "on lkp-tests' stat-denylist, not on its report-allowlist");
		return true;
	}
	if (in->function && !starts(k, "dmesg.") && !starts(k, "kmsg.") &&
	    !starts(k, "last_state.") && !starts(k, "stderr."))
		return function_stat_skipped(in, why, whylen);
	if (!in->function && in->na < 3 && in->nb < 3) {
		/* skip_regular_stat?: "at least one matrix has 3 samples" */
		say(why, whylen, "fewer than 3 runs on both sides");
		return true;
	}
	return false;
}

/* Both sides summarized, the head's in *a and the base's in *b: false when out of memory or
 * a side has no runs (why says so). */
static bool matrix_summaries(const struct lkp_stat_in *in, struct summary *a, struct summary *b,
			     char *why, size_t whylen)
{
	double *scratch;

	/* calculate_matrix_values: no trimming for failures; at most 1 run a side when the
	 * base has 3 runs or fewer (n >> 5 trims nothing below 32 runs anyway) */
	scratch = malloc((in->na > in->nb ? in->na : in->nb) * sizeof(*scratch) + 1);
	if (!scratch) {
		say(why, whylen, "out of memory");
		return false;
	}
	size_t margin = in->function ? 0 : 3;
	bool ok = summarize(in->b, in->nb, margin, scratch, b);

	if (ok) {
		if (in->nb <= 3 && margin > 1)
			margin = 1;
		ok = summarize(in->a, in->na, margin, scratch, a);
	}
	free(scratch);
	if (!ok)
		say(why, whylen, "no runs");
	return ok;
}

/* Whether the summaries of head (a) and base (b) tell a change; *clause: the rule that
 * decided, in words. */
static bool ranges_changed(const struct lkp_stat_in *in, bool perf_profile, const struct summary *a,
			   const struct summary *b, const char **clause)
{
	bool changed;

	/* changed_stats?  The perf-profile threshold applies only when the head's median is
	 * an Integer (`options['perf-profile'].is_a?(a.mean.class)`, the threshold being 5):
	 * stats.json values written as whole numbers; fractional ones take the general rule. */
	if (perf_profile && integral(a->mid)) {
		changed =
		    a->mid > LKP_PERF_PROFILE_THRESHOLD || b->mid > LKP_PERF_PROFILE_THRESHOLD;
		*clause = changed ? "perf-profile: a median above 5%"
				  : "perf-profile: both medians <= 5%";
	} else if (in->function) {
		changed = a->max != b->max;
		*clause = changed ? "failure: max differs" : "failure: same max";
	} else if (b->min > a->mid && b->mid > a->max) {
		changed = true;
		*clause = "min_base > median_head && median_base > max_head";
	} else if (a->min > b->mid && a->mid > b->max) {
		changed = true;
		*clause = "min_head > median_base && median_head > max_base";
	} else {
		changed = false;
		*clause = "ranges overlap (neither side's min is above the other's median while "
			  "its median is above the other's max)";
	}
	return changed;
}

/* Whether a change of head (a) against base (b) that clause found is large enough to report
 * (why says so, either way). */
static bool change_reported(const struct lkp_rules *rules, const struct lkp_stat_in *in,
			    bool perf_profile, const struct summary *a, const struct summary *b,
			    const char *clause, char *why, size_t whylen)
{
	const char *k = in->name;

	/* calc_stats_metrics */
	double max = fmax(a->max, b->max), delta, ratio = LKP_MAX_RATIO;
	const struct summary *hi = a->mid > b->mid ? a : b, *lo = a->mid > b->mid ? b : a;

	delta = hi->mid - lo->mid;
	if (lo->mid > 0)
		ratio = hi->mid / lo->mid;
	if (ratio > LKP_MAX_RATIO)
		ratio = LKP_MAX_RATIO;
	/* skip_small_change? */
	if (!perf_profile) {
		const char *r = NULL;

		if (!(ratio > 1.01)) {
			say(why, whylen, "%s, but ratio %.4g <= 1.01", clause, ratio);
			return false;
		}
		if (!(ratio > 1.05 || lkp_perf_metric(k, in->headline))) {
			say(why, whylen, "%s, but ratio %.4g <= 1.05 and not a perf metric", clause,
			    ratio);
			return false;
		}
		if (!reasonable_perf_change(rules, k, delta, max, &r)) {
			say(why, whylen, "%s, but %s (max %.6g, delta %.6g)", clause, r, max,
			    delta);
			return false;
		}
	}
	say(why, whylen, "%s; ratio %.4g, delta %.6g, max %.6g", clause, ratio, delta, max);
	return true;
}

bool lkp_stat_changed(const struct lkp_rules *rules, const struct lkp_stat_in *in, char *why,
		      size_t whylen)
{
	bool perf_profile = starts(in->name, "perf-profile.");
	struct summary a, b;
	const char *clause;

	if (stat_skipped(in, why, whylen) || !matrix_summaries(in, &a, &b, why, whylen))
		return false;
	if (!ranges_changed(in, perf_profile, &a, &b, &clause)) {
		say(why, whylen, "%s", clause);
		return false;
	}
	return change_reported(rules, in, perf_profile, &a, &b, clause, why, whylen);
}

/* Array#sum: Kahan-Babuska summation over floats (Ruby's ary_sum), then / length. */
double lkp_average(const double *x, size_t n)
{
	double f = 0, c = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		double t = f + x[i];

		if (fabs(f) >= fabs(x[i]))
			c += (f - t) + x[i];
		else
			c += (x[i] - t) + f;
		f = t;
	}
	return (f + c) / (double)n;
}

/* statistics.rb sample_variance is 1/n * sum: the population variance. */
double lkp_stddev(const double *x, size_t n)
{
	double avg, sum = 0;

	if (n < 2)
		return -1;
	avg = lkp_average(x, n);
	for (size_t i = 0; i < n; i++)
		sum += (x[i] - avg) * (x[i] - avg);
	return sqrt(1 / (double)n * sum);
}

/* Ruby's %d of a Float truncates toward zero. */
static long long trunc_ll(double v)
{
	if (!(fabs(v) < 9.2e18))
		return v < 0 ? INT64_MIN : INT64_MAX;
	return (long long)v;
}

/* Ruby's printf of a Float is not C's.  Its dtoa (missing/dtoa.c, modes 2 and 3) first tries
 * floating-point arithmetic for up to 14 digits; when what is left after the last digit is
 * within that arithmetic's error bound of one half, it rounds half to even on the digits it
 * generated, where C rounds the exact binary value: Ruby prints 80.534999999999997 as 80.54
 * and 2.675 as 2.68 under %.2f.  This returns the value C must print to show Ruby's digits:
 * v itself, or the decimal Ruby's digits stand for.  fixed: %.Nf (N = prec), else %.Ng.
 * keep (when not NULL) says that Ruby keeps the trailing zeros of its digits under %g: rounded
 * down to an even digit, its digits are not trimmed (it prints 945050000000.0 as 9.450e+11). */
static double ruby_rounded(double v, int prec, bool fixed, bool *keep)
{
	char e[64], digits[48], out[64];
	int k, ilim, nd = 0;
	double r, u, eps;

	if (keep)
		*keep = false;
	if (!isfinite(v) || v == 0)
		return v;
	snprintf(e, sizeof(e), "%.40e", fabs(v)); /* glibc: the exact binary value's digits */
	for (const char *p = e; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9' && nd < (int)sizeof(digits) - 1)
			digits[nd++] = *p;
	digits[nd] = 0;
	k = atoi(strchr(e, 'e') + 1);
	ilim = fixed ? k + 1 + prec : (prec ? prec : 1);
	if (ilim <= 0 || ilim > 14) /* Quick_max: no fast path, exact rounding as in C */
		return v;
	snprintf(out, sizeof(out), "0.%s", digits + ilim);
	r = strtod(out, NULL);
	snprintf(out, sizeof(out), "%c.%s", digits[0], digits + 1);
	u = strtod(out, NULL);
	eps = (2 * u + 7) * 0x1p-52; /* ieps = 2 for the exponents of stats */
	for (int i = 1; i < ilim; i++)
		eps *= 10;
	if (fabs(r - 0.5) > eps)
		return v;
	/* half to even on the ilim digits */
	char kept[48];
	long long n = 0;

	memcpy(kept, digits, (size_t)ilim);
	kept[ilim] = 0;
	n = atoll(kept);
	if (n & 1)
		n++;
	else if (keep)
		*keep = true;
	snprintf(out, sizeof(out), "%llde%d", n, k - ilim + 1);
	return copysign(strtod(out, NULL), v);
}

void lkp_format_avg(double avg, char *buf, size_t len)
{
	if (fabs(avg) < 1000)
		snprintf(buf, len, "%*.2f", ABS_WIDTH, ruby_rounded(avg, 2, true, NULL));
	else if (fabs(avg) > 100000000) {
		bool keep;
		double r = ruby_rounded(avg, 4, false, &keep);

		snprintf(buf, len, keep ? "%#*.4g" : "%*.4g", ABS_WIDTH, r);
	} else
		snprintf(buf, len, "%*lld", ABS_WIDTH, trunc_ll(avg));
}

void lkp_format_stddev(double stddev, double avg, char *buf, size_t len)
{
	if (avg != 0)
		stddev = 100 * stddev / avg;
	if (stddev > 2)
		snprintf(buf, len, " \u00b1%*lld%%", ERR_WIDTH - 3, trunc_ll(stddev));
	else
		snprintf(buf, len, "%*s", ERR_WIDTH, "");
}

void lkp_format_change(double p, bool absolute, char *buf, size_t len)
{
	bool fixed = fabs(p) < 100000, keep;
	double r = ruby_rounded(p, fixed ? 1 : 2, fixed, &keep);
	const char *fmt = fixed	 ? (absolute ? "%+*.1f  " : "%+*.1f%% ")
			  : keep ? (absolute ? "%+#*.2g  " : "%+#*.2g%% ")
				 : (absolute ? "%+*.2g  " : "%+*.2g%% ");

	snprintf(buf, len, fmt, REL_WIDTH, r);
}

/* --- the comparison --- */

/* compare.rb $stat_absolute_changes: /^perf-profile/ and /%$/ */
static bool lkp_absolute(const char *name)
{
	return starts(name, "perf-profile") || ends(name, "%");
}

/* Whether the group's runs have the stat only as integer zeros: LKP's matrix.json of them
 * lacks it (unite-stats drops it), so to LKP the group has no such stat. */
static bool lkp_dropped(const struct result_group *g, const char *name)
{
	const json_t *v = json_object_get(g->stat_index, name);

	return v && !g->lkp_kept[json_integer_value(v)];
}

static bool group_has_key(const void *ctx, const char *key)
{
	const struct result_group *g = ctx;

	return json_object_get(g->stat_index, key) != NULL && !lkp_dropped(g, key);
}

static bool has_family(const struct result_group *g, const char *name)
{
	size_t len = strcspn(name, ".");

	for (size_t i = 0; i < g->nstats; i++)
		if (g->lkp_kept[i] && !strncmp(g->stat_names[i], name, len) &&
		    (g->stat_names[i][len] == '.' || !g->stat_names[i][len]))
			return true;
	return false;
}

/* A group's values of a stat as LKP's matrix has them: one per run, 0 where a run lacks it. */
static size_t matrix_values(const struct result_group *g, const char *name, double *out)
{
	size_t n = group_values(g, name, out);

	while (n < g->nruns)
		out[n++] = 0;
	return g->nruns;
}

static bool is_function(const struct stat_row *r)
{
	return r->failure || lkp_function_stat(r->name);
}

/* Whether group g reports row r, and why. */
/* Whether row r changed in group g by LKP's rule; a and b are left holding group g's and the
 * base's values, na and nb of them. */
static bool row_changed(const struct comparison *c, const struct lkp_rules *rules,
			const struct stat_row *r, size_t g, double *a, size_t *na, double *b,
			size_t *nb, char *why, size_t whylen)
{
	bool changed;

	struct lkp_stat_in in = {.name = r->name,
				 .function = is_function(r),
				 .headline = r->headline,
				 .base_has_key = group_has_key,
				 .ctx = &c->groups[0],
				 .a = a,
				 .b = b};

	in.base_has = !lkp_dropped(&c->groups[0], r->name) &&
		      group_values(&c->groups[0], r->name, b) > 0;
	/* asked only where it decides: a perf-profile or lock_stat stat the base lacks */
	in.base_has_family = !in.base_has &&
			     (starts(r->name, "perf-profile.") || starts(r->name, "lock_stat.")) &&
			     has_family(&c->groups[0], r->name);
	in.nb = matrix_values(&c->groups[0], r->name, b);
	in.na = matrix_values(&c->groups[g], r->name, a);
	changed = lkp_stat_changed(rules, &in, why, whylen);
	*na = in.na;
	*nb = in.nb;
	return changed;
}

static size_t max_runs(const struct comparison *c)
{
	size_t m = 1;

	for (size_t g = 0; g < c->ngroups; g++)
		if (c->groups[g].nruns > m)
			m = c->groups[g].nruns;
	return m;
}

/* compare.rb calc_perf_change: against the base's average, 1e-100 standing in for 0. */
static double lkp_change(const char *name, double avg0, double avg)
{
	if (lkp_absolute(name))
		return avg - avg0;
	if (avg0 == 0)
		avg0 = 1e-100;
	return 100.0 * (avg - avg0) / avg0;
}

void lkp_decide(struct comparison *c)
{
	struct lkp_rules *rules = lkp_rules_new();
	size_t m = max_runs(c);
	double *a = malloc((m + 1) * sizeof(*a)), *b = malloc((m + 1) * sizeof(*b));

	if (!rules || !a || !b)
		goto out;
	for (size_t i = 0; i < c->nrows; i++) {
		struct stat_row *r = &c->rows[i];

		if (r->failure)
			continue;
		/* The figures --json reports are the table's, LKP's: its average and its
		 * population stddev over the matrix's values (statistics.rb), not the sample's. */
		for (size_t g = 0; g < c->ngroups; g++) {
			size_t n = matrix_values(&c->groups[g], r->name, a);
			double avg = lkp_average(a, n), sd = lkp_stddev(a, n);

			if (!n)
				continue;
			r->sum[g].mean = avg;
			r->sum[g].stddev = sd < 0 ? 0 : sd;
			r->sum[g].stddev_pct = avg != 0 ? 100 * r->sum[g].stddev / fabs(avg) : 0;
		}
		for (size_t g = 1; g < c->ngroups; g++) {
			size_t na, nb;
			bool changed = row_changed(c, rules, r, g, a, &na, b, &nb, NULL, 0);
			double avg0 = lkp_average(b, nb), avg = lkp_average(a, na);

			r->test[g] = TEST_LKP;
			r->no_test[g] = NULL;
			r->p[g] = r->q[g] = r->est[g] = r->lo[g] = r->hi[g] = NAN;
			r->runs_needed[g] = 0;
			r->has_change[g] = true;
			r->change[g] = lkp_change(r->name, avg0, avg);
			if (!changed)
				r->verdict[g] = V_NO_CHANGE;
			else if (r->dir == DIR_NEUTRAL)
				r->verdict[g] = r->change[g] > 0 ? V_CHANGED_UP : V_CHANGED_DOWN;
			else
				r->verdict[g] = (r->change[g] > 0) == (r->dir == DIR_HIGHER_BETTER)
						    ? V_IMPROVEMENT
						    : V_REGRESSION;
		}
	}
out:
	lkp_rules_free(rules);
	free(a);
	free(b);
}

/* One row as compare.rb holds it: the per-group summaries and changes. */
struct lkp_row {
	const struct stat_row *r;
	bool failure;
	long base_rank; /* sort_stats' stat_base_map */
	size_t key_len; /* stat_sort_key: the first 2 components for perf-profile */
	size_t ngroups;
	size_t seen; /* the stat's place in LKP's list of changed stats: the head's matrix order */
	double *avg, *sd, *fails, *chg;
	char *why;
};

/* __get_changed_stats walks the head's matrix (its stats in the order the runs' stats.json
 * have them) and then the base's stats the head lacks. */
static size_t first_seen(const struct comparison *c, const char *name)
{
	const json_t *v = json_object_get(c->groups[1].stat_index, name);

	if (v && !lkp_dropped(&c->groups[1], name))
		return (size_t)json_integer_value(v);
	v = json_object_get(c->groups[0].stat_index, name);
	return c->groups[1].nstats + (v ? (size_t)json_integer_value(v) : c->groups[0].nstats);
}

static size_t sort_key_len(const char *name)
{
	const char *p = strchr(name, '.');

	if (starts(name, "perf-profile.") && p && (p = strchr(p + 1, '.')))
		return (size_t)(p - name);
	return strlen(name);
}

static int cmp_rows(const void *x, const void *y)
{
	const struct lkp_row *a = x, *b = y;
	size_t la = a->key_len, lb = b->key_len;
	int s;

	if (a->base_rank != b->base_rank)
		return a->base_rank < b->base_rank ? -1 : 1;
	s = strncmp(a->r->name, b->r->name, la < lb ? la : lb);
	if (s || la != lb)
		return s ? s : (la < lb ? -1 : 1);
	for (size_t g = 1; g < a->ngroups; g++)
		if (a->chg[g] != b->chg[g])
			return a->chg[g] < b->chg[g] ? -1 : 1;
	/* A whole tie: Ruby's sort_by promises no order; on small lists it keeps the list's */
	return a->seen < b->seen ? -1 : a->seen > b->seen;
}

static void print_header(const struct comparison *c, FILE *out)
{
	const struct result_group *g0 = &c->groups[0];
	bool any = false, differs = false;

	fprintf(out, "%s\n",
		"========================================================="
		"================================");
	/* show_group_header: the axes common to the groups, sorted by name as LKP stores
	 * them (group_axis_names is in that order) */
	for (int pass = 0; pass < 2; pass++) {
		any = false;
		for (int ax = 0; ax < AX_COUNT; ax++) {
			bool same = g0->axes[ax] != NULL;

			for (size_t g = 1; g < c->ngroups && same; g++)
				same = c->groups[g].axes[ax] &&
				       !strcmp(c->groups[g].axes[ax], g0->axes[ax]);
			if (!same) {
				differs = differs || g0->axes[ax];
				continue;
			}
			fprintf(out, "%s%s",
				any    ? "/"
				: pass ? "  "
				       : "",
				pass ? text_safe(g0->axes[ax]) : group_axis_names[ax]);
			any = true;
		}
		fprintf(out, pass ? "\n\n" : ":\n");
	}
	if (differs)
		/* LKP never compares such groups (it groups result roots by these axes) */
		fprintf(out,
			"(not an LKP comparison: the groups differ in more than the commit)\n\n");
	fprintf(out, "commit: \n");
	for (size_t g = 0; g < c->ngroups; g++)
		fprintf(out, "  %s\n", text_safe(c->groups[g].commit));
	/* compare_axeses' values cut to the column: 16 for the base, 27 for the others */
	fprintf(out, "\n%*.*s ", ABS_WIDTH + ERR_WIDTH, ABS_WIDTH + ERR_WIDTH,
		text_safe(g0->commit));
	for (size_t g = 1; g < c->ngroups; g++)
		fprintf(out, "%*.*s ", ABS_WIDTH + ERR_WIDTH + REL_WIDTH + 1,
			ABS_WIDTH + ERR_WIDTH + REL_WIDTH + 1, text_safe(c->groups[g].commit));
	fprintf(out, "\n%.*s ", ABS_WIDTH + ERR_WIDTH, "--------------------------------");
	for (size_t g = 1; g < c->ngroups; g++)
		fprintf(out, "%.*s ", ABS_WIDTH + ERR_WIDTH + REL_WIDTH + 1,
			"--------------------------------");
	fprintf(out, "\n");
}

static void print_failure(const struct comparison *c, const struct lkp_row *x, bool verbose,
			  FILE *out)
{
	for (size_t g = 0; g < c->ngroups; g++) {
		if (g)
			fprintf(out, "%*.0f%% ", REL_WIDTH, ruby_rounded(x->chg[g], 0, true, NULL));
		if (x->fails[g] == 0)
			fprintf(out, "%*s", ABS_WIDTH + 1, "");
		else
			fprintf(out, "%*lld", ABS_WIDTH + 1, trunc_ll(x->fails[g]));
		fprintf(out, ":%-*zu", ERR_WIDTH - 2, c->groups[g].nruns);
	}
	fprintf(out, "  %s", text_safe(x->r->name));
	if (verbose && x->why)
		fprintf(out, "  (lkp: %s)", x->why);
	fprintf(out, "\n");
}

static void print_perf(const struct comparison *c, const struct lkp_row *x, bool verbose, FILE *out)
{
	char buf[64];

	for (size_t g = 0; g < c->ngroups; g++) {
		if (g) {
			lkp_format_change(x->chg[g], lkp_absolute(x->r->name), buf, sizeof(buf));
			fputs(buf, out);
		}
		lkp_format_avg(x->avg[g], buf, sizeof(buf));
		fputs(buf, out);
		lkp_format_stddev(x->sd[g], x->avg[g], buf, sizeof(buf));
		fputs(buf, out);
	}
	fprintf(out, "  %s", text_safe(x->r->name));
	if (verbose && x->why)
		fprintf(out, "  (lkp: %s)", x->why);
	fprintf(out, "\n");
}

/* Whether row r is shown: changed against the base in any group.  why, when not NULL, gets
 * whylen bytes of each group's reason.  a and b have room for any group's runs. */
static bool row_shown(const struct comparison *c, const struct lkp_rules *rules,
		      const struct stat_row *r, double *a, double *b, char *why, size_t whylen)
{
	size_t ng = c->ngroups;
	bool shown = false;

	if (why)
		why[0] = 0; /* the slot of a row not shown is reused */

	/* Compare::Group#changed_stat_keys: changed against the base in any group */
	for (size_t g = 1; g < ng; g++) {
		char one[256];
		size_t na, nb;

		if (row_changed(c, rules, r, g, a, &na, b, &nb, one, sizeof(one)))
			shown = true;
		if (why)
			snprintf(why + strlen(why), whylen - strlen(why), "%s%s%s",
				 g > 1 ? " | " : "", ng > 2 ? c->groups[g].commit : "",
				 ng > 2 ? ": " : "");
		if (why)
			snprintf(why + strlen(why), whylen - strlen(why), "%s", one);
	}
	return shown;
}

/* Table row x of row r (why its reason): its sort keys, each group's average, stddev and
 * failures in cells (4 per group) and each later group's change.  a has room for any
 * group's runs. */
static void lkp_row_fill(const struct comparison *c, struct lkp_row *x, const struct stat_row *r,
			 char *why, double *cells, double *a)
{
	size_t ng = c->ngroups;

	x->r = r;
	x->why = why;
	x->failure = is_function(r);
	x->key_len = sort_key_len(r->name);
	x->ngroups = ng;
	x->seen = first_seen(c, r->name);
	x->avg = cells;
	x->sd = x->avg + ng;
	x->fails = x->sd + ng;
	x->chg = x->fails + ng;
	for (size_t g = 0; g < ng; g++) {
		size_t n = matrix_values(&c->groups[g], r->name, a);

		x->avg[g] = lkp_average(a, n);
		x->sd[g] = lkp_stddev(a, n);
		x->fails[g] = 0;
		for (size_t k = 0; k < n; k++)
			x->fails[g] += a[k];
	}
	for (size_t g = 1; g < ng; g++) {
		if (x->failure)
			/* calc_failure_change divides group g's failures by runs[g - 1]
			 * (each_with_index over fs.drop(1)): the base's for the first */
			x->chg[g] = 100 * (x->fails[g] / (double)c->groups[g - 1].nruns -
					   x->fails[0] / (double)c->groups[0].nruns);
		else
			x->chg[g] = lkp_change(r->name, x->avg[0], x->avg[g]);
	}
}

/* Each row's base_rank, for cmp_rows. */
static void rank_families(struct lkp_row *rows, size_t nx)
{
	/* sort_stats: a family ranks by how many of its stats are shown, failures' families
	 * 10000 ahead; the test's own family ranks 0 */
	/* c->rows are in name order, so a family's rows are contiguous: one pass per family */
	for (size_t i = 0, j; i < nx; i = j) {
		size_t len = strcspn(rows[i].r->name, ".");
		long rank;

		for (j = i + 1; j < nx && strcspn(rows[j].r->name, ".") == len &&
				!strncmp(rows[j].r->name, rows[i].r->name, len);
		     j++)
			;
		rank = (rows[i].failure ? -10000 : 0) + (long)(j - i);
		for (size_t k = i; k < j; k++)
			rows[k].base_rank = rows[k].r->headline && rank > 0 ? 0 : rank;
	}
}

/* The failure stats' section: its two header lines and its rows. */
static void print_failures(const struct comparison *c, const struct lkp_row *rows, size_t nx,
			   bool verbose, FILE *out)
{
	size_t ng = c->ngroups;

	fprintf(out, "       fail:runs");
	for (size_t g = 1; g < ng; g++)
		fprintf(out, "  %%reproduction    fail:runs");
	fprintf(out, "\n           |    ");
	for (size_t g = 1; g < ng; g++)
		fprintf(out, "         |             |    ");
	fprintf(out, "\n");
	for (size_t i = 0; i < nx; i++)
		if (rows[i].failure)
			print_failure(c, &rows[i], verbose, out);
}

/* The other stats' section: its two header lines and its rows. */
static void print_perfs(const struct comparison *c, const struct lkp_row *rows, size_t nx,
			bool verbose, FILE *out)
{
	size_t ng = c->ngroups;

	fprintf(out, "         %%stddev");
	for (size_t g = 1; g < ng; g++)
		fprintf(out, "     %%change         %%stddev");
	fprintf(out, "\n             \\  ");
	for (size_t g = 1; g < ng; g++)
		fprintf(out, "        |                \\  ");
	fprintf(out, "\n");
	for (size_t i = 0; i < nx; i++)
		if (!rows[i].failure)
			print_perf(c, &rows[i], verbose, out);
}

void lkp_print_table(const struct comparison *c, bool all, bool verbose, FILE *out)
{
	size_t ng = c->ngroups, m = max_runs(c), nx = 0, whylen = 512;
	struct lkp_rules *rules = lkp_rules_new();
	struct lkp_row *rows = calloc(c->nrows + 1, sizeof(*rows));
	double *cells = calloc((c->nrows + 1) * ng * 4, sizeof(*cells));
	char *whys = verbose ? calloc((c->nrows + 1) * whylen, 1) : NULL;
	double *a = malloc((m + 1) * sizeof(*a)), *b = malloc((m + 1) * sizeof(*b));
	bool any_failure = false, any_perf = false;

	if (!rules || !rows || !cells || !a || !b || (verbose && !whys)) {
		fprintf(out, "scalebench: out of memory printing the lkp table\n");
		goto out;
	}
	for (size_t i = 0; i < c->nrows; i++) {
		const struct stat_row *r = &c->rows[i];
		char *why = whys ? whys + nx * whylen : NULL;

		if (!row_shown(c, rules, r, a, b, why, whylen) && !all)
			continue;
		lkp_row_fill(c, &rows[nx], r, why, cells + nx * ng * 4, a);
		any_failure = any_failure || rows[nx].failure;
		any_perf = any_perf || !rows[nx].failure;
		nx++;
	}
	rank_families(rows, nx);
	qsort(rows, nx, sizeof(*rows), cmp_rows);

	if (!nx) {
		/* lkp-tests prints nothing at all then; a line says so */
		fprintf(out, "(lkp-tests would print nothing: no stat changed by its rule; --all "
			     "shows every stat)\n");
		goto out;
	}
	print_header(c, out);
	if (any_failure)
		print_failures(c, rows, nx, verbose, out);
	if (any_perf)
		print_perfs(c, rows, nx, verbose, out);
	fprintf(out, "\n");
out:
	lkp_rules_free(rules);
	free(rows);
	free(cells);
	free(whys);
	free(a);
	free(b);
}
