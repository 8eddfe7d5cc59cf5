/* Unit tests of the gnuplot plots: the robot's 80x20 text sample plot and its legend, more
 * groups, PNG/SVG files written whole with no temp file left, unwritable paths, a missing
 * gnuplot, gnuplot's own errors, hostile labels, and the scalability plot with error bars. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../analyze/plot.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Runs of page_fault3's per_process_ops on two kernels: the good side is ~35% faster. */
static const double good[] = {457397, 457012, 458133, 456921, 457804, 456650, 458020, 457377};
static const double bad[] = {339092, 340011, 338562, 339940, 339518, 341003};

struct text {
	char *buf;
	size_t len;
	char *line[64];
	size_t nlines;
};

static void split_lines(struct text *t)
{
	char *p = t->buf;

	t->nlines = 0;
	while (*p && t->nlines < 64) {
		char *nl = strchr(p, '\n');

		assert_non_null(nl); /* every line ends in a newline */
		*nl = '\0';
		t->line[t->nlines++] = p;
		p = nl + 1;
	}
	assert_int_equal(*p, '\0');
}

/* The plot area: the lines strictly between the top and bottom border lines. */
static void plot_area(const struct text *t, size_t *first, size_t *last)
{
	size_t top = SIZE_MAX, bottom = 0;

	for (size_t i = 0; i < t->nlines; i++) {
		if (strstr(t->line[i], "+-----")) {
			if (top == SIZE_MAX)
				top = i;
			bottom = i;
		}
	}
	assert_true(top != SIZE_MAX && bottom > top + 1);
	*first = top + 1;
	*last = bottom - 1;
}

/* First line of the plot area holding c inside the frame (after the left border), or -1. */
static long row_of(const struct text *t, char c)
{
	size_t first, last;

	plot_area(t, &first, &last);
	for (size_t i = first; i <= last; i++) {
		const char *frame = strchr(t->line[i], '|');

		if (frame && strchr(frame + 1, c))
			return (long)i;
	}
	return -1;
}

static size_t count_in_area(const struct text *t, char c)
{
	size_t first, last, k = 0;

	plot_area(t, &first, &last);
	for (size_t i = first; i <= last; i++) {
		const char *frame = strchr(t->line[i], '|');

		for (const char *p = frame ? frame + 1 : ""; *p; p++)
			k += *p == c;
	}
	return k;
}

static bool text_has(const struct text *t, const char *s)
{
	for (size_t i = 0; i < t->nlines; i++)
		if (strstr(t->line[i], s))
			return true;
	return false;
}

static bool has_line(const struct text *t, const char *s)
{
	for (size_t i = 0; i < t->nlines; i++)
		if (!strcmp(t->line[i], s))
			return true;
	return false;
}

static void check_page(const struct text *t)
{
	/* The dumb terminal's 80x20 page, trailing blanks stripped. */
	assert_int_equal(t->nlines, 20);
	for (size_t i = 0; i < t->nlines; i++) {
		size_t n = strlen(t->line[i]);

		assert_true(n <= 80);
		assert_true(n == 0 || t->line[i][n - 1] != ' ');
		assert_null(strchr(t->line[i], '\f'));
	}
}

static int text_samples(const char *title, const struct plot_series *s, size_t n, struct text *t,
			char *err, size_t errlen)
{
	FILE *f = open_memstream(&t->buf, &t->len);
	int rc;

	assert_non_null(f);
	rc = plot_samples(title, s, n, PLOT_TEXT, 0, NULL, f, err, errlen);
	assert_int_equal(fclose(f), 0);
	if (!rc)
		split_lines(t);
	return rc;
}

