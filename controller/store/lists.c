/*
 * lists.c - the mailing lists the farm follows, their cursors, messages
 * and series; see lists.h.
 *
 * The policy's arrays are read back joined with newlines (their entries
 * are globs, prefixes and GLOB=BASE pairs, which hold none), so no text[]
 * literal is parsed here.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "parse.h"
#include "store/lists.h"
#include "banned.h"

void list_row_init(struct list_row *l)
{
	memset(l, 0, sizeof(*l));
	strvec_init(&l->path_globs);
	strvec_init(&l->subject_prefixes);
	strvec_init(&l->base_map);
}

void list_row_release(struct list_row *l)
{
	free(l->name);
	free(l->inbox);
	free(l->base_repo);
	free(l->plan_path);
	free(l->host);
	free(l->dry_run_mbox);
	free(l->address);
	free(l->reply_cc);
	strvec_clear(&l->path_globs);
	strvec_clear(&l->subject_prefixes);
	strvec_clear(&l->base_map);
	list_row_init(l);
}

int lists_add(struct db *db, const struct list_row *l, int64_t *ret_id,
	      struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	*ret_id = 0;
	if (db_query(db, &res, err,
		     "INSERT INTO lists (name, inbox, path_globs, "
		     "subject_prefixes, base_map, base_repo, "
		     "mail_improvements, dry_run_mbox, mails_per_hour, "
		     "series_wait_s, plan_path, host, from_now, address, "
		     "reply_cc) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, "
		     "$10, $11, $12, $13, $14, coalesce($15, 'all')) ON "
		     "CONFLICT (name) DO NOTHING RETURNING id",
		     db_str(l->name), db_str(l->inbox),
		     db_text_array(&l->path_globs),
		     db_text_array(&l->subject_prefixes),
		     db_text_array(&l->base_map), db_str(l->base_repo),
		     db_bool(l->mail_improvements), db_str(l->dry_run_mbox),
		     db_i64(l->mails_per_hour), db_i64(l->series_wait_s),
		     db_str(l->plan_path), db_str(l->host),
		     db_bool(l->from_now), db_str(l->address),
		     db_str(l->reply_cc), db_end()) < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 0;
	if (db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0) {
		strbuf_addstr(err, "the list insert returned no id");
		return -1;
	}
	return 1;
}

int lists_set_policy(struct db *db, const struct list_row *l,
		     struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_query(db, &res, err,
		     "UPDATE lists SET path_globs = $2, subject_prefixes = $3, "
		     "base_map = $4, base_repo = $5, mail_improvements = $6, "
		     "dry_run_mbox = $7, mails_per_hour = $8, "
		     "series_wait_s = $9, plan_path = $10, host = $11, "
		     "address = $12, reply_cc = coalesce($13, 'all') "
		     "WHERE id = $1 RETURNING id",
		     db_i64(l->id), db_text_array(&l->path_globs),
		     db_text_array(&l->subject_prefixes),
		     db_text_array(&l->base_map), db_str(l->base_repo),
		     db_bool(l->mail_improvements), db_str(l->dry_run_mbox),
		     db_i64(l->mails_per_hour), db_i64(l->series_wait_s),
		     db_str(l->plan_path), db_str(l->host), db_str(l->address),
		     db_str(l->reply_cc), db_end()) < 0)
		return -1;
	return db_nrows(res) > 0;
}

static void split_lines(struct strvec *sv, const char *s)
{
	if (s && *s)
		strvec_split(sv, s, '\n');
}

int lists_get(struct db *db, const char *name, struct list_row *ret,
	      struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int64_t v;

	if (db_query(db, &res, err,
		     "SELECT id, name, inbox, array_to_string(path_globs, "
		     "E'\\n'), array_to_string(subject_prefixes, E'\\n'), "
		     "array_to_string(base_map, E'\\n'), base_repo, "
		     "mail_improvements::int, dry_run_mbox, mails_per_hour, "
		     "series_wait_s, plan_path, host, from_now::int, address, "
		     "reply_cc FROM lists WHERE name = $1",
		     db_str(name), db_end()) < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 0;
	list_row_release(ret);
	db_get_i64(res, 0, 0, 1, INT64_MAX, &ret->id);
	ret->name = xstrdup(db_get(res, 0, 1));
	ret->inbox = xstrdup(db_get(res, 0, 2));
	split_lines(&ret->path_globs, db_get(res, 0, 3));
	split_lines(&ret->subject_prefixes, db_get(res, 0, 4));
	split_lines(&ret->base_map, db_get(res, 0, 5));
	ret->base_repo = xstrdup_or_null(db_get(res, 0, 6));
	db_get_i64(res, 0, 7, 0, 1, &v);
	ret->mail_improvements = (int)v;
	ret->dry_run_mbox = xstrdup_or_null(db_get(res, 0, 8));
	db_get_i64(res, 0, 9, 0, INT32_MAX, &v);
	ret->mails_per_hour = (int)v;
	db_get_i64(res, 0, 10, 0, INT32_MAX, &v);
	ret->series_wait_s = (int)v;
	ret->plan_path = xstrdup_or_null(db_get(res, 0, 11));
	ret->host = xstrdup_or_null(db_get(res, 0, 12));
	db_get_i64(res, 0, 13, 0, 1, &v);
	ret->from_now = (int)v;
	ret->address = xstrdup_or_null(db_get(res, 0, 14));
	ret->reply_cc = xstrdup(db_get(res, 0, 15));
	return 1;
}

int lists_names(struct db *db, struct strvec *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_query(db, &res, err, "SELECT name FROM lists ORDER BY name",
		     db_end()) < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++)
		strvec_push(ret, db_get(res, i, 0));
	return 0;
}

int lists_remove(struct db *db, const char *name, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_query(db, &res, err, "DELETE FROM lists WHERE name = $1",
		     db_str(name), db_end()) < 0)
		return -1;
	return db_cmd_tuples(res) > 0;
}

int lists_cursor_get(struct db *db, int64_t list_id, int epoch,
		     struct strbuf *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	strbuf_reset(ret);
	if (db_query(db, &res, err,
		     "SELECT last_commit FROM list_cursors WHERE list_id = $1 "
		     "AND epoch = $2",
		     db_i64(list_id), db_i64(epoch), db_end()) < 0)
		return -1;
	if (db_nrows(res) > 0)
		strbuf_addstr(ret, db_get(res, 0, 0));
	return 0;
}

int lists_cursor_set(struct db *db, int64_t list_id, int epoch,
		     const char *commit, struct strbuf *err)
{
	return db_query(db, NULL, err,
			"INSERT INTO list_cursors (list_id, epoch, "
			"last_commit) VALUES ($1, $2, $3) ON CONFLICT "
			"(list_id, epoch) DO UPDATE SET last_commit = $3, "
			"updated_at = now()",
			db_i64(list_id), db_i64(epoch), db_str(commit),
			db_end());
}

int lists_epoch_max(struct db *db, int64_t list_id, int *ret_max,
		    struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int64_t v;

	*ret_max = -1;
	if (db_query(db, &res, err,
		     "SELECT max(epoch) FROM list_cursors WHERE list_id = $1",
		     db_i64(list_id), db_end()) < 0)
		return -1;
	if (db_get_i64(res, 0, 0, 0, INT32_MAX, &v) == 0)
		*ret_max = (int)v;
	return 0;
}

int lists_message_seen(struct db *db, const char *message_id,
		       struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_query(db, &res, err,
		     "SELECT 1 FROM list_messages WHERE message_id = $1",
		     db_str(message_id), db_end()) < 0)
		return -1;
	return db_nrows(res) > 0;
}

int lists_message_add(struct db *db, const struct list_message *m,
		      struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	const struct strvec none = STRVEC_INIT;

	if (db_query(db, &res, err,
		     "INSERT INTO list_messages (message_id, list_id, epoch, "
		     "git_commit, state, reason, subject, author, series_id, "
		     "part, body, reply_to, recipients, refs) VALUES ($1, $2, "
		     "$3, $4, $5, $6, left($7, 998), left($8, 998), nullif($9, "
		     "0), $10, $11, left($12, 998), $13, $14) ON CONFLICT "
		     "(message_id) DO NOTHING",
		     db_str(m->message_id), db_i64(m->list_id),
		     db_i64(m->epoch), db_str(m->commit), db_str(m->state),
		     db_str(m->reason ? m->reason : ""),
		     db_str(m->subject ? m->subject : ""),
		     db_str(m->author ? m->author : ""), db_i64(m->series_id),
		     db_i64(m->part), db_str(m->body), db_str(m->reply_to),
		     db_text_array(m->recipients ? m->recipients : &none),
		     db_text_array(m->refs ? m->refs : &none), db_end()) < 0)
		return -1;
	return db_cmd_tuples(res) > 0;
}

int lists_series_get_or_add(struct db *db, int64_t list_id,
			    const char *cover_message_id, const char *author,
			    const char *subject, int version, int n_expected,
			    int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	*ret_id = 0;
	/* The no-op update makes RETURNING give the row that was there. */
	if (db_query(db, &res, err,
		     "INSERT INTO list_series (list_id, cover_message_id, "
		     "author, subject, version, n_expected) VALUES ($1, $2, "
		     "left($3, 998), left($4, 998), $5, $6) ON CONFLICT "
		     "(list_id, cover_message_id) DO UPDATE SET list_id = "
		     "EXCLUDED.list_id RETURNING id",
		     db_i64(list_id), db_str(cover_message_id), db_str(author),
		     db_str(subject), db_i64(version), db_i64(n_expected),
		     db_end()) < 0)
		return -1;
	if (db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0) {
		strbuf_addstr(err, "the series insert returned no id");
		return -1;
	}
	return 0;
}

