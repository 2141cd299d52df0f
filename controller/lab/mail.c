/*
 * mail.c - one mail over SMTP with libcurl; see mail.h.
 *
 * libcurl speaks the protocol (EHLO, STARTTLS, AUTH, MAIL FROM, RCPT TO,
 * DATA with dot-stuffing) in curl.c, where libcurl lives; this file
 * builds the message text and its envelope, says which kind of TLS a
 * login needs, hands them to smtp_send() and turns its result and the
 * server's last reply code into one sentence.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cleanup.h"
#include "lab/curl.h"
#include "lab/mail.h"
#include "mailbox.h"
#include "banned.h"

/* RFC 5322: at most 998 bytes per line, CRLF excluded. */
#define MAIL_LINE_MAX 990
/* Header lines are folded before a word that would pass this column
 * (RFC 5322 asks for 78); no word is longer than an address. */
#define MAIL_FOLD 76
/* Input bytes per encoded-word: 60 base64 characters, 72 in all, below
 * RFC 2047's 75. */
#define EW_BYTES 45
/* A display name longer than this as one quoted word is encoded
 * instead, as encoded-words fold and a quoted-string does not. */
#define NAME_WORD_MAX 75
/* What a refused recipient and its reason keep, at most. */
#define REFUSED_MAX 300

void mail_outcome_init(struct mail_outcome *o)
{
	strvec_init(&o->refused);
	strvec_init(&o->refused_why);
}

void mail_outcome_release(struct mail_outcome *o)
{
	strvec_clear(&o->refused);
	strvec_clear(&o->refused_why);
}

void mail_add_printable(struct strbuf *out, const char *s, size_t max)
{
	struct strbuf u = STRBUF_INIT;
	size_t n = strlen(s);

	strbuf_add_utf8_safe(&u, s, n > max ? max : n);
	for (size_t i = 0; i < u.len;) {
		unsigned char c = (unsigned char)u.buf[i];
		size_t l = utf8_char_len((unsigned char *)u.buf + i, u.len - i);

		if (!l)
			l = 1;
		if ((l == 1 && (c < 0x20 || c == 0x7f)) ||
		    (l == 2 && c == 0xc2 &&
		     (unsigned char)u.buf[i + 1] <= 0x9f))
			strbuf_addf(out, "\\x%02x",
				    l == 1 ? c : (unsigned char)u.buf[i + 1]);
		else
			strbuf_add(out, u.buf + i, l);
		i += l;
	}
	strbuf_release(&u);
}

/* o gets addr and why, as text to store and print (mail_add_printable). */
static void refuse(struct mail_outcome *o, const char *addr, const char *why)
{
	struct strbuf a = STRBUF_INIT, w = STRBUF_INIT;

	mail_add_printable(&a, addr, REFUSED_MAX);
	mail_add_printable(&w, why, REFUSED_MAX);
	strvec_push(&o->refused, a.buf);
	strvec_push(&o->refused_why, w.buf);
	strbuf_release(&a);
	strbuf_release(&w);
}

int mail_address(const char *s, struct strbuf *out)
{
	const char *why;

	return mail_parse_mailbox(s, NULL, out, &why);
}

/* A header line being written: words are folded onto continuation
 * lines before MAIL_FOLD; the line never holds a line break from input
 * (the callers' words have none). */
struct hdr {
	struct strbuf *out;
	size_t col, words;
};

static void hdr_begin(struct hdr *h, struct strbuf *out, const char *name)
{
	h->out = out;
	strbuf_addf(out, "%s:", name);
	h->col = strlen(name) + 1;
	h->words = 0;
}

/* One word (n bytes, maybe 0: a run of spaces), a space before it. */
static void hdr_word(struct hdr *h, const char *w, size_t n)
{
	if (h->words && n && h->col + 1 + n > MAIL_FOLD) {
		strbuf_addstr(h->out, "\r\n");
		h->col = 0;
	}
	strbuf_addch(h->out, ' ');
	strbuf_add(h->out, w, n);
	h->col += 1 + n;
	h->words++;
}

static void hdr_end(struct hdr *h)
{
	strbuf_addstr(h->out, "\r\n");
}

/*
 * s (len bytes) as RFC 2047 base64 encoded-words of at most EW_BYTES
 * input bytes each, never cutting a UTF-8 sequence; suffix (",") after
 * the last.  The space between two encoded-words is not part of the text,
 * so the words decode to exactly s.
 */
