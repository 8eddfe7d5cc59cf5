/* scalebench profile: the perf-profile chains of one or several runs added up, and shown as a
 * perf-report-like tree. */
#include "profile_report.h"
#include "../lib/file.h"
#include "../store/layout.h"
#include "../store/profile_reduce.h"
#include "../store/run_read.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* --- loading runs --- */

/* Far above any real run's profile file (some MB compressed). */
#define PROFILE_FILE_MAX (1u << 30)
/* Far above any real run's profile inflated (tens of MB); a gzip bomb (1000:1 for zeros)
 * stops here instead of at the end of memory. */
#define PROFILE_INFLATED_MAX (256u << 20)

/* Inflate every gzip member of raw into out (out_cap bytes), or when out is NULL only count
 * the bytes, stopping past max.  Z_STREAM_END with *n the inflated size, Z_BUF_ERROR past max
 * or out_cap, Z_DATA_ERROR / Z_MEM_ERROR. */
static int inflate_all(const char *raw, size_t rawlen, char *out, size_t out_cap, size_t max,
		       size_t *n)
{
	unsigned char scratch[65536];
	z_stream z = {0};
	int rc = Z_OK;

	*n = 0;
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return Z_MEM_ERROR;
	z.next_in = (unsigned char *)raw;
	z.avail_in = (unsigned)(rawlen < UINT_MAX ? rawlen : UINT_MAX);
	while (rc == Z_OK || (rc == Z_STREAM_END && z.avail_in)) {
		unsigned char *dst = out ? (unsigned char *)out + *n : scratch;
		size_t room = out ? out_cap - *n : sizeof(scratch);

		if (rc == Z_STREAM_END)
			rc = inflateReset(&z); /* the next member */
		if (*n > max || !room) {
			rc = Z_BUF_ERROR;
			break;
		}
		z.next_out = dst;
		z.avail_out = (unsigned)(room < UINT_MAX ? room : UINT_MAX);
		rc = inflate(&z, Z_NO_FLUSH);
		*n += (size_t)(z.next_out - dst);
		if (rc == Z_BUF_ERROR) {
			/* No progress with room to write: the input ends inside a member. */
			rc = Z_DATA_ERROR;
			break;
		}
	}
	inflateEnd(&z);
	if (rc == Z_NEED_DICT || rc == Z_STREAM_ERROR)
		rc = Z_DATA_ERROR;
	return *n > max ? Z_BUF_ERROR : rc;
}

/* The whole of a file, gunzipped if it is gzip (every member of it), as it is if not.  NULL with
 * err naming the file.  The inflated size is counted first, without keeping the bytes, so that
 * a file inflating past PROFILE_INFLATED_MAX is refused without the memory it asks for. */
static char *slurp_gz(const char *path, size_t *len, char *err, size_t errlen)
{
	char *raw, *out = NULL;
	size_t rawlen, n, got;
	int rc;

	if (file_read(path, PROFILE_FILE_MAX, &raw, &rawlen, err, errlen))
		return NULL;
	if (rawlen < 2 || (unsigned char)raw[0] != 0x1f || (unsigned char)raw[1] != 0x8b) {
		*len = rawlen;
		return raw;
	}
	rc = inflate_all(raw, rawlen, NULL, 0, PROFILE_INFLATED_MAX, &n);
	if (rc == Z_STREAM_END) {
		out = malloc(n + 1);
		rc = !out ? Z_MEM_ERROR : inflate_all(raw, rawlen, out, n, n, &got);
		if (rc == Z_STREAM_END && got != n)
			rc = Z_DATA_ERROR;
	}
	free(raw);
	if (rc != Z_STREAM_END) {
		if (rc == Z_BUF_ERROR)
			snprintf(err, errlen,
				 "%s: cannot read: inflates to more than %u MiB, far more than a "
				 "profile holds (a gzip bomb?)",
				 path, PROFILE_INFLATED_MAX >> 20);
		else
			snprintf(err, errlen, "%s: cannot read: %s", path,
				 rc == Z_MEM_ERROR ? "out of memory" : "not gzip or JSON");
		free(out);
		return NULL;
	}
	out[n] = '\0';
	*len = n;
	return out;
}

