/*
 * mailbox.h - one RFC 5322 mailbox ("Name <a@b>" or "a@b") checked and
 * split: what the settings, submit, the answer and the SMTP sender all
 * ask of an address (lab/mail.c sends; this only reads).
 */
#ifndef SCHEDFARM_MAILBOX_H
#define SCHEDFARM_MAILBOX_H

#include "strbuf.h"

/*
 * One mailbox, "Name <local@domain>", "\"Last, First\" <local@domain>" or
 * "local@domain": its display name (unquoted, may be empty) into
 * ret_name and its address into ret_addr (either may be NULL).  0, or -1
 * with *why (a static sentence) when s is not exactly one mailbox: not
 * UTF-8, a control character, two addresses ("a@x, b@y"), a name with
 * an unquoted special (, ; : < > @ [ ] \ "), an address with spaces or
 * outside ASCII, no '@' or an empty part, or longer than 254 bytes.
 * What is appended on failure is unspecified.
 */
int mail_parse_mailbox(const char *s, struct strbuf *ret_name,
		       struct strbuf *ret_addr, const char **why);

#endif
