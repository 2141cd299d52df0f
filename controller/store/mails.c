/*
 * mails.c - the outbox; see mails.h.
 *
 * The claim is one UPDATE over the oldest due row, locked with SKIP
 * LOCKED so that two controllers never take the same mail.  The
 * Message-ID is made by the server at queue time from the mail's kind,
 * its patch or bisection and the farm's identity (schema 004), so it is
 * the same on every retry and different between two farms.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "parse.h"
#include "store/mails.h"
#include "banned.h"

void mail_row_init(struct mail_row *m)
{
	memset(m, 0, sizeof(*m));
	strvec_init(&m->to);
}

void mail_row_release(struct mail_row *m)
{
	free(m->kind);
	free(m->sender);
	free(m->subject);
	free(m->body);
	free(m->message_id);
	strvec_clear(&m->to);
	mail_row_init(m);
}

int64_t mails_backoff_ms(int attempts, int64_t retry_min_ms,
			 int64_t retry_max_ms)
{
	int64_t d = retry_min_ms;

	for (int i = 1; i < attempts && d < retry_max_ms; i++)
		d = d > INT64_MAX / 2 ? INT64_MAX : d * 2;
	return d > retry_max_ms ? retry_max_ms : d;
}

int mails_queue(struct db *db, const char *kind, int64_t patch_id,
		int64_t bisection_id, const char *sender,
		const struct strvec *to, const char *subject, const char *body,
		int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	char host[256] = "";
	int r;

	*ret_id = 0;
	gethostname(host, sizeof(host) - 1);
	r = db_query(
		db, &res, err,
		"INSERT INTO mails (kind, patch_id, bisection_id, sender, "
		"recipients, subject, body, message_id, next_attempt_at) "
		"VALUES ($1, nullif($2, 0), nullif($3, 0), $4, $5, $6, $7, "
		"'<schedfarm.' || $1 || '.' || coalesce(nullif($2, 0), "
		"nullif($3, 0)) || '.' || (SELECT id FROM farm_identity LIMIT "
		"1) || '@' || $8 || '>', now()) ON CONFLICT DO NOTHING "
		"RETURNING id",
		db_str(kind), db_i64(patch_id), db_i64(bisection_id),
		db_str(sender), db_text_array(to), db_str(subject),
		db_str(body), db_str(host[0] ? host : "localhost"), db_end());
	if (r < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 0;
	if (db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0) {
		strbuf_addstr(err, "the mail insert returned no id");
		return -1;
	}
	return 1;
}

int mails_claim_due(struct db *db, const char *owner, struct mail_row *ret,
		    struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL, *rcpt = NULL;
	int r;

	r = db_query(
		db, &res, err,
		"UPDATE mails m SET state = 'sending', lease_owner = $1, "
		"lease_expires = now() + make_interval(secs => $2), attempts "
		"= m.attempts + 1, last_error = CASE WHEN m.state = "
		"'sending' THEN 'the controller ' || m.lease_owner || ' "
		"stopped while sending it (delivery unknown): sent again "
		"with the same Message-ID' ELSE m.last_error END "
		"WHERE m.id = (SELECT id FROM mails WHERE (state IN "
		"('pending', 'failed') AND next_attempt_at <= now()) OR "
		"(state = 'sending' AND lease_expires < now()) ORDER BY id "
		"LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING m.id, m.kind, "
		"m.sender, m.subject, m.body, m.message_id, m.attempts, "
		"extract(epoch FROM m.created_at)::bigint",
		db_str(owner), db_i64(MAILS_LEASE_S), db_end());
	if (r < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 0;
	if (db_get_i64(res, 0, 0, 1, INT64_MAX, &ret->id) < 0 ||
	    parse_int(db_get(res, 0, 6), 1, INT32_MAX, &ret->attempts, NULL) <
		    0 ||
	    db_get_i64(res, 0, 7, 0, INT64_MAX, &ret->created) < 0) {
		strbuf_addstr(err, "a mail row is unreadable");
		return -1;
	}
	ret->kind = xstrdup(db_get(res, 0, 1));
	ret->sender = xstrdup(db_get(res, 0, 2));
	ret->subject = xstrdup(db_get(res, 0, 3));
	ret->body = xstrdup(db_get(res, 0, 4));
	ret->message_id = xstrdup(db_get(res, 0, 5));
	r = db_query(db, &rcpt, err,
		     "SELECT e FROM mails, unnest(recipients) WITH "
		     "ORDINALITY AS u(e, i) WHERE id = $1 ORDER BY i",
		     db_i64(ret->id), db_end());
	if (r < 0)
		return -1;
	for (int i = 0; i < db_nrows(rcpt); i++)
		strvec_push(&ret->to, db_get(rcpt, i, 0));
	return 1;
}

int mails_sent(struct db *db, int64_t id, const char *owner, struct strbuf *err)
{
	int r;

	r = db_query(db, NULL, err,
		     "UPDATE mails SET state = 'sent', sent_at = now(), "
		     "next_attempt_at = NULL, lease_owner = NULL, "
		     "lease_expires = NULL WHERE id = $1 AND lease_owner "
		     "= $2",
		     db_i64(id), db_str(owner), db_end());
	return r;
}

int mails_failed(struct db *db, int64_t id, const char *owner,
		 const char *reason, int64_t retry_min_ms, int64_t retry_max_ms,
		 int max_attempts, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int64_t attempts = 1;
	int r;

	r = db_query(db, &res, err, "SELECT attempts FROM mails WHERE id = $1",
		     db_i64(id), db_end());
	if (r < 0)
		return -1;
	if (db_nrows(res) == 1)
		db_get_i64(res, 0, 0, 0, INT32_MAX, &attempts);
	r = db_query(
		db, NULL, err,
		"UPDATE mails SET state = 'failed', last_error = CASE WHEN "
		"$4 < 0 THEN $3 || ' (given up after ' || attempts || ' of ' "
		"|| $5 || ' attempts)' ELSE $3 END, next_attempt_at = CASE "
		"WHEN $4 < 0 THEN NULL ELSE now() + make_interval(secs => $4 "
		"/ 1000.0) END, lease_owner = NULL, lease_expires = NULL "
		"WHERE id = $1 AND lease_owner = $2",
		db_i64(id), db_str(owner), db_str(reason),
		db_i64(attempts < max_attempts
			       ? mails_backoff_ms((int)attempts, retry_min_ms,
						  retry_max_ms)
			       : -1),
		db_i64(max_attempts), db_end());
	return r;
}