/* The profile file of a run directory (perf-profile.samples.json.gz, or the
 * perf-profile.json[.gz] of runs stored before), or -1. */
static int profile_file(const char *dir, char *path, size_t len)
{
	return store_raw_path(dir, "perf-profile", path, len);
}

/* One run's chains into t. */
static int load_run(const char *path, struct profile_runs *t, char *err, size_t errlen)
{
	char why[512];
	struct profile_record rec;
	uint64_t before = t->p.samples, in_chains;
	int found;
	json_error_t jerr;
	json_t *root;
	size_t len;
	char *text;

	text = slurp_gz(path, &len, err, errlen);
	if (!text)
		return -1;
	root = json_loadb(text, len, 0, &jerr);
	free(text);
	if (!root) {
		snprintf(err, errlen, "%s:%d: %s", path, jerr.line, jerr.text);
		return -1;
	}
	found = profile_record_find(root, &rec);
	if (found == -2) {
		snprintf(err, errlen,
			 "%s: corrupt: \"lost\" and \"samples\" must be whole numbers of at least 0",
			 path);
		json_decref(root);
		return -1;
	}
	if (found) {
		snprintf(err, errlen,
			 "%s: expected a list holding an object with \"chains\" (the monitor did "
			 "not finish?)",
			 path);
		json_decref(root);
		return -1;
	}
	if (t->event[0] && strcmp(t->event, rec.event)) {
		snprintf(err, errlen, "%s: sampled %s, the runs before it %s: one event at a time",
			 path, rec.event, t->event);
		json_decref(rec.run_pids);
		json_decref(root);
		return -1;
	}
	if (profile_add_json_pids(rec.chains, t->all_tasks ? NULL : rec.run_pids, &t->p, why,
				  sizeof(why))) {
		snprintf(err, errlen, "%s: %s", path, why);
		json_decref(rec.run_pids);
		json_decref(root);
		return -1;
	}
	if (!rec.run_pids)
		t->unattributed++;
	json_decref(rec.run_pids);
	in_chains = t->p.samples - before;
	if (rec.samples >= 0 && in_chains > (uint64_t)rec.samples) {
		snprintf(err, errlen,
			 "%s: corrupt: its chains hold %" PRIu64 " samples, more than the %lld it "
			 "took",
			 path, in_chains, (long long)rec.samples);
		json_decref(root);
		return -1;
	}
	if (__builtin_add_overflow(t->lost, rec.lost, &t->lost)) {
		snprintf(err, errlen, "%s: corrupt: the lost counts add up to more than %lld", path,
			 (long long)INT64_MAX);
		json_decref(root);
		return -1;
	}
	snprintf(t->event, sizeof(t->event), "%s", rec.event);
	t->runs++;
	json_decref(root);
	return 0;
}

int profile_runs_init(struct profile_runs *t)
{
	memset(t, 0, sizeof(*t));
	return profile_init(&t->p);
}

void profile_runs_free(struct profile_runs *t)
{
	profile_free(&t->p);
}

int profile_runs_add(struct profile_runs *t, const char *dir, char *err, size_t errlen)
{
	char path[4096], **runs = NULL;
	struct stat st;
	unsigned before = t->runs;
	ssize_t n;
	int bad = 0;

	errno = 0;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", dir, errno ? strerror(errno) : "not a directory");
		return -1;
	}
	if (profile_file(dir, path, sizeof(path)) == 0)
		return load_run(path, t, err, errlen);
	n = store_list_runs(dir, &runs);
	for (ssize_t i = 0; i < n; i++) {
		if (!bad && profile_file(runs[i], path, sizeof(path)) == 0)
			bad = load_run(path, t, err, errlen);
		free(runs[i]);
	}
	free(runs);
	if (bad)
		return -1;
	if (t->runs == before) {
		snprintf(
		    err, errlen,
		    "%s: no perf-profile.samples.json.gz, here or in its numbered runs: the runs had no "
		    "perf-profile monitor (name 'perf-profile:' in the job's monitors)",
		    dir);
		return -1;
	}
	return 0;
}

