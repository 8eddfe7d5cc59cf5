/* RFC 5322/2047 header lines and mboxrd appending: see mail.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem, asprintf, dprintf: also when a fuzzer build compiles us alone */
#endif
#include "mail.h"
#include "strbuf.h"
#include "utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* RFC 2047 2: an encoded word is at most 75 characters, a line that holds one at most 76. */
#define EW_MAX	    75
#define EW_LINE_MAX 76
#define EW_PREFIX   "=?UTF-8?Q?"
#define EW_OVERHEAD (sizeof(EW_PREFIX) - 1 + 2)

static bool is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

const char *mail_body_bad(const char *body, size_t len)
{
	const unsigned char *p = (const unsigned char *)body, *end = p + len;

	while (p < end) {
		size_t n;

		if (*p == '\t' || *p == '\n' || (*p >= 0x20 && *p < 0x7f)) {
			p++;
			continue;
		}
		n = *p >= 0x80 ? utf8_seq_len(p, (size_t)(end - p)) : 0;
		/* U+0080..U+009F (C2 80..C2 9F): C1 controls, which some terminals take as ESC. */
		if (!n || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0))
			return (const char *)p;
		p += n;
	}
	return NULL;
}

int mail_message_check(const char *msg, size_t len, const struct mail_want *want, size_t nwant,
		       char *err, size_t errlen)
{
	const char *p = msg, *end = msg + len, *bad;
	size_t i = 0;

	if (memchr(msg, '\0', len)) {
		snprintf(err, errlen, "a NUL byte at %zu",
			 (size_t)((const char *)memchr(msg, '\0', len) - msg));
		return -1;
	}
	while (p < end && *p != '\n') {
		const char *h = p, *colon;
		size_t hlen;

		/* One header: its first line and the lines continuing it. */
		do {
			const char *nl = memchr(p, '\n', (size_t)(end - p));

			if (!nl) {
				snprintf(err, errlen, "the headers do not end (no blank line)");
				return -1;
			}
			if (nl - p > 998) {
				snprintf(err, errlen, "a header line of %zu characters", (size_t)(nl - p));
				return -1;
			}
			for (const char *c = p; c < nl; c++)
				if ((is_ctl((unsigned char)*c) && *c != '\t') ||
				    (unsigned char)*c >= 0x80) {
					snprintf(err, errlen,
						 "header %zu: byte 0x%02x is not printable ASCII", i + 1,
						 (unsigned char)*c);
					return -1;
				}
			p = nl + 1;
		} while (p < end && (*p == ' ' || *p == '\t'));
		hlen = (size_t)(p - h);
		colon = memchr(h, ':', hlen);
		if (i == nwant || !colon || (size_t)(colon - h) != strlen(want[i].name) ||
		    strncasecmp(h, want[i].name, (size_t)(colon - h))) {
			int nl = (int)(colon ? colon - h : (int)strcspn(h, "\n"));

			snprintf(err, errlen, "header '%.*s' where %s%s is expected",
				 nl > 64 ? 64 : nl, h,
				 i < nwant ? want[i].name : "the end of the headers",
				 i < nwant ? ":" : "");
			return -1;
		}
		if (want[i].exact &&
		    (strlen(want[i].exact) != hlen || memcmp(want[i].exact, h, hlen))) {
			snprintf(err, errlen, "its %s is not the one this message is for", want[i].name);
			return -1;
		}
		i++;
	}
	if (i < nwant) {
		snprintf(err, errlen, "no %s header", want[i].name);
		return -1;
	}
	if (p >= end) {
		snprintf(err, errlen, "no blank line after the headers");
		return -1;
	}
	p++;
	bad = mail_body_bad(p, (size_t)(end - p));
	if (bad) {
		snprintf(err, errlen,
			 "byte 0x%02x at %zu of the body is a control character or not UTF-8",
			 (unsigned char)*bad, (size_t)(bad - p));
		return -1;
	}
	return 0;
}

