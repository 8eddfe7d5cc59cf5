/* Stat families: what the first dotted component of a stat name says about it.  One list, in
 * the store because it is part of the contract between a run and its readers: the runner asks
 * it which keys of an LKP job name monitors, the analyzer asks it how to treat a run whose
 * meta.json does not declare its families (runs written before it did). */
#ifndef SCALEBENCH_FAMILIES_H
#define SCALEBENCH_FAMILIES_H

#include <stdbool.h>
#include <stddef.h>

/* Whether name (a whole family, "proc-vmstat") is one of LKP's monitors, those scalebench
 * implements and those it does not. */
bool family_is_lkp_monitor(const char *family);

/* The same for the family of a stat name ("proc-vmstat.pgfault"). */
bool stat_family_is_lkp_monitor(const char *stat);

/* Whether a family holds failures, not measurements: stderr (the runner's failure stats),
 * dmesg and kmsg (kernel warnings), last_state (LKP's). */
bool family_is_failure(const char *family);
/* The same for the family of a stat name ("dmesg.WARNING:at_..."). */
bool stat_family_is_failure(const char *stat);

/* The stat a failure message stands for, LKP style: stderr.<message> with spaces and ':'
 * turned to '_', and what varies from run to run of the same fault left out, so a failure
 * has one signature whichever copy hit it: each parenthesized part (a pid or tid, the
 * signal's name) and a copy's number ("copy 3 of 8 (thread 77) killed by signal 11" is
 * stderr.copy_killed_by_signal_11). */
void failure_stat_name(const char *failure, char *out, size_t len);

#endif