static void test_text_two_groups(void **state)
{
	struct plot_series s[] = {{NULL, good, 8}, {NULL, bad, 6}};
	struct text t = {0};
	char err[512] = "";
	(void)state;

	assert_int_equal(text_samples("will-it-scale.per_process_ops", s, 2, &t, err, sizeof(err)),
			 0);
	check_page(&t);
	assert_non_null(strstr(t.line[2], "will-it-scale.per_process_ops"));
	/* Every group named, alone on a line, then the means' dots; no bisect words outside
	 * bisect. */
	assert_string_equal(t.line[17], "[*] group 1");
	assert_string_equal(t.line[18], "[O] group 2");
	assert_string_equal(t.line[19], "[.] mean");
	assert_true(count_in_area(&t, '.') > 0);
	assert_false(text_has(&t, "bisect"));
	/* All eight good runs on one row, above the six bad ones. */
	assert_true(row_of(&t, '*') > 0 && row_of(&t, 'O') > row_of(&t, '*'));
	assert_int_equal(count_in_area(&t, '*'), 8);
	assert_int_equal(count_in_area(&t, 'O'), 6);
	/* y is auto-scaled around the data, not from 0: every y tic is near it. */
	assert_true(text_has(&t, "460000"));
	for (size_t i = 0; i < t.nlines; i++) {
		double tic;

		if ((strchr(t.line[i], '|') || strstr(t.line[i], "+-")) &&
		    sscanf(t.line[i], "%lf", &tic) == 1)
			assert_true(tic >= 320000 && tic <= 480000);
	}
	free(t.buf);
}

/* Leftmost and rightmost column of c inside the plot area's frame, over all its rows. */
static void columns_of(const struct text *t, char c, long *lo, long *hi)
{
	size_t first, last;

	*lo = LONG_MAX;
	*hi = -1;
	plot_area(t, &first, &last);
	for (size_t i = first; i <= last; i++) {
		const char *frame = strchr(t->line[i], '|');

		for (const char *p = frame ? frame + 1 : ""; *p; p++) {
			if (*p != c)
				continue;
			*lo = *lo < p - t->line[i] ? *lo : p - t->line[i];
			*hi = *hi > p - t->line[i] ? *hi : p - t->line[i];
		}
	}
}

static void test_text_labels_whole(void **state)
{
	/* 20 characters each, alike in their first 10: cut, they would read the same. */
	struct plot_series s[] = {{"nightly-2026-11-03ab", good, 8},
				  {"nightly-2026-11-04cd", bad, 6}};
	struct text t = {0};
	char err[512] = "";
	long lo0, hi0, lo1, hi1;
	(void)state;

	assert_int_equal(text_samples("ops", s, 2, &t, err, sizeof(err)), 0);
	check_page(&t);
	assert_true(has_line(&t, "[*] nightly-2026-11-03ab"));
	assert_true(has_line(&t, "[O] nightly-2026-11-04cd"));
	/* The commits along the x axis: each its own columns, its label under them. */
	columns_of(&t, '*', &lo0, &hi0);
	columns_of(&t, 'O', &lo1, &hi1);
	assert_true(hi0 >= 0 && hi1 >= 0 && hi0 < lo1);
	assert_true(hi0 > lo0 && hi1 > lo1); /* runs apart, in run order */
	bool tics = false;

	for (size_t i = 0; i < t.nlines && !tics; i++) {
		const char *a = strstr(t.line[i], "nightly-2026-11-03ab");
		const char *b = strstr(t.line[i], "nightly-2026-11-04cd");

		tics = a && b && a < b;
	}
	assert_true(tics);
	free(t.buf);
}

static void test_text_same_values_apart(void **state)
{
	/* Three commits of identical runs: run index as x stacked them on x = 1..3. */
	static const double v[] = {100, 100, 100};
	struct plot_series s[] = {{"a", v, 3}, {"b", v, 3}, {"c", v, 3}};
	struct text t = {0};
	char err[512] = "";
	long lo[3], hi[3];
	(void)state;

	assert_int_equal(text_samples("ops", s, 3, &t, err, sizeof(err)), 0);
	check_page(&t);
	columns_of(&t, '*', &lo[0], &hi[0]);
	columns_of(&t, 'O', &lo[1], &hi[1]);
	columns_of(&t, '#', &lo[2], &hi[2]);
	assert_true(hi[0] >= 0 && hi[0] < lo[1] && hi[1] < lo[2]);
	assert_int_equal(count_in_area(&t, '*'), 3);
	assert_int_equal(count_in_area(&t, 'O'), 3);
	assert_int_equal(count_in_area(&t, '#'), 3);
	free(t.buf);
}