const char *mail_find_ctl(const char *s)
{
	for (; *s; s++)
		if (is_ctl((unsigned char)*s))
			return s;
	return NULL;
}

static bool is_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* RFC 5322 3.2.3 atext. */
static bool is_atext(unsigned char c)
{
	return is_alnum(c) || (c && strchr("!#$%&'*+-/=?^_`{|}~", c));
}

static bool is_dot_atom(const char *s, size_t n)
{
	if (!n || s[0] == '.' || s[n - 1] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(is_atext((unsigned char)s[i]) || (s[i] == '.' && s[i + 1] != '.')))
			return false;
	return true;
}

bool mail_addr_spec_ok(const char *addr)
{
	const char *at = strchr(addr, '@');

	/* "=?" is atext, but a lenient reader would take it for an encoded word. */
	return at && !strchr(at + 1, '@') && !strstr(addr, "=?") && at - addr <= 64 &&
	       strlen(at + 1) <= 255 && is_dot_atom(addr, (size_t)(at - addr)) &&
	       is_dot_atom(at + 1, strlen(at + 1));
}

/* A header value made safe to write: a control character becomes a space (a "\nBcc: x"
 * stays visible text, its words still apart), a byte that is not UTF-8 becomes '?', runs of
 * spaces one space (so no folded line is ever blank), the ends trimmed.  NULL on ENOMEM. */
static char *clean(const char *s, bool *eight_bit)
{
	size_t n = strlen(s);
	char *out = malloc(n + 1), *o = out;

	*eight_bit = false;
	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t l = utf8_seq_len((const unsigned char *)s + i, n - i);

		if (c >= 0x80 && l) {
			memcpy(o, s + i, l);
			o += l;
			i += l;
			*eight_bit = true;
			continue;
		}
		i++;
		if (c >= 0x80)
			c = '?';
		else if (is_ctl(c))
			c = ' ';
		if (c == ' ' && (o == out || o[-1] == ' '))
			continue;
		*o++ = (char)c;
	}
	while (o > out && o[-1] == ' ')
		o--;
	*o = '\0';
	return out;
}

/* A header being built: the text, and the column the next character goes to. */
struct hbuf {
	struct strbuf b;
	size_t col, field_len;
	bool first;
};

static void put(struct hbuf *h, const char *s, size_t n)
{
	if (strbuf_add(&h->b, s, n))
		return;
	for (size_t i = 0; i < n; i++)
		h->col = s[i] == '\n' ? 0 : h->col + 1;
}

static int begin(struct hbuf *h, const char *field)
{
	size_t n = strlen(field);

	*h = (struct hbuf){.field_len = n, .first = true};
	/* RFC 5322 3.6.8 ftext; short enough that "Field: " leaves room for an encoded word. */
	if (!n || n > EW_LINE_MAX - EW_OVERHEAD - 13) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (field[i] < 33 || field[i] > 126 || field[i] == ':') {
			errno = EINVAL;
			return -1;
		}
	put(h, field, n);
	put(h, ":", 1);
	return 0;
}

static char *end(struct hbuf *h)
{
	put(h, "\n", 1);
	if (h->b.oom) {
		strbuf_release(&h->b);
		errno = ENOMEM;
		return NULL;
	}
	return h->b.buf;
}

/* The space before a token of n characters, folded first when the token would pass limit
 * (never before the first token: "Field:" alone on a line says nothing). */
static void sep(struct hbuf *h, size_t n, size_t limit)
{
	if (!h->first && h->col + 1 + n > limit)
		put(h, "\n", 1);
	put(h, " ", 1);
	h->first = false;
}

static void token(struct hbuf *h, const char *s, size_t n)
{
	sep(h, n, MAIL_LINE_SOFT);
	put(h, s, n);
}

/* Q encoding (RFC 2047 4.2) restricted to what 5.(3) allows in a phrase, so the same encoded
 * words serve a Subject and a display name. */
static size_t q_len(unsigned char c)
{
	return is_alnum(c) || c == ' ' || (c && strchr("!*+-/", c)) ? 1 : 3;
}