int lists_series_find(struct db *db, int64_t list_id, int version,
		      const struct strvec *ids, int64_t *ret_id,
		      struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	*ret_id = 0;
	if (!ids->nr)
		return 0;
	if (db_query(db, &res, err,
		     "SELECT s.id FROM list_series s WHERE s.list_id = $1 AND "
		     "s.version = $3 AND (s.cover_message_id = ANY($2) OR s.id "
		     "IN (SELECT series_id FROM list_messages WHERE list_id = "
		     "$1 AND message_id = ANY($2))) LIMIT 1",
		     db_i64(list_id), db_text_array(ids), db_i64(version),
		     db_end()) < 0)
		return -1;
	if (db_nrows(res) > 0)
		db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id);
	return 0;
}

int lists_series_count(struct db *db, int64_t series_id, int *ret_complete,
		       struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	*ret_complete = 0;
	if (db_query(db, &res, err,
		     "UPDATE list_series s SET n_arrived = (SELECT "
		     "count(DISTINCT m.part) FROM list_messages m WHERE "
		     "m.series_id = s.id AND m.state = 'patch' AND (m.part > "
		     "0 OR s.n_expected = 1)), state = CASE WHEN s.state = "
		     "'open' AND (SELECT count(DISTINCT m.part) FROM "
		     "list_messages m WHERE m.series_id = s.id AND m.state = "
		     "'patch' AND (m.part > 0 OR s.n_expected = 1)) >= "
		     "s.n_expected THEN 'complete' ELSE s.state END WHERE s.id "
		     "= $1 RETURNING (state = 'complete' AND n_arrived >= "
		     "n_expected)::int",
		     db_i64(series_id), db_end()) < 0)
		return -1;
	if (db_nrows(res) > 0 && db_get(res, 0, 0) &&
	    !strcmp(db_get(res, 0, 0), "1"))
		*ret_complete = 1;
	return 0;
}

