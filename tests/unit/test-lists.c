/*
 * test-lists.c - the list intake's pure parts on captured mails
 * (the .eml files of tests/data/lists): the subject forms of patches
 * (answer/listmail.c), the paths a diff touches and the policy, which
 * mails are patches, the key of a series, and the GMime wrapper
 * (lab/mime.c): RFC 2047 headers, quoted-printable and base64 bodies, a
 * patch as an attachment, a mail without a Message-ID unreadable; the
 * base-commit: trailer (answer/listqueue.c).  The
 * archive, the database and `list poll` are
 * tests/integration/t8009-list-intake.sh.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "answer/listmail.h"
#include "answer/listqueue.h"
#include "answer/listreply.h"
#include "lab/mime.h"
#include "unit-files.h"

/* Read tests/data/lists/NAME from the tree (cwd, or 3 above the binary). */
static void data(const char *name, struct strbuf *out)
{
	unit_tree_data("tests/data/lists", name, out);
}

/* Read the mail NAME into *m; fails the test when it is unreadable. */
static void read_mail(const char *name, struct mail_msg *m)
{
	struct strbuf t = STRBUF_INIT, err = STRBUF_INIT;

	data(name, &t);
	mail_msg_init(m);
	if (mime_parse(t.buf, t.len, m, &err) < 0)
		fail_msg("%s: %s", name, err.buf);
	strbuf_release(&t);
	strbuf_release(&err);
}

static void test_subjects(void **state)
{
	struct patch_subject s;

	(void)state;
	patch_subject_init(&s);
	patch_subject_parse("[PATCH] sched: x", &s);
	assert_true(s.patch);
	assert_false(s.reply);
	assert_int_equal(s.version, 1);
	assert_int_equal(s.total, 0);
	assert_string_equal(s.title.buf, "sched: x");
	patch_subject_release(&s);

	patch_subject_parse("[PATCH v3 2/5] sched/fair: y ", &s);
	assert_true(s.patch);
	assert_int_equal(s.version, 3);
	assert_int_equal(s.part, 2);
	assert_int_equal(s.total, 5);
	assert_string_equal(s.title.buf, "sched/fair: y");
	patch_subject_release(&s);

	patch_subject_parse("[RFC PATCH sched/core 1/2] z", &s);
	assert_true(s.patch && s.rfc);
	assert_int_equal(s.part, 1);
	assert_int_equal(s.total, 2);
	assert_string_equal(s.words.v[2], "sched/core");
	patch_subject_release(&s);

	patch_subject_parse("[PATCH RESEND] w", &s);
	assert_true(s.patch && s.resend);
	patch_subject_release(&s);

	patch_subject_parse("[PATCHv2 0/4] cover", &s);
	assert_true(s.patch);
	assert_int_equal(s.version, 2);
	assert_int_equal(s.part, 0);
	assert_int_equal(s.total, 4);
	patch_subject_release(&s);

	patch_subject_parse("[net-next][PATCH v2,1/2] two groups", &s);
	assert_true(s.patch);
	assert_int_equal(s.version, 2);
	assert_int_equal(s.part, 1);
	assert_string_equal(s.title.buf, "two groups");
	patch_subject_release(&s);

	patch_subject_parse("Re: [PATCH 1/3] sched/fair: one", &s);
	assert_true(s.reply && s.patch);
	patch_subject_release(&s);

	patch_subject_parse("[GIT PULL] sched/urgent for v6.19-rc2", &s);
	assert_true(s.pull);
	assert_false(s.patch);
	patch_subject_release(&s);

	/* Not k/n: a date, a version number in the title. */
	patch_subject_parse("sched: 3/4 of a patch [PATCH]", &s);
	assert_false(s.patch);
	patch_subject_release(&s);
}

