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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lab/curl.h"
#include "lab/kind_redfish.h"
#include "lab/telnet.h"
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
/* unit_path()'s buffers rotate: the paths a target keeps live here. */
static char cert_pem[PATH_MAX], bmc_password[PATH_MAX];
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
 * console on console_port (0: none) and dir/machine as its machine; wait
 * until it listens. */
static void mock_start(struct mock *m, const char *tag, int console_port,
		       const char *machine)
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
	strvec_pushl(&m->cp.args, "--", unit_path(dir, machine), (char *)NULL);
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
	snprintf(cert_pem, sizeof(cert_pem), "%s/cert.pem", dir);
	snprintf(bmc_password, sizeof(bmc_password), "%s/bmc-password", dir);
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
	mock_start(&bmc, "bmc", CONSOLE_PORT, "machine.sh");
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
	t->password_file = bmc_password;
	t->ca_file = cert_pem;
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
	mock_start(&plain, "plain", 0, "machine.sh");
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

/* A TCP port on 127.0.0.1 that was free a moment ago. */
static int free_port(void)
{
	struct sockaddr_in a = { 0 };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	assert_true(fd >= 0);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* The console machine: on $CONSOLE_PORT, to each connection, telnet
 * option requests and a subnegotiation, a line (with an escaped 0xff and
 * a CR NUL), and what the client answered noted in replies. */
static const char console_py[] =
	"import os, socket\n"
	"s = socket.socket()\n"
	"s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
	"s.bind(('127.0.0.1', int(os.environ['CONSOLE_PORT'])))\n"
	"s.listen(4)\n"
	"while True:\n"
	"    c, _ = s.accept()\n"
	"    c.sendall(b'\\xff\\xfd\\x01\\xff\\xfb\\x03\\xff\\xfa\\x18\\x01'\n"
	"              b'\\xff\\xf0console ' + os.environ['BOOT'].encode()\n"
	"              + b' \\xff\\xff\\r\\x00\\n')\n"
	"    r = c.recv(64)\n"
	"    open('replies', 'ab').write(r)\n";

#define CONSOLE_LINE "console disk \xff\r\n"

/* Wait until file holds needle (10 s at most). */
static int file_has(const char *file, const char *needle)
{
	struct strbuf t = STRBUF_INIT;
	int64_t dl = deadline_in(10000);
	int found = 0;

	while (!found && deadline_left(dl) > 0) {
		strbuf_reset(&t);
		if (strbuf_read_file(&t, file, 1 << 16) >= 0 &&
		    memmem(t.buf, t.len, needle, strlen(needle)))
			found = 1;
		else
			sleep_ms(100);
	}
	strbuf_release(&t);
	return found;
}

static void test_console_capture(void **state)
{
	struct redfish_target t;
	struct redfish rf;
	struct strbuf err = STRBUF_INIT, host = STRBUF_INIT, none = STRBUF_INIT,
		      log = STRBUF_INIT;
	struct telnet_capture *cap = NULL;
	struct mock cons;
	int port = 0, reopened = 0, r = -1;
	int64_t dl;

	(void)state;
	if (!have_tools)
		skip();
	unit_write(dir, "console.py", console_py);
	unit_write(dir, "console.sh", "#!/bin/sh\nexec python3 console.py\n");
	chmod(unit_path(dir, "console.sh"), 0755);
	mock_start(&cons, "cons", free_port(), "console.sh");
	target_of(&t, &cons);
	open_or_fail(&rf, &t);
	assert_int_equal(redfish_console(&rf, &host, &port, &none, &err), 0);
	assert_true(port > 0);
	assert_int_equal(redfish_power_set(&rf, REDFISH_POWER_ON, NULL, &err),
			 0);
	/* The machine listens once it has started. */
	for (dl = deadline_in(10000); r < 0 && deadline_left(dl) > 0;) {
		strbuf_reset(&err);
		r = telnet_capture_start(host.buf, port,
					 unit_path(dir, "console.log"), 1000,
					 &cap, &err);
		if (r < 0)
			sleep_ms(100);
	}
	if (r < 0)
		fail_msg("telnet_capture_start: %s", err.buf);
	assert_true(file_has(unit_path(dir, "console.log"), CONSOLE_LINE));
	/* Every option refused: WONT ECHO, DONT SUPPRESS-GO-AHEAD. */
	assert_true(file_has(unit_path(dir, "replies"),
			     "\xff\xfc\x01\xff\xfe\x03"));
	assert_int_equal(telnet_capture_check(cap, &reopened, &err), 0);
	assert_int_equal(reopened, 0);

	/* A restart drops the connection; the check connects again. */
	if (redfish_power_cycle(&rf, &err) < 0)
		fail_msg("power cycle: %s", err.buf);
	for (dl = deadline_in(10000); !reopened && deadline_left(dl) > 0;) {
		strbuf_reset(&err);
		telnet_capture_check(cap, &reopened, &err);
		if (!reopened)
			sleep_ms(100);
	}
	assert_int_equal(reopened, 1);
	assert_true(file_has(unit_path(dir, "console.log"),
			     CONSOLE_LINE CONSOLE_LINE));
	telnet_capture_stop(cap);
	assert_true(strbuf_read_file(&log, unit_path(dir, "console.log"),
				     4096) >= 0);
	assert_int_equal(log.len, 2 * strlen(CONSOLE_LINE));
	strbuf_reset(&err);
	if (redfish_power_set(&rf, REDFISH_POWER_OFF, NULL, &err) < 0)
		fail_msg("power off: %s", err.buf);

	/* Nobody listening: a clear error. */
	strbuf_reset(&err);
	assert_int_equal(telnet_capture_start(host.buf, port,
					      unit_path(dir, "console.log"),
					      1000, &cap, &err),
			 -1);
	assert_null(cap);
	assert_non_null(strstr(err.buf, "Connection refused"));
	redfish_close(&rf);
	mock_stop(&cons);
	strbuf_release(&err);
	strbuf_release(&host);
	strbuf_release(&none);
	strbuf_release(&log);
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
		cmocka_unit_test(test_console_capture),
		cmocka_unit_test(test_wrong_password),
		cmocka_unit_test(test_bad_certificate),
		cmocka_unit_test(test_server_error),
		cmocka_unit_test(test_not_https),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
