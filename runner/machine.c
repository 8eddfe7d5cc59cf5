#include "machine.h"
#include "../lib/file.h"

#include <ctype.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Far above any real /proc/cpuinfo (some kB per CPU). */
#define PROBE_FILE_MAX (64u << 20)

/* The text of a file the probe reads, malloc'd; NULL (said as "unknown") when unreadable. */
static char *read_text(const char *path)
{
	char *text;

	return file_read(path, PROBE_FILE_MAX, &text, NULL, NULL, 0) ? NULL : text;
}

void machine_tbox_group(const char *hostname, char *out, size_t len)
{
	size_t n = strlen(hostname), end = n;

	/* lkp-skl-4sp1 stays, vm-snb-4G-12 becomes vm-snb-4G: only a -<digits> suffix goes. */
	while (end > 0 && isdigit((unsigned char)hostname[end - 1]))
		end--;
	if (end < n && end > 1 && hostname[end - 1] == '-')
		n = end - 1;
	snprintf(out, len, "%.*s", (int)n, hostname);
}

void machine_compiler(const char *v, char *out, size_t len)
{
	const char *p;
	int major;

	/* "(gcc (Debian 12.2.0-14) 12.2.0, GNU ld ...)" or "gcc version 12.2.0 (...)" or
	 * "(Debian clang version 17.0.6 ...)". */
	if ((p = strstr(v, "clang version ")) && sscanf(p + 14, "%d", &major) == 1) {
		snprintf(out, len, "clang-%d", major);
		return;
	}
	if ((p = strstr(v, "(gcc-")) && sscanf(p + 5, "%d", &major) == 1) {
		snprintf(out, len, "gcc-%d", major); /* Debian: "(gcc-12 (Debian 12.2.0-14) ..." */
		return;
	}
	if ((p = strstr(v, "gcc version ")) && sscanf(p + 12, "%d", &major) == 1) {
		snprintf(out, len, "gcc-%d", major);
		return;
	}
	if ((p = strstr(v, "(gcc ")) || (p = strstr(v, "gcc ("))) {
		/* The version is the first number after the closing parenthesis of the
		 * vendor string, before the next comma. */
		const char *close = strchr(p + 1, ')');
		const char *q = close ? close + 1 : p;

		while (*q && !isdigit((unsigned char)*q) && *q != ',')
			q++;
		if (sscanf(q, "%d", &major) == 1) {
			snprintf(out, len, "gcc-%d", major);
			return;
		}
	}
	snprintf(out, len, "unknown");
}

static void os_release_value(const char *text, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	const char *p = text;

	out[0] = '\0';
	while (p && *p) {
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			const char *v = p + klen + 1;
			size_t n = strcspn(v, "\n");

			if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
				v++;
				n -= 2;
			}
			snprintf(out, len, "%.*s", (int)n, v);
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

void machine_rootfs(const char *os_release, const char *arch, char *out, size_t len)
{
	char id[64], version[64];

	os_release_value(os_release ? os_release : "", "ID", id, sizeof(id));
	os_release_value(os_release ? os_release : "", "VERSION_ID", version, sizeof(version));
	if (!id[0])
		snprintf(id, sizeof(id), "unknown");
	if (version[0])
		snprintf(out, len, "%s-%s-%s", id, version, arch);
	else
		snprintf(out, len, "%s-%s", id, arch);
}

static void count_topology(struct machine *m)
{
	hwloc_topology_t topo;
	int cores = 0, packages = 0;

	if (hwloc_topology_init(&topo) == 0) {
		if (hwloc_topology_load(topo) == 0) {
			cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
			packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
		}
		hwloc_topology_destroy(topo);
	}
	m->cores = cores > 0 ? (unsigned)cores : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	m->sockets = packages > 0 ? (unsigned)packages : 1;
}

void machine_probe(struct machine *m, const char *kconfig)
{
	struct utsname u;
	const char *p;
	char *text;

	memset(m, 0, sizeof(*m));
	snprintf(m->cpu_model, sizeof(m->cpu_model), "unknown");
	text = read_text("/proc/cpuinfo");
	if (text && (p = strstr(text, "model name"))) {
		p = strchr(p, ':');
		if (p) {
			p += 1 + strspn(p + 1, " \t");
			snprintf(m->cpu_model, sizeof(m->cpu_model), "%.*s", (int)strcspn(p, "\n"),
				 p);
		}
	}
	free(text);
	m->threads = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	count_topology(m);
	text = read_text("/proc/meminfo");
	if (text && (p = strstr(text, "MemTotal:")))
		m->memory_kib = strtoull(p + 9, NULL, 10);
	free(text);
	if (uname(&u) == 0) {
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
		snprintf(m->arch, sizeof(m->arch), "%s", u.machine);
	}
	if (gethostname(m->hostname, sizeof(m->hostname) - 1) || !m->hostname[0])
		snprintf(m->hostname, sizeof(m->hostname), "localhost");
	machine_tbox_group(m->hostname, m->tbox_group, sizeof(m->tbox_group));
	text = read_text("/etc/os-release");
	machine_rootfs(text, m->arch, m->rootfs, sizeof(m->rootfs));
	free(text);
	snprintf(m->kconfig, sizeof(m->kconfig), "%s", kconfig && *kconfig ? kconfig : "defconfig");
	text = read_text("/proc/version");
	if (text)
		machine_compiler(text, m->compiler, sizeof(m->compiler));
	else
		snprintf(m->compiler, sizeof(m->compiler), "unknown");
	free(text);
}

json_t *machine_json(const struct machine *m)
{
	return json_pack("{s:s, s:i, s:i, s:i, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s}",
			 "cpu_model", m->cpu_model, "sockets", (int)m->sockets, "cores",
			 (int)m->cores, "threads", (int)m->threads, "memory_kib",
			 (json_int_t)m->memory_kib, "kernel", m->kernel, "arch", m->arch,
			 "hostname", m->hostname, "tbox_group", m->tbox_group, "rootfs", m->rootfs,
			 "kconfig", m->kconfig, "compiler", m->compiler);
}
