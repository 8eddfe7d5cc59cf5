#include "errors.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *command;

void sb_set_command(const char *name)
{
	command = name;
}

/* Control characters in msg written as \xNN, in place of what they would do to a terminal:
 * messages quote labels, stat names and paths from results trees and job files, and one
 * holding ESC ("\x1b[2J") would drive the terminal, a CR overwrite the line.  Newlines and
 * tabs a message means stay; so does UTF-8, but not the C1 controls (U+0080..U+009F) some
 * terminals read as ESC sequences.  NULL when out of memory. */
static char *defang(const char *msg)
{
	size_t n = strlen(msg);
	char *out = malloc(4 * n + 1), *o = out;

	if (!out)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
		bool c1 = *p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;

		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f || c1) {
			o += sprintf(o, "\\x%02x", c1 ? *++p : *p);
			continue;
		}
		*o++ = (char)*p;
	}
	*o = '\0';
	return out;
}

/* One write per message, so lines of concurrent writers (monitor threads, copies) do not
 * interleave within a line. */
static void say(const char *what, const char *fmt, va_list ap)
{
	char *msg = NULL, *safe;

	if (vasprintf(&msg, fmt, ap) < 0) {
		fprintf(stderr, "scalebench%s%s: %s(message lost: out of memory)\n",
			command ? " " : "", command ? command : "", what);
		return;
	}
	safe = defang(msg);
	fprintf(stderr, "scalebench%s%s: %s%s\n", command ? " " : "", command ? command : "", what,
		safe ? safe : msg);
	free(safe);
	free(msg);
}

void sb_verror(const char *fmt, va_list ap)
{
	say("", fmt, ap);
}

void sb_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
}

void sb_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("note: ", fmt, ap);
	va_end(ap);
}

int sb_close_stdout(void)
{
	/* ferror without a failing flush: an earlier write failed and its errno is gone. */
	bool earlier = ferror(stdout);
	struct stat st;
	int err = 0;

	/* No stdout at all (closed by whoever started us): nothing was meant to arrive. */
	if (fstat(STDOUT_FILENO, &st))
		return 0;
	errno = 0;
	if (fflush(stdout))
		err = errno ? errno : EIO;
	if (fclose(stdout) && !err)
		err = errno ? errno : EIO;
	if (err)
		sb_error("cannot write to standard output: %s", strerror(err));
	else if (earlier)
		sb_error("cannot write to standard output: a write failed");
	return err || earlier ? -1 : 0;
}
