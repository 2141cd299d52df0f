/*
 * test-dynlib.c - libraries loaded on first use (controller/dynlib.c):
 * the functions of a library that is there, typed through __typeof__ as
 * the wrappers do; a library that is not there and a function a library
 * lacks fail with the name, the package and no slot left set.  The
 * libraries the farm loads this way (libvirt, libcurl) are loaded for real
 * by the suite's boot and mail tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "cleanup.h"
#include "dynlib.h"

static void test_loads_and_calls(void **state)
{
	struct {
		__typeof__(cos) *cos;
		__typeof__(ldexp) *ldexp;
	} m = { NULL, NULL };
	const struct dynlib_sym syms[] = {
		{ "cos", (void **)&m.cos },
		{ "ldexp", (void **)&m.ldexp },
	};
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(
		dynlib_load("libm.so.6", "libc6", syms, ARRAY_SIZE(syms), &err),
		0);
	assert_int_equal(err.len, 0);
	assert_non_null(m.cos);
	assert_true(m.cos(0.0) == 1.0);
	assert_true(m.ldexp(3.0, 4) == 48.0);
	/* Again: the same functions. */
	m.cos = NULL;
	assert_int_equal(dynlib_load("libm.so.6", "libc6", syms, 1, &err), 0);
	assert_true(m.cos(0.0) == 1.0);
	strbuf_release(&err);
}

static void test_missing(void **state)
{
	void *a = NULL, *b = NULL;
	const struct dynlib_sym syms[] = {
		{ "cos", &a },
		{ "no_such_function_here", &b },
	};
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(dynlib_load("libschedfarm-none.so.9", "nothing", syms,
				     ARRAY_SIZE(syms), &err),
			 -1);
	assert_non_null(strstr(err.buf, "cannot load libschedfarm-none.so.9 "
					"(package nothing)"));
	assert_null(a);
	strbuf_reset(&err);
	assert_int_equal(
		dynlib_load("libm.so.6", "libc6", syms, ARRAY_SIZE(syms), &err),
		-1);
	assert_non_null(strstr(err.buf, "libm.so.6 has no function "
					"no_such_function_here"));
	/* Nothing half set. */
	assert_null(a);
	assert_null(b);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads_and_calls),
		cmocka_unit_test(test_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
