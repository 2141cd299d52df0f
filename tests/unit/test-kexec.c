/*
 * test-kexec.c - the command lines kexec_switch() runs on a host around
 * the images: the staging folder made fresh by mktemp -d in the folder
 * asked for (the template quoted for the shell), the path it printed
 * taken only when it is that folder's child, and the removal.  The
 * switch itself needs a host (tests/integration/t7016).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "lab/kexec.h"

static void test_stage_cmd(void **state)
{
	struct strbuf cmd = STRBUF_INIT;

	(void)state;
	kexec_stage_cmd(KEXEC_DEFAULT_DIR, &cmd);
	assert_string_equal(cmd.buf, "mktemp -d '/tmp/schedfarm-kexec.XXXXXX'");
	strbuf_reset(&cmd);
	kexec_stage_cmd("/var/tmp/it's $(id)", &cmd);
	assert_string_equal(cmd.buf, "mktemp -d '/var/tmp/it'\\''s "
				     "$(id)/schedfarm-kexec.XXXXXX'");
	strbuf_reset(&cmd);
	kexec_cleanup_cmd("/tmp/schedfarm-kexec.Ab12Cd", &cmd);
	assert_string_equal(cmd.buf, "rm -rf -- '/tmp/schedfarm-kexec.Ab12Cd'");
	strbuf_release(&cmd);
}

static void test_stage_parse(void **state)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	assert_int_equal(kexec_stage_parse("/tmp",
					   "/tmp/schedfarm-kexec.Ab12Cd\n",
					   &path, &err),
			 0);
	assert_string_equal(path.buf, "/tmp/schedfarm-kexec.Ab12Cd");
	assert_int_equal(
		kexec_stage_parse("/var/tmp",
				  "/var/tmp/schedfarm-kexec.0123456789", &path,
				  &err),
		0);
	assert_string_equal(path.buf, "/var/tmp/schedfarm-kexec.0123456789");
	/* anything else is not used in a command line */
	assert_int_equal(kexec_stage_parse("/tmp", "", &path, &err), -1);
	assert_int_equal(path.len, 0);
	assert_non_null(strstr(err.buf, "mktemp -d printed no folder"));
	assert_int_equal(
		kexec_stage_parse("/tmp", "/tmp/schedfarm-kexec", &path, &err),
		-1);
	assert_int_equal(kexec_stage_parse("/tmp", "/tmp/schedfarm-kexec.Ab12",
					   &path, &err),
			 -1);
	assert_int_equal(kexec_stage_parse("/tmp",
					   "/tmp/schedfarm-kexec.Ab12Cd\nx\n",
					   &path, &err),
			 -1);
	assert_int_equal(kexec_stage_parse("/tmp",
					   "/tmp/schedfarm-kexec.Ab12Cd/../..",
					   &path, &err),
			 -1);
	assert_int_equal(kexec_stage_parse("/tmp",
					   "/tmp/schedfarm-kexec.Ab 2Cd; rm",
					   &path, &err),
			 -1);
	assert_int_equal(kexec_stage_parse("/tmp",
					   "/var/schedfarm-kexec.Ab12Cd", &path,
					   &err),
			 -1);
	assert_int_equal(kexec_stage_parse("/tmp",
					   "/tmpx/schedfarm-kexec.Ab12Cd",
					   &path, &err),
			 -1);
	assert_int_equal(
		kexec_stage_parse("/tmp", "/tmp/other.Ab12Cd", &path, &err),
		-1);
	strbuf_release(&path);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stage_cmd),
		cmocka_unit_test(test_stage_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
