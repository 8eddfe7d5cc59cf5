/* The HTML report (site.h): pages built in memory, written only when their inputs changed. */
#include "site.h"
#include "changepoint.h"
#include "nightly.h"
#include "compare.h"
#include "plot.h"
#include "profile_report.h"
#include "results.h"
#include "series.h"
#include "../store/index.h"
#include "../store/layout.h"
#include "../store/run_read.h"
#include "../store/sweep.h"
#include "../lib/errors.h"
#include "../lib/file.h"
#include "../lib/git.h"
#include "../lib/json_text.h"
#include "../lib/utf8.h"
#include "../lib/jsonw.h"
#include "../lib/strvec.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Part of every fingerprint: a scalebench that draws pages differently rewrites them all. */
#define SITE_FORMAT "scalebench-site 3"
/* Sample plots on one comparison page, at most: the headline family's notable stats. */
#define MAX_SAMPLE_PLOTS 12
#define MANIFEST_MAX	 (256u << 20)
/* Stats of one job with series data for the interactive plot, at most: the followed stat, its
 * family (the name up to its first '.'), then the others by name.  Each is two files rewritten
 * whenever the job has a new commit; at 2,000 stats x 1,000 commits all of them cost ~18 s a
 * night (bench/html.sh), these ~2 s. */
#define MAX_SERIES_STATS 200

static const char style_css[] =
    "/* scalebench html: one style sheet, no script, nothing fetched from elsewhere. */\n"
    ":root { --fg: #1d2329; --muted: #5c6670; --line: #d5dae0; --head: #f2f4f7;\n"
    "        --bad: #b3261e; --bad-bg: #fdecea; --good: #1b6e3a; --good-bg: #e7f5ec;\n"
    "        --warn: #8a5a00; --warn-bg: #fff5da; --link: #0b57d0; }\n"
    "* { box-sizing: border-box; }\n"
    "body { margin: 0; color: var(--fg); background: #fff;\n"
    "       font: 15px/1.45 \"DejaVu Sans\", \"Liberation Sans\", Arial, sans-serif; }\n"
    "header { background: #22303c; color: #fff; padding: 10px 24px; }\n"
    "header a { color: #fff; text-decoration: none; font-weight: bold; }\n"
    "header nav { font-size: 14px; }\n"
    "header nav span { color: #b8c4ce; }\n"
    "main { padding: 16px 24px 40px; max-width: 1400px; }\n"
    "h1 { font-size: 22px; margin: 8px 0 4px; word-break: break-all; }\n"
    "h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); }\n"
    "p.sub { color: var(--muted); margin: 0 0 12px; word-break: break-all; }\n"
    "a { color: var(--link); }\n"
    "table { border-collapse: collapse; margin: 8px 0; font-size: 14px; }\n"
    "th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left;\n"
    "         vertical-align: middle; }\n"
    "th { background: var(--head); font-weight: 600; }\n"
    "td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }\n"
    "td.name { word-break: break-all; max-width: 36em; }\n"
    "tr.cp td { background: var(--warn-bg); }\n"
    ".verdict { display: inline-block; padding: 1px 8px; border-radius: 10px;\n"
    "           font-size: 13px; font-weight: 600; background: var(--head); }\n"
    ".v-regression { color: var(--bad); background: var(--bad-bg); }\n"
    ".v-improvement { color: var(--good); background: var(--good-bg); }\n"
    ".v-inconclusive, .v-changed-up, .v-changed-down { color: var(--warn);\n"
    "                                                  background: var(--warn-bg); }\n"
    "img.plot { display: block; width: 100%; max-width: 900px; height: auto;\n"
    "           border: 1px solid var(--line); margin: 8px 0; }\n"
    "img.spark { display: block; width: 240px; height: 60px; }\n"
    ".plots { display: flex; flex-wrap: wrap; gap: 12px; }\n"
    ".plots figure { margin: 0; flex: 1 1 560px; max-width: 800px; }\n"
    "figcaption { color: var(--muted); font-size: 13px; word-break: break-all; }\n"
    "pre { background: #f7f8fa; border: 1px solid var(--line); padding: 10px;\n"
    "      overflow-x: auto; font: 12.5px/1.35 \"DejaVu Sans Mono\", monospace; }\n"
    "footer { color: var(--muted); font-size: 12px; padding: 0 24px 16px; }\n"
    "[hidden] { display: none !important; }\n"
    ".flag { display: inline-block; padding: 1px 6px; border-radius: 4px; font-size: 13px;\n"
    "        font-weight: 600; white-space: nowrap; }\n"
    ".f-fail { color: var(--bad); background: var(--bad-bg); }\n"
    ".f-busy { color: var(--warn); background: var(--warn-bg); }\n"
    "tr.open td:first-child { border-left: 3px solid var(--bad); }\n"
    "#trend-chart { margin: 8px 0; }\n"
    "#trend-hover { min-height: 4.2em; white-space: pre-wrap; word-break: break-all; }\n"
    "#stat-picker { max-width: 100%; }\n";

/* The job pages' interactive trend plot (analyze/site_trend.js, made a C string by the
 * Makefile): one copy at the site's root, beside uPlot's. */
static const char trend_js[] =
#include "site_trend.inc"
    ;

/* ---- names and text ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#define FNV_START 0xcbf29ce484222325ull

void site_slug(const char *label, char *out)
{
	size_t n = strlen(label), k = 0;
	/* '%' (LKP's "process-100%-...") reads as "pct": readable, and unambiguous while the
	 * label has no "pct" of its own (a label that has one is changed: it gets the hash). */
	bool pct_ok = !strstr(label, "pct");
	bool changed = n == 0 || label[0] == '.' || !pct_ok;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)label[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		bool pct = c == '%' && pct_ok;

		if (k + (pct ? 3 : 1) > SITE_SLUG_KEEP) {
			changed = true;
			break;
		}
		changed |= !ok && !pct;
		if (pct) {
			memcpy(out + k, "pct", 3);
			k += 3;
		} else {
			out[k] = ok && !(k == 0 && c == '.') ? (char)c : '_';
			k++;
		}
	}
	out[k] = '\0';
	/* '~' is never kept from a label: a changed name cannot equal an unchanged one. */
	if (changed)
		snprintf(out + k, SITE_SLUG_MAX - k, "~%016" PRIx64, fnv(FNV_START, label, n));
}

