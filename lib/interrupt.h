/* SIGINT and SIGTERM as a flag, for a command that must clean up before it ends: with a
 * handler installed, child_run (lib/run_command.h) ends the running child's group and returns
 * instead of letting the signal kill us mid-write, and the command removes its temp files,
 * says what is left and exits 128+N.  A signal we were started ignoring (nohup, a shell's
 * background job) stays ignored. */
#ifndef SCALEBENCH_INTERRUPT_H
#define SCALEBENCH_INTERRUPT_H

#include <signal.h>

/* The signal caught (SIGINT or SIGTERM), 0 until one is. */
extern volatile sig_atomic_t interrupt_caught;

/* Install the handler for SIGINT and SIGTERM (once; later calls do nothing). */
void interrupt_catch(void);

/* The handler itself, for code that installs it with its own flags or restores the old
 * disposition afterwards (bisect, the counter core): it sets interrupt_caught to the signal.
 * Every part of scalebench that stops on SIGINT or SIGTERM reads this one flag. */
void interrupt_handler(int sig);

#endif
