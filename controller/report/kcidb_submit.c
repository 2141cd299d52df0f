/*
 * kcidb_submit.c - answers sent to a kcidb-ng endpoint, each recorded
 * once in `kcidb_exports`; see kcidb.h and doc/KCIDB.md.
 *
 * The protocol is kcidb-ng's REST one (kcidb-restd-rs): POST URL/submit
 * with the document as its JSON body and "Authorization: Bearer TOKEN".
 * Every answer of kcidb-ng is a JSON object {"id", "status", "message"}:
 * a submission taken is 200 with "status" "ok" and "id" its 32
 * alphanumerics; a refusal is "status" "error", "id" "0" and "message"
 * why (401 a bad token, 400 a body that is not JSON, 500 the server's
 * own failure).  Then GET URL/status?id=ID: 200 with "status"
 * "inprogress" or "ready" (not yet), "processed" (in the database) or
 * "failed" (its validation refused it); 404 "notfound" (it has no such
 * submission, or no more); 400 "error" (an id it refuses).  A failed,
 * unknown or refused submission is recorded as failed and sent again
 * later with a fresh document.  A try that gets no answer, a 5xx or a
 * 429 is tried again twice within the call, 0.2 s and then 0.4 s later;
 * what still fails is recorded with its error and retried by a later
 * call once its next_try_at is due, the wait doubling from [kcidb] retry
 * up to an hour: an answer is never dropped.  The token goes to libcurl
 * only, never into an error or a recorded row.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fs.h"
#include "json.h"
#include "lab/curl.h"
#include "report/kcidb.h"
#include "store/kcidb.h"
#include "time-util.h"
#include "banned.h"

/* Tries of one POST within a call; the waits between them. */
#define POST_TRIES 3
#define POST_WAIT_MS 200

/* url with path appended, one slash between them. */
static void endpoint_url(const struct kcidb_endpoint *ep, const char *path,
			 struct strbuf *out)
{
	size_t l = strlen(ep->url);

	strbuf_add(out, ep->url, l && ep->url[l - 1] == '/' ? l - 1 : l);
	strbuf_addstr(out, path);
}

/*
 * Why a refusal was given, for err: ": MESSAGE" when body is kcidb-ng's
 * JSON object with a "message", else the start of the body, printable.
 */
static void reply_why(const struct strbuf *body, struct strbuf *err)
{
	struct json_value *v = NULL;
	struct strbuf e = STRBUF_INIT;
	const char *m = NULL;
	size_t n = body->len < 200 ? body->len : 200;

	if (json_parse(body->buf, body->len, NULL, &v, &e) == 0)
		m = json_string(json_get(v, "message"));
	if (m && *m) {
		strbuf_addstr(err, ": ");
		strbuf_add_printablen(err, m, strlen(m) < 200 ? strlen(m) : 200,
				      0);
	} else if (n) {
		strbuf_addstr(err, ": ");
		strbuf_add_printablen(err, body->buf, n, 0);
	}
	json_free(v);
	strbuf_release(&e);
}

/* Whether s is an id kcidb-ng gives: 1 to 64 ASCII letters and digits,
 * not its "0" of a refusal. */
static int submission_id_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n && n <= 64 && strcmp(s, "0") &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789") == n;
}

int kcidb_submit_reply(long code, const struct strbuf *body,
		       struct strbuf *ret_id, struct strbuf *err)
{
	struct json_value *v = NULL;
	const char *st, *id;
	int r = -2;

	if (code < 200 || code > 299) {
		strbuf_addf(err, "HTTP %ld", code);
		reply_why(body, err);
		return code >= 500 || code == 429 ? -1 : -2;
	}
	if (json_parse(body->buf, body->len, NULL, &v, err) < 0)
		goto out;
	st = json_string(json_get(v, "status"));
	id = json_string(json_get(v, "id"));
	if (!st || strcmp(st, "ok") || !submission_id_ok(id)) {
		strbuf_addf(err,
			    "HTTP %ld but not a submission taken "
			    "(status \"ok\" and an alphanumeric id)",
			    code);
		reply_why(body, err);
		goto out;
	}
	strbuf_addstr(ret_id, id);
	r = 0;
out:
	json_free(v);
	return r;
}

