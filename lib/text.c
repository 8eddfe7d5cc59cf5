#include "text.h"
#include "utf8.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of the well-formed UTF-8 sequence at s that is not a control character (C0, DEL
 * or C1: U+0080..U+009F, encoded 0xc2 0x80..0x9f), or 0. */
static size_t printable_seq(const unsigned char *s)
{
	size_t len = utf8_seq_len(s, SIZE_MAX);

	if (len == 1)
		return s[0] >= 0x20 && s[0] != 0x7f;
	if (len == 2 && s[0] == 0xc2 && s[1] <= 0x9f)
		return 0;
	return len;
}

/* The escape of the byte c that starts no printable sequence, into buf (5 bytes). */
static const char *byte_escape(unsigned char c, char buf[5])
{
	switch (c) {
	case '\n':
		return "\\n";
	case '\t':
		return "\\t";
	case '\r':
		return "\\r";
	default:
		snprintf(buf, 5, "\\x%02x", c);
		return buf;
	}
}

bool text_is_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = printable_seq(p);

		if (!n)
			return false;
		p += n;
	}
	return true;
}

/* Writes the escaped form of s to out when out is not NULL; returns its length.  lines: a
 * newline or tab stays as it is (a message's own lines). */
static size_t escape_into(const char *s, char *out, bool lines)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0;

	while (*p) {
		size_t n = lines && (*p == '\n' || *p == '\t') ? 1 : printable_seq(p);
		char buf[5];
		const char *e = buf;

		if (n) {
			if (out)
				memcpy(out + len, p, n);
			len += n;
			p += n;
			continue;
		}
		e = byte_escape(*p++, buf);
		if (out)
			memcpy(out + len, e, strlen(e));
		len += strlen(e);
	}
	return len;
}

static char *escaped(const char *s, bool lines)
{
	size_t len = escape_into(s, NULL, lines);
	char *out = malloc(len + 1);

	if (!out)
		return NULL;
	escape_into(s, out, lines);
	out[len] = '\0';
	return out;
}

char *text_escape(const char *s)
{
	return escaped(s, false);
}

char *text_escape_message(const char *s)
{
	return escaped(s, true);
}

void fput_escaped(const char *s, FILE *out)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = printable_seq(p);
		char buf[5];

		if (n) {
			fwrite(p, 1, n, out);
			p += n;
		} else {
			fputs(byte_escape(*p++, buf), out);
		}
	}
}

/* Enough for every argument of one printf, and freed as they are reused: the ring never
 * holds more than its 16 strings. */
#define TEXT_SAFE_RING 16

const char *text_safe(const char *s)
{
	static _Thread_local char *ring[TEXT_SAFE_RING];
	static _Thread_local unsigned next;
	char *e;

	if (text_is_clean(s))
		return s;
	e = text_escape(s);
	if (!e)
		return "?";
	free(ring[next]);
	ring[next] = e;
	next = (next + 1) % TEXT_SAFE_RING;
	return e;
}

char *sh_quote(const char *s)
{
	size_t n = 3;
	char *q, *o;

	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	q = malloc(n);
	if (!q)
		return NULL;
	o = q;
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}

char *sh_word(const char *s)
{
	return s[0] && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
				 "._+-:@%/,=") == strlen(s)
		   ? strdup(s)
		   : sh_quote(s);
}

void text_chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

bool text_is_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

unsigned text_distance(const char *a, const char *b)
{
	enum { MAXW = 64 };
	unsigned d[MAXW + 1][MAXW + 1];
	size_t n = strlen(a), m = strlen(b);

	if (n >= MAXW || m >= MAXW)
		return UINT_MAX;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			unsigned v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[n][m];
}

bool text_close(unsigned d, size_t len)
{
	size_t most = len / 3 ? len / 3 : 1;

	return d <= most;
}

void text_closest_offer(struct text_closest *c, const char *candidate)
{
	unsigned d = text_distance(c->word, candidate);

	if (text_close(d, strlen(candidate)) && d < c->d) {
		c->d = d;
		c->best = candidate;
	}
}
