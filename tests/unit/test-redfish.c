/*
 * test-redfish.c - the Redfish client (lab/kind_redfish.c) and the HTTPS
 * request under it (lab/curl.c) against the mock BMC
 * tests/lib/redfish-mock.py, which each group starts on loopback with a
 * certificate made here by openssl: power status, on, off and cycle (each
 * idempotent, confirmed), the one-time PXE override as the machine sees
 * it (a stand-in script that writes its BOOT and sleeps), the console
 * offered or not, a wrong password, a password file others may read, a
 * certificate the client does not trust, a BMC answering 503, and what
 * is not an https:// URL.
 *
 * A unit test rather than an integration script: no verb reaches these
 * functions until the redfish kind is in the host-kind table (then
 * tests/integration/t7019-boot-redfish.sh boots a guest through them),
 * and this way the test calls them directly, with their errors.  It
 * skips when python3 or openssl is missing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab/curl.h"
#include "lab/kind_redfish.h"
#include "run-command.h"
#include "time-util.h"
#include "unit-files.h"

#define CONSOLE_PORT 2323

struct mock {
	struct child_process cp;
	char url[64];
};

static char dir[] = "/tmp/test-redfish.XXXXXX";
static struct mock bmc; /* with a console */
static int have_tools;

/* tests/lib/redfish-mock.py from the tree (cwd, or 4 above the binary). */
static void mock_path(struct strbuf *out)
{
	char exe[PATH_MAX];
	ssize_t n;

	strbuf_reset(out);
	/* Absolute: the mock runs in the scratch folder. */
	if (realpath("tests/lib/redfish-mock.py", exe)) {
		strbuf_addstr(out, exe);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	for (int up = 0; up < 4; up++)
		*strrchr(exe, '/') = '\0';
	strbuf_addf(out, "%s/tests/lib/redfish-mock.py", exe);
}

/* Start a mock BMC in dir (its files named by tag), with a telnet
 * console on console_port (0: none); wait until it listens. */
static void mock_start(struct mock *m, const char *tag, int console_port)
{
	struct strbuf script = STRBUF_INIT, err = STRBUF_INIT,
		      port = STRBUF_INIT, arg = STRBUF_INIT;
	int64_t dl = deadline_in(60000);

	mock_path(&script);
	child_process_init(&m->cp);
	strvec_pushl(&m->cp.args, "python3", script.buf, "--cert",
		     unit_path(dir, "cert.pem"), "--key",
		     unit_path(dir, "key.pem"), "--user", "admin",
		     "--password-file", unit_path(dir, "bmc-password"),
		     "--fail-file", unit_path(dir, "fail"), "--kill-wait", "2",
		     (char *)NULL);
	strbuf_addf(&arg, "%s.port", tag);
	strvec_pushl(&m->cp.args, "--port-file", unit_path(dir, arg.buf),
		     (char *)NULL);
	strbuf_reset(&arg);
	strbuf_addf(&arg, "%s.log", tag);
	strvec_pushl(&m->cp.args, "--log", unit_path(dir, arg.buf),
		     (char *)NULL);
	if (console_port) {
		strbuf_reset(&arg);
		strbuf_addf(&arg, "%d", console_port);
		strvec_pushl(&m->cp.args, "--console-port", arg.buf,
			     (char *)NULL);
	}
	strvec_pushl(&m->cp.args, "--", unit_path(dir, "machine.sh"),
		     (char *)NULL);
	m->cp.dir = dir;
	m->cp.quiet = 1;
	if (start_command(&m->cp, &err) < 0)
		fail_msg("cannot start the mock BMC: %s", err.buf);
	strbuf_reset(&arg);
	strbuf_addf(&arg, "%s.port", tag);
	while (strbuf_read_file(&port, unit_path(dir, arg.buf), 64) < 0) {
		if (!command_running(&m->cp) || deadline_left(dl) <= 0)
			fail_msg("the mock BMC did not start");
		sleep_ms(100);
	}
	strbuf_trim(&port);
	snprintf(m->url, sizeof(m->url), "https://127.0.0.1:%s", port.buf);
	strbuf_release(&script);
	strbuf_release(&err);
	strbuf_release(&port);
	strbuf_release(&arg);
}

static void mock_stop(struct mock *m)
{
	struct strbuf err = STRBUF_INIT;

	stop_command(&m->cp, 5000, &err);
	child_process_clear(&m->cp);
	strbuf_release(&err);
}

static void run_or_fail(const char *const *argv)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	if (run_capture(argv, 120000, &out, &err) < 0)
		fail_msg("%s: %s", argv[0], err.buf);
	strbuf_release(&out);
	strbuf_release(&err);
}

