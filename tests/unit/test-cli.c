/*
 * test-cli.c - the verb table is sorted, unique, and every verb has help.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cli.h"

static void test_table_sorted(void **state)
{
	(void)state;
	assert_true(commands_count > 0);
	for (unsigned i = 1; i < commands_count; i++)
		assert_true(strcmp(commands[i - 1].name, commands[i].name) < 0);
	for (unsigned i = 0; i < commands_count; i++) {
		assert_non_null(commands[i].fn);
		assert_true(strlen(commands[i].summary) > 0);
		assert_non_null(strstr(commands[i].usage, "usage: schedfarm"));
		assert_ptr_equal(command_find(commands[i].name), &commands[i]);
	}
	assert_null(command_find("no-such-verb"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_sorted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