static void test_text_more_groups(void **state)
{
	static const char *const labels[] = {"alpha", "beta", "gamma", "delta", "epsilon"};
	static const char marks[] = "*O#x@";
	double y[5][4];
	struct plot_series s[5];
	struct text t = {0};
	char err[512] = "", want[64];
	(void)state;

	for (int i = 0; i < 5; i++) {
		for (int j = 0; j < 4; j++)
			y[i][j] = 100.0 * (i + 1) + j;
		s[i] = (struct plot_series){labels[i], y[i], 4};
	}
	assert_int_equal(text_samples("five kernels", s, 5, &t, err, sizeof(err)), 0);
	check_page(&t);
	assert_false(text_has(&t, "bisect"));
	for (int i = 0; i < 5; i++) {
		snprintf(want, sizeof(want), "[%c] %s", marks[i], labels[i]);
		assert_true(text_has(&t, want));
		assert_int_equal(count_in_area(&t, marks[i]), 4);
	}
	/* Higher groups plot higher: each marker's row above the previous group's. */
	for (int i = 1; i < 5; i++)
		assert_true(row_of(&t, marks[i]) < row_of(&t, marks[i - 1]));
	free(t.buf);
}

static void test_hostile_labels(void **state)
{
	const char *title = "it's a \"title\" `touch /tmp/plot-pwned` @x $s0 \\n {a}^b_c";
	struct plot_series s[] = {{"it's", good, 8}, {"say \"hi\"\nthere", bad, 6}};
	struct text t = {0};
	char err[512] = "";
	(void)state;

	unlink("/tmp/plot-pwned");
	assert_int_equal(text_samples(title, s, 2, &t, err, sizeof(err)), 0);
	check_page(&t);
	assert_non_null(strstr(t.line[2], "`touch /tmp/plot-pwned` @x $s0 \\n {a}^b_c"));
	assert_non_null(strstr(t.line[2], "it's a \"title\""));
	assert_true(has_line(&t, "[*] it's"));
	assert_true(has_line(&t, "[O] say \"hi\" there"));
	assert_int_equal(access("/tmp/plot-pwned", F_OK), -1);
	free(t.buf);
}

/* ---- files ---- */

static char *tmpdir(void)
{
	char *d = strdup("/tmp/test_plot.XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

/* The names in dir, sorted, joined by spaces. */
static void dir_listing(const char *dir, char *out, size_t len)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	size_t used = 0;

	assert_true(n >= 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.' ||
		    (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, "..")))
			used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " " : "",
						 ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
}

static void rm_dir(char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	char path[4096];

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, ".."))
			unlink(path);
		free(ents[i]);
	}
	free(ents);
	rmdir(dir);
	free(dir);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void test_png_and_svg(void **state)
{
	struct plot_series s[] = {{"it's \"a\"", good, 8}, {NULL, bad, 6}};
	char *dir = tmpdir(), png[4096], svg[4096], err[512] = "", names[512];
	size_t len;
	char *data;
	(void)state;

	snprintf(png, sizeof(png), "%s/ops.png", dir);
	snprintf(svg, sizeof(svg), "%s/ops.svg", dir);
	assert_int_equal(plot_samples("ops", s, 2, PLOT_PNG, 0, png, NULL, err, sizeof(err)), 0);
	assert_int_equal(plot_samples("ops", s, 2, PLOT_SVG, 0, svg, NULL, err, sizeof(err)), 0);
	data = slurp(png, &len);
	assert_true(len > 1000);
	assert_memory_equal(data, "\x89PNG\r\n\x1a\n", 8);
	free(data);
	data = slurp(svg, &len);
	assert_non_null(strstr(data, "<svg"));
	assert_non_null(strstr(data, "</svg>")); /* complete: the output was closed */
	assert_non_null(strstr(data, "it's \"a\""));
	assert_non_null(strstr(data, "group 2"));
	assert_null(strstr(data, "bisect"));
	free(data);
	/* The temp files gnuplot wrote were renamed over the targets. */
	dir_listing(dir, names, sizeof(names));
	assert_string_equal(names, "ops.png ops.svg");
	rm_dir(dir);
}

static void test_unwritable_path(void **state)
{
	struct plot_series s[] = {{NULL, good, 8}};
	char err[512] = "";
	(void)state;

	assert_int_equal(plot_samples("ops", s, 1, PLOT_PNG, 0, "/nonexistent-dir/ops.png", NULL,
				      err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "/nonexistent-dir/ops.png"));
	/* A regular file as the parent directory. */
	assert_int_equal(
	    plot_samples("ops", s, 1, PLOT_SVG, 0, "/etc/passwd/ops.svg", NULL, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "/etc/passwd/ops.svg"));
	assert_non_null(strstr(err, "Not a directory"));
}

