/*
 * mail.h - sending one mail over SMTP (libcurl lives only in mail.c).
 *
 * The farm's answers and bisection results go out as plain-text mails,
 * like the reports of Intel's 0-day robot.  mail_format() turns a message
 * into RFC 5322 text (UTF-8 subject encoded as RFC 2047 words, CRLF line
 * ends, lines cut below 998 bytes); mail_send() hands it to an SMTP server
 * with libcurl's SMTP client: STARTTLS when the server offers it (or
 * required, or smtps://), a login when a user is configured, one session
 * with a deadline.  Retries, backoff and the record of what was sent are
 * the outbox's (store/mails.c); this file only tries once and says why it
 * failed.  Nothing here prints.
 */
#ifndef SCHEDFARM_MAIL_H
#define SCHEDFARM_MAIL_H

#include <stdint.h>

#include "strbuf.h"
#include "strvec.h"

struct mail_server {
	const char *url; /* smtp://host[:port] or smtps://host[:port] */
	int starttls; /* 0 no, 1 when offered, 2 required */
	const char *user; /* NULL: no login */
	const char *password; /* with user */
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
};

/*
 * The address part of "Name <addr>" (or the whole trimmed string), in
 * out.  -1 when there is no plausible address (no '@', spaces, control
 * characters, or longer than 254 bytes).
 */
int mail_address(const char *s, struct strbuf *out);

/* Append the message as RFC 5322 text with CRLF line ends to out. */
void mail_format(const struct mail_message *m, struct strbuf *out);

/*
 * Send m through server s.  0 when the server accepted it for every
 * recipient; -1 with err saying what the server or the connection said
 * ("smtp://h:25: RCPT TO refused: 550 5.1.1 no such user").
 */
int mail_send(const struct mail_server *s, const struct mail_message *m,
	      struct strbuf *err);

#endif