static void hdr_encoded(struct hdr *h, const char *s, size_t len,
			const char *suffix)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
				  "opqrstuvwxyz0123456789+/";
	struct strbuf w = STRBUF_INIT;
	size_t i = 0;

	while (i < len) {
		size_t n = len - i > EW_BYTES ? EW_BYTES : len - i;

		while (n < len - i && n > 1 &&
		       ((unsigned char)s[i + n] & 0xc0) == 0x80)
			n--;
		strbuf_reset(&w);
		strbuf_addstr(&w, "=?UTF-8?B?");
		for (size_t j = 0; j < n; j += 3) {
			unsigned v = (unsigned char)s[i + j] << 16;

			if (j + 1 < n)
				v |= (unsigned char)s[i + j + 1] << 8;
			if (j + 2 < n)
				v |= (unsigned char)s[i + j + 2];
			strbuf_addch(&w, b64[(v >> 18) & 63]);
			strbuf_addch(&w, b64[(v >> 12) & 63]);
			strbuf_addch(&w, j + 1 < n ? b64[(v >> 6) & 63] : '=');
			strbuf_addch(&w, j + 2 < n ? b64[v & 63] : '=');
		}
		strbuf_addstr(&w, "?=");
		i += n;
		if (i >= len)
			strbuf_addstr(&w, suffix);
		hdr_word(h, w.buf, w.len);
	}
	strbuf_release(&w);
}

static int is_ascii_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return 0;
	return 1;
}

/* Printable ASCII whose space-separated words all fit a line. */
static int is_plain_words(const char *s)
{
	size_t run = 0;

	if (!is_ascii_printable(s))
		return 0;
	for (; *s; s++) {
		run = *s == ' ' ? 0 : run + 1;
		if (run > NAME_WORD_MAX)
			return 0;
	}
	return 1;
}

/* s's space-separated words as they are (runs of spaces kept). */
static void hdr_words(struct hdr *h, const char *s, const char *suffix)
{
	struct strbuf w = STRBUF_INIT;

	for (const char *p = s;;) {
		const char *sp = strchr(p, ' ');
		size_t n = sp ? (size_t)(sp - p) : strlen(p);

		strbuf_reset(&w);
		strbuf_add(&w, p, n);
		if (!sp)
			strbuf_addstr(&w, suffix);
		hdr_word(h, w.buf, w.len);
		if (!sp)
			break;
		p = sp + 1;
	}
	strbuf_release(&w);
}

/* Unstructured text (Subject:): words as they are when printable ASCII,
 * else encoded-words over the whole text. */
static void hdr_text(struct hdr *h, const char *s)
{
	if (is_plain_words(s))
		hdr_words(h, s, "");
	else
		hdr_encoded(h, s, strlen(s), "");
}

/* A display name made of atext and spaces needs no quotes. */
static int is_atoms(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == ' ' ||
		      strchr("!#$%&'*+-/=?^_`{|}~", c)))
			return 0;
	}
	return 1;
}

/*
 * One mailbox of an address header, suffix (",") after it: the display
 * name as atoms, a quoted-string, or (outside ASCII, or too long for one
 * word) RFC 2047 encoded-words, then the address in <> -- never inside
 * an encoded-word, where no reader would find it.  0, or -1 (nothing
 * written) when mb is not a mailbox.
 */
static int hdr_mailbox(struct hdr *h, const char *mb, const char *suffix)
{
	struct strbuf name = STRBUF_INIT, addr = STRBUF_INIT, w = STRBUF_INIT;
	const char *why;
	int r = -1;

	if (mail_parse_mailbox(mb, &name, &addr, &why) < 0)
		goto out;
	if (!name.len) {
		strbuf_addf(&w, "%s%s", addr.buf, suffix);
		hdr_word(h, w.buf, w.len);
		r = 0;
		goto out;
	}
	if (is_plain_words(name.buf) && is_atoms(name.buf)) {
		hdr_words(h, name.buf, "");
	} else if (is_ascii_printable(name.buf) &&
		   name.len + 2 <= NAME_WORD_MAX) {
		strbuf_addch(&w, '"');
		for (size_t i = 0; i < name.len; i++) {
			if (name.buf[i] == '"' || name.buf[i] == '\\')
				strbuf_addch(&w, '\\');
			strbuf_addch(&w, name.buf[i]);
		}
		strbuf_addch(&w, '"');
		hdr_word(h, w.buf, w.len);
	} else {
		hdr_encoded(h, name.buf, name.len, "");
	}
	strbuf_reset(&w);
	strbuf_addf(&w, "<%s>%s", addr.buf, suffix);
	hdr_word(h, w.buf, w.len);
	r = 0;
out:
	strbuf_release(&name);
	strbuf_release(&addr);
	strbuf_release(&w);
	return r;
}

