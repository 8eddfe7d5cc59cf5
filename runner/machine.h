/* What the runner records about the machine, and the result-path axes derived from it. */
#ifndef SCALEBENCH_MACHINE_H
#define SCALEBENCH_MACHINE_H

#include <jansson.h>

struct machine {
	char cpu_model[128];
	unsigned sockets; /* packages (hwloc) */
	unsigned cores;	  /* physical cores (hwloc) */
	unsigned threads; /* online CPUs */
	unsigned long long memory_kib;
	char kernel[128]; /* uname -r */
	char arch[65];	  /* uname -m */
	char hostname[128];
	char tbox_group[128]; /* hostname without a trailing -<digits>, as LKP names test boxes */
	char rootfs[128];     /* <ID>-<VERSION_ID>-<arch> from /etc/os-release */
	char kconfig[128];    /* given by the job or the user, else "defconfig" */
	char compiler[64];    /* the kernel's compiler from /proc/version: gcc-12, clang-17 */
};

/* Fill m from the running system; kconfig may be NULL.  Never fails: what can't be read is
 * "unknown". */
void machine_probe(struct machine *m, const char *kconfig);
json_t *machine_json(const struct machine *m);

/* Pure helpers, unit-tested on captured strings. */
void machine_tbox_group(const char *hostname, char *out, size_t len);
void machine_compiler(const char *proc_version, char *out, size_t len);
void machine_rootfs(const char *os_release, const char *arch, char *out, size_t len);

#endif
