/*
 * test-answers.c - the pure parts of store/answers.c: the ABBA order of
 * a submission's boots (P B B P P B ..., consecutive boots of one kernel
 * merged into one job, a base that needs fewer boots dropping out), the
 * first job's boots, the From:/Subject: of a patch (a latin-1 one stored
 * as text the database takes), and the command an answer's note
 * suggests, quoted for sh (common/shquote.c); the base's boots with a
 * fresh base (submit --fresh-base: nothing stored counts), and what an
 * answer says of itself (store/answer_account.c: the base runs it reused,
 * its phases).  The order as jobs on a real host is
 * tests/integration/t8001-answer-libvirt.sh (with a fresh base,
 * t8007-answer-fresh-base-libvirt.sh); the reused runs named and the
 * phases on a local host, t8006-answer-reuse-phases.sh; the suggested
 * command pasted into sh is t8005-answer-mail-hostile.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "answer/answer.h"
#include "shquote.h"
#include "store/answer_account.h"
#include "store/answers.h"

/* The whole order as a string of P and B, one letter per boot, with a
 * '|' between jobs. */
static void order(int n, int k, struct strbuf *out)
{
	int dp = 0, db = 0, jobs = 0;
	struct answer_unit u;

	while (answer_next_unit(n, k, dp, db, &u)) {
		if (jobs++)
			strbuf_addch(out, '|');
		assert_true(u.boots >= 1);
		assert_int_equal(u.first_boot,
				 u.side == ANSWER_PATCH ? dp : db);
		for (int i = 0; i < u.boots; i++)
			strbuf_addch(out, u.side == ANSWER_PATCH ? 'P' : 'B');
		if (u.side == ANSWER_PATCH)
			dp += u.boots;
		else
			db += u.boots;
		assert_true(jobs <= 2 * (n + k));
	}
	assert_int_equal(dp, n);
	assert_int_equal(db, k);
}

