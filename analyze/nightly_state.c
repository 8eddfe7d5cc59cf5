/* nightly's memory of what it mailed: the JSON file, its lock, and the mbox look-up that
 * settles a message left pending by a killed run. */
#include "nightly_state.h"
#include "nightly_policy.h"
#include "../lib/errors.h"
#include "../lib/file.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* A state file is a few hundred bytes per message mailed; one past this is not ours. */
#define STATE_MAX_BYTES (256u << 20)

int nightly_state_lock(const char *path, int *fd, char *err, size_t errlen)
{
	char lock[4096];

	*fd = -1;
	if (path_fmt(lock, sizeof(lock), err, errlen, "%s.lock", path))
		return -1;
	*fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (*fd < 0) {
		snprintf(err, errlen, "cannot open the lock %s: %s", lock, strerror(errno));
		return -1;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno == EWOULDBLOCK)
		sb_note("another nightly holds %s: waiting for it", lock);
	while (flock(*fd, LOCK_EX)) {
		if (errno == EINTR)
			continue;
		snprintf(err, errlen, "cannot lock %s: %s", lock, strerror(errno));
		close(*fd);
		*fd = -1;
		return -1;
	}
	return 0;
}

static void key_free(struct nightly_key *k)
{
	free(k->job);
	free(k->stat);
	free(k->commit);
	free(k->kind);
	for (size_t i = 0; i < k->nrange; i++)
		free(k->range[i]);
	free(k->range);
}

/* Copies of range[0..n) into k's range: 0, or -1 on ENOMEM. */
static int key_set_range(struct nightly_key *k, char *const *range, size_t n)
{
	k->range = n ? calloc(n, sizeof(*k->range)) : NULL;
	if (n && !k->range)
		return -1;
	for (k->nrange = 0; k->nrange < n; k->nrange++)
		if (!(k->range[k->nrange] = strdup(range[k->nrange])))
			return -1;
	return 0;
}

static void message_free(struct nightly_message *m)
{
	for (size_t i = 0; i < m->nkeys; i++)
		key_free(&m->keys[i]);
	free(m->keys);
	free(m->message_id);
	free(m->text);
	free(m->follow_up_of);
}

void nightly_state_free(struct nightly_state *st)
{
	for (size_t i = 0; i < st->n; i++)
		message_free(&st->msgs[i]);
	free(st->msgs);
	free(st->path);
	memset(st, 0, sizeof(*st));
}

/* A name as the file keeps it: a JSON string, or {"hex": "..."} for one that is not UTF-8
 * (directory names are any bytes, and JSON holds UTF-8 only; dropping one would mail its
 * change again every night).  *s malloc'd; 0, or -1 when v is neither or out of memory. */
static int name_value(json_t *v, char **s)
{
	const char *hex = json_string_value(json_object_get(v, "hex"));
	size_t n;

	*s = NULL;
	if (json_is_string(v))
		return (*s = strdup(json_string_value(v))) ? 0 : -1;
	if (!json_is_object(v) || json_object_size(v) != 1 || !hex || (n = strlen(hex)) % 2)
		return -1;
	if (!(*s = malloc(n / 2 + 1)))
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned b;

		if (sscanf(hex + 2 * i, "%2x", &b) != 1 || !b ||
		    !strchr("0123456789abcdef", hex[2 * i]) ||
		    !strchr("0123456789abcdef", hex[2 * i + 1])) {
			free(*s);
			*s = NULL;
			return -1;
		}
		(*s)[i] = (char)b;
	}
	(*s)[n / 2] = '\0';
	return 0;
}

/* A name as name_value reads it. */
static json_t *name_json(const char *s)
{
	json_t *v = json_string(s), *o;
	char *hex;
	size_t n;

	if (v || !s)
		return v;
	n = strlen(s);
	if (!(hex = malloc(2 * n + 1)))
		return NULL;
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)s[i]);
	o = json_pack("{s:s}", "hex", hex);
	free(hex);
	return o;
}

/* A name member of o (name_value's), malloc'd in *s, or -1 with err naming the file, the
 * place and the key. */
