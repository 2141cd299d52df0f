/*
 * listreply.c - the reply on a list's thread; see listreply.h.
 *
 * The reply reads like 0-day's: what was found first, then the numbers
 * (the rows of the PLM table that moved, as compare.c renders them for
 * the answer's own mail: one table code, two mails), how to get the same
 * numbers, and the tag a fix may carry.  Lines stay within 80 columns:
 * the table's rows take at most 78.  The row is written with the answer;
 * sending is a step of its own, so a mail server that is down delays the
 * reply and never the answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "answer/listreply.h"
#include "cleanup.h"
#include "config.h"
#include "lab/mail.h"
#include "parse.h"
#include "shquote.h"
#include "store/answers.h"
#include "store/mails.h"
#include "banned.h"

/* Replies sent per tick, at most. */
#define REPLY_TICK_MAX 8

int listreply_wanted(const char *verdict, int mail_improvements)
{
	if (!verdict)
		return 0;
	if (!strcmp(verdict, "regression"))
		return 1;
	return mail_improvements && !strcmp(verdict, "improvement");
}

void listreply_hdrs_init(struct listreply_hdrs *h)
{
	memset(h, 0, sizeof(*h));
	strbuf_init(&h->subject, 0);
	strbuf_init(&h->references, 0);
	strvec_init(&h->refs);
	strvec_init(&h->to);
	strvec_init(&h->cc);
}

void listreply_hdrs_release(struct listreply_hdrs *h)
{
	strbuf_release(&h->subject);
	strbuf_release(&h->references);
	strvec_clear(&h->refs);
	strvec_clear(&h->to);
	strvec_clear(&h->cc);
	listreply_hdrs_init(h);
}

/* Is the address of mailbox mb among the addresses of seen? */
static int seen_addr(const struct strvec *seen, const char *mb)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int found = 0;

	if (mail_address(mb, &a) < 0)
		strbuf_addstr(&a, mb);
	for (size_t i = 0; i < seen->nr && !found; i++) {
		strbuf_reset(&b);
		if (mail_address(seen->v[i], &b) < 0)
			strbuf_addstr(&b, seen->v[i]);
		found = !strcasecmp(a.buf, b.buf);
	}
	strbuf_release(&a);
	strbuf_release(&b);
	return found;
}

/* Is src's Cc policy (lists.reply_cc; NULL: "all") what? */
static int cc_is(const struct list_reply_src *src, const char *what)
{
	return !strcmp(src->reply_cc ? src->reply_cc : "all", what);
}

int listreply_headers(const struct list_reply_src *src, const char *farm_from,
		      struct listreply_hdrs *ret, struct strbuf *err)
{
	const struct list_reply_mail *m;
	struct strvec skip = STRVEC_INIT;
	const char *subj;

	if (!src->nr) {
		strbuf_addstr(err, "the series has no mail to answer");
		return -1;
	}
	/* mails are by part: the cover letter (0) first when there is one */
	m = &src->mails[0];
	ret->orig = m;
	subj = m->subject;
	strbuf_addstr(&ret->subject, "Re: ");
	strbuf_addstr(&ret->subject, subj);
	for (size_t i = 0; i < m->refs.nr; i++)
		strvec_push(&ret->refs, m->refs.v[i]);
	strvec_push(&ret->refs, m->message_id);
	for (size_t i = 0; i < ret->refs.nr; i++)
		strbuf_addf(&ret->references, "%s<%s>", i ? " " : "",
			    ret->refs.v[i]);
	strvec_push(&ret->to,
		    m->reply_to && *m->reply_to ? m->reply_to : m->author);
	strvec_push(&skip, ret->to.v[0]);
	if (farm_from)
		strvec_push(&skip, farm_from);
	/* The policy: the original recipients ("all", the default), the
	 * list's address only ("list"), or nobody ("none"). */
	for (size_t i = 0;
	     !cc_is(src, "list") && !cc_is(src, "none") && i < m->recipients.nr;
	     i++) {
		if (seen_addr(&skip, m->recipients.v[i]))
			continue;
		strvec_push(&ret->cc, m->recipients.v[i]);
		strvec_push(&skip, m->recipients.v[i]);
	}
	if (src->address && !cc_is(src, "none") &&
	    !seen_addr(&skip, src->address))
		strvec_push(&ret->cc, src->address);
	strvec_clear(&skip);
	return 0;
}