static void test_abba(void **state)
{
	static const struct {
		int n, k;
		const char *want;
	} cases[] = {
		{ 1, 1, "P|B" },
		{ 2, 2, "P|BB|P" },
		{ 3, 3, "P|BB|PP|B" },
		{ 4, 4, "P|BB|PP|BB|P" },
		{ 5, 5, "P|BB|PP|BB|PP|B" },
		/* The base has some boots stored: fewer of its own. */
		{ 3, 1, "P|B|PP" },
		{ 3, 2, "P|BB|PP" },
		/* The base has them all: the patch's boots in one job. */
		{ 3, 0, "PPP" },
		{ 1, 0, "P" },
		/* More base than patch (cannot happen from submit, but the
		 * order still holds). */
		{ 1, 3, "P|BBB" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf s = STRBUF_INIT;

		order(cases[i].n, cases[i].k, &s);
		assert_string_equal(s.buf, cases[i].want);
		strbuf_release(&s);
	}
}

static void test_every_size(void **state)
{
	(void)state;
	/* Whatever the sizes, the order is ABBA over single boots. */
	for (int n = 1; n <= 30; n++)
		for (int k = 0; k <= n; k++) {
			struct strbuf s = STRBUF_INIT;
			int p = 0, b = 0;

			order(n, k, &s);
			for (size_t i = 0; i < s.len; i++) {
				if (s.buf[i] == 'P')
					p++;
				if (s.buf[i] == 'B')
					b++;
			}
			assert_int_equal(p, n);
			assert_int_equal(b, k);
			assert_int_equal(s.buf[0], 'P');
			strbuf_release(&s);
		}
}

static void test_done(void **state)
{
	struct answer_unit u;

	(void)state;
	assert_int_equal(answer_next_unit(3, 3, 3, 3, &u), 0);
	assert_int_equal(answer_next_unit(3, 0, 3, 0, &u), 0);
	/* A first job of one boot on a host found not to boot kernels:
	 * the rest of the patch's boots follow in one job. */
	assert_int_equal(answer_next_unit(3, 0, 1, 0, &u), 1);
	assert_int_equal(u.side, ANSWER_PATCH);
	assert_int_equal(u.boots, 2);
	assert_int_equal(u.first_boot, 1);
}

static void test_first_boots(void **state)
{
	(void)state;
	assert_int_equal(answer_first_boots(3, 1, 3), 1);
	assert_int_equal(answer_first_boots(3, 1, 0), 3);
	assert_int_equal(answer_first_boots(3, 0, -1), 3);
	assert_int_equal(answer_first_boots(3, -1, -1), 1);
	assert_int_equal(answer_first_boots(1, -1, -1), 1);
}

static void test_fresh_base(void **state)
{
	struct strbuf s = STRBUF_INIT;

	(void)state;
	/* Reuse: the base runs only what the host lacks. */
	assert_int_equal(answer_base_boots(3, 0, 0), 3);
	assert_int_equal(answer_base_boots(3, 1, 0), 2);
	assert_int_equal(answer_base_boots(3, 5, 0), 0);
	/* Fresh: every boot, whatever is stored. */
	assert_int_equal(answer_base_boots(3, 5, 1), 3);
	assert_int_equal(answer_base_boots(3, 1, 1), 3);
	assert_int_equal(answer_base_boots(3, 0, 1), 3);
	/* A fresh base on a host with all the boots stored keeps the full
	 * ABBA order, its first job a single boot of the patch. */
	order(3, answer_base_boots(3, 5, 1), &s);
	assert_string_equal(s.buf, "P|BB|PP|B");
	assert_int_equal(answer_first_boots(3, 1, answer_base_boots(3, 5, 1)),
			 1);
	strbuf_reset(&s);
	order(3, answer_base_boots(3, 5, 0), &s);
	assert_string_equal(s.buf, "PPP");
	assert_int_equal(answer_first_boots(3, 1, answer_base_boots(3, 5, 0)),
			 3);
	strbuf_release(&s);
}

static void test_reuse_text(void **state)
{
	int64_t jobs[] = { 3, 5 };
	struct answer_reuse r = { .jobs = jobs, .nr_jobs = 2 };
	struct strbuf s = STRBUF_INIT;

	(void)state;
	answer_reuse_text(&r, "v6.1", &s);
	assert_string_equal(s.buf, "base runs reused from STP#3, STP#5, "
				   "kernel v6.1");
	strbuf_reset(&s);
	answer_reuse_json(&r, "v6.1", &s);
	assert_string_equal(s.buf, "{\"kernel\":\"v6.1\",\"jobs\":[3,5],"
				   "\"imported\":0,\"text\":\"base runs reused "
				   "from STP#3, STP#5, kernel v6.1\"}");
	strbuf_reset(&s);
	r.imported = 2;
	r.nr_jobs = 1;
	answer_reuse_text(&r, "v6.1", &s);
	assert_string_equal(s.buf, "base runs reused from STP#3, 2 imported "
				   "runs, kernel v6.1");
	strbuf_reset(&s);
	r.nr_jobs = 0;
	r.imported = 1;
	answer_reuse_text(&r, "b\"x", &s);
	assert_string_equal(s.buf, "base runs reused from 1 imported run, "
				   "kernel b\"x");
	strbuf_reset(&s);
	/* None reused: no sentence, a JSON null. */
	r.imported = 0;
	answer_reuse_text(&r, "v6.1", &s);
	assert_string_equal(s.buf, "");
	answer_reuse_json(&r, "v6.1", &s);
	assert_string_equal(s.buf, "null");
	strbuf_release(&s);
}

static void test_phases_text(void **state)
{
	struct answer_phases ph = { .answered = 1,
				    .jobs = 4,
				    .span_ms = 723000,
				    .queued_ms = 5000,
				    .build_ms = 62000,
				    .boot_ms = 130000,
				    .run_ms = 480000,
				    .compare_ms = 3000 };
	struct strbuf s = STRBUF_INIT;

	(void)state;
	answer_phases_text(&ph, &s);
	assert_string_equal(s.buf, "queued 5s, build 1m2s, boot 2m10s, run "
				   "8m, compare 3s");
	strbuf_reset(&s);
	answer_phases_json(&ph, &s);
	assert_string_equal(s.buf,
			    "{\"total_seconds\":723.000,\"queued\":5.000,"
			    "\"build\":62.000,\"boot\":130.000,\"run\":"
			    "480.000,\"compare\":3.000}");
	strbuf_reset(&s);
	ph.answered = 0;
	answer_phases_json(&ph, &s);
	assert_string_equal(s.buf, "null");
	strbuf_release(&s);
}

static void test_headers(void **state)
{
	static const char mbox[] =
		"From 1234567890abcdef Mon Sep 17 00:00:00 2001\n"
		"From: Ingo Molnar <mingo@example.org>\n"
		"Date: Tue, 5 Aug 2003 10:00:00 +0200\n"
		"Subject: [PATCH v2 3/5] sched: cap\n"
		" cpu.weight\n"
		"\n"
		"body\n"
		"---\n"
		"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
	static const char bare[] = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
	static const char late[] = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n"
				   "-From: a@b\n+Subject: no\n";
	struct strbuf s = STRBUF_INIT;

	(void)state;
	assert_int_equal(answers_patch_author(mbox, sizeof(mbox) - 1, &s), 0);
	assert_string_equal(s.buf, "Ingo Molnar <mingo@example.org>");
	strbuf_reset(&s);
	assert_int_equal(answers_patch_subject(mbox, sizeof(mbox) - 1, &s), 0);
	assert_string_equal(s.buf, "sched: cap cpu.weight");
	strbuf_reset(&s);
	assert_int_equal(answers_patch_author(bare, sizeof(bare) - 1, &s), -1);
	assert_int_equal(answers_patch_subject(bare, sizeof(bare) - 1, &s), -1);
	/* Headers inside the diff are not the patch's. */
	assert_int_equal(answers_patch_author(late, sizeof(late) - 1, &s), -1);
	assert_int_equal(answers_patch_subject(late, sizeof(late) - 1, &s), -1);
	strbuf_release(&s);
}

/* A From: and Subject: in latin-1: stored as UTF-8 text with the bytes
 * that are not (\xNN), not a PostgreSQL encoding error. */
static void test_headers_not_utf8(void **state)
{
	static const char mbox[] = "From: Ren\xe9 Dupr\xe9 <rene@example.org>\n"
				   "Subject: [PATCH] sched: d\xe9j\xe0 vu\n"
				   "\n---\n--- a/x\n+++ b/x\n";
	struct strbuf s = STRBUF_INIT;

	(void)state;
	assert_int_equal(answers_patch_author(mbox, sizeof(mbox) - 1, &s), 0);
	assert_string_equal(s.buf, "Ren\\xe9 Dupr\\xe9 <rene@example.org>");
	strbuf_reset(&s);
	assert_int_equal(answers_patch_subject(mbox, sizeof(mbox) - 1, &s), 0);
	assert_string_equal(s.buf, "sched: d\\xe9j\\xe0 vu");
	strbuf_release(&s);
}

static void test_sh_quote(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "v6.1", "v6.1" },
		{ "/var/lib/schedfarm/plans/p-0123.yaml",
		  "/var/lib/schedfarm/plans/p-0123.yaml" },
		{ "params.duration=20s", "params.duration=20s" },
		{ "b$(touch x)", "'b$(touch x)'" },
		{ "a b", "'a b'" },
		{ "it's", "'it'\\''s'" },
		{ "`id`", "'`id`'" },
		{ "~root", "'~root'" },
		{ "", "''" },
		{ "x;y|z&", "'x;y|z&'" },
		{ "new\nline", "'new\nline'" },
	};
	struct strbuf s = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&s);
		strbuf_add_sh_quoted(&s, cases[i].in);
		assert_string_equal(s.buf, cases[i].out);
	}
	strbuf_release(&s);
}