static int name_member(json_t *o, const char *key, char **s, const char *path, const char *where,
		       char *err, size_t errlen)
{
	if (!name_value(json_object_get(o, key), s))
		return 0;
	snprintf(err, errlen, "%s: %s: \"%s\" is missing or not a string", path, where, key);
	return -1;
}

/* A string member of o, or NULL with err naming the file, the place and the key. */
static const char *str_member(json_t *o, const char *key, const char *path, const char *where,
			      char *err, size_t errlen)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s)
		snprintf(err, errlen, "%s: %s: \"%s\" is missing or not a string", path, where, key);
	return s;
}

/* A key's "range": absent (none), or an array of at most NIGHTLY_RANGE_MAX commit strings. */
static int load_range(json_t *c, struct nightly_key *key, const char *path, const char *where,
		      char *err, size_t errlen)
{
	json_t *r = json_object_get(c, "range"), *v;
	size_t i;

	if (!r)
		return 0;
	if (!json_is_array(r) || json_array_size(r) > NIGHTLY_RANGE_MAX) {
		snprintf(err, errlen, "%s: %s: \"range\" is not an array of at most %d commits",
			 path, where, NIGHTLY_RANGE_MAX);
		return -1;
	}
	if (json_array_size(r) && !(key->range = calloc(json_array_size(r), sizeof(char *)))) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	json_array_foreach(r, i, v) {
		if (name_value(v, &key->range[key->nrange])) {
			snprintf(err, errlen, "%s: %s: \"range\"[%zu] is not a string", path, where,
				 i);
			return -1;
		}
		key->nrange++;
	}
	return 0;
}

/* Message o into m; where: "messages[I]" (version 1) or "line N" (version 2). */
static int load_message(json_t *o, const char *path, const char *msg_where,
			struct nightly_message *m, char *err, size_t errlen)
{
	char where[96];
	const char *id, *status, *text = NULL;
	json_t *keys, *t;

	snprintf(where, sizeof(where), "%s", msg_where);
	if (!json_is_object(o)) {
		snprintf(err, errlen, "%s: %s is not an object", path, where);
		return -1;
	}
	if (!(id = str_member(o, "message_id", path, where, err, errlen)) ||
	    !(status = str_member(o, "status", path, where, err, errlen)))
		return -1;
	if (strcmp(status, "pending") && strcmp(status, "mailed")) {
		snprintf(err, errlen, "%s: %s: \"status\" is '%s', expected pending or mailed", path,
			 where, status);
		return -1;
	}
	t = json_object_get(o, "time");
	if (!json_is_integer(t)) {
		snprintf(err, errlen, "%s: %s: \"time\" is missing or not an integer", path, where);
		return -1;
	}
	if (!strcmp(status, "pending") && !(text = str_member(o, "text", path, where, err, errlen)))
		return -1;
	keys = json_object_get(o, "changes");
	if (!json_is_array(keys) || !json_array_size(keys)) {
		snprintf(err, errlen, "%s: %s: \"changes\" is missing or not a non-empty array",
			 path, where);
		return -1;
	}
	m->message_id = strdup(id);
	m->mailed = !strcmp(status, "mailed");
	m->time = json_integer_value(t);
	m->text = text ? strdup(text) : NULL;
	m->keys = calloc(json_array_size(keys), sizeof(*m->keys));
	if (!m->message_id || (text && !m->text) || !m->keys)
		goto nomem;
	for (size_t k = 0; k < json_array_size(keys); k++) {
		json_t *c = json_array_get(keys, k);

		snprintf(where, sizeof(where), "%s.changes[%zu]", msg_where, k);
		if (!json_is_object(c)) {
			snprintf(err, errlen, "%s: %s is not an object", path, where);
			return -1;
		}
		struct nightly_key *key = &m->keys[m->nkeys++];

		if (name_member(c, "job", &key->job, path, where, err, errlen) ||
		    name_member(c, "stat", &key->stat, path, where, err, errlen) ||
		    name_member(c, "commit", &key->commit, path, where, err, errlen) ||
		    name_member(c, "kind", &key->kind, path, where, err, errlen) ||
		    load_range(c, key, path, where, err, errlen))
			return -1;
	}
	t = json_object_get(o, "follow_up_of");
	if (t && !json_is_string(t)) {
		snprintf(err, errlen, "%s: %s: \"follow_up_of\" is not a string", path, where);
		return -1;
	}
	if (t && !(m->follow_up_of = strdup(json_string_value(t))))
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "%s: out of memory", path);
	return -1;
}

