#include "plot.h"
#include "../lib/outfile.h"
#include "../lib/run_command.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEXT_COLS	   80
#define TEXT_ROWS	   20
#define GNUPLOT_TIMEOUT_MS 60000
#define OUT_CAP		   (4u << 20)
#define ERR_CAP		   (64u << 10)
#define MISSING_HINT	   "install gnuplot-nox (make setup)"
#define GFX_WIDTH	   800
#define GFX_HEIGHT	   480

/* Point characters of the text plots.  '+', '-', '|' and '.' are left out: the dumb terminal
 * draws borders, tics and our connecting lines with them. */
static const char markers[] = "*O#x@%&=~^ABCDEFGHIJKLMNPQRSTUVWXYZ";
_Static_assert(sizeof(markers) - 1 == PLOT_MAX_SERIES, "one marker per series");

/* Point types of the graphic terminals: filled circle, square, triangles, diamond, ... */
static const int gfx_points[] = {7, 5, 9, 11, 13, 6, 4, 8, 10, 12, 14, 1, 2, 3};

/* ---- finding and running gnuplot ---- */

static bool is_executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

static int gnuplot_path(char *bin, size_t len, char *err, size_t errlen)
{
	const char *env = getenv("SCALEBENCH_GNUPLOT");
	const char *path = getenv("PATH");

	if (env && *env) {
		if (!is_executable(env)) {
			snprintf(err, errlen,
				 "gnuplot not found: SCALEBENCH_GNUPLOT=%s is not an executable "
				 "file; " MISSING_HINT,
				 env);
			return -1;
		}
		snprintf(bin, len, "%s", env);
		return 0;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		/* An empty PATH element means the current directory. */
		if (snprintf(bin, len, "%.*s%sgnuplot", (int)n, n ? path : ".", "/") < (int)len &&
		    is_executable(bin))
			return 0;
		path += n + (path[n] == ':');
	}
	snprintf(err, errlen, "gnuplot not found: " MISSING_HINT);
	return -1;
}

/* gnuplot's stderr as one line: its messages without the echoed command, the caret line and
 * the "line N:" position (a line of our generated script, meaningless to the user). */
static void gnuplot_error(const char *text, char *err, size_t errlen)
{
	size_t used = (size_t)snprintf(err, errlen, "gnuplot failed:");
	const char *line = text ? text : "";
	bool any = false;

	while (*line) {
		size_t n = strcspn(line, "\n");
		const char *p = line, *end = line + n;
		const char *q;

		line = end + (*end == '\n');
		while (p < end && isspace((unsigned char)*p))
			p++;
		while (end > p && isspace((unsigned char)end[-1]))
			end--;
		if (p == end || !strncmp(p, "gnuplot>", 8) || strspn(p, " ^") >= (size_t)(end - p))
			continue;
		if (*p == '"' && (q = memchr(p + 1, '"', (size_t)(end - p - 1))))
			p = q + 1 + (q + 1 < end && q[1] == ' ');
		if (end - p > 5 && !strncmp(p, "line ", 5)) {
			q = p + 5;
			while (q < end && isdigit((unsigned char)*q))
				q++;
			if (q < end && *q == ':' && q > p + 5)
				for (p = q + 1; p < end && isspace((unsigned char)*p);)
					p++;
		}
		if (used < errlen)
			used += (size_t)snprintf(err + used, errlen - used, "%s ", any ? ";" : "");
		/* Runs of blanks (gnuplot aligns its messages) become one space. */
		for (; p < end && used + 1 < errlen; p++) {
			if (isspace((unsigned char)*p) && isspace((unsigned char)p[1]))
				continue;
			err[used++] = isspace((unsigned char)*p) ? ' ' : *p;
		}
		if (used < errlen)
			err[used] = '\0';
		any = true;
	}
	if (!any && used < errlen)
		snprintf(err + used, errlen - used, " no message");
}

/* Feed the script to gnuplot's stdin while collecting its stdout and stderr: child_run's one
 * poll loop, as gnuplot may print while it is still reading. */
static int gnuplot_run(const char *script, size_t len, struct run_buf *out, char *err,
		       size_t errlen)
{
	/* The script by name: gnuplot reads a named file a buffer at a time but its stdin a
	 * byte per read(2) (3 million reads for a site of plots); stdin is a pipe, which
	 * /dev/stdin opens again. */
	char bin[PATH_MAX], arg_defaults[] = "-d", arg_script[] = "/dev/stdin";
	const char *argv[] = {bin, arg_defaults, arg_script, NULL};
	struct child_process cmd = {.argv = argv,
				    .in = RUN_IN_BUFFER,
				    .in_buf = script,
				    .in_len = len,
				    .out = RUN_OUT_CAPTURE,
				    .err = RUN_OUT_CAPTURE,
				    .out_text.max = OUT_CAP,
				    .err_text.max = ERR_CAP,
				    .timeout_ms = GNUPLOT_TIMEOUT_MS,
				    .end_group = true};
	int rc = -1;

	if (gnuplot_path(bin, sizeof(bin), err, errlen))
		return -1;
	if (child_run(&cmd, err, errlen)) {
		size_t n = strlen(err);

		if (cmd.pid < 0 && errno == ENOENT && n < errlen)
			snprintf(err + n, errlen - n, "; " MISSING_HINT);
	} else if (cmd.interrupted) {
		/* Its group is ended already: the caller removes the output and stops. */
		snprintf(err, errlen, "interrupted by signal %d while %s ran", cmd.interrupted, bin);
	} else if (cmd.timed_out) {
		snprintf(err, errlen, "%s did not finish within %d s; killed", bin,
			 GNUPLOT_TIMEOUT_MS / 1000);
	} else if (cmd.exit_code == 0) {
		rc = 0;
	} else if (cmd.err_text.len) {
		gnuplot_error(cmd.err_text.p, err, errlen);
	} else if (cmd.term_signal) {
		snprintf(err, errlen, "%s killed by signal %d", bin, cmd.term_signal);
	} else {
		snprintf(err, errlen, "%s exited with status %d", bin, cmd.exit_code);
	}
	if (!rc && cmd.out_text.truncated) {
		snprintf(err, errlen, "%s printed more than %u bytes", bin, OUT_CAP);
		rc = -1;
	}
	*out = cmd.out_text;
	cmd.out_text.p = NULL;
	child_release(&cmd);
	return rc;
}

