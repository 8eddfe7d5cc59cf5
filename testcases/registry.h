/* The testcases scalebench knows: the built-in ones and those of loaded plug-ins. */
#ifndef SCALEBENCH_REGISTRY_H
#define SCALEBENCH_REGISTRY_H

#include "testcase.h"

#include <stdbool.h>
#include <stddef.h>

/* Built-in testcases, sorted by name, NULL-terminated (generated at build time). */
extern const struct testcase *const testcase_table[];

/* Every testcase by name, built-in or plug-in; hidden ones only with SCALEBENCH_SELFTEST=1. */
const struct testcase *testcase_find(const char *name);
bool testcase_selftest_enabled(void);
/* The listed testcase whose name is closest to a mistyped one (lib/text.h's text_close), for
 * "did you mean"; NULL when none is close. */
const char *testcase_suggest(const char *name);
bool testcase_listed(const struct testcase *tc);

/* Load a plug-in shared object.  Returns the number of testcases it added, or -1 with a
 * message naming the file and the reason in err. */
int plugin_load(const char *path, char *err, size_t errlen);
/* Testcases from loaded plug-ins, in load order. */
size_t plugin_count(void);
const struct testcase *plugin_testcase(size_t i);

bool testcase_supports(const struct testcase *tc, enum tc_mode mode);
/* A mode's name into *mode: 0, or -1 when s is neither "process" nor "thread". */
int tc_mode_parse(const char *s, enum tc_mode *mode);
/* "process,thread", "process" or "thread". */
const char *testcase_modes_name(const struct testcase *tc);

/* Where the helper binaries (scalebench-exec-helper, ...) are: beside the binary in the build
 * tree, ../libexec/scalebench relative to it once installed, the configured LIBEXECDIR;
 * SCALEBENCH_HELPER_DIR overrides all three. */
void testcase_helper_dir(char *dir, size_t size);

#endif