int lists_series_inside(struct db *db, int64_t series_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_query(db, &res, err,
		     "SELECT 1 FROM list_messages WHERE series_id = $1 AND "
		     "state = 'patch' AND reason = '' LIMIT 1",
		     db_i64(series_id), db_end()) < 0)
		return -1;
	return db_nrows(res) > 0;
}

int lists_series_mails(struct db *db, int64_t series_id,
		       struct strvec *ret_authors, struct strvec *ret_subjects,
		       struct strvec *ret_bodies, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_query(db, &res, err,
		     "SELECT author, subject, body FROM list_messages WHERE "
		     "series_id = $1 AND body IS NOT NULL ORDER BY part, id",
		     db_i64(series_id), db_end()) < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++) {
		strvec_push(ret_authors, db_get(res, i, 0));
		strvec_push(ret_subjects, db_get(res, i, 1));
		strvec_push(ret_bodies, db_get(res, i, 2));
	}
	return 0;
}

int lists_series_based(struct db *db, int64_t series_id, const char *base,
		       const char *method, int64_t patch_id, const char *state,
		       const char *note, struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE list_series SET base = $2, base_method = $3, "
			"patch_id = nullif($4, 0), state = $5, note = "
			"coalesce($6, note) WHERE id = $1",
			db_i64(series_id), db_str(base), db_str(method),
			db_i64(patch_id), db_str(state), db_str(note),
			db_end());
}

