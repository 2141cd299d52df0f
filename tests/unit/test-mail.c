/*
 * test-mail.c - what lab/mail.c writes before libcurl sends it (RFC 5322
 * headers, encoded subjects, CRLF, long lines cut), the address of "Name
 * <addr>" and what is not one mailbox, From:/To: with RFC 2047 display
 * names and the address outside them, folded, the outbox's backoff
 * (store/mails.c), and the settings file (config.c): every key, the
 * errors with their line, defaults, no password in the URL or from the
 * environment, files others may write refused.  Sending to a real SMTP
 * server is tests/integration/t8002-answer-local-mail.sh and
 * t8005-answer-mail-hostile.sh.
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

/* The header block with its folds undone (CRLF before a space). */
static void unfold(const char *in, struct strbuf *out)
{
	for (const char *p = in; *p; p++) {
		if (p[0] == '\r' && p[1] == '\n' &&
		    (p[2] == ' ' || p[2] == '\t')) {
			p++;
			continue;
		}
		strbuf_addch(out, *p);
	}
}

/* The text of the RFC 2047 B encoded-words of s, joined (the spaces
 * between two encoded-words are not part of the text). */
static void decode_words(const char *s, struct strbuf *out)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
				  "opqrstuvwxyz0123456789+/";
	const char *p = s;

	while ((p = strstr(p, "=?UTF-8?B?"))) {
		const char *e = strstr(p + 10, "?=");
		unsigned v = 0;
		int bits = 0;

		assert_non_null(e);
		for (const char *q = p + 10; q < e && *q != '='; q++) {
			v = (v << 6) | (unsigned)(strchr(b64, *q) - b64);
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				strbuf_addch(out, (char)((v >> bits) & 0xff));
			}
		}
		p = e + 2;
	}
}

/* Every line ends in CRLF; header lines are at most 78 bytes and no
 * line is longer than 998. */
static void assert_lines(const char *text)
{
	int in_header = 1;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');

		assert_non_null(nl);
		assert_true(nl > p ? nl[-1] == '\r' : 0);
		assert_true(nl - p - 1 <= 998);
		if (nl - p == 1)
			in_header = 0;
		if (in_header)
			assert_true(nl - p - 1 <= 78);
		p = nl + 1;
	}
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
	{
		struct strbuf flat = STRBUF_INIT;

		/* Folded (it is longer than 78), the same once unfolded. */
		assert_null(strstr(out.buf, "regression on kernel-demo"));
		unfold(out.buf, &flat);
		assert_non_null(strstr(flat.buf, "Subject: [schedfarm] PLM#12 "
						 "\"sched: cap\": jain_index "
						 "-19.9% regression on "
						 "kernel-demo\r\n"));
		strbuf_release(&flat);
	}
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

static void test_mailbox(void **state)
{
	struct strbuf n = STRBUF_INIT, a = STRBUF_INIT;
	const char *why = NULL;

	(void)state;
	assert_int_equal(
		mail_parse_mailbox("\"Doe, J. \\\"Jo\\\"\" <j@example.org>", &n,
				   &a, &why),
		0);
	assert_string_equal(n.buf, "Doe, J. \"Jo\"");
	assert_string_equal(a.buf, "j@example.org");
	strbuf_reset(&n);
	strbuf_reset(&a);
	assert_int_equal(mail_parse_mailbox("Jörg Müller <jm@example.org>", &n,
					    &a, &why),
			 0);
	assert_string_equal(n.buf, "Jörg Müller");
	/* What the farm must not take as one address. */
	assert_int_equal(
		mail_parse_mailbox("a@x.org, b@y.org", NULL, NULL, &why), -1);
	assert_non_null(strstr(why, "two addresses"));
	assert_int_equal(
		mail_parse_mailbox("Doe, J <j@example.org>", NULL, NULL, &why),
		-1);
	assert_int_equal(
		mail_parse_mailbox("x <a@b.org> <c@d.org>", NULL, NULL, &why),
		-1);
	assert_int_equal(
		mail_parse_mailbox("Ren\xe9 <r@example.org>", NULL, NULL, &why),
		-1);
	assert_string_equal(why, "is not UTF-8 text");
	assert_int_equal(
		mail_parse_mailbox("a\x1b[31m@example.org", NULL, NULL, &why),
		-1);
	assert_int_equal(mail_parse_mailbox("j@exämple.org", NULL, NULL, &why),
			 -1);
	assert_int_equal(mail_parse_mailbox("a@@b", NULL, NULL, &why), -1);
	assert_int_equal(mail_parse_mailbox("@b.org", NULL, NULL, &why), -1);
	assert_int_equal(
		mail_parse_mailbox("\"open <a@b.org>", NULL, NULL, &why), -1);
	assert_int_equal(mail_parse_mailbox("", NULL, NULL, &why), -1);
	strbuf_release(&n);
	strbuf_release(&a);
}