static void q_put(struct hbuf *h, unsigned char c)
{
	char x[4];

	if (q_len(c) == 3) {
		snprintf(x, sizeof(x), "=%02X", c);
		put(h, x, 3);
	} else {
		put(h, c == ' ' ? "_" : (const char *)&c, 1);
	}
}

/* s[0..n) (clean UTF-8) as encoded words, each as long as its line allows, folded between
 * them; a character is never split across two. */
static void put_encoded(struct hbuf *h, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		/* The text is clean UTF-8; a stray byte would still go, one at a time. */
		size_t cl = utf8_seq_len(u + i, n - i), room, used = 0;

		if (!cl)
			cl = 1;
		for (size_t k = 0; k < cl; k++)
			used += q_len(u[i + k]);
		sep(h, EW_OVERHEAD + used, EW_LINE_MAX);
		room = h->col < EW_LINE_MAX ? EW_LINE_MAX - h->col : 0;
		if (room > EW_MAX)
			room = EW_MAX;
		room = room > EW_OVERHEAD ? room - EW_OVERHEAD : 0;
		put(h, EW_PREFIX, sizeof(EW_PREFIX) - 1);
		used = 0;
		/* At least one character per word, however long the field name. */
		do {
			size_t w = 0;

			cl = utf8_seq_len(u + i, n - i);
			if (!cl)
				cl = 1;
			for (size_t k = 0; k < cl; k++)
				w += q_len(u[i + k]);
			if (used && used + w > room)
				break;
			for (size_t k = 0; k < cl; k++)
				q_put(h, u[i + k]);
			used += w;
			i += cl;
		} while (i < n);
		put(h, "?=", 2);
	}
}

/* Whether a word must be encoded rather than written as it is: non-ASCII, something a reader
 * would take for an encoded word, or too long for any line. */
static bool needs_encoding(const struct hbuf *h, const char *w, size_t n)
{
	if (n + h->field_len + 2 > MAIL_LINE_MAX || memmem(w, n, "=?", 2))
		return true;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)w[i] >= 0x80)
			return true;
	return false;
}

/* Unstructured text (RFC 5322 3.2.5): plain words as they are, each run of words that needs
 * encoding as encoded words (the spaces inside a run encoded too: white space between two
 * encoded words is dropped when they are decoded). */
static void put_text(struct hbuf *h, const char *v)
{
	while (*v) {
		size_t n = strcspn(v, " ");
		const char *run_end;

		if (!needs_encoding(h, v, n)) {
			token(h, v, n);
			v += n;
			v += *v == ' ';
			continue;
		}
		run_end = v + n;
		while (*run_end == ' ') {
			size_t k = strcspn(run_end + 1, " ");

			if (!needs_encoding(h, run_end + 1, k))
				break;
			run_end += 1 + k;
		}
		put_encoded(h, v, (size_t)(run_end - v));
		v = run_end + (*run_end == ' ');
	}
}

char *mail_header_text(const char *field, const char *value)
{
	struct hbuf h;
	bool eight_bit;
	char *v;

	if (begin(&h, field))
		return NULL;
	v = clean(value, &eight_bit);
	if (!v) {
		strbuf_release(&h.b);
		errno = ENOMEM;
		return NULL;
	}
	put_text(&h, v);
	free(v);
	return end(&h);
}

/* A display name (RFC 5322 3.2.5 phrase): atoms as they are, a quoted-string when it has
 * other characters, encoded words when it has non-ASCII or would not fit a line. */
