/* The results index database opened through its own open and validate path (index_open, as
 * results, trend, nightly and html open it), then every query the readers make (jobs, commits,
 * stat names, every stat's values), on a small valid index with random page edits: whatever
 * the file holds, a reader never fails for it (the index is only a cache of the tree) and no
 * query crashes, leaks or reads out of bounds.
 *
 * Once per process the harness writes a small results tree (2 jobs, 3 commits, 2 runs each)
 * and builds its index; each input is a list of edits applied to a copy of that file, which
 * then replaces the index (so the tree is unchanged and the index current: only what the
 * open path checks stands between an edit and the queries; for inputs of even length the
 * index's sum is forged to match the edited file, or the open path would rebuild it).  An
 * edit is 3 bytes, offset (16 bits, little-endian, modulo the file's size) and a length N,
 * then N bytes written there (cut at the file's end); the input's last, short edit is dropped.
 *
 * Corpus: tests/fuzz/corpus/index (no edit; bytes of the header, of the schema's page and of
 * the tables' pages changed). */
#include "fuzz.h"
#include "../../store/index.h"

#include <sys/stat.h>

static char root[PATH_MAX], db[PATH_MAX];
static unsigned char *good;
static size_t good_len;

static void put(const char *rel, const char *text)
{
	if (fuzz_write(root, rel, text, strlen(text)))
		fuzz_die(rel);
}

static void mkdirs(const char *rel)
{
	char path[PATH_MAX];

	for (const char *c = rel;; c++)
		if (*c == '/' || !*c) {
			snprintf(path, sizeof(path), "%s/%.*s", root, (int)(c - rel), rel);
			mkdir(path, 0755);
			if (!*c)
				return;
		}
}

/* The tree and its index, once. */
static void setup(void)
{
	struct results_index *ix;
	char err[PATH_MAX + 512], dir[512], rel[600], text[512];
	static const char *const jobs[] = {"process-1-page_fault3", "thread-2-page_fault3"};
	FILE *f;

	snprintf(root, sizeof(root), "%s/results", fuzz_scratch());
	snprintf(db, sizeof(db), "%s/%s", root, INDEX_FILE);
	mkdir(root, 0755);
	for (int j = 0; j < 2; j++)
		for (int c = 0; c < 3; c++)
			for (int r = 0; r < 2; r++) {
				snprintf(
				    dir, sizeof(dir),
				    "will-it-scale/%s/box/debian-12-x86_64/defconfig/gcc-12/c%d/%d",
				    jobs[j], c, r);
				mkdirs(dir);
				snprintf(rel, sizeof(rel), "%s/stats.json", dir);
				snprintf(
				    text, sizeof(text),
				    "{\"will-it-scale.per_process_ops\": %d, \"dmesg.warn\": %d,"
				    " \"proc-vmstat.pgfault\": %d.5}",
				    1000 + 10 * c + r, c == 2, 7 * r);
				put(rel, text);
				snprintf(rel, sizeof(rel), "%s/meta.json", dir);
				snprintf(text, sizeof(text),
					 "{\"status\": \"%s\", \"started\": "
					 "\"2026-01-0%dT00:0%d:00+0000\","
					 " \"machine\": {\"cpu_model\": \"Test CPU\"}}",
					 r && c == 1 ? "failed" : "ok", c + 1, r);
				put(rel, text);
			}
	if (index_open(root, INDEX_UPDATE, &ix, NULL, err, sizeof(err)))
		fuzz_die(err);
	index_close(ix);
	f = fopen(db, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (long)(good_len = (size_t)ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) || !(good = malloc(good_len)) ||
	    fread(good, 1, good_len, f) != good_len)
		fuzz_die("reading the index back");
	fclose(f);
}

/* Whatever the index or a rebuild left beside the database (a journal, files set aside). */
static void clean_index_files(void)
{
	char path[PATH_MAX + 300];
	struct dirent *e;
	DIR *d = opendir(root);

	if (!d)
		fuzz_die(root);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, INDEX_FILE, strlen(INDEX_FILE)) &&
		    strcmp(e->d_name + strlen(INDEX_FILE), ".lock")) {
			snprintf(path, sizeof(path), "%s/%s", root, e->d_name);
			fuzz_rm_tree(path);
		}
	closedir(d);
}

static void query(struct results_index *ix)
{
	struct index_job *jobs;
	ssize_t nj = index_jobs(ix, NULL, &jobs);

	for (ssize_t j = 0; j < nj; j++) {
		struct index_commit *c;
		char **names;
		ssize_t nc = index_commits(ix, jobs[j].key, NULL, &c);
		ssize_t ns = index_stat_names(ix, jobs[j].key, &names);

		if (nc > 0)
			index_commits_free(c, (size_t)nc);
		for (ssize_t s = 0; s < ns; s++) {
			struct index_value *v;
			ssize_t nv = index_stat_values(ix, jobs[j].key, names[s], &v);

			if (nv > 0)
				index_values_free(v, (size_t)nv);
			free(names[s]);
		}
		if (ns > 0)
			free(names);
	}
	if (nj > 0)
		index_jobs_free(jobs, (size_t)nj);
	else if (nj == 0)
		free(jobs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct results_index *ix;
	char err[PATH_MAX + 1024];
	unsigned char *copy;
	size_t at = 0;

	if (!good)
		setup();
	if (!(copy = malloc(good_len)))
		fuzz_die("malloc");
	memcpy(copy, good, good_len);
	while (at + 3 <= size) {
		size_t off = (data[at] | (size_t)data[at + 1] << 8) % good_len, n = data[at + 2];

		at += 3;
		if (n > size - at)
			break;
		memcpy(copy + off, data + at, n < good_len - off ? n : good_len - off);
		at += n;
	}
	clean_index_files();
	if (fuzz_write(root, INDEX_FILE, copy, good_len))
		fuzz_die(db);
	free(copy);
	/* An edited index is no longer what its sum says (the writer's record), and is rebuilt
	 * before anything reads it; for an input of even length the sum is forged, so that the
	 * edits reach the schema checks and the queries as they would through someone who can
	 * write the root. */
	if (size % 2 == 0 && index_sum_forge(root, err, sizeof(err)))
		fuzz_die(err);
	/* The tree reads fine: whatever is at the index, the reader gets an answer. */
	if (index_open(root, INDEX_UPDATE, &ix, NULL, err, sizeof(err))) {
		fprintf(stderr, "index_open failed on an edited index: %s\n", err);
		abort();
	}
	query(ix);
	index_close(ix);
	return 0;
}
