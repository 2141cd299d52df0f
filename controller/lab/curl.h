/*
 * curl.h - the farm's uses of libcurl: one SMTP session (lab/mail.c) and
 * one HTTPS request (the Redfish client, lab/kind_redfish.c; the
 * KCIDB submitter, report/kcidb_submit.c).  libcurl
 * lives only in curl.c.
 *
 * libcurl is loaded on first use (dynlib.h): a process that sends no mail
 * and talks to no BMC does not pay for it and the dozens of libraries it
 * pulls in.  These functions set libcurl's options and turn what it says
 * into plain results; what the protocol's answers mean (which recipient
 * matters, what a Redfish resource holds) is the caller's.  Nothing here
 * prints, and a password handed in is given to libcurl only, never put
 * into an error.
 */
#ifndef SCHEDFARM_LAB_CURL_H
#define SCHEDFARM_LAB_CURL_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "strvec.h"

/*
 * Load libcurl and call curl_global_init() once per process (the send
 * functions call it too): for a caller that wants a missing library said
 * before it does other work.  0, or -1 with err saying why.
 */
int libcurl_load(struct strbuf *err);

/* STARTTLS on an smtp:// URL: never, when the server offers it, required
 * (libcurl then stops after EHLO, before any AUTH, when none is offered). */
enum smtp_tls { SMTP_TLS_NONE, SMTP_TLS_TRY, SMTP_TLS_ALL };

struct smtp_request {
	const char *url; /* smtp://host[:port] or smtps://host[:port] */
	enum smtp_tls tls; /* smtp:// only */
	const char *ca_file; /* NULL: the system's CA certificates */
	const char *user; /* NULL: no login */
	const char *password; /* with user */
	const char *from; /* the envelope sender: a bare address */
	const struct strvec *rcpt; /* the envelope recipients: bare addresses */
	const char *data; /* the message text, CRLF line ends */
	size_t len;
	int64_t timeout_ms; /* the whole session; <= 0: 30 s */
};

/* What one SMTP session said besides libcurl's result. */
struct smtp_outcome {
	/* The recipients the server refused (RCPT TO answered 4xx or 5xx)
	 * and the last line of each reply, trailing space cut: libcurl
	 * only says that some were. */
	struct strvec refused, replies;
	long last_reply; /* the last reply code, 0 when none came */
	int performed; /* the session was tried (the fields below mean
			* something) */
	int tls_refused; /* STARTTLS was required and not offered */
	int auth_sent; /* an AUTH command went out */
	int all_sent; /* all of the data was handed to libcurl */
	int reply_after_data; /* a reply came after the end of the data */
};

void smtp_outcome_init(struct smtp_outcome *o);
void smtp_outcome_release(struct smtp_outcome *o);

/*
 * One SMTP session sending rq's message to its recipients, going on when
 * the server refuses some of them (not all).  0 when the server took it
 * (the refused ones in o); -1 with err saying what failed: before the
 * session (libcurl missing, no handle: o->performed is 0) a whole
 * sentence; after it libcurl's own sentence, without the URL, the fields
 * of o telling the rest.
 */
int smtp_send(const struct smtp_request *rq, struct smtp_outcome *o,
	      struct strbuf *err);

/* https_request(): the answer's body is cut off past this by default. */
#define HTTPS_BODY_MAX (1024 * 1024)

struct https_request {
	const char *method; /* "GET", "POST", "PATCH", ... */
	const char *url; /* https:// only: another scheme is refused */
	const char *user; /* NULL: no login; else HTTP basic auth */
	const char *password; /* with user: in memory, given to libcurl only */
	const char *bearer; /* NULL: none; else "Authorization: Bearer T",
			     * given to libcurl only, never put in err */
	const char *json_body; /* NULL: none; else sent as application/json */
	const char *ca_file; /* NULL: the system's CA certificates */
	int64_t timeout_ms; /* the whole request; <= 0: 30 s */
	size_t max_body; /* 0: HTTPS_BODY_MAX */
};

/*
 * One HTTPS request (no redirect followed, the server's certificate and
 * name checked): 0 with the HTTP status in *ret_status (any status: what
 * a 4xx or 5xx means is the caller's) and the answer's body appended to
 * body; -1 with err saying why no answer came ("https://h:8443/x: SSL
 * certificate problem: ...", "...: the answer is larger than 1048576
 * bytes").  The password is never in err.
 */
int https_request(const struct https_request *rq, long *ret_status,
		  struct strbuf *body, struct strbuf *err);

#endif
