/*
 * test-kcidb.c - the parts of the KCIDB export that need no database:
 * a test path's segments mapped (never dropped), the empty document, the
 * [kcidb] settings (origin, https:// url, url without origin refused,
 * the token file trusted as a password file), and which report URL the
 * mapping uses, and what kcidb-ng's answers to /submit and /status say
 * (the shapes of kcidb-ng's kcidb-restd-rs; doc/KCIDB.md).  The export
 * of a real answer, its checks by a JSON schema
 * and its submission are tests/integration/t5008-export-kcidb.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "report/kcidb.h"

static void check_segment(const char *in, const char *want)
{
	struct strbuf s = STRBUF_INIT;

	kcidb_path_segment(&s, in);
	assert_string_equal(s.buf, want);
	strbuf_release(&s);
}

static void test_path_segment(void **state)
{
	(void)state;
	check_segment("round_trip_us", "round_trip_us");
	check_segment("perf_cpu-migrations", "perf_cpu-migrations");
	/* Every byte KCIDB's paths refuse becomes one '_': mapped, the
	 * name's length kept, nothing dropped. */
	check_segment("lat p99/us.max", "lat_p99_us_max");
	check_segment("a\tb", "a_b");
	check_segment("\xc3\xa9t\xc3\xa9", "__t__");
	check_segment("", "_");
	check_segment(NULL, "_");
}

static void test_empty_document(void **state)
{
	struct strbuf s = STRBUF_INIT;
	struct kcidb_doc d;

	(void)state;
	kcidb_doc_init(&d);
	kcidb_doc_text(&d, &s);
	assert_string_equal(s.buf, "{\"version\":{\"major\":5,\"minor\":3},"
				   "\"checkouts\":[],\"builds\":[],"
				   "\"tests\":[]}\n");
	kcidb_doc_release(&d);
	strbuf_release(&s);
}

/* Parse text as a settings file; 0 or -1, the error in err. */
static int parse(struct farm_config *c, const char *text, struct strbuf *err)
{
	farm_config_init(c);
	strbuf_reset(err);
	return farm_config_parse(c, "k.conf", text, strlen(text), err);
}

static void test_settings(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct farm_config c;

	(void)state;
	assert_int_equal(parse(&c,
			       "[kcidb]\norigin = my_farm_2\n"
			       "url = https://kcidb.example.org/api\n"
			       "token_file = /etc/t\nretry = 30s\n",
			       &err),
			 0);
	assert_string_equal(c.kcidb_origin, "my_farm_2");
	assert_string_equal(c.kcidb_url, "https://kcidb.example.org/api");
	assert_string_equal(c.kcidb_token_file, "/etc/t");
	assert_int_equal(c.kcidb_retry_ms, 30000);
	farm_config_release(&c);

	assert_int_equal(parse(&c, "[kcidb]\norigin = My-Farm\n", &err), -1);
	assert_non_null(strstr(err.buf, "k.conf:2: error: kcidb.origin"));
	assert_non_null(strstr(err.buf, "is not a KCIDB origin"));
	farm_config_release(&c);

	assert_int_equal(
		parse(&c, "[kcidb]\norigin = f\nurl = http://x/\n", &err), -1);
	assert_non_null(strstr(err.buf, "must be https://"));
	farm_config_release(&c);

	/* A token in the URL is refused, and not repeated. */
	assert_int_equal(parse(&c,
			       "[kcidb]\norigin = f\n"
			       "url = https://u:s3cret@x/\n",
			       &err),
			 -1);
	assert_null(strstr(err.buf, "s3cret"));
	farm_config_release(&c);

	assert_int_equal(parse(&c, "[kcidb]\nurl = https://x/\n", &err), -1);
	assert_non_null(strstr(err.buf, "kcidb.url is set without "
					"kcidb.origin"));
	farm_config_release(&c);

	/* Defaults: no export configured, a minute's first retry. */
	assert_int_equal(parse(&c, "", &err), 0);
	assert_null(c.kcidb_origin);
	assert_null(c.kcidb_url);
	assert_int_equal(c.kcidb_retry_ms, 60000);
	farm_config_release(&c);
	strbuf_release(&err);
}