/* --- report --- */

/* Where a symbol sits in one chain: chain index and frame position. */
struct site {
	size_t chain, pos;
};

struct branch {
	const char *name; /* the next caller, NULL at the chain's root */
	uint64_t count;
	size_t first, nr; /* its sites, a run of the sorted array */
};

static const char *caller_of(const struct profile *p, const struct site *s)
{
	const struct profile_chain *c = &p->chain[s->chain];

	return s->pos + 1 < c->depth ? c->frames[s->pos + 1] : NULL;
}

static int site_cmp(const void *a, const void *b, void *p)
{
	const char *x = caller_of(p, a), *y = caller_of(p, b);

	if (!x || !y)
		return !x - !y;
	return strcmp(x, y);
}

static int branch_cmp(const void *a, const void *b)
{
	const struct branch *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

#define REPORT_MAX_DEPTH 12

static void print_callers(const struct profile *p, FILE *out, struct site *sites, size_t n,
			  double min_pct, int level)
{
	struct branch *b;
	size_t nb = 0;

	if (level >= REPORT_MAX_DEPTH || !n)
		return;
	qsort_r(sites, n, sizeof(*sites), site_cmp, (void *)p);
	b = calloc(n, sizeof(*b));
	if (!b)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *name = caller_of(p, &sites[i]);

		if (!nb || (name == NULL) != (b[nb - 1].name == NULL) ||
		    (name && strcmp(name, b[nb - 1].name)))
			b[nb++] = (struct branch){.name = name, .first = i};
		b[nb - 1].count += p->chain[sites[i].chain].count;
		b[nb - 1].nr++;
	}
	qsort(b, nb, sizeof(*b), branch_cmp);
	for (size_t k = 0; k < nb; k++) {
		double pct = 100.0 * (double)b[k].count / (double)p->samples;

		if (!b[k].name || pct < min_pct)
			continue;
		fprintf(out, "%*s|--%.2f%%--%s\n", 17 + 4 * level, "", pct, b[k].name);
		for (size_t i = b[k].first; i < b[k].first + b[k].nr; i++)
			sites[i].pos++;
		print_callers(p, out, sites + b[k].first, b[k].nr, min_pct, level + 1);
	}
	free(b);
}

struct entry {
	const char *name;
	uint64_t children, self;
};

static int entry_children_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->children != y->children)
		return x->children < y->children ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int entry_self_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return entry_children_cmp(a, b);
}

/* The sums below need no overflow check: a chain counts at most once toward an entry, a
 * branch or a self count, so each is at most p->samples, which profile_add keeps in range. */
