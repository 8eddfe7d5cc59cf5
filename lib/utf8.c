#include "utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (!n)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

const char *utf8_first_bad(const char *s)
{
	size_t n;

	for (const unsigned char *p = (const unsigned char *)s; *p; p += n)
		if (!(n = utf8_seq_len(p, SIZE_MAX)))
			return (const char *)p;
	return NULL;
}

int utf8_check(const char *what, const char *s, char *err, size_t errlen)
{
	const char *at = s ? utf8_first_bad(s) : NULL;

	if (!at)
		return 0;
	snprintf(err, errlen, "%s: byte 0x%02x at %zu is not UTF-8 text", what, (unsigned char)*at,
		 (size_t)(at - s) + 1);
	return -1;
}

char *utf8_replaced(const char *s)
{
	size_t len = strlen(s), k = 0, n;
	char *out = malloc(3 * len + 1); /* a byte becomes 3 at most */

	if (!out)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p += n ? n : 1) {
		n = utf8_seq_len(p, SIZE_MAX);
		if (n) {
			memcpy(out + k, p, n);
			k += n;
		} else {
			memcpy(out + k, "\xef\xbf\xbd", 3);
			k += 3;
		}
	}
	out[k] = '\0';
	return out;
}
