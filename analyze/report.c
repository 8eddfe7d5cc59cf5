/* The comparison as the kernel test robot prints it, and as JSON for bots. */
#include "compare.h"
#include "lkp.h"
#include "../lib/text.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Numbers as the robot prints them: integers when large, two decimals otherwise. */
static void fmt_number(double v, char *buf, size_t len)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (a >= 1e10)
		snprintf(buf, len, "%.4g", v); /* keeps to the 10-column field */
	else if (a >= 100 || v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else if (a >= 0.01)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.2g", v);
}

/* " ± N%" when the spread is above 2%, else blanks: the robot's 6-character column. */
static void fmt_stddev(const struct stat_summary *s, char *buf, size_t len)
{
	if (s->n > 1 && s->stddev_pct > 2)
		snprintf(buf, len, " \u00b1%3.0f%%", s->stddev_pct);
	else
		snprintf(buf, len, "      ");
}

static void fmt_change(const struct stat_row *r, size_t g, char *buf, size_t len)
{
	double v = r->change[g];

	if (!r->has_change[g])
		snprintf(buf, len, "-");
	else if (r->absolute)
		snprintf(buf, len, "%+.1f", v);
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%+.0f%%", v);
	else
		snprintf(buf, len, "%+.1f%%", v);
}

static const char *verdict_mark(enum verdict v)
{
	switch (v) {
	case V_REGRESSION:
		return "regression";
	case V_IMPROVEMENT:
		return "improvement";
	case V_CHANGED_UP:
	case V_CHANGED_DOWN:
		return "changed";
	case V_DRIFT:
		return "drift";
	case V_PER_OP_SAME:
		return "per-op-unchanged";
	default:
		return NULL;
	}
}

/* The stddev column is 6 display columns but "±" is two bytes in UTF-8: pad by hand. */
static void put_padded(FILE *out, const char *s, int width)
{
	int cols = 0;

	for (const char *p = s; *p; p++)
		if (((unsigned char)*p & 0xc0) != 0x80)
			cols++;
	fputs(s, out);
	for (; cols < width; cols++)
		fputc(' ', out);
}

/* The robot shortens shas to its columns (16 for the base, 27 for the others); any other label
 * is a name someone chose ("nightly-2026-11-03") and is shown whole, the column widened. */
static bool label_is_sha(const char *l)
{
	size_t n = 0;

	for (; l[n]; n++)
		if (!isxdigit((unsigned char)l[n]))
			return false;
	return n >= 12;
}

static int column_width(const struct comparison *c, size_t g)
{
	int base = g ? 27 : 16;
	size_t len = strlen(text_safe(c->groups[g].commit));

	return label_is_sha(c->groups[g].commit) || len <= (size_t)base ? base : (int)len;
}

/* The blanks that push group g's cells right when its label widened the column. */
static void put_extra(const struct comparison *c, size_t g, FILE *out)
{
	fprintf(out, "%*s", column_width(c, g) - (g ? 27 : 16), "");
}

/* How many rows (any group) have verdict v, and the first one's name. */
static size_t rows_with(const struct comparison *c, enum verdict v, const char **first)
{
	size_t n = 0;

	*first = NULL;
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t g = 1; g < c->ngroups; g++)
			if (c->rows[i].verdict[g] == v) {
				*first = *first ? *first : c->rows[i].name;
				n++;
				break;
			}
	return n;
}

/* The batches of history the between-batch noise came from, the most any row used (0: the
 * default margin everywhere). */
static size_t history_batches(const struct comparison *c)
{
	size_t most = 0;

	for (size_t i = 0; i < c->nrows; i++)
		for (size_t g = 1; g < c->ngroups; g++)
			if (c->apart[g] && c->rows[i].batches[g] > most)
				most = c->rows[i].batches[g];
	return most;
}

/* Above the table, once: the sides not interleaved (the batch noise in every interval), the
 * monitor rows set aside as not changed, and why. */