void profile_print_report(const struct profile *p, FILE *out, bool by_self, double min_pct)
{
	json_t *idx = json_object(), *seen = json_object();
	struct entry *e = NULL;
	struct site *sites = NULL;
	size_t ne = 0, cap = 0;

	if (!idx || !seen || !p->samples)
		goto out;
	for (size_t i = 0; i < p->n; i++) {
		const struct profile_chain *c = &p->chain[i];

		json_object_clear(seen);
		for (size_t f = 0; f < c->depth; f++) {
			json_t *v = json_object_get(idx, c->frames[f]);
			size_t k;

			if (!v) {
				if (ne == cap) {
					size_t nc = cap ? 2 * cap : 256;
					struct entry *g = realloc(e, nc * sizeof(*g));

					if (!g)
						goto out;
					e = g;
					cap = nc;
				}
				e[ne] = (struct entry){.name = c->frames[f]};
				json_object_set_new(idx, c->frames[f],
						    json_integer((json_int_t)ne));
				k = ne++;
			} else {
				k = (size_t)json_integer_value(v);
			}
			if (!f)
				e[k].self += c->count;
			if (!json_object_get(seen, c->frames[f])) {
				json_object_set_new(seen, c->frames[f], json_true());
				e[k].children += c->count;
			}
		}
	}
	if (ne)
		qsort(e, ne, sizeof(*e), by_self ? entry_self_cmp : entry_children_cmp);
	sites = malloc((p->n ? p->n : 1) * sizeof(*sites));
	if (!sites)
		goto out;
	fprintf(out, "# %" PRIu64 " samples\n# %8s %8s  Symbol\n", p->samples, "Children", "Self");
	for (size_t k = 0; k < ne; k++) {
		double children = 100.0 * (double)e[k].children / (double)p->samples;
		double self = 100.0 * (double)e[k].self / (double)p->samples;
		size_t ns = 0;

		if ((by_self ? self : children) < min_pct)
			continue;
		fprintf(out, "  %7.2f%% %7.2f%%  %s\n", children, self, e[k].name);
		/* Callee first: from the symbol (its first place in each chain) to its callers. */
		for (size_t i = 0; i < p->n; i++) {
			const struct profile_chain *c = &p->chain[i];

			for (size_t f = 0; f < c->depth && (!by_self || f == 0); f++)
				if (!strcmp(c->frames[f], e[k].name)) {
					sites[ns++] = (struct site){.chain = i, .pos = f};
					break;
				}
		}
		print_callers(p, out, sites, ns, min_pct, 0);
		fputc('\n', out);
	}
out:
	free(e);
	free(sites);
	json_decref(idx);
	json_decref(seen);
}

/* --- diff --- */

/* One side of a diff: each run's stats (perf-profile.* -> percentage), and their event. */
struct diff_side {
	json_t **stats;
	size_t n;
	char event[64];
};

static void diff_side_free(struct diff_side *d)
{
	for (size_t i = 0; i < d->n; i++)
		json_decref(d->stats[i]);
	free(d->stats);
}