bool plot_available(char *err, size_t errlen)
{
	static const char script[] = "exit\n";
	struct run_buf out = {0};
	int rc = gnuplot_run(script, sizeof(script) - 1, &out, err, errlen);

	free(out.p);
	return rc == 0;
}

/* ---- script text ---- */

/* A gnuplot single-quoted string: only '' is special inside, so no backslash escapes,
 * backquote commands or @macros can fire from a title.  A newline would end the command. */
static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'')
			fputs("''", f);
		else
			fputc(c < 0x20 || c == 0x7f ? ' ' : c, f);
	}
	fputc('\'', f);
}

/* Copy s into dst keeping at most cols characters (UTF-8 sequences count as one and are never
 * cut), ending in "..." when shortened. */
static void fit_text(char *dst, size_t dstlen, const char *s, size_t cols)
{
	size_t total = 0, keep, bytes = 0, c = 0;

	for (const char *p = s; *p; p++)
		total += ((unsigned char)*p & 0xc0) != 0x80;
	keep = total <= cols ? total : cols > 3 ? cols - 3 : cols;
	for (; s[bytes]; bytes++) {
		if (((unsigned char)s[bytes] & 0xc0) != 0x80 && c++ == keep)
			break;
	}
	if (bytes >= dstlen)
		bytes = dstlen - 1;
	while (bytes && ((unsigned char)s[bytes] & 0xc0) == 0x80)
		bytes--;
	snprintf(dst, dstlen, "%.*s%s", (int)bytes, s, keep < total && cols > 3 ? "..." : "");
}

static void put_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("NaN", f);
}

/* The data range [lo, hi] widened by 10% each side so no point sits on the border, and not
 * pushed below 0 when the data is positive: a count axis showing -5000 looks like a bug.
 * (Data that reaches 0 keeps its margin, or its points would hide in the border.) */
static void padded_range(double lo, double hi, double *rlo, double *rhi)
{
	double pad = (hi - lo) * 0.1;

	if (!(pad > 0) || !isfinite(pad))
		pad = fabs(hi) > 0 ? fabs(hi) * 0.05 : 1;
	*rlo = lo > 0 && lo - pad < 0 ? 0 : lo - pad;
	*rhi = hi + pad;
}

/* The y range of a sample or scalability plot: in PNG/SVG from zero (or from the lowest value
 * when one is negative), so that the height of a point reads as its size and a 2% change does
 * not fill the frame; with PLOT_Y_AUTO, and always in text, the data's padded range: the
 * robot's 20-line plot would put every run on one row. */
static void y_range(double lo, double hi, enum plot_format fmt, unsigned flags, double *rlo,
		    double *rhi)
{
	padded_range(lo, hi, rlo, rhi);
	if (fmt != PLOT_TEXT && !(flags & PLOT_Y_AUTO) && lo >= 0)
		*rlo = 0;
}

/* A tic step of 1, 2, 5, 10, 20, ... giving at most max_tics tics over span, for axes of
 * whole numbers (run index, nr_task) where gnuplot's own choice could be 0.5.  0: no such
 * step (let gnuplot choose). */
static double int_tic_step(double span, int max_tics)
{
	static const double mult[] = {1, 2, 5};

	if (!isfinite(span) || span <= 0)
		return 0;
	for (double base = 1; isfinite(base); base *= 10)
		for (int i = 0; i < 3; i++)
			if (span / (base * mult[i]) <= max_tics)
				return base * mult[i];
	return 0;
}

static void put_datablock(FILE *f, size_t idx, const double *x, const double *y, const double *e,
			  size_t n)
{
	fprintf(f, "$s%zu << EOD\n", idx);
	for (size_t i = 0; i < n; i++) {
		put_num(f, x[i]);
		fputc(' ', f);
		put_num(f, y[i]);
		if (e) {
			fputc(' ', f);
			put_num(f, isfinite(e[i]) ? e[i] : 0);
		}
		fputc('\n', f);
	}
	fputs("EOD\n", f);
}

/* The text legend: entries "[c] label" under the plot, one per line up to 4 groups, else in
 * columns so the plot keeps its height.  Labels are shortened to their column. */
