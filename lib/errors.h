/* Messages to the user, with the command's prefix added once ("scalebench compare: "), and
 * the check of standard output at exit: a full disk or a closed pipe is an error, not a
 * silent success. */
#ifndef SCALEBENCH_ERRORS_H
#define SCALEBENCH_ERRORS_H

#include <stdarg.h>
#include <stdbool.h>

/* The command being run, named in every message from now on; NULL for "scalebench: ". */
void sb_set_command(const char *name);

/* One line on stderr: "scalebench CMD: <message>". */
void sb_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sb_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* "scalebench CMD: note: <message>": said, and the command goes on. */
void sb_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A progress line is drawn on stdout (a terminal) and redrawn in place ("\r\033[K..."):
 * while shown, each message first clears it, so that no message lands inside it (the next
 * redraw puts it back below the message). */
void sb_progress_shown(bool shown);

/* Flush and close stdout.  0, or -1 after saying on stderr why what was printed did not all
 * arrive (this write or an earlier one failed). */
int sb_close_stdout(void);

#endif
