/* store/sweep: atomic jobs grouped by test and mode, each sweep in task-count order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../store/sweep.h"

#include <stdlib.h>
#include <string.h>

static void test_grouping(void **state)
{
	/* A job as the runner expands it: modes and task counts interleaved, one task count
	 * repeated (two atomic jobs differing in another parameter). */
	const struct sweep_item items[] = {
	    {"page_fault3", "process", 4, 0}, {"page_fault3", "thread", 4, 1},
	    {"page_fault3", "process", 1, 2}, {"exec1", "process", 2, 3},
	    {"page_fault3", "thread", 1, 4},  {"page_fault3", "process", 2, 5},
	    {"page_fault3", "process", 1, 6}, {"exec1", "process", 1, 7},
	};
	struct sweep *s;
	ssize_t n = sweep_group(items, sizeof(items) / sizeof(items[0]), &s);

	(void)state;
	assert_int_equal(n, 3);
	/* sweeps in the order their first item comes */
	assert_string_equal(s[0].test, "page_fault3");
	assert_string_equal(s[0].mode, "process");
	assert_string_equal(s[1].mode, "thread");
	assert_string_equal(s[2].test, "exec1");
	/* ascending nr_task; equal task counts as listed */
	assert_int_equal(s[0].n, 4);
	assert_int_equal(s[0].items[0].index, 2);
	assert_int_equal(s[0].items[1].index, 6);
	assert_int_equal(s[0].items[2].index, 5);
	assert_int_equal(s[0].items[3].index, 0);
	assert_int_equal(s[1].n, 2);
	assert_int_equal(s[1].items[0].nr_task, 1);
	assert_int_equal(s[1].items[1].nr_task, 4);
	assert_int_equal(s[2].items[0].index, 7);
	assert_int_equal(s[2].items[1].index, 3);
	sweep_free(s, (size_t)n);
}

static void test_no_mode_and_empty(void **state)
{
	const struct sweep_item items[] = {
	    {"a", NULL, 3, 0}, {"a", "process", 1, 1}, {"a", NULL, 2, 2}, {NULL, NULL, 1, 3}};
	struct sweep *s = (struct sweep *)1;
	ssize_t n;

	(void)state;
	/* NULL is a value of its own: it groups with NULL only */
	n = sweep_group(items, 4, &s);
	assert_int_equal(n, 3);
	assert_null(s[0].mode);
	assert_int_equal(s[0].n, 2);
	assert_int_equal(s[0].items[0].nr_task, 2);
	assert_string_equal(s[1].mode, "process");
	assert_null(s[2].test);
	sweep_free(s, (size_t)n);
	assert_int_equal(sweep_group(items, 0, &s), 0);
	assert_null(s);
	sweep_free(NULL, 0);
}

static void test_many(void **state)
{
	/* No cap: 10,000 task counts in descending order come out ascending. */
	size_t n = 10000;
	struct sweep_item *items = calloc(n, sizeof(*items));
	struct sweep *s;

	(void)state;
	assert_non_null(items);
	for (size_t i = 0; i < n; i++)
		items[i] =
		    (struct sweep_item){"t", i % 2 ? "thread" : "process", (unsigned)(n - i), i};
	assert_int_equal(sweep_group(items, n, &s), 2);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(s[k].n, n / 2);
		for (size_t i = 1; i < s[k].n; i++)
			assert_true(s[k].items[i - 1].nr_task < s[k].items[i].nr_task);
	}
	sweep_free(s, 2);
	free(items);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_grouping),
	    cmocka_unit_test(test_no_mode_and_empty),
	    cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
