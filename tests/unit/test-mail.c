/*
 * test-mail.c - what lab/mail.c writes before libcurl sends it (RFC 5322
 * headers, encoded subjects, CRLF, long lines cut), the address of "Name
 * <addr>", the outbox's backoff (store/mails.c), and the settings file
 * (config.c): every key, the errors with their line, defaults.  Sending
 * to a real SMTP server is tests/integration/t8002-answer-local-mail.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "answer/answer.h"
#include "config.h"
#include "lab/mail.h"
#include "store/mails.h"

static void test_address(void **state)
{
	struct strbuf s = STRBUF_INIT;

	(void)state;
	assert_int_equal(mail_address("Dev <dev@example.org>", &s), 0);
	assert_string_equal(s.buf, "dev@example.org");
	strbuf_reset(&s);
	assert_int_equal(mail_address("  dev@example.org ", &s), 0);
	assert_string_equal(s.buf, "dev@example.org");
	strbuf_reset(&s);
	assert_int_equal(mail_address("\"A, B\" <ab@example.org>", &s), 0);
	assert_string_equal(s.buf, "ab@example.org");
	assert_int_equal(mail_address("nobody", &s), -1);
	assert_int_equal(mail_address("a b@example.org", &s), -1);
	assert_int_equal(mail_address("<>", &s), -1);
	assert_int_equal(mail_address("x@y\r\nRCPT TO:<z@w>", &s), -1);
	strbuf_release(&s);
}

static void test_format(void **state)
{
	struct strvec to = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT, body = STRBUF_INIT;
	struct mail_message m = { 0 };
	const char *p;

	(void)state;
	strvec_push(&to, "Dev <dev@example.org>");
	strvec_push(&to, "list@example.org");
	for (int i = 0; i < 2500; i++)
		strbuf_addch(&body, 'x');
	strbuf_addstr(&body, "\n.\nlast\n");
	m.from = "schedfarm <farm@example.org>";
	m.to = &to;
	m.subject = "[schedfarm] PLM#12 \"sched: cap\": jain_index -19.9% "
		    "regression on kernel-demo";
	m.body = body.buf;
	m.message_id = "<schedfarm.answer.12.abcd1234@host>";
	m.date = 0;
	mail_format(&m, &out);
	assert_non_null(strstr(out.buf, "Date: Thu, 01 Jan 1970 00:00:00 "
					"+0000\r\n"));
	assert_non_null(strstr(
		out.buf, "To: Dev <dev@example.org>, list@example.org\r\n"));
	assert_non_null(strstr(out.buf, "Subject: [schedfarm] PLM#12 \"sched: "
					"cap\": jain_index -19.9% regression "
					"on kernel-demo\r\n"));
	assert_non_null(strstr(out.buf, "Message-ID: <schedfarm.answer.12."));
	assert_non_null(strstr(out.buf, "Content-Type: text/plain; "
					"charset=UTF-8\r\n"));
	/* Every line ends in CRLF and none is longer than 998 bytes. */
	for (p = out.buf; *p;) {
		const char *nl = strchr(p, '\n');

		assert_non_null(nl);
		assert_true(nl > p ? nl[-1] == '\r' : 0);
		assert_true(nl - p - 1 <= 998);
		p = nl + 1;
	}
	/* libcurl does the dot-stuffing; the line is kept as it is. */
	assert_non_null(strstr(out.buf, "\r\n.\r\nlast\r\n"));
	strbuf_release(&out);

	/* A subject outside ASCII: encoded words, folded, no raw bytes. */
	m.subject = "Jäin index fällt: ça régresse de 19,9 % sur la machine "
		    "de démonstration";
	m.body = "x\n";
	mail_format(&m, &out);
	p = strstr(out.buf, "Subject: =?UTF-8?B?");
	assert_non_null(p);
	assert_null(strstr(out.buf, "ä"));
	assert_non_null(strstr(p, "?=\r\n =?UTF-8?B?"));
	strbuf_release(&out);

	/* A header value cannot smuggle a header line in. */
	m.subject = "hi\r\nBcc: evil@example.org";
	mail_format(&m, &out);
	assert_null(strstr(out.buf, "\r\nBcc:"));
	strbuf_release(&out);
	strbuf_release(&body);
	strvec_clear(&to);
}

static void test_backoff(void **state)
{
	(void)state;
	assert_int_equal(mails_backoff_ms(1, 60000, 3600000), 60000);
	assert_int_equal(mails_backoff_ms(2, 60000, 3600000), 120000);
	assert_int_equal(mails_backoff_ms(3, 60000, 3600000), 240000);
	assert_int_equal(mails_backoff_ms(7, 60000, 3600000), 3600000);
	assert_int_equal(mails_backoff_ms(1000, 60000, 3600000), 3600000);
	assert_int_equal(mails_backoff_ms(5, 1000, 2000), 2000);
}