/* Header values may not carry line breaks from input. */
static void add_text_header(struct strbuf *out, const char *name,
			    const char *value)
{
	struct strbuf v = STRBUF_INIT;
	struct hdr h;

	strbuf_addstr(&v, value);
	for (size_t i = 0; i < v.len; i++)
		if (v.buf[i] == '\r' || v.buf[i] == '\n')
			v.buf[i] = ' ';
	hdr_begin(&h, out, name);
	hdr_text(&h, v.buf);
	hdr_end(&h);
	strbuf_release(&v);
}

void mail_format(const struct mail_message *m, struct strbuf *out)
{
	struct strvec ok = STRVEC_INIT;
	struct hdr h;
	char date[64];
	time_t t = (time_t)m->date;
	struct tm tm;
	const char *p, *end;

	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	strbuf_addf(out, "Date: %s\r\n", date);
	hdr_begin(&h, out, "From");
	hdr_mailbox(&h, m->from, "");
	hdr_end(&h);
	for (size_t i = 0; i < m->to->nr; i++)
		if (mail_address(m->to->v[i], NULL) == 0)
			strvec_push(&ok, m->to->v[i]);
	hdr_begin(&h, out, "To");
	for (size_t i = 0; i < ok.nr; i++)
		hdr_mailbox(&h, ok.v[i], i + 1 < ok.nr ? "," : "");
	hdr_end(&h);
	strvec_clear(&ok);
	for (size_t i = 0; m->cc && i < m->cc->nr; i++)
		if (mail_address(m->cc->v[i], NULL) == 0)
			strvec_push(&ok, m->cc->v[i]);
	if (ok.nr) {
		hdr_begin(&h, out, "Cc");
		for (size_t i = 0; i < ok.nr; i++)
			hdr_mailbox(&h, ok.v[i], i + 1 < ok.nr ? "," : "");
		hdr_end(&h);
	}
	strvec_clear(&ok);
	add_text_header(out, "Subject", m->subject);
	add_text_header(out, "Message-ID", m->message_id);
	if (m->in_reply_to)
		add_text_header(out, "In-Reply-To", m->in_reply_to);
	if (m->references)
		add_text_header(out, "References", m->references);
	strbuf_addstr(out, "MIME-Version: 1.0\r\n"
			   "Content-Type: text/plain; charset=UTF-8\r\n"
			   "Content-Transfer-Encoding: 8bit\r\n"
			   "Auto-Submitted: auto-generated\r\n"
			   "X-Mailer: schedfarm\r\n\r\n");
	/* Body: CRLF line ends, long lines cut (never inside UTF-8). */
	p = m->body;
	end = p + strlen(p);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		while (l > MAIL_LINE_MAX) {
			size_t cut = MAIL_LINE_MAX;

			while (cut > 1 &&
			       ((unsigned char)p[cut] & 0xc0) == 0x80)
				cut--;
			strbuf_add(out, p, cut);
			strbuf_addstr(out, "\r\n");
			p += cut;
			l -= cut;
		}
		if (l && p[l - 1] == '\r')
			l--;
		strbuf_add(out, p, l);
		strbuf_addstr(out, "\r\n");
		p = nl ? nl + 1 : end;
	}
}

/* Does url carry a user or password ("smtp://u:p@host")? */
static int url_has_userinfo(const char *url)
{
	const char *a = strstr(url, "://");
	size_t n;

	if (!a)
		return 0;
	a += 3;
	n = strcspn(a, "/?#");
	return memchr(a, '@', n) != NULL;
}

/*
 * The recipients of m that are mailboxes: their bare addresses in addrs
 * (the envelope) and as given in to (the To: header); the others go to o
 * as refused, with why.
 */
static void split_list(const struct strvec *in, struct strvec *addrs,
		       struct strvec *out, struct mail_outcome *o)
{
	struct strbuf addr = STRBUF_INIT;
	const char *why;

	/* One recipient that is not an address is left out, not a reason
	 * to keep the mail from the others. */
	for (size_t i = 0; in && i < in->nr; i++) {
		strbuf_reset(&addr);
		if (mail_parse_mailbox(in->v[i], NULL, &addr, &why) < 0) {
			struct strbuf w = STRBUF_INIT;

			strbuf_addf(&w, "not a mail address: it %s", why);
			refuse(o, in->v[i], w.buf);
			strbuf_release(&w);
			continue;
		}
		strvec_push(addrs, addr.buf);
		strvec_push(out, in->v[i]);
	}
	strbuf_release(&addr);
}

/* As split_list(), for m's To and (into cc) its Cc. */
static void split_recipients(const struct mail_message *m, struct strvec *addrs,
			     struct strvec *to, struct strvec *cc,
			     struct mail_outcome *o)
{
	split_list(m->to, addrs, to, o);
	split_list(m->cc, addrs, cc, o);
}