static void print_set_aside(const struct comparison *c, FILE *out)
{
	const char *first;
	size_t n = rows_with(c, V_DRIFT, &first), hist;

	if (c->apart_any && (hist = history_batches(c)))
		fprintf(out,
			"\nnote: the commits' runs were not interleaved in time (each commit's "
			"runs one window,\none after the other): every interval holds the "
			"batch-to-batch noise, estimated from\n%zu batches of this job at one "
			"commit in the results tree.\n",
			hist);
	else if (c->apart_any)
		fprintf(out,
			"\nnote: the commits' runs were not interleaved in time (each commit's "
			"runs one window,\none after the other), and two windows of a machine "
			"differ by more than the runs of one\nspread: this job has no batches "
			"at one commit in the results tree to measure by how much,\nso every "
			"interval holds a margin of %g times the runs' own spread (a monitor's "
			"level of\nthe machine's state, %.0f%%), and a change must clear it.  "
			"Interleave the commits' runs\n(run -r 1 --commit A, then --commit B, and "
			"again) to compare within the windows.\n",
			COMPARE_BATCH_RATIO, 100 * COMPARE_BATCH_LEVEL);

	if (n)
		fprintf(
		    out,
		    "\nnote: the commits' runs were not interleaved in time (one commit's all "
		    "before the other's), and\n%zu monitor stat%s (%s%s) moved between the "
		    "commits by no more than a drift in time, fitted\nwithin each commit's runs, "
		    "explains: [drift], not changed (--all shows %s).  To compare\n%s, "
		    "interleave the runs (run -r 1 --commit A, then --commit B, and again), or "
		    "reboot\nbefore each run.\n",
		    n, n == 1 ? "" : "s", text_safe(first), n > 1 ? ", ..." : "",
		    n == 1 ? "it" : "them", n == 1 ? "it" : "them");
	n = rows_with(c, V_PER_OP_SAME, &first);
	if (n)
		fprintf(out,
			"\nnote: %zu monitor stat%s (%s%s) moved with the headline (%s) but not "
			"per op\n(the stat over the headline, run by run): [per-op-unchanged], not "
			"changed (--all shows %s).\n",
			n, n == 1 ? "" : "s", text_safe(first), n > 1 ? ", ..." : "",
			text_safe(c->headline_stat), n == 1 ? "it" : "them");
}

static void print_header(const struct comparison *c, FILE *out)
{
	const struct result_group *g0 = &c->groups[0];
	char keys[512] = "", vals[1024] = "";
	bool differs = false;

	fprintf(out, "========================================================================="
		     "================\n");
	for (int a = 0; a < AX_COUNT; a++) {
		bool same = g0->axes[a] != NULL;

		for (size_t g = 1; g < c->ngroups && same; g++)
			same = c->groups[g].axes[a] && !strcmp(c->groups[g].axes[a], g0->axes[a]);
		if (!same) {
			differs = differs || g0->axes[a];
			continue;
		}
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s",
			 keys[0] ? "/" : "", group_axis_names[a]);
		snprintf(vals + strlen(vals), sizeof(vals) - strlen(vals), "%s%s",
			 vals[0] ? "/" : "", text_safe(g0->axes[a]));
	}
	fprintf(out, "%s:\n  %s\n", keys, vals);
	if (differs) {
		/* The groups differ in more than the commit: say in what. */
		fprintf(out, "\nthe groups also differ in:\n");
		for (int a = 0; a < AX_COUNT; a++) {
			bool same = true;

			for (size_t g = 1; g < c->ngroups; g++)
				same = same && c->groups[g].axes[a] && g0->axes[a] &&
				       !strcmp(c->groups[g].axes[a], g0->axes[a]);
			if (same)
				continue;
			fprintf(out, "  %s:", group_axis_names[a]);
			for (size_t g = 0; g < c->ngroups; g++)
				fprintf(out, "%s %s", g ? " |" : "",
					c->groups[g].axes[a] ? text_safe(c->groups[g].axes[a])
							     : "?");
			fprintf(out, "\n");
		}
	}
	fprintf(out, "\ncommit:\n");
	for (size_t g = 0; g < c->ngroups; g++)
		fprintf(out, "  %s\n", text_safe(c->groups[g].commit));
	if (c->icount)
		fprintf(out, "\nEvery run is in QEMU's instruction-count mode (guest time = "
			     "instructions executed):\nthe changes are path-length changes, not "
			     "timings of real hardware, and contention\nbetween CPUs is not "
			     "measured; the noise threshold is %g%%.\n",
			c->opts.threshold_pct);
	print_set_aside(c, out);
	for (size_t g = 0; g < c->ngroups; g++) {
		int w = column_width(c, g);

		fprintf(out, g ? " " : "\n");
		if (g + 1 < c->ngroups)
			fprintf(out, "%-*.*s", w, w, text_safe(c->groups[g].commit));
		else
			fprintf(out, "%.*s", w, text_safe(c->groups[g].commit));
	}
	for (size_t g = 0; g < c->ngroups; g++) {
		fprintf(out, g ? " " : "\n");
		for (int k = column_width(c, g); k > 0; k--)
			fputc('-', out);
	}
	fprintf(out, "\n");
}