/*
 * One POST of doc to /submit: what kcidb_submit_reply() says of its
 * answer, "POST URL: " before its error; -1 with err when no answer
 * came.
 */
static int post_once(const struct kcidb_endpoint *ep, const char *doc,
		     struct strbuf *ret_id, struct strbuf *err)
{
	struct strbuf url = STRBUF_INIT, body = STRBUF_INIT;
	struct https_request rq = {
		.method = "POST",
		.json_body = doc,
		.bearer = ep->token,
		.ca_file = ep->ca_file,
	};
	long status;
	int r = -1;

	endpoint_url(ep, "/submit", &url);
	rq.url = url.buf;
	if (https_request(&rq, &status, &body, err) == 0) {
		struct strbuf e = STRBUF_INIT;

		r = kcidb_submit_reply(status, &body, ret_id, &e);
		if (r)
			strbuf_addf(err, "POST %s: %s", url.buf, e.buf);
		strbuf_release(&e);
	}
	strbuf_release(&url);
	strbuf_release(&body);
	return r;
}

int kcidb_status_reply(const char *id, long code, const struct strbuf *body,
		       int *ret_state, struct strbuf *err)
{
	struct json_value *v = NULL;
	const char *s;
	int r = -1;

	*ret_state = 0;
	if (code != 200 && code != 404 && code != 400) {
		strbuf_addf(err, "status of %s: HTTP %ld", id, code);
		reply_why(body, err);
		return -1;
	}
	if (json_parse(body->buf, body->len, NULL, &v, err) < 0)
		goto out;
	s = json_string(json_get(v, "status"));
	if (!s) {
		strbuf_addf(err, "status of %s: HTTP %ld without a status", id,
			    code);
		goto out;
	}
	r = 0;
	if (code == 200 && !strcmp(s, "processed")) {
		*ret_state = 1;
	} else if ((code == 200 && !strcmp(s, "failed")) ||
		   (code == 404 && !strcmp(s, "notfound")) ||
		   (code == 400 && !strcmp(s, "error"))) {
		*ret_state = -1;
		strbuf_addf(err, "the endpoint says submission %s: %s", id, s);
		reply_why(body, err);
	} else if (code != 200) {
		strbuf_addf(err, "status of %s: HTTP %ld with status ", id,
			    code);
		strbuf_add_printable(err, s, 0);
		r = -1;
	}
out:
	json_free(v);
	return r;
}

/*
 * One GET of /status?id=id: 0 with *ret_state as kcidb_status_reply()
 * says;
 * -1 with err when no usable answer came (polled again later).
 */
static int poll_once(const struct kcidb_endpoint *ep, const char *id,
		     int *ret_state, struct strbuf *err)
{
	struct strbuf url = STRBUF_INIT, body = STRBUF_INIT;
	struct https_request rq = {
		.method = "GET",
		.bearer = ep->token,
		.ca_file = ep->ca_file,
	};
	long status;
	int r = -1;

	*ret_state = 0;
	endpoint_url(ep, "/status?id=", &url);
	for (const char *p = id; *p; p++)
		if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxy"
			   "z"
			   "0123456789-._~",
			   *p))
			strbuf_addch(&url, *p);
		else
			strbuf_addf(&url, "%%%02X", (unsigned char)*p);
	rq.url = url.buf;
	if (https_request(&rq, &status, &body, err) == 0)
		r = kcidb_status_reply(id, status, &body, ret_state, err);
	strbuf_release(&url);
	strbuf_release(&body);
	return r;
}

/*
 * Poll submission id of patch until it is processed or failed, or
 * ep->wait_ms passed (at least one poll), and record what it came to.
 * 0, or -1 with err when the database failed.
 */
