/*
 * curl.c - libcurl, loaded on first use, and the sessions the farm asks
 * of it; see curl.h.
 *
 * libcurl is loaded (dynlib.h) and curl_global_init() called once per
 * process, before the first handle, as libcurl requires.  Each call
 * makes its own handle, so calls from several threads need no lock once
 * libcurl_load() has run.
 */
#include <curl/curl.h>
#include <string.h>
#include <strings.h>

#include "cleanup.h"
#include "dynlib.h"
#include "lab/curl.h"
#include "banned.h"

/* libcurl's functions, loaded by the first use (dynlib.h), typed from
 * libcurl's own headers. */
#define LC(name) __typeof__(curl_##name) *name;
static struct {
	LC(global_init)
	LC(easy_strerror)
	LC(slist_append)
	LC(easy_init)
	LC(easy_setopt)
	LC(easy_perform)
	LC(easy_getinfo)
	LC(easy_cleanup)
	LC(slist_free_all)
} lc;
#undef LC

int libcurl_load(struct strbuf *err)
{
#define LC(name) { "curl_" #name, (void **)&lc.name },
	static const struct dynlib_sym syms[] = {
		LC(global_init) LC(easy_strerror) LC(slist_append) LC(easy_init)
			LC(easy_setopt) LC(easy_perform) LC(easy_getinfo)
				LC(easy_cleanup) LC(slist_free_all)
	};
#undef LC
	static int loaded, done;
	CURLcode c;

	if (done)
		return 0;
	if (!loaded && dynlib_load("libcurl.so.4", "libcurl4", syms,
				   ARRAY_SIZE(syms), err) < 0)
		return -1;
	loaded = 1;
	c = lc.global_init(CURL_GLOBAL_DEFAULT);
	if (c != CURLE_OK) {
		strbuf_addf(err, "libcurl did not initialise: %s",
			    lc.easy_strerror(c));
		return -1;
	}
	done = 1;
	return 0;
}

void smtp_outcome_init(struct smtp_outcome *o)
{
	memset(o, 0, sizeof(*o));
	strvec_init(&o->refused);
	strvec_init(&o->replies);
}

void smtp_outcome_release(struct smtp_outcome *o)
{
	strvec_clear(&o->refused);
	strvec_clear(&o->replies);
}

struct upload {
	const char *data;
	size_t len, off;
	int done; /* all of it was handed to libcurl */
};

static size_t read_cb(char *buf, size_t size, size_t nmemb, void *ctx)
{
	struct upload *u = ctx;
	size_t room = size * nmemb, n = u->len - u->off;

	if (n > room)
		n = room;
	memcpy(buf, u->data + u->off, n);
	u->off += n;
	if (!n)
		u->done = 1;
	return n;
}

/*
 * What the session said, as libcurl's debug callback shows it: the
 * command lines sent (before TLS encrypts them) and the reply lines.  It
 * tells which RCPT TO the server refused (libcurl only says that some
 * were), whether an AUTH went out, and whether any reply came after the
 * end of the data.
 */
struct session {
	struct smtp_outcome *o;
	const struct upload *up;
	struct strbuf rcpt; /* the RCPT TO waiting for its reply */
	int in_rcpt;
};

static int debug_cb(CURL *h, curl_infotype type, char *data, size_t size,
		    void *ctx)
{
	struct session *ss = ctx;

	(void)h;
	if (type == CURLINFO_HEADER_OUT) {
		ss->in_rcpt = 0;
		if (size >= 4 && !strncasecmp(data, "AUTH", 4))
			ss->o->auth_sent = 1;
		if (size > 9 && !strncasecmp(data, "RCPT TO:<", 9)) {
			const char *gt = memchr(data + 9, '>', size - 9);

			strbuf_reset(&ss->rcpt);
			if (gt)
				strbuf_add(&ss->rcpt, data + 9,
					   (size_t)(gt - data - 9));
			ss->in_rcpt = 1;
		}
	} else if (type == CURLINFO_HEADER_IN) {
		if (ss->up->done)
			ss->o->reply_after_data = 1;
		/* The last line of the reply to a RCPT TO: "550 ..." (not
		 * "550-..."). */
		if (ss->in_rcpt && size >= 4 && data[3] != '-') {
			if (data[0] == '4' || data[0] == '5') {
				struct strbuf why = STRBUF_INIT;

				strbuf_add(&why, data, size);
				strbuf_rtrim(&why);
				strvec_push(&ss->o->refused, ss->rcpt.buf);
				strvec_push(&ss->o->replies, why.buf);
				strbuf_release(&why);
			}
			ss->in_rcpt = 0;
		}
	}
	return 0;
}

