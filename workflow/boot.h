/* Prepare, reboot, wait until commit C is up: one boot of the machine the runs go to, for a
 * batch of runs (--runs-per-boot).  A bisection's step today, and what a nightly loop would
 * call too: the state (the commands, the target, what was prepared and booted last) is in
 * struct bisect, each step an event of its log (bisect_log.c). */
#ifndef SCALEBENCH_WORKFLOW_BOOT_H
#define SCALEBENCH_WORKFLOW_BOOT_H

#include <stdbool.h>

struct bisect;

/* Reboots happen: --reboot, or a target (then `ssh TARGET reboot` by default). */
bool boot_reboots(const struct bisect *b);
/* Boot sha for a batch of runs: prepare, reboot, boot check; once more when it does not come
 * up.  0 booted, 1 skip (logged), -1 error, SB_EXIT_INTERRUPTED.  Without a reboot: prepare only
 * (check out and prepare sha unless it was prepared last). */
int boot_commit(struct bisect *b, const char *sha);

#endif