static int poll_and_record(struct db *db, const struct kcidb_endpoint *ep,
			   int64_t patch, const char *id,
			   struct kcidb_submit_stats *st, struct strbuf *notes,
			   struct strbuf *err)
{
	int64_t deadline = deadline_in(ep->wait_ms), wait = 200;
	struct strbuf why = STRBUF_INIT;
	int state = 0, r = 0;

	for (;;) {
		strbuf_reset(&why);
		if (poll_once(ep, id, &state, &why) < 0)
			state = 0;
		if (state || !deadline_left(deadline))
			break;
		sleep_ms(wait < deadline_left(deadline)
				 ? wait
				 : deadline_left(deadline));
		if (wait < 2000)
			wait *= 2;
	}
	if (state > 0) {
		r = kcidb_export_processed(db, patch, err);
		st->processed++;
	} else if (state < 0) {
		r = kcidb_export_failed(db, patch, 1, why.buf, ep->retry_ms,
					err);
		strbuf_addf(notes, "PLM#%lld: %s\n", (long long)patch, why.buf);
		st->failed++;
	} else {
		if (why.len)
			strbuf_addf(notes,
				    "PLM#%lld: %s (polled again later)\n",
				    (long long)patch, why.buf);
		st->waiting++;
	}
	strbuf_release(&why);
	return r;
}

/*
 * Send the answer of patch: its document made afresh, each POST counted
 * as a try in its row, then its status polled.  0, or -1 with err when
 * the database failed (a failed send is recorded and noted).
 */
static int send_one(struct db *db, const struct kcidb_opts *o,
		    const struct kcidb_endpoint *ep, int64_t patch,
		    struct kcidb_submit_stats *st, struct strbuf *notes,
		    struct strbuf *err)
{
	struct strbuf doc = STRBUF_INIT, id = STRBUF_INIT, why = STRBUF_INIT;
	struct kcidb_doc d;
	int64_t tries;
	int r = -1, pr = -1;

	kcidb_doc_init(&d);
	if (kcidb_doc_add_answer(&d, db, o, patch, err) < 0)
		goto out;
	kcidb_doc_text(&d, &doc);
	for (int t = 0; t < POST_TRIES; t++) {
		if (t)
			sleep_ms((int64_t)POST_WAIT_MS << (t - 1));
		if (kcidb_export_try(db, patch, o->origin, doc.buf, &tries,
				     err) < 0)
			goto out;
		strbuf_reset(&why);
		strbuf_reset(&id);
		pr = post_once(ep, doc.buf, &id, &why);
		if (pr != -1)
			break;
	}
	if (pr < 0) {
		if (kcidb_export_failed(db, patch, 0, why.buf, ep->retry_ms,
					err) < 0)
			goto out;
		strbuf_addf(notes,
			    "PLM#%lld: %s (try %lld; tried again later)\n",
			    (long long)patch, why.buf, (long long)tries);
		st->failed++;
		r = 0;
		goto out;
	}
	if (kcidb_export_submitted(db, patch, id.buf, err) < 0)
		goto out;
	st->sent++;
	r = poll_and_record(db, ep, patch, id.buf, st, notes, err);
out:
	kcidb_doc_release(&d);
	strbuf_release(&doc);
	strbuf_release(&id);
	strbuf_release(&why);
	return r;
}

/* Whether patch p is among res's (kcidb_answers()) rows. */
static int among(struct db_result *res, int64_t p)
{
	for (int i = 0; i < db_nrows(res); i++)
		if (strtoll(db_get(res, i, 0), NULL, 10) == p)
			return 1;
	return 0;
}

/* kcidb_submit_due() once this controller holds the submitter's lock. */
static int submit_locked(struct db *db, const struct kcidb_opts *o,
			 const struct kcidb_endpoint *ep,
			 const struct kcidb_select *sel,
			 struct kcidb_submit_stats *st, struct strbuf *notes,
			 struct strbuf *err)
{
	static const struct kcidb_select all;
	_cleanup_db_result_ struct db_result *polling = NULL, *due = NULL,
					     *picked = NULL;

