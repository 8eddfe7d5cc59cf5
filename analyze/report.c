/* The comparison as the kernel test robot prints it, and as JSON for bots. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
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
			 vals[0] ? "/" : "", g0->axes[a]);
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
					c->groups[g].axes[a] ? c->groups[g].axes[a] : "?");
			fprintf(out, "\n");
		}
	}
	fprintf(out, "\ncommit:\n");
	for (size_t g = 0; g < c->ngroups; g++)
		fprintf(out, "  %s\n", c->groups[g].commit);
	fprintf(out, "\n%-16.16s", g0->commit);
	for (size_t g = 1; g < c->ngroups; g++)
		fprintf(out, g + 1 < c->ngroups ? " %-27.27s" : " %.27s", c->groups[g].commit);
	fprintf(out, "\n----------------");
	for (size_t g = 1; g < c->ngroups; g++)
		fprintf(out, " ---------------------------");
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
			fprintf(out, "       fail:runs");
			for (size_t g = 1; g < c->ngroups; g++)
				fprintf(out, "  %%reproduction    fail:runs");
			fprintf(out, "\n           |    ");
			for (size_t g = 1; g < c->ngroups; g++)
				fprintf(out, g + 1 < c->ngroups ? "         |             |   "
								: "         |             |");
			fprintf(out, "\n");
			any = true;
		}
		if (r->fails[0])
			snprintf(cell, sizeof(cell), "%zu:%zu", r->fails[0], r->runs[0]);
		else
			snprintf(cell, sizeof(cell), ":%zu", r->runs[0]);
		fprintf(out, "%13s   ", cell);
		for (size_t g = 1; g < c->ngroups; g++) {
			char rep[32];

			snprintf(rep, sizeof(rep), "%+.0f%%", r->reproduction[g]);
			if (r->fails[g])
				snprintf(cell, sizeof(cell), "%zu:%zu", r->fails[g], r->runs[g]);
			else
				snprintf(cell, sizeof(cell), ":%zu", r->runs[g]);
			fprintf(out, "%11s%14s   ", rep, cell);
		}
		fprintf(out, "  %s\n", r->name);
	}
}

static void print_row(const struct comparison *c, const struct stat_row *r, bool verbose, FILE *out)
{
	char num[64], sd[32], ch[32];
	const char *mark = NULL;

	fmt_number(r->sum[0].mean, num, sizeof(num));
	fmt_stddev(&r->sum[0], sd, sizeof(sd));
	fprintf(out, "%10s", num);
	put_padded(out, sd, 6);
	for (size_t g = 1; g < c->ngroups; g++) {
		fmt_change(r, g, ch, sizeof(ch));
		fmt_number(r->sum[g].n ? r->sum[g].mean : NAN, num, sizeof(num));
		fmt_stddev(&r->sum[g], sd, sizeof(sd));
		fprintf(out, "%11s%11s", ch, num);
		put_padded(out, sd, 6);
		if (!mark)
			mark = verdict_mark(r->verdict[g]);
	}
	fprintf(out, "  %s", r->name);
	if (mark)
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
		}
	}
	fprintf(out, "\n");
}

void print_robot_table(const struct comparison *c, bool all, bool verbose, FILE *out)
{
	bool any = false;

	print_header(c, out);
	print_failures(c, all, out);
	/* Headline stats first, then the monitors' in name order. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < c->nrows; i++) {
			const struct stat_row *r = &c->rows[i];

			if (r->failure || r->headline != (pass == 0))
				continue;
			if (!all && !row_is_notable(r, c->ngroups) &&
			    !(r->headline && c->min_runs < 2))
				continue;
			if (!any) {
				fprintf(out, "         %%stddev");
				for (size_t g = 1; g < c->ngroups; g++)
					fprintf(out, "     %%change         %%stddev");
				fprintf(out, "\n             \\  ");
				for (size_t g = 1; g < c->ngroups; g++)
					fprintf(out, g + 1 < c->ngroups
							 ? "        |                \\  "
							 : "        |                \\");
				fprintf(out, "\n");
				any = true;
			}
			print_row(c, r, verbose, out);
		}
	}
	if (!any)
		fprintf(out, "\n(no stat changed significantly; --all shows every stat)\n");
}

/* Rows are written with fprintf, not built as jansson trees: thousands of stats per
 * comparison, and the trees cost more than the statistics. */
static void put_value(FILE *out, double v)
{
	if (isnan(v) || isinf(v))
		fprintf(out, "null"); /* JSON has no NaN or infinity */
	else
		fprintf(out, "%.7g", v);
}

static void put_num(FILE *out, const char *key, double v)
{
	putc('"', out);
	fputs(key, out);
	fputs("\": ", out);
	put_value(out, v);
}