/*
 * err for a session that failed (cerr: libcurl's sentence, so: what the
 * session said): the server's words with its URL; MAIL_UNKNOWN when all
 * of the message went out and no reply followed, else -1.
 */
static int session_failed(const struct mail_server *s, int need_tls,
			  const struct smtp_outcome *so,
			  const struct strbuf *cerr, struct strbuf *err)
{
	if (so->tls_refused && need_tls && !so->auth_sent) {
		strbuf_addf(err,
			    "%s: the server offers no STARTTLS, and a login "
			    "needs TLS: no AUTH was sent (mail.starttls = "
			    "required with a server that offers it, or "
			    "smtps://; mail.insecure_auth = yes sends the "
			    "password in clear)",
			    s->url);
		return -1;
	}
	strbuf_addf(err, "%s: %s", s->url, cerr->buf);
	strbuf_rtrim(err);
	if (so->last_reply)
		strbuf_addf(err, " (last reply %ld)", so->last_reply);
	/* All of the message went out and no reply followed: the server
	 * may have taken it. */
	if (so->all_sent && !so->reply_after_data) {
		strbuf_addstr(err, ": no reply after the end of the data, "
				   "delivery unknown");
		return MAIL_UNKNOWN;
	}
	return -1;
}

int mail_send(const struct mail_server *s, const struct mail_message *m,
	      struct mail_outcome *o, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, from = STRBUF_INIT,
		      cerr = STRBUF_INIT;
	struct strvec to = STRVEC_INIT, cc = STRVEC_INIT, addrs = STRVEC_INIT;
	struct smtp_request rq = { 0 };
	struct smtp_outcome so;
	struct mail_message mm = *m;
	const char *why;
	int smtps, need_tls;
	int r = -1;

	if (!s->url || !*s->url) {
		strbuf_addstr(err, "no SMTP server configured (mail.smtp)");
		return -1;
	}
	/* The URL goes into errors and so into logs and the outbox. */
	if (url_has_userinfo(s->url)) {
		strbuf_addstr(err, "the SMTP URL holds a user or password: "
				   "give them as mail.user and "
				   "mail.password_file");
		return -1;
	}
	smtps = starts_with(s->url, "smtps://");
	need_tls = s->user && !s->insecure_auth && !smtps;
	if (need_tls && s->starttls == 0) {
		strbuf_addstr(err, "a login needs TLS and mail.starttls is "
				   "no: the password is not sent in clear "
				   "(mail.starttls = required, smtps://, or "
				   "mail.insecure_auth = yes)");
		return -1;
	}
	smtp_outcome_init(&so);
	if (mail_parse_mailbox(m->from, NULL, &from, &why) < 0) {
		strbuf_addstr(err, "the sender (mail.from) is not a mail "
				   "address: it ");
		strbuf_addstr(err, why);
		goto out;
	}
	if (libcurl_load(err) < 0)
		goto out;
	split_recipients(m, &addrs, &to, &cc, o);
	if (!addrs.nr) {
		strbuf_addstr(err, "no recipient is a mail address");
		goto out;
	}
	mm.to = &to;
	mm.cc = &cc;
	mail_format(&mm, &text);
	rq.url = s->url;
	/* A login over smtp:// needs STARTTLS: libcurl then stops after
	 * EHLO when the server offers none, before any AUTH. */
	rq.tls = need_tls || s->starttls == 2 ? SMTP_TLS_ALL
		 : s->starttls == 1	      ? SMTP_TLS_TRY
					      : SMTP_TLS_NONE;
	rq.ca_file = s->ca_file;
	rq.user = s->user;
	rq.password = s->password;
	rq.from = from.buf;
	rq.rcpt = &addrs;
	rq.data = text.buf;
	rq.len = text.len;
	rq.timeout_ms = s->timeout_ms;
	r = smtp_send(&rq, &so, &cerr);
	for (size_t i = 0; i < so.refused.nr; i++) {
		struct strbuf w = STRBUF_INIT;

		strbuf_addf(&w, "RCPT TO refused: %s", so.replies.v[i]);
		refuse(o, so.refused.v[i], w.buf);
		strbuf_release(&w);
	}
	if (r < 0 && !so.performed)
		strbuf_addbuf(err, &cerr);
	else if (r < 0)
		r = session_failed(s, need_tls, &so, &cerr, err);
out:
	smtp_outcome_release(&so);
	strbuf_release(&text);
	strbuf_release(&from);
	strbuf_release(&cerr);
	strvec_clear(&to);
	strvec_clear(&cc);
	strvec_clear(&addrs);
	return r;
}