/* The command of a waiting answer's note: every word quoted. */
static void test_base_command(void **state)
{
	struct answer_sub sub;
	struct strbuf s = STRBUF_INIT;

	(void)state;
	memset(&sub, 0, sizeof(sub));
	strvec_init(&sub.plan_set);
	sub.base = (char *)"b$(touch x)";
	sub.host_name = (char *)"here";
	strvec_push(&sub.plan_set, "params.duration=2s");
	strvec_push(&sub.plan_set, "name='x y'");
	answer_base_command(&sub, "/h/plans/p q-0123.yaml", &s);
	assert_string_equal(s.buf, "schedfarm run '/h/plans/p q-0123.yaml' "
				   "--host here --kernel 'b$(touch x)' --set "
				   "params.duration=2s --set 'name='\\''x "
				   "y'\\'''");
	strvec_clear(&sub.plan_set);
	strbuf_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abba),
		cmocka_unit_test(test_every_size),
		cmocka_unit_test(test_done),
		cmocka_unit_test(test_first_boots),
		cmocka_unit_test(test_fresh_base),
		cmocka_unit_test(test_reuse_text),
		cmocka_unit_test(test_phases_text),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_headers_not_utf8),
		cmocka_unit_test(test_sh_quote),
		cmocka_unit_test(test_base_command),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