/* From: and To: with names outside ASCII: the names are encoded-words,
 * the addresses stay outside them, the lines are folded. */
static void test_format_names(void **state)
{
	struct strvec to = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT, flat = STRBUF_INIT, name = STRBUF_INIT,
		      dec = STRBUF_INIT;
	struct mail_message m = { 0 };
	const char *p, *e;

	(void)state;
	for (int i = 0; i < 40; i++)
		strbuf_addstr(&name, "Łukasz ");
	strbuf_addstr(&name, "Ω");
	strvec_push(&to, "Zoë <z@example.org>");
	strvec_push(&to, "plain@example.org");
	strvec_push(&to, "\"Last, First\" <lf@example.org>");
	strvec_pushf(&to, "%s <long@example.org>", name.buf);
	strvec_push(&to, "a@x.org, b@y.org"); /* left out */
	m.from = "Jörg Müller <joerg@example.org>";
	m.to = &to;
	m.subject = "s";
	m.body = "x\n";
	m.message_id = "<schedfarm.answer.1.f@h>";
	mail_format(&m, &out);
	assert_lines(out.buf);
	unfold(out.buf, &flat);
	assert_non_null(strstr(flat.buf,
			       "\r\nFrom: =?UTF-8?B?SsO2cmcgTcO8bGxlcg==?= "
			       "<joerg@example.org>\r\n"));
	p = strstr(flat.buf, "\r\nTo: ");
	assert_non_null(p);
	e = strstr(p + 2, "\r\n");
	assert_non_null(strstr(p, "To: =?UTF-8?B?Wm/Dqw==?= <z@example.org>, "
				  "plain@example.org, \"Last, First\" "
				  "<lf@example.org>, =?UTF-8?B?"));
	assert_non_null(strstr(p, "?= <long@example.org>\r\n"));
	assert_true(strstr(p, "<long@example.org>") < e);
	assert_null(strstr(flat.buf, "b@y.org"));
	/* The long name decodes back to itself. */
	{
		const char *lz = strstr(p, "<lf@example.org>, ") + 18;
		struct strbuf w = STRBUF_INIT;

		strbuf_add(&w, lz, (size_t)(strstr(lz, " <long@") - lz));
		decode_words(w.buf, &dec);
		assert_string_equal(dec.buf, name.buf);
		strbuf_release(&w);
	}
	/* No encoded-word holds an address. */
	for (const char *q = out.buf; (q = strstr(q, "=?UTF-8?B?")); q += 2) {
		struct strbuf one = STRBUF_INIT, d = STRBUF_INIT;

		strbuf_add(&one, q, (size_t)(strstr(q, "?=") + 2 - q));
		decode_words(one.buf, &d);
		assert_null(strchr(d.buf, '@'));
		strbuf_release(&one);
		strbuf_release(&d);
	}
	strbuf_release(&out);
	strbuf_release(&flat);
	strbuf_release(&name);
	strbuf_release(&dec);
	strvec_clear(&to);
}

/* Write text to a fresh file in a private folder with mode, return its
 * path (free it). */
