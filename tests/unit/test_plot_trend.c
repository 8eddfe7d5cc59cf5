/* Unit tests of the trend plot (plot_trend): the 80x20 text page with the change point's line
 * and label, commit labels cut to 10 characters and thinned from the newest, SVG and PNG
 * files written whole, the small sparkline, hostile titles and labels, refused input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../analyze/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAXN 500

static double runs[MAXN][3];
static char labels[MAXN][48];
static struct plot_trend_point pts[MAXN];

/* n commits with 40-hex labels, a 6% drop at commit `at`; 3 runs each around the level. */
static void make_series(size_t n, size_t at, const char *label_prefix)
{
	for (size_t i = 0; i < n; i++) {
		double level = 1e6 * (i >= at ? 0.94 : 1);

		for (size_t j = 0; j < 3; j++)
			runs[i][j] = level * (1 + 0.01 * ((double)((i * 7 + j * 3) % 5) - 2) / 2);
		snprintf(labels[i], sizeof(labels[i]), "%s%02zx%030zx%08zx", label_prefix, i % 256,
			 (size_t)0, i * 2654435761u % 0xffffffffu);
		pts[i] = (struct plot_trend_point){labels[i], runs[i], 3,
						   (runs[i][0] + runs[i][1] + runs[i][2]) / 3};
	}
}

