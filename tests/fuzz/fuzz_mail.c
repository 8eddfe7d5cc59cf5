/* The mail header writer: arbitrary bytes as a display name, an address and a subject (the
 * input split at its first two NUL bytes), through every header function and the address
 * parser.  Every header written must be one header: printable ASCII lines ending in LF, every
 * line after the first a folded one (starting with a space, not blank), none over 998
 * characters; an encoded word at most 75 (and "=?" anywhere else only in a Message-ID).
 * Corpus: tests/fuzz/corpus/mail.
 * Build: clang -fsanitize=fuzzer,address,undefined tests/fuzz/fuzz_mail.c lib/mail.c */
#include "../../lib/mail.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *why, const char *field, const char *h)
{
	fprintf(stderr, "fuzz_mail: %s header: %s\n---\n%s---\n", field, why, h ? h : "(null)");
	abort();
}

static void check(const char *field, char *h)
{
	size_t flen = strlen(field), len;

	if (!h)
		return;
	len = strlen(h);
	if (strncmp(h, field, flen) || h[flen] != ':')
		die("does not start with its field name", field, h);
	if (!len || h[len - 1] != '\n')
		die("does not end in a line feed", field, h);
	for (const char *l = h; *l;) {
		size_t n = strcspn(l, "\n");

		if (n > MAIL_LINE_MAX)
			die("a line over 998 characters", field, h);
		if (l != h && (l[0] != ' ' || strspn(l, " ") == n))
			die("a line break that is not folding (a new header, or a blank line)", field,
			    h);
		for (size_t i = 0; i < n; i++)
			if (l[i] < 32 || l[i] > 126)
				die("a control or non-ASCII character", field, h);
		l += n + (l[n] == '\n');
	}
	/* In a msg-id "=?" is plain atext, read as it is. */
	for (const char *w = strcmp(field, "Message-ID") ? strstr(h, "=?UTF-8?Q?") : NULL; w;
	     w = strstr(w + 1, "=?UTF-8?Q?")) {
		const char *e = strstr(w + 10, "?=");

		if (!e || e + 2 - w > 75)
			die("an encoded word unterminated or over 75 characters", field, h);
	}
	free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 3), *name, *addr, *subject;
	struct mail_addr a;
	char err[512];

	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = in[size + 1] = in[size + 2] = '\0';
	name = in;
	addr = name + strlen(name) + 1;
	subject = addr + strlen(addr) + 1;
	if (subject > in + size + 2)
		subject = in + size + 2;

	check("Subject", mail_header_text("Subject", subject));
	check("Subject", mail_header_text("Subject", name));
	check("To", mail_header_addr("To", name, addr));
	check("To", mail_header_addr("To", name, "robot@example.org"));
	check("From", mail_header_addr("From", subject, "a@b"));
	check("Message-ID", mail_header_msgid("Message-ID", name, subject));
	/* Whatever the parser accepts is one address the writer can write. */
	if (!mail_addr_parse(name, &a, err, sizeof(err))) {
		char *h = mail_header_addr("To", a.name, a.addr);

		if (!h || !mail_addr_spec_ok(a.addr) || mail_find_ctl(a.name))
			die("a parsed address the writer refuses", "To", h);
		check("To", h);
		mail_addr_free(&a);
	}
	free(in);
	return 0;
}