static void test_missing_gnuplot(void **state)
{
	struct plot_series s[] = {{NULL, good, 8}, {NULL, bad, 6}};
	struct plot_xy_series xs[] = {{"a", good, good, NULL, 8}};
	char *dir = tmpdir(), svg[4096], err[512] = "", names[512];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	(void)state;

	assert_non_null(f);
	snprintf(svg, sizeof(svg), "%s/ops.svg", dir);
	setenv("SCALEBENCH_GNUPLOT", "/nonexistent", 1);
	assert_false(plot_available(err, sizeof(err)));
	assert_non_null(strstr(err, "gnuplot not found"));
	assert_non_null(strstr(err, "/nonexistent"));
	assert_non_null(strstr(err, "install gnuplot-nox (make setup)"));
	err[0] = '\0';
	assert_int_equal(plot_samples("ops", s, 2, PLOT_TEXT, 0, NULL, f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "gnuplot not found"));
	err[0] = '\0';
	assert_int_equal(
	    plot_scalability("ops", NULL, xs, 1, PLOT_SVG, 0, svg, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "gnuplot not found"));
	unsetenv("SCALEBENCH_GNUPLOT");
	assert_int_equal(fclose(f), 0);
	assert_int_equal(len, 0); /* nothing half-printed */
	free(buf);
	dir_listing(dir, names, sizeof(names));
	assert_string_equal(names, "");

	/* Found on $PATH when the variable is unset. */
	assert_true(plot_available(err, sizeof(err)));
	rm_dir(dir);
}

/* A stand-in gnuplot that fails the way gnuplot does: echo, caret, message, status 1. */
static void test_gnuplot_error_keeps_old_file(void **state)
{
	static const char fake[] = "#!/bin/sh\n"
				   "cat >/dev/null\n"
				   "echo 'gnuplot> plot $s0 using 1:2' >&2\n"
				   "echo '                ^' >&2\n"
				   "echo '         line 12: undefined   variable: s0' >&2\n"
				   "echo >&2\n"
				   "exit 1\n";
	struct plot_series s[] = {{NULL, good, 8}};
	char *dir = tmpdir(), bin[4096], png[4096], err[512] = "", names[512];
	size_t len;
	char *data;
	FILE *f;
	(void)state;

	snprintf(bin, sizeof(bin), "%s/gnuplot", dir);
	snprintf(png, sizeof(png), "%s/ops.png", dir);
	f = fopen(bin, "w");
	assert_non_null(f);
	fputs(fake, f);
	fclose(f);
	chmod(bin, 0755);
	f = fopen(png, "w");
	assert_non_null(f);
	fputs("the previous plot", f);
	fclose(f);

	setenv("SCALEBENCH_GNUPLOT", bin, 1);
	assert_int_equal(plot_samples("ops", s, 1, PLOT_PNG, 0, png, NULL, err, sizeof(err)), -1);
	unsetenv("SCALEBENCH_GNUPLOT");
	assert_string_equal(err, "gnuplot failed: undefined variable: s0");
	data = slurp(png, &len);
	assert_string_equal(data, "the previous plot");
	free(data);
	dir_listing(dir, names, sizeof(names));
	assert_string_equal(names, "gnuplot ops.png");
	rm_dir(dir);
}

/* ---- scalability ---- */

static const double nr_task[] = {1, 2, 4, 8, 16, 32, 48, 64};
static const double ops_a[] = {1.0e6, 1.9e6, 3.7e6, 7.0e6, 12e6, 20e6, 24e6, 25e6};
static const double ops_b[] = {0.9e6, 1.7e6, 3.0e6, 5.0e6, 6.0e6, 6.5e6, 6.6e6, 6.2e6};
static const double err_a[] = {1e5, 2e5, 4e5, 1e6, 2e6, 4e6, 5e6, 5e6};

static int text_scalability(const struct plot_xy_series *s, size_t n, struct text *t)
{
	FILE *f = open_memstream(&t->buf, &t->len);
	char err[512] = "";
	int rc;

	assert_non_null(f);
	rc = plot_scalability("page_fault3", NULL, s, n, PLOT_TEXT, 0, NULL, f, err, sizeof(err));
	assert_int_equal(fclose(f), 0);
	if (rc)
		fail_msg("%s", err);
	split_lines(t);
	return rc;
}

