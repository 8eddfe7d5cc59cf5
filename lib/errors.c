#include "errors.h"
#include "text.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *command;
/* Set and read by whichever thread draws or says: a message from a monitor thread may come
 * while the sampler redraws. */
static _Atomic bool progress;

void sb_progress_shown(bool shown)
{
	progress = shown;
}

void sb_set_command(const char *name)
{
	command = name;
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
	/* Messages quote labels, stat names and paths from results trees and job files: one
	 * holding ESC ("\x1b[2J") would drive the terminal, a CR overwrite the line.  Escaped as
	 * text.h escapes every name on its way to a terminal, the message's own lines kept. */
	safe = text_escape_message(msg);
	if (progress) {
		fputs("\r\033[K", stdout);
		fflush(stdout);
	}
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
