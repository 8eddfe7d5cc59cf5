/* slabinfo: /proc/slabinfo (readable by root only) as slabinfo.<cache>.active_objs,
 * .num_objs, .active_slabs and .num_slabs, means of the readings (lkp-tests'
 * programs/slabinfo/parse takes the same four columns; LKP reduces them to means).  The
 * columns are found by their names in the "# name <active_objs> ..." header; a row with
 * another number of fields than the header is skipped, as LKP skips it. */
#include "procfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const slab_columns[] = {"active_objs", "num_objs", "active_slabs",
					   "num_slabs"};

#define NR_SLAB_COLUMNS (sizeof(slab_columns) / sizeof(*slab_columns))

/* slabinfo 2.1's layout, for a file without the header line. */
static const unsigned slab_default_index[NR_SLAB_COLUMNS] = {1, 2, 13, 14};
#define SLAB_DEFAULT_FIELDS 16

/* The field numbers (the cache name is field 0) of the wanted columns, from the header. */
static void slab_header(char *line, unsigned index[NR_SLAB_COLUMNS], unsigned *nr_fields)
{
	char *save = NULL;
	unsigned n = 0;

	/* "# name <active_objs> ...": '#' is not a field of the rows, "name" is field 0 */
	for (char *t = strtok_r(line + 1, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		size_t len = strlen(t);

		for (size_t c = 0; c < NR_SLAB_COLUMNS; c++)
			if (len > 2 && t[0] == '<' && t[len - 1] == '>' &&
			    len - 2 == strlen(slab_columns[c]) &&
			    !strncmp(t + 1, slab_columns[c], len - 2))
				index[c] = n;
		n++;
	}
	*nr_fields = n;
}

static int slabinfo_parse(struct series *s, char *text)
{
	unsigned index[NR_SLAB_COLUMNS], nr_fields = SLAB_DEFAULT_FIELDS;
	char *cursor = text, *line, **tok = NULL;
	size_t cap = 0;
	int rc = 0;

	memcpy(index, slab_default_index, sizeof(index));
	while (!rc && (line = procfs_next_line(&cursor))) {
		char copy[96], *save = NULL;
		double v[NR_SLAB_COLUMNS];
		unsigned n = 0;
		bool ok = true;

		if (strncmp(line, "slabinfo -", 10) == 0)
			continue;
		if (line[0] == '#') {
			slab_header(line, index, &nr_fields);
			continue;
		}
		snprintf(copy, sizeof(copy), "%s", line);
		for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
			if (n == cap) {
				char **nt = realloc(tok, (cap ? 2 * cap : 32) * sizeof(*nt));

				if (!nt) {
					rc = -1;
					break;
				}
				tok = nt;
				cap = cap ? 2 * cap : 32;
			}
			tok[n++] = t;
		}
		if (rc || !n)
			continue;
		if (n != nr_fields) {
			series_bad(s, "slabinfo", copy);
			continue;
		}
		for (size_t c = 0; c < NR_SLAB_COLUMNS && ok; c++)
			ok = index[c] < n &&
			     procfs_number(tok[index[c]], tok[index[c]] + strlen(tok[index[c]]), &v[c]);
		if (!ok) {
			series_bad(s, "slabinfo", copy);
			continue;
		}
		for (size_t c = 0; c < NR_SLAB_COLUMNS && !rc; c++)
			rc = series_putf(s, v[c], "%s.%s", tok[0], slab_columns[c]);
	}
	free(tok);
	return rc;
}

static int slabinfo_read(struct monitor_ctx *ctx, struct series *s)
{
	char err[512];
	char *text = procfs_read(ctx->proc_root, "slabinfo", NULL, err, sizeof(err));
	int rc;

	if (!text)
		return procfs_fail(ctx, err, errno);
	rc = slabinfo_parse(s, text);
	free(text);
	if (rc)
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
	return rc;
}

static const struct series_source slabinfo_source = {.read = slabinfo_read, .lkp_rule = true};

static int slabinfo_start(struct monitor_ctx *ctx)
{
	return series_monitor_start(ctx, &slabinfo_source);
}

const struct monitor mon_slabinfo = {
    .name = "slabinfo",
    .description = "/proc/slabinfo (root): active/num objs and slabs of every cache, means",
    .start = slabinfo_start,
    .sample = series_monitor_sample,
    .stop = series_monitor_sample,
    .reduce = series_monitor_reduce,
    .cleanup = series_monitor_cleanup,
    .is_default = false,
};