/* libcurl 7.69's CURLOPT_MAIL_RCPT_ALLLOWFAILS, called _ALLOWFAILS since
 * 8.2 (the old name deprecated there): by its number, which both have. */
#define MAIL_RCPT_ALLOWFAILS ((CURLoption)(CURLOPTTYPE_LONG + 290))

/* The options of one SMTP session on h (rcpt: rq's recipients as
 * libcurl's list; up and ss: the callbacks' state). */
static void smtp_options(CURL *h, const struct smtp_request *rq,
			 struct curl_slist *rcpt, struct upload *up,
			 struct session *ss, char *errbuf)
{
	lc.easy_setopt(h, CURLOPT_URL, rq->url);
	lc.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	lc.easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	lc.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	lc.easy_setopt(h, CURLOPT_TIMEOUT_MS,
		       (long)(rq->timeout_ms > 0 ? rq->timeout_ms : 30000));
	lc.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
		       (long)(rq->timeout_ms > 0 && rq->timeout_ms < 10000
				      ? rq->timeout_ms
				      : 10000));
	if (!starts_with(rq->url, "smtps://"))
		lc.easy_setopt(h, CURLOPT_USE_SSL,
			       (long)(rq->tls == SMTP_TLS_ALL ? CURLUSESSL_ALL
				      : rq->tls == SMTP_TLS_TRY
					      ? CURLUSESSL_TRY
					      : CURLUSESSL_NONE));
	if (rq->ca_file)
		lc.easy_setopt(h, CURLOPT_CAINFO, rq->ca_file);
	if (rq->user) {
		lc.easy_setopt(h, CURLOPT_USERNAME, rq->user);
		lc.easy_setopt(h, CURLOPT_PASSWORD,
			       rq->password ? rq->password : "");
	}
	lc.easy_setopt(h, CURLOPT_MAIL_FROM, rq->from);
	lc.easy_setopt(h, CURLOPT_MAIL_RCPT, rcpt);
	/* Go on when the server refuses some recipients (not all). */
	lc.easy_setopt(h, MAIL_RCPT_ALLOWFAILS, 1L);
	lc.easy_setopt(h, CURLOPT_DEBUGFUNCTION, debug_cb);
	lc.easy_setopt(h, CURLOPT_DEBUGDATA, ss);
	lc.easy_setopt(h, CURLOPT_VERBOSE, 1L);
	lc.easy_setopt(h, CURLOPT_READFUNCTION, read_cb);
	lc.easy_setopt(h, CURLOPT_READDATA, up);
	lc.easy_setopt(h, CURLOPT_UPLOAD, 1L);
}

int smtp_send(const struct smtp_request *rq, struct smtp_outcome *o,
	      struct strbuf *err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct upload up = { rq->data, rq->len, 0, 0 };
	struct session ss = { o, &up, STRBUF_INIT, 0 };
	struct curl_slist *rcpt = NULL;
	CURL *h = NULL;
	CURLcode c;
	int r = -1;

	if (libcurl_load(err) < 0)
		return -1;
	for (size_t i = 0; i < rq->rcpt->nr; i++) {
		struct curl_slist *n = lc.slist_append(rcpt, rq->rcpt->v[i]);

		if (!n) {
			strbuf_addstr(err, "out of memory");
			goto out;
		}
		rcpt = n;
	}
	h = lc.easy_init();
	if (!h) {
		strbuf_addstr(err, "libcurl could not make a handle");
		goto out;
	}
	smtp_options(h, rq, rcpt, &up, &ss, errbuf);
	o->performed = 1;
	c = lc.easy_perform(h);
	lc.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &o->last_reply);
	o->all_sent = up.done;
	if (c == CURLE_OK) {
		r = 0;
		goto out;
	}
	o->tls_refused = c == CURLE_USE_SSL_FAILED;
	strbuf_addstr(err, errbuf[0] ? errbuf : lc.easy_strerror(c));
	strbuf_rtrim(err);