static void put_phrase(struct hbuf *h, const char *name, bool eight_bit)
{
	size_t n = strlen(name), quoted = 2;
	bool atoms = true;
	char *q, *o;

	for (size_t i = 0; i < n; i++) {
		atoms &= name[i] == ' ' || is_atext((unsigned char)name[i]);
		quoted += 1 + (name[i] == '"' || name[i] == '\\');
	}
	if (eight_bit || memmem(name, n, "=?", 2) || quoted + h->field_len + 2 > MAIL_LINE_MAX) {
		put_encoded(h, name, n);
		return;
	}
	if (atoms) {
		put_text(h, name);
		return;
	}
	q = o = malloc(quoted);
	if (!q) {
		h->b.oom = true;
		return;
	}
	*o++ = '"';
	for (size_t i = 0; i < n; i++) {
		if (name[i] == '"' || name[i] == '\\')
			*o++ = '\\';
		*o++ = name[i];
	}
	*o++ = '"';
	token(h, q, quoted);
	free(q);
}

char *mail_header_addr(const char *field, const char *name, const char *addr)
{
	struct hbuf h;
	bool eight_bit = false;
	char *v = NULL, *angle;

	if (!mail_addr_spec_ok(addr)) {
		errno = EINVAL;
		return NULL;
	}
	if (begin(&h, field))
		return NULL;
	if (name && !(v = clean(name, &eight_bit))) {
		strbuf_release(&h.b);
		errno = ENOMEM;
		return NULL;
	}
	if (!v || !*v) {
		token(&h, addr, strlen(addr));
		free(v);
		return end(&h);
	}
	put_phrase(&h, v, eight_bit);
	free(v);
	if (asprintf(&angle, "<%s>", addr) < 0) {
		strbuf_release(&h.b);
		errno = ENOMEM;
		return NULL;
	}
	token(&h, angle, strlen(angle));
	free(angle);
	return end(&h);
}

/* s as a dot-atom of at most max characters: other characters become '-', a '.' that would
 * start, end or double one too. */
static void atomize(struct hbuf *h, const char *s, size_t max)
{
	size_t n = strlen(s) < max ? strlen(s) : max;

	if (!n)
		put(h, "-", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool dot_ok = c == '.' && i && i + 1 < n && s[i - 1] != '.';

		put(h, is_atext(c) || dot_ok ? (const char *)&c : "-", 1);
	}
}

char *mail_header_msgid(const char *field, const char *left, const char *right)
{
	struct hbuf h;
	size_t max;

	if (begin(&h, field))
		return NULL;
	/* One token, never folded: each side gets half of what a line leaves. */
	max = (MAIL_LINE_MAX - h.field_len - 5) / 2;
	put(&h, " <", 2);
	atomize(&h, left, max);
	put(&h, "@", 1);
	atomize(&h, right, max);
	put(&h, ">", 1);
	return end(&h);
}

int mail_addr_parse(const char *s, struct mail_addr *out, char *err, size_t errlen)
{
	static const char expect[] = "expected one address, 'Name <local@domain>' or "
				     "'local@domain' (quote a name that has , ; : @ < > or \")";
	const char *b = s, *e = s + strlen(s), *lt = NULL, *ctl = mail_find_ctl(s);
	bool quote = false;
	char *name = NULL, *addr = NULL;

	*out = (struct mail_addr){0};
	if (ctl) {
		/* Not echoed: the value would carry its line break into the message. */
		snprintf(err, errlen, "a control character (0x%02x, byte %zu) is not allowed",
			 (unsigned char)*ctl, (size_t)(ctl - s) + 1);
		return -1;
	}
	while (*b == ' ')
		b++;
	while (e > b && e[-1] == ' ')
		e--;
	/* The '<' that opens the angle-addr: the first one outside a quoted name. */
	for (const char *p = b; p < e && !lt; p++) {
		if (quote && *p == '\\' && p + 1 < e)
			p++;
		else if (*p == '"')
			quote = !quote;
		else if (!quote && *p == '<')
			lt = p;
	}
	if (lt) {
		const char *nb = b, *ne = lt;

		if (e[-1] != '>')
			goto bad;
		while (ne > nb && ne[-1] == ' ')
			ne--;
		addr = strndup(lt + 1, (size_t)(e - 1 - (lt + 1)));
		name = malloc((size_t)(ne - nb) + 1);
		if (!addr || !name)
			goto nomem;
		if (ne - nb >= 2 && *nb == '"' && ne[-1] == '"') {
			char *o = name;

			for (const char *p = nb + 1; p < ne - 1; p++) {
				if (*p == '"')
					goto bad; /* "a" "b": not one quoted-string */
				if (*p == '\\')
					p++;
				*o++ = *p;
			}
			*o = '\0';
		} else {
			memcpy(name, nb, (size_t)(ne - nb));
			name[ne - nb] = '\0';
			if (strpbrk(name, ",;:<>@\"\\"))
				goto bad;
		}
	} else {
		addr = strndup(b, (size_t)(e - b));
		name = strdup("");
		if (!addr || !name)
			goto nomem;
	}
	if (!mail_addr_spec_ok(addr))
		goto bad;
	out->name = name;
	out->addr = addr;
	return 0;
nomem:
	free(name);
	free(addr);
	snprintf(err, errlen, "out of memory");
	return -1;
bad:
	free(name);
	free(addr);
	snprintf(err, errlen, "'%s': %s", s, expect);
	return -1;
}

