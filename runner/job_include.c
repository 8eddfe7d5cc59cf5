/* Job files, before YAML: LKP's `<<: FILE` includes (lkp-tests' lib/yaml.rb,
 * yaml_merge_included_files).  As in LKP the include is textual: the line's text before `<<`
 * stays, and FILE's lines follow it, each indented by that text's width, so the included keys
 * land where the line was; a key given twice then keeps its last value, as LKP's YAML does (a
 * key after the include overrides the included one, a key before it is overridden).  Several
 * includes in one file, and includes at any indentation, are each expanded.
 *
 * FILE is found as LKP finds it (search_file_in_paths): an absolute path as it is; ./ and ../
 * relative to the including file's directory; otherwise in that directory, then under $LKP_SRC
 * when it is set, then anywhere below the nearest directory named `jobs` above the including
 * file (so lkp-tests' jobs/will-it-scale/will-it-scale-cgroup2.yaml finds jobs/cgroup2.yaml),
 * below the including file's directory, and below $LKP_SRC.  `<<: {file: FILE, ignore: [k],
 * key: value}` drops the included lines that set k and sets key in each of FILE's documents.
 *
 * Unlike LKP, an included file's own includes are expanded too (LKP leaves them as a `<<` key
 * holding the file name), at most JOB_MAX_INCLUDE_DEPTH deep, and a file that includes itself
 * is refused with the chain.  Messages about included text name the included file and line. */
#include "job_internal.h"
#include "../lib/file.h"
#include "../lib/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define JOB_MAX_INCLUDE_BYTES (16u << 20)
#define JOB_MAX_INCLUDE_DEPTH 16
/* Directories searched below a root for an included file's name. */
#define JOB_MAX_SEARCH_DEPTH 16

struct text {
	struct strbuf b;
	json_t *map; /* per line of b: [file, line] */
};

static int put(struct text *t, const char *s, size_t n)
{
	return strbuf_add(&t->b, s, n);
}

/* One line of output (without its newline) from file:line. */
static int put_line(struct text *t, const char *indent, size_t ni, const char *s, size_t n,
		    const char *file, size_t line)
{
	if (put(t, indent, ni) || put(t, s, n) || put(t, "\n", 1))
		return -1;
	return json_array_append_new(t->map, json_pack("[sI]", file, (json_int_t)line));
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char *join(const char *dir, const char *file)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, file) < 0 ? NULL : p;
}

/* Ruby's Dir.glob of ROOT, "**" and FILE, first match: ROOT itself first, then its
 * directories in sorted order (symbolic links to directories not followed, as ** does not
 * follow them). */
