/*
 * intake.c - a list read once; see intake.h.
 *
 * Each commit of the archive is one transaction: the message's row, its
 * series' row and count, and the epoch's cursor moved to the commit.  A
 * poll stopped anywhere leaves the cursor at the last message recorded,
 * and the next poll starts after it.  A Message-ID already recorded (the
 * same mail sent to two lists, or resent) is not recorded again.
 */
#include <string.h>

#include "answer/intake.h"
#include "answer/listmail.h"
#include "answer/listqueue.h"
#include "lab/inbox.h"
#include "lab/mime.h"
#include "lab/sandbox.h"
#include "store/lists.h"
#include "banned.h"

/* More than this many bytes in one mail is refused as unreadable. */
#define MAIL_MAX_BYTES (32u << 20)

struct poll_ctx {
	struct db *db;
	const struct list_row *list;
	const char *dir;
	struct strbuf *out;
	struct intake_stats *st;
};

/* The author of a mail: X-Original-From when a relay rewrote From. */
static const char *mail_author(const struct mail_msg *m)
{
	return m->original_from && *m->original_from ? m->original_from
						     : m->from;
}

/*
 * The series a cover letter or patch belongs to: for a patch, the one of
 * its version that one of its ancestors (In-Reply-To first, then
 * References from the nearest) is part of; for a cover letter, the one
 * named by it (its patches came first); else a new one keyed by
 * listmail_series_key().  0 or -1.
 */
static int find_series(struct poll_ctx *c, const struct mail_msg *m,
		       const struct patch_subject *s, int64_t *ret_id,
		       struct strbuf *err)
{
	struct strvec ids = STRVEC_INIT;
	int r = 0;

	*ret_id = 0;
	if (s->total > 1 || (s->total && s->part == 0)) {
		/* A cover letter is found by its own id only (its patches
		 * may have come first): one sent in reply to the previous
		 * version's starts a series of its own. */
		strvec_push(&ids, m->message_id);
		if (s->part && m->in_reply_to)
			strvec_push(&ids, m->in_reply_to);
		for (size_t i = m->references.nr; s->part && i-- > 0;)
			strvec_push(&ids, m->references.v[i]);
		/* One at a time, nearest first, of the same version: a v2
		 * sent in reply to v1 joins its own cover, not v1's. */
		for (size_t i = 0; i < ids.nr && !*ret_id && r == 0; i++) {
			struct strvec one = STRVEC_INIT;

			strvec_push(&one, ids.v[i]);
			r = lists_series_find(c->db, c->list->id, s->version,
					      &one, ret_id, err);
			strvec_clear(&one);
		}
	}
	strvec_clear(&ids);
	if (r < 0 || *ret_id)
		return r;
	return lists_series_get_or_add(
		c->db, c->list->id, listmail_series_key(m, s), mail_author(m),
		s->title.buf, s->version, s->total ? s->total : 1, ret_id, err);
}

/*
 * A complete series: given its base and queued (answer/listqueue.h) when
 * one of its patches is inside the policy, else 'filtered'.  0 or -1.
 */
static int series_done(struct poll_ctx *c, int64_t series_id,
		       const struct patch_subject *s, struct strbuf *err)
{
	int inside;

	inside = lists_series_inside(c->db, series_id, err);
	if (inside < 0)
		return -1;
	if (!inside) {
		c->st->series_filtered++;
		strbuf_addf(c->out,
			    "series %lld complete, outside the policy: %s\n",
			    (long long)series_id, s->title.buf);
		return lists_series_set_state(
			c->db, series_id, "filtered",
			"no patch touches a path of the policy", err);
	}
	c->st->series_complete++;
	strbuf_addf(c->out, "series %lld complete: %s\n", (long long)series_id,
		    s->title.buf);
	return listqueue_series(c->db, c->list, series_id, c->out, err);
}