static void test_token_file(void **state)
{
	char dir[] = "/tmp/test-kcidb.XXXXXX", path[64];
	struct strbuf tok = STRBUF_INIT, err = STRBUF_INIT;
	struct farm_config c;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/token", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("tok-123\nsecond line\n", f);
	fclose(f);
	farm_config_init(&c);
	assert_int_equal(farm_config_kcidb_token(&c, &tok, &err), -1);
	assert_non_null(strstr(err.buf, "kcidb.token_file is not set"));
	c.kcidb_token_file = strdup(path);
	assert_int_equal(chmod(path, 0600), 0);
	strbuf_reset(&err);
	assert_int_equal(farm_config_kcidb_token(&c, &tok, &err), 0);
	assert_string_equal(tok.buf, "tok-123");
	/* Readable by others: refused, as a password file is. */
	assert_int_equal(chmod(path, 0644), 0);
	strbuf_reset(&tok);
	assert_int_equal(farm_config_kcidb_token(&c, &tok, &err), -1);
	assert_non_null(strstr(err.buf, "readable by others"));
	farm_config_release(&c);
	unlink(path);
	rmdir(dir);
	strbuf_release(&tok);
	strbuf_release(&err);
}

static void test_opts_urls(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct farm_config c;
	struct kcidb_opts o;
	char dir[] = "/tmp/test-kcidb.XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(dir));
	farm_config_init(&c);
	c.report_dir = strdup(dir);
	assert_int_equal(kcidb_opts_from_config(&c, NULL, &o, &err), -1);
	assert_non_null(strstr(err.buf, "no KCIDB origin"));
	c.kcidb_origin = strdup("farm");
	/* A report only on this machine (file://) names no URL. */
	c.base_url = strdup("file:///srv/report/");
	assert_int_equal(kcidb_opts_from_config(&c, NULL, &o, &err), 0);
	assert_string_equal(o.origin, "farm");
	assert_null(o.base_url);
	assert_null(o.files_dir);
	free(c.base_url);
	c.base_url = strdup("https://farm.example.org/");
	assert_int_equal(kcidb_opts_from_config(&c, "other", &o, &err), 0);
	assert_string_equal(o.origin, "other");
	assert_string_equal(o.base_url, "https://farm.example.org/");
	assert_string_equal(o.files_dir, dir);
	farm_config_release(&c);
	rmdir(dir);
	strbuf_release(&err);
}

/* kcidb_submit_reply() of code and body: its return, the id, the error. */
static void check_submit(long code, const char *body, int want_r,
			 const char *want_id, const char *want_err)
{
	struct strbuf b = STRBUF_INIT, id = STRBUF_INIT, err = STRBUF_INIT;

	strbuf_addstr(&b, body);
	assert_int_equal(kcidb_submit_reply(code, &b, &id, &err), want_r);
	assert_string_equal(id.buf, want_id);
	if (want_err)
		assert_non_null(strstr(err.buf, want_err));
	else
		assert_int_equal(err.len, 0);
	strbuf_release(&b);
	strbuf_release(&id);
	strbuf_release(&err);
}