/*
 * Append in to out with each line longer than 80 columns cut after a
 * ';', ',' or ' ' (the table's params and notes), continued indented.
 */
static void wrap80(const char *in, struct strbuf *out)
{
	const char *p = in, *end = in + strlen(in);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t width = 80;

		while (l > width) {
			size_t cut = width;

			while (cut > 20 && !strchr(";, ", p[cut - 1]))
				cut--;
			if (cut <= 20)
				cut = width;
			strbuf_add(out, p, cut);
			strbuf_addstr(out, "\n    ");
			p += cut;
			l -= cut;
			width = 76;
		}
		strbuf_add(out, p, l);
		strbuf_addch(out, '\n');
		p = nl ? nl + 1 : end;
	}
}

/* The rows of set that moved, as the answer's PLM table shows them. */
static void moved_table(const struct compare_set *set, struct strbuf *out)
{
	struct compare_set moved = *set;
	size_t k = 0;

	/* A shallow copy: the rows stay set's, only the list is new. */
	moved.rows = xcalloc(set->nr + 1, sizeof(*moved.rows));
	for (size_t i = 0; i < set->nr; i++)
		if (set->rows[i].verdict == CMP_REGRESSION ||
		    set->rows[i].verdict == CMP_IMPROVEMENT)
			moved.rows[k++] = set->rows[i];
	moved.nr = k;
	moved.alloc = k;
	moved.one_sided = 0;
	if (k) {
		struct strbuf t = STRBUF_INIT;

		compare_format_text(&moved, &t);
		wrap80(t.buf, out);
		strbuf_release(&t);
	} else
		strbuf_addstr(out, "  (no metric moved beyond its noise)\n");
	free(moved.rows);
}

/* How the series' base was chosen (src->base_method set), as the mail
 * says it under the base's name. */
static const char *base_method_words(const struct list_reply_src *src)
{
	if (!strcmp(src->base_method, "base-commit"))
		return "named by the series' base-commit: trailer";
	return "chosen by the list's path map (no usable base-commit:)";
}