static void test_paths(void **state)
{
	struct strvec p = STRVEC_INIT;

	(void)state;
	assert_int_equal(patch_touched_paths("text\n"
					     "diff --git a/kernel/sched/fair.c "
					     "b/kernel/sched/fair.c\n"
					     "--- a/kernel/sched/fair.c\n"
					     "+++ b/kernel/sched/fair.c\n"
					     "diff --git a/old.c b/new.c\n",
					     &p),
			 3);
	assert_string_equal(p.v[0], "kernel/sched/fair.c");
	assert_string_equal(p.v[1], "old.c");
	assert_string_equal(p.v[2], "new.c");
	strvec_clear(&p);
	/* A plain diff (no git lines), a new file. */
	assert_int_equal(patch_touched_paths("--- /dev/null\n"
					     "+++ b/include/linux/sched/x.h\t"
					     "2026\n",
					     &p),
			 1);
	assert_string_equal(p.v[0], "include/linux/sched/x.h");
	strvec_clear(&p);
	/* A quoted diff in a reply is no diff. */
	assert_int_equal(patch_touched_paths("> --- a/x.c\n> +++ b/x.c\n", &p),
			 0);
	strvec_clear(&p);

	assert_true(policy_path_matches("kernel/sched/", "kernel/sched/a.c"));
	assert_false(policy_path_matches("kernel/sched/", "kernel/schedx.c"));
	assert_true(policy_path_matches("include/linux/sched*",
					"include/linux/sched.h"));
	assert_true(policy_path_matches("include/linux/sched*",
					"include/linux/sched/topology.h"));
	assert_false(policy_path_matches("kernel/sched/*", "drivers/a.c"));
}

/* Classify the mail NAME under the scheduler policy: its kind, and the
 * reason in *reason. */
static enum listmail_kind classify(const char *name, struct strbuf *reason)
{
	struct strvec globs = STRVEC_INIT, words = STRVEC_INIT;
	struct patch_subject s;
	struct mail_msg m;
	enum listmail_kind k;

	strvec_pushl(&globs, "kernel/sched/", "include/linux/sched*", NULL);
	read_mail(name, &m);
	patch_subject_init(&s);
	patch_subject_parse(m.subject, &s);
	k = listmail_classify(&m, &s, &globs, &words, reason);
	patch_subject_release(&s);
	mail_msg_release(&m);
	strvec_clear(&globs);
	return k;
}

static void test_classify(void **state)
{
	struct strbuf r = STRBUF_INIT;

	(void)state;
	assert_int_equal(classify("01-cover.eml", &r), LISTMAIL_COVER);
	assert_int_equal(classify("02-patch1.eml", &r), LISTMAIL_PATCH);
	assert_string_equal(r.buf, "");
	assert_int_equal(classify("03-patch2.eml", &r), LISTMAIL_PATCH);
	assert_string_equal(r.buf, "");
	assert_int_equal(classify("05-reply.eml", &r), LISTMAIL_NOT_PATCH);
	assert_string_equal(r.buf, "a reply");
	assert_int_equal(classify("06-pull.eml", &r), LISTMAIL_NOT_PATCH);
	assert_string_equal(r.buf, "a pull request ([GIT PULL])");
	assert_int_equal(classify("07-drivers.eml", &r), LISTMAIL_PATCH);
	assert_string_equal(r.buf, "touches no path of the policy "
				   "(drivers/foo/bar.c)");
	assert_int_equal(classify("08-qp.eml", &r), LISTMAIL_PATCH);
	assert_string_equal(r.buf, "");
	assert_int_equal(classify("09-attached.eml", &r), LISTMAIL_PATCH);
	assert_string_equal(r.buf, "");
	strbuf_release(&r);
}

