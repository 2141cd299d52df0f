/*
 * test-host-kind.c - the table of host kinds: every kind complete for
 * what it says it is (a kind that boots has its boot hooks and method),
 * lookups, the printed lists, and the names handed to store/ and plan/
 * (common/kind_names.h) agreeing with the table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kind_names.h"
#include "lab/host_kind.h"
#include "store/hosts.h"

/* A kind that boots supplies every hook the boot driver calls. */
static void test_kinds_complete(void **state)
{
	size_t n;
	const struct host_kind *const *k = host_kind_all(&n);

	(void)state;
	assert_true(n >= 4);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(k[i]->name);
		assert_ptr_equal(host_kind_find(k[i]->name), k[i]);
		if (!k[i]->boots) {
			assert_null(k[i]->power_on);
			continue;
		}
		assert_non_null(k[i]->boot_method);
		assert_non_null(k[i]->boot_prepare);
		assert_non_null(k[i]->power_on);
		assert_non_null(k[i]->power_off);
		assert_false(k[i]->local);
		assert_false(k[i]->contact_at_add);
	}
	assert_null(host_kind_find("docker"));
	assert_null(host_kind_find(NULL));
	assert_true(host_kind_is_local("local"));
	assert_false(host_kind_is_local("ssh"));
	assert_false(host_kind_is_local("imported"));
}

/* The lists as the table gives them, "a, b or c" (built here from
 * host_kind_all(), so that a new kind needs no change to this test). */
static void expect_list(struct strbuf *out, const char *last_sep,
			int booting_only)
{
	size_t n, m = 0, total = 0;
	const struct host_kind *const *k = host_kind_all(&n);

	for (size_t i = 0; i < n; i++)
		total += !booting_only || k[i]->boots;
	for (size_t i = 0; i < n; i++) {
		if (booting_only && !k[i]->boots)
			continue;
		if (m)
			strbuf_addstr(out, m + 1 == total ? last_sep : ", ");
		strbuf_addstr(out, k[i]->name);
		m++;
	}
}

static void test_names(void **state)
{
	struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;

	(void)state;
	host_kind_names(&sb, " or ", 0);
	expect_list(&want, " or ", 0);
	assert_string_equal(sb.buf, want.buf);
	/* The four kinds the farm started with, in that order. */
	assert_int_equal(strncmp(sb.buf, "local, ssh, libvirt", 19), 0);
	strbuf_reset(&sb);
	strbuf_reset(&want);
	host_kind_names(&sb, " and ", 1);
	expect_list(&want, " and ", 1);
	assert_string_equal(sb.buf, want.buf);
	strbuf_release(&sb);
	strbuf_release(&want);
}

/* What store/ and plan/ see is the table, once published. */
static void test_published(void **state)
{
	struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;

	(void)state;
	kind_names_set(NULL, NULL);
	assert_false(kind_name_known("ssh"));
	assert_false(hosts_kind_boots("libvirt"));
	host_kind_publish();
	assert_true(kind_name_known("ssh"));
	assert_false(kind_name_known("imported"));
	assert_true(hosts_kind_boots("libvirt"));
	assert_true(hosts_kind_boots("ipmi"));
	assert_true(hosts_kind_boots("redfish"));
	assert_false(hosts_kind_boots("ssh"));
	assert_false(hosts_kind_boots(NULL));
	kind_names_join(&sb, kind_names_booting(), " or ");
	expect_list(&want, " or ", 1);
	assert_string_equal(sb.buf, want.buf);
	strbuf_reset(&sb);
	strbuf_reset(&want);
	kind_names_join(&sb, kind_names_all(), " or ");
	expect_list(&want, " or ", 0);
	assert_string_equal(sb.buf, want.buf);
	strbuf_release(&sb);
	strbuf_release(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds_complete),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_published),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