/* Room for one more message in st: 0, or -1 when out of memory. */
static int grow(struct nightly_state *st, size_t *cap)
{
	struct nightly_message *v;

	if (st->n < *cap)
		return 0;
	v = realloc(st->msgs, (*cap = *cap ? 2 * *cap : 64) * sizeof(*v));
	if (!v)
		return -1;
	st->msgs = v;
	return 0;
}

/* Version 2: after the first line, one message per line (buf[0..len), the header's line
 * skipped).  A line is parsed and dropped before the next: the file is never one tree. */
static int load_lines(struct nightly_state *st, const char *buf, size_t len, const char *path,
		      char *err, size_t errlen)
{
	size_t cap = 0, line = 1;
	const char *p = memchr(buf, '\n', len), *end = buf + len;
	char where[32];

	for (p = p ? p + 1 : end; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		json_error_t je;
		json_t *o;

		if (!n) {
			snprintf(err, errlen, "%s: line %zu: empty (a message a line)", path,
				 line + 1);
			return -1;
		}
		o = json_loadb(p, n, JSON_REJECT_DUPLICATES, &je);
		if (!o) {
			snprintf(err, errlen, "%s: line %zu: %s", path, line + 1, je.text);
			return -1;
		}
		snprintf(where, sizeof(where), "line %zu", line + 1);
		if (grow(st, &cap)) {
			json_decref(o);
			snprintf(err, errlen, "%s: out of memory", path);
			return -1;
		}
		memset(&st->msgs[st->n], 0, sizeof(*st->msgs));
		st->n++;
		int rc = load_message(o, path, where, &st->msgs[st->n - 1], err, errlen);

		json_decref(o);
		if (rc)
			return -1;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* Version 1: one document, {"version": 1, "messages": [...]}. */
static int load_document(struct nightly_state *st, json_t *root, const char *path, char *err,
			 size_t errlen)
{
	json_t *msgs = json_object_get(root, "messages");
	char where[40];
	int rc = 0;

	if (!json_is_array(msgs)) {
		snprintf(err, errlen, "%s: \"messages\" is missing or not an array", path);
		return -1;
	}
	if (json_array_size(msgs) &&
	    !(st->msgs = calloc(json_array_size(msgs), sizeof(*st->msgs)))) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	for (size_t i = 0; !rc && i < json_array_size(msgs); i++) {
		snprintf(where, sizeof(where), "messages[%zu]", i);
		rc = load_message(json_array_get(msgs, i), path, where, &st->msgs[i], err, errlen);
		st->n = i + 1;
	}
	return rc;
}

int nightly_state_load(const char *path, struct nightly_state *st, char *err, size_t errlen)
{
	char *buf = NULL, *nl, why[1024];
	size_t len;
	json_error_t je;
	json_t *root, *v;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	st->path = strdup(path);
	if (!st->path) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	if (file_read(path, STATE_MAX_BYTES, &buf, &len, why, sizeof(why))) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	/* Version 2's first line is the header alone; version 1's is part of one document. */
	nl = memchr(buf, '\n', len);
	root = nl ? json_loadb(buf, (size_t)(nl - buf), JSON_REJECT_DUPLICATES, NULL) : NULL;
	v = json_object_get(root, "version");
	if (json_is_integer(v) && json_integer_value(v) == NIGHTLY_STATE_VERSION &&
	    json_object_size(root) == 1) {
		json_decref(root);
		rc = load_lines(st, buf, len, path, err, errlen);
		free(buf);
		return rc;
	}
	json_decref(root);
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	free(buf);
	if (!root) {
		snprintf(err, errlen, "%s: not a nightly state file: line %d: %s", path, je.line,
			 je.text);
		return -1;
	}
	v = json_object_get(root, "version");
	if (!json_is_object(root) || !json_is_integer(v))
		snprintf(err, errlen, "%s: not a nightly state file: no \"version\"", path);
	else if (json_integer_value(v) != 1)
		snprintf(err, errlen, "%s: state version %lld, this scalebench reads 1 and %d",
			 path, (long long)json_integer_value(v), NIGHTLY_STATE_VERSION);
	else
		rc = load_document(st, root, path, err, errlen);
	json_decref(root);
	return rc;
}

static json_t *message_json(const struct nightly_message *m)
{
	json_t *o = json_object(), *keys = json_array();

	if (!o || !keys) {
		json_decref(o);
		json_decref(keys);
		return NULL;
	}
	if (json_object_set_new(o, "message_id", json_string(m->message_id)) ||
	    json_object_set_new(o, "status", json_string(m->mailed ? "mailed" : "pending")) ||
	    json_object_set_new(o, "time", json_integer(m->time))) {
		json_decref(o);
		json_decref(keys);
		return NULL;
	}
	/* Any member that cannot be made fails the message: a change left out would be mailed
	 * again. */
	bool bad = false;

	for (size_t k = 0; k < m->nkeys; k++) {
		const struct nightly_key *c = &m->keys[k];
		json_t *key = json_object(), *range = c->nrange ? json_array() : NULL;

		bad |= !key || json_object_set_new(key, "job", name_json(c->job)) ||
		       json_object_set_new(key, "stat", name_json(c->stat)) ||
		       json_object_set_new(key, "commit", name_json(c->commit)) ||
		       json_object_set_new(key, "kind", name_json(c->kind));
		for (size_t i = 0; range && i < c->nrange; i++)
			bad |= json_array_append_new(range, name_json(c->range[i]));
		if (c->nrange)
			bad |= !key || json_object_set_new(key, "range", range);
		bad |= json_array_append_new(keys, key);
	}
	bad |= json_object_set_new(o, "changes", keys);
	if (m->follow_up_of)
		bad |= json_object_set_new(o, "follow_up_of", json_string(m->follow_up_of));
	if (!m->mailed && m->text)
		bad |= json_object_set_new(o, "text", json_string(m->text));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int nightly_state_save(const struct nightly_state *st, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc = -1;
	bool ok = f && fprintf(f, "{\"version\": %d}\n", NIGHTLY_STATE_VERSION) > 0;

	/* A message a line, each dumped and dropped before the next: the file is never one
	 * tree in memory (300,000 messages were 700 MB as one). */
	for (size_t i = 0; ok && i < st->n; i++) {
		json_t *m = message_json(&st->msgs[i]);

		ok = m && json_dumpf(m, f, JSON_COMPACT | JSON_ENSURE_ASCII) == 0 &&
		     fputc('\n', f) != EOF;
		json_decref(m);
	}
	if (f && fclose(f))
		ok = false;
	if (!ok)
		snprintf(err, errlen, "%s: out of memory, or a message that cannot be written",
			 st->path);
	else
		rc = file_write(st->path, text, len, err, errlen);
	free(text);
	return rc;
}

static int dup_key(struct nightly_key *d, const struct nightly_key *s)
{
	d->job = strdup(s->job);
	d->stat = strdup(s->stat);
	d->commit = strdup(s->commit);
	d->kind = strdup(s->kind);
	return d->job && d->stat && d->commit && d->kind && !key_set_range(d, s->range, s->nrange)
		   ? 0
		   : -1;
}

ssize_t nightly_state_add(struct nightly_state *st, const char *message_id, const char *text,
			  const struct nightly_key *keys, size_t nkeys, int64_t time)
{
	struct nightly_message *v = realloc(st->msgs, (st->n + 1) * sizeof(*v)), *m;

	if (!v)
		return -1;
	st->msgs = v;
	m = &v[st->n];
	memset(m, 0, sizeof(*m));
	m->message_id = strdup(message_id);
	m->text = strdup(text);
	m->time = time;
	m->keys = calloc(nkeys, sizeof(*m->keys));
	if (!m->message_id || !m->text || !m->keys)
		goto nomem;
	for (; m->nkeys < nkeys; m->nkeys++)
		if (dup_key(&m->keys[m->nkeys], &keys[m->nkeys])) {
			m->nkeys++;
			goto nomem;
		}
	return (ssize_t)st->n++;
nomem:
	message_free(m);
	return -1;
}

void nightly_state_mailed(struct nightly_state *st, size_t i, int64_t time)
{
	st->msgs[i].mailed = true;
	st->msgs[i].time = time;
	free(st->msgs[i].text);
	st->msgs[i].text = NULL;
}

const struct nightly_message *nightly_state_find(const struct nightly_state *st, const char *job,
						 const char *stat, const char *commit,
						 const char *kind)
{
	for (size_t i = 0; i < st->n; i++)
		for (size_t k = 0; k < st->msgs[i].nkeys; k++) {
			const struct nightly_key *c = &st->msgs[i].keys[k];

			if (!strcmp(c->job, job) && !strcmp(c->stat, stat) &&
			    !strcmp(c->commit, commit) && !strcmp(c->kind, kind))
				return &st->msgs[i];
		}
	return NULL;
}

static bool holds(const struct nightly_key *k, char *const *commits, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(k->commit, commits[i]))
			return true;
		for (size_t r = 0; r < k->nrange; r++)
			if (!strcmp(k->range[r], commits[i]))
				return true;
	}
	return false;
}

const struct nightly_message *nightly_state_meets(const struct nightly_state *st, const char *job,
						  const char *stat, const char *kind,
						  char *const *commits, size_t n,
						  const struct nightly_key **key)
{
	for (size_t i = 0; i < st->n; i++)
		for (size_t k = 0; k < st->msgs[i].nkeys; k++) {
			const struct nightly_key *c = &st->msgs[i].keys[k];

			if (!strcmp(c->job, job) && !strcmp(c->stat, stat) &&
			    !strcmp(c->kind, kind) && holds(c, commits, n)) {
				if (key)
					*key = c;
				return &st->msgs[i];
			}
		}
	return NULL;
}

bool nightly_state_followed(const struct nightly_state *st, const char *message_id)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->msgs[i].follow_up_of && !strcmp(st->msgs[i].follow_up_of, message_id))
			return true;
	return false;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void nightly_msgid_left(const struct nightly_key *keys, size_t nkeys, char *out, size_t len)
{
	char **lines = calloc(nkeys ? nkeys : 1, sizeof(*lines));
	uint64_t h = 0xcbf29ce484222325ull;
	size_t n = 0;

	/* Sorted, so the order the changes were found in does not matter. */
	for (size_t i = 0; lines && i < nkeys; i++)
		if (asprintf(&lines[n], "%s\n%s\n%s\n%s", keys[i].job, keys[i].stat,
			     keys[i].commit, keys[i].kind) >= 0)
			n++;
	if (lines)
		qsort(lines, n, sizeof(*lines), by_str);
	for (size_t i = 0; i < n; i++) {
		h = fnv1a(h, lines[i], strlen(lines[i]) + 1);
		free(lines[i]);
	}
	free(lines);
	snprintf(out, len, "nightly.%.12s.%016llx", nkeys ? keys[0].commit : "none",
		 (unsigned long long)h);
}

int nightly_mbox_has(const char *path, const char *message_id, bool *found, char *err,
		     size_t errlen)
{
	/* O_NONBLOCK: a FIFO there must be refused, not waited on with the state locked. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat sb;
	FILE *f = NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	bool in_headers = false, in_msgid = false;

	*found = false;
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "cannot read %s: %s (an mbox is a regular file)", path,
			 fstat(fd, &sb) ? strerror(errno) : "not a regular file");
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, 0) || !(f = fdopen(fd, "r"))) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	while (!*found && (n = getline(&line, &cap, f)) > 0) {
		if (!strncmp(line, "From ", 5)) {
			in_headers = true;
			in_msgid = false;
			continue;
		}
		if (!in_headers)
			continue;
		if (line[0] == '\n') {
			in_headers = false;
		} else if (line[0] == ' ' || line[0] == '\t') {
			*found = in_msgid && strstr(line, message_id);
		} else {
			in_msgid = !strncasecmp(line, "Message-ID:", 11);
			*found = in_msgid && strstr(line, message_id);
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		free(line);
		fclose(f);
		return -1;
	}
	free(line);
	fclose(f);
	return 0;
}