static void test_mime(void **state)
{
	struct strbuf t = STRBUF_INIT, err = STRBUF_INIT;
	struct patch_subject s;
	struct mail_msg m;

	(void)state;
	read_mail("02-patch1.eml", &m);
	assert_string_equal(m.message_id, "s1-p1@example.org");
	assert_string_equal(m.in_reply_to, "s1-cover@example.org");
	assert_int_equal(m.references.nr, 1);
	assert_string_equal(m.references.v[0], "s1-cover@example.org");
	assert_string_equal(m.from, "Ada Dev <ada@example.org>");
	assert_int_equal(m.to.nr, 1);
	assert_string_equal(m.to.v[0], "sched@example.org");
	assert_int_equal(m.cc.nr, 1);
	assert_string_equal(m.cc.v[0], "Pete Peer <peter@example.org>");
	assert_null(m.reply_to);
	patch_subject_init(&s);
	patch_subject_parse(m.subject, &s);
	assert_string_equal(listmail_series_key(&m, &s),
			    "s1-cover@example.org");
	patch_subject_release(&s);
	mail_msg_release(&m);

	/* RFC 2047 in From and Subject; a quoted-printable body. */
	read_mail("08-qp.eml", &m);
	assert_string_equal(m.subject,
			    "[PATCH] sched/core: fix the r\xc3\xa9sum\xc3\xa9 "
			    "check");
	/* The '.' in the name makes GMime quote it (RFC 5322). */
	assert_string_equal(m.from, "\"Ren\xc3\xa9"
				    "e Q. Printable\" <renee@example.org>");
	assert_non_null(strstr(m.body.buf, "long enough to be wrapped by"));
	assert_non_null(strstr(m.body.buf, "+int x = 2;\n"));
	mail_msg_release(&m);

	/* A base64 attachment (text/x-patch) is part of the body. */
	read_mail("09-attached.eml", &m);
	assert_non_null(strstr(m.body.buf, "The patch is attached."));
	assert_non_null(strstr(m.body.buf, "+++ b/kernel/sched/deadline.c"));
	mail_msg_release(&m);

	/* No Message-ID: unreadable, and said why. */
	data("10-no-message-id.eml", &t);
	mail_msg_init(&m);
	assert_int_equal(mime_parse(t.buf, t.len, &m, &err), -1);
	assert_string_equal(err.buf, "no Message-ID");
	mail_msg_release(&m);
	strbuf_release(&t);
	strbuf_release(&err);
}

static void test_base_commit(void **state)
{
	struct strbuf sha = STRBUF_INIT, t = STRBUF_INIT;

	(void)state;
	data("11-base-missing.eml", &t);
	assert_int_equal(listqueue_base_commit(t.buf, &sha), 1);
	assert_string_equal(sha.buf,
			    "0123456789abcdef0123456789abcdef01234567");
	assert_int_equal(
		listqueue_base_commit("text\nbase-commit: ABCDEF1\n", &sha), 1);
	assert_string_equal(sha.buf, "abcdef1");
	/* Too short, or not at the start of a line: none. */
	assert_int_equal(listqueue_base_commit("base-commit: abc\n", &sha), 0);
	assert_int_equal(
		listqueue_base_commit("> base-commit: abcdef12\n", &sha), 0);
	data("02-patch1.eml", &t);
	assert_int_equal(listqueue_base_commit(t.buf, &sha), 0);
	strbuf_release(&sha);
	strbuf_release(&t);
}

/* One mail of a series for listreply_headers(). */
static void reply_mail(struct list_reply_mail *m, const char *id,
		       const char *subject, const char *author,
		       const char *reply_to, int part)
{
	memset(m, 0, sizeof(*m));
	strvec_init(&m->recipients);
	strvec_init(&m->refs);
	m->message_id = xstrdup(id);
	m->subject = xstrdup(subject);
	m->author = xstrdup(author);
	m->reply_to = reply_to ? xstrdup(reply_to) : NULL;
	m->part = part;
}

