/* The monitor registry, generated from the mon_<name> definitions in runner/. */
#include "monitor.h"

#include <string.h>

#define MONITOR(sym) extern const struct monitor sym;
#include "monitors.inc"
#undef MONITOR

#define MONITOR(sym) &sym,
const struct monitor *const monitor_table[] = {
#include "monitors.inc"
    NULL,
};
#undef MONITOR

const struct monitor *monitor_find(const char *name)
{
	for (size_t i = 0; monitor_table[i]; i++)
		if (strcmp(monitor_table[i]->name, name) == 0)
			return monitor_table[i];
	return NULL;
}