/* The first n bytes of s (up to its end) with &, <, >, " and ' as character references. */
static void html_escape_n(const char *s, size_t n, FILE *out)
{
	for (; s && n-- && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

void site_html_escape(const char *s, FILE *out)
{
	html_escape_n(s, SIZE_MAX, out);
}

#define H(s) site_html_escape((s), f)

int site_commit_url_check(const char *tmpl, char *err, size_t errlen)
{
	size_t scheme = !strncasecmp(tmpl, "https://", 8)  ? 8
			: !strncasecmp(tmpl, "http://", 7) ? 7
							   : 0;
	const char *host_end = strchr(tmpl + scheme, '/'), *at = NULL;

	if (!scheme) {
		snprintf(err, errlen, "commit URL template '%s': not http:// or https://", tmpl);
		return -1;
	}
	for (const char *p = tmpl; *p; p++) {
		unsigned char c = (unsigned char)*p;

		/* (RFC 3986 has no place for these unencoded either) */
		if (c <= ' ' || c >= 0x7f || strchr("\"<>\\^`{|}", c)) {
			snprintf(
			    err, errlen,
			    "commit URL template: byte 0x%02x at offset %zu is not allowed in a "
			    "URL: not printable ASCII or one of \"<>\\^`{|} (percent-encode it)",
			    c, (size_t)(p - tmpl));
			return -1;
		}
		if (c != '%')
			continue;
		if (p[1] == 's' && !at) {
			at = p++;
		} else if (isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
			p += 2;
		} else {
			snprintf(err, errlen,
				 "commit URL template '%s': '%%' at offset %zu is neither its one "
				 "%%s nor a %%XX escape",
				 tmpl, (size_t)(p - tmpl));
			return -1;
		}
	}
	if (!at) {
		snprintf(err, errlen, "commit URL template '%s': no %%s (where the commit goes)",
			 tmpl);
		return -1;
	}
	if (!host_end || host_end == tmpl + scheme || at < host_end) {
		snprintf(err, errlen,
			 "commit URL template '%s': needs a host and a '/' before the %%s (a "
			 "commit label must not choose the host)",
			 tmpl);
		return -1;
	}
	return 0;
}

/* label, a link to it on the user's git web when there is a commit URL template (checked:
 * site_commit_url_check): the template's text escaped, the label percent-encoded in it. */
static void put_commit(FILE *f, const char *url, const char *label)
{
	const char *at = url ? strstr(url, "%s") : NULL;

	if (!at) {
		H(label);
		return;
	}
	fputs("<a class=\"commit\" href=\"", f);
	html_escape_n(url, (size_t)(at - url), f);
	for (const unsigned char *p = (const unsigned char *)label; *p; p++)
		if (isalnum(*p) || strchr("-._~", *p))
			fputc(*p, f);
		else
			fprintf(f, "%%%02X", *p);
	H(at + 2);
	fputs("\">", f);
	H(label);
	fputs("</a>", f);
}

static void put_time(FILE *f, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[32];

	if (t > 0 && gmtime_r(&tt, &tm) && strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M", &tm))
		fputs(buf, f);
}

static void put_num(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("&ndash;", f);
	else if (fabs(v) >= 1e6 || (v != 0 && fabs(v) < 1e-3))
		fprintf(f, "%.4g", v);
	else
		fprintf(f, "%.6g", v);
}

static void put_pct(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%+.1f%%", v);
	else
		fputs("&ndash;", f);
}

static void put_verdict(FILE *f, const char *v)
{
	fputs("<span class=\"verdict v-", f);
	H(v);
	fputs("\">", f);
	H(v);
	fputs("</span>", f);
}

/* The page's frame; up is the way back to the site's root ("" or "../../"). */
static void page_head(FILE *f, const char *up, const char *title, const char *job_page,
		      const char *job_name)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      f);
	H(title);
	fprintf(f, "</title>\n<link rel=\"stylesheet\" href=\"%sstyle.css\">\n</head>\n<body>\n",
		up);
	fprintf(f, "<header><nav><a href=\"%sindex.html\">scalebench</a>", up);
	if (job_page) {
		fprintf(f, " <span>/</span> <a href=\"%s\">", job_page);
		H(job_name);
		fputs("</a>", f);
	}
	fputs("</nav></header>\n<main>\n", f);
}

static void page_foot(FILE *f)
{
	fputs("</main>\n<footer>Generated by scalebench html.</footer>\n</body>\n</html>\n", f);
}

/* ---- the site's files and the manifest ---- */

struct site {
	const struct site_opts *o;
	struct site_summary *sum;
	struct results_index *ix;
	json_t *old_files, *new_files; /* rel -> {"fp": hex, ...} */
	json_t *old_jobs, *new_jobs;   /* key -> the job's row of the index page */
	struct index_job *jobs;	       /* every job of the tree (siblings for sweeps) */
	size_t njobs;
	json_t *meta_cache; /* commit dir -> [test, mode, nr_task] */
	bool interactive;   /* uPlot is on the site: job pages get their series data */
	char *err;
	size_t errlen;
};

static bool stopped(const struct site *s)
{
	return s->o->interrupted && *s->o->interrupted;
}

static int site_path(const struct site *s, const char *rel, char *out, size_t len)
{
	if (snprintf(out, len, "%s/%s", s->o->out, rel) >= (int)len) {
		snprintf(s->err, s->errlen, "%s/%s: %s", s->o->out, rel, strerror(ENAMETOOLONG));
		return -1;
	}
	return 0;
}

/* The directories of rel below the site's root, created as needed (mode 0777 less umask) when
 * create.  Each must be a directory of the site's own: through a symbolic link planted in the
 * site (jobs/J -> /etc) pages would be written and stale files removed wherever it points, so
 * one stops the write or removal, named.  0, 1 when one is missing (not create), or -1 with
 * s->err saying which. */
static int site_dirs(const struct site *s, const char *rel, bool create)
{
	char path[PATH_MAX];
	struct stat st;

	if (site_path(s, rel, path, sizeof(path)))
		return -1;
	for (char *p = path + strlen(s->o->out) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (create && mkdir(path, 0777) && errno != EEXIST) {
			snprintf(s->err, s->errlen, "cannot create %s: %s", path, strerror(errno));
			return -1;
		}
		if (lstat(path, &st)) {
			if (errno == ENOENT && !create)
				return 1;
			snprintf(s->err, s->errlen, "cannot read %s: %s", path, strerror(errno));
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			snprintf(s->err, s->errlen,
				 "%s: %s in the site where a directory belongs: nothing is written "
				 "or removed through it; remove it and run html again",
				 path, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
			return -1;
		}
		*p = '/';
	}
	return 0;
}

static int make_parents(const struct site *s, const char *rel)
{
	return site_dirs(s, rel, true);
}

/* A file of the site that was not written (a plot on a full disk): named, counted, and the
 * page showing it is not kept by the next run (see page_missing), which makes it again. */
static void site_missing(struct site *s, const char *rel)
{
	if (!s->sum->missing++)
		snprintf(s->sum->first_missing, sizeof(s->sum->first_missing), "%s", rel);
}

/* A page's (or a job's) manifest entry e marked incomplete when a file it shows went missing
 * since the count was before: never kept, so the next run draws what is missing. */
static void page_missing(const struct site *s, json_t *e, size_t before)
{
	if (e && s->sum->missing > before)
		json_object_set_new(e, "incomplete", json_true());
}

static void fp_hex(uint64_t h, char out[17])
{
	snprintf(out, 17, "%016" PRIx64, h);
}

/* rel's manifest entry when it is on the site as the manifest says, for these inputs. */
static json_t *site_unchanged(const struct site *s, const char *rel, uint64_t fp)
{
	json_t *e = json_object_get(s->old_files, rel);
	char hex[17], path[PATH_MAX];
	struct stat st;

	fp_hex(fp, hex);
	if (!e || !json_is_string(json_object_get(e, "fp")) ||
	    strcmp(json_string_value(json_object_get(e, "fp")), hex) ||
	    json_is_true(json_object_get(e, "incomplete")) ||
	    site_path(s, rel, path, sizeof(path)) || lstat(path, &st) || !S_ISREG(st.st_mode))
		return NULL;
	return e;
}

/* Whether rel is unchanged: then it is kept (and *entry, when given, is its manifest entry
 * with what was noted about it). */
static bool site_fresh(struct site *s, const char *rel, uint64_t fp, json_t **entry)
{
	json_t *e = site_unchanged(s, rel, fp);

	if (!e)
		return false;
	json_object_set(s->new_files, rel, e);
	s->sum->kept++;
	if (entry)
		*entry = e;
	return true;
}

/* Record rel as part of the site with its fingerprint; the new entry (to add notes to). */
static json_t *site_record(struct site *s, const char *rel, uint64_t fp)
{
	char hex[17];
	json_t *e = json_object();

	fp_hex(fp, hex);
	json_object_set_new(e, "fp", json_string(hex));
	json_object_set_new(s->new_files, rel, e);
	return e;
}

/* Write rel whole, unless it already holds exactly these bytes (then it is left alone, its
 * time stamp too). */
static int site_put(struct site *s, const char *rel, uint64_t fp, const char *buf, size_t len)
{
	char path[PATH_MAX], *old = NULL;
	size_t oldlen = 0;
	bool same;

	if (site_path(s, rel, path, sizeof(path)) || make_parents(s, rel))
		return -1;
	same = !file_read(path, len + 1, &old, &oldlen, NULL, 0) && oldlen == len &&
	       !memcmp(old, buf, len);
	free(old);
	/* Recorded once it is there: a page that could not be written is made again next time. */
	if (!same && file_write(path, buf, len, s->err, s->errlen))
		return -1;
	site_record(s, rel, fp);
	if (same)
		s->sum->kept++;
	else
		s->sum->written++;
	return 0;
}

/* A page built in memory. */
struct page {
	FILE *f;
	char *buf;
	size_t len;
};

static int page_open(struct site *s, struct page *p)
{
	*p = (struct page){0};
	p->f = open_memstream(&p->buf, &p->len);
	if (!p->f)
		snprintf(s->err, s->errlen, "out of memory");
	return p->f ? 0 : -1;
}

static int page_close(struct site *s, struct page *p, const char *rel, uint64_t fp)
{
	int rc = -1;

	/* A page made after a signal may lack a plot whose gnuplot the signal ended: it is not
	 * put on the site (nor in the manifest), so the next run makes it again, whole. */
	if (fclose(p->f))
		snprintf(s->err, s->errlen, "%s: out of memory", rel);
	else if (stopped(s))
		snprintf(s->err, s->errlen, "interrupted");
	else
		rc = site_put(s, rel, fp, p->buf, p->len);
	free(p->buf);
	*p = (struct page){0};
	return rc;
}

static void page_discard(struct page *p)
{
	if (p->f)
		fclose(p->f);
	free(p->buf);
	*p = (struct page){0};
}

static int manifest_load(struct site *s)
{
	char path[PATH_MAX], *text = NULL;
	json_t *m = NULL;
	json_error_t je;

	s->old_files = s->old_jobs = NULL;
	if (site_path(s, SITE_MANIFEST, path, sizeof(path)))
		return -1;
	if (file_read(path, MANIFEST_MAX, &text, NULL, NULL, 0) == 0) {
		m = json_loads(text, 0, &je);
		if (!m || !json_is_object(m) || !json_is_string(json_object_get(m, "format")) ||
		    strcmp(json_string_value(json_object_get(m, "format")), SITE_FORMAT))
			sb_note("%s: %s; every page is made again", path,
				m ? "written by another version" : je.text);
		else {
			s->old_files = json_incref(json_object_get(m, "files"));
			s->old_jobs = json_incref(json_object_get(m, "jobs"));
		}
		json_decref(m);
		free(text);
	} else if (errno != ENOENT) {
		snprintf(s->err, s->errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	} else {
		/* No manifest: a new site, in a directory that must hold nothing else (the
		 * stale-file sweep below would never touch foreign files, but pages written
		 * among them would be a surprise). */
		DIR *d;
		struct dirent *de;
		bool empty = true;

		d = opendir(s->o->out);
		if (!d) {
			snprintf(s->err, s->errlen, "cannot read %s: %s", s->o->out,
				 strerror(errno));
			return -1;
		}
		while (empty && (de = readdir(d)))
			empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
		closedir(d);
		if (!empty) {
			snprintf(s->err, s->errlen,
				 "%s is not empty and has no %s: not a site scalebench wrote; give "
				 "a new or empty directory",
				 s->o->out, SITE_MANIFEST);
			return -1;
		}
	}
	if (!json_is_object(s->old_files)) {
		json_decref(s->old_files);
		s->old_files = json_object();
	}
	if (!json_is_object(s->old_jobs)) {
		json_decref(s->old_jobs);
		s->old_jobs = json_object();
	}
	return 0;
}

static int manifest_save(struct site *s)
{
	json_t *m = json_object();
	char path[PATH_MAX], *text;
	int rc = -1;

	json_object_set_new(m, "format", json_string(SITE_FORMAT));
	json_object_set(m, "files", s->new_files);
	json_object_set(m, "jobs", s->new_jobs);
	text = json_dumps(m, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!text) {
		snprintf(s->err, s->errlen, "%s: out of memory", SITE_MANIFEST);
	} else if (!site_path(s, SITE_MANIFEST, path, sizeof(path))) {
		char *old = NULL;
		size_t oldlen = 0, len = strlen(text);

		/* Nothing new: not even the manifest's time stamp moves. */
		if (!file_read(path, len + 1, &old, &oldlen, NULL, 0) && oldlen == len &&
		    !memcmp(old, text, len))
			rc = 0;
		else
			rc = file_write(path, text, len, s->err, s->errlen);
		free(old);
	}
	free(text);
	json_decref(m);
	return rc;
}

/* Files the last generation wrote that this one did not: removed, with the directories they
 * leave empty.  Only names from the manifest are touched, never through a symbolic link in the
 * site: such a file stays in the manifest and the first one is named.  0, or -1 with s->err. */
static int remove_stale(struct site *s)
{
	const char *rel;
	json_t *v;
	int rc = 0;

	json_object_foreach (s->old_files, rel, v) {
		char path[PATH_MAX];
		struct stat st;

		if (json_object_get(s->new_files, rel) || strstr(rel, "..") || rel[0] == '/' ||
		    site_path(s, rel, path, sizeof(path)))
			continue;
		int dirs = site_dirs(s, rel, false);

		if (dirs < 0) {
			json_object_set(s->new_files, rel, v);
			if (!rc)
				sb_error("%s", s->err);
			*s->err = '\0';
			rc = -1;
		}
		if (dirs)
			continue;
		if (lstat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (unlink(path) == 0)
			s->sum->removed++;
		for (char *p = strrchr(path, '/'); p && p > path + strlen(s->o->out);
		     p = strrchr(path, '/')) {
			*p = '\0';
			if (rmdir(path))
				break;
		}
	}
	if (rc)
		snprintf(s->err, s->errlen,
			 "stale files of the site were not removed through a symbolic link (named "
			 "above)");
	return rc;
}

/* ---- one job's data ---- */

struct job_commit {
	const char *label;
	const struct index_commit *ic; /* NULL when the index has none (cannot happen) */
	const struct series_point *pt; /* NULL: no run of it has the stat */
	char slug[SITE_SLUG_MAX];
	bool compared;	  /* a comparison page ends at it */
	const char *base; /* the commit it is compared with */
};

struct job_data {
	const struct index_job *job;
	char slug[SITE_SLUG_MAX], dir[SITE_SLUG_MAX + 8];
	char **labels;
	size_t nlabels;
	struct index_commit *ic;
	size_t nic;
	struct job_commit *c; /* per label, in series order */
	struct series series;
	bool have_series;
	struct change_point *cps;
	size_t ncps;
	char *stat;
	enum stat_direction sdir;
	uint64_t fp;
};

static void job_data_free(struct job_data *d)
{
	for (size_t i = 0; i < d->nlabels; i++)
		free(d->labels[i]);
	free(d->labels);
	index_commits_free(d->ic, d->nic);
	free(d->c);
	if (d->have_series)
		series_free(&d->series);
	free(d->cps);
	free(d->stat);
}

static uint64_t fp_str(uint64_t h, const char *v)
{
	return fnv(h, v ? v : "", v ? strlen(v) + 1 : 1);
}

static uint64_t fp_int(uint64_t h, int64_t v)
{
	return fnv(h, &v, sizeof(v));
}

/* A commit's identity, as the index holds it: its runs and their times. */
static uint64_t fp_commit(uint64_t h, const struct index_commit *c)
{
	h = fp_str(h, c->commit);
	h = fp_int(h, (int64_t)c->runs);
	h = fp_int(h, (int64_t)c->failed);
	h = fp_int(h, c->first_started);
	return fp_int(h, c->last_started);
}

static const struct index_commit *find_commit(const struct job_data *d, const char *label)
{
	for (size_t i = 0; i < d->nic; i++)
		if (!strcmp(d->ic[i].commit, label))
			return &d->ic[i];
	return NULL;
}

/* The job's commits in order, each with its index entry, and the fingerprint of all of it. */
static int job_load(struct site *s, const struct index_job *job, struct job_data *d)
{
	struct series_order ord = {.repo = s->o->repo, .branch = s->o->branch};
	ssize_t n;
	uint64_t h = FNV_START;

	*d = (struct job_data){.job = job};
	/* Jobs are told apart by their path_params, unless two machines ran the same one. */
	site_slug(job->path_params, d->slug);
	for (size_t i = 0; i < s->njobs; i++)
		if (&s->jobs[i] != job && !strcmp(s->jobs[i].path_params, job->path_params))
			site_slug(job->key, d->slug);
	snprintf(d->dir, sizeof(d->dir), "jobs/%s", d->slug);
	n = series_commits(s->ix, job->key, &ord, &d->labels, s->err, s->errlen);
	if (n < 0)
		return -1;
	d->nlabels = (size_t)n;
	n = index_commits(s->ix, job->key, NULL, &d->ic);
	if (n < 0) {
		snprintf(s->err, s->errlen, "%s: cannot list its commits from the index", job->key);
		return -1;
	}
	d->nic = (size_t)n;
	d->c = calloc(d->nlabels + 1, sizeof(*d->c));
	if (!d->c) {
		snprintf(s->err, s->errlen, "out of memory");
		return -1;
	}
	h = fp_str(h, SITE_FORMAT);
	h = fp_str(h, job->key);
	h = fp_str(h, s->o->stat);
	h = fp_str(h, s->o->commit_url);
	h = fp_int(h, s->interactive);
	for (size_t i = 0; i < d->nlabels; i++) {
		d->c[i].label = d->labels[i];
		d->c[i].ic = find_commit(d, d->labels[i]);
		site_slug(d->labels[i], d->c[i].slug);
		if (d->c[i].ic)
			h = fp_commit(h, d->c[i].ic);
	}
	d->fp = h;
	return 0;
}

/* The stat to follow: the option's, else the one the latest commit's runs declare (the
 * latest in the site's order: the branch's with --repo). */
static int job_stat(struct site *s, struct job_data *d)
{
	const struct index_commit *latest = NULL;
	char err[1024];

	for (size_t i = d->nlabels; i-- > 0 && !latest;)
		if (d->c[i].ic && d->c[i].ic->runs > d->c[i].ic->failed)
			latest = d->c[i].ic;
	if (!latest)
		return -1;
	switch (group_dir_stat(latest->dir, s->o->stat, &d->stat, &d->sdir, err, sizeof(err))) {
	case 0:
		return 0;
	case -1:
		sb_note("%s", err);
		return -1;
	default: /* no headline declared: the page says so */
		return -1;
	}
}

/* The series of the job's stat over its commits, and its change points. */
static int job_series(struct site *s, struct job_data *d)
{
	struct series_order ord = {.repo = s->o->repo, .branch = s->o->branch};
	struct cp_commit *cc;
	struct cp_opts co;
	ssize_t n;

	if (series_load(s->ix, d->job->key, d->stat, &ord, &d->series, s->err, s->errlen))
		return -1;
	d->have_series = true;
	for (size_t i = 0, k = 0; i < d->nlabels && k < d->series.n; i++)
		if (!strcmp(d->labels[i], d->series.points[k].commit))
			d->c[i].pt = &d->series.points[k++];
	cc = calloc(d->series.n + 1, sizeof(*cc));
	if (!cc) {
		snprintf(s->err, s->errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < d->series.n; i++)
		cc[i] = (struct cp_commit){d->series.points[i].runs, d->series.points[i].nruns};
	cp_opts_default(&co);
	n = changepoints_find(cc, d->series.n, d->sdir, &co, &d->cps, s->err, s->errlen);
	free(cc);
	if (n < 0) {
		d->cps = NULL; /* not ours to free on an error */
		return -1;
	}
	d->ncps = (size_t)n;
	return 0;
}

/* The job's commit (its index in d->c) holding series point k. */
static size_t commit_of_point(const struct job_data *d, size_t k)
{
	for (size_t i = 0; i < d->nlabels; i++)
		if (d->c[i].pt == &d->series.points[k])
			return i;
	return 0;
}

/* ---- comparison pages ---- */

/* test, mode and nr_task of a commit directory's runs (its first run's meta.json). */
static json_t *dir_axes(struct site *s, const char *dir)
{
	json_t *a = json_object_get(s->meta_cache, dir), *meta = NULL;
	char **runs = NULL, why[256];
	ssize_t n;

	if (a)
		return a;
	n = store_list_runs(dir, &runs);
	for (ssize_t i = 0; i < n && !meta; i++)
		meta = store_read_meta(runs[i], why, sizeof(why));
	for (ssize_t i = 0; i < n; i++)
		free(runs[i]);
	free(runs);
	a = json_pack("[OOO]", meta ? json_object_get(meta, "testcase") : json_null(),
		      meta ? json_object_get(meta, "mode") : json_null(),
		      meta ? json_object_get(meta, "nr_task") : json_null());
	json_decref(meta);
	if (!a)
		return NULL;
	/* Keyed by the directory's bytes, any bytes: the cache is never written out. */
	if (json_object_set_new_nocheck(s->meta_cache, dir, a))
		return NULL;
	return a;
}

static const struct index_job *job_by_key(const struct site *s, const char *key)
{
	for (size_t i = 0; i < s->njobs; i++)
		if (!strcmp(s->jobs[i].key, key))
			return &s->jobs[i];
	return NULL;
}

static bool same_machine(const struct index_job *a, const struct index_job *b)
{
	return !strcmp(a->testcase, b->testcase) && !strcmp(a->tbox_group, b->tbox_group) &&
	       !strcmp(a->rootfs, b->rootfs) && !strcmp(a->kconfig, b->kconfig) &&
	       !strcmp(a->compiler, b->compiler);
}

static json_t *axes_at(struct site *s, const struct index_commit *c)
{
	return dir_axes(s, c->dir);
}

static bool axes_match(const json_t *a, const json_t *b)
{
	return json_equal(json_array_get(a, 0), json_array_get(b, 0)) &&
	       json_equal(json_array_get(a, 1), json_array_get(b, 1));
}

/* The mean and stddev of stat over the ok runs of job at label, from the index. */
static bool stat_at(struct site *s, const char *job_key, const char *stat, const char *label,
		    double *mean, double *sd)
{
	struct index_value *v = NULL;
	ssize_t n = index_stat_values(s->ix, job_key, stat, &v);
	double *x = calloc(n > 0 ? (size_t)n : 1, sizeof(*x));
	struct stat_summary sum = {0};
	size_t k = 0;

	for (ssize_t i = 0; x && i < n; i++)
		if (v[i].ok && !strcmp(v[i].commit, label))
			x[k++] = v[i].value;
	if (n > 0)
		index_values_free(v, (size_t)n);
	stat_summarize(x, k, &sum);
	free(x);
	*mean = sum.mean;
	*sd = sum.stddev;
	return k > 0;
}

/* The scalability plot: the stat's mean against nr_task at base and head, over the sweep
 * the job is part of (its test in its mode at other task counts).  0 when drawn, 1 when the
 * job is in no sweep, -1 on error (a note given). */
static int scalability_plot(struct site *s, const struct job_data *d, const char *base,
			    const char *head, const char *stat, const char *path)
{
	struct index_commit *sib = NULL;
	/* Every job's commit directory at head, from one query: the sweep's are among them. */
	ssize_t k = index_commits(s->ix, NULL, head, &sib);
	size_t nsib = k > 0 ? (size_t)k : 0, np = 0;
	const struct index_commit *self = NULL;
	json_t *mine;
	struct sweep_item *items = calloc(nsib + 1, sizeof(*items));
	double *xy = calloc(6 * (nsib + 1), sizeof(*xy));
	char err[1024];
	int rc = 1;

	for (size_t i = 0; i < nsib; i++)
		if (!strcmp(sib[i].job_key, d->job->key))
			self = &sib[i];
	mine = self ? axes_at(s, self) : NULL;
	if (!items || !xy || !mine || !json_is_integer(json_array_get(mine, 2)))
		goto out;
	for (size_t i = 0; i < nsib; i++) {
		const struct index_job *j = job_by_key(s, sib[i].job_key);
		json_t *a = j && same_machine(j, d->job) ? axes_at(s, &sib[i]) : NULL;

		if (a && json_is_integer(json_array_get(a, 2)) && axes_match(a, mine))
			items[np++] = (struct sweep_item){
			    .nr_task = (unsigned)json_integer_value(json_array_get(a, 2)),
			    .index = i};
	}
	if (np < 2)
		goto out;
	/* One test in one mode: the sweep is these items in task order. */
	struct sweep *sw = NULL;
	if (sweep_group(items, np, &sw) != 1)
		goto out;
	double *x[2] = {xy, xy + 3 * np}, *y[2], *e[2];
	size_t n[2] = {0, 0};
	const char *labels[2] = {base, head};

	for (int side = 0; side < 2; side++) {
		y[side] = x[side] + np;
		e[side] = y[side] + np;
		for (size_t t = 0; t < sw->n; t++) {
			const struct index_commit *c = &sib[sw->items[t].index];

			if (stat_at(s, c->job_key, stat, labels[side], &y[side][n[side]],
				    &e[side][n[side]]))
				x[side][n[side]++] = sw->items[t].nr_task;
		}
	}
	sweep_free(sw, 1);
	if (n[0] < 2 && n[1] < 2)
		goto out;
	struct plot_xy_series ser[2];
	size_t ns = 0;

	for (int side = 0; side < 2; side++)
		if (n[side])
			ser[ns++] = (struct plot_xy_series){.label = labels[side],
							    .x = x[side],
							    .y = y[side],
							    .yerr = e[side],
							    .n = n[side]};
	if (plot_scalability("scalability", stat, ser, ns, PLOT_SVG, 0, path, NULL, err,
			     sizeof(err))) {
		sb_note("%s: %s", path, err);
		rc = -1;
	} else {
		rc = 0;
	}
out:
	if (sib)
		index_commits_free(sib, nsib);
	free(items);
	free(xy);
	return rc;
}

static bool has_profile(const char *dir)
{
	char **runs = NULL, path[PATH_MAX];
	ssize_t n = store_list_runs(dir, &runs);
	bool any = false;

	for (ssize_t i = 0; i < n; i++) {
		any = any || !store_raw_path(runs[i], "perf-profile", path, sizeof(path));
		free(runs[i]);
	}
	free(runs);
	return any;
}

/* What a comparison page says of the followed stat, for the job and index pages. */
struct cmp_result {
	char verdict[32];
	double change;
	/* runs of base and head measured on a busy machine (meta.json's machine_load), and why
	 * (the first busy run's reason, head's before base's) */
	size_t busy[2];
	char busy_reason[256];
};

/* "N of M runs on a busy machine (REASON)", when any run of the side was busy. */
static void put_busy(FILE *f, size_t busy, size_t runs, const char *reason)
{
	if (!busy)
		return;
	fprintf(f, "<span class=\"flag f-busy\">%zu of %zu run%s on a busy machine", busy, runs,
		runs == 1 ? "" : "s");
	if (reason && *reason) {
		fputs(" (", f);
		H(reason);
		fputs(")", f);
	}
	fputs("</span>", f);
}

/* One comparison page in the making: head's commit against base's. */
struct cmp_page {
	struct site *s;
	const struct job_data *d;
	const struct job_commit *bc, *hc;
	uint64_t fp;
	struct result_group g[2];
	size_t loaded; /* groups of g loaded, to be freed */
	struct comparison c;
	const struct stat_row *row;	     /* the followed stat's, NULL when c has none */
	char prefix[2 * SITE_SLUG_MAX + 16]; /* the directory of its plots */
	json_t *plots;			     /* the plots it shows, for its manifest entry */
	char err[4096];			     /* what a step could not do, one buffer for all */
};

/* Both commits' groups loaded and compared, the followed stat's row found: 0, else -1 after
 * a note. */
static int cmp_load(struct cmp_page *cp)
{
	const struct job_commit *bc = cp->bc, *hc = cp->hc;
	struct compare_opts co = COMPARE_OPTS_DEFAULT;

	for (; cp->loaded < 2; cp->loaded++) {
		const struct index_commit *ic = cp->loaded ? hc->ic : bc->ic;

		if (group_load(ic->dir, &cp->g[cp->loaded], cp->err, sizeof(cp->err))) {
			sb_note("%s", cp->err);
			return -1;
		}
	}
	if (compare_groups(cp->g, 2, &co, &cp->c, cp->err, sizeof(cp->err))) {
		sb_note("%s against %s: %s", hc->ic->dir, bc->ic->dir, cp->err);
		return -1;
	}
	/* A note, not a refusal: the page is still made. */
	if (groups_mix_machines(cp->g, 2, cp->err, sizeof(cp->err)))
		sb_note("%s against %s: runs measured on machines of different models: %s",
			hc->ic->dir, bc->ic->dir, cp->err);
	for (size_t i = 0; i < cp->c.nrows && !cp->row; i++)
		if (!strcmp(cp->c.rows[i].name, cp->d->stat))
			cp->row = &cp->c.rows[i];
	return 0;
}

/* The robot's table of c, as report prints it; NULL when out of memory. */
static char *robot_text(const struct comparison *c)
{
	char *table = NULL;
	size_t len = 0;
	FILE *t = open_memstream(&table, &len);

	if (t) {
		print_robot_table(c, false, false, t);
		fclose(t);
	}
	return table;
}

/* profile --diff's report of head against base when both have a profile, else NULL (one
 * that cannot be made is a note); *len its length. */
static char *profile_text(struct cmp_page *cp, size_t *len)
{
	const char *base = cp->bc->ic->dir, *head = cp->hc->ic->dir;
	char *prof = NULL;
	FILE *t;

	if (!has_profile(base) || !has_profile(head))
		return NULL;
	t = open_memstream(&prof, len);
	if (t) {
		if (profile_print_diff(base, head, false, 0.5, t, cp->err, sizeof(cp->err)))
			sb_note("%s", cp->err);
		fclose(t);
	}
	return prof;
}

/* The page's head: the followed stat's change, both sides' groups, the robot's table. */
static void cmp_head(const struct cmp_page *cp, FILE *f, const struct cmp_result *res,
		     const char *table)
{
	const struct job_data *d = cp->d;
	char title[1024];

	snprintf(title, sizeof(title), "%s: %s vs %s", d->job->path_params, cp->bc->label,
		 cp->hc->label);
	page_head(f, "../../", title, "index.html", d->job->path_params);
	fputs("<h1>", f);
	H(d->job->path_params);
	fputs("</h1>\n<p class=\"sub\">", f);
	H(d->job->key);
	fputs("</p>\n<p>", f);
	put_commit(f, cp->s->o->commit_url, cp->hc->label);
	fputs(" against the commit before it, ", f);
	put_commit(f, cp->s->o->commit_url, cp->bc->label);
	fputs(": <b>", f);
	H(d->stat);
	fputs("</b> ", f);
	put_pct(f, res->change);
	fputs(" ", f);
	put_verdict(f, res->verdict);
	fputs("</p>\n", f);
	if (res->busy[0] || res->busy[1]) {
		fputs("<p id=\"busy-note\">Runs measured while other work took CPU time they "
		      "wanted: ",
		      f);
		put_busy(f, res->busy[1], cp->hc->ic->runs, NULL);
		fputs(res->busy[1] ? " of head" : "", f);
		fputs(res->busy[0] && res->busy[1] ? ", " : "", f);
		put_busy(f, res->busy[0], cp->bc->ic->runs, NULL);
		fputs(res->busy[0] ? " of base" : "", f);
		if (*res->busy_reason) {
			fputs("; the first: ", f);
			H(res->busy_reason);
		}
		fputs(".</p>\n", f);
	}
	fputs("<table id=\"groups\">\n<thead><tr><th>side</th><th>commit</th><th>runs</th>"
	      "<th>failures</th><th>busy</th><th>first run (UTC)</th><th>mean</th></tr></thead>\n"
	      "<tbody>\n",
	      f);
	for (int side = 0; side < 2; side++) {
		const struct job_commit *jc = side ? cp->hc : cp->bc;

		fprintf(f, "<tr><td>%s</td><td class=\"name\">", side ? "head" : "base");
		put_commit(f, cp->s->o->commit_url, jc->label);
		fprintf(f,
			"</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td><td "
			"class=\"num\">%zu</td><td>",
			jc->ic->runs, jc->ic->failed, res->busy[side]);
		put_time(f, jc->ic->first_started);
		fputs("</td><td class=\"num\">", f);
		put_num(f, cp->row ? cp->row->sum[side].mean : NAN);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n<h2>Comparison</h2>\n<pre id=\"robot\">", f);
	H(table ? table : "");
	fputs("</pre>\n", f);
}

/* The samples of both sides plotted for the followed stat and the notable headline stats,
 * MAX_SAMPLE_PLOTS at most; a plot that cannot be drawn is a note. */
static void cmp_samples(struct cmp_page *cp, FILE *f)
{
	const struct comparison *c = &cp->c;
	char title[1024], path[PATH_MAX];
	size_t nplots = 0;

	for (size_t i = 0; i < c->nrows && nplots < MAX_SAMPLE_PLOTS; i++) {
		const struct stat_row *r = &c->rows[i];
		struct plot_series ser[2];
		double *v = calloc(cp->g[0].nruns + cp->g[1].nruns + 1, sizeof(*v));
		char rel_svg[sizeof(cp->prefix) + SITE_SLUG_MAX + 8], ss[SITE_SLUG_MAX];

		if (!v)
			break;
		if (r != cp->row && !(r->headline && row_is_notable(r, 2))) {
			free(v);
			continue;
		}
		ser[0] =
		    (struct plot_series){cp->bc->label, v, group_values(&cp->g[0], r->name, v)};
		ser[1] = (struct plot_series){cp->hc->label, v + ser[0].n,
					      group_values(&cp->g[1], r->name, v + ser[0].n)};
		site_slug(r->name, ss);
		snprintf(rel_svg, sizeof(rel_svg), "%ss-%s.svg", cp->prefix, ss);
		group_plot_title(&cp->g[0], r->name, title, sizeof(title));
		if (!ser[0].n && !ser[1].n) {
			free(v);
			continue;
		}
		/* a path that cannot be made says why in the site's err, a plot in the page's */
		if (site_path(cp->s, rel_svg, path, sizeof(path)) || make_parents(cp->s, rel_svg)) {
			sb_note("%s", cp->s->err);
			*cp->s->err = '\0';
			site_missing(cp->s, rel_svg);
		} else if (!plot_samples(title, ser, 2, PLOT_SVG, 0, path, NULL, cp->err,
					 sizeof(cp->err))) {
			if (!nplots++)
				fputs("<h2>Samples</h2>\n<div class=\"plots\">\n", f);
			site_record(cp->s, rel_svg, cp->fp);
			json_array_append_new(cp->plots, json_string(rel_svg));
			cp->s->sum->written++;
			fprintf(f, "<figure><img class=\"plot\" src=\"c-%s/s-%s.svg\" alt=\"",
				cp->hc->slug, ss);
			H(r->name);
			fputs("\"><figcaption>", f);
			H(r->name);
			fputs("</figcaption></figure>\n", f);
		} else {
			sb_note("%s: %s", rel_svg, cp->err);
			site_missing(cp->s, rel_svg);
		}
		free(v);
	}
	if (nplots)
		fputs("</div>\n", f);
}

/* The followed stat against nr_task at both commits, when the job is part of a sweep. */
static void cmp_scalability(struct cmp_page *cp, FILE *f)
{
	const struct job_data *d = cp->d;
	char rel_svg[sizeof(cp->prefix) + 32], path[PATH_MAX];

	snprintf(rel_svg, sizeof(rel_svg), "%sscalability.svg", cp->prefix);
	if (site_path(cp->s, rel_svg, path, sizeof(path)) || make_parents(cp->s, rel_svg)) {
		sb_note("%s", cp->s->err);
		*cp->s->err = '\0';
		site_missing(cp->s, rel_svg);
		return;
	}
	int drawn = scalability_plot(cp->s, d, cp->bc->label, cp->hc->label, d->stat, path);

	if (drawn < 0)
		site_missing(cp->s, rel_svg); /* 1: no sweep to draw */
	if (drawn == 0) {
		site_record(cp->s, rel_svg, cp->fp);
		json_array_append_new(cp->plots, json_string(rel_svg));
		cp->s->sum->written++;
		fputs("<h2>Scalability</h2>\n", f);
		fprintf(f, "<img class=\"plot\" src=\"c-%s/scalability.svg\" alt=\"", cp->hc->slug);
		H(d->stat);
		fputs(" against nr_task\">\n", f);
	}
}

/* Write the comparison page rel (and its plots) of head against base. */
static int comparison_page(struct site *s, const struct job_data *d, const struct job_commit *bc,
			   const struct job_commit *hc, const char *rel, uint64_t fp,
			   struct cmp_result *res)
{
	struct cmp_page cp = {.s = s, .d = d, .bc = bc, .hc = hc, .fp = fp, .plots = json_array()};
	struct page p = {0};
	char *table = NULL, *prof = NULL;
	size_t plen = 0, missing = s->sum->missing;
	int rc = -1;

	*res = (struct cmp_result){.verdict = "none", .change = NAN};
	if (make_parents(s, rel) || cmp_load(&cp))
		goto out;
	if (cp.row) {
		snprintf(res->verdict, sizeof(res->verdict), "%s",
			 verdict_name(cp.row->verdict[1]));
		res->change = cp.row->change[1];
	}
	for (int side = 1; side >= 0; side--) {
		const char *why = NULL;

		res->busy[side] = group_busy_runs(&cp.g[side], &why);
		if (why && !*res->busy_reason)
			snprintf(res->busy_reason, sizeof(res->busy_reason), "%s", why);
	}
	table = robot_text(&cp.c);
	prof = profile_text(&cp, &plen);
	if (page_open(s, &p))
		goto cmp_out;
	/* Its plots in a directory of its own: no stat's name can meet another page's. */
	snprintf(cp.prefix, sizeof(cp.prefix), "%s/c-%s/", d->dir, hc->slug);
	FILE *f = p.f;
	cmp_head(&cp, f, res, table);
	cmp_samples(&cp, f);
	cmp_scalability(&cp, f);
	if (prof && plen) {
		fputs("<h2>Profile</h2>\n<pre id=\"profile\">", f);
		H(prof);
		fputs("</pre>\n", f);
	}
	page_foot(f);
	rc = page_close(s, &p, rel, fp);
	if (!rc) {
		json_t *e = json_object_get(s->new_files, rel);

		json_object_set_new(e, "verdict", json_string(res->verdict));
		json_object_set_new(e, "change",
				    isfinite(res->change) ? json_real(res->change) : json_null());
		json_object_set(e, "plots", cp.plots);
		page_missing(s, e, missing);
		json_object_set_new(
		    e, "busy",
		    json_pack("[II]", (json_int_t)res->busy[0], (json_int_t)res->busy[1]));
		json_object_set_new(e, "busy_reason", json_string(res->busy_reason));
	}
cmp_out:
	page_discard(&p);
	comparison_free(&cp.c);
out:
	for (size_t i = 0; i < cp.loaded; i++)
		group_free(&cp.g[i]);
	free(table);
	free(prof);
	json_decref(cp.plots);
	return rc;
}

/* What a comparison page is made from: the runs of both commits, of the job and of the jobs
 * of its sweep (the scalability plot reads them). */
static uint64_t cmp_fp(struct site *s, const struct index_job *job, const char *stat,
		       const char *base, const char *head)
{
	uint64_t h = FNV_START;

	h = fp_str(h, SITE_FORMAT);
	h = fp_str(h, job->key);
	h = fp_str(h, stat);
	h = fp_str(h, s->o->commit_url);
	for (int side = 0; side < 2; side++) {
		struct index_commit *all = NULL;
		ssize_t n = index_commits(s->ix, NULL, side ? head : base, &all);

		h = fp_str(h, side ? head : base);
		for (ssize_t i = 0; i < n; i++) {
			const struct index_job *j = job_by_key(s, all[i].job_key);

			if (!j || !same_machine(j, job))
				continue;
			h = fp_str(h, all[i].job_key);
			h = fp_commit(h, &all[i]);
		}
		if (n > 0)
			index_commits_free(all, (size_t)n);
	}
	return h;
}

/* The comparison page ending at commit i (against the commit before it in the series): kept
 * when its runs and the runs of its sweep at both commits are unchanged, else made again.
 * -1 only for an error that stops the site; a comparison that cannot be made is a note. */
static int comparison(struct site *s, struct job_data *d, size_t base, size_t head,
		      struct cmp_result *res)
{
	struct job_commit *bc = &d->c[base], *hc = &d->c[head];
	char rel[PATH_MAX];
	uint64_t h = cmp_fp(s, d->job, d->stat, bc->label, hc->label);
	json_t *e = NULL;

	snprintf(rel, sizeof(rel), "%s/c-%s.html", d->dir, hc->slug);
	hc->base = bc->label;
	if (site_fresh(s, rel, h, &e)) {
		json_t *v;
		size_t i;

		json_array_foreach (json_object_get(e, "plots"), i, v)
			if (json_is_string(v) &&
			    json_object_get(s->old_files, json_string_value(v)))
				json_object_set(
				    s->new_files, json_string_value(v),
				    json_object_get(s->old_files, json_string_value(v)));
		snprintf(res->verdict, sizeof(res->verdict), "%s",
			 json_is_string(json_object_get(e, "verdict"))
			     ? json_string_value(json_object_get(e, "verdict"))
			     : "none");
		res->change = json_is_number(json_object_get(e, "change"))
				  ? json_number_value(json_object_get(e, "change"))
				  : NAN;
		for (int side = 0; side < 2; side++)
			res->busy[side] = (size_t)json_integer_value(
			    json_array_get(json_object_get(e, "busy"), (size_t)side));
		snprintf(res->busy_reason, sizeof(res->busy_reason), "%s",
			 json_is_string(json_object_get(e, "busy_reason"))
			     ? json_string_value(json_object_get(e, "busy_reason"))
			     : "");
		hc->compared = true;
		s->sum->comparisons++;
		return 0;
	}
	if (comparison_page(s, d, bc, hc, rel, h, res))
		return *s->err ? -1 : 0;
	hc->compared = true;
	s->sum->comparisons++;
	return 0;
}

/* ---- job pages ---- */

/* The trend plots (plot_trend): trend.svg for the job's page and spark.svg, a sparkline for
 * the index page; each change point a vertical line before its first commit, with its
 * %change.  0 when both are on the site, 1 when they could not be drawn (a note), -1 on an
 * error that stops the site. */
static int trend_plots(struct site *s, const struct job_data *d, const char *rel_trend,
		       const char *rel_spark)
{
	static const struct plot_trend_opts full = {.width = 900, .height = 420},
					    spark = {.width = 240, .height = 60, .sparkline = true};
	struct plot_trend_point *p = calloc(d->series.n + 1, sizeof(*p));
	struct plot_trend_mark *m = calloc(d->ncps + 1, sizeof(*m));
	char title[1024], path[PATH_MAX], err[1024];
	int rc = 1;

	if (!p || !m) {
		snprintf(s->err, s->errlen, "out of memory");
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < d->series.n; i++)
		p[i] =
		    (struct plot_trend_point){d->series.points[i].commit, d->series.points[i].runs,
					      d->series.points[i].nruns, d->series.points[i].mean};
	for (size_t k = 0; k < d->ncps; k++)
		m[k] = (struct plot_trend_mark){d->cps[k].index, d->cps[k].change_pct};
	snprintf(title, sizeof(title), "%s: %s", d->job->path_params, d->stat);
	for (int small = 0; small < 2; small++) {
		const char *rel = small ? rel_spark : rel_trend;

		if (site_path(s, rel, path, sizeof(path)) || make_parents(s, rel)) {
			rc = -1;
			goto out;
		}
		if (plot_trend(title, d->stat, p, d->series.n, m, d->ncps, small ? &spark : &full,
			       PLOT_SVG, path, NULL, err, sizeof(err))) {
			sb_note("%s: %s", rel, err);
			site_missing(s, rel);
			goto out;
		}
		site_record(s, rel, d->fp);
		s->sum->written++;
	}
	rc = 0;
out:
	free(p);
	free(m);
	return rc;
}

/* Find the page ending at commit i, or NULL. */
static const char *cp_verdict(const struct job_data *d, size_t point)
{
	for (size_t k = 0; k < d->ncps; k++)
		if (d->cps[k].index == point)
			return verdict_name(d->cps[k].verdict);
	return NULL;
}

/* The stat the job's page follows (d->stat), its series and change points. */
static void job_follow(struct site *s, struct job_data *d)
{
	if (job_stat(s, d)) {
		sb_note("%s: no stat to follow (no run declares a headline stat; give --stat)",
			d->job->key);
	} else if (job_series(s, d)) {
		/* The page still lists the commits; the series' trouble is said once here. */
		sb_note("%s: %s", d->job->key, s->err);
		*s->err = '\0';
		if (!d->have_series)
			d->series = (struct series){0};
		free(d->cps);
		d->cps = NULL;
		d->ncps = 0;
	}
}

/* The comparison pages of a series of two points or more: the latest commit against the one
 * before it (*nlatest and *nprev, what its page says in *latest) and the first commit after
 * each change point against the one before it.  -1 on an error that stops the site. */
static int job_comparisons(struct site *s, struct job_data *d, size_t *nlatest, size_t *nprev,
			   struct cmp_result *latest)
{
	if (!d->stat || d->series.n < 2)
		return 0;
	*nlatest = commit_of_point(d, d->series.n - 1);
	*nprev = commit_of_point(d, d->series.n - 2);
	if (comparison(s, d, *nprev, *nlatest, latest))
		return -1;
	for (size_t k = 0; k < d->ncps; k++) {
		struct cmp_result r;
		size_t hi = commit_of_point(d, d->cps[k].index),
		       bi = commit_of_point(d, d->cps[k].index - 1);

		if (hi != *nlatest && comparison(s, d, bi, hi, &r))
			return -1;
		if (stopped(s))
			return -1;
	}
	return 0;
}

/* The job's trend plots, kept when its inputs are unchanged, else drawn; added to files when
 * they are on the site (*have_plot).  -1 on an error that stops the site. */
static int job_trend(struct site *s, const struct job_data *d, json_t *files, bool *have_plot)
{
	char rel[PATH_MAX], spark[sizeof(rel)];
	int r = 0;

	*have_plot = false;
	if (!d->stat || !d->series.n)
		return 0;
	snprintf(rel, sizeof(rel), "%s/trend.svg", d->dir);
	snprintf(spark, sizeof(spark), "%s/spark.svg", d->dir);
	if (site_unchanged(s, rel, d->fp) && site_unchanged(s, spark, d->fp)) {
		site_fresh(s, rel, d->fp, NULL);
		site_fresh(s, spark, d->fp, NULL);
	} else {
		r = trend_plots(s, d, rel, spark);
	}
	if (r < 0)
		return -1;
	*have_plot = r == 0;
	if (*have_plot) {
		json_array_append_new(files, json_string(rel));
		json_array_append_new(files, json_string(spark));
	}
	return 0;
}

/* ---- the interactive trend plot's data (site_trend.js) ---- */

static json_t *iso_time(int64_t t);

/* A commit label and its place in the job's order, sorted by label for the look-ups. */
struct label_at {
	const char *label;
	size_t at;
};

static int cmp_label_at(const void *a, const void *b)
{
	return strcmp(((const struct label_at *)a)->label, ((const struct label_at *)b)->label);
}

/* Each commit's subject, author and author date from --repo, in d's order: one git log per
 * 500 commits (the command line stays far below ARG_MAX).  NULL without --repo or when git
 * cannot say; else an array of 3 d->nlabels strings (malloc'd, "" when unknown). */
static char **commit_subjects(const struct site *s, const struct job_data *d)
{
	enum { BATCH = 500 };
	const char **args = calloc(BATCH + 5, sizeof(*args));
	char **words = calloc(3 * d->nlabels + 1, sizeof(*words));
	bool ok = args && words && s->o->repo;

	for (size_t first = 0; ok && first < d->nlabels; first += BATCH) {
		size_t n = d->nlabels - first < BATCH ? d->nlabels - first : BATCH, k = 0;
		char *out = NULL, *line, *next;

		args[k++] = "log";
		args[k++] = "--no-walk=unsorted";
		args[k++] = "--format=%H%x1f%s%x1f%an%x1f%aI";
		for (size_t i = 0; i < n; i++)
			if (d->labels[first + i][0] != '-')
				args[k++] = d->labels[first + i];
		args[k++] = "--";
		args[k] = NULL;
		if (git_run(s->o->repo, args, 0, &out, NULL, 0)) {
			free(out);
			ok = false;
			break;
		}
		/* Lines in the order given, each under its full sha: a label is the sha or a
		 * prefix of it. */
		for (line = out; line && *line; line = next) {
			char *f[4] = {line, NULL, NULL, NULL};

			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			for (int j = 1; j < 4 && f[j - 1]; j++) {
				f[j] = strchr(f[j - 1], '\x1f');
				if (f[j])
					*f[j]++ = '\0';
			}
			if (!f[3])
				continue;
			for (size_t i = first; i < first + n; i++)
				if (!words[3 * i] &&
				    !strncmp(f[0], d->labels[i], strlen(d->labels[i]))) {
					for (int j = 0; j < 3; j++)
						words[3 * i + (size_t)j] = strdup(f[j + 1]);
					break;
				}
		}
		free(out);
	}
	for (size_t i = 0; ok && i < 3 * d->nlabels; i++)
		if (!words[i] && !(words[i] = strdup("")))
			ok = false;
	free(args);
	if (!ok && words) {
		for (size_t i = 0; i < 3 * d->nlabels; i++)
			free(words[i]);
		free(words);
		words = NULL;
	}
	return words;
}

/* A document handed to the page's script: CALL(JSON);, written with jsonw, so nothing from
 * the tree is ever more than a JSON string in it. */
static void js_call_begin(FILE *f, struct jsonw *w, const char *call)
{
	fprintf(f, "%s(", call);
	jsonw_init(w, f, 0);
	jsonw_begin_object(w);
}

static int js_call_end(FILE *f, struct jsonw *w)
{
	jsonw_end_object(w);
	if (jsonw_finish(w))
		return -1;
	fputs(");\n", f);
	return 0;
}

/* data/commits.js: the job's commits in order, with their first run's time and, with --repo,
 * subject, author and date. */
static int commits_file(struct site *s, const struct job_data *d, json_t *files)
{
	char rel[PATH_MAX], **words = commit_subjects(s, d);
	struct page p;
	struct jsonw w;
	int rc = -1;

	snprintf(rel, sizeof(rel), "%s/data/commits.js", d->dir);
	if (page_open(s, &p))
		goto out;
	js_call_begin(p.f, &w, "scalebenchCommits");
	jsonw_key(&w, "job");
	jsonw_string(&w, d->job->path_params);
	jsonw_key(&w, "labels");
	jsonw_begin_array(&w);
	for (size_t i = 0; i < d->nlabels; i++)
		jsonw_string(&w, d->labels[i]);
	jsonw_end_array(&w);
	jsonw_key(&w, "first_run");
	jsonw_begin_array(&w);
	for (size_t i = 0; i < d->nlabels; i++) {
		json_t *t = iso_time(d->c[i].ic ? d->c[i].ic->first_started : 0);

		if (json_is_string(t))
			jsonw_string(&w, json_string_value(t));
		else
			jsonw_null(&w);
		json_decref(t);
	}
	jsonw_end_array(&w);
	for (int j = 0; words && j < 3; j++) {
		static const char *const keys[] = {"subject", "author", "date"};

		jsonw_key(&w, keys[j]);
		jsonw_begin_array(&w);
		for (size_t i = 0; i < d->nlabels; i++)
			jsonw_string(&w, words[3 * i + (size_t)j]);
		jsonw_end_array(&w);
	}
	if (js_call_end(p.f, &w)) {
		snprintf(s->err, s->errlen, "%s: out of memory", rel);
		goto out;
	}
	rc = page_close(s, &p, rel, d->fp);
	if (!rc)
		json_array_append_new(files, json_string(rel));
out:
	page_discard(&p);
	if (words)
		for (size_t i = 0; i < 3 * d->nlabels; i++)
			free(words[i]);
	free(words);
	return rc;
}

/* One stat's values summed up per commit of d (n 0: no ok run of it has the stat). */
struct stat_points {
	struct stat_summary *at; /* per commit, in d's order */
	double *x;		 /* scratch */
};

static int stat_points_load(struct site *s, const struct job_data *d, const struct label_at *by,
			    const char *stat, struct stat_points *sp)
{
	struct index_value *v = NULL;
	ssize_t nv = index_stat_values(s->ix, d->job->key, stat, &v);
	size_t *count = calloc(d->nlabels + 1, sizeof(*count)), *start = NULL, *pos = NULL;
	int rc = -1;

	sp->at = calloc(d->nlabels + 1, sizeof(*sp->at));
	sp->x = calloc(nv > 0 ? (size_t)nv : 1, sizeof(*sp->x));
	start = calloc(d->nlabels + 1, sizeof(*start));
	pos = calloc(nv > 0 ? (size_t)nv : 1, sizeof(*pos));
	if (nv < 0 || !count || !sp->at || !sp->x || !start || !pos)
		goto out;
	for (ssize_t i = 0; i < nv; i++) {
		struct label_at key = {.label = v[i].commit}, *hit;

		hit = v[i].ok ? bsearch(&key, by, d->nlabels, sizeof(*by), cmp_label_at) : NULL;
		pos[i] = hit ? hit->at : SIZE_MAX;
		if (hit)
			count[hit->at]++;
	}
	for (size_t i = 1; i <= d->nlabels; i++)
		start[i] = start[i - 1] + count[i - 1];
	memset(count, 0, (d->nlabels + 1) * sizeof(*count));
	for (ssize_t i = 0; i < nv; i++)
		if (pos[i] != SIZE_MAX)
			sp->x[start[pos[i]] + count[pos[i]]++] = v[i].value;
	for (size_t i = 0; i < d->nlabels; i++)
		if (count[i])
			stat_summarize(sp->x + start[i], count[i], &sp->at[i]);
	rc = 0;
out:
	if (nv > 0)
		index_values_free(v, (size_t)nv);
	free(count);
	free(start);
	free(pos);
	if (rc)
		snprintf(s->err, s->errlen, "%s: %s: cannot read its values from the index",
			 d->job->key, stat);
	return rc;
}

void site_csv_field(const char *v, FILE *f)
{
	/* A spreadsheet runs a cell starting with one of these as a formula (OWASP's CSV
	 * injection): prefixed with ' and quoted, so it reads as the text it is. */
	bool formula = *v && strchr("=+-@\t\r", *v);

	if (!formula && !strpbrk(v, ",\"\r\n")) {
		fputs(v, f);
		return;
	}
	fputs(formula ? "\"'" : "\"", f);
	for (; *v; v++) {
		if (*v == '"')
			fputc('"', f);
		fputc(*v, f);
	}
	fputc('"', f);
}

static void jsonw_stat_array(struct jsonw *w, const char *key, const struct stat_points *sp,
			     size_t n, int which)
{
	jsonw_key(w, key);
	jsonw_begin_array(w);
	for (size_t i = 0; i < n; i++) {
		const struct stat_summary *a = &sp->at[i];

		if (!a->n)
			jsonw_null(w);
		else if (which == 0)
			jsonw_uint(w, a->n);
		else
			jsonw_double(w, which == 1   ? a->mean
					: which == 2 ? a->stddev
					: which == 3 ? a->min
						     : a->max);
	}
	jsonw_end_array(w);
}

/* The change points (the followed stat's: d->cps) and the segments' means between them. */
static void jsonw_change_points(struct jsonw *w, const struct job_data *d, bool followed)
{
	size_t ncps = followed ? d->ncps : 0;

	jsonw_key(w, "change_points");
	jsonw_begin_array(w);
	for (size_t k = 0; k < ncps; k++) {
		const struct change_point *cp = &d->cps[k];

		jsonw_begin_object(w);
		jsonw_key(w, "index");
		jsonw_uint(w, commit_of_point(d, cp->index));
		jsonw_key(w, "commit");
		jsonw_string(w, d->series.points[cp->index].commit);
		jsonw_key(w, "before");
		jsonw_double(w, cp->before);
		jsonw_key(w, "after");
		jsonw_double(w, cp->after);
		jsonw_key(w, "change_pct");
		jsonw_double(w, cp->change_pct);
		jsonw_key(w, "verdict");
		jsonw_string(w, verdict_name(cp->verdict));
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_key(w, "segments");
	jsonw_begin_array(w);
	for (size_t k = 0; k <= ncps && ncps; k++) {
		jsonw_begin_object(w);
		jsonw_key(w, "from");
		jsonw_uint(w, k ? commit_of_point(d, d->cps[k - 1].index) : 0);
		jsonw_key(w, "to");
		jsonw_uint(w, k < ncps ? commit_of_point(d, d->cps[k].index) - 1 : d->nlabels - 1);
		jsonw_key(w, "mean");
		jsonw_double(w, k ? d->cps[k - 1].after : d->cps[0].before);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

/* data/s-<stat>.js and .csv: one stat's mean, runs, stddev, min and max per commit (null, and
 * no CSV row, where no run has it), with the change points when it is the followed stat. */
static int stat_files(struct site *s, const struct job_data *d, const struct label_at *by,
		      const char *stat, json_t *files)
{
	char rel[PATH_MAX], ss[SITE_SLUG_MAX], num[5][32];
	struct stat_points sp = {0};
	struct page p = {0};
	struct jsonw w;
	bool followed = !strcmp(stat, d->stat);
	int rc = -1;

	site_slug(stat, ss);
	if (stat_points_load(s, d, by, stat, &sp) || page_open(s, &p))
		goto out;
	js_call_begin(p.f, &w, "scalebenchSeries");
	jsonw_key(&w, "file");
	jsonw_string(&w, ss);
	jsonw_key(&w, "stat");
	jsonw_string(&w, stat);
	jsonw_key(&w, "followed");
	jsonw_bool(&w, followed);
	jsonw_stat_array(&w, "runs", &sp, d->nlabels, 0);
	jsonw_stat_array(&w, "mean", &sp, d->nlabels, 1);
	jsonw_stat_array(&w, "stddev", &sp, d->nlabels, 2);
	jsonw_stat_array(&w, "min", &sp, d->nlabels, 3);
	jsonw_stat_array(&w, "max", &sp, d->nlabels, 4);
	jsonw_change_points(&w, d, followed);
	snprintf(rel, sizeof(rel), "%s/data/s-%s.js", d->dir, ss);
	if (js_call_end(p.f, &w)) {
		snprintf(s->err, s->errlen, "%s: out of memory", rel);
		goto out;
	}
	if (page_close(s, &p, rel, d->fp))
		goto out;
	json_array_append_new(files, json_string(rel));
	/* The same numbers as the JSON's (10 significant digits), one row per commit with runs. */
	if (page_open(s, &p))
		goto out;
	fputs("commit,runs,mean,stddev,min,max\n", p.f);
	for (size_t i = 0; i < d->nlabels; i++) {
		const struct stat_summary *a = &sp.at[i];
		double v[5] = {0, a->mean, a->stddev, a->min, a->max};

		if (!a->n)
			continue;
		for (int j = 1; j < 5; j++)
			if (isfinite(v[j]))
				snprintf(num[j], sizeof(num[j]), "%.10g", v[j]);
			else
				num[j][0] = '\0';
		site_csv_field(d->labels[i], p.f);
		fprintf(p.f, ",%zu,%s,%s,%s,%s\n", a->n, num[1], num[2], num[3], num[4]);
	}
	snprintf(rel, sizeof(rel), "%s/data/s-%s.csv", d->dir, ss);
	if (page_close(s, &p, rel, d->fp))
		goto out;
	json_array_append_new(files, json_string(rel));
	rc = 0;
out:
	page_discard(&p);
	free(sp.at);
	free(sp.x);
	return rc;
}

/* The n stats of names reordered for the picker: the followed stat, its family, the others,
 * each part by name; how many of them get series data (MAX_SERIES_STATS at most). */
static size_t series_stats_pick(const struct job_data *d, char **names, size_t n)
{
	size_t fam = strcspn(d->stat, ".") + 1, k = 0;
	char *t;

	for (int pass = 0; pass < 3; pass++)
		for (size_t i = k; i < n; i++) {
			bool take = pass == 0	? !strcmp(names[i], d->stat)
				    : pass == 1 ? !strncmp(names[i], d->stat, fam)
						: true;

			if (!take)
				continue;
			/* keep the name order of what is not taken yet */
			t = names[i];
			memmove(names + k + 1, names + k, (i - k) * sizeof(*names));
			names[k++] = t;
		}
	return n < MAX_SERIES_STATS ? n : MAX_SERIES_STATS;
}

/* The series data of the job's stats, for the interactive plot: every stat's name in *names
 * (*nnames of them, in the picker's order), the first *nshown with their data files.  -1 on
 * an error that stops the site. */
static int job_series_files(struct site *s, const struct job_data *d, json_t *files, char ***names,
			    size_t *nnames, size_t *nshown)
{
	struct label_at *by = calloc(d->nlabels + 1, sizeof(*by));
	ssize_t ns;
	int rc = -1;

	*names = NULL;
	*nnames = 0;
	if (!by) {
		snprintf(s->err, s->errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < d->nlabels; i++)
		by[i] = (struct label_at){d->labels[i], i};
	qsort(by, d->nlabels, sizeof(*by), cmp_label_at);
	ns = index_stat_names(s->ix, d->job->key, names);
	if (ns < 0) {
		snprintf(s->err, s->errlen, "%s: cannot list its stats from the index",
			 d->job->key);
		goto out;
	}
	*nnames = (size_t)ns;
	*nshown = series_stats_pick(d, *names, *nnames);
	if (commits_file(s, d, files))
		goto out;
	for (size_t i = 0; i < *nshown; i++)
		if (stat_files(s, d, by, (*names)[i], files) || stopped(s))
			goto out;
	rc = 0;
out:
	free(by);
	return rc;
}

/* The interactive plot's frame on the job page, above the SVG plot it hides when it draws:
 * the stat picker (every stat of the job, the followed one selected), the chart, the hover's
 * words, and the scripts (uPlot's and the site's, at its root). */
static void trend_interactive(FILE *f, const struct job_data *d, char *const *names, size_t n,
			      size_t total)
{
	char ss[SITE_SLUG_MAX];

	fputs("<link rel=\"stylesheet\" href=\"../../uPlot.min.css\">\n"
	      "<div id=\"trend-interactive\" data-dir=\"data/\" hidden>\n"
	      "<p><label>stat <select id=\"stat-picker\">\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		site_slug(names[i], ss);
		fprintf(f, "<option value=\"%s\"%s>", ss,
			!strcmp(names[i], d->stat) ? " selected" : "");
		H(names[i]);
		fputs("</option>\n", f);
	}
	fputs("</select></label>", f);
	if (total > n)
		fprintf(f,
			" <small>%zu of the job's %zu stats: the followed one, its family, then "
			"the others by name</small>",
			n, total);
	fputs("</p>\n<div id=\"trend-chart\"></div>\n<pre id=\"trend-hover\"></pre>\n</div>\n", f);
}

static void trend_scripts(FILE *f)
{
	fputs("<script src=\"../../uPlot.iife.min.js\"></script>\n"
	      "<script src=\"../../trend.js\"></script>\n",
	      f);
}

/* The job page's head: the job, the stat it follows, the latest commit against the one
 * before it (when nlatest is one) and the trend plot. */
static void job_summary(FILE *f, const struct site *s, const struct job_data *d, size_t nlatest,
			size_t nprev, const struct cmp_result *latest, bool have_plot,
			char *const *names, size_t nnames, size_t nshown)
{
	page_head(f, "../../", d->job->path_params, NULL, NULL);
	fputs("<h1>", f);
	H(d->job->path_params);
	fputs("</h1>\n<p class=\"sub\">", f);
	H(d->job->key);
	fputs("</p>\n", f);
	if (d->stat) {
		fputs("<p>Following <b>", f);
		H(d->stat);
		fprintf(f, "</b> (%s is better) over %zu commits.",
			d->sdir == DIR_LOWER_BETTER    ? "lower"
			: d->sdir == DIR_HIGHER_BETTER ? "higher"
						       : "neither way",
			d->nlabels);
		if (nlatest != SIZE_MAX) {
			fputs(" Latest: ", f);
			put_commit(f, s->o->commit_url, d->c[nlatest].label);
			fputs(" against ", f);
			put_commit(f, s->o->commit_url, d->c[nprev].label);
			fputs(" ", f);
			put_pct(f, latest->change);
			fputs(" ", f);
			put_verdict(f, latest->verdict);
			if (d->c[nlatest].compared)
				fprintf(f, " (<a href=\"c-%s.html\">comparison</a>)",
					d->c[nlatest].slug);
			if (latest->busy[1]) {
				fputs(" ", f);
				put_busy(f, latest->busy[1], d->c[nlatest].ic->runs,
					 latest->busy_reason);
			}
		}
		fputs("</p>\n", f);
	} else {
		fputs("<p>No stat to follow: no run declares a headline stat (give --stat).</p>\n",
		      f);
	}
	if (nshown)
		trend_interactive(f, d, names, nshown, nnames);
	if (have_plot) {
		fputs("<img class=\"plot\" id=\"trend\" src=\"trend.svg\" alt=\"", f);
		H(d->stat);
		fputs(" per commit\">\n", f);
	}
	if (nshown) {
		char ss[SITE_SLUG_MAX];

		site_slug(d->stat, ss);
		fprintf(f,
			"<p><a id=\"trend-csv\" href=\"data/s-%s.csv\" download>CSV of the "
			"series</a> (commit, runs, mean, stddev, min, max; every stat's in "
			"data/)</p>\n",
			ss);
		trend_scripts(f);
	}
}

static void change_points_table(FILE *f, const struct job_data *d, const char *url)
{
	fputs("<h2 id=\"change-points-head\">Change points</h2>\n", f);
	fputs("<table id=\"change-points\">\n<thead><tr><th>#</th><th>first commit after</th>"
	      "<th>before</th><th>after</th><th>change</th><th>interval</th><th>p</th>"
	      "<th>verdict</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t k = 0; k < d->ncps; k++) {
		const struct change_point *cp = &d->cps[k];
		const struct job_commit *jc = &d->c[commit_of_point(d, cp->index)];

		fprintf(f, "<tr><td class=\"num\">%zu</td><td class=\"name\">", k + 1);
		/* The label links to the comparison, or with a commit URL to the commit (links
		 * do not nest): the comparison's link beside it then. */
		if (jc->compared && !url)
			fprintf(f, "<a href=\"c-%s.html\">", jc->slug);
		put_commit(f, url, jc->label);
		if (jc->compared)
			fprintf(f, url ? " (<a href=\"c-%s.html\">comparison</a>)" : "</a>",
				jc->slug);
		fputs("</td><td class=\"num\">", f);
		put_num(f, cp->before);
		fputs("</td><td class=\"num\">", f);
		put_num(f, cp->after);
		fputs("</td><td class=\"num\">", f);
		put_pct(f, cp->change_pct);
		fputs("</td><td class=\"num\">[", f);
		put_pct(f, cp->lo_pct);
		fputs(", ", f);
		put_pct(f, cp->hi_pct);
		fprintf(f, "]</td><td class=\"num\">%.3g</td><td>", cp->p);
		put_verdict(f, verdict_name(cp->verdict));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
	if (!d->ncps)
		fputs("<p>None found.</p>\n", f);
}

/* The job's commits, the newest first. */
static void commits_table(FILE *f, const struct job_data *d, const char *url)
{
	fputs("<h2>Commits</h2>\n<table id=\"commits\">\n<thead><tr><th>commit</th>"
	      "<th>first run (UTC)</th><th>runs</th><th>failures</th><th>mean</th>"
	      "<th>comparison</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = d->nlabels; i-- > 0;) {
		const struct job_commit *jc = &d->c[i];
		const char *v = jc->pt ? cp_verdict(d, (size_t)(jc->pt - d->series.points)) : NULL;

		fprintf(f, "<tr id=\"commit-%s\"%s><td class=\"name\">", jc->slug,
			v ? " class=\"cp\"" : "");
		put_commit(f, url, jc->label);
		fputs("</td><td>", f);
		if (jc->ic)
			put_time(f, jc->ic->first_started);
		fprintf(f,
			"</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td>"
			"<td class=\"num\">",
			jc->ic ? jc->ic->runs : 0, jc->ic ? jc->ic->failed : 0);
		put_num(f, jc->pt ? jc->pt->mean : NAN);
		fputs("</td><td>", f);
		if (jc->compared)
			fprintf(f, "<a href=\"c-%s.html\">%s</a>", jc->slug,
				v ? "change point" : "against the previous");
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

/* The job's comparison pages and their plots, added to files; the pages in cmps too. */
static void job_comparison_files(struct site *s, const struct job_data *d, json_t *files,
				 json_t *cmps)
{
	char rel[PATH_MAX];

	for (size_t i = 0; i < d->nlabels; i++)
		if (d->c[i].compared) {
			snprintf(rel, sizeof(rel), "%s/c-%s.html", d->dir, d->c[i].slug);
			json_array_append_new(files, json_string(rel));
			json_array_append_new(cmps, json_pack("{s:s, s:o, s:o}", "page", rel,
							      "base", json_text(d->c[i].base),
							      "head", json_text(d->c[i].label)));
			json_t *e = json_object_get(s->new_files, rel);
			size_t k;
			json_t *v;

			json_array_foreach (json_object_get(e, "plots"), k, v)
				json_array_append(files, v);
		}
}

/* The job's row of the index page, in *row: 0, or -1 when out of memory. */
/* A commit's subject, author and author date from --repo ("" each without one). */
static void commit_words(const struct site *s, const char *label, json_t *o)
{
	char *out = NULL, spec[300];

	if (!s->o->repo ||
	    snprintf(spec, sizeof(spec), "%s^{commit}", label) >= (int)sizeof(spec) ||
	    label[0] == '-' ||
	    git_run(s->o->repo, GIT_ARGS("log", "-1", "--format=%s%n%an%n%aI", spec, "--"), 0, &out,
		    NULL, 0)) {
		free(out);
		return;
	}
	char *author = strchr(out, '\n'), *date = author ? strchr(author + 1, '\n') : NULL;

	if (date) {
		*author++ = '\0';
		*date++ = '\0';
		date[strcspn(date, "\n")] = '\0';
		/* git prints a commit's words as they were committed: any bytes. */
		json_set_text(o, "subject", out);
		json_set_text(o, "author", author);
		json_set_text(o, "date", date);
	}
	free(out);
}

static json_t *iso_time(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[32];

	if (t <= 0 || !gmtime_r(&tt, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return json_null();
	return json_string(buf);
}

/* The job's change points as the feed (changes.json) and the regressions page list them:
 * where (commit, base, the range of commits the step may be at, nightly_policy.h), how much
 * (change and interval, the segments' means), the verdict, the first run's time, and with
 * --repo the commit's subject, author and date; the last one "open" (the job is still at its
 * level).  NULL on ENOMEM. */
static json_t *job_changes_json(const struct site *s, const struct job_data *d)
{
	json_t *a = json_array();
	struct cp_commit *cc = d->have_series ? calloc(d->series.n + 1, sizeof(*cc)) : NULL;
	struct nightly_policy pol;

	if (!a || (d->have_series && !cc)) {
		json_decref(a);
		free(cc);
		return NULL;
	}
	nightly_policy_default(&pol);
	for (size_t i = 0; cc && i < d->series.n; i++)
		cc[i] = (struct cp_commit){d->series.points[i].runs, d->series.points[i].nruns};
	for (size_t k = 0; cc && k < d->ncps; k++) {
		const struct change_point *cp = &d->cps[k];
		const struct job_commit *jc = &d->c[commit_of_point(d, cp->index)];
		json_t *range = json_array(), *o;
		size_t lo, hi;

		if (cp->index == 0 || cp->index >= d->series.n)
			continue;
		nightly_change_range(cc, k ? d->cps[k - 1].index : 0,
				     k + 1 < d->ncps ? d->cps[k + 1].index : d->series.n, cp->index,
				     &pol, &lo, &hi);
		for (size_t i = lo; range && i <= hi; i++)
			if (json_array_append_new(range, json_text(d->series.points[i].commit))) {
				json_decref(range);
				range = NULL;
			}
		/* Names from the tree are any bytes: json_set_text keeps them (json_pack's "s"
		 * would give NULL for one that is not UTF-8). */
		o = json_pack("{s:s, s:o, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:o, s:b}", "page",
			      d->slug, "range", range, "change_pct", cp->change_pct, "lo_pct",
			      cp->lo_pct, "hi_pct", cp->hi_pct, "before", cp->before, "after",
			      cp->after, "p", cp->p, "verdict", verdict_name(cp->verdict), "time",
			      iso_time(jc->ic ? jc->ic->first_started : 0), "open",
			      k + 1 == d->ncps);
		if (!o || json_set_text(o, "job", d->job->key) ||
		    json_set_text(o, "path_params", d->job->path_params) ||
		    json_set_text(o, "stat", d->stat) || json_set_text(o, "commit", jc->label) ||
		    json_set_text(o, "base", d->series.points[cp->index - 1].commit) ||
		    json_array_append_new(a, o)) {
			json_decref(a);
			free(cc);
			return NULL;
		}
		json_object_set_new(o, "page", json_sprintf("%s/index.html", d->dir));
		if (jc->compared)
			json_object_set_new(o, "comparison",
					    json_sprintf("%s/c-%s.html", d->dir, jc->slug));
		commit_words(s, jc->label, o);
	}
	free(cc);
	return a;
}

/* How many runs of job at label have stat (a failure stat: nonzero in the run). */
static size_t runs_with(struct site *s, const char *job_key, const char *stat, const char *label)
{
	struct index_value *v = NULL;
	ssize_t n = index_stat_values(s->ix, job_key, stat, &v);
	size_t k = 0;

	for (ssize_t i = 0; i < n; i++)
		k += v[i].value != 0 && !strcmp(v[i].commit, label);
	if (n > 0)
		index_values_free(v, (size_t)n);
	return k;
}

/* The job's new failures, as nightly mails them (nightly_failures: a kernel warning's
 * signature, a crashed or stuck copy, a failed run, at the first commit that has it after
 * commits that had none), each with how many runs of the latest commit still have it
 * ("open": any).  NULL on ENOMEM; a failure the index cannot list is a note. */
static json_t *job_failures_json(struct site *s, const struct job_data *d)
{
	const struct job_commit *lc = d->nlabels ? &d->c[d->nlabels - 1] : NULL;
	struct nightly_change *fc = NULL;
	size_t n = 0;
	json_t *a = json_array();
	char err[1024];

	if (!a || !lc)
		return a;
	if (nightly_failures(s->ix, d->job->key, d->labels, d->nlabels, &fc, &n, err,
			     sizeof(err))) {
		sb_note("%s: %s", d->job->key, err);
		return a;
	}
	for (size_t i = 0; i < n; i++) {
		const struct index_commit *ic = find_commit(d, fc[i].commit);
		size_t now = runs_with(s, d->job->key, fc[i].stat, lc->label);
		json_t *o =
		    json_pack("{s:I, s:I, s:I, s:I, s:b, s:o}", "with", (json_int_t)fc[i].change,
			      "runs", (json_int_t)fc[i].runs, "latest_with", (json_int_t)now,
			      "latest_runs", (json_int_t)(lc->ic ? lc->ic->runs : 0), "open",
			      now > 0, "time", iso_time(ic ? ic->first_started : 0));

		if (!o || json_set_text(o, "job", d->job->key) ||
		    json_set_text(o, "path_params", d->job->path_params) ||
		    json_set_text(o, "stat", fc[i].stat) ||
		    json_set_text(o, "commit", fc[i].commit) ||
		    json_set_text(o, "base", fc[i].base) || json_set_text(o, "latest", lc->label) ||
		    json_array_append_new(a, o)) {
			json_decref(a);
			a = NULL;
			break;
		}
		json_object_set_new(o, "page", json_sprintf("%s/index.html", d->dir));
		commit_words(s, fc[i].commit, o);
	}
	nightly_changes_free(fc, n);
	return a;
}

static int job_row(struct site *s, const struct job_data *d, size_t nlatest,
		   const struct cmp_result *latest, bool have_plot, json_t *files, json_t *cmps,
		   json_t **row)
{
	const struct job_commit *lc = d->nlabels ? &d->c[d->nlabels - 1] : NULL;

	*row = json_pack("{s:s, s:s, s:I, s:s?, s:s, s:o, s:I, s:b, s:O}", "fp", "", "slug",
			 d->slug, "commits", (json_int_t)d->nlabels, "latest_page",
			 nlatest != SIZE_MAX && d->c[nlatest].compared ? d->c[nlatest].slug : NULL,
			 "verdict", latest->verdict, "change",
			 isfinite(latest->change) ? json_real(latest->change) : json_null(),
			 "change_points", (json_int_t)d->ncps, "plot", have_plot, "files", files);
	if (*row)
		json_object_set(*row, "comparisons", cmps);
	if (*row && (json_set_text(*row, "path_params", d->job->path_params) ||
		     (d->stat && json_set_text(*row, "stat", d->stat)) ||
		     (lc && json_set_text(*row, "latest", lc->label)) ||
		     (d->ncps &&
		      json_set_text(*row, "last_change_point",
				    d->c[commit_of_point(d, d->cps[d->ncps - 1].index)].label)) ||
		     json_object_set_new(*row, "changes", job_changes_json(s, d)) ||
		     json_object_set_new(*row, "failures", job_failures_json(s, d)) ||
		     json_object_set_new(
			 *row, "latest_runs",
			 json_pack("{s:I, s:I, s:I, s:s}", "runs",
				   (json_int_t)(lc && lc->ic ? lc->ic->runs : 0), "failed",
				   (json_int_t)(lc && lc->ic ? lc->ic->failed : 0), "busy",
				   (json_int_t)(nlatest + 1 == d->nlabels ? latest->busy[1] : 0),
				   "busy_reason", latest->busy_reason)))) {
		json_decref(*row);
		*row = NULL;
	}
	if (*row) {
		char hex[17];

		fp_hex(d->fp, hex);
		json_object_set_new(*row, "fp", json_string(hex));
	}
	if (!*row) {
		snprintf(s->err, s->errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* The job's page, trend plot and comparisons; its row of the index page in *row. */
static int job_pages(struct site *s, struct job_data *d, json_t **row)
{
	char rel[PATH_MAX];
	struct cmp_result latest = {.verdict = "none", .change = NAN};
	struct page p = {0};
	json_t *files = json_array(), *cmps = json_array();
	size_t nlatest = SIZE_MAX, nprev = SIZE_MAX, nnames = 0, nshown = 0;
	size_t missing = s->sum->missing;
	char **names = NULL;
	bool have_plot = false;
	int rc = -1;

	*row = NULL;
	job_follow(s, d);
	if (job_comparisons(s, d, &nlatest, &nprev, &latest) || job_trend(s, d, files, &have_plot))
		goto out;
	if (s->interactive && d->stat && d->series.n &&
	    job_series_files(s, d, files, &names, &nnames, &nshown))
		goto out;
	if (page_open(s, &p))
		goto out;
	job_summary(p.f, s, d, nlatest, nprev, &latest, have_plot, names, nnames, nshown);
	change_points_table(p.f, d, s->o->commit_url);
	commits_table(p.f, d, s->o->commit_url);
	page_foot(p.f);
	snprintf(rel, sizeof(rel), "%s/index.html", d->dir);
	if (page_close(s, &p, rel, d->fp))
		goto out;
	page_missing(s, json_object_get(s->new_files, rel), missing);
	json_array_append_new(files, json_string(rel));
	job_comparison_files(s, d, files, cmps);
	rc = job_row(s, d, nlatest, &latest, have_plot, files, cmps, row);
	if (!rc)
		page_missing(s, *row, missing);
out:
	page_discard(&p);
	json_decref(files);
	json_decref(cmps);
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* A job's row in the manifest's "jobs", by the job's key: the key itself, or, for a key that is
 * not UTF-8 (directory names are any bytes, a JSON key is not), "bytes:" and the key's bytes in
 * hex, which no key can be (a key has five '/').  Without it jansson refused the key and the
 * job's row was silently left out. */
static char *row_key(const char *key)
{
	size_t n = strlen(key);
	char *k;

	if (!utf8_first_bad(key))
		return strdup(key);
	k = malloc(sizeof("bytes:") + 2 * n);
	if (!k)
		return NULL;
	strcpy(k, "bytes:");
	for (size_t i = 0; i < n; i++)
		snprintf(k + 6 + 2 * i, 3, "%02x", (unsigned char)key[i]);
	return k;
}

static json_t *row_get(json_t *jobs, const char *key)
{
	char *k = row_key(key);
	json_t *row = k ? json_object_get(jobs, k) : NULL;

	free(k);
	return row;
}

static int row_set(json_t *jobs, const char *key, json_t *row)
{
	char *k = row_key(key);
	int rc = k ? json_object_set_new(jobs, k, row) : (json_decref(row), -1);

	free(k);
	return rc;
}

/* A job whose inputs have not changed: its files are kept, its row is the manifest's. */
static json_t *job_kept(struct site *s, const struct job_data *d)
{
	json_t *row = row_get(s->old_jobs, d->job->key), *v;
	char hex[17];
	size_t i;

	fp_hex(d->fp, hex);
	if (!row || !json_is_string(json_object_get(row, "fp")) ||
	    strcmp(json_string_value(json_object_get(row, "fp")), hex) ||
	    json_is_true(json_object_get(row, "incomplete")))
		return NULL;
	json_array_foreach (json_object_get(row, "files"), i, v) {
		char path[PATH_MAX];
		struct stat st;
		json_t *e =
		    json_is_string(v) ? json_object_get(s->old_files, json_string_value(v)) : NULL;

		if (!e || site_path(s, json_string_value(v), path, sizeof(path)) ||
		    lstat(path, &st) || !S_ISREG(st.st_mode))
			return NULL;
	}
	/* Its comparisons also show the other jobs of their sweep, whose runs may have changed. */
	json_array_foreach (json_object_get(row, "comparisons"), i, v) {
		const char *page = json_string_value(json_object_get(v, "page"));
		json_t *e = page ? json_object_get(s->old_files, page) : NULL;

		if (!e || !json_is_string(json_object_get(v, "base")) ||
		    !json_is_string(json_object_get(v, "head")))
			return NULL;
		fp_hex(cmp_fp(s, d->job, json_string_value(json_object_get(row, "stat")),
			      json_string_value(json_object_get(v, "base")),
			      json_string_value(json_object_get(v, "head"))),
		       hex);
		if (!json_is_string(json_object_get(e, "fp")) ||
		    strcmp(json_string_value(json_object_get(e, "fp")), hex))
			return NULL;
	}
	json_array_foreach (json_object_get(row, "files"), i, v) {
		json_object_set(s->new_files, json_string_value(v),
				json_object_get(s->old_files, json_string_value(v)));
		s->sum->kept++;
		if (strstr(json_string_value(v), "/c-") && strstr(json_string_value(v), ".html"))
			s->sum->comparisons++;
	}
	return json_incref(row);
}

/* ---- every change: the regressions page and changes.json ---- */

/* The newest first, then by job and commit: the same order every time. */
static int by_time_desc(const void *a, const void *b)
{
	const json_t *ca = *(json_t *const *)a, *cb = *(json_t *const *)b;
	static const char *const keys[] = {"time", "job", "commit"};

	for (int k = 0; k < 3; k++) {
		const char *x = json_string_value(json_object_get(ca, keys[k]));
		const char *y = json_string_value(json_object_get(cb, keys[k]));
		int c = strcmp(x ? x : "", y ? y : "");

		if (c)
			return k ? c : -c;
	}
	return 0;
}

/* Every job's changes (their rows' "changes"), the newest first; only the open ones when
 * open_only.  A new array, NULL on ENOMEM. */
static json_t *all_changes(const struct site *s, bool open_only)
{
	json_t *all = json_array(), *c;
	size_t i;

	for (size_t j = 0; all && j < s->njobs; j++)
		json_array_foreach (
		    json_object_get(row_get(s->new_jobs, s->jobs[j].key), "changes"), i, c)
			if (!open_only || json_is_true(json_object_get(c, "open")))
				json_array_append(all, c);
	if (all && json_array_size(all)) {
		size_t n = json_array_size(all);
		json_t **v = malloc(n * sizeof(*v));

		if (!v) {
			json_decref(all);
			return NULL;
		}
		for (i = 0; i < n; i++)
			v[i] = json_incref(json_array_get(all, i));
		qsort(v, n, sizeof(*v), by_time_desc);
		json_array_clear(all);
		for (i = 0; i < n; i++)
			json_array_append_new(all, v[i]);
		free(v);
	}
	return all;
}

/* A change's commit range in words: "A" or "A .. B (N commits)". */
static void put_range(FILE *f, const json_t *c, const char *url)
{
	const json_t *r = json_object_get(c, "range");
	size_t n = json_array_size(r);

	put_commit(f, url, json_string_value(json_object_get(c, "commit")));
	if (n > 1) {
		fputs("<br><small>one of ", f);
		put_commit(f, url, json_string_value(json_array_get(r, 0)));
		fputs(" .. ", f);
		put_commit(f, url, json_string_value(json_array_get(r, n - 1)));
		fprintf(f, " (%zu commits)</small>", n);
	}
}

/* The table of changes (the index's open ones, the regressions page's all); up: the way to
 * the site's root from the page. */
static void changes_table(FILE *f, const json_t *all, const char *id, const char *up,
			  const char *url)
{
	json_t *c;
	size_t i;

	fprintf(f,
		"<table id=\"%s\">\n<thead><tr><th>change</th><th>verdict</th><th>job</th>"
		"<th>stat</th><th>commit</th><th>subject</th><th>date</th></tr></thead>\n<tbody>\n",
		id);
	json_array_foreach (all, i, c) {
		const char *cmp = json_string_value(json_object_get(c, "comparison"));

		fputs("<tr><td class=\"num\">", f);
		if (cmp)
			fprintf(f, "<a href=\"%s%s\">", up, cmp);
		put_pct(f, json_number_value(json_object_get(c, "change_pct")));
		fputs(cmp ? "</a></td><td>" : "</td><td>", f);
		put_verdict(f, json_string_value(json_object_get(c, "verdict")));
		fprintf(f, "</td><td class=\"name\"><a href=\"%s%s\">", up,
			json_string_value(json_object_get(c, "page")));
		H(json_string_value(json_object_get(c, "path_params")));
		fputs("</a></td><td class=\"name\">", f);
		H(json_string_value(json_object_get(c, "stat")));
		fputs("</td><td class=\"name\">", f);
		put_range(f, c, url);
		fputs("</td><td>", f);
		H(json_string_value(json_object_get(c, "subject")));
		if (json_is_string(json_object_get(c, "author"))) {
			fputs("<br><small>", f);
			H(json_string_value(json_object_get(c, "author")));
			fputs("</small>", f);
		}
		fputs("</td><td>", f);
		H(json_string_value(json_object_get(
		    c, json_is_string(json_object_get(c, "date")) ? "date" : "time")));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
	if (!json_array_size(all))
		fputs("<p>None.</p>\n", f);
}

/* regressions.html (asv's regressions page: every change point of every job, the newest
 * first, with its commit range) and changes.json, the same for bots ("open": the job's last
 * change, its level since). */
static int changes_pages(struct site *s)
{
	json_t *all = all_changes(s, false), *feed;
	struct page p;
	char *text;
	int rc = -1;

	if (!all) {
		snprintf(s->err, s->errlen, "out of memory");
		return -1;
	}
	/* No time of its own: a site with nothing new is left byte for byte as it was. */
	feed = json_pack("{s:i, s:O}", "version", 1, "changes", all);
	if (feed && (json_set_text(feed, "results", s->o->results) ||
		     (s->o->branch && json_set_text(feed, "branch", s->o->branch)))) {
		json_decref(feed);
		feed = NULL;
	}
	text = feed ? json_dumps(feed, JSON_INDENT(1) | JSON_ENSURE_ASCII | JSON_SORT_KEYS) : NULL;
	if (!text) {
		snprintf(s->err, s->errlen, "out of memory");
		goto out;
	}
	if (site_put(s, "changes.json", 0, text, strlen(text)) || page_open(s, &p))
		goto out;
	page_head(p.f, "", "scalebench: changes", NULL, NULL);
	fputs("<h1>Changes</h1>\n<p class=\"sub\">Every change point of every job, the newest "
	      "first; a range is the commits the step may be at.  The same as <a "
	      "href=\"changes.json\">changes.json</a>.</p>\n",
	      p.f);
	changes_table(p.f, all, "changes", "", s->o->commit_url);
	page_foot(p.f);
	rc = page_close(s, &p, "regressions.html", 0);
out:
	free(text);
	json_decref(feed);
	json_decref(all);
	return rc;
}

/* ---- the index page ---- */

/* Failures still at the latest commit first, then the newest first, then by job and stat. */
static int failure_order(const void *a, const void *b)
{
	const json_t *fa = *(json_t *const *)a, *fb = *(json_t *const *)b;
	static const char *const keys[] = {"time", "job", "stat"};
	bool oa = json_is_true(json_object_get(fa, "open")),
	     ob = json_is_true(json_object_get(fb, "open"));

	if (oa != ob)
		return oa ? -1 : 1;
	for (int k = 0; k < 3; k++) {
		const char *x = json_string_value(json_object_get(fa, keys[k]));
		const char *y = json_string_value(json_object_get(fb, keys[k]));
		int c = strcmp(x ? x : "", y ? y : "");

		if (c)
			return k ? c : -c;
	}
	return 0;
}

/* Every job's new failures (their rows' "failures") in failure_order; NULL on ENOMEM. */
static json_t *all_failures(const struct site *s)
{
	json_t *all = json_array(), *c, **v;
	size_t i, n;

	for (size_t j = 0; all && j < s->njobs; j++)
		json_array_foreach (
		    json_object_get(row_get(s->new_jobs, s->jobs[j].key), "failures"), i, c)
			json_array_append(all, c);
	n = all ? json_array_size(all) : 0;
	v = n ? malloc(n * sizeof(*v)) : NULL;
	if (n && !v) {
		json_decref(all);
		return NULL;
	}
	for (i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(all, i));
	if (n) {
		qsort(v, n, sizeof(*v), failure_order);
		json_array_clear(all);
	}
	for (i = 0; i < n; i++)
		json_array_append_new(all, v[i]);
	free(v);
	return all;
}

/* The index's table of new failures, the kernel test robot's fail:runs: the signature, the
 * commit it first appeared at (and how many of its runs have it), the latest commit's. */
static void failures_table(FILE *f, const json_t *all, const char *url)
{
	json_t *c;
	size_t i, open = 0;

	json_array_foreach (all, i, c)
		open += json_is_true(json_object_get(c, "open"));
	fprintf(f,
		"<h2>Failures</h2>\n<p class=\"sub\">Kernel warnings, crashed or stuck copies "
		"and failed runs that appeared at a commit after commits without them: %zu, %zu "
		"of them still at the job's latest commit.</p>\n",
		json_array_size(all), open);
	fputs("<table id=\"open-failures\">\n<thead><tr><th>failure</th><th>job</th>"
	      "<th>first at</th><th>fail:runs</th><th>subject</th><th>date</th>"
	      "<th>latest commit</th></tr></thead>\n<tbody>\n",
	      f);
	json_array_foreach (all, i, c) {
		const char *j = json_is_string(json_object_get(c, "date")) ? "date" : "time";

		fprintf(f, "<tr%s><td class=\"name\">",
			json_is_true(json_object_get(c, "open")) ? " class=\"open\"" : "");
		H(json_string_value(json_object_get(c, "stat")));
		fprintf(f, "</td><td class=\"name\"><a href=\"%s\">",
			json_string_value(json_object_get(c, "page")));
		H(json_string_value(json_object_get(c, "path_params")));
		fputs("</a></td><td class=\"name\">", f);
		put_commit(f, url, json_string_value(json_object_get(c, "commit")));
		fprintf(f, "</td><td class=\"num\">%lld:%lld</td><td>",
			(long long)json_integer_value(json_object_get(c, "with")),
			(long long)json_integer_value(json_object_get(c, "runs")));
		H(json_string_value(json_object_get(c, "subject")));
		fputs("</td><td>", f);
		H(json_string_value(json_object_get(c, j)));
		fputs("</td><td class=\"name\">", f);
		if (json_is_true(json_object_get(c, "open")))
			fprintf(f, "<span class=\"flag f-fail\">still: %lld:%lld</span> ",
				(long long)json_integer_value(json_object_get(c, "latest_with")),
				(long long)json_integer_value(json_object_get(c, "latest_runs")));
		else
			fputs("gone at ", f);
		put_commit(f, url, json_string_value(json_object_get(c, "latest")));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
	if (!json_array_size(all))
		fputs("<p>None.</p>\n", f);
}

/* A job's flags on the index: its failures still at the latest commit, the latest commit's
 * failed runs and its runs on a busy machine. */
static void job_flags(FILE *f, const json_t *row)
{
	const json_t *lr = json_object_get(row, "latest_runs"), *c;
	long long runs = json_integer_value(json_object_get(lr, "runs")),
		  failed = json_integer_value(json_object_get(lr, "failed"));
	size_t i, open = 0;

	json_array_foreach (json_object_get(row, "failures"), i, c)
		open += json_is_true(json_object_get(c, "open"));
	if (open)
		fprintf(f, "<span class=\"flag f-fail\">%zu failure%s</span> ", open,
			open == 1 ? "" : "s");
	if (failed)
		fprintf(f, "<span class=\"flag f-fail\">%lld of %lld runs failed</span> ", failed,
			runs);
	put_busy(f, (size_t)json_integer_value(json_object_get(lr, "busy")), (size_t)runs,
		 json_string_value(json_object_get(lr, "busy_reason")));
}

static int index_page(struct site *s)
{
	struct page p;
	const char *key;
	json_t *row;

	if (page_open(s, &p))
		return -1;
	FILE *f = p.f;

	page_head(f, "", "scalebench: jobs", NULL, NULL);
	fputs("<h1>scalebench</h1>\n<p class=\"sub\">", f);
	H(s->o->results);
	if (s->o->branch) {
		fputs(", branch ", f);
		H(s->o->branch);
	}
	fputs("</p>\n", f);
	json_t *open = all_changes(s, true), *fails = all_failures(s);

	if (fails)
		failures_table(f, fails, s->o->commit_url);
	json_decref(fails);
	if (!open || !fails) {
		json_decref(open);
		page_discard(&p);
		snprintf(s->err, s->errlen, "out of memory");
		return -1;
	}
	fprintf(f,
		"<h2>Open changes</h2>\n<p class=\"sub\">Each job's last change point: %zu "
		"(<a href=\"regressions.html\">every change</a>, <a "
		"href=\"changes.json\">changes.json</a>).</p>\n",
		json_array_size(open));
	changes_table(f, open, "open-changes", "", s->o->commit_url);
	json_decref(open);
	fputs("<h2>Jobs</h2>\n<table "
	      "id=\"jobs\">\n<thead><tr><th>job</th><th>stat</th><th>commits</th>"
	      "<th>latest</th><th>against the previous</th><th>change points</th>"
	      "<th>flags</th><th>trend</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t j = 0; j < s->njobs; j++) {
		const char *slug, *v;

		key = s->jobs[j].key;
		row = row_get(s->new_jobs, key);
		if (!row)
			continue;
		slug = json_string_value(json_object_get(row, "slug"));
		fprintf(f, "<tr><td class=\"name\"><a href=\"jobs/%s/index.html\">", slug);
		H(json_string_value(json_object_get(row, "path_params")));
		fputs("</a><br><small>", f);
		H(key);
		fputs("</small></td><td class=\"name\">", f);
		H(json_string_value(json_object_get(row, "stat")));
		fprintf(f, "</td><td class=\"num\">%lld</td><td class=\"name\">",
			(long long)json_integer_value(json_object_get(row, "commits")));
		put_commit(f, s->o->commit_url, json_string_value(json_object_get(row, "latest")));
		fputs("</td><td>", f);
		v = json_string_value(json_object_get(row, "verdict"));
		if (json_is_string(json_object_get(row, "latest_page")))
			fprintf(f, "<a href=\"jobs/%s/c-%s.html\">", slug,
				json_string_value(json_object_get(row, "latest_page")));
		put_pct(f, json_is_number(json_object_get(row, "change"))
			       ? json_number_value(json_object_get(row, "change"))
			       : NAN);
		fputs(" ", f);
		put_verdict(f, v ? v : "none");
		if (json_is_string(json_object_get(row, "latest_page")))
			fputs("</a>", f);
		fprintf(f, "</td><td class=\"num\">%lld",
			(long long)json_integer_value(json_object_get(row, "change_points")));
		if (json_is_string(json_object_get(row, "last_change_point"))) {
			fputs(", last at ", f);
			put_commit(f, s->o->commit_url,
				   json_string_value(json_object_get(row, "last_change_point")));
		}
		fputs("</td><td class=\"flags\">", f);
		job_flags(f, row);
		fputs("</td><td>", f);
		if (json_is_true(json_object_get(row, "plot")))
			fprintf(f,
				"<a href=\"jobs/%s/index.html\"><img class=\"spark\" "
				"src=\"jobs/%s/spark.svg\" alt=\"trend\"></a>",
				slug, slug);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
	page_foot(f);
	return page_close(s, &p, "index.html", 0);
}

/* ---- the whole site ---- */

static bool job_selected(const struct index_job *j, const char *want)
{
	return !want || !strcmp(j->key, want) || !strcmp(j->path_params, want);
}

static int cmp_label(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* How many different labels v holds (sorted in place): commits shared by several jobs count
 * once in the summary. */
static size_t distinct(struct strvec *v)
{
	size_t n = 0;

	if (v->n)
		qsort(v->v, v->n, sizeof(*v->v), cmp_label);
	for (size_t i = 0; i < v->n; i++)
		n += !i || strcmp(v->v[i - 1], v->v[i]);
	return n;
}

/* uPlot's browser build and style sheet, from o->assets, and the site's trend.js: at the
 * site's root, once.  Files that cannot be read are a note (the pages keep their SVG plots);
 * -1 only when the site cannot be written. */
static int site_assets(struct site *s)
{
	static const char *const names[] = {"uPlot.iife.min.js", "uPlot.min.css"};
	char *text[2] = {NULL, NULL}, path[PATH_MAX], err[1024];
	size_t len[2] = {0, 0};
	int rc = 0;

	for (int i = 0; i < 2 && s->interactive == false; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", s->o->assets, names[i]) >=
			(int)sizeof(path) ||
		    file_read(path, 16u << 20, &text[i], &len[i], err, sizeof(err))) {
			sb_note("%s; the job pages keep their SVG trend plots, with no "
				"interactive plot",
				err);
			break;
		}
		s->interactive = i == 1;
	}
	for (int i = 0; s->interactive && i < 2 && !rc; i++)
		rc = site_put(s, names[i], fnv(FNV_START, text[i], len[i]), text[i], len[i]);
	if (s->interactive && !rc)
		rc = site_put(s, "trend.js", fnv(FNV_START, trend_js, sizeof(trend_js) - 1),
			      trend_js, sizeof(trend_js) - 1);
	free(text[0]);
	free(text[1]);
	return rc;
}

int site_generate(const struct site_opts *o, struct site_summary *sum, char *err, size_t errlen)
{
	struct strvec labels = STRVEC_INIT; /* every job's commit labels, for sum->commits */
	struct site s = {.o = o, .sum = sum, .err = err, .errlen = errlen};
	struct timespec t0, t1;
	ssize_t nj;
	size_t selected = 0;
	int rc = -1, stale = 0;

	*sum = (struct site_summary){0};
	*err = '\0';
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (o->commit_url && site_commit_url_check(o->commit_url, err, errlen))
		return -1;
	if (mkdir(o->out, 0777) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", o->out, strerror(errno));
		return -1;
	}
	s.new_files = json_object();
	s.new_jobs = json_object();
	s.meta_cache = json_object();
	if (!s.new_files || !s.new_jobs || !s.meta_cache) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (manifest_load(&s))
		goto out;
	if (o->assets && site_assets(&s))
		goto out_save;
	if (index_open(o->results, INDEX_QUICK, &s.ix, NULL, err, errlen))
		goto out;
	nj = index_jobs(s.ix, NULL, &s.jobs);
	if (nj < 0) {
		snprintf(err, errlen, "%s: cannot list the jobs of the index", o->results);
		goto out;
	}
	s.njobs = (size_t)nj;
	for (size_t j = 0; j < s.njobs; j++)
		selected += job_selected(&s.jobs[j], o->job);
	if (!selected) {
		snprintf(err, errlen, "%s: no job%s%s", o->results, o->job ? " " : " in the tree",
			 o->job ? o->job : "");
		goto out;
	}
	for (size_t j = 0; j < s.njobs; j++) {
		struct job_data d;
		json_t *row = NULL;

		if (!job_selected(&s.jobs[j], o->job))
			continue;
		if (stopped(&s)) {
			snprintf(err, errlen, "interrupted");
			goto out_save;
		}
		if (job_load(&s, &s.jobs[j], &d)) {
			job_data_free(&d);
			goto out_save;
		}
		sum->jobs++;
		for (size_t i = 0; i < d.nlabels; i++)
			if (strvec_push(&labels, d.labels[i])) {
				snprintf(err, errlen, "out of memory");
				job_data_free(&d);
				goto out_save;
			}
		row = job_kept(&s, &d);
		if (!row && job_pages(&s, &d, &row)) {
			job_data_free(&d);
			goto out_save;
		}
		if (row_set(s.new_jobs, s.jobs[j].key, row)) {
			snprintf(err, errlen, "out of memory");
			job_data_free(&d);
			goto out_save;
		}
		job_data_free(&d);
	}
	if (changes_pages(&s) || index_page(&s) ||
	    site_put(&s, "style.css", fnv(FNV_START, style_css, sizeof(style_css) - 1), style_css,
		     sizeof(style_css) - 1))
		goto out_save;
	stale = remove_stale(&s);
	rc = 0;
out_save:
	sum->commits = distinct(&labels);
	/* What was written is on the site either way: the manifest says so, so an interrupted
	 * generation is not repeated.  Files of the old manifest not yet reached stay in it. */
	if (rc) {
		const char *rel;
		json_t *v;

		json_object_foreach (s.old_files, rel, v)
			if (!json_object_get(s.new_files, rel))
				json_object_set(s.new_files, rel, v);
		json_object_foreach (s.old_jobs, rel, v)
			if (!json_object_get(s.new_jobs, rel))
				json_object_set(s.new_jobs, rel, v);
	}
	if (manifest_save(&s) && !rc)
		rc = -1;
	else if (!rc && stale)
		rc = -1; /* err says so */
out:
	if (s.ix)
		index_close(s.ix);
	index_jobs_free(s.jobs, s.njobs);
	json_decref(s.old_files);
	json_decref(s.old_jobs);
	json_decref(s.new_files);
	json_decref(s.new_jobs);
	json_decref(s.meta_cache);
	strvec_clear(&labels);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sum->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return rc;
}