static int diff_add_run(struct diff_side *d, const char *run, bool all_tasks, char *err,
			size_t errlen)
{
	struct profile_runs t;
	json_t **g, *stats = NULL;
	int rc = -1;

	if (profile_runs_init(&t)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t.all_tasks = all_tasks;
	if (profile_runs_add(&t, run, err, errlen))
		goto out;
	if (d->event[0] && strcmp(d->event, t.event)) {
		snprintf(err, errlen, "%s: sampled %s, the runs before it %s: one event at a time",
			 run, t.event, d->event);
		goto out;
	}
	snprintf(d->event, sizeof(d->event), "%s", t.event);
	g = realloc(d->stats, (d->n + 1) * sizeof(*g));
	stats = json_object();
	if (!g || !stats || profile_reduce(&t.p, t.event, 0, stats)) {
		if (g)
			d->stats = g;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	d->stats = g;
	d->stats[d->n++] = stats;
	stats = NULL;
	rc = 0;
out:
	json_decref(stats);
	profile_runs_free(&t);
	return rc;
}

/* Every run of dir (a run, or a commit's numbered runs), each reduced on its own: the spread
 * between runs is what tells a change from noise. */
static int diff_side_load(struct diff_side *d, const char *dir, bool all_tasks, char *err,
			  size_t errlen)
{
	char path[4096], **runs = NULL;
	struct stat st;
	ssize_t n;
	int bad = 0;

	memset(d, 0, sizeof(*d));
	errno = 0;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", dir, errno ? strerror(errno) : "not a directory");
		return -1;
	}
	if (profile_file(dir, path, sizeof(path)) == 0)
		return diff_add_run(d, dir, all_tasks, err, errlen);
	n = store_list_runs(dir, &runs);
	for (ssize_t i = 0; i < n; i++) {
		if (!bad && profile_file(runs[i], path, sizeof(path)) == 0)
			bad = diff_add_run(d, runs[i], all_tasks, err, errlen);
		free(runs[i]);
	}
	free(runs);
	if (!bad && !d->n) {
		snprintf(err, errlen,
			 "%s: no perf-profile.samples.json.gz, here or in its numbered runs: the runs had "
			 "no perf-profile monitor (name 'perf-profile:' in the job's monitors)",
			 dir);
		bad = -1;
	}
	if (bad)
		diff_side_free(d);
	return bad ? -1 : 0;
}

struct diff_row {
	const char *name;
	double mean[2], sd_pct[2];
	size_t n[2];
};

/* A stat absent from a run was under the reduction's floor there: 0, as the robot counts it. */
static void side_summary(const struct diff_side *d, const char *name, double *mean, double *sd_pct)
{
	double sum = 0, sq = 0;

	for (size_t i = 0; i < d->n; i++)
		sum += json_real_value(json_object_get(d->stats[i], name));
	*mean = sum / (double)d->n;
	for (size_t i = 0; i < d->n; i++) {
		double x = json_real_value(json_object_get(d->stats[i], name)) - *mean;

		sq += x * x;
	}
	*sd_pct = d->n > 1 && *mean > 0 ? 100 * sqrt(sq / (double)(d->n - 1)) / *mean : 0;
}

static int diff_row_cmp(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	double dx = fabs(x->mean[1] - x->mean[0]), dy = fabs(y->mean[1] - y->mean[0]);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The robot's cell: a value with two decimals, and " ±N%" when the runs spread over 2%. */
static void put_cell(FILE *out, double mean, double sd_pct, size_t n)
{
	fprintf(out, "%10.2f", mean);
	if (n > 1 && sd_pct > 2)
		fprintf(out, " \u00b1%3.0f%%", sd_pct);
	else
		fprintf(out, "      ");
}

int profile_print_diff(const char *base, const char *head, bool all_tasks, double min_pct,
		       FILE *out, char *err, size_t errlen)
{
	struct diff_side d[2];
	struct diff_row *rows = NULL;
	json_t *names = json_object(), *v;
	const char *name;
	size_t nr = 0;
	int rc = -1;

	if (!names) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (diff_side_load(&d[0], base, all_tasks, err, errlen)) {
		json_decref(names);
		return -1;
	}
	if (diff_side_load(&d[1], head, all_tasks, err, errlen)) {
		diff_side_free(&d[0]);
		json_decref(names);
		return -1;
	}
	if (strcmp(d[0].event, d[1].event)) {
		snprintf(err, errlen, "%s sampled %s, %s sampled %s: one event at a time", base,
			 d[0].event, head, d[1].event);
		goto out;
	}
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < d[s].n; i++)
			json_object_foreach (d[s].stats[i], name, v)
				json_object_set(names, name, json_true());
	rows = calloc(json_object_size(names) + 1, sizeof(*rows));
	if (!rows) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	json_object_foreach (names, name, v) {
		struct diff_row r = {.name = name, .n = {d[0].n, d[1].n}};

		for (int s = 0; s < 2; s++)
			side_summary(&d[s], name, &r.mean[s], &r.sd_pct[s]);
		if (r.mean[0] >= min_pct || r.mean[1] >= min_pct)
			rows[nr++] = r;
	}
	qsort(rows, nr, sizeof(*rows), diff_row_cmp);
	fprintf(out, "# event %s, %zu run%s of %s, %zu run%s of %s, %s\n", d[0].event, d[0].n,
		d[0].n == 1 ? "" : "s", base, d[1].n, d[1].n == 1 ? "" : "s", head,
		all_tasks ? "all tasks" : "the run's own processes");
	fprintf(out, "%10s%-6s%11s%11s\n", "base", "", "change", "head");
	for (size_t i = 0; i < nr; i++) {
		put_cell(out, rows[i].mean[0], rows[i].sd_pct[0], rows[i].n[0]);
		fprintf(out, "%+11.1f", rows[i].mean[1] - rows[i].mean[0]);
		fputc(' ', out);
		put_cell(out, rows[i].mean[1], rows[i].sd_pct[1], rows[i].n[1]);
		fprintf(out, "  %s\n", rows[i].name);
	}
	rc = 0;
out:
	free(rows);
	json_decref(names);
	diff_side_free(&d[0]);
	diff_side_free(&d[1]);
	return rc;
}
