#include "proc.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int proc_stat_read(const char *pid, struct proc_stat *st)
{
	char path[300], buf[512], *p;
	int fd, ppid, pgrp;
	ssize_t n;

	if (snprintf(path, sizeof(path), "/proc/%s/stat", pid) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) state ppid pgrp ...": comm may hold anything, so after its last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d %d", &st->state, &ppid, &pgrp) != 3)
		return -1;
	st->ppid = (pid_t)ppid;
	st->pgrp = (pid_t)pgrp;
	return 0;
}
