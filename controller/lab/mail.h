/*
 * mail.h - sending one mail over SMTP (libcurl's session: lab/curl.c).
 *
 * The farm's answers and bisection results go out as plain-text mails,
 * like the reports of Intel's 0-day robot.  mail_format() turns a message
 * into RFC 5322 text (UTF-8 subject encoded as RFC 2047 words, CRLF line
 * ends, From: and To: with RFC 2047 display names and the address outside
 * the encoded-words, header lines folded and every line below 998 bytes);
 * mail_send() hands it to an SMTP server with libcurl's SMTP client:
 * STARTTLS when the server offers it (or required, or smtps://), one
 * session with a deadline.  A login needs TLS: with a user, STARTTLS is
 * required unless the server is smtps:// or insecure_auth is set, so a
 * server that offers no STARTTLS never sees the password.  Each recipient
 * is checked (mail_parse_mailbox) and one the server refuses is reported,
 * not a reason to keep the mail from the others.  Retries, backoff and the
 * record of what was sent are the outbox's (store/mails.c); this file
 * only tries once and says how it went.  Nothing here prints.
 */
#ifndef SCHEDFARM_MAIL_H
#define SCHEDFARM_MAIL_H

#include <stdint.h>

#include "mailbox.h"
#include "strbuf.h"
#include "strvec.h"

struct mail_server {
	const char *url; /* smtp://host[:port] or smtps://host[:port] */
	int starttls; /* 0 no, 1 when offered, 2 required */
	int insecure_auth; /* a login without TLS is allowed */
	const char *user; /* NULL: no login */
	const char *password; /* with user; never in an error */
	const char *ca_file; /* NULL: the system's CA certificates */
	int64_t timeout_ms; /* the whole session */
};

struct mail_message {
	const char *from; /* "Name <addr>" or "addr" */
	const struct strvec *to; /* recipients, each "Name <addr>" or "addr" */
	const char *subject; /* UTF-8, one line */
	const char *body; /* UTF-8 text, \n line ends */
	const char *message_id; /* "<...@...>", stable across retries */
	int64_t date; /* seconds since the epoch, for the Date: header */
	/* a reply on a list's thread: Cc recipients, In-Reply-To and
	 * References ("<...>" each); NULL: none */
	const struct strvec *cc;
	const char *in_reply_to, *references;
};

/*
 * Append at most max bytes of s as text to store and print: bytes that are
 * not UTF-8, and control characters (C0, DEL, C1), as \xNN.  For the
 * recipients left out of a mail, which are shown where they came from.
 */
void mail_add_printable(struct strbuf *out, const char *s, size_t max);

/* The address part of mailbox s in out; -1 when s is not one mailbox. */
int mail_address(const char *s, struct strbuf *out);

/*
 * Append the message as RFC 5322 text with CRLF line ends to out.  The
 * sender and the recipients must be mailboxes (mail_parse_mailbox); one
 * that is not is left out of its header.
 */
void mail_format(const struct mail_message *m, struct strbuf *out);

/* What mail_send() says beyond 0, -1 and MAIL_UNKNOWN. */
struct mail_outcome {
	/* recipients left out: the ones that are not a mailbox (the reason
	 * says why) and the ones the server refused (its reply) */
	struct strvec refused, refused_why;
};

void mail_outcome_init(struct mail_outcome *o);
void mail_outcome_release(struct mail_outcome *o);

/* mail_send(): the end of the data went out and no reply came back. */
#define MAIL_UNKNOWN (-2)

/*
 * Send m through server s.  0 when the server accepted it for at least
 * one recipient (those it refused, and those that are not a mailbox, are
 * in o); -1 with err saying what the server or the connection said
 * ("smtp://h:25: RCPT TO refused: 550 5.1.1 no such user") when nobody
 * got it and a later try may do better; MAIL_UNKNOWN with err when the
 * whole message went out after DATA and the server's reply did not come
 * (a timeout, a closed connection): it may have been delivered, and
 * sending it again may deliver it twice.  The password is never in err.
 */
int mail_send(const struct mail_server *s, const struct mail_message *m,
	      struct mail_outcome *o, struct strbuf *err);

#endif