static void print_failures(const struct comparison *c, bool all, FILE *out)
{
	bool any = false;

	for (size_t i = 0; i < c->nrows; i++) {
		const struct stat_row *r = &c->rows[i];
		char cell[32];

		if (!r->failure || (!all && !row_is_notable(r, c->ngroups)))
			continue;
		if (!any) {
			put_extra(c, 0, out);
			fprintf(out, "       fail:runs");
			for (size_t g = 1; g < c->ngroups; g++) {
				put_extra(c, g, out);
				fprintf(out, "  %%reproduction    fail:runs");
			}
			fprintf(out, "\n");
			put_extra(c, 0, out);
			fprintf(out, "           |    ");
			for (size_t g = 1; g < c->ngroups; g++) {
				put_extra(c, g, out);
				fprintf(out, g + 1 < c->ngroups ? "         |             |   "
								: "         |             |");
			}
			fprintf(out, "\n");
			any = true;
		}
		if (r->fails[0])
			snprintf(cell, sizeof(cell), "%zu:%zu", r->fails[0], r->runs[0]);
		else
			snprintf(cell, sizeof(cell), ":%zu", r->runs[0]);
		put_extra(c, 0, out);
		fprintf(out, "%13s   ", cell);
		for (size_t g = 1; g < c->ngroups; g++) {
			char rep[32];

			snprintf(rep, sizeof(rep), "%+.0f%%", r->reproduction[g]);
			if (r->fails[g])
				snprintf(cell, sizeof(cell), "%zu:%zu", r->fails[g], r->runs[g]);
			else
				snprintf(cell, sizeof(cell), ":%zu", r->runs[g]);
			put_extra(c, g, out);
			fprintf(out, "%11s%14s   ", rep, cell);
		}
		fprintf(out, "  %s\n", text_safe(r->name));
	}
}

/* The headline row is always shown and says its verdict, except under --rule lkp, whose
 * table is the robot's line for line. */
static bool speaks_headline(const struct comparison *c, const struct stat_row *r)
{
	return c->opts.rule != RULE_LKP && row_is_headline(c, r);
}

/* The headline's verdict, group by group when there are several. */
static void print_headline_mark(const struct comparison *c, const struct stat_row *r, FILE *out)
{
	fprintf(out, "  [");
	for (size_t g = 1; g < c->ngroups; g++) {
		enum verdict v = r->verdict[g];

		fprintf(out, "%s%s", g > 1 ? " | " : "",
			v == V_NONE ? "inconclusive" : verdict_name(v));
		if (v == V_INCONCLUSIVE && r->runs_needed[g])
			fprintf(out, ": ~%u runs/side", r->runs_needed[g]);
	}
	fprintf(out, "]");
}