void listreply_body(const struct list_reply_src *src,
		    const struct listreply_hdrs *h, const struct answer_sub *s,
		    const struct compare_set *set, const struct answer_text *t,
		    const char *farm_from, struct strbuf *out)
{
	const char *base = s->base_name ? s->base_name : s->base;
	const char *plan = s->plan_name ? s->plan_name : "PLAN";
	const char *host = s->host_name ? s->host_name : "HOST";
	struct strbuf plan_file = STRBUF_INIT;

	strbuf_addf(out,
		    "Hello,\n\nthe scheduler test farm (schedfarm) ran this "
		    "series (v%d, %d patch%s,\nfrom the list %s) and found "
		    "a %s:\n\n  %s\n\n",
		    src->version, s->n_patches, s->n_patches == 1 ? "" : "es",
		    src->list_name, t->verdict ? t->verdict : "result",
		    t->headline ? t->headline : "-");
	strbuf_addf(out, "base:   %s\n", base);
	if (src->base_method)
		strbuf_addf(out, "        %s\n", base_method_words(src));
	strbuf_addf(out, "patch:  %s\n", h->orig->subject);
	strbuf_addf(out, "        PLM#%lld, kernel %s\n",
		    (long long)s->patch_id,
		    s->kernel_name ? s->kernel_name : "-");
	strbuf_addf(out, "host:   %s\n", host);
	strbuf_addf(out, "plan:   %s\n", plan);
	if (t->note)
		strbuf_addf(out, "note:   %s\n", t->note);
	if (t->base_reused)
		strbuf_addf(out, "        %s\n", t->base_reused);
	strbuf_addstr(out, "\nThe metrics that moved (base and patch means, "
			   "%change, spread, verdict):\n\n");
	if (set && set->nr)
		moved_table(set, out);
	else
		strbuf_addstr(out, "  (nothing was compared)\n");
	strbuf_addstr(out, "\nTo reproduce with schedfarm (the plan is on the "
			   "page below):\n\n");
	{
		const char *run[] = { "schedfarm", "run",      "",   "--host",
				      host,	   "--kernel", base, NULL };
		const char *sub[] = { "schedfarm", "submit", "SERIES.mbox",
				      "--base",	   base,     "--plan",
				      "",	   "--host", host,
				      NULL };

		strbuf_addf(&plan_file, "%s.yaml", plan);
		run[2] = plan_file.buf;
		sub[6] = plan_file.buf;
		strbuf_addstr(out, "  ");
		strbuf_add_sh_argv(out, run);
		strbuf_addstr(out, "\n  b4 am -o - ");
		strbuf_add_sh_quoted(out, h->orig->message_id);
		strbuf_addstr(out, " >SERIES.mbox\n  ");
		strbuf_add_sh_argv(out, sub);
		strbuf_addstr(out, "\n  schedfarm compare PLM#N\n");
	}
	strbuf_addstr(out, "\nIf you fix the issue in a separate patch or a "
			   "new version of the series,\nkindly add the "
			   "following tag where applicable:\n\n");
	strbuf_addf(out, "Reported-by: %s\n",
		    farm_from ? farm_from : "schedfarm");
	if (t->page_url)
		strbuf_addf(out, "Closes: %s\n", t->page_url);
	strbuf_addf(out, "\nThe page: %s\n", t->page_url ? t->page_url : "-");
	strbuf_addstr(out, "\n-- \nschedfarm, the scheduler test farm\n");
	strbuf_release(&plan_file);
}

void listreply_mboxrd(const char *text, int64_t date, struct strbuf *out)
{
	time_t tt = (time_t)date;
	const char *p = text, *end = text + strlen(text);
	char when[64];
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
	strbuf_addf(out, "From schedfarm@localhost %s\n", when);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t k = 0;

		if (l && p[l - 1] == '\r')
			l--;
		while (k < l && p[k] == '>')
			k++;
		if (l - k >= 5 && !memcmp(p + k, "From ", 5))
			strbuf_addch(out, '>');
		strbuf_add(out, p, l);
		strbuf_addch(out, '\n');
		p = nl ? nl + 1 : end;
	}
	strbuf_addch(out, '\n');
}

int listreply_queue(struct db *db, const struct farm_config *cfg,
		    const struct answer_sub *s, const char *verdict,
		    const struct compare_set *set, const struct answer_text *t,
		    struct strbuf *err)
{
	struct list_reply_src src;
	struct listreply_hdrs h;
	struct strbuf body = STRBUF_INIT, mid = STRBUF_INIT;
	struct list_reply r = { 0 };
	int found, ret = -1;

	list_reply_src_init(&src);
	listreply_hdrs_init(&h);
	found = lists_reply_source(db, s->patch_id, &src, err);
	if (found <= 0) {
		ret = found;
		goto out;
	}
	ret = 0;
	if (!listreply_wanted(verdict, src.mail_improvements) ||
	    (!src.dry_run_mbox && !cfg->smtp))
		goto out;
	if (listreply_headers(&src, cfg->from, &h, err) < 0) {
		ret = -1;
		goto out;
	}
	listreply_body(&src, &h, s, set, t, cfg->from, &body);
	r.series_id = src.series_id;
	r.patch_id = s->patch_id;
	r.verdict = verdict;
	r.in_reply_to = h.orig->message_id;
	r.refs = &h.refs;
	r.sender = cfg->from;
	r.to = &h.to;
	r.cc = &h.cc;
	r.subject = h.subject.buf;
	r.body = body.buf;
	r.delivery = src.dry_run_mbox ? "mbox" : "smtp";
	r.mbox = src.dry_run_mbox;
	/* A series being bisected: the reply waits for the guilty patch. */
	r.bisection_id = t->bisection_id;
	ret = lists_reply_add(db, &r, &mid, err);
out:
	list_reply_src_release(&src);
	listreply_hdrs_release(&h);
	strbuf_release(&body);
	strbuf_release(&mid);
	return ret;
}