static char *search_below(const char *root, const char *file, int depth)
{
	struct dirent **ents = NULL;
	char *p = join(root, file), *found = NULL;
	int n;

	if (!p || exists(p))
		return p;
	free(p);
	if (depth >= JOB_MAX_SEARCH_DEPTH)
		return NULL;
	n = scandir(root, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		struct stat st;
		char *sub = NULL;

		if (!found && ents[i]->d_name[0] != '.' && (sub = join(root, ents[i]->d_name)) &&
		    lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			found = search_below(sub, file, depth + 1);
		free(sub);
		free(ents[i]);
	}
	free(ents);
	return found;
}

/* The nearest directory named jobs at or above dir ("a/jobs/x" -> "a/jobs"), or NULL. */
static char *jobs_root(const char *dir)
{
	const char *end = NULL;

	for (const char *p = dir; (p = strstr(p, "jobs")); p += 4)
		if ((p == dir || p[-1] == '/') && (p[4] == '/' || p[4] == '\0'))
			end = p + 4;
	return end ? strndup(dir, (size_t)(end - dir)) : NULL;
}

static char *find_include(const char *file, const char *dir)
{
	const char *lkp = getenv("LKP_SRC");
	const char *roots[4] = {0};
	char *p, *jr;
	size_t nr = 0;

	if (file[0] == '/')
		return exists(file) ? strdup(file) : NULL;
	if (!strncmp(file, "./", 2) || !strncmp(file, "../", 3)) {
		p = join(dir, file);
		if (p && exists(p))
			return p;
		free(p);
		return NULL;
	}
	p = join(dir, file);
	if (p && exists(p))
		return p;
	free(p);
	if (lkp && *lkp) {
		p = join(lkp, file);
		if (p && exists(p))
			return p;
		free(p);
	}
	jr = strncmp(file, "jobs/", 5) ? jobs_root(dir) : NULL;
	if (jr && strcmp(jr, dir))
		roots[nr++] = jr;
	roots[nr++] = dir;
	if (lkp && *lkp)
		roots[nr++] = lkp;
	p = NULL;
	for (size_t i = 0; i < nr && !p; i++)
		p = search_below(roots[i], file, 0);
	free(jr);
	return p;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	return slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

/* Where `<<` starts in line[0..n) when it is an include (LKP's /(.*)<< *: +([^*\[].*)/: the
 * last such `<<`; `<<: *REF` is YAML's own merge), and where its FILE part starts. */
static bool find_include_mark(const char *line, size_t n, size_t *at, size_t *content)
{
	for (size_t i = n; i-- > 0;) {
		size_t j = i + 2;

		if (i + 1 >= n || line[i] != '<' || line[i + 1] != '<')
			continue;
		while (j < n && line[j] == ' ')
			j++;
		if (j >= n || line[j] != ':')
			continue;
		j++;
		if (j >= n || line[j] != ' ')
			continue;
		while (j < n && line[j] == ' ')
			j++;
		if (j >= n || line[j] == '*' || line[j] == '[')
			continue;
		*at = i;
		*content = j;
		return true;
	}
	return false;
}

struct include_spec {
	char *file;
	json_t *ignore;	   /* array of key names */
	json_t *overrides; /* key -> text */
};

/* A scalar as it is written back into YAML: plain when it reads back as the same text. */
static char *yaml_text(const char *s)
{
	bool plain = *s && !is_null_word(s, strlen(s));
	struct text t = {0};

	for (const char *c = s; *c && plain; c++)
		plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			(*c >= '0' && *c <= '9') || strchr("-_./%+", *c);
	if (plain)
		return strdup(s);
	if (put(&t, "\"", 1))
		return NULL;
	for (const char *c = s; *c; c++) {
		char esc[8];

		if (*c == '"' || *c == '\\')
			snprintf(esc, sizeof(esc), "\\%c", *c);
		else if ((unsigned char)*c < 0x20)
			snprintf(esc, sizeof(esc), "\\x%02x", (unsigned char)*c);
		else
			snprintf(esc, sizeof(esc), "%c", *c);
		if (put(&t, esc, strlen(esc))) {
			strbuf_release(&t.b);
			return NULL;
		}
	}
	if (put(&t, "\"", 1)) {
		strbuf_release(&t.b);
		return NULL;
	}
	return t.b.buf;
}

/* `FILE`, `'FILE'`, or `{file: FILE, ignore: [k...], key: value...}`. */
static int parse_spec(struct loader *l, const char *where, const char *c, size_t n,
		      struct include_spec *spec)
{
	while (n && (c[n - 1] == ' ' || c[n - 1] == '\t' || c[n - 1] == '\r'))
		n--;
	if (n && c[0] == '{') {
		yaml_parser_t p;
		yaml_document_t d;
		yaml_node_t *root;
		int ok = 0;

		if (!yaml_parser_initialize(&p))
			return fail(l, NULL, "out of memory");
		yaml_parser_set_input_string(&p, (const unsigned char *)c, n);
		if (yaml_parser_load(&p, &d)) {
			root = yaml_document_get_root_node(&d);
			ok = root && root->type == YAML_MAPPING_NODE;
			spec->ignore = json_array();
			spec->overrides = json_object();
			for (yaml_node_pair_t *pr = ok ? root->data.mapping.pairs.start : NULL;
			     ok && pr < root->data.mapping.pairs.top; pr++) {
				yaml_node_t *k = yaml_document_get_node(&d, pr->key);
				yaml_node_t *v = yaml_document_get_node(&d, pr->value);
				const char *ks = (const char *)k->data.scalar.value;

				ok = k->type == YAML_SCALAR_NODE;
				if (!ok)
					break;
				if (!strcmp(ks, "ignore") && v->type == YAML_SEQUENCE_NODE) {
					for (yaml_node_item_t *it = v->data.sequence.items.start;
					     ok && it < v->data.sequence.items.top; it++) {
						yaml_node_t *e = yaml_document_get_node(&d, *it);

						ok = e->type == YAML_SCALAR_NODE;
						if (ok)
							json_array_append_new(
							    spec->ignore,
							    json_string((const char *)
									    e->data.scalar.value));
					}
				} else if (v->type != YAML_SCALAR_NODE) {
					ok = 0;
				} else if (!strcmp(ks, "file")) {
					free(spec->file);
					spec->file = strdup((const char *)v->data.scalar.value);
				} else if (!strcmp(ks, "ignore")) {
					json_array_append_new(
					    spec->ignore,
					    json_string((const char *)v->data.scalar.value));
				} else {
					json_object_set_new(
					    spec->overrides, ks,
					    json_string((const char *)v->data.scalar.value));
				}
			}
			yaml_document_delete(&d);
		}
		yaml_parser_delete(&p);
		if (ok && spec->file && *spec->file)
			return 0;
		return fail(
		    l, NULL,
		    "%s: include '%.*s': expected {file: FILE} with optional ignore: [KEY...] "
		    "and KEY: VALUE overrides",
		    where, (int)n, c);
	}
	if (n >= 2 && (c[0] == '\'' || c[0] == '"') && c[n - 1] == c[0]) {
		c++;
		n -= 2;
	}
	if (!n)
		return fail(l, NULL, "%s: '<<:' names no file", where);
	spec->file = strndup(c, n);
	return spec->file ? 0 : fail(l, NULL, "out of memory");
}

static bool line_sets_key(const char *line, size_t n, const char *key)
{
	size_t k = strlen(key), i = k;

	if (n < k || strncmp(line, key, k))
		return false;
	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return i < n && line[i] == ':';
}

/* LKP's ignore and overrides, applied to an included file's text: lines setting an ignored key
 * dropped; an overridden key's line replaced in each document, or appended to a document
 * without it. */
static int apply_spec(const struct include_spec *spec, char **buf, size_t *len)
{
	struct text out = {0};
	const char *p = *buf, *end = *buf + *len;
	json_t *seen = json_object();
	const char *k;
	json_t *v;

	for (;;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		size_t n = (size_t)(eol - p), i;
		bool doc_end =
		    !nl || (n >= 3 && !strncmp(p, "---", 3) && strspn(p + 3, " \t") == n - 3);
		bool drop = false;
		json_t *ig;

		if (doc_end) {
			/* the document ends: append the overrides it did not set */
			json_object_foreach (spec->overrides, k, v) {
				char *t = yaml_text(json_string_value(v));

				if (!json_object_get(seen, k) && t && out.b.len &&
				    out.b.buf[out.b.len - 1] != '\n')
					put(&out, "\n", 1);
				if (!json_object_get(seen, k) && t &&
				    (put(&out, k, strlen(k)) || put(&out, ": ", 2) ||
				     put(&out, t, strlen(t)) || put(&out, "\n", 1))) {
					free(t);
					goto oom;
				}
				free(t);
			}
			json_object_clear(seen);
		}
		json_array_foreach (spec->ignore, i, ig) {
			drop |= line_sets_key(p, n, json_string_value(ig));
		}
		json_object_foreach (spec->overrides, k, v) {
			if (!drop && line_sets_key(p, n, k)) {
				char *t = yaml_text(json_string_value(v));

				drop = true;
				json_object_set_new(seen, k, json_null());
				if (!t || put(&out, k, strlen(k)) || put(&out, ": ", 2) ||
				    put(&out, t, strlen(t)) || put(&out, "\n", 1)) {
					free(t);
					goto oom;
				}
				free(t);
			}
		}
		if (!drop && (put(&out, p, n) || (nl && put(&out, "\n", 1))))
			goto oom;
		if (!nl)
			break;
		p = nl + 1;
	}
	json_decref(seen);
	free(*buf);
	*buf = out.b.buf ? out.b.buf : strdup("");
	*len = out.b.len;
	return *buf ? 0 : -1;
oom:
	json_decref(seen);
	strbuf_release(&out.b);
	return -1;
}

static int expand(struct loader *l, const char *buf, size_t len, const char *path,
		  const char *indent, size_t ni, json_t *chain, struct text *out);

static int include_one(struct loader *l, const char *where, const char *c, size_t n,
		       const char *path, const char *indent, size_t ni, json_t *chain,
		       struct text *out)
{
	struct include_spec spec = {0};
	char *dir = dir_of(path), *found = NULL, *text = NULL, real[PATH_MAX], e[512];
	size_t tlen = 0, i;
	json_t *c2;
	int ret = -1;

	if (!dir || parse_spec(l, where, c, n, &spec))
		goto out;
	found = find_include(spec.file, dir);
	if (!found) {
		fail(l, NULL,
		     "%s: included file '%s' not found (looked in %s%s, under the nearest jobs/ "
		     "directory above it%s)",
		     where, spec.file, dir, getenv("LKP_SRC") ? " and $LKP_SRC" : "",
		     getenv("LKP_SRC") ? " and under $LKP_SRC" : "");
		goto out;
	}
	if (!realpath(found, real)) {
		fail(l, NULL, "%s: include '%s': %s", where, found, strerror(errno));
		goto out;
	}
	/* Kernel files are no job files, and some never end (/proc/kmsg). */
	if (!strncmp(real, "/proc/", 6) || !strncmp(real, "/sys/", 5) ||
	    !strncmp(real, "/dev/", 5)) {
		fail(l, NULL, "%s: include '%s': not a job file (under /proc, /sys or /dev)", where,
		     real);
		goto out;
	}
	json_array_foreach (chain, i, c2) {
		if (!strcmp(json_string_value(c2), real)) {
			fail(l, NULL, "%s: include loop: '%s' includes itself (through %zu file%s)",
			     where, found, json_array_size(chain) - i,
			     json_array_size(chain) - i == 1 ? "" : "s");
			goto out;
		}
	}
	if (json_array_size(chain) > JOB_MAX_INCLUDE_DEPTH) {
		fail(l, NULL, "%s: includes nested deeper than %d files", where,
		     JOB_MAX_INCLUDE_DEPTH);
		goto out;
	}
	if (file_read(found, JOB_MAX_INCLUDE_BYTES, &text, &tlen, e, sizeof(e))) {
		fail(l, NULL, "%s: include: %s", where, e);
		goto out;
	}
	if ((json_array_size(spec.ignore) || json_object_size(spec.overrides)) &&
	    apply_spec(&spec, &text, &tlen)) {
		fail(l, NULL, "out of memory");
		goto out;
	}
	json_array_append_new(chain, json_string(real));
	ret = expand(l, text, tlen, found, indent, ni, chain, out);
	json_array_remove(chain, json_array_size(chain) - 1);
out:
	free(dir);
	free(found);
	free(text);
	free(spec.file);
	json_decref(spec.ignore);
	json_decref(spec.overrides);
	return ret;
}

/* buf (the text of path) into out, every line indented by indent[0..ni). */
static int expand(struct loader *l, const char *buf, size_t len, const char *path,
		  const char *indent, size_t ni, json_t *chain, struct text *out)
{
	const char *p = buf, *end = buf + len;

	for (size_t line = 1; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p), at, content;

		if (find_include_mark(p, n, &at, &content)) {
			char where[PATH_MAX + 32], *ind;
			int ret;

			l->included = true;
			snprintf(where, sizeof(where), "%s:%zu", path, line);
			/* the text before `<<` stays; the file's lines follow at its width */
			if (put_line(out, indent, ni, p, at, path, line))
				return fail(l, NULL, "out of memory");
			ind = malloc(ni + at + 1);
			if (!ind)
				return fail(l, NULL, "out of memory");
			memcpy(ind, indent, ni);
			memset(ind + ni, ' ', at);
			ret = include_one(l, where, p + content, n - content, path, ind, ni + at,
					  chain, out);
			free(ind);
			if (ret)
				return -1;
		} else if (put_line(out, indent, ni, p, n, path, line)) {
			return fail(l, NULL, "out of memory");
		}
		/* A file including another twice, which includes another twice...: the text
		 * grows with every level, so its size is what is bounded. */
		if (out->b.len > JOB_MAX_INCLUDE_BYTES)
			return fail(l, NULL,
				    "%s:%zu: the job file with its includes is larger than %u MiB",
				    path, line, JOB_MAX_INCLUDE_BYTES >> 20);
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

int expand_includes(struct loader *l, char **buf, size_t *len)
{
	struct text out = {.map = json_array()};
	json_t *chain = json_array();
	char real[PATH_MAX];
	size_t at, content;
	bool any = false;

	/* Most files include nothing: leave them (and their messages) as they are. */
	for (const char *p = *buf, *end = *buf + *len; p < end && !any;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		any = find_include_mark(p, (size_t)((nl ? nl : end) - p), &at, &content);
		p = nl ? nl + 1 : end;
	}
	if (!any) {
		json_decref(out.map);
		json_decref(chain);
		return 0;
	}
	if (realpath(l->path, real))
		json_array_append_new(chain, json_string(real));
	if (expand(l, *buf, *len, l->path, "", 0, chain, &out)) {
		strbuf_release(&out.b);
		json_decref(out.map);
		json_decref(chain);
		return -1;
	}
	json_decref(chain);
	free(*buf);
	*buf = out.b.buf ? out.b.buf : strdup("");
	*len = out.b.len;
	l->srcmap = out.map;
	return *buf ? 0 : fail(l, NULL, "out of memory");
}