static char *text_plot(const char *title, size_t n, const struct plot_trend_mark *m, size_t nm)
{
	char *buf = NULL, err[512] = "";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (plot_trend(title, "ops/s", pts, n, m, nm, NULL, PLOT_TEXT, NULL, f, err, sizeof(err)))
		fail_msg("plot_trend: %s", err);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static size_t count_lines(const char *s)
{
	size_t k = 0;

	for (; *s; s++)
		k += *s == '\n';
	return k;
}

static void test_text_page(void **state)
{
	struct plot_trend_mark m = {30, -6.0};
	char *out, first[12], last[11];
	(void)state;

	make_series(60, 30, "");
	out = text_plot("will-it-scale.per_process_ops", 60, &m, 1);
	assert_int_equal(count_lines(out), 20);
	assert_non_null(strstr(out, "will-it-scale.per_process_ops"));
	assert_non_null(strstr(out, "-6.0%"));
	/* labels cut to 10 characters, the full one never printed; the newest always named */
	snprintf(last, sizeof(last), "%.10s", labels[59]);
	assert_non_null(strstr(out, last));
	assert_null(strstr(out, labels[59]));
	snprintf(first, sizeof(first), "%.11s", labels[59]);
	assert_null(strstr(out, first));
	/* the points above and below the line: both levels are drawn */
	assert_non_null(strchr(out, '*'));
	for (const char *p = out; (p = strchr(p, '\n')); p++)
		assert_true(p == out || p[-1] != ' ');
	free(out);
}

/* 500 commits: the x axis names a handful, never two labels run together. */
static void test_text_many_commits(void **state)
{
	char *out, *axis, *nl;
	size_t words = 0;
	(void)state;

	make_series(500, 250, "");
	out = text_plot("t", 500, NULL, 0);
	assert_int_equal(count_lines(out), 20);
	/* the tic line: the last non-empty line */
	nl = out + strlen(out);
	while (nl > out && nl[-1] == '\n')
		*--nl = '\0';
	while (nl > out && nl[-1] != '\n')
		nl--;
	axis = nl;
	for (char *p = strtok(axis, " \n"); p; p = strtok(NULL, " \n")) {
		assert_int_equal(strlen(p), 10);
		words++;
	}
	assert_true(words >= 3 && words <= 6);
	free(out);
}

static char *tmpdir(void)
{
	char *d = strdup("/tmp/test_plot_trend.XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void test_svg_png(void **state)
{
	struct plot_trend_mark m[] = {{20, -6.0}, {40, 3.25}};
	char *dir = tmpdir(), path[256], err[512] = "", *svg;
	size_t len;
	(void)state;

	make_series(60, 20, "");
	snprintf(path, sizeof(path), "%s/trend.svg", dir);
	if (plot_trend("trend", "ops/s", pts, 60, m, 2, NULL, PLOT_SVG, path, NULL, err,
		       sizeof(err)))
		fail_msg("svg: %s", err);
	svg = slurp(path, &len);
	assert_non_null(strstr(svg, "<svg"));
	assert_non_null(strstr(svg, "</svg>"));
	assert_non_null(strstr(svg, "width=\"800\""));
	assert_non_null(strstr(svg, "-6.0%"));
	assert_non_null(strstr(svg, "+3.2%") ? strstr(svg, "+3.2%") : strstr(svg, "+3.3%"));
	free(svg);
	unlink(path);
	snprintf(path, sizeof(path), "%s/trend.png", dir);
	if (plot_trend("trend", NULL, pts, 60, m, 2, NULL, PLOT_PNG, path, NULL, err, sizeof(err)))
		fail_msg("png: %s", err);
	svg = slurp(path, &len);
	assert_true(len > 1000 && !memcmp(svg, "\x89PNG", 4));
	free(svg);
	unlink(path);
	assert_int_equal(rmdir(dir), 0); /* no temp file left beside */
	free(dir);
}

/* The sparkline: its own size, the change point's line, no title, tics or labels. */
static void test_sparkline(void **state)
{
	struct plot_trend_mark m = {30, -6.0};
	struct plot_trend_opts o = {.width = 160, .height = 40, .sparkline = true};
	char *dir = tmpdir(), path[256], err[512] = "", *svg;
	size_t len;
	(void)state;

	make_series(60, 30, "");
	snprintf(path, sizeof(path), "%s/spark.svg", dir);
	if (plot_trend("a title", "ops/s", pts, 60, &m, 1, &o, PLOT_SVG, path, NULL, err,
		       sizeof(err)))
		fail_msg("sparkline: %s", err);
	svg = slurp(path, &len);
	assert_non_null(strstr(svg, "width=\"160\""));
	assert_non_null(strstr(svg, "height=\"40\""));
	assert_null(strstr(svg, "a title"));
	assert_null(strstr(svg, "-6.0%"));
	assert_null(strstr(svg, labels[59] + 30));
	free(svg);
	unlink(path);
	rmdir(dir);
	free(dir);
}

/* Titles and labels reach gnuplot as single-quoted strings: nothing in them runs. */
static void test_hostile_text(void **state)
{
	const char *title = "it's `touch /tmp/plot-trend-pwned` @x $means \\n";
	struct plot_trend_mark m = {30, -6.0};
	char *out;
	(void)state;

	unlink("/tmp/plot-trend-pwned");
	make_series(60, 30, "'`x\n");
	out = text_plot(title, 60, &m, 1);
	assert_non_null(strstr(out, "it's `touch /tmp/plot-trend-pwned` @x $means \\n"));
	assert_int_equal(count_lines(out), 20);
	assert_int_equal(access("/tmp/plot-trend-pwned", F_OK), -1);
	free(out);
}

static void test_refused(void **state)
{
	double nan_run[3] = {NAN, NAN, NAN};
	struct plot_trend_point p[2] = {{"a", nan_run, 3, NAN}, {"b", nan_run, 3, NAN}};
	char err[512] = "";
	(void)state;

	assert_int_equal(
	    plot_trend("t", NULL, p, 0, NULL, 0, NULL, PLOT_TEXT, NULL, stdout, err, sizeof(err)),
	    -1);
	assert_int_equal(
	    plot_trend("t", NULL, p, 2, NULL, 0, NULL, PLOT_TEXT, NULL, stdout, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "no finite values"));
	make_series(10, 5, "");
	assert_int_equal(
	    plot_trend("t", NULL, pts, 10, NULL, 0, NULL, PLOT_SVG, NULL, NULL, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "output file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text_page),	 cmocka_unit_test(test_text_many_commits),
	    cmocka_unit_test(test_svg_png),	 cmocka_unit_test(test_sparkline),
	    cmocka_unit_test(test_hostile_text), cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
