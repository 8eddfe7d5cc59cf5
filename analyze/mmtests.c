#include "mmtests.h"
#include "../lib/text.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void mm_cell_fill(struct mm_cell *c, const double *x, size_t n)
{
	struct stat_summary s;
	double inv = 0;

	memset(c, 0, sizeof(*c));
	if (!n)
		return;
	stat_summarize(x, n, &s);
	for (size_t i = 0; i < n; i++)
		inv += x[i] > 0 ? 1.0 / x[i] : INFINITY;
	c->have = true;
	/* Throughputs average harmonically, as MMTests does: a rate over equal work. */
	c->hmean = isinf(inv) ? 0 : (double)n / inv;
	c->amean = s.mean;
	c->stddev = s.stddev;
	c->coeffvar = s.stddev_pct;
	c->min = s.min;
	c->max = s.max;
}

/* The change against the baseline, signed so that positive is better. */
static double better_pct(double base, double v, int better)
{
	if (base == 0)
		return 0;
	return better * 100.0 * (v - base) / fabs(base);
}

static void cell(FILE *out, int width, double v, double pct, bool mark)
{
	fprintf(out, " %*.2f %c%6.2f%%%c", width - 10, v, mark ? '*' : '(', pct, mark ? '*' : ')');
}

/* A sha is cut to the column as MMTests does; any other label is a name someone chose and is
 * shown whole, its column widened. */
static int label_width(const char *l)
{
	size_t n = 0;
	bool sha = true;

	for (; l[n]; n++)
		sha = sha && isxdigit((unsigned char)l[n]);
	return (sha && n >= 12) || n <= 23 ? 23 : (int)n;
}

void print_mmtests(FILE *out, const char *title, const char *const *raw_labels, size_t ngroups,
		   const unsigned *tasks, size_t ntasks, const struct mm_cell *cells,
		   enum stat_direction dir)
{
	/* Labels from the tree, escaped for the terminal, kept for the whole table. */
	char **labels = calloc(ngroups ? ngroups : 1, sizeof(*labels));
	bool rate = dir == DIR_HIGHER_BETTER;
	const char *const rows[] = {rate ? "Hmean" : "Amean", "Stddev", "CoeffVar", "Min", "Max"};
	/* Higher-better stats improve upwards; a spread always improves downwards. */
	int up = dir == DIR_LOWER_BETTER ? -1 : 1;

	if (!labels) {
		fputs("(out of memory)\n", out);
		return;
	}
	for (size_t g = 0; g < ngroups; g++)
		if (!(labels[g] = text_escape(raw_labels[g]))) {
			fputs("(out of memory)\n", out);
			goto out;
		}
	fprintf(out, "%s\n\n%-15s", text_safe(title), "");
	for (size_t g = 0; g < ngroups; g++)
		fprintf(out, " %*.*s", label_width(labels[g]), label_width(labels[g]), labels[g]);
	fprintf(out, "\n");
	for (size_t t = 0; t < ntasks; t++) {
		const struct mm_cell *base = &cells[t * ngroups];

		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			fprintf(out, "%-9s %5u", rows[r], tasks[t]);
			for (size_t g = 0; g < ngroups; g++) {
				const struct mm_cell *c = &cells[t * ngroups + g];
				double v, b;
				int sign = r == 1 || r == 2 ? -1 : up;

				if (!c->have || !base->have) {
					fprintf(out, " %*s", label_width(labels[g]),
						c->have ? "" : "-");
					continue;
				}
				v = r == 0   ? (rate ? c->hmean : c->amean)
				    : r == 1 ? c->stddev
				    : r == 2 ? c->coeffvar
				    : r == 3 ? c->min
					     : c->max;
				b = r == 0   ? (rate ? base->hmean : base->amean)
				    : r == 1 ? base->stddev
				    : r == 2 ? base->coeffvar
				    : r == 3 ? base->min
					     : base->max;
				cell(out, label_width(labels[g]), v,
				     g ? better_pct(b, v, sign) : 0.0,
				     r == 0 && g && c->significant);
			}
			fprintf(out, "\n");
		}
	}
out:
	for (size_t g = 0; g < ngroups; g++)
		free(labels[g]);
	free(labels);
}