void mail_addr_free(struct mail_addr *a)
{
	free(a->name);
	free(a->addr);
	*a = (struct mail_addr){0};
}

/* --- mbox --- */

/* The whole append in one buffer: what the old end needs (sep), the From_ line, the message
 * with mboxrd quoting (every line that is ">"* then "From " gets one more '>'), a blank line.
 * NULL on ENOMEM. */
static char *mboxrd(const char *sep, const char *msg, size_t len, size_t *out_len)
{
	struct hbuf h = {0};
	char from[80];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(from, sizeof(from), "From scalebench@localhost %a %b %e %H:%M:%S %Y\n", &tm);
	put(&h, sep, strlen(sep));
	put(&h, from, strlen(from));
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(msg + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (msg + i)) + 1 : len - i, k = i;

		while (k < i + l && msg[k] == '>')
			k++;
		if (i + l - k >= 5 && !memcmp(msg + k, "From ", 5))
			put(&h, ">", 1);
		put(&h, msg + i, l);
		i += l;
	}
	if (len && msg[len - 1] != '\n')
		put(&h, "\n", 1);
	put(&h, "\n", 1);
	if (h.b.oom) {
		strbuf_release(&h.b);
		errno = ENOMEM;
		return NULL;
	}
	*out_len = h.b.len;
	return h.b.buf;
}

static bool past(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline->tv_sec ||
	       (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

static void nap(void)
{
	struct timespec t = {0, 50 * 1000 * 1000};

	nanosleep(&t, NULL);
}

/* The fcntl write lock on the whole file, polled (as mutt does) rather than F_SETLKW, so a
 * reader that never lets go costs a clear error, not a hang.  0, or -1 with errno
 * (ETIMEDOUT when another process held it until the deadline). */
static int lock_fcntl(int fd, const struct timespec *deadline)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};

	while (fcntl(fd, F_SETLK, &fl)) {
		if (errno != EACCES && errno != EAGAIN && errno != EINTR)
			return -1;
		if (past(deadline)) {
			errno = ETIMEDOUT;
			return -1;
		}
		nap();
	}
	return 0;
}

/* One try at the dotlock: 1 taken, 0 skipped (the directory is not ours to write: the fcntl
 * lock still holds), -1 with errno (EEXIST: someone else's, not stale).  A dotlock older than
 * MAIL_DOTLOCK_STALE_S was left by a writer that died: it is removed.  Two of our writers
 * never race on that, as they already hold the fcntl lock. */
static int dotlock_try(const char *lock)
{
	int fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	struct stat st;

	if (fd >= 0) {
		/* Its content is only for a human wondering who holds it. */
		(void)dprintf(fd, "%ld\n", (long)getpid());
		close(fd);
		return 1;
	}
	if (errno == EACCES || errno == EPERM || errno == EROFS)
		return 0;
	if (errno != EEXIST)
		return -1;
	if (!lstat(lock, &st) && time(NULL) - st.st_mtime > MAIL_DOTLOCK_STALE_S &&
	    !unlink(lock))
		return dotlock_try(lock);
	errno = EEXIST;
	return -1;
}

