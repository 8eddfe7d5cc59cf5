/* Plots through gnuplot, fed a script and inline datablocks over a pipe (no temp files).
 *
 * The gnuplot binary is $SCALEBENCH_GNUPLOT when set, else `gnuplot` from $PATH; it runs with
 * -d so a user's ~/.gnuplot cannot change the output.  Titles and labels are passed as gnuplot
 * strings with quotes escaped and control characters turned into spaces, so any text is safe.
 * Files are written whole or not at all: gnuplot writes a temp file beside out_path, renamed
 * over it only when gnuplot succeeded.  Text plots are written to text_out only when complete.
 *
 * Every function returns 0, or -1 with err naming the reason: gnuplot missing, gnuplot's own
 * error message (from its stderr), or the output file that could not be written.
 */
#ifndef SCALEBENCH_PLOT_H
#define SCALEBENCH_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum plot_format { PLOT_TEXT, PLOT_PNG, PLOT_SVG };

/* The flags of plot_samples and plot_scalability.  The y axis of a PNG or SVG starts at zero
 * (lower when a value is negative), so that a point's height reads as its size;
 * PLOT_Y_AUTO spans the data instead, with a 10% margin, as the text plot always does (its 20
 * lines from zero would put every run on one row). */
enum plot_flags { PLOT_Y_AUTO = 1 };

/* One group's runs, in run order.  label may be NULL ("group N" is used then). */
struct plot_series {
	const char *label;
	const double *y;
	size_t n;
};

/* The sample plot for one stat: each run's value as a point, one series per group, the groups
 * along the x axis (group i's runs around x = i + 1 in run order, the x tic its label), each
 * group's mean a horizontal mark across its runs; NaN/inf values are left out.  The y axis as
 * flags say (text: the data with a 10% margin, not crossing 0 when all values are >= 0).
 * Every group is named by its label, "group N" when it has none; words such as bisect's
 * "bisect-good sample" are the caller's to put in the label.
 *
 * PLOT_TEXT: gnuplot's dumb terminal, 80x20, written to text_out as exactly 20 lines (trailing
 * blanks stripped), legend in the last lines: one point character per group ('*', 'O', '#',
 * 'x', '@', ...) and "[c] label" entries, then "[.] mean" for the means' dotted marks, several
 * per line past 4 entries.
 * PLOT_PNG / PLOT_SVG: written to out_path, 800x480, with a key below the frame instead of the
 * text legend ("mean" a black line).  At most PLOT_MAX_SERIES series. */
#define PLOT_MAX_SERIES 35
int plot_samples(const char *title, const struct plot_series *s, size_t nseries,
		 enum plot_format fmt, unsigned flags, const char *out_path, FILE *text_out,
		 char *err, size_t errlen);

/* One group's scalability curve: y[i] at x[i] (nr_task), yerr[i] its error bar half-height
 * (e.g. the stddev); yerr may be NULL.  Points are connected in increasing x. */
struct plot_xy_series {
	const char *label;
	const double *x, *y, *yerr;
	size_t n;
};

/* Scalability plot: ops/s (ylabel; "ops/s" when NULL) vs nr_task, one line per group, error
 * bars where yerr is given.  Same formats, flags, text size and legend style as plot_samples
 * (the points are means already: no mean mark), the legend always "[c] label". */
int plot_scalability(const char *title, const char *ylabel, const struct plot_xy_series *s,
		     size_t nseries, enum plot_format fmt, unsigned flags, const char *out_path,
		     FILE *text_out, char *err, size_t errlen);

/* One commit of a trend: its label and its runs' values (the mean is the caller's, as its
 * series computed it). */
struct plot_trend_point {
	const char *commit;
	const double *runs;
	size_t nruns;
	double mean;
};

/* A change point: the first commit after it (an index into the points) and its %change. */
struct plot_trend_mark {
	size_t index;
	double change_pct;
};

/* The plot's size in pixels for PNG/SVG (0, 0: 800x480; the text plot is always 80x20).
 * sparkline: a bare small plot for an index page (e.g. 160x40): the means as a line, change
 * points as vertical lines, no title, axes, tics, labels or key. */
struct plot_trend_opts {
	unsigned width, height;
	bool sparkline;
};

/* A stat's trend: one point per commit (its mean, joined by a line; each run as a faint point
 * on PNG/SVG), the commits along the x axis in order (labels cut to 10 characters, thinned so
 * they do not overlap), each change point a vertical line before its first commit, labelled
 * with its %change.  ylabel may be NULL (none); opts may be NULL (the defaults).  NaN/inf
 * values are left out; a series with no finite value is refused. */
int plot_trend(const char *title, const char *ylabel, const struct plot_trend_point *p, size_t n,
	       const struct plot_trend_mark *marks, size_t nmarks,
	       const struct plot_trend_opts *opts, enum plot_format fmt, const char *out_path,
	       FILE *text_out, char *err, size_t errlen);

/* Whether gnuplot can be run (found and starts); when not, err says so plainly, e.g.
 * "gnuplot not found: install gnuplot-nox (make setup)". */
bool plot_available(char *err, size_t errlen);

#endif