static void test_reply_headers(void **state)
{
	struct list_reply_src src;
	struct listreply_hdrs h;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	/* The policy: regressions; improvements when asked; never more. */
	assert_int_equal(listreply_wanted("regression", 0), 1);
	assert_int_equal(listreply_wanted("improvement", 0), 0);
	assert_int_equal(listreply_wanted("improvement", 1), 1);
	assert_int_equal(listreply_wanted("no-change", 1), 0);
	assert_int_equal(listreply_wanted("inconclusive", 1), 0);
	assert_int_equal(listreply_wanted(NULL, 1), 0);

	/* A cover letter: answered, its author To, the others Cc once. */
	list_reply_src_init(&src);
	src.mails = xcalloc(2, sizeof(*src.mails));
	src.nr = 2;
	reply_mail(&src.mails[0], "cover@x", "[PATCH 0/2] sched: a",
		   "Ada Dev <ada@example.org>", NULL, 0);
	strvec_push(&src.mails[0].recipients, "sched@example.org");
	strvec_push(&src.mails[0].recipients, "ADA@example.org");
	strvec_push(&src.mails[0].recipients, "Pete <peter@example.org>");
	strvec_push(&src.mails[0].recipients, "peter@example.org");
	strvec_push(&src.mails[0].recipients, "farm@example.org");
	strvec_push(&src.mails[0].refs, "root@x");
	reply_mail(&src.mails[1], "p1@x", "[PATCH 1/2] sched: b",
		   "Ada Dev <ada@example.org>", NULL, 1);
	listreply_hdrs_init(&h);
	assert_int_equal(
		listreply_headers(&src, "Farm <farm@example.org>", &h, &err),
		0);
	assert_string_equal(h.subject.buf, "Re: [PATCH 0/2] sched: a");
	assert_string_equal(h.orig->message_id, "cover@x");
	assert_string_equal(h.references.buf, "<root@x> <cover@x>");
	assert_int_equal(h.to.nr, 1);
	assert_string_equal(h.to.v[0], "Ada Dev <ada@example.org>");
	assert_int_equal(h.cc.nr, 2);
	assert_string_equal(h.cc.v[0], "sched@example.org");
	assert_string_equal(h.cc.v[1], "Pete <peter@example.org>");
	listreply_hdrs_release(&h);

	/* Reply-To wins over the author; the author then is Cc'd only
	 * when a recipient. */
	free(src.mails[0].reply_to);
	src.mails[0].reply_to = xstrdup("Ada <ada@work.example>");
	listreply_hdrs_init(&h);
	assert_int_equal(listreply_headers(&src, NULL, &h, &err), 0);
	assert_string_equal(h.to.v[0], "Ada <ada@work.example>");
	assert_int_equal(h.cc.nr, 4);
	listreply_hdrs_release(&h);

	/* The Cc policy: the list's address added to all when missing,
	 * alone with "list", nobody with "none". */
	src.address = xstrdup("Sched List <sched-list@example.org>");
	listreply_hdrs_init(&h);
	assert_int_equal(listreply_headers(&src, NULL, &h, &err), 0);
	assert_int_equal(h.cc.nr, 5);
	assert_string_equal(h.cc.v[4], "Sched List <sched-list@example.org>");
	listreply_hdrs_release(&h);
	src.reply_cc = xstrdup("list");
	listreply_hdrs_init(&h);
	assert_int_equal(listreply_headers(&src, NULL, &h, &err), 0);
	assert_int_equal(h.cc.nr, 1);
	assert_string_equal(h.cc.v[0], "Sched List <sched-list@example.org>");
	listreply_hdrs_release(&h);
	free(src.reply_cc);
	src.reply_cc = xstrdup("none");
	listreply_hdrs_init(&h);
	assert_int_equal(listreply_headers(&src, NULL, &h, &err), 0);
	assert_int_equal(h.cc.nr, 0);
	assert_int_equal(h.to.nr, 1);
	listreply_hdrs_release(&h);
	list_reply_src_release(&src);

	/* No mail: nothing to answer. */
	list_reply_src_init(&src);
	listreply_hdrs_init(&h);
	assert_int_equal(listreply_headers(&src, NULL, &h, &err), -1);
	listreply_hdrs_release(&h);
	strbuf_release(&err);
}

static void test_mboxrd(void **state)
{
	struct strbuf out = STRBUF_INIT;

	(void)state;
	listreply_mboxrd("Subject: x\r\n\r\nFrom here\r\n>From there\r\n"
			 "Fromage\r\n",
			 0, &out);
	assert_string_equal(out.buf,
			    "From schedfarm@localhost Thu Jan  1 00:00:00 "
			    "1970\nSubject: x\n\n>From here\n>>From there\n"
			    "Fromage\n\n");
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subjects),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_mime),
		cmocka_unit_test(test_base_commit),
		cmocka_unit_test(test_reply_headers),
		cmocka_unit_test(test_mboxrd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