static int pwrite_all(int fd, const char *p, size_t n, off_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = EIO;
			return -1;
		}
		p += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

/* What goes before the From_ line so it starts after a blank line: the file's last two
 * bytes decide. */
static int separator(int fd, off_t size, const char **sep)
{
	char tail[2];
	size_t n = size >= 2 ? 2 : (size_t)size;
	ssize_t got = n ? pread(fd, tail, n, size - (off_t)n) : 0;

	if (got != (ssize_t)n) {
		if (got >= 0)
			errno = EIO;
		return -1;
	}
	if (!n || (n == 1 && tail[0] == '\n') || (tail[0] == '\n' && tail[1] == '\n'))
		*sep = "";
	else if (tail[n - 1] == '\n')
		*sep = "\n";
	else
		*sep = "\n\n";
	return 0;
}

int mail_mbox_append(const char *path, const char *msg, size_t len, int lock_timeout_s, char *err,
		      size_t errlen)
{
	char *lock = NULL, *buf = NULL;
	const char *sep, *what = NULL;
	struct timespec deadline;
	sigset_t held, old;
	struct stat st;
	size_t blen = 0;
	int fd, e = 0, dot = 0;

	sigemptyset(&held);
	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGTERM);
	sigaddset(&held, SIGHUP);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += lock_timeout_s;
	if (asprintf(&lock, "%s.lock", path) < 0) {
		lock = NULL;
		e = ENOMEM;
		goto out;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		e = errno;
		goto out;
	}
	if (fstat(fd, &st)) {
		e = errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		e = EINVAL;
		what = "not a regular file";
		goto out_close;
	}
	if (lock_fcntl(fd, &deadline)) {
		e = errno;
		what = e == ETIMEDOUT ? "another process holds its fcntl lock" : "its fcntl lock";
		goto out_close;
	}
	/* Signals held from the dotlock's creation to its removal: an interrupt then would leave
	 * it behind, or half a message. */
	for (;;) {
		pthread_sigmask(SIG_BLOCK, &held, &old);
		dot = dotlock_try(lock);
		if (dot >= 0)
			break;
		e = errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (e != EEXIST || past(&deadline)) {
			e = e == EEXIST ? ETIMEDOUT : e;
			what = e == ETIMEDOUT ? "another process holds its dotlock" : "its dotlock";
			goto out_close;
		}
		e = 0;
		nap();
	}
	/* The size now, under the locks: what another writer appended before counts. */
	if (fstat(fd, &st) || separator(fd, st.st_size, &sep)) {
		e = errno;
		goto out_unlock;
	}
	buf = mboxrd(sep, msg, len, &blen);
	if (!buf) {
		e = errno;
		goto out_unlock;
	}
	if (pwrite_all(fd, buf, blen, st.st_size) || fsync(fd)) {
		e = errno;
		/* All or nothing: the part that reached the file goes. */
		if (ftruncate(fd, st.st_size) || fsync(fd))
			what = "and truncating it back to its old size failed";
	}
out_unlock:
	if (dot == 1)
		unlink(lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
out_close:
	close(fd);
out:
	if (e == ETIMEDOUT && what && strstr(what, "holds"))
		snprintf(err, errlen, "cannot append to %s: still locked after %d s (%s%s%s)", path,
			 lock_timeout_s, what, strstr(what, "dotlock") ? " " : "",
			 strstr(what, "dotlock") ? lock : "");
	else if (e && what && strstr(what, "dotlock"))
		snprintf(err, errlen, "cannot append to %s: %s (%s %s)", path, strerror(e), what,
			 lock);
	else if (e)
		snprintf(err, errlen, "cannot append to %s: %s%s%s%s", path, strerror(e),
			 what ? " (" : "", what ? what : "", what ? ")" : "");
	free(buf);
	free(lock);
	errno = e;
	return e ? -1 : 0;
}
