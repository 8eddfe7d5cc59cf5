/* /proc/PID/stat's first fields, which several walks over /proc read (the processes left in a
 * command's group, the children left to a finished run). */
#ifndef SCALEBENCH_PROC_H
#define SCALEBENCH_PROC_H

#include <sys/types.h>

struct proc_stat {
	char state; /* R, S, D, Z, X, ... */
	pid_t ppid, pgrp;
};

/* The fields of /proc/<pid>/stat (pid given as the directory name): 0, or -1 when it is gone or
 * unreadable. */
int proc_stat_read(const char *pid, struct proc_stat *st);

#endif