static void test_submit_reply(void **state)
{
	(void)state;
	check_submit(200,
		     "{\"id\":\"wvTu6myNQOlM7IEWhHJz8WnnE0GTG1yz\",\"status\":"
		     "\"ok\",\"message\":\"Received submission "
		     "wvTu6myNQOlM7IEWhHJz8WnnE0GTG1yz with size 2 bytes\"}",
		     0, "wvTu6myNQOlM7IEWhHJz8WnnE0GTG1yz", NULL);
	/* kcidb-ng's refusals: the message said, retried only for 5xx. */
	check_submit(401,
		     "{\"id\":\"0\",\"status\":\"error\",\"message\":"
		     "\"JWT is required\"}",
		     -2, "", "HTTP 401: JWT is required");
	check_submit(400,
		     "{\"id\":\"0\",\"status\":\"error\",\"message\":"
		     "\"EOF while parsing\"}",
		     -2, "", "HTTP 400: EOF while parsing");
	check_submit(500,
		     "{\"id\":\"0\",\"status\":\"error\",\"message\":"
		     "\"Internal server error\"}",
		     -1, "", "HTTP 500: Internal server error");
	check_submit(502, "<html>Bad Gateway</html>", -1, "",
		     "HTTP 502: <html>Bad Gateway</html>");
	check_submit(429, "", -1, "", "HTTP 429");
	/* A 2xx that is not a submission taken is not one. */
	check_submit(200, "{\"id\":\"abc\"}", -2, "", "not a submission");
	check_submit(200, "{\"id\":\"0\",\"status\":\"ok\"}", -2, "",
		     "not a submission");
	check_submit(200, "{\"id\":17,\"status\":\"ok\"}", -2, "",
		     "not a submission");
	check_submit(200, "{\"id\":\"a/b\",\"status\":\"ok\"}", -2, "",
		     "not a submission");
	check_submit(200, "not json", -2, "", "");
}

/* kcidb_status_reply() of code and body: its return, the state, the
 * error (NULL: none). */
static void check_status(long code, const char *body, int want_r,
			 int want_state, const char *want_err)
{
	struct strbuf b = STRBUF_INIT, err = STRBUF_INIT;
	int st = 7;

	strbuf_addstr(&b, body);
	assert_int_equal(kcidb_status_reply("X1", code, &b, &st, &err), want_r);
	assert_int_equal(st, want_state);
	if (want_err)
		assert_non_null(strstr(err.buf, want_err));
	else
		assert_int_equal(err.len, 0);
	strbuf_release(&b);
	strbuf_release(&err);
}

static void test_status_reply(void **state)
{
	(void)state;
	check_status(200,
		     "{\"id\":\"X1\",\"status\":\"inprogress\",\"message\":"
		     "\"File still in progress\"}",
		     0, 0, NULL);
	check_status(200,
		     "{\"id\":\"X1\",\"status\":\"ready\",\"message\":"
		     "\"File waiting for processing\"}",
		     0, 0, NULL);
	check_status(200,
		     "{\"id\":\"X1\",\"status\":\"processed\",\"message\":"
		     "\"File archived\"}",
		     0, 1, NULL);
	check_status(200,
		     "{\"id\":\"X1\",\"status\":\"failed\",\"message\":"
		     "\"File failed to pass validation\"}",
		     0, -1, "X1: failed: File failed to pass validation");
	check_status(404,
		     "{\"id\":\"X1\",\"status\":\"notfound\",\"message\":"
		     "\"File not found\"}",
		     0, -1, "X1: notfound: File not found");
	check_status(400,
		     "{\"id\":\"0\",\"status\":\"error\",\"message\":"
		     "\"Invalid id\"}",
		     0, -1, "X1: error: Invalid id");
	/* Not kcidb-ng's final word: polled again later. */
	check_status(401,
		     "{\"id\":\"0\",\"status\":\"error\",\"message\":"
		     "\"InvalidSignature\"}",
		     -1, 0, "HTTP 401: InvalidSignature");
	check_status(503, "", -1, 0, "HTTP 503");
	check_status(200, "{\"status\":\"queued\"}", 0, 0, NULL);
	check_status(200, "<html/>", -1, 0, "");
	check_status(404, "", -1, 0, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_segment),
		cmocka_unit_test(test_empty_document),
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_token_file),
		cmocka_unit_test(test_opts_urls),
		cmocka_unit_test(test_submit_reply),
		cmocka_unit_test(test_status_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
