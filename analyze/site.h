/* The HTML report: a static site of a results tree, regenerated incrementally.
 *
 *   SITE/index.html                   the open changes (each job's last change point),
 *                                     then every job: a small trend plot, the latest verdict
 *   SITE/regressions.html             every change point of every job, the newest first,
 *                                     with its commit range (and subject, with --repo)
 *   SITE/changes.json                 the same for bots: {"version": 1, "changes": [...]}
 *   SITE/style.css                    the one style sheet (nothing fetched from elsewhere)
 *   SITE/uPlot.iife.min.js, uPlot.min.css, trend.js   the interactive trend plot (with assets)
 *   SITE/jobs/<job>/index.html        the job: trend plot, change points, every commit
 *   SITE/jobs/<job>/trend.svg         its trend plot (plot_trend), spark.svg the index's
 *   SITE/jobs/<job>/data/             with assets: commits.js (labels, subjects) and per stat
 *                                     s-<stat>.js (its series, for trend.js) and s-<stat>.csv
 *   SITE/jobs/<job>/c-<commit>.html   a comparison: the commit before (base) against this one
 *   SITE/jobs/<job>/c-<commit>/       its plots: s-<stat>.svg (samples), scalability.svg
 *   SITE/.scalebench-site.json        the manifest: each file's input fingerprint
 *
 * Comparisons are made where a change point starts and for the latest commit.  Every text
 * from the tree (job names, commit labels, stat names) is HTML-escaped; file names are made
 * from labels by site_slug.  A file whose inputs (the identities of the runs it shows: label,
 * run count, failures, first and last start) have not changed since the manifest was written
 * is neither regenerated nor rewritten; files the site no longer has are removed.  Pages are
 * written whole (lib/file.h), directories created with mode 0777 and files 0644 less the
 * umask's bits, so a web server running as another user can serve the site.  Nothing is
 * written or removed through a symbolic link planted where the site has a directory, and a
 * plot that could not be written keeps its page out of the manifest's fresh files. */
#ifndef SCALEBENCH_SITE_H
#define SCALEBENCH_SITE_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define SITE_MANIFEST ".scalebench-site.json"

struct site_opts {
	const char *results;	   /* the results root */
	const char *out;	   /* the site's directory: created, or one this wrote before */
	const char *repo, *branch; /* order commits by the branch's first parents (series.h) */
	const char *job;	   /* only this job (key or path_params), or NULL */
	const char *stat;	   /* the stat to follow, or NULL: each job's headline */
	/* A link for every commit the pages show: the user's git web, its one %s the label
	 * (percent-encoded), e.g. https://git.kernel.org/torvalds/c/%s; NULL: no links.  Checked
	 * by site_commit_url_check before anything is written. */
	const char *commit_url;
	/* A directory holding uPlot's uPlot.iife.min.js and uPlot.min.css: copied to the site's
	 * root, with the job pages' interactive trend plots and every stat's series data
	 * (data/s-<stat>.js, .csv).  NULL: SVG trend plots only. */
	const char *assets;
	/* When it becomes nonzero (a signal handler's flag), generation stops between files
	 * and site_generate returns -1; what was written is whole and in the manifest. */
	const volatile sig_atomic_t *interrupted;
};

struct site_summary {
	size_t jobs, commits;
	size_t written, kept, removed; /* files: (re)written, left as they were, removed */
	size_t comparisons;	       /* comparison pages on the site */
	/* Plots that could not be written (a full disk): each was a note; the pages showing them
	 * are made again by the next run.  The first one's name, for the summary. */
	size_t missing;
	char first_missing[PATH_MAX];
	double seconds;
};

/* Generate or bring up to date the site of o->results in o->out.  Notes (a job without its
 * stat, a comparison that could not be made, a plot not written: sum->missing) go to stderr
 * through sb_note; the site is still written.  Returns 0, or -1 with err naming the file or
 * directory and what went wrong (an o->out that holds other files and no manifest is refused,
 * never written into). */
int site_generate(const struct site_opts *o, struct site_summary *sum, char *err, size_t errlen);

/* A file name from a label, readable and the same on every run: [A-Za-z0-9._-] kept and '%'
 * spelled "pct" (process-100%-page_fault3 is process-100pct-page_fault3), when the label has
 * no "pct" of its own; any other label, or one starting with '.', or longer than
 * SITE_SLUG_KEEP bytes so spelled, becomes its first bytes with the others as '_', then '~'
 * and 16 hex digits of the label's hash, so two labels never share a name.  out holds
 * SITE_SLUG_MAX bytes. */
#define SITE_SLUG_KEEP 60
#define SITE_SLUG_MAX  (SITE_SLUG_KEEP + 18)
void site_slug(const char *label, char *out);

/* Whether tmpl can be a commit URL template: http:// or https://, a host, then exactly one
 * %s after the host's '/' (a label can never choose the host), any other '%' the start of
 * a %XX escape, printable ASCII only.  0, or -1 with err saying what is wrong. */
int site_commit_url_check(const char *tmpl, char *err, size_t errlen);

/* v as one field of a CSV row (RFC 4180): quoted when it holds a comma, a quote or a line
 * break, its quotes doubled; a text starting with =, +, -, @, tab or CR (which a spreadsheet
 * would run as a formula) quoted with a ' before it, as OWASP advises.  For text cells: the
 * numbers of a row are written as numbers. */
void site_csv_field(const char *v, FILE *out);

/* s with &, <, >, " and ' as character references. */
void site_html_escape(const char *s, FILE *out);

#endif