	if (!sel)
		sel = &all;
	if (kcidb_answers(db, sel->patch, sel->kernel, sel->since,
			  KCIDB_PICK_ANY, &picked, err) < 0 ||
	    kcidb_exports_polling(db, &polling, err) < 0)
		return -1;
	for (int i = 0; i < db_nrows(polling); i++) {
		int64_t p = strtoll(db_get(polling, i, 0), NULL, 10);

		if (!among(picked, p))
			continue;
		if (poll_and_record(db, ep, p, db_get(polling, i, 1), st, notes,
				    err) < 0)
			return -1;
	}
	if (kcidb_answers(db, sel->patch, sel->kernel, sel->since,
			  KCIDB_PICK_DUE, &due, err) < 0)
		return -1;
	for (int i = 0; i < db_nrows(due); i++)
		if (send_one(db, o, ep, strtoll(db_get(due, i, 0), NULL, 10),
			     st, notes, err) < 0)
			return -1;
	return 0;
}

int kcidb_submit_due(struct db *db, const struct kcidb_opts *o,
		     const struct kcidb_endpoint *ep,
		     const struct kcidb_select *sel,
		     struct kcidb_submit_stats *st, struct strbuf *notes,
		     struct strbuf *err)
{
	int got, r;

	memset(st, 0, sizeof(*st));
	if (kcidb_lock_try(db, &got, err) < 0)
		return -1;
	if (!got) {
		strbuf_addstr(notes, "another controller is submitting to "
				     "KCIDB now: nothing sent by this one\n");
		st->busy = 1;
		return 0;
	}
	r = submit_locked(db, o, ep, sel, st, notes, err);
	{
		/* A failure before says why already; the unlock's own
		 * error is told only when it is the first. */
		struct strbuf e = STRBUF_INIT;

		if (kcidb_unlock(db, &e) < 0 && r == 0) {
			strbuf_addbuf(err, &e);
			r = -1;
		}
		strbuf_release(&e);
	}
	return r;
}

int kcidb_opts_from_config(const struct farm_config *cfg, const char *origin,
			   struct kcidb_opts *o, struct strbuf *err)
{
	memset(o, 0, sizeof(*o));
	o->origin = origin ? origin : cfg->kcidb_origin;
	if (!o->origin) {
		strbuf_addstr(err, "no KCIDB origin: set [kcidb] origin in the "
				   "settings");
		return -1;
	}
	if (cfg->base_url && (starts_with(cfg->base_url, "https://") ||
			      starts_with(cfg->base_url, "http://"))) {
		o->base_url = cfg->base_url;
		o->files_dir = cfg->report_dir;
		if (mkdir_p(cfg->report_dir, 0755, err) < 0)
			return -1;
	}
	return 0;
}

int kcidb_submit_configured(struct db *db, const struct farm_config *cfg,
			    const char *origin, const struct kcidb_select *sel,
			    int64_t wait_ms, struct kcidb_submit_stats *st,
			    struct strbuf *notes, struct strbuf *err)
{
	struct strbuf token = STRBUF_INIT;
	struct kcidb_opts o;
	struct kcidb_endpoint ep = {
		.url = cfg->kcidb_url,
		.ca_file = cfg->kcidb_ca_file,
		.retry_ms = cfg->kcidb_retry_ms,
		.wait_ms = wait_ms,
	};
	int r = -1;

	memset(st, 0, sizeof(*st));
	if (!cfg->kcidb_url) {
		strbuf_addstr(err, "[kcidb] url is not set in the settings");
		return -1;
	}
	if (kcidb_opts_from_config(cfg, origin, &o, err) < 0 ||
	    farm_config_kcidb_token(cfg, &token, err) < 0)
		goto out;
	ep.token = token.buf;
	r = kcidb_submit_due(db, &o, &ep, sel, st, notes, err);
out:
	memset(token.buf, 0, token.len);
	strbuf_release(&token);
	return r;
}