int lists_series_supersede(struct db *db, int64_t series_id,
			   struct strvec *ret_series,
			   struct strvec *ret_patches, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_query(db, &res, err,
		     "UPDATE list_series o SET state = 'superseded', "
		     "superseded_by = n.id, note = 'superseded by v' || "
		     "n.version || ' (series ' || n.id || ')' FROM list_series "
		     "n WHERE n.id = $1 AND o.list_id = n.list_id AND o.author "
		     "= n.author AND o.subject = n.subject AND o.version < "
		     "n.version AND o.state IN ('open', 'complete', 'queued', "
		     "'incomplete') RETURNING o.id, coalesce(o.patch_id, 0)",
		     db_i64(series_id), db_end()) < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++) {
		strvec_push(ret_series, db_get(res, i, 0));
		strvec_push(ret_patches, db_get(res, i, 1));
	}
	return 0;
}

int lists_patch_queued_jobs(struct db *db, int64_t patch_id, struct strvec *ret,
			    struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_query(db, &res, err,
		     "SELECT id FROM jobs WHERE patch_id = $1 AND state = "
		     "'queued' ORDER BY id",
		     db_i64(patch_id), db_end()) < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++)
		strvec_push(ret, db_get(res, i, 0));
	return 0;
}

int lists_series_expire(struct db *db, int64_t list_id, int wait_s,
			struct strvec *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_query(db, &res, err,
		     "UPDATE list_series SET state = 'incomplete', note = "
		     "n_arrived || ' of ' || n_expected || ' patches arrived "
		     "within ' || $2 || ' s: not run' WHERE list_id = $1 AND "
		     "state = 'open' AND created_at < now() - make_interval("
		     "secs => $2) RETURNING id, subject, n_arrived, "
		     "n_expected",
		     db_i64(list_id), db_i64(wait_s), db_end()) < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++)
		strvec_pushf(ret, "%s\t%s\t%s/%s", db_get(res, i, 0),
			     db_get(res, i, 1), db_get(res, i, 2),
			     db_get(res, i, 3));
	return 0;
}

int lists_series_set_state(struct db *db, int64_t series_id, const char *state,
			   const char *note, struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE list_series SET state = $2, note = "
			"coalesce($3, note) WHERE id = $1",
			db_i64(series_id), db_str(state), db_str(note),
			db_end());
}

int lists_summary(struct db *db, int64_t list_id, struct strbuf *out,
		  struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *msgs = NULL, *series = NULL;

	if (db_query(db, &msgs, err,
		     "SELECT state, count(*) FROM list_messages WHERE list_id "
		     "= $1 GROUP BY state ORDER BY state",
		     db_i64(list_id), db_end()) < 0 ||
	    db_query(db, &series, err,
		     "SELECT id, state, version, n_arrived, n_expected, "
		     "subject, coalesce(base, ''), coalesce(base_method, ''), "
		     "coalesce('PLM#' || patch_id, ''), coalesce(note, '') "
		     "FROM list_series WHERE list_id = $1 ORDER BY id",
		     db_i64(list_id), db_end()) < 0)
		return -1;
	for (int i = 0; i < db_nrows(msgs); i++)
		strbuf_addf(out, "messages\t%s\t%s\n", db_get(msgs, i, 0),
			    db_get(msgs, i, 1));
	for (int i = 0; i < db_nrows(series); i++)
		strbuf_addf(out,
			    "series\t%s\t%s\tv%s\t%s/%s\t%s\t%s\t%s\t%s\t%s\n",
			    db_get(series, i, 0), db_get(series, i, 1),
			    db_get(series, i, 2), db_get(series, i, 3),
			    db_get(series, i, 4), db_get(series, i, 5),
			    db_get(series, i, 6), db_get(series, i, 7),
			    db_get(series, i, 8), db_get(series, i, 9));
	return 0;
}

void list_reply_src_init(struct list_reply_src *s)
{
	memset(s, 0, sizeof(*s));
}

