/* Text read from a results tree or a plug-in (stat names, commit labels, path axes,
 * descriptions) on its way to a terminal.  A name holding a newline would split a table row
 * and one holding ESC would drive the terminal ("\x1b[2J" clears it): control characters
 * (below 0x20, DEL, and U+0080..U+009F, which some terminals read as ESC sequences too) are
 * written as \n, \t, \r or \xNN, and bytes that are not valid UTF-8 as \xNN.  Everything
 * else, valid UTF-8 included, is written as it is.  JSON output needs none of this: its
 * writer escapes strings by itself. */
#ifndef SCALEBENCH_TEXT_H
#define SCALEBENCH_TEXT_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

/* True when s would be written unchanged. */
bool text_is_clean(const char *s);
/* The escaped form of s (malloc: free it), or NULL when out of memory. */
char *text_escape(const char *s);
/* The same for a message of several lines (sb_error's): newlines and tabs stay, everything
 * else as text_escape.  One rule for every escape on the way to a terminal. */
char *text_escape_message(const char *s);
/* s escaped onto out. */
void fput_escaped(const char *s, FILE *out);
/* For printf arguments: s itself when clean, else its escaped form, kept until the 16th call
 * after it on the same thread ("?" when out of memory), so one printf may take several:
 * printf("%-20s %s\n", text_safe(a), text_safe(b)). */
const char *text_safe(const char *s);

/* s as one word of a POSIX shell command line: in single quotes, each ' as '\''.  For the one
 * string that reaches a shell (a remote command over ssh, a Slurm job script).  malloc'd (free
 * it), NULL when memory runs out. */
char *sh_quote(const char *s);
/* s as one shell word for a command line a user copies: as it is when it is plain (letters,
 * digits, ._+-:@%/,=), else sh_quote's.  malloc'd, NULL when memory runs out. */
char *sh_word(const char *s);

/* Remove trailing newlines and spaces from s, in place (a command's one-line answer). */
void text_chomp(char *s);

/* Whether s is one or more decimal digits and nothing else. */
bool text_is_digits(const char *s);

/* The edit distance of a and b (insertions, deletions, substitutions and swaps of two
 * neighbours, each 1; the optimal string alignment distance), for "did you mean": a typo'd
 * command, option or testcase.  Words over 63 bytes count as far from everything. */
unsigned text_distance(const char *a, const char *b);
/* Whether a word at distance d from a candidate of length len is worth suggesting: a
 * third of the candidate's letters at most, and at least one. */
bool text_close(unsigned d, size_t len);

/* The closest of candidates offered one at a time ("did you mean"): the first at the least
 * distance that text_close finds worth suggesting.  best is NULL while none is; d is its
 * distance (UINT_MAX while none), for a caller that lists ties. */
struct text_closest {
	const char *word;
	const char *best;
	unsigned d;
};
#define TEXT_CLOSEST_INIT(w)                                                                       \
	{                                                                                          \
		.word = (w), .best = NULL, .d = UINT_MAX                                           \
	}
void text_closest_offer(struct text_closest *c, const char *candidate);

#endif
