/* Email plumbing: RFC 5322 header lines that no value can break out of, and appending a
 * message to an mbox all or nothing, under the locks mail tools take. */
#ifndef SCALEBENCH_MAIL_H
#define SCALEBENCH_MAIL_H

#include <stdbool.h>
#include <stddef.h>

/* RFC 5322 2.1.1: lines SHOULD be at most 78 characters and MUST be at most 998. */
#define MAIL_LINE_SOFT 78
#define MAIL_LINE_MAX  998

/* The From: of a mail when none is given (report, nightly, bisect --mbox). */
#define MAIL_FROM_DEFAULT "scalebench robot <scalebench@localhost>"

/* One mailbox: a display name (may be "") and an addr-spec. */
struct mail_addr {
	char *name;
	char *addr;
};

/* The first control character of s (a byte below 0x20, or DEL), or NULL: a value given on the
 * command line that has one is refused before it gets near a header. */
const char *mail_find_ctl(const char *s);

/* Whether addr is an addr-spec as written here: local@domain, both dot-atoms of printable
 * ASCII (no spaces, quotes, commas, brackets or control characters), at most 64 and 255
 * characters (RFC 5321's limits), and no "=?" (valid, but what a lenient reader takes for an
 * RFC 2047 encoded word). */
bool mail_addr_spec_ok(const char *addr);

/* One address as a user writes it: "Name <local@domain>", "\"Doe, John\" <local@domain>",
 * "<local@domain>" or "local@domain".  A name outside quotes may not hold , ; : < > @ " or \
 * (two addresses, or one that means something else).  0 with *out filled (free it with
 * mail_addr_free), or -1 with err saying what was expected. */
int mail_addr_parse(const char *s, struct mail_addr *out, char *err, size_t errlen);
void mail_addr_free(struct mail_addr *a);

/* The header lines, "Field: ...\n" (LF line ends, as an mbox and sendmail -t take them),
 * malloc'd, or NULL with errno set (ENOMEM; EINVAL for a field name that is not printable
 * ASCII without ':' and spaces, or an address that is not mail_addr_spec_ok).
 * Values are made safe, not refused: every control character (CR, LF, TAB, ...) becomes a
 * space, bytes that are not UTF-8 become '?', runs of spaces one space, ends trimmed.
 * Folding is at spaces before 78 columns; a word that needs encoding (non-ASCII, or looking
 * like an encoded word "=?", or too long for one line) becomes RFC 2047 Q encoded words of
 * at most 75 characters, never splitting a UTF-8 character; no line is ever over 998.
 *
 * mail_header_text: an unstructured field (Subject). */
char *mail_header_text(const char *field, const char *value);
/* mail_header_addr: one mailbox (From, To): "name <addr>", the name as atoms when it is
 * plain words, a quoted-string ("Doe, John") when it has specials, encoded words when it has
 * non-ASCII; addr alone when name is NULL or empty after cleaning. */
char *mail_header_addr(const char *field, const char *name, const char *addr);
/* mail_header_msgid: "<left@right>", each side reduced to a dot-atom (other characters
 * become '-'). */
char *mail_header_msgid(const char *field, const char *left, const char *right);

/* The body of a message (after its blank line), made for a text/plain 8bit part: nothing in
 * it is a control character but tab and newline (no bare CR for a lenient reader to break a
 * line at, no ESC), and it is UTF-8.  The first byte that is not so, or NULL. */
const char *mail_body_bad(const char *body, size_t len);

/* One header a message must have, in its place: name, and the whole header as written
 * ("Name: value\n", folded lines included) when it must be exactly that, else NULL (any
 * value, on lines of printable ASCII of at most 998, continued with a space or tab). */
struct mail_want {
	const char *name;
	const char *exact;
};
/* Whether msg (len bytes, LF line ends) is a message as scalebench writes one: no NUL, exactly
 * the headers of want (nwant of them, in that order; nothing else: no Bcc, no second To), a
 * blank line, and a body that mail_body_bad finds nothing in.  0, or -1 with err saying what
 * is wrong (the header by name, or the body's first bad byte by offset). */
int mail_message_check(const char *msg, size_t len, const struct mail_want *want, size_t nwant,
		       char *err, size_t errlen);

/* Append msg (headers, blank line, body) to the mbox at path as one mboxrd message: a From_
 * line, ">From " quoting of body lines, a blank line after; a blank line before it when the
 * file does not already end in one (so it never glues onto a partial line).
 * Locks as mutt does: an fcntl write lock on the file, then the dotlock PATH.lock (created
 * O_EXCL; one older than MAIL_DOTLOCK_STALE_S is taken to be left by a dead writer and
 * removed; skipped where the directory is not writable).  Both are waited for up to
 * lock_timeout_s in all (MAIL_LOCK_TIMEOUT_S is what report uses).  All or nothing: the message is written after the old end and synced;
 * on any failure the file is truncated back to its old size.  SIGINT, SIGTERM and SIGHUP are
 * held while the locks are taken, so an interrupt cannot leave a half message or a dotlock.
 * 0, or -1 with errno set and err "cannot append to PATH: <the error that stopped it>". */
#define MAIL_LOCK_TIMEOUT_S  60
#define MAIL_DOTLOCK_STALE_S 300
int mail_mbox_append(const char *path, const char *msg, size_t len, int lock_timeout_s, char *err,
		      size_t errlen);

#endif