static int text_legend(FILE *f, char (*entry)[4 * TEXT_COLS], size_t n)
{
	size_t max_lines = n <= 16 ? 4 : 6;
	size_t cols = n <= 4 ? 1 : (n + max_lines - 1) / max_lines;
	size_t lines = (n + cols - 1) / cols;
	size_t width = TEXT_COLS / cols;

	for (size_t i = 0; i < n; i++) {
		char fitted[4 * TEXT_COLS];

		fit_text(fitted, sizeof(fitted), entry[i], width - 1);
		fprintf(f, "set label %zu ", i + 1);
		put_quoted(f, fitted);
		/* Character coordinates count rows up from the bottom line of the canvas. */
		fprintf(f, " at character %zu, character %zu\n", (i % cols) * width,
			lines - 1 - i / cols);
	}
	return (int)lines;
}

/* No `set output`: gnuplot writes the plot to its stdout and render() writes the file, so a
 * write error (a full disk) is seen, not a truncated image renamed into place. */
static void put_terminal(FILE *f, enum plot_format fmt, unsigned width, unsigned height)
{
	if (!width || !height) {
		width = GFX_WIDTH;
		height = GFX_HEIGHT;
	}
	switch (fmt) {
	case PLOT_TEXT:
		fprintf(f, "set terminal dumb nofeed size %d,%d\n", TEXT_COLS, TEXT_ROWS);
		break;
	case PLOT_PNG:
		/* pngcairo draws far better than libgd's png; not every gnuplot build has it. */
		fprintf(f,
			"if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {\n"
			"  set terminal pngcairo size %u,%u\n"
			"} else {\n"
			"  set terminal png size %u,%u\n"
			"}\n",
			width, height, width, height);
		break;
	case PLOT_SVG:
		fprintf(f, "set terminal svg size %u,%u background '#ffffff'\n", width, height);
		break;
	}
	/* Plain text: enhanced mode would turn _ and ^ in stat names into sub/superscripts. */
	fputs("set termoption noenhanced\n", f);
}

/* ---- running one plot ---- */

static bool check_args(const void *s, size_t nseries, enum plot_format fmt, const char *out_path,
		       FILE *text_out, char *err, size_t errlen)
{
	if (!s || !nseries) {
		snprintf(err, errlen, "plot: no series to plot");
		return false;
	}
	if (nseries > PLOT_MAX_SERIES) {
		snprintf(err, errlen, "plot: %zu series, at most %d fit one plot", nseries,
			 PLOT_MAX_SERIES);
		return false;
	}
	if (fmt == PLOT_TEXT && !text_out) {
		snprintf(err, errlen, "plot: text format needs an output stream");
		return false;
	}
	if (fmt != PLOT_TEXT && fmt != PLOT_PNG && fmt != PLOT_SVG) {
		snprintf(err, errlen, "plot: unknown format %d (expected text, png or svg)",
			 (int)fmt);
		return false;
	}
	if (fmt != PLOT_TEXT) {
		if (!out_path || !*out_path) {
			snprintf(err, errlen, "plot: png and svg formats need an output file");
			return false;
		}
		for (const char *p = out_path; *p; p++) {
			if ((unsigned char)*p < 0x20 || *p == 0x7f) {
				snprintf(err, errlen,
					 "cannot write %s: control characters in the file name",
					 out_path);
				return false;
			}
		}
	}
	return true;
}

/* The dumb terminal's page, cleaned for email: no form feed, no trailing blanks, every line
 * ending in a newline (with nofeed the last one does not). */
