/*
 * test-hosts.c - the health rules of store/hosts.c (host_health_decide),
 * case by case: who is blamed and what the host's health becomes after a
 * boot, a job that could not reach its host, or a lab failure.  The same
 * rules through the database, on a real libvirt guest, are in
 * tests/integration/t7005-host-health-rules.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "store/hosts.h"

#define KNOWN_GOOD 7
#define PATCHED 9

static struct host_health host(const char *health, int64_t aborted)
{
	struct host_health h = { .aborted_in_row = aborted,
				 .known_good_kernel_id = KNOWN_GOOD };

	snprintf(h.health, sizeof(h.health), "%s", health);
	return h;
}

static struct host_verdict see(struct host_health h, int64_t kernel,
			       enum host_outcome what)
{
	struct host_observation o = { .host_id = 1,
				      .kernel_id = kernel,
				      .outcome = what };
	struct host_verdict v;

	host_health_decide(&h, &o, &v);
	return v;
}

/* A patched kernel that never answers on a good host: the kernel's. */
static void test_new_kernel_fails_on_good_host(void **state)
{
	struct host_verdict v = see(host("good", 0), PATCHED, HOST_FAILED);

	(void)state;
	assert_string_equal(v.blame, "kernel");
	assert_string_equal(v.after.health, "good");
	assert_int_equal(v.after.aborted_in_row, 0);
	assert_false(v.changed);
	assert_false(v.on_known_good);
	/* However many times. */
	v = see(v.after, PATCHED, HOST_FAILED);
	assert_string_equal(v.blame, "kernel");
	assert_string_equal(v.after.health, "good");
}

/* The known-good kernel failing twice in a row: the host is bad. */
static void test_known_good_fails_twice(void **state)
{
	struct host_verdict v = see(host("good", 0), KNOWN_GOOD, HOST_FAILED);

	(void)state;
	assert_string_equal(v.blame, "host");
	assert_true(v.on_known_good);
	assert_string_equal(v.after.health, "good");
	assert_int_equal(v.after.aborted_in_row, 1);
	v = see(v.after, KNOWN_GOOD, HOST_FAILED);
	assert_string_equal(v.blame, "host");
	assert_string_equal(v.after.health, "bad");
	assert_int_equal(v.after.aborted_in_row, HOST_ABORTS_TO_BAD);
	assert_true(v.changed);
}

/* A success in between starts the count again. */
static void test_success_resets_count(void **state)
{
	struct host_verdict v = see(host("good", 1), KNOWN_GOOD, HOST_WORKED);

	(void)state;
	assert_string_equal(v.blame, "none");
	assert_int_equal(v.after.aborted_in_row, 0);
	v = see(v.after, KNOWN_GOOD, HOST_FAILED);
	assert_string_equal(v.after.health, "good");
}

/* A host not checked yet cannot blame a new kernel. */
static void test_new_kernel_on_unknown_host(void **state)
{
	struct host_verdict v = see(host("unknown", 0), PATCHED, HOST_FAILED);

	(void)state;
	assert_string_equal(v.blame, "host");
	assert_string_equal(v.after.health, "unknown");
	v = see(v.after, PATCHED, HOST_FAILED);
	assert_string_equal(v.after.health, "bad");
}

/* Hosts that run their own kernel (local, ssh): unreachable twice = bad. */
static void test_own_kernel_unreachable(void **state)
{
	struct host_verdict v = see(host("unknown", 0), 0, HOST_FAILED);

	(void)state;
	assert_string_equal(v.blame, "host");
	assert_false(v.on_known_good);
	assert_string_equal(v.after.health, "unknown");
	v = see(v.after, 0, HOST_FAILED);
	assert_string_equal(v.after.health, "bad");
	/* The same on a good host: its own kernel is never new. */
	v = see(host("good", 1), 0, HOST_FAILED);
	assert_string_equal(v.blame, "host");
	assert_string_equal(v.after.health, "bad");
}

/* Power, BMC, console: the host at once, whatever kernel. */
static void test_lab_failure(void **state)
{
	struct host_verdict v = see(host("good", 0), PATCHED, HOST_LAB_FAILED);

	(void)state;
	assert_string_equal(v.blame, "host");
	assert_string_equal(v.after.health, "bad");
	assert_true(v.changed);
}

/* The check after a failure: a new kernel failed (blamed on it, the host
 * good), then the known-good kernel failed too: the host is quarantined at
 * once, not after HOST_ABORTS_TO_BAD. */
static void test_check_after_failure(void **state)
{
	struct host_verdict v = see(host("good", 0), PATCHED, HOST_FAILED);

	(void)state;
	assert_string_equal(v.blame, "kernel");
	assert_string_equal(v.after.health, "good");
	v = see(v.after, KNOWN_GOOD, HOST_CHECK_FAILED);
	assert_string_equal(v.blame, "host");
	assert_string_equal(v.after.health, "bad");
	assert_true(v.changed);
	/* People's health stays people's. */
	v = see(host("maintenance", 0), KNOWN_GOOD, HOST_CHECK_FAILED);
	assert_string_equal(v.after.health, "maintenance");
}

/* Working makes an unknown host good, and a bad one on its known-good
 * kernel; a new kernel working says nothing for a bad host. */
static void test_worked(void **state)
{
	struct host_verdict v = see(host("unknown", 0), PATCHED, HOST_WORKED);

	(void)state;
	assert_string_equal(v.after.health, "good");
	assert_true(v.changed);
	v = see(host("bad", 2), KNOWN_GOOD, HOST_WORKED);
	assert_string_equal(v.after.health, "good");
	v = see(host("bad", 2), PATCHED, HOST_WORKED);
	assert_string_equal(v.after.health, "bad");
	assert_false(v.changed);
}

/* Health set by people is never overridden by the counts. */
static void test_maintenance_and_retired_stay(void **state)
{
	static const char *const kept[] = { "maintenance", "retired" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct host_verdict v =
			see(host(kept[i], 5), KNOWN_GOOD, HOST_FAILED);

		assert_string_equal(v.after.health, kept[i]);
		v = see(host(kept[i], 0), PATCHED, HOST_LAB_FAILED);
		assert_string_equal(v.after.health, kept[i]);
		v = see(host(kept[i], 0), KNOWN_GOOD, HOST_WORKED);
		assert_string_equal(v.after.health, kept[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_kernel_fails_on_good_host),
		cmocka_unit_test(test_known_good_fails_twice),
		cmocka_unit_test(test_success_resets_count),
		cmocka_unit_test(test_new_kernel_on_unknown_host),
		cmocka_unit_test(test_own_kernel_unreachable),
		cmocka_unit_test(test_lab_failure),
		cmocka_unit_test(test_check_after_failure),
		cmocka_unit_test(test_worked),
		cmocka_unit_test(test_maintenance_and_retired_stay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