/* A self-signed certificate for 127.0.0.1 as NAME.pem and its key. */
static void make_cert(const char *name)
{
	struct strbuf crt = STRBUF_INIT, key = STRBUF_INIT;
	const char *argv[] = { "openssl",  "req",
			       "-x509",	   "-newkey",
			       "rsa:2048", "-nodes",
			       "-days",	   "2",
			       "-subj",	   "/CN=127.0.0.1",
			       "-addext",  "subjectAltName=IP:127.0.0.1",
			       "-keyout",  NULL,
			       "-out",	   NULL,
			       NULL };

	strbuf_addf(&crt, "%s/%s.pem", dir, name);
	strbuf_addf(&key, "%s/%s-key.pem", dir, name);
	argv[13] = key.buf;
	argv[15] = crt.buf;
	run_or_fail(argv);
	strbuf_release(&crt);
	strbuf_release(&key);
}

static int group_setup(void **state)
{
	(void)state;
	have_tools = program_exists("python3") && program_exists("openssl");
	if (!have_tools)
		return 0;
	if (!mkdtemp(dir))
		return -1;
	make_cert("cert");
	rename(unit_path(dir, "cert-key.pem"), unit_path(dir, "key.pem"));
	make_cert("other");
	unit_write(dir, "bmc-password", "s3cret\n");
	unit_write(dir, "wrong-password", "guess\n");
	chmod(unit_path(dir, "bmc-password"), 0600);
	chmod(unit_path(dir, "wrong-password"), 0600);
	/* The machine: says how it booted, then runs until it is ended. */
	unit_write(dir, "machine.sh",
		   "#!/bin/sh\necho \"$BOOT\" >> boots\nexec sleep 600\n");
	chmod(unit_path(dir, "machine.sh"), 0755);
	mock_start(&bmc, "bmc", CONSOLE_PORT);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (!have_tools)
		return 0;
	mock_stop(&bmc);
	return unit_rm_rf(dir);
}

static void target_of(struct redfish_target *t, const struct mock *m)
{
	memset(t, 0, sizeof(*t));
	t->url = m->url;
	t->user = "admin";
	t->password_file = unit_path(dir, "bmc-password");
	t->ca_file = unit_path(dir, "cert.pem");
	t->confirm_timeout_ms = 20000;
	t->poll_ms = 100;
}

/* The machine's boots, one BOOT per line. */
static void boots(struct strbuf *out)
{
	strbuf_reset(out);
	if (strbuf_read_file(out, unit_path(dir, "boots"), 4096) < 0)
		strbuf_reset(out);
}

static void open_or_fail(struct redfish *rf, const struct redfish_target *t)
{
	struct strbuf err = STRBUF_INIT;

	if (redfish_open(rf, t, &err) < 0)
		fail_msg("redfish_open: %s", err.buf);
	strbuf_release(&err);
}