static void put_row(FILE *out, const struct comparison *c, const struct stat_row *r)
{
	fprintf(out,
		"{\"failure\": %s, \"headline\": %s, \"absolute\": %s, \"direction\": \"%s\", "
		"\"groups\": [",
		r->failure ? "true" : "false", r->headline ? "true" : "false",
		r->absolute ? "true" : "false",
		r->dir == DIR_HIGHER_BETTER  ? "higher"
		: r->dir == DIR_LOWER_BETTER ? "lower"
					     : "neutral");
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct stat_summary *m = &r->sum[g];

		fprintf(out, "%s\n   {\"summary\": ", g ? "," : "");
		if (!m->n) {
			fprintf(out, "null");
		} else {
			fprintf(out, "{\"n\": %zu, ", m->n);
			put_num(out, "mean", m->mean);
			fprintf(out, ", ");
			put_num(out, "stddev", m->stddev);
			fprintf(out, ", ");
			put_num(out, "stddev_pct", m->stddev_pct);
			fprintf(out, ", ");
			put_num(out, "min", m->min);
			fprintf(out, ", ");
			put_num(out, "max", m->max);
			fprintf(out, ", ");
			put_num(out, "median", m->median);
			fprintf(out, "}");
		}
		if (r->failure)
			fprintf(out, ", \"fail_runs\": [%zu, %zu]", r->fails[g], r->runs[g]);
		if (g && r->failure) {
			fprintf(out, ", ");
			put_num(out, "reproduction", r->reproduction[g]);
		}
		if (g && !r->failure) {
			fprintf(out, ", ");
			put_num(out, "change", r->has_change[g] ? r->change[g] : NAN);
			fprintf(out, ", \"test\": \"%s\", ", test_kind_name(r->test[g]));
			put_num(out, "p", r->p[g]);
			fprintf(out, ", ");
			put_num(out, "q", r->q[g]);
			fprintf(out, ", \"interval\": [");
			put_value(out, r->lo[g]);
			fprintf(out, ", ");
			put_value(out, r->hi[g]);
			fprintf(out, "]");
			fprintf(out, ", \"verdict\": \"%s\"", verdict_name(r->verdict[g]));
			if (r->runs_needed[g])
				fprintf(out, ", \"runs_needed\": %u", r->runs_needed[g]);
			if (r->no_test[g])
				fprintf(out, ", \"no_test\": \"%s\"", r->no_test[g]);
		}
		fprintf(out, "}");
	}
	fprintf(out, "]}");
}

#define JSON_FLAGS (JSON_INDENT(1) | JSON_REAL_PRECISION(10))

int print_comparison_json(const struct comparison *c, FILE *out)
{
	json_t *head = json_object(), *groups = json_array();
	char *s;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct result_group *gr = &c->groups[g];
		json_t *o = json_object(), *axes = json_object(), *notes = json_array();

		json_object_set_new(o, "dir", json_string(gr->dir));
		json_object_set_new(o, "commit", json_string(gr->commit));
		json_object_set_new(o, "runs", json_integer((json_int_t)gr->nruns));
		for (int a = 0; a < AX_COUNT; a++)
			if (gr->axes[a])
				json_object_set_new(axes, group_axis_names[a],
						    json_string(gr->axes[a]));
		json_object_set_new(o, "axes", axes);
		for (size_t i = 0; i < gr->nnotes; i++)
			json_array_append_new(notes, json_string(gr->notes[i]));
		json_object_set_new(o, "notes", notes);
		json_array_append_new(groups, o);
	}
	json_object_set_new(head, "groups", groups);
	json_object_set_new(head, "rule", json_string(c->opts.rule == RULE_LKP ? "lkp" : "stats"));
	json_object_set_new(head, "threshold_pct", json_real(c->opts.threshold_pct));
	json_object_set_new(head, "q_max", json_real(c->opts.q_max));
	json_object_set_new(head, "regression", json_boolean(comparison_regressed(c)));
	/* The head without its closing brace, then "stats" one row at a time. */
	s = json_dumps(head, JSON_FLAGS);
	json_decref(head);
	if (!s)
		return -1;
	s[strlen(s) - 2] = '\0'; /* "\n}" */
	fprintf(out, "%s,\n \"stats\": {", s);
	free(s);
	for (size_t i = 0; i < c->nrows; i++) {
		/* Stat names come from files: let jansson quote them. */
		json_t *key = json_string(c->rows[i].name);
		char *k = key ? json_dumps(key, JSON_ENCODE_ANY) : NULL;

		fprintf(out, "%s\n  %s: ", i ? "," : "", k ? k : "\"?\"");
		put_row(out, c, &c->rows[i]);
		free(k);
		json_decref(key);
	}
	fprintf(out, "\n }\n}\n");
	return ferror(out) ? -1 : 0;
}