int listreply_bisected(struct db *db, int64_t bisection_id, struct strbuf *err)
{
	struct list_reply_blame b;
	struct strbuf subject = STRBUF_INIT, body = STRBUF_INIT;
	int r;

	list_reply_blame_init(&b);
	r = lists_reply_blame(db, bisection_id, &b, err);
	if (r <= 0)
		goto out;
	if (!b.culprit) {
		r = lists_reply_release(db, b.reply_id, NULL, NULL, NULL, NULL,
					err);
		goto out;
	}
	strbuf_addf(&subject, "Re: %s", b.subject);
	strbuf_addf(&body,
		    "The bisection of the series (#%lld) found this patch, "
		    "%d of %d,\nthe first one with the regression below.\n\n",
		    (long long)bisection_id, b.culprit, b.n);
	strbuf_addstr(&body, b.body);
	r = lists_reply_release(db, b.reply_id, b.message_id, &b.refs,
				subject.buf, body.buf, err);
out:
	list_reply_blame_release(&b);
	strbuf_release(&subject);
	strbuf_release(&body);
	return r < 0 ? -1 : 0;
}

static void rlog(const struct answer_ctx *ac, int level, const char *msg)
{
	if (ac->log)
		ac->log(ac->log_ctx, level, msg);
}

/* Append m, formatted, to its mbox file.  0 or -1 with err. */
static int to_mbox(const struct list_reply_row *row,
		   const struct mail_message *m, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, entry = STRBUF_INIT;
	int fd, r = -1;

	mail_format(m, &text);
	listreply_mboxrd(text.buf, m->date, &entry);
	fd = open(row->mbox, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0) {
		strbuf_addf(err, "%s: %s", row->mbox, strerror(errno));
		goto out;
	}
	if (write(fd, entry.buf, entry.len) != (ssize_t)entry.len) {
		strbuf_addf(err, "%s: a short write", row->mbox);
		close(fd);
		goto out;
	}
	r = close(fd) < 0 ? -1 : 0;
	if (r < 0)
		strbuf_addf(err, "%s: %s", row->mbox, strerror(errno));
out:
	strbuf_release(&text);
	strbuf_release(&entry);
	return r;
}

/* Send one claimed reply; 0 sent, -1 failed (err), MAIL_UNKNOWN. */
static int send_one(const struct answer_ctx *ac, struct list_reply_row *row,
		    struct mail_outcome *o, struct strbuf *err)
{
	const struct farm_config *cfg = ac->cfg;
	struct strbuf mid = STRBUF_INIT, irt = STRBUF_INIT, refs = STRBUF_INIT,
		      pw = STRBUF_INIT;
	struct mail_server srv = { 0 };
	struct mail_message msg = { 0 };
	int r, pw_set = 0;

	strbuf_addf(&mid, "<%s>", row->message_id);
	strbuf_addf(&irt, "<%s>", row->in_reply_to);
	for (size_t i = 0; i < row->refs.nr; i++)
		strbuf_addf(&refs, "%s<%s>", i ? " " : "", row->refs.v[i]);
	msg.from = row->sender;
	msg.to = &row->to;
	msg.cc = &row->cc;
	msg.subject = row->subject;
	msg.body = row->body;
	msg.message_id = mid.buf;
	msg.in_reply_to = irt.buf;
	msg.references = refs.len ? refs.buf : NULL;
	msg.date = (int64_t)time(NULL);
	if (!strcmp(row->delivery, "mbox")) {
		r = to_mbox(row, &msg, err);
		goto out;
	}
	srv.url = cfg->smtp;
	srv.starttls = (int)cfg->starttls;
	srv.insecure_auth = cfg->insecure_auth;
	srv.user = cfg->user;
	srv.ca_file = cfg->ca_file;
	srv.timeout_ms = cfg->timeout_ms;
	r = farm_config_password(cfg, &pw, &pw_set, err);
	if (r == 0) {
		srv.password = pw_set ? pw.buf : NULL;
		r = mail_send(&srv, &msg, o, err);
	}
	/* The password lives no longer than the send. */
	memset(pw.buf, 0, pw.len);
out:
	strbuf_release(&pw);
	strbuf_release(&mid);
	strbuf_release(&irt);
	strbuf_release(&refs);
	return r;
}

