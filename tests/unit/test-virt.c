/*
 * test-virt.c - the libvirt wrapper: domain XML (shape, escaping, refused
 * shapes) and a domain's life on libvirt's test driver (test:///default,
 * no daemon): created paused, resumed, destroyed, orphans by prefix.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "lab/virt.h"
#include "parse.h"

static void spec_2s(struct virt_domain_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->name = "farm-abcd1234-7";
	s->type = "qemu";
	s->sockets = 2;
	s->cores = 2;
	s->threads = 1;
	s->numa_nodes = 2;
	s->memory_mb = 1024;
	s->kernel = "/k/vmlinux";
	s->initrd = "/k/initrd";
	s->cmdline = "console=ttyS0 x='<&>'";
	s->console_log = "/tmp/c.log";
	s->ssh_port = 2222;
}

static void test_xml_shape(void **state)
{
	struct virt_domain_spec s;
	struct strbuf xml = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	spec_2s(&s);
	assert_int_equal(virt_domain_xml(&s, &xml, &err), 0);
	assert_non_null(strstr(xml.buf, "<vcpu placement='static'>4</vcpu>"));
	assert_non_null(strstr(
		xml.buf,
		"<topology sockets='2' dies='1' cores='2' threads='1'/>"));
	assert_non_null(strstr(
		xml.buf, "<cell id='0' cpus='0-1' memory='512' unit='MiB'/>"));
	assert_non_null(strstr(
		xml.buf, "<cell id='1' cpus='2-3' memory='512' unit='MiB'/>"));
	assert_non_null(
		strstr(xml.buf, "<cmdline>console=ttyS0 "
				"x=&#39;&lt;&amp;&gt;&#39;</cmdline>") ||
		strstr(xml.buf, "<cmdline>console=ttyS0 "
				"x=&#x27;&lt;&amp;&gt;&#x27;</cmdline>"));
	assert_non_null(strstr(xml.buf, "append='on'"));
	assert_non_null(strstr(xml.buf, "<panic model='isa'>"));
	assert_non_null(strstr(xml.buf, "<on_crash>destroy</on_crash>"));
	assert_non_null(strstr(xml.buf, "<on_poweroff>destroy</on_poweroff>"));
	assert_non_null(strstr(xml.buf, "<features><acpi/></features>"));
	assert_non_null(
		strstr(xml.buf, "restrict=on,hostfwd=tcp:127.0.0.1:2222-:22"));
	strbuf_release(&xml);
	strbuf_release(&err);
}

static void test_xml_refused(void **state)
{
	struct virt_domain_spec s;
	struct strbuf xml = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	spec_2s(&s);
	s.name = "farm-a'><x";
	assert_int_equal(virt_domain_xml(&s, &xml, &err), -1);
	assert_non_null(strstr(err.buf, "bad domain name"));
	spec_2s(&s);
	s.name = "other-1";
	strbuf_reset(&err);
	assert_int_equal(virt_domain_xml(&s, &xml, &err), -1);
	spec_2s(&s);
	s.numa_nodes = 3; /* 4 vcpus do not split in 3 */
	strbuf_reset(&err);
	assert_int_equal(virt_domain_xml(&s, &xml, &err), -1);
	assert_non_null(strstr(err.buf, "NUMA"));
	spec_2s(&s);
	s.sockets = 0;
	strbuf_reset(&err);
	assert_int_equal(virt_domain_xml(&s, &xml, &err), -1);
	/* The forward's address goes into -netdev: a comma would add
	 * options (another hostfwd, a guestfwd running a command). */
	spec_2s(&s);
	s.ssh_addr = "127.0.0.1:2223-:22,hostfwd=tcp:0.0.0.0";
	strbuf_reset(&err);
	strbuf_reset(&xml);
	assert_int_equal(virt_domain_xml(&s, &xml, &err), -1);
	assert_non_null(strstr(err.buf, "not an IPv4 address"));
	assert_null(strstr(xml.buf, "hostfwd"));
	s.ssh_addr = "127.0.0.1,guestfwd=tcp:10.0.2.100:80-cmd:id";
	assert_int_equal(virt_domain_xml(&s, &xml, &err), -1);
	s.ssh_addr = "localhost";
	assert_int_equal(virt_domain_xml(&s, &xml, &err), -1);
	s.ssh_addr = "127.0.0.2";
	strbuf_reset(&xml);
	assert_int_equal(virt_domain_xml(&s, &xml, &err), 0);
	assert_non_null(strstr(xml.buf, "hostfwd=tcp:127.0.0.2:2222-:22'"));
	assert_int_equal(virt_address_ok("10.0.0.1"), 1);
	assert_int_equal(virt_address_ok("10.0.0.1 "), 0);
	assert_int_equal(virt_address_ok(""), 0);
	/* one unicast address: not every interface, not a group */
	assert_int_equal(virt_address_ok("1.0.0.1"), 1);
	assert_int_equal(virt_address_ok("223.255.255.254"), 1);
	assert_int_equal(virt_address_ok("0.0.0.0"), 0);
	assert_non_null(
		strstr(virt_address_problem("0.0.0.0"), "every interface"));
	assert_int_equal(virt_address_ok("0.1.2.3"), 0);
	assert_int_equal(virt_address_ok("224.0.0.1"), 0);
	assert_int_equal(virt_address_ok("239.255.255.255"), 0);
	assert_non_null(strstr(virt_address_problem("239.1.1.1"), "multicast"));
	assert_int_equal(virt_address_ok("240.0.0.1"), 0);
	assert_int_equal(virt_address_ok("255.255.255.255"), 0);
	assert_non_null(
		strstr(virt_address_problem("255.255.255.255"), "broadcast"));
	assert_int_equal(virt_address_ok("::"), 0);
	assert_int_equal(virt_address_ok("ff02::1"), 0);
	assert_int_equal(virt_address_ok("::ffff:127.0.0.1"), 0);
	assert_null(virt_address_problem("127.0.0.1"));
	s.ssh_addr = "0.0.0.0";
	strbuf_reset(&err);
	assert_int_equal(virt_domain_xml(&s, &xml, &err), -1);
	assert_non_null(strstr(err.buf, "SSH forward's address is in "
					"0.0.0.0/8"));
	strbuf_release(&xml);
	strbuf_release(&err);
}