void list_reply_src_release(struct list_reply_src *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct list_reply_mail *m = &s->mails[i];

		free(m->message_id);
		free(m->subject);
		free(m->author);
		free(m->reply_to);
		strvec_clear(&m->recipients);
		strvec_clear(&m->refs);
	}
	free(s->mails);
	free(s->list_name);
	free(s->inbox);
	free(s->dry_run_mbox);
	free(s->address);
	free(s->reply_cc);
	free(s->base_method);
	list_reply_src_init(s);
}

int lists_reply_source(struct db *db, int64_t patch_id,
		       struct list_reply_src *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL, *mails = NULL;
	int64_t v;

	if (db_query(db, &res, err,
		     "SELECT s.id, s.version, l.id, l.name, l.inbox, "
		     "l.dry_run_mbox, l.mail_improvements::int, l.address, "
		     "l.reply_cc, s.base_method FROM "
		     "list_series s JOIN lists l ON l.id = s.list_id WHERE "
		     "s.patch_id = $1 ORDER BY s.id DESC LIMIT 1",
		     db_i64(patch_id), db_end()) < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 0;
	db_get_i64(res, 0, 0, 1, INT64_MAX, &ret->series_id);
	db_get_i64(res, 0, 1, 1, INT32_MAX, &v);
	ret->version = (int)v;
	db_get_i64(res, 0, 2, 1, INT64_MAX, &ret->list_id);
	ret->list_name = xstrdup(db_get(res, 0, 3));
	ret->inbox = xstrdup(db_get(res, 0, 4));
	ret->dry_run_mbox = xstrdup_or_null(db_get(res, 0, 5));
	ret->mail_improvements = !strcmp(db_get(res, 0, 6), "1");
	ret->address = xstrdup_or_null(db_get(res, 0, 7));
	ret->reply_cc = xstrdup(db_get(res, 0, 8));
	ret->base_method = xstrdup_or_null(db_get(res, 0, 9));
	if (db_query(db, &mails, err,
		     "SELECT message_id, subject, author, reply_to, "
		     "array_to_string(recipients, E'\\n'), "
		     "array_to_string(refs, E'\\n'), part FROM list_messages "
		     "WHERE series_id = $1 AND body IS NOT NULL ORDER BY part, "
		     "id",
		     db_i64(ret->series_id), db_end()) < 0)
		return -1;
	ret->mails = xcalloc((size_t)db_nrows(mails) + 1, sizeof(*ret->mails));
	for (int i = 0; i < db_nrows(mails); i++) {
		struct list_reply_mail *m = &ret->mails[ret->nr++];

		strvec_init(&m->recipients);
		strvec_init(&m->refs);
		m->message_id = xstrdup(db_get(mails, i, 0));
		m->subject = xstrdup(db_get(mails, i, 1));
		m->author = xstrdup(db_get(mails, i, 2));
		m->reply_to = xstrdup_or_null(db_get(mails, i, 3));
		split_lines(&m->recipients, db_get(mails, i, 4));
		split_lines(&m->refs, db_get(mails, i, 5));
		db_get_i64(mails, i, 6, 0, INT32_MAX, &v);
		m->part = (int)v;
	}
	return 1;
}

int lists_reply_add(struct db *db, const struct list_reply *r,
		    struct strbuf *ret_message_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	const struct strvec none = STRVEC_INIT;
	char host[256] = "";

	strbuf_reset(ret_message_id);
	gethostname(host, sizeof(host) - 1);
	if (db_query(db, &res, err,
		     "INSERT INTO list_replies (series_id, patch_id, verdict, "
		     "message_id, in_reply_to, refs, sender, to_addrs, "
		     "cc_addrs, subject, body, delivery, mbox, bisection_id, "
		     "next_attempt_at) VALUES ($1::bigint, nullif($2, 0), $3, "
		     "'schedfarm.list.' || $1::bigint || '.' || $3::text || "
		     "'.' || (SELECT id FROM farm_identity LIMIT 1) || '@' || "
		     "$4, $5, $6, $7, $8, $9, $10, $11, $12, $13, nullif($14, "
		     "0), CASE WHEN $14 = 0 THEN now() END) ON CONFLICT "
		     "(series_id, verdict) DO NOTHING RETURNING message_id",
		     db_i64(r->series_id), db_i64(r->patch_id),
		     db_str(r->verdict), db_str(host[0] ? host : "localhost"),
		     db_str(r->in_reply_to),
		     db_text_array(r->refs ? r->refs : &none),
		     db_str(r->sender), db_text_array(r->to),
		     db_text_array(r->cc ? r->cc : &none), db_str(r->subject),
		     db_str(r->body), db_str(r->delivery), db_str(r->mbox),
		     db_i64(r->bisection_id), db_end()) < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 0;
	strbuf_addstr(ret_message_id, db_get(res, 0, 0));
	return 1;
}

void list_reply_row_init(struct list_reply_row *r)
{
	memset(r, 0, sizeof(*r));
	strvec_init(&r->refs);
	strvec_init(&r->to);
	strvec_init(&r->cc);
}

void list_reply_row_release(struct list_reply_row *r)
{
	free(r->message_id);
	free(r->in_reply_to);
	free(r->sender);
	free(r->subject);
	free(r->body);
	free(r->delivery);
	free(r->mbox);
	strvec_clear(&r->refs);
	strvec_clear(&r->to);
	strvec_clear(&r->cc);
	list_reply_row_init(r);
}

int lists_reply_claim(struct db *db, struct list_reply_row *ret,
		      struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int64_t v;

	/* The rate limit counts the replies claimed in the last hour of
	 * the same list, whatever became of them. */
	if (db_query(db, &res, err,
		     "UPDATE list_replies r SET state = 'sending', claimed_at "
		     "= now(), attempts = r.attempts + 1 WHERE r.id = (SELECT "
		     "r1.id FROM list_replies r1 JOIN list_series s1 ON s1.id "
		     "= r1.series_id JOIN lists l ON l.id = s1.list_id WHERE "
		     "r1.state = 'pending' AND r1.next_attempt_at <= now() AND "
		     "(SELECT count(*) FROM list_replies r2 JOIN list_series "
		     "s2 ON s2.id = r2.series_id WHERE s2.list_id = l.id AND "
		     "r2.claimed_at > now() - interval '1 hour') < "
		     "l.mails_per_hour ORDER BY r1.id LIMIT 1 FOR UPDATE OF r1 "
		     "SKIP LOCKED) RETURNING r.id, r.attempts, r.message_id, "
		     "r.in_reply_to, r.sender, r.subject, r.body, r.delivery, "
		     "r.mbox, array_to_string(r.refs, E'\\n'), "
		     "array_to_string(r.to_addrs, E'\\n'), "
		     "array_to_string(r.cc_addrs, E'\\n')",
		     db_end()) < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 0;
	db_get_i64(res, 0, 0, 1, INT64_MAX, &ret->id);
	db_get_i64(res, 0, 1, 0, INT32_MAX, &v);
	ret->attempts = (int)v;
	ret->message_id = xstrdup(db_get(res, 0, 2));
	ret->in_reply_to = xstrdup(db_get(res, 0, 3));
	ret->sender = xstrdup(db_get(res, 0, 4));
	ret->subject = xstrdup(db_get(res, 0, 5));
	ret->body = xstrdup(db_get(res, 0, 6));
	ret->delivery = xstrdup(db_get(res, 0, 7));
	ret->mbox = xstrdup_or_null(db_get(res, 0, 8));
	split_lines(&ret->refs, db_get(res, 0, 9));
	split_lines(&ret->to, db_get(res, 0, 10));
	split_lines(&ret->cc, db_get(res, 0, 11));
	return 1;
}

int lists_reply_done(struct db *db, int64_t id, const char *error,
		     int64_t retry_s, struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE list_replies SET state = CASE WHEN $2::text IS "
			"NULL THEN 'sent' WHEN $3 < 0 THEN 'failed' ELSE "
			"'pending' END, sent_at = CASE WHEN $2::text IS NULL "
			"THEN now() END, last_error = $2, next_attempt_at = "
			"CASE WHEN $2::text IS NOT NULL AND $3 >= 0 THEN now() "
			"+ make_interval(secs => $3) END WHERE id = $1",
			db_i64(id), db_str(error), db_i64(retry_s), db_end());
}

void list_origin_init(struct list_origin *o)
{
	memset(o, 0, sizeof(*o));
	strvec_init(&o->reply_ids);
	strvec_init(&o->reply_verdicts);
	strvec_init(&o->reply_states);
	strvec_init(&o->reply_sent);
	strvec_init(&o->reply_delivery);
}

void list_origin_release(struct list_origin *o)
{
	free(o->list_name);
	free(o->inbox);
	free(o->message_id);
	free(o->link);
	free(o->base_method);
	strvec_clear(&o->reply_ids);
	strvec_clear(&o->reply_verdicts);
	strvec_clear(&o->reply_states);
	strvec_clear(&o->reply_sent);
	strvec_clear(&o->reply_delivery);
	list_origin_init(o);
}

/* INBOX/ID/ with the bytes of id a URL path cannot hold as %XX. */
static char *thread_link(const char *inbox, const char *id)
{
	struct strbuf b = STRBUF_INIT;
	size_t n = strlen(inbox);

	strbuf_addstr(&b, inbox);
	if (!n || inbox[n - 1] != '/')
		strbuf_addch(&b, '/');
	for (const unsigned char *p = (const unsigned char *)id; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~@!$&'()*+,;=:", *p))
			strbuf_addch(&b, (char)*p);
		else
			strbuf_addf(&b, "%%%02X", *p);
	}
	strbuf_addch(&b, '/');
	return strbuf_detach(&b, NULL);
}

int lists_patch_origin(struct db *db, int64_t patch_id, struct list_origin *ret,
		       struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL, *rep = NULL,
					     *ver = NULL;
	int64_t v, sid;

	if (db_query(db, &res, err,
		     "SELECT l.name, l.inbox, s.cover_message_id, s.version, "
		     "s.id, s.base_method FROM list_series s JOIN lists l ON "
		     "l.id = s.list_id "
		     "WHERE s.patch_id = $1 ORDER BY s.id DESC LIMIT 1",
		     db_i64(patch_id), db_end()) < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 0;
	ret->list_name = xstrdup(db_get(res, 0, 0));
	ret->inbox = xstrdup(db_get(res, 0, 1));
	ret->message_id = xstrdup(db_get(res, 0, 2));
	ret->link = thread_link(ret->inbox, ret->message_id);
	ret->base_method = xstrdup_or_null(db_get(res, 0, 5));
	db_get_i64(res, 0, 3, 1, INT32_MAX, &v);
	ret->version = (int)v;
	if (db_get_i64(res, 0, 4, 1, INT64_MAX, &sid) < 0) {
		strbuf_addstr(err, "list_series.id out of range");
		return -1;
	}
	/* Row 0: the version that superseded it; 1: the newest it did. */
	if (db_query(db, &ver, err,
		     "(SELECT 0, coalesce(n.patch_id, 0), n.version FROM "
		     "list_series s JOIN list_series n ON n.id = "
		     "s.superseded_by "
		     "WHERE s.id = $1) UNION ALL (SELECT 1, "
		     "coalesce(o.patch_id, 0), o.version FROM list_series o "
		     "WHERE o.superseded_by = $1 ORDER BY o.version DESC, o.id "
		     "DESC LIMIT 1)",
		     db_i64(sid), db_end()) < 0)
		return -1;
	for (int i = 0; i < db_nrows(ver); i++) {
		int64_t which, plm, vv;

		if (db_get_i64(ver, i, 0, 0, 1, &which) < 0 ||
		    db_get_i64(ver, i, 1, 0, INT64_MAX, &plm) < 0 ||
		    db_get_i64(ver, i, 2, 1, INT32_MAX, &vv) < 0)
			continue;
		if (which == 0) {
			ret->newer_patch = plm;
			ret->newer_version = (int)vv;
		} else {
			ret->older_patch = plm;
			ret->older_version = (int)vv;
		}
	}
	if (db_query(db, &rep, err,
		     "SELECT message_id, verdict, state, coalesce(to_char("
		     "sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), "
		     "''), "
		     "delivery FROM list_replies WHERE patch_id = $1 ORDER BY "
		     "id",
		     db_i64(patch_id), db_end()) < 0)
		return -1;
	for (int i = 0; i < db_nrows(rep); i++) {
		strvec_push(&ret->reply_ids, db_get(rep, i, 0));
		strvec_push(&ret->reply_verdicts, db_get(rep, i, 1));
		strvec_push(&ret->reply_states, db_get(rep, i, 2));
		strvec_push(&ret->reply_sent, db_get(rep, i, 3));
		strvec_push(&ret->reply_delivery, db_get(rep, i, 4));
	}
	return 1;
}

int lists_origins(struct db *db, struct strvec *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_query(
		    db, &res, err,
		    "SELECT s.patch_id || E'\\t' || l.name || E'\\t' || "
		    "s.cover_message_id || E'\\t' || coalesce((SELECT "
		    "string_agg(r.verdict || ' ' || r.state, ', ' ORDER BY "
		    "r.id) FROM list_replies r WHERE r.patch_id = s.patch_id), "
		    "'') FROM list_series s JOIN lists l ON l.id = s.list_id "
		    "WHERE s.patch_id IS NOT NULL ORDER BY s.patch_id, s.id",
		    db_end()) < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++)
		strvec_push(ret, db_get(res, i, 0));
	return 0;
}

void list_reply_blame_init(struct list_reply_blame *b)
{
	memset(b, 0, sizeof(*b));
	strvec_init(&b->refs);
}

void list_reply_blame_release(struct list_reply_blame *b)
{
	free(b->message_id);
	free(b->subject);
	free(b->body);
	strvec_clear(&b->refs);
	list_reply_blame_init(b);
}

int lists_reply_blame(struct db *db, int64_t bisection_id,
		      struct list_reply_blame *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int64_t v;

	if (db_query(
		    db, &res, err,
		    "SELECT r.id, coalesce(b.culprit, 0), s.n_expected, "
		    "m.message_id, m.subject, array_to_string(m.refs || "
		    "m.message_id, E'\\n'), r.body FROM list_replies r JOIN "
		    "list_series s ON s.id = r.series_id LEFT JOIN bisections "
		    "b ON b.id = r.bisection_id AND b.state = 'done' LEFT JOIN "
		    "LATERAL (SELECT lm.message_id, lm.subject, lm.refs FROM "
		    "list_messages lm WHERE lm.series_id = r.series_id AND "
		    "lm.state = 'patch' AND lm.part = b.culprit ORDER BY lm.id "
		    "LIMIT 1) m ON true WHERE r.bisection_id = $1 AND r.state "
		    "= 'pending' AND r.next_attempt_at IS NULL ORDER BY r.id "
		    "LIMIT 1",
		    db_i64(bisection_id), db_end()) < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 0;
	db_get_i64(res, 0, 0, 1, INT64_MAX, &ret->reply_id);
	db_get_i64(res, 0, 1, 0, INT32_MAX, &v);
	ret->culprit = (int)v;
	db_get_i64(res, 0, 2, 0, INT32_MAX, &v);
	ret->n = (int)v;
	ret->message_id = xstrdup_or_null(db_get(res, 0, 3));
	ret->subject = xstrdup_or_null(db_get(res, 0, 4));
	ret->body = xstrdup(db_get(res, 0, 6));
	if (ret->message_id)
		split_lines(&ret->refs, db_get(res, 0, 5));
	else
		ret->culprit = 0;
	return 1;
}

int lists_reply_release(struct db *db, int64_t id, const char *in_reply_to,
			const struct strvec *refs, const char *subject,
			const char *body, struct strbuf *err)
{
	const struct strvec none = STRVEC_INIT;

	return db_query(
		db, NULL, err,
		"UPDATE list_replies SET next_attempt_at = now(), "
		"in_reply_to = coalesce($2, in_reply_to), refs = CASE "
		"WHEN $2::text IS NULL THEN refs ELSE $3 END, subject = "
		"coalesce($4, subject), body = coalesce($5, body) WHERE "
		"id = $1 AND state = 'pending' AND next_attempt_at IS "
		"NULL",
		db_i64(id), db_str(in_reply_to),
		db_text_array(refs ? refs : &none), db_str(subject),
		db_str(body), db_end());
}

int lists_replies_held_ended(struct db *db, struct strvec *ret,
			     struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (db_query(db, &res, err,
		     "SELECT DISTINCT r.bisection_id FROM list_replies r WHERE "
		     "r.state = 'pending' AND r.next_attempt_at IS NULL AND "
		     "r.bisection_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "
		     "bisections b WHERE b.id = r.bisection_id AND b.state = "
		     "'running') ORDER BY 1",
		     db_end()) < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++)
		strvec_push(ret, db_get(res, i, 0));
	return 0;
}