static void print_row(const struct comparison *c, const struct stat_row *r, bool verbose, FILE *out)
{
	char num[64], sd[32], ch[32];
	const char *mark = NULL;

	fmt_number(r->sum[0].mean, num, sizeof(num));
	fmt_stddev(&r->sum[0], sd, sizeof(sd));
	put_extra(c, 0, out);
	fprintf(out, "%10s", num);
	put_padded(out, sd, 6);
	for (size_t g = 1; g < c->ngroups; g++) {
		fmt_change(r, g, ch, sizeof(ch));
		fmt_number(r->sum[g].n ? r->sum[g].mean : NAN, num, sizeof(num));
		fmt_stddev(&r->sum[g], sd, sizeof(sd));
		put_extra(c, g, out);
		fprintf(out, "%11s%11s", ch, num);
		put_padded(out, sd, 6);
		if (!mark)
			mark = verdict_mark(r->verdict[g]);
	}
	fprintf(out, "  %s", text_safe(r->name));
	if (speaks_headline(c, r))
		print_headline_mark(c, r, out);
	else if (mark)
		fprintf(out, "  [%s]", mark);
	if (verbose) {
		for (size_t g = 1; g < c->ngroups; g++) {
			if (r->test[g] == TEST_NONE) {
				fprintf(out, "  (%s)", r->no_test[g] ? r->no_test[g] : "no test");
				continue;
			}
			fprintf(out, "  p=%.3g q=%.3g", r->p[g], r->q[g]);
			if (!isnan(r->lo[g]))
				fprintf(out,
					r->absolute ? " [%+.2f, %+.2f]" : " [%+.1f%%, %+.1f%%]",
					r->lo[g], r->hi[g]);
			fprintf(out, " %s %s", test_kind_name(r->test[g]),
				verdict_name(r->verdict[g]));
			if (r->verdict[g] == V_INCONCLUSIVE && r->runs_needed[g])
				fprintf(out, " (~%u runs/side to decide)", r->runs_needed[g]);
			if (r->floored[g])
				fprintf(out, " (variance floored to counting noise)");
			if (r->reason[g])
				fprintf(out, " (%s)", r->reason[g]);
		}
	}
	fprintf(out, "\n");
}

/* The atomic job's path_params from a commit directory laid out as the store lays it,
 * RESULTS/<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>: the
 * sixth component from the end, or NULL when the path is shorter. */
static const char *path_params_of(const char *dir, size_t *len)
{
	const char *end = dir + strlen(dir), *p = end;
	int slashes = 0;

	while (p > dir && p[-1] == '/')
		p--;
	end = p;
	for (; p > dir; p--) {
		if (p[-1] != '/')
			continue;
		if (++slashes == 6) {
			*len = (size_t)(end - p);
			return p;
		}
		end = p - 1;
	}
	return NULL;
}

/* The closing lines: the headline's verdict in words, and what to type when it is
 * inconclusive. */