static void test_scalability_text(void **state)
{
	struct plot_xy_series with[] = {{"v6.8", nr_task, ops_a, err_a, 8},
					{"v6.9", nr_task, ops_b, NULL, 8}};
	struct plot_xy_series without[] = {{"v6.8", nr_task, ops_a, NULL, 8},
					   {"v6.9", nr_task, ops_b, NULL, 8}};
	struct text t = {0}, u = {0};
	(void)state;

	text_scalability(with, 2, &t);
	check_page(&t);
	assert_string_equal(t.line[0], "ops/s");
	assert_true(text_has(&t, "page_fault3"));
	assert_true(text_has(&t, "nr_task"));
	assert_true(text_has(&t, "25.0M"));
	/* The error bars are drawn, and named after the lines. */
	assert_string_equal(t.line[17], "[*] v6.8");
	assert_string_equal(t.line[18], "[O] v6.9");
	assert_string_equal(t.line[19], "[:] standard deviation");
	/* At 64 tasks v6.8 does 4x v6.9: its points reach higher rows. */
	assert_true(row_of(&t, '*') < row_of(&t, 'O'));
	assert_true(count_in_area(&t, 'O') >= 6);

	/* The error bars add dotted vertical bars, ending in '+' (no caps: set bars 0), that the
	 * plain lines lack. */
	text_scalability(without, 2, &u);
	check_page(&u);
	assert_true(count_in_area(&t, ':') > count_in_area(&u, ':'));
	assert_true(count_in_area(&t, '+') > count_in_area(&u, '+'));
	free(t.buf);
	free(u.buf);
}

static void test_scalability_svg(void **state)
{
	struct plot_xy_series s[] = {{"v6.8", nr_task, ops_a, err_a, 8},
				     {"v6.9", nr_task, ops_b, NULL, 8}};
	char *dir = tmpdir(), svg[4096], err[512] = "", names[512];
	size_t len;
	char *data;
	(void)state;

	snprintf(svg, sizeof(svg), "%s/scal.svg", dir);
	assert_int_equal(plot_scalability("page_fault3", "per_process_ops", s, 2, PLOT_SVG, 0, svg,
					  NULL, err, sizeof(err)),
			 0);
	data = slurp(svg, &len);
	assert_non_null(strstr(data, "<svg"));
	assert_non_null(strstr(data, "</svg>"));
	assert_non_null(strstr(data, "per_process_ops"));
	assert_non_null(strstr(data, "nr_task"));
	assert_non_null(strstr(data, "v6.8"));
	assert_non_null(strstr(data, "v6.9"));
	free(data);
	dir_listing(dir, names, sizeof(names));
	assert_string_equal(names, "scal.svg");
	rm_dir(dir);
}

static void test_bad_arguments(void **state)
{
	const double nan2[] = {NAN, INFINITY};
	struct plot_series s[PLOT_MAX_SERIES + 1];
	char err[512] = "";
	(void)state;

	for (size_t i = 0; i <= PLOT_MAX_SERIES; i++)
		s[i] = (struct plot_series){NULL, good, 8};
	assert_int_equal(plot_samples("x", s, 0, PLOT_TEXT, 0, NULL, stdout, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no series"));
	assert_int_equal(
	    plot_samples("x", s, PLOT_MAX_SERIES + 1, PLOT_TEXT, 0, NULL, stdout, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "at most 35"));
	assert_int_equal(plot_samples("x", s, 1, PLOT_TEXT, 0, NULL, NULL, err, sizeof(err)), -1);
	assert_int_equal(plot_samples("x", s, 1, PLOT_PNG, 0, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "output file"));
	s[0] = (struct plot_series){NULL, nan2, 2};
	assert_int_equal(plot_samples("x", s, 1, PLOT_TEXT, 0, NULL, stdout, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no finite values"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text_two_groups),
	    cmocka_unit_test(test_text_labels_whole),
	    cmocka_unit_test(test_text_same_values_apart),
	    cmocka_unit_test(test_text_more_groups),
	    cmocka_unit_test(test_hostile_labels),
	    cmocka_unit_test(test_png_and_svg),
	    cmocka_unit_test(test_unwritable_path),
	    cmocka_unit_test(test_missing_gnuplot),
	    cmocka_unit_test(test_gnuplot_error_keeps_old_file),
	    cmocka_unit_test(test_scalability_text),
	    cmocka_unit_test(test_scalability_svg),
	    cmocka_unit_test(test_bad_arguments),
	};

	unsetenv("SCALEBENCH_GNUPLOT");
	return cmocka_run_group_tests_name("plot", tests, NULL, NULL);
}
