/*
 * mailbox.c - one mailbox checked and split; see mailbox.h.
 */
#include <string.h>

#include "mailbox.h"
#include "banned.h"

/* Is the addr-spec a (n bytes) one plain ASCII address?  *why if not. */
static int check_addr_spec(const char *a, size_t n, const char **why)
{
	size_t at = n, ats = 0;

	if (!n) {
		*why = "has an empty address";
		return -1;
	}
	if (n > 254) {
		*why = "is longer than 254 bytes";
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)a[i];

		if (c <= ' ' || c >= 0x7f) {
			*why = "has a space or a character outside ASCII in "
			       "its address";
			return -1;
		}
		if (strchr("()<>[]:;\\,\"", c)) {
			*why = "has a special character ( ) < > [ ] : ; \\ , "
			       "\" in its address (or is two addresses)";
			return -1;
		}
		if (c == '@') {
			at = i;
			ats++;
		}
	}
	if (ats != 1) {
		*why = ats ? "has more than one '@' in its address"
			   : "has no '@' in its address";
		return -1;
	}
	if (at == 0 || at > 64 || at + 1 == n) {
		*why = "has an empty or too long part around its '@'";
		return -1;
	}
	if (a[0] == '.' || a[at - 1] == '.' || a[at + 1] == '.' ||
	    a[n - 1] == '.') {
		*why = "has a '.' at the start or end of a part of its "
		       "address";
		return -1;
	}
	for (size_t i = 0; i + 1 < n; i++)
		if (a[i] == '.' && a[i + 1] == '.') {
			*why = "has '..' in its address";
			return -1;
		}
	return 0;
}

int mail_parse_mailbox(const char *s, struct strbuf *ret_name,
		       struct strbuf *ret_addr, const char **why)
{
	const unsigned char *p = (const unsigned char *)s;
	struct strbuf name = STRBUF_INIT;
	size_t len = strlen(s), b = 0, e = len, ab, ae;
	int r = -1;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_char_len(p + i, len - i);

		if (!n) {
			*why = "is not UTF-8 text";
			return -1;
		}
		/* A line break anywhere could start another SMTP command
		 * or header; C1 controls print as terminal commands. */
		if ((n == 1 &&
		     ((p[i] < 0x20 && p[i] != '\t') || p[i] == 0x7f)) ||
		    (n == 2 && p[i] == 0xc2 && p[i + 1] <= 0x9f)) {
			*why = "holds a control character";
			return -1;
		}
		i += n;
	}
	while (b < e && (s[b] == ' ' || s[b] == '\t'))
		b++;
	while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
		e--;
	if (b == e) {
		*why = "is empty";
		return -1;
	}
	ab = b;
	ae = e;
	if (s[e - 1] == '>') {
		/* phrase "<" addr-spec ">": the phrase may hold quoted
		 * strings; unquoted, none of RFC 5322's specials but '.'. */
		int quoted = 0, found = 0;
		size_t i;

		for (i = b; i < e - 1; i++) {
			char c = s[i];

			if (quoted) {
				if (c == '\\' && i + 2 < e)
					strbuf_addch(&name, s[++i]);
				else if (c == '"')
					quoted = 0;
				else
					strbuf_addch(&name, c);
				continue;
			}
			if (c == '"') {
				quoted = 1;
			} else if (c == '<') {
				found = 1;
				break;
			} else if (strchr("()<>[]:;@\\,", c)) {
				*why = "has a special character ( ) < > [ ] : "
				       "; @ \\ , outside quotes in its name "
				       "(or is two addresses)";
				goto out;
			} else {
				strbuf_addch(&name, c == '\t' ? ' ' : c);
			}
		}
		if (quoted) {
			*why = "has a quote that does not end in its name";
			goto out;
		}
		if (!found) {
			*why = "has a '>' without its '<'";
			goto out;
		}
		ab = i + 1;
		ae = e - 1;
		strbuf_trim(&name);
	}
	if (check_addr_spec(s + ab, ae - ab, why) < 0)
		goto out;
	if (ret_name)
		strbuf_addbuf(ret_name, &name);
	if (ret_addr)
		strbuf_add(ret_addr, s + ab, ae - ab);
	r = 0;
out:
	strbuf_release(&name);
	return r;
}
