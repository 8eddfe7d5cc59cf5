/* UTF-8 well-formedness, the one check the JSON writer, the mail header writer and the terminal
 * escaper share. */
#ifndef SCALEBENCH_UTF8_H
#define SCALEBENCH_UTF8_H

#include <stddef.h>

/* The length (1 to 4) of the well-formed UTF-8 sequence at s, of at most n bytes, or 0: overlong
 * forms, surrogates and code points past U+10FFFF are not well-formed (Unicode 3.9, table 3-7).
 * The bytes are checked in order and the first bad one stops it, so a NUL-terminated string may
 * pass n = SIZE_MAX: its NUL is never a continuation byte. */
size_t utf8_seq_len(const unsigned char *s, size_t n);

/* The first byte of the NUL-terminated s that does not begin a well-formed sequence, or NULL
 * when s is UTF-8 throughout (what JSON, and so jansson's json_string, takes). */
const char *utf8_first_bad(const char *s);

/* 0 when s (may be NULL) is UTF-8 throughout; else -1 with err saying "WHAT: byte 0xNN at N
 * is not UTF-8 text" (N counted from 1): for a value that goes into a JSON or YAML file. */
int utf8_check(const char *what, const char *s, char *err, size_t errlen);

/* A copy of s (malloc'd; NULL when out of memory) with each byte that does not begin a
 * well-formed sequence replaced by U+FFFD, the Unicode replacement character. */
char *utf8_replaced(const char *s);

#endif