static char *conf_file(const char *text, mode_t mode)
{
	static char dir[] = "/tmp/test-mail-XXXXXX";
	static int made;
	static int n;
	char *path;
	FILE *f;

	if (!made) {
		assert_non_null(mkdtemp(dir));
		made = 1;
	}
	path = xstrfmt("%s/f%d.conf", dir, n++);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static void test_config_secrets(void **state)
{
	static const char in_url[] =
		"[mail]\n"
		"smtp = smtp://farm:hunter2@mail.example.org:587\n";
	static const char user_only[] = "[mail]\n"
					"smtp = smtp://farm@mail.example.org\n";
	static const char clear[] = "[mail]\n"
				    "smtp = smtp://mail.example.org\n"
				    "starttls = no\n"
				    "user = farm\n";
	static const char clear_ok[] = "[mail]\n"
				       "smtp = smtp://mail.example.org\n"
				       "starttls = no\n"
				       "user = farm\n"
				       "insecure_auth = yes\n";
	static const char bad_addr[] =
		"[mail]\n"
		"from = a@x.org, b@y.org\n"
		"to = ok@example.org, Doe, J <j@x.org>\n";
	struct farm_config c;
	struct strbuf err = STRBUF_INIT, pw = STRBUF_INIT, show = STRBUF_INIT;
	char *path;
	int set = -1;

	(void)state;
	farm_config_init(&c);
	assert_int_equal(farm_config_parse(&c, "u.conf", in_url,
					   sizeof(in_url) - 1, &err),
			 -1);
	assert_non_null(strstr(err.buf, "u.conf:2: error: mail.smtp holds a "
					"user or password"));
	assert_null(strstr(err.buf, "hunter2"));
	assert_null(c.smtp);
	strbuf_reset(&err);
	assert_int_equal(farm_config_parse(&c, "u.conf", user_only,
					   sizeof(user_only) - 1, &err),
			 -1);
	farm_config_release(&c);

	farm_config_init(&c);
	strbuf_reset(&err);
	assert_int_equal(
		farm_config_parse(&c, "c.conf", clear, sizeof(clear) - 1, &err),
		-1);
	assert_non_null(strstr(err.buf, "mail.user needs TLS"));
	farm_config_release(&c);
	farm_config_init(&c);
	strbuf_reset(&err);
	assert_int_equal(farm_config_parse(&c, "c.conf", clear_ok,
					   sizeof(clear_ok) - 1, &err),
			 0);
	assert_int_equal(c.insecure_auth, 1);
	farm_config_release(&c);

	farm_config_init(&c);
	strbuf_reset(&err);
	assert_int_equal(farm_config_parse(&c, "a.conf", bad_addr,
					   sizeof(bad_addr) - 1, &err),
			 -1);
	assert_non_null(strstr(err.buf, "a.conf:2: error: mail.from"));
	assert_non_null(strstr(err.buf, "a.conf:3: error: mail.to"));
	farm_config_release(&c);

	/* The environment is no source of the password, and config says
	 * that it is not read. */
	setenv("SCHEDFARM_SMTP_PASSWORD", "from-env", 1);
	farm_config_init(&c);
	strbuf_reset(&err);
	assert_int_equal(farm_config_password(&c, &pw, &set, &err), 0);
	assert_int_equal(set, 0);
	assert_int_equal(pw.len, 0);
	farm_config_show(&c, 0, &show);
	assert_non_null(strstr(show.buf, "mail.password = (none)\n"));
	assert_non_null(strstr(show.buf, "SCHEDFARM_SMTP_PASSWORD is set and "
					 "not read"));
	assert_null(strstr(show.buf, "from-env"));
	unsetenv("SCHEDFARM_SMTP_PASSWORD");

	/* The password file: private, owned by us or root. */
	path = conf_file("s3cret\nsecond line\n", 0600);
	c.password_file = path;
	assert_int_equal(farm_config_password(&c, &pw, &set, &err), 0);
	assert_int_equal(set, 1);
	assert_string_equal(pw.buf, "s3cret");
	strbuf_reset(&pw);
	assert_int_equal(chmod(path, 0604), 0);
	strbuf_reset(&err);
	assert_int_equal(farm_config_password(&c, &pw, &set, &err), -1);
	assert_non_null(strstr(err.buf, path));
	assert_non_null(strstr(err.buf, "readable by others"));
	assert_null(strstr(err.buf, "s3cret"));
	assert_int_equal(chmod(path, 0620), 0);
	strbuf_reset(&err);
	assert_int_equal(farm_config_password(&c, &pw, &set, &err), -1);
	assert_non_null(strstr(err.buf, "writable by its group"));
	assert_int_equal(pw.len, 0);
	farm_config_release(&c);
	strbuf_release(&err);
	strbuf_release(&pw);
	strbuf_release(&show);
}

/* A settings file others may write, or another user owns, is refused,
 * naming the file and why. */
static void test_config_file_modes(void **state)
{
	struct farm_config c;
	struct strbuf err = STRBUF_INIT;
	char *path = conf_file("[bisect]\nauto = no\n", 0644);

	(void)state;
	farm_config_init(&c);
	assert_int_equal(farm_config_load(&c, path, "/nonexistent", &err), 0);
	assert_int_equal(c.bisect_auto, 0);
	farm_config_release(&c);

	assert_int_equal(chmod(path, 0666), 0);
	farm_config_init(&c);
	assert_int_equal(farm_config_load(&c, path, "/nonexistent", &err), -1);
	assert_non_null(strstr(err.buf, path));
	assert_non_null(strstr(err.buf, "is refused: it is writable by "
					"others (mode 0666"));
	farm_config_release(&c);

	assert_int_equal(chmod(path, 0664), 0);
	strbuf_reset(&err);
	farm_config_init(&c);
	assert_int_equal(farm_config_load(&c, path, "/nonexistent", &err), -1);
	assert_non_null(strstr(err.buf, "writable by its group"));
	farm_config_release(&c);

	/* Owned by another user (root can make one). */
	if (geteuid() == 0) {
		assert_int_equal(chmod(path, 0644), 0);
		assert_int_equal(chown(path, 65534, 65534), 0);
		strbuf_reset(&err);
		farm_config_init(&c);
		assert_int_equal(
			farm_config_load(&c, path, "/nonexistent", &err), -1);
		assert_non_null(strstr(err.buf, "owned by uid 65534"));
		farm_config_release(&c);
	}
	unlink(path);
	free(path);
	strbuf_release(&err);
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

/* [kernel] ccache_size: a size, shown as one, refused when it is not. */
static void test_config_ccache_size(void **state)
{
	static const char good[] = "[kernel]\nccache_size = 500M\n";
	static const char bad[] = "[kernel]\nccache_size = 5X\n";
	static const char small[] = "[kernel]\nccache_size = 1M\n";
	struct farm_config c;
	struct strbuf err = STRBUF_INIT, show = STRBUF_INIT;

	(void)state;
	farm_config_init(&c);
	assert_int_equal(c.kernel_ccache_size, 5ll << 30);
	farm_config_show(&c, 0, &show);
	assert_non_null(strstr(show.buf, "kernel.ccache_size = 5G  # default"));
	assert_int_equal(
		farm_config_parse(&c, "a.conf", good, sizeof(good) - 1, &err),
		0);
	assert_int_equal(c.kernel_ccache_size, 500ll << 20);
	strbuf_reset(&show);
	farm_config_show(&c, 1, &show);
	assert_non_null(strstr(show.buf, "\"kernel.ccache_size\":\"500M\""));
	assert_int_equal(
		farm_config_parse(&c, "a.conf", bad, sizeof(bad) - 1, &err),
		-1);
	assert_non_null(strstr(err.buf, "a.conf:2: error: kernel.ccache_size"));
	strbuf_reset(&err);
	assert_int_equal(
		farm_config_parse(&c, "a.conf", small, sizeof(small) - 1, &err),
		-1);
	assert_non_null(strstr(err.buf, "out of range"));
	farm_config_release(&c);
	strbuf_release(&err);
	strbuf_release(&show);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_address),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_mailbox),
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_config_secrets),
		cmocka_unit_test(test_config_file_modes),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_config_ccache_size),
		cmocka_unit_test(test_bisect_mail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
