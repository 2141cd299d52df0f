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

/* The SQL of the refused entries of $N and $N+1 (two text arrays). */
#define REFUSED_SQL(a, w)                                                      \
	"(SELECT coalesce(jsonb_agg(jsonb_build_object('address', u.a, "       \
	"'reason', u.w, 'at', now()) ORDER BY u.i), '[]'::jsonb) FROM "        \
	"unnest(" a "::text[], " w "::text[]) WITH ORDINALITY AS u(a, w, i))"

int mails_queue(struct db *db, const char *kind, int64_t patch_id,
		int64_t bisection_id, const char *sender,
		const struct strvec *to, const struct strvec *refused,
		const struct strvec *refused_why, const char *subject,
		const char *body, int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	struct strvec none = STRVEC_INIT;
	char host[256] = "";
	int r;

	*ret_id = 0;
	gethostname(host, sizeof(host) - 1);
	db_args_str(&a, kind);
	db_args_i64(&a, patch_id);
	db_args_i64(&a, bisection_id);
	db_args_str(&a, sender);
	db_args_text_array(&a, to);
	db_args_str(&a, subject);
	db_args_str(&a, body);
	db_args_str(&a, host[0] ? host : "localhost");
	db_args_text_array(&a, refused ? refused : &none);
	db_args_text_array(&a, refused_why ? refused_why : &none);
	r = db_exec_args(
		db, &res, err,
		"INSERT INTO mails (kind, patch_id, bisection_id, sender, "
		"recipients, subject, body, message_id, next_attempt_at, "
		"refused) "
		"VALUES ($1, nullif($2, 0), nullif($3, 0), $4, $5, $6, $7, "
		"'<schedfarm.' || $1 || '.' || coalesce(nullif($2, 0), "
		"nullif($3, 0)) || '.' || (SELECT id FROM farm_identity LIMIT "
		"1) || '@' || $8 || '>', now(), " REFUSED_SQL(
			"$9", "$10") ") ON CONFLICT DO NOTHING RETURNING id",
		&a);
	db_args_clear(&a);
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
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_str(&a, owner);
	db_args_i64(&a, MAILS_LEASE_S);
	r = db_exec_args(
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
		&a);
	db_args_clear(&a);
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
	db_args_i64(&a, ret->id);
	r = db_exec_args(db, &rcpt, err,
			 "SELECT e FROM mails, unnest(recipients) WITH "
			 "ORDINALITY AS u(e, i) WHERE id = $1 ORDER BY i",
			 &a);
	db_args_clear(&a);
	if (r < 0)
		return -1;
	for (int i = 0; i < db_nrows(rcpt); i++)
		strvec_push(&ret->to, db_get(rcpt, i, 0));
	return 1;
}

int mails_sent(struct db *db, int64_t id, const char *owner,
	       const struct strvec *refused, const struct strvec *refused_why,
	       struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	struct strvec none = STRVEC_INIT;
	int r;

	db_args_i64(&a, id);
	db_args_str(&a, owner);
	db_args_text_array(&a, refused ? refused : &none);
	db_args_text_array(&a, refused_why ? refused_why : &none);
	r = db_exec_args(db, NULL, err,
			 "UPDATE mails SET state = 'sent', sent_at = now(), "
			 "next_attempt_at = NULL, lease_owner = NULL, "
			 "lease_expires = NULL, refused = refused || "
			 "" REFUSED_SQL("$3", "$4") " WHERE id = $1 AND "
						    "lease_owner = $2",
			 &a);
	db_args_clear(&a);
	return r;
}

int mails_unknown(struct db *db, int64_t id, const char *owner,
		  const char *reason, struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_i64(&a, id);
	db_args_str(&a, owner);
	db_args_str(&a, reason);
	r = db_exec_args(db, NULL, err,
			 "UPDATE mails SET state = 'unknown', last_error = $3 "
			 "|| ' (not sent again: it may have arrived)', "
			 "next_attempt_at = NULL, lease_owner = NULL, "
			 "lease_expires = NULL WHERE id = $1 AND lease_owner "
			 "= $2",
			 &a);
	db_args_clear(&a);
	return r;
}

int mails_failed(struct db *db, int64_t id, const char *owner,
		 const char *reason, int64_t retry_min_ms, int64_t retry_max_ms,
		 int max_attempts, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	int64_t attempts = 1;
	int r;

	db_args_i64(&a, id);
	r = db_exec_args(db, &res, err,
			 "SELECT attempts FROM mails WHERE id = $1", &a);
	db_args_clear(&a);
	if (r < 0)
		return -1;
	if (db_nrows(res) == 1)
		db_get_i64(res, 0, 0, 0, INT32_MAX, &attempts);
	db_args_i64(&a, id);
	db_args_str(&a, owner);
	db_args_str(&a, reason);
	db_args_i64(&a, attempts < max_attempts
				? mails_backoff_ms((int)attempts, retry_min_ms,
						   retry_max_ms)
				: -1);
	db_args_i64(&a, max_attempts);
	r = db_exec_args(
		db, NULL, err,
		"UPDATE mails SET state = 'failed', last_error = CASE WHEN "
		"$4 < 0 THEN $3 || ' (given up after ' || attempts || ' of ' "
		"|| $5 || ' attempts)' ELSE $3 END, next_attempt_at = CASE "
		"WHEN $4 < 0 THEN NULL ELSE now() + make_interval(secs => $4 "
		"/ 1000.0) END, lease_owner = NULL, lease_expires = NULL "
		"WHERE id = $1 AND lease_owner = $2",
		&a);
	db_args_clear(&a);
	return r;
}