static int write_text(const struct run_buf *out, FILE *text_out, char *err, size_t errlen)
{
	const char *p = out->p ? out->p : "";

	if (!*p) {
		snprintf(err, errlen, "gnuplot printed no plot");
		return -1;
	}
	while (*p) {
		size_t n = strcspn(p, "\n"), start = 0;

		while (start < n && p[start] == '\f')
			start++;
		while (n > start && (p[n - 1] == ' ' || p[n - 1] == '\r'))
			n--;
		fprintf(text_out, "%.*s\n", (int)(n - start), p + start);
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
	if (fflush(text_out) || ferror(text_out)) {
		snprintf(err, errlen, "cannot write the text plot: %s",
			 strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

typedef void (*script_body)(FILE *f, enum plot_format fmt, const void *arg);

/* Build the script in the C locale (a locale's decimal comma would break every number),
 * run gnuplot, and commit the output only when it succeeded. */
static int render(enum plot_format fmt, unsigned width, unsigned height, const char *out_path,
		  FILE *text_out, script_body body, const void *arg, char *err, size_t errlen)
{
	struct outfile of = {0};
	struct run_buf out = {0};
	char *script = NULL;
	size_t len = 0;
	locale_t c_locale, old;
	FILE *f;
	int rc = -1;

	if (fmt != PLOT_TEXT && outfile_open(&of, out_path, err, errlen))
		return -1;
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	f = open_memstream(&script, &len);
	if (!c_locale || !f) {
		snprintf(err, errlen, "plot: %s", strerror(errno));
		if (f)
			fclose(f);
		goto out;
	}
	old = uselocale(c_locale);
	put_terminal(f, fmt, width, height);
	body(f, fmt, arg);
	/* Closing the output makes the svg terminal finish its document. */
	fputs("set output\n", f);
	uselocale(old);
	if (fclose(f)) {
		snprintf(err, errlen, "plot: %s", strerror(errno));
		goto out;
	}
	if (gnuplot_run(script, len, &out, err, errlen))
		goto out;
	if (fmt == PLOT_TEXT) {
		rc = write_text(&out, text_out, err, errlen);
		goto out;
	}
	if (!out.len) {
		snprintf(err, errlen, "gnuplot wrote nothing for %s", out_path);
		goto out;
	}
	/* A short write shows in outfile_commit's flush, with its errno. */
	fwrite(out.p, 1, out.len, of.fp);
	rc = outfile_commit(&of, err, errlen);
out:
	if (rc && fmt != PLOT_TEXT)
		outfile_abort(&of);
	if (c_locale)
		freelocale(c_locale);
	free(script);
	free(out.p);
	return rc;
}

static size_t count_finite(const double *y, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += y && isfinite(y[i]);
	return k;
}

static void put_title(FILE *f, enum plot_format fmt, const char *title)
{
	char fitted[4 * TEXT_COLS];

	if (!title || !*title)
		return;
	fputs("set title ", f);
	if (fmt == PLOT_TEXT) {
		fit_text(fitted, sizeof(fitted), title, TEXT_COLS);
		put_quoted(f, fitted);
	} else {
		put_quoted(f, title);
	}
	fputc('\n', f);
}

/* ---- sample plot ---- */

struct samples_arg {
	const char *title;
	const struct plot_series *s;
	size_t nseries;
	double ylo, yhi;
	size_t max_n;
};

static void series_name(char *dst, size_t len, const struct plot_series *s, size_t i)
{
	if (s[i].label && *s[i].label)
		snprintf(dst, len, "%s", s[i].label);
	else
		snprintf(dst, len, "group %zu", i + 1);
}

/* Group i's runs sit around x = i + 1, spread in run order over SAMPLE_SPREAD of the unit:
 * commits along the x axis, each group's runs apart, none stacked on another group's. */
#define SAMPLE_SPREAD 0.6

static double sample_x(size_t group, size_t run, size_t nruns)
{
	double at = (double)(group + 1);

	return nruns > 1
		   ? at - SAMPLE_SPREAD / 2 + SAMPLE_SPREAD * (double)run / (double)(nruns - 1)
		   : at;
}

/* The mean of series i's finite values (NaN when it has none): the value its mean mark is
 * drawn at. */
static double series_mean(const struct plot_series *s)
{
	double sum = 0;
	size_t k = 0;

	for (size_t j = 0; s->y && j < s->n; j++)
		if (isfinite(s->y[j])) {
			sum += s->y[j];
			k++;
		}
	return k ? sum / (double)k : NAN;
}

/* The mark of each group's mean: a horizontal segment across its runs ($mean, one segment
 * per group, a blank line apart).  Returns whether any group has one. */
static bool put_means(FILE *f, const struct plot_series *s, size_t nseries)
{
	bool any = false;

	fputs("$mean << EOD\n", f);
	for (size_t i = 0; i < nseries; i++) {
		double m = series_mean(&s[i]), half = SAMPLE_SPREAD / 2 + 0.08;

		if (!isfinite(m))
			continue;
		for (int end = -1; end <= 1; end += 2) {
			put_num(f, (double)(i + 1) + end * half);
			fputc(' ', f);
			put_num(f, m);
			fputc('\n', f);
		}
		fputc('\n', f);
		any = true;
	}
	fputs("EOD\n", f);
	return any;
}

/* A sha's usual abbreviation: the fewest characters of a commit sha a tic shows. */
#define SHA_ABBREV 10

/* A label that is a commit sha: at least 12 lowercase hex digits and nothing else. */
static bool label_is_sha(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n >= 12 && !s[n];
}

/* How much of series i's label a text tic shows when it is a sha: as git abbreviates, the
 * fewest characters, at least SHA_ABBREV, that tell it from every other label (two shas of
 * one tree often share their first ten); 0 when it is not a sha (it is shown whole). */
static size_t sha_abbrev(const struct plot_series *s, size_t nseries, size_t i)
{
	const char *a = s[i].label;
	size_t keep = SHA_ABBREV, len;

	if (!a || !label_is_sha(a))
		return 0;
	len = strlen(a);
	for (size_t k = 0; k < nseries; k++) {
		const char *b = s[k].label;
		size_t common = 0;

		if (k == i || !b)
			continue;
		while (a[common] && a[common] == b[common])
			common++;
		if (common + 1 > keep)
			keep = common + 1;
	}
	return keep < len ? keep : len;
}

/* The x tics: each group's name under its runs.  In text, a sha is abbreviated and any name
 * is cut to the room between two tics less a blank, so that neighbours never run together
 * (the frame is some 66 of the 80 columns, the y tic labels to its left). */
static void put_group_tics(FILE *f, enum plot_format fmt, const struct plot_series *s,
			   size_t nseries)
{
	size_t room = (TEXT_COLS - 16) / nseries, cols = room > 2 ? room - 1 : 1;

	fputs("set xtics (", f);
	for (size_t i = 0; i < nseries; i++) {
		char name[3 * TEXT_COLS], fitted[4 * TEXT_COLS];
		size_t abbrev = fmt == PLOT_TEXT ? sha_abbrev(s, nseries, i) : 0;

		series_name(name, sizeof(name), s, i);
		if (abbrev && abbrev < sizeof(name))
			name[abbrev] = '\0';
		if (fmt == PLOT_TEXT)
			fit_text(fitted, sizeof(fitted), name, cols);
		else
			snprintf(fitted, sizeof(fitted), "%s", name);
		fputs(i ? ", " : "", f);
		put_quoted(f, fitted);
		fprintf(f, " %zu", i + 1);
	}
	fputs(")\n", f);
}

/* The text plot's mean mark: dots, which no group's point character is (see markers). */
#define TEXT_MEAN_MARK '.'

static void samples_body(FILE *f, enum plot_format fmt, const void *varg)
{
	const struct samples_arg *a = varg;
	char entry[PLOT_MAX_SERIES + 1][4 * TEXT_COLS];
	const char *sep = "plot ";
	bool means;

	for (size_t i = 0; i < a->nseries; i++) {
		double *x = malloc((a->s[i].n ? a->s[i].n : 1) * sizeof(*x));

		if (!x)
			continue;
		for (size_t j = 0; j < a->s[i].n; j++)
			x[j] = sample_x(i, j, a->s[i].n);
		put_datablock(f, i, x, a->s[i].y, NULL, a->s[i].y ? a->s[i].n : 0);
		free(x);
	}
	means = put_means(f, a->s, a->nseries);
	put_title(f, fmt, a->title);
	fprintf(f, "set xrange [0.5:%g]\n", (double)a->nseries + 0.5);
	fputs("set yrange [", f);
	put_num(f, a->ylo);
	fputc(':', f);
	put_num(f, a->yhi);
	fputs("]\n", f);
	if (fmt == PLOT_TEXT) {
		/* The robot's look: no tic marks eating the bottom row of points, no mirrored
		 * tics on the right, a legend of point characters instead of a key. */
		fputs("set xtics nomirror scale 0\nset ytics nomirror\nset key off\n", f);
		put_group_tics(f, fmt, a->s, a->nseries);
		for (size_t i = 0; i < a->nseries; i++) {
			char name[3 * TEXT_COLS];

			series_name(name, sizeof(name), a->s, i);
			snprintf(entry[i], sizeof(entry[i]), "[%c] %s", markers[i], name);
		}
		/* The legend lists what is drawn: each group's character, then the mean's. */
		if (means)
			snprintf(entry[a->nseries], sizeof(entry[a->nseries]), "[%c] mean",
				 TEXT_MEAN_MARK);
		fprintf(f, "set bmargin %d\n",
			text_legend(f, entry, a->nseries + means) + 2);
	} else {
		put_group_tics(f, fmt, a->s, a->nseries);
		fputs("set xlabel 'commit (runs in run order)'\nset grid ytics\n", f);
		/* Below the frame, where no point can be. */
		fputs("set key outside below center horizontal\nset bmargin 6\n", f);
	}
	/* The means first, so that every run's point is drawn over them. */
	if (means && fmt == PLOT_TEXT) {
		/* Points, not lines: the dumb terminal ends a dotted line in '+'. */
		fputs("plot $mean using 1:2 with linespoints lt 0 pt '.' notitle", f);
		sep = ", \\\n     ";
	} else if (means) {
		fputs("plot $mean using 1:2 with lines lc rgb '#000000' lw 2 title 'mean'", f);
		sep = ", \\\n     ";
	}
	for (size_t i = 0; i < a->nseries; i++) {
		bool empty = !count_finite(a->s[i].y, a->s[i].n);
		char name[3 * TEXT_COLS];

		if (fmt == PLOT_TEXT) {
			if (empty)
				continue;
			fprintf(f, "%s$s%zu using 1:2 with points pt '%c' notitle", sep, i,
				markers[i]);
		} else {
			series_name(name, sizeof(name), a->s, i);
			if (empty)
				fprintf(f, "%skeyentry with points", sep);
			else
				fprintf(f, "%s$s%zu using 1:2 with points", sep, i);
			fprintf(f, " lt %zu pt %d ps 1.3 title ", i + 1,
				gfx_points[i % (sizeof(gfx_points) / sizeof(gfx_points[0]))]);
			put_quoted(f, name);
		}
		sep = ", \\\n     ";
	}
	fputc('\n', f);
}

int plot_samples(const char *title, const struct plot_series *s, size_t nseries,
		 enum plot_format fmt, unsigned flags, const char *out_path, FILE *text_out,
		 char *err, size_t errlen)
{
	struct samples_arg a = {.title = title, .s = s, .nseries = nseries};
	double lo = INFINITY, hi = -INFINITY;

	if (!check_args(s, nseries, fmt, out_path, text_out, err, errlen))
		return -1;
	for (size_t i = 0; i < nseries; i++) {
		if (s[i].n > a.max_n)
			a.max_n = s[i].n;
		for (size_t j = 0; s[i].y && j < s[i].n; j++) {
			if (isfinite(s[i].y[j])) {
				lo = fmin(lo, s[i].y[j]);
				hi = fmax(hi, s[i].y[j]);
			}
		}
	}
	if (lo > hi) {
		snprintf(err, errlen, "plot %s: no finite values in any series",
			 title ? title : "samples");
		return -1;
	}
	y_range(lo, hi, fmt, flags, &a.ylo, &a.yhi);
	return render(fmt, 0, 0, out_path, text_out, samples_body, &a, err, errlen);
}

/* ---- scalability plot ---- */

struct xy_point {
	double x, y, e;
};

static int by_x(const void *a, const void *b)
{
	const struct xy_point *p = a, *q = b;

	return (p->x > q->x) - (p->x < q->x);
}

struct scal_arg {
	const char *title, *ylabel;
	const struct plot_xy_series *s;
	size_t nseries;
	double xlo, xhi, ylo, yhi, xstep;
};

/* Rows of the text scalability plot's frame, about (the title, tics, xlabel and legend take
 * the others). */
#define TEXT_BAR_ROWS 10

static void scal_body(FILE *f, enum plot_format fmt, const void *varg)
{
	const struct scal_arg *a = varg;
	char entry[PLOT_MAX_SERIES + 1][4 * TEXT_COLS];
	const char *ylabel = a->ylabel && *a->ylabel ? a->ylabel : "ops/s";
	const char *sep = "plot ";
	bool has_data[PLOT_MAX_SERIES] = {false}, bars = false;

	for (size_t i = 0; i < a->nseries; i++) {
		const struct plot_xy_series *s = &a->s[i];
		struct xy_point *pt = malloc((s->n ? s->n : 1) * sizeof(*pt));
		double *x, *y, *e;
		size_t k = 0;

		if (!pt)
			continue;
		for (size_t j = 0; s->x && s->y && j < s->n; j++)
			if (isfinite(s->x[j]) && isfinite(s->y[j]))
				pt[k++] =
				    (struct xy_point){s->x[j], s->y[j], s->yerr ? s->yerr[j] : 0};
		qsort(pt, k, sizeof(*pt), by_x);
		/* Three columns for put_datablock, from the sorted points. */
		x = malloc((k ? k : 1) * 3 * sizeof(*x));
		if (x) {
			y = x + k;
			e = y + k;
			for (size_t j = 0; j < k; j++) {
				x[j] = pt[j].x;
				y[j] = pt[j].y;
				e[j] = pt[j].e;
				/* a bar the text plot shows: past the point's own row of the
				 * frame's some TEXT_BAR_ROWS */
				bars = bars || (s->yerr && isfinite(e[j]) &&
						fabs(e[j]) * TEXT_BAR_ROWS >= a->yhi - a->ylo);
			}
			put_datablock(f, i, x, y, s->yerr ? e : NULL, k);
			has_data[i] = k > 0;
			free(x);
		}
		free(pt);
	}
	put_title(f, fmt, a->title);
	fputs("set xlabel 'nr_task'\n", f);
	if (fmt == PLOT_TEXT) {
		/* The dumb terminal prints a ylabel over the tic labels; the top line above
		 * the axis is free and reads as the axis' unit (a label numbered past the
		 * legend's). */
		fprintf(f, "set label %zu ", a->nseries + 2);
		put_quoted(f, ylabel);
		fprintf(f, " at character 0, character %d\n", TEXT_ROWS - 1);
	} else {
		fputs("set ylabel ", f);
		put_quoted(f, ylabel);
		fputc('\n', f);
	}
	fputs("set xrange [", f);
	put_num(f, a->xlo);
	fputc(':', f);
	put_num(f, a->xhi);
	fputs("]\nset yrange [", f);
	put_num(f, a->ylo);
	fputc(':', f);
	put_num(f, a->yhi);
	fputs("]\n", f);
	if (a->xstep > 0)
		fprintf(f, "set xtics %g\n", a->xstep);
	/* Rates read better as "25.0M" than as gnuplot's "2.5e+07". */
	if (fmax(fabs(a->ylo), fabs(a->yhi)) >= 1e4)
		fputs("set format y '%.1s%c'\n", f);
	else
		fputs("set format y '%g'\n", f);
	if (fmt == PLOT_TEXT) {
		fputs("set xtics nomirror scale 0\nset ytics nomirror\nset key off\n", f);
		for (size_t i = 0; i < a->nseries; i++) {
			const char *label = a->s[i].label;

			if (label && *label)
				snprintf(entry[i], sizeof(entry[i]), "[%c] %s", markers[i], label);
			else
				snprintf(entry[i], sizeof(entry[i]), "[%c] group %zu", markers[i],
					 i + 1);
		}
		/* The legend lists what is drawn: the error bars too, dotted up and down from
		 * their point (no caps: the dumb terminal draws them as '+' beside the point,
		 * a character of no series). */
		fputs("set bars 0\n", f);
		if (bars)
			snprintf(entry[a->nseries], sizeof(entry[a->nseries]),
				 "[:] standard deviation");
		/* Rows under the plot: tic labels, xlabel, a blank, the legend. */
		fprintf(f, "set bmargin %d\n", text_legend(f, entry, a->nseries + bars) + 3);
	} else {
		/* Below the frame: inside, a key covers the points of some curve. */
		fputs("set grid\nset key outside below center horizontal\nset bmargin 6\n", f);
	}
	for (size_t i = 0; i < a->nseries; i++) {
		const char *style = a->s[i].yerr ? "yerrorlines" : "linespoints";
		const char *cols = a->s[i].yerr ? "1:2:3" : "1:2";
		char name[3 * TEXT_COLS];

		if (fmt == PLOT_TEXT) {
			if (!has_data[i])
				continue;
			/* lt 0 draws lines and bars in dots, so the point characters stand out. */
			fprintf(f, "%s$s%zu using %s with %s lt 0 pt '%c' notitle", sep, i, cols,
				style, markers[i]);
		} else {
			if (a->s[i].label && *a->s[i].label)
				snprintf(name, sizeof(name), "%s", a->s[i].label);
			else
				snprintf(name, sizeof(name), "group %zu", i + 1);
			if (has_data[i])
				fprintf(f, "%s$s%zu using %s with %s", sep, i, cols, style);
			else
				fprintf(f, "%skeyentry with linespoints", sep);
			fprintf(f, " lt %zu lw 1.5 pt %d ps 1.2 title ", i + 1,
				gfx_points[i % (sizeof(gfx_points) / sizeof(gfx_points[0]))]);
			put_quoted(f, name);
		}
		sep = ", \\\n     ";
	}
	fputc('\n', f);
}

int plot_scalability(const char *title, const char *ylabel, const struct plot_xy_series *s,
		     size_t nseries, enum plot_format fmt, unsigned flags, const char *out_path,
		     FILE *text_out, char *err, size_t errlen)
{
	struct scal_arg a = {.title = title, .ylabel = ylabel, .s = s, .nseries = nseries};
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	bool whole_x = true;

	if (!check_args(s, nseries, fmt, out_path, text_out, err, errlen))
		return -1;
	for (size_t i = 0; i < nseries; i++) {
		for (size_t j = 0; s[i].x && s[i].y && j < s[i].n; j++) {
			double x = s[i].x[j], y = s[i].y[j];
			double e = s[i].yerr && isfinite(s[i].yerr[j]) ? fabs(s[i].yerr[j]) : 0;

			if (!isfinite(x) || !isfinite(y))
				continue;
			xlo = fmin(xlo, x);
			xhi = fmax(xhi, x);
			ylo = fmin(ylo, y - e);
			yhi = fmax(yhi, y + e);
			whole_x = whole_x && x == floor(x) && fabs(x) < 1e15;
		}
	}
	if (xlo > xhi) {
		snprintf(err, errlen, "plot %s: no finite points in any series",
			 title ? title : "scalability");
		return -1;
	}
	/* Half the margin of y: the curve should use the width. */
	padded_range(xlo, xhi, &a.xlo, &a.xhi);
	a.xlo = xlo - (xlo - a.xlo) / 2;
	a.xhi = xhi + (a.xhi - xhi) / 2;
	y_range(ylo, yhi, fmt, flags, &a.ylo, &a.yhi);
	a.xstep = whole_x ? int_tic_step(a.xhi - a.xlo, 8) : 0;
	return render(fmt, 0, 0, out_path, text_out, scal_body, &a, err, errlen);
}

/* ---- trend plot ---- */

#define TREND_LABEL SHA_ABBREV /* characters of a commit label on the x axis */

struct trend_arg {
	const char *title, *ylabel;
	const struct plot_trend_point *p;
	size_t n;
	const struct plot_trend_mark *marks;
	size_t nmarks;
	bool sparkline;
	unsigned width;
	double ylo, yhi;
};

/* The first TREND_LABEL characters of a label (a sha's usual abbreviation), never cutting a
 * UTF-8 sequence; no "..." as a sha prefix reads whole. */
static void short_label(char *dst, size_t len, const char *s)
{
	size_t bytes = 0, chars = 0;

	for (; s && s[bytes]; bytes++)
		if (((unsigned char)s[bytes] & 0xc0) != 0x80 && chars++ == TREND_LABEL)
			break;
	snprintf(dst, len, "%.*s", (int)bytes, s ? s : "");
}

/* Commit tics: as many as fit (a label of 10 characters rotated by 45 degrees needs some
 * 40 px of width, 12 columns in text), evenly thinned, counted back from the newest commit,
 * which is always named. */
static void put_commit_tics(FILE *f, const struct trend_arg *a, enum plot_format fmt)
{
	size_t room = fmt == PLOT_TEXT ? (TEXT_COLS - 10) / (TREND_LABEL + 2)
				       : (a->width ? a->width : GFX_WIDTH) / 40;
	size_t step = room ? (a->n + room - 1) / room : a->n;
	const char *sep = "";

	if (!step)
		step = 1;
	fputs("set xtics (", f);
	for (size_t i = 0; i < a->n; i++) {
		char label[4 * TREND_LABEL + 1];

		if ((a->n - 1 - i) % step)
			continue;
		short_label(label, sizeof(label), a->p[i].commit);
		fputs(sep, f);
		put_quoted(f, label);
		fprintf(f, " %zu", i + 1);
		sep = ", ";
	}
	fputs(")\n", f);
}

static void trend_body(FILE *f, enum plot_format fmt, const void *varg)
{
	const struct trend_arg *a = varg;
	bool runs = fmt != PLOT_TEXT && !a->sparkline;
	size_t nruns = 0, k = 0;

	/* the means, commit i at x = i + 1 */
	fputs("$means << EOD\n", f);
	for (size_t i = 0; i < a->n; i++) {
		if (!isfinite(a->p[i].mean))
			continue;
		fprintf(f, "%zu ", i + 1);
		put_num(f, a->p[i].mean);
		fputc('\n', f);
	}
	fputs("EOD\n", f);
	if (runs) {
		fputs("$runs << EOD\n", f);
		for (size_t i = 0; i < a->n; i++) {
			for (size_t j = 0; a->p[i].runs && j < a->p[i].nruns; j++) {
				if (!isfinite(a->p[i].runs[j]))
					continue;
				fprintf(f, "%zu ", i + 1);
				put_num(f, a->p[i].runs[j]);
				fputc('\n', f);
				nruns++;
			}
		}
		fputs("EOD\n", f);
	}
	fprintf(f, "set xrange [0.5:%g]\n", (double)a->n + 0.5);
	fputs("set yrange [", f);
	put_num(f, a->ylo);
	fputc(':', f);
	put_num(f, a->yhi);
	fputs("]\nset key off\n", f);
	if (a->sparkline) {
		fputs("unset border\nunset xtics\nunset ytics\nset margins 0,0,0,0\n", f);
	} else {
		put_title(f, fmt, a->title);
		/* "981.5k" for rates; a trend spans a few %, so more digits than elsewhere */
		if (fmax(fabs(a->ylo), fabs(a->yhi)) >= 1e4) {
			double rel = (a->yhi - a->ylo) / fmax(fabs(a->ylo), fabs(a->yhi));

			fprintf(f, "set format y '%%.%ds%%c'\n",
				rel >= 0.5    ? 1
				: rel >= 0.05 ? 2
					      : 3);
		}
		put_commit_tics(f, a, fmt);
		if (fmt == PLOT_TEXT) {
			fputs("set xtics nomirror scale 0\nset ytics nomirror\n", f);
			/* a row for the change points' labels between the title and the frame */
			if (a->nmarks)
				fputs("set tmargin 4\nset title offset 0, 1\n", f);
		} else {
			fputs("set xtics rotate by -45 nomirror\nset ytics nomirror\n"
			      "set grid ytics\nset xlabel 'commit'\n",
			      f);
			if (a->ylabel && *a->ylabel) {
				fputs("set ylabel ", f);
				put_quoted(f, a->ylabel);
				fputc('\n', f);
			}
		}
	}
	/* each change point: a line between the last commit before it and the first after */
	for (size_t m = 0; m < a->nmarks; m++) {
		double x = (double)a->marks[m].index + 0.5;

		if (a->marks[m].index == 0 || a->marks[m].index >= a->n)
			continue;
		fprintf(f, "set arrow %zu from %g, graph 0 to %g, graph 1 nohead", m + 1, x, x);
		if (fmt != PLOT_TEXT)
			fputs(" dashtype 2 linecolor rgb '#d62728' linewidth 1.5", f);
		fputs(" front\n", f);
		if (!a->sparkline && isfinite(a->marks[m].change_pct)) {
			char text[32];

			snprintf(text, sizeof(text), "%+.1f%%", a->marks[m].change_pct);
			fprintf(f, "set label %zu ", ++k);
			put_quoted(f, text);
			/* above the frame, where no point can overwrite it */
			fprintf(f, " at %g, graph 1 left offset character 2, character 1", x);
			if (fmt != PLOT_TEXT)
				fputs(" textcolor rgb '#d62728' front", f);
			fputc('\n', f);
		}
	}
	if (fmt == PLOT_TEXT)
		fputs("plot $means using 1:2 with points pt '*' notitle\n", f);
	else if (a->sparkline)
		fputs("plot $means using 1:2 with lines linecolor rgb '#1f77b4' linewidth 1.5 "
		      "notitle\n",
		      f);
	else
		fprintf(f,
			"plot %s$means using 1:2 with linespoints linecolor rgb '#1f77b4' "
			"linewidth 1.5 pointtype 7 pointsize 0.6 title 'mean'\n",
			nruns ? "$runs using 1:2 with points linecolor rgb '#a0a0a0' pointtype 7 "
				"pointsize 0.35 title 'runs', "
			      : "");
}

int plot_trend(const char *title, const char *ylabel, const struct plot_trend_point *p, size_t n,
	       const struct plot_trend_mark *marks, size_t nmarks,
	       const struct plot_trend_opts *opts, enum plot_format fmt, const char *out_path,
	       FILE *text_out, char *err, size_t errlen)
{
	struct trend_arg a = {.title = title,
			      .ylabel = ylabel,
			      .p = p,
			      .n = n,
			      .marks = marks,
			      .nmarks = marks ? nmarks : 0};
	double lo = INFINITY, hi = -INFINITY;

	if (!check_args(p, n ? 1 : 0, fmt, out_path, text_out, err, errlen))
		return -1;
	if (opts) {
		a.sparkline = opts->sparkline;
		a.width = opts->width && opts->height ? opts->width : 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (isfinite(p[i].mean)) {
			lo = fmin(lo, p[i].mean);
			hi = fmax(hi, p[i].mean);
		}
		/* the runs widen the range only where they are drawn */
		for (size_t j = 0; fmt != PLOT_TEXT && !a.sparkline && p[i].runs && j < p[i].nruns;
		     j++) {
			if (isfinite(p[i].runs[j])) {
				lo = fmin(lo, p[i].runs[j]);
				hi = fmax(hi, p[i].runs[j]);
			}
		}
	}
	if (lo > hi) {
		snprintf(err, errlen, "plot %s: no finite values in the series",
			 title ? title : "trend");
		return -1;
	}
	padded_range(lo, hi, &a.ylo, &a.yhi);
	return render(fmt, opts ? opts->width : 0, opts ? opts->height : 0, out_path, text_out,
		      trend_body, &a, err, errlen);
}