out:
	if (h)
		lc.easy_cleanup(h);
	if (rcpt)
		lc.slist_free_all(rcpt);
	strbuf_release(&ss.rcpt);
	return r;
}

/* The answer's body, kept up to its cap. */
struct download {
	struct strbuf *body;
	size_t max, start;
	int too_big;
};

static size_t write_cb(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct download *d = ctx;
	size_t n = size * nmemb;

	if (d->body->len - d->start + n > d->max) {
		d->too_big = 1;
		return 0; /* libcurl stops: CURLE_WRITE_ERROR */
	}
	strbuf_add(d->body, data, n);
	return n;
}

int https_request(const struct https_request *rq, long *ret_status,
		  struct strbuf *body, struct strbuf *err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct download d = { body,
			      rq->max_body ? rq->max_body : HTTPS_BODY_MAX,
			      body->len, 0 };
	struct curl_slist *hdrs = NULL, *n;
	struct strbuf auth = STRBUF_INIT;
	CURL *h = NULL;
	CURLcode c;
	long status = 0;
	int r = -1;

	*ret_status = 0;
	if (!starts_with(rq->url, "https://")) {
		strbuf_addf(err, "%s: not an https:// URL", rq->url);
		return -1;
	}
	if (libcurl_load(err) < 0)
		return -1;
	hdrs = lc.slist_append(NULL, "Accept: application/json");
	if (!hdrs)
		goto oom;
	if (rq->json_body) {
		n = lc.slist_append(hdrs, "Content-Type: application/json");
		if (!n)
			goto oom;
		hdrs = n;
	}
	if (rq->bearer) {
		strbuf_addf(&auth, "Authorization: Bearer %s", rq->bearer);
		n = lc.slist_append(hdrs, auth.buf);
		if (!n)
			goto oom;
		hdrs = n;
	}
	h = lc.easy_init();
	if (!h) {
		strbuf_addstr(err, "libcurl could not make a handle");
		goto out;
	}
	lc.easy_setopt(h, CURLOPT_URL, rq->url);
	lc.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https");
	lc.easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	lc.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	lc.easy_setopt(h, CURLOPT_TIMEOUT_MS,
		       (long)(rq->timeout_ms > 0 ? rq->timeout_ms : 30000));
	lc.easy_setopt(h, CURLOPT_CUSTOMREQUEST, rq->method);
	lc.easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	if (rq->json_body) {
		lc.easy_setopt(h, CURLOPT_POSTFIELDS, rq->json_body);
		lc.easy_setopt(h, CURLOPT_POSTFIELDSIZE,
			       (long)strlen(rq->json_body));
	}
	if (rq->ca_file)
		lc.easy_setopt(h, CURLOPT_CAINFO, rq->ca_file);
	if (rq->user) {
		lc.easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		lc.easy_setopt(h, CURLOPT_USERNAME, rq->user);
		lc.easy_setopt(h, CURLOPT_PASSWORD,
			       rq->password ? rq->password : "");
	}
	lc.easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
	lc.easy_setopt(h, CURLOPT_WRITEDATA, &d);
	c = lc.easy_perform(h);
	if (c == CURLE_OK) {
		lc.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
		*ret_status = status;
		r = 0;
		goto out;
	}
	if (d.too_big)
		strbuf_addf(err, "%s: the answer is larger than %zu bytes",
			    rq->url, d.max);
	else
		strbuf_addf(err, "%s: %s", rq->url,
			    errbuf[0] ? errbuf : lc.easy_strerror(c));
	strbuf_rtrim(err);
	goto out;
oom:
	strbuf_addstr(err, "out of memory");
out:
	if (h)
		lc.easy_cleanup(h);
	if (hdrs)
		lc.slist_free_all(hdrs);
	memset(auth.buf, 0, auth.len);
	strbuf_release(&auth);
	return r;
}
