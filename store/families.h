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

#endif