static void test_power(void **state)
{
	struct redfish_target t;
	struct redfish rf;
	struct strbuf err = STRBUF_INIT, b = STRBUF_INIT;
	enum redfish_power p;
	int changed;

	(void)state;
	if (!have_tools)
		skip();
	target_of(&t, &bmc);
	open_or_fail(&rf, &t);
	assert_string_equal(rf.system.buf, "/redfish/v1/Systems/1");
	assert_int_equal(redfish_power_status(&rf, &p, &err), 0);
	assert_int_equal(p, REDFISH_POWER_OFF);
	assert_int_equal(
		redfish_power_set(&rf, REDFISH_POWER_ON, &changed, &err), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(redfish_power_status(&rf, &p, &err), 0);
	assert_int_equal(p, REDFISH_POWER_ON);
	/* Already on: nothing to do. */
	assert_int_equal(
		redfish_power_set(&rf, REDFISH_POWER_ON, &changed, &err), 0);
	assert_int_equal(changed, 0);
	assert_int_equal(redfish_power_cycle(&rf, &err), 0);
	assert_int_equal(redfish_power_status(&rf, &p, &err), 0);
	assert_int_equal(p, REDFISH_POWER_ON);
	boots(&b);
	assert_string_equal(b.buf, "disk\ndisk\n");
	assert_int_equal(
		redfish_power_set(&rf, REDFISH_POWER_OFF, &changed, &err), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(redfish_power_status(&rf, &p, &err), 0);
	assert_int_equal(p, REDFISH_POWER_OFF);
	assert_int_equal(
		redfish_power_set(&rf, REDFISH_POWER_OFF, &changed, &err), 0);
	assert_int_equal(changed, 0);
	/* Off: a cycle powers it on. */
	assert_int_equal(redfish_power_cycle(&rf, &err), 0);
	assert_int_equal(redfish_power_status(&rf, &p, &err), 0);
	assert_int_equal(p, REDFISH_POWER_ON);
	assert_int_equal(redfish_power_set(&rf, REDFISH_POWER_OFF, NULL, &err),
			 0);
	assert_int_equal(err.len, 0);
	redfish_close(&rf);
	unlink(unit_path(dir, "boots"));
	strbuf_release(&err);
	strbuf_release(&b);
}

static void test_pxe_once(void **state)
{
	struct redfish_target t;
	struct redfish rf;
	struct strbuf err = STRBUF_INIT, b = STRBUF_INIT;

	(void)state;
	if (!have_tools)
		skip();
	target_of(&t, &bmc);
	open_or_fail(&rf, &t);
	unlink(unit_path(dir, "boots"));
	assert_int_equal(redfish_pxe_once(&rf, &err), 0);
	assert_int_equal(redfish_power_cycle(&rf, &err), 0);
	/* Once: the next boot is from the disk again. */
	assert_int_equal(redfish_power_cycle(&rf, &err), 0);
	boots(&b);
	assert_string_equal(b.buf, "pxe\ndisk\n");
	assert_int_equal(redfish_power_set(&rf, REDFISH_POWER_OFF, NULL, &err),
			 0);
	redfish_close(&rf);
	unlink(unit_path(dir, "boots"));
	strbuf_release(&err);
	strbuf_release(&b);
}

static void test_console(void **state)
{
	struct redfish_target t;
	struct redfish rf;
	struct strbuf err = STRBUF_INIT, host = STRBUF_INIT, none = STRBUF_INIT;
	struct mock plain;
	int port = -1;

	(void)state;
	if (!have_tools)
		skip();
	target_of(&t, &bmc);
	open_or_fail(&rf, &t);
	assert_int_equal(redfish_console(&rf, &host, &port, &none, &err), 0);
	assert_string_equal(host.buf, "127.0.0.1");
	assert_int_equal(port, CONSOLE_PORT);
	assert_int_equal(none.len, 0);
	redfish_close(&rf);

	/* A BMC without a console says so. */
	mock_start(&plain, "plain", 0);
	target_of(&t, &plain);
	open_or_fail(&rf, &t);
	strbuf_reset(&host);
	assert_int_equal(redfish_console(&rf, &host, &port, &none, &err), 0);
	assert_int_equal(port, 0);
	assert_non_null(strstr(none.buf, "no telnet serial console"));
	redfish_close(&rf);
	mock_stop(&plain);
	strbuf_release(&err);
	strbuf_release(&host);
	strbuf_release(&none);
}

static void test_wrong_password(void **state)
{
	struct redfish_target t;
	struct redfish rf;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	if (!have_tools)
		skip();
	target_of(&t, &bmc);
	t.password_file = unit_path(dir, "wrong-password");
	assert_int_equal(redfish_open(&rf, &t, &err), -1);
	assert_non_null(strstr(err.buf, "answered 401"));
	assert_non_null(strstr(err.buf, "refused the login"));
	assert_null(strstr(err.buf, "guess"));
	redfish_close(&rf);

	/* A password file others may read is refused before any request. */
	strbuf_reset(&err);
	chmod(unit_path(dir, "wrong-password"), 0644);
	assert_int_equal(redfish_open(&rf, &t, &err), -1);
	assert_non_null(strstr(err.buf, "readable by others"));
	redfish_close(&rf);
	chmod(unit_path(dir, "wrong-password"), 0600);

	strbuf_reset(&err);
	t.user = NULL;
	assert_int_equal(redfish_open(&rf, &t, &err), -1);
	assert_non_null(strstr(err.buf, "needs bmc_user"));
	redfish_close(&rf);
	strbuf_release(&err);
}

static void test_bad_certificate(void **state)
{
	struct redfish_target t;
	struct redfish rf;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	if (!have_tools)
		skip();
	/* Signed by another CA than the one the client trusts. */
	target_of(&t, &bmc);
	t.ca_file = unit_path(dir, "other.pem");
	assert_int_equal(redfish_open(&rf, &t, &err), -1);
	assert_non_null(strstr(err.buf, bmc.url));
	assert_non_null(strstr(err.buf, "certificate"));
	redfish_close(&rf);
	/* The system's CAs do not know the test's. */
	strbuf_reset(&err);
	t.ca_file = NULL;
	assert_int_equal(redfish_open(&rf, &t, &err), -1);
	assert_non_null(strstr(err.buf, "certificate"));
	redfish_close(&rf);
	strbuf_release(&err);
}

static void test_server_error(void **state)
{
	struct redfish_target t;
	struct redfish rf;
	struct strbuf err = STRBUF_INIT;
	enum redfish_power p;

	(void)state;
	if (!have_tools)
		skip();
	target_of(&t, &bmc);
	open_or_fail(&rf, &t);
	unit_write(dir, "fail", "");
	assert_int_equal(redfish_power_status(&rf, &p, &err), -1);
	assert_non_null(strstr(err.buf, "answered 503"));
	assert_non_null(strstr(err.buf, "the BMC is busy"));
	strbuf_reset(&err);
	assert_int_equal(redfish_pxe_once(&rf, &err), -1);
	assert_non_null(strstr(err.buf, "PATCH /redfish/v1/Systems/1 answered "
					"503"));
	unlink(unit_path(dir, "fail"));
	strbuf_reset(&err);
	assert_int_equal(redfish_power_status(&rf, &p, &err), 0);
	redfish_close(&rf);
	strbuf_release(&err);
}

static void test_not_https(void **state)
{
	struct redfish_target t;
	struct redfish rf;
	struct strbuf err = STRBUF_INIT, body = STRBUF_INIT;
	struct https_request rq = { 0 };
	long status = 1;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.url = "http://127.0.0.1:8000";
	assert_int_equal(redfish_open(&rf, &t, &err), -1);
	assert_non_null(strstr(err.buf, "https://HOST[:PORT]"));
	redfish_close(&rf);
	strbuf_reset(&err);
	t.url = "https://user:pw@127.0.0.1";
	assert_int_equal(redfish_open(&rf, &t, &err), -1);
	assert_null(strstr(err.buf, "pw@"));
	redfish_close(&rf);
	strbuf_reset(&err);
	t.url = "https://127.0.0.1:99999";
	assert_int_equal(redfish_open(&rf, &t, &err), -1);
	redfish_close(&rf);

	strbuf_reset(&err);
	rq.method = "GET";
	rq.url = "file:///etc/passwd";
	assert_int_equal(https_request(&rq, &status, &body, &err), -1);
	assert_int_equal(status, 0);
	assert_non_null(strstr(err.buf, "not an https:// URL"));
	assert_int_equal(body.len, 0);
	strbuf_release(&err);
	strbuf_release(&body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_pxe_once),
		cmocka_unit_test(test_console),
		cmocka_unit_test(test_wrong_password),
		cmocka_unit_test(test_bad_certificate),
		cmocka_unit_test(test_server_error),
		cmocka_unit_test(test_not_https),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