/* Record one read mail m (its commit of epoch).  0 or -1 with err. */
static int record_mail(struct poll_ctx *c, int epoch, const char *commit,
		       const struct mail_msg *m, struct strbuf *err)
{
	struct patch_subject s;
	struct strbuf reason = STRBUF_INIT;
	struct list_message row = { .message_id = m->message_id,
				    .list_id = c->list->id,
				    .epoch = epoch,
				    .commit = commit,
				    .subject = m->subject,
				    .author = mail_author(m),
				    .reply_to = m->reply_to,
				    .refs = &m->references };
	struct strvec rcpt = STRVEC_INIT;
	enum listmail_kind kind;
	int complete = 0, r = 0;

	/* The original recipients, whom a reply on the thread copies. */
	for (size_t i = 0; i < m->to.nr; i++)
		strvec_push(&rcpt, m->to.v[i]);
	for (size_t i = 0; i < m->cc.nr; i++)
		strvec_push(&rcpt, m->cc.v[i]);
	row.recipients = &rcpt;
	patch_subject_init(&s);
	patch_subject_parse(m->subject, &s);
	kind = listmail_classify(m, &s, &c->list->path_globs,
				 &c->list->subject_prefixes, &reason);
	row.reason = reason.buf;
	row.state = kind == LISTMAIL_PATCH ? "patch" : "not-a-patch";
	if (kind != LISTMAIL_NOT_PATCH) {
		r = find_series(c, m, &s, &row.series_id, err);
		row.part = s.part;
		if (kind == LISTMAIL_COVER)
			strbuf_addstr(&reason, "the cover letter of a series");
		row.reason = reason.buf;
		/* A cover letter's text too: its base-commit: trailer. */
		row.body = m->body.buf;
	}
	if (r == 0)
		r = lists_message_add(c->db, &row, err) < 0 ? -1 : 0;
	if (r == 0 && row.series_id)
		r = lists_series_count(c->db, row.series_id, &complete, err);
	if (r == 0) {
		if (kind == LISTMAIL_PATCH)
			c->st->patches++;
		else
			c->st->not_patches++;
		strbuf_addf(c->out, "%s <%s> %s%s%s\n", row.state,
			    m->message_id, m->subject, *reason.buf ? ": " : "",
			    reason.buf);
	}
	if (r == 0 && complete)
		r = series_done(c, row.series_id, &s, err);
	patch_subject_release(&s);
	strbuf_release(&reason);
	strvec_clear(&rcpt);
	return r;
}

/*
 * Read and record the message of one commit, and move the cursor, in one
 * transaction.  0 or -1 with err (nothing of it kept).
 */
static int read_commit(struct poll_ctx *c, int epoch, const char *commit,
		       struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
	struct mail_msg m;
	int r;

	mail_msg_init(&m);
	r = inbox_read_message(c->dir, epoch, commit, &text, err);
	if (r < 0)
		goto out;
	if (db_begin(c->db, err) < 0) {
		r = -1;
		goto out;
	}
	c->st->read += r;
	if (r == 1 && text.len > MAIL_MAX_BYTES)
		strbuf_addf(&why, "over %u bytes", MAIL_MAX_BYTES);
	else if (r == 1)
		mime_parse(text.buf, text.len, &m, &why);
	if (r == 0) {
		r = 0; /* a deletion: only the cursor moves */
	} else if (why.len) {
		struct list_message row = { .list_id = c->list->id,
					    .epoch = epoch,
					    .commit = commit,
					    .state = "unreadable",
					    .reason = why.buf };
		struct strbuf id = STRBUF_INIT;

		/* The commit names it when the mail has no usable id. */
		strbuf_addf(&id, "%s", m.message_id ? m.message_id : "");
		if (!id.len)
			strbuf_addf(&id, "unreadable.%d.%s", epoch, commit);
		row.message_id = id.buf;
		r = lists_message_add(c->db, &row, err) < 0 ? -1 : 0;
		c->st->unreadable++;
		strbuf_addf(c->out, "unreadable %s: %s\n", commit, why.buf);
		strbuf_release(&id);
	} else {
		r = lists_message_seen(c->db, m.message_id, err);
		if (r == 1) {
			c->st->seen_before++;
			strbuf_addf(c->out, "seen before <%s>\n", m.message_id);
			r = 0;
		} else if (r == 0) {
			r = record_mail(c, epoch, commit, &m, err);
		}
	}
	if (r == 0)
		r = lists_cursor_set(c->db, c->list->id, epoch, commit, err);
	if (r == 0)
		r = db_commit(c->db, err);
	else
		db_rollback(c->db);
out:
	mail_msg_release(&m);
	strbuf_release(&text);
	strbuf_release(&why);
	return r;
}