static void print_headline_words(const struct comparison *c, FILE *out)
{
	for (size_t i = 0; i < c->nrows; i++) {
		const struct stat_row *r = &c->rows[i];

		if (!row_is_headline(c, r))
			continue;
		for (size_t g = 1; g < c->ngroups; g++) {
			enum verdict v = r->verdict[g];
			unsigned need = r->runs_needed[g];
			size_t len = 0;
			const char *pp;

			fprintf(out, "\n%s, %s against %s: %s", text_safe(r->name),
				text_safe(c->groups[g].commit), text_safe(c->groups[0].commit),
				v == V_NONE ? "inconclusive" : verdict_name(v));
			/* The test's estimate with its interval: one estimator, inside it.  The
			 * table's %change (of the means, LKP's) is named when it reads otherwise. */
			if (!isnan(r->est[g]) && !isnan(r->lo[g])) {
				char e[32], m[32];

				snprintf(e, sizeof(e), r->absolute ? "%+.2f" : "%+.1f%%", r->est[g]);
				snprintf(m, sizeof(m), r->absolute ? "%+.2f" : "%+.1f%%", r->change[g]);
				fprintf(out,
					r->absolute ? " (%s, 95%% interval [%+.2f, %+.2f]"
						    : " (%s, 95%% interval [%+.1f%%, %+.1f%%]",
					e, r->lo[g], r->hi[g]);
				if (r->has_change[g] && strcmp(e, m))
					fprintf(out, "; the table's %s is of the means%s", m,
						r->test[g] == TEST_YUEN_LOG || r->test[g] == TEST_YUEN
						    ? ", outliers in"
						    : "");
				fprintf(out, ")");
			} else if (r->has_change[g])
				fprintf(out, r->absolute ? " (%+.2f)" : " (%+.1f%%)", r->change[g]);
			fprintf(out, ".\n");
			if (v != V_INCONCLUSIVE && v != V_NONE)
				continue;
			pp = path_params_of(c->groups[0].dir, &len);
			if (c->apart[g] && r->batch_sd[g] > 0) {
				fprintf(out,
					"Each commit's runs were one window of their own, and the "
					"interval holds how much two\nwindows differ, which more runs "
					"in the same windows do not narrow.  Interleave the\ncommits' "
					"runs, then compare again:\n"
					"  for i in 1 2 3 4 5; do scalebench run JOB.yaml --commit %s -r 1; "
					"scalebench run JOB.yaml --commit %s -r 1; done\n",
					text_safe(c->groups[0].commit), text_safe(c->groups[g].commit));
				goto job;
			}
			if (!need)
				need = c->min_runs < 3 ? 3 : (unsigned)c->min_runs + 2;
			if (need >= 1000) {
				fprintf(out,
					"The noise is too large to decide this change with any "
					"practical number of runs (1000 or more per side): quiet "
					"the machine and run both commits again.\n");
				continue;
			}
			fprintf(
			    out,
			    "Not enough runs to decide: about %u runs per side would.  Add runs "
			    "to both commits, then compare again:\n",
			    need);
			for (size_t k = 0; k < c->ngroups; k += g) {
				size_t have = c->groups[k].nruns;

				fprintf(out, "  scalebench run JOB.yaml --commit %s --repeat %zu\n",
					text_safe(c->groups[k].commit), need > have ? need - have : 1);
			}
		job:
			if (pp) {
				char *job = strndup(pp, len);

				fprintf(out, "(JOB.yaml: the job file that ran %s)\n",
					job ? text_safe(job) : "?");
				free(job);
			}
		}
	}
}

