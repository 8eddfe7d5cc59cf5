/* Built-in testcases come from build/gen/testcases.inc, which the Makefile generates from the
 * `const struct testcase tc_<name>` definitions in testcases/: adding a testcase is adding
 * its file.  Plug-ins are loaded with dlopen and checked before any of their code runs. */
#include "registry.h"
#include "../lib/text.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TESTCASE(sym) extern const struct testcase sym;
#include "testcases.inc"
#undef TESTCASE

#define TESTCASE(sym) &sym,
const struct testcase *const testcase_table[] = {
#include "testcases.inc"
    NULL,
};
#undef TESTCASE

#define MAX_PLUGIN_TESTCASES 256

static const struct testcase *plugin_tcs[MAX_PLUGIN_TESTCASES];
static size_t nr_plugin_tcs;

bool testcase_selftest_enabled(void)
{
	const char *v = getenv("SCALEBENCH_SELFTEST");

	return v && strcmp(v, "1") == 0;
}

bool testcase_listed(const struct testcase *tc)
{
	return !(tc->flags & TC_HIDDEN);
}

int tc_mode_parse(const char *s, enum tc_mode *mode)
{
	if (s && !strcmp(s, "process"))
		*mode = TC_MODE_PROCESS;
	else if (s && !strcmp(s, "thread"))
		*mode = TC_MODE_THREAD;
	else
		return -1;
	return 0;
}

bool testcase_supports(const struct testcase *tc, enum tc_mode mode)
{
	if (mode == TC_MODE_PROCESS)
		return !(tc->flags & TC_THREAD_ONLY);
	return !(tc->flags & TC_PROCESS_ONLY);
}

const char *testcase_modes_name(const struct testcase *tc)
{
	if (tc->flags & TC_PROCESS_ONLY)
		return "process";
	if (tc->flags & TC_THREAD_ONLY)
		return "thread";
	return "process,thread";
}

size_t plugin_count(void)
{
	return nr_plugin_tcs;
}

const struct testcase *plugin_testcase(size_t i)
{
	return i < nr_plugin_tcs ? plugin_tcs[i] : NULL;
}

const struct testcase *testcase_find(const char *name)
{
	/* A plug-in's testcase wins over a built-in one of the same name: that is what the
	 * user loaded it for. */
	for (size_t i = 0; i < nr_plugin_tcs; i++)
		if (strcmp(plugin_tcs[i]->name, name) == 0)
			return plugin_tcs[i];
	for (size_t i = 0; testcase_table[i]; i++) {
		const struct testcase *tc = testcase_table[i];

		if (strcmp(tc->name, name) == 0) {
			if ((tc->flags & TC_HIDDEN) && !testcase_selftest_enabled())
				return NULL;
			return tc;
		}
	}
	return NULL;
}

const char *testcase_suggest(const char *name)
{
	struct text_closest c = TEXT_CLOSEST_INIT(name);

	for (size_t i = 0; i < nr_plugin_tcs; i++)
		if (testcase_listed(plugin_tcs[i]))
			text_closest_offer(&c, plugin_tcs[i]->name);
	for (size_t i = 0; testcase_table[i]; i++)
		if (testcase_listed(testcase_table[i]))
			text_closest_offer(&c, testcase_table[i]->name);
	return c.best;
}

static bool valid_name(const char *s)
{
	if (!s || !*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' || *s == '.'))
			return false;
	return true;
}

int plugin_load(const char *path, char *err, size_t errlen)
{
	const struct testcase *const *list;
	const unsigned *abi;
	void *handle;
	size_t added = 0;

	/* dlopen searches the library path for a bare name; a plug-in is a file. */
	if (!strchr(path, '/')) {
		snprintf(err, errlen, "plug-in '%s': give a path (./%s), not a library name", path,
			 path);
		return -1;
	}
	if (access(path, R_OK)) {
		snprintf(err, errlen, "plug-in '%s': %s", path, strerror(errno));
		return -1;
	}
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		snprintf(err, errlen, "plug-in '%s' does not load: %s", path, dlerror());
		return -1;
	}
	abi = dlsym(handle, "scalebench_plugin_abi");
	list = dlsym(handle, "scalebench_plugin_testcases");
	if (!abi || !list) {
		snprintf(
		    err, errlen,
		    "plug-in '%s' has no %s: expected a SCALEBENCH_PLUGIN(...) line listing its "
		    "testcases",
		    path, abi ? "scalebench_plugin_testcases" : "scalebench_plugin_abi");
		dlclose(handle);
		return -1;
	}
	if (*abi != SCALEBENCH_TESTCASE_ABI) {
		snprintf(err, errlen,
			 "plug-in '%s' was built for testcase ABI %u, this scalebench has ABI %u: "
			 "rebuild it against this scalebench's <scalebench/testcase.h>",
			 path, *abi, SCALEBENCH_TESTCASE_ABI);
		dlclose(handle);
		return -1;
	}
	for (size_t i = 0; list[i]; i++) {
		const struct testcase *tc = list[i];

		if (!valid_name(tc->name) || !tc->run || !tc->description) {
			snprintf(
			    err, errlen,
			    "plug-in '%s': testcase %zu needs a name ([A-Za-z0-9_.-], at most 64 "
			    "characters), a description and a run function",
			    path, i);
			dlclose(handle);
			nr_plugin_tcs -= added;
			return -1;
		}
		if (nr_plugin_tcs == MAX_PLUGIN_TESTCASES) {
			snprintf(err, errlen, "plug-in '%s': more than %d plug-in testcases", path,
				 MAX_PLUGIN_TESTCASES);
			dlclose(handle);
			nr_plugin_tcs -= added;
			return -1;
		}
		plugin_tcs[nr_plugin_tcs++] = tc;
		added++;
	}
	if (!added) {
		snprintf(err, errlen, "plug-in '%s' lists no testcase", path);
		dlclose(handle);
		return -1;
	}
	/* The handle stays open for the life of the process: its descriptors are in use. */
	return (int)added;
}

#ifndef SCALEBENCH_LIBEXECDIR
#define SCALEBENCH_LIBEXECDIR "/usr/local/libexec/scalebench"
#endif

static bool has_helper(const char *dir)
{
	char probe[PATH_MAX + 32];

	snprintf(probe, sizeof(probe), "%s/scalebench-exec-helper", dir);
	return access(probe, X_OK) == 0;
}

/* The helper binaries live beside the binary in the build tree, or in ../libexec/scalebench
 * relative to it once installed (so an installed tree can be moved), or in the configured
 * LIBEXECDIR; SCALEBENCH_HELPER_DIR overrides all three. */
void testcase_helper_dir(char *dir, size_t size)
{
	const char *env = getenv("SCALEBENCH_HELPER_DIR");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(dir, size, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if (snprintf(dir, size, "%s", exe) < (int)size && has_helper(dir))
				return;
			if (snprintf(dir, size, "%s/../libexec/scalebench", exe) < (int)size &&
			    has_helper(dir))
				return;
		}
	}
	snprintf(dir, size, "%s", SCALEBENCH_LIBEXECDIR);
}