/*
 * Read every commit of epoch after its cursor.  A list that starts from
 * the archive's end (from_now) and has no cursor yet (first_poll) only
 * gets its cursor set to the epoch's newest commit.  0 or -1 with err.
 */
static int read_epoch(struct poll_ctx *c, int epoch, int first_poll,
		      struct strbuf *err)
{
	struct strbuf cursor = STRBUF_INIT;
	struct strvec commits = STRVEC_INIT;
	int r;

	if (first_poll && c->list->from_now) {
		r = inbox_head(c->dir, epoch, &cursor, err);
		if (r == 0)
			r = lists_cursor_set(c->db, c->list->id, epoch,
					     cursor.buf, err);
		if (r == 0)
			strbuf_addf(c->out, "epoch %d: starting after %s\n",
				    epoch, cursor.buf);
		strbuf_release(&cursor);
		return r;
	}
	r = lists_cursor_get(c->db, c->list->id, epoch, &cursor, err);
	if (r == 0)
		r = inbox_commits_after(c->dir, epoch, cursor.buf, &commits,
					err);
	for (size_t i = 0; r == 0 && i < commits.nr; i++)
		r = read_commit(c, epoch, commits.v[i], err);
	strbuf_release(&cursor);
	strvec_clear(&commits);
	return r;
}

/* The series that waited too long for their patches: 'incomplete'. */
static int expire(struct poll_ctx *c, struct strbuf *err)
{
	struct strvec gone = STRVEC_INIT;
	int r = lists_series_expire(c->db, c->list->id, c->list->series_wait_s,
				    &gone, err);

	for (size_t i = 0; r == 0 && i < gone.nr; i++) {
		struct strvec f = STRVEC_INIT;

		strvec_split(&f, gone.v[i], '\t');
		if (f.nr == 3)
			strbuf_addf(c->out,
				    "series %s incomplete after %d s (%s "
				    "arrived), not run: %s\n",
				    f.v[0], c->list->series_wait_s, f.v[2],
				    f.v[1]);
		strvec_clear(&f);
	}
	strvec_clear(&gone);
	return r;
}

int intake_poll(struct db *db, const char *home, const char *name,
		struct strbuf *out, struct intake_stats *ret,
		struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT;
	struct list_row list;
	struct poll_ctx c = { .db = db, .list = &list, .out = out, .st = ret };
	int r, epoch, first_poll;

	memset(ret, 0, sizeof(*ret));
	list_row_init(&list);
	r = lists_get(db, name, &list, err);
	if (r <= 0) {
		r = r < 0 ? -1 : 1;
		goto out;
	}
	if (sandbox_allow(1, &dir) < 0) {
		strbuf_addf(err,
			    "list intake refuses to start: patches from a "
			    "list are untrusted code, built only in the "
			    "sandbox: %s",
			    dir.buf);
		r = -1;
		goto out;
	}
	strbuf_reset(&dir);
	if (mime_load(err) < 0) {
		r = -1;
		goto out;
	}
	if (lists_epoch_max(db, list.id, &epoch, err) < 0) {
		r = -1;
		goto out;
	}
	first_poll = epoch < 0;
	strbuf_addf(&dir, "%s/lists/%s", home, name);
	c.dir = dir.buf;
	for (epoch = 0, r = 0; r == 0; epoch++) {
		struct strbuf why = STRBUF_INIT;
		int have =
			inbox_sync_epoch(dir.buf, list.inbox, epoch, &why, err);

		if (have < 0) {
			r = -1;
		} else if (!have) {
			if (epoch == 0) {
				strbuf_addf(err,
					    "%s has no epoch 0 (git/0.git): "
					    "not a public-inbox v2 archive, "
					    "or not reachable (%s)",
					    list.inbox, why.buf);
				r = -1;
			}
			strbuf_release(&why);
			break;
		} else {
			r = read_epoch(&c, epoch, first_poll, err);
		}
		strbuf_release(&why);
	}
	if (r == 0)
		r = expire(&c, err);
out:
	list_row_release(&list);
	strbuf_release(&dir);
	return r;
}