/* The test driver keeps its state per connection: one connection here. */
static void test_domain_life(void **state)
{
	struct virt_domain_spec s;
	struct virt_conn *c = NULL;
	struct strbuf err = STRBUF_INIT;
	struct strvec names = STRVEC_INIT;

	(void)state;
	spec_2s(&s);
	s.ssh_port = 0; /* the test driver knows no qemu:commandline */
	s.numa_nodes = 1;
	assert_int_equal(virt_open("test:///default", &c, &err), 0);
	assert_int_equal(virt_is_active(c, s.name, &err), 0);
	if (virt_create_paused(c, &s, &err) < 0)
		fail_msg("%s", err.buf);
	assert_int_equal(virt_is_active(c, s.name, &err), 1);
	assert_int_equal(virt_resume(c, s.name, &err), 0);
	/* Creating it again replaces the old one. */
	assert_int_equal(virt_create_paused(c, &s, &err), 0);
	s.name = "farm-other-1";
	assert_int_equal(virt_create_paused(c, &s, &err), 0);
	assert_int_equal(virt_list_prefix(c, "farm-abcd1234-", &names, &err),
			 0);
	assert_int_equal(names.nr, 1);
	assert_string_equal(names.v[0], "farm-abcd1234-7");
	/* Listing destroys nothing. */
	assert_int_equal(virt_is_active(c, "farm-abcd1234-7", &err), 1);
	assert_int_equal(virt_destroy(c, "farm-abcd1234-7", &err), 0);
	assert_int_equal(virt_is_active(c, "farm-other-1", &err), 1);
	assert_int_equal(virt_destroy(c, "farm-other-1", &err), 0);
	assert_int_equal(virt_destroy(c, "farm-other-1", &err),
			 0); /* idempotent */
	assert_int_equal(virt_is_active(c, "farm-other-1", &err), 0);
	virt_close(c);
	strbuf_release(&err);
	strvec_clear(&names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_shape),
		cmocka_unit_test(test_xml_refused),
		cmocka_unit_test(test_domain_life),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