static void test_config(void **state)
{
	static const char good[] = "# the farm\n"
				   "[report]\n"
				   "dir = /srv/www/farm\n"
				   "base_url = https://farm.example.org/r\n"
				   "\n"
				   "[mail]\n"
				   "smtp = smtps://mail.example.org:465\n"
				   "starttls = required\n"
				   "user = farm\n"
				   "password_file = /etc/schedfarm/pw\n"
				   "to = a@example.org, b@example.org\n"
				   "submitter = no\n"
				   "retry_min = 30s\n"
				   "retry_max = 2h\n"
				   "max_attempts = 4\n"
				   "[bisect]\n"
				   "auto = off\n"
				   "max_boots = 12\n";
	static const char bad[] = "[mail]\n"
				  "smtp = http://x\n"
				  "nope = 1\n"
				  "[what]\n"
				  "orphan\n"
				  "[bisect]\n"
				  "max_boots = 2\n";
	struct farm_config c;
	struct strbuf err = STRBUF_INIT, show = STRBUF_INIT;
	char *url;

	(void)state;
	farm_config_init(&c);
	assert_int_equal(c.starttls, CONFIG_TLS_TRY);
	assert_int_equal(c.bisect_auto, 1);
	assert_int_equal(
		farm_config_parse(&c, "f", good, sizeof(good) - 1, &err), 0);
	assert_string_equal(c.report_dir, "/srv/www/farm");
	assert_string_equal(c.smtp, "smtps://mail.example.org:465");
	assert_int_equal(c.starttls, CONFIG_TLS_REQUIRED);
	assert_int_equal(c.to.nr, 2);
	assert_string_equal(c.to.v[1], "b@example.org");
	assert_int_equal(c.mail_submitter, 0);
	assert_int_equal(c.retry_min_ms, 30000);
	assert_int_equal(c.retry_max_ms, 7200000);
	assert_int_equal(c.max_attempts, 4);
	assert_int_equal(c.bisect_auto, 0);
	assert_int_equal(c.bisect_max_boots, 12);
	url = farm_config_page_url(&c, "patch-3.html");
	assert_string_equal(url, "https://farm.example.org/r/patch-3.html");
	free(url);
	farm_config_show(&c, 0, &show);
	assert_non_null(strstr(show.buf, "mail.user = farm\n"));
	assert_non_null(strstr(show.buf, "mail.timeout = 30s  # default\n"));
	assert_non_null(strstr(show.buf, "mail.password = (from password_"));
	strbuf_reset(&show);
	farm_config_show(&c, 1, &show);
	assert_non_null(strstr(show.buf, "\"mail.to\":[\"a@example.org\","
					 "\"b@example.org\"]"));
	assert_non_null(strstr(show.buf, "\"bisect.auto\":false"));
	farm_config_release(&c);

	farm_config_init(&c);
	assert_int_equal(
		farm_config_parse(&c, "bad.conf", bad, sizeof(bad) - 1, &err),
		-1);
	assert_non_null(strstr(err.buf, "bad.conf:2: error: mail.smtp "
					"'http://x' must start with smtp://"));
	assert_non_null(strstr(err.buf, "bad.conf:3: error: unknown key "
					"'nope' in [mail]"));
	assert_non_null(strstr(err.buf, "bad.conf:4: error: unknown section "
					"[what]"));
	assert_non_null(strstr(err.buf, "bad.conf:5: error: expected 'key = "
					"value'"));
	assert_non_null(strstr(err.buf, "bad.conf:7: error: bisect.max_boots "
					"'2' is out of range"));
	farm_config_release(&c);
	strbuf_release(&err);
	strbuf_release(&show);
}

static void test_bisect_mail(void **state)
{
	static const char json[] =
		"{\"bisection\": 3, \"patch\": 12, \"patch_name\": \"sched: "
		"cap cpu.weight\", \"n\": 5, \"host\": \"kernel-demo\", "
		"\"plan\": \"fair\", \"workload\": \"fairness-loop\", "
		"\"metric\": \"jain_index\", \"direction\": \"regression\", "
		"\"state\": \"done\", \"culprit\": 3, \"culprit_label\": "
		"\"sched/core: cap cgroup v2 cpu.weight\", \"culprit_kernel\": "
		"\"v6.1+PLM12.3\", \"pct_change\": -19.8, \"ci_low\": -21.0, "
		"\"ci_high\": -18.6, \"p_value\": 0.0004, \"result\": \"patch "
		"3/5 is the first bad patch\", \"page\": "
		"\"https://farm/bisect-3.html\", \"steps\": [{\"step\": 1, "
		"\"kernel\": \"v6.1+PLM12.2\", \"n\": 3, \"mean\": 0.99, "
		"\"pct_vs_good\": 0.1, \"state\": \"good\", "
		"\"build_seconds\": 95}]}";
	struct strbuf subject = STRBUF_INIT, body = STRBUF_INIT,
		      err = STRBUF_INIT;

	(void)state;
	assert_int_equal(answer_bisect_mail(json, &subject, &body, &err), 0);
	assert_string_equal(subject.buf,
			    "[schedfarm] PLM#12 \"sched: cap cpu.weight\": "
			    "bisect #3: patch 3/5 \"sched/core: cap cgroup v2 "
			    "cpu.weight\" jain_index -19.8% regression on "
			    "kernel-demo");
	assert_non_null(strstr(body.buf, "The culprit: 3/5 sched/core: cap "
					 "cgroup v2 cpu.weight (kernel "
					 "v6.1+PLM12.3)"));
	assert_non_null(strstr(body.buf, "jain_index -19.8% [-21.0%, -18.6%] "
					 "p=0.0004"));
	assert_non_null(strstr(body.buf, "v6.1+PLM12.2"));
	assert_non_null(strstr(body.buf, "The page: https://farm/bisect-3."
					 "html"));
	strbuf_reset(&subject);
	strbuf_reset(&body);
	assert_int_equal(
		answer_bisect_mail("{\"x\": 1}", &subject, &body, &err), -1);
	assert_int_equal(answer_bisect_mail("not json", &subject, &body, &err),
			 -1);
	strbuf_release(&subject);
	strbuf_release(&body);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_address),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_bisect_mail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
