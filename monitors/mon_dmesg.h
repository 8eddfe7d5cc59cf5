/* The kernel log monitors (dmesg, kmsg): what makes a new kernel message a failure, and the
 * LKP-style id it is counted under. */
#ifndef SCALEBENCH_MON_DMESG_H
#define SCALEBENCH_MON_DMESG_H

#include <stdbool.h>
#include <stddef.h>

/* Is a kernel message of this level (0 emerg .. 7 debug; -1 unknown) a failure: levels 0-4
 * or a known failure text (WARNING:, BUG:, Oops, general protection fault, soft lockup,
 * hung_task, RCU stall, Call Trace, ...), but not the lines of a dump that follow one (stack
 * frames, registers, "Modules linked in:", "---[ end trace"). */
bool dmesg_is_failure(int level, const char *msg);

/* The failure id of one kernel message, as LKP names dmesg stats: prefixes (a /dev/kmsg
 * header, "<4>", "[  12.345678]") stripped, "WARNING: CPU: 3 PID: 12 at" becomes
 * "WARNING: at", a hung task's name and the flags after an Oops' "[#1]" are dropped, function
 * offsets (+0x1a/0x340) removed, numbers, hex values and addresses replaced by '#', spaces
 * between two words become '_' and other spaces go:
 *
 *	"WARNING: CPU: 3 PID: 1234 at mm/page_alloc.c:4567 __alloc_pages+0x1a/0x340"
 *	-> "WARNING:at_mm/page_alloc.c:#__alloc_pages"
 *
 * Writes at most len bytes (NUL included, truncated to fit).  0, or -1 when nothing is left
 * of the line or len is 0. */
int dmesg_normalize(const char *line, char *out, size_t len);

#endif