void print_robot_table(const struct comparison *c, bool all, bool verbose, FILE *out)
{
	bool any = false, notable = false;

	if (c->opts.rule == RULE_LKP) {
		lkp_print_table(c, all, verbose, out);
		return;
	}
	print_header(c, out);
	print_failures(c, all, out);
	/* Headline stats first, then the monitors' in name order. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < c->nrows; i++) {
			const struct stat_row *r = &c->rows[i];

			if (r->failure || r->headline != (pass == 0))
				continue;
			if (row_is_notable(r, c->ngroups))
				notable = true;
			else if (!all && !speaks_headline(c, r) &&
				 !(r->headline && c->min_runs < 2))
				continue;
			if (!any) {
				put_extra(c, 0, out);
				fprintf(out, "         %%stddev");
				for (size_t g = 1; g < c->ngroups; g++) {
					put_extra(c, g, out);
					fprintf(out, "     %%change         %%stddev");
				}
				fprintf(out, "\n");
				put_extra(c, 0, out);
				fprintf(out, "             \\  ");
				for (size_t g = 1; g < c->ngroups; g++) {
					put_extra(c, g, out);
					fprintf(out, g + 1 < c->ngroups
							 ? "        |                \\  "
							 : "        |                \\");
				}
				fprintf(out, "\n");
				any = true;
			}
			print_row(c, r, verbose, out);
		}
	}
	if (!notable)
		fprintf(out, "\n(no stat changed significantly; --all shows every stat)\n");
	if (c->opts.rule != RULE_LKP)
		print_headline_words(c, out);
}

static const char *direction_name(enum stat_direction d)
{
	return d == DIR_HIGHER_BETTER ? "higher" : d == DIR_LOWER_BETTER ? "lower" : "neutral";
}

static void put_double(struct jsonw *w, const char *key, double v)
{
	jsonw_key(w, key);
	jsonw_double(w, v);
}

static void put_string(struct jsonw *w, const char *key, const char *v)
{
	jsonw_key(w, key);
	jsonw_string(w, v);
}

static void put_bool(struct jsonw *w, const char *key, bool v)
{
	jsonw_key(w, key);
	jsonw_bool(w, v);
}

static void put_summary(struct jsonw *w, const struct stat_summary *m)
{
	jsonw_key(w, "summary");
	if (!m->n) {
		jsonw_null(w);
		return;
	}
	jsonw_begin_object(w);
	jsonw_key(w, "n");
	jsonw_uint(w, m->n);
	put_double(w, "mean", m->mean);
	put_double(w, "stddev", m->stddev);
	put_double(w, "stddev_pct", m->stddev_pct);
	put_double(w, "min", m->min);
	put_double(w, "max", m->max);
	put_double(w, "median", m->median);
	jsonw_end_object(w);
}

/* One group's figures for a row against the base: change, interval, verdict. */
static void put_figures(struct jsonw *w, const struct stat_row *r, size_t g)
{
	put_double(w, "change", r->has_change[g] ? r->change[g] : NAN);
	put_double(w, "estimate", r->est[g]);
	jsonw_key(w, "interval");
	jsonw_begin_array(w);
	jsonw_double(w, r->lo[g]);
	jsonw_double(w, r->hi[g]);
	jsonw_end_array(w);
	put_string(w, "verdict", verdict_name(r->verdict[g]));
}

static void put_row(struct jsonw *w, const struct comparison *c, const struct stat_row *r)
{
	jsonw_begin_object(w);
	put_string(w, "name", r->name);
	put_bool(w, "failure", r->failure);
	put_bool(w, "headline", r->headline);
	put_bool(w, "absolute", r->absolute);
	put_string(w, "direction", direction_name(r->dir));
	jsonw_key(w, "groups");
	jsonw_begin_array(w);
	for (size_t g = 0; g < c->ngroups; g++) {
		jsonw_begin_object(w);
		put_summary(w, &r->sum[g]);
		if (r->failure) {
			jsonw_key(w, "fail_runs");
			jsonw_begin_array(w);
			jsonw_uint(w, r->fails[g]);
			jsonw_uint(w, r->runs[g]);
			jsonw_end_array(w);
		}
		if (g && r->failure)
			put_double(w, "reproduction", r->reproduction[g]);
		if (g && !r->failure) {
			put_figures(w, r, g);
			put_string(w, "test", test_kind_name(r->test[g]));
			put_double(w, "p", r->p[g]);
			put_double(w, "q", r->q[g]);
			if (r->runs_needed[g]) {
				jsonw_key(w, "runs_needed");
				jsonw_uint(w, r->runs_needed[g]);
			}
			if (r->no_test[g])
				put_string(w, "no_test", r->no_test[g]);
			if (r->reason[g])
				put_string(w, "reason", r->reason[g]);
			if (r->floored[g])
				put_bool(w, "variance_floored", true);
			/* sides apart in time: sigma_b on the test's scale, and the history's
			 * batches it came from (0: the default margin) */
			if (c->apart[g] && r->test[g] != TEST_NONE) {
				jsonw_key(w, "batch_noise");
				jsonw_begin_object(w);
				put_double(w, "sd", r->batch_sd[g]);
				jsonw_key(w, "batches");
				jsonw_uint(w, r->batches[g]);
				jsonw_end_object(w);
			}
		}
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
}

static void put_group(struct jsonw *w, const struct result_group *gr)
{
	jsonw_begin_object(w);
	put_string(w, "dir", gr->dir);
	put_string(w, "commit", gr->commit);
	jsonw_key(w, "runs");
	jsonw_uint(w, gr->nruns);
	jsonw_key(w, "axes");
	jsonw_begin_object(w);
	for (int a = 0; a < AX_COUNT; a++)
		if (gr->axes[a])
			put_string(w, group_axis_names[a], gr->axes[a]);
	jsonw_end_object(w);
	jsonw_key(w, "notes");
	jsonw_begin_array(w);
	for (size_t i = 0; i < gr->nnotes; i++)
		jsonw_string(w, gr->notes[i]);
	jsonw_end_array(w);
	const char *why;
	size_t busy = group_busy_runs(gr, &why);
	jsonw_key(w, "busy_runs");
	jsonw_uint(w, busy);
	if (why)
		put_string(w, "busy_reason", why);
	jsonw_end_object(w);
}

/* The headline: its stat and direction, and what a bot acts on without searching "stats":
 * the second group's change, interval and verdict against the base (the usual A/B), and with
 * more groups each one's in "groups" (index 1 on; 0 is the base). */
static void put_headline(struct jsonw *w, const struct comparison *c)
{
	const struct stat_row *r = NULL;

	for (size_t i = 0; i < c->nrows && !r; i++)
		if (!c->rows[i].failure && !strcmp(c->rows[i].name, c->headline_stat))
			r = &c->rows[i];
	jsonw_key(w, "headline");
	jsonw_begin_object(w);
	put_string(w, "stat", c->headline_stat);
	put_string(w, "direction", direction_name(c->headline_dir));
	if (r && c->ngroups > 1) {
		put_figures(w, r, 1);
		if (c->ngroups > 2) {
			jsonw_key(w, "groups");
			jsonw_begin_array(w);
			for (size_t g = 1; g < c->ngroups; g++) {
				jsonw_begin_object(w);
				put_figures(w, r, g);
				jsonw_end_object(w);
			}
			jsonw_end_array(w);
		}
	}
	jsonw_end_object(w);
}

void comparison_write_json(const struct comparison *c, const char *job, struct jsonw *w)
{
	jsonw_begin_object(w);
	if (job)
		put_string(w, "job", job);
	jsonw_key(w, "groups");
	jsonw_begin_array(w);
	for (size_t g = 0; g < c->ngroups; g++)
		put_group(w, &c->groups[g]);
	jsonw_end_array(w);
	put_string(w, "rule", c->opts.rule == RULE_LKP ? "lkp" : "stats");
	put_double(w, "threshold_pct", c->opts.threshold_pct);
	jsonw_key(w, "icount");
	jsonw_bool(w, c->icount);
	put_double(w, "q_max", c->opts.q_max);
	put_bool(w, "regression", comparison_regressed(c));
	if (c->headline_stat)
		put_headline(w, c);
	/* A list, in the table's order (failures, then the headline family, then the monitors,
	 * each in name order); each stat names itself. */
	jsonw_key(w, "stats");
	jsonw_begin_array(w);
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < c->nrows; i++) {
			const struct stat_row *r = &c->rows[i];
			int in = r->failure ? 0 : r->headline ? 1 : 2;

			if (in == pass)
				put_row(w, c, r);
		}
	jsonw_end_array(w);
	jsonw_end_object(w);
}
