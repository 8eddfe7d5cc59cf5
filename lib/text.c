#include "text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s that is not a control character (C1 included),
 * or 0: overlong forms, surrogates and code points past U+10FFFF are not valid. */
static size_t printable_seq(const unsigned char *s)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
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

/* Writes the escaped form of s to out when out is not NULL; returns its length. */
static size_t escape_into(const char *s, char *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0;

	while (*p) {
		size_t n = printable_seq(p);
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

char *text_escape(const char *s)
{
	size_t len = escape_into(s, NULL);
	char *out = malloc(len + 1);

	if (!out)
		return NULL;
	escape_into(s, out);
	out[len] = '\0';
	return out;
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