/* Record how row's send went (r as send_one() returned it). */
static void record_send(const struct answer_ctx *ac,
			const struct list_reply_row *row, int r,
			const struct strbuf *why, struct answer_stats *st)
{
	const struct farm_config *cfg = ac->cfg;
	struct strbuf err = STRBUF_INIT, msg = STRBUF_INIT;
	int64_t retry = -1;

	if (r == 0) {
		st->mails_sent++;
		strbuf_addf(&msg, "list reply <%s> %s: %s", row->message_id,
			    !strcmp(row->delivery, "mbox") ? "written to "
							   : "sent",
			    !strcmp(row->delivery, "mbox") ? row->mbox
							   : row->subject);
	} else {
		st->mails_failed++;
		/* delivery unknown: never again (it may have arrived) */
		if (r != MAIL_UNKNOWN && row->attempts < cfg->max_attempts)
			retry = mails_backoff_ms(row->attempts,
						 cfg->retry_min_ms,
						 cfg->retry_max_ms) /
				1000;
		strbuf_addf(&msg, "list reply <%s> (attempt %d): %s%s",
			    row->message_id, row->attempts, why->buf,
			    retry < 0 ? "; not sent again" : "");
	}
	rlog(ac, r != 0, msg.buf);
	if (lists_reply_done(ac->db, row->id, r == 0 ? NULL : why->buf, retry,
			     &err) < 0) {
		strbuf_reset(&msg);
		strbuf_addf(&msg, "list reply %lld: not recorded: %s",
			    (long long)row->id, err.buf);
		rlog(ac, 1, msg.buf);
	}
	strbuf_release(&err);
	strbuf_release(&msg);
}

/* Let go of the replies held by bisections that ended. */
static void release_held(const struct answer_ctx *ac)
{
	struct strvec ids = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT, m = STRBUF_INIT;

	if (lists_replies_held_ended(ac->db, &ids, &err) < 0)
		strbuf_addf(&m, "list reply: %s", err.buf);
	for (size_t i = 0; i < ids.nr && !m.len; i++) {
		int64_t id = 0;

		if (parse_i64(ids.v[i], 1, INT64_MAX, &id, NULL) < 0 ||
		    listreply_bisected(ac->db, id, &err) < 0)
			strbuf_addf(&m, "list reply of bisection #%lld: %s",
				    (long long)id, err.buf);
	}
	if (m.len)
		rlog(ac, 1, m.buf);
	strvec_clear(&ids);
	strbuf_release(&err);
	strbuf_release(&m);
}

void listreply_send_due(const struct answer_ctx *ac, struct answer_stats *st)
{
	release_held(ac);
	for (int i = 0; i < REPLY_TICK_MAX; i++) {
		struct strbuf err = STRBUF_INIT;
		struct list_reply_row row;
		struct mail_outcome o;
		int r;

		list_reply_row_init(&row);
		mail_outcome_init(&o);
		/* The claim commits before the send: a controller stopped
		 * now leaves the row 'sending', never sent again. */
		r = lists_reply_claim(ac->db, &row, &err);
		if (r > 0) {
			r = send_one(ac, &row, &o, &err);
			record_send(ac, &row, r, &err, st);
			r = 1;
		} else if (r < 0) {
			struct strbuf m = STRBUF_INIT;

			strbuf_addf(&m, "list reply: %s", err.buf);
			rlog(ac, 1, m.buf);
			strbuf_release(&m);
		}
		list_reply_row_release(&row);
		mail_outcome_release(&o);
		strbuf_release(&err);
		if (r <= 0)
			break;
	}
}
