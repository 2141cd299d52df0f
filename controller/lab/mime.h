/*
 * mime.h - a mail read with GMime (loaded on first use): the headers the
 * list intake needs, decoded (RFC 2047, charsets), and the text of its
 * text parts with their transfer encoding (quoted-printable, base64)
 * undone, attachments such as a patch included.
 *
 * The only file that knows GMime is mime.c.  Nothing here prints.
 */
#ifndef SCHEDFARM_LAB_MIME_H
#define SCHEDFARM_LAB_MIME_H

#include <stddef.h>

#include "strbuf.h"
#include "strvec.h"

struct mail_msg {
	char *message_id; /* without <>; never NULL once read */
	char *subject; /* decoded; "" when missing */
	char *from; /* "Name <addr>", decoded; "" when missing */
	char *reply_to; /* NULL when missing */
	char *original_from; /* X-Original-From, NULL when missing */
	char *in_reply_to; /* without <>; NULL when missing */
	struct strvec references; /* without <>, oldest first */
	struct strvec to, cc; /* one address each, as "Name <addr>" */
	struct strbuf body; /* the text parts, UTF-8, one after the other */
};

void mail_msg_init(struct mail_msg *m);
void mail_msg_release(struct mail_msg *m);

/*
 * Load GMime and initialise it, once per process.  0, or -1 with err
 * naming the library and its package.
 */
int mime_load(struct strbuf *err);

/*
 * Read the mail of len bytes at data into *ret (initialised by the
 * caller, released by it either way).  0, or -1 with err saying why it is
 * unreadable ("not a mail GMime can read", "no Message-ID").
 */
int mime_parse(const char *data, size_t len, struct mail_msg *ret,
	       struct strbuf *err);

#endif
